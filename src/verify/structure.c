/*
 * structure.c -- the verifier's first phase: is the function a sound data
 * structure?
 *
 * Checks, in this order (docs/verifier.md, "Instruction integrity" and
 * "Block integrity"):
 *   - the function's signature and sigrefs name module signatures;
 *   - the block layout is a list of existing blocks without cycles, with
 *     consistent back links, and every block flagged as placed is in it;
 *     there is an entry block;
 *   - each block's instruction list names existing instructions whose
 *     layout nodes name that block (so no instruction is in two blocks),
 *     with consistent back links and increasing sequence numbers; every
 *     block is non-empty and ends with its only terminator;
 *   - every placed instruction has a valid opcode, sound operand lists,
 *     existing callees, symbols, sigrefs, condition and trap codes, a
 *     valid pooled immediate, and results that are its own; every branch
 *     targets an existing, placed block other than the entry block;
 *   - every value is defined exactly once (a result of a placed
 *     instruction or a parameter of a placed block), and every value that
 *     claims a definition is listed by it.
 *   - when not every instruction is in a list, the others have valid
 *     opcodes and claim no block (the analyses scan the whole table).
 *
 * Nothing is followed before it is checked, and every walk is bounded:
 * the block walk stops at a block seen before (a bitmap), an instruction
 * walk at a sequence number that does not increase, which is how a cycle
 * shows (no marks needed). One pass over each block's list does all the
 * per-instruction work, so the instruction tables are read once here.
 *
 * What is learnt is recorded for the later phases: the placed, listed and
 * in_layout bitmaps, vals[], and two flags. layout_ok: every list is
 * sound. cfg_ok: src/analysis/ may compute the CFG and dominator tree;
 * it is cleared by the errors those cannot survive (broken lists and
 * links, invalid opcodes, unreadable branch lists, instructions claiming
 * a block that does not list them), not by errors of meaning (types,
 * misplaced terminators, empty blocks, branches to missing blocks), so
 * that dominance is still checked alongside those.
 */
#include <stdio.h>
#include <string.h>

#include "verify.h"

static void
walk_blocks(verifier *vf)
{
	const kl_func *f = vf->f;
	uint32_t prev = KL_NONE;
	for (uint32_t b = f->first_block; b != KL_NONE; b = f->blocks[b].next) {
		if (b >= f->nblocks || !(f->blocks[b].flags & BLOCK_EXISTS)) {
			err_func(vf, "the block layout names block%u, which "
				 "does not exist", b);
			vf->layout_ok = false;
			break;
		}
		if (bit_get(vf->in_layout, b)) {
			err_func(vf, "the block layout has a cycle at block%u",
				 b);
			vf->layout_ok = false;
			break;
		}
		bit_set(vf->in_layout, b);
		vf->nplaced_blocks++;
		if (!(f->blocks[b].flags & BLOCK_PLACED)) {
			err_block(vf, b, "block%u is in the layout but not "
				  "flagged as placed", b);
			vf->cfg_ok = false;
		}
		if (f->blocks[b].prev != prev) {
			err_block(vf, b, "the layout's link from block%u to "
				  "the block before it is wrong", b);
			vf->cfg_ok = false;
		}
		prev = b;
	}
	if (f->first_block == KL_NONE)
		err_func(vf, "the function has no entry block");
	else if (vf->nplaced_blocks)
		vf->entry = f->first_block;
	if (!vf->layout_ok)
		return;
	if (f->last_block != prev) {
		err_func(vf, "the layout's last block should be block%u",
			 prev);
		vf->cfg_ok = false;
	}
	for (uint32_t b = 0; b < f->nblocks; b++) {
		if ((f->blocks[b].flags & BLOCK_PLACED) &&
		    !bit_get(vf->in_layout, b)) {
			err_block(vf, b, "block%u is flagged as placed but is "
				  "not in the layout", b);
			vf->cfg_ok = false;
		}
	}
}

/* Is i among the first `count` instructions of b's list? (error path) */
static bool
listed_in(const kl_func *f, uint32_t b, uint32_t i, uint32_t count)
{
	uint32_t j = f->blocks[b].first;
	for (uint32_t k = 0; k < count && j < f->ninsts; k++) {
		if (j == i)
			return true;
		j = f->nodes[j].next;
	}
	return false;
}

/* What the value table says v is, for messages. */
static void
what_value_is(const kl_func *f, uint32_t v, char *buf, size_t cap)
{
	const kl_value_data *d = &f->values[v];
	switch (d->kind) {
	case VK_UNUSED:
		snprintf(buf, cap, "undefined");
		break;
	case VK_RESULT:
		snprintf(buf, cap, "defined by inst%u", d->def);
		break;
	case VK_PARAM:
		snprintf(buf, cap, "a parameter of block%u", d->def);
		break;
	case VK_ALIAS:
		snprintf(buf, cap, "an alias of v%u", d->def);
		break;
	case VK_REMOVED:
		snprintf(buf, cap, "a removed parameter");
		break;
	default:
		snprintf(buf, cap, "of invalid kind %u", (unsigned)d->kind);
		break;
	}
}

/*
 * Record v's definition in block b, by instruction i or (i = KL_NONE) as
 * a parameter; report a second definition and an invalid type.
 */
static void
define(verifier *vf, uint32_t v, uint32_t i, uint32_t b)
{
	vinfo *vi = &vf->vals[v];
	if (vi->state == DEF_NONE) {
		kl_type c = type_class(vf->m, value_type(vf->f, v));
		vi->block = b;
		vi->cls = c < KL_TYPE_MACHINE_COUNT ? (uint8_t)c : VCLS_NONE;
		vi->state = DEF_OK;
		if (c == KL_TYPE_NONE && i != KL_NONE)
			err_inst(vf, i, "result v%u has no valid type", v);
		else if (c == KL_TYPE_NONE)
			err_block(vf, b, "parameter v%u has no valid type", v);
		return;
	}
	vi->state = DEF_TWICE;
	if (i != KL_NONE)
		err_inst(vf, i, "v%u is defined more than once", v);
	else
		err_block(vf, b, "v%u is defined more than once", v);
}

static void
check_params(verifier *vf, uint32_t b)
{
	const kl_func *f = vf->f;
	const uint32_t *ps;
	uint32_t n;
	if (!vlist(f, f->blocks[b].params, &ps, &n)) {
		err_block(vf, b, "the parameter list of block%u is broken "
			  "(bad value-list handle)", b);
		return;
	}
	for (uint32_t k = 0; k < n; k++) {
		uint32_t v = ps[k];
		if (v >= f->nvalues) {
			err_block(vf, b, "parameter %u is v%u, which is out of "
				  "range (%u values)", k, v, f->nvalues);
			continue;
		}
		const kl_value_data *d = &f->values[v];
		if (d->kind != VK_PARAM || d->def != b) {
			char what[64];
			what_value_is(f, v, what, sizeof what);
			err_block(vf, b, "parameter v%u of block%u is %s in "
				  "the value table", v, b, what);
			continue;
		}
		define(vf, v, KL_NONE, b);
	}
}

static void
check_results(verifier *vf, uint32_t i, uint32_t b, const inst_view *iv)
{
	const kl_func *f = vf->f;
	for (uint32_t k = 0; k < iv->nresults; k++) {
		uint32_t v = iv->results[k];
		if (v >= f->nvalues) {
			err_inst(vf, i, "result %u is v%u, which is out of "
				 "range (%u values)", k, v, f->nvalues);
			continue;
		}
		const kl_value_data *d = &f->values[v];
		if (d->kind != VK_RESULT || d->def != i) {
			char what[64];
			what_value_is(f, v, what, sizeof what);
			err_inst(vf, i, "result v%u of inst%u is %s in the "
				 "value table", v, i, what);
			continue;
		}
		define(vf, v, i, b);
	}
}

/* The module signature of a call's callee, or KL_NONE (reported). */
static uint32_t
callee_sig(verifier *vf, uint32_t i)
{
	const kl_func *f = vf->f;
	const kl_module *m = vf->m;
	const kl_inst_data *d = &f->insts[i];
	uint32_t s = d->w[1];
	if (d->op == KL_OP_CALL) {
		if (s >= m->nsyms) {
			err_inst(vf, i, "call of symbol %u, which does not "
				 "exist", s);
			return KL_NONE;
		}
		if (m->syms[s].kind != KL_SYM_FUNC) {
			err_inst(vf, i, "call of a data object: only functions "
				 "can be called");
			return KL_NONE;
		}
		if (m->syms[s].sig >= m->nsigs) {
			err_inst(vf, i, "the callee's signature does not "
				 "exist");
			return KL_NONE;
		}
		return m->syms[s].sig;
	}
	if (s >= f->nsigrefs || f->sigrefs[s] == KL_NONE ||
	    f->sigrefs[s] >= m->nsigs) {
		err_inst(vf, i, "call_indirect uses sig%u, which does not "
			 "exist", s);
		return KL_NONE;
	}
	return f->sigrefs[s];
}

static void
check_dests(verifier *vf, uint32_t i, const inst_view *iv)
{
	const kl_func *f = vf->f;
	for (uint32_t k = 0; k < iv->ndests; k++) {
		uint32_t b, nargs;
		const uint32_t *args;
		char e[32];
		if (!dest_get(f, iv, k, &b, &args, &nargs)) {
			err_inst(vf, i, "branch destination %u%s is broken "
				 "(bad value-list handle)", k,
				 dest_label(e, sizeof e, iv, k));
			vf->cfg_ok = false;
			return;
		}
		if (b >= f->nblocks || !(f->blocks[b].flags & BLOCK_EXISTS)) {
			err_inst(vf, i, "branch to block%u%s, which does not "
				 "exist", b, dest_label(e, sizeof e, iv, k));
		} else if (!bit_get(vf->in_layout, b)) {
			err_inst(vf, i, "branch to block%u%s, which is not "
				 "in the layout", b,
				 dest_label(e, sizeof e, iv, k));
		} else if (b == vf->entry) {
			err_inst(vf, i, "branch to the entry block block%u%s",
				 b, dest_label(e, sizeof e, iv, k));
		}
	}
}

/* Codes and immediates stored in the instruction itself. */
static void
check_fields(verifier *vf, uint32_t i, const kl_opinfo *info)
{
	const kl_func *f = vf->f;
	const kl_inst_data *d = &f->insts[i];
	switch ((kl_format)info->format) {
	case KL_FMT_ICMP_IMM:
	case KL_FMT_BINARY_IMM:
		if ((d->bits & IMM_POOLED) && d->w[2] >= f->nconsts)
			err_inst(vf, i, "the immediate is constant %u of the "
				 "function, which does not exist", d->w[2]);
		if (d->op != KL_OP_ICMP_IMM)
			break;
		/* fall through */
	case KL_FMT_ICMP:
		if (d->aux >= KL_ICC_COUNT)
			err_inst(vf, i, "invalid integer condition code %u",
				 d->aux);
		break;
	case KL_FMT_FCMP:
		if (d->aux >= KL_FCC_COUNT)
			err_inst(vf, i, "invalid float condition code %u",
				 d->aux);
		break;
	case KL_FMT_TRAP:
		if (d->aux >= KL_TRAP_COUNT)
			err_inst(vf, i, "invalid trap code %u", d->aux);
		break;
	case KL_FMT_ALLOCA:
	case KL_FMT_ALLOCA_DYN:
		if (d->aux >= 32)
			err_inst(vf, i, "alignment 2^%u is too large", d->aux);
		break;
	case KL_FMT_SYMBOL:
		if (d->w[1] >= vf->m->nsyms)
			err_inst(vf, i, "symbol_addr of symbol %u, which does "
				 "not exist", d->w[1]);
		break;
	default:
		break;
	}
}

/* One placed instruction (valid opcode) of block b. */
static void
check_inst(verifier *vf, uint32_t i, uint32_t b)
{
	const kl_func *f = vf->f;
	const kl_opinfo *info = &vf->ops[f->insts[i].op];
	inst_view iv;
	if (!inst_view_get(f, i, &iv)) {
		err_inst(vf, i, "an operand list of inst%u is broken (bad "
			 "value-list handle)", i);
		if (info->flags & KL_OPF_BRANCH)
			vf->cfg_ok = false;
		return;
	}
	check_fields(vf, i, info);
	if (info->format == KL_FMT_TERNARY && iv.nargs != 3)
		err_inst(vf, i, "%s has %u operands, must have 3",
			 info->name, iv.nargs);
	if (info->format == KL_FMT_CALL_INDIRECT && iv.nargs == 0)
		err_inst(vf, i, "call_indirect has no callee operand");
	if (info->nres == KL_NRES_SIG) {
		uint32_t sig = callee_sig(vf, i);
		kl_signature s = module_sig(vf->m, sig);
		if (sig != KL_NONE && s.num_results != iv.nresults)
			err_inst(vf, i, "%s has %u result%s, but the callee's "
				 "signature has %u", info->name, iv.nresults,
				 iv.nresults == 1 ? "" : "s", s.num_results);
	}
	if (info->flags & (KL_OPF_CAN_LOAD | KL_OPF_CAN_STORE))
		vf->has_memory = true;
	check_results(vf, i, b, &iv);
	check_dests(vf, i, &iv);
}

/* An instruction of b's list whose layout node names another block. */
static void
report_misplaced(verifier *vf, uint32_t i, uint32_t b)
{
	const kl_func *f = vf->f;
	uint32_t nb = f->nodes[i].block;
	if (nb == KL_NONE)
		err_inst(vf, i, "inst%u is in the list of block%u, but its "
			 "layout node says it is in no block", i, b);
	else if (block_in_layout(vf, nb) && listed_in(f, nb, i, f->ninsts))
		err_inst(vf, i, "inst%u is listed in block%u and in block%u",
			 i, nb, b);
	else
		err_inst(vf, i, "inst%u is in the list of block%u, but its "
			 "layout node says block%u", i, b, nb);
	vf->cfg_ok = false;
}

/* Block b's end: its last link, not empty, ends with a terminator. */
static void
check_block_end(verifier *vf, uint32_t b, uint32_t last, bool last_is_term)
{
	const kl_func *f = vf->f;
	if (f->blocks[b].last != last) {
		err_block(vf, b, "the layout's last instruction of block%u "
			  "should be %s%u", b,
			  last == KL_NONE ? "none: " : "inst", last);
		vf->cfg_ok = false;
	}
	if (last == KL_NONE) {
		err_block(vf, b, "block%u is empty", b);
	} else if (!last_is_term && f->insts[last].op < KL_OP_COUNT) {
		err_inst(vf, last, "block%u does not end with a terminator",
			 b);
	}
}

/*
 * Block b: its parameters, then one walk over its instruction list that
 * checks the links and every instruction. Returns false if the list is
 * broken (a bad index, or a cycle).
 */
static bool
check_block(verifier *vf, uint32_t b)
{
	const kl_func *f = vf->f;
	uint32_t prev = KL_NONE, prev_seq = 0, count = 0;
	bool last_is_term = false;
	check_params(vf, b);
	for (uint32_t i = f->blocks[b].first; i != KL_NONE;
	     i = f->nodes[i].next, count++) {
		if (i >= f->ninsts) {
			err_block(vf, b, "the instruction list of block%u "
				  "names inst%u, which does not exist", b, i);
			return false;
		}
		const kl_inst_node *n = &f->nodes[i];
		if (prev != KL_NONE && n->seq <= prev_seq) {
			if (listed_in(f, b, i, count))
				err_block(vf, b, "the instruction list of "
					  "block%u has a cycle at inst%u", b,
					  i);
			else
				err_inst(vf, i, "layout sequence number %u of "
					 "inst%u does not increase (the one "
					 "before is %u)", n->seq, i, prev_seq);
			return false;
		}
		if (last_is_term) {
			err_inst(vf, prev, "terminator %s is not the last "
				 "instruction of block%u", opname(vf, prev), b);
		}
		if (n->prev != prev) {
			err_inst(vf, i, "the layout's link from inst%u to the "
				 "instruction before it is wrong", i);
			vf->cfg_ok = false;
		}
		prev = i;
		prev_seq = n->seq;
		bit_set(vf->listed, i);
		vf->nlisted++;
		uint16_t op = f->insts[i].op;
		if (op >= KL_OP_COUNT) {
			err_inst(vf, i, "invalid opcode %u", op);
			vf->cfg_ok = false;
			last_is_term = false;
			continue;
		}
		last_is_term = vf->ops[op].flags & KL_OPF_TERMINATOR;
		if (n->block != b) {
			report_misplaced(vf, i, b);
			continue;
		}
		bit_set(vf->placed, i);
		vf->nplaced_insts++;
		check_inst(vf, i, b);
	}
	check_block_end(vf, b, prev, last_is_term);
	return true;
}

/*
 * Instructions in no list, when some are (removed ones, or broken IR):
 * the analyses scan the whole instruction table, so every opcode must be
 * valid, and none may claim a block that does not list it.
 */
static void
check_unlisted(verifier *vf)
{
	const kl_func *f = vf->f;
	if (vf->nlisted == f->ninsts || !vf->layout_ok)
		return;
	for (uint32_t i = 0; i < f->ninsts; i++) {
		if (bit_get(vf->listed, i))
			continue;
		if (f->insts[i].op >= KL_OP_COUNT) {
			err_inst(vf, i, "inst%u (in no block) has invalid "
				 "opcode %u", i, f->insts[i].op);
			vf->cfg_ok = false;
		}
		uint32_t b = f->nodes[i].block;
		if (b != KL_NONE && b < f->nblocks &&
		    !(f->blocks[b].flags & BLOCK_PLACED)) {
			err_inst(vf, i, "inst%u is in block%u, which is not in "
				 "the layout", i, b);
			vf->cfg_ok = false;
		} else if (b != KL_NONE) {
			err_inst(vf, i, "inst%u says it is in block%u, but no "
				 "block lists it", i, b);
			vf->cfg_ok = false;
		}
	}
}

/*
 * Values whose table entry claims a definition that does not list them
 * (the forward direction, definitions listing values, was checked with
 * each definition).
 */
static void
check_value_table(verifier *vf)
{
	const kl_func *f = vf->f;
	for (uint32_t v = 0; v < f->nvalues; v++) {
		const kl_value_data *d = &f->values[v];
		if (d->kind == VK_UNUSED || d->kind == VK_ALIAS ||
		    d->kind == VK_REMOVED ||
		    vf->vals[v].state != DEF_NONE)
			continue;
		if (d->kind == VK_RESULT) {
			if (is_placed(vf, d->def))
				err_value(vf, v, d->def, "v%u says it is a "
					  "result of inst%u, which does not "
					  "list it", v, d->def);
		} else if (d->kind == VK_PARAM) {
			if (block_in_layout(vf, d->def))
				err_value(vf, v, KL_NONE, "v%u says it is a "
					  "parameter of block%u, which does "
					  "not list it", v, d->def);
		} else {
			err_value(vf, v, KL_NONE, "v%u has invalid kind %u", v,
				  (unsigned)d->kind);
		}
	}
}

void
check_structure(verifier *vf)
{
	const kl_func *f = vf->f;
	const kl_module *m = vf->m;
	vf->layout_ok = true;
	vf->cfg_ok = true;
	if (f->sig >= m->nsigs)
		err_func(vf, "the function's signature does not exist");
	for (uint32_t s = 0; s < f->nsigrefs; s++)
		if (f->sigrefs[s] != KL_NONE && f->sigrefs[s] >= m->nsigs)
			err_sigref(vf, s, "sig%u names module signature %u, "
				   "which does not exist", s, f->sigrefs[s]);

	/* The blocks found before a broken link are checked all the same;
	 * the first nplaced_blocks blocks of the chain are sound. */
	walk_blocks(vf);
	uint32_t b = f->first_block;
	for (uint32_t k = 0; k < vf->nplaced_blocks; k++) {
		if (!check_block(vf, b))
			vf->layout_ok = false;
		b = f->blocks[b].next;
	}
	if (!vf->layout_ok)
		vf->cfg_ok = false;
	check_unlisted(vf);
	check_value_table(vf);
}
