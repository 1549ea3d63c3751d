/*
 * pass_checks.h -- checks every registered pass must pass through the
 * API, shared by the unit tests of the passes: a function left alone
 * stays as it was (with a note, and without a report), a function with
 * no body is no work, the registry names the pass's counters in order,
 * and scratch kept in a report over functions of changing size gives
 * what fresh scratch gives.
 */
#ifndef KEEL_PASS_CHECKS_H
#define KEEL_PASS_CHECKS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keel.h"
#include "parsed.h"
#include "unit.h"

/* run leaves f as it was, counts nothing under counter, and with
 * report->verbose writes a note holding note; with no report too. */
static inline void
check_left_alone(kl_pass_fn run, kl_func *f, const char *note,
		 const char *counter)
{
	char *before = printed(f);
	kl_pass_report rep = { 0 };
	rep.verbose = true;
	CHECK_EQ_INT(run(f, &rep), KL_OK);
	CHECK(rep.notes.data && strstr(rep.notes.data, note) != NULL);
	CHECK_EQ_INT(kl_pass_report_get(&rep, counter), 0);
	CHECK_EQ_INT(kl_pass_report_get(&rep, "blocks"), 0);
	char *after = printed(f);
	CHECK_EQ_STR(after, before);
	free(after);
	kl_pass_report_free(&rep);
	CHECK_EQ_INT(run(f, NULL), KL_OK);
	after = printed(f);
	CHECK_EQ_STR(after, before);
	free(after);
	free(before);
}

/* %f of text, which does not verify: run on it twice, without a report
 * and with one, then on a fresh parse with a report saying it verified
 * (a caller's mistake), returns KL_OK and does not crash (the sanitizer
 * builds run this); what it makes of it is unspecified. */
static inline void
check_broken_input(kl_pass_fn run, const char *text)
{
	for (int verified = 0; verified < 2; verified++) {
		kl_module *m = parse_text(text, strlen(text));
		kl_func *f = func_of(m, "f");
		CHECK(f && !verifies(f));
		kl_pass_report rep = { 0 };
		rep.input_verified = verified;
		if (f) {
			CHECK_EQ_INT(run(f, verified ? &rep : NULL), KL_OK);
			CHECK_EQ_INT(run(f, &rep), KL_OK);
		}
		kl_pass_report_free(&rep);
		kl_module_free(m);
	}
}

/* A function with no body yet: nothing to do, nothing counted. */
static inline void
check_empty_function(kl_pass_fn run, const char *counter)
{
	kl_module *m = kl_module_new();
	kl_signature sig = { 0 };
	kl_func *f = NULL;
	CHECK_EQ_INT(kl_module_add_func(m, "empty", 5, &sig, &f), KL_OK);
	if (f) {
		kl_pass_report rep = { 0 };
		CHECK_EQ_INT(run(f, &rep), KL_OK);
		CHECK_EQ_INT(kl_pass_report_get(&rep, counter), 0);
		kl_pass_report_free(&rep);
	}
	kl_module_free(m);
}

/* run on %f of text, which must verify after: its counter, and (if
 * after is not NULL) f printed (the caller frees it). */
static inline uint64_t
counted_on_f(kl_pass_fn run, const char *text, size_t len,
	     const char *counter, char **after)
{
	kl_module *m = parse_text(text, len);
	kl_func *f = func_of(m, "f");
	CHECK(f != NULL);
	uint64_t n = 0;
	if (after)
		*after = NULL;
	if (f) {
		kl_pass_report rep = { 0 };
		CHECK_EQ_INT(run(f, &rep), KL_OK);
		n = kl_pass_report_get(&rep, counter);
		CHECK(verifies(f));
		if (after)
			*after = printed(f);
		kl_pass_report_free(&rep);
	}
	kl_module_free(m);
	return n;
}

/* The registry's pass called name runs run and names counters (ending
 * with NULL), in order. */
static inline void
check_registry(const char *name, kl_pass_fn run, const char *const *counters)
{
	const kl_pass *p = kl_pass_find(name, strlen(name));
	CHECK(p != NULL);
	if (!p)
		return;
	CHECK(p->run == run);
	uint32_t k = 0;
	for (; counters[k]; k++)
		CHECK(p->counters[k] &&
		      strcmp(p->counters[k], counters[k]) == 0);
	CHECK(p->counters[k] == NULL);
}

/*
 * Functions %f0 .. %f(n-1) into text, each a loop counting v1 down from
 * its argument and carrying sizes[k] more parameters, v10 ..., which
 * start as init (defined by the line `entry` of block0, if any) and go
 * round the loop through `iadd_imm p, step`. The loop's exit returns v1,
 * or with return_carried the first stepped value.
 */
static inline void
loops_text(kl_buf *text, const int *sizes, int n, const char *entry,
	   const char *init, int step, bool return_carried)
{
	for (int k = 0; k < n; k++) {
		int m = sizes[k];
		kl_buf_printf(text, "function %%f%d(i64) -> i64 {\n"
				    "block0(v0: i64):\n%s    jump block1(v0",
			      k, entry);
		for (int j = 0; j < m; j++)
			kl_buf_printf(text, ", %s", init);
		kl_buf_printf(text, ")\n\nblock1(v1: i64");
		for (int j = 0; j < m; j++)
			kl_buf_printf(text, ", v%d: i64", 10 + j);
		kl_buf_printf(text, "):\n    v2 = iadd_imm v1, -1\n");
		for (int j = 0; j < m; j++)
			kl_buf_printf(text, "    v%d = iadd_imm v%d, %d\n",
				      10 + m + j, 10 + j, step);
		kl_buf_printf(text, "    brif v2, block1(v2");
		for (int j = 0; j < m; j++)
			kl_buf_printf(text, ", v%d", 10 + m + j);
		kl_buf_printf(text,
			      "), block2\n\nblock2:\n    return v%d\n}\n\n",
			      return_carried && m ? 10 + m : 1);
	}
}

/*
 * Functions %f0 .. %f(n-1) of text, run one after the other with one
 * report (its scratch grows and shrinks, stale marks left in it) print
 * as each does run alone with no report, verify, and hold `holds`. The
 * report, with its counters, is the caller's to read and free.
 */
static inline void
check_scratch_reused(kl_pass_fn run, const kl_buf *text, int n,
		     const char *holds, kl_pass_report *rep)
{
	kl_module *kept = parse_text(text->data, text->len);
	kl_module *fresh = parse_text(text->data, text->len);
	for (int k = 0; k < n; k++) {
		char name[16];
		snprintf(name, sizeof name, "f%d", k);
		kl_func *a = func_of(kept, name), *b = func_of(fresh, name);
		CHECK_EQ_INT(run(a, rep), KL_OK);
		CHECK_EQ_INT(run(b, NULL), KL_OK);
		char *pa = printed(a), *pb = printed(b);
		CHECK_EQ_STR(pa, pb);
		CHECK(strstr(pa, holds) != NULL);
		free(pa);
		free(pb);
		CHECK(verifies(a));
	}
	kl_module_free(kept);
	kl_module_free(fresh);
}

#endif
