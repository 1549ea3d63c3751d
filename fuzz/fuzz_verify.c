/*
 * fuzz_verify.c -- libFuzzer target: the verifier (and what runs after
 * it) on any module the parser accepts.
 *
 * The verifier must report, never crash, on anything; its listing must
 * render, for the whole module as for each function. A module that verifies
 * must survive promote and still verify, and must run in the interpreter (with
 * a small fuel budget) without crashing keel.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	kl_module *m = NULL;
	kl_diags d = { 0 };
	kl_parse_module((const char *)data, size, NULL, &m, &d);
	kl_diags_free(&d);
	if (!m)
		return 0;
	kl_buf out = { 0 }, all = { 0 };
	bool ok = kl_verify_module(m, &d) == KL_OK;
	uint32_t nsyms = kl_module_num_syms(m);
	for (uint32_t s = 0; s < nsyms; s++) {
		kl_func *f = kl_sym_func(m, (kl_sym){ s });
		if (f)
			kl_verify_render(f, &d, "fuzz.kl", true, &out, &out);
	}
	/* the module at once renders what the functions one by one do */
	kl_verify_render_module(m, &d, "fuzz.kl", true, &all, &all);
	if (out.len != all.len ||
	    (out.len && memcmp(out.data, all.data, out.len) != 0)) {
		fprintf(stderr, "kl_verify_render_module differs:\n%s\n--- "
			"one by one:\n%s\n", all.data, out.data);
		abort();
	}
	kl_buf_free(&all);
	kl_diags_free(&d);
	if (ok) {
		kl_interp_options opts = { 0 };
		opts.fuel = 10000;
		opts.max_memory = 1 << 20;
		kl_interp *it = kl_interp_new(m, &opts);
		for (uint32_t s = 0; s < nsyms; s++) {
			kl_func *f = kl_sym_func(m, (kl_sym){ s });
			if (!f)
				continue;
			kl_signature sig = kl_func_signature(f);
			uint64_t args[8] = { 0 };
			if (sig.num_params <= 8) {
				kl_run_result r;
				kl_interp_call(it, (kl_sym){ s }, args,
					       sig.num_params, &r);
				kl_run_describe(it, &r, &out);
			}
		}
		kl_interp_free(it);
		kl_promote_module(m, NULL);
		if (kl_verify_module(m, &d) != KL_OK) {
			kl_buf_reset(&out);
			kl_print_module(m, NULL, &out);
			fprintf(stderr,
				"promote broke a verified module:\n%s\n",
				out.data);
			abort();
		}
		kl_diags_free(&d);
	}
	kl_buf_free(&out);
	kl_module_free(m);
	return 0;
}
