/*
 * analysis.h -- what the analyses of src/analysis/ share: the layout of the
 * CFG and the dominator tree, so that one analysis can read another's
 * arrays directly in its inner loops instead of through the bounds-checked
 * public accessors, and a few small helpers.
 *
 * Every analysis keeps dense arrays indexed by entity number (block ids can
 * have holes; arrays are sized by the function's block bound) and reuses
 * its memory when it is computed again, so a pass that recomputes an
 * analysis after each change does not go back to malloc every time.
 */
#ifndef KEEL_ANALYSIS_H
#define KEEL_ANALYSIS_H

#include "../ir/ir.h"

/*
 * An edge list inside kl_cfg's pool: pool[start .. start+len), room for
 * cap. A list that outgrows its room moves to the end of the pool with
 * at least twice the room; the hole it leaves is counted in `pool_dead`,
 * which stays under half the pool (cfg.c says why).
 */
typedef struct cfg_list {
	uint32_t start, len, cap;
} cfg_list;

struct kl_cfg {
	uint32_t nblocks;    /* per-block arrays cover ids below this */
	uint32_t blocks_cap; /* allocated entries of the per-block arrays */
	cfg_list *succ;      /* per block: edges out, in branch order */
	cfg_list *pred;      /* per block: edges in, in layout order */
	uint64_t *pos;       /* per block: layout position key, 0 = unplaced */
	uint32_t *mark;      /* per block: scratch stamps (recompute_block) */
	void *region;        /* holds the four per-block arrays (cfg.c) */
	uint32_t stamp;
	uint32_t *tmp, tmp_cap; /* compute: edges as (block, branch, target) */
	kl_cfg_edge *pool;   /* all edge lists */
	uint32_t pool_len, pool_cap, pool_dead;
};

/* Edges of a list; valid until the CFG changes. */
static inline const kl_cfg_edge *
cfg_edges(const kl_cfg *cfg, const cfg_list *l)
{
	return cfg->pool ? cfg->pool + l->start : NULL;
}

static inline uint32_t
cfg_npreds(const kl_cfg *cfg, uint32_t b)
{
	return b < cfg->nblocks ? cfg->pred[b].len : 0;
}

static inline uint32_t
cfg_nsuccs(const kl_cfg *cfg, uint32_t b)
{
	return b < cfg->nblocks ? cfg->succ[b].len : 0;
}

/* Block b's edges in (out), *n of them; NULL when none. A block past the
 * CFG's arrays (a stale CFG) has none. */
static inline const kl_cfg_edge *
cfg_edges_in(const kl_cfg *cfg, uint32_t b, uint32_t *n)
{
	*n = cfg_npreds(cfg, b);
	return *n ? cfg_edges(cfg, &cfg->pred[b]) : NULL;
}

static inline const kl_cfg_edge *
cfg_edges_out(const kl_cfg *cfg, uint32_t b, uint32_t *n)
{
	*n = cfg_nsuccs(cfg, b);
	return *n ? cfg_edges(cfg, &cfg->succ[b]) : NULL;
}

/* A block's entry and exit times in an Euler tour of the dominator tree,
 * side by side: a dominance query reads one line per block. */
typedef struct dt_span {
	uint64_t tin, tout;
} dt_span;

/*
 * The dominator tree. Reachable blocks have a non-zero rpo key and entry
 * time (dt_reachable reads the time, next to the exit time a dominance
 * query reads too); the entry block's idom is KL_NONE, like an
 * unreachable block's. Tree children are chained through child/sibling in
 * layout order. Dominance is answered by Euler-tour times on the tree: a
 * dominates b iff tin[a] <= tin[b] && tout[b] <= tout[a]. Times and rpo
 * keys are spread out with gaps so that a block split can take numbers
 * between its neighbours' without renumbering everything.
 */
struct kl_domtree {
	uint32_t nblocks, blocks_cap; /* (nblocks: what the arrays cover) */
	uint32_t func_blocks; /* the function's block bound at compute */
	uint32_t entry;     /* entry block, KL_NONE for an empty function */
	uint32_t *idom;     /* per block */
	uint32_t *child;    /* per block: first child in the tree */
	uint32_t *sibling;  /* per block: next child of the same parent */
	dt_span *span;      /* per block: Euler-tour times; 0: unreachable */
	uint64_t *rpo_key;  /* per block: grows along the RPO; 0: unreachable */
	kl_block *po;       /* the reachable blocks in post-order */
	uint32_t npo, po_cap;

	/* Scratch of the computation, indexed by DFS preorder number. */
	uint32_t *dfnum;    /* per block: preorder number, 0 = not visited */
	uint32_t *vertex, *parent, *anc, *label, *semi, *dom, *stack;
	uint32_t *stack_i;
	void *region;       /* holds every array above (domtree.c) */
	uint32_t *preds;    /* predecessors as preorder numbers (idoms.h) */
	uint32_t preds_cap;
};

static inline bool
dt_reachable(const kl_domtree *dt, uint32_t b)
{
	return b < dt->nblocks && dt->span[b].tin != 0;
}

/* Does a dominate b? Both reachable. */
static inline bool
dt_dominates(const kl_domtree *dt, uint32_t a, uint32_t b)
{
	return dt->span[a].tin <= dt->span[b].tin &&
	       dt->span[b].tout <= dt->span[a].tout;
}

/* Dominance frontiers (frontier.c), here so that a pass can read the sets
 * in its inner loop without a call per block. */
struct kl_domfront {
	uint32_t nblocks, blocks_cap;
	uint32_t *start;  /* per block, and one more: DF(b) is
			   * set[start[b] .. start[b + 1]); one allocation
			   * holds start, last and joins */
	uint32_t *last;   /* scratch: per block, the join it last got */
	uint32_t *joins;  /* scratch: the join blocks, in layout order */
	kl_block *set;
	uint32_t nset, set_cap;
	uint64_t limit;   /* most entries the sets may hold together */
	bool too_large;   /* the last compute stopped at the limit */
};

/* The default limit of all dominance frontiers together (kl_domfront,
 * and the promote pass's own): 2^26 entries, 256 MB. */
#define DF_DEFAULT_LIMIT ((uint64_t)1 << 26)

static inline uint32_t
df_size(const kl_domfront *df, uint32_t b)
{
	return b < df->nblocks ? df->start[b + 1] - df->start[b] : 0;
}

/* DF(b), df_size(df, b) blocks in layout order. */
static inline const kl_block *
df_set(const kl_domfront *df, uint32_t b)
{
	return df->set + df->start[b];
}



/*
 * Walking the layout defensively. Analyses also run on IR the verifier
 * has not accepted yet (the verifier itself computes them), whose links
 * may be out of range or form a cycle. These stop at the end, at a link
 * out of range, and after as many steps as there are entities, so every
 * walk ends; a cyclic layout can show a block twice, which every analysis
 * tolerates (nonsense in, nonsense out, but no crash and no hang).
 *
 *	for (uint32_t st, b = layout_first(f, &st); b != KL_NONE;
 *	     b = layout_next(f, b, &st))
 */
static inline uint32_t
layout_first(const kl_func *f, uint32_t *steps)
{
	*steps = 0;
	return f->first_block < f->nblocks ? f->first_block : KL_NONE;
}

static inline uint32_t
layout_next(const kl_func *f, uint32_t b, uint32_t *steps)
{
	uint32_t n = f->blocks[b].next;
	return ++*steps < f->nblocks && n < f->nblocks ? n : KL_NONE;
}

static inline uint32_t
layout_last(const kl_func *f, uint32_t *steps)
{
	*steps = 0;
	return f->last_block < f->nblocks ? f->last_block : KL_NONE;
}

static inline uint32_t
layout_prev(const kl_func *f, uint32_t b, uint32_t *steps)
{
	uint32_t n = f->blocks[b].prev;
	return ++*steps < f->nblocks && n < f->nblocks ? n : KL_NONE;
}

/* The same for the instructions of block b. */
static inline uint32_t
insts_first(const kl_func *f, uint32_t b, uint32_t *steps)
{
	*steps = 0;
	uint32_t i = f->blocks[b].first;
	return i < f->ninsts ? i : KL_NONE;
}

static inline uint32_t
insts_next(const kl_func *f, uint32_t i, uint32_t *steps)
{
	uint32_t n = f->nodes[i].next;
	return ++*steps < f->ninsts && n < f->ninsts ? n : KL_NONE;
}

/*
 * Every use in instruction i, in order: fn(ctx, v, dest, index) for each
 * value operand (dest KL_NONE, index as kl_inst_arg counts) and then each
 * branch argument (its destination and index). Broken destination lists
 * are skipped.
 */
typedef void (*use_fn)(void *ctx, uint32_t v, uint32_t dest, uint32_t index);

static inline void
inst_each_use(const kl_func *f, uint32_t i, use_fn fn, void *ctx)
{
	const uint32_t *a;
	uint32_t na = inst_args(f, i, &a);
	for (uint32_t k = 0; k < na; k++)
		fn(ctx, a[k], KL_NONE, k);
	if (!(inst_info(f, i)->flags & KL_OPF_BRANCH))
		return;
	const uint32_t *d;
	uint32_t nd = inst_dests(f, i, &d);
	for (uint32_t k = 0; k < nd; k++) {
		const uint32_t *args;
		uint32_t t, n;
		if (!dest_read(&f->pool, d[k], &t, &args, &n))
			continue;
		for (uint32_t j = 0; j < n; j++)
			fn(ctx, args[j], k, j);
	}
}

/* Is block b of f in the layout? */
static inline bool
ana_block_placed(const kl_func *f, uint32_t b)
{
	return b < f->nblocks && (f->blocks[b].flags & BLOCK_PLACED);
}

#endif /* KEEL_ANALYSIS_H */
