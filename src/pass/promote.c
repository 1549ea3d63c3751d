/*
 * promote.c -- promote stack slots to SSA values (mem2reg).
 *
 * Front ends put every local variable in an `alloca` and read and write it
 * with loads and stores. This pass turns such memory into SSA values and
 * block parameters, following the rules of docs/passes.md:
 *
 * 1. Find the allocas, every address derived from one by `iadd_imm`
 *    chains and every use of an address in one walk over the layout
 *    (exact when addresses are defined before their uses in the layout,
 *    as in the entry block; otherwise a breadth-first search over the
 *    iadd_imm chains of every alloca, then a walk for the uses). An
 *    alloca is promoted when it is in the entry block (ALLOCA always has
 *    a constant size), no address derived from it is used except as the
 *    address of a load or store (anything else: it escapes), and its
 *    accesses form slots (offset, width) that lie inside it and do not
 *    overlap.
 * 2. For each slot, candidate parameters on the iterated dominance
 *    frontier of the entry block and the reachable blocks that store to it
 *    (Cytron et al. 1991): minimal SSA.
 * 3. Rename along the dominator tree in preorder, with an undo log instead
 *    of per-slot stacks: stores set the slot's current value and
 *    disappear, loads become that value (an alias, or the minimal
 *    conversion: bitcast, uextend/sextend, with ireduce at truncating
 *    stores), branches record the current values for their targets'
 *    candidates. Before any store a slot holds 0; so does every load in an
 *    unreachable block, and unreachable branches pass 0.
 * 4. Prune: keep the candidates whose value reaches a load, directly or
 *    through other kept candidates. These are exactly the blocks where the
 *    slot is live on entry, so the result is pruned SSA, found in time
 *    linear in the minimal SSA rather than by a liveness walk per slot
 *    (which is what makes LLVM's mem2reg grow faster than linearly).
 *    Survivors get numbers, parameters and branch arguments.
 * 5. Remove the allocas and the address arithmetic that only fed them, and
 *    resolve the aliases the loads left behind in every operand.
 *
 * Functions not in strict SSA form, or that call setjmp and friends, are
 * left alone. New values take numbers above the highest, in a fixed order
 * (conversions in renaming order, then parameters slot by slot), so the
 * output is the same on every run. Cost: linear in the function plus the
 * frontier sets the slots touch. Most functions are small, so per-function
 * costs matter as much: scratch arrays are kept from one function to the
 * next (per-block marks carry stamps that keep growing across functions,
 * so nothing is cleared), the dominator tree is computed only when a slot
 * needs it, and the removal of the promoted allocas shares the last walk
 * with the resolution of aliases.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../analysis/analysis.h"

enum kept_reason {
	PROMOTED,
	KEPT_NOT_ENTRY,
	KEPT_DYNAMIC,
	KEPT_ESCAPES,
	KEPT_OUT_OF_BOUNDS,
	KEPT_OVERLAP,
	KEPT_SETJMP,
	KEPT_NOT_SSA,
	KEPT_TOO_COSTLY,
};

static const char *const reason_text[] = {
	[PROMOTED] = "promoted",
	[KEPT_NOT_ENTRY] = "not in the entry block",
	[KEPT_DYNAMIC] = "dynamic size",
	[KEPT_ESCAPES] = "its address escapes",
	[KEPT_OUT_OF_BOUNDS] = "an access lies outside it",
	[KEPT_OVERLAP] = "accesses overlap",
	[KEPT_SETJMP] = "the function calls setjmp",
	[KEPT_NOT_SSA] = "the function is not in strict SSA form",
	[KEPT_TOO_COSTLY] = "too many block parameters would be needed",
};

typedef struct alloca_info {
	uint32_t inst;
	uint32_t size;
	uint8_t reason;
	uint8_t own_reason; /* PROMOTED, or why it is kept whatever the rest */
	uint32_t why_inst;  /* the escaping use or offending access */
} alloca_info;

typedef struct access {
	uint32_t inst;
	uint32_t alloca;
	int64_t offset;
	uint32_t width;
	uint32_t block;
	uint32_t slot;
	bool is_store;
	bool is_float; /* the value stored or loaded is a float */
} access;

typedef struct slot {
	int64_t offset;
	uint32_t width;
	kl_type type;
	uint32_t alloca;
} slot;

typedef struct phi {
	uint32_t block, slot;
	uint32_t value; /* once it survives pruning */
	uint32_t used;  /* its value reaches a real use */
} phi;

/* An operand waiting for a parameter's number: an alias target (of a
 * load's result) or the w1 operand of a conversion. */
enum { FIX_ALIAS, FIX_OPERAND };
typedef struct fixup {
	uint8_t kind;
	uint32_t id;  /* value (alias) or instruction (operand) */
	uint32_t phi;
} fixup;

/* A branch edge into a block with candidate parameters, and where its
 * arguments for them (one per candidate, in block order) start. */
typedef struct edge {
	uint32_t inst, dest, target, first;
} edge;

typedef struct undo {
	uint32_t slot, value;
} undo;

/* A scratch array kept from one function to the next: its memory is
 * reused, its contents are not. */
typedef struct scratch {
	uint32_t *a;
	uint32_t cap;
} scratch;

static uint32_t *
room(scratch *s, uint64_t n)
{
	if (KL_UNLIKELY(n > s->cap))
		kl_grow(&s->a, &s->cap, sizeof *s->a, n);
	return s->a;
}

/* room() for an array of stamps: entries never written read as 0, older
 * than every stamp. */
static uint32_t *
room_stamps(scratch *s, uint64_t n)
{
	if (KL_UNLIKELY(n > s->cap)) {
		uint32_t old = s->cap;
		kl_grow(&s->a, &s->cap, sizeof *s->a, n);
		memset(s->a + old, 0, (size_t)(s->cap - old) * sizeof *s->a);
	}
	return s->a;
}

enum { COUNT_SLOTS, COUNT_PARAMS, COUNT_PROMOTED, COUNT_KEPT, NCOUNTS };
static const char *const count_name[NCOUNTS] = { "slots", "params",
						 "promoted", "kept" };

/* addr[v] of an alias, until a use asks where it leads. */
#define ALIASED (KL_NONE - 1)

typedef struct promoter {
	kl_func *f;
	kl_pass_report *rep;
	kl_cfg *cfg;
	kl_domtree *dt;
	kl_domfront *df;
	kl_idf *idf;
	bool have_dt;          /* cfg and dt are this function's */
	uint32_t nvalues; /* values before the pass: addresses are among them */
	uint32_t nblocks;

	scratch addr;          /* per value: alloca index, KL_NONE, ALIASED */
	int64_t *addr_off;     /* per address: offset from its alloca */
	uint32_t addr_off_cap;
	scratch derived, next_derived, queue; /* the walk of iadd_imm chains */

	alloca_info *allocas;
	uint32_t nallocas, allocas_cap;
	access *acc;
	uint32_t nacc, acc_cap;
	scratch block_acc;     /* per block: first access (layout order) */
	scratch block_nacc;
	slot *slots;
	uint32_t nslots, slots_cap;
	scratch slot_acc;      /* access indices grouped by slot */
	scratch slot_start;    /* nslots + 1 */
	scratch by_alloca, alloca_start, sort_tmp; /* make_slots */
	phi *phis;             /* candidates in creation order */
	uint32_t nphis, phis_cap;
	scratch by_block;      /* candidate indices grouped by block */
	scratch block_phi;     /* per block: its first entry in by_block */
	scratch block_nphi;
	scratch queued, placed; /* per block: stamps of place_params */
	uint32_t stamp;        /* the last stamp used, in any function */
	scratch work;
	fixup *fixups;
	uint32_t nfixups, fixups_cap;
	edge *edges;
	uint32_t nedges, edges_cap;
	uint32_t *incoming;
	uint32_t nincoming, incoming_cap;
	scratch edge_start, edge_order, phi_pos, args; /* prune_params */

	scratch cur;           /* per slot: current value or KL_NONE (zero) */
	undo *log;
	uint32_t nlog, log_cap;
	uint32_t (*stack)[2];  /* the dominator tree walk */
	uint32_t stack_cap;
	kl_arena arena;        /* the strict SSA check's marks */
	uint32_t zero[KL_TYPE_BUILTIN_COUNT];
	bool made_aliases;
	bool calls_setjmp;
	uint32_t count_at[NCOUNTS]; /* where each counter is in the report */
	kl_builder b;
} promoter;

/*
 * Add n to a counter. The report looks counters up by name, comparing
 * strings, four times per function; once a counter is in the report its
 * place is remembered (and checked: the name pointer is this file's).
 */
static void
count(promoter *p, int which, uint64_t n)
{
	kl_pass_report *r = p->rep;
	if (!r)
		return;
	uint32_t at = p->count_at[which];
	if (at < r->num_counters && r->counters[at].name == count_name[which]) {
		r->counters[at].value += n;
		return;
	}
	kl_pass_report_count(r, count_name[which], n);
	for (at = 0; at < r->num_counters; at++)
		if (r->counters[at].name == count_name[which])
			p->count_at[which] = at;
}

/* v, or the value it stands for if it is an alias (as value_resolve). */
static inline uint32_t
resolve(const kl_func *f, uint32_t v)
{
	if (KL_LIKELY(v >= f->nvalues || f->values[v].kind != VK_ALIAS))
		return v;
	return value_resolve(f, v);
}

/* kl_type_bytes, kl_type_is_float and kl_type_class, asked once per
 * access: the module's table read in place. */
static inline uint32_t
type_bytes(const kl_module *m, kl_type t)
{
	return t < m->ntypes ? m->types[t].bytes : kl_type_bytes(m, t);
}

static inline bool
type_is_float(const kl_module *m, kl_type t)
{
	return t < m->ntypes ? m->types[t].kind == TK_FLOAT
			     : kl_type_is_float(m, t);
}

static inline kl_type
type_class(const kl_module *m, kl_type t)
{
	return t < m->ntypes ? m->types[t].cls : kl_type_class(m, t);
}

/* ---- strict SSA ---- */

/*
 * Every value defined once, by what its table entry says, and every use in
 * a reachable block dominated by its definition (a branch argument is used
 * at the branch). One pass over the function with the dominator tree's
 * O(1) interval test inlined: this check runs on every function the pass
 * sees, so it must cost little more than reading the operands.
 */
static bool
use_ok(const kl_func *f, const kl_domtree *dt, uint32_t use_inst,
       uint32_t use_block, uint32_t v)
{
	if (v >= f->nvalues)
		return false;
	const kl_value_data *d = &f->values[v];
	if (KL_UNLIKELY(d->kind == VK_ALIAS)) {
		v = value_resolve(f, v);
		if (v >= f->nvalues)
			return false;
		d = &f->values[v];
	}
	if (d->kind == VK_RESULT) {
		uint32_t db = f->nodes[d->def].block;
		if (db == use_block)
			return f->nodes[d->def].seq < f->nodes[use_inst].seq;
		return db != KL_NONE && dt_reachable(dt, db) &&
		       dt_dominates(dt, db, use_block);
	}
	if (d->kind == VK_PARAM)
		return d->def == use_block ||
		       (dt_reachable(dt, d->def) &&
			dt_dominates(dt, d->def, use_block));
	return false;
}

static bool
strict_ssa(promoter *p)
{
	kl_func *f = p->f;
	const kl_domtree *dt = p->dt;
	kl_arena_reset(&p->arena);
	uint8_t *seen = kl_arena_zalloc(&p->arena, f->nvalues + 1);
	for (uint32_t b = f->first_block; b != KL_NONE; b = f->blocks[b].next) {
		uint32_t np = list_len(&f->pool, f->blocks[b].params);
		for (uint32_t k = 0; k < np; k++) {
			uint32_t v = list_get(&f->pool, f->blocks[b].params, k);
			if (v >= f->nvalues || seen[v] ||
			    f->values[v].kind != VK_PARAM || f->values[v].def != b)
				return false;
			seen[v] = 1;
		}
		bool reachable = dt_reachable(dt, b);
		for (uint32_t i = f->blocks[b].first; i != KL_NONE;
		     i = f->nodes[i].next) {
			uint32_t nr = inst_num_results(f, i);
			for (uint32_t k = 0; k < nr; k++) {
				uint32_t v = inst_result(f, i, k);
				if (v >= f->nvalues || seen[v] ||
				    f->values[v].kind != VK_RESULT ||
				    f->values[v].def != i)
					return false;
				seen[v] = 1;
			}
			if (!reachable)
				continue;
			const uint32_t *args;
			uint32_t n = inst_args(f, i, &args);
			for (uint32_t k = 0; k < n; k++)
				if (!use_ok(f, dt, i, b, args[k]))
					return false;
			const uint32_t *dests;
			uint32_t nd = inst_dests(f, i, &dests);
			for (uint32_t k = 0; k < nd; k++) {
				uint32_t len = list_len(&f->pool, dests[k]);
				const uint32_t *e = list_elems(&f->pool, dests[k]);
				for (uint32_t j = 1; j < len; j++)
					if (!use_ok(f, dt, i, b, e[j]))
						return false;
			}
		}
	}
	return true;
}

/* Is sym one of the setjmp family (which would return twice)? */
static bool
is_setjmp(const kl_module *m, uint32_t sym)
{
	static const char *const names[] = { "setjmp", "_setjmp", "sigsetjmp",
					      "__sigsetjmp" };
	static const uint8_t lens[] = { 6, 7, 9, 11 };
	if (sym >= m->nsyms)
		return false;
	const kl_name *nm = &m->syms[sym].name;
	for (size_t k = 0; k < 4; k++)
		if (nm->len == lens[k] &&
		    memcmp(name_bytes(m, nm), names[k], nm->len) == 0)
			return true;
	return false;
}

/* ---- finding allocas, addresses and accesses ---- */

/* Is v an address (derived from an alloca)? Then the value it resolves
 * to, whose addr entry says which alloca; else KL_NONE. */
static inline uint32_t
address_of(const promoter *p, uint32_t v)
{
	if (v >= p->nvalues)
		return KL_NONE;
	uint32_t a = p->addr.a[v];
	if (KL_LIKELY(a != ALIASED))
		return a == KL_NONE ? KL_NONE : v;
	uint32_t r = value_resolve(p->f, v);
	if (r >= p->nvalues)
		return KL_NONE;
	a = p->addr.a[r];
	return a == KL_NONE || a == ALIASED ? KL_NONE : r;
}

/* Operand v of inst may be an address (or an alias of one): it escapes. */
static void
escape(promoter *p, uint32_t v, uint32_t inst)
{
	uint32_t r = address_of(p, v);
	if (r == KL_NONE)
		return;
	alloca_info *a = &p->allocas[p->addr.a[r]];
	if (a->reason == PROMOTED) {
		a->reason = KEPT_ESCAPES;
		a->why_inst = inst;
	}
}

/* The test inline, the rare rest out of the way: most operands are no
 * address. */
static inline void
check_escape(promoter *p, uint32_t v, uint32_t inst)
{
	if (v < p->nvalues && KL_UNLIKELY(p->addr.a[v] != KL_NONE))
		escape(p, v, inst);
}

/* Every value starts as no address; aliases (rare: most functions have
 * none, which one branch-free pass finds) are marked so that a use knows
 * to follow them. */
static void
clear_addresses(promoter *p)
{
	kl_func *f = p->f;
	uint32_t nv = p->nvalues;
	uint32_t *addr = room(&p->addr, (uint64_t)nv + 1);
	if (nv + 1 > p->addr_off_cap)
		kl_grow(&p->addr_off, &p->addr_off_cap, sizeof *p->addr_off,
			(uint64_t)nv + 1);
	memset(addr, 0xff, (size_t)nv * sizeof *addr);
	bool aliases = false;
	for (uint32_t v = 0; v < nv; v++)
		aliases |= f->values[v].kind == VK_ALIAS;
	for (uint32_t v = 0; v < nv && aliases; v++)
		if (f->values[v].kind == VK_ALIAS)
			addr[v] = ALIASED;
}

/* An alloca: recorded, and its result made an address when follow. */
static void
add_alloca(promoter *p, uint32_t i, uint32_t b, bool follow)
{
	kl_func *f = p->f;
	const kl_inst_data *d = &f->insts[i];
	if (p->nallocas == p->allocas_cap)
		kl_grow(&p->allocas, &p->allocas_cap, sizeof *p->allocas,
			p->nallocas + 1);
	alloca_info *a = &p->allocas[p->nallocas];
	a->inst = i;
	a->size = d->op == KL_OP_ALLOCA ? d->w[1] : 0;
	a->why_inst = KL_NONE;
	a->own_reason = d->op == KL_OP_ALLOCA_DYN ? KEPT_DYNAMIC
			: b != f->first_block	  ? KEPT_NOT_ENTRY
						  : PROMOTED;
	a->reason = a->own_reason;
	if (follow && d->w[0] < p->nvalues) {
		p->addr.a[d->w[0]] = p->nallocas;
		p->addr_off[d->w[0]] = 0;
	}
	p->nallocas++;
}

/* A load or store of address r (resolved) by instruction i of block b. */
static void
add_access(promoter *p, uint32_t i, uint32_t b, uint32_t r, bool is_store)
{
	kl_func *f = p->f;
	const kl_inst_data *d = &f->insts[i];
	uint8_t memw = kl_op_table[d->op].memw;
	if (p->nacc == p->acc_cap)
		kl_grow(&p->acc, &p->acc_cap, sizeof *p->acc, p->nacc + 1);
	access *a = &p->acc[p->nacc++];
	a->inst = i;
	a->alloca = p->addr.a[r];
	a->offset = p->addr_off[r] + (int32_t)d->w[2];
	kl_type t = is_store ? value_type(f, resolve(f, d->w[0]))
			     : value_type(f, d->w[0]);
	a->width = memw ? memw : type_bytes(f->module, t);
	a->block = b;
	a->slot = KL_NONE;
	a->is_store = is_store;
	a->is_float = type_is_float(f->module, t);
}

static void
check_list_escapes(promoter *p, uint32_t list, uint32_t from, uint32_t inst)
{
	kl_func *f = p->f;
	uint32_t n = list_len(&f->pool, list);
	for (uint32_t k = from; k < n; k++)
		check_escape(p, list_get(&f->pool, list, k), inst);
}

/* iadd_imm i of block b: its result is an address if its operand is one.
 * False if that happens outside the entry block (see walk). */
static bool
derive(promoter *p, uint32_t i, bool entry)
{
	const kl_inst_data *d = &p->f->insts[i];
	uint32_t x = address_of(p, d->w[1]);
	if (x == KL_NONE || d->w[0] >= p->nvalues)
		return true;
	if (!entry)
		return false;
	p->addr.a[d->w[0]] = p->addr.a[x];
	p->addr_off[d->w[0]] = p->addr_off[x] + inst_imm(p->f, i);
	return true;
}

/*
 * One walk over the layout finds every use of an address: the address of
 * a load or store is an access, any other use (but the operand of an
 * iadd_imm, whose result is an address itself) an escape. The formats
 * with their operands in the instruction come first in the switch: they
 * are nearly all the instructions.
 *
 * With defs, the same walk finds the allocas and the addresses derived
 * from them. Only the static allocas of the entry block can be promoted,
 * so only their addresses are followed. That is exact when each address
 * is defined before its uses in the layout: the entry block comes first,
 * and inside a block a definition comes before its uses (verified SSA).
 * An address derived in another block may be used in a block laid out
 * before it: then the walk gives up (false), and find_addresses and a
 * walk without defs take over.
 */
static bool
walk(promoter *p, bool defs)
{
	kl_func *f = p->f;
	uint32_t *block_acc = room(&p->block_acc, (uint64_t)p->nblocks + 1);
	uint32_t *block_nacc = room(&p->block_nacc, (uint64_t)p->nblocks + 1);
	for (uint32_t b = f->first_block; b != KL_NONE; b = f->blocks[b].next) {
		block_acc[b] = p->nacc;
		bool entry = b == f->first_block;
		for (uint32_t i = f->blocks[b].first; i != KL_NONE;
		     i = f->nodes[i].next) {
			const kl_inst_data *d = &f->insts[i];
			kl_format fmt = kl_op_table[d->op].format;
			uint32_t r;
			switch (fmt) {
			case KL_FMT_STORE:
				check_escape(p, d->w[0], i);
				/* fall through */
			case KL_FMT_LOAD:
				if ((r = address_of(p, d->w[1])) != KL_NONE)
					add_access(p, i, b, r,
						   fmt == KL_FMT_STORE);
				continue;
			case KL_FMT_BINARY_IMM:
				if (d->op != KL_OP_IADD_IMM)
					check_escape(p, d->w[1], i);
				else if (defs && !derive(p, i, entry))
					return false;
				continue;
			case KL_FMT_UNARY:
			case KL_FMT_ICMP_IMM:
				check_escape(p, d->w[1], i);
				continue;
			case KL_FMT_BINARY:
			case KL_FMT_ICMP:
			case KL_FMT_FCMP:
				check_escape(p, d->w[1], i);
				check_escape(p, d->w[2], i);
				continue;
			case KL_FMT_CONST:
			case KL_FMT_SYMBOL:
			case KL_FMT_TRAP:
				continue;
			case KL_FMT_ALLOCA:
				if (defs)
					add_alloca(p, i, b, entry);
				continue;
			case KL_FMT_ALLOCA_DYN:
				if (defs)
					add_alloca(p, i, b, false);
				check_escape(p, d->w[1], i);
				continue;
			case KL_FMT_JUMP:
				check_list_escapes(p, d->w[0], 1, i);
				continue;
			case KL_FMT_BRIF:
				check_escape(p, d->w[0], i);
				check_list_escapes(p, d->w[1], 1, i);
				check_list_escapes(p, d->w[2], 1, i);
				continue;
			case KL_FMT_CALL:
				if (defs)
					p->calls_setjmp |=
						is_setjmp(f->module, d->w[1]);
				break;
			default:
				break;
			}
			const uint32_t *args;
			uint32_t n = inst_args(f, i, &args);
			for (uint32_t k = 0; k < n; k++)
				check_escape(p, args[k], i);
			const uint32_t *dests;
			uint32_t nd = inst_dests(f, i, &dests);
			for (uint32_t k = 0; k < nd; k++)
				check_list_escapes(p, dests[k], 1, i);
		}
		block_nacc[b] = p->nacc - block_acc[b];
	}
	return true;
}

/* Allocas, and the iadd_imm chains that derive addresses from them, in
 * any order of the layout. */
static void
find_addresses(promoter *p)
{
	kl_func *f = p->f;
	uint32_t nv = p->nvalues;
	clear_addresses(p);
	uint32_t *addr = p->addr.a;
	/* derived[v]: the first iadd_imm whose operand is v; next_derived
	 * chains the others (by instruction). */
	uint32_t *derived = room(&p->derived, (uint64_t)nv + 1);
	memset(derived, 0xff, (size_t)nv * sizeof *derived);
	uint32_t *next_derived = room(&p->next_derived,
				      (uint64_t)f->ninsts + 1);
	uint32_t *queue = room(&p->queue, (uint64_t)nv + 1);
	uint32_t qn = 0;
	for (uint32_t b = f->first_block; b != KL_NONE; b = f->blocks[b].next) {
		for (uint32_t i = f->blocks[b].first; i != KL_NONE;
		     i = f->nodes[i].next) {
			const kl_inst_data *d = &f->insts[i];
			if (d->op == KL_OP_ALLOCA || d->op == KL_OP_ALLOCA_DYN) {
				add_alloca(p, i, b, true);
				if (d->w[0] < nv)
					queue[qn++] = d->w[0];
			} else if (d->op == KL_OP_CALL) {
				p->calls_setjmp |= is_setjmp(f->module, d->w[1]);
			} else if (d->op == KL_OP_IADD_IMM) {
				uint32_t x = value_resolve(f, d->w[1]);
				if (x == KL_NONE || x >= nv)
					continue;
				next_derived[i] = derived[x];
				derived[x] = i;
			}
		}
	}
	for (uint32_t q = 0; q < qn; q++) {
		uint32_t v = queue[q];
		for (uint32_t i = derived[v]; i != KL_NONE; i = next_derived[i]) {
			uint32_t r = f->insts[i].w[0];
			if (r >= nv || addr[r] != KL_NONE)
				continue;
			addr[r] = addr[v];
			p->addr_off[r] = p->addr_off[v] + inst_imm(f, i);
			queue[qn++] = r;
		}
	}
}

static int
cmp_by_offset(const void *x, const void *y, void *ctx)
{
	const access *acc = ctx;
	const access *a = &acc[*(const uint32_t *)x];
	const access *b = &acc[*(const uint32_t *)y];
	if (a->offset != b->offset)
		return a->offset < b->offset ? -1 : 1;
	if (a->width != b->width)
		return a->width < b->width ? -1 : 1;
	return *(const uint32_t *)x < *(const uint32_t *)y ? -1 : 1;
}

/* Insertion sort for short runs, merge sort beyond: stable, no qsort_r. */
static void
sort_indices(uint32_t *v, uint32_t n, uint32_t *tmp, const access *acc)
{
	if (n < 16) {
		for (uint32_t i = 1; i < n; i++) {
			uint32_t x = v[i], j = i;
			while (j > 0 && cmp_by_offset(&v[j - 1], &x, (void *)acc) > 0) {
				v[j] = v[j - 1];
				j--;
			}
			v[j] = x;
		}
		return;
	}
	uint32_t h = n / 2;
	sort_indices(v, h, tmp, acc);
	sort_indices(v + h, n - h, tmp, acc);
	uint32_t i = 0, j = h, k = 0;
	while (i < h && j < n)
		tmp[k++] = cmp_by_offset(&v[j], &v[i], (void *)acc) < 0 ? v[j++]
									 : v[i++];
	while (i < h)
		tmp[k++] = v[i++];
	while (j < n)
		tmp[k++] = v[j++];
	memcpy(v, tmp, n * sizeof *v);
}

/*
 * Group accesses by alloca, check each promotable alloca's slots (inside
 * the allocation, no overlap, one width per offset) and number the slots.
 */
static void
make_slots(promoter *p)
{
	uint32_t na = p->nallocas, n = p->nacc;
	uint32_t *start = room(&p->alloca_start, (uint64_t)na + 2);
	uint32_t *order = room(&p->by_alloca, (uint64_t)n + 1);
	memset(start, 0, ((size_t)na + 2) * sizeof *start);
	/* Counting sort by alloca, each alloca's accesses in layout order;
	 * start[a + 1] serves as the fill pointer of alloca a. */
	for (uint32_t k = 0; k < n; k++)
		start[p->acc[k].alloca + 2]++;
	for (uint32_t a = 0; a < na; a++)
		start[a + 2] += start[a + 1];
	for (uint32_t k = 0; k < n; k++)
		order[start[p->acc[k].alloca + 1]++] = k;

	for (uint32_t a = 0; a < na; a++) {
		alloca_info *ai = &p->allocas[a];
		uint32_t *v = order + start[a];
		uint32_t m = start[a + 1] - start[a];
		if (ai->reason != PROMOTED || m == 0)
			continue;
		/* Most allocas are one variable, accessed whole: nothing to
		 * sort, one slot. */
		const access *x0 = &p->acc[v[0]];
		bool uniform = true;
		for (uint32_t k = 1; k < m && uniform; k++)
			uniform = p->acc[v[k]].offset == x0->offset &&
				  p->acc[v[k]].width == x0->width;
		if (!uniform)
			sort_indices(v, m, room(&p->sort_tmp, (uint64_t)m + 1),
				     p->acc);
		for (uint32_t k = 0; k < (uniform ? 1 : m); k++) {
			const access *x = &p->acc[v[k]];
			if (x->offset < 0 || x->offset + x->width > ai->size) {
				ai->reason = KEPT_OUT_OF_BOUNDS;
				ai->why_inst = x->inst;
				break;
			}
			if (k > 0) {
				const access *w = &p->acc[v[k - 1]];
				bool same = w->offset == x->offset &&
					    w->width == x->width;
				if (!same && x->offset < w->offset + w->width) {
					ai->reason = KEPT_OVERLAP;
					ai->why_inst = x->inst;
					break;
				}
			}
		}
		if (ai->reason != PROMOTED)
			continue;
		for (uint32_t k = 0; k < m; k++) {
			access *x = &p->acc[v[k]];
			const access *w = k ? &p->acc[v[k - 1]] : NULL;
			if (!w || w->offset != x->offset) {
				if (p->nslots == p->slots_cap)
					kl_grow(&p->slots, &p->slots_cap,
						sizeof *p->slots, p->nslots + 1);
				p->slots[p->nslots++] = (slot){
					x->offset, x->width, KL_TYPE_NONE, a
				};
			}
			x->slot = p->nslots - 1;
		}
	}

	/* Accesses by slot, in layout order; and each slot's type. */
	uint32_t ns = p->nslots;
	uint32_t *sstart = room(&p->slot_start, (uint64_t)ns + 2);
	uint32_t *slot_acc = room(&p->slot_acc, (uint64_t)n + 1);
	memset(sstart, 0, ((size_t)ns + 2) * sizeof *sstart);
	for (uint32_t k = 0; k < n; k++)
		if (p->acc[k].slot != KL_NONE)
			sstart[p->acc[k].slot + 2]++;
	for (uint32_t s = 0; s < ns; s++)
		sstart[s + 2] += sstart[s + 1];
	for (uint32_t k = 0; k < n; k++)
		if (p->acc[k].slot != KL_NONE)
			slot_acc[sstart[p->acc[k].slot + 1]++] = k;
	static const kl_type int_of[9] = { [1] = KL_TYPE_I8, [2] = KL_TYPE_I16,
					   [4] = KL_TYPE_I32, [8] = KL_TYPE_I64 };
	for (uint32_t s = 0; s < ns; s++) {
		/* Float if every store stores a float; with no store at all,
		 * if every load loads one. */
		bool stores = false, floats_stored = true, floats_loaded = true;
		for (uint32_t k = sstart[s]; k < sstart[s + 1]; k++) {
			const access *x = &p->acc[slot_acc[k]];
			if (x->is_store) {
				stores = true;
				floats_stored &= x->is_float;
			} else {
				floats_loaded &= x->is_float;
			}
		}
		uint32_t w = p->slots[s].width;
		kl_type t = w <= 8 ? int_of[w] : KL_TYPE_NONE;
		if (stores ? floats_stored : floats_loaded)
			t = w == 4 ? KL_TYPE_F32 : KL_TYPE_F64;
		KL_ASSERT(t != KL_TYPE_NONE);
		p->slots[s].type = t;
	}
}

/* ---- parameter placement ---- */

/*
 * Minimal SSA first: a candidate parameter for each slot on the iterated
 * dominance frontier of the entry block and the reachable blocks that
 * store to it. Which of them survive (the pruning) is decided after
 * renaming, in prune_params. Candidates are numbered in creation order
 * (slot by slot), then grouped by block for renaming.
 */
/* Past the budget: drop slot s's alloca's candidates (they start at
 * first) and keep that alloca and every later one. */
static void
give_up_from(promoter *p, uint32_t s, uint32_t first)
{
	p->nphis = first;
	for (uint32_t t = s; t < p->nslots; t++) {
		alloca_info *a = &p->allocas[p->slots[t].alloca];
		if (a->reason == PROMOTED) {
			a->reason = KEPT_TOO_COSTLY;
			a->why_inst = KL_NONE;
		}
	}
	for (uint32_t k = 0; k < p->nacc; k++) {
		access *x = &p->acc[k];
		if (x->slot != KL_NONE && x->slot >= s)
			x->slot = KL_NONE;
	}
	p->nslots = s;
}

/*
 * A block can need a parameter for slot s only if s may be live there.
 * One cheap, exact-when-it-applies test: if a store block D dominates
 * every block that loads s (and D's first access to s is the store), s is
 * dead on entry to every block D does not dominate — a path from there to
 * a load without a store, preceded by a path from the entry that avoids
 * D, would reach the load avoiding D. This keeps the frontier walk of a
 * loop counter inside its own loop: without it a nest of depth d has
 * minimal SSA of size d^2.
 */
static uint32_t
dominating_store(promoter *p, uint32_t s)
{
	const kl_domtree *dt = p->dt;
	uint32_t d = KL_NONE;
	for (uint32_t k = p->slot_start.a[s]; k < p->slot_start.a[s + 1]; k++) {
		const access *x = &p->acc[p->slot_acc.a[k]];
		if (x->is_store && dt_reachable(dt, x->block) &&
		    (d == KL_NONE || dt->tin[x->block] < dt->tin[d]))
			d = x->block;
	}
	if (d == KL_NONE)
		return KL_NONE;
	bool first_in_d = true;
	for (uint32_t k = p->slot_start.a[s]; k < p->slot_start.a[s + 1]; k++) {
		const access *x = &p->acc[p->slot_acc.a[k]];
		if (!dt_reachable(dt, x->block))
			continue;
		if (x->block == d) {
			if (first_in_d && !x->is_store)
				return KL_NONE; /* a load before the store */
			first_in_d = false;
		} else if (!x->is_store && !dt_dominates(dt, d, x->block)) {
			return KL_NONE;
		}
	}
	return d;
}

/*
 * Minimal SSA first: a candidate parameter for each slot on the iterated
 * dominance frontier of the entry block and the reachable blocks that
 * store to it (Cytron et al. 1991), the walk skipping blocks where the
 * slot is dead by the dominating-store test. Which candidates survive is
 * decided after renaming (prune_params). Candidates are numbered in
 * creation order (slot by slot), then grouped by block for renaming.
 *
 * A budget bounds the candidates (a pathological function must not make
 * the pass run out of memory): past it, the allocas not yet placed are
 * kept, with a note saying why.
 */
static void
place_params(promoter *p)
{
	kl_func *f = p->f;
	const kl_domtree *dt = p->dt;
	uint32_t nb = p->nblocks;
	uint32_t *queued = room_stamps(&p->queued, (uint64_t)nb + 1);
	uint32_t *placed = room_stamps(&p->placed, (uint64_t)nb + 1);
	uint32_t *work = room(&p->work, (uint64_t)nb + 1);
	if (p->stamp > UINT32_MAX - 1 - p->nslots) {
		memset(queued, 0, (size_t)p->queued.cap * sizeof *queued);
		memset(placed, 0, (size_t)p->placed.cap * sizeof *placed);
		p->stamp = 0;
	}
	uint64_t budget = 16 * ((uint64_t)f->ninsts + nb) + 4096;
	uint32_t first_of_alloca = 0, alloca_now = KL_NONE;
	uint32_t base = p->stamp;
	p->stamp += p->nslots;
	for (uint32_t s = 0; s < p->nslots; s++) {
		if (p->slots[s].alloca != alloca_now) {
			alloca_now = p->slots[s].alloca;
			first_of_alloca = p->nphis;
		}
		if (p->nphis > budget) {
			give_up_from(p, s, first_of_alloca);
			break;
		}
		uint32_t stamp = base + s + 1, nwork = 0;
		uint32_t dom = dominating_store(p, s);
		queued[f->first_block] = stamp;
		work[nwork++] = f->first_block;
		const uint32_t *sa = p->slot_acc.a, *ss = p->slot_start.a;
		for (uint32_t k = ss[s]; k < ss[s + 1]; k++) {
			const access *x = &p->acc[sa[k]];
			uint32_t b = x->block;
			if (!x->is_store || queued[b] == stamp ||
			    !dt_reachable(dt, b))
				continue;
			queued[b] = stamp;
			work[nwork++] = b;
		}
		while (nwork) {
			kl_block x = { work[--nwork] };
			uint32_t nd = kl_domfront_size(p->df, x);
			for (uint32_t k = 0; k < nd; k++) {
				uint32_t y = kl_domfront_get(p->df, x, k).id;
				if (placed[y] == stamp ||
				    (dom != KL_NONE && !dt_dominates(dt, dom, y)))
					continue;
				placed[y] = stamp;
				if (p->nphis == p->phis_cap)
					kl_grow(&p->phis, &p->phis_cap,
						sizeof *p->phis, p->nphis + 1);
				p->phis[p->nphis++] = (phi){ y, s, KL_NONE, 0 };
				if (queued[y] != stamp) {
					queued[y] = stamp;
					work[nwork++] = y;
				}
			}
		}
	}

	/* by_block[k]: the k-th candidate in block order. */
	uint32_t *first = room(&p->block_phi, (uint64_t)nb + 1);
	uint32_t *cnt = room(&p->block_nphi, (uint64_t)nb + 1);
	uint32_t *by_block = room(&p->by_block, (uint64_t)p->nphis + 1);
	memset(cnt, 0, (size_t)nb * sizeof *cnt);
	for (uint32_t k = 0; k < p->nphis; k++)
		cnt[p->phis[k].block]++;
	uint32_t at = 0;
	for (uint32_t b = 0; b < nb && p->nphis; b++) {
		first[b] = at;
		at += cnt[b];
	}
	for (uint32_t k = 0; k < p->nphis; k++)
		by_block[first[p->phis[k].block]++] = k;
	for (uint32_t b = 0; b < nb && p->nphis; b++)
		first[b] -= cnt[b];
}

/* ---- renaming ---- */

/*
 * While renaming, a candidate parameter that may yet be pruned has no
 * value number: it is referred to as PHI_REF + its index. Operands that
 * receive such a reference are recorded as fixups and patched once the
 * surviving parameters have numbers.
 */
#define PHI_REF 0x80000000u

static bool
is_phi_ref(uint32_t v)
{
	return v >= PHI_REF && v != KL_NONE;
}

static inline void
add_fixup(promoter *p, uint8_t kind, uint32_t id, uint32_t ref)
{
	if (!is_phi_ref(ref))
		return;
	kl_grow(&p->fixups, &p->fixups_cap, sizeof *p->fixups, p->nfixups + 1);
	p->fixups[p->nfixups++] = (fixup){ kind, id, ref - PHI_REF };
	p->phis[ref - PHI_REF].used = 1;
}

/* The zero of a slot type, made once at the top of the entry block. */
static uint32_t
zero_of(promoter *p, kl_type t)
{
	if (p->zero[t] != KL_NONE)
		return p->zero[t];
	kl_func *f = p->f;
	kl_builder_before(&p->b, (kl_inst){ f->blocks[f->first_block].first });
	kl_value v;
	if (t == KL_TYPE_F32)
		v = kl_build_f32const(&p->b, 0);
	else if (t == KL_TYPE_F64)
		v = kl_build_f64const(&p->b, 0);
	else
		v = kl_build_iconst(&p->b, t, 0);
	KL_ASSERT(v.id != KL_NONE);
	return p->zero[t] = v.id;
}

static uint32_t
current(promoter *p, uint32_t s)
{
	uint32_t v = p->cur.a[s];
	return v != KL_NONE ? v : zero_of(p, p->slots[s].type);
}

static inline void
set_current(promoter *p, uint32_t s, uint32_t v)
{
	if (p->nlog == p->log_cap)
		kl_grow(&p->log, &p->log_cap, sizeof *p->log, p->nlog + 1);
	p->log[p->nlog++] = (undo){ s, p->cur.a[s] };
	p->cur.a[s] = v;
}

/* `vN = op.t x` before inst; x may be a parameter reference. */
static uint32_t
convert_before(promoter *p, uint32_t inst, kl_opcode op, kl_type t, uint32_t x)
{
	kl_func *f = p->f;
	uint32_t i = func_new_inst(f, op);
	layout_insert_inst_before(f, i, inst);
	uint32_t v = func_new_value(f);
	value_define(f, v, VK_RESULT, t, i);
	f->insts[i].w[0] = v;
	f->insts[i].w[1] = x;
	add_fixup(p, FIX_OPERAND, i, x);
	return v;
}

/* A store to slot s: the value it leaves in the slot; the store goes. */
static uint32_t
store_value(promoter *p, const access *x)
{
	kl_func *f = p->f;
	const kl_inst_data *d = &f->insts[x->inst];
	kl_type st = p->slots[x->slot].type;
	/* The stored value may be a load already replaced by a parameter
	 * that has no number yet. */
	uint32_t v = resolve(f, d->w[0]);
	kl_type vt = is_phi_ref(v) ? p->slots[p->phis[v - PHI_REF].slot].type
				   : type_class(f->module, value_type(f, v));
	if (d->op != KL_OP_STORE)
		v = convert_before(p, x->inst, KL_OP_IREDUCE, st, v);
	else if (vt != st)
		v = convert_before(p, x->inst, KL_OP_BITCAST, st, v);
	layout_remove_inst(f, x->inst);
	return v;
}

/* A load from slot s holding c: the load becomes c, or converts it. */
static void
replace_load(promoter *p, const access *x, uint32_t c)
{
	kl_func *f = p->f;
	uint32_t i = x->inst;
	kl_inst_data *d = &f->insts[i];
	kl_type st = p->slots[x->slot].type;
	uint32_t r = d->w[0];
	kl_type rt = type_class(f->module, value_type(f, r));
	if (!is_phi_ref(c))
		c = resolve(f, c);
	switch ((kl_opcode)d->op) {
	case KL_OP_LOAD:
		if (rt == st) {
			f->values[r].kind = VK_ALIAS;
			f->values[r].def = c;
			add_fixup(p, FIX_ALIAS, r, c);
			layout_remove_inst(f, i);
			p->made_aliases = true;
		} else {
			inst_rewrite_unary(f, i, KL_OP_BITCAST, c);
			add_fixup(p, FIX_OPERAND, i, c);
		}
		return;
	case KL_OP_ULOAD8:
	case KL_OP_ULOAD16:
	case KL_OP_ULOAD32:
	case KL_OP_SLOAD8:
	case KL_OP_SLOAD16:
	case KL_OP_SLOAD32: {
		bool sign = d->op == KL_OP_SLOAD8 || d->op == KL_OP_SLOAD16 ||
			    d->op == KL_OP_SLOAD32;
		if (kl_type_is_float(f->module, st)) {
			kl_type it = st == KL_TYPE_F32 ? KL_TYPE_I32 : KL_TYPE_I64;
			c = convert_before(p, i, KL_OP_BITCAST, it, c);
		}
		inst_rewrite_unary(f, i, sign ? KL_OP_SEXTEND : KL_OP_UEXTEND, c);
		add_fixup(p, FIX_OPERAND, i, c);
		return;
	}
	default:
		KL_UNREACHABLE();
	}
}

/*
 * Record what b's branch passes to each candidate parameter of its
 * targets: the slot's current value (zero from unreachable blocks). The
 * arguments are added once the pruning is known.
 */
static void
record_edges(promoter *p, uint32_t b, bool zeros)
{
	kl_func *f = p->f;
	uint32_t t = f->blocks[b].last;
	if (t == KL_NONE)
		return;
	const uint32_t *dests;
	uint32_t nd = inst_dests(f, t, &dests);
	for (uint32_t k = 0; k < nd; k++) {
		uint32_t target = list_get(&f->pool, dests[k], 0);
		uint32_t n = target < p->nblocks ? p->block_nphi.a[target] : 0;
		if (n == 0)
			continue;
		kl_grow(&p->edges, &p->edges_cap, sizeof *p->edges,
			p->nedges + 1);
		p->edges[p->nedges++] = (edge){ t, k, target, p->nincoming };
		kl_grow(&p->incoming, &p->incoming_cap, sizeof *p->incoming,
			(uint64_t)p->nincoming + n);
		/* KL_NONE stands for the slot's zero, made only if a surviving
		 * parameter needs it. */
		for (uint32_t j = 0; j < n; j++) {
			uint32_t at = p->block_phi.a[target] + j;
			uint32_t s = p->phis[p->by_block.a[at]].slot;
			p->incoming[p->nincoming++] = zeros ? KL_NONE
							    : p->cur.a[s];
		}
	}
}

static void
rename_block(promoter *p, uint32_t b, bool reachable)
{
	for (uint32_t k = 0; reachable && k < p->block_nphi.a[b]; k++) {
		uint32_t ph = p->by_block.a[p->block_phi.a[b] + k];
		set_current(p, p->phis[ph].slot, PHI_REF + ph);
	}
	for (uint32_t k = 0; k < p->block_nacc.a[b]; k++) {
		const access *x = &p->acc[p->block_acc.a[b] + k];
		if (x->slot == KL_NONE)
			continue;
		if (x->is_store && !reachable) {
			layout_remove_inst(p->f, x->inst); /* never runs */
		} else if (x->is_store) {
			set_current(p, x->slot, store_value(p, x));
		} else {
			replace_load(p, x, reachable ? current(p, x->slot)
						     : zero_of(p, p->slots[x->slot].type));
		}
	}
	record_edges(p, b, !reachable);
}

/* Preorder walk of the dominator tree with an explicit stack. */
static void
rename_all(promoter *p)
{
	kl_func *f = p->f;
	const kl_domtree *dt = p->dt;
	KL_ASSERT(f->nvalues < PHI_REF && p->nphis < KL_NONE - PHI_REF);
	uint32_t *cur = room(&p->cur, (uint64_t)p->nslots + 1);
	memset(cur, 0xff, ((size_t)p->nslots + 1) * sizeof *cur);
	uint32_t n = 0;
	/* entries: block id, and the undo mark + 1 for an exit (0 = enter) */
	kl_grow(&p->stack, &p->stack_cap, sizeof *p->stack, 1);
	uint32_t (*stack)[2] = p->stack;
	stack[n][0] = dt->entry;
	stack[n++][1] = 0;
	while (n) {
		uint32_t b = stack[n - 1][0], mark = stack[n - 1][1];
		n--;
		if (mark) {
			while (p->nlog > mark - 1) {
				const undo *u = &p->log[--p->nlog];
				cur[u->slot] = u->value;
			}
			continue;
		}
		if (n + 1 > p->stack_cap)
			kl_grow(&p->stack, &p->stack_cap, sizeof *p->stack,
				(uint64_t)n + 1);
		stack = p->stack;
		stack[n][0] = b;
		stack[n++][1] = p->nlog + 1;
		rename_block(p, b, true);
		for (uint32_t c = dt->child[b]; c != KL_NONE;
		     c = dt->sibling[c]) {
			if (n + 1 > p->stack_cap)
				kl_grow(&p->stack, &p->stack_cap,
					sizeof *p->stack, (uint64_t)n + 1);
			stack = p->stack;
			stack[n][0] = c;
			stack[n++][1] = 0;
		}
	}
	for (uint32_t b = f->first_block; b != KL_NONE; b = f->blocks[b].next)
		if (!dt_reachable(dt, b))
			rename_block(p, b, false);
}

/* ---- pruning and materialising the parameters ---- */

/*
 * A candidate survives when its value reaches a real use: a load took it,
 * or it is passed to a surviving candidate. These are exactly the blocks
 * where the slot is live on entry (a path from there reaches a load
 * without a store, and along it every parameter passes the value on), so
 * this is Cytron's pruned SSA, found in time linear in the minimal SSA
 * instead of a liveness walk per slot.
 */
static void
prune_params(promoter *p)
{
	kl_func *f = p->f;
	uint32_t nb = p->nblocks;
	if (p->nphis == 0) {
		count(p, COUNT_PARAMS, 0);
		return;
	}
	const uint32_t *first = p->block_phi.a, *nphi = p->block_nphi.a;
	const uint32_t *by_block = p->by_block.a;
	/* Edges by target block: start[b + 1] is b's fill pointer first. */
	uint32_t *start = room(&p->edge_start, (uint64_t)nb + 2);
	uint32_t *order = room(&p->edge_order, (uint64_t)p->nedges + 1);
	memset(start, 0, ((size_t)nb + 2) * sizeof *start);
	for (uint32_t e = 0; e < p->nedges; e++)
		start[p->edges[e].target + 2]++;
	for (uint32_t b = 0; b < nb; b++)
		start[b + 2] += start[b + 1];
	for (uint32_t e = 0; e < p->nedges; e++)
		order[start[p->edges[e].target + 1]++] = e;
	/* position of each candidate in its block's list */
	uint32_t *pos = room(&p->phi_pos, (uint64_t)p->nphis + 1);
	for (uint32_t b = 0; b < nb; b++)
		for (uint32_t j = 0; j < nphi[b]; j++)
			pos[by_block[first[b] + j]] = j;

	uint32_t *work = room(&p->work, (uint64_t)p->nphis + 1);
	uint32_t nwork = 0;
	for (uint32_t k = 0; k < p->nphis; k++)
		if (p->phis[k].used)
			work[nwork++] = k;
	while (nwork) {
		uint32_t q = work[--nwork];
		uint32_t b = p->phis[q].block;
		for (uint32_t e = start[b]; e < start[b + 1]; e++) {
			uint32_t v = p->incoming[p->edges[order[e]].first + pos[q]];
			if (is_phi_ref(v) && !p->phis[v - PHI_REF].used) {
				p->phis[v - PHI_REF].used = 1;
				work[nwork++] = v - PHI_REF;
			}
		}
	}

	/* Numbers for the survivors, in creation order (slot by slot). */
	uint32_t live = 0;
	for (uint32_t k = 0; k < p->nphis; k++) {
		phi *ph = &p->phis[k];
		if (!ph->used)
			continue;
		ph->value = func_new_value(f);
		value_define(f, ph->value, VK_PARAM, p->slots[ph->slot].type,
			     ph->block);
		live++;
	}
	count(p, COUNT_PARAMS, live);
	/* Parameters in each block's candidate order (slot order). */
	for (uint32_t b = 0; b < nb; b++)
		for (uint32_t j = 0; j < nphi[b]; j++) {
			const phi *ph = &p->phis[by_block[first[b] + j]];
			if (ph->used)
				list_push(&f->pool, &f->blocks[b].params,
					  ph->value);
		}
	for (uint32_t k = 0; k < p->nfixups; k++) {
		const fixup *x = &p->fixups[k];
		uint32_t v = p->phis[x->phi].value;
		if (x->kind == FIX_ALIAS)
			f->values[x->id].def = v;
		else
			f->insts[x->id].w[1] = v;
	}
	/* Branch arguments for the surviving parameters. */
	uint32_t *args = room(&p->args, (uint64_t)p->nphis + 1);
	for (uint32_t e = 0; e < p->nedges; e++) {
		const edge *ed = &p->edges[e];
		uint32_t n = 0;
		for (uint32_t j = 0; j < nphi[ed->target]; j++) {
			const phi *ph = &p->phis[by_block[first[ed->target] + j]];
			if (!ph->used)
				continue;
			uint32_t v = p->incoming[ed->first + j];
			if (v == KL_NONE)
				v = zero_of(p, p->slots[ph->slot].type);
			args[n++] = is_phi_ref(v) ? p->phis[v - PHI_REF].value : v;
		}
		inst_dest_append_args(f, ed->inst, ed->dest, args, n);
	}
}

/* ---- the pass ---- */

static void
note_kept(promoter *p, const alloca_info *a)
{
	kl_func *f = p->f;
	kl_buf *out = &p->rep->notes;
	size_t n;
	const char *name = kl_sym_name(f->module, (kl_sym){ f->sym }, &n);
	kl_buf_printf(out, "%%%.*s: kept v%u (inst%u", (int)n, name,
		      f->insts[a->inst].w[0], a->inst);
	uint32_t line = kl_inst_source_line(f, (kl_inst){ a->inst });
	if (line)
		kl_buf_printf(out, ", line %u", line);
	kl_buf_printf(out, "): %s", reason_text[a->reason]);
	if (a->why_inst != KL_NONE) {
		kl_buf_printf(out, " at inst%u", a->why_inst);
		line = kl_inst_source_line(f, (kl_inst){ a->why_inst });
		if (line)
			kl_buf_printf(out, " (line %u)", line);
	}
	kl_buf_putc(out, '\n');
}

/* v, or the value it stands for if it is an alias. */
static inline uint32_t
unalias(const kl_func *f, uint32_t v)
{
	if (KL_LIKELY(v >= f->nvalues || f->values[v].kind != VK_ALIAS))
		return v;
	uint32_t r = value_resolve(f, v);
	return r != KL_NONE ? r : v;
}

static void
unalias_list(kl_func *f, uint32_t list, uint32_t from)
{
	uint32_t n = list_len(&f->pool, list);
	uint32_t *e = list_elems(&f->pool, list);
	for (uint32_t k = from; k < n; k++)
		e[k] = unalias(f, e[k]);
}

/* Resolve the aliases among the operands and branch arguments of i. The
 * formats with operands in the instruction itself come first: they are
 * nearly all the instructions. */
static void
unalias_inst(kl_func *f, uint32_t i)
{
	kl_inst_data *d = &f->insts[i];
	switch (kl_op_table[d->op].format) {
	case KL_FMT_UNARY:
	case KL_FMT_BINARY_IMM:
	case KL_FMT_ICMP_IMM:
	case KL_FMT_LOAD:
	case KL_FMT_ALLOCA_DYN:
		d->w[1] = unalias(f, d->w[1]);
		return;
	case KL_FMT_BINARY:
	case KL_FMT_ICMP:
	case KL_FMT_FCMP:
		d->w[1] = unalias(f, d->w[1]);
		d->w[2] = unalias(f, d->w[2]);
		return;
	case KL_FMT_STORE:
		d->w[0] = unalias(f, d->w[0]);
		d->w[1] = unalias(f, d->w[1]);
		return;
	case KL_FMT_JUMP:
		unalias_list(f, d->w[0], 1);
		return;
	case KL_FMT_BRIF:
		d->w[0] = unalias(f, d->w[0]);
		unalias_list(f, d->w[1], 1);
		unalias_list(f, d->w[2], 1);
		return;
	default: {
		uint32_t n;
		uint32_t *args = inst_args_mut(f, i, &n);
		for (uint32_t k = 0; k < n; k++)
			args[k] = unalias(f, args[k]);
		const uint32_t *dests;
		uint32_t nd = inst_dests(f, i, &dests);
		for (uint32_t k = 0; k < nd; k++)
			unalias_list(f, dests[k], 1);
		return;
	}
	}
}

/*
 * The last walk over the function: remove the promoted allocas and the
 * address arithmetic that only fed them and, when loads became aliases,
 * resolve the aliases in every operand of what remains (what
 * func_resolve_aliases does, without a second walk over the function).
 */
static void
finish(promoter *p)
{
	kl_func *f = p->f;
	bool aliases = p->made_aliases;
	for (uint32_t b = f->first_block; b != KL_NONE; b = f->blocks[b].next) {
		uint32_t next;
		for (uint32_t i = f->blocks[b].first; i != KL_NONE; i = next) {
			next = f->nodes[i].next;
			const kl_inst_data *d = &f->insts[i];
			if ((d->op == KL_OP_ALLOCA || d->op == KL_OP_IADD_IMM) &&
			    d->w[0] < p->nvalues) {
				uint32_t a = p->addr.a[d->w[0]];
				if (a < p->nallocas &&
				    p->allocas[a].reason == PROMOTED) {
					layout_remove_inst(f, i);
					continue;
				}
			}
			if (aliases)
				unalias_inst(f, i);
		}
	}
}

/* The state kept between functions (in a pass report) and freed once. */
static void
promoter_free(void *state)
{
	promoter *p = state;
	kl_cfg_free(p->cfg);
	kl_domtree_free(p->dt);
	kl_domfront_free(p->df);
	kl_idf_free(p->idf);
	free(p->allocas);
	free(p->acc);
	free(p->slots);
	free(p->phis);
	free(p->fixups);
	free(p->edges);
	free(p->incoming);
	free(p->log);
	free(p->stack);
	free(p->addr_off);
	scratch *all[] = { &p->addr, &p->derived, &p->next_derived, &p->queue,
			   &p->block_acc, &p->block_nacc, &p->slot_acc,
			   &p->slot_start, &p->by_alloca, &p->alloca_start,
			   &p->sort_tmp, &p->by_block, &p->block_phi,
			   &p->block_nphi, &p->queued, &p->placed, &p->work,
			   &p->edge_start, &p->edge_order, &p->phi_pos,
			   &p->args, &p->cur };
	for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
		free(all[k]->a);
	kl_arena_free(&p->arena);
	free(p);
}

static promoter *
promoter_new(void)
{
	promoter *p = kl_calloc(1, sizeof *p);
	p->cfg = kl_cfg_new();
	p->dt = kl_domtree_new();
	p->df = kl_domfront_new();
	p->idf = kl_idf_new();
	return p;
}

/* Start on f: keep the buffers, forget the previous function. */
static void
promoter_begin(promoter *p, kl_func *f, kl_pass_report *rep)
{
	p->f = f;
	p->rep = rep;
	p->nvalues = f->nvalues;
	p->nblocks = f->nblocks;
	p->nallocas = p->nacc = p->nslots = p->nphis = 0;
	p->nfixups = p->nedges = p->nincoming = p->nlog = 0;
	p->made_aliases = false;
	p->calls_setjmp = false;
	p->have_dt = false;
	for (uint32_t t = 0; t < KL_TYPE_BUILTIN_COUNT; t++)
		p->zero[t] = KL_NONE;
	kl_builder_init(&p->b, f);
}

/*
 * Ask for a function's tables before they are walked. A function's IR is
 * usually cold (the module was parsed and verified before), and the walks
 * follow the layout links, one dependent load after another; with the
 * lines already on their way, most of those loads hit (5% off the pass's
 * time on many small functions).
 */
static void
prefetch_tables(const kl_func *f)
{
#if defined(__GNUC__)
	/* A large function's tables do not fit in the cache at once; they
	 * are read in order, which the hardware prefetches on its own. */
	if (f->ninsts > 4096)
		return;
	for (uint32_t i = 0; i < f->ninsts; i += 4) {
		__builtin_prefetch(&f->nodes[i]);
		__builtin_prefetch(&f->insts[i]);
	}
	for (uint32_t v = 0; v < f->nvalues; v += 8)
		__builtin_prefetch(&f->values[v]);
	for (uint32_t b = 0; b < f->nblocks; b += 2)
		__builtin_prefetch(&f->blocks[b]);
	for (uint32_t k = 0; k < f->pool.len; k += 16)
		__builtin_prefetch(&f->pool.data[k]);
#else
	(void)f;
#endif
}

/* The CFG and dominator tree of the function, computed on first need. */
static void
need_domtree(promoter *p)
{
	if (p->have_dt)
		return;
	kl_cfg_compute(p->cfg, p->f);
	kl_domtree_compute(p->dt, p->f, p->cfg);
	p->have_dt = true;
}

kl_status
kl_promote_func(kl_func *f, kl_pass_report *rep)
{
	if (f->first_block == KL_NONE)
		return KL_OK;
	promoter *p = rep ? rep->state : NULL;
	if (!p) {
		p = promoter_new();
		if (rep) {
			KL_ASSERT(!rep->state_free);
			rep->state = p;
			rep->state_free = promoter_free;
		}
	}
	promoter_begin(p, f, rep);
	prefetch_tables(f);
	/* Verified IR is walked once (scan); anything else is checked for
	 * strict SSA before its accesses are looked at. */
	bool verified = rep && rep->input_verified;
	if (verified) {
		clear_addresses(p);
		if (!walk(p, true)) {
			p->nallocas = p->nacc = 0;
			p->calls_setjmp = false;
			find_addresses(p);
			walk(p, false);
		}
	} else {
		find_addresses(p);
	}
	if (p->nallocas == 0) {
		if (!rep)
			promoter_free(p);
		return KL_OK;
	}

	enum kept_reason whole = PROMOTED;
	if (p->calls_setjmp) {
		whole = KEPT_SETJMP;
	} else if (!verified) {
		need_domtree(p);
		if (!strict_ssa(p))
			whole = KEPT_NOT_SSA;
	}
	if (whole != PROMOTED) {
		/* What scan found about escapes does not count then. */
		for (uint32_t a = 0; a < p->nallocas; a++) {
			alloca_info *ai = &p->allocas[a];
			ai->reason = ai->own_reason;
			if (ai->reason == PROMOTED)
				ai->reason = (uint8_t)whole;
			ai->why_inst = KL_NONE;
		}
	} else {
		if (!verified)
			walk(p, false);
		make_slots(p);
	}

	if (p->nslots) {
		need_domtree(p);
		kl_domfront_compute(p->df, f, p->cfg, p->dt);
		place_params(p); /* may keep allocas past its budget */
		count(p, COUNT_SLOTS, p->nslots);
		rename_all(p);
		prune_params(p);
	}
	uint32_t promoted = 0, kept = 0;
	for (uint32_t a = 0; a < p->nallocas; a++) {
		if (p->allocas[a].reason == PROMOTED) {
			promoted++;
		} else {
			kept++;
			if (rep && rep->verbose)
				note_kept(p, &p->allocas[a]);
		}
	}
	/* Also when no slot was made: an alloca nothing reads or writes is
	 * promoted all the same, and must go. */
	if (promoted)
		finish(p);
	count(p, COUNT_PROMOTED, promoted);
	count(p, COUNT_KEPT, kept);
	kl_status st = kl_builder_status(&p->b);
	if (!rep)
		promoter_free(p);
	return st;
}

uint32_t
kl_promote_module(kl_module *m, kl_pass_report *rep)
{
	kl_pass_report own = { 0 };
	bool mine = rep == NULL;
	if (mine)
		rep = &own;
	uint32_t remaining = 0;
	for (uint32_t s = 0; s < m->nsyms; s++) {
		kl_func *f = m->syms[s].func;
		if (!f)
			continue;
		kl_promote_func(f, rep);
		for (uint32_t b = f->first_block; b != KL_NONE;
		     b = f->blocks[b].next)
			for (uint32_t i = f->blocks[b].first; i != KL_NONE;
			     i = f->nodes[i].next)
				remaining += f->insts[i].op == KL_OP_ALLOCA ||
					     f->insts[i].op == KL_OP_ALLOCA_DYN;
	}
	if (mine)
		kl_pass_report_free(&own);
	return remaining;
}
