/*
 * unit.h -- the smallest test harness that does the job.
 *
 * Each tests/unit/test_*.c file is its own program: it defines test
 * functions, lists them in main() with UNIT_RUN, and ends with
 * `return unit_report("name");`. A failed CHECK prints the file, line and
 * expression and marks the current test failed; the test keeps running so
 * one run shows every broken expectation. The final line reads
 * "N passed, N failed" like every other test runner of keel.
 *
 * These macros never rely on assert(): NDEBUG must not delete a test.
 */
#ifndef KEEL_UNIT_H
#define KEEL_UNIT_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int unit_passed, unit_failed, unit_current_failed;

#define CHECK(cond)                                                          \
	do {                                                                 \
		if (!(cond)) {                                               \
			fprintf(stderr, "%s:%d: check failed: %s\n",         \
				__FILE__, __LINE__, #cond);                  \
			unit_current_failed = 1;                             \
		}                                                            \
	} while (0)

#define CHECK_EQ_INT(a, b)                                                   \
	do {                                                                 \
		long long unit_a = (long long)(a), unit_b = (long long)(b);  \
		if (unit_a != unit_b) {                                      \
			fprintf(stderr, "%s:%d: %s == %s failed: %lld != %lld\n", \
				__FILE__, __LINE__, #a, #b, unit_a, unit_b); \
			unit_current_failed = 1;                             \
		}                                                            \
	} while (0)

#define CHECK_EQ_STR(a, b)                                                   \
	do {                                                                 \
		const char *unit_sa = (a), *unit_sb = (b);                   \
		if (!unit_sa || !unit_sb || strcmp(unit_sa, unit_sb) != 0) { \
			fprintf(stderr,                                      \
				"%s:%d: %s == %s failed:\n--- got\n%s\n"     \
				"--- expected\n%s\n",                        \
				__FILE__, __LINE__, #a, #b,                  \
				unit_sa ? unit_sa : "(null)",                \
				unit_sb ? unit_sb : "(null)");               \
			unit_current_failed = 1;                             \
		}                                                            \
	} while (0)

#define UNIT_RUN(fn)                                                         \
	do {                                                                 \
		unit_current_failed = 0;                                     \
		fn();                                                        \
		if (unit_current_failed) {                                   \
			fprintf(stderr, "FAIL %s\n", #fn);                   \
			unit_failed++;                                       \
		} else {                                                     \
			unit_passed++;                                       \
		}                                                            \
	} while (0)

static inline int
unit_report(const char *suite)
{
	printf("%s: %d passed, %d failed\n", suite, unit_passed, unit_failed);
	return unit_failed ? 1 : 0;
}

#endif /* KEEL_UNIT_H */
