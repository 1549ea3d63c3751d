/*
 * text.h -- what the parser and the printer share (the spelling of
 * immediates, floats and names), and the printer's entry for the
 * verifier's listing.
 */
#ifndef KEEL_TEXT_H
#define KEEL_TEXT_H

#include "../ir/ir.h"

/*
 * Integer immediate at a width of `bits` (8..64): signed decimal when
 * -10000 < x < 10000 at that width, else grouped two's-complement hex.
 * A value that does not fit the width is printed as a 64-bit number so
 * that the verifier's listing shows what is really stored.
 */
void fmt_int(kl_buf *out, int64_t v, unsigned bits);
/* The same, read as unsigned when is_unsigned (for the immediates of
 * unsigned types: `iconst.u8 255`, where i8 prints -1). */
void fmt_int_as(kl_buf *out, int64_t v, unsigned bits, bool is_unsigned);
/* Unsigned magnitude: decimal below 10000, else grouped hex. */
void fmt_uint(kl_buf *out, uint64_t v);
void fmt_f32(kl_buf *out, uint32_t bits);
void fmt_f64(kl_buf *out, uint64_t bits);
void fmt_string(kl_buf *out, const char *s, size_t n);
/* A signature as the text writes it: "(i32, i64) -> f64". */
void fmt_signature(kl_buf *out, const kl_module *m, kl_signature sig);

/*
 * Scan an integer literal, -?(0x)?DIGITS with '_' only between two
 * digits, from s[0..n): returns the bytes used (0: no digits), its sign
 * and magnitude; *overflow when the magnitude passes 64 bits (then *mag
 * is wrong). What follows it is the caller's to check.
 */
size_t scan_int(const char *s, size_t n, bool *neg, uint64_t *mag,
		bool *overflow);

/*
 * Parse a float literal (hex float, decimal, inf, nan, nan:0xPAYLOAD, with
 * an optional '-') from s[0..n). Returns the number of bytes used, 0 if
 * there is no valid literal. *bits receives the IEEE bits of the width.
 * In the C locale (util.h's kl_c_locale), where strtod reads "1.5": the
 * public calls that read text switch to it once (kl_parse_module,
 * kl_interp_scan_value), not each literal (which added 13% to the
 * parse of a file of 200,000 decimal floats).
 */
size_t scan_f32(const char *s, size_t n, uint32_t *bits);
size_t scan_f64(const char *s, size_t n, uint64_t *bits);
/* Is the literal at s (n bytes at most) a hex one with a point but no
 * 'p' exponent (0x1.8), which scan_f32/scan_f64 refuse as C99 does?
 * For the error to say what it lacks. */
bool hex_float_lacks_exponent(const char *s, size_t n);
/* Does the hex float literal at s, n bytes that scan_f32/scan_f64 read
 * whole, name a number f32 (single) or f64 holds exactly? */
bool hex_float_exact(const char *s, size_t n, bool single);
/* Does a float literal scan_f32/scan_f64 read whole (s, n bytes), read as
 * bits, say a value of the type? A hex one must be exact; a decimal one
 * is rounded, but not from a finite number to infinity, nor from one
 * that is not zero to zero: those are mistakes to report, as in C. */
typedef enum float_fit {
	FLOAT_FITS,
	FLOAT_HEX_INEXACT,
	FLOAT_TOO_LARGE,
	FLOAT_TOO_SMALL,
} float_fit;
float_fit float_literal_fit(const char *s, size_t n, bool single,
			    uint64_t bits);

/*
 * kl_print_inst with the operands' aliases resolved through a table from
 * func_resolve_table (NULL: walked one by one): for a caller printing
 * many instructions of one function, such as the verifier's listing.
 */
void print_inst_with(const kl_func *f, const uint32_t *resolved, uint32_t i,
		     kl_buf *out);

#endif /* KEEL_TEXT_H */
