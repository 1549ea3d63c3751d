/*
 * fuzz_filecheck.c -- libFuzzer target: the FileCheck engine on any
 * directives and any output.
 *
 * The input is check text, a NUL byte, then the output to check (no NUL:
 * the whole input is both). Each line of the check text is offered to
 * kl_filecheck_add_line. Whatever the bytes: no crash, hang or leak; a
 * line refused comes with a one-line message, and a caret inside it or
 * just past its end, and leaves the checker as it was (its count
 * unchanged); a line taken adds exactly one directive;
 * running twice gives the same verdict and the same report, which is
 * empty on success and ends in a newline on failure.
 *
 * Inputs are cut at 4 KiB: matching one very long line is quadratic
 * (docs/testing.md), a known cost, not a finding.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
fail(const char *what)
{
	fprintf(stderr, "fuzz_filecheck: %s\n", what);
	abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 4096)
		return 0;
	const char *text = (const char *)data;
	const char *nul = memchr(text, 0, size);
	size_t checks = nul ? (size_t)(nul - text) : size;
	const char *out = nul ? nul + 1 : text;
	size_t outlen = nul ? size - checks - 1 : size;

	kl_filecheck *fc = kl_filecheck_new();
	kl_buf err = { 0 };
	uint32_t line = 1;
	for (size_t s = 0; s < checks; line++) {
		const char *nl = memchr(text + s, '\n', checks - s);
		size_t e = nl ? (size_t)(nl - text) : checks;
		size_t before = kl_filecheck_count(fc);
		kl_buf_reset(&err);
		int rc = kl_filecheck_add_line(fc, text + s, e - s, line, &err);
		size_t after = kl_filecheck_count(fc);
		if (rc < 0 && (err.len == 0 || memchr(err.data, '\n', err.len)))
			fail("a refused line without a one-line message");
		if (rc < 0 && after != before)
			fail("a refused line changed the checker");
		if (rc < 0 && kl_filecheck_error_at(fc) > e - s)
			fail("a refused line's caret is past its end");
		if (rc == 0 && after != before)
			fail("a line that is no directive changed the checker");
		if (rc > 0 && after != before + 1)
			fail("a directive taken did not add one");
		s = e + 1;
	}
	kl_buf first = { 0 }, second = { 0 };
	bool ok1 = kl_filecheck_run(fc, out, outlen, &first);
	bool ok2 = kl_filecheck_run(fc, out, outlen, &second);
	if (ok1 != ok2 || first.len != second.len ||
	    (first.len && memcmp(first.data, second.data, first.len) != 0))
		fail("two runs on the same output differ");
	if (ok1 && first.len)
		fail("a passing run wrote a report");
	if (!ok1 && (first.len == 0 || first.data[first.len - 1] != '\n'))
		fail("a failing run's report is empty or unended");
	kl_buf_free(&first);
	kl_buf_free(&second);
	kl_buf_free(&err);
	kl_filecheck_free(fc);
	return 0;
}
