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
 * fast path's arena (about 40 bytes per block, reused from step to
 * step) and hold only what dominance needs. The careful phases keep
 * using src/analysis/; tests/unit/test_verify.c checks on random control
 * flow that the two agree on every use.
 *
 * A depth-first search numbers the reachable blocks in preorder and
 * gathers their predecessors as DFS numbers; the immediate dominators
 * come from the Lengauer-Tarjan kernel that kl_domtree_compute uses
 * too, and the search, the predecessors and the tree's spans from the steps the
 * promote pass's compact facts use too (src/analysis/idoms.c), so
 * none of them can disagree by algorithm. Everything is in DFS-number
 * space (1 .. n; 0 is none), without recursion or stacks. Finally a pass
 * over the tree gives every block its preorder span [lo, hi] (dom_span);
 * an unreachable block keeps [0, 0], which dominates nothing reachable.
 *
 * Nothing is trusted: the layout walk checks every link (a bitmap stops
 * cycles), every terminator and destination list is checked before it is
 * read, and any doubt ends the fast path (returns false) -- the careful
 * phases then find and report the problem. The tree is computed only
 * from the successor lists the walk found sound.
 */
#include <string.h>

#include "verify.h"

/*
 * Instruction t as a block's terminator: its destination lists (handles,
 * unchecked) if it branches. False if t is out of range, has an invalid
 * opcode, is no terminator, or has a broken list of destinations.
 */
static bool
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
 * agree; every block flagged as placed is in it; there is an entry. On
 * the way, each block's successors are read off its terminator: sound
 * destination lists naming blocks of the layout other than the entry
 * (whether a block is in the layout is known at the end).
 */
bool
fast_layout(fast *fs)
{
	const kl_func *f = fs->f;
	const unsigned both = BLOCK_EXISTS | BLOCK_PLACED;
	uint32_t prev = KL_NONE, n = 0, flagged = 0, at = 0;
	fs->entry = f->first_block;
	for (uint32_t b = f->first_block; b != KL_NONE; b = f->blocks[b].next) {
		if (b >= f->nblocks)
			return false;
		const kl_block_data *bd = &f->blocks[b];
		const uint32_t *dests, *e;
		uint32_t nd, ne, t;
		if ((bd->flags & both) != both || bit_get(fs->in_layout, b) ||
		    bd->prev != prev ||
		    !fast_terminator(fs, bd->last, &dests, &nd) ||
		    nd > fs->nedges - at)
			return false;
		bit_set(fs->in_layout, b);
		n++;
		fs->sspan[b] = (succ_span){ at, nd };
		for (uint32_t j = 0; j < nd; j++) {
			if (!vdest(f, dests[j], &t, &e, &ne) || t == fs->entry)
				return false;
			fs->succ[at++] = t;
		}
		prev = b;
	}
	if (n == 0 || f->last_block != prev)
		return false;
	/* Every block flagged as placed was met on the walk. */
	for (uint32_t b = 0; b < f->nblocks; b++)
		flagged += (f->blocks[b].flags & BLOCK_PLACED) != 0;
	if (flagged != n)
		return false;
	for (uint32_t k = 0; k < at; k++)
		if (fs->succ[k] >= fs->nblocks ||
		    !bit_get(fs->in_layout, fs->succ[k]))
			return false;
	fs->nplaced_blocks = n;
	fs->nedges = at;
	/* The predecessors go right after the successors (and idom, which
	 * takes the successors' place later, needs nblocks + 1 words). */
	fs->preds = fs->succ + (at > fs->nblocks + 1 ? at : fs->nblocks + 1);
	return true;
}

void
fast_domtree(fast *fs)
{
	if (fs->nplaced_blocks == 1) { /* the entry alone: no edge to it */
		fs->dom[fs->entry] = (dom_span){ 1, 1 };
		return;
	}
	uint32_t n = ana_dfs_number(fs->entry, fs->sspan, fs->succ, fs->dom,
				    fs->vertex, fs->anc);
	ana_dfs_preds(n, fs->sspan, fs->succ, fs->dom, fs->vertex, fs->pstart,
		      fs->preds);
	/* The successors are not needed any more: their memory takes the
	 * kernel's arrays (arena_setup sized it for them). */
	fs->semi = (uint32_t *)fs->sspan;
	fs->label = fs->semi + fs->nblocks + 1;
	fs->idom = fs->succ;
	ana_idoms(n, fs->pstart, fs->preds, fs->idom, fs->anc, fs->semi,
		     fs->label);
	/* This replaces the numbers and cursors of the reached blocks; the
	 * others keep [0, 0]. */
	ana_dom_spans(n, fs->idom, fs->vertex, fs->dom, fs->label, fs->anc);
}
