/*
 * main.c -- the `keel` command: dispatch to subcommands.
 *
 * Every subcommand lives in a cmd_*.c file (cfg and domtree share
 * cmd_cfg.c), takes (argc, argv) with
 * argv[0] its own name, answers --help, and returns 0 (success), 1 (bad
 * input) or 2 (bad usage).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

typedef struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
} command;

static const command commands[] = {
	{ "cat", cmd_cat, "parse files and print them in canonical form" },
	{ "verify", cmd_verify, "check every invariant of the IR" },
	{ "run", cmd_run, "run a function in the interpreter" },
	{ "opt", cmd_opt, "run passes (promote, ...) and print the result" },
	{ "difftest", cmd_difftest, "check passes by running programs before "
				    "and after" },
	{ "cfg", cmd_cfg, "print the control-flow graph (text or Graphviz)" },
	{ "domtree", cmd_domtree, "print dominator trees and block orders" },
	{ "test", cmd_test, "run file tests (.kl files with test commands)" },
	{ "filecheck", cmd_filecheck, "match FileCheck directives "
				      "against input" },
	{ "import-qbe", cmd_import_qbe, "read QBE IL, print it as keel IR" },
	{ "emit-c", cmd_emit_c, "print a module as a C program" },
	{ "emit-asm", cmd_emit_asm, "print a module as x86-64 assembly" },
	{ "reduce", cmd_reduce, "shrink a program while a test command "
				"holds" },
};

static void
usage(FILE *out)
{
	fputs("usage: keel COMMAND [options] [args]\n"
	      "\n"
	      "keel is a small SSA compiler IR toolkit. Commands:\n",
	      out);
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		fprintf(out, "  %-10s %s\n", commands[i].name,
			commands[i].summary);
	fputs("\n'keel COMMAND --help' (or 'keel help COMMAND') describes a "
	      "command.\n"
	      "'keel --version' prints the version.\n",
	      out);
}

/* Edits (insert, delete, replace a letter, or swap two neighbours)
 * that make a into b, counted up to 3: enough to tell a typo. */
static unsigned
edits_between(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);
	if (na > 16 || nb > 16)
		return 3;
	unsigned d[17][17];
	for (size_t i = 0; i <= na; i++)
		for (size_t j = 0; j <= nb; j++) {
			if (i == 0 || j == 0) {
				d[i][j] = (unsigned)(i + j);
				continue;
			}
			unsigned best = d[i - 1][j - 1] +
					(a[i - 1] != b[j - 1]);
			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	return d[na][nb] < 3 ? d[na][nb] : 3;
}

/* "keel: unknown command 'ct' (did you mean 'cat'?)": the nearest
 * command one or two edits away, if there is one. */
static void
say_unknown_command(const char *name)
{
	static const char *const others[] = { "help", "--help", "version",
					       "--version" };
	size_t ncmd = sizeof commands / sizeof commands[0];
	size_t nother = sizeof others / sizeof others[0];
	const char *near = NULL;
	unsigned best = 3;
	for (size_t i = 0; i < ncmd + nother; i++) {
		const char *cand = i < ncmd ? commands[i].name
					    : others[i - ncmd];
		unsigned e = edits_between(name, cand);
		/* (one letter is one edit from any one-letter word) */
		if (e < best && strlen(name) > e) {
			best = e;
			near = cand;
		}
	}
	fprintf(stderr, "keel: unknown command '%s'", name);
	if (near)
		fprintf(stderr, " (did you mean '%s'?)", near);
	fputs("\n(see 'keel --help')\n", stderr);
}

/*
 * A command's status, made 1 if what it wrote was lost: help, lists,
 * reports and a program's output go through stdio, and a full disk or a
 * closed pipe shows only when the streams are flushed. The loss is said
 * once (a command that saw its own write fail said so already), also
 * when the command failed otherwise. A bad usage keeps its 2; `keel run`
 * makes a program's status 1 itself when its output was lost (the
 * program's exit(2) is no bad usage). Nothing can be said of a lost
 * standard error, but the status tells.
 */
static int
finish(int status)
{
	bool out_lost = !cli_flush_stdout();
	bool err_lost = fflush(stderr) != 0 || ferror(stderr);
	/* Lost output fails the command whatever it gave otherwise (a bad
	 * usage keeps its 2). */
	if ((out_lost || err_lost) && status != EXIT_USAGE)
		return EXIT_BAD_INPUT;
	return status;
}

static int
dispatch(int argc, char **argv)
{
	if (argc < 2) {
		fputs("keel: no command given\n\n", stderr);
		usage(stderr);
		return EXIT_USAGE;
	}
	const char *cmd = argv[1];
	bool help = cli_is_help(cmd) || strcmp(cmd, "help") == 0;
	bool version = strcmp(cmd, "--version") == 0 ||
		       strcmp(cmd, "version") == 0;
	if (help && argc == 3 && (strcmp(argv[2], "version") == 0 ||
				  strcmp(argv[2], "--version") == 0)) {
		fputs("usage: keel --version (or keel version)\n"
		      "\n"
		      "Prints the version of keel, as 'keel VERSION'.\n",
		      stdout);
		return EXIT_OK;
	}
	if (help && argc == 3 && (cli_is_help(argv[2]) ||
				  strcmp(argv[2], "help") == 0)) {
		/* `keel help --help`, `keel help help` */
		usage(stdout);
		return EXIT_OK;
	}
	if (help && argc == 3) {
		/* `keel help cat` is `keel cat --help` */
		for (size_t i = 0; i < sizeof commands / sizeof commands[0];
		     i++)
			if (strcmp(commands[i].name, argv[2]) == 0) {
				static char help_opt[] = "--help";
				char *args[] = { argv[2], help_opt, NULL };
				cli_command = commands[i].name;
				return commands[i].run(2, args);
			}
		say_unknown_command(argv[2]);
		return EXIT_USAGE;
	}
	if ((help || version) && argc > 2) {
		/* bad usage, said as every other is */
		fprintf(stderr, "keel: '%s' takes %s\n(see 'keel --help')\n",
			cmd,
			help ? "one command name at most" : "no arguments");
		return EXIT_USAGE;
	}
	if (help) {
		usage(stdout);
		return EXIT_OK;
	}
	if (version) {
		printf("keel %s\n", kl_version());
		return EXIT_OK;
	}
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (strcmp(commands[i].name, cmd) == 0) {
			cli_command = commands[i].name;
			return commands[i].run(argc - 1, argv + 1);
		}
	say_unknown_command(cmd);
	return EXIT_USAGE;
}

int
main(int argc, char **argv)
{
	/* Standard output, when it is no terminal, in one buffer of 64 KiB:
	 * help, lists and reports then reach the file in finish()'s flush,
	 * whose failure has its errno on any C library. (musl writes the
	 * first line at once, and after that failure its fflush sets no
	 * errno: a full disk was said as "I/O error".) */
	static char out_buffer[1 << 16];
	if (!isatty(STDOUT_FILENO))
		setvbuf(stdout, out_buffer, _IOFBF, sizeof out_buffer);
	return finish(dispatch(argc, argv));
}
