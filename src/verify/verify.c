/*
 * verify.c -- the verifier's entry points: kl_verify_func and
 * kl_verify_module, the error reporting every check uses, and the safe
 * readers of instruction operands.
 *
 * A run over one function has three phases, each linear in the size of
 * the function (docs/verifier.md, "How it works"):
 *
 *   1. structure (structure.c, ssa.c): walk the block layout and every
 *      block's instruction list with cycle detection, check each placed
 *      instruction's opcode, operand lists, results and referenced
 *      entities, mark every definition, resolve alias chains. What it
 *      learns is kept in per-entity arrays, so phase 3 never re-checks.
 *   2. analyses (ssa.c): if the structure is sound enough, compute the CFG
 *      and dominator tree afresh with src/analysis/, and compare the
 *      caller's cached ones with them.
 *   3. checks: one pass over the placed instructions: every use is of a
 *      defined value and dominated by its definition (ssa.c), the opcode's
 *      type rule (typing.c), the memory rules (memory.c).
 *
 * Errors are collected, never printed; the new diagnostics are finally
 * sorted by source line, stably, so built IR (line 0) keeps phase order.
 * There is no recursion anywhere (chains and trees are walked with loops
 * and explicit stacks) and no allocation per instruction.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "verify.h"

/* ---- reporting ---- */

static void KL_PRINTF(6, 0)
add_diag(verifier *vf, kl_severity sev, kl_entity loc, uint32_t inst,
	 uint32_t line, const char *fmt, va_list ap)
{
	kl_buf msg = { 0 };
	kl_buf_vprintf(&msg, fmt, ap);
	kl_diags_add(vf->out, sev, line, 0, msg.data ? msg.data : "");
	kl_buf_free(&msg);
	kl_diag *d = &vf->out->items[vf->out->len - 1];
	d->func = (kl_sym){ vf->f->sym };
	d->loc = loc;
	d->inst = (kl_inst){ inst };
	vf->errors += sev == KL_SEV_ERROR;
}

static void KL_PRINTF(5, 0)
add_error(verifier *vf, kl_entity loc, uint32_t inst, uint32_t line,
	  const char *fmt, va_list ap)
{
	add_diag(vf, KL_SEV_ERROR, loc, inst, line, fmt, ap);
}

static uint32_t
inst_line(const kl_func *f, uint32_t i)
{
	return f->inst_lines && i < f->ninsts ? f->inst_lines[i] : 0;
}

static uint32_t
block_line(const kl_func *f, uint32_t b)
{
	return f->block_lines && b < f->nblocks ? f->block_lines[b] : 0;
}

void
err_inst(verifier *vf, uint32_t i, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	add_error(vf, (kl_entity){ KL_ENT_INST, i }, i, inst_line(vf->f, i),
		  fmt, ap);
	va_end(ap);
}

void
warn_inst(verifier *vf, uint32_t i, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	add_diag(vf, KL_SEV_WARNING, (kl_entity){ KL_ENT_INST, i }, i,
		 inst_line(vf->f, i), fmt, ap);
	va_end(ap);
}

void
err_block(verifier *vf, uint32_t b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	add_error(vf, (kl_entity){ KL_ENT_BLOCK, b }, KL_NONE,
		  block_line(vf->f, b), fmt, ap);
	va_end(ap);
}

void
err_value(verifier *vf, uint32_t v, uint32_t i, const char *fmt, ...)
{
	const kl_func *f = vf->f;
	uint32_t line = 0;
	if (i != KL_NONE) {
		line = inst_line(f, i);
	} else if (v < f->nvalues && f->values[v].kind == VK_PARAM) {
		line = block_line(f, f->values[v].def);
	} else if (v < f->nvalues && f->values[v].kind == VK_RESULT) {
		i = f->values[v].def < f->ninsts ? f->values[v].def : KL_NONE;
		line = inst_line(f, i);
	}
	if (line == 0)
		line = f->line_first;
	va_list ap;
	va_start(ap, fmt);
	add_error(vf, (kl_entity){ KL_ENT_VALUE, v }, i, line, fmt, ap);
	va_end(ap);
}

void
err_func(verifier *vf, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	add_error(vf, (kl_entity){ KL_ENT_FUNC, vf->f->sym }, KL_NONE,
		  vf->f->line_first, fmt, ap);
	va_end(ap);
}

void
err_sigref(verifier *vf, uint32_t s, const char *fmt, ...)
{
	const kl_func *f = vf->f;
	uint32_t line = f->sigref_lines && s < f->nsigrefs ? f->sigref_lines[s]
							   : 0;
	va_list ap;
	va_start(ap, fmt);
	add_error(vf, (kl_entity){ KL_ENT_SIGREF, s }, KL_NONE,
		  line ? line : f->line_first, fmt, ap);
	va_end(ap);
}

/* ---- safe readers ---- */

bool
inst_view_get(const kl_func *f, uint32_t i, inst_view *iv)
{
	const kl_inst_data *d = &f->insts[i];
	const kl_opinfo *info = &kl_op_table[d->op]; /* valid: checked */
	unsigned fmt = info->format;
	iv->info = info;
	const verify_layout *l = &verify_layouts[fmt];
	iv->args = &d->w[l->aw];
	iv->nargs = l->na;
	iv->dests = &d->w[l->dw];
	iv->ndests = l->nd;
	iv->results = &d->w[0];
	iv->nresults = info->nres == 1;
	unsigned lists = l->lists;
	if (KL_LIKELY(lists == 0))
		return true;
	bool ok = true;
	if (lists & L_RESULTS_W0)
		ok &= vlist(f, d->w[0], &iv->results, &iv->nresults);
	if (lists & L_ARGS_W0)
		ok &= vlist(f, d->w[0], &iv->args, &iv->nargs);
	if (lists & L_ARGS_W1)
		ok &= vlist(f, d->w[1], &iv->args, &iv->nargs);
	if (lists & L_ARGS_W2)
		ok &= vlist(f, d->w[2], &iv->args, &iv->nargs);
	if (lists & L_DESTS_W1)
		ok &= vlist(f, d->w[1], &iv->dests, &iv->ndests);
	return ok;
}

bool
dest_get(const kl_func *f, const inst_view *iv, uint32_t k, uint32_t *block,
	 const uint32_t **args, uint32_t *nargs)
{
	if (k >= iv->ndests) {
		*block = KL_NONE;
		*args = NULL;
		*nargs = 0;
		return false;
	}
	return vdest(f, iv->dests[k], block, args, nargs);
}

const char *
dest_label(char *buf, size_t cap, const inst_view *iv, uint32_t k)
{
	buf[0] = 0;
	if (iv->info->format == KL_FMT_BRIF)
		snprintf(buf, cap, " (%s)", k == 0 ? "then" : "else");
	else if (iv->info->format == KL_FMT_BR_TABLE && k == 0)
		snprintf(buf, cap, " (default)");
	else if (iv->info->format == KL_FMT_BR_TABLE)
		snprintf(buf, cap, " (table entry %u)", k - 1);
	return buf;
}

bool
inst_readable(const kl_func *f, uint32_t i, inst_view *iv)
{
	const kl_inst_data *d = &f->insts[i];
	if (d->op >= KL_OP_COUNT || !inst_view_get(f, i, iv))
		return false;
	unsigned fmt = iv->info->format;
	/* Tests that are almost never true, rather than a switch. */
	if (KL_UNLIKELY(d->bits & IMM_POOLED) && d->w[2] >= f->nconsts &&
	    (fmt == KL_FMT_BINARY_IMM || fmt == KL_FMT_ICMP_IMM))
		return false;
	if (fmt == KL_FMT_TERNARY && iv->nargs != 3)
		return false;
	return fmt != KL_FMT_CALL_INDIRECT || iv->nargs > 0;
}


const char *
tname(const verifier *vf, kl_type t)
{
	return t == KL_TYPE_NONE ? "none" : kl_type_name(vf->m, t);
}

const char *
opname(const verifier *vf, uint32_t i)
{
	return kl_op_name((kl_opcode)vf->f->insts[i].op);
}

/* ---- the run ---- */

/*
 * Phase times, the fast path's (fast.c) too, are wall clock. Building
 * with -DVERIFY_CLOCK=CLOCK_THREAD_CPUTIME_ID gives CPU time per phase
 * instead (a system call per reading: for measuring big functions only).
 */
#ifndef VERIFY_CLOCK
#define VERIFY_CLOCK CLOCK_MONOTONIC
#endif

double
verify_now(void)
{
	struct timespec ts;
	clock_gettime(VERIFY_CLOCK, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Phase 3: every placed instruction. */
static void
run_checks(verifier *vf)
{
	const kl_func *f = vf->f;
	check_entry_params(vf);
	for (uint32_t i = 0; i < f->ninsts; i++) {
		if (!bit_get(vf->placed, i))
			continue;
		inst_view iv;
		if (!inst_readable(f, i, &iv))
			continue; /* reported by the structure phase */
		check_uses(vf, i, &iv);
		check_types(vf, i, &iv);
		if (vf->has_memory)
			check_memory(vf, i, &iv);
	}
}

/* ---- scratch memory ---- */

kl_verify_scratch *
kl_verify_scratch_new(void)
{
	return kl_calloc(1, sizeof(kl_verify_scratch));
}

static void
scratch_release(kl_verify_scratch *s)
{
	for (int k = 0; k < S_COUNT; k++)
		free(s->slot[k].p);
	free(s->stack);
	free(s->arena_mem);
	if (s->cfg)
		kl_cfg_free(s->cfg);
	if (s->dt)
		kl_domtree_free(s->dt);
}

void
kl_verify_scratch_free(kl_verify_scratch *s)
{
	if (!s)
		return;
	scratch_release(s);
	free(s);
}

void *
scratch_get(kl_verify_scratch *s, int slot, size_t bytes, int fill)
{
	if (bytes == 0)
		bytes = 1;
	if (s->slot[slot].cap < bytes) {
		free(s->slot[slot].p);
		s->slot[slot].p = fill == 0 ? kl_calloc(1, bytes)
					    : kl_malloc(bytes);
		s->slot[slot].cap = bytes;
		if (fill > 0)
			memset(s->slot[slot].p, fill, bytes);
	} else if (fill >= 0) {
		memset(s->slot[slot].p, fill, bytes);
	}
	return s->slot[slot].p;
}

/*
 * The careful phases (docs/verifier.md, "How it works"): find and report
 * every error, for a function the fast path could not clear.
 */
kl_status
verify_careful(const kl_func *f, const kl_verify_ctx *ctx,
	       kl_verify_scratch *s, kl_diags *out)
{
	verifier vf = { 0 };
	vf.f = f;
	vf.m = f->module;
	vf.ctx = ctx;
	vf.s = s;
	vf.out = out;
	vf.entry = KL_NONE;
	uint32_t start = out->len;
	kl_verify_stats *st = ctx->stats;
	double t0 = st ? verify_now() : 0;

	size_t iwords = ((size_t)f->ninsts / 64 + 1) * sizeof(uint64_t);
	vf.placed = scratch_get(vf.s, S_PLACED, iwords, 0);
	vf.listed = scratch_get(vf.s, S_LISTED, iwords, 0);
	size_t bwords = ((size_t)f->nblocks / 64 + 1) * sizeof(uint64_t);
	vf.in_layout = scratch_get(vf.s, S_IN_LAYOUT, bwords, 0);
	vf.vals = scratch_get(vf.s, S_VALS, (size_t)f->nvalues *
			      sizeof *vf.vals, 0);
	vf.ops = kl_op_table;
	check_structure(&vf);
	check_aliases(&vf);
	double t1 = st ? verify_now() : 0;
	check_analyses(&vf);
	double t2 = st ? verify_now() : 0;
	run_checks(&vf);
	if (st) {
		double t3 = verify_now();
		st->funcs++;
		st->blocks += vf.nplaced_blocks;
		st->insts += vf.nplaced_insts;
		st->structure_seconds += t1 - t0;
		st->analysis_seconds += t2 - t1;
		st->check_seconds += t3 - t2;
	}

	/* Sort this function's errors by line; kl_diags_sort is stable. */
	if (out->len > start) {
		kl_diags mine = { out->items + start, out->len - start, 0 };
		kl_diags_sort(&mine);
	}
	return vf.errors ? KL_ERR_VERIFY : KL_OK;
}

/* The fast path first; the careful phases when it cannot say yes. */
kl_status
kl_verify_func(const kl_func *f, const kl_verify_ctx *ctx, kl_diags *out)
{
	static const kl_verify_ctx no_ctx = { 0 };
	kl_verify_scratch local;
	kl_diags dropped = { 0 }; /* a caller that wants the status only */
	if (!ctx)
		ctx = &no_ctx;
	if (!out)
		out = &dropped;
	kl_verify_scratch *s = ctx->scratch;
	if (!s) {
		memset(&local, 0, sizeof local);
		s = &local;
	}
	kl_status st = verify_fast(f, ctx, s, ctx->stats)
			       ? KL_OK
			       : verify_careful(f, ctx, s, out);
	if (s == &local)
		scratch_release(&local);
	kl_diags_free(&dropped);
	return st;
}

kl_status
kl_verify_module(const kl_module *m, kl_diags *out)
{
	kl_verify_scratch scratch = { 0 };
	kl_verify_ctx ctx = { .scratch = &scratch };
	kl_status st = KL_OK;
	for (uint32_t s = 0; s < m->nsyms; s++) {
		const kl_func *f = m->syms[s].func;
		if (f && kl_verify_func(f, &ctx, out) != KL_OK)
			st = KL_ERR_VERIFY;
	}
	scratch_release(&scratch);
	return st;
}
