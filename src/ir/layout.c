/*
 * layout.c -- the order of blocks in a function and of instructions in a
 * block, kept apart from the entity tables (as in Cranelift's Layout).
 *
 * Both orders are doubly-linked lists threaded through the block table and
 * the instruction layout nodes. Each placed instruction has a sequence
 * number that increases along its block, so "does a come before b" is one
 * comparison. Appending leaves gaps of SEQ_STRIDE; inserting between two
 * neighbours takes the midpoint of the gap, and only when the gap is gone
 * are the following instructions renumbered, stopping as soon as the old
 * numbers are already large enough (a local repair; each renumbering
 * reopens gaps, so the amortised cost stays small). Appending is inline in
 * ir.h: the parser does it once per instruction.
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
 * Give i (just linked in) a number above its predecessor's, then push the
 * following instructions up until one already lies above its new
 * predecessor.
 */
static void
renumber_from(kl_func *f, uint32_t i)
{
	uint32_t prev = f->nodes[i].prev;
	uint32_t seq = prev == KL_NONE ? 0 : f->nodes[prev].seq;
	for (uint32_t cur = i; cur != KL_NONE; cur = f->nodes[cur].next) {
		if (cur != i && f->nodes[cur].seq > seq)
			return;
		if (seq > UINT32_MAX - SEQ_STRIDE)
			kl_fatal(__FILE__, __LINE__, __func__,
				 "block too long");
		seq += SEQ_STRIDE;
		f->nodes[cur].seq = seq;
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
		renumber_from(f, i);
}

void
kl_inst_remove(kl_func *f, kl_inst i)
{
	if (i.id < f->ninsts && f->nodes[i.id].block != KL_NONE)
		layout_remove_inst(f, i.id);
}
