/*
 * cmd_cat.c -- `keel cat`: parse files and print them in canonical form.
 */
#include <string.h>

#include "cli.h"

static const char cat_help[] =
	"usage: keel cat [options] FILE...\n"
	"\n"
	"Parse each FILE ('-' for standard input) and print it in keel's\n"
	"canonical text form. Parsing then printing canonical text gives the\n"
	"same bytes back.\n"
	"\n"
	"options:\n"
	"  --inst-numbers   append '; instN' to every instruction line\n"
	"  --renumber       number values, blocks and signature references\n"
	"                   from 0 (blocks in layout order, the others as\n"
	"                   they first appear), so that text left sparse by\n"
	"                   a pass reads back\n"
	"  --time           report parse and print times on standard error\n"
	"                   (print includes writing the text out, which\n"
	"                   happens as it is printed)\n"
	"  -h, --help       show this help\n"
	"\n"
	"exit status: 0 on success, 1 if a file has errors, 2 on bad usage\n";

/* Parse and print speed: MB/s, instructions/s, memory per instruction. */
static void
cli_report_times(const cli_file *f, const kl_module *m, double parse,
		 double print)
{
	kl_module_stats st;
	kl_module_get_stats(m, &st);
	double mb = (double)f->len / 1e6;
	fprintf(stderr, "%s: %.1f MB, %llu instruction%s\n", f->name, mb,
		(unsigned long long)st.insts, cli_plural(st.insts));
	fprintf(stderr, "  parse   %8.2f ms  %7.1f MB/s  %6.2f M inst/s\n",
		parse * 1e3, mb / parse, (double)st.insts / parse / 1e6);
	fprintf(stderr, "  print   %8.2f ms  %7.1f MB/s\n", print * 1e3,
		mb / print);
	if (st.insts) {
		double n = (double)st.insts;
		fprintf(stderr, "  IR      %8.1f bytes/inst in use (inst %.1f, "
			"layout %.1f, values %.1f, operand lists %.1f, blocks "
			"%.1f, constants %.1f), %.1f allocated\n",
			(double)st.bytes_used / n, (double)st.inst_bytes / n,
			(double)st.layout_bytes / n, (double)st.value_bytes / n,
			(double)st.pool_bytes / n, (double)st.block_bytes / n,
			(double)st.const_bytes / n,
			(double)st.bytes_allocated / n);
		uint64_t params = st.param_value_bytes + st.param_list_bytes;
		fprintf(stderr, "  IR      %8.1f bytes/inst for instructions "
			"(instruction data, layout, result values, operand "
			"lists; block parameters' values %.1f and lists %.1f "
			"left out)\n",
			(double)(st.inst_bytes + st.layout_bytes +
				 st.value_bytes + st.pool_bytes - params) / n,
			(double)st.param_value_bytes / n,
			(double)st.param_list_bytes / n);
		fprintf(stderr, "  peak RSS %.1f MB (%.1f bytes/inst, input "
			"and output text included)\n",
			(double)cli_peak_rss() / 1e6,
			(double)cli_peak_rss() / n);
	}
}

int
cmd_cat(int argc, char **argv)
{
	kl_print_options popts = { 0 };
	bool timing = false;
	int nfiles = 0;
	cli_args args;
	cli_args_init(&args, argc, argv);
	while (cli_args_next(&args)) {
		if (cli_args_help(&args)) {
			fputs(cat_help, stdout);
			return EXIT_OK;
		} else if (cli_args_flag(&args, "--inst-numbers", NULL)) {
			popts.inst_numbers = true;
		} else if (cli_args_flag(&args, "--renumber", NULL)) {
			popts.renumber = true;
		} else if (cli_args_flag(&args, "--time", NULL)) {
			timing = true;
		} else if (cli_args_is_option(&args)) {
			return cli_args_unknown(&args, "cat");
		} else {
			if ((nfiles = cli_args_keep(&args, "cat")) < 0)
				return EXIT_USAGE;
		}
	}
	if (nfiles == 0)
		return cli_usage_error("cat", "no input files");
	int status = EXIT_OK;
	for (int i = 1; i <= nfiles; i++) {
		const char *a = argv[i];
		cli_file f;
		if (!cli_read_file("cat", a, &f)) {
			status = EXIT_BAD_INPUT;
			continue;
		}
		double t0 = cli_now();
		kl_module *m = cli_parse_then_free_text(&f);
		double t1 = cli_now();
		if (!m) {
			status = EXIT_BAD_INPUT;
		} else {
			bool written = cli_print_module(m, &popts, stdout,
							f.name);
			double t2 = cli_now();
			if (timing)
				cli_report_times(&f, m, t1 - t0, t2 - t1);
			if (!written)
				status = EXIT_BAD_INPUT;
			kl_module_free(m);
		}
	}
	return status;
}
