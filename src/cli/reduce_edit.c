/*
 * reduce_edit.c -- the edits `keel reduce` tries (reduce.h). Each works on
 * a module fresh from the text being reduced, and takes out what the
 * elements it is given stand for; whether the result still verifies, and
 * is still interesting, is the caller's question.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "reduce.h"

/* A br_table offers jumps to its first destinations only: one of a
 * million entries each a test would take the reduction hours. */
#define MAX_TABLE_CHOICES 8

static const char *const kind_names[REDUCE_KINDS] = {
	[REDUCE_STUB] = "stubs",
	[REDUCE_INSTS] = "insts",
	[REDUCE_PARAMS] = "params",
	[REDUCE_TERMS] = "branches",
	[REDUCE_CLEAN] = "cleanup",
};

const char *
reduce_kind_name(reduce_kind kind)
{
	return kind_names[kind];
}

static bool
is_zero_const(const kl_func *f, kl_inst i)
{
	kl_opcode op = kl_inst_opcode(f, i);
	return (op == KL_OP_ICONST || op == KL_OP_F32CONST ||
		op == KL_OP_F64CONST) && kl_inst_imm(f, i) == 0;
}

/* The zeros an edit of one function made, one per type, at the top of
 * its entry block. */
typedef struct zeros {
	kl_func *func;
	kl_type types[16];
	kl_value values[16];
	uint32_t n;
	bool failed;
} zeros;

static kl_value
zero_of(zeros *z, kl_func *f, kl_type t)
{
	if (z->func != f) {
		/* The zeros an earlier edit left at the top serve again. */
		z->func = f;
		z->n = 0;
		kl_block entry = kl_func_first_block(f);
		for (kl_inst i = kl_block_first_inst(f, entry);
		     i.id != KL_NONE && is_zero_const(f, i) && z->n < 16;
		     i = kl_inst_next(f, i)) {
			kl_value v = kl_inst_result(f, i, 0);
			z->types[z->n] = kl_value_type(f, v);
			z->values[z->n++] = v;
		}
	}
	for (uint32_t k = 0; k < z->n; k++)
		if (z->types[k] == t)
			return z->values[k];
	kl_builder b;
	kl_builder_init(&b, f);
	kl_block entry = kl_func_first_block(f);
	kl_inst first = kl_block_first_inst(f, entry);
	if (first.id == KL_NONE)
		kl_builder_at_end(&b, entry);
	else
		kl_builder_before(&b, first);
	kl_module *m = kl_func_module(f);
	kl_value v;
	if (kl_type_class(m, t) == KL_TYPE_F32)
		v = kl_build_f32const(&b, 0);
	else if (kl_type_class(m, t) == KL_TYPE_F64)
		v = kl_build_f64const(&b, 0);
	else
		v = kl_build_iconst(&b, t, 0);
	if (kl_builder_status(&b) != KL_OK) {
		z->failed = true;
		return v;
	}
	/* More than 16 types in one function: only the last ones are
	 * remembered, and a type made again costs a constant more. */
	uint32_t k = z->n < 16 ? z->n++ : 15;
	z->types[k] = t;
	z->values[k] = v;
	return v;
}

/* Make v, which now defines nothing, read a zero of its type. */
static void
zero_value(zeros *z, kl_func *f, kl_value v)
{
	kl_value zero = zero_of(z, f, kl_value_type(f, v));
	if (!z->failed && kl_value_set_alias(f, v, zero) != KL_OK)
		z->failed = true;
}

/* Append `return 0, ...` of f's results to block b. */
static void
return_zeros(zeros *z, kl_func *f, kl_block b)
{
	kl_signature sig = kl_func_signature(f);
	kl_value *vals = cli_alloc(sig.num_results + 1, sizeof *vals);
	for (uint32_t k = 0; k < sig.num_results; k++)
		vals[k] = zero_of(z, f, sig.results[k]);
	kl_builder bld;
	kl_builder_init(&bld, f);
	kl_builder_at_end(&bld, b);
	kl_build_return(&bld, vals, sig.num_results);
	if (kl_builder_status(&bld) != KL_OK)
		z->failed = true;
	free(vals);
}

/* Is f's body one block of zero constants and a return? */
static bool
is_stub(const kl_func *f)
{
	kl_block entry = kl_func_first_block(f);
	if (kl_block_next(f, entry).id != KL_NONE)
		return false;
	kl_inst last = kl_block_last_inst(f, entry);
	for (kl_inst i = kl_block_first_inst(f, entry); i.id != last.id;
	     i = kl_inst_next(f, i))
		if (!is_zero_const(f, i))
			return false;
	return last.id != KL_NONE &&
	       kl_op_is_return(kl_inst_opcode(f, last));
}

static void
make_stub(zeros *z, kl_func *f)
{
	kl_block entry = kl_func_first_block(f);
	kl_block b = kl_block_next(f, entry);
	while (b.id != KL_NONE) {
		kl_block next = kl_block_next(f, b);
		kl_func_remove_block(f, b);
		b = next;
	}
	kl_inst i = kl_block_first_inst(f, entry);
	while (i.id != KL_NONE) {
		kl_inst next = kl_inst_next(f, i);
		kl_inst_remove(f, i);
		i = next;
	}
	return_zeros(z, f, entry);
}

/* Does the return i give back something other than zeros? */
static bool
returns_more_than_zeros(const kl_func *f, kl_inst i)
{
	for (uint32_t k = 0; k < kl_inst_num_args(f, i); k++) {
		kl_value v = kl_value_resolve(f, kl_inst_arg(f, i, k));
		kl_inst def = kl_value_def_inst(f, v);
		if (def.id == KL_NONE || !is_zero_const(f, def))
			return true;
	}
	return false;
}

/* The choices terminator i offers: jumps to its first destinations (a
 * jump's own is none), then a return of zeros. */
static uint32_t
term_choices(const kl_func *f, kl_inst i)
{
	switch (kl_inst_opcode(f, i)) {
	case KL_OP_JUMP:
		return 1;
	case KL_OP_BRIF:
		return 3;
	case KL_OP_BR_TABLE: {
		uint32_t n = kl_inst_num_dests(f, i);
		return (n < MAX_TABLE_CHOICES ? n : MAX_TABLE_CHOICES) + 1;
	}
	case KL_OP_RETURN:
		return returns_more_than_zeros(f, i) ? 1 : 0;
	default:
		return 0;
	}
}

/* Take out the blocks the entry no longer reaches. */
static void
remove_unreachable(kl_func *f)
{
	uint32_t bound = kl_func_block_bound(f);
	bool *seen = cli_alloc(bound + 1, sizeof *seen);
	kl_block *stack = cli_alloc(bound + 1, sizeof *stack);
	uint32_t top = 0;
	kl_block entry = kl_func_first_block(f);
	seen[entry.id] = true;
	stack[top++] = entry;
	while (top) {
		kl_block b = stack[--top];
		kl_inst t = kl_block_last_inst(f, b);
		if (t.id == KL_NONE)
			continue;
		for (uint32_t d = 0; d < kl_inst_num_dests(f, t); d++) {
			kl_block to = kl_inst_dest(f, t, d);
			if (to.id < bound && !seen[to.id]) {
				seen[to.id] = true;
				stack[top++] = to;
			}
		}
	}
	kl_block b = kl_block_next(f, entry);
	while (b.id != KL_NONE) {
		kl_block next = kl_block_next(f, b);
		if (!seen[b.id])
			kl_func_remove_block(f, b);
		b = next;
	}
	free(stack);
	free(seen);
}

/* Replace terminator i by its choice c (term_choices). */
static void
choose_term(zeros *z, kl_func *f, kl_inst i, uint32_t c)
{
	kl_block b = kl_inst_block(f, i);
	uint32_t jumps = term_choices(f, i) - 1;
	if (c < jumps) {
		uint32_t n = kl_inst_dest_num_args(f, i, c);
		kl_value *args = cli_alloc(n + 1, sizeof *args);
		for (uint32_t k = 0; k < n; k++)
			args[k] = kl_inst_dest_arg(f, i, c, k);
		kl_block_call to = { kl_inst_dest(f, i, c), args, n };
		kl_builder bld;
		kl_builder_init(&bld, f);
		kl_builder_before(&bld, i);
		kl_build_jump(&bld, to);
		if (kl_builder_status(&bld) != KL_OK)
			z->failed = true;
		free(args);
		kl_inst_remove(f, i);
	} else {
		kl_inst_remove(f, i);
		return_zeros(z, f, b);
	}
	remove_unreachable(f);
}

/* The parameters of f's blocks but the entry's, from element *n on, that
 * fall in [from, to): removed, and made zeros. */
static void
drop_params(zeros *z, kl_func *f, uint32_t *n, uint32_t from, uint32_t to)
{
	kl_value *vals = NULL;
	uint32_t cap = 0, len = 0;
	kl_block entry = kl_func_first_block(f);
	for (kl_block b = kl_block_next(f, entry); b.id != KL_NONE;
	     b = kl_block_next(f, b))
		for (uint32_t k = 0; k < kl_block_num_params(f, b); k++) {
			uint32_t at = (*n)++;
			if (at < from || at >= to)
				continue;
			cli_grow(&vals, &cap, sizeof *vals, len + 1);
			vals[len++] = kl_block_param(f, b, k);
		}
	if (len && kl_func_remove_params(f, vals, len) != KL_OK)
		z->failed = true;
	for (uint32_t k = 0; k < len && !z->failed; k++)
		zero_value(z, f, vals[k]);
	free(vals);
}

/* The instructions of f, from element *n on, that fall in [from, to):
 * removed, and their results made zeros. */
static void
drop_insts(zeros *z, kl_func *f, uint32_t *n, uint32_t from, uint32_t to)
{
	kl_inst *insts = NULL;
	uint32_t cap = 0, len = 0;
	for (kl_block b = kl_func_first_block(f); b.id != KL_NONE;
	     b = kl_block_next(f, b))
		for (kl_inst i = kl_block_first_inst(f, b); i.id != KL_NONE;
		     i = kl_inst_next(f, i)) {
			if (kl_op_is_terminator(kl_inst_opcode(f, i)) ||
			    is_zero_const(f, i))
				continue;
			uint32_t at = (*n)++;
			if (at < from || at >= to)
				continue;
			cli_grow(&insts, &cap, sizeof *insts, len + 1);
			insts[len++] = i;
		}
	for (uint32_t k = 0; k < len; k++)
		kl_inst_remove(f, insts[k]);
	for (uint32_t k = 0; k < len && !z->failed; k++)
		for (uint32_t r = 0; r < kl_inst_num_results(f, insts[k]); r++)
			zero_value(z, f, kl_inst_result(f, insts[k], r));
	free(insts);
}

/* Take out the zero constants nothing uses (an edit makes a zero for
 * every result it takes, used or not: the text is to get shorter). */
static void
drop_unused_zeros(kl_func *f)
{
	kl_func_resolve_aliases(f);
	uint32_t bound = kl_func_value_bound(f);
	bool *used = cli_alloc(bound + 1, sizeof *used);
	for (kl_block b = kl_func_first_block(f); b.id != KL_NONE;
	     b = kl_block_next(f, b))
		for (kl_inst i = kl_block_first_inst(f, b); i.id != KL_NONE;
		     i = kl_inst_next(f, i)) {
			for (uint32_t k = 0; k < kl_inst_num_args(f, i); k++)
				used[kl_inst_arg(f, i, k).id % (bound + 1)] =
					true;
			for (uint32_t d = 0; d < kl_inst_num_dests(f, i); d++)
				for (uint32_t k = 0;
				     k < kl_inst_dest_num_args(f, i, d); k++)
					used[kl_inst_dest_arg(f, i, d, k).id %
					     (bound + 1)] = true;
		}
	for (kl_block b = kl_func_first_block(f); b.id != KL_NONE;
	     b = kl_block_next(f, b)) {
		kl_inst i = kl_block_first_inst(f, b);
		while (i.id != KL_NONE) {
			kl_inst next = kl_inst_next(f, i);
			if (is_zero_const(f, i) &&
			    !used[kl_inst_result(f, i, 0).id % (bound + 1)])
				kl_inst_remove(f, i);
			i = next;
		}
	}
	free(used);
}

static void
clean(kl_func *f)
{
	kl_status (*const passes[])(kl_func *, kl_pass_report *) = {
		kl_sccp_func, kl_cse_func, kl_dce_func, kl_simplify_func,
	};
	for (size_t k = 0; k < sizeof passes / sizeof *passes; k++) {
		kl_pass_report r = { .input_verified = true };
		passes[k](f, &r);
		kl_pass_report_free(&r);
	}
}

/*
 * One walk serves both questions: with from == to == UINT32_MAX it only
 * counts; otherwise it edits the elements in [from, to) as it meets
 * them. Returns the count (of elements before the edits).
 */
static uint32_t
walk(kl_module *m, reduce_kind kind, uint32_t from, uint32_t to, bool *ok)
{
	zeros z = { 0 };
	uint32_t n = 0;
	bool edit = from != UINT32_MAX;
	for (uint32_t s = 0; s < kl_module_num_syms(m); s++) {
		kl_func *f = kl_sym_func(m, (kl_sym){ s });
		if (!f)
			continue;
		switch (kind) {
		case REDUCE_STUB:
			if (is_stub(f))
				break;
			if (edit && n >= from && n < to)
				make_stub(&z, f);
			n++;
			break;
		case REDUCE_INSTS: /* (counting: [from, to) is empty) */
			drop_insts(&z, f, &n, from, to);
			break;
		case REDUCE_PARAMS:
			drop_params(&z, f, &n, from, to);
			break;
		case REDUCE_TERMS:
			for (kl_block b = kl_func_first_block(f);
			     b.id != KL_NONE; b = kl_block_next(f, b)) {
				kl_inst t = kl_block_last_inst(f, b);
				uint32_t c = t.id == KL_NONE
						     ? 0 : term_choices(f, t);
				if (edit && from >= n && from < n + c) {
					choose_term(&z, f, t, from - n);
					edit = false;
				}
				n += c;
			}
			break;
		case REDUCE_CLEAN:
			if (edit)
				clean(f);
			n = 1;
			break;
		case REDUCE_KINDS:
			break;
		}
		if (from != UINT32_MAX)
			drop_unused_zeros(f);
	}
	*ok = !z.failed;
	return n;
}

uint32_t
reduce_count(kl_module *m, reduce_kind kind)
{
	bool ok;
	return walk(m, kind, UINT32_MAX, UINT32_MAX, &ok);
}

bool
reduce_apply(kl_module *m, reduce_kind kind, uint32_t from, uint32_t to)
{
	bool ok;
	walk(m, kind, from, to, &ok);
	return ok;
}
