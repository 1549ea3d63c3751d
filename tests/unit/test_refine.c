/*
 * test_refine.c -- the refine pass through the API: broken input does
 * not crash it, its scratch kept in a report gives what a fresh one
 * gives, and long chains of values share their evidence end to end.
 * tests/filetests/refine has what it infers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keel.h"
#include "parsed.h"
#include "pass_checks.h"
#include "unit.h"

/* Broken input the verifier would refuse: an alias cycle used as an
 * operand, a use of a value defined where it does not dominate, a
 * branch passing more arguments than its target takes, an address of
 * the wrong class. */
static void
test_broken_input_does_not_crash(void)
{
	const char *text = "function %f(i32) -> i32 {\n"
			   "block0(v0: i32):\n"
			   "    v1 -> v2\n"
			   "    v2 -> v1\n"
			   "    v3 = iadd.i32 v1, v0\n"
			   "    v4 = sdiv.i32 v7, v3\n"
			   "    v5 = load.i32 v0\n"
			   "    brif v0, block1(v3, v4, v5), block1(v0)\n"
			   "\n"
			   "block1(v6: i32):\n"
			   "    v7 = udiv v6, v2\n"
			   "    return v7\n"
			   "}\n";
	check_broken_input(kl_refine_func, text);
}

static void
test_empty_function(void)
{
	check_empty_function(kl_refine_func, "signed");
}

static void
test_registry_names_the_counters(void)
{
	check_registry("refine", kl_refine_func,
		       (const char *const[]){ "signed", "unsigned",
					      "pointers", NULL });
}

/* Functions of changing size (loops_text's: values stepped round a
 * loop), one report's scratch over all of them: the same as fresh. The
 * stepped values start as an unsigned quotient of the argument, so all
 * the values become u64: the argument, the quotient, the counter and its
 * step, and the stepped values and parameters. */
static void
test_scratch_reused_across_functions(void)
{
	kl_buf text = { 0 };
	const int sizes[] = { 3, 200, 1, 50, 400, 2 };
	loops_text(&text, sizes, 6, "    v3 = udiv_imm v0, 3\n", "v3", 1,
		   true);
	kl_pass_report rep = { 0 };
	check_scratch_reused(kl_refine_func, &text, 6,
			     "block1(v1: u64, v10: u64", &rep);
	uint64_t want = 0;
	for (int k = 0; k < 6; k++)
		want += 4 + 2 * (uint64_t)sizes[k];
	CHECK_EQ_INT(kl_pass_report_get(&rep, "unsigned"), want);
	kl_pass_report_free(&rep);
	kl_buf_free(&text);
}

/*
 * A chain N long: v1 = v0 + 1, v2 = v1 + 1, ..., each a block's
 * parameter in turn, and only the last divided unsigned: every value
 * of the chain is then unsigned (one set, however it was joined). And
 * a chain of sums from an address, used as an address only at its end,
 * far from the address it starts at: each link a pointer.
 */
static void
test_long_chains(void)
{
	enum { N = 20000 };
	kl_buf text = { 0 };
	kl_buf_printf(&text, "function %%f(i32, i64) -> i32 {\n"
			     "block0(v0: i32, v1: i64):\n"
			     "    v2 = iconst.i64 8\n"
			     "    jump block1(v0, v1)\n");
	for (int k = 1; k <= N; k++)
		kl_buf_printf(&text,
			      "\nblock%d(v%d: i32, v%d: i64):\n"
			      "    v%d = iadd_imm v%d, 1\n"
			      "    v%d = iadd v%d, v2\n"
			      "    jump block%d(v%d, v%d)\n",
			      k, 10 * k, 10 * k + 1, 10 * k + 2, 10 * k,
			      10 * k + 3, 10 * k + 1, k + 1, 10 * k + 2,
			      10 * k + 3);
	kl_buf_printf(&text,
		      "\nblock%d(v%d: i32, v%d: i64):\n"
		      "    v%d = udiv v%d, v%d\n"
		      "    v%d = load.i32 v%d\n"
		      "    v%d = iadd v%d, v%d\n"
		      "    return v%d\n}\n",
		      N + 1, 10 * (N + 1), 10 * (N + 1) + 1, 10 * (N + 1) + 2,
		      10 * (N + 1), 10 * (N + 1), 10 * (N + 1) + 3,
		      10 * (N + 1) + 1, 10 * (N + 1) + 4, 10 * (N + 1) + 2,
		      10 * (N + 1) + 3, 10 * (N + 1) + 4);
	kl_module *m = parse_text(text.data, text.len);
	kl_func *f = func_of(m, "f");
	CHECK(verifies(f));
	kl_pass_report rep = { 0 };
	CHECK_EQ_INT(kl_refine_func(f, &rep), KL_OK);
	CHECK(verifies(f));
	CHECK_EQ_INT(kl_value_type(f, (kl_value){ 0 }), KL_TYPE_U32);
	CHECK_EQ_INT(kl_value_type(f, (kl_value){ 10 * N + 2 }),
		     KL_TYPE_U32);
	/* the sums: the start, a link in the middle, the end */
	CHECK_EQ_INT(kl_value_type(f, (kl_value){ 1 }), KL_TYPE_PTR);
	CHECK_EQ_INT(kl_value_type(f, (kl_value){ 10 * (N / 2) + 3 }),
		     KL_TYPE_PTR);
	CHECK_EQ_INT(kl_value_type(f, (kl_value){ 10 * (N + 1) + 1 }),
		     KL_TYPE_PTR);
	/* v1, the N + 1 parameters, the N sums */
	CHECK_EQ_INT(kl_pass_report_get(&rep, "pointers"), 2 * N + 2);
	kl_pass_report_free(&rep);
	kl_module_free(m);
	kl_buf_free(&text);
}

int
main(void)
{
	UNIT_RUN(test_broken_input_does_not_crash);
	UNIT_RUN(test_empty_function);
	UNIT_RUN(test_registry_names_the_counters);
	UNIT_RUN(test_scratch_reused_across_functions);
	UNIT_RUN(test_long_chains);
	return unit_report("refine");
}
