/*
 * memfacts.c -- what memory is known to hold: a short list of facts,
 * "these bytes hold those bytes of this value" or "these bytes are
 * zeros", made by stores, plain loads and allocas (fresh memory reads
 * as zeros), cut down by the stores and calls that may overwrite them
 * (alias.c says which: a store takes out of a fact of its own base just
 * the bytes it writes, and drops a fact of another base it may reach),
 * and a load rebuilt from the facts that hold its bytes.
 *
 * Memory is little-endian (docs/interpreter.md): byte k of a value
 * stored at offset o is at o + k. A load of w bytes whose bytes are all
 * known, runs of values' bytes and zeros, reads each run shifted into
 * place: a `ushr_imm` to its first byte, an `ireduce` or `uextend` to w
 * bytes, a `band_imm` if more of the value follows, an `ishl_imm` to
 * where the run lies in the load; two runs are or'ed (`bor`). Then what
 * the load's opcode does (uloadN and sloadN extend, `uextend` or
 * `sextend`; a load of a float is a `bitcast`). A float value is bitcast
 * to an integer first. All zeros are a constant. One run anywhere; two
 * only where the caller says (cse: in an alloca whose address does not
 * escape, where dse may then remove the stores; elsewhere the stores
 * stay, and five instructions cost more than the load). The load's bytes lie inside
 * ones a store, a load or an alloca reached without trapping, so it
 * could not have trapped either.
 */
#include <string.h>

#include "../ir/ir.h"
#include "memfacts.h"

static void
push(mem_facts *m, const mem_fact *e)
{
	if (m->n == MEMFACTS_MAX) {
		memmove(&m->e[0], &m->e[1], (m->n - 1) * sizeof *m->e);
		m->n--;
	}
	m->e[m->n++] = *e;
}

static bool
same_base(const mem_place *x, const mem_place *y)
{
	return x->kind == y->kind && x->id == y->id;
}

/* What of fact e lies outside bytes [lo, hi) of its base, into out. */
static void
push_outside(mem_facts *out, const mem_fact *e, int64_t lo, int64_t hi)
{
	int64_t a = e->at.offset, b = a + e->at.bytes;
	if (hi <= a || lo >= b) {
		push(out, e);
		return;
	}
	if (lo > a) {
		mem_fact below = *e;
		below.at.bytes = (uint32_t)(lo - a);
		push(out, &below);
	}
	if (hi < b) {
		mem_fact above = *e;
		above.at.offset = hi;
		above.at.bytes = (uint32_t)(b - hi);
		above.skip += (uint32_t)(hi - a);
		push(out, &above);
	}
}

void
memfacts_store(mem_facts *m, const alias_info *a, const mem_place *p,
	       uint32_t value)
{
	mem_facts out = { .n = 0 };
	for (uint32_t k = 0; k < m->n; k++) {
		const mem_fact *e = &m->e[k];
		if (same_base(&e->at, p))
			push_outside(&out, e, p->offset,
				     p->offset + p->bytes);
		else if (!alias_may_overlap(a, &e->at, p))
			push(&out, e);
	}
	*m = out;
	push(m, &(mem_fact){ *p, value, 0 });
}

void
memfacts_load(mem_facts *m, const mem_place *p, uint32_t value)
{
	push(m, &(mem_fact){ *p, value, 0 });
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

void
memfacts_alloca(mem_facts *m, uint32_t x, uint64_t size)
{
	if (!size)
		return;
	mem_fact e = { .value = MEMFACTS_ZERO };
	e.at.kind = BASE_ALLOCA;
	e.at.id = x;
	e.at.bytes = size < ALIAS_OBJECT_END ? (uint32_t)size
					     : (uint32_t)ALIAS_OBJECT_END;
	push(m, &e);
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

/* Runs of a value's bytes one load takes, at most: each costs a few
 * instructions (two: a struct's two fields read as one word). */
#define MAX_RUNS 2

/* Bytes [lo, hi) of a load: bytes of one value in a row, from `from`
 * on. */
typedef struct byte_run {
	const mem_fact *from;
	uint32_t lo, hi;
} byte_run;

/* Where a load's bytes come from: runs of values' bytes, zeros for the
 * rest (no run: all zeros). */
typedef struct load_bytes {
	byte_run run[MAX_RUNS];
	uint32_t n;
} load_bytes;

/* The newest fact holding byte `at` of q's base, or NULL. */
static const mem_fact *
fact_at(const mem_facts *m, const mem_place *q, int64_t at)
{
	for (uint32_t k = m->n; k-- > 0;) {
		const mem_fact *e = &m->e[k];
		if (same_base(&e->at, q) && e->at.offset <= at &&
		    at < e->at.offset + e->at.bytes)
			return e;
	}
	return NULL;
}

/* The byte of its value that byte `at` of a load holds, by fact e. */
static uint32_t
value_byte(const mem_fact *e, int64_t at)
{
	return (uint32_t)(at - e->at.offset) + e->skip;
}

/* Does every byte of q come from facts: zeros, and at most `runs`
 * runs of values' bytes? Where they come from into *lb. */
static bool
known_bytes(const mem_facts *m, const mem_place *q, uint32_t runs,
	    load_bytes *lb)
{
	lb->n = 0;
	for (uint32_t k = 0; k < q->bytes; k++) {
		int64_t at = q->offset + k;
		const mem_fact *e = fact_at(m, q, at);
		if (!e)
			return false;
		if (e->value == MEMFACTS_ZERO)
			continue;
		byte_run *last = lb->n ? &lb->run[lb->n - 1] : NULL;
		/* the same value's next byte, right after the run's last */
		if (last && last->hi == k && e->value == last->from->value &&
		    value_byte(e, at) ==
			    value_byte(last->from, q->offset + k - 1) + 1) {
			last->hi++;
			continue;
		}
		if (lb->n == runs)
			return false;
		lb->run[lb->n++] = (byte_run){ e, k, k + 1 };
	}
	return true;
}

/* Run lb of the load, as an integer of the load's width w, zeros
 * around, built by b; KL_NO_VALUE for broken input. */
static kl_value
value_bytes(kl_builder *b, const kl_func *f, const mem_place *q,
	    const byte_run *lb, uint32_t w)
{
	const mem_fact *e = lb->from;
	if (e->value >= f->nvalues)
		return KL_NO_VALUE;
	kl_type vcls = type_class(f->module, value_type(f, e->value));
	uint32_t vbytes = kl_type_bytes(f->module, vcls);
	uint32_t first = value_byte(e, q->offset + lb->lo);
	uint32_t n = lb->hi - lb->lo;
	if (!vbytes || first + n > vbytes)
		return KL_NO_VALUE; /* (broken input: a value of no type) */
	kl_value x = { e->value };
	if (is_float(vcls))
		x = kl_build_unary(b, KL_OP_BITCAST, int_type(vbytes), x);
	if (first)
		x = kl_build_binary_imm(b, KL_OP_USHR_IMM, x, 8 * first);
	if (vbytes > w)
		x = kl_build_unary(b, KL_OP_IREDUCE, int_type(w), x);
	else if (vbytes < w)
		x = kl_build_unary(b, KL_OP_UEXTEND, int_type(w), x);
	if (n < w && first + n < vbytes) { /* (n < w <= 8) */
		uint64_t mask = (UINT64_C(1) << (8 * n)) - 1;
		x = kl_build_binary_imm(b, KL_OP_BAND_IMM, x, (int64_t)mask);
	}
	if (lb->lo)
		x = kl_build_binary_imm(b, KL_OP_ISHL_IMM, x, 8 * lb->lo);
	return x;
}

uint32_t
memfacts_rebuild(const mem_facts *m, kl_func *f, uint32_t i,
		 const mem_place *q, bool several)
{
	load_bytes lb;
	uint32_t r = f->insts[i].w[0];
	if (r >= f->nvalues || !known_bytes(m, q, several ? MAX_RUNS : 1, &lb))
		return KL_NONE;
	const kl_module *mod = f->module;
	kl_type rcls = type_class(mod, value_type(f, r));
	uint32_t w = q->bytes;
	if (!kl_type_bytes(mod, rcls) || w > 8)
		return KL_NONE; /* (broken input: a value of no type) */
	kl_opcode op = (kl_opcode)f->insts[i].op;
	const byte_run *one = &lb.run[0];
	if (lb.n == 1 && one->lo == 0 && one->hi == w && one->from->skip == 0 &&
	    one->from->at.offset == q->offset && op == KL_OP_LOAD &&
	    one->from->value < f->nvalues &&
	    type_class(mod, value_type(f, one->from->value)) == rcls)
		return one->from->value; /* the bytes as they were */
	kl_builder b;
	kl_builder_init(&b, f);
	kl_builder_before(&b, (kl_inst){ i });
	kl_value x;
	if (!lb.n) { /* zeros, extended or not, as the load's type */
		if (rcls == KL_TYPE_F32)
			x = kl_build_f32const(&b, 0);
		else if (rcls == KL_TYPE_F64)
			x = kl_build_f64const(&b, 0);
		else
			x = kl_build_iconst(&b, rcls, 0);
		return kl_builder_status(&b) == KL_OK ? x.id : KL_NONE;
	}
	x = value_bytes(&b, f, q, &lb.run[0], w);
	for (uint32_t k = 1; k < lb.n && x.id != KL_NONE; k++) {
		kl_value y = value_bytes(&b, f, q, &lb.run[k], w);
		x = y.id == KL_NONE ? y : kl_build_binary(&b, KL_OP_BOR, x, y);
	}
	if (x.id == KL_NONE)
		return KL_NONE;
	switch (op) {
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
