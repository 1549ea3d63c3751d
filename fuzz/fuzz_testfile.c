/*
 * fuzz_testfile.c -- libFuzzer target: `keel test` on one file of any
 * bytes, in process.
 *
 * The input is a test file as `keel test` reads it: its `test` lines
 * (cli_blank_test_lines), the module, the comments split among the
 * functions, the annotations (`; run:`, `; error:`, ...) and FileCheck
 * directives, then every command the header names, passes and the
 * interpreter included. test_run_file is the child's whole work in
 * cmd_test.c, minus the fork and the read: it gets the text as read.
 * Whatever the bytes: no crash, hang, leak or undefined behaviour; the
 * file passes or fails, and a failure says why; a second run gives the
 * same verdict and the same report (no state kept, nothing read that
 * was not written).
 *
 * Nothing is written: --bless is off (it rewrites the file). Inputs that
 * name the runner's own hooks, `test debug-crash` and `test debug-hang`,
 * which crash and spin on purpose, are skipped. The interpreter's limits
 * are the fuzz build's (src/cli/test_interpret.c, under
 * FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION): a run line may ask for
 * 100M instructions, or none as limit, which takes seconds or forever.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/cli/testcmd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
fail(const char *what, const kl_buf *first, const kl_buf *second)
{
	fprintf(stderr, "fuzz_testfile: %s\n--- first report:\n%s\n"
		"--- second report:\n%s\n", what,
		first->data ? first->data : "", second->data ? second->data
							     : "");
	abort();
}

/* Does data hold the word w? (memmem is a GNU extension.) */
static bool
contains(const uint8_t *data, size_t size, const char *w)
{
	size_t n = strlen(w);
	for (size_t i = 0; i + n <= size; i++)
		if (data[i] == (uint8_t)w[0] && memcmp(data + i, w, n) == 0)
			return true;
	return false;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (contains(data, size, "debug-crash") ||
	    contains(data, size, "debug-hang"))
		return 0;
	/* cli_file's text ends in a NUL past its length, as read */
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	cli_file file = { "fuzz.kl", text, size, 0 };

	kl_buf first = { 0 }, second = { 0 };
	int f1 = test_run_file("fuzz.kl", &file, false, false, &first);
	int f2 = test_run_file("fuzz.kl", &file, false, false, &second);
	if (f1 < 0)
		fail("a negative count of failures", &first, &second);
	if (f1 != f2 || first.len != second.len ||
	    (first.len && memcmp(first.data, second.data, first.len) != 0))
		fail("two runs of the same file differ", &first, &second);
	if (f1 && (first.len == 0 || first.data[first.len - 1] != '\n'))
		fail("a failing file's report is empty or unended", &first,
		     &second);
	kl_buf_free(&first);
	kl_buf_free(&second);
	free(text);
	return 0;
}
