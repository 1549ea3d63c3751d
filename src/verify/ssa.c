/*
 * ssa.c -- SSA form: alias chains, the CFG and dominator tree (fresh and
 * cached), and the rule that every use is dominated by its definition.
 *
 * Alias chains (v7 -> v3 -> v1) are resolved for all values at once in
 * linear time: each chain is walked with an explicit stack, values on the
 * walk are marked busy (a busy value met again is a cycle), and when the
 * walk ends every value on the stack gets the root, so no value is walked
 * twice. A chain must end in a defined value and every alias must have
 * its root's type; a chain nothing uses is held to what the printer
 * writes of it (only a cycle or an end that is no value at all).
 *
 * Dominance uses src/analysis/: a CFG and a dominator tree computed afresh
 * (never trusting the caller's), with O(1) queries (the inline ones of
 * analysis.h, as this is the verifier's inner loop). A use at instruction i
 * in block B of a value defined by instruction d in block D is fine when
 * D == B and d comes before i (layout sequence numbers), or D strictly
 * dominates B; a block parameter of P is fine when P dominates B. Branch
 * arguments are uses at the branch. Uses inside unreachable blocks are
 * not checked (any value may flow there; the block never runs), but a
 * definition in an unreachable block dominates nothing reachable.
 */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "verify.h"
#include "../analysis/analysis.h"

/* ---- alias chains ---- */

enum { ALIAS_NEW = 0, ALIAS_BUSY = 1, ALIAS_DONE = 2 };

static void
mark_user(verifier *vf, uint32_t v, uint32_t i)
{
	const kl_func *f = vf->f;
	while (v < f->nvalues && f->values[v].kind == VK_ALIAS &&
	       vf->first_user[v] == KL_NONE) {
		vf->first_user[v] = i;
		v = f->values[v].def;
	}
}

static void
mark_users(verifier *vf, uint32_t i)
{
	const kl_func *f = vf->f;
	inst_view iv;
	if (!is_placed(vf, i) || !inst_readable(f, i, &iv))
		return;
	for (uint32_t a = 0; a < iv.nargs; a++)
		mark_user(vf, iv.args[a], i);
	for (uint32_t d = 0; d < iv.ndests; d++) {
		uint32_t blk, n;
		const uint32_t *args;
		if (dest_get(f, &iv, d, &blk, &args, &n))
			for (uint32_t a = 0; a < n; a++)
				mark_user(vf, args[a], i);
	}
}

/*
 * Where alias errors show: the first instruction in layout order that
 * uses the alias, directly or through a chain, which is where the printer
 * writes the alias line. (Parsed aliases have no line of their own.)
 */
static void
find_first_users(verifier *vf)
{
	const kl_func *f = vf->f;
	vf->first_user = scratch_get(vf->s, S_FIRST_USER, (size_t)f->nvalues *
				     sizeof *vf->first_user, 0xff);
	if (!vf->layout_ok) {
		/* Lists may have cycles: index order will do. */
		for (uint32_t i = 0; i < f->ninsts; i++)
			mark_users(vf, i);
		return;
	}
	uint32_t b = f->first_block;
	for (uint32_t k = 0; k < vf->nplaced_blocks; k++) {
		for (uint32_t i = f->blocks[b].first; i != KL_NONE;
		     i = f->nodes[i].next)
			mark_users(vf, i);
		b = f->blocks[b].next;
	}
}

static uint32_t
user_of(const verifier *vf, uint32_t v)
{
	return vf->first_user ? vf->first_user[v] : KL_NONE;
}

/* Walk the chain from alias v; give every alias on it its root. */
static void
resolve_chain(verifier *vf, uint8_t *state, uint32_t v)
{
	const kl_func *f = vf->f;
	uint32_t n = 0, w = v;
	while (w < f->nvalues && f->values[w].kind == VK_ALIAS &&
	       state[w] == ALIAS_NEW) {
		state[w] = ALIAS_BUSY;
		kl_grow(&vf->s->stack, &vf->s->stack_cap, sizeof *vf->s->stack,
			n + 1);
		vf->s->stack[n++] = w;
		w = f->values[w].def;
	}
	uint32_t last = vf->s->stack[n - 1];
	uint32_t root = KL_NONE;
	if (w >= f->nvalues) {
		err_value(vf, last, user_of(vf, last), "alias v%u -> v%u: "
			  "v%u is out of range (%u values)", last, w, w,
			  f->nvalues);
	} else if (f->values[w].kind == VK_ALIAS && state[w] == ALIAS_BUSY) {
		err_value(vf, w, user_of(vf, w), "the alias chain of v%u has "
			  "a cycle", w);
	} else if (f->values[w].kind == VK_ALIAS) {
		root = vf->alias_root[w]; /* KL_NONE if broken (reported) */
	} else if (vf->vals[w].state == DEF_NONE) {
		/* Nothing uses a chain whose last alias has no user. The
		 * printer leaves such a chain out when it ends in a result or
		 * a parameter (a pass removed the instruction or parameter
		 * it stood for): so does the verifier, which would otherwise
		 * reject what prints as valid text. */
		unsigned kind = f->values[w].kind;
		if (user_of(vf, last) != KL_NONE ||
		    (kind != VK_RESULT && kind != VK_PARAM &&
		     kind != VK_REMOVED))
			err_value(vf, last, user_of(vf, last), "alias v%u -> "
				  "v%u: v%u is %s", last, w, w,
				  kind == VK_REMOVED ? "a removed block "
				  "parameter" : "not defined");
	} else if (vf->vals[w].state == DEF_OK) {
		root = w;
	} /* else defined twice: reported at the definitions */
	/* by machine class: an alias of a refined value may keep the
	 * type it had (docs/ir.md, "Refined types"); the text gives it the
	 * end's, which is the one its uses read */
	kl_type rc = root == KL_NONE ? KL_TYPE_NONE
				     : type_class(vf->m, value_type(f, root));
	while (n > 0) {
		uint32_t a = vf->s->stack[--n];
		vf->alias_root[a] = root;
		state[a] = ALIAS_DONE;
		kl_type ac = type_class(vf->m, value_type(f, a));
		if (root != KL_NONE && ac != rc &&
		    user_of(vf, a) != KL_NONE) /* (unused: not printed) */
			err_value(vf, a, user_of(vf, a), "alias v%u has type "
				  "%s, but the value it stands for (v%u) has "
				  "type %s", a, tname(vf, ac), root,
				  tname(vf, rc));
	}
}

void
check_aliases(verifier *vf)
{
	const kl_func *f = vf->f;
	uint32_t v = 0;
	while (v < f->nvalues && f->values[v].kind != VK_ALIAS)
		v++;
	if (v == f->nvalues)
		return; /* no aliases: resolved(v) is v */
	vf->alias_root = scratch_get(vf->s, S_ALIAS_ROOT, (size_t)f->nvalues *
				     sizeof *vf->alias_root, -1);
	for (uint32_t k = 0; k < f->nvalues; k++)
		vf->alias_root[k] = k;
	uint8_t *state = scratch_get(vf->s, S_ALIAS_STATE, f->nvalues, 0);
	find_first_users(vf);
	for (; v < f->nvalues; v++)
		if (f->values[v].kind == VK_ALIAS && state[v] == ALIAS_NEW)
			resolve_chain(vf, state, v);
}

/* ---- analyses ---- */

/* At most this many edges of a list are shown in a message. */
enum { EDGES_SHOWN = 6 };

/*
 * One edge list of a block for messages: "[block2, block3]", successors
 * as their target ("block2", with by_inst "block2 by inst4"),
 * predecessors as "block0/inst4". A long list shows EDGES_SHOWN edges
 * from the first that differs (`from`, found by edges_differ), so that
 * two lists differing at their tenth edge do not read the same.
 */
static void
describe_list(const kl_cfg *cfg, kl_block b, bool succs, bool by_inst,
	      uint32_t from, kl_buf *out)
{
	uint32_t n = succs ? kl_cfg_num_succs(cfg, b)
			   : kl_cfg_num_preds(cfg, b);
	uint32_t k = from >= EDGES_SHOWN && from < n ? from - 2 : 0;
	uint32_t end = k + EDGES_SHOWN < n ? k + EDGES_SHOWN : n;
	kl_buf_puts(out, "[");
	if (k)
		kl_buf_puts(out, "... ");
	for (uint32_t first = k; k < end; k++) {
		kl_cfg_edge e = succs ? kl_cfg_succ_edge(cfg, b, k)
				      : kl_cfg_pred(cfg, b, k);
		kl_buf_printf(out, "%sblock%u", k > first ? ", " : "",
			      e.block.id);
		if (!succs)
			kl_buf_printf(out, "/inst%u", e.inst.id);
		else if (by_inst)
			kl_buf_printf(out, " by inst%u", e.inst.id);
	}
	if (end < n)
		kl_buf_printf(out, ", ... %u in all", n);
	kl_buf_putc(out, ']');
}

/* The first index at which b's successor (or predecessor) lists in a
 * and c differ, 0 if they do not. */
static uint32_t
edges_differ(const kl_cfg *a, const kl_cfg *c, kl_block b, bool succs)
{
	uint32_t na = succs ? kl_cfg_num_succs(a, b) : kl_cfg_num_preds(a, b);
	uint32_t nc = succs ? kl_cfg_num_succs(c, b) : kl_cfg_num_preds(c, b);
	uint32_t k = 0;
	for (; k < na && k < nc; k++) {
		kl_cfg_edge x = succs ? kl_cfg_succ_edge(a, b, k)
				      : kl_cfg_pred(a, b, k);
		kl_cfg_edge y = succs ? kl_cfg_succ_edge(c, b, k)
				      : kl_cfg_pred(c, b, k);
		if (x.block.id != y.block.id || x.inst.id != y.inst.id)
			return k;
	}
	return na == nc ? 0 : k;
}

/*
 * "successors [block2, block3], predecessors [block0/inst4]": block b's
 * edges in cfg, for a message comparing cfg with other.
 */
static void
describe_edges(const kl_cfg *cfg, const kl_cfg *other, uint32_t b,
	       bool by_inst, kl_buf *out)
{
	kl_block blk = { b };
	kl_buf_puts(out, "successors ");
	describe_list(cfg, blk, true, by_inst,
		      edges_differ(cfg, other, blk, true), out);
	kl_buf_puts(out, ", predecessors ");
	describe_list(cfg, blk, false, by_inst,
		      edges_differ(cfg, other, blk, false), out);
}

static void
compare_cfg(verifier *vf, const kl_cfg *cached)
{
	kl_block b = KL_NO_BLOCK;
	if (kl_cfg_equal(cached, vf->cfg, &b))
		return;
	if (!block_in_layout(vf, b.id)) {
		err_func(vf, "the cached CFG differs from the function's CFG "
			 "at block%u", b.id);
		return;
	}
	kl_buf have = { 0 }, want = { 0 };
	describe_edges(cached, vf->cfg, b.id, false, &have);
	describe_edges(vf->cfg, cached, b.id, false, &want);
	if (have.len == want.len && !memcmp(have.data, want.data, have.len)) {
		/* The same blocks, by another branch (a terminator replaced
		 * by an equal one): the message must show what differs. */
		kl_buf_reset(&have);
		kl_buf_reset(&want);
		describe_edges(cached, vf->cfg, b.id, true, &have);
		describe_edges(vf->cfg, cached, b.id, true, &want);
	}
	err_block(vf, b.id, "the cached CFG is stale at block%u: it has %s; "
		  "the function has %s", b.id, have.data, want.data);
	kl_buf_free(&have);
	kl_buf_free(&want);
}

/* Where b comes in dt's post-order, or KL_NONE (only for a message). */
static uint32_t
postorder_place(const kl_domtree *dt, uint32_t b)
{
	uint32_t n;
	const kl_block *po = kl_domtree_postorder(dt, &n);
	for (uint32_t k = 0; k < n; k++)
		if (po[k].id == b)
			return k;
	return KL_NONE;
}

static void
compare_domtree(verifier *vf, const kl_domtree *cached)
{
	kl_block b = KL_NO_BLOCK;
	if (kl_domtree_equal(cached, vf->dt, &b))
		return;
	if (!block_in_layout(vf, b.id)) {
		err_func(vf, "the cached dominator tree differs from the "
			 "function's at block%u", b.id);
		return;
	}
	/* kl_domtree_equal compares reachability and the post-order as well
	 * as the idoms: say which of them differs, or the message would read
	 * "immediate dominator block0, should be block0". */
	bool have_r = kl_domtree_is_reachable(cached, b);
	bool want_r = kl_domtree_is_reachable(vf->dt, b);
	kl_block have = kl_domtree_idom(cached, b);
	kl_block want = kl_domtree_idom(vf->dt, b);
	if (have_r != want_r && have.id == want.id) {
		err_block(vf, b.id, "the cached dominator tree is stale at "
			  "block%u: it is %s there, should be %s", b.id,
			  have_r ? "reachable" : "unreachable",
			  want_r ? "reachable" : "unreachable");
		return;
	}
	if (have.id == want.id) {
		uint32_t hp = postorder_place(cached, b.id);
		uint32_t wp = postorder_place(vf->dt, b.id);
		char hs[32], ws[32];
		snprintf(hs, sizeof hs, hp == KL_NONE ? "none" : "%u", hp);
		snprintf(ws, sizeof ws, wp == KL_NONE ? "none" : "%u", wp);
		err_block(vf, b.id, "the cached dominator tree is stale at "
			  "block%u: its place in the post-order is %s, should "
			  "be %s", b.id, hs, ws);
		return;
	}
	char hs[32], ws[32];
	snprintf(hs, sizeof hs, have.id == KL_NONE ? "none" : "block%u",
		 have.id);
	snprintf(ws, sizeof ws, want.id == KL_NONE ? "none" : "block%u",
		 want.id);
	err_block(vf, b.id, "the cached dominator tree is stale at block%u: "
		  "immediate dominator %s, should be %s", b.id, hs, ws);
}

void
check_analyses(verifier *vf)
{
	if (!vf->cfg_ok || vf->entry == KL_NONE)
		return;
	if (!vf->s->cfg) {
		vf->s->cfg = kl_cfg_new();
		vf->s->dt = kl_domtree_new();
	}
	vf->cfg = vf->s->cfg;
	vf->dt = vf->s->dt;
	kl_cfg_compute(vf->cfg, vf->f);
	kl_domtree_compute(vf->dt, vf->f, vf->cfg);
	if (vf->ctx->cfg)
		compare_cfg(vf, vf->ctx->cfg);
	if (vf->ctx->domtree)
		compare_domtree(vf, vf->ctx->domtree);
}

/* ---- uses ---- */

/* The use of v (resolving to r) at instruction i is not dominated. */
static void
report_dominance(verifier *vf, uint32_t i, uint32_t v, uint32_t r)
{
	const kl_func *f = vf->f;
	const kl_value_data *d = &f->values[r];
	char alias[40] = "";
	if (v != r)
		snprintf(alias, sizeof alias, " (an alias of v%u)", r);
	if (d->kind == VK_PARAM)
		err_inst(vf, i, "use of v%u%s is not dominated by its "
			 "definition (a parameter of block%u)", v, alias,
			 d->def);
	else if (d->def == i)
		err_inst(vf, i, "v%u%s is used by its own definition", v,
			 alias);
	else if (vf->vals[r].block == f->nodes[i].block)
		err_inst(vf, i, "use of v%u%s before its definition (inst%u)",
			 v, alias, d->def);
	else
		err_inst(vf, i, "use of v%u%s is not dominated by its "
			 "definition (inst%u in block%u)", v, alias, d->def,
			 vf->vals[r].block);
}

/* A use of a value that is not defined exactly once: say why. */
static void
report_undefined(verifier *vf, uint32_t i, uint32_t r)
{
	const kl_func *f = vf->f;
	const kl_value_data *d = &f->values[r];
	if (vf->vals[r].state == DEF_TWICE)
		return; /* reported at the definitions */
	if (d->kind == VK_RESULT && d->def < f->ninsts &&
	    !is_placed(vf, d->def))
		err_inst(vf, i, "use of v%u, whose definition inst%u is not in "
			 "the layout", r, d->def);
	else if (d->kind == VK_PARAM && !block_in_layout(vf, d->def))
		err_inst(vf, i, "use of v%u, a parameter of block%u, which is "
			 "not in the layout", r, d->def);
	else if (d->kind == VK_UNUSED)
		err_inst(vf, i, "use of undefined value v%u", r);
	else if (d->kind == VK_REMOVED)
		err_inst(vf, i, "use of v%u, a removed block parameter", r);
	else
		err_inst(vf, i, "use of v%u, which is not properly defined",
			 r);
}

static bool
in_list(const uint32_t *list, uint32_t len, uint32_t v)
{
	for (uint32_t j = 0; j < len; j++)
		if (list[j] == v)
			return true;
	return false;
}

/* Does v appear among the operands of iv before ops[k] (the value
 * arguments first, then each destination's)? Then what is wrong with it
 * has been said. Asked only on the way to an error. */
static bool
used_before(const kl_func *f, const inst_view *iv, const uint32_t *ops,
	    uint32_t k, uint32_t v)
{
	if (ops == iv->args)
		return in_list(ops, k, v);
	if (in_list(iv->args, iv->nargs, v))
		return true;
	for (uint32_t d = 0; d < iv->ndests; d++) {
		uint32_t b, len;
		const uint32_t *list;
		if (!dest_get(f, iv, d, &b, &list, &len))
			continue;
		if (list == ops)
			return in_list(list, k, v);
		if (in_list(list, len, v))
			return true;
	}
	return false;
}

/*
 * Operands of instruction i (at sequence number seq of block blk, which
 * is reachable when dom is set) are defined and, if dom, available: the
 * definition comes earlier in blk or its block strictly dominates blk.
 * A value used twice is reported once.
 */
static void
check_operands(verifier *vf, uint32_t i, const inst_view *iv, uint32_t blk,
	       uint32_t seq, bool dom, const uint32_t *ops, uint32_t n)
{
	const kl_func *f = vf->f;
	for (uint32_t k = 0; k < n; k++) {
		uint32_t v = ops[k];
		if (v >= f->nvalues) {
			if (!used_before(f, iv, ops, k, v))
				err_inst(vf, i, "use of v%u, which is out of "
					 "range (%u values)", v, f->nvalues);
			continue;
		}
		uint32_t r = resolved(vf, v);
		if (r == KL_NONE)
			continue; /* a broken alias chain, reported there */
		const vinfo *vi = &vf->vals[r];
		if (vi->state != DEF_OK) {
			if (!used_before(f, iv, ops, k, v))
				report_undefined(vf, i, r);
			continue;
		}
		if (!dom)
			continue;
		/* A result in the same block must come earlier (a parameter
		 * always does). The definition is near i, so these reads are
		 * cheap. */
		bool available;
		if (vi->block != blk)
			available = dt_dominates(vf->dt, vi->block, blk);
		else
			available = f->values[r].kind != VK_RESULT ||
				    f->nodes[f->values[r].def].seq < seq;
		if (!available && !used_before(f, iv, ops, k, v))
			report_dominance(vf, i, v, r);
	}
}

void
check_uses(verifier *vf, uint32_t i, const inst_view *iv)
{
	const kl_inst_node *n = &vf->f->nodes[i];
	bool dom = vf->dt && dt_reachable(vf->dt, n->block);
	check_operands(vf, i, iv, n->block, n->seq, dom, iv->args, iv->nargs);
	for (uint32_t k = 0; k < iv->ndests; k++) {
		uint32_t b, na;
		const uint32_t *args;
		if (dest_get(vf->f, iv, k, &b, &args, &na))
			check_operands(vf, i, iv, n->block, n->seq, dom, args,
				       na);
	}
}
