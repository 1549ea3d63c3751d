/*
 * test_dce.c -- the dce pass through the API: input that is not strict
 * SSA is left alone (the text format's tests verify their input first,
 * so only here can such input reach the pass), broken input does not
 * crash it, and its scratch kept in a report gives what a fresh one
 * gives. tests/filetests/dce has what it removes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keel.h"
#include "unit.h"
#include "parsed.h"
#include "pass_checks.h"

/*
 * Reachable uses of values defined in a block nothing reaches: a result,
 * a parameter, a branch argument. Removing that block would leave the
 * use undefined, so the whole function stays as it is, dead code too,
 * with a note naming the value.
 */
static const char not_strict_text[] =
	"function %result(i32) -> i32 {\n"
	"block0(v0: i32):\n"
	"    v5 = iconst.i32 5\n"
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
	"function %param(i32) -> i32 {\n"
	"block0(v0: i32):\n"
	"    v5 = iconst.i32 5\n"
	"    jump block2\n"
	"\n"
	"block1(v1: i32):\n"
	"    jump block2\n"
	"\n"
	"block2:\n"
	"    return v1\n"
	"}\n"
	"\n"
	"function %argument(i32) -> i32 {\n"
	"block0(v0: i32):\n"
	"    v5 = iconst.i32 5\n"
	"    jump block2(v0)\n"
	"\n"
	"block1:\n"
	"    v1 = iadd_imm v0, 1\n"
	"    jump block3\n"
	"\n"
	"block2(v2: i32):\n"
	"    jump block3\n"
	"\n"
	"block3:\n"
	"    v3 = iadd v1, v2\n"
	"    return v3\n"
	"}\n";

static void
test_not_strict_ssa_is_left_alone(void)
{
	kl_module *m = parse_text(not_strict_text, strlen(not_strict_text));
	check_left_alone(kl_dce_func, func_of(m, "result"),
			 "%result: left alone: v1 is used where it can run but "
			 "defined in a block that cannot (not strict SSA)\n",
			 "insts");
	check_left_alone(kl_dce_func, func_of(m, "param"),
			 "%param: left alone: v1 ", "insts");
	check_left_alone(kl_dce_func, func_of(m, "argument"),
			 "%argument: left alone: v1 ", "insts");
	kl_module_free(m);
}

/* The control: the same unreachable definitions used only where nothing
 * runs go with their blocks. */
static void
test_unreachable_uses_go_with_their_blocks(void)
{
	const char *text = "function %f(i32) -> i32 {\n"
			   "block0(v0: i32):\n"
			   "    jump block2(v0)\n"
			   "\n"
			   "block1:\n"
			   "    v1 = iadd_imm v0, 1\n"
			   "    jump block3(v1)\n"
			   "\n"
			   "block2(v2: i32):\n"
			   "    return v2\n"
			   "\n"
			   "block3(v3: i32):\n"
			   "    v4 = iadd v1, v3\n"
			   "    jump block1\n"
			   "}\n";
	kl_module *m = parse_text(text, strlen(text));
	kl_func *f = func_of(m, "f");
	kl_pass_report rep = { 0 };
	rep.verbose = true;
	CHECK_EQ_INT(kl_dce_func(f, &rep), KL_OK);
	CHECK_EQ_INT(kl_pass_report_get(&rep, "blocks"), 2);
	/* what the removed blocks held counts in blocks only (keel.h) */
	CHECK_EQ_INT(kl_pass_report_get(&rep, "insts"), 0);
	CHECK_EQ_INT(kl_pass_report_get(&rep, "params"), 0);
	CHECK(rep.notes.len == 0);
	char *after = printed(f);
	CHECK_EQ_STR(after, "function %f(i32) -> i32 {\n"
			    "block0(v0: i32):\n"
			    "    jump block2(v0)\n"
			    "\n"
			    "block2(v2: i32):\n"
			    "    return v2\n"
			    "}\n");
	free(after);
	CHECK(verifies(f));
	kl_pass_report_free(&rep);
	kl_module_free(m);
}

/* Broken input the verifier would refuse: branches with too few and too
 * many arguments, a use before the definition, a block with no
 * terminator. The result is unspecified, but nothing crashes or reads
 * out of bounds (the sanitizer builds run this). */
static void
test_broken_input_does_not_crash(void)
{
	const char *text = "function %f(i32) -> i32 {\n"
			   "block0(v0: i32):\n"
			   "    v1 = iadd_imm.i32 v5, 1\n"
			   "    brif v0, block1, block2(v0, v0, v1)\n"
			   "\n"
			   "block1(v2: i32, v3: i32):\n"
			   "    return v3\n"
			   "\n"
			   "block2(v4: i32):\n"
			   "    v5 = iadd_imm v4, 1\n"
			   "\n"
			   "block3:\n"
			   "    jump block1(v5)\n"
			   "}\n";
	check_broken_input(kl_dce_func, text);
}

/* A function with no body yet: nothing to do. */
static void
test_empty_function(void)
{
	check_empty_function(kl_dce_func, "insts");
}

/* The registry runs kl_dce_func and names its counters in order. */
static void
test_registry_names_the_counters(void)
{
	check_registry("dce", kl_dce_func,
		       (const char *const[]){ "blocks", "insts", "params",
					      NULL });
}

/*
 * One report over functions of growing and shrinking size (its scratch
 * grows, then is reused with stale marks in it) gives what a fresh
 * scratch gives each function.
 */
static void
test_scratch_reused_across_functions(void)
{
	kl_buf text = { 0 };
	const int sizes[] = { 3, 200, 1, 50, 400, 2 };
	/* loops carrying n dead counters and one live one */
	loops_text(&text, sizes, 6, "", "v0", 1, false);
	kl_pass_report rep = { 0 };
	check_scratch_reused(kl_dce_func, &text, 6, "block1(v1: i64):\n",
			     &rep);
	uint64_t params = 0;
	for (int k = 0; k < 6; k++)
		params += (uint64_t)sizes[k];
	CHECK_EQ_INT(kl_pass_report_get(&rep, "params"), params);
	CHECK_EQ_INT(kl_pass_report_get(&rep, "insts"), params);
	kl_pass_report_free(&rep);
	kl_buf_free(&text);
}

static int other_state_freed;

static void
free_other_state(void *state)
{
	(void)state;
	other_state_freed++;
}

/* A report holding another pass's scratch keeps it; dce uses its own. */
static void
test_report_with_another_pass_state(void)
{
	const char *text = "function %f(i32) -> i32 {\n"
			   "block0(v0: i32):\n"
			   "    v1 = iadd_imm v0, 1\n"
			   "    return v0\n"
			   "}\n";
	kl_module *m = parse_text(text, strlen(text));
	int other = 42;
	kl_pass_report rep = { .state = &other,
			       .state_free = free_other_state };
	CHECK_EQ_INT(kl_dce_func(func_of(m, "f"), &rep), KL_OK);
	CHECK_EQ_INT(kl_pass_report_get(&rep, "insts"), 1);
	CHECK(rep.state == &other && rep.state_free == free_other_state);
	other_state_freed = 0;
	kl_pass_report_free(&rep);
	CHECK_EQ_INT(other_state_freed, 1);
	kl_module_free(m);
}

int
main(void)
{
	UNIT_RUN(test_not_strict_ssa_is_left_alone);
	UNIT_RUN(test_unreachable_uses_go_with_their_blocks);
	UNIT_RUN(test_broken_input_does_not_crash);
	UNIT_RUN(test_empty_function);
	UNIT_RUN(test_registry_names_the_counters);
	UNIT_RUN(test_scratch_reused_across_functions);
	UNIT_RUN(test_report_with_another_pass_state);
	return unit_report("dce");
}
