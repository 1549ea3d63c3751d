/*
 * test_util.c -- unit tests of src/util: promises of the arena, of kl_buf,
 * of the diagnostics list and of the UTF-8 reader that the layers above
 * rely on, but that no text a file test sees would show broken (a
 * misaligned table still works on x86, a wasted chunk is only memory).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/util/util.h"
#include "keel.h"
#include "unit.h"
#include "child.h"

/* Every allocation is 16-byte aligned whatever the sizes before it, in
 * a chunk the arena made and in one kl_arena_reserve made, as util.h
 * promises (malloc's 8 on armhf broke it). */
static void
test_arena_alignment(void)
{
	kl_arena a = { 0 };
	bool aligned = true;
	for (size_t n = 1; n < 200; n++) {
		if (n == 100)
			kl_arena_reserve(&a, 100000);
		char *p = kl_arena_alloc(&a, n % 37);
		aligned &= ((uintptr_t)p & 15) == 0;
	}
	char *big = kl_arena_alloc(&a, 200001); /* a new chunk */
	char *after = kl_arena_alloc(&a, 3);
	CHECK(aligned);
	CHECK(((uintptr_t)big & 15) == 0 && ((uintptr_t)after & 15) == 0);
	kl_arena_free(&a);
}

/* kl_arena_reserve(n) makes room for n bytes in one chunk: the next
 * allocation of n bytes (not a multiple of 16 here) takes no new chunk,
 * in an empty arena and in one whose chunk has too little room left.
 * (The parser reserves for a big module's text so that its tables are
 * not spread over a chain of doubling chunks.) */
static void
test_arena_reserve_room(void)
{
	kl_arena a = { 0 };
	kl_arena_reserve(&a, 100);
	struct arena_chunk *c = a.chunk;
	CHECK(c != NULL);
	kl_arena_alloc(&a, 100);
	CHECK(a.chunk == c);
	/* that filled it (100 rounds up to 112): the next byte is past its
	 * end, in a new chunk */
	kl_arena_alloc(&a, 1);
	CHECK(a.chunk != c);

	kl_arena_alloc(&a, 1000);     /* a new chunk, of under 2 KB */
	kl_arena_reserve(&a, 300001); /* more than is left in it */
	c = a.chunk;
	char *p = kl_arena_alloc(&a, 300001);
	CHECK(a.chunk == c);
	memset(p, 1, 300001);
	kl_arena_free(&a);
}

/* An allocation that takes a new chunk starts at that chunk's start: the
 * chunk is sized for the allocation alone, so starting at the old
 * chunk's offset would run past its end. */
static void
test_arena_new_chunk_starts_empty(void)
{
	kl_arena a = { 0 };
	kl_arena_alloc(&a, 60000); /* most of a chunk of 64 KB */
	struct arena_chunk *first = a.chunk;
	char *p = kl_arena_alloc(&a, 100000);
	CHECK(a.chunk != first);
	CHECK_EQ_INT(a.used, 100000);
	if (a.used == 100000)
		memset(p, 2, 100000);
	kl_arena_free(&a);
}

/* kl_arena_zalloc zeroes what an earlier use of the arena left: after a
 * reset the same memory comes back, dirty. */
static void
test_arena_zalloc_after_reset(void)
{
	kl_arena a = { 0 };
	unsigned char *p = kl_arena_alloc(&a, 999);
	memset(p, 0xff, 999);
	kl_arena_reset(&a);
	unsigned char *q = kl_arena_zalloc(&a, 999);
	CHECK(q == p);
	bool zero = true;
	for (size_t k = 0; k < 999; k++)
		zero &= q[k] == 0;
	CHECK(zero);
	kl_arena_free(&a);
}

/* A second reset after a first that freed chunks: the kept chunk must
 * not lead back to them, which the second would free again. (In a
 * child: a double free aborts.) */
static void
reset_twice(void *ctx)
{
	(void)ctx;
	kl_arena a = { 0 };
	kl_arena_alloc(&a, 60000);
	kl_arena_alloc(&a, 100000); /* a second chunk, larger: kept */
	kl_arena_reset(&a);
	kl_arena_alloc(&a, 16);
	kl_arena_reset(&a);
	kl_arena_free(&a);
}

static void
test_arena_reset_twice(void)
{
	char msg[256];
	int st = unit_in_child(reset_twice, NULL, msg, sizeof msg);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK_EQ_STR(msg, "");
}

/* A request near the size of the address space is out of memory: it
 * must not wrap, in the rounding to 16, to whole huge pages, in an
 * arena chunk's size or in a table's count times its entry size (on a
 * 32-bit machine, a count read from input can do that), to a small block
 * the caller would then write past, nor double a size to 0 for ever. (In
 * a child: out of memory aborts.) */
static void
alloc_too_much(void *ctx)
{
	/* (8 entries of elem bytes: exactly 0 bytes, wrapped) */
	const size_t n = SIZE_MAX - 5, elem = SIZE_MAX / 8 + 1;
	kl_arena a = { 0 };
	kl_arena_alloc(&a, 100);
	void *t = NULL;
	uint32_t cap = 0;
	int which = *(int *)ctx;
	if (which == 0)
		kl_arena_alloc(&a, n);
	else if (which == 1)
		kl_arena_reserve(&a, n);
	else if (which == 2)
		free(kl_alloc_table(n));
	else if (which == 3)
		free(kl_realloc_table(NULL, 0, n));
	else if (which == 4)
		kl_grow(&t, &cap, elem, 8);
	else if (which == 5)
		kl_grow_out(&t, &cap, elem, 8);
	else if (kl_arena_grow(&a, &t, &cap, elem, 8, SIZE_MAX))
		t = NULL; /* (in the arena) */
	free(t);
	kl_arena_free(&a);
}

static void
test_too_much(void)
{
	for (int k = 0; k < 7; k++) {
		char msg[256];
		int st = unit_in_child(alloc_too_much, &k, msg, sizeof msg);
		CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT);
		CHECK(strstr(msg, "keel: out of memory (") == msg);
	}
}

/* kl_arena_grow grows as kl_grow does, to kl_grown_cap (at least
 * doubling): appends one at a time copy the table O(log n) times, not
 * once each. The contents move with it. */
static void
test_arena_grow_doubles(void)
{
	kl_arena a = { 0 };
	uint32_t *t = NULL, cap = 0;
	CHECK(kl_arena_grow(&a, &t, &cap, sizeof *t, 5, 1 << 20));
	CHECK_EQ_INT(cap, 8);
	for (uint32_t k = 0; k < 8; k++)
		t[k] = k * 3;
	uint32_t *old = t;
	CHECK(kl_arena_grow(&a, &t, &cap, sizeof *t, 9, 1 << 20));
	CHECK_EQ_INT(cap, 16);
	CHECK(t != old && t[7] == 21 && t[0] == 0);
	CHECK(kl_arena_grow(&a, &t, &cap, sizeof *t, 16, 1 << 20));
	CHECK_EQ_INT(cap, 16);
	kl_arena_free(&a);
}

/* kl_buf_reset empties the text as well as the count: the buffer's
 * invariant (data[len] == 0 once there is memory) lets a caller hand
 * data to C string functions right after a reset. */
static void
test_buf_reset_empties_text(void)
{
	kl_buf b = { 0 };
	kl_buf_puts(&b, "abc");
	kl_buf_reset(&b);
	CHECK_EQ_INT(b.len, 0);
	CHECK_EQ_STR(b.data, "");
	kl_buf_free(&b);
}

/* kl_diags_sort orders by line, then column, and keeps the order in
 * which equal positions came (a parser's error and the note on it),
 * through merges of runs of every length. */
static void
test_diags_sort_stable(void)
{
	/* (line, col) of each, added in this order; the message is the
	 * place each must end up in. */
	static const struct {
		uint32_t line, col;
		const char *want;
	} in[] = {
		{ 3, 1, "5" }, { 2, 9, "4" }, { 2, 4, "1" }, { 2, 4, "2" },
		{ 1, 7, "0" }, { 2, 4, "3" }, { 9, 0, "7" }, { 3, 2, "6" },
		{ 9, 0, "8" },
	};
	kl_diags d = { 0 };
	for (size_t k = 0; k < sizeof in / sizeof in[0]; k++)
		kl_diags_add(&d, KL_SEV_ERROR, in[k].line, in[k].col,
			     in[k].want);
	kl_diags_sort(&d);
	CHECK_EQ_INT(d.len, 9);
	kl_buf got = { 0 };
	for (uint32_t k = 0; k < d.len; k++)
		kl_buf_puts(&got, d.items[k].message);
	CHECK_EQ_STR(got.data, "012345678");
	kl_buf_free(&got);
	kl_diags_free(&d);

	/* two, out of order: a list of two is sorted too (the table above
	 * sorts right when only lists of more than two are) */
	kl_diags_add(&d, KL_SEV_ERROR, 5, 2, "b");
	kl_diags_add(&d, KL_SEV_ERROR, 5, 1, "a");
	kl_diags_sort(&d);
	CHECK_EQ_STR(d.items[0].message, "a");
	CHECK_EQ_STR(d.items[1].message, "b");
	kl_diags_free(&d);
	CHECK(d.items == NULL && d.len == 0 && d.cap == 0);
}

/* kl_diags_errors counts errors alone (a verifier's warnings and a
 * caller's notes do not fail anything); kl_diags_add fills the rest of
 * a diagnostic as "about nothing in particular". */
static void
test_diags_errors_and_fields(void)
{
	kl_diags d = { 0 };
	kl_diags_add(&d, KL_SEV_WARNING, 1, 1, "w");
	kl_diags_add(&d, KL_SEV_NOTE, 2, 1, "n");
	CHECK_EQ_INT(kl_diags_errors(&d), 0);
	kl_diags_add(&d, KL_SEV_ERROR, 3, 4, "e");
	kl_diags_add(&d, KL_SEV_NOTE, 3, 4, "n2");
	CHECK_EQ_INT(kl_diags_errors(&d), 1);
	const kl_diag *e = &d.items[2];
	CHECK(e->severity == KL_SEV_ERROR && e->line == 3 && e->col == 4);
	CHECK(e->func.id == KL_NONE && e->inst.id == KL_NONE);
	CHECK(e->loc.kind == KL_ENT_NONE && e->loc.id == KL_NONE);
	CHECK_EQ_STR(kl_severity_name(KL_SEV_ERROR), "error");
	CHECK_EQ_STR(kl_severity_name(KL_SEV_WARNING), "warning");
	CHECK_EQ_STR(kl_severity_name(KL_SEV_NOTE), "note");
	kl_diags_free(&d);
}

/* Each writer keeps room for the NUL after the text (len < cap): putc
 * and the inline writers a few bytes at a time across several growths,
 * and printf of texts that fill a doubling exactly (past its 256-byte
 * first try). One byte short, the NUL lands past the allocation, which
 * only a sanitizer would see. */
static void
test_buf_room_for_nul(void)
{
	kl_buf b = { 0 };
	bool room = true;
	for (int k = 0; k < 600; k++) {
		kl_buf_putc(&b, (char)('a' + k % 26));
		room &= b.len < b.cap && b.data[b.len] == 0;
	}
	CHECK(room);
	kl_buf_free(&b);
	/* the same through the inline fast paths of util.h */
	for (int k = 0; k < 600; k++) {
		buf_addc(&b, 'c');
		room &= b.len < b.cap && b.data[b.len] == 0;
		buf_add(&b, "abc", 1 + (size_t)k % 3);
		room &= b.len < b.cap && b.data[b.len] == 0;
	}
	CHECK(room);
	kl_buf_free(&b);
	char s[1025];
	for (size_t n = 256; n <= 1024; n *= 2) {
		memset(s, 'x', n);
		s[n] = 0;
		kl_buf_printf(&b, "%s", s);
		CHECK_EQ_INT(b.len, n);
		CHECK(b.len < b.cap);
		kl_buf_free(&b);
	}
}

/* kl_utf8_len is strict (RFC 3629), as the parser's "found 'X'" and the
 * caret's columns need: each edge of each lead byte's range, of the
 * second byte's after E0, ED, F0 and F4 (overlong forms, surrogates,
 * past U+10FFFF) and of every later byte's, each side taken or refused;
 * and a sequence cut short by the end of the text is refused. */
static void
test_utf8_edges(void)
{
	static const struct {
		unsigned char s[4];
		size_t n, len;
		uint32_t cp;
	} cases[] = {
		{ { 0x41 }, 1, 0, 0 },
		{ { 0x80 }, 1, 0, 0 },
		{ { 0xc0, 0x80 }, 2, 0, 0 },
		{ { 0xc1, 0xbf }, 2, 0, 0 },
		{ { 0xc2, 0x80 }, 2, 2, 0x80 },
		{ { 0xc3, 0xa9 }, 2, 2, 0xe9 },
		{ { 0xdf, 0xbf }, 2, 2, 0x7ff },
		{ { 0xdf, 0xc0 }, 2, 0, 0 },
		{ { 0xdf, 0x7f }, 2, 0, 0 },
		{ { 0xc3 }, 1, 0, 0 },
		{ { 0xe0, 0x9f, 0xbf }, 3, 0, 0 },
		{ { 0xe0, 0xa0, 0x80 }, 3, 3, 0x800 },
		{ { 0xe2, 0x82, 0xac }, 3, 3, 0x20ac },
		{ { 0xed, 0x9f, 0xbf }, 3, 3, 0xd7ff },
		{ { 0xed, 0xa0, 0x80 }, 3, 0, 0 },
		{ { 0xee, 0x80, 0x80 }, 3, 3, 0xe000 },
		{ { 0xef, 0xbf, 0xbf }, 3, 3, 0xffff },
		{ { 0xef, 0xbf, 0xbf }, 2, 0, 0 },
		{ { 0xef, 0xbf, 0xc0 }, 3, 0, 0 },
		{ { 0xef, 0xbf, 0x7f }, 3, 0, 0 },
		{ { 0xf0, 0x8f, 0xbf, 0xbf }, 4, 0, 0 },
		{ { 0xf0, 0x90, 0x80, 0x80 }, 4, 4, 0x10000 },
		{ { 0xf3, 0xbf, 0xbf, 0xbf }, 4, 4, 0xfffff },
		{ { 0xf3, 0xbf, 0xbf, 0xc0 }, 4, 0, 0 },
		{ { 0xf3, 0xbf, 0xc0, 0xbf }, 4, 0, 0 },
		{ { 0xf3, 0xbf, 0xbf, 0xbf }, 3, 0, 0 },
		{ { 0xf4, 0x8f, 0xbf, 0xbf }, 4, 4, 0x10ffff },
		{ { 0xf4, 0x90, 0x80, 0x80 }, 4, 0, 0 },
		{ { 0xf5, 0x80, 0x80, 0x80 }, 4, 0, 0 },
		{ { 0xff, 0xbf, 0xbf, 0xbf }, 4, 0, 0 },
	};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		size_t len = kl_utf8_len(cases[k].s, cases[k].n);
		if (len != cases[k].len)
			fprintf(stderr, "case %zu: length %zu\n", k, len);
		CHECK_EQ_INT(len, cases[k].len);
		if (len && len == cases[k].len)
			CHECK_EQ_INT(kl_utf8_decode(cases[k].s, len),
				     cases[k].cp);
	}
}

/* Keys that differ only in their high bits, as constants k << 49 do,
 * spread over the low bits a table masks: 4,096 of them into 4,096
 * chains fill about 63% of the chains at random; a product's top half
 * (cse's hash before) put them all in one. */
static void
test_hash_mix_reaches_low_bits(void)
{
	enum { N = 4096 };
	static bool used[N];
	uint32_t chains = 0;
	for (uint64_t k = 1; k <= N; k++) {
		uint32_t c = (uint32_t)kl_hash_mix(k << 49) & (N - 1);
		chains += !used[c];
		used[c] = true;
	}
	CHECK(chains > N / 2);
}

int
main(void)
{
	UNIT_RUN(test_arena_alignment);
	UNIT_RUN(test_arena_reserve_room);
	UNIT_RUN(test_arena_new_chunk_starts_empty);
	UNIT_RUN(test_arena_zalloc_after_reset);
	UNIT_RUN(test_arena_reset_twice);
	UNIT_RUN(test_too_much);
	UNIT_RUN(test_arena_grow_doubles);
	UNIT_RUN(test_buf_reset_empties_text);
	UNIT_RUN(test_buf_room_for_nul);
	UNIT_RUN(test_diags_sort_stable);
	UNIT_RUN(test_diags_errors_and_fields);
	UNIT_RUN(test_utf8_edges);
	UNIT_RUN(test_hash_mix_reaches_low_bits);
	return unit_report("util");
}
