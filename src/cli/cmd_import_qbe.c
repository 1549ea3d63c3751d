/*
 * cmd_import_qbe.c -- `keel import-qbe`: read QBE IL, print the keel
 * module it becomes (kl_qbe_import, docs/qbe.md).
 */
#include "cli.h"

static const char import_qbe_help[] =
	"usage: keel import-qbe FILE\n"
	"\n"
	"Read FILE ('-' for standard input), a QBE IL file such as cproc or\n"
	"hare write, and print the keel module it becomes, verified, in\n"
	"canonical form (as keel cat prints it), ready for keel run or\n"
	"keel opt. Temporaries become SSA values, phis block parameters.\n"
	"Aggregates by value and variadic arguments pass between the\n"
	"file's functions as memory; thread-local data is data (one\n"
	"thread); env and aggregates passed to functions defined elsewhere\n"
	"are refused; docs/qbe.md has the whole mapping.\n"
	"\n"
	"options:\n"
	"  -h, --help       show this help\n"
	"\n"
	"exit status: 0 on success, 1 if the file cannot be read, has\n"
	"errors or uses what keel does not take, 2 on bad usage\n";

int
cmd_import_qbe(int argc, char **argv)
{
	int nfiles = 0;
	cli_args args;
	cli_args_init(&args, argc, argv);
	while (cli_args_next(&args)) {
		if (cli_args_help(&args)) {
			fputs(import_qbe_help, stdout);
			return EXIT_OK;
		} else if (cli_args_is_option(&args)) {
			return cli_args_unknown(&args, "import-qbe");
		} else if ((nfiles = cli_args_keep(&args, "import-qbe")) < 0) {
			return EXIT_USAGE;
		}
	}
	if (nfiles != 1)
		return cli_usage_error("import-qbe", nfiles ? "one file at a "
				       "time" : "no input file");
	cli_file f;
	if (!cli_read_file("import-qbe", argv[1], &f))
		return EXIT_BAD_INPUT;
	kl_diags diags = { 0 };
	kl_module *m = NULL;
	kl_qbe_import(f.text, f.len, &m, &diags);
	cli_print_diags(&diags, &f);
	kl_diags_free(&diags);
	int status = EXIT_BAD_INPUT;
	if (m && cli_print_module(m, NULL, stdout, f.name))
		status = EXIT_OK;
	kl_module_free(m);
	cli_file_free(&f);
	return status;
}
