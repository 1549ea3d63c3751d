/*
 * domtree.c -- the dominator tree, the CFG post-order, O(1) dominance
 * queries for blocks and instructions, and the repair of the tree after a
 * block split.
 *
 * Algorithm: Lengauer and Tarjan, "A Fast Algorithm for Finding
 * Dominators in a Flowgraph" (TOPLAS 1979), the simple version with path
 * compression:
 *
 *  1. An iterative depth-first search from the entry numbers the reachable
 *     blocks in preorder (1..n), records each one's DFS-tree parent, and
 *     emits the post-order that passes use (its reverse is the RPO).
 *     Successors are visited last first, so that the RPO of an if/else
 *     lists the then-arm first, as the layout usually does.
 *  2. The predecessors of each reached block are gathered as preorder
 *     numbers, and ana_idoms (idoms.c, shared with the verifier's
 *     fast path and promote's compact facts) finds semidominators, in
 *     decreasing preorder, with eval and path compression (never
 *     recursion); in the same sweep each vertex's bucket gives its
 *     relative dominator, and a last pass in increasing preorder turns
 *     those into immediate dominators. (It ended with semi-NCA's walk up
 *     the tree until 2026-12-02, quadratic at worst.)
 *
 * This is correct on every flowgraph, irreducible ones included (unlike
 * dataflow formulations it needs no iteration to a fixed point), and runs
 * in O(m log n) on every graph. Unreachable blocks get no number: they
 * have no idom, dominate nothing and are dominated by nothing but
 * themselves.
 *
 * Queries: the tree children are chained in layout order (first child,
 * next sibling). An Euler tour of the tree gives every block an entry and
 * an exit time, and a dominates b iff a's interval contains b's: O(1).
 * The times are computed from preorder numbers and subtree sizes with
 * passes over arrays (number_tree_fast), not by walking the tree.
 * Instruction dominance inside one block compares the layout sequence
 * numbers (kl_inst_precedes). Times and RPO keys are multiples of a large
 * stride, so that a split can take numbers in the gaps.
 *
 * Split repair: a pass splits block `old` in two, `new` taking the later
 * instructions (and so the terminator and every successor) and `old`
 * ending in a jump to `new`. Then new's only predecessor is old and old's
 * only successor is new, so: idom(new) = old, every former child of old
 * becomes a child of new, and nothing else changes. In the post-order, new
 * goes immediately before old: a depth-first search reaches new only from
 * old, right after entering old, visits from new exactly the successors old
 * used to visit, in the same order, and finishes new just before old. (In
 * an IR where blocks could branch in the middle, as Cranelift's extended
 * basic blocks did, old would keep some successors and new would belong
 * after the last of them in the post-order -- cranelift issue #145; with
 * branches only at the end, old keeps none, and that place is right before
 * old.) When the CFG does not have that shape, the repair computes the
 * tree afresh. The random tests compare the repair against a full
 * computation, post-order included.
 *
 * Invariants: rpo_key[b] != 0 iff span[b].tin != 0 iff b is reachable;
 * keys decrease along po[]; the spans (tin, tout) nest along the tree;
 * children lists are in layout order.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "idoms.h"

/* Gap between consecutive Euler-tour times and RPO keys. A function has
 * fewer than 2^31 blocks (func_reserve_blocks), so the last time, 2n
 * strides, stays below 2^64. */
#define KEY_STRIDE ((uint64_t)1 << 32)

/* Up to this many blocks, per-block arrays are cleared by a loop. */
#define SMALL_BLOCKS 64

kl_domtree *
kl_domtree_new(void)
{
	kl_domtree *dt = kl_calloc(1, sizeof(kl_domtree));
	dt->entry = KL_NONE;
	return dt;
}

void
kl_domtree_free(kl_domtree *dt)
{
	if (!dt)
		return;
	free(dt->region);
	free(dt->po);
	free(dt->preds);
	free(dt);
}

/*
 * Per-block entries hold their defaults (unreachable: no idom, no child,
 * no sibling, times, key and preorder number 0) everywhere up to
 * blocks_cap, except on the blocks of the post-order, which are the only
 * ones a computation or a split repair writes. So a new computation
 * resets just those (a small function: a few blocks, not seven memsets),
 * and covering more blocks costs nothing unless the arrays grow.
 */
static void
reset_blocks(kl_domtree *dt)
{
	if (dt->npo > SMALL_BLOCKS) {
		uint32_t c = dt->nblocks;
		memset(dt->idom, 0xff, c * sizeof *dt->idom);
		memset(dt->child, 0xff, c * sizeof *dt->child);
		memset(dt->sibling, 0xff, c * sizeof *dt->sibling);
		memset(dt->span, 0, c * sizeof *dt->span);
		memset(dt->rpo_key, 0, c * sizeof *dt->rpo_key);
		memset(dt->dfnum, 0, c * sizeof *dt->dfnum);
	} else {
		for (uint32_t i = 0; i < dt->npo; i++) {
			uint32_t b = dt->po[i].id;
			dt->idom[b] = dt->child[b] = dt->sibling[b] = KL_NONE;
			dt->span[b] = (dt_span){ 0, 0 };
			dt->rpo_key[b] = 0;
			dt->dfnum[b] = 0;
		}
	}
	dt->npo = 0;
}

/*
 * Make the per-block arrays cover n blocks (new blocks are unreachable)
 * and the scratch n + 2 preorder numbers (0 unused; n + 1 ends the
 * predecessors in the stack).
 *
 * All of them live in one region: a first computation over 100,000
 * blocks writes some 8 MB of fresh memory, and on this project's machines
 * each 4 KB page costs about 10 us to fault in -- more than the algorithm.
 * A large region goes on huge pages (kl_alloc_table), a few faults in
 * all. Growing copies the per-block arrays (a split repair keeps them);
 * the scratch is rewritten by every computation.
 */
static void
cover_blocks(kl_domtree *dt, uint32_t n)
{
	uint64_t need = (uint64_t)n + 2;
	if (need > dt->blocks_cap) {
		uint32_t old = dt->blocks_cap;
		uint32_t cap = kl_grown_cap(old, need);
		size_t c = (size_t)cap;
		/* 8-byte arrays first, so every array stays aligned. */
		char *r = kl_alloc_table(c * (sizeof(dt_span) + 8 + 12 * 4));
		dt_span *span = (dt_span *)r;
		uint64_t *rpo_key = (uint64_t *)(span + c);
		uint32_t *u32 = (uint32_t *)(rpo_key + c);
		uint32_t *idom = u32, *child = u32 + c, *sibling = u32 + 2 * c;
		uint32_t *dfnum = u32 + 3 * c;
		if (old) {
			memcpy(span, dt->span, old * sizeof *span);
			memcpy(rpo_key, dt->rpo_key, old * sizeof *rpo_key);
			memcpy(idom, dt->idom, old * sizeof *idom);
			memcpy(child, dt->child, old * sizeof *child);
			memcpy(sibling, dt->sibling, old * sizeof *sibling);
			memcpy(dfnum, dt->dfnum, old * sizeof *dfnum);
		}
		size_t more = c - old;
		memset(span + old, 0, more * sizeof *span);
		memset(rpo_key + old, 0, more * sizeof *rpo_key);
		memset(idom + old, 0xff, more * sizeof *idom);
		memset(child + old, 0xff, more * sizeof *child);
		memset(sibling + old, 0xff, more * sizeof *sibling);
		memset(dfnum + old, 0, more * sizeof *dfnum);
		free(dt->region);
		dt->region = r;
		dt->span = span;
		dt->rpo_key = rpo_key;
		dt->idom = idom;
		dt->child = child;
		dt->sibling = sibling;
		dt->dfnum = dfnum;
		uint32_t **scratch[] = { &dt->vertex, &dt->parent, &dt->anc,
					 &dt->label, &dt->semi, &dt->dom,
					 &dt->stack, &dt->stack_i };
		for (size_t k = 0; k < 8; k++)
			*scratch[k] = u32 + (4 + k) * c;
		dt->blocks_cap = cap;
	}
	if (n > dt->nblocks)
		dt->nblocks = n;
}

static void
cover_po(kl_domtree *dt, uint32_t n)
{
	if (KL_UNLIKELY(n > dt->po_cap)) {
		kl_grow(&dt->po, &dt->po_cap, sizeof *dt->po, n);
		kl_prefault(dt->po, (size_t)n * sizeof *dt->po);
	}
}

/*
 * Depth-first search from the entry: preorder numbers (dfnum, vertex),
 * DFS-tree parents (in anc, where ana_idoms wants them) and the
 * post-order. Returns the number of reachable
 * blocks.
 */
static uint32_t
dfs(kl_domtree *dt, const kl_cfg *cfg, uint32_t entry)
{
	uint32_t n = 0, sp = 0;
	dt->npo = 0;
	dt->dfnum[entry] = ++n;
	dt->vertex[n] = entry;
	dt->anc[n] = 0;
	dt->stack[sp] = entry;
	dt->stack_i[sp++] = cfg_nsuccs(cfg, entry);
	while (sp) {
		uint32_t b = dt->stack[sp - 1];
		if (dt->stack_i[sp - 1] == 0) {
			dt->po[dt->npo++] = (kl_block){ b };
			sp--;
			continue;
		}
		uint32_t k = --dt->stack_i[sp - 1];
		uint32_t s = cfg->pool[cfg->succ[b].start + k].block.id;
		if (dt->dfnum[s] != 0)
			continue;
		dt->dfnum[s] = ++n;
		dt->vertex[n] = s;
		dt->anc[n] = dt->dfnum[b];
		dt->stack[sp] = s;
		dt->stack_i[sp++] = cfg_nsuccs(cfg, s);
	}
	return n;
}

/*
 * The predecessors of every reached block, as preorder numbers: the CSR
 * form ana_idoms reads, preds[start[i] .. start[i + 1]) for number i,
 * in the CFG's predecessor order. start lives in the stack (free after
 * the search, n + 2 words).
 */
static void
gather_preds(kl_domtree *dt, const kl_cfg *cfg, uint32_t n)
{
	uint32_t m = 0, *start = dt->stack;
	for (uint32_t i = 1; i <= n; i++)
		m += cfg->pred[dt->vertex[i]].len;
	if (KL_UNLIKELY(m > dt->preds_cap)) {
		kl_grow(&dt->preds, &dt->preds_cap, sizeof *dt->preds, m);
		kl_prefault(dt->preds, (size_t)m * sizeof *dt->preds);
	}
	m = 0;
	for (uint32_t i = 1; i <= n; i++) {
		const cfg_list *pl = &cfg->pred[dt->vertex[i]];
		const kl_cfg_edge *pe = cfg_edges(cfg, pl); /* NULL-safe */
		start[i] = m;
		for (uint32_t k = 0; k < pl->len; k++) {
			uint32_t v = dt->dfnum[pe[k].block.id];
			if (v != 0) /* else an unreachable predecessor */
				dt->preds[m++] = v;
		}
	}
	start[n + 1] = m;
}

/* Euler-tour times over the tree, from the entry, without recursion. */
static void
number_tree(kl_domtree *dt)
{
	uint64_t t = 0;
	uint32_t sp = 0;
	uint32_t *stack = dt->stack, *cursor = dt->stack_i;
	dt->span[dt->entry].tin = (t += KEY_STRIDE);
	stack[sp] = dt->entry;
	cursor[sp++] = dt->child[dt->entry];
	while (sp) {
		uint32_t c = cursor[sp - 1];
		if (c == KL_NONE) {
			dt->span[stack[--sp]].tout = (t += KEY_STRIDE);
			continue;
		}
		cursor[sp - 1] = dt->sibling[c];
		dt->span[c].tin = (t += KEY_STRIDE);
		stack[sp] = c;
		cursor[sp++] = dt->child[c];
	}
}

/*
 * Euler-tour times (and the idoms, by block) from the preorder numbers of
 * dominator kernel (dom[i] < i: an idom comes before in the DFS), with
 * sequential passes over arrays instead of a walk of the linked tree.
 * Subtree sizes bottom-up and depths top-down; then each block's place
 * in a preorder of the tree (children in DFS order), pre; then enter =
 * 2 pre - depth and exit = enter + 2 size - 1, which is what a walk of the
 * tree would give: before v are entered the pre blocks before it, and
 * exited those of them that are not its ancestors.
 */
static void
number_tree_fast(kl_domtree *dt, uint32_t n)
{
	uint32_t *size = dt->anc, *depth = dt->label, *next = dt->semi;
	uint32_t *pre = dt->parent, *dom = dt->dom;
	for (uint32_t i = 1; i <= n; i++)
		size[i] = 1;
	for (uint32_t i = n; i >= 2; i--)
		size[dom[i]] += size[i];
	depth[1] = 0;
	pre[1] = 0;
	next[1] = 1;
	for (uint32_t i = 2; i <= n; i++) {
		uint32_t p = dom[i];
		depth[i] = depth[p] + 1;
		pre[i] = next[p];
		next[p] += size[i];
		next[i] = pre[i] + 1;
	}
	for (uint32_t i = 1; i <= n; i++) {
		uint64_t enter = 2 * (uint64_t)pre[i] - depth[i];
		uint32_t b = dt->vertex[i];
		dt->span[b].tin = (enter + 1) * KEY_STRIDE;
		dt->span[b].tout = (enter + 2 * (uint64_t)size[i]) * KEY_STRIDE;
		if (i >= 2)
			dt->idom[b] = dt->vertex[dom[i]];
	}
}

/* RPO keys: decreasing along the post-order. */
static void
number_rpo(kl_domtree *dt)
{
	uint64_t k = 0;
	for (uint32_t i = dt->npo; i-- > 0;)
		dt->rpo_key[dt->po[i].id] = (k += KEY_STRIDE);
}

void
kl_domtree_compute(kl_domtree *dt, const kl_func *f, const kl_cfg *cfg)
{
	/* A CFG of another function must not make us index out of bounds. */
	uint32_t nb = f->nblocks > cfg->nblocks ? f->nblocks : cfg->nblocks;
	reset_blocks(dt);
	dt->nblocks = 0;
	cover_blocks(dt, nb);
	dt->func_blocks = f->nblocks;
	uint32_t st;
	dt->entry = layout_first(f, &st);
	if (dt->entry == KL_NONE || dt->entry >= cfg->nblocks)
		return;
	/* The post-order holds each reachable block once. */
	cover_po(dt, nb);
	uint32_t n = dfs(dt, cfg, dt->entry);
	gather_preds(dt, cfg, n);
	ana_idoms(n, dt->stack, dt->preds, dt->dom, dt->anc, dt->semi,
		     dt->label);
	number_tree_fast(dt, n);

	/* Children in layout order: walk the layout backwards, prepending.
	 * (dfnum, which the search left non-zero on every reachable block,
	 * is cleared on each block linked, so that a broken layout showing a
	 * block twice cannot make a cycle of siblings.) */
	for (uint32_t b = layout_last(f, &st); b != KL_NONE;
	     b = layout_prev(f, b, &st)) {
		uint32_t p = dt->idom[b];
		if (p == KL_NONE || dt->dfnum[b] == 0)
			continue;
		dt->dfnum[b] = 0;
		dt->sibling[b] = dt->child[p];
		dt->child[p] = b;
	}
	number_rpo(dt);
}

/* ---- split repair ---- */

/* Index of reachable block b in the post-order (keys decrease along it). */
static uint32_t
po_index(const kl_domtree *dt, uint32_t b)
{
	uint64_t k = dt->rpo_key[b];
	uint32_t lo = 0, hi = dt->npo;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (dt->rpo_key[dt->po[mid].id] > k)
			lo = mid + 1;
		else
			hi = mid;
	}
	KL_ASSERT(lo < dt->npo && dt->po[lo].id == b);
	return lo;
}

/* Does the CFG show the shape of a split of old into old -> new? */
static bool
is_split(const kl_domtree *dt, const kl_cfg *cfg, uint32_t old, uint32_t nw)
{
	if (old == nw || nw == dt->entry || old >= cfg->nblocks ||
	    nw >= cfg->nblocks || cfg->succ[old].len == 0 ||
	    cfg->pred[nw].len == 0 || dt_reachable(dt, nw))
		return false;
	const kl_cfg_edge *e = cfg_edges(cfg, &cfg->succ[old]);
	for (uint32_t k = 0; k < cfg->succ[old].len; k++)
		if (e[k].block.id != nw)
			return false;
	e = cfg_edges(cfg, &cfg->pred[nw]);
	for (uint32_t k = 0; k < cfg->pred[nw].len; k++)
		if (e[k].block.id != old)
			return false;
	return true;
}

/* A number strictly between lo and hi, or 0 if there is none. */
static uint64_t
between(uint64_t lo, uint64_t hi)
{
	return hi > lo && hi - lo >= 2 ? lo + (hi - lo) / 2 : 0;
}

bool
kl_domtree_recompute_split(kl_domtree *dt, const kl_func *f,
			   const kl_cfg *cfg, kl_block old_block,
			   kl_block new_block)
{
	uint32_t old = old_block.id, nw = new_block.id;
	cover_blocks(dt, f->nblocks);
	dt->func_blocks = f->nblocks;
	if (old >= dt->nblocks || nw >= dt->nblocks ||
	    !is_split(dt, cfg, old, nw)) {
		kl_domtree_compute(dt, f, cfg);
		return false;
	}
	if (!dt_reachable(dt, old))
		return true; /* new is as unreachable as old */

	/* The tree: new sits between old and old's former children, whose
	 * Euler intervals lie in (hi, lo) inside old's (the tour need not
	 * visit children in list order). */
	uint32_t first = dt->child[old];
	uint64_t lo = dt->span[old].tout, hi = dt->span[old].tin;
	for (uint32_t c = first; c != KL_NONE; c = dt->sibling[c]) {
		dt->idom[c] = nw;
		lo = dt->span[c].tin < lo ? dt->span[c].tin : lo;
		hi = dt->span[c].tout > hi ? dt->span[c].tout : hi;
	}
	dt->child[nw] = first;
	dt->sibling[nw] = KL_NONE;
	dt->child[old] = nw;
	dt->idom[nw] = old;
	uint64_t tin = between(dt->span[old].tin, lo);
	uint64_t tout = between(first != KL_NONE ? hi : tin,
				dt->span[old].tout);
	if (tin && tout) {
		dt->span[nw] = (dt_span){ tin, tout };
	} else {
		number_tree(dt);
	}

	/* The post-order: new right before old. */
	cover_po(dt, dt->npo + 1);
	uint32_t at = po_index(dt, old);
	memmove(dt->po + at + 1, dt->po + at,
		(dt->npo - at) * sizeof *dt->po);
	dt->po[at] = new_block;
	dt->npo++;
	uint64_t next = at > 0 ? dt->rpo_key[dt->po[at - 1].id] : UINT64_MAX;
	uint64_t key = next == UINT64_MAX ? dt->rpo_key[old] + KEY_STRIDE
					  : between(dt->rpo_key[old], next);
	if (key)
		dt->rpo_key[nw] = key;
	else
		number_rpo(dt);
	return true;
}

/* ---- queries ---- */

bool
kl_domtree_is_reachable(const kl_domtree *dt, kl_block b)
{
	return dt_reachable(dt, b.id);
}

kl_block
kl_domtree_idom(const kl_domtree *dt, kl_block b)
{
	return b.id < dt->nblocks ? (kl_block){ dt->idom[b.id] } : KL_NO_BLOCK;
}

kl_block
kl_domtree_entry(const kl_domtree *dt)
{
	return (kl_block){ dt->entry };
}

kl_block
kl_domtree_first_child(const kl_domtree *dt, kl_block b)
{
	return b.id < dt->nblocks ? (kl_block){ dt->child[b.id] }
				  : KL_NO_BLOCK;
}

kl_block
kl_domtree_next_sibling(const kl_domtree *dt, kl_block b)
{
	return b.id < dt->nblocks ? (kl_block){ dt->sibling[b.id] }
				  : KL_NO_BLOCK;
}

bool
kl_domtree_dominates(const kl_domtree *dt, kl_block a, kl_block b)
{
	if (a.id == b.id) /* reachable or not, but a block of the function */
		return a.id < dt->func_blocks;
	return dt_reachable(dt, a.id) && dt_reachable(dt, b.id) &&
	       dt_dominates(dt, a.id, b.id);
}

bool
kl_domtree_inst_dominates(const kl_domtree *dt, const kl_func *f, kl_inst a,
			  kl_inst b)
{
	if (a.id >= f->ninsts || b.id >= f->ninsts)
		return false;
	uint32_t ba = f->nodes[a.id].block, bb = f->nodes[b.id].block;
	if (ba == KL_NONE || bb == KL_NONE)
		return false; /* not placed: itself neither */
	if (a.id == b.id)
		return true;
	if (ba == bb)
		return f->nodes[a.id].seq < f->nodes[b.id].seq;
	return dt_reachable(dt, ba) && dt_reachable(dt, bb) &&
	       dt_dominates(dt, ba, bb);
}

const kl_block *
kl_domtree_postorder(const kl_domtree *dt, uint32_t *n)
{
	*n = dt->npo;
	return dt->po;
}

int
kl_domtree_rpo_cmp(const kl_domtree *dt, kl_block a, kl_block b)
{
	uint64_t ka = a.id < dt->nblocks ? dt->rpo_key[a.id] : 0;
	uint64_t kb = b.id < dt->nblocks ? dt->rpo_key[b.id] : 0;
	/* Unreachable blocks (key 0) sort after every reachable one. */
	ka = ka ? ka : UINT64_MAX;
	kb = kb ? kb : UINT64_MAX;
	return ka < kb ? -1 : ka > kb;
}

bool
kl_domtree_equal(const kl_domtree *a, const kl_domtree *b, kl_block *differs)
{
	uint32_t n = a->nblocks > b->nblocks ? a->nblocks : b->nblocks;
	uint32_t bad = KL_NONE;
	for (uint32_t k = 0; k < n && bad == KL_NONE; k++) {
		bool ra = dt_reachable(a, k), rb = dt_reachable(b, k);
		uint32_t ia = k < a->nblocks ? a->idom[k] : KL_NONE;
		uint32_t ib = k < b->nblocks ? b->idom[k] : KL_NONE;
		if (ra != rb || ia != ib)
			bad = k;
	}
	if (bad == KL_NONE && a->npo != b->npo)
		bad = a->npo ? a->entry : b->entry;
	for (uint32_t k = 0; bad == KL_NONE && k < a->npo; k++)
		if (a->po[k].id != b->po[k].id)
			bad = a->po[k].id;
	if (differs)
		*differs = (kl_block){ bad };
	return bad == KL_NONE;
}
