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
