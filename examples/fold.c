/*
 * fold.c -- a pass of your own, through keel.h alone: sparse conditional
 * constant propagation (Wegman and Zadeck), the optimisation a course
 * builds after its first constant folder. It finds the values that are
 * constants and the block parameters that always receive one value, only
 * along the paths that can run, then folds them, makes branches on
 * constants jumps, drops the blocks that cannot run and removes dead code.
 *
 *   make build/fold && ./build/fold FILE.kl
 *
 * reads a module, promotes its locals to SSA values (as `keel opt -p
 * promote` does), runs the pass over every function, verifies the result
 * and prints it; stderr gets what it did. docs/api.md ("Writing a pass")
 * walks through this file.
 *
 * The pass looks first and changes afterwards. The looking runs on two
 * worklists, of blocks found to run and of values whose facts changed, and
 * takes time linear in the function: a value's fact only goes down (not
 * known yet, then a constant or a copy of another value, then varying),
 * and each time it does, only its uses (kl_uses) are looked at again. The
 * changes then use the rewriting API as any pass does: a value is
 * replaced everywhere by removing the instruction that computes it and
 * making its result an alias of the replacement (kl_inst_remove,
 * kl_value_set_alias).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "keel.h"

/* A growable stack of ids (instructions, blocks or values): the
 * worklists. */
typedef struct id_stack {
	uint32_t *items;
	uint32_t len, cap;
} id_stack;

/* p, unless the allocation that gave it failed: then a message and
 * exit (an example keeps its error paths short). */
static void *
must(void *p)
{
	if (!p) {
		fputs("fold: out of memory\n", stderr);
		exit(1);
	}
	return p;
}

/* Memory for n things of size bytes, zeroed. */
static void *
must_alloc(size_t n, size_t size)
{
	return must(calloc(n ? n : 1, size));
}

static void
push(id_stack *s, uint32_t id)
{
	if (s->len == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->items = must(realloc(s->items, s->cap * sizeof *s->items));
	}
	s->items[s->len++] = id;
}

static bool
placed(const kl_func *f, kl_inst i)
{
	return kl_inst_block(f, i).id != KL_NONE;
}

/* x cut to its type's width and sign-extended, as iconst holds it. */
static uint64_t
wrap(uint64_t x, unsigned bits)
{
	if (bits >= 64)
		return x;
	uint64_t sign = (uint64_t)1 << (bits - 1);
	x &= (sign << 1) - 1;
	return (x ^ sign) - sign;
}

/* The low bits of x, as an unsigned number of that width. */
static uint64_t
low_bits(uint64_t x, unsigned bits)
{
	return bits >= 64 ? x : x & (((uint64_t)1 << bits) - 1);
}

static bool
compare(kl_intcc cc, uint64_t x, uint64_t y, unsigned bits)
{
	/* Signed: the sign-extended values; unsigned: the low bits. */
	int64_t sx = (int64_t)wrap(x, bits), sy = (int64_t)wrap(y, bits);
	uint64_t ux = low_bits(x, bits), uy = low_bits(y, bits);
	switch (cc) {
	case KL_ICC_EQ: return ux == uy;
	case KL_ICC_NE: return ux != uy;
	case KL_ICC_SLT: return sx < sy;
	case KL_ICC_SLE: return sx <= sy;
	case KL_ICC_SGT: return sx > sy;
	case KL_ICC_SGE: return sx >= sy;
	case KL_ICC_ULT: return ux < uy;
	case KL_ICC_ULE: return ux <= uy;
	case KL_ICC_UGT: return ux > uy;
	case KL_ICC_UGE: return ux >= uy;
	default: return false;
	}
}

/*
 * What is known of a value, a point of the lattice each value only goes
 * down in: nothing yet (no path that runs has reached it), a constant, a
 * copy of another value (a block parameter every branch that runs passes
 * that value), or varying. A varying value is a copy of itself to its
 * users.
 */
enum { UNKNOWN, CONSTANT, COPY, VARYING };

typedef struct fact {
	uint8_t kind;
	uint32_t copy; /* COPY: the value, itself varying */
	uint64_t k;    /* CONSTANT: the bits, sign-extended as iconst's */
} fact;

static bool
same_fact(fact a, fact b)
{
	return a.kind == b.kind && (a.kind != CONSTANT || a.k == b.k) &&
	       (a.kind != COPY || a.copy == b.copy);
}

/* The state of one function's propagation. */
typedef struct sccp {
	const kl_module *m;
	kl_func *f;
	kl_uses *uses;
	fact *facts;          /* by value (resolved) */
	bool *runs;           /* by block: some path that runs reaches it */
	uint32_t *first_edge; /* by instruction: its first destination's edge */
	bool *taken;          /* by edge: a branch that runs may take it */
	uint8_t *address;     /* by value: followed_address, 0 if not asked */
	uint32_t *path;       /* followed_address's walk */
	id_stack blocks;      /* found to run, not yet visited */
	id_stack values;      /* their fact went down, their uses not seen */
} sccp;

/* The value's fact as its users see it. */
static fact
fact_of(const sccp *s, kl_value v)
{
	/* (kl_uses_resolve: O(1); kl_value_resolve would walk an alias's
	 * chain each time, quadratic down a long chain of used links) */
	uint32_t r = kl_uses_resolve(s->uses, s->f, v).id;
	fact x = s->facts[r];
	return x.kind == VARYING ? (fact){ COPY, r, 0 } : x;
}

/* v's fact meets next: it stays if next is unknown or the same, becomes
 * next if it was unknown, else varying (the lattice has no point between
 * two different known facts but varying); it is pushed if it went down. */
static void
lower(sccp *s, uint32_t v, fact next)
{
	fact *cur = &s->facts[v];
	if (next.kind == UNKNOWN || same_fact(*cur, next) ||
	    cur->kind == VARYING)
		return;
	*cur = cur->kind == UNKNOWN ? next : (fact){ VARYING, 0, 0 };
	push(&s->values, v);
}

/*
 * Is v an address whose accesses the verifier checks where they run or
 * not: an alloca's or a const data object's, or an iadd_imm chain over
 * one (a load or store at a constant offset from an alloca must lie
 * inside it, none may store into const data)? One made through a
 * parameter is not checked so, and may not become one made through v.
 * Each value on a chain is looked at once (the answer is kept).
 */
static bool
followed_address(sccp *s, uint32_t v)
{
	enum { NOT_ASKED, NO, YES };
	const kl_func *f = s->f;
	uint32_t n = 0;
	uint8_t answer = NO;
	for (;;) {
		v = kl_uses_resolve(s->uses, f, (kl_value){ v }).id;
		if (s->address[v] != NOT_ASKED) {
			answer = s->address[v];
			break;
		}
		s->path[n++] = v;
		s->address[v] = NO; /* (a chain cannot loop: strict SSA) */
		kl_inst def = kl_value_def_inst(f, (kl_value){ v });
		kl_opcode op = kl_inst_opcode(f, def);
		if (op == KL_OP_ALLOCA) {
			answer = YES;
		} else if (op == KL_OP_SYMBOL_ADDR) {
			kl_sym sym = kl_inst_callee(f, def);
			answer = kl_sym_get_kind(s->m, sym) == KL_SYM_DATA &&
					 kl_data_is_const(s->m, sym)
				 ? YES : NO;
		} else if (op == KL_OP_IADD_IMM) {
			v = kl_inst_arg(f, def, 0).id;
			continue;
		}
		break;
	}
	while (n)
		s->address[s->path[--n]] = answer;
	return answer == YES;
}

/* The constant instruction i computes from two operands that are one
 * value, whatever that value is: v - v, v ^ v, v compared with itself. */
static bool
fold_same(const sccp *s, kl_inst i, uint64_t *out)
{
	switch (kl_inst_opcode(s->f, i)) {
	case KL_OP_ISUB: case KL_OP_BXOR:
		*out = 0;
		return true;
	case KL_OP_ICMP: /* as any two equal operands compare */
		*out = compare((kl_intcc)kl_inst_cond(s->f, i), 0, 0, 64);
		return true;
	default:
		return false;
	}
}

/* What a user of v learns through a copy of it (a copy instruction, or a
 * block parameter passed v): v's fact, except that an address the
 * verifier follows stays behind its copy. Accesses through the copy are
 * not checked against the object, and in a block that may run but never
 * does they may lie outside it. */
static fact
copied_fact(sccp *s, kl_value v)
{
	fact x = fact_of(s, v);
	if (x.kind == COPY && followed_address(s, x.copy))
		x = (fact){ VARYING, 0, 0 };
	return x;
}

/*
 * Argument arg reaches parameter p on an edge that may be taken: p's fact
 * meets arg's. p passed to itself round a loop needs no special case: it
 * meets its own fact, which changes nothing. A parameter holding an
 * address the verifier follows stays itself.
 */
static void
meet_param(sccp *s, kl_value p, kl_value arg)
{
	lower(s, p.id, copied_fact(s, arg));
}

/* The edge from destination d of branch i may be taken: its arguments
 * meet the target's parameters, and the target runs. */
static void
take_edge(sccp *s, kl_inst i, uint32_t d)
{
	uint32_t e = s->first_edge[i.id] + d;
	if (s->taken[e])
		return;
	s->taken[e] = true;
	kl_block to = kl_inst_dest(s->f, i, d);
	for (uint32_t k = 0; k < kl_inst_dest_num_args(s->f, i, d); k++)
		meet_param(s, kl_block_param(s->f, to, k),
			   kl_inst_dest_arg(s->f, i, d, k));
	if (!s->runs[to.id]) {
		s->runs[to.id] = true;
		push(&s->blocks, to.id);
	}
}

/*
 * The destination a brif or br_table on a known constant takes, or
 * KL_NONE when it is not known to be one (then all may be taken, or none
 * yet while nothing is known).
 */
static uint32_t
known_dest(const sccp *s, kl_inst i, fact c)
{
	kl_opcode op = kl_inst_opcode(s->f, i);
	if (c.kind != CONSTANT || op == KL_OP_JUMP)
		return KL_NONE;
	if (op == KL_OP_BRIF)
		return c.k != 0 ? 0 : 1;
	/* br_table: the index unsigned; the default (0) when out of range. */
	kl_type t = kl_value_type(s->f, kl_inst_arg(s->f, i, 0));
	uint64_t index = low_bits(c.k, 8 * kl_type_bytes(s->m, t));
	uint32_t table = kl_inst_num_dests(s->f, i) - 1;
	return index < table ? (uint32_t)index + 1 : 0;
}

/*
 * The constant instruction i computes from constant operands x and y (y
 * the immediate of the _imm forms), if it is one this pass knows:
 * integer arithmetic that cannot trap, shifts, compares, extensions and
 * reductions. Unsigned arithmetic: it wraps as the IR's does, with no
 * undefined behaviour in C.
 */
static bool
fold_op(const sccp *s, kl_inst i, uint64_t x, uint64_t y, uint64_t *out)
{
	const kl_func *f = s->f;
	kl_type operand = kl_value_type(f, kl_inst_arg(f, i, 0));
	unsigned bits = 8 * kl_type_bytes(s->m, operand);
	unsigned amount = (unsigned)(y & (bits - 1)); /* modulo the width */
	uint64_t r;
	switch (kl_inst_opcode(f, i)) {
	case KL_OP_IADD: case KL_OP_IADD_IMM: r = x + y; break;
	case KL_OP_ISUB: r = x - y; break;
	case KL_OP_IRSUB_IMM: r = y - x; break;
	case KL_OP_IMUL: case KL_OP_IMUL_IMM: r = x * y; break;
	case KL_OP_BAND: case KL_OP_BAND_IMM: r = x & y; break;
	case KL_OP_BOR: case KL_OP_BOR_IMM: r = x | y; break;
	case KL_OP_BXOR: case KL_OP_BXOR_IMM: r = x ^ y; break;
	case KL_OP_ISHL: case KL_OP_ISHL_IMM: r = x << amount; break;
	case KL_OP_USHR: case KL_OP_USHR_IMM:
		r = low_bits(x, bits) >> amount;
		break;
	case KL_OP_SSHR: case KL_OP_SSHR_IMM: /* x is sign-extended */
		r = x >> 63 ? ~(~x >> amount) : x >> amount;
		break;
	case KL_OP_UEXTEND: r = low_bits(x, bits); break;
	case KL_OP_SEXTEND: case KL_OP_IREDUCE: r = x; break;
	case KL_OP_ICMP: case KL_OP_ICMP_IMM:
		*out = compare((kl_intcc)kl_inst_cond(f, i), x, y, bits);
		return true; /* an i8, 0 or 1 */
	default:
		return false;
	}
	/* Cut to the result's width (an extension's or reduction's is not
	 * its operand's). */
	kl_type result = kl_value_type(f, kl_inst_result(f, i, 0));
	*out = wrap(r, 8 * kl_type_bytes(s->m, result));
	return true;
}

/* The fact of the one result of instruction i, from its operands'. */
static fact
result_fact(sccp *s, kl_inst i)
{
	const kl_func *f = s->f;
	const fact varying = { VARYING, 0, 0 };
	kl_value r = kl_inst_result(f, i, 0);
	if (kl_inst_opcode(f, i) == KL_OP_ICONST) {
		kl_type t = kl_value_type(f, r);
		return (fact){ CONSTANT, 0,
			       wrap((uint64_t)kl_inst_imm(f, i),
				    8 * kl_type_bytes(s->m, t)) };
	}
	if (kl_inst_opcode(f, i) == KL_OP_COPY)
		return copied_fact(s, kl_inst_arg(f, i, 0));
	uint32_t nargs = kl_inst_num_args(f, i);
	if (nargs == 0 || nargs > 2)
		return varying;
	fact x = fact_of(s, kl_inst_arg(f, i, 0));
	fact y = nargs == 2
			 ? fact_of(s, kl_inst_arg(f, i, 1))
			 : (fact){ CONSTANT, 0, (uint64_t)kl_inst_imm(f, i) };
	if (x.kind == UNKNOWN || y.kind == UNKNOWN)
		return (fact){ UNKNOWN, 0, 0 };
	uint64_t c;
	if (x.kind == CONSTANT && y.kind == CONSTANT &&
	    fold_op(s, i, x.k, y.k, &c))
		return (fact){ CONSTANT, 0, c };
	/* (two copies of one value: a parameter that is always v, and v) */
	if (nargs == 2 && x.kind == COPY && y.kind == COPY &&
	    x.copy == y.copy && fold_same(s, i, &c))
		return (fact){ CONSTANT, 0, c };
	return varying;
}

/* Instruction i, in a block that runs, has more known of its operands. */
static void
visit(sccp *s, kl_inst i)
{
	const kl_func *f = s->f;
	uint32_t nd = kl_inst_num_dests(f, i);
	if (nd) {
		fact c = kl_inst_num_args(f, i)
				 ? fact_of(s, kl_inst_arg(f, i, 0))
				 : (fact){ VARYING, 0, 0 };
		if (c.kind == UNKNOWN && kl_inst_opcode(f, i) != KL_OP_JUMP)
			return; /* not yet known which way */
		uint32_t d = known_dest(s, i, c);
		for (uint32_t k = 0; k < nd; k++)
			if (d == KL_NONE || d == k)
				take_edge(s, i, k);
		return;
	}
	uint32_t nr = kl_inst_num_results(f, i);
	if (nr == 1) {
		lower(s, kl_inst_result(f, i, 0).id, result_fact(s, i));
		return;
	}
	/* Several results (a call's) all vary, from the first visit on: seen
	 * again as each operand changes, it has nothing to add, and going
	 * over its results each time would cost operands x results. */
	if (nr == 0 || s->facts[kl_inst_result(f, i, 0).id].kind == VARYING)
		return;
	for (uint32_t k = 0; k < nr; k++)
		lower(s, kl_inst_result(f, i, k).id, (fact){ VARYING, 0, 0 });
}

/*
 * The looking: from the entry block (whose parameters vary), each block
 * found to run has its instructions visited once; a value whose fact went
 * down has its uses seen again: an operand's instruction, if its block
 * runs, and an argument's parameter, if its edge may be taken.
 */
static void
propagate(sccp *s)
{
	kl_func *f = s->f;
	kl_block entry = kl_func_first_block(f);
	for (uint32_t k = 0; k < kl_block_num_params(f, entry); k++)
		lower(s, kl_block_param(f, entry, k).id,
		      (fact){ VARYING, 0, 0 });
	s->runs[entry.id] = true;
	push(&s->blocks, entry.id);
	while (s->blocks.len || s->values.len) {
		if (s->blocks.len) {
			kl_block b = { s->blocks.items[--s->blocks.len] };
			for (kl_inst i = kl_block_first_inst(f, b);
			     i.id != KL_NONE; i = kl_inst_next(f, i))
				visit(s, i);
			continue;
		}
		kl_value v = { s->values.items[--s->values.len] };
		uint32_t nu;
		const kl_use *u = kl_uses_of(s->uses, f, v, &nu);
		for (uint32_t k = 0; k < nu; k++) {
			kl_inst i = u[k].inst;
			if (!s->runs[kl_inst_block(f, i).id])
				continue;
			if (u[k].dest == KL_NONE)
				visit(s, i);
			else if (s->taken[s->first_edge[i.id] + u[k].dest])
				meet_param(s,
					   kl_block_param(f,
						kl_inst_dest(f, i, u[k].dest),
						u[k].index),
					   kl_inst_dest_arg(f, i, u[k].dest,
							    u[k].index));
		}
	}
}

typedef struct fold_counts {
	unsigned folded, jumps, blocks, params, dead;
} fold_counts;

/* An iconst of v's type and fact, built where b stands. */
static kl_value
constant_like(kl_builder *b, kl_value v, fact x)
{
	return kl_build_iconst(b, kl_value_type(b->func, v), (int64_t)x.k);
}

/* A branch on a constant becomes a jump to the destination it takes,
 * with that destination's arguments, built before it. */
static void
make_jump(kl_builder *b, kl_inst i, uint32_t d)
{
	kl_func *f = b->func;
	uint32_t n = kl_inst_dest_num_args(f, i, d);
	kl_value *args = must_alloc(n, sizeof *args);
	for (uint32_t k = 0; k < n; k++)
		args[k] = kl_inst_dest_arg(f, i, d, k);
	kl_builder_before(b, i);
	kl_build_jump(b, (kl_block_call){ kl_inst_dest(f, i, d), args, n });
	free(args);
	kl_inst_remove(f, i);
}

/* Instruction i's one result, found a constant or a copy, becomes an
 * alias of an iconst built before i, or of the copied value, and i goes.
 * Returns whether it did. */
static bool
replace_result(sccp *s, kl_builder *b, kl_inst i)
{
	kl_func *f = s->f;
	if (kl_inst_num_results(f, i) != 1 ||
	    kl_inst_opcode(f, i) == KL_OP_ICONST)
		return false;
	kl_value r = kl_inst_result(f, i, 0);
	fact x = s->facts[r.id];
	kl_value same = { x.copy };
	if (x.kind == CONSTANT) {
		kl_builder_before(b, i);
		same = constant_like(b, r, x);
	} else if (x.kind != COPY) {
		return false;
	}
	kl_inst_remove(f, i);
	if (kl_value_set_alias(f, r, same) != KL_OK)
		abort(); /* the same type, defined: not refused */
	return true;
}

/*
 * The changes, once all is known: branches on constants become jumps;
 * the blocks that cannot run leave the layout (all of them at once: what
 * branches to one is another, after the jumps); parameters known to be a
 * constant or a copy go, with their arguments, in one walk
 * (kl_func_remove_params) and become aliases of it (a constant is built
 * at the top of their block); and instructions that compute a constant
 * become an iconst, and copies the value they copy (replace_result). A
 * copied value z dominates its parameter's block: every edge left into
 * the block passes z, or a parameter that is itself a copy of z, so
 * going back along any path from the entry to the block one meets a
 * branch passing z itself, which z's definition dominates.
 */
static void
rewrite(sccp *s, fold_counts *n)
{
	kl_func *f = s->f;
	kl_builder b;
	kl_builder_init(&b, f);
	kl_block entry = kl_func_first_block(f);
	for (kl_block bl = entry; bl.id != KL_NONE; bl = kl_block_next(f, bl)) {
		kl_inst t = kl_block_last_inst(f, bl);
		if (!s->runs[bl.id] || kl_inst_num_dests(f, t) < 2)
			continue;
		uint32_t d = known_dest(s, t, fact_of(s, kl_inst_arg(f, t, 0)));
		if (d != KL_NONE) {
			make_jump(&b, t, d);
			n->jumps++;
		}
	}
	kl_block bl = entry;
	while (bl.id != KL_NONE) {
		kl_block next = kl_block_next(f, bl);
		if (!s->runs[bl.id] && kl_func_remove_block(f, bl) == KL_OK)
			n->blocks++;
		bl = next;
	}
	uint32_t nv = kl_func_value_bound(f), ngo = 0;
	kl_value *go = must_alloc(nv, sizeof *go);
	kl_value *to = must_alloc(nv, sizeof *to);
	for (bl = kl_block_next(f, entry); bl.id != KL_NONE;
	     bl = kl_block_next(f, bl))
		for (uint32_t k = 0; k < kl_block_num_params(f, bl); k++) {
			kl_value p = kl_block_param(f, bl, k);
			fact x = s->facts[p.id];
			if (x.kind == COPY) {
				to[ngo] = (kl_value){ x.copy };
			} else if (x.kind == CONSTANT) {
				kl_builder_before(&b,
						  kl_block_first_inst(f, bl));
				to[ngo] = constant_like(&b, p, x);
			} else {
				continue;
			}
			go[ngo++] = p;
		}
	if (kl_func_remove_params(f, go, ngo) != KL_OK)
		abort(); /* parameters of blocks past the entry: not refused */
	for (uint32_t k = 0; k < ngo; k++)
		if (kl_value_set_alias(f, go[k], to[k]) != KL_OK)
			abort(); /* the same type, defined: not refused */
	n->params += ngo;
	free(to);
	free(go);
	for (bl = entry; bl.id != KL_NONE; bl = kl_block_next(f, bl)) {
		kl_inst next;
		for (kl_inst i = kl_block_first_inst(f, bl); i.id != KL_NONE;
		     i = next) {
			next = kl_inst_next(f, i);
			n->folded += replace_result(s, &b, i);
		}
	}
}

/* Sparse conditional constant propagation over f: look, then change. */
static void
fold_function(const kl_module *m, kl_func *f, kl_uses *uses, fold_counts *n)
{
	uint32_t nv = kl_func_value_bound(f), ni = kl_func_inst_bound(f);
	sccp s = { .m = m, .f = f, .uses = uses };
	kl_uses_compute(uses, f);
	s.facts = must_alloc(nv, sizeof *s.facts);
	s.address = must_alloc(nv, 1);
	s.path = must_alloc(nv, sizeof *s.path);
	s.runs = must_alloc(kl_func_block_bound(f), 1);
	/* Edges numbered branch by branch, destination by destination. */
	s.first_edge = must_alloc(ni, sizeof *s.first_edge);
	uint32_t nedges = 0;
	for (kl_block b = kl_func_first_block(f); b.id != KL_NONE;
	     b = kl_block_next(f, b)) {
		kl_inst t = kl_block_last_inst(f, b);
		s.first_edge[t.id] = nedges;
		nedges += kl_inst_num_dests(f, t);
	}
	s.taken = must_alloc(nedges, 1);
	propagate(&s);
	rewrite(&s, n);
	free(s.blocks.items);
	free(s.values.items);
	free(s.taken);
	free(s.first_edge);
	free(s.runs);
	free(s.path);
	free(s.address);
	free(s.facts);
}

/* Does pure instruction i compute only values nothing uses? */
static bool
dead(const kl_func *f, kl_inst i, const uint32_t *count)
{
	uint32_t nr = kl_inst_num_results(f, i);
	if (nr == 0 || !kl_op_is_pure(kl_inst_opcode(f, i)))
		return false;
	for (uint32_t k = 0; k < nr; k++)
		if (count[kl_inst_result(f, i, k).id])
			return false;
	return true;
}

/* Dead code, by counting uses: removing an instruction takes one use off
 * each operand, and an operand left with none may go next. */
static void
remove_dead(kl_func *f, kl_uses *uses, fold_counts *n)
{
	kl_uses_compute(uses, f);
	uint32_t nv = kl_func_value_bound(f);
	uint32_t *count = must_alloc(nv, sizeof *count);
	for (uint32_t v = 0; v < nv; v++)
		kl_uses_of(uses, f, (kl_value){ v }, &count[v]);
	id_stack work = { 0 };
	for (kl_block b = kl_func_first_block(f); b.id != KL_NONE;
	     b = kl_block_next(f, b))
		for (kl_inst i = kl_block_first_inst(f, b); i.id != KL_NONE;
		     i = kl_inst_next(f, i))
			if (dead(f, i, count))
				push(&work, i.id);
	while (work.len) {
		kl_inst i = { work.items[--work.len] };
		if (!placed(f, i) || !dead(f, i, count))
			continue;
		kl_inst_remove(f, i);
		n->dead++;
		for (uint32_t k = 0, na = kl_inst_num_args(f, i); k < na; k++) {
			kl_value a = kl_uses_resolve(uses, f,
						     kl_inst_arg(f, i, k));
			if (a.id < nv && count[a.id] && --count[a.id] == 0) {
				kl_inst def = kl_value_def_inst(f, a);
				if (def.id != KL_NONE && placed(f, def))
					push(&work, def.id);
			}
		}
	}
	free(work.items);
	free(count);
}

/* Verify f; on errors print them inside the function's listing. */
static bool
verified(const kl_func *f, const char *file)
{
	kl_diags diags = { 0 };
	bool ok = kl_verify_func(f, NULL, &diags) == KL_OK;
	if (!ok) {
		kl_buf text = { 0 }; /* the error lines, then the listing */
		kl_verify_render(f, &diags, file, false, &text, &text);
		fputs(text.data ? text.data : "", stderr);
		kl_buf_free(&text);
	}
	kl_diags_free(&diags);
	return ok;
}

/* The whole of a file, or NULL (with a message). */
static char *
read_file(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	if (!fp) {
		perror(path);
		return NULL;
	}
	size_t cap = 1 << 16, n = 0, got;
	char *text = malloc(cap);
	while (text && (got = fread(text + n, 1, cap - n, fp)) > 0) {
		n += got;
		if (n == cap) {
			char *bigger = realloc(text, cap *= 2);
			if (!bigger)
				free(text);
			text = bigger;
		}
	}
	bool bad = ferror(fp) || !text;
	fclose(fp);
	if (bad) {
		fprintf(stderr, "%s: cannot read it\n", path);
		free(text);
		return NULL;
	}
	*len = n;
	return text;
}

/* Parse text; on errors print them with their source lines. */
static kl_module *
parse(const char *path, const char *text, size_t len)
{
	kl_module *m = NULL;
	kl_diags diags = { 0 };
	if (kl_parse_module(text, len, NULL, &m, &diags) != KL_OK) {
		kl_buf out = { 0 };
		for (uint32_t k = 0; k < diags.len; k++)
			kl_diag_render(&diags.items[k], path, text, len, &out);
		fputs(out.data ? out.data : "", stderr);
		kl_buf_free(&out);
	}
	kl_diags_free(&diags);
	return m;
}

int
main(int argc, char **argv)
{
	if (argc != 2 || argv[1][0] == '-') {
		fprintf(stderr, "usage: fold FILE.kl\n"
			"Promote, fold constants and branches on them, drop "
			"unreachable blocks and dead code; "
			"print the module.\n");
		return 2;
	}
	size_t len;
	char *text = read_file(argv[1], &len);
	kl_module *m = text ? parse(argv[1], text, len) : NULL;
	bool ok = m != NULL;
	uint32_t nsyms = m ? kl_module_num_syms(m) : 0;
	for (uint32_t s = 0; s < nsyms && ok; s++) {
		kl_func *f = kl_sym_func(m, (kl_sym){ s });
		ok = !f || verified(f, argv[1]);
	}
	if (ok) {
		kl_pass_report report = { 0 };
		report.input_verified = true; /* verified() said so */
		kl_promote_module(m, &report);
		kl_pass_report_free(&report);
		kl_uses *uses = kl_uses_new();
		fold_counts n = { 0 };
		for (uint32_t s = 0; s < nsyms && ok; s++) {
			kl_func *f = kl_sym_func(m, (kl_sym){ s });
			if (!f)
				continue;
			fold_function(m, f, uses, &n);
			remove_dead(f, uses, &n);
			ok = verified(f, argv[1]);
		}
		kl_uses_free(uses);
		fprintf(stderr, "fold: instructions folded %u, branches made "
			"jumps %u, blocks dropped %u, block parameters "
			"replaced %u, dead instructions removed %u\n", n.folded,
			n.jumps, n.blocks, n.params, n.dead);
	}
	if (ok) {
		kl_buf out = { 0 };
		kl_print_module(m, NULL, &out);
		fputs(out.data ? out.data : "", stdout);
		kl_buf_free(&out);
		ok = fflush(stdout) == 0 && !ferror(stdout);
	}
	kl_module_free(m);
	free(text);
	return ok ? 0 : 1;
}
