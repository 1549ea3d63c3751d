/*
 * test_promote.c -- the promote pass on IR that text cannot express
 * because the parser or the verifier rejects it: functions not in strict
 * SSA form, or whose control flow no verifier would accept, must be left
 * alone, accesses outside an alloca keep it, and the returned count of
 * remaining allocas.
 */
#include <stdlib.h>
#include <string.h>

#include "../../src/ir/ir.h"
#include "keel.h"
#include "unit.h"
#include "parsed.h"

/* A function %name(i32) -> i32 in m, the builder at the end of its entry
 * block, its parameter in *param. */
static kl_func *
func_with_entry(kl_module *m, const char *name, kl_builder *b,
		kl_value *param)
{
	kl_type i32 = KL_TYPE_I32;
	kl_signature sig = { &i32, &i32, 1, 1, false };
	kl_func *f = NULL;
	CHECK_EQ_INT(kl_module_add_func(m, name, strlen(name), &sig, &f), KL_OK);
	kl_block entry = kl_func_new_block(f);
	kl_func_append_block(f, entry);
	*param = kl_block_append_param(f, entry, KL_TYPE_I32);
	kl_builder_init(b, f);
	kl_builder_at_end(b, entry);
	return f;
}

/* %name(i32) -> i32 that stores its parameter into a 4-byte alloca at
 * offset, loads it back and returns it; *ret (may be NULL) the return,
 * the builder before nothing (at the end of the entry block). */
static kl_func *
func_through_slot(kl_module *m, const char *name, kl_builder *b,
		  int32_t offset, kl_inst *ret)
{
	kl_value p;
	kl_func *f = func_with_entry(m, name, b, &p);
	kl_value slot = kl_build_alloca(b, 4, 4);
	kl_build_store(b, KL_OP_STORE, p, slot, offset);
	kl_value x = kl_build_load(b, KL_OP_LOAD, KL_TYPE_I32, slot, offset);
	kl_inst r = kl_build_return(b, &x, 1);
	if (ret)
		*ret = r;
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
	kl_builder b;
	kl_inst ret;
	kl_func *f = func_through_slot(m, "f", &b, 0, &ret);
	kl_value x = kl_inst_arg(f, ret, 0);
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

/* Promote f's module without saying it was verified (the pass checks
 * for itself): nothing may change, and the note must say why. */
static void
check_left_alone(kl_func *f, const char *why)
{
	kl_buf before = { 0 }, after = { 0 };
	kl_print_func(f, NULL, &before);
	kl_pass_report rep = { 0 };
	rep.verbose = true;
	CHECK_EQ_INT(kl_promote_func(f, &rep), KL_OK);
	CHECK_EQ_INT(kl_pass_report_get(&rep, "promoted"), 0);
	CHECK(rep.notes.data && strstr(rep.notes.data, why) != NULL);
	kl_print_func(f, NULL, &after);
	CHECK_EQ_STR(after.data, before.data);
	kl_pass_report_free(&rep);
	/* Without a report too (scratch of its own, no note). */
	CHECK_EQ_INT(kl_promote_func(f, NULL), KL_OK);
	kl_buf_reset(&after);
	kl_print_func(f, NULL, &after);
	CHECK_EQ_STR(after.data, before.data);
	kl_buf_free(&before);
	kl_buf_free(&after);
}

/*
 * Uses across blocks that their definitions do not dominate, parsed but
 * not verified (the verifier would reject each): a branch argument
 * defined in the branch's target, an instruction's use of its own result
 * (within a block the definition must come strictly before the use), a
 * use of a value an unreachable block defines, a use of one side of a
 * diamond (a result, a parameter) after it. Each function is left alone;
 * the control functions, whose only such uses are in a block nothing
 * reaches or are defined before the branch in its own block, are
 * promoted.
 */
static const char cross_block_text[] =
	"function %brarg_later(i32) -> i32 {\n"
	"block0(v0: i32):\n"
	"    v1 = alloca 4, align 4\n"
	"    store v0, v1\n"
	"    jump block1(v5)\n"
	"block1(v6: i32):\n"
	"    v5 = load.i32 v1\n"
	"    return v5\n"
	"}\n"
	"function %uses_itself(i32) -> i32 {\n"
	"block0(v0: i32):\n"
	"    v1 = alloca 4, align 4\n"
	"    store v0, v1\n"
	"    v2 = iadd.i32 v2, v0\n"
	"    v3 = load.i32 v1\n"
	"    return v3\n"
	"}\n"
	"function %from_unreachable(i32) -> i32 {\n"
	"block0(v0: i32):\n"
	"    v1 = alloca 4, align 4\n"
	"    store v0, v1\n"
	"    jump block2\n"
	"block1:\n"
	"    v5 = iconst.i32 3\n"
	"    jump block2\n"
	"block2:\n"
	"    v6 = iadd v5, v0\n"
	"    v7 = load.i32 v1\n"
	"    return v7\n"
	"}\n"
	"function %one_side(i32) -> i32 {\n"
	"block0(v0: i32):\n"
	"    v1 = alloca 4, align 4\n"
	"    store v0, v1\n"
	"    brif v0, block1, block2\n"
	"block1:\n"
	"    v5 = iconst.i32 3\n"
	"    jump block3\n"
	"block2:\n"
	"    jump block3\n"
	"block3:\n"
	"    v6 = load.i32 v1\n"
	"    v7 = iadd v6, v5\n"
	"    return v7\n"
	"}\n"
	"function %param_one_side(i32) -> i32 {\n"
	"block0(v0: i32):\n"
	"    v1 = alloca 4, align 4\n"
	"    store v0, v1\n"
	"    brif v0, block1(v0), block2\n"
	"block1(v5: i32):\n"
	"    jump block3\n"
	"block2:\n"
	"    jump block3\n"
	"block3:\n"
	"    v6 = load.i32 v1\n"
	"    v7 = iadd v6, v5\n"
	"    return v7\n"
	"}\n"
	"function %use_unreachable(i32) -> i32 {\n"
	"block0(v0: i32):\n"
	"    v1 = alloca 4, align 4\n"
	"    store v0, v1\n"
	"    v2 = load.i32 v1\n"
	"    return v2\n"
	"block1:\n"
	"    v3 = iadd.i32 v4, v0\n"
	"    jump block2\n"
	"block2:\n"
	"    v4 = iconst.i32 1\n"
	"    return v3\n"
	"}\n"
	"function %brarg_own_block(i32) -> i32 {\n"
	"block0(v0: i32):\n"
	"    v1 = alloca 4, align 4\n"
	"    store v0, v1\n"
	"    v2 = load.i32 v1\n"
	"    jump block1(v2)\n"
	"block1(v3: i32):\n"
	"    return v3\n"
	"}\n";

static void
test_cross_block_uses_not_dominated_are_left_alone(void)
{
	kl_module *m = NULL;
	kl_diags d = { 0 };
	CHECK_EQ_INT(kl_parse_module(cross_block_text,
				     sizeof cross_block_text - 1, NULL, &m, &d),
		     KL_OK);
	kl_diags_free(&d);
	if (!m)
		return;
	const char *left_alone[] = { "brarg_later", "uses_itself",
				     "from_unreachable", "one_side",
				     "param_one_side" };
	const char *promoted[] = { "use_unreachable", "brarg_own_block" };
	for (size_t k = 0; k < sizeof left_alone / sizeof *left_alone; k++) {
		kl_func *f = kl_sym_func(m, kl_module_lookup(m, left_alone[k],
						 strlen(left_alone[k])));
		CHECK(f != NULL);
		if (f)
			check_left_alone(f, "not in strict SSA form");
	}
	for (size_t k = 0; k < sizeof promoted / sizeof *promoted; k++) {
		kl_func *f = kl_sym_func(m, kl_module_lookup(m, promoted[k],
						 strlen(promoted[k])));
		CHECK(f != NULL);
		if (!f)
			continue;
		kl_pass_report rep = { 0 };
		CHECK_EQ_INT(kl_promote_func(f, &rep), KL_OK);
		CHECK_EQ_INT(kl_pass_report_get(&rep, "promoted"), 1);
		CHECK_EQ_INT(count_allocas(f), 0);
		kl_pass_report_free(&rep);
	}
	kl_module_free(m);
}

/*
 * Values the strict SSA check has to look at before anything trusts
 * them: 41 allocas that all define v1 (the search for addresses queued
 * an alloca's result once per definition, past the end of its queue of
 * one word a value), and a store, in a block nothing reaches, of a value
 * the function does not have or of one nothing defines (its type was
 * read out of range, or taken as 0 bytes wide, which made a slot of no
 * width and mistyped conversions).
 */
static void
test_values_without_one_definition_are_left_alone(void)
{
	kl_module *m = kl_module_new();
	kl_builder b;
	kl_value p;
	kl_func *f = func_with_entry(m, "twice", &b, &p);
	kl_value slot = kl_build_alloca(&b, 4, 4);
	uint32_t first = kl_value_def_inst(f, slot).id;
	for (int k = 0; k < 40; k++) {
		kl_inst s = kl_build_store(&b, KL_OP_STORE, p, slot, 0);
		f->insts[s.id] = f->insts[first]; /* v1 = alloca 4, again */
	}
	kl_value x = kl_build_load(&b, KL_OP_LOAD, KL_TYPE_I32, slot, 0);
	kl_build_return(&b, &x, 1);
	CHECK_EQ_INT(kl_builder_status(&b), KL_OK);
	check_left_alone(f, "not in strict SSA form");

	for (int hole = 0; hole < 2; hole++) {
		f = func_through_slot(m, hole ? "hole" : "out", &b, 0, NULL);
		kl_block entry = kl_func_first_block(f);
		p = kl_block_param(f, entry, 0);
		slot = kl_inst_result(f, kl_block_first_inst(f, entry), 0);
		kl_block dead = kl_func_new_block(f);
		kl_func_append_block(f, dead);
		kl_builder_at_end(&b, dead);
		kl_inst s = kl_build_store(&b, KL_OP_STORE, p, slot, 0);
		kl_build_return(&b, &p, 1);
		CHECK_EQ_INT(kl_builder_status(&b), KL_OK);
		f->insts[s.id].w[0] = hole ? func_new_value(f) : 100000;
		check_left_alone(f, "not in strict SSA form");
	}
	kl_module_free(m);
}

/*
 * Values defined twice where each definition names its value as its
 * own, which only the check's marks of values seen catch: one value
 * twice in a block's parameter list, and twice among a call's results.
 * And iadd_imm chains the search for addresses must not follow: one that
 * defines an alloca's result again from an address derived from it (v1
 * = iadd_imm v2, -4, a cycle), and one whose operand is no value at all.
 * Parsed with other values there, then changed. (Mutation testing,
 * 2026-12-06: the pass without those checks passed every earlier test.)
 */
static const char defined_twice_text[] =
	"declare %two() -> i32, i32\n"
	"function %param_twice(i32) -> i32 {\n"
	"block0(v0: i32):\n"
	"    v1 = alloca 4, align 4\n"
	"    store v0, v1\n"
	"    jump block1(v0, v0)\n"
	"block1(v5: i32, v6: i32):\n"
	"    v7 = load.i32 v1\n"
	"    v8 = iadd v7, v5\n"
	"    return v8\n"
	"}\n"
	"function %result_twice(i32) -> i32 {\n"
	"block0(v0: i32):\n"
	"    v1 = alloca 4, align 4\n"
	"    store v0, v1\n"
	"    v5, v6 = call %two()\n"
	"    v7 = load.i32 v1\n"
	"    v8 = iadd v7, v5\n"
	"    return v8\n"
	"}\n"
	"function %derived_twice(i32) -> i32 {\n"
	"block0(v0: i32):\n"
	"    v1 = alloca 8, align 8\n"
	"    v2 = iadd_imm v1, 4\n"
	"    v9 = iadd_imm v2, -4\n"
	"    store v0, v2\n"
	"    v3 = load.i32 v2\n"
	"    return v3\n"
	"}\n"
	"function %derived_from_nothing(i32) -> i32 {\n"
	"block0(v0: i32):\n"
	"    v1 = alloca 8, align 8\n"
	"    v2 = iadd_imm v1, 4\n"
	"    v4 = iadd_imm v2, 4\n"
	"    store v0, v2\n"
	"    v3 = load.i32 v2\n"
	"    return v3\n"
	"}\n";

static void
test_values_named_twice_are_left_alone(void)
{
	kl_module *m = parse_text(defined_twice_text,
				  sizeof defined_twice_text - 1);
	if (!m)
		return;
	kl_func *f = kl_sym_func(m, sym(m, "param_twice"));
	kl_block b1 = kl_block_next(f, kl_func_first_block(f));
	list_elems(&f->pool, f->blocks[b1.id].params)[1] = 5;
	check_left_alone(f, "not in strict SSA form");

	f = kl_sym_func(m, sym(m, "result_twice"));
	kl_inst call = kl_value_def_inst(f, (kl_value){ 5 });
	list_elems(&f->pool, f->insts[call.id].w[0])[1] = 5;
	check_left_alone(f, "not in strict SSA form");

	f = kl_sym_func(m, sym(m, "derived_twice"));
	f->insts[kl_value_def_inst(f, (kl_value){ 9 }).id].w[0] = 1;
	check_left_alone(f, "not in strict SSA form");

	/* (an operand far past the values: the search for addresses must
	 * not index its arrays with it) */
	f = kl_sym_func(m, sym(m, "derived_from_nothing"));
	f->insts[kl_value_def_inst(f, (kl_value){ 4 }).id].w[1] = 1u << 28;
	check_left_alone(f, "not in strict SSA form");
	kl_module_free(m);
}

/*
 * Control flow the verifier rejects, which the pass's own facts would
 * get wrong: a branch into the entry block (whose allocas then run more
 * than once, and whose parameters are the function's), and a branch
 * before the end of its block (the pass reads a block's successors off
 * its last instruction).
 */
static void
test_malformed_control_flow_is_left_alone(void)
{
	static const char *const texts[] = {
		"function %f(i64) -> i64 {\n"
		"block0(v0: i64):\n"
		"    v1 = alloca 8, align 8\n"
		"    v2 = load.i64 v1\n"
		"    v3 = iadd_imm v2, 1\n"
		"    store v3, v1\n"
		"    v4 = icmp_imm slt v3, 10\n"
		"    brif v4, block0(v0), block1\n"
		"\n"
		"block1:\n"
		"    v5 = load.i64 v1\n"
		"    return v5\n"
		"}\n",
		"function %f(i64) -> i64 {\n"
		"block0(v0: i64):\n"
		"    v1 = alloca 8, align 8\n"
		"    store v0, v1\n"
		"    brif v0, block1, block2\n"
		"    v5 = iconst.i64 3\n"
		"    store v5, v1\n"
		"    jump block2\n"
		"\n"
		"block1:\n"
		"    v6 = iconst.i64 4\n"
		"    store v6, v1\n"
		"    jump block2\n"
		"\n"
		"block2:\n"
		"    v2 = load.i64 v1\n"
		"    return v2\n"
		"}\n",
	};
	for (size_t k = 0; k < sizeof texts / sizeof texts[0]; k++) {
		kl_module *m = NULL;
		kl_diags d = { 0 };
		CHECK_EQ_INT(kl_parse_module(texts[k], strlen(texts[k]), NULL,
					     &m, &d),
			     KL_OK);
		kl_diags_free(&d);
		if (!m)
			continue;
		CHECK(kl_verify_module(m, &d) != KL_OK);
		kl_diags_free(&d);
		kl_func *f = kl_sym_func(m, kl_module_lookup(m, "f", 1));
		check_left_alone(f, "control flow is malformed");
		kl_module_free(m);
	}
}

static void
test_out_of_bounds_keeps_the_alloca(void)
{
	kl_module *m = kl_module_new();
	kl_builder b;
	/* bytes 2..5 of 4 */
	kl_func *f = func_through_slot(m, "f", &b, 2, NULL);
	kl_pass_report rep = { 0 };
	rep.verbose = true;
	kl_promote_func(f, &rep);
	CHECK_EQ_INT(count_allocas(f), 1);
	/* the first access in the layout: the store */
	CHECK(rep.notes.data &&
	      strstr(rep.notes.data, "an access lies outside it at inst1") !=
		      NULL);
	kl_pass_report_free(&rep);

	/* A negative offset through iadd_imm is outside too. */
	kl_module *m2 = kl_module_new();
	kl_value p;
	f = func_with_entry(m2, "g", &b, &p);
	kl_value slot = kl_build_alloca(&b, 8, 4);
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

/* The registry names promote's counters in the order it reports them
 * (keel opt --stats prints the registry's list, also when no function
 * ran), on a function with nothing to promote and one with an alloca. */
static void
test_registry_names_the_counters(void)
{
	const kl_pass *pass = kl_pass_find("promote", 7);
	CHECK(pass && pass->counters);
	if (!pass || !pass->counters)
		return;
	for (int with_alloca = 0; with_alloca < 2; with_alloca++) {
		kl_module *m = kl_module_new();
		kl_builder b;
		kl_value p;
		kl_func *f = func_with_entry(m, "f", &b, &p);
		if (with_alloca) {
			kl_value slot = kl_build_alloca(&b, 4, 4);
			kl_build_store(&b, KL_OP_STORE, p, slot, 0);
		}
		kl_build_return(&b, &p, 1);
		kl_pass_report rep = { 0 };
		CHECK(pass->run(f, &rep) == KL_OK);
		uint32_t n = 0;
		while (pass->counters[n])
			n++;
		CHECK_EQ_INT(rep.num_counters, n);
		for (uint32_t i = 0; i < n && i < rep.num_counters; i++)
			CHECK_EQ_STR(rep.counters[i].name, pass->counters[i]);
		kl_pass_report_free(&rep);
		kl_module_free(m);
	}
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
		"}\n"
		"\n"
		"function %c(i64, i32) -> i32 {\n"
		"block0(v0: i64, v1: i32):\n"
		"    v2 = alloca_dyn v0, align 4\n"
		"    store v1, v2\n"
		"    jump block1\n"
		"\n"
		"block1:\n"
		"    v3 = alloca 4, align 4\n"
		"    store v1, v3\n"
		"    v4 = load.i32 v3\n"
		"    v5 = load.i32 v2\n"
		"    v6 = iadd v4, v5\n"
		"    return v6\n"
		"}\n";
	kl_module *m = NULL;
	kl_diags d = { 0 };
	CHECK_EQ_INT(kl_parse_module(text, strlen(text), NULL, &m, &d), KL_OK);
	if (!m)
		return;
	kl_pass_report rep = { 0 };
	/* Kept: %a's escaping v2, %c's alloca_dyn and its alloca outside
	   the entry block; all three count as remaining. */
	CHECK_EQ_INT(kl_promote_module(m, &rep), 3);
	CHECK_EQ_INT(kl_pass_report_get(&rep, "promoted"), 2);
	CHECK_EQ_INT(kl_pass_report_get(&rep, "kept"), 3);
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
	CHECK_EQ_INT(kl_promote_module(m, NULL), 3);
	kl_print_module(m, NULL, &after);
	CHECK_EQ_STR(after.data, before.data);
	kl_buf_free(&before);
	kl_buf_free(&after);
	kl_pass_report_free(&rep);
	kl_diags_free(&d);
	kl_module_free(m);
}

/*
 * A loop nest of depth D whose counters are all set in the entry block:
 * nothing dominates their loads but the entry, so minimal SSA gives
 * counter i a candidate at every enclosing header, D^2/2 in all, past
 * the budget the tests set (NEST_LIMIT candidates; the default, some 4
 * million, would make the tests slow). The pass must keep the allocas it
 * cannot afford, say why, and still be right.
 */
enum { NEST_LIMIT = 100000 };

static kl_func *
counter_nest(kl_module *m, uint32_t depth, bool pairs)
{
	kl_type i64 = KL_TYPE_I64;
	kl_signature sig = { NULL, &i64, 0, 1, false };
	kl_func *f = NULL;
	kl_module_add_func(m, "nest", 4, &sig, &f);
	kl_block entry = kl_func_new_block(f);
	kl_func_append_block(f, entry);
	kl_block *h = calloc(depth, sizeof *h), *l = calloc(depth, sizeof *l),
		 *x = calloc(depth, sizeof *x);
	kl_value *slot = calloc(depth, sizeof *slot);
	for (uint32_t i = 0; i < depth; i++) {
		h[i] = kl_func_new_block(f);
		l[i] = kl_func_new_block(f);
		x[i] = kl_func_new_block(f);
		kl_func_append_block(f, h[i]);
		kl_func_append_block(f, l[i]);
		kl_func_append_block(f, x[i]);
	}
	kl_builder b;
	kl_builder_init(&b, f);
	kl_builder_at_end(&b, entry);
	kl_value zero = kl_build_iconst(&b, KL_TYPE_I64, 0);
	for (uint32_t i = 0; i < depth; i++) {
		slot[i] = kl_build_alloca(&b, pairs ? 16 : 8, 8);
		kl_build_store(&b, KL_OP_STORE, zero, slot[i], 0);
		if (pairs)
			kl_build_store(&b, KL_OP_STORE, zero, slot[i], 8);
	}
	kl_build_jump(&b, (kl_block_call){ h[0], NULL, 0 });
	for (uint32_t i = 0; i < depth; i++) {
		/* h_i: while (c_i < 2) enter the next loop (or the latch) */
		kl_builder_at_end(&b, h[i]);
		kl_value v = kl_build_load(&b, KL_OP_LOAD, KL_TYPE_I64, slot[i], 0);
		kl_value c = kl_build_icmp_imm(&b, KL_ICC_SLT, v, 2);
		kl_block in = i + 1 < depth ? h[i + 1] : l[i];
		kl_build_brif(&b, c, (kl_block_call){ in, NULL, 0 },
			      (kl_block_call){ x[i], NULL, 0 });
		/* l_i: c_i += 1 */
		kl_builder_at_end(&b, l[i]);
		v = kl_build_load(&b, KL_OP_LOAD, KL_TYPE_I64, slot[i], 0);
		v = kl_build_binary_imm(&b, KL_OP_IADD_IMM, v, 1);
		kl_build_store(&b, KL_OP_STORE, v, slot[i], 0);
		if (pairs) { /* a second slot, counting the same way */
			v = kl_build_load(&b, KL_OP_LOAD, KL_TYPE_I64, slot[i],
					  8);
			v = kl_build_binary_imm(&b, KL_OP_IADD_IMM, v, 1);
			kl_build_store(&b, KL_OP_STORE, v, slot[i], 8);
		}
		kl_build_jump(&b, (kl_block_call){ h[i], NULL, 0 });
		/* x_i: leave loop i, back to the enclosing latch; the
		 * outermost returns the innermost counter */
		kl_builder_at_end(&b, x[i]);
		if (i > 0) {
			kl_build_jump(&b, (kl_block_call){ l[i - 1], NULL, 0 });
		} else {
			v = kl_build_load(&b, KL_OP_LOAD, KL_TYPE_I64,
					  slot[depth - 1], 0);
			if (pairs) {
				kl_value w = kl_build_load(&b, KL_OP_LOAD,
							   KL_TYPE_I64,
							   slot[depth - 1], 8);
				v = kl_build_binary(&b, KL_OP_IADD, v, w);
			}
			kl_build_return(&b, &v, 1);
		}
	}
	CHECK_EQ_INT(kl_builder_status(&b), KL_OK);
	free(h);
	free(l);
	free(x);
	free(slot);
	return f;
}

static uint64_t
run_nest(kl_module *m)
{
	kl_interp_options o = { 0 };
	o.fuel = 100000000;
	kl_interp *it = kl_interp_new(m, &o);
	kl_run_result r;
	kl_interp_call(it, kl_module_lookup(m, "nest", 4), NULL, 0, &r);
	CHECK_EQ_INT(r.status, KL_RUN_RETURNED);
	uint64_t v = r.status == KL_RUN_RETURNED ? r.results[0] : ~0ull;
	kl_interp_free(it);
	return v;
}

/* Promote a counter nest of the given depth with rep (as the caller set
 * it up); the result must verify and run as before. Returns how many
 * allocas remain. */
static uint32_t
promote_nest_and_run(uint32_t depth, bool pairs, kl_pass_report *rep)
{
	kl_module *m = kl_module_new();
	kl_func *f = counter_nest(m, depth, pairs);
	kl_diags d = { 0 };
	CHECK_EQ_INT(kl_verify_module(m, &d), KL_OK);
	uint64_t before = run_nest(m);
	CHECK_EQ_INT(kl_promote_func(f, rep), KL_OK);
	CHECK_EQ_INT(kl_verify_module(m, &d), KL_OK);
	CHECK_EQ_INT(run_nest(m), before);
	uint32_t left = count_allocas(f);
	kl_diags_free(&d);
	kl_module_free(m);
	return left;
}

static void
test_budget_keeps_what_it_cannot_afford(void)
{
	kl_pass_report rep = { 0 };
	rep.verbose = true;
	rep.size_limit = NEST_LIMIT;
	uint32_t left = promote_nest_and_run(600, false, &rep);
	uint64_t promoted = kl_pass_report_get(&rep, "promoted");
	uint64_t kept = kl_pass_report_get(&rep, "kept");
	CHECK(promoted > 0 && kept > 0 && promoted + kept == 600);
	CHECK_EQ_INT(left, kept);
	CHECK(rep.notes.data && strstr(rep.notes.data, "too many block "
					"parameters would be needed"));
	kl_pass_report_free(&rep);
	/* A shallow nest fits the budget: everything is promoted. */
	kl_pass_report shallow = { 0 };
	shallow.size_limit = NEST_LIMIT;
	CHECK_EQ_INT(promote_nest_and_run(40, false, &shallow), 0);
	kl_pass_report_free(&shallow);
	/* So does the deep one with the default budget. */
	CHECK_EQ_INT(promote_nest_and_run(600, false, NULL), 0);
}

/*
 * The branch arguments are bounded too, at four times the candidates'
 * budget: nine slots stored in block1, whose br_table gives block2 50
 * edges of the 51 into it, take a candidate there each, 51 arguments.
 * With a budget of 100 candidates, 400 arguments: after eight slots
 * (408) the ninth alloca is kept. (Mutation testing, 2026-12-06: a
 * bound of twice the budget passed every earlier test.)
 */
static const char wide_join_text[] =
	"function %wide(i32) -> i32 {\n"
	"block0(v0: i32):\n"
	"    v1 = alloca 4, align 4\n"
	"    v2 = alloca 4, align 4\n"
	"    v3 = alloca 4, align 4\n"
	"    v4 = alloca 4, align 4\n"
	"    v5 = alloca 4, align 4\n"
	"    v6 = alloca 4, align 4\n"
	"    v7 = alloca 4, align 4\n"
	"    v8 = alloca 4, align 4\n"
	"    v9 = alloca 4, align 4\n"
	"    brif v0, block1, block2\n"
	"block1:\n"
	"    v10 = iconst.i32 1\n"
	"    store v10, v1\n"
	"    store v10, v2\n"
	"    store v10, v3\n"
	"    store v10, v4\n"
	"    store v10, v5\n"
	"    store v10, v6\n"
	"    store v10, v7\n"
	"    store v10, v8\n"
	"    store v10, v9\n"
	"    br_table v0, block2, [block2, block2, block2, block2, block2,\n"
	"        block2, block2, block2, block2, block2, block2, block2,\n"
	"        block2, block2, block2, block2, block2, block2, block2,\n"
	"        block2, block2, block2, block2, block2, block2, block2,\n"
	"        block2, block2, block2, block2, block2, block2, block2,\n"
	"        block2, block2, block2, block2, block2, block2, block2,\n"
	"        block2, block2, block2, block2, block2, block2, block2,\n"
	"        block2, block2]\n"
	"block2:\n"
	"    v11 = load.i32 v1\n"
	"    v12 = load.i32 v2\n"
	"    v13 = load.i32 v3\n"
	"    v14 = load.i32 v4\n"
	"    v15 = load.i32 v5\n"
	"    v16 = load.i32 v6\n"
	"    v17 = load.i32 v7\n"
	"    v18 = load.i32 v8\n"
	"    v19 = load.i32 v9\n"
	"    v20 = iadd v11, v12\n"
	"    v21 = iadd v20, v13\n"
	"    v22 = iadd v21, v14\n"
	"    v23 = iadd v22, v15\n"
	"    v24 = iadd v23, v16\n"
	"    v25 = iadd v24, v17\n"
	"    v26 = iadd v25, v18\n"
	"    v27 = iadd v26, v19\n"
	"    return v27\n"
	"}\n";

static void
test_branch_arguments_have_a_budget(void)
{
	kl_module *m = parse_text(wide_join_text, sizeof wide_join_text - 1);
	if (!m)
		return;
	kl_func *f = kl_sym_func(m, sym(m, "wide"));
	CHECK(verifies(f));
	kl_pass_report rep = { 0 };
	rep.verbose = true;
	rep.input_verified = true;
	rep.size_limit = 100;
	CHECK_EQ_INT(kl_promote_func(f, &rep), KL_OK);
	CHECK(verifies(f));
	CHECK_EQ_INT(kl_pass_report_get(&rep, "promoted"), 8);
	CHECK_EQ_INT(kl_pass_report_get(&rep, "kept"), 1);
	CHECK(rep.notes.data && strstr(rep.notes.data, "kept v9 (inst8, line "
				       "11): too many block parameters would "
				       "be needed\n"));
	kl_pass_report_free(&rep);
	kl_module_free(m);
}

/*
 * A function of more than 64 blocks with at most 128 slots places them
 * all at once, and the budget holds there too: a nest 40 deep (121
 * blocks) takes 820 candidates, 1,640 branch arguments, past a budget of
 * 500 but not past the arguments' (2,000). Placed slot by slot instead,
 * the first 32 slots take 528 and the last 8 allocas are kept.
 * (Mutation testing, 2026-12-06: placement at once without the budget
 * passed every earlier test.)
 */
static void
test_budget_holds_for_slots_placed_at_once(void)
{
	kl_pass_report rep = { 0 };
	rep.verbose = true;
	rep.size_limit = 500;
	CHECK_EQ_INT(promote_nest_and_run(40, false, &rep), 8);
	CHECK_EQ_INT(kl_pass_report_get(&rep, "promoted"), 32);
	CHECK_EQ_INT(kl_pass_report_get(&rep, "kept"), 8);
	CHECK(rep.notes.data && strstr(rep.notes.data, "too many block "
					"parameters would be needed"));
	kl_pass_report_free(&rep);
}

/* Any size_limit is a budget, the largest too (it was divided by after
 * adding one, which wrapped to a division by zero). The nest's counters
 * take 1, 2 and 3 candidates, outermost first: a budget of 1 or 2 is
 * passed by the second (3 candidates), which is still promoted, and
 * keeps the third; the largest budgets keep nothing. */
static void
test_size_limit_extremes(void)
{
	uint64_t limits[] = { 1, 2, UINT64_MAX - 1, UINT64_MAX };
	uint32_t kept[] = { 1, 1, 0, 0 };
	for (size_t k = 0; k < sizeof limits / sizeof *limits; k++) {
		kl_pass_report rep = { 0 };
		rep.size_limit = limits[k];
		rep.input_verified = true;
		CHECK_EQ_INT(promote_nest_and_run(3, false, &rep), kept[k]);
		CHECK_EQ_INT(kl_pass_report_get(&rep, "kept"), kept[k]);
		CHECK_EQ_INT(kl_pass_report_get(&rep, "promoted"), 3 - kept[k]);
		kl_pass_report_free(&rep);
	}
}

/*
 * The same with two slots an alloca: the budget may run out between the
 * slots of one alloca, whose accesses must then all stay as they are
 * (the first slot's as much as the second's). A slot's candidates depend
 * on its loop's level counted from the outside, not on the depth, so the
 * cut falls after the same slot at every depth past the budget: it is
 * the budget that moves it. Near the cut a slot has some 317 candidates:
 * budgets 100 apart over 800 put the cut between the two slots of an
 * alloca in some runs (200 to 400 over NEST_LIMIT, when this was
 * written) and between allocas in others. (Depths 330 to 341 at one
 * budget, as this test had it, all cut between allocas, and passed with
 * the bug it is named for put back.)
 */
static void
test_budget_keeps_whole_allocas(void)
{
	const uint32_t depth = 340;
	for (uint32_t extra = 0; extra < 800; extra += 100) {
		kl_pass_report rep = { 0 };
		rep.size_limit = NEST_LIMIT + extra;
		uint32_t left = promote_nest_and_run(depth, true, &rep);
		uint64_t kept = kl_pass_report_get(&rep, "kept");
		CHECK(kept > 0 && kept < depth);
		CHECK_EQ_INT(left, kept);
		kl_pass_report_free(&rep);
	}
}

/*
 * A verified function of more than 64 blocks takes its dominance facts
 * from its terminators, as compact arrays (promote_dom.c): the nest
 * (121 blocks, loops inside loops) must run the same after the pass, be
 * valid, and have no alloca left.
 */
static void
test_verified_nest_promotes_exactly(void)
{
	kl_pass_report rep = { 0 };
	rep.input_verified = true;
	CHECK_EQ_INT(promote_nest_and_run(40, false, &rep), 0);
	CHECK_EQ_INT(kl_pass_report_get(&rep, "promoted"), 40);
	kl_pass_report_free(&rep);
}

static int other_state_freed;

static void
free_other_state(void *state)
{
	other_state_freed += *(int *)state == 42;
}

/* A report that holds another pass's scratch (keel.h asks for one report
 * a pass, but nothing enforces it): promote must neither take that
 * scratch for its own nor drop it, and must still promote. It took it. */
static void
test_report_with_another_pass_state(void)
{
	kl_module *m = kl_module_new();
	kl_builder b;
	kl_func *f = func_through_slot(m, "f", &b, 0, NULL);
	int other = 42;
	kl_pass_report rep = { .state = &other,
			       .state_free = free_other_state };
	CHECK_EQ_INT(kl_promote_func(f, &rep), KL_OK);
	CHECK_EQ_INT(count_allocas(f), 0);
	CHECK(rep.state == &other && rep.state_free == free_other_state);
	CHECK_EQ_INT(kl_verify_func(f, NULL, NULL), KL_OK);
	other_state_freed = 0;
	kl_pass_report_free(&rep);
	CHECK_EQ_INT(other_state_freed, 1);
	kl_module_free(m);
}

/* Aliases in the input that stood for a promoted alloca's address go
 * with it (docs/passes.md: their numbers become holes), also through a
 * chain of aliases and an iadd_imm; an alias of a kept alloca's address
 * stays. Nothing in the printed text shows it: an unused alias is not
 * printed either way. */
static void
test_aliases_of_promoted_addresses_are_dropped(void)
{
	const char *text =
		"declare %use(i64)\n"
		"\n"
		"function %f(i32) -> i32 {\n"
		"block0(v0: i32):\n"
		"    v1 = alloca 8, align 8\n"
		"    v2 = alloca 4, align 4\n"
		"    v10 -> v1\n"
		"    v11 -> v10\n"
		"    v3 = iadd_imm v11, 4\n"
		"    v12 -> v3\n"
		"    v13 -> v2\n"
		"    store v0, v11\n"
		"    store v0, v12\n"
		"    call %use(v13)\n"
		"    v4 = load.i32 v10\n"
		"    v5 = load.i32 v3\n"
		"    v6 = iadd v4, v5\n"
		"    return v6\n"
		"}\n";
	kl_module *m = parse_text(text, strlen(text));
	if (!m)
		return;
	kl_func *f = kl_sym_func(m, sym(m, "f"));
	for (uint32_t v = 10; v <= 13; v++)
		CHECK(kl_value_is_alias(f, (kl_value){ v }));
	kl_pass_report rep = { 0 };
	CHECK_EQ_INT(kl_promote_func(f, &rep), KL_OK);
	CHECK_EQ_INT(kl_pass_report_get(&rep, "promoted"), 1);
	CHECK_EQ_INT(kl_pass_report_get(&rep, "kept"), 1);
	kl_pass_report_free(&rep);
	for (uint32_t v = 10; v <= 12; v++)
		CHECK(!kl_value_is_alias(f, (kl_value){ v }));
	CHECK(kl_value_is_alias(f, (kl_value){ 13 }));
	CHECK_EQ_INT(kl_value_resolve(f, (kl_value){ 13 }).id, 2);
	CHECK_EQ_INT(kl_verify_func(f, NULL, NULL), KL_OK);
	kl_module_free(m);
}

int
main(void)
{
	UNIT_RUN(test_not_strict_ssa_is_left_alone);
	UNIT_RUN(test_values_without_one_definition_are_left_alone);
	UNIT_RUN(test_values_named_twice_are_left_alone);
	UNIT_RUN(test_cross_block_uses_not_dominated_are_left_alone);
	UNIT_RUN(test_malformed_control_flow_is_left_alone);
	UNIT_RUN(test_out_of_bounds_keeps_the_alloca);
	UNIT_RUN(test_registry_names_the_counters);
	UNIT_RUN(test_module_count_and_verified_result);
	UNIT_RUN(test_budget_keeps_what_it_cannot_afford);
	UNIT_RUN(test_budget_keeps_whole_allocas);
	UNIT_RUN(test_size_limit_extremes);
	UNIT_RUN(test_budget_holds_for_slots_placed_at_once);
	UNIT_RUN(test_branch_arguments_have_a_budget);
	UNIT_RUN(test_verified_nest_promotes_exactly);
	UNIT_RUN(test_report_with_another_pass_state);
	UNIT_RUN(test_aliases_of_promoted_addresses_are_dropped);
	return unit_report("promote");
}
