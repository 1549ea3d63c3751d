/*
 * test_interp_edit.c -- an interpreter runs a function as it is now.
 *
 * A program runs a function, changes it through the public API (the
 * builder, the operand setters, removal and insertion, a pass) and calls
 * it again with the same interpreter: the second call must run the new
 * code, not the decoding kept from the first (which used to run, giving
 * the old answer silently). Also: a function that did not change is not
 * decoded again, a callee changed under an unchanged caller is, a
 * function made to refer to a symbol added after the interpreter fails
 * cleanly until a reset, every public call that can change a function bumps its
 * change counter (the list the interpreter relies on), and a change made
 * from the output callback during a call stops the run.
 */
#include <stdlib.h>

#include "keel.h"
#include "../../src/interp/interp.h"
#include "parsed.h"
#include "unit.h"

static const char program[] =
	"function %inc(i32) -> i32 {\n"
	"block0(v0: i32):\n"
	"    v1 = iconst.i32 1\n"
	"    v2 = iadd v0, v1\n"
	"    return v2\n"
	"}\n"
	"\n"
	"function %twice(i32) -> i32 {\n"
	"block0(v0: i32):\n"
	"    v1 = iadd v0, v0\n"
	"    v2 = imul_imm v1, 3\n"
	"    return v2\n"
	"}\n"
	"\n"
	"function %g(i32) -> i32 {\n"
	"block0(v0: i32):\n"
	"    v1 = iadd_imm v0, 100\n"
	"    return v1\n"
	"}\n"
	"\n"
	"function %h(i32) -> i32 {\n"
	"block0(v0: i32):\n"
	"    v1 = iadd_imm v0, 200\n"
	"    return v1\n"
	"}\n"
	"\n"
	"function %caller(i32) -> i32 {\n"
	"block0(v0: i32):\n"
	"    v1 = call %g(v0)\n"
	"    return v1\n"
	"}\n"
	"\n"
	"function %pick(i32) -> i32 {\n"
	"block0(v0: i32):\n"
	"    v1 = iconst.i32 7\n"
	"    jump block1(v0)\n"
	"\n"
	"block1(v2: i32):\n"
	"    return v2\n"
	"}\n"
	"\n"
	"function %sum(i64) -> i64 {\n"
	"block0(v0: i64):\n"
	"    v1 = alloca 8, align 8\n"
	"    v2 = iconst.i64 0\n"
	"    store v2, v1\n"
	"    jump block1(v0)\n"
	"\n"
	"block1(v3: i64):\n"
	"    brif v3, block2, block3\n"
	"\n"
	"block2:\n"
	"    v4 = load.i64 v1\n"
	"    v5 = iadd v4, v3\n"
	"    store v5, v1\n"
	"    v6 = iadd_imm v3, -1\n"
	"    jump block1(v6)\n"
	"\n"
	"block3:\n"
	"    v7 = load.i64 v1\n"
	"    return v7\n"
	"}\n";

/* The module of program (free it). */
static kl_module *
parse(void)
{
	return parse_text(program, sizeof program - 1);
}

static kl_func *
func(const kl_module *m, const char *name)
{
	return kl_sym_func(m, sym(m, name));
}

/* The first placed instruction of f with opcode op. */
static kl_inst
find(const kl_func *f, kl_opcode op)
{
	for (kl_block b = kl_func_first_block(f); b.id != KL_NONE;
	     b = kl_block_next(f, b))
		for (kl_inst i = kl_block_first_inst(f, b); i.id != KL_NONE;
		     i = kl_inst_next(f, i))
			if (kl_inst_opcode(f, i) == op)
				return i;
	return KL_NO_INST;
}

/* Call name(arg), which must return one result; that result. */
static uint64_t
run1(kl_interp *it, const kl_module *m, const char *name, uint64_t arg)
{
	kl_run_result r;
	CHECK(kl_interp_call(it, sym(m, name), &arg, 1, &r) == KL_OK);
	CHECK_EQ_INT(r.status, KL_RUN_RETURNED);
	if (r.status != KL_RUN_RETURNED || r.num_results != 1)
		return ~0ull;
	return r.results[0];
}

/* A constant operand replaced: iadd v0, 1 becomes iadd v0, 10 (the
 * decoder folds constants into the instruction, so the old constant
 * would be baked into the kept decoding). */
static void
test_set_arg(void)
{
	kl_module *m = parse();
	kl_func *f = func(m, "inc");
	kl_interp *it = kl_interp_new(m, NULL);
	CHECK_EQ_INT(run1(it, m, "inc", 5), 6);
	kl_inst add = find(f, KL_OP_IADD);
	kl_builder b;
	kl_builder_init(&b, f);
	kl_builder_before(&b, add);
	kl_value ten = kl_build_iconst(&b, KL_TYPE_I32, 10);
	CHECK(kl_builder_status(&b) == KL_OK);
	CHECK(kl_inst_set_arg(f, add, 1, ten) == KL_OK);
	CHECK(verifies(f));
	CHECK_EQ_INT(run1(it, m, "inc", 5), 15);
	kl_interp_free(it);
	kl_module_free(m);
}

/* An instruction added, then removed again. */
static void
test_add_remove_inst(void)
{
	kl_module *m = parse();
	kl_func *f = func(m, "inc");
	kl_interp *it = kl_interp_new(m, NULL);
	CHECK_EQ_INT(run1(it, m, "inc", 5), 6);
	kl_inst ret = find(f, KL_OP_RETURN);
	kl_value sum = kl_inst_arg(f, ret, 0);
	kl_builder b;
	kl_builder_init(&b, f);
	kl_builder_before(&b, ret);
	kl_value sq = kl_build_binary(&b, KL_OP_IMUL, sum, sum);
	CHECK(kl_builder_status(&b) == KL_OK);
	CHECK(kl_inst_set_arg(f, ret, 0, sq) == KL_OK);
	CHECK(verifies(f));
	CHECK_EQ_INT(run1(it, m, "inc", 5), 36);

	/* Out again: the product's result made an alias of the sum. */
	kl_inst_remove(f, kl_value_def_inst(f, sq));
	CHECK(kl_value_set_alias(f, sq, sum) == KL_OK);
	CHECK(verifies(f));
	CHECK_EQ_INT(run1(it, m, "inc", 5), 6);

	/* And %twice: its multiply removed, the return reads the sum. */
	kl_func *t = func(m, "twice");
	CHECK_EQ_INT(run1(it, m, "twice", 4), 24);
	kl_inst mul = find(t, KL_OP_IMUL_IMM);
	kl_value prod = kl_inst_result(t, mul, 0);
	kl_inst_remove(t, mul);
	CHECK(kl_value_set_alias(t, prod, kl_inst_arg(t, mul, 0)) == KL_OK);
	CHECK(verifies(t));
	CHECK_EQ_INT(run1(it, m, "twice", 4), 8);
	kl_interp_free(it);
	kl_module_free(m);
}

/* A new block, and the entry's return replaced by a branch to it. */
static void
test_add_block(void)
{
	kl_module *m = parse();
	kl_func *f = func(m, "inc");
	kl_interp *it = kl_interp_new(m, NULL);
	CHECK_EQ_INT(run1(it, m, "inc", 5), 6);
	kl_block nb = kl_func_new_block(f);
	CHECK(kl_func_append_block(f, nb) == KL_OK);
	kl_value p = kl_block_append_param(f, nb, KL_TYPE_I32);
	kl_builder b;
	kl_builder_init(&b, f);
	kl_builder_at_end(&b, nb);
	kl_value k = kl_build_binary_imm(&b, KL_OP_IADD_IMM, p, 1000);
	kl_build_return(&b, &k, 1);
	kl_inst ret = find(f, KL_OP_RETURN);
	kl_value sum = kl_inst_arg(f, ret, 0);
	kl_block entry = kl_func_first_block(f);
	kl_inst_remove(f, ret);
	kl_builder_at_end(&b, entry);
	kl_build_jump(&b, (kl_block_call){ nb, &sum, 1 });
	CHECK(kl_builder_status(&b) == KL_OK);
	CHECK(verifies(f));
	CHECK_EQ_INT(run1(it, m, "inc", 5), 1006);

	/* A branch argument changed (kl_inst_set_dest_arg), then the
	 * destination whole (kl_inst_set_dest). */
	kl_func *pk = func(m, "pick");
	CHECK_EQ_INT(run1(it, m, "pick", 3), 3);
	kl_inst j = find(pk, KL_OP_JUMP);
	kl_inst seven = find(pk, KL_OP_ICONST);
	kl_value v7 = kl_inst_result(pk, seven, 0);
	CHECK(kl_inst_set_dest_arg(pk, j, 0, 0, v7) == KL_OK);
	CHECK(verifies(pk));
	CHECK_EQ_INT(run1(it, m, "pick", 3), 7);
	kl_value v0 = kl_block_param(pk, kl_func_first_block(pk), 0);
	kl_block target = kl_inst_dest(pk, j, 0);
	CHECK(kl_inst_set_dest(pk, j, 0, (kl_block_call){ target, &v0, 1 }) ==
	      KL_OK);
	CHECK(verifies(pk));
	CHECK_EQ_INT(run1(it, m, "pick", 3), 3);
	kl_interp_free(it);
	kl_module_free(m);
}

/* kl_promote_func on a function with an alloca: the result is the same
 * (promote keeps the meaning), so the new code shows in the number of
 * instructions executed, which must be a fresh interpreter's. */
static void
test_promote(void)
{
	kl_module *m = parse();
	kl_func *f = func(m, "sum");
	kl_interp *it = kl_interp_new(m, NULL);
	uint64_t n = 10;
	kl_run_result r;
	CHECK(kl_interp_call(it, sym(m, "sum"), &n, 1, &r) == KL_OK);
	CHECK_EQ_INT(r.results[0], 55);
	uint64_t before = r.executed;
	kl_pass_report rep = { 0 };
	CHECK(kl_promote_func(f, &rep) == KL_OK);
	CHECK_EQ_INT(kl_pass_report_get(&rep, "promoted"), 1);
	kl_pass_report_free(&rep);
	CHECK(verifies(f));
	CHECK(find(f, KL_OP_ALLOCA).id == KL_NONE);
	CHECK(kl_interp_call(it, sym(m, "sum"), &n, 1, &r) == KL_OK);
	CHECK_EQ_INT(r.results[0], 55);
	kl_interp *fresh = kl_interp_new(m, NULL);
	kl_run_result rf;
	CHECK(kl_interp_call(fresh, sym(m, "sum"), &n, 1, &rf) == KL_OK);
	CHECK_EQ_INT(r.executed, rf.executed);
	CHECK(r.executed < before);
	kl_interp_free(fresh);

	/* kl_promote_module too (nothing left to promote in %sum; the
	 * others have no alloca): the interpreter still answers. */
	CHECK_EQ_INT(kl_promote_module(m, NULL), 0);
	CHECK_EQ_INT(run1(it, m, "sum", 4), 10);
	kl_interp_free(it);
	kl_module_free(m);
}

/* A call's target changed: call %g replaced by call %h, the old result
 * an alias of the new one. */
static void
test_call_target(void)
{
	kl_module *m = parse();
	kl_func *f = func(m, "caller");
	kl_interp *it = kl_interp_new(m, NULL);
	CHECK_EQ_INT(run1(it, m, "caller", 1), 101);
	kl_inst call = find(f, KL_OP_CALL);
	kl_value arg = kl_inst_arg(f, call, 0);
	kl_value old = kl_inst_result(f, call, 0);
	kl_builder b;
	kl_builder_init(&b, f);
	kl_builder_before(&b, call);
	kl_inst nc = kl_build_call(&b, sym(m, "h"), &arg, 1);
	CHECK(kl_builder_status(&b) == KL_OK);
	kl_inst_remove(f, call);
	CHECK(kl_value_set_alias(f, old, kl_inst_result(f, nc, 0)) == KL_OK);
	CHECK(verifies(f));
	CHECK_EQ_INT(run1(it, m, "caller", 1), 201);
	kl_interp_free(it);
	kl_module_free(m);
}

/* The callee changes, the caller does not: the caller's call runs the
 * callee as it is now. */
static void
test_callee_changed(void)
{
	kl_module *m = parse();
	kl_func *g = func(m, "g");
	kl_interp *it = kl_interp_new(m, NULL);
	CHECK_EQ_INT(run1(it, m, "caller", 1), 101);
	kl_inst add = find(g, KL_OP_IADD_IMM);
	kl_builder b;
	kl_builder_init(&b, g);
	kl_builder_before(&b, add);
	kl_value x = kl_build_binary(&b, KL_OP_IMUL, kl_inst_arg(g, add, 0),
				     kl_inst_arg(g, add, 0));
	CHECK(kl_inst_set_arg(g, add, 0, x) == KL_OK);
	CHECK(verifies(g));
	CHECK_EQ_INT(run1(it, m, "caller", 3), 109);
	kl_interp_free(it);
	kl_module_free(m);
}

/* Functions that did not change keep their decoding; a changed one is
 * decoded once more, on its next call. */
static void
test_unchanged_not_decoded(void)
{
	kl_module *m = parse();
	kl_interp *it = kl_interp_new(m, NULL);
	CHECK_EQ_INT(run1(it, m, "caller", 1), 101); /* caller, g */
	CHECK_EQ_INT(run1(it, m, "inc", 1), 2);
	CHECK_EQ_INT(it->decoded, 3);
	CHECK_EQ_INT(run1(it, m, "caller", 1), 101);
	CHECK_EQ_INT(run1(it, m, "inc", 1), 2);
	CHECK_EQ_INT(it->decoded, 3);
	/* %h changes: nothing that ran before is decoded again */
	kl_func *h = func(m, "h");
	kl_inst add = find(h, KL_OP_IADD_IMM);
	kl_inst_remove(h, add);
	kl_builder b;
	kl_builder_init(&b, h);
	kl_builder_before(&b, find(h, KL_OP_RETURN));
	kl_value y = kl_build_binary_imm(&b, KL_OP_IADD_IMM,
					 kl_inst_arg(h, add, 0), 300);
	CHECK(kl_value_set_alias(h, kl_inst_result(h, add, 0), y) == KL_OK);
	CHECK(verifies(h));
	CHECK_EQ_INT(run1(it, m, "caller", 1), 101);
	CHECK_EQ_INT(run1(it, m, "inc", 1), 2);
	CHECK_EQ_INT(it->decoded, 3);
	CHECK_EQ_INT(run1(it, m, "h", 1), 301);
	CHECK_EQ_INT(it->decoded, 4);
	/* %g changes: it alone is decoded again, by the call from %caller */
	kl_func *g = func(m, "g");
	kl_inst_set_arg(g, find(g, KL_OP_RETURN), 0,
			kl_block_param(g, kl_func_first_block(g), 0));
	CHECK(verifies(g));
	CHECK_EQ_INT(run1(it, m, "caller", 1), 1);
	CHECK_EQ_INT(run1(it, m, "inc", 1), 2);
	CHECK_EQ_INT(it->decoded, 5);
	kl_interp_free(it);
	kl_module_free(m);
}

/* A function changed to call one added to the module after the
 * interpreter's memory was made: the interpreter has no object for it,
 * so the run fails, saying so (it read past its tables before), until a
 * reset makes memory again. */
static void
test_new_symbol(void)
{
	kl_module *m = parse();
	kl_interp *it = kl_interp_new(m, NULL);
	CHECK_EQ_INT(run1(it, m, "caller", 1), 101);
	kl_type i32 = KL_TYPE_I32;
	kl_signature sig = { &i32, &i32, 1, 1, false };
	kl_func *nf;
	CHECK(kl_module_add_func(m, "late", 4, &sig, &nf) == KL_OK);
	kl_builder b;
	kl_builder_init(&b, nf);
	kl_block e = kl_func_new_block(nf);
	kl_func_append_block(nf, e);
	kl_value p = kl_block_append_param(nf, e, KL_TYPE_I32);
	kl_builder_at_end(&b, e);
	kl_build_return(&b, &p, 1);
	CHECK(kl_builder_status(&b) == KL_OK);
	CHECK(verifies(nf));

	kl_func *f = func(m, "caller");
	kl_inst call = find(f, KL_OP_CALL);
	kl_value arg = kl_inst_arg(f, call, 0);
	kl_builder_init(&b, f);
	kl_builder_before(&b, call);
	kl_inst nc = kl_build_call(&b, sym(m, "late"), &arg, 1);
	kl_inst_remove(f, call);
	CHECK(kl_value_set_alias(f, kl_inst_result(f, call, 0),
				 kl_inst_result(f, nc, 0)) == KL_OK);
	CHECK(verifies(f));
	uint64_t one = 1;
	kl_run_result r;
	CHECK(kl_interp_call(it, sym(m, "caller"), &one, 1, &r) == KL_OK);
	CHECK_EQ_INT(r.status, KL_RUN_FAILED);
	CHECK(strstr(r.message, "after this interpreter's memory was made") !=
	      NULL);
	/* and the new function itself cannot be called */
	CHECK(kl_interp_call(it, sym(m, "late"), &one, 1, &r) ==
	      KL_ERR_INVALID);
	CHECK(strstr(r.message, "kl_interp_reset") != NULL);
	/* a reset takes the new symbol in (tests/unit/test_interp_data.c) */
	kl_interp_reset(it);
	CHECK_EQ_INT(run1(it, m, "caller", 1), 1);
	CHECK_EQ_INT(run1(it, m, "late", 5), 5);
	kl_interp_free(it);
	/* as a new interpreter runs it all */
	it = kl_interp_new(m, NULL);
	CHECK_EQ_INT(run1(it, m, "caller", 1), 1);
	kl_interp_free(it);
	kl_module_free(m);
}

/* Every public call that can change a function's code bumps its change
 * counter and its module's (a failed call may bump too). */
static void
test_every_mutator_bumps(void)
{
	kl_module *m = parse();
	kl_func *f = func(m, "pick");
	uint64_t fe = f->edits, me = m->edits;
#define BUMPED(call)                                                         \
	do {                                                                 \
		call;                                                        \
		if (!(f->edits > fe && m->edits > me))                       \
			fprintf(stderr, "%s:%d: no bump: %s\n", __FILE__,    \
				__LINE__, #call);                            \
		CHECK(f->edits > fe && m->edits > me);                       \
		fe = f->edits;                                               \
		me = m->edits;                                               \
	} while (0)
	kl_block entry = kl_func_first_block(f);
	kl_block b1 = kl_block_next(f, entry);
	kl_inst j = find(f, KL_OP_JUMP);
	kl_inst c7 = find(f, KL_OP_ICONST);
	kl_value v0 = kl_block_param(f, entry, 0);
	kl_value v7 = kl_inst_result(f, c7, 0);
	kl_block nb;
	BUMPED(nb = kl_func_new_block(f));
	BUMPED(kl_func_append_block(f, nb));
	kl_block nb2 = kl_func_new_block(f);
	BUMPED(kl_func_insert_block_after(f, nb2, entry));
	BUMPED(kl_func_remove_block(f, nb2));
	kl_value np;
	BUMPED(np = kl_block_append_param(f, b1, KL_TYPE_I32));
	BUMPED(kl_inst_append_dest_arg(f, j, 0, v0));
	BUMPED(kl_block_remove_param(f, b1, 1));
	kl_value p2 = kl_block_append_param(f, b1, KL_TYPE_I32);
	kl_inst_append_dest_arg(f, j, 0, v0);
	BUMPED(kl_func_remove_params(f, &p2, 1));
	BUMPED(kl_value_set_alias(f, np, v0));
	kl_signature s0 = { 0 };
	BUMPED(kl_func_add_sigref(f, &s0));
	BUMPED(kl_inst_set_dest_arg(f, j, 0, 0, v7));
	BUMPED(kl_inst_set_dest(f, j, 0, (kl_block_call){ b1, &v0, 1 }));
	BUMPED(kl_inst_set_arg(f, find(f, KL_OP_RETURN), 0, v0));
	kl_inst cl;
	BUMPED(cl = kl_inst_clone(f, c7));
	BUMPED(kl_inst_move_before(f, cl, c7));
	BUMPED(kl_inst_remove(f, cl));
	BUMPED(kl_inst_move_to_end(f, cl, nb));
	kl_builder b;
	kl_builder_init(&b, f);
	kl_builder_before(&b, j);
	BUMPED(kl_build_iconst(&b, KL_TYPE_I32, 1));
	BUMPED(kl_build_f32const(&b, 0));
	BUMPED(kl_build_f64const(&b, 0));
	BUMPED(kl_build_unary(&b, KL_OP_INEG, KL_TYPE_NONE, v0));
	BUMPED(kl_build_binary(&b, KL_OP_IADD, v0, v0));
	BUMPED(kl_build_binary_imm(&b, KL_OP_IADD_IMM, v0, 1));
	BUMPED(kl_build_icmp(&b, KL_ICC_EQ, v0, v0));
	BUMPED(kl_build_icmp_imm(&b, KL_ICC_EQ, v0, 1));
	kl_value fz = kl_build_f64const(&b, 0);
	BUMPED(kl_build_fcmp(&b, KL_FCC_EQ, fz, fz));
	BUMPED(kl_build_select(&b, v0, v0, v0));
	kl_value a;
	BUMPED(a = kl_build_alloca(&b, 8, 0));
	BUMPED(kl_build_load(&b, KL_OP_LOAD, KL_TYPE_I32, a, 0));
	BUMPED(kl_build_store(&b, KL_OP_STORE, v0, a, 0));
	BUMPED(kl_build_alloca_dyn(&b, a, 0));
	BUMPED(kl_build_symbol_addr(&b, sym(m, "g")));
	BUMPED(kl_build_call(&b, sym(m, "g"), &v0, 1));
	kl_sigref sr = kl_func_add_sigref(f, &s0);
	BUMPED(kl_build_call_indirect(&b, sr, a, NULL, 0));
	kl_builder_at_end(&b, nb);
	BUMPED(kl_build_trap(&b, KL_TRAP_USER, 3));
	kl_block nb3 = kl_func_new_block(f);
	kl_func_append_block(f, nb3);
	kl_builder_at_end(&b, nb3);
	BUMPED(kl_build_return(&b, &v0, 1));
	kl_block nb4 = kl_func_new_block(f);
	kl_func_append_block(f, nb4);
	kl_builder_at_end(&b, nb4);
	BUMPED(kl_build_jump(&b, (kl_block_call){ b1, &v0, 1 }));
	kl_block nb5 = kl_func_new_block(f);
	kl_func_append_block(f, nb5);
	kl_builder_at_end(&b, nb5);
	kl_block_call to = { b1, &v0, 1 };
	BUMPED(kl_build_brif(&b, v0, to, to));
	kl_block nb6 = kl_func_new_block(f);
	kl_func_append_block(f, nb6);
	kl_builder_at_end(&b, nb6);
	BUMPED(kl_build_br_table(&b, v0, to, &to, 1));
	CHECK(kl_builder_status(&b) == KL_OK);
	/* passes: every one in the registry, and promote's module driver,
	 * on a function they accept */
	f = func(m, "sum");
	fe = f->edits;
	uint32_t np_ = 0;
	const kl_pass *ps = kl_passes(&np_);
	for (uint32_t k = 0; k < np_; k++)
		BUMPED(ps[k].run(f, NULL));
	BUMPED(kl_promote_func(f, NULL));
	BUMPED(kl_promote_module(m, NULL));
#undef BUMPED
	kl_module_free(m);
}

/* What the output callback of test_change_in_callback does: change %inc
 * (the builder, then the setter) or add a data object, once. */
typedef struct {
	kl_module *m;
	bool add_data;
	int calls;
} changer;

static void
change_on_output(void *ctx, const char *data, size_t len)
{
	(void)data;
	(void)len;
	changer *c = ctx;
	if (c->calls++)
		return;
	if (c->add_data) {
		kl_sym d;
		CHECK(kl_module_add_data(c->m, "late", 4, false, 0, &d) ==
		      KL_OK);
		return;
	}
	kl_func *f = func(c->m, "inc");
	kl_inst add = find(f, KL_OP_IADD);
	kl_builder b;
	kl_builder_init(&b, f);
	kl_builder_before(&b, add);
	kl_value ten = kl_build_iconst(&b, KL_TYPE_I32, 10);
	CHECK(kl_inst_set_arg(f, add, 1, ten) == KL_OK);
}

/* A change to the module from the output callback, during a call, stops
 * the run there with a failure that says so (before, the run went on in
 * code the module no longer had, without a word); the next call runs
 * the new code. */
static void
test_change_in_callback(void)
{
	static const char text[] =
		"declare %putchar(i32) -> i32\n"
		"\n"
		"function %inc(i32) -> i32 {\n"
		"block0(v0: i32):\n"
		"    v1 = iconst.i32 1\n"
		"    v2 = iadd v0, v1\n"
		"    return v2\n"
		"}\n"
		"\n"
		"function %shout(i32) -> i32 {\n"
		"block0(v0: i32):\n"
		"    v1 = call %putchar(v0)\n"
		"    v2 = call %putchar(v0)\n"
		"    v3 = call %inc(v0)\n"
		"    return v3\n"
		"}\n";
	for (int add_data = 0; add_data < 2; add_data++) {
		kl_module *m = parse_text(text, sizeof text - 1);
		if (!m)
			return;
		changer c = { .m = m, .add_data = add_data };
		kl_interp_options o = { .output = change_on_output,
					.output_ctx = &c };
		kl_interp *it = kl_interp_new(m, &o);
		uint64_t arg = 65;
		kl_run_result r;
		kl_interp_call(it, sym(m, "shout"), &arg, 1, &r);
		CHECK_EQ_INT(r.status, KL_RUN_FAILED);
		CHECK_EQ_INT(r.num_results, 0);
		CHECK_EQ_STR(r.message, "the module changed during the call "
					"(in the output callback), which is "
					"not allowed: the run stops here");
		CHECK_EQ_INT(c.calls, 1); /* the second putchar never ran */
		if (add_data)
			kl_interp_reset(it);
		CHECK_EQ_INT(run1(it, m, "shout", 5), add_data ? 6 : 15);
		kl_interp_free(it);
		kl_module_free(m);
	}
}

int
main(void)
{
	UNIT_RUN(test_set_arg);
	UNIT_RUN(test_add_remove_inst);
	UNIT_RUN(test_add_block);
	UNIT_RUN(test_promote);
	UNIT_RUN(test_call_target);
	UNIT_RUN(test_callee_changed);
	UNIT_RUN(test_unchanged_not_decoded);
	UNIT_RUN(test_new_symbol);
	UNIT_RUN(test_every_mutator_bumps);
	UNIT_RUN(test_change_in_callback);
	return unit_report("interp_edit");
}
