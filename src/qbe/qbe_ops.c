/*
 * qbe_ops.c -- QBE's instructions, one row each: what results they may
 * define, what their operands are, and the keel opcode they become.
 *
 * The facts are QBE's IL reference (c9x.me/compile/doc/il.html,
 * "Instructions"), its type strings read as follows: `T(T,T)` is a
 * result of any base type with operands of that type (aty QTY_NONE),
 * `I(I,ww)` an integer result shifted by a word, `l(w)` a long made from
 * a word (aty QTY_W). Comparisons are named by three parts (c, the
 * condition, the operands' type), so they are read by qbe_cmp_parse
 * rather than listed sixty times. Everything the builder does with a row
 * is in qbe_build_inst.c; docs/qbe.md has the table as prose.
 */
#include <string.h>

#include "qbe.h"

#define W QTY_BIT(QTY_W)
#define L QTY_BIT(QTY_L)
#define S QTY_BIT(QTY_S)
#define D QTY_BIT(QTY_D)
#define NO KL_OP_COUNT

static const qbe_opdef ops[] = {
	/* name, kind, results, operand, width, sign, int op, float op */
	{ "add", QK_ARITH, QTY_ALL, 0, 0, 0, KL_OP_IADD, KL_OP_FADD },
	{ "sub", QK_ARITH, QTY_ALL, 0, 0, 0, KL_OP_ISUB, KL_OP_FSUB },
	{ "mul", QK_ARITH, QTY_ALL, 0, 0, 0, KL_OP_IMUL, KL_OP_FMUL },
	{ "div", QK_ARITH, QTY_ALL, 0, 0, 0, KL_OP_SDIV, KL_OP_FDIV },
	{ "udiv", QK_ARITH, QTY_WL, 0, 0, 0, KL_OP_UDIV, NO },
	{ "rem", QK_ARITH, QTY_WL, 0, 0, 0, KL_OP_SREM, NO },
	{ "urem", QK_ARITH, QTY_WL, 0, 0, 0, KL_OP_UREM, NO },
	{ "or", QK_ARITH, QTY_WL, 0, 0, 0, KL_OP_BOR, NO },
	{ "xor", QK_ARITH, QTY_WL, 0, 0, 0, KL_OP_BXOR, NO },
	{ "and", QK_ARITH, QTY_WL, 0, 0, 0, KL_OP_BAND, NO },
	{ "neg", QK_NEG, QTY_ALL, 0, 0, 0, KL_OP_INEG, KL_OP_FNEG },
	{ "sar", QK_SHIFT, QTY_WL, QTY_W, 0, 0, KL_OP_SSHR, NO },
	{ "shr", QK_SHIFT, QTY_WL, QTY_W, 0, 0, KL_OP_USHR, NO },
	{ "shl", QK_SHIFT, QTY_WL, QTY_W, 0, 0, KL_OP_ISHL, NO },
	{ "extsw", QK_EXT, L, QTY_W, 4, 1, NO, NO },
	{ "extuw", QK_EXT, L, QTY_W, 4, 0, NO, NO },
	{ "extsh", QK_EXT, QTY_WL, QTY_W, 2, 1, NO, NO },
	{ "extuh", QK_EXT, QTY_WL, QTY_W, 2, 0, NO, NO },
	{ "extsb", QK_EXT, QTY_WL, QTY_W, 1, 1, NO, NO },
	{ "extub", QK_EXT, QTY_WL, QTY_W, 1, 0, NO, NO },
	{ "exts", QK_CONV, D, QTY_S, 0, 0, KL_OP_FPROMOTE, NO },
	{ "truncd", QK_CONV, S, QTY_D, 0, 0, KL_OP_FDEMOTE, NO },
	{ "stosi", QK_CONV, QTY_WL, QTY_S, 0, 0, KL_OP_FCVT_TO_SINT, NO },
	{ "stoui", QK_CONV, QTY_WL, QTY_S, 0, 0, KL_OP_FCVT_TO_UINT, NO },
	{ "dtosi", QK_CONV, QTY_WL, QTY_D, 0, 0, KL_OP_FCVT_TO_SINT, NO },
	{ "dtoui", QK_CONV, QTY_WL, QTY_D, 0, 0, KL_OP_FCVT_TO_UINT, NO },
	{ "swtof", QK_CONV, QTY_SD, QTY_W, 0, 0, KL_OP_FCVT_FROM_SINT, NO },
	{ "uwtof", QK_CONV, QTY_SD, QTY_W, 0, 0, KL_OP_FCVT_FROM_UINT, NO },
	{ "sltof", QK_CONV, QTY_SD, QTY_L, 0, 0, KL_OP_FCVT_FROM_SINT, NO },
	{ "ultof", QK_CONV, QTY_SD, QTY_L, 0, 0, KL_OP_FCVT_FROM_UINT, NO },
	{ "cast", QK_CAST, QTY_ALL, 0, 0, 0, KL_OP_BITCAST, NO },
	{ "copy", QK_COPY, QTY_ALL, 0, 0, 0, NO, NO },
	{ "stored", QK_STORE, 0, QTY_D, 8, 0, KL_OP_STORE, NO },
	{ "stores", QK_STORE, 0, QTY_S, 4, 0, KL_OP_STORE, NO },
	{ "storel", QK_STORE, 0, QTY_L, 8, 0, KL_OP_STORE, NO },
	{ "storew", QK_STORE, 0, QTY_W, 4, 0, KL_OP_STORE, NO },
	{ "storeh", QK_STORE, 0, QTY_W, 2, 0, KL_OP_ISTORE16, NO },
	{ "storeb", QK_STORE, 0, QTY_W, 1, 0, KL_OP_ISTORE8, NO },
	{ "loadd", QK_LOAD, D, QTY_L, 8, 0, NO, NO },
	{ "loads", QK_LOAD, S, QTY_L, 4, 0, NO, NO },
	{ "loadl", QK_LOAD, L, QTY_L, 8, 0, NO, NO },
	{ "loadw", QK_LOAD, QTY_WL, QTY_L, 4, 1, NO, NO },
	{ "loadsw", QK_LOAD, QTY_WL, QTY_L, 4, 1, NO, NO },
	{ "loaduw", QK_LOAD, QTY_WL, QTY_L, 4, 0, NO, NO },
	{ "loadsh", QK_LOAD, QTY_WL, QTY_L, 2, 1, NO, NO },
	{ "loaduh", QK_LOAD, QTY_WL, QTY_L, 2, 0, NO, NO },
	{ "loadsb", QK_LOAD, QTY_WL, QTY_L, 1, 1, NO, NO },
	{ "loadub", QK_LOAD, QTY_WL, QTY_L, 1, 0, NO, NO },
	{ "alloc4", QK_ALLOC, L, QTY_L, 4, 0, NO, NO },
	{ "alloc8", QK_ALLOC, L, QTY_L, 8, 0, NO, NO },
	{ "alloc16", QK_ALLOC, L, QTY_L, 16, 0, NO, NO },
	{ "blit", QK_BLIT, 0, QTY_L, 0, 0, NO, NO },
	{ "vastart", QK_VASTART, 0, QTY_L, 0, 0, NO, NO },
	{ "vaarg", QK_VAARG, QTY_ALL, QTY_L, 0, 0, NO, NO },
};

const qbe_opdef qbe_op_cmp = { "comparison", QK_CMP, QTY_WL, 0, 0, 0,
			       NO, NO };
const qbe_opdef qbe_op_call = { "call", QK_CALL, QTY_ALL, 0, 0, 0,
				NO, NO };
const qbe_opdef qbe_op_phi = { "phi", QK_PHI, QTY_ALL, 0, 0, 0, NO, NO };

const qbe_opdef *
qbe_op_lookup(const char *s, uint32_t len)
{
	for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
		if (strlen(ops[i].name) == len &&
		    memcmp(ops[i].name, s, len) == 0)
			return &ops[i];
	return NULL;
}

/* The conditions in the order of kl_intcc and kl_floatcc. */
static const char *const int_conds[KL_ICC_COUNT] = {
	"eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"
};
static const char *const float_conds[KL_FCC_COUNT] = {
	"eq", "ne", "lt", "le", "gt", "ge", "o", "uo"
};

bool
qbe_cmp_parse(const char *s, uint32_t len, uint8_t *ty, uint8_t *cc)
{
	if (len < 3 || s[0] != 'c')
		return false;
	switch (s[len - 1]) {
	case 'w': *ty = QTY_W; break;
	case 'l': *ty = QTY_L; break;
	case 's': *ty = QTY_S; break;
	case 'd': *ty = QTY_D; break;
	default: return false;
	}
	bool is_int = *ty == QTY_W || *ty == QTY_L;
	const char *const *names = is_int ? int_conds : float_conds;
	unsigned n = is_int ? KL_ICC_COUNT : KL_FCC_COUNT;
	for (unsigned i = 0; i < n; i++)
		if (strlen(names[i]) == len - 2 &&
		    memcmp(names[i], s + 1, len - 2) == 0) {
			*cc = (uint8_t)i;
			return true;
		}
	return false;
}

kl_type
qbe_keel_type(uint8_t ty)
{
	switch (ty) {
	case QTY_W: return KL_TYPE_I32;
	case QTY_L: return KL_TYPE_I64;
	case QTY_S: return KL_TYPE_F32;
	case QTY_D: return KL_TYPE_F64;
	case QTY_B: return KL_TYPE_I8;
	case QTY_H: return KL_TYPE_I16;
	default: return KL_TYPE_NONE;
	}
}

const char *
qbe_type_name(uint8_t ty)
{
	static const char *const names[] = { "no type", "w", "l", "s", "d",
					     "b", "h", "z" };
	return ty < sizeof names / sizeof names[0] ? names[ty] : "?";
}
