/*
 * pool.c -- value lists: the variable-length operand lists of instructions
 * (call and branch arguments, results of calls, jump tables) and the
 * parameter lists of blocks, all in one uint32_t array per function.
 *
 * Allocation is by power-of-two size classes, as in Cranelift's
 * entity::ListPool: a bin-k block has 2 << k slots, the first holding the
 * length (low 27 bits) and the bin (high 5 bits), the rest the elements.
 * The smallest class holds one element (Cranelift's holds three): most
 * lists are branch destinations without arguments, a lone block number,
 * and a 2-slot block halves their cost.
 * A list handle is the index of its first element, so 0 never names a
 * block and stands for the empty list. Freed blocks go on a free list per
 * bin and are reused first. Pushing into a full block moves the list to the
 * next bin, so push is amortised O(1); the handle may change, which is why
 * mutating calls take a pointer to it.
 *
 * Invariant: a handle h != 0 satisfies 1 <= h < len, data[h-1] is its
 * header, and the list's length is at most (2 << bin) - 1.
 */
#include <stdlib.h>
#include <string.h>

#include "ir.h"

#define LEN_BITS 27
#define LEN_MASK ((1u << LEN_BITS) - 1)

static uint32_t
bin_capacity(uint32_t bin)
{
	return 2u << bin; /* slots, header included */
}

static uint32_t
bin_for(uint32_t n)
{
	uint32_t bin = 0;
	while (bin_capacity(bin) < n + 1)
		bin++;
	return bin;
}

static uint32_t
header_bin(const kl_pool *p, uint32_t list)
{
	return p->data[list - 1] >> LEN_BITS;
}

static void
set_header(kl_pool *p, uint32_t list, uint32_t len, uint32_t bin)
{
	p->data[list - 1] = len | (bin << LEN_BITS);
}

/* Returns the handle of a fresh block of the bin (length not set). */
static uint32_t
alloc_block(kl_pool *p, uint32_t bin)
{
	if (bin >= POOL_BINS)
		kl_fatal(__FILE__, __LINE__, __func__, "value list too long");
	uint32_t start;
	if (p->free_head[bin]) {
		start = p->free_head[bin] - 1;
		p->free_head[bin] = p->data[start];
	} else {
		uint64_t need = (uint64_t)p->len + bin_capacity(bin);
		if (p->len == 0)
			need++; /* keep slot 0 unused: handle 0 is "empty" */
		if (p->in_arena && need > p->cap) {
			kl_grow_out(&p->data, &p->cap, sizeof *p->data, need);
			p->in_arena = false;
		} else {
			kl_grow(&p->data, &p->cap, sizeof *p->data, need);
		}
		if (p->len == 0)
			p->len = 1;
		start = p->len;
		p->len += bin_capacity(bin);
	}
	return start + 1;
}

static void
free_block(kl_pool *p, uint32_t list, uint32_t bin)
{
	uint32_t start = list - 1;
	p->data[start] = p->free_head[bin];
	p->free_head[bin] = start + 1;
}

void
pool_free_all(kl_pool *p)
{
	if (!p->in_arena)
		free(p->data);
	memset(p, 0, sizeof *p);
}

uint32_t
list_make(kl_pool *p, const uint32_t *elems, uint32_t n)
{
	if (n == 0)
		return 0;
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
		kl_fatal(__FILE__, __LINE__, __func__, "value list too long");
	if (*list == 0) {
		*list = list_make(p, NULL, n);
		return p->data + *list;
	}
	uint32_t bin = header_bin(p, *list);
	if (len + n + 1 > bin_capacity(bin)) {
		uint32_t nbin = bin_for(len + n);
		uint32_t h = alloc_block(p, nbin);
		memcpy(p->data + h, p->data + *list, len * sizeof *p->data);
		free_block(p, *list, bin);
		*list = h;
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
list_insert(kl_pool *p, uint32_t *list, uint32_t i, uint32_t v)
{
	uint32_t len = list_len(p, *list);
	KL_ASSERT(i <= len);
	list_extend(p, list, 1);
	uint32_t *e = p->data + *list;
	memmove(e + i + 1, e + i, (len - i) * sizeof *e);
	e[i] = v;
}

void
list_remove(kl_pool *p, uint32_t *list, uint32_t i)
{
	uint32_t len = list_len(p, *list);
	KL_ASSERT(i < len);
	uint32_t *e = p->data + *list;
	memmove(e + i, e + i + 1, (len - i - 1) * sizeof *e);
	if (len == 1) {
		free_block(p, *list, header_bin(p, *list));
		*list = 0;
		return;
	}
	set_header(p, *list, len - 1, header_bin(p, *list));
}

void
list_free(kl_pool *p, uint32_t list)
{
	if (list)
		free_block(p, list, header_bin(p, list));
}
