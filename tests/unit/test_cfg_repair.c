/*
 * test_cfg_repair.c -- a CFG kept up to date by kl_cfg_recompute_block
 * over thousands of edits made through the rewriting API must be, after
 * every edit, the CFG kl_cfg_compute builds from scratch: the same
 * successors and predecessors of every block, in the same order, and
 * the verifier, given it as its cached CFG, finds it current.
 *
 * The edits are the ones docs/analyses.md says a repair covers: a
 * branch retargeted, a terminator replaced, an edge split by a block
 * inserted into the layout, a block taken out of it. They make edge
 * lists outgrow their room again and again, so that lists move to the
 * end of the edge pool and leave holes behind: thousands of them
 * (src/analysis/cfg.c, list_room), which must stay under half the pool
 * (a list leaves a hole smaller than the room it takes after the move),
 * so that the pool needs no compaction.
 */
#include <stdio.h>
#include <stdlib.h>

#include "../../src/analysis/analysis.h"
#include "keel.h"
#include "rng.h"
#include "unit.h"

enum {
	SPOKES = 256, /* blocks that jump to a hub, reached by a br_table */
	HUBS = 48,    /* blocks that return */
	ROUNDS = 40,  /* retargeting every spoke to one hub, a hub a round */
	RANDOM_EDITS = 6000,
};

/* The function being edited, the blocks the edits pick from, and the CFG
 * being repaired. */
typedef struct net {
	kl_module *m;
	kl_func *f;
	kl_value v0;                   /* the entry's parameter */
	kl_block entry, hub[HUBS];
	kl_block *spoke;               /* placed blocks other than those */
	uint32_t nspokes, spokes_cap;
	kl_block *gone;                /* blocks taken out of the layout */
	uint32_t ngone;
	kl_cfg *cfg, *fresh;
	uint32_t most_dead;            /* the most holes the pool had */
} net;

static uint64_t rng_state;

static uint32_t
below(uint32_t n)
{
	return rng_below(&rng_state, n);
}

static void
add_spoke(net *n, kl_block b)
{
	if (n->nspokes == n->spokes_cap) {
		n->spokes_cap = n->spokes_cap ? 2 * n->spokes_cap : 64;
		n->spoke = realloc(n->spoke,
				   n->spokes_cap * sizeof *n->spoke);
		if (!n->spoke)
			abort();
	}
	n->spoke[n->nspokes++] = b;
}

static kl_block_call
to(kl_block b)
{
	return (kl_block_call){ b, NULL, 0 };
}

/*
 * function %f(i32) -> i32: block0 does br_table v0 over the spokes (the
 * first as the default too), spoke i jumps to hub i % HUBS, every hub
 * returns v0. The CFG is computed once; from then on only repaired.
 */
static void
net_build(net *n)
{
	memset(n, 0, sizeof *n);
	n->m = kl_module_new();
	const kl_type i32 = KL_TYPE_I32;
	kl_signature sig = { .params = &i32, .num_params = 1,
			     .results = &i32, .num_results = 1 };
	CHECK_EQ_INT(kl_module_add_func(n->m, "f", 1, &sig, &n->f), KL_OK);
	kl_func *f = n->f;
	n->entry = kl_func_make_entry(f);
	n->v0 = kl_block_param(f, n->entry, 0);
	kl_builder bld;
	kl_builder_init(&bld, f);
	for (uint32_t k = 0; k < SPOKES; k++) {
		kl_block b = kl_func_new_block(f);
		CHECK_EQ_INT(kl_func_append_block(f, b), KL_OK);
		add_spoke(n, b);
	}
	for (uint32_t k = 0; k < HUBS; k++) {
		n->hub[k] = kl_func_new_block(f);
		CHECK_EQ_INT(kl_func_append_block(f, n->hub[k]), KL_OK);
		kl_builder_at_end(&bld, n->hub[k]);
		kl_build_return(&bld, &n->v0, 1);
	}
	kl_block_call table[SPOKES];
	for (uint32_t k = 0; k < SPOKES; k++) {
		table[k] = to(n->spoke[k]);
		kl_builder_at_end(&bld, n->spoke[k]);
		kl_build_jump(&bld, to(n->hub[k % HUBS]));
	}
	kl_builder_at_end(&bld, n->entry);
	kl_build_br_table(&bld, n->v0, table[0], table, SPOKES);
	CHECK_EQ_INT(kl_builder_status(&bld), KL_OK);
	CHECK_EQ_INT(kl_verify_func(f, NULL, NULL), KL_OK);
	n->cfg = kl_cfg_new();
	n->fresh = kl_cfg_new();
	kl_cfg_compute(n->cfg, f);
}

static void
net_free(net *n)
{
	kl_cfg_free(n->cfg);
	kl_cfg_free(n->fresh);
	free(n->spoke);
	free(n->gone);
	kl_module_free(n->m);
}

/* Repair the CFG for block b, and watch the pool's holes: under half
 * of it. */
static void
repair(net *n, kl_block b)
{
	kl_cfg_recompute_block(n->cfg, n->f, b);
	if (n->cfg->pool_dead > n->most_dead)
		n->most_dead = n->cfg->pool_dead;
	CHECK(n->cfg->pool_dead < n->cfg->pool_len - n->cfg->pool_dead);
}

static bool
same_edge(kl_cfg_edge a, kl_cfg_edge b)
{
	return a.block.id == b.block.id && a.inst.id == b.inst.id;
}

/* Is the repaired CFG, block by block and edge by edge, the one computed
 * afresh? The first difference is reported, with what was done last. */
static bool
net_agrees(net *n, const char *after)
{
	const kl_func *f = n->f;
	const kl_cfg *a = n->cfg, *b = n->fresh;
	kl_cfg_compute(n->fresh, f);
	for (uint32_t k = 0, nb = kl_func_block_bound(f); k < nb; k++) {
		kl_block blk = { k };
		uint32_t ns = kl_cfg_num_succs(b, blk);
		uint32_t np = kl_cfg_num_preds(b, blk);
		bool ok = kl_cfg_num_succs(a, blk) == ns &&
			  kl_cfg_num_preds(a, blk) == np;
		for (uint32_t i = 0; ok && i < ns; i++)
			ok = same_edge(kl_cfg_succ_edge(a, blk, i),
				       kl_cfg_succ_edge(b, blk, i)) &&
			     kl_cfg_succ(a, blk, i).id ==
				     kl_cfg_succ(b, blk, i).id;
		for (uint32_t i = 0; ok && i < np; i++)
			ok = same_edge(kl_cfg_pred(a, blk, i),
				       kl_cfg_pred(b, blk, i));
		if (!ok) {
			fprintf(stderr, "block%u's edges differ from a CFG "
				"computed afresh, after %s\n", k, after);
			unit_current_failed = 1;
			return false;
		}
	}
	kl_block differs;
	CHECK(kl_cfg_equal(a, b, &differs));
	return !unit_current_failed;
}

/* Does the function verify, the repaired CFG given as the cached one
 * (which the verifier compares with its own)? */
static bool
net_verifies(net *n)
{
	kl_verify_ctx ctx = { .cfg = n->cfg };
	kl_diags d = { 0 };
	bool ok = kl_verify_func(n->f, &ctx, &d) == KL_OK;
	for (uint32_t k = 0; k < d.len; k++)
		fprintf(stderr, "verifier: %s\n", d.items[k].message);
	kl_diags_free(&d);
	CHECK(ok);
	return ok;
}

/* Every spoke's jump to one of two hubs, alternately, two new hubs each
 * round: their predecessor lists grow from the few they had to half the
 * spokes each, one after the other, so that each of them moves to the
 * end of the pool every time it doubles, past the other. */
static void
test_retarget_rounds(void)
{
	net n;
	net_build(&n);
	for (uint32_t r = 0; r < ROUNDS && !unit_current_failed; r++) {
		kl_block hub[2] = { n.hub[(2 * r) % HUBS],
				    n.hub[(2 * r + 1) % HUBS] };
		for (uint32_t k = 0; k < n.nspokes; k++) {
			kl_func *f = n.f;
			kl_inst j = kl_block_last_inst(f, n.spoke[k]);
			CHECK_EQ_INT(kl_inst_set_dest(f, j, 0, to(hub[k % 2])),
				     KL_OK);
			repair(&n, n.spoke[k]);
			if (k % 61 == 0 && !net_agrees(&n, "a retarget"))
				break;
		}
		if (!net_agrees(&n, "a round of retargets") ||
		    !net_verifies(&n))
			break;
		CHECK_EQ_INT(kl_cfg_num_preds(n.cfg, hub[0]), SPOKES / 2);
		CHECK_EQ_INT(kl_cfg_num_preds(n.cfg, hub[1]), SPOKES / 2);
	}
	/* the edits left thousands of holes, and fewer than the room in
	 * use (repair checks that after each) */
	CHECK(n.most_dead > 1024);
	net_free(&n);
}

/* The spoke's terminator replaced: a jump by a brif to two hubs, a brif
 * by a jump (kl_inst_remove, then the builder). */
static void
replace_terminator(net *n, kl_block b)
{
	kl_func *f = n->f;
	kl_inst t = kl_block_last_inst(f, b);
	bool was_jump = kl_inst_opcode(f, t) == KL_OP_JUMP;
	kl_inst_remove(f, t);
	kl_builder bld;
	kl_builder_init(&bld, f);
	kl_builder_at_end(&bld, b);
	kl_block x = n->hub[below(HUBS)], y = n->hub[below(HUBS)];
	if (was_jump)
		kl_build_brif(&bld, n->v0, to(x), to(y));
	else
		kl_build_jump(&bld, to(x));
	CHECK_EQ_INT(kl_builder_status(&bld), KL_OK);
	repair(n, b);
}

/* A destination of b's terminator split by a new block placed right
 * after b, which jumps where the destination went. */
static void
split_edge(net *n, kl_block b)
{
	kl_func *f = n->f;
	kl_inst t = kl_block_last_inst(f, b);
	uint32_t d = below(kl_inst_num_dests(f, t));
	kl_block old = kl_inst_dest(f, t, d), mid;
	if (n->ngone && below(2)) {
		mid = n->gone[--n->ngone]; /* placed again, empty */
		CHECK_EQ_INT(kl_block_first_inst(f, mid).id, KL_NONE);
	} else {
		mid = kl_func_new_block(f);
	}
	CHECK_EQ_INT(kl_func_insert_block_after(f, mid, b), KL_OK);
	kl_builder bld;
	kl_builder_init(&bld, f);
	kl_builder_at_end(&bld, mid);
	kl_build_jump(&bld, to(old));
	CHECK_EQ_INT(kl_builder_status(&bld), KL_OK);
	CHECK_EQ_INT(kl_inst_set_dest(f, t, d, to(mid)), KL_OK);
	repair(n, mid);
	repair(n, b);
	add_spoke(n, mid);
}

/* Spoke k taken out of the layout: every branch to it, as the repaired
 * CFG lists them, retargeted to a hub first. */
static void
remove_spoke(net *n, uint32_t k)
{
	kl_func *f = n->f;
	kl_block b = n->spoke[k];
	kl_block hub = n->hub[below(HUBS)];
	while (kl_cfg_num_preds(n->cfg, b) > 0) {
		kl_cfg_edge e = kl_cfg_pred(n->cfg, b, 0);
		for (uint32_t d = 0; d < kl_inst_num_dests(f, e.inst); d++)
			if (kl_inst_dest(f, e.inst, d).id == b.id)
				CHECK_EQ_INT(kl_inst_set_dest(f, e.inst, d,
							      to(hub)),
					     KL_OK);
		uint32_t left = kl_cfg_num_preds(n->cfg, b);
		repair(n, e.block);
		if (kl_cfg_num_preds(n->cfg, b) >= left) {
			CHECK(!"the repair left a retargeted edge");
			return;
		}
	}
	CHECK_EQ_INT(kl_func_remove_block(f, b), KL_OK);
	repair(n, b);
	n->spoke[k] = n->spoke[--n->nspokes];
	n->gone = realloc(n->gone, (n->ngone + 1) * sizeof *n->gone);
	if (!n->gone)
		abort();
	n->gone[n->ngone++] = b;
}

/* Edits picked at random, seeded: the CFG is checked after each. */
static void
random_edits(uint64_t seed)
{
	static const char *const what[] = { "a retarget",
					    "a terminator replaced",
					    "an edge split",
					    "a block removed" };
	net n;
	net_build(&n);
	rng_state = seed * 0x9E3779B97F4A7C15ull + 1;
	for (uint32_t e = 0; e < RANDOM_EDITS; e++) {
		uint32_t k = below(n.nspokes), op = below(8);
		kl_block b = n.spoke[k];
		kl_func *f = n.f;
		if (op < 4) {
			kl_inst t = kl_block_last_inst(f, b);
			uint32_t d = below(kl_inst_num_dests(f, t));
			CHECK_EQ_INT(kl_inst_set_dest(f, t, d,
						      to(n.hub[below(HUBS)])),
				     KL_OK);
			repair(&n, b);
			op = 0;
		} else if (op < 6) {
			replace_terminator(&n, b);
			op = 1;
		} else if (op < 7 || n.nspokes < SPOKES / 2) {
			split_edge(&n, b);
			op = 2;
		} else {
			remove_spoke(&n, k);
			op = 3;
		}
		if (!net_agrees(&n, what[op]))
			break;
		if (e % 500 == 0 && !net_verifies(&n))
			break;
	}
	if (!unit_current_failed)
		net_verifies(&n);
	net_free(&n);
}

static void
test_random_edits(void)
{
	for (uint64_t seed = 1; seed <= 4 && !unit_current_failed; seed++)
		random_edits(seed);
}

/*
 * Two blocks placed before either is repaired, the later one repaired
 * first: the block between has no layout key yet, and the new key must
 * come from the nearest block before that has one. block0 branches to
 * block1, block2 and block4 (the layout, in order); those each jump to
 * block4, which returns. y and z are placed after block3, block3's
 * jump retargeted to y, y jumps to z and z to block4; then block2's
 * jump becomes a brif, twice to block4. Repaired: z, block2, y, block3.
 */
static void
test_insert_two(void)
{
	kl_module *m = kl_module_new();
	const kl_type i32 = KL_TYPE_I32;
	kl_signature sig = { .params = &i32, .num_params = 1,
			     .results = &i32, .num_results = 1 };
	kl_func *f;
	CHECK_EQ_INT(kl_module_add_func(m, "f", 1, &sig, &f), KL_OK);
	kl_block b[5];
	b[0] = kl_func_make_entry(f);
	kl_value v0 = kl_block_param(f, b[0], 0);
	for (int k = 1; k < 5; k++) {
		b[k] = kl_func_new_block(f);
		CHECK_EQ_INT(kl_func_append_block(f, b[k]), KL_OK);
	}
	kl_builder bld;
	kl_builder_init(&bld, f);
	kl_block_call table[] = { to(b[2]), to(b[4]) };
	kl_builder_at_end(&bld, b[0]);
	kl_build_br_table(&bld, v0, to(b[1]), table, 2);
	kl_inst jump[4];
	for (int k = 1; k < 4; k++) {
		kl_builder_at_end(&bld, b[k]);
		jump[k] = kl_build_jump(&bld, to(b[4]));
	}
	kl_builder_at_end(&bld, b[4]);
	kl_build_return(&bld, &v0, 1);
	kl_cfg *cfg = kl_cfg_new();
	kl_cfg_compute(cfg, f);
	kl_block y = kl_func_new_block(f), z = kl_func_new_block(f);
	CHECK_EQ_INT(kl_func_insert_block_after(f, z, b[3]), KL_OK);
	CHECK_EQ_INT(kl_func_insert_block_after(f, y, b[3]), KL_OK);
	kl_builder_at_end(&bld, y);
	kl_build_jump(&bld, to(z));
	kl_builder_at_end(&bld, z);
	kl_build_jump(&bld, to(b[4]));
	CHECK_EQ_INT(kl_inst_set_dest(f, jump[3], 0, to(y)), KL_OK);
	kl_inst_remove(f, jump[2]);
	kl_builder_at_end(&bld, b[2]);
	kl_build_brif(&bld, v0, to(b[4]), to(b[4]));
	CHECK_EQ_INT(kl_builder_status(&bld), KL_OK);
	kl_cfg_recompute_block(cfg, f, z);
	kl_cfg_recompute_block(cfg, f, b[2]);
	kl_cfg_recompute_block(cfg, f, y);
	kl_cfg_recompute_block(cfg, f, b[3]);
	/* block4's predecessors in layout order: block0, block1, block2
	 * (twice), z */
	const kl_block want[] = { b[0], b[1], b[2], b[2], z };
	CHECK_EQ_INT(kl_cfg_num_preds(cfg, b[4]), 5);
	for (uint32_t k = 0; k < 5; k++)
		CHECK_EQ_INT(kl_cfg_pred(cfg, b[4], k).block.id, want[k].id);
	kl_cfg *fresh = kl_cfg_new();
	kl_cfg_compute(fresh, f);
	kl_block differs;
	CHECK(kl_cfg_equal(cfg, fresh, &differs));
	CHECK_EQ_INT(kl_verify_func(f, NULL, NULL), KL_OK);
	kl_cfg_free(fresh);
	kl_cfg_free(cfg);
	kl_module_free(m);
}

int
main(void)
{
	UNIT_RUN(test_retarget_rounds);
	UNIT_RUN(test_random_edits);
	UNIT_RUN(test_insert_two);
	return unit_report("cfg_repair");
}
