/*
 * cmd_filecheck.c -- `keel filecheck CHECKFILE`: FileCheck on its own.
 *
 * Reads directives from CHECKFILE (comment lines '; check: ...' or bare
 * 'check: ...' lines) and matches them against standard input.
 */
#include <string.h>

#include "cli.h"

static const char filecheck_help[] =
	"usage: keel filecheck [options] CHECKFILE < OUTPUT\n"
	"\n"
	"Match the FileCheck directives of CHECKFILE against standard input.\n"
	"Directives: check:, sameln:, nextln:, unordered:, not:, regex:\n"
	"NAME=RE, with $NAME, $(NAME) and $(NAME=RE) variables; runs of\n"
	"blanks match any run of blanks. Lines of CHECKFILE may carry them\n"
	"bare or after a ';' comment marker, at the start of the line or\n"
	"after code. A check file without directives is an error.\n"
	"\n"
	"options:\n"
	"  -h, --help   show this help\n"
	"\n"
	"exit status: 0 if everything matched, 1 if not, 2 on bad usage\n";

int
cmd_filecheck(int argc, char **argv)
{
	const char *checkfile = NULL;
	cli_args args;
	cli_args_init(&args, argc, argv);
	while (cli_args_next(&args)) {
		if (cli_args_help(&args)) {
			fputs(filecheck_help, stdout);
			return EXIT_OK;
		} else if (cli_args_is_option(&args)) {
			return cli_args_unknown(&args, "filecheck");
		} else if (checkfile) {
			return cli_usage_error("filecheck",
					       "one check file only");
		} else {
			checkfile = args.arg;
		}
	}
	if (!checkfile)
		return cli_usage_error("filecheck", "no check file given");
	if (strcmp(checkfile, "-") == 0)
		return cli_usage_error("filecheck", "the check file cannot be "
				       "standard input: that is the output to "
				       "check");
	cli_file cf, in;
	if (!cli_read_file("filecheck", checkfile, &cf))
		return EXIT_BAD_INPUT;
	if (!cli_read_file("filecheck", "-", &in)) {
		cli_file_free(&cf);
		return EXIT_BAD_INPUT;
	}
	kl_filecheck *fc = kl_filecheck_new();
	kl_buf err = { 0 }, errors = { 0 };
	int status = EXIT_OK;
	const char *s = cf.text, *end = cf.text + cf.len;
	for (uint32_t line = 1; s < end; line++) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *e = nl ? nl : end;
		const char *t = s;
		while (t < e && (*t == ' ' || *t == '\t'))
			t++;
		if (t < e && *t == ';') /* one: ";; check:" is an error */
			t++;
		const char *at = t;
		int rc = kl_filecheck_add_line(fc, t, (size_t)(e - t), line,
					       &err);
		/* Not at the start: after a comment marker later on the line,
		 * as `keel test` reads a test file ("v1 = ...  ; check: x"),
		 * and so not a ';' inside a data string. */
		const char *c = t < e ? cli_comment_start(t, e) : NULL;
		if (rc == 0 && c) {
			at = ++c;
			rc = kl_filecheck_add_line(fc, c, (size_t)(e - c), line,
						   &err);
		}
		if (rc < 0) {
			/* where: what the message is about, with a caret */
			at += kl_filecheck_error_at(fc);
			kl_diag d = { .severity = KL_SEV_ERROR, .line = line,
				      .col = (uint32_t)(at - s) + 1,
				      .message = err.data };
			kl_diag_render(&d, checkfile, cf.text, cf.len, &errors);
			kl_buf_reset(&err);
			status = EXIT_BAD_INPUT;
		}
		s = e + 1;
	}
	if (status != EXIT_OK) {
		fwrite(errors.data, 1, errors.len, stderr);
	} else if (kl_filecheck_count(fc) == 0) {
		/* nothing to check is a mistake, not a pass */
		fprintf(stderr, "keel filecheck: %s: no directives (check:, "
			"not:, ...) to match\n", checkfile);
		status = EXIT_BAD_INPUT;
	} else {
		kl_buf report = { 0 }, placed = { 0 };
		if (!kl_filecheck_run(fc, in.text, in.len, &report)) {
			cli_put_check_report(&placed, checkfile, report.data,
					     report.len);
			fprintf(stderr,
				"keel filecheck: %s: checks failed:\n%s",
				checkfile, placed.data);
			status = EXIT_BAD_INPUT;
		}
		kl_buf_free(&report);
		kl_buf_free(&placed);
	}
	kl_buf_free(&err);
	kl_buf_free(&errors);
	kl_filecheck_free(fc);
	cli_file_free(&cf);
	cli_file_free(&in);
	return status;
}
