/*
 * buf.c -- kl_buf, the growable byte buffer behind all text output.
 *
 * Invariant: when cap > 0, data[len] == 0, so a buffer can be handed to C
 * string functions at any time without an extra copy.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define BIG_BUF (2 * KL_HUGE_PAGE)

void
kl_buf_free(kl_buf *b)
{
	if (!b)
		return;
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

void
kl_buf_reset(kl_buf *b)
{
	b->len = 0;
	if (b->cap)
		b->data[0] = 0;
}

void
kl_buf_reserve(kl_buf *b, size_t extra)
{
	size_t need = b->len + extra + 1;
	if (need <= b->cap)
		return;
	/* (a size no allocation can give: the sum or the doubling would
	 * wrap, and the loop below would not end) */
	if (extra > SIZE_MAX / 4 - b->len)
		kl_out_of_room(__FILE__, __LINE__, __func__, "out of memory");
	size_t c = b->cap < 64 ? 64 : b->cap;
	while (c < need)
		c *= 2;
	if (c < BIG_BUF) {
		b->data = kl_realloc(b->data, c);
	} else {
		/* Whole huge pages, so that no part of a big buffer is filled
		 * 4 KB page fault by 4 KB page fault. */
		c = (c + KL_HUGE_PAGE - 1) & ~(KL_HUGE_PAGE - 1);
		char *q = aligned_alloc(KL_HUGE_PAGE, c);
		if (!q)
			kl_out_of_room(__FILE__, __LINE__, __func__,
				       "out of memory");
		kl_advise_huge(q, c);
		if (b->cap)
			memcpy(q, b->data, b->len + 1);
		else
			q[0] = 0;
		free(b->data);
		b->data = q;
	}
	b->cap = c;
}

void
kl_buf_append(kl_buf *b, const char *s, size_t n)
{
	kl_buf_reserve(b, n);
	if (n)
		memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = 0;
}

void
kl_buf_puts(kl_buf *b, const char *s)
{
	kl_buf_append(b, s, strlen(s));
}

void
kl_buf_putc(kl_buf *b, char c)
{
	kl_buf_reserve(b, 1);
	b->data[b->len++] = c;
	b->data[b->len] = 0;
}

void
kl_buf_vprintf(kl_buf *b, const char *fmt, va_list ap)
{
	/* Most texts fit the small buffer: one formatting. A longer one
	 * is formatted again, with a copy of the arguments, into room
	 * made for it. */
	va_list again;
	va_copy(again, ap);
	char small[256];
	int n = vsnprintf(small, sizeof small, fmt, ap);
	if (n >= 0 && (size_t)n < sizeof small) {
		kl_buf_append(b, small, (size_t)n);
	} else if (n >= 0) {
		kl_buf_reserve(b, (size_t)n);
		vsnprintf(b->data + b->len, (size_t)n + 1, fmt, again);
		b->len += (size_t)n;
	}
	va_end(again);
}

void
kl_buf_printf(kl_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	kl_buf_vprintf(b, fmt, ap);
	va_end(ap);
}

/* "00" to "99": two digits a step, half the divisions of one a step. */
static const char digit_pairs[201] =
	"00010203040506070809101112131415161718192021222324"
	"25262728293031323334353637383940414243444546474849"
	"50515253545556575859606162636465666768697071727374"
	"75767778798081828384858687888990919293949596979899";

static const uint32_t powers_of_10[10] = {
	1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000,
	1000000000
};

/* v in decimal at d, which has room for 10 digits; returns the end. The
 * digits are counted first and written from the last, in place. A number
 * of `bits` bits has bits * log10(2) digits, rounded down, or one more:
 * 1233 / 4096 is log10(2) closely enough for 32 bits, and one comparison
 * decides (a comparison per power of 10 took a third of the
 * time of writing an entity name). */
static char *
put_decimal(char *d, uint32_t v)
{
	unsigned bits = 64 - kl_clz64((uint64_t)v | 1);
	unsigned t = (bits * 1233) >> 12;
	size_t n = t + ((v | 1) >= powers_of_10[t]);
	char *e = d + n;
	while (v >= 100) {
		const char *pair = digit_pairs + 2 * (v % 100);
		v /= 100;
		*--e = pair[1];
		*--e = pair[0];
	}
	if (v >= 10) {
		*--e = digit_pairs[2 * v + 1];
		*--e = digit_pairs[2 * v];
	} else {
		*--e = (char)('0' + v);
	}
	return d + n;
}

void
kl_buf_put_entity(kl_buf *out, const char *prefix, size_t plen, uint32_t v)
{
	if (KL_UNLIKELY(out->len + plen + 10 >= out->cap))
		kl_buf_reserve(out, plen + 10);
	char *d = out->data + out->len;
	for (size_t k = 0; k < plen; k++) /* a few bytes: no memcpy call */
		d[k] = prefix[k];
	d = put_decimal(d + plen, v);
	out->len = (size_t)(d - out->data);
	out->data[out->len] = 0;
}
