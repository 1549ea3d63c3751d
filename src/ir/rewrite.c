/*
 * rewrite.c -- small in-place edits that passes share: appending branch
 * arguments, changing an instruction into another of the UNARY format,
 * resolving aliases in every operand, and the public API's operand
 * setters, block parameters' removal and copies of instructions.
 *
 * Invariant kept by all of them: pool handles stored in instructions are
 * re-read after any pool allocation, since growing a list may move it and
 * growing the pool may move every list.
 */
#include <stdlib.h>
#include <string.h>

#include "ir.h"

/*
 * Where the word of destination k of instruction i is: in the
 * instruction for a jump or brif, returned; in the pool for a br_table,
 * whose index is set in *at instead (the pool may move as lists grow,
 * the instructions do not).
 */
static uint32_t *
dest_word(kl_func *f, uint32_t i, uint32_t k, uint32_t *at)
{
	kl_inst_data *d = &f->insts[i];
	switch (kl_op_table[d->op].format) {
	case KL_FMT_JUMP:
		KL_ASSERT(k == 0);
		return &d->w[0];
	case KL_FMT_BRIF:
		KL_ASSERT(k < 2);
		return &d->w[1 + k];
	case KL_FMT_BR_TABLE:
		KL_ASSERT(k < list_len(&f->pool, d->w[1]));
		*at = d->w[1] + k;
		return NULL;
	default:
		KL_UNREACHABLE();
	}
}

/* The word of destination k of instruction i, and a new one in its place
 * (each looks where it is now: a list's growth may have moved the pool). */
static uint32_t
get_dest_word(kl_func *f, uint32_t i, uint32_t k)
{
	uint32_t at = 0;
	uint32_t *word = dest_word(f, i, k, &at);
	return word ? *word : f->pool.data[at];
}

static void
put_dest_word(kl_func *f, uint32_t i, uint32_t k, uint32_t w)
{
	uint32_t at = 0;
	uint32_t *word = dest_word(f, i, k, &at);
	if (word)
		*word = w;
	else
		f->pool.data[at] = w;
}

void
inst_dest_append_args(kl_func *f, uint32_t i, uint32_t k, const uint32_t *vals,
		      uint32_t n)
{
	if (n == 0)
		return;
	/* (promote's path, an edge at a time: the word found once) */
	uint32_t at = 0;
	uint32_t *word = dest_word(f, i, k, &at);
	uint32_t list = word ? *word : f->pool.data[at];
	uint32_t *e;
	if (list & DEST_BLOCK) { /* the block alone: make it a list */
		uint32_t b = list & ~DEST_BLOCK;
		list = list_make(&f->pool, NULL, n + 1);
		e = f->pool.data + list;
		*e++ = b;
	} else {
		e = list_extend(&f->pool, &list, n);
	}
	/* A few values, as a rule: a loop, not a call to memcpy. */
	for (uint32_t j = 0; j < n; j++)
		e[j] = vals[j];
	if (word)
		*word = list;
	else
		f->pool.data[at] = list;
}

void
inst_rewrite_unary(kl_func *f, uint32_t i, kl_opcode op, uint32_t x)
{
	KL_ASSERT(kl_op_table[op].format == KL_FMT_UNARY);
	kl_inst_data *d = &f->insts[i];
	KL_ASSERT(kl_op_table[d->op].nres == 1);
	d->op = (uint16_t)op;
	d->aux = 0;
	d->bits = 0;
	d->w[1] = x;
	d->w[2] = 0;
}

/* Replace each alias in vals[0, n) by the end of its chain (table: a
 * func_resolve_table, or NULL when every alias leads to a non-alias in
 * one step); a chain that ends in no value stays. Returns the number
 * replaced. */
static uint64_t
resolve_in(const kl_func *f, const uint32_t *table, uint32_t *vals,
	   uint32_t n)
{
	uint64_t changed = 0;
	for (uint32_t k = 0; k < n; k++) {
		uint32_t v = vals[k];
		if (v >= f->nvalues || f->values[v].kind != VK_ALIAS)
			continue;
		uint32_t r = table ? table[v] : f->values[v].def;
		if (r >= f->nvalues || f->values[r].kind == VK_ALIAS ||
		    f->values[r].kind == VK_UNUSED)
			continue;
		vals[k] = r;
		changed++;
	}
	return changed;
}

uint64_t
kl_func_resolve_aliases(kl_func *f)
{
	func_edited(f);
	uint32_t *buf = NULL, cap = 0;
	const uint32_t *table = func_resolve_table(f, &buf, &cap);
	uint64_t changed = 0;
	for (uint32_t b = f->first_block; b != KL_NONE; b = f->blocks[b].next) {
		for (uint32_t i = f->blocks[b].first; i != KL_NONE;
		     i = f->nodes[i].next) {
			uint32_t n;
			uint32_t *args = inst_args_mut(f, i, &n);
			changed += resolve_in(f, table, args, n);
			const uint32_t *dests;
			uint32_t nd = inst_dests(f, i, &dests);
			for (uint32_t k = 0; k < nd; k++) {
				uint32_t *dargs;
				uint32_t na = dest_args(&f->pool, dests[k],
							&dargs);
				changed += resolve_in(f, table, dargs, na);
			}
		}
	}
	free(buf);
	return changed;
}

/* ---- the public operand setters ---- */

kl_status
kl_inst_set_arg(kl_func *f, kl_inst i, uint32_t n, kl_value v)
{
	func_edited(f);
	if (i.id >= f->ninsts || v.id >= f->nvalues)
		return KL_ERR_INVALID;
	uint32_t count;
	uint32_t *args = inst_args_mut(f, i.id, &count);
	if (n >= count)
		return KL_ERR_INVALID;
	args[n] = v.id;
	return KL_OK;
}

/* Destination d of instruction i, for an operand v to go in it: its word
 * and its number of arguments; false if i, d or v is out of range. */
static bool
dest_for_value(const kl_func *f, kl_inst i, uint32_t d, kl_value v,
	       uint32_t *word, uint32_t *nargs)
{
	const uint32_t *dests, *args;
	uint32_t block;
	if (i.id >= f->ninsts || v.id >= f->nvalues ||
	    d >= inst_dests(f, i.id, &dests))
		return false;
	*word = dests[d];
	return dest_read(&f->pool, dests[d], &block, &args, nargs);
}

kl_status
kl_inst_set_dest_arg(kl_func *f, kl_inst i, uint32_t d, uint32_t k,
		     kl_value v)
{
	func_edited(f);
	uint32_t word, nargs;
	if (!dest_for_value(f, i, d, v, &word, &nargs) || k >= nargs)
		return KL_ERR_INVALID;
	/* (a list, having arguments; the function's own, to write) */
	f->pool.data[word + 1 + k] = v.id;
	return KL_OK;
}

kl_status
kl_inst_set_dest(kl_func *f, kl_inst i, uint32_t d, kl_block_call dest)
{
	func_edited(f);
	const uint32_t *dests;
	if (i.id >= f->ninsts || d >= inst_dests(f, i.id, &dests) ||
	    dest.block.id >= f->nblocks ||
	    !(f->blocks[dest.block.id].flags & BLOCK_EXISTS) ||
	    (dest.num_args && !dest.args))
		return KL_ERR_INVALID;
	if (dest.num_args >= LIST_MAX_LEN) /* the list holds the block too */
		return KL_ERR_RANGE;
	for (uint32_t k = 0; k < dest.num_args; k++)
		if (dest.args[k].id >= f->nvalues)
			return KL_ERR_INVALID;
	uint32_t old = dests[d];
	uint32_t word = dest_make(f, &dest); /* (may move the pool) */
	put_dest_word(f, i.id, d, word);
	if (!(old & DEST_BLOCK))
		list_free(&f->pool, old);
	return KL_OK;
}

kl_status
kl_inst_append_dest_arg(kl_func *f, kl_inst i, uint32_t d, kl_value v)
{
	func_edited(f);
	uint32_t word, nargs;
	if (!dest_for_value(f, i, d, v, &word, &nargs))
		return KL_ERR_INVALID;
	if (nargs + 1 >= LIST_MAX_LEN) /* the list holds the block too */
		return KL_ERR_RANGE;
	inst_dest_append_args(f, i.id, d, &v.id, 1);
	return KL_OK;
}

/*
 * Of list's elements from index first on, keep those whose name is not
 * marked in gone and move them down in one pass; return how many the
 * list holds then (the caller sets the length). Element first + j is
 * named names[j]: for a destination's arguments, the target's parameter
 * at the same index; for a parameter list, itself. Elements past nnames
 * names stay.
 */
static uint32_t
compact(kl_pool *p, uint32_t list, uint32_t first, const uint32_t *names,
	uint32_t nnames, const uint8_t *gone)
{
	uint32_t len = list_len(p, list), out = first;
	uint32_t *e = p->data + list;
	for (uint32_t k = first; k < len; k++) {
		uint32_t j = k - first;
		if (j < nnames && gone[names[j]])
			continue;
		e[out++] = e[k];
	}
	return out;
}

/* Branch i's destination d, which targets a block losing the parameters
 * gone marks: the matching arguments go (a destination left without any
 * takes its one-word form). params: the target's list before. */
static void
dest_drop_args(kl_func *f, uint32_t i, uint32_t d, const uint32_t *params,
	       uint32_t nparams, const uint8_t *gone)
{
	uint32_t list = get_dest_word(f, i, d);
	if (list & DEST_BLOCK)
		return; /* no arguments: a broken branch, left to the
			 * verifier */
	uint32_t n = compact(&f->pool, list, 1, params, nparams, gone);
	if (n == 1) { /* the block alone is left */
		uint32_t b = f->pool.data[list];
		list_free(&f->pool, list);
		list = dest_word_of_block(b);
	} else {
		list_truncate(&f->pool, &list, n);
	}
	put_dest_word(f, i, d, list);
}

/* Is v a parameter kl_func_remove_params may take out? */
static bool
removable_param(const kl_func *f, kl_value v, bool entry_too)
{
	if (v.id >= f->nvalues || f->values[v.id].kind != VK_PARAM)
		return false;
	uint32_t b = f->values[v.id].def;
	return b < f->nblocks && (f->blocks[b].flags & BLOCK_EXISTS) &&
	       (entry_too || b != f->first_block);
}

kl_status
kl_func_remove_params(kl_func *f, const kl_value *params, uint32_t n)
{
	return func_remove_params(f, params, n, false);
}

kl_status
func_remove_params(kl_func *f, const kl_value *params, uint32_t n,
		   bool entry_too)
{
	func_edited(f);
	for (uint32_t j = 0; j < n; j++)
		if (!removable_param(f, params[j], entry_too))
			return KL_ERR_INVALID;
	if (n == 0)
		return KL_OK;
	uint8_t *gone = kl_calloc(f->nvalues, 1);
	uint8_t *hit = kl_calloc(f->nblocks, 1);
	for (uint32_t j = 0; j < n; j++) {
		gone[params[j].id] = 1;
		hit[f->values[params[j].id].def] = 1;
	}
	/* Every placed branch to a block hit passes the arguments of the
	 * parameters that stay, read against the block's list as it was.
	 * (The step counts end the walk even on a layout with a cycle.) */
	uint32_t blk = f->first_block;
	for (uint32_t sb = 0; blk < f->nblocks && sb < f->nblocks; sb++) {
		uint32_t i = f->blocks[blk].first;
		for (uint32_t si = 0; i < f->ninsts && si < f->ninsts; si++) {
			const uint32_t *dests;
			uint32_t nd = 0;
			if (kl_op_table[f->insts[i].op].flags & KL_OPF_BRANCH)
				nd = inst_dests(f, i, &dests);
			for (uint32_t d = 0; d < nd; d++) {
				uint32_t target, nargs;
				const uint32_t *args;
				inst_dests(f, i, &dests); /* (fresh after
							   * edits) */
				if (!dest_read(&f->pool, dests[d], &target,
					       &args, &nargs) ||
				    target >= f->nblocks || !hit[target])
					continue;
				uint32_t pl = f->blocks[target].params;
				dest_drop_args(f, i, d,
					       list_elems(&f->pool, pl),
					       list_len(&f->pool, pl), gone);
			}
			i = f->nodes[i].next;
		}
		blk = f->blocks[blk].next;
	}
	for (uint32_t b = 0; b < f->nblocks; b++) {
		if (!hit[b])
			continue;
		uint32_t *pl = &f->blocks[b].params;
		uint32_t left = compact(&f->pool, *pl, 0,
					list_elems(&f->pool, *pl),
					list_len(&f->pool, *pl), gone);
		list_truncate(&f->pool, pl, left);
	}
	for (uint32_t j = 0; j < n; j++) {
		uint32_t v = params[j].id;
		value_define(f, v, VK_REMOVED, f->values[v].type, KL_NONE);
	}
	free(gone);
	free(hit);
	return KL_OK;
}

kl_status
kl_block_remove_param(kl_func *f, kl_block b, uint32_t k)
{
	func_edited(f);
	/* (the entry block's parameters: refused as removable_param says) */
	if (b.id >= f->nblocks ||
	    k >= list_len(&f->pool, f->blocks[b.id].params))
		return KL_ERR_INVALID;
	kl_value v = { list_get(&f->pool, f->blocks[b.id].params, k) };
	return kl_func_remove_params(f, &v, 1);
}

/* ---- copies of instructions ---- */

/*
 * A copy is made in function f of an instruction of function `from`: f
 * itself (kl_inst_clone) or another function of the module (inlining).
 * Its operands go through vmap and its destinations' blocks through
 * bmap, from's numbers to f's; NULL maps leave them as they are. With
 * from another function, f's pool is not from's, so a list read from
 * `from` stays where it is while f's grows; with from f, every read of a
 * list comes after the allocation that may move it.
 */
typedef struct copy_maps {
	const kl_func *from;
	const uint32_t *vmap;
	const uint32_t *bmap;
	const uint32_t *smap;
} copy_maps;

static uint32_t
map_value(const copy_maps *cm, uint32_t v)
{
	return cm->vmap ? cm->vmap[value_resolve(cm->from, v)] : v;
}

static uint32_t
map_block(const copy_maps *cm, uint32_t b)
{
	return cm->bmap ? cm->bmap[b] : b;
}

/* A new list in f of list l's elements, the first `blocks` of them
 * blocks, the rest values (0, the empty list, stays 0). */
static uint32_t
copy_list(kl_func *f, const copy_maps *cm, uint32_t l, uint32_t blocks)
{
	uint32_t n = list_len(&cm->from->pool, l);
	uint32_t c = list_make(&f->pool, NULL, n); /* may move from's too */
	const uint32_t *src = list_elems(&cm->from->pool, l);
	for (uint32_t k = 0; k < n; k++)
		f->pool.data[c + k] = k < blocks ? map_block(cm, src[k])
						 : map_value(cm, src[k]);
	return c;
}

/* A destination word of its own: a list is copied, a lone block is one. */
static uint32_t
copy_dest(kl_func *f, const copy_maps *cm, uint32_t d)
{
	if (d & DEST_BLOCK)
		return dest_word_of_block(map_block(cm, d & ~DEST_BLOCK));
	return copy_list(f, cm, d, 1);
}

/* The result of copy c standing for from's result r: the value vmap
 * gives it (numbered already), or a fresh one; of r's type. */
static uint32_t
copy_result(kl_func *f, const copy_maps *cm, uint32_t c, uint32_t r)
{
	kl_type t = r < cm->from->nvalues ? value_type(cm->from, r)
					  : KL_TYPE_NONE;
	uint32_t v = cm->vmap ? cm->vmap[r] : func_new_value(f);
	value_define(f, v, VK_RESULT, t, c);
	return v;
}

uint32_t
inst_copy(kl_func *f, const kl_func *from, uint32_t i, const uint32_t *vmap,
	  const uint32_t *bmap, const uint32_t *smap)
{
	func_edited(f);
	copy_maps cm = { from, vmap, bmap, smap };
	uint32_t c = func_new_inst(f, (kl_opcode)from->insts[i].op);
	kl_inst_data d = from->insts[i];
	/* The lists first, then the results, which are c's own. */
	switch (kl_op_table[d.op].format) {
	case KL_FMT_UNARY:
	case KL_FMT_LOAD:
	case KL_FMT_ALLOCA_DYN:
		d.w[1] = map_value(&cm, d.w[1]);
		break;
	case KL_FMT_BINARY:
	case KL_FMT_ICMP:
	case KL_FMT_FCMP:
		d.w[1] = map_value(&cm, d.w[1]);
		d.w[2] = map_value(&cm, d.w[2]);
		break;
	case KL_FMT_BINARY_IMM:
	case KL_FMT_ICMP_IMM:
		d.w[1] = map_value(&cm, d.w[1]);
		break;
	case KL_FMT_STORE:
		d.w[0] = map_value(&cm, d.w[0]);
		d.w[1] = map_value(&cm, d.w[1]);
		break;
	case KL_FMT_TERNARY:
		d.w[1] = copy_list(f, &cm, d.w[1], 0);
		break;
	case KL_FMT_RETURN:
		d.w[0] = copy_list(f, &cm, d.w[0], 0);
		break;
	case KL_FMT_CALL_INDIRECT:
		if (smap)
			d.w[1] = smap[d.w[1]];
		/* fall through */
	case KL_FMT_CALL: {
		d.w[2] = copy_list(f, &cm, d.w[2], 0);
		uint32_t rl = from->insts[i].w[0];
		uint32_t n = list_len(&from->pool, rl);
		d.w[0] = list_make(&f->pool, NULL, n);
		for (uint32_t k = 0; k < n; k++) {
			uint32_t r = copy_result(f, &cm, c,
						 list_get(&from->pool, rl, k));
			f->pool.data[d.w[0] + k] = r;
		}
		break;
	}
	case KL_FMT_JUMP:
		d.w[0] = copy_dest(f, &cm, d.w[0]);
		break;
	case KL_FMT_BRIF:
		d.w[0] = map_value(&cm, d.w[0]);
		d.w[1] = copy_dest(f, &cm, d.w[1]);
		d.w[2] = copy_dest(f, &cm, d.w[2]);
		break;
	case KL_FMT_BR_TABLE: {
		d.w[0] = map_value(&cm, d.w[0]);
		uint32_t tl = from->insts[i].w[1];
		uint32_t n = list_len(&from->pool, tl);
		d.w[1] = list_make(&f->pool, NULL, n);
		for (uint32_t k = 0; k < n; k++) {
			uint32_t w = copy_dest(f, &cm,
					       list_get(&from->pool, tl, k));
			f->pool.data[d.w[1] + k] = w;
		}
		break;
	}
	default:
		break;
	}
	if (kl_op_table[d.op].nres == 1)
		d.w[0] = copy_result(f, &cm, c, d.w[0]);
	f->insts[c] = d;
	/* a 64-bit immediate is from's constant; f has its own table */
	if ((d.bits & IMM_POOLED) && from != f)
		inst_set_imm(f, c, inst_imm(from, i));
	return c;
}

kl_inst
kl_inst_clone(kl_func *f, kl_inst i)
{
	if (i.id >= f->ninsts)
		return KL_NO_INST;
	return (kl_inst){ inst_copy(f, f, i.id, NULL, NULL, NULL) };
}
