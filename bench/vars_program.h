/*
 * vars_program.h -- random programs over variables, built two ways from
 * one seed: with kl_vars (SSA made by kl_vars_finish), or with an alloca
 * per variable and loads and stores (for promote, or to run as written).
 * tests/unit/test_vars.c runs both and compares them; bench/vars_bench.c
 * times building, kl_vars_finish and promote on big ones.
 *
 * %f(i64, i64) -> i64: an entry that writes some variables, then blocks
 * of random statements (writes of constants, the arguments and integer
 * or float arithmetic of variables), each ending in a jump, brif or
 * br_table to blocks within `span` of it (0: anywhere), or in a jump to
 * the exit, which returns a mix of every variable. A quarter of the
 * blocks have a parameter of their own, which may be written to a
 * variable. Each block first takes a step off the last variable and
 * leaves for the exit when none is left, so every run ends.
 */
#ifndef KEEL_VARS_PROGRAM_H
#define KEEL_VARS_PROGRAM_H

#include <stdlib.h>
#include <string.h>

#include "keel.h"
#include "rng.h"

enum { VP_MAX_VARS = 64, VP_FUEL = 40 };

typedef struct vars_program {
	kl_module *m;
	kl_func *f;
	kl_builder b;
	kl_vars *vs;    /* while building with variables */
	uint32_t nvars; /* the last one counts the steps left */
	kl_type type[VP_MAX_VARS];
	kl_var var[VP_MAX_VARS];
	kl_value slot[VP_MAX_VARS];
	kl_block cur;
	kl_value a0, a1;
	uint64_t rng;
	/* the blocks' own parameters (kl_vars leaves them alone) */
	uint32_t nown;
	kl_value *own;
} vars_program;

static inline kl_value
vp_read(vars_program *p, uint32_t x)
{
	if (p->vs)
		return kl_vars_use(p->vs, p->var[x], p->cur);
	return kl_build_load(&p->b, KL_OP_LOAD, p->type[x], p->slot[x], 0);
}

static inline void
vp_write(vars_program *p, uint32_t x, kl_value v)
{
	if (p->vs)
		kl_vars_def(p->vs, p->var[x], p->cur, v);
	else
		kl_build_store(&p->b, KL_OP_STORE, v, p->slot[x], 0);
}

static inline void
vp_at(vars_program *p, kl_block blk)
{
	p->cur = blk;
	kl_builder_at_end(&p->b, blk);
}

/* A value of type t: a variable of that type, a constant or an argument. */
static inline kl_value
vp_operand(vars_program *p, kl_type t)
{
	uint32_t x = rng_below(&p->rng, p->nvars);
	uint32_t how = rng_below(&p->rng, 4);
	if (how < 2 && p->type[x] == t)
		return vp_read(p, x);
	if (t == KL_TYPE_F64)
		return kl_build_f64const(&p->b, 0x3ff8000000000000 +
						       ((uint64_t)how << 50));
	kl_value a = how == 2 ? p->a0 : p->a1;
	if (how >= 2 && t == KL_TYPE_I64)
		return a;
	if (how >= 2)
		return kl_build_unary(&p->b, KL_OP_IREDUCE, t, a);
	return kl_build_iconst(&p->b, t,
			       (int64_t)rng_below(&p->rng, 200) - 100);
}

static inline void
vp_statement(vars_program *p)
{
	static const kl_opcode int_ops[] = { KL_OP_IADD, KL_OP_ISUB,
					     KL_OP_IMUL, KL_OP_BXOR };
	static const kl_opcode float_ops[] = { KL_OP_FADD, KL_OP_FSUB,
					       KL_OP_FMUL };
	uint32_t x = rng_below(&p->rng, p->nvars - 1);
	kl_type t = p->type[x];
	kl_value l = vp_operand(p, t), r = vp_operand(p, t);
	kl_opcode op = t == KL_TYPE_F64 ? float_ops[rng_below(&p->rng, 3)]
					: int_ops[rng_below(&p->rng, 4)];
	vp_write(p, x,
		 rng_below(&p->rng, 5) == 0 ? l
					    : kl_build_binary(&p->b, op, l, r));
}

/* A variable's value as an i64, for a condition or the result. */
static inline kl_value
vp_as_i64(vars_program *p, uint32_t x)
{
	kl_value v = vp_read(p, x);
	if (p->type[x] == KL_TYPE_F64)
		return kl_build_unary(&p->b, KL_OP_BITCAST, KL_TYPE_I64, v);
	if (p->type[x] == KL_TYPE_I32)
		return kl_build_unary(&p->b, KL_OP_SEXTEND, KL_TYPE_I64, v);
	return v;
}

/* A block within span of block i (of n), anywhere when span is 0. */
static inline uint32_t
vp_target(vars_program *p, uint32_t i, uint32_t n, uint32_t span)
{
	if (!span || span >= n)
		return rng_below(&p->rng, n);
	uint32_t lo = i > span ? i - span : 0;
	uint32_t hi = i + span < n ? i + span : n - 1;
	return lo + rng_below(&p->rng, hi - lo + 1);
}

/*
 * Build the program of seed with nb blocks (besides the entry, the exit
 * and a continuation per block) and nvars variables (2 to VP_MAX_VARS),
 * with variables or with allocas. False if the builder or kl_vars
 * failed (their status says why), or an argument is out of range.
 */
static inline bool
vars_program_build(vars_program *p, uint64_t seed, bool with_vars,
		   uint32_t nb, uint32_t nvars, uint32_t span)
{
	memset(p, 0, sizeof *p);
	if (nb == 0 || nvars < 2 || nvars > VP_MAX_VARS)
		return false;
	p->rng = seed * 0x9e3779b97f4a7c15u + 1;
	p->m = kl_module_new();
	kl_type params[2] = { KL_TYPE_I64, KL_TYPE_I64 }, res = KL_TYPE_I64;
	kl_signature sig = { params, &res, 2, 1, false };
	if (kl_module_add_func(p->m, "f", 1, &sig, &p->f) != KL_OK)
		return false;
	kl_func *f = p->f;
	kl_block entry = kl_func_make_entry(f);
	p->a0 = kl_block_param(f, entry, 0);
	p->a1 = kl_block_param(f, entry, 1);
	kl_block *blk = malloc((size_t)nb * sizeof *blk);
	bool *has_param = malloc((size_t)nb * sizeof *has_param);
	p->own = malloc((size_t)nb * sizeof *p->own);
	if (!blk || !has_param || !p->own) {
		free(blk);
		free(has_param);
		return false;
	}
	for (uint32_t i = 0; i < nb; i++) {
		blk[i] = kl_func_new_block(f);
		kl_func_append_block(f, blk[i]);
		has_param[i] = rng_below(&p->rng, 4) == 0;
		if (has_param[i])
			p->own[p->nown++] =
				kl_block_append_param(f, blk[i], KL_TYPE_I64);
	}
	kl_block exitb = kl_func_new_block(f);
	kl_func_append_block(f, exitb);
	if (with_vars)
		p->vs = kl_vars_new(f);
	kl_builder_init(&p->b, f);
	vp_at(p, entry);
	p->nvars = nvars;
	static const kl_type types[] = { KL_TYPE_I64, KL_TYPE_I32,
					 KL_TYPE_F64 };
	for (uint32_t x = 0; x < p->nvars; x++) {
		p->type[x] = x == p->nvars - 1 ? KL_TYPE_I64
					       : types[rng_below(&p->rng, 3)];
		if (with_vars)
			p->var[x] = kl_vars_declare(p->vs, p->type[x]);
		else
			p->slot[x] = kl_build_alloca(&p->b, 8, 8);
	}
	uint32_t steps = p->nvars - 1;
	vp_write(p, steps, kl_build_iconst(&p->b, KL_TYPE_I64, VP_FUEL));
	for (uint32_t n = rng_below(&p->rng, 3); n-- > 0;)
		vp_statement(p);
	kl_value arg = p->a1;
#define VP_DEST(i) ((kl_block_call){ blk[i], &arg, has_param[i] })
	kl_build_jump(&p->b, VP_DEST(0));
	for (uint32_t i = 0; i < nb; i++) {
		vp_at(p, blk[i]);
		uint32_t y = rng_below(&p->rng, steps);
		if (has_param[i] && p->type[y] == KL_TYPE_I64)
			vp_write(p, y, kl_block_param(f, blk[i], 0));
		kl_value left = kl_build_binary_imm(&p->b, KL_OP_IADD_IMM,
						    vp_read(p, steps), -1);
		vp_write(p, steps, left);
		kl_value done = kl_build_icmp_imm(&p->b, KL_ICC_SLE, left, 0);
		kl_block cont = kl_func_new_block(f);
		kl_func_insert_block_after(f, cont, blk[i]);
		kl_build_brif(&p->b, done, (kl_block_call){ exitb, NULL, 0 },
			      (kl_block_call){ cont, NULL, 0 });
		vp_at(p, cont);
		for (uint32_t n = rng_below(&p->rng, 4); n-- > 0;)
			vp_statement(p);
		uint32_t x = rng_below(&p->rng, p->nvars);
		uint32_t t1 = vp_target(p, i, nb, span);
		uint32_t t2 = vp_target(p, i, nb, span);
		switch (rng_below(&p->rng, 4)) {
		case 0:
			kl_build_jump(&p->b, VP_DEST(t1));
			break;
		case 1: {
			kl_value c = kl_build_icmp_imm(&p->b, KL_ICC_SGT,
						       vp_as_i64(p, x), 0);
			kl_build_brif(&p->b, c, VP_DEST(t1), VP_DEST(t2));
			break;
		}
		case 2: {
			kl_value c = vp_as_i64(p, x);
			uint32_t t3 = vp_target(p, i, nb, span);
			kl_block_call table[2] = { VP_DEST(t2), VP_DEST(t3) };
			kl_build_br_table(&p->b, c, VP_DEST(t1), table, 2);
			break;
		}
		default:
			kl_build_jump(&p->b, (kl_block_call){ exitb, NULL, 0 });
		}
	}
#undef VP_DEST
	vp_at(p, exitb);
	kl_value sum = vp_read(p, steps);
	for (uint32_t x = 0; x < steps; x++)
		sum = kl_build_binary(&p->b, KL_OP_BXOR,
				      kl_build_binary_imm(&p->b,
							  KL_OP_IMUL_IMM,
							  sum, 31),
				      vp_as_i64(p, x));
	kl_build_return(&p->b, &sum, 1);
	free(blk);
	free(has_param);
	return kl_builder_status(&p->b) == KL_OK &&
	       (!p->vs || kl_vars_status(p->vs) == KL_OK);
}

/* Finish the variables (when built with them): kl_vars_finish. */
static inline bool
vars_program_finish(vars_program *p)
{
	if (!p->vs)
		return true;
	bool ok = kl_vars_finish(p->vs) == KL_OK;
	kl_vars_free(p->vs);
	p->vs = NULL;
	return ok;
}

/* The parameters of f's blocks but the entry block's: what SSA
 * construction made (and a front end's own). */
static inline uint32_t
vars_program_params(const kl_func *f)
{
	uint32_t n = 0;
	for (kl_block b = kl_block_next(f, kl_func_first_block(f));
	     b.id != KL_NONE; b = kl_block_next(f, b))
		n += kl_block_num_params(f, b);
	return n;
}

static inline void
vars_program_free(vars_program *p)
{
	kl_vars_free(p->vs);
	kl_module_free(p->m);
	free(p->own);
	memset(p, 0, sizeof *p);
}

#endif
