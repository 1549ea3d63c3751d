/*
 * exec.c -- the interpreter's dispatch loop: one switch over decoded
 * instructions (interp.h), calls and returns without C recursion, fuel.
 *
 * Design. The loop keeps the current instruction pointer, the frame's
 * registers and the remaining fuel in locals; a case does its work and
 * `continue`s. Calls push the caller (function, call instruction, register
 * base, alloca marks) on an explicit frame stack and carry on in the same
 * loop, so the host stack does not grow with the program's and deep
 * recursion ends in a stack_overflow trap, not a crash. All frames'
 * registers live in one array; a callee's start after its caller's.
 *
 * Fuel (see interp.h for segments): entering a segment subtracts its
 * length. When the fuel left is smaller than the length, the instruction
 * at which it runs out is found from the segment's cold data and replaced
 * by D_OUT_OF_FUEL until the run ends (the "breakpoint" of a debugger):
 * the instructions before it still execute, so the trap happens exactly
 * when the budget is spent, and the hot path pays nothing for it. The
 * loop holds at most a chunk of the budget (refuel); the moment it runs
 * short is the moment to look at kl_interp_stop's flag, for free too.
 *
 * Semantics (docs/interpreter.md): integers are kept zero-extended to 64
 * bits and every result is masked to its width; signed operations first
 * sign-extend. Floats follow IEEE-754 with the host's round-to-nearest-even
 * (C's float arithmetic without -ffast-math), but a NaN result is replaced
 * by the rule's NaN so results do not depend on the host's NaN choices.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp.h"
#include "../text/text.h"

/* Each float result must be rounded once, to its own type. Evaluated in
 * double (FLT_EVAL_METHOD 1: s390x), an f32 result is rounded twice, which
 * is harmless with 53 bits against 24 (more than 2 * 24 + 2); in x87's
 * long double (2: i386 by default), an f64 result is rounded to 64 bits
 * and then to 53, and about one product in 4,000 comes out one unit off.
 * The Makefile builds i386 with SSE2 arithmetic. */
#if !defined(FLT_EVAL_METHOD) || \
	(FLT_EVAL_METHOD != 0 && FLT_EVAL_METHOD != 1)
#error "floats evaluated wider round twice (i386: -msse2 -mfpmath=sse)"
#endif

/* -ffast-math (or -Ofast) lets the compiler assume no NaN or infinity,
 * drop the sign of zero and reassociate: the interpreter would give
 * wrong results for the IR's IEEE operations, silently. Only the macros
 * it and -ffinite-math-only define can be seen; -fno-signed-zeros or
 * -funsafe-math-optimizations alone are left to the float file tests. */
#if defined(__FAST_MATH__) || \
	(defined(__FINITE_MATH_ONLY__) && __FINITE_MATH_ONLY__)
#error "the interpreter needs IEEE floats: no -ffast-math (-Ofast)"
#endif

/* ---- bits ---- */

static inline float
f32_of(uint64_t b)
{
	uint32_t u = (uint32_t)b;
	float f;
	memcpy(&f, &u, sizeof f);
	return f;
}

static inline double
f64_of(uint64_t b)
{
	double f;
	memcpy(&f, &b, sizeof f);
	return f;
}

static inline uint64_t
bits32(float f)
{
	uint32_t u;
	memcpy(&u, &f, sizeof u);
	return u;
}

static inline uint64_t
bits64(double f)
{
	uint64_t u;
	memcpy(&u, &f, sizeof u);
	return u;
}

static inline bool
nan32(uint64_t b)
{
	return (b & 0x7fffffffu) > 0x7f800000u;
}

static inline bool
nan64(uint64_t b)
{
	return (b & ~(1ull << 63)) > 0x7ff0000000000000ull;
}

/* The NaN rule: the first NaN operand, quieted, else the canonical NaN. */
static uint64_t
nan_result32(uint64_t a, uint64_t b)
{
	if (nan32(a))
		return (a & 0xffffffffu) | 0x00400000u;
	if (nan32(b))
		return (b & 0xffffffffu) | 0x00400000u;
	return 0x7fc00000u;
}

static uint64_t
nan_result64(uint64_t a, uint64_t b)
{
	if (nan64(a))
		return a | 0x0008000000000000ull;
	if (nan64(b))
		return b | 0x0008000000000000ull;
	return 0x7ff8000000000000ull;
}

static inline uint64_t
fres32(float x, uint64_t a, uint64_t b)
{
	return x == x ? bits32(x) : nan_result32(a, b);
}

static inline uint64_t
fres64(double x, uint64_t a, uint64_t b)
{
	return x == x ? bits64(x) : nan_result64(a, b);
}

static bool
fcmp(unsigned cc, double a, double b)
{
	switch (cc) {
	case KL_FCC_EQ: return a == b;
	case KL_FCC_NE: return !(a == b);
	case KL_FCC_LT: return a < b;
	case KL_FCC_LE: return a <= b;
	case KL_FCC_GT: return a > b;
	case KL_FCC_GE: return a >= b;
	case KL_FCC_ORD: return a == a && b == b;
	default: return a != a || b != b;
	}
}

/*
 * Float to integer, truncating; false if x is NaN or out of range for a
 * width-w integer. Every bound is a power of two, exact in a double, and
 * an f32 operand widens to double exactly.
 */
static bool
to_sint(double x, unsigned sh, uint64_t *out)
{
	double lim = ldexp(1.0, 63 - sh); /* 2^(w-1) */
	/* In range: -2^(w-1) - 1 < x < 2^(w-1). At w = 64 no double lies
	 * between -2^63 - 1 and -2^63, and -2^63 - 1 is not a double. */
	bool ok = sh == 0 ? x >= -lim && x < lim : x > -lim - 1.0 && x < lim;
	if (!ok)
		return false;
	*out = (uint64_t)(int64_t)trunc(x) & mask_of(sh);
	return true;
}

static bool
to_uint(double x, unsigned sh, uint64_t *out)
{
	double lim = ldexp(1.0, 64 - sh); /* 2^w */
	if (!(x > -1.0 && x < lim))
		return false;
	*out = (uint64_t)trunc(x);
	return true;
}

/* The trap of a float to integer conversion i that to_sint or to_uint
 * refused: which operand, and the range it left. A number is spelt in
 * decimal, in as few digits as read back as it; a NaN as the text format
 * spells it (nan, -nan:0x1), so that its sign and payload show. */
static KL_NOINLINE void
conversion_trap(kl_interp *it, const dinst *i, const uint64_t *r)
{
	bool from_f32 = i->op == D_F32TOS || i->op == D_F32TOU;
	bool is_signed = i->op == D_F32TOS || i->op == D_F64TOS;
	double x = from_f32 ? f32_of(r[i->a]) : f64_of(r[i->a]);
	const char *from = from_f32 ? "f32" : "f64";
	if (x != x) {
		kl_buf nan = { 0 };
		kl_interp_format_value(it->m,
				       from_f32 ? KL_TYPE_F32 : KL_TYPE_F64,
				       r[i->a], &nan);
		raise_trap(it, KL_TRAP_INT_OVF,
			   "float to integer conversion of %s %s", from,
			   nan.data);
		kl_buf_free(&nan);
		return;
	}
	/* The fewest digits that read back as the operand. */
	char text[40];
	kl_c_locale c;
	kl_c_locale_begin(&c);
	for (int digits = 1; digits <= 17; digits++) {
		snprintf(text, sizeof text, "%.*g", digits, x);
		double back = strtod(text, NULL);
		if (from_f32 ? (float)back == (float)x : back == x)
			break;
	}
	kl_c_locale_end(&c);
	raise_trap(it, KL_TRAP_INT_OVF,
		   "float to integer conversion of %s %s: out of range for "
		   "%s i%u", from, text, is_signed ? "signed" : "unsigned",
		   64u - i->sh);
}

/*
 * Little-endian memory, whatever the host. Callers pass a constant n, so
 * the copies compile to single moves.
 */
static inline uint64_t
load_le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (n == 8) {
		memcpy(&v, p, 8);
	} else if (n == 4) {
		uint32_t w;
		memcpy(&w, p, 4);
		v = w;
	} else {
		uint16_t h;
		memcpy(&h, p, 2);
		v = h;
	}
#else
	for (unsigned k = 0; k < n; k++)
		v |= (uint64_t)p[k] << (8 * k);
#endif
	return v;
}

static inline void
store_le(uint8_t *p, uint64_t v, unsigned n)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (n == 8) {
		memcpy(p, &v, 8);
	} else if (n == 4) {
		uint32_t w = (uint32_t)v;
		memcpy(p, &w, 4);
	} else {
		uint16_t h = (uint16_t)v;
		memcpy(p, &h, 2);
	}
#else
	for (unsigned k = 0; k < n; k++)
		p[k] = (uint8_t)(v >> (8 * k));
#endif
}

/* An operand list the decoder stored in imm as a pointer. */
static inline const uint32_t *
ptr_of(uint64_t imm)
{
	return (const uint32_t *)(uintptr_t)imm;
}

/* ---- integer helpers ---- */

/* Signed division at width 64 - sh; false with *trap set if it traps. */
static inline bool
sdiv(uint64_t a, uint64_t b, unsigned sh, uint64_t *out, uint32_t *trap)
{
	int64_t x = sext(a, sh), y = sext(b, sh);
	if (y == 0) {
		*trap = KL_TRAP_INT_DIVZ;
		return false;
	}
	if (y == -1 && a == 1ull << (63 - sh)) {
		*trap = KL_TRAP_INT_OVF;
		return false;
	}
	*out = (uint64_t)(x / y) & mask_of(sh);
	return true;
}

/* Signed remainder; false on division by zero. INT_MIN rem -1 is 0
 * (computed apart: it overflows in C). */
static inline bool
srem(uint64_t a, uint64_t b, unsigned sh, uint64_t *out)
{
	int64_t x = sext(a, sh), y = sext(b, sh);
	if (y == 0)
		return false;
	*out = y == -1 ? 0 : (uint64_t)(x % y) & mask_of(sh);
	return true;
}

/* Rotate left by n modulo the width (a right rotation is by -n). */
static inline uint64_t
rotl(uint64_t x, uint64_t n, unsigned sh)
{
	unsigned w = 64u - sh, k = (unsigned)(n & (w - 1));
	return k ? ((x << k) | (x >> (w - k))) & mask_of(sh) : x;
}

/* ---- frames ---- */

/*
 * Enter callee from the call instruction i of fn (registers at *base):
 * push the caller, make the callee's zeroed registers, pass the
 * arguments. Returns the callee's registers, NULL (pend set) on overflow.
 */
static uint64_t *
push_frame(kl_interp *it, dfunc *fn, const dinst *i, const dcall *c,
	   const dfunc *callee)
{
	uint32_t *base = &it->base;
	if (it->nframes + 1 >= it->opts.max_depth) {
		raise_trap(it, KL_TRAP_STACK_OVERFLOW,
			   "call depth limit of %u frame%s (max_depth) "
			   "reached",
			   it->opts.max_depth,
			   it->opts.max_depth == 1 ? "" : "s");
		return NULL;
	}
	uint64_t need = (uint64_t)*base + fn->nregs + callee->nregs;
	/* Registers and frame records in use count against max_memory, on
	 * every call: the register array grows by doubling, so a check made
	 * only when it grows let a recursion use up to twice the limit. */
	uint64_t bytes = need * sizeof *it->regs +
			 (uint64_t)(it->nframes + 1) * sizeof(frame);
	if (bytes > it->opts.max_memory) {
		raise_register_limit(it);
		return NULL;
	}
	if (need > it->regs_cap)
		kl_grow(&it->regs, &it->regs_cap, sizeof *it->regs, need);
	if (it->nframes == it->frames_cap)
		kl_grow(&it->frames, &it->frames_cap, sizeof *it->frames,
			it->nframes + 1);
	frame *fr = &it->frames[it->nframes++];
	fr->fn = fn;
	fr->call = i;
	fr->base = *base;
	fr->allocas = it->nallocas;
	fr->chunk = it->cur_chunk;
	fr->used = it->nchunks ? it->chunks[it->cur_chunk].used : 0;
	const uint64_t *r = it->regs + *base;
	*base += fn->nregs;
	uint64_t *nr = it->regs + *base;
	memset(nr, 0, callee->nregs * sizeof *nr);
	const uint32_t *ps = callee->slots + callee->params;
	const uint32_t *as = fn->slots + c->args;
	for (uint32_t k = 0; k < callee->nparams; k++)
		nr[ps[k]] = r[as[k]];
	return nr;
}

/* Do two signatures agree on every machine type? */
static bool
sig_compatible(const kl_module *m, uint32_t a, uint32_t b)
{
	kl_signature x = module_sig(m, a), y = module_sig(m, b);
	if (x.num_params != y.num_params || x.num_results != y.num_results ||
	    x.variadic != y.variadic)
		return false;
	for (uint32_t k = 0; k < x.num_params; k++)
		if (kl_type_class(m, x.params[k]) !=
		    kl_type_class(m, y.params[k]))
			return false;
	for (uint32_t k = 0; k < x.num_results; k++)
		if (kl_type_class(m, x.results[k]) !=
		    kl_type_class(m, y.results[k]))
			return false;
	return true;
}

/* Raise bad_sig for a call_indirect of sig to function sym: both
 * signatures, so that the message shows where they part. */
static KL_NOINLINE void
bad_sig(kl_interp *it, uint32_t sym, uint32_t sig)
{
	kl_buf *b = &it->scratch;
	kl_buf_reset(b);
	put_sym(it, sym, b);
	kl_buf_puts(b, ", whose signature ");
	fmt_signature(b, it->m, module_sig(it->m, it->m->syms[sym].sig));
	kl_buf_puts(b, " differs from the call's ");
	fmt_signature(b, it->m, module_sig(it->m, sig));
	raise_trap(it, KL_TRAP_BAD_SIG, "call_indirect to %s", b->data);
}

/* The decoded function of a defined symbol, decoding it if needed. */
static dfunc *
callee_of(kl_interp *it, uint32_t sym)
{
	dfunc *d = it->funcs[sym];
	if (!d) {
		d = decode_func(it, sym);
		it->funcs[sym] = d;
	}
	return d;
}

/* Where the segment control enters at pc starts: past the copies of a
 * branch's arguments (a D_COPYGO stub) to its block's first instruction. */
static uint32_t
segment_start(const dfunc *fn, uint32_t pc)
{
	if (fn->code[pc].op == D_COPYGO)
		pc += (uint32_t)(int32_t)fn->code[pc].d;
	return pc;
}

/*
 * IR instruction number n (from 0) of the segment of length cost that
 * control enters at pc: found from the first decoded instruction at or
 * after it, *q, walking back over the iconsts the decoder dropped (they
 * have no code, but count).
 */
static uint32_t
segment_inst(const dfunc *fn, uint32_t pc, uint32_t cost, uint64_t n,
	     uint32_t *q)
{
	uint32_t k = segment_start(fn, pc);
	while (cost - 1 - fn->pcs[k].seg_left < n)
		k++;
	uint32_t idx = cost - 1 - fn->pcs[k].seg_left;
	uint32_t inst = fn->pcs[k].inst;
	for (; idx > n && inst != KL_NONE; idx--)
		inst = fn->f->nodes[inst].prev;
	*q = k;
	return inst;
}

/*
 * Fuel ran out entering the segment at pc (length cost, left < cost):
 * plant D_OUT_OF_FUEL on the instruction that would exceed the budget.
 */
static void
fuel_patch(kl_interp *it, dfunc *fn, uint32_t pc, uint64_t left,
	   uint32_t cost)
{
	uint32_t q;
	it->pend.stop_inst = segment_inst(fn, pc, cost, left, &q);
	it->fuel_short = cost - left;
	it->patch = &fn->code[q];
	it->patch_saved = fn->code[q];
	fn->code[q].op = D_OUT_OF_FUEL;
}

/* Describe a failed access and raise heap_oob. */
static void
fault(kl_interp *it, const dinst *i, uint64_t p)
{
	static const uint8_t size[D_COUNT] = {
		[D_LOAD8] = 1, [D_LOAD16] = 2, [D_LOAD32] = 4, [D_LOAD64] = 8,
		[D_SLOAD8] = 1, [D_SLOAD16] = 2, [D_SLOAD32] = 4,
		[D_STORE8] = 1, [D_STORE16] = 2, [D_STORE32] = 4,
		[D_STORE64] = 8,
	};
	bool write = i->op >= D_STORE8 && i->op <= D_STORE64;
	unsigned n = size[i->op];
	kl_buf *b = &it->scratch;
	kl_buf_reset(b);
	mem_explain(it, p, n, write, b);
	raise_trap(it, KL_TRAP_HEAP_OOB, "%u-byte %s: %s", n,
		   write ? "store" : "load", b->data ? b->data : "");
}

/* The loop's fuel comes in chunks of at most this much beyond a
 * segment's length (fuel_bank, interp.h): 2^16 IR instructions run in
 * well under a millisecond, the longest a stop waits but for a builtin
 * call (one instruction that may copy much memory). */
#define FUEL_CHUNK ((uint64_t)1 << 16)

/* refuel's answer when the run must stop: kl_interp_stop, or the poll
 * callback said so or did what it may not (the loop's fuel is never
 * more than a chunk) */
#define REFUEL_STOPPED UINT64_MAX

/*
 * The loop's fuel is short of cost, the length of the segment at pc:
 * charge the segment from the bank, and return the loop's new fuel, at
 * most a chunk; or, when the bank is short too, plant D_OUT_OF_FUEL
 * where the budget ends, and return 0. First the poll callback, if
 * any, is called. REFUEL_STOPPED: the run fails (kl_interp_stop was
 * called, or the poll callback stopped the run). (The fuel goes by
 * value: a local whose address was taken would live in memory, costing
 * the loop a third.)
 */
static KL_NOINLINE uint64_t
refuel(kl_interp *it, dfunc *fn, uint32_t pc, uint64_t fuel,
       uint32_t cost)
{
	if (it->opts.poll) {
		bool stop = it->opts.poll(it->opts.poll_ctx);
		if (!after_callback(it, "poll"))
			return REFUEL_STOPPED;
		if (stop) {
			raise_fail(it, "the poll callback stopped the run");
			return REFUEL_STOPPED;
		}
	} else if (stop_asked(it)) {
		return REFUEL_STOPPED;
	}
	uint64_t have = fuel + it->fuel_bank;
	if (have < cost) {
		fuel_patch(it, fn, pc, have, cost);
		it->fuel_bank = 0;
		return 0;
	}
	have -= cost;
	fuel = have < FUEL_CHUNK ? have : FUEL_CHUNK;
	it->fuel_bank = have - fuel;
	return fuel;
}

/* Record where the run stopped: the stack and the instruction count.
 * i ran (it trapped) unless the run was stopped before it, at the start
 * of its segment (ran = false; the instruction is pend.stop_inst). */
static void
finish(kl_interp *it, dfunc *fn, const dinst *i, bool ran, uint64_t fuel,
       kl_run_result *res)
{
	uint32_t depth = it->nframes + 1;
	if (depth > it->stack_cap)
		kl_grow(&it->stack, &it->stack_cap, sizeof *it->stack, depth);
	uint32_t pc = (uint32_t)(i - fn->code);
	uint32_t inst = fn->pcs[pc].inst;
	bool no_fuel = it->pend.status == KL_RUN_TRAPPED &&
		       it->pend.trap == KL_TRAP_OUT_OF_FUEL;
	if (no_fuel || !ran)
		inst = it->pend.stop_inst;
	it->stack[0] = (kl_run_frame){ { fn->sym }, { inst } };
	for (uint32_t k = 0; k < it->nframes; k++) {
		const frame *fr = &it->frames[it->nframes - 1 - k];
		uint32_t cpc = (uint32_t)(fr->call - fr->fn->code);
		it->stack[k + 1] = (kl_run_frame){ { fr->fn->sym },
						   { fr->fn->pcs[cpc].inst } };
	}
	res->stack = it->stack;
	res->stack_depth = depth;
	res->executed = it->fuel_start - fuel - it->fuel_bank;
	if (ran && !no_fuel)
		res->executed += it->fuel_short - fn->pcs[pc].seg_left;
}

/* The run was stopped before the segment at pc, of length cost: its
 * first instruction did not run. (Out of the loop's function: inlined,
 * its registers pushed the loop's fuel onto the stack, two loads and a
 * store more at every branch.) */
static KL_NOINLINE void
finish_stopped(kl_interp *it, uint32_t pc, uint32_t cost, uint64_t fuel)
{
	uint32_t q;
	it->pend.stop_inst = segment_inst(it->fn, pc, cost, 0, &q);
	finish(it, it->fn, it->fn->code + q, false, fuel, it->res);
}

/* ---- the loop ---- */

void
exec_run(kl_interp *it, dfunc *entry, kl_run_result *res)
{
	/*
	 * Only it, r, i and fuel live across the loop; the running function
	 * is it->fn (the hot cases do not need it), so the compiler has
	 * registers enough for all four.
	 */
	uint64_t *r = it->regs;
	const dinst *i = entry->code; /* the instruction to run */
	uint64_t fuel; /* refuel fills it from the bank */
	uint32_t cost, csym, trap = 0;
	const dcall *c;
	uint8_t *p;
	uint64_t addr, size;

	it->fn = entry;
	it->res = res;
	it->fuel_bank = it->fuel_start;
	cost = entry->entry_cost;
	fuel = refuel(it, entry, 0, 0, cost);
	if (fuel == REFUEL_STOPPED) {
		fuel = 0;
		goto stopped;
	}
	/*
	 * One instruction pointer: a case that falls through to the next
	 * instruction continues (i++); a branch, call or return sets i to
	 * its target and goes to charge, which resumes at next without the
	 * increment. (With an i and a "next" ip, gcc copied one to the other
	 * through a second jump on every instruction: 2 of the ~26 machine
	 * instructions an IR instruction of the loop benchmark cost.)
	 */
	for (;; i++) {
	next:
		switch ((enum dop)i->op) {
		case D_MOVI:
			r[i->d] = i->imm;
			continue;
		case D_COPY:
			r[i->d] = r[i->a];
			continue;
		case D_IADD:
			r[i->d] = (r[i->a] + r[i->b]) & mask_of(i->sh);
			continue;
		case D_ISUB:
			r[i->d] = (r[i->a] - r[i->b]) & mask_of(i->sh);
			continue;
		case D_IMUL:
			r[i->d] = (r[i->a] * r[i->b]) & mask_of(i->sh);
			continue;
		case D_IADDI:
			r[i->d] = (r[i->a] + i->imm) & mask_of(i->sh);
			continue;
		case D_IMULI:
			r[i->d] = (r[i->a] * i->imm) & mask_of(i->sh);
			continue;
		case D_IRSUBI:
			r[i->d] = (i->imm - r[i->a]) & mask_of(i->sh);
			continue;
		case D_SDIV:
			if (!sdiv(r[i->a], r[i->b], i->sh, &r[i->d], &trap))
				goto arith_trap;
			continue;
		case D_SDIVI:
			if (!sdiv(r[i->a], i->imm, i->sh, &r[i->d], &trap))
				goto arith_trap;
			continue;
		case D_SREM:
			if (!srem(r[i->a], r[i->b], i->sh, &r[i->d]))
				goto divz;
			continue;
		case D_SREMI:
			if (!srem(r[i->a], i->imm, i->sh, &r[i->d]))
				goto divz;
			continue;
		case D_UDIV:
			if (!r[i->b])
				goto divz;
			r[i->d] = r[i->a] / r[i->b];
			continue;
		case D_UDIVI:
			if (!i->imm)
				goto divz;
			r[i->d] = r[i->a] / i->imm;
			continue;
		case D_UREM:
			if (!r[i->b])
				goto divz;
			r[i->d] = r[i->a] % r[i->b];
			continue;
		case D_UREMI:
			if (!i->imm)
				goto divz;
			r[i->d] = r[i->a] % i->imm;
			continue;
		case D_INEG:
			r[i->d] = (0 - r[i->a]) & mask_of(i->sh);
			continue;
		case D_BNOT:
			r[i->d] = ~r[i->a] & mask_of(i->sh);
			continue;
		case D_BAND:
			r[i->d] = r[i->a] & r[i->b];
			continue;
		case D_BOR:
			r[i->d] = r[i->a] | r[i->b];
			continue;
		case D_BXOR:
			r[i->d] = r[i->a] ^ r[i->b];
			continue;
		case D_BANDI:
			r[i->d] = r[i->a] & i->imm;
			continue;
		case D_BORI:
			r[i->d] = r[i->a] | i->imm;
			continue;
		case D_BXORI:
			r[i->d] = r[i->a] ^ i->imm;
			continue;
		case D_ISHL:
			r[i->d] = (r[i->a] << (r[i->b] & (63u - i->sh))) &
				  mask_of(i->sh);
			continue;
		case D_USHR:
			r[i->d] = r[i->a] >> (r[i->b] & (63u - i->sh));
			continue;
		case D_SSHR:
			r[i->d] = (uint64_t)(sext(r[i->a], i->sh) >>
					     (r[i->b] & (63u - i->sh))) &
				  mask_of(i->sh);
			continue;
		case D_ISHLI:
			r[i->d] = (r[i->a] << i->imm) & mask_of(i->sh);
			continue;
		case D_USHRI:
			r[i->d] = r[i->a] >> i->imm;
			continue;
		case D_SSHRI:
			r[i->d] = (uint64_t)(sext(r[i->a], i->sh) >> i->imm) &
				  mask_of(i->sh);
			continue;
		case D_ROTL:
			r[i->d] = rotl(r[i->a], r[i->b], i->sh);
			continue;
		case D_ROTR:
			r[i->d] = rotl(r[i->a], 0 - r[i->b], i->sh);
			continue;
		case D_ROTLI:
			r[i->d] = rotl(r[i->a], i->imm, i->sh);
			continue;
		case D_ROTRI:
			r[i->d] = rotl(r[i->a], 0 - i->imm, i->sh);
			continue;
		case D_CLZ:
			r[i->d] = r[i->a] ? kl_clz64(r[i->a]) - i->sh
					  : 64u - i->sh;
			continue;
		case D_CTZ:
			r[i->d] = r[i->a] ? kl_ctz64(r[i->a]) : 64u - i->sh;
			continue;
		case D_POPCNT:
			r[i->d] = kl_popcount64(r[i->a]);
			continue;
		case D_IEQ:
			r[i->d] = r[i->a] == r[i->b];
			continue;
		case D_INE:
			r[i->d] = r[i->a] != r[i->b];
			continue;
		case D_ISLT:
			r[i->d] = sext(r[i->a], i->sh) < sext(r[i->b], i->sh);
			continue;
		case D_ISLE:
			r[i->d] = sext(r[i->a], i->sh) <= sext(r[i->b], i->sh);
			continue;
		case D_ISGT:
			r[i->d] = sext(r[i->a], i->sh) > sext(r[i->b], i->sh);
			continue;
		case D_ISGE:
			r[i->d] = sext(r[i->a], i->sh) >= sext(r[i->b], i->sh);
			continue;
		case D_IULT:
			r[i->d] = r[i->a] < r[i->b];
			continue;
		case D_IULE:
			r[i->d] = r[i->a] <= r[i->b];
			continue;
		case D_IUGT:
			r[i->d] = r[i->a] > r[i->b];
			continue;
		case D_IUGE:
			r[i->d] = r[i->a] >= r[i->b];
			continue;
		case D_IEQI:
			r[i->d] = r[i->a] == i->imm;
			continue;
		case D_INEI:
			r[i->d] = r[i->a] != i->imm;
			continue;
		case D_ISLTI:
			r[i->d] = sext(r[i->a], i->sh) < sext(i->imm, i->sh);
			continue;
		case D_ISLEI:
			r[i->d] = sext(r[i->a], i->sh) <= sext(i->imm, i->sh);
			continue;
		case D_ISGTI:
			r[i->d] = sext(r[i->a], i->sh) > sext(i->imm, i->sh);
			continue;
		case D_ISGEI:
			r[i->d] = sext(r[i->a], i->sh) >= sext(i->imm, i->sh);
			continue;
		case D_IULTI:
			r[i->d] = r[i->a] < i->imm;
			continue;
		case D_IULEI:
			r[i->d] = r[i->a] <= i->imm;
			continue;
		case D_IUGTI:
			r[i->d] = r[i->a] > i->imm;
			continue;
		case D_IUGEI:
			r[i->d] = r[i->a] >= i->imm;
			continue;
		case D_FCMP32:
			r[i->d] = fcmp(i->aux, f32_of(r[i->a]),
				       f32_of(r[i->b]));
			continue;
		case D_FCMP64:
			r[i->d] = fcmp(i->aux, f64_of(r[i->a]),
				       f64_of(r[i->b]));
			continue;
		case D_SELECT:
			r[i->d] = r[i->imm] ? r[i->a] : r[i->b];
			continue;
		case D_BMASK:
			r[i->d] = r[i->a] ? mask_of(i->sh) : 0;
			continue;
		case D_SEXT:
			r[i->d] = (uint64_t)sext(r[i->a], i->aux) &
				  mask_of(i->sh);
			continue;
		case D_MASK:
			r[i->d] = r[i->a] & mask_of(i->sh);
			continue;
		case D_FADD32:
			r[i->d] = fres32(f32_of(r[i->a]) + f32_of(r[i->b]),
					 r[i->a], r[i->b]);
			continue;
		case D_FSUB32:
			r[i->d] = fres32(f32_of(r[i->a]) - f32_of(r[i->b]),
					 r[i->a], r[i->b]);
			continue;
		case D_FMUL32:
			r[i->d] = fres32(f32_of(r[i->a]) * f32_of(r[i->b]),
					 r[i->a], r[i->b]);
			continue;
		case D_FDIV32:
			r[i->d] = fres32(f32_of(r[i->a]) / f32_of(r[i->b]),
					 r[i->a], r[i->b]);
			continue;
		case D_SQRT32:
			r[i->d] = fres32(sqrtf(f32_of(r[i->a])), r[i->a], 0);
			continue;
		case D_FADD64:
			r[i->d] = fres64(f64_of(r[i->a]) + f64_of(r[i->b]),
					 r[i->a], r[i->b]);
			continue;
		case D_FSUB64:
			r[i->d] = fres64(f64_of(r[i->a]) - f64_of(r[i->b]),
					 r[i->a], r[i->b]);
			continue;
		case D_FMUL64:
			r[i->d] = fres64(f64_of(r[i->a]) * f64_of(r[i->b]),
					 r[i->a], r[i->b]);
			continue;
		case D_FDIV64:
			r[i->d] = fres64(f64_of(r[i->a]) / f64_of(r[i->b]),
					 r[i->a], r[i->b]);
			continue;
		case D_SQRT64:
			r[i->d] = fres64(sqrt(f64_of(r[i->a])), r[i->a], 0);
			continue;
		case D_FXOR:
			r[i->d] = r[i->a] ^ i->imm;
			continue;
		case D_FAND:
			r[i->d] = r[i->a] & i->imm;
			continue;
		case D_FPROMOTE: {
			uint64_t a = r[i->a] & 0xffffffffu;
			/* A NaN keeps its sign and its significand's top bits
			 * (as IEEE-754 hardware converts), quieted. */
			r[i->d] = nan32(a) ? (a >> 31) << 63 | 0x7ff8ull << 48 |
						     (a & 0x7fffffu) << 29
					   : bits64((double)f32_of(a));
			continue;
		}
		case D_FDEMOTE: {
			uint64_t a = r[i->a];
			r[i->d] = nan64(a) ? (a >> 63) << 31 | 0x7fc00000u |
						     ((a >> 29) & 0x7fffffu)
					   : bits32((float)f64_of(a));
			continue;
		}
		case D_F32TOS:
			if (!to_sint(f32_of(r[i->a]), i->sh, &r[i->d]))
				goto cvt_ovf;
			continue;
		case D_F64TOS:
			if (!to_sint(f64_of(r[i->a]), i->sh, &r[i->d]))
				goto cvt_ovf;
			continue;
		case D_F32TOU:
			if (!to_uint(f32_of(r[i->a]), i->sh, &r[i->d]))
				goto cvt_ovf;
			continue;
		case D_F64TOU:
			if (!to_uint(f64_of(r[i->a]), i->sh, &r[i->d]))
				goto cvt_ovf;
			continue;
		case D_STOF32:
			r[i->d] = bits32((float)sext(r[i->a], i->aux));
			continue;
		case D_STOF64:
			r[i->d] = bits64((double)sext(r[i->a], i->aux));
			continue;
		case D_UTOF32:
			r[i->d] = bits32((float)r[i->a]);
			continue;
		case D_UTOF64:
			r[i->d] = bits64((double)r[i->a]);
			continue;
		case D_LOAD8:
			addr = r[i->a] + i->imm;
			if (KL_UNLIKELY(!mem_check(it, addr, 1, false, &p)))
				goto bad_access;
			r[i->d] = p[0];
			continue;
		case D_LOAD16:
			addr = r[i->a] + i->imm;
			if (KL_UNLIKELY(!mem_check(it, addr, 2, false, &p)))
				goto bad_access;
			r[i->d] = load_le(p, 2);
			continue;
		case D_LOAD32:
			addr = r[i->a] + i->imm;
			if (KL_UNLIKELY(!mem_check(it, addr, 4, false, &p)))
				goto bad_access;
			r[i->d] = load_le(p, 4);
			continue;
		case D_LOAD64:
			addr = r[i->a] + i->imm;
			if (KL_UNLIKELY(!mem_check(it, addr, 8, false, &p)))
				goto bad_access;
			r[i->d] = load_le(p, 8);
			continue;
		case D_SLOAD8:
			addr = r[i->a] + i->imm;
			if (KL_UNLIKELY(!mem_check(it, addr, 1, false, &p)))
				goto bad_access;
			r[i->d] = (uint64_t)sext(p[0], 56) & mask_of(i->sh);
			continue;
		case D_SLOAD16:
			addr = r[i->a] + i->imm;
			if (KL_UNLIKELY(!mem_check(it, addr, 2, false, &p)))
				goto bad_access;
			r[i->d] = (uint64_t)sext(load_le(p, 2), 48) &
				  mask_of(i->sh);
			continue;
		case D_SLOAD32:
			addr = r[i->a] + i->imm;
			if (KL_UNLIKELY(!mem_check(it, addr, 4, false, &p)))
				goto bad_access;
			r[i->d] = (uint64_t)sext(load_le(p, 4), 32) &
				  mask_of(i->sh);
			continue;
		case D_STORE8:
			addr = r[i->a] + i->imm;
			if (KL_UNLIKELY(!mem_store_check(it, addr, 1, &p)))
				goto bad_access;
			p[0] = (uint8_t)r[i->d];
			continue;
		case D_STORE16:
			addr = r[i->a] + i->imm;
			if (KL_UNLIKELY(!mem_store_check(it, addr, 2, &p)))
				goto bad_access;
			store_le(p, r[i->d], 2);
			continue;
		case D_STORE32:
			addr = r[i->a] + i->imm;
			if (KL_UNLIKELY(!mem_store_check(it, addr, 4, &p)))
				goto bad_access;
			store_le(p, r[i->d], 4);
			continue;
		case D_STORE64:
			addr = r[i->a] + i->imm;
			if (KL_UNLIKELY(!mem_store_check(it, addr, 8, &p)))
				goto bad_access;
			store_le(p, r[i->d], 8);
			continue;
		case D_ALLOCA:
			size = i->imm;
			goto alloca;
		case D_ALLOCA_DYN:
			size = r[i->a];
		alloca: {
			/* (Two cases, not one testing the opcode: 0.7% fewer
			 * machine instructions on the loop benchmark with
			 * gcc 12, by callgrind.) */
			const dfunc *fn = it->fn;
			uint64_t ptr = mem_alloca(it, size, fn->sym,
						  fn->pcs[i - fn->code].inst);
			if (!ptr)
				goto trap;
			r[i->d] = ptr;
			continue;
		}
		case D_CALL:
			c = (const dcall *)(uintptr_t)i->imm;
			csym = c->callee;
			if (!it->m->syms[csym].func) {
				if (!builtin_call(it, csym, it->fn, c, r))
					goto trap;
				cost = c->cont_cost;
				i++;
				goto charge;
			}
			goto call;
		case D_CALL_INDIRECT:
			c = (const dcall *)(uintptr_t)i->imm;
			csym = mem_func_of(it, r[c->ptr]);
			if (csym == KL_NONE) {
				raise_trap(it, KL_TRAP_HEAP_OOB,
					   "call_indirect to 0x%016llx, which "
					   "is not a function address",
					   (unsigned long long)r[c->ptr]);
				goto trap;
			}
			if (!sig_compatible(it->m, it->m->syms[csym].sig,
					    c->sig)) {
				bad_sig(it, csym, c->sig);
				goto trap;
			}
			if (!it->m->syms[csym].func) {
				if (!builtin_call(it, csym, it->fn, c, r))
					goto trap;
				cost = c->cont_cost;
				i++;
				goto charge;
			}
		call: {
			dfunc *callee = callee_of(it, csym);
			if (!callee)
				goto trap;
			uint64_t *nr = push_frame(it, it->fn, i, c, callee);
			if (!nr)
				goto trap;
			r = nr;
			it->fn = callee;
			i = callee->code;
			cost = callee->entry_cost;
			goto charge;
		}
		case D_JUMP:
			cost = (uint32_t)i->imm;
			i += (int32_t)i->d;
			goto charge;
		case D_JUMPC: {
			const uint32_t *cp = ptr_of(i->imm);
			for (uint32_t k = 0; k < i->b; k++)
				r[cp[2 * k]] = r[cp[2 * k + 1]];
			cost = i->a;
			i += (int32_t)i->d;
			goto charge;
		}
		case D_COPYGO: {
			const uint32_t *cp = ptr_of(i->imm);
			for (uint32_t k = 0; k < i->b; k++)
				r[cp[2 * k]] = r[cp[2 * k + 1]];
			i += (int32_t)i->d;
			goto next;
		}
		case D_BRIF:
			if (r[i->a]) {
				cost = (uint32_t)i->imm;
				i += (int32_t)i->d;
			} else {
				cost = (uint32_t)(i->imm >> 32);
				i += (int32_t)i->b;
			}
			goto charge;
		case D_BR_TABLE: {
			const uint32_t *t = ptr_of(i->imm);
			uint64_t x = r[i->a];
			if (x < i->b)
				t += 2 * (x + 1);
			i += (int32_t)t[0];
			cost = t[1];
			goto charge;
		}
		case D_RETURN: {
			const uint32_t *vs = ptr_of(i->imm);
			if (it->nframes == 0) {
				if (i->b > it->results_cap)
					kl_grow(&it->results, &it->results_cap,
						sizeof *it->results, i->b);
				for (uint32_t k = 0; k < i->b; k++)
					it->results[k] = r[vs[k]];
				it->res->num_results = i->b;
				it->res->executed = it->fuel_start - fuel -
						    it->fuel_bank;
				return;
			}
			frame *fr = &it->frames[--it->nframes];
			if (it->nallocas > fr->allocas)
				mem_pop_allocas(it, fr->allocas, fr->chunk,
						fr->used);
			dfunc *caller = fr->fn;
			c = (const dcall *)(uintptr_t)fr->call->imm;
			uint64_t *cr = it->regs + fr->base;
			const uint32_t *rs = caller->slots + c->results;
			for (uint32_t k = 0; k < c->nresults; k++)
				cr[rs[k]] = r[vs[k]];
			it->fn = caller;
			r = cr;
			it->base = fr->base;
			i = fr->call + 1;
			cost = c->cont_cost;
			goto charge;
		}
		case D_TRAP:
			raise_trap(it, i->aux, "trap instruction");
			it->pend.user_code = (uint32_t)i->imm;
			goto trap;
		case D_OUT_OF_FUEL:
			raise_trap(it, KL_TRAP_OUT_OF_FUEL,
				   "the budget of %llu instruction%s (fuel) "
				   "ran out",
				   (unsigned long long)it->fuel_start,
				   it->fuel_start == 1 ? "" : "s");
			goto trap;
		case D_COUNT:
		default:
			/* The decoder makes no other opcode; telling the
			 * compiler so drops the jump table's range check. */
#if defined(__GNUC__)
			__builtin_unreachable();
#else
			KL_UNREACHABLE();
#endif
		}
	charge:
		if (KL_LIKELY(fuel >= cost)) {
			fuel -= cost;
		} else {
			uint64_t left = refuel(it, it->fn,
					       (uint32_t)(i - it->fn->code),
					       fuel, cost);
			if (left == REFUEL_STOPPED)
				goto stopped;
			fuel = left;
		}
		goto next;
	}
arith_trap:
	if (trap == KL_TRAP_INT_OVF) {
		raise_trap(it, KL_TRAP_INT_OVF,
			   "integer overflow: INT_MIN / -1");
		goto trap;
	}
divz:
	raise_trap(it, KL_TRAP_INT_DIVZ, "integer division by zero");
	goto trap;
cvt_ovf:
	conversion_trap(it, i, r);
	goto trap;
bad_access:
	fault(it, i, addr);
trap:
	finish(it, it->fn, i, true, fuel, it->res);
	return;
stopped:
	finish_stopped(it, (uint32_t)(i - it->fn->code), cost, fuel);
}
