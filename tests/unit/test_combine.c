/*
 * test_combine.c -- the combine pass through the API: broken input does
 * not crash it, the registry names its counter, and a chain of 20,000
 * immediates folds in one walk to what the chain computed.
 * tests/filetests/combine has every rule.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keel.h"
#include "parsed.h"
#include "pass_checks.h"
#include "unit.h"

/* Operands defined nowhere or later, an alias cycle, a block without a
 * terminator, operands of the wrong types, a chain through a value
 * defined twice. */
static void
test_broken_input_does_not_crash(void)
{
	check_broken_input(kl_combine_func,
			   "function %f(i32) -> i32 {\n"
			   "block0(v0: i32):\n"
			   "    v1 = iadd_imm.i32 v5, 0\n"
			   "    v2 = iadd_imm v1, 3\n"
			   "    v3 = imul_imm.i32 v9, 8\n"
			   "    v9 = imul_imm.i32 v3, 2\n"
			   "    v4 = icmp_imm.i32 eq v3, 0\n"
			   "    v6 -> v7\n"
			   "    v7 -> v6\n"
			   "    v8 = iadd.i32 v6, v6\n"
			   "    brif v4, block1, block2\n"
			   "\n"
			   "block1:\n"
			   "    v5 = ineg.i32 v5\n"
			   "    v10 = ineg.i32 v5\n"
			   "\n"
			   "block2:\n"
			   "    v11 = iconst.i64 4\n"
			   "    v12 = iadd v0, v11\n"
			   "    v13 = uextend.i64 v12\n"
			   "    v14 = sextend.i32 v13\n"
			   "    v15 = ireduce.i64 v14\n"
			   "    return v15\n"
			   "}\n");
	/* an operand of no type: its width was 0, and a shift by 64 cut
	 * the immediate to it (UBSan saw it) */
	check_broken_input(kl_combine_func,
			   "function %f(i32) -> i32 {\n"
			   "block0(v0: i32):\n"
			   "    v1 -> v2\n"
			   "    v2 -> v1\n"
			   "    v3 = iadd_imm.i32 v1, 5\n"
			   "    v4 = imul_imm.i32 v1, 8\n"
			   "    v5 = ishl_imm.i32 v1, 3\n"
			   "    return v0\n"
			   "}\n");
}

static void
test_empty_function(void)
{
	check_empty_function(kl_combine_func, "insts");
}

static void
test_registry_names_the_counters(void)
{
	check_registry("combine", kl_combine_func,
		       (const char *const[]){ "insts", NULL });
}

/* v1 = v0 + 1, v2 = v1 + 1, ... v(n) = v(n-1) + 1 folds link by link:
 * each link becomes v0 + k, once, and the function returns v0 + n. */
static void
test_long_chain_folds(void)
{
	enum { N = 20000 };
	kl_buf text = { 0 };
	kl_buf_puts(&text, "function %f(i64) -> i64 {\nblock0(v0: i64):\n");
	for (int k = 1; k <= N; k++)
		kl_buf_printf(&text, "    v%d = iadd_imm v%d, 1\n", k, k - 1);
	kl_buf_printf(&text, "    return v%d\n}\n", N);
	kl_module *m = parse_text(text.data, text.len);
	kl_func *f = func_of(m, "f");
	CHECK(f != NULL);
	if (f) {
		kl_pass_report rep = { 0 };
		CHECK_EQ_INT(kl_combine_func(f, &rep), KL_OK);
		CHECK_EQ_INT(kl_pass_report_get(&rep, "insts"), N - 1);
		CHECK(verifies(f));
		kl_block b = kl_func_first_block(f);
		kl_inst ret = kl_block_last_inst(f, b);
		kl_value v = kl_value_resolve(f, kl_inst_arg(f, ret, 0));
		kl_inst def = kl_value_def_inst(f, v);
		CHECK_EQ_INT(kl_inst_opcode(f, def), KL_OP_IADD_IMM);
		CHECK_EQ_INT(kl_inst_imm(f, def), N);
		CHECK_EQ_INT(kl_inst_arg(f, def, 0).id, 0);
		kl_pass_report_free(&rep);
	}
	kl_module_free(m);
	kl_buf_free(&text);
}

int
main(void)
{
	UNIT_RUN(test_broken_input_does_not_crash);
	UNIT_RUN(test_empty_function);
	UNIT_RUN(test_registry_names_the_counters);
	UNIT_RUN(test_long_chain_folds);
	return unit_report("combine");
}
