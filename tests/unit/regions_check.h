/*
 * regions_check.h -- the checks of test_regions.c, apart from its inputs:
 * the tree read once through kl_regions' accessors, then held to keel.h's
 * description (1. answers in range and the tree's shape, 2. coverage and
 * the fields against the CFG, 3. walks of the CFG run beside the tree),
 * all driven by check_func for one function. A header of static
 * functions, included by test_regions.c alone, as rgraph.h is by the
 * analysis tests.
 */
#ifndef KEEL_REGIONS_CHECK_H
#define KEEL_REGIONS_CHECK_H

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "rgraph.h"
#include "unit.h"

/* ---- reporting ---- */

/* What is being checked: printed with each failure, and the function's
 * text once (if small), so that a failure can be reproduced. */
static const char *what_label = "";
static uint64_t what_seed;
static const kl_func *what_func;
static bool what_dumped;
static int shown, hidden; /* failures printed, and only counted */
static int what_shown; /* of them, for the function being checked */

#define MAX_SHOWN 60
#define MAX_SHOWN_PER_FUNC 12

static void
dump_func(const kl_func *f)
{
	kl_buf b = { 0 };
	kl_print_func(f, NULL, &b);
	fprintf(stderr, "%s", b.data ? b.data : "(empty)\n");
	kl_buf_free(&b);
}

static bool fail(int line, const char *cond, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;

static bool
fail(int line, const char *cond, const char *fmt, ...)
{
	unit_current_failed = 1;
	if (shown >= MAX_SHOWN || what_shown >= MAX_SHOWN_PER_FUNC) {
		hidden++;
		return false;
	}
	shown++;
	what_shown++;
	fprintf(stderr, "test_regions.c:%d: [%s seed %" PRIu64 "] %s: ",
		line, what_label, what_seed, cond);
	va_list ap;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (what_func && !what_dumped &&
	    kl_func_block_bound(what_func) <= 100) {
		what_dumped = true;
		dump_func(what_func);
	}
	return false;
}

/* REQ(cond, fmt, ...): a check with a message; false if it failed. */
#define REQ(c, ...) ((c) ? true : fail(__LINE__, #c, __VA_ARGS__))

/* ---- the tree, read once through the accessors ---- */

#define NONE KL_NONE

typedef struct fn {
	const kl_func *f;
	const kl_cfg *cfg;
	const kl_domtree *dt;
	const kl_loops *lf;
	const kl_regions *rg;
	uint32_t nb;   /* kl_func_block_bound */
	uint32_t entry;
	bool full;     /* every check applies (no mid-block branch) */
	uint32_t n;    /* nodes */
	uint8_t *kind;
	uint32_t *parent, *first, *next, *block, *target, *source, *sidx;
	uint32_t *end;  /* preorder: r's descendants are r+1 .. end[r]-1 */
	uint32_t *code; /* per block number: kl_regions_code */
	uint32_t *eoff; /* per block: its first slot in enode */
	uint32_t *enode; /* per CFG edge: its edge node */
} fn;

static void *
xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);
	if (!p) {
		fprintf(stderr, "out of memory\n");
		exit(2);
	}
	return p;
}

static void
fn_read(fn *x, const kl_func *f, const kl_cfg *cfg, const kl_domtree *dt,
	const kl_loops *lf, const kl_regions *rg)
{
	memset(x, 0, sizeof *x);
	x->f = f;
	x->cfg = cfg;
	x->dt = dt;
	x->lf = lf;
	x->rg = rg;
	x->nb = kl_func_block_bound(f);
	x->entry = kl_func_first_block(f).id;
	uint32_t n = x->n = kl_regions_count(rg);
	x->kind = xcalloc(n, 1);
	uint32_t **arr[] = { &x->parent, &x->first, &x->next, &x->block,
			     &x->target, &x->source, &x->sidx, &x->end };
	for (size_t k = 0; k < sizeof arr / sizeof arr[0]; k++)
		*arr[k] = xcalloc(n, sizeof(uint32_t));
	for (uint32_t r = 0; r < n; r++) {
		kl_region g = { r };
		x->kind[r] = (uint8_t)kl_region_kind_of(rg, g);
		x->parent[r] = kl_region_parent(rg, g).id;
		x->first[r] = kl_region_first_child(rg, g).id;
		x->next[r] = kl_region_next_sibling(rg, g).id;
		x->block[r] = kl_region_block(rg, g).id;
		x->target[r] = kl_region_target(rg, g).id;
		x->source[r] = kl_region_source(rg, g).id;
		x->sidx[r] = kl_region_succ_index(rg, g);
	}
	x->code = xcalloc(x->nb, sizeof(uint32_t));
	for (uint32_t b = 0; b < x->nb; b++)
		x->code[b] = kl_regions_code(rg, (kl_block){ b }).id;
	x->eoff = xcalloc(x->nb + 1, sizeof(uint32_t));
	for (uint32_t b = 0; b < x->nb; b++)
		x->eoff[b + 1] = x->eoff[b] +
				 kl_cfg_num_succs(cfg, (kl_block){ b });
	x->enode = xcalloc(x->eoff[x->nb], sizeof(uint32_t));
	for (uint32_t k = 0; k < x->eoff[x->nb]; k++)
		x->enode[k] = NONE;
}

static void
fn_free(fn *x)
{
	free(x->kind);
	uint32_t *arr[] = { x->parent, x->first,  x->next, x->block,
			    x->target, x->source, x->sidx, x->end,
			    x->code,   x->eoff,   x->enode };
	for (size_t k = 0; k < sizeof arr / sizeof arr[0]; k++)
		free(arr[k]);
}

static bool
is_edge_kind(uint32_t k)
{
	return k == KL_REGION_ENTER || k == KL_REGION_NEXT ||
	       k == KL_REGION_BREAK || k == KL_REGION_CONTINUE ||
	       k == KL_REGION_GOTO;
}

static bool
is_leaf_kind(uint32_t k)
{
	return k == KL_REGION_CODE || k == KL_REGION_LEAVE || is_edge_kind(k);
}

static const char *
kind_name(uint32_t k)
{
	static const char *const names[] = {
		"BODY",	 "CODE",  "SCOPE", "LOOP",     "IF",   "SWITCH", "ARM",
		"ENTER", "NEXT", "BREAK", "CONTINUE", "GOTO", "LEAVE",	"NONE"
	};
	return k <= KL_REGION_NONE ? names[k] : "?";
}

static uint32_t
nsuccs(const fn *x, uint32_t b)
{
	return kl_cfg_num_succs(x->cfg, (kl_block){ b });
}

static uint32_t
succ(const fn *x, uint32_t b, uint32_t i)
{
	return kl_cfg_succ_edge(x->cfg, (kl_block){ b }, i).block.id;
}

static bool
reachable(const fn *x, uint32_t b)
{
	return b < x->nb && kl_domtree_is_reachable(x->dt, (kl_block){ b });
}

static bool
is_ancestor(const fn *x, uint32_t a, uint32_t r)
{
	return a < r && r < x->end[a];
}

/* ---- 1. answers in range, and the tree's shape ---- */

static bool
id_ok(const fn *x, uint32_t r)
{
	return r == NONE || r < x->n;
}

/* Every answer is a node, a block of f, or none; ids past the end (and
 * blocks that f does not number) answer none. */
static void
check_ranges(const fn *x)
{
	const kl_regions *rg = x->rg;
	for (uint32_t r = 0; r < x->n; r++) {
		if (!REQ(x->kind[r] < KL_REGION_NONE, "node %u kind %u", r,
			 x->kind[r]) ||
		    !REQ(id_ok(x, x->parent[r]) && id_ok(x, x->first[r]) &&
				 id_ok(x, x->next[r]) &&
				 id_ok(x, x->target[r]),
			 "node %u links out of range", r) ||
		    !REQ((x->block[r] == NONE || x->block[r] < x->nb) &&
				 (x->source[r] == NONE ||
				  x->source[r] < x->nb),
			 "node %u blocks out of range", r))
			return;
	}
	for (uint32_t b = 0; b < x->nb; b++)
		REQ(id_ok(x, x->code[b]), "block%u code %u", b, x->code[b]);
	uint32_t bad[] = { x->n, x->n + 1, x->n + 1000, NONE - 1, NONE };
	for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
		kl_region g = { bad[k] };
		REQ(kl_region_kind_of(rg, g) == KL_REGION_NONE, "id %u", g.id);
		REQ(kl_region_block(rg, g).id == NONE, "id %u", g.id);
		REQ(kl_region_parent(rg, g).id == NONE, "id %u", g.id);
		REQ(kl_region_first_child(rg, g).id == NONE, "id %u", g.id);
		REQ(kl_region_next_sibling(rg, g).id == NONE, "id %u", g.id);
		REQ(kl_region_target(rg, g).id == NONE, "id %u", g.id);
		REQ(kl_region_source(rg, g).id == NONE, "id %u", g.id);
		REQ(kl_region_succ_index(rg, g) == NONE, "id %u", g.id);
	}
	uint32_t badb[] = { x->nb, x->nb + 7, NONE - 1, NONE };
	for (size_t k = 0; k < sizeof badb / sizeof badb[0]; k++)
		REQ(kl_regions_code(rg, (kl_block){ badb[k] }).id == NONE,
		    "block %u", badb[k]);
}

/*
 * Walk first_child / next_sibling from the root without recursion: it
 * must visit 0, 1, ..., n-1 in that order (preorder numbering), every
 * child's parent being the node it was reached from. Then end[] gives
 * each subtree's range. False if the tree is not one (nothing else can
 * be checked then).
 */
static bool
check_preorder(fn *x)
{
	if (x->n == 0)
		return REQ(x->entry == NONE, "no nodes but entry block%u",
			   x->entry);
	if (!REQ(x->entry != NONE, "nodes but no entry") ||
	    !REQ(x->parent[0] == NONE && x->next[0] == NONE,
		 "root has parent %u sibling %u", x->parent[0], x->next[0]))
		return false;
	uint32_t r = 0, want = 0;
	for (;;) {
		if (!REQ(r == want, "preorder visits node %u as number %u",
			 r, want))
			return false;
		want++;
		uint32_t c = x->first[r];
		if (c != NONE) {
			if (!REQ(c == r + 1 && x->parent[c] == r,
				 "node %u first child %u parent %u", r, c,
				 x->parent[c]))
				return false;
			r = c;
			continue;
		}
		while (r != 0 && x->next[r] == NONE)
			r = x->parent[r];
		if (r == 0)
			break;
		uint32_t s = x->next[r];
		if (!REQ(s < x->n && x->parent[s] == x->parent[r],
			 "node %u sibling %u parent %u, not %u", r, s,
			 s < x->n ? x->parent[s] : NONE, x->parent[r]))
			return false;
		r = s;
	}
	if (!REQ(want == x->n, "preorder reached %u of %u nodes", want,
		 x->n))
		return false;
	for (uint32_t k = 0; k < x->n; k++)
		x->end[k] = k + 1;
	for (uint32_t k = x->n; k-- > 1;)
		if (x->end[k] > x->end[x->parent[k]])
			x->end[x->parent[k]] = x->end[k];
	return true;
}

/* The rules of keel.h that hold for any tree, whatever the CFG: the root
 * is the only BODY; CODE, LEAVE and edges are leaves, the others hold a
 * sequence; ARMs are exactly the children of IFs and SWITCHes; target,
 * source and succ_index are none where the kind has none. */
static void
check_kinds(const fn *x)
{
	for (uint32_t r = 0; r < x->n; r++) {
		uint32_t k = x->kind[r], p = x->parent[r];
		REQ((k == KL_REGION_BODY) == (r == 0), "node %u is %s", r,
		    kind_name(k));
		if (is_leaf_kind(k))
			REQ(x->first[r] == NONE, "%s %u has children",
			    kind_name(k), r);
		else
			REQ(x->first[r] != NONE, "%s %u is empty",
			    kind_name(k), r);
		if (r != 0) {
			bool in_branch = x->kind[p] == KL_REGION_IF ||
					 x->kind[p] == KL_REGION_SWITCH;
			REQ((k == KL_REGION_ARM) == in_branch,
			    "%s %u in %s %u", kind_name(k), r,
			    kind_name(x->kind[p]), p);
		}
		bool jumps = k == KL_REGION_BREAK || k == KL_REGION_CONTINUE;
		if (!jumps)
			REQ(x->target[r] == NONE, "%s %u has target %u",
			    kind_name(k), r, x->target[r]);
		bool edge = k == KL_REGION_ARM || is_edge_kind(k);
		if (edge)
			REQ(x->source[r] != NONE && x->sidx[r] != NONE,
			    "%s %u has no source", kind_name(k), r);
		else
			REQ(x->source[r] == NONE && x->sidx[r] == NONE,
			    "%s %u has source %u index %u", kind_name(k), r,
			    x->source[r], x->sidx[r]);
		REQ(x->block[r] != NONE, "%s %u has no block", kind_name(k),
		    r);
	}
}

/* ---- moving through the tree as it runs ---- */

/*
 * Where control goes after node r has run: its next sibling, else off
 * the end of the sequence: after a SCOPE, after an ARM's IF or SWITCH;
 * off a LOOP or the BODY is an error (none, *off the node run off).
 */
static uint32_t
after(const fn *x, uint32_t r, uint32_t *off)
{
	for (;;) {
		if (x->next[r] != NONE)
			return x->next[r];
		uint32_t p = x->parent[r];
		if (p == NONE || (x->kind[p] != KL_REGION_SCOPE &&
				  x->kind[p] != KL_REGION_ARM)) {
			*off = p == NONE ? r : p;
			return NONE;
		}
		r = x->kind[p] == KL_REGION_ARM ? x->parent[p] : p;
	}
}

/* Entering node r: a LOOP or SCOPE starts its first child (again). */
static uint32_t
descend(const fn *x, uint32_t r)
{
	while (r != NONE && (x->kind[r] == KL_REGION_LOOP ||
			     x->kind[r] == KL_REGION_SCOPE))
		r = x->first[r];
	return r;
}

/* Where edge node e leads (the node that runs next; none if it runs
 * off a LOOP or the BODY). A NEXT in an ARM continues after the ARM's
 * IF or SWITCH (and further off the ends of sequences). */
static uint32_t
edge_dest(const fn *x, uint32_t e, uint32_t *off)
{
	uint32_t t, p;
	*off = NONE;
	switch (x->kind[e]) {
	case KL_REGION_ENTER:
		return descend(x, x->next[e]);
	case KL_REGION_NEXT:
		p = x->parent[e];
		if (x->kind[p] == KL_REGION_ARM)
			return descend(x, after(x, x->parent[p], off));
		return descend(x, after(x, e, off));
	case KL_REGION_BREAK:
		t = x->target[e];
		if (t >= x->n)
			return NONE;
		return descend(x, after(x, t, off));
	case KL_REGION_CONTINUE:
		t = x->target[e];
		if (t >= x->n)
			return NONE;
		return descend(x, x->first[t]);
	case KL_REGION_GOTO:
		return x->block[e] < x->nb ? x->code[x->block[e]] : NONE;
	default:
		return NONE;
	}
}

static bool
is_code_of(const fn *x, uint32_t r, uint32_t b)
{
	return r != NONE && x->kind[r] == KL_REGION_CODE && x->block[r] == b;
}

/* ---- 2. coverage, and the fields against the CFG ---- */

/* Is b's terminator a brif (its last instruction, and the block branches
 * nowhere else: this test calls it only for functions that do not)? */
static bool
ends_in_brif(const kl_func *f, uint32_t b)
{
	kl_inst last = kl_block_last_inst(f, (kl_block){ b });
	return last.id != NONE && kl_inst_opcode(f, last) == KL_OP_BRIF;
}

static void
check_cfg_fields(fn *x)
{
	uint32_t *ncode = xcalloc(x->nb, sizeof(uint32_t));
	uint32_t *nleave = xcalloc(x->nb, sizeof(uint32_t));
	uint32_t *nbranch = xcalloc(x->nb, sizeof(uint32_t));
	uint32_t *nloop = xcalloc(x->nb, sizeof(uint32_t));
	uint32_t gotos = 0, loops = 0, scopes = 0, nreach = 0;
	REQ(x->block[0] == x->entry, "BODY block%u, entry block%u",
	    x->block[0], x->entry);
	for (uint32_t r = 0; r < x->n; r++) {
		uint32_t k = x->kind[r], b = x->block[r], p = x->parent[r];
		uint32_t off = NONE;
		if (!REQ(b < x->nb, "%s %u block %u", kind_name(k), r, b))
			break;
		switch (k) {
		case KL_REGION_CODE:
			ncode[b]++;
			REQ(reachable(x, b), "CODE %u of unreachable block%u",
			    r, b);
			break;
		case KL_REGION_LEAVE:
			nleave[b]++;
			break;
		case KL_REGION_IF:
		case KL_REGION_SWITCH: {
			nbranch[b]++;
			uint32_t ns = nsuccs(x, b), i = 0;
			for (uint32_t a = x->first[r]; a != NONE;
			     a = x->next[a], i++) {
				REQ(x->kind[a] != KL_REGION_ARM ||
					    (x->source[a] == b &&
					     x->sidx[a] == i),
				    "%s %u (block%u) child %u is ARM %u: "
				    "source %u index %u", kind_name(k), r, b,
				    i, a, x->source[a], x->sidx[a]);
			}
			if (k == KL_REGION_IF)
				REQ(i == 2 && ns == 2, "IF %u (block%u) has "
				    "%u ARMs, block has %u edges", r, b, i,
				    ns);
			else
				REQ(i == ns && ns >= 2, "SWITCH %u (block%u) "
				    "has %u ARMs, block has %u edges", r, b,
				    i, ns);
			if (ns == 2 && ends_in_brif(x->f, b))
				REQ(k == KL_REGION_IF, "brif of block%u is "
				    "%s %u", b, kind_name(k), r);
			break;
		}
		case KL_REGION_ARM:
			REQ(x->block[p] == x->source[r] &&
				    x->sidx[r] < nsuccs(x, x->source[r]) &&
				    succ(x, x->source[r], x->sidx[r]) == b,
			    "ARM %u (block%u) source block%u edge %u, "
			    "parent block%u", r, b, x->source[r], x->sidx[r],
			    x->block[p]);
			break;
		case KL_REGION_LOOP:
			loops++;
			nloop[b]++;
			/* "LOOP its header": a header of kl_loops, whose
			 * code starts the loop (CONTINUE restarts it) */
			REQ(kl_loops_is_header(x->lf, (kl_block){ b }),
			    "LOOP %u block%u is no loop header", r, b);
			REQ(is_code_of(x, descend(x, x->first[r]), b),
			    "LOOP %u (block%u) does not start with its code",
			    r, b);
			break;
		case KL_REGION_SCOPE: {
			scopes++;
			/* "SCOPE the block whose code follows the scope" */
			uint32_t to = descend(x, after(x, r, &off));
			REQ(is_code_of(x, to, b), "SCOPE %u (block%u) is "
			    "followed by node %u, not by that block's CODE",
			    r, b, to);
			break;
		}
		default:
			break;
		}
		if (!is_edge_kind(k))
			continue;
		uint32_t s = x->source[r], i = x->sidx[r];
		if (!REQ(s < x->nb && reachable(x, s) && i < nsuccs(x, s),
			 "%s %u: edge %u of block %u: no such edge",
			 kind_name(k), r, i, s))
			continue;
		REQ(succ(x, s, i) == b, "%s %u says it is edge %u of block%u, "
		    "to block%u; that edge goes to block%u", kind_name(k), r,
		    i, s, b, succ(x, s, i));
		uint32_t *slot = &x->enode[x->eoff[s] + i];
		REQ(*slot == NONE, "edge %u of block%u: nodes %u and %u", i,
		    s, *slot, r);
		*slot = r;
		bool back = kl_domtree_dominates(x->dt, (kl_block){ b },
						 (kl_block){ s });
		/* A back edge goes back to its loop's header: the loop
		 * starts again. (A goto is only for an edge whose target
		 * does not dominate its source, keel.h.) */
		if (back)
			REQ(k == KL_REGION_CONTINUE, "back edge block%u -> "
			    "block%u (edge %u) is %s %u", s, b, i,
			    kind_name(k), r);
		uint32_t to = edge_dest(x, r, &off);
		if (k == KL_REGION_BREAK) {
			uint32_t t = x->target[r];
			REQ(t < x->n && x->kind[t] == KL_REGION_SCOPE &&
				    is_ancestor(x, t, r) && x->block[t] == b,
			    "BREAK %u (block%u) to %u: not an enclosing "
			    "SCOPE of block%u", r, b, t, b);
		} else if (k == KL_REGION_CONTINUE) {
			uint32_t t = x->target[r];
			REQ(t < x->n && x->kind[t] == KL_REGION_LOOP &&
				    is_ancestor(x, t, r) && x->block[t] == b,
			    "CONTINUE %u (block%u) to %u: not an enclosing "
			    "LOOP of block%u", r, b, t, b);
		} else if (k == KL_REGION_GOTO) {
			gotos++;
			/* "only for an edge into an irreducible part of the
			 * graph (... whose target does not dominate its
			 * source)" */
			REQ(!back && kl_loops_irreducible_region(
					     x->lf, (kl_block){ b }) != NONE,
			    "GOTO %u: block%u -> block%u enters no "
			    "irreducible region", r, s, b);
		}
		if (off != NONE)
			fail(__LINE__, "off == NONE", "%s %u (block%u -> "
			     "block%u) runs off the end of %s %u",
			     kind_name(k), r, s, b, kind_name(x->kind[off]),
			     off);
		else
			REQ(is_code_of(x, to, b), "%s %u (block%u -> "
			    "block%u) leads to node %u, not to the target's "
			    "CODE", kind_name(k), r, s, b, to);
	}
	/* Per block: one CODE if reachable, none if not; then the node
	 * after the CODE stands for its terminator: a LEAVE, the one edge,
	 * or an IF or SWITCH whose ARM i starts with edge i. */
	for (uint32_t b = 0; b < x->nb; b++) {
		bool reach = reachable(x, b);
		nreach += reach;
		uint32_t ns = nsuccs(x, b);
		REQ(ncode[b] == reach, "block%u (%s) has %u CODE nodes", b,
		    reach ? "reachable" : "unreachable", ncode[b]);
		REQ(nleave[b] == (reach && ns == 0), "block%u (%u edges) has"
		    " %u LEAVE nodes", b, ns, nleave[b]);
		REQ(nbranch[b] == (reach && ns >= 2), "block%u (%u edges) "
		    "has %u IF/SWITCH nodes", b, ns, nbranch[b]);
		REQ(nloop[b] <= 1, "block%u has %u LOOPs", b, nloop[b]);
		if (!reach) {
			REQ(x->code[b] == NONE, "unreachable block%u has "
			    "code %u", b, x->code[b]);
			continue;
		}
		uint32_t c = x->code[b];
		if (!REQ(is_code_of(x, c, b), "kl_regions_code(block%u) is "
			 "%u", b, c))
			continue;
		uint32_t y = x->next[c];
		if (ns == 0) {
			REQ(y != NONE && x->kind[y] == KL_REGION_LEAVE &&
				    x->block[y] == b,
			    "block%u without edges: CODE %u is followed by "
			    "%u, no LEAVE", b, c, y);
			continue;
		}
		for (uint32_t i = 0; i < ns; i++)
			REQ(x->enode[x->eoff[b] + i] != NONE,
			    "edge %u of block%u (to block%u) has no node", i,
			    b, succ(x, b, i));
		if (ns == 1) {
			REQ(y != NONE && y == x->enode[x->eoff[b]],
			    "block%u: CODE %u is followed by %u, not by its "
			    "edge node %u", b, c, y, x->enode[x->eoff[b]]);
			continue;
		}
		if (!REQ(y != NONE && (x->kind[y] == KL_REGION_IF ||
				       x->kind[y] == KL_REGION_SWITCH) &&
				 x->block[y] == b,
			 "block%u (%u edges): CODE %u is followed by %u, "
			 "no IF or SWITCH of it", b, ns, c, y))
			continue;
		uint32_t i = 0;
		for (uint32_t a = x->first[y]; a != NONE && i < ns;
		     a = x->next[a], i++)
			REQ(x->first[a] != NONE &&
				    x->first[a] == x->enode[x->eoff[b] + i],
			    "block%u: ARM %u (edge %u) starts with %u, not "
			    "with the edge's node %u", b, a, i, x->first[a],
			    x->enode[x->eoff[b] + i]);
	}
	uint32_t irr = kl_loops_num_irreducible(x->lf);
	REQ(kl_regions_num_gotos(x->rg) == gotos, "num_gotos %u, %u GOTO "
	    "nodes", kl_regions_num_gotos(x->rg), gotos);
	REQ((gotos == 0) == (irr == 0), "%u gotos, %u irreducible regions",
	    gotos, irr);
	REQ(loops == kl_loops_count(x->lf), "%u LOOPs, %u loops", loops,
	    kl_loops_count(x->lf));
	/* nothing is copied: a SCOPE is there for a block that follows
	 * it, so there are no more of them than blocks */
	REQ(scopes <= nreach, "%u SCOPEs for %u blocks", scopes, nreach);
	free(ncode);
	free(nleave);
	free(nbranch);
	free(nloop);
}

/* ---- 3. running the tree beside the CFG ---- */

typedef enum walk_mode {
	WALK_RANDOM, /* a random successor each time */
	WALK_DOWN_UP /* successor 0 for `down` steps, then the last one */
} walk_mode;

/*
 * Walk the CFG from the entry (a block without successors ends it; at
 * most maxsteps edges) and run the tree with the same choices: each CODE
 * run must be the block the walk is at. Returns the steps taken.
 */
static uint32_t
simulate(const fn *x, rng *rnd, walk_mode mode, uint32_t down,
	 uint32_t maxsteps)
{
	uint32_t cur = x->entry, off = NONE;
	uint32_t pc = descend(x, x->first[0]);
	for (uint32_t step = 0;; step++) {
		if (!REQ(is_code_of(x, pc, cur), "step %u: at block%u the "
			 "tree runs node %u (%s block%u)", step, cur, pc,
			 pc < x->n ? kind_name(x->kind[pc]) : "none",
			 pc < x->n ? x->block[pc] : NONE))
			return step;
		uint32_t ns = nsuccs(x, cur), y = x->next[pc];
		if (ns == 0) {
			REQ(y != NONE && x->kind[y] == KL_REGION_LEAVE &&
				    x->block[y] == cur,
			    "step %u: the walk ends at block%u, the tree "
			    "goes on to node %u", step, cur, y);
			return step;
		}
		if (step == maxsteps)
			return step;
		uint32_t i;
		if (mode == WALK_DOWN_UP)
			i = step < down ? 0 : ns - 1;
		else
			i = rng_next(rnd, ns);
		uint32_t e = y;
		if (ns >= 2) {
			if (!REQ(y != NONE && (x->kind[y] == KL_REGION_IF ||
					       x->kind[y] == KL_REGION_SWITCH),
				 "step %u: block%u branches, node %u after "
				 "its code is no IF or SWITCH", step, cur, y))
				return step;
			uint32_t a = x->first[y];
			for (uint32_t k = 0; k < i && a != NONE; k++)
				a = x->next[a];
			if (!REQ(a != NONE && x->kind[a] == KL_REGION_ARM &&
					 x->sidx[a] == i,
				 "step %u: block%u has no ARM %u", step, cur,
				 i))
				return step;
			e = x->first[a];
		}
		if (!REQ(e != NONE && is_edge_kind(x->kind[e]) &&
				 x->source[e] == cur && x->sidx[e] == i,
			 "step %u: edge %u of block%u is node %u", step, i,
			 cur, e))
			return step;
		uint32_t to = succ(x, cur, i);
		if (x->kind[e] == KL_REGION_BREAK ||
		    x->kind[e] == KL_REGION_CONTINUE) {
			uint32_t t = x->target[e];
			if (!REQ(t < x->n && is_ancestor(x, t, e),
				 "step %u: %s %u leaves to %u, no enclosing "
				 "node", step, kind_name(x->kind[e]), e, t))
				return step;
		}
		pc = edge_dest(x, e, &off);
		if (!REQ(off == NONE, "step %u: %s %u (block%u -> block%u) "
			 "runs off the end of %s %u", step,
			 kind_name(x->kind[e]), e, cur, to,
			 kind_name(x->kind[off]), off))
			return step;
		cur = to;
	}
}

/* ---- 4. driving it all for one function ---- */

static kl_cfg *the_cfg;
static kl_domtree *the_dt;
static kl_loops *the_lf;
static kl_regions *the_rg; /* reused across every function */
static uint64_t nfuncs, nwalks, nsteps, nfull, ngoto_funcs;

static void
check_print(const kl_func *f, const kl_cfg *cfg, const kl_regions *rg)
{
	kl_buf b = { 0 };
	kl_regions_print(f, cfg, rg, &b);
	REQ(b.len > 8 && b.data && strncmp(b.data, "regions ", 8) == 0,
	    "kl_regions_print wrote %zu bytes: %.40s", b.len,
	    b.data ? b.data : "");
	kl_buf_free(&b);
}

/* The same answers from two objects (one reused, one fresh). */
static void
check_same(const fn *a, const fn *b)
{
	if (!REQ(a->n == b->n, "reused object has %u nodes, fresh %u",
		 a->n, b->n))
		return;
	REQ(kl_regions_num_gotos(a->rg) == kl_regions_num_gotos(b->rg),
	    "gotos differ");
	for (uint32_t r = 0; r < a->n; r++)
		if (!REQ(a->kind[r] == b->kind[r] &&
				 a->parent[r] == b->parent[r] &&
				 a->first[r] == b->first[r] &&
				 a->next[r] == b->next[r] &&
				 a->block[r] == b->block[r] &&
				 a->target[r] == b->target[r] &&
				 a->source[r] == b->source[r] &&
				 a->sidx[r] == b->sidx[r],
			 "node %u differs between reused and fresh", r))
			return;
	for (uint32_t k = 0; k < a->nb; k++)
		if (!REQ(a->code[k] == b->code[k], "code of block%u differs",
			 k))
			return;
}

/* Does every block branch only at its end (as in verified IR)? Iterative
 * over the layout, fine for the big functions too. */
static bool
branches_at_ends(const kl_func *f)
{
	return rg_branches_only_at_ends(f);
}

typedef struct plan {
	uint32_t walks;
	uint32_t maxsteps;
	walk_mode mode;
	uint32_t down;
	bool fresh; /* compare with a fresh object too */
} plan;

static const plan default_plan = { 6, 200, WALK_RANDOM, 0, true };

/* Everything for function f; the label and seed name it in failures. */
static void
check_func(const kl_func *f, const char *label, uint64_t seed, plan p,
	   rng *rnd)
{
	what_label = label;
	what_seed = seed;
	what_func = f;
	what_dumped = false;
	what_shown = 0;
	kl_cfg_compute(the_cfg, f);
	kl_domtree_compute(the_dt, f, the_cfg);
	kl_loops_compute(the_lf, f, the_cfg, the_dt);
	kl_regions_compute(the_rg, f, the_cfg, the_dt, the_lf);
	fn x;
	fn_read(&x, f, the_cfg, the_dt, the_lf, the_rg);
	x.full = branches_at_ends(f);
	nfuncs++;
	check_ranges(&x);
	if (check_preorder(&x)) {
		check_kinds(&x);
		if (x.full && x.n) {
			nfull++;
			check_cfg_fields(&x);
			for (uint32_t w = 0; w < p.walks; w++) {
				nsteps += simulate(&x, rnd, p.mode, p.down,
						   p.maxsteps);
				nwalks++;
			}
		}
	}
	ngoto_funcs += kl_regions_num_gotos(the_rg) != 0;
	check_print(f, the_cfg, the_rg);
	if (p.fresh) {
		kl_regions *fresh = kl_regions_new();
		kl_regions_compute(fresh, f, the_cfg, the_dt, the_lf);
		fn y;
		fn_read(&y, f, the_cfg, the_dt, the_lf, fresh);
		check_same(&x, &y);
		fn_free(&y);
		kl_regions_free(fresh);
	}
	fn_free(&x);
	what_func = NULL;
}

#endif /* KEEL_REGIONS_CHECK_H */
