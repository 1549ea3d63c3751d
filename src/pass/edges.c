/*
 * edges.c -- edges into blocks and the blocks that can run (edges.h).
 */
#include <stdlib.h>
#include <string.h>

#include "edges.h"

static bool
placed_block(const kl_func *f, uint32_t b)
{
	return b < f->nblocks && (f->blocks[b].flags & BLOCK_PLACED);
}

/* The number of destinations of block b's terminator, *dests at them. */
static uint32_t
block_dests(const kl_func *f, uint32_t b, const uint32_t **dests)
{
	uint32_t last = f->blocks[b].last;
	*dests = NULL;
	return last == KL_NONE ? 0 : inst_dests(f, last, dests);
}

/* The block destination word d names (KL_NONE for a broken word: a pass
 * may run on IR nobody verified). */
static uint32_t
target(const kl_func *f, uint32_t d)
{
	uint32_t b, nargs;
	const uint32_t *args;
	return dest_read(&f->pool, d, &b, &args, &nargs) ? b : KL_NONE;
}

void
in_edges_collect(in_edges *e, const kl_func *f)
{
	uint32_t nb = f->nblocks;
	kl_grow(&e->start, &e->start_cap, sizeof *e->start, (uint64_t)nb + 1);
	memset(e->start, 0, ((size_t)nb + 1) * sizeof *e->start);
	/* First count the edges into each block, then fill them in, each
	 * block's from its start on; the fill moves every start to the next
	 * block's, and a shift puts them back. */
	for (int fill = 0; fill < 2; fill++) {
		for (uint32_t b = f->first_block; b != KL_NONE;
		     b = f->blocks[b].next) {
			const uint32_t *dests;
			uint32_t nd = block_dests(f, b, &dests);
			for (uint32_t d = 0; d < nd; d++) {
				uint32_t t = target(f, dests[d]);
				if (!placed_block(f, t))
					continue;
				if (!fill)
					e->start[t + 1]++;
				else
					e->edges[e->start[t]++] = (in_edge){
						b, f->blocks[b].last, d
					};
			}
		}
		if (!fill) {
			for (uint32_t b = 0; b < nb; b++)
				e->start[b + 1] += e->start[b];
			kl_grow(&e->edges, &e->edges_cap, sizeof *e->edges,
				(uint64_t)e->start[nb] + 1);
		}
	}
	memmove(e->start + 1, e->start, (size_t)nb * sizeof *e->start);
	e->start[0] = 0;
}

void
in_edges_free(in_edges *e)
{
	free(e->start);
	free(e->edges);
	*e = (in_edges){ 0 };
}

void
blocks_reached(const kl_func *f, bool *reached, uint32_t *stack)
{
	uint32_t top = 0;
	memset(reached, 0, f->nblocks * sizeof *reached);
	if (f->first_block != KL_NONE) {
		reached[f->first_block] = true;
		stack[top++] = f->first_block;
	}
	while (top) {
		const uint32_t *dests;
		uint32_t nd = block_dests(f, stack[--top], &dests);
		for (uint32_t d = 0; d < nd; d++) {
			uint32_t t = target(f, dests[d]);
			if (placed_block(f, t) && !reached[t]) {
				reached[t] = true;
				stack[top++] = t;
			}
		}
	}
}
