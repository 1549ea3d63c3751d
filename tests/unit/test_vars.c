/*
 * test_vars.c -- SSA construction for variables (kl_vars, src/pass/vars.c).
 *
 * Small functions whose printed result is known exactly (a loop, a
 * diamond, a chain, reads before any write, an irreducible cycle, a
 * block's own parameters), the refusals, and a differential test: random
 * programs built twice from one seed, once with kl_vars and once with an
 * alloca per variable (loads and stores). Both must run to the same
 * results in the interpreter; the kl_vars one must verify, hold no
 * memory access and no parameter whose arguments are all one value, and
 * have no more parameters than promote gives the alloca one
 * (bench/vars_program.h builds them).
 */
#include <stdlib.h>
#include <string.h>

#include "keel.h"
#include "unit.h"

/* A module with %f(i64) -> i64 and n blocks in the layout. */
static kl_module *
func_with_blocks(kl_func **f, kl_block *blk, uint32_t n)
{
	kl_module *m = kl_module_new();
	kl_type i64 = KL_TYPE_I64;
	kl_signature sig = { &i64, &i64, 1, 1, false };
	CHECK(kl_module_add_func(m, "f", 1, &sig, f) == KL_OK);
	blk[0] = kl_func_make_entry(*f);
	for (uint32_t i = 1; i < n; i++) {
		blk[i] = kl_func_new_block(*f);
		CHECK(kl_func_append_block(*f, blk[i]) == KL_OK);
	}
	return m;
}

/* The function printed, and checked to verify. */
static char *
printed(const kl_func *f)
{
	kl_diags d = { 0 };
	CHECK(kl_verify_func(f, NULL, &d) == KL_OK);
	kl_diags_free(&d);
	kl_buf out = { 0 };
	kl_print_func(f, NULL, &out);
	return out.data;
}

/* Finish vs, check that f verifies and prints as want, free them all. */
static void
finish_and_expect(kl_module *m, kl_vars *vs, const char *want)
{
	CHECK(kl_vars_finish(vs) == KL_OK);
	CHECK(kl_vars_error(vs) == NULL);
	char *text = printed(kl_sym_func(m, kl_module_lookup(m, "f", 1)));
	CHECK_EQ_STR(text, want);
	free(text);
	kl_vars_free(vs);
	kl_module_free(m);
}

static kl_block_call
to(kl_block b)
{
	return (kl_block_call){ b, NULL, 0 };
}

/* i = 0; s = 0; while (i < n) { s += i; i += 1 } return s */
static void
test_loop(void)
{
	kl_func *f;
	kl_block blk[4];
	kl_module *m = func_with_blocks(&f, blk, 4);
	kl_vars *vs = kl_vars_new(f);
	kl_var i = kl_vars_declare(vs, KL_TYPE_I64);
	kl_var s = kl_vars_declare(vs, KL_TYPE_I64);
	kl_builder b;
	kl_builder_init(&b, f);
	kl_builder_at_end(&b, blk[0]);
	kl_value zero = kl_build_iconst(&b, KL_TYPE_I64, 0);
	kl_vars_def(vs, i, blk[0], zero);
	kl_vars_def(vs, s, blk[0], zero);
	kl_build_jump(&b, to(blk[1]));
	kl_builder_at_end(&b, blk[1]);
	kl_value n = kl_block_param(f, blk[0], 0);
	kl_value c = kl_build_icmp(&b, KL_ICC_SLT, kl_vars_use(vs, i, blk[1]),
				   n);
	kl_build_brif(&b, c, to(blk[2]), to(blk[3]));
	kl_builder_at_end(&b, blk[2]);
	/* (reads in statements of their own: the order of a call's
	 * arguments is the compiler's, and it would number the values) */
	kl_value s1 = kl_vars_use(vs, s, blk[2]);
	kl_value s2 = kl_build_binary(&b, KL_OP_IADD, s1,
				      kl_vars_use(vs, i, blk[2]));
	kl_vars_def(vs, s, blk[2], s2);
	kl_value i2 = kl_build_binary_imm(&b, KL_OP_IADD_IMM,
					  kl_vars_use(vs, i, blk[2]), 1);
	kl_vars_def(vs, i, blk[2], i2);
	kl_build_jump(&b, to(blk[1]));
	kl_builder_at_end(&b, blk[3]);
	kl_value r = kl_vars_use(vs, s, blk[3]);
	kl_build_return(&b, &r, 1);
	CHECK(kl_builder_status(&b) == KL_OK);
	finish_and_expect(m, vs, "function %f(i64) -> i64 {\n"
				 "block0(v0: i64):\n"
				 "    v1 = iconst.i64 0\n"
				 "    jump block1(v1, v1)\n"
				 "\n"
				 "block1(v2: i64, v9: i64):\n"
				 "    v3 = icmp slt v2, v0\n"
				 "    brif v3, block2, block3\n"
				 "\n"
				 "block2:\n"
				 "    v6 = iadd.i64 v9, v2\n"
				 "    v7 = iadd_imm.i64 v2, 1\n"
				 "    jump block1(v7, v6)\n"
				 "\n"
				 "block3:\n"
				 "    return v9\n"
				 "}\n");
}

/* Written on one arm of a diamond only: the other brings 0; a chain of
 * single predecessors needs no parameter. */
static void
test_diamond_and_chain(void)
{
	kl_func *f;
	kl_block blk[6];
	kl_module *m = func_with_blocks(&f, blk, 6);
	kl_vars *vs = kl_vars_new(f);
	kl_var x = kl_vars_declare(vs, KL_TYPE_I64);
	kl_builder b;
	kl_builder_init(&b, f);
	kl_builder_at_end(&b, blk[0]);
	kl_value a = kl_block_param(f, blk[0], 0);
	kl_build_brif(&b, a, to(blk[1]), to(blk[2]));
	kl_builder_at_end(&b, blk[1]);
	kl_vars_def(vs, x, blk[1], kl_build_iconst(&b, KL_TYPE_I64, 7));
	kl_build_jump(&b, to(blk[3]));
	kl_builder_at_end(&b, blk[2]);
	kl_build_jump(&b, to(blk[3]));
	kl_builder_at_end(&b, blk[3]);
	kl_build_jump(&b, to(blk[4]));
	kl_builder_at_end(&b, blk[4]);
	kl_build_jump(&b, to(blk[5]));
	kl_builder_at_end(&b, blk[5]);
	kl_value r = kl_vars_use(vs, x, blk[5]);
	kl_build_return(&b, &r, 1);
	finish_and_expect(m, vs, "function %f(i64) -> i64 {\n"
				 "block0(v0: i64):\n"
				 "    v4 = iconst.i64 0\n"
				 "    brif v0, block1, block2\n"
				 "\n"
				 "block1:\n"
				 "    v1 = iconst.i64 7\n"
				 "    jump block3(v1)\n"
				 "\n"
				 "block2:\n"
				 "    jump block3(v4)\n"
				 "\n"
				 "block3(v3: i64):\n"
				 "    jump block4\n"
				 "\n"
				 "block4:\n"
				 "    jump block5\n"
				 "\n"
				 "block5:\n"
				 "    return v3\n"
				 "}\n");
}

/* Reads in the entry block before a write, and of a float variable never
 * written: 0 of each type, made once. A loop that only passes a value
 * around keeps no parameter. */
static void
test_reads_before_writes(void)
{
	kl_func *f;
	kl_block blk[3];
	kl_module *m = func_with_blocks(&f, blk, 3);
	kl_vars *vs = kl_vars_new(f);
	kl_var x = kl_vars_declare(vs, KL_TYPE_I64);
	kl_var y = kl_vars_declare(vs, KL_TYPE_F64);
	kl_builder b;
	kl_builder_init(&b, f);
	kl_builder_at_end(&b, blk[0]);
	kl_value x0 = kl_vars_use(vs, x, blk[0]);
	CHECK(kl_vars_use(vs, x, blk[0]).id == x0.id);
	kl_value a = kl_build_binary(&b, KL_OP_IADD, x0,
				     kl_block_param(f, blk[0], 0));
	kl_vars_def(vs, x, blk[0], a);
	CHECK(kl_vars_use(vs, x, blk[0]).id == a.id);
	kl_build_jump(&b, to(blk[1]));
	kl_builder_at_end(&b, blk[1]);
	kl_value c = kl_vars_use(vs, x, blk[1]);
	kl_build_brif(&b, c, to(blk[1]), to(blk[2]));
	kl_builder_at_end(&b, blk[2]);
	kl_value yv = kl_vars_use(vs, y, blk[2]);
	kl_value xv = kl_vars_use(vs, x, blk[2]);
	kl_value r = kl_build_binary(&b, KL_OP_IADD, xv,
				     kl_build_unary(&b, KL_OP_BITCAST,
						    KL_TYPE_I64, yv));
	kl_build_return(&b, &r, 1);
	CHECK(kl_vars_type(vs, y) == KL_TYPE_F64);
	CHECK(kl_vars_type(vs, (kl_var){ 2 }) == KL_TYPE_NONE);
	finish_and_expect(m, vs, "function %f(i64) -> i64 {\n"
				 "block0(v0: i64):\n"
				 "    v10 = f64const 0.0\n"
				 "    v8 = iconst.i64 0\n"
				 "    v2 = iadd v8, v0\n"
				 "    jump block1\n"
				 "\n"
				 "block1:\n"
				 "    brif v2, block1, block2\n"
				 "\n"
				 "block2:\n"
				 "    v6 = bitcast.i64 v10\n"
				 "    v7 = iadd.i64 v2, v6\n"
				 "    return v7\n"
				 "}\n");
}

/* A cycle with two entries (irreducible), and a block with a parameter of
 * its own, which comes first. */
static void
test_irreducible_and_own_params(void)
{
	kl_func *f;
	kl_block blk[4];
	kl_module *m = func_with_blocks(&f, blk, 4);
	kl_vars *vs = kl_vars_new(f);
	kl_var x = kl_vars_declare(vs, KL_TYPE_I64);
	kl_value own = kl_block_append_param(f, blk[2], KL_TYPE_I64);
	kl_builder b;
	kl_builder_init(&b, f);
	kl_builder_at_end(&b, blk[0]);
	kl_value a = kl_block_param(f, blk[0], 0);
	kl_vars_def(vs, x, blk[0], a);
	kl_block_call with_a = { blk[2], &a, 1 };
	kl_build_brif(&b, a, to(blk[1]), with_a);
	kl_builder_at_end(&b, blk[1]);
	kl_value x1 = kl_build_binary_imm(&b, KL_OP_IADD_IMM,
					  kl_vars_use(vs, x, blk[1]), -1);
	kl_vars_def(vs, x, blk[1], x1);
	kl_block_call with_x1 = { blk[2], &x1, 1 };
	kl_build_brif(&b, x1, with_x1, to(blk[3]));
	kl_builder_at_end(&b, blk[2]);
	kl_value x2 = kl_build_binary(&b, KL_OP_ISUB,
				      kl_vars_use(vs, x, blk[2]), own);
	kl_vars_def(vs, x, blk[2], x2);
	kl_build_jump(&b, to(blk[1]));
	kl_builder_at_end(&b, blk[3]);
	kl_value r = kl_vars_use(vs, x, blk[3]);
	kl_build_return(&b, &r, 1);
	finish_and_expect(m, vs, "function %f(i64) -> i64 {\n"
				 "block0(v0: i64):\n"
				 "    brif v0, block1(v0), block2(v0, v0)\n"
				 "\n"
				 "block1(v2: i64):\n"
				 "    v3 = iadd_imm v2, -1\n"
				 "    brif v3, block2(v3, v3), block3\n"
				 "\n"
				 "block2(v1: i64, v4: i64):\n"
				 "    v5 = isub v4, v1\n"
				 "    jump block1(v5)\n"
				 "\n"
				 "block3:\n"
				 "    return v3\n"
				 "}\n");
}

/* x goes round an irreducible cycle unchanged: the candidates of its two
 * entries take each other and the entry's x, and stand for that as a
 * whole (neither is trivial on its own). */
static void
test_irreducible_passing(void)
{
	kl_func *f;
	kl_block blk[4];
	kl_module *m = func_with_blocks(&f, blk, 4);
	kl_vars *vs = kl_vars_new(f);
	kl_var x = kl_vars_declare(vs, KL_TYPE_I64);
	kl_builder b;
	kl_builder_init(&b, f);
	kl_builder_at_end(&b, blk[0]);
	kl_value a = kl_block_param(f, blk[0], 0);
	kl_vars_def(vs, x, blk[0], a);
	kl_build_brif(&b, a, to(blk[1]), to(blk[2]));
	for (int k = 1; k <= 2; k++) {
		kl_builder_at_end(&b, blk[k]);
		kl_value c = kl_build_icmp_imm(&b, KL_ICC_SGT,
					       kl_vars_use(vs, x, blk[k]), k);
		kl_build_brif(&b, c, to(blk[3 - k]), to(blk[3]));
	}
	kl_builder_at_end(&b, blk[3]);
	kl_value r = kl_vars_use(vs, x, blk[3]);
	kl_build_return(&b, &r, 1);
	finish_and_expect(m, vs, "function %f(i64) -> i64 {\n"
				 "block0(v0: i64):\n"
				 "    brif v0, block1, block2\n"
				 "\n"
				 "block1:\n"
				 "    v2 = icmp_imm.i64 sgt v0, 1\n"
				 "    brif v2, block2, block3\n"
				 "\n"
				 "block2:\n"
				 "    v4 = icmp_imm.i64 sgt v0, 2\n"
				 "    brif v4, block1, block3\n"
				 "\n"
				 "block3:\n"
				 "    return v0\n"
				 "}\n");
}

/* Bad calls are refused with a status that sticks. */
static void
test_refusals(void)
{
	kl_func *f;
	kl_block blk[2];
	kl_module *m = func_with_blocks(&f, blk, 2);
	CHECK(kl_vars_new(NULL) == NULL);
	kl_vars_free(NULL);

	kl_vars *vs = kl_vars_new(f);
	CHECK(kl_vars_declare(vs, (kl_type)99).id == KL_NONE);
	CHECK(kl_vars_status(vs) == KL_ERR_INVALID);
	CHECK_EQ_STR(kl_vars_error(vs), "not a type");
	/* sticky: a good call now fails too */
	CHECK(kl_vars_declare(vs, KL_TYPE_I32).id == KL_NONE);
	CHECK(kl_vars_finish(vs) == KL_ERR_INVALID);
	kl_vars_free(vs);

	vs = kl_vars_new(f);
	kl_var x = kl_vars_declare(vs, KL_TYPE_I32);
	CHECK(kl_vars_use(vs, (kl_var){ 5 }, blk[1]).id == KL_NONE);
	CHECK_EQ_STR(kl_vars_error(vs), "no such variable");
	kl_vars_free(vs);

	vs = kl_vars_new(f);
	x = kl_vars_declare(vs, KL_TYPE_I32);
	CHECK(kl_vars_use(vs, x, (kl_block){ 77 }).id == KL_NONE);
	CHECK_EQ_STR(kl_vars_error(vs), "no such block");
	kl_vars_free(vs);

	vs = kl_vars_new(f);
	x = kl_vars_declare(vs, KL_TYPE_I32);
	kl_value p = kl_block_param(f, blk[0], 0); /* an i64 */
	CHECK(kl_vars_def(vs, x, blk[0], p) == KL_ERR_INVALID);
	CHECK_EQ_STR(kl_vars_error(vs), "the value written is not of the "
					"variable's type");
	kl_vars_free(vs);

	vs = kl_vars_new(f);
	x = kl_vars_declare(vs, KL_TYPE_I32);
	CHECK(kl_vars_def(vs, x, blk[0], (kl_value){ 1000 }) ==
	      KL_ERR_INVALID);
	CHECK_EQ_STR(kl_vars_error(vs), "the value written is not a value");
	kl_vars_free(vs);

	/* a parameter of the block's own after a read there */
	vs = kl_vars_new(f);
	kl_var y = kl_vars_declare(vs, KL_TYPE_I64);
	kl_builder b;
	kl_builder_init(&b, f);
	kl_builder_at_end(&b, blk[0]);
	kl_build_jump(&b, to(blk[1]));
	kl_builder_at_end(&b, blk[1]);
	kl_value r = kl_vars_use(vs, y, blk[1]);
	CHECK(r.id != KL_NONE);
	kl_block_append_param(f, blk[1], KL_TYPE_I64);
	kl_build_return(&b, &r, 1);
	CHECK(kl_vars_finish(vs) == KL_ERR_INVALID);
	CHECK(strstr(kl_vars_error(vs), "add a block's own parameters") !=
	      NULL);
	kl_vars_free(vs);

	/* finished: no more calls */
	vs = kl_vars_new(f);
	y = kl_vars_declare(vs, KL_TYPE_I64);
	CHECK(kl_vars_finish(vs) == KL_OK);
	CHECK(kl_vars_use(vs, y, blk[0]).id == KL_NONE);
	CHECK(kl_vars_status(vs) == KL_ERR_INVALID);
	CHECK(strstr(kl_vars_error(vs), "finished") != NULL);
	CHECK(kl_vars_type(vs, y) == KL_TYPE_I64);
	kl_vars_free(vs);
	kl_module_free(m);
}

/* ---- the differential test ---- */

#include "../../bench/vars_program.h"

/* No memory access left, and no parameter made for a variable whose
 * arguments are all one value or itself. */
static void
check_shape(const vars_program *p, uint64_t seed)
{
	const kl_func *f = p->f;
	kl_cfg *cfg = kl_cfg_new();
	kl_cfg_compute(cfg, f);
	for (kl_block b = kl_func_first_block(f); b.id != KL_NONE;
	     b = kl_block_next(f, b)) {
		for (kl_inst i = kl_block_first_inst(f, b); i.id != KL_NONE;
		     i = kl_inst_next(f, i)) {
			kl_opcode op = kl_inst_opcode(f, i);
			if (op == KL_OP_ALLOCA || op == KL_OP_LOAD ||
			    op == KL_OP_STORE)
				fprintf(stderr, "seed %llu: %s left\n",
					(unsigned long long)seed,
					kl_op_name(op)),
					unit_current_failed = 1;
		}
		if (b.id == kl_func_first_block(f).id)
			continue;
		for (uint32_t k = 0; k < kl_block_num_params(f, b); k++) {
			kl_value prm = kl_block_param(f, b, k);
			bool own = false;
			for (uint32_t o = 0; o < p->nown; o++)
				own |= p->own[o].id == prm.id;
			if (own)
				continue;
			uint32_t same = KL_NONE;
			bool trivial = true;
			uint32_t npreds = kl_cfg_num_preds(cfg, b);
			for (uint32_t e = 0; e < npreds; e++) {
				kl_cfg_edge ed = kl_cfg_pred(cfg, b, e);
				for (uint32_t d = 0;
				     d < kl_inst_num_dests(f, ed.inst); d++) {
					if (kl_inst_dest(f, ed.inst, d).id !=
					    b.id)
						continue;
					uint32_t a = kl_inst_dest_arg(
						f, ed.inst, d, k).id;
					if (a == prm.id || a == same)
						continue;
					trivial &= same == KL_NONE;
					same = a;
				}
			}
			if (trivial) {
				fprintf(stderr, "seed %llu: v%u of block%u "
					"is trivial\n",
					(unsigned long long)seed, prm.id, b.id);
				unit_current_failed = 1;
			}
		}
	}
	kl_cfg_free(cfg);
}

static bool
run(kl_module *m, uint64_t a0, uint64_t a1, uint64_t *result)
{
	kl_interp_options opts = { .fuel = 1 << 20 }; /* a test bug's limit */
	kl_interp *it = kl_interp_new(m, &opts);
	uint64_t args[2] = { a0, a1 };
	kl_run_result r;
	bool ok = kl_interp_call(it, kl_module_lookup(m, "f", 1), args, 2,
				 &r) == KL_OK &&
		  r.status == KL_RUN_RETURNED;
	if (ok)
		*result = r.results[0];
	kl_interp_free(it);
	return ok;
}

enum { SEEDS = 1500 };

static void
test_random_programs(void)
{
	static const uint64_t inputs[][2] = {
		{ 0, 0 }, { 1, 5 }, { (uint64_t)-3, 7 }, { 12, 3 },
		{ 40, (uint64_t)-1 },
	};
	uint64_t params_vars = 0, params_promote = 0;
	for (uint64_t seed = 1; seed <= SEEDS && !unit_current_failed;
	     seed++) {
		/* up to 14 blocks (and their continuations), 6 variables */
		uint64_t shape = seed;
		uint32_t nb = 1 + rng_below(&shape, 13);
		uint32_t nvars = 2 + rng_below(&shape, 5);
		vars_program pv, pm;
		CHECK(vars_program_build(&pv, seed, true, nb, nvars, 0));
		CHECK(vars_program_finish(&pv));
		CHECK(vars_program_build(&pm, seed, false, nb, nvars, 0));
		kl_diags d = { 0 };
		if (kl_verify_module(pv.m, &d) != KL_OK) {
			kl_buf out = { 0 };
			kl_verify_render_module(pv.m, &d, "vars", false, &out,
						&out);
			fprintf(stderr, "seed %llu does not verify:\n%s",
				(unsigned long long)seed, out.data);
			kl_buf_free(&out);
			unit_current_failed = 1;
		}
		kl_diags_free(&d);
		check_shape(&pv, seed);
		bool same = true;
		for (size_t k = 0; k < sizeof inputs / sizeof *inputs; k++) {
			uint64_t rv = 0, rm = 1;
			bool okv = run(pv.m, inputs[k][0], inputs[k][1], &rv);
			bool okm = run(pm.m, inputs[k][0], inputs[k][1], &rm);
			if (!okv || !okm || rv != rm) {
				fprintf(stderr, "seed %llu input %zu: %llx "
					"with variables, %llx with memory\n",
					(unsigned long long)seed, k,
					(unsigned long long)rv,
					(unsigned long long)rm);
				same = false;
			}
		}
		if (!same) {
			kl_buf out = { 0 };
			kl_print_module(pv.m, NULL, &out);
			kl_print_module(pm.m, NULL, &out);
			fprintf(stderr, "%s", out.data);
			kl_buf_free(&out);
			unit_current_failed = 1;
		}
		CHECK(kl_promote_module(pm.m, NULL) == 0);
		uint32_t nv = vars_program_params(pv.f), np = vars_program_params(pm.f);
		if (nv > np) {
			fprintf(stderr, "seed %llu: %u parameters, promote "
				"makes %u\n", (unsigned long long)seed, nv, np);
			unit_current_failed = 1;
		}
		params_vars += nv;
		params_promote += np;
		vars_program_free(&pv);
		vars_program_free(&pm);
	}
	CHECK(params_vars > SEEDS); /* the programs do need parameters */
	if (getenv("KEEL_VARS_STATS")) /* for docs/passes.md's figures */
		fprintf(stderr, "%llu parameters, promote %llu\n",
			(unsigned long long)params_vars,
			(unsigned long long)params_promote);
}

int
main(void)
{
	UNIT_RUN(test_loop);
	UNIT_RUN(test_diamond_and_chain);
	UNIT_RUN(test_reads_before_writes);
	UNIT_RUN(test_irreducible_and_own_params);
	UNIT_RUN(test_irreducible_passing);
	UNIT_RUN(test_refusals);
	UNIT_RUN(test_random_programs);
	return unit_report("vars");
}
