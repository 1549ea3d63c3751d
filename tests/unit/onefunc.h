/*
 * onefunc.h -- for unit tests that build IR through the public API: a
 * module holding one function %f() with one block in its layout, and a
 * builder appending to that block.
 */
#ifndef KEEL_ONEFUNC_H
#define KEEL_ONEFUNC_H

#include "keel.h"
#include "unit.h"

/* The module (free it), its function in *f, the block in *b0. */
static inline kl_module *
one_block_func(kl_func **f, kl_block *b0, kl_builder *b)
{
	kl_module *m = kl_module_new();
	kl_signature sig = { 0 };
	CHECK(kl_module_add_func(m, "f", 1, &sig, f) == KL_OK);
	*b0 = kl_func_new_block(*f);
	CHECK(kl_func_append_block(*f, *b0) == KL_OK);
	kl_builder_init(b, *f);
	kl_builder_at_end(b, *b0);
	return m;
}

#endif
