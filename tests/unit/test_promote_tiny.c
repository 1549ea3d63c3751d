/*
 * test_promote_tiny.c -- the promote pass's dominance facts for small
 * functions (src/pass/promote_tiny.c, bit sets) against the generic
 * analyses the pass uses for the others, fact by fact, on random
 * functions whose branches end their blocks (as in the verified IR the
 * pass takes that path for): holes, unplaced targets, repeated targets,
 * irreducible loops and unreachable blocks included.
 */
#include <stdlib.h>
#include <string.h>

#include "../../src/pass/promote.h"
#include "rgraph.h"
#include "unit.h"

/* The generic facts of f (cfg from the terminators, as the pass reads
 * them), compared with t's. */
static void
compare(const tiny_cfg *t, const kl_func *f, kl_cfg *cfg, kl_domtree *dt,
	kl_domfront *df)
{
	kl_cfg_compute(cfg, f);
	kl_domtree_compute(dt, f, cfg);
	kl_domfront_compute(df, f, cfg, dt);
	uint32_t nb = f->nblocks;
	CHECK_EQ_INT(t->entry, dt->entry);
	for (uint32_t b = 0; b < nb; b++) {
		const tiny_block *x = &t->b[b];
		bool reach = dt_reachable(dt, b);
		CHECK_EQ_INT((t->reach >> b) & 1, reach);
		CHECK_EQ_INT(x->npreds, cfg_npreds(cfg, b));
		CHECK_EQ_INT(tiny_link(x->idom), dt->idom[b]);
		CHECK_EQ_INT(tiny_link(x->child), dt->child[b]);
		CHECK_EQ_INT(tiny_link(x->sibling), dt->sibling[b]);
		uint64_t frontier = 0;
		for (uint32_t k = 0; k < df_size(df, b); k++)
			frontier |= (uint64_t)1 << df_set(df, b)[k].id;
		CHECK_EQ_INT(x->df, frontier);
		if (!reach) {
			CHECK_EQ_INT(x->dom, 0);
			CHECK_EQ_INT(x->below, 0);
			continue;
		}
		for (uint32_t a = 0; a < nb; a++) {
			if (!dt_reachable(dt, a))
				continue;
			bool d = dt_dominates(dt, a, b);
			CHECK_EQ_INT((x->dom >> a) & 1, d);
			CHECK_EQ_INT((t->b[a].below >> b) & 1, d);
			/* a preorder (not necessarily the generic one) */
			if (d && a != b)
				CHECK(t->b[a].pre < x->pre);
		}
	}
	/* order lists the reachable blocks by their preorder numbers */
	CHECK_EQ_INT(t->nreach, kl_popcount64(t->reach));
	for (uint32_t k = 0; k < t->nreach; k++) {
		CHECK((t->reach >> t->order[k]) & 1);
		CHECK_EQ_INT(t->b[t->order[k]].pre, k);
	}
}

static void
test_random_functions(void)
{
	rng r = { 29 };
	kl_cfg *cfg = kl_cfg_new();
	kl_domtree *dt = kl_domtree_new();
	kl_domfront *df = kl_domfront_new();
	tiny_cfg *t = malloc(sizeof *t);
	int compared = 0, unreachable = 0, joins = 0;
	for (int iter = 0; iter < 3000; iter++) {
		rgraph g;
		/* Up to the limit: rg_build keeps n + holes below 64. */
		uint32_t n = 1 + rng_next(&r, iter % 10 == 0 ? 63 : 16);
		rg_build(&g, &r, n);
		if (rg_branches_only_at_ends(g.f) &&
		    g.f->nblocks <= TINY_BLOCKS) {
			promote_tiny_compute(t, g.f);
			compare(t, g.f, cfg, dt, df);
			compared++;
			unreachable += kl_popcount64(t->reach) < g.nplaced;
			for (uint32_t b = 0; b < g.f->nblocks; b++)
				joins += t->b[b].df != 0;
		}
		rg_free(&g);
	}
	/* The sample must hold what the comparison is about. */
	CHECK(compared > 1000);
	CHECK(unreachable > 100);
	CHECK(joins > 1000);
	free(t);
	kl_cfg_free(cfg);
	kl_domtree_free(dt);
	kl_domfront_free(df);
}

/* The largest tiny function: 64 blocks, a chain of diamonds in a loop
 * (0 -> 1; 1 -> 2, 3 -> 4; ... 58 -> 59, 60 -> 61 -> 63 -> 1 or 62). */
static void
test_sixty_four_blocks(void)
{
	kl_module *m = kl_module_new();
	kl_type i32 = KL_TYPE_I32;
	kl_signature sig = { &i32, NULL, 1, 0, false };
	kl_func *f;
	kl_module_add_func(m, "f", 1, &sig, &f);
	kl_block b[TINY_BLOCKS];
	for (uint32_t k = 0; k < TINY_BLOCKS; k++) {
		b[k] = kl_func_new_block(f);
		kl_func_append_block(f, b[k]);
	}
	kl_value c = kl_block_append_param(f, b[0], KL_TYPE_I32);
	kl_builder bld;
	kl_builder_init(&bld, f);
	kl_builder_at_end(&bld, b[0]);
	kl_build_jump(&bld, (kl_block_call){ b[1], NULL, 0 });
	for (uint32_t k = 1; k + 3 < TINY_BLOCKS; k += 3) {
		kl_builder_at_end(&bld, b[k]);
		kl_build_brif(&bld, c, (kl_block_call){ b[k + 1], NULL, 0 },
			      (kl_block_call){ b[k + 2], NULL, 0 });
		for (uint32_t j = 1; j <= 2; j++) {
			kl_builder_at_end(&bld, b[k + j]);
			kl_build_jump(&bld, (kl_block_call){ b[k + 3], NULL, 0 });
		}
	}
	kl_builder_at_end(&bld, b[TINY_BLOCKS - 3]);
	kl_build_jump(&bld, (kl_block_call){ b[TINY_BLOCKS - 1], NULL, 0 });
	kl_builder_at_end(&bld, b[TINY_BLOCKS - 1]);
	kl_build_brif(&bld, c, (kl_block_call){ b[1], NULL, 0 },
		      (kl_block_call){ b[TINY_BLOCKS - 2], NULL, 0 });
	kl_builder_at_end(&bld, b[TINY_BLOCKS - 2]);
	kl_build_return(&bld, NULL, 0);
	CHECK_EQ_INT(f->nblocks, TINY_BLOCKS);
	tiny_cfg *t = malloc(sizeof *t);
	promote_tiny_compute(t, f);
	CHECK_EQ_INT(t->reach, ~(uint64_t)0);
	/* The loop header's frontier is itself; a diamond's arms have the
	 * join in theirs. */
	CHECK_EQ_INT(t->b[1].df, 1u << 1);
	CHECK_EQ_INT(t->b[2].df, 1u << 4);
	CHECK_EQ_INT(t->b[63].idom, 61);
	CHECK_EQ_INT(t->b[62].idom, 63);
	CHECK_EQ_INT(t->b[61].df, 1u << 1);
	kl_cfg *cfg = kl_cfg_new();
	kl_domtree *dt = kl_domtree_new();
	kl_domfront *df = kl_domfront_new();
	compare(t, f, cfg, dt, df);
	free(t);
	kl_cfg_free(cfg);
	kl_domtree_free(dt);
	kl_domfront_free(df);
	kl_module_free(m);
}

int
main(void)
{
	UNIT_RUN(test_random_functions);
	UNIT_RUN(test_sixty_four_blocks);
	return unit_report("promote_tiny");
}
