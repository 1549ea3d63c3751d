/*
 * fuzz_rewrite.c -- libFuzzer target: random edits through the rewriting
 * API on any module the parser accepts, with the checks of
 * tests/unit/rewrite_random.h after every edit (the IR and its printed
 * text agree on whether it verifies, and run alike when it does; use
 * lists stand where they say; nothing crashes). The edits' seed is a
 * hash of the input, so an input replays the same edits.
 *
 * Modules numbered sparsely get 2 edits, not 20. The parser lets a small
 * file number up to a million values or blocks (its entity budget), and
 * every check after an edit (verify, print, parse, run, analyses, some
 * 25 of them) walks those tables: linear, but 20 edits of
 * tests/filetests/interp/sparse-registers.kl took 6 s of CPU here, and
 * over libFuzzer's 10 s on a loaded machine: slow, but linear.
 */
#include <stdio.h>
#include <stdlib.h>

#include "keel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Value and block numbers, over all its functions, past which a module
 * counts as sparse: an input of at most 64 KB (-max_len) cannot hold
 * that many values written out. */
enum { SPARSE = 1 << 16 };

static void
rr_fail(const char *what, const char *text)
{
	fprintf(stderr, "fuzz_rewrite: %s\n%s", what, text ? text : "");
	abort();
}

#include "../tests/unit/rewrite_random.h"

/* The edits to make on the input: 0 if it does not parse. */
static uint32_t
edits_for(const uint8_t *data, size_t size)
{
	kl_module *m = NULL;
	if (kl_parse_module((const char *)data, size, NULL, &m, NULL) !=
	    KL_OK)
		return 0; /* (rr_run skips it too) */
	uint64_t n = 0;
	for (uint32_t s = 0, ns = kl_module_num_syms(m); s < ns; s++) {
		const kl_func *f = kl_sym_func(m, (kl_sym){ s });
		if (f)
			n += (uint64_t)kl_func_value_bound(f) +
			     kl_func_block_bound(f);
	}
	kl_module_free(m);
	return n > SPARSE ? 2 : 20;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t h = 14695981039346656037ull; /* FNV-1a */
	for (size_t k = 0; k < size; k++)
		h = (h ^ data[k]) * 1099511628211ull;
	uint32_t edits = edits_for(data, size);
	if (edits)
		rr_run((const char *)data, size, h, edits);
	return 0;
}
