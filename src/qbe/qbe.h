/*
 * qbe.h -- what the QBE IL importer's files share: the tokens of the
 * lexer, the syntax tree the parser fills for a whole file, the table of
 * QBE's instructions, and the entry points of each step.
 *
 * The importer runs in three steps, each in files of its own:
 *
 *   qbe_lex.c     text -> tokens (line, column, newline seen before)
 *   qbe_parse*.c  tokens -> a qbe_unit: every definition of the file,
 *                 names resolved (temporaries and labels per function,
 *                 globals per file), temporaries typed
 *   qbe_build*.c  qbe_unit -> keel module: symbols, declarations made
 *                 from calls, data, then each function through kl_vars
 *
 * The tree lives in growable arrays of the unit, indexed by 32-bit
 * numbers as the IR is; names point into the text, which outlives the
 * unit. Every error is a diagnostic with the line and column of the
 * token it is about; nothing here aborts or exits on input.
 */
#ifndef KEEL_QBE_H
#define KEEL_QBE_H

#include <stdarg.h>

#include "../text/text.h"
#include "../util/util.h"

typedef struct qbe_pos {
	uint32_t line, col;
} qbe_pos;

/* Types: the four base types first, so that a mask of base types fits
 * bits 1..4; b and h only in data, loads, stores and extensions. */
enum {
	QTY_NONE,
	QTY_W,
	QTY_L,
	QTY_S,
	QTY_D,
	QTY_B,
	QTY_H,
	QTY_Z /* data: z N */
};
#define QTY_BIT(t) (1u << (t))
#define QTY_WL (QTY_BIT(QTY_W) | QTY_BIT(QTY_L))
#define QTY_SD (QTY_BIT(QTY_S) | QTY_BIT(QTY_D))
#define QTY_ALL (QTY_WL | QTY_SD)

/* ---- tokens ---- */
typedef enum qbe_tok_kind {
	QTOK_EOF,
	QTOK_WORD,   /* a bare word: keyword, instruction, type letter */
	QTOK_GLOBAL, /* $name (s, len: the name without its sigil) */
	QTOK_TEMP,   /* %name */
	QTOK_LABEL,  /* @name */
	QTOK_AGG,    /* :name, an aggregate type */
	QTOK_INT,    /* bits: the two's complement of the number */
	QTOK_SINGLE, /* s_1.5: bits, the f32's */
	QTOK_DOUBLE, /* d_1.5: bits, the f64's */
	QTOK_STRING, /* s, len: the bytes, escapes decoded */
	QTOK_PUNCT,  /* one of = , ( ) { } + - */
	QTOK_DOTS,   /* ... */
	QTOK_ERROR,  /* the lexer said why in a diagnostic */
	QTOK_NL      /* the end of a statement's line (the parser's) */
} qbe_tok_kind;

typedef struct qbe_tok {
	qbe_tok_kind kind;
	const char *s;
	uint32_t len;
	qbe_pos pos, end; /* its first byte, and the one after it */
	bool line_start;  /* the first token of its line */
	char punct;
	uint64_t bits;
} qbe_tok;

typedef struct qbe_lexer {
	const char *text, *end, *p;
	uint32_t line;
	const char *line_begin;
	kl_diags *diags;
	kl_arena *arena; /* decoded strings */
	uint32_t errors;
	bool line_start;
	/* Report nothing: the parser is skipping text after an error, or
	 * has given up (a bad byte per token would flood diagnostics). */
	bool quiet;
} qbe_lexer;

void qbe_lex_init(qbe_lexer *lx, const char *text, size_t len,
		  kl_diags *diags, kl_arena *arena);
qbe_tok qbe_lex_next(qbe_lexer *lx);

/* Append an error at pos, printf-style. */
void qbe_verror(kl_diags *d, qbe_pos pos, const char *fmt, va_list ap)
	KL_PRINTF(3, 0);
void qbe_error(kl_diags *d, qbe_pos pos, const char *fmt, ...)
	KL_PRINTF(3, 4);

/* ---- names: a table from byte strings to numbers ---- */
typedef struct qbe_names {
	uint32_t *slots; /* index + 1 into keys, 0: empty */
	uint32_t cap;    /* a power of two, or 0 */
	const char **key;
	uint32_t *klen;
	uint32_t *kslot; /* where each name sits in slots */
	uint32_t n, kcap;
} qbe_names;

/* The number of name s[0..len): its existing one, or n (the next) when
 * it is new (*fresh then true). */
uint32_t qbe_names_get(qbe_names *t, const char *s, uint32_t len,
		       bool *fresh);
void qbe_names_clear(qbe_names *t); /* O(names held), keeps the memory */
void qbe_names_free(qbe_names *t);

/* ---- the instruction table ---- */
typedef enum qbe_kind {
	QK_ARITH, /* T(T,T): iop for integers, fop for floats */
	QK_NEG,
	QK_SHIFT, /* I(I,w) */
	QK_EXT,   /* integer extension of the low `width` bytes */
	QK_CONV,  /* one operand of type aty: opcode iop */
	QK_CAST,
	QK_COPY,
	QK_STORE,
	QK_LOAD,
	QK_ALLOC,
	QK_BLIT,
	QK_CALL,
	QK_PHI,
	QK_CMP,
	QK_VASTART,
	QK_VAARG
} qbe_kind;

typedef struct qbe_opdef {
	const char *name;
	uint8_t kind;   /* qbe_kind */
	uint8_t rmask;  /* result types (QTY_BIT), 0: no result */
	uint8_t aty;    /* operand type, QTY_NONE: the result's */
	uint8_t width;  /* loads, stores, extensions: bytes; alloc: align */
	bool sign;      /* loads and extensions */
	kl_opcode iop, fop;
} qbe_opdef;

/* The row of the instruction named s[0..len), or NULL. Comparisons are
 * one row (QK_CMP) whose condition qbe_cmp_parse reads. */
const qbe_opdef *qbe_op_lookup(const char *s, uint32_t len);
/* Is s[0..len) a comparison (c, a condition, a type letter)? Fills the
 * operand type and the keel condition (kl_intcc or kl_floatcc). */
bool qbe_cmp_parse(const char *s, uint32_t len, uint8_t *ty, uint8_t *cc);
extern const qbe_opdef qbe_op_cmp, qbe_op_call, qbe_op_phi;

/* ---- the syntax tree ---- */
typedef enum qbe_vkind {
	QV_NONE,
	QV_TEMP,   /* id: the function's temporary */
	QV_INT,    /* bits */
	QV_SINGLE, /* bits: an f32's */
	QV_DOUBLE, /* bits: an f64's */
	QV_GLOBAL  /* id: the unit's global */
} qbe_vkind;

typedef struct qbe_val {
	uint8_t kind;
	uint32_t id;
	uint64_t bits;
	qbe_pos pos;
} qbe_val;

/* An operand: a value, with a call argument's type or a phi's label. */
typedef struct qbe_arg {
	qbe_val v;
	uint8_t ty;     /* calls: the argument's base type (l: aggregate) */
	uint32_t agg;   /* calls: its aggregate type + 1, 0: none */
	uint32_t label; /* phis: the function's label */
	qbe_pos lpos;
} qbe_arg;

typedef struct qbe_ins {
	const qbe_opdef *op;
	uint8_t ret;    /* result type, QTY_NONE: no result */
	uint8_t cty;    /* comparisons: operand type */
	uint8_t cc;     /* comparisons: kl_intcc or kl_floatcc */
	uint32_t dest;  /* temporary, or KL_NONE */
	qbe_pos pos;    /* of the instruction's name */
	uint32_t arg0, nargs; /* into unit.args; a call's callee first */
	uint32_t nfixed; /* calls: arguments before '...', KL_NONE: none */
	uint32_t ret_agg; /* calls: the result's aggregate type + 1, 0: none
			   * (ret is then l: the result's address) */
} qbe_ins;

typedef enum qbe_term {
	QJ_NONE, /* falls through to the next block */
	QJ_JMP,
	QJ_JNZ,
	QJ_RET,
	QJ_HLT
} qbe_term;

typedef struct qbe_blk {
	uint32_t label;
	qbe_pos pos;
	uint32_t ins0, nins; /* into unit.ins; phis first */
	uint8_t term;
	qbe_val tval;        /* jnz's condition, ret's value (QV_NONE) */
	uint32_t target[2];  /* labels */
	qbe_pos tpos[2];
	qbe_pos term_pos;
} qbe_blk;

typedef struct qbe_temp {
	const char *name;
	uint32_t len;
	uint8_t ty;    /* of its first definition */
	bool defined;
	qbe_pos def, use; /* first definition, first use */
} qbe_temp;

typedef struct qbe_label {
	uint32_t block; /* KL_NONE until its block is seen */
	qbe_pos use;    /* first reference */
	const char *name;
	uint32_t len;
} qbe_label;

typedef struct qbe_param {
	uint32_t temp;
	uint8_t ty;   /* l for an aggregate: its copy's address */
	uint32_t agg; /* aggregate type + 1, 0: none */
} qbe_param;

typedef struct qbe_fn {
	uint32_t global;
	qbe_pos pos;
	uint8_t ret;
	uint32_t ret_agg; /* aggregate result type + 1, 0: none (ret none) */
	bool variadic;
	uint32_t param0, nparams;
	uint32_t blk0, nblk;
	uint32_t temp0, ntemp;
	uint32_t label0, nlabel;
	kl_sym sym;
} qbe_fn;

typedef enum qbe_dkind { QD_VALUE, QD_STRING, QD_SYM, QD_ZERO } qbe_dkind;

typedef struct qbe_ditem {
	uint8_t kind; /* qbe_dkind */
	uint8_t ty;
	uint8_t vkind; /* QD_VALUE: QV_INT, QV_SINGLE or QV_DOUBLE */
	uint64_t bits; /* value, zero count, symbol offset */
	uint32_t global;
	const char *str;
	uint32_t len;
	qbe_pos pos;
} qbe_ditem;

typedef struct qbe_data {
	uint32_t global;
	qbe_pos pos;
	uint32_t align;
	uint32_t item0, nitems;
} qbe_data;

typedef struct qbe_global {
	const char *name;
	uint32_t len;
	qbe_pos use;      /* first mention */
	bool is_func, is_data;
	uint32_t def;     /* index of its qbe_fn or qbe_data, or KL_NONE */
	uint32_t call;    /* an undefined function: its first call */
	uint8_t ret;      /* ... the result type its calls give it */
	qbe_pos ret_pos;  /* ... where that was first said */
	kl_sym sym;
} qbe_global;

/* type :name = ...: what passing it by value copies. */
typedef struct qbe_agg {
	const char *name;
	uint32_t len;
	uint64_t size;  /* bytes, a multiple of align */
	uint32_t align; /* bytes */
	bool defined;
	qbe_pos pos;    /* of its definition, or first mention */
} qbe_agg;

typedef struct qbe_item {
	bool is_func;
	uint32_t index;
} qbe_item;

/* A whole file. Each array has a count and a capacity (kl_grow). */
typedef struct qbe_unit {
	qbe_item *items;
	uint32_t nitems, citems;
	qbe_fn *fns;
	uint32_t nfns, cfns;
	qbe_data *data;
	uint32_t ndata, cdata;
	qbe_ditem *ditems;
	uint32_t nditems, cditems;
	qbe_global *globals;
	uint32_t nglobals, cglobals;
	qbe_blk *blks;
	uint32_t nblks, cblks;
	qbe_ins *ins;
	uint32_t nins, cins;
	qbe_arg *args;
	uint32_t nargs, cargs;
	qbe_temp *temps;
	uint32_t ntemps, ctemps;
	qbe_label *labels;
	uint32_t nlabels, clabels;
	qbe_param *params;
	uint32_t nparams, cparams;
	qbe_agg *aggs;
	uint32_t naggs, caggs;
	qbe_names global_names, agg_names;
	kl_arena arena; /* decoded strings */
	uint64_t blit_bytes; /* unrolled so far, for QBE_MAX_BLIT_TOTAL */
} qbe_unit;

/* The parser's state, shared by qbe_parse.c (items, data) and
 * qbe_parse_func.c (function bodies). */
typedef struct qbe_parser {
	qbe_lexer lx;
	qbe_tok tok; /* the current token */
	qbe_pos prev_end; /* where the token before it ended */
	/* In a function's statement, which is one line, a token that
	 * starts another line is held back and tok is QTOK_NL instead. */
	bool in_stmt, held;
	qbe_tok next;
	qbe_unit *u;
	kl_diags *diags;
	uint32_t errors;
	qbe_names temps, labels; /* of the function being read */
	bool skipping; /* recovering from an error: the lexer is quiet */
	uint32_t agg;  /* the aggregate type the last abi type named + 1 */
} qbe_parser;

#define QBE_MAX_ERRORS 100

void qbe_next(qbe_parser *p);
/* An error at the current token (or at pos), counted. */
/* How many arguments of call `in` come before its `...` (all, without). */
uint32_t qbe_call_fixed(const qbe_ins *in);
/* A signature's types, from a scratch array the caller frees. */
typedef struct sig_buf {
	kl_type *types;
	uint32_t cap;
} sig_buf;
/* The signature call `in` gives its callee: its fixed arguments' types,
 * variadic after `...`, and result type ret (QTY_NONE: none). */
kl_signature qbe_call_signature(const qbe_unit *u, const qbe_ins *in,
				uint8_t ret, sig_buf *sb);
/* "EXPECTED, found TOKEN" at the current token (nothing for a malformed
 * one: the lexer reported it). */
void qbe_error_found(qbe_parser *p, const char *expected);
void qbe_parse_error(qbe_parser *p, qbe_pos pos, const char *fmt, ...)
	KL_PRINTF(3, 4);
/* Is the current token the punctuation c (or the word w)? */
bool qbe_is_punct(const qbe_parser *p, char c);
bool qbe_is_word(const qbe_parser *p, const char *w);
/* The token as a message quotes it: '%x', the end of the line... */
void qbe_describe(const qbe_tok *t, kl_buf *out);
/* Take punctuation c, or say what was expected and return false. */
bool qbe_expect(qbe_parser *p, char c, const char *where);
/* The global named by the current token ($name), numbered on first
 * sight. */
uint32_t qbe_global_of(qbe_parser *p);
/* A base type word (w l s d), with sb ub sh uh too when abi: QTY_NONE if
 * the current token is none. */
uint8_t qbe_base_type(const qbe_parser *p, bool abi);
/* Read a function from its name's token to its closing brace; ret_agg
 * its aggregate result type + 1 (0: none). */
void qbe_parse_func(qbe_parser *p, uint8_t ret, uint32_t ret_agg,
		    qbe_pos at);
/* The aggregate type the current token (:name) names, + 1; 0 after an
 * error (reported): none of that name defined so far. Takes the token. */
uint32_t qbe_agg_of(qbe_parser *p);
/* Grow a unit array (kl_grow) for one more element; its new index. */
uint32_t qbe_push(void *arr, uint32_t *n, uint32_t *cap, size_t elem);

/* Parse text into u (zeroed by the caller); false after errors, each in
 * diags. */
bool qbe_parse(qbe_unit *u, const char *text, size_t len, kl_diags *diags);
void qbe_unit_init(qbe_unit *u); /* empty, every array non-null */
void qbe_unit_free(qbe_unit *u);

/* The keel type of a QBE base type (w l s d; b h for data). */
kl_type qbe_keel_type(uint8_t ty);
/* "w", "l", ... for messages. */
const char *qbe_type_name(uint8_t ty);

/* Make m's symbols, declarations, data and functions from u; false
 * after errors. */
bool qbe_build_module(qbe_unit *u, kl_module *m, kl_diags *diags);

/* The state of building one function (qbe_build_func.c, whose
 * instructions qbe_build_inst.c makes). */
typedef struct qbe_fb {
	qbe_unit *u;
	kl_module *m;
	const qbe_fn *fn;
	kl_func *f;
	kl_builder b;
	kl_vars *vs;
	kl_var *vars;   /* one per temporary */
	kl_block blk;   /* the block being built */
	kl_diags *diags;
	uint32_t errors;
	kl_value *vals; /* scratch: a call's arguments */
	uint32_t cvals;
	kl_value *slots; /* the entry's allocas for aggregates passed or
			  * returned by the calls, in the order built */
	uint32_t cslots, next_slot;
	kl_value sret; /* a function returning an aggregate: where to */
	kl_value va;   /* a variadic function: its variadic arguments */
} qbe_fb;

/* Build the body of function fn of u into its kl_func. */
bool qbe_build_func(qbe_unit *u, kl_module *m, const qbe_fn *fn,
		    kl_diags *diags);
/* Value v read as type ty (w l s d) at the end of the block being
 * built: a variable's value, a constant made there, a symbol's address.
 * KL_NO_VALUE after an error (reported). */
kl_value qbe_operand(qbe_fb *fb, const qbe_val *v, uint8_t ty);
/* Build instruction in (not a phi) at the end of the block; false after
 * an error (reported). */
bool qbe_build_inst(qbe_fb *fb, const qbe_ins *in);
/* The function of the file call in names directly, or NULL. */
const qbe_fn *qbe_callee_fn(const qbe_unit *u, const qbe_ins *in);
/* The aggregate type + 1 call in gets back, 0: none. (A call that names
 * no result still gives memory for the one its callee returns.) */
uint32_t qbe_result_agg(const qbe_unit *u, const qbe_ins *in);
/* Does call in pass its variadic arguments in memory, as a variadic
 * function of the file takes them (a direct call to one, or an
 * indirect call with `...`)? */
bool qbe_call_packs(const qbe_unit *u, const qbe_ins *in);
/* The bytes call in's packed variadic arguments take. */
uint64_t qbe_va_bytes(const qbe_unit *u, const qbe_ins *in);
/* Is argument k (0: the first after the callee) of call in an aggregate
 * copied to memory of its own (not one packed among variadic ones)? */
bool qbe_arg_copied(const qbe_unit *u, const qbe_ins *in, uint32_t k);
/* Build call in; *result is its result (KL_NO_VALUE without one). */
bool qbe_build_call(qbe_fb *fb, const qbe_ins *in, kl_value *result);
void qbe_fb_error(qbe_fb *fb, qbe_pos pos, const char *fmt, ...)
	KL_PRINTF(3, 4);
/* The types of a call's arguments as a message shows them: "(w, l, ...)" */
void qbe_call_types(const qbe_unit *u, const qbe_ins *in, kl_buf *out);
/* Is an aggregate of n bytes small enough to copy? An error at pos if
 * not. */
bool qbe_copy_fits(qbe_fb *fb, uint64_t n, qbe_pos pos);
/* Copy n bytes from src to dst with loads and stores of 8, 4, 2 and 1
 * bytes (blit, aggregates), counted against QBE_MAX_BLIT and
 * QBE_MAX_BLIT_TOTAL: false after an error (reported at pos). */
bool qbe_copy_bytes(qbe_fb *fb, kl_value src, kl_value dst, uint64_t n,
		    qbe_pos pos);
/* blit is unrolled into loads and stores: a limit on each, and on all
 * of a file's together, so that the module stays near the text's size
 * (1,000 blits of 65,535 bytes in 20 KB of text once made 517 MB). */
#define QBE_MAX_BLIT 65536
#define QBE_MAX_BLIT_TOTAL (1u << 20)

#endif /* KEEL_QBE_H */
