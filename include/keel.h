/*
 * keel.h -- the one public header of libkeel, a small SSA compiler IR.
 *
 * Everything a front end, a pass writer or a tool needs is declared here and
 * prefixed kl_. The library never prints, never exits and keeps no global
 * mutable state: errors come back as values (kl_status, kl_diags), and every
 * object is owned by the caller that created it.
 *
 * Entities (values, blocks, instructions, signature references, symbols) are
 * 32-bit indices wrapped in one struct per kind, so the compiler catches a
 * block passed where a value was meant. The all-ones index KL_NONE means
 * "none". Types are plain 32-bit handles (kl_type).
 *
 * Allocation failure is the one condition the library does not turn into a
 * value: it reports "out of memory" on stderr and aborts, as compilers do.
 * Entity-number limits in the parser keep hostile input from asking for
 * absurd amounts of memory.
 */
#ifndef KEEL_H
#define KEEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KL_VERSION "0.1.0"

/* The reserved "none" index of every entity kind. */
#define KL_NONE UINT32_MAX

/* ------------------------------------------------------------------------
 * Growable byte buffer, used wherever the library produces text.
 * A zeroed kl_buf is empty and valid. data is NUL-terminated whenever
 * len > 0 (the terminator is not counted in len).
 */
typedef struct kl_buf {
	char *data;
	size_t len;
	size_t cap;
} kl_buf;

void kl_buf_free(kl_buf *b);
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

#define KL_NO_VALUE ((kl_value){ KL_NONE })
#define KL_NO_BLOCK ((kl_block){ KL_NONE })
#define KL_NO_INST ((kl_inst){ KL_NONE })
#define KL_NO_SYM ((kl_sym){ KL_NONE })

/* Which kind of entity a diagnostic or annotation points at. */
typedef enum kl_entity_kind {
	KL_ENT_NONE,
	KL_ENT_FUNC,  /* id: symbol of the function */
	KL_ENT_BLOCK,
	KL_ENT_INST,
	KL_ENT_VALUE,
	KL_ENT_SIGREF,
	KL_ENT_SYM,
} kl_entity_kind;

typedef struct kl_entity {
	kl_entity_kind kind;
	uint32_t id;
} kl_entity;

/* ------------------------------------------------------------------------
 * Diagnostics: a caller-owned list the parser and verifier append to.
 */
typedef enum kl_severity { KL_SEV_ERROR, KL_SEV_WARNING, KL_SEV_NOTE } kl_severity;

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

void kl_diags_free(kl_diags *d);
uint32_t kl_diags_errors(const kl_diags *d);
/* Append a diagnostic; the message is copied. */
void kl_diags_add(kl_diags *d, kl_severity sev, uint32_t line, uint32_t col,
		  const char *message);
/* Sort by (line, column), keeping the order of equal positions. */
void kl_diags_sort(kl_diags *d);
/*
 * Render one diagnostic as "FILE:LINE:COL: error: MESSAGE", followed, when
 * the source text is given and the line is known, by the source line and a
 * caret under the column. file may be NULL ("<input>").
 */
void kl_diag_render(const kl_diag *d, const char *file, const char *src,
		    size_t src_len, kl_buf *out);

/* ------------------------------------------------------------------------
 * Types. Built-in types have fixed handles; semantic types added later live
 * in the same per-module table and each has a machine class, one of the six
 * built-ins, on which instructions are checked and executed.
 */
typedef uint32_t kl_type;

enum {
	KL_TYPE_I8 = 0,
	KL_TYPE_I16 = 1,
	KL_TYPE_I32 = 2,
	KL_TYPE_I64 = 3,
	KL_TYPE_F32 = 4,
	KL_TYPE_F64 = 5,
	KL_TYPE_BUILTIN_COUNT = 6,
};

#define KL_TYPE_NONE ((kl_type)KL_NONE)

typedef struct kl_module kl_module;
typedef struct kl_func kl_func;

kl_type kl_type_class(const kl_module *m, kl_type t); /* KL_TYPE_NONE if bad */
bool kl_type_is_int(const kl_module *m, kl_type t);
bool kl_type_is_float(const kl_module *m, kl_type t);
uint32_t kl_type_bytes(const kl_module *m, kl_type t); /* 0 if bad */
/* Name of a type as the text format spells it ("i32"). */
const char *kl_type_name(const kl_module *m, kl_type t);
/* The integer type pointers have (i64 unless changed). */
kl_type kl_module_pointer_type(const kl_module *m);

/* ------------------------------------------------------------------------
 * Opcodes, generated from keel_opcodes.def.
 */
#define KL_NRES_SIG 255

typedef enum kl_opcode {
#define KL_OPCODE(name, text, fmt, nres, typing, ctrl, memw, flags) KL_OP_##name,
#include "keel_opcodes.def"
#undef KL_OPCODE
	KL_OP_COUNT
} kl_opcode;

/* Operand layouts; see src/ir/ir.h for what each stores. */
typedef enum kl_format {
	KL_FMT_CONST, KL_FMT_UNARY, KL_FMT_BINARY, KL_FMT_BINARY_IMM,
	KL_FMT_ICMP, KL_FMT_ICMP_IMM, KL_FMT_FCMP, KL_FMT_TERNARY,
	KL_FMT_LOAD, KL_FMT_STORE, KL_FMT_ALLOCA, KL_FMT_ALLOCA_DYN,
	KL_FMT_SYMBOL, KL_FMT_CALL, KL_FMT_CALL_INDIRECT, KL_FMT_JUMP,
	KL_FMT_BRIF, KL_FMT_BR_TABLE, KL_FMT_RETURN, KL_FMT_TRAP,
} kl_format;

/* Type rules, one per opcode column TYPING; docs/ir.md explains each. */
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
	KL_CTRL_ARG0,     /* the first value operand's type, written if needed */
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
	KL_OPF_PURE = 1 << 8,        /* no effects: removable when unused */
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

const kl_opinfo *kl_op_info(kl_opcode op);
const char *kl_op_name(kl_opcode op);
bool kl_op_is_terminator(kl_opcode op);
bool kl_op_is_branch(kl_opcode op);
bool kl_op_is_call(kl_opcode op);
bool kl_op_is_return(kl_opcode op);
bool kl_op_can_trap(kl_opcode op);
bool kl_op_can_load(kl_opcode op);
bool kl_op_can_store(kl_opcode op);
bool kl_op_has_side_effects(kl_opcode op);

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
void kl_module_free(kl_module *m);

uint32_t kl_module_num_syms(const kl_module *m);
/* The symbol named by the bytes name[0..len), or KL_NO_SYM. */
kl_sym kl_module_lookup(const kl_module *m, const char *name, size_t len);
kl_sym_kind kl_sym_get_kind(const kl_module *m, kl_sym s);
/* The name's bytes (not NUL-terminated) and length; valid while m lives. */
const char *kl_sym_name(const kl_module *m, kl_sym s, size_t *len);
/* The function's body, or NULL for a declaration or a data object. */
kl_func *kl_sym_func(const kl_module *m, kl_sym s);
/* The signature of a function symbol; arrays valid until m changes. */
kl_signature kl_sym_signature(const kl_module *m, kl_sym s);

/* Add `declare NAME SIG`. KL_ERR_EXISTS if the name is taken. */
kl_status kl_module_declare(kl_module *m, const char *name, size_t len,
			    const kl_signature *sig, kl_sym *out);
/* Add a function definition with an empty body. */
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
	uint64_t value;    /* VALUE: bits; ZERO: count; SYMREF: offset (signed) */
	kl_sym sym;        /* SYMREF */
	const char *bytes; /* STRING (not NUL-terminated) */
	uint32_t len;      /* STRING */
} kl_data_item;

kl_status kl_module_add_data(kl_module *m, const char *name, size_t len,
			     bool is_const, uint32_t align, kl_sym *out);
/* Append an item to a data object (strings are copied). */
kl_status kl_data_append(kl_module *m, kl_sym data, const kl_data_item *item);
uint32_t kl_data_num_items(const kl_module *m, kl_sym data);
kl_data_item kl_data_item_at(const kl_module *m, kl_sym data, uint32_t i);
bool kl_data_is_const(const kl_module *m, kl_sym data);
uint32_t kl_data_align(const kl_module *m, kl_sym data);
/* Total size in bytes of the object's items. */
uint64_t kl_data_size(const kl_module *m, kl_sym data);

/* ------------------------------------------------------------------------
 * Functions, blocks, values, instructions (read access).
 */
kl_module *kl_func_module(const kl_func *f);
kl_sym kl_func_sym(const kl_func *f);
kl_signature kl_func_signature(const kl_func *f);

/* Layout order of blocks; the first block is the entry block. */
kl_block kl_func_first_block(const kl_func *f);
kl_block kl_block_next(const kl_func *f, kl_block b);
kl_block kl_block_prev(const kl_func *f, kl_block b);
uint32_t kl_block_num_params(const kl_func *f, kl_block b);
kl_value kl_block_param(const kl_func *f, kl_block b, uint32_t i);
kl_inst kl_block_first_inst(const kl_func *f, kl_block b);
kl_inst kl_block_last_inst(const kl_func *f, kl_block b);
kl_inst kl_inst_next(const kl_func *f, kl_inst i);
kl_inst kl_inst_prev(const kl_func *f, kl_inst i);
kl_block kl_inst_block(const kl_func *f, kl_inst i); /* none if not placed */
/* Does a come before b? Both must be in the same block. O(1). */
bool kl_inst_precedes(const kl_func *f, kl_inst a, kl_inst b);

/* Capacity of the entity tables (valid ids are below these). */
uint32_t kl_func_value_bound(const kl_func *f);
uint32_t kl_func_block_bound(const kl_func *f);
uint32_t kl_func_inst_bound(const kl_func *f);

kl_type kl_value_type(const kl_func *f, kl_value v);
/* Follow alias links to the value that is really defined. */
kl_value kl_value_resolve(const kl_func *f, kl_value v);
bool kl_value_is_alias(const kl_func *f, kl_value v);
/* The defining instruction (results) or block (parameters). */
kl_inst kl_value_def_inst(const kl_func *f, kl_value v);
kl_block kl_value_def_block(const kl_func *f, kl_value v);

kl_opcode kl_inst_opcode(const kl_func *f, kl_inst i);
uint32_t kl_inst_num_results(const kl_func *f, kl_inst i);
kl_value kl_inst_result(const kl_func *f, kl_inst i, uint32_t n);
/* Value operands in text order, excluding branch arguments. */
uint32_t kl_inst_num_args(const kl_func *f, kl_inst i);
kl_value kl_inst_arg(const kl_func *f, kl_inst i, uint32_t n);
int64_t kl_inst_imm(const kl_func *f, kl_inst i); /* CONST, _IMM, ALLOCA size */
int32_t kl_inst_offset(const kl_func *f, kl_inst i); /* loads, stores */
uint32_t kl_inst_cond(const kl_func *f, kl_inst i); /* kl_intcc/kl_floatcc */
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
 * match opcodes); types are the verifier's job.
 */
typedef struct kl_builder {
	kl_func *func;
	kl_block block;   /* block to append to, or the block of `before` */
	kl_inst before;   /* insert before this instruction, or none: append */
	kl_status status;
	const char *error; /* static text describing the first failure */
} kl_builder;

typedef struct kl_block_call {
	kl_block block;
	const kl_value *args;
	uint32_t num_args;
} kl_block_call;

kl_block kl_func_new_block(kl_func *f); /* not yet in the layout */
kl_status kl_func_append_block(kl_func *f, kl_block b);
kl_status kl_func_insert_block_after(kl_func *f, kl_block b, kl_block after);
kl_value kl_block_append_param(kl_func *f, kl_block b, kl_type t);
/* Make v an alias of target (v must be unused as a definition). */
kl_status kl_value_set_alias(kl_func *f, kl_value v, kl_value target);
/* Add `sigN = SIG` to the function's preamble. */
kl_sigref kl_func_add_sigref(kl_func *f, const kl_signature *sig);

void kl_builder_init(kl_builder *b, kl_func *f);
void kl_builder_at_end(kl_builder *b, kl_block blk);
void kl_builder_before(kl_builder *b, kl_inst inst);
kl_status kl_builder_status(const kl_builder *b);

kl_value kl_build_iconst(kl_builder *b, kl_type t, int64_t imm);
kl_value kl_build_f32const(kl_builder *b, uint32_t bits);
kl_value kl_build_f64const(kl_builder *b, uint64_t bits);
/* UNARY format; t is the result type for opcodes with an explicit type. */
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

/* Remove an instruction from the layout (its results stay defined by it). */
void kl_inst_remove(kl_func *f, kl_inst i);

/* ------------------------------------------------------------------------
 * Text: parsing and printing.
 */
typedef struct kl_parse_options {
	const char *filename;      /* for messages only; may be NULL */
	/*
	 * Test files hold several versions of one function under one name:
	 * with this set, a later definition of a taken name is kept as a
	 * function of its own instead of being an error (lookups find the
	 * first).
	 */
	bool allow_redefinition;
} kl_parse_options;

/*
 * Parse a whole module. On success *out is the module. On errors, the
 * diagnostics are appended to diags, *out is NULL and KL_ERR_PARSE is
 * returned. opts may be NULL.
 */
kl_status kl_parse_module(const char *text, size_t len,
			  const kl_parse_options *opts, kl_module **out,
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
 * header, a sigref, a block header, an instruction) and the text of that
 * line; whatever it appends to out appears below the line. Used to put
 * verifier errors inside the listing.
 */
typedef struct kl_print_options {
	bool inst_numbers; /* append " ; instN" to every instruction line */
	void (*annotate)(void *ctx, const kl_func *f, kl_entity what,
			 const char *line, size_t line_len, kl_buf *out);
	void *annotate_ctx;
} kl_print_options;

void kl_print_module(const kl_module *m, const kl_print_options *opts,
		     kl_buf *out);
void kl_print_func(const kl_func *f, const kl_print_options *opts,
		   kl_buf *out);
void kl_print_inst(const kl_func *f, kl_inst i, kl_buf *out); /* no indent */
void kl_print_value(const kl_func *f, kl_value v, kl_buf *out);

/* ------------------------------------------------------------------------
 * Analyses: control-flow graph, dominator tree, frontiers, loops, liveness.
 * (section owned by src/analysis/)
 */

/* ------------------------------------------------------------------------
 * Verifier. (section owned by src/verify/)
 */

/* ------------------------------------------------------------------------
 * Interpreter. (section owned by src/interp/)
 */

/* ------------------------------------------------------------------------
 * Passes. (section owned by src/pass/)
 */

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
 * without binding, and $$ is a literal '$'. See filecheck.c for the details.
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
 * directive (bad regex, bad variable syntax...): a one-line message
 * "line N: ...\n" is appended to err (which may be NULL) and the checker is
 * left as it was. `line` is the 1-based line number in the check file, used
 * in reports.
 */
int kl_filecheck_add_line(kl_filecheck *fc, const char *text, size_t len,
			  uint32_t line, kl_buf *err);

/* The number of directives added so far, regex: definitions included. */
size_t kl_filecheck_count(const kl_filecheck *fc);

/*
 * Match all directives against `out` (len bytes, need not be NUL-terminated).
 * Returns true on success; on failure appends a human-readable report
 * (several lines, each ending in '\n') to `report` and returns false. The
 * checker is not changed, so it can be run again on other output.
 */
bool kl_filecheck_run(const kl_filecheck *fc, const char *out, size_t len,
		      kl_buf *report);

#endif /* KEEL_H */
