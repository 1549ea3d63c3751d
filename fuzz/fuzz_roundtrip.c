/*
 * fuzz_roundtrip.c -- libFuzzer target: printer and parser agree.
 *
 * For any input that parses: its printed text parses too, and printing
 * that again gives the same bytes (print -> parse -> print is a fixed
 * point), with its own numbers and, when it verifies, renumbered. A
 * failure aborts with both texts on stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Print m with opts, parse that, print it again: the same bytes. */
static void
check_fixed_point(const kl_module *m, const kl_print_options *opts)
{
	kl_buf a = { 0 }, b = { 0 };
	kl_diags d = { 0 };
	kl_print_module(m, opts, &a);
	kl_module *m2 = NULL;
	if (kl_parse_module(a.data ? a.data : "", a.len, NULL, &m2, &d) !=
	    KL_OK) {
		fprintf(stderr, "printed text does not parse:\n%s\n", a.data);
		for (uint32_t i = 0; i < d.len; i++)
			fprintf(stderr, "%u:%u: %s\n", d.items[i].line,
				d.items[i].col, d.items[i].message);
		abort();
	}
	kl_print_module(m2, opts, &b);
	if (a.len != b.len || (a.len && memcmp(a.data, b.data, a.len) != 0)) {
		fprintf(stderr, "print is not a fixed point:\n--- first\n%s\n"
			"--- second\n%s\n", a.data, b.data);
		abort();
	}
	kl_buf_free(&a);
	kl_buf_free(&b);
	kl_diags_free(&d);
	kl_module_free(m2);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	kl_module *m = NULL;
	kl_diags d = { 0 };
	kl_parse_module((const char *)data, size, NULL, &m, &d);
	kl_diags_free(&d);
	if (!m)
		return 0;
	check_fixed_point(m, NULL);
	/* renumbered too, for IR that verifies: the text parses, and
	 * renumbering it again gives the same bytes (an alias cycle, which
	 * the verifier rejects, may start elsewhere the second time) */
	if (kl_verify_module(m, NULL) == KL_OK) {
		kl_print_options renumber = { .renumber = true };
		check_fixed_point(m, &renumber);
	}
	kl_module_free(m);
	return 0;
}
