/*
 * cmd_run.c -- placeholder until the command lands.
 */
#include <stdio.h>

#include "cli.h"

int
cmd_run(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "keel run: not implemented yet\n");
	return EXIT_USAGE;
}
