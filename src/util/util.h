/*
 * util.h -- the lowest layer: allocation, internal assertions, hashing and
 * growable arrays shared by every other layer of libkeel.
 *
 * Allocation failure is fatal (kl_out_of_room): the library has no way to
 * report it usefully and no caller handles it, so every allocation either
 * succeeds or ends the process with a message. Internal invariants are checked
 * with KL_ASSERT, which stays on in release builds; it is for bugs in keel,
 * never for bad input, which always comes back as a diagnostic.
 */
#ifndef KEEL_UTIL_H
#define KEEL_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <locale.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "keel.h"

#if defined(__GNUC__)
#define KL_NORETURN __attribute__((noreturn))
/* KL_PRINTF(f, a): argument f is a printf format for the arguments
 * from a on, which the compiler then checks. */
#define KL_PRINTF(f, a) __attribute__((format(printf, f, a)))
/* KL_NOINLINE: for the rare path of a function with a small common path,
 * which would otherwise pay for the rare path's stack frame. */
#define KL_NOINLINE __attribute__((noinline))
/* KL_ALWAYS_INLINE: inline whatever the compiler's estimate -- a body
 * made once per constant argument, or a hot one called from a few places
 * (which the compiler would otherwise call). */
#define KL_ALWAYS_INLINE inline __attribute__((always_inline))
#define KL_LIKELY(x) __builtin_expect(!!(x), 1)
#define KL_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define KL_PREFETCH(addr) __builtin_prefetch(addr)
/* KL_PREFETCH_WRITE: a line about to be written */
#define KL_PREFETCH_WRITE(addr) __builtin_prefetch(addr, 1)
#else
#define KL_NORETURN
#define KL_PRINTF(f, a)
#define KL_NOINLINE
#define KL_ALWAYS_INLINE inline
#define KL_LIKELY(x) (x)
#define KL_UNLIKELY(x) (x)
#define KL_PREFETCH(addr) ((void)(addr))
#define KL_PREFETCH_WRITE(addr) ((void)(addr))
#endif

/* A bug in keel: "keel: internal error at FILE:LINE (FUNC): MSG", then
 * abort. */
KL_NORETURN void kl_fatal(const char *file, int line, const char *func,
			  const char *msg);
/* Memory, or one of the library's size limits (docs/ir.md, "Limits"), ran
 * out: not a bug, so said as what it is, "keel: out of memory (FUNC at
 * FILE:LINE)", then abort. */
KL_NORETURN void kl_out_of_room(const char *file, int line, const char *func,
				const char *what);

/* An internal invariant of keel; failing it is a bug in keel. */
#define KL_ASSERT(cond)                                                      \
	do {                                                                 \
		if (KL_UNLIKELY(!(cond)))                                    \
			kl_fatal(__FILE__, __LINE__, __func__,               \
				 "assertion failed: " #cond);                \
	} while (0)

#define KL_UNREACHABLE() kl_fatal(__FILE__, __LINE__, __func__, "unreachable")

/*
 * kl_buf_append, kl_buf_puts and kl_buf_putc with the common case, room
 * already there, inline: the printer makes its text a few bytes at a
 * time, and a call per piece (and a strlen of each literal) was most of
 * its work.
 */
static inline void
buf_add(kl_buf *b, const char *s, size_t n)
{
	if (KL_LIKELY(b->len + n < b->cap)) {
		memcpy(b->data + b->len, s, n);
		b->len += n;
		b->data[b->len] = 0;
	} else {
		kl_buf_append(b, s, n);
	}
}

static inline void
buf_adds(kl_buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

static inline void
buf_addc(kl_buf *b, char c)
{
	if (KL_LIKELY(b->len + 1 < b->cap)) {
		b->data[b->len++] = c;
		b->data[b->len] = 0;
	} else {
		kl_buf_putc(b, c);
	}
}

/* prefix[0..plen) and then v in decimal: an entity's name ("block12",
 * " v7") or a small number, the most of what the printers write. A call
 * of kl_buf_printf cost some 800 instructions for the same bytes. */
void kl_buf_put_entity(kl_buf *out, const char *prefix, size_t plen,
		       uint32_t v);

/* kl_buf_printf with the arguments in a va_list (which it leaves to the
 * caller to end): for the library's own printf-like reporters, whose
 * messages may be of any length (a name of 700 bytes), never cut. */
void kl_buf_vprintf(kl_buf *b, const char *fmt, va_list ap) KL_PRINTF(2, 0);

void *kl_malloc(size_t n);
void *kl_calloc(size_t count, size_t size);
void *kl_realloc(void *p, size_t n);
/* realloc for a table of old bytes growing to n: from 1 MB it moves to
 * whole huge pages, as kl_alloc_table; below, the part a table in use
 * (old > 0) grows by is faulted in by one call, as it is being filled (a
 * first allocation may be a loose bound: not faulted in). The new bytes
 * are not initialised. */
void *kl_realloc_table(void *p, size_t old, size_t n);
/* n bytes for an object's tables, filled at once: from 1 MB, on whole huge
 * pages (rounded up to 2 MB); below, faulted in by one call (kl_prefault).
 * Released with free(). */
void *kl_alloc_table(size_t n);
char *kl_strndup(const char *s, size_t n);
/* "error", "warning" or "note", as diagnostics spell them (diag.c). */
const char *kl_severity_name(kl_severity s);

/* The capacity a table of cap entries grows to so that it holds need: at
 * least 8, at least twice cap when it must grow past that (so appends
 * stay amortised O(1)), and exactly need when that is more -- a table sized
 * from a bound is not rounded up to a power of two, which for a table cleared
 * in full (a dominator tree's per-block arrays, say) would be up to twice the
 * fresh memory. What kl_grow uses. */
uint32_t kl_grown_cap(uint32_t cap, uint64_t need);
/* The bytes of a table of count entries of elem bytes: out of memory when
 * that is more than half the address space, where on a 32-bit machine the
 * product would wrap to a small size (a count taken from input: sparse
 * entity numbers, a line count). Inline, as every table's growth comes
 * here: when both are under 2^(w/2 - 1), w the bits of a size_t, the
 * product is under 2^(w - 2) and needs no division. */
static inline size_t
kl_table_bytes(uint64_t count, size_t elem)
{
	const uint64_t small = (uint64_t)1 << (sizeof(size_t) * 4 - 1);
	if (KL_UNLIKELY((count | elem) >= small) && elem &&
	    count > (SIZE_MAX / 2) / elem)
		kl_out_of_room(__FILE__, __LINE__, __func__, "out of memory");
	return (size_t)count * elem;
}

/*
 * Grow the array *p of *cap elements of elem_size bytes so that it holds at
 * least need elements, to kl_grown_cap(*cap, need): at least doubling, so
 * appends are amortised O(1).
 * New elements are not initialised.
 */
void kl_grow(void *p, uint32_t *cap, size_t elem_size, uint64_t need);
/*
 * The same for an array whose memory the caller does not own (it lives in
 * an arena): the elements move to a new allocation, which the caller owns
 * from then on.
 */
void kl_grow_out(void *p, uint32_t *cap, size_t elem_size, uint64_t need);

/* The size of a huge page (x86-64 and most others: 2 MB), to which big
 * tables and chunks are rounded and aligned. */
#define KL_HUGE_PAGE ((size_t)2 << 20)

/* Hint that a large allocation will be filled (huge pages on Linux). */
void kl_advise_huge(void *p, size_t n);
/* n bytes at p are about to be written whole: fault their fresh pages in
 * with one call rather than one fault per page (Linux 5.14 and later;
 * elsewhere, and below 8 KB, nothing). */
void kl_prefault(void *p, size_t n);

/* A scratch arena: bump allocation, released all at once. Zeroed = empty. */
typedef struct kl_arena {
	struct arena_chunk *chunk;
	size_t used;
} kl_arena;

void *kl_arena_alloc(kl_arena *a, size_t n);  /* 16-byte aligned */
void *kl_arena_zalloc(kl_arena *a, size_t n); /* zeroed */
/* Make room for n bytes in one chunk: for a caller that knows roughly how
 * much it will allocate, one big chunk instead of many doubling ones. */
void kl_arena_reserve(kl_arena *a, size_t n);
void kl_arena_reset(kl_arena *a);
/*
 * Grow an array that lives in arena a to at least need elements, as
 * kl_grow does: to a grown copy inside the arena while that takes at
 * most max bytes (true), else out to a malloc'd copy that the caller owns
 * from then on (false).
 */
bool kl_arena_grow(kl_arena *a, void *p, uint32_t *cap, size_t elem_size,
		   uint64_t need, size_t max);
void kl_arena_free(kl_arena *a);

/* "0123456789abcdef": the digits the printer and the name formatter
 * spell bytes and numbers with. */
extern const char kl_hex_digits[17];

/* 64-bit FNV-1a over bytes, for lookup tables only (never for output order). */
uint64_t kl_hash_bytes(const void *data, size_t n);
/* Every bit of h mixed into every bit of the result (MurmurHash3's
 * finaliser), so a table may mask off the low bits: a product alone
 * carries a difference only upward, to bits above it. */
uint64_t kl_hash_mix(uint64_t h);

/* Does v fit `bits` bits (1 to 64), read as signed or unsigned:
 * -2^(bits-1) <= v <= 2^bits - 1? The rule for every integer written
 * for a type (immediates, constants, data items). Without branches: the
 * verifier's fast path meets unrelated widths one after another. */
static KL_ALWAYS_INLINE bool
kl_int_fits(int64_t v, unsigned bits)
{
	uint64_t u = (uint64_t)v;
	return v < 0 ? (~u >> (bits - 1)) == 0 : (u >> (bits - 1) >> 1) == 0;
}

/* The low `bits` bits of v (1 to 64), sign-extended. */
static inline int64_t
kl_sign_narrow(int64_t v, unsigned bits)
{
	unsigned sh = 64 - bits;
	return (int64_t)((uint64_t)v << sh) >> sh;
}

/* Bit counts of 64-bit words; ctz and clz need x != 0. */
static inline unsigned
kl_popcount64(uint64_t x)
{
#if defined(__GNUC__) && defined(__POPCNT__)
	return (unsigned)__builtin_popcountll(x);
#else
	/* Without the instruction (the base x86-64 set has none) the
	 * builtin is a library call: bits summed in place are cheaper. */
	x = x - ((x >> 1) & 0x5555555555555555u);
	x = (x & 0x3333333333333333u) + ((x >> 2) & 0x3333333333333333u);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fu;
	return (unsigned)((x * 0x0101010101010101u) >> 56);
#endif
}

static inline unsigned
kl_ctz64(uint64_t x)
{
#if defined(__GNUC__)
	return (unsigned)__builtin_ctzll(x);
#else
	unsigned n = 0;
	for (; !(x & 1); x >>= 1)
		n++;
	return n;
#endif
}

static inline unsigned
kl_clz64(uint64_t x)
{
#if defined(__GNUC__)
	return (unsigned)__builtin_clzll(x);
#else
	unsigned n = 0;
	for (; !(x >> 63); x <<= 1)
		n++;
	return n;
#endif
}

/*
 * The C locale, whatever locale the program that embeds the library
 * chose with setlocale. A decimal comma would misread "1.5" in the IR's
 * text (strtod), and change a trap's message and what a keel program's
 * printf prints (a C program runs in the "C" locale until it calls
 * setlocale, which a keel program cannot); a UTF-8 locale would make a
 * FileCheck regex's '.' match a character instead of a byte. From
 * kl_c_locale_begin to kl_c_locale_end, this thread runs in the C
 * locale (POSIX uselocale; where it is missing, or the locale cannot be
 * made, in the host's). Pairs may nest.
 */
typedef struct kl_c_locale {
#if defined(LC_ALL_MASK)
	locale_t c, host;
#else
	int unused;
#endif
} kl_c_locale;
void kl_c_locale_begin(kl_c_locale *s);
void kl_c_locale_end(kl_c_locale *s);

/* The length of the well-formed UTF-8 sequence of two to four bytes that
 * starts s (n bytes available), or 0 (strict: RFC 3629). */
size_t kl_utf8_len(const unsigned char *s, size_t n);
/* The code point of the well-formed sequence s[0..n) (n from kl_utf8_len). */
uint32_t kl_utf8_decode(const unsigned char *s, size_t n);

#endif /* KEEL_UTIL_H */
