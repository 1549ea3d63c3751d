/*
 * qbe_parse.c -- a QBE IL file's definitions: linkage, data, the headers
 * of functions (their bodies are qbe_parse_func.c's), and the parser's
 * shared helpers.
 *
 * The grammar is QBE's (c9x.me/compile/doc/il.html, "Linkage" and
 * "Definitions"). Recursive descent over the lexer's tokens, one token
 * of lookahead. After an error the parser skips to the next line that
 * starts a definition (a linkage word, `data`, `function`, `type`), so
 * one run reports a mistake per definition, up to QBE_MAX_ERRORS.
 *
 * Thread-local data (`thread`) is data, as keel's programs have one
 * thread. Aggregate types (`type :T`) are read for their size and
 * alignment: a function that takes or returns one by value takes or
 * fills memory (qbe_build_call.c).
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "qbe.h"

uint32_t
qbe_push(void *arr, uint32_t *n, uint32_t *cap, size_t elem)
{
	kl_grow(arr, cap, elem, (uint64_t)*n + 1);
	memset(*(char **)arr + (size_t)*n * elem, 0, elem);
	return (*n)++;
}

void
qbe_next(qbe_parser *p)
{
	if (p->tok.kind != QTOK_NL)
		p->prev_end = p->tok.end;
	if (p->held) {
		if (p->in_stmt)
			return;
		p->tok = p->next;
		p->held = false;
		return;
	}
	p->lx.quiet = p->skipping || p->errors >= QBE_MAX_ERRORS;
	p->tok = qbe_lex_next(&p->lx);
	if (p->lx.errors) {
		uint32_t before = p->errors;
		p->errors += p->lx.errors;
		p->lx.errors = 0;
		if (before < QBE_MAX_ERRORS && p->errors >= QBE_MAX_ERRORS)
			kl_diags_add(p->diags, KL_SEV_ERROR, p->tok.pos.line,
				     p->tok.pos.col,
				     "too many errors; giving up");
	}
	if (p->in_stmt && p->tok.line_start) {
		p->next = p->tok;
		p->held = true;
		p->tok = (qbe_tok){ .kind = QTOK_NL, .pos = p->prev_end,
				    .end = p->prev_end };
	}
}

void
qbe_parse_error(qbe_parser *p, qbe_pos pos, const char *fmt, ...)
{
	if (p->errors >= QBE_MAX_ERRORS)
		return;
	va_list ap;
	va_start(ap, fmt);
	qbe_verror(p->diags, pos, fmt, ap);
	va_end(ap);
	if (++p->errors == QBE_MAX_ERRORS)
		kl_diags_add(p->diags, KL_SEV_ERROR, pos.line, pos.col,
			     "too many errors; giving up");
}

bool
qbe_is_punct(const qbe_parser *p, char c)
{
	return p->tok.kind == QTOK_PUNCT && p->tok.punct == c;
}

bool
qbe_is_word(const qbe_parser *p, const char *w)
{
	return p->tok.kind == QTOK_WORD && strlen(w) == p->tok.len &&
	       memcmp(p->tok.s, w, p->tok.len) == 0;
}

void
qbe_describe(const qbe_tok *t, kl_buf *out)
{
	switch (t->kind) {
	case QTOK_EOF: kl_buf_puts(out, "the end of the file"); return;
	case QTOK_NL: kl_buf_puts(out, "the end of the line"); return;
	case QTOK_STRING: kl_buf_puts(out, "a string"); return;
	case QTOK_GLOBAL: kl_buf_putc(out, '$'); break;
	case QTOK_TEMP: kl_buf_putc(out, '%'); break;
	case QTOK_LABEL: kl_buf_putc(out, '@'); break;
	case QTOK_AGG: kl_buf_putc(out, ':'); break;
	default: break;
	}
	kl_buf_putc(out, '\'');
	kl_buf_append(out, t->s, t->len > 40 ? 40 : t->len);
	kl_buf_putc(out, '\'');
}

bool
qbe_expect(qbe_parser *p, char c, const char *where)
{
	if (qbe_is_punct(p, c)) {
		qbe_next(p);
		return true;
	}
	kl_buf expected = { 0 };
	kl_buf_printf(&expected, "expected '%c' %s", c, where);
	qbe_error_found(p, expected.data);
	kl_buf_free(&expected);
	return false;
}

void
qbe_error_found(qbe_parser *p, const char *expected)
{
	if (p->tok.kind == QTOK_ERROR)
		return;
	kl_buf found = { 0 };
	qbe_describe(&p->tok, &found);
	qbe_parse_error(p, p->tok.pos, "%s, found %s", expected, found.data);
	kl_buf_free(&found);
}

uint32_t
qbe_global_of(qbe_parser *p)
{
	qbe_unit *u = p->u;
	bool fresh;
	uint32_t g = qbe_names_get(&u->global_names, p->tok.s, p->tok.len,
				   &fresh);
	if (fresh) {
		qbe_push(&u->globals, &u->nglobals, &u->cglobals,
			 sizeof *u->globals);
		qbe_global *gl = &u->globals[g];
		gl->name = p->tok.s;
		gl->len = p->tok.len;
		gl->use = p->tok.pos;
		gl->def = KL_NONE;
		gl->call = KL_NONE;
		gl->sym = KL_NO_SYM;
	}
	return g;
}

uint8_t
qbe_base_type(const qbe_parser *p, bool abi)
{
	if (p->tok.kind != QTOK_WORD)
		return QTY_NONE;
	if (p->tok.len == 1)
		switch (p->tok.s[0]) {
		case 'w': return QTY_W;
		case 'l': return QTY_L;
		case 's': return QTY_S;
		case 'd': return QTY_D;
		default: return QTY_NONE;
		}
	/* sub-word types: a word whose high bits the callee ignores */
	if (abi && p->tok.len == 2 && (p->tok.s[0] == 's' || p->tok.s[0] == 'u')
	    && (p->tok.s[1] == 'b' || p->tok.s[1] == 'h'))
		return QTY_W;
	return QTY_NONE;
}

/* Skip to the next line that starts a definition. */
static void
recover(qbe_parser *p)
{
	static const char *const starts[] = { "function", "data", "type",
					      "export", "thread", "section",
					      "dbgfile" };
	p->skipping = true;
	for (bool found = false; !found && p->tok.kind != QTOK_EOF;) {
		if (p->tok.line_start && p->tok.kind == QTOK_WORD)
			for (size_t i = 0; i < sizeof starts / sizeof *starts;
			     i++)
				found |= qbe_is_word(p, starts[i]);
		if (!found)
			qbe_next(p);
	}
	p->skipping = false;
}

/* Define global g (the current token) as a function or data. */
static bool
define_global(qbe_parser *p, uint32_t g, bool is_func, uint32_t index)
{
	qbe_global *gl = &p->u->globals[g];
	if (gl->def != KL_NONE) {
		qbe_parse_error(p, p->tok.pos, "$%.*s is already defined",
				(int)gl->len, gl->name);
		return false;
	}
	gl->def = index;
	gl->is_func = is_func;
	gl->is_data = !is_func;
	return true;
}

/* One data item after its type letter: false on error. */
static bool
data_item(qbe_parser *p, qbe_data *d, uint8_t ty)
{
	qbe_unit *u = p->u;
	uint32_t i = qbe_push(&u->ditems, &u->nditems, &u->cditems,
			      sizeof *u->ditems);
	d->nitems++;
	qbe_ditem *it = &u->ditems[i];
	it->ty = ty;
	it->pos = p->tok.pos;
	switch (p->tok.kind) {
	case QTOK_INT:
	case QTOK_SINGLE:
	case QTOK_DOUBLE:
		it->kind = QD_VALUE;
		it->vkind = p->tok.kind == QTOK_INT      ? QV_INT
			    : p->tok.kind == QTOK_SINGLE ? QV_SINGLE
							 : QV_DOUBLE;
		it->bits = p->tok.bits;
		qbe_next(p);
		return true;
	case QTOK_STRING:
		it->kind = QD_STRING;
		it->str = p->tok.s;
		it->len = p->tok.len;
		qbe_next(p);
		return true;
	case QTOK_GLOBAL:
		it->kind = QD_SYM;
		it->global = qbe_global_of(p);
		qbe_next(p);
		if (qbe_is_punct(p, '+')) {
			qbe_next(p);
			if (p->tok.kind != QTOK_INT) {
				qbe_parse_error(p, p->tok.pos, "expected a "
						"number after '+'");
				return false;
			}
			u->ditems[i].bits = p->tok.bits;
			qbe_next(p);
		}
		return true;
	case QTOK_ERROR: /* (the lexer said what is wrong) */
		return false;
	default:
		qbe_parse_error(p, p->tok.pos, "expected a data item (a "
				"number, s_ or d_ constant, string or "
				"$symbol)");
		return false;
	}
}

static uint8_t
data_type(const qbe_parser *p)
{
	uint8_t t = qbe_base_type(p, false);
	if (t == QTY_NONE && p->tok.kind == QTOK_WORD && p->tok.len == 1)
		t = p->tok.s[0] == 'b' ? QTY_B
		    : p->tok.s[0] == 'h' ? QTY_H
		    : p->tok.s[0] == 'z' ? QTY_Z
					 : QTY_NONE;
	return t;
}

/* data $name = [align N] { (TYPE ITEM+ | z N), ... } */
static void
parse_data(qbe_parser *p)
{
	qbe_unit *u = p->u;
	qbe_next(p);
	if (p->tok.kind != QTOK_GLOBAL) {
		qbe_parse_error(p, p->tok.pos, "expected the data's name "
				"($name) after 'data'");
		return;
	}
	uint32_t di = qbe_push(&u->data, &u->ndata, &u->cdata,
			       sizeof *u->data);
	qbe_data *d = &u->data[di];
	d->global = qbe_global_of(p);
	d->pos = p->tok.pos;
	d->item0 = u->nditems;
	d->align = 8; /* QBE's default: the platform's largest */
	if (!define_global(p, d->global, false, di))
		return;
	qbe_push(&u->items, &u->nitems, &u->citems, sizeof *u->items);
	u->items[u->nitems - 1] = (qbe_item){ false, di };
	qbe_next(p);
	if (!qbe_expect(p, '=', "after the data's name"))
		return;
	if (qbe_is_word(p, "align")) {
		qbe_next(p);
		uint64_t a = p->tok.bits;
		if (p->tok.kind != QTOK_INT || a == 0 || (a & (a - 1)) ||
		    a > (1u << 30)) {
			qbe_parse_error(p, p->tok.pos, "expected an alignment "
					"(a power of two) after 'align'");
			return;
		}
		u->data[di].align = (uint32_t)a;
		qbe_next(p);
	}
	if (!qbe_expect(p, '{', "to open the data's items"))
		return;
	while (!qbe_is_punct(p, '}')) {
		uint8_t ty = data_type(p);
		qbe_pos at = p->tok.pos;
		if (ty == QTY_NONE) {
			qbe_parse_error(p, at, "expected a data field's type "
					"(b, h, w, l, s, d or z)");
			return;
		}
		qbe_next(p);
		if (ty == QTY_Z) {
			if (p->tok.kind == QTOK_INT &&
			    p->tok.bits > ((uint64_t)1 << 40)) {
				qbe_parse_error(p, p->tok.pos, "a zero-filled "
						"size is at most 2^40 bytes");
				return;
			}
			if (p->tok.kind != QTOK_INT) {
				if (p->tok.kind != QTOK_ERROR)
					qbe_parse_error(p, p->tok.pos,
							"expected a size "
							"after 'z'");
				return;
			}
			uint32_t i = qbe_push(&u->ditems, &u->nditems,
					      &u->cditems, sizeof *u->ditems);
			u->ditems[i] = (qbe_ditem){ .kind = QD_ZERO,
						    .ty = QTY_Z,
						    .bits = p->tok.bits,
						    .pos = at };
			u->data[di].nitems++;
			qbe_next(p);
		} else {
			do {
				if (!data_item(p, &u->data[di], ty))
					return;
			} while (!qbe_is_punct(p, ',') &&
				 !qbe_is_punct(p, '}'));
		}
		if (qbe_is_punct(p, ','))
			qbe_next(p);
	}
	qbe_next(p);
}

/* function [ABITY] $name(params) { body } */
static void
parse_function(qbe_parser *p)
{
	qbe_pos at = p->tok.pos;
	qbe_next(p);
	uint8_t ret = QTY_NONE;
	uint32_t ret_agg = 0;
	if (p->tok.kind == QTOK_AGG) {
		ret_agg = qbe_agg_of(p);
		if (!ret_agg)
			return;
	} else if (p->tok.kind == QTOK_WORD) {
		ret = qbe_base_type(p, true);
		if (ret == QTY_NONE) {
			qbe_parse_error(p, p->tok.pos, "unknown return type "
					"(w, l, s, d, sb, ub, sh or uh)");
			return;
		}
		qbe_next(p);
	}
	if (p->tok.kind != QTOK_GLOBAL) {
		qbe_parse_error(p, p->tok.pos, "expected the function's name "
				"($name)");
		return;
	}
	qbe_parse_func(p, ret, ret_agg, at);
}

/* Aggregate types are at most this big (an alloca's size is 32 bits). */
#define QBE_MAX_AGG (1ull << 31)

/* The aggregate type named s[0..len), numbered on first sight. */
static uint32_t
agg_named(qbe_parser *p)
{
	qbe_unit *u = p->u;
	bool fresh;
	uint32_t t = qbe_names_get(&u->agg_names, p->tok.s, p->tok.len,
				   &fresh);
	if (fresh) {
		qbe_push(&u->aggs, &u->naggs, &u->caggs, sizeof *u->aggs);
		u->aggs[t].name = p->tok.s;
		u->aggs[t].len = p->tok.len;
		u->aggs[t].pos = p->tok.pos;
	}
	return t;
}

uint32_t
qbe_agg_of(qbe_parser *p)
{
	uint32_t t = agg_named(p);
	if (!p->u->aggs[t].defined) {
		qbe_parse_error(p, p->tok.pos, "type :%.*s is not defined "
				"(QBE needs a type defined before it is used)",
				(int)p->tok.len, p->tok.s);
		return 0;
	}
	qbe_next(p);
	return t + 1;
}

/* A field's type (b h w l s d, or an aggregate defined before), taken:
 * its size and alignment. */
static bool
field_type(qbe_parser *p, uint64_t *size, uint32_t *align)
{
	if (p->tok.kind == QTOK_AGG) {
		uint32_t t = qbe_agg_of(p);
		if (t) {
			*size = p->u->aggs[t - 1].size;
			*align = p->u->aggs[t - 1].align;
		}
		return t != 0;
	}
	/* b h w l s d: their keel types' sizes, aligned to themselves */
	uint8_t ty = data_type(p);
	if (ty == QTY_NONE || ty == QTY_Z) {
		qbe_error_found(p, "expected a field's type (b, h, w, l, s, d "
				   "or :type)");
		return false;
	}
	*size = *align = kl_type_bytes(NULL, qbe_keel_type(ty));
	qbe_next(p);
	return true;
}

/* `FIELD [COUNT], ...` up to its '}' (taken): a struct, or a member of
 * a union. Each field at the next multiple of its alignment, as QBE lays
 * them out (and C); *size becomes the end if that is larger, *align the
 * largest alignment met. */
static bool
parse_fields(qbe_parser *p, uint64_t *size, uint32_t *align)
{
	uint64_t end = 0;
	while (!qbe_is_punct(p, '}')) {
		qbe_pos at = p->tok.pos;
		uint64_t fsize = 0, count = 1;
		uint32_t falign = 1;
		if (!field_type(p, &fsize, &falign))
			return false;
		if (p->tok.kind == QTOK_INT) {
			count = p->tok.bits;
			qbe_next(p);
		}
		if (falign > *align)
			*align = falign;
		end = (end + falign - 1) & ~(uint64_t)(falign - 1);
		if (count > QBE_MAX_AGG ||
		    (fsize && count > (QBE_MAX_AGG - end) / fsize)) {
			qbe_parse_error(p, at, "the type is larger than 2^31 "
					"bytes");
			return false;
		}
		end += fsize * count;
		if (!qbe_is_punct(p, '}') &&
		    !qbe_expect(p, ',', "between fields"))
			return false;
	}
	qbe_next(p);
	if (end > *size)
		*size = end;
	return true;
}

/* type :name = [align N] { FIELDS } | { { FIELDS } ... } | { SIZE } */
static void
parse_type(qbe_parser *p)
{
	qbe_unit *u = p->u;
	qbe_next(p);
	if (p->tok.kind != QTOK_AGG) {
		qbe_error_found(p, "expected the type's name (:name)");
		return;
	}
	uint32_t t = agg_named(p);
	if (u->aggs[t].defined) {
		qbe_parse_error(p, p->tok.pos, "type :%.*s is already defined "
				"on line %u", (int)p->tok.len, p->tok.s,
				u->aggs[t].pos.line);
		return;
	}
	qbe_pos at = p->tok.pos;
	qbe_next(p);
	if (!qbe_expect(p, '=', "after the type's name"))
		return;
	uint32_t align = 0;
	if (qbe_is_word(p, "align")) {
		qbe_next(p);
		uint64_t n = p->tok.bits;
		if (p->tok.kind != QTOK_INT || n == 0 || n > 4096 ||
		    (n & (n - 1))) {
			qbe_error_found(p, "expected the alignment, a power of "
					   "two from 1 to 4096");
			return;
		}
		align = (uint32_t)n;
		qbe_next(p);
	}
	if (!qbe_expect(p, '{', "before the type's fields"))
		return;
	uint64_t size = 0;
	if (p->tok.kind == QTOK_INT) {
		/* opaque: a size and an alignment, kept as given (QBE does
		 * not round this size up) */
		if (!align) {
			qbe_parse_error(p, p->tok.pos, "an opaque type (a size "
					"alone) needs an alignment: align N");
			return;
		}
		size = p->tok.bits;
		if (size > QBE_MAX_AGG) {
			qbe_parse_error(p, p->tok.pos, "the type is larger "
					"than 2^31 bytes");
			return;
		}
		qbe_next(p);
		if (!qbe_expect(p, '}', "after an opaque type's size"))
			return;
	} else {
		bool is_union = qbe_is_punct(p, '{');
		align = align ? align : 1;
		if (is_union) {
			while (qbe_is_punct(p, '{')) {
				qbe_next(p);
				if (!parse_fields(p, &size, &align))
					return;
			}
			if (!qbe_expect(p, '}', "after the union's members"))
				return;
		} else if (!parse_fields(p, &size, &align)) {
			return;
		}
		size = (size + align - 1) & ~(uint64_t)(align - 1);
		if (size > QBE_MAX_AGG) {
			qbe_parse_error(p, at, "the type is larger than 2^31 "
					"bytes");
			return;
		}
	}
	u->aggs[t].size = size;
	u->aggs[t].align = align;
	u->aggs[t].pos = at;
	u->aggs[t].defined = true;
}

/* LINKAGE* then data or function; false: skip to the next definition */
static bool
parse_definition(qbe_parser *p)
{
	qbe_pos thread = { 0, 0 };
	for (;;) {
		if (qbe_is_word(p, "export")) {
			qbe_next(p);
		} else if (qbe_is_word(p, "thread")) {
			/* keel's programs have one thread: its thread-local
			 * data is the data */
			thread = p->tok.pos;
			qbe_next(p);
		} else if (qbe_is_word(p, "section")) {
			qbe_next(p);
			for (int k = 0; k < 2 && p->tok.kind == QTOK_STRING;
			     k++)
				qbe_next(p);
		} else {
			break;
		}
	}
	uint32_t before = p->errors;
	if (thread.line && !qbe_is_word(p, "data")) {
		qbe_parse_error(p, thread, "only data may be thread-local");
		return false;
	}
	if (qbe_is_word(p, "data")) {
		parse_data(p);
	} else if (qbe_is_word(p, "function")) {
		parse_function(p);
	} else if (qbe_is_word(p, "type")) {
		parse_type(p);
	} else if (qbe_is_word(p, "dbgfile")) {
		qbe_next(p);
		if (p->tok.kind == QTOK_STRING)
			qbe_next(p);
	} else {
		qbe_error_found(p, "expected a definition (data, function or "
				   "type)");
		return false;
	}
	return p->errors == before;
}

bool
qbe_parse(qbe_unit *u, const char *text, size_t len, kl_diags *diags)
{
	qbe_parser p;
	memset(&p, 0, sizeof p);
	p.u = u;
	p.diags = diags;
	qbe_lex_init(&p.lx, text, len, diags, &u->arena);
	qbe_next(&p);
	while (p.tok.kind != QTOK_EOF && p.errors < QBE_MAX_ERRORS) {
		const char *at = p.tok.s;
		if (!parse_definition(&p)) {
			/* (past the token the error was at, at least) */
			if (p.tok.s == at)
				qbe_next(&p);
			recover(&p);
		}
	}
	qbe_names_free(&p.temps);
	qbe_names_free(&p.labels);
	return p.errors == 0;
}

void
qbe_unit_init(qbe_unit *u)
{
	memset(u, 0, sizeof *u);
	/* Room for one of each from the start: `&u->params[fn->param0]`
	 * for a file with no parameters at all would be a null pointer plus
	 * 0, which C leaves undefined (and clang's UBSan reports). */
	kl_grow(&u->items, &u->citems, sizeof *u->items, 1);
	kl_grow(&u->fns, &u->cfns, sizeof *u->fns, 1);
	kl_grow(&u->data, &u->cdata, sizeof *u->data, 1);
	kl_grow(&u->ditems, &u->cditems, sizeof *u->ditems, 1);
	kl_grow(&u->globals, &u->cglobals, sizeof *u->globals, 1);
	kl_grow(&u->blks, &u->cblks, sizeof *u->blks, 1);
	kl_grow(&u->ins, &u->cins, sizeof *u->ins, 1);
	kl_grow(&u->args, &u->cargs, sizeof *u->args, 1);
	kl_grow(&u->temps, &u->ctemps, sizeof *u->temps, 1);
	kl_grow(&u->labels, &u->clabels, sizeof *u->labels, 1);
	kl_grow(&u->params, &u->cparams, sizeof *u->params, 1);
	kl_grow(&u->aggs, &u->caggs, sizeof *u->aggs, 1);
}

void
qbe_unit_free(qbe_unit *u)
{
	free(u->items);
	free(u->fns);
	free(u->data);
	free(u->ditems);
	free(u->globals);
	free(u->blks);
	free(u->ins);
	free(u->args);
	free(u->temps);
	free(u->labels);
	free(u->params);
	free(u->aggs);
	qbe_names_free(&u->global_names);
	qbe_names_free(&u->agg_names);
	kl_arena_free(&u->arena);
	memset(u, 0, sizeof *u);
}
