/*
 * test_file.c -- reading one test file and running its commands, plus the
 * helpers test commands share (FileCheck, precise expectations, --bless).
 *
 * A test file is a keel module preceded by `test COMMAND [args]` lines.
 * The header lines are blanked (not removed) before parsing so that every
 * line number in a diagnostic is the line in the file. Comments are found
 * by a scan that knows about string literals (a ';' inside a data string is
 * not a comment) and handed to the function whose text they follow.
 *
 * This code runs in a child process of the runner (cmd_test.c), one per
 * file, so a crash here or in the library fails one file only; and in
 * process, file after file, in fuzz/fuzz_testfile.c, so it keeps no
 * state between files and writes nothing but --bless's rewrite.
 */
#define _DEFAULT_SOURCE /* realpath */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testcmd.h"

struct bless_edit {
	uint32_t first, count; /* lines replaced: [first, first + count) */
	char *text;            /* replacement, complete lines */
	bool changes;          /* text is not what the lines hold now */
};

static const test_command commands[] = {
	{ "cat", test_cmd_cat, true, NULL, "precise module", true, "", false },
	{ "roundtrip", test_cmd_roundtrip, true, NULL, "module", true, "",
	  false },
	{ "emit-asm", test_cmd_emit_asm, true, NULL, "", false, "", false },
	{ "parse-error", test_cmd_parse_error, false, NULL, "", false,
	  "error ^error", false },
	{ "verifier", test_cmd_verifier, true, NULL, "precise", false,
	  "error warning", true },
	{ "print-cfg", test_cmd_print_cfg, true, NULL, "loops liveness", true,
	  "", false },
	{ "domtree", test_cmd_domtree, true, NULL, "", true, "dominates",
	  true },
	{ "loops", test_cmd_loops, true, NULL, "", true, "", false },
	{ "regions", test_cmd_regions, true, NULL, "", true, "", false },
	{ "interpret", test_cmd_interpret, true, NULL,
	  "fuel= depth= memory= after=PASS[,PASS...]", false, "run output",
	  false },
	{ "pass", test_cmd_pass, true, "the passes to run (PASS[,PASS...])",
	  "precise notes stats", true, "", false },
};

static const test_command hidden_commands[] = {
	/* Hooks for testing the runner itself: a crash and a hang. */
	{ "debug-crash", test_cmd_debug_crash, false, NULL, "", false, "",
	  false },
	{ "debug-hang", test_cmd_debug_hang, false, NULL, "", false, "",
	  false },
};

static const test_command *
find_command(const char *name, size_t n)
{
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (strlen(commands[i].name) == n &&
		    memcmp(commands[i].name, name, n) == 0)
			return &commands[i];
	for (size_t i = 0;
	     i < sizeof hidden_commands / sizeof hidden_commands[0]; i++)
		if (strlen(hidden_commands[i].name) == n &&
		    memcmp(hidden_commands[i].name, name, n) == 0)
			return &hidden_commands[i];
	return NULL;
}

static void
list_commands(kl_buf *out)
{
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		kl_buf_printf(out, "%s%s", i ? ", " : "", commands[i].name);
}

/* ---- comments ---- */

static bool
blank_before(const char *s, const char *q)
{
	for (; s < q; s++)
		if (*s != ' ' && *s != '\t' && *s != '\r')
			return false;
	return true;
}

/* All comments of the file, in order. */
static test_comment *
scan_comments(const char *text, size_t len, uint32_t *n)
{
	test_comment *c = NULL;
	uint32_t cap = 0;
	*n = 0;
	const char *s = text, *end = text + len;
	for (uint32_t line = 1; s < end; line++) {
		const char *e = memchr(s, '\n', (size_t)(end - s));
		if (!e)
			e = end;
		const char *q = cli_comment_start(s, e);
		if (q) {
			cli_grow((void **)&c, &cap, sizeof *c, *n + 1);
			const char *te = e;
			if (te > q && te[-1] == '\r')
				te--;
			c[(*n)++] = (test_comment){
				line, (uint32_t)(q - s) + 1, q + 1,
				(size_t)(te - q - 1), blank_before(s, q)
			};
		}
		s = e + 1;
	}
	return c;
}

bool
test_comment_directive(const test_comment *c, const char *key,
		       const char **rest, size_t *rest_len)
{
	const char *s = c->text, *e = c->text + c->len;
	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	size_t k = strlen(key);
	if ((size_t)(e - s) <= k || memcmp(s, key, k) != 0 || s[k] != ':')
		return false;
	s += k + 1;
	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	*rest = s;
	*rest_len = (size_t)(e - s);
	return true;
}

bool
test_caret_annotation(const test_comment *c, uint32_t *col, const char **text,
		      size_t *len)
{
	if (!c->own_line)
		return false;
	const char *s = c->text, *e = c->text + c->len;
	const char *q = s;
	while (q < e && (*q == ' ' || *q == '\t'))
		q++;
	if (q >= e || *q != '^')
		return false;
	*col = c->col + 1 + (uint32_t)(q - s);
	test_comment rest = *c;
	rest.text = q + 1;
	rest.len = (size_t)(e - q - 1);
	return test_comment_directive(&rest, "error", text, len);
}

const char *
test_next_word(const char **s, size_t *n)
{
	const char *p = *s;
	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p)
		return NULL;
	const char *b = p;
	while (*p && *p != ' ' && *p != '\t')
		p++;
	*s = p;
	*n = (size_t)(p - b);
	return b;
}

bool
test_has_option(const char *args, const char *w)
{
	return test_find_option(args, w) != NULL;
}

const char *
test_find_option(const char *args, const char *w)
{
	size_t n = strlen(w), len;
	for (const char *b; (b = test_next_word(&args, &len));)
		if (len == n && memcmp(b, w, n) == 0)
			return b;
	return NULL;
}

/* Parse the number after "key=" in word[0, n); false if it is not one,
 * and then *too_large says whether it failed only by passing 2^64 - 1. */
static bool
option_number(const char *word, size_t n, uint64_t *v, bool *too_large)
{
	/* Read as the command line reads counts (cli_parse_count: decimal
	 * or 0x, no octal, no sign), from a copy ending in NUL (of any
	 * length: 70 digits are too large, not "no number"). */
	const char *eq = memchr(word, '=', n);
	size_t len = eq ? (size_t)(word + n - eq - 1) : 0;
	*too_large = false;
	if (!eq || len == 0)
		return false;
	char *digits = memcpy(cli_alloc(len + 1, 1), eq + 1, len);
	digits[len] = '\0';
	bool read = cli_parse_count(digits, v, too_large);
	free(digits);
	return read;
}

const char *
test_option_word(const char *args, const char *key, size_t *len)
{
	size_t k = strlen(key), n;
	const char *last = NULL;
	for (const char *b; (b = test_next_word(&args, &n));)
		if (n > k && memcmp(b, key, k) == 0 && b[k] == '=') {
			last = b;
			*len = n;
		}
	return last;
}

uint64_t
test_number_option(const char *args, const char *key, uint64_t def)
{
	size_t len;
	uint64_t v = def;
	bool too_large;
	const char *b = test_option_word(args, key, &len);
	if (b) /* checked by check_args */
		option_number(b, len, &v, &too_large);
	return v;
}

/* "FILE:LINE:COL: error: MESSAGE", the line and a caret under COL. */
static void
error_at_v(const test_file *tf, uint32_t line, uint32_t col, kl_buf *report,
	   const char *fmt, va_list ap)
{
	va_list again;
	va_copy(again, ap);
	int n = vsnprintf(NULL, 0, fmt, ap);
	char *msg = cli_alloc(n > 0 ? (size_t)n + 1 : 1, 1);
	vsnprintf(msg, n > 0 ? (size_t)n + 1 : 1, fmt, again);
	va_end(again);
	kl_diag d = { 0 };
	d.severity = KL_SEV_ERROR;
	d.line = line;
	d.col = col;
	d.message = msg;
	kl_diag_render(&d, tf->path, tf->text, tf->len, report);
	free(msg);
}

static void __attribute__((format(printf, 5, 6)))
error_at(const test_file *tf, uint32_t line, uint32_t col, kl_buf *report,
	 const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	error_at_v(tf, line, col, report, fmt, ap);
	va_end(ap);
}

void
test_args_error(const test_file *tf, const char *at, kl_buf *report,
		const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	error_at_v(tf, tf->header_line,
		   tf->args_col + (uint32_t)(at - tf->args), report, fmt, ap);
	va_end(ap);
}

void
test_line_error(const test_file *tf, kl_buf *report, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	error_at_v(tf, tf->header_line, tf->name_col, report, fmt, ap);
	va_end(ap);
}

void
test_comment_error(const test_file *tf, const test_comment *c,
		   kl_buf *report, const char *fmt, ...)
{
	uint32_t blanks = 0;
	while (blanks < c->len &&
	       (c->text[blanks] == ' ' || c->text[blanks] == '\t'))
		blanks++;
	va_list ap;
	va_start(ap, fmt);
	error_at_v(tf, c->line, c->col + 1 + blanks, report, fmt, ap);
	va_end(ap);
}

void
test_comment_error_at(const test_file *tf, const test_comment *c,
		      const char *at, kl_buf *report, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	error_at_v(tf, c->line, c->col + 1 + (uint32_t)(at - c->text), report,
		   fmt, ap);
	va_end(ap);
}

/*
 * How the command takes the option name[0, n): a flag, or with_value an
 * option with a value, spelt "fuel=" in its list for a number and
 * "after=PASS[,PASS...]" for a word the command reads itself.
 */
typedef enum option_kind {
	OPT_NONE, OPT_FLAG, OPT_NUMBER, OPT_WORD
} option_kind;

/* (*spelling, when asked for, is the option as the list spells it) */
static option_kind
find_option(const test_command *cmd, const char *name, size_t n,
	    bool with_value, const char **spelling)
{
	const char *opts = cmd->options, *o;
	size_t len;
	while ((o = test_next_word(&opts, &len))) {
		if (len < n || memcmp(o, name, n) != 0)
			continue;
		if (!with_value && len == n)
			return OPT_FLAG;
		if (with_value && len > n && o[n] == '=') {
			if (spelling)
				*spelling = o;
			return len == n + 1 ? OPT_NUMBER : OPT_WORD;
		}
	}
	return OPT_NONE;
}

/* The command's options for a message: "fuel=N, after=PASS[,PASS...]". */
static void
list_options(const test_command *cmd, kl_buf *out)
{
	const char *opts = cmd->options, *o;
	size_t len;
	for (bool first = true; (o = test_next_word(&opts, &len));
	     first = false)
		kl_buf_printf(out, "%s%.*s%s", first ? "" : ", ", (int)len, o,
			      o[len - 1] == '=' ? "N" : "");
}

/* Check the args of a `test` line against what the command takes. */
static bool
check_args(const test_file *tf, const test_command *cmd, kl_buf *report)
{
	const char *s = tf->args, *w;
	size_t n;
	if (cmd->operand && !test_next_word(&s, &n)) {
		test_args_error(tf, s, report, "'test %s' needs %s", cmd->name,
				cmd->operand);
		return false;
	}
	while ((w = test_next_word(&s, &n))) {
		const char *eq = memchr(w, '=', n);
		uint64_t v;
		bool too_large = false;
		size_t name = eq ? (size_t)(eq - w) : n;
		const char *spelt = "";
		option_kind kind = find_option(cmd, w, name, eq != NULL, NULL);
		if (kind == OPT_FLAG || (kind == OPT_WORD && eq + 1 < w + n) ||
		    (kind == OPT_NUMBER && option_number(w, n, &v, &too_large)))
			continue;
		if (kind == OPT_WORD) {
			test_args_error(tf, eq + 1, report, "'%.*s' needs a "
					"value", (int)(eq - w) + 1, w);
		} else if (too_large) {
			test_args_error(tf, eq + 1, report, "'%.*s' is at most "
					"%llu", (int)(eq - w) + 1, w,
					(unsigned long long)UINT64_MAX);
		} else if (kind == OPT_NUMBER) {
			test_args_error(tf, eq + 1, report, "'%.*s' needs a "
					"number", (int)(eq - w) + 1, w);
		} else if (eq && find_option(cmd, w, name, false, NULL)) {
			test_args_error(tf, w, report, "'%.*s' takes no value, "
					"not '%.*s'", (int)(eq - w), w, (int)n,
					w);
		} else if (!eq && find_option(cmd, w, n, true, NULL) ==
					  OPT_NUMBER) {
			test_args_error(tf, w, report, "'%.*s' needs a number: "
					"%.*s=N", (int)n, w, (int)n, w);
		} else if (!eq && find_option(cmd, w, n, true, &spelt) ==
					  OPT_WORD) {
			size_t spelt_len = strcspn(spelt, " \t");
			test_args_error(tf, w, report, "'%.*s' needs a value: "
					"%.*s", (int)n, w, (int)spelt_len,
					spelt);
		} else if (!*cmd->options) {
			test_args_error(tf, w, report, "'test %s' takes no "
					"options, not '%.*s'", cmd->name,
					(int)n, w);
		} else {
			kl_buf known = { 0 };
			list_options(cmd, &known);
			test_args_error(tf, w, report, "unknown option '%.*s' "
					"for 'test %s' (known: %s)", (int)n, w,
					cmd->name, known.data);
			kl_buf_free(&known);
		}
		return false;
	}
	return true;
}

const char *
test_func_name(const test_func *tfn, kl_buf *tmp)
{
	kl_buf_reset(tmp);
	if (!tfn->func) { /* `cat module`'s whole module */
		kl_buf_puts(tmp, "the module");
		return tmp->data;
	}
	kl_module *m = kl_func_module(tfn->func);
	size_t n;
	const char *name = kl_sym_name(m, kl_func_sym(tfn->func), &n);
	kl_name_format(name, n, tmp);
	return tmp->data;
}

/* The output the checks read, after their report: whole when short; a
 * long one would bury the report, whose excerpt shows where it failed. */
#define OUTPUT_SHOWN_LINES 60
static void
put_output(kl_buf *report, const char *output, size_t len)
{
	size_t lines = 0;
	for (size_t i = 0; i < len; i++)
		lines += output[i] == '\n';
	if (len && output[len - 1] != '\n')
		lines++;
	if (lines > OUTPUT_SHOWN_LINES) {
		kl_buf_printf(report, "--- the output has %zu lines, too many "
			      "to repeat: the lines around the failure are "
			      "above\n", lines);
		return;
	}
	kl_buf_puts(report, "--- output was:\n");
	kl_buf_append(report, output, len);
	if (len && output[len - 1] != '\n')
		kl_buf_putc(report, '\n');
}

/* ---- FileCheck ---- */

int
test_filecheck(test_file *tf, const test_func *tfn, const char *output,
	       size_t len, kl_buf *report)
{
	tf->directives_run = true;
	kl_filecheck *fc = kl_filecheck_new();
	kl_buf err = { 0 };
	int failures = 0;
	for (uint32_t i = 0; i < tfn->ncomments; i++) {
		const test_comment *c = &tfn->comments[i];
		if (kl_filecheck_add_line(fc, c->text, c->len, c->line,
					  &err) < 0) {
			test_comment_error_at(
				tf, c, c->text + kl_filecheck_error_at(fc),
				report, "bad directive: %s", err.data);
			kl_buf_reset(&err);
			failures = 1;
		}
	}
	tf->ndirectives += kl_filecheck_count(fc);
	if (!failures && kl_filecheck_count(fc) > 0) {
		kl_buf rep = { 0 };
		if (!kl_filecheck_run(fc, output, len, &rep)) {
			kl_buf name = { 0 };
			kl_buf_printf(report, "%s:%u: checks failed in %s:\n",
				      tf->path, tfn->first_line,
				      test_func_name(tfn, &name));
			cli_put_check_report(report, tf->path, rep.data,
					     rep.len);
			put_output(report, output, len);
			kl_buf_free(&name);
			failures = 1;
		}
		kl_buf_free(&rep);
	}
	kl_buf_free(&err);
	kl_filecheck_free(fc);
	return failures;
}

/* ---- precise expectations and --bless ---- */

static const char *annotation_key(const test_comment *c, char *key,
				  size_t cap);

/* Is comment c a check directive (well formed or not) or an annotation,
 * which some command may read? */
static bool
comment_is_read(const test_comment *c)
{
	char key[32];
	if (annotation_key(c, key, sizeof key))
		return true;
	kl_filecheck *fc = kl_filecheck_new();
	bool directive = kl_filecheck_add_line(fc, c->text, c->len, c->line,
					       NULL) != 0;
	kl_filecheck_free(fc);
	return directive;
}

/*
 * The first line of tfn's expected block (first, count lines) that is a
 * directive or an annotation which blessing the block with `text` would
 * delete (the new text has another line there), or NULL. A file whose
 * `cat` reads its checks below the '}' cannot also be `cat precise`:
 * --bless must say so, not replace the checks with the print.
 */
static const test_comment *
block_loses_directive(const test_func *tfn, uint32_t first, uint32_t count,
		      const char *text)
{
	/* t: the new text's line at tline (comments come in line order) */
	const char *t = text;
	uint32_t tline = first;
	for (uint32_t i = 0; i < tfn->ncomments; i++) {
		const test_comment *c = &tfn->comments[i];
		if (c->line < first || c->line >= first + count)
			continue;
		for (; t && tline < c->line; tline++) {
			t = strchr(t, '\n');
			t = t ? t + 1 : NULL;
		}
		if (t && *t == ';') {
			const char *e = strchr(t, '\n');
			size_t n = e ? (size_t)(e - t - 1) : strlen(t + 1);
			if (n == c->len && memcmp(t + 1, c->text, n) == 0)
				continue;
		}
		if (comment_is_read(c))
			return c;
	}
	return NULL;
}

/*
 * Does the comment line s[0, n) (its ';' gone) begin a print, as a
 * precise block does: a function, declaration or data object, or a
 * verifier's "FILE:LINE: " line? A block that begins with anything else
 * is prose (a note on the function): --bless replaces it all the same,
 * as documented, but says so.
 */
static bool
begins_print(const char *s, size_t n)
{
	if (n && *s == ' ') {
		s++;
		n--;
	}
	static const char *const items[] = { "function ", "declare ", "data " };
	for (size_t k = 0; k < sizeof items / sizeof items[0]; k++)
		if (n >= strlen(items[k]) &&
		    memcmp(s, items[k], strlen(items[k])) == 0)
			return true;
	/* "FILE:LINE: ", whatever FILE holds (blanks too) */
	for (size_t i = 1; i < n; i++) {
		if (s[i] != ':')
			continue;
		size_t d = i + 1;
		while (d < n && s[d] >= '0' && s[d] <= '9')
			d++;
		if (d > i + 1 && d + 1 < n && s[d] == ':' && s[d + 1] == ' ')
			return true;
	}
	return false;
}

/* Line l of text s (n bytes) after label, and the two lines after it
 * under it: a line missing on one side then shows as the others
 * shifting, not as one line changed. */
static void
put_lines_from(kl_buf *report, const char *label, const char *s, size_t n,
	       cli_line l)
{
	kl_buf_printf(report, "%s%.*s\n", label, l.len, l.text);
	/* An empty text has no lines to show after, and s may be NULL then
	 * (an empty expected block's kl_buf), where even s + 0 is undefined;
	 * nor has "(end)", which is no line of s. */
	if (n == 0 || l.text < s || l.text > s + n)
		return;
	const char *p = l.text + l.len;
	for (int k = 0; k < 2 && p < s + n; k++) {
		p++; /* its '\n' */
		if (p >= s + n)
			break;
		const char *e = memchr(p, '\n', (size_t)(s + n - p));
		size_t m = e ? (size_t)(e - p) : (size_t)(s + n - p);
		kl_buf_printf(report, "%*s%.*s\n", (int)strlen(label), "",
			      (int)m, p);
		p += m;
	}
}

int
test_precise(test_file *tf, const test_func *tfn, const char *output,
	     size_t len, kl_buf *report)
{
	/* The expected block: own-line comments right after the '}' line. */
	uint32_t first = tfn->last_line + 1, count = 0;
	kl_buf expected = { 0 };
	for (uint32_t i = 0; i < tfn->ncomments; i++) {
		const test_comment *c = &tfn->comments[i];
		if (c->line < first + count)
			continue;
		if (c->line != first + count || !c->own_line || c->col != 1)
			break;
		const char *t = c->text;
		size_t n = c->len;
		if (n && t[0] == ' ') {
			t++;
			n--;
		}
		kl_buf_append(&expected, t, n);
		kl_buf_putc(&expected, '\n');
		count++;
	}
	int failures = 0;
	bool same = expected.len == len &&
		    (len == 0 || memcmp(expected.data, output, len) == 0);
	/* the block's first comment, if it is prose and not a print */
	const test_comment *prose = NULL;
	for (uint32_t i = 0; !same && count && i < tfn->ncomments; i++)
		if (tfn->comments[i].line == first &&
		    !begins_print(tfn->comments[i].text, tfn->comments[i].len))
			prose = &tfn->comments[i];
	if (tf->bless) {
		kl_buf text = { 0 };
		const char *s = output, *e = output + len;
		while (s < e) {
			const char *nl = memchr(s, '\n', (size_t)(e - s));
			const char *le = nl ? nl : e;
			kl_buf_putc(&text, ';');
			if (le > s)
				kl_buf_putc(&text, ' ');
			kl_buf_append(&text, s, (size_t)(le - s));
			kl_buf_putc(&text, '\n');
			s = le + 1;
		}
		const test_comment *lost = same ? NULL :
			block_loses_directive(tfn, first, count,
					      text.data ? text.data : "");
		if (lost) {
			test_comment_error(tf, lost, report, "--bless would "
					   "overwrite this comment, which a "
					   "command reads, with the expected "
					   "print: move it into the function, "
					   "or below a blank line after the "
					   "block");
			tf->bless_conflict = true;
			failures = 1;
		} else if (!test_add_edit(tf, first, count,
					  text.data ? text.data : "", !same)) {
			kl_buf name = { 0 };
			kl_buf_printf(report,
				      "%s:%u: two 'precise' commands print "
				      "%s differently, and its one expected "
				      "block cannot hold both (give them files "
				      "of their own)\n", tf->path,
				      tfn->first_line,
				      test_func_name(tfn, &name));
			kl_buf_free(&name);
			tf->bless_conflict = true;
			failures = 1;
		} else if (prose) {
			/* overwritten as documented, but said: it may have
			 * been a note on the function, not an old print */
			kl_buf_printf(report, "%s:%u: replaced a comment that "
				      "was no print: ;%.*s\n", tf->path,
				      prose->line, (int)prose->len,
				      prose->text);
		}
		kl_buf_free(&text);
	} else if (!same) {
		kl_buf name = { 0 };
		kl_buf_printf(report, "%s:%u: output of %s differs from the "
			      "expected block%s:\n", tf->path, first,
			      test_func_name(tfn, &name),
			      prose ? "" : " (run with --bless to update)");
		kl_buf_free(&name);
		uint32_t line;
		cli_line a, b;
		if (cli_first_difference(expected.data, expected.len, output,
					 len, &line, &a, &b)) {
			kl_buf_printf(report, "  line %u of the block (line %u "
				      "of the file):\n", line,
				      first + line - 1);
			put_lines_from(report, "  expected: ", expected.data,
				       expected.len, a);
			put_lines_from(report, "  actual:   ", output, len, b);
		}
		if (prose)
			kl_buf_puts(report, "  (the block is a comment that is "
				    "no print: if it is a note, put a blank "
				    "line between it and the '}')\n");
		failures = 1;
	}
	kl_buf_free(&expected);
	return failures;
}

int
test_check_output(test_file *tf, const test_func *tfn, bool precise,
		  const char *output, size_t len, kl_buf *report)
{
	return precise ? test_precise(tf, tfn, output, len, report)
		       : test_filecheck(tf, tfn, output, len, report);
}

bool
test_add_edit(test_file *tf, uint32_t first, uint32_t count, const char *text,
	      bool changes)
{
	/* A second command blessing the same block must agree with the
	 * first: two texts cannot both be written there. */
	for (uint32_t i = 0; i < tf->nedits; i++)
		if (tf->edits[i].first == first)
			return strcmp(tf->edits[i].text, text) == 0;
	cli_grow((void **)&tf->edits, &tf->edits_cap, sizeof *tf->edits,
		      tf->nedits + 1);
	tf->edits[tf->nedits++] =
		(struct bless_edit){ first, count, cli_strdup(text), changes };
	return true;
}

/* Does any recorded edit change the file? */
static bool
edits_change(const test_file *tf)
{
	for (uint32_t i = 0; i < tf->nedits; i++)
		if (tf->edits[i].changes)
			return true;
	return false;
}

static int
edit_cmp(const void *a, const void *b)
{
	const struct bless_edit *x = a, *y = b;
	return x->first < y->first ? -1 : x->first > y->first;
}

/* Append text's lines, each '\n' as CR LF when crlf. */
static void
put_lines(kl_buf *out, const char *text, bool crlf)
{
	if (!crlf) {
		kl_buf_puts(out, text);
		return;
	}
	for (const char *nl; (nl = strchr(text, '\n')); text = nl + 1) {
		kl_buf_append(out, text, (size_t)(nl - text));
		kl_buf_puts(out, "\r\n");
	}
	kl_buf_puts(out, text);
}

/*
 * Write a file's new contents beside it and rename them over it: a write
 * that fails half way (a full disk) must not leave the test truncated.
 * The new file keeps the old one's permissions. On failure errno says why
 * and the old file is untouched.
 */
static bool
replace_file(const char *path, const char *data, size_t len)
{
	/* A link's target is what is rewritten: the link stays. */
	char *real = realpath(path, NULL);
	struct stat st = { 0 };
	if (!real || stat(real, &st) != 0) {
		free(real);
		return false;
	}
	size_t n = strlen(real) + sizeof ".bless-XXXXXX";
	char *tmp = cli_alloc(n, 1);
	snprintf(tmp, n, "%s.bless-XXXXXX", real);
	int fd = mkstemp(tmp);
	if (fd < 0) {
		free(real);
		free(tmp);
		return false;
	}
	bool ok = fchmod(fd, st.st_mode & 07777) == 0;
	for (size_t done = 0; ok && done < len;) {
		ssize_t w = write(fd, data + done, len - done);
		if (w < 0 && errno == EINTR)
			continue;
		ok = w > 0;
		if (w == 0)
			errno = ENOSPC;
		done += ok ? (size_t)w : 0;
	}
	int saved = errno;
	if (close(fd) != 0 && ok) {
		ok = false;
		saved = errno;
	}
	if (ok && rename(tmp, real) != 0) {
		ok = false;
		saved = errno;
	}
	if (!ok)
		(void)unlink(tmp);
	free(tmp);
	free(real);
	errno = saved;
	return ok;
}

/* Apply the recorded edits and write the file back. */
static bool
write_blessed(test_file *tf, kl_buf *report)
{
	qsort(tf->edits, tf->nedits, sizeof *tf->edits, edit_cmp);
	kl_buf out = { 0 };
	const char *s = tf->text, *end = tf->text + tf->len;
	/* A file whose first line ends in CR LF gets its new lines so too,
	 * not a mix of both. */
	const char *nl1 = memchr(s, '\n', tf->len);
	bool crlf = nl1 && nl1 > s && nl1[-1] == '\r';
	uint32_t line = 1, e = 0;
	while (s < end || e < tf->nedits) {
		if (e < tf->nedits && tf->edits[e].first == line) {
			/* A block starts a line, also below a last line
			 * that had no newline. */
			if (out.len && out.data[out.len - 1] != '\n')
				kl_buf_puts(&out, crlf ? "\r\n" : "\n");
			put_lines(&out, tf->edits[e].text, crlf);
			for (uint32_t k = 0; k < tf->edits[e].count && s < end;
			     k++, line++) {
				const char *nl = memchr(s, '\n',
							(size_t)(end - s));
				s = nl ? nl + 1 : end;
			}
			e++;
			continue;
		}
		if (s >= end) {
			/* Edits past the end: append. */
			line = tf->edits[e].first;
			continue;
		}
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *le = nl ? nl + 1 : end;
		kl_buf_append(&out, s, (size_t)(le - s));
		s = le;
		line++;
	}
	bool ok = replace_file(tf->source, out.data, out.len);
	if (!ok)
		kl_buf_printf(report, "%s: cannot write the blessed file: %s "
			      "(the file is left as it was)\n", tf->path,
			      strerror(errno));
	kl_buf_free(&out);
	return ok;
}

/* ---- one file ---- */

typedef struct header_line {
	uint32_t line, name_col, args_col;
	uint32_t nul_col; /* of a NUL in the command or its args, or 0 */
	char *name;
	char *args;
} header_line;

typedef struct header_list {
	header_line *h;
	uint32_t n, cap;
	const char *text;
} header_list;

static void
add_header(void *ctx, uint32_t line, const char *name, size_t nlen,
	   const char *args, size_t alen)
{
	header_list *l = ctx;
	const char *start = args;
	while (start > l->text && start[-1] != '\n')
		start--;
	/* (the copies below would end at it, silently) */
	const char *nul = memchr(name, 0, (size_t)(args + alen - name));
	cli_grow((void **)&l->h, &l->cap, sizeof *l->h, l->n + 1);
	l->h[l->n++] = (header_line){ line, (uint32_t)(name - start) + 1,
				      (uint32_t)(args - start) + 1,
				      nul ? (uint32_t)(nul - start) + 1 : 0,
				      strndup(name, nlen),
				      strndup(args, alen) };
}

/* The `test` lines, blanked in text for the parser. */
static header_line *
read_header(char *text, size_t len, uint32_t *n)
{
	header_list l = { 0 };
	l.text = text;
	cli_blank_test_lines(text, len, add_header, &l);
	*n = l.n;
	return l.h;
}

static void
free_header(header_line *h, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		free(h[i].name);
		free(h[i].args);
	}
	free(h);
}

/* Split the comments among the functions of the module. */
static void
attach_comments(test_file *tf, test_comment *all, uint32_t nall)
{
	kl_module *m = tf->module;
	uint32_t nsyms = kl_module_num_syms(m);
	tf->funcs = cli_alloc(nsyms, sizeof *tf->funcs);
	for (uint32_t s = 0; s < nsyms; s++) {
		kl_func *f = kl_sym_func(m, (kl_sym){ s });
		if (!f)
			continue;
		test_func *t = &tf->funcs[tf->nfuncs++];
		t->func = f;
		kl_func_source_range(f, &t->first_line, &t->last_line);
	}
	if (nall == 0)
		return; /* all is NULL: no pointer arithmetic on it */
	/* The functions come in the order of the text, as the comments do:
	 * one walk down both (from the top again should one not). */
	uint32_t i = 0;
	for (uint32_t k = 0; k < tf->nfuncs; k++) {
		test_func *t = &tf->funcs[k];
		uint32_t stop = k + 1 < tf->nfuncs ? tf->funcs[k + 1].first_line
						   : UINT32_MAX;
		if (i > 0 && all[i - 1].line >= t->first_line)
			i = 0;
		while (i < nall && all[i].line < t->first_line)
			i++;
		t->comments = all + i;
		while (i < nall && all[i].line < stop)
			i++;
		t->ncomments = (uint32_t)(all + i - t->comments);
	}
}

/*
 * Check directives that no command will run are errors, so that a test
 * does not pass while checking nothing: those before the first function,
 * or in a file without functions, belong to none (unowned); in a file
 * whose commands never run a function's directives (roundtrip,
 * interpret, parse-error), none of them is run (idle: all of a file that
 * did not parse). Either way a malformed or misspelt one is reported as
 * such. Returns the failures.
 */
static int
directives_not_run(const test_file *tf, bool idle, kl_buf *report)
{
	uint32_t first = tf->nfuncs ? tf->funcs[0].first_line : UINT32_MAX;
	if (!tf->module)
		first = 0;
	int failures = 0;
	kl_filecheck *fc = kl_filecheck_new();
	for (uint32_t i = 0; i < tf->ncomments; i++) {
		const test_comment *c = &tf->comments[i];
		if (idle ? c->line < first : c->line >= first)
			continue;
		kl_buf err = { 0 };
		int rc = kl_filecheck_add_line(fc, c->text, c->len, c->line,
					       &err);
		if (rc < 0) {
			test_comment_error_at(
				tf, c, c->text + kl_filecheck_error_at(fc),
				report, "bad directive: %s", err.data);
			failures++;
		} else if (rc > 0) {
			const char *t = c->text;
			size_t n = c->len;
			while (n && (*t == ' ' || *t == '\t')) {
				t++;
				n--;
			}
			const char *colon = memchr(t, ':', n);
			test_comment_error(tf, c, report, "'%.*s' %s",
					   (int)(colon - t + 1), t,
					   idle ? "is run by none of this "
						  "file's test commands"
						: "belongs to no function (a "
						  "function owns the comments "
						  "inside it and after it)");
			failures++;
		}
		kl_buf_free(&err);
	}
	kl_filecheck_free(fc);
	return failures;
}

/* The annotation key of comment c ("error", "^error", "run", ...: a key
 * some command reads), or NULL if it is none. */
static const char *
annotation_key(const test_comment *c, char *key, size_t cap)
{
	const char *rest;
	size_t len;
	uint32_t col;
	if (test_caret_annotation(c, &col, &rest, &len))
		return "^error";
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
		const char *keys = commands[i].annotations;
		size_t n;
		for (const char *w; (w = test_next_word(&keys, &n));) {
			if (n >= cap || *w == '^')
				continue;
			memcpy(key, w, n);
			key[n] = '\0';
			if (test_comment_directive(c, key, &rest, &len))
				return key;
		}
	}
	return NULL;
}

/* The commands that read annotations of the key, into report, then
 * "reads it" or "read it". */
static void
list_readers(const char *key, kl_buf *report)
{
	int n = 0;
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (test_has_option(commands[i].annotations, key))
			kl_buf_printf(report, "%s'test %s'", n++ ? " and " : "",
				      commands[i].name);
	kl_buf_puts(report, n > 1 ? " read it" : " reads it");
}

/* The key of an annotation misspelt so that no command reads it, in
 * lower case in key: with capitals ("; RUN:", "; Run:"), with a blank
 * before its ':' ("; run :"), or a run line without its ':' ("; run
 * %f() == 1"; a run line alone, as "; error" and the like begin prose
 * as often); NULL if c is no such comment. *word is the key as written,
 * to its ':' (or its end), and *n its length. */
static const char *
misspelt_annotation(const test_comment *c, char *key, size_t cap,
		    const char **word, size_t *n)
{
	const char *s = c->text, *e = c->text + c->len;
	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	const char *w = s;
	bool capitals = false;
	for (; w < e && ((*w >= 'a' && *w <= 'z') || (*w >= 'A' && *w <= 'Z'));
	     w++)
		capitals |= *w <= 'Z';
	const char *colon = w;
	while (colon < e && (*colon == ' ' || *colon == '\t'))
		colon++;
	if (w == s || colon == e || (size_t)(w - s) >= cap)
		return NULL;
	for (size_t k = 0; k < (size_t)(w - s); k++)
		key[k] = (char)(s[k] | 0x20); /* ASCII letters: lower case */
	key[w - s] = '\0';
	bool no_colon = *colon == '%' && colon > w && strcmp(key, "run") == 0;
	if (!no_colon && (*colon != ':' || (!capitals && colon == w)))
		return NULL;
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (test_has_option(commands[i].annotations, key)) {
			*word = s;
			*n = (size_t)((no_colon ? w : colon) - s);
			return key;
		}
	return NULL;
}

/*
 * Annotations (`; error:`, `; run:`, `; dominates:` ...) that none of the
 * file's commands reads are errors, as unrun check directives are: a test
 * must not pass while checking nothing. So is one before the first
 * function when the commands that read it read a function's comments,
 * and one misspelt (capitals, a blank before the ':'), which none reads.
 * Returns the failures.
 */
static int
annotations_not_read(const test_file *tf, const test_command **cmds,
		     uint32_t ncmds, kl_buf *report)
{
	uint32_t first = tf->nfuncs ? tf->funcs[0].first_line : UINT32_MAX;
	int failures = 0;
	char buf[32];
	for (uint32_t i = 0; i < tf->ncomments; i++) {
		const test_comment *c = &tf->comments[i];
		const char *key = annotation_key(c, buf, sizeof buf);
		const char *word;
		size_t n;
		const char *rest;
		size_t len;
		if (!key && !tf->expect_fail &&
		    test_comment_directive(c, "expect-fail", &rest, &len)) {
			/* a file that must fail, run as one that must pass:
			 * once its failure went, it would pass in silence */
			test_comment_error(tf, c, report,
					   "'; expect-fail:' is "
					   "read by 'keel test --expect-fail' "
					   "only: a file that must fail "
					   "belongs in a run of those");
			failures++;
			continue;
		}
		if (!key &&
		    misspelt_annotation(c, buf, sizeof buf, &word, &n)) {
			/* as a misspelt directive: read by no one */
			bool colon = word[n] == ':';
			test_comment_error(tf, c, report,
					   "'%.*s%s' looks like a "
					   "misspelt annotation (keel's is "
					   "'%s:')", (int)n, word,
					   colon ? ":" : "", buf);
			failures++;
		}
		if (!key)
			continue;
		bool read = false, owned = false;
		for (uint32_t k = 0; k < ncmds; k++) {
			if (!test_has_option(cmds[k]->annotations, key))
				continue;
			read |= !cmds[k]->annotations_per_function ||
				c->line >= first;
			owned |= cmds[k]->annotations_per_function;
		}
		if (read)
			continue;
		const char *shown = *key == '^' ? "^ error" : key;
		if (owned) {
			test_comment_error(tf, c, report, "'%s:' belongs to no "
					   "function (a function owns the "
					   "comments inside it and after it)",
					   shown);
		} else {
			kl_buf readers = { 0 };
			list_readers(key, &readers);
			test_comment_error(tf, c, report, "'%s:' is read by "
					   "none of this file's test commands "
					   "(%s)", shown, readers.data);
			kl_buf_free(&readers);
		}
		failures++;
	}
	return failures;
}

/* The module parsed again, for the commands after one that changed it. */
static void
reparse(test_file *tf, const char *blanked, size_t len,
	test_comment *comments, uint32_t ncomments)
{
	kl_module_free(tf->module);
	kl_diags_free(&tf->parse_diags);
	free(tf->funcs);
	tf->funcs = NULL;
	tf->nfuncs = 0;
	kl_parse_options opts = { .allow_redefinition = true };
	kl_parse_module(blanked, len, &opts, &tf->module, &tf->parse_diags);
	if (tf->module) /* (it parsed the first time, so it does) */
		attach_comments(tf, comments, ncomments);
}

/*
 * The test commands the header names, or NULL (reported) when the header
 * is missing or names a command that does not exist.
 */
static const test_command **
header_commands(test_file *tf, const header_line *header, uint32_t nheader,
		kl_buf *report)
{
	if (nheader == 0 && tf->len >= 3 &&
	    memcmp(tf->text, "\xef\xbb\xbf", 3) == 0) {
		/* an editor's byte order mark hides the first 'test' line;
		 * not skipped: the text format takes none (kl_parse_module
		 * says U+FEFF too), and a test must be a file keel reads */
		error_at(tf, 1, 1, report, "the file starts with U+FEFF (a "
			 "byte order mark), which keel's text does not "
			 "accept: save it without one");
		return NULL;
	}
	if (nheader == 0) {
		error_at(tf, 1, 1, report, "no 'test' lines at the top of the "
			 "file (a test file starts with 'test COMMAND' lines)");
		return NULL;
	}
	const test_command **cmds = cli_alloc(nheader, sizeof *cmds);
	for (uint32_t i = 0; i < nheader; i++) {
		if (header[i].nul_col) {
			error_at(tf, header[i].line, header[i].nul_col, report,
				 "a NUL byte in a 'test' line");
			free(cmds);
			return NULL;
		}
		cmds[i] = find_command(header[i].name, strlen(header[i].name));
		if (!cmds[i]) {
			kl_buf known = { 0 };
			list_commands(&known);
			if (*header[i].name)
				error_at(tf, header[i].line, header[i].name_col,
					 report, "unknown test command '%s' "
					 "(known: %s)", header[i].name,
					 known.data);
			else
				error_at(tf, header[i].line, header[i].name_col,
					 report, "a 'test' line without its "
					 "command (known: %s)", known.data);
			kl_buf_free(&known);
			free(cmds);
			return NULL;
		}
	}
	return cmds;
}

/*
 * Run the header's commands in order, each reporting into report under
 * the name of the command when there are several; returns the failures.
 */
static int
run_commands(test_file *tf, const header_line *header,
	     const test_command **cmds, uint32_t nheader, char *blanked,
	     test_comment *comments, uint32_t ncomments, kl_buf *report)
{
	int failures = 0;
	kl_buf one = { 0 };
	for (uint32_t i = 0; i < nheader; i++) {
		tf->header_line = header[i].line;
		tf->name_col = header[i].name_col;
		tf->args_col = header[i].args_col;
		tf->args = header[i].args;
		kl_buf_reset(&one);
		int f = 0;
		if (!check_args(tf, cmds[i], &one)) {
			f = 1;
		} else if (cmds[i]->needs_function && tf->module &&
			   !tf->nfuncs &&
			   !test_has_option(header[i].args, "module")) {
			error_at(tf, header[i].line, header[i].name_col, &one,
				 "'test %s' checks each function, and the file "
				 "has none", header[i].name);
			f = 1;
		} else {
			f = cmds[i]->run(tf, header[i].args, &one);
		}
		/* With several commands, which one failed. */
		if (f && nheader > 1)
			kl_buf_printf(report, "%s:%u: in 'test %s%s%s':\n",
				      tf->path, header[i].line, header[i].name,
				      *header[i].args ? " " : "",
				      header[i].args);
		kl_buf_append(report, one.data, one.len);
		failures += f;
		/* The commands after one that changed the module (a pass)
		 * see it as the file has it. */
		if (tf->module_changed && i + 1 < nheader && tf->module)
			reparse(tf, blanked, tf->len, comments, ncomments);
		tf->module_changed = false;
	}
	kl_buf_free(&one);
	return failures;
}

/* One run of the file's commands on source, named path in messages, or
 * on given, its text read already (if not NULL); *blessed says whether
 * it was rewritten. */
static int
run_file_once(const char *path, const char *source, const cli_file *given,
	      bool bless, bool expect_fail, bool *blessed, kl_buf *report)
{
	cli_file own = { 0 };
	kl_buf why = { 0 };
	if (!given && !cli_load_file(source, &own, &why)) {
		kl_buf_printf(report, "%s\n", why.data);
		kl_buf_free(&why);
		return 1;
	}
	const cli_file file = given ? *given : own;
	char *blanked = cli_alloc(file.len + 1, 1);
	memcpy(blanked, file.text, file.len + 1);
	uint32_t nheader;
	header_line *header = read_header(blanked, file.len, &nheader);

	test_file tf = { 0 };
	tf.path = path;
	tf.source = source;
	tf.text = file.text;
	tf.len = file.len;
	tf.parse_text = blanked;
	tf.bless = bless;
	tf.expect_fail = expect_fail;
	int failures = 0;
	const test_command **cmds = header_commands(&tf, header, nheader,
						    report);
	if (!cmds) {
		failures = 1;
		goto done;
	}
	kl_parse_options opts = { .allow_redefinition = true };
	kl_parse_module(blanked, file.len, &opts, &tf.module, &tf.parse_diags);
	bool all_handle_errors = true;
	for (uint32_t i = 0; i < nheader; i++)
		all_handle_errors &= !cmds[i]->needs_module;
	if (!tf.module && !all_handle_errors) {
		kl_buf_printf(report, "%s: the file does not parse:\n", path);
		for (uint32_t i = 0; i < tf.parse_diags.len; i++)
			kl_diag_render(&tf.parse_diags.items[i], path,
				       file.text, file.len, report);
		failures = 1;
		goto done;
	}
	uint32_t ncomments = 0;
	test_comment *comments = scan_comments(file.text, file.len, &ncomments);
	tf.comments = comments;
	tf.ncomments = ncomments;
	if (tf.module) {
		attach_comments(&tf, comments, ncomments);
		/* `cat module` runs every directive of the file, functions'
		 * or not (`cat module precise` runs none). */
		bool module_directives = false;
		for (uint32_t i = 0; i < nheader; i++)
			module_directives |= cmds[i]->run == test_cmd_cat &&
					     test_has_option(header[i].args,
							     "module") &&
					     !test_has_option(header[i].args,
							      "precise");
		if (!module_directives)
			failures += directives_not_run(&tf, false, report);
	}
	failures += annotations_not_read(&tf, cmds, nheader, report);
	failures += run_commands(&tf, header, cmds, nheader, blanked, comments,
				 ncomments, report);
	if (!tf.directives_run)
		failures += directives_not_run(&tf, true, report);
	if (bless && !tf.bless_conflict && edits_change(&tf)) {
		if (write_blessed(&tf, report))
			*blessed = true;
		else
			failures++;
	}
	free(comments);

done:
	free(cmds);
	for (uint32_t i = 0; i < tf.nedits; i++)
		free(tf.edits[i].text);
	free(tf.edits);
	free(tf.funcs);
	kl_module_free(tf.module);
	kl_diags_free(&tf.parse_diags);
	free_header(header, nheader);
	free(blanked);
	cli_file_free(&own);
	return failures;
}

int
test_run_file(const char *path, const cli_file *text, bool bless,
	      bool expect_fail, kl_buf *report)
{
	/* Blessing one function's block moves the lines after it, and an
	 * expectation may quote line numbers (a pass's notes do): run again
	 * until nothing changes, a few times at most. The rounds after the
	 * first read the file the first rewrote, not what the path named
	 * when it began (/dev/stdin still reads the replaced file). */
	char *real = bless ? realpath(path, NULL) : NULL;
	bool rewritten = false;
	for (int round = 0;; round++) {
		bool blessed = false;
		kl_buf one = { 0 };
		int failures = run_file_once(path, real ? real : path,
					     round ? NULL : text,
					     bless && round < 4, expect_fail,
					     &blessed, &one);
		rewritten |= blessed;
		if (!blessed || failures) {
			kl_buf_append(report, one.data, one.len);
			/* (the runner's cue for a BLESSED line) */
			if (rewritten && !failures)
				kl_buf_puts(report, TEST_BLESSED "\n");
			kl_buf_free(&one);
			free(real);
			return failures;
		}
		/* what a round that rewrote the file said of it (a note
		 * replaced), which the next round cannot see any more */
		kl_buf_append(report, one.data, one.len);
		kl_buf_free(&one);
	}
}
