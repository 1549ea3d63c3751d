/*
 * parse.h -- state shared by the parser's files: parse.c (diagnostics,
 * scanning, function bodies), parse_inst.c (instructions) and
 * parse_module.c (the module level: item headers, data, the entry point).
 *
 * Errors unwind with longjmp to the statement loop of the function body
 * (or the item loop of the module), which skips the rest of the line and
 * goes on, so one run reports many errors. Everything the parser allocates is
 * owned by the module or by the parser struct, so unwinding leaks nothing.
 */
#ifndef KEEL_PARSE_H
#define KEEL_PARSE_H

#include <setjmp.h>
#include <string.h>

#include "text.h"

/* SSE2 (every x86-64 has it) scans 16 bytes at a time; KL_NO_SIMD builds
 * the portable code instead, which CI tests too. */
#if defined(__SSE2__) && !defined(KL_NO_SIMD)
#include <emmintrin.h>
#define PARSE_SSE2 1
#endif

/*
 * Entity numbers above this are refused: a block number must stay below
 * DEST_BLOCK (2^31), and no function holds two billion values. What keeps
 * a typo from allocating gigabytes is the sparseness budget (parse.c),
 * not this cap, so a pass's output numbered past any smaller fixed limit
 * still reads back.
 */
#define MAX_ENTITY_NUMBER 2147483646u
#define MAX_ERRORS 100

typedef struct fwd_ref {
	uint32_t id;   /* value or block number */
	uint32_t line, col;
} fwd_ref;

typedef struct type_check {
	uint32_t value;
	kl_type type;
	uint32_t line, col;
} type_check;

typedef struct pending_body {
	kl_func *f;
	size_t start; /* offset just after '{' */
	uint32_t line;
	const char *line_start;
	uint32_t lines; /* lines in the body, to size its tables */
} pending_body;

typedef struct data_fixup {
	uint32_t item;      /* index in the module item table */
	size_t name;        /* offset of the name's bytes in fixup_names */
	size_t name_len;
	uint32_t text_len;  /* the name as written, for the message */
	size_t text_pos;
	uint32_t line, col;
} data_fixup;

/* A mnemonic of at most 16 bytes as two words, zero-padded: compared
 * with two equality tests instead of a loop over its bytes. */
typedef struct op_key {
	uint64_t lo, hi;
} op_key;

typedef struct parser {
	const char *src, *end; /* the whole text */
	const char *p;         /* cursor */
	uint32_t line;         /* line of the cursor, 1-based */
	const char *line_start;
	const kl_parse_options *opts;
	kl_diags *diags;
	uint32_t errors;
	uint32_t func_errors; /* in the current function body */
	uint32_t last_error_line, last_error_col; /* of the latest error */
	jmp_buf jb;

	kl_module *m;
	kl_func *f;            /* function being parsed: &work */
	kl_func work;          /* tables reused by every body (parse_body) */
	bool in_block;         /* a block header has been seen */
	bool said_no_block;    /* "instruction before the first block" */
	uint32_t stmt_line;    /* where the statement/item being read starts */
	const char *stmt_start; /* the body's statement being read: its first
				 * byte (NULL outside bodies) */
	const char *prev_stmt_start; /* the statement's before it */
	uint32_t aliases;      /* vA -> vB statements in the body */
	uint64_t entity_budget; /* value/block slots left for the module */

	uint16_t optab[512];   /* opcode hash table: op + 1, 0 = empty */
	op_key opkeys[KL_OP_COUNT]; /* each mnemonic, zero-padded */
	uint32_t body_lines;   /* counted by the body skip */

	fwd_ref *fwd_values;
	uint32_t nfwd_values, fwd_values_cap;
	fwd_ref *fwd_blocks;
	uint32_t nfwd_blocks, fwd_blocks_cap;
	type_check *checks;
	uint32_t nchecks, checks_cap;
	/* Per alias value: a value further along its chain, or KL_NONE if
	 * the chain has a cycle (alias_end shortens them as it walks). */
	uint32_t *alias_hint;
	uint32_t alias_hint_cap;
	uint32_t *scratch;     /* operand lists under construction */
	uint32_t nscratch, scratch_cap;
	kl_type *types;        /* signature types under construction */
	uint32_t ntypes, types_cap;
	pending_body *bodies;
	uint32_t nbodies, bodies_cap;
	data_fixup *fixups;
	uint32_t nfixups, fixups_cap;
	kl_buf fixup_names;
	kl_buf names;          /* decoded #hex name being defined */
	uint32_t *results;     /* results of the instruction being parsed */
	uint32_t results_cap;
	const char **result_pos; /* where each is written */
	uint32_t result_pos_cap;
	/* The first '}' at or after close_from is close_at (NULL: none to
	 * the end), known from the last search (skip_body). */
	const char *close_from, *close_at;
} parser;

/* Diagnostics. perr_at records and continues; fail_at records and unwinds. */
void perr_at(parser *p, uint32_t line, uint32_t col, const char *fmt, ...)
	KL_PRINTF(4, 5);
KL_NORETURN void fail_at(parser *p, const char *pos, const char *fmt, ...)
	KL_PRINTF(3, 4);
uint32_t col_of(const parser *p, const char *pos);
uint32_t line_of(const parser *p, const char *pos);
/* A short, printable description of what is at pos, for messages. */
const char *describe(const parser *p, const char *pos, char *buf, size_t cap);
const char *comment_hint(const parser *p, const char *s);
/* Unwinds without a message, for a statement whose only fault is an
 * earlier error (a call of a function whose signature did not parse). */
KL_NORETURN void fail_quietly(parser *p);

/* sigN whose signature did not parse: calls through it are not checked
 * against it (KL_NONE would say it was never declared). */
#define SIGREF_FAILED (KL_NONE - 1)

/* A float literal of f32 (single) or f64 at p->p, its bits; fails when
 * there is none or it runs into letters, digits, '_' or '.' ("1.5x"). */
uint64_t parse_float(parser *p, bool single);
/* The number after a prefix ("v", "block", "sig") at start: digits,
 * capped, no leading zero; p->p moves past them. */
uint32_t entity_number(parser *p, const char *start, size_t prefix);
/* An alignment: a power of two from 1 to 2^31. */
uint32_t parse_alignment(parser *p);

/* Scanning. */
extern const unsigned char ident_class[256];
extern const uint8_t hex_value1[256];
/* The value of a hex digit, -1 for any other byte. */
static inline int
hex_digit(unsigned char c)
{
	return hex_value1[c] - 1;
}
static inline bool
is_ident_char(int c)
{
	return ident_class[(unsigned char)c] != 0;
}
/* The end of the word at s (identifier bytes, and '.' too when dots):
 * what a message quotes of a token it refuses. */
static inline const char *
word_end(const parser *p, const char *s, bool dots)
{
	while (s < p->end && (is_ident_char((unsigned char)*s) ||
			      (dots && *s == '.')))
		s++;
	return s;
}
/* How much of the word s..e a message quotes: at most 32 bytes (a name
 * of 10 kB would make a message as long). */
static inline int
quoted_len(const char *s, const char *e)
{
	return (int)(e - s > 32 ? 32 : e - s);
}
void skip_ws_slow(parser *p);
/* Skip blanks, newlines and comments. Most calls find a token at once. */
static inline void
skip_ws(parser *p)
{
	if (p->p < p->end) {
		unsigned char c = (unsigned char)*p->p;
		if (c > ' ' && c != ';')
			return;
		if (c == ' ' && p->p + 1 < p->end &&
		    (unsigned char)p->p[1] > ' ' && p->p[1] != ';') {
			p->p++;
			return;
		}
	}
	skip_ws_slow(p);
}
static inline int
peek(const parser *p)
{
	return p->p < p->end ? (unsigned char)*p->p : -1;
}
static inline bool
accept(parser *p, char c)
{
	skip_ws(p);
	if (p->p < p->end && *p->p == c) {
		p->p++;
		return true;
	}
	return false;
}
/* "expected WHAT, found ..." at pos, or at the end of the line before
 * when pos starts a later line of a body's statement. */
KL_NORETURN void fail_expected(parser *p, const char *pos, const char *what);
KL_NORETURN void fail_expected_hint(parser *p, const char *pos,
				    const char *what, const char *hint);
/* Past the spaces and tabs at q. */
const char *skip_blanks_at(const parser *p, const char *q);
/* Does the text at q, just after a word, go on as a block header's does:
 * blanks, "(...)" on the line if any, then ':'? (For messages about a
 * misnamed or swallowed header.) */
bool ends_like_block_header(const parser *p, const char *q);
KL_NORETURN void expect_failed(parser *p, const char *what);
static inline void
expect(parser *p, char c, const char *what)
{
	if (!accept(p, c))
		expect_failed(p, what);
}
/* Is the word w next (and not a prefix of a longer identifier)? Inline so
 * that strlen of a literal is a constant. */
static inline bool
at_word(parser *p, const char *w)
{
	skip_ws(p);
	size_t n = strlen(w);
	if ((size_t)(p->end - p->p) < n || memcmp(p->p, w, n) != 0)
		return false;
	return p->p + n == p->end || !is_ident_char((unsigned char)p->p[n]);
}
size_t scan_ident(parser *p, const char **start);
/* The length of the type name at s (0 if none), its type in *t. */
static inline size_t
scan_type(const char *s, const char *end, kl_type *t)
{
	size_t left = (size_t)(end - s), n = 3;
	kl_type r;
	if (left < 2)
		return 0;
	char a = s[1], b = left > 2 ? s[2] : 0;
	/* The letter says the kind of integer (s, u: refined), the digits
	 * its size. */
	kl_type base = s[0] == 's' ? KL_TYPE_S8
		       : s[0] == 'u' ? KL_TYPE_U8
				     : KL_TYPE_I8;
	if (s[0] == 'p') {
		if (a != 't' || b != 'r')
			return 0;
		r = KL_TYPE_PTR;
	} else if (s[0] == 'i' || s[0] == 's' || s[0] == 'u') {
		if (a == '8')
			n = 2, r = base;
		else if (a == '1' && b == '6')
			r = base + 1;
		else if (a == '3' && b == '2')
			r = base + 2;
		else if (a == '6' && b == '4')
			r = base + 3;
		else
			return 0;
	} else if (s[0] == 'f') {
		if (a == '3' && b == '2')
			r = KL_TYPE_F32;
		else if (a == '6' && b == '4')
			r = KL_TYPE_F64;
		else
			return 0;
	} else {
		return 0;
	}
	if (n < left && is_ident_char((unsigned char)s[n]))
		return 0;
	*t = r;
	return n;
}
KL_NORETURN void type_expected(parser *p);
/* Inline: every instruction with a type suffix comes here. */
static inline kl_type
parse_type(parser *p)
{
	kl_type t;
	skip_ws(p);
	size_t n = scan_type(p->p, p->end, &t);
	if (!n)
		type_expected(p);
	p->p += n;
	return t;
}
int64_t parse_int(parser *p, const char *what);
/* The `what` of iconst's immediate: given a float literal there, parse_int
 * says to use f32const or f64const (looked at only once the integer has
 * failed, off the fast path). */
extern const char iconst_immediate[];
/* An integer from 0 to 2^32 - 1; the message past that range names
 * `least` as its low end (an alloca's 1: its 0 parses, for the verifier
 * to refuse with the rest of the function). */
uint32_t parse_u32(parser *p, const char *what, uint32_t least);
/* The offset after an address: a '+' or '-' at the cursor, then an
 * unsigned integer (blanks may come between them). */
int64_t parse_signed_offset(parser *p);
/* A global name; the bytes point into the text or into tmp. */
void parse_name(parser *p, kl_buf *tmp, const char **bytes, size_t *len);
/* A global name that must be a known symbol. */
uint32_t parse_sym_use(parser *p);

/* Entities of the current function. */
uint32_t parse_value_use(parser *p);
uint32_t parse_block_use(parser *p);
KL_NORETURN void value_redefined(parser *p, uint32_t v, const char *pos);
static inline void
define_value(parser *p, uint32_t v, const char *pos, enum value_kind kind,
	     kl_type t, uint32_t def)
{
	if (p->f->values[v].kind != VK_UNUSED)
		value_redefined(p, v, pos);
	value_define(p->f, v, kind, t, def);
}
bool alias_type_known(parser *p, uint32_t v, kl_type *t);
/* The end of alias v's chain as defined by now (maybe not defined yet),
 * or KL_NONE if the chain is a cycle. */
uint32_t alias_end(parser *p, uint32_t v);
/* The type of value v if it is defined (through aliases) and typed.
 * Inline: most instructions take their type from an operand. */
static inline bool
value_type_known(parser *p, uint32_t v, kl_type *t)
{
	const kl_func *f = p->f;
	unsigned kind = f->values[v].kind;
	if (KL_UNLIKELY(kind == VK_ALIAS)) /* rare: a loop, out of line */
		return alias_type_known(p, v, t);
	if (kind == VK_UNUSED)
		return false;
	*t = value_type(f, v);
	return *t != KL_TYPE_NONE;
}
void add_type_check(parser *p, uint32_t v, kl_type t, const char *pos);

/* Signatures and bodies, for the module level. */
/* "(T, T, ...) -> T, T"; returns a module signature. */
uint32_t parse_signature(parser *p);
/* Parse the body the first pass found, into its function. */
void parse_body(parser *p, pending_body *pb);
/* Does the line at s start an item ("function", "declare", "data" and a
 * blank)? */
bool at_line_start_keyword(const parser *p, const char *s);
/* After an error: move to the end of the cursor's line. */
void skip_line(parser *p);
/* After an error: is the cursor at the first token of a line after the
 * one where the statement (or item) starts? Then the statement ended
 * before it, and that line is the next one's. */
bool cursor_starts_later_line(const parser *p);

/* Instructions (parse_inst.c). */
void init_optab(parser *p);
/* results[k] is written at result_pos[k]; the statement starts at start. */
void parse_inst(parser *p, const uint32_t *results,
		const char *const *result_pos, uint32_t nres,
		const char *start);

#endif /* KEEL_PARSE_H */
