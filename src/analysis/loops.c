/*
 * loops.c -- the loop forest: natural loops found from back edges, their
 * nesting, and the irreducible cycles that are not loops.
 *
 * A back edge is an edge p -> h whose target dominates its source; the
 * natural loop of h is h plus every block that reaches one of those p
 * without passing through h. Loops with the same header are one loop.
 *
 * Discovery follows the scheme of LLVM's LoopInfoBase::analyze (after
 * Havlak, "Nesting of Reducible and Irreducible Loops", TOPLAS 1997, minus
 * the irreducible part): headers are taken in the post-order of the CFG,
 * where a block comes before every block that dominates it, so inner loops
 * are found before the loops around them. From the sources of the back
 * edges the walk goes backwards over predecessors up to the header. A
 * block not yet in a loop joins the new loop; a block already in a loop
 * stands for the outermost loop found so far around it (a union-find with
 * path compression, kept apart from the parent links), which becomes a
 * child of the new loop, and the walk continues from that loop's header.
 * So every block is claimed once and every loop is absorbed once:
 * O(edges * alpha) overall, also for a 100,000-deep nest. Nothing recurses.
 *
 * Irreducible cycles: a graph is reducible iff removing its back edges
 * (target dominates source) leaves it acyclic (Hecht and Ullman 1974).
 * So the strongly connected components of the reachable CFG without its
 * back edges that have two blocks or more are exactly the irreducible
 * regions: maximal sets joined by cycles that no block of the cycle
 * dominates. They are found with Tarjan's SCC algorithm (1972),
 * iteratively, and reported (blocks and entries, the blocks entered from
 * outside the region, by any edge); they are not loops, and a block's
 * innermost loop is the innermost natural loop holding it, which may
 * surround a region, lie in it, or share blocks with it.
 *
 * Numbering: loops are numbered in preorder of the forest, children (and
 * roots) in the layout order of their headers, so a loop's parent has a
 * smaller number and the loops inside loop L are L+1 .. end(L)-1. The
 * blocks of each loop are stored so that the blocks of L (its nested
 * loops' included) are one contiguous range, header first: total memory
 * O(blocks), not O(blocks * depth).
 */
#include <stdlib.h>
#include <string.h>

#include "analysis.h"

/*
 * Edges are read with cfg_edges_in and cfg_edges_out (analysis.h), which
 * give none for a block the CFG does not cover. The blocks visited come
 * from the dominator tree, which a caller may have computed from another
 * CFG than the one passed (a stale one, or another function's): the
 * loops are then meaningless, but nothing is read out of bounds. (Edge
 * ends are checked with dt_reachable before the tree's arrays are read
 * at them.)
 */

typedef struct loop_info {
	uint32_t header;
	uint32_t parent; /* KL_NONE for an outermost loop */
	uint32_t depth;  /* 1 for an outermost loop */
	uint32_t end;    /* loops id .. end-1 are this one and those inside */
	uint32_t start;  /* its blocks: blocks[start .. start + size) */
	uint32_t size;
	uint32_t own;    /* blocks whose innermost loop this is */
} loop_info;

typedef struct irr_info {
	uint32_t start, n;        /* its blocks: irr_blocks[start ..] */
	uint32_t estart, nentries; /* its entries: irr_entries[estart ..] */
} irr_info;

struct kl_loops {
	uint32_t nblocks, blocks_cap;
	uint32_t *loop_of;  /* per block: innermost loop, KL_NONE */
	uint32_t *irr_of;   /* per block: irreducible region, KL_NONE */
	uint32_t *sa, *sb;  /* per block scratch, named where used: marks,
			     * Tarjan's index and lowlink, region maps */
	uint32_t *cs, *ci;  /* per block: the SCC search's stack of blocks
			     * and the next edge of each */
	void *region;       /* holds the per-block arrays and blocks */

	loop_info *loops;
	uint32_t nloops, loops_cap;
	/* Per loop, by discovery-order id, while the forest is built: */
	uint32_t *header;       /* its header block */
	uint32_t *parent;       /* the loop around it, KL_NONE */
	uint32_t *outer;        /* union-find link toward the outermost
				 * loop found so far around it (find) */
	uint32_t *first_child;  /* its children, linked by next_sibling, */
	uint32_t *next_sibling; /* in the layout order of their headers */
	uint32_t *last_child;   /* (for appending) */
	uint32_t *number;       /* KL_NONE until appended, then its final
				 * number, then a fill cursor of blocks */
	uint32_t scratch_cap;

	kl_block *blocks;   /* loop blocks, see loop_info.start */

	irr_info *irr;
	uint32_t nirr, irr_cap;
	kl_block *irr_blocks, *irr_entries;
	uint32_t irr_blocks_cap, irr_entries_cap;

	uint32_t *work;     /* growable stack of blocks */
	uint32_t nwork, work_cap;
};

kl_loops *
kl_loops_new(void)
{
	return kl_calloc(1, sizeof(kl_loops));
}

void
kl_loops_free(kl_loops *lf)
{
	if (!lf)
		return;
	void *ptrs[] = { lf->region, lf->loops, lf->header, lf->parent,
			 lf->outer, lf->first_child, lf->next_sibling,
			 lf->last_child, lf->number, lf->irr, lf->irr_blocks,
			 lf->irr_entries, lf->work };
	for (size_t k = 0; k < sizeof ptrs / sizeof ptrs[0]; k++)
		free(ptrs[k]);
	free(lf);
}

static void
cover_blocks(kl_loops *lf, uint32_t nb)
{
	if (nb > lf->blocks_cap || !lf->loop_of) {
		/* One region, rewritten by every computation: large, it is
		 * on huge pages (as the dominator tree's, domtree.c). */
		size_t c = nb ? nb : 1;
		uint32_t *r = kl_alloc_table(c * 7 * sizeof(uint32_t));
		free(lf->region);
		lf->region = r;
		lf->loop_of = r;
		lf->irr_of = r + c;
		lf->sa = r + 2 * c;
		lf->sb = r + 3 * c;
		lf->cs = r + 4 * c;
		lf->ci = r + 5 * c;
		lf->blocks = (kl_block *)(r + 6 * c);
		lf->blocks_cap = (uint32_t)c;
	}
	lf->nblocks = nb;
	memset(lf->loop_of, 0xff, nb * sizeof *lf->loop_of);
	memset(lf->irr_of, 0xff, nb * sizeof *lf->irr_of);
}

static void
push(kl_loops *lf, uint32_t b)
{
	if (lf->nwork == lf->work_cap)
		kl_grow(&lf->work, &lf->work_cap, sizeof *lf->work,
			(uint64_t)lf->nwork + 1);
	lf->work[lf->nwork++] = b;
}

static void
push_preds(kl_loops *lf, const kl_cfg *cfg, const kl_domtree *dt,
	   uint32_t b)
{
	uint32_t n;
	const kl_cfg_edge *e = cfg_edges_in(cfg, b, &n);
	for (uint32_t k = 0; k < n; k++)
		if (dt_reachable(dt, e[k].block.id))
			push(lf, e[k].block.id);
}

/* The outermost loop found so far around loop l. */
static uint32_t
find(uint32_t *uf, uint32_t l)
{
	uint32_t r = l;
	while (uf[r] != r)
		r = uf[r];
	while (uf[l] != r) {
		uint32_t next = uf[l];
		uf[l] = r;
		l = next;
	}
	return r;
}

static uint32_t
new_loop(kl_loops *lf, uint32_t h)
{
	uint32_t l = lf->nloops++;
	if (l >= lf->scratch_cap) {
		uint32_t cap = lf->scratch_cap < 16 ? 16 : lf->scratch_cap * 2;
		size_t sz = (size_t)cap * sizeof(uint32_t);
		uint32_t **arrs[] = { &lf->header, &lf->parent, &lf->outer,
				      &lf->first_child, &lf->next_sibling,
				      &lf->last_child, &lf->number };
		for (size_t k = 0; k < sizeof arrs / sizeof arrs[0]; k++)
			*arrs[k] = kl_realloc(*arrs[k], sz);
		lf->scratch_cap = cap;
	}
	lf->header[l] = h;
	lf->parent[l] = KL_NONE;
	lf->outer[l] = l;
	return l;
}

/* Find the natural loops (discovery-order numbers in lf->header/par). */
static void
discover(kl_loops *lf, const kl_cfg *cfg, const kl_domtree *dt)
{
	lf->nloops = 0;
	for (uint32_t k = 0; k < dt->npo; k++) {
		uint32_t h = dt->po[k].id;
		lf->nwork = 0;
		uint32_t n;
		const kl_cfg_edge *e = cfg_edges_in(cfg, h, &n);
		for (uint32_t j = 0; j < n; j++) {
			uint32_t p = e[j].block.id;
			if (dt_reachable(dt, p) && dt_dominates(dt, h, p))
				push(lf, p);
		}
		if (lf->nwork == 0)
			continue;
		uint32_t l = new_loop(lf, h);
		lf->loop_of[h] = l;
		while (lf->nwork) {
			uint32_t b = lf->work[--lf->nwork];
			uint32_t in = lf->loop_of[b];
			if (in == KL_NONE) {
				lf->loop_of[b] = l;
				push_preds(lf, cfg, dt, b);
				continue;
			}
			uint32_t top = find(lf->outer, in);
			if (top == l)
				continue;
			lf->parent[top] = l;
			lf->outer[top] = l;
			push_preds(lf, cfg, dt, lf->header[top]);
		}
	}
}

/* Append loop l to its parent's list of children (or to the roots). */
static void
append_child(kl_loops *lf, uint32_t l, uint32_t *roots, uint32_t *rtail)
{
	uint32_t p = lf->parent[l];
	uint32_t *head = p == KL_NONE ? roots : &lf->first_child[p];
	uint32_t *tl = p == KL_NONE ? rtail : &lf->last_child[p];
	if (*tl == KL_NONE)
		*head = l;
	else
		lf->next_sibling[*tl] = l;
	*tl = l;
	lf->number[l] = 0; /* appended */
}

/*
 * Renumber the loops in preorder of the forest, children in the layout
 * order of their headers, and fill in depth, end and the block ranges.
 * Written to survive a broken layout (a block met twice, or never): every
 * loop is numbered once, and every block is listed at most once.
 */
static void
number_loops(kl_loops *lf, const kl_func *f)
{
	uint32_t n = lf->nloops, roots = KL_NONE, rtail = KL_NONE;
	for (uint32_t l = 0; l < n; l++) {
		lf->first_child[l] = KL_NONE;
		lf->next_sibling[l] = lf->last_child[l] = KL_NONE;
		lf->number[l] = KL_NONE;
	}
	for (uint32_t st, b = layout_first(f, &st); b != KL_NONE;
	     b = layout_next(f, b, &st)) {
		uint32_t l = b < lf->nblocks ? lf->loop_of[b] : KL_NONE;
		if (l != KL_NONE && lf->header[l] == b &&
		    lf->number[l] == KL_NONE)
			append_child(lf, l, &roots, &rtail);
	}
	for (uint32_t l = 0; l < n; l++) /* headers the layout did not show */
		if (lf->number[l] == KL_NONE)
			append_child(lf, l, &roots, &rtail);

	/* Preorder without recursion: an explicit stack of next siblings. */
	kl_grow(&lf->loops, &lf->loops_cap, sizeof *lf->loops, n);
	uint32_t id = 0, sp = 0;
	uint32_t *stack = lf->last_child; /* free again: no more appending */
	for (uint32_t l = roots; l != KL_NONE || sp;) {
		if (l == KL_NONE) {
			l = stack[--sp];
			continue;
		}
		lf->number[l] = id;
		loop_info *li = &lf->loops[id++];
		li->header = lf->header[l];
		li->parent = lf->parent[l] == KL_NONE ? KL_NONE
						   : lf->number[lf->parent[l]];
		li->depth = li->parent == KL_NONE
				    ? 1
				    : lf->loops[li->parent].depth + 1;
		li->own = 1; /* the header */
		stack[sp++] = lf->next_sibling[l];
		l = lf->first_child[l];
	}
	for (uint32_t b = 0; b < lf->nblocks; b++)
		if (lf->loop_of[b] != KL_NONE)
			lf->loop_of[b] = lf->number[lf->loop_of[b]];
	/* Own blocks besides the header, each counted once (sa marks). */
	uint32_t *mark = lf->sa;
	memset(mark, 0, lf->nblocks * sizeof *mark);
	for (uint32_t st, b = layout_first(f, &st); b != KL_NONE;
	     b = layout_next(f, b, &st)) {
		uint32_t l = b < lf->nblocks ? lf->loop_of[b] : KL_NONE;
		if (l != KL_NONE && lf->loops[l].header != b && !mark[b]) {
			mark[b] = 1;
			lf->loops[l].own++;
		}
	}
	/* Sizes and ends bottom-up (a child's number is above its parent's). */
	for (uint32_t l = n; l-- > 0;) {
		loop_info *li = &lf->loops[l];
		li->size = li->own;
		li->end = l + 1;
	}
	for (uint32_t l = n; l-- > 0;) {
		loop_info *li = &lf->loops[l];
		if (li->parent != KL_NONE) {
			lf->loops[li->parent].size += li->size;
			if (li->end > lf->loops[li->parent].end)
				lf->loops[li->parent].end = li->end;
		}
	}
	/* Ranges top-down: own blocks first, then the children in order. */
	uint32_t next_root = 0;
	uint32_t *next = lf->first_child; /* reuse: per loop, next free slot */
	for (uint32_t l = 0; l < n; l++) {
		loop_info *li = &lf->loops[l];
		if (li->parent == KL_NONE) {
			li->start = next_root;
			next_root += li->size;
		} else {
			li->start = next[li->parent];
			next[li->parent] += li->size;
		}
		next[l] = li->start + li->own;
	}
	/* Fill: the header, then the other own blocks in layout order. */
	for (uint32_t l = 0; l < n; l++) {
		loop_info *li = &lf->loops[l];
		lf->number[l] = li->start + 1;
		lf->blocks[li->start] = (kl_block){ li->header };
	}
	for (uint32_t st, b = layout_first(f, &st); b != KL_NONE;
	     b = layout_next(f, b, &st)) {
		if (b < lf->nblocks && mark[b] == 1) {
			mark[b] = 2;
			lf->blocks[lf->number[lf->loop_of[b]]++] =
				(kl_block){ b };
		}
	}
}

/* ---- irreducible regions ---- */

/* Is p -> s an edge the SCC search follows (not a back edge)? p is
 * reachable; so is s, when the CFG is the tree's. */
static bool
forward_edge(const kl_domtree *dt, uint32_t p, uint32_t s)
{
	return dt_reachable(dt, s) && !dt_dominates(dt, s, p);
}

/*
 * Tarjan's SCC algorithm, iteratively, over the reachable blocks and the
 * edges that are not back edges. sa = DFS index (0: not visited), sb =
 * low link, with bit 31 set while the block is on the SCC stack. Each SCC
 * of two blocks or more gets a (temporary) region number in irr_of.
 */
#define ON_STACK 0x80000000u

static uint32_t
find_sccs(kl_loops *lf, const kl_cfg *cfg, const kl_domtree *dt)
{
	uint32_t *idx = lf->sa, *low = lf->sb, nreg = 0;
	memset(idx, 0, lf->nblocks * sizeof *idx);
	/* Called only when reducible() met an edge it refused, so the
	 * entry exists and is reachable. */
	KL_ASSERT(dt->entry != KL_NONE && dt_reachable(dt, dt->entry));
	uint32_t counter = 0, csp = 0;
	lf->nwork = 0; /* the SCC stack */
	uint32_t v = dt->entry;
	idx[v] = ++counter;
	low[v] = counter | ON_STACK;
	push(lf, v);
	lf->cs[csp] = v;
	lf->ci[csp++] = 0;
	while (csp) {
		v = lf->cs[csp - 1];
		uint32_t k = lf->ci[csp - 1];
		uint32_t n;
		const kl_cfg_edge *e = cfg_edges_out(cfg, v, &n);
		if (k < n) {
			lf->ci[csp - 1]++;
			uint32_t w = e[k].block.id;
			if (!forward_edge(dt, v, w))
				continue;
			if (idx[w] == 0) {
				idx[w] = ++counter;
				low[w] = counter | ON_STACK;
				push(lf, w);
				lf->cs[csp] = w;
				lf->ci[csp++] = 0;
			} else if ((low[w] & ON_STACK) &&
				   idx[w] < (low[v] & ~ON_STACK)) {
				low[v] = idx[w] | ON_STACK;
			}
			continue;
		}
		csp--;
		uint32_t lv = low[v] & ~ON_STACK;
		if (csp) {
			uint32_t u = lf->cs[csp - 1];
			if (lv < (low[u] & ~ON_STACK))
				low[u] = lv | ON_STACK;
		}
		if (lv != idx[v])
			continue;
		/* v is the root of an SCC: pop it. */
		uint32_t count = 0, w;
		do {
			w = lf->work[--lf->nwork];
			low[w] &= ~ON_STACK;
			lf->irr_of[w] = nreg;
			count++;
		} while (w != v);
		if (count > 1) {
			nreg++;
		} else {
			lf->irr_of[v] = KL_NONE;
		}
	}
	return nreg;
}

/* Is block b (in region r) entered from outside the region? The
 * function's entry block needs no case of its own: it dominates every
 * block, so every edge into it is a back edge, which find_sccs does not
 * follow, and it is never in a region. */
static bool
is_entry(const kl_loops *lf, const kl_cfg *cfg, const kl_domtree *dt,
	 uint32_t b)
{
	uint32_t n;
	const kl_cfg_edge *e = cfg_edges_in(cfg, b, &n);
	for (uint32_t k = 0; k < n; k++) {
		uint32_t p = e[k].block.id;
		if (dt_reachable(dt, p) && lf->irr_of[p] != lf->irr_of[b])
			return true;
	}
	return false;
}

/* Number the regions by the layout order of their first block and lay
 * out their blocks and entries (both in layout order). */
static void
collect_regions(kl_loops *lf, const kl_func *f, const kl_cfg *cfg,
		const kl_domtree *dt, uint32_t nreg)
{
	lf->nirr = nreg;
	if (nreg == 0)
		return;
	kl_grow(&lf->irr, &lf->irr_cap, sizeof *lf->irr, nreg);
	uint32_t *map = lf->sa, id = 0; /* old region -> new (sa is free) */
	uint32_t *seen = lf->ci; /* per block: walks done (ci is free) */
	memset(seen, 0, lf->nblocks * sizeof *seen);
	for (uint32_t r = 0; r < nreg; r++)
		map[r] = KL_NONE;
	for (uint32_t st, b = layout_first(f, &st); b != KL_NONE;
	     b = layout_next(f, b, &st)) {
		uint32_t r = b < lf->nblocks ? lf->irr_of[b] : KL_NONE;
		if (r == KL_NONE || seen[b])
			continue;
		seen[b] = 1;
		if (map[r] == KL_NONE) {
			map[r] = id;
			lf->irr[id++] = (irr_info){ 0, 0, 0, 0 };
		}
		lf->irr_of[b] = map[r];
		lf->irr[map[r]].n++;
	}
	lf->nirr = id; /* fewer only if the layout is broken */
	for (uint32_t b = 0; b < lf->nblocks; b++)
		if (!seen[b])
			lf->irr_of[b] = KL_NONE;
	/* Entries, now that every block has its final region number. */
	uint32_t *entry = lf->sb; /* per block: is an entry (sb is free) */
	for (uint32_t st, b = layout_first(f, &st); b != KL_NONE;
	     b = layout_next(f, b, &st)) {
		if (b >= lf->nblocks || seen[b] != 1)
			continue;
		seen[b] = 2;
		entry[b] = is_entry(lf, cfg, dt, b);
		lf->irr[lf->irr_of[b]].nentries += entry[b];
	}
	uint32_t at = 0, eat = 0;
	for (uint32_t r = 0; r < lf->nirr; r++) {
		lf->irr[r].start = at;
		lf->irr[r].estart = eat;
		at += lf->irr[r].n;
		eat += lf->irr[r].nentries;
		lf->irr[r].n = lf->irr[r].nentries = 0;
	}
	kl_grow(&lf->irr_blocks, &lf->irr_blocks_cap, sizeof(kl_block), at);
	kl_grow(&lf->irr_entries, &lf->irr_entries_cap, sizeof(kl_block), eat);
	for (uint32_t st, b = layout_first(f, &st); b != KL_NONE;
	     b = layout_next(f, b, &st)) {
		if (b >= lf->nblocks || seen[b] != 2)
			continue;
		seen[b] = 3;
		irr_info *ri = &lf->irr[lf->irr_of[b]];
		lf->irr_blocks[ri->start + ri->n++] = (kl_block){ b };
		if (entry[b])
			lf->irr_entries[ri->estart + ri->nentries++] =
				(kl_block){ b };
	}
}

/*
 * Is the reachable CFG reducible? Every edge that goes backwards in the
 * RPO is a retreating edge of the depth-first search behind it, and the
 * graph is reducible iff each of them is a back edge (its target
 * dominates its source). One pass over the edges, so that the SCC search
 * only runs on the rare function that needs it.
 */
static bool
reducible(const kl_cfg *cfg, const kl_domtree *dt)
{
	for (uint32_t k = 0; k < dt->npo; k++) {
		uint32_t b = dt->po[k].id;
		uint32_t n;
		const kl_cfg_edge *e = cfg_edges_out(cfg, b, &n);
		for (uint32_t j = 0; j < n; j++) {
			uint32_t t = e[j].block.id;
			if (dt_reachable(dt, t) &&
			    dt->rpo_key[t] <= dt->rpo_key[b] &&
			    !dt_dominates(dt, t, b))
				return false;
		}
	}
	return true;
}

void
kl_loops_compute(kl_loops *lf, const kl_func *f, const kl_cfg *cfg,
		 const kl_domtree *dt)
{
	cover_blocks(lf, dt->nblocks);
	discover(lf, cfg, dt);
	number_loops(lf, f);
	uint32_t nreg = reducible(cfg, dt) ? 0 : find_sccs(lf, cfg, dt);
	collect_regions(lf, f, cfg, dt, nreg);
}

/* ---- queries ---- */

uint32_t
kl_loops_count(const kl_loops *lf)
{
	return lf->nloops;
}

static bool
loop_ok(const kl_loops *lf, kl_loop l)
{
	return l.id < lf->nloops;
}

kl_loop
kl_loops_innermost(const kl_loops *lf, kl_block b)
{
	return (kl_loop){ b.id < lf->nblocks ? lf->loop_of[b.id] : KL_NONE };
}

uint32_t
kl_loops_block_depth(const kl_loops *lf, kl_block b)
{
	kl_loop l = kl_loops_innermost(lf, b);
	return loop_ok(lf, l) ? lf->loops[l.id].depth : 0;
}

bool
kl_loops_is_header(const kl_loops *lf, kl_block b)
{
	kl_loop l = kl_loops_innermost(lf, b);
	return loop_ok(lf, l) && lf->loops[l.id].header == b.id;
}

kl_block
kl_loop_header(const kl_loops *lf, kl_loop l)
{
	return loop_ok(lf, l) ? (kl_block){ lf->loops[l.id].header }
			      : KL_NO_BLOCK;
}

kl_loop
kl_loop_parent(const kl_loops *lf, kl_loop l)
{
	return (kl_loop){ loop_ok(lf, l) ? lf->loops[l.id].parent : KL_NONE };
}

uint32_t
kl_loop_depth(const kl_loops *lf, kl_loop l)
{
	return loop_ok(lf, l) ? lf->loops[l.id].depth : 0;
}

const kl_block *
kl_loop_blocks(const kl_loops *lf, kl_loop l, uint32_t *n)
{
	if (!loop_ok(lf, l)) {
		*n = 0;
		return NULL;
	}
	*n = lf->loops[l.id].size;
	return *n ? lf->blocks + lf->loops[l.id].start : NULL;
}

bool
kl_loop_contains(const kl_loops *lf, kl_loop l, kl_block b)
{
	kl_loop in = kl_loops_innermost(lf, b);
	return loop_ok(lf, l) && loop_ok(lf, in) && in.id >= l.id &&
	       in.id < lf->loops[l.id].end;
}

uint32_t
kl_loops_num_irreducible(const kl_loops *lf)
{
	return lf->nirr;
}

const kl_block *
kl_loops_irreducible_blocks(const kl_loops *lf, uint32_t r, uint32_t *n)
{
	if (r >= lf->nirr) {
		*n = 0;
		return NULL;
	}
	*n = lf->irr[r].n;
	return *n ? lf->irr_blocks + lf->irr[r].start : NULL;
}

const kl_block *
kl_loops_irreducible_entries(const kl_loops *lf, uint32_t r, uint32_t *n)
{
	if (r >= lf->nirr) {
		*n = 0;
		return NULL;
	}
	*n = lf->irr[r].nentries;
	return *n ? lf->irr_entries + lf->irr[r].estart : NULL;
}

uint32_t
kl_loops_irreducible_region(const kl_loops *lf, kl_block b)
{
	return b.id < lf->nblocks ? lf->irr_of[b.id] : KL_NONE;
}
