/*
 * edges.h -- the control-flow facts passes read off the terminators
 * themselves: which branch destination leads into each block, and which
 * blocks can run.
 *
 * kl_cfg (src/analysis) names a predecessor block and its branch; a pass
 * that edits branch arguments needs the destination too, since a br_table
 * may name one block several times, with other arguments each time.
 */
#ifndef KEEL_PASS_EDGES_H
#define KEEL_PASS_EDGES_H

#include "../ir/ir.h"

/* An edge into a block: destination d of branch inst, in block src. */
typedef struct in_edge {
	uint32_t src, inst, d;
} in_edge;

/* The edges into every block: those into block b are edges[start[b] ..
 * start[b + 1]), in the layout order of their branches. The arrays are
 * kept from one in_edges_collect to the next and grown as needed. */
typedef struct in_edges {
	uint32_t *start; /* nblocks + 1 */
	in_edge *edges;
	uint32_t start_cap, edges_cap;
} in_edges;

/* Fill e from the terminators of f's placed blocks, counting only
 * destinations that are placed blocks: O(blocks + edges). */
void in_edges_collect(in_edges *e, const kl_func *f);
void in_edges_free(in_edges *e);

/* Set reached[b], for every block b < nblocks, to whether the entry block
 * reaches b along branches to placed blocks; stack has room for nblocks
 * entries. O(blocks + edges). */
void blocks_reached(const kl_func *f, bool *reached, uint32_t *stack);

#endif /* KEEL_PASS_EDGES_H */
