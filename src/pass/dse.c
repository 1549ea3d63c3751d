/*
 * dse.c -- dead store elimination: a store whose bytes are written again
 * before anything can read them, on every way on from it, is removed;
 * so is a store to an alloca that nothing reads (its address does not
 * escape and no load reads it), or one to an alloca whose end makes it
 * pointless (the function returns, or traps, first).
 *
 * A walk of the reachable blocks in post-order (a block after its
 * successors, but for an edge back into a loop) carries, backwards
 * from each block's end, a short list of *overwrites*: bytes that will
 * be written before being read on every way from this point to the end
 * of the function. A block ends with what all its successors start with
 * (their lists met, entry by entry), nothing for a successor not walked
 * yet (an edge round a loop: the pass makes no guess there), and the
 * allocas' bytes at a return or a trap (they die with the call; data
 * does not: a program embedding keel can read what a trapped call left
 * there). Walking back over a store: if an overwrite holds all its
 * bytes, it is dead; otherwise its bytes become an overwrite. A load
 * takes away the bytes it may read (alias.c says which), a call every
 * overwrite but those of allocas whose address does not escape.
 *
 * Traps. A store that can trap (outside its object, into const data)
 * traps heap_oob; removed, it leaves the overwriting store, which holds
 * its bytes and so traps heap_oob too, unless something between them
 * ends the program first in another way: an instruction that can trap
 * otherwise (a division, an alloca short of memory), or a call (which
 * may print, exit or trap). A store to data that cannot trap is no
 * better: what it wrote stays there after a trap. An overwrite that such
 * an instruction lies in front of is *crossed*: it only kills stores
 * inside an alloca of constant size (they cannot trap, and nothing reads
 * the alloca once the program has ended). Loads and stores between trap
 * heap_oob, as the store would: the same behaviour. The overwrites made
 * at a return or a trap are crossed from the start.
 *
 * At most MAX_OVERWRITES a point (more are dropped: fewer stores
 * found, never a wrong one; at a return, the function's first allocas
 * only, a list made once), so the walk is O(instructions + edges) times
 * a constant.
 */
#include <stdlib.h>
#include <string.h>

#include "../ir/ir.h"
#include "../util/util.h"
#include "alias.h"
#include "pass.h"

#define MAX_OVERWRITES 16

enum {
	OVER_RANGE,  /* the bytes of `at` */
	OVER_OBJECT, /* every byte of the alloca at.id */
};

typedef struct overwrite {
	mem_place at;
	uint8_t what;  /* OVER_* */
	bool crossed;  /* something that may end the program otherwise lies
			* between here and the write */
} overwrite;

/* A list of overwrites at one point. */
typedef struct over_list {
	overwrite e[MAX_OVERWRITES];
	uint32_t n;
} over_list;

/* Scratch kept from one function to the next (a pass report's state). */
typedef struct dse {
	alias_info alias;
	kl_cfg *cfg;
	kl_domtree *dt;
	overwrite *saved;  /* every walked block's list at its top */
	uint32_t *first;   /* by block: its list's start in saved */
	uint32_t *count;   /* by block: its list's length */
	bool *walked;      /* by block */
	uint32_t *resolved; /* func_resolve_table's buffer */
	const uint32_t *table; /* func_resolve_table's answer */
	uint32_t saved_len, saved_cap, blocks_cap, resolved_cap;
	over_list cur, met;
	over_list ends;    /* what a return or a trap ends with */
	uint32_t ends_first; /* where saved holds it */
} dse;

static void
dse_free(void *state)
{
	dse *d = state;
	if (!d)
		return;
	alias_free(&d->alias);
	kl_cfg_free(d->cfg);
	kl_domtree_free(d->dt);
	free(d->saved);
	free(d->first);
	free(d->count);
	free(d->walked);
	free(d->resolved);
	free(d);
}

static void *
dse_new(void)
{
	dse *d = kl_calloc(1, sizeof *d);
	d->cfg = kl_cfg_new();
	d->dt = kl_domtree_new();
	return d;
}

static void
push(over_list *l, overwrite e)
{
	if (l->n < MAX_OVERWRITES)
		l->e[l->n++] = e;
}

/* Does overwrite e hold every byte of store place p? */
static bool
holds(const overwrite *e, const mem_place *p)
{
	if (e->what == OVER_OBJECT)
		return p->kind == BASE_ALLOCA && p->id == e->at.id;
	return alias_covers(&e->at, p);
}

/* May a load at p read bytes of overwrite e? */
static bool
read_by(const dse *d, const overwrite *e, const mem_place *p)
{
	if (e->what == OVER_OBJECT) {
		if (p->kind == BASE_ALLOCA)
			return p->id == e->at.id;
		return p->kind == BASE_VALUE && d->alias.escaped[e->at.id];
	}
	return alias_may_overlap(&d->alias, &e->at, p);
}

/* What both x and y overwrite, if anything, into *out. */
static bool
meet(const overwrite *x, const overwrite *y, overwrite *out)
{
	if (x->what > y->what) {
		const overwrite *t = x;
		x = y;
		y = t;
	}
	/* x is the narrower: a range, or an object against an object */
	bool crossed = x->crossed | y->crossed;
	*out = *x;
	out->crossed = crossed;
	if (y->what == OVER_OBJECT)
		return x->at.kind == BASE_ALLOCA && x->at.id == y->at.id;
	/* two ranges: their common bytes */
	if (x->at.kind != y->at.kind || x->at.id != y->at.id)
		return false;
	int64_t lo = x->at.offset > y->at.offset ? x->at.offset
						  : y->at.offset;
	int64_t hi_x = x->at.offset + x->at.bytes;
	int64_t hi_y = y->at.offset + y->at.bytes;
	int64_t hi = hi_x < hi_y ? hi_x : hi_y;
	if (lo >= hi)
		return false;
	out->at.offset = lo;
	out->at.bytes = (uint32_t)(hi - lo);
	return true;
}

/* Is value v (an unknown base) a parameter of block b? Its bytes at
 * b's top are another value's on the edge into b. */
static bool
param_of(const kl_func *f, uint32_t v, uint32_t b)
{
	return v < f->nvalues && f->values[v].kind == VK_PARAM &&
	       f->values[v].def == b;
}

/* The successor s's list, as the end of a block branching to it sees
 * it, into l. */
static void
take_successor(const dse *d, const kl_func *f, uint32_t s, over_list *l)
{
	l->n = 0;
	if (s >= f->nblocks || !d->walked[s] || !d->count[s])
		return; /* (saved may be NULL) */
	const overwrite *e = d->saved + d->first[s];
	for (uint32_t k = 0; k < d->count[s]; k++)
		if (e[k].what != OVER_RANGE || e[k].at.kind != BASE_VALUE ||
		    !param_of(f, e[k].at.id, s))
			push(l, e[k]);
}

/* What block b ends with, into d->cur. */
static void
block_end(dse *d, const kl_func *f, uint32_t b)
{
	over_list *l = &d->cur;
	l->n = 0;
	uint32_t ns = kl_cfg_num_succs(d->cfg, (kl_block){ b });
	if (ns) {
		take_successor(d, f, kl_cfg_succ(d->cfg, (kl_block){ b }, 0).id,
			       l);
		for (uint32_t k = 1; k < ns && l->n; k++) {
			over_list *other = &d->met;
			over_list both = { .n = 0 };
			take_successor(d, f,
				       kl_cfg_succ(d->cfg, (kl_block){ b },
						   k).id, other);
			for (uint32_t i = 0; i < l->n; i++)
				for (uint32_t j = 0; j < other->n; j++) {
					overwrite e;
					if (meet(&l->e[i], &other->e[j], &e))
						push(&both, e);
				}
			*l = both;
		}
		return;
	}
	uint32_t last = f->blocks[b].last;
	kl_opcode op = last == KL_NONE ? KL_OP_COUNT : f->insts[last].op;
	if (op == KL_OP_RETURN || op == KL_OP_TRAP)
		*l = d->ends;
}

/* Append d->cur to saved; where it starts. */
static uint32_t
keep_list(dse *d)
{
	uint32_t at = d->saved_len;
	kl_grow(&d->saved, &d->saved_cap, sizeof *d->saved,
		(uint64_t)d->saved_len + d->cur.n);
	if (d->cur.n) /* (saved may be NULL yet) */
		memcpy(d->saved + at, d->cur.e, d->cur.n * sizeof *d->saved);
	d->saved_len += d->cur.n;
	return at;
}

/* What a return or a trap ends with: the allocas' bytes (they die with
 * the call), the first MAX_OVERWRITES of them, made once a function.
 * Not data: what a trapped call left there, a program embedding keel
 * can read. Crossed from the start: nothing but what cannot trap goes
 * for them. */
static void
make_ends(dse *d, const kl_func *f)
{
	d->ends.n = 0;
	for (uint32_t k = 0; k < d->alias.nallocas; k++) {
		overwrite e = { .what = OVER_OBJECT, .crossed = true };
		e.at.kind = BASE_ALLOCA;
		e.at.id = d->alias.allocas[k];
		if (e.at.id < f->nvalues)
			push(&d->ends, e);
	}
	/* kept once, for the blocks that end so and change nothing */
	d->cur = d->ends;
	d->ends_first = keep_list(d);
}

/* The overwrite e less the bytes of load place p, of the same base,
 * into l: what lies below p and what lies above (an object's bytes
 * run to the end of what an address can reach in it). */
static void
push_rest(over_list *l, const overwrite *e, const mem_place *p)
{
	int64_t lo = e->what == OVER_OBJECT ? 0 : e->at.offset;
	int64_t hi = e->what == OVER_OBJECT ? ALIAS_OBJECT_END
					    : e->at.offset + e->at.bytes;
	overwrite piece = *e;
	piece.what = OVER_RANGE;
	piece.at.kind = p->kind;
	if (p->offset > lo) {
		piece.at.offset = lo;
		piece.at.bytes = (uint32_t)((p->offset < hi ? p->offset : hi) -
					    lo);
		push(l, piece);
	}
	if (p->offset + p->bytes < hi) {
		int64_t from = p->offset + p->bytes > lo ? p->offset + p->bytes
							 : lo;
		piece.at.offset = from;
		piece.at.bytes = (uint32_t)(hi - from);
		push(l, piece);
	}
}

/* Take away from d->cur the bytes a load at p or a call (p NULL) may
 * read; after a call, the rest are crossed. */
static void
read_memory(dse *d, const mem_place *p)
{
	over_list rest = { .n = 0 };
	for (uint32_t k = 0; k < d->cur.n; k++) {
		overwrite e = d->cur.e[k];
		bool same = p && e.at.kind == p->kind && e.at.id == p->id;
		if (same) {
			push_rest(&rest, &e, p);
		} else if (p ? !read_by(d, &e, p)
			     : !alias_call_reaches(&d->alias, &e.at)) {
			e.crossed |= !p;
			push(&rest, e);
		}
	}
	d->cur = rest;
}

/* Is the store at p dead, with d->cur after it? One to an alloca that
 * cannot trap goes over anything: if the program ends first, nothing
 * can read the alloca any more. Others only where nothing between may
 * end it otherwise. */
static bool
store_dead(const dse *d, const mem_place *p)
{
	bool private = p->kind == BASE_ALLOCA && p->in_bounds;
	if (private && !d->alias.escaped[p->id] && !d->alias.loaded[p->id])
		return true; /* nothing ever reads the alloca */
	for (uint32_t k = 0; k < d->cur.n; k++) {
		const overwrite *e = &d->cur.e[k];
		if (holds(e, p) && (!e->crossed || private))
			return true;
	}
	return false;
}

/* Walk block b back from d->cur, its end; how many stores went. */
static uint64_t
walk_block(dse *d, kl_func *f, uint32_t b)
{
	uint64_t n = 0;
	for (uint32_t i = f->blocks[b].last; i != KL_NONE;) {
		uint32_t prev = f->nodes[i].prev;
		const kl_opinfo *info = &kl_op_table[f->insts[i].op];
		if (info->format == KL_FMT_STORE) {
			mem_place p = alias_place(&d->alias, i);
			if (store_dead(d, &p)) {
				kl_inst_remove(f, (kl_inst){ i });
				n++;
			} else {
				push(&d->cur, (overwrite){ p, OVER_RANGE,
							   false });
			}
		} else if (info->format == KL_FMT_LOAD) {
			mem_place p = alias_place(&d->alias, i);
			read_memory(d, &p);
		} else if (info->flags & KL_OPF_CALL) {
			read_memory(d, NULL);
		} else if ((info->flags & KL_OPF_CAN_TRAP) ||
			   info->format == KL_FMT_ALLOCA ||
			   info->format == KL_FMT_ALLOCA_DYN) {
			/* (an alloca traps stack_overflow when memory is
			 * short, though its opcode is not marked so) */
			for (uint32_t k = 0; k < d->cur.n; k++)
				d->cur.e[k].crossed = true;
		}
		i = prev;
	}
	return n;
}

static bool
same_overwrite(const overwrite *x, const overwrite *y)
{
	return x->what == y->what && x->crossed == y->crossed &&
	       x->at.kind == y->at.kind && x->at.in_bounds == y->at.in_bounds &&
	       x->at.id == y->at.id && x->at.bytes == y->at.bytes &&
	       x->at.offset == y->at.offset;
}

/* Is d->cur the list saved at first (count entries)? */
static bool
same_list(const dse *d, uint32_t first, uint32_t count)
{
	if (count != d->cur.n)
		return false;
	for (uint32_t k = 0; k < count; k++)
		if (!same_overwrite(&d->cur.e[k], &d->saved[first + k]))
			return false;
	return true;
}

/* Keep d->cur as block b's list at its top: a list saved already, when
 * it is the same as the end's or a successor's (most blocks: a chain of
 * blocks shares one list), else a copy. At most a few compared. */
static void
save(dse *d, const kl_func *f, uint32_t b)
{
	uint32_t first = KL_NONE;
	if (same_list(d, d->ends_first, d->ends.n))
		first = d->ends_first;
	uint32_t ns = kl_cfg_num_succs(d->cfg, (kl_block){ b });
	for (uint32_t k = 0; first == KL_NONE && k < ns && k < 4; k++) {
		uint32_t s = kl_cfg_succ(d->cfg, (kl_block){ b }, k).id;
		if (s < f->nblocks && d->walked[s] &&
		    same_list(d, d->first[s], d->count[s]))
			first = d->first[s];
	}
	d->first[b] = first != KL_NONE ? first : keep_list(d);
	d->count[b] = d->cur.n;
	d->walked[b] = true;
}

kl_status
kl_dse_func(kl_func *f, kl_pass_report *rep)
{
	func_edited(f);
	if (f->first_block == KL_NONE)
		return KL_OK;
	bool keep;
	dse *d = pass_scratch(rep, dse_free, dse_new, &keep);
	kl_cfg_compute(d->cfg, f);
	kl_domtree_compute(d->dt, f, d->cfg);
	d->table = func_resolve_table(f, &d->resolved, &d->resolved_cap);
	alias_compute(&d->alias, f, d->table);
	void **arrays[] = { (void **)&d->first, (void **)&d->count,
			    (void **)&d->walked };
	const size_t sizes[] = { sizeof *d->first, sizeof *d->count,
				 sizeof *d->walked };
	pass_grow_all(&d->blocks_cap, f->nblocks, 3, arrays, sizes);
	memset(d->walked, 0, f->nblocks * sizeof *d->walked);
	d->saved_len = 0;
	make_ends(d, f);
	uint32_t n;
	const kl_block *order = kl_domtree_postorder(d->dt, &n);
	uint64_t stores = 0;
	for (uint32_t k = 0; k < n; k++) {
		uint32_t b = order[k].id;
		block_end(d, f, b);
		stores += walk_block(d, f, b);
		save(d, f, b);
	}
	kl_pass_report_count(rep, "stores", stores);
	if (!keep)
		dse_free(d);
	return KL_OK;
}
