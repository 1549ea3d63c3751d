/*
 * emit_asm_order.c -- the order blocks are emitted in (emit_asm.h).
 *
 * A reverse post-order of the blocks the entry reaches (a depth-first
 * walk that takes a block's exits from its innermost loop first, which
 * keeps a loop's blocks close already), then grouped by loops: each
 * loop's blocks together, as a range, where its header was. Blocks no
 * walk reaches come last, in layout order. The allocator's intervals
 * lean on that order (emit_asm_alloc.c): a block comes after its
 * dominators and after the blocks with a forward edge to it, and a
 * value live around a loop is live over the loop's range. asm_order
 * checks the ranges, and that there is no irreducible region (whose
 * cycles no header enters), and says whether they hold.
 */
#include "emit_asm.h"

/* The depth-first walk's next successor of b, by its state k (exits
 * first, then the others), or KL_NO_BLOCK when none is left. */
static kl_block
next_succ(asm_func *c, kl_block b, uint32_t *k)
{
	uint32_t n = kl_cfg_num_succs(c->cfg, b);
	kl_loop lb = kl_loops_innermost(c->loops, b);
	while (*k < 2 * n) {
		uint32_t at = *k % n, pass = *k / n;
		(*k)++;
		kl_block s = kl_cfg_succ(c->cfg, b, at);
		bool exit = lb.id != KL_NONE &&
			    !kl_loop_contains(c->loops, lb, s);
		if (exit == (pass == 0))
			return s;
	}
	return KL_NO_BLOCK;
}

/* Are the loops ranges of the order? */
static bool
loops_are_ranges(asm_func *c, const uint32_t *index)
{
	uint32_t nloops = kl_loops_count(c->loops);
	if (kl_loops_num_irreducible(c->loops))
		return false;
	if (!nloops)
		return true;
	uint32_t *lo = kl_malloc(nloops * sizeof *lo);
	uint32_t *hi = kl_calloc(nloops, sizeof *hi);
	uint32_t *size = kl_calloc(nloops, sizeof *size);
	for (uint32_t l = 0; l < nloops; l++)
		lo[l] = UINT32_MAX;
	for (uint32_t k = 0; k < c->norder; k++) {
		kl_loop l = kl_loops_innermost(c->loops, c->order[k]);
		if (l.id == KL_NONE)
			continue;
		uint32_t at = index[c->order[k].id];
		lo[l.id] = at < lo[l.id] ? at : lo[l.id];
		hi[l.id] = at > hi[l.id] ? at : hi[l.id];
		size[l.id]++;
	}
	/* children are numbered after their parents: fold upwards */
	bool ok = true;
	for (uint32_t l = nloops; l-- > 0;) {
		if (size[l] && hi[l] - lo[l] + 1 != size[l])
			ok = false;
		kl_loop p = kl_loop_parent(c->loops, (kl_loop){ l });
		if (p.id == KL_NONE || !size[l])
			continue;
		lo[p.id] = lo[l] < lo[p.id] ? lo[l] : lo[p.id];
		hi[p.id] = hi[l] > hi[p.id] ? hi[l] : hi[p.id];
		size[p.id] += size[l];
	}
	free(lo);
	free(hi);
	free(size);
	return ok;
}

/* Group the reverse post-order rpo[0..n) by loops: a loop's blocks
 * move up to where its header is, its own blocks and its child loops'
 * (grouped in turn) in the order they had. That keeps every forward
 * edge's direction: a loop is entered only at its header, whose
 * predecessors outside it come before it already, and a block a loop
 * exits to stays after the header, so after the whole loop. Items of a
 * region (0: the function, 1 + l: loop l) are blocks (id << 1) and
 * child loops (l << 1 | 1). */
static void
group_by_loops(asm_func *c, kl_block *rpo, uint32_t n)
{
	const kl_loops *lf = c->loops;
	uint32_t nloops = kl_loops_count(lf);
	if (!nloops)
		return;
	uint32_t *first = kl_calloc(nloops + 3, sizeof *first);
	uint32_t *items = kl_malloc(((size_t)n + nloops + 1) * sizeof *items);
#define REGION(l) ((l).id == KL_NONE ? 0 : (l).id + 1)
	/* each region's count, then where its items begin */
	for (uint32_t k = 0; k < n; k++)
		first[REGION(kl_loops_innermost(lf, rpo[k])) + 1]++;
	for (uint32_t l = 0; l < nloops; l++)
		first[REGION(kl_loop_parent(lf, (kl_loop){ l })) + 1]++;
	for (uint32_t r = 0; r <= nloops; r++)
		first[r + 1] += first[r];
	uint32_t *fill = kl_malloc((nloops + 2) * sizeof *fill);
	memcpy(fill, first, (nloops + 2) * sizeof *fill);
	for (uint32_t k = 0; k < n; k++) {
		kl_block b = rpo[k];
		/* the loops b heads, innermost first, enter their parents */
		for (kl_loop l = kl_loops_innermost(lf, b);
		     l.id != KL_NONE && kl_loop_header(lf, l).id == b.id;
		     l = kl_loop_parent(lf, l))
			items[fill[REGION(kl_loop_parent(lf, l))]++] =
				l.id << 1 | 1;
		items[fill[REGION(kl_loops_innermost(lf, b))]++] = b.id << 1;
	}
#undef REGION
	/* out in order, regions entered through a stack */
	uint32_t *stack = kl_malloc((nloops + 2) * sizeof *stack);
	uint32_t depth = 0, out = 0;
	stack[depth++] = 0;
	fill[0] = first[0];
	for (uint32_t r = 1; r <= nloops; r++)
		fill[r] = first[r];
	while (depth) {
		uint32_t r = stack[depth - 1];
		if (fill[r] == first[r + 1]) {
			depth--;
			continue;
		}
		uint32_t item = items[fill[r]++];
		if (item & 1)
			stack[depth++] = (item >> 1) + 1;
		else
			rpo[out++] = (kl_block){ item >> 1 };
	}
	free(stack);
	free(fill);
	free(items);
	free(first);
}

void
asm_order(asm_func *c)
{
	const kl_func *f = c->f;
	c->cfg = kl_cfg_new();
	kl_cfg_compute(c->cfg, f);
	c->dt = kl_domtree_new();
	kl_domtree_compute(c->dt, f, c->cfg);
	c->loops = kl_loops_new();
	kl_loops_compute(c->loops, f, c->cfg, c->dt);
	uint32_t nblocks = kl_func_block_bound(f);
	c->order = kl_malloc((nblocks + 1) * sizeof *c->order);
	uint8_t *seen = kl_calloc(nblocks + 1, 1);
	kl_block *stack = kl_malloc((nblocks + 1) * sizeof *stack);
	uint32_t *state = kl_malloc((nblocks + 1) * sizeof *state);
	uint32_t depth = 0, npost = 0;
	kl_block entry = kl_func_first_block(f);
	if (entry.id != KL_NONE) {
		stack[depth] = entry;
		state[depth++] = 0;
		seen[entry.id] = 1;
	}
	while (depth) {
		kl_block b = stack[depth - 1];
		kl_block s = next_succ(c, b, &state[depth - 1]);
		if (s.id == KL_NONE) {
			c->order[npost++] = b;
			depth--;
		} else if (!seen[s.id]) {
			seen[s.id] = 1;
			stack[depth] = s;
			state[depth++] = 0;
		}
	}
	for (uint32_t k = 0; k < npost / 2; k++) {
		kl_block t = c->order[k];
		c->order[k] = c->order[npost - 1 - k];
		c->order[npost - 1 - k] = t;
	}
	group_by_loops(c, c->order, npost);
	c->norder = npost;
	for (kl_block b = entry; b.id != KL_NONE; b = kl_block_next(f, b))
		if (!seen[b.id])
			c->order[c->norder++] = b;
	uint32_t *index = kl_malloc((nblocks + 1) * sizeof *index);
	for (uint32_t k = 0; k < c->norder; k++)
		index[c->order[k].id] = k;
	c->loops_are_ranges = loops_are_ranges(c, index);
	free(index);
	free(seen);
	free(stack);
	free(state);
}

void
asm_order_free(asm_func *c)
{
	free(c->order);
	kl_loops_free(c->loops);
	kl_domtree_free(c->dt);
	kl_cfg_free(c->cfg);
}
