/*
 * promote_tiny.c -- the dominance facts of a small function as bit sets.
 *
 * Most functions have a handful of blocks. For them the generic analyses
 * (src/analysis: a CFG of edge lists, a dominator tree by Lengauer and
 * Tarjan with Euler-tour times, frontier sets) cost more than
 * everything else the pass does per block: about 2,000 instructions for
 * a function of four blocks, mostly per-call setup and results the pass
 * never reads. With at most 64 blocks, a set of blocks is one 64-bit
 * word, and every fact the pass needs comes from a few passes over the
 * blocks:
 *
 *   successors and predecessors  one word each, read off the terminators
 *   reachability, dominators     the dataflow equations on the words,
 *                                along the layout (one pass when no
 *                                edge goes back in it)
 *   the tree                     idom: the strict dominator that every
 *                                other one dominates; children chained
 *                                in layout order; preorder numbers
 *   frontiers                    bottom-up along the tree: the
 *                                successors of a block's subtree that
 *                                the block does not strictly dominate
 *
 * Only for verified IR, whose branches are the blocks' last instructions.
 * The results agree with the generic
 * analyses fact for fact, but for the preorder, which is one of the
 * tree's preorders, not necessarily theirs (tests/unit/test_promote_tiny.c
 * checks them on random functions).
 */
#include "promote.h"

static inline uint64_t
bit(uint32_t b)
{
	return (uint64_t)1 << b;
}

/* Predecessor sets and edge counts from the terminators, and each placed
 * block's successors in succ. */
static void
read_edges(tiny_cfg *t, const kl_func *f, uint64_t *succ)
{
	for (uint32_t b = f->first_block; b != KL_NONE; b = f->blocks[b].next) {
		uint32_t i = f->blocks[b].last;
		succ[b] = 0;
		if (i == KL_NONE)
			continue;
		const uint32_t *dests;
		uint32_t n = inst_dests(f, i, &dests);
		for (uint32_t k = 0; k < n; k++) {
			uint32_t s = dest_block(&f->pool, dests[k]);
			if (!ana_block_placed(f, s))
				continue;
			succ[b] |= bit(s);
			t->b[s].pred |= bit(b);
			t->b[s].npreds++;
		}
	}
}

/*
 * The reachable blocks and their dominators: the dataflow equations on
 * the words, along the layout, until nothing changes. A block joins the
 * reachable ones when a predecessor has; a predecessor not reached yet
 * counts as every block (the equations' usual start), so the result is
 * their greatest solution, the dominators. When every block's
 * predecessors come before it in the layout, the first pass is exact;
 * else (a loop, a block laid out before its predecessor) passes repeat
 * until one changes nothing. No search for an order first: the layout
 * of most functions is close to one.
 */
static void
dominators(tiny_cfg *t, const kl_func *f)
{
	tiny_block *tb = t->b;
	uint32_t entry = t->entry;
	uint64_t reach = bit(entry);
	tb[entry].dom = bit(entry);
	bool changed, backward = false;
	do {
		changed = false;
		uint64_t done = bit(entry);
		for (uint32_t b = f->blocks[entry].next; b != KL_NONE;
		     b = f->blocks[b].next) {
			uint64_t ps = tb[b].pred & reach;
			backward |= (tb[b].pred & ~done) != 0;
			done |= bit(b);
			if (!ps)
				continue;
			uint64_t d = ~(uint64_t)0;
			for (uint64_t m = ps; m; m &= m - 1)
				d &= tb[kl_ctz64(m)].dom;
			d |= bit(b);
			changed |= d != tb[b].dom;
			tb[b].dom = d;
			reach |= bit(b);
		}
	} while (changed && backward);
	t->reach = reach;
}

/*
 * The tree: idoms (the strict dominator every other one dominates),
 * children in layout order, preorder numbers; then bottom-up the blocks
 * each one dominates and its frontier. DF(x) is every successor of a
 * block x dominates that x does not strictly dominate (Cytron et al.'s
 * definition): the successors of x's subtree, gathered on the same way
 * up, minus the subtree below x. No loop over predecessors and up the
 * tree, and no branch on the shape of the graph.
 */
static void
tree(tiny_cfg *t, const kl_func *f, const uint64_t *succ)
{
	tiny_block *tb = t->b;
	/* Backwards along the layout, so that children chain in layout
	 * order; a block's idom is known from its dominators alone. */
	for (uint32_t b = f->last_block; b != KL_NONE; b = f->blocks[b].prev) {
		if (b == t->entry || !(t->reach & bit(b)))
			continue;
		uint64_t strict = tb[b].dom & ~bit(b);
		uint64_t c = strict;
		while (c && tb[kl_ctz64(c)].dom != strict)
			c &= c - 1;
		KL_ASSERT(c != 0); /* dominators form a chain */
		uint32_t p = kl_ctz64(c);
		tb[b].idom = (uint8_t)p;
		tb[b].sibling = tb[p].child;
		tb[p].child = (uint8_t)b;
	}
	/* Preorder without a stack: down to the first child, else across
	 * to the next sibling of the nearest ancestor that has one. */
	uint8_t *order = t->order;
	uint64_t below_succ[TINY_BLOCKS]; /* for the frontiers, below */
	uint32_t b = t->entry, n = 0;
	for (;;) {
		tb[b].pre = (uint8_t)n;
		order[n++] = (uint8_t)b;
		below_succ[b] = succ[b];
		if (tb[b].child != TINY_NONE) {
			b = tb[b].child;
			continue;
		}
		while (b != t->entry && tb[b].sibling == TINY_NONE)
			b = tb[b].idom;
		if (b == t->entry)
			break;
		b = tb[b].sibling;
	}
	t->nreach = n;
	/* Descendants come after their ancestors in preorder: backwards,
	 * a block's subtree is complete when it is reached. A reachable
	 * block's successors are reachable; the entry adds to itself. */
	while (n-- > 0) {
		b = order[n];
		uint64_t below = tb[b].below | bit(b);
		tb[b].below = below;
		tb[b].df = below_succ[b] & ~(below & ~bit(b));
		uint32_t up = b != t->entry ? tb[b].idom : b;
		tb[up].below |= below;
		below_succ[up] |= below_succ[b];
	}
}

void
promote_tiny_compute(tiny_cfg *t, const kl_func *f)
{
	uint32_t nb = f->nblocks;
	KL_ASSERT(nb <= TINY_BLOCKS && f->first_block != KL_NONE);
	uint64_t succ[TINY_BLOCKS];
	for (uint32_t b = 0; b < nb; b++)
		t->b[b] = (tiny_block){ .idom = TINY_NONE,
					.child = TINY_NONE,
					.sibling = TINY_NONE };
	t->entry = f->first_block;
	read_edges(t, f, succ);
	dominators(t, f);
	tree(t, f, succ);
}
