/*
 * licm.c -- loop-invariant code motion: an instruction without effect
 * whose operands are all defined outside a loop moves out of it, to the
 * loop's preheader (a block that runs once before the loop is entered),
 * out of as many nested loops as its operands allow, in one move.
 *
 * Which loop an instruction can leave is read off the dominator tree.
 * Its operands are defined in blocks that dominate it, and so are the
 * headers of the loops around it: all lie on the tree's path from the
 * entry to its block. A loop around it contains an operand's block
 * exactly when the loop's header dominates that block, that is, when the
 * header is no deeper on that path. So with each block keyed by its
 * depth (twice it: a preheader made here sits between its header and
 * the header's parent, at an odd key), the instruction leaves every loop
 * around it whose header is deeper than its deepest operand; the
 * outermost of those is found by jumping up the loop tree by powers of
 * two, and the instruction moves to that loop's preheader. Blocks are
 * walked in reverse post-order, so an operand has moved before its users
 * are looked at, and the users follow it out.
 *
 * What moves: instructions of one result, without effect and that cannot
 * trap (kl_op_is_pure: arithmetic but division by a value, compares,
 * conversions, select, constants, symbol addresses). Not allocas (one
 * object each time round), calls or division by a value (it could trap
 * where the loop would not have run it). Moving them runs them once per
 * entry of the loop, even on an entry that would not have reached them:
 * they cannot trap, so that changes no result.
 *
 * A load moves too, out of its innermost loop only, when nothing in that
 * loop (nested loops' blocks included) may write its bytes (alias.c:
 * no store to its object, and for an object a pointer can reach, no
 * call or store through an unknown address; for a load through an
 * unknown address, no call and no store but to allocas whose address
 * does not escape; and no alloca), the load is in the loop's header and
 * nothing before it there that stays can trap or has an effect: the
 * header runs first whenever the loop is entered, so the load ran (and
 * trapped, if it did) before anything else the loop does, and read the
 * same bytes every time round.
 *
 * The preheader is the block before the header when it is the only way
 * into the loop and ends in a jump to the header; otherwise a new block
 * with the header's parameters, jumping to the header with them, takes
 * every edge into the loop from outside. It is made only when something
 * moves.
 */
#include <stdlib.h>
#include <string.h>

#include "../ir/ir.h"
#include "../util/util.h"
#include "alias.h"
#include "edges.h"
#include "pass.h"

/* The objects a loop's summary lists; more, and it says "anything". */
#define LOOP_OBJECTS 6

enum {
	WRITES_SHARED = 1, /* a call or a store through an unknown address:
			    * any object a pointer can reach */
	WRITES_ALL = 2,    /* more objects than the list holds, or an
			    * alloca (it makes memory: see summarize) */
};

/* What a loop may write (its nested loops' blocks included). */
typedef struct loop_writes {
	uint8_t how;                 /* WRITES_* */
	uint8_t n;                   /* objects listed */
	uint32_t obj[LOOP_OBJECTS];  /* alias_object's numbers */
} loop_writes;

/* Scratch kept from one function to the next (a pass report's state). */
typedef struct licm {
	kl_cfg *cfg;
	kl_domtree *dt;
	kl_loops *lf;
	uint32_t *key;       /* by block: twice its depth in the tree */
	uint32_t *up;        /* up[j * nloops + l]: l's 2^j-th parent loop */
	uint32_t *preheader; /* by loop: the block moved into, or KL_NONE */
	uint32_t *jump;      /* by loop: its preheader's jump, taken out */
	loop_writes *writes; /* by loop: what it may write */
	uint32_t *order;     /* loops, deepest first */
	uint32_t *at_depth;  /* loops of each depth, then where they start */
	alias_info alias;
	in_edges in;         /* into each block, made when first asked */
	bool edges_made;
	bool summarized;     /* writes[] made (for this function) */
	uint32_t deepest;    /* the deepest loop's depth */
	kl_value *args;      /* a destination's arguments, copied */
	uint32_t *resolved;  /* func_resolve_table's buffer */
	const uint32_t *table;
	uint32_t key_len; /* keys set (the rest of key_cap is not) */
	uint32_t key_cap, up_cap, loops_cap, args_cap, depths_cap;
	uint32_t resolved_cap;
	uint32_t nloops, levels;
	uint64_t made; /* preheaders made */
} licm;

static void
licm_free(void *state)
{
	licm *s = state;
	if (!s)
		return;
	kl_cfg_free(s->cfg);
	kl_domtree_free(s->dt);
	kl_loops_free(s->lf);
	free(s->key);
	free(s->up);
	free(s->preheader);
	free(s->jump);
	free(s->writes);
	free(s->order);
	free(s->at_depth);
	alias_free(&s->alias);
	in_edges_free(&s->in);
	free(s->args);
	free(s->resolved);
	free(s);
}

static void *
licm_new(void)
{
	licm *s = kl_calloc(1, sizeof *s);
	s->cfg = kl_cfg_new();
	s->dt = kl_domtree_new();
	s->lf = kl_loops_new();
	return s;
}

/* Block b's key; KL_NONE for one out of reach (a block made here that is
 * no preheader, or none: broken input), which nothing moves above. */
static uint32_t
key_of(const licm *s, kl_block b)
{
	return b.id < s->key_len ? s->key[b.id] : KL_NONE;
}

/* The key of loop l's header. */
static uint32_t
header_key(const licm *s, uint32_t l)
{
	return key_of(s, kl_loop_header(s->lf, (kl_loop){ l }));
}

/* Add object x to what w may write. */
static void
add_object(loop_writes *w, uint32_t x)
{
	for (uint32_t k = 0; k < w->n; k++)
		if (w->obj[k] == x)
			return;
	if (w->n == LOOP_OBJECTS)
		w->how |= WRITES_ALL;
	else
		w->obj[w->n++] = x;
}

/* What instruction i may write, into w. */
static void
note_write(licm *s, loop_writes *w, const kl_func *f, kl_inst i)
{
	const kl_opinfo *info = &kl_op_table[kl_inst_opcode(f, i)];
	if (info->format == KL_FMT_ALLOCA ||
	    info->format == KL_FMT_ALLOCA_DYN) {
		w->how |= WRITES_ALL;
	} else if (info->flags & KL_OPF_CALL) {
		w->how |= WRITES_SHARED;
	} else if (info->format == KL_FMT_STORE) {
		mem_place p = alias_place(&s->alias, i.id);
		uint32_t x = alias_object(&s->alias, &p);
		if (x == KL_NONE)
			w->how |= WRITES_SHARED;
		else
			add_object(w, x);
	}
}

/* Each loop's writes: its own blocks', then its nested loops' folded
 * in, deepest loops first (each loop once, whatever the nesting). An
 * alloca counts as writing anything: it makes memory, which the
 * interpreter may fail to give (trapping stack_overflow before a load
 * it preceded in the header, which would trap first moved out). */
static void
summarize_writes(licm *s, const kl_func *f)
{
	uint32_t nl = s->nloops, deepest = s->deepest;
	s->summarized = true;
	alias_compute(&s->alias, f, s->table);
	for (kl_block b = kl_func_first_block(f); b.id != KL_NONE;
	     b = kl_block_next(f, b)) {
		uint32_t l = kl_loops_innermost(s->lf, b).id;
		if (l == KL_NONE || (s->writes[l].how & WRITES_ALL))
			continue;
		for (kl_inst i = kl_block_first_inst(f, b); i.id != KL_NONE;
		     i = kl_inst_next(f, i))
			note_write(s, &s->writes[l], f, i);
	}
	/* loops by depth, deepest first (a counting sort) */
	kl_grow(&s->at_depth, &s->depths_cap, sizeof *s->at_depth,
		(uint64_t)deepest + 2);
	memset(s->at_depth, 0, ((size_t)deepest + 2) * sizeof *s->at_depth);
	for (uint32_t l = 0; l < nl; l++)
		s->at_depth[deepest - kl_loop_depth(s->lf, (kl_loop){ l }) +
			    1]++;
	for (uint32_t d = 1; d <= deepest + 1; d++)
		s->at_depth[d] += s->at_depth[d - 1];
	for (uint32_t l = 0; l < nl; l++)
		s->order[s->at_depth[deepest -
				     kl_loop_depth(s->lf, (kl_loop){ l })]++] =
			l;
	for (uint32_t k = 0; k < nl; k++) {
		uint32_t l = s->order[k], up = s->up[l];
		if (up == KL_NONE)
			continue;
		const loop_writes *w = &s->writes[l];
		s->writes[up].how |= w->how;
		for (uint32_t j = 0; j < w->n; j++)
			add_object(&s->writes[up], w->obj[j]);
	}
}

/* May loop l write bytes the load at p reads? */
static bool
writes_place(const licm *s, uint32_t l, const mem_place *p)
{
	const loop_writes *w = &s->writes[l];
	if (w->how & WRITES_ALL)
		return true;
	uint32_t x = alias_object(&s->alias, p);
	if (x == KL_NONE) {
		/* through an unknown address: anything a pointer reaches */
		if (w->how & WRITES_SHARED)
			return true;
		for (uint32_t k = 0; k < w->n; k++)
			if (alias_object_reachable(&s->alias, w->obj[k]))
				return true;
		return false;
	}
	for (uint32_t k = 0; k < w->n; k++)
		if (w->obj[k] == x)
			return true;
	return (w->how & WRITES_SHARED) && alias_call_reaches(&s->alias, p);
}

/* Keys from the dominator tree, in reverse post-order (a block's
 * immediate dominator first); the loop tree's jumps. */
static void
licm_size(licm *s, kl_func *f)
{
	uint32_t nb = kl_func_block_bound(f), n;
	kl_grow(&s->key, &s->key_cap, sizeof *s->key, (uint64_t)nb + 1);
	memset(s->key, 0xff, (size_t)nb * sizeof *s->key);
	s->key_len = nb;
	const kl_block *post = kl_domtree_postorder(s->dt, &n);
	for (uint32_t k = n; k-- > 0;) {
		kl_block idom = kl_domtree_idom(s->dt, post[k]);
		s->key[post[k].id] = idom.id == KL_NONE ? 2
							: s->key[idom.id] + 2;
	}
	uint32_t nl = kl_loops_count(s->lf), deepest = 0;
	for (uint32_t l = 0; l < nl; l++) {
		uint32_t d = kl_loop_depth(s->lf, (kl_loop){ l });
		deepest = d > deepest ? d : deepest;
	}
	uint32_t levels = 1;
	while (levels < 32 && (1u << levels) <= deepest)
		levels++;
	s->nloops = nl;
	s->levels = levels;
	kl_grow(&s->up, &s->up_cap, sizeof *s->up,
		(uint64_t)nl * levels + 1);
	pass_grow_all(&s->loops_cap, (uint64_t)nl + 1, 4,
		      (void **[]){ (void **)&s->preheader, (void **)&s->jump,
				   (void **)&s->writes, (void **)&s->order },
		      (const size_t[]){ sizeof *s->preheader,
					sizeof *s->jump, sizeof *s->writes,
					sizeof *s->order });
	for (uint32_t l = 0; l < nl; l++) {
		s->up[l] = kl_loop_parent(s->lf, (kl_loop){ l }).id;
		s->preheader[l] = s->jump[l] = KL_NONE;
		s->writes[l] = (loop_writes){ 0 };
	}
	s->deepest = deepest;
	s->summarized = false; /* (when a load first asks: most functions
				* have none in a loop's header) */
	for (uint32_t j = 1; j < levels; j++)
		for (uint32_t l = 0; l < nl; l++) {
			uint32_t half = s->up[(j - 1) * nl + l];
			s->up[j * nl + l] = half == KL_NONE
				? KL_NONE : s->up[(j - 1) * nl + half];
		}
	s->edges_made = false;
	s->made = 0;
}

/* Is an edge from block src into loop l's header a way into the loop:
 * from outside it, and from a block that can run? */
static bool
way_in(const licm *s, uint32_t l, uint32_t src)
{
	return key_of(s, (kl_block){ src }) != KL_NONE &&
	       !kl_loop_contains(s->lf, (kl_loop){ l }, (kl_block){ src });
}

/* Loop l's preheader, made if it has none: the block everything moving
 * out of l goes to the end of. */
static kl_block
preheader_of(licm *s, kl_func *f, uint32_t l)
{
	/* (before any jump is taken out: move_out) */
	if (!s->edges_made) {
		in_edges_collect(&s->in, f);
		s->edges_made = true;
	}
	if (s->preheader[l] != KL_NONE)
		return (kl_block){ s->preheader[l] };
	kl_block h = kl_loop_header(s->lf, (kl_loop){ l });
	const in_edge *in = s->in.edges + s->in.start[h.id];
	uint32_t n = s->in.start[h.id + 1] - s->in.start[h.id];
	/* the ways in from outside that can run: a block out of reach
	 * branching to the header goes on doing so, and dominates nothing */
	uint32_t outside = 0, last = KL_NONE;
	for (uint32_t k = 0; k < n; k++)
		if (way_in(s, l, in[k].src)) {
			outside++;
			last = k;
		}
	if (outside == 1 &&
	    kl_inst_num_dests(f, (kl_inst){ in[last].inst }) == 1) {
		s->preheader[l] = in[last].src;
		return (kl_block){ in[last].src };
	}
	/* A new block with the header's parameters, before the header,
	 * takes the edges from outside. */
	kl_block ph = kl_func_new_block(f);
	uint32_t np = kl_block_num_params(f, h);
	kl_grow(&s->args, &s->args_cap, sizeof *s->args, (uint64_t)np + 1);
	for (uint32_t k = 0; k < np; k++)
		s->args[k] = kl_block_append_param(
			f, ph, kl_value_type(f, kl_block_param(f, h, k)));
	kl_func_insert_block_before(f, ph, h);
	kl_builder b;
	kl_builder_init(&b, f);
	kl_builder_at_end(&b, ph);
	kl_build_jump(&b, (kl_block_call){ h, s->args, np });
	for (uint32_t k = 0; k < n; k++) {
		kl_inst i = { in[k].inst };
		uint32_t d = in[k].d;
		if (!way_in(s, l, in[k].src))
			continue;
		uint32_t na = kl_inst_dest_num_args(f, i, d);
		kl_grow(&s->args, &s->args_cap, sizeof *s->args,
			(uint64_t)na + 1);
		for (uint32_t a = 0; a < na; a++)
			s->args[a] = kl_inst_dest_arg(f, i, d, a);
		kl_inst_set_dest(f, i, d, (kl_block_call){ ph, s->args, na });
	}
	kl_grow(&s->key, &s->key_cap, sizeof *s->key, (uint64_t)ph.id + 1);
	while (s->key_len <= ph.id)
		s->key[s->key_len++] = KL_NONE;
	s->key[ph.id] = s->key[h.id] - 1;
	s->preheader[l] = ph.id;
	s->made++;
	return ph;
}

/* Instruction i to the end of loop l's preheader. Its jump is taken out
 * while instructions come in, and put back at the end of the pass:
 * each then goes in last, where an insert before the jump, again and
 * again at one place, had the layout renumber the block's instructions
 * around it (a quarter of the pass on keel-gen's nest at 1M). */
static void
move_out(licm *s, kl_func *f, kl_inst i, uint32_t l)
{
	kl_block ph = preheader_of(s, f, l);
	if (s->jump[l] == KL_NONE) {
		s->jump[l] = kl_block_last_inst(f, ph).id;
		kl_inst_remove(f, (kl_inst){ s->jump[l] });
	}
	kl_inst_move_to_end(f, i, ph);
}

/* The outermost loop around instruction i (innermost: l) that none of
 * its operands is defined in, or KL_NONE. */
static uint32_t
loop_to_leave(const licm *s, const kl_func *f, kl_inst i, uint32_t l)
{
	uint32_t deepest = 0;
	for (uint32_t k = 0; k < kl_inst_num_args(f, i); k++) {
		kl_value v = { resolve_with(f, s->table,
					    kl_inst_arg(f, i, k).id) };
		uint32_t key = key_of(s, kl_value_def_block(f, v));
		if (key == KL_NONE)
			return KL_NONE;
		deepest = key > deepest ? key : deepest;
	}
	if (header_key(s, l) <= deepest)
		return KL_NONE;
	for (uint32_t j = s->levels; j-- > 0;) {
		uint32_t a = s->up[j * s->nloops + l];
		if (a != KL_NONE && header_key(s, a) > deepest)
			l = a;
	}
	return l;
}

/* Does some branch go to its own block, or to one before it in the
 * layout? If none does, every path runs forward through the layout:
 * there is no cycle, and no loop to look for (most of keel-gen's small
 * functions, where the analyses were most of the pass). key serves as
 * the blocks' positions. */
static bool
may_loop(licm *s, const kl_func *f)
{
	uint32_t nb = kl_func_block_bound(f), pos = 0;
	kl_grow(&s->key, &s->key_cap, sizeof *s->key, (uint64_t)nb + 1);
	memset(s->key, 0xff, (size_t)nb * sizeof *s->key);
	for (kl_block b = kl_func_first_block(f); b.id != KL_NONE;
	     b = kl_block_next(f, b))
		s->key[b.id] = pos++;
	for (kl_block b = kl_func_first_block(f); b.id != KL_NONE;
	     b = kl_block_next(f, b)) {
		kl_inst t = kl_block_last_inst(f, b);
		uint32_t nd = t.id == KL_NONE ? 0 : kl_inst_num_dests(f, t);
		for (uint32_t d = 0; d < nd; d++) {
			uint32_t to = kl_inst_dest(f, t, d).id;
			if (to < nb && s->key[to] <= s->key[b.id])
				return true;
		}
	}
	return false;
}

static bool
movable(const kl_func *f, kl_inst i)
{
	return kl_op_is_pure(kl_inst_opcode(f, i)) &&
	       kl_inst_num_results(f, i) == 1;
}

/* Can instruction i, a load in the header of loop l (with nothing that
 * may trap before it there), leave l? */
static bool
load_leaves(licm *s, const kl_func *f, kl_inst i, uint32_t l)
{
	if (kl_op_table[kl_inst_opcode(f, i)].format != KL_FMT_LOAD)
		return false;
	/* Stores, calls and allocas never move, and preheaders made since
	 * are in no loop: the summary made now is what it was at the
	 * start. */
	if (!s->summarized)
		summarize_writes(s, f);
	mem_place p = alias_place(&s->alias, i.id);
	return !writes_place(s, l, &p) && loop_to_leave(s, f, i, l) != KL_NONE;
}

kl_status
kl_licm_func(kl_func *f, kl_pass_report *rep)
{
	func_edited(f);
	if (f->first_block == KL_NONE)
		return KL_OK;
	uint64_t moved = 0, loads = 0;
	bool keep;
	licm *s = pass_scratch(rep, licm_free, licm_new, &keep);
	s->made = 0;
	if (!may_loop(s, f))
		goto done;
	kl_cfg_compute(s->cfg, f);
	kl_domtree_compute(s->dt, f, s->cfg);
	kl_loops_compute(s->lf, f, s->cfg, s->dt);
	s->table = func_resolve_table(f, &s->resolved, &s->resolved_cap);
	licm_size(s, f);
	uint32_t n;
	const kl_block *post = kl_domtree_postorder(s->dt, &n);
	for (uint32_t k = n; s->nloops && k-- > 0;) {
		kl_block b = post[k];
		uint32_t l = kl_loops_innermost(s->lf, b).id;
		if (l == KL_NONE)
			continue;
		/* loads leave only from the header, up to the first that
		 * stays and may trap */
		bool loads_leave =
			kl_loop_header(s->lf, (kl_loop){ l }).id == b.id;
		kl_inst next;
		for (kl_inst i = kl_block_first_inst(f, b); i.id != KL_NONE;
		     i = next) {
			next = kl_inst_next(f, i);
			uint32_t out = KL_NONE;
			if (movable(f, i)) {
				out = loop_to_leave(s, f, i, l);
			} else if (loads_leave && load_leaves(s, f, i, l)) {
				out = l;
				loads++;
			}
			if (out == KL_NONE) {
				loads_leave &= !(kl_op_table[kl_inst_opcode(
							 f, i)].flags &
						 (KL_OPF_CAN_TRAP |
						  KL_OPF_SIDE_EFFECTS));
				continue;
			}
			move_out(s, f, i, out);
			moved++;
		}
	}
	for (uint32_t l = 0; l < s->nloops; l++)
		if (s->jump[l] != KL_NONE)
			kl_inst_move_to_end(f, (kl_inst){ s->jump[l] },
					    (kl_block){ s->preheader[l] });
done:
	kl_pass_report_count(rep, "insts", moved);
	kl_pass_report_count(rep, "loads", loads);
	kl_pass_report_count(rep, "preheaders", s->made);
	if (!keep)
		licm_free(s);
	return KL_OK;
}
