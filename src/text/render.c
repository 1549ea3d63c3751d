/*
 * render.c -- turn a diagnostic into the text a person reads:
 *
 *   t.kl:3:14: error: unknown opcode 'iadd2'
 *       v2 = iadd2 v0, v1
 *            ^
 *
 * Tabs in the source line are kept in the caret line so the caret lines up
 * whatever the terminal's tab width. Well-formed UTF-8 is shown as it is
 * and pads the caret line with one blank per character, not per byte;
 * any other byte that is not printable ASCII (a stray CR, a lone byte of
 * a broken sequence, a sequence cut by the long-line window) is shown as
 * '?', one column. Lines over 200 bytes are shown in a window around the
 * column, "..." marking each end that is cut. Wide characters (CJK, emoji) take two columns on most
 * terminals and get one blank: telling them apart needs the locale's
 * width tables, which a library that never reads the locale lacks.
 * The column in the message counts bytes (docs/ir.md), not characters.
 */
#include <string.h>

#include "../util/util.h"

static const char *
severity_name(kl_severity s)
{
	switch (s) {
	case KL_SEV_WARNING: return "warning";
	case KL_SEV_NOTE: return "note";
	default: return "error";
	}
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
	kl_buf_printf(out, ": %s: %s\n", severity_name(d->severity),
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
	for (size_t i = start; i < stop;) {
		size_t n = kl_utf8_len((const unsigned char *)src + i, stop - i);
		unsigned char c = (unsigned char)src[i];
		if (n)
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
	/* A tab for a tab, one blank per character shown before the
	 * column, whatever its bytes. */
	for (size_t i = start; i < pos + col && i < stop;) {
		size_t n = kl_utf8_len((const unsigned char *)src + i, stop - i);
		kl_buf_putc(out, src[i] == '\t' ? '\t' : ' ');
		i += n ? n : 1;
	}
	kl_buf_puts(out, "^\n");
}
