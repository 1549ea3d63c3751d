/*
 * qbe_build_func.c -- one QBE function to a keel function: blocks,
 * temporaries as kl_vars variables, phis, jumps.
 *
 * QBE IL need not be in SSA form: a temporary may be assigned anywhere,
 * any number of times. Each temporary is therefore a kl_vars variable
 * (docs/api.md, "Variables"): a definition is kl_vars_def, a read
 * kl_vars_use, and kl_vars_finish makes the block parameters where
 * definitions meet. A read on a path with no definition gives 0, where
 * QBE leaves the value undefined.
 *
 * A phi `%x =T phi @a v, @b w` is a variable P of its own: at the end of
 * @a, after its instructions and before its jump, P := v (v read there);
 * at the end of @b, P := w; at the top of the phi's block, %x := P. All
 * phis of a block read their P before any of them writes its temporary,
 * so `%a = phi @l %b` beside `%b = phi @l %a` swaps, as QBE's parallel
 * phis do. (On an edge the phi names no value for, P holds what it held
 * last: 0 before any write. QBE leaves that case undefined.)
 *
 * keel forbids branches to the entry block, QBE's first block too; if a
 * jump names it anyway, an entry block of its own is put before it. A
 * block without a jump falls through to the next (QBE adds that jump
 * too).
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "qbe.h"

void
qbe_fb_error(qbe_fb *fb, qbe_pos pos, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	qbe_verror(fb->diags, pos, fmt, ap);
	va_end(ap);
	fb->errors++;
}

/* A phi's write at the end of a predecessor: P := the value of arg. */
typedef struct phi_move {
	uint32_t pred; /* the block, in the function's numbering */
	kl_var var;
	uint32_t arg;  /* into u->args */
	uint8_t ty;    /* the phi's type (QTY_*) */
} phi_move;

typedef struct phi_plan {
	kl_var *var;      /* per instruction of the function: a phi's P */
	uint32_t ins0;    /* the function's first instruction */
	phi_move *moves;  /* sorted by pred */
	uint32_t *first;  /* per block + 1: where its moves start */
} phi_plan;

static kl_block *
make_blocks(qbe_fb *fb, kl_block *entry)
{
	const qbe_unit *u = fb->u;
	const qbe_fn *fn = fb->fn;
	kl_block *kb = kl_calloc(fn->nblk, sizeof *kb);
	uint32_t first_label = u->blks[fn->blk0].label;
	bool targeted = false;
	for (uint32_t i = 0; i < fn->nblk; i++) {
		const qbe_blk *b = &u->blks[fn->blk0 + i];
		int n = b->term == QJ_JMP ? 1 : b->term == QJ_JNZ ? 2 : 0;
		for (int k = 0; k < n; k++)
			targeted |= b->target[k] == first_label;
	}
	*entry = kl_func_make_entry(fb->f);
	for (uint32_t i = 0; i < fn->nblk; i++) {
		if (i == 0 && !targeted) {
			kb[0] = *entry;
			continue;
		}
		kb[i] = kl_func_new_block(fb->f);
		kl_func_append_block(fb->f, kb[i]);
	}
	return kb;
}

static uint32_t
block_of(const qbe_fb *fb, uint32_t label)
{
	return fb->u->labels[fb->fn->label0 + label].block;
}

/* A variable per phi, and its writes grouped by predecessor (a counting
 * sort: linear, and in the order of the text within a block). */
static void
plan_phis(qbe_fb *fb, phi_plan *pp)
{
	const qbe_unit *u = fb->u;
	const qbe_fn *fn = fb->fn;
	const qbe_blk *last = &u->blks[fn->blk0 + fn->nblk - 1];
	pp->ins0 = u->blks[fn->blk0].ins0;
	uint32_t nins = last->ins0 + last->nins - pp->ins0;
	uint32_t nmoves = 0;
	pp->var = kl_calloc(nins + 1, sizeof *pp->var);
	pp->first = kl_calloc((size_t)fn->nblk + 1, sizeof *pp->first);
	for (uint32_t i = 0; i < nins; i++) {
		const qbe_ins *in = &u->ins[pp->ins0 + i];
		if (in->op->kind != QK_PHI)
			continue;
		pp->var[i] = kl_vars_declare(fb->vs, qbe_keel_type(in->ret));
		for (uint32_t k = 0; k < in->nargs; k++)
			pp->first[block_of(fb, u->args[in->arg0 + k].label) +
				  1]++;
		nmoves += in->nargs;
	}
	for (uint32_t b = 0; b < fn->nblk; b++)
		pp->first[b + 1] += pp->first[b];
	pp->moves = kl_calloc(nmoves + 1, sizeof *pp->moves);
	uint32_t *fill = kl_calloc((size_t)fn->nblk + 1, sizeof *fill);
	memcpy(fill, pp->first, ((size_t)fn->nblk + 1) * sizeof *fill);
	for (uint32_t i = 0; i < nins; i++) {
		const qbe_ins *in = &u->ins[pp->ins0 + i];
		if (in->op->kind != QK_PHI)
			continue;
		for (uint32_t k = 0; k < in->nargs; k++) {
			uint32_t a = in->arg0 + k;
			uint32_t pred = block_of(fb, u->args[a].label);
			pp->moves[fill[pred]++] = (phi_move){ pred,
							      pp->var[i], a,
							      in->ret };
		}
	}
	free(fill);
}

static void
free_plan(phi_plan *pp)
{
	free(pp->var);
	free(pp->moves);
	free(pp->first);
}

/* The phis at the top of block bi: every P read, then every temporary
 * written. Returns how many instructions were phis. */
static uint32_t
build_phis(qbe_fb *fb, const qbe_blk *b, const phi_plan *pp)
{
	const qbe_unit *u = fb->u;
	uint32_t n = 0;
	while (n < b->nins && u->ins[b->ins0 + n].op->kind == QK_PHI)
		n++;
	kl_grow(&fb->vals, &fb->cvals, sizeof *fb->vals, (uint64_t)n + 1);
	for (uint32_t k = 0; k < n; k++)
		fb->vals[k] = kl_vars_use(fb->vs,
					  pp->var[b->ins0 + k - pp->ins0],
					  fb->blk);
	for (uint32_t k = 0; k < n; k++)
		kl_vars_def(fb->vs, fb->vars[u->ins[b->ins0 + k].dest],
			    fb->blk, fb->vals[k]);
	return n;
}

/* The writes of the phis of bi's successors, before bi's jump. */
static bool
build_moves(qbe_fb *fb, uint32_t bi, const phi_plan *pp)
{
	for (uint32_t k = pp->first[bi]; k < pp->first[bi + 1]; k++) {
		const phi_move *mv = &pp->moves[k];
		kl_value v = qbe_operand(fb, &fb->u->args[mv->arg].v, mv->ty);
		if (v.id == KL_NONE)
			return false;
		kl_vars_def(fb->vs, mv->var, fb->blk, v);
	}
	return true;
}

static kl_block_call
to(const kl_block *kb, uint32_t b)
{
	return (kl_block_call){ kb[b], NULL, 0 };
}

static bool
build_jump(qbe_fb *fb, uint32_t bi, const kl_block *kb)
{
	const qbe_blk *b = &fb->u->blks[fb->fn->blk0 + bi];
	uint8_t ret = fb->fn->ret;
	kl_value v;
	switch (b->term) {
	case QJ_NONE:
		kl_build_jump(&fb->b, to(kb, bi + 1));
		return true;
	case QJ_JMP:
		kl_build_jump(&fb->b, to(kb, block_of(fb, b->target[0])));
		return true;
	case QJ_JNZ:
		/* a long condition: its low 32 bits are tested */
		v = qbe_operand(fb, &b->tval, QTY_W);
		if (v.id == KL_NONE)
			return false;
		kl_build_brif(&fb->b, v, to(kb, block_of(fb, b->target[0])),
			      to(kb, block_of(fb, b->target[1])));
		return true;
	case QJ_HLT:
		kl_build_trap(&fb->b, KL_TRAP_UNREACHABLE, 0);
		return true;
	default:
		break;
	}
	if (fb->fn->ret_agg) {
		/* the aggregate at the address returned is copied to the
		 * caller's memory */
		const qbe_agg *t = &fb->u->aggs[fb->fn->ret_agg - 1];
		if (b->tval.kind == QV_NONE) {
			qbe_fb_error(fb, b->term_pos, "ret needs the address "
				     "of the :%.*s to return", (int)t->len,
				     t->name);
			return false;
		}
		v = qbe_operand(fb, &b->tval, QTY_L);
		if (v.id == KL_NONE ||
		    !qbe_copy_bytes(fb, v, fb->sret, t->size, b->tval.pos))
			return false;
		kl_build_return(&fb->b, NULL, 0);
		return true;
	}
	if (ret == QTY_NONE) {
		if (b->tval.kind != QV_NONE) {
			qbe_fb_error(fb, b->tval.pos, "ret with a value in a "
				     "function without a return type");
			return false;
		}
		kl_build_return(&fb->b, NULL, 0);
		return true;
	}
	/* a bare ret in a function with a result: QBE leaves the value
	 * undefined; keel returns 0 */
	qbe_val zero = { .kind = QV_INT, .pos = b->term_pos };
	v = qbe_operand(fb, b->tval.kind != QV_NONE ? &b->tval : &zero, ret);
	if (v.id == KL_NONE)
		return false;
	kl_build_return(&fb->b, &v, 1);
	return true;
}

static bool
build_block(qbe_fb *fb, uint32_t bi, const kl_block *kb, const phi_plan *pp)
{
	const qbe_blk *b = &fb->u->blks[fb->fn->blk0 + bi];
	fb->blk = kb[bi];
	kl_builder_at_end(&fb->b, fb->blk);
	for (uint32_t k = build_phis(fb, b, pp); k < b->nins; k++)
		if (!qbe_build_inst(fb, &fb->u->ins[b->ins0 + k]))
			return false;
	return build_moves(fb, bi, pp) && build_jump(fb, bi, kb);
}

static void
add_slot(qbe_fb *fb, uint64_t size, uint32_t align)
{
	kl_grow(&fb->slots, &fb->cslots, sizeof *fb->slots,
		(uint64_t)fb->next_slot + 1);
	fb->slots[fb->next_slot++] =
		kl_build_alloca(&fb->b, size ? (uint32_t)size : 1, align);
}

/* An alloca in the entry block (so it runs once a call) for each
 * aggregate the function's calls pass or get back by value, and for the
 * variadic arguments of each call to a variadic function of the file
 * (qbe_va_bytes), in the order the calls will use them: a call's result,
 * its aggregate arguments, its variadic arguments. */
static void
build_slots(qbe_fb *fb)
{
	const qbe_unit *u = fb->u;
	const qbe_fn *fn = fb->fn;
	for (uint32_t i = 0; i < fn->nblk; i++) {
		const qbe_blk *b = &u->blks[fn->blk0 + i];
		for (uint32_t k = 0; k < b->nins; k++) {
			const qbe_ins *in = &u->ins[b->ins0 + k];
			if (in->op->kind != QK_CALL)
				continue;
			for (uint32_t a = 0; a < in->nargs; a++) {
				uint32_t t = a ? u->args[in->arg0 + a].agg
					       : qbe_result_agg(u, in);
				if (!t || (a && !qbe_arg_copied(u, in, a - 1)))
					continue;
				/* (too big: the call says so, and the
				 * function is not made) */
				const qbe_agg *agg = &u->aggs[t - 1];
				add_slot(fb, agg->size <= QBE_MAX_BLIT
						     ? agg->size : 1,
					 agg->align);
			}
			if (qbe_call_packs(u, in))
				add_slot(fb, qbe_va_bytes(u, in), 8);
		}
	}
	fb->next_slot = 0;
}

/* The entry block: parameters defined, the aggregates' memory, and a
 * jump to QBE's first block when that is a block of its own. */
static void
build_entry(qbe_fb *fb, kl_block entry, const kl_block *kb)
{
	const qbe_fn *fn = fb->fn;
	const qbe_param *params = &fb->u->params[fn->param0];
	uint32_t hidden = fn->ret_agg != 0;
	if (hidden)
		fb->sret = kl_block_param(fb->f, entry, 0);
	if (fn->variadic)
		fb->va = kl_block_param(fb->f, entry, hidden + fn->nparams);
	for (uint32_t k = 0; k < fn->nparams; k++)
		kl_vars_def(fb->vs, fb->vars[params[k].temp], entry,
			    kl_block_param(fb->f, entry, hidden + k));
	kl_builder_at_end(&fb->b, entry);
	build_slots(fb);
	if (kb[0].id != entry.id)
		kl_build_jump(&fb->b, to(kb, 0));
}

bool
qbe_build_func(qbe_unit *u, kl_module *m, const qbe_fn *fn, kl_diags *diags)
{
	qbe_fb fb;
	memset(&fb, 0, sizeof fb);
	fb.u = u;
	fb.m = m;
	fb.fn = fn;
	fb.diags = diags;
	fb.f = kl_sym_func(m, fn->sym);
	kl_builder_init(&fb.b, fb.f);
	fb.vs = kl_vars_new(fb.f);
	fb.vars = kl_calloc((size_t)fn->ntemp + 1, sizeof *fb.vars);
	const qbe_temp *temps = &u->temps[fn->temp0];
	for (uint32_t t = 0; t < fn->ntemp; t++)
		fb.vars[t] = kl_vars_declare(fb.vs, qbe_keel_type(temps[t].ty));
	kl_block entry;
	kl_block *kb = make_blocks(&fb, &entry);
	phi_plan pp;
	plan_phis(&fb, &pp);
	build_entry(&fb, entry, kb);
	bool ok = true;
	for (uint32_t i = 0; ok && i < fn->nblk; i++)
		ok = build_block(&fb, i, kb, &pp);
	if (ok && (kl_builder_status(&fb.b) != KL_OK ||
		   kl_vars_finish(fb.vs) != KL_OK))
		ok = false;
	if (!ok && fb.errors == 0) {
		/* (a failure nothing reported: the builder's or kl_vars's) */
		const char *why = fb.b.error ? fb.b.error
					     : kl_vars_error(fb.vs);
		qbe_fb_error(&fb, fn->pos, "cannot build this function (a bug "
			     "of the importer): %s", why ? why : "?");
	}
	free_plan(&pp);
	free(kb);
	free(fb.vars);
	free(fb.vals);
	free(fb.slots);
	kl_vars_free(fb.vs);
	return ok && fb.errors == 0;
}
