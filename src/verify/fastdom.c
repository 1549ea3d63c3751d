/*
 * fastdom.c -- the fast path's work on blocks (fast.c has the rest): walk
 * the block layout, read each block's successors off its last
 * instruction, and compute the dominator tree, numbered so that "does a
 * dominate b" is two comparisons.
 *
 * Why not src/analysis/? Its CFG and dominator tree are general (edge
 * lists with their branches, predecessor order, repair after a split)
 * and cost about 170 bytes of fresh memory per block; for a function of
 * 100,000 blocks those are 4,000 page faults, more time than all the
 * checks (docs/verifier.md, "Performance"). Here the arrays live in the
 * fast path's arena (about 60 bytes per block, on huge pages) and hold
 * only what dominance needs. The careful phases still use src/analysis/,
 * so the verifier checks dominance two independent ways, and
 * tests/unit/test_verify.c compares the two trees on random graphs.
 *
 * The algorithm is semi-NCA (Georgiadis, Tarjan, Werneck: "Finding
 * dominators in practice", 2006; the variant of LLVM's
 * GenericDomTreeConstruction.h): a depth-first search numbers the
 * reachable blocks in preorder; semidominators come from a reverse
 * preorder sweep over each block's predecessors with path-compressed
 * evaluation; the immediate dominator of w is then the nearest common
 * ancestor, on the tree built so far, of w's DFS parent and its
 * semidominator. Everything is in DFS-number space (1 .. n; 0 is none),
 * with explicit stacks: no recursion. Finally a pass over the tree gives
 * every block its preorder span [lo, hi] (verify.h: domspan); an
 * unreachable block keeps [0, 0], which dominates nothing reachable.
 *
 * Nothing is trusted: the layout walk checks every link (a bitmap stops
 * cycles), every terminator and destination list is checked before it is
 * read, and any doubt ends the fast path (returns false) -- the careful
 * phases then find and report the problem.
 */
#include <string.h>

#include "verify.h"

bool
fast_terminator(const fast *fs, uint32_t t, const uint32_t **dests,
		uint32_t *nd)
{
	*dests = NULL;
	*nd = 0;
	if (t >= fs->ninsts || fs->insts[t].op >= KL_OP_COUNT)
		return false;
	const kl_inst_data *d = &fs->insts[t];
	const kl_opinfo *info = &kl_op_table[d->op];
	if (!(info->flags & KL_OPF_TERMINATOR))
		return false;
	if (!(info->flags & KL_OPF_BRANCH))
		return true; /* return, trap: no edges (as kl_cfg_compute) */
	const verify_layout *l = &verify_layouts[info->format];
	if (l->lists & L_DESTS_W1)
		return vlist(fs->f, d->w[1], dests, nd);
	*dests = &d->w[l->dw];
	*nd = l->nd;
	return true;
}

/*
 * The block layout, as structure.c checks it: a list of existing blocks
 * flagged as placed, without cycles, whose back links and last_block
 * agree; every block flagged as placed is in it; there is an entry.
 * Counts the blocks and the edges out of their terminators.
 */
bool
fast_layout(fast *fs)
{
	const kl_func *f = fs->f;
	const unsigned both = BLOCK_EXISTS | BLOCK_PLACED;
	uint32_t prev = KL_NONE, n = 0, flagged = 0;
	uint64_t edges = 0;
	for (uint32_t b = f->first_block; b != KL_NONE; b = f->blocks[b].next) {
		if (b >= f->nblocks)
			return false;
		const kl_block_data *bd = &f->blocks[b];
		if ((bd->flags & both) != both || bit_get(fs->in_layout, b) ||
		    bd->prev != prev)
			return false;
		bit_set(fs->in_layout, b);
		n++;
		const uint32_t *dests;
		uint32_t nd;
		if (!fast_terminator(fs, bd->last, &dests, &nd))
			return false;
		edges += nd;
		prev = b;
	}
	if (n == 0 || f->last_block != prev)
		return false;
	/* Every block flagged as placed was met on the walk. */
	for (uint32_t b = 0; b < f->nblocks; b++)
		flagged += (f->blocks[b].flags & BLOCK_PLACED) != 0;
	if (flagged != n || edges > UINT32_MAX / 4)
		return false;
	fs->entry = f->first_block;
	fs->nplaced_blocks = n;
	fs->nedges = (uint32_t)edges;
	return true;
}

/*
 * The successors of every block, from its terminator (fast_layout found
 * it sound): each destination list must be sound and name a block of the
 * layout other than the entry block.
 */
static bool
successors(fast *fs)
{
	const kl_func *f = fs->f;
	uint32_t at = 0, b = fs->entry;
	for (uint32_t k = 0; k < fs->nplaced_blocks; k++) {
		const uint32_t *dests, *e;
		uint32_t nd, n;
		fast_terminator(fs, f->blocks[b].last, &dests, &nd);
		fs->sspan[b] = (succspan){ at, nd };
		for (uint32_t j = 0; j < nd; j++) {
			if (!vlist(f, dests[j], &e, &n) || n == 0 ||
			    e[0] >= fs->nblocks || !bit_get(fs->in_layout, e[0]) ||
			    e[0] == fs->entry)
				return false;
			fs->succ[at++] = e[0];
		}
		b = f->blocks[b].next;
	}
	return true;
}

/* Depth-first search from the entry: preorder numbers; returns how many. */
static uint32_t
number_blocks(fast *fs)
{
	uint32_t *st = fs->stack; /* pairs: block, next edge */
	uint32_t n = 1, sp = 1;
	fs->dfnum[fs->entry] = 1;
	fs->vertex[1] = fs->entry;
	fs->anc[1] = 0;
	st[0] = fs->entry;
	st[1] = fs->sspan[fs->entry].start;
	while (sp > 0) {
		uint32_t *top = st + 2 * (sp - 1);
		const succspan *ss = &fs->sspan[top[0]];
		if (top[1] == ss->start + ss->n) {
			sp--;
			continue;
		}
		uint32_t t = fs->succ[top[1]++];
		if (fs->dfnum[t])
			continue;
		fs->dfnum[t] = ++n;
		fs->vertex[n] = t;
		fs->anc[n] = fs->dfnum[top[0]];
		st[2 * sp] = t;
		st[2 * sp + 1] = fs->sspan[t].start;
		sp++;
	}
	return n;
}

/* Predecessors of every DFS number w: preds[poff[w] .. poff[w + 1]). */
static void
predecessors(fast *fs, uint32_t n)
{
	uint32_t *poff = fs->poff;
	memset(poff, 0, ((size_t)n + 2) * sizeof *poff);
	for (uint32_t u = 1; u <= n; u++) {
		const succspan *ss = &fs->sspan[fs->vertex[u]];
		for (uint32_t e = ss->start; e < ss->start + ss->n; e++)
			poff[fs->dfnum[fs->succ[e]]]++;
	}
	for (uint32_t w = 1; w <= n + 1; w++)
		poff[w] += poff[w - 1];
	/* Backwards, so each poff[w] ends at the start of w's list. */
	for (uint32_t u = 1; u <= n; u++) {
		const succspan *ss = &fs->sspan[fs->vertex[u]];
		for (uint32_t e = ss->start; e < ss->start + ss->n; e++)
			fs->preds[--poff[fs->dfnum[fs->succ[e]]]] = u;
	}
}

/*
 * The label of least semidominator on v's path in the forest of the
 * numbers >= last (those already swept), compressing the path: each
 * vertex on it then points past its top, with the best label so far.
 */
static uint32_t
eval(fast *fs, uint32_t v, uint32_t last)
{
	uint32_t *anc = fs->anc, *label = fs->label, *semi = fs->semi;
	if (anc[v] < last)
		return label[v];
	uint32_t sp = 0, x = v;
	do {
		fs->stack[sp++] = x;
		x = anc[x];
	} while (anc[x] >= last);
	uint32_t p = x;
	do {
		uint32_t y = fs->stack[--sp];
		anc[y] = anc[p];
		if (semi[label[p]] < semi[label[y]])
			label[y] = label[p];
		p = y;
	} while (sp > 0);
	return label[p];
}

/* Semi-NCA over DFS numbers 1 .. n: idom[w] for w >= 2. */
static void
semi_nca(fast *fs, uint32_t n)
{
	uint32_t *semi = fs->semi, *idom = fs->idom;
	for (uint32_t w = 1; w <= n; w++) {
		semi[w] = w;
		fs->label[w] = w;
		idom[w] = fs->anc[w]; /* the DFS parent, for now */
	}
	for (uint32_t w = n; w >= 2; w--) {
		uint32_t s = idom[w];
		for (uint32_t e = fs->poff[w]; e < fs->poff[w + 1]; e++) {
			uint32_t u = eval(fs, fs->preds[e], w + 1);
			if (semi[u] < s)
				s = semi[u];
		}
		semi[w] = s;
	}
	for (uint32_t w = 2; w <= n; w++) {
		uint32_t d = idom[w];
		while (d > semi[w])
			d = idom[d];
		idom[w] = d;
	}
}

/*
 * Preorder spans of the dominator tree: subtree sizes bottom-up (a
 * dominator has a smaller DFS number than the blocks it dominates), then
 * each child takes the next free range of its parent's, in DFS order.
 */
static void
number_tree(fast *fs, uint32_t n)
{
	uint32_t *size = fs->label, *next = fs->anc; /* free again */
	for (uint32_t w = 1; w <= n; w++)
		size[w] = 1;
	for (uint32_t w = n; w >= 2; w--)
		size[fs->idom[w]] += size[w];
	next[1] = 2;
	fs->dom_mem[fs->vertex[1]] = (domspan){ 1, size[1] };
	for (uint32_t w = 2; w <= n; w++) {
		uint32_t lo = next[fs->idom[w]];
		next[fs->idom[w]] += size[w];
		next[w] = lo + 1;
		fs->dom_mem[fs->vertex[w]] = (domspan){ lo, lo + size[w] - 1 };
	}
}

bool
fast_domtree(fast *fs)
{
	if (!successors(fs))
		return false;
	uint32_t n = number_blocks(fs);
	predecessors(fs, n);
	semi_nca(fs, n);
	number_tree(fs, n);
	return true;
}
