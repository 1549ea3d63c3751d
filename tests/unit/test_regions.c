/*
 * test_regions.c -- the structured regions (kl_regions, keel.h) checked
 * against their specification alone, for every function:
 *  - shape: a tree numbered in preorder from the BODY, parent and child
 *    links that agree, CODE, LEAVE and the edges leaves and the others
 *    not empty, ARMs exactly the children of IFs and SWITCHes, one ARM
 *    per edge in edge order, BREAK and CONTINUE naming an enclosing SCOPE
 *    and LOOP of the edge's target, each field none where the kind has
 *    none, every answer in range and none past the end;
 *  - coverage: one CODE node per reachable block and none for the
 *    others, one edge node per CFG edge out of a reachable block, one
 *    LEAVE per reachable block without successors, one LOOP per loop,
 *    gotos only for edges into irreducible regions, and some exactly
 *    when there are any;
 *  - semantics, statically for every node: after a block's CODE comes
 *    what stands for its terminator (its LEAVE, its one edge node, or its
 *    IF or SWITCH whose ARM i starts with edge node i), and every edge
 *    node, SCOPE and LOOP leads to the CODE of its block; and dynamically:
 *    random walks of the CFG replayed through the tree, which must run
 *    the same blocks' code in the same order;
 *  - reuse: an object computed again answers as a fresh one; empty
 *    functions, kl_regions_free(NULL), and analyses of another function
 *    or of the function before edits (stale ones) give no crash;
 *  - kl_regions_print writes something that starts "regions ".
 *
 * The rules the test derives rather than reads in keel.h (each marked
 * where checked): an ARM starts with its edge's node, and an edge out of
 * a block with one successor follows the block's CODE (each edge is one
 * edge node, and it runs right after the code); a SCOPE is followed, by
 * the rules of running off ends, by its block's CODE ("the block whose
 * code follows the scope"); a LOOP starts with its header's CODE, and
 * its block is a loop header of kl_loops, one LOOP per loop; an edge
 * whose target dominates its source is a CONTINUE (not a goto, keel.h,
 * and it must restart the code that ran before); a NEXT in an ARM goes
 * on after the ARM's IF or SWITCH, elsewhere after itself; a brif with
 * two edges is an IF, a br_table with two edges an IF or a SWITCH.
 *
 * Inputs: thousands of random functions of rgraph.h (irreducible graphs,
 * unreachable blocks, self-loops, br_table with repeated targets, brif
 * with equal arms, branches to unplaced blocks, mid-block branches),
 * mostly structured ones built here (reducible: they need no goto),
 * bigger random ones (up to 1,500 blocks), random functions edited after
 * their analyses were computed, hand-written shapes, and three big ones
 * that a recursive implementation would overflow the stack on: a
 * 200,000-block chain, a 50,000-deep nest of loops and a 100,000-way
 * br_table whose repeated targets make 25,000 merge blocks.
 *
 * What the spec promises for which input (a decision of this test):
 * the tree is defined by the CFG (keel.h's CFG gives edges only to
 * placed blocks, in a documented order), the dominator tree and the
 * loops, and the analysis reads no values, so the random functions'
 * values not dominating their uses do not matter, and a branch to an
 * unplaced block is simply no edge. But a block with a branch in its
 * middle has edges that do not come from its terminator, while the spec
 * defines IF as "a brif" and LEAVE as "a terminator without successors":
 * for such functions (unverified IR, "nonsense in, nonsense out") only
 * the shape of the tree that keel.h states unconditionally (preorder,
 * links, kinds of leaves and containers, fields none by kind) and
 * in-range answers are checked, and that nothing crashes; each is then
 * checked in full without its mid-block branches.
 *
 * Fixed seeds (the same draws on every compiler), no recursion in the
 * test either (the big trees are deeper than a stack).
 */
#include <stdlib.h>
#include <string.h>

#include "regions_check.h"

/* ---- inputs ---- */

/* A module of one function (i32) -> () named name, with n empty blocks
 * b[0..n) in layout order, b[0] its entry and *cond its parameter. */
static kl_module *
blank_func(const char *name, uint32_t n, kl_func **f, kl_block *b,
	   kl_value *cond)
{
	kl_module *m = kl_module_new();
	kl_type p = KL_TYPE_I32;
	kl_signature sig = { &p, NULL, 1, 0, false };
	kl_module_add_func(m, name, strlen(name), &sig, f);
	for (uint32_t i = 0; i < n; i++) {
		b[i] = kl_func_new_block(*f);
		kl_func_append_block(*f, b[i]);
	}
	*cond = kl_block_append_param(*f, b[0], KL_TYPE_I32);
	return m;
}

/*
 * A function from a compact description, one word per block in layout
 * order (block0 the entry, with the i32 parameter every branch tests):
 * "r" return, "u" trap, "-" no terminator, "j3" jump block3, "b1,2" brif
 * (then, else), "t4,1,2" br_table (the default, then the table).
 */
static kl_module *
shape(const char *spec, kl_func **fo)
{
	uint32_t n = 1;
	for (const char *s = spec; *s; s++)
		n += *s == ' ';
	kl_func *f;
	kl_block *b = xcalloc(n, sizeof *b);
	kl_value c;
	kl_module *m = blank_func("s", n, &f, b, &c);
	kl_builder bld;
	kl_builder_init(&bld, f);
	const char *s = spec;
	for (uint32_t k = 0; k < n; k++) {
		kl_builder_at_end(&bld, b[k]);
		char op = *s++;
		kl_block_call t[16];
		uint32_t nt = 0;
		while (*s && *s != ' ' && nt < 16) {
			char *e;
			unsigned long v = strtoul(s, &e, 10);
			t[nt++] = (kl_block_call){ b[v < n ? v : 0], NULL, 0 };
			s = *e == ',' ? e + 1 : e;
		}
		if (*s == ' ')
			s++;
		if (op == 'r')
			kl_build_return(&bld, NULL, 0);
		else if (op == 'u')
			kl_build_trap(&bld, KL_TRAP_UNREACHABLE, 0);
		else if (op == 'j')
			kl_build_jump(&bld, t[0]);
		else if (op == 'b')
			kl_build_brif(&bld, c, t[0], t[1]);
		else if (op == 't')
			kl_build_br_table(&bld, c, t[0], t + 1, nt - 1);
	}
	CHECK(kl_builder_status(&bld) == KL_OK);
	free(b);
	*fo = f;
	return m;
}

/*
 * A random function whose edges go forward in the layout (near: nests
 * of IFs and merges) except back edges to a dominator of their source:
 * reducible, so its tree needs no goto. With irr, one edge in three
 * functions goes back to any block, which may make it irreducible.
 */
static kl_module *
structured(rng *r, uint32_t n, bool irr, kl_func **fo)
{
	uint32_t op[RG_MAX], nt[RG_MAX], tg[RG_MAX][8];
	uint64_t dom[RG_MAX];
	for (uint32_t i = 0; i < n; i++) {
		uint32_t left = n - 1 - i, w = rng_next(r, 100);
		nt[i] = 0;
		op[i] = left == 0 || w < 8 ? 'r' : w < 12 ? 'u' :
			w < 45		    ? 'j' :
			w < 85		    ? 'b' :
					      't';
		uint32_t want = op[i] == 'j' ? 1 :
				op[i] == 'b' ? 2 :
				op[i] == 't' ? 2 + rng_next(r, 6) :
					       0;
		for (uint32_t k = 0; k < want; k++) {
			uint32_t span = left < 4 ? left : 4;
			tg[i][nt[i]++] = k && rng_next(r, 6) == 0 ?
						 tg[i][k - 1] :
						 i + 1 + rng_next(r, span);
		}
	}
	/* Dominators of the forward graph: one pass in layout order, all
	 * edges going forward. */
	uint64_t reach = 1;
	for (uint32_t i = 0; i < n; i++)
		dom[i] = i == 0 ? 1 : ~(uint64_t)0;
	for (uint32_t i = 0; i < n; i++) {
		if (!(reach >> i & 1))
			continue;
		for (uint32_t k = 0; k < nt[i]; k++) {
			uint32_t t = tg[i][k];
			uint64_t d = dom[i] | (uint64_t)1 << t;
			dom[t] = (reach >> t & 1) ? dom[t] & d : d;
			reach |= (uint64_t)1 << t;
		}
	}
	/* Back edges: targets that dominate their source (itself too);
	 * removing forward edges only keeps them dominating it. */
	for (uint32_t i = 0; i < n; i++) {
		if (!nt[i] || rng_next(r, 4) || !(reach >> i & 1))
			continue;
		uint32_t nd = popcount64(dom[i]), pick = rng_next(r, nd);
		uint32_t d = 0;
		for (; d < n; d++)
			if ((dom[i] >> d & 1) && pick-- == 0)
				break;
		tg[i][rng_next(r, nt[i])] = d;
	}
	if (irr && rng_next(r, 3) == 0) {
		uint32_t i = rng_next(r, n);
		if (nt[i]) {
			/* (two statements: the same draws on every compiler) */
			uint32_t slot = rng_next(r, nt[i]);
			tg[i][slot] = rng_next(r, i + 1);
		}
	}
	kl_func *f;
	kl_block b[RG_MAX];
	kl_value c;
	kl_module *m = blank_func("g", n, &f, b, &c);
	kl_builder bld;
	kl_builder_init(&bld, f);
	for (uint32_t i = 0; i < n; i++) {
		kl_builder_at_end(&bld, b[i]);
		kl_block_call t[8];
		for (uint32_t k = 0; k < nt[i]; k++)
			t[k] = (kl_block_call){ b[tg[i][k]], NULL, 0 };
		if (op[i] == 'r')
			kl_build_return(&bld, NULL, 0);
		else if (op[i] == 'u')
			kl_build_trap(&bld, KL_TRAP_UNREACHABLE, 0);
		else if (op[i] == 'j')
			kl_build_jump(&bld, t[0]);
		else if (op[i] == 'b')
			kl_build_brif(&bld, c, t[0], t[1]);
		else
			kl_build_br_table(&bld, c, t[0], t + 1, nt[i] - 1);
	}
	CHECK(kl_builder_status(&bld) == KL_OK);
	*fo = f;
	return m;
}

/* ---- the tests ---- */

static kl_block_call
to(kl_block b)
{
	return (kl_block_call){ b, NULL, 0 };
}

static void
setup(void)
{
	the_cfg = kl_cfg_new();
	the_dt = kl_domtree_new();
	the_lf = kl_loops_new();
	the_rg = kl_regions_new();
}

static void
teardown(void)
{
	kl_cfg_free(the_cfg);
	kl_domtree_free(the_dt);
	kl_loops_free(the_lf);
	kl_regions_free(the_rg);
}

/* Every accessor of an object holding no tree answers none. */
static void
check_no_tree(const kl_regions *rg)
{
	CHECK_EQ_INT(kl_regions_count(rg), 0);
	CHECK_EQ_INT(kl_regions_num_gotos(rg), 0);
	uint32_t ids[] = { 0, 1, 5, NONE };
	for (size_t k = 0; k < sizeof ids / sizeof ids[0]; k++) {
		kl_region r = { ids[k] };
		CHECK(kl_region_kind_of(rg, r) == KL_REGION_NONE);
		CHECK(kl_region_block(rg, r).id == NONE);
		CHECK(kl_region_parent(rg, r).id == NONE);
		CHECK(kl_region_first_child(rg, r).id == NONE);
		CHECK(kl_region_next_sibling(rg, r).id == NONE);
		CHECK(kl_region_target(rg, r).id == NONE);
		CHECK(kl_region_source(rg, r).id == NONE);
		CHECK(kl_region_succ_index(rg, r) == NONE);
		CHECK(kl_regions_code(rg, (kl_block){ ids[k] }).id == NONE);
	}
}

/*
 * A new object; a function without blocks (count 0: no entry), also
 * computed into an object that held a tree; one whose blocks are all
 * unplaced; and kl_regions_free(NULL).
 */
static void
test_empty(void)
{
	kl_regions *rg = kl_regions_new();
	check_no_tree(rg);
	kl_module *m = kl_module_new();
	kl_signature sig = { NULL, NULL, 0, 0, false };
	kl_func *e, *g;
	kl_module_add_func(m, "e", 1, &sig, &e);
	kl_cfg *cfg = kl_cfg_new();
	kl_domtree *dt = kl_domtree_new();
	kl_loops *lf = kl_loops_new();
	kl_cfg_compute(cfg, e);
	kl_domtree_compute(dt, e, cfg);
	kl_loops_compute(lf, e, cfg, dt);
	kl_regions_compute(rg, e, cfg, dt, lf);
	check_no_tree(rg);
	check_print(e, cfg, rg);
	/* a tree, then none again in the same object */
	kl_module *m2 = shape("b1,2 j3 j3 r", &g);
	kl_cfg_compute(cfg, g);
	kl_domtree_compute(dt, g, cfg);
	kl_loops_compute(lf, g, cfg, dt);
	kl_regions_compute(rg, g, cfg, dt, lf);
	CHECK(kl_regions_count(rg) > 0);
	kl_cfg_compute(cfg, e);
	kl_domtree_compute(dt, e, cfg);
	kl_loops_compute(lf, e, cfg, dt);
	kl_regions_compute(rg, e, cfg, dt, lf);
	check_no_tree(rg);
	/* blocks that exist but are not in the layout: still no entry */
	kl_block b = kl_func_new_block(e);
	kl_builder bld;
	kl_builder_init(&bld, e);
	kl_builder_at_end(&bld, b);
	kl_build_return(&bld, NULL, 0);
	kl_func_new_block(e);
	kl_cfg_compute(cfg, e);
	kl_domtree_compute(dt, e, cfg);
	kl_loops_compute(lf, e, cfg, dt);
	kl_regions_compute(rg, e, cfg, dt, lf);
	check_no_tree(rg);
	check_print(e, cfg, rg);
	kl_regions_free(rg);
	kl_regions_free(NULL);
	kl_cfg_free(cfg);
	kl_domtree_free(dt);
	kl_loops_free(lf);
	kl_module_free(m);
	kl_module_free(m2);
}

/* Count the nodes of kind k in the_rg. */
static uint32_t
count_kind(kl_region_kind k)
{
	uint32_t n = 0, total = kl_regions_count(the_rg);
	for (uint32_t r = 0; r < total; r++)
		n += kl_region_kind_of(the_rg, (kl_region){ r }) == k;
	return n;
}

/*
 * Shapes by hand, with what each must have beyond the general checks:
 * the number of gotos (a goto is only for an edge into an irreducible
 * region, and each of these has exactly one retreating edge into one,
 * whatever the depth-first order), of LOOPs, of IFs plus SWITCHes.
 */
static void
test_shapes(void)
{
	static const struct {
		const char *name, *spec;
		uint32_t gotos, loops, branches;
	} shapes[] = {
		{ "return", "r", 0, 0, 0 },
		{ "trap", "u", 0, 0, 0 },
		{ "no terminator", "-", 0, 0, 0 },
		{ "entry self-loop", "b0,1 r", 0, 1, 1 },
		{ "entry loop alone", "j0", 0, 1, 0 },
		{ "latch in an arm", "b1,0 j0", 0, 1, 1 },
		{ "diamond", "b1,2 j3 j3 r", 0, 0, 1 },
		{ "if without else", "b1,2 j2 r", 0, 0, 1 },
		{ "brif both arms equal", "b1,1 r", 0, 0, 1 },
		{ "nested diamonds", "b1,5 b2,3 j4 j4 j6 j6 r", 0, 0, 2 },
		{ "while loop", "j1 b2,3 j1 r", 0, 1, 1 },
		{ "do-while", "j1 b1,2 r", 0, 1, 1 },
		{ "nested loops", "j1 b2,5 b3,4 j2 j1 r", 0, 2, 2 },
		{ "loop with two exits", "j1 b2,3 b1,4 j5 j5 r", 0, 1, 2 },
		{ "loop exits to one block", "j1 b2,4 b1,3 j4 r", 0, 1, 2 },
		{ "infinite loop", "j1 j2 j1", 0, 1, 0 },
		{ "continue from an if", "j1 b2,5 b3,4 j1 j1 r", 0, 1, 2 },
		{ "break from nested loop", "j1 b2,6 b3,6 b2,4 j1 r r", 0, 2,
		  3 },
		{ "irreducible pair", "b1,2 j2 j1", 1, 0, 1 },
		{ "irreducible pair, exits", "b1,2 b2,3 b1,3 r", 1, 0, 3 },
		{ "irreducible in a loop", "j1 b2,3 b3,5 b2,4 j1 r", 1, 1,
		  3 },
		{ "switch", "t4,1,2,3,1 j4 j4 j4 r", 0, 0, 1 },
		{ "switch of one target", "t1,1,1 r", 0, 0, 1 },
		{ "switch, default only", "t1 r", 0, 0, 0 },
		{ "switch fallthrough", "t3,1,2 j2 j3 r", 0, 0, 1 },
		{ "unreachable blocks", "r j2 j1 b0,3", 0, 0, 0 },
		{ "loop header is a merge", "b1,2 j2 b2,3 r", 0, 1, 2 },
		{ "merge inside a loop", "j1 b2,3 j4 j4 b1,5 r", 0, 1, 2 },
		{ "self-loop in a switch arm", "t1,2,3 b1,4 j4 j4 r", 0, 1,
		  2 },
		{ "into a cycle's middle", "b1,2 j2 b1,3 r", 1, 0, 2 },
		{ "two irreducible regions", "b1,2 j2 b1,3 b4,5 j5 b4,6 r", 2,
		  0, 4 },
		{ "exits of two loops merge", "j1 b2,4 b3,1 b2,4 r", 0, 2,
		  3 },
	};
	rng rnd = { 11 };
	for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
		kl_func *f;
		kl_module *m = shape(shapes[k].spec, &f);
		check_func(f, shapes[k].name, k, default_plan, &rnd);
		uint32_t loops = count_kind(KL_REGION_LOOP);
		uint32_t br = count_kind(KL_REGION_IF) +
			      count_kind(KL_REGION_SWITCH);
		if (kl_regions_num_gotos(the_rg) != shapes[k].gotos ||
		    loops != shapes[k].loops || br != shapes[k].branches) {
			fprintf(stderr, "shape %s (%s): %u gotos, %u LOOPs, "
				"%u IF/SWITCH; expected %u, %u, %u\n",
				shapes[k].name, shapes[k].spec,
				kl_regions_num_gotos(the_rg), loops, br,
				shapes[k].gotos, shapes[k].loops,
				shapes[k].branches);
			unit_current_failed = 1;
		}
		kl_module_free(m);
	}
}

/* Take out every branch that is not the last instruction of its block:
 * what is left branches as verified IR does. */
static void
strip_mid_branches(kl_func *f)
{
	for (kl_block b = kl_func_first_block(f); b.id != NONE;
	     b = kl_block_next(f, b))
		for (kl_inst i = kl_block_first_inst(f, b); i.id != NONE;) {
			kl_inst nx = kl_inst_next(f, i);
			if (kl_op_is_branch(kl_inst_opcode(f, i)) &&
			    nx.id != NONE)
				kl_inst_remove(f, i);
			i = nx;
		}
}

/*
 * Thousands of rgraph.h functions, 60 of each size 1..60. Most big ones
 * have a branch in the middle of some block (one block in 16), for which
 * only the shape is checked: each is checked again without those
 * branches, with every check.
 */
static void
test_random(void)
{
	rng rnd = { 20221 }, walks = { 77 };
	for (uint32_t n = 1; n <= 60; n++)
		for (uint32_t k = 0; k < 60; k++) {
			uint64_t seed = rnd.s;
			rgraph g;
			rg_build(&g, &rnd, n);
			check_func(g.f, "rgraph", seed, default_plan, &walks);
			if (!rg_branches_only_at_ends(g.f)) {
				strip_mid_branches(g.f);
				check_func(g.f, "rgraph stripped", seed,
					   default_plan, &walks);
			}
			rg_free(&g);
		}
}

/* Mostly structured functions: reducible ones need no goto (checked by
 * check_cfg_fields: no irreducible region, no goto). */
static void
test_structured(void)
{
	rng rnd = { 1966 }, walks = { 5 };
	for (uint32_t n = 1; n <= 60; n++)
		for (uint32_t k = 0; k < 30; k++) {
			uint64_t seed = rnd.s;
			kl_func *f;
			kl_module *m = structured(&rnd, n, k & 1, &f);
			check_func(f, "structured", seed, default_plan,
				   &walks);
			if (!(k & 1))
				REQ(kl_regions_num_gotos(the_rg) == 0,
				    "a reducible graph needs %u gotos",
				    kl_regions_num_gotos(the_rg));
			kl_module_free(m);
		}
}

/*
 * Bigger random graphs than rgraph.h's 64 blocks (up to 1,500): most
 * edges go a little forward, one in eight anywhere (loops, irreducible
 * parts, long jumps), some blocks return; br_tables of up to 12
 * entries. Deeper nests of scopes, loops and arms than small graphs
 * have, and the dominators recomputed without the gotos on big graphs.
 */
static kl_module *
wide(rng *r, uint32_t n, kl_func **fo)
{
	kl_func *f;
	kl_block *b = xcalloc(n, sizeof *b);
	kl_value c;
	kl_module *m = blank_func("w", n, &f, b, &c);
	kl_builder bld;
	kl_builder_init(&bld, f);
	for (uint32_t i = 0; i < n; i++) {
		kl_builder_at_end(&bld, b[i]);
		uint32_t w = rng_next(r, 100), nt;
		if (i + 1 == n || w < 6) {
			kl_build_return(&bld, NULL, 0);
			continue;
		}
		nt = w < 40 ? 1 : w < 85 ? 2 : 2 + rng_next(r, 12);
		kl_block_call t[14];
		for (uint32_t k = 0; k < nt; k++) {
			uint32_t d = rng_next(r, 8) ? i + 1 + rng_next(r, 8)
						    : rng_next(r, n);
			t[k] = to(b[d < n ? d : n - 1]);
		}
		if (nt == 1)
			kl_build_jump(&bld, t[0]);
		else if (nt == 2)
			kl_build_brif(&bld, c, t[0], t[1]);
		else
			kl_build_br_table(&bld, c, t[0], t + 1, nt - 1);
	}
	CHECK(kl_builder_status(&bld) == KL_OK);
	free(b);
	*fo = f;
	return m;
}

static void
test_wide(void)
{
	rng rnd = { 4242 }, walks = { 9 };
	plan p = { 4, 1000, WALK_RANDOM, 0, true };
	for (uint32_t k = 0; k < 80; k++) {
		uint64_t seed = rnd.s;
		kl_func *f;
		kl_module *m = wide(&rnd, 64 + rng_next(&rnd, 1437), &f);
		check_func(f, "wide", seed, p, &walks);
		kl_module_free(m);
	}
}

/* Read every answer: node ids in range, nothing else asked. */
static void
check_ids_in_range(const kl_regions *rg)
{
	uint32_t n = kl_regions_count(rg);
	for (uint32_t r = 0; r < n; r++) {
		kl_region g = { r };
		uint32_t ids[] = { kl_region_parent(rg, g).id,
				   kl_region_first_child(rg, g).id,
				   kl_region_next_sibling(rg, g).id,
				   kl_region_target(rg, g).id };
		for (size_t k = 0; k < 4; k++)
			if (!REQ(ids[k] == NONE || ids[k] < n,
				 "node %u link %zu is %u", r, k, ids[k]))
				return;
		REQ(kl_region_kind_of(rg, g) < KL_REGION_NONE, "node %u", r);
		(void)kl_region_block(rg, g);
		(void)kl_region_source(rg, g);
		(void)kl_region_succ_index(rg, g);
	}
}

/* g->placed again from the layout, after edits. */
static void
replace_layout(rgraph *g)
{
	g->nplaced = 0;
	for (kl_block b = kl_func_first_block(g->f);
	     b.id != NONE && g->nplaced < RG_MAX; b = kl_block_next(g->f, b))
		g->placed[g->nplaced++] = b;
}

/*
 * Edit g at random, as a pass would between computing its analyses and
 * using them: take blocks out of the layout, add blocks, move them
 * (the entry changes when another block goes first), give blocks new
 * terminators, make a new entry. Branches to blocks taken out stay:
 * they are no edges.
 */
static void
mutate(rgraph *g, rng *r)
{
	kl_func *f = g->f;
	kl_builder bld;
	kl_builder_init(&bld, f);
	for (uint32_t steps = 1 + rng_next(r, 6); steps--;) {
		kl_block b = g->placed[rng_next(r, g->nplaced)];
		kl_block nb;
		switch (rng_next(r, 5)) {
		case 0:
			if (g->nplaced > 1)
				kl_func_remove_block(f, g->placed[1 + rng_next(
							  r, g->nplaced - 1)]);
			break;
		case 1:
			if (kl_func_block_bound(f) >= RG_MAX - 1)
				break;
			nb = kl_func_new_block(f);
			kl_func_insert_block_after(f, nb, b);
			kl_builder_at_end(&bld, nb);
			rg_terminator(g, r, &bld, false);
			break;
		case 2:
			if (kl_block_last_inst(f, b).id != NONE)
				kl_inst_remove(f, kl_block_last_inst(f, b));
			kl_builder_at_end(&bld, b);
			rg_terminator(g, r, &bld, false);
			break;
		case 3:
			kl_func_move_block(f, b,
					   g->placed[rng_next(r, g->nplaced)]);
			break;
		default:
			if (kl_func_block_bound(f) >= RG_MAX - 1)
				break;
			nb = kl_func_make_entry(f);
			kl_builder_at_end(&bld, nb);
			rg_terminator(g, r, &bld, true);
			break;
		}
		replace_layout(g);
	}
}

/*
 * Analyses of another function, or of this one before edits (stale
 * ones): "the tree means nothing, though nothing is read out of bounds"
 * (keel.h). The sanitizers watch the reads; the test asks only for node
 * ids in range. Each pair of random functions is mixed three ways; then
 * the first is edited under its analyses, computed with them (all stale,
 * then only the CFG fresh), and then checked in full with fresh ones.
 */
static void
test_stale(void)
{
	rng rnd = { 31337 }, walks = { 8 };
	kl_cfg *c2 = kl_cfg_new();
	kl_domtree *d2 = kl_domtree_new();
	kl_loops *l2 = kl_loops_new();
	kl_regions *rg = kl_regions_new();
	for (int it = 0; it < 300; it++) {
		rgraph a, b;
		uint64_t seed = rnd.s;
		what_label = "stale";
		what_seed = seed;
		rg_build(&a, &rnd, 1 + rng_next(&rnd, 60));
		rg_build(&b, &rnd, 1 + rng_next(&rnd, 60));
		kl_cfg_compute(the_cfg, a.f);
		kl_domtree_compute(the_dt, a.f, the_cfg);
		kl_loops_compute(the_lf, a.f, the_cfg, the_dt);
		kl_cfg_compute(c2, b.f);
		kl_domtree_compute(d2, b.f, c2);
		kl_loops_compute(l2, b.f, c2, d2);
		kl_regions_compute(rg, b.f, the_cfg, the_dt, the_lf);
		check_ids_in_range(rg);
		kl_regions_compute(rg, a.f, c2, the_dt, the_lf);
		check_ids_in_range(rg);
		kl_regions_compute(rg, a.f, the_cfg, d2, l2);
		check_ids_in_range(rg);
		kl_buf out = { 0 };
		kl_regions_print(a.f, the_cfg, rg, &out);
		kl_regions_print(b.f, c2, rg, &out);
		mutate(&a, &rnd);
		kl_regions_compute(rg, a.f, the_cfg, the_dt, the_lf);
		check_ids_in_range(rg);
		kl_regions_print(a.f, the_cfg, rg, &out);
		kl_cfg_compute(c2, a.f);
		kl_regions_compute(rg, a.f, c2, the_dt, the_lf);
		check_ids_in_range(rg);
		kl_regions_print(a.f, c2, rg, &out);
		kl_buf_free(&out);
		check_func(a.f, "edited", seed, default_plan, &walks);
		rg_free(&a);
		rg_free(&b);
	}
	kl_cfg_free(c2);
	kl_domtree_free(d2);
	kl_loops_free(l2);
	kl_regions_free(rg);
}

/* 200,000 blocks, each jumping to the next: one walk along all of it;
 * then a small function into the same object, as a fresh one has it. */
static void
test_big_chain(void)
{
	const uint32_t n = 200000;
	kl_func *f;
	kl_block *b = xcalloc(n, sizeof *b);
	kl_value c;
	kl_module *m = blank_func("big", n, &f, b, &c);
	kl_builder bld;
	kl_builder_init(&bld, f);
	for (uint32_t k = 0; k < n; k++) {
		kl_builder_at_end(&bld, b[k]);
		if (k + 1 < n)
			kl_build_jump(&bld, to(b[k + 1]));
		else
			kl_build_return(&bld, NULL, 0);
	}
	CHECK(kl_builder_status(&bld) == KL_OK);
	rng rnd = { 3 };
	plan p = { 1, n + 1, WALK_RANDOM, 0, false };
	check_func(f, "chain", n, p, &rnd);
	CHECK_EQ_INT(count_kind(KL_REGION_CODE), n);
	kl_func *g;
	kl_module *m2 = shape("j1 b2,3 j1 r", &g);
	check_func(g, "after chain", 0, default_plan, &rnd);
	kl_module_free(m2);
	free(b);
	kl_module_free(m);
}

/*
 * A nest of 50,000 loops: header h_i branches into the next level
 * h_{i+1} or back to h_{i-1} (the enclosing loop's back edge); h_0 out to
 * the return block; the innermost loops on itself. Walks: all the way
 * down and back up, and random.
 */
static void
test_big_nest(void)
{
	const uint32_t n = 50000;
	kl_func *f;
	kl_block *b = xcalloc(n + 1, sizeof *b);
	kl_value c;
	kl_module *m = blank_func("big", n + 1, &f, b, &c);
	kl_builder bld;
	kl_builder_init(&bld, f);
	for (uint32_t k = 0; k < n; k++) {
		kl_builder_at_end(&bld, b[k]);
		kl_block in = b[k + 1 < n ? k + 1 : k];
		kl_block out = k ? b[k - 1] : b[n];
		kl_build_brif(&bld, c, to(in), to(out));
	}
	kl_builder_at_end(&bld, b[n]);
	kl_build_return(&bld, NULL, 0);
	CHECK(kl_builder_status(&bld) == KL_OK);
	rng rnd = { 4 };
	plan p = { 1, 2 * n + 10, WALK_DOWN_UP, n + 2, false };
	check_func(f, "nest", n, p, &rnd);
	CHECK_EQ_INT(kl_loops_count(the_lf), n);
	CHECK_EQ_INT(count_kind(KL_REGION_LOOP), n);
	plan q = { 1, 10000, WALK_RANDOM, 0, false };
	check_func(f, "nest", n, q, &rnd);
	free(b);
	kl_module_free(m);
}

/*
 * br_table with 100,000 entries: entries 0..49,999 go to 25,000 blocks,
 * each named twice (a block with two edges from one branch has two
 * predecessors: a merge, so 25,000 nested SCOPEs may follow), the
 * others to 50,000 blocks once; every target and the default jump to
 * the join block.
 */
static void
test_big_switch(void)
{
	const uint32_t ne = 100000, nt = 75000;
	kl_func *f;
	kl_block *b = xcalloc(nt + 2, sizeof *b);
	kl_value c;
	kl_module *m = blank_func("big", nt + 2, &f, b, &c);
	kl_block join = b[nt + 1];
	kl_block_call *tab = xcalloc(ne, sizeof *tab);
	for (uint32_t k = 0; k < ne; k++)
		tab[k] = to(b[1 + (k < 50000 ? k / 2 : k - 25000)]);
	kl_builder bld;
	kl_builder_init(&bld, f);
	kl_builder_at_end(&bld, b[0]);
	kl_build_br_table(&bld, c, to(join), tab, ne);
	for (uint32_t k = 1; k <= nt; k++) {
		kl_builder_at_end(&bld, b[k]);
		kl_build_jump(&bld, to(join));
	}
	kl_builder_at_end(&bld, join);
	kl_build_return(&bld, NULL, 0);
	CHECK(kl_builder_status(&bld) == KL_OK);
	rng rnd = { 5 };
	plan p = { 16, 10, WALK_RANDOM, 0, false };
	check_func(f, "switch", ne, p, &rnd);
	CHECK_EQ_INT(count_kind(KL_REGION_ARM), ne + 1);
	CHECK_EQ_INT(count_kind(KL_REGION_SWITCH), 1);
	free(tab);
	free(b);
	kl_module_free(m);
}

int
main(void)
{
	setup();
	UNIT_RUN(test_empty);
	UNIT_RUN(test_shapes);
	UNIT_RUN(test_random);
	UNIT_RUN(test_structured);
	UNIT_RUN(test_wide);
	UNIT_RUN(test_stale);
	UNIT_RUN(test_big_chain);
	UNIT_RUN(test_big_nest);
	UNIT_RUN(test_big_switch);
	teardown();
	if (hidden)
		fprintf(stderr, "(%d more failures not shown)\n", hidden);
	printf("regions: %" PRIu64 " functions (%" PRIu64 " with every "
	       "check, %" PRIu64 " with gotos), %" PRIu64 " walks of %" PRIu64
	       " steps\n",
	       nfuncs, nfull, ngoto_funcs, nwalks, nsteps);
	return unit_report("regions");
}
