/*
 * layout.c -- the order of blocks in a function and of instructions in a
 * block, kept apart from the entity tables (as in Cranelift's Layout).
 *
 * Both orders are doubly-linked lists threaded through the block table and
 * the instruction layout nodes. Each placed instruction has a sequence
 * number that increases along its block, so "does a come before b" is one
 * comparison. Appending leaves gaps of SEQ_STRIDE; inserting between two
 * neighbours takes the midpoint of the gap, and only when the gap is gone
 * are the instructions around renumbered (layout_relabel: the smallest
 * range of numbers around the insert that is sparse enough is spread out
 * again, amortised O(log) an insert whatever the order of inserts).
 * Appending is inline in ir.h: the parser does it once per instruction.
 */
#include "ir.h"

void
layout_append_block(kl_func *f, uint32_t b)
{
	kl_block_data *d = &f->blocks[b];
	KL_ASSERT(!(d->flags & BLOCK_PLACED));
	d->prev = f->last_block;
	d->next = KL_NONE;
	if (f->last_block == KL_NONE)
		f->first_block = b;
	else
		f->blocks[f->last_block].next = b;
	f->last_block = b;
	d->flags |= BLOCK_PLACED;
}

void
layout_insert_block_after(kl_func *f, uint32_t b, uint32_t after)
{
	kl_block_data *d = &f->blocks[b];
	KL_ASSERT(!(d->flags & BLOCK_PLACED));
	uint32_t next = f->blocks[after].next;
	d->prev = after;
	d->next = next;
	f->blocks[after].next = b;
	if (next == KL_NONE)
		f->last_block = b;
	else
		f->blocks[next].prev = b;
	d->flags |= BLOCK_PLACED;
}

void
layout_insert_block_before(kl_func *f, uint32_t b, uint32_t before)
{
	uint32_t prev = f->blocks[before].prev;
	if (prev != KL_NONE) {
		layout_insert_block_after(f, b, prev);
		return;
	}
	/* the new first block: the entry */
	kl_block_data *d = &f->blocks[b];
	KL_ASSERT(!(d->flags & BLOCK_PLACED));
	d->prev = KL_NONE;
	d->next = before;
	f->blocks[before].prev = b;
	f->first_block = b;
	d->flags |= BLOCK_PLACED;
}

void
layout_remove_block(kl_func *f, uint32_t b)
{
	kl_block_data *d = &f->blocks[b];
	KL_ASSERT(d->flags & BLOCK_PLACED);
	if (d->prev == KL_NONE)
		f->first_block = d->next;
	else
		f->blocks[d->prev].next = d->next;
	if (d->next == KL_NONE)
		f->last_block = d->prev;
	else
		f->blocks[d->next].prev = d->prev;
	d->prev = d->next = KL_NONE;
	d->flags &= ~(uint32_t)BLOCK_PLACED;
}

/*
 * Number the count instructions from first on, in list order, evenly
 * inside the open range (base, base + size).
 */
static void
spread(kl_func *f, uint32_t first, uint64_t count, uint64_t base,
       uint64_t size)
{
	uint32_t cur = first;
	for (uint64_t k = 1; k <= count; k++, cur = f->nodes[cur].next)
		f->nodes[cur].seq = (uint32_t)(base + k * size / (count + 1));
}

/*
 * Give i, just linked in where its neighbours leave no free number, a
 * number: the order-maintenance relabelling of Bender, Cole, Demaine,
 * Farach-Colton and Zito (2002). Numbers are 32-bit; consider the
 * aligned ranges of 2, 4, ..., 2^32 numbers around i's predecessor (its
 * successor at the front of the block), count the instructions inside
 * each by walking out from i, and spread those of the smallest range
 * holding fewer than size / RELABEL_T^level of them evenly over it. A
 * range spread so has room for a share of inserts proportional to its
 * size before it is spread again, so an insert costs amortised
 * O(log size) renumberings whatever the pattern of inserts; renumbering
 * the rest of the block, as before, cost O(block) an insert once
 * repeated inserts at one place had used up its gap. RELABEL_T^32 stays
 * below SEQ_STRIDE, so that a block numbered by appending is sparse
 * enough at every level.
 */
#define RELABEL_T 1.08

void
layout_relabel(kl_func *f, uint32_t i)
{
	kl_inst_node *nd = f->nodes;
	uint32_t p = nd[i].prev, n = nd[i].next;
	if (p == KL_NONE && n == KL_NONE) {
		nd[i].seq = SEQ_STRIDE;
		return;
	}
	uint64_t at = p != KL_NONE ? nd[p].seq : nd[n].seq;
	uint32_t left = i, right = i;
	uint64_t count = 1;
	double limit = 1.0;
	for (unsigned level = 1; level <= 32; level++) {
		uint64_t size = (uint64_t)1 << level;
		uint64_t base = at & ~(size - 1);
		limit *= 2.0 / RELABEL_T;
		while (nd[left].prev != KL_NONE &&
		       nd[nd[left].prev].seq >= base) {
			left = nd[left].prev;
			count++;
		}
		while (nd[right].next != KL_NONE &&
		       nd[nd[right].next].seq < base + size) {
			right = nd[right].next;
			count++;
		}
		/* (the whole number space takes any block: count is below
		 * 2^32 as instruction numbers are) */
		if ((count < size && (double)count <= limit) || level == 32) {
			spread(f, left, count, base, size);
			return;
		}
	}
}

void
layout_insert_inst_before(kl_func *f, uint32_t i, uint32_t before)
{
	kl_inst_node *n = &f->nodes[i];
	kl_inst_node *bn = &f->nodes[before];
	KL_ASSERT(n->block == KL_NONE && bn->block != KL_NONE);
	uint32_t b = bn->block;
	n->block = b;
	n->next = before;
	n->prev = bn->prev;
	if (bn->prev == KL_NONE)
		f->blocks[b].first = i;
	else
		f->nodes[bn->prev].next = i;
	bn->prev = i;
	uint32_t lo = n->prev == KL_NONE ? 0 : f->nodes[n->prev].seq;
	uint32_t hi = bn->seq;
	if (hi - lo >= 2)
		n->seq = lo + (hi - lo) / 2;
	else
		layout_relabel(f, i);
}

void
kl_inst_remove(kl_func *f, kl_inst i)
{
	func_edited(f);
	if (i.id < f->ninsts && f->nodes[i.id].block != KL_NONE)
		layout_remove_inst(f, i.id);
}

/* May instruction i be placed (again)? Not once a pass has made one of
 * its results an alias: that value would then be defined twice. */
static bool
movable(const kl_func *f, uint32_t i)
{
	if (i >= f->ninsts)
		return false;
	for (uint32_t n = 0, nr = inst_num_results(f, i); n < nr; n++) {
		uint32_t r = inst_result(f, i, n);
		if (r >= f->nvalues || f->values[r].kind != VK_RESULT ||
		    f->values[r].def != i)
			return false;
	}
	return true;
}

static bool
placed_block(const kl_func *f, uint32_t b)
{
	return b < f->nblocks && (f->blocks[b].flags & BLOCK_PLACED);
}

kl_status
kl_inst_move_before(kl_func *f, kl_inst i, kl_inst before)
{
	func_edited(f);
	if (!movable(f, i.id) || before.id >= f->ninsts || before.id == i.id ||
	    !placed_block(f, f->nodes[before.id].block))
		return KL_ERR_INVALID;
	kl_inst_remove(f, i);
	layout_insert_inst_before(f, i.id, before.id);
	return KL_OK;
}

kl_status
kl_inst_move_to_end(kl_func *f, kl_inst i, kl_block b)
{
	func_edited(f);
	if (!movable(f, i.id) || !placed_block(f, b.id))
		return KL_ERR_INVALID;
	kl_inst_remove(f, i);
	layout_append_inst(f, i.id, b.id);
	return KL_OK;
}
