/*
 * simplify.c -- control-flow simplification: fewer blocks and branches,
 * the same computation.
 *
 * Three rewrites, in this order, each one walk:
 * 1. A brif or br_table whose destinations are all one block with the
 *    same arguments becomes a jump (sccp leaves such branches when it
 *    makes both arms of an if one value).
 * 2. A block that only jumps on (an empty block: no instruction but its
 *    jump) is skipped: every branch to it goes to its target instead,
 *    with the arguments it would have passed, its own parameters
 *    replaced by what that branch passes for them; then nothing branches
 *    to it and it goes. Not when its parameters are used anywhere but in
 *    its own jump: the blocks it dominates may use them.
 * 3. A block whose only predecessor ends in a jump to it is merged into
 *    that predecessor: its parameters become aliases of the jump's
 *    arguments and its instructions move up. Chains merge whole.
 *
 * Skipping goes target first (a chain of empty blocks becomes one branch
 * to the chain's end, each edge rewritten once); a cycle of empty blocks
 * (a loop doing nothing, for ever) keeps the block that closes it. A
 * brif that skipping makes one-way becomes a jump at once, and its block
 * is visited again if that leaves it empty. Merging goes from the head
 * of each line, so each instruction moves once. Blocks the entry does
 * not reach are left for dce. One round, not a fixed point: a br_table
 * made one-way by skipping, an empty block that merging makes, and a
 * branch whose arms merging makes alike wait for another run.
 */
#include <stdlib.h>
#include <string.h>

#include "../ir/ir.h"
#include "../util/util.h"
#include "edges.h"
#include "pass.h"

enum { NOT_SEEN, RESOLVING, RESOLVED };

/* An edge into a block added to its list after the list was made. */
typedef struct added_in_edge {
	in_edge edge;
	uint32_t next; /* the one added before it, or KL_NONE */
} added_in_edge;

/* Scratch kept from one function to the next (a pass report's state). */
typedef struct simplify {
	in_edges in;
	uint32_t *heads;     /* by block: its last added edge, or KL_NONE */
	added_in_edge *added;
	uint32_t *srcs;      /* the blocks whose edges a skip moved */
	uint32_t nadded, added_cap, srcs_cap;
	bool *reached;       /* by block */
	uint8_t *state;      /* by block: skipping's NOT_SEEN ... */
	uint32_t *stack;     /* by block: reachability, then skipping */
	uint32_t *order;     /* blocks for skipping to visit: the layout, then
			      * those a skip made empty */
	uint32_t norder, order_cap;
	uint32_t *uses;      /* by value: its uses but as an argument of its
			      * own block's jump */
	uint32_t *param_at;  /* by value: its place among its block's */
	uint32_t *alias_to;  /* by value: a merged parameter's argument */
	uint32_t *resolved;  /* func_resolve_table's buffer */
	kl_value *args;      /* a destination's new arguments */
	kl_value *merged;    /* merged blocks' parameters, in merge order */
	uint32_t blocks_cap, values_cap, resolved_cap, args_cap, merged_cap;
	uint32_t nmerged;
	uint64_t jumps;      /* branches skipping made jumps */
} simplify;

static void
simplify_free(void *state)
{
	simplify *s = state;
	if (!s)
		return;
	in_edges_free(&s->in);
	free(s->heads);
	free(s->added);
	free(s->srcs);
	free(s->reached);
	free(s->state);
	free(s->stack);
	free(s->order);
	free(s->uses);
	free(s->param_at);
	free(s->alias_to);
	free(s->resolved);
	free(s->args);
	free(s->merged);
	free(s);
}

static void *
simplify_new(void)
{
	return kl_calloc(1, sizeof(simplify));
}

static void
simplify_size(simplify *s, const kl_func *f)
{
	uint64_t nb = (uint64_t)f->nblocks + 1, nv = (uint64_t)f->nvalues + 1;
	pass_grow_all(&s->blocks_cap, nb, 4,
		      (void **[]){ (void **)&s->reached, (void **)&s->state,
				   (void **)&s->stack, (void **)&s->heads },
		      (const size_t[]){ sizeof *s->reached, sizeof *s->state,
					sizeof *s->stack, sizeof *s->heads });
	/* (a block is visited twice at most: a skip makes it empty once) */
	kl_grow(&s->order, &s->order_cap, sizeof *s->order, 2 * nb);
	pass_grow_all(&s->values_cap, nv, 3,
		      (void **[]){ (void **)&s->uses, (void **)&s->alias_to,
				   (void **)&s->param_at },
		      (const size_t[]){ sizeof *s->uses, sizeof *s->alias_to,
					sizeof *s->param_at });
	memset(s->state, 0, f->nblocks);
	memset(s->heads, 0xff, (size_t)f->nblocks * sizeof *s->heads);
	s->nadded = 0;
	memset(s->uses, 0, (size_t)f->nvalues * sizeof *s->uses);
	memset(s->alias_to, 0xff, (size_t)f->nvalues * sizeof *s->alias_to);
	s->nmerged = 0;
	s->jumps = 0;
}

static kl_value *
args_room(simplify *s, uint64_t n)
{
	kl_grow(&s->args, &s->args_cap, sizeof *s->args, n + 1);
	return s->args;
}

/* Do destinations d and e of branch i go to one block with the same
 * arguments (resolved through aliases)? */
static bool
same_dest(const kl_func *f, const uint32_t *table, kl_inst i, uint32_t d,
	  uint32_t e)
{
	if (kl_inst_dest(f, i, d).id != kl_inst_dest(f, i, e).id)
		return false;
	uint32_t n = kl_inst_dest_num_args(f, i, d);
	if (n != kl_inst_dest_num_args(f, i, e))
		return false;
	for (uint32_t k = 0; k < n; k++)
		if (resolve_with(f, table, kl_inst_dest_arg(f, i, d, k).id) !=
		    resolve_with(f, table, kl_inst_dest_arg(f, i, e, k).id))
			return false;
	return true;
}

/* Block bl's brif or br_table, if all its destinations are one block
 * with the same arguments, becomes a jump; whether it did. */
static bool
one_way(simplify *s, kl_func *f, const uint32_t *table, uint32_t bl)
{
	kl_inst t = { f->blocks[bl].last };
	uint32_t nd = t.id != KL_NONE ? kl_inst_num_dests(f, t) : 0;
	if (nd < 2)
		return false;
	for (uint32_t d = 1; d < nd; d++)
		if (!same_dest(f, table, t, 0, d))
			return false;
	uint32_t na = kl_inst_dest_num_args(f, t, 0);
	kl_value *args = args_room(s, na);
	for (uint32_t k = 0; k < na; k++)
		args[k] = kl_inst_dest_arg(f, t, 0, k);
	kl_builder b;
	kl_builder_init(&b, f);
	kl_builder_before(&b, t);
	kl_build_jump(&b, (kl_block_call){ kl_inst_dest(f, t, 0), args, na });
	kl_inst_remove(f, t);
	return true;
}

/* Step 1: the one-way branches of reachable blocks become jumps. */
static uint64_t
one_way_branches(simplify *s, kl_func *f)
{
	const uint32_t *table =
		func_resolve_table(f, &s->resolved, &s->resolved_cap);
	uint64_t n = 0;
	for (uint32_t bl = f->first_block; bl != KL_NONE;
	     bl = f->blocks[bl].next)
		n += s->reached[bl] && one_way(s, f, table, bl);
	return n;
}

/* Is v a parameter of block b? */
static bool
param_of(const kl_func *f, uint32_t v, uint32_t b)
{
	return v < f->nvalues && f->values[v].kind == VK_PARAM &&
	       value_def_block(f, v) == b;
}

/* Add delta to the uses of the arguments of destination d of branch i
 * in block b, but for b's parameters passed by b's jump. */
static void
count_args(simplify *s, const kl_func *f, const uint32_t *table, uint32_t b,
	   uint32_t i, uint32_t d, uint32_t delta)
{
	const uint32_t *dests, *args;
	uint32_t t, na;
	if (d >= inst_dests(f, i, &dests) ||
	    !dest_read(&f->pool, dests[d], &t, &args, &na))
		return;
	bool own = f->insts[i].op == KL_OP_JUMP && i == f->blocks[b].last;
	for (uint32_t k = 0; k < na; k++) {
		uint32_t v = resolve_with(f, table, args[k]);
		if (v < f->nvalues && !(own && param_of(f, v, b)))
			s->uses[v] += delta;
	}
}

/* Count every value's uses, through aliases, but a parameter's as an
 * argument of its own block's jump. */
static void
count_uses(simplify *s, const kl_func *f, const uint32_t *table)
{
	for (uint32_t b = f->first_block; b != KL_NONE;
	     b = f->blocks[b].next) {
		for (uint32_t i = f->blocks[b].first; i != KL_NONE;
		     i = f->nodes[i].next) {
			const uint32_t *vals, *dests;
			uint32_t n = inst_args(f, i, &vals);
			for (uint32_t k = 0; k < n; k++) {
				uint32_t v = resolve_with(f, table, vals[k]);
				if (v < f->nvalues)
					s->uses[v]++;
			}
			uint32_t nd = inst_dests(f, i, &dests);
			for (uint32_t d = 0; d < nd; d++)
				count_args(s, f, table, b, i, d, 1);
		}
	}
}

/* Is block b empty but for its jump to another block: reachable, not
 * the entry? */
static bool
empty(const simplify *s, const kl_func *f, uint32_t b)
{
	uint32_t j = b < f->nblocks ? f->blocks[b].first : KL_NONE;
	return j != KL_NONE && s->reached[b] && b != f->first_block &&
	       j == f->blocks[b].last && f->insts[j].op == KL_OP_JUMP &&
	       kl_inst_dest(f, (kl_inst){ j }, 0).id != b;
}

/* Are block b's parameters used only by its jump? */
static bool
params_free(const simplify *s, const kl_func *f, uint32_t b)
{
	uint32_t params = f->blocks[b].params;
	for (uint32_t k = 0, n = list_len(&f->pool, params); k < n; k++) {
		uint32_t v = list_get(&f->pool, params, k);
		if (v < f->nvalues && s->uses[v])
			return false;
	}
	return true;
}

/* Does edge ed go into block b now: is its branch still its block's
 * terminator, and its destination b? The lists of edges into a block are
 * made once, and skipping adds to them (added_edge), so some entries
 * are stale: an edge moved on, a branch that became a jump. */
static bool
edge_into(const kl_func *f, in_edge ed, uint32_t b)
{
	kl_inst i = { ed.inst };
	return f->blocks[ed.src].last == ed.inst &&
	       kl_inst_block(f, i).id == ed.src &&
	       ed.d < kl_inst_num_dests(f, i) &&
	       kl_inst_dest(f, i, ed.d).id == b;
}

/* Edge ed goes into block b now. */
static void
added_edge(simplify *s, in_edge ed, uint32_t b)
{
	kl_grow(&s->added, &s->added_cap, sizeof *s->added,
		(uint64_t)s->nadded + 1);
	s->added[s->nadded] = (added_in_edge){ ed, s->heads[b] };
	s->heads[b] = s->nadded++;
}

/* Where a walk over the edges into a block stands: at an original one,
 * then at an added one. */
typedef struct edge_cursor {
	uint32_t orig;  /* the next original edge, from 0 */
	uint32_t added; /* the next added edge, or KL_NONE */
	bool started;   /* at the added ones */
} edge_cursor;

/* The next edge into block b that is one now, into *out; false when
 * there are no more. The original ones first, then those added. */
static bool
next_edge(const simplify *s, const kl_func *f, uint32_t b, edge_cursor *c,
	  in_edge *out)
{
	uint32_t norig = s->in.start[b + 1] - s->in.start[b];
	while (c->orig < norig) {
		*out = s->in.edges[s->in.start[b] + c->orig++];
		if (edge_into(f, *out, b))
			return true;
	}
	if (!c->started) {
		c->started = true;
		c->added = s->heads[b];
	}
	while (c->added != KL_NONE) {
		*out = s->added[c->added].edge;
		c->added = s->added[c->added].next;
		if (edge_into(f, *out, b))
			return true;
	}
	return false;
}

/*
 * Block src's branch, one of whose destinations into a skipped block now
 * goes to `to`: a brif whose arms both go there alike becomes a jump (the
 * jump's edge then counts into `to`), and src is visited again if that
 * leaves it empty. Not a br_table: finding one of n entries all alike
 * after each of them moved would be n^2 (a switch whose empty cases all
 * lead to one block); step 1 takes those that are alike before skipping,
 * and a second run the others.
 */
static void
after_retarget(simplify *s, kl_func *f, const uint32_t *table, uint32_t src,
	       uint32_t to)
{
	kl_inst t = { f->blocks[src].last };
	if (t.id == KL_NONE || f->insts[t.id].op != KL_OP_BRIF ||
	    !same_dest(f, table, t, 0, 1))
		return;
	for (uint32_t d = 0; d < 2; d++)
		count_args(s, f, table, src, t.id, d, (uint32_t)-1);
	/* (the condition: a use that goes with the branch) */
	uint32_t cond = resolve_with(f, table, kl_inst_arg(f, t, 0).id);
	if (cond < f->nvalues && s->uses[cond])
		s->uses[cond]--;
	one_way(s, f, table, src);
	t = (kl_inst){ f->blocks[src].last };
	count_args(s, f, table, src, t.id, 0, 1);
	s->jumps++;
	added_edge(s, (in_edge){ src, t.id, 0 }, to);
	if (s->state[src] == NOT_SEEN && empty(s, f, src))
		s->order[s->norder++] = src;
}

/* Every edge into skippable block b goes where b's jump goes, with b's
 * parameters in its arguments replaced by what the edge passed; then b
 * goes. */
static void
skip_block(simplify *s, kl_func *f, const uint32_t *table, uint32_t b)
{
	kl_inst j = { f->blocks[b].last };
	kl_block to = kl_inst_dest(f, j, 0);
	uint32_t n = kl_inst_dest_num_args(f, j, 0);
	kl_value *args = args_room(s, n);
	uint32_t params = f->blocks[b].params;
	for (uint32_t k = 0, np = list_len(&f->pool, params); k < np; k++) {
		uint32_t v = list_get(&f->pool, params, k);
		if (v < f->nvalues)
			s->param_at[v] = k;
	}
	count_args(s, f, table, b, j.id, 0, (uint32_t)-1);
	uint32_t nsrc = 0;
	edge_cursor cur = { 0, KL_NONE, false };
	in_edge ed;
	while (next_edge(s, f, b, &cur, &ed)) {
		kl_inst i = { ed.inst };
		count_args(s, f, table, ed.src, ed.inst, ed.d, (uint32_t)-1);
		for (uint32_t k = 0; k < n; k++) {
			kl_value a = kl_inst_dest_arg(f, j, 0, k);
			uint32_t r = resolve_with(f, table, a.id);
			args[k] = param_of(f, r, b)
					  ? kl_inst_dest_arg(f, i, ed.d,
							     s->param_at[r])
					  : a;
		}
		kl_inst_set_dest(f, i, ed.d, (kl_block_call){ to, args, n });
		count_args(s, f, table, ed.src, ed.inst, ed.d, 1);
		added_edge(s, ed, to.id);
		kl_grow(&s->srcs, &s->srcs_cap, sizeof *s->srcs,
			(uint64_t)nsrc + 1);
		s->srcs[nsrc++] = ed.src;
	}
	kl_func_remove_block(f, (kl_block){ b });
	for (uint32_t k = 0; k < nsrc; k++)
		after_retarget(s, f, table, s->srcs[k], to.id);
}

/*
 * Step 2: skip the empty blocks, each after the block it jumps to, so
 * that an edge is rewritten once, to its chain's end. The stack holds
 * the chain being resolved; a block that jumps to one of the chain (a
 * cycle of empty blocks) stays, and the rest of the chain then jumps to
 * it. Whether a block's parameters are used elsewhere is asked when its
 * turn comes: a use in the jump of an empty block after it has moved
 * into its own jump by then, when that block was skipped.
 */
static uint64_t
skip_empty_blocks(simplify *s, kl_func *f)
{
	const uint32_t *table =
		func_resolve_table(f, &s->resolved, &s->resolved_cap);
	count_uses(s, f, table);
	in_edges_collect(&s->in, f);
	s->norder = 0;
	for (uint32_t b = f->first_block; b != KL_NONE; b = f->blocks[b].next)
		s->order[s->norder++] = b;
	uint64_t n = 0;
	for (uint32_t k = 0; k < s->norder; k++) {
		uint32_t top = 0;
		if (s->state[s->order[k]] == NOT_SEEN &&
		    empty(s, f, s->order[k])) {
			s->state[s->order[k]] = RESOLVING;
			s->stack[top++] = s->order[k];
		}
		while (top) {
			uint32_t c = s->stack[top - 1];
			kl_inst j = { f->blocks[c].last };
			uint32_t t = kl_inst_dest(f, j, 0).id;
			if (empty(s, f, t) && s->state[t] == NOT_SEEN) {
				s->state[t] = RESOLVING;
				s->stack[top++] = t;
				continue;
			}
			top--;
			s->state[c] = RESOLVED;
			if ((t >= f->nblocks || s->state[t] != RESOLVING) &&
			    params_free(s, f, c)) {
				skip_block(s, f, table, c);
				n++;
			}
		}
	}
	return n;
}

/* Merge the block that block a jumps to into a, if a's jump is its one
 * edge in; whether it did. */
static bool
merge_next(simplify *s, kl_func *f, const uint32_t *table, uint32_t a)
{
	kl_inst j = { f->blocks[a].last };
	if (j.id == KL_NONE || f->insts[j.id].op != KL_OP_JUMP)
		return false;
	uint32_t b = kl_inst_dest(f, j, 0).id;
	if (b >= f->nblocks || b == a || b == f->first_block ||
	    s->in.start[b + 1] - s->in.start[b] != 1)
		return false;
	uint32_t params = f->blocks[b].params;
	uint32_t np = list_len(&f->pool, params);
	if (kl_inst_dest_num_args(f, j, 0) != np)
		return false;
	for (uint32_t k = 0; k < np; k++) {
		uint32_t v = kl_inst_dest_arg(f, j, 0, k).id;
		if (param_of(f, resolve_with(f, table, v), b))
			return false; /* (broken input: b passes itself) */
	}
	kl_grow(&s->merged, &s->merged_cap, sizeof *s->merged,
		(uint64_t)s->nmerged + np);
	for (uint32_t k = 0; k < np; k++) {
		uint32_t p = list_get(&f->pool, params, k);
		if (p >= f->nvalues)
			continue;
		s->alias_to[p] = kl_inst_dest_arg(f, j, 0, k).id;
		s->merged[s->nmerged++] = (kl_value){ p };
	}
	kl_inst_remove(f, j);
	for (uint32_t i = f->blocks[b].first; i != KL_NONE;) {
		uint32_t next = f->nodes[i].next;
		kl_inst_move_to_end(f, (kl_inst){ i }, (kl_block){ a });
		i = next;
	}
	kl_func_remove_block(f, (kl_block){ b });
	s->reached[b] = false;
	return true;
}

/* What merged parameter p stands for at the end of the chain of merged
 * parameters its argument starts, each on the way then pointed straight
 * there (path compression: a line laid out backwards, each block passing
 * its parameter on, would otherwise walk 1 + 2 + ... + n steps). On
 * broken input the chain may be a cycle: at most nmerged steps. */
static uint32_t
final_argument(simplify *s, const kl_func *f, uint32_t p)
{
	uint32_t t = s->alias_to[p];
	for (uint32_t steps = 0; t < f->nvalues && s->alias_to[t] != KL_NONE &&
	     steps < s->nmerged; steps++)
		t = s->alias_to[t];
	for (uint32_t x = p, steps = 0; x < f->nvalues && x != t &&
	     s->alias_to[x] != KL_NONE && steps < s->nmerged; steps++) {
		uint32_t next = s->alias_to[x];
		s->alias_to[x] = t;
		x = next;
	}
	return t;
}

/* Will block a be merged into the block before it: is its one edge in a
 * jump from another reachable block? Then the head of its line merges it,
 * and a does not take the blocks after it first: a line laid out
 * backwards would move its instructions once for each block before
 * them, 1 + 2 + ... + n moves. */
static bool
merged_later(const simplify *s, const kl_func *f, uint32_t a)
{
	if (a == f->first_block || s->in.start[a + 1] - s->in.start[a] != 1)
		return false;
	uint32_t j = s->in.edges[s->in.start[a]].inst;
	uint32_t from = kl_inst_block(f, (kl_inst){ j }).id;
	return f->insts[j].op == KL_OP_JUMP && from != a &&
	       from < f->nblocks && s->reached[from];
}

/*
 * Step 3: merge each block whose one edge in is a jump into the block
 * that jumps, down chains. The merged blocks' parameters go in one walk
 * at the end (kl_func_remove_params; one walk for each merge would be
 * quadratic), then become aliases of their arguments, followed through
 * the parameters of blocks merged too.
 */
static uint64_t
merge_blocks(simplify *s, kl_func *f)
{
	in_edges_collect(&s->in, f);
	const uint32_t *table =
		func_resolve_table(f, &s->resolved, &s->resolved_cap);
	uint64_t n = 0;
	for (uint32_t a = f->first_block; a != KL_NONE; a = f->blocks[a].next) {
		if (!s->reached[a] || merged_later(s, f, a))
			continue;
		while (merge_next(s, f, table, a))
			n++;
	}
	if (!s->nmerged ||
	    func_remove_params(f, s->merged, s->nmerged, false) != KL_OK)
		return n;
	for (uint32_t k = 0; k < s->nmerged; k++) {
		uint32_t p = s->merged[k].id;
		kl_value_set_alias(f, (kl_value){ p },
				   (kl_value){ final_argument(s, f, p) });
	}
	return n;
}

static const char *const counter_names[3] = { "jumps", "skipped",
					      "merged" };

kl_status
kl_simplify_func(kl_func *f, kl_pass_report *rep)
{
	func_edited(f);
	if (f->first_block == KL_NONE)
		return KL_OK;
	bool keep;
	simplify *s = pass_scratch(rep, simplify_free, simplify_new, &keep);
	simplify_size(s, f);
	blocks_reached(f, s->reached, s->stack);
	uint64_t count[3] = { 0 };
	count[0] = one_way_branches(s, f);
	count[1] = skip_empty_blocks(s, f);
	count[0] += s->jumps;
	count[2] = merge_blocks(s, f);
	for (int k = 0; k < 3; k++)
		kl_pass_report_count(rep, counter_names[k], count[k]);
	if (!keep)
		simplify_free(s);
	return KL_OK;
}
