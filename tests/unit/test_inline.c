/*
 * test_inline.c -- the inline pass through the API: broken callees and
 * calls do not crash it, its scratch kept in a report gives what a fresh
 * one gives, and a block of many calls is inlined in one walk, giving
 * what the calls gave. tests/filetests/inline has what it makes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keel.h"
#include "parsed.h"
#include "pass_checks.h"
#include "unit.h"

/* Inline in %f of text, whose callee %g does not verify, or whose call
 * does not: without a report, with one, with one saying the input
 * verified (a caller's mistake): KL_OK, no crash (the sanitizer builds
 * run this), what it makes of it unspecified. */
static void
check_survives(const char *text)
{
	for (int verified = 0; verified < 2; verified++) {
		kl_module *m = parse_text(text, strlen(text));
		kl_func *f = m ? func_of(m, "f") : NULL;
		kl_func *g = m ? func_of(m, "g") : NULL;
		CHECK(f && g && (!verifies(g) || !verifies(f)));
		kl_pass_report rep = { 0 };
		rep.input_verified = verified;
		if (f && g) {
			CHECK_EQ_INT(kl_inline_func(f, verified ? &rep : NULL),
				     KL_OK);
			CHECK_EQ_INT(kl_inline_func(f, &rep), KL_OK);
		}
		kl_pass_report_free(&rep);
		kl_module_free(m);
	}
}

/* Callees the verifier would refuse, each called from %f: an operand
 * defined in a block that does not run first, an alias cycle, a branch
 * to the entry, a return of too few values, a block without a
 * terminator, a call passing too many arguments, a return in the middle of
 * the entry block (MSan once saw the call's results made aliases of
 * memory never written). */
static void
test_broken_callees_do_not_crash(void)
{
	static const char *const callees[] = {
		"function %g(i32) -> i32 {\n"
		"block0(v0: i32):\n"
		"    v1 = iadd v0, v9\n"
		"    jump block1\n"
		"block1:\n"
		"    v9 = iadd v1, v1\n"
		"    return v9\n"
		"}\n",
		"function %g(i32) -> i32 {\n"
		"block0(v0: i32):\n"
		"    v1 -> v2\n"
		"    v2 -> v1\n"
		"    v3 = iadd.i32 v1, v0\n"
		"    return v3\n"
		"}\n",
		"function %g(i32) -> i32 {\n"
		"block0(v0: i32):\n"
		"    brif v0, block0(v0), block1\n"
		"block1:\n"
		"    return v0\n"
		"}\n",
		"function %g(i32) -> i32 {\n"
		"block0(v0: i32):\n"
		"    brif v0, block1, block2\n"
		"block1:\n"
		"    return\n"
		"block2:\n"
		"    return v0, v0\n"
		"}\n",
		"function %g(i32) -> i32 {\n"
		"block0(v0: i32):\n"
		"    jump block1\n"
		"block1:\n"
		"    v1 = iadd v0, v0\n"
		"}\n",
		"function %g(i32, i32) -> i32 {\n"
		"block0(v0: i32, v1: i32):\n"
		"    return v1\n"
		"}\n",
		"function %g(i32) -> i32 {\n"
		"block0(v0: i32):\n"
		"    return v0\n"
		"    v1 = iadd v0, v0\n"
		"    jump block1\n"
		"block1:\n"
		"    trap unreachable\n"
		"}\n",
	};
	for (size_t k = 0; k < sizeof callees / sizeof callees[0]; k++) {
		kl_buf text = { 0 };
		kl_buf_puts(&text, callees[k]);
		kl_buf_puts(&text, "function %f(i32) -> i32 {\n"
				   "block0(v0: i32):\n"
				   "    v1 = call %g(v0)\n"
				   "    v2 = iadd v1, v0\n"
				   "    return v2\n"
				   "}\n");
		check_survives(text.data);
		kl_buf_free(&text);
	}
	/* and a call of too few arguments to a good callee */
	check_survives("function %g(i32, i32) -> i32 {\n"
		       "block0(v0: i32, v1: i32):\n"
		       "    return v1\n"
		       "}\n"
		       "function %f(i32) -> i32 {\n"
		       "block0(v0: i32):\n"
		       "    v1 = call %g(v0)\n"
		       "    return v1\n"
		       "}\n");
}

static void
test_empty_function(void)
{
	check_empty_function(kl_inline_func, "calls");
}

static void
test_registry_names_the_counters(void)
{
	check_registry("inline", kl_inline_func,
		       (const char *const[]){ "calls", "kept", "insts",
					      NULL });
}

/* %g, small, with a loop, two returns and an alloca, then %f0 .. %f(n-1),
 * %fk calling %g sizes[k] times down a chain of blocks. */
static void
calls_text(kl_buf *text, const int *sizes, int n)
{
	kl_buf_puts(text, "function %g(i64) -> i64 {\n"
			  "block0(v0: i64):\n"
			  "    v1 = alloca 8\n"
			  "    v2 = load.i64 v1\n"
			  "    store v0, v1\n"
			  "    brif v0, block1(v0, v2), block2\n"
			  "\n"
			  "block1(v3: i64, v4: i64):\n"
			  "    v5 = iadd_imm v3, -1\n"
			  "    v6 = iadd v4, v3\n"
			  "    brif v5, block1(v5, v6), block3\n"
			  "\n"
			  "block2:\n"
			  "    return v2\n"
			  "\n"
			  "block3:\n"
			  "    return v6\n"
			  "}\n\n");
	for (int k = 0; k < n; k++) {
		kl_buf_printf(text, "function %%f%d(i64) -> i64 {\n"
				    "block0(v0: i64):\n",
			      k);
		int v = 0;
		for (int j = 0; j < sizes[k]; j++, v++)
			kl_buf_printf(text,
				      "    v%d = call %%g(v%d)\n"
				      "    jump block%d\n\nblock%d:\n",
				      v + 1, v, j + 1, j + 1);
		kl_buf_printf(text, "    return v%d\n}\n\n", v);
	}
}

static void
test_scratch_reused_across_functions(void)
{
	kl_buf text = { 0 };
	const int sizes[] = { 3, 40, 1, 12, 60, 2 };
	calls_text(&text, sizes, 6);
	kl_pass_report rep = { 0 };
	check_scratch_reused(kl_inline_func, &text, 6, "alloca 8", &rep);
	uint64_t want = 0;
	for (int k = 0; k < 6; k++)
		want += (uint64_t)sizes[k];
	CHECK_EQ_INT(kl_pass_report_get(&rep, "calls"), want);
	CHECK_EQ_INT(kl_pass_report_get(&rep, "kept"), 0);
	kl_pass_report_free(&rep);
	kl_buf_free(&text);
}

/* Run %name(arg) in m: its one result. */
static uint64_t
run_one(kl_module *m, const char *name, uint64_t arg)
{
	kl_interp *it = kl_interp_new(m, NULL);
	kl_run_result res;
	uint64_t got = ~(uint64_t)0;
	if (kl_interp_call(it, sym(m, name), &arg, 1, &res) == KL_OK &&
	    res.status == KL_RUN_RETURNED && res.num_results == 1)
		got = res.results[0];
	kl_interp_free(it);
	return got;
}

/*
 * One block of N calls in a row, each result the next call's argument:
 * all inlined, giving what the calls gave. The last is inlined first,
 * so each instruction after a call moves to a continuation once; from
 * the first, the rest of the block would move N times over (2 * 10^8
 * moves: nothing here fails then, but the sanitizer builds would take
 * minutes, which shows).
 */
static void
test_many_calls_in_one_block(void)
{
	enum { N = 20000 };
	kl_buf text = { 0 };
	kl_buf_puts(&text, "function %g(i64) -> i64 {\n"
			   "block0(v0: i64):\n"
			   "    v1 = icmp_imm ult v0, 1000\n"
			   "    brif v1, block1, block2\n"
			   "block1:\n"
			   "    v2 = iadd_imm v0, 3\n"
			   "    return v2\n"
			   "block2:\n"
			   "    v3 = iadd_imm v0, -997\n"
			   "    return v3\n"
			   "}\n"
			   "function %f(i64) -> i64 {\n"
			   "block0(v0: i64):\n");
	for (int k = 0; k < N; k++)
		kl_buf_printf(&text, "    v%d = call %%g(v%d)\n", k + 1, k);
	kl_buf_printf(&text, "    return v%d\n}\n", N);
	kl_module *m = parse_text(text.data, text.len);
	kl_func *f = func_of(m, "f");
	uint64_t want = run_one(m, "f", 5);
	kl_pass_report rep = { 0 };
	CHECK_EQ_INT(kl_inline_func(f, &rep), KL_OK);
	CHECK_EQ_INT(kl_pass_report_get(&rep, "calls"), N);
	CHECK(verifies(f));
	CHECK_EQ_INT(run_one(m, "f", 5), want);
	kl_pass_report_free(&rep);
	kl_module_free(m);
	kl_buf_free(&text);
}

/* The notes of calls that stay for reasons a module that verifies
 * cannot show: a call passing fewer arguments than the callee takes, a
 * callee with no body (made through the API). */
static void
test_notes_of_broken_calls(void)
{
	const char *text = "function %g(i32, i32) -> i32 {\n"
			   "block0(v0: i32, v1: i32):\n"
			   "    return v1\n"
			   "}\n"
			   "function %f(i32) -> i32 {\n"
			   "block0(v0: i32):\n"
			   "    v1 = call %g(v0)\n"
			   "    return v1\n"
			   "}\n";
	kl_module *m = parse_text(text, strlen(text));
	kl_type one[] = { KL_TYPE_I32 };
	kl_signature sig = { one, one, 1, 1, false };
	kl_func *h = NULL, *f = func_of(m, "f");
	/* %h, a function with no block yet, called before %f returns */
	CHECK_EQ_INT(kl_module_add_func(m, "h", 1, &sig, &h), KL_OK);
	kl_builder b;
	kl_builder_init(&b, f);
	kl_inst ret = kl_block_last_inst(f, kl_func_first_block(f));
	kl_builder_before(&b, ret);
	kl_value arg = kl_inst_arg(f, ret, 0);
	kl_inst call = kl_build_call(&b, sym(m, "h"), &arg, 1);
	CHECK_EQ_INT(kl_builder_status(&b), KL_OK);
	kl_pass_report rep = { 0 };
	rep.verbose = true;
	CHECK_EQ_INT(kl_inline_func(f, &rep), KL_OK);
	kl_buf want = { 0 };
	kl_buf_printf(&want,
		      "%%f: kept the call to %%g (inst0, line 7): does not "
		      "verify\n%%f: kept the call to %%h (inst%u): no body\n",
		      call.id);
	CHECK_EQ_STR(rep.notes.data ? rep.notes.data : "", want.data);
	CHECK_EQ_INT(kl_pass_report_get(&rep, "kept"), 2);
	kl_buf_free(&want);
	kl_pass_report_free(&rep);
	kl_module_free(m);
}

/* Size counts lists: a callee of one block with a jump passing 100
 * arguments to a block of 100 parameters is too big, though it has but
 * four instructions; the same with 20 is inlined. */
static void
test_lists_count_toward_size(void)
{
	for (int n = 20; n <= 100; n += 80) {
		kl_buf text = { 0 };
		kl_buf_puts(&text, "function %g(i32) -> i32 {\n"
				   "block0(v0: i32):\n"
				   "    jump block1(v0");
		for (int k = 1; k < n; k++)
			kl_buf_puts(&text, ", v0");
		kl_buf_puts(&text, ")\nblock1(v1: i32");
		for (int k = 1; k < n; k++)
			kl_buf_printf(&text, ", v%d: i32", 1 + k);
		kl_buf_puts(&text, "):\n"
				   "    return v1\n"
				   "}\n"
				   "function %f(i32) -> i32 {\n"
				   "block0(v0: i32):\n"
				   "    v1 = call %g(v0)\n"
				   "    return v1\n"
				   "}\n");
		kl_module *m = parse_text(text.data, text.len);
		kl_pass_report rep = { 0 };
		rep.verbose = true;
		CHECK_EQ_INT(kl_inline_func(func_of(m, "f"), &rep), KL_OK);
		CHECK_EQ_INT(kl_pass_report_get(&rep, "calls"), n == 20);
		CHECK(n == 20 || (rep.notes.data &&
				  strstr(rep.notes.data, "too big")));
		kl_pass_report_free(&rep);
		kl_module_free(m);
		kl_buf_free(&text);
	}
}

/* Without a report, over many functions: each calls one leaf, and each
 * is inlined (the pass's table of callees is the function's size, not
 * the module's: a table of every symbol, cleared per function, once
 * made this quadratic; the sanitizer builds would show it in time). */
static void
test_many_functions_without_report(void)
{
	enum { N = 3000 };
	kl_buf text = { 0 };
	kl_buf_puts(&text, "function %leaf(i64) -> i64 {\n"
			   "block0(v0: i64):\n"
			   "    v1 = iadd_imm v0, 1\n"
			   "    return v1\n"
			   "}\n");
	for (int k = 0; k < N; k++)
		kl_buf_printf(&text, "function %%f%d(i64) -> i64 {\n"
				     "block0(v0: i64):\n"
				     "    v1 = call %%leaf(v0)\n"
				     "    return v1\n"
				     "}\n",
			      k);
	kl_module *m = parse_text(text.data, text.len);
	int inlined = 0;
	for (int k = 0; k < N; k++) {
		char name[16];
		snprintf(name, sizeof name, "f%d", k);
		kl_func *f = func_of(m, name);
		CHECK_EQ_INT(kl_inline_func(f, NULL), KL_OK);
		kl_inst first = kl_block_first_inst(f, kl_func_first_block(f));
		inlined += kl_inst_opcode(f, first) == KL_OP_IADD_IMM;
	}
	CHECK_EQ_INT(inlined, N);
	CHECK_EQ_INT(run_one(m, "f7", 41), 42);
	kl_module_free(m);
	kl_buf_free(&text);
}

int
main(void)
{
	UNIT_RUN(test_broken_callees_do_not_crash);
	UNIT_RUN(test_empty_function);
	UNIT_RUN(test_registry_names_the_counters);
	UNIT_RUN(test_scratch_reused_across_functions);
	UNIT_RUN(test_many_calls_in_one_block);
	UNIT_RUN(test_notes_of_broken_calls);
	UNIT_RUN(test_lists_count_toward_size);
	UNIT_RUN(test_many_functions_without_report);
	return unit_report("inline");
}
