/*
 * verify.h -- what the verifier's files share: the state of one run over
 * one function, the safe accessors every check reads the IR through, and
 * the phases (structure.c, ssa.c, typing.c, memory.c; listing.c renders).
 * The fast path (fast.c, fastdom.c) has its own state at the end.
 *
 * The verifier reads IR that may be broken in any way, so nothing here
 * trusts an index: every table access goes through a check, and value-list
 * handles are validated (vlist) before their elements are read.
 *
 * Scratch memory is allocated once per function, never per instruction,
 * and kept small: fresh memory costs page faults, which on some machines
 * cost more than the checks themselves (docs/verifier.md, "Performance").
 * It holds what the structure phase learnt, so that later phases need not
 * re-check: the placed bitmap says instruction i was found in a block list
 * that names it (so nodes[i].block and nodes[i].seq are right); vals[v]
 * says whether and where v is really defined, and its type's class.
 *
 * The invariants, each checked by both paths (docs/verifier.md, "The
 * checks", has the messages and the tests of each):
 *
 *  structure.c -- instruction integrity
 *   I1  the opcode is valid; cond/trap codes, alignments and pooled
 *       immediates are in range.
 *   I2  the result count is the opcode's, or the callee's signature's;
 *       select has three operands, call_indirect a callee.
 *   I3  results and block parameters are values in range, of valid type,
 *       whose value-table entry names them back; every kind is valid.
 *   I4  used values are in range and defined, their definition placed.
 *   I5  branch targets, sigrefs, symbols and signatures exist (blocks in
 *       the layout); only functions are called.
 *   I6  operand lists and branch destinations are sound value-list
 *       handles.
 *   I7  an instruction is in at most one block; a value has exactly one
 *       definition.
 *  structure.c -- block integrity
 *   B1  the block layout and each instruction list are acyclic lists of
 *       existing entities, their links, first/last fields, placed flags,
 *       sequence numbers (increasing) and block fields agreeing.
 *   B2  every block is non-empty and ends with its only terminator.
 *   B3  a block parameter belongs to its block.
 *   B4  there is an entry block, and no branch targets it.
 *  ssa.c -- SSA form
 *   S1  every use in a reachable block is dominated by its definition; a
 *       branch argument is used at the end of its block.
 *   S2  alias chains end in a defined value, without a cycle, each alias
 *       of its end's type; dominance is checked on the end.
 *   S3  a cached CFG or dominator tree equals a fresh one.
 *  typing.c -- types
 *   T1  each opcode's TYPING rule (keel_opcodes.def) holds for its
 *       operands, immediates and results.
 *   T2  calls, branches and returns match their signature, target
 *       parameters or function results; the entry block's parameters
 *       match the function's.
 *  memory.c -- warnings, not errors
 *   M1  a constant-offset access to an alloca or data object stays inside
 *       it; no store into a const data object.
 */
#ifndef KEEL_VERIFY_H
#define KEEL_VERIFY_H

#include "../analysis/idoms.h"
#include "../ir/ir.h"

/* vinfo.state: how a value is defined. */
enum {
	DEF_NONE = 0,  /* not defined by anything placed */
	DEF_OK = 1,    /* defined once, by a placed instruction or block */
	DEF_TWICE = 2, /* defined more than once (reported) */
};

/*
 * What the checks need to know about a value, in one 8-byte record, so
 * that an operand costs one memory access (operands are scattered all
 * over a big function, so these are cache misses, the verifier's main
 * cost): the block that defines it and the machine class of its type.
 */
typedef struct vinfo {
	uint32_t block; /* the parameter's block or the result's block */
	uint8_t cls;    /* machine class, VCLS_NONE if the type is invalid */
	uint8_t state;  /* DEF_* */
	uint16_t pad;
} vinfo;

#define VCLS_NONE 0xff

/* Bitmaps: one bit per instruction or block. */
static inline bool
bit_get(const uint64_t *bits, uint32_t k)
{
	return (bits[k >> 6] >> (k & 63)) & 1;
}

static inline void
bit_set(uint64_t *bits, uint32_t k)
{
	bits[k >> 6] |= (uint64_t)1 << (k & 63);
}

/* The arrays of a kl_verify_scratch, reused from call to call. */
enum {
	S_PLACED, S_LISTED, S_IN_LAYOUT, S_VALS, S_FIRST_USER, S_ALIAS_ROOT,
	S_ALIAS_STATE, S_ADDR_BASE, S_ADDR_OFF, S_ADDR_STATE, S_COUNT
};

struct kl_verify_scratch {
	struct {
		void *p;
		size_t cap; /* bytes */
	} slot[S_COUNT];
	uint32_t *stack;       /* explicit stack for chains */
	uint32_t stack_cap;
	kl_cfg *cfg;           /* computed afresh for every function */
	kl_domtree *dt;
	void *arena_mem;       /* the fast path's arrays, as allocated */
	char *arena;           /* ... from a huge-page boundary when large */
	size_t arena_cap;      /* usable bytes at arena */
};

/*
 * Array `slot` of the scratch with room for `bytes`, every byte set to
 * `fill` when fill >= 0 (a fresh zeroed array comes from calloc, whose
 * pages the system zeroes only when they are touched).
 */
void *scratch_get(kl_verify_scratch *s, int slot, size_t bytes, int fill);

typedef struct verifier {
	const kl_func *f;
	const kl_module *m;
	const kl_verify_ctx *ctx;
	kl_verify_scratch *s;
	kl_diags *out;
	uint32_t errors;
	const kl_opinfo *ops;  /* kl_op_table, indexed by (valid) opcode */

	/* What the structure phase established. */
	uint64_t *listed;      /* instructions found in a block's list */
	uint32_t nlisted;
	uint64_t *placed;      /* ... of their own block, with a valid opcode */
	uint64_t *in_layout;   /* blocks in the block layout */
	vinfo *vals;           /* per value */
	uint32_t *first_user;  /* per value (aliases only), or NULL */
	uint32_t *alias_root;  /* per value: resolved alias target, or NULL */
	bool layout_ok;        /* block and instruction lists are sound */
	bool cfg_ok;           /* safe to compute the CFG and dominator tree */
	uint32_t entry;        /* entry block, or KL_NONE */
	uint32_t nplaced_blocks; /* blocks found in the layout, from the
				  * first one by their next links */
	uint32_t nplaced_insts;
	bool has_memory;       /* loads or stores: the memory rules run */

	/* Analyses (in the scratch), computed afresh when cfg_ok. */
	kl_cfg *cfg;
	kl_domtree *dt;

	/* Memory rules: per value, the (base, offset) of an address. */
	uint32_t *addr_base;   /* KL_NONE unknown, else the base instruction */
	int64_t *addr_off;
	uint8_t *addr_state;   /* 0 not computed, 1 busy, 2 done; or NULL */
} verifier;

/* Is instruction i in the layout, in the list of the block it names? */
static inline bool
is_placed(const verifier *vf, uint32_t i)
{
	return i < vf->f->ninsts && bit_get(vf->placed, i);
}

static inline bool
block_in_layout(const verifier *vf, uint32_t b)
{
	return b < vf->f->nblocks && bit_get(vf->in_layout, b);
}

/* ---- reporting and timing (verify.c) ---- */

/* Seconds on the clock the phase times use (see verify.c). */
double verify_now(void);

/* Report an error about instruction i (line: i's source line). */
void err_inst(verifier *vf, uint32_t i, const char *fmt, ...)
	KL_PRINTF(3, 4);
/* A warning about instruction i: reported, listed, but the function
 * still verifies (the memory rules: what would trap if it ran, which a
 * pass may expose in code that never runs; docs/verifier.md). */
void warn_inst(verifier *vf, uint32_t i, const char *fmt, ...)
	KL_PRINTF(3, 4);
void err_block(verifier *vf, uint32_t b, const char *fmt, ...)
	KL_PRINTF(3, 4);
/* About value v, shown at instruction i (may be KL_NONE). */
void err_value(verifier *vf, uint32_t v, uint32_t i, const char *fmt, ...)
	KL_PRINTF(4, 5);
void err_func(verifier *vf, const char *fmt, ...)
	KL_PRINTF(2, 3);
void err_sigref(verifier *vf, uint32_t s, const char *fmt, ...)
	KL_PRINTF(3, 4);

/* ---- safe access ---- */

/*
 * A value list of the function's pool, if the handle is sound: 0 (empty)
 * or a block inside the pool whose header gives a length that fits both
 * its size class and the pool. Returns false for a broken handle.
 */
static inline bool
vlist(const kl_func *f, uint32_t h, const uint32_t **elems, uint32_t *n)
{
	*elems = NULL;
	*n = 0;
	if (h == 0)
		return true;
	if (h >= f->pool.len || !f->pool.data)
		return false;
	uint32_t hdr = f->pool.data[h - 1];
	uint32_t len = hdr & ((1u << 27) - 1), bin = hdr >> 27;
	if (bin >= POOL_BINS || (uint64_t)len + 1 > (4ull << bin) ||
	    (uint64_t)h + len > f->pool.len)
		return false;
	*elems = f->pool.data + h;
	*n = len;
	return true;
}

/*
 * A destination word (ir.h, DEST_BLOCK), if sound: a block alone, or a
 * sound list holding at least the block. The block is not checked here.
 */
static inline bool
vdest(const kl_func *f, uint32_t d, uint32_t *block, const uint32_t **args,
      uint32_t *nargs)
{
	const uint32_t *e;
	uint32_t n;
	/* A list's header must also fit its size class (vlist). */
	if (!(d & DEST_BLOCK) && !vlist(f, d, &e, &n)) {
		*block = KL_NONE;
		*args = NULL;
		*nargs = 0;
		return false;
	}
	return dest_read(&f->pool, d, block, args, nargs);
}


/* v through its aliases (when the alias phase found them sound). */
static inline uint32_t
resolved(const verifier *vf, uint32_t v)
{
	if (vf->alias_root && v < vf->f->nvalues)
		return vf->alias_root[v];
	return v;
}

/*
 * The type of operand v as the checks see it: the machine class of the
 * value it resolves to, or KL_TYPE_NONE when v is broken (out of range,
 * undefined, a broken alias) -- already reported, so type rules skip it.
 */
static inline kl_type
operand_class(const verifier *vf, uint32_t v)
{
	if (v >= vf->f->nvalues)
		return KL_TYPE_NONE;
	uint32_t r = resolved(vf, v);
	if (r >= vf->f->nvalues || vf->vals[r].state != DEF_OK ||
	    vf->vals[r].cls == VCLS_NONE)
		return KL_TYPE_NONE;
	return vf->vals[r].cls;
}

/*
 * The operands of placed instruction i, read safely: value operands
 * (args), result values, branch destinations (destination words, read
 * with dest_get). Returns false when a list handle is broken.
 */
typedef struct inst_view {
	const kl_opinfo *info;
	const uint32_t *args;
	uint32_t nargs;
	const uint32_t *results;
	uint32_t nresults;
	const uint32_t *dests; /* destination words */
	uint32_t ndests;
} inst_view;

bool inst_view_get(const kl_func *f, uint32_t i, inst_view *iv);
/*
 * The view of placed instruction i when every part of it is safe to read
 * (valid opcode, sound lists, the right operand counts, a valid pooled
 * immediate); false otherwise -- the structure phase reported why.
 */
bool inst_readable(const kl_func *f, uint32_t i, inst_view *iv);
/* Destination k of a view: block and arguments, false if broken. */
bool dest_get(const kl_func *f, const inst_view *iv, uint32_t k,
	      uint32_t *block, const uint32_t **args, uint32_t *nargs);
/*
 * How messages name destination k of a branch after its block, when the
 * branch has more than one: " (then)", " (else)" for brif, " (default)",
 * " (table entry N)" for br_table (docs/ir.md's words); "" for a jump,
 * whose one edge needs no name. Written into buf, which is returned.
 */
const char *dest_label(char *buf, size_t cap, const inst_view *iv,
		       uint32_t k);

/*
 * Where each format keeps its operands (src/ir/ir.h): the fixed value
 * operands are words aw .. aw+na-1, the fixed destination lists words
 * dw .. dw+nd-1, and `lists` says which words hold pool lists instead
 * (L_* below). Indexed by kl_format.
 */
typedef struct verify_layout {
	uint8_t aw, na, dw, nd, lists;
} verify_layout;

enum {
	L_ARGS_W0 = 1,    /* args list in w0 (return) */
	L_ARGS_W1 = 2,    /* args list in w1 (select) */
	L_ARGS_W2 = 4,    /* args list in w2 (calls) */
	L_RESULTS_W0 = 8, /* results list in w0 (calls) */
	L_DESTS_W1 = 16,  /* list of destination lists in w1 (br_table) */
};

/* A table rather than a switch: the formats of consecutive instructions
 * are random, and a branch per format would be mispredicted on most of
 * them. In the header so that the fast path's per-opcode cases fold it. */
static const verify_layout verify_layouts[] = {
	[KL_FMT_CONST] = { 0, 0, 0, 0, 0 },
	[KL_FMT_UNARY] = { 1, 1, 0, 0, 0 },
	[KL_FMT_BINARY] = { 1, 2, 0, 0, 0 },
	[KL_FMT_BINARY_IMM] = { 1, 1, 0, 0, 0 },
	[KL_FMT_ICMP] = { 1, 2, 0, 0, 0 },
	[KL_FMT_ICMP_IMM] = { 1, 1, 0, 0, 0 },
	[KL_FMT_FCMP] = { 1, 2, 0, 0, 0 },
	[KL_FMT_TERNARY] = { 0, 0, 0, 0, L_ARGS_W1 },
	[KL_FMT_LOAD] = { 1, 1, 0, 0, 0 },
	[KL_FMT_STORE] = { 0, 2, 0, 0, 0 },
	[KL_FMT_ALLOCA] = { 0, 0, 0, 0, 0 },
	[KL_FMT_ALLOCA_DYN] = { 1, 1, 0, 0, 0 },
	[KL_FMT_SYMBOL] = { 0, 0, 0, 0, 0 },
	[KL_FMT_CALL] = { 0, 0, 0, 0, L_RESULTS_W0 | L_ARGS_W2 },
	[KL_FMT_CALL_INDIRECT] = { 0, 0, 0, 0, L_RESULTS_W0 | L_ARGS_W2 },
	[KL_FMT_JUMP] = { 0, 0, 0, 1, 0 },
	[KL_FMT_BRIF] = { 0, 1, 1, 2, 0 },
	[KL_FMT_BR_TABLE] = { 0, 1, 0, 0, L_DESTS_W1 },
	[KL_FMT_RETURN] = { 0, 0, 0, 0, L_ARGS_W0 },
	[KL_FMT_TRAP] = { 0, 0, 0, 0, 0 },
};

/* Would a + b overflow? (address offsets: memory.c and fast.c) */
static inline bool
add_overflows(int64_t a, int64_t b)
{
	return (b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b);
}

/* Is op an immediate division or remainder whose immediate, read in
 * w bits (8 to 64), is zero? */
static KL_ALWAYS_INLINE bool
imm_divides_by_zero(uint16_t op, int64_t imm, uint32_t bits)
{
	bool divides = op == KL_OP_SDIV_IMM || op == KL_OP_UDIV_IMM ||
		       op == KL_OP_SREM_IMM || op == KL_OP_UREM_IMM;
	uint64_t mask = bits >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << bits) - 1;
	return divides && ((uint64_t)imm & mask) == 0;
}

/* Names for messages. */
const char *tname(const verifier *vf, kl_type t);
const char *opname(const verifier *vf, uint32_t i);

/* ---- phases ---- */
/* All of them, reporting every error (verify.c). */
kl_status verify_careful(const kl_func *f, const kl_verify_ctx *ctx,
			 kl_verify_scratch *s, kl_diags *out);
void check_structure(verifier *vf);           /* structure.c */
void check_aliases(verifier *vf);             /* ssa.c */
void check_analyses(verifier *vf);            /* ssa.c */
void check_uses(verifier *vf, uint32_t i, const inst_view *iv);
void check_types(verifier *vf, uint32_t i, const inst_view *iv); /* typing.c */
void check_entry_params(verifier *vf);
void check_memory(verifier *vf, uint32_t i, const inst_view *iv); /* memory.c */

/* ---- the fast path (fast.c, fastdom.c) ---- */

/*
 * The fast path decides, with no messages, whether a function is free of
 * errors; when it cannot say yes, the phases above run and report. It
 * must never say yes where they would report anything (it may be
 * stricter: that only costs time), so it makes every check they make,
 * in one pass over the instructions, reading the IR in place.
 * Dominance is a block's dom_span (src/analysis/idoms.h).
 */

/*
 * A value the fast path's walk has defined (fast.c, use): its block's
 * span, so that a use checks dominance without reading the value table
 * or the definition's layout node, and its class.
 */
typedef struct vdef {
	uint32_t lo, hi; /* its block's dom_span */
	uint32_t cls;    /* VDEF_SET | its class | flags; 0: not defined */
} vdef;

/* vdef.cls: the class in the low bits, so that a use's class is seen
 * to be valid (not -1) without a test; VDEF_ALLOCA: the value is an
 * alloca's result. */
enum { VDEF_CLASS = 7, VDEF_SET = 8, VDEF_ALLOCA = 16 };


typedef struct fast {
	/* Read by every operand: kept together. */
	const kl_value_data *values;
	const kl_inst_node *nodes;
	dom_span *dom;          /* per block, and [0, 0] at nblocks */
	uint64_t *in_layout;   /* per block: in the layout */
	uint32_t nvalues, ninsts, nblocks;
	uint32_t blk, seq, lo, hi; /* the instruction being checked: its
				    * block, sequence number and block's
				    * dom_span */
	vdef *vdefs;           /* per value: as defined so far */
	uint32_t ndefs;        /* values with a vdef */

	const kl_func *f;
	const kl_module *m;
	const kl_inst_data *insts;
	kl_verify_scratch *s;
	uint32_t entry;
	int ptr;               /* class of the pointer type, -1 if none */
	kl_signature sig;      /* the function's */
	uint32_t nplaced_blocks, nplaced_insts;
	uint32_t nedges;       /* room for edges, then how many there are */
	uint32_t *alias_root;  /* per value; set up at the first alias */
	int alias_state;       /* fast.c: ALIASES_* */
	uint64_t *addr_known;  /* per value: addr_base/addr_off memoised */
	bool addr_started;     /* addr_known is cleared */
	uint32_t *addr_base;
	int64_t *addr_off;

	/* The dominator tree's work (fastdom.c); per block or DFS number. */
	succ_span *sspan;
	uint32_t *succ, *vertex, *anc, *label, *semi, *idom, *preds;
	uint32_t *pstart;      /* per DFS number: its first predecessor */
} fast;

/* fastdom.c: the block layout and successors; false if broken. */
bool fast_layout(fast *fs);
/* fastdom.c: the dominator tree of what fast_layout found, in fs->dom. */
void fast_domtree(fast *fs);
/*
 * fast.c: true if f has no error at all; false if it may have some (the
 * careful phases then decide). Adds its phase times to st, and the counts
 * when it returns true.
 */
bool verify_fast(const kl_func *f, const kl_verify_ctx *ctx,
		 kl_verify_scratch *s, kl_verify_stats *st);

#endif /* KEEL_VERIFY_H */
