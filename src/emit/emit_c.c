/*
 * emit_c.c -- kl_emit_c: a keel module as readable C, through keel.h
 * alone (emit_c.h lists the files). The control flow comes from the
 * structured regions (kl_regions, after
 * Ramsey's "Beyond Relooper"), so loops are `for (;;)`, branches `if`
 * and `switch`, and a `goto` appears only for an edge into an
 * irreducible part of the graph, or for a break or continue that C's
 * unlabelled ones cannot say.
 *
 *   keel emit-c FILE.kl > out.c
 *   cc -std=c11 -O1 out.c -lm -o out && ./out
 *
 * The program prints what `keel run FILE.kl` prints on standard output
 * (main's output, then its results on a line of their own) and exits
 * with its status (main's first integer result modulo 256, exit(N)'s N,
 * 1 on a trap, with keel run's first two lines of the trap's message on
 * stderr; the "called from" lines of the stack are not kept).
 *
 * How the IR maps to C. Every value is a local of an unsigned type
 * (uint8_t .. uint64_t) or float/double, named vN; the entry block's
 * parameters are the C function's. Block parameters are assigned from
 * the branch arguments at each edge node, as a parallel copy (a cycle,
 * such as a swap, goes through a temporary). Integer arithmetic is done
 * unsigned, so it wraps; signed readings cast to intN_t. Shift amounts
 * are masked to the width; divisions call helpers that trap as the IR
 * says. Float operations go through the IR's NaN rule. Loads, stores
 * and bitcasts are memcpy. A constant alloca of the entry block is a
 * zeroed local array; any other alloca is zeroed heap memory freed
 * when the function returns. Data objects are static byte arrays (their
 * symbol addresses filled in at start-up). Calls to declared functions
 * go to C versions of keel run's built-ins; any other declared function
 * fails when called, as in keel run.
 *
 * Where the C program cannot agree with the interpreter:
 * - Pointers are host addresses, not the interpreter's (object id <<
 *   32 | offset): a program that prints or compares pointers of
 *   different objects sees other numbers. An access outside an object,
 *   a use after return or free, a store into const data (emitted
 *   writable) or a bad free is undefined behaviour, not heap_oob.
 * - No fuel, no call-depth or memory limits: a program that runs out of
 *   fuel or traps stack_overflow under keel run may run on, overflow
 *   the host's stack, or fail to allocate (an alloca then traps
 *   stack_overflow, malloc returns null).
 * - printf's arguments are passed with their C types: a conversion the
 *   interpreter refuses for its argument's IR type (a failed run) is
 *   whatever the host's printf does; %p prints a host address.
 * - Signed conversions and >> of negative values rely on the host
 *   wrapping modulo 2^w and shifting arithmetically (gcc and clang do);
 *   loads and stores assume a little-endian host; float arithmetic must
 *   be IEEE binary32/64 evaluated at its type (FLT_EVAL_METHOD 0, no
 *   -ffast-math), as the interpreter requires of its host.
 *
 * Refused, with a diagnostic naming the function and instruction (and
 * KL_ERR_VERIFY with the verifier's for IR that does not verify): a
 * %main with parameters,
 * call_indirect through a variadic signature, types other than the
 * six built-in machine classes, a data object over 2^31 bytes or
 * aligned past 4096. Blocks that cannot run are left out, as the
 * regions tree leaves them out.
 */
#include "emit_c.h"
#include "../interp/builtins.h"

#include "emit_c_runtime.h"

/* Is s a declared function that is keel run's built-in name, with a
 * declaration that built-in accepts (the interpreter's own rule)? */
bool
emit_is_builtin(const kl_module *m, kl_sym s, const char *name)
{
	size_t len;
	const char *n = kl_sym_name(m, s, &len);
	return !kl_sym_func(m, s) && kl_sym_get_kind(m, s) == KL_SYM_FUNC &&
	       len == strlen(name) && memcmp(n, name, len) == 0 &&
	       interp_builtin_fits(m, s, NULL);
}

/* The C body of a declared function: a built-in, or the failure keel
 * run reports when such a function is called. */
static void
emit_declared(emitter *e, kl_sym s, kl_buf *out)
{
	const kl_module *m = e->m;
	static const char *const body[] = {
		"putchar",
		"rt_out(&(unsigned char){ (unsigned char)v0 }, 1);"
		"\n\tr = (unsigned char)v0;",
		"puts",
		"r = (uint64_t)(int64_t)rt_puts(v0);",
		"printf",
		"va_list ap;\n\tva_start(ap, v0);\n\t"
		"r = (uint64_t)(int64_t)rt_vprintf(v0, ap);\n\tva_end(ap);",
		"malloc",
		"r = rt_malloc(v0);",
		"calloc",
		"r = rt_calloc(v0, v1);",
		"free",
		"free(rt_at(v0, 0));",
		"memcpy",
		"memmove(rt_at(v0, 0), rt_at(v1, 0), v2);\n\tr = v0;",
		"memmove",
		"memmove(rt_at(v0, 0), rt_at(v1, 0), v2);"
		"\n\tr = v0;",
		"memset",
		"memset(rt_at(v0, 0), (unsigned char)v1, v2);"
		"\n\tr = v0;",
		"strlen",
		"r = strlen(rt_at(v0, 0));",
		"abort",
		"rt_trap(0, \"abort: the program called abort()\");",
		"exit",
		"fflush(stdout);\n\texit((int)(v0 & 255));",
		NULL,
	};
	kl_signature sig = kl_sym_signature(m, s);
	sig_text st = { 0 };
	emit_sig(e, sig, &st, true, 0);
	bool vararg = emit_is_builtin(m, s, "printf");
	kl_buf_printf(out, "static %s\n%s(%s%s)\n{\n", st.ret.data,
		      emit_ident(e, s), st.params.data, vararg ? ", ..." : "");
	const char *code = NULL;
	for (uint32_t k = 0; body[k]; k += 2)
		if (emit_is_builtin(m, s, body[k]))
			code = body[k + 1];
	if (code) {
		kl_buf_printf(out, "\tuint64_t r = 0;\n\t%s\n", code);
		kl_buf_puts(out,
			    sig.num_results ? "\treturn r;\n" : "\t(void)r;\n");
	} else {
		/* keel run's message when it is called; its parameters are
		 * not read */
		kl_buf text = { 0 };
		interp_builtin_fits(m, s, &text);
		for (uint32_t k = 0; k < sig.num_params; k++)
			kl_buf_printf(out, "\t(void)v%u;\n", k);
		kl_buf_puts(out, "\trt_fail(");
		emit_c_string(out, text.data, text.len);
		kl_buf_puts(out, ");\n");
		kl_buf_free(&text);
	}
	kl_buf_puts(out, "}\n\n");
	emit_sig_free(&st);
}

/* A data object: its bytes; the addresses of symbols it holds are
 * written by rt_init at start-up, as they are no constants to C. Only the
 * bytes up to the last value or string are made: `zero N` items cost
 * nothing, however big. */
static void
emit_data(emitter *e, kl_sym s, kl_buf *out, kl_buf *init)
{
	const kl_module *m = e->m;
	uint64_t size = kl_data_size(m, s), at = 0, end = 0;
	uint32_t align = kl_data_align(m, s), n = kl_data_num_items(m, s);
	if (size > ((uint64_t)1 << 31) || align > 4096) {
		emit_refuse_module(e, s, "%s",
				   align > 4096 ? "aligned past 4096"
						: "over 2^31 bytes");
		return;
	}
	for (uint32_t k = 0; k < n; k++) {
		kl_data_item it = kl_data_item_at(m, s, k);
		if (it.kind == KL_DATA_STRING)
			at += it.len;
		else if (it.kind == KL_DATA_ZERO)
			at += it.value;
		else
			at += kl_type_bytes(m, it.type);
		if (it.kind == KL_DATA_VALUE || it.kind == KL_DATA_STRING)
			end = at;
	}
	unsigned char *bytes = kl_calloc(end ? end : 1, 1);
	at = 0;
	for (uint32_t k = 0; k < n; k++) {
		kl_data_item it = kl_data_item_at(m, s, k);
		uint32_t w = kl_type_bytes(m, it.type);
		switch (it.kind) {
		case KL_DATA_VALUE:
			for (uint32_t b = 0; b < w; b++)
				bytes[at + b] = (unsigned char)(it.value >>
								(8 * b));
			at += w;
			break;
		case KL_DATA_STRING:
			memcpy(bytes + at, it.bytes, it.len);
			at += it.len;
			break;
		case KL_DATA_ZERO:
			at += it.value;
			break;
		case KL_DATA_SYMREF:
			kl_buf_printf(init, "\t{\n\t\tuint64_t a = ");
			if (kl_sym_get_kind(m, it.sym) == KL_SYM_DATA)
				kl_buf_printf(init, "rt_ptr(%s)",
					      emit_ident(e, it.sym));
			else
				kl_buf_printf(init, "(uint64_t)(uintptr_t)%s",
					      emit_ident(e, it.sym));
			kl_buf_printf(init, " + UINT64_C(0x%llx);\n",
				      (unsigned long long)it.value);
			kl_buf_printf(init,
				      "\t\tmemcpy(%s + %llu, &a, %u);\n"
				      "\t}\n",
				      emit_ident(e, s), (unsigned long long)at,
				      w);
			at += w;
			break;
		}
	}
	uint64_t used = end;
	while (used > 0 && bytes[used - 1] == 0)
		used--;
	kl_buf_printf(out, "static _Alignas(%u) unsigned char %s[%llu] = {",
		      align, emit_ident(e, s),
		      (unsigned long long)(size ? size : 1));
	for (uint64_t k = 0; k < (used ? used : 1); k++)
		kl_buf_printf(out, "%s%u,", k % 12 ? " " : "\n\t", bytes[k]);
	kl_buf_puts(out, "\n};\n\n");
	free(bytes);
}

/* call_indirect's checks, with the interpreter's messages. */
static const char *const check_call[] = {
	"RT_STATIC void",
	"rt_check_call(uint64_t p, const char *sig, unsigned site)",
	"{",
	"\tchar text[128];",
	"\tfor (size_t k = 0; k < sizeof rt_fns / sizeof *rt_fns; k++) {",
	"\t\tif ((uint64_t)(uintptr_t)rt_fns[k].fn != p)",
	"\t\t\tcontinue;",
	"\t\tif (strcmp(rt_fns[k].sig, sig) == 0)",
	"\t\t\treturn;",
	"\t\tsize_t n = strlen(rt_fns[k].name) + strlen(rt_fns[k].sig) +",
	"\t\t\t   strlen(sig) + 80;",
	"\t\tchar *msg = malloc(n);",
	"\t\tif (msg)",
	"\t\t\tsnprintf(msg, n, \"bad_sig: call_indirect to %s, whose \"",
	"\t\t\t\t \"signature %s differs from the call's %s\",",
	"\t\t\t\t rt_fns[k].name, rt_fns[k].sig, sig);",
	"\t\trt_trap(site, msg ? msg : \"bad_sig\");",
	"\t}",
	"\tsnprintf(text, sizeof text, \"heap_oob: call_indirect to \"",
	"\t\t \"0x%016llx, which is not a function address\",",
	"\t\t (unsigned long long)p);",
	"\trt_trap(site, text);",
	"}",
	NULL
};

/* The C main: run %main, then print its results as keel run does and
 * exit with keel run's status. */
static void
emit_main(emitter *e, kl_sym s, kl_buf *out)
{
	const kl_module *m = e->m;
	kl_signature sig = kl_sym_signature(m, s);
	kl_buf_puts(out, "int\nmain(void)\n{\n\trt_init();\n");
	if (sig.num_results == 0) {
		/* keel run's line of results is empty then */
		kl_buf_printf(out, "\t%s();\n\tif (rt_last != '\\n')\n"
				   "\t\tputchar('\\n');\n\tputchar('\\n');\n"
				   "\treturn 0;\n}\n",
			      emit_ident(e, s));
		return;
	}
	sig_text st = { 0 };
	emit_sig(e, sig, &st, false, 0);
	kl_buf_printf(out, "\t%s r = %s();\n", st.ret.data, emit_ident(e, s));
	kl_buf_puts(out, "\tif (rt_last != '\\n')\n\t\tputchar('\\n');\n");
	for (uint32_t k = 0; k < sig.num_results; k++) {
		kl_type t = kl_type_class(m, sig.results[k]);
		char field[16] = "r";
		if (sig.num_results > 1)
			snprintf(field, sizeof field, "r.r%u", k);
		if (t == KL_TYPE_F32)
			kl_buf_printf(out, "\trt_show_f(rt_b32(%s), 0, %d);\n",
				      field, k == 0);
		else if (t == KL_TYPE_F64)
			kl_buf_printf(out, "\trt_show_f(rt_b64(%s), 1, %d);\n",
				      field, k == 0);
		else if (kl_type_refinement(m, sig.results[k]) ==
			 KL_REFINE_UNSIGNED) /* as keel run shows it */
			kl_buf_printf(out, "\trt_show_uint((%s)%s, %d);\n",
				      emit_ctype(m, t), field, k == 0);
		else
			kl_buf_printf(out, "\trt_show_int((%s)%s, %d);\n",
				      emit_stype(m, t), field, k == 0);
	}
	kl_buf_puts(out, "\tputchar('\\n');\n");
	if (kl_type_is_int(m, sig.results[0]))
		kl_buf_printf(out, "\treturn (int)(%s & 255);\n}\n",
			      sig.num_results > 1 ? "r.r0" : "r");
	else
		kl_buf_puts(out, "\treturn 0;\n}\n");
	emit_sig_free(&st);
}

/* The parts of the program, made one symbol at a time and put together
 * in C's order at the end. */
typedef struct parts {
	kl_buf data, init, protos, funcs, fns;
	kl_sym main_sym;
} parts;

/* Symbol s's share of the parts. */
static void
emit_sym(emitter *e, kl_sym s, parts *p)
{
	const kl_module *m = e->m;
	size_t len;
	const char *name = kl_sym_name(m, s, &len);
	if (kl_sym_get_kind(m, s) == KL_SYM_DATA) {
		emit_data(e, s, &p->data, &p->init);
		return;
	}
	kl_func *f = kl_sym_func(m, s);
	kl_signature sig = kl_sym_signature(m, s);
	for (uint32_t k = 0; k < sig.num_params; k++)
		if (!emit_ctype(m, sig.params[k])) {
			emit_refuse_module(e, s,
					   "a parameter of a type that "
					   "is no machine class");
			return;
		}
	for (uint32_t k = 0; k < sig.num_results; k++)
		if (!emit_ctype(m, sig.results[k])) {
			emit_refuse_module(e, s,
					   "a result of a type that is "
					   "no machine class");
			return;
		}
	sig_text st = { 0 };
	emit_sig(e, sig, &st, false, 0);
	bool variadic = !f && emit_is_builtin(m, s, "printf");
	kl_buf_printf(&p->protos, "static %s %s(%s%s);\n", st.ret.data,
		      emit_ident(e, s), st.params.data,
		      variadic ? ", ..." : "");
	kl_buf_printf(&p->fns, "\t{ (void (*)(void))%s, ", emit_ident(e, s));
	kl_buf names = { 0 };
	kl_name_format(name, len, &names);
	emit_c_string(&p->fns, names.data, names.len);
	kl_buf_printf(&p->fns, ", \"%s\" },\n", st.check.data);
	kl_buf_free(&names);
	emit_sig_free(&st);
	if (!f) {
		emit_declared(e, s, &p->funcs);
		return;
	}
	if (len == 4 && memcmp(name, "main", 4) == 0) {
		if (sig.num_params)
			emit_refuse_module(e, s, "it takes parameters");
		p->main_sym = s;
	}
	emit_func(e, f, &p->funcs);
}

static void
put_lines(kl_buf *out, const char *const *lines)
{
	for (uint32_t k = 0; lines[k]; k++) {
		kl_buf_puts(out, lines[k]);
		kl_buf_putc(out, '\n');
	}
}

/* The program: includes, trap sites, runtime, types, prototypes, data,
 * the table of functions, their checks, start-up, functions, main. */
static void
put_program(emitter *e, parts *p, kl_buf *out)
{
	/* the file's name in a comment, which a "*" "/" in it would end */
	kl_buf_puts(out, "/* Generated by keel (kl_emit_c) from ");
	for (const char *q = e->file; *q; q++) {
		kl_buf_putc(out, *q);
		if (q[0] == '*' && q[1] == '/')
			kl_buf_putc(out, ' ');
	}
	kl_buf_puts(out, ". */\n");
	kl_buf_puts(out, "#include <stdarg.h>\n#include <stdint.h>\n"
			 "#include <stdio.h>\n#include <stdlib.h>\n"
			 "#include <string.h>\n#include <math.h>\n\n");
	kl_buf_puts(out, "static const char rt_file[] = ");
	emit_c_string(out, e->file, strlen(e->file));
	kl_buf_puts(out, ";\n\n");
	kl_buf_puts(out,
		    "/* Where each trap can happen, as keel run names it. */\n"
		    "static const struct rt_site {\n\tunsigned line;\n"
		    "\tconst char *text;\n} rt_site[] = {\n");
	kl_buf_append(out, e->sites.data, e->sites.len);
	kl_buf_puts(out, "};\n\n");
	put_lines(out, runtime);
	kl_buf_putc(out, '\n');
	kl_buf_append(out, e->types.data, e->types.len);
	kl_buf_append(out, p->protos.data, p->protos.len);
	kl_buf_putc(out, '\n');
	kl_buf_append(out, p->data.data, p->data.len);
	kl_buf_puts(out, "/* The functions call_indirect may reach: names, "
			 "signatures. */\nstatic const struct {\n"
			 "\tvoid (*fn)(void);\n\tconst char *name, *sig;\n"
			 "} rt_fns[] = {\n");
	if (p->fns.len)
		kl_buf_append(out, p->fns.data, p->fns.len);
	else
		kl_buf_puts(out, "\t{ NULL, \"\", \"\" },\n");
	kl_buf_puts(out, "};\n\n");
	put_lines(out, check_call);
	kl_buf_puts(out, "\n/* The addresses of symbols that data objects "
			 "hold. */\nRT_STATIC void\nrt_init(void)\n{\n");
	kl_buf_append(out, p->init.data, p->init.len);
	kl_buf_puts(out, "}\n\n");
	kl_buf_append(out, p->funcs.data, p->funcs.len);
	if (p->main_sym.id != KL_NONE)
		emit_main(e, p->main_sym, out);
}

kl_status
kl_emit_c(const kl_module *m, const char *file, kl_buf *out, kl_diags *diags)
{
	if (!m || !out)
		return KL_ERR_INVALID;
	emitter e = { .m = m,
		      .file = file ? file : "<module>",
		      .diags = diags };
	if (!emit_verified(e.m, e.diags))
		return KL_ERR_VERIFY;
	kl_status st = KL_OK;
	if (kl_type_class(m, kl_module_pointer_type(m)) != KL_TYPE_I64) {
		emit_refuse_module(&e, KL_NO_SYM, "pointers are not i64");
		return KL_ERR_UNSUPPORTED;
	}
	parts p = { .main_sym = KL_NO_SYM };
	kl_buf_puts(&e.sites, "\t{ 0, \"a built-in called indirectly\" },\n");
	e.nsites = 1;
	for (uint32_t k = 0; k < kl_module_num_syms(m); k++)
		emit_sym(&e, (kl_sym){ k }, &p);
	if (e.refused)
		st = KL_ERR_UNSUPPORTED;
	else
		put_program(&e, &p, out);
	kl_buf_free(&p.data);
	kl_buf_free(&p.init);
	kl_buf_free(&p.protos);
	kl_buf_free(&p.funcs);
	kl_buf_free(&p.fns);
	kl_buf_free(&e.sites);
	kl_buf_free(&e.types);
	kl_buf_free(&e.ident);
	return st;
}
