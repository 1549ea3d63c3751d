/*
 * sccp.c -- sparse conditional constant propagation (Wegman and Zadeck):
 * find the values that are constants, and the block parameters that
 * always receive one value, along the paths that can run only; then
 * replace them, make branches on constants jumps and drop the blocks that
 * cannot run. What the replaced values fed is left for dce.
 *
 * The pass looks first and changes afterwards. The looking runs on two
 * worklists, of blocks found to run and of values whose facts changed,
 * and takes time linear in the function: a value's fact only goes down
 * (not known yet, then a constant or a copy of another value, then
 * varying; a copy may become a copy of another value once, moved_copy),
 * and each time it changes, only its uses (kl_uses) are looked at
 * again. The changes use the rewriting API as any pass does: a value is
 * replaced everywhere by removing the instruction that computes it and
 * making its result an alias of the replacement.
 *
 * Written through keel.h, but for four of the library's helpers
 * (growing arrays, scratch kept in the report, marking the function
 * changed for the interpreter, and the edges into each block):
 * docs/api.md ("Writing a pass") starts from it as the model of a pass
 * of one's own.
 */
#include <stdlib.h>
#include <string.h>

#include "../ir/ir.h"
#include "../util/util.h"
#include "edges.h"
#include "pass.h"

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
	uint8_t moved; /* COPY: it was a copy of another value (moved_copy) */
	uint32_t copy; /* COPY: the value, itself varying */
	uint64_t k;    /* CONSTANT: the bits, sign-extended as iconst's */
} fact;

static const fact varying = { .kind = VARYING };

static bool
same_fact(fact a, fact b)
{
	return a.kind == b.kind && (a.kind != CONSTANT || a.k == b.k) &&
	       (a.kind != COPY || a.copy == b.copy);
}

/* A growable stack of ids (blocks or values): the worklists. */
typedef struct id_stack {
	uint32_t *items;
	uint32_t len, cap;
} id_stack;

static void
push(id_stack *s, uint32_t id)
{
	kl_grow(&s->items, &s->cap, sizeof *s->items, (uint64_t)s->len + 1);
	s->items[s->len++] = id;
}

/* The state of one function's propagation, and its scratch, kept from one
 * function to the next in a pass report. */
typedef struct sccp {
	const kl_module *m;
	kl_func *f;
	kl_uses *uses;
	uint32_t nvalues;
	fact *facts;          /* by value (resolved) */
	bool *runs;           /* by block: some path that runs reaches it */
	uint32_t *first_edge; /* by instruction: its first destination's edge */
	bool *taken;          /* by edge: a branch that runs may take it */
	in_edges in;          /* into each block, made when param_fact asks */
	bool in_made;
	uint8_t *address;     /* by value: followed_address, 0 if not asked */
	uint32_t *path;       /* followed_address's walk */
	kl_value *list, *to;  /* a jump's arguments; parameters replaced */
	id_stack blocks;      /* found to run, not yet visited */
	id_stack values;      /* their fact went down, their uses not seen */
	uint32_t values_cap, blocks_cap, insts_cap, edges_cap, list_cap;
} sccp;

static void
sccp_free(void *state)
{
	sccp *s = state;
	if (!s)
		return;
	kl_uses_free(s->uses);
	free(s->facts);
	free(s->runs);
	free(s->first_edge);
	free(s->taken);
	in_edges_free(&s->in);
	free(s->address);
	free(s->path);
	free(s->list);
	free(s->to);
	free(s->blocks.items);
	free(s->values.items);
	free(s);
}

static void *
sccp_new(void)
{
	sccp *s = kl_calloc(1, sizeof *s);
	s->uses = kl_uses_new();
	return s;
}

/* The value's fact as its users see it. */
static fact
fact_of(const sccp *s, kl_value v)
{
	/* (kl_uses_resolve: O(1); kl_value_resolve would walk an alias's
	 * chain each time, quadratic down a long chain of used links) */
	uint32_t r = kl_uses_resolve(s->uses, s->f, v).id;
	if (r >= s->nvalues)
		return varying; /* no value: broken input */
	fact x = s->facts[r];
	return x.kind == VARYING ? (fact){ .kind = COPY, .copy = r } : x;
}

static fact copied_fact(sccp *s, kl_value v);

/* The fact parameter v (number k of block b) has from every edge that
 * may be taken into b now: the meet of the arguments they pass it (v
 * passed to itself round a loop left out). */
static fact
param_fact(sccp *s, uint32_t v, kl_block b, uint32_t k)
{
	const kl_func *f = s->f;
	if (b.id >= kl_func_block_bound(f))
		return varying;
	if (!s->in_made) {
		in_edges_collect(&s->in, f);
		s->in_made = true;
	}
	fact meet = { .kind = UNKNOWN };
	for (uint32_t p = s->in.start[b.id]; p < s->in.start[b.id + 1]; p++) {
		kl_inst i = { s->in.edges[p].inst };
		uint32_t d = s->in.edges[p].d;
		if (!s->taken[s->first_edge[i.id] + d])
			continue;
		if (k >= kl_inst_dest_num_args(f, i, d))
			return varying; /* broken input */
		kl_value a = kl_inst_dest_arg(f, i, d, k);
		if (kl_uses_resolve(s->uses, f, a).id == v)
			continue;
		fact x = copied_fact(s, a);
		if (x.kind == UNKNOWN)
			continue;
		if (meet.kind == UNKNOWN)
			meet = x;
		else if (!same_fact(meet, x))
			return varying;
	}
	return meet;
}

/*
 * v, a copy of one value, is told it is a copy of another (next): the
 * value it copied went varying, and v's users that saw "a copy of x"
 * through it now see "a copy of it". Meeting the two would make v
 * varying where every edge passes one value (and would make the result
 * depend on the order in which branches are met). Instead v's fact is
 * worked out again, once: a copy instruction's is next itself (worked
 * out from its operand now), a parameter's is the meet over every edge
 * that may be taken into its block. A second move makes it varying, so
 * that a fact still changes at most three times. v is parameter k of
 * block b, or an instruction's result for b none (which the callers
 * know: kl_value_param_index would look through b's parameters each
 * time, quadratic in their number when many move).
 */
static fact
moved_copy(sccp *s, uint32_t v, fact next, kl_block b, uint32_t k)
{
	fact x = b.id == KL_NONE ? next : param_fact(s, v, b, k);
	if (x.kind != COPY)
		return varying;
	x.moved = 1;
	return x;
}

/* v's fact meets next: it stays if next is unknown or the same, becomes
 * next if it was unknown, else varying (the lattice has no point between
 * two different known facts but varying) or, once, a copy of another
 * value (moved_copy: v is parameter k of block b, or for b none an
 * instruction's result); it is pushed if it changed. */
static void
lower_at(sccp *s, uint32_t v, fact next, kl_block b, uint32_t k)
{
	if (v >= s->nvalues)
		return;
	fact *cur = &s->facts[v];
	if (next.kind == UNKNOWN || same_fact(*cur, next) ||
	    cur->kind == VARYING)
		return;
	if (cur->kind == UNKNOWN)
		*cur = (fact){ .kind = next.kind, .copy = next.copy,
			       .k = next.k }; /* (not moved yet) */
	else if (cur->kind == COPY && next.kind == COPY && !cur->moved)
		*cur = moved_copy(s, v, next, b, k);
	else
		*cur = varying;
	push(&s->values, v);
}

/* lower_at for an instruction's result, and for parameter k of block b. */
static void
lower(sccp *s, uint32_t v, fact next)
{
	lower_at(s, v, next, (kl_block){ KL_NONE }, 0);
}

static void
lower_param(sccp *s, kl_block b, uint32_t k, fact next)
{
	lower_at(s, kl_block_param(s->f, b, k).id, next, b, k);
}

/*
 * Is v an address whose accesses the verifier checks where they run or
 * not: an alloca's or a data object's, or an iadd_imm chain over one (a
 * load or store at a constant offset from it must lie inside the
 * object, and none may store into const data)? One made through a
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
		if (v >= s->nvalues)
			break;
		if (s->address[v] != NOT_ASKED) {
			answer = s->address[v];
			break;
		}
		s->path[n++] = v;
		s->address[v] = NO; /* (so that a loop of broken input ends) */
		kl_inst def = kl_value_def_inst(f, (kl_value){ v });
		kl_opcode op = kl_inst_opcode(f, def);
		if (op == KL_OP_ALLOCA) {
			answer = YES;
		} else if (op == KL_OP_SYMBOL_ADDR) {
			kl_sym sym = kl_inst_callee(f, def);
			answer = kl_sym_get_kind(s->m, sym) == KL_SYM_DATA
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
		x = varying;
	return x;
}

/* The edge from destination d of branch i may be taken: its arguments
 * meet the target's parameters (p passed to itself round a loop meets
 * its own fact, which changes nothing), and the target runs. */
static void
take_edge(sccp *s, kl_inst i, uint32_t d)
{
	uint32_t e = s->first_edge[i.id] + d;
	if (s->taken[e])
		return;
	s->taken[e] = true;
	kl_block to = kl_inst_dest(s->f, i, d);
	uint32_t nargs = kl_inst_dest_num_args(s->f, i, d);
	if (to.id == KL_NONE || nargs > kl_block_num_params(s->f, to))
		return; /* broken input */
	for (uint32_t k = 0; k < nargs; k++)
		lower_param(s, to, k,
			    copied_fact(s, kl_inst_dest_arg(s->f, i, d, k)));
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
	if (!kl_type_is_int(s->m, operand) || bits == 0)
		return false;
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
	kl_value r = kl_inst_result(f, i, 0);
	if (kl_inst_opcode(f, i) == KL_OP_ICONST) {
		kl_type t = kl_value_type(f, r);
		return (fact){ .kind = CONSTANT,
			       .k = wrap((uint64_t)kl_inst_imm(f, i),
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
			 : (fact){ .kind = CONSTANT,
				   .k = (uint64_t)kl_inst_imm(f, i) };
	if (x.kind == UNKNOWN || y.kind == UNKNOWN)
		return (fact){ .kind = UNKNOWN };
	uint64_t c;
	if (x.kind == CONSTANT && y.kind == CONSTANT &&
	    fold_op(s, i, x.k, y.k, &c))
		return (fact){ .kind = CONSTANT, .k = c };
	/* (two copies of one value: a parameter that is always v, and v) */
	if (nargs == 2 && x.kind == COPY && y.kind == COPY &&
	    x.copy == y.copy && fold_same(s, i, &c))
		return (fact){ .kind = CONSTANT, .k = c };
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
				 : varying;
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
	if (nr == 0 || fact_of(s, kl_inst_result(f, i, 0)).kind != UNKNOWN)
		return;
	for (uint32_t k = 0; k < nr; k++)
		lower(s, kl_inst_result(f, i, k).id, varying);
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
		lower(s, kl_block_param(f, entry, k).id, varying);
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
			kl_block b = kl_inst_block(f, i);
			if (b.id == KL_NONE || !s->runs[b.id])
				continue;
			if (u[k].dest == KL_NONE) {
				visit(s, i);
			} else if (s->taken[s->first_edge[i.id] + u[k].dest]) {
				kl_block to = kl_inst_dest(f, i, u[k].dest);
				lower_param(s, to, u[k].index,
					    copied_fact(s, kl_inst_dest_arg(
						f, i, u[k].dest, u[k].index)));
			}
		}
	}
}

/*
 * Is every operand and argument in a block that runs known, as it is in
 * strict SSA form? An operand defined in a block that cannot run, or
 * nowhere, stays unknown, and a branch on one takes no edge: the blocks
 * after it would be dropped as if they could not run. If not, the
 * function is left alone (v: the first such value).
 */
static bool
all_known(const sccp *s, uint32_t *v)
{
	const kl_func *f = s->f;
	for (kl_block b = kl_func_first_block(f); b.id != KL_NONE;
	     b = kl_block_next(f, b)) {
		if (!s->runs[b.id])
			continue;
		for (kl_inst i = kl_block_first_inst(f, b); i.id != KL_NONE;
		     i = kl_inst_next(f, i)) {
			for (uint32_t k = 0; k < kl_inst_num_args(f, i); k++) {
				*v = kl_inst_arg(f, i, k).id;
				if (fact_of(s, (kl_value){ *v }).kind ==
				    UNKNOWN)
					return false;
			}
			for (uint32_t d = 0; d < kl_inst_num_dests(f, i); d++)
				for (uint32_t k = 0;
				     k < kl_inst_dest_num_args(f, i, d); k++) {
					*v = kl_inst_dest_arg(f, i, d, k).id;
					if (fact_of(s, (kl_value){ *v })
						    .kind == UNKNOWN)
						return false;
				}
		}
	}
	return true;
}

enum { N_VALUES, N_JUMPS, N_BLOCKS, N_PARAMS, N_COUNTS };
static const char *const counter_names[N_COUNTS] = { "values", "jumps",
						     "blocks", "params" };

/* An iconst of v's type and fact, built where b stands. */
static kl_value
constant_like(kl_builder *b, kl_value v, fact x)
{
	return kl_build_iconst(b, kl_value_type(b->func, v), (int64_t)x.k);
}

static void
grow_lists(sccp *s, uint64_t need)
{
	pass_grow_all(&s->list_cap, need, 2,
		      (void **[]){ (void **)&s->list, (void **)&s->to },
		      (const size_t[]){ sizeof *s->list, sizeof *s->to });
}

/* A branch on a constant becomes a jump to the destination it takes,
 * with that destination's arguments, built before it. */
static void
make_jump(sccp *s, kl_builder *b, kl_inst i, uint32_t d)
{
	kl_func *f = b->func;
	uint32_t n = kl_inst_dest_num_args(f, i, d);
	grow_lists(s, n);
	for (uint32_t k = 0; k < n; k++)
		s->list[k] = kl_inst_dest_arg(f, i, d, k);
	kl_builder_before(b, i);
	kl_build_jump(b, (kl_block_call){ kl_inst_dest(f, i, d), s->list, n });
	kl_inst_remove(f, i);
}

/* The value that replaces v, of fact x (built before `at` for a
 * constant), or none when v stays: it varies, or broken input gave it
 * a copy of another type. */
static kl_value
replacement(sccp *s, kl_builder *b, kl_value v, fact x, kl_inst at)
{
	kl_func *f = s->f;
	if (x.kind == CONSTANT && kl_type_is_int(s->m, kl_value_type(f, v))) {
		kl_builder_before(b, at);
		return constant_like(b, v, x);
	}
	/* (of v's class: an alias may stand for another type of it) */
	if (x.kind == COPY && x.copy != v.id &&
	    kl_type_class(s->m, kl_value_type(f, (kl_value){ x.copy })) ==
		    kl_type_class(s->m, kl_value_type(f, v)))
		return (kl_value){ x.copy };
	return (kl_value){ KL_NONE };
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
	kl_value same = replacement(s, b, r, s->facts[r.id], i);
	if (same.id == KL_NONE)
		return false;
	kl_inst_remove(f, i);
	return kl_value_set_alias(f, r, same) == KL_OK;
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
rewrite(sccp *s, uint64_t n[N_COUNTS])
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
			make_jump(s, &b, t, d);
			n[N_JUMPS]++;
		}
	}
	kl_block bl = entry;
	while (bl.id != KL_NONE) {
		kl_block next = kl_block_next(f, bl);
		if (!s->runs[bl.id] && kl_func_remove_block(f, bl) == KL_OK)
			n[N_BLOCKS]++;
		bl = next;
	}
	uint32_t ngo = 0;
	for (bl = kl_block_next(f, entry); bl.id != KL_NONE;
	     bl = kl_block_next(f, bl))
		for (uint32_t k = 0; k < kl_block_num_params(f, bl); k++) {
			kl_value p = kl_block_param(f, bl, k);
			kl_value to = replacement(s, &b, p, s->facts[p.id],
						  kl_block_first_inst(f, bl));
			if (to.id == KL_NONE)
				continue;
			grow_lists(s, (uint64_t)ngo + 1);
			s->list[ngo] = p;
			s->to[ngo++] = to;
		}
	if (ngo && kl_func_remove_params(f, s->list, ngo) == KL_OK) {
		for (uint32_t k = 0; k < ngo; k++)
			kl_value_set_alias(f, s->list[k], s->to[k]);
		n[N_PARAMS] += ngo;
	}
	for (bl = entry; bl.id != KL_NONE; bl = kl_block_next(f, bl)) {
		kl_inst next;
		for (kl_inst i = kl_block_first_inst(f, bl); i.id != KL_NONE;
		     i = next) {
			next = kl_inst_next(f, i);
			n[N_VALUES] += replace_result(s, &b, i);
		}
	}
}

/* Room for f's values, blocks, instructions and edges, all cleared. The
 * edges are numbered branch by branch, destination by destination, every
 * instruction's (a branch may stand inside a block of broken input, a
 * report's word that it verified notwithstanding). */
static void
sccp_size(sccp *s, kl_func *f)
{
	uint32_t nv = kl_func_value_bound(f), nb = kl_func_block_bound(f);
	s->f = f;
	s->m = kl_func_module(f);
	s->nvalues = nv;
	/* (one more of each: memset must not get the NULL of an array
	 * never grown) */
	pass_grow_all(&s->values_cap, (uint64_t)nv + 1, 3,
		      (void **[]){ (void **)&s->facts, (void **)&s->address,
				   (void **)&s->path },
		      (const size_t[]){ sizeof *s->facts, sizeof *s->address,
					sizeof *s->path });
	kl_grow(&s->runs, &s->blocks_cap, sizeof *s->runs, (uint64_t)nb + 1);
	kl_grow(&s->first_edge, &s->insts_cap, sizeof *s->first_edge,
		(uint64_t)kl_func_inst_bound(f) + 1);
	memset(s->facts, 0, (size_t)nv * sizeof *s->facts);
	memset(s->address, 0, nv);
	memset(s->runs, 0, nb);
	uint32_t nedges = 0;
	for (kl_block b = kl_func_first_block(f); b.id != KL_NONE;
	     b = kl_block_next(f, b)) {
		for (kl_inst i = kl_block_first_inst(f, b); i.id != KL_NONE;
		     i = kl_inst_next(f, i)) {
			s->first_edge[i.id] = nedges;
			nedges += kl_inst_num_dests(f, i);
		}
	}
	kl_grow(&s->taken, &s->edges_cap, sizeof *s->taken,
		(uint64_t)nedges + 1);
	memset(s->taken, 0, nedges);
	s->in_made = false;
	s->blocks.len = s->values.len = 0;
}

kl_status
kl_sccp_func(kl_func *f, kl_pass_report *rep)
{
	func_edited(f); /* (as every pass does, changing f or not) */
	if (kl_func_first_block(f).id == KL_NONE)
		return KL_OK;
	bool keep;
	sccp *s = pass_scratch(rep, sccp_free, sccp_new, &keep);
	bool verified = rep && rep->input_verified;
	kl_uses_compute(s->uses, f);
	sccp_size(s, f);
	propagate(s);
	uint64_t n[N_COUNTS] = { 0 };
	uint32_t bad = KL_NONE;
	if (verified || all_known(s, &bad)) {
		rewrite(s, n);
	} else if (rep && rep->verbose) {
		pass_note_func(rep, f);
		kl_buf_printf(&rep->notes,
			      "left alone: v%u is used where it can run but "
			      "defined where it cannot, or nowhere (not "
			      "strict SSA)\n", bad);
	}
	for (int k = 0; k < N_COUNTS; k++)
		kl_pass_report_count(rep, counter_names[k], n[k]);
	if (!keep)
		sccp_free(s);
	return KL_OK;
}
