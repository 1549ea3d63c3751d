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
	run_describe(&da, &a);
	run_describe(&db, &b);
	CHECK(da.len > 4 && strcmp(da.data + da.len - 4, " 0x1") == 0);
	CHECK(db.len > 4 && strcmp(db.data + db.len - 4, " 0x2") == 0);
	kl_buf_free(&da);
	kl_buf_free(&db);
	run_outcome_free(&a);
	run_outcome_free(&b);
	run_outcome_free(&a2);
	runner_free(&r);
	kl_module_free(m);
}

int
main(void)
{
	UNIT_RUN(test_every_result_compared);
	return unit_report("runs");
}
