/*
 * test_analysis_dom.c -- randomized tests of the CFG and the dominator
 * tree against naive computations, and of their repairs against full
 * recomputation.
 *
 * Fixed seeds, a few hundred random functions (rgraph.h): irreducible
 * graphs, unreachable blocks, self-loops, repeated br_table targets and
 * branches to unplaced blocks all come up. For each:
 *  - the CFG's edges and their order equal a direct scan of the IR;
 *  - idom, reachability and every dominates() answer equal the O(n^2)
 *    dataflow solution; inst_dominates agrees with block dominance and
 *    layout order; the post-order is a post-order of a DFS; rpo_cmp puts
 *    unreachable blocks after the reachable ones;
 *  - random edits of blocks repaired with kl_cfg_recompute_block equal a
 *    fresh kl_cfg_compute;
 *  - random splits repaired with kl_domtree_recompute_split (and the CFG
 *    repair) equal a fresh computation, post-order included, also after
 *    long chains of splits that use up the numbering gaps;
 *  - branches numbered in another order than the layout's (a branch
 *    inserted above an older one) still give successors in layout order.
 */
#include <string.h>

#include "../../src/analysis/analysis.h"
#include "rgraph.h"
#include "unit.h"

/* Compare the CFG with a scan of the IR in layout order. */
static void
check_cfg_matches_ir(const kl_func *f, const kl_cfg *cfg)
{
	uint64_t succ[RG_MAX];
	naive_succs(f, succ);
	/* Expected predecessor lists: branches in layout order. */
	kl_cfg_edge exp[RG_MAX][256];
	uint32_t nexp[RG_MAX] = { 0 };
	for (kl_block b = kl_func_first_block(f); b.id != KL_NONE;
	     b = kl_block_next(f, b)) {
		uint32_t ns = 0;
		for (kl_inst i = kl_block_first_inst(f, b); i.id != KL_NONE;
		     i = kl_inst_next(f, i)) {
			uint32_t n = kl_inst_num_dests(f, i);
			for (uint32_t k = 0; k < n; k++) {
				kl_block t = kl_inst_dest(f, i, k);
				if (!(succ[b.id] >> t.id & 1))
					continue; /* not a placed block */
				kl_cfg_edge se = kl_cfg_succ_edge(cfg, b, ns);
				CHECK(se.block.id == t.id);
				CHECK(se.inst.id == i.id);
				CHECK(kl_cfg_succ(cfg, b, ns).id == t.id);
				ns++;
				if (nexp[t.id] < 256)
					exp[t.id][nexp[t.id]++] =
						(kl_cfg_edge){ b, i };
			}
		}
		CHECK_EQ_INT(kl_cfg_num_succs(cfg, b), ns);
	}
	for (kl_block b = kl_func_first_block(f); b.id != KL_NONE;
	     b = kl_block_next(f, b)) {
		CHECK_EQ_INT(kl_cfg_num_preds(cfg, b), nexp[b.id]);
		for (uint32_t k = 0; k < nexp[b.id]; k++) {
			kl_cfg_edge e = kl_cfg_pred(cfg, b, k);
			CHECK(e.block.id == exp[b.id][k].block.id);
			CHECK(e.inst.id == exp[b.id][k].inst.id);
		}
	}
}

/* Compare the tree with the dataflow solution, for every pair. */
static void
ref_dfs(const kl_cfg *cfg, uint32_t b, uint64_t *seen, uint32_t *out,
	uint32_t *n)
{
	*seen |= (uint64_t)1 << b;
	for (uint32_t k = kl_cfg_num_succs(cfg, (kl_block){ b }); k-- > 0;) {
		uint32_t s = kl_cfg_succ(cfg, (kl_block){ b }, k).id;
		if (!(*seen >> s & 1))
			ref_dfs(cfg, s, seen, out, n);
	}
	out[(*n)++] = b;
}

static void
check_domtree_matches_naive(const kl_func *f, const kl_cfg *cfg,
			    const kl_domtree *dt)
{
	uint64_t dom[RG_MAX];
	naive_dominators(f, dom);
	uint32_t nb = kl_func_block_bound(f);
	uint32_t nreach = 0;
	for (uint32_t b = 0; b < nb; b++) {
		bool reach = dom[b] != 0;
		nreach += reach;
		CHECK(kl_domtree_is_reachable(dt, (kl_block){ b }) == reach);
		uint32_t want = reach ? naive_idom(dom, b) : KL_NONE;
		CHECK_EQ_INT(kl_domtree_idom(dt, (kl_block){ b }).id, want);
		for (uint32_t a = 0; a < nb; a++) {
			bool d = a == b || (dom[b] >> a & 1);
			CHECK(kl_domtree_dominates(dt, (kl_block){ a },
						   (kl_block){ b }) == d);
		}
	}
	/* The post-order: exactly that of a recursive DFS visiting the
	 * successors last first. */
	uint32_t npo;
	const kl_block *po = kl_domtree_postorder(dt, &npo);
	CHECK_EQ_INT(npo, nreach);
	uint32_t ref[RG_MAX], nref = 0;
	uint64_t seen = 0;
	if (nreach)
		ref_dfs(cfg, kl_func_first_block(f).id, &seen, ref, &nref);
	CHECK_EQ_INT(nref, npo);
	for (uint32_t k = 0; k < npo && k < nref; k++) {
		CHECK_EQ_INT(po[k].id, ref[k]);
		kl_block idom = kl_domtree_idom(dt, po[k]);
		if (idom.id != KL_NONE)
			CHECK(kl_domtree_rpo_cmp(dt, idom, po[k]) < 0);
		if (k)
			CHECK(kl_domtree_rpo_cmp(dt, po[k], po[k - 1]) < 0);
	}
	/* Unreachable blocks (and numbers no block of the layout has) sort
	 * after every reachable one (keel.h), level with each other. */
	for (uint32_t a = 0; a < nb; a++)
		for (uint32_t b = 0; b < nb; b++) {
			int c = kl_domtree_rpo_cmp(dt, (kl_block){ a },
						   (kl_block){ b });
			if (dom[a] && !dom[b])
				CHECK(c < 0);
			else if (!dom[a] && dom[b])
				CHECK(c > 0);
			else if (!dom[a] && !dom[b])
				CHECK(c == 0);
		}
	/* Children lists: exactly the blocks whose idom is the parent. */
	for (uint32_t b = 0; b < nb; b++) {
		uint32_t nchild = 0;
		for (kl_block c = kl_domtree_first_child(dt, (kl_block){ b });
		     c.id != KL_NONE; c = kl_domtree_next_sibling(dt, c)) {
			CHECK_EQ_INT(kl_domtree_idom(dt, c).id, b);
			nchild++;
		}
		uint32_t want = 0;
		for (uint32_t c = 0; c < nb; c++)
			want += kl_domtree_idom(dt, (kl_block){ c }).id == b;
		CHECK_EQ_INT(nchild, want);
	}
}

/* inst_dominates against block dominance and layout order. */
static void
check_inst_dominance(const kl_func *f, const kl_domtree *dt)
{
	kl_inst insts[512];
	uint32_t n = 0;
	for (kl_block b = kl_func_first_block(f); b.id != KL_NONE;
	     b = kl_block_next(f, b))
		for (kl_inst i = kl_block_first_inst(f, b);
		     i.id != KL_NONE && n < 512; i = kl_inst_next(f, i))
			insts[n++] = i;
	for (uint32_t x = 0; x < n; x++) {
		for (uint32_t y = 0; y < n; y++) {
			kl_block bx = kl_inst_block(f, insts[x]);
			kl_block by = kl_inst_block(f, insts[y]);
			bool want;
			if (bx.id == by.id)
				want = x <= y; /* collected in layout order */
			else
				want = kl_domtree_dominates(dt, bx, by);
			CHECK(kl_domtree_inst_dominates(dt, f, insts[x],
							insts[y]) == want);
		}
	}
}

static void
test_random_domtree(void)
{
	rng r = { 42 };
	kl_cfg *cfg = kl_cfg_new();
	kl_domtree *dt = kl_domtree_new();
	for (int iter = 0; iter < 400; iter++) {
		rgraph g;
		rg_build(&g, &r, 1 + rng_next(&r, iter < 100 ? 8 : 48));
		kl_cfg_compute(cfg, g.f);
		check_cfg_matches_ir(g.f, cfg);
		kl_domtree_compute(dt, g.f, cfg);
		check_domtree_matches_naive(g.f, cfg, dt);
		check_inst_dominance(g.f, dt);
		rg_free(&g);
	}
	kl_cfg_free(cfg);
	kl_domtree_free(dt);
}

/* Replace the last instruction of b (if any) by a random terminator. */
static void
retarget(rgraph *g, rng *r, kl_block b)
{
	kl_inst last = kl_block_last_inst(g->f, b);
	if (last.id != KL_NONE && rng_next(r, 4))
		kl_inst_remove(g->f, last);
	kl_builder bld;
	kl_builder_init(&bld, g->f);
	kl_builder_at_end(&bld, b);
	rg_terminator(g, r, &bld, false);
}

static void
check_cfg_same(const kl_cfg *got, const kl_func *f)
{
	kl_cfg *fresh = kl_cfg_new();
	kl_cfg_compute(fresh, f);
	kl_block differs;
	bool eq = kl_cfg_equal(got, fresh, &differs);
	CHECK(eq);
	if (!eq)
		fprintf(stderr, "  cfg differs at block%u\n", differs.id);
	kl_cfg_free(fresh);
}

static void
test_random_cfg_repair(void)
{
	rng r = { 7 };
	kl_cfg *cfg = kl_cfg_new();
	for (int iter = 0; iter < 300; iter++) {
		rgraph g;
		rg_build(&g, &r, 2 + rng_next(&r, 40));
		kl_cfg_compute(cfg, g.f);
		for (int step = 0; step < 12; step++) {
			uint32_t what = rng_next(&r, 3);
			if (what == 0 && g.nplaced + g.nunplaced < RG_MAX) {
				/* A new block somewhere, and a branch to it
				 * from a changed block. */
				kl_block nb = kl_func_new_block(g.f);
				uint32_t at = rng_next(&r, g.nplaced);
				kl_func_insert_block_after(g.f, nb,
							   g.placed[at]);
				memmove(&g.placed[at + 2], &g.placed[at + 1],
					(g.nplaced - at - 1) *
						sizeof g.placed[0]);
				g.placed[at + 1] = nb;
				g.nplaced++;
				kl_builder bld;
				kl_builder_init(&bld, g.f);
				kl_builder_at_end(&bld, nb);
				rg_terminator(&g, &r, &bld, false);
				kl_cfg_recompute_block(cfg, g.f, nb);
				uint32_t fi = rng_next(&r, g.nplaced);
				kl_block from = g.placed[fi];
				kl_inst last = kl_block_last_inst(g.f, from);
				if (last.id != KL_NONE)
					kl_inst_remove(g.f, last);
				kl_builder_at_end(&bld, from);
				kl_block_call to = {
					nb, g.vals, kl_block_num_params(g.f, nb)
				};
				kl_build_jump(&bld, to);
				kl_cfg_recompute_block(cfg, g.f, from);
			} else {
				kl_block b = g.placed[rng_next(&r, g.nplaced)];
				retarget(&g, &r, b);
				kl_cfg_recompute_block(cfg, g.f, b);
			}
			check_cfg_same(cfg, g.f);
		}
		rg_free(&g);
	}
	kl_cfg_free(cfg);
}

/* Copy terminator t (any kind) to the end of block dst. */
static void
copy_terminator(kl_func *f, kl_inst t, kl_block dst)
{
	kl_builder bld;
	kl_builder_init(&bld, f);
	kl_builder_at_end(&bld, dst);
	kl_value args[8][8];
	kl_block_call calls[8];
	uint32_t nd = kl_inst_num_dests(f, t);
	for (uint32_t k = 0; k < nd && k < 8; k++) {
		uint32_t na = kl_inst_dest_num_args(f, t, k);
		for (uint32_t j = 0; j < na && j < 8; j++)
			args[k][j] = kl_inst_dest_arg(f, t, k, j);
		calls[k] = (kl_block_call){ kl_inst_dest(f, t, k), args[k],
					    na };
	}
	switch (kl_inst_opcode(f, t)) {
	case KL_OP_JUMP:
		kl_build_jump(&bld, calls[0]);
		break;
	case KL_OP_BRIF:
		kl_build_brif(&bld, kl_inst_arg(f, t, 0), calls[0], calls[1]);
		break;
	case KL_OP_BR_TABLE:
		kl_build_br_table(&bld, kl_inst_arg(f, t, 0), calls[0],
				  calls + 1, nd - 1);
		break;
	case KL_OP_TRAP:
		kl_build_trap(&bld, KL_TRAP_UNREACHABLE, 0);
		break;
	default:
		kl_build_return(&bld, NULL, 0);
		break;
	}
	CHECK(kl_builder_status(&bld) == KL_OK);
}

/* Branches in block b: a split leaves old with one edge only if b had at
 * most one (random blocks sometimes have a branch in the middle). */
static uint32_t
count_branches(const kl_func *f, kl_block b)
{
	uint32_t n = 0;
	for (kl_inst i = kl_block_first_inst(f, b); i.id != KL_NONE;
	     i = kl_inst_next(f, i))
		n += kl_inst_num_dests(f, i) != 0;
	return n;
}

/*
 * Split block old: a new block after it takes its terminator, old ends
 * with a jump to the new block. (The other instructions stay in old: the
 * CFG and the tree only see branches.)
 */
static kl_block
split(rgraph *g, kl_block old)
{
	kl_func *f = g->f;
	kl_block nb = kl_func_new_block(f);
	kl_func_insert_block_after(f, nb, old);
	kl_inst t = kl_block_last_inst(f, old);
	if (t.id != KL_NONE) {
		copy_terminator(f, t, nb);
		kl_inst_remove(f, t);
	}
	kl_builder bld;
	kl_builder_init(&bld, f);
	kl_builder_at_end(&bld, old);
	kl_build_jump(&bld, (kl_block_call){ nb, NULL, 0 });
	return nb;
}

static void
check_domtree_same(const kl_domtree *got, const kl_func *f)
{
	kl_cfg *cfg = kl_cfg_new();
	kl_domtree *fresh = kl_domtree_new();
	kl_cfg_compute(cfg, f);
	kl_domtree_compute(fresh, f, cfg);
	kl_block differs;
	bool eq = kl_domtree_equal(got, fresh, &differs);
	CHECK(eq);
	if (!eq)
		fprintf(stderr, "  domtree differs at block%u\n", differs.id);
	uint32_t nb = kl_func_block_bound(f);
	for (uint32_t a = 0; a < nb; a++)
		for (uint32_t b = 0; b < nb; b++) {
			kl_block x = { a }, y = { b };
			CHECK(kl_domtree_dominates(got, x, y) ==
			      kl_domtree_dominates(fresh, x, y));
			int c1 = kl_domtree_rpo_cmp(got, x, y);
			int c2 = kl_domtree_rpo_cmp(fresh, x, y);
			CHECK((c1 < 0) == (c2 < 0) && (c1 > 0) == (c2 > 0));
		}
	kl_cfg_free(cfg);
	kl_domtree_free(fresh);
}

static void
test_random_split(void)
{
	rng r = { 1234 };
	kl_cfg *cfg = kl_cfg_new();
	kl_domtree *dt = kl_domtree_new();
	int repaired = 0, expected = 0;
	for (int iter = 0; iter < 300; iter++) {
		rgraph g;
		rg_build(&g, &r, 1 + rng_next(&r, 30));
		kl_cfg_compute(cfg, g.f);
		kl_domtree_compute(dt, g.f, cfg);
		uint32_t nsplits = rng_next(&r, 8);
		for (uint32_t s = 0; s < nsplits; s++) {
			if (kl_func_block_bound(g.f) >= RG_MAX)
				break;
			kl_block old = g.placed[rng_next(&r, g.nplaced)];
			kl_block nb = split(&g, old);
			g.placed[g.nplaced++] = nb; /* order irrelevant here */
			kl_cfg_recompute_block(cfg, g.f, old);
			kl_cfg_recompute_block(cfg, g.f, nb);
			check_cfg_same(cfg, g.f);
			bool shape = true;
			uint32_t ns = kl_cfg_num_succs(cfg, old);
			for (uint32_t k = 0; k < ns; k++)
				shape &= kl_cfg_succ(cfg, old, k).id == nb.id;
			expected += shape;
			repaired += kl_domtree_recompute_split(dt, g.f, cfg,
							       old, nb);
			check_domtree_same(dt, g.f);
		}
		rg_free(&g);
	}
	/* Every split of this shape must be repaired in place. */
	CHECK_EQ_INT(repaired, expected);
	kl_cfg_free(cfg);
	kl_domtree_free(dt);
}

/* Forty splits, each of the block the last one made: the gaps between
 * Euler times and RPO keys run out and must be renumbered. */
static void
test_split_chain(void)
{
	rng r = { 99 };
	kl_cfg *cfg = kl_cfg_new();
	kl_domtree *dt = kl_domtree_new();
	for (int iter = 0; iter < 20; iter++) {
		rgraph g;
		rg_build(&g, &r, 3 + rng_next(&r, 6));
		kl_cfg_compute(cfg, g.f);
		kl_domtree_compute(dt, g.f, cfg);
		kl_block cur = g.placed[rng_next(&r, g.nplaced)];
		if (!kl_domtree_is_reachable(dt, cur))
			cur = g.placed[0]; /* the gaps only matter if reachable */
		kl_inst last = kl_block_last_inst(g.f, cur);
		uint32_t nbr = kl_inst_num_dests(g.f, last) != 0;
		if (count_branches(g.f, cur) > nbr) {
			rg_free(&g);
			continue;
		}
		bool first_child = rng_next(&r, 2);
		for (int s = 0; s < 50 && kl_func_block_bound(g.f) < RG_MAX;
		     s++) {
			kl_block old = cur;
			kl_block nb = split(&g, old);
			kl_cfg_recompute_block(cfg, g.f, old);
			kl_cfg_recompute_block(cfg, g.f, nb);
			CHECK(kl_domtree_recompute_split(dt, g.f, cfg, old,
							 nb));
			/* Split the new block next, or keep splitting the
			 * old one (its child gap then shrinks). */
			cur = first_child ? old : nb;
		}
		check_cfg_same(cfg, g.f);
		check_domtree_same(dt, g.f);
		rg_free(&g);
	}
	kl_cfg_free(cfg);
	kl_domtree_free(dt);
}

/* A repair given the wrong shape recomputes and says so. */
static void
test_split_fallback(void)
{
	rng r = { 5 };
	rgraph g;
	rg_build(&g, &r, 6);
	kl_cfg *cfg = kl_cfg_new();
	kl_domtree *dt = kl_domtree_new();
	kl_cfg_compute(cfg, g.f);
	kl_domtree_compute(dt, g.f, cfg);
	/* Not a split: block 0 and a block that has nothing to do with it. */
	CHECK(!kl_domtree_recompute_split(dt, g.f, cfg, g.placed[0],
					  g.placed[1]));
	check_domtree_same(dt, g.f);
	kl_cfg_free(cfg);
	kl_domtree_free(dt);
	rg_free(&g);
}

/*
 * A chain block0 -> block1 -> block2. Split repairs asked of blocks
 * that merely look like a split must recompute: block1 was there before;
 * then a new block has a second predecessor. Then a new entry jumps to
 * block0, and the tree computed again in the same object reaches
 * block0, the entry it had before.
 */
static void
test_chain_reuse(void)
{
	kl_module *m = kl_module_new();
	kl_signature sig = { NULL, NULL, 0, 0, false };
	kl_func *f;
	kl_module_add_func(m, "f", 1, &sig, &f);
	kl_block b[3];
	for (int k = 0; k < 3; k++) {
		b[k] = kl_func_new_block(f);
		kl_func_append_block(f, b[k]);
	}
	kl_builder bld;
	kl_builder_init(&bld, f);
	for (int k = 0; k < 2; k++) {
		kl_builder_at_end(&bld, b[k]);
		kl_build_jump(&bld, (kl_block_call){ b[k + 1], NULL, 0 });
	}
	kl_builder_at_end(&bld, b[2]);
	kl_build_return(&bld, NULL, 0);
	kl_cfg *cfg = kl_cfg_new();
	kl_domtree *dt = kl_domtree_new();
	kl_cfg_compute(cfg, f);
	kl_domtree_compute(dt, f, cfg);
	CHECK(!kl_domtree_recompute_split(dt, f, cfg, b[0], b[1]));
	check_domtree_same(dt, f);
	CHECK_EQ_INT(kl_domtree_idom(dt, b[1]).id, b[0].id);
	/* n, new, placed after block0: block0 and block1 jump to n, n to
	 * block2. block0's only successor is n, but n has another
	 * predecessor: no split either. */
	kl_block n = kl_func_new_block(f);
	CHECK_EQ_INT(kl_func_insert_block_after(f, n, b[0]), KL_OK);
	kl_builder_at_end(&bld, n);
	kl_build_jump(&bld, (kl_block_call){ b[2], NULL, 0 });
	for (int k = 0; k < 2; k++)
		CHECK_EQ_INT(kl_inst_set_dest(f, kl_block_last_inst(f, b[k]),
					      0, (kl_block_call){ n, NULL, 0 }),
			     KL_OK);
	kl_cfg_compute(cfg, f);
	CHECK(!kl_domtree_recompute_split(dt, f, cfg, b[0], n));
	check_domtree_same(dt, f);
	CHECK(!kl_domtree_is_reachable(dt, b[1]));
	kl_block e = kl_func_new_block(f);
	CHECK_EQ_INT(kl_func_insert_block_before(f, e, b[0]), KL_OK);
	kl_builder_at_end(&bld, e);
	kl_build_jump(&bld, (kl_block_call){ b[0], NULL, 0 });
	CHECK_EQ_INT(kl_builder_status(&bld), KL_OK);
	kl_cfg_compute(cfg, f);
	kl_domtree_compute(dt, f, cfg);
	CHECK(kl_domtree_is_reachable(dt, b[0]));
	CHECK_EQ_INT(kl_domtree_idom(dt, b[0]).id, e.id);
	check_domtree_same(dt, f);
	kl_cfg_free(cfg);
	kl_domtree_free(dt);
	kl_module_free(m);
}

/*
 * Branches whose instruction numbers disagree with their layout order: a
 * branch inserted above one built before it (IR the verifier would reject,
 * as a pass may leave it mid-edit). kl_cfg_compute finds the edges in the
 * order of the instruction table, so it must sort a block's successors by
 * the layout position of their branches; the random functions are built
 * top-down, where the two orders agree and nothing tells whether the sort
 * ran. Two branches in a block, then three; then two jumps alone.
 */
static void
test_cfg_branch_order(void)
{
	kl_module *m = kl_module_new();
	kl_type p = KL_TYPE_I32;
	kl_signature sig = { &p, NULL, 1, 0, false };
	kl_func *f;
	kl_module_add_func(m, "f", 1, &sig, &f);
	kl_block b[4];
	for (int k = 0; k < 4; k++) {
		b[k] = kl_func_new_block(f);
		kl_func_append_block(f, b[k]);
	}
	kl_value c = kl_block_append_param(f, b[0], KL_TYPE_I32);
	kl_builder bld;
	kl_builder_init(&bld, f);
	for (int k = 1; k < 4; k++) {
		kl_builder_at_end(&bld, b[k]);
		kl_build_return(&bld, NULL, 0);
	}
	kl_builder_at_end(&bld, b[0]);
	kl_inst last = kl_build_brif(&bld, c, (kl_block_call){ b[1], NULL, 0 },
				     (kl_block_call){ b[2], NULL, 0 });
	kl_builder_before(&bld, last);
	kl_inst mid = kl_build_jump(&bld, (kl_block_call){ b[3], NULL, 0 });
	CHECK(mid.id > last.id); /* numbered after, placed before */
	kl_cfg *cfg = kl_cfg_new();
	kl_cfg_compute(cfg, f);
	check_cfg_matches_ir(f, cfg);
	CHECK_EQ_INT(kl_cfg_num_succs(cfg, b[0]), 3);
	CHECK_EQ_INT(kl_cfg_succ(cfg, b[0], 0).id, b[3].id);
	CHECK_EQ_INT(kl_cfg_succ(cfg, b[0], 1).id, b[1].id);
	CHECK_EQ_INT(kl_cfg_succ(cfg, b[0], 2).id, b[2].id);
	/* A third branch, numbered last, placed first. */
	kl_builder_before(&bld, mid);
	kl_build_jump(&bld, (kl_block_call){ b[2], NULL, 0 });
	kl_cfg_compute(cfg, f);
	check_cfg_matches_ir(f, cfg);
	CHECK_EQ_INT(kl_cfg_succ(cfg, b[0], 0).id, b[2].id);
	CHECK_EQ_INT(kl_cfg_succ(cfg, b[0], 1).id, b[3].id);
	/* Two jumps in block1, two edges in all: sorted as well. */
	kl_builder_at_end(&bld, b[1]);
	kl_builder_before(&bld, kl_block_last_inst(f, b[1]));
	kl_inst j2 = kl_build_jump(&bld, (kl_block_call){ b[2], NULL, 0 });
	kl_builder_before(&bld, j2);
	kl_build_jump(&bld, (kl_block_call){ b[3], NULL, 0 });
	kl_cfg_compute(cfg, f);
	check_cfg_matches_ir(f, cfg);
	CHECK_EQ_INT(kl_cfg_num_succs(cfg, b[1]), 2);
	CHECK_EQ_INT(kl_cfg_succ(cfg, b[1], 0).id, b[3].id);
	CHECK_EQ_INT(kl_cfg_succ(cfg, b[1], 1).id, b[2].id);
	kl_cfg_free(cfg);
	kl_module_free(m);
}

/*
 * The queries past the end of a list, and kl_cfg_equal on a CFG left
 * stale by new blocks: block0 jumps to block1, block1 to block2, which
 * returns.
 */
static void
test_cfg_edges(void)
{
	kl_module *m = kl_module_new();
	kl_signature sig = { NULL, NULL, 0, 0, false };
	kl_func *f;
	kl_module_add_func(m, "f", 1, &sig, &f);
	kl_block b[5];
	kl_builder bld;
	kl_builder_init(&bld, f);
	for (int k = 0; k < 3; k++) {
		b[k] = kl_func_new_block(f);
		kl_func_append_block(f, b[k]);
	}
	for (int k = 0; k < 2; k++) {
		kl_builder_at_end(&bld, b[k]);
		kl_build_jump(&bld, (kl_block_call){ b[k + 1], NULL, 0 });
	}
	kl_builder_at_end(&bld, b[2]);
	kl_build_return(&bld, NULL, 0);
	kl_cfg *cfg = kl_cfg_new(), *fresh = kl_cfg_new();
	kl_cfg_compute(cfg, f);
	/* past the end of a list: no edge, though block2's list follows */
	CHECK_EQ_INT(kl_cfg_pred(cfg, b[1], 0).block.id, b[0].id);
	CHECK(kl_cfg_pred(cfg, b[1], 1).block.id == KL_NONE);
	CHECK(kl_cfg_pred(cfg, b[1], 1).inst.id == KL_NONE);
	CHECK(kl_cfg_succ_edge(cfg, b[0], 1).block.id == KL_NONE);
	/* block3 and block4, new, jumping one to the other, beyond the
	 * blocks the cached CFG covers: it is stale, at block3 */
	b[3] = kl_func_new_block(f);
	b[4] = kl_func_new_block(f);
	kl_func_append_block(f, b[3]);
	kl_func_append_block(f, b[4]);
	kl_builder_at_end(&bld, b[3]);
	kl_build_jump(&bld, (kl_block_call){ b[4], NULL, 0 });
	kl_builder_at_end(&bld, b[4]);
	kl_build_return(&bld, NULL, 0);
	kl_cfg_compute(fresh, f);
	kl_block differs = { 0 };
	CHECK(!kl_cfg_equal(cfg, fresh, &differs));
	CHECK_EQ_INT(differs.id, b[3].id);
	CHECK(!kl_cfg_equal(fresh, cfg, &differs));
	CHECK_EQ_INT(differs.id, b[3].id);
	kl_cfg_compute(cfg, f);
	CHECK(kl_cfg_equal(cfg, fresh, &differs));
	CHECK(differs.id == KL_NONE);
	/* block1 jumps to block4 instead; then block3 moves above block1:
	 * the same successor lists, but block4's predecessors follow the
	 * layout, block3 first */
	CHECK_EQ_INT(kl_inst_set_dest(f, kl_block_last_inst(f, b[1]), 0,
				      (kl_block_call){ b[4], NULL, 0 }),
		     KL_OK);
	kl_cfg_compute(cfg, f);
	CHECK_EQ_INT(kl_func_move_block(f, b[3], b[1]), KL_OK);
	kl_cfg_compute(fresh, f);
	CHECK_EQ_INT(kl_cfg_pred(fresh, b[4], 0).block.id, b[3].id);
	CHECK_EQ_INT(kl_cfg_pred(cfg, b[4], 0).block.id, b[1].id);
	CHECK(!kl_cfg_equal(cfg, fresh, &differs));
	CHECK_EQ_INT(differs.id, b[4].id);
	kl_cfg_free(cfg);
	kl_cfg_free(fresh);
	kl_module_free(m);
}

/* An empty function and a function of one block. */
static void
test_tiny(void)
{
	kl_module *m = kl_module_new();
	kl_func *f;
	kl_signature sig = { NULL, NULL, 0, 0, false };
	kl_module_add_func(m, "e", 1, &sig, &f);
	kl_cfg *cfg = kl_cfg_new();
	kl_domtree *dt = kl_domtree_new();
	kl_cfg_compute(cfg, f);
	kl_domtree_compute(dt, f, cfg);
	uint32_t n;
	kl_domtree_postorder(dt, &n);
	CHECK_EQ_INT(n, 0);
	CHECK(!kl_domtree_is_reachable(dt, (kl_block){ 0 }));
	kl_block b = kl_func_new_block(f);
	kl_func_append_block(f, b);
	kl_builder bld;
	kl_builder_init(&bld, f);
	kl_builder_at_end(&bld, b);
	kl_build_return(&bld, NULL, 0);
	kl_cfg_compute(cfg, f);
	kl_domtree_compute(dt, f, cfg);
	kl_domtree_postorder(dt, &n);
	CHECK_EQ_INT(n, 1);
	CHECK(kl_domtree_is_reachable(dt, b));
	CHECK(kl_domtree_idom(dt, b).id == KL_NONE);
	CHECK(kl_domtree_dominates(dt, b, b));
	CHECK(!kl_domtree_dominates(dt, b, (kl_block){ 7 }));
	/* a number that is no block of the function is no block that
	 * dominates itself */
	CHECK(!kl_domtree_dominates(dt, (kl_block){ 7 }, (kl_block){ 7 }));
	/* the bound itself (one past the last block) is none either */
	CHECK(!kl_domtree_dominates(dt, (kl_block){ 1 }, (kl_block){ 1 }));
	CHECK_EQ_INT(kl_cfg_num_succs(cfg, b), 0);
	CHECK_EQ_INT(kl_cfg_num_preds(cfg, (kl_block){ 100 }), 0);
	CHECK(kl_cfg_succ(cfg, b, 0).id == KL_NONE);
	/* an instruction taken out of the layout dominates nothing, not
	 * even itself (keel.h: false if either is not placed) */
	kl_builder_init(&bld, f);
	kl_builder_before(&bld, kl_block_first_inst(f, b));
	kl_value c = kl_build_iconst(&bld, KL_TYPE_I32, 1);
	kl_inst ci = kl_value_def_inst(f, c);
	CHECK(kl_domtree_inst_dominates(dt, f, ci, ci));
	kl_inst_remove(f, ci);
	CHECK(!kl_domtree_inst_dominates(dt, f, ci, ci));
	CHECK(!kl_domtree_inst_dominates(dt, f, ci, kl_block_first_inst(f, b)));
	kl_cfg_free(cfg);
	kl_domtree_free(dt);
	kl_cfg_free(NULL);
	kl_domtree_free(NULL);
	kl_module_free(m);
}

int
main(void)
{
	UNIT_RUN(test_tiny);
	UNIT_RUN(test_random_domtree);
	UNIT_RUN(test_random_cfg_repair);
	UNIT_RUN(test_random_split);
	UNIT_RUN(test_split_chain);
	UNIT_RUN(test_split_fallback);
	UNIT_RUN(test_chain_reuse);
	UNIT_RUN(test_cfg_branch_order);
	UNIT_RUN(test_cfg_edges);
	return unit_report("analysis_dom");
}
