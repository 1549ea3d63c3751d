/*
 * util.c -- allocation wrappers, fatal errors and small helpers.
 *
 * kl_fatal is the only place in libkeel that writes to stderr or aborts; it
 * is reached on allocation failure and on internal assertion failures (bugs
 * in keel), never on user input.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

void
kl_fatal(const char *file, int line, const char *func, const char *msg)
{
	fprintf(stderr, "keel: internal error at %s:%d (%s): %s\n", file, line,
		func, msg);
	abort();
}

void *
kl_malloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		kl_fatal(__FILE__, __LINE__, __func__, "out of memory");
	return p;
}

void *
kl_calloc(size_t count, size_t size)
{
	void *p = calloc(count ? count : 1, size ? size : 1);
	if (!p)
		kl_fatal(__FILE__, __LINE__, __func__, "out of memory");
	return p;
}

void *
kl_realloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		kl_fatal(__FILE__, __LINE__, __func__, "out of memory");
	return q;
}

char *
kl_strndup(const char *s, size_t n)
{
	char *d = kl_malloc(n + 1);
	memcpy(d, s, n);
	d[n] = 0;
	return d;
}

void
kl_grow(void *p, uint32_t *cap, size_t elem_size, uint64_t need)
{
	void **pp = p;
	uint64_t c = *cap;
	if (need <= c)
		return;
	if (need > UINT32_MAX - 1)
		kl_fatal(__FILE__, __LINE__, __func__, "table too large");
	c = c < 8 ? 8 : c;
	while (c < need)
		c *= 2;
	if (c > UINT32_MAX - 1)
		c = UINT32_MAX - 1;
	*pp = kl_realloc(*pp, (size_t)c * elem_size);
	*cap = (uint32_t)c;
}

uint64_t
kl_hash_bytes(const void *data, size_t n)
{
	const unsigned char *s = data;
	uint64_t h = 0xcbf29ce484222325u;
	for (size_t i = 0; i < n; i++) {
		h ^= s[i];
		h *= 0x100000001b3u;
	}
	return h;
}

uint32_t
kl_pow2_ceil(uint32_t x)
{
	uint32_t p = 1;
	while (p < x)
		p <<= 1;
	return p;
}
