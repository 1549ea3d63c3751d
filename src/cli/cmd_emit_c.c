/*
 * cmd_emit_c.c -- `keel emit-c` and `keel emit-asm`: print a module as
 * a C program (kl_emit_c, docs/emit-c.md) or as x86-64 assembly
 * (kl_emit_asm, docs/emit-asm.md).
 */
#include "cli.h"

/* What both commands' help ends with. */
#define EMIT_OPTIONS_HELP                                                     \
	"\n"                                                                   \
	"options:\n"                                                           \
	"  --time           report the emitter's time and speed on standard\n" \
	"                   error (parsing and verifying not counted)\n"       \
	"  -h, --help       show this help\n"                                  \
	"\n"                                                                   \
	"exit status: 0 on success, 1 if the file cannot be read, does not\n"

static const char emit_c_help[] =
	"usage: keel emit-c [options] FILE\n"
	"\n"
	"Verify FILE ('-' for standard input; a test file's 'test' lines\n"
	"are ignored) and print it as a C11 program: loops as for (;;),\n"
	"branches as if and switch, goto only where C has nothing better\n"
	"(irreducible flow, a break out of two loops, nests over 200 deep).\n"
	"Compiled with 'cc -std=c11 out.c -lm', the program prints what\n"
	"'keel run FILE' prints and exits with its status; docs/emit-c.md\n"
	"says where C and the interpreter differ (pointers, limits).\n"
	"Refused, with an error for each: a %main with parameters,\n"
	"call_indirect through a variadic signature, data over 2^31 bytes\n"
	"or aligned past 4096.\n"
	EMIT_OPTIONS_HELP
	"parse or verify, or has what C cannot be given, 2 on bad usage\n";

static const char emit_asm_help[] =
	"usage: keel emit-asm [options] FILE\n"
	"\n"
	"Verify FILE ('-' for standard input; a test file's 'test' lines\n"
	"are ignored) and print it as x86-64 assembly for the GNU\n"
	"assembler (AT&T syntax, System V ELF, for Linux).\n"
	"Assembled with 'cc out.s -o out', the program prints what\n"
	"'keel run FILE' prints and exits with its status; or link the\n"
	"file with C code: functions and data keep their names and the\n"
	"System V calling convention. docs/emit-asm.md says where the\n"
	"machine and the interpreter differ (pointers, limits, traps the\n"
	"machine does not check). Values live in registers and stack\n"
	"slots by linear scan; the code is simple, and right before fast.\n"
	"Refused, with an error for each: a %main with parameters, an\n"
	"address in data narrower than i64, data over 2^31 bytes or\n"
	"aligned past 4096.\n"
	EMIT_OPTIONS_HELP
	"parse or verify, or has what cannot be translated, 2 on bad usage\n";

/* Refusals shown; a file of thousands says the same thing each time. */
#define MAX_SHOWN 100

/* The library places a refusal on a line; the caret goes under the
 * line's first character that is not blank. The refusals come in the
 * order of their lines, mostly: the walk to each goes on from the last
 * (from the start only when one goes back), so that many cost one walk
 * over the text. */
static void
place_carets(kl_diags *diags, const cli_file *f)
{
	uint32_t line = 1;
	size_t line_at = 0;
	for (uint32_t k = 0; k < diags->len; k++) {
		kl_diag *d = &diags->items[k];
		if (!d->line || d->col)
			continue;
		if (d->line < line) {
			line = 1;
			line_at = 0;
		}
		size_t at = line_at;
		for (; line < d->line && at < f->len; at++)
			line += f->text[at] == '\n';
		line_at = at;
		size_t start = at;
		while (at < f->len &&
		       (f->text[at] == ' ' || f->text[at] == '\t'))
			at++;
		d->col = (uint32_t)(at - start) + 1;
	}
}

typedef kl_status (*emit_fn)(const kl_module *m, const char *file,
			     kl_buf *out, kl_diags *diags);

/* keel emit-c and emit-asm: one file in, its translation out. */
static int
emit_command(int argc, char **argv, const char *name, const char *help,
	     emit_fn emit)
{
	int nfiles = 0;
	bool timed = false;
	cli_args args;
	cli_args_init(&args, argc, argv);
	while (cli_args_next(&args)) {
		if (cli_args_help(&args)) {
			fputs(help, stdout);
			return EXIT_OK;
		} else if (cli_args_flag(&args, "--time", NULL)) {
			timed = true;
		} else if (cli_args_is_option(&args)) {
			return cli_args_unknown(&args, name);
		} else if ((nfiles = cli_args_keep(&args, name)) < 0) {
			return EXIT_USAGE;
		}
	}
	if (nfiles != 1)
		return cli_usage_error(name, nfiles ? "one file at a time"
							: "no input file");
	cli_file f;
	if (!cli_read_file(name, argv[1], &f))
		return EXIT_BAD_INPUT;
	kl_module *m = cli_parse(&f, false);
	int status = EXIT_BAD_INPUT;
	if (m && cli_verify_module(m, f.name, name)) {
		kl_buf out = { 0 };
		kl_diags diags = { 0 };
		double t0 = cli_now();
		kl_status st = emit(m, f.name, &out, &diags);
		double t1 = cli_now();
		if (st == KL_OK && timed) {
			kl_module_stats ms;
			kl_module_get_stats(m, &ms);
			fprintf(stderr,
				"%s: %llu instruction%s, %.1f MB out\n"
				"  emit    %8.2f ms  %6.2f M inst/s\n",
				f.name, (unsigned long long)ms.insts,
				cli_plural(ms.insts), (double)out.len / 1e6,
				(t1 - t0) * 1e3,
				(double)ms.insts / (t1 - t0) / 1e6);
		}
		if (st == KL_OK)
			status = cli_write_stdout(&out) ? EXIT_OK
							: EXIT_BAD_INPUT;
		/* the first MAX_SHOWN, then a count of the rest */
		uint32_t all = diags.len;
		if (diags.len > MAX_SHOWN)
			diags.len = MAX_SHOWN;
		place_carets(&diags, &f);
		cli_print_diags(&diags, &f);
		if (all > diags.len)
			fprintf(stderr,
				"keel %s: %s: %u more errors not shown\n",
				name, f.name, all - diags.len);
		diags.len = all;
		kl_diags_free(&diags);
		kl_buf_free(&out);
	}
	kl_module_free(m);
	cli_file_free(&f);
	return status;
}

int
cmd_emit_c(int argc, char **argv)
{
	return emit_command(argc, argv, "emit-c", emit_c_help, kl_emit_c);
}

int
cmd_emit_asm(int argc, char **argv)
{
	return emit_command(argc, argv, "emit-asm", emit_asm_help,
			    kl_emit_asm);
}
