/*
 * cmd_difftest.c -- `keel difftest`: check passes by running programs.
 *
 * For each file, every defined function is run in the interpreter on a
 * few argument vectors, before and after the passes, and the outcomes must
 * be identical: the same result bits, the same trap, the same exit code,
 * the same program output. The transformed module must also verify. This
 * is how `make check` tests mem2reg on generated programs.
 *
 * The passes run twice, on two copies: as `keel opt` runs them (the
 * input verified, one report and its state for all the functions of the
 * module), and function by function with no report (as for IR nobody
 * verified, with no state kept). A pass's output must not depend on
 * which: the two results must print the same, which checks the paths a
 * pass takes only for verified IR, and whatever it keeps from one
 * function to the next, against the others.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char difftest_help[] =
	"usage: keel difftest -p PASS[,PASS...] [options] FILE...\n"
	"\n"
	"Run every function of each FILE in the interpreter, before and\n"
	"after the passes, on several argument vectors (zeros, ones, small\n"
	"and large values), and require the same results, traps and output.\n"
	"The module after the passes must verify. The passes run twice, as\n"
	"'keel opt' runs them (on verified input, with their state kept from\n"
	"one function to the next) and on each function alone as on unverified\n"
	"input; both results must print the same.\n"
	"\n"
	"options:\n"
	"  -p, --passes LIST   the passes to check\n"
	"  --fuel N            instruction budget per call (default 10M)\n"
	"  -q, --quiet         print only failures and the summary\n"
	"  -h, --help          show this help\n"
	"\n"
	"Ends with 'N passed, N failed' (one per file). Exit status 0 if\n"
	"every file passed, 1 otherwise, 2 on bad usage.\n";

typedef struct outcome {
	kl_run_status status;
	uint32_t trap, user_code, nres;
	int32_t exit_code;
	uint64_t res[8];
	kl_buf output;
} outcome;

static void
collect_output(void *ctx, const char *data, size_t len)
{
	kl_buf_append(ctx, data, len);
}

/* The k-th argument vector's value for a parameter of type t. */
static uint64_t
sample_arg(kl_type t, uint32_t vec, uint32_t i)
{
	static const int64_t ints[] = { 0, 1, -1, 7, 100, -12345, 0x7fffffff };
	int64_t v = ints[(vec + i) % (sizeof ints / sizeof ints[0])];
	if (vec == 0)
		v = 0;
	switch (t) {
	case KL_TYPE_F32: {
		float x = (float)v / 4;
		uint32_t b;
		memcpy(&b, &x, 4);
		return b;
	}
	case KL_TYPE_F64: {
		double x = (double)v / 4;
		uint64_t b;
		memcpy(&b, &x, 8);
		return b;
	}
	case KL_TYPE_I8:
		return (uint64_t)v & 0xff;
	case KL_TYPE_I16:
		return (uint64_t)v & 0xffff;
	case KL_TYPE_I32:
		return (uint64_t)v & 0xffffffff;
	default:
		return (uint64_t)v;
	}
}

static void
run_one(kl_interp *it, kl_sym s, const uint64_t *args, uint32_t n,
	outcome *o)
{
	kl_buf_reset(&o->output);
	kl_interp_reset(it);
	kl_run_result r;
	kl_interp_call(it, s, args, n, &r);
	o->status = r.status;
	o->trap = r.trap;
	o->user_code = r.user_code;
	o->exit_code = r.exit_code;
	o->nres = r.status == KL_RUN_RETURNED ? r.num_results : 0;
	for (uint32_t k = 0; k < o->nres && k < 8; k++)
		o->res[k] = r.results[k];
}

static bool
same(const outcome *a, const outcome *b)
{
	if (a->status != b->status || a->nres != b->nres ||
	    a->output.len != b->output.len ||
	    (a->output.len &&
	     memcmp(a->output.data, b->output.data, a->output.len) != 0))
		return false;
	switch (a->status) {
	case KL_RUN_RETURNED:
		for (uint32_t k = 0; k < a->nres && k < 8; k++)
			if (a->res[k] != b->res[k])
				return false;
		return true;
	case KL_RUN_TRAPPED:
		return a->trap == b->trap && a->user_code == b->user_code;
	case KL_RUN_EXITED:
		return a->exit_code == b->exit_code;
	default:
		return true;
	}
}

static void
describe(kl_buf *out, const outcome *o)
{
	switch (o->status) {
	case KL_RUN_RETURNED:
		kl_buf_puts(out, "returned");
		for (uint32_t k = 0; k < o->nres && k < 8; k++)
			kl_buf_printf(out, " 0x%llx", (unsigned long long)o->res[k]);
		break;
	case KL_RUN_TRAPPED:
		kl_buf_printf(out, "trapped %s", kl_run_trap_name(o->trap));
		break;
	case KL_RUN_EXITED:
		kl_buf_printf(out, "exited %d", o->exit_code);
		break;
	default:
		kl_buf_puts(out, "failed");
	}
}

/* Run everything in both modules; report differences. */
static bool
compare(const char *name, kl_module *before, kl_module *after, uint64_t fuel)
{
	kl_buf out_a = { 0 }, out_b = { 0 };
	outcome oa = { 0 }, ob = { 0 };
	kl_interp_options opa = { fuel, 0, 0, collect_output, &oa.output };
	kl_interp_options opb = { fuel, 0, 0, collect_output, &ob.output };
	kl_interp *ia = kl_interp_new(before, &opa);
	kl_interp *ib = kl_interp_new(after, &opb);
	bool ok = true;
	uint32_t nsyms = kl_module_num_syms(before);
	for (uint32_t s = 0; s < nsyms && ok; s++) {
		kl_func *f = kl_sym_func(before, (kl_sym){ s });
		if (!f)
			continue;
		kl_signature sig = kl_func_signature(f);
		if (sig.num_params > 16)
			continue;
		uint32_t vectors = sig.num_params ? 4 : 1;
		for (uint32_t v = 0; v < vectors && ok; v++) {
			uint64_t args[16];
			for (uint32_t i = 0; i < sig.num_params; i++)
				args[i] = sample_arg(sig.params[i], v, i);
			run_one(ia, (kl_sym){ s }, args, sig.num_params, &oa);
			run_one(ib, (kl_sym){ s }, args, sig.num_params, &ob);
			if (same(&oa, &ob))
				continue;
			size_t n;
			const char *fn = kl_sym_name(before, (kl_sym){ s }, &n);
			kl_buf_reset(&out_a);
			kl_buf_reset(&out_b);
			describe(&out_a, &oa);
			describe(&out_b, &ob);
			printf("FAIL %s: %%%.*s, argument vector %u: before the "
			       "passes %s, after %s\n", name, (int)n, fn, v,
			       out_a.data, out_b.data);
			ok = false;
		}
	}
	kl_interp_free(ia);
	kl_interp_free(ib);
	kl_buf_free(&oa.output);
	kl_buf_free(&ob.output);
	kl_buf_free(&out_a);
	kl_buf_free(&out_b);
	return ok;
}

/*
 * Pass p over every function of m: as `keel opt` runs it (verified input,
 * one report for the module), or with no report at all.
 */
static bool
run_pass(const kl_pass *p, kl_module *m, bool as_opt, const char *path)
{
	kl_pass_report rep = { 0 };
	rep.input_verified = true; /* checked before the first pass */
	bool ok = true;
	uint32_t nsyms = kl_module_num_syms(m);
	for (uint32_t s = 0; s < nsyms && ok; s++) {
		kl_func *fn = kl_sym_func(m, (kl_sym){ s });
		if (fn && p->run(fn, as_opt ? &rep : NULL) != KL_OK) {
			printf("FAIL %s: pass %s failed\n", path, p->name);
			ok = false;
		}
	}
	kl_pass_report_free(&rep);
	return ok;
}

/* The two ways of running the passes must give the same text; the first
 * line where they differ is shown. */
static bool
same_text(const char *path, kl_module *a, kl_module *b)
{
	kl_buf ta = { 0 }, tb = { 0 };
	kl_print_module(a, NULL, &ta);
	kl_print_module(b, NULL, &tb);
	bool ok = ta.len == tb.len && memcmp(ta.data, tb.data, ta.len) == 0;
	if (!ok) {
		size_t i = 0, line = 1, start = 0;
		while (i < ta.len && i < tb.len && ta.data[i] == tb.data[i]) {
			if (ta.data[i++] == '\n') {
				line++;
				start = i;
			}
		}
		size_t ea = start, eb = start;
		while (ea < ta.len && ta.data[ea] != '\n')
			ea++;
		while (eb < tb.len && tb.data[eb] != '\n')
			eb++;
		printf("FAIL %s: the passes' output differs between verified "
		       "input with state kept across functions and each "
		       "function alone, at line %zu:\n  %.*s\n  %.*s\n",
		       path, line, (int)(ea - start), ta.data + start,
		       (int)(eb - start), tb.data + start);
	}
	kl_buf_free(&ta);
	kl_buf_free(&tb);
	return ok;
}

static bool
check_file(const char *path, const kl_pass *const *passes, uint32_t npasses,
	   uint64_t fuel)
{
	cli_file f;
	if (!cli_read_file(path, &f))
		return false;
	kl_module *before = cli_parse(&f, false);
	kl_module *after = before ? cli_parse(&f, false) : NULL;
	kl_module *alone = after ? cli_parse(&f, false) : NULL;
	bool ok = before && after && alone;
	kl_diags d = { 0 };
	if (ok && kl_verify_module(before, &d) != KL_OK) {
		printf("FAIL %s: does not verify before the passes\n", path);
		ok = false;
	}
	for (uint32_t k = 0; ok && k < npasses; k++)
		ok = run_pass(passes[k], after, true, path) &&
		     run_pass(passes[k], alone, false, path);
	if (ok)
		ok = same_text(path, after, alone);
	if (ok && kl_verify_module(after, &d) != KL_OK) {
		printf("FAIL %s: does not verify after the passes:\n", path);
		for (uint32_t s = 0; s < kl_module_num_syms(after); s++) {
			kl_func *fn = kl_sym_func(after, (kl_sym){ s });
			kl_buf h = { 0 };
			if (fn && kl_verify_render(fn, &d, path, false, &h, &h))
				fwrite(h.data, 1, h.len, stdout);
			kl_buf_free(&h);
		}
		ok = false;
	}
	if (ok)
		ok = compare(path, before, after, fuel);
	kl_diags_free(&d);
	kl_module_free(before);
	kl_module_free(after);
	kl_module_free(alone);
	cli_file_free(&f);
	return ok;
}

int
cmd_difftest(int argc, char **argv)
{
	const kl_pass *passes[32];
	uint32_t npasses = 0;
	uint64_t fuel = 10000000;
	bool quiet = false;
	int nfiles = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (cli_is_help(a)) {
			fputs(difftest_help, stdout);
			return EXIT_OK;
		} else if (strcmp(a, "-p") == 0 || strcmp(a, "--passes") == 0) {
			if (++i >= argc)
				return cli_usage_error("difftest", "%s needs a "
						       "list", a);
			for (const char *s = argv[i]; *s;) {
				const char *c = strchr(s, ',');
				size_t n = c ? (size_t)(c - s) : strlen(s);
				const kl_pass *p = kl_pass_find(s, n);
				if (!p || npasses == 32)
					return cli_usage_error("difftest",
							       "unknown pass "
							       "'%.*s'", (int)n, s);
				passes[npasses++] = p;
				s += n + (c ? 1 : 0);
			}
		} else if (strcmp(a, "--fuel") == 0) {
			if (++i >= argc)
				return cli_usage_error("difftest", "--fuel needs "
						       "a number");
			fuel = strtoull(argv[i], NULL, 10);
		} else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
			quiet = true;
		} else if (a[0] == '-' && a[1]) {
			return cli_usage_error("difftest", "unknown option '%s'",
					       a);
		} else {
			nfiles++;
		}
	}
	if (npasses == 0)
		return cli_usage_error("difftest", "no passes given (-p)");
	if (nfiles == 0)
		return cli_usage_error("difftest", "no input files");
	uint32_t passed = 0, failed = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "-p") == 0 || strcmp(a, "--passes") == 0 ||
		    strcmp(a, "--fuel") == 0) {
			i++;
			continue;
		}
		if (a[0] == '-' && a[1])
			continue;
		if (check_file(a, passes, npasses, fuel)) {
			passed++;
			if (!quiet)
				printf("PASS %s\n", a);
		} else {
			failed++;
		}
		fflush(stdout);
	}
	printf("%u passed, %u failed\n", passed, failed);
	return failed ? EXIT_BAD_INPUT : EXIT_OK;
}
