/*
 * promote_find.c -- the promote pass's look at a function before it
 * changes anything: is it in strict SSA form, which allocas are there,
 * which addresses derive from them, which loads and stores use them, and
 * which of the allocas can be promoted, in which slots.
 */
#include <stdlib.h>

#include "promote.h"

/* ---- strict SSA ---- */

/*
 * Every value defined once, by what its table entry says, and every use in
 * a reachable block dominated by its definition (a branch argument is used
 * at the branch). One pass over the function with the dominator tree's
 * O(1) interval test inlined: this check runs on every function the pass
 * sees unverified, so it must cost little more than reading the operands.
 */
static bool
use_ok(const promoter *p, const kl_domtree *dt, uint32_t use_inst,
       uint32_t use_block, uint32_t v)
{
	const kl_func *f = p->f;
	if (v >= f->nvalues)
		return false;
	const kl_value_data *d = &f->values[v];
	if (KL_UNLIKELY(d->kind == VK_ALIAS)) {
		v = chain_end(p, v);
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

/* A use in a block nothing reaches needs no dominating definition, but
 * it must name a value that has one: the pass reads its type. */
static bool
defined(const promoter *p, uint32_t v)
{
	const kl_func *f = p->f;
	uint32_t r = v < f->nvalues ? chain_end(p, v) : KL_NONE;
	if (r >= f->nvalues)
		return false;
	unsigned kind = f->values[r].kind;
	return kind == VK_RESULT || kind == VK_PARAM;
}

/*
 * Is the function in strict SSA form (PROMOTED), and is its control flow
 * what the pass's own dominance facts assume? They read a block's
 * successors off its last instruction, so a branch elsewhere in a block
 * is KEPT_MALFORMED, as is a branch into the entry block: that block's
 * allocas would run more than once, and its parameters are the
 * function's. The verifier rejects both; the pass sees them only when
 * the caller did not run it.
 */
enum kept_reason
promote_check_form(promoter *p)
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
			    f->values[v].kind != VK_PARAM ||
			    f->values[v].def != b)
				return KEPT_NOT_SSA;
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
					return KEPT_NOT_SSA;
				seen[v] = 1;
			}
			const uint32_t *dests;
			uint32_t nd = inst_dests(f, i, &dests);
			if (nd && i != f->blocks[b].last)
				return KEPT_MALFORMED;
			for (uint32_t k = 0; k < nd; k++)
				if (dest_block(&f->pool, dests[k]) ==
				    f->first_block)
					return KEPT_MALFORMED;
			const uint32_t *args;
			uint32_t n = inst_args(f, i, &args);
			for (uint32_t k = 0; k < n; k++)
				if (reachable ? !use_ok(p, dt, i, b, args[k])
					      : !defined(p, args[k]))
					return KEPT_NOT_SSA;
			for (uint32_t k = 0; k < nd; k++) {
				uint32_t *dargs;
				uint32_t na = dest_args(&f->pool, dests[k],
							&dargs);
				for (uint32_t j = 0; j < na; j++)
					if (reachable
					    ? !use_ok(p, dt, i, b, dargs[j])
					    : !defined(p, dargs[j]))
						return KEPT_NOT_SSA;
			}
		}
	}
	return PROMOTED;
}

/* ---- finding allocas, addresses and accesses ---- */

/* Is v an address (derived from an alloca)? Then the value it resolves
 * to, whose address_info says where it points; else KL_NONE. */
static inline uint32_t
address_of(const promoter *p, uint32_t v)
{
	if (v >= p->nvalues)
		return KL_NONE;
	const uint8_t *mark = value_marks(p);
	if (KL_LIKELY(mark[v] != ALIASED))
		return mark[v] == ADDRESS ? v : KL_NONE;
	uint32_t r = chain_end(p, v);
	if (r >= p->nvalues)
		return KL_NONE;
	return mark[r] == ADDRESS ? r : KL_NONE;
}

/* Operand v of inst may be an address (or an alias of one): it escapes. */
static void
escape(promoter *p, uint32_t v, uint32_t inst)
{
	uint32_t r = address_of(p, v);
	if (r == KL_NONE)
		return;
	alloca_info *a = &p->allocas[p->address[r].alloca];
	if (a->reason == PROMOTED) {
		a->reason = KEPT_ESCAPES;
		a->why_inst = inst;
	}
}

/* The test inline, the rare rest out of the way: most operands are no
 * address. Is v marked (an address, an alias or a load's result)? */
static inline bool
check_escape(promoter *p, uint32_t v, uint32_t inst)
{
	if (v < p->nvalues && KL_UNLIKELY(value_marks(p)[v] != 0)) {
		escape(p, v, inst);
		return true;
	}
	return false;
}

/* Every value starts as no address; aliases (rare: most functions have
 * none, and say so) are marked so that a use knows to follow them, in
 * the same branch-free pass. */
void
promote_clear_addresses(promoter *p)
{
	kl_func *f = p->f;
	uint32_t nv = p->nvalues;
	/* nv + 2 bytes: mark[nv] is 0 for "no operand", mark[nv + 1] a
	 * byte the walk writes instead of a branch (promote_walk). */
	uint8_t *mark = (uint8_t *)room_whole(&p->marks,
					      ((uint64_t)nv + 5) / 4);
	/* Only addresses write theirs: a few pages in use, which must not
	 * be huge pages (kl_grow's), each zeroed whole. */
	if (nv + 1 > p->address_cap) {
		p->address_cap = kl_grown_cap(p->address_cap, (uint64_t)nv + 1);
		free(p->address);
		p->address = kl_malloc((size_t)p->address_cap *
				       sizeof *p->address);
	}
	/* mark[nv] stays 0: promote_walk reads it for "no operand". */
	p->nusers = 0;
	p->chain_table = NULL;
	bool aliases = false;
	if (!f->has_aliases) {
		memset(mark, 0, (size_t)nv + 1);
		p->had_aliases = false;
		return;
	}
	for (uint32_t v = 0; v < nv; v++) {
		bool alias = f->values[v].kind == VK_ALIAS;
		mark[v] = alias ? ALIASED : 0;
		aliases |= alias;
	}
	mark[nv] = 0;
	p->had_aliases = aliases;
	if (aliases) {
		p->chain_table = func_resolve_table(f, &p->chain_buf,
						    &p->chain_cap);
		p->nchain = nv;
	}
}

/* v is an address into alloca a, at offset. */
static void
set_address(promoter *p, uint32_t v, uint32_t a, int64_t offset)
{
	value_marks(p)[v] = ADDRESS;
	p->address[v] = (address_info){ offset, a };
}

/* An alloca: recorded, and its result made an address when follow. */
static KL_ALWAYS_INLINE void
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
	a->naccesses = 0;
	a->varied = false;
	a->types = 0;
	if (follow && d->w[0] < p->nvalues)
		set_address(p, d->w[0], p->nallocas, 0);
	p->nallocas++;
}

/* The family of a load or store opcode. */
static uint8_t
access_form(kl_opcode op)
{
	switch (op) {
	case KL_OP_LOAD:
		return ACC_LOAD;
	case KL_OP_ULOAD8:
	case KL_OP_ULOAD16:
	case KL_OP_ULOAD32:
		return ACC_ULOAD;
	case KL_OP_SLOAD8:
	case KL_OP_SLOAD16:
	case KL_OP_SLOAD32:
		return ACC_SLOAD;
	case KL_OP_STORE:
		return ACC_STORE;
	case KL_OP_ISTORE8:
	case KL_OP_ISTORE16:
	case KL_OP_ISTORE32:
		return ACC_ISTORE;
	default: /* the walk sends only the formats LOAD and STORE */
		KL_UNREACHABLE();
	}
}

/*
 * What the walk records of a load or store i through address r
 * (resolved): what it writes for every instruction of its common path,
 * counting it only for an access. A store's value may_alias when the
 * walk found it marked as an alias or a loaded value. describe_accesses
 * does the rest.
 */
static KL_ALWAYS_INLINE void
record_access(access *a, uint32_t i, uint32_t r, bool may_alias)
{
	a->inst = i;
	a->alloca = r; /* the address, until describe_accesses */
	a->may_alias = may_alias;
}

/*
 * The rest of each access the walk recorded, in layout order: its alloca,
 * family, value, width and class, and what promote_make_slots reads of its
 * alloca (the first access's offset and width, whether others differ,
 * the types). A loop of its own, without a branch on whether the access
 * is a load or a store: they come in no order a predictor could learn.
 */
static void
describe_accesses(promoter *p)
{
	kl_func *f = p->f;
	const kl_module *m = f->module;
	const kl_inst_data *insts = f->insts;
	const address_info *address = p->address;
	alloca_info *allocas = p->allocas;
	access *acc = p->acc;
	uint32_t nacc = p->nacc;
	/* A big function's instructions are out of the cache again by now
	 * (the walk has read the rest of the function since), and its
	 * values too: asked for ahead, each instruction twice as far as
	 * the value it names (read off the instruction, there by then). */
	uint32_t ahead_end = p->tiny ? 0 : nacc;
	for (uint32_t k = 0; k < nacc; k++) {
		if (k + 2 * PREFETCH_AHEAD < ahead_end)
			KL_PREFETCH(&insts[acc[k + 2 * PREFETCH_AHEAD].inst]);
		if (k + PREFETCH_AHEAD < ahead_end) {
			uint32_t w = insts[acc[k + PREFETCH_AHEAD].inst].w[0];
			KL_PREFETCH(&f->values[w < f->nvalues ? w : 0]);
		}
		access *a = &acc[k];
		uint32_t i = a->inst;
		const kl_inst_data *d = &insts[i];
		const address_info *at = &address[a->alloca];
		int64_t offset = offset_add(at->offset, (int32_t)d->w[2]);
		uint32_t v = d->w[0];
		uint8_t form = access_form(d->op);
		bool is_store = form >= ACC_STORE;
		/* A load's result is no alias: resolving it changes nothing,
		 * and spares a branch on the family. */
		kl_type t = value_type(f, resolve(p, v));
		uint32_t memw = kl_op_table[d->op].memw;
		uint32_t w = memw ? memw : type_bytes(m, t);
		/* Every type's machine class is at most 8 bytes wide. */
		KL_ASSERT(w <= 8);
		access x = { .inst = i,
			     .value = v,
			     .alloca = at->alloca,
			     .width = (uint8_t)w,
			     .cls = (uint8_t)type_class(m, t),
			     .form = form,
			     .may_alias = is_store & a->may_alias };
		*a = x;
		/* Counted here for promote_make_slots, which sorts only the
		 * allocas accessed at more than one (offset, width). */
		alloca_info *ai = &allocas[x.alloca];
		ai->types |= (uint8_t)type_bits(&x);
		bool first = ai->naccesses++ == 0;
		int64_t offset0 = first ? offset : ai->offset0;
		uint32_t width0 = first ? w : ai->width0;
		ai->varied |= (offset != offset0) | (w != width0);
		ai->offset0 = offset0;
		ai->width0 = width0;
		ai->inst0 = first ? i : ai->inst0;
	}
}

static bool
check_dest_escapes(promoter *p, uint32_t dest, uint32_t inst)
{
	uint32_t *args;
	uint32_t n = dest_args(&p->f->pool, dest, &args);
	bool marked = false;
	for (uint32_t k = 0; k < n; k++)
		marked |= check_escape(p, args[k], inst);
	return marked;
}

/* iadd_imm i (entry: it is in the entry block): its result is an address
 * if its operand is one. False if that happens outside the entry block
 * (see promote_walk). */
static bool
derive(promoter *p, uint32_t i, bool entry)
{
	const kl_inst_data *d = &p->f->insts[i];
	uint32_t x = address_of(p, d->w[1]);
	if (x == KL_NONE || d->w[0] >= p->nvalues)
		return true;
	if (!entry)
		return false;
	set_address(p, d->w[0], p->address[x].alloca,
		    offset_add(p->address[x].offset, inst_imm(p->f, i)));
	p->derives.a[p->nderives++] = i;
	return true;
}

/* The masks of the walk's kinds name operands in w1 and w2 only. */
_Static_assert(!(WALK_W1 & 1) && !(WALK_W1_W2 & 1), "w0 is a result");
#define WALK_KIND_CONST 0
#define WALK_KIND_SYMBOL 0
#define WALK_KIND_TRAP 0
#define WALK_KIND_UNARY WALK_W1
#define WALK_KIND_BINARY_IMM WALK_W1
#define WALK_KIND_ICMP_IMM WALK_W1
#define WALK_KIND_BINARY WALK_W1_W2
#define WALK_KIND_ICMP WALK_W1_W2
#define WALK_KIND_FCMP WALK_W1_W2
#define WALK_KIND_LOAD WALK_LOAD
#define WALK_KIND_STORE WALK_STORE
#define WALK_KIND_ALLOCA WALK_ALLOCA
#define WALK_KIND_ALLOCA_DYN WALK_ALLOCA_DYN
#define WALK_KIND_JUMP WALK_JUMP
#define WALK_KIND_BRIF WALK_BRIF
#define WALK_KIND_CALL WALK_CALL
#define WALK_KIND_TERNARY WALK_TERNARY
#define WALK_KIND_CALL_INDIRECT WALK_OTHER
#define WALK_KIND_BR_TABLE WALK_OTHER
#define WALK_KIND_RETURN WALK_RETURN

const uint8_t promote_walk_kind[KL_OP_COUNT] = {
#define KL_OPCODE(name, text, fmt, nres, typing, ctrl, memw, flags)          \
	[KL_OP_##name] = KL_OP_##name == KL_OP_IADD_IMM ? WALK_DERIVE        \
							: WALK_KIND_##fmt,
#include "keel_opcodes.def"
#undef KL_OPCODE
};

/* Is v marked ALIASED or LOADED: may it be an alias when finish runs? */
static inline bool
alias_mark(const uint8_t *mark, uint32_t nv, uint32_t v)
{
	return v < nv && (mark[v] & (ALIASED | LOADED));
}

/* The values of a list (a call's arguments, a return's values, a
 * select's operands), checked for escapes: one OR of their marks, each
 * looked at only when it holds an address or an alias (their marks are
 * mostly a loaded value's, or none). Is one marked? */
static KL_ALWAYS_INLINE bool
check_list_escapes(promoter *p, uint32_t list, uint32_t inst)
{
	const kl_pool *pool = &p->f->pool;
	uint32_t n = list_len(pool, list);
	if (n == 0)
		return false;
	const uint32_t *vals = list_elems(pool, list);
	const uint8_t *mark = value_marks(p);
	uint32_t nv = p->nvalues;
	unsigned m = 0;
	for (uint32_t k = 0; k < n; k++)
		m |= mark[vals[k] < nv ? vals[k] : nv];
	if (KL_UNLIKELY(may_hold_address(m)))
		for (uint32_t k = 0; k < n; k++)
			check_escape(p, vals[k], inst);
	return m != 0;
}

/* Every operand and branch argument of i, checked for escapes; is one
 * marked? */
static bool
check_all_escapes(promoter *p, uint32_t i)
{
	kl_func *f = p->f;
	bool marked = false;
	const uint32_t *args;
	uint32_t n = inst_args(f, i, &args);
	for (uint32_t a = 0; a < n; a++)
		marked |= check_escape(p, args[a], i);
	const uint32_t *dests;
	uint32_t nd = inst_dests(f, i, &dests);
	for (uint32_t a = 0; a < nd; a++)
		marked |= check_dest_escapes(p, dests[a], i);
	return marked;
}

/* The operands of i that the mask k names, checked for escapes. */
static void
check_masked(promoter *p, uint32_t i, const kl_inst_data *d, unsigned k)
{
	for (unsigned w = 0; w < 3; w++)
		if (k & (1u << w))
			check_escape(p, d->w[w], i);
}

/* v, or nv when v is no value of the function: a verified function's
 * operands are all values (in_range), anyone else's are checked. */
static inline uint32_t
value_or_none(uint32_t v, uint32_t nv, bool in_range)
{
	return in_range || v < nv ? v : nv;
}

/* a if bit is not 0, else b: a choice of values, which the compiler makes
 * with a conditional move (the walk's common path has no branch on the
 * kind; written with masks instead, it ran 5% slower). */
static inline uint32_t
pick(unsigned bit, uint32_t a, uint32_t b)
{
	return bit ? a : b;
}

/*
 * Instruction i on the walk's common path (see walk below): false, having
 * changed nothing, if it is not that simple. The lists' ends move past
 * what it adds to them.
 */
static KL_ALWAYS_INLINE bool
walk_common(const kl_inst_data *d, uint8_t *mark, uint32_t nv, uint32_t i,
	    bool in_range, uint32_t **users, access **acc)
{
	unsigned k = promote_walk_kind[d->op];
	if (KL_LIKELY(k < WALK_SIMPLE)) {
		uint32_t v0 = value_or_none(d->w[0], nv, in_range);
		uint32_t v1 = value_or_none(d->w[1], nv, in_range);
		uint32_t v2 = value_or_none(d->w[2], nv, in_range);
		unsigned m = mark[pick(k & WALK_W0, v0, nv)] |
			     mark[pick(k & WALK_W1, v1, nv)] |
			     mark[pick(k & WALK_W2, v2, nv)];
		uint32_t r = pick(k & WALK_ACCESS, v1, nv);
		unsigned is_access = (k / WALK_ACCESS) & 1;
		unsigned odd = (m & (ADDRESS | ALIASED)) |
			       (mark[r] ^ is_access);
		if (KL_LIKELY(odd == 0)) {
			**users = i;
			*users += m != 0;
			record_access(*acc, i, r, m != 0);
			*acc += is_access;
			/* A result out of range marks the spare byte too. */
			uint32_t res = in_range || d->w[0] < nv ? d->w[0]
								: nv + 1;
			mark[pick(k & WALK_LOADS, res, nv + 1)] = LOADED;
			return true;
		}
	}
	return false;
}

/*
 * Instruction i of block b (entry: the entry block), which is not on the
 * common path, as the walk below takes it (its lists: users and
 * accesses); false if the walk must give up.
 */
static KL_ALWAYS_INLINE bool
walk_other(promoter *p, const kl_inst_data *insts, uint8_t *mark,
	   uint32_t nv, uint32_t i, uint32_t b, bool entry, bool defs,
	   bool in_range, uint32_t **users, access **acc)
{
	kl_func *f = p->f;
	const kl_inst_data *d = &insts[i];
	unsigned k = promote_walk_kind[d->op];
	bool marked = false;
	switch (k) {
	/* (Kind 0 names no word: it never leaves the common path.) */
	case WALK_W1:
	case WALK_W1_W2:
		/* An operand holds an address or alias. */
		check_masked(p, i, d, k);
		marked = true;
		break;
	case WALK_STORE:
	case WALK_LOAD: {
		/* An address or alias stored, or an access through something
		 * else than an address. */
		uint32_t v = value_or_none(d->w[0], nv, in_range);
		unsigned vm = k == WALK_STORE ? mark[v] : 0;
		bool stored_marked = vm & (ALIASED | LOADED);
		marked = stored_marked | alias_mark(mark, nv, d->w[1]);
		if (k == WALK_STORE)
			check_escape(p, d->w[0], i);
		uint32_t r = address_of(p, d->w[1]);
		if (r == KL_NONE)
			break;
		KL_ASSERT(*acc < p->acc + p->acc_cap);
		record_access((*acc)++, i, r, stored_marked);
		mark[k == WALK_LOAD && v < nv ? v : nv + 1] = LOADED;
		break;
	}
	case WALK_DERIVE:
		if (defs && !derive(p, i, entry))
			return false;
		marked = alias_mark(mark, nv, d->w[1]);
		break;
	case WALK_ALLOCA:
		if (defs)
			add_alloca(p, i, b, entry);
		return true;
	case WALK_ALLOCA_DYN:
		if (defs)
			add_alloca(p, i, b, false);
		marked = check_escape(p, d->w[1], i);
		break;
	/* Most destinations pass no argument, and say so in their word
	 * (DEST_BLOCK): no call for them. */
	case WALK_JUMP:
		if (!(d->w[0] & DEST_BLOCK))
			marked = check_dest_escapes(p, d->w[0], i);
		break;
	case WALK_BRIF:
		marked = check_escape(p, d->w[0], i);
		if (!(d->w[1] & DEST_BLOCK))
			marked |= check_dest_escapes(p, d->w[1], i);
		if (!(d->w[2] & DEST_BLOCK))
			marked |= check_dest_escapes(p, d->w[2], i);
		break;
	case WALK_CALL:
		if (defs)
			p->calls_setjmp |=
				module_returns_twice(f->module, d->w[1]);
		marked = check_list_escapes(p, d->w[2], i);
		break;
	case WALK_RETURN:
		marked = check_list_escapes(p, d->w[0], i);
		break;
	case WALK_TERNARY:
		marked = check_list_escapes(p, d->w[1], i);
		break;
	default:
		marked = check_all_escapes(p, i);
		break;
	}
	**users = i;
	*users += marked;
	return true;
}

/*
 * One walk over the layout finds every use of an address: the address of
 * a load or store is an access, any other use (but the operand of an
 * iadd_imm, whose result is an address itself) an escape.
 *
 * The walk also marks the result of each load through an address LOADED
 * and lists the instructions with a marked operand (users): the only ones
 * whose operands can become aliases, which finish resolves. A use laid
 * out before its definition escapes the list; finish knows when that can
 * happen (defs_before_uses, promote.c).
 *
 * Nearly every instruction is an operation with its operands in its words,
 * a load or a store, and they come in no order a branch predictor could
 * learn: they share one path without a branch on their kind (kinds below
 * WALK_SIMPLE). The marks of the operands that may escape are ORed
 * (those of the words the kind does not name read mark[nv], which is 0);
 * an access's address must be marked an address, and is read the same
 * way. When nothing there is unusual (no address or alias that may
 * escape, no access through anything but an address), the instruction is
 * listed as a user if an operand is marked, and recorded as an access,
 * each by moving the end of a list or not, and a load's result is marked
 * (another kind marks the byte after mark[nv], never read). Anything else
 * goes to the cases of walk_other with the other kinds. The common path
 * is a loop of its own, left at the first instruction it does not take:
 * with the slow cases inside the same loop, the compiler kept fewer of
 * its values in registers (3% more instructions, 3% slower).
 *
 * With defs, the same walk finds the allocas and the addresses derived
 * from them. Only the static allocas of the entry block can be promoted,
 * so only their addresses are followed. That is exact when each address
 * is defined before its uses in the layout: the entry block comes first,
 * and inside a block a definition comes before its uses (verified SSA).
 * An address derived in another block may be used in a block laid out
 * before it: then the walk gives up (false), and promote_find_addresses
 * and a walk without defs take over.
 *
 * With read_succ (a big verified function: one copy of the walk of its
 * own, so that the others' loop keeps its registers), the walk also
 * reads the successors of each block for the dominance facts, once the
 * entry block has shown allocas.
 */
static KL_ALWAYS_INLINE bool
walk(promoter *p, bool defs, bool in_range, bool read_succ)
{
	_Static_assert(ADDRESS == 1 && WALK_ACCESS == 8,
		       "an access expects the mark (k / WALK_ACCESS) & 1");
	kl_func *f = p->f;
	const uint32_t nv = p->nvalues;
	uint8_t *mark = value_marks(p);
	uint64_t nb = (uint64_t)p->nblocks + 1;
	uint32_t *block_acc = room_whole(&p->block_acc, nb);
	uint32_t *block_nacc = room_whole(&p->block_nacc, nb);
	/* An access is an instruction; so is a derived address. The common
	 * path writes a record past the last for every instruction. */
	KL_ASSERT(p->nacc == 0 && (!defs || p->nderives == 0));
	reserve_fresh(&p->acc, &p->acc_cap, sizeof *p->acc,
		      (uint64_t)f->ninsts + 1);
	if (defs)
		room(&p->derives, (uint64_t)f->ninsts + 1);
	/* The ends of the lists, moved by the walk: a register each, not a
	 * base and a count (the walk's loop is short of registers). */
	uint32_t *users = room(&p->users, (uint64_t)f->ninsts + 1);
	access *acc = p->acc;
	/* The walk changes no table of f: read their places once. */
	const kl_inst_data *insts = f->insts;
	const kl_inst_node *nodes = f->nodes;
	bool succ = false; /* have_successors stays false if this gives up */
	for (uint32_t b = f->first_block; b != KL_NONE; b = f->blocks[b].next) {
		uint32_t nacc = (uint32_t)(acc - p->acc);
		block_acc[b] = nacc;
		bool entry = b == f->first_block;
		/* The terminator apart: a block's end is no pattern a
		 * predictor learns, and it costs one guess (the loop's exit)
		 * instead of two. */
		uint32_t last = f->blocks[b].last;
		uint32_t i = f->blocks[b].first;
		for (;;) {
			/* The common path in a loop of its own: it keeps
			 * only its own values in registers. */
			while (i != last && walk_common(&insts[i], mark, nv, i,
							in_range, &users, &acc))
				i = nodes[i].next;
			if (i == last)
				break;
			if (!walk_other(p, insts, mark, nv, i, b, entry, defs,
					in_range, &users, &acc))
				return false;
			i = nodes[i].next;
		}
		if (last != KL_NONE &&
		    !walk_common(&insts[last], mark, nv, last, in_range,
				 &users, &acc) &&
		    !walk_other(p, insts, mark, nv, last, b, entry, defs,
				in_range, &users, &acc))
			return false;
		block_nacc[b] = (uint32_t)(acc - p->acc) - nacc;
		/* Once the entry block has shown allocas, a big verified
		 * function's successors are read here, each terminator
		 * while it is in the cache. */
		if (KL_UNLIKELY(entry)) {
			succ = read_succ && p->nallocas;
			if (succ)
				promote_dom_read_begin(&p->dom, f);
		}
		if (succ)
			promote_dom_read_block(&p->dom, f, b);
	}
	p->dom.have_successors = succ;
	p->nusers = (uint32_t)(users - p->users.a);
	p->nacc = (uint32_t)(acc - p->acc);
	describe_accesses(p);
	return true;
}

bool
promote_walk(promoter *p, bool defs)
{
	/* Two copies of the walk: a verified function's operands need no
	 * check that they are values (two fewer compares an instruction). */
	if (!p->rep || !p->rep->input_verified)
		return walk(p, defs, false, false);
	if (p->tiny)
		return walk(p, defs, true, false);
	return walk(p, defs, true, true);
}

/* Allocas, and the iadd_imm chains that derive addresses from them, in
 * any order of the layout. */
void
promote_find_addresses(promoter *p)
{
	kl_func *f = p->f;
	uint32_t nv = p->nvalues;
	promote_clear_addresses(p);
	const uint8_t *mark = value_marks(p);
	/* derived[v]: the first iadd_imm whose operand is v; next_derived
	 * chains the others (by instruction). */
	uint32_t *derived = room(&p->derived, (uint64_t)nv + 1);
	memset(derived, 0xff, (size_t)nv * sizeof *derived);
	uint32_t *next_derived = room(&p->next_derived,
				      (uint64_t)f->ninsts + 1);
	uint32_t *queue = room(&p->queue, (uint64_t)nv + 1);
	uint32_t *derives = room(&p->derives, (uint64_t)f->ninsts + 1);
	uint32_t qn = 0;
	for (uint32_t b = f->first_block; b != KL_NONE; b = f->blocks[b].next) {
		for (uint32_t i = f->blocks[b].first; i != KL_NONE;
		     i = f->nodes[i].next) {
			const kl_inst_data *d = &f->insts[i];
			if (d->op == KL_OP_ALLOCA ||
			    d->op == KL_OP_ALLOCA_DYN) {
				/* Queued once, even if unverified IR has two
				 * allocas define it (not strict SSA: the
				 * check that comes next says so). */
				bool fresh = d->w[0] < nv && mark[d->w[0]] == 0;
				add_alloca(p, i, b, true);
				if (fresh)
					queue[qn++] = d->w[0];
			} else if (d->op == KL_OP_CALL) {
				p->calls_setjmp |= module_returns_twice(
					f->module, d->w[1]);
			} else if (d->op == KL_OP_IADD_IMM) {
				uint32_t x = chain_end(p, d->w[1]);
				if (x == KL_NONE || x >= nv)
					continue;
				next_derived[i] = derived[x];
				derived[x] = i;
			}
		}
	}
	for (uint32_t q = 0; q < qn; q++) {
		uint32_t v = queue[q];
		for (uint32_t i = derived[v]; i != KL_NONE;
		     i = next_derived[i]) {
			uint32_t r = f->insts[i].w[0];
			if (r >= nv || mark[r] != 0)
				continue;
			set_address(p, r, p->address[v].alloca,
				    offset_add(p->address[v].offset,
					       inst_imm(f, i)));
			queue[qn++] = r;
			derives[p->nderives++] = i;
		}
	}
}

/* Where access x reads or writes in its alloca: the offset of its
 * address plus its own (as the walk found them; nothing has changed). */
static int64_t
access_offset(const promoter *p, const access *x)
{
	const kl_inst_data *d = &p->f->insts[x->inst];
	return offset_add(p->address[address_of(p, d->w[1])].offset,
			  (int32_t)d->w[2]);
}

/* (offset, width, layout order): the order of a varied alloca's
 * accesses, in which one offset's come together. */
static bool
key_before(const access_key *a, const access_key *b)
{
	if (a->offset != b->offset)
		return a->offset < b->offset;
	if (a->width != b->width)
		return a->width < b->width;
	return a->k < b->k;
}

/* Insertion sort for short runs, merge sort beyond. */
static void
sort_keys(access_key *v, uint32_t n, access_key *tmp)
{
	if (n < 16) {
		for (uint32_t i = 1; i < n; i++) {
			access_key x = v[i];
			uint32_t j = i;
			while (j > 0 && key_before(&x, &v[j - 1])) {
				v[j] = v[j - 1];
				j--;
			}
			v[j] = x;
		}
		return;
	}
	uint32_t h = n / 2;
	sort_keys(v, h, tmp);
	sort_keys(v + h, n - h, tmp);
	uint32_t i = 0, j = h, k = 0;
	while (i < h && j < n)
		tmp[k++] = key_before(&v[j], &v[i]) ? v[j++] : v[i++];
	while (i < h)
		tmp[k++] = v[i++];
	while (j < n)
		tmp[k++] = v[j++];
	memcpy(v, tmp, n * sizeof *v);
}

/* Slot s's type from the type bits of its accesses: float if every
 * store stores a float; with no store at all, if every load loads one. */
static void
set_slot_type(promoter *p, uint32_t s, uint32_t types)
{
	static const kl_type int_of[9] = { [1] = KL_TYPE_I8,
					   [2] = KL_TYPE_I16, [4] = KL_TYPE_I32,
					   [8] = KL_TYPE_I64 };
	slot *sl = &p->slots[s];
	uint32_t w = sl->width;
	kl_type t = w <= 8 ? int_of[w] : KL_TYPE_NONE;
	bool floats = types & TY_STORE ? !(types & TY_INT_STORED)
				       : !(types & TY_INT_LOADED);
	if (floats)
		t = w == 4 ? KL_TYPE_F32 : KL_TYPE_F64;
	KL_ASSERT(t != KL_TYPE_NONE);
	sl->type = t;
}

/* The bounds and overlap checks of an alloca's accesses, key[0 .. m)
 * sorted by offset (key[k].k: the access is acc[v[key[k].k]]). */
static void
check_slots(promoter *p, alloca_info *ai, const access_key *key,
	    const uint32_t *v, uint32_t m)
{
	for (uint32_t k = 0; k < m; k++) {
		const access_key *x = &key[k];
		if (!inside_alloca(x->offset, x->width, ai->size)) {
			ai->reason = KEPT_OUT_OF_BOUNDS;
			ai->why_inst = p->acc[v[x->k]].inst;
			return;
		}
		if (k > 0) {
			const access_key *w = &key[k - 1];
			bool same = w->offset == x->offset &&
				    w->width == x->width;
			/* w lies inside: its end cannot overflow */
			if (!same && x->offset < w->offset + w->width) {
				ai->reason = KEPT_OVERLAP;
				ai->why_inst = p->acc[v[x->k]].inst;
				ai->with_inst = p->acc[v[w->k]].inst;
				return;
			}
		}
	}
}

static uint32_t
new_slot(promoter *p, uint32_t width, uint32_t a)
{
	if (p->nslots == p->slots_cap)
		kl_grow(&p->slots, &p->slots_cap, sizeof *p->slots,
			p->nslots + 1);
	p->slots[p->nslots] = (slot){ width, KL_TYPE_NONE, a };
	return p->nslots++;
}

/* Slot s is new: its sets empty (a tiny function: sets) or its sites
 * starting at first (sstart). */
static inline void
open_slot(slot_sets *sets, uint32_t *sstart, uint32_t s, uint32_t first)
{
	if (sets)
		sets[s] = (slot_sets){ 0, 0, 0 };
	else
		sstart[s] = first;
}

/*
 * An access of slot s in block b (a store or not), in layout order: into
 * the slot's sets without a branch (a tiny function: sets), or as the
 * site at *at.
 */
static inline void
add_site(slot_sets *sets, uint32_t *site, uint32_t s, uint32_t *at,
	 uint32_t b, bool store)
{
	if (!sets) {
		site[(*at)++] = b << 1 | store;
		return;
	}
	slot_sets *x = &sets[s];
	uint64_t bit = (uint64_t)1 << b;
	uint64_t st = -(uint64_t)store; /* all ones or 0 */
	uint64_t seen = x->stores | x->loads;
	x->load_first |= bit & ~st & ~seen;
	x->stores |= bit & st;
	x->loads |= bit & ~st;
}

/*
 * Access x, of block b, gets its slot: a uniform alloca's, with its site
 * (slot_site, at fill) or sets, or the one noted in order for a varied
 * alloca's (start[a]: where a's next one is), or none.
 */
static KL_ALWAYS_INLINE void
give_slot(promoter *p, access *x, uint32_t b, const uint32_t *order,
	  uint32_t *start, slot_sets *sets, uint32_t *slot_site, uint32_t *fill)
{
	uint32_t a = x->alloca;
	const alloca_info *ai = &p->allocas[a];
	if (ai->slot == KL_NONE) {
		x->slot = KL_NONE;
	} else if (ai->varied) {
		x->slot = order[start[a]++];
	} else {
		uint32_t s = ai->slot;
		x->slot = s;
		add_site(sets, slot_site, s, fill ? &fill[s] : NULL, b,
			 access_is_store(x));
	}
}

/*
 * Group the accesses of the promotable allocas into slots: check each
 * one's (inside the allocation, no overlap, one width per offset) and
 * number the slots, alloca by alloca and in offset order within one. As
 * the slots are numbered, what placement reads of each access is
 * gathered: for a tiny function, sets of blocks per slot (slot_sets);
 * for a bigger one, the block of each access in slot_site, in slot
 * order, each slot's in layout order (the records themselves would be
 * misses in a big function).
 *
 * Most allocas are one variable, accessed whole: one slot, nothing to
 * sort, its type from the bits the walk gathered. The others' accesses
 * are sorted by (offset, width, layout order); one offset has one
 * width, so each slot's accesses come together. Then one pass over every
 * access in layout order gives each its slot (KL_NONE if its alloca is
 * kept), in place of its alloca.
 */
void
promote_make_slots(promoter *p)
{
	const kl_func *f = p->f;
	uint32_t na = p->nallocas, n = p->nacc;
	bool tiny = p->tiny;
	uint32_t *start = room(&p->alloca_start, (uint64_t)na + 1);
	uint32_t *slot_site =
		tiny ? NULL : room_whole(&p->slot_site, (uint64_t)n + 1);
	KL_ASSERT(p->nblocks <= UINT32_MAX >> 1);
	/* The varied allocas' accesses by alloca, in layout order
	 * (start[a] is a's fill pointer first), and a bound on the slots:
	 * arrays sized by what they hold, not by the accesses (a huge page
	 * zeroed for a few slots in a big function). */
	uint32_t at = 0;
	uint64_t most_slots = 0;
	for (uint32_t a = 0; a < na; a++) {
		const alloca_info *ai = &p->allocas[a];
		start[a] = at;
		at += ai->varied ? ai->naccesses : 0;
		most_slots += ai->varied ? ai->naccesses : ai->naccesses != 0;
	}
	start[na] = at;
	uint32_t *order = room(&p->by_alloca, (uint64_t)at + 1);
	uint32_t *sstart = NULL;
	slot_sets *sets = NULL;
	if (tiny) {
		reserve_fresh(&p->sets, &p->sets_cap, sizeof *p->sets,
			      most_slots + 1);
		sets = p->sets;
	} else {
		sstart = room(&p->slot_start, most_slots + 2);
	}
	for (uint32_t k = 0; at && k < n; k++)
		if (p->allocas[p->acc[k].alloca].varied)
			order[start[p->acc[k].alloca]++] = k;

	/* Slots in alloca order; a varied alloca's sites are filled now,
	 * and the slot of each of its accesses takes the access's place in
	 * order. A uniform alloca's slot gets its room. */
	uint32_t filled = 0;
	for (uint32_t a = 0; a < na; a++) {
		alloca_info *ai = &p->allocas[a];
		uint32_t m = ai->naccesses;
		ai->slot = KL_NONE;
		if (ai->reason != PROMOTED || m == 0)
			continue;
		if (!ai->varied) {
			if (!inside_alloca(ai->offset0, ai->width0, ai->size)) {
				ai->reason = KEPT_OUT_OF_BOUNDS;
				ai->why_inst = ai->inst0;
				continue;
			}
			uint32_t s = new_slot(p, ai->width0, a);
			ai->slot = s;
			set_slot_type(p, s, ai->types);
			open_slot(sets, sstart, s, filled);
			filled += m;
			continue;
		}
		start[a] -= m; /* back at a's first, for the pass below */
		uint32_t *v = order + start[a];
		reserve_fresh(&p->keys, &p->keys_cap, sizeof *p->keys, m);
		reserve_fresh(&p->keys_tmp, &p->keys_tmp_cap,
			      sizeof *p->keys_tmp, m);
		access_key *key = p->keys;
		for (uint32_t j = 0; j < m; j++)
			key[j] = (access_key){ access_offset(p, &p->acc[v[j]]),
					       p->acc[v[j]].width, j };
		sort_keys(key, m, p->keys_tmp);
		check_slots(p, ai, key, v, m);
		if (ai->reason != PROMOTED)
			continue;
		ai->slot = p->nslots;
		uint32_t types = 0;
		for (uint32_t j = 0; j < m; j++) {
			const access *x = &p->acc[v[key[j].k]];
			if (j == 0 || key[j - 1].offset != key[j].offset) {
				if (j)
					set_slot_type(p, p->nslots - 1, types);
				open_slot(sets, sstart,
					  new_slot(p, key[j].width, a),
					  filled);
				types = 0;
			}
			uint32_t s = p->nslots - 1;
			v[key[j].k] = s;
			add_site(sets, slot_site, s, &filled,
				 f->nodes[x->inst].block, access_is_store(x));
			types |= type_bits(x);
		}
		set_slot_type(p, p->nslots - 1, types);
	}

	/* Every access in layout order: its slot, and a site or sets for
	 * a uniform alloca's. A big function's block by block as the walk
	 * recorded them, so that the block is known (reading it off the
	 * instruction's place in the layout is a cache miss an access
	 * there); a tiny function's in one loop (blocks of a few accesses:
	 * a loop each was more exits guessed wrong). */
	uint32_t *fill = NULL;
	if (!tiny) {
		sstart[p->nslots] = filled;
		fill = room(&p->sort_tmp, (uint64_t)p->nslots + 1);
		memcpy(fill, sstart, (size_t)p->nslots * sizeof *fill);
		const uint32_t *block_acc = p->block_acc.a;
		const uint32_t *block_nacc = p->block_nacc.a;
		for (uint32_t b = f->first_block; b != KL_NONE;
		     b = f->blocks[b].next) {
			access *x = p->acc + block_acc[b];
			for (uint32_t k = block_nacc[b]; k > 0; k--, x++)
				give_slot(p, x, b, order, start, NULL,
					  slot_site, fill);
		}
		return;
	}
	for (uint32_t k = 0; k < n; k++) {
		access *x = &p->acc[k];
		give_slot(p, x, f->nodes[x->inst].block, order, start, sets,
			  NULL, NULL);
	}
}

bool
promote_takes_setjmp_address(const kl_func *f)
{
	if (!f->module->nreturns_twice)
		return false;
	for (uint32_t b = f->first_block; b != KL_NONE; b = f->blocks[b].next)
		for (uint32_t i = f->blocks[b].first; i != KL_NONE;
		     i = f->nodes[i].next)
			if (f->insts[i].op == KL_OP_SYMBOL_ADDR &&
			    module_returns_twice(f->module, f->insts[i].w[1]))
				return true;
	return false;
}
