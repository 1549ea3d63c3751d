/*
 * types.c -- the per-module type table.
 *
 * Handles 0..5 are the built-in machine types. Semantic types (typedefs,
 * structs, pointer-to-T, signedness kinds) will be appended to the same
 * table; each records its machine class, and every query the IR core makes
 * goes through kl_type_class, so instructions never need to know which
 * kind of type a value has.
 */
#include "ir.h"

static const kl_type_data builtin_types[KL_TYPE_BUILTIN_COUNT] = {
	[KL_TYPE_I8] = { TK_INT, KL_TYPE_I8, 1, "i8" },
	[KL_TYPE_I16] = { TK_INT, KL_TYPE_I16, 2, "i16" },
	[KL_TYPE_I32] = { TK_INT, KL_TYPE_I32, 4, "i32" },
	[KL_TYPE_I64] = { TK_INT, KL_TYPE_I64, 8, "i64" },
	[KL_TYPE_F32] = { TK_FLOAT, KL_TYPE_F32, 4, "f32" },
	[KL_TYPE_F64] = { TK_FLOAT, KL_TYPE_F64, 8, "f64" },
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
