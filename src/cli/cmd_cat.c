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
	"  -h, --help       show this help\n"
	"\n"
	"exit status: 0 on success, 1 if a file has errors, 2 on bad usage\n";

int
cmd_cat(int argc, char **argv)
{
	kl_print_options popts = { 0 };
	int nfiles = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (cli_is_help(a)) {
			fputs(cat_help, stdout);
			return EXIT_OK;
		} else if (strcmp(a, "--inst-numbers") == 0) {
			popts.inst_numbers = true;
		} else if (a[0] == '-' && a[1] != 0) {
			return cli_usage_error("cat", "unknown option '%s'", a);
		} else {
			nfiles++;
		}
	}
	if (nfiles == 0)
		return cli_usage_error("cat", "no input files");
	int status = EXIT_OK;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (a[0] == '-' && a[1] != 0)
			continue;
		cli_file f;
		if (!cli_read_file(a, &f)) {
			status = EXIT_BAD_INPUT;
			continue;
		}
		kl_module *m = cli_parse(&f, false);
		if (!m) {
			status = EXIT_BAD_INPUT;
		} else {
			kl_buf out = { 0 };
			kl_print_module(m, &popts, &out);
			if (!cli_write_stdout(&out))
				status = EXIT_BAD_INPUT;
			kl_buf_free(&out);
			kl_module_free(m);
		}
		cli_file_free(&f);
	}
	return status;
}
