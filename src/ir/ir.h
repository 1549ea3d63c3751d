/*
 * ir.h -- the in-memory IR as the library itself sees it.
 *
 * Everything is an index into a table owned by the module or the function;
 * there are no pointers between IR objects, so tables can grow by realloc
 * and a function can be copied or freed as a handful of arrays.
 *
 * Memory per instruction is the design's main budget (see
 * docs/architecture.md): 16 bytes of instruction data, 16 bytes of layout
 * node and 8 bytes for its result value make 40 bytes for a typical
 * instruction; operand lists longer than the fixed fields live in the value
 * list pool.
 *
 * Instruction data (kl_inst_data): opcode, one byte of small immediate
 * (condition code, trap code, log2 alignment), one flag byte and three
 * 32-bit words w[0..2] whose meaning depends on the format:
 *
 *   CONST          w0 result     w1:w2 64-bit immediate (low, high)
 *   UNARY          w0 result     w1 arg
 *   BINARY         w0 result     w1 x          w2 y
 *   BINARY_IMM     w0 result     w1 x          w2 imm (see IMM_POOLED)
 *   ICMP, FCMP     w0 result     w1 x          w2 y         aux: cond
 *   ICMP_IMM       w0 result     w1 x          w2 imm       aux: cond
 *   TERNARY        w0 result     w1 list [c, x, y]
 *   LOAD           w0 result     w1 ptr        w2 offset
 *   STORE          w0 value      w1 ptr        w2 offset
 *   ALLOCA         w0 result     w1 size                    aux: log2 align
 *   ALLOCA_DYN     w0 result     w1 size value              aux: log2 align
 *   SYMBOL         w0 result     w1 symbol
 *   CALL           w0 results list   w1 callee symbol   w2 args list
 *   CALL_INDIRECT  w0 results list   w1 sigref          w2 [callee, args]
 *   JUMP           w0 dest
 *   BRIF           w0 cond       w1 then dest  w2 else dest
 *   BR_TABLE       w0 index      w1 list of dests, default first
 *
 * A dest is a destination word: the list [block, args...], or the block
 * alone when there are no arguments (DEST_BLOCK, below).
 *   RETURN         w0 args list
 *   TRAP           w0 user code                             aux: trap code
 *
 * A 64-bit immediate of a BINARY_IMM/ICMP_IMM that does not fit in 32 bits
 * is kept in the function's constant table and w2 is its index
 * (bits & IMM_POOLED); inst_imm() hides the difference.
 */
#ifndef KEEL_IR_H
#define KEEL_IR_H

#include "../util/util.h"

enum { IMM_POOLED = 1 };

typedef struct kl_inst_data {
	uint16_t op;
	uint8_t aux;
	uint8_t bits;
	uint32_t w[3];
} kl_inst_data;

_Static_assert(sizeof(kl_inst_data) == 16, "instruction data is 16 bytes");

/* Layout node of an instruction: its place in its block. */
typedef struct kl_inst_node {
	uint32_t prev, next;
	uint32_t block; /* KL_NONE when not placed */
	uint32_t seq;   /* increases along the block; see layout.c */
} kl_inst_node;

enum value_kind {
	VK_UNUSED = 0, /* a hole in the numbering, or not yet defined */
	VK_RESULT,     /* def: instruction */
	VK_PARAM,      /* def: block */
	VK_ALIAS,      /* def: the value it stands for */
	VK_REMOVED,    /* a block parameter a pass removed (def: KL_NONE);
			* it keeps its type, as aliases leading to it do */
};

/* Types are limited to 2^28 handles so a value fits in 8 bytes. */
#define KL_VALUE_TYPE_BITS 28
#define KL_VALUE_TYPE_NONE ((1u << KL_VALUE_TYPE_BITS) - 1)

typedef struct kl_value_data {
	unsigned type : KL_VALUE_TYPE_BITS;
	unsigned kind : 4;
	uint32_t def;
} kl_value_data;

_Static_assert(sizeof(kl_value_data) == 8, "value data is 8 bytes");

enum { BLOCK_EXISTS = 1, BLOCK_PLACED = 2 };

typedef struct kl_block_data {
	uint32_t params;      /* value list */
	uint32_t first, last; /* instructions in layout */
	uint32_t prev, next;  /* block layout */
	uint32_t flags;       /* BLOCK_* */
} kl_block_data;

/*
 * The value-list pool. A list handle is the index of its first element
 * (0 is the empty list). The slot before the elements holds the length
 * (low 27 bits) and the size-class bin (high 5 bits); a block of bin k
 * has 2 to 8 slots for k = 0..6, then 12, 16, and 2^(k-4) (see pool.c),
 * header included. Freed blocks chain through their header slot on a
 * free list per bin.
 */
#define POOL_BINS 32
/* The most elements one value list holds (its length takes 27 bits of
 * its header, pool.c): callers that take lists from users check it, so
 * that a long one is an error value, not the pool's fatal stop. */
#define LIST_MAX_LEN ((1u << 27) - 2)
typedef struct kl_pool {
	uint32_t *data;
	uint32_t len, cap;
	uint32_t free_head[POOL_BINS]; /* block start + 1, 0 = empty */
	kl_arena *arena; /* data is in this (module) arena, else NULL */
} kl_pool;

void pool_free_all(kl_pool *p);
/* Room for extra more slots at the end of the pool: a caller about to
 * build many lists grows the pool once instead of by doubling. A list of
 * n elements takes at most 2 * n + 2 slots. */
void pool_make_room(kl_pool *p, uint64_t extra);
static inline uint32_t
list_len(const kl_pool *p, uint32_t list)
{
	return list ? p->data[list - 1] & ((1u << 27) - 1) : 0;
}
static inline uint32_t *
list_elems(const kl_pool *p, uint32_t list)
{
	return p->data ? p->data + list : NULL;
}
static inline uint32_t
list_get(const kl_pool *p, uint32_t list, uint32_t i)
{
	return p->data[list + i];
}
uint32_t list_make(kl_pool *p, const uint32_t *elems, uint32_t n);
void list_push(kl_pool *p, uint32_t *list, uint32_t v);
/* Keep the first n elements (n at most the length; 0 frees the list). */
void list_truncate(kl_pool *p, uint32_t *list, uint32_t n);
void list_free(kl_pool *p, uint32_t list);
/* Slots the list's block takes, header included (0 for the empty list). */
uint32_t list_slots(const kl_pool *p, uint32_t list);
/* Make room for n elements at the end; returns a pointer to them. */
uint32_t *list_extend(kl_pool *p, uint32_t *list, uint32_t n);

/* A global name: its bytes in the module's byte store, which never moves
 * a byte once stored (kl_sym_name hands out pointers to them). */
typedef struct kl_name {
	uint32_t len;
	uint32_t off;
} kl_name;

typedef struct kl_sig_data {
	uint32_t types;   /* offset into module sigtypes: params then results */
	uint32_t nparams;
	uint32_t nresults;
	uint32_t variadic;
} kl_sig_data;

typedef struct kl_sym_data {
	kl_name name;
	uint8_t kind;     /* kl_sym_kind */
	uint8_t is_const; /* data */
	uint8_t defined;  /* function with a body */
	uint8_t hidden;   /* redefinition kept for tests; not in lookup */
	uint8_t returns_twice; /* named as one of the setjmp family */
	uint32_t sig;     /* functions: module signature */
	kl_func *func;    /* function body or NULL */
	uint32_t items;   /* data: first item in the module item table */
	uint32_t nitems;
	uint64_t size;    /* data: bytes of its items, at most DATA_MAX_BYTES */
	uint32_t align;   /* data */
	uint32_t line;    /* source line, 0 if built */
	uint32_t hash;    /* of the name: rehashing reads it, probes test it */
	uint32_t items_cap; /* data: slots at items it may fill (see
			     * module_add_item) */
} kl_sym_data;

typedef struct kl_item_data {
	uint8_t kind; /* kl_data_kind */
	uint32_t type;
	uint64_t value;
	uint32_t sym;
	uint32_t str; /* offset in the module byte store */
	uint32_t len;
} kl_item_data;

typedef struct kl_type_data {
	uint8_t kind;   /* TK_* */
	uint8_t cls;    /* machine class: a built-in handle */
	uint32_t bytes;
	uint8_t refine; /* kl_refinement */
	const char *name;
} kl_type_data;

enum { TK_INT, TK_FLOAT };

struct kl_module {
	kl_type_data *types;
	uint32_t ntypes, types_cap;
	kl_type ptr_type;

	kl_sig_data *sigs;
	uint32_t nsigs, sigs_cap;
	kl_type *sigtypes;
	uint32_t nsigtypes, sigtypes_cap;
	uint32_t *sig_htab; /* interning: signature + 1, 0 = empty */
	uint32_t sig_hcap;

	kl_sym_data *syms;
	uint32_t nsyms, syms_cap;
	uint32_t nreturns_twice; /* symbols with returns_twice */
	uint32_t *htab; /* open addressing: symbol + 1, 0 = empty */
	uint32_t hcap;

	kl_item_data *items;
	uint32_t nitems, items_cap;

	char *bytes; /* names and data strings */
	uint32_t nbytes, bytes_cap;

	/* Old copies of bytes and sigtypes, freed with the module: both are
	 * written once, so a pointer into an old copy stays right. */
	void **kept;
	uint32_t nkept, kept_cap;

	/* Function structs, and the tables of parsed functions until they
	 * grow (see func_take_tables); freed with the module. */
	kl_arena arena;

	/* Bumped with every function's edits (func_edited): an interpreter
	 * that has seen this number knows that none of its decoded
	 * functions changed, in one comparison. */
	uint64_t edits;
	/* Bumped by every public call that adds a symbol or appends a data
	 * item, when it succeeds (kl_module_declare, kl_module_add_func,
	 * kl_module_add_data, kl_data_append): what an interpreter's memory
	 * is made from (an object for each symbol, data filled from its
	 * items) changed. The parser's internal calls do not bump it: no
	 * interpreter can exist yet. */
	uint64_t data_edits;
};

struct kl_func {
	kl_module *module;
	uint32_t sym;
	uint32_t sig;

	kl_inst_data *insts;
	kl_inst_node *nodes;
	uint32_t ninsts, insts_cap;

	kl_value_data *values;
	uint32_t nvalues, values_cap;

	kl_block_data *blocks;
	uint32_t nblocks, blocks_cap;
	uint32_t first_block, last_block;

	kl_pool pool;

	int64_t *consts; /* pooled 64-bit immediates */
	uint32_t nconsts, consts_cap;

	uint32_t *sigrefs; /* sigN -> module signature, KL_NONE = hole */
	uint32_t nsigrefs, sigrefs_cap;

	/* Source positions, kept only for parsed functions (NULL otherwise). */
	uint32_t *inst_lines;   /* parallel to insts */
	uint32_t *block_lines;  /* parallel to blocks */
	uint32_t *sigref_lines; /* parallel to sigrefs */
	uint32_t line_first, line_last;

	uint32_t in_arena; /* TAB_* bits: tables in the module arena */
	/* Some value may be an alias: set whenever one is made (never
	 * cleared), so that a pass can skip looking for them. */
	bool has_aliases;
	/* Changes made to the function since it was made (func_edited):
	 * an interpreter decodes a function again when this is not what it
	 * was at the last decoding. */
	uint64_t edits;
	/* What adds block parameters to the function while it is built,
	 * if anything (a kl_vars, which sets and clears it): a second
	 * such owner would add parameters the first does not know of. */
	const void *param_owner;
};

/*
 * Tables that live in the module arena are sized by the parser: exactly,
 * but for the value table's spare eighth (func.c, value_capacity).
 * Arena memory can be neither realloc'd nor freed, so growing one copies
 * it: to a grown copy in the arena while it is small (ARENA_TABLE_MAX),
 * then out to a malloc'd array (and its bit is cleared). A pass over a
 * module of small functions grows thousands of tables; from the heap,
 * each would take fresh 4 KB pages, and a page fault costs over 10 us on
 * this project's machines, more than the pass spends on a small function.
 * The arena's big chunks are backed by huge pages.
 */
#define ARENA_TABLE_MAX ((size_t)64 << 10)
enum {
	TAB_INSTS = 1 << 0,
	TAB_NODES = 1 << 1,
	TAB_VALUES = 1 << 2,
	TAB_BLOCKS = 1 << 3,
	TAB_CONSTS = 1 << 4,
	TAB_SIGREFS = 1 << 5,
	TAB_INST_LINES = 1 << 6,
	TAB_BLOCK_LINES = 1 << 7,
	TAB_SIGREF_LINES = 1 << 8,
};

/* ---- module internals ---- */
void module_init_types(kl_module *m);
const char *name_bytes(const kl_module *m, const kl_name *n);
uint32_t module_add_sig(kl_module *m, const kl_type *params, uint32_t np,
			const kl_type *results, uint32_t nr, bool variadic);
/* The same for a public kl_signature (NULL: no parameters or results). */
uint32_t module_add_sig_of(kl_module *m, const kl_signature *sig);
/* Signature sig's view (all zero if out of range). Inline: the verifier
 * reads one per call instruction. */
static inline kl_signature
module_sig(const kl_module *m, uint32_t sig)
{
	kl_signature r = { 0 };
	if (sig >= m->nsigs)
		return r;
	const kl_sig_data *s = &m->sigs[sig];
	r.variadic = s->variadic != 0;
	if (!m->sigtypes)
		return r; /* no signature in the module has any type */
	r.params = m->sigtypes + s->types;
	r.results = m->sigtypes + s->types + s->nparams;
	r.num_params = s->nparams;
	r.num_results = s->nresults;
	return r;
}
/* Can a caller's signature be made (NULL is `()`): its arrays are there
 * for its counts and every type is one of m's? */
bool module_sig_ok(const kl_module *m, const kl_signature *sig);
/*
 * Does a call to symbol sym return twice (setjmp and friends)? Most
 * modules have no such symbol: then the answer costs no look at the
 * symbol table (a callee's entry is a cache miss in a large module).
 */
static inline bool
module_returns_twice(const kl_module *m, uint32_t sym)
{
	return m->nreturns_twice && sym < m->nsyms &&
	       m->syms[sym].returns_twice;
}

uint32_t module_add_sym(kl_module *m, const char *name, size_t len,
			kl_sym_kind kind, bool allow_redefinition,
			kl_status *status);
/* Would n more bytes fit the byte store (names, data strings)? Its
 * offsets are 32 bits: a module holds less than 4 GiB of them. */
bool module_bytes_fit(const kl_module *m, uint64_t n);
/* Copy n bytes into the store; their offset. Past the limit the process
 * ends (kl_fatal): a caller with an error to return checks
 * module_bytes_fit first. */
uint32_t module_store_bytes(kl_module *m, const char *s, size_t n);
/* The most bytes one data object's items may take (the text format's
 * bound on a zero item too): sizes then never wrap, and an interpreter
 * refuses the object before it copies anything. */
#define DATA_MAX_BYTES ((uint64_t)1 << 40)
/* Append an item to data object sym; false (nothing added) if the
 * object would pass DATA_MAX_BYTES. */
bool module_add_item(kl_module *m, uint32_t sym, const kl_item_data *it);
/* A function struct in the module arena; func_free releases its tables. */
kl_func *func_new(kl_module *m, uint32_t sym, uint32_t sig);
void func_init(kl_func *f, kl_module *m, uint32_t sym, uint32_t sig);
void func_free(kl_func *f);
/*
 * Give f, which has no tables yet, the contents of from's tables and leave
 * from empty, ready to be filled again. Small tables are copied into the
 * module arena (at their exact size, the values with a spare eighth) and
 * from keeps its arrays for reuse; big ones are handed over. This is how
 * the parser builds a function: in tables that stay warm in the cache
 * from one function to the next.
 */
void func_take_tables(kl_func *f, kl_func *from);
/* Grow table (a TAB_* bit) *p of *cap elements to hold need elements. */
void func_grow(kl_func *f, uint32_t table, void *p, uint32_t *cap,
	       size_t elem_size, uint64_t need);
/* The same, and its table of source lines (line_table, *lines) too when
 * it has one, to the same capacity: the two are indexed alike. */
void func_grow_lined(kl_func *f, uint32_t table, void *p, uint32_t line_table,
		     uint32_t **lines, uint32_t *cap, size_t elem_size,
		     uint64_t need);

/*
 * Record that f's code may change: every public call that can change a
 * function (the rewriting and layout calls, passes) calls this first,
 * failing or not, and the builder's calls when they build (builder.c,
 * emit); the interpreter compares the counters to know which decoded
 * functions are stale (src/interp/interp.c). Internal helpers (layout_*,
 * value_define, ...) do not: the parser uses them, before any interpreter
 * can exist, and passes bump once at their entry.
 */
static inline void
func_edited(kl_func *f)
{
	f->edits++;
	f->module->edits++;
}

/* ---- function internals ---- */
/* The opcode table (opcodes.c); internal code indexes it directly. */
extern const kl_opinfo kl_op_table[KL_OP_COUNT];
/* Spellings of condition and trap codes, indexed by code. */
extern const char *const kl_intcc_names[KL_ICC_COUNT];
extern const char *const kl_floatcc_names[KL_FCC_COUNT];
extern const char *const kl_trap_names[KL_TRAP_COUNT];
/* The condition that holds of (y, x) when cc holds of (x, y) (slt: sgt),
 * and the one that holds when cc does not (slt: sge); cc a kl_intcc. */
kl_intcc intcc_swapped(kl_intcc cc);
kl_intcc intcc_inverse(kl_intcc cc);

static inline const kl_opinfo *
inst_info(const kl_func *f, uint32_t i)
{
	return &kl_op_table[f->insts[i].op];
}
/* Does an opcode whose type follows an operand (KL_CTRL_ARG0/ARG1) give
 * that type to its result, as iadd and select do? Not a compare's (i8)
 * nor a store's (none): theirs is only checked. */
static inline bool
result_takes_ctrl(const kl_opinfo *info)
{
	return info->format == KL_FMT_UNARY || info->format == KL_FMT_BINARY ||
	       info->format == KL_FMT_BINARY_IMM ||
	       info->format == KL_FMT_TERNARY;
}

/* A new, unplaced instruction; its data is zeroed apart from op. */
uint32_t func_new_inst(kl_func *f, kl_opcode op);
/* Make room for ninsts instructions and nvalues values, exactly (a small
 * table in the module arena stays there; see resize in func.c). */
void func_presize(kl_func *f, uint32_t ninsts, uint32_t nvalues);
/* Make sure values [0, n) exist (new ones are VK_UNUSED). */
void func_reserve_values(kl_func *f, uint32_t n);
/* A value number not defined (yet): what func_reserve_values fills in. */
static inline kl_value_data
value_hole(void)
{
	return (kl_value_data){ KL_VALUE_TYPE_NONE, VK_UNUSED, KL_NONE };
}
/* A block number not defined (yet): what func_reserve_blocks fills in. */
static inline kl_block_data
block_hole(void)
{
	return (kl_block_data){ 0, KL_NONE, KL_NONE, KL_NONE, KL_NONE, 0 };
}
void func_reserve_blocks(kl_func *f, uint32_t n);
uint32_t func_new_value(kl_func *f); /* fresh number above all others */
/* The block of the layout where value v (< nvalues, not an alias) is
 * defined: its instruction's, or its block for a parameter; KL_NONE when
 * that instruction or block is out of the layout (kl_func_remove_block
 * takes its instructions out too) or v defines nothing. */
static inline uint32_t
value_def_block(const kl_func *f, uint32_t v)
{
	const kl_value_data *d = &f->values[v];
	if (d->kind == VK_PARAM) {
		bool placed = d->def < f->nblocks &&
			      (f->blocks[d->def].flags & BLOCK_PLACED);
		return placed ? d->def : KL_NONE;
	}
	if (d->kind == VK_RESULT && d->def < f->ninsts)
		return f->nodes[d->def].block;
	return KL_NONE;
}
/* Inline: the parser defines a value per instruction. */
static inline void
value_define(kl_func *f, uint32_t v, enum value_kind kind, kl_type t,
	     uint32_t def)
{
	kl_value_data *d = &f->values[v];
	d->type = t >= KL_VALUE_TYPE_NONE ? KL_VALUE_TYPE_NONE : t;
	d->kind = kind;
	d->def = def;
	f->has_aliases |= kind == VK_ALIAS;
}
/* The machine class of a type handle, KL_TYPE_NONE if it is no type:
 * kl_type_class inline, for the passes and the verifier. */
static inline kl_type
type_class(const kl_module *m, kl_type t)
{
	if (t < KL_TYPE_MACHINE_COUNT)
		return t;
	return t < m->ntypes ? m->types[t].cls : KL_TYPE_NONE;
}
static inline kl_type
value_type(const kl_func *f, uint32_t v)
{
	uint32_t t = f->values[v].type;
	return t == KL_VALUE_TYPE_NONE ? KL_TYPE_NONE : t;
}
uint32_t value_resolve(const kl_func *f, uint32_t v);
/*
 * value_resolve's answer for every value, for a caller that asks for
 * many (the printer, the decoder, liveness): value_resolve walks the
 * chain each time, which is quadratic on long chains and on cycles (a
 * cycle costs it nvalues steps). NULL when no alias leads to another
 * alias, where value_resolve takes at most two steps; else a table of
 * nvalues words in *buf (grown as needed, freed by the caller), made in
 * O(nvalues).
 */
const uint32_t *func_resolve_table(const kl_func *f, uint32_t **buf,
				   uint32_t *cap);
/* v resolved through a table from func_resolve_table (NULL: none). */
static inline uint32_t
resolve_with(const kl_func *f, const uint32_t *table, uint32_t v)
{
	if (v >= f->nvalues)
		return v;
	return table ? table[v] : value_resolve(f, v);
}
/* Ask the cache for a small function's tables before a walk over them
 * (nothing for a big one, read in order: the hardware prefetches it). */
void func_prefetch(const kl_func *f);
/* The same for the function after f in its module, in two parts (func.c
 * says why): the instructions and layout, then the rest. */
void func_prefetch_next_layout(const kl_func *f);
void func_prefetch_next_rest(const kl_func *f);
uint32_t func_new_block_id(kl_func *f);

int64_t inst_imm(const kl_func *f, uint32_t i);
void inst_set_imm(kl_func *f, uint32_t i, int64_t imm);

/*
 * Results: an instruction has 0, 1 (w0) or a results list (calls).
 *
 * Value operands (not branch arguments) of an instruction, in text order:
 * inst_args returns the count and points *vals at them, either into the
 * instruction data or into the pool (valid until the pool changes).
 *
 * Branch destinations: each is a destination word (see DEST_BLOCK);
 * inst_dests returns their number and points *dests at the words (valid
 * until the pool changes).
 *
 * These are inline: every pass and analysis calls them per instruction.
 */
static inline uint32_t
inst_num_results(const kl_func *f, uint32_t i)
{
	const kl_opinfo *info = inst_info(f, i);
	if (info->nres == KL_NRES_SIG)
		return list_len(&f->pool, f->insts[i].w[0]);
	return info->nres;
}

static inline uint32_t
inst_result(const kl_func *f, uint32_t i, uint32_t n)
{
	const kl_opinfo *info = inst_info(f, i);
	if (info->nres == KL_NRES_SIG) {
		uint32_t l = f->insts[i].w[0];
		return n < list_len(&f->pool, l) ? list_get(&f->pool, l, n)
						 : KL_NONE;
	}
	return n < info->nres ? f->insts[i].w[0] : KL_NONE;
}

static inline uint32_t *
inst_args_mut(kl_func *f, uint32_t i, uint32_t *n)
{
	kl_inst_data *d = &f->insts[i];
	switch (kl_op_table[d->op].format) {
	case KL_FMT_UNARY:
	case KL_FMT_BINARY_IMM:
	case KL_FMT_ICMP_IMM:
	case KL_FMT_LOAD:
	case KL_FMT_ALLOCA_DYN:
		*n = 1;
		return &d->w[1];
	case KL_FMT_BINARY:
	case KL_FMT_ICMP:
	case KL_FMT_FCMP:
		*n = 2;
		return &d->w[1];
	case KL_FMT_STORE:
		*n = 2;
		return &d->w[0];
	case KL_FMT_BRIF:
	case KL_FMT_BR_TABLE:
		*n = 1;
		return &d->w[0];
	case KL_FMT_TERNARY:
		*n = list_len(&f->pool, d->w[1]);
		return list_elems(&f->pool, d->w[1]);
	case KL_FMT_CALL:
	case KL_FMT_CALL_INDIRECT:
		*n = list_len(&f->pool, d->w[2]);
		return list_elems(&f->pool, d->w[2]);
	case KL_FMT_RETURN:
		*n = list_len(&f->pool, d->w[0]);
		return list_elems(&f->pool, d->w[0]);
	default:
		*n = 0;
		return NULL;
	}
}

static inline uint32_t
inst_args(const kl_func *f, uint32_t i, const uint32_t **vals)
{
	uint32_t n;
	*vals = inst_args_mut((kl_func *)f, i, &n);
	return n;
}

static inline uint32_t
inst_dests(const kl_func *f, uint32_t i, const uint32_t **dests)
{
	const kl_inst_data *d = &f->insts[i];
	switch (kl_op_table[d->op].format) {
	case KL_FMT_JUMP:
		*dests = &d->w[0];
		return 1;
	case KL_FMT_BRIF:
		*dests = &d->w[1];
		return 2;
	case KL_FMT_BR_TABLE:
		*dests = list_elems(&f->pool, d->w[1]);
		return list_len(&f->pool, d->w[1]);
	default:
		*dests = NULL;
		return 0;
	}
}

/*
 * A destination word (jump's w0, brif's w1 and w2, each entry of a
 * br_table's list) is either a pool list [block, args...] or, for a
 * destination without arguments -- most of them -- the block number with
 * DEST_BLOCK set: one word instead of a list of two slots. Block numbers
 * and pool handles both stay below DEST_BLOCK (func_reserve_blocks and
 * the pool stop there).
 */
#define DEST_BLOCK 0x80000000u

static inline uint32_t
dest_word_of_block(uint32_t b)
{
	return b | DEST_BLOCK;
}

/* The target block of destination word d (a list: its first element). */
static inline uint32_t
dest_block(const kl_pool *p, uint32_t d)
{
	return d & DEST_BLOCK ? d & ~DEST_BLOCK : p->data[d];
}

/* The arguments of destination word d: their count, *args at them. */
static inline uint32_t
dest_args(const kl_pool *p, uint32_t d, uint32_t **args)
{
	if (d & DEST_BLOCK) {
		*args = NULL;
		return 0;
	}
	*args = p->data + d + 1;
	return list_len(p, d) - 1;
}

/*
 * The same for IR that may be broken (printing, the CFG of unverified
 * IR): false if d is a list handle outside the pool or an empty list.
 */
static inline bool
dest_read(const kl_pool *p, uint32_t d, uint32_t *block,
	  const uint32_t **args, uint32_t *nargs)
{
	*args = NULL;
	*nargs = 0;
	if (d & DEST_BLOCK) {
		*block = d & ~DEST_BLOCK;
		return true;
	}
	*block = KL_NONE;
	if (d == 0 || d >= p->len)
		return false;
	uint32_t n = list_len(p, d);
	if (n == 0 || (uint64_t)d + n > p->len)
		return false;
	*block = p->data[d];
	*args = p->data + d + 1;
	*nargs = n - 1;
	return true;
}

/* A new destination word for d (a list, or the block alone without
 * arguments); builder.c. */
uint32_t dest_make(kl_func *f, const kl_block_call *d);
/* A copy, not placed, in f of instruction i of function `from` (f
 * itself, or another function of its module): operands through vmap,
 * destinations through bmap and a call_indirect's signature reference
 * through smap (from's numbers to f's; NULL: the same numbers), its
 * results the values vmap gives from's results (holes numbered already)
 * or, without vmap, fresh ones. A pooled immediate from another
 * function goes into f's constant table. */
uint32_t inst_copy(kl_func *f, const kl_func *from, uint32_t i,
		   const uint32_t *vmap, const uint32_t *bmap,
		   const uint32_t *smap);

/* ---- rewriting (rewrite.c) ---- */
/* kl_func_remove_params, the entry block's parameters allowed too when
 * entry_too (kl_vars takes back those it added there). */
kl_status func_remove_params(kl_func *f, const kl_value *params, uint32_t n,
			     bool entry_too);
/* Append n values to the arguments of destination k of branch i. */
void inst_dest_append_args(kl_func *f, uint32_t i, uint32_t k,
			   const uint32_t *vals, uint32_t n);
/* Turn instruction i, keeping its result, into `op.T x` (a UNARY op). */
void inst_rewrite_unary(kl_func *f, uint32_t i, kl_opcode op, uint32_t x);

/* ---- layout ---- */
void layout_append_block(kl_func *f, uint32_t b);
void layout_insert_block_after(kl_func *f, uint32_t b, uint32_t after);
void layout_insert_block_before(kl_func *f, uint32_t b, uint32_t before);
void layout_remove_block(kl_func *f, uint32_t b);
/* Gap between the sequence numbers of appended instructions (layout.c). */
#define SEQ_STRIDE 16
/* Number i, linked in between neighbours whose numbers leave no room,
 * renumbering some of the instructions around it (layout.c). */
void layout_relabel(kl_func *f, uint32_t i);
/* Inline: the parser appends every instruction it reads. i is unplaced. */
static inline void
layout_append_inst(kl_func *f, uint32_t i, uint32_t b)
{
	kl_block_data *d = &f->blocks[b];
	uint32_t last = d->last;
	uint32_t seq = SEQ_STRIDE;
	KL_ASSERT(f->nodes[i].block == KL_NONE);
	bool full = false;
	if (last == KL_NONE) {
		d->first = i;
	} else {
		f->nodes[last].next = i;
		full = f->nodes[last].seq > UINT32_MAX - SEQ_STRIDE;
		seq = f->nodes[last].seq + SEQ_STRIDE;
	}
	f->nodes[i] = (kl_inst_node){ last, KL_NONE, b, seq };
	d->last = i;
	if (KL_UNLIKELY(full))
		layout_relabel(f, i);
}
void layout_insert_inst_before(kl_func *f, uint32_t i, uint32_t before);

/* Unlink placed instruction i from its block (inline: a pass may remove
 * a good part of a function's instructions one by one). */
static inline void
layout_remove_inst(kl_func *f, uint32_t i)
{
	kl_inst_node *n = &f->nodes[i];
	KL_ASSERT(n->block != KL_NONE);
	kl_block_data *d = &f->blocks[n->block];
	if (n->prev == KL_NONE)
		d->first = n->next;
	else
		f->nodes[n->prev].next = n->next;
	if (n->next == KL_NONE)
		d->last = n->prev;
	else
		f->nodes[n->next].prev = n->prev;
	n->prev = n->next = n->block = KL_NONE;
}

/* ---- names ---- */
/* Does the name print as %name (every byte a letter, digit, _ or .)? */
bool name_is_plain(const char *s, size_t n);
/* Write a name as the text format does: %name, #hex or noname. */
void fmt_name(kl_buf *out, const char *s, size_t n);
/* The same for a symbol of m (something visibly wrong if out of range). */
void fmt_sym(kl_buf *out, const kl_module *m, uint32_t sym);

/* The log2 of an alloca's default alignment, the text format's and the
 * builder's (align 0): the least power of two not below size, at most
 * 16; 16 for alloca_dyn, whose size is not known (have_size false). */
static inline uint8_t
alloca_default_align_log2(uint32_t size, bool have_size)
{
	uint8_t k = 0;
	while (have_size && k < 4 && (1u << k) < size)
		k++;
	return have_size ? k : 4;
}

#endif /* KEEL_IR_H */
