/*
 * fuzz_parse.c -- libFuzzer target: the parser on arbitrary bytes.
 *
 * Whatever the input, parsing returns a module or diagnostics, never
 * crashes, hangs or leaks; every diagnostic renders; a module that parses
 * also prints.
 */
#include <stddef.h>
#include <stdint.h>

#include "keel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	kl_module *m = NULL;
	kl_diags d = { 0 };
	kl_parse_module((const char *)data, size, NULL, &m, &d);
	kl_buf out = { 0 };
	for (uint32_t i = 0; i < d.len; i++)
		kl_diag_render(&d.items[i], "fuzz.kl", (const char *)data, size,
			       &out);
	if (m)
		kl_print_module(m, NULL, &out);
	kl_buf_free(&out);
	kl_diags_free(&d);
	kl_module_free(m);
	return 0;
}
