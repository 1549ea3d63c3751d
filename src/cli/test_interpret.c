/*
 * test_interpret.c -- placeholder until the command lands.
 */
#include "testcmd.h"

int
test_cmd_interpret(test_file *tf, const char *args, kl_buf *report)
{
	(void)args;
	kl_buf_printf(report, "%s: test command not implemented yet\n", tf->path);
	return 1;
}
