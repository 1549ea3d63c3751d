/*
 * emit_c_inst.c -- one instruction as C (emit_c.h): integer arithmetic
 * unsigned, so that it wraps, signed readings through intN_t casts;
 * shift amounts masked to the width; divisions through helpers that trap
 * as the IR says; float operations through the IR's NaN rule; loads,
 * stores and bitcasts as memcpy; calls to the C functions of the
 * module's symbols, call_indirect after a check of the signature.
 */
#include "emit_c.h"

/* A float constant: a hex float literal when finite, else its bits. */
static void
float_const(fn_ctx *c, uint32_t ind, const char *r, bool is64, int64_t b)
{
	if (is64) {
		uint64_t bits = (uint64_t)b;
		double d;
		memcpy(&d, &bits, sizeof d);
		if (d - d == 0)
			emit_line(c, ind, "%s = %a;", r, d);
		else
			emit_line(c, ind, "%s = rt_f64(UINT64_C(0x%llx));", r,
				  (unsigned long long)bits);
	} else {
		uint32_t bits = (uint32_t)b;
		float f;
		memcpy(&f, &bits, sizeof f);
		if (f - f == 0)
			emit_line(c, ind, "%s = %af;", r, (double)f);
		else
			emit_line(c, ind, "%s = rt_f32(0x%lxu);", r,
				  (unsigned long)bits);
	}
}

static const char *const icc_op[] = {
	"==", "!=", "<", "<=", ">", ">=", "<", "<=", ">", ">=",
};

/* A binary integer operation: unsigned arithmetic, so it wraps (below
 * 32 bits the operands are made unsigned int first, since uint8_t and
 * uint16_t promote to int, whose products can overflow). */
static void
int_binary(fn_ctx *c, uint32_t ind, kl_inst i, const char *r, kl_type t,
	   const char *op)
{
	const char *ty = emit_ctype(c->e->m, t);
	if (emit_width(c->e->m, t) < 32)
		emit_line(c, ind, "%s = (%s)((unsigned)%s %s %s);", r, ty,
			  emit_arg(c, i, 0), op, emit_arg(c, i, 1));
	else
		emit_line(c, ind, "%s = %s %s %s;", r, emit_arg(c, i, 0), op,
			  emit_arg(c, i, 1));
}

static void emit_call(fn_ctx *c, uint32_t ind, kl_inst i);

/* What an instruction's C is made of: its result and first operands as
 * C, their types, its immediate, offset and condition. */
typedef struct operands {
	const char *r;          /* the result's name, or "" */
	kl_type rt, t;          /* the result's type; the first operand's */
	const char *ty, *rty;   /* their C types */
	const char *sty, *rsty; /* their signed C types */
	uint32_t w;             /* t's width in bits */
	uint64_t imm;
	const char *a0, *a1; /* the first two operands, or "" */
	bool f64;            /* t is f64 */
	const char *nan;     /* the NaN rule's helper for t */
	int32_t off;
	uint32_t cc;
} operands;

/* Integer arithmetic and shifts; false if i is none of them. */
static bool
int_inst(fn_ctx *c, uint32_t ind, kl_inst i, const operands *ops)
{
	kl_opcode op = kl_inst_opcode(c->f, i);
	const char *r = ops->r;
	kl_type rt = ops->rt;
	kl_type t = ops->t;
	const char *ty = ops->ty;
	const char *sty = ops->sty;
	uint32_t w = ops->w;
	uint64_t imm = ops->imm;
	const char *a0 = ops->a0;
	const char *a1 = ops->a1;
	switch (op) {
	case KL_OP_ICONST:
		emit_line(c, ind, "%s = %s;", r, emit_cint(c->e, rt, imm));
		break;
	case KL_OP_IADD:
		int_binary(c, ind, i, r, t, "+");
		break;
	case KL_OP_ISUB:
		int_binary(c, ind, i, r, t, "-");
		break;
	case KL_OP_IMUL:
		int_binary(c, ind, i, r, t, "*");
		break;
	case KL_OP_BAND:
		int_binary(c, ind, i, r, t, "&");
		break;
	case KL_OP_BOR:
		int_binary(c, ind, i, r, t, "|");
		break;
	case KL_OP_BXOR:
		int_binary(c, ind, i, r, t, "^");
		break;
	case KL_OP_SDIV:
		emit_line(c, ind, "%s = (%s)rt_sdiv((%s)%s, (%s)%s, %s, %u);",
			  r, ty, sty, a0, sty, a1, emit_int_min(w),
			  emit_site(c, i));
		break;
	case KL_OP_SREM:
		emit_line(c, ind, "%s = (%s)rt_srem((%s)%s, (%s)%s, %u);", r,
			  ty, sty, a0, sty, a1, emit_site(c, i));
		break;
	case KL_OP_UDIV:
	case KL_OP_UREM:
		emit_line(c, ind, "%s = (%s)rt_u%s(%s, %s, %u);", r, ty,
			  op == KL_OP_UDIV ? "div" : "rem", a0, a1,
			  emit_site(c, i));
		break;
	case KL_OP_INEG:
		emit_line(c, ind, "%s = (%s)(0u - %s);", r, ty, a0);
		break;
	case KL_OP_BNOT:
		emit_line(c, ind, "%s = (%s)~%s;", r, ty, a0);
		break;
	case KL_OP_IADD_IMM:
	case KL_OP_IMUL_IMM:
	case KL_OP_BAND_IMM:
	case KL_OP_BOR_IMM:
	case KL_OP_BXOR_IMM: {
		/* the constant is unsigned, so the arithmetic is too */
		const char *o = op == KL_OP_IADD_IMM   ? "+"
				: op == KL_OP_IMUL_IMM ? "*"
				: op == KL_OP_BAND_IMM ? "&"
				: op == KL_OP_BOR_IMM  ? "|"
						       : "^";
		emit_line(c, ind, "%s = (%s)(%s %s %s);", r, ty, a0, o,
			  emit_cint(c->e, t, imm));
		break;
	}
	case KL_OP_IRSUB_IMM:
		emit_line(c, ind, "%s = (%s)(%s - %s);", r, ty,
			  emit_cint(c->e, t, imm), a0);
		break;
	case KL_OP_UDIV_IMM:
	case KL_OP_UREM_IMM:
		/* the verifier refuses an immediate 0: no trap */
		emit_line(c, ind, "%s = %s %s %s;", r, a0,
			  op == KL_OP_UDIV_IMM ? "/" : "%",
			  emit_cint(c->e, t, imm));
		break;
	case KL_OP_SDIV_IMM:
		emit_line(c, ind, "%s = (%s)rt_sdiv((%s)%s, %s, %s, %u);", r,
			  ty, sty, a0, emit_sint(c->e, w, imm), emit_int_min(w),
			  emit_site(c, i));
		break;
	case KL_OP_SREM_IMM:
		emit_line(c, ind, "%s = (%s)rt_srem((%s)%s, %s, %u);", r, ty,
			  sty, a0, emit_sint(c->e, w, imm), emit_site(c, i));
		break;
	case KL_OP_ISHL_IMM:
	case KL_OP_USHR_IMM:
		emit_line(c, ind, "%s = (%s)(%s %s %u);", r, ty, a0,
			  op == KL_OP_ISHL_IMM ? "<<" : ">>",
			  (unsigned)(imm & (w - 1)));
		break;
	case KL_OP_SSHR_IMM:
		emit_line(c, ind, "%s = (%s)((%s)%s >> %u);", r, ty, sty, a0,
			  (unsigned)(imm & (w - 1)));
		break;
	case KL_OP_ISHL:
	case KL_OP_USHR:
		/* (unsigned) keeps a uint8_t's shift out of int's sign */
		emit_line(c, ind, "%s = (%s)(%s%s %s (%s & %u));", r, ty,
			  w < 32 ? "(unsigned)" : "", a0,
			  op == KL_OP_ISHL ? "<<" : ">>", a1, w - 1);
		break;
	case KL_OP_SSHR:
		emit_line(c, ind, "%s = (%s)((%s)%s >> (%s & %u));", r, ty, sty,
			  a0, a1, w - 1);
		break;
	case KL_OP_ROTL:
	case KL_OP_ROTR:
		emit_line(c, ind, "%s = (%s)rt_rot%c(%s, %s, %u);", r, ty,
			  op == KL_OP_ROTL ? 'l' : 'r', a0, a1, w);
		break;
	case KL_OP_CLZ:
	case KL_OP_CTZ:
		emit_line(c, ind, "%s = (%s)rt_%s(%s, %u);", r, ty,
			  op == KL_OP_CLZ ? "clz" : "ctz", a0, w);
		break;
	case KL_OP_POPCNT:
		emit_line(c, ind, "%s = (%s)rt_popcnt(%s);", r, ty, a0);
		break;
	default:
		return false;
	}
	return true;
}

/* Integer comparisons, select, extensions and reductions, copies and
 * bitcasts; false if i is none of them. */
static bool
cast_inst(fn_ctx *c, uint32_t ind, kl_inst i, const operands *ops)
{
	kl_opcode op = kl_inst_opcode(c->f, i);
	const char *r = ops->r;
	kl_type t = ops->t;
	const char *rty = ops->rty;
	const char *sty = ops->sty;
	const char *rsty = ops->rsty;
	uint32_t w = ops->w;
	uint64_t imm = ops->imm;
	const char *a0 = ops->a0;
	const char *a1 = ops->a1;
	uint32_t cc = ops->cc;
	switch (op) {
	case KL_OP_ICMP:
	case KL_OP_ICMP_IMM: {
		const char *b = op == KL_OP_ICMP ? a1 : emit_cint(c->e, t, imm);
		if (cc >= KL_ICC_SLT && cc <= KL_ICC_SGE &&
		    op == KL_OP_ICMP_IMM)
			emit_line(c, ind, "%s = (%s)%s %s %s;", r, sty, a0,
				  icc_op[cc], emit_sint(c->e, w, imm));
		else if (cc >= KL_ICC_SLT && cc <= KL_ICC_SGE)
			emit_line(c, ind, "%s = (%s)%s %s (%s)%s;", r, sty, a0,
				  icc_op[cc], sty, b);
		else
			emit_line(c, ind, "%s = %s %s %s;", r, a0, icc_op[cc],
				  b);
		break;
	}
	case KL_OP_SELECT:
		emit_line(c, ind, "%s = %s ? %s : %s;", r, a0, a1,
			  emit_arg(c, i, 2));
		break;
	case KL_OP_BMASK:
		emit_line(c, ind, "%s = %s ? (%s)-1 : 0;", r, a0, rty);
		break;
	case KL_OP_UEXTEND:
	case KL_OP_IREDUCE:
		emit_line(c, ind, "%s = (%s)%s;", r, rty, a0);
		break;
	case KL_OP_SEXTEND:
		emit_line(c, ind, "%s = (%s)(%s)(%s)%s;", r, rty, rsty, sty,
			  a0);
		break;
	case KL_OP_COPY:
		emit_line(c, ind, "%s = %s;", r, a0);
		break;
	case KL_OP_BITCAST:
		emit_line(c, ind, "memcpy(&%s, &%s, sizeof %s);", r, a0, r);
		break;
	default:
		return false;
	}
	return true;
}

/* Floats: constants, arithmetic, comparisons, conversions; false if i
 * is none of them. */
static bool
float_inst(fn_ctx *c, uint32_t ind, kl_inst i, const operands *ops)
{
	const kl_module *m = c->e->m;
	kl_opcode op = kl_inst_opcode(c->f, i);
	const char *r = ops->r;
	kl_type rt = ops->rt;
	const char *rty = ops->rty;
	const char *sty = ops->sty;
	uint64_t imm = ops->imm;
	const char *a0 = ops->a0;
	const char *a1 = ops->a1;
	bool f64 = ops->f64;
	const char *nan = ops->nan;
	uint32_t cc = ops->cc;
	switch (op) {
	case KL_OP_F32CONST:
	case KL_OP_F64CONST:
		float_const(c, ind, r, op == KL_OP_F64CONST, (int64_t)imm);
		break;
	case KL_OP_FCMP: {
		static const char *const fop[] = {
			"==", "!=", "<", "<=", ">", ">=",
		};
		if (cc == KL_FCC_ORD)
			emit_line(c, ind, "%s = %s == %s && %s == %s;", r, a0,
				  a0, a1, a1);
		else if (cc == KL_FCC_UNO)
			emit_line(c, ind, "%s = %s != %s || %s != %s;", r, a0,
				  a0, a1, a1);
		else
			emit_line(c, ind, "%s = %s %s %s;", r, a0, fop[cc], a1);
		break;
	}
	case KL_OP_FPROMOTE:
		emit_line(c, ind, "%s = rt_promote(%s);", r, a0);
		break;
	case KL_OP_FDEMOTE:
		emit_line(c, ind, "%s = rt_demote(%s);", r, a0);
		break;
	case KL_OP_FCVT_TO_SINT:
	case KL_OP_FCVT_TO_UINT: {
		/* the limits, exclusive: the truncation must fit */
		uint32_t rw = emit_width(m, rt);
		bool sgn = op == KL_OP_FCVT_TO_SINT;
		double hi = rw == 64 ? (sgn ? 0x1p63 : 0x1p64)
			    : sgn    ? (double)((uint64_t)1 << (rw - 1))
				     : (double)((uint64_t)1 << rw);
		double lo = rw == 64 ? -0x1.0000000000001p63 : -hi - 1;
		if (sgn)
			emit_line(c, ind,
				  "%s = (%s)rt_ftos(%s, %a, %a, %d, "
				  "\"signed i%u\", %u);",
				  r, rty, a0, lo, hi, f64, rw, emit_site(c, i));
		else
			emit_line(c, ind,
				  "%s = (%s)rt_ftou(%s, %a, %d, "
				  "\"unsigned i%u\", %u);",
				  r, rty, a0, hi, f64, rw, emit_site(c, i));
		break;
	}
	case KL_OP_FCVT_FROM_SINT:
		emit_line(c, ind, "%s = (%s)(%s)%s;", r, rty, sty, a0);
		break;
	case KL_OP_FCVT_FROM_UINT:
		emit_line(c, ind, "%s = (%s)%s;", r, rty, a0);
		break;
	case KL_OP_FADD:
	case KL_OP_FSUB:
	case KL_OP_FMUL:
	case KL_OP_FDIV: {
		const char *o = op == KL_OP_FADD   ? "+"
				: op == KL_OP_FSUB ? "-"
				: op == KL_OP_FMUL ? "*"
						   : "/";
		emit_line(c, ind, "%s = %s(%s %s %s, %s, %s);", r, nan, a0, o,
			  a1, a0, a1);
		break;
	}
	case KL_OP_SQRT:
		emit_line(c, ind, "%s = %s(sqrt%s(%s), %s, %s);", r, nan,
			  f64 ? "" : "f", a0, a0, a0);
		break;
	case KL_OP_FNEG:
	case KL_OP_FABS:
		emit_line(c, ind, "%s = rt_%s%s(%s);", r,
			  op == KL_OP_FNEG ? "neg" : "abs", f64 ? "64" : "32",
			  a0);
		break;
	default:
		return false;
	}
	return true;
}

/* Memory: allocas, loads, stores, symbol addresses; false if i is none
 * of them. */
static bool
memory_inst(fn_ctx *c, uint32_t ind, kl_inst i, const operands *ops)
{
	const kl_module *m = c->e->m;
	kl_opcode op = kl_inst_opcode(c->f, i);
	const char *r = ops->r;
	const char *rty = ops->rty;
	const char *rsty = ops->rsty;
	uint64_t imm = ops->imm;
	const char *a0 = ops->a0;
	const char *a1 = ops->a1;
	int32_t off = ops->off;
	switch (op) {
	case KL_OP_ALLOCA: {
		uint32_t align = kl_inst_align(c->f, i);
		if (kl_inst_block(c->f, i).id == kl_func_first_block(c->f).id &&
		    imm <= 4096 && align <= 16)
			emit_line(c, ind, "%s = rt_ptr(m%s);", r, r);
		else
			emit_line(c, ind, "%s = rt_alloca(&frame, %s, %u, %u);",
				  r, emit_cint(c->e, KL_TYPE_I64, imm), align,
				  emit_site(c, i));
		break;
	}
	case KL_OP_ALLOCA_DYN:
		emit_line(c, ind, "%s = rt_alloca(&frame, %s, %u, %u);", r, a0,
			  kl_inst_align(c->f, i), emit_site(c, i));
		break;
	case KL_OP_LOAD:
		emit_line(c, ind, "memcpy(&%s, rt_at(%s, %d), sizeof %s);", r,
			  a0, off, r);
		break;
	case KL_OP_ULOAD8:
	case KL_OP_ULOAD16:
	case KL_OP_ULOAD32:
		emit_line(c, ind, "%s = rt_ld%u(rt_at(%s, %d));", r,
			  kl_op_info(op)->memw * 8, a0, off);
		break;
	case KL_OP_SLOAD8:
	case KL_OP_SLOAD16:
	case KL_OP_SLOAD32: {
		uint32_t n = kl_op_info(op)->memw * 8;
		emit_line(c, ind,
			  "%s = (%s)(%s)(int%u_t)rt_ld%u(rt_at(%s, %d));", r,
			  rty, rsty, n, n, a0, off);
		break;
	}
	case KL_OP_STORE:
		emit_line(c, ind, "memcpy(rt_at(%s, %d), &%s, sizeof %s);", a1,
			  off, a0, a0);
		break;
	case KL_OP_ISTORE8:
	case KL_OP_ISTORE16:
	case KL_OP_ISTORE32: {
		uint32_t n = kl_op_info(op)->memw * 8;
		emit_line(c, ind, "rt_st%u(rt_at(%s, %d), (uint%u_t)%s);", n,
			  a1, off, n, a0);
		break;
	}
	case KL_OP_SYMBOL_ADDR: {
		kl_sym s = kl_inst_callee(c->f, i);
		if (kl_sym_get_kind(m, s) == KL_SYM_DATA)
			emit_line(c, ind, "%s = rt_ptr(%s);", r,
				  emit_ident(c->e, s));
		else
			emit_line(c, ind, "%s = (uint64_t)(uintptr_t)%s;", r,
				  emit_ident(c->e, s));
		break;
	}
	default:
		return false;
	}
	return true;
}

void
emit_inst(fn_ctx *c, uint32_t ind, kl_inst i)
{
	const kl_module *m = c->e->m;
	kl_opcode op = kl_inst_opcode(c->f, i);
	if (kl_op_is_call(op)) {
		emit_call(c, ind, i);
		return;
	}
	if (emit_dropped(c, i))
		return;
	operands o;
	kl_value rv = kl_inst_result(c->f, i, 0);
	uint32_t nargs = kl_inst_num_args(c->f, i);
	o.r = rv.id == KL_NONE ? "" : emit_val(c, rv);
	o.rt = kl_value_type(c->f, rv);
	o.t = nargs ? kl_value_type(c->f, kl_inst_arg(c->f, i, 0)) : o.rt;
	o.ty = emit_ctype(m, o.t);
	o.rty = emit_ctype(m, o.rt);
	o.sty = emit_stype(m, o.t);
	o.rsty = emit_stype(m, o.rt);
	o.w = emit_width(m, o.t);
	o.imm = (uint64_t)kl_inst_imm(c->f, i);
	o.a0 = nargs ? emit_arg(c, i, 0) : "";
	o.a1 = nargs > 1 ? emit_arg(c, i, 1) : "";
	o.f64 = kl_type_class(m, o.t) == KL_TYPE_F64;
	o.nan = o.f64 ? "rt_nan64" : "rt_nan32";
	o.off = kl_inst_offset(c->f, i);
	o.cc = kl_inst_cond(c->f, i);
	if (!int_inst(c, ind, i, &o) && !cast_inst(c, ind, i, &o) &&
	    !float_inst(c, ind, i, &o) && !memory_inst(c, ind, i, &o))
		emit_refuse(c, i, "opcode %s is not known here",
			    kl_op_name(op));
	/* kept for what it may do (a load or a division can trap) */
	if (rv.id != KL_NONE && emit_unused(c, rv))
		emit_line(c, ind, "(void)%s;", o.r);
}

static void
emit_call(fn_ctx *c, uint32_t ind, kl_inst i)
{
	const kl_module *m = c->e->m;
	kl_buf callee = { 0 }, args = { 0 };
	sig_text st = { 0 };
	kl_signature sig;
	uint32_t first = 0, n = UINT32_MAX;
	if (kl_inst_opcode(c->f, i) == KL_OP_CALL) {
		kl_sym s = kl_inst_callee(c->f, i);
		sig = kl_sym_signature(m, s);
		if (emit_is_builtin(m, s, "abort")) {
			emit_line(c, ind,
				  "rt_trap(%u, \"abort: the program called "
				  "abort()\");",
				  emit_site(c, i));
			return;
		}
		/* only printf reads extra arguments: a function of the
		 * module ignores them, a declared one fails when called */
		if (!emit_is_builtin(m, s, "printf"))
			n = sig.num_params;
		emit_sym_ident(m, s, &callee);
		emit_sig(c->e, sig, &st, false, 0);
	} else {
		sig = kl_func_sigref_signature(c->f, kl_inst_sigref(c->f, i));
		if (sig.variadic)
			emit_refuse(c, i,
				    "call_indirect through a variadic "
				    "signature");
		emit_sig(c->e, sig, &st, false, 0);
		emit_line(c, ind, "rt_check_call(%s, \"%s\", %u);",
			  emit_arg(c, i, 0), st.check.data, emit_site(c, i));
		kl_buf_printf(&callee, "((%s (*)(%s))(uintptr_t)%s)",
			      st.ret.data, st.params.data, emit_arg(c, i, 0));
		first = 1;
	}
	emit_call_args(c, i, first, n, &args);
	uint32_t nres = kl_inst_num_results(c->f, i), used = 0;
	for (uint32_t k = 0; k < nres; k++)
		used += !emit_unused(c, kl_inst_result(c->f, i, k));
	const char *a = args.data ? args.data : "";
	if (used == 0) {
		emit_line(c, ind, "%s(%s);", callee.data, a);
	} else if (nres == 1) {
		emit_line(c, ind, "%s = %s(%s);",
			  emit_val(c, kl_inst_result(c->f, i, 0)), callee.data,
			  a);
	} else {
		emit_line(c, ind, "{");
		emit_line(c, ind + 1, "%s r = %s(%s);", st.ret.data,
			  callee.data, a);
		for (uint32_t k = 0; k < nres; k++)
			if (!emit_unused(c, kl_inst_result(c->f, i, k)))
				emit_line(
					c, ind + 1, "%s = r.r%u;",
					emit_val(c, kl_inst_result(c->f, i, k)),
					k);
		emit_line(c, ind, "}");
	}
	kl_buf_free(&callee);
	kl_buf_free(&args);
	emit_sig_free(&st);
}
