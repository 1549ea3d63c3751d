/*
 * gen.h -- what the two halves of keel-gen share: gen.c decides what the
 * program is (every random choice), gen_emit.c prints it, instruction by
 * instruction, as keel or LLVM text (no random choices at all, so the
 * formats cannot drift apart).
 *
 * Invariant kept by both: value numbers are handed out in order of
 * definition (block parameters included) and blocks in layout order, so
 * the keel text is already in the canonical numbering.
 */
#ifndef KEEL_GEN_H
#define KEEL_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define MAXP 5          /* parameters of a generated function */
#define MAXBP 3         /* parameters of a non-entry block */
#define BUFSZ (1u << 20) /* output buffer */

#define GEN_ASSERT(c)                                                        \
	((c) ? (void)0 : gen_bug(__FILE__, __LINE__, __func__, #c))

/* T_PTR is an alloca's address: i64 in keel, ptr in LLVM. */
enum type { T_I8, T_I16, T_I32, T_I64, T_F32, T_F64, T_PTR, T_NONE };
#define NTYPES 6 /* types that have a stack of usable values: I8..F64 */

static const unsigned tbytes[] = { 1, 2, 4, 8, 4, 8, 8 };

/* Binary operators. All have a keel _imm form except isub and the
 * divisions, which the generator never uses with an immediate. */
enum binop {
	OP_IADD, OP_ISUB, OP_IMUL, OP_BAND, OP_BOR, OP_BXOR,
	OP_ISHL, OP_USHR, OP_SSHR, OP_UDIV, OP_UREM, OP_SDIV, OP_SREM,
	OP_ROTL, OP_ROTR /* --mixed-widths only; LLVM: two shifts and an or */
};

/* Unary integer operators, --mixed-widths only. In LLVM: sub from 0, xor
 * with -1, the ctlz/cttz/ctpop intrinsics, and icmp ne 0 with sext. */
enum unop { U_INEG, U_BNOT, U_CLZ, U_CTZ, U_POPCNT, U_BMASK, NUNOP };

enum conv { CV_UEXT, CV_SEXT, CV_REDUCE };

enum memop {
	M_LOAD, M_ULOAD8, M_SLOAD8, M_ULOAD16, M_SLOAD16, M_ULOAD32, M_SLOAD32,
	M_STORE, M_ISTORE8, M_ISTORE16, M_ISTORE32
};

struct val {
	uint32_t block; /* defining block: decides keel's `.T` suffix */
	uint8_t type;
	uint8_t cmp;    /* icmp/fcmp result: LLVM has its i1 twin %cN */
	uint8_t align;  /* pointers: alignment LLVM may assume */
};

/* A memory area the function may access: an alloca or a pointer
 * parameter (which always points at 8 bytes aligned to 8). */
struct slot {
	uint32_t ptr;
	uint32_t size;
	uint8_t type;   /* without --mixed-widths: T_I64 or T_I32 */
	/* --pointer-locals: pp[0] is a pointer alloca holding ptr + poff,
	 * pp[k] one holding pp[k - 1]'s address; plevels of them (0: none).
	 * Each is stored once, in the entry block. */
	uint8_t plevels;
	uint8_t palign; /* alignment of ptr + poff */
	uint32_t poff;
	uint32_t pp[3];
};

struct sig {
	uint8_t np;
	uint8_t param[MAXP];
	uint8_t result; /* T_NONE: no result */
	uint64_t cost;  /* upper bound of instructions one call executes */
};

struct stack {
	uint32_t *v;
	size_t n, cap;
};

/* A control-flow edge with the arguments it passes (needed by LLVM phis,
 * which list their predecessors). */
struct edge {
	uint32_t from;
	uint32_t n;
	uint32_t arg[MAXBP];
};

struct gen {
	/* settings resolved from options and shape */
	int shape;
	bool ll, mixed, irreducible, escape;
	uint32_t nfunc, blocks, insts, allocas, depth, calls, chunk;
	uint32_t regions; /* merged: the small functions it holds */
	uint32_t aliases; /* percent of operands read through an alias */
	uint32_t ptrlocals; /* percent of slots reached through pointer
			       allocas too (--pointer-locals) */
	uint64_t budget, iterations;
	const unsigned *kw, *cw; /* weights of instruction kinds, constructs */

	FILE *f;
	char *buf;
	size_t len;
	uint64_t rng;
	struct sig *fn;  /* nfunc + 1 entries, the last one is %main */
	uint64_t total_blocks, total_insts;

	/* the function being written */
	uint32_t curfn;
	struct val *val;
	size_t nval, capval;
	struct stack avail[NTYPES];
	struct slot *slot;
	size_t nslot, capslot;
	size_t slot_lo;  /* slots below are reserved: random code skips them */
	uint32_t *ctr;   /* loop counter allocas, one per loop depth */
	size_t nctr, capctr;
	uint32_t ntemp;  /* LLVM temporaries %tN */
	uint32_t cur;    /* block being written */
	uint32_t nblk;   /* blocks begun */
	uint32_t ninst;  /* keel instructions written in this function */
	uint64_t mult;   /* how often the current block runs per call */
	uint64_t maxmult, cost, fbudget, callspent;
	uint8_t rt;      /* result type */
};

/* splitmix64 (Steele, Lea, Flood 2014): tiny, fast, and the same on every
 * platform, unlike rand(). */
static inline uint64_t
rnd64(struct gen *g)
{
	uint64_t z = (g->rng += 0x9e3779b97f4a7c15u);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

/* Uniform in [0, n) for n > 0, by multiply and shift (Lemire 2019,
 * without the rejection step: the bias is below 2^-32 and harmless). */
static inline uint32_t
rnd(struct gen *g, uint32_t n)
{
	return (uint32_t)(((rnd64(g) >> 32) * n) >> 32);
}

static inline bool
chance(struct gen *g, unsigned pct)
{
	return rnd(g, 100) < pct;
}

static inline uint64_t
satmul(uint64_t a, uint64_t b)
{
	return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

static inline uint64_t
satadd(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static inline bool
is_int(int t)
{
	return t <= T_I64;
}

/* gen_emit.c: memory */
void gen_bug(const char *file, int line, const char *fn, const char *what);
void *xrealloc(void *p, size_t n);
void *grow(void *p, size_t *cap, size_t n, size_t elsz);
int64_t sext(uint64_t x, unsigned bytes);

/* gen_emit.c: one function per keel instruction; each returns the value it
 * defines (UINT32_MAX for a call without result) */
void flush(struct gen *g);
uint32_t emit_iconst(struct gen *g, int t, int64_t imm);
uint32_t emit_bin(struct gen *g, int op, uint32_t a, uint32_t b);
uint32_t emit_binimm(struct gen *g, int op, uint32_t a, int64_t imm);
uint32_t emit_unary(struct gen *g, int op, uint32_t a);
void emit_intrinsic_decls(struct gen *g);
uint32_t emit_cmp(struct gen *g, bool fl, unsigned cc, uint32_t a,
		  uint32_t b, bool imm, int64_t k);
uint32_t emit_select(struct gen *g, uint32_t c, uint32_t a, uint32_t b);
uint32_t emit_conv(struct gen *g, int op, int t, uint32_t a);
uint32_t emit_alloca(struct gen *g, uint32_t size, unsigned align, int elem);
uint32_t emit_load(struct gen *g, int op, int t, uint32_t p, int64_t off);
void emit_store(struct gen *g, int op, uint32_t x, uint32_t p, int64_t off);
uint32_t emit_call(struct gen *g, uint32_t fi, const uint32_t *arg,
		   unsigned n);
void term_jump(struct gen *g, uint32_t b, const struct edge *e);
void term_brif(struct gen *g, uint32_t c, uint32_t bt, const struct edge *et,
	       uint32_t be, const struct edge *ee);
void term_return(struct gen *g, uint32_t v);
void begin_block(struct gen *g, uint32_t id, const struct edge *e,
		 unsigned ne);
void begin_function(struct gen *g, uint32_t fi);
void end_function(struct gen *g);

#endif /* KEEL_GEN_H */
