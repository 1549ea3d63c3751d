/*
 * cmd_opt.c -- `keel opt`: run passes over a module and print it.
 *
 * The module is verified first (passes expect verified IR); then each pass
 * runs over every function in turn. --verify-each checks every function
 * after every pass and stops at the first broken one, showing the
 * verifier's listing; without it the result is verified once at the end
 * (as LLVM's opt does), so broken IR is never printed as if it were
 * good; --print-after shows the module after a pass (on
 * standard error, so standard output stays the final module).
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char opt_help[] =
	"usage: keel opt -p PASS[,PASS...] [options] FILE\n"
	"\n"
	"Run passes, in order, over every function of FILE ('-' for standard\n"
	"input) and print the resulting module. For the output of a front\n"
	"end that keeps its locals in memory:\n"
	"-p promote,inline,sccp,combine,licm,cse,dse,dce,simplify (locals to\n"
	"values, small callees copied in, constants folded, instructions\n"
	"made simpler, invariants out of loops, repeats, stores nothing\n"
	"reads and dead code removed, blocks merged;\n"
	"docs/passes.md). Add refine last to give integers the types\n"
	"their uses say (s32, u8, ptr: what the program means, for\n"
	"readers; it computes the same).\n"
	"\n"
	"options:\n"
	"  -p, --passes LIST      comma-separated passes to run\n"
	"  --verify-each          verify every function after every pass\n"
	"                         (else the result once, before printing)\n"
	"  --print-after PASS     print the module to standard error after\n"
	"                         PASS, one of the list (or after every\n"
	"                         pass: 'all')\n"
	"  --time-passes          report the time of each pass (stderr)\n"
	"  --stats                report the passes' counters (stderr)\n"
	"  -v, --verbose          report the passes' notes (why an alloca\n"
	"                         or a call was kept, ...) on standard\n"
	"                         error\n"
	"  --renumber             print the result with values, blocks and\n"
	"                         signature references numbered from 0, as\n"
	"                         keel cat --renumber does\n"
	"  --list                 list the passes (alone)\n"
	"  -h, --help             show this help\n"
	"\n"
	"exit status: 0 on success, 1 if the input is bad or a pass broke\n"
	"the IR (nothing is printed then), 2 on bad usage\n";

typedef struct opt_options {
	const kl_pass *passes[CLI_MAX_PASSES];
	uint32_t npasses;
	bool verify_each, time_passes, stats, verbose, renumber;
	const char *print_after; /* pass name, "all" or NULL */
	const char *file;
} opt_options;

static int
parse_pass_list(opt_options *o, const char *list)
{
	kl_buf err = { 0 };
	int st = EXIT_OK;
	if (cli_parse_passes(list, strlen(list), o->passes, &o->npasses, &err))
		st = cli_usage_error("opt", "%s", err.data);
	kl_buf_free(&err);
	return st;
}

/* The registry's counters first, zeros too, so that the lines are the
 * same whatever the module holds (no function at all included); then
 * any the registry does not name, as the pass reported them. */
static void
print_stats(const kl_pass *p, const char *label, const kl_pass_report *r)
{
	const char *const *names = p->counters;
	for (uint32_t i = 0; names && names[i]; i++)
		fprintf(stderr, "%s: %s %llu\n", label, names[i],
			(unsigned long long)kl_pass_report_get(r, names[i]));
	for (uint32_t i = 0; i < r->num_counters; i++) {
		bool named = false;
		for (uint32_t k = 0; names && names[k] && !named; k++)
			named = strcmp(names[k], r->counters[i].name) == 0;
		if (!named)
			fprintf(stderr, "%s: %s %llu\n", label,
				r->counters[i].name,
				(unsigned long long)r->counters[i].value);
	}
}

/* Verify f after the passes `after` names ("pass 'P'"); print the
 * listing and return false if broken. */
static bool
verify_after(const char *after, kl_func *f, const cli_file *file,
	     const kl_verify_ctx *ctx)
{
	kl_diags d = { 0 };
	bool ok = kl_verify_func(f, ctx, &d) == KL_OK;
	if (!ok) {
		kl_buf head = { 0 }, list = { 0 };
		kl_verify_render(f, &d, file->name, false, &head, &list);
		fprintf(stderr, "keel opt: the IR is broken after %s:\n",
			after);
		fwrite(head.data, 1, head.len, stderr);
		fwrite(list.data, 1, list.len, stderr);
		kl_buf_free(&head);
		kl_buf_free(&list);
	}
	kl_diags_free(&d);
	return ok;
}

/* How the reports name the k-th pass of the list: its name, or, for a
 * pass the list holds more than once, its name and which run this is
 * ("promote#2"), so that the blocks of two runs can be told apart. */
static void
label_pass(const opt_options *o, uint32_t k, kl_buf *out)
{
	const kl_pass *p = o->passes[k];
	uint32_t run = 0, runs = 0;
	for (uint32_t i = 0; i < o->npasses; i++) {
		if (o->passes[i] != p)
			continue;
		runs++;
		if (i <= k)
			run++;
	}
	if (runs > 1)
		kl_buf_printf(out, "%s#%u", p->name, run);
	else
		kl_buf_puts(out, p->name);
}

/* Who broke the IR, as verify_after names it: "pass 'P'", or for
 * several passes checked together "passes 'P,Q' (...)". */
static void
name_passes(const kl_pass *const *passes, uint32_t n, kl_buf *out)
{
	kl_buf_printf(out, "pass%s '", n > 1 ? "es" : "");
	for (uint32_t k = 0; k < n; k++)
		kl_buf_printf(out, "%s%s", k ? "," : "", passes[k]->name);
	kl_buf_puts(out, n > 1 ? "' (--verify-each finds the first to break "
				 "it)"
			       : "'");
}

/*
 * Run pass p, which the reports call `label`, on every function of m,
 * verifying each after it with --verify-each (adding the verifier's time
 * to *verifying). Returns false, having said why, when the pass fails or
 * breaks a function.
 */
static bool
run_pass(const opt_options *o, const kl_pass *p, const char *label,
	 kl_module *m, const cli_file *file, const kl_verify_ctx *verify,
	 kl_pass_report *rep, double *verifying)
{
	kl_buf after = { 0 };
	kl_buf_printf(&after, "pass '%s'", label);
	bool ok = true;
	uint32_t nsyms = kl_module_num_syms(m);
	for (uint32_t s = 0; ok && s < nsyms; s++) {
		kl_func *f = kl_sym_func(m, (kl_sym){ s });
		if (!f)
			continue;
		kl_status st = p->run(f, rep);
		if (st != KL_OK) {
			/* which function, and what the pass said */
			size_t n;
			const char *name = kl_sym_name(m, (kl_sym){ s }, &n);
			kl_buf spelt = { 0 };
			kl_name_format(name, n, &spelt);
			fprintf(stderr,
				"keel opt: pass '%s' failed on %s: %s\n",
				label, spelt.data, kl_status_name(st));
			kl_buf_free(&spelt);
			ok = false;
		} else if (o->verify_each) {
			double v0 = cli_now();
			ok = verify_after(after.data, f, file, verify);
			*verifying += cli_now() - v0;
		}
	}
	kl_buf_free(&after);
	return ok;
}

static int
run_passes(const opt_options *o, kl_module *m, const cli_file *file,
	   const kl_verify_ctx *verify)
{
	for (uint32_t k = 0; k < o->npasses; k++) {
		const kl_pass *p = o->passes[k];
		kl_buf label = { 0 };
		label_pass(o, k, &label);
		kl_pass_report rep = { 0 };
		rep.verbose = o->verbose;
		rep.input_verified = true; /* checked before the first pass */
		/* --verify-each's time is the verifier's, not the pass's */
		double verifying = 0, t0 = cli_now();
		bool ok = run_pass(o, p, label.data, m, file, verify, &rep,
				   &verifying);
		double t1 = cli_now();
		if (!ok) {
			kl_pass_report_free(&rep);
			kl_buf_free(&label);
			return EXIT_BAD_INPUT;
		}
		if (o->time_passes) {
			fprintf(stderr, "%s: %.3f ms\n", label.data,
				(t1 - t0 - verifying) * 1e3);
			if (o->verify_each)
				fprintf(stderr, "verify after %s: %.3f ms\n",
					label.data, verifying * 1e3);
		}
		if (o->stats)
			print_stats(p, label.data, &rep);
		if (o->verbose && rep.notes.len)
			fwrite(rep.notes.data, 1, rep.notes.len, stderr);
		if (o->print_after && (strcmp(o->print_after, "all") == 0 ||
				       strcmp(o->print_after, p->name) == 0)) {
			fprintf(stderr, "; after pass %s\n", label.data);
			cli_print_module(m, NULL, stderr, NULL);
		}
		kl_pass_report_free(&rep);
		kl_buf_free(&label);
	}
	if (o->verify_each)
		return EXIT_OK;
	/* Without --verify-each, the result once (not timed as a pass).
	 * Any pass of several may have broken it: blame them all. */
	kl_buf after = { 0 };
	name_passes(o->passes, o->npasses, &after);
	bool broken = false;
	uint32_t nsyms = kl_module_num_syms(m);
	for (uint32_t s = 0; !broken && s < nsyms; s++) {
		kl_func *f = kl_sym_func(m, (kl_sym){ s });
		broken = f && !verify_after(after.data, f, file, verify);
	}
	kl_buf_free(&after);
	return broken ? EXIT_BAD_INPUT : EXIT_OK;
}

int
cmd_opt(int argc, char **argv)
{
	opt_options o = { 0 };
	bool list = false;
	cli_args args;
	cli_args_init(&args, argc, argv);
	while (cli_args_next(&args)) {
		int passes = cli_args_option(&args, "--passes", "-p");
		int after = passes ? 0
				   : cli_args_option(&args, "--print-after",
						     NULL);
		if (cli_args_help(&args)) {
			fputs(opt_help, stdout);
			return EXIT_OK;
		} else if (passes) {
			if (passes < 0)
				return cli_usage_error("opt", "%s needs a list",
						       args.arg);
			int st = parse_pass_list(&o, args.value);
			if (st != EXIT_OK)
				return st;
		} else if (cli_args_flag(&args, "--renumber", NULL)) {
			o.renumber = true;
		} else if (cli_args_flag(&args, "--verify-each", NULL)) {
			o.verify_each = true;
		} else if (after) {
			if (after < 0)
				return cli_usage_error("opt", "--print-after "
						       "needs a pass "
						       "(or 'all')");
			o.print_after = args.value;
			if (strcmp(o.print_after, "all") != 0 &&
			    !cli_pass_find(o.print_after,
					   strlen(o.print_after))) {
				kl_buf msg = { 0 };
				cli_unknown_pass(&msg, o.print_after,
						 strlen(o.print_after));
				int st = cli_usage_error("opt",
							 "--print-after: "
							 "%s", msg.data);
				kl_buf_free(&msg);
				return st;
			}
		} else if (cli_args_flag(&args, "--time-passes", NULL)) {
			o.time_passes = true;
		} else if (cli_args_flag(&args, "--stats", NULL)) {
			o.stats = true;
		} else if (cli_args_flag(&args, "--verbose", "-v")) {
			o.verbose = true;
		} else if (cli_args_flag(&args, "--list", NULL)) {
			list = true;
		} else if (cli_args_is_option(&args)) {
			return cli_args_unknown(&args, "opt");
		} else if (o.file) {
			return cli_usage_error("opt", "one input file only");
		} else {
			o.file = args.arg;
		}
	}
	if (list) {
		/* nothing else runs: a file or option beside it is a mistake
		 * ("--", which ends the options, adds nothing) */
		for (int k = 1; k < argc; k++)
			if (strcmp(argv[k], "--list") != 0 &&
			    strcmp(argv[k], "--") != 0)
				return cli_usage_error("opt", "--list takes no "
						       "file or other "
						       "options");
		uint32_t n;
		const kl_pass *all = kl_passes(&n);
		for (uint32_t i = 0; i < n; i++)
			printf("%-12s %s\n", all[i].name, all[i].description);
		return EXIT_OK;
	}
	if (!o.file)
		return cli_usage_error("opt", "no input file");
	if (o.npasses == 0)
		return cli_usage_error("opt", "no passes given (-p)");
	/* a pass that never runs would print nothing, and say nothing */
	bool listed = !o.print_after || strcmp(o.print_after, "all") == 0;
	for (uint32_t k = 0; k < o.npasses && !listed; k++)
		listed = strcmp(o.passes[k]->name, o.print_after) == 0;
	if (!listed)
		return cli_usage_error("opt", "--print-after: pass '%s' is not "
				       "in the list (-p)", o.print_after);
	cli_file f;
	if (!cli_read_file("opt", o.file, &f))
		return EXIT_BAD_INPUT;
	kl_module *m = cli_parse_then_free_text(&f);
	int status = EXIT_BAD_INPUT;
	if (m) {
		/* passes need valid IR: the listing says what is wrong */
		if (cli_verify_module(m, f.name, "opt")) {
			/* one scratch for every verification after a pass */
			kl_verify_scratch *scratch = kl_verify_scratch_new();
			kl_verify_ctx verify = { .scratch = scratch };
			status = run_passes(&o, m, &f, &verify);
			kl_verify_scratch_free(scratch);
		}
		kl_print_options popts = { .renumber = o.renumber };
		if (status == EXIT_OK &&
		    !cli_print_module(m, &popts, stdout, f.name))
			status = EXIT_BAD_INPUT;
		kl_module_free(m);
	}
	return status;
}
