/*
 * emit_asm_alloc.c -- where each value lives (emit_asm.h): a register
 * or a stack slot, chosen by linear scan (Poletto and Sarkar, "Linear
 * Scan Register Allocation", 1999) over one live interval per value.
 * The registers are the five callee-saved ones, which keep values
 * across calls, and five caller-saved ones no instruction's code uses,
 * for values whose intervals hold no call, no alloca taken from the
 * stack and not the entry.
 *
 * Positions number the blocks in emit_asm_order.c's order: a block's
 * start (where its parameters are defined), then each instruction. A
 * value's interval runs from its definition to its last use (a branch
 * argument is used at the branch), widened so that it covers every
 * place the value is live, and some where it is not: with the loops as
 * ranges of the order, over the range of the outermost loop that holds
 * a use and not the definition (the value is live all around it);
 * otherwise over the blocks where kl_liveness has it live-in or
 * live-out. Two values share a register or a slot when their intervals
 * do not overlap, and also when one ends where the other is defined:
 * an instruction reads all its operands before it writes its results.
 *
 * A block parameter is written on each edge into its block, at the
 * branch, not at its block's start; that is safe because whatever is
 * live on the edge is live-in at the block (and so overlaps the
 * parameter there) or is one of the edge's arguments, and the copies
 * go through memory when an argument's place is a written parameter's.
 *
 * When liveness would be too big (past 16 entries an instruction),
 * every value gets its own slot.
 */
#include "emit_asm.h"

#define NO_POS UINT32_MAX

typedef struct scan {
	uint32_t *start, *end; /* per value */
	uint32_t *def;         /* per value: where it is defined */
	uint32_t npos;
	/* per position: how many before it clobber the caller-saved
	 * registers (calls, allocas on the stack, the entry); as many as
	 * blocks and instructions, and one */
	uint32_t *clobbers;
} scan;

/* Does the code of instruction i use registers beyond the scratch
 * ones? */
static bool
clobbering(asm_func *c, kl_inst i)
{
	switch (kl_inst_opcode(c->f, i)) {
	case KL_OP_CALL:
	case KL_OP_CALL_INDIRECT:
	case KL_OP_ALLOCA_DYN:
		return true;
	case KL_OP_ALLOCA:
		return !asm_in_frame(c, i);
	default:
		return false;
	}
}

static void
mark(scan *s, uint32_t pos, bool clobber)
{
	s->clobbers[pos + 1] = s->clobbers[pos] + clobber;
}

/* Does v's interval hold a position that clobbers the caller-saved
 * registers (its ends included: a call's arguments are read while
 * others are written)? */
static bool
crosses_clobber(const scan *s, uint32_t v)
{
	return s->clobbers[s->end[v] + 1] != s->clobbers[s->start[v]];
}

static void widen(scan *s, kl_value v, uint32_t pos);

static void
define(scan *s, kl_value v, uint32_t pos)
{
	s->def[v.id] = pos;
	widen(s, v, pos);
}

static void
widen(scan *s, kl_value v, uint32_t pos)
{
	if (s->start[v.id] == NO_POS || pos < s->start[v.id])
		s->start[v.id] = pos;
	if (s->end[v.id] == NO_POS || pos > s->end[v.id])
		s->end[v.id] = pos;
}

/* What widens an interval at a use, besides the use itself: with loops
 * as ranges, the outermost loop holding the use and not the value's
 * definition, which the value is live all around (found by climbing
 * the loop tree in jumps of 2^j: up[j][l], KL_NONE past the root). */
typedef struct around {
	uint32_t *reach; /* per loop: its last position */
	uint32_t **up;
	uint32_t levels;
} around;

static void
use(asm_func *c, scan *s, const around *ar, kl_value v, kl_block at,
    uint32_t pos)
{
	v = kl_value_resolve(c->f, v);
	widen(s, v, pos);
	if (!ar)
		return;
	kl_block def = kl_value_def_block(c->f, v);
	kl_loop l = kl_loops_innermost(c->loops, at);
	if (def.id == KL_NONE || l.id == KL_NONE ||
	    kl_loop_contains(c->loops, l, def))
		return;
	for (uint32_t j = ar->levels; j-- > 0;) {
		uint32_t up = ar->up[j][l.id];
		if (up != KL_NONE &&
		    !kl_loop_contains(c->loops, (kl_loop){ up }, def))
			l.id = up;
	}
	widen(s, v, ar->reach[l.id]);
}

/* Number the positions in the blocks' order; with live (not NULL), the
 * hull takes in each block's live-in and live-out values too. */
static void
walk(asm_func *c, scan *s, const around *ar, const kl_liveness *live)
{
	const kl_func *f = c->f;
	uint32_t pos = 0, n;
	for (uint32_t k = 0; k < c->norder; k++) {
		kl_block b = c->order[k];
		/* (the entry's top: the parameters arrive in argument
		 * registers) */
		mark(s, pos, pos == 0);
		uint32_t top = pos++;
		for (uint32_t j = 0; j < kl_block_num_params(f, b); j++)
			define(s, kl_value_resolve(f, kl_block_param(f, b, j)),
			       top);
		const kl_value *in = live ? kl_liveness_live_in(live, b, &n)
					  : NULL;
		for (uint32_t j = 0; in && j < n; j++)
			widen(s, in[j], top);
		uint32_t last = top;
		for (kl_inst i = kl_block_first_inst(f, b); i.id != KL_NONE;
		     i = kl_inst_next(f, i)) {
			mark(s, pos, clobbering(c, i));
			last = pos++;
			for (uint32_t j = 0; j < kl_inst_num_args(f, i); j++)
				use(c, s, ar, kl_inst_arg(f, i, j), b, last);
			for (uint32_t j = 0; j < kl_inst_num_results(f, i); j++)
				define(s, kl_inst_result(f, i, j), last);
			for (uint32_t d = 0; d < kl_inst_num_dests(f, i); d++)
				for (uint32_t j = 0;
				     j < kl_inst_dest_num_args(f, i, d); j++)
					use(c, s, ar,
					    kl_inst_dest_arg(f, i, d, j), b,
					    last);
		}
		const kl_value *out = live ? kl_liveness_live_out(live, b, &n)
					   : NULL;
		for (uint32_t j = 0; out && j < n; j++)
			widen(s, out[j], last);
	}
	s->npos = pos;
}

/* With loops as ranges: each loop's last position, and the jumps up its
 * tree. */
static void
make_around(asm_func *c, around *ar)
{
	const kl_func *f = c->f;
	uint32_t nloops = kl_loops_count(c->loops);
	ar->reach = kl_calloc(nloops + 1, sizeof *ar->reach);
	uint32_t pos = 0, depth = 0;
	for (uint32_t k = 0; k < c->norder; k++) {
		kl_block b = c->order[k];
		pos++;
		for (kl_inst i = kl_block_first_inst(f, b); i.id != KL_NONE;
		     i = kl_inst_next(f, i))
			pos++;
		kl_loop l = kl_loops_innermost(c->loops, b);
		if (l.id != KL_NONE && pos - 1 > ar->reach[l.id])
			ar->reach[l.id] = pos - 1;
	}
	/* children are numbered after their parents: fold upwards */
	for (uint32_t l = nloops; l-- > 0;) {
		kl_loop p = kl_loop_parent(c->loops, (kl_loop){ l });
		if (p.id != KL_NONE && ar->reach[l] > ar->reach[p.id])
			ar->reach[p.id] = ar->reach[l];
		uint32_t d = kl_loop_depth(c->loops, (kl_loop){ l });
		depth = d > depth ? d : depth;
	}
	ar->levels = 1;
	while ((UINT32_C(1) << ar->levels) < depth)
		ar->levels++;
	ar->up = kl_malloc(ar->levels * sizeof *ar->up);
	for (uint32_t j = 0; j < ar->levels; j++) {
		ar->up[j] = kl_malloc((nloops + 1) * sizeof *ar->up[j]);
		for (uint32_t l = 0; l < nloops; l++) {
			uint32_t below = j ? ar->up[j - 1][l] : l;
			ar->up[j][l] =
				j ? (below == KL_NONE ? KL_NONE
						      : ar->up[j - 1][below])
				  : kl_loop_parent(c->loops, (kl_loop){ l }).id;
		}
	}
}

static void
free_around(around *ar)
{
	for (uint32_t j = 0; j < ar->levels; j++)
		free(ar->up[j]);
	free(ar->up);
	free(ar->reach);
}

/* The intervals, from the loops when they are ranges of the blocks'
 * order (a value used in a loop it is not defined in is live over the
 * loop's range; anywhere else between its definition and its uses), or
 * else from kl_liveness, whose sets may grow quadratically: past a
 * limit proportional to the function there are none (false). */
static bool
intervals(asm_func *c, scan *s)
{
	if (c->loops_are_ranges) {
		around ar = { 0 };
		make_around(c, &ar);
		walk(c, s, &ar, NULL);
		free_around(&ar);
		return true;
	}
	kl_liveness *lv = kl_liveness_new();
	kl_liveness_set_limit(lv, 16 * (uint64_t)kl_func_inst_bound(c->f) +
					  (1u << 16));
	bool ok = kl_liveness_compute(lv, c->f, c->cfg) == KL_OK;
	if (ok)
		walk(c, s, NULL, lv);
	kl_liveness_free(lv);
	return ok;
}

/* A binary heap of spilled intervals by their end, to free their
 * slots. */
typedef struct slot_heap {
	uint64_t *items; /* end << 32 | slot */
	uint32_t len;
} slot_heap;

static void
heap_push(slot_heap *h, uint64_t x)
{
	uint32_t k = h->len++;
	while (k > 0 && h->items[(k - 1) / 2] > x) {
		h->items[k] = h->items[(k - 1) / 2];
		k = (k - 1) / 2;
	}
	h->items[k] = x;
}

static uint64_t
heap_pop(slot_heap *h)
{
	uint64_t top = h->items[0], x = h->items[--h->len];
	uint32_t k = 0;
	for (;;) {
		uint32_t child = 2 * k + 1;
		if (child >= h->len)
			break;
		if (child + 1 < h->len && h->items[child + 1] < h->items[child])
			child++;
		if (h->items[child] >= x)
			break;
		h->items[k] = h->items[child];
		k = child;
	}
	if (h->len)
		h->items[k] = x;
	return top;
}

typedef struct allocator {
	asm_func *c;
	scan *s;
	uint32_t active[ASM_NREGS]; /* the value in each register, or NONE */
	slot_heap spilled;
	uint32_t *free_slots;
	uint32_t nfree;
} allocator;

/* Give v a slot: a free one when v starts now, a new one when it
 * started before (a slot freed since may have been in use then). */
static void
spill(allocator *a, uint32_t v, bool now)
{
	uint32_t slot = now && a->nfree ? a->free_slots[--a->nfree]
					: a->c->nslots++;
	a->c->loc[v] = -(int32_t)slot - 1;
	heap_push(&a->spilled, (uint64_t)a->s->end[v] << 32 | slot);
}

/* Is w's interval over by start, when another begins? Over before it,
 * or at it when w was defined earlier: its last use is the instruction
 * that defines the other, which reads its operands first. (Its
 * definition, not its interval's start: a use in a block that cannot
 * run may come before the definition.) Two values
 * defined at one place (a call's results, a block's parameters) never
 * share, even when one of them is never used: an edge writes every
 * parameter. (A slot is freed only when its interval ended before.) */
static bool
ended(const scan *s, uint32_t w, uint32_t start)
{
	return s->end[w] < start || (s->end[w] == start && s->def[w] < start);
}

static void
place(allocator *a, uint32_t v)
{
	asm_func *c = a->c;
	uint32_t start = a->s->start[v];
	uint32_t free_reg = ASM_NREGS, furthest = ASM_NREGS;
	for (uint32_t r = 0; r < ASM_NREGS; r++) {
		uint32_t w = a->active[r];
		if (w != KL_NONE && ended(a->s, w, start))
			a->active[r] = w = KL_NONE;
	}
	/* caller-saved registers first (nothing to save), when v crosses
	 * no clobber */
	bool any = !crosses_clobber(a->s, v);
	for (uint32_t k = 0; k < ASM_NREGS; k++) {
		uint32_t r = (k + ASM_NSAVED) % ASM_NREGS;
		if (r >= ASM_NSAVED && !any)
			continue;
		uint32_t w = a->active[r];
		if (w == KL_NONE && free_reg == ASM_NREGS)
			free_reg = r;
		if (w != KL_NONE &&
		    (furthest == ASM_NREGS ||
		     a->s->end[w] > a->s->end[a->active[furthest]]))
			furthest = r;
	}
	while (a->spilled.len && (a->spilled.items[0] >> 32) < start)
		a->free_slots[a->nfree++] = (uint32_t)heap_pop(&a->spilled);
	if (free_reg == ASM_NREGS &&
	    a->s->end[a->active[furthest]] > a->s->end[v]) {
		/* the register goes to v; the interval that ends last
		 * goes to memory */
		spill(a, a->active[furthest], false);
		free_reg = furthest;
	}
	if (free_reg == ASM_NREGS) {
		spill(a, v, true);
		return;
	}
	a->active[free_reg] = v;
	c->loc[v] = (int32_t)free_reg + 1;
	if (free_reg < ASM_NSAVED)
		c->used_regs |= 1u << free_reg;
}

void
asm_allocate(asm_func *c)
{
	const kl_func *f = c->f;
	uint32_t nvalues = kl_func_value_bound(f);
	scan s = { 0 };
	s.start = kl_malloc((nvalues + 1) * sizeof *s.start);
	s.def = kl_malloc((nvalues + 1) * sizeof *s.def);
	s.end = kl_malloc((nvalues + 1) * sizeof *s.end);
	for (uint32_t v = 0; v <= nvalues; v++)
		s.start[v] = s.end[v] = s.def[v] = NO_POS;
	s.clobbers = kl_calloc((size_t)kl_func_block_bound(f) +
				       kl_func_inst_bound(f) + 1,
			       sizeof *s.clobbers);
	if (!intervals(c, &s)) {
		for (uint32_t v = 0; v < nvalues; v++)
			c->loc[v] = -(int32_t)v - 1;
		c->nslots = nvalues;
		free(s.start);
		free(s.def);
		free(s.end);
		free(s.clobbers);
		return;
	}
	/* the values in order of their starts (a counting sort), then by
	 * number */
	uint32_t *first = kl_calloc((size_t)s.npos + 2, sizeof *first);
	uint32_t *order = kl_malloc((nvalues + 1) * sizeof *order);
	/* (a frame alloca that only loads and stores use needs no place:
	 * they address the frame) */
	for (uint32_t v = 0; v < nvalues; v++)
		if (s.start[v] != NO_POS && asm_unplaced(c, (kl_value){ v }))
			s.start[v] = NO_POS;
	for (uint32_t v = 0; v < nvalues; v++)
		if (s.start[v] != NO_POS)
			first[s.start[v] + 1]++;
	for (uint32_t p = 0; p <= s.npos; p++)
		first[p + 1] += first[p];
	uint32_t placed = 0;
	for (uint32_t v = 0; v < nvalues; v++)
		if (s.start[v] != NO_POS) {
			order[first[s.start[v]]++] = v;
			placed++;
		}
	allocator a = { .c = c, .s = &s };
	for (uint32_t r = 0; r < ASM_NREGS; r++)
		a.active[r] = KL_NONE;
	a.spilled.items = kl_malloc((placed + 1) * sizeof *a.spilled.items);
	a.free_slots = kl_malloc((placed + 1) * sizeof *a.free_slots);
	for (uint32_t k = 0; k < placed; k++)
		place(&a, order[k]);
	free(a.spilled.items);
	free(a.free_slots);
	free(first);
	free(order);
	free(s.start);
	free(s.def);
	free(s.end);
	free(s.clobbers);
}
