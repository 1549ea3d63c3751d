/*
 * cmd_verify.c -- `keel verify`: check every function of each file and
 * show each error inside its function's listing (kl_verify_render).
 *
 * The "FILE:LINE: error: ..." header lines go to standard error, the
 * annotated listings to standard output: on a terminal they interleave as
 * in docs/verifier.md, and `keel verify f.kl > dump.kl` keeps only the
 * listings, which are IR (every annotation is a comment) that re-parses.
 * Both streams are flushed after each function, so the order holds when
 * they go to the same file too.
 *
 * --time reports, on standard error, the time to read and parse each
 * file and the verifier's own phase times measured inside the library
 * (kl_verify_stats), its CPU time (rendering excluded), and its speed in
 * instructions per second (wall clock).
 */
#include <string.h>

#include "cli.h"

static const char verify_help[] =
	"usage: keel verify [options] FILE...\n"
	"\n"
	"Check every invariant of the IR in each FILE ('-' for standard\n"
	"input): structure, SSA dominance, types (see docs/verifier.md).\n"
	"For each error, a line\n"
	"  FILE:LINE: error: LOCATION: MESSAGE\n"
	"goes to standard error; the function is then printed on standard\n"
	"output with each offending line underlined and followed by\n"
	"'; error:' comments: the listing is IR that parses again beside\n"
	"the module's declarations and data (docs/verifier.md says when it\n"
	"cannot). Accesses that would trap if they ran (a constant offset\n"
	"outside an alloca, a store into const data) are shown the same way\n"
	"as warnings ('warning:'), and the function still verifies.\n"
	"\n"
	"options:\n"
	"  --inst-numbers   append '; instN' to every instruction line, so\n"
	"                   instructions named in messages can be found\n"
	"  --time           print parse and verifier phase times and the\n"
	"                   verifier's speed (instructions/s) to stderr\n"
	"  -h, --help       show this help\n"
	"\n"
	"exit status: 0 if every function verifies, 1 if one does not or a\n"
	"file cannot be read or parsed, 2 on bad usage\n";

static bool
flush_both(kl_buf *headers, kl_buf *listing)
{
	bool ok = true;
	if (headers->len) {
		fwrite(headers->data, 1, headers->len, stderr);
		fflush(stderr);
	}
	if (listing->len)
		ok = cli_write_stdout(listing);
	kl_buf_reset(headers);
	kl_buf_reset(listing);
	return ok;
}

/*
 * The phase times are wall clock, measured in the library; cpu is the
 * process's CPU time over the same loop (on a busy machine the two part).
 */
static void
print_times(const char *name, double read_parse, double cpu,
	    const kl_verify_stats *st)
{
	double total = st->structure_seconds + st->analysis_seconds +
		       st->check_seconds;
	/* Milliseconds with three decimals: a small file verifies in well
	 * under a millisecond. */
	fprintf(stderr,
		"%s: read+parse %.3f ms; verify %.3f ms (structure %.3f, "
		"analyses %.3f, checks %.3f; cpu %.3f); %llu function%s, "
		"%llu block%s, %llu instruction%s; %.1f M instructions/s\n",
		name, read_parse * 1e3, total * 1e3,
		st->structure_seconds * 1e3, st->analysis_seconds * 1e3,
		st->check_seconds * 1e3, cpu * 1e3,
		(unsigned long long)st->funcs, cli_plural(st->funcs),
		(unsigned long long)st->blocks, cli_plural(st->blocks),
		(unsigned long long)st->insts, cli_plural(st->insts),
		total > 0 ? (double)st->insts / total / 1e6 : 0.0);
}

/* Verify one file; returns its exit status. */
static int
verify_file(const char *name, bool inst_numbers, bool timing)
{
	double t0 = cli_now();
	cli_file file;
	if (!cli_read_file("verify", name, &file))
		return EXIT_BAD_INPUT;
	name = file.name; /* "standard input" for "-" */
	kl_module *m = cli_parse_then_free_text(&file);
	double t1 = cli_now();
	if (!m)
		return EXIT_BAD_INPUT;
	kl_verify_stats stats = { 0 };
	kl_verify_ctx ctx = { .stats = timing ? &stats : NULL,
			      .scratch = kl_verify_scratch_new() };
	kl_diags diags = { 0 };
	kl_buf headers = { 0 }, listing = { 0 };
	int status = EXIT_OK;
	double cpu0 = cli_cpu_seconds(), rendering = 0;
	uint32_t nsyms = kl_module_num_syms(m);
	for (uint32_t s = 0; s < nsyms; s++) {
		kl_func *f = kl_sym_func(m, (kl_sym){ s });
		if (!f)
			continue;
		/* (a function with warnings only verifies, and is shown) */
		if (kl_verify_func(f, &ctx, &diags) != KL_OK)
			status = EXIT_BAD_INPUT;
		else if (diags.len == 0)
			continue;
		double r0 = cli_cpu_seconds();
		kl_verify_render(f, &diags, name, inst_numbers, &headers,
				 &listing);
		kl_diags_free(&diags);
		bool ok = flush_both(&headers, &listing);
		rendering += cli_cpu_seconds() - r0;
		if (!ok)
			break;
	}
	double cpu = cli_cpu_seconds() - cpu0 - rendering;
	if (timing)
		print_times(name, t1 - t0, cpu, &stats);
	kl_verify_scratch_free(ctx.scratch);
	kl_buf_free(&headers);
	kl_buf_free(&listing);
	kl_diags_free(&diags);
	kl_module_free(m);
	return status;
}

int
cmd_verify(int argc, char **argv)
{
	bool inst_numbers = false, timing = false;
	int nfiles = 0;
	cli_args args;
	cli_args_init(&args, argc, argv);
	while (cli_args_next(&args)) {
		if (cli_args_help(&args)) {
			fputs(verify_help, stdout);
			return EXIT_OK;
		} else if (cli_args_flag(&args, "--inst-numbers", NULL)) {
			inst_numbers = true;
		} else if (cli_args_flag(&args, "--time", NULL)) {
			timing = true;
		} else if (cli_args_is_option(&args)) {
			return cli_args_unknown(&args, "verify");
		} else {
			if ((nfiles = cli_args_keep(&args, "verify")) < 0)
				return EXIT_USAGE;
		}
	}
	if (nfiles == 0)
		return cli_usage_error("verify", "no input files");
	int status = EXIT_OK;
	for (int i = 1; i <= nfiles; i++) {
		if (verify_file(argv[i], inst_numbers, timing) != EXIT_OK)
			status = EXIT_BAD_INPUT;
	}
	return status;
}
