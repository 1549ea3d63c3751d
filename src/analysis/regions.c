/*
 * regions.c -- structured regions: the function's reachable code as a tree
 * of nested constructs (keel.h and docs/analyses.md say what each node
 * means), after Ramsey, "Beyond Relooper: Recursive Translation of
 * Unstructured Control Flow to Structured Control Flow" (ICFP 2022).
 *
 * The tree of a block x (its dominator subtree) is x's code wrapped in one
 * SCOPE for each child of x in the dominator tree that is a merge block
 * (one with two forward edges in or more), the child of highest reverse
 * postorder outermost; after each scope comes the tree of its merge block.
 * A loop header's code is in a LOOP; a merge block outside some loop
 * that holds its immediate dominator is a loop exit, and its scope goes
 * around the LOOP of the outermost such loop instead (find_owners). x's
 * terminator
 * becomes an IF or a SWITCH of ARMs, and each edge x -> t becomes:
 *   CONTINUE if it goes back to a header (t dominates x),
 *   GOTO     if it goes back to a block that does not dominate x (an
 *            edge into an irreducible part),
 *   BREAK    if t is a merge block: it leaves t's scope, which encloses
 *            x since t's immediate dominator dominates x,
 *   ENTER    otherwise: t's only forward edge in is this one, so x is its
 *            immediate dominator, and t's tree follows here.
 * A BREAK that nothing follows inside its scope (only the ends of IFs,
 * SWITCHes and ARMs between it and the scope) jumps over nothing: it is a
 * NEXT, and a scope no BREAK is left to is dissolved into its parent.
 *
 * With GOTO edges (an irreducible graph) the rest of the tree is that of
 * the graph without them, which is reducible (every retreating edge left
 * is a back edge, the depth-first tree being intact), so the dominators
 * are recomputed on it: a block entered by a goto may be dominated by
 * more blocks once the goto is gone. Its loops are those of the whole
 * graph or smaller, so a merge block outside a loop of the whole graph
 * is outside it here too, which is all the exits' placement asks.
 *
 * Nodes are made in preorder, with an explicit stack of pending work (a
 * tree to make, or an ARM); dissolved scopes are squeezed out at the end,
 * which keeps the preorder. Nothing recurses, so a 100,000-deep nest is
 * fine. O(edges + blocks log (loop depth)), plus the dominator kernel's
 * O(edges log blocks) for an irreducible graph.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "idoms.h"

/* A scope made, that no BREAK has used yet: squeezed out at the end if
 * none does. */
#define SCOPE_UNUSED 0xfe

struct kl_regions {
	uint32_t nblocks, blocks_cap;
	uint32_t *code;     /* per block: its CODE node, KL_NONE */
	uint32_t *scope;    /* per block: the SCOPE it follows, KL_NONE */
	uint32_t *loop;     /* per block: the LOOP it heads, KL_NONE */
	uint32_t *idom;     /* per block: immediate dominator without gotos */
	uint32_t *owner;    /* per merge block: whose tree opens its scope */
	uint32_t *mstart;   /* per block + 1: the range of the merge blocks
			     * it owns */
	uint32_t *merges;   /* merge blocks, by owner, in RPO */
	uint32_t merges_cap;
	uint8_t *flags;     /* per block: MERGE, HEADER, TWO_WAY, DONE */
	void *region;       /* holds the per-block arrays above */

	/* Nodes, by preorder number. */
	uint8_t *kind;
	uint32_t *block, *parent;
	uint32_t *aux;      /* BREAK, CONTINUE: the target node (an edge's
			     * source block follows from its place) */
	uint32_t *index;    /* ARM and edges: the successor number */
	uint32_t *end;      /* one past the node's subtree */
	uint32_t *tail;     /* while building: the container where running
			     * off an IF's, SWITCH's or ARM's end goes on
			     * (a BREAK to it skips nothing); then scratch
			     * of squeeze */
	uint32_t count, nodes_cap;
	void *nodes;        /* holds the node arrays above */
	uint32_t ngotos;

	uint32_t *work;     /* pending work: pairs (what, where) */
	uint32_t nwork, work_cap;
};

/* Per block: MERGE with two forward edges in or more, HEADER with a
 * back edge in, TWO_WAY if its two edges are one brif's, DONE once its
 * tree is made, EXIT for a merge block whose scope goes around a LOOP
 * (its owner's) rather than inside its immediate dominator's tree. */
enum { MERGE = 1, HEADER = 2, TWO_WAY = 4, DONE = 8, EXIT = 16 };

/* Pending work: make the tree of block b in container node c, or (with
 * ARM_WORK set) ARM number k of the IF or SWITCH node c. */
#define ARM_WORK 0x80000000u

kl_regions *
kl_regions_new(void)
{
	return kl_calloc(1, sizeof(kl_regions));
}

void
kl_regions_free(kl_regions *rg)
{
	if (!rg)
		return;
	void *ptrs[] = { rg->region, rg->merges, rg->nodes, rg->work };
	for (size_t k = 0; k < sizeof ptrs / sizeof ptrs[0]; k++)
		free(ptrs[k]);
	free(rg);
}

/* Is b a block the analysis covers, reached from the entry? Inputs may be
 * stale: a block past any table's end counts as not reached. */
static bool
reached(const kl_regions *rg, const kl_domtree *dt, uint32_t b)
{
	return b < rg->nblocks && dt_reachable(dt, b);
}

/* Does the edge x -> t go backwards (or stay) in reverse postorder? */
static bool
retreats(const kl_domtree *dt, uint32_t x, uint32_t t)
{
	return dt->rpo_key[t] <= dt->rpo_key[x];
}

static void
cover_blocks(kl_regions *rg, uint32_t nb)
{
	if (nb > rg->blocks_cap || !rg->region) {
		size_t c = nb ? nb : 1;
		/* Six words a block, mstart one more, and the flags. */
		uint32_t *r = kl_alloc_table((c * 6 + 1) * sizeof(uint32_t) +
					     c);
		free(rg->region);
		rg->region = r;
		rg->code = r;
		rg->scope = r + c;
		rg->loop = r + 2 * c;
		rg->idom = r + 3 * c;
		rg->owner = r + 4 * c;
		rg->mstart = r + 5 * c;
		rg->flags = (uint8_t *)(r + 6 * c + 1);
		rg->blocks_cap = (uint32_t)c;
	}
	rg->nblocks = nb;
	/* code, scope, loop, idom and owner: none (the first nb of each: a
	 * small function after a big one clears only its own) */
	uint32_t *none[] = { rg->code, rg->scope, rg->loop, rg->idom,
			     rg->owner };
	for (size_t k = 0; k < sizeof none / sizeof none[0]; k++)
		memset(none[k], 0xff, nb * sizeof(uint32_t));
	memset(rg->flags, 0, nb);
}

/*
 * Classify the edges into each reached block: MERGE with two forward
 * edges in or more, HEADER with a back edge in; say whether there are
 * gotos (edges back to a block that does not dominate their source):
 * *gotos. Returns the
 * number of nodes the tree can need: the root; for each reached block
 * its CODE and its LEAVE, IF or SWITCH, a LOOP if it is a header, a
 * SCOPE if it is a merge; for each edge an ARM and an edge node. The
 * edges out of reached blocks are counted into *nedges_out.
 */
static uint64_t
classify(kl_regions *rg, const kl_cfg *cfg, const kl_domtree *dt,
	 uint64_t *nedges_out, bool *gotos)
{
	uint64_t nedges = 0, nreached = 0, extra = 0;
	uint32_t *forward = rg->mstart; /* scratch until merge_children */
	memset(forward, 0, rg->nblocks * sizeof *forward);
	*gotos = false;
	for (uint32_t k = dt->npo; k-- > 0;) {
		uint32_t x = dt->po[k].id, n;
		if (!reached(rg, dt, x))
			continue;
		const kl_cfg_edge *e = cfg_edges_out(cfg, x, &n);
		nedges += n;
		nreached++;
		for (uint32_t j = 0; j < n; j++) {
			uint32_t t = e[j].block.id;
			if (!reached(rg, dt, t))
				continue;
			if (!retreats(dt, x, t))
				forward[t]++;
			else if (dt_dominates(dt, t, x))
				rg->flags[t] |= HEADER;
			else
				*gotos = true;
		}
	}
	for (uint32_t b = 0; b < rg->nblocks; b++) {
		if (forward[b] > 1)
			rg->flags[b] |= MERGE;
		extra += (forward[b] > 1) + !!(rg->flags[b] & HEADER);
	}
	*nedges_out = nedges;
	return 1 + 2 * nreached + extra + 2 * nedges;
}

/*
 * Which blocks end with a brif of two edges (an IF; any other block of
 * several edges is a SWITCH). Read in block order, so the instruction
 * table is read in about the order it was written: taken while each
 * tree is made, in dominator order, the reads missed the cache on a
 * large function (a third of the analysis's time on 100,000 blocks).
 */
static void
find_two_ways(kl_regions *rg, const kl_func *f, const kl_cfg *cfg)
{
	for (uint32_t b = 0; b < rg->nblocks; b++) {
		uint32_t n;
		const kl_cfg_edge *e = cfg_edges_out(cfg, b, &n);
		if (n != 2 || e[0].inst.id != e[1].inst.id)
			continue;
		const kl_opinfo *op = kl_op_info(kl_inst_opcode(f, e[0].inst));
		if (op && op->format == KL_FMT_BRIF)
			rg->flags[b] |= TWO_WAY;
	}
}

/*
 * Immediate dominators in the graph without its gotos (Lengauer-Tarjan on
 * the successor lists less those edges), into rg->idom. Needed only when
 * there are gotos; otherwise they are the dominator tree's.
 */
static void
idoms_without_gotos(kl_regions *rg, const kl_cfg *cfg, const kl_domtree *dt,
		    uint64_t nedges)
{
	uint32_t nb = rg->nblocks, entry = dt->entry;
	succ_span *out = kl_calloc(nb, sizeof *out);
	dom_span *dom = kl_calloc(nb, sizeof *dom);
	uint32_t *succ = kl_malloc((nedges ? nedges : 1) * sizeof *succ);
	uint32_t *preds = kl_malloc((nedges ? nedges : 1) * sizeof *preds);
	uint32_t *w = kl_malloc(((size_t)nb + 2) * 6 * sizeof *w);
	uint32_t *vertex = w, *anc = w + nb + 2, *semi = w + 2 * (nb + 2),
		 *label = w + 3 * (nb + 2), *num = w + 4 * (nb + 2),
		 *start = w + 5 * (nb + 2);
	uint32_t len = 0;
	for (uint32_t k = dt->npo; k-- > 0;) {
		uint32_t x = dt->po[k].id, n;
		if (!reached(rg, dt, x))
			continue;
		const kl_cfg_edge *e = cfg_edges_out(cfg, x, &n);
		out[x].start = len;
		for (uint32_t j = 0; j < n; j++) {
			uint32_t t = e[j].block.id;
			if (reached(rg, dt, t) &&
			    (!retreats(dt, x, t) || dt_dominates(dt, t, x)))
				succ[len++] = t;
		}
		out[x].n = len - out[x].start;
	}
	uint32_t n = ana_dfs_number(entry, out, succ, dom, vertex, anc);
	ana_dfs_preds(n, out, succ, dom, vertex, start, preds);
	ana_idoms(n, start, preds, num, anc, semi, label);
	for (uint32_t v = 2; v <= n; v++)
		rg->idom[vertex[v]] = vertex[num[v]];
	free(out);
	free(dom);
	free(succ);
	free(preds);
	free(w);
}

/*
 * Who opens each merge block y's scope. Ramsey's rule is y's immediate
 * dominator x; but if some loop holds x and not y, y is an exit of that
 * loop, and its code reads better after the loop than inside it: its
 * scope goes around the LOOP of the outermost such loop instead (EXIT,
 * owned by that loop's header). That scope still encloses every edge to
 * y (they come from blocks x dominates, all inside that loop), and y's
 * tree, now after the loop, holds no CONTINUE to it (a block of y's tree
 * in the loop would put y in it). A loop header's own exits were the
 * first case; this is the general one.
 *
 * The loops holding x, outermost first, are the path to x's innermost
 * loop in the loop forest, whose preorder numbering makes the path a
 * stack kept as the loops are visited in order; the loops of the path
 * that hold y are a prefix of it, so a binary search finds the first
 * that does not. O(loops + merges log depth).
 */
static void
find_owners(kl_regions *rg, const kl_domtree *dt, const kl_loops *lf)
{
	uint32_t nb = rg->nblocks, nl = kl_loops_count(lf);
	/* bucket[start[l] .. start[l + 1]): the merge blocks whose
	 * immediate dominator's innermost loop is l */
	uint32_t *start = kl_calloc((size_t)nl + 2, sizeof *start);
	uint32_t *bucket = kl_malloc(((size_t)nb + 1) * sizeof *bucket);
	uint32_t *path = kl_malloc(((size_t)nl + 1) * sizeof *path);
	for (uint32_t k = 0; k < dt->npo; k++) {
		uint32_t y = dt->po[k].id;
		if (!reached(rg, dt, y) || !(rg->flags[y] & MERGE) ||
		    rg->idom[y] >= nb)
			continue;
		rg->owner[y] = rg->idom[y];
		kl_loop l = kl_loops_innermost(lf, (kl_block){ rg->idom[y] });
		if (l.id < nl)
			start[l.id + 1]++;
	}
	for (uint32_t l = 0; l < nl; l++)
		start[l + 1] += start[l];
	for (uint32_t k = 0; k < dt->npo; k++) {
		uint32_t y = dt->po[k].id;
		if (!reached(rg, dt, y) || rg->owner[y] == KL_NONE)
			continue; /* (owner[y] set: y a merge) */
		kl_loop l = kl_loops_innermost(lf, (kl_block){ rg->idom[y] });
		if (l.id < nl)
			bucket[start[l.id]++] = y;
	}
	/* start[l] is now the end of l's bucket, start[l - 1] its start */
	uint32_t depth = 0;
	for (uint32_t l = 0; l < nl; l++) {
		kl_block h = kl_loop_header(lf, (kl_loop){ l });
		while (depth &&
		       !kl_loop_contains(lf, (kl_loop){ path[depth - 1] }, h))
			depth--;
		path[depth++] = l;
		for (uint32_t k = l ? start[l - 1] : 0; k < start[l]; k++) {
			kl_block y = { bucket[k] };
			/* the first loop of the path not holding y */
			uint32_t lo = 0, hi = depth;
			while (lo < hi) {
				uint32_t mid = lo + (hi - lo) / 2;
				kl_loop at = { path[mid] };
				if (kl_loop_contains(lf, at, y))
					lo = mid + 1;
				else
					hi = mid;
			}
			if (lo == depth)
				continue; /* every loop holding x holds y */
			kl_block hd = kl_loop_header(lf, (kl_loop){ path[lo] });
			if (hd.id < nb && (rg->flags[hd.id] & HEADER)) {
				rg->owner[y.id] = hd.id;
				rg->flags[y.id] |= EXIT;
			}
		}
	}
	free(start);
	free(bucket);
	free(path);
}

/* The merge blocks each block owns in rg->merges[mstart[b] ..
 * mstart[b + 1]), in reverse postorder: they are appended in that
 * order. */
static void
merge_children(kl_regions *rg, const kl_domtree *dt)
{
	uint32_t nb = rg->nblocks, *ms = rg->mstart, total = 0;
	memset(ms, 0, ((size_t)nb + 1) * sizeof *ms);
	for (uint32_t k = 0; k < dt->npo; k++) {
		uint32_t b = dt->po[k].id;
		if (reached(rg, dt, b) && rg->owner[b] < nb) {
			ms[rg->owner[b]]++;
			total++;
		}
	}
	/* Each count becomes the end of its range; filling backwards from
	 * there leaves it at the range's start. */
	uint32_t sum = 0;
	for (uint32_t b = 0; b < nb; b++) {
		sum += ms[b];
		ms[b] = sum;
	}
	ms[nb] = sum;
	if (total > rg->merges_cap)
		kl_grow(&rg->merges, &rg->merges_cap, sizeof *rg->merges,
			total);
	for (uint32_t k = 0; k < dt->npo; k++) { /* post-order: backwards */
		uint32_t b = dt->po[k].id;
		if (reached(rg, dt, b) && rg->owner[b] < nb)
			rg->merges[--ms[rg->owner[b]]] = b;
	}
}

/* ---- making the tree ---- */

static bool
is_arm_chain(uint8_t kind)
{
	return kind == KL_REGION_ARM || kind == KL_REGION_IF ||
	       kind == KL_REGION_SWITCH;
}

static uint32_t
add_node(kl_regions *rg, uint8_t kind, uint32_t block, uint32_t parent)
{
	uint32_t r = rg->count++;
	rg->kind[r] = kind;
	rg->block[r] = block;
	rg->parent[r] = parent;
	rg->aux[r] = KL_NONE;
	rg->index[r] = KL_NONE;
	/* An edge, IF or SWITCH is the last node of its sequence; running
	 * off the end of an ARM goes on where its IF's end does. */
	rg->tail[r] = parent != KL_NONE && is_arm_chain(rg->kind[parent])
			      ? rg->tail[parent]
			      : parent;
	return r;
}

static void
push_work(kl_regions *rg, uint32_t what, uint32_t where)
{
	if (rg->nwork + 2 > rg->work_cap)
		kl_grow(&rg->work, &rg->work_cap, sizeof *rg->work,
			(uint64_t)rg->nwork + 2);
	rg->work[rg->nwork++] = what;
	rg->work[rg->nwork++] = where;
}

/* Room for need nodes (classify's count). */
static bool
nodes_room(kl_regions *rg, uint64_t need)
{
	if (need >= KL_NONE)
		return false;
	if (need > rg->nodes_cap) {
		/* One table, on huge pages when large (kl_alloc_table): the
		 * first computation on 100,000 blocks spent more time
		 * faulting in 7 MB page by page than building the tree. */
		size_t c = (size_t)need;
		uint32_t *t = kl_alloc_table(c * (6 * sizeof(uint32_t) + 1));
		free(rg->nodes);
		rg->nodes = t;
		rg->block = t;
		rg->parent = t + c;
		rg->aux = t + 2 * c;
		rg->index = t + 3 * c;
		rg->end = t + 4 * c;
		rg->tail = t + 5 * c;
		rg->kind = (uint8_t *)(t + 6 * c);
		rg->nodes_cap = (uint32_t)c;
	}
	return true;
}

/* The node of edge number j of x, to t, at the end of container c. */
static void
make_edge(kl_regions *rg, const kl_domtree *dt, uint32_t x, uint32_t j,
	  uint32_t t, uint32_t c)
{
	/* A GOTO unless shown otherwise: also what an edge of stale inputs
	 * that fits no rule becomes (an unreached target, a merge without a
	 * scope, a header without a loop, a tree made twice). */
	uint32_t e = add_node(rg, KL_REGION_GOTO, t, c);
	rg->index[e] = j;
	bool in = reached(rg, dt, t);
	if (in && retreats(dt, x, t)) {
		if (dt_dominates(dt, t, x) && rg->loop[t] != KL_NONE) {
			rg->kind[e] = KL_REGION_CONTINUE;
			rg->aux[e] = rg->loop[t];
		}
	} else if (in && (rg->flags[t] & MERGE)) {
		uint32_t s = rg->scope[t];
		if (s != KL_NONE && rg->tail[e] == s) {
			rg->kind[e] = KL_REGION_NEXT;
		} else if (s != KL_NONE) {
			rg->kind[e] = KL_REGION_BREAK;
			rg->kind[s] = KL_REGION_SCOPE;
			rg->aux[e] = s;
		}
	} else if (in && !(rg->flags[t] & DONE)) {
		rg->kind[e] = KL_REGION_ENTER;
		push_work(rg, t, c);
	}
	if (rg->kind[e] == KL_REGION_GOTO)
		rg->ngotos++;
}

/* x's code and its terminator's construct, in container c. */
static void
make_code(kl_regions *rg, const kl_cfg *cfg, const kl_domtree *dt,
	  uint32_t x, uint32_t c)
{
	rg->code[x] = add_node(rg, KL_REGION_CODE, x, c);
	uint32_t n;
	const kl_cfg_edge *e = cfg_edges_out(cfg, x, &n);
	if (n == 0) {
		add_node(rg, KL_REGION_LEAVE, x, c);
	} else if (n == 1) {
		make_edge(rg, dt, x, 0, e[0].block.id, c);
	} else {
		bool two = rg->flags[x] & TWO_WAY;
		uint32_t b = add_node(rg, two ? KL_REGION_IF : KL_REGION_SWITCH,
				      x, c);
		for (uint32_t k = n; k-- > 0;)
			push_work(rg, ARM_WORK | k, b);
	}
}

/* A scope that block y's tree follows, in container c; y's tree is made
 * after it (the work is popped once the scope's contents are made). */
static uint32_t
open_scope(kl_regions *rg, uint32_t y, uint32_t c)
{
	uint32_t s = add_node(rg, SCOPE_UNUSED, y, c);
	rg->scope[y] = s;
	push_work(rg, y, c);
	return s;
}

/* The tree of block x in container c: the scopes of x's merge children
 * (the latest outermost), a LOOP if x is a header, x's code. */
static void
make_tree(kl_regions *rg, const kl_cfg *cfg, const kl_domtree *dt,
	  uint32_t x, uint32_t c)
{
	if (rg->flags[x] & DONE)
		return; /* (stale inputs only) */
	rg->flags[x] |= DONE;
	/* merges[lo .. hi): (an index, not a pointer: merges is NULL when
	 * no block has two forward edges in) */
	const uint32_t *m = rg->merges;
	uint32_t lo = rg->mstart[x], hi = rg->mstart[x + 1];
	/* the exits it owns around its LOOP, the rest inside */
	for (uint32_t k = hi; k-- > lo;)
		if (rg->flags[m[k]] & EXIT)
			c = open_scope(rg, m[k], c);
	if (rg->flags[x] & HEADER)
		c = rg->loop[x] = add_node(rg, KL_REGION_LOOP, x, c);
	for (uint32_t k = hi; k-- > lo;)
		if (!(rg->flags[m[k]] & EXIT))
			c = open_scope(rg, m[k], c);
	make_code(rg, cfg, dt, x, c);
}

/* Drop the scopes no BREAK uses, renumbering the rest (still in
 * preorder), then set each node's subtree end. */
static void
squeeze(kl_regions *rg)
{
	uint32_t *renum = rg->tail, n = 0; /* (the tails are not needed) */
	for (uint32_t i = 0; i < rg->count; i++) {
		uint32_t p = rg->parent[i];
		if (rg->kind[i] == SCOPE_UNUSED) {
			renum[i] = renum[p]; /* its children go to its parent */
			continue;
		}
		renum[i] = n;
		rg->parent[n] = p == KL_NONE ? KL_NONE : renum[p];
		rg->aux[n] = rg->aux[i] == KL_NONE ? KL_NONE : renum[rg->aux[i]];
		if (n != i) { /* (until the first dropped scope, in place) */
			rg->kind[n] = rg->kind[i];
			rg->block[n] = rg->block[i];
			rg->index[n] = rg->index[i];
			if (rg->kind[n] == KL_REGION_CODE)
				rg->code[rg->block[n]] = n;
		}
		n++;
	}
	rg->count = n;
	for (uint32_t r = 0; r < n; r++)
		rg->end[r] = r + 1;
	for (uint32_t r = n; r-- > 1;)
		if (rg->end[r] > rg->end[rg->parent[r]])
			rg->end[rg->parent[r]] = rg->end[r];
}

void
kl_regions_compute(kl_regions *rg, const kl_func *f, const kl_cfg *cfg,
		   const kl_domtree *dt, const kl_loops *lf)
{
	uint32_t nb = f->nblocks;
	if (nb > cfg->nblocks)
		nb = cfg->nblocks;
	if (nb > dt->nblocks)
		nb = dt->nblocks;
	cover_blocks(rg, nb);
	rg->count = 0;
	rg->ngotos = 0;
	rg->nwork = 0;
	uint32_t entry = dt->entry;
	if (entry >= nb || !dt_reachable(dt, entry))
		return;
	uint64_t nedges;
	bool gotos;
	uint64_t need = classify(rg, cfg, dt, &nedges, &gotos);
	find_two_ways(rg, f, cfg);
	if (!nodes_room(rg, need))
		return; /* (4 billion nodes: memory ran out long before) */
	if (gotos) /* (counted as the nodes are made) */
		idoms_without_gotos(rg, cfg, dt, nedges);
	else
		memcpy(rg->idom, dt->idom, nb * sizeof *rg->idom);
	rg->idom[entry] = KL_NONE;
	find_owners(rg, dt, lf);
	merge_children(rg, dt);

	uint32_t root = add_node(rg, KL_REGION_BODY, entry, KL_NONE);
	push_work(rg, entry, root);
	while (rg->nwork) {
		uint32_t where = rg->work[--rg->nwork];
		uint32_t what = rg->work[--rg->nwork];
		if (!(what & ARM_WORK)) {
			make_tree(rg, cfg, dt, what, where);
			continue;
		}
		uint32_t k = what & ~ARM_WORK, x = rg->block[where], n;
		const kl_cfg_edge *e = cfg_edges_out(cfg, x, &n);
		uint32_t a = add_node(rg, KL_REGION_ARM, e[k].block.id, where);
		rg->index[a] = k;
		make_edge(rg, dt, x, k, e[k].block.id, a);
	}
	squeeze(rg);
}

/* ---- queries ---- */

static bool
node_ok(const kl_regions *rg, kl_region r)
{
	return r.id < rg->count;
}

uint32_t
kl_regions_count(const kl_regions *rg)
{
	return rg->count;
}

kl_region
kl_regions_code(const kl_regions *rg, kl_block b)
{
	/* (every compute clears code first, an early return included) */
	return (kl_region){ b.id < rg->nblocks ? rg->code[b.id] : KL_NONE };
}

uint32_t
kl_regions_num_gotos(const kl_regions *rg)
{
	return rg->ngotos;
}

kl_region_kind
kl_region_kind_of(const kl_regions *rg, kl_region r)
{
	return node_ok(rg, r) ? (kl_region_kind)rg->kind[r.id]
			      : KL_REGION_NONE;
}

kl_block
kl_region_block(const kl_regions *rg, kl_region r)
{
	return (kl_block){ node_ok(rg, r) ? rg->block[r.id] : KL_NONE };
}

kl_region
kl_region_parent(const kl_regions *rg, kl_region r)
{
	return (kl_region){ node_ok(rg, r) ? rg->parent[r.id] : KL_NONE };
}

kl_region
kl_region_first_child(const kl_regions *rg, kl_region r)
{
	bool has = node_ok(rg, r) && r.id + 1 < rg->end[r.id];
	return (kl_region){ has ? r.id + 1 : KL_NONE };
}

kl_region
kl_region_next_sibling(const kl_regions *rg, kl_region r)
{
	bool has = node_ok(rg, r) && r.id != 0 &&
		   rg->end[r.id] < rg->end[rg->parent[r.id]];
	return (kl_region){ has ? rg->end[r.id] : KL_NONE };
}

kl_region
kl_region_target(const kl_regions *rg, kl_region r)
{
	return (kl_region){ node_ok(rg, r) ? rg->aux[r.id] : KL_NONE };
}

/* (keel.h keeps the edge kinds together, ENTER .. GOTO) */
static bool
is_edge(uint8_t kind)
{
	return kind >= KL_REGION_ENTER && kind <= KL_REGION_GOTO;
}

kl_block
kl_region_source(const kl_regions *rg, kl_region r)
{
	if (!node_ok(rg, r))
		return KL_NO_BLOCK;
	uint32_t k = rg->kind[r.id], p = rg->parent[r.id];
	if (k == KL_REGION_ARM)
		return (kl_block){ rg->block[p] };
	if (!is_edge(k))
		return KL_NO_BLOCK;
	/* An ARM's first node is its edge, of its IF's or SWITCH's block;
	 * any other edge follows the CODE of the block it leaves. */
	if (rg->kind[p] == KL_REGION_ARM && r.id == p + 1)
		return (kl_block){ rg->block[rg->parent[p]] };
	return (kl_block){ rg->block[r.id - 1] };
}

uint32_t
kl_region_succ_index(const kl_regions *rg, kl_region r)
{
	return node_ok(rg, r) ? rg->index[r.id] : KL_NONE;
}
