/*
 * qbe_build_inst.c -- one QBE instruction as keel instructions, at the
 * end of the block being built.
 *
 * Operands: QBE constants are 64-bit blobs whose low bits a context
 * takes, so an integer becomes an iconst of the operand's type (its low
 * 32 bits for a word; its bits for a float, as QBE reads `d_0, -4616...`
 * alike). `s_`/`d_` constants fill their own width only. A long
 * temporary read as a word is its low 32 bits (QBE's subtyping: an
 * ireduce); a word where a long is wanted is an error, as in QBE. A
 * `$name` is its address (symbol_addr), an `l`.
 *
 * The semantics are matched to docs/ir.md's, case by case:
 *   - comparisons give keel an i8 0 or 1: uextend to the w or l result;
 *   - shifts: QBE takes the amount modulo the width, and so do keel's
 *     ishl/ushr/sshr (the amount any integer type, read unsigned), so a
 *     word amount is passed as it is;
 *   - extsh/extsb and friends extend the low bits of a word: ireduce to
 *     i16/i8, then extend;
 *   - loads narrower than their result extend (sload/uload), `loadw`
 *     being QBE's sugar for `loadsw`;
 *   - blit copies a constant count of bytes with 8, 4, 2 and 1 byte
 *     loads and stores (QBE: non-overlapping or identical spans, so the
 *     order does not matter).
 * Where QBE leaves a result undefined (division by zero, the minimum
 * integer divided by -1, a float out of an integer's range) keel traps.
 */
#include <string.h>

#include "qbe.h"

static kl_value
temp_operand(qbe_fb *fb, const qbe_val *v, uint8_t ty)
{
	const qbe_temp *t = &fb->u->temps[fb->fn->temp0 + v->id];
	kl_value x = kl_vars_use(fb->vs, fb->vars[v->id], fb->blk);
	if (t->ty == ty)
		return x;
	if (t->ty == QTY_L && ty == QTY_W)
		return kl_build_unary(&fb->b, KL_OP_IREDUCE, KL_TYPE_I32, x);
	qbe_fb_error(fb, v->pos, "%%%.*s is %s, but %s %s is wanted here%s",
		     (int)t->len, t->name, qbe_type_name(t->ty),
		     ty == QTY_L ? "an" : "a", qbe_type_name(ty),
		     t->ty == QTY_W && ty == QTY_L
			     ? " (extend it: extsw or extuw)"
			     : "");
	return KL_NO_VALUE;
}

kl_value
qbe_operand(qbe_fb *fb, const qbe_val *v, uint8_t ty)
{
	kl_builder *b = &fb->b;
	switch (v->kind) {
	case QV_TEMP:
		return temp_operand(fb, v, ty);
	case QV_INT:
		if (ty == QTY_S)
			return kl_build_f32const(b, (uint32_t)v->bits);
		if (ty == QTY_D)
			return kl_build_f64const(b, v->bits);
		/* a word takes the low 32 bits of the 64-bit blob */
		return kl_build_iconst(b, qbe_keel_type(ty),
				       kl_sign_narrow((int64_t)v->bits,
						      ty == QTY_W ? 32 : 64));
	case QV_SINGLE:
		if (ty == QTY_S)
			return kl_build_f32const(b, (uint32_t)v->bits);
		if (ty == QTY_W)
			return kl_build_iconst(b, KL_TYPE_I32,
					       (int32_t)(uint32_t)v->bits);
		break;
	case QV_DOUBLE:
		if (ty == QTY_D)
			return kl_build_f64const(b, v->bits);
		if (ty == QTY_L)
			return kl_build_iconst(b, KL_TYPE_I64,
					       (int64_t)v->bits);
		break;
	case QV_GLOBAL: {
		const qbe_global *gl = &fb->u->globals[v->id];
		if (ty != QTY_L && ty != QTY_W) {
			qbe_fb_error(fb, v->pos, "$%.*s is an address, but %s "
				     "%s is wanted here", (int)gl->len,
				     gl->name, "a", qbe_type_name(ty));
			return KL_NO_VALUE;
		}
		kl_value a = kl_build_symbol_addr(b, gl->sym);
		return ty == QTY_L ? a
				   : kl_build_unary(b, KL_OP_IREDUCE,
						    KL_TYPE_I32, a);
	}
	default:
		break;
	}
	qbe_fb_error(fb, v->pos, "%s constant where %s %s is wanted (a float "
		     "constant stands for a value of its own width)",
		     v->kind == QV_SINGLE ? "an s_" : "a d_",
		     ty == QTY_L ? "an" : "a", qbe_type_name(ty));
	return KL_NO_VALUE;
}

static const qbe_val *
arg(const qbe_fb *fb, const qbe_ins *in, uint32_t k)
{
	return &fb->u->args[in->arg0 + k].v;
}

static bool
is_float(uint8_t ty)
{
	return ty == QTY_S || ty == QTY_D;
}

static kl_value
build_ext(qbe_fb *fb, const qbe_ins *in)
{
	const qbe_opdef *op = in->op;
	kl_value x = qbe_operand(fb, arg(fb, in, 0), QTY_W);
	if (x.id == KL_NONE)
		return x;
	if (op->width < 4)
		x = kl_build_unary(&fb->b, KL_OP_IREDUCE,
				   op->width == 2 ? KL_TYPE_I16 : KL_TYPE_I8,
				   x);
	else if (in->ret == QTY_W)
		return x;
	return kl_build_unary(&fb->b, op->sign ? KL_OP_SEXTEND
					       : KL_OP_UEXTEND,
			      qbe_keel_type(in->ret), x);
}

static kl_value
build_load(qbe_fb *fb, const qbe_ins *in)
{
	static const kl_opcode narrow[2][3] = {
		{ KL_OP_ULOAD8, KL_OP_ULOAD16, KL_OP_ULOAD32 },
		{ KL_OP_SLOAD8, KL_OP_SLOAD16, KL_OP_SLOAD32 },
	};
	const qbe_opdef *op = in->op;
	kl_value p = qbe_operand(fb, arg(fb, in, 0), QTY_L);
	if (p.id == KL_NONE)
		return p;
	kl_opcode o = KL_OP_LOAD;
	unsigned bits = op->width * 8;
	if (!is_float(in->ret) && bits < (in->ret == QTY_W ? 32u : 64u))
		o = narrow[op->sign][op->width == 1 ? 0
				      : op->width == 2 ? 1 : 2];
	return kl_build_load(&fb->b, o, qbe_keel_type(in->ret), p, 0);
}

static kl_value
build_alloc(qbe_fb *fb, const qbe_ins *in)
{
	const qbe_val *size = arg(fb, in, 0);
	if (size->kind == QV_INT && size->bits >= 1 &&
	    size->bits <= UINT32_MAX)
		return kl_build_alloca(&fb->b, (uint32_t)size->bits,
				       in->op->width);
	/* a size known only when it runs (or none keel's alloca takes) */
	kl_value n = qbe_operand(fb, size, QTY_L);
	if (n.id == KL_NONE)
		return n;
	return kl_build_alloca_dyn(&fb->b, n, in->op->width);
}

bool
qbe_copy_fits(qbe_fb *fb, uint64_t n, qbe_pos pos)
{
	if (n <= QBE_MAX_BLIT)
		return true;
	qbe_fb_error(fb, pos, "an aggregate of %llu bytes by value: keel "
		     "copies it with loads and stores, at most %u bytes (pass "
		     "its address instead)", (unsigned long long)n,
		     QBE_MAX_BLIT);
	return false;
}

bool
qbe_copy_bytes(qbe_fb *fb, kl_value src, kl_value dst, uint64_t n,
	       qbe_pos pos)
{
	if (!qbe_copy_fits(fb, n, pos))
		return false;
	fb->u->blit_bytes += n;
	if (fb->u->blit_bytes > QBE_MAX_BLIT_TOTAL) {
		qbe_fb_error(fb, pos, "the file's blits and copies of "
			     "aggregates copy more than %u bytes in all, "
			     "which keel unrolls (call memcpy for big "
			     "copies)", QBE_MAX_BLIT_TOTAL);
		return false;
	}
	static const struct {
		unsigned size;
		kl_type t;
		kl_opcode load, store;
	} chunk[] = {
		{ 8, KL_TYPE_I64, KL_OP_LOAD, KL_OP_STORE },
		{ 4, KL_TYPE_I32, KL_OP_LOAD, KL_OP_STORE },
		{ 2, KL_TYPE_I32, KL_OP_ULOAD16, KL_OP_ISTORE16 },
		{ 1, KL_TYPE_I32, KL_OP_ULOAD8, KL_OP_ISTORE8 },
	};
	uint32_t off = 0;
	for (size_t c = 0; c < sizeof chunk / sizeof chunk[0]; c++)
		for (; n - off >= chunk[c].size; off += chunk[c].size) {
			kl_value v = kl_build_load(&fb->b, chunk[c].load,
						   chunk[c].t, src,
						   (int32_t)off);
			kl_build_store(&fb->b, chunk[c].store, v, dst,
				       (int32_t)off);
		}
	return true;
}

/* vastart %ap: the va_list at %ap (memory the front end gave, of its
 * target's size, at least 8 bytes) holds the address of the next
 * variadic argument; they are 8 bytes apart (qbe_build_call.c). */
static bool
build_vastart(qbe_fb *fb, const qbe_ins *in)
{
	if (!fb->fn->variadic) {
		const qbe_global *gl = &fb->u->globals[fb->fn->global];
		qbe_fb_error(fb, in->pos, "vastart in $%.*s, which is not "
			     "variadic (its parameters end without '...')",
			     (int)gl->len, gl->name);
		return false;
	}
	kl_value ap = qbe_operand(fb, arg(fb, in, 0), QTY_L);
	if (ap.id == KL_NONE)
		return false;
	kl_build_store(&fb->b, KL_OP_STORE, fb->va, ap, 0);
	return true;
}

/* %x =T vaarg %ap: the argument the va_list points at, and the va_list
 * moved on to the next. */
static kl_value
build_vaarg(qbe_fb *fb, const qbe_ins *in)
{
	kl_value ap = qbe_operand(fb, arg(fb, in, 0), QTY_L);
	if (ap.id == KL_NONE)
		return ap;
	kl_value at = kl_build_load(&fb->b, KL_OP_LOAD, KL_TYPE_I64, ap, 0);
	kl_value x = kl_build_load(&fb->b, KL_OP_LOAD, qbe_keel_type(in->ret),
				   at, 0);
	kl_build_store(&fb->b, KL_OP_STORE,
		       kl_build_binary_imm(&fb->b, KL_OP_IADD_IMM, at, 8), ap,
		       0);
	return x;
}

static bool
build_blit(qbe_fb *fb, const qbe_ins *in)
{
	const qbe_val *count = arg(fb, in, 2);
	if (count->kind != QV_INT || count->bits > QBE_MAX_BLIT) {
		qbe_fb_error(fb, count->pos, "blit needs a constant count of "
			     "bytes, at most %u (call memcpy for more)",
			     QBE_MAX_BLIT);
		return false;
	}
	kl_value src = qbe_operand(fb, arg(fb, in, 0), QTY_L);
	kl_value dst = qbe_operand(fb, arg(fb, in, 1), QTY_L);
	if (src.id == KL_NONE || dst.id == KL_NONE)
		return false;
	return qbe_copy_bytes(fb, src, dst, count->bits, count->pos);
}

static kl_value
build_cmp(qbe_fb *fb, const qbe_ins *in)
{
	kl_value x = qbe_operand(fb, arg(fb, in, 0), in->cty);
	kl_value y = qbe_operand(fb, arg(fb, in, 1), in->cty);
	if (x.id == KL_NONE || y.id == KL_NONE)
		return KL_NO_VALUE;
	kl_value c = is_float(in->cty)
			     ? kl_build_fcmp(&fb->b, (kl_floatcc)in->cc, x, y)
			     : kl_build_icmp(&fb->b, (kl_intcc)in->cc, x, y);
	return kl_build_unary(&fb->b, KL_OP_UEXTEND, qbe_keel_type(in->ret),
			      c);
}

static kl_value
build_binary(qbe_fb *fb, const qbe_ins *in, uint8_t yty)
{
	kl_value x = qbe_operand(fb, arg(fb, in, 0), in->ret);
	kl_value y = qbe_operand(fb, arg(fb, in, 1), yty);
	if (x.id == KL_NONE || y.id == KL_NONE)
		return KL_NO_VALUE;
	return kl_build_binary(&fb->b, is_float(in->ret) ? in->op->fop
							 : in->op->iop,
			       x, y);
}

/* The one-operand instructions: operand type aty, then op. */
static kl_value
build_unary(qbe_fb *fb, const qbe_ins *in, uint8_t aty, kl_opcode op)
{
	kl_value x = qbe_operand(fb, arg(fb, in, 0), aty);
	if (x.id == KL_NONE || op == KL_OP_COUNT)
		return x;
	return kl_build_unary(&fb->b, op, qbe_keel_type(in->ret), x);
}

/* cast: the same bits, integer <-> float of one width */
static uint8_t
cast_from(uint8_t ty)
{
	return ty == QTY_W ? QTY_S : ty == QTY_S ? QTY_W
		       : ty == QTY_L ? QTY_D : QTY_L;
}

bool
qbe_build_inst(qbe_fb *fb, const qbe_ins *in)
{
	const qbe_opdef *op = in->op;
	kl_value v = KL_NO_VALUE;
	switch (op->kind) {
	case QK_ARITH: v = build_binary(fb, in, in->ret); break;
	case QK_SHIFT: v = build_binary(fb, in, QTY_W); break;
	case QK_NEG:
		v = build_unary(fb, in, in->ret,
				is_float(in->ret) ? op->fop : op->iop);
		break;
	case QK_EXT: v = build_ext(fb, in); break;
	case QK_CONV: v = build_unary(fb, in, op->aty, op->iop); break;
	case QK_CAST:
		v = build_unary(fb, in, cast_from(in->ret), op->iop);
		break;
	case QK_COPY: v = build_unary(fb, in, in->ret, KL_OP_COUNT); break;
	case QK_LOAD: v = build_load(fb, in); break;
	case QK_ALLOC: v = build_alloc(fb, in); break;
	case QK_CMP: v = build_cmp(fb, in); break;
	case QK_CALL:
		if (!qbe_build_call(fb, in, &v))
			return false;
		break;
	case QK_BLIT: return build_blit(fb, in);
	case QK_VASTART: return build_vastart(fb, in);
	case QK_VAARG: v = build_vaarg(fb, in); break;
	case QK_STORE: {
		kl_value x = qbe_operand(fb, arg(fb, in, 0), op->aty);
		kl_value p = qbe_operand(fb, arg(fb, in, 1), QTY_L);
		if (x.id == KL_NONE || p.id == KL_NONE)
			return false;
		kl_build_store(&fb->b, op->iop, x, p, 0);
		return true;
	}
	default:
		qbe_fb_error(fb, in->pos, "%s cannot be translated", op->name);
		return false;
	}
	if (in->dest == KL_NONE)
		return true;
	if (v.id == KL_NONE)
		return false;
	return kl_vars_def(fb->vs, fb->vars[in->dest], fb->blk, v) == KL_OK;
}
