/*
 * frontier.c -- dominance frontiers and iterated dominance frontiers.
 *
 * DF(x) is the set of blocks y such that x dominates a predecessor of y
 * but does not strictly dominate y: where x's dominance ends. The iterated
 * frontier DF+(S) of a set of blocks S is the limit of DF(S), DF(S u
 * DF(S)), ...: the blocks that need a parameter (a phi) for a variable
 * assigned in the blocks of S. Both are from Cytron, Ferrante, Rosen,
 * Wegman and Zadeck, "Efficiently Computing Static Single Assignment Form
 * and the Control Dependence Graph" (TOPLAS 1991).
 *
 * DF is computed with the formulation of Cooper, Harvey and Kennedy, "A
 * Simple, Fast Dominance Algorithm" (2001), figure 5, which gives the same
 * sets as Cytron's bottom-up walk: for every join block y and each of its
 * reachable predecessors p, walk from p up the dominator tree to idom(y),
 * adding y to the frontier of every block passed. A walk stops early at a
 * block that already got y (the walk from there up was done by an earlier
 * predecessor), so the total work is the total size of the sets. The sets
 * are stored back to back (two passes: count, then fill), each in the
 * layout order of its members.
 *
 * The iterated frontier is the worklist algorithm of Cytron et al. Its
 * workspace (kl_idf) keeps per-block stamps instead of cleared bit sets,
 * so a call costs O(|S| + the frontier sets of the blocks it visits), not
 * O(blocks): mem2reg calls it once per variable, thousands of times.
 *
 * The sets' total size is quadratic at worst (a nest of loops whose
 * latches each branch to the latch outside: n(n + 1) entries), so the
 * counting pass stops past a limit, before the offsets (32 bits) could
 * wrap: the sets are then left empty (kl_domfront_too_large).
 *
 * Invariant: only reachable blocks have or appear in frontiers.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis.h"

/* Up to this many blocks, per-block arrays are cleared by a loop. */
#define SMALL_BLOCKS 64

struct kl_idf {
	uint32_t nblocks;
	uint32_t *in_result; /* per block: stamp of the call that added it */
	uint32_t *queued;    /* per block: stamp of the call that queued it */
	uint32_t stamp;
	uint32_t *work;      /* worklist, at most one entry per block */
	kl_block *out;
	uint32_t nout;
};

kl_domfront *
kl_domfront_new(void)
{
	kl_domfront *df = kl_calloc(1, sizeof(kl_domfront));
	df->limit = DF_DEFAULT_LIMIT;
	return df;
}

void
kl_domfront_set_limit(kl_domfront *df, uint64_t max_entries)
{
	uint64_t most = (uint64_t)1 << 31; /* far from wrapping 32 bits */
	df->limit = max_entries == 0 ? DF_DEFAULT_LIMIT
		    : max_entries < most ? max_entries
					 : most;
}

uint64_t
kl_domfront_limit(const kl_domfront *df)
{
	return df->limit;
}

bool
kl_domfront_too_large(const kl_domfront *df)
{
	return df->too_large;
}

void
kl_domfront_free(kl_domfront *df)
{
	if (!df)
		return;
	free(df->start); /* the region of last and joins too */
	free(df->set);
	free(df);
}

/*
 * The walks for join block y, marking each block passed with mark (y in
 * the counting pass, y | FILL_MARK in the filling pass, so the marks of
 * the first pass need no clearing). Counting adds to start[b + 1];
 * filling takes start[b] as the next free slot of b's set. Returns the
 * entries counted (0 when filling): at most one a block.
 */
#define FILL_MARK 0x80000000u

static uint32_t
walk_join(kl_domfront *df, const kl_cfg *cfg, const kl_domtree *dt,
	  uint32_t y, bool fill)
{
	const kl_cfg_edge *e = cfg_edges(cfg, &cfg->pred[y]);
	uint32_t stop = dt->idom[y], mark = fill ? y | FILL_MARK : y;
	uint32_t added = 0;
	for (uint32_t k = 0; k < cfg->pred[y].len; k++) {
		uint32_t r = e[k].block.id;
		if (!dt_reachable(dt, r))
			continue;
		while (r != stop && r != KL_NONE && df->last[r] != mark) {
			df->last[r] = mark;
			if (fill) {
				df->set[df->start[r]++] = (kl_block){ y };
			} else {
				df->start[r + 1]++;
				added++; /* counting only */
			}
			r = dt->idom[r];
		}
	}
	return added;
}

/*
 * Two passes over the joins, in layout order: count, then fill. The
 * first lists the joins, the second replays the list, so both see the
 * same joins in the same order even in a broken layout, and the second
 * does not walk the layout again.
 */
kl_status
kl_domfront_compute(kl_domfront *df, const kl_func *f, const kl_cfg *cfg,
		    const kl_domtree *dt)
{
	uint32_t nb = dt->nblocks;
	if (nb + 1 > df->blocks_cap) {
		/* One region for the three, on huge pages when large (as
		 * the dominator tree's, domtree.c); rewritten below. */
		size_t c = (size_t)nb + 1;
		uint32_t *r = kl_alloc_table(3 * c * sizeof(uint32_t));
		free(df->start);
		df->blocks_cap = nb + 1;
		df->start = r;
		df->last = r + c;
		df->joins = r + 2 * c;
	}
	df->nblocks = nb;
	if (nb <= SMALL_BLOCKS) {
		/* Most functions are small: a loop costs less than memset. */
		for (uint32_t b = 0; b < nb; b++) {
			df->start[b + 1] = 0;
			df->last[b] = KL_NONE;
		}
	} else {
		memset(df->start, 0, (nb + 1) * sizeof *df->start);
		memset(df->last, 0xff, nb * sizeof *df->last);
	}
	df->start[0] = 0;
	df->too_large = false;
	uint64_t total = 0;
	uint32_t nj = 0;
	for (uint32_t st, y = layout_first(f, &st); y != KL_NONE;
	     y = layout_next(f, y, &st)) {
		/* A block with one predecessor edge p has idom p (unless it
		 * is the entry), where the walk from p stops at once: only
		 * blocks with two edges in, and the entry, are joins. (nj <=
		 * nb: a broken layout, or a tree of another function, must
		 * not overrun the list.) */
		uint32_t np = y < nb ? cfg_npreds(cfg, y) : 0;
		if (nj <= nb && (np >= 2 || (np == 1 && y == dt->entry)) &&
		    dt_reachable(dt, y)) {
			df->joins[nj++] = y;
			total += walk_join(df, cfg, dt, y, false);
			if (total > df->limit)
				break;
		}
	}
	if (total > df->limit) {
		memset(df->start, 0, (nb + 1) * sizeof *df->start);
		df->nset = 0;
		df->too_large = true;
		return KL_ERR_RANGE;
	}
	/* Counts to offsets: start[b] = first slot of DF(b). */
	for (uint32_t b = 0; b < nb; b++)
		df->start[b + 1] += df->start[b];
	df->nset = df->start[nb];
	if (df->nset > df->set_cap) {
		kl_grow(&df->set, &df->set_cap, sizeof *df->set, df->nset);
		kl_prefault(df->set, (size_t)df->nset * sizeof *df->set);
	}
	for (uint32_t k = 0; k < nj; k++)
		walk_join(df, cfg, dt, df->joins[k], true);
	/* Filling advanced start[b] to the end of DF(b): shift back. */
	if (nb <= SMALL_BLOCKS)
		for (uint32_t b = nb; b > 0; b--)
			df->start[b] = df->start[b - 1];
	else
		memmove(df->start + 1, df->start, nb * sizeof *df->start);
	df->start[0] = 0;
	return KL_OK;
}

uint32_t
kl_domfront_size(const kl_domfront *df, kl_block b)
{
	return df_size(df, b.id);
}

kl_block
kl_domfront_get(const kl_domfront *df, kl_block b, uint32_t i)
{
	if (i >= df_size(df, b.id))
		return KL_NO_BLOCK;
	return df_set(df, b.id)[i];
}

/* ---- iterated frontiers ---- */

kl_idf *
kl_idf_new(void)
{
	return kl_calloc(1, sizeof(kl_idf));
}

void
kl_idf_free(kl_idf *ws)
{
	if (!ws)
		return;
	free(ws->in_result);
	free(ws->queued);
	free(ws->work);
	free(ws->out);
	free(ws);
}

/* Size the workspace for df; O(blocks) only when it grows. */
static void
idf_cover(kl_idf *ws, uint32_t nb)
{
	if (nb > ws->nblocks) {
		ws->in_result = kl_realloc(ws->in_result,
					   nb * sizeof *ws->in_result);
		ws->queued = kl_realloc(ws->queued, nb * sizeof *ws->queued);
		ws->work = kl_realloc(ws->work, nb * sizeof *ws->work);
		ws->out = kl_realloc(ws->out, nb * sizeof *ws->out);
		memset(ws->in_result, 0, nb * sizeof *ws->in_result);
		memset(ws->queued, 0, nb * sizeof *ws->queued);
		ws->nblocks = nb;
		ws->stamp = 0;
	}
	if (++ws->stamp == 0) {
		memset(ws->in_result, 0, ws->nblocks * sizeof *ws->in_result);
		memset(ws->queued, 0, ws->nblocks * sizeof *ws->queued);
		ws->stamp = 1;
	}
}

uint32_t
kl_domfront_iterated(const kl_domfront *df, kl_idf *ws,
		     const kl_block *blocks, uint32_t n, const kl_block **out)
{
	idf_cover(ws, df->nblocks);
	uint32_t st = ws->stamp, nwork = 0;
	ws->nout = 0;
	for (uint32_t k = 0; k < n; k++) {
		uint32_t b = blocks[k].id;
		if (b < df->nblocks && ws->queued[b] != st) {
			ws->queued[b] = st;
			ws->work[nwork++] = b;
		}
	}
	while (nwork) {
		uint32_t x = ws->work[--nwork];
		uint32_t ns = df->start[x + 1] - df->start[x];
		if (ns == 0)
			continue;
		const kl_block *s = df->set + df->start[x];
		for (uint32_t k = 0; k < ns; k++) {
			uint32_t y = s[k].id;
			if (ws->in_result[y] == st)
				continue;
			ws->in_result[y] = st;
			ws->out[ws->nout++] = s[k];
			if (ws->queued[y] != st) {
				ws->queued[y] = st;
				ws->work[nwork++] = y;
			}
		}
	}
	*out = ws->out;
	return ws->nout;
}
