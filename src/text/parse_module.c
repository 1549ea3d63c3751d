/*
 * parse_module.c -- the parser's module level: the first pass over the
 * text, declarations, data objects, and kl_parse_module itself.
 *
 * The first pass reads every item header (declare, data, a function's
 * name and signature) so that a call may name a function defined further
 * down, and skips each function body by looking for its closing brace
 * while counting its lines (which size the body's tables). The bodies are
 * parsed afterwards, in order, by parse.c. Data items name symbols that
 * may be defined later too: those references are kept as fixups and
 * resolved once every header is read.
 */
#include <stdlib.h>
#include <string.h>

#include "parse.h"

/* What a name or string that the module's byte store cannot take gets
 * (only input of several GiB gets there). */
#define STORE_FULL "the module's strings and names pass 4 GiB"

/*
 * Chunks of the first pass (step_lines): 32 bytes, two vectors, with
 * SSE2 (every x86-64 has it), else 8 bytes in a word. chunk_scan looks at the
 * chunk at s and returns nonzero if one of its newlines is followed by an 'f'
 * or a 'd' (the line may start a new item: the caller looks at the
 * chunk byte by byte); otherwise it adds the chunk's newlines to the
 * running count acc.
 *
 * With SSE2 the count stays in a vector: each byte lane of acc counts
 * the newlines seen at its position, so a chunk costs one subtraction
 * instead of a population count, and the lanes are summed (acc_sum)
 * at least every ACC_CHUNKS chunks, before a lane could pass 255.
 */
#ifdef PARSE_SSE2
#define CHUNK 32
#define ACC_CHUNKS 127
typedef __m128i nl_acc;

static inline nl_acc
acc_zero(void)
{
	return _mm_setzero_si128();
}

static inline uint32_t
acc_sum(nl_acc acc)
{
	__m128i s = _mm_sad_epu8(acc, _mm_setzero_si128());
	return (uint32_t)_mm_cvtsi128_si32(s) +
	       (uint32_t)_mm_cvtsi128_si32(_mm_unpackhi_epi64(s, s));
}

/* The newlines of the 16 bytes at s (-1 lanes), and in *fd those of
 * them followed by an 'f' or a 'd' ('d' | 2 is 'f', and no other byte
 * or'd with 2 is). */
static inline __m128i
newlines16(const char *s, __m128i *fd)
{
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)s);
	__m128i next = _mm_loadu_si128((const __m128i *)(const void *)(s + 1));
	__m128i nl = _mm_cmpeq_epi8(v, _mm_set1_epi8('\n'));
	*fd = _mm_and_si128(nl, _mm_cmpeq_epi8(_mm_or_si128(next,
							     _mm_set1_epi8(2)),
					       _mm_set1_epi8('f')));
	return nl;
}

/* A chunk is two vectors; each adds at most 1 to a lane of acc. */
static inline uint32_t
chunk_scan(const char *s, nl_acc *acc)
{
	__m128i fd0, fd1;
	__m128i nl0 = newlines16(s, &fd0), nl1 = newlines16(s + 16, &fd1);
	uint32_t item = (uint32_t)_mm_movemask_epi8(_mm_or_si128(fd0, fd1));
	if (KL_LIKELY(!item)) /* a newline's lane is -1 */
		*acc = _mm_sub_epi8(_mm_sub_epi8(*acc, nl0), nl1);
	return item;
}
#else
#define CHUNK 8
#define ACC_CHUNKS UINT32_MAX
#define BYTES_01 0x0101010101010101u
#define BYTES_7F 0x7f7f7f7f7f7f7f7fu
typedef uint32_t nl_acc;

static inline nl_acc
acc_zero(void)
{
	return 0;
}

static inline uint32_t
acc_sum(nl_acc acc)
{
	return acc;
}

/* The high bit of each byte of w that equals c, the other bits clear
 * (exact: no borrow crosses from one byte into the next). */
static inline uint64_t
bytes_equal(uint64_t w, unsigned char c)
{
	uint64_t x = w ^ (BYTES_01 * c);
	return ~(((x & BYTES_7F) + BYTES_7F) | x | BYTES_7F);
}

static inline uint32_t
chunk_scan(const char *s, nl_acc *acc)
{
	uint64_t w, next;
	memcpy(&w, s, 8);
	memcpy(&next, s + 1, 8); /* the byte after each byte of w */
	uint64_t nl = bytes_equal(w, '\n');
	uint64_t fd = bytes_equal(next, 'f') | bytes_equal(next, 'd');
	if (nl & fd)
		return 1;
	/* The bytes of nl >> 7 are 0 or 1: the multiply sums them into
	 * the top byte. */
	*acc += (uint32_t)(((nl >> 7) * BYTES_01) >> 56);
	return 0;
}
#endif

/*
 * The bytes from s to e one at a time: count the lines, and return the
 * start of the first line that begins a new item, or NULL.
 */
static const char *
step_bytes(parser *p, const char *s, const char *e, uint32_t *lines)
{
	for (; s < e; s++) {
		if (*s != '\n')
			continue;
		++*lines;
		p->line_start = s + 1;
		if (at_line_start_keyword(p, s + 1))
			return s + 1;
	}
	return NULL;
}

/*
 * Step over the lines of a body from s to limit, counting them, and
 * return the start of the first line there that begins a new item (its
 * '}' is missing), or NULL. A chunk at a time: the newlines of a chunk
 * are counted at once, and only a newline followed by an 'f' or a 'd' --
 * which never starts a line inside a body -- makes its chunk be looked at
 * byte by byte. The chunks leave p->line_start behind; it is found at
 * the end, unless the last bytes (the '}' line, usually) hold a newline.
 */
static const char *
step_lines(parser *p, const char *s, const char *limit)
{
	uint32_t lines = 0;
	const char *item = NULL;
	while (!item && limit - s > CHUNK) {
		nl_acc acc = acc_zero();
		for (uint32_t k = 0; k < ACC_CHUNKS && limit - s > CHUNK;
		     k++, s += CHUNK) {
			if (KL_LIKELY(!chunk_scan(s, &acc)))
				continue;
			item = step_bytes(p, s, s + CHUNK, &lines);
			if (item)
				break;
		}
		lines += acc_sum(acc);
	}
	if (!item) {
		uint32_t chunk_lines = lines;
		item = step_bytes(p, s, limit, &lines);
		if (lines == chunk_lines && lines) {
			/* The last newline is in the chunks, before s. */
			const char *e = s;
			while (e[-1] != '\n')
				e--;
			p->line_start = e;
		}
	}
	p->line += lines;
	p->body_lines += lines;
	return item;
}

/*
 * The first pass skips a function body: find the next '}' with memchr,
 * step through the lines before it (counting them, and stopping at a line
 * that starts a new item, which means the '}' is missing), and check that
 * the '}' is not inside a comment: that a ';' comes before it on its line,
 * counting from the body's '{' when the body starts on that line. The text
 * before the '{' was read by the real scanner, which knows strings (a data
 * object's "a;b" on the same line is no comment); a body holds no strings
 * (a '"' there is an error of the second pass), but a '}' after an odd
 * number of '"' on its line is taken for a string's, not the body's end,
 * so that the mistake gives one error, not a second one for the rest of
 * the body read as items. A '}' found commented out or quoted sends the
 * search to the end of its line, so each byte is read a bounded number
 * of times however many '}' a comment holds.
 */
static void
skip_body(parser *p)
{
	const char *s = p->p, *end = p->end;
	for (;;) {
		/* The '}' a search found is still the next one for a later
		 * search that starts before it: bodies that lack theirs
		 * (each stopped by the next item) searched to the end of
		 * the file each, n times. */
		const char *close;
		if (p->close_from && p->close_from <= s &&
		    (!p->close_at || s <= p->close_at)) {
			close = p->close_at;
		} else {
			close = memchr(s, '}', (size_t)(end - s));
			p->close_from = s;
			p->close_at = close;
		}
		const char *item = step_lines(p, s, close ? close : end);
		if (item) {
			p->p = item;
			return;
		}
		if (!close) {
			p->p = end;
			return;
		}
		const char *from = p->line_start > s ? p->line_start : s;
		unsigned quotes = 0;
		for (const char *q = from; q < close; q++)
			quotes += *q == '"';
		if (!memchr(from, ';', (size_t)(close - from)) &&
		    quotes % 2 == 0) {
			p->p = close + 1;
			return;
		}
		const char *nl = memchr(close, '\n', (size_t)(end - close));
		s = nl ? nl : end;
	}
}

static uint32_t
define_sym(parser *p, const char *pos, const char *name, size_t len,
	   kl_sym_kind kind, bool body)
{
	kl_status st;
	bool redef = p->opts && p->opts->allow_redefinition;
	uint32_t s = module_add_sym(p->m, name, len, kind, redef, &st);
	if (st == KL_ERR_EXISTS) {
		/* Front ends that write C-style prototypes meet this one
		 * first: say where the other item is, and that a function
		 * the module defines needs no declare. */
		const kl_sym_data *old =
			&p->m->syms[kl_module_lookup(p->m, name, len).id];
		int n = (int)(p->p - pos);
		if (body && old->kind == KL_SYM_FUNC && !old->defined)
			fail_at(p, pos,
				"%.*s is already declared on line %u; a "
				"function defined in the module needs no "
				"declare", n, pos, old->line);
		fail_at(p, pos, "%.*s is already defined on line %u", n, pos,
			old->line);
	}
	if (st != KL_OK)
		fail_at(p, pos, "%s", len > UINT32_MAX / 2 ? "name too long"
							      : STORE_FULL);
	p->m->syms[s].line = line_of(p, pos);
	return s;
}

/* A name being defined: its bytes are copied out of p->names. */
static uint32_t
parse_defined_name(parser *p, kl_sym_kind kind, bool body)
{
	skip_ws(p);
	const char *pos = p->p;
	const char *name;
	size_t len;
	kl_buf_reset(&p->names);
	parse_name(p, &p->names, &name, &len);
	return define_sym(p, pos, name, len, kind, body);
}

static void
parse_declare(parser *p)
{
	uint32_t s = parse_defined_name(p, KL_SYM_FUNC, false);
	p->m->syms[s].sig = parse_signature(p);
}

static void
parse_function(parser *p)
{
	uint32_t line = p->line;
	uint32_t s = parse_defined_name(p, KL_SYM_FUNC, true);
	kl_sym_data *sd = &p->m->syms[s];
	sd->sig = parse_signature(p);
	if (!accept(p, '{')) {
		/* "function %f(i32) i32 {": the results without their "->" */
		kl_type t;
		size_t n = scan_type(p->p, p->end, &t);
		bool type = n && (p->p + n == p->end ||
				  !is_ident_char((unsigned char)p->p[n]));
		fail_expected_hint(p, p->p, "'{' to open the function body",
				   type ? " (or '->' before the results)" : "");
	}
	sd = &p->m->syms[s];
	sd->defined = 1;
	sd->func = func_new(p->m, s, sd->sig);
	sd->func->line_first = line;
	kl_grow(&p->bodies, &p->bodies_cap, sizeof *p->bodies, p->nbodies + 1);
	pending_body *pb = &p->bodies[p->nbodies++];
	*pb = (pending_body){ sd->func, (size_t)(p->p - p->src), p->line,
			      p->line_start, 0 };
	p->body_lines = 0;
	skip_body(p);
	p->bodies[p->nbodies - 1].lines = p->body_lines;
}

static void
add_item(parser *p, uint32_t s, const kl_item_data *it, const char *pos)
{
	if (!module_add_item(p->m, s, it))
		fail_at(p, pos, "data object larger than 2^40 bytes");
}

/* The byte an escape at esc (a backslash and what follows) stands for; the
 * cursor moves past it. */
static char
string_escape(parser *p, const char *esc)
{
	p->p = esc + 1;
	char e = p->p < p->end ? *p->p++ : 0;
	switch (e) {
	case 'n': return '\n';
	case 't': return '\t';
	case 'r': return '\r';
	case '0': return 0;
	case 'a': return 7;
	case 'b': return 8;
	case 'f': return 12;
	case 'v': return 11;
	case 'e': return 27;
	case '\\': return '\\';
	case '"': return '"';
	case '\'': return '\'';
	case 'x': {
		int h1 = p->p < p->end ? hex_digit((unsigned char)p->p[0]) : -1;
		int h2 = p->p + 1 < p->end ? hex_digit((unsigned char)p->p[1])
					   : -1;
		if (h1 < 0 || h2 < 0)
			fail_at(p, esc, "\\x needs two hex digits");
		p->p += 2;
		return (char)(h1 << 4 | h2);
	}
	default:
		fail_at(p, esc, "unknown escape in string");
	}
}

/* A string item at the cursor's '"', on one line; its bytes go to the
 * module's byte store. */
static void
parse_string(parser *p, kl_item_data *it)
{
	kl_buf *bytes = &p->names; /* parser-owned: errors unwind */
	kl_buf_reset(bytes);
	const char *open = p->p++;
	while (p->p < p->end && *p->p != '"') {
		char ch = *p->p;
		if (ch == '\n')
			fail_at(p, open, "unterminated string");
		if (ch == '\\') {
			kl_buf_putc(bytes, string_escape(p, p->p));
		} else {
			kl_buf_putc(bytes, ch);
			p->p++;
		}
	}
	if (p->p >= p->end)
		fail_at(p, open, "unterminated string");
	p->p++;
	if (!module_bytes_fit(p->m, bytes->len))
		fail_at(p, open, "%s", STORE_FULL);
	it->kind = KL_DATA_STRING;
	it->str = module_store_bytes(p->m, bytes->data ? bytes->data : "",
				     bytes->len);
	it->len = (uint32_t)bytes->len;
}

/* One data item: T value | i8 "string" | zero N | T %sym[+off]. */
static void
parse_data_item(parser *p, uint32_t s)
{
	kl_item_data it = { 0 };
	skip_ws(p);
	const char *pos = p->p;
	if (at_word(p, "zero")) {
		p->p += 4;
		it.kind = KL_DATA_ZERO;
		skip_ws(p);
		const char *count = p->p;
		int64_t n = parse_int(p, "a byte count");
		if (n < 0 || (uint64_t)n > DATA_MAX_BYTES)
			fail_at(p, count, "a zero count is between 0 and 2^40 "
				"bytes");
		it.value = (uint64_t)n;
		add_item(p, s, &it, pos);
		return;
	}
	kl_type t = parse_type(p);
	it.type = t;
	skip_ws(p);
	int c = peek(p);
	if (c == '"') {
		if (t != KL_TYPE_I8)
			fail_at(p, p->p, "a string's items are i8: write "
				"i8 \"...\", not %s \"...\"",
				kl_type_name(p->m, t));
		parse_string(p, &it);
		add_item(p, s, &it, pos);
		return;
	}
	if (c == '%' || c == '#' || at_word(p, "noname")) {
		if (!kl_type_is_int(p->m, t))
			fail_at(p, pos, "a symbol's address is an integer: "
				"write i64 or ptr (or a narrower integer type "
				"for its low bytes), not %s",
				kl_type_name(p->m, t));
		it.kind = KL_DATA_SYMREF;
		uint32_t line = p->line, col = col_of(p, p->p);
		const char *npos = p->p;
		const char *name;
		size_t len;
		kl_buf_reset(&p->names);
		parse_name(p, &p->names, &name, &len);
		uint32_t text_len = (uint32_t)(p->p - npos);
		size_t off_in_names = p->fixup_names.len;
		kl_buf_append(&p->fixup_names, name, len);
		skip_ws(p);
		int64_t off = 0;
		if (peek(p) == '+' || peek(p) == '-')
			off = parse_signed_offset(p);
		it.value = (uint64_t)off;
		it.sym = KL_NONE;
		/* The fixup only once the item exists: an error above, or
		 * add_item's (an object past 2^40 bytes), must not leave it
		 * pointing at nothing. */
		add_item(p, s, &it, pos);
		const kl_sym_data *d = &p->m->syms[s];
		kl_grow(&p->fixups, &p->fixups_cap, sizeof *p->fixups,
			p->nfixups + 1);
		p->fixups[p->nfixups++] = (data_fixup){
			d->items + d->nitems - 1, off_in_names, len, text_len,
			(size_t)(npos - p->src), line, col
		};
		return;
	}
	it.kind = KL_DATA_VALUE;
	if (t == KL_TYPE_F32 || t == KL_TYPE_F64) {
		it.value = parse_float(p, t == KL_TYPE_F32);
	} else {
		const char *npos = p->p;
		/* what an integer item may hold instead */
		int64_t v = parse_int(
			p, t == KL_TYPE_I8 ? "an integer, a string or a symbol"
					   : "an integer or a symbol");
		unsigned bits = kl_type_bytes(p->m, t) * 8;
		if (bits < 64) {
			if (!kl_int_fits(v, bits))
				fail_at(p, npos, "%s does not fit in %s",
					"the value", kl_type_name(p->m, t));
			/* the width's bits, as kl_data_append keeps them */
			v = (int64_t)((uint64_t)v & ((1ull << bits) - 1));
		}
		it.value = (uint64_t)v;
	}
	add_item(p, s, &it, pos);
}

static void
parse_data(parser *p)
{
	uint32_t s = parse_defined_name(p, KL_SYM_DATA, false);
	p->m->syms[s].align = 1;
	p->m->syms[s].items = p->m->nitems;
	expect(p, '=', "'='");
	if (at_word(p, "const")) {
		p->p += 5;
		p->m->syms[s].is_const = 1;
	}
	if (at_word(p, "align")) {
		p->p += 5;
		p->m->syms[s].align = parse_alignment(p);
	}
	/* The one spelling the printer writes (a grammar of one order). */
	if (at_word(p, "const") || at_word(p, "align"))
		fail_at(p, p->p, "'const' and 'align' come at most once each, "
			"in that order (data %%x = const align 8 { ... })");
	expect(p, '{', "'{'");
	if (accept(p, '}'))
		return;
	do
		parse_data_item(p, s);
	while (accept(p, ','));
	expect(p, '}', "',' or '}'");
}

static void
skip_to_next_item(parser *p)
{
	if (cursor_starts_later_line(p) && at_line_start_keyword(p, p->p) &&
	    p->p == p->line_start)
		return;
	for (;;) {
		skip_line(p);
		if (p->p >= p->end)
			return;
		p->p++;
		p->line++;
		p->line_start = p->p;
		if (at_line_start_keyword(p, p->p))
			return;
	}
}

static void
parse_items(parser *p)
{
	if (setjmp(p->jb)) {
		if (p->errors > MAX_ERRORS)
			return;
		skip_to_next_item(p);
	}
	for (;;) {
		skip_ws(p);
		p->stmt_line = p->line;
		if (p->p >= p->end)
			return;
		if (at_word(p, "function")) {
			p->p += 8;
			parse_function(p);
		} else if (at_word(p, "declare")) {
			p->p += 7;
			parse_declare(p);
		} else if (at_word(p, "data")) {
			p->p += 4;
			parse_data(p);
		} else {
			char buf[64];
			fail_at(p, p->p, "expected 'function', 'declare' or "
				"'data', found %s%s",
				describe(p, p->p, buf, sizeof buf),
				comment_hint(p, p->p));
		}
	}
}

static void
resolve_data_fixups(parser *p)
{
	for (uint32_t k = 0; k < p->nfixups; k++) {
		const data_fixup *fx = &p->fixups[k];
		kl_sym s = kl_module_lookup(
			p->m, p->fixup_names.data + fx->name, fx->name_len);
		if (s.id == KL_NONE)
			perr_at(p, fx->line, fx->col, "unknown symbol in data: "
				"%.*s", (int)fx->text_len,
				p->src + fx->text_pos);
		else
			p->m->items[fx->item].sym = s.id;
	}
}

static void
parser_free(parser *p)
{
	func_free(&p->work);
	free(p->fwd_values);
	free(p->fwd_blocks);
	free(p->checks);
	free(p->alias_hint);
	free(p->scratch);
	free(p->types);
	free(p->bodies);
	free(p->fixups);
	kl_buf_free(&p->names);
	kl_buf_free(&p->fixup_names);
	free(p->results);
	free(p->result_pos);
}

kl_status
kl_parse_module(const char *text, size_t len, const kl_parse_options *opts,
		kl_module **out, kl_diags *diags)
{
	kl_diags dropped = { 0 };
	if (!diags)
		diags = &dropped;
	if (out)
		*out = NULL;
	if (!out || (!text && len > 0))
		return KL_ERR_INVALID;
	/* Lines and columns are counted in 32 bits (kl_diag's): a text they
	 * might not count is refused before it is read. */
	if ((uint64_t)len >= UINT32_MAX) {
		kl_diags_add(diags, KL_SEV_ERROR, 0, 0,
			     "the text is too large: keel reads at most "
			     "4294967294 bytes (its line and column numbers "
			     "have 32 bits)");
		kl_diags_free(&dropped);
		return KL_ERR_PARSE;
	}
	parser *p = kl_calloc(1, sizeof *p);
	p->src = text ? text : "";
	p->end = p->src + (text ? len : 0);
	p->p = p->src;
	p->line = 1;
	p->line_start = p->src;
	p->opts = opts;
	p->diags = diags;
	p->m = kl_module_new();
	func_init(&p->work, p->m, KL_NONE, KL_NONE);
	/* Function structs and the tables of small bodies fill the module
	 * arena: about two bytes for every byte of text. Untouched memory
	 * costs nothing, so a generous guess is cheap and a low one only
	 * means more chunks. */
	if (len > 1 << 20)
		kl_arena_reserve(&p->m->arena, 2 * len);
	p->entity_budget = 1000000 + 2 * (uint64_t)len;
	init_optab(p);
	kl_c_locale c; /* numbers as C reads them (scan_f64) */
	kl_c_locale_begin(&c);

	parse_items(p);
	if (p->errors <= MAX_ERRORS)
		resolve_data_fixups(p);
	for (uint32_t k = 0; k < p->nbodies && p->errors <= MAX_ERRORS; k++)
		parse_body(p, &p->bodies[k]);
	p->f = NULL;
	p->stmt_start = p->prev_stmt_start = NULL;
	kl_c_locale_end(&c);

	kl_status st = KL_OK;
	if (p->errors) {
		kl_module_free(p->m);
		p->m = NULL;
		st = KL_ERR_PARSE;
	}
	kl_diags_sort(diags);
	/* Last, where the last error is: where the parser gave up. */
	if (p->errors > MAX_ERRORS && diags->len) {
		const kl_diag *last = &diags->items[diags->len - 1];
		kl_diags_add(diags, KL_SEV_ERROR, last->line, last->col,
			     "too many errors; giving up");
	}
	*out = p->m;
	parser_free(p);
	free(p);
	kl_diags_free(&dropped);
	return st;
}
