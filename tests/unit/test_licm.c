/*
 * test_licm.c -- the licm pass through the API: broken input does not
 * crash it, its scratch kept in a report gives what a fresh one gives,
 * and a deep loop nest takes one move an instruction.
 * tests/filetests/licm has what it moves and what not.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keel.h"
#include "parsed.h"
#include "pass_checks.h"
#include "unit.h"

/* Broken input the verifier would refuse: a loop whose invariant uses a
 * value defined after it (in a block it does not dominate), a block
 * with no terminator, a branch to a block that takes other arguments.
 * The result is unspecified, but nothing crashes or reads out of bounds
 * (the sanitizer builds run this). */
static void
test_broken_input_does_not_crash(void)
{
	const char *text = "function %f(i32) -> i32 {\n"
			   "block0(v0: i32):\n"
			   "    brif v0, block1(v0), block3\n"
			   "\n"
			   "block1(v1: i32):\n"
			   "    v2 = iadd.i32 v8, v0\n"
			   "    v3 = iadd.i32 v7, v0\n"
			   "    v4 = iconst.i32 3\n"
			   "    brif v1, block1(v2, v3), block2\n"
			   "\n"
			   "block2:\n"
			   "    v7 = iadd v4, v4\n"
			   "    brif v7, block1, block3\n"
			   "\n"
			   "block3:\n"
			   "    v8 = iconst.i32 1\n"
			   "}\n";
	check_broken_input(kl_licm_func, text);
}

static void
test_empty_function(void)
{
	check_empty_function(kl_licm_func, "insts");
}

static void
test_registry_names_the_counters(void)
{
	check_registry("licm", kl_licm_func,
		       (const char *const[]){ "insts", "loads", "preheaders",
					      NULL });
}

/*
 * Functions of n loops one after the other, each entered by a brif (a
 * preheader made) and computing `v0 * 3 + j` inside: 2n moved and n
 * preheaders each, with one report as with none (the loop tree's arrays
 * grow and shrink from one function to the next).
 */
static void
test_scratch_reused_across_functions(void)
{
	kl_buf text = { 0 };
	const int sizes[] = { 3, 200, 1, 50, 400, 2 };
	uint64_t total = 0, made = 0;
	for (int k = 0; k < 6; k++) {
		int n = sizes[k];
		kl_buf_printf(&text, "function %%f%d(i64) -> i64 {\n"
				     "block0(v0: i64):\n"
				     "    v1 = iconst.i64 2\n"
				     "    jump block1\n",
			      k);
		for (int j = 0; j < n; j++) {
			int b = 1 + 2 * j, v = 10 + 5 * j;
			kl_buf_printf(&text,
				      "\nblock%d:\n"
				      "    brif v0, block%d(v0), block%d\n"
				      "\nblock%d(v%d: i64):\n"
				      "    v%d = imul_imm v0, 3\n"
				      "    v%d = iadd_imm v%d, %d\n"
				      "    v%d = isub v%d, v1\n"
				      "    v%d = icmp ult v%d, v%d\n"
				      "    brif v%d, block%d(v%d), block%d\n",
				      b, b + 1, b + 2, b + 1, v, v + 1, v + 2,
				      v + 1, j, v + 3, v, v + 4, v + 3, v + 2,
				      v + 4, b + 1, v + 3, b + 2);
		}
		kl_buf_printf(&text, "\nblock%d:\n    return v1\n}\n\n",
			      1 + 2 * n);
		total += 2 * (uint64_t)n;
		made += (uint64_t)n;
	}
	kl_pass_report rep = { 0 };
	check_scratch_reused(kl_licm_func, &text, 6,
			     "    v11 = imul_imm.i64 v0, 3\n", &rep);
	CHECK_EQ_INT(kl_pass_report_get(&rep, "insts"), total);
	CHECK_EQ_INT(kl_pass_report_get(&rep, "preheaders"), made);
	kl_pass_report_free(&rep);
	kl_buf_free(&text);
}

/*
 * A nest N loops deep, each entered by a jump from the loop around it;
 * the innermost computes a constant and `v0 * it`: both leave every loop
 * for block0, one move each (the outermost loop they may leave is found
 * by jumps up the loop tree, not a step a level). Checked by the result,
 * not timed.
 */
static void
test_deep_nest(void)
{
	enum { N = 20000 };
	kl_buf text = { 0 };
	kl_buf_printf(&text, "function %%f(i64) -> i64 {\n"
			     "block0(v0: i64):\n    jump block1(v0)\n");
	/* level k: header block k (parameter v(k)), its exit block N + k
	 * steps the level around it */
	for (int k = 1; k <= N; k++) {
		if (k < N) {
			kl_buf_printf(&text, "\nblock%d(v%d: i64):\n"
					     "    jump block%d(v%d)\n",
				      k, k, k + 1, k);
			continue;
		}
		kl_buf_printf(&text, "\nblock%d(v%d: i64):\n"
				     "    v%d = iconst.i64 5\n"
				     "    v%d = imul v0, v%d\n"
				     "    v%d = iadd_imm v%d, -1\n"
				     "    brif v%d, block%d(v%d), block%d\n",
			      k, k, N + 1, N + 2, N + 1, N + 3, k, N + 3, k,
			      N + 3, 2 * N);
	}
	for (int k = N; k >= 1; k--) {
		int v = N + 3 + k;
		if (k == 1)
			kl_buf_printf(&text, "\nblock%d:\n    return v%d\n",
				      N + k, N + 2);
		else
			kl_buf_printf(&text, "\nblock%d:\n"
					     "    v%d = iadd_imm v%d, -1\n"
					     "    brif v%d, block%d(v%d), "
					     "block%d\n",
				      N + k, v, k - 1, v, k - 1, v, N + k - 1);
	}
	kl_buf_printf(&text, "}\n");
	kl_module *m = parse_text(text.data, text.len);
	kl_func *f = func_of(m, "f");
	CHECK(verifies(f));
	kl_pass_report rep = { 0 };
	CHECK_EQ_INT(kl_licm_func(f, &rep), KL_OK);
	CHECK_EQ_INT(kl_pass_report_get(&rep, "insts"), 2);
	CHECK_EQ_INT(kl_pass_report_get(&rep, "preheaders"), 0);
	CHECK(verifies(f));
	char *after = printed(f);
	char want[128];
	snprintf(want, sizeof want,
		 "block0(v0: i64):\n    v%d = iconst.i64 5\n"
		 "    v%d = imul v0, v%d\n    jump block1(v0)\n",
		 N + 1, N + 2, N + 1);
	CHECK(strstr(after, want) != NULL);
	free(after);
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
	UNIT_RUN(test_deep_nest);
	return unit_report("licm");
}
