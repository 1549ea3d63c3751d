/*
 * all_analyses.h -- every analysis of a function computed and printed,
 * whatever the function holds: what the robustness tests run on broken
 * IR (test_analysis_robust.c) and after each random edit
 * (rewrite_random.h), so that both cover the same calls. The answers of
 * broken IR mean nothing; nothing may crash or read out of bounds.
 */
#ifndef KEEL_ALL_ANALYSES_H
#define KEEL_ALL_ANALYSES_H

#include "keel.h"

typedef struct all_analyses {
	kl_cfg *cfg;
	kl_domtree *dt;
	kl_domfront *df;
	kl_idf *ws;
	kl_loops *lf;
	kl_regions *rg;
	kl_liveness *lv;
} all_analyses;

/* Compute them all on f and print them all into out; then the iterated
 * frontier of the first blocks by number. */
static void
all_analyses_run(all_analyses *a, const kl_func *f, kl_buf *out)
{
	a->cfg = kl_cfg_new();
	a->dt = kl_domtree_new();
	a->df = kl_domfront_new();
	a->ws = kl_idf_new();
	a->lf = kl_loops_new();
	a->rg = kl_regions_new();
	a->lv = kl_liveness_new();
	kl_cfg_compute(a->cfg, f);
	kl_domtree_compute(a->dt, f, a->cfg);
	kl_domfront_compute(a->df, f, a->cfg, a->dt);
	kl_loops_compute(a->lf, f, a->cfg, a->dt);
	kl_regions_compute(a->rg, f, a->cfg, a->dt, a->lf);
	kl_liveness_compute(a->lv, f, a->cfg);
	kl_cfg_print(f, a->cfg, out);
	kl_cfg_print_dot(f, a->cfg, a->dt, a->lf, out);
	kl_domtree_print(f, a->dt, a->df, out);
	kl_loops_print(f, a->lf, out);
	kl_regions_print(f, a->cfg, a->rg, out);
	kl_liveness_print(f, a->lv, out);
	kl_block first[3] = { { 0 }, { 1 }, { 2 } };
	const kl_block *o;
	kl_domfront_iterated(a->df, a->ws, first, 3, &o);
}

static void
all_analyses_free(all_analyses *a)
{
	kl_cfg_free(a->cfg);
	kl_domtree_free(a->dt);
	kl_domfront_free(a->df);
	kl_idf_free(a->ws);
	kl_loops_free(a->lf);
	kl_regions_free(a->rg);
	kl_liveness_free(a->lv);
}

#endif
