/*
 * fuzz_qbe.c -- libFuzzer target: the QBE IL importer on arbitrary bytes.
 *
 * Whatever the input, kl_qbe_import returns a module or diagnostics,
 * never crashes, hangs or leaks; every diagnostic renders; a module it
 * makes verifies (the importer promises verified IR) and prints.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "keel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	kl_module *m = NULL;
	kl_diags d = { 0 };
	kl_status st = kl_qbe_import((const char *)data, size, &m, &d);
	kl_buf out = { 0 };
	for (uint32_t i = 0; i < d.len; i++)
		kl_diag_render(&d.items[i], "fuzz.ssa", (const char *)data,
			       size, &out);
	if ((st == KL_OK) != (m != NULL) || (st != KL_OK && !d.len))
		abort(); /* a status that disagrees with what came back */
	if (m) {
		kl_diags vd = { 0 };
		if (kl_verify_module(m, &vd) != KL_OK)
			abort(); /* imported IR that does not verify */
		kl_diags_free(&vd);
		kl_print_module(m, NULL, &out);
	}
	kl_buf_free(&out);
	kl_diags_free(&d);
	kl_module_free(m);
	return 0;
}
