/*
 * qbe_parse_func.c -- a QBE function, from its name to its closing
 * brace: parameters, blocks, phis, instructions and jumps.
 *
 * Grammar: QBE's "Functions", "Control" and "Instructions" sections.
 * Temporaries and labels are numbered per function as first seen
 * (qbe_names), so a jump or a phi may name a block further down and a
 * use may come before the definition in the text (round a loop). When
 * the closing brace is reached the function is checked whole: every
 * label named has a block, every temporary used is defined somewhere,
 * the last block ends in a jump. A temporary takes the type of its first
 * definition; another definition with another type is an error, since a
 * keel variable has one type.
 *
 * After an error in a statement the rest of its line is skipped (unless
 * the error is at the start of the next line: a statement cut short),
 * so each statement's mistake is reported once.
 */
#include <string.h>

#include "qbe.h"

/* The function's temporary named by the current token. */
static uint32_t
temp_of(qbe_parser *p, qbe_fn *fn)
{
	qbe_unit *u = p->u;
	bool fresh;
	uint32_t t = qbe_names_get(&p->temps, p->tok.s, p->tok.len, &fresh);
	if (fresh) {
		qbe_push(&u->temps, &u->ntemps, &u->ctemps, sizeof *u->temps);
		qbe_temp *tp = &u->temps[fn->temp0 + t];
		tp->name = p->tok.s;
		tp->len = p->tok.len;
		tp->use = p->tok.pos;
		fn->ntemp++;
	}
	return t;
}

static uint32_t
label_of(qbe_parser *p, qbe_fn *fn)
{
	qbe_unit *u = p->u;
	bool fresh;
	uint32_t l = qbe_names_get(&p->labels, p->tok.s, p->tok.len, &fresh);
	if (fresh) {
		qbe_push(&u->labels, &u->nlabels, &u->clabels,
			 sizeof *u->labels);
		u->labels[fn->label0 + l] = (qbe_label){ KL_NONE, p->tok.pos,
							 p->tok.s, p->tok.len };
		fn->nlabel++;
	}
	return l;
}

/* Temporary t is defined here with type ty. */
static bool
define_temp(qbe_parser *p, qbe_fn *fn, uint32_t t, uint8_t ty, qbe_pos at)
{
	qbe_temp *tp = &p->u->temps[fn->temp0 + t];
	if (!tp->defined) {
		tp->defined = true;
		tp->ty = ty;
		tp->def = at;
		return true;
	}
	if (tp->ty == QTY_NONE) { /* (its first definition failed) */
		tp->ty = ty;
		tp->def = at;
	}
	if (tp->ty == ty)
		return true;
	qbe_parse_error(p, at, "%%%.*s is %s here but %s on line %u (a "
			"temporary has one type)", (int)tp->len, tp->name,
			qbe_type_name(ty), qbe_type_name(tp->ty),
			tp->def.line);
	return false;
}

static void
expected_value(qbe_parser *p)
{
	qbe_error_found(p, "expected a value (%temp, a constant or $symbol)");
}

/* A value: %temp, a constant or $global. */
static bool
parse_val(qbe_parser *p, qbe_fn *fn, qbe_val *v)
{
	memset(v, 0, sizeof *v);
	v->pos = p->tok.pos;
	v->bits = p->tok.bits;
	switch (p->tok.kind) {
	case QTOK_TEMP:
		v->kind = QV_TEMP;
		v->id = temp_of(p, fn);
		break;
	case QTOK_INT: v->kind = QV_INT; break;
	case QTOK_SINGLE: v->kind = QV_SINGLE; break;
	case QTOK_DOUBLE: v->kind = QV_DOUBLE; break;
	case QTOK_GLOBAL:
		v->kind = QV_GLOBAL;
		v->id = qbe_global_of(p);
		break;
	case QTOK_ERROR: return false;
	default:
		if (qbe_is_word(p, "thread")) {
			/* a thread's own copy of $x: with one thread,
			 * $x itself */
			qbe_next(p);
			if (p->tok.kind == QTOK_GLOBAL)
				return parse_val(p, fn, v);
			qbe_error_found(p, "expected a $symbol after thread");
			return false;
		}
		expected_value(p);
		return false;
	}
	qbe_next(p);
	return true;
}

static uint32_t
push_arg(qbe_parser *p, qbe_ins *in)
{
	qbe_unit *u = p->u;
	uint32_t a = qbe_push(&u->args, &u->nargs, &u->cargs,
			      sizeof *u->args);
	if (in->nargs++ == 0)
		in->arg0 = a;
	return a;
}

/* n operands separated by commas */
static bool
parse_operands(qbe_parser *p, qbe_fn *fn, qbe_ins *in, unsigned n)
{
	for (unsigned k = 0; k < n; k++) {
		if (k && !qbe_expect(p, ',', "between operands"))
			return false;
		qbe_val v;
		if (!parse_val(p, fn, &v))
			return false;
		uint32_t a = push_arg(p, in);
		p->u->args[a].v = v;
	}
	return true;
}

/* The type of a parameter or argument (what), taken; QTY_NONE after
 * an error (env is refused). An aggregate is passed as its address: l,
 * with p->agg its type + 1 (0 for the others). */
static uint8_t
abi_type(qbe_parser *p, const char *what)
{
	uint8_t ty = qbe_base_type(p, true);
	p->agg = 0;
	if (qbe_is_word(p, "env"))
		qbe_parse_error(p, p->tok.pos, "environment %ss (env) are not "
				"supported", what);
	else if (p->tok.kind == QTOK_AGG)
		return (p->agg = qbe_agg_of(p)) ? QTY_L : QTY_NONE;
	else if (ty == QTY_NONE)
		qbe_parse_error(p, p->tok.pos, "expected %s %s's type (w, l, "
				"s, d, sb, ub, sh or uh)",
				what[0] == 'a' ? "an" : "a", what);
	else
		qbe_next(p);
	return ty;
}

/* A parenthesised list of `TYPE ITEM` and `...`, the parameters of a
 * function or the arguments of a call: list->item reads what follows a
 * type, list->dots takes a `...`. */
typedef struct typed_list {
	const char *what, *after; /* "argument", "after the function ..." */
	bool (*item)(qbe_parser *p, qbe_fn *fn, void *ctx, uint8_t ty);
	bool (*dots)(qbe_parser *p, qbe_fn *fn, void *ctx);
	void *ctx;
} typed_list;

static bool
parse_typed_list(qbe_parser *p, qbe_fn *fn, const typed_list *list)
{
	if (!qbe_expect(p, '(', list->after))
		return false;
	while (!qbe_is_punct(p, ')')) {
		if (p->tok.kind == QTOK_DOTS) {
			if (!list->dots(p, fn, list->ctx))
				return false;
			qbe_next(p);
		} else {
			uint8_t ty = abi_type(p, list->what);
			if (ty == QTY_NONE || !list->item(p, fn, list->ctx, ty))
				return false;
		}
		if (!qbe_is_punct(p, ')') &&
		    !qbe_expect(p, ',', list->what[0] == 'a'
						? "between arguments"
						: "between parameters"))
			return false;
	}
	qbe_next(p);
	return true;
}

static bool
call_arg(qbe_parser *p, qbe_fn *fn, void *ctx, uint8_t ty)
{
	qbe_ins *in = ctx;
	qbe_val v;
	if (!parse_val(p, fn, &v))
		return false;
	uint32_t a = push_arg(p, in);
	p->u->args[a].v = v;
	p->u->args[a].ty = ty;
	p->u->args[a].agg = p->agg;
	return true;
}

static bool
call_dots(qbe_parser *p, qbe_fn *fn, void *ctx)
{
	qbe_ins *in = ctx;
	(void)fn;
	if (in->nfixed != KL_NONE) {
		qbe_parse_error(p, p->tok.pos, "'...' twice in one call");
		return false;
	}
	in->nfixed = in->nargs - 1;
	return true;
}

/* (ABITY VAL | env VAL | ...), within parentheses */
static bool
parse_call_args(qbe_parser *p, qbe_fn *fn, qbe_ins *in)
{
	typed_list list = { "argument", "after the function called",
			    call_arg, call_dots, in };
	return parse_typed_list(p, fn, &list);
}

/* @label VAL, ... */
static bool
parse_phi_args(qbe_parser *p, qbe_fn *fn, qbe_ins *in)
{
	do {
		if (in->nargs && !qbe_expect(p, ',', "between phi arguments"))
			return false;
		if (p->tok.kind != QTOK_LABEL) {
			qbe_parse_error(p, p->tok.pos, "expected a block "
					"label (@name) in the phi");
			return false;
		}
		uint32_t l = label_of(p, fn);
		qbe_pos lpos = p->tok.pos;
		qbe_next(p);
		qbe_val v;
		if (!parse_val(p, fn, &v))
			return false;
		uint32_t a = push_arg(p, in);
		p->u->args[a].v = v;
		p->u->args[a].label = l;
		p->u->args[a].lpos = lpos;
	} while (qbe_is_punct(p, ','));
	return true;
}

static const char *
needs_result(const qbe_opdef *op)
{
	return op->rmask && op->kind != QK_CALL ? "needs a result temporary"
						: NULL;
}

/* An instruction from its name on; dest is KL_NONE without a result,
 * ret_agg the result's aggregate type + 1 (a call's), or 0. */
static bool
parse_inst(qbe_parser *p, qbe_fn *fn, qbe_blk *b, uint32_t dest,
	   uint8_t ret, uint32_t ret_agg, qbe_pos dpos)
{
	qbe_unit *u = p->u;
	qbe_pos at = p->tok.pos;
	const qbe_opdef *op = NULL;
	qbe_ins in = { 0 };
	in.nfixed = KL_NONE;
	if (p->tok.kind == QTOK_WORD) {
		op = qbe_op_lookup(p->tok.s, p->tok.len);
		if (!op && qbe_cmp_parse(p->tok.s, p->tok.len, &in.cty,
					 &in.cc))
			op = &qbe_op_cmp;
		else if (!op && qbe_is_word(p, "call"))
			op = &qbe_op_call;
		else if (!op && qbe_is_word(p, "phi"))
			op = &qbe_op_phi;
	}
	if (!op && p->tok.kind != QTOK_WORD) {
		qbe_error_found(p, "expected an instruction");
		return false;
	}
	if (!op) {
		qbe_parse_error(p, at, "unknown instruction '%.*s'",
				(int)(p->tok.len > 40 ? 40 : p->tok.len),
				p->tok.s);
		return false;
	}
	if (dest == KL_NONE && needs_result(op)) {
		qbe_parse_error(p, at, "%s %s", op->name, needs_result(op));
		return false;
	}
	if (dest != KL_NONE && !(op->rmask & QTY_BIT(ret))) {
		qbe_parse_error(p, dpos, "%.*s cannot define %s %s temporary",
				(int)p->tok.len, p->tok.s,
				ret == QTY_L ? "an" : "a", qbe_type_name(ret));
		return false;
	}
	if (op->kind == QK_PHI && b->nins != 0 &&
	    u->ins[b->ins0 + b->nins - 1].op->kind != QK_PHI) {
		qbe_parse_error(p, at, "a phi after other instructions (a "
				"block's phis come first)");
		return false;
	}
	in.op = op;
	in.ret = dest == KL_NONE ? QTY_NONE : ret;
	in.ret_agg = ret_agg;
	in.dest = dest;
	in.pos = at;
	qbe_next(p);
	bool ok;
	switch (op->kind) {
	case QK_CALL:
		ok = parse_operands(p, fn, &in, 1) &&
		     parse_call_args(p, fn, &in);
		break;
	case QK_PHI: ok = parse_phi_args(p, fn, &in); break;
	case QK_ARITH:
	case QK_SHIFT:
	case QK_STORE:
	case QK_CMP: ok = parse_operands(p, fn, &in, 2); break;
	case QK_BLIT: ok = parse_operands(p, fn, &in, 3); break;
	default: ok = parse_operands(p, fn, &in, 1); break;
	}
	if (!ok)
		return false;
	uint32_t i = qbe_push(&u->ins, &u->nins, &u->cins, sizeof *u->ins);
	u->ins[i] = in;
	if (b->nins++ == 0)
		b->ins0 = i;
	return dest == KL_NONE || define_temp(p, fn, dest, ret, dpos);
}

/* jmp, jnz, ret, hlt: false if the word is none of them */
static bool
parse_jump(qbe_parser *p, qbe_fn *fn, qbe_blk *b, bool *ok)
{
	qbe_pos at = p->tok.pos;
	*ok = false;
	if (qbe_is_word(p, "hlt")) {
		b->term = QJ_HLT;
	} else if (qbe_is_word(p, "ret")) {
		b->term = QJ_RET;
	} else if (qbe_is_word(p, "jmp")) {
		b->term = QJ_JMP;
	} else if (qbe_is_word(p, "jnz")) {
		b->term = QJ_JNZ;
	} else {
		return false;
	}
	b->term_pos = at;
	qbe_next(p);
	if (b->term == QJ_RET) {
		/* ret's value, if any, is on its line */
		if (p->tok.kind != QTOK_NL && p->tok.kind != QTOK_EOF &&
		    !qbe_is_punct(p, '}'))
			*ok = parse_val(p, fn, &b->tval);
		else
			*ok = true;
		return true;
	}
	if (b->term == QJ_HLT) {
		*ok = true;
		return true;
	}
	if (b->term == QJ_JNZ && (!parse_val(p, fn, &b->tval) ||
				  !qbe_expect(p, ',', "after jnz's value")))
		return true;
	for (int k = 0; k < (b->term == QJ_JNZ ? 2 : 1); k++) {
		if (k && !qbe_expect(p, ',', "between jnz's labels"))
			return true;
		if (p->tok.kind != QTOK_LABEL) {
			qbe_parse_error(p, p->tok.pos, "expected a block "
					"label (@name)");
			return true;
		}
		b->tpos[k] = p->tok.pos;
		b->target[k] = label_of(p, fn);
		qbe_next(p);
	}
	*ok = true;
	return true;
}

/* %t = TYPE instruction, from the '=' on */
static bool
define_statement(qbe_parser *p, qbe_fn *fn, qbe_blk *b, uint32_t t,
	 qbe_pos dpos)
{
	if (!qbe_expect(p, '=', "after the temporary defined"))
		return false;
	if (p->tok.kind == QTOK_AGG) {
		/* the result's address: memory the caller gives */
		uint32_t agg = qbe_agg_of(p);
		if (!agg)
			return false;
		if (!qbe_is_word(p, "call")) {
			qbe_parse_error(p, p->tok.pos, "an aggregate result "
					"type is for calls only");
			return false;
		}
		return parse_inst(p, fn, b, t, QTY_L, agg, dpos);
	}
	uint8_t ty = qbe_base_type(p, true);
	if (ty == QTY_NONE) {
		qbe_parse_error(p, p->tok.pos, "expected the result's "
				"type (w, l, s or d) after '='");
		return false;
	}
	bool subword = p->tok.len == 2;
	qbe_next(p);
	if (subword && !qbe_is_word(p, "call")) {
		qbe_parse_error(p, p->tok.pos, "a sub-word result "
				"type is for calls only");
		return false;
	}
	return parse_inst(p, fn, b, t, ty, 0, dpos);
}

/* One statement in block b (an instruction or a jump); false on error. */
static bool
parse_statement(qbe_parser *p, qbe_fn *fn, qbe_blk *b)
{
	if (b->term != QJ_NONE) {
		qbe_parse_error(p, p->tok.pos, "an instruction after the "
				"block's jump (a label missing?)");
		return false;
	}
	if (p->tok.kind == QTOK_TEMP) {
		uint32_t t = temp_of(p, fn);
		qbe_pos dpos = p->tok.pos;
		qbe_next(p);
		if (!define_statement(p, fn, b, t, dpos)) {
			/* one error: not "%t is never defined" after it */
			p->u->temps[fn->temp0 + t].defined = true;
			return false;
		}
		return true;
	}
	bool ok;
	if (parse_jump(p, fn, b, &ok))
		return ok;
	if (qbe_is_word(p, "dbgloc")) {
		/* debug locations: nothing keel keeps */
		qbe_next(p);
		for (int k = 0; k < 2 && p->tok.kind == QTOK_INT; k++) {
			qbe_next(p);
			if (k == 0 && qbe_is_punct(p, ','))
				qbe_next(p);
		}
		return true;
	}
	return parse_inst(p, fn, b, KL_NONE, QTY_NONE, 0, p->tok.pos);
}

/* Skip the rest of a statement's line after an error. */
static void
skip_statement(qbe_parser *p)
{
	p->skipping = true;
	while (p->tok.kind != QTOK_EOF && p->tok.kind != QTOK_NL)
		qbe_next(p);
	p->skipping = false;
}

/* Back from a statement's line to the tokens of the next. */
static void
end_statement(qbe_parser *p)
{
	p->in_stmt = false;
	if (p->held && p->tok.kind == QTOK_NL) {
		p->tok = p->next;
		p->held = false;
	}
}

static bool
param(qbe_parser *p, qbe_fn *fn, void *ctx, uint8_t ty)
{
	qbe_unit *u = p->u;
	(void)ctx;
	if (fn->variadic) {
		qbe_parse_error(p, p->tok.pos, "'...' must be the last "
				"parameter");
		return false;
	}
	if (p->tok.kind != QTOK_TEMP) {
		qbe_parse_error(p, p->tok.pos, "expected the parameter's name "
				"(%%name)");
		return false;
	}
	uint32_t t = temp_of(p, fn);
	if (u->temps[fn->temp0 + t].defined) {
		qbe_parse_error(p, p->tok.pos, "parameter %%%.*s named twice",
				(int)p->tok.len, p->tok.s);
		return false;
	}
	define_temp(p, fn, t, ty, p->tok.pos);
	uint32_t k = qbe_push(&u->params, &u->nparams, &u->cparams,
			      sizeof *u->params);
	u->params[k] = (qbe_param){ t, ty, p->agg };
	fn->nparams++;
	qbe_next(p);
	return true;
}

static bool
param_dots(qbe_parser *p, qbe_fn *fn, void *ctx)
{
	(void)ctx;
	if (fn->variadic) {
		qbe_parse_error(p, p->tok.pos, "'...' twice in one function");
		return false;
	}
	fn->variadic = true;
	return true;
}

/* (ABITY %t | env %t | ...), */
static bool
parse_params(qbe_parser *p, qbe_fn *fn)
{
	typed_list list = { "parameter", "after the function's name", param,
			    param_dots, NULL };
	return parse_typed_list(p, fn, &list);
}

/* The whole function read: what can only be checked at its end. */
static void
check_function(qbe_parser *p, qbe_fn *fn, qbe_pos close)
{
	qbe_unit *u = p->u;
	if (fn->nblk == 0) {
		qbe_parse_error(p, close, "a function needs at least one "
				"block (@name)");
		return;
	}
	qbe_blk *last = &u->blks[fn->blk0 + fn->nblk - 1];
	if (last->term == QJ_NONE)
		qbe_parse_error(p, close, "the last block ends without a jump "
				"(jmp, jnz, ret or hlt) before '}'");
	for (uint32_t l = 0; l < fn->nlabel; l++) {
		qbe_label *lb = &u->labels[fn->label0 + l];
		if (lb->block == KL_NONE)
			qbe_parse_error(p, lb->use, "undefined block @%.*s",
					(int)lb->len, lb->name);
	}
	for (uint32_t t = 0; t < fn->ntemp; t++) {
		qbe_temp *tp = &u->temps[fn->temp0 + t];
		if (!tp->defined)
			qbe_parse_error(p, tp->use, "%%%.*s is used but never "
					"defined", (int)tp->len, tp->name);
	}
}

/* A new block for the label at the current token. */
static bool
start_block(qbe_parser *p, qbe_fn *fn)
{
	qbe_unit *u = p->u;
	uint32_t l = label_of(p, fn);
	qbe_label *lb = &u->labels[fn->label0 + l];
	if (lb->block != KL_NONE) {
		qbe_blk *first = &u->blks[fn->blk0 + lb->block];
		qbe_parse_error(p, p->tok.pos, "block @%.*s is already "
				"defined on line %u", (int)p->tok.len,
				p->tok.s, first->pos.line);
		return false;
	}
	uint32_t bi = qbe_push(&u->blks, &u->nblks, &u->cblks,
			       sizeof *u->blks);
	u->blks[bi].label = l;
	u->blks[bi].pos = p->tok.pos;
	u->blks[bi].ins0 = u->nins;
	u->labels[fn->label0 + l].block = fn->nblk++;
	qbe_next(p);
	return true;
}

void
qbe_parse_func(qbe_parser *p, uint8_t ret, uint32_t ret_agg, qbe_pos at)
{
	qbe_unit *u = p->u;
	uint32_t fi = qbe_push(&u->fns, &u->nfns, &u->cfns, sizeof *u->fns);
	qbe_fn *fn = &u->fns[fi];
	fn->global = qbe_global_of(p);
	fn->pos = at;
	fn->ret = ret;
	fn->ret_agg = ret_agg;
	fn->param0 = u->nparams;
	fn->blk0 = u->nblks;
	fn->temp0 = u->ntemps;
	fn->label0 = u->nlabels;
	fn->sym = KL_NO_SYM;
	qbe_names_clear(&p->temps);
	qbe_names_clear(&p->labels);
	qbe_global *gl = &u->globals[fn->global];
	if (gl->def != KL_NONE) {
		qbe_parse_error(p, p->tok.pos, "$%.*s is already defined",
				(int)gl->len, gl->name);
		return;
	}
	gl->def = fi;
	gl->is_func = true;
	qbe_push(&u->items, &u->nitems, &u->citems, sizeof *u->items);
	u->items[u->nitems - 1] = (qbe_item){ true, fi };
	qbe_next(p);
	if (!parse_params(p, fn) ||
	    !qbe_expect(p, '{', "to open the function's body"))
		return;
	while (!qbe_is_punct(p, '}')) {
		if (p->tok.kind == QTOK_EOF) {
			qbe_parse_error(p, p->prev_end, "'}' missing at the "
					"end of the function");
			return;
		}
		if (p->tok.line_start && p->tok.pos.col == 1 &&
		    (qbe_is_word(p, "function") || qbe_is_word(p, "data") ||
		     qbe_is_word(p, "export"))) {
			qbe_parse_error(p, p->tok.pos, "'}' missing before "
					"this line");
			return;
		}
		bool ok;
		p->in_stmt = true;
		if (p->tok.kind == QTOK_LABEL) {
			ok = start_block(p, fn);
		} else if (fn->nblk == 0) {
			qbe_parse_error(p, p->tok.pos, "expected the first "
					"block's label (@name)");
			ok = false;
		} else {
			ok = parse_statement(p, fn,
					     &u->blks[fn->blk0 + fn->nblk - 1]);
		}
		if (ok && p->tok.kind != QTOK_NL && p->tok.kind != QTOK_EOF &&
		    !qbe_is_punct(p, '}')) {
			/* (a bad token: the lexer said so already) */
			if (p->tok.kind != QTOK_ERROR) {
				kl_buf found = { 0 };
				qbe_describe(&p->tok, &found);
				const char *hint =
					qbe_is_punct(p, ',')
						? "an operand too many?"
						: "a ',' missing before it?";
				qbe_parse_error(p, p->tok.pos,
						"%s after a complete "
						"statement (%s)", found.data,
						hint);
				kl_buf_free(&found);
			}
			ok = false;
		}
		if (!ok)
			skip_statement(p);
		end_statement(p);
		if (p->errors >= QBE_MAX_ERRORS)
			return;
	}
	check_function(p, fn, p->tok.pos);
	qbe_next(p);
}
