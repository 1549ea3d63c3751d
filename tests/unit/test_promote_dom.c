/*
 * test_promote_dom.c -- the promote pass's dominance facts for bigger
 * functions (src/pass/promote_dom.c, compact arrays) against the generic
 * analyses, fact by fact, on random functions: from the terminators of
 * those whose branches end their blocks (as in the verified IR the pass
 * reads them off), and from the generic CFG of every one (as for
 * unverified IR, mid-block branches included), and from successors read
 * block by block as the pass's walk reads them. Holes, unplaced targets,
 * repeated targets, self-loops on the entry, irreducible loops and
 * unreachable blocks included. The algorithm does not care how many
 * blocks a function has, so the random functions stay below 64 blocks,
 * where rgraph builds them.
 */
#include <stdlib.h>
#include <string.h>

#include "../../src/pass/promote.h"
#include "rgraph.h"
#include "unit.h"

/* d's facts of f against the generic ones in cfg, dt and df. */
static void
compare(const dom_facts *d, const kl_func *f, const kl_cfg *cfg,
	const kl_domtree *dt, const kl_domfront *df)
{
	uint32_t nb = f->nblocks, nedges = 0;
	for (uint32_t b = 0; b < nb; b++) {
		if (!ana_block_placed(f, b))
			continue;
		bool reach = dt_reachable(dt, b);
		CHECK_EQ_INT(d->span[b].lo != 0, reach);
		CHECK_EQ_INT(d->npreds[b], cfg_npreds(cfg, b));
		nedges += cfg_nsuccs(cfg, b);
		CHECK_EQ_INT(d->idom[b], dt->idom[b]);
		CHECK_EQ_INT(d->child[b], dt->child[b]);
		CHECK_EQ_INT(d->sibling[b], dt->sibling[b]);
		/* The same set, in any order. */
		uint64_t mine = 0, theirs = 0;
		for (uint32_t k = d->df_start[b]; k < d->df_start[b + 1]; k++) {
			CHECK(!((mine >> d->df.a[k]) & 1)); /* no repeats */
			mine |= (uint64_t)1 << d->df.a[k];
		}
		for (uint32_t k = 0; k < df_size(df, b); k++)
			theirs |= (uint64_t)1 << df_set(df, b)[k].id;
		CHECK_EQ_INT(mine, theirs);
		if (!reach)
			continue;
		for (uint32_t a = 0; a < nb; a++) {
			if (!ana_block_placed(f, a) || !dt_reachable(dt, a))
				continue;
			const dom_span *s = d->span;
			bool dom = s[a].lo <= s[b].lo && s[b].lo <= s[a].hi;
			CHECK_EQ_INT(dom, dt_dominates(dt, a, b));
			if (dom && a != b) /* a preorder */
				CHECK(s[a].lo < s[b].lo);
		}
	}
	CHECK_EQ_INT(d->nedges, nedges);
}

/* Read off the terminators, d lists every destination in order, or
 * says it does not (exact false): renaming then reads the terminators. */
static bool
check_destinations(const dom_facts *d, const kl_func *f)
{
	bool all_placed = true;
	for (uint32_t b = f->first_block; b != KL_NONE; b = f->blocks[b].next) {
		uint32_t t = f->blocks[b].last, nd = 0;
		const uint32_t *dests = NULL;
		if (t != KL_NONE)
			nd = inst_dests(f, t, &dests);
		for (uint32_t k = 0; k < nd; k++)
			all_placed &= ana_block_placed(
				f, dest_block(&f->pool, dests[k]));
		if (!d->exact)
			continue;
		CHECK_EQ_INT(d->out[b].n, nd);
		for (uint32_t k = 0; k < nd && k < d->out[b].n; k++)
			CHECK_EQ_INT(d->succ.a[d->out[b].start + k],
				     dest_block(&f->pool, dests[k]));
	}
	CHECK_EQ_INT(d->exact, all_placed);
	return all_placed;
}

static void
test_random_functions(void)
{
	rng r = { 31 };
	kl_cfg *cfg = kl_cfg_new();
	kl_domtree *dt = kl_domtree_new();
	kl_domfront *df = kl_domfront_new();
	dom_facts d;
	memset(&d, 0, sizeof d);
	int from_terminators = 0, unreachable = 0, joins = 0, exact = 0;
	for (int iter = 0; iter < 3000; iter++) {
		rgraph g;
		uint32_t n = 1 + rng_next(&r, iter % 10 == 0 ? 63 : 16);
		rg_build(&g, &r, n);
		kl_cfg_compute(cfg, g.f);
		kl_domtree_compute(dt, g.f, cfg);
		kl_domfront_compute(df, g.f, cfg, dt);
		promote_dom_compute(&d, g.f, cfg);
		compare(&d, g.f, cfg, dt, df);
		CHECK(!d.exact); /* from a CFG: not the terminators' */
		if (rg_branches_only_at_ends(g.f)) {
			promote_dom_compute(&d, g.f, NULL);
			compare(&d, g.f, cfg, dt, df);
			exact += check_destinations(&d, g.f);
			from_terminators++;
			/* The same, the successors read block by block as
			 * the walk reads them; the facts take them once. */
			promote_dom_read_begin(&d, g.f);
			for (uint32_t b = g.f->first_block; b != KL_NONE;
			     b = g.f->blocks[b].next)
				promote_dom_read_block(&d, g.f, b);
			d.have_successors = true;
			promote_dom_compute(&d, g.f, NULL);
			CHECK(!d.have_successors);
			compare(&d, g.f, cfg, dt, df);
			check_destinations(&d, g.f);
		}
		for (uint32_t b = 0; b < g.f->nblocks; b++) {
			unreachable += ana_block_placed(g.f, b) &&
				       d.span[b].lo == 0;
			joins += d.df_start[b + 1] > d.df_start[b];
		}
		rg_free(&g);
	}
	/* The sample must hold what the comparison is about. */
	CHECK(from_terminators > 1000);
	CHECK(exact > 100 && exact < from_terminators);
	CHECK(unreachable > 100);
	CHECK(joins > 1000);
	promote_dom_free(&d);
	kl_cfg_free(cfg);
	kl_domtree_free(dt);
	kl_domfront_free(df);
}

int
main(void)
{
	UNIT_RUN(test_random_functions);
	return unit_report("promote_dom");
}
