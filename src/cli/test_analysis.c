/*
 * test_analysis.c -- placeholder until the command lands.
 */
#include "testcmd.h"

int
test_cmd_print_cfg(test_file *tf, const char *args, kl_buf *report)
{
	(void)args;
	kl_buf_printf(report, "%s: test command not implemented yet\n", tf->path);
	return 1;
}

int
test_cmd_domtree(test_file *tf, const char *args, kl_buf *report)
{
	(void)args;
	kl_buf_printf(report, "%s: test command not implemented yet\n", tf->path);
	return 1;
}

int
test_cmd_loops(test_file *tf, const char *args, kl_buf *report)
{
	(void)args;
	kl_buf_printf(report, "%s: test command not implemented yet\n", tf->path);
	return 1;
}
