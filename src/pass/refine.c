/*
 * refine.c -- type refinement: which integers are signed, unsigned or
 * pointers, from how the function uses them.
 *
 * Refined types change nothing a program computes (docs/ir.md, "Refined
 * types"); they say what it means, for a reader and the tools that show
 * a program to one (a decompiler's output).
 * The pass gathers evidence and spreads it over the values that must
 * mean the same thing, then gives each integer value that has a machine
 * type the refined type its evidence asks for, where the text can write
 * it (kl_value_typable). Values the input already refined keep their types
 * and count as evidence.
 *
 * Pointers first. A value is one when it is a load's or store's address,
 * an alloca's or symbol_addr's result, call_indirect's callee, or passed
 * or returned where a signature says ptr. Pointer-ness is shared by a
 * block parameter and the arguments passed for it, select and its two
 * choices, copy and its operand, and iadd_imm and its operand (an address
 * plus a constant is an address, and what a constant is added to to make
 * an address was one). iadd of a pointer and a non-pointer gives a
 * pointer, isub a pointer minus a non-pointer; and the sum of two values
 * that is an address gets it from the one whose partner looks like an
 * index (a constant, a product, a shift or an extension). Each sum is
 * looked at once, then again whenever the set of one of its values turns
 * into a pointer's (a worklist, in a fixed order: the answer is the same
 * on every run), so pointer-ness goes down chains of sums either way.
 *
 * Then signs, over the values that are not pointers. sdiv, srem, the
 * signed compares, sshr, sextend, the sload forms and the signed float
 * conversions are signed evidence; their unsigned forms unsigned. The
 * values a result is computed from in the same width share its sign
 * (iadd, isub, imul, ineg, the bit operations, shifts' first operand,
 * select, copy, block parameters and their arguments), as do the two
 * operands of a compare. A group with evidence of one sign only gets it;
 * one with both, or none, keeps its machine types.
 *
 * The sets are union-find's (union by rank, path halving): near-linear in
 * instructions, arguments and values, with 25 bytes of scratch a value.
 * The layout is not changed, and nothing but value types is.
 */
#include <stdlib.h>
#include <string.h>

#include "../ir/ir.h"
#include "../util/util.h"
#include "pass.h"

enum { EV_SIGNED = 1, EV_UNSIGNED = 2, EV_POINTER = 4 };

/* What a value of type t is evidence of. */
static uint8_t
evidence_of(const kl_module *m, kl_type t)
{
	switch (kl_type_refinement(m, t)) {
	case KL_REFINE_SIGNED:
		return EV_SIGNED;
	case KL_REFINE_UNSIGNED:
		return EV_UNSIGNED;
	case KL_REFINE_POINTER:
		return EV_POINTER;
	default:
		return 0;
	}
}

/* Scratch kept from one function to the next (a pass report's state). */
typedef struct refine {
	uint32_t *ptr_parent;  /* per value: pointer-ness sets */
	uint32_t *sign_parent; /* per value: sign sets */
	uint8_t *ptr_rank, *sign_rank;
	uint8_t *ev;           /* EV_POINTER at a pointer set's root,
				* EV_SIGNED/EV_UNSIGNED at a sign set's */
	uint32_t *int_of;      /* per value: its end through aliases if
				* that is an integer value, else KL_NONE */
	uint8_t *cls;          /* per value: the machine class of that */
	uint8_t *pointer;      /* per value: a pointer, once the pointer
				* sets are final (fix_pointers) */
	uint32_t *resolved;    /* func_resolve_table's buffer */
	uint32_t *sums;        /* the iadd and isub instructions */
	/* The sums touching each pointer set, a list joined as the sets
	 * are, so that a set turning into a pointer's brings back just the
	 * sums whose rules may now apply (join_pointers). */
	uint32_t *inc_head, *inc_tail; /* per value: a set's list */
	uint32_t *inc_next, *inc_sum;  /* per entry: next, instruction */
	uint32_t *work;        /* sums to look at again, in order */
	uint32_t *later;       /* sums that wait to guess (pointer_sum) */
	uint32_t values_cap, resolved_cap, nsums, sums_cap;
	uint32_t ninc, inc_cap, nwork, work_cap, nlater, later_cap;
	bool tracking;         /* the lists exist */
	const kl_func *f;
	kl_type ptr_class;
} refine;

static void
refine_free(void *state)
{
	refine *r = state;
	if (!r)
		return;
	free(r->ptr_parent);
	free(r->sign_parent);
	free(r->ptr_rank);
	free(r->sign_rank);
	free(r->ev);
	free(r->int_of);
	free(r->cls);
	free(r->pointer);
	free(r->sums);
	free(r->inc_head);
	free(r->inc_tail);
	free(r->inc_next);
	free(r->inc_sum);
	free(r->work);
	free(r->later);
	free(r->resolved);
	free(r);
}

static void *
refine_new(void)
{
	return kl_calloc(1, sizeof(refine));
}

/* Room for f's values, each its own set, and what int_value reads. */
static void
refine_size(refine *r, const kl_func *f)
{
	uint32_t nv = f->nvalues;
	pass_grow_all(&r->values_cap, (uint64_t)nv + 1, 10,
		      (void **[]){ (void **)&r->ptr_parent,
				   (void **)&r->sign_parent,
				   (void **)&r->ptr_rank,
				   (void **)&r->sign_rank, (void **)&r->ev,
				   (void **)&r->int_of, (void **)&r->cls,
				   (void **)&r->pointer, (void **)&r->inc_head,
				   (void **)&r->inc_tail },
		      (const size_t[]){ sizeof *r->ptr_parent,
					sizeof *r->sign_parent,
					sizeof *r->ptr_rank,
					sizeof *r->sign_rank, sizeof *r->ev,
					sizeof *r->int_of, sizeof *r->cls,
					sizeof *r->pointer, sizeof *r->inc_head,
					sizeof *r->inc_tail });
	memset(r->ptr_rank, 0, nv);
	memset(r->sign_rank, 0, nv);
	memset(r->ev, 0, nv);
	r->f = f;
	const kl_module *m = f->module;
	const uint32_t *table =
		func_resolve_table(f, &r->resolved, &r->resolved_cap);
	for (uint32_t v = 0; v < nv; v++) {
		r->ptr_parent[v] = r->sign_parent[v] = v;
		uint32_t e = resolve_with(f, table, v);
		uint8_t kind = e < nv ? f->values[e].kind : VK_UNUSED;
		kl_type t = e < nv ? value_type(f, e) : KL_TYPE_NONE;
		bool ok = (kind == VK_RESULT || kind == VK_PARAM) &&
			  kl_type_is_int(m, t);
		r->int_of[v] = ok ? e : KL_NONE;
		r->cls[v] = ok ? (uint8_t)kl_type_class(m, t) : 0;
		/* what the input's types already say */
		r->ev[v] = ok && e == v ? evidence_of(m, t) : 0;
	}
	r->nsums = r->ninc = r->nwork = r->nlater = 0;
	r->tracking = false;
	r->ptr_class = kl_type_class(m, kl_module_pointer_type(m));
}

static uint32_t
find(uint32_t *parent, uint32_t v)
{
	while (parent[v] != v) {
		parent[v] = parent[parent[v]];
		v = parent[v];
	}
	return v;
}

/* Join the sets of a and b; the evidence bits in mask go with them. */
static void
unite(refine *r, uint32_t *parent, uint8_t *rank, uint8_t mask, uint32_t a,
      uint32_t b)
{
	a = find(parent, a);
	b = find(parent, b);
	if (a == b)
		return;
	if (rank[a] < rank[b]) {
		uint32_t t = a;
		a = b;
		b = t;
	}
	parent[b] = a;
	rank[a] += rank[a] == rank[b];
	r->ev[a] |= r->ev[b] & mask;
}

/* v through its aliases if it is an integer value the pass may read,
 * else KL_NONE. */
static inline uint32_t
int_value(const refine *r, uint32_t v)
{
	return v < r->f->nvalues ? r->int_of[v] : KL_NONE;
}

/* The machine class of an integer value (int_value's). */
static inline kl_type
class_of(const refine *r, uint32_t v)
{
	return r->cls[v];
}

/* ---- pointers ---- */

static void
mark_pointer(refine *r, uint32_t v)
{
	v = int_value(r, v);
	if (v != KL_NONE && class_of(r, v) == r->ptr_class)
		r->ev[find(r->ptr_parent, v)] |= EV_POINTER;
}

/* While the pointer sets grow. */
static bool
is_pointer(refine *r, uint32_t v)
{
	v = int_value(r, v);
	return v != KL_NONE && class_of(r, v) == r->ptr_class &&
	       (r->ev[find(r->ptr_parent, v)] & EV_POINTER);
}

/* Once they are final: one byte a value, read by the signs' rules. */
static void
fix_pointers(refine *r)
{
	for (uint32_t v = 0; v < r->f->nvalues; v++)
		r->pointer[v] = is_pointer(r, v);
}

static inline bool
pointer(const refine *r, uint32_t v)
{
	return v < r->f->nvalues && r->pointer[v];
}

static void
push_work(refine *r, uint32_t i)
{
	kl_grow(&r->work, &r->work_cap, sizeof *r->work,
		(uint64_t)r->nwork + 1);
	r->work[r->nwork++] = i;
}

/* Join the pointer sets of a and b. Once the lists exist, a set joining
 * a pointer's without being one brings its sums back to work: each sum
 * comes back at most once a value it touches, as a set turns into a
 * pointer's once. */
static void
join_pointers(refine *r, uint32_t a, uint32_t b)
{
	uint32_t *parent = r->ptr_parent, *head = r->inc_head;
	a = find(parent, a);
	b = find(parent, b);
	if (a == b)
		return;
	bool pa = r->ev[a] & EV_POINTER, pb = r->ev[b] & EV_POINTER;
	if (r->tracking && pa != pb)
		for (uint32_t e = head[pa ? b : a]; e != KL_NONE;
		     e = r->inc_next[e])
			push_work(r, r->inc_sum[e]);
	unite(r, parent, r->ptr_rank, EV_POINTER, a, b);
	if (!r->tracking)
		return;
	uint32_t root = find(parent, a), other = root == a ? b : a;
	if (head[other] == KL_NONE)
		return;
	if (head[root] == KL_NONE)
		head[root] = head[other];
	else
		r->inc_next[r->inc_tail[root]] = head[other];
	r->inc_tail[root] = r->inc_tail[other];
}

static void
same_pointer(refine *r, uint32_t a, uint32_t b)
{
	a = int_value(r, a);
	b = int_value(r, b);
	if (a != KL_NONE && b != KL_NONE && class_of(r, a) == class_of(r, b))
		join_pointers(r, a, b);
}

/* The lists: each sum on the set of each of its values. */
static void
track_sums(refine *r)
{
	const kl_func *f = r->f;
	for (uint32_t v = 0; v < f->nvalues; v++)
		r->inc_head[v] = r->inc_tail[v] = KL_NONE;
	for (uint32_t k = 0; k < r->nsums; k++) {
		const kl_inst_data *d = &f->insts[r->sums[k]];
		for (int j = 0; j < 3; j++) {
			uint32_t v = int_value(r, d->w[j]);
			if (v == KL_NONE || class_of(r, v) != r->ptr_class)
				continue;
			v = find(r->ptr_parent, v);
			pass_grow_all(&r->inc_cap, (uint64_t)r->ninc + 1, 2,
				      (void **[]){ (void **)&r->inc_next,
						   (void **)&r->inc_sum },
				      (const size_t[]){ sizeof *r->inc_next,
							sizeof *r->inc_sum });
			uint32_t e = r->ninc++;
			r->inc_next[e] = KL_NONE;
			r->inc_sum[e] = r->sums[k];
			if (r->inc_head[v] == KL_NONE)
				r->inc_head[v] = e;
			else
				r->inc_next[r->inc_tail[v]] = e;
			r->inc_tail[v] = e;
		}
	}
	r->tracking = true;
}

/* Can the text say the type of v (through its aliases)? */
static bool
typable(const refine *r, uint32_t v)
{
	v = int_value(r, v);
	return v != KL_NONE && kl_value_typable(r->f, (kl_value){ v });
}

/* Does v look like an index, something added to an address: a constant,
 * a product, a shift or an extension? */
static bool
index_like(const refine *r, uint32_t v)
{
	const kl_func *f = r->f;
	v = int_value(r, v);
	if (v == KL_NONE || f->values[v].kind != VK_RESULT ||
	    f->values[v].def >= f->ninsts)
		return false;
	switch ((kl_opcode)f->insts[f->values[v].def].op) {
	case KL_OP_ICONST: case KL_OP_IMUL: case KL_OP_IMUL_IMM:
	case KL_OP_ISHL: case KL_OP_ISHL_IMM: case KL_OP_UEXTEND:
	case KL_OP_SEXTEND:
		return true;
	default:
		return false;
	}
}

/* A parameter of each signature slot that says ptr, and the value there. */
static void
pointer_by_sig(refine *r, const kl_type *types, uint32_t ntypes,
	       const uint32_t *vals, uint32_t nvals)
{
	for (uint32_t k = 0; k < ntypes && k < nvals; k++)
		if (evidence_of(r->f->module, types[k]) == EV_POINTER)
			mark_pointer(r, vals[k]);
}

/* The callee's signature of call i, its results in *res (count *nres). */
static kl_signature
callee_sig(const kl_func *f, uint32_t i)
{
	const kl_inst_data *d = &f->insts[i];
	const kl_module *m = f->module;
	kl_signature none = { 0 };
	if (d->op == KL_OP_CALL)
		return d->w[1] < m->nsyms && m->syms[d->w[1]].kind ==
							 KL_SYM_FUNC
			       ? module_sig(m, m->syms[d->w[1]].sig)
			       : none;
	if (d->w[1] < f->nsigrefs && f->sigrefs[d->w[1]] != KL_NONE)
		return module_sig(m, f->sigrefs[d->w[1]]);
	return none;
}

/* The arguments of call i after its callee (call_indirect's first
 * operand): their count, *args at them. */
static uint32_t
call_args(const kl_func *f, uint32_t i, const uint32_t **args)
{
	const uint32_t *a;
	uint32_t na = inst_args(f, i, &a);
	uint32_t skip = f->insts[i].op == KL_OP_CALL_INDIRECT && na;
	*args = skip ? a + 1 : a; /* (a may be NULL when na is 0) */
	return na - skip;
}

/* The results of instruction i (a call's list, or its one result). */
static uint32_t
results_of(const kl_func *f, uint32_t i, uint32_t *buf, uint32_t cap,
	   const uint32_t **out)
{
	const kl_inst_data *d = &f->insts[i];
	if (kl_op_table[d->op].format == KL_FMT_CALL ||
	    kl_op_table[d->op].format == KL_FMT_CALL_INDIRECT) {
		*out = list_elems(&f->pool, d->w[0]);
		return list_len(&f->pool, d->w[0]);
	}
	uint32_t n = inst_num_results(f, i);
	for (uint32_t k = 0; k < n && k < cap; k++)
		buf[k] = inst_result(f, i, k);
	*out = buf;
	return n < cap ? n : cap;
}

/* Join each argument branch i passes with the parameter it goes to. */
static void
join_branch_args(refine *r, uint32_t i,
		 void (*join)(refine *r, uint32_t a, uint32_t b))
{
	const kl_func *f = r->f;
	const uint32_t *dests;
	uint32_t nd = inst_dests(f, i, &dests);
	for (uint32_t e = 0; e < nd; e++) {
		uint32_t b, n;
		const uint32_t *args;
		if (!dest_read(&f->pool, dests[e], &b, &args, &n) ||
		    b >= f->nblocks)
			continue;
		uint32_t params = f->blocks[b].params;
		uint32_t np = list_len(&f->pool, params);
		for (uint32_t k = 0; k < n && k < np; k++)
			join(r, list_get(&f->pool, params, k), args[k]);
	}
}

/* What instruction i says of pointers, and which values share it. */
static void
pointer_facts(refine *r, uint32_t i, kl_signature own)
{
	const kl_func *f = r->f;
	const kl_inst_data *d = &f->insts[i];
	const uint32_t *a;
	uint32_t na = inst_args(f, i, &a);
	uint32_t one[1];
	const uint32_t *res;
	uint32_t nres = results_of(f, i, one, 1, &res);
	switch ((kl_format)kl_op_table[d->op].format) {
	case KL_FMT_LOAD:
	case KL_FMT_STORE:
		mark_pointer(r, d->w[1]);
		return;
	case KL_FMT_ALLOCA:
	case KL_FMT_ALLOCA_DYN:
	case KL_FMT_SYMBOL:
		if (nres)
			mark_pointer(r, res[0]);
		return;
	case KL_FMT_CALL:
	case KL_FMT_CALL_INDIRECT: {
		kl_signature s = callee_sig(f, i);
		const uint32_t *args;
		uint32_t nargs = call_args(f, i, &args);
		if (nargs < na)
			mark_pointer(r, a[0]); /* call_indirect's callee */
		pointer_by_sig(r, s.params, s.num_params, args, nargs);
		pointer_by_sig(r, s.results, s.num_results, res, nres);
		return;
	}
	case KL_FMT_RETURN:
		pointer_by_sig(r, own.results, own.num_results, a, na);
		return;
	case KL_FMT_JUMP:
	case KL_FMT_BRIF:
	case KL_FMT_BR_TABLE:
		join_branch_args(r, i, same_pointer);
		return;
	default:
		break;
	}
	if (!nres)
		return;
	switch ((kl_opcode)d->op) {
	case KL_OP_IADD:
	case KL_OP_ISUB:
		kl_grow(&r->sums, &r->sums_cap, sizeof *r->sums,
			(uint64_t)r->nsums + 1);
		r->sums[r->nsums++] = i;
		return;
	case KL_OP_SELECT:
		if (na == 3) {
			same_pointer(r, res[0], a[1]);
			same_pointer(r, res[0], a[2]);
		}
		return;
	case KL_OP_COPY:
	case KL_OP_IADD_IMM:
		if (na)
			same_pointer(r, res[0], a[0]);
		return;
	default:
		return;
	}
}

/*
 * Sums and differences with an address, the sets as they stand. A sum
 * that is an address of two operands neither known a pointer needs a
 * guess (which looks like the index); it waits, in `later`, until no
 * certain fact is left to learn, which may yet make an operand a
 * pointer. The base guessed must be a value whose type the text says:
 * a run on this run's output then starts from it as a ptr, and finds
 * what this run found. (A call's result made a pointer by a guess would
 * come out as it went in, and the next run could guess otherwise: a
 * review found a second run changing the output so.)
 */
static void
pointer_sum(refine *r, uint32_t i, bool guess)
{
	const kl_inst_data *d = &r->f->insts[i];
	uint32_t x = d->w[1], y = d->w[2], res = d->w[0];
	bool px = is_pointer(r, x), py = is_pointer(r, y);
	if (px && !py) {
		same_pointer(r, res, x);
	} else if (py && !px && d->op == KL_OP_IADD) {
		same_pointer(r, res, y);
	} else if (!px && !py && d->op == KL_OP_IADD &&
		   is_pointer(r, res)) {
		if (!guess) {
			kl_grow(&r->later, &r->later_cap, sizeof *r->later,
				(uint64_t)r->nlater + 1);
			r->later[r->nlater++] = i;
			return;
		}
		bool ix = index_like(r, x), iy = index_like(r, y);
		if (iy && !ix && typable(r, x))
			same_pointer(r, res, x);
		else if (ix && !iy && typable(r, y))
			same_pointer(r, res, y);
	}
}

/* ---- signs ---- */

static void
mark_sign(refine *r, uint32_t v, uint8_t ev)
{
	v = int_value(r, v);
	if (v != KL_NONE && !pointer(r, v))
		r->ev[find(r->sign_parent, v)] |= ev;
}

static void
same_sign(refine *r, uint32_t a, uint32_t b)
{
	a = int_value(r, a);
	b = int_value(r, b);
	if (a == KL_NONE || b == KL_NONE || class_of(r, a) != class_of(r, b) ||
	    pointer(r, a) || pointer(r, b))
		return;
	unite(r, r->sign_parent, r->sign_rank, EV_SIGNED | EV_UNSIGNED, a, b);
}

static void
sign_by_sig(refine *r, const kl_type *types, uint32_t ntypes,
	    const uint32_t *vals, uint32_t nvals)
{
	for (uint32_t k = 0; k < ntypes && k < nvals; k++)
		mark_sign(r, vals[k], evidence_of(r->f->module, types[k]) &
					      (EV_SIGNED | EV_UNSIGNED));
}

/* The evidence an opcode gives its operands (args) and result. */
static uint8_t
op_sign(kl_opcode op, bool *args, bool *result)
{
	*args = *result = true;
	switch (op) {
	case KL_OP_SDIV: case KL_OP_SREM: case KL_OP_SDIV_IMM:
	case KL_OP_SREM_IMM: case KL_OP_SSHR: case KL_OP_SSHR_IMM:
	case KL_OP_SEXTEND:
		return EV_SIGNED;
	case KL_OP_UDIV: case KL_OP_UREM: case KL_OP_UDIV_IMM:
	case KL_OP_UREM_IMM: case KL_OP_USHR: case KL_OP_USHR_IMM:
	case KL_OP_UEXTEND:
		return EV_UNSIGNED;
	case KL_OP_SLOAD8: case KL_OP_SLOAD16: case KL_OP_SLOAD32:
	case KL_OP_FCVT_TO_SINT:
		*args = false;
		return EV_SIGNED;
	case KL_OP_ULOAD8: case KL_OP_ULOAD16: case KL_OP_ULOAD32:
	case KL_OP_FCVT_TO_UINT:
		*args = false;
		return EV_UNSIGNED;
	case KL_OP_FCVT_FROM_SINT:
		*result = false;
		return EV_SIGNED;
	case KL_OP_FCVT_FROM_UINT:
		*result = false;
		return EV_UNSIGNED;
	default:
		*args = *result = false;
		return 0;
	}
}

/* Opcodes whose result shares the sign of all their operands (all: the
 * shifts and rotations only their first). */
static bool
shares_sign(kl_opcode op, bool *all)
{
	*all = true;
	switch (op) {
	case KL_OP_IADD: case KL_OP_ISUB: case KL_OP_IMUL: case KL_OP_SDIV:
	case KL_OP_UDIV: case KL_OP_SREM: case KL_OP_UREM: case KL_OP_BAND:
	case KL_OP_BOR: case KL_OP_BXOR: case KL_OP_COPY: case KL_OP_INEG:
	case KL_OP_BNOT:
		return true;
	case KL_OP_IADD_IMM: case KL_OP_IMUL_IMM: case KL_OP_SDIV_IMM:
	case KL_OP_UDIV_IMM: case KL_OP_SREM_IMM: case KL_OP_UREM_IMM:
	case KL_OP_IRSUB_IMM: case KL_OP_BAND_IMM: case KL_OP_BOR_IMM:
	case KL_OP_BXOR_IMM: case KL_OP_ISHL_IMM: case KL_OP_USHR_IMM:
	case KL_OP_SSHR_IMM: case KL_OP_ISHL: case KL_OP_USHR:
	case KL_OP_SSHR: case KL_OP_ROTL: case KL_OP_ROTR:
		*all = false;
		return true;
	default:
		return false;
	}
}

static void
sign_facts(refine *r, uint32_t i, kl_signature own)
{
	const kl_func *f = r->f;
	const kl_inst_data *d = &f->insts[i];
	kl_opcode op = (kl_opcode)d->op;
	const uint32_t *a;
	uint32_t na = inst_args(f, i, &a);
	uint32_t one[1];
	const uint32_t *res;
	uint32_t nres = results_of(f, i, one, 1, &res);
	switch ((kl_format)kl_op_table[op].format) {
	case KL_FMT_CALL:
	case KL_FMT_CALL_INDIRECT: {
		kl_signature s = callee_sig(f, i);
		const uint32_t *args;
		uint32_t nargs = call_args(f, i, &args);
		sign_by_sig(r, s.params, s.num_params, args, nargs);
		sign_by_sig(r, s.results, s.num_results, res, nres);
		return;
	}
	case KL_FMT_RETURN:
		sign_by_sig(r, own.results, own.num_results, a, na);
		return;
	case KL_FMT_JUMP:
	case KL_FMT_BRIF:
	case KL_FMT_BR_TABLE:
		join_branch_args(r, i, same_sign);
		return;
	case KL_FMT_ICMP:
	case KL_FMT_ICMP_IMM: {
		kl_intcc cc = (kl_intcc)d->aux;
		uint8_t ev = cc >= KL_ICC_SLT && cc <= KL_ICC_SGE ? EV_SIGNED
			     : cc >= KL_ICC_ULT && cc <= KL_ICC_UGE
				     ? EV_UNSIGNED
				     : 0;
		for (uint32_t k = 0; k < na; k++)
			mark_sign(r, a[k], ev);
		if (na == 2)
			same_sign(r, a[0], a[1]);
		return;
	}
	default:
		break;
	}
	bool on_args, on_result;
	uint8_t ev = op_sign(op, &on_args, &on_result);
	if (ev && on_result && nres)
		mark_sign(r, res[0], ev);
	/* the shifts' amounts say nothing of the shifted value's sign */
	bool all;
	bool shares = shares_sign(op, &all);
	uint32_t nsign = !ev || !on_args ? 0 : shares && !all ? 1 : na;
	for (uint32_t k = 0; k < nsign; k++)
		mark_sign(r, a[k], ev);
	if (op == KL_OP_SELECT && na == 3 && nres) {
		same_sign(r, res[0], a[1]);
		same_sign(r, res[0], a[2]);
	} else if (shares && nres) {
		uint32_t nshare = all || na < 1 ? na : 1;
		for (uint32_t k = 0; k < nshare; k++)
			same_sign(r, res[0], a[k]);
	}
}

/* ---- the pass ---- */

static kl_type
refined_type(refine *r, uint32_t v)
{
	const kl_module *m = r->f->module;
	kl_type t = value_type(r->f, v), c = kl_type_class(m, t);
	if (pointer(r, v))
		return kl_type_refined(m, c, KL_REFINE_POINTER);
	uint8_t ev = r->ev[find(r->sign_parent, v)] &
		     (EV_SIGNED | EV_UNSIGNED);
	if (ev == EV_SIGNED)
		return kl_type_refined(m, c, KL_REFINE_SIGNED);
	if (ev == EV_UNSIGNED)
		return kl_type_refined(m, c, KL_REFINE_UNSIGNED);
	return t;
}

kl_status
kl_refine_func(kl_func *f, kl_pass_report *rep)
{
	func_edited(f);
	if (f->first_block == KL_NONE)
		return KL_OK;
	bool keep;
	refine *r = pass_scratch(rep, refine_free, refine_new, &keep);
	refine_size(r, f);
	const kl_module *m = f->module;
	kl_signature own = kl_func_signature(f);
	/* the signature says what the entry block's parameters are */
	uint32_t entry = f->blocks[f->first_block].params;
	const uint32_t *args = list_elems(&f->pool, entry);
	uint32_t nargs = list_len(&f->pool, entry);
	pointer_by_sig(r, own.params, own.num_params, args, nargs);
	for (uint32_t b = f->first_block; b != KL_NONE; b = f->blocks[b].next)
		for (uint32_t i = f->blocks[b].first; i != KL_NONE;
		     i = f->nodes[i].next)
			pointer_facts(r, i, own);
	/* every sum once, then those whose sets turned into pointers' */
	track_sums(r);
	for (uint32_t k = 0; k < r->nsums; k++)
		push_work(r, r->sums[k]);
	/* certain facts first; a guess, one at a time, only when none is
	 * left (each sum goes to `later` at most once a time it is looked
	 * at: linear still) */
	for (uint32_t k = 0, g = 0; k < r->nwork || g < r->nlater;) {
		if (k < r->nwork)
			pointer_sum(r, r->work[k++], false);
		else
			pointer_sum(r, r->later[g++], true);
	}
	fix_pointers(r);
	sign_by_sig(r, own.params, own.num_params, args, nargs);
	for (uint32_t b = f->first_block; b != KL_NONE; b = f->blocks[b].next)
		for (uint32_t i = f->blocks[b].first; i != KL_NONE;
		     i = f->nodes[i].next)
			sign_facts(r, i, own);
	uint64_t count[3] = { 0, 0, 0 };
	for (uint32_t v = 0; v < f->nvalues; v++) {
		if (int_value(r, v) != v ||
		    kl_type_refinement(m, value_type(f, v)) != KL_REFINE_NONE)
			continue;
		kl_type t = refined_type(r, v);
		kl_refinement k = kl_type_refinement(m, t);
		if (k != KL_REFINE_NONE &&
		    kl_value_set_type(f, (kl_value){ v }, t) == KL_OK)
			count[k - 1]++;
	}
	/* an alias has its end's type */
	for (uint32_t v = 0; v < f->nvalues; v++) {
		uint32_t end = r->int_of[v];
		if (f->values[v].kind == VK_ALIAS && end != KL_NONE)
			f->values[v].type = f->values[end].type;
	}
	kl_pass_report_count(rep, "signed", count[0]);
	kl_pass_report_count(rep, "unsigned", count[1]);
	kl_pass_report_count(rep, "pointers", count[2]);
	if (!keep)
		refine_free(r);
	return KL_OK;
}
