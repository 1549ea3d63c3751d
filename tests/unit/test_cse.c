/*
 * test_cse.c -- the cse pass through the API: broken input does not
 * crash it, its scratch kept in a report gives what a fresh one gives,
 * a deep dominator tree and many equal instructions take one walk, and
 * facts of memory go down the tree to depth 4096 and are 16 at most.
 * tests/filetests/cse has what it merges and what not.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keel.h"
#include "parsed.h"
#include "pass_checks.h"
#include "unit.h"

/* Broken input the verifier would refuse: a use before the definition,
 * operands of two types, a block with no terminator, an alias used
 * before its target is defined, two equal instructions in a loop of
 * definitions; a store of a value whose aliases go round. The result is
 * unspecified, but nothing crashes or reads out of bounds (the sanitizer
 * builds run this). */
static void
test_broken_input_does_not_crash(void)
{
	const char *text = "function %f(i32, i64) -> i32 {\n"
			   "block0(v0: i32, v1: i64):\n"
			   "    v2 = iadd.i32 v5, v0\n"
			   "    v3 = iadd.i32 v5, v0\n"
			   "    v4 = iadd v0, v1\n"
			   "    v5 = iadd v2, v3\n"
			   "    v6 = iadd.i32 v5, v0\n"
			   "    brif v0, block1, block2\n"
			   "\n"
			   "block1:\n"
			   "    v7 = iadd.i32 v5, v0\n"
			   "\n"
			   "block2:\n"
			   "    v9 -> v8\n"
			   "    v10 = iadd.i32 v9, v0\n"
			   "    v8 = iadd.i32 v9, v0\n"
			   "    return v10\n"
			   "}\n";
	check_broken_input(kl_cse_func, text);
	/* a store of a value whose alias chain is a cycle: it resolves to
	 * no value, whose type must not be read (a review found the read) */
	check_broken_input(kl_cse_func, "function %f(i64) {\n"
					"block0(v0: i64):\n"
					"    v2 -> v3\n"
					"    v3 -> v2\n"
					"    v1 = alloca 8\n"
					"    store.i64 v2, v1\n"
					"    v4 = load.i64 v1\n"
					"    return\n"
					"}\n");
	/* loads rebuilt from facts whose values are broken: a cycle, a
	 * value defined later, a float stored where a narrower integer
	 * is read, a load of an address defined later */
	check_broken_input(kl_cse_func, "function %f(i64) -> i32 {\n"
					"block0(v0: i64):\n"
					"    v2 -> v3\n"
					"    v3 -> v2\n"
					"    v1 = alloca 16\n"
					"    store.i64 v2, v1\n"
					"    v4 = load.i32 v1+4\n"
					"    istore8.i64 v12, v1+8\n"
					"    v5 = uload8.i32 v1+8\n"
					"    v6 = f64const 0.5\n"
					"    store v6, v1\n"
					"    v7 = sload16.i32 v1+2\n"
					"    v8 = load.i32 v10\n"
					"    v10 = iadd_imm v1, 4\n"
					"    v11 = load.f32 v1+12\n"
					"    v12 = iconst.i64 7\n"
					"    return v4\n"
					"}\n");
}

static void
test_empty_function(void)
{
	check_empty_function(kl_cse_func, "insts");
}

static void
test_registry_names_the_counters(void)
{
	check_registry("cse", kl_cse_func,
		       (const char *const[]){ "insts", "loads", NULL });
}

/* Functions each computing n sums twice, the second time with the
 * operands swapped: n removed each, with one report as with none. */
static void
test_scratch_reused_across_functions(void)
{
	kl_buf text = { 0 };
	const int sizes[] = { 3, 200, 1, 50, 400, 2 };
	uint64_t total = 0;
	for (int k = 0; k < 6; k++) {
		int n = sizes[k];
		kl_buf_printf(&text, "function %%f%d(i64) -> i64 {\n"
				     "block0(v0: i64):\n"
				     "    v1 = iadd_imm v0, -1\n",
			      k);
		for (int j = 0; j < n; j++)
			kl_buf_printf(&text, "    v%d = iadd_imm v0, %d\n",
				      10 + j, j);
		for (int j = 0; j < n; j++)
			kl_buf_printf(&text, "    v%d = iadd v%d, v1\n"
					     "    v%d = iadd v1, v%d\n",
				      10 + n + 2 * j, 10 + j, 11 + n + 2 * j,
				      10 + j);
		kl_buf_printf(&text, "    return v%d\n}\n\n", 9 + 3 * n);
		total += (uint64_t)n;
	}
	kl_pass_report rep = { 0 };
	check_scratch_reused(kl_cse_func, &text, 6, "v1 = iadd_imm v0, -1\n",
			     &rep);
	CHECK_EQ_INT(kl_pass_report_get(&rep, "insts"), total);
	kl_pass_report_free(&rep);
	kl_buf_free(&text);
}

/*
 * A line of N blocks, each computing `v0 * 3` again, a value of its own
 * and a load of the same address (data: an alloca's fresh bytes would
 * be known zeros): the dominator tree is N deep (the walk
 * keeps its own stack), and every repeat but the first goes; the values
 * of their own stay. Each block has one edge in, so memory's generation
 * is handed down the line: block1's load is kept, the others read it,
 * up to the store in the middle block, after which they read what it
 * stored. Checked by the result, not timed.
 */
static void
test_deep_tree(void)
{
	enum { N = 20000 };
	kl_buf text = { 0 };
	kl_buf_printf(&text, "data %%d = { i64 5 }\n"
			     "function %%f(i64) -> i64 {\n"
			     "block0(v0: i64):\n"
			     "    v1 = symbol_addr %%d\n    jump block1\n");
	for (int k = 1; k <= N; k++) {
		kl_buf_printf(&text, "\nblock%d:\n", k);
		if (k == N / 2)
			kl_buf_printf(&text, "    store v0, v1\n");
		kl_buf_printf(&text, "    v%d = imul_imm v0, 3\n"
				     "    v%d = iadd_imm v0, %d\n"
				     "    v%d = load.i64 v1\n"
				     "    jump block%d\n",
			      3 * k, 3 * k + 1, k, 3 * k + 2, k + 1);
	}
	kl_buf_printf(&text, "\nblock%d:\n    return v%d\n}\n", N + 1,
		      3 * N + 2);
	kl_module *m = parse_text(text.data, text.len);
	kl_func *f = func_of(m, "f");
	kl_pass_report rep = { 0 };
	CHECK_EQ_INT(kl_cse_func(f, &rep), KL_OK);
	CHECK_EQ_INT(kl_pass_report_get(&rep, "insts"), 2 * (N - 1));
	CHECK_EQ_INT(kl_pass_report_get(&rep, "loads"), N - 1);
	CHECK(verifies(f));
	char *after = printed(f);
	CHECK(strstr(after, "block2:\n    v7 = iadd_imm.i64 v0, 2\n") !=
	      NULL);
	CHECK(strstr(after, "block1:\n    v3 = imul_imm.i64 v0, 3\n"
			    "    v4 = iadd_imm.i64 v0, 1\n"
			    "    v5 = load.i64 v1\n") != NULL);
	CHECK(strstr(after, "v60002 -> v0\n    return v60002\n") != NULL);
	free(after);
	kl_pass_report_free(&rep);
	kl_module_free(m);
	kl_buf_free(&text);
}

/*
 * Facts of memory go down the tree to depth 4096 only: a line of N
 * blocks each loading an alloca no store wrote. The loads down to block
 * 4096 read its fresh zeros; block 4097 starts with no facts, so its
 * load stays (and the table hands it down to the rest).
 */
static void
test_facts_depth(void)
{
	enum { N = 6000 };
	kl_buf text = { 0 };
	kl_buf_puts(&text, "function %f() -> i64 {\nblock0:\n"
			   "    v1 = alloca 8\n    jump block1\n");
	for (int k = 1; k <= N; k++)
		kl_buf_printf(&text, "\nblock%d:\n    v%d = load.i64 v1\n"
				     "    jump block%d\n", k, k + 1, k + 1);
	kl_buf_printf(&text, "\nblock%d:\n    return v%d\n}\n", N + 1,
		      N + 1);
	char *after;
	uint64_t n = counted_on_f(kl_cse_func, text.data, text.len, "loads",
					  &after);
	CHECK_EQ_INT(n, N - 1);
	CHECK(strstr(after, "block4097:\n    v4098 = load.i64 v1\n") !=
	      NULL);
	free(after);
	kl_buf_free(&text);
}

/* At most 16 facts: of 17 allocas made in a row, the first's zeros are
 * forgotten (its load stays), the last's are known. */
static void
test_facts_limit(void)
{
	kl_buf text = { 0 };
	kl_buf_puts(&text, "function %f() -> i64 {\nblock0:\n");
	for (int k = 1; k <= 17; k++)
		kl_buf_printf(&text, "    v%d = alloca 8\n", k);
	kl_buf_puts(&text, "    v18 = load.i64 v1\n    v19 = load.i64 v17\n"
			   "    v20 = iadd v18, v19\n    return v20\n}\n");
	char *after;
	uint64_t n = counted_on_f(kl_cse_func, text.data, text.len, "loads",
					  &after);
	CHECK_EQ_INT(n, 1);
	CHECK(strstr(after, "v18 = load.i64 v1\n") != NULL);
	CHECK(strstr(after, "v19 = load.i64") == NULL);
	free(after);
	kl_buf_free(&text);
}

int
main(void)
{
	UNIT_RUN(test_broken_input_does_not_crash);
	UNIT_RUN(test_empty_function);
	UNIT_RUN(test_registry_names_the_counters);
	UNIT_RUN(test_scratch_reused_across_functions);
	UNIT_RUN(test_deep_tree);
	UNIT_RUN(test_facts_depth);
	UNIT_RUN(test_facts_limit);
	return unit_report("cse");
}
