/*
 * cmd_difftest.c -- `keel difftest`: check passes by running programs.
 *
 * For each file, every defined function is run in the interpreter on a
 * few argument vectors, before and after the passes, and the outcomes must
 * be identical: the same result bits, the same trap, the same exit code,
 * the same program output. The transformed module must also verify. This
 * is how `make check` tests mem2reg on generated programs. Calls that say
 * nothing about the program (out of fuel, over a limit) or whose outcome
 * depends on object ids are not compared (runs.h, run_judge_excuse).
 *
 * The passes run twice, on two copies: as `keel opt` runs them (the
 * input verified, one report and its state for all the functions of the
 * module), and function by function with no report (as for IR nobody
 * verified, with no state kept). A pass's output must not depend on
 * which: the two results must print the same, which checks the paths a
 * pass takes only for verified IR, and whatever it keeps from one
 * function to the next, against the others.
 *
 * With --against, the module after is another file, what a pass of
 * one's own (outside the registry) made: each function is compared with
 * the function of the same name there.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "runs.h"

static const char difftest_help[] =
	"usage: keel difftest -p PASS[,PASS...] [options] FILE...\n"
	"       keel difftest --against AFTER [options] FILE\n"
	"\n"
	"Run every function of each FILE ('-' for standard input, named\n"
	"once) in the interpreter, before and after the passes, on several\n"
	"argument vectors (eight: zeros; 1, 2, 3...; mixes of signs and\n"
	"sizes, small ones too),\n"
	"and require the same results, traps and output: a FAIL line for\n"
	"each function that differs (its first call that does), up to 20,\n"
	"then a count. A file that cannot be read or parsed fails (a FAIL\n"
	"line, the error on standard error).\n"
	"Not called: functions of more than 16 parameters, or with a\n"
	"parameter of a type with no sample values. Not compared:\n"
	"calls the interpreter cannot run before the passes (a call to an\n"
	"external function it does not provide), calls that run out of fuel\n"
	"or over the call depth or memory limit before the passes, and\n"
	"calls whose outcome depends on the interpreter's object ids (a\n"
	"pointer's bits), which a pass that removes allocas changes: a call\n"
	"that does something else once an alloca is added before every\n"
	"alloca, or once a symbol is added too. The PASS line counts them.\n"
	"Input that does not verify fails, with the verifier's listing.\n"
	"The module after the passes must verify. The passes run twice, as\n"
	"'keel opt' runs them (on verified input, with their state kept from\n"
	"one function to the next) and on each function alone as on "
	"unverified\n"
	"input; both results must print the same.\n"
	"With --against AFTER, the module after is the file AFTER, as a\n"
	"pass of one's own left FILE: each function of FILE is compared with\n"
	"the function of the same name and signature in AFTER, which must\n"
	"verify too.\n"
	"\n"
	"options:\n"
	"  -p, --passes LIST   the passes to check\n"
	"  --against AFTER     compare FILE with AFTER instead of with what\n"
	"                      passes make of it\n"
	"  --fuel N            instruction budget per call "
	"(default 10M; 0: no\n"
	"                      limit); a call that ran out of it, or over the\n"
	"                      memory limit, only after the passes runs again\n"
	"                      with 8 times the fuel and twice the memory\n"
	"                      (the same call depth) and must then do what it\n"
	"                      did before\n"
	"  -q, --quiet         print only failures and the summary\n"
	"  -h, --help          show this help\n"
	"\n"
	"Ends with 'N passed, N failed' (one per file). Exit status 0 if\n"
	"every file passed, 1 otherwise, 2 on bad usage.\n";

/* Why a call was not compared. */
enum skip {
	SKIP_LIMIT_BEFORE, /* out of fuel or over a limit before the passes */
	SKIP_FAILED_BEFORE, /* the interpreter could not run it before */
	SKIP_OBJECT_IDS,   /* its outcome depends on object ids */
	NSKIPS,
};

static const char *const skip_text[NSKIPS] = {
	"out of fuel or over a limit before the passes",
	("that the interpreter could not run before the passes (such as a "
	 "call to an external function it does not provide)"),
	"depending on object ids",
};

/* The probes' module: the file parsed again (runs.h). */
static kl_module *
parse_again(void *file)
{
	return cli_parse(file, false);
}

/* The function of after that stands for symbol s of before: the one of
 * the same name and signature; none (said, if say) if there is no such
 * one. */
static kl_sym
counterpart(const char *path, const char *after_path, kl_module *before,
	    kl_module *after, uint32_t s, bool say)
{
	size_t n;
	const char *name = kl_sym_name(before, (kl_sym){ s }, &n);
	kl_sym t = kl_module_lookup(after, name, n);
	const char *why = NULL;
	if (t.id == KL_NONE || !kl_sym_func(after, t)) {
		why = "is not a function of";
	} else {
		kl_signature a = kl_sym_signature(before, (kl_sym){ s });
		kl_signature b = kl_sym_signature(after, t);
		bool same = a.num_params == b.num_params &&
			    a.num_results == b.num_results &&
			    a.variadic == b.variadic;
		/* the runs read machine classes: an s32 for an i32 is
		 * the same signature (docs/ir.md, "Refined types") */
		for (uint32_t k = 0; same && k < a.num_params; k++)
			same = kl_type_class(before, a.params[k]) ==
			       kl_type_class(after, b.params[k]);
		for (uint32_t k = 0; same && k < a.num_results; k++)
			same = kl_type_class(before, a.results[k]) ==
			       kl_type_class(after, b.results[k]);
		if (!same)
			why = "has another signature in";
	}
	if (!why || !say)
		return why ? KL_NO_SYM : t;
	kl_buf spelt = { 0 };
	kl_name_format(name, n, &spelt);
	printf("FAIL %s: %s %s %s\n", path, spelt.data, why, after_path);
	kl_buf_free(&spelt);
	return KL_NO_SYM;
}

/* The most functions a file's FAIL lines name; past them one line
 * counts the rest. Enough to see a pattern, not a screenful per file. */
enum { MAX_FUNC_FAILS = 20 };

/* Run every function of both modules on every vector; report, for each
 * function, the first call that differs (up to MAX_FUNC_FAILS of them).
 * after_path names the module after when it is a file of its own
 * (--against), else NULL: the passes made it. */
static bool
compare(const cli_file *file, const char *after_path, kl_module *before,
	kl_module *after, uint64_t fuel, uint32_t *skipped,
	uint32_t *not_called, uint32_t *calls)
{
	run_judge judge;
	run_judge_init(&judge, after, fuel, parse_again, (void *)file);
	runner rb, ra;
	runner_init(&rb, before, fuel, RUN_MEMORY);
	runner_init(&ra, after, fuel, RUN_MEMORY);
	run_outcome ob = { 0 }, oa = { 0 };
	bool ok = true;
	uint32_t nfailed = 0; /* functions that differ */
	uint32_t nsyms = kl_module_num_syms(before);
	for (uint32_t s = 0; s < nsyms; s++) {
		kl_func *f = kl_sym_func(before, (kl_sym){ s });
		if (!f)
			continue;
		kl_sym s_after = counterpart(
			file->name,
			after_path ? after_path : "the module after the passes",
			before, after, s, nfailed < MAX_FUNC_FAILS);
		if (s_after.id == KL_NONE) {
			/* (counterpart said why, under the cap) */
			ok = false;
			nfailed++;
			continue;
		}
		if (!run_callable(before, f)) {
			(*not_called)++;
			continue;
		}
		bool same = true;
		for (uint32_t v = 0; v < run_nvectors(f) && same; v++) {
			(*calls)++;
			run_call(&rb, (kl_sym){ s }, v, &ob);
			if (!run_finished(&ob)) {
				skipped[ob.status == KL_RUN_FAILED
						? SKIP_FAILED_BEFORE
						: SKIP_LIMIT_BEFORE]++;
				continue;
			}
			run_call(&ra, s_after, v, &oa);
			if (run_same(&ob, &oa))
				continue;
			enum run_excuse why = run_judge_excuse(
				&judge, (kl_sym){ s }, s_after, v, &ob, &oa);
			if (why == RUN_EXCUSE_OBJECT_IDS)
				skipped[SKIP_OBJECT_IDS]++;
			if (why != RUN_NOT_EXCUSED)
				continue;
			same = ok = false;
			if (++nfailed > MAX_FUNC_FAILS)
				continue;
			kl_buf da = { 0 }, db = { 0 }, spelt = { 0 };
			run_describe_call(&spelt, before, (kl_sym){ s }, v);
			kl_signature sig = kl_func_signature(f);
			size_t from = run_output_difference(&ob, &oa);
			run_describe(&db, before, sig, &ob, from);
			run_describe(&da, before, sig, &oa, from);
			if (after_path)
				printf("FAIL %s: %s (argument vector %u): %s "
				       "in %s, %s in %s\n", file->name,
				       spelt.data, v, db.data, file->name,
				       da.data, after_path);
			else
				printf("FAIL %s: %s (argument vector %u): "
				       "before the passes %s, after %s\n",
				       file->name, spelt.data, v, db.data,
				       da.data);
			kl_buf_free(&da);
			kl_buf_free(&db);
			kl_buf_free(&spelt);
		}
	}
	if (nfailed > MAX_FUNC_FAILS)
		printf("FAIL %s: and %u more functions differ\n", file->name,
		       nfailed - MAX_FUNC_FAILS);
	runner_free(&rb);
	runner_free(&ra);
	run_judge_free(&judge);
	run_outcome_free(&ob);
	run_outcome_free(&oa);
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
		kl_status st = fn ? p->run(fn, as_opt ? &rep : NULL) : KL_OK;
		if (st != KL_OK) {
			size_t n;
			const char *name = kl_sym_name(m, (kl_sym){ s }, &n);
			kl_buf spelt = { 0 };
			kl_name_format(name, n, &spelt);
			printf("FAIL %s: pass '%s' failed on %s (%s): %s\n",
			       path, p->name, spelt.data,
			       as_opt ? "as keel opt runs it" : "alone",
			       kl_status_name(st));
			kl_buf_free(&spelt);
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
	uint32_t line;
	cli_line la, lb;
	bool ok = !cli_first_difference(ta.data, ta.len, tb.data, tb.len, &line,
					&la, &lb);
	if (!ok)
		printf("FAIL %s: the passes' output differs between verified "
		       "input with state kept across functions and each "
		       "function alone, at line %u:\n  %.*s\n  %.*s\n",
		       path, line, la.len, la.text, lb.len, lb.text);
	kl_buf_free(&ta);
	kl_buf_free(&tb);
	return ok;
}

/* "FAIL path: WHAT does not verify WHEN:" and the listings of the
 * functions of m (the file m_path) that d has errors in. */
static void
fail_verify(const char *path, const char *m_path, const char *when,
	    kl_module *m, const kl_diags *d)
{
	if (strcmp(path, m_path) == 0)
		printf("FAIL %s: does not verify%s:\n", path, when);
	else
		printf("FAIL %s: %s does not verify%s:\n", path, m_path, when);
	kl_buf h = { 0 };
	kl_verify_render_module(m, d, m_path, false, &h, &h);
	fwrite(h.data, 1, h.len, stdout);
	kl_buf_free(&h);
}

/* What one file's comparison left out, for its PASS line. */
typedef struct tally {
	uint32_t skipped[NSKIPS];
	uint32_t not_called; /* functions: no sample arguments for them */
	uint32_t calls;      /* calls made before the passes */
} tally;

/* File path read and parsed, or NULL with a FAIL line. The line names
 * the file checked, failing: standard output names every file that
 * failed, the module after (--against) included. */
static kl_module *
read_module(const char *failing, const char *path, cli_file *f)
{
	const char *name = cli_input_name(path);
	bool other = strcmp(failing, name) != 0;
	if (!cli_read_file("difftest", path, f)) {
		printf("FAIL %s: cannot read %s\n", failing,
		       other ? name : "it");
		return NULL;
	}
	kl_module *m = cli_parse(f, false);
	if (!m)
		printf("FAIL %s: %s%sdoes not parse\n", failing,
		       other ? name : "", other ? " " : "");
	return m;
}

/* The module after: the passes run over a copy of the file (twice, the
 * two ways, which must agree), or the file against names; NULL with a
 * FAIL line if it cannot be had. */
static kl_module *
module_after(const char *path, cli_file *f, const char *against,
	     cli_file *af, const kl_pass *const *passes, uint32_t npasses)
{
	if (against)
		return read_module(path, against, af);
	kl_module *after = cli_parse(f, false);
	kl_module *alone = cli_parse(f, false);
	bool ok = after && alone;
	for (uint32_t k = 0; ok && k < npasses; k++)
		ok = run_pass(passes[k], after, true, path) &&
		     run_pass(passes[k], alone, false, path);
	if (ok)
		ok = same_text(path, after, alone);
	kl_module_free(alone);
	if (!ok) {
		kl_module_free(after);
		return NULL;
	}
	return after;
}

static bool
check_file(const char *path, const char *against,
	   const kl_pass *const *passes, uint32_t npasses, uint64_t fuel,
	   tally *t)
{
	cli_file f = { 0 }, af = { 0 };
	kl_module *before = read_module(cli_input_name(path), path, &f);
	if (!before) {
		cli_file_free(&f);
		return false;
	}
	path = cli_input_name(path);
	const char *after_path = against ? cli_input_name(against) : NULL;
	kl_diags d = { 0 };
	bool ok = true;
	if (kl_verify_module(before, &d) != KL_OK) {
		fail_verify(path, path, against ? "" : " before the passes",
			    before, &d);
		ok = false;
	}
	kl_module *after = ok ? module_after(path, &f, against, &af, passes,
					     npasses)
			      : NULL;
	ok = ok && after;
	if (ok && kl_verify_module(after, &d) != KL_OK) {
		fail_verify(path, against ? after_path : path,
			    against ? "" : " after the passes", after, &d);
		ok = false;
	}
	if (ok)
		ok = compare(&f, after_path, before, after, fuel, t->skipped,
			     &t->not_called, &t->calls);
	kl_diags_free(&d);
	kl_module_free(before);
	kl_module_free(after);
	cli_file_free(&f);
	cli_file_free(&af);
	return ok;
}

/* "PASS file", and what was not compared, by reason. */
static void
print_pass(const char *path, const tally *t)
{
	kl_buf why = { 0 };
	if (t->calls == 0 && t->not_called == 0)
		kl_buf_puts(&why, "no function to call");
	if (t->not_called)
		kl_buf_printf(&why, "%u function%s not called (more than %d "
			      "parameters, or one of a type with no sample "
			      "values)", t->not_called,
			      t->not_called == 1 ? "" : "s", RUN_MAX_PARAMS);
	for (int k = 0; k < NSKIPS; k++)
		if (t->skipped[k])
			kl_buf_printf(&why, "%s%u call%s %s",
				      why.len ? "; " : "", t->skipped[k],
				      t->skipped[k] == 1 ? "" : "s",
				      skip_text[k]);
	if (why.len)
		printf("PASS %s (not compared: %s)\n", path, why.data);
	else
		printf("PASS %s\n", path);
	kl_buf_free(&why);
}

int
cmd_difftest(int argc, char **argv)
{
	const kl_pass *passes[CLI_MAX_PASSES];
	uint32_t npasses = 0;
	uint64_t fuel = 10000000;
	const char *against = NULL;
	bool quiet = false;
	int nfiles = 0;
	cli_args args;
	cli_args_init(&args, argc, argv);
	while (cli_args_next(&args)) {
		int list = cli_args_option(&args, "--passes", "-p");
		int fuel_given = list ? 0
				      : cli_args_option(&args, "--fuel", NULL);
		int against_given = list || fuel_given
					    ? 0
					    : cli_args_option(
						      &args, "--against", NULL);
		if (cli_args_help(&args)) {
			fputs(difftest_help, stdout);
			return EXIT_OK;
		} else if (list) {
			if (list < 0)
				return cli_usage_error("difftest", "%s needs a "
						       "list", args.arg);
			kl_buf err = { 0 };
			if (cli_parse_passes(args.value, strlen(args.value),
					     passes, &npasses, &err)) {
				int st = cli_usage_error("difftest", "%s",
							 err.data);
				kl_buf_free(&err);
				return st;
			}
		} else if (against_given) {
			if (against_given < 0 || !*args.value)
				return cli_usage_error("difftest", "--against "
						       "needs a file");
			if (against)
				return cli_usage_error("difftest", "--against "
						       "given twice: one file "
						       "is what the passes "
						       "made");
			against = args.value;
		} else if (fuel_given) {
			if (!cli_option_count("difftest", "--fuel", fuel_given,
					      args.value, 0, UINT64_MAX, &fuel))
				return EXIT_USAGE;
		} else if (cli_args_flag(&args, "--quiet", "-q")) {
			quiet = true;
		} else if (cli_args_is_option(&args)) {
			return cli_args_unknown(&args, "difftest");
		} else {
			if ((nfiles = cli_args_keep(&args, "difftest")) < 0)
				return EXIT_USAGE;
		}
	}
	if (npasses == 0 && !against)
		return cli_usage_error("difftest", "no passes given (-p), and "
				       "no file to compare with (--against)");
	if (npasses && against)
		return cli_usage_error("difftest", "-p runs passes, --against "
				       "names their result: give one of them");
	if (nfiles == 0)
		return cli_usage_error("difftest", "no input files");
	if (against && nfiles > 1)
		return cli_usage_error("difftest", "--against compares one "
				       "file with AFTER, not %d", nfiles);
	if (against && strcmp(against, "-") == 0 &&
	    strcmp(argv[1], "-") == 0)
		return cli_usage_error("difftest", "standard input can be "
				       "read once: FILE and AFTER are both "
				       "'-'");
	uint32_t passed = 0, failed = 0;
	for (int i = 1; i <= nfiles; i++) {
		const char *a = argv[i];
		tally t = { 0 };
		if (check_file(a, against, passes, npasses, fuel, &t)) {
			passed++;
			if (!quiet)
				print_pass(cli_input_name(a), &t);
		} else {
			failed++;
		}
		fflush(stdout);
	}
	printf("%u passed, %u failed\n", passed, failed);
	return failed ? EXIT_BAD_INPUT : EXIT_OK;
}
