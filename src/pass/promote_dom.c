/*
 * promote_dom.c -- the dominance facts of a function of more than
 * TINY_BLOCKS blocks, in the compact form the promote pass reads: per
 * block its immediate dominator, its children in layout order, a span of
 * preorder numbers of the dominator tree, how many edges enter it, and
 * its dominance frontier.
 *
 * Why not the generic analyses of src/analysis? Their CFG, dominator tree
 * and frontiers are general (edge lists that name their branches, a
 * predecessor order, Euler-tour times with gaps for later block splits,
 * a post-order, ...), and in a fresh process touch about 215 bytes of
 * fresh memory a block; on a function of 100,000 blocks first touches of
 * fresh pages were a third of the pass's time
 * (docs/promote-performance.md). These arrays take 64 bytes a block (in
 * one region: huge pages from 1 MB on) and 8 an edge, and the pass keeps
 * them from one function to the next.
 *
 * The steps are the verifier's fast path's (src/verify/fastdom.c), the
 * same code for all but the first (src/analysis/idoms.c): the
 * successors of each block of the layout (off the terminators of a
 * verified function -- by the pass's walk as it leaves each block, when
 * the entry block has allocas, the terminator then in the cache, else
 * here -- or from the generic CFG, which the strict SSA check computed),
 * a depth-first search numbering the reachable blocks
 * in preorder, their predecessors as those numbers, the immediate
 * dominators from the Lengauer-Tarjan kernel the generic tree uses too, then
 * preorder spans of the tree. The frontiers come from walking up the
 * tree from each predecessor of a block to the block's immediate
 * dominator (Cooper, Harvey and Kennedy), stopping where an earlier walk
 * to the same block passed; once to count, once to fill.
 */
#include "promote.h"

/* The per-block arrays, carved from the region: words each, a span and
 * a successor span being two. */
enum { REGION_WORDS = 16 };

static void
carve(dom_facts *d, uint32_t nb)
{
	uint64_t per = (uint64_t)nb + 2;
	uint32_t *at = room_whole(&d->region, REGION_WORDS * per);
	d->span = (dom_span *)at;
	at += 2 * per;
	d->out = (succ_span *)at;
	at += 2 * per;
	/* The computation's own last: promote_dom_spare. */
	uint32_t **one[] = { &d->idom,   &d->child,    &d->sibling,
			     &d->npreds, &d->df_start, &d->order,
			     &d->vertex, &d->anc,      &d->semi,
			     &d->label,  &d->didom,    &d->pstart };
	_Static_assert(REGION_WORDS == 4 + sizeof one / sizeof one[0],
		       "the region holds every array");
	_Static_assert(sizeof one / sizeof one[0] == 5 + DOM_SPARE,
		       "the spare arrays are the last ones");
	for (size_t k = 0; k < sizeof one / sizeof one[0]; k++, at += per)
		*one[k] = at;
}

void
promote_dom_read_begin(dom_facts *d, const kl_func *f)
{
	uint32_t nb = f->nblocks;
	carve(d, nb);
	memset(d->npreds, 0, (size_t)nb * sizeof *d->npreds);
	/* Two edges a block up front: the rest as they come. */
	room_whole(&d->succ, 2 * (uint64_t)nb);
	d->nedges = d->nlayout = 0;
	d->exact = true;
	d->have_successors = false;
}

/* Block b's successors, off its terminator (cfg NULL; a destination
 * not placed in the layout is left out and makes the lists inexact) or
 * from cfg's edges. */
static KL_ALWAYS_INLINE void
read_block(dom_facts *d, const kl_func *f, const kl_cfg *cfg, uint32_t b)
{
	const uint32_t *dests = NULL;
	const kl_cfg_edge *edges = NULL;
	uint32_t n;
	if (cfg) {
		edges = cfg_edges_out(cfg, b, &n);
	} else {
		uint32_t i = f->blocks[b].last;
		n = i != KL_NONE ? inst_dests(f, i, &dests) : 0;
	}
	uint32_t at = d->nedges;
	if (KL_UNLIKELY((uint64_t)at + n > d->succ.cap))
		kl_grow(&d->succ.a, &d->succ.cap, sizeof *d->succ.a,
			(uint64_t)at + n);
	uint32_t *succ = d->succ.a, *npreds = d->npreds;
	d->order[d->nlayout++] = b;
	d->out[b].start = at;
	for (uint32_t j = 0; j < n; j++) {
		uint32_t t = cfg ? edges[j].block.id
				 : dest_block(&f->pool, dests[j]);
		if (!cfg && !ana_block_placed(f, t)) {
			d->exact = false;
			continue;
		}
		succ[at++] = t;
		npreds[t]++;
	}
	d->out[b].n = at - d->out[b].start;
	d->nedges = at;
}

void
promote_dom_read_block(dom_facts *d, const kl_func *f, uint32_t b)
{
	read_block(d, f, NULL, b);
}

/*
 * The successors of every block of the layout (out[b]), the layout's
 * order, and the edges into each block: off the terminators of a
 * verified function (unless the walk read them, promote_walk), else from
 * the generic CFG of another.
 */
static void
read_successors(dom_facts *d, const kl_func *f, const kl_cfg *cfg)
{
	promote_dom_read_begin(d, f);
	d->exact = !cfg;
	/* A big function's terminators are cache misses, one per block: the
	 * one PREFETCH_AHEAD blocks ahead in the layout is asked for. */
	uint32_t ahead = f->first_block;
	for (uint32_t j = 0; !cfg && j < PREFETCH_AHEAD && ahead != KL_NONE;
	     j++)
		ahead = f->blocks[ahead].next;
	for (uint32_t b = f->first_block; b != KL_NONE; b = f->blocks[b].next) {
		if (!cfg && ahead != KL_NONE) {
			uint32_t t = f->blocks[ahead].last;
			if (t < f->ninsts)
				KL_PREFETCH(&f->insts[t]);
			ahead = f->blocks[ahead].next;
		}
		read_block(d, f, cfg, b);
	}
}

/* The tree in block numbers: idom, and children in layout order. */
static void
link_tree(dom_facts *d, uint32_t n, uint32_t nb)
{
	const uint32_t *vertex = d->vertex, *didom = d->didom;
	uint32_t *idom = d->idom, *child = d->child, *sibling = d->sibling;
	memset(idom, 0xff, (size_t)nb * sizeof *idom);
	memset(child, 0xff, (size_t)nb * sizeof *child);
	memset(sibling, 0xff, (size_t)nb * sizeof *sibling);
	for (uint32_t w = 2; w <= n; w++)
		idom[vertex[w]] = vertex[didom[w]];
	/* Pushed in reverse layout order: each list comes out in order. */
	for (uint32_t k = d->nlayout; k-- > 0;) {
		uint32_t b = d->order[k];
		if (idom[b] != KL_NONE) {
			sibling[b] = child[idom[b]];
			child[idom[b]] = b;
		}
	}
}

/*
 * Walk up from each predecessor of each join w to w's immediate
 * dominator: every block passed has w in its frontier. last[r] names the
 * last join whose walk passed r (in semi's words, which only the
 * dominator kernel reads); a walk that meets its own join's mark stops,
 * as the rest of the way is done. With fill false, count into
 * df_start (per block) and return the total, stopping past
 * DF_DEFAULT_LIMIT; else place each block's from its end down.
 */
static uint64_t
walk_frontiers(dom_facts *d, uint32_t n, bool fill)
{
	const uint32_t *vertex = d->vertex, *didom = d->didom;
	const uint32_t *pstart = d->pstart, *preds = d->preds.a;
	uint32_t *last = d->semi, *start = d->df_start, *df = d->df.a;
	memset(last, 0, ((size_t)n + 1) * sizeof *last);
	uint64_t total = 0;
	/* From the entry (number 1, idom 0): edges into it are no IR's
	 * the verifier accepts, but the pass also takes unverified IR. */
	for (uint32_t w = 1; w <= n; w++) {
		if (w > 1 && pstart[w + 1] - pstart[w] < 2)
			continue; /* one edge in: from its idom */
		for (uint32_t k = pstart[w]; k < pstart[w + 1]; k++) {
			for (uint32_t r = preds[k];
			     r != didom[w] && last[r] != w; r = didom[r]) {
				last[r] = w;
				if (fill) {
					df[--start[vertex[r]]] = vertex[w];
				} else {
					start[vertex[r]]++;
					total++; /* counting only */
				}
			}
		}
		/* (a join adds at most one entry a block: no wrap) */
		if (!fill && total > DF_DEFAULT_LIMIT)
			break;
	}
	return total;
}

static bool
frontiers(dom_facts *d, uint32_t n, uint32_t nb)
{
	uint32_t *start = d->df_start;
	memset(start, 0, ((size_t)nb + 1) * sizeof *start);
	if (walk_frontiers(d, n, false) > DF_DEFAULT_LIMIT)
		return false;
	uint32_t at = 0;
	for (uint32_t b = 0; b < nb; b++) {
		at += start[b];
		start[b] = at; /* the end of b's set, for now */
	}
	start[nb] = at;
	room_whole(&d->df, (uint64_t)at + 1);
	walk_frontiers(d, n, true);
	return true;
}

bool
promote_dom_compute(dom_facts *d, const kl_func *f, const kl_cfg *cfg)
{
	uint32_t nb = f->nblocks;
	/* (Reading the successors carves the region: promote_dom_read_begin,
	 * here or in the walk.) */
	if (cfg || !d->have_successors)
		read_successors(d, f, cfg);
	d->have_successors = false; /* they are this function's no more */
	memset(d->span, 0, (size_t)nb * sizeof *d->span);
	uint32_t n = ana_dfs_number(f->first_block, d->out, d->succ.a, d->span,
				    d->vertex, d->anc);
	uint32_t *preds = room_whole(&d->preds, (uint64_t)d->nedges + 1);
	ana_dfs_preds(n, d->out, d->succ.a, d->span, d->vertex, d->pstart,
		      preds);
	ana_idoms(n, d->pstart, preds, d->didom, d->anc, d->semi, d->label);
	ana_dom_spans(n, d->didom, d->vertex, d->span, d->label, d->anc);
	link_tree(d, n, nb);
	return frontiers(d, n, nb);
}

void
promote_dom_free(dom_facts *d)
{
	free(d->region.a);
	free(d->succ.a);
	free(d->preds.a);
	free(d->df.a);
}
