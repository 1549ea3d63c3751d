/*
 * idoms.h -- the dominator kernel (Lengauer and Tarjan; idoms.c says
 * how), on depth-first numbers, and the steps around it that
 * compact dominator trees share.
 *
 * kl_domtree_compute (domtree.c) numbers the blocks and gathers their
 * predecessors from the general edge lists; the verifier's fast path
 * (src/verify/fastdom.c) and the promote pass's facts for big functions
 * (src/pass/promote_dom.c) both start from successor lists read off the
 * terminators and use the steps below (a depth-first numbering, the
 * predecessors as numbers, preorder spans of the tree). All three find
 * the immediate dominators here, so there is one implementation of each
 * step to trust.
 */
#ifndef KEEL_IDOMS_H
#define KEEL_IDOMS_H

#include <stdint.h>

/* A block's successors: succ[start .. start + n). */
typedef struct succ_span {
	uint32_t start, n;
} succ_span;

/* A block's span in a preorder of the dominator tree: its number lo and
 * the last number of the blocks it dominates, hi; lo = 0 for a block not
 * reached. a dominates b iff lo[a] <= lo[b] <= hi[a]. */
typedef struct dom_span {
	uint32_t lo, hi;
} dom_span;

/*
 * Depth-first search from entry over the successor lists: the reached
 * blocks numbered 1..n in preorder (returns n), vertex[w] the block
 * numbered w and anc[w] its parent in the search (anc[1] = 0). On entry
 * dom must be {0, 0} for every block; on return dom[b].lo is b's number
 * (0: not reached) and dom[b].hi scratch. The path being searched is the
 * chain of parents: no stack.
 */
uint32_t ana_dfs_number(uint32_t entry, const succ_span *out,
			const uint32_t *succ, dom_span *dom, uint32_t *vertex,
			uint32_t *anc);

/*
 * The predecessors of each number w the search reached, as numbers:
 * preds[start[w] .. start[w + 1]) (n + 2 words of start; preds as many
 * as the reached blocks' edges).
 */
void ana_dfs_preds(uint32_t n, const succ_span *out, const uint32_t *succ,
		   const dom_span *dom, const uint32_t *vertex,
		   uint32_t *start, uint32_t *preds);

/*
 * Immediate dominators of the vertices 1..n of a depth-first search that
 * started at vertex 1, numbered in preorder.
 *
 * In:  anc[w]: w's parent in the search (anc[1] is ignored);
 *      preds[start[w] .. start[w + 1]): w's predecessors as numbers
 *      1..n (predecessors the search did not reach left out).
 * Out: idom[w], the number of w's immediate dominator, for w in 2..n;
 *      idom[1] = 0.
 * anc, semi and label (n + 1 words each) are clobbered; idom may not
 * share memory with any of them.
 */
void ana_idoms(uint32_t n, const uint32_t *start, const uint32_t *preds,
		  uint32_t *idom, uint32_t *anc, uint32_t *semi,
		  uint32_t *label);

/*
 * The dominator tree's preorder spans, from idom by number: subtree sizes
 * bottom-up (a dominator has a smaller number than the blocks it
 * dominates), then each child takes the next free range of its
 * parent's, in number order. Sets dom[vertex[w]] for w in 1..n; size and
 * next (n + 1 words each) are scratch.
 */
void ana_dom_spans(uint32_t n, const uint32_t *idom, const uint32_t *vertex,
		   dom_span *dom, uint32_t *size, uint32_t *next);

#endif
