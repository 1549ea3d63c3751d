/*
 * test_builder_refuse.c -- what the builder refuses (keel.h, "Building
 * IR"): a builder with no place to build, an opcode of another builder
 * call, an operand that is no value, a type that is none, a number
 * outside what the IR holds, an entity that does not exist. Each refusal
 * returns none, sets the status keel.h names (and the opcode and the
 * operand the failure is about), and adds nothing to the function: no
 * instruction, no value, no block, no signature reference, nothing in
 * its printed text. Errors are sticky: a good call after a refusal
 * builds nothing either.
 */
#include <stdio.h>
#include <string.h>

#include "keel.h"
#include "unit.h"

/*
 * block0 holds a value of each kind an operand can be: v0 an i32, v6 an
 * f32, v1 and v2 aliases of each other (a cycle, which text can make),
 * v3 and v4 numbers never defined. block1 is taken out of the layout,
 * v7's instruction too. sig1 is declared, sig0 is not.
 */
static const char module_text[] =
	"declare %ext(i32) -> i32\n"
	"data %d = { i32 7 }\n"
	"function %g(i32) -> i32 {\n"
	"    sig1 = (i32) -> i32\n"
	"block0(v0: i32):\n"
	"    v1 -> v2\n"
	"    v2 -> v1\n"
	"    v6 = f32const 0x1p0\n"
	"    v7 = iconst.i32 3\n"
	"    v5 = iadd v0, v0\n"
	"    return v5\n"
	"block1:\n"
	"    return v0\n"
	"}\n";

typedef struct fixture {
	kl_module *m;
	kl_func *f;
	kl_block b0, gone, loose; /* placed, taken out, never placed */
	kl_inst ret, removed;
	kl_value x, fx, cycle, hole;
	kl_sym ext, data;
} fixture;

static bool
fixture_make(fixture *fx)
{
	memset(fx, 0, sizeof *fx);
	kl_diags d = { 0 };
	CHECK_EQ_INT(kl_parse_module(module_text, sizeof module_text - 1,
				     NULL, &fx->m, &d),
		     KL_OK);
	kl_diags_free(&d);
	if (!fx->m)
		return false;
	fx->f = kl_sym_func(fx->m, kl_module_lookup(fx->m, "g", 1));
	fx->ext = kl_module_lookup(fx->m, "ext", 3);
	fx->data = kl_module_lookup(fx->m, "d", 1);
	kl_func *f = fx->f;
	fx->b0 = kl_func_first_block(f);
	fx->gone = kl_block_next(f, fx->b0);
	CHECK_EQ_INT(kl_func_remove_block(f, fx->gone), KL_OK);
	fx->loose = kl_func_new_block(f);
	fx->ret = kl_block_last_inst(f, fx->b0);
	fx->x = (kl_value){ 0 };
	fx->cycle = (kl_value){ 1 };
	fx->hole = (kl_value){ 3 };
	fx->fx = (kl_value){ 6 };
	fx->removed = kl_value_def_inst(f, (kl_value){ 7 });
	kl_inst_remove(f, fx->removed);
	CHECK_EQ_INT(kl_value_type(f, fx->fx), KL_TYPE_F32);
	CHECK(kl_value_is_alias(f, fx->cycle));
	CHECK_EQ_INT(kl_value_type(f, fx->hole), KL_TYPE_NONE);
	return true;
}

/* What a refusal must leave as it was. */
typedef struct snapshot {
	uint32_t values, insts, blocks, sigrefs, syms, placed;
	kl_buf text;
} snapshot;

static void
take(const fixture *fx, snapshot *s)
{
	const kl_func *f = fx->f;
	s->values = kl_func_value_bound(f);
	s->insts = kl_func_inst_bound(f);
	s->blocks = kl_func_block_bound(f);
	s->sigrefs = kl_func_sigref_bound(f);
	s->syms = kl_module_num_syms(fx->m);
	s->placed = 0;
	for (kl_block b = kl_func_first_block(f); b.id != KL_NONE;
	     b = kl_block_next(f, b))
		for (kl_inst i = kl_block_first_inst(f, b); i.id != KL_NONE;
		     i = kl_inst_next(f, i))
			s->placed++;
	s->text = (kl_buf){ 0 };
	kl_print_module(fx->m, NULL, &s->text);
}

/* One refusal: the call, made with the builder as the case sets it. It
 * returns the entity the call returned. */
typedef uint32_t (*refusal_fn)(fixture *fx, kl_builder *b);

typedef struct refusal {
	const char *what;
	refusal_fn call;
	kl_status status;
	kl_opcode op;      /* bld.error_op */
	uint32_t value;    /* bld.error_value: a number, or KL_NONE */
} refusal;

/* ---- where the builder builds ---- */

static uint32_t
never_positioned(fixture *fx, kl_builder *b)
{
	kl_builder_init(b, fx->f);
	return kl_build_iconst(b, KL_TYPE_I32, 1).id;
}

static uint32_t
at_end_of_loose_block(fixture *fx, kl_builder *b)
{
	kl_builder_at_end(b, fx->loose);
	return kl_build_iconst(b, KL_TYPE_I32, 1).id;
}

static uint32_t
at_end_of_removed_block(fixture *fx, kl_builder *b)
{
	kl_builder_at_end(b, fx->gone);
	return kl_build_return(b, &fx->x, 1).id;
}

static uint32_t
at_end_of_no_block(fixture *fx, kl_builder *b)
{
	(void)fx;
	kl_builder_at_end(b, (kl_block){ 999 });
	return kl_build_f64const(b, 0).id;
}

static uint32_t
before_removed_inst(fixture *fx, kl_builder *b)
{
	kl_builder_before(b, fx->removed);
	return kl_build_f32const(b, 0).id;
}

static uint32_t
before_no_inst(fixture *fx, kl_builder *b)
{
	(void)fx;
	kl_builder_before(b, (kl_inst){ 999 });
	return kl_build_trap(b, KL_TRAP_UNREACHABLE, 0).id;
}

/* ---- opcodes of another builder call ---- */

static uint32_t
binary_given_unary(fixture *fx, kl_builder *b)
{
	return kl_build_binary(b, KL_OP_INEG, fx->x, fx->x).id;
}

static uint32_t
unary_given_binary(fixture *fx, kl_builder *b)
{
	return kl_build_unary(b, KL_OP_IADD, KL_TYPE_NONE, fx->x).id;
}

static uint32_t
binary_imm_given_binary(fixture *fx, kl_builder *b)
{
	return kl_build_binary_imm(b, KL_OP_IADD, fx->x, 1).id;
}

static uint32_t
load_given_store(fixture *fx, kl_builder *b)
{
	return kl_build_load(b, KL_OP_STORE, KL_TYPE_I32, fx->x, 0).id;
}

static uint32_t
store_given_load(fixture *fx, kl_builder *b)
{
	return kl_build_store(b, KL_OP_LOAD, fx->x, fx->x, 0).id;
}

static uint32_t
binary_given_no_opcode(fixture *fx, kl_builder *b)
{
	return kl_build_binary(b, KL_OP_COUNT, fx->x, fx->x).id;
}

/* ---- operands that are no value ---- */

static uint32_t
operand_past_values(fixture *fx, kl_builder *b)
{
	return kl_build_binary(b, KL_OP_IADD, fx->x, (kl_value){ 999 }).id;
}

static uint32_t
operand_never_defined(fixture *fx, kl_builder *b)
{
	return kl_build_unary(b, KL_OP_INEG, KL_TYPE_NONE, fx->hole).id;
}

static uint32_t
operand_alias_cycle(fixture *fx, kl_builder *b)
{
	return kl_build_binary_imm(b, KL_OP_IADD_IMM, fx->cycle, 1).id;
}

static uint32_t
select_third_operand(fixture *fx, kl_builder *b)
{
	return kl_build_select(b, fx->x, fx->x, fx->hole).id;
}

static uint32_t
store_address_no_value(fixture *fx, kl_builder *b)
{
	return kl_build_store(b, KL_OP_STORE, fx->x, fx->hole, 0).id;
}

static uint32_t
alloca_dyn_size_no_value(fixture *fx, kl_builder *b)
{
	return kl_build_alloca_dyn(b, fx->cycle, 8).id;
}

static uint32_t
return_args_null(fixture *fx, kl_builder *b)
{
	(void)fx;
	return kl_build_return(b, NULL, 1).id;
}

static uint32_t
call_args_null(fixture *fx, kl_builder *b)
{
	return kl_build_call(b, fx->ext, NULL, 1).id;
}

static uint32_t
call_arg_no_value(fixture *fx, kl_builder *b)
{
	kl_value args[1] = { fx->hole };
	return kl_build_call(b, fx->ext, args, 1).id;
}

static uint32_t
call_indirect_callee_no_value(fixture *fx, kl_builder *b)
{
	return kl_build_call_indirect(b, (kl_sigref){ 1 }, fx->hole, &fx->x,
				      1).id;
}

static uint32_t
brif_condition_no_value(fixture *fx, kl_builder *b)
{
	kl_block_call d = { fx->b0, &fx->x, 1 };
	return kl_build_brif(b, fx->hole, d, d).id;
}

static uint32_t
jump_argument_no_value(fixture *fx, kl_builder *b)
{
	kl_value args[2] = { fx->x, fx->cycle };
	return kl_build_jump(b, (kl_block_call){ fx->b0, args, 2 }).id;
}

static uint32_t
jump_arguments_null(fixture *fx, kl_builder *b)
{
	return kl_build_jump(b, (kl_block_call){ fx->b0, NULL, 1 }).id;
}

static uint32_t
br_table_index_no_value(fixture *fx, kl_builder *b)
{
	kl_block_call d = { fx->b0, &fx->x, 1 };
	return kl_build_br_table(b, (kl_value){ 999 }, d, &d, 1).id;
}

/* ---- types ---- */

static uint32_t
iconst_type_none(fixture *fx, kl_builder *b)
{
	(void)fx;
	return kl_build_iconst(b, KL_TYPE_NONE, 1).id;
}

static uint32_t
iconst_no_type(fixture *fx, kl_builder *b)
{
	(void)fx;
	return kl_build_iconst(b, 999, 1).id;
}

static uint32_t
load_type_none(fixture *fx, kl_builder *b)
{
	return kl_build_load(b, KL_OP_LOAD, KL_TYPE_NONE, fx->x, 0).id;
}

static uint32_t
sextend_type_none(fixture *fx, kl_builder *b)
{
	return kl_build_unary(b, KL_OP_SEXTEND, KL_TYPE_NONE, fx->x).id;
}

static uint32_t
fpromote_other_type(fixture *fx, kl_builder *b)
{
	return kl_build_unary(b, KL_OP_FPROMOTE, KL_TYPE_F32, fx->fx).id;
}

/* ---- numbers outside what the IR holds ---- */

static uint32_t
icmp_bad_cc(fixture *fx, kl_builder *b)
{
	return kl_build_icmp(b, KL_ICC_COUNT, fx->x, fx->x).id;
}

static uint32_t
icmp_imm_bad_cc(fixture *fx, kl_builder *b)
{
	return kl_build_icmp_imm(b, (kl_intcc)99, fx->x, 1).id;
}

static uint32_t
icmp_imm_cc_at_count(fixture *fx, kl_builder *b)
{
	return kl_build_icmp_imm(b, KL_ICC_COUNT, fx->x, 1).id;
}

static uint32_t
fcmp_bad_cc(fixture *fx, kl_builder *b)
{
	return kl_build_fcmp(b, KL_FCC_COUNT, fx->fx, fx->fx).id;
}

static uint32_t
alloca_align_three(fixture *fx, kl_builder *b)
{
	(void)fx;
	return kl_build_alloca(b, 8, 3).id;
}

static uint32_t
alloca_dyn_align_twelve(fixture *fx, kl_builder *b)
{
	return kl_build_alloca_dyn(b, fx->x, 12).id;
}

static uint32_t
trap_bad_code(fixture *fx, kl_builder *b)
{
	(void)fx;
	return kl_build_trap(b, KL_TRAP_COUNT, 0).id;
}

static uint32_t
br_table_too_long(fixture *fx, kl_builder *b)
{
	/* (the count is refused before any entry is read) */
	kl_block_call d = { fx->b0, &fx->x, 1 };
	return kl_build_br_table(b, fx->x, d, &d, (1u << 27) - 2).id;
}

/* ---- entities that do not exist ---- */

static uint32_t
symbol_addr_past_syms(fixture *fx, kl_builder *b)
{
	return kl_build_symbol_addr(b, (kl_sym){ kl_module_num_syms(fx->m) })
		.id;
}

static uint32_t
call_data_object(fixture *fx, kl_builder *b)
{
	return kl_build_call(b, fx->data, &fx->x, 1).id;
}

static uint32_t
call_past_syms(fixture *fx, kl_builder *b)
{
	return kl_build_call(b, (kl_sym){ kl_module_num_syms(fx->m) }, NULL, 0)
		.id;
}

static uint32_t
call_indirect_undeclared_sigref(fixture *fx, kl_builder *b)
{
	/* sig0: a number below the bound, never declared */
	return kl_build_call_indirect(b, (kl_sigref){ 0 }, fx->x, &fx->x, 1)
		.id;
}

static uint32_t
call_indirect_sigref_past(fixture *fx, kl_builder *b)
{
	return kl_build_call_indirect(b, (kl_sigref){ 2 }, fx->x, &fx->x, 1)
		.id;
}

static uint32_t
jump_to_no_block(fixture *fx, kl_builder *b)
{
	(void)fx;
	return kl_build_jump(b, (kl_block_call){ { 999 }, NULL, 0 }).id;
}

static uint32_t
brif_else_to_no_block(fixture *fx, kl_builder *b)
{
	kl_block_call then_d = { fx->b0, &fx->x, 1 };
	kl_block_call else_d = { KL_NO_BLOCK, NULL, 0 };
	return kl_build_brif(b, fx->x, then_d, else_d).id;
}

static uint32_t
br_table_null_table(fixture *fx, kl_builder *b)
{
	kl_block_call d = { fx->b0, &fx->x, 1 };
	return kl_build_br_table(b, fx->x, d, NULL, 2).id;
}

static uint32_t
br_table_entry_to_no_block(fixture *fx, kl_builder *b)
{
	kl_block_call d = { fx->b0, &fx->x, 1 };
	kl_block_call table[2] = { d, { { 999 }, NULL, 0 } };
	return kl_build_br_table(b, fx->x, d, table, 2).id;
}

static uint32_t
br_table_default_to_no_block(fixture *fx, kl_builder *b)
{
	kl_block_call d = { fx->b0, &fx->x, 1 };
	kl_block_call none = { { 999 }, NULL, 0 };
	return kl_build_br_table(b, fx->x, none, &d, 1).id;
}

/* ---- sticky: a good call after a refusal ---- */

static uint32_t
good_after_refusal(fixture *fx, kl_builder *b)
{
	kl_build_symbol_addr(b, (kl_sym){ 999 });
	return kl_build_binary(b, KL_OP_IADD, fx->x, fx->x).id;
}

#define X(fn, st, op, v) { #fn, fn, st, op, v }
static const refusal refusals[] = {
	X(never_positioned, KL_ERR_POSITION, KL_OP_ICONST, KL_NONE),
	X(at_end_of_loose_block, KL_ERR_POSITION, KL_OP_ICONST, KL_NONE),
	X(at_end_of_removed_block, KL_ERR_POSITION, KL_OP_RETURN, KL_NONE),
	X(at_end_of_no_block, KL_ERR_POSITION, KL_OP_F64CONST, KL_NONE),
	X(before_removed_inst, KL_ERR_POSITION, KL_OP_F32CONST, KL_NONE),
	X(before_no_inst, KL_ERR_POSITION, KL_OP_TRAP, KL_NONE),
	X(binary_given_unary, KL_ERR_FORMAT, KL_OP_INEG, KL_NONE),
	X(unary_given_binary, KL_ERR_FORMAT, KL_OP_IADD, KL_NONE),
	X(binary_imm_given_binary, KL_ERR_FORMAT, KL_OP_IADD, KL_NONE),
	X(load_given_store, KL_ERR_FORMAT, KL_OP_STORE, KL_NONE),
	X(store_given_load, KL_ERR_FORMAT, KL_OP_LOAD, KL_NONE),
	X(binary_given_no_opcode, KL_ERR_FORMAT, KL_OP_COUNT, KL_NONE),
	X(operand_past_values, KL_ERR_INVALID, KL_OP_IADD, 999),
	X(operand_never_defined, KL_ERR_INVALID, KL_OP_INEG, 3),
	X(operand_alias_cycle, KL_ERR_INVALID, KL_OP_IADD_IMM, 1),
	X(select_third_operand, KL_ERR_INVALID, KL_OP_SELECT, 3),
	X(store_address_no_value, KL_ERR_INVALID, KL_OP_STORE, 3),
	X(alloca_dyn_size_no_value, KL_ERR_INVALID, KL_OP_ALLOCA_DYN, 1),
	X(return_args_null, KL_ERR_INVALID, KL_OP_RETURN, KL_NONE),
	X(call_args_null, KL_ERR_INVALID, KL_OP_CALL, KL_NONE),
	X(call_arg_no_value, KL_ERR_INVALID, KL_OP_CALL, 3),
	X(call_indirect_callee_no_value, KL_ERR_INVALID, KL_OP_CALL_INDIRECT,
	  3),
	X(brif_condition_no_value, KL_ERR_INVALID, KL_OP_BRIF, 3),
	X(jump_argument_no_value, KL_ERR_INVALID, KL_OP_JUMP, 1),
	X(jump_arguments_null, KL_ERR_INVALID, KL_OP_JUMP, KL_NONE),
	X(br_table_index_no_value, KL_ERR_INVALID, KL_OP_BR_TABLE, 999),
	X(iconst_type_none, KL_ERR_INVALID, KL_OP_ICONST, KL_NONE),
	X(iconst_no_type, KL_ERR_INVALID, KL_OP_ICONST, KL_NONE),
	X(load_type_none, KL_ERR_INVALID, KL_OP_LOAD, KL_NONE),
	X(sextend_type_none, KL_ERR_INVALID, KL_OP_SEXTEND, KL_NONE),
	X(fpromote_other_type, KL_ERR_INVALID, KL_OP_FPROMOTE, KL_NONE),
	X(icmp_bad_cc, KL_ERR_RANGE, KL_OP_ICMP, KL_NONE),
	X(icmp_imm_bad_cc, KL_ERR_RANGE, KL_OP_ICMP_IMM, KL_NONE),
	X(icmp_imm_cc_at_count, KL_ERR_RANGE, KL_OP_ICMP_IMM, KL_NONE),
	X(fcmp_bad_cc, KL_ERR_RANGE, KL_OP_FCMP, KL_NONE),
	X(alloca_align_three, KL_ERR_RANGE, KL_OP_ALLOCA, KL_NONE),
	X(alloca_dyn_align_twelve, KL_ERR_RANGE, KL_OP_ALLOCA_DYN, KL_NONE),
	X(trap_bad_code, KL_ERR_RANGE, KL_OP_TRAP, KL_NONE),
	X(br_table_too_long, KL_ERR_RANGE, KL_OP_BR_TABLE, KL_NONE),
	X(symbol_addr_past_syms, KL_ERR_INVALID, KL_OP_SYMBOL_ADDR, KL_NONE),
	X(call_data_object, KL_ERR_INVALID, KL_OP_CALL, KL_NONE),
	X(call_past_syms, KL_ERR_INVALID, KL_OP_CALL, KL_NONE),
	X(call_indirect_undeclared_sigref, KL_ERR_INVALID,
	  KL_OP_CALL_INDIRECT, KL_NONE),
	X(call_indirect_sigref_past, KL_ERR_INVALID, KL_OP_CALL_INDIRECT,
	  KL_NONE),
	X(jump_to_no_block, KL_ERR_INVALID, KL_OP_JUMP, KL_NONE),
	X(brif_else_to_no_block, KL_ERR_INVALID, KL_OP_BRIF, KL_NONE),
	X(br_table_null_table, KL_ERR_INVALID, KL_OP_BR_TABLE, KL_NONE),
	X(br_table_entry_to_no_block, KL_ERR_INVALID, KL_OP_BR_TABLE,
	  KL_NONE),
	X(br_table_default_to_no_block, KL_ERR_INVALID, KL_OP_BR_TABLE,
	  KL_NONE),
	X(good_after_refusal, KL_ERR_INVALID, KL_OP_SYMBOL_ADDR, KL_NONE),
};
#undef X

static void
same_as(const snapshot *a, const snapshot *b)
{
	CHECK_EQ_INT(b->values, a->values);
	CHECK_EQ_INT(b->insts, a->insts);
	CHECK_EQ_INT(b->blocks, a->blocks);
	CHECK_EQ_INT(b->sigrefs, a->sigrefs);
	CHECK_EQ_INT(b->syms, a->syms);
	CHECK_EQ_INT(b->placed, a->placed);
	CHECK_EQ_STR(b->text.data, a->text.data);
}

/* Each refusal on a fixture of its own, the builder placed before the
 * return unless the case places it: none returned, the status, opcode
 * and operand keel.h says, and the function as it was. */
static void
test_refusals(void)
{
	for (size_t k = 0; k < sizeof refusals / sizeof refusals[0]; k++) {
		const refusal *r = &refusals[k];
		fixture fx;
		if (!fixture_make(&fx))
			return;
		int failed_before = unit_current_failed;
		unit_current_failed = 0;
		snapshot before, after;
		take(&fx, &before);
		kl_builder bld;
		kl_builder_init(&bld, fx.f);
		kl_builder_before(&bld, fx.ret);
		CHECK_EQ_INT(r->call(&fx, &bld), KL_NONE);
		CHECK_EQ_INT(kl_builder_status(&bld), r->status);
		CHECK_EQ_INT(bld.error_op, r->op);
		CHECK_EQ_INT(bld.error_value.id, r->value);
		CHECK(bld.error != NULL && bld.error[0] != '\0');
		take(&fx, &after);
		same_as(&before, &after);
		if (unit_current_failed)
			fprintf(stderr, "  in refusal %s\n", r->what);
		unit_current_failed |= failed_before;
		kl_buf_free(&before.text);
		kl_buf_free(&after.text);
		kl_module_free(fx.m);
	}
}

/* The fixture's calls that are not refused build: so each refusal above
 * is about what its case changed, not about the fixture. */
static void
test_fixture_builds(void)
{
	fixture fx;
	if (!fixture_make(&fx))
		return;
	kl_func *f = fx.f;
	kl_builder bld;
	kl_builder_init(&bld, f);
	kl_builder_before(&bld, fx.ret);
	kl_block_call d = { fx.b0, &fx.x, 1 };
	uint32_t values = kl_func_value_bound(f);
	CHECK(kl_build_binary(&bld, KL_OP_IADD, fx.x, fx.x).id == values);
	CHECK(kl_build_icmp_imm(&bld, KL_ICC_UGE, fx.x, 1).id != KL_NONE);
	CHECK(kl_build_fcmp(&bld, KL_FCC_UNO, fx.fx, fx.fx).id != KL_NONE);
	CHECK(kl_build_unary(&bld, KL_OP_FPROMOTE, KL_TYPE_F64, fx.fx).id !=
	      KL_NONE);
	CHECK(kl_build_alloca(&bld, 8, 16).id != KL_NONE);
	CHECK(kl_build_alloca_dyn(&bld, fx.x, 0).id != KL_NONE);
	CHECK(kl_build_symbol_addr(&bld, fx.data).id != KL_NONE);
	CHECK(kl_build_call(&bld, fx.ext, &fx.x, 1).id != KL_NONE);
	CHECK(kl_build_call_indirect(&bld, (kl_sigref){ 1 }, fx.x, &fx.x, 1)
		      .id != KL_NONE);
	CHECK(kl_build_trap(&bld, KL_TRAP_USER, 5).id != KL_NONE);
	kl_block_call table[2] = { d, d };
	CHECK(kl_build_br_table(&bld, fx.x, d, table, 2).id != KL_NONE);
	CHECK(kl_build_brif(&bld, fx.x, d, d).id != KL_NONE);
	kl_builder_at_end(&bld, fx.b0);
	CHECK(kl_build_jump(&bld, d).id != KL_NONE);
	CHECK_EQ_INT(kl_builder_status(&bld), KL_OK);
	kl_module_free(fx.m);
}

/* keel.h: the block calls of builder.c refuse too, and change nothing:
 * kl_func_append_block a placed block or none (KL_ERR_INVALID),
 * kl_block_append_param a block that is none or a type that is not one
 * of the module's (KL_NO_VALUE). */
static void
test_block_refusals(void)
{
	fixture fx;
	if (!fixture_make(&fx))
		return;
	kl_func *f = fx.f;
	snapshot before, after;
	take(&fx, &before);
	CHECK_EQ_INT(kl_func_append_block(f, fx.b0), KL_ERR_INVALID);
	CHECK_EQ_INT(kl_func_append_block(f, (kl_block){ 999 }),
		     KL_ERR_INVALID);
	CHECK_EQ_INT(kl_func_append_block(f, KL_NO_BLOCK), KL_ERR_INVALID);
	CHECK_EQ_INT(kl_block_append_param(f, (kl_block){ 999 }, KL_TYPE_I32)
			     .id,
		     KL_NONE);
	CHECK_EQ_INT(kl_block_append_param(f, KL_NO_BLOCK, KL_TYPE_I32).id,
		     KL_NONE);
	CHECK_EQ_INT(kl_block_append_param(f, fx.b0, KL_TYPE_NONE).id,
		     KL_NONE);
	CHECK_EQ_INT(kl_block_append_param(f, fx.loose, 999).id, KL_NONE);
	CHECK_EQ_INT(kl_block_num_params(f, fx.b0), 1);
	CHECK_EQ_INT(kl_block_num_params(f, fx.loose), 0);
	take(&fx, &after);
	same_as(&before, &after);
	kl_buf_free(&before.text);
	kl_buf_free(&after.text);
	kl_module_free(fx.m);
}

int
main(void)
{
	UNIT_RUN(test_block_refusals);
	UNIT_RUN(test_fixture_builds);
	UNIT_RUN(test_refusals);
	return unit_report("builder_refuse");
}
