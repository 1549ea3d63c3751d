/*
 * diag.c -- the diagnostics list the parser and verifier append to.
 *
 * The library only collects diagnostics; rendering them for a terminal
 * (with the source line and a caret) is kl_diag_render's job in text/.
 */
#include <stdlib.h>
#include <string.h>

#include "util.h"

void
kl_diags_free(kl_diags *d)
{
	if (!d)
		return;
	for (uint32_t i = 0; i < d->len; i++)
		free(d->items[i].message);
	free(d->items);
	memset(d, 0, sizeof *d);
}

uint32_t
kl_diags_errors(const kl_diags *d)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < d->len; i++)
		n += d->items[i].severity == KL_SEV_ERROR;
	return n;
}

const char *
kl_severity_name(kl_severity s)
{
	switch (s) {
	case KL_SEV_WARNING: return "warning";
	case KL_SEV_NOTE: return "note";
	default: return "error";
	}
}

void
kl_diags_add(kl_diags *d, kl_severity sev, uint32_t line, uint32_t col,
	     const char *message)
{
	kl_grow(&d->items, &d->cap, sizeof *d->items, d->len + 1);
	kl_diag *g = &d->items[d->len++];
	memset(g, 0, sizeof *g);
	g->severity = sev;
	g->line = line;
	g->col = col;
	g->func = KL_NO_SYM;
	g->loc.kind = KL_ENT_NONE;
	g->loc.id = KL_NONE;
	g->inst = KL_NO_INST;
	g->message = kl_strndup(message, strlen(message));
}

/* Merge sort: stable, and O(n log n) whatever the input. */
static void
sort_range(kl_diag *a, kl_diag *tmp, uint32_t n)
{
	if (n < 2)
		return;
	uint32_t h = n / 2;
	sort_range(a, tmp, h);
	sort_range(a + h, tmp, n - h);
	uint32_t i = 0, j = h, k = 0;
	while (i < h && j < n) {
		bool right_first = a[j].line < a[i].line ||
				   (a[j].line == a[i].line &&
				    a[j].col < a[i].col);
		tmp[k++] = right_first ? a[j++] : a[i++];
	}
	while (i < h)
		tmp[k++] = a[i++];
	while (j < n)
		tmp[k++] = a[j++];
	memcpy(a, tmp, n * sizeof *a);
}

void
kl_diags_sort(kl_diags *d)
{
	if (d->len < 2)
		return;
	kl_diag *tmp = kl_malloc(d->len * sizeof *tmp);
	sort_range(d->items, tmp, d->len);
	free(tmp);
}
