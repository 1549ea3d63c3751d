/*
 * test_interp.c -- unit tests of the interpreter's C API (keel.h,
 * "Interpreter") and of its parallel-copy sequentialiser.
 *
 * The API is meant for in-process use many times over (the mem2reg
 * differential test runs hundreds of programs before and after the
 * pass), so these tests make and free many interpreters, call functions
 * repeatedly, check every field of a trap result, the exactness of the
 * fuel budget, memory persisting between calls until a reset, and output
 * through the callback. Under `make SAN=1` they also check for leaks.
 */
#include <stdlib.h>
#include <string.h>

#include "keel.h"
#include "../../src/interp/interp.h"
#include "parsed.h"
#include "unit.h"

static const char program[] =
	"declare %putchar(i32) -> i32\n"
	"\n"
	"data %counter = { i64 0 }\n"
	"\n"
	"function %add(i32, i32) -> i32 {\n"
	"block0(v0: i32, v1: i32):\n"
	"    v2 = iadd v0, v1\n"
	"    return v2\n"
	"}\n"
	"\n"
	"function %div(i32, i32) -> i32 {\n"
	"block0(v0: i32, v1: i32):\n"
	"    v2 = sdiv v0, v1\n"
	"    return v2\n"
	"}\n"
	"\n"
	"function %outer(i32) -> i32 {\n"
	"block0(v0: i32):\n"
	"    v1 = iconst.i32 0\n"
	"    v2 = call %div(v0, v1)\n"
	"    return v2\n"
	"}\n"
	"\n"
	"function %bump() -> i64 {\n"
	"block0:\n"
	"    v0 = symbol_addr %counter\n"
	"    v1 = load.i64 v0\n"
	"    v2 = iadd_imm v1, 1\n"
	"    store v2, v0\n"
	"    return v2\n"
	"}\n"
	"\n"
	"function %shout(i32) -> i32 {\n"
	"block0(v0: i32):\n"
	"    v1 = call %putchar(v0)\n"
	"    return v1\n"
	"}\n"
	"\n"
	"function %loop(i64) -> i64 {\n"
	"block0(v0: i64):\n"
	"    v1 = iconst.i64 0\n"
	"    jump block1(v0, v1)\n"
	"\n"
	"block1(v2: i64, v3: i64):\n"
	"    brif v2, block2, block3\n"
	"\n"
	"block2:\n"
	"    v4 = alloca 8, align 8\n"
	"    store v2, v4\n"
	"    v5 = load.i64 v4\n"
	"    v6 = iadd v3, v5\n"
	"    v7 = iadd_imm v2, -1\n"
	"    jump block1(v7, v6)\n"
	"\n"
	"block3:\n"
	"    return v3\n"
	"}\n"
	"\n"
	"function %late_div(i32) -> i32 {\n"
	"block0(v0: i32):\n"
	"    v1 = iconst.i32 1\n"
	"    v2 = iadd v0, v1\n"
	"    v3 = iadd v2, v1\n"
	"    v4 = sdiv v3, v0\n"
	"    v5 = iadd v4, v1\n"
	"    v6 = iadd v5, v1\n"
	"    return v6\n"
	"}\n"
	"\n"
	"declare %malloc(i64) -> i64\n"
	"\n"
	"function %grab() -> i64 {\n"
	"block0:\n"
	"    v0 = iconst.i64 600000\n"
	"    v1 = call %malloc(v0)\n"
	"    return v1\n"
	"}\n"
	"\n"
	"function %pair(f64) -> f64, i8 {\n"
	"block0(v0: f64):\n"
	"    v1 = fadd v0, v0\n"
	"    v2 = fcmp uno v0, v0\n"
	"    return v1, v2\n"
	"}\n";

static kl_module *
parse(void)
{
	return parse_text(program, sizeof program - 1);
}

static void
test_many_calls(void)
{
	kl_module *m = parse();
	kl_interp *it = kl_interp_new(m, NULL);
	kl_sym add = sym(m, "add");
	for (uint32_t k = 0; k < 2000; k++) {
		uint64_t args[2] = { k, 0xffffffffu };
		kl_run_result r;
		CHECK(kl_interp_call(it, add, args, 2, &r) == KL_OK);
		CHECK(r.status == KL_RUN_RETURNED);
		CHECK_EQ_INT(r.num_results, 1);
		CHECK_EQ_INT(r.results[0], (k - 1) & 0xffffffffu);
		CHECK_EQ_INT(r.result_types[0], KL_TYPE_I32);
		CHECK_EQ_INT(r.executed, 2);
	}
	/* Arguments are masked to their width. */
	uint64_t wide[2] = { 0x100000001ull, 1 };
	kl_run_result r;
	kl_interp_call(it, add, wide, 2, &r);
	CHECK_EQ_INT(r.results[0], 2);
	kl_interp_free(it);
	kl_module_free(m);
}

static void
test_many_interpreters(void)
{
	kl_module *m = parse();
	for (int k = 0; k < 300; k++) {
		kl_interp *it = kl_interp_new(m, NULL);
		uint64_t n = (uint64_t)k;
		kl_run_result r;
		kl_interp_call(it, sym(m, "loop"), &n, 1, &r);
		CHECK(r.status == KL_RUN_RETURNED);
		CHECK_EQ_INT(r.results[0], n * (n + 1) / 2);
		kl_interp_free(it);
	}
	kl_module_free(m);
}

static void
test_trap_result(void)
{
	kl_module *m = parse();
	kl_interp *it = kl_interp_new(m, NULL);
	uint64_t arg = 7;
	kl_run_result r;
	CHECK(kl_interp_call(it, sym(m, "outer"), &arg, 1, &r) == KL_OK);
	CHECK(r.status == KL_RUN_TRAPPED);
	CHECK_EQ_INT(r.trap, KL_TRAP_INT_DIVZ);
	CHECK_EQ_INT(r.num_results, 0);
	CHECK_EQ_INT(r.stack_depth, 2);
	CHECK_EQ_INT(r.stack[0].func.id, sym(m, "div").id);
	CHECK_EQ_INT(r.stack[1].func.id, sym(m, "outer").id);
	kl_func *div = kl_sym_func(m, sym(m, "div"));
	CHECK(kl_inst_opcode(div, r.stack[0].inst) == KL_OP_SDIV);
	kl_func *outer = kl_sym_func(m, sym(m, "outer"));
	CHECK(kl_inst_opcode(outer, r.stack[1].inst) == KL_OP_CALL);
	/* iconst, call, sdiv: the trapping instruction counts */
	CHECK_EQ_INT(r.executed, 3);
	CHECK_EQ_STR(kl_run_trap_name(r.trap), "int_divz");
	kl_buf b = { 0 };
	kl_run_describe(it, &r, &b);
	CHECK_EQ_STR(b.data,
		     "trap int_divz: integer division by zero\n"
		     "  in %div at inst0 (line 13): v2 = sdiv v0, v1\n"
		     "  called from %outer at inst1 (line 20): "
		     "v2 = call %div(v0, v1)\n");
	kl_buf_free(&b);
	/* The interpreter is usable after a trap. */
	uint64_t args[2] = { 40, 2 };
	kl_interp_call(it, sym(m, "div"), args, 2, &r);
	CHECK(r.status == KL_RUN_RETURNED);
	CHECK_EQ_INT(r.results[0], 20);
	kl_interp_free(it);
	kl_module_free(m);
}

/* Unverified IR the interpreter cannot run is refused with a message
 * whose counts read right in the singular. */
static void
test_malformed_counts(void)
{
	static const char text[] = "function %f() -> i32 {\n"
				   "block0:\n"
				   "    jump block1\n"
				   "\n"
				   "block1(v0: i32):\n"
				   "    return v0\n"
				   "}\n";
	kl_module *m = parse_text(text, sizeof text - 1);
	kl_interp *it = kl_interp_new(m, NULL);
	kl_run_result r;
	CHECK(kl_interp_call(it, sym(m, "f"), NULL, 0, &r) == KL_OK);
	CHECK(r.status == KL_RUN_FAILED);
	CHECK(strstr(r.message, "passes 0 arguments to block1, which has 1 "
				"parameter") != NULL);
	CHECK(strstr(r.message, "parameters") == NULL);
	kl_interp_free(it);
	kl_module_free(m);
}

/* A use the value table has no definition for (a hole: the decoder
 * checks only what it needs to run safely) fails the run, naming it. */
static void
test_use_of_hole(void)
{
	static const char text[] = "function %f(i32) -> i32 {\n"
				   "block0(v0: i32):\n"
				   "    v1 = iadd_imm v0, 1\n"
				   "    v2 = iadd_imm v1, 1\n"
				   "    return v2\n"
				   "}\n";
	kl_module *m = parse_text(text, sizeof text - 1);
	kl_func *f = kl_sym_func(m, sym(m, "f"));
	f->values[1].kind = VK_UNUSED;
	kl_interp *it = kl_interp_new(m, NULL);
	kl_run_result r;
	uint64_t arg = 5;
	CHECK(kl_interp_call(it, sym(m, "f"), &arg, 1, &r) == KL_OK);
	CHECK(r.status == KL_RUN_FAILED);
	CHECK(strstr(r.message, "uses v1, which is not defined") != NULL);
	kl_interp_free(it);
	kl_module_free(m);
}

/* More unverified IR the decoder refuses (docs/interpreter.md: wrong
 * argument counts, a block without a terminator or with code after it),
 * each run failing with its own message, and immediate divisors of 0,
 * which only the verifier refuses, trapping as the two-operand forms
 * do on 0 (the text parses; none of it verifies). */
static void
test_malformed_refused(void)
{
	static const char text[] =
		"function %g(i32, i32) -> i32 {\n"
		"block0(v0: i32, v1: i32):\n"
		"    return v0\n"
		"}\n"
		"\n"
		"function %few_args(i32) -> i32 {\n"
		"block0(v0: i32):\n"
		"    v1 = call %g(v0)\n"
		"    return v1\n"
		"}\n"
		"\n"
		"function %many_args(i32) -> i32 {\n"
		"block0(v0: i32):\n"
		"    v1 = call %g(v0, v0, v0)\n"
		"    return v1\n"
		"}\n"
		"\n"
		"function %bare_return() -> i32 {\n"
		"block0:\n"
		"    return\n"
		"}\n"
		"\n"
		"function %no_terminator() -> i32 {\n"
		"block0:\n"
		"    v0 = iconst.i32 1\n"
		"}\n"
		"\n"
		"function %after_terminator() -> i32 {\n"
		"block0:\n"
		"    v0 = iconst.i32 1\n"
		"    return v0\n"
		"    v1 = iconst.i32 2\n"
		"}\n"
		"\n"
		"function %entry_params(i32) -> i32 {\n"
		"block0:\n"
		"    v0 = iconst.i32 1\n"
		"    return v0\n"
		"}\n"
		"\n"
		"function %udiv0(i32) -> i32 {\n"
		"block0(v0: i32):\n"
		"    v1 = udiv_imm v0, 0\n"
		"    return v1\n"
		"}\n"
		"\n"
		"function %urem0(i32) -> i32 {\n"
		"block0(v0: i32):\n"
		"    v1 = urem_imm v0, 0\n"
		"    return v1\n"
		"}\n"
		"\n"
		"function %srem0(i32) -> i32 {\n"
		"block0(v0: i32):\n"
		"    v1 = srem_imm v0, 0\n"
		"    return v1\n"
		"}\n";
	static const struct {
		const char *func, *message; /* NULL: traps int_divz */
	} cases[] = {
		{ "few_args", "passes 1 argument for 2 parameters" },
		{ "many_args", "passes 3 arguments for 2 parameters" },
		{ "bare_return", "returns 0 values, the signature has 1" },
		{ "no_terminator", "block0 does not end with a terminator" },
		{ "after_terminator", "follows the terminator of block0" },
		{ "entry_params",
		  "entry block has 0 parameters, the signature 1" },
		{ "udiv0", NULL },
		{ "urem0", NULL },
		{ "srem0", NULL },
	};
	kl_module *m = parse_text(text, sizeof text - 1);
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		kl_interp *it = kl_interp_new(m, NULL);
		kl_run_result r;
		uint64_t arg = 7;
		kl_sym s = sym(m, cases[k].func);
		kl_signature sig = kl_sym_signature(m, s);
		CHECK(kl_interp_call(it, s, &arg, sig.num_params, &r) ==
		      KL_OK);
		if (cases[k].message) {
			CHECK(r.status == KL_RUN_FAILED);
			if (r.status == KL_RUN_FAILED &&
			    !strstr(r.message, cases[k].message))
				CHECK_EQ_STR(r.message, cases[k].message);
		} else {
			CHECK(r.status == KL_RUN_TRAPPED);
			CHECK_EQ_INT(r.trap, KL_TRAP_INT_DIVZ);
		}
		kl_interp_free(it);
	}
	kl_module_free(m);
}

static void
test_invalid_calls(void)
{
	kl_module *m = parse();
	kl_interp *it = kl_interp_new(m, NULL);
	kl_run_result r;
	uint64_t args[3] = { 1, 2, 3 };
	CHECK(kl_interp_call(it, sym(m, "add"), args, 3, &r) ==
	      KL_ERR_INVALID);
	CHECK(r.status == KL_RUN_FAILED);
	CHECK(strstr(r.message, "3 arguments given") != NULL);
	CHECK(kl_interp_call(it, sym(m, "add"), args, 1, &r) ==
	      KL_ERR_INVALID);
	CHECK(strstr(r.message, "1 argument given, the function takes 2") !=
	      NULL);
	/* The message names the symbol and says what it is, so that a
	 * front end that called a declaration by mistake learns why. */
	CHECK(kl_interp_call(it, sym(m, "putchar"), args, 1, &r) ==
	      KL_ERR_INVALID);
	CHECK(r.status == KL_RUN_FAILED);
	CHECK_EQ_STR(r.message, "%putchar is only declared: it has no body "
				"to run");
	CHECK(kl_interp_call(it, sym(m, "counter"), args, 0, &r) ==
	      KL_ERR_INVALID);
	CHECK_EQ_STR(r.message, "%counter is a data object, not a function");
	CHECK(kl_interp_call(it, (kl_sym){ 999 }, args, 0, &r) ==
	      KL_ERR_INVALID);
	CHECK(strstr(r.message, "symbol 999 does not exist") != NULL);
	/* a function added after the interpreter's memory was made (at
	 * its first call to run) is not one of its symbols until a reset,
	 * and the message says so */
	uint64_t two[2] = { 1, 2 };
	CHECK(kl_interp_call(it, sym(m, "add"), two, 2, &r) == KL_OK);
	CHECK(r.status == KL_RUN_RETURNED);
	kl_func *late;
	CHECK(kl_module_add_func(m, "late", 4, NULL, &late) == KL_OK);
	CHECK(kl_interp_call(it, kl_func_sym(late), args, 0, &r) ==
	      KL_ERR_INVALID);
	CHECK_EQ_STR(r.message, "%late was added to the module after this "
				"interpreter's memory was made: "
				"kl_interp_reset makes it again, with it");
	kl_interp_free(it);
	kl_module_free(m);
}

/* A variadic function is called with its fixed parameters only, as
 * keel.h says (extra bit patterns were accepted and dropped). This is
 * the one check no file test can reach: `keel run` and the test command
 * already refuse extra arguments. */
static void
test_variadic_arg_count(void)
{
	static const char text[] = "function %v(i32, ...) -> i32 {\n"
				   "block0(v0: i32):\n"
				   "    return v0\n"
				   "}\n";
	kl_module *m = parse_text(text, sizeof text - 1);
	kl_interp *it = kl_interp_new(m, NULL);
	kl_run_result r;
	uint64_t args[2] = { 5, 6 };
	CHECK(kl_interp_call(it, sym(m, "v"), args, 2, &r) == KL_ERR_INVALID);
	CHECK(r.status == KL_RUN_FAILED);
	CHECK(strstr(r.message, "2 arguments given, the function takes 1") !=
	      NULL);
	CHECK(kl_interp_call(it, sym(m, "v"), args, 1, &r) == KL_OK);
	CHECK(r.status == KL_RUN_RETURNED);
	CHECK_EQ_INT(r.results[0], 5);
	kl_interp_free(it);
	kl_module_free(m);
}

/* Data the API accepts must not make the interpreter write outside an
 * object: items whose sizes sum past 2^64 once wrapped to a small size,
 * and a string was copied to the offset before the buffer. */
static void
test_data_bounds(void)
{
	kl_module *m = parse();
	kl_sym d;
	CHECK(kl_module_add_data(m, "big", 3, false, 1, &d) == KL_OK);
	kl_data_item zero = { KL_DATA_ZERO, 0, (uint64_t)1 << 40, KL_NO_SYM,
			      NULL, 0 };
	kl_data_item str = { KL_DATA_STRING, KL_TYPE_I8, 0, KL_NO_SYM,
			     "ABCDEFGHIJKLMNOP", 16 };
	/* 2^24 such items were 2^64 bytes, wrapped to 0; now one object
	 * holds at most 2^40 bytes, so its size never wraps */
	int added = 0;
	for (int k = 0; k < (1 << 24); k++) {
		if (kl_data_append(m, d, &zero) != KL_OK)
			break;
		added++;
	}
	CHECK_EQ_INT(added, 1);
	CHECK(kl_data_append(m, d, &str) == KL_ERR_RANGE);
	CHECK(kl_data_size(m, d) == ((uint64_t)1 << 40));
	kl_interp *it = kl_interp_new(m, NULL);
	kl_run_result r;
	uint64_t args[2] = { 1, 2 };
	kl_status st = kl_interp_call(it, sym(m, "add"), args, 2, &r);
	CHECK(st != KL_OK || r.status != KL_RUN_RETURNED ||
	      r.results[0] == 3);
	kl_interp_free(it);
	kl_module_free(m);
}

/* Items out of what the text format can hold are refused, so that what
 * the printer writes parses again. */
static void
test_data_items_checked(void)
{
	kl_module *m = kl_module_new();
	kl_sym d;
	CHECK(kl_module_add_data(m, "d", 1, false, 1, &d) == KL_OK);
	kl_data_item i8 = { KL_DATA_VALUE, KL_TYPE_I8, 4660, KL_NO_SYM, NULL,
			    0 };
	CHECK(kl_data_append(m, d, &i8) == KL_ERR_RANGE);
	/* an integer's bits may come sign-extended, as iconst's do; they
	 * are kept at the type's width */
	kl_sym e;
	CHECK(kl_module_add_data(m, "e", 1, false, 1, &e) == KL_OK);
	i8.value = (uint64_t)-128;
	CHECK(kl_data_append(m, e, &i8) == KL_OK);
	CHECK(kl_data_item_at(m, e, 0).value == 0x80);
	i8.value = (uint64_t)-129;
	CHECK(kl_data_append(m, e, &i8) == KL_ERR_RANGE);
	i8.value = 255;
	CHECK(kl_data_append(m, d, &i8) == KL_OK);
	kl_data_item f32 = { KL_DATA_VALUE, KL_TYPE_F32, (uint64_t)1 << 32,
			     KL_NO_SYM, NULL, 0 };
	CHECK(kl_data_append(m, d, &f32) == KL_ERR_RANGE);
	f32.value = UINT64_MAX; /* a float's bits are not sign-extended */
	CHECK(kl_data_append(m, e, &f32) == KL_ERR_RANGE);
	kl_data_item zero = { KL_DATA_ZERO, 0, UINT64_MAX, KL_NO_SYM, NULL, 0 };
	CHECK(kl_data_append(m, d, &zero) == KL_ERR_RANGE);
	zero.value = ((uint64_t)1 << 40) - 1; /* with the i8: 2^40 bytes */
	CHECK(kl_data_append(m, d, &zero) == KL_OK);
	CHECK(kl_data_append(m, d, &i8) == KL_ERR_RANGE); /* one more */
	CHECK_EQ_INT(kl_data_num_items(m, d), 2);
	CHECK(kl_data_size(m, d) == (uint64_t)1 << 40);
	kl_module_free(m);
}

/* NULL arguments with a count are refused, as the builder refuses a
 * missing operand array. */
static void
test_format_bad_type(void)
{
	kl_module *m = kl_module_new();
	kl_buf out = { 0 };
	kl_interp_format_value(m, (kl_type)99, 5, &out);
	CHECK(out.data && strcmp(out.data, "?") == 0);
	kl_buf_free(&out);
	CHECK(kl_op_info(KL_OP_COUNT) == NULL);
	CHECK(kl_op_info((kl_opcode)0) != NULL);
	kl_module_free(m);
}

static void
test_null_args(void)
{
	kl_module *m = parse();
	kl_interp *it = kl_interp_new(m, NULL);
	kl_run_result r;
	CHECK(kl_interp_call(it, sym(m, "add"), NULL, 2, &r) == KL_ERR_INVALID);
	CHECK(r.status == KL_RUN_FAILED);
	kl_interp_free(it);
	kl_module_free(m);
}

static void
test_memory_persists(void)
{
	kl_module *m = parse();
	kl_interp *it = kl_interp_new(m, NULL);
	kl_sym bump = sym(m, "bump");
	kl_run_result r;
	for (uint64_t k = 1; k <= 5; k++) {
		kl_interp_call(it, bump, NULL, 0, &r);
		CHECK_EQ_INT(r.results[0], k);
	}
	kl_interp_reset(it);
	kl_interp_call(it, bump, NULL, 0, &r);
	CHECK_EQ_INT(r.results[0], 1);
	kl_interp_free(it);
	kl_module_free(m);
}

/*
 * After a reset, memory is as a new interpreter's: data as the module
 * gives it, the heap released (two 600 kB objects do not fit under a
 * 1 MB limit), and the next objects get the ids a fresh interpreter
 * would give them (the same pointer values), whatever ran before.
 */
static void
test_reset_is_a_fresh_start(void)
{
	kl_module *m = parse();
	kl_interp_options o = { 0 };
	o.max_memory = 1000000;
	kl_interp *fresh = kl_interp_new(m, &o);
	kl_run_result r;
	kl_interp_call(fresh, sym(m, "grab"), NULL, 0, &r);
	CHECK(r.status == KL_RUN_RETURNED);
	uint64_t want = r.results[0];
	CHECK(want != 0);
	kl_interp_free(fresh);
	kl_interp *it = kl_interp_new(m, &o);
	for (uint64_t k = 0; k < 6; k++) {
		uint64_t n = k;
		kl_interp_call(it, sym(m, "loop"), &n, 1, &r); /* allocas */
		CHECK(r.status == KL_RUN_RETURNED);
		kl_interp_call(it, sym(m, "bump"), NULL, 0, &r);
		CHECK_EQ_INT(r.results[0], 1);
		kl_interp_reset(it);
		kl_interp_call(it, sym(m, "grab"), NULL, 0, &r);
		CHECK(r.status == KL_RUN_RETURNED);
		CHECK_EQ_INT(r.results[0], want);
		kl_interp_reset(it);
	}
	kl_interp_free(it);
	kl_module_free(m);
}

static void
collect(void *ctx, const char *data, size_t len)
{
	kl_buf_append(ctx, data, len);
}

static void
test_output(void)
{
	kl_module *m = parse();
	kl_buf out = { 0 };
	kl_interp_options o = { 0 };
	o.output = collect;
	o.output_ctx = &out;
	kl_interp *it = kl_interp_new(m, &o);
	for (uint64_t c = 'a'; c <= 'e'; c++) {
		kl_run_result r;
		kl_interp_call(it, sym(m, "shout"), &c, 1, &r);
		CHECK_EQ_INT(r.results[0], c);
	}
	CHECK_EQ_STR(out.data, "abcde");
	kl_interp_free(it);
	/* Without a callback the output is dropped. */
	it = kl_interp_new(m, NULL);
	uint64_t c = 'x';
	kl_run_result r;
	kl_interp_call(it, sym(m, "shout"), &c, 1, &r);
	CHECK(r.status == KL_RUN_RETURNED);
	kl_interp_free(it);
	kl_buf_free(&out);
	kl_module_free(m);
}

/* The output callback calling back into its own interpreter: a call
 * there would run on the registers, frames and allocas of the call in
 * progress (growing them freed what the outer run was using) and a reset
 * would free its memory. The nested call is refused, the reset stops the
 * outer run; neither touches what the outer run uses. */
static const char reenter_program[] =
	"declare %putchar(i32) -> i32\n"
	"\n"
	"function %deep(i32) -> i32 {\n"
	"block0(v0: i32):\n"
	"    brif v0, block1, block2\n"
	"\n"
	"block1:\n"
	"    v1 = iadd_imm v0, -1\n"
	"    v2 = call %deep(v1)\n"
	"    return v2\n"
	"\n"
	"block2:\n"
	"    return v0\n"
	"}\n"
	"\n"
	"function %talk(i32) -> i32 {\n"
	"block0(v0: i32):\n"
	"    v1 = alloca 4\n"
	"    store v0, v1\n"
	"    v2 = call %putchar(v0)\n"
	"    v3 = load.i32 v1\n"
	"    v4 = iadd v3, v2\n"
	"    return v4\n"
	"}\n";

typedef struct reenter {
	kl_interp *it;
	kl_sym deep;
	bool reset;        /* reset instead of calling */
	kl_status status;  /* the nested call's */
	kl_run_status run; /* its result's status */
	bool said_why;     /* its message names the mistake */
} reenter;

static void
reenter_output(void *ctx, const char *data, size_t len)
{
	(void)data;
	(void)len;
	reenter *re = ctx;
	if (re->reset) {
		kl_interp_reset(re->it);
		return;
	}
	uint64_t n = 3000;
	kl_run_result r;
	re->status = kl_interp_call(re->it, re->deep, &n, 1, &r);
	re->run = r.status;
	re->said_why =
		r.message && strstr(r.message, "output or poll callback");
}

static void
test_output_reenters(void)
{
	kl_module *m = parse_text(reenter_program, sizeof reenter_program - 1);
	reenter re = { 0 };
	re.deep = sym(m, "deep");
	kl_interp_options o = { 0 };
	o.output = reenter_output;
	o.output_ctx = &re;
	re.it = kl_interp_new(m, &o);
	uint64_t c = 'a';
	kl_run_result r;
	CHECK(kl_interp_call(re.it, sym(m, "talk"), &c, 1, &r) == KL_OK);
	CHECK(re.status == KL_ERR_INVALID);
	CHECK(re.run == KL_RUN_FAILED);
	CHECK(re.said_why);
	/* the outer run went on as if nothing had been asked */
	CHECK(r.status == KL_RUN_RETURNED);
	CHECK_EQ_INT(r.results[0], 2 * 'a');
	/* and the interpreter works as before afterwards */
	re.reset = true;
	CHECK(kl_interp_call(re.it, sym(m, "talk"), &c, 1, &r) == KL_OK);
	CHECK(r.status == KL_RUN_FAILED);
	CHECK(strstr(r.message, "kl_interp_reset") != NULL);
	uint64_t n = 10;
	CHECK(kl_interp_call(re.it, re.deep, &n, 1, &r) == KL_OK);
	CHECK(r.status == KL_RUN_RETURNED);
	kl_interp_free(re.it);
	kl_module_free(m);
}

/* kl_interp_stop from the output callback ends the run there (the
 * second putchar never runs), as FAILED with its message; called
 * outside a call it does nothing (the next call runs in full), and a
 * stop ends only the call it was made in (the interpreter's next call
 * on the same interpreter runs in full too). */
typedef struct stopper {
	kl_interp *it;
	bool stop;   /* stop at the next output */
	int outputs; /* outputs seen */
} stopper;

static void
stop_output(void *ctx, const char *data, size_t len)
{
	(void)data;
	(void)len;
	stopper *st = ctx;
	st->outputs++;
	if (st->stop)
		kl_interp_stop(st->it);
}

static void
test_output_stops(void)
{
	static const char text[] = "declare %putchar(i32) -> i32\n"
				   "\n"
				   "function %twice(i32) -> i32 {\n"
				   "block0(v0: i32):\n"
				   "    v1 = call %putchar(v0)\n"
				   "    v2 = call %putchar(v0)\n"
				   "    return v2\n"
				   "}\n";
	kl_module *m = parse_text(text, sizeof text - 1);
	stopper st = { 0 };
	kl_interp_options o = { 0 };
	o.output = stop_output;
	o.output_ctx = &st;
	st.it = kl_interp_new(m, &o);
	uint64_t c = 'a';
	kl_run_result r;
	/* before any call: the next call stops as it starts (a stop that
	 * came early is not lost), and only that one */
	kl_interp_stop(st.it);
	CHECK(kl_interp_call(st.it, sym(m, "twice"), &c, 1, &r) == KL_OK);
	CHECK(r.status == KL_RUN_FAILED);
	CHECK_EQ_STR(r.message, "kl_interp_stop stopped the run");
	CHECK_EQ_INT(r.executed, 0);
	CHECK_EQ_INT(r.stack_depth, 1);
	CHECK_EQ_INT(r.stack[0].inst.id, 0);
	CHECK_EQ_INT(st.outputs, 0);
	CHECK(kl_interp_call(st.it, sym(m, "twice"), &c, 1, &r) == KL_OK);
	CHECK(r.status == KL_RUN_RETURNED);
	CHECK_EQ_INT(st.outputs, 2);
	/* during a call: the run ends when the callback returns */
	st.stop = true;
	st.outputs = 0;
	CHECK(kl_interp_call(st.it, sym(m, "twice"), &c, 1, &r) == KL_OK);
	CHECK(r.status == KL_RUN_FAILED);
	CHECK_EQ_STR(r.message, "kl_interp_stop stopped the run");
	CHECK_EQ_INT(st.outputs, 1);
	/* the stop was that call's: the next one runs in full */
	st.stop = false;
	st.outputs = 0;
	CHECK(kl_interp_call(st.it, sym(m, "twice"), &c, 1, &r) == KL_OK);
	CHECK(r.status == KL_RUN_RETURNED);
	CHECK_EQ_INT(st.outputs, 2);
	kl_interp_free(st.it);
	kl_module_free(m);
}

/* Object ids are never reused, so a long run could use all 2^32 - 2 of
 * them: the last id is given (UINT32_MAX - 1), and then malloc returns
 * null, as C's does when memory runs out. (Reached by setting the next
 * id: four billion allocations would take an hour.) */
static void
test_object_ids_run_out(void)
{
	static const char text[] = "declare %malloc(i64) -> i64\n"
				   "\n"
				   "function %two() -> i32 {\n"
				   "block0:\n"
				   "    v0 = iconst.i64 1\n"
				   "    v1 = call %malloc(v0)\n"
				   "    v2 = call %malloc(v0)\n"
				   "    v3 = icmp_imm ne v1, 0\n"
				   "    v4 = icmp_imm ne v2, 0\n"
				   "    v5 = uextend.i32 v3\n"
				   "    v6 = uextend.i32 v4\n"
				   "    v7 = imul_imm v6, 2\n"
				   "    v8 = iadd v5, v7\n"
				   "    return v8\n"
				   "}\n";
	kl_module *m = parse_text(text, sizeof text - 1);
	kl_interp *it = kl_interp_new(m, NULL);
	kl_run_result r;
	CHECK(kl_interp_call(it, sym(m, "two"), NULL, 0, &r) == KL_OK);
	CHECK(r.status == KL_RUN_RETURNED);
	CHECK_EQ_INT(r.results[0], 3); /* both made */
	it->next_id = UINT32_MAX - 1;
	CHECK(kl_interp_call(it, sym(m, "two"), NULL, 0, &r) == KL_OK);
	CHECK(r.status == KL_RUN_RETURNED);
	CHECK_EQ_INT(r.results[0], 1); /* the last id, then none */
	kl_interp_free(it);
	kl_module_free(m);
}

static void
test_fuel_exact(void)
{
	kl_module *m = parse();
	uint64_t n = 20;
	kl_run_result r;
	kl_interp *it = kl_interp_new(m, NULL);
	kl_interp_call(it, sym(m, "loop"), &n, 1, &r);
	uint64_t total = r.executed;
	CHECK_EQ_INT(total, 2 + 21 + 20 * 6 + 1);
	kl_interp_free(it);
	for (uint64_t fuel = 1; fuel <= total + 1; fuel++) {
		kl_interp_options o = { 0 };
		o.fuel = fuel;
		it = kl_interp_new(m, &o);
		kl_interp_call(it, sym(m, "loop"), &n, 1, &r);
		if (fuel < total) {
			CHECK(r.status == KL_RUN_TRAPPED);
			CHECK_EQ_INT(r.trap, KL_TRAP_OUT_OF_FUEL);
			CHECK_EQ_INT(r.executed, fuel);
		} else {
			CHECK(r.status == KL_RUN_RETURNED);
			CHECK_EQ_INT(r.executed, total);
		}
		/* A second call on the same interpreter behaves the same. */
		kl_interp_call(it, sym(m, "loop"), &n, 1, &r);
		CHECK(r.status == (fuel < total ? KL_RUN_TRAPPED
						: KL_RUN_RETURNED));
		kl_interp_free(it);
	}
	kl_module_free(m);
}

/* A trap before the point where the fuel would run out counts the
 * instructions run up to the trapping one, whatever the budget. */
static void
test_fuel_short_then_trap(void)
{
	kl_module *m = parse();
	for (uint64_t fuel = 1; fuel <= 12; fuel++) {
		kl_interp_options o = { 0 };
		o.fuel = fuel;
		kl_interp *it = kl_interp_new(m, &o);
		uint64_t zero = 0;
		kl_run_result r;
		kl_interp_call(it, sym(m, "late_div"), &zero, 1, &r);
		CHECK(r.status == KL_RUN_TRAPPED);
		CHECK_EQ_INT(r.trap, fuel < 4 ? KL_TRAP_OUT_OF_FUEL
					      : KL_TRAP_INT_DIVZ);
		CHECK_EQ_INT(r.executed, fuel < 4 ? fuel : 4);
		uint64_t args[2] = { 1, 0 };
		kl_interp_call(it, sym(m, "div"), args, 2, &r);
		CHECK_EQ_INT(r.trap, KL_TRAP_INT_DIVZ);
		CHECK_EQ_INT(r.executed, 1);
		kl_interp_free(it);
	}
	kl_module_free(m);
}

static void
test_many_allocas(void)
{
	/* A million allocas die as their frames... here one frame, but the
	 * objects stay addressable; the run must not fail. */
	kl_module *m = parse();
	kl_interp *it = kl_interp_new(m, NULL);
	uint64_t n = 100000;
	kl_run_result r;
	kl_interp_call(it, sym(m, "loop"), &n, 1, &r);
	CHECK(r.status == KL_RUN_RETURNED);
	CHECK_EQ_INT(r.results[0], n * (n + 1) / 2);
	kl_interp_free(it);
	kl_module_free(m);
}

static void
test_values_text(void)
{
	kl_module *m = parse();
	uint64_t b;
	CHECK_EQ_INT(kl_interp_scan_value(m, KL_TYPE_I8, "-1", 2, &b), 2);
	CHECK_EQ_INT(b, 0xff);
	CHECK_EQ_INT(kl_interp_scan_value(m, KL_TYPE_I8, " 255,", 5, &b), 4);
	CHECK_EQ_INT(b, 0xff);
	CHECK_EQ_INT(kl_interp_scan_value(m, KL_TYPE_I8, "256", 3, &b), 0);
	/* a failed scan leaves *bits alone */
	b = 42;
	CHECK_EQ_INT(kl_interp_scan_value(m, KL_TYPE_I8, "-129", 4, &b), 0);
	CHECK_EQ_INT(kl_interp_scan_value(m, KL_TYPE_F32, "0x1.000001p0", 12,
					  &b), 0);
	CHECK_EQ_INT(kl_interp_scan_value(m, KL_TYPE_F64, "1.5x", 4, &b), 0);
	/* a decimal out of the type's range, as in the text format */
	CHECK_EQ_INT(kl_interp_scan_value(m, KL_TYPE_F32, "1e39", 4, &b), 0);
	CHECK_EQ_INT(kl_interp_scan_value(m, KL_TYPE_F64, "2e-324", 6, &b), 0);
	CHECK_EQ_INT(b, 42);
	CHECK_EQ_INT(kl_interp_scan_value(m, KL_TYPE_F64, "1e39", 4, &b), 4);
	CHECK_EQ_INT(b, 0x48078287f49c4a1dull);
	CHECK_EQ_INT(kl_interp_scan_value(m, KL_TYPE_I8, "-129", 4, &b), 0);
	const char *big = "0x8000_0000_0000_0000";
	CHECK_EQ_INT(kl_interp_scan_value(m, KL_TYPE_I64, big, 21, &b), 21);
	CHECK_EQ_INT(b, 0x8000000000000000ull);
	CHECK_EQ_INT(kl_interp_scan_value(m, KL_TYPE_I32, "1.5", 3, &b), 0);
	CHECK_EQ_INT(kl_interp_scan_value(m, KL_TYPE_F32, "nan", 3, &b), 3);
	CHECK_EQ_INT(b, 0x7fc00000);
	CHECK_EQ_INT(kl_interp_scan_value(m, KL_TYPE_F64, "-0.0", 4, &b), 4);
	CHECK_EQ_INT(b, 0x8000000000000000ull);
	CHECK_EQ_INT(kl_interp_scan_value(m, KL_TYPE_F64, "0x1.8p1", 7, &b), 7);
	CHECK_EQ_INT(b, 0x4008000000000000ull);
	kl_buf out = { 0 };
	kl_interp_format_value(m, KL_TYPE_I16, 0xffff, &out);
	kl_buf_putc(&out, ' ');
	kl_interp_format_value(m, KL_TYPE_F64, 0x4008000000000000ull, &out);
	kl_buf_putc(&out, ' ');
	kl_interp_format_value(m, KL_TYPE_F32, 0x7f800001, &out);
	CHECK_EQ_STR(out.data, "-1 0x1.8p1 nan:0x1");
	kl_buf_free(&out);
	/* Results of several types. */
	kl_interp *it = kl_interp_new(m, NULL);
	uint64_t nan1 = 0x7ff0000000000001ull;
	kl_run_result r;
	kl_interp_call(it, sym(m, "pair"), &nan1, 1, &r);
	CHECK_EQ_INT(r.num_results, 2);
	CHECK_EQ_INT(r.results[0], 0x7ff8000000000001ull);
	CHECK_EQ_INT(r.results[1], 1);
	kl_interp_free(it);
	kl_module_free(m);
}

/* ---- the parallel-copy sequentialiser ---- */

static uint32_t
rnd(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(*s >> 33);
}

static void
test_pcopy(void)
{
	enum { NR = 12, TMP = NR };
	uint32_t loc[NR + 1], pred[NR + 1], ready[NR], out[4 * NR];
	uint8_t done[NR + 1] = { 0 };
	memset(loc, 0xff, sizeof loc);
	memset(pred, 0xff, sizeof pred);
	uint64_t seed = 1;
	for (int round = 0; round < 20000; round++) {
		/* Random distinct destinations, arbitrary sources. */
		uint32_t perm[NR], dst[NR], src[NR], n = 0;
		for (uint32_t k = 0; k < NR; k++)
			perm[k] = k;
		for (uint32_t k = NR - 1; k > 0; k--) {
			uint32_t j = rnd(&seed) % (k + 1), t = perm[k];
			perm[k] = perm[j];
			perm[j] = t;
		}
		uint32_t want = 1 + rnd(&seed) % NR;
		for (uint32_t k = 0; k < want; k++) {
			uint32_t s = rnd(&seed) % NR;
			if (rnd(&seed) % 3 == 0) /* often another dst */
				s = perm[rnd(&seed) % want];
			if (s == perm[k])
				continue;
			dst[n] = perm[k];
			src[n] = s;
			n++;
		}
		uint64_t regs[NR + 1], expect[NR + 1];
		for (uint32_t k = 0; k <= NR; k++)
			regs[k] = expect[k] = 1000 + k;
		for (uint32_t k = 0; k < n; k++)
			expect[dst[k]] = regs[src[k]];
		uint32_t np = pcopy_sequence(dst, src, n, TMP, loc, pred, done,
					     ready, out);
		CHECK(np <= 2 * n);
		for (uint32_t k = 0; k < np; k++)
			regs[out[2 * k]] = regs[out[2 * k + 1]];
		for (uint32_t k = 0; k < NR; k++)
			if (regs[k] != expect[k]) {
				CHECK(regs[k] == expect[k]);
				round = 1 << 30;
				break;
			}
		for (uint32_t k = 0; k <= NR; k++)
			CHECK(loc[k] == KL_NONE && pred[k] == KL_NONE &&
			      !done[k]);
	}
}

/* The first line of what a call of name(args) describes, under the
 * limits opts sets (NULL: the defaults). */
static void
check_first_line(kl_module *m, const kl_interp_options *opts,
		 const char *name, const uint64_t *args, uint32_t nargs,
		 const char *want)
{
	kl_interp *it = kl_interp_new(m, opts);
	kl_run_result r;
	CHECK(kl_interp_call(it, sym(m, name), args, nargs, &r) == KL_OK);
	kl_buf b = { 0 };
	kl_run_describe(it, &r, &b);
	const char *nl = b.data ? strchr(b.data, '\n') : NULL;
	if (nl)
		b.data[nl - b.data + 1] = '\0';
	CHECK_EQ_STR(b.data ? b.data : "", want);
	kl_buf_free(&b);
	kl_interp_free(it);
}

/* A result of an instruction taken out of the layout, or a parameter of
 * a block taken out, has a register nothing writes: the run fails where
 * it read 0 and returned it. */
static void
test_use_outside_layout(void)
{
	static const char text[] = "function %f(i32) -> i32 {\n"
				   "block0(v0: i32):\n"
				   "    v1 = iadd_imm v0, 1\n"
				   "    v2 = iadd_imm v1, 1\n"
				   "    return v2\n"
				   "}\n"
				   "function %g(i32) -> i32 {\n"
				   "block0(v0: i32):\n"
				   "    return v1\n"
				   "block1(v1: i32):\n"
				   "    return v1\n"
				   "}\n";
	kl_module *m = parse_text(text, sizeof text - 1);
	kl_inst_remove(kl_sym_func(m, sym(m, "f")), (kl_inst){ 0 });
	CHECK(kl_func_remove_block(kl_sym_func(m, sym(m, "g")),
				   (kl_block){ 1 }) == KL_OK);
	uint64_t arg = 5;
	check_first_line(m, NULL, "f", &arg, 1,
			 "error: cannot run %f: uses v1, defined by an "
			 "instruction not in the layout (v2 = iadd_imm.i32 v1, "
			 "1)\n");
	check_first_line(m, NULL, "g", &arg, 1,
			 "error: cannot run %g: uses v1, defined in a block "
			 "not in the layout (return v1)\n");
	kl_module_free(m);
}

/* A call of func(arg) and the first line that describes it. */
typedef struct first_line_case {
	const char *func;
	uint64_t arg;
	const char *first_line;
} first_line_case;

/* Each case's first line, on the module the text parses to. */
static void
check_first_lines(const char *text, size_t len, const first_line_case *cases,
		  size_t n)
{
	kl_module *m = parse_text(text, len);
	if (!m)
		return;
	for (size_t k = 0; k < n; k++)
		check_first_line(m, NULL, cases[k].func, &cases[k].arg, 1,
				 cases[k].first_line);
	kl_module_free(m);
}

/* A refused float to integer conversion names its operand and the
 * range it left, or NaN. */
static void
test_conversion_trap_text(void)
{
	static const char text[] =
		"function %s(f64) -> i32 {\n"
		"block0(v0: f64):\n"
		"    v1 = fcvt_to_sint.i32 v0\n"
		"    return v1\n"
		"}\n"
		"function %u(f32) -> i8 {\n"
		"block0(v0: f32):\n"
		"    v1 = fcvt_to_uint.i8 v0\n"
		"    return v1\n"
		"}\n";
	static const first_line_case cases[] = {
		{ "s", 0x41e0000000000000ull, /* 2^31 */
		  "trap int_ovf: float to integer conversion of f64 "
		  "2147483648: out of range for signed i32\n" },
		{ "s", 0xc1e0000000200000ull, /* -2^31 - 1 */
		  "trap int_ovf: float to integer conversion of f64 "
		  "-2147483649: out of range for signed i32\n" },
		{ "s", 0x7ff8000000000000ull,
		  "trap int_ovf: float to integer conversion of f64 nan\n" },
		/* Any other NaN as the text format spells it: "nan" alone
		 * would read back as the default NaN. */
		{ "s", 0xfff0000000000001ull,
		  "trap int_ovf: float to integer conversion of f64 "
		  "-nan:0x1\n" },
		{ "u", 0x7fa00000ull,
		  "trap int_ovf: float to integer conversion of f32 "
		  "nan:0x200000\n" },
		{ "s", 0xfff0000000000000ull,
		  "trap int_ovf: float to integer conversion of f64 -inf: "
		  "out of range for signed i32\n" },
		{ "u", 0xbfc00000ull, /* -1.5f */
		  "trap int_ovf: float to integer conversion of f32 -1.5: "
		  "out of range for unsigned i8\n" },
		{ "u", 0x43805a1dull, /* 256.704f: as few digits as read back */
		  "trap int_ovf: float to integer conversion of f32 256.704: "
		  "out of range for unsigned i8\n" },
	};
	check_first_lines(text, sizeof text - 1, cases,
			  sizeof cases / sizeof cases[0]);
}

/* An access that starts inside its object and runs past the end names
 * its bytes; one that starts past the end names its offset. */
static void
test_bounds_trap_text(void)
{
	static const char text[] =
		"declare %memcpy(i64, i64, i64) -> i64\n"
		"\n"
		"data %src = const { i8 1, i8 2, i8 3, i8 4, i8 5, i8 6 }\n"
		"\n"
		"function %load(i64) -> i32 {\n"
		"block0(v0: i64):\n"
		"    v1 = alloca 8\n"
		"    v2 = iadd v1, v0\n"
		"    v3 = load.i32 v2\n"
		"    return v3\n"
		"}\n"
		"\n"
		"function %copy(i64) -> i64 {\n"
		"block0(v0: i64):\n"
		"    v1 = alloca 16\n"
		"    v2 = symbol_addr %src\n"
		"    v3 = call %memcpy(v1, v2, v0)\n"
		"    return v3\n"
		"}\n"
		"\n"
		"function %store(i64) {\n"
		"block0(v0: i64):\n"
		"    v1 = symbol_addr %src\n"
		"    v2 = iadd v1, v0\n"
		"    v3 = iconst.i32 0\n"
		"    store v3, v2\n"
		"    return\n"
		"}\n";
	static const first_line_case cases[] = {
		/* inside const data, up to its last byte: read-only */
		{ "store", 2,
		  "trap heap_oob: 4-byte store: object 2 (const data %src, 6 "
		  "bytes) is read-only\n" },
		{ "store", 3,
		  "trap heap_oob: 4-byte store: object 2 (const data %src, 6 "
		  "bytes): bytes 3 to 6 run past its end\n" },
		/* below the alloca (object 6): the offset borrowed from the
		 * id, which the message says it may have been */
		{ "load", (uint64_t)-4,
		  "trap heap_oob: 4-byte load: object 5 (the address of "
		  "function %store) has no bytes to access (or offset -4 from "
		  "object 6)\n" },
		{ "load", (uint64_t)-2147483648ll,
		  "trap heap_oob: 4-byte load: object 5 (the address of "
		  "function %store) has no bytes to access (or offset "
		  "-2147483648 from object 6)\n" },
		{ "load", 6,
		  "trap heap_oob: 4-byte load: object 6 (8-byte alloca v1 in "
		  "%load): bytes 6 to 9 run past its end\n" },
		{ "load", 8,
		  "trap heap_oob: 4-byte load: object 6 (8-byte alloca v1 in "
		  "%load): offset 8 is out of bounds\n" },
		{ "copy", 7,
		  "trap heap_oob: memcpy: 7 bytes at 0x0000000200000000: "
		  "object 2 (const data %src, 6 bytes): bytes 0 to 6 run past "
		  "its end\n" },
	};
	check_first_lines(text, sizeof text - 1, cases,
			  sizeof cases / sizeof cases[0]);
}

/* An argument's bits above its type's width are ignored, as keel.h
 * says: the callee sees the value of its type. */
static void
test_argument_high_bits(void)
{
	static const char text[] =
		"function %wide(i32) -> i64 {\n"
		"block0(v0: i32):\n"
		"    v1 = sextend.i64 v0\n"
		"    return v1\n"
		"}\n"
		"function %byte(i8) -> i32 {\n"
		"block0(v0: i8):\n"
		"    v1 = uextend.i32 v0\n"
		"    return v1\n"
		"}\n";
	kl_module *m = parse_text(text, sizeof text - 1);
	if (!m)
		return;
	kl_interp *it = kl_interp_new(m, NULL);
	static const struct {
		const char *func;
		uint64_t arg, want;
	} cases[] = {
		{ "wide", 0x1234567800000005ull, 5 },
		{ "wide", ~0ull, ~0ull },
		{ "wide", 0xffffffff00000000ull, 0 },
		{ "byte", 0x1ffull, 255 },
		{ "byte", 0xabcdef0100ull, 0 },
	};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		kl_run_result r;
		CHECK(kl_interp_call(it, sym(m, cases[k].func), &cases[k].arg,
				     1, &r) == KL_OK);
		CHECK(r.status == KL_RUN_RETURNED);
		CHECK_EQ_INT(r.results[0], cases[k].want);
	}
	kl_interp_free(it);
	kl_module_free(m);
}

/* A limit of one is not spelt as a plural. */
static void
test_limit_texts(void)
{
	static const char text[] =
		"function %two() -> i32 {\n"
		"block0:\n"
		"    v0 = iconst.i32 1\n"
		"    v1 = iadd v0, v0\n"
		"    return v1\n"
		"}\n"
		"function %deep() {\n"
		"block0:\n"
		"    call %deep()\n"
		"    return\n"
		"}\n";
	kl_module *m = parse_text(text, sizeof text - 1);
	if (!m)
		return;
	kl_interp_options o = { .fuel = 1 };
	check_first_line(m, &o, "two", NULL, 0,
			 "trap out_of_fuel: the budget of 1 instruction "
			 "(fuel) ran out\n");
	o.fuel = 2;
	check_first_line(m, &o, "two", NULL, 0,
			 "trap out_of_fuel: the budget of 2 instructions "
			 "(fuel) ran out\n");
	o = (kl_interp_options){ .max_depth = 1 };
	check_first_line(m, &o, "deep", NULL, 0,
			 "trap stack_overflow: call depth limit of 1 "
			 "frame (max_depth) reached\n");
	o.max_depth = 3;
	check_first_line(m, &o, "deep", NULL, 0,
			 "trap stack_overflow: call depth limit of 3 "
			 "frames (max_depth) reached\n");
	kl_module_free(m);
}

/* A dead object's trap says how it died: freed, or its frame returned. */
static void
test_dead_trap_text(void)
{
	static const char text[] =
		"declare %malloc(i64) -> i64\n"
		"\n"
		"declare %free(i64)\n"
		"\n"
		"function %freed(i64) -> i32 {\n"
		"block0(v0: i64):\n"
		"    v1 = call %malloc(v0)\n"
		"    call %free(v1)\n"
		"    v2 = load.i32 v1\n"
		"    return v2\n"
		"}\n"
		"\n"
		"function %frame() -> i64 {\n"
		"block0:\n"
		"    v0 = alloca 8\n"
		"    return v0\n"
		"}\n"
		"\n"
		"function %dangling(i64) -> i32 {\n"
		"block0(v0: i64):\n"
		"    v1 = call %frame()\n"
		"    v2 = load.i32 v1\n"
		"    return v2\n"
		"}\n";
	static const first_line_case cases[] = {
		{ "freed", 8,
		  "trap heap_oob: 4-byte load: object 6 (8-byte heap object) "
		  "is dead: it was freed (offset 0)\n" },
		{ "dangling", 0,
		  "trap heap_oob: 4-byte load: object 6 (8-byte alloca v0 in "
		  "%frame) is dead: its frame returned (offset 0)\n" },
	};
	check_first_lines(text, sizeof text - 1, cases,
			  sizeof cases / sizeof cases[0]);
}

/* A module with one function, %NAME() of one block, built (so without
 * source lines) to trap with code (and user code user); *t is the trap. */
static kl_module *
built_trap(const char *name, kl_trapcode code, uint32_t user, kl_func **f,
	   kl_inst *t)
{
	kl_module *m = kl_module_new();
	kl_signature s_void = { NULL, NULL, 0, 0, false };
	CHECK(kl_module_add_func(m, name, strlen(name), &s_void, f) == KL_OK);
	kl_block e = kl_func_new_block(*f);
	kl_func_append_block(*f, e);
	kl_builder b;
	kl_builder_init(&b, *f);
	kl_builder_at_end(&b, e);
	*t = kl_build_trap(&b, code, user);
	CHECK(kl_builder_status(&b) == KL_OK);
	return m;
}

/* A frame of a function built without source lines names no line. */
static void
test_describe_without_lines(void)
{
	kl_func *f;
	kl_inst t;
	kl_module *m = built_trap("built", KL_TRAP_USER, 3, &f, &t);
	kl_interp *it = kl_interp_new(m, NULL);
	kl_run_result r;
	CHECK(kl_interp_call(it, sym(m, "built"), NULL, 0, &r) == KL_OK);
	kl_buf out = { 0 };
	kl_run_describe(it, &r, &out);
	CHECK_EQ_STR(out.data ? out.data : "",
		     "trap user 3: trap instruction\n"
		     "  in %built at inst0: trap user 3\n");
	kl_buf_free(&out);
	kl_interp_free(it);
	kl_module_free(m);
}

/* A trap built with a code other than user keeps no user code, whatever
 * the builder was given: the IR and a run's result say 0. */
static void
test_built_trap_user_code(void)
{
	kl_func *f;
	kl_inst t;
	kl_module *m = built_trap("divz", KL_TRAP_INT_DIVZ, 9, &f, &t);
	uint32_t code = 1;
	CHECK(kl_inst_trap_code(f, t, &code) == KL_TRAP_INT_DIVZ);
	CHECK_EQ_INT(code, 0);
	kl_interp *it = kl_interp_new(m, NULL);
	kl_run_result r;
	CHECK(kl_interp_call(it, sym(m, "divz"), NULL, 0, &r) == KL_OK);
	CHECK(r.status == KL_RUN_TRAPPED);
	CHECK_EQ_INT(r.trap, KL_TRAP_INT_DIVZ);
	CHECK_EQ_INT(r.user_code, 0);
	kl_interp_free(it);
	kl_module_free(m);
}

/* A pointer to the next object to be made, which does not exist yet, is
 * no pointer, as one past it is not; an 8-byte store says it is one. */
static void
test_next_object_trap_text(void)
{
	static const char text[] =
		"function %beyond(i64) -> i32 {\n"
		"block0(v0: i64):\n"
		"    v1 = load.i32 v0\n"
		"    return v1\n"
		"}\n"
		"\n"
		"function %store8(i64) {\n"
		"block0(v0: i64):\n"
		"    v1 = iconst.i64 0\n"
		"    store v1, v0\n"
		"    return\n"
		"}\n";
	static const first_line_case cases[] = {
		{ "beyond", 0x300000000ull,
		  "trap heap_oob: 4-byte load: 0x0000000300000000 is not a "
		  "pointer: object 3 does not exist\n" },
		{ "beyond", 0x400000000ull,
		  "trap heap_oob: 4-byte load: 0x0000000400000000 is not a "
		  "pointer: object 4 does not exist\n" },
		{ "store8", 0x300000000ull,
		  "trap heap_oob: 8-byte store: 0x0000000300000000 is not a "
		  "pointer: object 3 does not exist\n" },
	};
	check_first_lines(text, sizeof text - 1, cases,
			  sizeof cases / sizeof cases[0]);
}

int
main(void)
{
	UNIT_RUN(test_many_calls);
	UNIT_RUN(test_many_interpreters);
	UNIT_RUN(test_trap_result);
	UNIT_RUN(test_use_of_hole);
	UNIT_RUN(test_use_outside_layout);
	UNIT_RUN(test_malformed_counts);
	UNIT_RUN(test_malformed_refused);
	UNIT_RUN(test_invalid_calls);
	UNIT_RUN(test_variadic_arg_count);
	UNIT_RUN(test_data_bounds);
	UNIT_RUN(test_data_items_checked);
	UNIT_RUN(test_null_args);
	UNIT_RUN(test_format_bad_type);
	UNIT_RUN(test_memory_persists);
	UNIT_RUN(test_reset_is_a_fresh_start);
	UNIT_RUN(test_output);
	UNIT_RUN(test_output_reenters);
	UNIT_RUN(test_fuel_exact);
	UNIT_RUN(test_fuel_short_then_trap);
	UNIT_RUN(test_many_allocas);
	UNIT_RUN(test_values_text);
	UNIT_RUN(test_pcopy);
	UNIT_RUN(test_conversion_trap_text);
	UNIT_RUN(test_bounds_trap_text);
	UNIT_RUN(test_argument_high_bits);
	UNIT_RUN(test_limit_texts);
	UNIT_RUN(test_dead_trap_text);
	UNIT_RUN(test_describe_without_lines);
	UNIT_RUN(test_output_stops);
	UNIT_RUN(test_object_ids_run_out);
	UNIT_RUN(test_built_trap_user_code);
	UNIT_RUN(test_next_object_trap_text);
	return unit_report("interp");
}
