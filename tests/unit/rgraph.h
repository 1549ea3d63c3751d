/*
 * rgraph.h -- random functions for the analysis unit tests, built with the
 * public builder API, and naive reference computations to compare the
 * analyses with: dominators by the O(n^2) dataflow equations on bit sets,
 * frontiers from their definition, liveness by iterating the dataflow
 * equations to a fixed point.
 *
 * Included by each tests/unit/test_analysis*.c program (a header of static
 * functions, so every test program is one file plus this).
 *
 * Random functions have up to RG_MAX block numbers (holes included: some
 * block numbers are created but never placed, and some branches target
 * such unplaced blocks, which must give no edge). Terminators are random:
 * return, trap, jump, brif (both arms possibly equal) and br_table with
 * repeated targets; some blocks get an extra branch in their middle, as
 * unverified IR may have. Every block has a few instructions using values
 * from anywhere, so liveness has work to do.
 */
#ifndef KEEL_RGRAPH_H
#define KEEL_RGRAPH_H

#include <stdlib.h>

#include "keel.h"

#define RG_MAX 64 /* block ids < 64: a block set is one uint64_t */

typedef struct rng {
	uint64_t s;
} rng;

static inline uint32_t
rng_next(rng *r, uint32_t n)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15u);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	z ^= z >> 31;
	return n ? (uint32_t)(z % n) : 0;
}

typedef struct rgraph {
	kl_module *m;
	kl_func *f;
	kl_block placed[RG_MAX]; /* layout order */
	uint32_t nplaced;
	kl_block unplaced[RG_MAX];
	uint32_t nunplaced;
	kl_value vals[4096]; /* every value defined so far */
	uint32_t nvals;
} rgraph;

static inline kl_value
rg_any_value(rgraph *g, rng *r)
{
	return g->vals[rng_next(r, g->nvals)];
}

/* A destination: a placed non-entry block (rarely an unplaced one), with
 * as many arguments as it has parameters. */
static inline kl_block_call
rg_dest(rgraph *g, rng *r, kl_value *argbuf)
{
	kl_block b;
	if (g->nunplaced && rng_next(r, 20) == 0)
		b = g->unplaced[rng_next(r, g->nunplaced)];
	else if (g->nplaced > 1)
		b = g->placed[1 + rng_next(r, g->nplaced - 1)];
	else
		b = g->placed[0]; /* a one-block function: a self-loop */
	uint32_t np = kl_block_num_params(g->f, b);
	for (uint32_t k = 0; k < np; k++)
		argbuf[k] = rg_any_value(g, r);
	return (kl_block_call){ b, argbuf, np };
}

/* Append a random branching (or returning) instruction at bld's place. */
static inline void
rg_terminator(rgraph *g, rng *r, kl_builder *bld, bool must_branch)
{
	kl_value a0[4], a1[4], at[6][4];
	kl_value c = g->vals[0];
	uint32_t kind = rng_next(r, 100);
	if (must_branch)
		kind = 20 + rng_next(r, 80);
	if (kind < 8) {
		kl_build_return(bld, NULL, 0);
	} else if (kind < 14) {
		kl_build_trap(bld, KL_TRAP_UNREACHABLE, 0);
	} else if (kind < 40) {
		kl_build_jump(bld, rg_dest(g, r, a0));
	} else if (kind < 85) {
		kl_block_call t = rg_dest(g, r, a0);
		kl_block_call e = rng_next(r, 8) ? rg_dest(g, r, a1) : t;
		kl_build_brif(bld, c, t, e);
	} else {
		kl_block_call d = rg_dest(g, r, a0), tab[6];
		uint32_t n = rng_next(r, 6);
		for (uint32_t k = 0; k < n; k++)
			tab[k] = rng_next(r, 3) ? rg_dest(g, r, at[k])
						: (k ? tab[k - 1] : d);
		kl_build_br_table(bld, c, d, tab, n);
	}
}

/* Some value-defining instructions using values from anywhere. */
static inline void
rg_body(rgraph *g, rng *r, kl_builder *bld)
{
	uint32_t n = rng_next(r, 4);
	for (uint32_t k = 0; k < n && g->nvals < 4000; k++) {
		kl_value v;
		if (rng_next(r, 3) == 0)
			v = kl_build_iconst(bld, KL_TYPE_I32, (int64_t)k);
		else
			v = kl_build_binary(bld, KL_OP_IADD,
					    rg_any_value(g, r),
					    rg_any_value(g, r));
		g->vals[g->nvals++] = v;
	}
}

/*
 * A random function of about n placed blocks (1 <= n, n + holes < 64).
 * Block 0 is the entry, with one i32 parameter (the branch condition).
 */
static inline void
rg_build(rgraph *g, rng *r, uint32_t n)
{
	memset(g, 0, sizeof *g);
	g->m = kl_module_new();
	kl_type p = KL_TYPE_I32;
	kl_signature sig = { &p, NULL, 1, 0, false };
	kl_module_add_func(g->m, "f", 1, &sig, &g->f);
	kl_func *f = g->f;
	uint32_t nholes = n > 2 ? rng_next(r, n / 4 + 1) : 0;
	if (n + nholes > RG_MAX)
		nholes = RG_MAX - n;
	/* Create blocks in random roles; block 0 must be the entry. */
	kl_block entry = kl_func_new_block(f);
	kl_func_append_block(f, entry);
	g->placed[g->nplaced++] = entry;
	g->vals[g->nvals++] = kl_block_append_param(f, entry, KL_TYPE_I32);
	uint32_t left = n - 1 + nholes;
	while (left--) {
		kl_block b = kl_func_new_block(f);
		bool place = g->nplaced < n &&
			     (g->nunplaced >= nholes || rng_next(r, 4) != 0);
		if (!place) {
			g->unplaced[g->nunplaced++] = b;
			continue;
		}
		/* Insert at a random place after the entry. */
		uint32_t at = rng_next(r, g->nplaced);
		kl_func_insert_block_after(f, b, g->placed[at]);
		memmove(&g->placed[at + 2], &g->placed[at + 1],
			(g->nplaced - at - 1) * sizeof g->placed[0]);
		g->placed[at + 1] = b;
		g->nplaced++;
		uint32_t np = rng_next(r, 3);
		for (uint32_t k = 0; k < np; k++)
			g->vals[g->nvals++] =
				kl_block_append_param(f, b, KL_TYPE_I32);
	}
	kl_builder bld;
	kl_builder_init(&bld, f);
	for (uint32_t i = 0; i < g->nplaced; i++) {
		kl_builder_at_end(&bld, g->placed[i]);
		rg_body(g, r, &bld);
		if (rng_next(r, 16) == 0) {
			rg_terminator(g, r, &bld, true); /* mid-block branch */
			rg_body(g, r, &bld);
		}
		rg_terminator(g, r, &bld, false);
	}
}

/* Does every block of f branch at most once, in its last instruction (as
 * in verified IR)? */
static inline bool
rg_branches_only_at_ends(const kl_func *f)
{
	for (kl_block b = kl_func_first_block(f); b.id != KL_NONE;
	     b = kl_block_next(f, b))
		for (kl_inst i = kl_block_first_inst(f, b); i.id != KL_NONE;
		     i = kl_inst_next(f, i))
			if (kl_op_is_branch(kl_inst_opcode(f, i)) &&
			    kl_inst_next(f, i).id != KL_NONE)
				return false;
	return true;
}

static inline void
rg_free(rgraph *g)
{
	kl_module_free(g->m);
}

/* ---- naive references ---- */

/* Successor sets (as bit masks) of every block, from the IR itself. */
static inline void
naive_succs(const kl_func *f, uint64_t *succ)
{
	memset(succ, 0, RG_MAX * sizeof *succ);
	for (kl_block b = kl_func_first_block(f); b.id != KL_NONE;
	     b = kl_block_next(f, b)) {
		for (kl_inst i = kl_block_first_inst(f, b); i.id != KL_NONE;
		     i = kl_inst_next(f, i)) {
			uint32_t n = kl_inst_num_dests(f, i);
			for (uint32_t k = 0; k < n; k++) {
				kl_block t = kl_inst_dest(f, i, k);
				bool placed = false;
				for (kl_block x = kl_func_first_block(f);
				     x.id != KL_NONE; x = kl_block_next(f, x))
					placed |= x.id == t.id;
				if (placed)
					succ[b.id] |= (uint64_t)1 << t.id;
			}
		}
	}
}

/* dom[b] = set of blocks dominating b (0 if b is unreachable). */
static inline void
naive_dominators(const kl_func *f, uint64_t *dom)
{
	uint64_t succ[RG_MAX], reach = 0, all = 0;
	naive_succs(f, succ);
	uint32_t entry = kl_func_first_block(f).id;
	for (kl_block b = kl_func_first_block(f); b.id != KL_NONE;
	     b = kl_block_next(f, b))
		all |= (uint64_t)1 << b.id;
	/* Reachability by iteration. */
	reach = (uint64_t)1 << entry;
	for (bool changed = true; changed;) {
		changed = false;
		for (uint32_t b = 0; b < RG_MAX; b++)
			if ((reach >> b & 1) && (succ[b] & ~reach)) {
				reach |= succ[b];
				changed = true;
			}
	}
	for (uint32_t b = 0; b < RG_MAX; b++)
		dom[b] = (reach >> b & 1) ? all & reach : 0;
	dom[entry] = (uint64_t)1 << entry;
	for (bool changed = true; changed;) {
		changed = false;
		for (uint32_t b = 0; b < RG_MAX; b++) {
			if (!(reach >> b & 1) || b == entry)
				continue;
			uint64_t d = reach;
			for (uint32_t p = 0; p < RG_MAX; p++)
				if ((reach >> p & 1) && (succ[p] >> b & 1))
					d &= dom[p];
			d |= (uint64_t)1 << b;
			if (d != dom[b]) {
				dom[b] = d;
				changed = true;
			}
		}
	}
}

static inline uint32_t
popcount64(uint64_t x)
{
	uint32_t n = 0;
	for (; x; x &= x - 1)
		n++;
	return n;
}

/* The immediate dominator from the dominator sets, or KL_NONE. */
static inline uint32_t
naive_idom(const uint64_t *dom, uint32_t b)
{
	uint32_t want = popcount64(dom[b]) - 1;
	for (uint32_t d = 0; d < RG_MAX; d++)
		if (d != b && (dom[b] >> d & 1) && popcount64(dom[d]) == want)
			return d;
	return KL_NONE;
}

#endif /* KEEL_RGRAPH_H */
