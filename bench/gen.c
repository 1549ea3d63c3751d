/*
 * gen.c -- keel-gen, the workload generator for keel's benchmarks and
 * differential tests: options, shapes, and every random choice.
 *
 * keel-gen writes a random but valid and terminating program, either as
 * keel IR text (--format kl) or as LLVM IR text (--format ll) that computes
 * the same thing, so keel's parser, passes and interpreter can be timed on
 * programs of any size, and checked against lli. It does not link libkeel:
 * it must keep working while the library is broken.
 *
 * One generator, two printers. This file makes every random choice
 * (control flow, instructions, operands) and calls one emit_* function
 * (gen_emit.c) per keel instruction, which prints it in the selected
 * format and never draws a random number. The same seed and options
 * therefore give the same program in both formats, instruction for
 * instruction, and the text is written in one pass with no IR kept in
 * memory beyond a table of value types.
 *
 * Programs look like clang -O0 output: every local is an alloca in the
 * entry block, read by loads and written by stores, plus arithmetic,
 * compares, selects, conversions, branches and calls. %main calls every
 * function with fixed inputs and returns a checksum truncated to i32.
 *
 * Validity by construction:
 * - Control flow is a nest of single-entry constructs (jump, if, if/else,
 *   while and do-while loops, early return, two-entry cycles). A construct
 *   is given an exact number of blocks before it starts, so every branch
 *   target's number is known when the branch is printed, blocks come out in
 *   layout order, and no branch targets block0.
 * - Dominance: the generator keeps a stack of usable values per type. A
 *   construct pops the values defined in a region that does not dominate
 *   what follows (an if arm, a loop body), so an operand is always defined
 *   in a block that dominates its use. Values reach other blocks that way
 *   and through allocas; block parameters appear only at forward joins,
 *   whose predecessors are all printed first (LLVM needs them for phis).
 * - Termination: loops count an alloca-held counter up to a constant trip
 *   count; two-entry cycles likewise; calls go only to lower-numbered
 *   functions. A cost estimate (an upper bound of executed instructions)
 *   keeps trip counts and calls within --budget.
 * - No traps and no undefined behaviour: divisors are x | 1 (unsigned) or
 *   (x >> 1) | 1 (signed, so never -1); memory is accessed only at constant
 *   offsets inside an alloca, and every alloca is fully initialised in the
 *   entry block; LLVM shift amounts are masked to the width, which is what
 *   keel's shifts do. Floats are only loaded, stored, selected, compared
 *   and passed, never computed, so NaN payload rules cannot differ.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

#define SDMAX 24        /* construct nesting of the generic generator,
			   which recurses: loops nest at most this deep */
#define NSETS 2         /* input sets %main calls each function with */

enum shape {
	S_RANDOM, S_SMALL, S_HUGE, S_CHAIN, S_NEST, S_LOOP, S_PROMOTE,
	S_MERGED, NSHAPES
};
static const char *const shape_name[NSHAPES] = {
	"random", "small", "huge", "chain", "nest", "loop", "promote", "merged"
};

/* What fill() may emit, and the weights of the generic profile. */
enum kind {
	K_LOAD, K_STORE, K_ARITH, K_IMM, K_SHIFT, K_DIV, K_CMP, K_SELECT,
	K_CONV, K_FCMP, K_DERIVE, NKIND
};
static const unsigned kw_default[NKIND] = {
	18, 16, 20, 12, 6, 4, 10, 5, 5, 2, 3
};
static const unsigned kw_promote[NKIND] = {
	32, 30, 12, 8, 2, 1, 8, 3, 3, 1, 1
};
static const unsigned kw_hot[NKIND] = {
	20, 16, 30, 16, 6, 0, 8, 4, 2, 0, 0
};

/* Control-flow constructs and their weights. */
enum cons {
	C_SPLIT, C_RET, C_IFTHEN, C_IFELSE, C_WHILE, C_DOWHILE, C_IRR, NCONS
};
static const unsigned cw_default[NCONS] = { 8, 3, 16, 20, 14, 8, 8 };
static const unsigned cw_chain[NCONS] = { 1, 0, 0, 0, 0, 0, 0 };
static const unsigned cw_promote[NCONS] = { 5, 1, 16, 22, 14, 8, 6 };

/* Options as given; -1 means "not given, take the shape's value". */
struct opts {
	uint64_t seed;
	bool ll, irreducible, mixed, no_escape;
	const char *out;
	int shape;
	int64_t size, functions, blocks, insts, allocas, depth, calls;
	int64_t budget, iterations, aliases, ptrlocals;
};

/* ---- choosing operands -------------------------------------------------- */

static unsigned
wpick(struct gen *g, const unsigned *w, unsigned n)
{
	unsigned sum = 0, i, r;

	for (i = 0; i < n; i++)
		sum += w[i];
	GEN_ASSERT(sum > 0);
	r = rnd(g, sum);
	for (i = 0; w[i] <= r; i++)
		r -= w[i];
	return i;
}

/* The heights of the value stacks, to forget a region's values. */
struct mark {
	uint32_t n[NTYPES];
};

static void
save(struct gen *g, struct mark *m)
{
	unsigned i;

	for (i = 0; i < NTYPES; i++)
		m->n[i] = (uint32_t)g->avail[i].n;
}

/* Forgets the values defined since save(): they do not dominate what
 * comes next. */
static void
restore(struct gen *g, const struct mark *m)
{
	unsigned i;

	for (i = 0; i < NTYPES; i++)
		g->avail[i].n = m->n[i];
}

static uint32_t
jitter(struct gen *g, uint32_t n)
{
	return n / 2 + rnd(g, n + 1);
}

static int
rand_int_type(struct gen *g)
{
	uint32_t r = rnd(g, 100);

	if (!g->mixed)
		return r < 65 ? T_I64 : T_I32;
	return r < 10 ? T_I8 : r < 25 ? T_I16 : r < 55 ? T_I32 : T_I64;
}

/* Mostly small numbers, sometimes ones that print in hex. */
static int64_t
rand_imm(struct gen *g, int t)
{
	uint32_t r = rnd(g, 100);
	int64_t x;

	if (r < 70)
		x = (int64_t)rnd(g, 121) - 20;
	else if (r < 90)
		x = (int64_t)rnd(g, 40001) - 20000;
	else
		x = (int64_t)rnd64(g);
	return sext((uint64_t)x, tbytes[t]);
}

static uint32_t
convert(struct gen *g, uint32_t v, int t)
{
	int u = g->val[v].type;

	if (u == t)
		return v;
	GEN_ASSERT(is_int(u) && is_int(t));
	if (tbytes[u] > tbytes[t])
		return emit_conv(g, CV_REDUCE, t, v);
	return emit_conv(g, chance(g, 50) ? CV_UEXT : CV_SEXT, t, v);
}

static struct slot *
rand_slot(struct gen *g)
{
	uint32_t n = (uint32_t)(g->nslot - g->slot_lo);

	return n ? &g->slot[g->slot_lo + rnd(g, n)] : NULL;
}

/* A random slot of at least n bytes (mixed) or of type t (not mixed). */
static struct slot *
find_slot(struct gen *g, unsigned n, int t)
{
	uint32_t i, k, ns = (uint32_t)(g->nslot - g->slot_lo);
	struct slot *s;

	/* a scan from a random start finds one whenever one exists */
	for (i = 0, k = ns ? rnd(g, ns) : 0; i < ns; i++, k = (k + 1) % ns) {
		s = &g->slot[g->slot_lo + k];
		if (g->mixed ? s->size >= n : s->type == t)
			return s;
	}
	return NULL;
}

/* An offset for an n-byte access inside size bytes; mostly aligned. */
static uint32_t
rand_off(struct gen *g, uint32_t size, unsigned n)
{
	if (chance(g, 60))
		return rnd(g, (size - n) / n + 1) * n;
	return rnd(g, size - n + 1);
}

/* The address to access slot s through: s->ptr, or with
 * --pointer-locals, half the time when s has pointer allocas, the pointer
 * read from them (one load.i64 a level, starting at a random level),
 * which is s->ptr + s->poff. *adj is then -s->poff: an offset into s
 * plus *adj is the offset from the address returned. Draws nothing for a
 * slot without pointer allocas, so output without the option stays as
 * it was. */
static uint32_t
slot_addr(struct gen *g, const struct slot *s, int64_t *adj)
{
	uint32_t p, k;

	*adj = 0;
	if (!s->plevels || !chance(g, 50))
		return s->ptr;
	k = rnd(g, s->plevels);
	p = s->pp[k];
	do {
		p = emit_load(g, M_LOAD, T_PTR, p, 0);
		g->val[p].align = 8;
	} while (k-- > 0);
	g->val[p].align = s->palign;
	*adj = -(int64_t)s->poff;
	return p;
}

static uint32_t pick(struct gen *g, int t);

/* A fresh value of type t: a load, a conversion or a constant. */
static uint32_t
make(struct gen *g, int t)
{
	uint32_t r = rnd(g, 100), i, p;
	struct slot *s;
	int64_t adj;
	int u;

	/* without --mixed-widths, slots hold only i64 and i32 */
	if ((r < 35 && (g->mixed || t == T_I64 || t == T_I32)) || !is_int(t)) {
		s = find_slot(g, tbytes[t], t);
		if (s) {
			p = slot_addr(g, s, &adj);
			if (g->mixed)
				adj += rand_off(g, s->size, tbytes[t]);
			return emit_load(g, M_LOAD, t, p, adj);
		}
		GEN_ASSERT(is_int(t));
	}
	if (r < 70) {
		for (i = 0; i < 4; i++) {
			u = (int)rnd(g, T_I64 + 1);
			if (u != t && g->avail[u].n)
				return convert(g, pick(g, u), t);
		}
	}
	return emit_iconst(g, t, rand_imm(g, t));
}

/* An operand of type t: mostly a recent value, so most uses are in the
 * defining block, sometimes any dominating one. */
static uint32_t
pick(struct gen *g, int t)
{
	struct stack *s = &g->avail[t];
	uint32_t n = (uint32_t)s->n;

	if (!n || chance(g, 6))
		return make(g, t);
	if (n <= 8 || chance(g, 80))
		return s->v[n - 1 - rnd(g, n < 8 ? n : 8)];
	return s->v[rnd(g, n)];
}

static bool
have_float(struct gen *g, int t)
{
	return g->avail[t].n || find_slot(g, tbytes[t], t);
}

/* ---- instructions ------------------------------------------------------- */

/* One access inside [lo, lo + size) of pointer p, with the widths and
 * extensions --mixed-widths asks for. */
static void
mixed_access(struct gen *g, bool st, uint32_t p, int64_t lo, uint32_t size)
{
	static const int ext_t[] = { T_I16, T_I32, T_I64 };
	unsigned n = 1, r = rnd(g, 4);
	int64_t off;
	int t, op = st ? M_STORE : M_LOAD;

	while (n < 8 && n * 2 <= size && chance(g, 60))
		n *= 2;
	off = lo + rand_off(g, size, n);
	t = n == 1 ? T_I8 : n == 2 ? T_I16 : n == 4 ? T_I32 : T_I64;
	if (r == 0 && n >= 4 && have_float(g, n == 4 ? T_F32 : T_F64)) {
		t = n == 4 ? T_F32 : T_F64;
	} else if (r >= 2 && n < 8) {
		/* a sized access of a wider value */
		t = ext_t[(n == 1 ? 0 : n == 2 ? 1 : 2) + rnd(g, n == 1 ? 3 :
							  n == 2 ? 2 : 1)];
		op = st ? (n == 1 ? M_ISTORE8 : n == 2 ? M_ISTORE16 :
			   M_ISTORE32)
			: (n == 1 ? M_ULOAD8 : n == 2 ? M_ULOAD16 :
			   M_ULOAD32) + (int)rnd(g, 2);
	}
	if (st)
		emit_store(g, op, pick(g, t), p, off);
	else
		emit_load(g, op, t, p, off);
}

static void
gen_mem(struct gen *g, bool st)
{
	struct slot *s = rand_slot(g);
	uint32_t a, b, p;
	int64_t adj;

	if (!s) {
		a = pick(g, T_I64);
		b = pick(g, T_I64);
		emit_bin(g, OP_IADD, a, b);
		return;
	}
	p = slot_addr(g, s, &adj);
	if (g->mixed) {
		mixed_access(g, st, p, adj, s->size);
	} else if (st) {
		a = pick(g, s->type);
		emit_store(g, M_STORE, a, p, adj);
	} else {
		emit_load(g, M_LOAD, s->type, p, adj);
	}
}

/* A pointer into the middle of an alloca, and accesses through it at
 * negative and positive offsets. */
static void
gen_derive(struct gen *g)
{
	struct slot *s = rand_slot(g);
	uint32_t k, d, a, p;
	unsigned i, n = 1 + rnd(g, 2);
	int64_t adj, lo;

	if (!s)
		return;
	k = 1 + rnd(g, s->size);
	a = g->val[s->ptr].align;
	p = slot_addr(g, s, &adj);
	/* d is s->ptr + k + (-adj): the pointer's offset counts too */
	lo = adj - (int64_t)k;
	while (a > 1 && lo % (int64_t)a)
		a >>= 1;
	d = emit_binimm(g, OP_IADD, p, k);
	g->val[d].align = (uint8_t)a;
	for (i = 0; i < n; i++)
		mixed_access(g, chance(g, 50), d, lo, s->size);
}

/* One instruction of kind k (a few for divisions and conversions).
 * Every random draw is a statement of its own: C leaves the order in
 * which function arguments are evaluated unspecified, and the output must
 * not depend on the compiler. */
static void
gen_op(struct gen *g, unsigned k)
{
	static const int immop[] = { OP_IADD, OP_IMUL, OP_BAND, OP_BOR,
				     OP_BXOR };
	int t = rand_int_type(g), u, op;
	unsigned cc;
	uint32_t a, b, c;
	int64_t imm;

	if (!g->mixed && (k == K_FCMP || k == K_DERIVE))
		k = K_ARITH;
	switch (k) {
	case K_LOAD:
	case K_STORE:
		gen_mem(g, k == K_STORE);
		break;
	case K_ARITH:
		/* --mixed-widths: now and then a unary operation or a
		 * rotation, which no other kind makes */
		if (g->mixed && chance(g, 30)) {
			op = (int)rnd(g, NUNOP + 2);
			a = pick(g, t);
			if (op < NUNOP) {
				emit_unary(g, op, a);
				break;
			}
			b = pick(g, t);
			emit_bin(g, op == NUNOP ? OP_ROTL : OP_ROTR, a, b);
			break;
		}
		op = (int)rnd(g, OP_BXOR + 1);
		a = pick(g, t);
		b = pick(g, t);
		emit_bin(g, op, a, b);
		break;
	case K_IMM:
		op = immop[rnd(g, 5)];
		a = pick(g, t);
		imm = rand_imm(g, t);
		emit_binimm(g, op, a, imm);
		break;
	case K_SHIFT:
		op = OP_ISHL + (int)rnd(g, 3);
		a = pick(g, t);
		if (chance(g, 50)) {
			imm = rnd(g, tbytes[t] * 8);
			emit_binimm(g, op, a, imm);
		} else {
			b = pick(g, t);
			emit_bin(g, op, a, b);
		}
		break;
	case K_DIV:
		a = pick(g, t);
		b = pick(g, t);
		if (chance(g, 50)) {
			op = chance(g, 50) ? OP_UDIV : OP_UREM;
			b = emit_binimm(g, OP_BOR, b, 1);
		} else {
			/* positive, so neither zero nor -1 */
			op = chance(g, 50) ? OP_SDIV : OP_SREM;
			b = emit_binimm(g, OP_USHR, b, 1);
			b = emit_binimm(g, OP_BOR, b, 1);
		}
		emit_bin(g, op, a, b);
		break;
	case K_CMP:
		cc = rnd(g, 10);
		if (g->aliases && g->escape && chance(g, 10) &&
		    g->nslot > g->slot_lo) {
			/* Two addresses compared (through aliases, now and
			 * then): both escape. Only eq and ne: distinct
			 * allocations never compare equal, wherever they
			 * are. */
			a = rand_slot(g)->ptr;
			b = rand_slot(g)->ptr;
			emit_cmp(g, false, cc & 1, a, b, false, 0);
			break;
		}
		a = pick(g, t);
		if (chance(g, 40)) {
			imm = rand_imm(g, t);
			emit_cmp(g, false, cc, a, 0, true, imm);
		} else {
			b = pick(g, t);
			emit_cmp(g, false, cc, a, b, false, 0);
		}
		break;
	case K_SELECT:
		u = chance(g, 80) ? T_I8 : rand_int_type(g);
		c = pick(g, u);
		if (g->mixed && chance(g, 15) && have_float(g, T_F64))
			t = T_F64;
		a = pick(g, t);
		b = pick(g, t);
		emit_select(g, c, a, b);
		break;
	case K_CONV:
		/* not mixed: the other type may be a compare's i8 */
		u = rand_int_type(g);
		if (u == t)
			u = g->mixed ? (t == T_I64 ? T_I8 : t + 1) : T_I8;
		convert(g, pick(g, u), t);
		break;
	case K_FCMP:
		t = chance(g, 50) ? T_F32 : T_F64;
		if (!have_float(g, t))
			break;
		cc = rnd(g, 8);
		a = pick(g, t);
		b = pick(g, t);
		emit_cmp(g, true, cc, a, b, false, 0);
		break;
	case K_DERIVE:
		gen_derive(g);
		break;
	}
}

/* A call to a lower-numbered function that the cost budget allows. */
static void
gen_call(struct gen *g)
{
	uint32_t args[MAXP], k = 0, i, n = g->curfn;
	const struct sig *s = NULL;
	struct slot *sl;
	uint64_t c = 0;
	int64_t adj;

	for (i = 0; i < 4 && n; i++) {
		k = chance(g, 50) ? n - 1 - rnd(g, n < 8 ? n : 8) : rnd(g, n);
		c = satmul(g->fn[k].cost, g->mult);
		if (satadd(g->callspent, c) <= g->fbudget) {
			s = &g->fn[k];
			break;
		}
	}
	if (!s)
		return;
	for (i = 0; i < s->np; i++) {
		if (s->param[i] != T_PTR) {
			args[i] = pick(g, s->param[i]);
			continue;
		}
		sl = find_slot(g, 8, T_I64);
		if (!sl || sl->size < 8 || g->val[sl->ptr].align < 8)
			return;
		args[i] = sl->ptr;
		/* (the callee needs the slot's own address: no offset) */
		if (!sl->poff)
			args[i] = slot_addr(g, sl, &adj);
	}
	emit_call(g, k, args, s->np);
	g->callspent = satadd(g->callspent, c);
	g->cost = satadd(g->cost, c);
}

/* About n instructions of straight-line code, and perhaps a call. */
static void
fill(struct gen *g, uint32_t n)
{
	uint32_t start = g->ninst, at = UINT32_MAX;

	if (g->calls && chance(g, g->calls))
		at = rnd(g, n + 1);
	while (g->ninst - start < n) {
		if (g->ninst - start >= at) {
			at = UINT32_MAX;
			gen_call(g);
			continue;
		}
		gen_op(g, wpick(g, g->kw, NKIND));
	}
	if (at != UINT32_MAX)
		gen_call(g);
}

/* A branch condition: usually a compare, sometimes a plain integer. */
static uint32_t
cond(struct gen *g)
{
	uint32_t r = rnd(g, 100), a, b;
	int t = rand_int_type(g);
	unsigned cc;
	int64_t imm;

	if (r < 88 && r >= 80 && g->mixed && have_float(g, T_F64)) {
		cc = rnd(g, 8);
		a = pick(g, T_F64);
		b = pick(g, T_F64);
		return emit_cmp(g, true, cc, a, b, false, 0);
	}
	cc = rnd(g, 10);
	a = pick(g, t);
	if (r < 60) {
		b = pick(g, t);
		return emit_cmp(g, false, cc, a, b, false, 0);
	}
	if (r < 88) {
		imm = rand_imm(g, t);
		return emit_cmp(g, false, cc, a, 0, true, imm);
	}
	return a;
}

/* Parameter types for a join block (often none). */
static uint32_t
join_types(struct gen *g, uint8_t *ty)
{
	uint32_t n = chance(g, 45) ? 1 + rnd(g, MAXBP) : 0, i;

	for (i = 0; i < n; i++) {
		ty[i] = (uint8_t)rand_int_type(g);
		if (chance(g, 15))
			ty[i] = T_I8;
		else if (g->mixed && chance(g, 10) && have_float(g, T_F32))
			ty[i] = T_F32;
	}
	return n;
}

/* The edge from the current block, with arguments for types ty. */
static struct edge *
mkedge(struct gen *g, struct edge *e, const uint8_t *ty, uint32_t n)
{
	uint32_t i;

	e->from = g->cur;
	e->n = n;
	for (i = 0; i < n; i++)
		e->arg[i] = pick(g, ty[i]);
	return e;
}

static void
ctr_reset(struct gen *g, unsigned d)
{
	emit_store(g, M_STORE, emit_iconst(g, T_I64, 0), g->ctr[d], 0);
}

static uint32_t
ctr_step(struct gen *g, unsigned d)
{
	uint32_t x = emit_load(g, M_LOAD, T_I64, g->ctr[d], 0);

	x = emit_binimm(g, OP_IADD, x, 1);
	emit_store(g, M_STORE, x, g->ctr[d], 0);
	return x;
}

/* A trip count that keeps the block multiplier within maxmult. */
static uint32_t
trip(struct gen *g, bool allow0)
{
	uint32_t t = rnd(g, 6);

	if (!t && !allow0)
		t = 1;
	if (satmul(g->mult, t ? t : 1) > g->maxmult)
		t = allow0 && chance(g, 20) ? 0 : 1;
	return t;
}

/* ---- control flow ------------------------------------------------------- */

static void seq(struct gen *g, uint32_t r, unsigned ld, unsigned sd);

/* Size of a nested region; nesting stops at SDMAX. */
static uint32_t
armsize(struct gen *g, uint32_t max, unsigned sd)
{
	uint32_t lim = max < g->chunk ? max : g->chunk, a, b;

	if (sd >= SDMAX || lim <= 1)
		return 1;
	a = rnd(g, lim);
	b = rnd(g, lim);
	return 1 + (a < b ? a : b);
}

/* Writes a region of exactly size blocks, starting with block id. */
static void
arm(struct gen *g, uint32_t id, uint32_t size, unsigned ld, unsigned sd)
{
	begin_block(g, id, NULL, 0);
	fill(g, jitter(g, g->insts));
	seq(g, size - 1, ld, sd + 1);
}

static void
do_if(struct gen *g, uint32_t a, uint32_t b, unsigned ld, unsigned sd)
{
	struct edge e[2];
	struct mark m;
	uint8_t ty[MAXBP];
	uint32_t c, n, bt = g->nblk, be = bt + a, bj = be + b;

	n = join_types(g, ty);
	c = cond(g);
	if (!b)
		mkedge(g, &e[0], ty, n);
	term_brif(g, c, bt, NULL, be, b ? NULL : &e[0]);
	save(g, &m);
	arm(g, bt, a, ld, sd);
	mkedge(g, &e[b ? 0 : 1], ty, n);
	term_jump(g, bj, &e[b ? 0 : 1]);
	restore(g, &m);
	if (b) {
		arm(g, be, b, ld, sd);
		mkedge(g, &e[1], ty, n);
		term_jump(g, bj, &e[1]);
		restore(g, &m);
	}
	begin_block(g, bj, e, 2);
	fill(g, jitter(g, g->insts));
}

static void
do_while(struct gen *g, uint32_t m, unsigned ld, unsigned sd)
{
	uint32_t t = trip(g, true), h = g->nblk, x = h + 1 + m;
	uint64_t mult = g->mult;
	struct mark mk;
	uint32_t c;

	ctr_reset(g, ld);
	term_jump(g, h, NULL);
	begin_block(g, h, NULL, 0);
	g->mult = satmul(mult, t + 1);
	c = emit_load(g, M_LOAD, T_I64, g->ctr[ld], 0);
	c = emit_cmp(g, false, 2, c, 0, true, t);
	term_brif(g, c, h + 1, NULL, x, NULL);
	save(g, &mk);
	g->mult = satmul(mult, t ? t : 1);
	arm(g, h + 1, m, ld + 1, sd);
	ctr_step(g, ld);
	term_jump(g, h, NULL);
	restore(g, &mk);
	g->mult = mult;
	begin_block(g, x, NULL, 0);
	fill(g, jitter(g, g->insts));
}

/* Body first, test at the bottom: the exit is dominated by the whole
 * body's spine, so its values stay usable after the loop. */
static void
do_dowhile(struct gen *g, uint32_t m, unsigned ld, unsigned sd)
{
	uint32_t t = trip(g, false), b = g->nblk, x = b + m, c;
	uint64_t mult = g->mult;

	ctr_reset(g, ld);
	term_jump(g, b, NULL);
	g->mult = satmul(mult, t);
	arm(g, b, m, ld + 1, sd);
	c = ctr_step(g, ld);
	c = emit_cmp(g, false, 2, c, 0, true, t);
	term_brif(g, c, b, NULL, x, NULL);
	g->mult = mult;
	begin_block(g, x, NULL, 0);
	fill(g, jitter(g, g->insts));
}

/* One side of a two-entry cycle: count, then go to the other side or
 * leave. */
static void
irr_side(struct gen *g, uint32_t id, uint32_t other, uint32_t x,
	 uint32_t t, unsigned ld, struct edge *e, const uint8_t *ty,
	 uint32_t n)
{
	uint32_t c;

	begin_block(g, id, NULL, 0);
	fill(g, jitter(g, g->insts));
	c = ctr_step(g, ld);
	c = emit_cmp(g, false, 2, c, 0, true, t);
	mkedge(g, e, ty, n);
	term_brif(g, c, other, NULL, x, e);
}

/* Blocks A and B form a cycle entered at both: irreducible. */
static void
do_irr(struct gen *g, unsigned ld)
{
	uint32_t t = 1 + rnd(g, 4), a = g->nblk, c, n;
	uint64_t mult = g->mult;
	struct edge e[2];
	struct mark m;
	uint8_t ty[MAXBP];

	if (satmul(mult, t) > g->maxmult)
		t = 1;
	n = join_types(g, ty);
	ctr_reset(g, ld);
	c = cond(g);
	term_brif(g, c, a, NULL, a + 1, NULL);
	save(g, &m);
	g->mult = satmul(mult, t);
	irr_side(g, a, a + 1, a + 2, t, ld, &e[0], ty, n);
	restore(g, &m);
	irr_side(g, a + 1, a, a + 2, t, ld, &e[1], ty, n);
	restore(g, &m);
	g->mult = mult;
	begin_block(g, a + 2, e, 2);
	fill(g, jitter(g, g->insts));
}

static void
do_ret(struct gen *g)
{
	uint32_t r = g->nblk, x;
	struct mark m;

	x = emit_binimm(g, OP_BAND, pick(g, T_I64), 31);
	x = emit_cmp(g, false, 0, x, 0, true, 17);
	term_brif(g, x, r, NULL, r + 1, NULL);
	save(g, &m);
	begin_block(g, r, NULL, 0);
	fill(g, jitter(g, g->insts) / 2);
	term_return(g, g->rt == T_NONE ? UINT32_MAX : pick(g, g->rt));
	restore(g, &m);
	begin_block(g, r + 1, NULL, 0);
	fill(g, jitter(g, g->insts));
}

static void
do_split(struct gen *g)
{
	uint8_t ty[MAXBP];
	uint32_t n = chance(g, 50) ? 1 + rnd(g, MAXBP) : 0, i;
	struct edge e;

	for (i = 0; i < n; i++)
		ty[i] = (uint8_t)rand_int_type(g);
	mkedge(g, &e, ty, n);
	term_jump(g, g->nblk, &e);
	begin_block(g, g->nblk, &e, 1);
	fill(g, jitter(g, g->insts));
}

/* One construct that uses at most r new blocks; returns how many. */
static uint32_t
construct(struct gen *g, uint32_t r, unsigned ld, unsigned sd)
{
	unsigned w[NCONS], i, sum = 0;
	uint32_t a, b;

	memcpy(w, g->cw, sizeof w);
	if (r < 2)
		w[C_RET] = w[C_IFTHEN] = w[C_DOWHILE] = 0;
	if (r < 3)
		w[C_IFELSE] = w[C_WHILE] = w[C_IRR] = 0;
	if (ld >= g->depth || ld >= g->nctr)
		w[C_WHILE] = w[C_DOWHILE] = 0;
	if (!g->irreducible || ld >= g->nctr)
		w[C_IRR] = 0;
	for (i = 0; i < NCONS; i++)
		sum += w[i];
	if (!sum)
		w[C_SPLIT] = 1;
	switch (wpick(g, w, NCONS)) {
	case C_RET:
		do_ret(g);
		return 2;
	case C_IFTHEN:
		a = armsize(g, r - 1, sd);
		do_if(g, a, 0, ld, sd);
		return a + 1;
	case C_IFELSE:
		a = armsize(g, r - 2, sd);
		b = armsize(g, r - 1 - a, sd);
		do_if(g, a, b, ld, sd);
		return a + b + 1;
	case C_WHILE:
		a = armsize(g, r - 2, sd);
		do_while(g, a, ld, sd);
		return a + 2;
	case C_DOWHILE:
		a = armsize(g, r - 1, sd);
		do_dowhile(g, a, ld, sd);
		return a + 1;
	case C_IRR:
		do_irr(g, ld);
		return 3;
	default:
		do_split(g);
		return 1;
	}
}

/* Continues the open block with constructs that use exactly r new
 * blocks, leaving the last one open. */
static void
seq(struct gen *g, uint32_t r, unsigned ld, unsigned sd)
{
	while (r > 0)
		r -= construct(g, r, ld, sd);
}

/* ---- functions ---------------------------------------------------------- */

/* A parameter or a constant: nothing that reads memory, since no slot
 * is initialised yet. */
static uint32_t
init_value(struct gen *g, int t)
{
	const struct stack *s = &g->avail[t];

	if (s->n && chance(g, 60))
		return s->v[rnd(g, (uint32_t)s->n)];
	return emit_iconst(g, t, rand_imm(g, t));
}

/*
 * --pointer-locals P: P% of the first n slots are also reached through
 * pointers kept in allocas, as C's `int x; int *p = &x;` is: a pointer
 * alloca (8 bytes) holds the slot's address, or the address plus a
 * constant (an iadd_imm, up to one past the end); in one case of four a
 * second pointer alloca holds the first one's address, and in one of
 * eight a third holds the second's. Each is stored exactly once, here,
 * in the entry block right after the allocas, so it holds the same on
 * every path, and that store is the first escape of what it points to;
 * later accesses to the slot then go through the chain of load.i64 now
 * and then (slot_addr), and calls may still take the slot's address.
 * promote removes the outer pointer alloca in its first run and the one
 * it points to in the next (a run a level: docs/passes.md).
 */
static void
pointer_locals(struct gen *g, uint32_t n)
{
	struct slot *s;
	uint32_t i, k, a, x;

	for (i = 0; i < n; i++) {
		s = &g->slot[i];
		if (!chance(g, g->ptrlocals))
			continue;
		s->plevels = 1;
		if (chance(g, 25))
			s->plevels = chance(g, 50) ? 3 : 2;
		if (chance(g, 25))
			s->poff = 1 + rnd(g, s->size);
		a = g->val[s->ptr].align;
		while (a > 1 && s->poff % a)
			a >>= 1;
		s->palign = (uint8_t)a;
		for (k = 0; k < s->plevels; k++)
			s->pp[k] = emit_alloca(g, 8, 8, T_PTR);
	}
	for (i = 0; i < n; i++) {
		s = &g->slot[i];
		if (!s->plevels)
			continue;
		x = s->ptr;
		if (s->poff) {
			x = emit_binimm(g, OP_IADD, x, s->poff);
			g->val[x].align = s->palign;
		}
		emit_store(g, M_STORE, x, s->pp[0], 0);
		for (k = 1; k < s->plevels; k++)
			emit_store(g, M_STORE, s->pp[k - 1], s->pp[k], 0);
	}
}

/* The allocas of the entry block, each fully initialised, since LLVM
 * makes a load of uninitialised memory undef. */
static void
setup_entry(struct gen *g, uint32_t nslot, uint32_t nctr)
{
	static const uint32_t sizes[] = { 1, 2, 4, 8, 8, 8, 16, 16, 32 };
	const struct sig *sg = &g->fn[g->curfn];
	struct slot *s;
	uint32_t i, size, al, off;
	int t;

	for (i = 0; i < nslot; i++) {
		/* the loop shape's recurrences need three i64 slots */
		t = chance(g, 60) || (g->shape == S_LOOP && i < 3) ? T_I64
								   : T_I32;
		size = tbytes[t];
		if (g->mixed) {
			size = i && (g->shape != S_LOOP || i >= 3)
				       ? sizes[rnd(g, 9)] : 8;
			t = T_I64;
		}
		al = size < 8 ? size : chance(g, 20) && size >= 16 ? 16 : 8;
		g->slot = grow(g->slot, &g->capslot, g->nslot, sizeof *g->slot);
		s = &g->slot[g->nslot++];
		s->ptr = emit_alloca(g, size, al, g->mixed ? -1 : t);
		s->size = size;
		s->type = (uint8_t)t;
		s->plevels = 0;
		s->poff = 0;
	}
	for (i = 0; i < nctr; i++) {
		g->ctr = grow(g->ctr, &g->capctr, g->nctr, sizeof *g->ctr);
		g->ctr[g->nctr++] = emit_alloca(g, 8, 8, T_I64);
	}
	if (g->ptrlocals)
		pointer_locals(g, nslot);
	for (i = 0; i < nslot; i++) {
		s = &g->slot[i];
		size = s->size < 8 ? s->size : 8;
		t = size == 1 ? T_I8 : size == 2 ? T_I16 : size == 4 ? T_I32
								      : T_I64;
		if (!g->mixed)
			t = s->type;
		for (off = 0; off < s->size; off += size)
			emit_store(g, M_STORE, init_value(g, t), s->ptr, off);
	}
	/* Pointer parameters point at a caller's initialised slot. */
	for (i = 0; i < sg->np; i++) {
		if (sg->param[i] != T_PTR)
			continue;
		g->slot = grow(g->slot, &g->capslot, g->nslot, sizeof *g->slot);
		s = &g->slot[g->nslot++];
		s->ptr = i;
		s->size = 8;
		s->type = T_I64;
		s->plevels = 0;
		s->poff = 0;
	}
}

/* A value of integer type t read from slot s. */
static uint32_t
slot_value(struct gen *g, const struct slot *s, int t)
{
	static const int uload[] = { 0, M_ULOAD8, M_ULOAD16, 0, M_ULOAD32 };
	unsigned n = s->size < tbytes[t] ? s->size : tbytes[t];
	int64_t adj;
	uint32_t p = slot_addr(g, s, &adj);

	if (!g->mixed)
		return convert(g, emit_load(g, M_LOAD, s->type, p, adj), t);
	if (n == tbytes[t])
		return emit_load(g, M_LOAD, t, p, adj);
	return emit_load(g, uload[n], t, p, adj);
}

/* Ends the function: the result mixes a live value with some slots, so
 * the checksum depends on what was stored. */
static void
finish(struct gen *g)
{
	uint32_t r, i;

	if (g->rt == T_NONE) {
		term_return(g, UINT32_MAX);
		return;
	}
	r = pick(g, g->rt);
	for (i = 0; i < 3 && i < g->nslot; i++)
		r = emit_bin(g, i & 1 ? OP_IADD : OP_BXOR, r,
			     slot_value(g, &g->slot[i], g->rt));
	term_return(g, r);
}

static uint64_t
clamp_mult(uint64_t budget, uint64_t est)
{
	uint64_t m = budget / (est ? est : 1);

	return m < 1 ? 1 : m > 65536 ? 65536 : m;
}

/* One counter per loop depth: a loop or cycle at depth ld uses ctr[ld]. */
static uint32_t
loop_counters(const struct gen *g)
{
	uint32_t n = g->depth + g->irreducible;

	return n < SDMAX + 1 ? n : SDMAX + 1;
}

static void
gen_function(struct gen *g, uint32_t fi)
{
	bool vary = g->shape == S_RANDOM || g->shape == S_SMALL;
	uint32_t nb = vary ? jitter(g, g->blocks) : g->blocks;
	uint32_t na = vary ? jitter(g, g->allocas) : g->allocas;

	begin_function(g, fi);
	if (nb < 1)
		nb = 1;
	g->maxmult = clamp_mult(g->fbudget,
				(uint64_t)nb * (g->insts + 4));
	/* Loops need at least 3 blocks. */
	setup_entry(g, na, nb < 3 ? 0 : loop_counters(g));
	fill(g, jitter(g, g->insts));
	seq(g, nb - 1, 0, 0);
	finish(g);
	end_function(g);
}

/*
 * The small shape's functions as regions of one function: each region
 * draws its blocks and allocas as a small function does, uses only its
 * own allocas and the function's parameters (the values of earlier
 * regions are forgotten), adds a live value and its first slot to the
 * sum the function returns and jumps to the next. What it
 * measures: the same code in one function instead of many, so that a
 * pass's cost of one big function can be told apart from the cost of
 * what the code asks of it. The allocas are all in the entry block, as
 * a front end puts them; each region's share of the execution budget is
 * a small function's.
 */
static void
gen_merged(struct gen *g)
{
	uint32_t nr = g->regions, r, total = 0;
	uint32_t *na = xrealloc(NULL, (size_t)nr * sizeof *na);
	uint64_t rbudget = g->fbudget / nr;
	uint32_t acc = 0; /* the first parameter, an i64 */
	struct mark entry;

	begin_function(g, 0);
	/* (at most 10M in all: resolve) */
	for (r = 0; r < nr; r++)
		total += na[r] = jitter(g, g->allocas);
	g->maxmult = 1;
	setup_entry(g, total, loop_counters(g));
	save(g, &entry);
	for (r = 0, total = 0; r < nr; r++) {
		uint32_t nb = jitter(g, g->blocks);

		if (nb < 1)
			nb = 1;
		/* its own slots only: rand_slot and find_slot read
		 * slot_lo..nslot */
		g->slot_lo = total;
		g->nslot = total += na[r];
		g->mult = 1;
		g->maxmult = clamp_mult(rbudget < 64 ? 64 : rbudget,
					(uint64_t)nb * (g->insts + 4));
		restore(g, &entry);
		term_jump(g, g->nblk, NULL);
		begin_block(g, g->nblk, NULL, 0);
		fill(g, jitter(g, g->insts));
		seq(g, nb - 1, 0, 0);
		/* The region's result, a live value and its first slot,
		 * into the sum the function returns (the last block of a
		 * region dominates the next region), as a small function
		 * returns one. */
		acc = emit_bin(g, OP_BXOR, acc, pick(g, T_I64));
		if (na[r])
			acc = emit_bin(g, OP_IADD, acc,
				       slot_value(g, &g->slot[g->slot_lo],
						  T_I64));
	}
	g->slot_lo = 0;
	term_return(g, acc);
	end_function(g);
	free(na);
}

/* A loop nest of depth g->depth, written without recursion:
 * H_d = block 2d+1 tests the counter, B_d = 2d+2 is the body holding
 * loop d+1, X_d = 3D-d is the exit, which also steps loop d-1. */
static void
gen_nest(struct gen *g)
{
	uint32_t D = g->depth, d, c, t;
	struct mark *mk = xrealloc(NULL, (D ? D : 1) * sizeof *mk);
	uint64_t *mult = xrealloc(NULL, (D ? D : 1) * sizeof *mult);

	begin_function(g, 0);
	g->maxmult = clamp_mult(g->fbudget, (uint64_t)D * 12 + 1);
	setup_entry(g, g->allocas, D);
	fill(g, g->insts);
	for (d = 0; d < D; d++) {
		t = chance(g, 10) && g->mult * 2 <= g->maxmult ? 2 : 1;
		ctr_reset(g, d);
		term_jump(g, 2 * d + 1, NULL);
		begin_block(g, 2 * d + 1, NULL, 0);
		c = emit_load(g, M_LOAD, T_I64, g->ctr[d], 0);
		c = emit_cmp(g, false, 2, c, 0, true, t);
		term_brif(g, c, 2 * d + 2, NULL, 3 * D - d, NULL);
		save(g, &mk[d]);
		mult[d] = g->mult;
		g->mult *= t;
		begin_block(g, 2 * d + 2, NULL, 0);
		fill(g, rnd(g, g->insts + 1));
	}
	fill(g, g->insts);
	for (d = D; d-- > 0;) {
		ctr_step(g, d);
		term_jump(g, 2 * d + 1, NULL);
		restore(g, &mk[d]);
		g->mult = mult[d];
		begin_block(g, 3 * D - d, NULL, 0);
		fill(g, rnd(g, g->insts + 1));
	}
	finish(g);
	end_function(g);
	free(mk);
	free(mult);
}

/* The hot loop's body: recurrences through the three reserved slots
 * (a multiplicative hash of the counter, and two accumulators), so every
 * iteration changes the checksum, with a data-dependent diamond in the
 * middle and random arithmetic on the other slots around it. */
static uint32_t
hot_core(struct gen *g, uint32_t i, uint32_t *x, uint32_t *t)
{
	uint32_t a0 = g->slot[0].ptr, a1 = g->slot[1].ptr, y, r;

	*x = emit_load(g, M_LOAD, T_I64, a0, 0);
	y = emit_load(g, M_LOAD, T_I64, a1, 0);
	*t = emit_bin(g, OP_IADD, *x, i);
	*t = emit_binimm(g, OP_IMUL, *t, 0x9e3779b97f4a7c15LL);
	*t = emit_bin(g, OP_BXOR, *t, y);
	r = emit_binimm(g, OP_USHR, *t, 29);
	*t = emit_bin(g, OP_BXOR, *t, r);
	emit_store(g, M_STORE, *t, a0, 0);
	r = emit_binimm(g, OP_BAND, *t, 3);
	r = emit_cmp(g, false, 6, r, 0, true, 2);
	fill(g, g->insts / 2);
	return r;
}

/* The interpreter benchmark: a two-level counted loop (1000 inner
 * iterations) around hot_core. */
static void
gen_loop(struct gen *g)
{
	uint64_t inner = g->iterations < 1000 ? g->iterations : 1000;
	uint64_t outer = inner ? g->iterations / inner : 0;
	uint8_t ty[MAXBP + 1];	/* the sum, then join_types's */
	struct mark m1, m2, m3;
	struct edge e[2];
	uint32_t c, n, i, x, t, y;

	begin_function(g, 0);
	g->maxmult = UINT64_MAX;
	g->kw = kw_hot;
	setup_entry(g, g->allocas, 2);
	g->slot_lo = 3;
	fill(g, 4);
	ctr_reset(g, 0);
	term_jump(g, 1, NULL);
	begin_block(g, 1, NULL, 0);
	g->mult = outer + 1;
	c = emit_load(g, M_LOAD, T_I64, g->ctr[0], 0);
	c = emit_cmp(g, false, 2, c, 0, true, (int64_t)outer);
	term_brif(g, c, 2, NULL, 9, NULL);
	save(g, &m1);
	begin_block(g, 2, NULL, 0);
	g->mult = outer;
	ctr_reset(g, 1);
	fill(g, 2);
	term_jump(g, 3, NULL);
	begin_block(g, 3, NULL, 0);
	g->mult = outer * (inner + 1);
	i = emit_load(g, M_LOAD, T_I64, g->ctr[1], 0);
	c = emit_cmp(g, false, 2, i, 0, true, (int64_t)inner);
	term_brif(g, c, 4, NULL, 8, NULL);
	save(g, &m2);
	begin_block(g, 4, NULL, 0);
	g->mult = outer * inner;
	c = hot_core(g, i, &x, &t);
	/* The running sum first, then join_types's up to MAXBP, of which
	 * an edge holds only MAXBP - 1 more: the last one drawn is dropped
	 * (it was written past ty and past the edge's arguments). */
	n = join_types(g, ty + 1) + 1;
	if (n > MAXBP)
		n = MAXBP;
	ty[0] = T_I64;
	term_brif(g, c, 5, NULL, 6, NULL);
	save(g, &m3);
	begin_block(g, 5, NULL, 0);
	y = emit_bin(g, OP_IADD, t, x);
	fill(g, 2);
	mkedge(g, &e[0], ty, n);
	e[0].arg[0] = y;
	term_jump(g, 7, &e[0]);
	restore(g, &m3);
	begin_block(g, 6, NULL, 0);
	y = emit_binimm(g, OP_ISHL, x, 1);
	y = emit_bin(g, OP_ISUB, y, t);
	fill(g, 2);
	mkedge(g, &e[1], ty, n);
	e[1].arg[0] = y;
	term_jump(g, 7, &e[1]);
	restore(g, &m3);
	begin_block(g, 7, e, 2);
	y = (uint32_t)g->nval - n;	/* the first parameter */
	x = emit_load(g, M_LOAD, T_I64, g->slot[1].ptr, 0);
	x = emit_bin(g, OP_IADD, x, y);
	emit_store(g, M_STORE, x, g->slot[1].ptr, 0);
	x = emit_load(g, M_LOAD, T_I64, g->slot[2].ptr, 0);
	x = emit_bin(g, OP_BXOR, x, y);
	emit_store(g, M_STORE, x, g->slot[2].ptr, 0);
	fill(g, g->insts - g->insts / 2);
	ctr_step(g, 1);
	term_jump(g, 3, NULL);
	restore(g, &m2);
	begin_block(g, 8, NULL, 0);
	g->mult = outer;
	ctr_step(g, 0);
	term_jump(g, 1, NULL);
	restore(g, &m1);
	begin_block(g, 9, NULL, 0);
	g->mult = 1;
	finish(g);
	end_function(g);
}

/* %main calls every function with fixed inputs and folds the results
 * (and what they stored through pointer arguments) into a checksum, which
 * it returns truncated to i32. */
static void
gen_main(struct gen *g, unsigned nsets)
{
	static const int64_t in64[] = {
		0, 1, -1, 7, 1000003, (int64_t)0x0123456789abcdefLL
	};
	static const int64_t in32[] = { 0, 1, -1, 42, 100000, INT32_MIN };
	uint32_t c64[6], c32[6], args[MAXP], acc, slot = 0, r, f, i;
	unsigned s;
	bool ptr = false;

	for (f = 0; f < g->nfunc; f++)
		for (i = 0; i < g->fn[f].np; i++)
			ptr |= g->fn[f].param[i] == T_PTR;
	begin_function(g, g->nfunc);
	if (ptr)
		slot = emit_alloca(g, 8, 8, -1);
	for (i = 0; i < 6; i++)
		c64[i] = emit_iconst(g, T_I64, in64[i]);
	for (i = 0; i < 6; i++)
		c32[i] = emit_iconst(g, T_I32, in32[i]);
	if (ptr)
		emit_store(g, M_STORE, c64[5], slot, 0);
	acc = emit_iconst(g, T_I64, 17);
	for (f = 0; f < g->nfunc; f++) {
		for (s = 0; s < nsets; s++) {
			const struct sig *sg = &g->fn[f];

			for (i = 0; i < sg->np; i++) {
				unsigned k = (s * 3 + i + f) % 6;

				args[i] = sg->param[i] == T_PTR ? slot
					  : sg->param[i] == T_I32 ? c32[k]
								  : c64[k];
			}
			r = emit_call(g, f, args, sg->np);
			g->cost = satadd(g->cost, sg->cost);
			if (r != UINT32_MAX) {
				if (sg->result != T_I64)
					r = emit_conv(g, CV_SEXT, T_I64, r);
				acc = emit_binimm(g, OP_IMUL, acc, 31);
				acc = emit_bin(g, OP_BXOR, acc, r);
			}
			if (ptr && sg->np && sg->param[0] == T_PTR) {
				r = emit_load(g, M_LOAD, T_I64, slot, 0);
				acc = emit_bin(g, OP_IADD, acc, r);
			}
		}
	}
	/* Fold the high bits down: lli reports only the low 8 bits of the
	 * result, as its exit status, and they should depend on all 64. */
	for (i = 32; i >= 8; i /= 2) {
		r = emit_binimm(g, OP_USHR, acc, i);
		acc = emit_bin(g, OP_BXOR, acc, r);
	}
	term_return(g, emit_conv(g, CV_REDUCE, T_I32, acc));
	end_function(g);
}

/* Signatures are chosen up front; a pointer parameter comes first, and
 * only functions with one may return nothing. */
static void
make_sigs(struct gen *g)
{
	uint32_t f, i;
	struct sig *s;
	bool single = g->shape != S_RANDOM && g->shape != S_SMALL;

	g->fn = xrealloc(NULL, (g->nfunc + 1) * sizeof *g->fn);
	for (f = 0; f <= g->nfunc; f++) {
		s = &g->fn[f];
		memset(s, 0, sizeof *s);
		if (f == g->nfunc) {
			s->result = T_I32;
			continue;
		}
		if (single) {
			s->np = 2;
			s->param[0] = s->param[1] = T_I64;
			s->result = T_I64;
			continue;
		}
		s->np = (uint8_t)rnd(g, 4);
		for (i = 0; i < s->np; i++)
			s->param[i] = chance(g, 60) ? T_I64 : T_I32;
		if (g->escape && chance(g, 30))
			s->param[s->np++] = T_PTR;
		if (s->np && s->param[s->np - 1] == T_PTR) {
			/* keep the pointer first, as main expects */
			memmove(s->param + 1, s->param, s->np - 1u);
			s->param[0] = T_PTR;
		}
		s->result = chance(g, 55) ? T_I64 : T_I32;
		if (s->np && s->param[0] == T_PTR && chance(g, 30))
			s->result = T_NONE;
	}
}

static void
generate(struct gen *g)
{
	uint32_t f;
	unsigned nsets = g->shape == S_LOOP || g->shape == S_SMALL ||
				 g->shape == S_MERGED
			 ? 1
			 : NSETS;

	make_sigs(g);
	g->fbudget = g->budget / ((uint64_t)g->nfunc * nsets * 2);
	if (g->fbudget < 64)
		g->fbudget = 64;
	if (g->shape == S_NEST)
		gen_nest(g);
	else if (g->shape == S_LOOP)
		gen_loop(g);
	else if (g->shape == S_MERGED)
		gen_merged(g);
	else
		for (f = 0; f < g->nfunc; f++)
			gen_function(g, f);
	gen_main(g, nsets);
	if (g->ll && g->mixed)
		emit_intrinsic_decls(g);
	flush(g);
}

/* ---- command line ------------------------------------------------------- */

static const char usage[] =
"usage: keel-gen [OPTION]...\n"
"Writes a random, valid, terminating program as keel IR (default) or as\n"
"LLVM IR computing the same checksum. %main returns it as an i32.\n"
"\n"
"  -o, --output FILE   write to FILE instead of stdout\n"
"  --format kl|ll      keel text (default) or LLVM IR text for llvm-19\n"
"  --seed N            random seed (default 1); the same seed and options\n"
"                      always give byte-identical output\n"
"  --shape NAME        preset (default random):\n"
"      random   --functions functions of --blocks blocks (both jittered)\n"
"      small    many small functions (size 100k: 2,000 of ~50 insts)\n"
"      huge     one function, ~10 insts a block (size 1M: 100,000 blocks)\n"
"      chain    one function, a chain of blocks passing block parameters\n"
"      nest     one loop nest ~12 insts a level (size 1M: depth ~83,000);\n"
"               --loop-depth sets the depth directly\n"
"      loop     a hot two-level loop for interpreter speed, ~38 insts\n"
"               an iteration; size counts executed instructions\n"
"               (default: 10M iterations)\n"
"      promote  one function with many promotable allocas (size 1M:\n"
"               10,000 allocas, 50,000 blocks); no pointer escapes\n"
"      merged   small's code in one function: a region per small\n"
"               function, each with its own allocas (all in the entry\n"
"               block) and blocks; --functions counts the regions; no\n"
"               calls\n"
"  --size N            scale the preset to about N instructions\n"
"  --functions N       functions besides %main (nest, loop: always 1;\n"
"                      merged: its regions)\n"
"  --blocks N          blocks per function (merged: region), about\n"
"  --insts N           instructions per block, about\n"
"  --allocas N         data allocas per function or region (plus loop\n"
"                      counters)\n"
"  --loop-depth N      maximum loop nesting; nest: the depth; other\n"
"                      shapes nest constructs at most 24 deep\n"
"  --call-density P    percent of blocks with a call (0-100; none in\n"
"                      one-function shapes)\n"
"  --irreducible       add two-entry cycles (irreducible control flow)\n"
"  --mixed-widths      access allocas as i8..i64 and f32/f64 at various\n"
"                      offsets, with extending loads, truncating stores\n"
"                      and derived pointers, and also use the unary\n"
"                      integer operations and rotations; default: whole\n"
"                      i64/i32 slots\n"
"  --no-escape         never pass an alloca's address to a call\n"
"  --aliases P         read P% of operands through alias lines\n"
"                      (vW -> vV; keel output only)\n"
"  --pointer-locals P  reach P% of allocas through pointers kept in other\n"
"                      allocas too (int *p = &x; chains of up to 3,\n"
"                      each stored once in the entry block); accesses\n"
"                      go through them half the time (default 0)\n"
"  --budget N          bound on executed instructions (estimate, default\n"
"                      2M): limits trip counts and calls; not for loop\n"
"  --iterations N      hot-loop iterations of the loop shape\n"
"  --stats             print sizes and the execution estimate on stderr\n"
"  -h, --help          show this help\n"
"\n"
"An option's value is the next argument or follows '=' (--seed=3).\n"
"Numbers are decimal or hexadecimal after 0x, and accept the suffixes\n"
"k (1e3), M (1e6) and G (1e9). Bad options exit with status 2.\n";

static void
bad(const char *msg, const char *arg)
{
	/* (worded as keel's commands word a usage error) */
	fprintf(stderr, "keel-gen: %s%s%s\n(see 'keel-gen --help')\n", msg,
		arg ? ": " : "", arg ? arg : "");
	exit(2);
}

static int64_t
parse_num(const char *s, const char *opt)
{
	char *end;
	unsigned long long v;
	uint64_t mul = 1;

	errno = 0;
	if (*s < '0' || *s > '9')
		bad("expected a number for", opt);
	/* decimal, or hexadecimal after 0x, as keel reads counts */
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		if (!isxdigit((unsigned char)s[2]))
			bad("bad number for", opt);
		v = strtoull(s + 2, &end, 16);
	} else {
		v = strtoull(s, &end, 10);
	}
	if (*end == 'k')
		mul = 1000, end++;
	else if (*end == 'M')
		mul = 1000000, end++;
	else if (*end == 'G')
		mul = 1000000000, end++;
	if (errno || *end || v > (uint64_t)INT64_MAX / mul)
		bad("bad number for", opt);
	return (int64_t)(v * mul);
}

/* The value of option name: after '=' or the next argument. */
static const char *
optval(int argc, char **argv, int *i, const char *v, const char *name)
{
	if (v)
		return v;
	if (*i + 1 >= argc)
		bad("missing value for", name);
	return argv[++*i];
}

static void
parse_args(int argc, char **argv, struct opts *o, bool *stats)
{
	static const char *const numopt[] = {
		"--seed", "--size", "--functions", "--blocks", "--insts",
		"--allocas", "--loop-depth", "--call-density", "--budget",
		"--iterations", "--aliases", "--pointer-locals"
	};
	int64_t *const numdst[] = {
		NULL, &o->size, &o->functions, &o->blocks, &o->insts,
		&o->allocas, &o->depth, &o->calls, &o->budget, &o->iterations,
		&o->aliases, &o->ptrlocals
	};
	const unsigned nnum = sizeof numopt / sizeof *numopt;
	unsigned k;
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = NULL, *eq = strchr(a, '=');
		const char *s;
		char name[32];
		size_t n = strlen(a);

		if (eq && a[0] == '-' && a[1] == '-') {
			n = (size_t)(eq - a);
			v = eq + 1;
		}
		if (n >= sizeof name)
			bad("unknown option", a);
		memcpy(name, a, n);
		name[n] = 0;
		if (a[0] != '-')
			bad("options only, no other arguments; not", a);
		if ((!strcmp(name, "-h") || !strcmp(name, "--help")) && !v) {
			/* (Help that cannot be written is an error too.) */
			if (fputs(usage, stdout) < 0 || fflush(stdout)) {
				perror("keel-gen: write");
				exit(1);
			}
			exit(0);
		} else if (!strcmp(name, "-o") || !strcmp(name, "--output")) {
			o->out = optval(argc, argv, &i, v, name);
			if (!*o->out)
				bad("an empty file name for", name);
		} else if (!strcmp(name, "--format")) {
			s = optval(argc, argv, &i, v, name);
			if (strcmp(s, "kl") && strcmp(s, "ll"))
				bad("--format must be kl or ll, not", s);
			o->ll = !strcmp(s, "ll");
		} else if (!strcmp(name, "--shape")) {
			s = optval(argc, argv, &i, v, name);
			for (k = 0; k < NSHAPES; k++)
				if (!strcmp(s, shape_name[k]))
					break;
			if (k == NSHAPES)
				bad("unknown shape", s);
			o->shape = (int)k;
		} else if (!strcmp(name, "--irreducible") && !v) {
			o->irreducible = true;
		} else if (!strcmp(name, "--mixed-widths") && !v) {
			o->mixed = true;
		} else if (!strcmp(name, "--no-escape") && !v) {
			o->no_escape = true;
		} else if (!strcmp(name, "--stats") && !v) {
			*stats = true;
		} else {
			for (k = 0; k < nnum; k++)
				if (!strcmp(name, numopt[k]))
					break;
			if (k == nnum)
				bad("unknown option", a);
			s = optval(argc, argv, &i, v, name);
			if (k == 0)
				o->seed = (uint64_t)parse_num(s, name);
			else
				*numdst[k] = parse_num(s, name);
		}
	}
}

static uint32_t
u32(int64_t v, int64_t lo, int64_t hi, const char *what)
{
	char msg[96];

	if (v < lo || v > hi) {
		snprintf(msg, sizeof msg, "%s must be in %" PRId64 "..%" PRId64,
			 what, lo, hi);
		bad(msg, NULL);
	}
	return (uint32_t)v;
}

/* Turns the options and the shape's preset into generator settings. */
static void
resolve(struct gen *g, const struct opts *o)
{
	int64_t S = o->size, fn = 8, bl = 12, in = 8, al = 6, de = 3, ca = 25;
	int64_t it = 10000000;

	g->shape = o->shape;
	g->ll = o->ll;
	g->mixed = o->mixed;
	g->irreducible = o->irreducible;
	g->escape = !o->no_escape;
	g->kw = kw_default;
	g->cw = cw_default;
	g->rng = o->seed;
	switch (o->shape) {
	case S_RANDOM:
		if (S > 0)
			fn = S / (bl * (in + 4) + 2 * al);
		break;
	case S_SMALL:
		S = S > 0 ? S : 100000;
		fn = S / 48, bl = 4, in = 6, al = 3, de = 2, ca = 30;
		break;
	case S_HUGE:
	case S_CHAIN:
		S = S > 0 ? S : 1000000;
		fn = 1, bl = S / 10, in = 9, al = 64, de = 4, ca = 0;
		if (o->shape == S_CHAIN)
			g->cw = cw_chain, al = 16, de = 0;
		break;
	case S_MERGED:
		S = S > 0 ? S : 100000;
		fn = S / 40, bl = 4, in = 6, al = 3, de = 2, ca = 0;
		break;
	case S_NEST:
		S = S > 0 ? S : 1000000;
		fn = 1, in = 1, al = 8, de = S / 12, ca = 0;
		break;
	case S_LOOP:
		fn = 1, in = 12, al = 6, ca = 0;
		break;
	case S_PROMOTE:
		S = S > 0 ? S : 1000000;
		fn = 1, bl = S / 20, in = 18, al = S / 100, de = 4, ca = 0;
		g->kw = kw_promote;
		g->cw = cw_promote;
		g->escape = false;
		break;
	}
	/* A count the preset derived from --size is --size's fault. */
	g->nfunc = u32(o->functions >= 0 ? o->functions : fn < 1 ? 1 : fn, 1,
		       10000000, o->functions >= 0 ? "--functions"
				 : "--functions (as --size sets it)");
	if (o->shape == S_NEST || o->shape == S_LOOP)
		g->nfunc = 1;
	/* merged: --functions counts the small functions it merges */
	g->regions = g->nfunc;
	if (o->shape == S_MERGED)
		g->nfunc = 1;
	g->blocks = u32(o->blocks >= 0 ? o->blocks : bl < 1 ? 1 : bl, 1,
			10000000, o->blocks >= 0 ? "--blocks"
				  : "--blocks (as --size sets it)");
	g->insts = u32(o->insts >= 0 ? o->insts : in, 0, 1000000, "--insts");
	g->allocas = u32(o->allocas >= 0 ? o->allocas : al, 0, 10000000,
			 o->allocas >= 0 ? "--allocas"
					 : "--allocas (as --size sets it)");
	/* merged: every region's allocas are in the entry block, up to
	 * 1.5x --allocas each (jitter) */
	if (o->shape == S_MERGED &&
	    (uint64_t)g->regions * (g->allocas + g->allocas / 2) > 10000000)
		bad("merged: --functions times --allocas must be at most "
		    "about 6.6M (10M allocas in one function)", NULL);
	g->depth = u32(o->depth >= 0 ? o->depth : de, 0, 10000000,
		       o->depth >= 0 ? "--loop-depth"
				     : "--loop-depth (as --size sets it)");
	g->calls = u32(o->calls >= 0 ? o->calls : ca, 0, 100,
		       "--call-density");
	g->budget = (uint64_t)(o->budget >= 0 ? o->budget : 2000000);
	g->aliases = u32(o->aliases >= 0 ? o->aliases : 0, 0, 100, "--aliases");
	g->ptrlocals = u32(o->ptrlocals >= 0 ? o->ptrlocals : 0, 0, 100,
			   "--pointer-locals");
	if (g->ll && g->aliases)
		bad("--aliases is for keel output only (LLVM has no aliases)",
		    NULL);
	if (o->shape == S_LOOP && g->allocas < 3)
		bad("the loop shape needs --allocas 3 or more", NULL);
	/* an iteration runs about 26 + --insts instructions */
	if (o->shape == S_LOOP && S > 0)
		it = S / (26 + g->insts);
	g->iterations = (uint64_t)(o->iterations >= 0 ? o->iterations : it);
	g->chunk = g->blocks / 3 < 2 ? 2 : g->blocks / 3 > 64 ? 64
							: g->blocks / 3;
}

int
main(int argc, char **argv)
{
	struct opts o = { 1, false, false, false, false, NULL, S_RANDOM,
			  -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1 };
	struct gen g;
	bool stats = false;
	unsigned i;

	parse_args(argc, argv, &o, &stats);
	memset(&g, 0, sizeof g);
	resolve(&g, &o);
	g.f = stdout;
	if (o.out && !(g.f = fopen(o.out, "wb"))) {
		fprintf(stderr, "keel-gen: %s: %s\n", o.out, strerror(errno));
		return 1;
	}
	g.buf = xrealloc(NULL, BUFSZ);
	generate(&g);
	if (fflush(g.f) || ferror(g.f) || (o.out && fclose(g.f))) {
		perror("keel-gen: write");
		return 1;
	}
	if (stats) {
		char what[64];
		if (g.shape == S_MERGED)
			snprintf(what, sizeof what, "1 function of %" PRIu32
				 " regions", g.regions);
		else
			snprintf(what, sizeof what, "%" PRIu32 " function%s",
				 g.nfunc, g.nfunc == 1 ? "" : "s");
		fprintf(stderr,
			"keel-gen: %s: %s + main, %" PRIu64
			" blocks, %" PRIu64 " instructions, ~%" PRIu64
			" executed (bound)\n", shape_name[g.shape], what,
			g.total_blocks, g.total_insts, g.fn[g.nfunc].cost);
	}
	free(g.buf);
	free(g.fn);
	free(g.val);
	free(g.slot);
	free(g.ctr);
	for (i = 0; i < NTYPES; i++)
		free(g.avail[i].v);
	/* --stats lost (2>/dev/full) is a failure too, said where it can */
	if (stats && (fflush(stderr) || ferror(stderr)))
		return 1;
	return 0;
}
