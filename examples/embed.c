/*
 * embed.c -- libkeel from C, the way a front end uses it: build a function
 * with the builder (every local variable an alloca, as an unoptimised
 * front end emits it), verify it, print it, run it in the interpreter,
 * promote its locals to SSA values, and run it again.
 *
 *   make build/embed && ./build/embed [N]
 *
 * prints the function before and after promote and the sum 1 + ... + N
 * (default 10) computed by each. docs/api.md walks through this file.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "keel.h"

/*
 * int sum(int n) { int total = 0; for (int i = 1; i <= n; i++) total += i;
 *                  return total; }
 */
/* Did every call of builder b succeed? If not, say which failed first. */
static bool
built(const kl_builder *b)
{
	if (kl_builder_status(b) == KL_OK)
		return true;
	fprintf(stderr, "embed: building failed at %s: %s",
		kl_op_name(b->error_op), b->error);
	if (b->error_value.id != KL_NONE)
		fprintf(stderr, " (v%u)", b->error_value.id);
	fputc('\n', stderr);
	return false;
}

static kl_func *
build_sum(kl_module *m)
{
	const kl_type i32 = KL_TYPE_I32;
	kl_signature sig = { .params = &i32, .num_params = 1,
			     .results = &i32, .num_results = 1 };
	kl_func *f;
	if (kl_module_add_func(m, "sum", 3, &sig, &f) != KL_OK)
		return NULL;

	/* The entry block comes from the signature, with its parameters.
	 * It holds only the locals' allocas (promote takes those of the
	 * entry block) and a jump to where the code starts. The other
	 * blocks are made first and placed in the layout in print order. */
	kl_block entry = kl_func_make_entry(f);
	kl_value n = kl_block_param(f, entry, 0);
	kl_block start = kl_func_new_block(f), head = kl_func_new_block(f),
		 body = kl_func_new_block(f), done = kl_func_new_block(f);
	kl_func_append_block(f, start);
	kl_func_append_block(f, head);
	kl_func_append_block(f, body);
	kl_func_append_block(f, done);

	/* A second builder, `locals`, inserts before the entry block's
	 * jump: a local declared anywhere in the code gets its alloca there,
	 * in the order declared, while b goes on where the code is. */
	kl_builder locals, b;
	kl_builder_init(&locals, f);
	kl_builder_at_end(&locals, entry);
	kl_inst into_code = kl_build_jump(&locals,
					  (kl_block_call){ start, NULL, 0 });
	kl_builder_before(&locals, into_code);
	kl_builder_init(&b, f);
	kl_builder_at_end(&b, start);

	kl_value total = kl_build_alloca(&locals, 4, 4);
	kl_build_store(&b, KL_OP_STORE, kl_build_iconst(&b, i32, 0), total, 0);
	kl_value i = kl_build_alloca(&locals, 4, 4); /* the for's int i */
	kl_build_store(&b, KL_OP_STORE, kl_build_iconst(&b, i32, 1), i, 0);
	kl_build_jump(&b, (kl_block_call){ head, NULL, 0 });

	kl_builder_at_end(&b, head);
	kl_value more = kl_build_icmp(&b, KL_ICC_SLE,
				      kl_build_load(&b, KL_OP_LOAD, i32, i, 0),
				      n);
	kl_build_brif(&b, more, (kl_block_call){ body, NULL, 0 },
		      (kl_block_call){ done, NULL, 0 });

	kl_builder_at_end(&b, body);
	kl_value iv = kl_build_load(&b, KL_OP_LOAD, i32, i, 0);
	kl_value sum = kl_build_binary(
		&b, KL_OP_IADD, kl_build_load(&b, KL_OP_LOAD, i32, total, 0),
		iv);
	kl_build_store(&b, KL_OP_STORE, sum, total, 0);
	kl_build_store(&b, KL_OP_STORE,
		       kl_build_binary_imm(&b, KL_OP_IADD_IMM, iv, 1), i, 0);
	kl_build_jump(&b, (kl_block_call){ head, NULL, 0 });

	kl_builder_at_end(&b, done);
	kl_value result = kl_build_load(&b, KL_OP_LOAD, i32, total, 0);
	kl_build_return(&b, &result, 1);

	/* Errors are sticky: one check at the end covers every call. */
	return built(&locals) && built(&b) ? f : NULL;
}

/* Verify f; on errors print them inside the function's listing. */
static bool
verified(const kl_func *f)
{
	kl_diags diags = { 0 };
	bool ok = kl_verify_func(f, NULL, &diags) == KL_OK;
	if (!ok) {
		kl_buf text = { 0 }; /* the error lines, then the listing */
		kl_verify_render(f, &diags, "embed", false, &text, &text);
		fputs(text.data ? text.data : "", stderr);
		kl_buf_free(&text);
	}
	kl_diags_free(&diags);
	return ok;
}

/* Print f, then call it on n and print what it gave (or why it did not). */
static bool
print_and_run(const kl_module *m, const kl_func *f, int32_t n)
{
	kl_buf out = { 0 };
	kl_print_func(f, NULL, &out);
	fputs(out.data, stdout);
	kl_buf_reset(&out);

	kl_interp *it = kl_interp_new(m, NULL);
	uint64_t arg = (uint32_t)n; /* an i32 crosses as its 32 bits */
	kl_run_result res;
	bool ok = kl_interp_call(it, kl_func_sym(f), &arg, 1, &res) == KL_OK &&
		  res.status == KL_RUN_RETURNED;
	if (ok) {
		kl_interp_format_value(m, res.result_types[0], res.results[0],
				       &out);
		printf("sum(%d) = %s (%llu instructions executed)\n", (int)n,
		       out.data, (unsigned long long)res.executed);
	} else {
		kl_run_describe(it, &res, &out); /* its lines end in '\n' */
		fprintf(stderr, "embed: %s", out.data ? out.data : "");
	}
	kl_interp_free(it);
	kl_buf_free(&out);
	return ok;
}

int
main(int argc, char **argv)
{
	int32_t n = 10;
	if (argc > 1) {
		char *end;
		long v = strtol(argv[1], &end, 10);
		if (argc > 2 || end == argv[1] || *end || v < INT32_MIN ||
		    v > INT32_MAX) {
			fprintf(stderr, "usage: embed [N] (N an i32; the "
				"sum wraps as C's int would)\n");
			return 2;
		}
		n = (int32_t)v;
	}
	kl_module *m = kl_module_new();
	kl_func *f = build_sum(m);
	bool ok = f && verified(f) && print_and_run(m, f, n);
	if (ok) {
		kl_pass_report report = { 0 };
		report.input_verified = true; /* verified() said so */
		kl_status st = kl_promote_func(f, &report);
		printf("\npromote: %llu allocas promoted, %llu block "
		       "parameters made\n",
		       (unsigned long long)kl_pass_report_get(&report,
							      "promoted"),
		       (unsigned long long)kl_pass_report_get(&report,
							      "params"));
		kl_pass_report_free(&report);
		ok = st == KL_OK && verified(f) && print_and_run(m, f, n);
	}
	kl_module_free(m);
	return ok ? 0 : 1;
}
