/*
 * memory.c -- ad hoc memory rules that need no analysis beyond following
 * address arithmetic:
 *   - a load or store at a constant offset from an alloca's result or a
 *     data object's address (the address is the alloca or symbol_addr,
 *     or an iadd_imm chain over it) must stay inside the object: offset
 *     >= 0 and offset + size <= its size (a 0-byte alloca is an error
 *     already, and is left alone);
 *   - a store through such an address of a const data object, inside
 *     it, is not allowed (outside it, the first rule says what is wrong).
 * Both are warnings, not errors: such an access traps when it runs (the
 * interpreter checks every access), and a pass that forwards an address
 * (promote, given int *p = &x) can bring it to light in code that never
 * runs, so a function that breaks them still verifies.
 *
 * The (base, constant offset) of every address value is computed at most
 * once and memoised per value; a chain is walked with an explicit stack
 * (no recursion), and a value met again while its own chain is being
 * walked (a cycle, which only broken IR has) has no known base. Offsets
 * that would overflow 64 bits are "unknown" too, so the rules never fire
 * on arithmetic they cannot follow exactly.
 */
#include <stdlib.h>

#include "verify.h"
#include "../text/text.h"

enum { ADDR_NEW = 0, ADDR_BUSY = 1, ADDR_DONE = 2 };

/* The value r is an address: a base of its own, or an iadd_imm on one? */
static uint32_t
addr_step(const verifier *vf, uint32_t r, uint32_t *inner, int64_t *imm)
{
	const kl_func *f = vf->f;
	*inner = KL_NONE;
	if (r >= f->nvalues || vf->vals[r].state != DEF_OK ||
	    f->values[r].kind != VK_RESULT)
		return KL_NONE;
	uint32_t d = f->values[r].def;
	if (!is_placed(vf, d))
		return KL_NONE;
	uint16_t op = f->insts[d].op;
	if (op == KL_OP_ALLOCA || op == KL_OP_SYMBOL_ADDR)
		return d;
	if (op == KL_OP_IADD_IMM && (!(f->insts[d].bits & IMM_POOLED) ||
				     f->insts[d].w[2] < f->nconsts)) {
		*inner = f->insts[d].w[1];
		*imm = inst_imm(f, d);
	}
	return KL_NONE;
}

/* Base instruction and offset of address value v; false if unknown. */
static bool
addr_of(verifier *vf, uint32_t v, uint32_t *base, int64_t *off)
{
	const kl_func *f = vf->f;
	if (!vf->addr_state) {
		vf->addr_state = scratch_get(vf->s, S_ADDR_STATE, f->nvalues,
					     0);
		vf->addr_base = scratch_get(vf->s, S_ADDR_BASE,
					    (size_t)f->nvalues *
						    sizeof *vf->addr_base, -1);
		vf->addr_off = scratch_get(vf->s, S_ADDR_OFF,
					   (size_t)f->nvalues *
						   sizeof *vf->addr_off, -1);
	}
	uint32_t n = 0;
	uint32_t r = v < f->nvalues ? resolved(vf, v) : KL_NONE;
	/* Down the chain until a value whose answer is known. */
	for (;;) {
		if (r >= f->nvalues || vf->addr_state[r] == ADDR_BUSY) {
			*base = KL_NONE; /* out of range, broken, or a cycle */
			*off = 0;
			break;
		}
		if (vf->addr_state[r] == ADDR_DONE) {
			*base = vf->addr_base[r];
			*off = vf->addr_off[r];
			break;
		}
		uint32_t inner;
		int64_t imm = 0;
		uint32_t b = addr_step(vf, r, &inner, &imm);
		if (inner == KL_NONE) {
			vf->addr_state[r] = ADDR_DONE;
			vf->addr_base[r] = b;
			vf->addr_off[r] = 0;
			*base = b;
			*off = 0;
			break;
		}
		vf->addr_state[r] = ADDR_BUSY;
		kl_grow(&vf->s->stack, &vf->s->stack_cap, sizeof *vf->s->stack,
			n + 1);
		vf->s->stack[n++] = r;
		r = inner < f->nvalues ? resolved(vf, inner) : KL_NONE;
	}
	/* Back up, adding each iadd_imm's immediate. */
	while (n > 0) {
		uint32_t w = vf->s->stack[--n];
		uint32_t inner;
		int64_t imm = 0;
		addr_step(vf, w, &inner, &imm);
		if (*base != KL_NONE && add_overflows(*off, imm))
			*base = KL_NONE;
		*off = *base == KL_NONE ? 0 : *off + imm;
		vf->addr_state[w] = ADDR_DONE;
		vf->addr_base[w] = *base;
		vf->addr_off[w] = *off;
	}
	return *base != KL_NONE;
}

void
check_memory(verifier *vf, uint32_t i, const inst_view *iv)
{
	const kl_func *f = vf->f;
	const kl_inst_data *d = &f->insts[i];
	const kl_opinfo *info = iv->info;
	bool is_store;
	uint32_t addr, val;
	if (info->format == KL_FMT_LOAD) {
		is_store = false;
		addr = iv->args[0];
		val = iv->results[0];
	} else if (info->format == KL_FMT_STORE) {
		is_store = true;
		addr = iv->args[1];
		val = iv->args[0];
	} else {
		return;
	}
	uint32_t base;
	int64_t off;
	if (!addr_of(vf, addr, &base, &off))
		return;
	if (add_overflows(off, (int32_t)d->w[2]))
		return;
	off += (int32_t)d->w[2];
	const kl_inst_data *bd = &f->insts[base];
	const kl_module *m = vf->m;
	uint64_t osize;
	uint32_t sym = bd->w[1];
	bool data = bd->op == KL_OP_SYMBOL_ADDR;
	if (data) {
		/* Only data has bytes to check; a function's address is not
		 * followed. */
		if (sym >= m->nsyms || m->syms[sym].kind != KL_SYM_DATA)
			return;
		osize = m->syms[sym].size;
	} else {
		/* A 0-byte alloca is an error of its own (typing.c), which
		 * every access would only repeat. */
		osize = bd->w[1];
		if (osize == 0)
			return;
	}
	uint32_t size = info->memw;
	if (size == 0) {
		kl_type c = operand_class(vf, val);
		if (c == KL_TYPE_NONE)
			return;
		size = kl_type_bytes(m, c);
	}
	/* Outside the object, the address is what is wrong, const or not;
	 * inside const data, the store. */
	bool outside = off < 0 || (uint64_t)off > osize ||
		       osize - (uint64_t)off < size;
	if (!outside && !(is_store && data && m->syms[sym].is_const))
		return;
	kl_buf name = { 0 };
	if (data)
		fmt_sym(&name, m, sym);
	else
		kl_buf_printf(&name, "alloca v%u", bd->w[0]);
	if (outside)
		warn_inst(vf, i, "%s of %u byte%s at offset %lld is outside "
			  "the %llu-byte %s", is_store ? "store" : "load",
			  size, size == 1 ? "" : "s", (long long)off,
			  (unsigned long long)osize, name.data);
	else
		warn_inst(vf, i, "store into constant data %s", name.data);
	kl_buf_free(&name);
}
