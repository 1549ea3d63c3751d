/*
 * qbe_build.c -- a parsed QBE file to a keel module: kl_qbe_import, the
 * symbols, the declarations made from calls, and the data.
 *
 * QBE needs no declarations: "functions from other modules can be used
 * without previous declaration; all the type information is provided in
 * the call instructions". keel does, so before anything is built every
 * call of a function the file does not define is read, in the order of
 * the text: the first call gives the parameters and whether it is
 * variadic, and any call with a result temporary gives the result; a
 * later call that says otherwise is an error naming the first. Those
 * declarations come first in the module, in the order their names first
 * appear; then the file's definitions in its order, each function's
 * signature made before any body is built, so that a call may name a
 * function further down. A global the file neither defines nor calls
 * cannot be named: keel has no external data.
 *
 * The module is verified at the end. What the importer checks should
 * make every module it builds verify; the verifier is the net under it,
 * and what it finds comes back as diagnostics, as the parser's do.
 */
#include <stdlib.h>
#include <string.h>

#include "qbe.h"

/* The keel signature of a QBE function or call, its fixed parameters'
 * types left for the caller to fill in at the pointer returned: a
 * function returning an aggregate takes the address to fill first (an
 * i64), and returns nothing; a variadic function of the file takes the
 * address of its variadic arguments last (an i64). One layout, for the
 * definitions and the calls alike. */
static kl_type *
lowered_signature(sig_buf *sb, bool sret, uint32_t nfixed, bool va,
		  uint8_t ret, kl_signature *sig)
{
	uint32_t n = sret + nfixed + va;
	kl_grow(&sb->types, &sb->cap, sizeof *sb->types, (uint64_t)n + 1);
	for (uint32_t k = 0; k < n; k++)
		sb->types[k] = KL_TYPE_I64;
	if (sret)
		ret = QTY_NONE;
	sb->types[n] = qbe_keel_type(ret);
	*sig = (kl_signature){ .params = sb->types, .num_params = n,
			       .results = sb->types + n,
			       .num_results = ret != QTY_NONE };
	return sb->types + sret;
}

static kl_signature
fn_signature(const qbe_unit *u, const qbe_fn *fn, sig_buf *sb)
{
	kl_signature sig;
	kl_type *fixed = lowered_signature(sb, fn->ret_agg != 0, fn->nparams,
					   fn->variadic, fn->ret, &sig);
	for (uint32_t k = 0; k < fn->nparams; k++)
		fixed[k] = qbe_keel_type(u->params[fn->param0 + k].ty);
	return sig;
}

uint32_t
qbe_call_fixed(const qbe_ins *in)
{
	return in->nfixed == KL_NONE ? in->nargs - 1 : in->nfixed;
}

kl_signature
qbe_call_signature(const qbe_unit *u, const qbe_ins *in, uint8_t ret,
		   sig_buf *sb)
{
	uint32_t nfixed = qbe_call_fixed(in);
	bool packs = qbe_call_packs(u, in);
	kl_signature sig;
	kl_type *fixed = lowered_signature(sb, in->ret_agg != 0, nfixed,
					   packs, ret, &sig);
	for (uint32_t k = 0; k < nfixed; k++)
		fixed[k] = qbe_keel_type(u->args[in->arg0 + 1 + k].ty);
	sig.variadic = in->nfixed != KL_NONE && !packs;
	return sig;
}

void
qbe_call_types(const qbe_unit *u, const qbe_ins *in, kl_buf *out)
{
	kl_buf_putc(out, '(');
	for (uint32_t k = 0; k < qbe_call_fixed(in); k++)
		kl_buf_printf(out, "%s%s", k ? ", " : "",
			      qbe_type_name(u->args[in->arg0 + 1 + k].ty));
	if (in->nfixed != KL_NONE)
		kl_buf_puts(out, qbe_call_fixed(in) ? ", ..." : "...");
	kl_buf_putc(out, ')');
}

/* Do two calls agree on the fixed parameters and on being variadic? */
static bool
same_params(const qbe_unit *u, const qbe_ins *a, const qbe_ins *b)
{
	uint32_t n = qbe_call_fixed(a);
	if (n != qbe_call_fixed(b) ||
	    (a->nfixed == KL_NONE) != (b->nfixed == KL_NONE))
		return false;
	for (uint32_t k = 0; k < n; k++)
		if (u->args[a->arg0 + 1 + k].ty != u->args[b->arg0 + 1 + k].ty)
			return false;
	return true;
}

/* Call in of a function the file does not define: agree with the
 * first, and pass no aggregate. */
static bool
note_call(qbe_unit *u, uint32_t i, kl_diags *d)
{
	const qbe_ins *in = &u->ins[i];
	qbe_global *gl = &u->globals[u->args[in->arg0].v.id];
	bool ok = true;
	bool agg = in->ret_agg != 0;
	for (uint32_t k = 1; k < in->nargs; k++)
		agg |= u->args[in->arg0 + k].agg != 0;
	if (agg) {
		qbe_error(d, in->pos, "an aggregate passed by value to "
			  "$%.*s, which this file does not define: keel "
			  "passes aggregates only between functions of one "
			  "file (it does not model the C ABI's way)",
			  (int)gl->len, gl->name);
		return false;
	}
	if (gl->call == KL_NONE) {
		gl->call = i;
	} else if (!same_params(u, &u->ins[gl->call], in)) {
		kl_buf a = { 0 }, b = { 0 };
		qbe_call_types(u, in, &a);
		qbe_call_types(u, &u->ins[gl->call], &b);
		qbe_error(d, in->pos, "$%.*s is called with %s here but with "
			  "%s on line %u (keel declares it once)",
			  (int)gl->len, gl->name, a.data, b.data,
			  u->ins[gl->call].pos.line);
		kl_buf_free(&a);
		kl_buf_free(&b);
		ok = false;
	}
	if (in->ret == QTY_NONE)
		return ok;
	if (gl->ret == QTY_NONE) {
		gl->ret = in->ret;
		gl->ret_pos = in->pos;
	} else if (gl->ret != in->ret) {
		qbe_error(d, in->pos, "$%.*s returns %s here but %s on line "
			  "%u (keel declares it once)", (int)gl->len,
			  gl->name, qbe_type_name(in->ret),
			  qbe_type_name(gl->ret), gl->ret_pos.line);
		ok = false;
	}
	return ok;
}

/* Declare each function the file calls without defining it. */
static bool
declare_callees(qbe_unit *u, kl_module *m, kl_diags *d, sig_buf *sb)
{
	bool ok = true;
	for (uint32_t i = 0; i < u->nins; i++) {
		const qbe_ins *in = &u->ins[i];
		if (in->op->kind == QK_CALL &&
		    u->args[in->arg0].v.kind == QV_GLOBAL &&
		    u->globals[u->args[in->arg0].v.id].def == KL_NONE)
			ok &= note_call(u, i, d);
	}
	for (uint32_t g = 0; ok && g < u->nglobals; g++) {
		qbe_global *gl = &u->globals[g];
		if (gl->def != KL_NONE)
			continue;
		if (gl->call == KL_NONE) {
			qbe_error(d, gl->use, "$%.*s is not defined in this "
				  "file (keel can call a function defined "
				  "elsewhere, but not take its address or "
				  "refer to data defined elsewhere)",
				  (int)gl->len, gl->name);
			ok = false;
			continue;
		}
		kl_signature sig = qbe_call_signature(u, &u->ins[gl->call],
						      gl->ret, sb);
		gl->is_func = true;
		if (kl_module_declare(m, gl->name, gl->len, &sig, &gl->sym) !=
		    KL_OK) {
			qbe_error(d, gl->use, "cannot declare $%.*s",
				  (int)gl->len, gl->name);
			ok = false;
		}
	}
	return ok;
}

static bool
define_symbols(qbe_unit *u, kl_module *m, kl_diags *d, sig_buf *sb)
{
	for (uint32_t i = 0; i < u->nitems; i++) {
		kl_status st;
		qbe_global *gl;
		qbe_pos at;
		if (u->items[i].is_func) {
			qbe_fn *fn = &u->fns[u->items[i].index];
			kl_signature sig = fn_signature(u, fn, sb);
			kl_func *f;
			gl = &u->globals[fn->global];
			at = fn->pos;
			st = kl_module_add_func(m, gl->name, gl->len, &sig,
						&f);
			if (st == KL_OK)
				gl->sym = fn->sym = kl_func_sym(f);
		} else {
			qbe_data *dt = &u->data[u->items[i].index];
			gl = &u->globals[dt->global];
			at = dt->pos;
			st = kl_module_add_data(m, gl->name, gl->len, false,
						dt->align, &gl->sym);
		}
		if (st != KL_OK) {
			qbe_error(d, at, "cannot define $%.*s: %s",
				  (int)gl->len, gl->name, kl_status_name(st));
			return false;
		}
	}
	return true;
}

/* The bits of a data value of type ty, or false (reported) when the
 * constant is a float of another width. */
static bool
data_bits(const qbe_ditem *it, kl_diags *d, uint64_t *bits)
{
	static const unsigned bits_of[] = { [QTY_W] = 32, [QTY_L] = 64,
					    [QTY_S] = 32, [QTY_D] = 64,
					    [QTY_B] = 8, [QTY_H] = 16 };
	unsigned w = bits_of[it->ty];
	if ((it->vkind == QV_SINGLE && w != 32) ||
	    (it->vkind == QV_DOUBLE && w != 64)) {
		qbe_error(d, it->pos, "a %s constant in a %s field (a float "
			  "constant fills a field of its own width)",
			  it->vkind == QV_SINGLE ? "s_" : "d_",
			  qbe_type_name(it->ty));
		return false;
	}
	*bits = w == 64 ? it->bits : it->bits & (((uint64_t)1 << w) - 1);
	return true;
}

static bool
data_item(qbe_unit *u, kl_module *m, kl_sym obj, const qbe_ditem *it,
	  kl_diags *d)
{
	kl_data_item item = { 0 };
	item.type = qbe_keel_type(it->ty);
	switch (it->kind) {
	case QD_ZERO:
		item.kind = KL_DATA_ZERO;
		item.value = it->bits;
		break;
	case QD_STRING:
		if (it->ty != QTY_B) {
			qbe_error(d, it->pos, "a string in a %s field (strings "
				  "go in b fields)", qbe_type_name(it->ty));
			return false;
		}
		item.kind = KL_DATA_STRING;
		item.bytes = it->str;
		item.len = it->len;
		break;
	case QD_SYM:
		if (it->ty == QTY_S || it->ty == QTY_D) {
			qbe_error(d, it->pos, "an address in a %s field (an "
				  "address is an integer)",
				  qbe_type_name(it->ty));
			return false;
		}
		item.kind = KL_DATA_SYMREF;
		item.sym = u->globals[it->global].sym;
		item.value = it->bits;
		break;
	default:
		item.kind = KL_DATA_VALUE;
		if (!data_bits(it, d, &item.value))
			return false;
		break;
	}
	kl_status st = kl_data_append(m, obj, &item);
	if (st != KL_OK) {
		qbe_error(d, it->pos, "cannot add this data item: %s",
			  kl_status_name(st));
		return false;
	}
	return true;
}

static bool
fill_data(qbe_unit *u, kl_module *m, kl_diags *d)
{
	bool ok = true;
	for (uint32_t i = 0; i < u->ndata; i++) {
		const qbe_data *dt = &u->data[i];
		kl_sym obj = u->globals[dt->global].sym;
		for (uint32_t k = 0; k < dt->nitems; k++)
			if (!data_item(u, m, obj, &u->ditems[dt->item0 + k],
				       d)) {
				ok = false;
				break;
			}
	}
	return ok;
}

/* What the verifier found, as diagnostics at each function's line. */
static bool
verify(kl_module *m, kl_diags *d)
{
	kl_diags vd = { 0 };
	bool ok = kl_verify_module(m, &vd) == KL_OK;
	for (uint32_t i = 0; !ok && i < vd.len; i++) {
		if (vd.items[i].severity != KL_SEV_ERROR)
			continue;
		kl_buf msg = { 0 };
		kl_buf_printf(&msg, "the keel IR made does not verify (a bug "
			      "of the importer): %s", vd.items[i].message);
		kl_diags_add(d, KL_SEV_ERROR, 0, 0, msg.data);
		kl_buf_free(&msg);
	}
	kl_diags_free(&vd);
	return ok;
}

bool
qbe_build_module(qbe_unit *u, kl_module *m, kl_diags *d)
{
	sig_buf sb = { 0 };
	bool ok = declare_callees(u, m, d, &sb) &&
		  define_symbols(u, m, d, &sb) && fill_data(u, m, d);
	free(sb.types);
	/* (each function, whatever the others: one run shows a mistake in
	 * each; a function stops at its first) */
	bool built = ok;
	for (uint32_t i = 0; ok && i < u->nfns; i++)
		built &= qbe_build_func(u, m, &u->fns[i], d);
	return built && verify(m, d);
}

kl_status
kl_qbe_import(const char *text, size_t len, kl_module **out,
	      kl_diags *diags)
{
	if (!out || (!text && len > 0))
		return KL_ERR_INVALID;
	*out = NULL;
	kl_diags scratch = { 0 };
	kl_diags *d = diags ? diags : &scratch;
	if (len >= UINT32_MAX - 1) {
		kl_diags_add(d, KL_SEV_ERROR, 0, 0, "the text is 4 GiB or "
			     "more (lines and columns are 32-bit)");
		kl_diags_free(&scratch);
		return KL_ERR_PARSE;
	}
	kl_c_locale c; /* decimal floats as C reads them (scan_f64) */
	kl_c_locale_begin(&c);
	qbe_unit u;
	qbe_unit_init(&u);
	kl_module *m = kl_module_new();
	bool ok = qbe_parse(&u, text ? text : "", len, d) &&
		  qbe_build_module(&u, m, d);
	qbe_unit_free(&u);
	kl_c_locale_end(&c);
	kl_diags_free(&scratch);
	if (!ok) {
		kl_module_free(m);
		return KL_ERR_PARSE;
	}
	*out = m;
	return KL_OK;
}
