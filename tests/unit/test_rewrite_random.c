/*
 * test_rewrite_random.c -- random edits through the rewriting API on the
 * examples and some file tests, with fixed seeds (rewrite_random.h says
 * what is checked after every edit). fuzz/fuzz_rewrite.c runs the same
 * checks on any input and seed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"

static const char *rr_where; /* the file and seed being edited */

static void
rr_fail(const char *what, const char *text)
{
	fprintf(stderr, "%s: %s\n%s", rr_where, what, text ? text : "");
	unit_current_failed = 1;
}

#include "rewrite_random.h"

/* The files' text, `test` lines blanked (as keel test does), or NULL. */
static char *
read_module(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	if (!fp)
		return NULL;
	size_t cap = 1 << 16;
	char *text = malloc(cap);
	size_t n = text ? fread(text, 1, cap - 1, fp) : 0;
	bool whole = text && feof(fp) && !ferror(fp);
	fclose(fp);
	if (!whole) {
		free(text);
		return NULL;
	}
	text[n] = '\0';
	for (char *line = text; line && *line;) {
		if (strncmp(line, "test ", 5) == 0)
			for (char *c = line; *c && *c != '\n'; c++)
				*c = ' ';
		line = strchr(line, '\n');
		line = line ? line + 1 : NULL;
	}
	*len = n;
	return text;
}

/* Files with every instruction format, loops, tables, calls and data. */
static const char *const inputs[] = {
	"examples/sieve.kl",
	"examples/max.kl",
	"examples/consts.kl",
	"tests/filetests/text/every-opcode.kl",
	"tests/filetests/interp/control.kl",
	"tests/filetests/interp/calls.kl",
	"tests/filetests/promote/br-table.kl",
	"tests/filetests/analysis/domtree-irreducible.kl",
};

enum { SEEDS = 40, EDITS = 25 };

static size_t input; /* which of inputs test_random_edits takes */

static void
test_random_edits(void)
{
	size_t len;
	char *text = read_module(inputs[input], &len);
	if (!text) {
		fprintf(stderr, "cannot read %s (run from the repository's "
			"top)\n", inputs[input]);
		unit_current_failed = 1;
		return;
	}
	char where[200];
	for (uint64_t seed = 1; seed <= SEEDS && !unit_current_failed;
	     seed++) {
		snprintf(where, sizeof where, "%s, seed %llu", inputs[input],
			 (unsigned long long)seed);
		rr_where = where;
		rr_run(text, len, seed, EDITS);
	}
	free(text);
}

int
main(void)
{
	for (input = 0; input < sizeof inputs / sizeof inputs[0]; input++)
		UNIT_RUN(test_random_edits);
	return unit_report("rewrite_random");
}
