/*
 * emit_asm_inst.c -- one keel instruction as x86-64 code (emit_asm.h):
 * computed in the result's register where it lives in one, otherwise
 * with operands brought into %rax and %rcx (%xmm0, %xmm1 for floats)
 * and the result stored to its place. Narrow integers are worked on in
 * 64-bit registers: what wraps keeps its low bits right, and what reads
 * the high bits (division, right shifts, comparisons, counts,
 * conversions) first extends its operands from their width.
 */
#include "emit_asm.h"

uint32_t
asm_width(asm_func *c, kl_value v)
{
	const kl_module *m = c->e->m;
	return kl_type_bytes(m, kl_value_type(c->f, v)) * 8;
}

bool
asm_is_float(asm_func *c, kl_value v)
{
	return kl_type_is_float(c->e->m, kl_value_type(c->f, v));
}

void
asm_load_ext(asm_func *c, kl_value v, bool sign, const char *reg64)
{
	uint32_t bytes = asm_width(c, v) / 8;
	asm_ext_line(c->out, asm_slot_at(c, v, bytes), bytes, sign, reg64);
}

static void
load(asm_func *c, kl_value v, const char *reg64)
{
	asm_line(c, "movq %s, %s", asm_slot(c, v), reg64);
}

/* Where i's result is best computed: its own register, or %rax (then
 * stored by done()). */
static const char *
result_reg(asm_func *c, kl_inst i)
{
	kl_value r = kl_inst_result(c->f, i, 0);
	return asm_in_reg(c, r) ? asm_slot(c, r) : "%rax";
}

static void store(asm_func *c, kl_inst i, const char *reg64);

static void
done(asm_func *c, kl_inst i, const char *reg64)
{
	if (!asm_in_reg(c, kl_inst_result(c->f, i, 0)))
		store(c, i, reg64);
}

/* The memory operand of address p plus off: in the frame for a frame
 * alloca's address, else through p's register or %rcx loaded with it.
 * Lives until the next call. */
static const char *
address(asm_func *c, kl_value p, int32_t off)
{
	int32_t frame = asm_frame_addr(c, p);
	const char *reg = "%rbp";
	if (frame) {
		off += frame; /* (both within the frame's 2^31 bytes) */
	} else if (asm_in_reg(c, p)) {
		reg = asm_slot(c, p);
	} else {
		asm_line(c, "movq %s, %%rcx", asm_slot(c, p));
		reg = "%rcx";
	}
	snprintf(c->address, sizeof c->address, "%d(%s)", off, reg);
	return c->address;
}

static void
store(asm_func *c, kl_inst i, const char *reg64)
{
	asm_line(c, "movq %s, %s", reg64,
		 asm_slot(c, kl_inst_result(c->f, i, 0)));
}

/* imm, an immediate of a w-bit operation, as 64 bits extended from w
 * (signed or not): what a comparison or division reads. */
static uint64_t
imm_ext(int64_t imm, uint32_t w, bool sign)
{
	if (w == 64)
		return (uint64_t)imm;
	uint64_t mask = (UINT64_C(1) << w) - 1;
	uint64_t bits = (uint64_t)imm & mask;
	if (sign && (bits >> (w - 1)))
		bits |= ~mask;
	return bits;
}

/* Put the 64-bit constant bits into reg64. */
static void
load_const(asm_func *c, uint64_t bits, const char *reg64)
{
	if ((int64_t)bits >= INT32_MIN && (int64_t)bits <= INT32_MAX)
		asm_line(c, "movq $%" PRId64 ", %s", (int64_t)bits, reg64);
	else
		asm_line(c, "movabsq $%" PRId64 ", %s", (int64_t)bits, reg64);
}

/* An operation of a value and an immediate or another value, in %rax
 * and %rcx, for what reads only the low bits. */
static void
binary(asm_func *c, kl_inst i, const char *op, bool imm)
{
	const kl_func *f = c->f;
	kl_value x = kl_inst_arg(f, i, 0), r = kl_inst_result(f, i, 0);
	bool sub = strcmp(op, "subq") == 0;
	bool commutes = kl_op_info(kl_inst_opcode(f, i))->flags &
			KL_OPF_COMMUTATIVE;
	if (!imm && (sub || commutes) && asm_in_reg(c, r) &&
	    !asm_same_place(c, x, r) &&
	    asm_same_place(c, r, kl_inst_arg(f, i, 1))) {
		/* the second operand lives in the result's register: the
		 * other way round when the operation commutes, and
		 * x - y as -y + x */
		const char *to = asm_slot(c, r);
		if (sub)
			asm_line(c, "negq %s", to);
		asm_line(c, "%s %s, %s", sub ? "addq" : op, asm_slot(c, x), to);
		return;
	}
	/* straight into the result's register, unless the second operand
	 * lives there */
	bool direct = asm_in_reg(c, r) &&
		      (imm || !asm_same_place(c, r, kl_inst_arg(f, i, 1)));
	const char *to = direct ? asm_slot(c, r) : "%rax";
	if (!direct || !asm_same_place(c, x, r))
		asm_line(c, "movq %s, %s", asm_slot(c, x), to);
	if (imm) {
		int64_t k = kl_inst_imm(f, i);
		if (k >= INT32_MIN && k <= INT32_MAX) {
			asm_line(c, "%s $%" PRId64 ", %s", op, k, to);
		} else {
			load_const(c, (uint64_t)k, "%rcx");
			asm_line(c, "%s %%rcx, %s", op, to);
		}
	} else {
		asm_line(c, "%s %s, %s", op, asm_slot(c, kl_inst_arg(f, i, 1)),
			 to);
	}
	if (!direct)
		store(c, i, "%rax");
}

/* sdiv udiv srem urem and their _imm forms: the IR's traps first, then
 * a 64-bit division of the operands extended from their width. */
static void
divide(asm_func *c, kl_inst i, bool sign, bool rem, bool imm)
{
	const kl_func *f = c->f;
	kl_value x = kl_inst_arg(f, i, 0);
	uint32_t w = asm_width(c, x);
	asm_load_ext(c, x, sign, "%rax");
	if (imm)
		load_const(c, imm_ext(kl_inst_imm(f, i), w, sign), "%rcx");
	else
		asm_load_ext(c, kl_inst_arg(f, i, 1), sign, "%rcx");
	uint32_t done = asm_label(c->e);
	if (!imm || kl_inst_imm(f, i) == 0) {
		uint32_t ok = asm_label(c->e);
		asm_line(c, "testq %%rcx, %%rcx");
		asm_line(c, "jne .Lk%u", ok);
		asm_trap(c, i, "int_divz");
		asm_line(c, ".Lk%u:", ok);
	}
	if (sign) {
		/* the minimum by -1: sdiv traps, srem is 0; idiv would
		 * fault on the 64-bit one */
		uint32_t ok = asm_label(c->e);
		asm_line(c, "cmpq $-1, %%rcx");
		asm_line(c, "jne .Lk%u", ok);
		if (rem) {
			asm_line(c, "xorl %%edx, %%edx");
			asm_line(c, "jmp .Lk%u", done);
		} else {
			load_const(c, imm_ext(INT64_MIN >> (64 - w), w, true),
				   "%rdx");
			asm_line(c, "cmpq %%rdx, %%rax");
			asm_line(c, "jne .Lk%u", ok);
			asm_trap(c, i, "int_ovf");
		}
		asm_line(c, ".Lk%u:", ok);
		asm_line(c, "cqto");
		asm_line(c, "idivq %%rcx");
	} else {
		asm_line(c, "xorl %%edx, %%edx");
		asm_line(c, "divq %%rcx");
	}
	asm_line(c, ".Lk%u:", done);
	store(c, i, rem ? "%rdx" : "%rax");
}

/* ishl ushr sshr (amount modulo the width), rotl rotr. */
static void
shift(asm_func *c, kl_inst i, const char *op, bool imm)
{
	const kl_func *f = c->f;
	kl_value x = kl_inst_arg(f, i, 0);
	uint32_t w = asm_width(c, x);
	bool rotate = op[0] == 'r';
	if (imm) {
		const char *to = result_reg(c, i);
		asm_load_ext(c, x, op[1] == 'a', to);
		asm_line(c, "%sq $%u, %s", op,
			 (unsigned)((uint64_t)kl_inst_imm(f, i) & (w - 1)), to);
		done(c, i, to);
		return;
	}
	asm_load_ext(c, x, op[1] == 'a', "%rax");
	if (rotate) {
		load(c, kl_inst_arg(f, i, 1), "%rcx");
		asm_line(c, "%s%c %%cl, %s", op, asm_suffix(w / 8),
			 asm_reg("%rax", w / 8));
	} else {
		load(c, kl_inst_arg(f, i, 1), "%rcx");
		asm_line(c, "andl $%u, %%ecx", w - 1);
		asm_line(c, "%sq %%cl, %%rax", op);
	}
	store(c, i, "%rax");
}

/* clz ctz: a bit scan, the width for 0. */
static void
count_zeros(asm_func *c, kl_inst i, bool leading)
{
	kl_value x = kl_inst_arg(c->f, i, 0);
	uint32_t w = asm_width(c, x);
	uint32_t zero = asm_label(c->e);
	asm_load_ext(c, x, false, "%rax");
	asm_line(c, "movl $%u, %%edx", w);
	asm_line(c, "%s %%rax, %%rcx", leading ? "bsrq" : "bsfq");
	asm_line(c, "je .Lk%u", zero);
	if (leading) {
		asm_line(c, "movl $%u, %%edx", w - 1);
		asm_line(c, "subl %%ecx, %%edx");
	} else {
		asm_line(c, "movl %%ecx, %%edx");
	}
	asm_line(c, ".Lk%u:", zero);
	store(c, i, "%rdx");
}

/* popcnt by halves, quarters..., which every x86-64 has (the popcnt
 * instruction is an extension). */
static void
count_ones(asm_func *c, kl_inst i)
{
	asm_load_ext(c, kl_inst_arg(c->f, i, 0), false, "%rax");
	asm_line(c, "movq %%rax, %%rcx");
	asm_line(c, "shrq $1, %%rcx");
	load_const(c, UINT64_C(0x5555555555555555), "%rdx");
	asm_line(c, "andq %%rdx, %%rcx");
	asm_line(c, "subq %%rcx, %%rax");
	load_const(c, UINT64_C(0x3333333333333333), "%rdx");
	asm_line(c, "movq %%rax, %%rcx");
	asm_line(c, "shrq $2, %%rcx");
	asm_line(c, "andq %%rdx, %%rax");
	asm_line(c, "andq %%rdx, %%rcx");
	asm_line(c, "addq %%rcx, %%rax");
	asm_line(c, "movq %%rax, %%rcx");
	asm_line(c, "shrq $4, %%rcx");
	asm_line(c, "addq %%rcx, %%rax");
	load_const(c, UINT64_C(0x0f0f0f0f0f0f0f0f), "%rdx");
	asm_line(c, "andq %%rdx, %%rax");
	load_const(c, UINT64_C(0x0101010101010101), "%rdx");
	asm_line(c, "imulq %%rdx, %%rax");
	asm_line(c, "shrq $56, %%rax");
	store(c, i, "%rax");
}

/* Set the flags as icmp or icmp_imm i compares; its condition code.
 * A 64-bit operand is compared where it lives, a narrower one first
 * extended by the condition's sign. */
uint32_t
asm_compare_flags(asm_func *c, kl_inst i)
{
	const kl_func *f = c->f;
	uint32_t cc = kl_inst_cond(f, i);
	bool sign = cc >= KL_ICC_SLT && cc <= KL_ICC_SGE;
	kl_value x = kl_inst_arg(f, i, 0);
	uint32_t w = asm_width(c, x);
	const char *a = "%rax";
	if (w == 64 && asm_in_reg(c, x))
		a = asm_slot(c, x);
	else
		asm_load_ext(c, x, sign, "%rax");
	if (kl_inst_opcode(f, i) == KL_OP_ICMP_IMM) {
		uint64_t k = imm_ext(kl_inst_imm(f, i), w, sign);
		if ((int64_t)k >= INT32_MIN && (int64_t)k <= INT32_MAX) {
			asm_line(c, "cmpq $%" PRId64 ", %s", (int64_t)k, a);
			return cc;
		}
		load_const(c, k, "%rcx");
	} else if (w == 64) {
		asm_line(c, "cmpq %s, %s", asm_slot(c, kl_inst_arg(f, i, 1)),
			 a);
		return cc;
	} else {
		asm_load_ext(c, kl_inst_arg(f, i, 1), sign, "%rcx");
	}
	asm_line(c, "cmpq %%rcx, %s", a);
	return cc;
}

/* The suffix of a jump or set on integer condition cc, or on its
 * negation. */
const char *
asm_icc_suffix(uint32_t cc, bool negate)
{
	static const char *const names[KL_ICC_COUNT][2] = {
		[KL_ICC_EQ] = { "e", "ne" },  [KL_ICC_NE] = { "ne", "e" },
		[KL_ICC_SLT] = { "l", "ge" }, [KL_ICC_SLE] = { "le", "g" },
		[KL_ICC_SGT] = { "g", "le" }, [KL_ICC_SGE] = { "ge", "l" },
		[KL_ICC_ULT] = { "b", "ae" }, [KL_ICC_ULE] = { "be", "a" },
		[KL_ICC_UGT] = { "a", "be" }, [KL_ICC_UGE] = { "ae", "b" },
	};
	return cc < KL_ICC_COUNT ? names[cc][negate] : negate ? "ne" : "e";
}

static void
compare(asm_func *c, kl_inst i)
{
	uint32_t cc = asm_compare_flags(c, i);
	const char *to = result_reg(c, i);
	asm_line(c, "set%s %%al", asm_icc_suffix(cc, false));
	asm_line(c, "movzbl %%al, %s", asm_reg(to, 4));
	done(c, i, to);
}

void
asm_test_value(asm_func *c, kl_value v)
{
	uint32_t bytes = asm_width(c, v) / 8;
	const char *r = asm_reg("%rax", bytes);
	if (asm_in_reg(c, v))
		r = asm_slot_at(c, v, bytes);
	else
		load(c, v, "%rax");
	asm_line(c, "test%c %s, %s", asm_suffix(bytes), r, r);
}

/* The float operand's spelling suffix: ss or sd. */
static const char *
fs(asm_func *c, kl_value v)
{
	return asm_width(c, v) == 32 ? "ss" : "sd";
}

/* After an arithmetic result in %xmm0: an invalid operation gives x86's
 * default NaN, negative; the IR's is the positive one. A NaN operand
 * (x86 keeps the first, quieted, as the IR does) gives no fix. */
static void
canonical_nan(asm_func *c, kl_inst i, uint32_t nargs)
{
	const kl_func *f = c->f;
	kl_value x = kl_inst_arg(f, i, 0);
	bool single = asm_width(c, x) == 32;
	uint32_t done = asm_label(c->e);
	asm_line(c, "movq %%xmm0, %%rax");
	asm_line(c, "ucomi%s %%xmm0, %%xmm0", fs(c, x));
	asm_line(c, "jnp .Lk%u", done);
	for (uint32_t k = 0; k < nargs; k++) {
		asm_float_in(c, kl_inst_arg(f, i, k), "%xmm1");
		asm_line(c, "ucomi%s %%xmm1, %%xmm1", fs(c, x));
		asm_line(c, "jp .Lk%u", done);
	}
	load_const(c, single ? 0x7fc00000 : UINT64_C(0x7ff8000000000000),
		   "%rax");
	asm_line(c, ".Lk%u:", done);
	store(c, i, "%rax");
}

static void
float_binary(asm_func *c, kl_inst i, const char *op)
{
	const kl_func *f = c->f;
	kl_value x = kl_inst_arg(f, i, 0);
	const char *s = fs(c, x);
	asm_float_in(c, x, "%xmm0");
	asm_float_in(c, kl_inst_arg(f, i, 1), "%xmm1");
	asm_line(c, "%s%s %%xmm1, %%xmm0", op, s);
	canonical_nan(c, i, 2);
}

uint32_t
asm_float_flags(asm_func *c, kl_inst i)
{
	const kl_func *f = c->f;
	kl_value x = kl_inst_arg(f, i, 0), y = kl_inst_arg(f, i, 1);
	uint32_t cc = kl_inst_cond(f, i);
	/* lt and le compare the other way round, as gt and ge: those are
	 * the conditions an unordered result (CF set) makes false */
	bool swap = cc == KL_FCC_LT || cc == KL_FCC_LE;
	asm_float_in(c, swap ? y : x, "%xmm0");
	asm_float_in(c, swap ? x : y, "%xmm1");
	asm_line(c, "ucomi%s %%xmm1, %%xmm0", fs(c, x));
	return cc;
}

const char *
asm_fcc_suffix(uint32_t cc, bool negate)
{
	switch (cc) {
	case KL_FCC_LT:
	case KL_FCC_GT:
		return negate ? "be" : "a";
	case KL_FCC_LE:
	case KL_FCC_GE:
		return negate ? "b" : "ae";
	case KL_FCC_ORD:
		return negate ? "p" : "np";
	case KL_FCC_UNO:
		return negate ? "np" : "p";
	default:
		return NULL;
	}
}

static void
float_compare(asm_func *c, kl_inst i)
{
	uint32_t cc = asm_float_flags(c, i);
	switch (cc) {
	case KL_FCC_EQ:
		asm_line(c, "sete %%al");
		asm_line(c, "setnp %%cl");
		asm_line(c, "andb %%cl, %%al");
		break;
	case KL_FCC_NE:
		asm_line(c, "setne %%al");
		asm_line(c, "setp %%cl");
		asm_line(c, "orb %%cl, %%al");
		break;
	case KL_FCC_LT:
	case KL_FCC_GT:
		asm_line(c, "seta %%al");
		break;
	case KL_FCC_LE:
	case KL_FCC_GE:
		asm_line(c, "setae %%al");
		break;
	case KL_FCC_ORD:
		asm_line(c, "setnp %%al");
		break;
	default:
		asm_line(c, "setp %%al");
	}
	asm_line(c, "movzbl %%al, %%eax");
	store(c, i, "%rax");
}

/* Load bits as a double into %xmm1. */
static void
double_const(asm_func *c, double d)
{
	uint64_t bits;
	memcpy(&bits, &d, sizeof bits);
	load_const(c, bits, "%rdx");
	asm_line(c, "movq %%rdx, %%xmm1");
}

/* fcvt_to_sint, fcvt_to_uint: the operand as a double (exact), checked
 * against the result type's range (a NaN fails every check), then
 * truncated. */
static void
float_to_int(asm_func *c, kl_inst i, bool sign)
{
	const kl_func *f = c->f;
	kl_value x = kl_inst_arg(f, i, 0);
	uint32_t w = kl_type_bytes(c->e->m,
				   kl_value_type(f, kl_inst_result(f, i, 0))) *
		     8;
	asm_float_in(c, x, "%xmm0");
	if (asm_width(c, x) == 32)
		asm_line(c, "cvtss2sd %%xmm0, %%xmm0");
	uint32_t bad = asm_label(c->e), ok = asm_label(c->e);
	/* below: above -2^(w-1) - 1 (at least -2^63: nothing lies
	 * between that and -2^63 - 1), or above -1 */
	double low = sign ? (w == 64 ? -9223372036854775808.0
				     : -(double)(UINT64_C(1) << (w - 1)) - 1)
			  : -1.0;
	double high = sign      ? (double)(UINT64_C(1) << (w - 1))
		      : w == 64 ? 18446744073709551616.0
				: (double)(UINT64_C(1) << w);
	double_const(c, low);
	asm_line(c, "ucomisd %%xmm1, %%xmm0");
	asm_line(c, sign && w == 64 ? "jb .Lk%u" : "jbe .Lk%u", bad);
	double_const(c, high);
	asm_line(c, "ucomisd %%xmm1, %%xmm0");
	asm_line(c, "jb .Lk%u", ok);
	asm_line(c, ".Lk%u:", bad);
	asm_trap(c, i, "int_ovf");
	asm_line(c, ".Lk%u:", ok);
	if (!sign && w == 64) {
		uint32_t small = asm_label(c->e), done = asm_label(c->e);
		double_const(c, 9223372036854775808.0);
		asm_line(c, "ucomisd %%xmm1, %%xmm0");
		asm_line(c, "jb .Lk%u", small);
		asm_line(c, "subsd %%xmm1, %%xmm0");
		asm_line(c, "cvttsd2siq %%xmm0, %%rax");
		asm_line(c, "btcq $63, %%rax");
		asm_line(c, "jmp .Lk%u", done);
		asm_line(c, ".Lk%u:", small);
		asm_line(c, "cvttsd2siq %%xmm0, %%rax");
		asm_line(c, ".Lk%u:", done);
	} else {
		asm_line(c, "cvttsd2siq %%xmm0, %%rax");
	}
	store(c, i, "%rax");
}

/* fcvt_from_sint, fcvt_from_uint: a 64-bit conversion of the operand
 * extended from its width; an unsigned 64-bit one at or above 2^63 is
 * halved (keeping its low bit, so it rounds once) and doubled. */
static void
int_to_float(asm_func *c, kl_inst i, bool sign)
{
	const kl_func *f = c->f;
	kl_value x = kl_inst_arg(f, i, 0);
	const char *s = asm_width(c, kl_inst_result(f, i, 0)) == 32 ? "ss"
								    : "sd";
	asm_load_ext(c, x, sign, "%rax");
	asm_line(c, "pxor %%xmm0, %%xmm0");
	if (!sign && asm_width(c, x) == 64) {
		uint32_t big = asm_label(c->e), done = asm_label(c->e);
		asm_line(c, "testq %%rax, %%rax");
		asm_line(c, "js .Lk%u", big);
		asm_line(c, "cvtsi2%sq %%rax, %%xmm0", s);
		asm_line(c, "jmp .Lk%u", done);
		asm_line(c, ".Lk%u:", big);
		asm_line(c, "movq %%rax, %%rcx");
		asm_line(c, "shrq $1, %%rcx");
		asm_line(c, "andl $1, %%eax");
		asm_line(c, "orq %%rax, %%rcx");
		asm_line(c, "cvtsi2%sq %%rcx, %%xmm0", s);
		asm_line(c, "add%s %%xmm0, %%xmm0", s);
		asm_line(c, ".Lk%u:", done);
	} else {
		asm_line(c, "cvtsi2%sq %%rax, %%xmm0", s);
	}
	asm_line(c, "movq %%xmm0, %%rax");
	store(c, i, "%rax");
}

static void
load_mem(asm_func *c, kl_inst i)
{
	const kl_func *f = c->f;
	kl_opcode op = kl_inst_opcode(f, i);
	int32_t off = kl_inst_offset(f, i);
	const char *at = address(c, kl_inst_arg(f, i, 0), off);
	const char *to = result_reg(c, i);
	const char *form;
	switch (op) {
	case KL_OP_ULOAD8:
		form = "movzbq";
		break;
	case KL_OP_SLOAD8:
		form = "movsbq";
		break;
	case KL_OP_ULOAD16:
		form = "movzwq";
		break;
	case KL_OP_SLOAD16:
		form = "movswq";
		break;
	case KL_OP_ULOAD32:
		form = "movl";
		break;
	case KL_OP_SLOAD32:
		form = "movslq";
		break;
	default:
		switch (asm_width(c, kl_inst_result(f, i, 0))) {
		case 8:
			form = "movzbq";
			break;
		case 16:
			form = "movzwq";
			break;
		case 32:
			form = "movl";
			break;
		default:
			form = "movq";
		}
	}
	asm_line(c, "%s %s, %s", form, at,
		 strcmp(form, "movl") == 0 ? asm_reg(to, 4) : to);
	done(c, i, to);
}

static void
store_mem(asm_func *c, kl_inst i)
{
	const kl_func *f = c->f;
	kl_value v = kl_inst_arg(f, i, 0);
	uint32_t w;
	switch (kl_inst_opcode(f, i)) {
	case KL_OP_ISTORE8:
		w = 8;
		break;
	case KL_OP_ISTORE16:
		w = 16;
		break;
	case KL_OP_ISTORE32:
		w = 32;
		break;
	default:
		w = asm_width(c, v);
	}
	const char *at = address(c, kl_inst_arg(f, i, 1), kl_inst_offset(f, i));
	const char *from = asm_reg("%rax", w / 8);
	if (asm_in_reg(c, v))
		from = asm_slot_at(c, v, w / 8);
	else
		load(c, v, "%rax");
	asm_line(c, "mov%c %s, %s", asm_suffix(w / 8), from, at);
}

/* alloca (not in the frame), alloca_dyn: stack below %rsp, zeroed. A
 * size over 2^32 - 1 traps stack_overflow as the interpreter's does. */
static void
alloca_run(asm_func *c, kl_inst i)
{
	const kl_func *f = c->f;
	uint32_t align = kl_inst_align(f, i);
	if (kl_inst_opcode(f, i) == KL_OP_ALLOCA_DYN) {
		uint32_t ok = asm_label(c->e);
		asm_load_ext(c, kl_inst_arg(f, i, 0), false, "%rcx");
		asm_line(c, "movq %%rcx, %%rax");
		asm_line(c, "shrq $32, %%rax");
		asm_line(c, "je .Lk%u", ok);
		asm_trap(c, i, "stack_overflow");
		asm_line(c, ".Lk%u:", ok);
	} else {
		load_const(c, (uint64_t)kl_inst_imm(f, i), "%rcx");
	}
	asm_line(c, "movq %%rcx, %%rax");
	asm_line(c, "addq $15, %%rax");
	asm_line(c, "andq $-16, %%rax");
	asm_line(c, "subq %%rax, %%rsp");
	if (align > 16)
		asm_line(c, "andq $%" PRId64 ", %%rsp", -(int64_t)align);
	asm_line(c, "movq %%rsp, %%rdi");
	asm_line(c, "xorl %%eax, %%eax");
	asm_line(c, "rep stosb");
	store(c, i, "%rsp");
}

void
asm_emit_inst(asm_func *c, kl_inst i)
{
	const kl_func *f = c->f;
	kl_opcode op = kl_inst_opcode(f, i);
	switch (op) {
	case KL_OP_ICONST:
	case KL_OP_F32CONST:
	case KL_OP_F64CONST: {
		int64_t k = kl_inst_imm(f, i);
		kl_value r = kl_inst_result(f, i, 0);
		if (!asm_in_reg(c, r) && k >= INT32_MIN && k <= INT32_MAX) {
			/* (straight into the slot) */
			asm_line(c, "movq $%" PRId64 ", %s", k, asm_slot(c, r));
			break;
		}
		const char *to = result_reg(c, i);
		load_const(c, (uint64_t)k, to);
		done(c, i, to);
		break;
	}
	case KL_OP_IADD:
		binary(c, i, "addq", false);
		break;
	case KL_OP_ISUB:
		binary(c, i, "subq", false);
		break;
	case KL_OP_IMUL:
		binary(c, i, "imulq", false);
		break;
	case KL_OP_BAND:
		binary(c, i, "andq", false);
		break;
	case KL_OP_BOR:
		binary(c, i, "orq", false);
		break;
	case KL_OP_BXOR:
		binary(c, i, "xorq", false);
		break;
	case KL_OP_IADD_IMM:
		binary(c, i, "addq", true);
		break;
	case KL_OP_IMUL_IMM:
		binary(c, i, "imulq", true);
		break;
	case KL_OP_BAND_IMM:
		binary(c, i, "andq", true);
		break;
	case KL_OP_BOR_IMM:
		binary(c, i, "orq", true);
		break;
	case KL_OP_BXOR_IMM:
		binary(c, i, "xorq", true);
		break;
	case KL_OP_IRSUB_IMM:
		load_const(c, (uint64_t)kl_inst_imm(f, i), "%rax");
		asm_line(c, "subq %s, %%rax",
			 asm_slot(c, kl_inst_arg(f, i, 0)));
		store(c, i, "%rax");
		break;
	case KL_OP_SDIV:
		divide(c, i, true, false, false);
		break;
	case KL_OP_UDIV:
		divide(c, i, false, false, false);
		break;
	case KL_OP_SREM:
		divide(c, i, true, true, false);
		break;
	case KL_OP_UREM:
		divide(c, i, false, true, false);
		break;
	case KL_OP_SDIV_IMM:
		divide(c, i, true, false, true);
		break;
	case KL_OP_UDIV_IMM:
		divide(c, i, false, false, true);
		break;
	case KL_OP_SREM_IMM:
		divide(c, i, true, true, true);
		break;
	case KL_OP_UREM_IMM:
		divide(c, i, false, true, true);
		break;
	case KL_OP_INEG:
	case KL_OP_BNOT:
		load(c, kl_inst_arg(f, i, 0), "%rax");
		asm_line(c, op == KL_OP_INEG ? "negq %%rax" : "notq %%rax");
		store(c, i, "%rax");
		break;
	case KL_OP_ISHL:
		shift(c, i, "shl", false);
		break;
	case KL_OP_USHR:
		shift(c, i, "shr", false);
		break;
	case KL_OP_SSHR:
		shift(c, i, "sar", false);
		break;
	case KL_OP_ISHL_IMM:
		shift(c, i, "shl", true);
		break;
	case KL_OP_USHR_IMM:
		shift(c, i, "shr", true);
		break;
	case KL_OP_SSHR_IMM:
		shift(c, i, "sar", true);
		break;
	case KL_OP_ROTL:
		shift(c, i, "rol", false);
		break;
	case KL_OP_ROTR:
		shift(c, i, "ror", false);
		break;
	case KL_OP_CLZ:
		count_zeros(c, i, true);
		break;
	case KL_OP_CTZ:
		count_zeros(c, i, false);
		break;
	case KL_OP_POPCNT:
		count_ones(c, i);
		break;
	case KL_OP_ICMP:
	case KL_OP_ICMP_IMM:
		compare(c, i);
		break;
	case KL_OP_FCMP:
		float_compare(c, i);
		break;
	case KL_OP_SELECT:
		load(c, kl_inst_arg(f, i, 1), "%rcx");
		load(c, kl_inst_arg(f, i, 2), "%rdx");
		asm_test_value(c, kl_inst_arg(f, i, 0));
		asm_line(c, "cmoveq %%rdx, %%rcx");
		store(c, i, "%rcx");
		break;
	case KL_OP_BMASK:
		asm_test_value(c, kl_inst_arg(f, i, 0));
		asm_line(c, "setne %%al");
		asm_line(c, "movzbl %%al, %%eax");
		asm_line(c, "negq %%rax");
		store(c, i, "%rax");
		break;
	case KL_OP_UEXTEND:
	case KL_OP_SEXTEND: {
		const char *to = result_reg(c, i);
		asm_load_ext(c, kl_inst_arg(f, i, 0), op == KL_OP_SEXTEND, to);
		done(c, i, to);
		break;
	}
	case KL_OP_IREDUCE:
	case KL_OP_BITCAST:
	case KL_OP_COPY: {
		kl_value x = kl_inst_arg(f, i, 0), r = kl_inst_result(f, i, 0);
		if (asm_same_place(c, x, r))
			break;
		if (asm_in_reg(c, x) || asm_in_reg(c, r)) {
			asm_line(c, "movq %s, %s", asm_slot(c, x),
				 asm_slot(c, r));
			break;
		}
		load(c, x, "%rax");
		store(c, i, "%rax");
		break;
	}
	case KL_OP_FPROMOTE:
	case KL_OP_FDEMOTE:
		asm_float_in(c, kl_inst_arg(f, i, 0), "%xmm0");
		asm_line(c, "%s %%xmm0, %%xmm0",
			 op == KL_OP_FPROMOTE ? "cvtss2sd" : "cvtsd2ss");
		asm_line(c, "movq %%xmm0, %%rax");
		store(c, i, "%rax");
		break;
	case KL_OP_FCVT_TO_SINT:
		float_to_int(c, i, true);
		break;
	case KL_OP_FCVT_TO_UINT:
		float_to_int(c, i, false);
		break;
	case KL_OP_FCVT_FROM_SINT:
		int_to_float(c, i, true);
		break;
	case KL_OP_FCVT_FROM_UINT:
		int_to_float(c, i, false);
		break;
	case KL_OP_FADD:
		float_binary(c, i, "add");
		break;
	case KL_OP_FSUB:
		float_binary(c, i, "sub");
		break;
	case KL_OP_FMUL:
		float_binary(c, i, "mul");
		break;
	case KL_OP_FDIV:
		float_binary(c, i, "div");
		break;
	case KL_OP_SQRT: {
		kl_value x = kl_inst_arg(f, i, 0);
		asm_float_in(c, x, "%xmm0");
		asm_line(c, "sqrt%s %%xmm0, %%xmm0", fs(c, x));
		canonical_nan(c, i, 1);
		break;
	}
	case KL_OP_FNEG:
	case KL_OP_FABS: {
		kl_value x = kl_inst_arg(f, i, 0);
		load(c, x, "%rax");
		asm_line(c, "bt%c%c $%u, %%%s", op == KL_OP_FNEG ? 'c' : 'r',
			 asm_width(c, x) == 32 ? 'l' : 'q', asm_width(c, x) - 1,
			 asm_width(c, x) == 32 ? "eax" : "rax");
		store(c, i, "%rax");
		break;
	}
	case KL_OP_ALLOCA:
		if (asm_unplaced(c, kl_inst_result(f, i, 0)))
			break;
		if (c->alloca_at[i.id]) {
			asm_line(c, "leaq %d(%%rbp), %%rax",
				 c->alloca_at[i.id]);
			store(c, i, "%rax");
		} else {
			alloca_run(c, i);
		}
		break;
	case KL_OP_ALLOCA_DYN:
		alloca_run(c, i);
		break;
	case KL_OP_LOAD:
	case KL_OP_ULOAD8:
	case KL_OP_SLOAD8:
	case KL_OP_ULOAD16:
	case KL_OP_SLOAD16:
	case KL_OP_ULOAD32:
	case KL_OP_SLOAD32:
		load_mem(c, i);
		break;
	case KL_OP_STORE:
	case KL_OP_ISTORE8:
	case KL_OP_ISTORE16:
	case KL_OP_ISTORE32:
		store_mem(c, i);
		break;
	case KL_OP_SYMBOL_ADDR: {
		const char *to = result_reg(c, i);
		asm_sym_addr(c->e, kl_inst_callee(f, i), to);
		done(c, i, to);
		break;
	}
	default:
		asm_refuse(c, i, "no x86-64 code for this instruction");
	}
}
