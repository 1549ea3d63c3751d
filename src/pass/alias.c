/*
 * alias.c -- where loads and stores reach: a base and an offset for every
 * address, the allocas whose address escapes, and whether two accesses
 * may touch the same bytes.
 *
 * An address is followed up its chain of `iadd_imm`s of 64-bit values
 * to its root: an `alloca`/`alloca_dyn` (the object it made), a
 * `symbol_addr` (the symbol's object; two of one symbol are one base),
 * or any other value, a base the analysis knows nothing of. The chain's
 * immediates add up to the offset. Roots are found once per value
 * (memoized, with a stack of their own: a chain of 100,000 links is no
 * recursion), so the analysis is O(instructions + values).
 *
 * Objects are apart, as docs/interpreter.md makes them: a pointer is an
 * object's id and an offset below 2^32, and moving it by less than that
 * cannot reach another object. So an access at offset 0 to 2^31 from an
 * object's root reaches that object or traps, and two such accesses of
 * different objects never overlap. One further from its root is taken
 * as an access through a base of its own (unknown), and the object as
 * escaping.
 *
 * An alloca *escapes* when its address (or one computed from it) is
 * used otherwise than as the address of a load or store, or in an
 * iadd_imm whose result stays within it: stored as a value, passed to a
 * call, returned, compared, passed to a block. An address of unknown
 * base, or a call, may reach escaped allocas and all symbols, never an
 * alloca that does not escape. That is promote's reading too (docs/
 * passes.md): a pointer forged from an integer (an object id guessed)
 * is not followed.
 *
 * Two accesses through one unknown base are apart when their ranges are
 * (p+0 and p+8, 4 bytes each); through two unknown bases, they may
 * overlap.
 */
#include <stdlib.h>
#include <string.h>

#include "alias.h"
#include "pass.h"

/* A root not found yet, and one being found (met again: a cycle of
 * iadd_imms, in input that does not verify). */
enum { ROOT_UNSET = 0xff, ROOT_PENDING = 0xfe };

/* Offsets from an unknown base are kept within +-2^40, so that no sum of
 * an offset, an immediate and a width overflows. */
#define VALUE_OFFSET_MAX ((int64_t)1 << 40)

/* v through aliases; a value made after alias_compute (a pass's new
 * block parameter) is its own, and its own base. */
static uint32_t
resolve(const alias_info *a, uint32_t v)
{
	return v < a->nvalues ? resolve_with(a->f, a->table, v) : v;
}

static void
set_root(alias_info *a, uint32_t v, uint8_t kind, uint32_t id,
	 int64_t offset)
{
	a->kind[v] = kind;
	a->id[v] = id;
	a->offset[v] = offset;
}

/* The instruction defining v (resolved, below nvalues), or NULL. */
static const kl_inst_data *
def_of(const alias_info *a, uint32_t v)
{
	const kl_value_data *vd = &a->f->values[v];
	if (vd->kind != VK_RESULT || vd->def >= a->f->ninsts)
		return NULL;
	return &a->f->insts[vd->def];
}

/* Is v an iadd_imm of 64-bit values, a link of an address chain? */
static bool
is_link(const alias_info *a, uint32_t v)
{
	const kl_inst_data *d = def_of(a, v);
	return d && d->op == KL_OP_IADD_IMM &&
	       type_class(a->f->module, value_type(a->f, v)) == KL_TYPE_I64;
}

/* The root of v, which is no link. */
static void
set_own_root(alias_info *a, uint32_t v)
{
	const kl_inst_data *d = def_of(a, v);
	if (d && (d->op == KL_OP_ALLOCA || d->op == KL_OP_ALLOCA_DYN))
		set_root(a, v, BASE_ALLOCA, v, 0);
	else if (d && d->op == KL_OP_SYMBOL_ADDR)
		set_root(a, v, BASE_SYMBOL, d->w[1], 0);
	else
		set_root(a, v, BASE_VALUE, v, 0);
}

/* Link y's root from its operand's, x's: the same base, moved by imm;
 * or y its own base when that goes too far. */
static void
set_link_root(alias_info *a, uint32_t y, uint32_t x, int64_t imm)
{
	bool far = imm <= -VALUE_OFFSET_MAX || imm >= VALUE_OFFSET_MAX;
	if (x >= a->nvalues || a->kind[x] == ROOT_PENDING || far) {
		set_root(a, y, BASE_VALUE, y, 0);
		return;
	}
	int64_t offset = a->offset[x] + imm;
	uint8_t kind = a->kind[x];
	if (kind == BASE_VALUE
		    ? offset <= -VALUE_OFFSET_MAX || offset >= VALUE_OFFSET_MAX
		    : offset < 0 || offset >= ALIAS_OBJECT_END) {
		if (kind == BASE_ALLOCA)
			a->escaped[a->id[x]] = 1;
		set_root(a, y, BASE_VALUE, y, 0);
		return;
	}
	set_root(a, y, kind, a->id[x], offset);
}

/* Find the root of v (resolved, below nvalues) and of the links on the
 * way to it. */
static void
find_root(alias_info *a, uint32_t v)
{
	const kl_func *f = a->f;
	uint32_t n = 0;
	while (v < a->nvalues && a->kind[v] == ROOT_UNSET) {
		if (!is_link(a, v)) {
			set_own_root(a, v);
			break;
		}
		a->kind[v] = ROOT_PENDING;
		a->stack[n++] = v;
		v = resolve(a, def_of(a, v)->w[1]);
	}
	while (n) {
		uint32_t y = a->stack[--n];
		const kl_inst_data *d = def_of(a, y);
		set_link_root(a, y, resolve(a, d->w[1]),
			      inst_imm(f, f->values[y].def));
	}
}

static void
size_for(alias_info *a, const kl_func *f)
{
	void **arrays[] = { (void **)&a->kind, (void **)&a->id,
			    (void **)&a->offset, (void **)&a->escaped,
			    (void **)&a->loaded, (void **)&a->stack };
	const size_t sizes[] = { 1, sizeof *a->id, sizeof *a->offset, 1, 1,
				 sizeof *a->stack };
	a->nvalues = f->nvalues;
	pass_grow_all(&a->values_cap, f->nvalues, 6, arrays, sizes);
	memset(a->kind, ROOT_UNSET, f->nvalues);
	memset(a->escaped, 0, f->nvalues);
	memset(a->loaded, 0, f->nvalues);
}

/* Operand k of instruction i is v (resolved): does that use let the
 * address escape, if v is one of an alloca's? */
static void
check_use(alias_info *a, uint32_t i, uint32_t k, uint32_t v)
{
	const kl_func *f = a->f;
	if (v >= a->nvalues)
		return;
	/* Only an alloca's result and a chain of iadd_imms can be an
	 * alloca's address: the others need no root (most operands). */
	const kl_inst_data *def = def_of(a, v);
	if (!def || (def->op != KL_OP_IADD_IMM && def->op != KL_OP_ALLOCA &&
		     def->op != KL_OP_ALLOCA_DYN))
		return;
	find_root(a, v);
	if (a->kind[v] != BASE_ALLOCA)
		return;
	const kl_inst_data *d = &f->insts[i];
	uint8_t format = kl_op_table[d->op].format;
	bool address = (format == KL_FMT_LOAD && k == 0) ||
		       (format == KL_FMT_STORE && k == 1);
	if (d->op == KL_OP_IADD_IMM && d->w[0] < a->nvalues) {
		/* Kept within the object, a new address of it. */
		find_root(a, d->w[0]);
		address = a->kind[d->w[0]] == BASE_ALLOCA;
	}
	if (!address)
		a->escaped[a->id[v]] = 1;
}

/* The arguments instruction i passes to blocks: every one escapes. */
static void
check_dest_args(alias_info *a, uint32_t i)
{
	const kl_func *f = a->f;
	const uint32_t *dests;
	uint32_t nd = inst_dests(f, i, &dests);
	for (uint32_t k = 0; k < nd; k++) {
		uint32_t block, nargs;
		const uint32_t *args;
		if (!dest_read(&f->pool, dests[k], &block, &args, &nargs))
			continue;
		for (uint32_t j = 0; j < nargs; j++)
			check_use(a, i, KL_NONE, resolve(a, args[j]));
	}
}

/* Instruction i as a load (of what) or a store (that falls out of its
 * object's reach). */
static void
note_access(alias_info *a, uint32_t i)
{
	uint8_t format = kl_op_table[a->f->insts[i].op].format;
	if (format != KL_FMT_LOAD && format != KL_FMT_STORE)
		return;
	mem_place p = alias_place(a, i);
	if (format == KL_FMT_LOAD && p.kind == BASE_ALLOCA)
		a->loaded[p.id] = 1;
}

void
alias_compute(alias_info *a, const kl_func *f, const uint32_t *table)
{
	a->f = f;
	a->table = table;
	size_for(a, f);
	a->nallocas = 0;
	for (uint32_t b = f->first_block; b != KL_NONE; b = f->blocks[b].next)
		for (uint32_t i = f->blocks[b].first; i != KL_NONE;
		     i = f->nodes[i].next) {
			uint8_t format = kl_op_table[f->insts[i].op].format;
			if (format != KL_FMT_ALLOCA &&
			    format != KL_FMT_ALLOCA_DYN)
				continue;
			kl_grow(&a->allocas, &a->allocas_cap,
				sizeof *a->allocas, (uint64_t)a->nallocas + 1);
			a->allocas[a->nallocas++] = f->insts[i].w[0];
		}
	/* Without allocas, nothing can escape, and nothing is loaded that
	 * a pass asks about (most functions after promote): no walk. */
	for (uint32_t b = f->first_block; a->nallocas && b != KL_NONE;
	     b = f->blocks[b].next)
		for (uint32_t i = f->blocks[b].first; i != KL_NONE;
		     i = f->nodes[i].next) {
			const uint32_t *vals;
			uint32_t n = inst_args(f, i, &vals);
			for (uint32_t k = 0; k < n; k++)
				check_use(a, i, k, resolve(a, vals[k]));
			check_dest_args(a, i);
			note_access(a, i);
		}
}

/* Do the bytes of an object of `size` hold [offset, offset + bytes)? */
static bool
inside(int64_t offset, uint32_t bytes, uint64_t size)
{
	return offset >= 0 && (uint64_t)offset + bytes <= size;
}

/* Can a store to p trap? Not inside an alloca of constant size, nor
 * inside data that is not const. */
static bool
store_cannot_trap(const alias_info *a, const mem_place *p)
{
	const kl_func *f = a->f;
	if (p->kind == BASE_ALLOCA) {
		const kl_inst_data *d = def_of(a, p->id);
		return d && d->op == KL_OP_ALLOCA &&
		       inside(p->offset, p->bytes, d->w[1]);
	}
	if (p->kind != BASE_SYMBOL || p->id >= f->module->nsyms)
		return false;
	const kl_sym_data *s = &f->module->syms[p->id];
	return s->kind == KL_SYM_DATA && !s->is_const &&
	       inside(p->offset, p->bytes, s->size);
}

mem_place
alias_place(alias_info *a, uint32_t i)
{
	const kl_func *f = a->f;
	const kl_inst_data *d = &f->insts[i];
	uint32_t addr = resolve(a, d->w[1]);
	uint32_t v = resolve(a, d->w[0]);
	int64_t offset = (int32_t)d->w[2];
	uint32_t bytes = kl_op_table[d->op].memw;
	if (!bytes && v < f->nvalues)
		bytes = kl_type_bytes(f->module, value_type(f, v));
	if (!bytes || bytes > 8)
		bytes = 8; /* (broken input: a value of no type) */
	mem_place p = { BASE_VALUE, false, addr, bytes, offset };
	if (addr >= a->nvalues)
		return p;
	find_root(a, addr);
	uint8_t kind = a->kind[addr];
	int64_t at = a->offset[addr] + offset;
	if (kind != BASE_VALUE && inside(at, bytes, ALIAS_OBJECT_END)) {
		p = (mem_place){ kind, false, a->id[addr], bytes, at };
		p.in_bounds = store_cannot_trap(a, &p);
	} else if (kind == BASE_VALUE) {
		p.id = a->id[addr];
		p.offset = at;
	} else if (kind == BASE_ALLOCA) {
		a->escaped[a->id[addr]] = 1; /* out of its object's reach */
	}
	return p;
}

static bool
same_base(const mem_place *x, const mem_place *y)
{
	return x->kind == y->kind && x->id == y->id;
}

bool
alias_may_overlap(const alias_info *a, const mem_place *x,
		  const mem_place *y)
{
	if (same_base(x, y))
		return x->offset < y->offset + y->bytes &&
		       y->offset < x->offset + x->bytes;
	if (x->kind != BASE_VALUE && y->kind != BASE_VALUE)
		return false; /* two objects */
	const mem_place *object = x->kind == BASE_VALUE ? y : x;
	return alias_call_reaches(a, object);
}

bool
alias_covers(const mem_place *x, const mem_place *y)
{
	return same_base(x, y) && x->offset <= y->offset &&
	       y->offset + y->bytes <= x->offset + x->bytes;
}

uint32_t
alias_object(const alias_info *a, const mem_place *p)
{
	if (p->kind == BASE_ALLOCA)
		return p->id;
	return p->kind == BASE_SYMBOL ? a->nvalues + p->id : KL_NONE;
}

bool
alias_object_reachable(const alias_info *a, uint32_t x)
{
	return x >= a->nvalues || a->escaped[x];
}

bool
alias_call_reaches(const alias_info *a, const mem_place *x)
{
	return x->kind != BASE_ALLOCA || a->escaped[x->id];
}

void
alias_free(alias_info *a)
{
	free(a->kind);
	free(a->id);
	free(a->offset);
	free(a->escaped);
	free(a->loaded);
	free(a->stack);
	free(a->allocas);
	memset(a, 0, sizeof *a);
}
