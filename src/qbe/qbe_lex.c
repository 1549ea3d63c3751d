/*
 * qbe_lex.c -- QBE IL text to tokens.
 *
 * QBE's lexical rules (c9x.me/compile/doc/il.html, "Basic Concepts"):
 * `#` starts a comment to the end of the line; names carry a sigil (`$`
 * global, `%` temporary, `@` label, `:` aggregate type); numbers are
 * decimal, optionally negative, and are 64-bit blobs whose low bits a
 * context takes; `s_` and `d_` prefix float literals. A statement of a
 * function ends with its line, so the lexer marks the first token of
 * each line (the parser turns it into the end of a statement) instead of
 * making newline tokens.
 *
 * Each token carries its line and byte column, both from 1, as keel's
 * own parser counts them (docs/ir.md, "Positions in error messages").
 * A malformed token is reported here and returned as QTOK_ERROR; the
 * parser then skips the rest of the statement or definition, with the
 * lexer quiet meanwhile (qbe_lexer.quiet).
 */
#include <stdarg.h>
#include <string.h>

#include "qbe.h"

void
qbe_verror(kl_diags *d, qbe_pos pos, const char *fmt, va_list ap)
{
	kl_buf b = { 0 };
	kl_buf_vprintf(&b, fmt, ap);
	kl_diags_add(d, KL_SEV_ERROR, pos.line, pos.col, b.data ? b.data : "");
	kl_buf_free(&b);
}

void
qbe_error(kl_diags *d, qbe_pos pos, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	qbe_verror(d, pos, fmt, ap);
	va_end(ap);
}

void
qbe_lex_init(qbe_lexer *lx, const char *text, size_t len, kl_diags *diags,
	     kl_arena *arena)
{
	memset(lx, 0, sizeof *lx);
	lx->text = lx->p = lx->line_begin = text;
	lx->end = text + len;
	lx->line = 1;
	lx->diags = diags;
	lx->arena = arena;
	lx->line_start = true;
}

static bool
is_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '$';
}

/* Where a number or a float literal must end. */
static bool
is_delimiter(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ',' ||
	       c == '(' || c == ')' || c == '{' || c == '}' || c == '#' ||
	       c == '=' || c == '+';
}

static qbe_pos
pos_at(const qbe_lexer *lx, const char *p)
{
	return (qbe_pos){ lx->line, (uint32_t)(p - lx->line_begin) + 1 };
}

static qbe_tok
lex_error(qbe_lexer *lx, qbe_tok t, const char *msg)
{
	if (!lx->quiet) {
		qbe_error(lx->diags, t.pos, "%s", msg);
		lx->errors++;
	}
	t.kind = QTOK_ERROR;
	return t;
}

/* Blanks, comments and newlines before the next token. */
static void
skip_space(qbe_lexer *lx)
{
	while (lx->p < lx->end) {
		char c = *lx->p;
		if (c == '\n') {
			lx->p++;
			lx->line++;
			lx->line_begin = lx->p;
			lx->line_start = true;
		} else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' ||
			   c == '\v') {
			lx->p++;
		} else if (c == '#') {
			while (lx->p < lx->end && *lx->p != '\n')
				lx->p++;
		} else {
			return;
		}
	}
}

static int
hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if ((c | 32) >= 'a' && (c | 32) <= 'f')
		return (c | 32) - 'a' + 10;
	return -1;
}

/* The byte an escape after '\' stands for; *p moves past it. -1: bad. */
static int
unescape(const char **p, const char *end)
{
	static const char from[] = "ntr0abfve\\\"'";
	static const char to[] = "\n\t\r\0\a\b\f\v\033\\\"'";
	char c = **p;
	if (c >= '0' && c <= '7') {
		int v = 0;
		for (int k = 0; k < 3 && *p < end && **p >= '0' && **p <= '7';
		     k++)
			v = v * 8 + (*(*p)++ - '0');
		return v & 0xff;
	}
	if (c == 'x') {
		int v = 0, k = 0;
		(*p)++;
		for (; k < 2 && *p < end && hex_value(**p) >= 0; k++)
			v = v * 16 + hex_value(*(*p)++);
		return k ? v : -1;
	}
	const char *at = memchr(from, c, sizeof from - 1);
	if (!at)
		return -1;
	(*p)++;
	return (unsigned char)to[at - from];
}

static qbe_tok
lex_string(qbe_lexer *lx, qbe_tok t)
{
	const char *p = lx->p + 1, *q = p;
	size_t n = 0;
	/* first the length, then the bytes (the arena wants a size) */
	while (q < lx->end && *q != '"' && *q != '\n') {
		if (*q == '\\' && q + 1 < lx->end) {
			q++;
			if (unescape(&q, lx->end) < 0) {
				lx->p = q;
				t.pos = pos_at(lx, q - 1);
				return lex_error(lx, t, "unknown escape in a "
						 "string");
			}
		} else {
			q++;
		}
		n++;
	}
	if (q >= lx->end || *q != '"') {
		lx->p = q;
		return lex_error(lx, t, "unterminated string");
	}
	if (n > UINT32_MAX / 2) {
		lx->p = q + 1;
		return lex_error(lx, t, "string too long");
	}
	char *out = kl_arena_alloc(lx->arena, n + 1);
	size_t k = 0;
	while (p < q) {
		if (*p == '\\') {
			p++;
			out[k++] = (char)unescape(&p, lx->end);
		} else {
			out[k++] = *p++;
		}
	}
	lx->p = q + 1;
	t.kind = QTOK_STRING;
	t.s = out;
	t.len = (uint32_t)n;
	return t;
}

static qbe_tok
lex_number(qbe_lexer *lx, qbe_tok t)
{
	const char *p = lx->p;
	bool neg = *p == '-';
	if (neg)
		p++;
	uint64_t v = 0;
	bool overflow = false;
	const char *digits = p;
	while (p < lx->end && *p >= '0' && *p <= '9') {
		unsigned d = (unsigned)(*p++ - '0');
		if (v > (UINT64_MAX - d) / 10)
			overflow = true;
		v = v * 10 + d;
	}
	if (p == digits || (p < lx->end && !is_delimiter(*p))) {
		while (p < lx->end && !is_delimiter(*p))
			p++;
		lx->p = p;
		return lex_error(lx, t, "malformed number");
	}
	t.len = (uint32_t)(p - lx->p);
	lx->p = p;
	if (overflow)
		return lex_error(lx, t, "number does not fit in 64 bits");
	t.kind = QTOK_INT;
	t.bits = neg ? 0 - v : v;
	return t;
}

/* s_FLOAT or d_FLOAT: the literal as keel's text reads decimals. */
static qbe_tok
lex_float(qbe_lexer *lx, qbe_tok t, bool single)
{
	const char *start = lx->p + 2, *p = start;
	while (p < lx->end && (!is_delimiter(*p) ||
			       (*p == '+' && (p[-1] | 32) == 'e')))
		p++;
	size_t n = (size_t)(p - start), used;
	t.len = (uint32_t)(p - lx->p);
	lx->p = p;
	if (single) {
		uint32_t bits = 0;
		used = scan_f32(start, n, &bits);
		t.bits = bits;
	} else {
		used = scan_f64(start, n, &t.bits);
	}
	if (n == 0 || used != n)
		return lex_error(lx, t, single ? "malformed single-precision "
						 "constant (s_1.5, s_-2e3)"
					       : "malformed double-precision "
						 "constant (d_1.5, d_-2e3)");
	t.kind = single ? QTOK_SINGLE : QTOK_DOUBLE;
	return t;
}

static qbe_tok lex_token(qbe_lexer *lx);

qbe_tok
qbe_lex_next(qbe_lexer *lx)
{
	qbe_tok t = lex_token(lx);
	t.end = t.kind == QTOK_EOF ? t.pos : pos_at(lx, lx->p);
	return t;
}

static qbe_tok
lex_token(qbe_lexer *lx)
{
	skip_space(lx);
	qbe_tok t = { 0 };
	t.line_start = lx->line_start;
	lx->line_start = false;
	t.pos = pos_at(lx, lx->p);
	t.s = lx->p;
	if (lx->p >= lx->end) {
		t.kind = QTOK_EOF;
		return t;
	}
	char c = *lx->p;
	if (c == '"')
		return lex_string(lx, t);
	if ((c >= '0' && c <= '9') ||
	    (c == '-' && lx->p + 1 < lx->end && lx->p[1] >= '0' &&
	     lx->p[1] <= '9'))
		return lex_number(lx, t);
	if ((c == 's' || c == 'd') && lx->p + 1 < lx->end && lx->p[1] == '_')
		return lex_float(lx, t, c == 's');
	if (c == '$' || c == '%' || c == '@' || c == ':') {
		const char *p = lx->p + 1;
		while (p < lx->end && is_name_char(*p))
			p++;
		t.s = lx->p + 1;
		t.len = (uint32_t)(p - t.s);
		lx->p = p;
		if (t.len == 0)
			return lex_error(lx, t, c == '$' ? "a name must follow "
							  "'$'"
						: "a name must follow its "
						  "sigil");
		t.kind = c == '$' ? QTOK_GLOBAL
			 : c == '%' ? QTOK_TEMP
			 : c == '@' ? QTOK_LABEL
				    : QTOK_AGG;
		return t;
	}
	if (is_name_char(c)) {
		const char *p = lx->p;
		while (p < lx->end && is_name_char(*p))
			p++;
		t.len = (uint32_t)(p - lx->p);
		lx->p = p;
		if (t.len == 3 && memcmp(t.s, "...", 3) == 0) {
			t.kind = QTOK_DOTS;
			return t;
		}
		t.kind = QTOK_WORD;
		return t;
	}
	if (strchr("=,(){}+-", c) && c != '\0') {
		lx->p++;
		t.kind = QTOK_PUNCT;
		t.punct = c;
		t.len = 1;
		return t;
	}
	lx->p++;
	/* skip the rest of a UTF-8 character, reported as one */
	while (lx->p < lx->end && ((unsigned char)*lx->p & 0xc0) == 0x80)
		lx->p++;
	return lex_error(lx, t, "unexpected character");
}
