/*
 * fast.c -- the verifier's fast path: decide, without making a single
 * message, that a function has no error at all. kl_verify_func tries it
 * first; when it cannot say yes, the careful phases (structure.c, ssa.c,
 * typing.c, memory.c) run from scratch, find what is wrong and report it
 * exactly as before. Functions that verify -- nearly all, in a pass
 * pipeline or a benchmark -- never reach them.
 *
 * The contract: the fast path says yes only where the careful phases
 * would report nothing. It may say no where they report nothing too
 * (that costs time, never an error): an address chain deeper than
 * ADDR_DEPTH, an overflowing address offset, a type class the module's
 * table does not know. Every check of docs/verifier.md is made here
 * again, as a test without a message; the comments name the careful
 * function each part mirrors. tests/unit/test_verify.c checks the
 * contract on thousands of corrupted functions, and that every valid
 * function of its tests takes the fast path.
 *
 * Why it is fast:
 *   - one pass over the instructions, in layout order, does everything
 *     per instruction: links and sequence numbers, opcode, fields,
 *     results, operands (defined, dominated), type rule, memory rule.
 *     Operands are read once, straight from the IR tables.
 *   - no per-value records: a use reads the value table and its
 *     definition's layout node, which hold the same facts. Facts read
 *     before the pass has seen their owner (a definition in a later
 *     block) are confirmed afterwards: every listed instruction's node
 *     names its block (the pass), every unlisted one names none
 *     (fast_unlisted), and every value that claims a listed definition
 *     was defined by it (fast_values). So a use of v defined by d is
 *     sound when nodes[d] names a block that dominates the use.
 *   - the dominator tree is the compact one of fastdom.c, and all the
 *     arrays are carved from one arena that lives in the scratch and
 *     sits on huge pages when large: fresh 4 KiB pages cost more than
 *     the checks on the project's machines (docs/verifier.md).
 *   - bitmaps for what must be known of every instruction, value and
 *     block (placed, defined, in the layout); the value table is then
 *     checked 64 values at a time, looking only at values no listed
 *     entity defines.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "verify.h"

/* The per-operand helpers must be inlined into the one loop that runs
 * per instruction; compilers hesitate, as they have several callers. */
#if defined(__GNUC__)
#define HOT static inline __attribute__((always_inline))
#else
#define HOT static inline
#endif

/* Longest iadd_imm chain an address is followed through (then: no). */
#define ADDR_DEPTH 64

enum { ALIASES_UNKNOWN, ALIASES_OK, ALIASES_BROKEN };
#define ROOT_NEW 0xffffffffu  /* alias_root: an alias not walked yet */
#define ROOT_BUSY 0xfffffffeu /* ... on the walk under way */

/* ---- the arena ---- */

#define HUGE_PAGE ((size_t)2 << 20)

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
	if (cap < HUGE_PAGE / 2) {
		s->arena_mem = kl_malloc(cap);
		s->arena = s->arena_mem;
	} else {
		cap = (cap + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
		if (cap < 2 * HUGE_PAGE)
			cap = 2 * HUGE_PAGE;
		s->arena_mem = kl_malloc(cap + HUGE_PAGE);
		uintptr_t p = ((uintptr_t)s->arena_mem + HUGE_PAGE - 1) &
			      ~(uintptr_t)(HUGE_PAGE - 1);
		s->arena = (char *)p;
		kl_advise_huge(s->arena, cap);
	}
	s->arena_cap = cap;
	return s->arena;
}

/* The next array of `bytes` at *at of base (NULL: only count). */
static void *
take(char *base, size_t *at, size_t bytes)
{
	void *p = base ? base + *at : NULL;
	*at += (bytes + 63) & ~(size_t)63;
	return p;
}

/*
 * Lay the fast path's arrays out in base (or only measure them). The
 * per-value arrays that most functions never touch come last, so their
 * pages are never faulted in.
 */
static size_t
carve(fast *fs, char *base)
{
	size_t at = 0, nb = fs->nblocks, u = sizeof(uint32_t);
	size_t iw = (fs->ninsts / 64 + 1) * sizeof(uint64_t);
	size_t vw = (fs->nvalues / 64 + 1) * sizeof(uint64_t);
	fs->placed = take(base, &at, iw);
	fs->defined = take(base, &at, vw);
	fs->addr_known = take(base, &at, vw);
	fs->dom_mem = take(base, &at, nb * sizeof(domspan));
	fs->dfnum = take(base, &at, nb * u);
	fs->sspan = take(base, &at, nb * sizeof(succspan));
	fs->vertex = take(base, &at, (nb + 1) * u);
	fs->anc = take(base, &at, (nb + 1) * u);
	fs->label = take(base, &at, (nb + 1) * u);
	fs->semi = take(base, &at, (nb + 1) * u);
	fs->idom = take(base, &at, (nb + 1) * u);
	fs->poff = take(base, &at, (nb + 2) * u);
	fs->stack = take(base, &at, 2 * (nb + 1) * u);
	fs->succ = take(base, &at, (size_t)fs->nedges * u);
	fs->preds = take(base, &at, (size_t)fs->nedges * u);
	fs->alias_root = take(base, &at, fs->nvalues * u);
	fs->addr_base = take(base, &at, fs->nvalues * u);
	fs->addr_off = take(base, &at, fs->nvalues * sizeof(int64_t));
	return at;
}

static void
arena_setup(fast *fs)
{
	char *base = arena_get(fs->s, carve(fs, NULL));
	carve(fs, base);
	memset(fs->placed, 0, (fs->ninsts / 64 + 1) * sizeof(uint64_t));
	memset(fs->defined, 0, (fs->nvalues / 64 + 1) * sizeof(uint64_t));
	memset(fs->addr_known, 0, (fs->nvalues / 64 + 1) * sizeof(uint64_t));
	memset(fs->dom_mem, 0, fs->nblocks * sizeof(domspan));
	memset(fs->dfnum, 0, fs->nblocks * sizeof(uint32_t));
	fs->dom = fs->dom_mem;
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
HOT int
tclass_of(const fast *fs, uint32_t t)
{
	if (KL_LIKELY(t < KL_TYPE_BUILTIN_COUNT))
		return (int)t;
	const kl_module *m = fs->m;
	if (t == KL_TYPE_NONE || t >= m->ntypes ||
	    m->types[t].cls >= KL_TYPE_BUILTIN_COUNT)
		return -1;
	return m->types[t].cls;
}

/* Class of value v (in range): its own type, which an alias shares with
 * its root (resolve_aliases checks). */
HOT int
vclass(const fast *fs, uint32_t v)
{
	uint32_t t = fs->values[v].type;
	return tclass_of(fs, t == KL_VALUE_TYPE_NONE ? KL_TYPE_NONE : t);
}

/*
 * Every alias's root, as ssa.c's check_aliases finds them: the chain
 * ends, without a cycle, in a value that is no alias, and every alias on
 * it has the root's type. (That the root is defined, fast_values checks
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
		while (w < nv && val[w].kind == VK_ALIAS && root[w] == ROOT_NEW) {
			root[w] = ROOT_BUSY;
			w = val[w].def;
		}
		if (w >= nv || (val[w].kind == VK_ALIAS && root[w] == ROOT_BUSY))
			return false; /* out of range, or a cycle */
		uint32_t r = val[w].kind == VK_ALIAS ? root[w] : w;
		for (uint32_t a = v; a != w; a = val[a].def) {
			if (val[a].type != val[r].type)
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
 */
HOT int
use(fast *fs, uint32_t v)
{
	if (KL_UNLIKELY(v >= fs->nvalues))
		return -1;
	const kl_value_data *vd = &fs->values[v];
	uint32_t db, r;
	if (KL_UNLIKELY(vd->kind == VK_ALIAS)) {
		if (!root_of(fs, v, &r))
			return -1;
		vd = &fs->values[r];
	}
	if (vd->kind == VK_RESULT) {
		if (KL_UNLIKELY(vd->def >= fs->ninsts))
			return -1;
		const kl_inst_node *n = &fs->nodes[vd->def];
		db = n->block;
		if (db == fs->blk)
			return n->seq < fs->seq ? vclass(fs, v) : -1;
	} else if (vd->kind == VK_PARAM) {
		db = vd->def;
		if (db == fs->blk)
			return vclass(fs, v);
	} else {
		return -1;
	}
	if (KL_UNLIKELY(db >= fs->nblocks))
		return -1;
	if (fs->lo) {
		const domspan *ds = &fs->dom[db];
		if (fs->lo < ds->lo || fs->lo > ds->hi)
			return -1;
	} else if (!bit_get(fs->in_layout, db)) {
		return -1;
	}
	return vclass(fs, v);
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
	uint64_t *w = &fs->defined[v >> 6], bit = (uint64_t)1 << (v & 63);
	if (KL_UNLIKELY(*w & bit))
		return -1;
	*w |= bit;
	return vclass(fs, v);
}

/* ---- one instruction ---- */

/* Its operands, as verify.c's inst_view_get reads them. */
typedef struct ops {
	const uint32_t *args, *res, *dests;
	uint32_t na, nr, nd;
} ops;

static inline bool
decode(const fast *fs, const kl_inst_data *d, const kl_opinfo *info, ops *o)
{
	const verify_layout *l = &verify_layouts[info->format];
	o->args = &d->w[l->aw];
	o->na = l->na;
	o->dests = &d->w[l->dw];
	o->nd = l->nd;
	o->res = &d->w[0];
	o->nr = info->nres == 1;
	if (KL_LIKELY(l->lists == 0))
		return true;
	const kl_func *f = fs->f;
	bool ok = true;
	if (l->lists & L_RESULTS_W0)
		ok &= vlist(f, d->w[0], &o->res, &o->nr);
	if (l->lists & L_ARGS_W0)
		ok &= vlist(f, d->w[0], &o->args, &o->na);
	if (l->lists & L_ARGS_W1)
		ok &= vlist(f, d->w[1], &o->args, &o->na);
	if (l->lists & L_ARGS_W2)
		ok &= vlist(f, d->w[2], &o->args, &o->na);
	if (l->lists & L_DESTS_W1)
		ok &= vlist(f, d->w[1], &o->dests, &o->nd);
	return ok;
}

/* Codes and immediates in the instruction (structure.c: check_fields,
 * check_inst); o is NULL for formats without lists. */
HOT bool
fields_ok(const fast *fs, const kl_inst_data *d, const kl_opinfo *info,
	  const ops *o)
{
	switch ((kl_format)info->format) {
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
		return o && o->na == 3;
	case KL_FMT_CALL_INDIRECT:
		return o && o->na > 0;
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

/* Branch destinations (structure.c: check_dests): sound lists to blocks
 * of the layout other than the entry; their arguments are uses here. */
static bool
dests_ok(fast *fs, const ops *o)
{
	const kl_func *f = fs->f;
	for (uint32_t k = 0; k < o->nd; k++) {
		const uint32_t *e;
		uint32_t n;
		if (!vlist(f, o->dests[k], &e, &n) || n == 0)
			return false;
		uint32_t b = e[0];
		if (b >= fs->nblocks || !(f->blocks[b].flags & BLOCK_EXISTS) ||
		    !bit_get(fs->in_layout, b) || b == fs->entry)
			return false;
		for (uint32_t a = 1; a < n; a++)
			if (use(fs, e[a]) < 0)
				return false;
	}
	return true;
}

static bool
imm_fits(int64_t imm, uint32_t bits)
{
	if (bits >= 64 || bits == 0)
		return true;
	int64_t lo = -((int64_t)1 << (bits - 1));
	int64_t hi = ((int64_t)1 << bits) - 1;
	return imm >= lo && imm <= hi;
}

/* The immediate fits class c, and no division is by zero (typing.c:
 * check_imm; the immediate as inst_imm reads it). */
static bool
imm_ok(const fast *fs, const kl_inst_data *d, const kl_opinfo *info, int c)
{
	int64_t imm = 0;
	if (info->format == KL_FMT_CONST)
		imm = (int64_t)((uint64_t)d->w[1] | (uint64_t)d->w[2] << 32);
	else if (info->format == KL_FMT_BINARY_IMM ||
		 info->format == KL_FMT_ICMP_IMM)
		imm = d->bits & IMM_POOLED ? fs->f->consts[d->w[2]]
					   : (int32_t)d->w[2];
	else if (info->format == KL_FMT_ALLOCA)
		imm = d->w[1];
	uint32_t bits = class_bytes[c] * 8u;
	if (!imm_fits(imm, bits))
		return false;
	bool divides = d->op == KL_OP_SDIV_IMM || d->op == KL_OP_UDIV_IMM ||
		       d->op == KL_OP_SREM_IMM || d->op == KL_OP_UREM_IMM;
	uint64_t mask = bits >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << bits) - 1;
	return !divides || ((uint64_t)imm & mask) != 0;
}

/* Class of argument k (the first three are known already: c). */
static int
arg_class(const fast *fs, const ops *o, const int *c, uint32_t k)
{
	return k < 3 ? c[k] : vclass(fs, o->args[k]);
}

/* Arguments from `first` and results against the callee's signature
 * (typing.c: check_call, check_against_sig). */
static bool
call_ok(const fast *fs, const kl_inst_data *d, const ops *o, const int *c)
{
	uint32_t sig = callee(fs, d), first = d->op == KL_OP_CALL ? 0 : 1;
	if (sig == KL_NONE || o->na < first || (first && c[0] != fs->ptr))
		return false;
	kl_signature s = module_sig(fs->m, sig);
	uint32_t n = o->na - first;
	if (s.variadic ? n < s.num_params : n != s.num_params)
		return false;
	for (uint32_t k = 0; k < n && k < s.num_params; k++)
		if (arg_class(fs, o, c, first + k) !=
		    tclass_of(fs, s.params[k]))
			return false;
	for (uint32_t k = 0; k < o->nr && k < s.num_results; k++)
		if (vclass(fs, o->res[k]) != tclass_of(fs, s.results[k]))
			return false;
	return true;
}

/* Branch arguments against the targets' parameters (typing.c:
 * check_branch); dests_ok found the lists sound. */
static bool
branch_ok(const fast *fs, const kl_inst_data *d, const ops *o, const int *c)
{
	const kl_func *f = fs->f;
	if (d->op != KL_OP_JUMP && !is_int(c[0]))
		return false;
	for (uint32_t k = 0; k < o->nd; k++) {
		const uint32_t *e, *ps;
		uint32_t n, np;
		vlist(f, o->dests[k], &e, &n);
		if (!vlist(f, f->blocks[e[0]].params, &ps, &np) || n - 1 != np)
			return false;
		for (uint32_t a = 0; a < np; a++)
			if (ps[a] >= fs->nvalues ||
			    vclass(fs, e[a + 1]) != vclass(fs, ps[a]))
				return false;
	}
	return true;
}

/* typing.c: check_return. */
static bool
return_ok(const fast *fs, const ops *o, const int *c)
{
	kl_signature s = module_sig(fs->m, fs->f->sig);
	if (o->na != s.num_results)
		return false;
	for (uint32_t k = 0; k < o->na; k++)
		if (arg_class(fs, o, c, k) != tclass_of(fs, s.results[k]))
			return false;
	return true;
}

/* The rules with operand lists: calls, branches, returns. */
static bool
list_types_ok(const fast *fs, const kl_inst_data *d, const kl_opinfo *info,
	      const ops *o, const int *c)
{
	switch ((kl_typing)info->typing) {
	case KL_TY_CALL:
		return call_ok(fs, d, o, c);
	case KL_TY_BRANCH:
		return branch_ok(fs, d, o, c);
	case KL_TY_RETURN:
		return return_ok(fs, o, c);
	default:
		return false;
	}
}

/*
 * The opcode's type rule (typing.c: check_types, where docs/verifier.md
 * writes each out), on the classes of the first three arguments (c0, c1,
 * c2) and of the first result (r); -1 where there is no such operand.
 * The rules over operand lists need o (NULL for instructions without
 * lists: they fail here, and go through check_listed instead).
 */
HOT bool
types_ok(const fast *fs, const kl_inst_data *d, const kl_opinfo *info,
	 const ops *o, int c0, int c1, int c2, int r)
{
	const int c[3] = { c0, c1, c2 };
	switch ((kl_typing)info->typing) {
	case KL_TY_NONE:
		return true;
	case KL_TY_ICONST:
		return is_int(r) && imm_ok(fs, d, info, r);
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
		return is_int(c[0]) && imm_ok(fs, d, info, c[0]) && r == c[0];
	case KL_TY_INT_CMP_IMM:
		return is_int(c[0]) && imm_ok(fs, d, info, c[0]) &&
		       r == KL_TYPE_I8;
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
	case KL_TY_REDUCE:
		if (!is_int(c[0]) || !is_int(r))
			return false;
		return info->typing == KL_TY_EXTEND
			       ? class_bytes[r] > class_bytes[c[0]]
			       : class_bytes[r] < class_bytes[c[0]];
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
		       class_bytes[r] > info->memw;
	case KL_TY_STORE:
		return c[1] >= 0 && c[1] == fs->ptr;
	case KL_TY_STORE_TRUNC:
		return c[1] >= 0 && c[1] == fs->ptr && is_int(c[0]) &&
		       class_bytes[c[0]] > info->memw;
	case KL_TY_CALL:
	case KL_TY_BRANCH:
	case KL_TY_RETURN:
		return o && list_types_ok(fs, d, info, o, c);
	}
	return false;
}

/* ---- memory ---- */

static bool
add_overflows(int64_t a, int64_t b)
{
	return (b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b);
}

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

/*
 * memory.c: check_memory. A load or store at a constant offset from an
 * alloca stays inside it; nothing is stored into const data. vcls: the
 * class of the value loaded or stored.
 */
static bool
memory_ok(fast *fs, const kl_inst_data *d, const kl_opinfo *info,
	  uint32_t addr, bool is_store, int vcls)
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
		return !(is_store && bd->w[1] < m->nsyms &&
			 m->syms[bd->w[1]].kind == KL_SYM_DATA &&
			 m->syms[bd->w[1]].is_const);
	}
	uint32_t size = info->memw;
	if (size == 0) {
		if (vcls < 0)
			return false;
		size = class_bytes[vcls];
	}
	uint32_t asize = bd->w[1];
	return !(off < 0 || off > (int64_t)asize || asize - off < size);
}

/* ---- the pass ---- */

/*
 * Placed instruction i with operand lists or destinations (calls,
 * select, branches, returns): structure.c's check_inst, ssa.c's
 * check_uses, typing.c's check_types.
 */
static bool
check_listed(fast *fs, uint32_t i, const kl_inst_data *d,
	     const kl_opinfo *info)
{
	ops o;
	int c[3] = { -1, -1, -1 }, r = -1;
	if (!decode(fs, d, info, &o) || !fields_ok(fs, d, info, &o))
		return false;
	if (info->nres == KL_NRES_SIG) {
		uint32_t sig = callee(fs, d);
		if (sig == KL_NONE ||
		    module_sig(fs->m, sig).num_results != o.nr)
			return false;
	}
	for (uint32_t k = 0; k < o.nr; k++) {
		int x = define(fs, o.res[k], VK_RESULT, i);
		if (x < 0)
			return false;
		if (k == 0)
			r = x;
	}
	for (uint32_t k = 0; k < o.na; k++) {
		int x = use(fs, o.args[k]);
		if (x < 0)
			return false;
		if (k < 3)
			c[k] = x;
	}
	return (o.nd == 0 || dests_ok(fs, &o)) &&
	       types_ok(fs, d, info, &o, c[0], c[1], c[2], r);
}

/*
 * Placed instruction i (valid opcode, links checked): structure.c's
 * check_inst, ssa.c's check_uses, typing.c's check_types and memory.c's
 * check_memory, in one go. Most instructions have at most one result,
 * in w0, and their value operands in the instruction itself: they take
 * the straight path.
 */
HOT bool
check_one(fast *fs, uint32_t i, const kl_inst_data *d, const kl_opinfo *info)
{
	const verify_layout *l = &verify_layouts[info->format];
	if (l->lists | l->nd)
		return check_listed(fs, i, d, info);
	int c0 = -1, c1 = -1, r = -1;
	if (info->nres == 1 && (r = define(fs, d->w[0], VK_RESULT, i)) < 0)
		return false;
	if (l->na > 0 && (c0 = use(fs, d->w[l->aw])) < 0)
		return false;
	if (l->na > 1 && (c1 = use(fs, d->w[l->aw + 1])) < 0)
		return false;
	if (!fields_ok(fs, d, info, NULL) ||
	    !types_ok(fs, d, info, NULL, c0, c1, -1, r))
		return false;
	if (info->format == KL_FMT_LOAD)
		return memory_ok(fs, d, info, d->w[l->aw], false, r);
	if (info->format == KL_FMT_STORE)
		return memory_ok(fs, d, info, d->w[l->aw + 1], true, c0);
	return true;
}

/* Block b's parameters (structure.c: check_params; the entry block's
 * against the signature, typing.c: check_entry_params). */
static bool
check_params(fast *fs, uint32_t b)
{
	const uint32_t *ps;
	uint32_t n;
	kl_signature s = { 0 };
	bool entry = b == fs->entry;
	if (!vlist(fs->f, fs->f->blocks[b].params, &ps, &n))
		return false;
	if (entry) {
		s = module_sig(fs->m, fs->f->sig);
		if (n != s.num_params)
			return false;
	}
	for (uint32_t k = 0; k < n; k++) {
		int c = define(fs, ps[k], VK_PARAM, b);
		if (c < 0 || (entry && c != tclass_of(fs, s.params[k])))
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
	uint32_t prev = KL_NONE, prev_seq = 0;
	bool term = false;
	if (!check_params(fs, b))
		return false;
	fs->blk = b;
	fs->lo = fs->dom[b].lo;
	for (uint32_t i = bd->first; i != KL_NONE; i = fs->nodes[i].next) {
		if (i >= fs->ninsts || term)
			return false;
		const kl_inst_node *n = &fs->nodes[i];
		const kl_inst_data *d = &fs->insts[i];
		if ((prev != KL_NONE && n->seq <= prev_seq) || n->prev != prev ||
		    n->block != b || d->op >= KL_OP_COUNT)
			return false;
		bit_set(fs->placed, i);
		fs->nplaced_insts++;
		fs->seq = n->seq;
		const kl_opinfo *info = &kl_op_table[d->op];
		term = info->flags & KL_OPF_TERMINATOR;
		if (!check_one(fs, i, d, info))
			return false;
		prev = i;
		prev_seq = n->seq;
	}
	return term && bd->last == prev;
}

static inline uint32_t
lowest_bit(uint64_t x)
{
#if defined(__GNUC__)
	return (uint32_t)__builtin_ctzll(x);
#else
	uint32_t k = 0;
	for (; !(x & 1); x >>= 1)
		k++;
	return k;
#endif
}

/* Bits 0 .. n-1 of a bitmap that are clear, word by word: the caller
 * loops while (x = clear_bits(...)) handling lowest_bit(x). */
static inline uint64_t
clear_bits(const uint64_t *bits, uint32_t w, uint32_t n)
{
	uint64_t x = ~bits[w];
	if ((uint64_t)w * 64 + 64 > n)
		x &= ((uint64_t)1 << (n - w * 64)) - 1;
	return x;
}

/* Instructions in no list: valid opcodes, claiming no block
 * (structure.c: check_unlisted). */
static bool
check_unlisted(const fast *fs)
{
	for (uint32_t w = 0; w * 64 < fs->ninsts; w++) {
		for (uint64_t x = clear_bits(fs->placed, w, fs->ninsts); x;
		     x &= x - 1) {
			uint32_t i = w * 64 + lowest_bit(x);
			if (fs->insts[i].op >= KL_OP_COUNT ||
			    fs->nodes[i].block != KL_NONE)
				return false;
		}
	}
	return true;
}

/*
 * Values no listed entity defined (structure.c: check_value_table; ssa.c:
 * check_aliases): none may claim a listed definition, every alias's root
 * must be defined, and kinds must be valid.
 */
static bool
check_values(fast *fs)
{
	for (uint32_t w = 0; w * 64 < fs->nvalues; w++) {
		for (uint64_t x = clear_bits(fs->defined, w, fs->nvalues); x;
		     x &= x - 1) {
			uint32_t v = w * 64 + lowest_bit(x), r;
			const kl_value_data *vd = &fs->values[v];
			if (vd->kind == VK_UNUSED)
				continue;
			if (vd->kind == VK_RESULT && vd->def < fs->ninsts &&
			    bit_get(fs->placed, vd->def))
				return false;
			if (vd->kind == VK_PARAM && vd->def < fs->nblocks &&
			    bit_get(fs->in_layout, vd->def))
				return false;
			if (vd->kind == VK_ALIAS &&
			    (!root_of(fs, v, &r) || !bit_get(fs->defined, r)))
				return false;
			if (vd->kind > VK_ALIAS)
				return false;
		}
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

static double
now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Time since *since goes to *into (when timing). */
static void
lap(const kl_verify_stats *st, double *since, double *into)
{
	if (!st)
		return;
	double t = now();
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
	kl_verify_stats t = { 0 };
	double since = st ? now() : 0;
	fs.in_layout = scratch_get(s, S_IN_LAYOUT, (f->nblocks / 64 + 1) *
				   sizeof(uint64_t), 0);
	bool ok = check_header(f) && fast_layout(&fs);
	if (ok)
		arena_setup(&fs);
	lap(st, &since, &t.structure_seconds);
	ok = ok && fast_domtree(&fs);
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
	if (ok)
		s->fast_ok++;
	else
		s->fast_failed++;
	return ok;
}
