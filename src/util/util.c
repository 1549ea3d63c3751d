/*
 * util.c -- allocation wrappers, fatal errors and small helpers.
 *
 * kl_fatal is the only place in libkeel that writes to stderr or aborts; it
 * is reached on allocation failure and on internal assertion failures (bugs
 * in keel), never on user input.
 */
#define _DEFAULT_SOURCE /* madvise and MADV_HUGEPAGE */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

#include "util.h"

const char kl_hex_digits[17] = "0123456789abcdef";

/*
 * Large tables (a million-instruction function has ~60 MB of them) are
 * touched page by page as they fill; on Linux, asking for transparent huge
 * pages cuts the page faults, which dominate the cost of building big IR,
 * by a factor of several hundred. A hint only: nothing depends on it.
 */
void
kl_advise_huge(void *p, size_t n)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
	const uintptr_t huge = KL_HUGE_PAGE;
	if (n < huge)
		return;
	uintptr_t lo = ((uintptr_t)p + huge - 1) & ~(huge - 1);
	uintptr_t hi = ((uintptr_t)p + n) & ~(huge - 1);
	if (hi > lo)
		madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
	(void)p;
	(void)n;
#endif
}

/*
 * On this project's machines (VMs) the first write to a 4 KB page costs
 * about 10 us through a page fault. Populating a range by one madvise
 * costs about 1.5 us a call and 0.4 us a page, and the first write after
 * it about 4.5 us a page more (the hypervisor's share, which no guest call
 * avoids): half the cost, from the second page on.
 */
void
kl_prefault(void *p, size_t n)
{
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
	if (n < ((size_t)8 << 10))
		return;
	long page = sysconf(_SC_PAGESIZE); /* from the auxiliary vector */
	if (page <= 0)
		return;
	uintptr_t lo = ((uintptr_t)p + page - 1) & ~((uintptr_t)page - 1);
	uintptr_t hi = ((uintptr_t)p + n) & ~((uintptr_t)page - 1);
	if (hi > lo)
		(void)madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
#else
	(void)p;
	(void)n;
#endif
}

/* n rounded up to whole huge pages; a size that would wrap (near
 * SIZE_MAX, to 0) is out of memory. */
static size_t
whole_huge_pages(size_t n)
{
	if (n > SIZE_MAX - KL_HUGE_PAGE)
		kl_out_of_room(__FILE__, __LINE__, __func__, "out of memory");
	return (n + KL_HUGE_PAGE - 1) & ~(KL_HUGE_PAGE - 1);
}

void *
kl_alloc_table(size_t n)
{
	const size_t huge = KL_HUGE_PAGE;
	if (n < huge / 2) {
		/* Filled at once: faulted in by one call (from 8 KB). */
		void *q = kl_malloc(n);
		kl_prefault(q, n);
		return q;
	}
	/* From 1 MB, the rounding to a whole huge page wastes less than the
	 * page faults it saves (a few hundred at ~10 us each). */
	size_t cap = whole_huge_pages(n);
	void *q = aligned_alloc(huge, cap);
	if (!q)
		kl_out_of_room(__FILE__, __LINE__, __func__, "out of memory");
	kl_advise_huge(q, cap);
	return q;
}

void *
kl_realloc_table(void *p, size_t old, size_t n)
{
	const size_t huge = KL_HUGE_PAGE;
	if (n <= old)
		return kl_realloc(p, n);
	if (n < huge / 2) {
		/* A table that grows is being filled: the part it grows by
		 * is faulted in by one call. (A first allocation may be a
		 * loose bound: left to the caller.) */
		char *q = kl_realloc(p, n);
		if (old)
			kl_prefault(q + old, n - old);
		return q;
	}
	/*
	 * realloc would keep the table where it is or move it anywhere, half
	 * of its huge pages then straddling 4 KB ones; a copy to a huge-page
	 * boundary costs less than the page faults it saves.
	 */
	size_t cap = whole_huge_pages(n);
	void *q = aligned_alloc(huge, cap);
	if (!q)
		kl_out_of_room(__FILE__, __LINE__, __func__, "out of memory");
	kl_advise_huge(q, cap);
	if (old)
		memcpy(q, p, old);
	free(p);
	return q;
}

void
kl_fatal(const char *file, int line, const char *func, const char *msg)
{
	fprintf(stderr, "keel: internal error at %s:%d (%s): %s\n", file, line,
		func, msg);
	abort();
}

void
kl_out_of_room(const char *file, int line, const char *func, const char *what)
{
	fprintf(stderr, "keel: %s (%s at %s:%d)\n", what, func, file, line);
	abort();
}

void *
kl_malloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		kl_out_of_room(__FILE__, __LINE__, __func__, "out of memory");
	return p;
}

void *
kl_calloc(size_t count, size_t size)
{
	void *p = calloc(count ? count : 1, size ? size : 1);
	if (!p)
		kl_out_of_room(__FILE__, __LINE__, __func__, "out of memory");
	return p;
}

void *
kl_realloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		kl_out_of_room(__FILE__, __LINE__, __func__, "out of memory");
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

uint32_t
kl_grown_cap(uint32_t cap, uint64_t need)
{
	if (need > UINT32_MAX - 1)
		kl_out_of_room(__FILE__, __LINE__, __func__, "table too large");
	uint64_t c = cap < 8 ? 8 : cap;
	if (c < need)
		c = 2 * c > need ? 2 * c : need;
	if (c > UINT32_MAX - 1)
		c = UINT32_MAX - 1;
	return (uint32_t)c;
}

void
kl_grow(void *p, uint32_t *cap, size_t elem_size, uint64_t need)
{
	void **pp = p;
	if (need <= *cap)
		return;
	uint32_t c = kl_grown_cap(*cap, need);
	*pp = kl_realloc_table(*pp, (size_t)*cap * elem_size,
			       kl_table_bytes(c, elem_size));
	*cap = c;
}

void
kl_grow_out(void *p, uint32_t *cap, size_t elem_size, uint64_t need)
{
	void **pp = p;
	if (need <= *cap)
		return;
	uint32_t c = kl_grown_cap(*cap, need);
	void *q = kl_malloc(kl_table_bytes(c, elem_size));
	if (*cap)
		memcpy(q, *pp, (size_t)*cap * elem_size);
	*pp = q;
	*cap = c;
	kl_advise_huge(q, (size_t)c * elem_size);
}

uint64_t
kl_hash_mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdu;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53u;
	h ^= h >> 33;
	return h;
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

/*
 * The length of the well-formed UTF-8 sequence of two to four bytes that
 * starts s (n bytes available), or 0. Strict (RFC 3629: no overlong
 * forms, surrogates or code points past U+10FFFF), since a terminal shows
 * each byte of a malformed sequence as a character of its own.
 */
size_t
kl_utf8_len(const unsigned char *s, size_t n)
{
	size_t len;
	unsigned char lo = 0x80, hi = 0xbf; /* range of the second byte */
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		return 0;
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

uint32_t
kl_utf8_decode(const unsigned char *s, size_t n)
{
	uint32_t c = s[0] & (0xffu >> (n + 1)); /* the lead byte's bits */
	for (size_t i = 1; i < n; i++)
		c = c << 6 | (s[i] & 0x3fu);
	return c;
}

void
kl_c_locale_begin(kl_c_locale *s)
{
#if defined(LC_ALL_MASK)
	/* (glibc makes no object for "C": its own, shared) */
	s->c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	s->host = s->c ? uselocale(s->c) : (locale_t)0;
#else
	(void)s;
#endif
}

void
kl_c_locale_end(kl_c_locale *s)
{
#if defined(LC_ALL_MASK)
	if (!s->c)
		return;
	uselocale(s->host);
	freelocale(s->c);
#else
	(void)s;
#endif
}
