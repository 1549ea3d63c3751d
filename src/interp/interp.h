/*
 * interp.h -- what the interpreter's files share: the decoded form of a
 * function, the memory of a running program, and the interpreter state.
 *
 *   decode.c    IR function -> decoded function (on its first call, and
 *               again after it changed)
 *   exec.c      the dispatch loop, calls and returns, fuel
 *   memory.c    objects, pointers, the alloca stack, data initialisation
 *   builtins.c  the external functions the interpreter provides
 *   interp.c    the public API, traps and their descriptions, value text
 *
 * Decoded form. Every SSA value of a function is a register slot of its
 * frame (slot = the value's number after alias resolution), so operands
 * are resolved once; a frame is a zeroed array of 64-bit registers. An
 * integer register holds its value zero-extended from its width (the
 * "canonical" form every operation keeps), a float register its IEEE bits.
 * Each IR instruction becomes at most one 24-byte dinst (plus, for a brif
 * or br_table, a D_COPYGO stub per edge that copies arguments) whose opcode
 * (enum dop) already says what to do at which width: immediates are
 * pre-masked, constant operands of binary operations are folded into the
 * instruction, and an iconst all of whose uses were folded disappears.
 * Branch arguments become sequential copies (the parallel copy
 * sequentialised at decode time, with one scratch register for cycles).
 *
 * Fuel and the instruction counter. A segment is a run of IR instructions
 * that ends at a call or a terminator; control enters a segment only at
 * its start (a block start, or the instruction after a call). Entering a
 * segment charges its length in IR instructions against the fuel, so the
 * counter costs one subtraction per block, and executed = charged minus
 * what is left of the segment that was running when a run ended.
 */
#ifndef KEEL_INTERP_H
#define KEEL_INTERP_H

#include <stdatomic.h>

#include "../ir/ir.h"

/* Decoded opcodes. Fields used: see the comment on each group. */
enum dop {
	/* d = result register, a, b = operand registers, imm */
	D_MOVI,   /* r[d] = imm (constants, symbol addresses) */
	D_COPY,   /* r[d] = r[a] */
	D_IADD, D_ISUB, D_IMUL, D_IADDI, D_IMULI, D_IRSUBI,
	D_SDIV, D_UDIV, D_SREM, D_UREM, D_SDIVI, D_UDIVI, D_SREMI, D_UREMI,
	D_INEG, D_BNOT, D_BAND, D_BOR, D_BXOR, D_BANDI, D_BORI, D_BXORI,
	D_ISHL, D_USHR, D_SSHR, D_ROTL, D_ROTR,
	D_ISHLI, D_USHRI, D_SSHRI, D_ROTLI, D_ROTRI, /* imm: amount mod w */
	D_CLZ, D_CTZ, D_POPCNT,
	/* integer compares, result 0/1; ..I: against imm */
	D_IEQ, D_INE, D_ISLT, D_ISLE, D_ISGT, D_ISGE,
	D_IULT, D_IULE, D_IUGT, D_IUGE,
	D_IEQI, D_INEI, D_ISLTI, D_ISLEI, D_ISGTI, D_ISGEI,
	D_IULTI, D_IULEI, D_IUGTI, D_IUGEI,
	D_FCMP32, D_FCMP64, /* aux: kl_floatcc */
	D_SELECT,  /* r[d] = r[imm] ? r[a] : r[b] */
	D_BMASK,   /* r[d] = r[a] ? mask : 0 */
	D_SEXT,    /* from width 64 - aux to width 64 - sh */
	D_MASK,    /* ireduce: r[d] = r[a] & mask */
	D_FADD32, D_FSUB32, D_FMUL32, D_FDIV32, D_SQRT32,
	D_FADD64, D_FSUB64, D_FMUL64, D_FDIV64, D_SQRT64,
	D_FXOR,    /* fneg: r[d] = r[a] ^ imm (the sign bit) */
	D_FAND,    /* fabs: r[d] = r[a] & imm */
	D_FPROMOTE, D_FDEMOTE,
	D_F32TOS, D_F64TOS, D_F32TOU, D_F64TOU, /* to an int of width 64-sh */
	D_STOF32, D_STOF64, D_UTOF32, D_UTOF64, /* from int width 64 - aux */
	/* memory: address r[a] + imm; loads into r[d]; stores r[d] */
	D_LOAD8, D_LOAD16, D_LOAD32, D_LOAD64,
	D_SLOAD8, D_SLOAD16, D_SLOAD32,          /* sign-extend, mask to sh */
	D_STORE8, D_STORE16, D_STORE32, D_STORE64,
	D_ALLOCA,     /* r[d] = a fresh zeroed object of imm bytes */
	D_ALLOCA_DYN, /* ... of r[a] bytes */
	/* calls: imm points at the call's dcall (d: its index) */
	D_CALL, D_CALL_INDIRECT,
	/*
	 * control. Branch targets are signed displacements from the branch;
	 * costs are the lengths of the target segments; copy lists are
	 * (dst, src) register pairs.
	 */
	D_JUMP,   /* pc += d, charge imm */
	D_JUMPC,  /* b copies at imm (a pointer), pc += d, charge a */
	D_COPYGO, /* b copies at imm, pc += d (an edge stub, no charge) */
	D_BRIF,   /* pc += r[a] ? d : b; charge imm low / high half */
	D_BR_TABLE, /* r[a] < b ? table[1 + r[a]] : table[0]: imm points
		       at the (displacement, cost) pairs */
	D_RETURN, /* b values, registers listed at imm */
	D_TRAP,   /* aux: kl_trapcode, imm: user code */
	D_OUT_OF_FUEL, /* patched over the instruction where fuel runs out */
	D_COUNT
};

typedef struct dinst {
	uint16_t op;
	uint8_t sh;  /* 64 - width of the integer type the op works at */
	uint8_t aux; /* condition code, source shift, trap code */
	uint32_t d, a, b;
	uint64_t imm;
} dinst;

/* Cold per-instruction data, parallel to code[]. */
typedef struct dpc {
	uint32_t inst;     /* the IR instruction; KL_NONE for an edge stub */
	uint32_t seg_left; /* IR instructions after this one in its segment */
} dpc;

typedef struct dcall {
	uint32_t callee;   /* symbol (direct calls) */
	uint32_t ptr;      /* register of the callee address (indirect) */
	uint32_t sig;      /* module signature (indirect) */
	uint32_t args;     /* argument registers at slots[args] */
	uint32_t nargs;
	uint32_t results;  /* result registers at slots[results] */
	uint32_t nresults;
	uint32_t types;    /* argument machine types at slots[types] */
	uint32_t rtypes;   /* result machine types at slots[rtypes] */
	uint32_t cont_cost; /* length of the segment after the call */
} dcall;

typedef struct dfunc {
	const kl_func *f;
	uint64_t edits;      /* f->edits when this was decoded */
	uint32_t sym;
	uint32_t nregs;      /* registers of a frame, the scratch included */
	uint32_t entry_cost; /* length of the entry block's first segment */
	dinst *code;
	dpc *pcs;
	uint32_t ncode;
	uint32_t *slots;     /* operand lists: see enum dop */
	uint32_t nslots;
	dcall *calls;
	uint32_t ncalls;
	uint32_t params;     /* entry block parameter registers at slots[] */
	uint32_t nparams;
} dfunc;

/* ---- memory ---- */

/*
 * Objects. A pointer is (id << 32 | offset). Id 0 is null; ids 1..nsyms
 * are the module's symbols (data objects; functions, as size-0 objects
 * whose address call_indirect accepts); later ids are allocas and heap
 * objects, numbered in creation order and never reused. Objects live in
 * pages of OBJ_PAGE entries; a page all of whose objects are dead is
 * freed, so a long run does not keep a record of every dead alloca, and
 * an access through a pointer into it still traps.
 */
#define OBJ_PAGE_BITS 10
#define OBJ_PAGE (1u << OBJ_PAGE_BITS)

typedef struct obj {
	uint8_t *base;
	uint32_t size;  /* readable bytes; 0 once dead */
	/* writable bytes: size, or 0 (const data, dead, and writable data
	 * not written since memory was made or reset: see mem_first_write) */
	uint32_t wsize;
} obj;

enum obj_kind { OK_NONE, OK_DATA, OK_FUNC, OK_ALLOCA, OK_HEAP };

typedef struct obj_info {
	uint8_t kind;   /* obj_kind */
	uint8_t dead;
	uint8_t wdata;  /* writable data (its wsize is 0 until written) */
	uint32_t size;  /* the size it was created with */
	uint32_t sym;   /* data/function symbol; alloca: its function */
	uint32_t inst;  /* alloca: its instruction */
} obj_info;

typedef struct obj_page {
	obj hot[OBJ_PAGE];
	obj_info cold[OBJ_PAGE];
	uint32_t live;
	bool charged; /* counted in mem_used (made by a run: memory.c) */
} obj_page;

/* A chunk of the alloca stack. */
typedef struct chunk {
	uint8_t *mem;
	size_t size, used;
} chunk;

/* A caller's frame, saved while its callee runs. */
typedef struct frame {
	dfunc *fn;
	const dinst *call; /* the call instruction to return to */
	uint32_t base;     /* first register of the frame */
	uint32_t allocas;  /* alloca-stack height at the callee's entry */
	uint32_t chunk;    /* alloca memory mark at the callee's entry */
	size_t used;
} frame;

/* A trap or failure being raised (see raise_* in interp.c). */
typedef struct pending {
	kl_run_status status;
	uint32_t trap, user_code;
	int32_t exit_code;
	kl_buf msg;
	/* out of fuel or stopped: the IR instruction the run did not
	 * reach (found by segment_inst, exec.c) */
	uint32_t stop_inst;
} pending;

struct kl_interp {
	const kl_module *m;
	kl_interp_options opts;
	uint32_t nsyms;
	dfunc **funcs;       /* by symbol, decoded on first call */
	/* m->edits when every decoded function was last found current:
	 * while it is unchanged, none of them needs decoding again */
	uint64_t edits_seen;
	/* m->data_edits when memory was last found to be what the module
	 * makes (each data object of a symbol below nsyms of its size now),
	 * or when the symbols were last taken in (follow_syms): while it is
	 * unchanged, no data changed since; one comparison a call */
	uint64_t data_seen;
	uint64_t decoded;    /* decodings made (for tests) */
	uint64_t setups;     /* memories made from the module (for tests) */
	uint8_t *bids;       /* by symbol: built-in number, 0 = not looked up */

	/* memory */
	obj_page **pages;
	uint32_t npages, pages_cap;
	uint32_t next_id;
	uint64_t mem_used;
	bool data_ready;
	/* for mem_reset: the charge of the data as mem_setup left it, and
	 * the ids of the writable data objects written since memory was
	 * made or reset (each once: mem_first_write) */
	uint64_t setup_mem_used;
	uint32_t *dirty;
	uint32_t ndirty, dirty_cap;
	chunk *chunks;
	uint32_t nchunks, chunks_cap, cur_chunk;
	uint32_t *allocas;   /* ids of live allocas, oldest first */
	uint32_t nallocas, allocas_cap;

	/* execution */
	dfunc *fn;           /* the running function */
	kl_run_result *res;  /* where the current call's outcome goes */
	uint32_t base;       /* first register of the running frame */
	uint64_t *regs;
	uint32_t regs_cap;
	frame *frames;
	uint32_t nframes, frames_cap;
	uint64_t fuel_start; /* fuel given to the current call */
	/* The fuel not yet handed to the loop: it gets at most FUEL_CHUNK
	 * beyond a segment's cost at a time, so running out of what it has
	 * is the moment to look at stop, at no cost on the hot path. */
	uint64_t fuel_bank;
	/* A call is running: the output callback, the one way back into
	 * the library during a run, may not call or reset this interpreter
	 * (the run owns its registers, frames and memory). A call from
	 * there is refused; a reset is not done, and stops the run when
	 * the callback returns. */
	bool in_call;
	bool reset_in_call;
	/* kl_interp_stop was called: from the output callback, another
	 * thread or a signal handler, so atomic. Cleared as a call ends, so
	 * one that comes before a call stops that call; the loop looks at
	 * it between fuel chunks and after a builtin call, output() after
	 * the callback. */
	atomic_bool stop;
	/* what the segment that ran the fuel out was not charged (its
	 * length less the fuel left): a trap before the planted stop counts
	 * its instructions with it */
	uint64_t fuel_short;
	dinst *patch;        /* the instruction D_OUT_OF_FUEL replaced */
	dinst patch_saved;
	pending pend;

	/* the last result */
	uint64_t *results;
	uint32_t results_cap;
	kl_run_frame *stack;
	uint32_t stack_cap;
	kl_buf message;
	kl_buf scratch;
};

/* ---- decode.c ---- */
/* The decoded form of symbol sym's function; NULL with pend set on error. */
dfunc *decode_func(kl_interp *it, uint32_t sym);
void dfunc_free(dfunc *fn);
/*
 * Sequentialise the parallel copy dst[i] <- src[i] (i < n, dsts distinct,
 * no dst == src) into (dst, src) pairs appended to out, using register tmp
 * to break cycles (Boissinot et al., "Revisiting Out-of-SSA Translation
 * for Correctness, Code Quality, and Efficiency", CGO 2009, Algorithm 1).
 * loc, pred and done are scratch arrays indexed by register, of at least
 * tmp + 1 entries, all KL_NONE / 0 on entry and left so on return; ready
 * has room for n entries. Returns the number of pairs written (at most n
 * plus the number of cycles, so at most 2n).
 */
uint32_t pcopy_sequence(const uint32_t *dst, const uint32_t *src, uint32_t n,
			uint32_t tmp, uint32_t *loc, uint32_t *pred,
			uint8_t *done, uint32_t *ready, uint32_t *out);

/* ---- exec.c ---- */
/* Run fn with the registers of its frame at it->regs[0..] already holding
 * the arguments; results go to it->results. Sets it->pend on a trap. The
 * decoded code refers to its operand lists by pointer: fn must not change
 * while it runs. */
void exec_run(kl_interp *it, dfunc *fn, kl_run_result *res);

/* ---- memory.c ---- */
void mem_init(kl_interp *it);
void mem_free(kl_interp *it);
/* Memory as mem_setup leaves it (or none, when it has not run), when
 * the module's data is still what mem_setup made it from. */
void mem_reset(kl_interp *it);
/* Create the symbol objects and fill data; false with it->pend set (and
 * no memory: the next mem_setup starts from scratch). */
bool mem_setup(kl_interp *it);
/* The first symbol whose data object's size is not the module's size of
 * it now (items were appended since mem_setup), or KL_NONE. */
uint32_t mem_stale_data(const kl_interp *it);
static inline obj *
obj_get(const kl_interp *it, uint32_t id)
{
	uint32_t pg = id >> OBJ_PAGE_BITS;
	if (pg >= it->npages || !it->pages[pg])
		return NULL;
	return &it->pages[pg]->hot[id & (OBJ_PAGE - 1)];
}
/*
 * Is an access of n bytes at pointer p entirely inside one live object
 * (when writing, a writable one: writes go through mem_store_check)?
 * If so, *h is its host address. (A bool, not a NULL pointer: the
 * compiler cannot know that base + offset is not NULL, and tested the
 * pointer again after every check, two instructions an access.)
 */
static inline bool
mem_check(const kl_interp *it, uint64_t p, uint32_t n, bool write,
	  uint8_t **h)
{
	const obj *o = obj_get(it, (uint32_t)(p >> 32));
	uint64_t off = (uint32_t)p;
	if (KL_LIKELY(o && off + n <= (write ? o->wsize : o->size))) {
		*h = o->base + off;
		return true;
	}
	return false;
}
/* A write of n bytes at p that mem_check refused: the host address when
 * it is the first to writable data since memory was made or reset (it is
 * recorded, for mem_reset, and the data made writable), else NULL. */
uint8_t *mem_first_write(kl_interp *it, uint64_t p, uint32_t n);
/*
 * May n bytes at p be written (*h: their host address)? Writable data
 * is write-protected until its first write, which takes the slow path:
 * the check a store makes is mem_check's, no more.
 */
static inline bool
mem_store_check(kl_interp *it, uint64_t p, uint32_t n, uint8_t **h)
{
	if (KL_LIKELY(mem_check(it, p, n, true, h)))
		return true;
	*h = mem_first_write(it, p, n);
	return *h != NULL;
}
obj_info *obj_info_get(const kl_interp *it, uint32_t id);
/* The object p points into, for a message ("object 3 (const data %s, 6
 * bytes)"): appends to out. */
void mem_describe(const kl_interp *it, uint64_t p, kl_buf *out);
/* Why an access of n bytes at p failed, for a message: appends to out. */
void mem_explain(const kl_interp *it, uint64_t p, uint64_t n, bool write,
		 kl_buf *out);
/* Why free(p) failed, for a message: appends to out. */
void mem_explain_free(const kl_interp *it, uint64_t p, kl_buf *out);
/* A new zeroed alloca of n bytes; 0 (and pend set) past the limits. */
uint64_t mem_alloca(kl_interp *it, uint64_t n, uint32_t sym, uint32_t inst);
/* Kill the allocas above the frame mark and release their memory. */
void mem_pop_allocas(kl_interp *it, uint32_t height, uint32_t chunk,
		     size_t used);
/* Heap objects for malloc/free: 0 when out of memory. */
uint64_t mem_malloc(kl_interp *it, uint64_t n);
bool mem_free_obj(kl_interp *it, uint64_t p); /* false: not a heap object */
/* The symbol of a function address, or KL_NONE. */
uint32_t mem_func_of(const kl_interp *it, uint64_t p);

/* ---- builtins.c ---- */
/*
 * Call the external function of call c (from function fn, registers r).
 * Returns false with it->pend set (a trap, exit or failure).
 */
bool builtin_call(kl_interp *it, uint32_t sym, const dfunc *fn,
		  const dcall *c, uint64_t *r);

/* ---- interp.c ---- */
/* Set it->pend to a trap / failure; the message is printf-formatted. */
void raise_trap(kl_interp *it, uint32_t trap, const char *fmt, ...)
	KL_PRINTF(3, 4);
void raise_fail(kl_interp *it, const char *fmt, ...) KL_PRINTF(2, 3);
/* Was kl_interp_stop called? Then the run fails (true). Looked at
 * between fuel chunks, after each builtin call and after each call of
 * the output and poll callbacks. */
static inline bool
stop_asked(kl_interp *it)
{
	if (KL_LIKELY(!atomic_load_explicit(&it->stop,
					    memory_order_relaxed)))
		return false;
	raise_fail(it, "kl_interp_stop stopped the run");
	return true;
}
/* After the host's callback which ("output", "poll") returned: false,
 * the run failed, when it called kl_interp_stop, reset the interpreter
 * (kl_interp_reset left that to this check) or changed the module (the
 * code running may no longer be the module's, and its tables may have
 * moved). */
bool after_callback(kl_interp *it, const char *which);
/* The stack_overflow trap of registers past max_memory (at a call, and
 * for the entry function's own). */
void raise_register_limit(kl_interp *it);
/* Append a symbol's name as the text format writes it ("%f"). */
void put_sym(const kl_interp *it, uint32_t sym, kl_buf *out);

/* Width helpers. */
static inline uint64_t
mask_of(unsigned sh)
{
	return ~0ull >> sh;
}

/* Arithmetic right shift of a negative value is implementation-defined in
 * C; every compiler keel supports shifts arithmetically. */
_Static_assert((-8 >> 1) == -4, "signed right shift must be arithmetic");

static inline int64_t
sext(uint64_t x, unsigned sh)
{
	return (int64_t)(x << sh) >> sh;
}

#endif /* KEEL_INTERP_H */
