/*
 * fuzz_rewrite.c -- libFuzzer target: random edits through the rewriting
 * API on any module the parser accepts, with the checks of
 * tests/unit/rewrite_random.h after every edit (the IR and its printed
 * text agree on whether it verifies, and run alike when it does; use
 * lists stand where they say; nothing crashes). The edits' seed is a
 * hash of the input, so an input replays the same edits.
 */
#include <stdio.h>
#include <stdlib.h>

#include "keel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
rr_fail(const char *what, const char *text)
{
	fprintf(stderr, "fuzz_rewrite: %s\n%s", what, text ? text : "");
	abort();
}

#include "../tests/unit/rewrite_random.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t h = 14695981039346656037ull; /* FNV-1a */
	for (size_t k = 0; k < size; k++)
		h = (h ^ data[k]) * 1099511628211ull;
	rr_run((const char *)data, size, h, 20);
	return 0;
}
