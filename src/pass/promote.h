/*
 * promote.h -- what the files of the promote pass share: the pass's
 * state, its scratch arrays and the phases each file provides.
 *
 *   promote.c         the pass: its order of phases, parameter placement,
 *                     the final walk, the report
 *   promote_find.c    strict SSA check; allocas, addresses, accesses; slots
 *   promote_rename.c  renaming along the dominator tree; pruning the
 *                     parameters and giving the survivors their values
 *   promote_tiny.c    the dominance facts of a small function, as bit sets
 *   promote_dom.c     the dominance facts of a bigger one, as arrays
 *
 * promote.c's opening comment describes the algorithm.
 */
#ifndef KEEL_PROMOTE_H
#define KEEL_PROMOTE_H

#include <stdlib.h>
#include <string.h>

#include "../analysis/analysis.h"
#include "../analysis/idoms.h"

enum kept_reason {
	PROMOTED,
	KEPT_NOT_ENTRY,
	KEPT_DYNAMIC,
	KEPT_ESCAPES,
	KEPT_OUT_OF_BOUNDS,
	KEPT_OVERLAP,
	KEPT_SETJMP,
	KEPT_NOT_SSA,
	KEPT_MALFORMED,
	KEPT_TOO_COSTLY,
	KEPT_FRONTIERS,
	KEPT_FRONTIER_WALK,
};

typedef struct alloca_info {
	uint32_t inst;
	uint32_t size;
	uint8_t reason;
	uint8_t own_reason; /* PROMOTED, or why it is kept whatever the rest */
	uint32_t why_inst;  /* the escaping use or offending access */
	uint32_t with_inst; /* KEPT_OVERLAP: the access why_inst overlaps */
	/* counted by the walk: its accesses, the first one's offset and
	 * width, and whether another one differs */
	uint32_t naccesses, inst0;
	int64_t offset0;
	uint32_t width0;
	bool varied;
	uint8_t types;  /* the TY_* bits of its accesses (type_bits) */
	uint32_t slot; /* promote_make_slots: its first slot */
} alloca_info;

/* What an access does, as renaming needs it: its opcode's family. */
enum access_form {
	ACC_LOAD,   /* load: the slot's type, or one of its width */
	ACC_ULOAD,  /* uload8/16/32: zero-extended */
	ACC_SLOAD,  /* sload8/16/32: sign-extended */
	ACC_STORE,  /* store: the stored value's width */
	ACC_ISTORE, /* istore8/16/32: the low bytes of a wider integer */
};

/*
 * A load or store through an address of an alloca. Besides what finds
 * its slot, it carries what renaming needs of its instruction (the
 * value, its type's class, the opcode's family), read in layout order
 * (the walk, then describe_accesses): renaming visits the blocks in
 * dominator-tree order, in which reading the instruction and value
 * tables of a big function is a cache miss per access. Its block and
 * offset are not kept: slot grouping, which needs them once, knows a big
 * function's block from the walk's grouping of accesses by block (a
 * small one's it reads off the instruction's place in the layout), and
 * reads the offsets only of the allocas accessed at several offsets, off
 * the instructions. 16 bytes: a big function's accesses are megabytes of
 * fresh memory.
 */
typedef struct access {
	uint32_t inst;
	uint32_t value;  /* a load's result, or the value a store stores */
	/* Its alloca, until promote_make_slots gives it its slot instead
	 * (KL_NONE: the alloca is kept). */
	union {
		uint32_t alloca;
		uint32_t slot;
	};
	uint8_t width;   /* bytes accessed: 1, 2, 4 or 8 */
	uint8_t cls;     /* the class of value's type (kl_type_class) */
	uint8_t form;    /* enum access_form */
	/* A store whose value the walk found marked as an alias or a
	 * loaded value: by renaming it may stand for another value. */
	bool may_alias;
} access;

_Static_assert(sizeof(access) == 16, "an access is 16 bytes");

/* How many records ahead the pass asks for a big function's cold ones
 * (terminators, accesses' instructions and values, users, branches):
 * enough for the misses to overlap (16 did no better in renaming). */
enum { PREFETCH_AHEAD = 8 };

/* An address's offset plus an immediate, as the machine adds them:
 * modulo 2^64 (the interpreter's pointers wrap too). A chain of
 * iadd_imm may pass the largest signed offset and come back into the
 * alloca; a signed sum would be undefined there. */
static inline int64_t
offset_add(int64_t offset, int64_t imm)
{
	return (int64_t)((uint64_t)offset + (uint64_t)imm);
}

/* Do width bytes at offset lie inside an alloca of size bytes? (No sum
 * that could overflow: offset may be anything.) */
static inline bool
inside_alloca(int64_t offset, uint32_t width, uint32_t size)
{
	return offset >= 0 && offset <= (int64_t)size - (int64_t)width;
}

/* An access of an alloca accessed at several offsets, as
 * promote_make_slots sorts them: where it reads or writes, and its place
 * among the alloca's accesses in layout order. */
typedef struct access_key {
	int64_t offset;
	uint32_t width;
	uint32_t k;
} access_key;

static inline bool
access_is_store(const access *x)
{
	return x->form >= ACC_STORE;
}

/* Is the value loaded or stored a float? */
static inline bool
access_is_float(const access *x)
{
	return x->cls == KL_TYPE_F32 || x->cls == KL_TYPE_F64;
}

/*
 * Where a slot of a tiny function is accessed, as sets of blocks: what
 * its placement reads (a bigger function's reads the slot's sites).
 */
typedef struct slot_sets {
	uint64_t stores, loads;
	uint64_t load_first; /* blocks whose first access to it is a load */
} slot_sets;

/* What an access does of its slot's type: the bits set_slot_type reads. */
enum { TY_STORE = 1, TY_INT_STORED = 2, TY_INT_LOADED = 4 };

static inline uint32_t
type_bits(const access *x)
{
	/* Without a branch: loads and stores come in no order. */
	_Static_assert(TY_STORE == 1 && TY_INT_STORED == 2 &&
			       TY_INT_LOADED == 4,
		       "an integer access's bit is 4 >> is_store");
	uint32_t is_store = access_is_store(x);
	uint32_t is_int = !access_is_float(x);
	return is_store | (is_int << (2 - is_store));
}

typedef struct slot {
	uint32_t width;
	kl_type type;
	uint32_t alloca;
} slot;

/*
 * A big function with few slots places them all at once (promote.c,
 * place_all_sets), with bit sets of slots per block: those placed there
 * (its candidates) and those queued there (stored there, or placed and
 * sent on to its frontier).
 */
enum { SET_WORDS = 2, SET_SLOTS = 64 * SET_WORDS };
typedef struct block_set {
	uint64_t placed[SET_WORDS], queued[SET_WORDS];
} block_set;

/* A candidate parameter as placement finds it. */
typedef struct cand {
	uint32_t block, slot;
} cand;

/* An operand waiting for a parameter's number: an alias target (of a
 * load's result) or the w1 operand of a conversion. */
enum { FIX_ALIAS, FIX_OPERAND };
typedef struct fixup {
	uint8_t kind;
	uint32_t id;  /* value (alias) or instruction (operand) */
	uint32_t phi;
} fixup;

/* A branch edge into a block with candidate parameters, and where its
 * arguments for them (one per candidate, in block order) start in
 * incoming. */
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

/*
 * Room for n elements in an array whose contents are dead: a bigger one
 * replaces it, nothing copied. Fresh memory is what a big function costs
 * most here (on this project's machines the first touch of a page is
 * slow, by the byte more than by the fault), so the pass sizes its arrays
 * once, from a bound, where it can, instead of doubling them through a
 * chain of copies.
 */
static inline void
reserve_fresh(void *p, uint32_t *cap, size_t elem_size, uint64_t n)
{
	if (KL_LIKELY(n <= *cap))
		return;
	void **pp = p;
	free(*pp);
	*pp = NULL;
	*cap = 0;
	kl_grow(pp, cap, elem_size, n);
}

/*
 * reserve_fresh for an array of which the caller is about to write the
 * first `filled` elements (all of n, or a tighter guess than the bound n):
 * when it is new memory, those are faulted in by one call, not page by
 * page (kl_prefault; the rest of the bound is left untouched, costing
 * address space only).
 */
static inline void
reserve_filled(void *p, uint32_t *cap, size_t elem_size, uint64_t n,
	       uint64_t filled)
{
	if (KL_LIKELY(n <= *cap))
		return;
	reserve_fresh(p, cap, elem_size, n);
	kl_prefault(*(void **)p, (size_t)(filled < n ? filled : n) * elem_size);
}

/*
 * An array lent the memory of another whose contents are dead for a
 * while: that memory has been touched already, where a big function's
 * own would be fresh (a huge page zeroed). The borrower's own array is
 * kept aside and given back, so neither needs fresh memory again on the
 * next function. Meanwhile the lender is not used, and the borrower
 * does not grow (kl_grow would move the lender's memory).
 */
typedef struct loan {
	void *own;
	uint32_t own_cap;
	bool active;
} loan;

/* Room for n elements of elem_size in *p (contents dead): the lender's
 * lender_bytes at lender if *p has too little and that is enough, else
 * its own, the first `filled` faulted in if new (reserve_filled). */
static inline void
borrow_or_reserve(void *p, uint32_t *cap, size_t elem_size, uint64_t n,
		  uint64_t filled, void *lender, size_t lender_bytes, loan *l)
{
	void **pp = p;
	l->active = n > *cap && lender_bytes >= n * elem_size &&
		    lender_bytes / elem_size <= UINT32_MAX - 1;
	if (l->active) {
		l->own = *pp;
		l->own_cap = *cap;
		*pp = lender;
		*cap = (uint32_t)(lender_bytes / elem_size);
		return;
	}
	reserve_filled(p, cap, elem_size, n, filled);
}

static inline void
give_back(void *p, uint32_t *cap, loan *l)
{
	if (!l->active)
		return;
	void **pp = p;
	*pp = l->own;
	*cap = l->own_cap;
	l->active = false;
}

static inline uint32_t *
room(scratch *s, uint64_t n)
{
	reserve_fresh(&s->a, &s->cap, sizeof *s->a, n);
	return s->a;
}

/* room() for an array the caller writes whole (n elements): its fresh
 * memory is faulted in by one call, not page by page (kl_prefault). */
static inline uint32_t *
room_whole(scratch *s, uint64_t n)
{
	reserve_filled(&s->a, &s->cap, sizeof *s->a, n, n);
	return s->a;
}

enum { COUNT_SLOTS, COUNT_PARAMS, COUNT_PROMOTED, COUNT_KEPT, NCOUNTS };

/*
 * The mark of a value, a byte (mark[]), one of: 0 (nothing), ADDRESS (an
 * address derived from an alloca: which one, and the offset, in
 * address_info), ALIASED (an alias, until a use asks where it leads) or
 * LOADED (a load through an address: the pass may make it an alias).
 * The OR of a few marks is 0 when none is marked. A byte, not the
 * alloca's index: the walk reads the marks of every operand, at random
 * in a big function, and 1 byte a value stays in the cache where 4 did
 * not (0.8 MB on huge-1M, and that much less fresh memory).
 */
enum { ADDRESS = 1, ALIASED = 2, LOADED = 4 };

/* Does the OR m of some marks hold an address, or an alias (which may
 * stand for one)? */
static inline bool
may_hold_address(unsigned m)
{
	return (m & (ADDRESS | ALIASED)) != 0;
}

/* Where an address points: its alloca and the offset into it. */
typedef struct address_info {
	int64_t offset;
	uint32_t alloca;
} address_info;

/*
 * The dominance facts of a function of at most TINY_BLOCKS blocks, as bit
 * sets over block numbers (promote_tiny.c). A block not reachable from
 * the entry has empty sets and no tree links.
 */
#define TINY_BLOCKS 64
#define TINY_NONE 0xffu

typedef struct tiny_block {
	uint64_t pred;   /* predecessors */
	uint64_t dom;    /* dominators, itself included */
	uint64_t below;  /* the blocks it dominates, itself included */
	uint64_t df;     /* dominance frontier */
	uint32_t npreds; /* edges in (a block may be there twice) */
	/* The tree (TINY_NONE: none): the idom, the children in layout
	 * order chained through sibling, the preorder number. */
	uint8_t idom, child, sibling, pre;
} tiny_block;

typedef struct tiny_cfg {
	uint32_t entry;
	uint64_t reach;  /* the reachable blocks */
	uint32_t nreach;
	uint8_t order[TINY_BLOCKS]; /* the reachable blocks in preorder */
	tiny_block b[TINY_BLOCKS];
} tiny_cfg;

void promote_tiny_compute(tiny_cfg *t, const kl_func *f);

/*
 * The dominance facts of a bigger function (promote_dom.c), in arrays per
 * block kept from one function to the next. A block's span is its
 * dom_span (src/analysis/idoms.h): {0, 0} for a block not reachable,
 * which has no tree links either.
 */
typedef struct dom_facts {
	uint32_t nedges;        /* between blocks of the layout */
	uint32_t nlayout;       /* blocks in the layout */
	/* Per block, carved from one region (a single allocation, which
	 * from 1 MB on gets huge pages: per byte, far fewer first touches
	 * than a dozen arrays of 4 KB pages). */
	dom_span *span;
	uint32_t *idom, *child, *sibling; /* KL_NONE: none; children in
					   * layout order, through sibling */
	uint32_t *npreds;       /* edges in */
	uint32_t *df_start;     /* DF(b): df.a[df_start[b] .. df_start[b+1]) */
	succ_span *out;         /* successors: succ.a[out[b].start ..] */
	/* out and succ list each block's destinations, all and in order
	 * (read off the terminators, none unplaced): renaming reads them
	 * instead of the terminators. */
	bool exact;
	/* out, succ, npreds and order were read by the walk
	 * (promote_walk), for this function only. */
	bool have_successors;
	/* The computation's own: the layout's order, and the depth-first
	 * search's arrays by search number. Once the facts are computed,
	 * these DOM_SPARE arrays of nblocks + 2 words, one after the other
	 * from order on, are free for the pass (promote_dom_spare). */
	uint32_t *order, *vertex, *anc, *semi, *label, *didom, *pstart;
	scratch region, succ, preds, df;
} dom_facts;

/* From the terminators of a verified function (or the successors the
 * walk read of them, have_successors), or (cfg not NULL) from the
 * generic CFG of another. False if the frontiers would pass their limit
 * (DF_DEFAULT_LIMIT entries: they are quadratic at worst); they are then
 * not made, and the pass promotes no slot of the function. */
bool promote_dom_compute(dom_facts *d, const kl_func *f, const kl_cfg *cfg);
/* The successors one block at a time, as the walk meets the blocks in
 * layout order (a verified function's terminators, which the walk has
 * just read, where the computation would read them again cold):
 * begin, then each block of the layout, then set have_successors. */
void promote_dom_read_begin(dom_facts *d, const kl_func *f);
void promote_dom_read_block(dom_facts *d, const kl_func *f, uint32_t b);
enum { DOM_SPARE = 7 };
/* The words the computation no longer needs: DOM_SPARE arrays of
 * nblocks + 2 words, in place of fresh memory for the pass's own arrays
 * per block. */
static inline uint32_t *
promote_dom_spare(const dom_facts *d)
{
	return d->order;
}
void promote_dom_free(dom_facts *d);

typedef struct promoter {
	kl_func *f;
	kl_pass_report *rep;
	kl_cfg *cfg;           /* the generic CFG and tree: for the strict */
	kl_domtree *dt;        /* SSA check of unverified IR only */
	bool have_analyses;    /* they are this function's */
	bool have_dominance;   /* the dominance facts are this function's: */
	bool tiny;             /* in t (else in dom) */
	tiny_cfg t;
	dom_facts dom;
	uint32_t nvalues; /* values before the pass: addresses are among them */
	uint32_t nblocks;

	scratch marks;         /* per value: its mark (above), in bytes */
	/* Per value, written only for the addresses (so in 4 KB pages, not
	 * huge ones, each zeroed whole): where it points. */
	address_info *address;
	uint32_t address_cap;
	scratch derived, next_derived, queue; /* the walk of iadd_imm chains */
	scratch derives;       /* the iadd_imm instructions making addresses */
	uint32_t nderives;
	scratch users;         /* instructions with a marked operand */
	uint32_t nusers;

	alloca_info *allocas;
	uint32_t nallocas, allocas_cap;
	access *acc;
	uint32_t nacc, acc_cap;
	scratch block_acc;     /* per block: first access (layout order) */
	scratch block_nacc;
	slot *slots;
	uint32_t nslots, slots_cap;
	scratch slot_site;     /* per access of a bigger function, grouped
				* by slot: its block << 1 | is_store */
	scratch slot_start;    /* each slot's first in slot_site; nslots + 1 */
	slot_sets *sets;       /* per slot of a tiny function, instead */
	uint32_t sets_cap;
	scratch by_alloca, alloca_start, sort_tmp; /* promote_make_slots */
	access_key *keys, *keys_tmp;
	uint32_t keys_cap, keys_tmp_cap;
	cand *cands;           /* candidates as placement makes them, slot
				* by slot */
	uint32_t cands_cap;
	block_set *bsets;      /* per block: placement of few slots at once */
	uint32_t bsets_cap;
	/* A big function with at most this many slots places them at once:
	 * SET_SLOTS (a unit test sets 0 to compare with slot by slot). */
	uint32_t most_set_slots;
	scratch work_map;      /* its work list: a bit a block */
	uint64_t set_steps;    /* the last one's steps (a test reads them) */
	/* The candidates sorted by block, an array per field (each phase
	 * reads one of them at random: dense, it stays in the cache): the
	 * block, the slot, and the number once it survives pruning. */
	scratch phi_block, phi_slot, phi_value;
	uint32_t nphis;
	uint32_t most_block_phis; /* the most candidates a block has */
	/* Per candidate (bytes): its value reaches a real use. Apart from
	 * the records, so that pruning's marks at random stay in the
	 * cache. */
	scratch phi_used;
	/* Per block: its first candidate (sorted) and how many it has,
	 * and where the arguments for them start in incoming and how many
	 * edges into it renaming has recorded (in_block[b][0], [1]); in
	 * block_phi, block_nphi and block_in for a tiny function, else in
	 * the words the dominance facts leave spare. */
	uint32_t *first_phi, *nphi;
	uint32_t (*in_block)[2];
	scratch block_phi, block_nphi, block_in;
	scratch work;
	fixup *fixups;
	uint32_t nfixups, fixups_cap;
	/* The values of the conversions stores made (ireduce, bitcast), in
	 * the order made: finish removes those no load came to read. */
	uint32_t *store_convs;
	uint32_t nstore_convs, store_convs_cap;
	edge *edges;
	uint32_t nedges, edges_cap;
	loan edges_loan, incoming_loan; /* from slot_site; cands or bsets */
	loan work_loan;        /* pruning's worklist, from the undo log */
	uint64_t nedges_in;    /* the edges into blocks with candidates */
	/* The arguments the edges pass to the candidates, block by block
	 * (each block's edges -- at most npreds -- in the order renaming
	 * meets them, each edge's in candidate order): what pruning's
	 * propagation reads of one candidate lies together. */
	uint32_t *incoming;
	uint32_t incoming_cap;
	uint64_t nincoming; /* sum over blocks of candidates x npreds */
	scratch args; /* promote_prune_params */

	scratch cur;           /* per slot: current value or KL_NONE (zero) */
	undo *log;
	uint32_t nlog, log_cap;
	kl_arena arena;        /* the strict SSA check's marks */
	uint32_t zero[KL_TYPE_BUILTIN_COUNT];
	uint32_t last_zero;    /* the instruction of the last zero made */
	bool made_aliases;
	bool defs_first;       /* the walk met each definition before its
				* uses (defs_before_uses in promote.c) */
	bool had_aliases;      /* the function had aliases before the pass */
	/* Where each value's alias chain ends, when some alias of the
	 * function leads to another (func_resolve_table, made before the
	 * pass changes anything; else NULL): chain_end reads it. */
	const uint32_t *chain_table;
	uint32_t *chain_buf;
	uint32_t chain_cap, nchain;
	bool calls_setjmp;
	uint32_t count_at[NCOUNTS]; /* where each counter is in the report */
	scratch seed; /* place_slot_lists: the last slot's first worklist */
	kl_builder b;
} promoter;

/* The marks, a byte a value (in a scratch array of words). */
static inline uint8_t *
value_marks(const promoter *p)
{
	return (uint8_t *)p->marks.a;
}

/*
 * A big function's arrays per block, in the words its dominance facts
 * leave spare (promote_dom_spare), each nblocks + 2 words: placement's
 * two marks a block (whose words then hold in_block) and worklist, each
 * block's first candidate and count (renaming and pruning read them
 * too), and where renaming's undo log stood when it entered the block.
 */
enum { SPARE_MARKS = 0, SPARE_IN_BLOCK = 0, SPARE_WORK = 2, SPARE_FIRST_PHI,
       SPARE_NPHI, SPARE_LOG_AT, SPARE_ARRAYS };
_Static_assert((int)SPARE_ARRAYS <= (int)DOM_SPARE,
	       "the spare words hold them");

static inline uint32_t *
spare_array(const promoter *p, unsigned k)
{
	return promote_dom_spare(&p->dom) + k * ((size_t)p->nblocks + 2);
}

/*
 * What the walk does with each opcode. Below WALK_SIMPLE, the kinds of
 * nearly every instruction, which take one path without a branch on the
 * kind: bits naming the words w[0..2] holding operands that may escape,
 * WALK_ACCESS for a load or store (w1 is its address) and WALK_LOADS for
 * a load (w0 its result). The others are cases of their own. Made from
 * the opcode table (promote_find.c).
 */
enum {
	WALK_W0 = 1,
	WALK_W1 = 2,
	WALK_W2 = 4,
	WALK_W1_W2 = WALK_W1 | WALK_W2,
	WALK_ACCESS = 8,
	WALK_LOADS = 16,
	WALK_LOAD = WALK_ACCESS | WALK_LOADS,
	WALK_STORE = WALK_ACCESS | WALK_W0, /* the stored value may escape */
	WALK_SIMPLE = 32, /* kinds below take the common path */
	WALK_DERIVE = WALK_SIMPLE, /* iadd_imm */
	WALK_ALLOCA,
	WALK_ALLOCA_DYN,
	WALK_JUMP,
	WALK_BRIF,
	WALK_CALL,
	WALK_RETURN,
	WALK_TERNARY, /* select: its operands in a list (w1) */
	WALK_OTHER, /* operands and destinations from inst_args/inst_dests */
};

extern const uint8_t promote_walk_kind[KL_OP_COUNT];

/*
 * The OR of the marks of the operand words of d that mask m names (bit w:
 * d->w[w]): 0 when none is marked. One OR, without a branch per operand:
 * a word the mask leaves out, or a value beyond the nv values, reads
 * mark[nv], which must be 0.
 */
static inline unsigned
word_marks(const uint8_t *mark, uint32_t nv, const kl_inst_data *d,
	   unsigned m)
{
	/* Conditional moves, not branches: which words hold operands
	 * varies from one instruction to the next. */
	uint32_t v0 = d->w[0] < nv ? d->w[0] : nv;
	uint32_t v1 = d->w[1] < nv ? d->w[1] : nv;
	uint32_t v2 = d->w[2] < nv ? d->w[2] : nv;
	v0 = m & 1 ? v0 : nv;
	v1 = m & 2 ? v1 : nv;
	v2 = m & 4 ? v2 : nv;
	return mark[v0] | mark[v1] | mark[v2];
}

/*
 * The dominance facts the pass reads, from either source (need_dominance
 * in promote.c chose). Blocks are blocks of the function.
 */
static inline bool
reached(const promoter *p, uint32_t b)
{
	return p->tiny ? (p->t.reach >> b) & 1 : p->dom.span[b].lo != 0;
}

/* Does a dominate b (both reachable)? */
static inline bool
dominates(const promoter *p, uint32_t a, uint32_t b)
{
	if (p->tiny)
		return (p->t.b[b].dom >> a) & 1;
	const dom_span *s = p->dom.span;
	return s[a].lo <= s[b].lo && s[b].lo <= s[a].hi;
}

static inline uint32_t
tiny_link(uint8_t b)
{
	return b == TINY_NONE ? KL_NONE : b;
}

/* The immediate dominator of b; KL_NONE for the entry and unreachable
 * blocks. */
static inline uint32_t
idom_of(const promoter *p, uint32_t b)
{
	return p->tiny ? tiny_link(p->t.b[b].idom) : p->dom.idom[b];
}

/* The tree's children of b in layout order: the first, then each next. */
static inline uint32_t
first_child(const promoter *p, uint32_t b)
{
	return p->tiny ? tiny_link(p->t.b[b].child) : p->dom.child[b];
}

static inline uint32_t
next_sibling(const promoter *p, uint32_t c)
{
	return p->tiny ? tiny_link(p->t.b[c].sibling) : p->dom.sibling[c];
}

/* Edges into b. */
static inline uint32_t
npreds(const promoter *p, uint32_t b)
{
	return p->tiny ? p->t.b[b].npreds : p->dom.npreds[b];
}

/*
 * What value_resolve says of v: through chain_table along the function's
 * own chains (a walk per question is quadratic on a long chain, or a
 * cycle), then along the links the pass made, one or two.
 */
static inline uint32_t
chain_end(const promoter *p, uint32_t v)
{
	if (p->chain_table && v < p->nchain)
		v = p->chain_table[v];
	return value_resolve(p->f, v);
}

/* v, or the value it stands for if it is an alias (as value_resolve). */
static inline uint32_t
resolve(const promoter *p, uint32_t v)
{
	const kl_func *f = p->f;
	if (KL_LIKELY(v >= f->nvalues || f->values[v].kind != VK_ALIAS))
		return v;
	return chain_end(p, v);
}

/* kl_type_bytes and kl_type_class, asked once per access: the module's
 * table read in place. */
static inline uint32_t
type_bytes(const kl_module *m, kl_type t)
{
	return t < m->ntypes ? m->types[t].bytes : kl_type_bytes(m, t);
}


/* promote_find.c */
/* Is f in strict SSA form, with control flow the pass can read?
 * PROMOTED, KEPT_NOT_SSA or KEPT_MALFORMED. (needs p->dt) */
enum kept_reason promote_check_form(promoter *p);
/* Forget the addresses of the last function (before promote_walk). */
void promote_clear_addresses(promoter *p);
/* The one walk over the layout; see its comment. */
bool promote_walk(promoter *p, bool defs);
/* The careful search for derived addresses, for unverified IR. */
void promote_find_addresses(promoter *p);
/* Does f take the address of setjmp or one of its family (symbol_addr),
 * through which it may call it? */
bool promote_takes_setjmp_address(const kl_func *f);
/* Group the accesses of the promotable allocas into slots. */
void promote_make_slots(promoter *p);

/* promote_rename.c */
void promote_rename_all(promoter *p);
/* Returns how many parameters survive. */
uint32_t promote_prune_params(promoter *p);

#endif
