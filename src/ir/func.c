/*
 * func.c -- a function's entity tables: instructions, values, blocks,
 * signature references and pooled constants, and the read accessors of the
 * public API.
 *
 * Values and blocks are numbered by the author when parsed (v7 is entry 7
 * of the value table) so that printing reproduces the source and
 * diagnostics use the author's names; numbers never used are VK_UNUSED
 * holes (blocks without BLOCK_EXISTS). New entities take numbers above all
 * existing ones, so output stays deterministic.
 */
#include <stdlib.h>
#include <string.h>

#include "ir.h"

kl_func *
func_new(kl_module *m, uint32_t sym, uint32_t sig)
{
	kl_func *f = kl_calloc(1, sizeof *f);
	f->module = m;
	f->sym = sym;
	f->sig = sig;
	f->first_block = f->last_block = KL_NONE;
	return f;
}

void
func_free(kl_func *f)
{
	free(f->insts);
	free(f->nodes);
	free(f->values);
	free(f->blocks);
	pool_free_all(&f->pool);
	free(f->consts);
	free(f->sigrefs);
	free(f->inst_lines);
	free(f->block_lines);
	free(f->sigref_lines);
	free(f);
}

uint32_t
func_new_inst(kl_func *f, kl_opcode op)
{
	if (f->ninsts == f->insts_cap) {
		uint32_t cap = f->insts_cap;
		kl_grow(&f->insts, &cap, sizeof *f->insts, f->ninsts + 1);
		cap = f->insts_cap;
		kl_grow(&f->nodes, &cap, sizeof *f->nodes, f->ninsts + 1);
		if (f->inst_lines) {
			cap = f->insts_cap;
			kl_grow(&f->inst_lines, &cap, sizeof *f->inst_lines,
				f->ninsts + 1);
		}
		f->insts_cap = cap;
	}
	uint32_t i = f->ninsts++;
	memset(&f->insts[i], 0, sizeof f->insts[i]);
	f->insts[i].op = (uint16_t)op;
	f->nodes[i] = (kl_inst_node){ KL_NONE, KL_NONE, KL_NONE, 0 };
	if (f->inst_lines)
		f->inst_lines[i] = 0;
	return i;
}

void
func_presize(kl_func *f, uint32_t ninsts, uint32_t nvalues)
{
	if (ninsts > f->insts_cap) {
		f->insts = kl_realloc(f->insts, (size_t)ninsts * sizeof *f->insts);
		f->nodes = kl_realloc(f->nodes, (size_t)ninsts * sizeof *f->nodes);
		if (f->inst_lines)
			f->inst_lines = kl_realloc(f->inst_lines, (size_t)ninsts *
						   sizeof *f->inst_lines);
		f->insts_cap = ninsts;
		kl_advise_huge(f->insts, (size_t)ninsts * sizeof *f->insts);
		kl_advise_huge(f->nodes, (size_t)ninsts * sizeof *f->nodes);
	}
	if (nvalues > f->values_cap) {
		f->values = kl_realloc(f->values,
				       (size_t)nvalues * sizeof *f->values);
		f->values_cap = nvalues;
		kl_advise_huge(f->values, (size_t)nvalues * sizeof *f->values);
	}
}

void
func_reserve_values(kl_func *f, uint32_t n)
{
	if (n <= f->nvalues)
		return;
	kl_grow(&f->values, &f->values_cap, sizeof *f->values, n);
	for (uint32_t v = f->nvalues; v < n; v++) {
		f->values[v].type = KL_VALUE_TYPE_NONE;
		f->values[v].kind = VK_UNUSED;
		f->values[v].def = KL_NONE;
	}
	f->nvalues = n;
}

uint32_t
func_new_value(kl_func *f)
{
	uint32_t v = f->nvalues;
	func_reserve_values(f, v + 1);
	return v;
}

void
value_define(kl_func *f, uint32_t v, enum value_kind kind, kl_type t,
	     uint32_t def)
{
	kl_value_data *d = &f->values[v];
	d->type = t >= KL_VALUE_TYPE_NONE ? KL_VALUE_TYPE_NONE : t;
	d->kind = kind;
	d->def = def;
}

uint32_t
value_resolve(const kl_func *f, uint32_t v)
{
	/* Bounded so that an alias cycle (which the verifier reports) cannot
	 * hang a caller. */
	for (uint32_t steps = 0; steps <= f->nvalues; steps++) {
		if (v >= f->nvalues || f->values[v].kind != VK_ALIAS)
			return v;
		v = f->values[v].def;
	}
	return KL_NONE;
}

void
func_reserve_blocks(kl_func *f, uint32_t n)
{
	if (n <= f->nblocks)
		return;
	uint32_t cap = f->blocks_cap;
	kl_grow(&f->blocks, &cap, sizeof *f->blocks, n);
	if (f->block_lines && cap != f->blocks_cap) {
		uint32_t c2 = f->blocks_cap;
		kl_grow(&f->block_lines, &c2, sizeof *f->block_lines, cap);
	}
	f->blocks_cap = cap;
	for (uint32_t b = f->nblocks; b < n; b++) {
		f->blocks[b] = (kl_block_data){ 0, KL_NONE, KL_NONE, KL_NONE,
						KL_NONE, 0 };
		if (f->block_lines)
			f->block_lines[b] = 0;
	}
	f->nblocks = n;
}

uint32_t
func_new_block_id(kl_func *f)
{
	uint32_t b = f->nblocks;
	func_reserve_blocks(f, b + 1);
	f->blocks[b].flags = BLOCK_EXISTS;
	return b;
}

/* ---- immediates ---- */

int64_t
inst_imm(const kl_func *f, uint32_t i)
{
	const kl_inst_data *d = &f->insts[i];
	switch (kl_op_info((kl_opcode)d->op)->format) {
	case KL_FMT_CONST:
		return (int64_t)((uint64_t)d->w[1] | (uint64_t)d->w[2] << 32);
	case KL_FMT_BINARY_IMM:
	case KL_FMT_ICMP_IMM:
		if (d->bits & IMM_POOLED)
			return f->consts[d->w[2]];
		return (int32_t)d->w[2];
	case KL_FMT_ALLOCA:
		return d->w[1];
	default:
		return 0;
	}
}

void
inst_set_imm(kl_func *f, uint32_t i, int64_t imm)
{
	kl_inst_data *d = &f->insts[i];
	switch (kl_op_info((kl_opcode)d->op)->format) {
	case KL_FMT_CONST:
		d->w[1] = (uint32_t)(uint64_t)imm;
		d->w[2] = (uint32_t)((uint64_t)imm >> 32);
		break;
	case KL_FMT_BINARY_IMM:
	case KL_FMT_ICMP_IMM:
		if (imm >= INT32_MIN && imm <= INT32_MAX) {
			d->bits &= (uint8_t)~IMM_POOLED;
			d->w[2] = (uint32_t)(int32_t)imm;
		} else {
			kl_grow(&f->consts, &f->consts_cap, sizeof *f->consts,
				f->nconsts + 1);
			f->consts[f->nconsts] = imm;
			d->bits |= IMM_POOLED;
			d->w[2] = f->nconsts++;
		}
		break;
	default:
		KL_UNREACHABLE();
	}
}

/* ---- results, arguments, destinations ---- */

/* ---- public read accessors ---- */

kl_module *
kl_func_module(const kl_func *f)
{
	return f->module;
}

kl_sym
kl_func_sym(const kl_func *f)
{
	return (kl_sym){ f->sym };
}

kl_signature
kl_func_signature(const kl_func *f)
{
	return module_sig(f->module, f->sig);
}

static bool
block_ok(const kl_func *f, kl_block b)
{
	return b.id < f->nblocks && (f->blocks[b.id].flags & BLOCK_EXISTS);
}

static bool
inst_ok(const kl_func *f, kl_inst i)
{
	return i.id < f->ninsts;
}

static bool
value_ok(const kl_func *f, kl_value v)
{
	return v.id < f->nvalues;
}

kl_block
kl_func_first_block(const kl_func *f)
{
	return (kl_block){ f->first_block };
}

kl_block
kl_block_next(const kl_func *f, kl_block b)
{
	return block_ok(f, b) ? (kl_block){ f->blocks[b.id].next } : KL_NO_BLOCK;
}

kl_block
kl_block_prev(const kl_func *f, kl_block b)
{
	return block_ok(f, b) ? (kl_block){ f->blocks[b.id].prev } : KL_NO_BLOCK;
}

uint32_t
kl_block_num_params(const kl_func *f, kl_block b)
{
	return block_ok(f, b) ? list_len(&f->pool, f->blocks[b.id].params) : 0;
}

kl_value
kl_block_param(const kl_func *f, kl_block b, uint32_t i)
{
	if (i >= kl_block_num_params(f, b))
		return KL_NO_VALUE;
	return (kl_value){ list_get(&f->pool, f->blocks[b.id].params, i) };
}

kl_inst
kl_block_first_inst(const kl_func *f, kl_block b)
{
	return block_ok(f, b) ? (kl_inst){ f->blocks[b.id].first } : KL_NO_INST;
}

kl_inst
kl_block_last_inst(const kl_func *f, kl_block b)
{
	return block_ok(f, b) ? (kl_inst){ f->blocks[b.id].last } : KL_NO_INST;
}

kl_inst
kl_inst_next(const kl_func *f, kl_inst i)
{
	return inst_ok(f, i) ? (kl_inst){ f->nodes[i.id].next } : KL_NO_INST;
}

kl_inst
kl_inst_prev(const kl_func *f, kl_inst i)
{
	return inst_ok(f, i) ? (kl_inst){ f->nodes[i.id].prev } : KL_NO_INST;
}

kl_block
kl_inst_block(const kl_func *f, kl_inst i)
{
	return inst_ok(f, i) ? (kl_block){ f->nodes[i.id].block } : KL_NO_BLOCK;
}

bool
kl_inst_precedes(const kl_func *f, kl_inst a, kl_inst b)
{
	return inst_ok(f, a) && inst_ok(f, b) &&
	       f->nodes[a.id].seq < f->nodes[b.id].seq;
}

uint32_t
kl_func_value_bound(const kl_func *f)
{
	return f->nvalues;
}

uint32_t
kl_func_block_bound(const kl_func *f)
{
	return f->nblocks;
}

uint32_t
kl_func_inst_bound(const kl_func *f)
{
	return f->ninsts;
}

kl_type
kl_value_type(const kl_func *f, kl_value v)
{
	return value_ok(f, v) ? value_type(f, v.id) : KL_TYPE_NONE;
}

kl_value
kl_value_resolve(const kl_func *f, kl_value v)
{
	return value_ok(f, v) ? (kl_value){ value_resolve(f, v.id) } : v;
}

bool
kl_value_is_alias(const kl_func *f, kl_value v)
{
	return value_ok(f, v) && f->values[v.id].kind == VK_ALIAS;
}

kl_inst
kl_value_def_inst(const kl_func *f, kl_value v)
{
	if (!value_ok(f, v) || f->values[v.id].kind != VK_RESULT)
		return KL_NO_INST;
	return (kl_inst){ f->values[v.id].def };
}

kl_block
kl_value_def_block(const kl_func *f, kl_value v)
{
	if (!value_ok(f, v))
		return KL_NO_BLOCK;
	if (f->values[v.id].kind == VK_PARAM)
		return (kl_block){ f->values[v.id].def };
	if (f->values[v.id].kind == VK_RESULT)
		return (kl_block){ f->nodes[f->values[v.id].def].block };
	return KL_NO_BLOCK;
}

kl_opcode
kl_inst_opcode(const kl_func *f, kl_inst i)
{
	return inst_ok(f, i) ? (kl_opcode)f->insts[i.id].op : KL_OP_COUNT;
}

uint32_t
kl_inst_num_results(const kl_func *f, kl_inst i)
{
	return inst_ok(f, i) ? inst_num_results(f, i.id) : 0;
}

kl_value
kl_inst_result(const kl_func *f, kl_inst i, uint32_t n)
{
	return inst_ok(f, i) ? (kl_value){ inst_result(f, i.id, n) }
			     : KL_NO_VALUE;
}

uint32_t
kl_inst_num_args(const kl_func *f, kl_inst i)
{
	const uint32_t *vals;
	return inst_ok(f, i) ? inst_args(f, i.id, &vals) : 0;
}

kl_value
kl_inst_arg(const kl_func *f, kl_inst i, uint32_t n)
{
	const uint32_t *vals;
	if (!inst_ok(f, i) || n >= inst_args(f, i.id, &vals))
		return KL_NO_VALUE;
	return (kl_value){ vals[n] };
}

int64_t
kl_inst_imm(const kl_func *f, kl_inst i)
{
	return inst_ok(f, i) ? inst_imm(f, i.id) : 0;
}

int32_t
kl_inst_offset(const kl_func *f, kl_inst i)
{
	if (!inst_ok(f, i))
		return 0;
	kl_format fmt = inst_info(f, i.id)->format;
	if (fmt != KL_FMT_LOAD && fmt != KL_FMT_STORE)
		return 0;
	return (int32_t)f->insts[i.id].w[2];
}

uint32_t
kl_inst_cond(const kl_func *f, kl_inst i)
{
	return inst_ok(f, i) ? f->insts[i.id].aux : 0;
}

kl_sym
kl_inst_callee(const kl_func *f, kl_inst i)
{
	if (!inst_ok(f, i))
		return KL_NO_SYM;
	kl_format fmt = inst_info(f, i.id)->format;
	if (fmt != KL_FMT_CALL && fmt != KL_FMT_SYMBOL)
		return KL_NO_SYM;
	return (kl_sym){ f->insts[i.id].w[1] };
}

kl_sigref
kl_inst_sigref(const kl_func *f, kl_inst i)
{
	if (!inst_ok(f, i) || inst_info(f, i.id)->format != KL_FMT_CALL_INDIRECT)
		return (kl_sigref){ KL_NONE };
	return (kl_sigref){ f->insts[i.id].w[1] };
}

uint32_t
kl_inst_num_dests(const kl_func *f, kl_inst i)
{
	const uint32_t *d;
	return inst_ok(f, i) ? inst_dests(f, i.id, &d) : 0;
}

static uint32_t
dest_list(const kl_func *f, kl_inst i, uint32_t n)
{
	const uint32_t *d;
	if (!inst_ok(f, i) || n >= inst_dests(f, i.id, &d))
		return 0;
	return d[n];
}

kl_block
kl_inst_dest(const kl_func *f, kl_inst i, uint32_t n)
{
	uint32_t l = dest_list(f, i, n);
	return l ? (kl_block){ list_get(&f->pool, l, 0) } : KL_NO_BLOCK;
}

uint32_t
kl_inst_dest_num_args(const kl_func *f, kl_inst i, uint32_t n)
{
	uint32_t l = dest_list(f, i, n);
	return l ? list_len(&f->pool, l) - 1 : 0;
}

kl_value
kl_inst_dest_arg(const kl_func *f, kl_inst i, uint32_t n, uint32_t k)
{
	uint32_t l = dest_list(f, i, n);
	if (!l || k + 1 >= list_len(&f->pool, l))
		return KL_NO_VALUE;
	return (kl_value){ list_get(&f->pool, l, k + 1) };
}

void
kl_func_source_range(const kl_func *f, uint32_t *first, uint32_t *last)
{
	*first = f->line_first;
	*last = f->line_last;
}

uint32_t
kl_inst_source_line(const kl_func *f, kl_inst i)
{
	return f->inst_lines && inst_ok(f, i) ? f->inst_lines[i.id] : 0;
}

uint32_t
kl_block_source_line(const kl_func *f, kl_block b)
{
	return f->block_lines && b.id < f->nblocks ? f->block_lines[b.id] : 0;
}
