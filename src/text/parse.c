/*
 * parse.c -- the text parser: diagnostics, scanning, function bodies
 * (instructions are parse_inst.c's, the module level parse_module.c's).
 *
 * Hand-written recursive descent working directly on the bytes (no token
 * array, no per-token allocation). A module is read in two steps
 * (parse_module.c): the first reads the item headers and skips function
 * bodies, the second parses the bodies, here. Body text is therefore
 * scanned twice, but the skip only looks for '}' and ';' and costs a few
 * percent.
 *
 * Entity numbers written in the text are kept: v7 is entry 7 of the value
 * table. Uses may come before definitions (in another block); such forward
 * references are remembered with their position and checked when the body
 * ends. Numbers are capped (MAX_ENTITY_NUMBER) and the module has a budget
 * of table slots proportional to the input size, so hostile text cannot
 * make the parser allocate gigabytes.
 *
 * Error recovery: an error records a diagnostic and longjmps back to the
 * statement loop, which skips the rest of the cursor's line -- unless the
 * cursor is at the first token of a line after the statement's first: an
 * error found there (a ':' or a ')' missing at the end of a line) was
 * found looking past the statement's end, and that line starts the next
 * statement, so skipping it would give a false error for each definition
 * it held. The item loop likewise skips to the next line that starts an
 * item, which may be the cursor's. Diagnostics are sorted by position at
 * the end, since headers are read before bodies.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

/* ---- diagnostics ---- */

uint32_t
col_of(const parser *p, const char *pos)
{
	const char *ls = p->line_start;
	if (pos < ls) {
		/* An earlier line: find its start. */
		ls = pos;
		while (ls > p->src && ls[-1] != '\n')
			ls--;
	}
	return (uint32_t)(pos - ls) + 1;
}

uint32_t
line_of(const parser *p, const char *pos)
{
	if (pos >= p->line_start)
		return p->line;
	uint32_t line = p->line;
	for (const char *q = p->line_start; q > pos;)
		if (*--q == '\n')
			line--;
	return line;
}

/* An error shown at line:col, found where the scan stopped, at
 * stop_line:stop_col (the same place but for fail_expected's). */
static void KL_PRINTF(6, 0)
add_diag(parser *p, uint32_t line, uint32_t col, uint32_t stop_line,
	 uint32_t stop_col, const char *fmt, va_list ap)
{
	p->func_errors++;
	/* Recovery may try the line an error was found on as the next
	 * statement; failing again where the last error was says nothing
	 * new. */
	if (p->errors && stop_line == p->last_error_line &&
	    stop_col == p->last_error_col)
		return;
	p->errors++;
	p->last_error_line = stop_line;
	p->last_error_col = stop_col;
	if (p->errors > MAX_ERRORS)
		return;
	kl_buf msg = { 0 };
	kl_buf_vprintf(&msg, fmt, ap);
	kl_diags_add(p->diags, KL_SEV_ERROR, line, col,
		     msg.data ? msg.data : "");
	kl_buf_free(&msg);
	kl_diag *d = &p->diags->items[p->diags->len - 1];
	if (p->f)
		d->func = (kl_sym){ p->f->sym };
}

void
perr_at(parser *p, uint32_t line, uint32_t col, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	add_diag(p, line, col, line, col, fmt, ap);
	va_end(ap);
}

static void fail_if_swallowed(parser *p, const char *pos);

void
fail_at(parser *p, const char *pos, const char *fmt, ...)
{
	fail_if_swallowed(p, pos);
	va_list ap;
	va_start(ap, fmt);
	uint32_t line = line_of(p, pos), col = col_of(p, pos);
	add_diag(p, line, col, line, col, fmt, ap);
	va_end(ap);
	longjmp(p->jb, 1);
}

/* fail_at, shown at another place than where the scan stopped. */
static KL_NORETURN KL_PRINTF(4, 5) void
fail_shown_at(parser *p, const char *shown, const char *stop,
	      const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	add_diag(p, line_of(p, shown), col_of(p, shown), line_of(p, stop),
		 col_of(p, stop), fmt, ap);
	va_end(ap);
	longjmp(p->jb, 1);
}

void
fail_quietly(parser *p)
{
	KL_ASSERT(p->errors > 0);
	/* The function's end checks would see the statement missing. */
	p->func_errors++;
	longjmp(p->jb, 1);
}

/* What code point c is, when a screen shows it as a blank, or not at
 * all; NULL for one that shows. Quoted, it would read "found ''" (a byte
 * order mark an editor put before the text) or "found ' '" (a no-break
 * space pasted from a web page). */
static const char *
unseen(uint32_t c)
{
	if (c == 0xfeff)
		return "a byte order mark: save the file without one";
	if (c >= 0x80 && c <= 0x9f) /* C1: nothing, or a terminal's command */
		return "a control character";
	if (c == 0xa0 || c == 0x202f)
		return "a no-break space";
	if (c == 0x1680 || (c >= 0x2000 && c <= 0x200a) || c == 0x205f ||
	    c == 0x3000 || c == 0x2028 || c == 0x2029)
		return "a blank that is not ASCII";
	if (c == 0xad || c == 0x180e || (c >= 0x200b && c <= 0x200f) ||
	    (c >= 0x202a && c <= 0x202e) || (c >= 0x2060 && c <= 0x2064) ||
	    (c >= 0x2066 && c <= 0x2069))
		return "an invisible character";
	return NULL;
}

const char *
describe(const parser *p, const char *pos, char *buf, size_t cap)
{
	if (pos >= p->end)
		return "end of file";
	unsigned char c = (unsigned char)*pos;
	if (c == '\n')
		return "end of line";
	if (c < 32 || c >= 127) {
		/* A character typed by mistake (a smart quote, an accented
		 * letter) is quoted as the user sees it. */
		size_t n = kl_utf8_len((const unsigned char *)pos,
				       (size_t)(p->end - pos));
		uint32_t cp = n ? kl_utf8_decode((const unsigned char *)pos,
						 n) : 0;
		const char *what = n ? unseen(cp) : NULL;
		if (what)
			snprintf(buf, cap, "U+%04" PRIX32 " (%s)", cp, what);
		else if (n)
			snprintf(buf, cap, "'%.*s'", (int)n, pos);
		else
			snprintf(buf, cap, "byte 0x%02x", c);
		return buf;
	}
	size_t n = 0;
	/* (a negative number whole: "found '-5'", not "found '-'") */
	bool minus = c == '-' && pos + 1 < p->end && pos[1] >= '0' &&
		     pos[1] <= '9';
	bool word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '_' || c == '%' ||
		    c == '#' || minus;
	if (word) {
		while (pos + n < p->end && n < 24) {
			char d = pos[n];
			bool w = (d >= 'a' && d <= 'z') ||
				 (d >= 'A' && d <= 'Z') ||
				 (d >= '0' && d <= '9') ||
				 d == '_' || d == '.' ||
				 (n == 0 && (d == '%' || d == '#' || d == '-'));
			if (!w)
				break;
			n++;
		}
	} else {
		n = 1;
	}
	snprintf(buf, cap, "'%.*s'", (int)n, pos);
	return buf;
}

/* ---- scanning ---- */

/* Blanks, newlines and comments, any number. */
static KL_NOINLINE void
skip_blanks(parser *p)
{
	const char *s = p->p, *end = p->end;
	while (s < end) {
		char c = *s;
		if (c == ' ') {
			/* Indentation comes in fours: one compare for four. */
			if (end - s >= 4 && memcmp(s, "    ", 4) == 0)
				s += 4;
			else
				s++;
		} else if (c == '\n') {
			s++;
			p->line++;
			p->line_start = s;
		} else if (c == '\t' || c == '\r') {
			s++;
		} else if (c == ';') {
			const char *nl = memchr(s, '\n', (size_t)(end - s));
			s = nl ? nl : end;
		} else {
			break;
		}
	}
	p->p = s;
}

void
skip_ws_slow(parser *p)
{
	const char *s = p->p, *end = p->end;
	/* Nearly every call: the end of a line, then the next line's
	 * indentation and a token. That path calls nothing, so it needs no
	 * stack frame. */
	if (end - s >= 6 && s[0] == '\n' && memcmp(s + 1, "    ", 4) == 0 &&
	    (unsigned char)s[5] > ' ' && s[5] != ';') {
		p->line++;
		p->line_start = s + 1;
		p->p = s + 5;
		return;
	}
	skip_blanks(p);
}

/* Is pos the first token of its line (only blanks before it)? */
static bool
starts_line(const parser *p, const char *pos)
{
	const char *q = pos;
	while (q > p->src && (q[-1] == ' ' || q[-1] == '\t' || q[-1] == '\r'))
		q--;
	return q == p->src || q[-1] == '\n';
}

/* The end of the code on the line before pos's (its comment and
 * trailing blanks left out; lines of only blanks and comments skipped),
 * or NULL if no such line comes after line `first`. A ';' inside a
 * string is no comment. */
static const char *
end_of_previous_code(const parser *p, const char *pos, uint32_t first)
{
	const char *ls = pos;
	while (ls > p->src && ls[-1] != '\n')
		ls--;
	for (uint32_t line = line_of(p, pos); line > first; line--) {
		const char *prev = ls - 1; /* the '\n' ending the line before */
		ls = prev;
		while (ls > p->src && ls[-1] != '\n')
			ls--;
		const char *code_end = ls;
		bool in_string = false;
		for (const char *q = ls; q < prev; q++) {
			if (in_string) {
				if (*q == '\\' && q + 1 < prev)
					q++;
				else if (*q == '"')
					in_string = false;
				code_end = q + 1;
			} else if (*q == ';') {
				break;
			} else if (*q == '"') {
				in_string = true;
				code_end = q + 1;
			} else if (*q != ' ' && *q != '\t' && *q != '\r') {
				code_end = q + 1;
			}
		}
		if (code_end > ls)
			return code_end;
	}
	return NULL;
}

/* A hint for a line that starts a comment of C, C++ or a shell at s
 * (keel's comments start with ';'), or "". */
const char *
comment_hint(const parser *p, const char *s)
{
	bool comment = s < p->end &&
		       (*s == '#' || (*s == '/' && s + 1 < p->end &&
				      (s[1] == '/' || s[1] == '*')));
	return comment ? " (comments start with ';')" : "";
}

/* Is the last statement of the block being read a `return` without
 * values (whose value a line too far down is then alone)? */
static bool
after_bare_return(const parser *p)
{
	const kl_func *f = p->f;
	if (!p->in_block || !f || f->last_block >= f->nblocks)
		return false;
	uint32_t i = f->blocks[f->last_block].last;
	const uint32_t *args;
	return i < f->ninsts && f->insts[i].op == KL_OP_RETURN &&
	       inst_args(f, i, &args) == 0;
}

/*
 * "expected WHAT, found ..." for what is at pos. A statement in a body is
 * one line (the printer writes it so, and recovery counts on it), so when
 * pos is the first token of a later line and could start a statement (a
 * word or '}'), what is missing was missing at the end of the line
 * before: the error goes there, naming the token the scan went on to and
 * its line (v1 = iadd v0, <- here, not at the next line's 'return'). Other
 * bytes there are a continuation line's mistake, and headers and data
 * may span lines: those keep pos.
 */
void
fail_expected(parser *p, const char *pos, const char *what)
{
	fail_expected_hint(p, pos, what, "");
}

/* fail_expected with a hint after the message (" (one of ...)"). */
void
fail_expected_hint(parser *p, const char *pos, const char *what,
		   const char *hint)
{
	char buf[64];
	const char *found = describe(p, pos, buf, sizeof buf);
	const char *at = NULL;
	if (p->f && pos < p->end &&
	    (is_ident_char((unsigned char)*pos) || *pos == '}') &&
	    starts_line(p, pos))
		at = end_of_previous_code(p, pos, p->stmt_line);
	/* the same between items: a header may span lines, but the next
	 * item's keyword at a line's start ends it ("declare %g" then
	 * "function ...") */
	else if (!p->f && starts_line(p, pos) &&
		 at_line_start_keyword(p, pos))
		at = end_of_previous_code(p, pos, p->stmt_line);
	if (at)
		fail_shown_at(p, at, pos, "expected %s, found %s on line %u%s",
			      what, found, line_of(p, pos), hint);
	fail_at(p, pos, "expected %s, found %s%s", what, found, hint);
}

const char *
skip_blanks_at(const parser *p, const char *q)
{
	while (q < p->end && (*q == ' ' || *q == '\t'))
		q++;
	return q;
}

bool
ends_like_block_header(const parser *p, const char *q)
{
	q = skip_blanks_at(p, q);
	if (q < p->end && *q == '(') {
		while (q < p->end && *q != ')' && *q != '\n')
			q++;
		if (q < p->end && *q == ')')
			q++;
		q = skip_blanks_at(p, q);
	}
	return q < p->end && *q == ':';
}

/* The length of "vN" or "blockN" at s (prefix: "v" or "block"), or 0. */
static size_t
entity_word(const parser *p, const char *s, const char *prefix)
{
	size_t k = strlen(prefix), n = k;
	if ((size_t)(p->end - s) <= k || memcmp(s, prefix, k) != 0)
		return 0;
	while (s + n < p->end && *(s + n) >= '0' && *(s + n) <= '9')
		n++;
	return n > k && (s + n == p->end || !is_ident_char((unsigned char)s[n]))
		       ? n : 0;
}

/*
 * An error at pos, on a line whose first word the statement before it
 * took as its last operand: a line "v1 = iadd v0," (its operand
 * missing) reads on into "v2 = iconst.i32 1" below, takes v2 as the
 * operand and stops at the '='; "jump" takes the header "block1:"'s
 * block. The mistake is at the end of the line before, which is where
 * this reports it, as fail_expected does for a word that no operand can
 * be. Only a definition ("vN =") or a block header ("blockN:",
 * "blockN(...):") is taken for a statement of its own: any other word
 * there may continue the line before (a long argument list), and the
 * error stays where it is.
 */
static void
fail_if_swallowed(parser *p, const char *pos)
{
	if (!p->f || !p->stmt_start || pos >= p->end)
		return;
	const char *ls = pos;
	while (ls > p->src && ls[-1] != '\n')
		ls--;
	const char *w = ls;
	while (w < pos && (*w == ' ' || *w == '\t' || *w == '\r'))
		w++;
	/* w was read by a statement that began on an earlier line: this
	 * one, or, when this one began after w, the one before it */
	if (w >= pos || pos < p->stmt_start)
		return;
	if (p->stmt_start >= ls &&
	    (p->stmt_start <= w || !p->prev_stmt_start ||
	     p->prev_stmt_start >= ls))
		return;
	size_t n = entity_word(p, w, "v");
	bool value = n > 0;
	if (value) {
		const char *q = skip_blanks_at(p, w + n);
		if (q >= p->end || *q != '=')
			return;
	} else {
		n = entity_word(p, w, "block");
		if (n == 0 || !ends_like_block_header(p, w + n))
			return;
	}
	const char *at = end_of_previous_code(p, w, 0);
	if (!at)
		return;
	/* Recovery reads the statement again from its start, as the next
	 * one: the value or block it makes is not lost. */
	uint32_t line = line_of(p, w);
	p->stmt_line = line_of(p, at);
	p->p = w;
	p->line = line;
	p->line_start = ls;
	fail_shown_at(p, at, pos, "expected %s, found %s %.*s on line %u",
		      value ? "a value" : "a block",
		      value ? "the definition of" : "the header of", (int)n,
		      w, line);
}

void
expect_failed(parser *p, const char *what)
{
	fail_expected(p, p->p, what);
}

#define R4(x) x, x, x, x
#define R8(x) R4(x), R4(x)
#define R16(x) R8(x), R8(x)
/* 1 for the bytes of identifiers: letters, digits and '_'. */
const unsigned char ident_class[256] = {
	['0'] = 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	['A'] = R16(1), R8(1), 1, 1,
	['_'] = 1,
	['a'] = R16(1), R8(1), 1, 1,
};
#undef R4
#undef R8
#undef R16

#ifdef PARSE_SSE2
/* Bit k set where byte k of the 16 at s is an identifier's (as
 * ident_class: bytes from 0x80 compare negative, so in no range). */
static inline uint32_t
ident_mask16(const char *s)
{
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)s);
#define IN_RANGE(lo, hi)                                                     \
	_mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8((char)((lo) - 1))),    \
		      _mm_cmplt_epi8(v, _mm_set1_epi8((char)((hi) + 1))))
	__m128i m = _mm_or_si128(
		_mm_or_si128(IN_RANGE('a', 'z'), IN_RANGE('A', 'Z')),
		_mm_or_si128(IN_RANGE('0', '9'),
			     _mm_cmpeq_epi8(v, _mm_set1_epi8('_'))));
#undef IN_RANGE
	return (uint32_t)_mm_movemask_epi8(m);
}
#endif

size_t
scan_ident(parser *p, const char **start)
{
	skip_ws(p);
	const char *s = p->p;
	*start = s;
	const char *end = p->end;
#ifdef PARSE_SSE2
	/* Most identifiers (mnemonics, codes) end within 16 bytes: found
	 * without a loop over their bytes, whose count varies. */
	if (KL_LIKELY(end - s >= 16)) {
		uint32_t stop = ~ident_mask16(s) & 0xffffu;
		if (KL_LIKELY(stop != 0)) {
			p->p = s + kl_ctz64(stop);
			return (size_t)(p->p - s);
		}
		s += 16;
	}
#endif
	while (s < end && ident_class[(unsigned char)*s])
		s++;
	p->p = s;
	return (size_t)(s - *start);
}

void
type_expected(parser *p)
{
	fail_expected(p, p->p, "a type (i8 i16 i32 i64 f32 f64, s8 .. s64, "
					"u8 .. u64, ptr)");
}

/* The value of a decimal digit, above 9 for any other byte. */
static inline uint32_t
digit_value(char c)
{
	return (uint32_t)(unsigned char)c - '0';
}

/* A hex digit's value plus one, 0 for any other byte (the digits of
 * #hex names and \x string escapes). */
const uint8_t hex_value1[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5,
	['5'] = 6, ['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
	['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
	['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

uint64_t
parse_float(parser *p, bool single)
{
	const char *s = p->p;
	size_t n = (size_t)(p->end - s);
	uint64_t bits = 0;
	size_t used;
	if (single) {
		uint32_t b = 0;
		used = scan_f32(s, n, &b);
		bits = b;
	} else {
		used = scan_f64(s, n, &bits);
	}
	/* Text that starts like a number but is none ("1.5_", "+1") is a
	 * malformed literal; other text is no literal at all. */
	char c = n ? s[0] : 0;
	bool numberish = (c >= '0' && c <= '9') || c == '-' || c == '+' ||
			 c == '.' || (n >= 3 && (memcmp(s, "nan", 3) == 0 ||
						 memcmp(s, "inf", 3) == 0));
	if (!used && hex_float_lacks_exponent(s, n))
		fail_at(p, s, "malformed float literal: a hex float with a "
			"point needs its p exponent (0x1.8p0)");
	if (!used && numberish)
		fail_at(p, s, "malformed float literal");
	if (!used)
		fail_expected(p, s, "a float literal");
	if (used < n && (is_ident_char((unsigned char)s[used]) ||
			 s[used] == '.'))
		fail_at(p, s, "malformed float literal");
	/* A hex float says its bits: one the type cannot hold is a mistake
	 * to report, not a number to round; a decimal is rounded, but not
	 * to infinity or to zero. */
	const char *type = single ? "f32" : "f64";
	switch (float_literal_fit(s, used, single, bits)) {
	case FLOAT_FITS:
		break;
	case FLOAT_HEX_INEXACT:
		fail_at(p, s, "hex float literal is not exact in %s", type);
		break;
	case FLOAT_TOO_LARGE:
		fail_at(p, s, "float literal is too large for %s (it would "
			"round to inf)", type);
		break;
	case FLOAT_TOO_SMALL:
		fail_at(p, s, "float literal is too small for %s (it would "
			"round to 0)", type);
		break;
	}
	p->p += used;
	return bits;
}

const char iconst_immediate[] = "an integer immediate";

/* iconst given the float literal at start (1.5, 1e-5, inf, 0x1p3: a word
 * that reads further as a float than as an integer, to its end) is told
 * which instructions make floats. */
static void
refuse_float(parser *p, const char *start)
{
	size_t left = (size_t)(p->end - start);
	uint64_t bits, mag;
	bool neg, overflow;
	size_t n = scan_f64(start, left, &bits);
	bool whole = n == left || !is_ident_char((unsigned char)start[n]);
	if (whole && n > scan_int(start, left, &neg, &mag, &overflow))
		fail_at(p, start, "iconst makes integers, not '%.*s': use "
			"f32const or f64const for floats",
			quoted_len(start, start + n), start);
}

/*
 * An integer literal: optional '-', decimal or 0x hex digits, '_' between
 * digits. Returns its value as int64; positive values up to 2^64-1 keep
 * their bits (callers range-check against the type). The general path;
 * parse_int tries the common short decimals first.
 */
static KL_NOINLINE int64_t
parse_int_slow(parser *p, const char *what)
{
	const char *start = p->p;
	bool neg, overflow;
	uint64_t v;
	size_t used = scan_int(start, (size_t)(p->end - start), &neg, &v,
			       &overflow);
	const char *s = start + used;
	bool bad_end = s < p->end &&
		       (is_ident_char((unsigned char)*s) || *s == '.');
	if ((!used || bad_end) && what == iconst_immediate)
		refuse_float(p, start);
	if (!used)
		fail_expected(p, start, what);
	if (bad_end) {
		fail_at(p, start, "'%.*s' is not an integer",
			quoted_len(start, word_end(p, s, true)), start);
	}
	if (overflow || (neg && v > (uint64_t)1 << 63))
		fail_at(p, start, "number does not fit in 64 bits");
	p->p = s;
	return neg ? (int64_t)(0 - v) : (int64_t)v;
}

/*
 * Fast path: '-' and up to INT_FAST_DIGITS plain decimal digits, with the
 * byte after them in the text, so the digit loop needs no bounds test.
 * It calls nothing else, which keeps it free of a frame. Anything else
 * (hex, '_', more digits, a bad end, errors) takes the general path,
 * which gives the same value or the message.
 */
#define INT_FAST_DIGITS 9

int64_t
parse_int(parser *p, const char *what)
{
	skip_ws(p);
	const char *s = p->p;
	if (KL_LIKELY(p->end - s > INT_FAST_DIGITS + 1)) {
		const char *digits = s + (*s == '-');
		const char *q = digits;
		uint64_t v = 0;
		uint32_t d;
		while ((d = digit_value(*q)) < 10 &&
		       q - digits < INT_FAST_DIGITS) {
			v = v * 10 + d;
			q++;
		}
		if (q != digits && !is_ident_char((unsigned char)*q) &&
		    *q != '.') {
			p->p = q;
			return digits != s ? (int64_t)(0 - v) : (int64_t)v;
		}
	}
	return parse_int_slow(p, what);
}

uint32_t
parse_u32(parser *p, const char *what, uint32_t least)
{
	skip_ws(p);
	const char *start = p->p;
	int64_t v = parse_int(p, what);
	if (v < 0 || v > (int64_t)UINT32_MAX)
		fail_at(p, start, "%s must be between %" PRIu32
			" and 4294967295", what, least);
	return (uint32_t)v;
}

int64_t
parse_signed_offset(parser *p)
{
	const char *sign = p->p;
	p->p++;
	skip_ws(p);
	/* The sign is written once: "+-8" would be one too many. */
	if (peek(p) == '-' || peek(p) == '+')
		expect_failed(p, "an offset");
	uint64_t v = (uint64_t)parse_int(p, "an offset");
	if (*sign == '+')
		return (int64_t)v; /* up to 2^64 - 1, kept as bits */
	if (v > (uint64_t)1 << 63)
		fail_at(p, sign, "offset does not fit in 64 bits");
	return (int64_t)(0 - v);
}

uint32_t
parse_alignment(parser *p)
{
	skip_ws(p);
	const char *pos = p->p;
	int64_t a = parse_int(p, "an alignment");
	if (a <= 0 || a > (int64_t)1 << 31 || (a & (a - 1)))
		fail_at(p, pos, "alignment must be a power of two from 1 to "
			"2^31");
	return (uint32_t)a;
}

void
parse_name(parser *p, kl_buf *tmp, const char **bytes, size_t *len)
{
	skip_ws(p);
	const char *s = p->p, *end = p->end;
	if (s < end && *s == '%') {
		const char *b = ++s;
		while (s < end &&
		       (is_ident_char((unsigned char)*s) || *s == '.'))
			s++;
		if (s == b) {
			char buf[64];
			fail_at(p, p->p, "expected a name after '%%', found %s",
				describe(p, s, buf, sizeof buf));
		}
		*bytes = b;
		*len = (size_t)(s - b);
		p->p = s;
		return;
	}
	if (s < end && *s == '#') {
		const char *b = ++s;
		kl_buf_reset(tmp);
		while (s + 1 < end && hex_digit((unsigned char)s[0]) >= 0 &&
		       hex_digit((unsigned char)s[1]) >= 0) {
			kl_buf_putc(tmp,
				    (char)(hex_digit((unsigned char)s[0]) << 4 |
					   hex_digit((unsigned char)s[1])));
			s += 2;
		}
		if (s < end && (hex_digit((unsigned char)*s) >= 0 ||
				is_ident_char((unsigned char)*s)))
			fail_at(p, b - 1, "a #name needs pairs of hex digits");
		if (s == b) {
			char buf[64];
			fail_at(p, b - 1,
				"expected hex digits after '#', found "
				"%s", describe(p, s, buf, sizeof buf));
		}
		*bytes = tmp->data;
		*len = tmp->len;
		p->p = s;
		return;
	}
	if (at_word(p, "noname")) {
		p->p += 6;
		*bytes = "";
		*len = 0;
		return;
	}
	fail_expected(p, s, "a name (%name, #hex or noname)");
}

uint32_t
parse_sym_use(parser *p)
{
	skip_ws(p);
	const char *pos = p->p;
	const char *bytes;
	size_t len;
	kl_buf_reset(&p->names); /* parser-owned: an error may unwind */
	parse_name(p, &p->names, &bytes, &len);
	kl_sym s = kl_module_lookup(p->m, bytes, len);
	if (s.id == KL_NONE)
		fail_at(p, pos, "unknown symbol %.*s", (int)(p->p - pos), pos);
	return s.id;
}

/* ---- entities of the function being parsed ---- */

uint32_t
entity_number(parser *p, const char *start, size_t prefix)
{
	const char *s = start + prefix, *end = p->end;
	const char *digits = s;
	uint64_t v = 0;
	while (s < end && *s >= '0' && *s <= '9') {
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > MAX_ENTITY_NUMBER)
			fail_at(p, start, "entity number too large (the limit "
				"is %u)", MAX_ENTITY_NUMBER);
		s++;
	}
	if (s == digits || (s < end && is_ident_char((unsigned char)*s))) {
		s = word_end(p, s, false);
		fail_at(p, start, "'%.*s' is not a name: write %.*s and "
			"digits only, as %.*s12", quoted_len(start, s), start,
			(int)prefix, start, (int)prefix, start);
	}
	if (s - digits > 1 && *digits == '0') {
		const char *nz = digits;
		while (nz + 1 < s && *nz == '0')
			nz++;
		fail_at(p, start, "entity numbers have no leading zeros: "
			"write %.*s%.*s", (int)(digits - start), start,
			(int)(s - nz), nz);
	}
	p->p = s;
	return (uint32_t)v;
}

static void
spend_budget(parser *p, uint32_t have, uint32_t want, const char *pos)
{
	if (want <= have)
		return;
	uint64_t need = want - have;
	if (need > p->entity_budget) {
		int n = quoted_len(pos, word_end(p, pos, false));
		fail_at(p, pos, "%.*s is too large a number for a file this "
			"size (the numbers are too sparse: a module may use "
			"one million plus two per byte of text); number "
			"from 0, densely", n, pos);
	}
	p->entity_budget -= need;
}

static void
remember(parser *p, fwd_ref **arr, uint32_t *n, uint32_t *cap, uint32_t id,
	 const char *pos)
{
	kl_grow(arr, cap, sizeof **arr, *n + 1);
	(*arr)[(*n)++] = (fwd_ref){ id, line_of(p, pos), col_of(p, pos) };
}

/* The general path of value_number: any spelling, or the message. */
static KL_NOINLINE uint32_t
value_number_slow(parser *p, const char *pos)
{
	if (p->p >= p->end || *p->p != 'v' || p->p + 1 >= p->end ||
	    p->p[1] < '0' || p->p[1] > '9') {
		/* A number where a value goes: the constant a newcomer
		 * writes in place of the instruction that makes it. */
		const char *d = p->p < p->end && *p->p == '-' ? p->p + 1 : p->p;
		bool number = d < p->end && *d >= '0' && *d <= '9';
		fail_expected_hint(p, p->p, "a value",
				   number ? " (make the constant with "
					    "iconst.T, f32const or f64const, "
					    "or use the _imm form of the "
					    "instruction if it has one)"
					  : "");
	}
	uint32_t v = entity_number(p, p->p, 1);
	spend_budget(p, p->f->nvalues, v + 1, pos);
	func_reserve_values(p->f, v + 1);
	return v;
}

/* A value number above the table's: spend the budget and grow it. */
static KL_NOINLINE void
new_value_numbers(parser *p, uint32_t v, const char *pos)
{
	spend_budget(p, p->f->nvalues, v + 1, pos);
	func_reserve_values(p->f, v + 1);
}

/* Make sure value v exists. A new one is usually the next, with room for
 * it (the body's tables are sized from its line count): done in place. */
static inline void
value_exists(parser *p, uint32_t v, const char *pos)
{
	kl_func *f = p->f;
	if (KL_LIKELY(v < f->nvalues))
		return;
	if (KL_LIKELY(v == f->nvalues && v < f->values_cap &&
		      p->entity_budget > 0)) {
		p->entity_budget--;
		f->values[v] = value_hole();
		f->nvalues = v + 1;
		return;
	}
	new_value_numbers(p, v, pos);
}

/*
 * The common spelling of an entity number at s: at most 7 digits and no
 * leading zero, so under MAX_ENTITY_NUMBER, and the byte after them in
 * the text, so that the digit loop needs no bounds test. Returns the end
 * of the digits and their value in *v, or NULL for anything else, errors
 * included: the general path (entity_number) gives the same number or
 * the message.
 */
static inline const char *
scan_number(const char *s, const char *end, uint32_t *v)
{
	if (KL_UNLIKELY(end - s <= 8))
		return NULL;
	uint32_t n = digit_value(s[0]), d;
	const char *q = s + 1;
	if (n > 9)
		return NULL;
	/* 0 stops at once: a digit after it is an error. */
	if (n) {
		while ((d = digit_value(*q)) < 10 && q - s < 8) {
			n = n * 10 + d;
			q++;
		}
	}
	if (q - s >= 8 || is_ident_char((unsigned char)*q))
		return NULL;
	*v = n;
	return q;
}

/* vN at s, as scan_number. */
static inline const char *
scan_value(const char *s, const char *end, uint32_t *v)
{
	if (s >= end || s[0] != 'v')
		return NULL;
	return scan_number(s + 1, end, v);
}

static inline uint32_t
value_number(parser *p, const char **pos)
{
	skip_ws(p);
	const char *s = p->p;
	*pos = s;
	uint32_t v;
	const char *q = scan_value(s, p->end, &v);
	if (KL_UNLIKELY(!q))
		return value_number_slow(p, s);
	value_exists(p, v, s);
	p->p = q;
	return v;
}

/* Any use of a value: new numbers, uses before the definition. */
static KL_NOINLINE uint32_t
value_use_slow(parser *p)
{
	const char *pos;
	uint32_t v = value_number(p, &pos);
	if (p->f->values[v].kind == VK_UNUSED)
		remember(p, &p->fwd_values, &p->nfwd_values,
			 &p->fwd_values_cap, v, pos);
	return v;
}

/*
 * Most uses name a value defined on an earlier line, after one blank:
 * that path calls nothing, so it needs no stack frame.
 */
uint32_t
parse_value_use(parser *p)
{
	const char *s = p->p, *end = p->end;
	if (s < end && *s == ' ') /* skip_ws's own fast path */
		s++;
	uint32_t v;
	const char *q = scan_value(s, end, &v);
	const kl_func *f = p->f;
	if (KL_LIKELY(q && v < f->nvalues && f->values[v].kind != VK_UNUSED)) {
		p->p = q;
		return v;
	}
	return value_use_slow(p);
}

/* A block number above the table's: spend the budget and grow it. */
static KL_NOINLINE void
new_block_numbers(parser *p, uint32_t b, const char *pos)
{
	spend_budget(p, p->f->nblocks, b + 1, pos);
	func_reserve_blocks(p->f, b + 1);
}

/* The general path of block_number: any spelling, or the message. */
static KL_NOINLINE uint32_t
block_number_slow(parser *p, const char *pos)
{
	if ((size_t)(p->end - pos) < 6 || memcmp(pos, "block", 5) != 0 ||
	    pos[5] < '0' || pos[5] > '9')
		fail_expected(p, pos, "a block");
	uint32_t b = entity_number(p, pos, 5);
	new_block_numbers(p, b, pos);
	return b;
}

/* Make sure block b exists. A new one is usually the next, with room for
 * it (the line table grows with the block table): done in place. */
static inline void
block_exists(parser *p, uint32_t b, const char *pos)
{
	kl_func *f = p->f;
	if (KL_LIKELY(b < f->nblocks))
		return;
	if (KL_LIKELY(b == f->nblocks && b < f->blocks_cap &&
		      p->entity_budget > 0)) {
		p->entity_budget--;
		f->blocks[b] = block_hole();
		f->block_lines[b] = 0;
		f->nblocks = b + 1;
		return;
	}
	new_block_numbers(p, b, pos);
}

/* blockN, read as values are (scan_number) in the common case. */
static inline uint32_t
block_number(parser *p, const char **pos)
{
	skip_ws(p);
	const char *s = p->p;
	*pos = s;
	uint32_t b;
	const char *q = NULL;
	if (p->end - s > 5 && memcmp(s, "block", 5) == 0)
		q = scan_number(s + 5, p->end, &b);
	if (KL_UNLIKELY(!q))
		return block_number_slow(p, s);
	block_exists(p, b, s);
	p->p = q;
	return b;
}

uint32_t
parse_block_use(parser *p)
{
	const char *pos;
	uint32_t b = block_number(p, &pos);
	if (!(p->f->blocks[b].flags & BLOCK_EXISTS))
		remember(p, &p->fwd_blocks, &p->nfwd_blocks,
			 &p->fwd_blocks_cap, b, pos);
	return b;
}

void
value_redefined(parser *p, uint32_t v, const char *pos)
{
	/* Where the first definition is, when the text gave it a line (an
	 * alias line's is not kept, and the results of a call whose
	 * signature failed have no instruction: def is KL_NONE). */
	const kl_func *f = p->f;
	const kl_value_data *d = &f->values[v];
	uint32_t line = 0;
	if (d->kind == VK_RESULT && d->def < f->ninsts)
		line = f->inst_lines[d->def];
	else if (d->kind == VK_PARAM && d->def < f->nblocks)
		line = f->block_lines[d->def];
	if (line == line_of(p, pos)) /* (v1, v1 = call ...) */
		fail_at(p, pos, "v%u is named twice in one statement", v);
	if (line)
		fail_at(p, pos, "v%u is already defined on line %u", v, line);
	fail_at(p, pos, "v%u is already defined", v);
}

/*
 * Where the chain of alias v ends as far as it is defined by now: a value
 * that is no alias (perhaps not defined yet), or KL_NONE on a cycle. The
 * hints jump ahead along the chain and each walk points those it passed
 * at the end (union-find), so that n questions about a chain of n
 * aliases cost O(n) in all, not O(n^2) (value_resolve walks it whole):
 * the chain may be long, and its end may be defined after its uses. A
 * chain only grows at its end (an alias's target never changes), so a
 * hint stays on the chain; a cycle never breaks, so KL_NONE stays true.
 */
uint32_t
alias_end(parser *p, uint32_t v)
{
	const kl_func *f = p->f;
	uint32_t *hint = p->alias_hint, end = v;
	/* A cycle is found in steps of its length and the path's to it
	 * (Brent's method: a marker left behind at the powers of two), not
	 * after as many steps as there are values: a function of many short
	 * cycles would cost values x cycles. */
	uint32_t marker = v, steps = 0, lap = 1;
	while (end < f->nvalues && f->values[end].kind == VK_ALIAS) {
		end = hint[end];
		if (end == marker) {
			end = KL_NONE;
			break;
		}
		if (++steps == lap) {
			marker = end;
			lap *= 2;
			steps = 0;
		}
	}
	for (uint32_t x = v; x != end && x < f->nvalues &&
			     f->values[x].kind == VK_ALIAS;) {
		uint32_t next = hint[x];
		hint[x] = end;
		x = next;
	}
	return end;
}

bool
alias_type_known(parser *p, uint32_t v, kl_type *t)
{
	const kl_func *f = p->f;
	/* Known when the alias was made, if its target's type was. */
	*t = value_type(f, v);
	if (*t != KL_TYPE_NONE)
		return true;
	uint32_t r = alias_end(p, v);
	if (r >= f->nvalues || f->values[r].kind == VK_UNUSED)
		return false;
	*t = value_type(f, r);
	return *t != KL_TYPE_NONE;
}

void
add_type_check(parser *p, uint32_t v, kl_type t, const char *pos)
{
	kl_grow(&p->checks, &p->checks_cap, sizeof *p->checks, p->nchecks + 1);
	p->checks[p->nchecks++] =
		(type_check){ v, t, line_of(p, pos), col_of(p, pos) };
}

/* ---- signatures ---- */

uint32_t
parse_signature(parser *p)
{
	p->ntypes = 0;
	uint32_t np = 0;
	bool variadic = false;
	expect(p, '(', "'('");
	if (!accept(p, ')')) {
		do {
			skip_ws(p);
			if (p->end - p->p >= 3 && memcmp(p->p, "...", 3) == 0) {
				p->p += 3;
				variadic = true;
				break;
			}
			kl_type t = parse_type(p);
			kl_grow(&p->types, &p->types_cap, sizeof *p->types,
				p->ntypes + 1);
			p->types[p->ntypes++] = t;
			np++;
		} while (accept(p, ','));
		/* '...' ends the list: nothing may follow it */
		expect(p, ')', variadic ? "')' after '...'" : "',' or ')'");
	}
	skip_ws(p);
	if (p->end - p->p >= 2 && p->p[0] == '-' && p->p[1] == '>') {
		p->p += 2;
		do {
			kl_type t = parse_type(p);
			kl_grow(&p->types, &p->types_cap, sizeof *p->types,
				p->ntypes + 1);
			p->types[p->ntypes++] = t;
		} while (accept(p, ','));
	}
	const kl_type *results = p->types ? p->types + np : NULL;
	return module_add_sig(p->m, p->types, np, results, p->ntypes - np,
			      variadic);
}

/* ---- function bodies ---- */

static void
parse_block_header(parser *p)
{
	const char *pos;
	kl_func *f = p->f;
	uint32_t b = block_number(p, &pos);
	if (f->blocks[b].flags & BLOCK_EXISTS)
		fail_at(p, pos, "block%u is already defined on line %u", b,
			f->block_lines[b]);
	f->blocks[b].flags |= BLOCK_EXISTS;
	f->block_lines[b] = line_of(p, pos);
	layout_append_block(f, b);
	p->in_block = true;
	/* `block1():` is `block1:`, as `jump block1()` is `jump block1`. */
	if (accept(p, '(') && !accept(p, ')')) {
		/* The list is made once at the end, not grown per parameter
		 * (an error throws the whole module away). */
		p->nscratch = 0;
		do {
			const char *vpos;
			uint32_t v = value_number(p, &vpos);
			expect(p, ':', "':' and a type");
			kl_type t = parse_type(p);
			define_value(p, v, vpos, VK_PARAM, t, b);
			kl_grow(&p->scratch, &p->scratch_cap,
				sizeof *p->scratch, p->nscratch + 1);
			p->scratch[p->nscratch++] = v;
		} while (accept(p, ','));
		f->blocks[b].params =
			list_make(&f->pool, p->scratch, p->nscratch);
		expect(p, ')', "',' or ')'");
	}
	expect(p, ':', "':' after the block header");
}

static void
parse_sigref_decl(parser *p)
{
	kl_func *f = p->f;
	const char *pos = p->p;
	uint32_t n = entity_number(p, p->p, 3);
	if (p->in_block)
		fail_at(p, pos,
			"signatures are declared before the first block");
	if (n >= f->nsigrefs) {
		spend_budget(p, f->nsigrefs, n + 1, pos);
		uint32_t cap = f->sigrefs_cap;
		func_grow_lined(f, TAB_SIGREFS, &f->sigrefs, TAB_SIGREF_LINES,
				&f->sigref_lines, &cap, sizeof *f->sigrefs,
				n + 1);
		f->sigrefs_cap = cap;
		for (uint32_t k = f->nsigrefs; k <= n; k++) {
			f->sigrefs[k] = KL_NONE;
			f->sigref_lines[k] = 0;
		}
		f->nsigrefs = n + 1;
	}
	if (f->sigrefs[n] != KL_NONE)
		fail_at(p, pos, "sig%u is already defined on line %u", n,
			f->sigref_lines[n]);
	f->sigrefs[n] = SIGREF_FAILED; /* until the signature has parsed */
	f->sigref_lines[n] = line_of(p, pos);
	expect(p, '=', "'='");
	f->sigrefs[n] = parse_signature(p);
}

static void
add_result(parser *p, uint32_t k, uint32_t v, const char *pos)
{
	kl_grow(&p->results, &p->results_cap, sizeof *p->results,
		(uint64_t)k + 1);
	kl_grow(&p->result_pos, &p->result_pos_cap, sizeof *p->result_pos,
		(uint64_t)k + 1);
	p->results[k] = v;
	p->result_pos[k] = pos;
}

/* `vA -> vB` or the results of an instruction. */
static void
parse_value_stmt(parser *p)
{
	const char *start = p->p;
	const char *pos;
	uint32_t v = value_number(p, &pos);
	/* Nearly every statement: one result, written "vN = op". */
	if (p->end - p->p >= 3 && memcmp(p->p, " = ", 3) == 0) {
		p->p += 3;
		parse_inst(p, &v, &pos, 1, start);
		return;
	}
	const char *after = p->p, *line_start = p->line_start;
	uint32_t line = p->line;
	skip_ws(p);
	if (p->end - p->p >= 2 && p->p[0] == '-' && p->p[1] == '>') {
		p->p += 2;
		if (!p->in_block)
			fail_at(p, pos, "alias before the first block");
		uint32_t target = parse_value_use(p);
		if (target == v)
			fail_at(p, pos, "v%u cannot be an alias of itself", v);
		kl_type t;
		p->aliases++;
		define_value(p, v, pos, VK_ALIAS,
			     value_type_known(p, target, &t) ? t : KL_TYPE_NONE,
			     target);
		kl_grow(&p->alias_hint, &p->alias_hint_cap,
			sizeof *p->alias_hint, (uint64_t)v + 1);
		p->alias_hint[v] = target;
		return;
	}
	uint32_t nres = 0;
	add_result(p, nres++, v, pos);
	while (accept(p, ',')) {
		uint32_t r = value_number(p, &pos);
		add_result(p, nres++, r, pos);
		after = p->p;
		line_start = p->line_start;
		line = p->line;
	}
	/* (A value left over after an instruction starts a statement too:
	 * the error is at that value, not at what follows it, and recovery
	 * goes on from the value's line.) */
	skip_ws(p);
	if (p->p >= p->end || *p->p != '=') {
		char buf[64];
		const char *found = describe(p, p->p, buf, sizeof buf);
		p->p = after;
		p->line = line;
		p->line_start = line_start;
		/* after an instruction on its line ("jump block1 v0",
		 * "return v0 v0"): it belongs to that one, most likely */
		if (nres == 1 && !starts_line(p, pos))
			fail_at(p, pos,
				"v%u after a complete instruction (a ',' "
				"or '(' missing before it?)", v);
		fail_at(p, pos, "expected '=' or '->' after v%u, found %s%s",
			p->results[nres - 1], found,
			nres == 1 && after_bare_return(p)
				? " (a return's first value goes on its line: "
				  "return v0)"
				: "");
	}
	p->p++;
	parse_inst(p, p->results, p->result_pos, nres, start);
}

bool
at_line_start_keyword(const parser *p, const char *s)
{
	static const char *const kws[] = { "function", "declare", "data" };
	static const unsigned char lens[] = { 8, 7, 4 };
	if (s >= p->end || (*s != 'f' && *s != 'd'))
		return false;
	for (size_t k = 0; k < 3; k++) {
		size_t n = lens[k];
		if ((size_t)(p->end - s) > n && memcmp(s, kws[k], n) == 0 &&
		    (s[n] == ' ' || s[n] == '\t'))
			return true;
	}
	return false;
}

void
skip_line(parser *p)
{
	const char *nl = memchr(p->p, '\n', (size_t)(p->end - p->p));
	p->p = nl ? nl : p->end;
}

/* After an error in a body: move to the end of the cursor's line, or to
 * a '}' before it (and before any comment), which can only close the
 * body: skipped, it would be reported missing. */
static void
skip_body_line(parser *p)
{
	const char *q = p->p;
	while (q < p->end && *q != '\n' && *q != ';' && *q != '}')
		q++;
	if (q < p->end && *q == '}')
		p->p = q;
	else
		skip_line(p);
}

bool
cursor_starts_later_line(const parser *p)
{
	return p->line > p->stmt_line && starts_line(p, p->p);
}

static void
check_function_end(parser *p)
{
	kl_func *f = p->f;
	for (uint32_t k = 0; k < p->nfwd_values; k++) {
		const fwd_ref *r = &p->fwd_values[k];
		if (f->values[r->id].kind == VK_UNUSED)
			perr_at(p, r->line, r->col,
				"use of undefined value v%u", r->id);
	}
	for (uint32_t k = 0; k < p->nfwd_blocks; k++) {
		const fwd_ref *r = &p->fwd_blocks[k];
		if (!(f->blocks[r->id].flags & BLOCK_EXISTS))
			perr_at(p, r->line, r->col,
				"reference to undefined block block%u", r->id);
	}
	/* Aliases whose target came later get their type now (most bodies
	 * have none: then the values need no look). */
	for (uint32_t v = 0; p->aliases && v < f->nvalues; v++) {
		if (f->values[v].kind != VK_ALIAS)
			continue;
		uint32_t r = alias_end(p, v);
		if (r < f->nvalues && f->values[r].kind != VK_UNUSED)
			f->values[v].type = f->values[r].type;
	}
	for (uint32_t k = 0; k < p->nchecks; k++) {
		const type_check *c = &p->checks[k];
		kl_type t;
		if (value_type_known(p, c->value, &t) &&
		    type_class(p->m, t) != type_class(p->m, c->type))
			perr_at(p, c->line, c->col,
				"type suffix .%s does not match v%u, which is "
				"%s", kl_type_name(p->m, c->type), c->value,
				kl_type_name(p->m, t));
	}
}

/*
 * Whether an item starts at s, the first word of a statement: its '}' is
 * missing then. An item keyword in the first column starts one; so does
 * one indented, first on its line, with a name after it ("function %g"):
 * no statement starts so, and a whole file indented (by a generator or a
 * paste) would otherwise take its next function for unknown opcodes and
 * redefined blocks. (The first reading, which finds the items, took that
 * one for the rest of the body: it is passed over.) Indented and with no
 * name after it, the keyword stays an unknown opcode.
 */
static bool
item_starts_at(const parser *p, const char *s)
{
	if (!at_line_start_keyword(p, s))
		return false;
	if (s == p->line_start)
		return true;
	if (skip_blanks_at(p, p->line_start) != s)
		return false;
	while (s < p->end && *s != ' ' && *s != '\t')
		s++;
	s = skip_blanks_at(p, s);
	return s < p->end && *s == '%';
}

/* The statements of a body, up to its '}'. Returns false if it gave up. */
static bool
parse_stmts(parser *p, kl_func *dst)
{
	if (setjmp(p->jb)) {
		if (p->errors > MAX_ERRORS || p->p >= p->end)
			return false;
		if (!cursor_starts_later_line(p))
			skip_body_line(p);
	}
	for (;;) {
		skip_ws(p);
		p->stmt_line = p->line;
		const char *s = p->p;
		p->prev_stmt_start = p->stmt_start;
		p->stmt_start = s;
		if (s >= p->end) {
			dst->line_last = p->line;
			fail_at(p, s, "unexpected end of file: '}' missing");
		}
		char c = *s;
		if (c == '}') {
			p->p++;
			dst->line_last = p->line;
			return true;
		}
		size_t left = (size_t)(p->end - s);
		if (c == 'v' && left > 1 && s[1] >= '0' && s[1] <= '9') {
			parse_value_stmt(p);
		} else if (c == 'b' && left > 5 && memcmp(s, "block", 5) == 0 &&
			   s[5] >= '0' && s[5] <= '9') {
			parse_block_header(p);
		} else if (c == 's' && left > 3 && memcmp(s, "sig", 3) == 0 &&
			   s[3] >= '0' && s[3] <= '9') {
			parse_sigref_decl(p);
		} else if (is_ident_char((unsigned char)c)) {
			/* (only here: items start with 'f' or 'd') */
			if (item_starts_at(p, s)) {
				dst->line_last = p->line - 1;
				perr_at(p, p->line, col_of(p, s),
					"'}' missing before this line");
				return true;
			}
			parse_inst(p, NULL, NULL, 0, s);
		} else {
			char buf[64];
			fail_at(p, s,
				"expected an instruction, a block or '}', "
				"found %s%s", describe(p, s, buf, sizeof buf),
				comment_hint(p, s));
		}
	}
}

/*
 * A body is built in the parser's working function, whose tables stay
 * allocated (and warm in the cache) from one body to the next, and then
 * moves into its own function: copied to the module arena when small (at
 * its exact size, the values with a spare eighth), handed over when big
 * (func_take_tables). A module of
 * many small functions thus costs no allocation per function and touches
 * each new page of memory once.
 */
void
parse_body(parser *p, pending_body *pb)
{
	kl_func *f = &p->work;
	f->sym = pb->f->sym;
	f->sig = pb->f->sig;
	p->f = f;
	p->stmt_start = p->prev_stmt_start = NULL;
	p->p = p->src + pb->start;
	p->line = pb->line;
	p->line_start = pb->line_start;
	p->in_block = false;
	p->said_no_block = false;
	p->func_errors = 0;
	p->nfwd_values = p->nfwd_blocks = p->nchecks = p->aliases = 0;
	/* The line tables grow together with their tables from now on. */
	if (!f->inst_lines) {
		KL_ASSERT(f->insts_cap == 0);
		f->inst_lines = kl_malloc(sizeof *f->inst_lines);
	}
	if (!f->block_lines) {
		KL_ASSERT(f->blocks_cap == 0);
		f->block_lines = kl_malloc(sizeof *f->block_lines);
	}
	if (!f->sigref_lines) {
		KL_ASSERT(f->sigrefs_cap == 0);
		f->sigref_lines = kl_malloc(sizeof *f->sigref_lines);
	}
	/* A body has about one instruction and one value per line: size the
	 * tables once instead of growing them by doubling. */
	func_presize(f, pb->lines + 1, pb->lines + 1);

	if (parse_stmts(p, pb->f) && p->func_errors == 0)
		check_function_end(p);
	func_take_tables(pb->f, f);
}
