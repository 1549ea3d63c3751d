/*
 * liveness.c -- live-in and live-out sets of SSA values, per block.
 *
 * Definitions. A block parameter is defined at the top of its block; an
 * instruction result where the instruction is. A value operand is used
 * where its instruction is. A branch argument is used at the end of the
 * branching block, on the edge, like a phi operand: it is live-out of that
 * block (and live-in too unless it is defined there), but not live-in of
 * the target, whose parameter it becomes. A block's own parameters are
 * never in its live-in set. Aliases are followed: a use of an alias is a
 * use of the value it resolves to, and only resolved values appear in the
 * sets. v is live-in at B iff some path from the top of B reaches a use of
 * v without passing v's definition; live-out at B iff that holds for a
 * successor of B, or v is a branch argument of B.
 *
 * Algorithm: path exploration per variable, from Brandner, Boissinot,
 * Darte, Dupont de Dinechin and Rastello, "Computing Liveness Sets for
 * SSA-Form Programs" (INRIA RR-7503, 2011), algorithms 4 and 5: for each
 * value, from every block where it is used (upward-exposed), walk the CFG
 * backwards, marking the blocks live-in and their predecessors live-out,
 * and stop at the defining block or at a block already marked. Values are
 * taken in increasing number, so "already marked for v" is one comparison
 * with the value last added to a block's set, and every set comes out
 * sorted by value number. No bit matrix: the cost and the memory are
 * linear in the total size of the live sets (plus the instructions and
 * the edges), so 100,000 blocks and 1,000,000 values cost what their live
 * ranges cost, not 12.5 GB. The backward walk uses an explicit stack.
 *
 * A limit. The live sets of a function can be quadratic in its size: a
 * value defined at the top and used at the bottom is live in every block
 * between, and programs that keep many values alive (keel-gen's large
 * shapes keep about 0.3 x blocks values live across each block) would
 * need 10^9 entries and more at 100,000 blocks. No set representation
 * holds that; rather than exhausting memory the computation stops at a
 * limit (2^26 entries by default, kl_liveness_set_limit), leaves the sets
 * empty and returns KL_ERR_RANGE. The time spent is bounded by the limit
 * as well.
 *
 * Uses are gathered in two scans of the layout (count per value, then
 * fill: counting sort by value). Uses in blocks outside the layout do not
 * count. Liveness assumes strict SSA (verified IR): a use in the defining
 * block of an instruction result is taken to follow the definition. On
 * other IR it terminates and gives the dataflow answer for that reading.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis.h"

#define PHI_USE 0x80000000u /* flag on a use's block: a branch argument */

/*
 * The (block, value) entries of the live-in or the live-out sets as they
 * are found, a run per value, since values come in increasing order: the
 * value, the number of blocks, the blocks. 4 bytes an entry, not the 8
 * of a (block, value) pair: these lists and the sets built from them are
 * the peak of a computation (`keel cfg --liveness` of keel-gen's
 * huge-100k, 41 million entries, peaked at 766 MB with pairs, now 608).
 * The sets' lengths are counted as the entries are found.
 */
typedef struct run_list {
	uint32_t *w;
	uint32_t n, cap; /* words */
	uint32_t head;   /* where the run being filled starts */
} run_list;

struct kl_liveness {
	uint32_t nblocks, blocks_cap;
	uint32_t *in_start, *out_start; /* per block + 1 */
	kl_value *in, *out;
	uint32_t nin, nout, in_cap, out_cap;

	/* scratch */
	uint32_t *last_in, *last_out; /* per block: last value added */
	uint32_t *use_start;          /* per value + 1 */
	uint32_t *uses;               /* use blocks, grouped by value */
	uint32_t nvalues_cap, uses_cap;
	run_list runs_in, runs_out; /* the entries of the sets, as found */
	uint64_t nentries;          /* in both */
	uint32_t *stack;
	uint32_t nstack, stack_cap;
	/* per block: its predecessors, each once (a br_table naming a block
	 * many times gives it as many edges, which the walk need not see) */
	uint32_t *pred_start; /* per block + 1 */
	uint32_t *preds;
	uint32_t pred_start_cap, preds_cap;
	/* Where each value's alias chain ends (func_resolve_table), when
	 * some alias leads to another; else NULL. */
	const uint32_t *resolved;
	uint32_t *resolved_buf;
	uint32_t resolved_cap;
	uint64_t limit;   /* most (block, value) entries the sets may hold */
	bool too_large;   /* the last compute stopped at the limit */
};

/* 2^26 entries: about 0.75 GB at the peak of a computation (the runs and
 * the sets, 8 bytes an entry, and the copies of the runs as they grow). */
#define DEFAULT_LIMIT ((uint64_t)1 << 26)

kl_liveness *
kl_liveness_new(void)
{
	kl_liveness *lv = kl_calloc(1, sizeof(kl_liveness));
	lv->limit = DEFAULT_LIMIT;
	return lv;
}

void
kl_liveness_set_limit(kl_liveness *lv, uint64_t max_entries)
{
	lv->limit = max_entries ? max_entries : DEFAULT_LIMIT;
}

void
kl_liveness_free(kl_liveness *lv)
{
	if (!lv)
		return;
	void *ptrs[] = { lv->in_start, lv->out_start, lv->in, lv->out,
			 lv->last_in, lv->last_out, lv->use_start, lv->uses,
			 lv->runs_in.w, lv->runs_out.w, lv->stack,
			 lv->pred_start, lv->preds, lv->resolved_buf };
	for (size_t k = 0; k < sizeof ptrs / sizeof ptrs[0]; k++)
		free(ptrs[k]);
	free(lv);
}

/* The block defining resolved value r, KL_NONE if none (or not placed). */
static uint32_t
def_block(const kl_func *f, uint32_t r)
{
	const kl_value_data *d = &f->values[r];
	if (d->kind == VK_PARAM)
		return d->def;
	if (d->kind == VK_RESULT && d->def < f->ninsts)
		return f->nodes[d->def].block;
	return KL_NONE;
}

/* The value a use of v stands for, or KL_NONE if it is no defined value. */
static uint32_t
resolve(const kl_liveness *lv, const kl_func *f, uint32_t v)
{
	if (v >= f->nvalues)
		return KL_NONE;
	uint32_t r = resolve_with(f, lv->resolved, v);
	if (r == KL_NONE)
		return KL_NONE;
	uint8_t k = f->values[r].kind;
	return k == VK_RESULT || k == VK_PARAM ? r : KL_NONE;
}

/*
 * Record a use of v in block b (flag PHI_USE for branch arguments). Pass
 * 0 counts per value, pass 1 stores the block.
 */
static void
note_use(kl_liveness *lv, const kl_func *f, uint32_t v, uint32_t b,
	 uint32_t flag, int pass)
{
	uint32_t r = resolve(lv, f, v);
	if (r == KL_NONE)
		return;
	/* A plain use in the defining block needs no walk (strict SSA). */
	if (!flag && def_block(f, r) == b)
		return;
	if (pass == 0)
		lv->use_start[r + 1]++;
	else
		lv->uses[lv->use_start[r]++] = b | flag;
}

/* What scan_uses hands each use to. */
typedef struct use_walk {
	kl_liveness *lv;
	const kl_func *f;
	uint32_t block;
	int pass;
} use_walk;

static void
walk_use(void *ctx, uint32_t v, uint32_t dest, uint32_t index)
{
	use_walk *w = ctx;
	(void)index;
	note_use(w->lv, w->f, v, w->block, dest == KL_NONE ? 0 : PHI_USE,
		 w->pass);
}

static void
scan_uses(kl_liveness *lv, const kl_func *f, int pass)
{
	use_walk w = { lv, f, KL_NONE, pass };
	for (uint32_t st, b = layout_first(f, &st); b != KL_NONE;
	     b = layout_next(f, b, &st)) {
		w.block = b;
		for (uint32_t ist, i = insts_first(f, b, &ist); i != KL_NONE;
		     i = insts_next(f, i, &ist))
			inst_each_use(f, i, walk_use, &w);
	}
}

/* Group the uses by value: use_start[v] .. use_start[v + 1]. */
static void
gather_uses(kl_liveness *lv, const kl_func *f)
{
	uint32_t nv = f->nvalues;
	if (nv + 1 > lv->nvalues_cap) {
		lv->nvalues_cap = nv + 1;
		lv->use_start = kl_realloc(lv->use_start,
					   (nv + 1) * sizeof *lv->use_start);
	}
	memset(lv->use_start, 0, (nv + 1) * sizeof *lv->use_start);
	scan_uses(lv, f, 0);
	for (uint32_t v = 0; v < nv; v++)
		lv->use_start[v + 1] += lv->use_start[v];
	kl_grow(&lv->uses, &lv->uses_cap, sizeof *lv->uses,
		lv->use_start[nv]);
	scan_uses(lv, f, 1);
	/* Filling advanced use_start[v] to the end of v's uses: shift. */
	memmove(lv->use_start + 1, lv->use_start, nv * sizeof *lv->use_start);
	lv->use_start[0] = 0;
}

/* Start v's run in rl. (It has room: add_pair leaves n <= UINT32_MAX - 3,
 * and fails when the run is started past UINT32_MAX - 4.) */
static inline void
begin_run(run_list *rl, uint32_t v)
{
	uint32_t n = rl->n;
	if (n + 2 > rl->cap)
		kl_grow(&rl->w, &rl->cap, sizeof *rl->w, (uint64_t)n + 2);
	rl->head = n;
	rl->w[n] = v;
	rl->n = n + 2;
}

/* Close the run begun last: its length, or no run if it is empty. */
static inline void
end_run(run_list *rl)
{
	uint32_t len = rl->n - rl->head - 2;
	if (len)
		rl->w[rl->head + 1] = len;
	else
		rl->n = rl->head;
}

/* Record block b in rl's run, counting it in counts[b + 1] (the set's
 * start, to be); false once the sets would pass the limit. */
static bool
add_pair(kl_liveness *lv, run_list *rl, uint32_t *counts, uint32_t b)
{
	uint32_t n = rl->n;
	if (lv->nentries >= lv->limit || n > UINT32_MAX - 4) {
		lv->too_large = true;
		return false;
	}
	if (n + 1 > rl->cap)
		kl_grow(&rl->w, &rl->cap, sizeof *rl->w, (uint64_t)n + 1);
	rl->w[n] = b;
	rl->n = n + 1;
	counts[b + 1]++;
	lv->nentries++;
	return true;
}

static void
mark_out(kl_liveness *lv, uint32_t b, uint32_t v)
{
	if (lv->last_out[b] == v)
		return;
	lv->last_out[b] = v;
	add_pair(lv, &lv->runs_out, lv->out_start, b);
}

/* Each block's distinct predecessors in the function's CFG, into
 * pred_start/preds; last_in serves as the stamp of the block listed. */
static void
distinct_preds(kl_liveness *lv, const kl_cfg *cfg)
{
	uint32_t nb = lv->nblocks;
	kl_grow(&lv->pred_start, &lv->pred_start_cap, sizeof *lv->pred_start,
		(uint64_t)nb + 1);
	uint64_t nedges = 0;
	for (uint32_t b = 0; b < nb; b++)
		nedges += cfg->pred[b].len;
	kl_grow(&lv->preds, &lv->preds_cap, sizeof *lv->preds, nedges + 1);
	uint32_t n = 0;
	for (uint32_t b = 0; b < nb; b++) {
		lv->pred_start[b] = n;
		const kl_cfg_edge *e = cfg_edges(cfg, &cfg->pred[b]);
		for (uint32_t k = 0; k < cfg->pred[b].len; k++) {
			uint32_t p = e[k].block.id;
			/* (p >= nb: a CFG of some other function) */
			if (p >= nb || lv->last_in[p] == b)
				continue;
			lv->last_in[p] = b;
			lv->preds[n++] = p;
		}
	}
	lv->pred_start[nb] = n;
	memset(lv->last_in, 0xff, nb * sizeof *lv->last_in);
}

/* Up_and_Mark of Brandner et al., with an explicit stack. */
static void
walk_up(kl_liveness *lv, uint32_t from, uint32_t v, uint32_t def)
{
	lv->nstack = 0;
	lv->stack[lv->nstack++] = from;
	while (lv->nstack) {
		uint32_t b = lv->stack[--lv->nstack];
		if (b == def || lv->last_in[b] == v)
			continue;
		lv->last_in[b] = v;
		if (!add_pair(lv, &lv->runs_in, lv->in_start, b))
			return;
		const uint32_t *pr = lv->preds + lv->pred_start[b];
		uint32_t np = lv->pred_start[b + 1] - lv->pred_start[b];
		if (lv->nstack + np > lv->stack_cap)
			kl_grow(&lv->stack, &lv->stack_cap, sizeof *lv->stack,
				(uint64_t)lv->nstack + np);
		for (uint32_t k = 0; k < np; k++) {
			uint32_t p = pr[k];
			mark_out(lv, p, v);
			if (p != def && lv->last_in[p] != v)
				lv->stack[lv->nstack++] = p;
		}
	}
}

/* Turn the runs into per-block lists, given each list's length in
 * start[b + 1] (counting sort by block; stable, so values stay in
 * increasing order); the number of entries. */
static uint32_t
build_sets(uint32_t nb, const run_list *rl, uint32_t *st, kl_value **set,
	   uint32_t *cap)
{
	for (uint32_t b = 0; b < nb; b++)
		st[b + 1] += st[b];
	uint32_t count = st[nb];
	kl_grow(set, cap, sizeof **set, count);
	kl_value *out = *set;
	const uint32_t *w = rl->w;
	for (uint32_t k = 0, len; k < rl->n; k += 2 + len) {
		len = w[k + 1];
		kl_value v = { w[k] };
		for (uint32_t j = k + 2; j < k + 2 + len; j++)
			out[st[w[j]]++] = v;
	}
	memmove(st + 1, st, nb * sizeof *st);
	st[0] = 0;
	return count;
}

kl_status
kl_liveness_compute(kl_liveness *lv, const kl_func *f, const kl_cfg *cfg)
{
	uint32_t nb = f->nblocks > cfg->nblocks ? cfg->nblocks : f->nblocks;
	if (nb > lv->blocks_cap || !lv->last_in) {
		lv->blocks_cap = nb ? nb : 1;
		lv->last_in = kl_realloc(lv->last_in,
					 lv->blocks_cap * sizeof *lv->last_in);
		lv->last_out = kl_realloc(lv->last_out, lv->blocks_cap *
							sizeof *lv->last_out);
	}
	lv->nblocks = nb;
	memset(lv->last_in, 0xff, nb * sizeof *lv->last_in);
	memset(lv->last_out, 0xff, nb * sizeof *lv->last_out);
	distinct_preds(lv, cfg);
	if (lv->stack_cap < 16)
		kl_grow(&lv->stack, &lv->stack_cap, sizeof *lv->stack, 16);
	lv->runs_in.n = lv->runs_out.n = 0;
	lv->nentries = 0;
	size_t starts = ((size_t)nb + 1) * sizeof *lv->in_start;
	lv->in_start = kl_realloc(lv->in_start, starts);
	lv->out_start = kl_realloc(lv->out_start, starts);
	memset(lv->in_start, 0, starts);
	memset(lv->out_start, 0, starts);
	lv->too_large = false;

	lv->resolved = func_resolve_table(f, &lv->resolved_buf,
					  &lv->resolved_cap);
	gather_uses(lv, f);
	for (uint32_t v = 0; v < f->nvalues && !lv->too_large; v++) {
		uint32_t u0 = lv->use_start[v], u1 = lv->use_start[v + 1];
		if (u0 == u1)
			continue;
		uint32_t def = def_block(f, v);
		begin_run(&lv->runs_in, v);
		begin_run(&lv->runs_out, v);
		for (uint32_t k = u0; k < u1; k++) {
			uint32_t b = lv->uses[k] & ~PHI_USE;
			if (b >= nb)
				continue;
			if (lv->uses[k] & PHI_USE)
				mark_out(lv, b, v);
			walk_up(lv, b, v, def);
		}
		end_run(&lv->runs_in);
		end_run(&lv->runs_out);
	}
	if (lv->too_large) { /* empty sets, and say so */
		lv->runs_in.n = lv->runs_out.n = 0;
		memset(lv->in_start, 0, starts);
		memset(lv->out_start, 0, starts);
	}
	lv->nin = build_sets(nb, &lv->runs_in, lv->in_start, &lv->in,
			     &lv->in_cap);
	lv->nout = build_sets(nb, &lv->runs_out, lv->out_start, &lv->out,
			      &lv->out_cap);
	return lv->too_large ? KL_ERR_RANGE : KL_OK;
}

bool
kl_liveness_too_large(const kl_liveness *lv)
{
	return lv->too_large;
}

uint64_t
kl_liveness_limit(const kl_liveness *lv)
{
	return lv->limit;
}

uint64_t
kl_liveness_size(const kl_liveness *lv)
{
	return (uint64_t)lv->nin + lv->nout;
}

/* ---- queries ---- */

const kl_value *
kl_liveness_live_in(const kl_liveness *lv, kl_block b, uint32_t *n)
{
	if (b.id >= lv->nblocks) {
		*n = 0;
		return NULL;
	}
	*n = lv->in_start[b.id + 1] - lv->in_start[b.id];
	return *n ? lv->in + lv->in_start[b.id] : NULL;
}

const kl_value *
kl_liveness_live_out(const kl_liveness *lv, kl_block b, uint32_t *n)
{
	if (b.id >= lv->nblocks) {
		*n = 0;
		return NULL;
	}
	*n = lv->out_start[b.id + 1] - lv->out_start[b.id];
	return *n ? lv->out + lv->out_start[b.id] : NULL;
}

/* Binary search of a sorted set. */
static bool
set_has(const kl_value *s, uint32_t n, uint32_t v)
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (s[mid].id < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && s[lo].id == v;
}

bool
kl_liveness_is_live_in(const kl_liveness *lv, kl_block b, kl_value v)
{
	uint32_t n;
	const kl_value *s = kl_liveness_live_in(lv, b, &n);
	return set_has(s, n, v.id);
}

bool
kl_liveness_is_live_out(const kl_liveness *lv, kl_block b, kl_value v)
{
	uint32_t n;
	const kl_value *s = kl_liveness_live_out(lv, b, &n);
	return set_has(s, n, v.id);
}
