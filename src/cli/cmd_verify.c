/*
 * cmd_verify.c -- placeholder until the command lands.
 */
#include <stdio.h>

#include "cli.h"

int
cmd_verify(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "keel verify: not implemented yet\n");
	return EXIT_USAGE;
}
