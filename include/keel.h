/*
 * keel.h -- the one public header of libkeel, a small SSA compiler IR.
 *
 * Everything a front end, a pass writer or a tool needs is declared here and
 * prefixed kl_. The library never prints, never exits and keeps no global
 * mutable state: errors come back as values (kl_status, kl_diags). An
 * object made by a _new function (a module, an analysis, an interpreter)
 * or by kl_parse_module is the caller's, to give back to its _free; what
 * a module makes inside itself -- the kl_func of kl_module_add_func or of
 * a parsed function, names, data, signatures -- belongs to the module and
 * goes with kl_module_free.
 *
 * Entities (values, blocks, instructions, signature references, symbols) are
 * 32-bit indices wrapped in one struct per kind, so the compiler catches a
 * block passed where a value was meant. The all-ones index KL_NONE means
 * "none". Types are plain 32-bit handles (kl_type).
 *
 * A pointer argument must not be NULL unless its comment says it may be;
 * every _free function takes NULL, as free() does.
 *
 * Lifetimes: the library copies what it is given (text to parse, names,
 * options) and keeps no pointer to it, except where a comment says so
 * (the interpreter's output callback and its context; a pass counter's
 * name). A string it returns is static, or the module's when the
 * function takes a module, and is never freed by the caller. An array
 * returned by an analysis query stays valid until that analysis object
 * is computed again or freed.
 *
 * Allocation failure is the one condition the library does not turn into a
 * value: it reports "out of memory" on stderr and aborts, as compilers do.
 * So does passing one of the IR's size limits (docs/ir.md, "Limits": 2^31
 * blocks in a function, 4 GiB of a module's bytes, ...), which only a
 * program building that much could reach. Entity-number limits in the
 * parser keep hostile input from asking for absurd amounts of memory.
 */
#ifndef KEEL_H
#define KEEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KL_VERSION "0.1.0"

/* The version of the library linked or loaded, as KL_VERSION spells it:
 * a program that loads libkeel.so (a binding through an FFI, which sees
 * no macros) learns which one it got; one compiled against keel.h can
 * compare it with the KL_VERSION it was compiled with. */
const char *kl_version(void);

/* sizeof the struct keel.h defines under NAME ("kl_run_result"), as the
 * library was compiled; 0 for a name that is no such struct (an opaque
 * one such as "kl_module" included). A binding that mirrors a struct
 * by hand compares its own size at load time: a field left out or
 * added shows, where it would otherwise corrupt memory; a wrong width
 * only when padding does not absorb it, and a wrong order never. */
size_t kl_struct_size(const char *name);

/* The reserved "none" index of every entity kind. */
#define KL_NONE UINT32_MAX

/* ------------------------------------------------------------------------
 * Growable byte buffer, used wherever the library produces text.
 * A zeroed kl_buf is empty and valid. data is NUL-terminated whenever
 * len > 0 (the terminator is not counted in len); while nothing has
 * been written, data may be NULL (printing an empty module writes
 * nothing).
 */
typedef struct kl_buf {
	char *data;
	size_t len;
	size_t cap;
} kl_buf;

void kl_buf_free(kl_buf *b); /* NULL is allowed */
void kl_buf_reset(kl_buf *b); /* len = 0, keeps the memory */
void kl_buf_reserve(kl_buf *b, size_t extra);
void kl_buf_append(kl_buf *b, const char *s, size_t n);
void kl_buf_puts(kl_buf *b, const char *s);
void kl_buf_putc(kl_buf *b, char c);
void kl_buf_printf(kl_buf *b, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;

/* ------------------------------------------------------------------------
 * Status codes returned by API calls that can fail on caller input.
 */
typedef enum kl_status {
	KL_OK = 0,
	KL_ERR_INVALID,   /* an entity index that does not exist, wrong kind */
	KL_ERR_FORMAT,    /* opcode used with the wrong builder function */
	KL_ERR_EXISTS,    /* a symbol of that name is already defined */
	KL_ERR_POSITION,  /* builder not positioned, block not in layout */
	KL_ERR_RANGE,     /* a number outside what the IR can hold */
	KL_ERR_PARSE,     /* the text has errors (see the kl_diags list) */
	KL_ERR_VERIFY,    /* the IR breaks an invariant (see the kl_diags) */
	KL_ERR_UNSUPPORTED, /* valid, but not what the call handles (see
			     * the kl_diags) */
} kl_status;

const char *kl_status_name(kl_status s);

/* ------------------------------------------------------------------------
 * Entities. Wrap a raw index with (kl_value){ n }; test with .id == KL_NONE.
 */
typedef struct kl_value { uint32_t id; } kl_value;   /* SSA value vN */
typedef struct kl_block { uint32_t id; } kl_block;   /* basic block blockN */
typedef struct kl_inst { uint32_t id; } kl_inst;     /* instruction */
typedef struct kl_sigref { uint32_t id; } kl_sigref; /* sigN of a function */
typedef struct kl_sym { uint32_t id; } kl_sym;       /* module symbol */

/* An entity of type T that is none: a compound literal in C, which C++
 * spells as a braced temporary. */
#ifdef __cplusplus
#define KL_NONE_OF(T) (T{ KL_NONE })
#else
#define KL_NONE_OF(T) ((T){ KL_NONE })
#endif
#define KL_NO_VALUE KL_NONE_OF(kl_value)
#define KL_NO_BLOCK KL_NONE_OF(kl_block)
#define KL_NO_INST KL_NONE_OF(kl_inst)
#define KL_NO_SYM KL_NONE_OF(kl_sym)
#define KL_NO_SIGREF KL_NONE_OF(kl_sigref)

/* Which kind of entity a diagnostic or annotation points at. */
typedef enum kl_entity_kind {
	KL_ENT_NONE,
	KL_ENT_FUNC,  /* id: symbol of the function */
	KL_ENT_BLOCK,
	KL_ENT_INST,
	KL_ENT_VALUE,
	KL_ENT_SIGREF,
	KL_ENT_SYM, /* for a caller's own diagnostics: the library makes none */
} kl_entity_kind;

typedef struct kl_entity {
	kl_entity_kind kind;
	uint32_t id;
} kl_entity;

/* ------------------------------------------------------------------------
 * Diagnostics: a caller-owned list the parser and verifier append to.
 */
/* The parser makes errors, the verifier errors and warnings; a note is
 * for a caller's own diagnostics (kl_diags_errors does not count it). */
typedef enum kl_severity {
	KL_SEV_ERROR,
	KL_SEV_WARNING,
	KL_SEV_NOTE
} kl_severity;

typedef struct kl_diag {
	kl_severity severity;
	uint32_t line;   /* 1-based source line, 0 if unknown */
	uint32_t col;    /* 1-based byte column, 0 if unknown */
	kl_sym func;     /* function concerned, or none */
	kl_entity loc;   /* entity the message is about, or KL_ENT_NONE */
	kl_inst inst;    /* instruction concerned (also for value errors) */
	char *message;   /* owned by the list */
} kl_diag;

typedef struct kl_diags {
	kl_diag *items;
	uint32_t len;
	uint32_t cap;
} kl_diags;

void kl_diags_free(kl_diags *d); /* NULL is allowed */
uint32_t kl_diags_errors(const kl_diags *d);
/* Append a diagnostic; the message is copied. */
void kl_diags_add(kl_diags *d, kl_severity sev, uint32_t line, uint32_t col,
		  const char *message);
/* Sort by (line, column), keeping the order of equal positions. */
void kl_diags_sort(kl_diags *d);
/*
 * Render one diagnostic as "FILE:LINE:COL: error: MESSAGE" (":COL" left
 * out when col is 0, and ":LINE:COL" when line is 0, as for the verifier's
 * errors in built IR), followed, when the source text is given and the
 * line is known, by the source line and a caret under the column (the
 * line's tabs repeated before it, and for each other character the
 * blanks a terminal gives it: one, two for a wide character such as CJK
 * or an emoji, none for a combining mark; docs/ir.md). file may be NULL
 * ("<input>").
 */
void kl_diag_render(const kl_diag *d, const char *file, const char *src,
		    size_t src_len, kl_buf *out);

/* ------------------------------------------------------------------------
 * Types. Built-in types have fixed handles: the six machine types, then
 * the refined integers; semantic types added later live in the same
 * per-module table. Each type has a machine class, one of the six machine
 * types, on which instructions are checked and executed.
 */
typedef uint32_t kl_type;

enum {
	KL_TYPE_I8 = 0,
	KL_TYPE_I16 = 1,
	KL_TYPE_I32 = 2,
	KL_TYPE_I64 = 3,
	KL_TYPE_F32 = 4,
	KL_TYPE_F64 = 5,
	/* The machine types: 0..5, each its own machine class. */
	KL_TYPE_MACHINE_COUNT = 6,
	/* Refined integers (docs/ir.md, "Refined types"): what a program
	 * means by an integer, for readers and the C emitter; each has the
	 * integer machine class of its size and computes as that class. */
	KL_TYPE_S8 = 6,
	KL_TYPE_S16 = 7,
	KL_TYPE_S32 = 8,
	KL_TYPE_S64 = 9,
	KL_TYPE_U8 = 10,
	KL_TYPE_U16 = 11,
	KL_TYPE_U32 = 12,
	KL_TYPE_U64 = 13,
	KL_TYPE_PTR = 14, /* a pointer; class i64 */
	/* All built-in handles (6 before the refined types came): the first
	 * handle past them is no type in a module without types of its own. */
	KL_TYPE_BUILTIN_COUNT = 15,
};

/* What a refined type says of its integers beyond their size. */
typedef enum kl_refinement {
	KL_REFINE_NONE,     /* a machine type: bits, no meaning */
	KL_REFINE_SIGNED,   /* sN: two's complement numbers */
	KL_REFINE_UNSIGNED, /* uN: unsigned numbers */
	KL_REFINE_POINTER,  /* ptr: an address */
} kl_refinement;

#define KL_TYPE_NONE ((kl_type)KL_NONE)

typedef struct kl_module kl_module;
typedef struct kl_func kl_func;

kl_type kl_type_class(const kl_module *m, kl_type t); /* KL_TYPE_NONE if bad */
bool kl_type_is_int(const kl_module *m, kl_type t);
bool kl_type_is_float(const kl_module *m, kl_type t);
uint32_t kl_type_bytes(const kl_module *m, kl_type t); /* 0 if bad */
/* Name of a type as the text format spells it ("i32"). */
const char *kl_type_name(const kl_module *m, kl_type t);
/* The integer type pointers have (i64). */
kl_type kl_module_pointer_type(const kl_module *m);
/* What type t says beyond its machine class (KL_REFINE_NONE for machine
 * types, floats and bad handles). */
kl_refinement kl_type_refinement(const kl_module *m, kl_type t);
/* The type refining integer class cls by r: kl_type_refined(m, KL_TYPE_I32,
 * KL_REFINE_SIGNED) is s32; KL_REFINE_NONE gives cls itself. KL_TYPE_NONE
 * when there is none: cls not an integer machine type (a float, a refined
 * type, no type), r not a kl_refinement, or KL_REFINE_POINTER of another
 * class than the pointers' (i64). m may be NULL (the built-in types). */
kl_type kl_type_refined(const kl_module *m, kl_type cls, kl_refinement r);

/* ------------------------------------------------------------------------
 * Opcodes, generated from keel_opcodes.def.
 */
#define KL_NRES_SIG 255

typedef enum kl_opcode {
#define KL_OPCODE(name, text, fmt, nres, typing, ctrl, memw, flags)          \
	KL_OP_##name,
#include "keel_opcodes.def"
#undef KL_OPCODE
	KL_OP_COUNT
} kl_opcode;

/* Operand layouts: which operands an opcode has (docs/ir.md gives each
 * opcode's). */
typedef enum kl_format {
	KL_FMT_CONST, KL_FMT_UNARY, KL_FMT_BINARY, KL_FMT_BINARY_IMM,
	KL_FMT_ICMP, KL_FMT_ICMP_IMM, KL_FMT_FCMP, KL_FMT_TERNARY,
	KL_FMT_LOAD, KL_FMT_STORE, KL_FMT_ALLOCA, KL_FMT_ALLOCA_DYN,
	KL_FMT_SYMBOL, KL_FMT_CALL, KL_FMT_CALL_INDIRECT, KL_FMT_JUMP,
	KL_FMT_BRIF, KL_FMT_BR_TABLE, KL_FMT_RETURN, KL_FMT_TRAP,
} kl_format;

/* Type rules, one per opcode column TYPING; docs/verifier.md ("Types")
 * explains each. */
typedef enum kl_typing {
	KL_TY_NONE, KL_TY_ICONST, KL_TY_F32CONST, KL_TY_F64CONST,
	KL_TY_INT_SAME, KL_TY_INT_UNARY, KL_TY_INT_SHIFT, KL_TY_INT_IMM,
	KL_TY_INT_CMP, KL_TY_INT_CMP_IMM, KL_TY_FLOAT_SAME, KL_TY_FLOAT_UNARY,
	KL_TY_FLOAT_CMP, KL_TY_SELECT, KL_TY_BMASK, KL_TY_EXTEND,
	KL_TY_REDUCE, KL_TY_BITCAST, KL_TY_FPROMOTE, KL_TY_FDEMOTE,
	KL_TY_FCVT_TO_INT, KL_TY_FCVT_FROM_INT, KL_TY_COPY, KL_TY_POINTER,
	KL_TY_ALLOCA_DYN, KL_TY_LOAD, KL_TY_LOAD_EXT, KL_TY_STORE,
	KL_TY_STORE_TRUNC, KL_TY_CALL, KL_TY_BRANCH, KL_TY_RETURN,
} kl_typing;

/* Where the controlling type (the `.T` suffix) comes from. */
typedef enum kl_ctrl {
	KL_CTRL_NONE,     /* never written */
	KL_CTRL_EXPLICIT, /* always written: it is the result type */
	KL_CTRL_ARG0,     /* first value operand's type, written if needed */
	KL_CTRL_ARG1,     /* the second value operand's type (select) */
} kl_ctrl;

enum {
	KL_OPF_TERMINATOR = 1 << 0,
	KL_OPF_BRANCH = 1 << 1,
	KL_OPF_CALL = 1 << 2,
	KL_OPF_RETURN = 1 << 3,
	KL_OPF_CAN_TRAP = 1 << 4,
	KL_OPF_CAN_LOAD = 1 << 5,
	KL_OPF_CAN_STORE = 1 << 6,
	KL_OPF_SIDE_EFFECTS = 1 << 7,
	KL_OPF_PURE = 1 << 8, /* no effects, no trap: removable when unused */
	/* the same bits with the two operands swapped: not fadd and
	 * fmul, whose result is the first NaN operand when both are */
	KL_OPF_COMMUTATIVE = 1 << 9,
};

typedef struct kl_opinfo {
	const char *name;
	uint8_t format;  /* kl_format */
	uint8_t nres;    /* 0, 1 or KL_NRES_SIG */
	uint8_t typing;  /* kl_typing */
	uint8_t ctrl;    /* kl_ctrl */
	uint8_t memw;    /* bytes accessed by sized loads/stores, else 0 */
	uint16_t flags;  /* KL_OPF_* */
} kl_opinfo;

/* The opcode's facts; NULL for a number that is no opcode. */
const kl_opinfo *kl_op_info(kl_opcode op);
const char *kl_op_name(kl_opcode op);
/* The opcode the text format names name[0..len) ("iadd_imm"), or
 * KL_OP_COUNT for none: what a front end that reads opcode names, or a
 * binding that sees no enum, looks them up with. */
kl_opcode kl_op_lookup(const char *name, size_t len);
bool kl_op_is_terminator(kl_opcode op);
bool kl_op_is_branch(kl_opcode op);
bool kl_op_is_call(kl_opcode op);
bool kl_op_is_return(kl_opcode op);
bool kl_op_can_trap(kl_opcode op);
bool kl_op_can_load(kl_opcode op);
bool kl_op_can_store(kl_opcode op);
bool kl_op_has_side_effects(kl_opcode op);
/* No effects and no trap: an instruction whose results nothing uses can
 * go. alloca is not among them: it takes stack memory, and running out
 * traps (stack_overflow), a limit of the machine that kl_op_can_trap,
 * which is about the operation itself, does not count. */
bool kl_op_is_pure(kl_opcode op);

/* Condition codes of icmp/icmp_imm and fcmp; trap codes. */
typedef enum kl_intcc {
	KL_ICC_EQ, KL_ICC_NE, KL_ICC_SLT, KL_ICC_SLE, KL_ICC_SGT, KL_ICC_SGE,
	KL_ICC_ULT, KL_ICC_ULE, KL_ICC_UGT, KL_ICC_UGE, KL_ICC_COUNT
} kl_intcc;

typedef enum kl_floatcc {
	KL_FCC_EQ, KL_FCC_NE, KL_FCC_LT, KL_FCC_LE, KL_FCC_GT, KL_FCC_GE,
	KL_FCC_ORD, KL_FCC_UNO, KL_FCC_COUNT
} kl_floatcc;

typedef enum kl_trapcode {
	KL_TRAP_UNREACHABLE, KL_TRAP_INT_DIVZ, KL_TRAP_INT_OVF,
	KL_TRAP_HEAP_OOB, KL_TRAP_USER, KL_TRAP_COUNT
} kl_trapcode;

const char *kl_intcc_name(kl_intcc cc);
const char *kl_floatcc_name(kl_floatcc cc);
const char *kl_trapcode_name(kl_trapcode t);

/* ------------------------------------------------------------------------
 * Modules and symbols. A module owns its functions, data objects, types and
 * signatures. Symbols (functions, declared or defined, and data objects)
 * share one namespace and are numbered in the order they were added, which
 * is the order the printer writes them.
 */
typedef enum kl_sym_kind { KL_SYM_FUNC, KL_SYM_DATA } kl_sym_kind;

/* A function signature; the arrays belong to whoever made the struct. */
typedef struct kl_signature {
	const kl_type *params;
	const kl_type *results;
	uint32_t num_params;
	uint32_t num_results;
	bool variadic;
} kl_signature;

kl_module *kl_module_new(void);
void kl_module_free(kl_module *m); /* NULL is allowed */

uint32_t kl_module_num_syms(const kl_module *m);
/* The symbol named by the bytes name[0..len), or KL_NO_SYM. */
kl_sym kl_module_lookup(const kl_module *m, const char *name, size_t len);
/* KL_SYM_FUNC also for a number that is no symbol: ask kl_module_lookup
 * or compare with kl_module_num_syms first. */
kl_sym_kind kl_sym_get_kind(const kl_module *m, kl_sym s);
/* The name's bytes (not NUL-terminated) and length; valid while m lives. */
const char *kl_sym_name(const kl_module *m, kl_sym s, size_t *len);
/* Append the bytes name[0..len) as the text format writes a global name
 * (for messages): %name, # and the bytes in hex, or noname when empty. */
void kl_name_format(const char *name, size_t len, kl_buf *out);
/* The function's body, or NULL for a declaration or a data object. */
kl_func *kl_sym_func(const kl_module *m, kl_sym s);
/* The signature of a function symbol; its arrays are valid while m lives. */
kl_signature kl_sym_signature(const kl_module *m, kl_sym s);

/*
 * Symbols are named by the bytes name[0..len) (copied; name may be NULL
 * when len is 0); sig may be NULL for `()` and is copied; out may be NULL
 * (kl_module_lookup finds the symbol later). Each returns
 * KL_OK or, with nothing added and *out none (NULL): KL_ERR_EXISTS if the
 * name is taken; KL_ERR_INVALID if name is NULL with len > 0 or sig has
 * a NULL array for a nonzero count or a type that is not one of m's;
 * KL_ERR_RANGE if the name is longer than 2^31 - 1 bytes or would take
 * the module's names and strings past 4 GiB - 3 bytes in all.
 */
/* Add `declare NAME SIG`. */
kl_status kl_module_declare(kl_module *m, const char *name, size_t len,
			    const kl_signature *sig, kl_sym *out);
/* Add a function definition with an empty body. *out belongs to m: it
 * lives until kl_module_free(m) and is not freed by itself. */
kl_status kl_module_add_func(kl_module *m, const char *name, size_t len,
			     const kl_signature *sig, kl_func **out);

/* Data objects: `data NAME = [const] [align N] { items }`. */
typedef enum kl_data_kind {
	KL_DATA_VALUE,  /* T value: an integer or the bits of a float */
	KL_DATA_STRING, /* i8 "bytes" */
	KL_DATA_ZERO,   /* zero N: N zero bytes */
	KL_DATA_SYMREF, /* T %sym+off: the address of a symbol */
} kl_data_kind;

typedef struct kl_data_item {
	kl_data_kind kind;
	kl_type type;      /* VALUE, SYMREF: the item's type; STRING: i8 */
	uint64_t value;    /* VALUE: bits; ZERO: count; SYMREF: signed offset */
	kl_sym sym;        /* SYMREF */
	const char *bytes; /* STRING (no NUL terminator; valid while m lives) */
	uint32_t len;      /* STRING */
} kl_data_item;

/* Add an empty data object. As kl_module_declare for the name and out, and
 * KL_ERR_RANGE when align is not a power of two. align 0 means what a data
 * object written without `align` gets in the text format: 1. (0 means the
 * text format's default for kl_build_alloca too, where it depends on the
 * size.) */
kl_status kl_module_add_data(kl_module *m, const char *name, size_t len,
			     bool is_const, uint32_t align, kl_sym *out);
/* Append an item to a data object (strings are copied). An integer
 * VALUE may be given zero- or sign-extended (255 or -1 for an i8) and is
 * kept at its width. KL_ERR_RANGE, nothing appended, if a VALUE's bits
 * do not fit its type that way (a float's only zero-extended), the object
 * would pass 2^40 bytes (so kl_data_size never wraps) or a string would
 * take the module's names and strings past 4 GiB - 3 bytes in all;
 * KL_ERR_INVALID for a bad kind, type or symbol (bytes NULL with len > 0
 * included; a SYMREF's type is an integer one). */
kl_status kl_data_append(kl_module *m, kl_sym data, const kl_data_item *item);
uint32_t kl_data_num_items(const kl_module *m, kl_sym data);
/* Item i; an all-zero item (which reads as i8 0) when i is not below
 * kl_data_num_items or data is no data object. */
kl_data_item kl_data_item_at(const kl_module *m, kl_sym data, uint32_t i);
bool kl_data_is_const(const kl_module *m, kl_sym data);
uint32_t kl_data_align(const kl_module *m, kl_sym data);
/* Total size in bytes of the object's items. */
uint64_t kl_data_size(const kl_module *m, kl_sym data);

/* Size of a module's IR, for reports and benchmarks. */
typedef struct kl_module_stats {
	uint64_t funcs, blocks, insts, values;
	/* Bytes of table entries and pool slots in use, by table. */
	uint64_t inst_bytes, layout_bytes, value_bytes, block_bytes;
	uint64_t pool_bytes, const_bytes;
	/* The parts of value_bytes and pool_bytes that block parameters
	 * take (their values and lists): the rest is what instructions
	 * take, beside inst_bytes and layout_bytes. */
	uint64_t param_value_bytes, param_list_bytes;
	uint64_t bytes_used;      /* the sum of the above but the parts */
	uint64_t bytes_allocated; /* table and pool capacity */
} kl_module_stats;

void kl_module_get_stats(const kl_module *m, kl_module_stats *st);

/* ------------------------------------------------------------------------
 * Functions, blocks, values, instructions (read access). Asked about an
 * entity that is none or out of range, these never read out of bounds:
 * they answer none (KL_NO_*), 0, false, KL_TYPE_NONE, or KL_OP_COUNT for
 * an opcode. Entities are numbers within one function: a value of %a
 * given to %b's functions means %b's value of that number, which nothing
 * can detect.
 */
kl_module *kl_func_module(const kl_func *f);
kl_sym kl_func_sym(const kl_func *f);
/* The arrays are valid while f's module lives. */
kl_signature kl_func_signature(const kl_func *f);

/* Layout order of blocks; the first block is the entry block. */
kl_block kl_func_first_block(const kl_func *f);
kl_block kl_block_next(const kl_func *f, kl_block b);
kl_block kl_block_prev(const kl_func *f, kl_block b);
uint32_t kl_block_num_params(const kl_func *f, kl_block b);
kl_value kl_block_param(const kl_func *f, kl_block b, uint32_t i);
kl_inst kl_block_first_inst(const kl_func *f, kl_block b);
kl_inst kl_block_last_inst(const kl_func *f, kl_block b);
/* Does block b end with a terminator (is it closed, so that code after a
 * `return` needs a block of its own)? False for an empty block and for
 * no block. */
bool kl_block_is_terminated(const kl_func *f, kl_block b);
kl_inst kl_inst_next(const kl_func *f, kl_inst i);
kl_inst kl_inst_prev(const kl_func *f, kl_inst i);
kl_block kl_inst_block(const kl_func *f, kl_inst i); /* none if not placed */
/* Does a come before b? Both must be in the same block. O(1). */
bool kl_inst_precedes(const kl_func *f, kl_inst a, kl_inst b);

/* How many entities of each kind a function numbers, holes included
 * (valid ids are below these). */
uint32_t kl_func_value_bound(const kl_func *f);
uint32_t kl_func_block_bound(const kl_func *f);
uint32_t kl_func_inst_bound(const kl_func *f);
uint32_t kl_func_sigref_bound(const kl_func *f);
/* The signature sigref s stands for (kl_inst_sigref gives a call_indirect's);
 * all zero if f has no sigref s. Copying a function into another: pass it
 * to kl_func_add_sigref. The arrays are valid while f's module lives. */
kl_signature kl_func_sigref_signature(const kl_func *f, kl_sigref s);

kl_type kl_value_type(const kl_func *f, kl_value v);
/* Give v another type of its machine class (docs/ir.md, "Refined types"):
 * KL_OK, or KL_ERR_INVALID with nothing changed when v is out of range
 * or not a block parameter or placed instruction's result, t is of
 * another class, or the text could not say v's type: a result whose type
 * comes from its opcode or a signature (alloca, symbol_addr, compares,
 * calls; kl_value_typable). What v computes does not change. */
kl_status kl_value_set_type(kl_func *f, kl_value v, kl_type t);
/* Whether the text can write v's type, so that kl_value_set_type may
 * change it: a block parameter, or the result of an instruction whose
 * type suffix gives the result its type (iconst, loads, extensions,
 * iadd, select...). */
bool kl_value_typable(const kl_func *f, kl_value v);
/* Follow alias links to the value that is really defined. */
kl_value kl_value_resolve(const kl_func *f, kl_value v);
bool kl_value_is_alias(const kl_func *f, kl_value v);
/* The defining instruction (results: placed or not), and the block in the
 * layout where v is defined: the instruction's, or the block whose
 * parameter v is; none when that is out of the layout. */
kl_inst kl_value_def_inst(const kl_func *f, kl_value v);
kl_block kl_value_def_block(const kl_func *f, kl_value v);
/* If v is a parameter of a block, placed or not, its position in the
 * block's parameters (kl_block_param's index), and that block in *block
 * (may be NULL); else KL_NONE. O(the block's parameters). */
uint32_t kl_value_param_index(const kl_func *f, kl_value v, kl_block *block);

kl_opcode kl_inst_opcode(const kl_func *f, kl_inst i);
uint32_t kl_inst_num_results(const kl_func *f, kl_inst i);
kl_value kl_inst_result(const kl_func *f, kl_inst i, uint32_t n);
/* Value operands in text order, excluding branch arguments. */
uint32_t kl_inst_num_args(const kl_func *f, kl_inst i);
kl_value kl_inst_arg(const kl_func *f, kl_inst i, uint32_t n);
/* The immediate: iconst's value, f32const's and f64const's bits, an _imm
 * instruction's operand, alloca's size; 0 for others. */
int64_t kl_inst_imm(const kl_func *f, kl_inst i);
int32_t kl_inst_offset(const kl_func *f, kl_inst i); /* loads, stores */
/* icmp, icmp_imm: a kl_intcc; fcmp: a kl_floatcc; 0 for others. */
uint32_t kl_inst_cond(const kl_func *f, kl_inst i);
/* alloca, alloca_dyn: the alignment in bytes; 0 for others. */
uint32_t kl_inst_align(const kl_func *f, kl_inst i);
/* trap: its code, and in *user_code (may be NULL) the N of `trap user N`
 * (0 for the other codes); KL_TRAP_COUNT for an instruction that is no
 * trap. */
kl_trapcode kl_inst_trap_code(const kl_func *f, kl_inst i,
			      uint32_t *user_code);
kl_sym kl_inst_callee(const kl_func *f, kl_inst i); /* call, symbol_addr */
kl_sigref kl_inst_sigref(const kl_func *f, kl_inst i);
/* Branch destinations: jump 1, brif 2, br_table 1 + table (default first). */
uint32_t kl_inst_num_dests(const kl_func *f, kl_inst i);
kl_block kl_inst_dest(const kl_func *f, kl_inst i, uint32_t n);
uint32_t kl_inst_dest_num_args(const kl_func *f, kl_inst i, uint32_t n);
kl_value kl_inst_dest_arg(const kl_func *f, kl_inst i, uint32_t n, uint32_t k);

/* ------------------------------------------------------------------------
 * Building IR. A builder appends instructions at the end of a block or
 * inserts them before an instruction. Errors are sticky: after the first
 * failure every call returns a none entity and kl_builder_status() tells
 * what went wrong. The builder checks structure (entities exist, formats
 * match opcodes, the block or instruction is in the layout: else
 * KL_ERR_POSITION); types are the verifier's job.
 */
typedef struct kl_builder {
	kl_func *func;
	/* The block to append to, or the block `before` was in when the
	 * builder was positioned (moving `before` later moves where new
	 * instructions go, not this field). */
	kl_block block;
	kl_inst before;   /* insert before this instruction, or none: append */
	kl_status status;
	const char *error; /* static text describing the first failure */
	/* With a status other than KL_OK: the opcode of the call that failed
	 * first (kl_op_name gives its name; for a call with an opcode
	 * argument, the one given, which may be no opcode). */
	kl_opcode error_op;
	/* The operand the first failure is about, when it is one that is no
	 * value ("operand is not a value": its number, which may be past
	 * the function's values) or whose alias chain has a cycle; else
	 * KL_NO_VALUE. */
	kl_value error_value;
} kl_builder;

typedef struct kl_block_call {
	kl_block block;
	const kl_value *args;
	uint32_t num_args;
} kl_block_call;

kl_block kl_func_new_block(kl_func *f); /* not yet in the layout */
/* A new entry block, first in the layout, with a parameter for each of
 * the signature's (kl_block_param(f, b, k) is parameter k): what every
 * function starts with. A block already first is no longer the entry:
 * the new one may jump to it. */
kl_block kl_func_make_entry(kl_func *f);
/* Put new block b in the layout, last or after block `after`:
 * KL_ERR_INVALID if b is no block or is placed already, KL_ERR_POSITION
 * if `after` is not in the layout (KL_NO_BLOCK and numbers that are no
 * block included). */
kl_status kl_func_append_block(kl_func *f, kl_block b);
kl_status kl_func_insert_block_after(kl_func *f, kl_block b, kl_block after);
/* The same, just before block `before`: before the entry block, b becomes
 * the entry (a lifted entry that turns out to be a loop header gets a new
 * entry that jumps to it, passing the parameters on). */
kl_status kl_func_insert_block_before(kl_func *f, kl_block b, kl_block before);
/* Move placed block b, with its instructions, to just before block
 * `before`, or to the end for KL_NO_BLOCK. b == before changes nothing.
 * The block then first in the layout is the entry. KL_ERR_INVALID if b is
 * not in the layout, KL_ERR_POSITION if `before` is neither in it nor
 * none. */
kl_status kl_func_move_block(kl_func *f, kl_block b, kl_block before);
/* Take block b, and its instructions, out of the layout (a pass dropping
 * unreachable code). Its parameters and results no longer count as
 * defined, and branches to it are verifier errors, not checked here:
 * retarget or remove those first. KL_ERR_INVALID if b is not in the
 * layout or is the entry block. b may be placed again: with its
 * parameters, without its instructions (kl_inst_move_* puts them back). */
kl_status kl_func_remove_block(kl_func *f, kl_block b);
/* A new parameter of type t at the end of b's; KL_NO_VALUE if b is no
 * block, t is not one of the module's types or b has 2^27 - 2 already. */
kl_value kl_block_append_param(kl_func *f, kl_block b, kl_type t);
/* Remove parameter k of block b, and argument k from every branch to b
 * in the layout, in O(instructions) (a branch not placed then, a clone
 * or one in a block out of the layout, keeps its arguments). The
 * parameter's value is then defined nowhere (it keeps its type, as a
 * removed instruction's result does; kl_value_def_block gives none):
 * replace its uses first (kl_uses, kl_inst_set_arg), or make it an alias
 * (kl_value_set_alias).
 * KL_ERR_INVALID if b is no block, is the entry block (whose parameters
 * are the function's) or has no parameter k. */
kl_status kl_block_remove_param(kl_func *f, kl_block b, uint32_t k);
/* Remove n parameters at once, of any blocks (a value may come twice),
 * and their arguments from every branch in the layout, in one walk:
 * O(instructions + arguments + values) however many go, where one
 * kl_block_remove_param each would walk the function each time.
 * KL_ERR_INVALID, nothing changed, if one is not a parameter of a block
 * other than the entry. */
kl_status kl_func_remove_params(kl_func *f, const kl_value *params,
				uint32_t n);
/* Make v an alias of target: every use of v then means target, as the
 * printer shows with a line `v -> target`. This is how a pass replaces
 * all uses of a value: remove its instruction (kl_inst_remove), then
 * alias the result. v must define nothing (a number never defined, a
 * removed parameter, a result of an instruction not in the layout) or be
 * an alias already. KL_ERR_INVALID if either is no value, they are the
 * same, v is a parameter (of any block, even one out of the layout, which
 * still lists it: remove it with kl_block_remove_param first) or the
 * result of a placed instruction, the alias would close a cycle, target
 * does not lead to a parameter of a block in the layout or a placed
 * instruction's result, or it leads to a value of another machine class
 * than v's (when v has one); nothing changes then. v takes the type of
 * the value its chain ends at (an s32 may become an alias of an i32).
 * An alias nothing uses is left out of the printed text, and the verifier
 * holds it to nothing more than that, so a pass may remove the
 * instruction or parameter an unused alias leads to. */
kl_status kl_value_set_alias(kl_func *f, kl_value v, kl_value target);
/* Rewrite every operand and branch argument of the placed instructions
 * that names an alias to the value its chain ends in, in O(instructions +
 * values): the aliases are then unused, and the printer leaves them out.
 * One whose chain is broken (a cycle, an end that is no value) stays, for
 * the verifier to report. Returns how many operands changed. */
uint64_t kl_func_resolve_aliases(kl_func *f);
/* Add `sigN = SIG` to the function's preamble (sig is copied; NULL is
 * `()`). KL_NO_SIGREF if an array is NULL where its count
 * is not 0 or a type is not one of the module's (as kl_module_declare's
 * KL_ERR_INVALID). */
kl_sigref kl_func_add_sigref(kl_func *f, const kl_signature *sig);

/* A builder holds f, not a copy: it is used only while f's module lives,
 * and needs no freeing. */
void kl_builder_init(kl_builder *b, kl_func *f);
void kl_builder_at_end(kl_builder *b, kl_block blk);
void kl_builder_before(kl_builder *b, kl_inst inst);
kl_status kl_builder_status(const kl_builder *b);

kl_value kl_build_iconst(kl_builder *b, kl_type t, int64_t imm);
kl_value kl_build_f32const(kl_builder *b, uint32_t bits);
kl_value kl_build_f64const(kl_builder *b, uint64_t bits);
/* UNARY format; t is the result type for opcodes with an explicit type
 * (sextend.T); for others the operand (ineg) or the opcode (fpromote)
 * gives it, and t is KL_TYPE_NONE or that type (another is refused,
 * KL_ERR_INVALID), or, where the operand gives it, a type of the
 * operand's machine class, which the result then has (`copy.s32` of an
 * i32 value, as the text writes it: docs/ir.md, "Refined types"). */
kl_value kl_build_unary(kl_builder *b, kl_opcode op, kl_type t, kl_value a);
kl_value kl_build_binary(kl_builder *b, kl_opcode op, kl_value x, kl_value y);
kl_value kl_build_binary_imm(kl_builder *b, kl_opcode op, kl_value x,
			     int64_t imm);
kl_value kl_build_icmp(kl_builder *b, kl_intcc cc, kl_value x, kl_value y);
kl_value kl_build_icmp_imm(kl_builder *b, kl_intcc cc, kl_value x,
			   int64_t imm);
kl_value kl_build_fcmp(kl_builder *b, kl_floatcc cc, kl_value x, kl_value y);
kl_value kl_build_select(kl_builder *b, kl_value c, kl_value x, kl_value y);
kl_value kl_build_load(kl_builder *b, kl_opcode op, kl_type t, kl_value ptr,
		       int32_t offset);
kl_inst kl_build_store(kl_builder *b, kl_opcode op, kl_value v, kl_value ptr,
		       int32_t offset);
/* align is a power of two (KL_ERR_RANGE otherwise), or 0 for the text
 * format's default: the least power of two not below size, at most 16
 * (alloca_dyn: 16). A size of 0 is built, and the verifier rejects it. */
kl_value kl_build_alloca(kl_builder *b, uint32_t size, uint32_t align);
kl_value kl_build_alloca_dyn(kl_builder *b, kl_value size, uint32_t align);
kl_value kl_build_symbol_addr(kl_builder *b, kl_sym sym);
kl_inst kl_build_call(kl_builder *b, kl_sym callee, const kl_value *args,
		      uint32_t num_args);
kl_inst kl_build_call_indirect(kl_builder *b, kl_sigref sig, kl_value callee,
			       const kl_value *args, uint32_t num_args);
kl_inst kl_build_jump(kl_builder *b, kl_block_call dest);
kl_inst kl_build_brif(kl_builder *b, kl_value c, kl_block_call then_dest,
		      kl_block_call else_dest);
kl_inst kl_build_br_table(kl_builder *b, kl_value index, kl_block_call def,
			  const kl_block_call *table, uint32_t n);
kl_inst kl_build_return(kl_builder *b, const kl_value *args, uint32_t n);
kl_inst kl_build_trap(kl_builder *b, kl_trapcode code, uint32_t user_code);

/*
 * Operand setters: value operand n of instruction i (in kl_inst_arg's
 * order), or argument k of destination d (kl_inst_dest_arg's) becomes v.
 * KL_ERR_INVALID, nothing changed, if i, v, n, d or k is out of range.
 * Types are the verifier's question, as for the builder.
 */
kl_status kl_inst_set_arg(kl_func *f, kl_inst i, uint32_t n, kl_value v);
kl_status kl_inst_set_dest_arg(kl_func *f, kl_inst i, uint32_t d, uint32_t k,
			       kl_value v);
/* Replace destination d of branch i whole, block and arguments (a jump's
 * 0, a brif's 0 and 1, a br_table's default 0 and entry k at k + 1):
 * retargeting a branch, splitting an edge. KL_ERR_INVALID, nothing
 * changed, if i is no branch, d or a value is out of range or the block
 * does not exist; KL_ERR_RANGE at 2^27 - 2 arguments. */
kl_status kl_inst_set_dest(kl_func *f, kl_inst i, uint32_t d,
			   kl_block_call dest);
/* Append v to the arguments of destination d of branch i: the argument
 * for a parameter just added to the target (kl_block_append_param), on
 * every branch to it. O(1) amortised. KL_ERR_INVALID, nothing changed,
 * if i, d or v is out of range; KL_ERR_RANGE at 2^27 - 2 arguments. */
kl_status kl_inst_append_dest_arg(kl_func *f, kl_inst i, uint32_t d,
				  kl_value v);

/* Remove an instruction from the layout. Its results keep their numbers
 * and types but no longer count as defined: a use of one left behind is
 * a verifier error, unless the result is made an alias
 * (kl_value_set_alias, which takes a removed result, not a placed one).
 * kl_inst_move_* place it again. A removed instruction has no neighbours:
 * kl_inst_next and kl_inst_prev give none, so a loop that removes as it
 * walks takes the next one first. */
void kl_inst_remove(kl_func *f, kl_inst i);
/* Move instruction i, placed or removed, to just before instruction
 * `before` or to the end of block b (hoisting, sinking, splitting a
 * block); its results go with it, defined where it now is. O(1)
 * amortised. KL_ERR_INVALID, nothing changed, if i is no instruction,
 * `before` is no placed instruction or is i, b is no block in the
 * layout, or a result of i has been made an alias since its removal
 * (the value would be defined twice). Dominance is the verifier's
 * question. */
kl_status kl_inst_move_before(kl_func *f, kl_inst i, kl_inst before);
kl_status kl_inst_move_to_end(kl_func *f, kl_inst i, kl_block b);
/* A copy of instruction i (placed or not), not placed: the same opcode,
 * operands and destinations, in lists of its own, and new results of the
 * same types (numbered after every value before). Set its operands
 * (kl_inst_set_arg, kl_inst_set_dest_arg), then place it
 * (kl_inst_move_*): duplicating a block, unrolling a loop. KL_NO_INST if
 * i is no instruction. */
kl_inst kl_inst_clone(kl_func *f, kl_inst i);

/* ------------------------------------------------------------------------
 * Variables: SSA construction for a front end. Declare a variable, then
 * while building say what it is given (kl_vars_def) and read it
 * (kl_vars_use) in each block, in the order of the instructions; a read
 * gives the value to use as an operand at once. When every block and
 * branch is built, kl_vars_finish gives each read its SSA value: block
 * parameters where values meet, the written value where one reaches,
 * and 0 of the variable's type where none does (on some path, a read
 * before any write; and in code that cannot run). The result is pruned
 * and minimal SSA (but in irreducible loops nested hundreds deep, where
 * a budget keeps the cost linear). Braun et al.'s algorithm;
 * docs/passes.md describes it.
 *
 * A read in a block with no write before it adds a parameter to that
 * block at once, even to what is the entry block then (finish removes
 * those it does not need, and all of the entry block's: which block is
 * the entry is the layout's at finish). So a block's own parameters must
 * be added before a variable is read there, and branches pass arguments
 * for those only: finish appends the rest. finish refuses
 * (KL_ERR_INVALID), before it changes anything, a block in the layout
 * without a terminator, a block whose parameters changed otherwise, and a
 * branch that passes a block where a variable is read another number of
 * arguments than the block has parameters of its own. Other failures
 * (KL_ERR_RANGE: a list too long) may leave the function half changed.
 * 0s are constants at the top of the entry block, one per type. finish
 * also rewrites every use of an alias in the function to the value it
 * stands for (kl_func_resolve_aliases). O(blocks + edges + reads +
 * writes + the (variable, block) pairs a variable is live across), in
 * memory too.
 *
 * Errors are sticky, as the builder's: after the first failure every call
 * returns a none entity or that status, and kl_vars_error says what went
 * wrong. A function has one kl_vars at a time: another made before the
 * first is finished or freed fails every call (KL_ERR_INVALID). After
 * kl_vars_finish, any call but kl_vars_status, kl_vars_error,
 * kl_vars_type and kl_vars_free fails with KL_ERR_INVALID. Free a
 * kl_vars before its function's module.
 */
typedef struct kl_vars kl_vars;
typedef struct kl_var { uint32_t id; } kl_var; /* a variable of a kl_vars */

kl_vars *kl_vars_new(kl_func *f); /* NULL if f is NULL */
void kl_vars_free(kl_vars *vs); /* NULL is allowed */
/* A new variable of type t (KL_ERR_INVALID if t is not a type). */
kl_var kl_vars_declare(kl_vars *vs, kl_type t);
kl_type kl_vars_type(const kl_vars *vs, kl_var x); /* KL_TYPE_NONE: none */
/* x is v from here to the end of block b, or to its next write there.
 * KL_ERR_INVALID if x or b does not exist, v is no value or its type is
 * not x's. */
kl_status kl_vars_def(kl_vars *vs, kl_var x, kl_block b, kl_value v);
/* x's value at this point of block b: the last write in b, or a value
 * that kl_vars_finish makes what reaches b. */
kl_value kl_vars_use(kl_vars *vs, kl_var x, kl_block b);
kl_status kl_vars_finish(kl_vars *vs);
kl_status kl_vars_status(const kl_vars *vs);
const char *kl_vars_error(const kl_vars *vs); /* NULL while KL_OK */

/* ------------------------------------------------------------------------
 * Text: parsing and printing.
 */
typedef struct kl_parse_options {
	/* (There is no file name here: a diagnostic carries a line and a
	 * column, and kl_diag_render takes the file's name.) */
	/*
	 * Test files hold several versions of one function under one name:
	 * with this set, a later definition of a taken name is kept as a
	 * function of its own instead of being an error (lookups find the
	 * first). The parser reads IR only: a test file's `test ...` lines
	 * are keel test's, which blanks them before parsing.
	 */
	bool allow_redefinition;
} kl_parse_options;

/*
 * Parse a whole module. On success *out is the module. On errors, the
 * diagnostics are appended to diags, *out is NULL and KL_ERR_PARSE is
 * returned. opts may be NULL, and so may diags when only the status
 * matters; text may be NULL when len is 0 (an empty module). text NULL
 * with len > 0, or out NULL, is KL_ERR_INVALID (no diagnostic). A text of
 * 2^32 - 1 bytes or more is KL_ERR_PARSE, with one diagnostic at line 0:
 * its lines and columns might not fit kl_diag's 32 bits.
 */
kl_status kl_parse_module(const char *text, size_t len,
			  const kl_parse_options *opts, kl_module **out,
			  kl_diags *diags);

/*
 * Import QBE IL (the text QBE, the compiler backend, reads: what cproc,
 * hare and other front ends write) as a keel module, verified. Each
 * temporary becomes a variable (kl_vars), so the IL need not be in SSA
 * form; aggregates pass by value, and variadic arguments, between the
 * file's functions as memory. docs/qbe.md gives the mapping and what
 * is refused (env, aggregates passed to functions defined elsewhere).
 * On success *out is the module, the caller's to free. On malformed or
 * unsupported input, KL_ERR_PARSE with one diagnostic per mistake found
 * (line and column from 1, as kl_diag_render shows them) appended to
 * diags (which may be NULL), and *out NULL. text NULL with len > 0, or
 * out NULL, is KL_ERR_INVALID (no diagnostic).
 */
kl_status kl_qbe_import(const char *text, size_t len, kl_module **out,
			kl_diags *diags);

/* Source lines of a parsed function: header line and closing-brace line. */
void kl_func_source_range(const kl_func *f, uint32_t *first, uint32_t *last);
/* Source line of an instruction, block or symbol; 0 if not parsed. */
uint32_t kl_inst_source_line(const kl_func *f, kl_inst i);
uint32_t kl_block_source_line(const kl_func *f, kl_block b);
uint32_t kl_sym_source_line(const kl_module *m, kl_sym s);

/*
 * Printing. The annotate callback, when set, is called after each printed
 * line of a function body with the entity the line shows (the function
 * header, a sigref, a block header, an instruction, or for an alias line
 * `v3 -> v1` the value v3, as KL_ENT_VALUE) and the text of that line
 * (" ; instN" included when numbered); whatever it appends to out appears
 * below the line. The closing brace gets no call. Used to put
 * verifier errors inside the listing.
 */
typedef struct kl_print_options {
	bool inst_numbers; /* append " ; instN" to every instruction line */
	/* Write values, blocks and sigrefs numbered from 0: blocks in layout
	 * order, values and sigrefs in the order they first appear. The IR
	 * keeps its numbers; the text is what the parser reads back to an
	 * equal function numbered so. For IR that verifies: after a pass
	 * that deleted most values, the text with its own numbers can be too
	 * sparse to parse back (docs/ir.md, "Entity names"). */
	bool renumber;
	void (*annotate)(void *ctx, const kl_func *f, kl_entity what,
			 const char *line, size_t line_len, kl_buf *out);
	void *annotate_ctx;
	/*
	 * Optional: take the text in pieces instead of the whole module in
	 * out. When set, the printer hands what out holds to flush (and
	 * empties out) at the end of a line once out holds KL_PRINT_CHUNK
	 * bytes or more, and the rest before kl_print_module or
	 * kl_print_func returns; out then ends empty. A big module is
	 * printed through a buffer that stays in the cache instead of one
	 * as long as its text, all of it memory the process touches for the
	 * first time. flush must take all it is given (it has no way to
	 * refuse): a writer that fails remembers so in flush_ctx.
	 */
	void (*flush)(void *ctx, const char *text, size_t len);
	void *flush_ctx;
} kl_print_options;

#define KL_PRINT_CHUNK ((size_t)64 << 10)

void kl_print_module(const kl_module *m, const kl_print_options *opts,
		     kl_buf *out);
void kl_print_func(const kl_func *f, const kl_print_options *opts,
		   kl_buf *out);
void kl_print_inst(const kl_func *f, kl_inst i, kl_buf *out); /* no indent */
void kl_print_value(const kl_func *f, kl_value v, kl_buf *out);

/* ------------------------------------------------------------------------
 * Analyses: control-flow graph, dominator tree, frontiers, loops,
 * structured regions, liveness.
 * (section owned by src/analysis/; docs/analyses.md explains each one)
 *
 * Every analysis is a plain object: create it with _new, fill it with
 * _compute (again after the IR changed: the memory is reused), read it,
 * free it with _free. Analyses read the IR and never change it; they keep
 * no pointer to the function, so a caller must recompute (or repair) an
 * analysis after changing what it depends on. They work on unverified IR
 * without crashing (nonsense in, nonsense out), index their arrays by
 * entity number, and give the same answers on every run.
 */

/*
 * Control-flow graph: successors and predecessors of every block. A
 * predecessor is a (block, branch instruction) pair; they are ordered by
 * the layout position of the branch, so the order survives printing and
 * re-parsing. A br_table naming a block twice gives two edges. Successors
 * are in branch order (brif: then, else; br_table: default, then table).
 * Only blocks in the layout have edges, and only destinations that are
 * blocks in the layout give edges (every instruction is scanned, so
 * unverified IR with a branch in the middle of a block still works).
 */
typedef struct kl_cfg kl_cfg;

typedef struct kl_cfg_edge {
	kl_block block; /* the predecessor (in a successor edge: the target) */
	kl_inst inst;   /* its branch instruction */
} kl_cfg_edge;

kl_cfg *kl_cfg_new(void);
void kl_cfg_free(kl_cfg *cfg); /* NULL is allowed */
void kl_cfg_compute(kl_cfg *cfg, const kl_func *f);
/*
 * Repair the edges of block b after its instructions changed, or after b
 * was inserted into (or removed from) the layout: b's old edges (as the
 * CFG has them) are dropped, b is scanned again. Edges into b stay. The
 * rest of the layout must keep its order (else: kl_cfg_compute).
 */
void kl_cfg_recompute_block(kl_cfg *cfg, const kl_func *f, kl_block b);
uint32_t kl_cfg_num_succs(const kl_cfg *cfg, kl_block b);
kl_block kl_cfg_succ(const kl_cfg *cfg, kl_block b, uint32_t i);
/* Successor i as (target block, branch instruction). In verified IR it is
 * destination i of the block's terminator (brif: then, else; br_table:
 * the default, then the table), so kl_inst_dest_arg(f, e.inst, i, k)
 * is the argument k it passes. */
kl_cfg_edge kl_cfg_succ_edge(const kl_cfg *cfg, kl_block b, uint32_t i);
uint32_t kl_cfg_num_preds(const kl_cfg *cfg, kl_block b);
kl_cfg_edge kl_cfg_pred(const kl_cfg *cfg, kl_block b, uint32_t i);
/* Same edges in the same order? If not, *differs is a block that differs. */
bool kl_cfg_equal(const kl_cfg *a, const kl_cfg *b, kl_block *differs);

/*
 * Dominator tree over the reachable blocks (Lengauer and Tarjan).
 * Unreachable blocks have no immediate dominator, dominate nothing and are
 * dominated by nothing, except that every block dominates itself. The
 * entry block's idom is none too.
 */
typedef struct kl_domtree kl_domtree;

kl_domtree *kl_domtree_new(void);
void kl_domtree_free(kl_domtree *dt); /* NULL is allowed */
void kl_domtree_compute(kl_domtree *dt, const kl_func *f, const kl_cfg *cfg);
bool kl_domtree_is_reachable(const kl_domtree *dt, kl_block b);
kl_block kl_domtree_idom(const kl_domtree *dt, kl_block b);
/* Does a dominate b? Every number below the function's block bound at
 * the compute (kl_func_block_bound) dominates itself, reachable or not,
 * placed or not (a number the text skipped, a removed block); a number
 * at or past it, nothing. O(1). */
bool kl_domtree_dominates(const kl_domtree *dt, kl_block a, kl_block b);
/*
 * Does instruction a dominate instruction b (a == b counts)? O(1). In one
 * block: a comes first in the layout (this holds in unreachable blocks
 * too); in different blocks: a's block dominates b's. False if either is
 * not placed.
 */
bool kl_domtree_inst_dominates(const kl_domtree *dt, const kl_func *f,
			       kl_inst a, kl_inst b);
/*
 * Same tree? Compares reachability, idoms and the post-order. If not,
 * *differs is a block whose idom (or post-order place) differs.
 */
bool kl_domtree_equal(const kl_domtree *a, const kl_domtree *b,
		      kl_block *differs);
/* The entry block the tree was computed from (none if no blocks). */
kl_block kl_domtree_entry(const kl_domtree *dt);
/* Children in the tree, in layout order: first child, then siblings. */
kl_block kl_domtree_first_child(const kl_domtree *dt, kl_block b);
kl_block kl_domtree_next_sibling(const kl_domtree *dt, kl_block b);
/*
 * The reachable blocks in the post-order of a depth-first search of the
 * CFG (successors visited last first); read it backwards for the reverse
 * post-order (RPO). Valid until the tree is computed or repaired again.
 */
const kl_block *kl_domtree_postorder(const kl_domtree *dt, uint32_t *n);
/* Order of a and b in the RPO: <0, 0, >0. Unreachable blocks sort last. */
int kl_domtree_rpo_cmp(const kl_domtree *dt, kl_block a, kl_block b);
/*
 * Repair the tree and its post-order after old was split: new (inserted
 * after old) took old's later instructions, old now ends with a jump to
 * new, and the CFG has been repaired for both blocks. Cost: O(children of
 * old + size of the post-order) (a memmove), not a recomputation. If the
 * CFG does not show that shape, the tree is computed afresh and false is
 * returned; true means it was repaired in place.
 */
bool kl_domtree_recompute_split(kl_domtree *dt, const kl_func *f,
				const kl_cfg *cfg, kl_block old_block,
				kl_block new_block);

/*
 * Dominance frontiers (Cytron et al. 1991): DF(b) holds the blocks where
 * b's dominance ends. Only reachable blocks have or appear in frontiers.
 * Each set is in layout order.
 */
typedef struct kl_domfront kl_domfront;

kl_domfront *kl_domfront_new(void);
void kl_domfront_free(kl_domfront *df); /* NULL is allowed */
/*
 * Compute the sets. Their total size can grow quadratically with the
 * function (a nest of n loops whose latches branch to the latch outside
 * has n(n + 1) entries); past the limit (entries of all sets together,
 * 2^26 unless set: 256 MB) the computation stops, leaves every set empty
 * and returns KL_ERR_RANGE, in time bounded by the limit plus the
 * function's size. KL_OK otherwise.
 */
kl_status kl_domfront_compute(kl_domfront *df, const kl_func *f,
			      const kl_cfg *cfg, const kl_domtree *dt);
/* The limit for later computes (at most 2^31); 0 restores the default. */
void kl_domfront_set_limit(kl_domfront *df, uint64_t max_entries);
/* The limit in force (the default unless set). */
uint64_t kl_domfront_limit(const kl_domfront *df);
/* Did the last compute stop at the limit (KL_ERR_RANGE)? */
bool kl_domfront_too_large(const kl_domfront *df);
uint32_t kl_domfront_size(const kl_domfront *df, kl_block b);
kl_block kl_domfront_get(const kl_domfront *df, kl_block b, uint32_t i);

/*
 * Iterated dominance frontier DF+(S) of the n blocks in `blocks` (the
 * blocks that need a parameter for a variable assigned in S). ws is a
 * reusable workspace: a call costs O(n + the frontier sets it visits), not
 * O(blocks), so mem2reg can call it for thousands of variables. Returns
 * the count; *out points at the blocks (in discovery order, no
 * duplicates), valid until the next call with ws. After a compute that
 * stopped at its limit (KL_ERR_RANGE) every set is empty, and so is
 * every iterated frontier: check the compute's status first.
 */
typedef struct kl_idf kl_idf;

kl_idf *kl_idf_new(void);
void kl_idf_free(kl_idf *ws); /* NULL is allowed */
uint32_t kl_domfront_iterated(const kl_domfront *df, kl_idf *ws,
			      const kl_block *blocks, uint32_t n,
			      const kl_block **out);

/*
 * Loops: the natural loops of back edges (an edge whose target dominates
 * its source), nested into a forest, and the irreducible regions (cycles
 * that no block of the cycle dominates, joined into maximal strongly
 * connected sets of blocks once the back edges are removed), which are
 * reported and are not loops.
 *
 * Loops are numbered 0..count-1 in preorder of the forest, children in
 * the layout order of their headers: a loop's parent has a smaller number,
 * and the loops inside loop L are L+1 .. L+k. Depth 1 is outermost.
 */
typedef struct kl_loops kl_loops;
typedef struct kl_loop { uint32_t id; } kl_loop;

#define KL_NO_LOOP KL_NONE_OF(kl_loop)

kl_loops *kl_loops_new(void);
void kl_loops_free(kl_loops *lf); /* NULL is allowed */
/* cfg and dt must be f's as it is now: from others (stale ones) the loops
 * mean nothing, though nothing is read out of bounds. */
void kl_loops_compute(kl_loops *lf, const kl_func *f, const kl_cfg *cfg,
		      const kl_domtree *dt);
uint32_t kl_loops_count(const kl_loops *lf);
/* The innermost loop containing b, or KL_NO_LOOP. */
kl_loop kl_loops_innermost(const kl_loops *lf, kl_block b);
/* Loop depth of b: 0 outside loops. */
uint32_t kl_loops_block_depth(const kl_loops *lf, kl_block b);
bool kl_loops_is_header(const kl_loops *lf, kl_block b);
kl_block kl_loop_header(const kl_loops *lf, kl_loop l);
kl_loop kl_loop_parent(const kl_loops *lf, kl_loop l);
uint32_t kl_loop_depth(const kl_loops *lf, kl_loop l);
/* All blocks of l, nested loops' included: the header, then its other
 * blocks in layout order, then each child loop's blocks in turn. */
const kl_block *kl_loop_blocks(const kl_loops *lf, kl_loop l, uint32_t *n);
bool kl_loop_contains(const kl_loops *lf, kl_loop l, kl_block b); /* O(1) */
/* Irreducible regions, numbered in the layout order of their first
 * block; blocks and entries (blocks entered from outside the region) in
 * layout order. */
uint32_t kl_loops_num_irreducible(const kl_loops *lf);
const kl_block *kl_loops_irreducible_blocks(const kl_loops *lf, uint32_t r,
					    uint32_t *n);
const kl_block *kl_loops_irreducible_entries(const kl_loops *lf, uint32_t r,
					     uint32_t *n);
/* The irreducible region of b, or KL_NONE. */
uint32_t kl_loops_irreducible_region(const kl_loops *lf, kl_block b);

/*
 * Liveness of SSA values: the live-in and live-out sets of every block,
 * sorted by value number, holding resolved values only (a use of an alias
 * counts as a use of the value it resolves to). Block parameters are
 * defined at the top of their block and are never live-in there; a branch
 * argument is used at the end of its block, like a phi operand: live-out
 * of the branching block, not live-in of the target. Needs strict SSA
 * (verified IR) to be meaningful; never crashes on other IR.
 */
typedef struct kl_liveness kl_liveness;

kl_liveness *kl_liveness_new(void);
void kl_liveness_free(kl_liveness *lv); /* NULL is allowed */
/*
 * Compute the sets. Their total size can grow quadratically with the
 * function (values live across many blocks); past the limit (entries of
 * all live-in and live-out sets together, 2^26 unless set: about 0.75 GB
 * at the peak) the computation stops, leaves every set empty and returns
 * KL_ERR_RANGE. KL_OK otherwise.
 */
kl_status kl_liveness_compute(kl_liveness *lv, const kl_func *f,
			      const kl_cfg *cfg);
/* The limit for later computes; 0 restores the default. */
void kl_liveness_set_limit(kl_liveness *lv, uint64_t max_entries);
/* The limit in force (the default unless set). */
uint64_t kl_liveness_limit(const kl_liveness *lv);
/* Entries in all the sets (live-in plus live-out) after a compute. */
uint64_t kl_liveness_size(const kl_liveness *lv);
/* Did the last compute stop at the limit (KL_ERR_RANGE)? */
bool kl_liveness_too_large(const kl_liveness *lv);
/* The set as a sorted array, valid until the next compute. */
const kl_value *kl_liveness_live_in(const kl_liveness *lv, kl_block b,
				    uint32_t *n);
const kl_value *kl_liveness_live_out(const kl_liveness *lv, kl_block b,
				     uint32_t *n);
/* Membership, O(log n); v must be resolved (kl_value_resolve). */
bool kl_liveness_is_live_in(const kl_liveness *lv, kl_block b, kl_value v);
bool kl_liveness_is_live_out(const kl_liveness *lv, kl_block b, kl_value v);

/*
 * Structured regions (docs/analyses.md): the reachable code of a function
 * as one tree of nested constructs, as a C or WebAssembly emitter or a
 * decompiler needs it, after Ramsey, "Beyond Relooper" (ICFP 2022). Each
 * reachable block's code is in the tree once, and each edge out of a
 * reachable block is one edge node; nothing is copied. A goto is needed
 * only for an edge into an irreducible part of the graph: one going back
 * in the dominator tree's reverse postorder (kl_domtree_rpo_cmp) to a
 * block that does not dominate its source. O(edges + blocks log (loop
 * depth)), plus the dominator kernel's O(edges log blocks) when there
 * are gotos; nothing recursive.
 *
 * Nodes are numbered in preorder, the root (KL_REGION_BODY) 0. A
 * sequence (the children of BODY, SCOPE, LOOP or ARM) runs in order; it
 * never runs off the end of a LOOP or of the BODY. Running off the end
 * of a SCOPE goes on after the scope, off the end of an ARM after its IF
 * or SWITCH. An ARM's first node is its edge; a block of one successor
 * has its edge node right after its CODE.
 *
 * kl_region_block says, by kind: BODY the entry block; CODE the block
 * whose instructions (but its terminator) run there; SCOPE the block
 * whose code follows the scope (where a BREAK to it goes); LOOP its
 * header; IF, SWITCH and LEAVE the block whose terminator they stand
 * for; ARM and the edge nodes the edge's target. An ARM or an edge node
 * is edge number kl_region_succ_index of kl_region_source's successors
 * (kl_cfg_succ_edge: for a brif 0 then, 1 else; for a br_table 0 the
 * default, k + 1 entry k), whose branch arguments it passes: all of
 * an edge's arguments at once, a parallel copy (docs/ir.md).
 *
 * For C: a SCOPE is a block followed by a label, a BREAK a goto to
 * that label (C's break leaves the innermost loop or switch, which is
 * the SCOPE's end only when the SCOPE holds just that loop), and a
 * CONTINUE from inside a switch or an inner loop a goto to a label at
 * its loop's top. WebAssembly has no goto: a function with
 * kl_regions_num_gotos > 0 needs node splitting or a dispatch loop
 * first, which keel does not do.
 */
typedef struct kl_regions kl_regions;
typedef struct kl_region { uint32_t id; } kl_region;

#define KL_NO_REGION KL_NONE_OF(kl_region)

/* The edge kinds are ENTER .. GOTO, in that order: a node is an edge
 * node iff KL_REGION_ENTER <= kind <= KL_REGION_GOTO. */
typedef enum kl_region_kind {
	KL_REGION_BODY,     /* the root */
	KL_REGION_CODE,     /* a block's instructions but its terminator */
	KL_REGION_SCOPE,    /* a sequence that BREAK can leave */
	KL_REGION_LOOP,     /* a sequence that CONTINUE starts again */
	KL_REGION_IF,       /* a brif of two edges: ARMs then and else */
	KL_REGION_SWITCH,   /* any other block of two edges or more: an
			     * ARM for each edge */
	KL_REGION_ARM,      /* the sequence run when one edge is taken */
	KL_REGION_ENTER,    /* edge to the block whose tree comes next
			     * (its CODE, or a SCOPE or LOOP around it) */
	KL_REGION_NEXT,     /* edge to the code that runs once the
			     * enclosing sequences run off their ends:
			     * nothing to jump over */
	KL_REGION_BREAK,    /* edge leaving SCOPE kl_region_target */
	KL_REGION_CONTINUE, /* edge back to LOOP kl_region_target */
	KL_REGION_GOTO,     /* edge to kl_regions_code(kl_region_block):
			     * into an irreducible part */
	KL_REGION_LEAVE,    /* a terminator without successors (return,
			     * trap), or a block without a terminator */
	KL_REGION_NONE      /* not a node: r out of range */
} kl_region_kind;

kl_regions *kl_regions_new(void);
void kl_regions_free(kl_regions *rg); /* NULL is allowed */
/* cfg, dt and lf must be f's as it is now: from stale ones the tree
 * means nothing, though nothing is read out of bounds. */
void kl_regions_compute(kl_regions *rg, const kl_func *f, const kl_cfg *cfg,
			const kl_domtree *dt, const kl_loops *lf);
uint32_t kl_regions_count(const kl_regions *rg); /* nodes; 0: no entry */
/* The CODE node of block b, or KL_NO_REGION if b is not reachable. */
kl_region kl_regions_code(const kl_regions *rg, kl_block b);
uint32_t kl_regions_num_gotos(const kl_regions *rg);
kl_region_kind kl_region_kind_of(const kl_regions *rg, kl_region r);
kl_block kl_region_block(const kl_regions *rg, kl_region r);
kl_region kl_region_parent(const kl_regions *rg, kl_region r);
kl_region kl_region_first_child(const kl_regions *rg, kl_region r);
kl_region kl_region_next_sibling(const kl_regions *rg, kl_region r);
/* BREAK: its SCOPE; CONTINUE: its LOOP; otherwise KL_NO_REGION. */
kl_region kl_region_target(const kl_regions *rg, kl_region r);
/* ARM and edge nodes: the branching block and the edge's number among
 * its successors; otherwise KL_NO_BLOCK and KL_NONE. */
kl_block kl_region_source(const kl_regions *rg, kl_region r);
uint32_t kl_region_succ_index(const kl_regions *rg, kl_region r);

/*
 * Uses of values: for each value, the operands that use it, in layout
 * order (an instruction's value operands before its branch arguments).
 * A use names its instruction and, for a value operand, dest KL_NONE and
 * the operand's index (kl_inst_arg, kl_inst_set_arg); for a branch
 * argument, the destination and the argument's index (kl_inst_dest_arg,
 * kl_inst_set_dest_arg). Only placed instructions count. A use through
 * an alias counts for the value the alias resolves to, and asking about
 * an alias answers for that value. O(instructions + uses). The lists
 * describe the function as it was computed: after changes they are
 * stale, not dangling, so a pass may go on reading them for the uses
 * that were there (as fold.c's dead-code removal does), knowing that
 * uses added since are not in them.
 */
typedef struct kl_uses kl_uses;

typedef struct kl_use {
	kl_inst inst;
	uint32_t dest;  /* KL_NONE: a value operand */
	uint32_t index; /* the operand's, or the argument's in dest */
} kl_use;

kl_uses *kl_uses_new(void);
void kl_uses_free(kl_uses *u); /* NULL is allowed */
void kl_uses_compute(kl_uses *u, const kl_func *f);
/* The uses v had when u was computed (through the aliases of then: a value
 * made an alias since keeps its own), *n of them; NULL if none. f is the
 * function computed. */
const kl_use *kl_uses_of(const kl_uses *u, const kl_func *f, kl_value v,
			 uint32_t *n);
/* The value v stood for when u was computed (kl_value_resolve's answer
 * then), in O(1) where kl_value_resolve walks the alias chain each time;
 * a value made since is resolved by kl_value_resolve. A value made an
 * alias after the compute still answers itself here: after such changes
 * ask kl_value_resolve. */
kl_value kl_uses_resolve(const kl_uses *u, const kl_func *f, kl_value v);

/*
 * The analyses as text (the formats of `keel cfg`, `keel domtree` and the
 * print-cfg / domtree / loops file tests; docs/analyses.md). Each appends
 * to out: a first line "cfg %name" (or domtree, loops, liveness), then one
 * indented line per block or loop. kl_cfg_print_dot writes a Graphviz
 * digraph, a brif's edges labelled then and else, a br_table's default
 * and 0, 1, ...; dt and lf may be NULL (no back-edge styling, no loop
 * clusters).
 * kl_domtree_print adds the frontiers when df is not NULL.
 */
void kl_cfg_print(const kl_func *f, const kl_cfg *cfg, kl_buf *out);
void kl_cfg_print_dot(const kl_func *f, const kl_cfg *cfg,
		      const kl_domtree *dt, const kl_loops *lf, kl_buf *out);
void kl_domtree_print(const kl_func *f, const kl_domtree *dt,
		      const kl_domfront *df, kl_buf *out);
void kl_loops_print(const kl_func *f, const kl_loops *lf, kl_buf *out);
void kl_liveness_print(const kl_func *f, const kl_liveness *lv,
		       kl_buf *out);
void kl_regions_print(const kl_func *f, const kl_cfg *cfg, const kl_regions *rg,
		      kl_buf *out);

/* ------------------------------------------------------------------------
 * Verifier. (section owned by src/verify/)
 *
 * kl_verify_func checks every invariant of a function that the IR's data
 * structures do not enforce by themselves (docs/verifier.md lists them all):
 * layout and entity integrity, block structure, SSA dominance, alias
 * chains, the caller's cached analyses and the type rule of every opcode.
 * It reports every violation, not just the first: one KL_SEV_ERROR
 * diagnostic each, appended to out. The memory rules (a constant offset
 * outside an alloca or a data object, a store into const data) give
 * KL_SEV_WARNING diagnostics instead, which do not make it fail: such an
 * access traps if it runs, and a pass may expose one in code that never
 * runs. Each diagnostic has
 *   loc      the entity the error is about (instruction, block, value,
 *            function or sigref),
 *   inst     the instruction concerned (for a value: the one whose line
 *            shows it), or none,
 *   func     the function's symbol,
 *   line     the source line of that entity if the function was parsed
 *            (0 for built IR); col is 0. An alias (v3 -> v1) keeps no
 *            line of its own: its errors take the line of the first
 *            instruction that uses it, above which the printer writes
 *            it,
 *   message  the text, without the location ("arg 0 (v0) has type i16,
 *            must match function signature of i32").
 * The new diagnostics are sorted by line (stable). Nothing is printed.
 * Broken IR of any kind (indices out of range, cycles in layout lists,
 * bad value-list handles) is reported, never followed: the verifier does
 * not crash, loop or abort on it. Returns KL_OK or KL_ERR_VERIFY.
 *
 * Dominance is checked with a CFG and dominator tree computed afresh
 * (kl_cfg_compute, kl_domtree_compute); it is skipped when the structure
 * is too broken to build them (those errors are reported instead).
 */

typedef struct kl_verify_scratch kl_verify_scratch;

/* Time spent and work done, added to by every call that is given it. */
typedef struct kl_verify_stats {
	uint64_t funcs, blocks, insts; /* verified (placed) entities */
	double structure_seconds;      /* layout, entities, definitions */
	double analysis_seconds;       /* CFG + dominator tree, comparisons */
	double check_seconds;          /* uses, dominance, types, memory */
} kl_verify_stats;

/*
 * What a caller can hand the verifier; every field may be NULL. A pass
 * manager passes the analyses of f it has cached: the verifier then also
 * checks that each one given equals one computed afresh (the CFG: same
 * edges in the same order, predecessor lists included; the tree: same
 * immediate dominators), so a pass that forgot to invalidate or repair an
 * analysis is caught (`keel opt --verify-each`). They are compared only
 * when f's structure is sound enough to compute the analyses. The
 * verifier never uses them for its own checks and does not change them.
 */
typedef struct kl_verify_ctx {
	const kl_cfg *cfg;         /* the caller's cached CFG of f */
	const kl_domtree *domtree; /* the caller's cached dominator tree */
	kl_verify_stats *stats;    /* phase times and counts are added here */
	kl_verify_scratch *scratch; /* memory to reuse from call to call */
} kl_verify_ctx;

/*
 * The verifier's working memory (per-value and per-instruction tables, its
 * own CFG and dominator tree). Without one, each call allocates and frees
 * its own; a caller that verifies again and again (`--verify-each`, a whole
 * module) keeps one and passes it in the context, so that later calls
 * reuse the memory instead of asking the system for fresh pages. Owned by
 * the caller; not for two threads at once.
 */
kl_verify_scratch *kl_verify_scratch_new(void);
void kl_verify_scratch_free(kl_verify_scratch *s); /* NULL is allowed */

/* ctx may be NULL: no cached analyses, no stats, no scratch. out may be
 * NULL: the errors are found and dropped, and the status still says
 * whether there were any. */
kl_status kl_verify_func(const kl_func *f, const kl_verify_ctx *ctx,
			 kl_diags *out);
/* Every function with a body, in symbol order (with one scratch); out may
 * be NULL, as for kl_verify_func. */
kl_status kl_verify_module(const kl_module *m, kl_diags *out);

/*
 * The location of a verifier diagnostic of f as text: "inst3", "block2",
 * "v7", "sig0" or the function's name ("%f"). With detail, an instruction
 * also shows its text: "inst3 (v4 = iadd v1, v2)".
 */
void kl_verify_location(const kl_func *f, const kl_diag *d, bool detail,
			kl_buf *out);

/*
 * Render the verifier's errors and warnings in d that are about f (func
 * is f's symbol, loc an entity; other diagnostics are skipped) as `keel
 * verify` shows them. To headers, one line per error or warning:
 *   FILE:LINE: error: LOCATION: MESSAGE     (or warning:)
 * To listing (may be the same buffer), f printed with every offending line
 * underlined (";   ^~~~") and followed by "; error: LOCATION (TEXT):
 * MESSAGE" (or "; warning: ...") comment lines, then "; N verifier
 * error(s) in %f" ("; N verifier error(s) and M verifier warning(s) in
 * %f", "; M verifier warning(s) in %f"). Everything in the listing is a
 * comment or IR, so it re-parses when the function's text does (built IR
 * may not: a branch to a block not in the layout, or a use of a removed
 * parameter, has no text that parses). An error whose entity is not printed (an
 * unplaced instruction, an unused alias) is shown under the function
 * header. file may be NULL ("<input>"); inst_numbers adds "; instN" to
 * every instruction line. Returns the number of errors and warnings
 * rendered; renders nothing when it is 0. (Warnings do not make
 * kl_verify_func fail: docs/verifier.md, "Memory".)
 */
uint32_t kl_verify_render(const kl_func *f, const kl_diags *d,
			  const char *file, bool inst_numbers, kl_buf *headers,
			  kl_buf *listing);
/* kl_verify_render for every function of m that d has diagnostics about,
 * in symbol order (what kl_verify_module found, say). With one buffer for
 * both, each function's header lines come before its listing, as keel
 * verify shows them; with two, all the header lines go to headers.
 * Returns the number of errors and warnings rendered. */
uint32_t kl_verify_render_module(const kl_module *m, const kl_diags *d,
				 const char *file, bool inst_numbers,
				 kl_buf *headers, kl_buf *listing);

/* ------------------------------------------------------------------------
 * Interpreter. (section owned by src/interp/)
 *
 * Runs the functions of a verified module, so that every transformation
 * can be checked by running code (docs/interpreter.md has the semantics).
 * An interpreter is made for one module and owns all memory the program
 * uses. It reads the module at every call, so the module must outlive it
 * (free the interpreter first). It decodes a function on its first call and
 * keeps the decoding; the module's functions may change between calls (the
 * builder, the rewriting calls, a pass), and each call runs them as they are
 * then: a function changed since its decoding is decoded again. Memory (an
 * object for each symbol, data objects filled from their items) is made
 * from the module at the first call and made again by kl_interp_reset
 * when symbols were added or data items appended since, so that after a
 * reset the interpreter is what a new one would be. Everything is
 * reentrant: two interpreters share nothing, so several can run at once
 * on different threads (on the same module too, as they only read it, as
 * long as nothing changes it meanwhile).
 *
 * Values cross the API as 64-bit bit patterns: an integer zero-extended
 * from its width, a float as its IEEE bits (f32 in the low 32 bits), a
 * pointer as (object id << 32 | offset). An argument's bits above its
 * type's width are ignored (0x1234567800000005 is an i32's 5, and all
 * ones its -1), as an instruction reading the value would ignore them.
 *
 * Program output (putchar, puts, printf) goes to the output callback; the
 * library itself never prints.
 */
typedef struct kl_interp kl_interp;

typedef struct kl_interp_options {
	uint64_t fuel;       /* IR instructions one call may run; 0: no limit */
	uint32_t max_depth;  /* call depth before stack_overflow; 0: 10,000 */
	uint64_t max_memory; /* bytes of alloca, heap and data, and 64 more
			      * an object; 0: 256 MiB */
	/* Receives the program's output as it is made, in pieces whose
	 * boundaries mean nothing (a long printf in pieces of about 64
	 * KiB); NULL discards it. */
	void (*output)(void *ctx, const char *data, size_t len);
	void *output_ctx;
	/* Called on the calling thread as a call starts and then about
	 * every 2^16 IR instructions it runs (where kl_interp_stop is
	 * looked at); returning true ends the call as kl_interp_stop does,
	 * with the message "the poll callback stopped the run". For a host
	 * that wants its own code to run during a long call without a
	 * thread: an interpreted language's pending signals (Python's
	 * Ctrl-C, which its handler sees only when Python code runs), a
	 * deadline, a progress bar. NULL: no calls. The rules of the
	 * output callback hold for it. */
	bool (*poll)(void *ctx);
	void *poll_ctx;
} kl_interp_options;

/* The interpreter's traps beyond the IR's trap codes (kl_trapcode). */
enum {
	KL_TRAP_STACK_OVERFLOW = KL_TRAP_COUNT, /* call depth or stack memory */
	KL_TRAP_OUT_OF_FUEL,                    /* the fuel budget ran out */
	KL_TRAP_ABORT,                          /* the program called abort() */
	KL_TRAP_BAD_SIG,                        /* call_indirect, wrong sig */
	KL_TRAP_RUN_COUNT
};

/* "unreachable", "int_divz", ..., "stack_overflow", "out_of_fuel",
 * "abort", "bad_sig"; "?" from KL_TRAP_RUN_COUNT on. */
const char *kl_run_trap_name(uint32_t trap);

typedef enum kl_run_status {
	KL_RUN_RETURNED, /* the function returned: results */
	KL_RUN_TRAPPED,  /* a trap: trap, user_code, message, stack */
	KL_RUN_EXITED,   /* the program called exit(): exit_code */
	KL_RUN_FAILED,   /* the interpreter cannot go on: a call to an unknown
			    external function, a malformed function, bad
			    arguments to kl_interp_call; message, stack */
} kl_run_status;

/* One frame of a call stack: the function and the instruction running. */
typedef struct kl_run_frame {
	kl_sym func;
	kl_inst inst;
} kl_run_frame;

/*
 * The outcome of a call. Every pointer belongs to the interpreter and stays
 * valid until its next kl_interp_call, kl_interp_reset or kl_interp_free.
 */
typedef struct kl_run_result {
	kl_run_status status;
	uint32_t num_results;        /* RETURNED */
	const uint64_t *results;     /* RETURNED: bits of each result */
	const kl_type *result_types; /* RETURNED: the callee's result types */
	uint32_t trap;               /* TRAPPED: kl_trapcode or KL_TRAP_* */
	uint32_t user_code;          /* TRAPPED with KL_TRAP_USER */
	int32_t exit_code;           /* EXITED */
	const char *message;         /* TRAPPED, FAILED: one line, no '\n' */
	const kl_run_frame *stack;   /* TRAPPED, FAILED: innermost first */
	uint32_t stack_depth;
	uint64_t executed;           /* IR instructions executed */
} kl_run_result;

/* A new interpreter for m (opts may be NULL). Free with kl_interp_free.
 * It decodes each function the first time it runs and keeps that until
 * the function changes: every library call that can change a function's
 * code (kl_build_*, the kl_inst_*, kl_block_* and kl_func_* calls that
 * take a non-const kl_func, kl_value_set_alias, passes) marks it
 * changed, and the next kl_interp_call decodes it again before it runs.
 * The module must not change during a call: a change from the output
 * or poll callback stops the run when the callback returns
 * (KL_RUN_FAILED). Nor may a callback use its own interpreter but to
 * read: a kl_interp_call from there is refused (KL_ERR_INVALID, FAILED), a
 * kl_interp_reset stops the run as a change does, and kl_interp_free
 * is undefined.
 * Memory is made from the module as it is at the first call, symbols
 * added until then included. */
kl_interp *kl_interp_new(const kl_module *m, const kl_interp_options *opts);
void kl_interp_free(kl_interp *it); /* NULL is allowed */

/*
 * Call a defined function with nargs argument bit patterns (nargs must be
 * its parameter count). Memory (data objects, heap) persists from call to
 * call, like one process calling several functions; kl_interp_reset
 * starts over. Memory does not change under a program by itself: after
 * items were appended to a data object that memory was made with, every
 * call is refused until kl_interp_reset (memory made from the old items
 * would give the old answers; dropping what earlier calls left in memory
 * unasked would be as surprising). Symbols added to the module since
 * memory was made have no object until kl_interp_reset: calling one is
 * refused, and a function that refers to one fails to run (FAILED), while
 * the others run as before. Returns KL_OK when *res describes the run
 * (whatever its status), KL_ERR_INVALID when func is not a defined
 * function the interpreter's memory has, nargs is wrong, args is NULL
 * with nargs > 0, data changed since memory was made, or a call of it
 * is in progress (from its output or poll callback) (*res is then FAILED with a
 * message, naming kl_interp_reset where it helps).
 */
kl_status kl_interp_call(kl_interp *it, kl_sym func, const uint64_t *args,
			 uint32_t nargs, kl_run_result *res);

/* Forget all memory: heap objects, allocas, data (re-initialised from the
 * module); the next objects get the ids a new interpreter would give.
 * When symbols were added to the module or items appended to its data
 * since memory was made, memory is made again from the whole module at
 * the next call: the interpreter is then what a new one would be (the
 * same object ids, the same contents). Decoded functions are kept (while
 * they do not change). When nothing was added, it costs what was made
 * since, not the module's size. From the output or poll callback during
 * a call, it forgets nothing: the run stops when the callback returns. */
void kl_interp_reset(kl_interp *it);

/* End the call in progress early, as FAILED with "kl_interp_stop stopped
 * the run" and the stack where it was. From any thread, from a signal
 * handler (it is one lock-free atomic store), or from the output
 * callback (for a host whose output cannot be written) or the poll
 * callback. The run stops
 * when the callback returns, or else within 2^16 more IR instructions
 * (a single builtin call, such as a long memset, finishes first). The
 * caller knows it stopped the run, so the result needs no mark of its
 * own. A stop is never lost: one that arrives while no call runs
 * stops the next call as it starts (executed 0), and a call clears it
 * as it ends. it must stay alive: stopping an interpreter being freed
 * is undefined. */
void kl_interp_stop(kl_interp *it);

/*
 * Describe a trap or failure: "trap int_divz: MESSAGE" (or "error:
 * MESSAGE", "exit N"), then one line per frame, innermost first:
 * "  in %f at inst3 (line 7): v2 = sdiv v0, v1". Long stacks show their
 * first and last frames. Every line ends with a newline, the first too
 * when there are no frames. Appends to out; nothing for RETURNED.
 */
void kl_run_describe(const kl_interp *it, const kl_run_result *res,
		     kl_buf *out);

/*
 * Values as text, in the text format's spelling. Scanning reads a literal
 * of type t from s[0..n): integers in decimal or hex with '_' separators,
 * '-' allowed, range-checked against the width (-2^(w-1) .. 2^w - 1);
 * floats as 1.5, 0x1.8p1, -0.0, inf, -inf, nan, nan:0xPAYLOAD (a hex
 * float must be exact in t; a decimal one rounds). The literal must end
 * s or be followed by a byte that cannot continue a word (not a letter,
 * digit, '_' or '.'): " 5," reads 5 in 2 bytes, "5x" nothing. Returns the
 * number of bytes used (leading blanks included), or 0, leaving *bits as
 * it was, if there is no valid literal. Formatting writes integers in signed
 * decimal at their width (unsigned decimal for the unsigned refined types
 * u8 .. u64) and floats exactly as the printer does, and "?" for a type
 * that is none.
 */
size_t kl_interp_scan_value(const kl_module *m, kl_type t, const char *s,
			    size_t n, uint64_t *bits);
void kl_interp_format_value(const kl_module *m, kl_type t, uint64_t bits,
			    kl_buf *out);

/* ------------------------------------------------------------------------
 * Passes. (section owned by src/pass/; docs/passes.md)
 *
 * A pass transforms one function in place. Every pass is listed once in
 * the registry behind kl_pass_find / kl_passes, which drives `keel opt -p`
 * and the `pass` test command. A pass expects verified IR and leaves
 * verified IR; it may leave removed instructions in the tables (unplaced)
 * and aliases behind, as the printer and verifier allow.
 *
 * A report collects what passes tell their caller: named counters (summed
 * over functions; `keel opt --stats`) and, when verbose, notes explaining
 * decisions, one line each (`keel opt -v`).
 */
#define KL_PASS_MAX_COUNTERS 16

typedef struct kl_pass_counter {
	const char *name; /* a string literal of the pass */
	uint64_t value;
} kl_pass_counter;

typedef struct kl_pass_report {
	bool verbose;     /* in: record notes */
	/* in: the caller verified the IR (kl_verify_func accepted it, and
	 * passes keep it so): a pass may skip checking again what the
	 * verifier guarantees, such as strict SSA form. */
	bool input_verified;
	/* in: the most entries a pass may add to one function's working
	 * sets; past it the pass does less and says so in a note (promote:
	 * candidate block parameters, after which it keeps the allocas not
	 * yet placed). 0: the pass's default (promote: 16 per instruction and
	 * block, plus 2^22). */
	uint64_t size_limit;
	kl_buf notes;     /* out: one note per line */
	kl_pass_counter counters[KL_PASS_MAX_COUNTERS];
	uint32_t num_counters;
	/* A pass's scratch kept from one function to the next, so running it
	 * over a module reuses memory; freed by kl_pass_report_free. Use one
	 * report per pass: given a report that holds another pass's scratch,
	 * promote leaves it there and makes its own for the call. */
	void *state;
	void (*state_free)(void *state);
} kl_pass_report;

/* Add n to the counter called name (created at 0 on first use); r NULL
 * counts nothing. The report keeps the pointer, not a copy: name must
 * live as long as the report (a string literal does). A pass names its
 * own fixed set of counters: a report holds at most
 * KL_PASS_MAX_COUNTERS names, and a new name past them is not counted
 * (KL_ERR_RANGE, the others unchanged); name NULL is KL_ERR_INVALID. */
kl_status kl_pass_report_count(kl_pass_report *r, const char *name,
			       uint64_t n);
uint64_t kl_pass_report_get(const kl_pass_report *r, const char *name);
void kl_pass_report_free(kl_pass_report *r); /* NULL is allowed */

/* A pass: report may be NULL. */
typedef kl_status (*kl_pass_fn)(kl_func *f, kl_pass_report *report);

typedef struct kl_pass {
	const char *name;
	const char *description;
	kl_pass_fn run;
	/* The names of the counters run reports, in its order, ending with
	 * NULL: what `keel opt --stats` prints, zeros too, even for a module
	 * with no function to run on. */
	const char *const *counters;
	/* What other compilers call the pass ("mem2reg"), blank-separated,
	 * for the message about an unknown pass; NULL if nothing. */
	const char *other_names;
} kl_pass;

/* The pass named name[0..len), or NULL if there is none. */
const kl_pass *kl_pass_find(const char *name, size_t len);
/* The whole registry, in a fixed order. */
const kl_pass *kl_passes(uint32_t *n);

/*
 * promote: memory to SSA values (mem2reg). Each `alloca` in the entry
 * block whose address does not escape, accessed through non-overlapping
 * (offset, width) slots, becomes SSA values and block parameters (pruned
 * SSA; docs/passes.md gives the exact rules). Functions that are not in
 * strict SSA form or that call setjmp are left alone. Counters: promoted,
 * kept (allocas), slots, params. Verbose notes say why each kept alloca
 * was kept. Returns KL_OK: the pass builds only conversions of values it
 * has (the builder does not check types), so another status, like IR
 * that does not verify after the pass, is a bug of the pass. Input that
 * does not verify is not refused, but what the pass makes of it is
 * unspecified (not a crash): verify first.
 */
kl_status kl_promote_func(kl_func *f, kl_pass_report *report);
/* Promote in every function; returns the number of allocas that remain
 * (the statuses are kl_promote_func's, always KL_OK but for a bug). */
uint32_t kl_promote_module(kl_module *m, kl_pass_report *report);

/*
 * dce: dead code elimination. Removes the blocks the entry block cannot
 * reach, the instructions without effect (no store, call, trap or
 * branch; loads stay, as they can trap) whose results nothing live uses,
 * and the parameters of blocks other than the entry that nothing live
 * uses, with their arguments. A value is live when a chain of uses leads
 * to it from an instruction that must stay, so parameters that only feed
 * each other go too. One mark and one sweep: O(instructions + arguments
 * + values). A function with a reachable use of a value defined in a
 * block that cannot run (not strict SSA) is left alone, with a note.
 * Counters: blocks, insts, params (removed; the instructions and
 * parameters of a removed block count in blocks only). Returns KL_OK;
 * input that does not verify gets an unspecified result (not a crash),
 * as promote's.
 */
kl_status kl_dce_func(kl_func *f, kl_pass_report *report);

/*
 * sccp: sparse conditional constant propagation (Wegman and Zadeck).
 * Finds, along the paths that can run only, the values that are integer
 * constants and the block parameters every branch that runs passes one
 * value (a constant or another value); replaces each with an iconst or
 * that value (an alias), makes a brif or br_table on a constant a jump,
 * and removes the blocks that cannot run. What the replaced values fed
 * stays: run dce after. Folds the integer operations that cannot trap
 * (arithmetic, bits, shifts, compares, extensions and reductions), not
 * floats, loads or divisions. O(instructions + arguments + uses) times
 * the lattice's height. Input not known to verify (report NULL, or
 * input_verified false) with an operand defined where it cannot run is
 * left alone, with a note. Counters: values, jumps, blocks, params.
 * Returns KL_OK; input that does not verify gets an unspecified result
 * (not a crash), as promote's.
 */
kl_status kl_sccp_func(kl_func *f, kl_pass_report *report);

/*
 * simplify: control-flow simplification. In reachable code: a brif or
 * br_table whose destinations are one block with the same arguments
 * becomes a jump; a block holding nothing but a jump (not the entry's,
 * and its parameters used by that jump only) is skipped, every branch to
 * it going on to its target with the arguments it would have passed;
 * a block whose only edge in is a jump is merged into the block that
 * jumps, its parameters becoming aliases of the arguments. One round,
 * O(instructions + arguments + values). Blocks that cannot run are
 * dce's. Counters: jumps (branches made jumps), skipped, merged
 * (blocks). Returns KL_OK; input that does not verify gets an
 * unspecified result (not a crash), as promote's.
 */
kl_status kl_simplify_func(kl_func *f, kl_pass_report *report);

/*
 * cse: common subexpression elimination (dominator-based value
 * numbering). An instruction without effect, of one result, whose
 * opcode, result type (its machine class), operands (through aliases;
 * in either order for a commutative opcode) and immediate are those of
 * one that dominates it,
 * is removed and its result made an alias of that one's: constants,
 * unary and binary operations, compares, select, symbol addresses; not
 * allocas or calls. A load is removed too when a dominating load of the
 * same opcode, type, address and offset, or a plain store of its type
 * there, is met with no block of several edges in, and nothing that
 * may write its object (a store to it; for data and escaped allocas a
 * call or a store through an unknown address), on the way down the
 * dominator tree (docs/passes.md); one whose bytes lie inside what such
 * a store wrote or load read is rebuilt from that value (a shift, a
 * reduction, an extension, a bitcast). Blocks the entry
 * cannot reach are left alone. Expected O(instructions + blocks) (a
 * hash table). Counters: insts (removed), loads (of those, loads).
 * Returns KL_OK; input that does not verify gets an unspecified result
 * (not a crash), as promote's.
 */
kl_status kl_cse_func(kl_func *f, kl_pass_report *report);

/*
 * licm: loop-invariant code motion (docs/passes.md). An instruction of
 * one result without effect that cannot trap (kl_op_is_pure), whose
 * operands are all defined outside a loop around it, moves to the end
 * of the preheader of the outermost such loop: the block before the
 * header when it is the only way in and ends in a jump to the header,
 * else a new block, with the header's parameters, that takes every
 * edge into the loop from outside. A load in a loop's header, with
 * nothing that may trap before it there, whose address is defined
 * outside the loop, moves out of that loop when no instruction of the
 * loop may write its bytes (a store to its object; for data and
 * escaped allocas a call or a store through an unknown address; for a
 * load through an unknown address, any call or store but to a private
 * alloca) or make memory (an alloca). Counters:
 * insts (moved), loads (of those, loads), preheaders (made). Returns
 * KL_OK; input that does not verify gets an unspecified result (not a
 * crash), as promote's.
 */
kl_status kl_licm_func(kl_func *f, kl_pass_report *report);

/*
 * refine: type refinement (docs/passes.md). Gives each integer value of
 * a machine type the refined type (docs/ir.md, "Refined types") its uses
 * and definition call for: ptr for addresses and what is added to them,
 * sN or uN for values the signed or unsigned operations read or make,
 * shared along block parameters, arithmetic and compares. Values already
 * refined keep their types, and count as evidence; signatures are not
 * changed. Only value types change, so what the function computes does
 * not. Near-linear (union-find). Counters: signed, unsigned, pointers
 * (values refined). Returns KL_OK; input that does not verify gets an
 * unspecified result (not a crash), as promote's.
 */
kl_status kl_refine_func(kl_func *f, kl_pass_report *report);

/*
 * inline: inlining (docs/passes.md). A direct call to a function of the
 * module of size at most 60 (blocks, instructions, parameters of blocks
 * but the entry, values in lists, destinations), other than the caller,
 * not variadic, with no alloca_dyn, allocas only in its entry block (at
 * most 256 bytes), neither calling a function returning twice nor taking
 * its address, is replaced by a copy of its body: the callee's entry
 * where the call was, its other blocks after the call's block, what
 * followed the call in a new block its returns jump to; the call's
 * results become aliases. The allocas move to the caller's entry block
 * (at most 1024 bytes in all), filled with zeros where the call was
 * unless it was there. A caller that calls a function returning twice,
 * or takes its address, is left alone, and so are calls in blocks that
 * cannot run. Only the calls present when the pass starts are inlined,
 * with the callees as they are then. O(instructions of the function +
 * what is copied, at most the size and stores of zero a call). Counters:
 * calls (inlined), kept (calls left), insts (copied). Returns KL_OK;
 * input that does not verify gets an unspecified result (not a crash),
 * as promote's.
 */
kl_status kl_inline_func(kl_func *f, kl_pass_report *report);

/*
 * combine: peephole rewrites of integer instructions (docs/passes.md):
 * identities go (x + 0, x * 1, x & -1, a select of one value twice),
 * constant operands become immediates, chains of immediates fold (x + 1
 * + 2), multiplications, unsigned divisions and remainders by powers of
 * two become shifts and masks, double negations and extensions of
 * extensions merge, and a compare of a compare with 0 or 1 becomes the
 * compare or its inverse. Each rewritten instruction is replaced through
 * an alias; what it read is left for dce. One walk in layout order,
 * O(instructions). Counter: insts (rewritten). Returns KL_OK; input that
 * does not verify gets an unspecified result (not a crash), as promote's.
 */
kl_status kl_combine_func(kl_func *f, kl_pass_report *report);

/*
 * dse: dead store elimination (docs/passes.md). A store is removed when
 * every way on from it writes all its bytes again before anything may
 * read them (a load that may overlap them, a call that may reach them),
 * when it is to an alloca whose address does not escape and that no
 * load reads, or when it is to an alloca and the function returns or
 * traps before anything reads it (the alloca dies). A store other than
 * inside an alloca goes only where what is between it and its
 * overwriting store cannot end the program otherwise (no call, no
 * other trap, no alloca). Allocas are apart from each
 * other and from data; an address of unknown base may reach data and
 * the allocas whose address escapes. Edges round a loop carry nothing.
 * O(instructions + edges). Counter: stores (removed). Returns KL_OK;
 * input that does not verify gets an unspecified result (not a crash),
 * as promote's.
 */
kl_status kl_dse_func(kl_func *f, kl_pass_report *report);

/* ------------------------------------------------------------------------
 * Emitting C: a module as a C11 program (docs/emit-c.md).
 *
 * Appends to out a program that runs the module as `keel run` does:
 * %main, if there is one, is its main, printing its results and exiting
 * with keel run's status. Loops are `for (;;)`, branches `if` and
 * `switch`, read off the structured regions; `goto` only where C has
 * nothing better. file is the name the program's trap messages give
 * (NULL: "<module>"). KL_OK; KL_ERR_VERIFY, with the verifier's
 * diagnostics, if a function does not verify; KL_ERR_UNSUPPORTED, with
 * an error per thing (the function and instruction, and the
 * instruction's line when parsed), for what C cannot be given: a %main
 * with parameters, call_indirect through a variadic signature, types
 * other than the built-in machine classes, pointers other than i64, a
 * data object over 2^31 bytes or aligned past 4096. Nothing is appended
 * then. KL_ERR_INVALID if m or
 * out is NULL. diags may be NULL.
 */
kl_status kl_emit_c(const kl_module *m, const char *file, kl_buf *out,
		    kl_diags *diags);

/* ------------------------------------------------------------------------
 * Emitting x86-64 assembly (docs/emit-asm.md): GNU as, AT&T syntax,
 * System V ELF, for Linux. Appends to out a file that `cc FILE.s`
 * makes a program running the module as `keel run` does (%main, if
 * there is one, is its main, printing its integer results and exiting
 * with keel run's status), or links with C code: functions and data
 * keep their names and the System V calling convention. Values live in
 * callee-saved registers or stack slots by linear scan. file is the name
 * trap messages give (NULL: "<module>"). KL_OK; KL_ERR_VERIFY, with the
 * verifier's diagnostics, if a function does not verify;
 * KL_ERR_UNSUPPORTED, with an error per thing, for a %main with
 * parameters, an address stored in fewer than 8 bytes
 * of data, a data object over 2^31 bytes or aligned past 4096; nothing
 * is appended then. KL_ERR_INVALID if m or out is NULL. diags may be
 * NULL.
 */
kl_status kl_emit_asm(const kl_module *m, const char *file, kl_buf *out,
		      kl_diags *diags);

/* ------------------------------------------------------------------------
 * FileCheck: match FileCheck-style directives against text.
 *
 * A checker is built line by line from comment text, then run against the
 * output of the command under test. Directives, in the order written:
 *
 *   check: PAT      PAT matches at or after the end of the previous match
 *   sameln: PAT     ... on the same output line as the previous match
 *   nextln: PAT     ... on the output line right after the previous match
 *   unordered: PAT  a run of these matches in any order, without overlap
 *   not: PAT        PAT must not occur before the next positive match
 *   regex: X=RE     defines $X as the POSIX extended regex RE
 *
 * In a pattern, runs of blanks match any run of blanks; $X and $(X) use a
 * variable, $(X=RE) matches RE and binds X to the text, $(=RE) matches RE
 * without binding, and $$ is a literal '$'. See src/filetest/filecheck.c
 * (the patterns) and filecheck_run.c (the matching) for the details.
 *
 */
typedef struct kl_filecheck kl_filecheck;

/* A checker with no directives; it owns everything added to it. */
kl_filecheck *kl_filecheck_new(void);

/* Free the checker and everything it owns. NULL is allowed. */
void kl_filecheck_free(kl_filecheck *fc);

/*
 * Offer one line of comment text (the text after the ';' comment marker,
 * possibly with leading spaces). Returns 1 if it was a directive and was
 * added, 0 if the line is not a directive (plain comment, or some other
 * annotation like "error:", "run:", "dominates:"), -1 if it is a malformed
 * directive (bad regex, bad variable syntax...) or a misspelt one (LLVM
 * FileCheck's spellings such as "check-next:", capitals: "CHECK:",
 * "NOT:", a blank before the colon: "not :", a name spelt out:
 * "nextline:"; a mixed-case word such as "Note:" is prose): a one-line message,
 * without a newline, is appended to err (which may be NULL; the caller, who
 * knows where the text is, says where) and the checker is left as it was.
 * The text is one line: a line break inside the pattern is refused
 * (-1), one at either end is trimmed with the blanks. `line` is the
 * 1-based line number in the check file, used in the reports of
 * kl_filecheck_run.
 */
int kl_filecheck_add_line(kl_filecheck *fc, const char *text, size_t len,
			  uint32_t line, kl_buf *err);

/*
 * After kl_filecheck_add_line returned -1: the byte offset, in the text
 * it was given, of what its message is about (the '$' of an undefined
 * $X, the '[' of an unclosed bracket, the start of a bad regex), or of
 * the directive's name when no finer place is known; for a caret. Not
 * part of the checker's directives: a refused line still leaves them as
 * they were. 0 before any line was refused.
 */
size_t kl_filecheck_error_at(const kl_filecheck *fc);

/* The number of directives added so far, regex: definitions included. */
size_t kl_filecheck_count(const kl_filecheck *fc);

/*
 * Match all directives against `out` (len bytes, need not be NUL-terminated).
 * Returns true on success; on failure appends a human-readable report
 * (several lines, each ending in '\n') to `report` and returns false. The
 * checker is not changed, so it can be run again on other output. A
 * checker with no directive passes; one with regex: definitions only
 * fails (it would check nothing).
 */
bool kl_filecheck_run(const kl_filecheck *fc, const char *out, size_t len,
		      kl_buf *report);

#ifdef __cplusplus
}
#endif

#endif /* KEEL_H */
