/*
 * types.c -- the per-module type table.
 *
 * Handles 0..5 are the machine types, 6..14 the refined integers (signed,
 * unsigned, pointer: docs/ir.md). Later semantic types (typedefs, structs,
 * pointer-to-T) will be appended to the same table; each records its
 * machine class, and every query the IR core makes goes through
 * kl_type_class, so instructions never need to know which kind of type a
 * value has.
 */
#include "ir.h"

static const kl_type_data builtin_types[KL_TYPE_BUILTIN_COUNT] = {
	[KL_TYPE_I8] = { TK_INT, KL_TYPE_I8, 1, KL_REFINE_NONE, "i8" },
	[KL_TYPE_I16] = { TK_INT, KL_TYPE_I16, 2, KL_REFINE_NONE, "i16" },
	[KL_TYPE_I32] = { TK_INT, KL_TYPE_I32, 4, KL_REFINE_NONE, "i32" },
	[KL_TYPE_I64] = { TK_INT, KL_TYPE_I64, 8, KL_REFINE_NONE, "i64" },
	[KL_TYPE_F32] = { TK_FLOAT, KL_TYPE_F32, 4, KL_REFINE_NONE, "f32" },
	[KL_TYPE_F64] = { TK_FLOAT, KL_TYPE_F64, 8, KL_REFINE_NONE, "f64" },
	[KL_TYPE_S8] = { TK_INT, KL_TYPE_I8, 1, KL_REFINE_SIGNED, "s8" },
	[KL_TYPE_S16] = { TK_INT, KL_TYPE_I16, 2, KL_REFINE_SIGNED, "s16" },
	[KL_TYPE_S32] = { TK_INT, KL_TYPE_I32, 4, KL_REFINE_SIGNED, "s32" },
	[KL_TYPE_S64] = { TK_INT, KL_TYPE_I64, 8, KL_REFINE_SIGNED, "s64" },
	[KL_TYPE_U8] = { TK_INT, KL_TYPE_I8, 1, KL_REFINE_UNSIGNED, "u8" },
	[KL_TYPE_U16] = { TK_INT, KL_TYPE_I16, 2, KL_REFINE_UNSIGNED, "u16" },
	[KL_TYPE_U32] = { TK_INT, KL_TYPE_I32, 4, KL_REFINE_UNSIGNED, "u32" },
	[KL_TYPE_U64] = { TK_INT, KL_TYPE_I64, 8, KL_REFINE_UNSIGNED, "u64" },
	[KL_TYPE_PTR] = { TK_INT, KL_TYPE_I64, 8, KL_REFINE_POINTER, "ptr" },
};

void
module_init_types(kl_module *m)
{
	kl_grow(&m->types, &m->types_cap, sizeof *m->types,
		KL_TYPE_BUILTIN_COUNT);
	for (uint32_t i = 0; i < KL_TYPE_BUILTIN_COUNT; i++)
		m->types[i] = builtin_types[i];
	m->ntypes = KL_TYPE_BUILTIN_COUNT;
	m->ptr_type = KL_TYPE_I64;
}

static const kl_type_data *
type_data(const kl_module *m, kl_type t)
{
	if (t < KL_TYPE_BUILTIN_COUNT)
		return &builtin_types[t];
	if (!m || t >= m->ntypes)
		return NULL;
	return &m->types[t];
}

kl_type
kl_type_class(const kl_module *m, kl_type t)
{
	const kl_type_data *d = type_data(m, t);
	return d ? d->cls : KL_TYPE_NONE;
}

bool
kl_type_is_int(const kl_module *m, kl_type t)
{
	const kl_type_data *d = type_data(m, t);
	return d && d->kind == TK_INT;
}

bool
kl_type_is_float(const kl_module *m, kl_type t)
{
	const kl_type_data *d = type_data(m, t);
	return d && d->kind == TK_FLOAT;
}

uint32_t
kl_type_bytes(const kl_module *m, kl_type t)
{
	const kl_type_data *d = type_data(m, t);
	return d ? d->bytes : 0;
}

const char *
kl_type_name(const kl_module *m, kl_type t)
{
	const kl_type_data *d = type_data(m, t);
	return d ? d->name : "?";
}

kl_type
kl_module_pointer_type(const kl_module *m)
{
	return m->ptr_type;
}

kl_refinement
kl_type_refinement(const kl_module *m, kl_type t)
{
	const kl_type_data *d = type_data(m, t);
	return d ? (kl_refinement)d->refine : KL_REFINE_NONE;
}

kl_type
kl_type_refined(const kl_module *m, kl_type cls, kl_refinement r)
{
	if (!kl_type_is_int(m, cls) || kl_type_class(m, cls) != cls)
		return KL_TYPE_NONE;
	switch (r) {
	case KL_REFINE_NONE:
		return cls;
	case KL_REFINE_SIGNED:
		return KL_TYPE_S8 + (cls - KL_TYPE_I8);
	case KL_REFINE_UNSIGNED:
		return KL_TYPE_U8 + (cls - KL_TYPE_I8);
	case KL_REFINE_POINTER:
		return cls == (m ? m->ptr_type : KL_TYPE_I64) ? KL_TYPE_PTR
							     : KL_TYPE_NONE;
	}
	return KL_TYPE_NONE;
}
