/*
 * test_verifier.c -- the `verifier` test command.
 *
 *   test verifier [precise]
 *
 * Every function is verified. A function without `; error:` annotations
 * must verify. A function with annotations must give exactly the
 * annotated errors, each on its annotated line (and the verifier's
 * warnings, which the memory rules give, `; warning:` annotations):
 *
 *       return v0            ; error: must match function signature of i32
 *   block3:                  ; error: /block3 is (empty|unreachable)/
 *
 * The annotation is a comment on the line of the entity the error is
 * reported at (instruction line, block header, function header; an alias
 * error is reported at the first instruction using the alias). Its text
 * is a substring of the message, or a POSIX extended regex written /RE/.
 * It may also match the error as the listing shows it ("inst1 (return
 * v0): arg 0 ..."), so an own-line `; error:` comment of a pasted
 * `keel verify` listing counts too: an own-line annotation applies to the
 * nearest line above it that is not a comment.
 *
 * Unexpected errors and annotations no error matched both fail; the report
 * shows the rendered verifier output. Check directives (`; check:` ...)
 * run against that output too. With `precise`, the block of comment lines
 * after the function's closing brace must equal the rendered output, the
 * file named by its base name (--bless rewrites the block); that block
 * states every error exactly, so errors need no annotation then (a
 * blessed file passes), and annotations there are must still match.
 *
 * Matching is greedy per line, annotations in file order: an error takes
 * the first unused annotation on its line that it matches.
 */
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "testcmd.h"

typedef struct annotation {
	uint32_t line;     /* the line it is about */
	uint32_t at;       /* the line it is written on */
	const char *text;
	size_t len;
	bool is_regex;
	bool bad_regex;
	bool warning;      /* a `; warning:` annotation, for a warning */
	regex_t re;
	bool used;
} annotation;

/* Start offsets of every line of the file (1-based: starts[1] = 0). */
static size_t *
line_starts(const test_file *tf)
{
	uint32_t n = 1;
	for (size_t k = 0; k < tf->len; k++)
		n += tf->text[k] == '\n';
	size_t *s = cli_alloc((size_t)n + 2, sizeof *s);
	uint32_t line = 1;
	s[1] = 0;
	for (size_t k = 0; k < tf->len; k++)
		if (tf->text[k] == '\n')
			s[++line] = k + 1;
	s[n + 1] = tf->len;
	return s;
}

/* Is the line nothing but blanks and perhaps a comment? */
static bool
no_code(const test_file *tf, const size_t *starts, uint32_t line)
{
	for (size_t k = starts[line]; k < starts[line + 1]; k++) {
		char c = tf->text[k];
		if (c == ';' || c == '\n')
			return true;
		if (c != ' ' && c != '\t' && c != '\r')
			return false;
	}
	return true;
}

static uint32_t
code_line_above(const test_file *tf, const size_t *starts, uint32_t line,
		uint32_t first)
{
	while (line > first && no_code(tf, starts, line))
		line--;
	return line;
}

static annotation *
collect(const test_file *tf, const test_func *tfn, const size_t *starts,
	uint32_t *n, kl_buf *report)
{
	annotation *a = cli_alloc(tfn->ncomments, sizeof *a);
	*n = 0;
	for (uint32_t k = 0; k < tfn->ncomments; k++) {
		const test_comment *c = &tfn->comments[k];
		const char *rest;
		size_t len;
		bool warning = false;
		if (!test_comment_directive(c, "error", &rest, &len)) {
			if (!test_comment_directive(c, "warning", &rest, &len))
				continue;
			warning = true;
		}
		annotation *x = &a[(*n)++];
		x->warning = warning;
		x->at = c->line;
		x->line = c->own_line ? code_line_above(tf, starts, c->line,
							 tfn->first_line)
				      : c->line;
		x->text = rest;
		x->len = len;
		if (len >= 2 && rest[0] == '/' && rest[len - 1] == '/') {
			x->is_regex = true;
			char *re = strndup(rest + 1, len - 2);
			int rc = regcomp(&x->re, re, REG_EXTENDED | REG_NOSUB);
			free(re);
			if (rc != 0) {
				char why[128];
				regerror(rc, &x->re, why, sizeof why);
				x->bad_regex = true;
				test_comment_error_at(tf, c, rest + 1, report,
						      "bad regex '%.*s' in "
						      "the annotation: %s",
						      (int)len - 2, rest + 1,
						      why);
			}
		}
	}
	return a;
}

static bool
text_matches(const annotation *a, const char *s)
{
	if (a->is_regex)
		return !a->bad_regex && regexec(&a->re, s, 0, NULL, 0) == 0;
	if (a->len == 0)
		return true;
	char *t = strndup(a->text, a->len);
	bool m = strstr(s, t) != NULL;
	free(t);
	return m;
}

/* Does annotation a describe error d (its message, or as listed)? */
static bool
matches(const annotation *a, const kl_func *f, const kl_diag *d,
	kl_buf *tmp)
{
	if (a->used || a->line != d->line ||
	    a->warning != (d->severity == KL_SEV_WARNING))
		return false;
	if (text_matches(a, d->message))
		return true;
	kl_buf_reset(tmp);
	kl_verify_location(f, d, true, tmp);
	kl_buf_printf(tmp, ": %s", d->message);
	return text_matches(a, tmp->data);
}

/* Keys (line << 32 | index) in increasing order: the annotations by the
 * line they are about, then as written. */
static int
cmp_key(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return a < b ? -1 : a > b;
}

static const char *
base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* Check one function; returns the number of failures (0 or 1, + 1 for
 * precise). */
static int
check_func(test_file *tf, const test_func *tfn, const size_t *starts,
	   bool precise, kl_buf *report)
{
	kl_diags diags = { 0 };
	kl_verify_func(tfn->func, NULL, &diags);
	uint32_t na;
	kl_buf problems = { 0 }, tmp = { 0 }, rendered = { 0 };
	annotation *a = collect(tf, tfn, starts, &na, &problems);
	/* Each error looks only at the annotations of its line: all of
	 * them for each error was quadratic in a long function. */
	uint64_t *by_line = cli_alloc(na, sizeof *by_line);
	for (uint32_t j = 0; j < na; j++)
		by_line[j] = (uint64_t)a[j].line << 32 | j;
	qsort(by_line, na, sizeof *by_line, cmp_key);
	for (uint32_t k = 0; k < diags.len; k++) {
		const kl_diag *d = &diags.items[k];
		uint32_t lo = 0, hi = na;
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			if (by_line[mid] >> 32 < d->line)
				lo = mid + 1;
			else
				hi = mid;
		}
		while (lo < na && by_line[lo] >> 32 == d->line &&
		       !matches(&a[(uint32_t)by_line[lo]], tfn->func, d, &tmp))
			lo++;
		if (lo < na && by_line[lo] >> 32 == d->line) {
			a[(uint32_t)by_line[lo]].used = true;
			continue;
		}
		if (precise) /* the block below the function states it */
			continue;
		kl_buf_printf(&problems, "%s:%u: unexpected verifier %s: ",
			      tf->path, d->line,
			      d->severity == KL_SEV_WARNING ? "warning"
							    : "error");
		kl_verify_location(tfn->func, d, false, &problems);
		kl_buf_printf(&problems, ": %s\n", d->message);
	}
	/* the lines with a diagnostic, sorted: an expectation not met
	 * where one is says so (its text differs), not "not reported" */
	uint64_t *diag_lines = cli_alloc(diags.len + 1, sizeof *diag_lines);
	for (uint32_t k = 0; k < diags.len; k++)
		diag_lines[k] = diags.items[k].line;
	qsort(diag_lines, diags.len, sizeof *diag_lines, cmp_key);
	for (uint32_t j = 0; j < na; j++) {
		if (a[j].used || a[j].bad_regex)
			continue;
		uint32_t lo = 0, hi = diags.len;
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			if (diag_lines[mid] < a[j].line)
				lo = mid + 1;
			else
				hi = mid;
		}
		bool other = lo < diags.len && diag_lines[lo] == a[j].line;
		kl_buf_printf(&problems, "%s:%u: expected %s on line %u not "
			      "reported: %.*s%s\n", tf->path, a[j].at,
			      a[j].warning ? "warning" : "error", a[j].line,
			      (int)a[j].len, a[j].text,
			      other ? " (what was reported on that line "
				      "says something else)" : "");
	}
	free(diag_lines);
	kl_verify_render(tfn->func, &diags, precise ? base_name(tf->path)
						      : tf->path,
			 false, &rendered, &rendered);
	int failures = 0;
	if (problems.len) {
		kl_buf_append(report, problems.data, problems.len);
		if (rendered.len) {
			kl_buf_puts(report, "--- verifier output:\n");
			kl_buf_append(report, rendered.data, rendered.len);
		} else {
			kl_buf_puts(report, "--- the function verifies\n");
		}
		failures = 1;
	}
	const char *text = rendered.data ? rendered.data : "";
	/* Directives wait until the errors are right; they are this
	 * command's to run all the same (not "run by none"). */
	if (!failures)
		failures += test_filecheck(tf, tfn, text, rendered.len, report);
	else
		tf->directives_run = true;
	if (precise)
		failures += test_precise(tf, tfn, text, rendered.len, report);
	for (uint32_t j = 0; j < na; j++)
		if (a[j].is_regex && !a[j].bad_regex)
			regfree(&a[j].re);
	free(a);
	free(by_line);
	kl_buf_free(&problems);
	kl_buf_free(&tmp);
	kl_buf_free(&rendered);
	kl_diags_free(&diags);
	return failures;
}

int
test_cmd_verifier(test_file *tf, const char *args, kl_buf *report)
{
	bool precise = test_has_option(args, "precise");
	size_t *starts = line_starts(tf);
	int failures = 0;
	for (uint32_t k = 0; k < tf->nfuncs; k++)
		failures += check_func(tf, &tf->funcs[k], starts, precise,
				       report);
	free(starts);
	return failures;
}
