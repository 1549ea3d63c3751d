/*
 * test_sccp.c -- the sccp pass through the API: input not known to
 * verify whose operands are defined where they cannot run is left alone
 * (the text format's tests verify their input first, so only here can
 * such input reach the pass), broken input does not crash it, and its
 * scratch kept in a report gives what a fresh one gives. tests/sccp and
 * tests/filetests/sccp have what it folds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keel.h"
#include "parsed.h"
#include "pass_checks.h"
#include "unit.h"

/*
 * Uses of values defined in a block nothing reaches, where code runs: a
 * returned value, and a branch on one. The branch takes no edge while its
 * condition is unknown, so the blocks after it would be dropped as if
 * they could not run; the whole function stays as it is.
 */
static const char not_strict_text[] =
	"function %result(i32) -> i32 {\n"
	"block0(v0: i32):\n"
	"    v5 = iconst.i32 5\n"
	"    v6 = iadd_imm v5, 1\n"
	"    jump block2\n"
	"\n"
	"block1:\n"
	"    v1 = iadd_imm v0, 1\n"
	"    jump block2\n"
	"\n"
	"block2:\n"
	"    return v1\n"
	"}\n"
	"\n"
	"function %branch(i32) -> i32 {\n"
	"block0(v0: i32):\n"
	"    v5 = iconst.i32 5\n"
	"    jump block2\n"
	"\n"
	"block1:\n"
	"    v1 = iadd_imm v0, 1\n"
	"    jump block2\n"
	"\n"
	"block2:\n"
	"    brif v1, block3, block4\n"
	"\n"
	"block3:\n"
	"    return v5\n"
	"\n"
	"block4:\n"
	"    return v0\n"
	"}\n";

static void
test_not_strict_ssa_is_left_alone(void)
{
	kl_module *m = parse_text(not_strict_text, strlen(not_strict_text));
	check_left_alone(kl_sccp_func, func_of(m, "result"),
			 "%result: left alone: v1 is used where it can run but "
			 "defined where it cannot, or nowhere (not strict "
			 "SSA)\n",
			 "values");
	check_left_alone(kl_sccp_func, func_of(m, "branch"),
			 "%branch: left alone: v1 ", "values");
	kl_module_free(m);
}

/* The control: the same function once v1 is defined where it runs
 * folds the branch and drops the other block. */
static void
test_strict_control(void)
{
	const char *text = "function %branch(i32) -> i32 {\n"
			   "block0(v0: i32):\n"
			   "    v5 = iconst.i32 5\n"
			   "    v1 = iadd_imm v5, -5\n"
			   "    brif v1, block3, block4\n"
			   "\n"
			   "block3:\n"
			   "    return v5\n"
			   "\n"
			   "block4:\n"
			   "    return v0\n"
			   "}\n";
	kl_module *m = parse_text(text, strlen(text));
	kl_func *f = func_of(m, "branch");
	kl_pass_report rep = { 0 };
	CHECK_EQ_INT(kl_sccp_func(f, &rep), KL_OK);
	CHECK_EQ_INT(kl_pass_report_get(&rep, "values"), 1);
	CHECK_EQ_INT(kl_pass_report_get(&rep, "jumps"), 1);
	CHECK_EQ_INT(kl_pass_report_get(&rep, "blocks"), 1);
	char *after = printed(f);
	CHECK_EQ_STR(after, "function %branch(i32) -> i32 {\n"
			    "block0(v0: i32):\n"
			    "    v5 = iconst.i32 5\n"
			    "    v6 = iconst.i32 0\n"
			    "    jump block4\n"
			    "\n"
			    "block4:\n"
			    "    return v0\n"
			    "}\n");
	free(after);
	CHECK(verifies(f));
	kl_pass_report_free(&rep);
	kl_module_free(m);
}

/* Broken input the verifier would refuse: branches with too few and too
 * many arguments, a use before the definition, a block with no
 * terminator, a branch inside a block, an argument of another type than
 * its parameter, a loop of iadd_imm. The result is unspecified, but
 * nothing crashes or reads out of bounds (the sanitizer builds run
 * this), with a report that says the input verified too. */
static void
test_broken_input_does_not_crash(void)
{
	const char *text = "function %f(i32) -> i32 {\n"
			   "block0(v0: i32):\n"
			   "    v1 = iadd_imm.i32 v5, 1\n"
			   "    v7 = iconst.i32 0\n"
			   "    brif v7, block1, block2(v0, v0, v1)\n"
			   "    v9 = iadd_imm.i32 v10, 4\n"
			   "    v10 = iadd_imm v9, 4\n"
			   "    jump block5(v10)\n"
			   "\n"
			   "block1(v2: i32, v3: i32):\n"
			   "    return v3\n"
			   "\n"
			   "block2(v4: i32):\n"
			   "    v5 = iadd_imm v4, 1\n"
			   "\n"
			   "block3:\n"
			   "    v8 = iconst.i64 3\n"
			   "    jump block4(v8)\n"
			   "\n"
			   "block4(v6: i32):\n"
			   "    brif v6, block1(v6, v6), block2(v6)\n"
			   "\n"
			   "block5(v11: i32):\n"
			   "    return v11\n"
			   "}\n";
	check_broken_input(kl_sccp_func, text);
}

/* A function with no body yet: nothing to do. */
static void
test_empty_function(void)
{
	check_empty_function(kl_sccp_func, "values");
}

/* The registry runs kl_sccp_func and names its counters in order. */
static void
test_registry_names_the_counters(void)
{
	check_registry("sccp", kl_sccp_func,
		       (const char *const[]){ "values", "jumps", "blocks",
					      "params", NULL });
}

/*
 * One report over functions of growing and shrinking size (its scratch
 * grows, then is reused with stale facts in it) gives what a fresh
 * scratch gives each function. Each function's loop carries n
 * parameters that stay constant and one counter that does not.
 */
static void
test_scratch_reused_across_functions(void)
{
	kl_buf text = { 0 };
	const int sizes[] = { 3, 200, 1, 50, 400, 2 };
	loops_text(&text, sizes, 6, "    v3 = iconst.i64 7\n", "v3", 0, true);
	kl_pass_report rep = { 0 };
	check_scratch_reused(kl_sccp_func, &text, 6, "block1(v1: i64):\n",
			     &rep);
	uint64_t params = 0;
	for (int k = 0; k < 6; k++)
		params += (uint64_t)sizes[k];
	CHECK_EQ_INT(kl_pass_report_get(&rep, "params"), params);
	CHECK_EQ_INT(kl_pass_report_get(&rep, "values"), params);
	kl_pass_report_free(&rep);
	kl_buf_free(&text);
}

int
main(void)
{
	UNIT_RUN(test_not_strict_ssa_is_left_alone);
	UNIT_RUN(test_strict_control);
	UNIT_RUN(test_broken_input_does_not_crash);
	UNIT_RUN(test_empty_function);
	UNIT_RUN(test_registry_names_the_counters);
	UNIT_RUN(test_scratch_reused_across_functions);
	return unit_report("sccp");
}
