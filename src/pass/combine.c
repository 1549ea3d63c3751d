/*
 * combine.c -- peephole rewrites of integer instructions, each of one
 * instruction and what defines its operands: identities go (x + 0, x * 1,
 * x & -1), constants become immediates (iadd x, 5 is iadd_imm x, 5),
 * chains of immediates fold (x + 1 + 2 is x + 3), multiplications and
 * unsigned divisions and remainders by powers of two become shifts and
 * masks, double negations, extensions of extensions and compares of
 * compares merge. docs/passes.md lists every rule.
 *
 * An instruction rewritten is replaced by a new one built before it, or
 * by a value it computes anyway, through an alias: the rewriting API as
 * any pass uses it. The new instruction is looked at again at once (a
 * multiplication by a constant becomes imul_imm, then a shift). What the
 * old one read is left for dce. One walk in layout order: an operand
 * defined later in the layout (round a loop) is taken as it is.
 */
#include "../ir/ir.h"
#include "../util/util.h"
#include "pass.h"

/* How many times one instruction is rewritten in a row, at most: each
 * rule leaves something simpler, so a few steps end every chain; the
 * limit only makes that certain. */
#define MAX_STEPS 8

typedef struct combiner {
	kl_func *f;
	kl_module *m;
	kl_builder b;
	uint64_t insts; /* rewritten */
} combiner;

static kl_value
resolve(const combiner *c, kl_value v)
{
	return kl_value_resolve(c->f, v);
}

/* The instruction defining v, or none (a parameter). */
static kl_inst
def_of(const combiner *c, kl_value v)
{
	return kl_value_def_inst(c->f, resolve(c, v));
}

/* Is v an iconst? Its value, sign-extended, in *k. */
static bool
const_of(const combiner *c, kl_value v, int64_t *k)
{
	kl_inst d = def_of(c, v);
	if (d.id == KL_NONE || kl_inst_opcode(c->f, d) != KL_OP_ICONST)
		return false;
	*k = kl_inst_imm(c->f, d);
	return true;
}

/* v's width in bits; 64 for a value of no type (an alias cycle, in
 * input that does not verify), so that no shift goes past a word. */
static unsigned
bits_of(const combiner *c, kl_value v)
{
	unsigned bits = 8 * kl_type_bytes(c->m, kl_value_type(c->f, v));
	return bits ? bits : 64;
}

/* Is k, read unsigned at `bits`, a power of two? Its log in *log. */
static bool
power_of_two(int64_t k, unsigned bits, unsigned *log)
{
	uint64_t u = (uint64_t)k;
	if (bits < 64)
		u &= ((uint64_t)1 << bits) - 1;
	if (!u || (u & (u - 1)))
		return false;
	*log = kl_ctz64(u);
	return true;
}

/* The _imm form of a binary opcode, or KL_OP_COUNT. */
static kl_opcode
imm_form(kl_opcode op)
{
	switch (op) {
	case KL_OP_IADD: return KL_OP_IADD_IMM;
	case KL_OP_IMUL: return KL_OP_IMUL_IMM;
	case KL_OP_BAND: return KL_OP_BAND_IMM;
	case KL_OP_BOR: return KL_OP_BOR_IMM;
	case KL_OP_BXOR: return KL_OP_BXOR_IMM;
	case KL_OP_ISHL: return KL_OP_ISHL_IMM;
	case KL_OP_USHR: return KL_OP_USHR_IMM;
	case KL_OP_SSHR: return KL_OP_SSHR_IMM;
	case KL_OP_SDIV: return KL_OP_SDIV_IMM;
	case KL_OP_UDIV: return KL_OP_UDIV_IMM;
	case KL_OP_SREM: return KL_OP_SREM_IMM;
	case KL_OP_UREM: return KL_OP_UREM_IMM;
	default: return KL_OP_COUNT;
	}
}

/* Builders of the replacement, before the instruction being rewritten
 * (the builder stands there). The immediate is cut to x's width. */
static kl_value
imm(combiner *c, kl_opcode op, kl_value x, int64_t k)
{
	return kl_build_binary_imm(&c->b, op, x,
				   kl_sign_narrow(k, bits_of(c, x)));
}

static kl_value
negate(combiner *c, kl_value x)
{
	return kl_build_unary(&c->b, KL_OP_INEG, KL_TYPE_NONE, x);
}

static kl_value
constant(combiner *c, kl_type t, int64_t k)
{
	return kl_build_iconst(&c->b, t, k);
}

/* A compare that holds when the compare d does not. */
static kl_value
inverted(combiner *c, kl_inst d)
{
	kl_intcc cc = intcc_inverse((kl_intcc)kl_inst_cond(c->f, d));
	kl_value a = kl_inst_arg(c->f, d, 0);
	if (kl_inst_opcode(c->f, d) == KL_OP_ICMP)
		return kl_build_icmp(&c->b, cc, a, kl_inst_arg(c->f, d, 1));
	return kl_build_icmp_imm(&c->b, cc, a, kl_inst_imm(c->f, d));
}

/* The compare x is, seen through a uextend; or none. */
static kl_inst
compare_of(const combiner *c, kl_value x)
{
	kl_inst d = def_of(c, x);
	if (d.id != KL_NONE && kl_inst_opcode(c->f, d) == KL_OP_UEXTEND)
		d = def_of(c, kl_inst_arg(c->f, d, 0));
	if (d.id == KL_NONE)
		return KL_NO_INST;
	kl_opcode op = kl_inst_opcode(c->f, d);
	return op == KL_OP_ICMP || op == KL_OP_ICMP_IMM ? d : KL_NO_INST;
}

/* Two-operand instructions: a constant operand becomes an immediate. */
static kl_value
binary(combiner *c, kl_inst i, kl_opcode op)
{
	kl_func *f = c->f;
	kl_value x = kl_inst_arg(f, i, 0), y = kl_inst_arg(f, i, 1);
	int64_t k;
	if (resolve(c, x).id == resolve(c, y).id &&
	    (op == KL_OP_BAND || op == KL_OP_BOR))
		return x;
	if (op == KL_OP_ICMP) {
		kl_intcc cc = (kl_intcc)kl_inst_cond(f, i);
		if (const_of(c, y, &k))
			return kl_build_icmp_imm(&c->b, cc, x, k);
		if (const_of(c, x, &k))
			return kl_build_icmp_imm(&c->b, intcc_swapped(cc), y,
						 k);
		return KL_NO_VALUE;
	}
	if (op == KL_OP_ISUB) {
		if (const_of(c, y, &k))
			return imm(c, KL_OP_IADD_IMM, x,
				   (int64_t)(0 - (uint64_t)k));
		if (const_of(c, x, &k))
			return imm(c, KL_OP_IRSUB_IMM, y, k);
		return KL_NO_VALUE;
	}
	kl_opcode form = imm_form(op);
	if (form == KL_OP_COUNT)
		return KL_NO_VALUE;
	if (const_of(c, y, &k)) {
		unsigned w = bits_of(c, x);
		if (op == KL_OP_ISHL || op == KL_OP_USHR || op == KL_OP_SSHR)
			k &= (int64_t)w - 1; /* the amount, modulo the width */
		else if ((op == KL_OP_SDIV || op == KL_OP_UDIV ||
			  op == KL_OP_SREM || op == KL_OP_UREM) &&
			 kl_sign_narrow(k, w) == 0)
			return KL_NO_VALUE; /* it traps: so be it */
		return imm(c, form, x, k);
	}
	if (op != KL_OP_ISHL && op != KL_OP_USHR && op != KL_OP_SSHR &&
	    op != KL_OP_SDIV && op != KL_OP_UDIV && op != KL_OP_SREM &&
	    op != KL_OP_UREM && const_of(c, x, &k))
		return imm(c, form, y, k);
	return KL_NO_VALUE;
}

/* x OP k after x = y OP a, for an opcode whose chains fold: the fold of
 * the two immediates, in *out. */
static bool
chain(kl_opcode op, int64_t a, int64_t k, int64_t *out)
{
	uint64_t ua = (uint64_t)a, uk = (uint64_t)k;
	switch (op) {
	case KL_OP_IADD_IMM: *out = (int64_t)(ua + uk); return true;
	case KL_OP_IMUL_IMM: *out = (int64_t)(ua * uk); return true;
	case KL_OP_BAND_IMM: *out = a & k; return true;
	case KL_OP_BOR_IMM: *out = a | k; return true;
	case KL_OP_BXOR_IMM: *out = a ^ k; return true;
	default: return false;
	}
}

static kl_value
shift_imm(combiner *c, kl_inst i, kl_opcode op, kl_value x, int64_t k)
{
	unsigned w = bits_of(c, x);
	int64_t n = k & ((int64_t)w - 1);
	if (n == 0)
		return x;
	kl_inst d = def_of(c, x);
	if (d.id == KL_NONE || kl_inst_opcode(c->f, d) != op)
		return KL_NO_VALUE;
	int64_t sum = n + (kl_inst_imm(c->f, d) & ((int64_t)w - 1));
	if (sum < (int64_t)w)
		return imm(c, op, kl_inst_arg(c->f, d, 0), sum);
	if (op == KL_OP_SSHR_IMM)
		return imm(c, op, kl_inst_arg(c->f, d, 0), (int64_t)w - 1);
	return constant(c, kl_value_type(c->f, kl_inst_result(c->f, i, 0)), 0);
}

/* Instructions of an operand and an immediate. */
static kl_value
with_imm(combiner *c, kl_inst i, kl_opcode op)
{
	kl_func *f = c->f;
	kl_value x = kl_inst_arg(f, i, 0);
	kl_type t = kl_value_type(f, kl_inst_result(f, i, 0));
	unsigned w = bits_of(c, x), log;
	int64_t k = kl_sign_narrow(kl_inst_imm(f, i), w);
	kl_inst d = def_of(c, x);
	kl_opcode inner = d.id == KL_NONE ? KL_OP_COUNT
					  : kl_inst_opcode(f, d);
	int64_t a = d.id == KL_NONE ? 0 : kl_inst_imm(f, d), folded;
	kl_value y = inner == KL_OP_COUNT ? KL_NO_VALUE
					  : kl_inst_arg(f, d, 0);
	switch (op) {
	case KL_OP_IADD_IMM:
		if (k == 0)
			return x;
		if (inner == KL_OP_IRSUB_IMM) /* (a - y) + k */
			return imm(c, KL_OP_IRSUB_IMM, y,
				   (int64_t)((uint64_t)a + (uint64_t)k));
		break;
	case KL_OP_IRSUB_IMM:
		if (k == 0)
			return negate(c, x);
		if (inner == KL_OP_IADD_IMM) /* k - (y + a) */
			return imm(c, KL_OP_IRSUB_IMM, y,
				   (int64_t)((uint64_t)k - (uint64_t)a));
		if (inner == KL_OP_IRSUB_IMM) /* k - (a - y) */
			return imm(c, KL_OP_IADD_IMM, y,
				   (int64_t)((uint64_t)k - (uint64_t)a));
		return KL_NO_VALUE;
	case KL_OP_IMUL_IMM:
		if (k == 1)
			return x;
		if (k == 0)
			return constant(c, t, 0);
		if (k == -1)
			return negate(c, x);
		if (power_of_two(k, w, &log))
			return imm(c, KL_OP_ISHL_IMM, x, log);
		break;
	case KL_OP_BAND_IMM:
		if (k == -1)
			return x;
		if (k == 0)
			return constant(c, t, 0);
		break;
	case KL_OP_BOR_IMM:
		if (k == 0)
			return x;
		if (k == -1)
			return constant(c, t, -1);
		break;
	case KL_OP_BXOR_IMM:
		if (k == 0)
			return x;
		if (k == -1)
			return kl_build_unary(&c->b, KL_OP_BNOT,
					      KL_TYPE_NONE, x);
		if (k == 1 && d.id != KL_NONE &&
		    compare_of(c, x).id == d.id)
			return inverted(c, d);
		break;
	case KL_OP_ISHL_IMM:
	case KL_OP_USHR_IMM:
	case KL_OP_SSHR_IMM:
		return shift_imm(c, i, op, x, k);
	case KL_OP_SDIV_IMM:
		return k == 1 ? x : KL_NO_VALUE;
	case KL_OP_UDIV_IMM:
		if (power_of_two(k, w, &log))
			return log ? imm(c, KL_OP_USHR_IMM, x, log) : x;
		return KL_NO_VALUE;
	case KL_OP_SREM_IMM:
		return k == 1 || k == -1 ? constant(c, t, 0) : KL_NO_VALUE;
	case KL_OP_UREM_IMM:
		if (power_of_two(k, w, &log))
			return log ? imm(c, KL_OP_BAND_IMM, x,
					 (int64_t)(((uint64_t)1 << log) - 1))
				   : constant(c, t, 0);
		return KL_NO_VALUE;
	case KL_OP_ICMP_IMM: {
		kl_intcc cc = (kl_intcc)kl_inst_cond(f, i);
		kl_inst cmp = compare_of(c, x);
		if (cmp.id == KL_NONE || (k != 0 && k != 1) ||
		    (cc != KL_ICC_EQ && cc != KL_ICC_NE))
			return KL_NO_VALUE;
		/* a compare is 0 or 1: != 0 and == 1 are the compare itself */
		if ((cc == KL_ICC_NE) == (k == 0))
			return kl_inst_result(f, cmp, 0);
		return inverted(c, cmp);
	}
	default:
		return KL_NO_VALUE;
	}
	if (inner == op && chain(op, a, k, &folded))
		return imm(c, op, y, folded);
	return KL_NO_VALUE;
}

/* Instructions of one operand. */
static kl_value
unary(combiner *c, kl_inst i, kl_opcode op)
{
	kl_func *f = c->f;
	kl_value x = kl_inst_arg(f, i, 0);
	kl_type t = kl_value_type(f, kl_inst_result(f, i, 0));
	kl_inst d = def_of(c, x);
	if (d.id == KL_NONE)
		return KL_NO_VALUE;
	kl_opcode inner = kl_inst_opcode(f, d);
	kl_value y = kl_inst_num_args(f, d) ? kl_inst_arg(f, d, 0)
					     : KL_NO_VALUE;
	switch (op) {
	case KL_OP_INEG:
	case KL_OP_BNOT:
		return inner == op ? y : KL_NO_VALUE;
	case KL_OP_UEXTEND:
	case KL_OP_SEXTEND:
		/* a widened value's sign bit is 0 after a uextend */
		if (inner == KL_OP_UEXTEND || inner == op)
			return kl_build_unary(&c->b, inner, t, y);
		return KL_NO_VALUE;
	case KL_OP_IREDUCE: {
		if (inner != KL_OP_UEXTEND && inner != KL_OP_SEXTEND &&
		    inner != KL_OP_IREDUCE)
			return KL_NO_VALUE;
		unsigned from = bits_of(c, y), to = 8 * kl_type_bytes(c->m, t);
		if (from == to)
			return y;
		if (from < to)
			return kl_build_unary(&c->b, inner, t, y);
		return kl_build_unary(&c->b, KL_OP_IREDUCE, t, y);
	}
	default:
		return KL_NO_VALUE;
	}
}

/* The value that replaces i's result, built before i if need be; none
 * when no rule applies. */
static kl_value
rewrite(combiner *c, kl_inst i)
{
	kl_func *f = c->f;
	kl_opcode op = kl_inst_opcode(f, i);
	if (kl_inst_num_results(f, i) != 1)
		return KL_NO_VALUE;
	kl_builder_before(&c->b, i);
	switch (op) {
	case KL_OP_IADD: case KL_OP_ISUB: case KL_OP_IMUL:
	case KL_OP_SDIV: case KL_OP_UDIV: case KL_OP_SREM: case KL_OP_UREM:
	case KL_OP_BAND: case KL_OP_BOR: case KL_OP_BXOR:
	case KL_OP_ISHL: case KL_OP_USHR: case KL_OP_SSHR:
	case KL_OP_ICMP:
		return binary(c, i, op);
	case KL_OP_IADD_IMM: case KL_OP_IRSUB_IMM: case KL_OP_IMUL_IMM:
	case KL_OP_BAND_IMM: case KL_OP_BOR_IMM: case KL_OP_BXOR_IMM:
	case KL_OP_ISHL_IMM: case KL_OP_USHR_IMM: case KL_OP_SSHR_IMM:
	case KL_OP_SDIV_IMM: case KL_OP_UDIV_IMM: case KL_OP_SREM_IMM:
	case KL_OP_UREM_IMM: case KL_OP_ICMP_IMM:
		return with_imm(c, i, op);
	case KL_OP_INEG: case KL_OP_BNOT:
	case KL_OP_UEXTEND: case KL_OP_SEXTEND: case KL_OP_IREDUCE:
		return unary(c, i, op);
	case KL_OP_SELECT: {
		kl_value x = kl_inst_arg(f, i, 1), y = kl_inst_arg(f, i, 2);
		return resolve(c, x).id == resolve(c, y).id ? x : KL_NO_VALUE;
	}
	default:
		return KL_NO_VALUE;
	}
}

/* Rewrite i, and what replaces it, while a rule applies. False if the
 * builder failed (input that does not verify). */
static bool
combine_inst(combiner *c, kl_inst i)
{
	kl_func *f = c->f;
	for (int step = 0; step < MAX_STEPS; step++) {
		uint32_t before = kl_func_inst_bound(f);
		kl_value rep = rewrite(c, i);
		if (kl_builder_status(&c->b) != KL_OK)
			return false;
		if (rep.id == KL_NONE)
			return true;
		kl_value r = kl_inst_result(f, i, 0);
		kl_type t = kl_value_type(f, r);
		kl_inst made = kl_value_def_inst(f, rep);
		bool fresh = made.id != KL_NONE && made.id >= before;
		if (resolve(c, rep).id == r.id) {
			/* i's own result, in code that cannot run (v5 =
			 * iadd_imm v5, 0 verifies there): an alias would be
			 * a cycle */
			if (fresh)
				kl_inst_remove(f, made);
			return true;
		}
		/* A new value keeps what the text said of the old (an s32). */
		if (fresh && kl_value_type(f, rep) != t &&
		    kl_value_typable(f, rep))
			kl_value_set_type(f, rep, t);
		kl_inst_remove(f, i);
		if (kl_value_set_alias(f, r, rep) != KL_OK)
			return false;
		c->insts++;
		if (!fresh)
			return true;
		i = made;
	}
	return true;
}

kl_status
kl_combine_func(kl_func *f, kl_pass_report *report)
{
	combiner c = { .f = f, .m = kl_func_module(f) };
	kl_builder_init(&c.b, f);
	for (kl_block b = kl_func_first_block(f); b.id != KL_NONE;
	     b = kl_block_next(f, b)) {
		kl_inst i = kl_block_first_inst(f, b);
		while (i.id != KL_NONE) {
			kl_inst next = kl_inst_next(f, i);
			if (!combine_inst(&c, i))
				goto done;
			i = next;
		}
	}
done:
	if (c.insts)
		kl_func_resolve_aliases(f);
	func_edited(f);
	kl_pass_report_count(report, "insts", c.insts);
	return KL_OK;
}
