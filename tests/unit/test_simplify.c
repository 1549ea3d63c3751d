/*
 * test_simplify.c -- the simplify pass through the API: broken input
 * does not crash it, its scratch kept in a report gives what a fresh one
 * gives, and long chains take linear time (a chain of empty blocks
 * rewrites each edge once). tests/filetests/simplify has what it does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keel.h"
#include "parsed.h"
#include "pass_checks.h"
#include "unit.h"

/* Broken input the verifier would refuse: branches with too few and too
 * many arguments, a use before the definition, a block with no
 * terminator, a branch inside a block, an empty block passing its own
 * parameter to a block that passes it back. The result is unspecified,
 * but nothing crashes or reads out of bounds (the sanitizer builds run
 * this). */
static void
test_broken_input_does_not_crash(void)
{
	const char *text = "function %f(i32) -> i32 {\n"
			   "block0(v0: i32):\n"
			   "    v1 = iadd_imm.i32 v5, 1\n"
			   "    brif v0, block1, block2(v0, v0, v1)\n"
			   "    jump block5(v0)\n"
			   "\n"
			   "block1(v2: i32, v3: i32):\n"
			   "    jump block2(v3)\n"
			   "\n"
			   "block2(v4: i32):\n"
			   "    v5 = iadd_imm v4, 1\n"
			   "\n"
			   "block3(v6: i32):\n"
			   "    jump block4(v6)\n"
			   "\n"
			   "block4(v7: i32):\n"
			   "    jump block3(v7)\n"
			   "\n"
			   "block5(v8: i32):\n"
			   "    jump block6(v8)\n"
			   "\n"
			   "block6(v9: i64):\n"
			   "    jump block3(v9)\n"
			   "}\n";
	check_broken_input(kl_simplify_func, text);
}

static void
test_empty_function(void)
{
	check_empty_function(kl_simplify_func, "merged");
}

static void
test_registry_names_the_counters(void)
{
	check_registry("simplify", kl_simplify_func,
		       (const char *const[]){ "jumps", "skipped", "merged",
					      NULL });
}

/* Loops whose latch is an empty block passing n values round: skipped
 * in every function, with one report, as with none. */
static void
test_scratch_reused_across_functions(void)
{
	kl_buf text = { 0 };
	const int sizes[] = { 3, 200, 1, 50, 400, 2 };
	for (int k = 0; k < 6; k++) {
		int n = sizes[k];
		kl_buf_printf(&text, "function %%f%d(i64) -> i64 {\n"
				     "block0(v0: i64):\n    jump block1(v0",
			      k);
		for (int j = 0; j < n; j++)
			kl_buf_printf(&text, ", v0");
		kl_buf_printf(&text, ")\n\nblock1(v1: i64");
		for (int j = 0; j < n; j++)
			kl_buf_printf(&text, ", v%d: i64", 10 + j);
		kl_buf_printf(&text, "):\n    v2 = iadd_imm v1, -1\n"
				     "    brif v2, block3(v2");
		for (int j = 0; j < n; j++)
			kl_buf_printf(&text, ", v%d", 10 + j);
		kl_buf_printf(&text, "), block2\n\nblock3(v3: i64");
		for (int j = 0; j < n; j++)
			kl_buf_printf(&text, ", v%d: i64", 10 + n + j);
		kl_buf_printf(&text, "):\n    jump block1(v3");
		for (int j = n; j > 0; j--)
			kl_buf_printf(&text, ", v%d", 9 + n + j);
		kl_buf_printf(&text, ")\n\nblock2:\n    return v1\n}\n\n");
	}
	kl_pass_report rep = { 0 };
	check_scratch_reused(kl_simplify_func, &text, 6,
			     "brif v2, block1(v2, ", &rep);
	CHECK_EQ_INT(kl_pass_report_get(&rep, "skipped"), 6);
	CHECK_EQ_INT(kl_pass_report_get(&rep, "merged"), 0);
	kl_pass_report_free(&rep);
	kl_buf_free(&text);
}

/*
 * A chain of n empty blocks, each passing its parameters on swapped,
 * reached from m branches along the way, and a straight line of n
 * blocks to merge: linear work (each edge rewritten once, the merged
 * parameters removed in one walk). Checked by the result, not timed:
 * every branch goes to the chain's end, and the line is one block.
 */
static void
test_long_chains(void)
{
	enum { N = 20000 };
	kl_buf text = { 0 };
	kl_buf_printf(&text, "function %%f(i32, i32) -> i32 {\n"
			     "block0(v0: i32, v1: i32):\n"
			     "    brif v0, block1(v0, v1), block%d(v1, v0)\n",
		      N / 2);
	for (int k = 1; k <= N; k++)
		kl_buf_printf(&text, "\nblock%d(v%d: i32, v%d: i32):\n"
				     "    jump block%d(v%d, v%d)\n",
			      k, 2 * k, 2 * k + 1, k + 1, 2 * k + 1, 2 * k);
	/* the chain's end, then a line of blocks adding one each */
	int v = 2 * N + 4;
	kl_buf_printf(&text, "\nblock%d(v%d: i32, v%d: i32):\n"
			     "    v%d = isub v%d, v%d\n    jump block%d\n",
		      N + 1, 2 * N + 2, 2 * N + 3, v, 2 * N + 2, 2 * N + 3,
		      N + 2);
	for (int k = N + 2; k < 2 * N; k++, v++)
		kl_buf_printf(&text, "\nblock%d:\n    v%d = iadd_imm v%d, 1\n"
				     "    jump block%d\n",
			      k, v + 1, v, k + 1);
	kl_buf_printf(&text, "\nblock%d:\n    return v%d\n}\n", 2 * N, v);
	kl_module *m = parse_text(text.data, text.len);
	kl_func *f = func_of(m, "f");
	kl_pass_report rep = { 0 };
	CHECK_EQ_INT(kl_simplify_func(f, &rep), KL_OK);
	CHECK_EQ_INT(kl_pass_report_get(&rep, "skipped"), N);
	CHECK_EQ_INT(kl_pass_report_get(&rep, "jumps"), 1);
	CHECK_EQ_INT(kl_pass_report_get(&rep, "merged"), N);
	CHECK(verifies(f));
	char *after = printed(f);
	/* N swaps from block1, N / 2 + 1 from block N / 2: both arms reach
	 * the chain's end with (v0, v1), so the brif goes one way, and the
	 * rest merges into the entry */
	char want[64];
	snprintf(want, sizeof want, "    v%d -> v0\n    v%d -> v1\n",
		 2 * N + 2, 2 * N + 3);
	CHECK(strstr(after, want) != NULL);
	CHECK(strstr(after, "jump") == NULL && strstr(after, "brif") == NULL);
	CHECK(strstr(after, "block1") == NULL);
	free(after);
	kl_pass_report_free(&rep);
	kl_module_free(m);
	kl_buf_free(&text);
}

/*
 * Two shapes that were quadratic (an adversarial test's): a line of N
 * blocks laid out backwards, each passing its parameter on (each merge
 * moved the line merged so far again; 20,000 blocks took 2 s), and a
 * br_table whose N entries go to N empty blocks all leading to one block
 * (each skip looked at the whole table again). Checked by the result:
 * the line is one block, the table's entries all go to the end (it stays
 * a br_table: one made alike by skipping is a second run's).
 */
static void
test_backward_line_and_wide_table(void)
{
	enum { N = 20000 };
	kl_buf text = { 0 };
	kl_buf_printf(&text, "function %%f(i32, i32) -> i32 {\n"
			     "block0(v0: i32, v%d: i32):\n"
			     "    brif v0, block1(v0), block1(v%d)\n",
		      3 * N, 3 * N);
	kl_buf_printf(&text, "\nblock%d(v%d: i32):\n    return v%d\n", N + 1,
		      N + 1, N + 1);
	for (int k = N; k >= 1; k--)
		kl_buf_printf(&text, "\nblock%d(v%d: i32):\n"
				     "    v%d = iadd_imm v%d, 1\n"
				     "    jump block%d(v%d)\n",
			      k, k, N + 1 + k, k, k + 1, k);
	kl_buf_printf(&text, "}\n\nfunction %%g(i32) -> i32 {\n"
			     "block0(v0: i32):\n    br_table v0, block%d, [",
		      N + 1);
	for (int k = 1; k <= N; k++)
		kl_buf_printf(&text, "%sblock%d", k > 1 ? ", " : "", k);
	kl_buf_printf(&text, "]\n");
	for (int k = 1; k <= N; k++)
		kl_buf_printf(&text, "\nblock%d:\n    jump block%d\n", k,
			      N + 1);
	kl_buf_printf(&text, "\nblock%d:\n    return v0\n}\n", N + 1);
	kl_module *m = parse_text(text.data, text.len);
	kl_func *f = func_of(m, "f"), *g = func_of(m, "g");
	kl_pass_report rep = { 0 };
	CHECK_EQ_INT(kl_simplify_func(f, &rep), KL_OK);
	CHECK_EQ_INT(kl_pass_report_get(&rep, "merged"), N);
	CHECK(verifies(f));
	char *after = printed(f);
	CHECK(strstr(after, "jump") == NULL);
	free(after);
	kl_pass_report_free(&rep);
	rep = (kl_pass_report){ 0 };
	CHECK_EQ_INT(kl_simplify_func(g, &rep), KL_OK);
	CHECK_EQ_INT(kl_pass_report_get(&rep, "skipped"), N);
	CHECK(verifies(g));
	after = printed(g);
	CHECK(strstr(after, "jump") == NULL &&
	      strstr(after, "br_table v0, block20001, [block20001, ") != NULL);
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
	UNIT_RUN(test_long_chains);
	UNIT_RUN(test_backward_line_and_wide_table);
	return unit_report("simplify");
}
