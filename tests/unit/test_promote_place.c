/*
 * test_promote_place.c -- the promote pass's two ways of placing the
 * candidate parameters of a big function must agree: all slots at once
 * as bit sets per block (at most SET_SLOTS slots), and slot by slot with
 * marks per block. Random functions with loads and stores of many slots
 * in random control flow (loops, irreducible ones, unreachable blocks)
 * are promoted both ways; the candidates (block and slot, in order) and
 * the printed results are compared, and the result must verify. The
 * blocks are numbered in a random order with holes, so that the entry
 * is rarely block 0 and the layout is not the numbers' order. Slots the
 * entry stores first, loads first or leaves alone, split allocas and
 * escaping ones make the dominating-store test take each of its
 * answers. Unverified input takes the big
 * functions' path at any size, so small functions are compared too. And
 * a function whose slots need more candidates than the budget allows
 * must be placed slot by slot either way, keeping what does not fit.
 * Last, the parameters that survive pruning must be those pruned SSA
 * asks for, against liveness and frontiers computed here.
 */
#include <stdlib.h>
#include <string.h>

#include "../../src/pass/promote.h"
#include "rgraph.h"
#include "unit.h"

enum { MAX_BLOCKS = 220, MAX_ALLOCAS = 100 };

typedef struct slot_ref {
	kl_value addr;
	int32_t offset;
	kl_type type;
} slot_ref;

/* An access of a random slot at b's place. */
static void
random_access(kl_builder *b, rng *r, const slot_ref *slots, uint32_t n,
	      bool store)
{
	const slot_ref *s = &slots[rng_next(r, n)];
	if (store) {
		kl_value v = kl_build_iconst(b, s->type, rng_next(r, 100));
		kl_build_store(b, KL_OP_STORE, v, s->addr, s->offset);
	} else {
		kl_build_load(b, KL_OP_LOAD, s->type, s->addr, s->offset);
	}
}

/* A random non-entry block to branch to. */
static kl_block_call
random_dest(rng *r, const kl_block *blocks, uint32_t nb)
{
	return (kl_block_call){ blocks[1 + rng_next(r, nb - 1)], NULL, 0 };
}

/*
 * %f(i32) -> i32 in m with nb blocks, blocks[k] the k-th of the layout,
 * its parameter in *param and b at the end of its entry block. The
 * blocks are numbered in a random order, with a few numbers left out of
 * the layout (holes): the entry is rarely block 0, and the layout's order
 * is not the numbers' (r NULL: in order, no holes).
 */
static kl_func *
new_function(kl_module *m, rng *r, uint32_t nb, kl_block *blocks,
	     kl_value *param, kl_builder *b)
{
	kl_type i32 = KL_TYPE_I32;
	kl_signature sig = { &i32, &i32, 1, 1, false };
	kl_func *f = NULL;
	CHECK_EQ_INT(kl_module_add_func(m, "f", 1, &sig, &f), KL_OK);
	uint32_t holes = r ? rng_next(r, 4) : 0, n = nb + holes;
	kl_block *all = malloc(n * sizeof *all);
	for (uint32_t k = 0; k < n; k++)
		all[k] = kl_func_new_block(f);
	for (uint32_t k = n; r && k > 1; k--) { /* shuffled */
		uint32_t j = rng_next(r, k);
		kl_block t = all[k - 1];
		all[k - 1] = all[j];
		all[j] = t;
	}
	for (uint32_t k = 0; k < nb; k++) {
		blocks[k] = all[k];
		kl_func_append_block(f, blocks[k]);
	}
	free(all);
	*param = kl_block_append_param(f, blocks[0], KL_TYPE_I32);
	kl_builder_init(b, f);
	kl_builder_at_end(b, blocks[0]);
	return f;
}

/* The same function for the same seed: %f(i32) -> i32 in m. */
static kl_func *
random_function(kl_module *m, uint64_t seed)
{
	rng r = { seed };
	uint32_t nb = 2 + rng_next(&r, MAX_BLOCKS - 1);
	kl_block blocks[MAX_BLOCKS];
	kl_value param;
	kl_builder b;
	kl_func *f = new_function(m, &r, nb, blocks, &param, &b);

	/* Allocas of one i64 slot, of two i32 slots, or of one i32 slot;
	 * now and then one escapes. */
	uint32_t na = 1 + rng_next(&r, MAX_ALLOCAS), ns = 0;
	slot_ref slots[2 * MAX_ALLOCAS];
	for (uint32_t a = 0; a < na; a++) {
		kl_value addr = kl_build_alloca(&b, 8, 8);
		switch (rng_next(&r, 3)) {
		case 0:
			slots[ns++] = (slot_ref){ addr, 0, KL_TYPE_I64 };
			break;
		case 1:
			slots[ns++] = (slot_ref){ addr, 4, KL_TYPE_I32 };
			/* fall through */
		default:
			slots[ns++] = (slot_ref){ addr, 0, KL_TYPE_I32 };
			break;
		}
		if (rng_next(&r, 25) == 0)
			kl_build_binary(&b, KL_OP_IADD, addr, addr);
	}
	/* The last few slots are a block's own, as a loop counter is: its
	 * store first, then loads and stores (its dominating store is
	 * that block's, which keeps the frontier walk in its subtree). */
	uint32_t nlocal = rng_next(&r, ns < 8 ? ns + 1 : 8), shared = ns - nlocal;
	uint32_t owner[8];
	for (uint32_t k = 0; k < nlocal; k++)
		owner[k] = rng_next(&r, nb);
	/* The entry stores most shared slots first, loads some first, and
	 * leaves others to the blocks. */
	for (uint32_t s = 0; s < shared; s++) {
		uint32_t what = rng_next(&r, 8);
		if (what < 2)
			random_access(&b, &r, &slots[s], 1, false);
		if (what < 6)
			random_access(&b, &r, &slots[s], 1, true);
	}
	for (uint32_t k = 0; k < nb; k++) {
		kl_builder_at_end(&b, blocks[k]);
		for (uint32_t j = 0; j < nlocal; j++) {
			if (owner[j] != k)
				continue;
			random_access(&b, &r, &slots[shared + j], 1, true);
			random_access(&b, &r, &slots[shared + j], 1, false);
		}
		for (uint32_t n = shared ? rng_next(&r, 7) : 0; n > 0; n--)
			random_access(&b, &r, slots, shared, rng_next(&r, 2));
		uint32_t t = rng_next(&r, 10);
		if (t < 2) {
			kl_value v = kl_build_iconst(&b, KL_TYPE_I32, 0);
			kl_build_return(&b, &v, 1);
		} else if (t < 5) {
			kl_build_jump(&b, random_dest(&r, blocks, nb));
		} else {
			kl_build_brif(&b, param, random_dest(&r, blocks, nb),
				      random_dest(&r, blocks, nb));
		}
	}
	CHECK_EQ_INT(kl_builder_status(&b), KL_OK);
	return f;
}

/*
 * Past the budget with few slots: SET_SLOTS slots, each stored in blocks
 * all over a random control-flow graph, so that nearly every block is on
 * the iterated frontier of every slot (the test sets a budget of
 * DENSE_LIMIT candidates, below the default). Placing
 * at once must then give way to slot by slot, which keeps the allocas it
 * cannot afford.
 */
enum { DENSE_LIMIT = 20000 };

static kl_func *
dense_function(kl_module *m, uint64_t seed)
{
	rng r = { seed };
	enum { NB = 1000 };
	kl_block blocks[NB];
	kl_value param;
	kl_builder b;
	kl_func *f = new_function(m, &r, NB, blocks, &param, &b);
	slot_ref slots[SET_SLOTS];
	for (uint32_t s = 0; s < SET_SLOTS; s++)
		slots[s] = (slot_ref){ kl_build_alloca(&b, 4, 4), 0,
				       KL_TYPE_I32 };
	/* Loaded before any store: no store dominates the loads. */
	for (uint32_t s = 0; s < SET_SLOTS; s++)
		random_access(&b, &r, &slots[s], 1, false);
	for (uint32_t k = 0; k < NB; k++) {
		kl_builder_at_end(&b, blocks[k]);
		kl_build_store(&b, KL_OP_STORE, param, slots[k % SET_SLOTS].addr,
			       0);
		kl_build_brif(&b, param, random_dest(&r, blocks, NB),
			      random_dest(&r, blocks, NB));
	}
	CHECK_EQ_INT(kl_builder_status(&b), KL_OK);
	return f;
}

/*
 * A loop nest `depth` deep (header, latch and exit a loop, laid out
 * outermost first) with one slot, which the innermost latch stores and
 * the outermost exit loads: its value flows out through every header,
 * each laid out before the one it comes from.
 */
static kl_func *
deep_nest(kl_module *m, uint32_t depth)
{
	uint32_t nb = 1 + 3 * depth;
	kl_block *blocks = malloc(nb * sizeof *blocks);
	kl_value param;
	kl_builder b;
	kl_func *f = new_function(m, NULL, nb, blocks, &param, &b);
	kl_value counter = kl_build_alloca(&b, 4, 4);
	kl_build_store(&b, KL_OP_STORE, param, counter, 0);
	kl_build_jump(&b, (kl_block_call){ blocks[1], NULL, 0 });
	for (uint32_t i = 0; i < depth; i++) {
		kl_block h = blocks[1 + 3 * i], l = blocks[2 + 3 * i],
			 x = blocks[3 + 3 * i];
		kl_builder_at_end(&b, h);
		kl_block in = i + 1 < depth ? blocks[4 + 3 * i] : l;
		kl_build_brif(&b, param, (kl_block_call){ in, NULL, 0 },
			      (kl_block_call){ x, NULL, 0 });
		kl_builder_at_end(&b, l);
		if (i + 1 == depth) {
			kl_value v = kl_build_load(&b, KL_OP_LOAD, KL_TYPE_I32,
						   counter, 0);
			v = kl_build_binary_imm(&b, KL_OP_IADD_IMM, v, 1);
			kl_build_store(&b, KL_OP_STORE, v, counter, 0);
		}
		kl_build_jump(&b, (kl_block_call){ h, NULL, 0 });
		kl_builder_at_end(&b, x);
		if (i > 0) {
			kl_build_jump(&b, (kl_block_call){ blocks[3 * i - 1],
							   NULL, 0 });
		} else {
			kl_value v = kl_build_load(&b, KL_OP_LOAD, KL_TYPE_I32,
						   counter, 0);
			kl_build_return(&b, &v, 1);
		}
	}
	CHECK_EQ_INT(kl_builder_status(&b), KL_OK);
	free(blocks);
	return f;
}

/*
 * Placing at once stays linear where the frontier leads back in the
 * layout again and again: a header's parameter goes to the header laid
 * out before it, through the whole nest. Its steps (words of the work
 * map swept, blocks taken) are counted; sweeping the map again until it
 * was empty took a sweep per 64 blocks of depth (some 880,000 steps
 * here).
 */
static void
test_deep_nest_places_in_linear_steps(void)
{
	enum { DEPTH = 20000 };
	kl_module *m = kl_module_new();
	kl_func *f = deep_nest(m, DEPTH);
	kl_pass_report rep = { 0 };
	rep.input_verified = true;
	CHECK_EQ_INT(kl_promote_func(f, &rep), KL_OK);
	const promoter *p = rep.state;
	CHECK_EQ_INT(kl_pass_report_get(&rep, "params"), DEPTH);
	CHECK(p->set_steps > DEPTH);
	CHECK(p->set_steps < 2 * (uint64_t)f->nblocks);
	kl_diags d = { 0 };
	CHECK_EQ_INT(kl_verify_func(f, NULL, &d), KL_OK);
	kl_diags_free(&d);
	kl_pass_report_free(&rep);
	kl_module_free(m);
}

/* A report whose promoter places slot by slot (most_set_slots 0). */
static void
report_slot_by_slot(kl_pass_report *rep, kl_module *m)
{
	kl_block entry;
	kl_value p;
	kl_builder b;
	kl_func *f = new_function(m, NULL, 1, &entry, &p, &b);
	kl_build_return(&b, &p, 1);
	kl_promote_func(f, rep); /* makes the promoter */
	promoter *state = rep->state;
	CHECK(state != NULL);
	if (state)
		state->most_set_slots = 0;
}

/* Both ways on the function of each seed; how many of them had a big
 * function's placement with at most SET_SLOTS slots. */
static uint32_t
compare_seeds(kl_func *(*build)(kl_module *, uint64_t), uint64_t from,
	      uint32_t n, bool verified, uint64_t limit,
	      kl_pass_report *report)
{
	kl_pass_report at_once = { 0 }, by_slot = { 0 };
	at_once.input_verified = by_slot.input_verified = verified;
	at_once.size_limit = by_slot.size_limit = limit;
	kl_module *warm = kl_module_new();
	report_slot_by_slot(&by_slot, warm);
	kl_buf x = { 0 }, y = { 0 };
	uint32_t compared = 0;
	for (uint64_t seed = from; seed < from + n; seed++) {
		kl_module *ma = kl_module_new(), *mb = kl_module_new();
		kl_func *fa = build(ma, seed);
		kl_func *fb = build(mb, seed);
		CHECK_EQ_INT(kl_promote_func(fa, &at_once), KL_OK);
		CHECK_EQ_INT(kl_promote_func(fb, &by_slot), KL_OK);
		kl_buf_reset(&x);
		kl_buf_reset(&y);
		kl_print_func(fa, NULL, &x);
		kl_print_func(fb, NULL, &y);
		kl_buf_putc(&x, '\0');
		kl_buf_putc(&y, '\0');
		if (strcmp(x.data, y.data) != 0) {
			fprintf(stderr, "seed %llu (verified %d):\n",
				(unsigned long long)seed, verified);
			CHECK_EQ_STR(x.data, y.data);
		}
		/* The same candidates in the same order, dead ones included
		 * (pruning would hide extra ones in the output). */
		const promoter *pa = at_once.state, *pb = by_slot.state;
		CHECK_EQ_INT(pa->nphis, pb->nphis);
		if (pa->nphis == pb->nphis && pa->nphis) {
			size_t bytes = pa->nphis * sizeof(uint32_t);
			CHECK(memcmp(pa->phi_block.a, pb->phi_block.a, bytes) == 0);
			CHECK(memcmp(pa->phi_slot.a, pb->phi_slot.a, bytes) == 0);
		}
		kl_diags d = { 0 };
		CHECK_EQ_INT(kl_verify_func(fa, NULL, &d), KL_OK);
		kl_diags_free(&d);
		promoter *p = at_once.state;
		compared += !p->tiny && p->nslots > 0 &&
			    p->nslots <= SET_SLOTS;
		kl_module_free(ma);
		kl_module_free(mb);
	}
	CHECK_EQ_INT(kl_pass_report_get(&at_once, "params"),
		     kl_pass_report_get(&by_slot, "params"));
	kl_buf_free(&x);
	kl_buf_free(&y);
	if (report)
		*report = at_once;
	else
		kl_pass_report_free(&at_once);
	kl_pass_report_free(&by_slot);
	kl_module_free(warm);
	return compared;
}

static void
test_verified_functions_place_alike(void)
{
	/* Most of them have more than 64 blocks, and at most SET_SLOTS
	 * slots. */
	CHECK(compare_seeds(random_function, 1, 300, true, 0, NULL) > 180);
}

static void
test_unverified_functions_place_alike(void)
{
	CHECK(compare_seeds(random_function, 1000, 300, false, 0, NULL) > 200);
}

static void
test_past_the_budget_places_alike(void)
{
	kl_pass_report rep;
	compare_seeds(dense_function, 1, 4, true, DENSE_LIMIT, &rep);
	CHECK(kl_pass_report_get(&rep, "kept") > 0);
	CHECK(kl_pass_report_get(&rep, "promoted") > 0);
	kl_pass_report_free(&rep);
}

/*
 * Pruned SSA, against liveness computed here the plain way: after the
 * pass, a block has a parameter for each promoted slot that is live on
 * entry to it (a path from it reaches a load of the slot before any
 * store) and lies on the iterated dominance frontier of the entry and
 * the slot's store blocks; no other. The comparisons above cannot see
 * the pruning (both ways prune alike), and minimal SSA, which keeps the
 * dead candidates, runs and verifies as well.
 */
enum { NONE_YET = 0, LOAD_FIRST = 1, STORE_FIRST = 2 };

typedef struct live_oracle {
	uint32_t nb, nslots;
	kl_block *order;      /* the layout */
	uint32_t *index;      /* block number -> place in order */
	uint8_t *first;       /* [slot * nb + place]: the first access */
	uint8_t *stored;      /* [slot * nb + place]: any store */
	uint32_t slot_alloca[2 * MAX_ALLOCAS];
	int32_t slot_offset[2 * MAX_ALLOCAS];
} live_oracle;

/* The slot of a load's or store's address (v, off), made on first sight. */
static uint32_t
oracle_slot(live_oracle *o, kl_value v, int32_t off)
{
	for (uint32_t s = 0; s < o->nslots; s++)
		if (o->slot_alloca[s] == v.id && o->slot_offset[s] == off)
			return s;
	o->slot_alloca[o->nslots] = v.id;
	o->slot_offset[o->nslots] = off;
	return o->nslots++;
}

/* Does some instruction use alloca a other than as an address? */
static bool
escapes(const kl_func *f, const live_oracle *o, uint32_t a)
{
	for (uint32_t k = 0; k < o->nb; k++)
		for (kl_inst i = kl_block_first_inst(f, o->order[k]);
		     i.id != KL_NONE; i = kl_inst_next(f, i)) {
			kl_opcode op = kl_inst_opcode(f, i);
			uint32_t n = kl_inst_num_args(f, i);
			for (uint32_t j = 0; j < n; j++)
				if (kl_inst_arg(f, i, j).id == a &&
				    !(op == KL_OP_LOAD && j == 0) &&
				    !(op == KL_OP_STORE && j == 1))
					return true;
		}
	return false;
}

/* The parameters block by block (in layout order) that pruned SSA
 * gives f's promotable slots, into want[]. */
static void
pruned_params(const kl_func *f, uint32_t *want)
{
	live_oracle o = { 0 };
	uint32_t bound = kl_func_block_bound(f);
	o.order = malloc(bound * sizeof *o.order);
	o.index = calloc(bound, sizeof *o.index);
	for (kl_block b = kl_func_first_block(f); b.id != KL_NONE;
	     b = kl_block_next(f, b)) {
		o.index[b.id] = o.nb;
		o.order[o.nb++] = b;
	}
	/* The slots first, to size the tables per slot and block. */
	for (uint32_t k = 0; k < o.nb; k++)
		for (kl_inst i = kl_block_first_inst(f, o.order[k]);
		     i.id != KL_NONE; i = kl_inst_next(f, i)) {
			kl_opcode op = kl_inst_opcode(f, i);
			if (op == KL_OP_LOAD || op == KL_OP_STORE)
				oracle_slot(&o, kl_inst_arg(f, i, op ==
							    KL_OP_STORE),
					    kl_inst_offset(f, i));
		}
	o.first = calloc((size_t)o.nslots * o.nb, 1);
	o.stored = calloc((size_t)o.nslots * o.nb, 1);
	for (uint32_t k = 0; k < o.nb; k++)
		for (kl_inst i = kl_block_first_inst(f, o.order[k]);
		     i.id != KL_NONE; i = kl_inst_next(f, i)) {
			kl_opcode op = kl_inst_opcode(f, i);
			if (op != KL_OP_LOAD && op != KL_OP_STORE)
				continue;
			uint32_t s = oracle_slot(
				&o, kl_inst_arg(f, i, op == KL_OP_STORE),
				kl_inst_offset(f, i));
			uint8_t *x = &o.first[(size_t)s * o.nb + k];
			if (*x == NONE_YET)
				*x = op == KL_OP_LOAD ? LOAD_FIRST
						      : STORE_FIRST;
			o.stored[(size_t)s * o.nb + k] |= op == KL_OP_STORE;
		}
	kl_cfg *cfg = kl_cfg_new();
	kl_domtree *dt = kl_domtree_new();
	kl_domfront *df = kl_domfront_new();
	kl_idf *ws = kl_idf_new();
	kl_cfg_compute(cfg, f);
	kl_domtree_compute(dt, f, cfg);
	CHECK_EQ_INT(kl_domfront_compute(df, f, cfg, dt), KL_OK);
	memset(want, 0, o.nb * sizeof *want);
	bool *live = malloc(o.nb * sizeof *live);
	kl_block *defs = malloc(o.nb * sizeof *defs);
	for (uint32_t s = 0; s < o.nslots; s++) {
		if (escapes(f, &o, o.slot_alloca[s]))
			continue;
		const uint8_t *first = &o.first[(size_t)s * o.nb];
		/* Live on entry: backwards to a fixed point. */
		for (uint32_t k = 0; k < o.nb; k++)
			live[k] = first[k] == LOAD_FIRST;
		for (bool changed = true; changed;) {
			changed = false;
			for (uint32_t k = o.nb; k-- > 0;) {
				if (live[k] || first[k] != NONE_YET)
					continue;
				kl_block b = o.order[k];
				for (uint32_t j = 0;
				     j < kl_cfg_num_succs(cfg, b) && !live[k];
				     j++)
					live[k] = live[o.index[kl_cfg_succ(
						cfg, b, j).id]];
				changed |= live[k];
			}
		}
		/* The entry and the reachable blocks that store it. */
		const uint8_t *stored = &o.stored[(size_t)s * o.nb];
		uint32_t nd = 0;
		for (uint32_t k = 0; k < o.nb; k++)
			if (k == 0 || (stored[k] &&
				       kl_domtree_is_reachable(dt, o.order[k])))
				defs[nd++] = o.order[k];
		const kl_block *idf;
		uint32_t n = kl_domfront_iterated(df, ws, defs, nd, &idf);
		for (uint32_t j = 0; j < n; j++)
			want[o.index[idf[j].id]] += live[o.index[idf[j].id]];
	}
	free(live);
	free(defs);
	kl_idf_free(ws);
	kl_domfront_free(df);
	kl_domtree_free(dt);
	kl_cfg_free(cfg);
	free(o.first);
	free(o.stored);
	free(o.index);
	free(o.order);
}

static void
test_params_are_the_live_ones(void)
{
	kl_pass_report rep = { 0 };
	rep.input_verified = true;
	uint32_t want[MAX_BLOCKS], dead_candidates = 0;
	for (uint64_t seed = 1; seed <= 150; seed++) {
		kl_module *m = kl_module_new();
		kl_func *f = random_function(m, seed);
		pruned_params(f, want);
		CHECK_EQ_INT(kl_promote_func(f, &rep), KL_OK);
		uint32_t k = 0, total = 0, got = 0;
		for (kl_block b = kl_func_first_block(f); b.id != KL_NONE;
		     b = kl_block_next(f, b), k++) {
			/* the entry's one is the function's */
			uint32_t n = kl_block_num_params(f, b) - (k == 0);
			if (n != want[k])
				fprintf(stderr, "seed %llu, block%u:\n",
					(unsigned long long)seed, b.id);
			CHECK_EQ_INT(n, want[k]);
			total += want[k];
			got += n;
		}
		CHECK_EQ_INT(got, total);
		const promoter *p = rep.state;
		dead_candidates += p->nphis - total;
		kl_module_free(m);
	}
	/* The functions have dead candidates for pruning to drop. */
	CHECK(dead_candidates > 1000);
	kl_pass_report_free(&rep);
}

int
main(void)
{
	UNIT_RUN(test_verified_functions_place_alike);
	UNIT_RUN(test_unverified_functions_place_alike);
	UNIT_RUN(test_past_the_budget_places_alike);
	UNIT_RUN(test_deep_nest_places_in_linear_steps);
	UNIT_RUN(test_params_are_the_live_ones);
	return unit_report("promote_place");
}
