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
 */
#include <stdlib.h>

#include "qbe.h"

/* The arguments, each as the type the call gives it, into fb->vals. */
static bool
call_args(qbe_fb *fb, const qbe_ins *in)
{
	uint32_t n = in->nargs - 1;
	kl_grow(&fb->vals, &fb->cvals, sizeof *fb->vals, (uint64_t)n + 1);
	for (uint32_t k = 0; k < n; k++) {
		const qbe_arg *a = &fb->u->args[in->arg0 + 1 + k];
		fb->vals[k] = qbe_operand(fb, &a->v, a->ty);
		if (fb->vals[k].id == KL_NONE)
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
	uint32_t n = in->nargs - 1;
	uint32_t fixed = qbe_call_fixed(in);
	int len = (int)gl->len;
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
	if (in->dest == KL_NONE)
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
build_indirect(qbe_fb *fb, const qbe_ins *in, kl_inst *call)
{
	kl_value p = qbe_operand(fb, &fb->u->args[in->arg0].v, QTY_L);
	if (p.id == KL_NONE)
		return false;
	sig_buf sb = { 0 };
	kl_signature sig = qbe_call_signature(fb->u, in, in->ret, &sb);
	kl_sigref sr = kl_func_add_sigref(fb->f, &sig);
	free(sb.types);
	*call = kl_build_call_indirect(&fb->b, sr, p, fb->vals,
				       in->nargs - 1);
	return true;
}

bool
qbe_build_call(qbe_fb *fb, const qbe_ins *in, kl_value *result)
{
	const qbe_val *callee = &fb->u->args[in->arg0].v;
	kl_inst call;
	*result = KL_NO_VALUE;
	if (!call_args(fb, in))
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
		call = kl_build_call(&fb->b, gl->sym, fb->vals,
				     in->nargs - 1);
	} else if (callee->kind == QV_TEMP) {
		if (!build_indirect(fb, in, &call))
			return false;
	} else {
		qbe_fb_error(fb, callee->pos, "a call needs a $function or a "
			     "%%temporary holding its address");
		return false;
	}
	if (in->dest != KL_NONE)
		*result = kl_inst_result(fb->f, call, 0);
	return true;
}
