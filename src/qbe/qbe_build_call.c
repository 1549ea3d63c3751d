/*
 * qbe_build_call.c -- QBE's call: direct to a `$function`, indirect
 * through a temporary.
 *
 * A direct call names a symbol of the module: a function the file
 * defines, whose signature was made before any body, or one it only
 * calls, declared from its calls (qbe_build.c). The call's fixed
 * arguments, those before `...`, must have the parameters' types; after
 * `...` any types go, when the callee is variadic. A call without a
 * result temporary of a function with a result still names one in keel
 * (every result is named), which nothing reads.
 *
 * An indirect call has no callee to ask: its signature is what the call
 * says (the arguments' types, variadic after `...`, the result's type or
 * none), and keel's call_indirect traps `bad_sig` at run time if the
 * function reached does not have it.
 *
 * Aggregates go by value as QBE's own ABI passes them between its
 * functions, in memory: the caller copies an aggregate argument into
 * memory of its own (an alloca of its entry block, one per argument of
 * each call) and passes that address, so the callee may change its copy;
 * for an aggregate result it passes, first, the address of memory for it
 * (likewise), which the callee's `ret` fills, and the result temporary
 * is that address. Only functions of the file take or return
 * aggregates (qbe_build.c refuses them to others).
 *
 * A variadic function of the file cannot read a keel call's variadic
 * arguments, so a call to one (or an indirect call with `...`) stores
 * them 8 bytes apart (an aggregate's bytes in as many places as they
 * fill) in memory of its own and passes its address last, which the
 * callee's vastart puts in its va_list (qbe_build_inst.c).
 */
#include <stdlib.h>

#include "qbe.h"

const qbe_fn *
qbe_callee_fn(const qbe_unit *u, const qbe_ins *in)
{
	const qbe_val *callee = &u->args[in->arg0].v;
	if (callee->kind != QV_GLOBAL)
		return NULL;
	const qbe_global *gl = &u->globals[callee->id];
	return gl->def != KL_NONE && !gl->is_data ? &u->fns[gl->def] : NULL;
}

uint32_t
qbe_result_agg(const qbe_unit *u, const qbe_ins *in)
{
	const qbe_fn *fn = qbe_callee_fn(u, in);
	return in->ret_agg ? in->ret_agg : fn ? fn->ret_agg : 0;
}

bool
qbe_call_packs(const qbe_unit *u, const qbe_ins *in)
{
	const qbe_fn *fn = qbe_callee_fn(u, in);
	if (fn)
		return fn->variadic;
	return u->args[in->arg0].v.kind == QV_TEMP && in->nfixed != KL_NONE;
}

/* The room argument a takes among packed variadic arguments: 8 bytes,
 * or an aggregate's bytes rounded up to 8 (on amd64 QBE passes its
 * bytes, which vaarg reads 8 at a time). */
static uint64_t
va_room(const qbe_unit *u, const qbe_arg *a)
{
	return a->agg ? (u->aggs[a->agg - 1].size + 7) & ~(uint64_t)7 : 8;
}

uint64_t
qbe_va_bytes(const qbe_unit *u, const qbe_ins *in)
{
	uint64_t n = 0;
	for (uint32_t k = qbe_call_fixed(in); k < in->nargs - 1; k++)
		n += va_room(u, &u->args[in->arg0 + 1 + k]);
	return n;
}

bool
qbe_arg_copied(const qbe_unit *u, const qbe_ins *in, uint32_t k)
{
	return u->args[in->arg0 + 1 + k].agg &&
	       !(k >= qbe_call_fixed(in) && qbe_call_packs(u, in));
}

/* The arguments, each as the type the call gives it, into fb->vals, and
 * their count into *nvals: an aggregate copied to its memory, whose
 * address goes instead; first, the result's memory, for an aggregate
 * result; the variadic arguments, to a variadic function of the file,
 * stored 8 bytes apart in memory whose address goes last. */
static bool
call_args(qbe_fb *fb, const qbe_ins *in, uint32_t *nvals)
{
	uint32_t ret_agg = qbe_result_agg(fb->u, in), hidden = ret_agg != 0;
	uint32_t n = in->nargs - 1, fixed = qbe_call_fixed(in);
	kl_grow(&fb->vals, &fb->cvals, sizeof *fb->vals,
		(uint64_t)n + hidden + 2);
	if (hidden) {
		if (!qbe_copy_fits(fb, fb->u->aggs[ret_agg - 1].size, in->pos))
			return false;
		fb->vals[0] = fb->slots[fb->next_slot++];
	}
	for (uint32_t k = 0; k < n; k++) {
		const qbe_arg *a = &fb->u->args[in->arg0 + 1 + k];
		kl_value v = qbe_operand(fb, &a->v, a->ty);
		if (v.id == KL_NONE)
			return false;
		if (qbe_arg_copied(fb->u, in, k)) {
			kl_value copy = fb->slots[fb->next_slot++];
			if (!qbe_copy_bytes(fb, v, copy,
					    fb->u->aggs[a->agg - 1].size,
					    a->v.pos))
				return false;
			v = copy;
		}
		fb->vals[hidden + k] = v;
	}
	*nvals = hidden + n;
	if (!qbe_call_packs(fb->u, in))
		return true;
	if (n - fixed > (1u << 24)) {
		qbe_fb_error(fb, in->pos, "more than 2^24 variadic arguments");
		return false;
	}
	kl_value va = fb->slots[fb->next_slot++];
	uint64_t off = 0;
	for (uint32_t k = fixed; k < n; k++) {
		const qbe_arg *a = &fb->u->args[in->arg0 + 1 + k];
		kl_value v = fb->vals[hidden + k];
		if (!a->agg) {
			kl_build_store(&fb->b, KL_OP_STORE, v, va,
				       (int32_t)off);
		} else if (!qbe_copy_bytes(fb, v,
					   off ? kl_build_binary_imm(
							 &fb->b,
							 KL_OP_IADD_IMM, va,
							 (int64_t)off)
					       : va,
					   fb->u->aggs[a->agg - 1].size,
					   a->v.pos)) {
			return false;
		}
		off += va_room(fb->u, a);
	}
	fb->vals[hidden + fixed] = va;
	*nvals = hidden + fixed + 1;
	return true;
}

/* ":name" of aggregate type t + 1, or the base type's name. */
static void
type_name(const qbe_unit *u, uint8_t ty, uint32_t agg, kl_buf *out)
{
	if (agg)
		kl_buf_printf(out, ":%.*s", (int)u->aggs[agg - 1].len,
			      u->aggs[agg - 1].name);
	else
		kl_buf_puts(out, qbe_type_name(ty));
}

/* Does the call pass aggregates where callee fn takes them, of the
 * same types, and take back the one it returns? */
static bool
check_aggregates(qbe_fb *fb, const qbe_ins *in, const qbe_global *gl,
		 const qbe_fn *fn)
{
	const qbe_unit *u = fb->u;
	uint32_t fixed = qbe_call_fixed(in);
	for (uint32_t k = 0; k <= fixed; k++) {
		uint32_t want = k < fixed ? u->params[fn->param0 + k].agg
					  : fn->ret_agg;
		uint32_t got = k < fixed ? u->args[in->arg0 + 1 + k].agg
					 : in->ret_agg;
		if (want == got || (k == fixed && in->dest == KL_NONE))
			continue;
		kl_buf w = { 0 }, g = { 0 };
		type_name(u, k < fixed ? QTY_L : fn->ret, want, &w);
		type_name(u, k < fixed ? u->args[in->arg0 + 1 + k].ty
				       : in->ret, got, &g);
		if (k < fixed)
			qbe_fb_error(fb, u->args[in->arg0 + 1 + k].v.pos,
				     "argument %u of $%.*s is %s here, but "
				     "its parameter is %s", k + 1,
				     (int)gl->len, gl->name, g.data, w.data);
		else
			qbe_fb_error(fb, in->pos, "$%.*s returns %s, not %s",
				     (int)gl->len, gl->name,
				     fn->ret_agg || fn->ret != QTY_NONE
					     ? w.data
					     : "nothing",
				     g.data);
		kl_buf_free(&w);
		kl_buf_free(&g);
		return false;
	}
	return true;
}

/* Do the call's arguments and result fit callee g's signature? */
static bool
check_direct(qbe_fb *fb, const qbe_ins *in, const qbe_global *gl,
	     kl_signature sig)
{
	const qbe_val *callee = &fb->u->args[in->arg0].v;
	const qbe_fn *fn = qbe_callee_fn(fb->u, in);
	uint32_t hidden = fn && fn->ret_agg;
	uint32_t n = in->nargs - 1;
	uint32_t fixed = qbe_call_fixed(in);
	int len = (int)gl->len;
	/* (the addresses of an aggregate result and of the variadic
	 * arguments are not the call's to give: they are not among the
	 * parameters counted) */
	sig.params += hidden;
	if (fn) {
		sig.num_params = fn->nparams;
		sig.variadic = fn->variadic;
	}
	if (fixed == sig.num_params && n > fixed && !sig.variadic) {
		qbe_fb_error(fb, callee->pos, "$%.*s is not variadic, but is "
			     "given %u argument%s after '...'", len, gl->name,
			     n - fixed, n - fixed == 1 ? "" : "s");
		return false;
	}
	if (fixed != sig.num_params || (n > fixed && !sig.variadic)) {
		qbe_fb_error(fb, callee->pos, "$%.*s takes %u argument%s%s, "
			     "but %u %s given", len, gl->name,
			     sig.num_params, sig.num_params == 1 ? "" : "s",
			     sig.variadic ? " and then any (it is variadic)"
					  : "",
			     fixed, fixed == 1 ? "is" : "are");
		return false;
	}
	for (uint32_t k = 0; k < fixed; k++) {
		const qbe_arg *a = &fb->u->args[in->arg0 + 1 + k];
		if (qbe_keel_type(a->ty) != sig.params[k]) {
			qbe_fb_error(fb, a->v.pos, "argument %u of $%.*s is "
				     "%s here, but its parameter is %s", k + 1,
				     len, gl->name, qbe_type_name(a->ty),
				     kl_type_name(fb->m, sig.params[k]));
			return false;
		}
	}
	if (fn && !check_aggregates(fb, in, gl, fn))
		return false;
	if (in->dest == KL_NONE || in->ret_agg || hidden)
		return true;
	if (sig.num_results == 0 ||
	    sig.results[0] != qbe_keel_type(in->ret)) {
		qbe_fb_error(fb, in->pos, "$%.*s returns %s, not %s", len,
			     gl->name, sig.num_results
					       ? kl_type_name(fb->m,
							      sig.results[0])
					       : "nothing",
			     qbe_type_name(in->ret));
		return false;
	}
	return true;
}

static bool
build_indirect(qbe_fb *fb, const qbe_ins *in, uint32_t nvals, kl_inst *call)
{
	kl_value p = qbe_operand(fb, &fb->u->args[in->arg0].v, QTY_L);
	if (p.id == KL_NONE)
		return false;
	sig_buf sb = { 0 };
	kl_signature sig = qbe_call_signature(fb->u, in, in->ret, &sb);
	kl_sigref sr = kl_func_add_sigref(fb->f, &sig);
	free(sb.types);
	*call = kl_build_call_indirect(&fb->b, sr, p, fb->vals, nvals);
	return true;
}

bool
qbe_build_call(qbe_fb *fb, const qbe_ins *in, kl_value *result)
{
	const qbe_val *callee = &fb->u->args[in->arg0].v;
	kl_inst call;
	uint32_t nvals;
	*result = KL_NO_VALUE;
	if (!call_args(fb, in, &nvals))
		return false;
	if (callee->kind == QV_GLOBAL) {
		const qbe_global *gl = &fb->u->globals[callee->id];
		if (gl->is_data) {
			qbe_fb_error(fb, callee->pos, "$%.*s is data, not a "
				     "function", (int)gl->len, gl->name);
			return false;
		}
		if (!check_direct(fb, in, gl,
				  kl_sym_signature(fb->m, gl->sym)))
			return false;
		call = kl_build_call(&fb->b, gl->sym, fb->vals, nvals);
	} else if (callee->kind == QV_TEMP) {
		if (!build_indirect(fb, in, nvals, &call))
			return false;
	} else {
		qbe_fb_error(fb, callee->pos, "a call needs a $function or a "
			     "%%temporary holding its address");
		return false;
	}
	if (in->dest != KL_NONE)
		*result = in->ret_agg ? fb->vals[0]
				      : kl_inst_result(fb->f, call, 0);
	return true;
}
