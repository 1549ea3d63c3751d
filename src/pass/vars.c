/*
 * vars.c -- SSA construction for variables: a front end says "x = v" and
 * "read x" in each block (kl_vars_def, kl_vars_use) instead of working
 * out block parameters itself, and kl_vars_finish turns the reads into
 * SSA values.
 *
 * The algorithm is Braun et al.'s ("Simple and Efficient Construction of
 * Static Single Assignment Form", CC 2013), run with every block sealed
 * at the end, when all predecessors are known:
 *
 *   - While building, a read of x in block b gives the value x was last
 *     given in b. If b has none yet, the read gives a new parameter of b
 *     (a candidate phi), remembered as x's value in b; even in the entry
 *     block, which has no predecessors (its candidates read 0), since a
 *     front end may make another block the entry before it finishes.
 *   - kl_vars_finish gives each candidate one argument per edge into its
 *     block: x's value at the end of the predecessor. Where the
 *     predecessor has no value of its own, its single predecessor's is
 *     taken, and so on up a chain of single predecessors; a block with
 *     several gets a new candidate (which is given arguments in its turn);
 *     a block with none, 0. Every block a chain passes remembers the
 *     answer, so each (variable, block) is looked at once. A candidate of
 *     a block with a single predecessor needs no arguments: it stands for
 *     the predecessor's value.
 *   - A candidate whose arguments are all one value w (or itself) is
 *     trivial: it stands for w. So does a strongly connected group of
 *     candidates that take one value w from outside (section 3.2 of the
 *     paper), which only irreducible loops make. Those found so become
 *     aliases of what they stand for. What stays is minimal SSA, on any
 *     graph (but nests of irreducible loops past a budget), and pruned:
 *     every candidate exists because a read needed it.
 *
 * Work and memory are linear in the blocks, edges, reads, writes and the
 * (variable, block) pairs a variable is live through. The values of the
 * pairs sit in one open-addressing table; nothing is visited in hash
 * order, so the output is deterministic.
 */
#include <stdlib.h>
#include <string.h>

#include "../ir/ir.h"
#include "../util/util.h"
#include "edges.h"

/* A parameter made for a variable: a candidate phi. */
typedef struct candidate {
	uint32_t value, var, block;
	uint32_t index; /* its place among the block's parameters */
	uint32_t rep;   /* what it stands for once settled, else KL_NONE */
	uint32_t args;  /* where its arguments start in arg_vals */
} candidate;

/* The zero constant a variable of one type reads before any write. */
typedef struct zero_const {
	kl_type type;
	uint32_t value;
} zero_const;

struct kl_vars {
	kl_func *func;
	kl_status status;
	const char *error;
	bool finished;
	kl_type *types; /* of each variable */
	uint32_t nvars, types_cap;
	/* (variable, block) -> the variable's value at the end of what is
	 * built of the block; key 0 is a free slot */
	uint64_t *keys;
	uint32_t *vals;
	uint32_t map_cap, map_len; /* map_cap: 0 or a power of two */
	candidate *cands;
	uint32_t ncands, cands_cap;
	zero_const *zeros; /* one per type read before a write, in order */
	uint32_t nzeros, zeros_cap;
	/* kl_vars_finish's: the edges into each block, from start[b] */
	uint32_t *start;
	in_edge *edges;
	uint32_t *stamp; /* per block: the last walk that passed it */
	/* the candidates' arguments, one per edge into the block, in the
	 * order of the block's edges */
	uint32_t *arg_vals;
	uint32_t narg_vals, arg_vals_cap;
	bool *reached;   /* per block: can it run (from the entry block)? */
};

static bool
fail(kl_vars *vs, kl_status s, const char *why)
{
	if (vs->status == KL_OK) {
		vs->status = s;
		vs->error = why;
	}
	return false;
}

static bool
ready(kl_vars *vs)
{
	if (vs->status != KL_OK)
		return false;
	if (vs->finished)
		return fail(vs, KL_ERR_INVALID, "the variables are finished "
			    "(kl_vars_finish was called)");
	return true;
}

static bool
check_var(kl_vars *vs, kl_var x)
{
	return x.id < vs->nvars ||
	       fail(vs, KL_ERR_INVALID, "no such variable");
}

static bool
check_block(kl_vars *vs, kl_block b)
{
	const kl_func *f = vs->func;
	return (b.id < f->nblocks && (f->blocks[b.id].flags & BLOCK_EXISTS)) ||
	       fail(vs, KL_ERR_INVALID, "no such block");
}

/* ---- the (variable, block) table ---- */

static uint64_t
map_key(uint32_t var, uint32_t block)
{
	return ((uint64_t)var << 32 | block) + 1;
}

static uint32_t
map_slot(const kl_vars *vs, uint64_t key)
{
	/* Fibonacci hashing: the top bits of the product. */
	uint64_t h = key * UINT64_C(0x9e3779b97f4a7c15);
	return (uint32_t)(h >> 32) & (vs->map_cap - 1);
}

static uint32_t
map_get(const kl_vars *vs, uint32_t var, uint32_t block)
{
	if (!vs->map_cap)
		return KL_NONE;
	uint64_t key = map_key(var, block);
	for (uint32_t s = map_slot(vs, key);; s = (s + 1) & (vs->map_cap - 1)) {
		if (vs->keys[s] == key)
			return vs->vals[s];
		if (vs->keys[s] == 0)
			return KL_NONE;
	}
}

static void map_put(kl_vars *vs, uint32_t var, uint32_t block, uint32_t v);

static void
map_grow(kl_vars *vs)
{
	uint64_t *keys = vs->keys;
	uint32_t *vals = vs->vals;
	uint32_t cap = vs->map_cap;
	vs->map_cap = cap ? cap * 2 : 64;
	KL_ASSERT(vs->map_cap > cap);
	vs->keys = kl_calloc(vs->map_cap, sizeof *vs->keys);
	vs->vals = kl_malloc((size_t)vs->map_cap * sizeof *vs->vals);
	vs->map_len = 0;
	for (uint32_t s = 0; s < cap; s++)
		if (keys[s]) {
			uint64_t k = keys[s] - 1;
			map_put(vs, (uint32_t)(k >> 32), (uint32_t)k, vals[s]);
		}
	free(keys);
	free(vals);
}

static void
map_put(kl_vars *vs, uint32_t var, uint32_t block, uint32_t v)
{
	/* at most half full: probes stay short */
	if (2 * ((uint64_t)vs->map_len + 1) > vs->map_cap)
		map_grow(vs);
	uint64_t key = map_key(var, block);
	uint32_t s = map_slot(vs, key);
	while (vs->keys[s] != 0 && vs->keys[s] != key)
		s = (s + 1) & (vs->map_cap - 1);
	vs->map_len += vs->keys[s] == 0;
	vs->keys[s] = key;
	vs->vals[s] = v;
}

/* ---- values the reads give ---- */

/* 0 of type t, made once per type at the top of the entry block, which
 * dominates every block that can run. */
static uint32_t
zero_of(kl_vars *vs, kl_type t)
{
	for (uint32_t i = 0; i < vs->nzeros; i++)
		if (vs->zeros[i].type == t)
			return vs->zeros[i].value;
	kl_func *f = vs->func;
	kl_block entry = kl_func_first_block(f);
	if (entry.id == KL_NONE) {
		fail(vs, KL_ERR_POSITION, "a variable is read before any "
			 "write, and the function has no entry block to put "
			 "its 0 in");
		return KL_NONE;
	}
	kl_builder b;
	kl_builder_init(&b, f);
	kl_inst first = kl_block_first_inst(f, entry);
	if (first.id == KL_NONE)
		kl_builder_at_end(&b, entry);
	else
		kl_builder_before(&b, first);
	kl_type cls = kl_type_class(f->module, t);
	kl_value z = cls == KL_TYPE_F32	  ? kl_build_f32const(&b, 0)
		     : cls == KL_TYPE_F64 ? kl_build_f64const(&b, 0)
					  : kl_build_iconst(&b, t, 0);
	if (z.id == KL_NONE) {
		fail(vs, kl_builder_status(&b), b.error);
		return KL_NONE;
	}
	kl_grow(&vs->zeros, &vs->zeros_cap, sizeof *vs->zeros,
		(uint64_t)vs->nzeros + 1);
	vs->zeros[vs->nzeros++] = (zero_const){ t, z.id };
	return z.id;
}

/* A new parameter of block b for variable var. */
static uint32_t
new_candidate(kl_vars *vs, uint32_t var, uint32_t block)
{
	kl_func *f = vs->func;
	uint32_t index = kl_block_num_params(f, (kl_block){ block });
	kl_value p = kl_block_append_param(f, (kl_block){ block },
					   vs->types[var]);
	if (p.id == KL_NONE) {
		fail(vs, KL_ERR_RANGE, "a block has too many parameters");
		return KL_NONE;
	}
	kl_grow(&vs->cands, &vs->cands_cap, sizeof *vs->cands,
		(uint64_t)vs->ncands + 1);
	vs->cands[vs->ncands++] = (candidate){ p.id, var, block, index,
					       KL_NONE, KL_NONE };
	map_put(vs, var, block, p.id);
	return p.id;
}

/* ---- the API a front end builds with ---- */

kl_vars *
kl_vars_new(kl_func *f)
{
	if (!f)
		return NULL;
	kl_vars *vs = kl_calloc(1, sizeof *vs);
	vs->func = f;
	if (f->param_owner)
		fail(vs, KL_ERR_INVALID, "the function has a kl_vars already "
			 "(finish or free that one first)");
	else
		f->param_owner = vs;
	return vs;
}

/* The function may have another kl_vars from now on. */
static void
let_go(kl_vars *vs)
{
	if (vs->func->param_owner == vs)
		vs->func->param_owner = NULL;
}

void
kl_vars_free(kl_vars *vs)
{
	if (!vs)
		return;
	if (!vs->finished)
		let_go(vs);
	free(vs->types);
	free(vs->keys);
	free(vs->vals);
	free(vs->cands);
	free(vs->zeros);
	free(vs->start);
	free(vs->edges);
	free(vs->stamp);
	free(vs->arg_vals);
	free(vs->reached);
	free(vs);
}

kl_status
kl_vars_status(const kl_vars *vs)
{
	return vs->status;
}

const char *
kl_vars_error(const kl_vars *vs)
{
	return vs->error;
}

kl_var
kl_vars_declare(kl_vars *vs, kl_type t)
{
	if (!ready(vs))
		return (kl_var){ KL_NONE };
	if (kl_type_class(vs->func->module, t) == KL_TYPE_NONE) {
		fail(vs, KL_ERR_INVALID, "not a type");
		return (kl_var){ KL_NONE };
	}
	if (vs->nvars == KL_NONE - 1) {
		fail(vs, KL_ERR_RANGE, "more variables than 2^32 - 2");
		return (kl_var){ KL_NONE };
	}
	kl_grow(&vs->types, &vs->types_cap, sizeof *vs->types,
		(uint64_t)vs->nvars + 1);
	vs->types[vs->nvars] = t;
	return (kl_var){ vs->nvars++ };
}

kl_type
kl_vars_type(const kl_vars *vs, kl_var x)
{
	return x.id < vs->nvars ? vs->types[x.id] : KL_TYPE_NONE;
}

kl_status
kl_vars_def(kl_vars *vs, kl_var x, kl_block b, kl_value v)
{
	if (!ready(vs) || !check_var(vs, x) || !check_block(vs, b))
		return vs->status;
	kl_func *f = vs->func;
	kl_value real = kl_value_resolve(f, v);
	if (real.id == KL_NONE || f->values[real.id].kind == VK_UNUSED) {
		fail(vs, KL_ERR_INVALID, "the value written is not a value");
		return vs->status;
	}
	if (value_type(f, real.id) != vs->types[x.id]) {
		fail(vs, KL_ERR_INVALID, "the value written is not of the "
			 "variable's type");
		return vs->status;
	}
	map_put(vs, x.id, b.id, v.id);
	return KL_OK;
}

kl_value
kl_vars_use(kl_vars *vs, kl_var x, kl_block b)
{
	if (!ready(vs) || !check_var(vs, x) || !check_block(vs, b))
		return KL_NO_VALUE;
	uint32_t v = map_get(vs, x.id, b.id);
	/* (a candidate even in what is the entry block now: which block
	 * is the entry is known at finish, where one there reads 0) */
	if (v == KL_NONE)
		v = new_candidate(vs, x.id, b.id);
	return (kl_value){ v };
}

/* ---- kl_vars_finish ---- */

/* The edges into every block, in layout order of their branches. */
static void
collect_edges(kl_vars *vs)
{
	in_edges e = { 0 };
	in_edges_collect(&e, vs->func);
	vs->start = e.start;
	vs->edges = e.edges;
	uint32_t nb = vs->func->nblocks;
	vs->stamp = kl_calloc(nb ? nb : 1, sizeof *vs->stamp);
}

/* The blocks the entry block reaches, by a walk along the branches. */
static void
mark_reached(kl_vars *vs)
{
	uint32_t nb = vs->func->nblocks;
	vs->reached = kl_malloc((nb ? nb : 1) * sizeof *vs->reached);
	uint32_t *stack = kl_malloc((nb ? nb : 1) * sizeof *stack);
	blocks_reached(vs->func, vs->reached, stack);
	free(stack);
}

/*
 * Variable var's value at the end of block q: q's own, or up the chain of
 * single predecessors to a block that has one, needs a new candidate
 * (several predecessors) or has no predecessor (0). Every block passed
 * remembers the answer. In code that cannot run the value is 0, as
 * promote has it: the candidates there all become trivial and go (a chain
 * that comes back to itself is such code too).
 */
static uint32_t
value_at_end(kl_vars *vs, uint32_t var, uint32_t q, uint32_t walk)
{
	uint32_t first = q, v = map_get(vs, var, q), steps = 0;
	if (v != KL_NONE)
		return v; /* (the usual case: the block has its own) */
	for (;;) {
		uint32_t npreds = vs->start[q + 1] - vs->start[q];
		if (npreds == 0 || !vs->reached[q] || vs->stamp[q] == walk) {
			v = zero_of(vs, vs->types[var]);
			if (v != KL_NONE)
				map_put(vs, var, q, v);
			break;
		}
		if (npreds > 1) {
			v = new_candidate(vs, var, q); /* (remembered) */
			break;
		}
		vs->stamp[q] = walk;
		q = vs->edges[vs->start[q]].src;
		steps++;
		v = map_get(vs, var, q);
		if (v != KL_NONE)
			break;
	}
	if (v == KL_NONE)
		return KL_NONE;
	for (uint32_t b = first; steps-- > 0; b = vs->edges[vs->start[b]].src)
		map_put(vs, var, b, v);
	return v;
}

/*
 * Each candidate's argument on every edge into its block, candidates
 * made on the way included. A candidate of a block with one predecessor
 * gets none: it stands for the value at the end of that predecessor,
 * settled here; most reads before a write are in such blocks, and their
 * arguments would be most of the work. One in a block that cannot run
 * stands for 0. (Either way all of a block's candidates are settled, so
 * its branches never pass arguments for some only.)
 */
static bool
find_arguments(kl_vars *vs)
{
	uint32_t walk = 0;
	for (uint32_t c = 0; c < vs->ncands; c++) {
		candidate p = vs->cands[c];
		uint32_t first = vs->start[p.block];
		uint32_t end = vs->start[p.block + 1];
		if (!vs->reached[p.block] || end - first < 2) {
			bool runs = vs->reached[p.block] && end > first;
			uint32_t v = runs ? value_at_end(vs, p.var,
							 vs->edges[first].src,
							 ++walk)
					  : zero_of(vs, vs->types[p.var]);
			if (v == p.value) /* (check_built rules it out) */
				v = zero_of(vs, vs->types[p.var]);
			vs->cands[c].rep = v;
			if (v == KL_NONE)
				return false;
			continue;
		}
		kl_grow(&vs->arg_vals, &vs->arg_vals_cap, sizeof *vs->arg_vals,
			(uint64_t)vs->narg_vals + (end - first));
		vs->cands[c].args = vs->narg_vals;
		vs->narg_vals += end - first;
		for (uint32_t e = first; e < end; e++) {
			uint32_t v = value_at_end(vs, p.var, vs->edges[e].src,
						  ++walk);
			if (v == KL_NONE)
				return false;
			vs->arg_vals[vs->cands[c].args + (e - first)] = v;
		}
	}
	return true;
}

/*
 * Append the arguments to the branches: on each edge into a block, those
 * of all its candidates at once, in the order the candidates were made
 * (the order of the block's parameters), one list operation an edge.
 */
static bool
append_arguments(kl_vars *vs)
{
	kl_func *f = vs->func;
	uint32_t nb = f->nblocks, n = vs->ncands;
	/* the candidates with arguments, by block, in the order made */
	uint32_t *bstart = kl_calloc((size_t)nb + 1, sizeof *bstart);
	uint32_t *order = kl_malloc(((size_t)n + 1) * sizeof *order);
	for (uint32_t c = 0; c < n; c++)
		if (vs->cands[c].args != KL_NONE)
			bstart[vs->cands[c].block + 1]++;
	for (uint32_t b = 0; b < nb; b++)
		bstart[b + 1] += bstart[b];
	uint32_t *fill = kl_malloc(((size_t)nb + 1) * sizeof *fill);
	memcpy(fill, bstart, ((size_t)nb + 1) * sizeof *fill);
	uint32_t most = 0;
	for (uint32_t c = 0; c < n; c++)
		if (vs->cands[c].args != KL_NONE)
			order[fill[vs->cands[c].block]++] = c;
	for (uint32_t b = 0; b < nb; b++)
		if (bstart[b + 1] - bstart[b] > most)
			most = bstart[b + 1] - bstart[b];
	uint32_t *row = kl_malloc(((size_t)most + 1) * sizeof *row);
	bool ok = true;
	for (uint32_t b = 0; b < nb && ok; b++) {
		uint32_t m = bstart[b + 1] - bstart[b];
		for (uint32_t e = vs->start[b]; m && e < vs->start[b + 1];
		     e++) {
			in_edge ed = vs->edges[e];
			uint32_t have = kl_inst_dest_num_args(
				f, (kl_inst){ ed.inst }, ed.d);
			if ((uint64_t)have + m >= LIST_MAX_LEN) {
				ok = fail(vs, KL_ERR_RANGE, "a branch has too "
					  "many arguments");
				break;
			}
			for (uint32_t k = 0; k < m; k++)
				row[k] = vs->arg_vals
					[vs->cands[order[bstart[b] + k]].args +
					 (e - vs->start[b])];
			inst_dest_append_args(f, ed.inst, ed.d, row, m);
		}
	}
	free(row);
	free(fill);
	free(order);
	free(bstart);
	return ok;
}

/*
 * What finish relies on, checked before it changes anything: every
 * placed block ends in a terminator (a branch not built yet would leave
 * an edge out); a block's own parameters come before its candidates,
 * which are still its parameters; and each branch to a block with
 * candidates passes exactly the block's own parameters' arguments, to
 * which the candidates' are appended (one missing would shift them onto
 * the wrong parameters, unseen by the verifier).
 */
static bool
check_built(kl_vars *vs)
{
	kl_func *f = vs->func;
	for (kl_block b = kl_func_first_block(f); b.id != KL_NONE;
	     b = kl_block_next(f, b))
		if (!kl_block_is_terminated(f, b))
			return fail(vs, KL_ERR_INVALID, "a block in the layout "
				    "has no terminator (finish once every "
				    "block and branch is built)");
	/* (an entry whose only predecessor is itself would read its own
	 * value at its end: a candidate standing for itself) */
	uint32_t entry = kl_func_first_block(f).id;
	if (entry != KL_NONE && vs->start[entry + 1] > vs->start[entry])
		return fail(vs, KL_ERR_INVALID, "a branch goes to the entry "
			    "block, which keel forbids");
	uint32_t *count = kl_calloc(f->nblocks ? f->nblocks : 1,
				    sizeof *count);
	for (uint32_t c = 0; c < vs->ncands; c++)
		count[vs->cands[c].block]++;
	bool ok = true;
	for (uint32_t c = 0; c < vs->ncands && ok; c++) {
		candidate p = vs->cands[c];
		kl_block b = { p.block };
		ok = kl_block_param(f, b, p.index).id == p.value &&
		     p.index >= kl_block_num_params(f, b) - count[p.block];
	}
	if (!ok) {
		free(count);
		return fail(vs, KL_ERR_INVALID, "a block's parameters changed "
			    "after a variable was read in it (add a block's "
			    "own parameters before reading variables there, "
			    "and remove none)");
	}
	for (uint32_t b = 0; b < f->nblocks && ok; b++) {
		if (!count[b])
			continue;
		uint32_t own = kl_block_num_params(f, (kl_block){ b }) -
			       count[b];
		for (uint32_t e = vs->start[b]; e < vs->start[b + 1]; e++)
			ok &= kl_inst_dest_num_args(f,
				(kl_inst){ vs->edges[e].inst },
				vs->edges[e].d) == own;
	}
	free(count);
	return ok || fail(vs, KL_ERR_INVALID, "a branch to a block where a "
			  "variable is read passes another number of "
			  "arguments than the block has parameters of its "
			  "own");
}

/*
 * Redundant candidates go in one walk over the graph whose nodes are the
 * candidates and whose edges lead from each to the candidates among its
 * arguments (on edges that can run), by Tarjan's strongly connected
 * components, as in section 3.2 of the paper:
 *
 *   - Tarjan's algorithm ends each component after every component its
 *     members' arguments lead to, so those are settled when a component
 *     is (arguments are read through find).
 *   - A component whose arguments from outside it are all one value w
 *     stands for w as a whole: inside it, the values only go round. For
 *     a component of one candidate that is the trivial candidate of
 *     section 3.1, all of whose arguments are w or itself; a bigger one
 *     comes only of irreducible loops, where each member has two
 *     different arguments.
 *   - Otherwise the members with no argument from outside (inner) may
 *     still form such components among themselves: they are walked the
 *     same way, as a set of their own, before the walk they came from
 *     goes on (its later components may take them as arguments).
 *   - A component with no argument from outside at all is in code that
 *     never runs, and stands for 0.
 *
 * A value w from outside a component dominates the predecessors that can
 * run of every entry to it, so the component's blocks too (Braun et al.,
 * lemma 3.3). Nothing recurses: the sets being walked are a stack, and
 * each one's depth-first path goes on the frame stack above the path of
 * the set below it (their candidates differ, so n frames are enough for
 * all). A set costs O(its candidates and their arguments), and a
 * candidate is in one set per level of nesting of inner components.
 */
typedef struct scc_set {
	uint32_t id;
	uint32_t begin, end; /* its candidates: queue[begin .. end) */
	uint32_t next;       /* the next one to start a walk from */
	uint32_t fbase, nframes; /* its depth-first path on the frames */
} scc_set;

typedef struct scc_walk {
	kl_vars *vs;
	const uint32_t *cand_of; /* candidate of each value below nv */
	uint32_t nv;
	/* what each value below nv resolves to through the front end's
	 * aliases (NULL: func_resolve_table found no chain) */
	const uint32_t *resolved;
	uint32_t *set_of;  /* the set a candidate was last put in */
	uint32_t *index, *low; /* Tarjan's numbers in that set */
	uint32_t *comp_of; /* the component it ended in */
	bool *on_stack;
	uint32_t *stack, top;         /* Tarjan's stack of candidates */
	uint32_t *frames, *next_edge; /* the depth-first paths */
	uint32_t counter, set_id, nset_ids, comp_id;
	uint32_t *queue, queue_len, queue_cap; /* the sets' candidates */
	/* inner sets put candidates in sets again; past this many in all,
	 * the inner members are left as they are */
	uint64_t requeued, budget;
	scc_set *sets;
	uint32_t nsets, sets_cap;
} scc_walk;

/* What value v stands for: itself, or for a settled candidate, what that
 * stands for (the chain is shortened on the way back). cand_of covers
 * the values below nv (0s made since are no candidates). */
static uint32_t
find(scc_walk *w, uint32_t v)
{
	uint32_t r = v;
	candidate *cands = w->vs->cands;
	while (r < w->nv && w->cand_of[r] != KL_NONE &&
	       cands[w->cand_of[r]].rep != KL_NONE)
		r = cands[w->cand_of[r]].rep;
	while (v != r) {
		uint32_t c = w->cand_of[v];
		v = cands[c].rep;
		cands[c].rep = r;
	}
	return r;
}

/* What candidate c's argument on in-edge e stands for, or KL_NONE when
 * that edge cannot run. */
static uint32_t
argument(scc_walk *w, uint32_t c, uint32_t e)
{
	const kl_vars *vs = w->vs;
	const candidate *p = &vs->cands[c];
	if (!vs->reached[vs->edges[e].src])
		return KL_NONE;
	uint32_t a = vs->arg_vals[p->args + (e - vs->start[p->block])];
	/* (a value written may be an alias: two names, one value) */
	uint32_t r = a < w->nv ? resolve_with(vs->func, w->resolved, a) : a;
	return find(w, r != KL_NONE ? r : a);
}

/* The candidate value v is, in the set being walked, or KL_NONE. */
static uint32_t
member(const scc_walk *w, uint32_t v)
{
	uint32_t c = v < w->nv ? w->cand_of[v] : KL_NONE;
	return c != KL_NONE && w->set_of[c] == w->set_id ? c : KL_NONE;
}

/* Is a, candidate c's argument on some edge, none that counts from
 * outside component id: from no edge that can run, c itself, or a
 * member? */
static bool
from_inside(const scc_walk *w, uint32_t c, uint32_t a, uint32_t id)
{
	uint32_t m = member(w, a);
	return a == KL_NONE || a == w->vs->cands[c].value ||
	       (m != KL_NONE && w->comp_of[m] == id);
}

/* Start walking the candidates queue[begin ..] as a new set, its path
 * above fbase. */
static void
push_set(scc_walk *w, uint32_t begin, uint32_t fbase)
{
	kl_grow(&w->sets, &w->sets_cap, sizeof *w->sets,
		(uint64_t)w->nsets + 1);
	uint32_t id = w->nset_ids++;
	w->sets[w->nsets++] = (scc_set){ id, begin, w->queue_len, begin,
					 fbase, 0 };
	for (uint32_t i = begin; i < w->queue_len; i++) {
		w->set_of[w->queue[i]] = id;
		w->index[w->queue[i]] = KL_NONE;
	}
}

static void
queue_push(scc_walk *w, uint32_t c)
{
	kl_grow(&w->queue, &w->queue_cap, sizeof *w->queue,
		(uint64_t)w->queue_len + 1);
	w->queue[w->queue_len++] = c;
}

/* The component comp[0 .. n), just ended in set s: replace it, or make
 * its inner members a set to walk next. */
static bool
settle_component(scc_walk *w, const scc_set *s, const uint32_t *comp,
		 uint32_t n)
{
	kl_vars *vs = w->vs;
	uint32_t id = ++w->comp_id;
	for (uint32_t i = 0; i < n; i++)
		w->comp_of[comp[i]] = id;
	uint32_t outside = KL_NONE;
	bool several = false;
	for (uint32_t i = 0; i < n && !several; i++) {
		candidate p = vs->cands[comp[i]];
		for (uint32_t e = vs->start[p.block];
		     e < vs->start[p.block + 1] && !several; e++) {
			uint32_t a = argument(w, comp[i], e);
			if (from_inside(w, comp[i], a, id))
				continue;
			several = outside != KL_NONE && a != outside;
			outside = a;
		}
	}
	if (!several) {
		uint32_t var = vs->cands[comp[0]].var;
		if (outside == KL_NONE)
			outside = zero_of(vs, vs->types[var]);
		for (uint32_t i = 0; i < n; i++)
			vs->cands[comp[i]].rep = outside;
		return outside != KL_NONE;
	}
	uint32_t begin = w->queue_len;
	if (w->requeued + n > w->budget)
		return true; /* (see remove_redundant) */
	for (uint32_t i = 0; i < n && n > 1; i++) {
		candidate p = vs->cands[comp[i]];
		bool inner = true;
		for (uint32_t e = vs->start[p.block];
		     e < vs->start[p.block + 1] && inner; e++)
			inner = from_inside(w, comp[i],
					    argument(w, comp[i], e), id);
		if (inner)
			queue_push(w, comp[i]);
	}
	w->requeued += w->queue_len - begin;
	if (w->queue_len > begin)
		push_set(w, begin, s->fbase + s->nframes);
	return true;
}

/* Put candidate c on set s's path. */
static void
enter(scc_walk *w, scc_set *s, uint32_t c)
{
	w->index[c] = w->low[c] = w->counter++;
	w->stack[w->top++] = c;
	w->on_stack[c] = true;
	uint32_t f = s->fbase + s->nframes++;
	w->frames[f] = c;
	w->next_edge[f] = w->vs->start[w->vs->cands[c].block];
}

/* One step of the walk of set s (the top one): follow an edge of the
 * candidate at the end of its path, or leave that candidate, ending its
 * component if it is the component's first. */
static bool
step(scc_walk *w, scc_set *s)
{
	const kl_vars *vs = w->vs;
	uint32_t f = s->fbase + s->nframes - 1, c = w->frames[f];
	uint32_t end = vs->start[vs->cands[c].block + 1];
	while (w->next_edge[f] < end) {
		uint32_t m = member(w, argument(w, c, w->next_edge[f]++));
		if (m == KL_NONE || m == c)
			continue;
		if (w->index[m] == KL_NONE) {
			enter(w, s, m);
			return true;
		}
		if (w->on_stack[m] && w->index[m] < w->low[c])
			w->low[c] = w->index[m];
	}
	s->nframes--;
	if (s->nframes) {
		uint32_t parent = w->frames[f - 1];
		if (w->low[c] < w->low[parent])
			w->low[parent] = w->low[c];
	}
	if (w->low[c] != w->index[c])
		return true;
	uint32_t from = w->top;
	do
		w->on_stack[w->stack[--from]] = false;
	while (w->stack[from] != c);
	uint32_t n = w->top - from;
	w->top = from; /* (a set settle_component starts pushes here) */
	return settle_component(w, s, w->stack + from, n);
}

/* Settle every candidate, then remove those that stand for another
 * value and make each an alias of that value. */
static bool
remove_redundant(kl_vars *vs)
{
	kl_func *f = vs->func;
	uint32_t n = vs->ncands, nv = f->nvalues;
	size_t words = (size_t)n + 1;
	uint32_t *cand_of = kl_malloc(((size_t)nv + 1) * sizeof *cand_of);
	memset(cand_of, 0xff, ((size_t)nv + 1) * sizeof *cand_of);
	for (uint32_t c = 0; c < n; c++)
		cand_of[vs->cands[c].value] = c;
	uint32_t *resolve_buf = NULL, resolve_cap = 0;
	/* Irreducible loops nested d deep put a candidate in up to d sets,
	 * and the sets take room until the walk is done: quadratic on a
	 * pathological nest. The budget keeps time and memory linear; past
	 * it the SSA is still right, only not minimal in such nests. */
	scc_walk w = { .vs = vs, .cand_of = cand_of, .nv = nv,
		       .budget = 4 * (uint64_t)n + 4096 };
	w.resolved = func_resolve_table(f, &resolve_buf, &resolve_cap);
	w.set_of = kl_malloc(words * sizeof *w.set_of);
	w.comp_of = kl_malloc(words * sizeof *w.comp_of);
	memset(w.set_of, 0xff, words * sizeof *w.set_of);
	memset(w.comp_of, 0xff, words * sizeof *w.comp_of);
	w.index = kl_malloc(words * sizeof *w.index);
	w.low = kl_malloc(words * sizeof *w.low);
	w.on_stack = kl_calloc(words, sizeof *w.on_stack);
	w.stack = kl_malloc(words * sizeof *w.stack);
	w.frames = kl_malloc(words * sizeof *w.frames);
	w.next_edge = kl_malloc(words * sizeof *w.next_edge);
	for (uint32_t c = 0; c < n; c++)
		if (vs->cands[c].rep == KL_NONE)
			queue_push(&w, c);
	push_set(&w, 0, 0);
	bool ok = true;
	while (w.nsets && ok) {
		scc_set *s = &w.sets[w.nsets - 1];
		w.set_id = s->id;
		if (s->nframes) {
			ok = step(&w, s);
		} else if (s->next < s->end) {
			uint32_t c = w.queue[s->next++];
			if (w.index[c] == KL_NONE)
				enter(&w, s, c);
		} else {
			w.queue_len = s->begin;
			w.nsets--;
		}
	}
	uint32_t ngone = 0;
	kl_value *gone = kl_malloc(words * sizeof *gone);
	for (uint32_t c = 0; c < n && ok; c++)
		if (vs->cands[c].rep != KL_NONE)
			gone[ngone++] = (kl_value){ vs->cands[c].value };
	if (ok && func_remove_params(f, gone, ngone, true) != KL_OK)
		ok = fail(vs, KL_ERR_INVALID, "a variable's parameter could "
			  "not be removed");
	for (uint32_t i = 0; i < ngone && ok; i++) {
		kl_value to = { find(&w, gone[i].id) };
		if (kl_value_set_alias(f, gone[i], to) != KL_OK)
			ok = fail(vs, KL_ERR_INVALID, "a variable's value is "
				  "defined nowhere in the layout");
	}
	free(gone);
	free(w.set_of);
	free(w.comp_of);
	free(w.index);
	free(w.low);
	free(w.on_stack);
	free(w.stack);
	free(w.frames);
	free(w.next_edge);
	free(w.queue);
	free(w.sets);
	free(resolve_buf);
	free(cand_of);
	return ok;
}

kl_status
kl_vars_finish(kl_vars *vs)
{
	if (!ready(vs))
		return vs->status;
	vs->finished = true;
	let_go(vs);
	collect_edges(vs);
	if (!check_built(vs))
		return vs->status;
	mark_reached(vs);
	if (!find_arguments(vs) || !append_arguments(vs) ||
	    !remove_redundant(vs))
		return vs->status;
	kl_func_resolve_aliases(vs->func);
	return KL_OK;
}
