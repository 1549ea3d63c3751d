/*
 * test_runs.c -- the calls and comparisons keel difftest and fuzz_promote
 * share (src/cli/runs.c), where a wrong answer would let a broken pass
 * through in silence.
 */
#include <stdlib.h>

#include "../../src/cli/runs.h"
#include "unit.h"

/* Two functions of 18 results that differ only in the last: a call of
 * one must not compare the same as a call of the other. The comparison
 * once kept 16 results and dropped the rest unseen. */
static const char program[] =
	"function %a() -> i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, "
	"i32, i32, i32, i32, i32, i32, i32, i32 {\n"
	"block0:\n"
	"    v1 = iconst.i32 1\n"
	"    v2 = iconst.i32 2\n"
	"    return v1, v1, v1, v1, v1, v1, v1, v1, v1, v1, v1, v1, v1, v1, "
	"v1, v1, v1, v1\n"
	"}\n"
	"function %b() -> i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, "
	"i32, i32, i32, i32, i32, i32, i32, i32 {\n"
	"block0:\n"
	"    v1 = iconst.i32 1\n"
	"    v2 = iconst.i32 2\n"
	"    return v1, v1, v1, v1, v1, v1, v1, v1, v1, v1, v1, v1, v1, v1, "
	"v1, v1, v1, v2\n"
	"}\n";

static void
test_every_result_compared(void)
{
	kl_module *m = NULL;
	CHECK(kl_parse_module(program, sizeof program - 1, NULL, &m, NULL) ==
	      KL_OK);
	if (!m)
		return;
	runner r;
	runner_init(&r, m, 1000, 0);
	run_outcome a = { 0 }, b = { 0 }, a2 = { 0 };
	run_call(&r, kl_module_lookup(m, "a", 1), 0, &a);
	run_call(&r, kl_module_lookup(m, "b", 1), 0, &b);
	run_call(&r, kl_module_lookup(m, "a", 1), 0, &a2);
	CHECK(a.status == KL_RUN_RETURNED && a.nres == 18);
	CHECK(!run_same(&a, &b));
	CHECK(run_same(&a, &a2));
	/* and a failure names the result that differs */
	kl_buf da = { 0 }, db = { 0 };
	kl_signature sig =
		kl_func_signature(kl_sym_func(m, kl_module_lookup(m, "a", 1)));
	run_describe(&da, m, sig, &a, 0);
	run_describe(&db, m, sig, &b, 0);
	CHECK(da.len > 3 && strcmp(da.data + da.len - 3, ", 1") == 0);
	CHECK(db.len > 3 && strcmp(db.data + db.len - 3, ", 2") == 0);
	kl_buf_free(&da);
	kl_buf_free(&db);
	run_outcome_free(&a);
	run_outcome_free(&b);
	run_outcome_free(&a2);
	runner_free(&r);
	kl_module_free(m);
}

/* Pairs of functions whose calls differ only in a trap, a trap's user
 * code, the program's output or the exit code: each pair must compare
 * different, and each function the same as itself. */
static const char outcomes[] =
	"declare %putchar(i32) -> i32\n"
	"declare %exit(i32)\n"
	"function %t_divz() {\n"
	"block0:\n"
	"    trap int_divz\n"
	"}\n"
	"function %t_ovf() {\n"
	"block0:\n"
	"    trap int_ovf\n"
	"}\n"
	"function %u7() {\n"
	"block0:\n"
	"    trap user 7\n"
	"}\n"
	"function %u8() {\n"
	"block0:\n"
	"    trap user 8\n"
	"}\n"
	"function %out_a() {\n"
	"block0:\n"
	"    v0 = iconst.i32 97\n"
	"    v1 = call %putchar(v0)\n"
	"    return\n"
	"}\n"
	"function %out_b() {\n"
	"block0:\n"
	"    v0 = iconst.i32 98\n"
	"    v1 = call %putchar(v0)\n"
	"    return\n"
	"}\n"
	"function %exit1() {\n"
	"block0:\n"
	"    v0 = iconst.i32 1\n"
	"    call %exit(v0)\n"
	"    return\n"
	"}\n"
	"function %exit2() {\n"
	"block0:\n"
	"    v0 = iconst.i32 2\n"
	"    call %exit(v0)\n"
	"    return\n"
	"}\n";

static void
differ(kl_module *m, runner *r, const char *x, const char *y)
{
	run_outcome a = { 0 }, b = { 0 }, a2 = { 0 };
	run_call(r, kl_module_lookup(m, x, strlen(x)), 0, &a);
	run_call(r, kl_module_lookup(m, y, strlen(y)), 0, &b);
	run_call(r, kl_module_lookup(m, x, strlen(x)), 0, &a2);
	CHECK(run_finished(&a) && run_finished(&b));
	CHECK(a.status == b.status);
	CHECK(!run_same(&a, &b));
	CHECK(!run_same(&b, &a));
	CHECK(run_same(&a, &a2));
	run_outcome_free(&a);
	run_outcome_free(&b);
	run_outcome_free(&a2);
}

static void
test_every_outcome_compared(void)
{
	kl_module *m = NULL;
	CHECK(kl_parse_module(outcomes, sizeof outcomes - 1, NULL, &m, NULL) ==
	      KL_OK);
	if (!m)
		return;
	runner r;
	runner_init(&r, m, 1000, 0);
	differ(m, &r, "t_divz", "t_ovf");
	differ(m, &r, "u7", "u8");
	differ(m, &r, "out_a", "out_b");
	differ(m, &r, "exit1", "exit2");
	runner_free(&r);
	kl_module_free(m);
}

/* The same functions before and after a pass, as a pass might leave
 * them: %rec calls itself for ever, %slow takes more instructions, %wrong
 * returns something else, %addr returns an address that an alloca the
 * pass added moved. */
static const char before_text[] =
	"function %rec(i32) -> i32 {\n"
	"block0(v0: i32):\n"
	"    return v0\n"
	"}\n"
	"function %slow(i32) -> i32 {\n"
	"block0(v0: i32):\n"
	"    return v0\n"
	"}\n"
	"function %wrong(i32) -> i32 {\n"
	"block0(v0: i32):\n"
	"    return v0\n"
	"}\n"
	"function %addr(i32) -> i64 {\n"
	"block0(v0: i32):\n"
	"    v1 = alloca 4\n"
	"    return v1\n"
	"}\n";

static const char after_text[] =
	"function %rec(i32) -> i32 {\n"
	"block0(v0: i32):\n"
	"    v1 = call %rec(v0)\n"
	"    return v0\n"
	"}\n"
	"function %slow(i32) -> i32 {\n"
	"block0(v0: i32):\n"
	"    v1 = iadd v0, v0\n"
	"    v2 = iadd v1, v1\n"
	"    v3 = iadd v2, v2\n"
	"    return v0\n"
	"}\n"
	"function %wrong(i32) -> i32 {\n"
	"block0(v0: i32):\n"
	"    v1 = iadd_imm v0, 1\n"
	"    return v1\n"
	"}\n"
	"function %addr(i32) -> i64 {\n"
	"block0(v0: i32):\n"
	"    v2 = alloca 4\n"
	"    v1 = alloca 4\n"
	"    return v1\n"
	"}\n";

static kl_module *
copy_before(void *ctx)
{
	(void)ctx;
	kl_module *m = NULL;
	kl_parse_module(before_text, sizeof before_text - 1, NULL, &m, NULL);
	return m;
}

static enum run_excuse
judge(const char *name, uint64_t fuel)
{
	kl_module *before = copy_before(NULL), *after = NULL;
	CHECK(kl_parse_module(after_text, sizeof after_text - 1, NULL, &after,
			      NULL) == KL_OK);
	if (!before || !after)
		return RUN_NOT_EXCUSED;
	kl_sym s = kl_module_lookup(before, name, strlen(name));
	runner rb, ra;
	runner_init(&rb, before, fuel, RUN_MEMORY);
	runner_init(&ra, after, fuel, RUN_MEMORY);
	run_outcome ob = { 0 }, oa = { 0 };
	run_call(&rb, s, 1, &ob);
	run_call(&ra, s, 1, &oa);
	CHECK(run_finished(&ob));
	CHECK(!run_same(&ob, &oa));
	run_judge j;
	run_judge_init(&j, after, fuel, copy_before, NULL);
	enum run_excuse why = run_judge_excuse(&j, s, s, 1, &ob, &oa);
	run_judge_free(&j);
	run_outcome_free(&ob);
	run_outcome_free(&oa);
	runner_free(&rb);
	runner_free(&ra);
	kl_module_free(before);
	kl_module_free(after);
	return why;
}

static void
test_what_is_excused(void)
{
	/* over the call depth after: the pass's fault, not a limit's */
	CHECK_EQ_INT(judge("rec", 1000000), RUN_NOT_EXCUSED);
	/* out of fuel only after, done with more */
	CHECK_EQ_INT(judge("slow", 2), RUN_EXCUSE_MORE);
	CHECK_EQ_INT(judge("wrong", 1000), RUN_NOT_EXCUSED);
	CHECK_EQ_INT(judge("addr", 1000), RUN_EXCUSE_OBJECT_IDS);
}

/* A difference is said in the values' own spelling: a call as
 * "%f(2, 0.25)", a float result as keel run prints it, and a long output
 * from just before its first difference, not whole. */
static void
test_describe_values(void)
{
	static const char src[] =
		"declare %putchar(i32) -> i32\n"
		"function %f(i32, f64) -> f64 {\n"
		"block0(v0: i32, v1: f64):\n"
		"    v2 = iconst.i32 65\n"
		"    v3 = iconst.i32 0\n"
		"    jump block1(v3)\n"
		"block1(v4: i32):\n"
		"    v5 = call %putchar(v2)\n"
		"    v6 = iadd_imm v4, 1\n"
		"    v7 = icmp_imm slt v6, 300\n"
		"    brif v7, block1(v6), block2\n"
		"block2:\n"
		"    return v1\n"
		"}\n";
	kl_module *m = NULL;
	CHECK_EQ_INT(kl_parse_module(src, sizeof src - 1, NULL, &m, NULL),
		     KL_OK);
	kl_sym f = kl_module_lookup(m, "f", 1);
	kl_buf call = { 0 };
	run_describe_call(&call, m, f, 3); /* the fourth vector: 2, 100 */
	CHECK_EQ_STR(call.data, "%f(2, 0x1.9p4)");
	runner r;
	runner_init(&r, m, 1000000, 0);
	run_outcome o = { 0 }, p = { 0 };
	run_call(&r, f, 3, &o);
	run_call(&r, f, 3, &p);
	p.output.kept.data[200] = 'B';
	size_t from = run_output_difference(&o, &p);
	CHECK_EQ_INT(from, 200);
	kl_buf d = { 0 };
	run_describe(&d, m, kl_func_signature(kl_sym_func(m, f)), &p, from);
	/* 80 bytes from 20 before the difference, and "..." for the rest */
	CHECK_EQ_STR(d.data, "returned 0x1.9p4, output of 300 bytes, from byte "
			     "180: \"AAAAAAAAAAAAAAAAAAAABAAAAAAAAAAAAAAAAAAAAAAAA"
			     "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\"...");
	kl_buf_free(&d);
	kl_buf_free(&call);
	run_outcome_free(&o);
	run_outcome_free(&p);
	runner_free(&r);
	kl_module_free(m);
}

/* An output keeps its first bytes only, but compares whole: by length,
 * and by a hash of what was not kept. */
static void
test_output_kept_and_compared(void)
{
	run_output a = { 0 }, b = { 0 };
	run_output_start(&a, 4);
	run_output_take(&a, "ab", 2);
	run_output_take(&a, "cdefgh", 6);
	CHECK_EQ_INT(a.len, 8);
	CHECK_EQ_INT(a.kept.len, 4);
	CHECK(memcmp(a.kept.data, "abcd", 4) == 0);
	/* the same bytes in other pieces */
	run_output_start(&b, 4);
	run_output_take(&b, "abcdefg", 7);
	run_output_take(&b, "h", 1);
	CHECK(run_output_same(&a, &b));
	/* a difference past what was kept, then a byte more */
	run_output_start(&b, 4);
	run_output_take(&b, "abcdefgX", 8);
	CHECK(!run_output_same(&a, &b));
	run_output_start(&b, 4);
	run_output_take(&b, "abcdefghi", 9);
	CHECK(!run_output_same(&a, &b));
	/* described by what was kept, and where they part past it */
	run_outcome oa = { 0 }, ob = { 0 };
	oa.status = ob.status = KL_RUN_RETURNED;
	oa.output = a;
	ob.output = b;
	size_t from = run_output_difference(&oa, &ob);
	CHECK_EQ_INT(from, 4);
	kl_buf d = { 0 };
	run_describe(&d, NULL, (kl_signature){ 0 }, &oa, from);
	CHECK_EQ_STR(d.data, "returned, output of 8 bytes, the same as the "
			     "other's in the first 4 kept, different after");
	kl_buf_free(&d);
	/* and a start forgets all of it */
	run_output_start(&a, 0);
	run_output_start(&b, 8);
	CHECK(run_output_same(&a, &b));
	run_output_take(&a, "x", 1);
	CHECK_EQ_INT(a.kept.len, 0);
	CHECK_EQ_INT(a.len, 1);
	kl_buf_free(&a.kept);
	kl_buf_free(&b.kept);
}

/* An output is quoted with its control bytes escaped, DEL among them,
 * and a quote of all that was kept ends with "..." when the output went
 * on past it. */
static void
test_output_quoted(void)
{
	run_outcome o = { 0 };
	o.status = KL_RUN_RETURNED;
	run_output_start(&o.output, 8);
	run_output_take(&o.output, "a\x7f\tb", 4);
	kl_buf d = { 0 };
	run_describe(&d, NULL, (kl_signature){ 0 }, &o, 0);
	CHECK_EQ_STR(d.data, "returned, output \"a\\x7f\\tb\"");
	run_output_start(&o.output, 8);
	run_output_take(&o.output, "abcdefghijkl", 12);
	kl_buf_reset(&d);
	run_describe(&d, NULL, (kl_signature){ 0 }, &o, 2);
	CHECK_EQ_STR(d.data, "returned, output of 12 bytes, from byte 0: "
			     "\"abcdefgh\"...");
	kl_buf_free(&d);
	run_outcome_free(&o);
}

/* Outputs longer than difftest keeps (1 MiB) that differ only past it:
 * not the same, and described by their whole length and where they
 * part. */
static void
test_long_outputs_differ_late(void)
{
	kl_buf t = { 0 };
	kl_buf_puts(&t, "declare %printf(i64, ...) -> i32\n");
	for (int k = 0; k < 2; k++) {
		kl_buf_printf(&t, "data %%f%c = const { i8 \"", "ab"[k]);
		for (int j = 0; j < 16; j++)
			kl_buf_puts(&t, "%65536d");
		kl_buf_printf(&t, "%c\", i8 0 }\n", "ab"[k]);
		kl_buf_printf(&t, "function %%big_%c() -> i32 {\nblock0:\n"
			      "    v0 = symbol_addr %%f%c\n"
			      "    v1 = iconst.i32 7\n"
			      "    v2 = call %%printf(v0", "ab"[k], "ab"[k]);
		for (int j = 0; j < 16; j++)
			kl_buf_puts(&t, ", v1");
		kl_buf_puts(&t, ")\n    return v2\n}\n");
	}
	kl_module *m = NULL;
	CHECK(kl_parse_module(t.data, t.len, NULL, &m, NULL) == KL_OK);
	kl_buf_free(&t);
	if (!m)
		return;
	runner r;
	runner_init(&r, m, 1000, 0);
	differ(m, &r, "big_a", "big_b");
	run_outcome a = { 0 }, b = { 0 };
	kl_sym sb = kl_module_lookup(m, "big_b", 5);
	run_call(&r, kl_module_lookup(m, "big_a", 5), 0, &a);
	run_call(&r, sb, 0, &b);
	size_t from = run_output_difference(&a, &b);
	CHECK_EQ_INT(from, 1u << 20);
	kl_buf d = { 0 };
	run_describe(&d, m, kl_func_signature(kl_sym_func(m, sb)), &b, from);
	CHECK_EQ_STR(d.data, "returned 1048577, output of 1048577 bytes, "
			     "the same as the other's in the first 1048576 "
			     "kept, different after");
	/* and from a little before a difference inside what was kept */
	kl_buf_reset(&d);
	run_describe(&d, m, kl_func_signature(kl_sym_func(m, sb)), &b,
		     1000000);
	kl_buf want = { 0 };
	kl_buf_puts(&want, "returned 1048577, output of 1048577 bytes, from "
			   "byte 999980: \"");
	for (int k = 0; k < 80; k++) /* (the 16th number's padding) */
		kl_buf_putc(&want, ' ');
	kl_buf_puts(&want, "\"...");
	CHECK_EQ_STR(d.data, want.data);
	kl_buf_free(&want);
	kl_buf_free(&d);
	run_outcome_free(&a);
	run_outcome_free(&b);
	runner_free(&r);
	kl_module_free(m);
}

/* difftest's argument vectors for the narrow and the f32 parameters: the
 * first parameter takes 0, 1, then the mixed values from -1 on, each
 * next parameter one step further; an i8 or i16 takes the value's low
 * bits, an f32 a quarter of it, rounded to f32 (0x7fffffff / 4 becomes
 * 2^29). Each vector is the arguments a call gets: %p returns them as
 * it got them, and a call is described with them (floats in the
 * printer's hex: -0x1.81c8p11 is -3086.25). */
static const char narrow[] =
	"function %p(f32, i8, i16, i64, f32) -> f32, i8, i16, i64, f32 {\n"
	"block0(v0: f32, v1: i8, v2: i16, v3: i64, v4: f32):\n"
	"    return v0, v1, v2, v3, v4\n"
	"}\n";

static void
test_narrow_and_f32_arguments(void)
{
	static const uint64_t want[RUN_NVEC][5] = {
		{ 0x00000000, 0x00, 0x0000, 0x0, 0x00000000 },
		{ 0x3e800000, 0x02, 0x0003, 0x4, 0x3fa00000 },
		{ 0xbe800000, 0x02, 0x0064, 0x7, 0xc540e400 },
		{ 0x3f000000, 0x64, 0x0007, 0xffffffffffffcfc7, 0x3f400000 },
		{ 0x41c80000, 0x07, 0xcfc7, 0x3, 0x4e000000 },
		{ 0x3fe00000, 0xc7, 0x0003, 0x7fffffff, 0xbf000000 },
		{ 0xc540e400, 0x03, 0xffff, 0xfffffffffffffffe, 0xbe800000 },
		{ 0x3f400000, 0xff, 0xfffe, 0xffffffffffffffff, 0x3f000000 },
	};
	kl_module *m = NULL;
	CHECK(kl_parse_module(narrow, sizeof narrow - 1, NULL, &m, NULL) ==
	      KL_OK);
	if (!m)
		return;
	kl_sym s = kl_module_lookup(m, "p", 1);
	const kl_func *f = kl_sym_func(m, s);
	CHECK(run_callable(m, f));
	CHECK_EQ_INT(run_nvectors(f), RUN_NVEC);
	runner r;
	runner_init(&r, m, 1000, 0);
	for (uint32_t v = 0; v < RUN_NVEC; v++) {
		uint64_t args[RUN_MAX_PARAMS];
		CHECK_EQ_INT(run_args(m, f, v, args), 5);
		run_outcome o = { 0 };
		run_call(&r, s, v, &o);
		CHECK(o.status == KL_RUN_RETURNED && o.nres == 5);
		uint64_t res[5] = { 0 };
		if (o.res.len == sizeof res)
			memcpy(res, o.res.data, sizeof res);
		for (uint32_t k = 0; k < 5; k++) {
			CHECK_EQ_INT(args[k], want[v][k]);
			CHECK_EQ_INT(res[k], want[v][k]);
		}
		run_outcome_free(&o);
	}
	runner_free(&r);
	static const char *const calls[RUN_NVEC] = {
		"%p(0.0, 0, 0, 0, 0.0)",
		"%p(0x1p-2, 2, 3, 4, 0x1.4p0)",
		"%p(-0x1p-2, 2, 100, 7, -0x1.81c8p11)",
		"%p(0x1p-1, 100, 7, -12345, 0x1.8p-1)",
		"%p(0x1.9p4, 7, -12345, 3, 0x1p29)",
		"%p(0x1.cp0, -57, 3, 2147483647, -0x1p-1)",
		"%p(-0x1.81c8p11, 3, -1, -2, -0x1p-2)",
		"%p(0x1.8p-1, -1, -2, -1, 0x1p-1)",
	};
	for (uint32_t v = 0; v < RUN_NVEC; v++) {
		kl_buf d = { 0 };
		run_describe_call(&d, m, s, v);
		CHECK_EQ_STR(d.data, calls[v]);
		kl_buf_free(&d);
	}
	kl_module_free(m);
}

int
main(void)
{
	UNIT_RUN(test_narrow_and_f32_arguments);
	UNIT_RUN(test_long_outputs_differ_late);
	UNIT_RUN(test_output_kept_and_compared);
	UNIT_RUN(test_output_quoted);
	UNIT_RUN(test_every_result_compared);
	UNIT_RUN(test_describe_values);
	UNIT_RUN(test_what_is_excused);
	UNIT_RUN(test_every_outcome_compared);
	return unit_report("runs");
}
