/*
 * seminca.h -- the semi-NCA dominator kernel, on depth-first numbers.
 *
 * kl_domtree_compute (domtree.c) and the verifier's fast path
 * (src/verify/fastdom.c) number the blocks and gather their predecessors
 * each from its own representation of the CFG (the general edge lists;
 * successor lists read off the terminators), then both find the
 * immediate dominators here, so there is one implementation of the
 * algorithm to trust.
 */
#ifndef KEEL_SEMINCA_H
#define KEEL_SEMINCA_H

#include <stdint.h>

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
void ana_semi_nca(uint32_t n, const uint32_t *start, const uint32_t *preds,
		  uint32_t *idom, uint32_t *anc, uint32_t *semi,
		  uint32_t *label);

#endif
