/*
 * pool.c -- value lists: the variable-length operand lists of instructions
 * (call and branch arguments, results of calls, jump tables) and the
 * parameter lists of blocks, all in one uint32_t array per function.
 *
 * Allocation is by size classes (bins), as in Cranelift's
 * entity::ListPool, but finer at the small end, where nearly all lists
 * are: a block has bin_slots[bin] slots, the first holding the length
 * (low 27 bits) and the bin (high 5 bits), the rest the elements. The
 * bins hold exactly 1 to 7 elements (2 to 8 slots), then 11, 15, and
 * from 31 on 2^k - 1; so a list of the usual sizes (a branch target and
 * its few arguments, a call's arguments, select's three operands) wastes
 * no slot, and growth past 8 slots is geometric, which keeps push
 * amortised O(1). The capacity is a function of the bin, so it costs no
 * extra word. The smallest bin holds one element (Cranelift's holds
 * three): most lists are branch destinations without arguments, a lone
 * block number.
 *
 * A list handle is the index of its first element, so 0 never names a
 * block and stands for the empty list. Freed blocks go on a free list per
 * bin and are reused first. Pushing into a full block moves the list to a
 * bigger bin, and the handle changes, which is why mutating calls take a
 * pointer to it -- except when the block is the last one in the pool:
 * then it grows in place. That is the common case while a list is being
 * built (the parser pushes a block's parameters and a call's results one
 * at a time), and it leaves no freed block behind. Likewise a freed block
 * at the end of the pool gives its slots back instead of going on a free
 * list.
 *
 * Invariant: a handle h != 0 satisfies 1 <= h < len, data[h-1] is its
 * header, and the list's length is at most bin_slots[bin] - 1. The
 * verifier relies on the header's layout and on bin_slots[bin] <=
 * 4 << bin (src/verify/verify.h, vlist).
 */
#include <stdlib.h>
#include <string.h>

#include "ir.h"

#define LEN_BITS 27
#define LEN_MASK ((1u << LEN_BITS) - 1)

/* Slots per block, header included; bin 31 holds the longest list the
 * 27-bit length allows. */
static const uint32_t bin_slots[POOL_BINS] = {
	2, 3, 4, 5, 6, 7, 8, 12, 16, 1u << 5, 1u << 6, 1u << 7, 1u << 8,
	1u << 9, 1u << 10, 1u << 11, 1u << 12, 1u << 13, 1u << 14, 1u << 15,
	1u << 16, 1u << 17, 1u << 18, 1u << 19, 1u << 20, 1u << 21, 1u << 22,
	1u << 23, 1u << 24, 1u << 25, 1u << 26, 1u << 27,
};

_Static_assert(POOL_BINS == 32, "the bin must fit the header's 5 bits");
_Static_assert(LIST_MAX_LEN == LEN_MASK - 1, "ir.h's list limit is this");

/* The smallest bin whose blocks hold n elements (n >= 1). */
static uint32_t
bin_for(uint32_t n)
{
	if (n <= 7)
		return n - 1;
	uint32_t bin = 7;
	while (bin_slots[bin] < n + 1)
		bin++;
	return bin;
}

static uint32_t
header_bin(const kl_pool *p, uint32_t list)
{
	return p->data[list - 1] >> LEN_BITS;
}

uint32_t
list_slots(const kl_pool *p, uint32_t list)
{
	return list ? bin_slots[header_bin(p, list)] : 0;
}

static void
set_header(kl_pool *p, uint32_t list, uint32_t len, uint32_t bin)
{
	p->data[list - 1] = len | (bin << LEN_BITS);
}

/* Grow the array to hold need slots (more than it has). Apart from
 * reserve: a list is made or moved at every branch argument a pass adds,
 * and its common path, with room, must stay a compare. */
static KL_NOINLINE void
grow(kl_pool *p, uint64_t need)
{
	/* Handles stay below DEST_BLOCK, which marks a destination word
	 * holding a block instead (ir.h). */
	if (need > DEST_BLOCK)
		kl_out_of_room(__FILE__, __LINE__, __func__,
			       "value list pool full");
	if (p->arena) {
		if (!kl_arena_grow(p->arena, &p->data, &p->cap,
				   sizeof *p->data, need, ARENA_TABLE_MAX))
			p->arena = NULL;
	} else {
		kl_grow(&p->data, &p->cap, sizeof *p->data, need);
	}
}

/* Make the array hold need slots. */
static inline void
reserve(kl_pool *p, uint64_t need)
{
	if (KL_UNLIKELY(need > p->cap))
		grow(p, need);
}

/* Returns the handle of a fresh block of the bin (length not set). */
static inline uint32_t
alloc_block(kl_pool *p, uint32_t bin)
{
	KL_ASSERT(bin < POOL_BINS);
	uint32_t start = p->free_head[bin];
	if (start) {
		start--;
		p->free_head[bin] = p->data[start];
	} else {
		reserve(p, (uint64_t)p->len + bin_slots[bin]);
		start = p->len;
		p->len += bin_slots[bin];
	}
	return start + 1;
}

static void
free_block(kl_pool *p, uint32_t list, uint32_t bin)
{
	uint32_t start = list - 1;
	if (start + bin_slots[bin] == p->len) {
		p->len = start;
		return;
	}
	p->data[start] = p->free_head[bin];
	p->free_head[bin] = start + 1;
}

void
pool_make_room(kl_pool *p, uint64_t extra)
{
	reserve(p, (uint64_t)p->len + extra);
}

void
pool_free_all(kl_pool *p)
{
	if (!p->arena)
		free(p->data);
	memset(p, 0, sizeof *p);
}

uint32_t
list_make(kl_pool *p, const uint32_t *elems, uint32_t n)
{
	if (n == 0)
		return 0;
	if (n > LEN_MASK - 1)
		kl_out_of_room(__FILE__, __LINE__, __func__,
			       "value list too long");
	uint32_t bin = bin_for(n);
	uint32_t h = alloc_block(p, bin);
	set_header(p, h, n, bin);
	if (elems)
		memcpy(p->data + h, elems, n * sizeof *elems);
	return h;
}

uint32_t *
list_extend(kl_pool *p, uint32_t *list, uint32_t n)
{
	uint32_t len = list_len(p, *list);
	if (n == 0)
		return NULL;
	if ((uint64_t)len + n > LEN_MASK - 1)
		kl_out_of_room(__FILE__, __LINE__, __func__,
			       "value list too long");
	if (*list == 0) {
		*list = list_make(p, NULL, n);
		return p->data + *list;
	}
	uint32_t bin = header_bin(p, *list);
	if (len + n + 1 > bin_slots[bin]) {
		uint32_t nbin = bin_for(len + n);
		uint32_t start = *list - 1;
		if (start + bin_slots[bin] == p->len) {
			reserve(p, (uint64_t)start + bin_slots[nbin]);
			p->len = start + bin_slots[nbin];
		} else {
			uint32_t h = alloc_block(p, nbin);
			memcpy(p->data + h, p->data + *list,
			       len * sizeof *p->data);
			free_block(p, *list, bin);
			*list = h;
		}
		bin = nbin;
	}
	set_header(p, *list, len + n, bin);
	return p->data + *list + len;
}

void
list_push(kl_pool *p, uint32_t *list, uint32_t v)
{
	*list_extend(p, list, 1) = v;
}

void
list_truncate(kl_pool *p, uint32_t *list, uint32_t n)
{
	uint32_t len = list_len(p, *list);
	KL_ASSERT(n <= len);
	if (n == len)
		return;
	if (n == 0) {
		free_block(p, *list, header_bin(p, *list));
		*list = 0;
		return;
	}
	set_header(p, *list, n, header_bin(p, *list));
}

void
list_free(kl_pool *p, uint32_t list)
{
	if (list)
		free_block(p, list, header_bin(p, list));
}
