/*
 * test_basic.c -- the test commands about text: `cat`, `roundtrip`,
 * `emit-asm`, `parse-error`, and the runner's own debug hooks.
 *
 *   test cat [precise]   print each function; run its check directives on
 *                        the text, or (precise) compare with the comment
 *                        block after it, which --bless rewrites. `cat
 *                        module` prints the whole module instead, against
 *                        every directive of the file, or (precise) the
 *                        comment block after the last item.
 *   test roundtrip       printing a function gives back its source text,
 *                        comments and blank lines aside; when two
 *                        functions in a row share a name, printing the
 *                        first gives the second. `roundtrip module`
 *                        compares the whole printed module instead.
 *   test emit-asm        the module as x86-64 assembly (kl_emit_asm),
 *                        against every directive of the file: what the
 *                        backend chooses (a fused compare, a register).
 *   test parse-error     the file must not parse, and its errors must be
 *                        exactly the annotated ones:
 *                            v1 = iadd2 v0, v0
 *                        ;        ^ error: unknown opcode
 *                        (line of the code above, column of the caret), or
 *                        `; error: TEXT` for an error anywhere.
 */
#include <stdlib.h>
#include <string.h>

#include "testcmd.h"

/* The line of the last item's end: the last line with text other than a
 * comment (a ';' in a string is none). */
static uint32_t
last_item_line(const test_file *tf)
{
	uint32_t line = 0, last = 0;
	const char *s = tf->parse_text, *end = s + tf->len;
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *e = nl ? nl : end;
		const char *c = cli_comment_start(s, e);
		line++;
		for (const char *t = s; t < (c ? c : e); t++)
			if (*t != ' ' && *t != '\t' && *t != '\r') {
				last = line;
				break;
			}
		s = e + 1;
	}
	return last;
}

int
test_cmd_cat(test_file *tf, const char *args, kl_buf *report)
{
	bool precise = test_has_option(args, "precise");
	int failures = 0;
	kl_buf out = { 0 };
	if (test_has_option(args, "module")) {
		/* The module as one "function" (func NULL) that owns every
		 * comment of the file and ends with the last item. */
		test_func whole = { NULL, 1, last_item_line(tf), tf->comments,
				    tf->ncomments };
		kl_print_module(tf->module, NULL, &out);
		failures = test_check_output(tf, &whole, precise, out.data,
					     out.len, report);
		kl_buf_free(&out);
		return failures;
	}
	for (uint32_t k = 0; k < tf->nfuncs; k++) {
		kl_buf_reset(&out);
		kl_print_func(tf->funcs[k].func, NULL, &out);
		failures += test_check_output(tf, &tf->funcs[k], precise,
					      out.data, out.len, report);
	}
	kl_buf_free(&out);
	return failures;
}

int
test_cmd_emit_asm(test_file *tf, const char *args, kl_buf *report)
{
	(void)args;
	kl_buf out = { 0 };
	kl_diags diags = { 0 };
	int failures = 0;
	if (kl_emit_asm(tf->module, tf->path, &out, &diags) != KL_OK) {
		kl_buf_printf(report, "%s: keel emit-asm failed:\n", tf->path);
		for (uint32_t k = 0; k < diags.len; k++)
			kl_buf_printf(report, "%s:%u: %s\n", tf->path,
				      diags.items[k].line,
				      diags.items[k].message);
		failures = 1;
	} else {
		test_func whole = { NULL, 1, last_item_line(tf), tf->comments,
				    tf->ncomments };
		failures = test_check_output(tf, &whole, false, out.data,
					     out.len, report);
	}
	kl_diags_free(&diags);
	kl_buf_free(&out);
	return failures;
}

/* Lines of text without comments (a ";" in a string is none), trailing
 * blanks and empty lines. */
static void
normalize(const char *s, size_t len, kl_buf *out)
{
	const char *end = s + len;
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *e = nl ? nl : end;
		const char *c = cli_comment_start(s, e);
		const char *t = c ? c : e;
		while (t > s &&
		       (t[-1] == ' ' || t[-1] == '\t' || t[-1] == '\r'))
			t--;
		if (t > s) {
			kl_buf_append(out, s, (size_t)(t - s));
			kl_buf_putc(out, '\n');
		}
		s = e + 1;
	}
}

/* A place in the file's text: the start of a line. */
typedef struct text_cursor {
	const char *at;
	uint32_t line;
} text_cursor;

/*
 * The source text of lines [first, last], read from cursor c on (from the
 * top if first is above it), which is left at the line after last: a
 * caller going down the file reads each line once.
 */
static void
source_lines(const test_file *tf, text_cursor *c, uint32_t first,
	     uint32_t last, kl_buf *out)
{
	const char *end = tf->text + tf->len;
	if (!c->at || first < c->line)
		*c = (text_cursor){ tf->text, 1 };
	for (; c->at < end && c->line <= last; c->line++) {
		const char *nl = memchr(c->at, '\n', (size_t)(end - c->at));
		const char *e = nl ? nl + 1 : end;
		if (c->line >= first)
			kl_buf_append(out, c->at, (size_t)(e - c->at));
		c->at = e;
	}
}

static bool
same_name(const test_func *a, const test_func *b)
{
	kl_module *m = kl_func_module(a->func);
	size_t na, nb;
	const char *x = kl_sym_name(m, kl_func_sym(a->func), &na);
	const char *y = kl_sym_name(m, kl_func_sym(b->func), &nb);
	return na == nb && memcmp(x, y, na) == 0;
}

/* Report the first line where two normalized texts differ. */
static void
report_difference(kl_buf *report, const kl_buf *want, const kl_buf *got)
{
	uint32_t line;
	cli_line a, b;
	if (cli_first_difference(want->data, want->len, got->data, got->len,
				 &line, &a, &b))
		kl_buf_printf(report, "  first difference, line %u (comments "
			      "and blank lines ignored):\n  expected: %.*s\n"
			      "  printed:  %.*s\n", line, a.len, a.text, b.len,
			      b.text);
}

/* `roundtrip module`: the whole printed module against the whole file. */
static int
roundtrip_module(test_file *tf, kl_buf *report)
{
	kl_buf printed = { 0 }, want = { 0 }, got = { 0 };
	kl_print_module(tf->module, NULL, &printed);
	normalize(tf->parse_text, tf->len, &want);
	normalize(printed.data ? printed.data : "", printed.len, &got);
	int failures = 0;
	if (want.len != got.len ||
	    (want.len && memcmp(want.data, got.data, want.len) != 0)) {
		kl_buf_printf(report, "%s: printing the module does not give "
			      "the file back\n", tf->path);
		report_difference(report, &want, &got);
		failures = 1;
	}
	kl_buf_free(&printed);
	kl_buf_free(&want);
	kl_buf_free(&got);
	return failures;
}

int
test_cmd_roundtrip(test_file *tf, const char *args, kl_buf *report)
{
	if (test_has_option(args, "module"))
		return roundtrip_module(tf, report);
	int failures = 0;
	kl_buf printed = { 0 }, src = { 0 }, want = { 0 }, got = { 0 };
	kl_buf name = { 0 };
	text_cursor cursor = { NULL, 0 };
	for (uint32_t k = 0; k < tf->nfuncs; k++) {
		const test_func *t = &tf->funcs[k];
		const test_func *model = t;
		if (k + 1 < tf->nfuncs && same_name(t, &tf->funcs[k + 1]))
			model = &tf->funcs[k + 1];
		kl_buf_reset(&printed);
		kl_buf_reset(&src);
		kl_buf_reset(&want);
		kl_buf_reset(&got);
		kl_print_func(t->func, NULL, &printed);
		source_lines(tf, &cursor, model->first_line, model->last_line,
			     &src);
		normalize(src.data ? src.data : "", src.len, &want);
		normalize(printed.data ? printed.data : "", printed.len, &got);
		if (want.len == got.len &&
		    (want.len == 0 ||
		     memcmp(want.data, got.data, want.len) == 0))
			continue;
		kl_buf_printf(report, "%s:%u: printing %s does not give %s\n",
			      tf->path, t->first_line, test_func_name(t, &name),
			      model == t ? "its source text"
					 : "the next function's text");
		report_difference(report, &want, &got);
		failures++;
	}
	kl_buf_free(&printed);
	kl_buf_free(&src);
	kl_buf_free(&want);
	kl_buf_free(&got);
	kl_buf_free(&name);
	return failures;
}

/* ---- parse-error ---- */

typedef struct expected_error {
	uint32_t line, col; /* col 0: any column; line 0 too: anywhere */
	const char *text;
	size_t len;
	uint32_t at;        /* line of the annotation */
	bool matched;
} expected_error;

static bool
contains(const char *hay, const char *needle, size_t n)
{
	if (n == 0)
		return true;
	for (const char *h = hay; *h; h++)
		if (strncmp(h, needle, n) == 0)
			return true;
	return false;
}

/*
 * The file's error annotations into exp (room for one per comment); their
 * number. Caret annotations point into the nearest code line above (a
 * line with something besides blanks); one after code expects an error
 * on its own line, one on a line of its own an error anywhere.
 */
static uint32_t
read_expectations(const test_file *tf, expected_error *exp)
{
	uint32_t nexp = 0, code_line = 0;
	const char *s = tf->text, *end = tf->text + tf->len;
	uint32_t ci = 0;
	for (uint32_t line = 1; s < end; line++) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *e = nl ? nl : end;
		while (ci < tf->ncomments && tf->comments[ci].line < line)
			ci++;
		const test_comment *c = ci < tf->ncomments &&
						tf->comments[ci].line == line
					? &tf->comments[ci]
					: NULL;
		uint32_t col;
		const char *text;
		size_t len;
		bool error = c && test_comment_directive(c, "error", &text,
							 &len);
		if (c && test_caret_annotation(c, &col, &text, &len)) {
			exp[nexp++] = (expected_error){ code_line, col, text,
							len, line, false };
		} else if (c && c->own_line) {
			if (error)
				exp[nexp++] = (expected_error){ 0, 0, text, len,
								line, false };
		} else if (c) {
			code_line = line;
			if (error)
				exp[nexp++] = (expected_error){ line, 0, text,
								len, line,
								false };
		} else {
			const char *t = s;
			while (t < e && (*t == ' ' || *t == '\t' || *t == '\r'))
				t++;
			if (t < e)
				code_line = line;
		}
		s = e + 1;
	}
	return nexp;
}

/* The most precise expectation not yet matched that fits d, the first of
 * them: at the column (2), on the line (1), anywhere (0); or NULL. */
static expected_error *
best_expectation(expected_error *exp, uint32_t nexp, const kl_diag *d)
{
	expected_error *hit = NULL;
	int best = -1;
	for (uint32_t k = 0; k < nexp; k++) {
		expected_error *x = &exp[k];
		bool fits = x->col ? x->line == d->line && x->col == d->col
				   : !x->line || x->line == d->line;
		int rank = (x->line != 0) + (x->col != 0);
		if (!x->matched && fits && rank > best &&
		    contains(d->message, x->text, x->len)) {
			hit = x;
			best = rank;
		}
	}
	return hit;
}

/* An expectation no error matched, said with where it expected one. */
static void
report_unmatched(const test_file *tf, const expected_error *x,
		 kl_buf *report)
{
	if (x->col)
		kl_buf_printf(report, "%s:%u: expected error at %u:%u not "
			      "reported: %.*s\n", tf->path, x->at, x->line,
			      x->col, (int)x->len, x->text);
	else if (x->line)
		kl_buf_printf(report, "%s:%u: expected error on line %u not "
			      "reported: %.*s\n", tf->path, x->at, x->line,
			      (int)x->len, x->text);
	else
		kl_buf_printf(report, "%s:%u: expected error not reported: "
			      "%.*s\n", tf->path, x->at, (int)x->len, x->text);
}

int
test_cmd_parse_error(test_file *tf, const char *args, kl_buf *report)
{
	(void)args;
	expected_error *exp = cli_alloc(tf->ncomments + 1, sizeof *exp);
	uint32_t nexp = read_expectations(tf, exp);
	/* Parse again as a module is normally parsed: no redefinitions. */
	kl_diags diags = { 0 };
	kl_module *m = NULL;
	kl_parse_options opts = { .allow_redefinition = false };
	kl_parse_module(tf->parse_text, tf->len, &opts, &m, &diags);
	int failures = 0;
	if (m) {
		test_line_error(tf, report, "expected parse errors, but the "
				"file parses");
		failures = 1;
		kl_module_free(m);
	}
	for (uint32_t i = 0; i < diags.len; i++) {
		const kl_diag *d = &diags.items[i];
		expected_error *hit = best_expectation(exp, nexp, d);
		if (hit) {
			hit->matched = true;
			continue;
		}
		kl_buf_printf(report, "%s: unexpected error:\n", tf->path);
		kl_diag_render(d, tf->path, tf->text, tf->len, report);
		failures++;
	}
	for (uint32_t k = 0; k < nexp; k++) {
		if (!exp[k].matched) {
			report_unmatched(tf, &exp[k], report);
			failures++;
		}
	}
	if (nexp == 0) {
		test_line_error(tf, report, "a parse-error test needs error "
				"annotations ('; error:' lines)");
		failures++;
	}
	free(exp);
	kl_diags_free(&diags);
	return failures;
}

/* ---- hooks for testing the runner ---- */

int
test_cmd_debug_crash(test_file *tf, const char *args, kl_buf *report)
{
	(void)tf;
	(void)args;
	(void)report;
	/* abort, not a wild pointer: sanitizers catch SIGSEGV themselves and
	 * exit normally, which would hide what this hook is for. */
	abort();
}

int
test_cmd_debug_hang(test_file *tf, const char *args, kl_buf *report)
{
	(void)tf;
	(void)args;
	(void)report;
	for (volatile unsigned long spin = 0;; spin++)
		;
	return 1;
}
