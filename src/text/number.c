/*
 * number.c -- the exact spellings of immediates, floats, names and strings.
 *
 * Integers: signed decimal when small, otherwise hexadecimal of the
 * two's-complement bits in groups of four digits ("0x3b9a_ca00"), so that
 * masks and addresses stay readable and every value prints one way.
 *
 * Floats print exactly, as hex floats with a trimmed fraction
 * ("0x1.8p1", "-0x1.921fb6p1"); subnormals use the minimum exponent with a
 * 0 leading digit ("0x0.000002p-126"). Zeros are "0.0" and "-0.0",
 * infinities "inf" and "-inf", the default quiet NaN "nan" ("-nan" with the
 * sign bit), any other NaN "nan:0xM" with M its whole significand field, so
 * signalling NaNs and payloads survive a round trip.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"

static void
fmt_grouped_hex(kl_buf *out, uint64_t u)
{
	int digits = 1;
	while (digits < 16 && (u >> (4 * digits)))
		digits++;
	int groups = (digits + 3) / 4;
	buf_adds(out, "0x");
	for (int g = groups - 1; g >= 0; g--) {
		for (int d = 3; d >= 0; d--)
			buf_addc(out,
				 kl_hex_digits[(u >> (16 * g + 4 * d)) & 15]);
		if (g)
			buf_addc(out, '_');
	}
}

/* A signed number below 10000 in magnitude, in decimal. */
static void
fmt_small(kl_buf *out, int32_t v)
{
	kl_buf_put_entity(out, "-", v < 0, (uint32_t)(v < 0 ? -v : v));
}

void
fmt_uint(kl_buf *out, uint64_t v)
{
	if (v < 10000)
		fmt_small(out, (int32_t)v);
	else
		fmt_grouped_hex(out, v);
}

void
fmt_int(kl_buf *out, int64_t v, unsigned bits)
{
	fmt_int_as(out, v, bits, false);
}

void
fmt_int_as(kl_buf *out, int64_t v, unsigned bits, bool is_unsigned)
{
	uint64_t u = (uint64_t)v;
	int64_t s = v;
	/* A value that does not fit the width prints as its 64 bits. */
	if (bits > 0 && bits < 64 && kl_int_fits(v, bits)) {
		u &= ((uint64_t)1 << bits) - 1;
		s = kl_sign_narrow(v, bits);
	}
	if (is_unsigned)
		fmt_uint(out, u);
	else if (s > -10000 && s < 10000)
		fmt_small(out, (int32_t)s);
	else
		fmt_grouped_hex(out, u);
}

/* Shared by both widths: fraction of fbits bits, exponent bias. */
static void
fmt_float(kl_buf *out, bool neg, uint64_t exp, uint64_t frac, int fbits,
	  int bias, uint64_t expmax)
{
	uint64_t quiet = (uint64_t)1 << (fbits - 1);
	if (exp == expmax) {
		if (frac == 0) {
			buf_adds(out, neg ? "-inf" : "inf");
		} else {
			buf_adds(out, neg ? "-nan" : "nan");
			if (frac != quiet) {
				buf_adds(out, ":0x");
				kl_buf_printf(out, "%llx",
					      (unsigned long long)frac);
			}
		}
		return;
	}
	if (exp == 0 && frac == 0) {
		buf_adds(out, neg ? "-0.0" : "0.0");
		return;
	}
	if (neg)
		buf_addc(out, '-');
	/* Left-align the fraction on a hex digit boundary. */
	int ndig = (fbits + 3) / 4;
	uint64_t f = frac << (ndig * 4 - fbits);
	while (ndig > 0 && (f & 15) == 0) {
		f >>= 4;
		ndig--;
	}
	buf_adds(out, exp == 0 ? "0x0" : "0x1");
	if (ndig) {
		buf_addc(out, '.');
		for (int d = ndig - 1; d >= 0; d--)
			buf_addc(out, kl_hex_digits[(f >> (4 * d)) & 15]);
	}
	long e = exp == 0 ? 1 - bias : (long)exp - bias;
	kl_buf_printf(out, "p%ld", e);
}

void
fmt_f32(kl_buf *out, uint32_t bits)
{
	fmt_float(out, bits >> 31, (bits >> 23) & 0xff, bits & 0x7fffff, 23,
		  127, 0xff);
}

void
fmt_f64(kl_buf *out, uint64_t bits)
{
	fmt_float(out, bits >> 63, (bits >> 52) & 0x7ff,
		  bits & 0xfffffffffffffu, 52, 1023, 0x7ff);
}

void
fmt_string(kl_buf *out, const char *s, size_t n)
{
	buf_addc(out, '"');
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 32 && c < 127 && c != '"' && c != '\\') {
			buf_addc(out, (char)c);
		} else {
			char esc[4] = { '\\', 'x', kl_hex_digits[c >> 4],
					kl_hex_digits[c & 15] };
			buf_add(out, esc, 4);
		}
	}
	buf_addc(out, '"');
}

/* ---- integer scanning ---- */

/* The value of a digit c in base 10 or 16; -1 if it is none. */
static int
digit_in(char c, unsigned base)
{
	int d = c >= '0' && c <= '9' ? c - '0' :
		c >= 'a' && c <= 'f' ? c - 'a' + 10 :
		c >= 'A' && c <= 'F' ? c - 'A' + 10 : 99;
	return d < (int)base ? d : -1;
}

size_t
scan_int(const char *s, size_t n, bool *neg, uint64_t *mag, bool *overflow)
{
	size_t i = 0;
	unsigned base = 10;
	*neg = i < n && s[i] == '-';
	if (*neg)
		i++;
	if (i + 1 < n && s[i] == '0' && (s[i + 1] | 32) == 'x') {
		base = 16;
		i += 2;
	}
	uint64_t v = 0;
	bool any = false;
	*overflow = false;
	for (; i < n; i++) {
		int d = digit_in(s[i], base);
		if (d < 0) {
			/* '_' between two digits only */
			if (s[i] == '_' && any && i + 1 < n &&
			    digit_in(s[i + 1], base) >= 0)
				continue;
			break;
		}
		if (v > (UINT64_MAX - (uint64_t)d) / base)
			*overflow = true;
		v = v * base + (uint64_t)d;
		any = true;
	}
	*mag = v;
	return any ? i : 0;
}

/* ---- float scanning ---- */

static bool
word_at(const char *s, size_t n, const char *w)
{
	size_t k = strlen(w);
	return n >= k && memcmp(s, w, k) == 0;
}

static bool
is_word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '.';
}

/*
 * The special spellings. Returns bytes used (0: not special); sets
 * *neg, *kind (1 inf, 2 nan) and *payload (0 = default NaN).
 */
static size_t
scan_special(const char *s, size_t n, bool *neg, int *kind, uint64_t *payload,
	     bool *bad)
{
	size_t i = 0;
	*neg = false;
	*payload = 0;
	*bad = false;
	if (i < n && s[i] == '-') {
		*neg = true;
		i++;
	}
	if (word_at(s + i, n - i, "inf")) {
		i += 3;
		*kind = 1;
	} else if (word_at(s + i, n - i, "nan")) {
		i += 3;
		*kind = 2;
		if (i < n && s[i] == ':') {
			i++;
			/* "0x" or "0X", as a number's prefix */
			if (n - i < 2 || s[i] != '0' ||
			    (s[i + 1] | 32) != 'x') {
				*bad = true;
				return 0;
			}
			i += 2;
			size_t start = i;
			int d;
			while (i < n && (d = digit_in(s[i], 16)) >= 0) {
				if (i - start >= 16) {
					*bad = true;
					return 0;
				}
				*payload = *payload << 4 | (unsigned)d;
				i++;
			}
			if (i == start || *payload == 0) {
				*bad = true;
				return 0;
			}
		}
	} else {
		return 0;
	}
	if (i < n && is_word_char(s[i]))
		return 0;
	return i;
}

/* Length of the numeric literal at s: sign, digits, point, exponent. */
static size_t
numeric_extent(const char *s, size_t n)
{
	size_t i = 0;
	if (i < n && s[i] == '-')
		i++;
	bool hex = i + 1 < n && s[i] == '0' && (s[i + 1] | 32) == 'x';
	if (hex)
		i += 2;
	char expch = hex ? 'p' : 'e';
	while (i < n) {
		char c = s[i], lc = (char)(c | 32);
		bool ok = (c >= '0' && c <= '9') || c == '.' || c == '_' ||
			  (hex && lc >= 'a' && lc <= 'f') || lc == expch;
		if ((c == '-' || c == '+') && i > 0 && (s[i - 1] | 32) == expch)
			ok = true;
		if (!ok)
			break;
		i++;
	}
	return i;
}

/* The literal s[0..len) (its whole extent) is hex, with a point but
 * no 'p' exponent: C99 refuses it, where strtod would read 0x1.8 as 1.5. */
static bool
hex_point_without_p(const char *s, size_t len)
{
	size_t lead = len && s[0] == '-';
	if (len < lead + 2 || s[lead] != '0' || (s[lead + 1] | 32) != 'x')
		return false;
	bool point = false;
	for (size_t i = lead + 2; i < len; i++) {
		if ((s[i] | 32) == 'p')
			return false;
		point |= s[i] == '.';
	}
	return point;
}

bool
hex_float_lacks_exponent(const char *s, size_t n)
{
	return hex_point_without_p(s, numeric_extent(s, n));
}

static size_t
scan_float(const char *s, size_t n, bool single, uint64_t *bits)
{
	bool neg, bad;
	int kind = 0;
	uint64_t payload;
	size_t used = scan_special(s, n, &neg, &kind, &payload, &bad);
	if (bad)
		return 0;
	if (used) {
		int fbits = single ? 23 : 52;
		uint64_t expmax = single ? 0xff : 0x7ff;
		uint64_t frac = 0;
		if (kind == 2) {
			frac = payload ? payload : (uint64_t)1 << (fbits - 1);
			if (frac >> fbits)
				return 0;
		}
		*bits = (uint64_t)neg << (fbits + (single ? 8 : 11)) |
			expmax << fbits | frac;
		return used;
	}
	size_t len = numeric_extent(s, n);
	if (len == 0)
		return 0;
	size_t lead = s[0] == '-';
	bool hex = len > lead + 1 && s[lead] == '0' &&
		   (s[lead + 1] | 32) == 'x';
	/* strtod reads a copy without the '_'s, ending in NUL: on the
	 * stack, or for a long literal on the heap (an exact decimal double
	 * runs to 767 significant digits). */
	char small[256];
	char *tmp = len < sizeof small ? small : kl_malloc(len + 1);
	size_t k = 0;
	bool digit = false, ok = !hex_point_without_p(s, len);
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		if (c == '_') {
			/* between two digits only */
			unsigned base = hex ? 16 : 10;
			ok &= i > 0 && i + 1 < len &&
			      digit_in(s[i - 1], base) >= 0 &&
			      digit_in(s[i + 1], base) >= 0;
			continue;
		}
		if (c >= '0' && c <= '9')
			digit = true;
		tmp[k++] = c;
	}
	tmp[k] = 0;
	used = 0;
	if (ok && digit) {
		char *end;
		errno = 0;
		if (single) {
			float v = strtof(tmp, &end);
			uint32_t b;
			memcpy(&b, &v, 4);
			*bits = b;
		} else {
			double v = strtod(tmp, &end);
			memcpy(bits, &v, 8);
		}
		if ((size_t)(end - tmp) == k)
			used = len;
	}
	if (tmp != small)
		free(tmp);
	return used;
}

size_t
scan_f32(const char *s, size_t n, uint32_t *bits)
{
	uint64_t b = 0;
	size_t used = scan_float(s, n, true, &b);
	*bits = (uint32_t)b;
	return used;
}

size_t
scan_f64(const char *s, size_t n, uint64_t *bits)
{
	return scan_float(s, n, false, bits);
}

/* The exponent after 'p', clamped far beyond any format's range: a longer
 * one says the same (inexact, or zero) without overflowing. */
static int64_t
hex_exponent(const char *s, size_t n)
{
	size_t i = 0;
	bool neg = false;
	if (i < n && (s[i] == '-' || s[i] == '+'))
		neg = s[i++] == '-';
	int64_t e = 0;
	for (; i < n; i++)
		if (s[i] >= '0' && s[i] <= '9' && e < (int64_t)1 << 40)
			e = e * 10 + (s[i] - '0');
	return neg ? -e : e;
}

/*
 * Judged on the digits, not on a rounded result: the literal is exact
 * when its set bits span at most the format's precision, its lowest is
 * no finer than the least subnormal, and its highest is not above the
 * largest exponent. (For a subnormal the second bound is the tighter
 * one; for a normal number the first.)
 */
bool
hex_float_exact(const char *s, size_t n, bool single)
{
	size_t i = s[0] == '-' ? 3 : 2; /* past "0x" */
	int64_t digits = 0, int_digits = -1;
	int64_t first = -1, last = -1;
	unsigned dfirst = 0, dlast = 0;
	for (; i < n && (s[i] | 32) != 'p'; i++) {
		if (s[i] == '.') {
			int_digits = digits;
			continue;
		}
		int d = digit_in(s[i], 16);
		if (d < 0) /* '_' */
			continue;
		if (d) {
			if (first < 0) {
				first = digits;
				dfirst = (unsigned)d;
			}
			last = digits;
			dlast = (unsigned)d;
		}
		digits++;
	}
	if (first < 0)
		return true; /* zero */
	if (int_digits < 0)
		int_digits = digits;
	int64_t exp = i < n ? hex_exponent(s + i + 1, n - i - 1) : 0;
	int bits_first = 64 - (int)kl_clz64(dfirst);
	int64_t top = 4 * (int_digits - 1 - first) + bits_first - 1 + exp;
	int64_t low = 4 * (int_digits - 1 - last) + (int)kl_ctz64(dlast) + exp;
	int64_t precision = single ? 24 : 53;
	int64_t max_exp = single ? 127 : 1023;
	int64_t least = single ? -149 : -1074;
	return top <= max_exp && low >= least && top - low + 1 <= precision;
}

float_fit
float_literal_fit(const char *s, size_t n, bool single, uint64_t bits)
{
	size_t lead = n && s[0] == '-';
	if (lead == n || !((s[lead] >= '0' && s[lead] <= '9') ||
			   s[lead] == '.'))
		return FLOAT_FITS; /* inf, nan */
	bool hex = n > lead + 1 && s[lead] == '0' && (s[lead + 1] | 32) == 'x';
	if (hex)
		return hex_float_exact(s, n, single) ? FLOAT_FITS
						     : FLOAT_HEX_INEXACT;
	int fbits = single ? 23 : 52;
	uint64_t expmax = single ? 0xff : 0x7ff;
	uint64_t sign = (uint64_t)1 << (single ? 31 : 63);
	uint64_t magnitude = bits & ~sign;
	if (magnitude >> fbits == expmax)
		return FLOAT_TOO_LARGE;
	if (magnitude != 0)
		return FLOAT_FITS;
	for (size_t i = lead; i < n && (s[i] | 32) != 'e'; i++)
		if (s[i] >= '1' && s[i] <= '9')
			return FLOAT_TOO_SMALL;
	return FLOAT_FITS;
}
