/*
 * test_analysis_sets.c -- randomized tests of dominance frontiers, iterated
 * frontiers, loops and liveness against naive computations from their
 * definitions, on a few hundred random functions (rgraph.h, fixed seeds),
 * plus hand-written cases: aliases in liveness, and a 100,000-deep loop
 * nest and a 100,000-block chain that must neither overflow the stack nor
 * go quadratic.
 */
#include <string.h>
#include <time.h>

#include "rgraph.h"
#include "unit.h"

/* The function %f of a module parsed from text (NULL module: the
 * failure is counted). */
static kl_module *
parse_f(const char *text, size_t len, kl_func **f)
{
	kl_module *m = NULL;
	kl_diags d = { 0 };
	CHECK(kl_parse_module(text, len, NULL, &m, &d) == KL_OK);
	kl_diags_free(&d);
	*f = m ? kl_sym_func(m, kl_module_lookup(m, "f", 1)) : NULL;
	return m;
}

/* ---- frontiers ---- */

/* DF(x) from the definition, with the naive dominator sets. */
static uint64_t
naive_df(const uint64_t *dom, const uint64_t *succ, uint32_t x)
{
	uint64_t df = 0;
	if (!dom[x])
		return 0;
	for (uint32_t p = 0; p < RG_MAX; p++) {
		if (!dom[p] || !(dom[p] >> x & 1))
			continue; /* x must dominate the predecessor p */
		for (uint32_t y = 0; y < RG_MAX; y++) {
			if (!(succ[p] >> y & 1))
				continue;
			bool sdom = (dom[y] >> x & 1) && x != y;
			if (!sdom)
				df |= (uint64_t)1 << y;
		}
	}
	return df;
}

static uint64_t
mask_of(const kl_block *b, uint32_t n)
{
	uint64_t m = 0;
	for (uint32_t k = 0; k < n; k++)
		m |= (uint64_t)1 << b[k].id;
	return m;
}

static void
check_frontiers(const kl_func *f, const kl_domfront *df, kl_idf *ws,
		rng *r)
{
	uint64_t dom[RG_MAX], succ[RG_MAX], ndf[RG_MAX];
	naive_dominators(f, dom);
	naive_succs(f, succ);
	uint32_t nb = kl_func_block_bound(f);
	for (uint32_t x = 0; x < nb; x++) {
		ndf[x] = naive_df(dom, succ, x);
		uint32_t n = kl_domfront_size(df, (kl_block){ x });
		uint64_t got = 0;
		for (uint32_t k = 0; k < n; k++) {
			kl_block y = kl_domfront_get(df, (kl_block){ x }, k);
			CHECK(!(got >> y.id & 1)); /* no duplicates */
			got |= (uint64_t)1 << y.id;
		}
		CHECK(got == ndf[x]);
	}
	/* Iterated frontiers of random sets. */
	for (int t = 0; t < 10; t++) {
		kl_block set[8];
		uint32_t n = rng_next(r, 8);
		uint64_t s = 0;
		for (uint32_t k = 0; k < n; k++) {
			set[k] = (kl_block){ rng_next(r, nb) };
			s |= (uint64_t)1 << set[k].id;
		}
		uint64_t idf = 0;
		for (bool changed = true; changed;) {
			changed = false;
			uint64_t from = s | idf, next = idf;
			for (uint32_t x = 0; x < nb; x++)
				if (from >> x & 1)
					next |= ndf[x];
			if (next != idf) {
				idf = next;
				changed = true;
			}
		}
		const kl_block *out;
		uint32_t nout = kl_domfront_iterated(df, ws, set, n, &out);
		CHECK(mask_of(out, nout) == idf);
		CHECK_EQ_INT(nout, popcount64(idf));
	}
}

static void
test_random_frontiers(void)
{
	rng r = { 2024 };
	kl_cfg *cfg = kl_cfg_new();
	kl_domtree *dt = kl_domtree_new();
	kl_domfront *df = kl_domfront_new();
	kl_idf *ws = kl_idf_new(); /* one workspace for all functions */
	for (int iter = 0; iter < 400; iter++) {
		rgraph g;
		rg_build(&g, &r, 1 + rng_next(&r, iter < 100 ? 8 : 48));
		kl_cfg_compute(cfg, g.f);
		kl_domtree_compute(dt, g.f, cfg);
		kl_domfront_compute(df, g.f, cfg, dt);
		check_frontiers(g.f, df, ws, &r);
		rg_free(&g);
	}
	kl_cfg_free(cfg);
	kl_domtree_free(dt);
	kl_domfront_free(df);
	kl_idf_free(ws);
}

/* ---- loops ---- */

/* The natural loop of header h (0 if h heads none). */
static uint64_t
naive_loop_body(const uint64_t *dom, const uint64_t *succ, uint32_t h)
{
	uint64_t body = 0, work = 0;
	for (uint32_t p = 0; p < RG_MAX; p++)
		if (dom[p] && (succ[p] >> h & 1) && (dom[p] >> h & 1))
			work |= (uint64_t)1 << p;
	if (!work)
		return 0;
	body = (uint64_t)1 << h;
	while (work) {
		uint32_t b = 0;
		while (!(work >> b & 1))
			b++;
		work &= ~((uint64_t)1 << b);
		if (body >> b & 1)
			continue;
		body |= (uint64_t)1 << b;
		for (uint32_t p = 0; p < RG_MAX; p++)
			if (dom[p] && (succ[p] >> b & 1) && !(body >> p & 1))
				work |= (uint64_t)1 << p;
	}
	return body;
}

/* Forward reachability (back edges removed) for the SCC check. */
static void
naive_forward_reach(const uint64_t *dom, const uint64_t *succ,
		    uint64_t *reach)
{
	for (uint32_t u = 0; u < RG_MAX; u++) {
		reach[u] = 0;
		if (!dom[u])
			continue;
		for (uint32_t v = 0; v < RG_MAX; v++)
			if ((succ[u] >> v & 1) && !(dom[u] >> v & 1))
				reach[u] |= (uint64_t)1 << v;
	}
	for (bool changed = true; changed;) {
		changed = false;
		for (uint32_t u = 0; u < RG_MAX; u++) {
			uint64_t r2 = reach[u];
			for (uint32_t v = 0; v < RG_MAX; v++)
				if (reach[u] >> v & 1)
					r2 |= reach[v];
			if (r2 != reach[u]) {
				reach[u] = r2;
				changed = true;
			}
		}
	}
}

static void
check_loops(const kl_func *f, const kl_loops *lf)
{
	uint64_t dom[RG_MAX], succ[RG_MAX], body[RG_MAX];
	naive_dominators(f, dom);
	naive_succs(f, succ);
	uint32_t nb = kl_func_block_bound(f), nloops = 0;
	for (uint32_t h = 0; h < nb; h++) {
		body[h] = naive_loop_body(dom, succ, h);
		nloops += body[h] != 0;
		bool hdr = kl_loops_is_header(lf, (kl_block){ h });
		CHECK(hdr == (body[h] != 0));
	}
	CHECK_EQ_INT(kl_loops_count(lf), nloops);
	for (uint32_t l = 0; l < kl_loops_count(lf); l++) {
		kl_loop lp = { l };
		uint32_t h = kl_loop_header(lf, lp).id;
		CHECK(h < nb && body[h] != 0);
		if (h >= nb)
			continue;
		uint32_t n;
		const kl_block *bl = kl_loop_blocks(lf, lp, &n);
		CHECK(n > 0 && bl[0].id == h);
		CHECK(mask_of(bl, n) == body[h]);
		CHECK_EQ_INT(n, popcount64(body[h]));
		/* Parent: the smallest loop strictly containing this one. */
		uint32_t want = KL_NONE, depth = 1;
		for (uint32_t o = 0; o < nb; o++) {
			if (o == h || !body[o] ||
			    (body[o] & body[h]) != body[h])
				continue;
			depth++;
			if (want == KL_NONE ||
			    popcount64(body[o]) < popcount64(body[want]))
				want = o;
		}
		kl_loop par = kl_loop_parent(lf, lp);
		CHECK_EQ_INT(par.id == KL_NONE ? KL_NONE
					       : kl_loop_header(lf, par).id,
			     want);
		if (par.id != KL_NONE)
			CHECK(par.id < l);
		CHECK_EQ_INT(kl_loop_depth(lf, lp), depth);
		for (uint32_t b = 0; b < nb; b++)
			CHECK(kl_loop_contains(lf, lp, (kl_block){ b }) ==
			      (bool)(body[h] >> b & 1));
	}
	/* Innermost loop of each block: the smallest body holding it. */
	for (uint32_t b = 0; b < nb; b++) {
		uint32_t want = KL_NONE, depth = 0;
		for (uint32_t h = 0; h < nb; h++) {
			if (!(body[h] >> b & 1))
				continue;
			depth++;
			if (want == KL_NONE ||
			    popcount64(body[h]) < popcount64(body[want]))
				want = h;
		}
		kl_loop in = kl_loops_innermost(lf, (kl_block){ b });
		CHECK_EQ_INT(in.id == KL_NONE ? KL_NONE
					      : kl_loop_header(lf, in).id,
			     want);
		CHECK_EQ_INT(kl_loops_block_depth(lf, (kl_block){ b }), depth);
	}
	/* Irreducible regions: the SCCs (of 2+ blocks) without back edges. */
	uint64_t reach[RG_MAX], seen = 0;
	naive_forward_reach(dom, succ, reach);
	uint32_t nreg = 0;
	for (uint32_t b = 0; b < nb; b++) {
		uint64_t scc = 0;
		for (uint32_t c = 0; c < nb; c++)
			if (c != b && (reach[b] >> c & 1) &&
			    (reach[c] >> b & 1))
				scc |= (uint64_t)1 << c;
		uint32_t reg = kl_loops_irreducible_region(lf, (kl_block){ b });
		CHECK((scc != 0) == (reg != KL_NONE));
		if (reg == KL_NONE || scc == 0)
			continue;
		scc |= (uint64_t)1 << b;
		uint32_t n;
		const kl_block *bl =
			kl_loops_irreducible_blocks(lf, reg, &n);
		CHECK(mask_of(bl, n) == scc);
		if (!(seen >> b & 1)) {
			nreg++;
			seen |= scc;
			/* Entries: blocks with a reachable predecessor
			 * outside the region. */
			uint64_t entries = 0;
			for (uint32_t p = 0; p < nb; p++)
				for (uint32_t y = 0; y < nb; y++)
					if (dom[p] && !(scc >> p & 1) &&
					    (succ[p] >> y & 1) &&
					    (scc >> y & 1))
						entries |= (uint64_t)1 << y;
			const kl_block *en =
				kl_loops_irreducible_entries(lf, reg, &n);
			CHECK(mask_of(en, n) == entries);
			CHECK(entries != 0);
		}
	}
	CHECK_EQ_INT(kl_loops_num_irreducible(lf), nreg);
}

static void
test_random_loops(void)
{
	rng r = { 77 };
	kl_cfg *cfg = kl_cfg_new();
	kl_domtree *dt = kl_domtree_new();
	kl_loops *lf = kl_loops_new();
	uint32_t irreducible = 0, loops = 0;
	for (int iter = 0; iter < 400; iter++) {
		rgraph g;
		rg_build(&g, &r, 1 + rng_next(&r, iter < 100 ? 8 : 48));
		kl_cfg_compute(cfg, g.f);
		kl_domtree_compute(dt, g.f, cfg);
		kl_loops_compute(lf, g.f, cfg, dt);
		check_loops(g.f, lf);
		irreducible += kl_loops_num_irreducible(lf);
		loops += kl_loops_count(lf);
		rg_free(&g);
	}
	/* The random graphs must exercise both. */
	CHECK(irreducible > 50);
	CHECK(loops > 500);
	kl_cfg_free(cfg);
	kl_domtree_free(dt);
	kl_loops_free(lf);
}

/* Two loops, then one loop, in one kl_loops object. */
static const char two_loops_text[] =
	"function %f(i32) -> i32 {\n"
	"block0(v0: i32):\n"
	"    brif v0, block1, block2\n"
	"block1:\n"
	"    brif v0, block1, block2\n"
	"block2:\n"
	"    brif v0, block2, block3\n"
	"block3:\n"
	"    return v0\n"
	"}\n";
static const char one_loop_text[] =
	"function %f(i32) -> i32 {\n"
	"block0(v0: i32):\n"
	"    jump block1\n"
	"block1:\n"
	"    brif v0, block1, block2\n"
	"block2:\n"
	"    return v0\n"
	"}\n";

/* Loop numbers from kl_loops_count on are no loops, also where a loop
 * of the last computation was. */
static void
test_loops_past_count(void)
{
	kl_func *f2, *f1;
	kl_module *m2 = parse_f(two_loops_text, sizeof two_loops_text - 1,
				&f2);
	kl_module *m1 = parse_f(one_loop_text, sizeof one_loop_text - 1, &f1);
	if (!m2 || !m1)
		goto out;
	kl_cfg *cfg = kl_cfg_new();
	kl_domtree *dt = kl_domtree_new();
	kl_loops *lf = kl_loops_new();
	kl_cfg_compute(cfg, f2);
	kl_domtree_compute(dt, f2, cfg);
	kl_loops_compute(lf, f2, cfg, dt);
	CHECK_EQ_INT(kl_loops_count(lf), 2);
	CHECK_EQ_INT(kl_loop_header(lf, (kl_loop){ 1 }).id, 2);
	kl_cfg_compute(cfg, f1);
	kl_domtree_compute(dt, f1, cfg);
	kl_loops_compute(lf, f1, cfg, dt);
	CHECK_EQ_INT(kl_loops_count(lf), 1);
	kl_loop past = { 1 };
	CHECK(kl_loop_header(lf, past).id == KL_NONE);
	CHECK(kl_loop_parent(lf, past).id == KL_NONE);
	CHECK_EQ_INT(kl_loop_depth(lf, past), 0);
	uint32_t n = 1;
	CHECK(kl_loop_blocks(lf, past, &n) == NULL);
	CHECK_EQ_INT(n, 0);
	CHECK(!kl_loop_contains(lf, past, (kl_block){ 1 }));
	kl_loops_free(lf);
	kl_domtree_free(dt);
	kl_cfg_free(cfg);
out:
	kl_module_free(m1);
	kl_module_free(m2);
}

/* ---- liveness ---- */

#define NV 4096
#define NW (NV / 64)

typedef struct vset {
	uint64_t w[NW];
} vset;

static void
vs_add(vset *s, uint32_t v)
{
	s->w[v / 64] |= (uint64_t)1 << (v % 64);
}

static bool
vs_has(const vset *s, uint32_t v)
{
	return s->w[v / 64] >> (v % 64) & 1;
}

static kl_block
def_block_of(const kl_func *f, kl_value v)
{
	return kl_value_def_block(f, kl_value_resolve(f, v));
}

/* The dataflow equations, iterated to the least fixed point. */
static void
naive_liveness(const kl_func *f, vset *in, vset *out)
{
	static vset defs[RG_MAX], ue[RG_MAX], phi[RG_MAX];
	uint64_t succ[RG_MAX];
	naive_succs(f, succ);
	memset(defs, 0, sizeof defs);
	memset(ue, 0, sizeof ue);
	memset(phi, 0, sizeof phi);
	for (kl_block b = kl_func_first_block(f); b.id != KL_NONE;
	     b = kl_block_next(f, b)) {
		for (uint32_t k = 0; k < kl_block_num_params(f, b); k++)
			vs_add(&defs[b.id], kl_block_param(f, b, k).id);
		for (kl_inst i = kl_block_first_inst(f, b); i.id != KL_NONE;
		     i = kl_inst_next(f, i)) {
			for (uint32_t k = 0; k < kl_inst_num_args(f, i); k++) {
				kl_value v = kl_value_resolve(
					f, kl_inst_arg(f, i, k));
				if (def_block_of(f, v).id != b.id)
					vs_add(&ue[b.id], v.id);
			}
			for (uint32_t d = 0; d < kl_inst_num_dests(f, i); d++)
				for (uint32_t k = 0;
				     k < kl_inst_dest_num_args(f, i, d); k++)
					vs_add(&phi[b.id],
					       kl_value_resolve(f,
						       kl_inst_dest_arg(f, i, d,
									k)).id);
			for (uint32_t k = 0; k < kl_inst_num_results(f, i); k++)
				vs_add(&defs[b.id],
				       kl_inst_result(f, i, k).id);
		}
	}
	memset(in, 0, RG_MAX * sizeof *in);
	memset(out, 0, RG_MAX * sizeof *out);
	for (bool changed = true; changed;) {
		changed = false;
		for (kl_block b = kl_func_first_block(f); b.id != KL_NONE;
		     b = kl_block_next(f, b)) {
			vset o = phi[b.id], n;
			for (uint32_t s = 0; s < RG_MAX; s++)
				if (succ[b.id] >> s & 1)
					for (uint32_t w = 0; w < NW; w++)
						o.w[w] |= in[s].w[w];
			for (uint32_t w = 0; w < NW; w++)
				n.w[w] = ue[b.id].w[w] |
					 (o.w[w] & ~defs[b.id].w[w]);
			if (memcmp(&o, &out[b.id], sizeof o) ||
			    memcmp(&n, &in[b.id], sizeof n)) {
				out[b.id] = o;
				in[b.id] = n;
				changed = true;
			}
		}
	}
}

static void
check_set(const kl_value *got, uint32_t n, const vset *want)
{
	uint32_t count = 0;
	for (uint32_t k = 0; k < n; k++) {
		CHECK(vs_has(want, got[k].id));
		if (k)
			CHECK(got[k - 1].id < got[k].id); /* sorted */
	}
	for (uint32_t w = 0; w < NW; w++)
		count += popcount64(want->w[w]);
	CHECK_EQ_INT(n, count);
}

static void
check_liveness(const kl_func *f, const kl_liveness *lv)
{
	static vset in[RG_MAX], out[RG_MAX];
	naive_liveness(f, in, out);
	for (kl_block b = kl_func_first_block(f); b.id != KL_NONE;
	     b = kl_block_next(f, b)) {
		uint32_t n;
		const kl_value *s = kl_liveness_live_in(lv, b, &n);
		check_set(s, n, &in[b.id]);
		s = kl_liveness_live_out(lv, b, &n);
		check_set(s, n, &out[b.id]);
		for (uint32_t v = 0; v < kl_func_value_bound(f); v++) {
			CHECK(kl_liveness_is_live_in(lv, b, (kl_value){ v }) ==
			      vs_has(&in[b.id], v));
			CHECK(kl_liveness_is_live_out(lv, b, (kl_value){ v }) ==
			      vs_has(&out[b.id], v));
		}
	}
}

static void
test_random_liveness(void)
{
	rng r = { 31337 };
	kl_cfg *cfg = kl_cfg_new();
	kl_liveness *lv = kl_liveness_new();
	uint64_t total = 0;
	for (int iter = 0; iter < 300; iter++) {
		rgraph g;
		rg_build(&g, &r, 1 + rng_next(&r, iter < 100 ? 8 : 48));
		kl_cfg_compute(cfg, g.f);
		CHECK(kl_liveness_compute(lv, g.f, cfg) == KL_OK);
		check_liveness(g.f, lv);
		for (kl_block b = kl_func_first_block(g.f); b.id != KL_NONE;
		     b = kl_block_next(g.f, b)) {
			uint32_t n;
			kl_liveness_live_in(lv, b, &n);
			total += n;
		}
		rg_free(&g);
	}
	CHECK(total > 1000); /* the tests must have something to check */
	kl_cfg_free(cfg);
	kl_liveness_free(lv);
}

/* Aliases, parameters and branch arguments on a parsed function. */
static const char alias_text[] =
	"function %f(i32) -> i32 {\n"
	"block0(v0: i32):\n"
	"    v1 = iconst.i32 1\n"
	"    v2 = iadd v0, v1\n"
	"    brif v0, block1, block2(v2)\n"
	"\n"
	"block1:\n"
	"    v9 -> v2\n"
	"    v3 = iadd v9, v9\n"
	"    jump block2(v3)\n"
	"\n"
	"block2(v4: i32):\n"
	"    v8 -> v1\n"
	"    v5 = iadd v4, v8\n"
	"    return v5\n"
	"}\n";

static void
test_liveness_aliases(void)
{
	kl_func *f;
	kl_module *m = parse_f(alias_text, sizeof alias_text - 1, &f);
	if (!m)
		return;
	kl_cfg *cfg = kl_cfg_new();
	kl_liveness *lv = kl_liveness_new();
	kl_cfg_compute(cfg, f);
	kl_liveness_compute(lv, f, cfg);
	kl_buf s = { 0 };
	for (uint32_t b = 0; b < 3; b++) {
		uint32_t n;
		kl_block blk = { b };
		const kl_value *in = kl_liveness_live_in(lv, blk, &n);
		kl_buf_printf(&s, "block%u in:", b);
		for (uint32_t k = 0; k < n; k++)
			kl_buf_printf(&s, " v%u", in[k].id);
		const kl_value *out =
			kl_liveness_live_out(lv, (kl_block){ b }, &n);
		kl_buf_puts(&s, " out:");
		for (uint32_t k = 0; k < n; k++)
			kl_buf_printf(&s, " v%u", out[k].id);
		kl_buf_putc(&s, '\n');
	}
	/* v9 is v2 and v8 is v1: only v1 and v2 appear. v2 is a branch
	 * argument of block0 (live-out there) and used in block1 (through
	 * v9); v4 is block2's own parameter, never live-in there. */
	CHECK_EQ_STR(s.data, "block0 in: out: v1 v2\n"
			     "block1 in: v1 v2 out: v1 v3\n"
			     "block2 in: v1 out:\n");
	CHECK_EQ_INT(kl_liveness_size(lv), 7);
	CHECK(!kl_liveness_too_large(lv));
	/* Past the limit: an error and empty sets, not a partial answer. */
	kl_liveness_set_limit(lv, 6);
	CHECK(kl_liveness_compute(lv, f, cfg) == KL_ERR_RANGE);
	CHECK(kl_liveness_too_large(lv));
	CHECK_EQ_INT(kl_liveness_size(lv), 0);
	CHECK(!kl_liveness_is_live_out(lv, (kl_block){ 0 }, (kl_value){ 1 }));
	kl_liveness_set_limit(lv, 7);
	CHECK(kl_liveness_compute(lv, f, cfg) == KL_OK);
	CHECK(kl_liveness_is_live_out(lv, (kl_block){ 0 }, (kl_value){ 1 }));
	/* a limit of one says "entry" */
	kl_liveness_set_limit(lv, 1);
	CHECK(kl_liveness_compute(lv, f, cfg) == KL_ERR_RANGE);
	kl_buf_reset(&s);
	kl_liveness_print(f, lv, &s);
	CHECK(strstr(s.data, "(not computed: the live sets would pass the "
			     "size limit of 1 entry)\n") != NULL);
	/* 0 restores the default, 2^26 */
	kl_liveness_set_limit(lv, 0);
	CHECK_EQ_INT(kl_liveness_limit(lv), (uint64_t)1 << 26);
	CHECK(kl_liveness_compute(lv, f, cfg) == KL_OK);
	CHECK_EQ_INT(kl_liveness_size(lv), 7);
	kl_buf_free(&s);
	kl_cfg_free(cfg);
	kl_liveness_free(lv);
	kl_module_free(m);
}

/* ---- deep structures: no recursion, no quadratic growth ---- */

/*
 * A chain of n blocks (each jumps to the next) or a nest of n loops:
 * block k (1 <= k <= n) is the header of loop k and branches into the
 * deeper header k+1 or to its own latch; the latch of loop k jumps back to
 * header k; the innermost header loops to itself.
 */
static kl_module *
build_deep(uint32_t n, bool nest, kl_func **out)
{
	kl_module *m = kl_module_new();
	kl_type p = KL_TYPE_I32;
	kl_signature sig = { &p, NULL, 1, 0, false };
	kl_func *f;
	kl_module_add_func(m, "deep", 4, &sig, &f);
	kl_block *hdr = calloc(n + 2, sizeof *hdr);
	kl_block *latch = calloc(n + 2, sizeof *latch);
	kl_block entry = kl_func_new_block(f);
	kl_func_append_block(f, entry);
	kl_value c = kl_block_append_param(f, entry, KL_TYPE_I32);
	for (uint32_t k = 1; k <= n; k++) {
		hdr[k] = kl_func_new_block(f);
		kl_func_append_block(f, hdr[k]);
	}
	kl_block exit = kl_func_new_block(f);
	kl_func_append_block(f, exit);
	for (uint32_t k = n; nest && k >= 1; k--) {
		latch[k] = kl_func_new_block(f);
		kl_func_append_block(f, latch[k]);
	}
	kl_builder b;
	kl_builder_init(&b, f);
	kl_builder_at_end(&b, entry);
	kl_build_jump(&b, (kl_block_call){ hdr[1], NULL, 0 });
	for (uint32_t k = 1; k <= n; k++) {
		kl_builder_at_end(&b, hdr[k]);
		kl_value v = kl_build_binary_imm(&b, KL_OP_IADD_IMM, c,
						 (int64_t)k);
		kl_block next = k < n ? hdr[k + 1] : exit;
		if (!nest) {
			kl_build_jump(&b, (kl_block_call){ next, NULL, 0 });
			continue;
		}
		kl_block deeper = k < n ? hdr[k + 1] : hdr[k];
		kl_build_brif(&b, v, (kl_block_call){ deeper, NULL, 0 },
			      (kl_block_call){ latch[k], NULL, 0 });
		/* The latch tests a value of its own: a value of the header
		 * used here would be live across the whole inner nest, and
		 * the live sets would really be quadratic. */
		kl_builder_at_end(&b, latch[k]);
		v = kl_build_binary_imm(&b, KL_OP_IADD_IMM, c, -(int64_t)k);
		kl_block after = k > 1 ? latch[k - 1] : exit;
		kl_build_brif(&b, v, (kl_block_call){ hdr[k], NULL, 0 },
			      (kl_block_call){ after, NULL, 0 });
	}
	kl_builder_at_end(&b, exit);
	kl_build_return(&b, NULL, 0);
	CHECK(kl_builder_status(&b) == KL_OK);
	free(hdr);
	free(latch);
	*out = f;
	return m;
}

/*
 * A nest of n loops whose latches each branch back to their header and
 * out to the latch of the loop around (block0 -> header1 -> ... -> header
 * n -> latch n -> ... -> latch 1 -> exit): every latch's frontier holds
 * its header and every header and latch outside it, n(n + 1) entries in
 * all, the quadratic worst case.
 */
static kl_module *
build_latch_nest(uint32_t n, kl_func **f)
{
	kl_buf t = { 0 };
	kl_buf_puts(&t, "function %f(i32) -> i32 {\nblock0(v0: i32):\n"
			"    jump block1\n");
	for (uint32_t i = 1; i <= n; i++)
		kl_buf_printf(&t, "block%u:\n    jump block%u\n", i,
			      i < n ? i + 1 : 2 * n);
	for (uint32_t i = n; i >= 1; i--)
		kl_buf_printf(&t, "block%u:\n    brif v0, block%u, block%u\n",
			      n + i, i, i > 1 ? n + i - 1 : 2 * n + 1);
	kl_buf_printf(&t, "block%u:\n    return v0\n}\n", 2 * n + 1);
	kl_module *m = parse_f(t.data, t.len, f);
	kl_buf_free(&t);
	return m;
}

/*
 * A chain block1 .. blockn whose every block branches to a leaf that the
 * entry's br_table names too, the chain's head last in the table: the
 * search runs down the chain first, so each leaf's parent in it is deep
 * while its idom is the entry. The old semi-NCA walk up took n steps a
 * leaf (160,000 blocks: 5 s); each leaf's idom must be the entry, each
 * chain block's its predecessor.
 */
static void
test_leafy_chain(void)
{
	uint32_t n = 2000;
	kl_buf t = { 0 };
	kl_buf_printf(&t, "function %%f(i32) -> i32 {\nblock0(v0: i32):\n"
			  "    br_table v0, block%u, [", n + 1);
	for (uint32_t i = 2; i <= n; i++)
		kl_buf_printf(&t, "block%u, ", n + i);
	kl_buf_puts(&t, "block1]\n");
	for (uint32_t i = 1; i <= n; i++)
		kl_buf_printf(&t, "block%u:\n    brif v0, block%u, block%u\n", i,
			      n + i, i < n ? i + 1 : n + 1);
	for (uint32_t i = 1; i <= n; i++)
		kl_buf_printf(&t, "block%u:\n    return v0\n", n + i);
	kl_buf_puts(&t, "}\n");
	kl_func *f;
	kl_module *m = parse_f(t.data, t.len, &f);
	kl_buf_free(&t);
	if (!m)
		return;
	kl_cfg *cfg = kl_cfg_new();
	kl_domtree *dt = kl_domtree_new();
	kl_cfg_compute(cfg, f);
	kl_domtree_compute(dt, f, cfg);
	uint32_t wrong = 0;
	for (uint32_t i = 1; i <= n; i++) {
		wrong += kl_domtree_idom(dt, (kl_block){ n + i }).id != 0;
		wrong += kl_domtree_idom(dt, (kl_block){ i }).id != i - 1;
	}
	CHECK_EQ_INT(wrong, 0);
	kl_domtree_free(dt);
	kl_cfg_free(cfg);
	kl_module_free(m);
}

/* The frontiers' total past the limit: an error and empty sets, in
 * time bounded by the limit (the offsets once wrapped at 2^32 entries,
 * and the filling wrote past the sets). */
static void
test_frontier_limit(void)
{
	uint32_t n = 100;
	kl_func *f;
	kl_module *m = build_latch_nest(n, &f);
	if (!m)
		return;
	kl_cfg *cfg = kl_cfg_new();
	kl_domtree *dt = kl_domtree_new();
	kl_domfront *df = kl_domfront_new();
	kl_cfg_compute(cfg, f);
	kl_domtree_compute(dt, f, cfg);
	CHECK(kl_domfront_compute(df, f, cfg, dt) == KL_OK);
	CHECK(!kl_domfront_too_large(df));
	uint64_t total = 0;
	for (uint32_t b = 0; b <= 2 * n + 1; b++)
		total += kl_domfront_size(df, (kl_block){ b });
	CHECK_EQ_INT(total, (uint64_t)n * (n + 1));
	kl_domfront_set_limit(df, (uint64_t)n * (n + 1) - 1);
	CHECK(kl_domfront_compute(df, f, cfg, dt) == KL_ERR_RANGE);
	CHECK(kl_domfront_too_large(df));
	for (uint32_t b = 0; b <= 2 * n + 1; b++)
		CHECK_EQ_INT(kl_domfront_size(df, (kl_block){ b }), 0);
	kl_buf out = { 0 };
	kl_domtree_print(f, dt, df, &out);
	CHECK(strstr(out.data, "(not computed: the frontiers would pass the "
			       "size limit of 10099 entries)") != NULL);
	kl_buf_free(&out);
	kl_domfront_set_limit(df, (uint64_t)n * (n + 1));
	CHECK(kl_domfront_compute(df, f, cfg, dt) == KL_OK);
	total = 0;
	for (uint32_t b = 0; b <= 2 * n + 1; b++)
		total += kl_domfront_size(df, (kl_block){ b });
	CHECK_EQ_INT(total, (uint64_t)n * (n + 1));
	/* at most 2^31; 0 restores the default, 2^26 */
	kl_domfront_set_limit(df, UINT64_MAX);
	CHECK_EQ_INT(kl_domfront_limit(df), (uint64_t)1 << 31);
	kl_domfront_set_limit(df, 0);
	CHECK_EQ_INT(kl_domfront_limit(df), (uint64_t)1 << 26);
	kl_domfront_free(df);
	kl_domtree_free(dt);
	kl_cfg_free(cfg);
	kl_module_free(m);
}

/* Two diamonds in a row: four frontier entries, two of each join. The
 * count reaches a limit of 2 at the first join, exactly, and must go on
 * to the second to find the limit passed. */
static const char diamonds_text[] =
	"function %f(i32) -> i32 {\n"
	"block0(v0: i32):\n"
	"    brif v0, block1, block2\n"
	"block1:\n"
	"    jump block3\n"
	"block2:\n"
	"    jump block3\n"
	"block3:\n"
	"    brif v0, block4, block5\n"
	"block4:\n"
	"    jump block6\n"
	"block5:\n"
	"    jump block6\n"
	"block6:\n"
	"    return v0\n"
	"}\n";

static void
test_frontier_limit_exact(void)
{
	kl_func *f;
	kl_module *m = parse_f(diamonds_text, sizeof diamonds_text - 1, &f);
	if (!m)
		return;
	kl_cfg *cfg = kl_cfg_new();
	kl_domtree *dt = kl_domtree_new();
	kl_domfront *df = kl_domfront_new();
	kl_cfg_compute(cfg, f);
	kl_domtree_compute(dt, f, cfg);
	kl_domfront_set_limit(df, 2);
	CHECK(kl_domfront_compute(df, f, cfg, dt) == KL_ERR_RANGE);
	CHECK(kl_domfront_too_large(df));
	CHECK_EQ_INT(kl_domfront_size(df, (kl_block){ 1 }), 0);
	/* a limit of one says "entry" */
	kl_domfront_set_limit(df, 1);
	CHECK(kl_domfront_compute(df, f, cfg, dt) == KL_ERR_RANGE);
	kl_buf out = { 0 };
	kl_domtree_print(f, dt, df, &out);
	CHECK(strstr(out.data, "(not computed: the frontiers would pass the "
			       "size limit of 1 entry)\n") != NULL);
	kl_buf_free(&out);
	kl_domfront_set_limit(df, 4);
	CHECK(kl_domfront_compute(df, f, cfg, dt) == KL_OK);
	CHECK_EQ_INT(kl_domfront_size(df, (kl_block){ 5 }), 1);
	CHECK_EQ_INT(kl_domfront_get(df, (kl_block){ 5 }, 0).id, 6);
	kl_domfront_free(df);
	kl_domtree_free(dt);
	kl_cfg_free(cfg);
	kl_module_free(m);
}

/*
 * Every analysis on f, checked to complete (the frontiers within their
 * limit). These run on the deep shapes that were quadratic once, at
 * 10,000 and 100,000 blocks. How their time grows is for make
 * bench-scaling to measure (chain and nest, 10k to 4M instructions, a
 * flag on any step that grows by more than 1.5x), not for a test to
 * assert: this test once timed them against a bound, and failed on a
 * loaded machine under ASan. A quadratic step would make it take tens
 * of seconds instead of a fraction of one.
 */
static void
run_all(kl_func *f)
{
	kl_cfg *cfg = kl_cfg_new();
	kl_domtree *dt = kl_domtree_new();
	kl_domfront *df = kl_domfront_new();
	kl_loops *lf = kl_loops_new();
	kl_liveness *lv = kl_liveness_new();
	kl_cfg_compute(cfg, f);
	kl_domtree_compute(dt, f, cfg);
	CHECK(kl_domfront_compute(df, f, cfg, dt) == KL_OK);
	kl_loops_compute(lf, f, cfg, dt);
	kl_liveness_compute(lv, f, cfg);
	kl_cfg_free(cfg);
	kl_domtree_free(dt);
	kl_domfront_free(df);
	kl_loops_free(lf);
	kl_liveness_free(lv);
}

static void
test_deep_nest(void)
{
	kl_func *f;
	uint32_t n = 100000;
	kl_module *m = build_deep(n, true, &f);
	kl_cfg *cfg = kl_cfg_new();
	kl_domtree *dt = kl_domtree_new();
	kl_loops *lf = kl_loops_new();
	kl_cfg_compute(cfg, f);
	kl_domtree_compute(dt, f, cfg);
	kl_loops_compute(lf, f, cfg, dt);
	CHECK_EQ_INT(kl_loops_count(lf), n);
	CHECK_EQ_INT(kl_loops_num_irreducible(lf), 0);
	/* Loop k is the k-th in preorder: header hdr[k] = block k. */
	CHECK_EQ_INT(kl_loop_depth(lf, (kl_loop){ n - 1 }), n);
	CHECK_EQ_INT(kl_loop_header(lf, (kl_loop){ 0 }).id, 1);
	uint32_t nbl;
	kl_loop_blocks(lf, (kl_loop){ 0 }, &nbl);
	CHECK_EQ_INT(nbl, 2 * n);
	CHECK(kl_loop_contains(lf, (kl_loop){ 0 }, (kl_block){ n }));
	CHECK(kl_domtree_dominates(dt, (kl_block){ 1 }, (kl_block){ n }));
	/* The listings stay linear in size (indentation is capped). */
	kl_buf out = { 0 };
	kl_loops_print(f, lf, &out);
	CHECK(out.len < 1000 * (size_t)n);
	kl_buf_reset(&out);
	kl_domtree_print(f, dt, NULL, &out);
	CHECK(out.len < 1000 * (size_t)n);
	kl_buf_free(&out);
	kl_cfg_free(cfg);
	kl_domtree_free(dt);
	kl_loops_free(lf);
	kl_func *small;
	kl_module *ms = build_deep(n / 10, true, &small);
	run_all(small);
	run_all(f);
	kl_module_free(ms);
	kl_module_free(m);
}

static void
test_long_chain(void)
{
	kl_func *f;
	uint32_t n = 100000;
	kl_module *m = build_deep(n, false, &f);
	kl_cfg *cfg = kl_cfg_new();
	kl_domtree *dt = kl_domtree_new();
	kl_cfg_compute(cfg, f);
	kl_domtree_compute(dt, f, cfg);
	CHECK_EQ_INT(kl_domtree_idom(dt, (kl_block){ n }).id, n - 1);
	CHECK(kl_domtree_dominates(dt, (kl_block){ 1 }, (kl_block){ n + 1 }));
	kl_cfg_free(cfg);
	kl_domtree_free(dt);
	kl_func *small;
	kl_module *ms = build_deep(n / 10, false, &small);
	run_all(small);
	run_all(f);
	kl_module_free(ms);
	kl_module_free(m);
}

int
main(void)
{
	UNIT_RUN(test_random_frontiers);
	UNIT_RUN(test_random_loops);
	UNIT_RUN(test_loops_past_count);
	UNIT_RUN(test_random_liveness);
	UNIT_RUN(test_liveness_aliases);
	UNIT_RUN(test_frontier_limit);
	UNIT_RUN(test_frontier_limit_exact);
	UNIT_RUN(test_leafy_chain);
	UNIT_RUN(test_deep_nest);
	UNIT_RUN(test_long_chain);
	return unit_report("analysis_sets");
}
