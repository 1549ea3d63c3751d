/*
 * test_api.c -- unit tests of the public API's promises: error values
 * where keel.h names them, NULL where it allows it, pointers that stay
 * valid as long as it says, and costs that stay linear whatever order a
 * front end builds in.
 */
#include <stdlib.h>
#include <string.h>

#include "../../src/ir/ir.h"
#include "keel.h"
#include "unit.h"
#include "onefunc.h"

/* ---- blocks ---- */

/* keel.h: KL_ERR_POSITION when `after` is not in the layout, none and a
 * number that is no block included; KL_ERR_INVALID is for b itself. */
static void
test_insert_block_after_unplaced(void)
{
	kl_func *f;
	kl_block b0;
	kl_builder bld;
	kl_module *m = one_block_func(&f, &b0, &bld);
	kl_block nb = kl_func_new_block(f);
	kl_block loose = kl_func_new_block(f);
	CHECK_EQ_INT(kl_func_insert_block_after(f, nb, KL_NO_BLOCK),
		     KL_ERR_POSITION);
	CHECK_EQ_INT(kl_func_insert_block_after(f, nb, (kl_block){ 999 }),
		     KL_ERR_POSITION);
	CHECK_EQ_INT(kl_func_insert_block_after(f, nb, loose),
		     KL_ERR_POSITION);
	CHECK_EQ_INT(kl_func_insert_block_after(f, KL_NO_BLOCK, b0),
		     KL_ERR_INVALID);
	CHECK_EQ_INT(kl_func_insert_block_after(f, nb, b0), KL_OK);
	CHECK_EQ_INT(kl_func_insert_block_after(f, nb, b0), KL_ERR_INVALID);
	CHECK_EQ_INT(kl_block_next(f, b0).id, nb.id);
	kl_module_free(m);
}

/* ---- signatures ---- */

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
	/* The frees are no-ops on NULL, as free(NULL) is. */
	kl_diags_free(NULL);
	kl_buf_free(NULL);
	kl_pass_report_free(NULL);
	kl_module_free(NULL);
}

int
main(void)
{
	UNIT_RUN(test_insert_block_after_unplaced);
	UNIT_RUN(test_sigref_checks_arrays);
	UNIT_RUN(test_null_sinks);
	return unit_report("api");
}
