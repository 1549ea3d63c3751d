/*
 * main.c -- the `keel` command: dispatch to subcommands.
 *
 * Every subcommand lives in its own cmd_*.c file, takes (argc, argv) with
 * argv[0] its own name, answers --help, and returns 0 (success), 1 (bad
 * input) or 2 (bad usage).
 */
#include <string.h>

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
	{ "filecheck", cmd_filecheck, "match FileCheck directives against input" },
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
	fputs("\n'keel COMMAND --help' describes a command.\n"
	      "'keel --version' prints the version.\n",
	      out);
}

const char *cli_argv0 = "keel";

int
main(int argc, char **argv)
{
	cli_argv0 = argv[0];
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	const char *cmd = argv[1];
	if (cli_is_help(cmd) || strcmp(cmd, "help") == 0) {
		usage(stdout);
		return EXIT_OK;
	}
	if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
		printf("keel %s\n", KL_VERSION);
		return EXIT_OK;
	}
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (strcmp(commands[i].name, cmd) == 0)
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "keel: unknown command '%s'\n", cmd);
	usage(stderr);
	return EXIT_USAGE;
}
