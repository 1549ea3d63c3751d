/*
 * emit_asm.h -- what the files of the x86-64 emitter (kl_emit_asm)
 * share.
 *
 *   emit_asm.c       the module: symbols' names, data objects, the
 *                    runtime (traps, the output built-ins, main)
 *   emit_asm_func.c  a function: its frame, blocks, edges, calls and
 *                    returns
 *   emit_asm_inst.c  the other instructions, one at a time
 *   emit_asm_order.c the order of the blocks
 *   emit_asm_alloc.c where each value lives: a register or a slot
 *
 * The emitter reads IR through keel.h alone; emit_asm.c's opening
 * comment says how the IR maps to the machine.
 */
#ifndef KEEL_EMIT_ASM_H
#define KEEL_EMIT_ASM_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keel.h"
#include "../util/util.h"
#include <inttypes.h>

/* A constant entry-block alloca up to this size lives in the frame;
 * a bigger one is taken from the stack when it runs, as alloca_dyn. */
#define ASM_FRAME_ALLOCA_MAX 65536

typedef struct asm_emitter {
	const kl_module *m;
	const char *file; /* the name trap messages give */
	kl_diags *diags;
	bool refused;
	kl_buf *out;
	kl_buf strings; /* .rodata: trap messages */
	uint32_t nstrings;
	uint32_t nlabels; /* local labels made so far (.LkN) */
	kl_buf name;      /* asm_sym_name's text */
} asm_emitter;

/* Registers values live in (emit_asm_alloc.c): the callee-saved ones
 * first (ASM_NSAVED), which keep values across calls, then caller-saved
 * ones that no instruction's code uses, for values live across no call
 * and no alloca taken from the stack (whose code uses %rdi and the
 * argument registers). */
#define ASM_NSAVED 5
#define ASM_NREGS 10

/* One function being emitted. Every value lives in a register or an
 * 8-byte stack slot; only the low bits of its type are meaningful. */
typedef struct asm_func {
	asm_emitter *e;
	const kl_func *f;
	kl_buf *out;
	int32_t *loc; /* per value: register r as r + 1, slot k as
			       * -k - 1, 0 for none */
	uint32_t nslots;
	uint32_t used_regs;  /* a bit per register some value lives in */
	int32_t slots;       /* slot 0's offset from %rbp */
	int32_t *alloca_at;  /* per inst: a frame alloca's offset, or 0 */
	uint32_t *uses;      /* per value: its uses, branch arguments too */
	uint32_t *addr_uses; /* per value: its uses as a load's or store's
			      * address */
	struct {
		uint32_t epoch, param;
	} * marked;        /* per place: an edge's parameter there */
	uint32_t epoch;    /* the edge marked now */
	char texts[8][24]; /* asm_slot's texts, in turn */
	char address[40];  /* a memory operand (emit_asm_inst.c) */
	unsigned next_text;
	kl_block *order; /* the blocks as emitted (emit_asm_order.c) */
	uint32_t norder;
	bool loops_are_ranges; /* each loop's blocks together in order */
	kl_cfg *cfg;
	kl_domtree *dt;
	kl_loops *loops;
	int32_t scratch;    /* parallel copies go through here */
	int32_t results;    /* a buffer for a call's many results */
	int32_t result_ptr; /* where many results go (saved %rdi), or 0 */
	int32_t alloca_lo, alloca_hi; /* the frame allocas' bytes */
	uint32_t frame;               /* bytes below %rbp */
} asm_func;

/* ---- emit_asm.c ---- */
void asm_refuse(asm_func *c, kl_inst i, const char *fmt, ...) KL_PRINTF(3, 4);
/* The assembler's name of symbol s, and of a reference to it from this
 * file (a local alias for what the module defines, so that a shared
 * object's code needs no relocation through the GOT for it). Each lives
 * until the next call of either. */
const char *asm_sym_name(asm_emitter *e, kl_sym s);
/* A call target: the local alias, a runtime routine for the output
 * built-ins, or NAME@PLT. */
const char *asm_call_target(asm_emitter *e, kl_sym s);
/* Load the address of s into register reg. */
void asm_sym_addr(asm_emitter *e, kl_sym s, const char *reg);
/* A fresh local label number. */
uint32_t asm_label(asm_emitter *e);
/* Call the runtime's trap with the message of instruction i's trap. */
void asm_trap(asm_func *c, kl_inst i, const char *kind);

/* ---- emit_asm_func.c ---- */
void asm_emit_func(asm_emitter *e, const kl_func *f);
/* Is alloca i in the frame (a constant one of the entry block, small
 * and aligned at most 16), not taken from the stack when it runs? */
bool asm_in_frame(asm_func *c, kl_inst i);
/* If v is a frame alloca's address, its offset from %rbp (after
 * plan_frame), else 0. */
int32_t asm_frame_addr(asm_func *c, kl_value v);
/* Is v a frame alloca's address that only loads and stores use? They
 * address the frame directly, and v itself needs no place. */
bool asm_unplaced(asm_func *c, kl_value v);
/* Does a signature's result list go through memory (more than two
 * integers or two floats)? If not, the register of result k ("%rax",
 * "%xmm1"...) in buf. */
bool asm_results_in_memory(const kl_module *m, kl_signature sig);
void asm_result_place(const kl_module *m, kl_signature sig, uint32_t k,
		      char *buf, size_t size);
/* Where v lives: a register ("%rbx") or a slot ("-N(%rbp)"), all 64
 * bits; and the same at a width of bytes ("%bl", or the slot). Each
 * lives until the eighth call after. */
const char *asm_slot(asm_func *c, kl_value v);
const char *asm_slot_at(asm_func *c, kl_value v, uint32_t bytes);
/* 0, 1, 2, 3 for 1, 2, 4, 8 bytes; the mnemonics' suffix for them
 * (b w l q). */
uint32_t asm_size_index(uint32_t bytes);
char asm_suffix(uint32_t bytes);
/* A register's name at a width ("%rax", 4: "%eax"). */
const char *asm_reg(const char *reg64, uint32_t bytes);
/* A line loading bytes at from (a place) into reg64, extended with its
 * sign or with zeros. */
void asm_ext_line(kl_buf *out, const char *from, uint32_t bytes, bool sign,
		  const char *reg64);
/* Does v live in a register? Do a and b live in one place? */
bool asm_in_reg(asm_func *c, kl_value v);
bool asm_same_place(asm_func *c, kl_value a, kl_value b);
/* Copy v's 64 bits into an xmm register ("%xmm1"). */
void asm_float_in(asm_func *c, kl_value v, const char *xmm);

/* ---- emit_asm_order.c ---- */
/* Fill c->order (and the analyses it takes), c->loops_are_ranges. */
void asm_order(asm_func *c);
void asm_order_free(asm_func *c);

/* ---- emit_asm_alloc.c ---- */
/* Fill c->loc, c->nslots and c->used_regs. */
void asm_allocate(asm_func *c);
void asm_line(asm_func *c, const char *fmt, ...) KL_PRINTF(2, 3);

/* ---- emit_asm_inst.c ---- */
/* Emit the instruction i (no terminator, no call). */
void asm_emit_inst(asm_func *c, kl_inst i);
/* Set the flags as icmp or icmp_imm i compares; its condition code. */
uint32_t asm_compare_flags(asm_func *c, kl_inst i);
/* The suffix of a jump or set on integer condition cc, or on its
 * negation ("l", "ge"). */
const char *asm_icc_suffix(uint32_t cc, bool negate);
/* Set the flags as fcmp i compares (lt and le with the operands
 * swapped); its condition code. */
uint32_t asm_float_flags(asm_func *c, kl_inst i);
/* The suffix of a jump on float condition cc after asm_float_flags, or
 * on its negation; NULL for eq and ne, which need two flags. */
const char *asm_fcc_suffix(uint32_t cc, bool negate);
/* Set the flags on v's bits at its width (ZF: all zero). */
void asm_test_value(asm_func *c, kl_value v);
/* Width in bits of v's type (an integer's, or a float's). */
uint32_t asm_width(asm_func *c, kl_value v);
bool asm_is_float(asm_func *c, kl_value v);
/* Load v into %rax (or reg64) extended from its width: signedly, or
 * with zeros. */
void asm_load_ext(asm_func *c, kl_value v, bool sign, const char *reg64);

#endif
