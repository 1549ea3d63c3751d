/*
 * listing.c -- show verifier errors inside the function they are about:
 *
 *   t.kl:4: error: inst1: arg 0 (v0) has type i16, must match ...
 *   function %large_imm(i16) -> i32 {
 *   block0(v1: i16):
 *       v0 = iadd_imm v1, 1000
 *       return v0
 *   ;   ^~~~~~~~~
 *   ; error: inst1 (return v0): arg 0 (v0) has type i16, must match ...
 *   }
 *   ; 1 verifier error in %large_imm
 *
 * Shared by `keel verify` and `keel test` (command verifier). The listing
 * is kl_print_func's output with the annotate callback adding, below each
 * line whose entity has errors, an underline and one "; error:" comment
 * per error ("; warning:" for the memory rules' warnings, which are
 * listed the same way); so the listing is still IR that parses.
 *
 * Each error is attached to one printed line: its entity's line when the
 * printer shows that entity (instruction, block header, alias line, sigref
 * line), else the line of its instruction, else the function header. A
 * first printing pass only records which entities appear; the errors are
 * then threaded onto per-entity lists, so the second pass finds a line's
 * errors in O(1) and the whole rendering is linear.
 */
#include <stdlib.h>
#include <string.h>

#include "verify.h"
#include "../text/text.h"

enum { AT_FUNC, AT_INST, AT_BLOCK, AT_VALUE, AT_SIGREF, AT_COUNT };

typedef struct render {
	const kl_func *f;
	const kl_diags *d;
	uint32_t *mine;          /* indices into d of f's errors */
	uint32_t n;
	uint32_t bound[AT_COUNT];
	uint32_t *head[AT_COUNT]; /* per entity: first error (index in mine) */
	uint32_t *next;           /* per error: the next on the same line */
	uint32_t *tail_of;        /* per error: scratch for appending */
	bool recording;           /* first pass: only mark printed lines */
	/* Where each alias chain ends (func_resolve_table), made once: each
	 * error's instruction is printed, and resolving its operands one
	 * walk at a time costs a long chain's length per error. */
	const uint32_t *resolved;
	uint32_t *resolved_buf;
	uint32_t resolved_cap;
} render;

static int
entity_slot(kl_entity_kind k)
{
	switch (k) {
	case KL_ENT_INST: return AT_INST;
	case KL_ENT_BLOCK: return AT_BLOCK;
	case KL_ENT_VALUE: return AT_VALUE;
	case KL_ENT_SIGREF: return AT_SIGREF;
	default: return AT_FUNC;
	}
}

/* Can kl_print_inst show instruction i without reading garbage? */
static bool
printable(const kl_func *f, uint32_t i)
{
	inst_view iv;
	return i < f->ninsts && inst_readable(f, i, &iv);
}

/* kl_verify_location, resolving aliases through `resolved` (a table from
 * func_resolve_table, or NULL). */
static void
put_location(const kl_func *f, const kl_diag *d, bool detail,
	     const uint32_t *resolved, kl_buf *out)
{
	switch (d->loc.kind) {
	case KL_ENT_INST:
		kl_buf_printf(out, "inst%u", d->loc.id);
		if (detail && printable(f, d->loc.id)) {
			kl_buf_puts(out, " (");
			print_inst_with(f, resolved, d->loc.id, out);
			kl_buf_putc(out, ')');
		}
		return;
	case KL_ENT_BLOCK:
		kl_buf_printf(out, "block%u", d->loc.id);
		return;
	case KL_ENT_VALUE:
		kl_buf_printf(out, "v%u", d->loc.id);
		return;
	case KL_ENT_SIGREF:
		kl_buf_printf(out, "sig%u", d->loc.id);
		return;
	default:
		fmt_sym(out, f->module, f->sym);
		return;
	}
}

void
kl_verify_location(const kl_func *f, const kl_diag *d, bool detail,
		   kl_buf *out)
{
	put_location(f, d, detail, NULL, out);
}

/* The underline below a line: ";   ^~~~" under its text. */
static void
underline(const char *line, size_t len, kl_buf *out)
{
	size_t indent = 0;
	while (indent < len && line[indent] == ' ')
		indent++;
	size_t end = len;
	/* Not under an "; instN" annotation. */
	for (size_t k = indent; k + 1 < len; k++) {
		if (line[k] == ' ' && line[k + 1] == ';') {
			end = k;
			break;
		}
	}
	while (end > indent && line[end - 1] == ' ')
		end--;
	size_t width = end - indent;
	kl_buf_putc(out, ';');
	if (indent == 0) {
		/* The ';' takes column 0: start one later, end the same. */
		indent = 1;
		width = width > 1 ? width - 1 : 1;
	}
	for (size_t k = 1; k < indent; k++)
		kl_buf_putc(out, ' ');
	kl_buf_putc(out, '^');
	for (size_t k = 1; k < width; k++)
		kl_buf_putc(out, '~');
	kl_buf_putc(out, '\n');
}

static void
annotate(void *ctx, const kl_func *f, kl_entity what, const char *line,
	 size_t line_len, kl_buf *out)
{
	render *r = ctx;
	int slot = entity_slot(what.kind);
	uint32_t id = slot == AT_FUNC ? 0 : what.id;
	if (id >= r->bound[slot])
		return;
	if (r->recording) {
		r->head[slot][id] = 0; /* printed, no errors yet */
		return;
	}
	uint32_t k = r->head[slot][id];
	if (k >= r->n)
		return;
	underline(line, line_len, out);
	/* An instruction's text is given with its first error only: a
	 * br_table of n wrong entries would print it n times (n^2 bytes). */
	kl_entity detailed = { KL_ENT_NONE, KL_NONE };
	for (; k < r->n; k = r->next[k]) {
		const kl_diag *d = &r->d->items[r->mine[k]];
		bool again = d->loc.kind == detailed.kind &&
			     d->loc.id == detailed.id;
		detailed = d->loc;
		kl_buf_printf(out, "; %s: ", kl_severity_name(d->severity));
		put_location(f, d, !again, r->resolved, out);
		kl_buf_puts(out, ": ");
		kl_buf_puts(out, d->message);
		kl_buf_putc(out, '\n');
	}
}

/* Is the entity (slot, id) shown by a line of the listing? */
static bool
shown(const render *r, int slot, uint32_t id)
{
	return id < r->bound[slot] && r->head[slot][id] != KL_NONE;
}

/* The line diagnostic d is shown under, as (slot, id). */
static void
attach_point(const render *r, const kl_diag *d, int *slot, uint32_t *id)
{
	const kl_func *f = r->f;
	*slot = entity_slot(d->loc.kind);
	*id = *slot == AT_FUNC ? 0 : d->loc.id;
	if (shown(r, *slot, *id) && *slot != AT_FUNC)
		return;
	if (*slot == AT_VALUE && d->loc.id < f->nvalues &&
	    f->values[d->loc.id].kind == VK_PARAM &&
	    shown(r, AT_BLOCK, f->values[d->loc.id].def)) {
		*slot = AT_BLOCK;
		*id = f->values[d->loc.id].def;
		return;
	}
	if (d->inst.id != KL_NONE && shown(r, AT_INST, d->inst.id)) {
		*slot = AT_INST;
		*id = d->inst.id;
		return;
	}
	*slot = AT_FUNC;
	*id = 0;
}

static void
render_free(render *r)
{
	free(r->mine);
	free(r->next);
	free(r->tail_of);
	for (int s = 0; s < AT_COUNT; s++)
		free(r->head[s]);
	free(r->resolved_buf);
}

static void
print_headers(const render *r, const char *file, kl_buf *out)
{
	for (uint32_t k = 0; k < r->n; k++) {
		const kl_diag *d = &r->d->items[r->mine[k]];
		kl_buf_puts(out, file ? file : "<input>");
		if (d->line)
			kl_buf_printf(out, ":%u", d->line);
		kl_buf_printf(out, ": %s: ", kl_severity_name(d->severity));
		kl_verify_location(r->f, d, false, out);
		kl_buf_printf(out, ": %s\n", d->message);
	}
}

uint32_t
kl_verify_render(const kl_func *f, const kl_diags *d, const char *file,
		 bool inst_numbers, kl_buf *headers, kl_buf *listing)
{
	render r = { .f = f, .d = d };
	r.mine = kl_malloc(((size_t)d->len + 1) * sizeof *r.mine);
	for (uint32_t k = 0; k < d->len; k++)
		if (d->items[k].func.id == f->sym &&
		    (d->items[k].severity == KL_SEV_ERROR ||
		     d->items[k].severity == KL_SEV_WARNING) &&
		    d->items[k].loc.kind != KL_ENT_NONE)
			r.mine[r.n++] = k;
	if (r.n == 0) {
		free(r.mine);
		return 0;
	}
	print_headers(&r, file, headers);

	r.bound[AT_FUNC] = 1;
	r.bound[AT_INST] = f->ninsts;
	r.bound[AT_BLOCK] = f->nblocks;
	r.bound[AT_VALUE] = f->nvalues;
	r.bound[AT_SIGREF] = f->nsigrefs;
	for (int s = 0; s < AT_COUNT; s++) {
		size_t bytes = ((size_t)r.bound[s] + 1) * sizeof *r.head[s];
		r.head[s] = kl_malloc(bytes);
		memset(r.head[s], 0xff, bytes); /* KL_NONE: not printed */
	}
	kl_print_options opts = { .inst_numbers = inst_numbers,
				  .annotate = annotate, .annotate_ctx = &r };
	kl_buf scratch = { 0 };
	r.recording = true;
	kl_print_func(f, &opts, &scratch);
	kl_buf_free(&scratch);
	r.recording = false;

	/* Printed entities hold 0 now; turn them into empty lists (n). */
	for (int s = 0; s < AT_COUNT; s++)
		for (uint32_t id = 0; id < r.bound[s]; id++)
			if (r.head[s][id] == 0)
				r.head[s][id] = r.n;
	r.head[AT_FUNC][0] = r.n; /* the header line is always there */
	r.next = kl_malloc((size_t)r.n * sizeof *r.next);
	r.tail_of = kl_malloc((size_t)r.n * sizeof *r.tail_of);
	/* Append each error to its line's list, keeping their order. */
	for (uint32_t k = 0; k < r.n; k++) {
		int slot;
		uint32_t id;
		attach_point(&r, &d->items[r.mine[k]], &slot, &id);
		r.next[k] = r.n;
		uint32_t h = r.head[slot][id];
		if (h == r.n) {
			r.head[slot][id] = k;
		} else {
			r.next[r.tail_of[h]] = k;
		}
		r.tail_of[r.head[slot][id]] = k;
	}
	r.resolved = func_resolve_table(f, &r.resolved_buf, &r.resolved_cap);
	kl_print_func(f, &opts, listing);
	uint32_t warnings = 0;
	for (uint32_t k = 0; k < r.n; k++)
		warnings += d->items[r.mine[k]].severity == KL_SEV_WARNING;
	uint32_t errors = r.n - warnings;
	if (errors)
		kl_buf_printf(listing, "; %u verifier error%s", errors,
			      errors == 1 ? "" : "s");
	if (errors && warnings)
		kl_buf_puts(listing, " and");
	if (warnings)
		kl_buf_printf(listing, "%s%u verifier warning%s",
			      errors ? " " : "; ", warnings,
			      warnings == 1 ? "" : "s");
	kl_buf_puts(listing, " in ");
	fmt_sym(listing, f->module, f->sym);
	kl_buf_putc(listing, '\n');
	uint32_t n = r.n;
	render_free(&r);
	return n;
}

/*
 * Every function's diagnostics are gathered once, by a counting sort on
 * the symbol, so that a module with many broken functions costs time
 * linear in its diagnostics, not in their number times the functions'.
 */
uint32_t
kl_verify_render_module(const kl_module *m, const kl_diags *d,
			const char *file, bool inst_numbers, kl_buf *headers,
			kl_buf *listing)
{
	uint32_t nsyms = kl_module_num_syms(m);
	uint32_t *start = kl_calloc((size_t)nsyms + 2, sizeof *start);
	for (uint32_t k = 0; k < d->len; k++)
		if (d->items[k].func.id < nsyms)
			start[d->items[k].func.id + 2]++;
	for (uint32_t s = 2; s <= nsyms + 1; s++)
		start[s] += start[s - 1];
	/* start[s + 1] is now where symbol s's diagnostics go; each place
	 * taken moves it on, so it ends where s's end. */
	kl_diag *sorted = kl_malloc(((size_t)start[nsyms + 1] + 1) *
				    sizeof *sorted);
	for (uint32_t k = 0; k < d->len; k++)
		if (d->items[k].func.id < nsyms)
			sorted[start[d->items[k].func.id + 1]++] = d->items[k];
	uint32_t shown = 0;
	for (uint32_t s = 0; s < nsyms; s++) {
		const kl_func *f = kl_sym_func(m, (kl_sym){ s });
		uint32_t n = start[s + 1] - start[s];
		if (!f || n == 0)
			continue;
		/* a view of s's diagnostics: the messages stay d's */
		kl_diags mine = { sorted + start[s], n, n };
		shown += kl_verify_render(f, &mine, file, inst_numbers, headers,
					  listing);
	}
	free(sorted);
	free(start);
	return shown;
}
