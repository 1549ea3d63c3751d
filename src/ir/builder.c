/*
 * builder.c -- the public API for creating IR: blocks, parameters, aliases,
 * signature references and every instruction.
 *
 * The builder checks what it must to keep the IR well-formed as a data
 * structure: entities exist, the opcode belongs to the builder function's
 * format, the insertion point is placed. Whether the types make sense is
 * the verifier's question, asked once over the whole function. Errors are
 * sticky (like a stream's error flag) so a front end can build a whole
 * function and check once.
 */
#include <string.h>

#include "ir.h"

/* ---- blocks, parameters, aliases, sigrefs ---- */

kl_block
kl_func_new_block(kl_func *f)
{
	func_edited(f);
	return (kl_block){ func_new_block_id(f) };
}

static bool
block_exists(const kl_func *f, kl_block b)
{
	return b.id < f->nblocks && (f->blocks[b.id].flags & BLOCK_EXISTS);
}

/* (none, or a number that is no block, is not in the layout either) */
static bool
block_placed(const kl_func *f, kl_block b)
{
	return block_exists(f, b) && (f->blocks[b.id].flags & BLOCK_PLACED);
}

kl_status
kl_func_append_block(kl_func *f, kl_block b)
{
	func_edited(f);
	if (!block_exists(f, b) || (f->blocks[b.id].flags & BLOCK_PLACED))
		return KL_ERR_INVALID;
	layout_append_block(f, b.id);
	return KL_OK;
}

kl_status
kl_func_remove_block(kl_func *f, kl_block b)
{
	func_edited(f);
	if (!block_placed(f, b) || b.id == f->first_block)
		return KL_ERR_INVALID;
	/* Its instructions leave the layout with it, one by one, so that
	 * "placed" keeps one meaning: in a placed block's list. */
	for (uint32_t i = f->blocks[b.id].first; i != KL_NONE;) {
		uint32_t next = f->nodes[i].next;
		layout_remove_inst(f, i);
		i = next;
	}
	layout_remove_block(f, b.id);
	return KL_OK;
}

kl_status
kl_func_insert_block_after(kl_func *f, kl_block b, kl_block after)
{
	func_edited(f);
	if (!block_exists(f, b) || (f->blocks[b.id].flags & BLOCK_PLACED))
		return KL_ERR_INVALID;
	/* (keel.h promises one answer for every `after` not in the layout) */
	if (!block_placed(f, after))
		return KL_ERR_POSITION;
	layout_insert_block_after(f, b.id, after.id);
	return KL_OK;
}

kl_status
kl_func_insert_block_before(kl_func *f, kl_block b, kl_block before)
{
	func_edited(f);
	if (!block_exists(f, b) || (f->blocks[b.id].flags & BLOCK_PLACED))
		return KL_ERR_INVALID;
	if (!block_placed(f, before))
		return KL_ERR_POSITION;
	layout_insert_block_before(f, b.id, before.id);
	return KL_OK;
}

kl_status
kl_func_move_block(kl_func *f, kl_block b, kl_block before)
{
	func_edited(f);
	if (!block_placed(f, b))
		return KL_ERR_INVALID;
	if (before.id != KL_NONE && !block_placed(f, before))
		return KL_ERR_POSITION;
	if (b.id == before.id)
		return KL_OK;
	/* The block alone leaves the layout for a moment: its instructions
	 * stay in its list, placed again with it. */
	layout_remove_block(f, b.id);
	if (before.id == KL_NONE)
		layout_append_block(f, b.id);
	else
		layout_insert_block_before(f, b.id, before.id);
	return KL_OK;
}

kl_block
kl_func_make_entry(kl_func *f)
{
	kl_block b = kl_func_new_block(f);
	if (f->first_block == KL_NONE)
		layout_append_block(f, b.id);
	else
		layout_insert_block_before(f, b.id, f->first_block);
	/* The signature's types are the module's: each parameter is made. */
	kl_signature sig = module_sig(f->module, f->sig);
	for (uint32_t k = 0; k < sig.num_params; k++)
		kl_block_append_param(f, b, sig.params[k]);
	return b;
}

kl_value
kl_block_append_param(kl_func *f, kl_block b, kl_type t)
{
	func_edited(f);
	if (!block_exists(f, b) ||
	    kl_type_class(f->module, t) == KL_TYPE_NONE ||
	    list_len(&f->pool, f->blocks[b.id].params) >= LIST_MAX_LEN)
		return KL_NO_VALUE;
	uint32_t v = func_new_value(f);
	value_define(f, v, VK_PARAM, t, b.id);
	list_push(&f->pool, &f->blocks[b.id].params, v);
	return (kl_value){ v };
}

kl_status
kl_value_set_alias(kl_func *f, kl_value v, kl_value target)
{
	func_edited(f);
	if (v.id >= f->nvalues || target.id >= f->nvalues || v.id == target.id)
		return KL_ERR_INVALID;
	kl_value_data *d = &f->values[v.id];
	/* A result of a removed instruction may become an alias: that is
	 * how a pass replaces every use of a value by another. */
	bool removed = d->kind == VK_REMOVED ||
		       (d->kind == VK_RESULT && d->def < f->ninsts &&
			f->nodes[d->def].block == KL_NONE);
	if (d->kind != VK_UNUSED && d->kind != VK_ALIAS && !removed)
		return KL_ERR_INVALID;
	/* A cycle if the target's chain passes through v (v may be an
	 * alias already, on the way to the end), or has one of its own. */
	uint32_t r = target.id;
	for (uint32_t steps = 0; f->values[r].kind == VK_ALIAS; steps++) {
		if (r == v.id || steps > f->nvalues)
			return KL_ERR_INVALID;
		r = f->values[r].def;
		if (r >= f->nvalues)
			return KL_ERR_INVALID;
	}
	if (r == v.id)
		return KL_ERR_INVALID;
	/* Every use of v must keep its machine class: a value that has a
	 * type (a result, a removed parameter, an alias) may stand only for
	 * one of the same class. It takes the end's type, refined or not
	 * (docs/ir.md, "Refined types"), as the parser gives an alias.
	 * (Aliases leading to v have v's class; they keep their own types,
	 * which nothing reads: a use reads the end's.) */
	if (d->kind != VK_UNUSED &&
	    kl_type_class(f->module, value_type(f, v.id)) !=
		    kl_type_class(f->module, value_type(f, r)))
		return KL_ERR_INVALID;
	/* The end must be defined: a placed block's parameter or a placed
	 * instruction's result (an unplaced one's is what is replaced). */
	if (value_def_block(f, r) == KL_NONE)
		return KL_ERR_INVALID;
	value_define(f, v.id, VK_ALIAS, value_type(f, r), target.id);
	return KL_OK;
}

kl_sigref
kl_func_add_sigref(kl_func *f, const kl_signature *sig)
{
	func_edited(f);
	if (!module_sig_ok(f->module, sig))
		return (kl_sigref){ KL_NONE };
	uint32_t s = module_add_sig_of(f->module, sig);
	uint32_t cap = f->sigrefs_cap;
	func_grow_lined(f, TAB_SIGREFS, &f->sigrefs, TAB_SIGREF_LINES,
			&f->sigref_lines, &cap, sizeof *f->sigrefs,
			f->nsigrefs + 1);
	if (f->sigref_lines) /* a built sigref has no source line */
		f->sigref_lines[f->nsigrefs] = 0;
	f->sigrefs_cap = cap;
	f->sigrefs[f->nsigrefs] = s;
	return (kl_sigref){ f->nsigrefs++ };
}

/* ---- builder position and errors ---- */

void
kl_builder_init(kl_builder *b, kl_func *f)
{
	memset(b, 0, sizeof *b);
	b->func = f;
	b->block = KL_NO_BLOCK;
	b->before = KL_NO_INST;
	b->error_op = KL_OP_COUNT;
	b->error_value = KL_NO_VALUE;
}

void
kl_builder_at_end(kl_builder *b, kl_block blk)
{
	b->block = blk;
	b->before = KL_NO_INST;
}

void
kl_builder_before(kl_builder *b, kl_inst inst)
{
	b->before = inst;
	b->block = inst.id < b->func->ninsts
			   ? (kl_block){ b->func->nodes[inst.id].block }
			   : KL_NO_BLOCK;
}

kl_status
kl_builder_status(const kl_builder *b)
{
	return b->status;
}

static bool
fail(kl_builder *b, kl_status st, const char *why)
{
	if (b->status == KL_OK) {
		b->status = st;
		b->error = why;
	}
	return false;
}

/* A failure found before ready() is called: it names op too. */
static void
fail_op(kl_builder *b, kl_opcode op, kl_status st, const char *why)
{
	if (b->status == KL_OK)
		b->error_op = op;
	fail(b, st, why);
}

/* May the builder build (op) here? An error from here on names op. */
static bool
ready(kl_builder *b, kl_opcode op)
{
	if (b->status != KL_OK)
		return false;
	b->error_op = op;
	kl_func *f = b->func;
	if (b->before.id != KL_NONE) {
		if (b->before.id >= f->ninsts ||
		    f->nodes[b->before.id].block == KL_NONE)
			return fail(b, KL_ERR_POSITION,
				    "insertion point is not placed");
		return true;
	}
	if (!block_exists(f, b->block))
		return fail(b, KL_ERR_POSITION, "no block to append to");
	/* (an instruction in a block outside the layout would be in no
	 * listing, and the printed text would verify where the IR fails) */
	if (!(f->blocks[b->block.id].flags & BLOCK_PLACED))
		return fail(b, KL_ERR_POSITION, "the block is not in the "
			    "layout (kl_func_append_block)");
	return true;
}

static bool
check_value(kl_builder *b, kl_value v)
{
	kl_func *f = b->func;
	const char *why = NULL;
	if (v.id >= f->nvalues || f->values[v.id].kind == VK_UNUSED)
		why = "operand is not a value";
	/* (text can make a cycle; the verifier reports it, and a result's
	 * type cannot be read off one) */
	else if (f->values[v.id].kind == VK_ALIAS &&
		 value_resolve(f, v.id) == KL_NONE)
		why = "operand's alias chain has a cycle";
	if (!why)
		return true;
	if (b->status == KL_OK)
		b->error_value = v;
	return fail(b, KL_ERR_INVALID, why);
}

static bool
check_values(kl_builder *b, const kl_value *vals, uint32_t n)
{
	if (n && !vals)
		return fail(b, KL_ERR_INVALID, "missing operand array");
	/* (with a destination's block, or a table's default, one more) */
	if (n > LIST_MAX_LEN - 1)
		return fail(b, KL_ERR_RANGE, "more operands than one list "
			    "holds (2^27 - 3)");
	for (uint32_t i = 0; i < n; i++)
		if (!check_value(b, vals[i]))
			return false;
	return true;
}

static bool
check_format(kl_builder *b, kl_opcode op, kl_format fmt)
{
	if ((unsigned)op >= KL_OP_COUNT || kl_op_info(op)->format != fmt)
		return fail(b, KL_ERR_FORMAT,
			    "opcode does not belong to this builder call");
	return true;
}

/* Create the instruction and place it at the builder's position. Every
 * kl_build_* call that builds comes here: the one place they record the
 * change (func_edited). */
static uint32_t
emit(kl_builder *b, kl_opcode op)
{
	kl_func *f = b->func;
	func_edited(f);
	uint32_t i = func_new_inst(f, op);
	if (b->before.id != KL_NONE)
		layout_insert_inst_before(f, i, b->before.id);
	else
		layout_append_inst(f, i, b->block.id);
	return i;
}

/* Give instruction i a fresh result of type t in w0. */
static kl_value
add_result(kl_builder *b, uint32_t i, kl_type t)
{
	kl_func *f = b->func;
	uint32_t v = func_new_value(f);
	value_define(f, v, VK_RESULT, t, i);
	f->insts[i].w[0] = v;
	return (kl_value){ v };
}

static bool
check_type(kl_builder *b, kl_type t)
{
	if (t == KL_TYPE_NONE) /* sextend.T, iconst.T, load.T */
		return fail(b, KL_ERR_INVALID, "needs its result type, "
					       "KL_TYPE_NONE given");
	if (kl_type_class(b->func->module, t) == KL_TYPE_NONE)
		return fail(b, KL_ERR_INVALID, "not a type");
	return true;
}

/* Sign-extend an immediate that fits the width; leave others for the
 * verifier to report. */
static int64_t
normalize_imm(const kl_module *m, kl_type t, int64_t imm)
{
	uint32_t bits = kl_type_bytes(m, t) * 8;
	if (bits == 0 || bits >= 64 || !kl_int_fits(imm, bits))
		return imm;
	return kl_sign_narrow(imm, bits);
}

/* ---- instructions ---- */

kl_value
kl_build_iconst(kl_builder *b, kl_type t, int64_t imm)
{
	if (!ready(b, KL_OP_ICONST) || !check_type(b, t))
		return KL_NO_VALUE;
	uint32_t i = emit(b, KL_OP_ICONST);
	inst_set_imm(b->func, i, normalize_imm(b->func->module, t, imm));
	return add_result(b, i, t);
}

kl_value
kl_build_f32const(kl_builder *b, uint32_t bits)
{
	if (!ready(b, KL_OP_F32CONST))
		return KL_NO_VALUE;
	uint32_t i = emit(b, KL_OP_F32CONST);
	inst_set_imm(b->func, i, bits);
	return add_result(b, i, KL_TYPE_F32);
}

kl_value
kl_build_f64const(kl_builder *b, uint64_t bits)
{
	if (!ready(b, KL_OP_F64CONST))
		return KL_NO_VALUE;
	uint32_t i = emit(b, KL_OP_F64CONST);
	inst_set_imm(b->func, i, (int64_t)bits);
	return add_result(b, i, KL_TYPE_F64);
}

/* The result type of a one-result instruction with operands args. */
static kl_type
result_type(kl_builder *b, kl_opcode op, kl_type explicit_type,
	    const uint32_t *args)
{
	const kl_opinfo *info = kl_op_info(op);
	kl_func *f = b->func;
	switch (info->typing) {
	case KL_TY_INT_CMP:
	case KL_TY_INT_CMP_IMM:
	case KL_TY_FLOAT_CMP:
		return KL_TYPE_I8;
	case KL_TY_FPROMOTE:
		return KL_TYPE_F64;
	case KL_TY_FDEMOTE:
		return KL_TYPE_F32;
	case KL_TY_POINTER:
	case KL_TY_ALLOCA_DYN:
		return f->module->ptr_type;
	default:
		break;
	}
	switch (info->ctrl) {
	case KL_CTRL_EXPLICIT:
		return explicit_type;
	case KL_CTRL_ARG0:
		return value_type(f, value_resolve(f, args[0]));
	case KL_CTRL_ARG1:
		return value_type(f, value_resolve(f, args[1]));
	default:
		return KL_TYPE_NONE;
	}
}

kl_value
kl_build_unary(kl_builder *b, kl_opcode op, kl_type t, kl_value a)
{
	if (!ready(b, op) || !check_format(b, op, KL_FMT_UNARY) ||
	    !check_value(b, a))
		return KL_NO_VALUE;
	if (kl_op_info(op)->ctrl == KL_CTRL_EXPLICIT && !check_type(b, t))
		return KL_NO_VALUE;
	/* Another opcode's result type follows from the operand (ineg)
	 * or the opcode (fpromote): a t that says otherwise would be
	 * dropped without a word, and the front end would go on with a
	 * value of a type it did not ask for. */
	kl_type rt = result_type(b, op, t, &a.id);
	/* the operand's class, refined otherwise (copy.s32 of an i32) */
	const kl_module *m = b->func->module;
	if (t != KL_TYPE_NONE && kl_op_info(op)->ctrl == KL_CTRL_ARG0 &&
	    kl_type_class(m, t) == kl_type_class(m, rt))
		rt = t;
	if (t != KL_TYPE_NONE && t != rt) {
		fail(b, KL_ERR_INVALID, "type differs from the result's, which "
					"the operand or the opcode gives "
					"(pass KL_TYPE_NONE)");
		return KL_NO_VALUE;
	}
	uint32_t i = emit(b, op);
	b->func->insts[i].w[1] = a.id;
	return add_result(b, i, rt);
}

static kl_value
build_two(kl_builder *b, kl_opcode op, kl_format fmt, uint8_t aux, kl_value x,
	  kl_value y)
{
	if (!ready(b, op) || !check_format(b, op, fmt) || !check_value(b, x) ||
	    !check_value(b, y))
		return KL_NO_VALUE;
	uint32_t i = emit(b, op);
	kl_inst_data *d = &b->func->insts[i];
	d->aux = aux;
	d->w[1] = x.id;
	d->w[2] = y.id;
	return add_result(b, i, result_type(b, op, KL_TYPE_NONE, &d->w[1]));
}

kl_value
kl_build_binary(kl_builder *b, kl_opcode op, kl_value x, kl_value y)
{
	return build_two(b, op, KL_FMT_BINARY, 0, x, y);
}

kl_value
kl_build_icmp(kl_builder *b, kl_intcc cc, kl_value x, kl_value y)
{
	if ((unsigned)cc >= KL_ICC_COUNT) {
		fail_op(b, KL_OP_ICMP, KL_ERR_RANGE, "bad condition code");
		return KL_NO_VALUE;
	}
	return build_two(b, KL_OP_ICMP, KL_FMT_ICMP, (uint8_t)cc, x, y);
}

kl_value
kl_build_fcmp(kl_builder *b, kl_floatcc cc, kl_value x, kl_value y)
{
	if ((unsigned)cc >= KL_FCC_COUNT) {
		fail_op(b, KL_OP_FCMP, KL_ERR_RANGE, "bad condition code");
		return KL_NO_VALUE;
	}
	return build_two(b, KL_OP_FCMP, KL_FMT_FCMP, (uint8_t)cc, x, y);
}

static kl_value
build_imm(kl_builder *b, kl_opcode op, kl_format fmt, uint8_t aux, kl_value x,
	  int64_t imm)
{
	if (!ready(b, op) || !check_format(b, op, fmt) || !check_value(b, x))
		return KL_NO_VALUE;
	kl_func *f = b->func;
	uint32_t i = emit(b, op);
	f->insts[i].aux = aux;
	f->insts[i].w[1] = x.id;
	kl_type t = value_type(f, value_resolve(f, x.id));
	inst_set_imm(f, i, normalize_imm(f->module, t, imm));
	return add_result(b, i, result_type(b, op, KL_TYPE_NONE, &x.id));
}

kl_value
kl_build_binary_imm(kl_builder *b, kl_opcode op, kl_value x, int64_t imm)
{
	return build_imm(b, op, KL_FMT_BINARY_IMM, 0, x, imm);
}

kl_value
kl_build_icmp_imm(kl_builder *b, kl_intcc cc, kl_value x, int64_t imm)
{
	if ((unsigned)cc >= KL_ICC_COUNT) {
		fail_op(b, KL_OP_ICMP_IMM, KL_ERR_RANGE, "bad condition code");
		return KL_NO_VALUE;
	}
	return build_imm(b, KL_OP_ICMP_IMM, KL_FMT_ICMP_IMM, (uint8_t)cc, x,
			 imm);
}

kl_value
kl_build_select(kl_builder *b, kl_value c, kl_value x, kl_value y)
{
	kl_value ops[3] = { c, x, y };
	if (!ready(b, KL_OP_SELECT) || !check_values(b, ops, 3))
		return KL_NO_VALUE;
	kl_func *f = b->func;
	uint32_t i = emit(b, KL_OP_SELECT);
	uint32_t raw[3] = { c.id, x.id, y.id };
	f->insts[i].w[1] = list_make(&f->pool, raw, 3);
	return add_result(b, i,
			  result_type(b, KL_OP_SELECT, KL_TYPE_NONE, raw));
}

kl_value
kl_build_load(kl_builder *b, kl_opcode op, kl_type t, kl_value ptr,
	      int32_t offset)
{
	if (!ready(b, op) || !check_format(b, op, KL_FMT_LOAD) ||
	    !check_type(b, t) || !check_value(b, ptr))
		return KL_NO_VALUE;
	uint32_t i = emit(b, op);
	b->func->insts[i].w[1] = ptr.id;
	b->func->insts[i].w[2] = (uint32_t)offset;
	return add_result(b, i, t);
}

kl_inst
kl_build_store(kl_builder *b, kl_opcode op, kl_value v, kl_value ptr,
	       int32_t offset)
{
	if (!ready(b, op) || !check_format(b, op, KL_FMT_STORE) ||
	    !check_value(b, v) || !check_value(b, ptr))
		return KL_NO_INST;
	uint32_t i = emit(b, op);
	kl_inst_data *d = &b->func->insts[i];
	d->w[0] = v.id;
	d->w[1] = ptr.id;
	d->w[2] = (uint32_t)offset;
	return (kl_inst){ i };
}

static bool
check_align(kl_builder *b, uint32_t align)
{
	if (align & (align - 1))
		return fail(b, KL_ERR_RANGE, "alignment is not a power of two");
	return true;
}

kl_value
kl_build_alloca(kl_builder *b, uint32_t size, uint32_t align)
{
	if (!ready(b, KL_OP_ALLOCA) || !check_align(b, align))
		return KL_NO_VALUE;
	uint32_t i = emit(b, KL_OP_ALLOCA);
	b->func->insts[i].aux = align ? (uint8_t)kl_ctz64(align)
				      : alloca_default_align_log2(size, true);
	b->func->insts[i].w[1] = size;
	return add_result(b, i, b->func->module->ptr_type);
}

kl_value
kl_build_alloca_dyn(kl_builder *b, kl_value size, uint32_t align)
{
	if (!ready(b, KL_OP_ALLOCA_DYN) || !check_align(b, align) ||
	    !check_value(b, size))
		return KL_NO_VALUE;
	uint32_t i = emit(b, KL_OP_ALLOCA_DYN);
	b->func->insts[i].aux = align ? (uint8_t)kl_ctz64(align)
				      : alloca_default_align_log2(0, false);
	b->func->insts[i].w[1] = size.id;
	return add_result(b, i, b->func->module->ptr_type);
}

kl_value
kl_build_symbol_addr(kl_builder *b, kl_sym sym)
{
	if (!ready(b, KL_OP_SYMBOL_ADDR))
		return KL_NO_VALUE;
	if (sym.id >= b->func->module->nsyms) {
		fail(b, KL_ERR_INVALID, "no such symbol");
		return KL_NO_VALUE;
	}
	uint32_t i = emit(b, KL_OP_SYMBOL_ADDR);
	b->func->insts[i].w[1] = sym.id;
	return add_result(b, i, b->func->module->ptr_type);
}

static uint32_t
make_list(kl_func *f, const kl_value *head, const kl_value *vals, uint32_t n)
{
	uint32_t l = 0;
	if (n == 0 && !head)
		return 0;
	uint32_t *e = list_extend(&f->pool, &l, n + (head ? 1 : 0));
	if (head)
		*e++ = head->id;
	for (uint32_t k = 0; k < n; k++)
		e[k] = vals[k].id;
	return l;
}

static void
add_results(kl_func *f, uint32_t i, const kl_signature *sig)
{
	uint32_t l = 0;
	for (uint32_t k = 0; k < sig->num_results; k++) {
		uint32_t v = func_new_value(f);
		value_define(f, v, VK_RESULT, sig->results[k], i);
		list_push(&f->pool, &l, v);
	}
	f->insts[i].w[0] = l;
}

kl_inst
kl_build_call(kl_builder *b, kl_sym callee, const kl_value *args,
	      uint32_t num_args)
{
	kl_func *f = b->func;
	if (!ready(b, KL_OP_CALL) || !check_values(b, args, num_args))
		return KL_NO_INST;
	if (callee.id >= f->module->nsyms ||
	    f->module->syms[callee.id].kind != KL_SYM_FUNC) {
		fail(b, KL_ERR_INVALID, "callee is not a function");
		return KL_NO_INST;
	}
	kl_signature sig = kl_sym_signature(f->module, callee);
	uint32_t i = emit(b, KL_OP_CALL);
	f->insts[i].w[1] = callee.id;
	f->insts[i].w[2] = make_list(f, NULL, args, num_args);
	add_results(f, i, &sig);
	return (kl_inst){ i };
}

kl_inst
kl_build_call_indirect(kl_builder *b, kl_sigref sig, kl_value callee,
		       const kl_value *args, uint32_t num_args)
{
	kl_func *f = b->func;
	if (!ready(b, KL_OP_CALL_INDIRECT) || !check_value(b, callee) ||
	    !check_values(b, args, num_args))
		return KL_NO_INST;
	if (sig.id >= f->nsigrefs || f->sigrefs[sig.id] == KL_NONE) {
		fail(b, KL_ERR_INVALID, "no such signature reference");
		return KL_NO_INST;
	}
	kl_signature s = module_sig(f->module, f->sigrefs[sig.id]);
	uint32_t i = emit(b, KL_OP_CALL_INDIRECT);
	f->insts[i].w[1] = sig.id;
	f->insts[i].w[2] = make_list(f, &callee, args, num_args);
	add_results(f, i, &s);
	return (kl_inst){ i };
}

static bool
check_dest(kl_builder *b, const kl_block_call *d)
{
	if (!block_exists(b->func, d->block))
		return fail(b, KL_ERR_INVALID, "branch to a missing block");
	return check_values(b, d->args, d->num_args);
}

uint32_t
dest_make(kl_func *f, const kl_block_call *d)
{
	if (d->num_args == 0)
		return dest_word_of_block(d->block.id);
	kl_value blk = { d->block.id };
	return make_list(f, &blk, d->args, d->num_args);
}

kl_inst
kl_build_jump(kl_builder *b, kl_block_call dest)
{
	if (!ready(b, KL_OP_JUMP) || !check_dest(b, &dest))
		return KL_NO_INST;
	uint32_t i = emit(b, KL_OP_JUMP);
	b->func->insts[i].w[0] = dest_make(b->func, &dest);
	return (kl_inst){ i };
}

kl_inst
kl_build_brif(kl_builder *b, kl_value c, kl_block_call then_dest,
	      kl_block_call else_dest)
{
	if (!ready(b, KL_OP_BRIF) || !check_value(b, c) ||
	    !check_dest(b, &then_dest) || !check_dest(b, &else_dest))
		return KL_NO_INST;
	kl_func *f = b->func;
	uint32_t i = emit(b, KL_OP_BRIF);
	f->insts[i].w[0] = c.id;
	uint32_t t = dest_make(f, &then_dest);
	uint32_t e = dest_make(f, &else_dest);
	f->insts[i].w[1] = t;
	f->insts[i].w[2] = e;
	return (kl_inst){ i };
}

kl_inst
kl_build_br_table(kl_builder *b, kl_value index, kl_block_call def,
		  const kl_block_call *table, uint32_t n)
{
	if (!ready(b, KL_OP_BR_TABLE) || !check_value(b, index) ||
	    !check_dest(b, &def))
		return KL_NO_INST;
	if (n && !table) {
		fail(b, KL_ERR_INVALID, "missing jump table");
		return KL_NO_INST;
	}
	if (n > LIST_MAX_LEN - 1) { /* the default is in the list too */
		fail(b, KL_ERR_RANGE, "more table entries than one list holds");
		return KL_NO_INST;
	}
	for (uint32_t k = 0; k < n; k++)
		if (!check_dest(b, &table[k]))
			return KL_NO_INST;
	kl_func *f = b->func;
	uint32_t i = emit(b, KL_OP_BR_TABLE);
	f->insts[i].w[0] = index.id;
	uint32_t l = 0;
	uint32_t d = dest_make(f, &def);
	list_push(&f->pool, &l, d);
	for (uint32_t k = 0; k < n; k++) {
		d = dest_make(f, &table[k]);
		list_push(&f->pool, &l, d);
	}
	f->insts[i].w[1] = l;
	return (kl_inst){ i };
}

kl_inst
kl_build_return(kl_builder *b, const kl_value *args, uint32_t n)
{
	if (!ready(b, KL_OP_RETURN) || !check_values(b, args, n))
		return KL_NO_INST;
	uint32_t i = emit(b, KL_OP_RETURN);
	b->func->insts[i].w[0] = make_list(b->func, NULL, args, n);
	return (kl_inst){ i };
}

kl_inst
kl_build_trap(kl_builder *b, kl_trapcode code, uint32_t user_code)
{
	if (!ready(b, KL_OP_TRAP))
		return KL_NO_INST;
	if ((unsigned)code >= KL_TRAP_COUNT) {
		fail(b, KL_ERR_RANGE, "bad trap code");
		return KL_NO_INST;
	}
	uint32_t i = emit(b, KL_OP_TRAP);
	b->func->insts[i].aux = (uint8_t)code;
	b->func->insts[i].w[0] = code == KL_TRAP_USER ? user_code : 0;
	return (kl_inst){ i };
}
