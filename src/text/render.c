/*
 * render.c -- turn a diagnostic into the text a person reads:
 *
 *   t.kl:3:14: error: unknown opcode 'iadd2'
 *       v2 = iadd2 v0, v1
 *            ^
 *
 * Tabs in the source line are kept in the caret line so the caret lines up
 * whatever the terminal's tab width. Well-formed UTF-8 is shown as it is
 * and pads the caret line by character, not by byte (see below for how
 * many blanks each);
 * any other byte that is not printable ASCII (a stray CR, a lone byte of
 * a broken sequence), and a C1 control character, is shown as '?', one
 * column. Lines over 200 bytes are shown in a window around the column,
 * "..." marking each end that is cut, between two characters. The
 * blanks follow the
 * character's width on a terminal: two for the wide ones (CJK, Hangul,
 * full-width forms, emoji), none for combining marks and zero-width
 * characters. Those widths are Unicode's (East Asian Width W and F, and
 * the main blocks of marks), not the locale's: a library never reads the
 * locale, and these do not depend on it; a character outside the table
 * gets one blank. The column in the message counts bytes (docs/ir.md),
 * not characters.
 */
#include <string.h>

#include "../util/util.h"

static bool
is_continuation(char c)
{
	return ((unsigned char)c & 0xc0) == 0x80;
}

/* Ranges of code points, first and last. */
typedef struct {
	uint32_t first, last;
} cp_range;

static const cp_range zero_width[] = {
	{ 0x0300, 0x036f }, { 0x0483, 0x0489 }, { 0x0591, 0x05bd },
	{ 0x0610, 0x061a }, { 0x064b, 0x065f }, { 0x0e31, 0x0e31 },
	{ 0x0e34, 0x0e3a }, { 0x0e47, 0x0e4e }, { 0x1ab0, 0x1aff },
	{ 0x1dc0, 0x1dff }, { 0x200b, 0x200f }, { 0x2028, 0x202e },
	{ 0x2060, 0x2064 }, { 0x20d0, 0x20ff }, { 0xfe00, 0xfe0f },
	{ 0xfe20, 0xfe2f }, { 0xfeff, 0xfeff }, { 0xe0100, 0xe01ef },
};

static const cp_range wide[] = {
	{ 0x1100, 0x115f },   { 0x231a, 0x231b },   { 0x2329, 0x232a },
	{ 0x23e9, 0x23ec },   { 0x23f0, 0x23f0 },   { 0x23f3, 0x23f3 },
	{ 0x25fd, 0x25fe },   { 0x2614, 0x2615 },   { 0x2648, 0x2653 },
	{ 0x267f, 0x267f },   { 0x2693, 0x2693 },   { 0x26a1, 0x26a1 },
	{ 0x26aa, 0x26ab },   { 0x26bd, 0x26be },   { 0x26c4, 0x26c5 },
	{ 0x26ce, 0x26ce },   { 0x26d4, 0x26d4 },   { 0x26ea, 0x26ea },
	{ 0x26f2, 0x26f3 },   { 0x26f5, 0x26f5 },   { 0x26fa, 0x26fa },
	{ 0x26fd, 0x26fd },   { 0x2705, 0x2705 },   { 0x270a, 0x270b },
	{ 0x2728, 0x2728 },   { 0x274c, 0x274c },   { 0x274e, 0x274e },
	{ 0x2753, 0x2755 },   { 0x2757, 0x2757 },   { 0x2795, 0x2797 },
	{ 0x27b0, 0x27b0 },   { 0x27bf, 0x27bf },   { 0x2b1b, 0x2b1c },
	{ 0x2b50, 0x2b50 },   { 0x2b55, 0x2b55 },   { 0x2e80, 0x303e },
	{ 0x3041, 0x33ff },   { 0x3400, 0x4dbf },   { 0x4e00, 0x9fff },
	{ 0xa000, 0xa4cf },   { 0xa960, 0xa97f },   { 0xac00, 0xd7a3 },
	{ 0xf900, 0xfaff },   { 0xfe10, 0xfe19 },   { 0xfe30, 0xfe6f },
	{ 0xff00, 0xff60 },   { 0xffe0, 0xffe6 },   { 0x16fe0, 0x16fe4 },
	{ 0x17000, 0x18cff }, { 0x1b000, 0x1b2ff }, { 0x1f004, 0x1f004 },
	{ 0x1f0cf, 0x1f0cf }, { 0x1f18e, 0x1f18e }, { 0x1f191, 0x1f19a },
	{ 0x1f200, 0x1f251 }, { 0x1f300, 0x1f320 }, { 0x1f32d, 0x1f335 },
	{ 0x1f337, 0x1f37c }, { 0x1f37e, 0x1f393 }, { 0x1f3a0, 0x1f3ca },
	{ 0x1f3cf, 0x1f3d3 }, { 0x1f3e0, 0x1f3f0 }, { 0x1f3f4, 0x1f3f4 },
	{ 0x1f3f8, 0x1f43e }, { 0x1f440, 0x1f440 }, { 0x1f442, 0x1f4fc },
	{ 0x1f4ff, 0x1f53d }, { 0x1f54b, 0x1f54e }, { 0x1f550, 0x1f567 },
	{ 0x1f57a, 0x1f57a }, { 0x1f595, 0x1f596 }, { 0x1f5a4, 0x1f5a4 },
	{ 0x1f5fb, 0x1f64f }, { 0x1f680, 0x1f6c5 }, { 0x1f6cc, 0x1f6cc },
	{ 0x1f6d0, 0x1f6d2 }, { 0x1f6d5, 0x1f6d7 }, { 0x1f6dc, 0x1f6df },
	{ 0x1f6eb, 0x1f6ec }, { 0x1f6f4, 0x1f6fc }, { 0x1f7e0, 0x1f7eb },
	{ 0x1f7f0, 0x1f7f0 }, { 0x1f90c, 0x1f93a }, { 0x1f93c, 0x1f945 },
	{ 0x1f947, 0x1f9ff }, { 0x1fa70, 0x1faff }, { 0x20000, 0x2fffd },
	{ 0x30000, 0x3fffd },
};

static bool
in_ranges(uint32_t c, const cp_range *r, size_t n)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c < r[mid].first)
			hi = mid;
		else if (c > r[mid].last)
			lo = mid + 1;
		else
			return true;
	}
	return false;
}

/* Columns a terminal gives the UTF-8 character s[0..n) (n >= 2). */
static unsigned
char_columns(const unsigned char *s, size_t n)
{
	uint32_t c = kl_utf8_decode(s, n);
	if (in_ranges(c, zero_width, sizeof zero_width / sizeof *zero_width))
		return 0;
	if (in_ranges(c, wide, sizeof wide / sizeof *wide))
		return 2;
	return 1;
}

void
kl_diag_render(const kl_diag *d, const char *file, const char *src,
	       size_t src_len, kl_buf *out)
{
	kl_buf_puts(out, file ? file : "<input>");
	if (d->line) {
		kl_buf_printf(out, ":%u", d->line);
		if (d->col)
			kl_buf_printf(out, ":%u", d->col);
	}
	kl_buf_printf(out, ": %s: %s\n", kl_severity_name(d->severity),
		      d->message);
	if (!src || d->line == 0)
		return;
	/* Find the line (memchr: each error of a big file looks from its
	 * start, so this is the cost of showing many of them). */
	size_t pos = 0;
	uint32_t l = 1;
	while (l < d->line && pos < src_len) {
		const char *nl = memchr(src + pos, '\n', src_len - pos);
		if (!nl)
			return;
		pos = (size_t)(nl - src) + 1;
		l++;
	}
	if (l < d->line)
		return;
	size_t end = pos;
	while (end < src_len && src[end] != '\n')
		end++;
	/* A CRLF line's CR is its end, not a byte to show (as '?'). */
	if (end > pos && src[end - 1] == '\r')
		end--;
	/* Very long lines are cut around the column. */
	size_t start = pos;
	size_t col = d->col ? d->col - 1 : 0;
	if (col > end - pos)
		col = end - pos;
	if (end - pos > 200 && col > 100) {
		start = pos + col - 80;
		kl_buf_puts(out, "...");
	}
	size_t stop = end - start > 200 ? start + 200 : end;
	/* The cuts fall between characters: a character the window's
	 * first byte is inside of is left out, and so is one its last
	 * byte would cut. (A UTF-8 character has at most 3 bytes after
	 * its first.) */
	for (int k = 0; k < 3 && start != pos && is_continuation(src[start]);
	     k++)
		start++;
	for (int k = 0; k < 3 && stop != end && is_continuation(src[stop]);
	     k++)
		stop--;
	for (size_t i = start; i < stop;) {
		size_t n = kl_utf8_len((const unsigned char *)src + i,
				       stop - i);
		unsigned char c = (unsigned char)src[i];
		/* C1 controls (U+0080-U+009F, C2 80-9F) are controls as
		 * much as ASCII's: a terminal may act on them. */
		if (n == 2 && c == 0xc2 && (unsigned char)src[i + 1] < 0xa0)
			kl_buf_putc(out, '?');
		else if (n)
			kl_buf_append(out, src + i, n);
		else
			kl_buf_putc(out, (c >= 32 && c < 127) || c == '\t'
						 ? (char)c : '?');
		i += n ? n : 1;
	}
	/* Without the mark, a line cut here would look whole. */
	if (stop < end)
		kl_buf_puts(out, "...");
	kl_buf_putc(out, '\n');
	if (!d->col)
		return;
	if (start != pos)
		kl_buf_puts(out, "   ");
	/* A tab for a tab, and for each other character shown before the
	 * column as many blanks as it takes columns, whatever its bytes. */
	for (size_t i = start; i < pos + col && i < stop;) {
		const unsigned char *c = (const unsigned char *)src + i;
		size_t n = kl_utf8_len(c, stop - i);
		unsigned w = n ? char_columns(c, n) : 1;
		for (unsigned k = 0; k < w; k++)
			kl_buf_putc(out, src[i] == '\t' ? '\t' : ' ');
		i += n ? n : 1;
	}
	kl_buf_puts(out, "^\n");
}
