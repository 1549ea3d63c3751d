/*
 * test_promote.c -- the promote pass on IR that text cannot express
 * because the parser or the verifier rejects it: functions not in strict
 * SSA form must be left alone, accesses outside an alloca keep it, and the
 * returned count of remaining allocas.
 */
#include <string.h>

#include "keel.h"
#include "unit.h"

static kl_func *
func_with_entry(kl_module *m, const char *name, kl_block *entry,
		kl_builder *b)
{
	kl_type i32 = KL_TYPE_I32;
	kl_signature sig = { &i32, &i32, 1, 1, false };
	kl_func *f = NULL;
	CHECK_EQ_INT(kl_module_add_func(m, name, strlen(name), &sig, &f), KL_OK);
	*entry = kl_func_new_block(f);
	kl_func_append_block(f, *entry);
	kl_builder_init(b, f);
	kl_builder_at_end(b, *entry);
	return f;
}

static uint32_t
count_allocas(const kl_func *f)
{
	uint32_t n = 0;
	for (kl_block b = kl_func_first_block(f); b.id != KL_NONE;
	     b = kl_block_next(f, b))
		for (kl_inst i = kl_block_first_inst(f, b); i.id != KL_NONE;
		     i = kl_inst_next(f, i))
			n += kl_inst_opcode(f, i) == KL_OP_ALLOCA;
	return n;
}

static void
test_not_strict_ssa_is_left_alone(void)
{
	kl_module *m = kl_module_new();
	kl_block entry;
	kl_builder b;
	kl_func *f = func_with_entry(m, "f", &entry, &b);
	kl_value p = kl_block_append_param(f, entry, KL_TYPE_I32);
	kl_value slot = kl_build_alloca(&b, 4, 4);
	kl_build_store(&b, KL_OP_STORE, p, slot, 0);
	kl_value x = kl_build_load(&b, KL_OP_LOAD, KL_TYPE_I32, slot, 0);
	kl_inst ret = kl_build_return(&b, &x, 1);
	/* A use before its definition: v9 = iadd v9, v9 is not SSA. */
	kl_builder_before(&b, ret);
	kl_value y = kl_build_binary(&b, KL_OP_IADD, x, x);
	kl_value z = kl_build_binary(&b, KL_OP_IADD, y, y);
	(void)z;
	kl_builder_before(&b, kl_value_def_inst(f, y));
	kl_build_binary(&b, KL_OP_IADD, z, z); /* uses z before it */
	CHECK_EQ_INT(kl_builder_status(&b), KL_OK);

	kl_pass_report rep = { 0 };
	rep.verbose = true;
	CHECK_EQ_INT(kl_promote_func(f, &rep), KL_OK);
	CHECK_EQ_INT(count_allocas(f), 1);
	CHECK_EQ_INT(kl_pass_report_get(&rep, "promoted"), 0);
	CHECK_EQ_INT(kl_pass_report_get(&rep, "kept"), 1);
	CHECK(rep.notes.data &&
	      strstr(rep.notes.data, "not in strict SSA form") != NULL);
	kl_pass_report_free(&rep);
	kl_module_free(m);
}

static void
test_out_of_bounds_keeps_the_alloca(void)
{
	kl_module *m = kl_module_new();
	kl_block entry;
	kl_builder b;
	kl_func *f = func_with_entry(m, "f", &entry, &b);
	kl_value p = kl_block_append_param(f, entry, KL_TYPE_I32);
	kl_value slot = kl_build_alloca(&b, 4, 4);
	kl_build_store(&b, KL_OP_STORE, p, slot, 2); /* bytes 2..5 of 4 */
	kl_value x = kl_build_load(&b, KL_OP_LOAD, KL_TYPE_I32, slot, 2);
	kl_build_return(&b, &x, 1);
	kl_pass_report rep = { 0 };
	rep.verbose = true;
	kl_promote_func(f, &rep);
	CHECK_EQ_INT(count_allocas(f), 1);
	CHECK(rep.notes.data &&
	      strstr(rep.notes.data, "an access lies outside it") != NULL);
	kl_pass_report_free(&rep);

	/* A negative offset through iadd_imm is outside too. */
	kl_module *m2 = kl_module_new();
	f = func_with_entry(m2, "g", &entry, &b);
	p = kl_block_append_param(f, entry, KL_TYPE_I32);
	slot = kl_build_alloca(&b, 8, 4);
	kl_value mid = kl_build_binary_imm(&b, KL_OP_IADD_IMM, slot, 4);
	kl_build_store(&b, KL_OP_STORE, p, mid, -8);
	kl_build_return(&b, &p, 1);
	rep.verbose = true;
	kl_promote_func(f, &rep);
	CHECK_EQ_INT(count_allocas(f), 1);
	kl_pass_report_free(&rep);
	kl_module_free(m2);
	kl_module_free(m);
}

static void
test_module_count_and_verified_result(void)
{
	const char *text =
		"declare %use(i64)\n"
		"\n"
		"function %a(i32) -> i32 {\n"
		"block0(v0: i32):\n"
		"    v1 = alloca 4, align 4\n"
		"    v2 = alloca 4, align 4\n"
		"    store v0, v1\n"
		"    call %use(v2)\n"
		"    v3 = load.i32 v1\n"
		"    return v3\n"
		"}\n"
		"\n"
		"function %b() -> i64 {\n"
		"block0:\n"
		"    v1 = alloca 8, align 8\n"
		"    v2 = load.i64 v1\n"
		"    return v2\n"
		"}\n";
	kl_module *m = NULL;
	kl_diags d = { 0 };
	CHECK_EQ_INT(kl_parse_module(text, strlen(text), NULL, &m, &d), KL_OK);
	if (!m)
		return;
	kl_pass_report rep = { 0 };
	CHECK_EQ_INT(kl_promote_module(m, &rep), 1);
	CHECK_EQ_INT(kl_pass_report_get(&rep, "promoted"), 2);
	CHECK_EQ_INT(kl_pass_report_get(&rep, "kept"), 1);
	CHECK_EQ_INT(kl_verify_module(m, &d), KL_OK);
	kl_buf out = { 0 };
	kl_print_module(m, NULL, &out);
	CHECK(strstr(out.data, "v1 = alloca") == NULL);
	CHECK(strstr(out.data, "v2 = alloca 4") != NULL);
	CHECK(strstr(out.data, "iconst.i64 0") != NULL);
	kl_buf_free(&out);
	/* Running it again changes nothing. */
	kl_buf before = { 0 }, after = { 0 };
	kl_print_module(m, NULL, &before);
	CHECK_EQ_INT(kl_promote_module(m, NULL), 1);
	kl_print_module(m, NULL, &after);
	CHECK_EQ_STR(after.data, before.data);
	kl_buf_free(&before);
	kl_buf_free(&after);
	kl_pass_report_free(&rep);
	kl_diags_free(&d);
	kl_module_free(m);
}

int
main(void)
{
	UNIT_RUN(test_not_strict_ssa_is_left_alone);
	UNIT_RUN(test_out_of_bounds_keeps_the_alloca);
	UNIT_RUN(test_module_count_and_verified_result);
	return unit_report("promote");
}
