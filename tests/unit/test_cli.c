/*
 * test_cli.c -- helpers of the command-line tool that its commands
 * share: how the first difference between two texts is found (the
 * reports of `keel test` roundtrip and precise blocks, and of `keel
 * difftest` when its two ways of running the passes disagree), and how
 * running out of memory ends a command.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keel.h"
#include "unit.h"
#include "child.h"
#include "../../src/cli/cli.h"

/* "LINE|A|B" for the first difference of a and b, or "same". */
static const char *
difference(const char *a, const char *b)
{
	static char out[256];
	uint32_t line;
	cli_line la, lb;
	if (!cli_first_difference(a, a ? strlen(a) : 0, b, b ? strlen(b) : 0,
				  &line, &la, &lb))
		return "same";
	snprintf(out, sizeof out, "%u|%.*s|%.*s", line, la.len, la.text,
		 lb.len, lb.text);
	return out;
}

static void
test_first_difference(void)
{
	CHECK_EQ_STR(difference("a\nb\n", "a\nb\n"), "same");
	CHECK_EQ_STR(difference(NULL, NULL), "same");
	CHECK_EQ_STR(difference(NULL, ""), "same");
	CHECK_EQ_STR(difference("a\nb\nc\n", "a\nx\nc\n"), "2|b|x");
	/* a line that only starts the same, either way round */
	CHECK_EQ_STR(difference("a\nbc\n", "a\nb\n"), "2|bc|b");
	CHECK_EQ_STR(difference("a\nb\n", "a\nbc\n"), "2|b|bc");
	/* one text ends first: "(end)" stands for its missing line */
	CHECK_EQ_STR(difference("a\n", "a\nb\n"), "2|(end)|b");
	CHECK_EQ_STR(difference("a\nb\n", "a\n"), "2|b|(end)");
	CHECK_EQ_STR(difference(NULL, "x\n"), "1|(end)|x");
	/* an empty line is a line, not the end */
	CHECK_EQ_STR(difference("a\n\n", "a\n"), "2||(end)");
	/* the last line's newline counts */
	CHECK_EQ_STR(difference("a\nb", "a\nb\n"), "2|b|b");
	CHECK_EQ_STR(difference("a\nb", "a\nb"), "same");
}

/* (AddressSanitizer reports an allocation it cannot give as an error of
 * its own instead of returning NULL: SHADOW_MEMORY, child.h.) */

static void
allocate_too_much(void *ctx)
{
	(void)ctx;
	/* (volatile: with -flto, gcc sees the calloc it reaches and
	 * refuses the size at compile time, -Werror=alloc-size-larger-than) */
	volatile size_t count = SIZE_MAX / 2;
	cli_command = "test";
	cli_alloc(count, 16); /* past any address space */
}

/* An allocation no memory can give ends the command with "keel CMD: out
 * of memory" and status 1, as bad input does (not 2, bad usage; not a
 * crash on NULL). In a child, since it exits. */
static void
test_out_of_memory(void)
{
#ifdef SHADOW_MEMORY
	return;
#endif
	char msg[128];
	int st = unit_in_child(allocate_too_much, NULL, msg, sizeof msg);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 1);
	CHECK_EQ_STR(msg, "keel test: out of memory\n");
}

int
main(void)
{
	UNIT_RUN(test_first_difference);
	UNIT_RUN(test_out_of_memory);
	return unit_report("cli");
}
