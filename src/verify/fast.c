/*
 * fast.c -- the verifier's fast path: decide, without making a single
 * message, that a function has no error at all. kl_verify_func tries it
 * first; when it cannot say yes, the careful phases (structure.c, ssa.c,
 * typing.c, memory.c) run from scratch, find what is wrong and report it
 * exactly as they always have. Functions that verify -- nearly all, in a
 * pass pipeline or a benchmark -- never reach them.
 *
 * The contract: the fast path says yes only where the careful phases
 * would report nothing. It may say no where they would report nothing
 * too, which costs time but never an error: an address chain deeper than
 * ADDR_DEPTH, an address offset that overflows, a type class the module's
 * table does not know, an instruction of a shape no opcode has today.
 * Every check of docs/verifier.md is made here again, as a test without
 * a message; the comments name the careful function each part mirrors.
 * tests/unit/test_verify.c checks the contract on thousands of corrupted
 * functions and random control flow, and that every valid function of
 * its tests takes the fast path.
 *
 * Why it is fast:
 *   - one pass over the instructions, in layout order, does everything
 *     for each: links and sequence numbers, opcode, fields, result,
 *     operands (defined, available), type rule, memory rule. Each
 *     opcode has its own case (check_inst), in which its format, rule
 *     and counts are constants, so it compiles to straight-line code.
 *   - a use of a value the pass has defined already -- nearly every
 *     use, as layouts mostly follow the control flow -- reads one
 *     record (vdef) that the definition wrote: its block's span in the
 *     dominator tree and its class. Nothing else: not the value table,
 *     not the definition's layout node. An instruction's results are
 *     defined after its operands are used, so a use by its own
 *     instruction finds no record. Without one, a use reads the value
 *     table and its definition's layout node, which hold the same
 *     facts; what is read before the pass has seen its owner (a
 *     definition in a later block) is confirmed afterwards: every
 *     listed instruction's node names its block (the pass), every
 *     unlisted one names none (check_unlisted), and every value that
 *     claims a listed definition was defined by it (check_values). So
 *     such a use of v defined by d is sound when nodes[d] names a block
 *     that dominates the use.
 *   - the dominator tree is the compact one of fastdom.c, and all the
 *     arrays are carved from one arena that lives in the scratch, on
 *     huge pages when large: fresh memory costs more than the checks on
 *     the project's machines (docs/verifier.md, "Performance").
 *   - a bitmap of the blocks in the layout; after the walk, the value
 *     table is checked only at the values without a vdef, which no
 *     listed entity defines.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "verify.h"

/* The per-operand helpers (HOT) must be inlined into the one loop that
 * runs per instruction; compilers hesitate, as they have several callers. */
#define HOT static KL_ALWAYS_INLINE

/* Longest iadd_imm chain an address is followed through (then: no). */
#define ADDR_DEPTH 64

enum { ALIASES_UNKNOWN, ALIASES_OK, ALIASES_BROKEN };
#define ROOT_NEW 0xffffffffu  /* alias_root: an alias not walked yet */
#define ROOT_BUSY 0xfffffffeu /* ... on the walk under way */

/* ---- the arena ---- */

/*
 * Room for `bytes` in the scratch's arena. A large arena starts on a
 * huge-page boundary and is advised as huge (kl_advise_huge needs two
 * huge pages at least), so a function of a million instructions costs a
 * handful of page faults instead of thousands.
 */
static char *
arena_get(kl_verify_scratch *s, size_t bytes)
{
	if (bytes <= s->arena_cap)
		return s->arena;
	free(s->arena_mem);
	size_t cap = bytes > 2 * s->arena_cap ? bytes : 2 * s->arena_cap;
	if (cap < KL_HUGE_PAGE / 2) {
		s->arena_mem = kl_malloc(cap);
		s->arena = s->arena_mem;
	} else {
		cap = (cap + KL_HUGE_PAGE - 1) & ~(KL_HUGE_PAGE - 1);
		if (cap < 2 * KL_HUGE_PAGE)
			cap = 2 * KL_HUGE_PAGE;
		s->arena_mem = kl_malloc(cap + KL_HUGE_PAGE);
		uintptr_t p = ((uintptr_t)s->arena_mem + KL_HUGE_PAGE - 1) &
			      ~(uintptr_t)(KL_HUGE_PAGE - 1);
		s->arena = (char *)p;
		kl_advise_huge(s->arena, cap);
	}
	s->arena_cap = cap;
	return s->arena;
}

/*
 * The fast path's arrays, in the order they are laid out. The per-value
 * arrays that most functions never touch come last, so their pages are
 * never faulted in. Fresh memory is what a big function costs most, so
 * the dominator tree's arrays are few and reused (fastdom.c): about 40
 * bytes a block. The three that start cleared come first (arena_setup).
 */
enum {
	A_IN_LAYOUT, A_VDEFS, A_DOM, A_SSPAN, A_VERTEX, A_ANC,
	A_PSTART, A_SUCC, A_ADDR_KNOWN, A_ALIAS_ROOT, A_ADDR_BASE, A_ADDR_OFF,
	A_COUNT
};

/*
 * Carve the arrays for f out of the arena, before the layout walk. The
 * edges are not counted yet, but the destination lists of the layout's
 * blocks' branches (one each) are in the instruction (jump, brif) or
 * in the pool, each taking a pool word at least (br_table's list of
 * lists): so there are at most 2 * nblocks + pool.len of them. The room
 * beyond the real count is never touched. The arrays that must start
 * cleared (in_layout, vdefs, dom) are the first three, so one memset
 * clears them all.
 */
static void
arena_setup(fast *fs)
{
	size_t nb = fs->nblocks, nv = fs->nvalues, u = sizeof(uint32_t);
	size_t vw = (nv / 64 + 1) * sizeof(uint64_t);
	size_t bound = 2 * nb + fs->f->pool.len;
	size_t ne = bound > nb + 1 ? bound : nb + 1;
	size_t bytes[A_COUNT] = {
		[A_IN_LAYOUT] = (nb / 64 + 1) * sizeof(uint64_t),
		[A_VDEFS] = nv * sizeof(vdef),
		[A_DOM] = (nb + 1) * sizeof(dom_span), /* + the [0, 0] at nb */
		[A_SSPAN] = (nb + 1) * sizeof(succ_span), /* later semi/label */
		[A_VERTEX] = (nb + 1) * u,
		[A_ANC] = (nb + 1) * u,
		[A_PSTART] = (nb + 2) * u,
		[A_SUCC] = (ne + bound) * u, /* succ (later idom), preds */
		[A_ADDR_KNOWN] = vw,
		[A_ALIAS_ROOT] = nv * u,
		[A_ADDR_BASE] = nv * u,
		[A_ADDR_OFF] = nv * sizeof(int64_t),
	};
	/* (The sum in 64 bits: on a 32-bit machine, a function numbered
	 * sparsely enough to fit its own tables can still need more than
	 * 4 GB here, and a wrapped sum gave a small arena.) */
	size_t off[A_COUNT];
	uint64_t at = 0;
	/* Unrolled, the sizes fold into the offsets; as a loop, this cost
	 * ~1% of the time of a module of small functions. (gcc and clang
	 * both know the pragma.) */
#pragma GCC unroll 16
	for (int k = 0; k < A_COUNT; k++) {
		off[k] = (size_t)at;
		at += ((uint64_t)bytes[k] + 63) & ~(uint64_t)63;
	}
	char *base = arena_get(fs->s, kl_table_bytes(at, 1));
	fs->nedges = bound > UINT32_MAX / 4 ? UINT32_MAX / 4 : (uint32_t)bound;
	fs->in_layout = (uint64_t *)(base + off[A_IN_LAYOUT]);
	fs->vdefs = (vdef *)(base + off[A_VDEFS]);
	fs->dom = (dom_span *)(base + off[A_DOM]);
	fs->sspan = (succ_span *)(base + off[A_SSPAN]);
	fs->vertex = (uint32_t *)(base + off[A_VERTEX]);
	fs->anc = (uint32_t *)(base + off[A_ANC]);
	fs->pstart = (uint32_t *)(base + off[A_PSTART]);
	fs->succ = (uint32_t *)(base + off[A_SUCC]);
	fs->addr_known = (uint64_t *)(base + off[A_ADDR_KNOWN]);
	fs->alias_root = (uint32_t *)(base + off[A_ALIAS_ROOT]);
	fs->addr_base = (uint32_t *)(base + off[A_ADDR_BASE]);
	fs->addr_off = (int64_t *)(base + off[A_ADDR_OFF]);
	memset(base, 0, off[A_DOM] + bytes[A_DOM]); /* A_IN_LAYOUT .. A_DOM */
}

/* ---- values ---- */

static inline bool
is_int(int c)
{
	return c >= 0 && c <= KL_TYPE_I64;
}

static inline bool
is_float(int c)
{
	return c == KL_TYPE_F32 || c == KL_TYPE_F64;
}

/* Class of type handle t, -1 if it has none a value could have. */
static int
tclass_slow(const fast *fs, uint32_t t)
{
	const kl_module *m = fs->m;
	if (t == KL_TYPE_NONE || t >= m->ntypes ||
	    m->types[t].cls >= KL_TYPE_MACHINE_COUNT)
		return -1;
	return m->types[t].cls;
}

HOT int
tclass_of(const fast *fs, uint32_t t)
{
	return KL_LIKELY(t < KL_TYPE_MACHINE_COUNT) ? (int)t
						    : tclass_slow(fs, t);
}

/* The same for a value's type field (28 bits, its own "none"). */
HOT int
vtype_class(const fast *fs, uint32_t t)
{
	if (KL_LIKELY(t < KL_TYPE_MACHINE_COUNT))
		return (int)t;
	return tclass_slow(fs, t == KL_VALUE_TYPE_NONE ? KL_TYPE_NONE : t);
}

/* Class of value v (in range): its own type, which an alias shares with
 * its root (resolve_aliases checks). */
HOT int
vclass(const fast *fs, uint32_t v)
{
	return vtype_class(fs, fs->values[v].type);
}

/*
 * Every alias's root, as ssa.c's check_aliases finds them: the chain
 * ends, without a cycle, in a value that is no alias, and every alias on
 * it has the root's type. (That the root is defined, check_values checks
 * once every definition is known.) Two walks per chain, the first
 * marking it busy, so each value is walked a bounded number of times.
 */
static bool
resolve_aliases(fast *fs)
{
	const kl_value_data *val = fs->values;
	uint32_t nv = fs->nvalues, *root = fs->alias_root;
	fs->alias_state = ALIASES_BROKEN; /* unless we get through */
	if (nv >= ROOT_BUSY)
		return false;
	for (uint32_t v = 0; v < nv; v++)
		if (val[v].kind == VK_ALIAS)
			root[v] = ROOT_NEW;
	for (uint32_t v = 0; v < nv; v++) {
		if (val[v].kind != VK_ALIAS || root[v] != ROOT_NEW)
			continue;
		uint32_t w = v;
		while (w < nv && val[w].kind == VK_ALIAS &&
		       root[w] == ROOT_NEW) {
			root[w] = ROOT_BUSY;
			w = val[w].def;
		}
		if (w >= nv ||
		    (val[w].kind == VK_ALIAS && root[w] == ROOT_BUSY))
			return false; /* out of range, or a cycle */
		uint32_t r = val[w].kind == VK_ALIAS ? root[w] : w;
		for (uint32_t a = v; a != w; a = val[a].def) {
			if (vtype_class(fs, val[a].type) !=
			    vtype_class(fs, val[r].type))
				return false;
			root[a] = r;
		}
	}
	fs->alias_state = ALIASES_OK;
	return true;
}

/* v through its aliases; false if the chains are broken. */
static inline bool
root_of(fast *fs, uint32_t v, uint32_t *r)
{
	*r = v;
	if (v >= fs->nvalues || fs->values[v].kind != VK_ALIAS)
		return true;
	if (fs->alias_state == ALIASES_UNKNOWN)
		resolve_aliases(fs);
	if (fs->alias_state != ALIASES_OK)
		return false;
	*r = fs->alias_root[v];
	return true;
}

/*
 * A use of v by the instruction being checked (ssa.c: check_operands): v
 * is in range, its root is a result or a parameter whose definition is in
 * a block of the layout, and, when the use's block is reachable, that
 * block dominates it (in the same block: the definition comes first).
 * Returns v's class, or -1.
 *
 * A value the walk has defined has a vdef, which answers alone. Others
 * (defined later in the layout, aliases, errors) go to the value table.
 * There, whether a definition is in the same block or another one is a
 * coin toss from one operand to the next, and a mispredicted branch
 * costs more than computing both answers; so both are, without
 * branches.
 */
HOT int
use(fast *fs, uint32_t v)
{
	if (KL_UNLIKELY(v >= fs->nvalues))
		return -1;
	const vdef *known = &fs->vdefs[v];
	if (KL_LIKELY(known->cls)) {
		/* Defined on the walk (fast.c's opening comment): by an
		 * instruction before this one or by a block's parameters,
		 * in a block of the layout. In this block its span is this
		 * block's, so the one comparison covers both cases. In a
		 * block that never runs (lo 0), defined will do. */
		uint32_t lo = known->lo, hi = known->hi;
		uint32_t ok = (fs->lo - lo <= hi - lo) | (fs->lo == 0);
		return KL_LIKELY(ok) ? (int)(known->cls & VDEF_CLASS) : -1;
	}
	const kl_value_data *vd = &fs->values[v];
	unsigned kind = vd->kind;
	uint32_t t = vd->type, def = vd->def, db, r = v, later = 0;
	if (KL_UNLIKELY(kind == VK_ALIAS)) {
		if (!root_of(fs, v, &r))
			return -1;
		kind = fs->values[r].kind;
		def = fs->values[r].def;
	}
	if (KL_LIKELY(kind == VK_RESULT)) {
		if (KL_UNLIKELY(def >= fs->ninsts))
			return -1;
		const kl_inst_node *n = &fs->nodes[def];
		db = n->block;
		later = n->seq >= fs->seq; /* compared in one block */
	} else if (kind == VK_PARAM) {
		db = def; /* a parameter comes before everything */
	} else {
		return -1;
	}
	/* dom[nblocks] is [0, 0]: it stands for blocks out of range */
	const dom_span *ds = &fs->dom[db < fs->nblocks ? db : fs->nblocks];
	uint32_t ok;
	if (KL_LIKELY(fs->lo)) {
		/* lo[db] <= lo <= hi[db], as one unsigned comparison */
		uint32_t dominated = fs->lo - ds->lo <= ds->hi - ds->lo;
		uint32_t same = db == fs->blk;
		/* same ? !later : dominated, in bit operations (a compiler
		 * would make a branch of the ?:) */
		ok = dominated ^ (same & (dominated ^ (later ^ 1)));
	} else { /* a block that never runs: defined will do */
		ok = db < fs->nblocks && bit_get(fs->in_layout, db);
	}
	return KL_LIKELY(ok) ? vtype_class(fs, t) : -1;
}

/*
 * Record v, just defined in the current block with class c, for its
 * later uses (use); returns c. A class of -1 ends the fast path, so
 * what it records does not matter.
 */
HOT int
defined(fast *fs, uint32_t v, int c)
{
	fs->vdefs[v] = (vdef){ fs->lo, fs->hi, VDEF_SET | (uint32_t)c };
	fs->ndefs++;
	return c;
}

/*
 * v is defined by `def` (an instruction or, as a parameter, a block),
 * which lists it (structure.c: check_results, check_params, define): the
 * value table agrees, no other definition was met, the type is valid.
 * Returns its class, or -1.
 */
HOT int
define(fast *fs, uint32_t v, unsigned kind, uint32_t def)
{
	if (KL_UNLIKELY(v >= fs->nvalues))
		return -1;
	const kl_value_data *vd = &fs->values[v];
	if (KL_UNLIKELY(vd->kind != kind || vd->def != def))
		return -1;
	if (KL_UNLIKELY(fs->vdefs[v].cls))
		return -1;
	return defined(fs, v, vtype_class(fs, vd->type));
}

/*
 * The same for the single result of instruction i, in w0. Only i may
 * define v (the value table says so), and i is met once, so v cannot be
 * defined already: no need to look.
 */
HOT int
define_result(fast *fs, uint32_t v, uint32_t i)
{
	if (KL_UNLIKELY(v >= fs->nvalues))
		return -1;
	const kl_value_data *vd = &fs->values[v];
	if (KL_UNLIKELY(vd->kind != VK_RESULT || vd->def != i))
		return -1;
	return defined(fs, v, vtype_class(fs, vd->type));
}

/* ---- one instruction ---- */

/* Bytes of a class: classes are the built-in type handles i8 .. f64. */
static const uint8_t class_bytes[KL_TYPE_MACHINE_COUNT] = { 1, 2, 4, 8, 4, 8 };

/* Codes and immediates in the instruction, and the operand count where
 * the format leaves it open (structure.c: check_fields, check_inst). */
HOT bool
fields_ok(const fast *fs, const kl_inst_data *d, kl_format fmt, uint32_t na)
{
	switch (fmt) {
	case KL_FMT_ICMP_IMM:
	case KL_FMT_BINARY_IMM:
		if ((d->bits & IMM_POOLED) && d->w[2] >= fs->f->nconsts)
			return false;
		return d->op != KL_OP_ICMP_IMM || d->aux < KL_ICC_COUNT;
	case KL_FMT_ICMP:
		return d->aux < KL_ICC_COUNT;
	case KL_FMT_FCMP:
		return d->aux < KL_FCC_COUNT;
	case KL_FMT_TRAP:
		return d->aux < KL_TRAP_COUNT;
	case KL_FMT_ALLOCA:
	case KL_FMT_ALLOCA_DYN:
		return d->aux < 32;
	case KL_FMT_SYMBOL:
		return d->w[1] < fs->m->nsyms;
	case KL_FMT_TERNARY:
		return na == 3;
	case KL_FMT_CALL_INDIRECT:
		return na > 0;
	default:
		return true;
	}
}

/* The module signature a call calls (structure.c: callee_sig), or none. */
static uint32_t
callee(const fast *fs, const kl_inst_data *d)
{
	const kl_module *m = fs->m;
	const kl_func *f = fs->f;
	uint32_t s = d->w[1];
	if (d->op == KL_OP_CALL)
		return s < m->nsyms && m->syms[s].kind == KL_SYM_FUNC &&
				       m->syms[s].sig < m->nsigs
			       ? m->syms[s].sig
			       : KL_NONE;
	return s < f->nsigrefs && f->sigrefs[s] < m->nsigs ? f->sigrefs[s]
							    : KL_NONE;
}

/* The immediate fits class c, and no division is by zero (typing.c:
 * check_imm; the immediate as func.c's inst_imm reads it). Inlined in
 * each opcode's case, where the format and whether it divides are
 * constants. */
HOT bool
imm_ok(const fast *fs, const kl_inst_data *d, kl_format fmt, int c)
{
	int64_t imm = 0;
	if (fmt == KL_FMT_CONST)
		imm = (int64_t)((uint64_t)d->w[1] | (uint64_t)d->w[2] << 32);
	else if (fmt == KL_FMT_BINARY_IMM || fmt == KL_FMT_ICMP_IMM)
		imm = d->bits & IMM_POOLED ? fs->f->consts[d->w[2]]
					   : (int32_t)d->w[2];
	else if (fmt == KL_FMT_ALLOCA)
		imm = d->w[1];
	uint32_t bits = class_bytes[c] * 8u;
	return kl_int_fits(imm, bits) && !imm_divides_by_zero(d->op, imm, bits);
}

/*
 * The type rule ty (typing.c: check_types, where docs/verifier.md writes
 * each out), on the classes of the first three arguments (c) and of the
 * first result (r); -1 where there is no such operand. The rules of
 * calls, branches and returns are checked by their own walks below.
 */
HOT bool
types_ok(const fast *fs, const kl_inst_data *d, kl_format fmt, kl_typing ty,
	 unsigned memw, const int *c, int r)
{
	switch (ty) {
	case KL_TY_NONE:
		return true;
	case KL_TY_ICONST:
		return is_int(r) && imm_ok(fs, d, fmt, r);
	case KL_TY_F32CONST:
		return r == KL_TYPE_F32;
	case KL_TY_F64CONST:
		return r == KL_TYPE_F64;
	case KL_TY_INT_SAME:
		return is_int(c[0]) && c[1] == c[0] && r == c[0];
	case KL_TY_INT_CMP:
		return is_int(c[0]) && c[1] == c[0] && r == KL_TYPE_I8;
	case KL_TY_INT_UNARY:
		return is_int(c[0]) && r == c[0];
	case KL_TY_INT_SHIFT:
		return is_int(c[0]) && is_int(c[1]) && r == c[0];
	case KL_TY_INT_IMM:
		return is_int(c[0]) && r == c[0] && imm_ok(fs, d, fmt, c[0]);
	case KL_TY_INT_CMP_IMM:
		return is_int(c[0]) && r == KL_TYPE_I8 &&
		       imm_ok(fs, d, fmt, c[0]);
	case KL_TY_FLOAT_SAME:
		return is_float(c[0]) && c[1] == c[0] && r == c[0];
	case KL_TY_FLOAT_CMP:
		return is_float(c[0]) && c[1] == c[0] && r == KL_TYPE_I8;
	case KL_TY_FLOAT_UNARY:
		return is_float(c[0]) && r == c[0];
	case KL_TY_SELECT:
		return is_int(c[0]) && c[1] >= 0 && c[2] == c[1] && r == c[1];
	case KL_TY_BMASK:
		return is_int(c[0]) && is_int(r);
	case KL_TY_EXTEND:
		return is_int(c[0]) && is_int(r) &&
		       class_bytes[r] > class_bytes[c[0]];
	case KL_TY_REDUCE:
		return is_int(c[0]) && is_int(r) &&
		       class_bytes[r] < class_bytes[c[0]];
	case KL_TY_BITCAST:
		return c[0] >= 0 && r >= 0 && c[0] != r &&
		       class_bytes[c[0]] == class_bytes[r];
	case KL_TY_FPROMOTE:
		return c[0] == KL_TYPE_F32 && r == KL_TYPE_F64;
	case KL_TY_FDEMOTE:
		return c[0] == KL_TYPE_F64 && r == KL_TYPE_F32;
	case KL_TY_FCVT_TO_INT:
		return is_float(c[0]) && is_int(r);
	case KL_TY_FCVT_FROM_INT:
		return is_int(c[0]) && is_float(r);
	case KL_TY_COPY:
		return c[0] >= 0 && r == c[0];
	case KL_TY_POINTER:
		return r >= 0 && r == fs->ptr &&
		       !(d->op == KL_OP_ALLOCA && d->w[1] == 0);
	case KL_TY_ALLOCA_DYN:
		return is_int(c[0]) && r >= 0 && r == fs->ptr;
	case KL_TY_LOAD:
		return c[0] >= 0 && c[0] == fs->ptr;
	case KL_TY_LOAD_EXT:
		return c[0] >= 0 && c[0] == fs->ptr && is_int(r) &&
		       class_bytes[r] > memw;
	case KL_TY_STORE:
		return c[1] >= 0 && c[1] == fs->ptr;
	case KL_TY_STORE_TRUNC:
		return c[1] >= 0 && c[1] == fs->ptr && is_int(c[0]) &&
		       class_bytes[c[0]] > memw;
	case KL_TY_CALL:
	case KL_TY_BRANCH:
	case KL_TY_RETURN:
		return false;
	}
	return false;
}

/* ---- memory ---- */

/*
 * The base (an alloca or symbol_addr instruction) and constant offset of
 * address v, as memory.c's addr_of finds them: 1 known, 0 unknown, -1 no
 * answer (a chain deeper than ADDR_DEPTH -- also what a cycle looks like
 * -- or an offset that overflows). Chains are memoised per value, so
 * every value is walked once. In a function that verifies, every value
 * on a chain is defined and placed (each is an operand of a placed
 * instruction), which is what addr_of requires before it takes a step.
 */
static int
addr_of(fast *fs, uint32_t v, uint32_t *base, int64_t *off)
{
	uint32_t chain[ADDR_DEPTH], n = 0, r, b = KL_NONE;
	int64_t o = 0;
	if (!root_of(fs, v, &r))
		return -1;
	if (!fs->addr_started) { /* most functions never get here */
		memset(fs->addr_known, 0,
		       (fs->nvalues / 64 + 1) * sizeof(uint64_t));
		fs->addr_started = true;
	}
	while (r < fs->nvalues) {
		if (bit_get(fs->addr_known, r)) {
			b = fs->addr_base[r];
			o = fs->addr_off[r];
			break;
		}
		const kl_value_data *vd = &fs->values[r];
		if (vd->kind != VK_RESULT || vd->def >= fs->ninsts)
			break;
		const kl_inst_data *d = &fs->insts[vd->def];
		if (d->op == KL_OP_ALLOCA || d->op == KL_OP_SYMBOL_ADDR) {
			b = vd->def;
			break;
		}
		if (d->op != KL_OP_IADD_IMM || ((d->bits & IMM_POOLED) &&
						d->w[2] >= fs->f->nconsts))
			break;
		if (n == ADDR_DEPTH)
			return -1;
		chain[n++] = r;
		if (!root_of(fs, d->w[1], &r))
			return -1;
	}
	/* Back up the chain, adding each iadd_imm's immediate. */
	while (n > 0) {
		uint32_t w = chain[--n];
		const kl_inst_data *d = &fs->insts[fs->values[w].def];
		int64_t imm = d->bits & IMM_POOLED ? fs->f->consts[d->w[2]]
						   : (int32_t)d->w[2];
		if (b != KL_NONE && add_overflows(o, imm))
			return -1;
		o = b == KL_NONE ? 0 : o + imm;
		bit_set(fs->addr_known, w);
		fs->addr_base[w] = b;
		fs->addr_off[w] = o;
	}
	*base = b;
	*off = o;
	return b != KL_NONE;
}

/* An access of memw bytes (0: the size of class vcls) at offset off of
 * an object of osize bytes lies inside it. */
HOT bool
inside(uint64_t osize, int64_t off, unsigned memw, int vcls)
{
	uint32_t size = memw;
	if (size == 0) {
		if (vcls < 0)
			return false;
		size = class_bytes[vcls];
	}
	return !(off < 0 || (uint64_t)off > osize ||
		 osize - (uint64_t)off < size);
}

/* The same for an alloca's bd memory. */
HOT bool
inside_alloca(const kl_inst_data *bd, int64_t off, unsigned memw, int vcls)
{
	return inside(bd->w[1], off, memw, vcls);
}

/*
 * memory.c: check_memory. A load or store at a constant offset from an
 * alloca or a data object stays inside it; nothing is stored into const
 * data. vcls: the
 * class of the value loaded or stored; memw: the access size, 0 for the
 * size of vcls.
 */
static bool
memory_slow(fast *fs, const kl_inst_data *d, unsigned memw, uint32_t addr,
	    bool is_store, int vcls)
{
	uint32_t base;
	int64_t off;
	int known = addr_of(fs, addr, &base, &off);
	if (known <= 0)
		return known == 0;
	if (add_overflows(off, (int32_t)d->w[2]))
		return true;
	off += (int32_t)d->w[2];
	const kl_inst_data *bd = &fs->insts[base];
	if (bd->op == KL_OP_SYMBOL_ADDR) {
		const kl_module *m = fs->m;
		uint32_t s = bd->w[1];
		if (s >= m->nsyms || m->syms[s].kind != KL_SYM_DATA)
			return true; /* a function's address is not followed */
		return !(is_store && m->syms[s].is_const) &&
		       inside(m->syms[s].size, off, memw, vcls);
	}
	return inside_alloca(bd, off, memw, vcls);
}

/* The same; an address that is an alloca's result itself (the usual
 * case), defined on the walk, is checked at once: its vdef says so, and
 * its definition is the alloca (define_result checked). addr was used by
 * the instruction, so it is in range. */
HOT bool
memory_ok(fast *fs, const kl_inst_data *d, unsigned memw, uint32_t addr,
	  bool is_store, int vcls)
{
	if (fs->vdefs[addr].cls & VDEF_ALLOCA)
		return inside_alloca(&fs->insts[fs->values[addr].def],
				     (int32_t)d->w[2], memw, vcls);
	return memory_slow(fs, d, memw, addr, is_store, vcls);
}

/* ---- the checks of one instruction ---- */

/*
 * A branch (formats JUMP, BRIF, BR_TABLE; rule BRANCH), in one walk over
 * its destinations: structure.c's check_dests, ssa.c's check_uses and
 * typing.c's check_branch. Each destination is a sound list naming a
 * block of the layout other than the entry, whose arguments are defined,
 * available here, and of its parameters' types.
 */
HOT bool
check_branch(fast *fs, const kl_inst_data *d, kl_format fmt)
{
	const kl_func *f = fs->f;
	const uint32_t *dests = &d->w[verify_layouts[fmt].dw];
	uint32_t nd = verify_layouts[fmt].nd;
	if (d->op != KL_OP_JUMP && (verify_layouts[fmt].na != 1 ||
				    !is_int(use(fs, d->w[0]))))
		return false;
	if ((verify_layouts[fmt].lists & L_DESTS_W1) &&
	    !vlist(f, d->w[1], &dests, &nd))
		return false;
	for (uint32_t k = 0; k < nd; k++) {
		const uint32_t *e, *ps;
		uint32_t n, np, b;
		if (!vdest(f, dests[k], &b, &e, &n))
			return false;
		if (b >= fs->nblocks || !(f->blocks[b].flags & BLOCK_EXISTS) ||
		    !bit_get(fs->in_layout, b) || b == fs->entry ||
		    !vlist(f, f->blocks[b].params, &ps, &np) || n != np)
			return false;
		for (uint32_t a = 0; a < np; a++) {
			int c = use(fs, e[a]);
			if (c < 0 || ps[a] >= fs->nvalues ||
			    c != vclass(fs, ps[a]))
				return false;
		}
	}
	return true;
}

/* A return (typing.c: check_return): its values match the signature. */
HOT bool
check_return(fast *fs, const kl_inst_data *d)
{
	const uint32_t *a;
	uint32_t n;
	if (!vlist(fs->f, d->w[0], &a, &n) || n != fs->sig.num_results)
		return false;
	for (uint32_t k = 0; k < n; k++) {
		int c = use(fs, a[k]);
		if (c < 0 || c != tclass_of(fs, fs->sig.results[k]))
			return false;
	}
	return true;
}

/*
 * A call (formats CALL, CALL_INDIRECT; rule CALL): structure.c's
 * callee_sig and check_results, typing.c's check_call. The callee and
 * its signature exist; results and arguments match it (a variadic
 * callee: at least the fixed parameters); an indirect callee is a
 * pointer.
 */
static bool
check_call(fast *fs, uint32_t i, const kl_inst_data *d)
{
	const uint32_t *res, *args;
	uint32_t nr, na, first = d->op != KL_OP_CALL, sig = callee(fs, d);
	if (!vlist(fs->f, d->w[0], &res, &nr) ||
	    !vlist(fs->f, d->w[2], &args, &na) || sig == KL_NONE ||
	    na < first)
		return false;
	kl_signature s = module_sig(fs->m, sig);
	uint32_t n = na - first;
	if (nr != s.num_results ||
	    (s.variadic ? n < s.num_params : n != s.num_params))
		return false;
	int callee_class = first ? use(fs, args[0]) : 0;
	if (first && (callee_class < 0 || callee_class != fs->ptr))
		return false;
	/* The parameters' types; then a variadic callee's extra arguments,
	 * which need only be available. */
	uint32_t k = 0;
	for (; k < s.num_params; k++) {
		int c = use(fs, args[first + k]);
		if (c < 0 || c != tclass_of(fs, s.params[k]))
			return false;
	}
	for (; k < n; k++)
		if (use(fs, args[first + k]) < 0)
			return false;
	/* The results after the operands, as in check_op. */
	for (k = 0; k < nr; k++) {
		int c = define(fs, res[k], VK_RESULT, i);
		if (c < 0 || c != tclass_of(fs, s.results[k]))
			return false;
	}
	return true;
}

/*
 * Placed instruction i of format fmt, type rule ty, nres results and
 * access size memw -- all constants in each case of check_inst below, so
 * each opcode gets straight-line code: structure.c's check_inst, ssa.c's
 * check_uses, typing.c's check_types and memory.c's check_memory.
 * Branches, returns and calls have their own walks. An instruction of
 * any other shape (none has one today) gets no answer here: the careful
 * phases decide.
 */
HOT bool
check_op(fast *fs, uint32_t i, const kl_inst_data *d, kl_format fmt,
	 kl_typing ty, unsigned nres, unsigned memw)
{
	const verify_layout *l = &verify_layouts[fmt];
	const uint32_t *args = &d->w[l->aw];
	uint32_t na = l->na;
	int c[3] = { -1, -1, -1 }, r = -1;
	if (ty == KL_TY_BRANCH && nres == 0 && !(l->lists & ~L_DESTS_W1))
		return check_branch(fs, d, fmt);
	if (ty == KL_TY_RETURN && nres == 0 && l->lists == L_ARGS_W0)
		return check_return(fs, d);
	if (ty == KL_TY_CALL && nres == KL_NRES_SIG &&
	    l->lists == (L_RESULTS_W0 | L_ARGS_W2))
		return check_call(fs, i, d);
	/* Now: at most one result, in w0, and two operands in fixed words
	 * or three in a list (select). */
	if ((l->lists & ~L_ARGS_W1) || l->nd || nres > 1 || na > 2)
		return false;
	if ((l->lists & L_ARGS_W1) &&
	    (!vlist(fs->f, d->w[1], &args, &na) || na != 3))
		return false;
	/* Operands before the result, so that a use of the result by its own
	 * instruction finds it not yet defined (see use). */
	if (na > 0 && (c[0] = use(fs, args[0])) < 0)
		return false;
	if (na > 1 && (c[1] = use(fs, args[1])) < 0)
		return false;
	if (na > 2 && (c[2] = use(fs, args[2])) < 0)
		return false;
	if (nres == 1 && (r = define_result(fs, d->w[0], i)) < 0)
		return false;
	if (d->op == KL_OP_ALLOCA) /* for memory_ok */
		fs->vdefs[d->w[0]].cls |= VDEF_ALLOCA;
	if (!fields_ok(fs, d, fmt, na) || !types_ok(fs, d, fmt, ty, memw, c, r))
		return false;
	if (fmt == KL_FMT_LOAD)
		return memory_ok(fs, d, memw, args[0], false, r);
	if (fmt == KL_FMT_STORE)
		return memory_ok(fs, d, memw, args[1], true, c[0]);
	return true;
}

/*
 * One case per opcode, made from the opcode table, so that its format,
 * rule and counts are constants in check_op. Returns 0 for an error (an
 * invalid opcode is one), 1 for fine, 2 for fine and a terminator.
 */
HOT int
check_inst(fast *fs, uint32_t i, const kl_inst_data *d)
{
	switch ((kl_opcode)d->op) {
#define KL_OPCODE(name, text, fmt, nres, typing, ctrl, memw, flags)          \
	case KL_OP_##name:                                                   \
		return check_op(fs, i, d, KL_FMT_##fmt, KL_TY_##typing, nres, \
				memw)                                        \
			       ? 1 + !!((flags) & KL_OPF_TERMINATOR)         \
			       : 0;
#include "keel_opcodes.def"
#undef KL_OPCODE
	default:
		return 0;
	}
}

/* ---- blocks, leftovers, the whole function ---- */

/* Block b's parameters (structure.c: check_params; the entry block's
 * against the signature, typing.c: check_entry_params). */
static bool
check_params(fast *fs, uint32_t b)
{
	const uint32_t *ps;
	uint32_t n;
	bool entry = b == fs->entry;
	if (!vlist(fs->f, fs->f->blocks[b].params, &ps, &n) ||
	    (entry && n != fs->sig.num_params))
		return false;
	for (uint32_t k = 0; k < n; k++) {
		int c = define(fs, ps[k], VK_PARAM, b);
		if (c < 0 || (entry && c != tclass_of(fs, fs->sig.params[k])))
			return false;
	}
	return true;
}

/*
 * Block b of the layout: its parameters, then its instruction list
 * (structure.c: check_block): existing instructions whose nodes name b,
 * with sound back links and increasing sequence numbers (which is also
 * what ends a cycle), valid opcodes, one terminator, last; not empty.
 */
static bool
check_block(fast *fs, uint32_t b)
{
	const kl_block_data *bd = &fs->f->blocks[b];
	uint32_t prev = KL_NONE, count = 0, i = bd->first;
	int64_t prev_seq = -1; /* the first instruction may have any */
	fs->blk = b;
	fs->lo = fs->dom[b].lo;
	fs->hi = fs->dom[b].hi;
	if (!check_params(fs, b))
		return false;
	/* Up to the terminator, which must end the list: the end of the
	 * list (KL_NONE) before it fails the range test. */
	for (;;) {
		if (i >= fs->ninsts)
			return false;
		const kl_inst_node *n = &fs->nodes[i];
		const kl_inst_data *d = &fs->insts[i];
		if ((int64_t)n->seq <= prev_seq ||
		    ((n->prev ^ prev) | (n->block ^ b)) != 0)
			return false;
		fs->seq = n->seq;
		int kind = check_inst(fs, i, d); /* 0 also: invalid opcodes */
		if (kind == 0)
			return false;
		count++;
		if (kind == 2)
			break;
		prev = i;
		prev_seq = n->seq;
		i = n->next;
	}
	fs->nplaced_insts += count;
	return fs->nodes[i].next == KL_NONE && bd->last == i;
}

/*
 * Instructions in no list: valid opcodes, claiming no block (structure.c:
 * check_unlisted). Every listed instruction names its block (checked on
 * the walk), so the instructions that name one must be just those.
 */
static bool
check_unlisted(const fast *fs)
{
	uint32_t claiming = 0;
	for (uint32_t i = 0; i < fs->ninsts; i++) {
		if (fs->nodes[i].block != KL_NONE)
			claiming++;
		else if (fs->insts[i].op >= KL_OP_COUNT)
			return false;
	}
	return claiming == fs->nplaced_insts;
}

/* Is instruction i listed? (After check_unlisted: whether it names a
 * block.) */
static bool
listed(const fast *fs, uint32_t i)
{
	return i < fs->ninsts && fs->nodes[i].block != KL_NONE;
}

/*
 * Values no listed entity defined (structure.c: check_value_table; ssa.c:
 * check_aliases): none may claim a listed definition, every alias's root
 * must be defined, and kinds must be valid.
 */
static bool
check_values(fast *fs)
{
	if (fs->ndefs == fs->nvalues) /* each has a vdef: none to look at */
		return true;
	for (uint32_t v = 0, r; v < fs->nvalues; v++) {
		const kl_value_data *vd = &fs->values[v];
		if (fs->vdefs[v].cls || vd->kind == VK_UNUSED ||
		    vd->kind == VK_REMOVED)
			continue;
		if (vd->kind == VK_RESULT && listed(fs, vd->def))
			return false;
		if (vd->kind == VK_PARAM && vd->def < fs->nblocks &&
		    bit_get(fs->in_layout, vd->def))
			return false;
		if (vd->kind == VK_ALIAS &&
		    (!root_of(fs, v, &r) || !fs->vdefs[r].cls))
			return false;
		if (vd->kind > VK_REMOVED)
			return false;
	}
	return true;
}

/* The caller's cached analyses equal fresh ones (ssa.c: check_analyses). */
static bool
check_cached(const fast *fs, const kl_verify_ctx *ctx)
{
	kl_verify_scratch *s = fs->s;
	kl_block b;
	if (!ctx->cfg && !ctx->domtree)
		return true;
	if (!s->cfg) {
		s->cfg = kl_cfg_new();
		s->dt = kl_domtree_new();
	}
	kl_cfg_compute(s->cfg, fs->f);
	kl_domtree_compute(s->dt, fs->f, s->cfg);
	return (!ctx->cfg || kl_cfg_equal(ctx->cfg, s->cfg, &b)) &&
	       (!ctx->domtree || kl_domtree_equal(ctx->domtree, s->dt, &b));
}

/* The function's own references: signature and sigrefs. */
static bool
check_header(const kl_func *f)
{
	const kl_module *m = f->module;
	if (f->sig >= m->nsigs)
		return false;
	for (uint32_t s = 0; s < f->nsigrefs; s++)
		if (f->sigrefs[s] != KL_NONE && f->sigrefs[s] >= m->nsigs)
			return false;
	return true;
}

/* Time since *since goes to *into (when timing). */
static void
lap(const kl_verify_stats *st, double *since, double *into)
{
	if (!st)
		return;
	double t = verify_now();
	*into += t - *since;
	*since = t;
}

/* Every block and instruction of the layout, then the leftovers. */
static bool
check_all(fast *fs, const kl_verify_ctx *ctx)
{
	uint32_t b = fs->entry;
	for (uint32_t k = 0; k < fs->nplaced_blocks; k++) {
		if (!check_block(fs, b))
			return false;
		b = fs->f->blocks[b].next;
	}
	return (fs->nplaced_insts == fs->ninsts || check_unlisted(fs)) &&
	       check_values(fs) && check_cached(fs, ctx);
}

bool
verify_fast(const kl_func *f, const kl_verify_ctx *ctx, kl_verify_scratch *s,
	    kl_verify_stats *st)
{
	fast fs = { 0 };
	fs.f = f;
	fs.m = f->module;
	fs.s = s;
	fs.insts = f->insts;
	fs.nodes = f->nodes;
	fs.values = f->values;
	fs.ninsts = f->ninsts;
	fs.nvalues = f->nvalues;
	fs.nblocks = f->nblocks;
	fs.ptr = tclass_of(&fs, kl_module_pointer_type(fs.m));
	fs.sig = module_sig(fs.m, f->sig);
	kl_verify_stats t = { 0 };
	double since = st ? verify_now() : 0;
	func_prefetch(f); /* cold, on a module of small functions */
	bool ok = check_header(f);
	if (ok) {
		arena_setup(&fs);
		ok = fast_layout(&fs);
	}
	lap(st, &since, &t.structure_seconds);
	if (ok)
		fast_domtree(&fs);
	lap(st, &since, &t.analysis_seconds);
	ok = ok && check_all(&fs, ctx);
	lap(st, &since, &t.check_seconds);
	if (st) {
		st->structure_seconds += t.structure_seconds;
		st->analysis_seconds += t.analysis_seconds;
		st->check_seconds += t.check_seconds;
		if (ok) {
			st->funcs++;
			st->blocks += fs.nplaced_blocks;
			st->insts += fs.nplaced_insts;
		}
	}
	return ok;
}
