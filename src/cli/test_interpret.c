/*
 * test_interpret.c -- the `interpret` test command: run functions and
 * check what they compute (docs/interpreter.md, "The interpret test
 * command").
 *
 *   test interpret [fuel=N] [depth=N] [memory=N] [after=PASS[,PASS...]]
 *
 * Every `; run:` comment of the file is one check:
 *
 *   ; run: %f(1, 2) == 3             the results, in order
 *   ; run: %g(0) == 1, 7             several results
 *   ; run: %h(5) != 0                the results differ from these
 *   ; run: %d(1, 0) traps int_divz   a trap (user N, stack_overflow,
 *                                    out_of_fuel, abort, bad_sig ...)
 *   ; run: %e(3) exits 3             the program called exit(3)
 *   ; run: %x() fails external       a failure whose message contains
 *                                    the text (e.g. an unknown external)
 *   ; run: %p()                      returns normally, results unchecked
 *   ; output: hello\n                the program's output (see below)
 *
 * Arguments and expected results are literals of the parameter and
 * result types in the text format's spelling; floats compare bit for bit
 * (nan is the canonical quiet NaN; nan:0x... names any other). Any
 * function of the module may be called; a name that a redefinition in
 * the file shares calls the definition the run line belongs to (the
 * function it is written in or after), so before/after versions of one
 * function can be checked side by side.
 *
 * Output: the `; output:` lines after a run line (up to the next run line)
 * are concatenated, C escapes decoded (\n \t \\ \" \xNN ...), and must
 * equal the run's output exactly; no newline is added, so a line of output
 * is written `; output: hi\n`. Trailing blanks of a comment are not part
 * of it: write \x20. A run with no output lines does not check its output;
 * a lone `; output:` says there is none.
 *
 * Each run starts from fresh memory (kl_interp_reset) with a fuel budget
 * (default 100M instructions, so a runaway loop fails instead of hanging)
 * and the interpreter's default limits. The module must verify first.
 *
 * With after=PASSES, the passes run over every function first (as `test
 * pass` runs them, verifying before and after each), and the run lines
 * run what they made: `test interpret` and `test interpret after=promote`
 * in one file check that promote keeps every result.
 */
#include <stdlib.h>
#include <string.h>

#include "runs.h"
#include "testcmd.h"

#define DEFAULT_FUEL 100000000ull
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
#define FUZZ_FUEL 100000ull
#define FUZZ_MEMORY (16ull << 20)
#define FUZZ_DEPTH 1000u
#endif

typedef struct line_runner {
	test_file *tf;
	kl_module *m;
	kl_interp *it;
	/* the program's output, as much of it as the `output:` lines can
	 * match (an endless printer holds no more) */
	run_output out;
	kl_buf expected; /* decoded output lines */
	kl_buf tmp;
	kl_buf *report;
	/* The file's functions by their first line, for owner(). */
	const test_func **by_line;
} line_runner;

/* ---- scanning a run line ---- */

typedef struct cursor {
	const char *s, *e;
} cursor;

static void
skip_blanks(cursor *c)
{
	while (c->s < c->e && (*c->s == ' ' || *c->s == '\t'))
		c->s++;
}

static bool
accept(cursor *c, const char *w)
{
	skip_blanks(c);
	size_t n = strlen(w);
	if ((size_t)(c->e - c->s) < n || memcmp(c->s, w, n) != 0)
		return false;
	c->s += n;
	return true;
}

static bool
name_char(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       (ch >= '0' && ch <= '9') || ch == '_' || ch == '.';
}

static int
hexval(char ch)
{
	return ch >= '0' && ch <= '9' ? ch - '0' :
	       ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 :
	       ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
}

/* A function name: %name, #hex or noname; bytes into name. */
static bool
scan_name(cursor *c, kl_buf *name)
{
	skip_blanks(c);
	kl_buf_reset(name);
	if (accept(c, "noname"))
		return true;
	if (c->s < c->e && *c->s == '%') {
		const char *b = ++c->s;
		while (c->s < c->e && name_char(*c->s))
			c->s++;
		kl_buf_append(name, b, (size_t)(c->s - b));
		return c->s > b;
	}
	if (c->s < c->e && *c->s == '#') {
		c->s++;
		while (c->e - c->s >= 2 && hexval(c->s[0]) >= 0 &&
		       hexval(c->s[1]) >= 0) {
			kl_buf_putc(name, (char)(hexval(c->s[0]) * 16 +
						 hexval(c->s[1])));
			c->s += 2;
		}
		return name->len > 0;
	}
	return false;
}

/* Where a value of a list does not scan, but a literal stands there
 * (up to ',', ')' or a blank): say that it is no value of the type,
 * which is what is wrong, in bad ("argument 1 ('256') is not a valid
 * i8"); bad's first word names the list. Else leave bad alone, and the
 * caller says what it expected. */
static void
say_not_valid(const kl_module *m, cursor *c, uint32_t k, kl_type t,
	      kl_buf *bad)
{
	skip_blanks(c);
	const char *end = c->s;
	while (end < c->e && *end != ',' && *end != ')' && *end != ' ' &&
	       *end != '\t')
		end++;
	if (end == c->s)
		return;
	kl_buf_printf(bad, " %u ('%.*s') is not a valid %s", k + 1,
		      (int)(end - c->s), c->s, kl_type_name(m, t));
}

/* Literals of types[0..n) separated by commas; false if malformed. */
static bool
scan_values(const kl_module *m, cursor *c, const kl_type *types, uint32_t n,
	    uint64_t *vals, const char *close, kl_buf *bad)
{
	for (uint32_t k = 0; k < n; k++) {
		if (k && !accept(c, ","))
			return false;
		size_t used = kl_interp_scan_value(m, types[k], c->s,
						   (size_t)(c->e - c->s),
						   &vals[k]);
		if (!used) {
			say_not_valid(m, c, k, types[k], bad);
			return false;
		}
		c->s += used;
	}
	skip_blanks(c);
	return close ? accept(c, close) : true;
}

/* ---- expectations ---- */

enum expect_kind { EX_EQ, EX_NE, EX_TRAP, EX_EXIT, EX_FAIL, EX_RETURN };

typedef struct expect {
	enum expect_kind kind;
	uint64_t vals[64];
	uint32_t trap, user_code;
	int64_t exit_code;
	const char *text; /* EX_FAIL */
	size_t text_len;
} expect;

static bool
scan_trap(const kl_module *m, cursor *c, expect *x)
{
	skip_blanks(c);
	for (uint32_t t = 0; t < KL_TRAP_RUN_COUNT; t++) {
		cursor save = *c;
		if (!accept(c, kl_run_trap_name(t)) ||
		    (c->s < c->e && name_char(*c->s))) {
			*c = save;
			continue;
		}
		x->trap = t;
		if (t == KL_TRAP_USER) {
			/* A literal as the run's arguments spell one ("010"
			 * is ten), not negative: the code is unsigned. */
			skip_blanks(c);
			uint64_t v;
			if (c->s < c->e && *c->s == '-')
				return false;
			size_t used = kl_interp_scan_value(
				m, KL_TYPE_I32, c->s, (size_t)(c->e - c->s),
				&v);
			if (!used)
				return false;
			x->user_code = (uint32_t)v;
			c->s += used;
		}
		return true;
	}
	return false;
}

/* " (i32, f64)": the types of a list, for messages. */
static void
put_types(const kl_module *m, kl_buf *b, const kl_type *types, uint32_t n)
{
	kl_buf_puts(b, " (");
	for (uint32_t k = 0; k < n; k++)
		kl_buf_printf(b, "%s%s", k ? ", " : "",
			      kl_type_name(m, types[k]));
	kl_buf_puts(b, ")");
}

/* The expectation after the call into x; false with what was expected
 * in why. */
static bool
scan_expect(const kl_module *m, cursor *c, const kl_signature *sig,
	    expect *x, kl_buf *why)
{
	skip_blanks(c);
	if (c->s == c->e) {
		x->kind = EX_RETURN;
		return true;
	}
	const char *op = c->s;
	bool eq = accept(c, "==");
	if (eq || accept(c, "!=")) {
		x->kind = eq ? EX_EQ : EX_NE;
		if (sig->num_results == 0) {
			c->s = op; /* the caret under the comparison */
			kl_buf_printf(why, "the function returns no value to "
				      "compare: without '%s ...' the line "
				      "checks that the call returns",
				      eq ? "==" : "!=");
			return false;
		}
		if (sig->num_results > 64) {
			kl_buf_printf(why, "the call gives %u results: a run "
				      "line compares at most 64",
				      sig->num_results);
			return false;
		}
		kl_buf bad = { 0 };
		bool ok = scan_values(m, c, sig->results, sig->num_results,
				      x->vals, NULL, &bad);
		if (ok || bad.len) {
			if (bad.len)
				kl_buf_printf(why, "result%s", bad.data);
			kl_buf_free(&bad);
			return ok;
		}
		kl_buf_printf(why, "expected the call's %u result%s after "
			      "'%s'", sig->num_results,
			      sig->num_results == 1 ? "" : "s",
			      eq ? "==" : "!=");
		put_types(m, why, sig->results, sig->num_results);
		return false;
	}
	if (accept(c, "traps")) {
		x->kind = EX_TRAP;
		x->trap = KL_TRAP_RUN_COUNT; /* none yet */
		if (scan_trap(m, c, x))
			return true;
		if (x->trap == KL_TRAP_USER) {
			kl_buf_puts(why, "expected the number of the user trap "
				    "after 'traps user', 0 or more");
			return false;
		}
		kl_buf_puts(why, "expected a trap code after 'traps' (");
		for (uint32_t k = 0; k < KL_TRAP_RUN_COUNT; k++)
			kl_buf_printf(why, "%s%s%s", k ? " " : "",
				      kl_run_trap_name(k),
				      k == KL_TRAP_USER ? " N" : "");
		kl_buf_puts(why, ")");
		return false;
	}
	if (accept(c, "exits")) {
		/* exit's argument is an i32: read as one */
		x->kind = EX_EXIT;
		uint64_t v;
		size_t used = kl_interp_scan_value(m, KL_TYPE_I32, c->s,
						   (size_t)(c->e - c->s), &v);
		if (!used) {
			kl_buf_puts(why, "expected an i32 exit status after "
				    "'exits'");
			return false;
		}
		x->exit_code = (int32_t)(uint32_t)v;
		c->s += used;
		return true;
	}
	if (accept(c, "fails")) {
		x->kind = EX_FAIL;
		skip_blanks(c);
		x->text = c->s;
		x->text_len = (size_t)(c->e - c->s);
		c->s = c->e;
		return true;
	}
	kl_buf_puts(why, "expected '==', '!=', 'traps', 'exits' or 'fails' "
		    "after the call, or nothing");
	return false;
}

/* ---- output lines ---- */

/* Decode the C escapes of s[0..n) into out; false if one is malformed,
 * *bad then the offset of its '\\'. */
static bool
unescape(const char *s, size_t n, kl_buf *out, size_t *bad)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] != '\\') {
			kl_buf_putc(out, s[i]);
			continue;
		}
		*bad = i;
		if (++i >= n)
			return false;
		switch (s[i]) {
		case 'n': kl_buf_putc(out, '\n'); break;
		case 't': kl_buf_putc(out, '\t'); break;
		case 'r': kl_buf_putc(out, '\r'); break;
		case '0': kl_buf_putc(out, '\0'); break;
		case 'a': kl_buf_putc(out, '\a'); break;
		case 'b': kl_buf_putc(out, '\b'); break;
		case 'f': kl_buf_putc(out, '\f'); break;
		case 'v': kl_buf_putc(out, '\v'); break;
		case '\\': kl_buf_putc(out, '\\'); break;
		case '"': kl_buf_putc(out, '"'); break;
		case '\'': kl_buf_putc(out, '\''); break;
		case 'x':
			if (i + 2 >= n || hexval(s[i + 1]) < 0 ||
			    hexval(s[i + 2]) < 0)
				return false;
			kl_buf_putc(out, (char)(hexval(s[i + 1]) * 16 +
						hexval(s[i + 2])));
			i += 2;
			break;
		default:
			return false;
		}
	}
	return true;
}

/* Show text with escapes, for reports. */
static void
put_escaped(kl_buf *out, const char *s, size_t n)
{
	kl_buf_putc(out, '"');
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (ch == '\n')
			kl_buf_puts(out, "\\n");
		else if (ch == '\\' || ch == '"')
			kl_buf_printf(out, "\\%c", ch);
		else if (ch >= 32 && ch < 127)
			kl_buf_putc(out, (char)ch);
		else
			kl_buf_printf(out, "\\x%02x", ch);
	}
	kl_buf_putc(out, '"');
}

/* ---- running ---- */

static int
cmp_first_line(const void *a, const void *b)
{
	uint32_t x = (*(const test_func *const *)a)->first_line;
	uint32_t y = (*(const test_func *const *)b)->first_line;
	return (x > y) - (x < y);
}

/* The functions of tf sorted by first line, for owner(). */
static const test_func **
sort_by_line(const test_file *tf)
{
	const test_func **v = cli_alloc(tf->nfuncs + 1, sizeof *v);
	for (uint32_t k = 0; k < tf->nfuncs; k++)
		v[k] = &tf->funcs[k];
	qsort(v, tf->nfuncs, sizeof *v, cmp_first_line);
	return v;
}

/* The test function a line belongs to (in it or after it: the last to
 * start at or above it), or NULL. A binary search: a file of many
 * functions each with its run line took one walk of them all a line. */
static const test_func *
owner(const line_runner *rn, uint32_t line)
{
	uint32_t lo = 0, hi = rn->tf->nfuncs;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (rn->by_line[mid]->first_line <= line)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? rn->by_line[lo - 1] : NULL;
}

/* The function a run line calls. */
static kl_sym
callee(const line_runner *rn, const test_comment *c, const kl_buf *name)
{
	const test_func *own = owner(rn, c->line);
	if (own) {
		size_t n;
		kl_sym s = kl_func_sym(own->func);
		const char *bytes = kl_sym_name(rn->m, s, &n);
		if (n == name->len &&
		    (n == 0 || memcmp(bytes, name->data, n) == 0))
			return s;
	}
	return kl_module_lookup(rn->m, name->data ? name->data : "", name->len);
}

static void
put_values(const kl_module *m, const kl_type *types, const uint64_t *vals,
	   uint32_t n, kl_buf *out)
{
	for (uint32_t k = 0; k < n; k++) {
		if (k)
			kl_buf_puts(out, ", ");
		kl_interp_format_value(m, types[k], vals[k], out);
	}
	if (n == 0)
		kl_buf_puts(out, "(no results)");
}

/* Does the outcome meet the expectation? */
static bool
outcome_ok(const kl_run_result *res, const expect *x)
{
	switch (x->kind) {
	case EX_EQ:
	case EX_NE: {
		if (res->status != KL_RUN_RETURNED)
			return false;
		bool same = memcmp(res->results, x->vals,
				   res->num_results * sizeof *x->vals) == 0;
		return same == (x->kind == EX_EQ);
	}
	case EX_TRAP:
		return res->status == KL_RUN_TRAPPED && res->trap == x->trap &&
		       (x->trap != KL_TRAP_USER ||
			res->user_code == x->user_code);
	case EX_EXIT:
		return res->status == KL_RUN_EXITED &&
		       res->exit_code == x->exit_code;
	case EX_FAIL: {
		if (res->status != KL_RUN_FAILED)
			return false;
		size_t n = strlen(res->message);
		for (size_t k = 0; k + x->text_len <= n; k++)
			if (memcmp(res->message + k, x->text, x->text_len) == 0)
				return true;
		return false;
	}
	case EX_RETURN:
		return res->status == KL_RUN_RETURNED;
	}
	return false;
}

/* The expected output: `output:` lines after comment k, up to a run. */
static bool
expected_output(line_runner *rn, uint32_t k, bool *have)
{
	const test_file *tf = rn->tf;
	kl_buf_reset(&rn->expected);
	*have = false;
	for (uint32_t j = k + 1; j < tf->ncomments; j++) {
		const char *rest;
		size_t len;
		const test_comment *c = &tf->comments[j];
		if (test_comment_directive(c, "run", &rest, &len))
			break;
		if (!test_comment_directive(c, "output", &rest, &len))
			continue;
		*have = true;
		size_t bad = 0;
		if (!unescape(rest, len, &rn->expected, &bad)) {
			test_comment_error_at(tf, c, rest + bad, rn->report,
					      "bad escape in an output line");
			return false;
		}
	}
	return true;
}

static void
report_outcome(line_runner *rn, const test_comment *c, const kl_run_result *res,
	       const char *line, size_t len)
{
	kl_buf *r = rn->report;
	kl_buf_printf(r, "%s:%u: run: %.*s\n  got: ", rn->tf->path, c->line,
		      (int)len, line);
	if (res->status == KL_RUN_RETURNED) {
		/* ("returned": beside "trap ..." and "exit 3", a bare "1"
		 * reads as a count) */
		kl_buf_puts(r, "returned ");
		put_values(rn->m, res->result_types, res->results,
			   res->num_results, r);
		kl_buf_putc(r, '\n');
	} else {
		kl_buf_reset(&rn->tmp);
		kl_run_describe(rn->it, res, &rn->tmp);
		kl_buf_append(r, rn->tmp.data, rn->tmp.len);
	}
}

/* One run line; returns the number of failures (0 or 1). */
static int
run_line(line_runner *rn, uint32_t k, const char *line, size_t len)
{
	const test_comment *c = &rn->tf->comments[k];
	const char *path = rn->tf->path;
	cursor cur = { line, line + len };
	kl_buf name = { 0 };
	uint64_t args[64];
	expect x;
	memset(&x, 0, sizeof x);
	int fail = 1;
	kl_sym s = KL_NO_SYM;
	/* An error's caret goes where the reading stopped. */
	skip_blanks(&cur);
	const char *name_at = cur.s;
	if (!scan_name(&cur, &name) || !accept(&cur, "(")) {
		test_comment_error_at(rn->tf, c, cur.s, rn->report, "run: "
				      "expected a call like %%f(1, 2)");
		goto out;
	}
	s = callee(rn, c, &name);
	if (s.id == KL_NONE || !kl_sym_func(rn->m, s)) {
		kl_buf spelt = { 0 };
		kl_name_format(name.data, name.len, &spelt);
		test_comment_error_at(rn->tf, c, name_at, rn->report, "run: no "
				      "function %s defined", spelt.data);
		kl_buf_free(&spelt);
		goto out;
	}
	kl_signature sig = kl_sym_signature(rn->m, s);
	kl_buf why = { 0 }, bad = { 0 };
	bool args_ok = sig.num_params <= 64 &&
		       scan_values(rn->m, &cur, sig.params, sig.num_params,
				   args, ")", &bad);
	if (sig.num_params > 64) {
		kl_buf_printf(&why, "the call takes %u arguments: a run line "
			      "passes at most 64", sig.num_params);
	} else if (bad.len) {
		kl_buf_printf(&why, "argument%s", bad.data);
	} else if (!args_ok) {
		kl_buf_printf(&why, "expected the call's %u argument%s",
			      sig.num_params, sig.num_params == 1 ? "" : "s");
		put_types(rn->m, &why, sig.params, sig.num_params);
		kl_buf_puts(&why, ", then ')'");
	} else if (scan_expect(rn->m, &cur, &sig, &x, &why) &&
		   (skip_blanks(&cur), cur.s != cur.e)) {
		kl_buf_puts(&why, "unexpected text after the expectation");
	}
	kl_buf_free(&bad);
	if (why.len) {
		skip_blanks(&cur);
		test_comment_error_at(rn->tf, c, cur.s, rn->report, "run: %s",
				      why.data);
		kl_buf_free(&why);
		goto out;
	}
	bool have_output;
	if (!expected_output(rn, k, &have_output))
		goto out;
	kl_interp_reset(rn->it);
	/* (a byte past what is expected is enough to show it is more) */
	run_output_start(&rn->out, have_output ? rn->expected.len + 1 : 0);
	kl_run_result res;
	kl_interp_call(rn->it, s, args, sig.num_params, &res);
	if (!outcome_ok(&res, &x)) {
		report_outcome(rn, c, &res, line, len);
		goto out;
	}
	const kl_buf *got = &rn->out.kept;
	if (have_output && (rn->out.len != rn->expected.len ||
			    (got->len && memcmp(got->data, rn->expected.data,
						got->len) != 0))) {
		kl_buf_printf(rn->report, "%s:%u: run: %.*s\n  output:   ",
			      path, c->line, (int)len, line);
		put_escaped(rn->report, got->data, got->len);
		if (rn->out.len > got->len)
			kl_buf_printf(rn->report, "... (%llu bytes in all)",
				      (unsigned long long)rn->out.len);
		kl_buf_puts(rn->report, "\n  expected: ");
		put_escaped(rn->report, rn->expected.data, rn->expected.len);
		kl_buf_putc(rn->report, '\n');
		goto out;
	}
	fail = 0;
out:
	kl_buf_free(&name);
	return fail;
}

/* Every function must verify before anything runs. */
static int
verify(test_file *tf, kl_buf *report)
{
	int failures = 0;
	kl_diags diags = { 0 };
	for (uint32_t k = 0; k < tf->nfuncs; k++) {
		const kl_func *f = tf->funcs[k].func;
		if (kl_verify_func(f, NULL, &diags) == KL_OK)
			continue;
		failures++;
		kl_buf headers = { 0 }, listing = { 0 };
		kl_verify_render(f, &diags, tf->path, false, &headers,
				 &listing);
		kl_buf_append(report, headers.data, headers.len);
		kl_buf_free(&headers);
		kl_buf_free(&listing);
		kl_diags_free(&diags);
	}
	kl_diags_free(&diags);
	return failures;
}

/* after=PASSES: run them over every function; the number of functions
 * they failed on (reported), or -1 for a bad list. Every after= given is
 * checked, as every other option is, and the last one runs. */
static int
run_passes_first(test_file *tf, const char *args, kl_buf *report)
{
	static const char key[] = "after=";
	const size_t key_len = sizeof key - 1;
	const kl_pass *passes[CLI_MAX_PASSES];
	uint32_t npasses = 0;
	bool given = false;
	size_t len;
	for (const char *w; (w = test_next_word(&args, &len));) {
		if (len > key_len && memcmp(w, key, key_len) == 0) {
			if (!test_parse_passes(tf, w + key_len, len - key_len,
					       passes, &npasses, report))
				return -1;
			given = true;
		}
	}
	if (!given)
		return 0;
	int failures = 0;
	kl_buf notes = { 0 };
	for (uint32_t k = 0; k < tf->nfuncs; k++)
		failures += !test_run_passes(tf, &tf->funcs[k], passes, npasses,
					     false, false, &notes, report);
	kl_buf_free(&notes);
	return failures;
}

int
test_cmd_interpret(test_file *tf, const char *args, kl_buf *report)
{
	int failures = run_passes_first(tf, args, report);
	if (failures)
		return failures < 0 ? 1 : failures;
	failures = verify(tf, report);
	if (failures)
		return failures;
	line_runner rn = { 0 };
	rn.tf = tf;
	rn.m = tf->module;
	rn.report = report;
	kl_interp_options io = { 0 };
	io.fuel = test_number_option(args, "fuel", DEFAULT_FUEL);
	/* 0 would be the library's default, not a limit of none as fuel=0
	 * is: an error, as keel run's --max-depth 0 is. */
	size_t word_len;
	const char *depth_at = test_option_word(args, "depth", &word_len);
	const char *memory_at = test_option_word(args, "memory", &word_len);
	uint64_t depth = test_number_option(args, "depth", 0);
	uint64_t memory = test_number_option(args, "memory", 0);
	const char *zero = NULL;
	if (depth_at && depth == 0)
		zero = depth_at;
	else if (memory_at && memory == 0)
		zero = memory_at;
	if (zero) {
		test_args_error(tf, zero, report,
				"'%.*s' needs a positive number (fuel=0 "
				"alone means no limit)",
				(int)(strchr(zero, '=') - zero) + 1, zero);
		return 1;
	}
	if (depth > UINT32_MAX) {
		test_args_error(tf, depth_at, report,
				"'depth=' is at most %u", UINT32_MAX);
		return 1;
	}
	io.max_depth = (uint32_t)depth;
	io.max_memory = memory;
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
	/* fuzz/fuzz_testfile.c runs any file in process, where the default
	 * 100M instructions (or fuel=0, none) per run line would be taken
	 * for a hang, and 256 MiB per run for a leak: small limits, as the
	 * library's fuzz targets give the interpreter. */
	if (io.fuel == 0 || io.fuel > FUZZ_FUEL)
		io.fuel = FUZZ_FUEL;
	if (io.max_memory == 0 || io.max_memory > FUZZ_MEMORY)
		io.max_memory = FUZZ_MEMORY;
	if (io.max_depth == 0 || io.max_depth > FUZZ_DEPTH)
		io.max_depth = FUZZ_DEPTH;
#endif
	io.output = run_output_take;
	io.output_ctx = &rn.out;
	rn.it = kl_interp_new(rn.m, &io);
	rn.by_line = sort_by_line(tf);
	uint32_t runs = 0;
	for (uint32_t k = 0; k < tf->ncomments; k++) {
		const char *rest;
		size_t len;
		const test_comment *c = &tf->comments[k];
		/* Output lines belong to the run line above them: one above
		 * every run line would be checked by none. */
		if (runs == 0 &&
		    test_comment_directive(c, "output", &rest, &len)) {
			test_comment_error(tf, c, report, "'output:' follows "
					   "no '; run:' line (it checks the "
					   "output of the run line above it)");
			failures++;
		}
		if (!test_comment_directive(c, "run", &rest, &len))
			continue;
		runs++;
		failures += run_line(&rn, k, rest, len);
	}
	if (runs == 0) {
		test_line_error(tf, report, "no '; run:' lines to check");
		failures++;
	}
	kl_interp_free(rn.it);
	free(rn.by_line);
	kl_buf_free(&rn.out.kept);
	kl_buf_free(&rn.expected);
	kl_buf_free(&rn.tmp);
	return failures;
}
