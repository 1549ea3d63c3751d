/*
 * uses.c -- where each value is used: for passes that replace uses (with
 * kl_inst_set_arg / kl_inst_set_dest_arg) or remove what nothing uses.
 *
 * Two walks over the placed instructions in layout order: the first
 * counts the uses of each value, a prefix sum turns the counts into
 * starts, the second stores each use at its value's next slot. So the
 * uses of a value come in layout order, an instruction's value operands
 * before its branch arguments, and the whole is O(instructions + uses)
 * with one array of uses and one of starts, both kept from compute to
 * compute. A use through an alias is recorded under the value the alias
 * resolves to; an operand that resolves to no value (out of range, a
 * broken chain) is not recorded.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis.h"

struct kl_uses {
	uint32_t nvalues;    /* start covers values below this */
	uint32_t *start;     /* nvalues + 1; v's uses: [start[v], start[v+1]) */
	uint32_t start_cap;
	kl_use *uses;
	uint32_t uses_cap;
	uint32_t *resolved_buf; /* func_resolve_table's */
	uint32_t resolved_cap;
	/* Where each value resolved at compute (NULL: no aliases, each to
	 * itself), so that answers stay those of the function computed. */
	const uint32_t *resolved;
};

kl_uses *
kl_uses_new(void)
{
	return kl_calloc(1, sizeof(kl_uses));
}

void
kl_uses_free(kl_uses *u)
{
	if (!u)
		return;
	free(u->start);
	free(u->uses);
	free(u->resolved_buf);
	free(u);
}

/* The value a use of v stands for, or KL_NONE. */
static uint32_t
used_value(const kl_uses *u, const kl_func *f, uint32_t v)
{
	uint32_t r = resolve_with(f, u->resolved, v);
	if (r >= f->nvalues)
		return KL_NONE;
	uint8_t k = f->values[r].kind;
	/* (A removed result or parameter still has its uses listed: those
	 * a pass has yet to replace.) */
	return k == VK_ALIAS || k == VK_UNUSED ? KL_NONE : r;
}

/* What walk hands each use to. */
typedef struct use_walk {
	kl_uses *u;
	const kl_func *f;
	uint32_t inst;
	bool fill;
} use_walk;

/* Count (fill false) or store (fill true) one use of v. */
static void
note(void *ctx, uint32_t v, uint32_t dest, uint32_t index)
{
	use_walk *w = ctx;
	uint32_t r = used_value(w->u, w->f, v);
	if (r == KL_NONE)
		return;
	if (w->fill)
		w->u->uses[w->u->start[r]++] =
			(kl_use){ { w->inst }, dest, index };
	else
		w->u->start[r + 1]++;
}

static void
walk(kl_uses *u, const kl_func *f, bool fill)
{
	use_walk w = { u, f, KL_NONE, fill };
	for (uint32_t st, b = layout_first(f, &st); b != KL_NONE;
	     b = layout_next(f, b, &st))
		for (uint32_t ist, i = insts_first(f, b, &ist); i != KL_NONE;
		     i = insts_next(f, i, &ist)) {
			w.inst = i;
			inst_each_use(f, i, note, &w);
		}
}

/* Where each value resolves when no alias leads to another (so
 * func_resolve_table made no table); NULL if there are no aliases. */
static const uint32_t *
one_step_table(kl_uses *u, const kl_func *f)
{
	uint32_t nv = f->nvalues, v = 0;
	while (v < nv && f->values[v].kind != VK_ALIAS)
		v++;
	if (v == nv)
		return NULL;
	kl_grow(&u->resolved_buf, &u->resolved_cap, sizeof *u->resolved_buf,
		nv);
	for (v = 0; v < nv; v++)
		u->resolved_buf[v] = f->values[v].kind == VK_ALIAS
					     ? f->values[v].def : v;
	return u->resolved_buf;
}

void
kl_uses_compute(kl_uses *u, const kl_func *f)
{
	uint32_t nv = f->nvalues;
	if (nv + 1 > u->start_cap) {
		u->start_cap = nv + 1;
		u->start = kl_realloc(u->start,
				      (size_t)u->start_cap * sizeof *u->start);
	}
	u->nvalues = nv;
	memset(u->start, 0, (size_t)(nv + 1) * sizeof *u->start);
	u->resolved = func_resolve_table(f, &u->resolved_buf,
					 &u->resolved_cap);
	if (!u->resolved)
		u->resolved = one_step_table(u, f);
	walk(u, f, false);
	/* A use is an operand word of a placed instruction, and those are
	 * fewer than 2^32 (the pool's and the tables' own limits) as long as
	 * instructions hold at most a few inline words each. */
	uint64_t total = 0;
	for (uint32_t v = 0; v < nv; v++) {
		total += u->start[v + 1];
		KL_ASSERT(total < UINT32_MAX);
		u->start[v + 1] = (uint32_t)total;
	}
	kl_grow(&u->uses, &u->uses_cap, sizeof *u->uses, total);
	walk(u, f, true);
	/* Filling moved each start to the next value's: move them back. */
	memmove(u->start + 1, u->start, (size_t)nv * sizeof *u->start);
	u->start[0] = 0;
}

const kl_use *
kl_uses_of(const kl_uses *u, const kl_func *f, kl_value v, uint32_t *n)
{
	*n = 0;
	if (v.id >= u->nvalues || v.id >= f->nvalues)
		return NULL;
	/* Resolved as at compute: what is no value has no uses listed. */
	uint32_t r = u->resolved ? u->resolved[v.id] : v.id;
	if (r >= u->nvalues)
		return NULL;
	*n = u->start[r + 1] - u->start[r];
	return *n ? u->uses + u->start[r] : NULL;
}

kl_value
kl_uses_resolve(const kl_uses *u, const kl_func *f, kl_value v)
{
	if (v.id >= u->nvalues || v.id >= f->nvalues)
		return kl_value_resolve(f, v);
	/* (no table: no alias existed, each value stood for itself) */
	return (kl_value){ u->resolved ? u->resolved[v.id] : v.id };
}
