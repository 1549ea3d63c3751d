/*
 * opcodes.c -- the opcode info table and every query derived from it.
 *
 * The table is built by including keel_opcodes.def once; no other file
 * lists opcodes by hand. Condition-code and trap-code spellings live here
 * too, as they are part of the instruction set's vocabulary.
 */
#include "ir.h"

const kl_opinfo kl_op_table[KL_OP_COUNT] = {
#define KL_OPCODE(name, text, fmt, nres, typing, ctrl, memw, flags)          \
	[KL_OP_##name] = { text, KL_FMT_##fmt, nres, KL_TY_##typing,         \
			   KL_CTRL_##ctrl, memw, flags },
#include "keel_opcodes.def"
#undef KL_OPCODE
};

const kl_opinfo *
kl_op_info(kl_opcode op)
{
	/* as kl_op_name and kl_op_is_* take any number: NULL, not abort */
	return (unsigned)op < KL_OP_COUNT ? &kl_op_table[op] : NULL;
}

const char *
kl_op_name(kl_opcode op)
{
	return (unsigned)op < KL_OP_COUNT ? kl_op_table[op].name : "?";
}

kl_opcode
kl_op_lookup(const char *name, size_t len)
{
	/* (a scan: the parser keeps its own hash of the names, for speed;
	 * a caller asks about a name at a time) */
	for (unsigned op = 0; op < KL_OP_COUNT; op++) {
		const char *n = kl_op_table[op].name;
		if (strlen(n) == len && memcmp(n, name, len) == 0)
			return (kl_opcode)op;
	}
	return KL_OP_COUNT;
}

static bool
has_flag(kl_opcode op, unsigned flag)
{
	return (unsigned)op < KL_OP_COUNT && (kl_op_table[op].flags & flag);
}

bool
kl_op_is_terminator(kl_opcode op)
{
	return has_flag(op, KL_OPF_TERMINATOR);
}

bool
kl_op_is_branch(kl_opcode op)
{
	return has_flag(op, KL_OPF_BRANCH);
}

bool
kl_op_is_call(kl_opcode op)
{
	return has_flag(op, KL_OPF_CALL);
}

bool
kl_op_is_return(kl_opcode op)
{
	return has_flag(op, KL_OPF_RETURN);
}

bool
kl_op_can_trap(kl_opcode op)
{
	return has_flag(op, KL_OPF_CAN_TRAP);
}

bool
kl_op_can_load(kl_opcode op)
{
	return has_flag(op, KL_OPF_CAN_LOAD);
}

bool
kl_op_can_store(kl_opcode op)
{
	return has_flag(op, KL_OPF_CAN_STORE);
}

bool
kl_op_has_side_effects(kl_opcode op)
{
	return has_flag(op, KL_OPF_SIDE_EFFECTS);
}

bool
kl_op_is_pure(kl_opcode op)
{
	return has_flag(op, KL_OPF_PURE);
}

const char *const kl_intcc_names[KL_ICC_COUNT] = {
	"eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge",
};

const char *const kl_floatcc_names[KL_FCC_COUNT] = {
	"eq", "ne", "lt", "le", "gt", "ge", "ord", "uno",
};

const char *const kl_trap_names[KL_TRAP_COUNT] = {
	"unreachable", "int_divz", "int_ovf", "heap_oob", "user",
};

const char *
kl_intcc_name(kl_intcc cc)
{
	return (unsigned)cc < KL_ICC_COUNT ? kl_intcc_names[cc] : "?";
}

kl_intcc
intcc_swapped(kl_intcc cc)
{
	static const kl_intcc swapped[KL_ICC_COUNT] = {
		[KL_ICC_EQ] = KL_ICC_EQ, [KL_ICC_NE] = KL_ICC_NE,
		[KL_ICC_SLT] = KL_ICC_SGT, [KL_ICC_SGT] = KL_ICC_SLT,
		[KL_ICC_SLE] = KL_ICC_SGE, [KL_ICC_SGE] = KL_ICC_SLE,
		[KL_ICC_ULT] = KL_ICC_UGT, [KL_ICC_UGT] = KL_ICC_ULT,
		[KL_ICC_ULE] = KL_ICC_UGE, [KL_ICC_UGE] = KL_ICC_ULE,
	};
	return swapped[cc];
}

kl_intcc
intcc_inverse(kl_intcc cc)
{
	static const kl_intcc inverse[KL_ICC_COUNT] = {
		[KL_ICC_EQ] = KL_ICC_NE, [KL_ICC_NE] = KL_ICC_EQ,
		[KL_ICC_SLT] = KL_ICC_SGE, [KL_ICC_SGE] = KL_ICC_SLT,
		[KL_ICC_SLE] = KL_ICC_SGT, [KL_ICC_SGT] = KL_ICC_SLE,
		[KL_ICC_ULT] = KL_ICC_UGE, [KL_ICC_UGE] = KL_ICC_ULT,
		[KL_ICC_ULE] = KL_ICC_UGT, [KL_ICC_UGT] = KL_ICC_ULE,
	};
	return inverse[cc];
}

const char *
kl_floatcc_name(kl_floatcc cc)
{
	return (unsigned)cc < KL_FCC_COUNT ? kl_floatcc_names[cc] : "?";
}

const char *
kl_trapcode_name(kl_trapcode t)
{
	return (unsigned)t < KL_TRAP_COUNT ? kl_trap_names[t] : "?";
}

const char *
kl_status_name(kl_status s)
{
	switch (s) {
	case KL_OK: return "ok";
	case KL_ERR_INVALID: return "invalid entity";
	case KL_ERR_FORMAT: return "wrong instruction format";
	case KL_ERR_EXISTS: return "name already defined";
	case KL_ERR_POSITION: return "no insertion point";
	case KL_ERR_RANGE: return "number out of range";
	case KL_ERR_PARSE: return "parse error";
	case KL_ERR_VERIFY: return "verifier error";
	case KL_ERR_UNSUPPORTED: return "not supported";
	}
	return "?";
}
