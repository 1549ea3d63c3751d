/*
 * memfacts.c -- what memory is known to hold: a short list of facts,
 * "the bytes at this place hold the low bytes of this value", made by
 * stores and plain loads and taken away by the stores and calls that
 * may overwrite them (alias.c says which), and a load rebuilt from a
 * fact that holds all its bytes.
 *
 * Memory is little-endian (docs/interpreter.md): byte k of a value
 * stored at offset o is at o + k. A load of w bytes at offset o + s,
 * inside a fact of value v at o, reads bits 8s to 8(s + w) of v: a
 * `ushr_imm` by 8s, an `ireduce` to w bytes, then what the load's
 * opcode does to them (uloadN and sloadN extend, `uextend` or
 * `sextend`; a load of a float is a `bitcast`). A float value is
 * bitcast to an integer first. The load's own bytes lie inside the
 * fact's, which a store or load wrote or read without trapping: the
 * load could not have trapped either.
 */
#include <string.h>

#include "../ir/ir.h"
#include "memfacts.h"

static void
drop(mem_facts *m, uint32_t k)
{
	memmove(&m->e[k], &m->e[k + 1], (m->n - k - 1) * sizeof *m->e);
	m->n--;
}

static void
push(mem_facts *m, const mem_place *p, uint32_t value)
{
	if (m->n == MEMFACTS_MAX)
		drop(m, 0);
	m->e[m->n++] = (mem_fact){ *p, value };
}

void
memfacts_store(mem_facts *m, const alias_info *a, const mem_place *p,
	       uint32_t value)
{
	uint32_t kept = 0;
	for (uint32_t k = 0; k < m->n; k++)
		if (!alias_may_overlap(a, &m->e[k].at, p))
			m->e[kept++] = m->e[k];
	m->n = kept;
	push(m, p, value);
}

void
memfacts_load(mem_facts *m, const mem_place *p, uint32_t value)
{
	push(m, p, value);
}

void
memfacts_call(mem_facts *m, const alias_info *a)
{
	uint32_t kept = 0;
	for (uint32_t k = 0; k < m->n; k++)
		if (!alias_call_reaches(a, &m->e[k].at))
			m->e[kept++] = m->e[k];
	m->n = kept;
}

/* The integer type of `bytes` bytes (1, 2, 4 or 8). */
static kl_type
int_type(uint32_t bytes)
{
	switch (bytes) {
	case 1: return KL_TYPE_I8;
	case 2: return KL_TYPE_I16;
	case 4: return KL_TYPE_I32;
	default: return KL_TYPE_I64;
	}
}

static bool
is_float(kl_type cls)
{
	return cls == KL_TYPE_F32 || cls == KL_TYPE_F64;
}

/* The newest fact holding all of q's bytes, or NULL. */
static const mem_fact *
holding(const mem_facts *m, const mem_place *q)
{
	for (uint32_t k = m->n; k-- > 0;) {
		const mem_fact *e = &m->e[k];
		if (alias_covers(&e->at, q))
			return e;
	}
	return NULL;
}

uint32_t
memfacts_rebuild(const mem_facts *m, kl_func *f, uint32_t i,
		 const mem_place *q)
{
	const mem_fact *e = holding(m, q);
	uint32_t r = f->insts[i].w[0];
	if (!e || e->value >= f->nvalues || r >= f->nvalues)
		return KL_NONE;
	const kl_module *mod = f->module;
	kl_type vcls = type_class(mod, value_type(f, e->value));
	kl_type rcls = type_class(mod, value_type(f, r));
	uint32_t vbytes = kl_type_bytes(mod, vcls);
	if (!vbytes || !kl_type_bytes(mod, rcls))
		return KL_NONE; /* (broken input: a value of no type) */
	int64_t shift = 8 * (q->offset - e->at.offset);
	bool plain = f->insts[i].op == KL_OP_LOAD;
	if (plain && !shift && q->bytes == vbytes && rcls == vcls)
		return e->value; /* the bytes as they were */
	kl_builder b;
	kl_builder_init(&b, f);
	kl_builder_before(&b, (kl_inst){ i });
	kl_value x = { e->value };
	if (is_float(vcls))
		x = kl_build_unary(&b, KL_OP_BITCAST, int_type(vbytes), x);
	if (shift)
		x = kl_build_binary_imm(&b, KL_OP_USHR_IMM, x, shift);
	if (q->bytes < vbytes)
		x = kl_build_unary(&b, KL_OP_IREDUCE, int_type(q->bytes), x);
	switch (f->insts[i].op) {
	case KL_OP_ULOAD8:
	case KL_OP_ULOAD16:
	case KL_OP_ULOAD32:
		x = kl_build_unary(&b, KL_OP_UEXTEND, rcls, x);
		break;
	case KL_OP_SLOAD8:
	case KL_OP_SLOAD16:
	case KL_OP_SLOAD32:
		x = kl_build_unary(&b, KL_OP_SEXTEND, rcls, x);
		break;
	default:
		if (is_float(rcls))
			x = kl_build_unary(&b, KL_OP_BITCAST, rcls, x);
		break;
	}
	return kl_builder_status(&b) == KL_OK ? x.id : KL_NONE;
}
