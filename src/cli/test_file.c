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
 * file, so a crash here or in the library fails one file only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testcmd.h"

struct bless_edit {
	uint32_t first, count; /* lines replaced: [first, first + count) */
	char *text;            /* replacement, complete lines */
};

static const test_command commands[] = {
	{ "cat", test_cmd_cat, true },
	{ "roundtrip", test_cmd_roundtrip, true },
	{ "parse-error", test_cmd_parse_error, false },
	{ "verifier", test_cmd_verifier, true },
	{ "print-cfg", test_cmd_print_cfg, true },
	{ "domtree", test_cmd_domtree, true },
	{ "loops", test_cmd_loops, true },
	{ "interpret", test_cmd_interpret, true },
	{ "pass", test_cmd_pass, true },
};

static const test_command hidden_commands[] = {
	/* Hooks for testing the runner itself: a crash and a hang. */
	{ "debug-crash", test_cmd_debug_crash, false },
	{ "debug-hang", test_cmd_debug_hang, false },
};

static const test_command *
find_command(const char *name, size_t n)
{
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (strlen(commands[i].name) == n &&
		    memcmp(commands[i].name, name, n) == 0)
			return &commands[i];
	for (size_t i = 0; i < sizeof hidden_commands / sizeof hidden_commands[0];
	     i++)
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
test_has_option(const char *args, const char *w)
{
	size_t n = strlen(w);
	const char *s = args;
	while (*s) {
		while (*s == ' ' || *s == '\t')
			s++;
		const char *b = s;
		while (*s && *s != ' ' && *s != '\t')
			s++;
		if ((size_t)(s - b) == n && memcmp(b, w, n) == 0)
			return true;
	}
	return false;
}

const char *
test_func_name(const test_func *tfn, kl_buf *tmp)
{
	kl_buf_reset(tmp);
	kl_module *m = kl_func_module(tfn->func);
	size_t n;
	const char *name = kl_sym_name(m, kl_func_sym(tfn->func), &n);
	kl_buf_append(tmp, name, n);
	return tmp->data ? tmp->data : "";
}

/* ---- FileCheck ---- */

int
test_filecheck(const test_file *tf, const test_func *tfn, const char *output,
	       size_t len, kl_buf *report)
{
	kl_filecheck *fc = kl_filecheck_new();
	kl_buf err = { 0 };
	int failures = 0;
	for (uint32_t i = 0; i < tfn->ncomments; i++) {
		const test_comment *c = &tfn->comments[i];
		if (kl_filecheck_add_line(fc, c->text, c->len, c->line, &err) < 0) {
			kl_buf_printf(report, "%s:%u: bad directive: %s",
				      tf->path, c->line, err.data);
			kl_buf_reset(&err);
			failures = 1;
		}
	}
	if (!failures && kl_filecheck_count(fc) > 0) {
		kl_buf rep = { 0 };
		if (!kl_filecheck_run(fc, output, len, &rep)) {
			kl_buf name = { 0 };
			kl_buf_printf(report, "%s:%u: checks failed in %%%s:\n",
				      tf->path, tfn->first_line,
				      test_func_name(tfn, &name));
			kl_buf_append(report, rep.data, rep.len);
			kl_buf_puts(report, "--- output was:\n");
			kl_buf_append(report, output, len);
			if (len && output[len - 1] != '\n')
				kl_buf_putc(report, '\n');
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
	if (!same && tf->bless) {
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
		test_add_edit(tf, first, count, text.data ? text.data : "");
		kl_buf_free(&text);
	} else if (!same) {
		kl_buf name = { 0 };
		kl_buf_printf(report, "%s:%u: output of %%%s differs from the "
			      "expected block (run with --bless to update):\n",
			      tf->path, first, test_func_name(tfn, &name));
		kl_buf_free(&name);
		/* Show the first differing line. */
		const char *a = expected.data ? expected.data : "";
		const char *b = output;
		size_t na = expected.len, nb = len, ia = 0, ib = 0;
		for (uint32_t line = 0;; line++) {
			size_t ea = ia, eb = ib;
			while (ea < na && a[ea] != '\n')
				ea++;
			while (eb < nb && b[eb] != '\n')
				eb++;
			bool enda = ia >= na, endb = ib >= nb;
			if (enda && endb)
				break;
			if (enda || endb || ea - ia != eb - ib ||
			    memcmp(a + ia, b + ib, ea - ia) != 0) {
				kl_buf_printf(report, "  line %u of the block:\n"
					      "  expected: %.*s\n  actual:   "
					      "%.*s\n", line + 1,
					      enda ? 5 : (int)(ea - ia),
					      enda ? "(end)" : a + ia,
					      endb ? 5 : (int)(eb - ib),
					      endb ? "(end)" : b + ib);
				break;
			}
			ia = ea + 1;
			ib = eb + 1;
		}
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

void
test_add_edit(test_file *tf, uint32_t first, uint32_t count, const char *text)
{
	cli_grow((void **)&tf->edits, &tf->edits_cap, sizeof *tf->edits,
		      tf->nedits + 1);
	tf->edits[tf->nedits++] =
		(struct bless_edit){ first, count, strdup(text) };
}

static int
edit_cmp(const void *a, const void *b)
{
	const struct bless_edit *x = a, *y = b;
	return x->first < y->first ? -1 : x->first > y->first;
}

/* Apply the recorded edits and write the file back. */
static bool
write_blessed(test_file *tf, kl_buf *report)
{
	qsort(tf->edits, tf->nedits, sizeof *tf->edits, edit_cmp);
	kl_buf out = { 0 };
	const char *s = tf->text, *end = tf->text + tf->len;
	uint32_t line = 1, e = 0;
	while (s < end || e < tf->nedits) {
		if (e < tf->nedits && tf->edits[e].first == line) {
			kl_buf_puts(&out, tf->edits[e].text);
			for (uint32_t k = 0; k < tf->edits[e].count && s < end;
			     k++, line++) {
				const char *nl = memchr(s, '\n', (size_t)(end - s));
				s = nl ? nl + 1 : end;
			}
			e++;
			continue;
		}
		if (s >= end) {
			/* Edits past the end: append. */
			if (out.len && out.data[out.len - 1] != '\n')
				kl_buf_putc(&out, '\n');
			line = tf->edits[e].first;
			continue;
		}
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *le = nl ? nl + 1 : end;
		kl_buf_append(&out, s, (size_t)(le - s));
		s = le;
		line++;
	}
	FILE *fp = fopen(tf->path, "wb");
	bool ok = fp && fwrite(out.data, 1, out.len, fp) == out.len;
	if (fp && fclose(fp) != 0)
		ok = false;
	if (!ok)
		kl_buf_printf(report, "%s: cannot write the blessed file\n",
			      tf->path);
	kl_buf_free(&out);
	return ok;
}

/* ---- one file ---- */

typedef struct header_line {
	uint32_t line;
	char *name;
	char *args;
} header_line;

typedef struct header_list {
	header_line *h;
	uint32_t n, cap;
} header_list;

static void
add_header(void *ctx, uint32_t line, const char *name, size_t nlen,
	   const char *args, size_t alen)
{
	header_list *l = ctx;
	cli_grow((void **)&l->h, &l->cap, sizeof *l->h, l->n + 1);
	l->h[l->n++] = (header_line){ line, strndup(name, nlen),
				      strndup(args, alen) };
}

/* The `test` lines, blanked in text for the parser. */
static header_line *
read_header(char *text, size_t len, uint32_t *n)
{
	header_list l = { 0 };
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
	tf->funcs = calloc(nsyms ? nsyms : 1, sizeof *tf->funcs);
	for (uint32_t s = 0; s < nsyms; s++) {
		kl_func *f = kl_sym_func(m, (kl_sym){ s });
		if (!f)
			continue;
		test_func *t = &tf->funcs[tf->nfuncs++];
		t->func = f;
		kl_func_source_range(f, &t->first_line, &t->last_line);
	}
	for (uint32_t k = 0; k < tf->nfuncs; k++) {
		test_func *t = &tf->funcs[k];
		uint32_t stop = k + 1 < tf->nfuncs ? tf->funcs[k + 1].first_line
						   : UINT32_MAX;
		uint32_t i = 0;
		while (i < nall && all[i].line < t->first_line)
			i++;
		t->comments = all + i;
		while (i < nall && all[i].line < stop)
			i++;
		t->ncomments = (uint32_t)(all + i - t->comments);
	}
}

int
test_run_file(const char *path, bool bless, kl_buf *report)
{
	cli_file file;
	if (!cli_read_file(path, &file)) {
		kl_buf_printf(report, "%s: cannot read the file\n", path);
		return 1;
	}
	char *blanked = malloc(file.len + 1);
	memcpy(blanked, file.text, file.len + 1);
	uint32_t nheader;
	header_line *header = read_header(blanked, file.len, &nheader);

	test_file tf = { 0 };
	tf.path = path;
	tf.text = file.text;
	tf.len = file.len;
	tf.parse_text = blanked;
	tf.bless = bless;
	int failures = 0;
	const test_command **cmds = NULL;

	if (nheader == 0) {
		kl_buf_printf(report, "%s: no 'test' lines at the top of the "
			      "file\n", path);
		failures = 1;
		goto done;
	}
	cmds = calloc(nheader, sizeof *cmds);
	for (uint32_t i = 0; i < nheader; i++) {
		cmds[i] = find_command(header[i].name, strlen(header[i].name));
		if (!cmds[i]) {
			kl_buf_printf(report, "%s:%u: unknown test command '%s' "
				      "(known: ", path, header[i].line,
				      header[i].name);
			list_commands(report);
			kl_buf_puts(report, ")\n");
			failures = 1;
			goto done;
		}
	}

	kl_parse_options opts = { path, true };
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
	if (tf.module)
		attach_comments(&tf, comments, ncomments);
	for (uint32_t i = 0; i < nheader; i++)
		failures += cmds[i]->run(&tf, header[i].args, report);
	if (bless && tf.nedits && !write_blessed(&tf, report))
		failures++;
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
	cli_file_free(&file);
	return failures;
}
