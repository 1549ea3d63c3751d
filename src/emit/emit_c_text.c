/*
 * emit_c_text.c -- the C emitter's spelling: refusals as diagnostics
 * and the check that the input verifies (kl_emit_asm's too), lines of
 * C, identifiers for symbols, C types and constants, trap sites and
 * signatures (emit_c.h).
 */
#include "emit_c.h"

void
emit_add_refusal(kl_diags *diags, const kl_module *m, const kl_func *f,
		 kl_sym s, kl_inst i, const char *fmt, va_list ap)
{
	if (!diags)
		return;
	kl_buf msg = { 0 };
	uint32_t ln = 0;
	if (s.id != KL_NONE) {
		size_t len;
		const char *name = kl_sym_name(m, s, &len);
		if (!f && kl_sym_get_kind(m, s) == KL_SYM_DATA)
			kl_buf_puts(&msg, "data ");
		kl_name_format(name, len, &msg);
		if (f && i.id != KL_NONE) {
			kl_buf_printf(&msg, ": inst%u (", i.id);
			kl_print_inst(f, i, &msg);
			kl_buf_puts(&msg, ")");
		}
		kl_buf_puts(&msg, ": ");
		ln = f && i.id != KL_NONE ? kl_inst_source_line(f, i)
					  : kl_sym_source_line(m, s);
	}
	kl_buf_puts(&msg, "cannot translate: ");
	kl_buf_vprintf(&msg, fmt, ap);
	kl_diags_add(diags, KL_SEV_ERROR, ln, 0, msg.data);
	diags->items[diags->len - 1].func = s;
	diags->items[diags->len - 1].inst = i;
	kl_buf_free(&msg);
}

void
emit_refuse(fn_ctx *c, kl_inst i, const char *fmt, ...)
{
	if (c->scouting)
		return;
	c->e->refused = true;
	va_list ap;
	va_start(ap, fmt);
	emit_add_refusal(c->e->diags, c->e->m, c->f, kl_func_sym(c->f), i,
			 fmt, ap);
	va_end(ap);
}

void
emit_refuse_module(emitter *e, kl_sym s, const char *fmt, ...)
{
	e->refused = true;
	va_list ap;
	va_start(ap, fmt);
	emit_add_refusal(e->diags, e->m, NULL, s, KL_NO_INST, fmt, ap);
	va_end(ap);
}

bool
emit_verified(const kl_module *m, kl_diags *diags)
{
	bool ok = true;
	kl_diags own = { 0 };
	for (uint32_t k = 0; k < kl_module_num_syms(m); k++) {
		kl_func *f = kl_sym_func(m, (kl_sym){ k });
		if (f && kl_verify_func(f, NULL, &own) != KL_OK)
			ok = false;
	}
	/* the verifier's warnings only with its errors: a caller that
	 * verified first has shown them */
	for (uint32_t k = 0; !ok && diags && k < own.len; k++) {
		const kl_diag *d = &own.items[k];
		kl_diags_add(diags, d->severity, d->line, d->col, d->message);
		kl_diag *to = &diags->items[diags->len - 1];
		to->func = d->func;
		to->loc = d->loc;
		to->inst = d->inst;
	}
	kl_diags_free(&own);
	return ok;
}

void
emit_indent(kl_buf *out, uint32_t n)
{
	/* 64 tabs a time: down a nest 200 deep, a call a tab was most of
	 * the emitter's work */
	static const char tabs[] = "\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t"
				   "\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t"
				   "\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t"
				   "\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t";
	for (; n > 64; n -= 64)
		buf_add(out, tabs, 64);
	buf_add(out, tabs, n);
}

void
emit_line(fn_ctx *c, uint32_t n, const char *fmt, ...)
{
	char text[1024];
	va_list ap;
	va_start(ap, fmt);
	int len = vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	emit_indent(c->out, n);
	if (len >= (int)sizeof text) {
		/* a long call: format it again at its length */
		char *big = kl_malloc((size_t)len + 1);
		va_start(ap, fmt);
		vsnprintf(big, (size_t)len + 1, fmt, ap);
		va_end(ap);
		kl_buf_puts(c->out, big);
		free(big);
	} else {
		kl_buf_puts(c->out, text);
	}
	kl_buf_putc(c->out, '\n');
}

void
emit_c_string(kl_buf *out, const char *s, size_t len)
{
	kl_buf_putc(out, '"');
	for (size_t k = 0; k < len; k++) {
		unsigned char ch = (unsigned char)s[k];
		if (ch == '"' || ch == '\\')
			kl_buf_printf(out, "\\%c", ch);
		else if (ch >= 32 && ch < 127 && ch != '?')
			kl_buf_putc(out, (char)ch);
		else
			kl_buf_printf(out, "\\%03o", ch);
	}
	kl_buf_putc(out, '"');
}

static bool
ident_char(char ch)
{
	return ch == '_' || (ch >= '0' && ch <= '9') ||
	       (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
}

bool
emit_is_ident(const char *name, size_t len)
{
	for (size_t k = 0; k < len; k++)
		if (!ident_char(name[k]))
			return false;
	return len > 0;
}

void
emit_ident_chars(kl_buf *out, const char *name, size_t len)
{
	for (size_t k = 0; k < len && k < 64; k++)
		kl_buf_putc(out, ident_char(name[k]) ? name[k] : '_');
}

/* A C identifier for symbol s: f_ or d_ and its name when that is one
 * already, else the symbol's number too, so names never collide. */
void
emit_sym_ident(const kl_module *m, kl_sym s, kl_buf *out)
{
	size_t len;
	const char *name = kl_sym_name(m, s, &len);
	kl_buf_putc(out, kl_sym_get_kind(m, s) == KL_SYM_DATA ? 'd' : 'f');
	/* a name cut to 64 bytes could be another's: the number too */
	if (!emit_is_ident(name, len) || len > 64)
		kl_buf_printf(out, "%u", s.id);
	kl_buf_putc(out, '_');
	emit_ident_chars(out, name, len);
}

const char *
emit_ident(emitter *e, kl_sym s)
{
	kl_buf_reset(&e->ident);
	emit_sym_ident(e->m, s, &e->ident);
	return e->ident.data;
}

uint32_t
emit_width(const kl_module *m, kl_type t)
{
	return kl_type_bytes(m, t) * 8;
}

/* The C type of an IR type; the signed one of an integer type. */
const char *
emit_ctype(const kl_module *m, kl_type t)
{
	switch (kl_type_class(m, t)) {
	case KL_TYPE_I8:
		return "uint8_t";
	case KL_TYPE_I16:
		return "uint16_t";
	case KL_TYPE_I32:
		return "uint32_t";
	case KL_TYPE_I64:
		return "uint64_t";
	case KL_TYPE_F32:
		return "float";
	case KL_TYPE_F64:
		return "double";
	default:
		return NULL;
	}
}

const char *
emit_stype(const kl_module *m, kl_type t)
{
	switch (kl_type_class(m, t)) {
	case KL_TYPE_I8:
		return "int8_t";
	case KL_TYPE_I16:
		return "int16_t";
	case KL_TYPE_I32:
		return "int32_t";
	default:
		return "int64_t";
	}
}

/* cut to t's width */
const char *
emit_cint(emitter *e, kl_type t, uint64_t bits)
{
	char *s = e->ints[e->next_int++ % 8];
	uint32_t w = emit_width(e->m, t);
	if (w < 64)
		bits &= ((uint64_t)1 << w) - 1;
	int64_t neg = (int64_t)(bits << (64 - w)) >> (64 - w);
	/* a small negative one as such, but below 32 bits, where the
	 * cast's value would promote to int (and its products overflow) */
	if (w >= 32 && neg < 0 && neg > -10000)
		snprintf(s, 40, "(%s)%lld", w == 32 ? "uint32_t" : "uint64_t",
			 (long long)neg);
	else if (w == 64)
		snprintf(s, 40,
			 bits < 10000 ? "UINT64_C(%llu)" : "UINT64_C(0x%llx)",
			 (unsigned long long)bits);
	else
		snprintf(s, 40, bits < 10000 ? "%lluu" : "0x%llxu",
			 (unsigned long long)bits);
	return s;
}

const char *
emit_sint(emitter *e, uint32_t w, uint64_t bits)
{
	char *s = e->ints[e->next_int++ % 8];
	int64_t v = w == 64 ? (int64_t)bits
			    : (int64_t)(bits << (64 - w)) >> (64 - w);
	if (v == INT64_MIN)
		snprintf(s, 40, "INT64_MIN");
	else if (w < 64)
		snprintf(s, 40, "%lld", (long long)v);
	else
		snprintf(s, 40, "INT64_C(%lld)", (long long)v);
	return s;
}

const char *
emit_int_min(uint32_t w)
{
	return w == 8    ? "INT8_MIN"
	       : w == 16 ? "INT16_MIN"
	       : w == 32 ? "INT32_MIN"
			 : "INT64_MIN";
}

/* The line and "%f at instN (line L): text" that keel run prints for a
 * trap there. */
uint32_t
emit_site(fn_ctx *c, kl_inst i)
{
	kl_buf text = { 0 };
	size_t len;
	const char *name = kl_sym_name(c->e->m, kl_func_sym(c->f), &len);
	kl_name_format(name, len, &text);
	kl_buf_printf(&text, " at inst%u", i.id);
	uint32_t ln = kl_inst_source_line(c->f, i);
	if (ln)
		kl_buf_printf(&text, " (line %u)", ln);
	kl_buf_puts(&text, ": ");
	kl_print_inst(c->f, i, &text);
	kl_buf_printf(&c->e->sites, "\t{ %u, ", ln);
	emit_c_string(&c->e->sites, text.data, text.len);
	kl_buf_puts(&c->e->sites, " },\n");
	kl_buf_free(&text);
	return c->e->nsites++;
}

bool
emit_unused(fn_ctx *c, kl_value v)
{
	uint32_t n;
	kl_uses_of(c->uses, c->f, v, &n);
	return n == 0;
}

bool
emit_dropped(fn_ctx *c, kl_inst i)
{
	kl_opcode op = kl_inst_opcode(c->f, i);
	return kl_inst_num_results(c->f, i) == 1 &&
	       (kl_op_is_pure(op) || op == KL_OP_ALLOCA) &&
	       emit_unused(c, kl_inst_result(c->f, i, 0));
}

const char *
emit_val(fn_ctx *c, kl_value v)
{
	char *s = c->vals[c->next_val++ % 8];
	snprintf(s, 16, "v%u", kl_value_resolve(c->f, v).id);
	return s;
}

const char *
emit_arg(fn_ctx *c, kl_inst i, uint32_t n)
{
	return emit_val(c, kl_inst_arg(c->f, i, n));
}

void
emit_sig(emitter *e, kl_signature sig, sig_text *st, bool names,
	 uint32_t first_value)
{
	const kl_module *m = e->m;
	kl_buf_reset(&st->ret);
	kl_buf_reset(&st->params);
	kl_buf_reset(&st->check);
	if (sig.num_results == 0) {
		kl_buf_puts(&st->ret, "void");
	} else if (sig.num_results == 1) {
		kl_buf_puts(&st->ret, emit_ctype(m, sig.results[0]));
	} else {
		kl_buf def = { 0 };
		kl_buf_puts(&st->ret, "struct rt_r");
		for (uint32_t k = 0; k < sig.num_results; k++)
			kl_buf_printf(
				&st->ret, "_%s",
				kl_type_name(m,
					     kl_type_class(m, sig.results[k])));
		kl_buf_printf(&def, "%s {\n", st->ret.data);
		for (uint32_t k = 0; k < sig.num_results; k++)
			kl_buf_printf(&def, "\t%s r%u;\n",
				      emit_ctype(m, sig.results[k]), k);
		kl_buf_puts(&def, "};\n\n");
		if (!e->types.data || !strstr(e->types.data, def.data))
			kl_buf_puts(&e->types, def.data);
		kl_buf_free(&def);
	}
	for (uint32_t k = 0; k < sig.num_params; k++) {
		kl_buf_printf(&st->params, "%s%s", k ? ", " : "",
			      emit_ctype(m, sig.params[k]));
		if (names)
			kl_buf_printf(&st->params, " v%u", first_value + k);
	}
	if (sig.num_params == 0)
		kl_buf_puts(&st->params, "void");
	/* the signature as the text format writes it, machine types:
	 * what call_indirect compares, and its bad_sig message shows */
	kl_buf_putc(&st->check, '(');
	for (uint32_t k = 0; k < sig.num_params; k++)
		kl_buf_printf(&st->check, "%s%s", k ? ", " : "",
			      kl_type_name(m, kl_type_class(m, sig.params[k])));
	if (sig.variadic)
		kl_buf_puts(&st->check, sig.num_params ? ", ..." : "...");
	kl_buf_putc(&st->check, ')');
	for (uint32_t k = 0; k < sig.num_results; k++)
		kl_buf_printf(
			&st->check, "%s%s", k ? ", " : " -> ",
			kl_type_name(m, kl_type_class(m, sig.results[k])));
}

void
emit_sig_free(sig_text *st)
{
	kl_buf_free(&st->ret);
	kl_buf_free(&st->params);
	kl_buf_free(&st->check);
}

void
emit_call_args(fn_ctx *c, kl_inst i, uint32_t first, uint32_t n, kl_buf *out)
{
	uint32_t total = kl_inst_num_args(c->f, i);
	for (uint32_t k = first; k < total && k - first < n; k++)
		kl_buf_printf(out, "%s%s", k > first ? ", " : "",
			      emit_arg(c, i, k));
}
