/*
 * test_api.c -- unit tests of the public API's promises: error values
 * where keel.h names them, NULL where it allows it, pointers that stay
 * valid as long as it says, and costs that stay linear whatever order a
 * front end builds in.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../../src/ir/ir.h"
#include "keel.h"
#include "unit.h"
#include "onefunc.h"

/* ---- blocks ---- */

/* keel.h: KL_ERR_POSITION when the block to place b beside is not in the
 * layout, none and a number that is no block included; KL_ERR_INVALID is
 * for b itself, and for b placed already. Both kl_func_insert_block_after
 * and kl_func_insert_block_before: b ends up placed beside b0. */
static void
check_insert_errors(kl_status (*insert)(kl_func *, kl_block, kl_block),
		    kl_func **f, kl_block *b0, kl_block *nb, kl_module **m)
{
	kl_builder bld;
	*m = one_block_func(f, b0, &bld);
	*nb = kl_func_new_block(*f);
	kl_block loose = kl_func_new_block(*f);
	CHECK_EQ_INT(insert(*f, *nb, KL_NO_BLOCK), KL_ERR_POSITION);
	CHECK_EQ_INT(insert(*f, *nb, (kl_block){ 999 }), KL_ERR_POSITION);
	CHECK_EQ_INT(insert(*f, *nb, loose), KL_ERR_POSITION);
	CHECK_EQ_INT(insert(*f, KL_NO_BLOCK, *b0), KL_ERR_INVALID);
	CHECK_EQ_INT(insert(*f, *nb, *b0), KL_OK);
	CHECK_EQ_INT(insert(*f, *nb, *b0), KL_ERR_INVALID);
}

static void
test_insert_block_after_unplaced(void)
{
	kl_func *f;
	kl_block b0, nb;
	kl_module *m;
	check_insert_errors(kl_func_insert_block_after, &f, &b0, &nb, &m);
	CHECK_EQ_INT(kl_block_next(f, b0).id, nb.id);
	kl_module_free(m);
}

/* ---- rewriting through the public API ---- */

/* A module holding %f() -> i32 with one placed block, and a builder at
 * its end. */
static kl_module *
i32_func(kl_func **f, kl_builder *b)
{
	kl_module *m = kl_module_new();
	const kl_type i32 = KL_TYPE_I32;
	kl_signature sig = { .results = &i32, .num_results = 1 };
	CHECK_EQ_INT(kl_module_add_func(m, "f", 1, &sig, f), KL_OK);
	kl_block b0 = kl_func_new_block(*f);
	CHECK_EQ_INT(kl_func_append_block(*f, b0), KL_OK);
	kl_builder_init(b, *f);
	kl_builder_at_end(b, b0);
	return m;
}

/* The first result of f called (in a fresh interpreter) with nargs
 * arguments, each arg; UINT64_MAX if it did not return one. */
static uint64_t
result_of(kl_func *f, uint32_t nargs, uint64_t arg)
{
	uint64_t args[1] = { arg }, r = UINT64_MAX;
	kl_interp *it = kl_interp_new(kl_func_module(f), NULL);
	kl_run_result res;
	if (kl_interp_call(it, kl_func_sym(f), args, nargs, &res) == KL_OK &&
	    res.status == KL_RUN_RETURNED && res.num_results)
		r = res.results[0];
	kl_interp_free(it);
	return r;
}

/* A second placed block of f, with one i32 parameter in *p. */
static kl_block
join_block(kl_func *f, kl_value *p)
{
	kl_block b1 = kl_func_new_block(f);
	CHECK_EQ_INT(kl_func_append_block(f, b1), KL_OK);
	*p = kl_block_append_param(f, b1, KL_TYPE_I32);
	return b1;
}

/* A new block put before the entry is the entry; one put between two
 * blocks changes both neighbours' links. */
static void
test_insert_block_before(void)
{
	kl_func *f;
	kl_block b0, nb;
	kl_module *m;
	check_insert_errors(kl_func_insert_block_before, &f, &b0, &nb, &m);
	CHECK_EQ_INT(kl_func_first_block(f).id, nb.id);
	CHECK_EQ_INT(kl_block_next(f, nb).id, b0.id);
	CHECK_EQ_INT(kl_block_prev(f, b0).id, nb.id);
	CHECK_EQ_INT(kl_block_prev(f, nb).id, KL_NONE);
	kl_block mid = kl_func_new_block(f);
	CHECK_EQ_INT(kl_func_insert_block_before(f, mid, b0), KL_OK);
	CHECK_EQ_INT(kl_block_next(f, nb).id, mid.id);
	CHECK_EQ_INT(kl_block_next(f, mid).id, b0.id);
	CHECK_EQ_INT(kl_block_prev(f, b0).id, mid.id);
	CHECK_EQ_INT(kl_block_prev(f, mid).id, nb.id);
	kl_module_free(m);
}

static kl_func *parsed_f(const char *src, kl_module **m);

/* A lifted function whose first block turns out to be a loop header: a
 * new entry goes before it, passing the parameters on, and the back edge
 * to the old entry is then allowed. */
static void
test_new_entry_before_loop_header(void)
{
	kl_module *m;
	const char src[] = "function %f(i32) -> i32 {\n"
			   "block0(v0: i32):\n"
			   "    v1 = iadd_imm v0, 1\n"
			   "    v2 = icmp_imm slt v1, 10\n"
			   "    brif v2, block1, block2\n"
			   "\n"
			   "block1:\n"
			   "    jump block2\n"
			   "\n"
			   "block2:\n"
			   "    return v1\n"
			   "}\n";
	kl_func *f = parsed_f(src, &m);
	kl_block old = kl_func_first_block(f);
	kl_block entry = kl_func_new_block(f);
	kl_value p = kl_block_append_param(f, entry, KL_TYPE_I32);
	CHECK_EQ_INT(kl_func_insert_block_before(f, entry, old), KL_OK);
	kl_builder b;
	kl_builder_init(&b, f);
	kl_builder_at_end(&b, entry);
	kl_build_jump(&b, (kl_block_call){ old, &p, 1 });
	/* block1 loops back: v0 becomes the loop's counter */
	kl_inst back = kl_block_last_inst(f, (kl_block){ 1 });
	kl_value v1 = { 1 };
	CHECK_EQ_INT(kl_inst_set_dest(f, back, 0,
				      (kl_block_call){ old, &v1, 1 }),
		     KL_OK);
	CHECK_EQ_INT(kl_builder_status(&b), KL_OK);
	CHECK_EQ_INT(kl_verify_func(f, NULL, NULL), KL_OK);
	CHECK_EQ_INT(result_of(f, 1, 3), 10);
	CHECK_EQ_INT(result_of(f, 1, 20), 21);
	kl_buf text = { 0 };
	kl_print_module(m, NULL, &text);
	CHECK(strstr(text.data, "function %f(i32) -> i32 {\n"
				"block3(v3: i32):\n"
				"    jump block0(v3)\n"
				"\n"
				"block0(v0: i32):\n") != NULL);
	kl_buf_free(&text);
	kl_module_free(m);
}

/* kl_func_resolve_aliases: operands and branch arguments that name an
 * alias name the end of its chain, two steps long included; the
 * aliases are no longer printed; a broken chain stays for the verifier. */
static void
test_resolve_aliases(void)
{
	kl_module *m;
	const char src[] = "function %f(i32) -> i32 {\n"
			   "block0(v0: i32):\n"
			   "    v1 = iadd_imm v0, 1\n"
			   "    v3 -> v1\n"
			   "    v4 -> v3\n"
			   "    v5 = imul v4, v3\n"
			   "    brif v5, block1(v4), block1(v0)\n"
			   "\n"
			   "block1(v6: i32):\n"
			   "    v7 -> v6\n"
			   "    return v7\n"
			   "}\n";
	kl_func *f = parsed_f(src, &m);
	CHECK_EQ_INT(result_of(f, 1, 4), 5);
	CHECK_EQ_INT(kl_func_resolve_aliases(f), 4);
	CHECK_EQ_INT(kl_verify_func(f, NULL, NULL), KL_OK);
	CHECK_EQ_INT(result_of(f, 1, 4), 5);
	kl_buf text = { 0 };
	kl_print_module(m, NULL, &text);
	CHECK_EQ_STR(text.data, "function %f(i32) -> i32 {\n"
				"block0(v0: i32):\n"
				"    v1 = iadd_imm v0, 1\n"
				"    v5 = imul v1, v1\n"
				"    brif v5, block1(v1), block1(v0)\n"
				"\n"
				"block1(v6: i32):\n"
				"    return v6\n"
				"}\n");
	kl_buf_free(&text);
	CHECK_EQ_INT(kl_func_resolve_aliases(f), 0); /* nothing left */
	kl_module_free(m);
	/* a cycle is no value to name: the use stays, and so does the
	 * verifier's error */
	f = parsed_f("function %f(i32) -> i32 {\n"
		     "block0(v0: i32):\n"
		     "    v1 -> v2\n"
		     "    v2 -> v1\n"
		     "    return v1\n"
		     "}\n", &m);
	CHECK_EQ_INT(kl_func_resolve_aliases(f), 0);
	CHECK_EQ_INT(kl_verify_func(f, NULL, NULL), KL_ERR_VERIFY);
	kl_module_free(m);
}

/* kl_func_make_entry: a placed first block with the signature's
 * parameters, in an empty function or before the entry there is. */
static void
test_make_entry(void)
{
	kl_module *m = kl_module_new();
	const kl_type ps[2] = { KL_TYPE_I32, KL_TYPE_F64 };
	const kl_type i32 = KL_TYPE_I32;
	kl_signature sig = { .params = ps, .num_params = 2,
			     .results = &i32, .num_results = 1 };
	kl_func *f;
	CHECK_EQ_INT(kl_module_add_func(m, "f", 1, &sig, &f), KL_OK);
	kl_block later = kl_func_make_entry(f);
	CHECK_EQ_INT(kl_func_first_block(f).id, later.id);
	CHECK_EQ_INT(kl_block_num_params(f, later), 2);
	CHECK_EQ_INT(kl_value_type(f, kl_block_param(f, later, 1)),
		     KL_TYPE_F64);
	kl_builder b;
	kl_builder_init(&b, f);
	kl_builder_at_end(&b, later);
	kl_build_return(&b, (kl_value[]){ kl_block_param(f, later, 0) }, 1);
	/* a second one goes first: the old entry is an ordinary block,
	 * which the new one jumps to */
	kl_block entry = kl_func_make_entry(f);
	CHECK_EQ_INT(kl_func_first_block(f).id, entry.id);
	CHECK_EQ_INT(kl_block_next(f, entry).id, later.id);
	kl_value args[2] = { kl_block_param(f, entry, 0),
			     kl_block_param(f, entry, 1) };
	kl_builder_at_end(&b, entry);
	kl_build_jump(&b, (kl_block_call){ later, args, 2 });
	CHECK_EQ_INT(kl_builder_status(&b), KL_OK);
	CHECK_EQ_INT(kl_verify_func(f, NULL, NULL), KL_OK);
	kl_module_free(m);
}

/* Moving a block keeps its instructions; none as the place means last;
 * the entry may move, and the next block is then the entry. */
static void
test_move_block(void)
{
	kl_module *m;
	const char src[] = "function %f(i32) -> i32 {\n"
			   "block0(v0: i32):\n"
			   "    brif v0, block1, block2\n"
			   "\n"
			   "block1:\n"
			   "    v1 = iconst.i32 7\n"
			   "    return v1\n"
			   "\n"
			   "block2:\n"
			   "    v2 = iconst.i32 9\n"
			   "    return v2\n"
			   "}\n";
	kl_func *f = parsed_f(src, &m);
	kl_block b0 = { 0 }, b1 = { 1 }, b2 = { 2 };
	kl_block loose = kl_func_new_block(f);
	CHECK_EQ_INT(kl_func_move_block(f, loose, b0), KL_ERR_INVALID);
	CHECK_EQ_INT(kl_func_move_block(f, KL_NO_BLOCK, b0), KL_ERR_INVALID);
	CHECK_EQ_INT(kl_func_move_block(f, b2, loose), KL_ERR_POSITION);
	CHECK_EQ_INT(kl_func_move_block(f, b2, (kl_block){ 999 }),
		     KL_ERR_POSITION);
	CHECK_EQ_INT(kl_func_move_block(f, b2, b2), KL_OK); /* stays */
	CHECK_EQ_INT(kl_block_prev(f, b2).id, b1.id);

	CHECK_EQ_INT(kl_func_move_block(f, b2, b1), KL_OK);
	CHECK_EQ_INT(kl_block_next(f, b0).id, b2.id);
	CHECK_EQ_INT(kl_block_next(f, b2).id, b1.id);
	CHECK_EQ_INT(kl_block_next(f, b1).id, KL_NONE);
	CHECK_EQ_INT(kl_inst_block(f, kl_block_first_inst(f, b2)).id, b2.id);
	CHECK_EQ_INT(kl_verify_func(f, NULL, NULL), KL_OK);
	CHECK_EQ_INT(result_of(f, 1, 0), 9);
	CHECK_EQ_INT(result_of(f, 1, 1), 7);

	CHECK_EQ_INT(kl_func_move_block(f, b2, KL_NO_BLOCK), KL_OK);
	CHECK_EQ_INT(kl_block_next(f, b1).id, b2.id);
	CHECK_EQ_INT(kl_block_next(f, b2).id, KL_NONE);

	/* the entry moved last: block1 is first, and the verifier says
	 * what is wrong with that (an entry without the parameters) */
	CHECK_EQ_INT(kl_func_move_block(f, b0, KL_NO_BLOCK), KL_OK);
	CHECK_EQ_INT(kl_func_first_block(f).id, b1.id);
	CHECK_EQ_INT(kl_block_prev(f, b1).id, KL_NONE);
	CHECK(kl_verify_func(f, NULL, NULL) != KL_OK);
	CHECK_EQ_INT(kl_func_move_block(f, b0, b1), KL_OK);
	CHECK_EQ_INT(kl_func_first_block(f).id, b0.id);
	CHECK_EQ_INT(kl_verify_func(f, NULL, NULL), KL_OK);
	CHECK_EQ_INT(result_of(f, 1, 1), 7);
	kl_module_free(m);
}

/* Replacing every use of a value, through the public API alone: remove
 * the instruction, alias its result. A placed instruction's result may
 * not be aliased. */
static void
test_replace_uses(void)
{
	const kl_type i32 = KL_TYPE_I32;
	kl_func *f;
	kl_builder b;
	kl_module *m = i32_func(&f, &b);
	kl_value one = kl_build_iconst(&b, i32, 1);
	kl_value two = kl_build_binary(&b, KL_OP_IADD, one, one);
	kl_value three = kl_build_binary(&b, KL_OP_IADD, two, one);
	kl_build_return(&b, &three, 1);
	CHECK_EQ_INT(kl_builder_status(&b), KL_OK);
	/* two is still computed by a placed iadd */
	CHECK_EQ_INT(kl_value_set_alias(f, two, one), KL_ERR_INVALID);
	kl_inst add = kl_value_def_inst(f, two);
	kl_inst_remove(f, add);
	CHECK_EQ_INT(kl_value_set_alias(f, two, one), KL_OK);
	CHECK(kl_value_resolve(f, two).id == one.id);
	CHECK_EQ_INT(kl_verify_func(f, NULL, NULL), KL_OK);
	CHECK_EQ_INT(result_of(f, 0, 0), 2);
	/* an alias keeps its users' type, and leads to a defined value */
	kl_value wide = kl_build_iconst(&b, KL_TYPE_I64, 1);
	CHECK_EQ_INT(kl_builder_status(&b), KL_OK);
	CHECK_EQ_INT(kl_value_set_alias(f, two, wide), KL_ERR_INVALID);
	kl_inst_remove(f, kl_value_def_inst(f, wide));
	kl_value two_again = kl_build_iconst(&b, KL_TYPE_I64, 2);
	kl_inst_remove(f, kl_value_def_inst(f, two_again));
	CHECK_EQ_INT(kl_value_set_alias(f, two_again, wide), KL_ERR_INVALID);
	CHECK(kl_value_resolve(f, two).id == one.id);
	/* printed and parsed back, the alias stays */
	kl_buf text = { 0 };
	kl_print_module(m, NULL, &text);
	CHECK(strstr(text.data, "v1 -> v0") != NULL);
	kl_module *again = NULL;
	CHECK_EQ_INT(kl_parse_module(text.data, text.len, NULL, &again, NULL),
		     KL_OK);
	kl_module_free(again);
	kl_buf_free(&text);
	kl_module_free(m);
}

/* Operands and branch arguments set in place: a use replaced without an
 * alias. */
static void
test_operand_setters(void)
{
	const kl_type i32 = KL_TYPE_I32;
	kl_func *f;
	kl_builder b;
	kl_module *m = i32_func(&f, &b);
	kl_value p;
	kl_block b1 = join_block(f, &p);
	kl_value one = kl_build_iconst(&b, i32, 1);
	kl_value ten = kl_build_iconst(&b, i32, 10);
	kl_value sum = kl_build_binary(&b, KL_OP_IADD, one, one);
	kl_inst br = kl_build_jump(&b, (kl_block_call){ b1, &sum, 1 });
	kl_builder_at_end(&b, b1);
	kl_inst ret = kl_build_return(&b, &p, 1);
	CHECK_EQ_INT(kl_builder_status(&b), KL_OK);
	kl_inst add = kl_value_def_inst(f, sum);
	CHECK_EQ_INT(kl_inst_set_arg(f, add, 1, ten), KL_OK);
	CHECK_EQ_INT(kl_inst_arg(f, add, 1).id, ten.id);
	CHECK_EQ_INT(kl_inst_set_arg(f, add, 2, ten), KL_ERR_INVALID);
	CHECK_EQ_INT(kl_inst_set_arg(f, add, 0, (kl_value){ 999 }),
		     KL_ERR_INVALID);
	CHECK_EQ_INT(kl_inst_set_arg(f, KL_NO_INST, 0, ten), KL_ERR_INVALID);
	CHECK_EQ_INT(kl_inst_set_arg(f, ret, 0, p), KL_OK);
	/* the jump's argument: 1 + 10 */
	CHECK_EQ_INT(result_of(f, 0, 0), 11);
	CHECK_EQ_INT(kl_inst_set_dest_arg(f, br, 0, 0, ten), KL_OK);
	CHECK_EQ_INT(kl_inst_dest_arg(f, br, 0, 0).id, ten.id);
	CHECK_EQ_INT(kl_inst_set_dest_arg(f, br, 0, 1, ten), KL_ERR_INVALID);
	CHECK_EQ_INT(kl_inst_set_dest_arg(f, br, 1, 0, ten), KL_ERR_INVALID);
	CHECK_EQ_INT(kl_inst_set_dest_arg(f, add, 0, 0, ten), KL_ERR_INVALID);
	CHECK_EQ_INT(kl_verify_func(f, NULL, NULL), KL_OK);
	/* a fresh interpreter sees the change (a kept one decoded before) */
	CHECK_EQ_INT(result_of(f, 0, 0), 10);
	kl_module_free(m);
}

/* Does f's printed module parse and verify? */
static bool
printed_verifies(const kl_module *m)
{
	kl_buf text = { 0 };
	kl_print_module(m, NULL, &text);
	kl_module *again = NULL;
	bool ok = kl_parse_module(text.data, text.len, NULL, &again, NULL) ==
			  KL_OK &&
		  kl_verify_module(again, NULL) == KL_OK;
	kl_module_free(again);
	kl_buf_free(&text);
	return ok;
}

/* An operand set to a value of another type than the instruction's
 * result: the verifier rejects the function, and its printed text must
 * not verify either. The printer left the suffix out, or wrote the
 * operand's type, and the parser gave the result the operand's type:
 * the text verified, hiding the error the verifier reported. */
static void
test_set_arg_of_other_type(void)
{
	const kl_type i32 = KL_TYPE_I32;
	kl_func *f;
	kl_builder b;
	kl_module *m = i32_func(&f, &b);
	kl_value p;
	kl_block b1 = join_block(f, &p);
	kl_value one = kl_build_iconst(&b, i32, 1);
	kl_value wide = kl_build_iconst(&b, KL_TYPE_I64, 2);
	kl_value c = kl_build_icmp_imm(&b, KL_ICC_EQ, one, 1);
	kl_value r[5];
	r[0] = kl_build_binary(&b, KL_OP_IADD, one, one);
	r[1] = kl_build_unary(&b, KL_OP_INEG, KL_TYPE_NONE, one);
	r[2] = kl_build_binary_imm(&b, KL_OP_IADD_IMM, one, 1);
	r[3] = kl_build_select(&b, c, one, one);
	kl_build_jump(&b, (kl_block_call){ b1, &one, 1 });
	kl_builder_at_end(&b, b1);
	/* (its operands are not defined in its block: a suffix is written) */
	r[4] = kl_build_binary(&b, KL_OP_ISUB, one, one);
	kl_build_return(&b, &p, 1);
	CHECK_EQ_INT(kl_builder_status(&b), KL_OK);
	CHECK(printed_verifies(m));
	for (int k = 0; k < 5; k++) {
		kl_inst i = kl_value_def_inst(f, r[k]);
		uint32_t n = kl_inst_num_args(f, i);
		for (uint32_t a = k == 3; a < n; a++) /* (not select's c) */
			CHECK_EQ_INT(kl_inst_set_arg(f, i, a, wide), KL_OK);
		CHECK_EQ_INT(kl_verify_func(f, NULL, NULL), KL_ERR_VERIFY);
		bool ok = printed_verifies(m);
		if (ok)
			fprintf(stderr, "  r[%d]: the printed text verifies\n", k);
		CHECK(!ok);
		for (uint32_t a = k == 3; a < n; a++)
			CHECK_EQ_INT(kl_inst_set_arg(f, i, a, one), KL_OK);
	}
	CHECK_EQ_INT(kl_verify_func(f, NULL, NULL), KL_OK);
	CHECK(printed_verifies(m));
	kl_module_free(m);
}

/* Branch folding: a brif on a constant becomes a jump, and the block
 * no branch reaches any more leaves the layout with its instructions. */
static void
test_remove_block(void)
{
	const kl_type i32 = KL_TYPE_I32;
	kl_func *f;
	kl_builder b;
	kl_module *m = i32_func(&f, &b);
	kl_block b0 = kl_func_first_block(f);
	kl_block b1 = kl_func_new_block(f), b2 = kl_func_new_block(f);
	CHECK_EQ_INT(kl_func_append_block(f, b1), KL_OK);
	CHECK_EQ_INT(kl_func_append_block(f, b2), KL_OK);
	kl_value unused = kl_block_append_param(f, b2, i32);
	CHECK_EQ_INT(kl_value_def_block(f, unused).id, b2.id);
	kl_value yes = kl_build_iconst(&b, KL_TYPE_I8, 1);
	kl_inst br = kl_build_brif(&b, yes, (kl_block_call){ b1, NULL, 0 },
				   (kl_block_call){ b2, &unused, 1 });
	kl_builder_at_end(&b, b1);
	kl_value one = kl_build_iconst(&b, i32, 1);
	kl_build_return(&b, &one, 1);
	kl_builder_at_end(&b, b2);
	kl_value two = kl_build_iconst(&b, i32, 2);
	kl_inst ret2 = kl_build_return(&b, &two, 1);
	CHECK_EQ_INT(kl_builder_status(&b), KL_OK);
	kl_cfg *cfg = kl_cfg_new(), *fresh = kl_cfg_new();
	kl_cfg_compute(cfg, f);
	/* the fold */
	kl_builder_before(&b, br);
	kl_build_jump(&b, (kl_block_call){ b1, NULL, 0 });
	kl_inst_remove(f, br);
	CHECK_EQ_INT(kl_func_remove_block(f, b2), KL_OK);
	CHECK_EQ_INT(kl_builder_status(&b), KL_OK);
	CHECK_EQ_INT(kl_block_next(f, b1).id, KL_NONE);
	/* out of the layout, it has no neighbours, as a removed
	 * instruction has none */
	CHECK_EQ_INT(kl_block_prev(f, b2).id, KL_NONE);
	CHECK_EQ_INT(kl_inst_block(f, ret2).id, KL_NONE);
	/* as its instructions' results, its parameters are nowhere now */
	CHECK_EQ_INT(kl_value_def_block(f, unused).id, KL_NONE);
	CHECK_EQ_INT(kl_value_def_block(f, two).id, KL_NONE);
	CHECK_EQ_INT(kl_func_remove_block(f, b2), KL_ERR_INVALID);
	CHECK_EQ_INT(kl_func_remove_block(f, b0), KL_ERR_INVALID); /* entry */
	CHECK_EQ_INT(kl_func_remove_block(f, KL_NO_BLOCK), KL_ERR_INVALID);
	/* what it defined is not there to stand for another value */
	kl_builder_at_end(&b, b1);
	kl_builder_before(&b, kl_block_last_inst(f, b1));
	kl_value spare = kl_build_iconst(&b, i32, 3);
	kl_inst_remove(f, kl_value_def_inst(f, spare));
	CHECK_EQ_INT(kl_value_set_alias(f, spare, two), KL_ERR_INVALID);
	CHECK_EQ_INT(kl_value_set_alias(f, spare, one), KL_OK);
	CHECK_EQ_INT(kl_verify_func(f, NULL, NULL), KL_OK);
	kl_cfg_recompute_block(cfg, f, b0);
	kl_cfg_recompute_block(cfg, f, b2);
	kl_cfg_compute(fresh, f);
	kl_block differs;
	CHECK(kl_cfg_equal(cfg, fresh, &differs));
	kl_buf text = { 0 };
	kl_print_func(f, NULL, &text);
	CHECK(strstr(text.data, "block2") == NULL);
	CHECK(strstr(text.data, "jump block1") != NULL);
	kl_buf_free(&text);
	/* placed again, it is empty */
	CHECK_EQ_INT(kl_func_append_block(f, b2), KL_OK);
	CHECK_EQ_INT(kl_block_first_inst(f, b2).id, KL_NONE);
	kl_cfg_free(cfg);
	kl_cfg_free(fresh);
	kl_module_free(m);
}

/* Use lists: each use where it is, through aliases too, in layout order;
 * then every use replaced through them with the operand setters. */
static void
test_uses(void)
{
	const kl_type i32 = KL_TYPE_I32;
	kl_func *f;
	kl_builder b;
	kl_module *m = i32_func(&f, &b);
	kl_value p;
	kl_block b1 = join_block(f, &p);
	kl_value x = kl_build_iconst(&b, i32, 6);
	kl_value y = kl_build_iconst(&b, i32, 7);
	kl_value dead = kl_build_iconst(&b, i32, 0);
	kl_value sq = kl_build_binary(&b, KL_OP_IMUL, x, x);
	kl_value alias_src = kl_build_iconst(&b, i32, 99);
	kl_inst gone = kl_value_def_inst(f, alias_src);
	kl_inst_remove(f, gone);
	CHECK_EQ_INT(kl_value_set_alias(f, alias_src, x), KL_OK);
	kl_value sum = kl_build_binary(&b, KL_OP_IADD, sq, alias_src);
	kl_value args[] = { x };
	kl_inst br = kl_build_jump(&b, (kl_block_call){ b1, args, 1 });
	kl_builder_at_end(&b, b1);
	kl_value both = kl_build_binary(&b, KL_OP_IADD, p, sum);
	kl_inst ret = kl_build_return(&b, &both, 1);
	CHECK_EQ_INT(kl_builder_status(&b), KL_OK);
	kl_uses *u = kl_uses_new();
	kl_uses_compute(u, f);
	uint32_t n;
	const kl_use *use = kl_uses_of(u, f, x, &n);
	/* x: twice in the imul, once through the alias in the iadd, once
	 * as the jump's argument */
	CHECK_EQ_INT(n, 4);
	kl_inst mul = kl_value_def_inst(f, sq), add = kl_value_def_inst(f, sum);
	CHECK(use[0].inst.id == mul.id && use[0].dest == KL_NONE &&
	      use[0].index == 0);
	CHECK(use[1].inst.id == mul.id && use[1].index == 1);
	CHECK(use[2].inst.id == add.id && use[2].index == 1);
	CHECK(use[3].inst.id == br.id && use[3].dest == 0 &&
	      use[3].index == 0);
	/* asking about the alias answers for x */
	CHECK(kl_uses_of(u, f, alias_src, &n) == use && n == 4);
	CHECK(kl_uses_of(u, f, dead, &n) == NULL && n == 0);
	CHECK(kl_uses_of(u, f, both, &n) != NULL && n == 1);
	CHECK(kl_uses_of(u, f, KL_NO_VALUE, &n) == NULL && n == 0);
	/* resolving through the table of the compute */
	CHECK(kl_uses_resolve(u, f, alias_src).id == x.id);
	CHECK(kl_uses_resolve(u, f, x).id == x.id);
	CHECK(kl_uses_resolve(u, f, KL_NO_VALUE).id == KL_NO_VALUE.id);
	use = kl_uses_of(u, f, p, &n);
	CHECK(n == 1 && use[0].inst.id == kl_value_def_inst(f, both).id &&
	      use[0].index == 0);
	CHECK(kl_uses_of(u, f, both, &n)[0].inst.id == ret.id);
	/* replace every use of x by y */
	use = kl_uses_of(u, f, x, &n);
	for (uint32_t k = 0; k < n; k++) {
		kl_status st = use[k].dest == KL_NONE
				       ? kl_inst_set_arg(f, use[k].inst,
							 use[k].index, y)
				       : kl_inst_set_dest_arg(f, use[k].inst,
							      use[k].dest,
							      use[k].index, y);
		CHECK_EQ_INT(st, KL_OK);
	}
	kl_uses_compute(u, f);
	CHECK(kl_uses_of(u, f, x, &n) == NULL && n == 0);
	CHECK(kl_uses_of(u, f, y, &n) != NULL && n == 4);
	CHECK_EQ_INT(kl_verify_func(f, NULL, NULL), KL_OK);
	CHECK_EQ_INT(result_of(f, 0, 0), 49 + 7 + 7);
	/* The lists describe the function as computed: a value made an
	 * alias since then still lists its own uses (which a worklist pass
	 * revisits), not those of its new target. */
	kl_inst_remove(f, kl_value_def_inst(f, both));
	CHECK_EQ_INT(kl_value_set_alias(f, both, y), KL_OK);
	use = kl_uses_of(u, f, both, &n);
	CHECK(n == 1 && use[0].inst.id == ret.id);
	CHECK(kl_uses_of(u, f, y, &n) != NULL && n == 4);
	CHECK(kl_uses_resolve(u, f, both).id == both.id); /* as computed */
	kl_builder_before(&b, ret);
	kl_value later = kl_build_iconst(&b, i32, 3); /* made since */
	CHECK(kl_uses_resolve(u, f, later).id == later.id);
	kl_uses_free(u);
	kl_uses_free(NULL);
	kl_module_free(m);
}

/* Function %f of the module src holds (which must parse), in *m. */
static kl_func *
parsed_f(const char *src, kl_module **m)
{
	*m = NULL;
	CHECK_EQ_INT(kl_parse_module(src, strlen(src), NULL, m, NULL), KL_OK);
	return *m ? kl_sym_func(*m, kl_module_lookup(*m, "f", 1)) : NULL;
}

/* A parameter added to a block that has predecessors needs an argument
 * on every branch to it: appended in place, to a destination with
 * arguments or without (a lone block, which becomes a list), in a
 * br_table's pool as in a jump. */
static void
test_append_dest_arg(void)
{
	kl_module *m;
	kl_func *f = parsed_f("function %f(i32) -> i32 {\n"
			      "block0(v0: i32):\n"
			      "    br_table v0, block1(v0), [block2, block1(v0)]\n"
			      "\n"
			      "block1(v1: i32):\n"
			      "    jump block2\n"
			      "\n"
			      "block2:\n"
			      "    v2 = iconst.i32 5\n"
			      "    return v2\n"
			      "}\n",
			      &m);
	kl_block b0 = kl_func_first_block(f);
	kl_block b2 = kl_block_next(f, kl_block_next(f, b0));
	kl_inst table = kl_block_last_inst(f, b0);
	kl_inst jump = kl_block_last_inst(f, kl_block_next(f, b0));
	kl_value v0 = kl_block_param(f, b0, 0);
	kl_value q = kl_block_append_param(f, b2, KL_TYPE_I32);
	CHECK_EQ_INT(kl_verify_func(f, NULL, NULL), KL_ERR_VERIFY);
	CHECK_EQ_INT(kl_inst_append_dest_arg(f, table, 1, v0), KL_OK);
	CHECK_EQ_INT(kl_inst_append_dest_arg(f, jump, 0, kl_block_param(
			     f, kl_block_next(f, b0), 0)), KL_OK);
	CHECK_EQ_INT(kl_verify_func(f, NULL, NULL), KL_OK);
	CHECK_EQ_INT(kl_inst_dest_num_args(f, table, 1), 1);
	CHECK_EQ_INT(kl_inst_dest_num_args(f, table, 2), 1); /* untouched */
	/* then the parameter is the result */
	kl_inst ret = kl_block_last_inst(f, b2);
	CHECK_EQ_INT(kl_inst_set_arg(f, ret, 0, q), KL_OK);
	CHECK_EQ_INT(kl_verify_func(f, NULL, NULL), KL_OK);
	kl_buf text = { 0 };
	kl_print_func(f, NULL, &text);
	CHECK(strstr(text.data, "br_table v0, block1(v0), [block2(v0), "
				"block1(v0)]\n") != NULL);
	CHECK(strstr(text.data, "jump block2(v1)\n") != NULL);
	kl_buf_free(&text);
	CHECK_EQ_INT(result_of(f, 1, 1), 1);
	/* refused: no such destination, no branch, no value */
	CHECK_EQ_INT(kl_inst_append_dest_arg(f, jump, 1, v0), KL_ERR_INVALID);
	CHECK_EQ_INT(kl_inst_append_dest_arg(f, ret, 0, v0), KL_ERR_INVALID);
	CHECK_EQ_INT(kl_inst_append_dest_arg(f, jump, 0, KL_NO_VALUE),
		     KL_ERR_INVALID);
	CHECK_EQ_INT(kl_inst_append_dest_arg(f, KL_NO_INST, 0, v0),
		     KL_ERR_INVALID);
	CHECK_EQ_INT(kl_inst_dest_num_args(f, jump, 0), 1);
	kl_module_free(m);
}


/* Many parameters at once, from several blocks, in one walk over the
 * branches: each branch to a block keeps the arguments of the parameters
 * that stay, in order (jump, brif and br_table destinations alike). */
static void
test_remove_params(void)
{
	kl_module *m;
	kl_func *f = parsed_f("function %f(i32) -> i32 {\n"
			      "block0(v0: i32):\n"
			      "    v1 = iconst.i32 1\n"
			      "    v2 = iconst.i32 2\n"
			      "    brif v0, block1(v1, v2, v0), block2(v2, v1)\n"
			      "\n"
			      "block1(v3: i32, v4: i32, v5: i32):\n"
			      "    br_table v5, block2(v3, v4), [block2(v4, v4)]\n"
			      "\n"
			      "block2(v6: i32, v7: i32):\n"
			      "    v8 = imul_imm v7, 10\n"
			      "    v9 = iadd v6, v8\n"
			      "    return v9\n"
			      "}\n",
			      &m);
	kl_block b0 = kl_func_first_block(f);
	kl_block b1 = kl_block_next(f, b0), b2 = kl_block_next(f, b1);
	kl_value v[10];
	for (uint32_t k = 0; k < 10; k++)
		v[k] = (kl_value){ k };
	/* v4 and v6 are used: replace them first (by v2, v1: what the
	 * branches pass on the path taken for argument 1) */
	kl_inst mul = kl_block_first_inst(f, b2);
	kl_inst add = kl_inst_next(f, mul);
	CHECK_EQ_INT(kl_inst_set_arg(f, mul, 0, v[1]), KL_OK); /* v7 */
	CHECK_EQ_INT(kl_inst_set_arg(f, add, 0, v[2]), KL_OK); /* v6 */
	/* refused, nothing changed: a non-parameter, an entry parameter */
	kl_value bad1[] = { v[6], v[1] }, bad2[] = { v[0] };
	CHECK_EQ_INT(kl_func_remove_params(f, bad1, 2), KL_ERR_INVALID);
	CHECK_EQ_INT(kl_func_remove_params(f, bad2, 1), KL_ERR_INVALID);
	CHECK_EQ_INT(kl_block_num_params(f, b2), 2);
	kl_value gone[] = { v[6], v[4], v[7], v[6] }; /* (v6 twice) */
	CHECK_EQ_INT(kl_func_remove_params(f, gone, 4), KL_OK);
	CHECK_EQ_INT(kl_block_num_params(f, b1), 2);
	CHECK_EQ_INT(kl_block_param(f, b1, 1).id, 5);
	CHECK_EQ_INT(kl_block_num_params(f, b2), 0);
	CHECK_EQ_INT(kl_verify_func(f, NULL, NULL), KL_OK);
	kl_buf text = { 0 };
	kl_print_func(f, NULL, &text);
	CHECK(strstr(text.data, "brif v0, block1(v1, v0), block2\n"));
	CHECK(strstr(text.data, "br_table v5, block2, [block2]\n"));
	CHECK(strstr(text.data, "block1(v3: i32, v5: i32):\n"));
	kl_buf_free(&text);
	CHECK_EQ_INT(result_of(f, 1, 1), 12);
	CHECK_EQ_INT(kl_value_type(f, v[6]), KL_TYPE_I32);
	CHECK_EQ_INT(kl_func_remove_params(f, NULL, 0), KL_OK);
	kl_module_free(m);
}

/* A destination replaced whole: the critical edge from a brif to a join
 * split by a block of its own (the edge's arguments move to its jump),
 * and a br_table entry retargeted. */
static void
test_set_dest(void)
{
	kl_module *m;
	kl_func *f = parsed_f("function %f(i32) -> i32 {\n"
			      "block0(v0: i32):\n"
			      "    v1 = iconst.i32 10\n"
			      "    v2 = iconst.i32 20\n"
			      "    brif v0, block1(v1), block2\n"
			      "\n"
			      "block2:\n"
			      "    br_table v0, block1(v2), [block1(v1)]\n"
			      "\n"
			      "block1(v3: i32):\n"
			      "    return v3\n"
			      "}\n",
			      &m);
	kl_block b0 = kl_func_first_block(f), b2 = kl_block_next(f, b0);
	kl_block b1 = kl_block_next(f, b2);
	kl_inst br = kl_block_last_inst(f, b0);
	kl_inst table = kl_block_last_inst(f, b2);
	kl_value v1 = { 1 }, v2 = { 2 };
	kl_block edge = kl_func_new_block(f);
	CHECK_EQ_INT(kl_func_insert_block_after(f, edge, b0), KL_OK);
	kl_builder b;
	kl_builder_init(&b, f);
	kl_builder_at_end(&b, edge);
	kl_build_jump(&b, (kl_block_call){ b1, &v1, 1 });
	CHECK_EQ_INT(kl_builder_status(&b), KL_OK);
	CHECK_EQ_INT(kl_inst_set_dest(f, br, 0, (kl_block_call){ edge, NULL, 0 }),
		     KL_OK);
	/* the br_table's table entry 0 (destination 1) passes v2 now */
	CHECK_EQ_INT(kl_inst_set_dest(f, table, 1, (kl_block_call){ b1, &v2, 1 }),
		     KL_OK);
	CHECK_EQ_INT(kl_verify_func(f, NULL, NULL), KL_OK);
	kl_buf text = { 0 };
	kl_print_func(f, NULL, &text);
	CHECK(strstr(text.data, "brif v0, block3, block2\n"));
	CHECK(strstr(text.data, "block3:\n    jump block1(v1)\n"));
	CHECK(strstr(text.data, "br_table v0, block1(v2), [block1(v2)]\n"));
	kl_buf_free(&text);
	CHECK_EQ_INT(result_of(f, 1, 1), 10);
	CHECK_EQ_INT(result_of(f, 1, 0), 20);
	/* refused, nothing changed */
	kl_block_call to_b1 = { b1, &v1, 1 }, no_args = { b1, NULL, 1 };
	kl_inst ret = kl_block_last_inst(f, b1);
	CHECK_EQ_INT(kl_inst_set_dest(f, ret, 0, to_b1), KL_ERR_INVALID);
	CHECK_EQ_INT(kl_inst_set_dest(f, br, 2, to_b1), KL_ERR_INVALID);
	CHECK_EQ_INT(kl_inst_set_dest(f, br, 0, no_args), KL_ERR_INVALID);
	CHECK_EQ_INT(kl_inst_set_dest(f, br, 0, (kl_block_call){ { 99 }, NULL,
								0 }),
		     KL_ERR_INVALID);
	kl_value nothing = KL_NO_VALUE;
	CHECK_EQ_INT(kl_inst_set_dest(f, br, 0, (kl_block_call){ b1, &nothing,
								1 }),
		     KL_ERR_INVALID);
	CHECK_EQ_INT(kl_inst_dest(f, br, 0).id, edge.id);
	CHECK_EQ_INT(kl_verify_func(f, NULL, NULL), KL_OK);
	kl_module_free(m);
}

/* Names for messages, spelt as the text format writes them. */
static void
test_name_format(void)
{
	kl_buf out = { 0 };
	kl_name_format("main.1_x", 8, &out);
	kl_name_format("a b", 3, &out);
	kl_name_format("", 0, &out);
	CHECK_EQ_STR(out.data, "%main.1_x#612062noname");
	kl_buf_free(&out);
}

/* Moving instructions: a loop-invariant constant hoisted to the block
 * before the loop, a removed instruction placed back, and the refusals. */
static void
test_move_inst(void)
{
	static const char src[] =
		"function %f() -> i32 {\n"
		"block0:\n"
		"    v0 = iconst.i32 0\n"
		"    jump block1(v0)\n"
		"\n"
		"block1(v1: i32):\n"
		"    v2 = iconst.i32 3\n"
		"    v3 = iadd v1, v2\n"
		"    v4 = icmp_imm slt v3, 30\n"
		"    brif v4, block1(v3), block2\n"
		"\n"
		"block2:\n"
		"    return v3\n"
		"}\n";
	kl_module *m;
	kl_func *f = parsed_f(src, &m);
	kl_block b0 = kl_func_first_block(f);
	kl_block b1 = kl_block_next(f, b0);
	kl_block b2 = kl_block_next(f, b1);
	kl_inst three = kl_block_first_inst(f, b1);
	kl_inst add = kl_inst_next(f, three);
	kl_inst jump = kl_block_last_inst(f, b0);
	/* hoisted: before block0's jump */
	CHECK_EQ_INT(kl_inst_move_before(f, three, jump), KL_OK);
	CHECK_EQ_INT(kl_block_first_inst(f, b1).id, add.id);
	CHECK_EQ_INT(kl_inst_next(f, three).id, jump.id);
	CHECK_EQ_INT(kl_value_def_block(f, kl_inst_result(f, three, 0)).id,
		     b0.id);
	CHECK_EQ_INT(kl_verify_func(f, NULL, NULL), KL_OK);
	kl_buf text = { 0 };
	kl_print_func(f, NULL, &text);
	CHECK(strstr(text.data, "    v2 = iconst.i32 3\n    jump block1(v0)")
	      != NULL);
	kl_buf_free(&text);
	CHECK_EQ_INT(result_of(f, 0, 0), 30);
	/* removed, then placed back at the end of a block */
	kl_inst ret = kl_block_last_inst(f, b2);
	kl_inst_remove(f, ret);
	CHECK_EQ_INT(kl_block_first_inst(f, b2).id, KL_NONE);
	CHECK_EQ_INT(kl_inst_move_to_end(f, ret, b2), KL_OK);
	CHECK_EQ_INT(kl_block_first_inst(f, b2).id, ret.id);
	CHECK_EQ_INT(kl_verify_func(f, NULL, NULL), KL_OK);
	/* moved into the place it has: nothing changes */
	CHECK_EQ_INT(kl_inst_move_to_end(f, ret, b2), KL_OK);
	CHECK_EQ_INT(kl_inst_prev(f, ret).id, KL_NONE);
	/* refused: before itself, before an unplaced instruction, into a
	 * block not in the layout, out of range */
	CHECK_EQ_INT(kl_inst_move_before(f, add, add), KL_ERR_INVALID);
	kl_inst_remove(f, ret);
	CHECK_EQ_INT(kl_inst_move_before(f, add, ret), KL_ERR_INVALID);
	kl_block loose = kl_func_new_block(f);
	CHECK_EQ_INT(kl_inst_move_to_end(f, ret, loose), KL_ERR_INVALID);
	CHECK_EQ_INT(kl_inst_move_to_end(f, (kl_inst){ 99 }, b2),
		     KL_ERR_INVALID);
	CHECK_EQ_INT(kl_inst_move_before(f, add, (kl_inst){ 99 }),
		     KL_ERR_INVALID);
	/* a removed instruction whose result stands for another value now
	 * would define it twice: refused, and left where it was */
	kl_inst_remove(f, three);
	CHECK_EQ_INT(kl_value_set_alias(f, kl_inst_result(f, three, 0),
					kl_inst_result(f, add, 0)),
		     KL_OK);
	CHECK_EQ_INT(kl_inst_move_before(f, three, add), KL_ERR_INVALID);
	CHECK_EQ_INT(kl_inst_next(f, three).id, KL_NONE);
	CHECK_EQ_INT(kl_block_first_inst(f, b1).id, add.id);
	kl_module_free(m);
}

/* The refusal holds whatever the alias's target is numbered: here v1,
 * whose number is also the removed instruction's (inst1 defines v2). */
static void
test_move_aliased_result_refused(void)
{
	static const char src[] = "function %f(i32) -> i32 {\n"
				  "block0(v0: i32):\n"
				  "    v1 = iconst.i32 1\n"
				  "    v2 = iadd v0, v1\n"
				  "    return v1\n"
				  "}\n";
	kl_module *m;
	kl_func *f = parsed_f(src, &m);
	kl_inst add = { 1 }, ret = { 2 };
	CHECK_EQ_INT(kl_inst_result(f, add, 0).id, 2);
	kl_inst_remove(f, add);
	CHECK_EQ_INT(kl_value_set_alias(f, (kl_value){ 2 }, (kl_value){ 1 }),
		     KL_OK);
	CHECK_EQ_INT(kl_inst_move_before(f, add, ret), KL_ERR_INVALID);
	CHECK_EQ_INT(kl_inst_move_to_end(f, add, kl_func_first_block(f)),
		     KL_ERR_INVALID);
	CHECK_EQ_INT(kl_inst_block(f, add).id, KL_NONE);
	kl_module_free(m);
}

/* No parameter k past the last: refused, and the parameter whose number
 * lies just past the list in the pool (b2's v1 here) stays. */
static void
test_remove_param_past_end(void)
{
	kl_func *f;
	kl_block b0;
	kl_builder b;
	kl_module *m = one_block_func(&f, &b0, &b);
	kl_block b1 = kl_func_new_block(f), b2 = kl_func_new_block(f);
	CHECK_EQ_INT(kl_func_append_block(f, b1), KL_OK);
	CHECK_EQ_INT(kl_func_append_block(f, b2), KL_OK);
	kl_value p1 = kl_block_append_param(f, b1, KL_TYPE_I32);
	kl_value p2 = kl_block_append_param(f, b2, KL_TYPE_I32);
	CHECK_EQ_INT(p2.id, 1);
	CHECK_EQ_INT(kl_block_remove_param(f, b1, 1), KL_ERR_INVALID);
	CHECK_EQ_INT(kl_block_num_params(f, b1), 1);
	CHECK_EQ_INT(kl_block_param(f, b1, 0).id, p1.id);
	CHECK_EQ_INT(kl_block_num_params(f, b2), 1);
	CHECK_EQ_INT(kl_value_def_block(f, p2).id, b2.id);
	kl_module_free(m);
}

/* A copy of a jump, a brif or a return has its own lists too: changing
 * its arguments leaves the original's. */
static void
test_clone_branch_lists(void)
{
	static const char src[] = "function %f(i32) -> i32 {\n"
				  "block0(v0: i32):\n"
				  "    v1 = iconst.i32 1\n"
				  "    brif v0, block1(v0), block2(v0)\n"
				  "\n"
				  "block1(v2: i32):\n"
				  "    jump block2(v2)\n"
				  "\n"
				  "block2(v3: i32):\n"
				  "    return v3\n"
				  "}\n";
	kl_module *m;
	kl_func *f = parsed_f(src, &m);
	kl_block b0 = kl_func_first_block(f);
	kl_block b1 = kl_block_next(f, b0), b2 = kl_block_next(f, b1);
	kl_value one = kl_inst_result(f, kl_block_first_inst(f, b0), 0);
	kl_inst br = kl_block_last_inst(f, b0);
	kl_inst jump = kl_block_first_inst(f, b1);
	kl_inst ret = kl_block_first_inst(f, b2);
	kl_inst c_br = kl_inst_clone(f, br);
	kl_inst c_jump = kl_inst_clone(f, jump);
	kl_inst c_ret = kl_inst_clone(f, ret);
	CHECK_EQ_INT(kl_inst_set_dest_arg(f, c_br, 0, 0, one), KL_OK);
	CHECK_EQ_INT(kl_inst_set_dest_arg(f, c_br, 1, 0, one), KL_OK);
	CHECK_EQ_INT(kl_inst_set_dest_arg(f, c_jump, 0, 0, one), KL_OK);
	CHECK_EQ_INT(kl_inst_set_arg(f, c_ret, 0, one), KL_OK);
	CHECK_EQ_INT(kl_inst_dest_arg(f, br, 0, 0).id, 0);
	CHECK_EQ_INT(kl_inst_dest_arg(f, br, 1, 0).id, 0);
	CHECK_EQ_INT(kl_inst_dest_arg(f, jump, 0, 0).id, 2);
	CHECK_EQ_INT(kl_inst_arg(f, ret, 0).id, 3);
	CHECK_EQ_INT(kl_inst_dest_arg(f, c_br, 1, 0).id, one.id);
	CHECK_EQ_INT(kl_inst_dest_arg(f, c_jump, 0, 0).id, one.id);
	CHECK_EQ_INT(kl_inst_arg(f, c_ret, 0).id, one.id);
	kl_module_free(m);
}

/* A number no value had (v1 of this text) may become an alias: it takes
 * the type of the value it stands for. */
static void
test_alias_of_hole_takes_type(void)
{
	static const char src[] = "function %f(i32) -> i32 {\n"
				  "block0(v0: i32):\n"
				  "    v2 = iadd_imm v0, 1\n"
				  "    return v2\n"
				  "}\n";
	kl_module *m;
	kl_func *f = parsed_f(src, &m);
	kl_value hole = { 1 }, v2 = { 2 };
	CHECK_EQ_INT(kl_value_type(f, hole), KL_TYPE_NONE);
	CHECK_EQ_INT(kl_value_set_alias(f, hole, v2), KL_OK);
	CHECK_EQ_INT(kl_value_type(f, hole), KL_TYPE_I32);
	CHECK_EQ_INT(kl_value_resolve(f, hole).id, v2.id);
	kl_module_free(m);
}

/* Copies of instructions: each with results of its own and lists of its
 * own (changing the copy leaves the original as it was), placed where a
 * pass wants them, as in duplicating a block's tail. */
static void
test_clone_inst(void)
{
	static const char src[] =
		"declare %two(i32) -> i32, i64\n"
		"\n"
		"function %f(i32) -> i32 {\n"
		"block0(v0: i32):\n"
		"    v1 = iconst.i32 7\n"
		"    v2 = select v0, v1, v0\n"
		"    v3, v4 = call %two(v2)\n"
		"    v5 = iadd_imm v3, 5\n"
		"    br_table v0, block1(v5), [block1(v1), block2]\n"
		"\n"
		"block1(v6: i32):\n"
		"    return v6\n"
		"\n"
		"block2:\n"
		"    return v5\n"
		"}\n";
	kl_module *m;
	kl_func *f = parsed_f(src, &m);
	kl_block b0 = kl_func_first_block(f);
	kl_block b2 = kl_block_next(f, kl_block_next(f, b0));
	kl_inst sel = kl_inst_next(f, kl_block_first_inst(f, b0));
	kl_inst call = kl_inst_next(f, sel);
	kl_inst add = kl_inst_next(f, call);
	kl_inst table = kl_inst_next(f, add);
	kl_inst ret2 = kl_block_first_inst(f, b2);
	kl_value v0 = kl_block_param(f, b0, 0);
	/* block2 gets its own select, call and add */
	kl_inst c_sel = kl_inst_clone(f, sel);
	kl_inst c_call = kl_inst_clone(f, call);
	kl_inst c_add = kl_inst_clone(f, add);
	CHECK(c_sel.id != KL_NONE && c_call.id != KL_NONE &&
	      c_add.id != KL_NONE);
	CHECK_EQ_INT(kl_inst_prev(f, c_sel).id, KL_NONE); /* unplaced */
	CHECK_EQ_INT(kl_inst_num_results(f, c_call), 2);
	kl_value sel2 = kl_inst_result(f, c_sel, 0);
	CHECK(sel2.id != kl_inst_result(f, sel, 0).id);
	CHECK_EQ_INT(kl_value_type(f, sel2), KL_TYPE_I32);
	CHECK_EQ_INT(kl_value_type(f, kl_inst_result(f, c_call, 1)),
		     KL_TYPE_I64);
	CHECK(kl_inst_result(f, c_call, 0).id != kl_inst_result(f, call, 0).id);
	CHECK_EQ_INT(kl_inst_set_arg(f, c_sel, 2, kl_inst_result(f, sel, 0)),
		     KL_OK);
	CHECK_EQ_INT(kl_inst_arg(f, sel, 2).id, v0.id); /* its own list */
	CHECK_EQ_INT(kl_inst_set_arg(f, c_call, 0, sel2), KL_OK);
	CHECK_EQ_INT(kl_inst_arg(f, call, 0).id, kl_inst_result(f, sel, 0).id);
	CHECK_EQ_INT(kl_inst_set_arg(f, c_add, 0, kl_inst_result(f, c_call, 0)),
		     KL_OK);
	CHECK_EQ_INT(kl_inst_move_before(f, c_sel, ret2), KL_OK);
	CHECK_EQ_INT(kl_inst_move_before(f, c_call, ret2), KL_OK);
	CHECK_EQ_INT(kl_inst_move_before(f, c_add, ret2), KL_OK);
	CHECK_EQ_INT(kl_inst_set_arg(f, ret2, 0, kl_inst_result(f, c_add, 0)),
		     KL_OK);
	/* a copy of the br_table, changed, leaves the original's lists */
	kl_inst c_table = kl_inst_clone(f, table);
	CHECK_EQ_INT(kl_inst_set_dest_arg(f, c_table, 1, 0, v0), KL_OK);
	CHECK_EQ_INT(kl_inst_dest_arg(f, table, 1, 0).id,
		     kl_inst_result(f, kl_block_first_inst(f, b0), 0).id);
	CHECK_EQ_INT(kl_inst_dest_arg(f, c_table, 1, 0).id, v0.id);
	CHECK_EQ_INT(kl_verify_func(f, NULL, NULL), KL_OK);
	kl_buf text = { 0 };
	kl_print_func(f, NULL, &text);
	CHECK(strstr(text.data, "block2:\n"
				"    v7 = select.i32 v0, v1, v2\n"
				"    v8, v9 = call %two(v7)\n"
				"    v10 = iadd_imm v8, 5\n"
				"    return v10\n") != NULL);
	kl_buf_free(&text);
	/* out of range: none */
	CHECK_EQ_INT(kl_inst_clone(f, (kl_inst){ 999 }).id, KL_NONE);
	kl_module_free(m);
}

/* A parameter that every predecessor passes the same value: its uses
 * take that value, then the parameter and its arguments go, including a
 * br_table's (whose destinations live in the pool) and a jump left with
 * no arguments at all. */
static void
test_remove_param(void)
{
	const kl_type i32 = KL_TYPE_I32;
	kl_module *m = kl_module_new();
	kl_signature sig = { .params = &i32, .num_params = 1,
			     .results = &i32, .num_results = 1 };
	kl_func *f;
	CHECK_EQ_INT(kl_module_add_func(m, "f", 1, &sig, &f), KL_OK);
	kl_block b0 = kl_func_new_block(f);
	CHECK_EQ_INT(kl_func_append_block(f, b0), KL_OK);
	kl_value sel = kl_block_append_param(f, b0, i32);
	kl_builder b;
	kl_builder_init(&b, f);
	kl_builder_at_end(&b, b0);
	kl_value p;
	kl_block b1 = join_block(f, &p);
	kl_value q = kl_block_append_param(f, b1, i32);
	kl_block b2 = kl_func_new_block(f);
	CHECK_EQ_INT(kl_func_append_block(f, b2), KL_OK);
	kl_value c = kl_build_iconst(&b, i32, 5);
	kl_value two[] = { c, sel };
	kl_block_call to_b1 = { b1, two, 2 };
	kl_block_call table[] = { to_b1, { b2, NULL, 0 }, to_b1 };
	kl_build_br_table(&b, sel, to_b1, table, 3);
	kl_builder_at_end(&b, b2);
	kl_build_jump(&b, to_b1);
	kl_builder_at_end(&b, b1);
	kl_value r = kl_build_binary(&b, KL_OP_IADD, p, q);
	kl_build_return(&b, &r, 1);
	CHECK_EQ_INT(kl_builder_status(&b), KL_OK);
	CHECK_EQ_INT(kl_verify_func(f, NULL, NULL), KL_OK);
	/* p is always c */
	kl_inst add = kl_value_def_inst(f, r);
	CHECK_EQ_INT(kl_inst_set_arg(f, add, 0, c), KL_OK);
	CHECK_EQ_INT(kl_block_remove_param(f, b1, 0), KL_OK);
	CHECK_EQ_INT(kl_block_num_params(f, b1), 1);
	CHECK_EQ_INT(kl_block_param(f, b1, 0).id, q.id);
	CHECK_EQ_INT(kl_value_type(f, p), i32); /* as a removed result */
	CHECK_EQ_INT(kl_value_def_block(f, p).id, KL_NONE);
	CHECK_EQ_INT(kl_verify_func(f, NULL, NULL), KL_OK);
	/* and q, which leaves the branches without arguments */
	CHECK_EQ_INT(kl_inst_set_arg(f, add, 1, sel), KL_OK);
	CHECK_EQ_INT(kl_block_remove_param(f, b1, 0), KL_OK);
	CHECK_EQ_INT(kl_block_num_params(f, b1), 0);
	CHECK_EQ_INT(kl_verify_func(f, NULL, NULL), KL_OK);
	CHECK_EQ_INT(kl_block_remove_param(f, b1, 0), KL_ERR_INVALID);
	CHECK_EQ_INT(kl_block_remove_param(f, b0, 0), KL_ERR_INVALID);
	kl_buf text = { 0 };
	kl_print_func(f, NULL, &text);
	CHECK(strstr(text.data, "block1(") == NULL);
	CHECK(strstr(text.data, "jump block1\n") != NULL);
	kl_module *again = NULL;
	CHECK_EQ_INT(kl_parse_module(text.data, text.len, NULL, &again, NULL),
		     KL_OK);
	kl_module_free(again);
	kl_buf_free(&text);
	CHECK_EQ_INT(result_of(f, 1, 1), 6);
	kl_module_free(m);
}

/* A second block whose parameter p (passed c) an alias dup led to, and
 * which is then removed; the builder is left at the block's end. */
static kl_block
removed_param_behind_alias(kl_func *f, kl_builder *b, kl_value c,
			   kl_value *p, kl_value *dup)
{
	kl_block b1 = join_block(f, p);
	kl_block_call to_b1 = { b1, &c, 1 };
	kl_build_jump(b, to_b1);
	kl_builder_at_end(b, b1);
	*dup = kl_build_binary(b, KL_OP_IADD, *p, *p);
	kl_build_return(b, &c, 1);
	CHECK_EQ_INT(kl_builder_status(b), KL_OK);
	kl_inst_remove(f, kl_value_def_inst(f, *dup));
	CHECK_EQ_INT(kl_value_set_alias(f, *dup, *p), KL_OK);
	CHECK_EQ_INT(kl_block_remove_param(f, b1, 0), KL_OK);
	return b1;
}

/* An alias nothing uses may lead to a parameter a pass then removes, as
 * it may to a removed instruction's result: the printer left the alias
 * out, but the verifier reported its end as undefined. */
static void
test_unused_alias_to_removed_param(void)
{
	kl_func *f;
	kl_builder b;
	kl_module *m = i32_func(&f, &b);
	kl_value c = kl_build_iconst(&b, KL_TYPE_I32, 1);
	kl_value p, dup;
	kl_block b1 = removed_param_behind_alias(f, &b, c, &p, &dup);
	CHECK_EQ_INT(kl_verify_func(f, NULL, NULL), KL_OK);
	kl_buf text = { 0 };
	kl_print_func(f, NULL, &text);
	CHECK(strstr(text.data, "v2 -> ") == NULL);
	kl_buf_free(&text);
	/* A use left behind is reported as what it is, and listed among
	 * the parameter's uses as a removed result's are. The builder takes
	 * it (definitions are the verifier's question), as it takes a
	 * removed instruction's result. */
	kl_builder_at_end(&b, b1);
	kl_inst ret = kl_block_last_inst(f, b1);
	kl_inst_remove(f, ret);
	kl_value twice = kl_build_binary(&b, KL_OP_IADD, p, p);
	CHECK_EQ_INT(kl_builder_status(&b), KL_OK);
	CHECK_EQ_INT(kl_value_type(f, twice), KL_TYPE_I32);
	kl_inst_remove(f, kl_value_def_inst(f, twice));
	kl_build_return(&b, &dup, 1);
	kl_diags d = { 0 };
	CHECK_EQ_INT(kl_verify_func(f, NULL, &d), KL_ERR_VERIFY);
	CHECK(d.len == 1 &&
	      strstr(d.items[0].message, "a removed block parameter"));
	kl_diags_free(&d);
	kl_uses *u = kl_uses_new();
	kl_uses_compute(u, f);
	uint32_t n;
	const kl_use *use = kl_uses_of(u, f, p, &n);
	CHECK(n == 1 && use[0].inst.id == kl_block_last_inst(f, b1).id);
	CHECK(kl_uses_of(u, f, dup, &n) == use && n == 1);
	kl_uses_free(u);
	kl_module_free(m);
}

/* An alias that led to a removed parameter keeps its type, and so does the
 * parameter: making it an alias of a value of another type would give that
 * alias a chain of another type (the verifier rejects it; the printed
 * text, whose alias lines take their targets' types, verified). */
static void
test_alias_through_removed_param_keeps_type(void)
{
	const kl_type i64 = KL_TYPE_I64;
	kl_func *f;
	kl_builder b;
	kl_module *m = i32_func(&f, &b);
	kl_value wide = kl_build_iconst(&b, i64, 2);
	kl_value c = kl_build_iconst(&b, KL_TYPE_I32, 1);
	kl_value p, dup;
	removed_param_behind_alias(f, &b, c, &p, &dup);
	/* dup (i32) -> p: p may not become an alias of an i64 */
	CHECK_EQ_INT(kl_value_set_alias(f, p, wide), KL_ERR_INVALID);
	CHECK_EQ_INT(kl_value_is_alias(f, p), false);
	CHECK_EQ_INT(kl_value_set_alias(f, p, c), KL_OK);
	CHECK_EQ_INT(kl_verify_func(f, NULL, NULL), KL_OK);
	kl_module_free(m);
}

/* Folding, then removing what the folded value no longer needs: an alias
 * nothing uses may lead to a removed instruction's result. The verifier
 * rejected it while the printer left it out (the text verified). */
static void
test_unused_alias_to_removed(void)
{
	const kl_type i32 = KL_TYPE_I32;
	kl_func *f;
	kl_builder b;
	kl_module *m = i32_func(&f, &b);
	kl_value x = kl_build_iconst(&b, i32, 2);
	kl_value sum = kl_build_binary(&b, KL_OP_IADD, x, x);
	kl_value twice = kl_build_binary(&b, KL_OP_IADD, sum, sum);
	kl_inst ret = kl_build_return(&b, &twice, 1);
	/* fold sum to 4: twice now uses an alias of the new constant */
	kl_builder_before(&b, kl_value_def_inst(f, sum));
	kl_value four = kl_build_iconst(&b, i32, 4);
	kl_inst_remove(f, kl_value_def_inst(f, sum));
	CHECK_EQ_INT(kl_value_set_alias(f, sum, four), KL_OK);
	/* fold twice to 8, then remove what nothing uses: x and four */
	kl_builder_before(&b, ret);
	kl_value eight = kl_build_iconst(&b, i32, 8);
	kl_inst_remove(f, kl_value_def_inst(f, twice));
	CHECK_EQ_INT(kl_value_set_alias(f, twice, eight), KL_OK);
	kl_inst_remove(f, kl_value_def_inst(f, x));
	kl_inst_remove(f, kl_value_def_inst(f, four));
	CHECK_EQ_INT(kl_builder_status(&b), KL_OK);
	kl_diags d = { 0 };
	CHECK_EQ_INT(kl_verify_func(f, NULL, &d), KL_OK);
	for (uint32_t k = 0; k < d.len; k++)
		fprintf(stderr, "  %s\n", d.items[k].message);
	kl_diags_free(&d);
	kl_buf text = { 0 };
	kl_print_func(f, NULL, &text);
	CHECK(strstr(text.data, "v1 ->") == NULL); /* sum's alias: unused */
	kl_buf_free(&text);
	kl_module_free(m);
}

/* keel.h: queries about none, out-of-range numbers and indexes past the
 * end answer none, 0 or KL_OP_COUNT, never read out of bounds (the
 * sanitizers watch this test). Each is asked about none, a number past
 * the tables, and a real entity with an index past its end. */
/* A sigref's signature can be read back, so that a function can be
 * copied call_indirect and all; a number never declared (sig0 here) reads
 * as no signature. */
static void
test_sigref_signature(void)
{
	kl_module *m;
	kl_func *f = parsed_f("function %f(i64) -> i64 {\n"
			      "    sig1 = (i32, f64, ...) -> i64\n"
			      "block0(v0: i64):\n"
			      "    v1 = iconst.i32 1\n"
			      "    v2 = f64const 0x1p0\n"
			      "    v3 = call_indirect sig1, v0(v1, v2)\n"
			      "    return v3\n"
			      "}\n",
			      &m);
	CHECK_EQ_INT(kl_func_sigref_bound(f), 2);
	CHECK_EQ_INT(kl_func_sigref_signature(f, (kl_sigref){ 0 }).num_params,
		     0);
	kl_inst call = kl_value_def_inst(f, (kl_value){ 3 });
	kl_signature s = kl_func_sigref_signature(f, kl_inst_sigref(f, call));
	CHECK_EQ_INT(s.num_params, 2);
	CHECK_EQ_INT(s.num_results, 1);
	CHECK(s.variadic);
	CHECK_EQ_INT(s.params[0], KL_TYPE_I32);
	CHECK_EQ_INT(s.params[1], KL_TYPE_F64);
	CHECK_EQ_INT(s.results[0], KL_TYPE_I64);

	/* The copy a cloner makes: the same signature in another function. */
	kl_func *g;
	CHECK_EQ_INT(kl_module_add_func(m, "g", 1, &s, &g), KL_OK);
	kl_sigref gs = kl_func_add_sigref(g, &s);
	CHECK_EQ_INT(gs.id, 0);
	kl_signature t = kl_func_sigref_signature(g, gs);
	CHECK(t.num_params == 2 && t.params[1] == KL_TYPE_F64 && t.variadic);
	kl_module_free(m);
}

/* The numbers just past the last value and sigref (the bounds) are none
 * too, whatever lies past the tables: here the parsed function's source
 * lines (the call on line 4), and the module has a signature 4. */
static void
test_queries_at_bounds(void)
{
	kl_module *m;
	kl_func *f = parsed_f("function %f(i64) -> i64 {\n"
			      "    sig0 = (i64) -> i64\n"
			      "block0(v0: i64):\n"
			      "    v1 = call_indirect sig0, v0(v0)\n"
			      "    return v1\n"
			      "}\n"
			      "declare %d1(i8)\n"
			      "declare %d2(i8, i8)\n"
			      "declare %d3(i8, i8, i8)\n"
			      "declare %d4(i8, i8, i8, i8)\n"
			      "declare %d5(i8, i8, i8, i8, i8)\n",
			      &m);
	kl_func *g;
	kl_signature s = kl_func_sigref_signature(f, (kl_sigref){ 0 });
	CHECK_EQ_INT(kl_module_add_func(m, "g", 1, &s, &g), KL_OK);
	CHECK_EQ_INT(kl_func_add_sigref(g, &s).id, 0);
	kl_func *fs[] = { f, g };
	for (int k = 0; k < 2; k++) {
		kl_func *h = fs[k];
		kl_value v = { kl_func_value_bound(h) };
		kl_sigref r = { kl_func_sigref_bound(h) };
		CHECK_EQ_INT(kl_value_type(h, v), KL_TYPE_NONE);
		CHECK_EQ_INT(kl_value_resolve(h, v).id, KL_NONE);
		CHECK_EQ_INT(kl_value_def_block(h, v).id, KL_NONE);
		CHECK_EQ_INT(kl_func_sigref_signature(h, r).num_params, 0);
		CHECK(kl_func_sigref_signature(h, r).params == NULL);
	}
	kl_module_free(m);
}

static void
test_queries_on_none(void)
{
	kl_func *f;
	kl_block b0;
	kl_builder b;
	kl_module *m = one_block_func(&f, &b0, &b);
	kl_value c = kl_build_iconst(&b, KL_TYPE_I32, 7);
	kl_inst ret = kl_build_jump(&b, (kl_block_call){ b0, NULL, 0 });
	kl_inst ci = kl_value_def_inst(f, c);
	const uint32_t bad[] = { KL_NONE, 1000000 };
	for (int k = 0; k < 2; k++) {
		kl_block nb = { bad[k] };
		kl_inst ni = { bad[k] };
		kl_value nv = { bad[k] };
		CHECK_EQ_INT(kl_block_next(f, nb).id, KL_NONE);
		CHECK_EQ_INT(kl_block_prev(f, nb).id, KL_NONE);
		CHECK_EQ_INT(kl_block_num_params(f, nb), 0);
		CHECK_EQ_INT(kl_block_param(f, nb, 0).id, KL_NONE);
		CHECK_EQ_INT(kl_block_first_inst(f, nb).id, KL_NONE);
		CHECK_EQ_INT(kl_block_last_inst(f, nb).id, KL_NONE);
		CHECK_EQ_INT(kl_inst_next(f, ni).id, KL_NONE);
		CHECK_EQ_INT(kl_inst_prev(f, ni).id, KL_NONE);
		CHECK_EQ_INT(kl_inst_block(f, ni).id, KL_NONE);
		CHECK(!kl_inst_precedes(f, ni, ci));
		CHECK_EQ_INT(kl_value_type(f, nv), KL_TYPE_NONE);
		CHECK_EQ_INT(kl_value_resolve(f, nv).id, KL_NONE);
		CHECK(!kl_value_is_alias(f, nv));
		CHECK_EQ_INT(kl_value_def_inst(f, nv).id, KL_NONE);
		CHECK_EQ_INT(kl_value_def_block(f, nv).id, KL_NONE);
		CHECK_EQ_INT(kl_inst_opcode(f, ni), KL_OP_COUNT);
		CHECK_EQ_INT(kl_inst_num_results(f, ni), 0);
		CHECK_EQ_INT(kl_inst_result(f, ni, 0).id, KL_NONE);
		CHECK_EQ_INT(kl_inst_num_args(f, ni), 0);
		CHECK_EQ_INT(kl_inst_arg(f, ni, 0).id, KL_NONE);
		CHECK_EQ_INT(kl_inst_imm(f, ni), 0);
		CHECK_EQ_INT(kl_inst_offset(f, ni), 0);
		CHECK_EQ_INT(kl_inst_callee(f, ni).id, KL_NONE);
		CHECK_EQ_INT(kl_inst_sigref(f, ni).id, KL_NONE);
		/* every entity kind has its none constant, sigrefs too (a
		 * front end compares kl_func_add_sigref's answer with it) */
		CHECK_EQ_INT(kl_inst_sigref(f, ni).id, KL_NO_SIGREF.id);
		kl_signature ns =
			kl_func_sigref_signature(f, (kl_sigref){ bad[k] });
		CHECK(ns.params == NULL && ns.results == NULL &&
		      ns.num_params == 0 && ns.num_results == 0);
		CHECK_EQ_INT(kl_inst_num_dests(f, ni), 0);
		CHECK_EQ_INT(kl_inst_dest(f, ni, 0).id, KL_NONE);
		CHECK_EQ_INT(kl_inst_dest_num_args(f, ni, 0), 0);
		CHECK_EQ_INT(kl_inst_dest_arg(f, ni, 0, 0).id, KL_NONE);
		CHECK_EQ_INT(kl_sym_get_kind(m, (kl_sym){ bad[k] }),
			     KL_SYM_FUNC);
		CHECK(kl_sym_func(m, (kl_sym){ bad[k] }) == NULL);
		size_t len = 99;
		kl_sym_name(m, (kl_sym){ bad[k] }, &len);
		CHECK_EQ_INT(len, 0);
	}
	/* real entities, indexes past the end */
	CHECK_EQ_INT(kl_block_param(f, b0, 5).id, KL_NONE);
	CHECK_EQ_INT(kl_inst_result(f, ci, 1).id, KL_NONE);
	CHECK_EQ_INT(kl_inst_arg(f, ci, 0).id, KL_NONE);
	CHECK_EQ_INT(kl_inst_dest(f, ret, 1).id, KL_NONE);
	CHECK_EQ_INT(kl_inst_dest_num_args(f, ret, 1), 0);
	CHECK_EQ_INT(kl_inst_dest_arg(f, ret, 0, 0).id, KL_NONE);
	CHECK_EQ_INT(kl_inst_dest_arg(f, ret, 3, 0).id, KL_NONE);
	CHECK_EQ_INT(kl_inst_num_dests(f, ci), 0);
	CHECK_EQ_INT(kl_inst_callee(f, ci).id, KL_NONE);
	kl_module_free(m);
}

/* What an instruction holds besides values: every field the text shows
 * can be read back (an alloca's alignment and a trap's user code could
 * not). */
static void
test_inst_fields(void)
{
	kl_func *f;
	kl_block b0;
	kl_builder b;
	kl_module *m = one_block_func(&f, &b0, &b);
	kl_value a = kl_build_alloca(&b, 24, 8);
	kl_value n = kl_build_iconst(&b, KL_TYPE_I32, 5);
	kl_value d = kl_build_alloca_dyn(&b, n, 32);
	kl_value c = kl_build_icmp_imm(&b, KL_ICC_UGE, n, 3);
	kl_value fc = kl_build_f64const(&b, 0x3ff8000000000000ull);
	kl_value fx = kl_build_fcmp(&b, KL_FCC_GT, fc, fc);
	kl_inst st = kl_build_store(&b, KL_OP_STORE, n, a, 12);
	kl_value ld = kl_build_load(&b, KL_OP_LOAD, KL_TYPE_I32, a, 16);
	kl_value p = kl_block_append_param(f, b0, KL_TYPE_I32);
	kl_value sa = kl_build_symbol_addr(&b, kl_func_sym(f));
	kl_inst t = kl_build_trap(&b, KL_TRAP_USER, 77);
	CHECK_EQ_INT(kl_builder_status(&b), KL_OK);
	kl_inst ai = kl_value_def_inst(f, a), di = kl_value_def_inst(f, d);
	kl_inst ci = kl_value_def_inst(f, c);
	CHECK_EQ_INT(kl_inst_align(f, ai), 8);
	CHECK_EQ_INT(kl_inst_imm(f, ai), 24);
	CHECK_EQ_INT(kl_inst_align(f, di), 32);
	CHECK_EQ_INT(kl_inst_align(f, ci), 0);
	CHECK_EQ_INT(kl_inst_cond(f, ci), KL_ICC_UGE);
	CHECK_EQ_INT(kl_inst_imm(f, ci), 3);
	CHECK_EQ_INT(kl_inst_cond(f, ai), 0); /* (its aux is the alignment) */
	CHECK_EQ_INT(kl_inst_cond(f, kl_value_def_inst(f, fx)), KL_FCC_GT);
	CHECK_EQ_INT(kl_inst_offset(f, st), 12);
	CHECK_EQ_INT(kl_inst_offset(f, kl_value_def_inst(f, ld)), 16);
	CHECK_EQ_INT(kl_value_def_inst(f, p).id, KL_NONE); /* a parameter */
	CHECK_EQ_INT(kl_inst_callee(f, kl_value_def_inst(f, sa)).id,
		     kl_func_sym(f).id);
	CHECK_EQ_INT(kl_inst_prev(f, ci).id, di.id);
	CHECK_EQ_INT(kl_inst_sigref(f, ai).id, KL_NONE);
	/* the parameter's list is the pool's one: its bytes count */
	kl_module_stats ms;
	kl_module_get_stats(m, &ms);
	CHECK(ms.pool_bytes > 0);
	CHECK_EQ_INT(ms.pool_bytes, (uint64_t)f->pool.len * 4);
	CHECK(kl_inst_imm(f, kl_value_def_inst(f, fc)) ==
	      (int64_t)0x3ff8000000000000ull);
	uint32_t user = 0;
	CHECK_EQ_INT(kl_inst_trap_code(f, t, &user), KL_TRAP_USER);
	CHECK_EQ_INT(user, 77);
	CHECK_EQ_INT(kl_inst_trap_code(f, ai, &user), KL_TRAP_COUNT);
	CHECK_EQ_INT(user, 0);
	CHECK_EQ_INT(kl_inst_trap_code(f, KL_NO_INST, NULL), KL_TRAP_COUNT);
	CHECK(kl_op_is_pure(KL_OP_IADD) && kl_op_is_pure(KL_OP_ICONST));
	CHECK(!kl_op_is_pure(KL_OP_SDIV) && !kl_op_is_pure(KL_OP_LOAD) &&
	      !kl_op_is_pure(KL_OP_ALLOCA) && !kl_op_is_pure(KL_OP_CALL));
	kl_module_free(m);
}

/* ---- signatures ---- */

/* A signature of no types may still be variadic: `(...)` in a module
 * where no signature has a type came back as `()`. */
static void
test_variadic_without_types(void)
{
	kl_module *m = kl_module_new();
	kl_signature sig = { .variadic = true };
	kl_sym v;
	CHECK_EQ_INT(kl_module_declare(m, "v", 1, &sig, &v), KL_OK);
	kl_signature got = kl_sym_signature(m, v);
	CHECK(got.variadic);
	CHECK_EQ_INT(got.num_params, 0);
	CHECK_EQ_INT(got.num_results, 0);
	kl_module_free(m);
}

/* A front end declaring what the interpreter provides may not want the
 * symbol back: out is NULL (it crashed). */
static void
test_null_out(void)
{
	kl_module *m = kl_module_new();
	kl_type i32 = KL_TYPE_I32;
	kl_signature sig = { .params = &i32, .num_params = 1,
			     .results = &i32, .num_results = 1 };
	CHECK_EQ_INT(kl_module_declare(m, "putchar", 7, &sig, NULL), KL_OK);
	CHECK_EQ_INT(kl_module_declare(m, "putchar", 7, &sig, NULL),
		     KL_ERR_EXISTS);
	CHECK_EQ_INT(kl_module_add_func(m, "f", 1, NULL, NULL), KL_OK);
	CHECK(kl_sym_func(m, kl_module_lookup(m, "f", 1)) != NULL);
	/* no bytes to read: no symbol (the empty name is (NULL, 0)) */
	CHECK_EQ_INT(kl_module_lookup(m, NULL, 7).id, KL_NONE);
	CHECK_EQ_INT(kl_module_lookup(m, NULL, 0).id, KL_NONE);
	CHECK_EQ_INT(kl_module_add_data(m, "d", 1, false, 4, NULL), KL_OK);
	CHECK_EQ_INT(kl_module_add_data(m, "e", 1, false, 3, NULL),
		     KL_ERR_RANGE);
	/* 0: the text's default alignment, 1, as a data object written
	 * without `align` has (it was refused) */
	kl_sym z = KL_NO_SYM;
	CHECK_EQ_INT(kl_module_add_data(m, "z", 1, false, 0, &z), KL_OK);
	CHECK_EQ_INT(kl_data_align(m, z), 1);
	CHECK_EQ_INT(kl_module_num_syms(m), 4);
	kl_module_free(m);
}

/* A signature whose arrays are missing is refused as kl_module_declare
 * refuses it, not read through NULL. */
static void
test_sigref_checks_arrays(void)
{
	kl_func *f;
	kl_block b0;
	kl_builder bld;
	kl_module *m = one_block_func(&f, &b0, &bld);
	kl_signature no_params = { NULL, NULL, 2, 0, false };
	kl_signature no_results = { NULL, NULL, 0, 1, false };
	kl_type bad_type[] = { 77 };
	kl_signature bad = { bad_type, NULL, 1, 0, false };
	CHECK_EQ_INT(kl_func_add_sigref(f, &no_params).id, KL_NONE);
	CHECK_EQ_INT(kl_func_add_sigref(f, &no_results).id, KL_NONE);
	CHECK_EQ_INT(kl_func_add_sigref(f, &bad).id, KL_NONE);
	kl_sym s;
	CHECK_EQ_INT(kl_module_declare(m, "g", 1, &no_params, &s),
		     KL_ERR_INVALID);
	kl_type i32[] = { KL_TYPE_I32 };
	kl_signature good = { i32, i32, 1, 1, false };
	CHECK_EQ_INT(kl_func_add_sigref(f, &good).id, 0);
	CHECK_EQ_INT(kl_func_add_sigref(f, NULL).id, 1); /* () */
	kl_module_free(m);
}

/* ---- NULL where keel.h allows it ---- */

/* A function that does not verify: its block has no terminator. */
static kl_module *
broken_module(kl_func **f)
{
	kl_block b0;
	kl_builder bld;
	kl_module *m = one_block_func(f, &b0, &bld);
	kl_build_iconst(&bld, KL_TYPE_I32, 1);
	return m;
}

static void
test_null_sinks(void)
{
	kl_func *f;
	kl_module *m = broken_module(&f);
	CHECK_EQ_INT(kl_verify_func(f, NULL, NULL), KL_ERR_VERIFY);
	CHECK_EQ_INT(kl_verify_module(m, NULL), KL_ERR_VERIFY);
	kl_diags d = { 0 };
	CHECK_EQ_INT(kl_verify_func(f, NULL, &d), KL_ERR_VERIFY);
	CHECK(kl_diags_errors(&d) >= 1);
	kl_diags_free(&d);
	kl_module_free(m);
	/* Parsing with nowhere to put diagnostics: the status still tells,
	 * for good text and bad (errors and the giving-up note). */
	static const char good[] = "function %f() {\nblock0:\n  return\n}\n";
	kl_module *pm = NULL;
	CHECK_EQ_INT(kl_parse_module(good, sizeof good - 1, NULL, &pm, NULL),
		     KL_OK);
	CHECK(pm != NULL);
	kl_module_free(pm);
	static const char bad[] = "function %f() {\nblock0:\n  nonsense\n}\n"
				  "x\ny\nz\n";
	CHECK_EQ_INT(kl_parse_module(bad, sizeof bad - 1, NULL, &pm, NULL),
		     KL_ERR_PARSE);
	CHECK(pm == NULL);
	/* No text at all is an empty module, which prints as nothing. */
	CHECK_EQ_INT(kl_parse_module(NULL, 0, NULL, &pm, NULL), KL_OK);
	CHECK(pm != NULL && kl_module_num_syms(pm) == 0);
	kl_buf empty = { 0 };
	if (pm)
		kl_print_module(pm, NULL, &empty);
	CHECK_EQ_INT(empty.len, 0);
	kl_buf_free(&empty);
	kl_module_free(pm);
	/* No text but a length is a caller's mistake, not an empty module;
	 * so is nowhere to put the module. */
	pm = (kl_module *)&empty;
	CHECK_EQ_INT(kl_parse_module(NULL, 5, NULL, &pm, NULL), KL_ERR_INVALID);
	CHECK(pm == NULL);
	CHECK_EQ_INT(kl_parse_module(good, sizeof good - 1, NULL, NULL, NULL),
		     KL_ERR_INVALID);
	/* A text whose lines or columns 32 bits cannot count is refused
	 * before a byte of it is read (so the short buffer is safe here);
	 * one byte less would be read. */
	kl_diags big = { 0 };
	pm = (kl_module *)&empty;
	CHECK_EQ_INT(kl_parse_module(good, (size_t)UINT32_MAX, NULL, &pm,
				     &big),
		     KL_ERR_PARSE);
	CHECK(pm == NULL && big.len == 1);
	if (big.len == 1) {
		CHECK_EQ_INT(big.items[0].line, 0);
		CHECK_EQ_STR(big.items[0].message,
			  "the text is too large: keel reads at most "
			  "4294967294 bytes (its line and column numbers "
			  "have 32 bits)");
	}
	kl_diags_free(&big);
	/* The frees are no-ops on NULL, as free(NULL) is. */
	kl_diags_free(NULL);
	kl_buf_free(NULL);
	kl_pass_report_free(NULL);
	kl_module_free(NULL);
}

/* ---- pass reports ---- */

/* A counter is found by its name's text, not only its pointer (the same
 * literal in two files need not be one object): counts under equal names
 * add up in one counter, and a freed report starts again from none. */
static void
test_pass_report_counters(void)
{
	char copy[] = "slots";
	kl_pass_report rep = { 0 };
	kl_pass_report_count(&rep, "slots", 2);
	kl_pass_report_count(&rep, copy, 3);
	kl_pass_report_count(&rep, "kept", 0);
	CHECK_EQ_INT(rep.num_counters, 2);
	CHECK_EQ_INT(kl_pass_report_get(&rep, "slots"), 5);
	CHECK_EQ_INT(kl_pass_report_get(&rep, copy), 5);
	CHECK_EQ_INT(kl_pass_report_get(&rep, "kept"), 0);
	CHECK_EQ_INT(kl_pass_report_get(&rep, "promoted"), 0);
	kl_buf_puts(&rep.notes, "a note\n");
	kl_pass_report_free(&rep);
	CHECK_EQ_INT(rep.num_counters, 0);
	CHECK_EQ_INT(rep.notes.len, 0);
	kl_pass_report_count(&rep, "slots", 1);
	CHECK_EQ_INT(kl_pass_report_get(&rep, "slots"), 1);
	kl_pass_report_free(&rep);
	kl_pass_report_count(NULL, "slots", 1); /* NULL: nothing counted */
}

/* A report full of names refuses a new one with a status, keeping the
 * others (a pass of one's own with one counter too many used to stop
 * the process on an assertion). */
static void
test_pass_report_full(void)
{
	static const char *const names[KL_PASS_MAX_COUNTERS + 1] = {
		"c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8",
		"c9", "c10", "c11", "c12", "c13", "c14", "c15", "c16",
	};
	kl_pass_report rep = { 0 };
	for (uint32_t k = 0; k < KL_PASS_MAX_COUNTERS; k++)
		CHECK_EQ_INT(kl_pass_report_count(&rep, names[k], k), KL_OK);
	CHECK_EQ_INT(kl_pass_report_count(&rep, names[KL_PASS_MAX_COUNTERS], 1),
		     KL_ERR_RANGE);
	CHECK_EQ_INT(rep.num_counters, KL_PASS_MAX_COUNTERS);
	CHECK_EQ_INT(kl_pass_report_get(&rep, "c16"), 0);
	/* a known name still counts */
	CHECK_EQ_INT(kl_pass_report_count(&rep, "c15", 5), KL_OK);
	CHECK_EQ_INT(kl_pass_report_get(&rep, "c15"), 20);
	CHECK_EQ_INT(kl_pass_report_count(&rep, NULL, 1), KL_ERR_INVALID);
	kl_pass_report_free(&rep);
}

/* ---- the byte store's 4 GiB ---- */

/* A string the module cannot hold is KL_ERR_RANGE, not the end of the
 * process. The 4 GiB - 1 bytes are a mapping that is never touched: the
 * check must come before any copy. */
static void
test_huge_string_is_range(void)
{
	size_t n = UINT32_MAX;
	void *big = mmap(NULL, n, PROT_READ,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (big == MAP_FAILED) {
		fprintf(stderr, "test_huge_string_is_range: no 4 GiB "
			"mapping, skipped\n");
		return;
	}
	kl_module *m = kl_module_new();
	kl_sym d;
	CHECK_EQ_INT(kl_module_add_data(m, "d", 1, true, 1, &d), KL_OK);
	kl_data_item it = { KL_DATA_STRING, KL_TYPE_I8, 0, KL_NO_SYM, big,
			    UINT32_MAX };
	CHECK_EQ_INT(kl_data_append(m, d, &it), KL_ERR_RANGE);
	CHECK_EQ_INT(kl_data_num_items(m, d), 0);
	CHECK_EQ_INT(kl_data_size(m, d), 0);
	/* Module-wide: what is stored already counts. */
	kl_data_item small = { KL_DATA_STRING, KL_TYPE_I8, 0, KL_NO_SYM,
			       "hello", 5 };
	CHECK_EQ_INT(kl_data_append(m, d, &small), KL_OK);
	it.len = UINT32_MAX - 4; /* would fit an empty store */
	CHECK_EQ_INT(kl_data_append(m, d, &it), KL_ERR_RANGE);
	CHECK_EQ_INT(kl_data_num_items(m, d), 1);
	CHECK_EQ_INT(kl_data_size(m, d), 5);
	kl_module_free(m);
	munmap(big, n);
}

/* The same for names: a long name that would take the store past its
 * limit is refused with KL_ERR_RANGE. The store is made to look nearly
 * full rather than filled. */
static void
test_name_past_store_is_range(void)
{
	kl_module *m = kl_module_new();
	kl_sym d;
	const char *name = "a_name_longer_than_the_inline_twelve_bytes";
	uint32_t saved = m->nbytes;
	m->nbytes = UINT32_MAX - 16;
	CHECK_EQ_INT(kl_module_add_data(m, name, strlen(name), false, 1, &d),
		     KL_ERR_RANGE);
	kl_func *f = NULL;
	CHECK_EQ_INT(kl_module_add_func(m, name, strlen(name), NULL, &f),
		     KL_ERR_RANGE);
	CHECK(f == NULL);
	CHECK_EQ_INT(kl_module_declare(m, name, strlen(name), NULL, &d),
		     KL_ERR_RANGE);
	CHECK_EQ_INT(kl_module_num_syms(m), 0);
	CHECK_EQ_INT(kl_module_lookup(m, name, strlen(name)).id, KL_NONE);
	/* The limit is keel.h's: 4 GiB - 3 bytes in all (a table holds
	 * at most 2^32 - 2 elements, and the store one byte past its end). */
	m->nbytes = 1000;
	CHECK(module_bytes_fit(m, UINT32_MAX - 2 - 1000));
	CHECK(!module_bytes_fit(m, UINT32_MAX - 1 - 1000));
	m->nbytes = saved;
	CHECK_EQ_INT(kl_module_add_data(m, name, strlen(name), false, 1, &d),
		     KL_OK);
	kl_module_free(m);
}

/* ---- data objects filled in any order ---- */

/* Two objects filled alternately: each keeps its items in order, and the
 * module's item table stays within a constant factor of the items (the
 * table once grew by a copy of an object per append: quadratic). */
static void
test_alternate_data_appends(void)
{
	kl_module *m = kl_module_new();
	kl_sym a, b;
	CHECK_EQ_INT(kl_module_add_data(m, "a", 1, false, 1, &a), KL_OK);
	CHECK_EQ_INT(kl_module_add_data(m, "b", 1, false, 1, &b), KL_OK);
	const uint32_t n = 1500;
	for (uint32_t k = 0; k < n; k++) {
		kl_data_item x = { KL_DATA_VALUE, KL_TYPE_I32, k, KL_NO_SYM,
				   NULL, 0 };
		CHECK_EQ_INT(kl_data_append(m, a, &x), KL_OK);
		x.value = 100000 + k;
		x.type = KL_TYPE_I64;
		CHECK_EQ_INT(kl_data_append(m, b, &x), KL_OK);
	}
	CHECK(m->nitems <= 4 * 2 * n + 64);
	CHECK(m->items_cap <= 8 * 2 * n + 64);
	CHECK_EQ_INT(kl_data_num_items(m, a), n);
	CHECK_EQ_INT(kl_data_num_items(m, b), n);
	CHECK_EQ_INT(kl_data_size(m, a), 4 * n);
	CHECK_EQ_INT(kl_data_size(m, b), 8 * n);
	uint32_t bad = 0;
	for (uint32_t k = 0; k < n; k++) {
		kl_data_item x = kl_data_item_at(m, a, k);
		kl_data_item y = kl_data_item_at(m, b, k);
		bad += x.value != k || x.type != KL_TYPE_I32;
		bad += y.value != 100000 + k || y.type != KL_TYPE_I64;
	}
	CHECK_EQ_INT(bad, 0);
	kl_module_free(m);

	/* Three objects, appended in a rotating order, print in order. */
	m = kl_module_new();
	kl_sym s[3];
	for (int i = 0; i < 3; i++)
		CHECK_EQ_INT(kl_module_add_data(m, i == 0 ? "x" : i == 1 ? "y"
							      : "z",
					       1, false, 1, &s[i]), KL_OK);
	for (uint32_t k = 0; k < 4; k++)
		for (int i = 0; i < 3; i++) {
			kl_data_item x = { KL_DATA_VALUE, KL_TYPE_I8,
					   10 * (uint32_t)i + k, KL_NO_SYM,
					   NULL, 0 };
			CHECK_EQ_INT(kl_data_append(m, s[(i + k) % 3], &x),
				     KL_OK);
		}
	kl_buf out = { 0 };
	kl_print_module(m, NULL, &out);
	CHECK_EQ_STR(out.data, "data %x = { i8 0, i8 21, i8 12, i8 3 }\n\n"
			       "data %y = { i8 10, i8 1, i8 22, i8 13 }\n\n"
			       "data %z = { i8 20, i8 11, i8 2, i8 23 }\n");
	kl_buf_free(&out);
	kl_module_free(m);
}

/* ---- data values and their spellings ---- */

/* keel.h: an integer VALUE may be given zero- or sign-extended and is
 * kept at its width; the printer writes it signed whichever was given
 * (the text's canonical spelling), up to the width's largest unsigned
 * value, which is -1. */
static void
test_data_values_print_signed(void)
{
	kl_module *m = kl_module_new();
	kl_sym d;
	CHECK_EQ_INT(kl_module_add_data(m, "d", 1, false, 1, &d), KL_OK);
	const struct {
		kl_type type;
		uint64_t value;
	} given[] = {
		{ KL_TYPE_I8, 0xff },         { KL_TYPE_I8, UINT64_MAX },
		{ KL_TYPE_I16, 0xffff },      { KL_TYPE_I16, 0x8000 },
		{ KL_TYPE_I32, 0xffffffffu }, { KL_TYPE_I32, 0x80000000u },
	};
	for (size_t k = 0; k < sizeof given / sizeof *given; k++) {
		kl_data_item x = { KL_DATA_VALUE, given[k].type,
				   given[k].value, KL_NO_SYM, NULL, 0 };
		CHECK_EQ_INT(kl_data_append(m, d, &x), KL_OK);
	}
	kl_buf out = { 0 };
	kl_print_module(m, NULL, &out);
	CHECK_EQ_STR(out.data, "data %d = { i8 -1, i8 -1, i16 -1, i16 0x8000, "
			       "i32 -1, i32 0x8000_0000 }\n");
	kl_buf_free(&out);
	kl_module_free(m);
}

/* The parser range-checks a data value against its type, either
 * spelling, and keeps one value for both: i8 255 and i8 -1 are the same
 * item, as they are the same byte. */
static void
test_data_spellings_parse_alike(void)
{
	static const char text[] = "data %d = { i8 255, i8 -1, i16 65535, "
				   "i16 -1, i32 0x8000_0000, i32 -2147483648 }\n";
	kl_module *m = NULL;
	kl_diags d = { 0 };
	CHECK_EQ_INT(kl_parse_module(text, sizeof text - 1, NULL, &m, &d),
		     KL_OK);
	kl_diags_free(&d);
	if (!m)
		return;
	kl_sym s = kl_module_lookup(m, "d", 1);
	CHECK_EQ_INT(kl_data_num_items(m, s), 6);
	for (uint32_t k = 0; k < 6; k += 2) {
		kl_data_item a = kl_data_item_at(m, s, k);
		kl_data_item b = kl_data_item_at(m, s, k + 1);
		CHECK(a.value == b.value);
		unsigned w = 8u << k / 2;
		/* kept at the width's bits (keel.h), as kl_data_append
		 * keeps them: the parser sign-extended them */
		CHECK_EQ_INT(a.value,
			     k == 4 ? 0x80000000u : (1ull << w) - 1);
	}
	/* the same items through the API: the same values */
	kl_module *api = kl_module_new();
	kl_sym t;
	CHECK_EQ_INT(kl_module_add_data(api, "d", 1, false, 0, &t), KL_OK);
	const kl_type types[3] = { KL_TYPE_I8, KL_TYPE_I16, KL_TYPE_I32 };
	for (uint32_t k = 0; k < 6; k++) {
		kl_data_item it = { .kind = KL_DATA_VALUE,
				    .type = types[k / 2],
				    .value = k == 5 ? (uint64_t)INT32_MIN
						    : k % 2 ? UINT64_MAX
						    : kl_data_item_at(m, s, k).value };
		CHECK_EQ_INT(kl_data_append(api, t, &it), KL_OK);
		CHECK_EQ_INT(kl_data_item_at(api, t, k).value,
			     kl_data_item_at(m, s, k).value);
	}
	kl_module_free(api);
	kl_module_free(m);
}

/* ---- rendering ---- */

/* keel.h (kl_diag_render): a line over 200 bytes is shown in a window
 * once the column passes 100 ("..." at each end cut); up to column 101 it
 * is shown from its start, cut at its end only, the caret under the
 * column either way. */
static void
test_render_long_line_window_edge(void)
{
	char src[251];
	for (int i = 0; i < 250; i++)
		src[i] = (char)('0' + i % 10);
	src[250] = '\n';
	kl_diags d = { 0 };
	kl_diags_add(&d, KL_SEV_ERROR, 1, 101, "at 101");
	kl_diags_add(&d, KL_SEV_ERROR, 1, 102, "at 102");
	kl_buf out = { 0 }, want = { 0 };
	kl_diag_render(&d.items[0], "w.kl", src, sizeof src, &out);
	kl_buf_printf(&want, "w.kl:1:101: error: at 101\n%.200s...\n%100s^\n",
		      src, "");
	CHECK_EQ_STR(out.data, want.data);
	kl_buf_reset(&out);
	kl_buf_reset(&want);
	kl_diag_render(&d.items[1], "w.kl", src, sizeof src, &out);
	kl_buf_printf(&want, "w.kl:1:102: error: at 102\n...%.200s...\n"
			     "   %80s^\n", src + 21, "");
	CHECK_EQ_STR(out.data, want.data);
	kl_buf_free(&out);
	kl_buf_free(&want);
	kl_diags_free(&d);
}

/* The parser's hint after "expected '=' or '->' after vN" is for a value
 * alone on the line after a bare `return` only: after `return v0` the
 * message ends with what it found. */
static void
test_parse_return_hint_only_bare(void)
{
	static const char *const srcs[2] = {
		"function %f(i32) {\nblock0(v0: i32):\n    return\n"
		"    v0\n}\n",
		"function %f(i32) {\nblock0(v0: i32):\n    return v0\n"
		"    v0\n}\n",
	};
	static const char *const want[2] = {
		"expected '=' or '->' after v0, found '}' (a return's first "
		"value goes on its line: return v0)",
		"expected '=' or '->' after v0, found '}'",
	};
	for (int k = 0; k < 2; k++) {
		kl_module *m = NULL;
		kl_diags d = { 0 };
		CHECK_EQ_INT(kl_parse_module(srcs[k], strlen(srcs[k]), NULL, &m,
					     &d),
			     KL_ERR_PARSE);
		CHECK_EQ_INT(d.len, 1);
		if (d.len)
			CHECK_EQ_STR(d.items[0].message, want[k]);
		kl_diags_free(&d);
	}
}

/* "'}' missing before this line" is at the line's column 1 (no caret
 * annotation of a file test can sit there). */
static void
test_parse_missing_brace_column(void)
{
	static const char src[] = "function %f() {\nblock0:\n    return\n"
				  "function %g() {\nblock0:\n    return\n}\n";
	kl_module *m = NULL;
	kl_diags d = { 0 };
	CHECK_EQ_INT(kl_parse_module(src, sizeof src - 1, NULL, &m, &d),
		     KL_ERR_PARSE);
	CHECK_EQ_INT(d.len, 1);
	if (d.len) {
		CHECK_EQ_STR(d.items[0].message, "'}' missing before this line");
		CHECK_EQ_INT(d.items[0].line, 4);
		CHECK_EQ_INT(d.items[0].col, 1);
	}
	kl_diags_free(&d);
}

/* kl_diag_render, what one line shows: a line of exactly 200 bytes is
 * shown whole (no window) whatever the column; DEL and a C1 control
 * (U+009F, the last) show as '?'; the last code point of a zero-width
 * range (U+200F) takes no blank before the caret; a column past the line's
 * end puts the caret after its last byte (a long line's window ends there
 * too). */
static void
test_render_line_edges(void)
{
	struct {
		const char *src;
		uint32_t col;
		const char *want;
	} cases[] = {
		{ "a\x7f" "b\n", 3, "r.kl:1:3: error: e\na?b\n  ^\n" },
		{ "a\xc2\x9f" "b\n", 4, "r.kl:1:4: error: e\na?b\n  ^\n" },
		{ "a\xe2\x80\x8f" "b\n", 5,
		  "r.kl:1:5: error: e\na\xe2\x80\x8f" "b\n ^\n" },
	};
	for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
		kl_diags d = { 0 };
		kl_diags_add(&d, KL_SEV_ERROR, 1, cases[k].col, "e");
		kl_buf out = { 0 };
		kl_diag_render(&d.items[0], "r.kl", cases[k].src,
			       strlen(cases[k].src), &out);
		CHECK_EQ_STR(out.data, cases[k].want);
		kl_buf_free(&out);
		kl_diags_free(&d);
	}
	char src[251];
	for (int i = 0; i < 250; i++)
		src[i] = (char)('0' + i % 10);
	src[250] = '\n';
	kl_diags d = { 0 };
	kl_buf out = { 0 }, want = { 0 };
	/* 200 bytes, column 150: whole */
	char line[201];
	memcpy(line, src, 200);
	line[200] = '\n';
	kl_diags_add(&d, KL_SEV_ERROR, 1, 150, "e");
	kl_diag_render(&d.items[0], "r.kl", line, sizeof line, &out);
	kl_buf_printf(&want, "r.kl:1:150: error: e\n%.200s\n%149s^\n", line,
		      "");
	CHECK_EQ_STR(out.data, want.data);
	/* 250 bytes, column 300: as column 251 */
	kl_buf_reset(&out);
	kl_buf_reset(&want);
	kl_diags_add(&d, KL_SEV_ERROR, 1, 300, "e");
	kl_diag_render(&d.items[1], "r.kl", src, sizeof src, &out);
	kl_buf_printf(&want, "r.kl:1:300: error: e\n...%.80s\n   %80s^\n",
		      src + 170, "");
	CHECK_EQ_STR(out.data, want.data);
	kl_buf_free(&out);
	kl_buf_free(&want);
	kl_diags_free(&d);
}

/* kl_diag_render: the window's ends fall between characters, not
 * inside one: a line of two-byte 'é's cut at an odd byte showed the
 * lone half as '?', the mark of bytes that are not UTF-8. The window
 * starts at the character that holds its first byte's place, and ends
 * before the one its last byte would cut. */
static void
test_render_window_whole_characters(void)
{
	char src[402];
	for (int i = 0; i < 400; i += 2)
		memcpy(src + i, "\xc3\xa9", 2);
	src[400] = 'x';
	src[401] = '\n';
	for (uint32_t col = 150; col <= 151; col++) {
		kl_diags d = { 0 };
		kl_diags_add(&d, KL_SEV_ERROR, 1, col, "here");
		kl_buf out = { 0 };
		kl_diag_render(&d.items[0], "u.kl", src, sizeof src, &out);
		CHECK(strchr(out.data, '?') == NULL);
		/* the window: col - 81 rounded up to a character, to
		 * 200 bytes on from col - 81 rounded down */
		size_t from = (col - 81 + 1) & ~(size_t)1;
		size_t to = (col - 81 + 200) & ~(size_t)1;
		kl_buf want = { 0 };
		kl_buf_printf(&want, "u.kl:1:%u: error: here\n...%.*s...\n",
			      col, (int)(to - from), src + from);
		CHECK_EQ_INT(strncmp(out.data, want.data, want.len), 0);
		kl_buf_free(&out);
		kl_buf_free(&want);
		kl_diags_free(&d);
	}
}

/* kl_op_lookup: every opcode's name leads back to it; a name that is
 * none (a prefix, a longer word, another case, empty) is KL_OP_COUNT. */
static void
test_op_lookup(void)
{
	for (unsigned op = 0; op < KL_OP_COUNT; op++) {
		const char *n = kl_op_name((kl_opcode)op);
		CHECK_EQ_INT(kl_op_lookup(n, strlen(n)), op);
	}
	CHECK_EQ_INT(kl_op_lookup("iadd_imm", 4), KL_OP_IADD);
	CHECK_EQ_INT(kl_op_lookup("iad", 3), KL_OP_COUNT);
	CHECK_EQ_INT(kl_op_lookup("iadd2", 5), KL_OP_COUNT);
	CHECK_EQ_INT(kl_op_lookup("IADD", 4), KL_OP_COUNT);
	CHECK_EQ_INT(kl_op_lookup("", 0), KL_OP_COUNT);
	CHECK_EQ_INT(kl_op_lookup(NULL, 0), KL_OP_COUNT);
}

/* kl_version: the library's version is the header's it was built
 * with, three numbers and two dots. */
static void
test_version(void)
{
	CHECK_EQ_STR(kl_version(), KL_VERSION);
	unsigned a, b, c;
	char end;
	CHECK_EQ_INT(sscanf(kl_version(), "%u.%u.%u%c", &a, &b, &c, &end), 3);
}

/* kl_struct_size: the library's sizeof of each struct a binding mirrors
 * (here compiled by the same compiler, so they agree), and 0 for a name
 * that is none: an opaque struct, a near miss, a prefix, nothing. */
static void
test_struct_size(void)
{
	CHECK_EQ_INT(kl_struct_size("kl_run_result"), sizeof(kl_run_result));
	CHECK_EQ_INT(kl_struct_size("kl_run_frame"), sizeof(kl_run_frame));
	CHECK_EQ_INT(kl_struct_size("kl_buf"), sizeof(kl_buf));
	CHECK_EQ_INT(kl_struct_size("kl_diags"), sizeof(kl_diags));
	CHECK_EQ_INT(kl_struct_size("kl_diag"), sizeof(kl_diag));
	CHECK_EQ_INT(kl_struct_size("kl_builder"), sizeof(kl_builder));
	CHECK_EQ_INT(kl_struct_size("kl_interp_options"),
		     sizeof(kl_interp_options));
	CHECK_EQ_INT(kl_struct_size("kl_pass_report"), sizeof(kl_pass_report));
	CHECK_EQ_INT(kl_struct_size("kl_pass"), sizeof(kl_pass));
	CHECK_EQ_INT(kl_struct_size("kl_value"), sizeof(uint32_t));
	CHECK_EQ_INT(kl_struct_size("kl_module"), 0);
	CHECK_EQ_INT(kl_struct_size("kl_run_resul"), 0);
	CHECK_EQ_INT(kl_struct_size("kl_run_results"), 0);
	CHECK_EQ_INT(kl_struct_size("run_result"), 0);
	CHECK_EQ_INT(kl_struct_size(""), 0);
	CHECK_EQ_INT(kl_struct_size(NULL), 0);
}

/* ---- pointers that stay valid while the module lives ---- */

/* keel.h: kl_sym_name's bytes, a string item's bytes and a signature's
 * arrays stay valid while the module lives, however much it grows after.
 * Under AddressSanitizer a pointer into a freed table is caught at once. */
static void
test_pointers_outlive_growth(void)
{
	kl_module *m = kl_module_new();
	kl_func *f = NULL;
	kl_type i64[] = { KL_TYPE_I64, KL_TYPE_I32 };
	kl_signature sig = { i64, i64 + 1, 1, 1, false };
	CHECK_EQ_INT(kl_module_add_func(m, "f", 1, &sig, &f), KL_OK);
	const char *longname = "a_name_too_long_to_fit_in_the_symbol";
	kl_sym lng;
	CHECK_EQ_INT(kl_module_declare(m, longname, strlen(longname), NULL,
				       &lng), KL_OK);
	kl_sym d;
	CHECK_EQ_INT(kl_module_add_data(m, "d", 1, true, 1, &d), KL_OK);
	kl_data_item str = { KL_DATA_STRING, KL_TYPE_I8, 0, KL_NO_SYM,
			     "hello", 5 };
	CHECK_EQ_INT(kl_data_append(m, d, &str), KL_OK);

	size_t n1, n2;
	const char *short_name = kl_sym_name(m, kl_func_sym(f), &n1);
	const char *long_name = kl_sym_name(m, lng, &n2);
	const char *bytes = kl_data_item_at(m, d, 0).bytes;
	kl_signature fs = kl_func_signature(f);
	kl_signature ds = kl_sym_signature(m, kl_func_sym(f));

	/* Grow every table these point into: symbols with short and long
	 * names, strings, signatures (through sigrefs, as the report that
	 * found this did). */
	char name[64];
	kl_type types[40];
	for (uint32_t k = 0; k < 40; k++)
		types[k] = KL_TYPE_I8 + k % 4;
	for (uint32_t k = 0; k < 2000; k++) {
		snprintf(name, sizeof name, k % 2 ? "s%u" : "long_name_%u_x",
			 k);
		kl_sym s;
		CHECK_EQ_INT(kl_module_declare(m, name, strlen(name), NULL,
					       &s), KL_OK);
		kl_data_item more = { KL_DATA_STRING, KL_TYPE_I8, 0, KL_NO_SYM,
				      name, (uint32_t)strlen(name) };
		CHECK_EQ_INT(kl_data_append(m, d, &more), KL_OK);
		kl_signature grow = { types, types, k % 40, k % 7, false };
		CHECK(kl_func_add_sigref(f, &grow).id != KL_NONE);
	}

	CHECK(n1 == 1 && memcmp(short_name, "f", 1) == 0);
	CHECK(n2 == strlen(longname) && memcmp(long_name, longname, n2) == 0);
	CHECK(memcmp(bytes, "hello", 5) == 0);
	CHECK(fs.num_params == 1 && fs.params[0] == KL_TYPE_I64);
	CHECK(fs.num_results == 1 && fs.results[0] == KL_TYPE_I32);
	CHECK(ds.params[0] == KL_TYPE_I64 && ds.results[0] == KL_TYPE_I32);
	kl_module_free(m);
}

/* ---- inserting instructions ---- */

/* Sequence numbers increase along the block, following its list. */
static bool
seq_in_order(const kl_func *f, kl_block b)
{
	uint32_t prev = KL_NONE;
	for (kl_inst i = kl_block_first_inst(f, b); i.id != KL_NONE;
	     i = kl_inst_next(f, i)) {
		if (prev != KL_NONE && f->nodes[prev].seq >= f->nodes[i.id].seq)
			return false;
		prev = i.id;
	}
	return true;
}

enum { LONG_BLOCK = 20000, INSERTS = 2000 };

/*
 * Insert INSERTS instructions into a block of LONG_BLOCK, each placed by
 * where(k, ...), and count the instructions already there whose sequence
 * number changed, summed over the inserts. Renumbering the rest of the
 * block whenever a gap closes made that O(block) per insert once the
 * first gap of 16 was used up: hoisting into the top of a long entry
 * block took O(n * k).
 */
typedef kl_inst (*where_fn)(kl_func *f, kl_block b, kl_inst fixed, uint32_t k,
			   kl_inst last);

static uint64_t
renumbered_by_inserts(where_fn where)
{
	kl_func *f;
	kl_block b;
	kl_builder bld;
	kl_module *m = one_block_func(&f, &b, &bld);
	for (uint32_t k = 0; k < LONG_BLOCK; k++)
		kl_build_iconst(&bld, KL_TYPE_I32, k);
	kl_inst fixed = kl_inst_next(f, kl_block_first_inst(f, b));
	uint32_t *seen = calloc(LONG_BLOCK + INSERTS, sizeof *seen);
	uint64_t changed = 0;
	kl_inst last = fixed;
	uint32_t placed = LONG_BLOCK;
	for (uint32_t k = 0; k < INSERTS; k++) {
		for (uint32_t i = 0; i < placed; i++)
			seen[i] = f->nodes[i].seq;
		kl_builder_before(&bld, where(f, b, fixed, k, last));
		kl_value v = kl_build_iconst(&bld, KL_TYPE_I64, k);
		last = kl_value_def_inst(f, v);
		for (uint32_t i = 0; i < placed; i++)
			changed += seen[i] != f->nodes[i].seq;
		placed++;
	}
	CHECK_EQ_INT(kl_builder_status(&bld), KL_OK);
	CHECK(seq_in_order(f, b));
	free(seen);
	kl_module_free(m);
	return changed;
}

static kl_inst
at_one_place(kl_func *f, kl_block b, kl_inst fixed, uint32_t k, kl_inst last)
{
	(void)f, (void)b, (void)k, (void)last;
	return fixed; /* each new one right before the same instruction */
}

static kl_inst
before_the_last(kl_func *f, kl_block b, kl_inst fixed, uint32_t k,
		kl_inst last)
{
	(void)f, (void)b, (void)fixed, (void)k;
	return last; /* each new one before the one inserted just before */
}

static kl_inst
at_the_top(kl_func *f, kl_block b, kl_inst fixed, uint32_t k, kl_inst last)
{
	(void)fixed, (void)k, (void)last;
	return kl_block_first_inst(f, b);
}

static kl_inst
spread_out(kl_func *f, kl_block b, kl_inst fixed, uint32_t k, kl_inst last)
{
	(void)f, (void)b, (void)fixed, (void)last;
	/* a fixed pseudo-random walk over the instructions first built */
	return (kl_inst){ (uint32_t)((k * 2654435761u) % LONG_BLOCK) };
}

static void
test_insert_cost_is_bounded(void)
{
	where_fn patterns[] = { at_one_place, before_the_last, at_the_top,
				spread_out };
	for (size_t p = 0; p < sizeof patterns / sizeof patterns[0]; p++) {
		uint64_t changed = renumbered_by_inserts(patterns[p]);
		/* O(log) an insert, well below the O(block) of before */
		if (changed > 64 * INSERTS) {
			fprintf(stderr, "pattern %zu: %llu renumbered\n", p,
				(unsigned long long)changed);
			CHECK(changed <= 64 * INSERTS);
		}
	}
}

/* An append after the last number renumbers instead of stopping. */
static void
test_append_past_last_number(void)
{
	kl_func *f;
	kl_block b;
	kl_builder bld;
	kl_module *m = one_block_func(&f, &b, &bld);
	for (uint32_t k = 0; k < 3; k++)
		kl_build_iconst(&bld, KL_TYPE_I32, k);
	f->nodes[kl_block_last_inst(f, b).id].seq = UINT32_MAX - 2;
	for (uint32_t k = 0; k < 100; k++)
		kl_build_iconst(&bld, KL_TYPE_I32, k);
	CHECK_EQ_INT(kl_builder_status(&bld), KL_OK);
	CHECK(seq_in_order(f, b));
	kl_module_free(m);
}

/* ---- the builder's sticky status ---- */

/* keel.h: kl_builder_before sets the block field to the block the
 * instruction is in (none for one out of range). */
static void
test_builder_before_sets_block(void)
{
	kl_func *f;
	kl_block b0;
	kl_builder b;
	kl_module *m = one_block_func(&f, &b0, &b);
	kl_inst ret = kl_build_return(&b, NULL, 0);
	kl_builder_init(&b, f);
	kl_builder_before(&b, ret);
	CHECK_EQ_INT(b.block.id, b0.id);
	kl_builder_before(&b, (kl_inst){ 999 });
	CHECK_EQ_INT(b.block.id, KL_NONE);
	kl_module_free(m);
}

/* keel.h: errors are sticky and the status and text are the first
 * failure's. A call that fails before ready() (a bad condition code)
 * must not overwrite an earlier failure either. */
static void
test_builder_keeps_first_error(void)
{
	kl_func *f;
	kl_block b0;
	kl_builder bld;
	kl_module *m = one_block_func(&f, &b0, &bld);
	CHECK_EQ_INT(kl_build_symbol_addr(&bld, (kl_sym){ 99 }).id, KL_NONE);
	CHECK_EQ_INT(kl_builder_status(&bld), KL_ERR_INVALID);
	const char *first = bld.error;
	CHECK_EQ_INT(bld.error_op, KL_OP_SYMBOL_ADDR);
	CHECK_EQ_INT(kl_build_icmp(&bld, KL_ICC_COUNT, KL_NO_VALUE,
				   KL_NO_VALUE).id, KL_NONE);
	CHECK_EQ_INT(kl_build_trap(&bld, KL_TRAP_COUNT, 0).id, KL_NONE);
	CHECK_EQ_INT(kl_builder_status(&bld), KL_ERR_INVALID);
	CHECK(bld.error == first);
	CHECK_EQ_INT(bld.error_op, KL_OP_SYMBOL_ADDR);
	kl_module_free(m);
}

/* keel.h: kl_build_unary's t is the result type of an opcode with an
 * explicit type; for another, the operand or the opcode gives it, and a
 * t that says otherwise is refused (it was dropped without a word:
 * ineg given f64 built an i32). KL_TYPE_NONE and the type it would have
 * anyway are taken. */
static void
test_builder_unary_type(void)
{
	static const struct {
		kl_opcode op;
		kl_type operand, t;
		bool ok;
	} cases[] = {
		{ KL_OP_INEG, KL_TYPE_I32, KL_TYPE_NONE, true },
		{ KL_OP_INEG, KL_TYPE_I32, KL_TYPE_I32, true },
		{ KL_OP_INEG, KL_TYPE_I32, KL_TYPE_F64, false },
		{ KL_OP_INEG, KL_TYPE_I32, KL_TYPE_I64, false },
		{ KL_OP_FPROMOTE, KL_TYPE_F32, KL_TYPE_F64, true },
		{ KL_OP_FPROMOTE, KL_TYPE_F32, KL_TYPE_F32, false },
		{ KL_OP_SEXTEND, KL_TYPE_I8, KL_TYPE_I64, true },
	};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		kl_func *f;
		kl_block b0;
		kl_builder bld;
		kl_module *m = one_block_func(&f, &b0, &bld);
		kl_value x = cases[k].operand == KL_TYPE_F32
				     ? kl_build_f32const(&bld, 0x3f800000u)
				     : kl_build_iconst(&bld, cases[k].operand, 1);
		kl_value r = kl_build_unary(&bld, cases[k].op, cases[k].t, x);
		if (cases[k].ok) {
			CHECK_EQ_INT(kl_builder_status(&bld), KL_OK);
			CHECK(r.id != KL_NONE);
		} else {
			CHECK_EQ_INT(r.id, KL_NONE);
			CHECK_EQ_INT(kl_builder_status(&bld), KL_ERR_INVALID);
			CHECK_EQ_INT(bld.error_op, cases[k].op);
		}
		kl_module_free(m);
	}
}

/* An operand list the pool cannot hold is KL_ERR_RANGE, at one more
 * than 2^27 - 3 (a list holds 2^27 - 2 words and a destination or a
 * table's default takes one). The operands are a mapping that is only
 * read as far as the first (no value: KL_ERR_INVALID), so the count
 * must be checked before them. */
/* LIST_MAX_LEN values that are never written: a mapping, read as zeros
 * (no value) as far as it is read; NULL, said, where there is no room. */
static kl_value *
untouched_values(const char *test, size_t *n)
{
	*n = (size_t)LIST_MAX_LEN * sizeof(kl_value);
	kl_value *big = mmap(NULL, *n, PROT_READ,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1,
			     0);
	if (big != MAP_FAILED)
		return big;
	fprintf(stderr, "%s: no mapping, skipped\n", test);
	return NULL;
}

static void
test_operand_count_limit(void)
{
	size_t n;
	kl_value *big = untouched_values(__func__, &n);
	if (!big)
		return;
	kl_func *f;
	kl_block b0;
	kl_builder bld;
	kl_module *m = one_block_func(&f, &b0, &bld);
	CHECK_EQ_INT(kl_build_return(&bld, big, LIST_MAX_LEN).id, KL_NONE);
	CHECK_EQ_INT(kl_builder_status(&bld), KL_ERR_RANGE);
	kl_builder_init(&bld, f);
	kl_builder_at_end(&bld, b0);
	CHECK_EQ_INT(kl_build_return(&bld, big, LIST_MAX_LEN - 1).id,
		     KL_NONE);
	CHECK_EQ_INT(kl_builder_status(&bld), KL_ERR_INVALID);
	kl_module_free(m);
	munmap(big, n);
}

/* keel.h: kl_inst_set_dest is KL_ERR_RANGE at 2^27 - 2 arguments (the
 * list holds the block too), before it reads any: the arguments are the
 * same untouched mapping, whose first is no value (KL_ERR_INVALID). */
static void
test_set_dest_argument_limit(void)
{
	size_t n;
	kl_value *big = untouched_values(__func__, &n);
	if (!big)
		return;
	kl_func *f;
	kl_block b0;
	kl_builder bld;
	kl_module *m = one_block_func(&f, &b0, &bld);
	kl_inst jmp = kl_build_jump(&bld, (kl_block_call){ b0, NULL, 0 });
	CHECK_EQ_INT(kl_builder_status(&bld), KL_OK);
	kl_block_call dest = { b0, big, LIST_MAX_LEN };
	CHECK_EQ_INT(kl_inst_set_dest(f, jmp, 0, dest), KL_ERR_RANGE);
	dest.num_args = LIST_MAX_LEN - 1;
	CHECK_EQ_INT(kl_inst_set_dest(f, jmp, 0, dest), KL_ERR_INVALID);
	CHECK_EQ_INT(kl_inst_dest_num_args(f, jmp, 0), 0);
	kl_module_free(m);
	munmap(big, n);
}

/* ---- queries at the edge of their range ---- */

/* "Does a come before b?": never of an instruction and itself, also
 * after an insert has renumbered the block. */
static void
test_precedes_is_strict(void)
{
	kl_func *f;
	kl_block b0;
	kl_builder bld;
	kl_module *m = one_block_func(&f, &b0, &bld);
	kl_value one = kl_build_iconst(&bld, KL_TYPE_I32, 1);
	kl_inst ret = kl_build_return(&bld, &one, 1);
	kl_inst first = kl_value_def_inst(f, one);
	kl_builder_before(&bld, ret);
	kl_inst last = first;
	for (uint32_t k = 0; k < 64; k++) /* halves the gap until renumbered */
		last = kl_value_def_inst(f, kl_build_iconst(&bld,
							    KL_TYPE_I32, k));
	CHECK_EQ_INT(kl_builder_status(&bld), KL_OK);
	for (kl_inst i = kl_block_first_inst(f, b0); i.id != KL_NONE;
	     i = kl_inst_next(f, i)) {
		CHECK(!kl_inst_precedes(f, i, i));
		kl_inst n = kl_inst_next(f, i);
		if (n.id != KL_NONE) {
			CHECK(kl_inst_precedes(f, i, n));
			CHECK(!kl_inst_precedes(f, n, i));
		}
	}
	CHECK(kl_inst_precedes(f, first, last));
	CHECK(kl_inst_precedes(f, last, ret));
	kl_module_free(m);
}

/* keel.h: none or out of range "never read out of bounds": the first
 * type number past the built-in ones (a module with no types of its
 * own) is no type, and KL_OP_COUNT is no opcode. */
static void
test_type_and_opcode_past_the_tables(void)
{
	kl_module *m = kl_module_new();
	kl_type t = KL_TYPE_BUILTIN_COUNT;
	CHECK_EQ_INT(kl_type_class(m, t), KL_TYPE_NONE);
	CHECK_EQ_INT(kl_type_bytes(m, t), 0);
	CHECK(!kl_type_is_int(m, t) && !kl_type_is_float(m, t));
	CHECK_EQ_STR(kl_type_name(m, t), "?");
	CHECK_EQ_STR(kl_type_name(NULL, t), "?");
	kl_opcode op = KL_OP_COUNT;
	CHECK(kl_op_info(op) == NULL);
	CHECK_EQ_STR(kl_op_name(op), "?");
	CHECK(!kl_op_is_terminator(op) && !kl_op_is_branch(op) &&
	      !kl_op_is_call(op) && !kl_op_is_return(op) &&
	      !kl_op_can_trap(op) && !kl_op_can_load(op) &&
	      !kl_op_can_store(op) && !kl_op_has_side_effects(op) &&
	      !kl_op_is_pure(op));
	/* far past the table too, and past the code spellings */
	op = (kl_opcode)0x40000000;
	CHECK(!kl_op_is_terminator(op) && !kl_op_is_pure(op));
	CHECK_EQ_STR(kl_intcc_name(KL_ICC_COUNT), "?");
	CHECK_EQ_STR(kl_floatcc_name(KL_FCC_COUNT), "?");
	CHECK_EQ_STR(kl_trapcode_name(KL_TRAP_COUNT), "?");
	CHECK_EQ_STR(kl_status_name(KL_ERR_POSITION), "no insertion point");
	kl_module_free(m);
}

/* ---- what kl_module_add_func, kl_module_declare and kl_data_append
 * refuse ---- */

/* keel.h: KL_ERR_INVALID, nothing added, for a signature type that is
 * not one of m's: each parameter and each result is checked, the first
 * of them too. */
static void
test_sig_types_checked(void)
{
	kl_module *m = kl_module_new();
	const kl_type bad = 999, i32 = KL_TYPE_I32;
	kl_signature only_result = { .results = &bad, .num_results = 1 };
	kl_signature only_param = { .params = &bad, .num_params = 1 };
	kl_func *f = NULL;
	kl_sym s;
	CHECK_EQ_INT(kl_module_add_func(m, "f", 1, &only_result, &f),
		     KL_ERR_INVALID);
	CHECK(f == NULL);
	CHECK_EQ_INT(kl_module_declare(m, "g", 1, &only_result, &s),
		     KL_ERR_INVALID);
	CHECK_EQ_INT(s.id, KL_NONE);
	CHECK_EQ_INT(kl_module_declare(m, "g", 1, &only_param, &s),
		     KL_ERR_INVALID);
	CHECK_EQ_INT(kl_module_num_syms(m), 0);
	kl_signature good = { .params = &i32, .num_params = 1,
			      .results = &i32, .num_results = 1 };
	CHECK_EQ_INT(kl_module_declare(m, "g", 1, &good, &s), KL_OK);
	kl_module_free(m);
}

/* Items go only to data objects, of the kinds there are; an item past
 * an object's last is none, whatever object's items follow in the
 * module (here e's, right after d's). */
static void
test_data_append_refusals(void)
{
	kl_module *m = kl_module_new();
	kl_sym d, e;
	kl_func *f;
	CHECK_EQ_INT(kl_module_add_data(m, "d", 1, false, 4, &d), KL_OK);
	CHECK_EQ_INT(kl_module_add_data(m, "e", 1, false, 4, &e), KL_OK);
	CHECK_EQ_INT(kl_module_add_func(m, "f", 1, NULL, &f), KL_OK);
	kl_data_item it = { .kind = KL_DATA_VALUE, .type = KL_TYPE_I32,
			    .value = 5 };
	CHECK_EQ_INT(kl_data_append(m, d, &it), KL_OK);
	it.value = 7;
	CHECK_EQ_INT(kl_data_append(m, e, &it), KL_OK);
	CHECK_EQ_INT(kl_data_append(m, kl_func_sym(f), &it), KL_ERR_INVALID);
	CHECK_EQ_INT(kl_data_num_items(m, kl_func_sym(f)), 0);
	it.kind = (kl_data_kind)99;
	CHECK_EQ_INT(kl_data_append(m, d, &it), KL_ERR_INVALID);
	CHECK_EQ_INT(kl_data_num_items(m, d), 1);
	CHECK_EQ_INT(kl_data_size(m, d), 4);
	CHECK_EQ_INT(kl_data_item_at(m, d, 0).value, 5);
	kl_data_item past = kl_data_item_at(m, d, 1);
	CHECK(past.value == 0 && past.type == 0 && past.kind == 0);
	kl_module_free(m);
}

/* keel.h: a symbol reference to a symbol that is not there is
 * KL_ERR_INVALID, the number just past the last one included. */
static void
test_data_symref_at_bound(void)
{
	kl_module *m = kl_module_new();
	kl_sym d;
	CHECK_EQ_INT(kl_module_add_data(m, "d", 1, true, 8, &d), KL_OK);
	uint32_t n = kl_module_num_syms(m);
	kl_data_item it = { KL_DATA_SYMREF, KL_TYPE_I64, 0, (kl_sym){ n },
			    NULL, 0 };
	CHECK_EQ_INT(kl_data_append(m, d, &it), KL_ERR_INVALID);
	CHECK_EQ_INT(kl_data_num_items(m, d), 0);
	it.sym = (kl_sym){ n - 1 };
	CHECK_EQ_INT(kl_data_append(m, d, &it), KL_OK);
	CHECK_EQ_INT(kl_data_num_items(m, d), 1);
	/* an address is an integer: a float type is refused, an i8 holds
	 * its low byte */
	it.type = KL_TYPE_F64;
	CHECK_EQ_INT(kl_data_append(m, d, &it), KL_ERR_INVALID);
	it.type = KL_TYPE_F32;
	CHECK_EQ_INT(kl_data_append(m, d, &it), KL_ERR_INVALID);
	CHECK_EQ_INT(kl_data_num_items(m, d), 1);
	it.type = KL_TYPE_I8;
	CHECK_EQ_INT(kl_data_append(m, d, &it), KL_OK);
	CHECK_EQ_INT(kl_data_num_items(m, d), 2);
	kl_module_free(m);
}

/* keel.h: an integer VALUE is taken zero- or sign-extended (255 or -1
 * for an i8) and kept at its width; bits that fit neither way are
 * KL_ERR_RANGE with nothing appended, and a float takes only
 * zero-extended bits. */
static void
test_data_value_width(void)
{
	kl_module *m = kl_module_new();
	kl_sym d;
	CHECK_EQ_INT(kl_module_add_data(m, "d", 1, true, 1, &d), KL_OK);
	kl_data_item it = { KL_DATA_VALUE, KL_TYPE_I8, 0x100, KL_NO_SYM,
			    NULL, 0 };
	CHECK_EQ_INT(kl_data_append(m, d, &it), KL_ERR_RANGE);
	it.value = (uint64_t)-129; /* below i8's least */
	CHECK_EQ_INT(kl_data_append(m, d, &it), KL_ERR_RANGE);
	it.type = KL_TYPE_F32;
	it.value = UINT64_MAX; /* -1 sign-extended: not for a float */
	CHECK_EQ_INT(kl_data_append(m, d, &it), KL_ERR_RANGE);
	CHECK_EQ_INT(kl_data_num_items(m, d), 0);
	CHECK_EQ_INT(kl_data_size(m, d), 0);
	it.type = KL_TYPE_I8;
	it.value = (uint64_t)-128;
	CHECK_EQ_INT(kl_data_append(m, d, &it), KL_OK);
	it.value = 0xff;
	CHECK_EQ_INT(kl_data_append(m, d, &it), KL_OK);
	CHECK_EQ_INT(kl_data_num_items(m, d), 2);
	CHECK_EQ_INT(kl_data_item_at(m, d, 0).value, 0x80);
	kl_module_free(m);
}

/* keel.h: a STRING whose bytes are NULL with len > 0 is KL_ERR_INVALID
 * (not a copy from NULL); NULL with len 0 is the empty string. */
static void
test_data_string_null_bytes(void)
{
	kl_module *m = kl_module_new();
	kl_sym d;
	CHECK_EQ_INT(kl_module_add_data(m, "d", 1, true, 1, &d), KL_OK);
	kl_data_item it = { KL_DATA_STRING, KL_TYPE_I8, 0, KL_NO_SYM, NULL,
			    3 };
	CHECK_EQ_INT(kl_data_append(m, d, &it), KL_ERR_INVALID);
	CHECK_EQ_INT(kl_data_num_items(m, d), 0);
	it.len = 0;
	CHECK_EQ_INT(kl_data_append(m, d, &it), KL_OK);
	CHECK_EQ_INT(kl_data_size(m, d), 0);
	/* the type given is ignored: a string is bytes, and reads back as
	 * i8 before a print and parse as after (it read back i16) */
	kl_data_item wide = { KL_DATA_STRING, KL_TYPE_I16, 0, KL_NO_SYM,
			      "ab", 2 };
	CHECK_EQ_INT(kl_data_append(m, d, &wide), KL_OK);
	CHECK_EQ_INT(kl_data_item_at(m, d, 1).type, KL_TYPE_I8);
	kl_module_free(m);
}

/* keel.h: kl_inst_set_dest is KL_ERR_INVALID for a block that does not
 * exist, a number below kl_func_block_bound included: the text numbers
 * blocks, so block1 and block2 here leave block0 out. */
static void
test_set_dest_to_missing_block(void)
{
	kl_module *m;
	kl_func *f = parsed_f("function %f() {\n"
			      "block1:\n"
			      "    jump block2\n"
			      "block2:\n"
			      "    return\n"
			      "}\n", &m);
	CHECK(f != NULL);
	if (!f)
		return;
	CHECK(kl_func_block_bound(f) > 2);
	kl_inst jmp = kl_block_first_inst(f, kl_func_first_block(f));
	kl_block_call to0 = { (kl_block){ 0 }, NULL, 0 };
	CHECK_EQ_INT(kl_inst_set_dest(f, jmp, 0, to0), KL_ERR_INVALID);
	CHECK_EQ_INT(kl_inst_dest(f, jmp, 0).id, 2);
	CHECK_EQ_INT(kl_verify_func(f, NULL, NULL), KL_OK);
	kl_module_free(m);
}

/* kl_print_value writes a value as the text does, vN with the IR's own
 * number (it takes no options: not renumbered), an alias under its own
 * name as an operand shows it, and appends to what out holds. */
static void
test_print_value(void)
{
	kl_module *m;
	kl_func *f = parsed_f("function %f(i32) -> i32 {\n"
			      "block0(v0: i32):\n"
			      "    v1 -> v0\n"
			      "    v17 = iadd v0, v1\n"
			      "    return v17\n"
			      "}\n", &m);
	CHECK(f != NULL);
	if (!f)
		return;
	kl_buf out = { 0 };
	kl_buf_puts(&out, "x = ");
	kl_print_value(f, (kl_value){ 17 }, &out);
	CHECK_EQ_STR(out.data, "x = v17");
	kl_buf_reset(&out);
	kl_print_value(f, (kl_value){ 1 }, &out);
	CHECK_EQ_STR(out.data, "v1");
	/* an instruction's text from its pieces, as kl_print_inst has it */
	kl_inst add = kl_value_def_inst(f, (kl_value){ 17 });
	kl_buf whole = { 0 };
	kl_print_inst(f, add, &whole);
	kl_buf_reset(&out);
	kl_print_value(f, kl_inst_result(f, add, 0), &out);
	kl_buf_puts(&out, " = iadd ");
	kl_print_value(f, kl_inst_arg(f, add, 0), &out);
	kl_buf_puts(&out, ", ");
	kl_print_value(f, kl_inst_arg(f, add, 1), &out);
	CHECK_EQ_STR(out.data, whole.data);
	CHECK_EQ_STR(whole.data, "v17 = iadd v0, v1");
	kl_buf_free(&whole);
	kl_buf_free(&out);
	kl_module_free(m);
}

/* Successor edge i of a block is destination i of its terminator, a
 * br_table's default first: the arguments of each edge are read off it,
 * and two edges to one block stay apart (keel.h promises this). */
static void
test_succ_edge_is_dest(void)
{
	kl_module *m;
	kl_func *f = parsed_f("function %f(i32, i32) -> i32 {\n"
			      "block0(v0: i32, v1: i32):\n"
			      "    br_table v0, block1(v1), [block2, block1(v0)]\n"
			      "block1(v2: i32):\n"
			      "    return v2\n"
			      "block2:\n"
			      "    return v0\n"
			      "}\n", &m);
	CHECK(f != NULL);
	if (!f)
		return;
	kl_cfg *cfg = kl_cfg_new();
	kl_cfg_compute(cfg, f);
	kl_block b0 = kl_func_first_block(f);
	CHECK_EQ_INT(kl_cfg_num_succs(cfg, b0), 3);
	const uint32_t target[] = { 1, 2, 1 }, arg[] = { 1, KL_NONE, 0 };
	for (uint32_t i = 0; i < 3; i++) {
		kl_cfg_edge e = kl_cfg_succ_edge(cfg, b0, i);
		CHECK_EQ_INT(e.block.id, target[i]);
		CHECK_EQ_INT(kl_inst_dest(f, e.inst, i).id, target[i]);
		CHECK_EQ_INT(kl_inst_dest_arg(f, e.inst, i, 0).id, arg[i]);
	}
	kl_cfg_free(cfg);
	kl_module_free(m);
}

/*
 * A function whose numbers a pass left sparse: its only block is
 * block1100000, past the parser's budget for so short a text. As it is,
 * the text does not read back; renumbered it does, as block0, and
 * renumbering that text again changes nothing.
 */
static void
test_print_renumbered(void)
{
	kl_module *m = kl_module_new();
	const kl_type i32 = KL_TYPE_I32;
	kl_signature sig = { .params = &i32, .num_params = 1,
			     .results = &i32, .num_results = 1 };
	kl_func *f;
	CHECK_EQ_INT(kl_module_add_func(m, "f", 1, &sig, &f), KL_OK);
	for (uint32_t k = 0; k < 1100000; k++)
		kl_func_new_block(f); /* never placed: never printed */
	kl_block b = kl_func_new_block(f);
	kl_func_append_block(f, b);
	kl_value x = kl_block_append_param(f, b, i32);
	kl_builder bld;
	kl_builder_init(&bld, f);
	kl_builder_at_end(&bld, b);
	kl_value y = kl_build_binary_imm(&bld, KL_OP_IADD_IMM, x, 1);
	kl_build_return(&bld, &y, 1);
	CHECK_EQ_INT(kl_builder_status(&bld), KL_OK);
	CHECK_EQ_INT(kl_verify_func(f, NULL, NULL), KL_OK);

	kl_buf plain = { 0 }, renumbered = { 0 }, again = { 0 };
	kl_print_module(m, NULL, &plain);
	CHECK(strstr(plain.data, "block1100000(v0: i32):") != NULL);
	kl_module *back = NULL;
	kl_diags d = { 0 };
	CHECK_EQ_INT(kl_parse_module(plain.data, plain.len, NULL, &back, &d),
		     KL_ERR_PARSE);
	kl_diags_free(&d);

	kl_print_options ro = { .renumber = true };
	kl_print_module(m, &ro, &renumbered);
	CHECK_EQ_STR(renumbered.data, "function %f(i32) -> i32 {\n"
				      "block0(v0: i32):\n"
				      "    v1 = iadd_imm v0, 1\n"
				      "    return v1\n"
				      "}\n");
	CHECK_EQ_INT(kl_parse_module(renumbered.data, renumbered.len, NULL,
				     &back, &d),
		     KL_OK);
	if (back) {
		kl_print_module(back, &ro, &again);
		CHECK_EQ_STR(again.data, renumbered.data);
	}
	kl_diags_free(&d);
	kl_module_free(back);
	kl_buf_free(&plain);
	kl_buf_free(&renumbered);
	kl_buf_free(&again);
	kl_module_free(m);
}

/* A parameter's place in its block, placed or not; none for a result, a
 * removed parameter or no value. */
static void
test_value_param_index(void)
{
	kl_module *m;
	kl_func *f = parsed_f("function %f(i32, i64) -> i32 {\n"
			      "block0(v0: i32, v1: i64):\n"
			      "    jump block1(v0, v1)\n"
			      "block1(v2: i32, v3: i64):\n"
			      "    v4 = iadd_imm v2, 1\n"
			      "    return v4\n"
			      "}\n", &m);
	CHECK(f != NULL);
	if (!f)
		return;
	kl_block b = KL_NO_BLOCK;
	CHECK_EQ_INT(kl_value_param_index(f, (kl_value){ 1 }, &b), 1);
	CHECK_EQ_INT(b.id, 0);
	CHECK_EQ_INT(kl_value_param_index(f, (kl_value){ 3 }, &b), 1);
	CHECK_EQ_INT(b.id, 1);
	CHECK_EQ_INT(kl_value_param_index(f, (kl_value){ 2 }, NULL), 0);
	CHECK_EQ_INT(kl_value_param_index(f, (kl_value){ 4 }, NULL), KL_NONE);
	CHECK_EQ_INT(kl_value_param_index(f, (kl_value){ 99 }, NULL), KL_NONE);
	/* a block taken out of the layout keeps its parameters */
	kl_block fresh = kl_func_new_block(f);
	kl_value p = kl_block_append_param(f, fresh, KL_TYPE_I8);
	CHECK_EQ_INT(kl_value_param_index(f, p, &b), 0);
	CHECK_EQ_INT(b.id, fresh.id);
	/* a removed parameter is in no list */
	kl_value gone = { 3 };
	CHECK_EQ_INT(kl_func_remove_params(f, &gone, 1), KL_OK);
	CHECK_EQ_INT(kl_value_param_index(f, gone, NULL), KL_NONE);
	CHECK_EQ_INT(kl_value_param_index(f, (kl_value){ 2 }, NULL), 0);
	kl_module_free(m);
}

/* Closed: a terminator last. Open: empty, code without one, or code
 * after one moved away; and no block at all. */
static void
test_block_is_terminated(void)
{
	kl_module *m;
	kl_func *f = parsed_f("function %f(i32) -> i32 {\n"
			      "block0(v0: i32):\n"
			      "    v1 = iadd_imm v0, 1\n"
			      "    return v1\n"
			      "}\n", &m);
	CHECK(f != NULL);
	if (!f)
		return;
	kl_block b0 = kl_func_first_block(f);
	CHECK(kl_block_is_terminated(f, b0));
	kl_block fresh = kl_func_new_block(f);
	CHECK(!kl_block_is_terminated(f, fresh));
	kl_func_append_block(f, fresh);
	kl_builder b;
	kl_builder_init(&b, f);
	kl_builder_at_end(&b, fresh);
	kl_build_iconst(&b, KL_TYPE_I32, 3);
	CHECK(!kl_block_is_terminated(f, fresh));
	kl_value r = kl_build_iconst(&b, KL_TYPE_I32, 4);
	kl_build_return(&b, &r, 1);
	CHECK(kl_block_is_terminated(f, fresh));
	/* code appended after the terminator leaves the block open */
	kl_build_iconst(&b, KL_TYPE_I32, 5);
	CHECK(!kl_block_is_terminated(f, fresh));
	CHECK(!kl_block_is_terminated(f, KL_NO_BLOCK));
	CHECK(!kl_block_is_terminated(f, (kl_block){ 999 }));
	kl_module_free(m);
}

int
main(void)
{
	UNIT_RUN(test_insert_block_after_unplaced);
	UNIT_RUN(test_insert_block_before);
	UNIT_RUN(test_new_entry_before_loop_header);
	UNIT_RUN(test_move_block);
	UNIT_RUN(test_make_entry);
	UNIT_RUN(test_resolve_aliases);
	UNIT_RUN(test_replace_uses);
	UNIT_RUN(test_inst_fields);
	UNIT_RUN(test_unused_alias_to_removed);
	UNIT_RUN(test_operand_setters);
	UNIT_RUN(test_set_arg_of_other_type);
	UNIT_RUN(test_remove_block);
	UNIT_RUN(test_uses);
	UNIT_RUN(test_remove_param);
	UNIT_RUN(test_remove_param_past_end);
	UNIT_RUN(test_move_inst);
	UNIT_RUN(test_move_aliased_result_refused);
	UNIT_RUN(test_name_format);
	UNIT_RUN(test_set_dest);
	UNIT_RUN(test_remove_params);
	UNIT_RUN(test_append_dest_arg);
	UNIT_RUN(test_clone_inst);
	UNIT_RUN(test_alias_of_hole_takes_type);
	UNIT_RUN(test_clone_branch_lists);
	UNIT_RUN(test_alias_through_removed_param_keeps_type);
	UNIT_RUN(test_unused_alias_to_removed_param);
	UNIT_RUN(test_queries_on_none);
	UNIT_RUN(test_queries_at_bounds);
	UNIT_RUN(test_sigref_signature);
	UNIT_RUN(test_variadic_without_types);
	UNIT_RUN(test_null_out);
	UNIT_RUN(test_sigref_checks_arrays);
	UNIT_RUN(test_null_sinks);
	UNIT_RUN(test_huge_string_is_range);
	UNIT_RUN(test_name_past_store_is_range);
	UNIT_RUN(test_alternate_data_appends);
	UNIT_RUN(test_data_values_print_signed);
	UNIT_RUN(test_data_spellings_parse_alike);
	UNIT_RUN(test_render_long_line_window_edge);
	UNIT_RUN(test_render_window_whole_characters);
	UNIT_RUN(test_render_line_edges);
	UNIT_RUN(test_parse_return_hint_only_bare);
	UNIT_RUN(test_parse_missing_brace_column);
	UNIT_RUN(test_version);
	UNIT_RUN(test_struct_size);
	UNIT_RUN(test_op_lookup);
	UNIT_RUN(test_pointers_outlive_growth);
	UNIT_RUN(test_insert_cost_is_bounded);
	UNIT_RUN(test_append_past_last_number);
	UNIT_RUN(test_builder_keeps_first_error);
	UNIT_RUN(test_builder_before_sets_block);
	UNIT_RUN(test_builder_unary_type);
	UNIT_RUN(test_operand_count_limit);
	UNIT_RUN(test_set_dest_argument_limit);
	UNIT_RUN(test_precedes_is_strict);
	UNIT_RUN(test_type_and_opcode_past_the_tables);
	UNIT_RUN(test_sig_types_checked);
	UNIT_RUN(test_data_symref_at_bound);
	UNIT_RUN(test_data_append_refusals);
	UNIT_RUN(test_data_value_width);
	UNIT_RUN(test_data_string_null_bytes);
	UNIT_RUN(test_set_dest_to_missing_block);
	UNIT_RUN(test_block_is_terminated);
	UNIT_RUN(test_value_param_index);
	UNIT_RUN(test_print_renumbered);
	UNIT_RUN(test_print_value);
	UNIT_RUN(test_succ_edge_is_dest);
	UNIT_RUN(test_pass_report_counters);
	UNIT_RUN(test_pass_report_full);
	return unit_report("api");
}
