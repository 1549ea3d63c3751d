/*
 * typing.c -- type checking: the rule of the TYPING column of
 * keel_opcodes.def for every instruction, calls against signatures,
 * branches against their targets' parameters, returns and the entry block
 * against the function's signature.
 *
 * Types are compared by machine class (kl_type_class), so a semantic type
 * refined from i32 still checks as i32. docs/verifier.md writes every rule
 * out. An operand that is itself broken (undefined, out of range, a bad
 * alias) has class KL_TYPE_NONE; it was reported elsewhere, and rules that
 * need its type are skipped, so one mistake gives one error.
 *
 * Messages name the operand by its position and value, "arg 1 (v3)", as
 * the instruction's text shows it (args in text order, branch arguments
 * per destination), or "result (v4)".
 */
#include <stdio.h>
#include <string.h>

#include "verify.h"
#include "../text/text.h"

#define NONE KL_TYPE_NONE

static bool
is_int(kl_type c)
{
	return c <= KL_TYPE_I64;
}

static bool
is_float(kl_type c)
{
	return c == KL_TYPE_F32 || c == KL_TYPE_F64;
}

static uint32_t
bits_of(const verifier *vf, kl_type c)
{
	return kl_type_bytes(vf->m, c) * 8;
}

static kl_type
ptr_class(const verifier *vf)
{
	return type_class(vf->m, kl_module_pointer_type(vf->m));
}

/* The operand's name in messages: "arg 1 (v3)". */
static const char *
arg_name(char *buf, size_t cap, const inst_view *iv, uint32_t k)
{
	snprintf(buf, cap, "arg %u (v%u)", k, iv->args[k]);
	return buf;
}

/* Class of arg k, NONE if there is no such operand or it is broken. */
static kl_type
arg_class(const verifier *vf, const inst_view *iv, uint32_t k)
{
	return k < iv->nargs ? operand_class(vf, iv->args[k]) : NONE;
}

static kl_type
result_class(const verifier *vf, const inst_view *iv, uint32_t k)
{
	return k < iv->nresults ? operand_class(vf, iv->results[k]) : NONE;
}

static void
want_int_arg(verifier *vf, uint32_t i, const inst_view *iv, uint32_t k)
{
	kl_type c = arg_class(vf, iv, k);
	char n[48];
	if (c != NONE && !is_int(c))
		err_inst(vf, i, "%s has type %s, must be an integer",
			 arg_name(n, sizeof n, iv, k), tname(vf, c));
}

static void
want_float_arg(verifier *vf, uint32_t i, const inst_view *iv, uint32_t k)
{
	kl_type c = arg_class(vf, iv, k);
	char n[48];
	if (c != NONE && !is_float(c))
		err_inst(vf, i, "%s has type %s, must be a float",
			 arg_name(n, sizeof n, iv, k), tname(vf, c));
}

/* Arg k must have arg j's type. */
static void
want_same_args(verifier *vf, uint32_t i, const inst_view *iv, uint32_t k,
	       uint32_t j)
{
	kl_type ck = arg_class(vf, iv, k), cj = arg_class(vf, iv, j);
	char n[48], m[48];
	if (ck != NONE && cj != NONE && ck != cj)
		err_inst(vf, i, "%s has type %s, must be %s like %s",
			 arg_name(n, sizeof n, iv, k), tname(vf, ck),
			 tname(vf, cj), arg_name(m, sizeof m, iv, j));
}

/* The result must have type want. */
static void
want_result(verifier *vf, uint32_t i, const inst_view *iv, kl_type want,
	    const char *why)
{
	kl_type c = result_class(vf, iv, 0);
	if (c != NONE && want != NONE && c != want)
		err_inst(vf, i, "result (v%u) has type %s, must be %s%s",
			 iv->results[0], tname(vf, c), tname(vf, want), why);
}

/* The result must have arg k's type (the message is made on failure). */
static void
want_result_like_arg(verifier *vf, uint32_t i, const inst_view *iv,
		     uint32_t k)
{
	kl_type c = result_class(vf, iv, 0), want = arg_class(vf, iv, k);
	char n[48];
	if (c != NONE && want != NONE && c != want)
		err_inst(vf, i, "result (v%u) has type %s, must be %s like %s",
			 iv->results[0], tname(vf, c), tname(vf, want),
			 arg_name(n, sizeof n, iv, k));
}

static void
want_result_kind(verifier *vf, uint32_t i, const inst_view *iv, bool flt)
{
	kl_type c = result_class(vf, iv, 0);
	if (c != NONE && (flt ? !is_float(c) : !is_int(c)))
		err_inst(vf, i, "result (v%u) has type %s, must be %s",
			 iv->results[0], tname(vf, c),
			 flt ? "a float" : "an integer");
}

/*
 * Arg 0 of class int (or float, flt); args 1 .. nsame-1 and, with
 * result, the result of its type. When arg 0 is not of the class,
 * comparing the others with it would ask for the wrong fix ("must be f32
 * like arg 0" in an iadd), so each is held to the class alone: a second
 * wrong operand is still reported, once per value, and a result that
 * merely took arg 0's type (as parsed text always does) is not.
 */
static void
want_class_same(verifier *vf, uint32_t i, const inst_view *iv, bool flt,
		uint32_t nsame, bool result)
{
	kl_type c0 = arg_class(vf, iv, 0);
	bool ok0 = c0 == NONE || (flt ? is_float(c0) : is_int(c0));
	if (flt)
		want_float_arg(vf, i, iv, 0);
	else
		want_int_arg(vf, i, iv, 0);
	for (uint32_t k = 1; k < nsame && k < iv->nargs; k++) {
		bool again = false;
		for (uint32_t j = 0; j < k; j++)
			again |= iv->args[j] == iv->args[k];
		if (ok0)
			want_same_args(vf, i, iv, k, 0);
		else if (again)
			continue;
		else if (flt)
			want_float_arg(vf, i, iv, k);
		else
			want_int_arg(vf, i, iv, k);
	}
	if (!result)
		return;
	if (ok0)
		want_result_like_arg(vf, i, iv, 0);
	else if (result_class(vf, iv, 0) != c0)
		want_result_kind(vf, i, iv, flt);
}

/* ---- immediates ---- */

static void
check_imm(verifier *vf, uint32_t i, kl_type c)
{
	int64_t imm = inst_imm(vf->f, i);
	if (c == NONE || !is_int(c))
		return;
	uint32_t bits = bits_of(vf, c);
	if (!kl_int_fits(imm, bits)) {
		/* Decimal, and as the listing shows it when that differs. */
		kl_buf b = { 0 };
		kl_buf_printf(&b, "%lld", (long long)imm);
		size_t dec = b.len;
		kl_buf_puts(&b, " (");
		fmt_int(&b, imm, 64);
		if (b.len - dec - 2 == dec &&
		    memcmp(b.data + dec + 2, b.data, dec) == 0)
			b.data[dec] = 0;
		else
			kl_buf_putc(&b, ')');
		err_inst(vf, i, "immediate %s does not fit in %s", b.data,
			 tname(vf, c));
		kl_buf_free(&b);
		return;
	}
	if (imm_divides_by_zero(vf->f->insts[i].op, imm, bits))
		err_inst(vf, i, "%s by zero: the immediate divisor must "
			 "not be 0", opname(vf, i));
}

/* ---- conversions ---- */

static void
check_conversion(verifier *vf, uint32_t i, const inst_view *iv,
		 kl_typing ty)
{
	kl_type a = arg_class(vf, iv, 0), r = result_class(vf, iv, 0);
	switch (ty) {
	case KL_TY_EXTEND:
	case KL_TY_REDUCE:
		want_int_arg(vf, i, iv, 0);
		want_result_kind(vf, i, iv, false);
		if (a == NONE || r == NONE || !is_int(a) || !is_int(r))
			return;
		if (ty == KL_TY_EXTEND && bits_of(vf, r) <= bits_of(vf, a))
			err_inst(vf, i, "result (v%u) has type %s, must be "
				 "wider than %s", iv->results[0], tname(vf, r),
				 tname(vf, a));
		if (ty == KL_TY_REDUCE && bits_of(vf, r) >= bits_of(vf, a))
			err_inst(vf, i, "result (v%u) has type %s, must be "
				 "narrower than %s", iv->results[0],
				 tname(vf, r), tname(vf, a));
		return;
	case KL_TY_BITCAST: {
		if (a == NONE || r == NONE)
			return;
		/* the types themselves, refined or not */
		kl_type rtype = value_type(vf->f, iv->results[0]);
		kl_type atype = value_type(vf->f, resolved(vf, iv->args[0]));
		if (a == r && rtype != atype) /* (a refined type: copy) */
			err_inst(vf, i, "bitcast from %s to %s, of the same "
				 "class: it changes nothing (use copy.%s)",
				 tname(vf, atype), tname(vf, rtype),
				 tname(vf, rtype));
		else if (a == r)
			err_inst(vf, i, "bitcast from %s to the same type: "
				 "it changes nothing (use the operand)",
				 tname(vf, a));
		else if (bits_of(vf, a) != bits_of(vf, r))
			err_inst(vf, i, "bitcast from %s to %s: the sizes "
				 "differ", tname(vf, a), tname(vf, r));
		return;
	}
	case KL_TY_FPROMOTE:
	case KL_TY_FDEMOTE: {
		kl_type from = ty == KL_TY_FPROMOTE ? KL_TYPE_F32 : KL_TYPE_F64;
		kl_type to = ty == KL_TY_FPROMOTE ? KL_TYPE_F64 : KL_TYPE_F32;
		char n[48];
		if (a != NONE && a != from)
			err_inst(vf, i, "%s has type %s, must be %s",
				 arg_name(n, sizeof n, iv, 0), tname(vf, a),
				 tname(vf, from));
		want_result(vf, i, iv, to, "");
		return;
	}
	case KL_TY_FCVT_TO_INT:
		want_float_arg(vf, i, iv, 0);
		want_result_kind(vf, i, iv, false);
		return;
	case KL_TY_FCVT_FROM_INT:
		want_int_arg(vf, i, iv, 0);
		want_result_kind(vf, i, iv, true);
		return;
	default:
		return;
	}
}

/* ---- memory ---- */

static void
want_pointer_arg(verifier *vf, uint32_t i, const inst_view *iv, uint32_t k)
{
	kl_type c = arg_class(vf, iv, k), p = ptr_class(vf);
	char n[48];
	/* a store's value where its address goes, and the address first */
	bool swapped = k == 1 && arg_class(vf, iv, 0) == p;
	if (c != NONE && c != p)
		err_inst(vf, i, "%s has type %s, must be the pointer type %s%s",
			 arg_name(n, sizeof n, iv, k), tname(vf, c),
			 tname(vf, p), swapped ? " (if the two are swapped: a "
						 "store takes the value, then "
						 "the address)" : "");
}

/* A sized integer access: the value's type must be wider than memw. */
static void
want_wider_than_access(verifier *vf, uint32_t i, kl_type c, const char *what,
		       uint32_t v)
{
	uint32_t w = vf->ops[vf->f->insts[i].op].memw * 8u;
	if (c == NONE)
		return;
	if (!is_int(c) || bits_of(vf, c) <= w)
		err_inst(vf, i, "%s (v%u) has type %s, must be an integer "
			 "wider than %u bits", what, v, tname(vf, c), w);
}

static void
check_memory_types(verifier *vf, uint32_t i, const inst_view *iv,
		   kl_typing ty)
{
	switch (ty) {
	case KL_TY_LOAD:
		want_pointer_arg(vf, i, iv, 0);
		return;
	case KL_TY_LOAD_EXT:
		want_pointer_arg(vf, i, iv, 0);
		want_wider_than_access(vf, i, result_class(vf, iv, 0),
				       "result", iv->results[0]);
		return;
	case KL_TY_STORE:
		want_pointer_arg(vf, i, iv, 1);
		return;
	case KL_TY_STORE_TRUNC:
		want_pointer_arg(vf, i, iv, 1);
		want_wider_than_access(vf, i, arg_class(vf, iv, 0), "arg 0",
				       iv->args[0]);
		return;
	case KL_TY_POINTER:
		want_result(vf, i, iv, ptr_class(vf), " (the pointer type)");
		if (vf->f->insts[i].op == KL_OP_ALLOCA &&
		    vf->f->insts[i].w[1] == 0)
			err_inst(vf, i, "alloca of 0 bytes: the size is "
				 "between 1 and 4294967295 (alloca_dyn may "
				 "be 0)");
		return;
	case KL_TY_ALLOCA_DYN:
		want_int_arg(vf, i, iv, 0);
		want_result(vf, i, iv, ptr_class(vf), " (the pointer type)");
		return;
	default:
		return;
	}
}

/* ---- calls, branches, returns ---- */

/* How messages name a call's callee: "%f" or "sig0". */
static const char *
callee_name(const verifier *vf, uint32_t i, kl_buf *buf)
{
	const kl_inst_data *d = &vf->f->insts[i];
	kl_buf_reset(buf);
	if (d->op == KL_OP_CALL)
		fmt_sym(buf, vf->m, d->w[1]);
	else
		kl_buf_printf(buf, "sig%u", d->w[1]);
	return buf->data;
}

/*
 * Arguments args[first..) and the results against signature s. The
 * callee's name is only formatted for a message: calls are common, errors
 * are not.
 */
static void
check_against_sig(verifier *vf, uint32_t i, const inst_view *iv,
		  uint32_t first, kl_signature s)
{
	kl_buf name = { 0 };
	uint32_t n = iv->nargs - first;
	if (s.variadic ? n < s.num_params : n != s.num_params)
		err_inst(vf, i, "%s takes %s%u argument%s, got %u",
			 callee_name(vf, i, &name),
			 s.variadic ? "at least " : "", s.num_params,
			 s.num_params == 1 ? "" : "s", n);
	for (uint32_t k = 0; k < n && k < s.num_params; k++) {
		kl_type c = arg_class(vf, iv, first + k);
		kl_type want = type_class(vf->m, s.params[k]);
		if (c != NONE && c != want)
			err_inst(vf, i, "arg %u (v%u) has type %s, must match "
				 "%s's signature of %s", k, iv->args[first + k],
				 tname(vf, c), callee_name(vf, i, &name),
				 tname(vf, want));
	}
	for (uint32_t k = 0; k < iv->nresults && k < s.num_results; k++) {
		kl_type c = result_class(vf, iv, k);
		kl_type want = type_class(vf->m, s.results[k]);
		if (c != NONE && c != want)
			err_inst(vf, i, "result %u (v%u) has type %s, must "
				 "match %s's signature of %s", k,
				 iv->results[k], tname(vf, c),
				 callee_name(vf, i, &name), tname(vf, want));
	}
	kl_buf_free(&name);
}

static void
check_call(verifier *vf, uint32_t i, const inst_view *iv)
{
	const kl_func *f = vf->f;
	const kl_module *m = vf->m;
	const kl_inst_data *d = &f->insts[i];
	uint32_t s = d->w[1];
	if (d->op == KL_OP_CALL) {
		if (s >= m->nsyms || m->syms[s].kind != KL_SYM_FUNC ||
		    m->syms[s].sig >= m->nsigs)
			return; /* reported by the structure phase */
		check_against_sig(vf, i, iv, 0, module_sig(m, m->syms[s].sig));
		return;
	}
	if (s >= f->nsigrefs || f->sigrefs[s] >= m->nsigs || iv->nargs == 0)
		return;
	kl_type c = arg_class(vf, iv, 0), p = ptr_class(vf);
	if (c != NONE && c != p)
		err_inst(vf, i, "callee (v%u) has type %s, must be the pointer "
			 "type %s", iv->args[0], tname(vf, c), tname(vf, p));
	check_against_sig(vf, i, iv, 1, module_sig(m, f->sigrefs[s]));
}

static void
check_branch(verifier *vf, uint32_t i, const inst_view *iv)
{
	const kl_func *f = vf->f;
	if (f->insts[i].op != KL_OP_JUMP)
		want_int_arg(vf, i, iv, 0);
	for (uint32_t k = 0; k < iv->ndests; k++) {
		uint32_t b, n, np;
		const uint32_t *args, *ps;
		if (!dest_get(f, iv, k, &b, &args, &n) || b >= f->nblocks ||
		    !(f->blocks[b].flags & BLOCK_EXISTS) ||
		    !vlist(f, f->blocks[b].params, &ps, &np))
			continue; /* reported by the structure phase */
		char e[32];
		if (n != np) {
			err_inst(vf, i, "block%u%s takes %u argument%s, got %u",
				 b, dest_label(e, sizeof e, iv, k), np,
				 np == 1 ? "" : "s", n);
			continue;
		}
		for (uint32_t a = 0; a < n; a++) {
			kl_type c = operand_class(vf, args[a]);
			kl_type want = NONE;
			if (ps[a] < f->nvalues)
				want = type_class(vf->m, value_type(f, ps[a]));
			if (c != NONE && want != NONE && c != want)
				err_inst(vf, i, "block%u%s arg %u (v%u) has "
					 "type %s, must match parameter v%u of "
					 "type %s", b,
					 dest_label(e, sizeof e, iv, k), a,
					 args[a], tname(vf, c), ps[a],
					 tname(vf, want));
		}
	}
}

static void
check_return(verifier *vf, uint32_t i, const inst_view *iv)
{
	if (vf->f->sig >= vf->m->nsigs)
		return;
	kl_signature s = module_sig(vf->m, vf->f->sig);
	if (iv->nargs != s.num_results)
		err_inst(vf, i, "return has %u value%s, but the function "
			 "signature has %u result%s", iv->nargs,
			 iv->nargs == 1 ? "" : "s", s.num_results,
			 s.num_results == 1 ? "" : "s");
	for (uint32_t k = 0; k < iv->nargs && k < s.num_results; k++) {
		kl_type c = arg_class(vf, iv, k);
		kl_type want = type_class(vf->m, s.results[k]);
		if (c != NONE && c != want)
			err_inst(vf, i, "arg %u (v%u) has type %s, must match "
				 "function signature of %s", k, iv->args[k],
				 tname(vf, c), tname(vf, want));
	}
}

void
check_entry_params(verifier *vf)
{
	const kl_func *f = vf->f;
	uint32_t b = vf->entry, n;
	const uint32_t *ps;
	if (b == KL_NONE || f->sig >= vf->m->nsigs ||
	    !vlist(f, f->blocks[b].params, &ps, &n))
		return;
	kl_signature s = module_sig(vf->m, f->sig);
	if (n != s.num_params)
		err_block(vf, b, "the entry block has %u parameter%s, but the "
			  "function signature has %u", n, n == 1 ? "" : "s",
			  s.num_params);
	for (uint32_t k = 0; k < n && k < s.num_params; k++) {
		kl_type c = operand_class(vf, ps[k]);
		kl_type want = type_class(vf->m, s.params[k]);
		if (c != NONE && c != want)
			err_block(vf, b, "parameter %u (v%u) has type %s, must "
				  "match function signature of %s", k, ps[k],
				  tname(vf, c), tname(vf, want));
	}
}

/* ---- the rules ---- */

void
check_types(verifier *vf, uint32_t i, const inst_view *iv)
{
	kl_typing ty = (kl_typing)iv->info->typing;
	switch (ty) {
	case KL_TY_NONE:
		return;
	case KL_TY_ICONST:
		want_result_kind(vf, i, iv, false);
		check_imm(vf, i, result_class(vf, iv, 0));
		return;
	case KL_TY_F32CONST:
		want_result(vf, i, iv, KL_TYPE_F32, "");
		return;
	case KL_TY_F64CONST:
		want_result(vf, i, iv, KL_TYPE_F64, "");
		return;
	case KL_TY_INT_SAME:
	case KL_TY_INT_CMP:
		want_class_same(vf, i, iv, false, 2, ty == KL_TY_INT_SAME);
		if (ty == KL_TY_INT_CMP)
			want_result(vf, i, iv, KL_TYPE_I8, "");
		return;
	case KL_TY_INT_UNARY:
	case KL_TY_INT_SHIFT:
		want_class_same(vf, i, iv, false, 1, true);
		if (ty == KL_TY_INT_SHIFT)
			want_int_arg(vf, i, iv, 1);
		return;
	case KL_TY_INT_IMM:
	case KL_TY_INT_CMP_IMM:
		want_class_same(vf, i, iv, false, 1, ty == KL_TY_INT_IMM);
		check_imm(vf, i, arg_class(vf, iv, 0));
		if (ty == KL_TY_INT_CMP_IMM)
			want_result(vf, i, iv, KL_TYPE_I8, "");
		return;
	case KL_TY_FLOAT_SAME:
	case KL_TY_FLOAT_CMP:
		want_class_same(vf, i, iv, true, 2, ty == KL_TY_FLOAT_SAME);
		if (ty == KL_TY_FLOAT_CMP)
			want_result(vf, i, iv, KL_TYPE_I8, "");
		return;
	case KL_TY_FLOAT_UNARY:
		want_class_same(vf, i, iv, true, 1, true);
		return;
	case KL_TY_SELECT:
		want_int_arg(vf, i, iv, 0);
		want_same_args(vf, i, iv, 2, 1);
		want_result_like_arg(vf, i, iv, 1);
		return;
	case KL_TY_BMASK:
		want_int_arg(vf, i, iv, 0);
		want_result_kind(vf, i, iv, false);
		return;
	case KL_TY_COPY:
		want_result_like_arg(vf, i, iv, 0);
		return;
	case KL_TY_EXTEND:
	case KL_TY_REDUCE:
	case KL_TY_BITCAST:
	case KL_TY_FPROMOTE:
	case KL_TY_FDEMOTE:
	case KL_TY_FCVT_TO_INT:
	case KL_TY_FCVT_FROM_INT:
		check_conversion(vf, i, iv, ty);
		return;
	case KL_TY_POINTER:
	case KL_TY_ALLOCA_DYN:
	case KL_TY_LOAD:
	case KL_TY_LOAD_EXT:
	case KL_TY_STORE:
	case KL_TY_STORE_TRUNC:
		check_memory_types(vf, i, iv, ty);
		return;
	case KL_TY_CALL:
		check_call(vf, i, iv);
		return;
	case KL_TY_BRANCH:
		check_branch(vf, i, iv);
		return;
	case KL_TY_RETURN:
		check_return(vf, i, iv);
		return;
	}
}
