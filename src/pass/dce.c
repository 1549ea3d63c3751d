/*
 * dce.c -- dead code elimination: remove what cannot change what a
 * function does.
 *
 * Three kinds of code go:
 * - blocks the entry block cannot reach, with all they hold;
 * - instructions without effect (no store, no call, no trap, not a
 *   terminator) whose results nothing live uses;
 * - block parameters nothing live uses, with the argument every branch
 *   passes for them.
 *
 * It is one mark and one sweep, linear in the function. Marking starts
 * from the instructions that must stay and flows back from each live value
 * to what defines it: an instruction's operands, and for a block
 * parameter, the argument each edge from a reachable block passes for it.
 * A value is live only if a chain of uses leads from an instruction that
 * must stay to it, so parameters that only feed each other around a loop,
 * and the arithmetic that feeds only them, are dead together (what a
 * sweep of "unused" instructions repeated until nothing changes would
 * never find). This is the classic optimistic formulation (Kennedy's
 * mark-sweep dead code elimination), without the control dependences of
 * aggressive dead code elimination: a branch always stays.
 *
 * Loads stay: a load can trap (heap_oob), and a trap is behaviour. So do
 * sdiv_imm by -1 and the others that can trap. An unused `alloca` goes, as
 * promote's promoted ones do: the interpreter can trap on one only when it
 * is out of memory, which is no behaviour of the program.
 *
 * Input that is not strict SSA (a reachable use of a value defined in a
 * block that cannot run) is left alone, with a note: removing that block
 * would leave the use without a definition. Nothing else about strict SSA
 * matters here; the walk changes nothing before it knows.
 */
#include <stdlib.h>
#include <string.h>

#include "../ir/ir.h"
#include "../util/util.h"
#include "edges.h"
#include "pass.h"

enum { PASSED = 1, KEPT = 2 };

/* Scratch kept from one function to the next (a pass report's state). */
typedef struct dce {
	bool *reached;        /* per block */
	bool *done;           /* per block: the walk has passed its top */
	uint8_t *passed;      /* per instruction: the walk has passed it
			       * (PASSED), and found it must stay (KEPT) */
	uint32_t *stack;      /* blocks, then live values to visit */
	uint32_t *param_at;   /* per value: its place among its block's
			       * parameters (set for reachable blocks) */
	uint8_t *live;        /* per value */
	kl_value *dead;       /* parameters to remove */
	in_edges in;
	uint32_t blocks_cap, values_cap, insts_cap, dead_cap;
	uint32_t top;
	uint32_t bad_value;   /* KL_NONE, or a use that is not strict SSA */
} dce;

static void
dce_free(void *state)
{
	dce *d = state;
	if (!d)
		return;
	free(d->reached);
	free(d->done);
	free(d->passed);
	free(d->stack);
	free(d->param_at);
	free(d->live);
	free(d->dead);
	in_edges_free(&d->in);
	free(d);
}

static void *
dce_new(void)
{
	return kl_calloc(1, sizeof(dce));
}

/* Room for f's blocks, instructions and values; the marks cleared. */
static void
dce_size(dce *d, const kl_func *f)
{
	uint32_t nb = f->nblocks, nv = f->nvalues;
	/* the stack holds the blocks of one walk, then live values, each
	 * once */
	uint64_t values = (nb > nv ? nb : nv) + (uint64_t)1;
	pass_grow_all(&d->blocks_cap, (uint64_t)nb + 1, 2,
		      (void **[]){ (void **)&d->reached, (void **)&d->done },
		      (const size_t[]){ sizeof *d->reached, sizeof *d->done });
	pass_grow_all(&d->values_cap, values, 3,
		      (void **[]){ (void **)&d->stack, (void **)&d->param_at,
				   (void **)&d->live },
		      (const size_t[]){ sizeof *d->stack, sizeof *d->param_at,
					sizeof *d->live });
	pass_grow_all(&d->insts_cap, (uint64_t)f->ninsts + 1, 1,
		      (void **[]){ (void **)&d->passed },
		      (const size_t[]){ sizeof *d->passed });
	memset(d->live, 0, nv);
	memset(d->passed, 0, f->ninsts);
	d->top = 0;
	d->bad_value = KL_NONE;
}

/* May instruction i go when nothing uses its results? */
static bool
removable(const kl_func *f, uint32_t i)
{
	const uint16_t effects = KL_OPF_TERMINATOR | KL_OPF_CALL |
				 KL_OPF_CAN_TRAP | KL_OPF_CAN_STORE |
				 KL_OPF_SIDE_EFFECTS;
	if (f->insts[i].op == KL_OP_SDIV_IMM) {
		/* traps only on the minimum value by -1 (0 does not verify) */
		int64_t imm = inst_imm(f, i);
		return imm != 0 && imm != -1;
	}
	return !(inst_info(f, i)->flags & effects);
}

/*
 * Mark v live, and the values its alias chain leads to. A definition the
 * walk has passed already goes on the stack, to have its operands marked
 * after the walk; one it has yet to pass will be seen live there.
 */
static void
mark(dce *d, const kl_func *f, uint32_t v)
{
	while (v < f->nvalues && !d->live[v]) {
		d->live[v] = 1;
		const kl_value_data *vd = &f->values[v];
		bool passed = false;
		switch (vd->kind) {
		case VK_ALIAS:
			v = vd->def;
			continue;
		case VK_RESULT:
			passed = vd->def < f->ninsts && d->passed[vd->def];
			break;
		case VK_PARAM:
			passed = vd->def < f->nblocks && d->done[vd->def];
			break;
		default:
			break;
		}
		if (passed)
			d->stack[d->top++] = v;
		return;
	}
}

/* Mark the operands of instruction i (a branch's arguments are not its
 * operands: they live with the parameters they are passed to). */
static void
mark_operands(dce *d, const kl_func *f, uint32_t i)
{
	const uint32_t *vals;
	uint32_t n = inst_args(f, i, &vals);
	for (uint32_t k = 0; k < n; k++)
		mark(d, f, vals[k]);
}

/* Live parameter k of reachable block b: the argument every edge into b
 * from a reachable block passes for it. */
static void
mark_arguments(dce *d, const kl_func *f, uint32_t b, uint32_t k)
{
	for (uint32_t e = d->in.start[b]; e < d->in.start[b + 1]; e++) {
		in_edge ed = d->in.edges[e];
		if (!d->reached[ed.src])
			continue;
		const uint32_t *dests;
		inst_dests(f, ed.inst, &dests);
		uint32_t t, nargs;
		const uint32_t *args;
		if (dest_read(&f->pool, dests[ed.d], &t, &args, &nargs) &&
		    k < nargs)
			mark(d, f, args[k]);
	}
}

static bool
result_live(const dce *d, const kl_func *f, uint32_t i)
{
	uint32_t nr = inst_num_results(f, i);
	for (uint32_t r = 0; r < nr; r++) {
		uint32_t v = inst_result(f, i, r);
		if (v < f->nvalues && d->live[v])
			return true;
	}
	return false;
}

/*
 * The walk: the reachable blocks in reverse layout order, each from its
 * end. An instruction that must stay, or whose result is live by then,
 * marks its operands; at a block's top, its live parameters mark their
 * arguments. Layout order mostly follows dominance, so most values are
 * live before the walk reaches their definitions, and the walk reads the
 * tables in order; what is left is what the branches back to a loop's
 * header carry, and the stack has it.
 */
static void
walk(dce *d, const kl_func *f)
{
	for (uint32_t b = 0; b < f->nblocks; b++)
		d->done[b] = !d->reached[b];
	/* an unreachable definition used where code runs must come out in
	 * propagate: its instructions count as passed */
	for (uint32_t b = f->first_block; b != KL_NONE; b = f->blocks[b].next)
		for (uint32_t i = f->blocks[b].first;
		     !d->reached[b] && i != KL_NONE; i = f->nodes[i].next)
			d->passed[i] = PASSED;
	for (uint32_t b = f->last_block; b != KL_NONE; b = f->blocks[b].prev) {
		if (!d->reached[b])
			continue;
		for (uint32_t i = f->blocks[b].last; i != KL_NONE;
		     i = f->nodes[i].prev) {
			d->passed[i] = PASSED;
			if (!removable(f, i) || result_live(d, f, i)) {
				d->passed[i] = PASSED | KEPT;
				mark_operands(d, f, i);
			}
		}
		d->done[b] = true;
		uint32_t params = f->blocks[b].params;
		uint32_t np = list_len(&f->pool, params);
		for (uint32_t k = 0; k < np; k++) {
			uint32_t v = list_get(&f->pool, params, k);
			if (v >= f->nvalues)
				continue;
			d->param_at[v] = k;
			if (d->live[v] && b != f->first_block)
				mark_arguments(d, f, b, k);
		}
	}
}

/* Visit the values marked after the walk passed their definitions until
 * none is left; false if one is defined in a block that cannot run
 * (d->bad_value). */
static bool
propagate(dce *d, const kl_func *f)
{
	while (d->top) {
		uint32_t v = d->stack[--d->top];
		const kl_value_data *vd = &f->values[v];
		uint32_t b;
		switch (vd->kind) {
		case VK_RESULT:
			b = f->nodes[vd->def].block;
			if (b == KL_NONE)
				break; /* a removed instruction: broken input */
			if (!d->reached[b]) {
				d->bad_value = v;
				return false;
			}
			if (!(d->passed[vd->def] & KEPT)) {
				d->passed[vd->def] |= KEPT;
				mark_operands(d, f, vd->def);
			}
			break;
		case VK_PARAM:
			b = value_def_block(f, v);
			if (b == KL_NONE || b == f->first_block)
				break;
			if (!d->reached[b]) {
				d->bad_value = v;
				return false;
			}
			mark_arguments(d, f, b, d->param_at[v]);
			break;
		default:
			break;
		}
	}
	return true;
}

static void
note_not_strict(const kl_func *f, kl_pass_report *rep, uint32_t v)
{
	pass_note_func(rep, f);
	kl_buf_printf(&rep->notes,
		      "left alone: v%u is used where it can run but "
		      "defined in a block that cannot (not strict SSA)\n",
		      v);
}

/* Remove what the marks left dead; the counts of blocks, instructions
 * and parameters removed. */
static void
sweep(dce *d, kl_func *f, uint64_t count[3])
{
	uint32_t ndead = 0;
	for (uint32_t b = f->first_block; b != KL_NONE;) {
		uint32_t next = f->blocks[b].next;
		if (!d->reached[b]) {
			kl_func_remove_block(f, (kl_block){ b });
			count[0]++;
			b = next;
			continue;
		}
		for (uint32_t i = f->blocks[b].first; i != KL_NONE;) {
			uint32_t after = f->nodes[i].next;
			if (!(d->passed[i] & KEPT)) {
				layout_remove_inst(f, i);
				count[1]++;
			}
			i = after;
		}
		uint32_t params = f->blocks[b].params;
		uint32_t np = b == f->first_block ? 0
						  : list_len(&f->pool, params);
		for (uint32_t k = 0; k < np; k++) {
			uint32_t v = list_get(&f->pool, params, k);
			if (v < f->nvalues && d->live[v])
				continue;
			kl_grow(&d->dead, &d->dead_cap, sizeof *d->dead,
				(uint64_t)ndead + 1);
			d->dead[ndead++] = (kl_value){ v };
		}
		b = next;
	}
	if (ndead && func_remove_params(f, d->dead, ndead, false) == KL_OK)
		count[2] += ndead;
}

static const char *const counter_names[3] = { "blocks", "insts", "params" };

kl_status
kl_dce_func(kl_func *f, kl_pass_report *rep)
{
	func_edited(f);
	if (f->first_block == KL_NONE)
		return KL_OK;
	bool keep;
	dce *d = pass_scratch(rep, dce_free, dce_new, &keep);
	dce_size(d, f);
	blocks_reached(f, d->reached, d->stack);
	in_edges_collect(&d->in, f);
	walk(d, f);
	uint64_t count[3] = { 0 };
	if (propagate(d, f))
		sweep(d, f, count);
	else if (rep && rep->verbose)
		note_not_strict(f, rep, d->bad_value);
	for (int k = 0; k < 3; k++)
		kl_pass_report_count(rep, counter_names[k], count[k]);
	if (!keep)
		dce_free(d);
	return KL_OK;
}
