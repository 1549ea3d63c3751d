/*
 * test_analysis_robust.c -- the analyses on broken IR: they run before the
 * verifier has accepted a function (the verifier computes them itself),
 * so a cyclic or dangling layout, an instruction list that loops, a
 * branch to a block that does not exist or a value defined nowhere must
 * give some answer -- never a crash, never a hang. Random functions
 * (rgraph.h) are damaged at random through the internal tables, then
 * every analysis, repair and printer runs on them. Run under the
 * sanitizers (make SAN=1) this shows no out-of-bounds access either.
 */
#include <string.h>

#include "all_analyses.h"
#include "rgraph.h"
#include "unit.h"
#include "onefunc.h"
#include "../../src/ir/ir.h"

/* Some random damage to the layout, the branches and the values. */
static void
damage(kl_func *f, rng *r)
{
	uint32_t nb = f->nblocks, ni = f->ninsts, nv = f->nvalues;
	uint32_t n = 1 + rng_next(r, 4);
	for (uint32_t k = 0; k < n; k++) {
		/* Ids in range most of the time, sometimes far out. */
		uint32_t far = rng_next(r, 4) == 0 ? 1000 : 0;
		switch (rng_next(r, 9)) {
		case 0:
			f->blocks[rng_next(r, nb)].next = rng_next(r, nb) + far;
			break;
		case 1:
			f->blocks[rng_next(r, nb)].prev = rng_next(r, nb) + far;
			break;
		case 2:
			f->first_block = rng_next(r, nb) + far;
			break;
		case 3:
			f->last_block = rng_next(r, nb) + far;
			break;
		case 4:
			if (ni)
				f->nodes[rng_next(r, ni)].next =
					rng_next(r, ni) + far;
			break;
		case 5:
			if (ni)
				f->nodes[rng_next(r, ni)].block =
					rng_next(r, nb) + far;
			break;
		case 6:
			if (ni)
				f->nodes[rng_next(r, ni)].seq = rng_next(r, 64);
			break;
		case 7: {
			/* A branch to a block number that does not exist. */
			for (uint32_t i = 0; i < ni; i++) {
				const uint32_t *d;
				if (!inst_dests(f, i, &d))
					continue;
				uint32_t *w = (uint32_t *)d, t = nb + 5 + far;
				if (w[0] & DEST_BLOCK) { /* the block alone */
					w[0] = dest_word_of_block(t);
					break;
				}
				if (w[0] && w[0] < f->pool.len) {
					f->pool.data[w[0]] = t;
					break;
				}
			}
			break;
		}
		default:
			if (nv) {
				uint32_t v = rng_next(r, nv);
				f->values[v].def = rng_next(r, 100) + far;
			}
			break;
		}
	}
}

static void
run_everything(kl_func *f, rng *r)
{
	all_analyses all;
	kl_buf out = { 0 };
	all_analyses_run(&all, f, &out);
	kl_cfg *cfg = all.cfg;
	kl_domtree *dt = all.dt;
	uint32_t nb = kl_func_block_bound(f);
	for (int k = 0; k < 4; k++) {
		kl_block set[3] = { { rng_next(r, nb + 2) },
				    { rng_next(r, nb + 2) },
				    { rng_next(r, nb + 2) } };
		const kl_block *o;
		kl_domfront_iterated(all.df, all.ws, set, 3, &o);
		kl_block a = { rng_next(r, nb + 2) };
		kl_block b = { rng_next(r, nb + 2) };
		kl_cfg_recompute_block(cfg, f, a);
		kl_domtree_recompute_split(dt, f, cfg, a, b);
		kl_domtree_dominates(dt, a, b);
		kl_domtree_inst_dominates(dt, f,
					  (kl_inst){ rng_next(r, 100) },
					  (kl_inst){ rng_next(r, 100) });
	}
	CHECK(out.len > 0);
	kl_buf_free(&out);
	all_analyses_free(&all);
}

static void
test_damaged(void)
{
	rng r = { 4242 };
	for (int iter = 0; iter < 600; iter++) {
		rgraph g;
		rg_build(&g, &r, 1 + rng_next(&r, 40));
		damage(g.f, &r);
		run_everything(g.f, &r);
		rg_free(&g);
	}
}

/* Two branches in a block, both to blocks not in the layout: the CFG has
 * no edges, and sorting a block's successors must not touch the empty
 * pool (NULL + 0, which clang's UBSan reports). */
static void
test_branches_out_of_layout(void)
{
	kl_func *f;
	kl_block b0;
	kl_builder b;
	kl_module *m = one_block_func(&f, &b0, &b);
	kl_block b1 = kl_func_new_block(f), b2 = kl_func_new_block(f);
	kl_build_jump(&b, (kl_block_call){ b1, NULL, 0 });
	kl_build_jump(&b, (kl_block_call){ b2, NULL, 0 });
	kl_cfg *cfg = kl_cfg_new();
	kl_cfg_compute(cfg, f);
	kl_cfg_free(cfg);
	kl_module_free(m);
}

/* The layout cycles of the verifier's own tests, exactly. */
static void
test_cycles(void)
{
	rng r = { 1 };
	rgraph g;
	rg_build(&g, &r, 6);
	kl_func *f = g.f;
	/* A cycle of blocks: the last one links back to the second. */
	f->blocks[g.placed[g.nplaced - 1].id].next = g.placed[1].id;
	/* A cycle in the first block's instruction list. */
	uint32_t i0 = f->blocks[g.placed[0].id].first;
	if (i0 != KL_NONE)
		f->nodes[i0].next = i0;
	run_everything(f, &r);
	rg_free(&g);
}

/*
 * Analyses given the CFG of one function and the dominator tree of
 * another (or of the same function before an edit: a pass that forgot to
 * recompute one). kl_loops_compute read the CFG's arrays at the tree's
 * blocks, past their end when the tree had more. The answers are
 * meaningless; only that nothing is read out of bounds (under the
 * sanitizers) or crashes is checked, and that the matching pair still
 * finds its loops.
 */
static const char mixed_functions[] =
	"function %irr(i32) -> i32 {\n"
	"block0(v0: i32):\n    brif v0, block1, block2\n"
	"block1:\n    jump block2\n"
	"block2:\n    brif v0, block1, block3\n"
	"block3:\n    return v0\n}\n"
	"function %nest(i32) -> i32 {\n"
	"block0(v0: i32):\n    jump block1\n"
	"block1:\n    jump block2\n"
	"block2:\n    jump block3\n"
	"block3:\n    brif v0, block4, block1\n"
	"block4:\n    brif v0, block5, block6\n"
	"block5:\n    jump block4\n"
	"block6:\n    brif v0, block7, block8\n"
	"block7:\n    jump block8\n"
	"block8:\n    brif v0, block9, block7\n"
	"block9:\n    return v0\n}\n"
	"function %one(i32) -> i32 {\n"
	"block0(v0: i32):\n    return v0\n}\n";

static void
test_analyses_of_other_functions(void)
{
	kl_module *m = NULL;
	kl_diags d = { 0 };
	CHECK(kl_parse_module(mixed_functions, sizeof mixed_functions - 1,
			      NULL, &m, &d) == KL_OK);
	kl_func *fs[3];
	for (uint32_t k = 0; k < 3; k++)
		fs[k] = kl_sym_func(m, (kl_sym){ k });
	kl_cfg *cfg = kl_cfg_new(), *dcfg = kl_cfg_new();
	kl_domtree *dt = kl_domtree_new();
	kl_domfront *df = kl_domfront_new();
	kl_loops *lf = kl_loops_new();
	kl_liveness *lv = kl_liveness_new();
	kl_buf out = { 0 };
	for (uint32_t a = 0; a < 3; a++)
		for (uint32_t c = 0; c < 3; c++)
			for (uint32_t t = 0; t < 3; t++) {
				kl_func *f = fs[a];
				kl_cfg_compute(cfg, fs[c]);
				kl_cfg_compute(dcfg, fs[t]);
				kl_domtree_compute(dt, fs[t], dcfg);
				kl_loops_compute(lf, f, cfg, dt);
				kl_domfront_compute(df, f, cfg, dt);
				kl_liveness_compute(lv, f, cfg);
				kl_cfg_print_dot(f, cfg, dt, lf, &out);
				kl_domtree_print(f, dt, df, &out);
				kl_loops_print(f, lf, &out);
				kl_liveness_print(f, lv, &out);
				kl_buf_reset(&out);
				if (a == c && c == t)
					/* %nest: two loops and a region of
					 * block7 and block8; %irr: a region;
					 * %one: nothing */
					CHECK_EQ_INT(kl_loops_count(lf),
						     (a == 1 ? 2 : 0));
			}
	kl_buf_free(&out);
	kl_cfg_free(cfg);
	kl_cfg_free(dcfg);
	kl_domtree_free(dt);
	kl_domfront_free(df);
	kl_loops_free(lf);
	kl_liveness_free(lv);
	kl_diags_free(&d);
	kl_module_free(m);
}

/*
 * The same with a tree that covers fewer blocks than the CFG names (a
 * fresh tree of a small function, the CFG of one that branches to
 * block100), in an irreducible graph so that the SCC search runs too:
 * the edges' ends were read in the tree's arrays unchecked, past their
 * end, which the loop above missed as its reused tree had room.
 */
static void
test_loops_of_a_smaller_tree(void)
{
	static const char text[] =
		"function %one(i32) -> i32 {\n"
		"block0(v0: i32):\n    brif v0, block1, block2\n"
		"block1:\n    jump block2\n"
		"block2:\n    brif v0, block1, block3\n"
		"block3:\n    return v0\n}\n"
		"function %far(i32) -> i32 {\n"
		"block0(v0: i32):\n    brif v0, block1, block2\n"
		"block1:\n    brif v0, block2, block100\n"
		"block2:\n    jump block1\n"
		"block100:\n    return v0\n}\n";
	kl_module *m = NULL;
	CHECK(kl_parse_module(text, sizeof text - 1, NULL, &m, NULL) ==
	      KL_OK);
	kl_func *one = kl_sym_func(m, (kl_sym){ 0 });
	kl_func *far = kl_sym_func(m, (kl_sym){ 1 });
	kl_cfg *cfg_one = kl_cfg_new(), *cfg_far = kl_cfg_new();
	kl_domtree *dt = kl_domtree_new();
	kl_loops *lf = kl_loops_new();
	kl_cfg_compute(cfg_one, one);
	kl_cfg_compute(cfg_far, far);
	kl_domtree_compute(dt, one, cfg_one);
	kl_loops_compute(lf, far, cfg_far, dt);
	kl_buf out = { 0 };
	kl_loops_print(far, lf, &out);
	kl_buf_free(&out);
	kl_loops_free(lf);
	kl_domtree_free(dt);
	kl_cfg_free(cfg_one);
	kl_cfg_free(cfg_far);
	kl_module_free(m);
}

int
main(void)
{
	UNIT_RUN(test_loops_of_a_smaller_tree);
	UNIT_RUN(test_analyses_of_other_functions);
	UNIT_RUN(test_cycles);
	UNIT_RUN(test_branches_out_of_layout);
	UNIT_RUN(test_damaged);
	return unit_report("analysis_robust");
}
