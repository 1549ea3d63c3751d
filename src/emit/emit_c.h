/*
 * emit_c.h -- what the files of the C emitter (kl_emit_c) share.
 *
 *   emit_c.c        the module: data objects, declared functions (keel
 *                   run's built-ins), the runtime, main, the order of it all
 *   emit_c_flow.c   a function: its declarations, then its structured
 *                   regions as C statements, block parameters as copies
 *   emit_c_inst.c   one instruction as one or a few C statements
 *   emit_c_text.c   spelling: identifiers, C types and constants, trap
 *                   sites, signatures, refusals
 *   emit_c_runtime.h  the C every emitted program starts with
 *
 * The emitter reads IR through keel.h alone, as any user of the library
 * could; emit_c.c's opening comment says how the IR maps to C.
 */
#ifndef KEEL_EMIT_C_H
#define KEEL_EMIT_C_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keel.h"
#include "../util/util.h"

/* Regions nested deeper than this go out of line (emit_c_flow.c): each
 * level is a level of braces, and clang stops at 256 levels of brackets
 * by default; the emitter recurses once a level, some 320 bytes of
 * stack each. */
#define EMIT_MAX_DEPTH 200

typedef struct emitter {
	const kl_module *m;
	const char *file; /* the name the program gives in trap messages */
	kl_diags *diags;  /* what cannot be translated (NULL: not kept) */
	bool refused;     /* something could not be translated */
	kl_buf sites;     /* the rt_site table's entries */
	uint32_t nsites;
	kl_buf types;     /* the struct definitions of several results */
	kl_buf ident;     /* emit_ident's text */
	char ints[8][40]; /* emit_cint's and emit_sint's texts, in turn */
	unsigned next_int;
} emitter;

/* One function being emitted. */
typedef struct fn_ctx {
	emitter *e;
	const kl_func *f;
	kl_cfg *cfg;
	kl_regions *rg;
	kl_uses *uses;
	kl_buf *out;
	uint8_t *label; /* per region node: a goto names it (LABEL_*) */
	bool heap;      /* allocas on the heap: release at every return */
	uint32_t depth;
	bool scouting;    /* the first walk, which finds the labels a goto
			 * names: its refusals come again in the second */
	uint32_t *sections; /* regions whose nodes go out of line, by number */
	uint32_t nsections, sections_cap;
	char vals[8][16]; /* emit_val's texts, in turn */
	unsigned next_val;
} fn_ctx;

/* LABEL_OUT: the region's nodes are emitted out of line, so a `break`
 * or `continue` in them does not reach a loop or switch around it. */
enum { LABEL_CODE = 1, LABEL_AFTER = 2, LABEL_TOP = 4, LABEL_OUT = 8 };

/* The C spelling of a signature's result type (a struct for several
 * results, defined once in the emitter's types) and of its parameters,
 * and the signature as call_indirect compares it. */
typedef struct sig_text {
	kl_buf ret, params, check;
} sig_text;

/* ---- emit_c_text.c ---- */
/* Record that instruction i (KL_NO_INST: the function) of c's function
 * cannot be translated; the emitter goes on, and kl_emit_c fails. */
void emit_refuse(fn_ctx *c, kl_inst i, const char *fmt, ...) KL_PRINTF(3, 4);
/* The refusal both emitters make, added to diags (NULL: not kept):
 * "NAME[: instN (TEXT)]: cannot translate: WHY" at the instruction's
 * line, or with f NULL "[data ]NAME: ..." at symbol s's (s none: the
 * module, no name, no line). */
void emit_add_refusal(kl_diags *diags, const kl_module *m, const kl_func *f,
		      kl_sym s, kl_inst i, const char *fmt, va_list ap);
/* Does every function of m verify? If not, the verifier's diagnostics
 * go to diags (may be NULL). Both emitters ask it first. */
bool emit_verified(const kl_module *m, kl_diags *diags);
/* The same for what is no function's (a data object, the module). */
void emit_refuse_module(emitter *e, kl_sym s, const char *fmt, ...)
	KL_PRINTF(3, 4);
void emit_indent(kl_buf *out, uint32_t n);
/* One line of C at indentation n. */
void emit_line(fn_ctx *c, uint32_t n, const char *fmt, ...) KL_PRINTF(3, 4);
/* The bytes of a C string literal for s[0..len). */
void emit_c_string(kl_buf *out, const char *s, size_t len);
void emit_sym_ident(const kl_module *m, kl_sym s, kl_buf *out);
/* Is name[0..len) made of letters, digits and '_' (and not empty)? Its
 * first 64 bytes with any other byte made '_'. */
bool emit_is_ident(const char *name, size_t len);
void emit_ident_chars(kl_buf *out, const char *name, size_t len);
/* emit_sym_ident as a string that lives until the next call. */
const char *emit_ident(emitter *e, kl_sym s);
uint32_t emit_width(const kl_module *m, kl_type t);
/* The C type of an IR type (NULL for none); the signed one. */
const char *emit_ctype(const kl_module *m, kl_type t);
const char *emit_stype(const kl_module *m, kl_type t);
/* C constants: of integer type t holding bits; bits of a w-bit integer
 * read as signed. Each lives until the eighth call after. */
const char *emit_cint(emitter *e, kl_type t, uint64_t bits);
const char *emit_sint(emitter *e, uint32_t w, uint64_t bits);
const char *emit_int_min(uint32_t w);
/* A trap site of instruction i: its number in rt_site. */
uint32_t emit_site(fn_ctx *c, kl_inst i);
/* Does nothing use v? (Its assignments are left out, or kept for their
 * effect: -Wall has nothing set but unused to report.) */
bool emit_unused(fn_ctx *c, kl_value v);
/* Is i left out: no effect, and nothing uses its result? */
bool emit_dropped(fn_ctx *c, kl_inst i);
/* Value v's name (vN), and operand n of i's; each lives until the
 * eighth call after. */
const char *emit_val(fn_ctx *c, kl_value v);
const char *emit_arg(fn_ctx *c, kl_inst i, uint32_t n);
void emit_sig(emitter *e, kl_signature sig, sig_text *st, bool names,
	      uint32_t first_value);
void emit_sig_free(sig_text *st);
/* The call's value operands, from first on (up to n of them). */
void emit_call_args(fn_ctx *c, kl_inst i, uint32_t first, uint32_t n,
		    kl_buf *out);

/* ---- emit_c_inst.c ---- */
/* Instruction i, not a terminator. */
void emit_inst(fn_ctx *c, uint32_t ind, kl_inst i);

/* ---- emit_c_flow.c ---- */
/* Function f (verified) as a C function, appended to out. */
void emit_func(emitter *e, const kl_func *f, kl_buf *out);

/* ---- emit_c.c ---- */
/* Is s a declared function that is keel run's built-in name, with a
 * declaration that built-in accepts? */
bool emit_is_builtin(const kl_module *m, kl_sym s, const char *name);

#endif /* KEEL_EMIT_C_H */
