/*
 * test_cli.c -- helpers of the command-line tool that its commands
 * share: how the first difference between two texts is found (the
 * reports of `keel test` roundtrip and precise blocks, and of `keel
 * difftest` when its two ways of running the passes disagree).
 */
#include <stdlib.h>

#include "keel.h"
#include "unit.h"
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

int
main(void)
{
	UNIT_RUN(test_first_difference);
	return unit_report("cli");
}
