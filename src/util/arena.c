/*
 * arena.c -- a scratch arena for passes and analyses: bump allocation from
 * a chunk, everything released at once by kl_arena_reset.
 *
 * Reset keeps the largest chunk, so a pass run over many functions of a
 * module settles on one chunk big enough for the largest function and then
 * allocates nothing from malloc at all.
 */
#include <stdlib.h>
#include <string.h>

#include "util.h"

typedef struct arena_chunk {
	struct arena_chunk *prev;
	size_t cap;
	/* followed by the memory */
} arena_chunk;

#define CHUNK_HEAD ((sizeof(arena_chunk) + 15) & ~(size_t)15)

/*
 * A chunk of at least *cap bytes (the usable size is written back), on a
 * 16-byte boundary: malloc gives 8 on 32-bit ARM, and the allocations
 * promise 16. A big chunk starts on a huge-page boundary and fills whole
 * huge pages, so that every byte of it can be backed by huge pages: a
 * page fault costs over 10 us on this project's machines, and a module's
 * tables are tens of MB.
 */
static arena_chunk *
new_chunk(size_t *cap)
{
	if (*cap > SIZE_MAX / 2) /* (the sizes below would wrap) */
		kl_out_of_room(__FILE__, __LINE__, __func__, "out of memory");
	size_t n = CHUNK_HEAD + *cap; /* a multiple of 16, as *cap is */
	size_t align = n >= 2 * KL_HUGE_PAGE ? KL_HUGE_PAGE : 16;
	n = (n + align - 1) & ~(align - 1);
	void *c = aligned_alloc(align, n);
	if (!c)
		kl_out_of_room(__FILE__, __LINE__, __func__, "out of memory");
	if (align == KL_HUGE_PAGE)
		kl_advise_huge(c, n);
	*cap = n - CHUNK_HEAD;
	return c;
}

/* n rounded up to 16; more than a quarter of the address space is out of
 * memory (a size near SIZE_MAX would wrap to a small one). */
static size_t
rounded(size_t n)
{
	if (n > SIZE_MAX / 4)
		kl_out_of_room(__FILE__, __LINE__, __func__, "out of memory");
	return (n + 15) & ~(size_t)15;
}

void *
kl_arena_alloc(kl_arena *a, size_t n)
{
	n = rounded(n);
	if (!a->chunk || a->used + n > a->chunk->cap) {
		/* Twice the last chunk (new_chunk refuses what is too big),
		 * or as big as n: n <= SIZE_MAX / 4, so cap cannot wrap. */
		size_t cap = a->chunk ? a->chunk->cap : 32 * 1024;
		if (cap <= SIZE_MAX / 2)
			cap *= 2;
		while (cap < n)
			cap *= 2;
		arena_chunk *c = new_chunk(&cap);
		c->prev = a->chunk;
		c->cap = cap;
		a->chunk = c;
		a->used = 0;
	}
	void *p = (char *)a->chunk + CHUNK_HEAD + a->used;
	a->used += n;
	return p;
}

void
kl_arena_reserve(kl_arena *a, size_t n)
{
	n = rounded(n);
	if (a->chunk && a->used + n <= a->chunk->cap)
		return;
	size_t cap = n;
	arena_chunk *c = new_chunk(&cap);
	c->prev = a->chunk;
	c->cap = cap;
	a->chunk = c;
	a->used = 0;
}

void *
kl_arena_zalloc(kl_arena *a, size_t n)
{
	void *p = kl_arena_alloc(a, n);
	memset(p, 0, n);
	return p;
}

bool
kl_arena_grow(kl_arena *a, void *p, uint32_t *cap, size_t elem_size,
	      uint64_t need, size_t max)
{
	if (need <= *cap)
		return true;
	uint32_t c = kl_grown_cap(*cap, need);
	size_t bytes = kl_table_bytes(c, elem_size);
	if (bytes > max) {
		kl_grow_out(p, cap, elem_size, need);
		return false;
	}
	void **pp = p;
	void *q = kl_arena_alloc(a, bytes);
	if (*cap)
		memcpy(q, *pp, (size_t)*cap * elem_size);
	*pp = q;
	*cap = c;
	return true;
}

void
kl_arena_reset(kl_arena *a)
{
	if (!a->chunk)
		return;
	/* Keep the largest chunk, free the others. (The newest is the
	 * largest, unless kl_arena_reserve made a smaller one after it.) */
	arena_chunk *keep = a->chunk;
	for (arena_chunk *c = keep->prev; c; c = c->prev)
		if (c->cap > keep->cap)
			keep = c;
	for (arena_chunk *c = a->chunk; c;) {
		arena_chunk *prev = c->prev;
		if (c != keep)
			free(c);
		c = prev;
	}
	keep->prev = NULL;
	a->chunk = keep;
	a->used = 0;
}

void
kl_arena_free(kl_arena *a)
{
	kl_arena_reset(a);
	free(a->chunk);
	a->chunk = NULL;
	a->used = 0;
}
