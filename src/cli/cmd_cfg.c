/*
 * cmd_cfg.c -- placeholder until the command lands.
 */
#include <stdio.h>

#include "cli.h"

int
cmd_cfg(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "keel cfg: not implemented yet\n");
	return EXIT_USAGE;
}

int
cmd_domtree(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "keel domtree: not implemented yet\n");
	return EXIT_USAGE;
}
