/*
 * emit_c.c -- a keel module as readable C, through keel.h alone: the
 * control flow comes from the structured regions (kl_regions, after
 * Ramsey's "Beyond Relooper"), so loops are `for (;;)`, branches `if`
 * and `switch`, and a `goto` appears only for an edge into an
 * irreducible part of the graph, or for a break or continue that C's
 * unlabelled ones cannot say.
 *
 *   make build/emit_c && ./build/emit_c FILE.kl > out.c
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
 * Refused, with an error naming the file, function and instruction
 * and exit status 1: IR that does not verify, a %main with parameters,
 * call_indirect through a variadic signature, types other than the
 * six built-in machine classes, a data object over 2^31 bytes or
 * aligned past 4096, regions nested deeper than 1,000 (C compilers
 * have limits of their own). Blocks that cannot run are left out, as
 * the regions tree leaves them out.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keel.h"

/* The runtime the emitted program starts with: helpers whose names
 * begin rt_, after the includes, the file name and the trap sites. */
#include "emit_c_runtime.h"

/* Built-in external functions keel run provides: the parameters each
 * takes (printf: then `...`). */
static const struct builtin {
	const char *name;
	uint32_t params;
} builtins[] = {
	{ "putchar", 1 }, { "puts", 1 }, { "printf", 1 }, { "malloc", 1 },
	{ "calloc", 2 }, { "free", 1 }, { "memcpy", 3 }, { "memmove", 3 },
	{ "memset", 3 }, { "strlen", 1 }, { "abort", 0 }, { "exit", 1 },
};

#define MAX_DEPTH 1000

typedef struct emitter {
	const char *file;
	kl_module *m;
	kl_buf sites; /* the rt_site table's entries */
	uint32_t nsites;
} emitter;

/* One function being emitted. */
typedef struct fn_ctx {
	emitter *e;
	kl_func *f;
	kl_cfg *cfg;
	kl_regions *rg;
	kl_buf *out;
	uint8_t *label; /* per region node: a goto names it (LABEL_*) */
	bool heap;      /* allocas on the heap: release at every return */
	uint32_t depth;
} fn_ctx;

enum { LABEL_CODE = 1, LABEL_AFTER = 2, LABEL_TOP = 4 };

static void *
must(void *p)
{
	if (!p) {
		fputs("emit_c: out of memory\n", stderr);
		exit(1);
	}
	return p;
}

/* Refuse what cannot be translated: file, function, instruction. */
static _Noreturn void
refuse(fn_ctx *c, kl_inst i, const char *fmt, ...)
{
	kl_buf msg = { 0 };
	size_t len;
	const char *name = kl_sym_name(c->e->m, kl_func_sym(c->f), &len);
	kl_buf_printf(&msg, "emit_c: %s", c->e->file);
	if (i.id != KL_NONE && kl_inst_source_line(c->f, i))
		kl_buf_printf(&msg, ":%u", kl_inst_source_line(c->f, i));
	kl_buf_puts(&msg, ": ");
	kl_name_format(name, len, &msg);
	if (i.id != KL_NONE) {
		kl_buf_printf(&msg, ": inst%u (", i.id);
		kl_print_inst(c->f, i, &msg);
		kl_buf_puts(&msg, ")");
	}
	kl_buf_puts(&msg, ": cannot translate: ");
	va_list ap;
	va_start(ap, fmt);
	char text[256];
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	kl_buf_puts(&msg, text);
	fprintf(stderr, "%s\n", msg.data);
	exit(1);
}

static void
indent(kl_buf *out, uint32_t n)
{
	while (n-- > 0)
		kl_buf_putc(out, '\t');
}

/* One line of C at indentation n. */
static void
line(fn_ctx *c, uint32_t n, const char *fmt, ...)
{
	char text[1024];
	va_list ap;
	va_start(ap, fmt);
	int len = vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	indent(c->out, n);
	if (len >= (int)sizeof text) {
		/* a long call: format it again at its length */
		char *big = must(malloc((size_t)len + 1));
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

/* The bytes of a C string literal for s[0..len). */
static void
c_string(kl_buf *out, const char *s, size_t len)
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

/* A C identifier for symbol s: f_ or d_ and its name when that is one
 * already, else the symbol's number too, so names never collide. */
static void
sym_ident(const kl_module *m, kl_sym s, kl_buf *out)
{
	size_t len;
	const char *name = kl_sym_name(m, s, &len);
	bool plain = len > 0;
	for (size_t k = 0; k < len; k++) {
		char ch = name[k];
		if (!(ch == '_' || (ch >= '0' && ch <= '9') ||
		      (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z')))
			plain = false;
	}
	kl_buf_putc(out, kl_sym_get_kind(m, s) == KL_SYM_DATA ? 'd' : 'f');
	if (!plain)
		kl_buf_printf(out, "%u", s.id);
	kl_buf_putc(out, '_');
	for (size_t k = 0; k < len && k < 64; k++) {
		char ch = name[k];
		bool ok = ch == '_' || (ch >= '0' && ch <= '9') ||
			  (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
		kl_buf_putc(out, ok ? ch : '_');
	}
}

/* sym_ident as a string that lives until the next call. */
static const char *
ident(const kl_module *m, kl_sym s)
{
	static kl_buf b;
	kl_buf_reset(&b);
	sym_ident(m, s, &b);
	return b.data;
}

static uint32_t
width(const kl_module *m, kl_type t)
{
	return kl_type_bytes(m, t) * 8;
}

/* The C type of an IR type; the signed one of an integer type. */
static const char *
ctype(const kl_module *m, kl_type t)
{
	switch (kl_type_class(m, t)) {
	case KL_TYPE_I8: return "uint8_t";
	case KL_TYPE_I16: return "uint16_t";
	case KL_TYPE_I32: return "uint32_t";
	case KL_TYPE_I64: return "uint64_t";
	case KL_TYPE_F32: return "float";
	case KL_TYPE_F64: return "double";
	default: return NULL;
	}
}

static const char *
stype(const kl_module *m, kl_type t)
{
	switch (kl_type_class(m, t)) {
	case KL_TYPE_I8: return "int8_t";
	case KL_TYPE_I16: return "int16_t";
	case KL_TYPE_I32: return "int32_t";
	default: return "int64_t";
	}
}

/* A C constant of integer type t holding bits (cut to t's width). */
static const char *
cint(const kl_module *m, kl_type t, uint64_t bits)
{
	static char text[4][40];
	static unsigned next;
	char *s = text[next++ % 4];
	uint32_t w = width(m, t);
	if (w < 64)
		bits &= ((uint64_t)1 << w) - 1;
	int64_t neg = (int64_t)(bits << (64 - w)) >> (64 - w);
	/* a small negative one as such, but below 32 bits, where the
	 * cast's value would promote to int (and its products overflow) */
	if (w >= 32 && neg < 0 && neg > -10000)
		snprintf(s, 40, "(%s)%lld", w == 32 ? "uint32_t" : "uint64_t",
			 (long long)neg);
	else if (w == 64)
		snprintf(s, 40, bits < 10000 ? "UINT64_C(%llu)" :
			 "UINT64_C(0x%llx)", (unsigned long long)bits);
	else
		snprintf(s, 40, bits < 10000 ? "%lluu" : "0x%llxu",
			 (unsigned long long)bits);
	return s;
}

/* bits of a w-bit integer read as signed, as a C constant. */
static const char *
sint(uint32_t w, uint64_t bits)
{
	static char text[2][40];
	static unsigned next;
	char *s = text[next++ % 2];
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

static const char *
int_min(uint32_t w)
{
	return w == 8 ? "INT8_MIN" : w == 16 ? "INT16_MIN"
		: w == 32 ? "INT32_MIN" : "INT64_MIN";
}

/* A trap site: the line and "%f at instN (line L): text" that keel
 * run prints for a trap there. Returns its number in rt_site. */
static uint32_t
site(fn_ctx *c, kl_inst i)
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
	c_string(&c->e->sites, text.data, text.len);
	kl_buf_puts(&c->e->sites, " },\n");
	kl_buf_free(&text);
	return c->e->nsites++;
}

static const char *
val(fn_ctx *c, kl_value v)
{
	static char text[8][16];
	static unsigned next;
	char *s = text[next++ % 8];
	snprintf(s, 16, "v%u", kl_value_resolve(c->f, v).id);
	return s;
}

static const char *
arg(fn_ctx *c, kl_inst i, uint32_t n)
{
	return val(c, kl_inst_arg(c->f, i, n));
}

/* A float constant: a hex float literal when finite, else its bits. */
static void
float_const(fn_ctx *c, uint32_t ind, const char *r, bool is64, int64_t b)
{
	if (is64) {
		uint64_t bits = (uint64_t)b;
		double d;
		memcpy(&d, &bits, sizeof d);
		if (d - d == 0)
			line(c, ind, "%s = %a;", r, d);
		else
			line(c, ind, "%s = rt_f64(UINT64_C(0x%llx));", r,
			     (unsigned long long)bits);
	} else {
		uint32_t bits = (uint32_t)b;
		float f;
		memcpy(&f, &bits, sizeof f);
		if (f - f == 0)
			line(c, ind, "%s = %af;", r, (double)f);
		else
			line(c, ind, "%s = rt_f32(0x%lxu);", r,
			     (unsigned long)bits);
	}
}

static const char *const icc_op[] = {
	"==", "!=", "<", "<=", ">", ">=", "<", "<=", ">", ">=",
};

/* A binary integer operation: unsigned arithmetic, so it wraps (below
 * 32 bits the operands are made unsigned int first, since uint8_t and
 * uint16_t promote to int, whose products can overflow). */
static void
int_binary(fn_ctx *c, uint32_t ind, kl_inst i, const char *r,
	   kl_type t, const char *op)
{
	const char *ty = ctype(c->e->m, t);
	if (width(c->e->m, t) < 32)
		line(c, ind, "%s = (%s)((unsigned)%s %s %s);", r, ty,
		     arg(c, i, 0), op, arg(c, i, 1));
	else
		line(c, ind, "%s = %s %s %s;", r, arg(c, i, 0), op,
		     arg(c, i, 1));
}

static void
emit_call(fn_ctx *c, uint32_t ind, kl_inst i);

/* Instruction i, not a terminator. */
static void
emit_inst(fn_ctx *c, uint32_t ind, kl_inst i)
{
	const kl_module *m = c->e->m;
	kl_opcode op = kl_inst_opcode(c->f, i);
	if (kl_op_is_call(op)) {
		emit_call(c, ind, i);
		return;
	}
	kl_value rv = kl_inst_result(c->f, i, 0);
	const char *r = rv.id == KL_NONE ? "" : val(c, rv);
	kl_type rt = kl_value_type(c->f, rv);
	kl_type t = kl_inst_num_args(c->f, i)
		? kl_value_type(c->f, kl_inst_arg(c->f, i, 0)) : rt;
	const char *ty = ctype(m, t), *rty = ctype(m, rt);
	const char *sty = stype(m, t), *rsty = stype(m, rt);
	uint32_t w = width(m, t);
	uint64_t imm = (uint64_t)kl_inst_imm(c->f, i);
	const char *a0 = kl_inst_num_args(c->f, i) ? arg(c, i, 0) : "";
	const char *a1 = kl_inst_num_args(c->f, i) > 1 ? arg(c, i, 1) : "";
	bool f64 = kl_type_class(m, t) == KL_TYPE_F64;
	const char *nan = f64 ? "rt_nan64" : "rt_nan32";
	int32_t off = kl_inst_offset(c->f, i);
	uint32_t cc = kl_inst_cond(c->f, i);
	switch (op) {
	case KL_OP_ICONST:
		line(c, ind, "%s = %s;", r, cint(m, rt, imm));
		break;
	case KL_OP_F32CONST:
	case KL_OP_F64CONST:
		float_const(c, ind, r, op == KL_OP_F64CONST, (int64_t)imm);
		break;
	case KL_OP_IADD: int_binary(c, ind, i, r, t, "+"); break;
	case KL_OP_ISUB: int_binary(c, ind, i, r, t, "-"); break;
	case KL_OP_IMUL: int_binary(c, ind, i, r, t, "*"); break;
	case KL_OP_BAND: int_binary(c, ind, i, r, t, "&"); break;
	case KL_OP_BOR: int_binary(c, ind, i, r, t, "|"); break;
	case KL_OP_BXOR: int_binary(c, ind, i, r, t, "^"); break;
	case KL_OP_SDIV:
		line(c, ind, "%s = (%s)rt_sdiv((%s)%s, (%s)%s, %s, %u);", r,
		     ty, sty, a0, sty, a1, int_min(w), site(c, i));
		break;
	case KL_OP_SREM:
		line(c, ind, "%s = (%s)rt_srem((%s)%s, (%s)%s, %u);", r, ty,
		     sty, a0, sty, a1, site(c, i));
		break;
	case KL_OP_UDIV:
	case KL_OP_UREM:
		line(c, ind, "%s = (%s)rt_u%s(%s, %s, %u);", r, ty,
		     op == KL_OP_UDIV ? "div" : "rem", a0, a1, site(c, i));
		break;
	case KL_OP_INEG:
		line(c, ind, "%s = (%s)(0u - %s);", r, ty, a0);
		break;
	case KL_OP_BNOT:
		line(c, ind, "%s = (%s)~%s;", r, ty, a0);
		break;
	case KL_OP_IADD_IMM:
	case KL_OP_IMUL_IMM:
	case KL_OP_BAND_IMM:
	case KL_OP_BOR_IMM:
	case KL_OP_BXOR_IMM: {
		/* the constant is unsigned, so the arithmetic is too */
		const char *o = op == KL_OP_IADD_IMM ? "+"
			: op == KL_OP_IMUL_IMM ? "*"
			: op == KL_OP_BAND_IMM ? "&"
			: op == KL_OP_BOR_IMM ? "|" : "^";
		line(c, ind, "%s = (%s)(%s %s %s);", r, ty, a0, o,
		     cint(m, t, imm));
		break;
	}
	case KL_OP_IRSUB_IMM:
		line(c, ind, "%s = (%s)(%s - %s);", r, ty, cint(m, t, imm),
		     a0);
		break;
	case KL_OP_UDIV_IMM:
	case KL_OP_UREM_IMM:
		/* the verifier refuses an immediate 0: no trap */
		line(c, ind, "%s = %s %s %s;", r, a0,
		     op == KL_OP_UDIV_IMM ? "/" : "%", cint(m, t, imm));
		break;
	case KL_OP_SDIV_IMM:
		line(c, ind, "%s = (%s)rt_sdiv((%s)%s, %s, %s, %u);", r, ty,
		     sty, a0, sint(w, imm), int_min(w), site(c, i));
		break;
	case KL_OP_SREM_IMM:
		line(c, ind, "%s = (%s)rt_srem((%s)%s, %s, %u);", r, ty, sty,
		     a0, sint(w, imm), site(c, i));
		break;
	case KL_OP_ISHL_IMM:
	case KL_OP_USHR_IMM:
		line(c, ind, "%s = (%s)(%s %s %u);", r, ty, a0,
		     op == KL_OP_ISHL_IMM ? "<<" : ">>",
		     (unsigned)(imm & (w - 1)));
		break;
	case KL_OP_SSHR_IMM:
		line(c, ind, "%s = (%s)((%s)%s >> %u);", r, ty, sty, a0,
		     (unsigned)(imm & (w - 1)));
		break;
	case KL_OP_ISHL:
	case KL_OP_USHR:
		/* (unsigned) keeps a uint8_t's shift out of int's sign */
		line(c, ind, "%s = (%s)(%s%s %s (%s & %u));", r, ty,
		     w < 32 ? "(unsigned)" : "", a0,
		     op == KL_OP_ISHL ? "<<" : ">>", a1, w - 1);
		break;
	case KL_OP_SSHR:
		line(c, ind, "%s = (%s)((%s)%s >> (%s & %u));", r, ty, sty,
		     a0, a1, w - 1);
		break;
	case KL_OP_ROTL:
	case KL_OP_ROTR:
		line(c, ind, "%s = (%s)rt_rot%c(%s, %s, %u);", r, ty,
		     op == KL_OP_ROTL ? 'l' : 'r', a0, a1, w);
		break;
	case KL_OP_CLZ:
	case KL_OP_CTZ:
		line(c, ind, "%s = (%s)rt_%s(%s, %u);", r, ty,
		     op == KL_OP_CLZ ? "clz" : "ctz", a0, w);
		break;
	case KL_OP_POPCNT:
		line(c, ind, "%s = (%s)rt_popcnt(%s);", r, ty, a0);
		break;
	case KL_OP_ICMP:
	case KL_OP_ICMP_IMM: {
		const char *b = op == KL_OP_ICMP ? a1 : cint(m, t, imm);
		if (cc >= KL_ICC_SLT && cc <= KL_ICC_SGE &&
		    op == KL_OP_ICMP_IMM)
			line(c, ind, "%s = (%s)%s %s %s;", r, sty, a0,
			     icc_op[cc], sint(w, imm));
		else if (cc >= KL_ICC_SLT && cc <= KL_ICC_SGE)
			line(c, ind, "%s = (%s)%s %s (%s)%s;", r, sty, a0,
			     icc_op[cc], sty, b);
		else
			line(c, ind, "%s = %s %s %s;", r, a0, icc_op[cc], b);
		break;
	}
	case KL_OP_FCMP: {
		static const char *const fop[] = {
			"==", "!=", "<", "<=", ">", ">=",
		};
		if (cc == KL_FCC_ORD)
			line(c, ind, "%s = %s == %s && %s == %s;", r, a0, a0,
			     a1, a1);
		else if (cc == KL_FCC_UNO)
			line(c, ind, "%s = %s != %s || %s != %s;", r, a0, a0,
			     a1, a1);
		else
			line(c, ind, "%s = %s %s %s;", r, a0, fop[cc], a1);
		break;
	}
	case KL_OP_SELECT:
		line(c, ind, "%s = %s ? %s : %s;", r, a0, a1, arg(c, i, 2));
		break;
	case KL_OP_BMASK:
		line(c, ind, "%s = %s ? (%s)-1 : 0;", r, a0, rty);
		break;
	case KL_OP_UEXTEND:
	case KL_OP_IREDUCE:
		line(c, ind, "%s = (%s)%s;", r, rty, a0);
		break;
	case KL_OP_SEXTEND:
		line(c, ind, "%s = (%s)(%s)(%s)%s;", r, rty, rsty, sty, a0);
		break;
	case KL_OP_COPY:
		line(c, ind, "%s = %s;", r, a0);
		break;
	case KL_OP_BITCAST:
		line(c, ind, "memcpy(&%s, &%s, sizeof %s);", r, a0, r);
		break;
	case KL_OP_FPROMOTE:
		line(c, ind, "%s = rt_promote(%s);", r, a0);
		break;
	case KL_OP_FDEMOTE:
		line(c, ind, "%s = rt_demote(%s);", r, a0);
		break;
	case KL_OP_FCVT_TO_SINT:
	case KL_OP_FCVT_TO_UINT: {
		/* the limits, exclusive: the truncation must fit */
		uint32_t rw = width(m, rt);
		bool sgn = op == KL_OP_FCVT_TO_SINT;
		double hi = rw == 64 ? (sgn ? 0x1p63 : 0x1p64)
			: sgn ? (double)((uint64_t)1 << (rw - 1))
			: (double)((uint64_t)1 << rw);
		double lo = rw == 64 ? -0x1.0000000000001p63 : -hi - 1;
		if (sgn)
			line(c, ind, "%s = (%s)rt_ftos(%s, %a, %a, %d, "
			     "\"signed i%u\", %u);", r, rty, a0, lo, hi, f64,
			     rw, site(c, i));
		else
			line(c, ind, "%s = (%s)rt_ftou(%s, %a, %d, "
			     "\"unsigned i%u\", %u);", r, rty, a0, hi, f64,
			     rw, site(c, i));
		break;
	}
	case KL_OP_FCVT_FROM_SINT:
		line(c, ind, "%s = (%s)(%s)%s;", r, rty, sty, a0);
		break;
	case KL_OP_FCVT_FROM_UINT:
		line(c, ind, "%s = (%s)%s;", r, rty, a0);
		break;
	case KL_OP_FADD:
	case KL_OP_FSUB:
	case KL_OP_FMUL:
	case KL_OP_FDIV: {
		const char *o = op == KL_OP_FADD ? "+" : op == KL_OP_FSUB
			? "-" : op == KL_OP_FMUL ? "*" : "/";
		line(c, ind, "%s = %s(%s %s %s, %s, %s);", r, nan, a0, o, a1,
		     a0, a1);
		break;
	}
	case KL_OP_SQRT:
		line(c, ind, "%s = %s(sqrt%s(%s), %s, %s);", r, nan,
		     f64 ? "" : "f", a0, a0, a0);
		break;
	case KL_OP_FNEG:
	case KL_OP_FABS:
		line(c, ind, "%s = rt_%s%s(%s);", r,
		     op == KL_OP_FNEG ? "neg" : "abs", f64 ? "64" : "32", a0);
		break;
	case KL_OP_ALLOCA: {
		uint32_t align = kl_inst_align(c->f, i);
		if (kl_inst_block(c->f, i).id ==
			    kl_func_first_block(c->f).id &&
		    imm <= 4096 && align <= 16)
			line(c, ind, "%s = rt_ptr(m%s);", r, r);
		else
			line(c, ind, "%s = rt_alloca(&frame, %s, %u, %u);", r,
			     cint(m, KL_TYPE_I64, imm), align, site(c, i));
		break;
	}
	case KL_OP_ALLOCA_DYN:
		line(c, ind, "%s = rt_alloca(&frame, %s, %u, %u);", r, a0,
		     kl_inst_align(c->f, i), site(c, i));
		break;
	case KL_OP_LOAD:
		line(c, ind, "memcpy(&%s, rt_at(%s, %d), sizeof %s);", r, a0,
		     off, r);
		break;
	case KL_OP_ULOAD8:
	case KL_OP_ULOAD16:
	case KL_OP_ULOAD32:
		line(c, ind, "%s = rt_ld%u(rt_at(%s, %d));", r,
		     kl_op_info(op)->memw * 8, a0, off);
		break;
	case KL_OP_SLOAD8:
	case KL_OP_SLOAD16:
	case KL_OP_SLOAD32: {
		uint32_t n = kl_op_info(op)->memw * 8;
		line(c, ind, "%s = (%s)(%s)(int%u_t)rt_ld%u(rt_at(%s, %d));",
		     r, rty, rsty, n, n, a0, off);
		break;
	}
	case KL_OP_STORE:
		line(c, ind, "memcpy(rt_at(%s, %d), &%s, sizeof %s);", a1,
		     off, a0, a0);
		break;
	case KL_OP_ISTORE8:
	case KL_OP_ISTORE16:
	case KL_OP_ISTORE32: {
		uint32_t n = kl_op_info(op)->memw * 8;
		line(c, ind, "rt_st%u(rt_at(%s, %d), (uint%u_t)%s);", n, a1,
		     off, n, a0);
		break;
	}
	case KL_OP_SYMBOL_ADDR: {
		kl_sym s = kl_inst_callee(c->f, i);
		if (kl_sym_get_kind(m, s) == KL_SYM_DATA)
			line(c, ind, "%s = rt_ptr(%s);", r, ident(m, s));
		else
			line(c, ind, "%s = (uint64_t)(uintptr_t)%s;", r,
			     ident(m, s));
		break;
	}
	default:
		refuse(c, i, "opcode %s is not known here", kl_op_name(op));
	}
}

/* The C spelling of a signature's result type (a struct for several
 * results, defined once in e->types) and of its parameters. */
typedef struct sig_text {
	kl_buf ret, params, check;
} sig_text;

static kl_buf types; /* the struct definitions of several results */

static void
sig_c(const kl_module *m, kl_signature sig, sig_text *st, bool names,
      uint32_t first_value)
{
	kl_buf_reset(&st->ret);
	kl_buf_reset(&st->params);
	kl_buf_reset(&st->check);
	if (sig.num_results == 0) {
		kl_buf_puts(&st->ret, "void");
	} else if (sig.num_results == 1) {
		kl_buf_puts(&st->ret, ctype(m, sig.results[0]));
	} else {
		kl_buf def = { 0 };
		kl_buf_puts(&st->ret, "struct rt_r");
		for (uint32_t k = 0; k < sig.num_results; k++)
			kl_buf_printf(&st->ret, "_%s",
				      kl_type_name(m, kl_type_class(m,
						      sig.results[k])));
		kl_buf_printf(&def, "%s {\n", st->ret.data);
		for (uint32_t k = 0; k < sig.num_results; k++)
			kl_buf_printf(&def, "\t%s r%u;\n",
				      ctype(m, sig.results[k]), k);
		kl_buf_puts(&def, "};\n\n");
		if (!types.data || !strstr(types.data, def.data))
			kl_buf_puts(&types, def.data);
		kl_buf_free(&def);
	}
	for (uint32_t k = 0; k < sig.num_params; k++) {
		kl_buf_printf(&st->params, "%s%s", k ? ", " : "",
			      ctype(m, sig.params[k]));
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
			      kl_type_name(m, kl_type_class(m,
					      sig.params[k])));
	if (sig.variadic)
		kl_buf_puts(&st->check, sig.num_params ? ", ..." : "...");
	kl_buf_putc(&st->check, ')');
	for (uint32_t k = 0; k < sig.num_results; k++)
		kl_buf_printf(&st->check, "%s%s", k ? ", " : " -> ",
			      kl_type_name(m, kl_type_class(m,
					      sig.results[k])));
}

static void
sig_text_free(sig_text *st)
{
	kl_buf_free(&st->ret);
	kl_buf_free(&st->params);
	kl_buf_free(&st->check);
}

/* The call's value operands, from first on (up to n of them). */
static void
call_args(fn_ctx *c, kl_inst i, uint32_t first, uint32_t n, kl_buf *out)
{
	uint32_t total = kl_inst_num_args(c->f, i);
	for (uint32_t k = first; k < total && k - first < n; k++)
		kl_buf_printf(out, "%s%s", k > first ? ", " : "",
			      arg(c, i, k));
}

static bool is_builtin_call(const kl_module *m, kl_sym s,
			    const char *name);

static void
emit_call(fn_ctx *c, uint32_t ind, kl_inst i)
{
	const kl_module *m = c->e->m;
	kl_buf callee = { 0 }, args = { 0 };
	sig_text st = { 0 };
	kl_signature sig;
	uint32_t first = 0, n = UINT32_MAX;
	if (kl_inst_opcode(c->f, i) == KL_OP_CALL) {
		kl_sym s = kl_inst_callee(c->f, i);
		sig = kl_sym_signature(m, s);
		if (is_builtin_call(m, s, "abort")) {
			line(c, ind, "rt_trap(%u, \"abort: the program called "
			     "abort()\");", site(c, i));
			return;
		}
		/* only printf reads extra arguments: a function of the
		 * module ignores them, a declared one fails when called */
		if (!is_builtin_call(m, s, "printf"))
			n = sig.num_params;
		sym_ident(m, s, &callee);
		sig_c(m, sig, &st, false, 0);
	} else {
		sig = kl_func_sigref_signature(c->f, kl_inst_sigref(c->f, i));
		if (sig.variadic)
			refuse(c, i, "call_indirect through a variadic "
			       "signature");
		sig_c(m, sig, &st, false, 0);
		line(c, ind, "rt_check_call(%s, \"%s\", %u);", arg(c, i, 0),
		     st.check.data, site(c, i));
		kl_buf_printf(&callee, "((%s (*)(%s))(uintptr_t)%s)",
			      st.ret.data, st.params.data, arg(c, i, 0));
		first = 1;
	}
	call_args(c, i, first, n, &args);
	uint32_t nres = kl_inst_num_results(c->f, i);
	const char *a = args.data ? args.data : "";
	if (nres == 0) {
		line(c, ind, "%s(%s);", callee.data, a);
	} else if (nres == 1) {
		line(c, ind, "%s = %s(%s);",
		     val(c, kl_inst_result(c->f, i, 0)), callee.data, a);
	} else {
		line(c, ind, "{");
		line(c, ind + 1, "%s r = %s(%s);", st.ret.data, callee.data,
		     a);
		for (uint32_t k = 0; k < nres; k++)
			line(c, ind + 1, "%s = r.r%u;",
			     val(c, kl_inst_result(c->f, i, k)), k);
		line(c, ind, "}");
	}
	kl_buf_free(&callee);
	kl_buf_free(&args);
	sig_text_free(&st);
}

/* The branch arguments of edge idx of block src, assigned to the
 * target's parameters as a parallel copy: a copy whose target another
 * copy still reads waits; when all wait (a cycle, such as a swap), one
 * target's old value is saved in a temporary first. */
static void
emit_copies(fn_ctx *c, uint32_t ind, kl_block src, uint32_t idx)
{
	kl_cfg_edge e = kl_cfg_succ_edge(c->cfg, src, idx);
	uint32_t n = kl_block_num_params(c->f, e.block), left = 0, temps = 0;
	if (n == 0)
		return;
	uint32_t *dst = must(calloc(n, sizeof *dst));
	uint32_t *from = must(calloc(n, sizeof *from));
	for (uint32_t k = 0; k < n; k++) {
		uint32_t d = kl_block_param(c->f, e.block, k).id;
		uint32_t s = kl_value_resolve(c->f, kl_inst_dest_arg(c->f,
						e.inst, idx, k)).id;
		if (d != s) {
			dst[left] = d;
			from[left++] = s;
		}
	}
	/* temporaries are numbered down from KL_NONE - 1 */
	kl_buf *saved = c->out, scratch = { 0 };
	c->out = &scratch;
	while (left > 0) {
		uint32_t k = 0;
		for (; k < left; k++) {
			uint32_t j = 0;
			while (j < left && (j == k || from[j] != dst[k]))
				j++;
			if (j == left)
				break;
		}
		if (k == left) {
			uint32_t t = KL_NONE - 1 - temps;
			kl_type ty = kl_value_type(c->f, (kl_value){ dst[0] });
			line(c, ind + 1, "%s t%u = v%u;", ctype(c->e->m, ty),
			     temps++, dst[0]);
			for (uint32_t j = 0; j < left; j++)
				if (from[j] == dst[0])
					from[j] = t;
			k = 0;
		}
		if (from[k] >= KL_NONE - temps)
			line(c, ind + 1, "v%u = t%u;", dst[k],
			     KL_NONE - 1 - from[k]);
		else
			line(c, ind + 1, "v%u = v%u;", dst[k], from[k]);
		/* the rest keep their order: the parameters' */
		left--;
		memmove(dst + k, dst + k + 1, (left - k) * sizeof *dst);
		memmove(from + k, from + k + 1, (left - k) * sizeof *from);
	}
	c->out = saved;
	if (temps)
		line(c, ind, "{");
	/* without a temporary, the lines go one tab further out */
	const char *p = scratch.data ? scratch.data : "";
	while (*p) {
		const char *end = strchr(p, '\n');
		kl_buf_append(c->out, p + (temps ? 0 : 1),
			      (size_t)(end - p) + (temps ? 1 : 0));
		p = end + 1;
	}
	if (temps)
		line(c, ind, "}");
	kl_buf_free(&scratch);
	free(dst);
	free(from);
}

/* Can C's `break` do what BREAK r to scope s does? Yes when the
 * innermost loop or switch around r is inside s and running off its
 * end runs off the end of s. */
static bool
can_break(fn_ctx *c, kl_region r, kl_region s)
{
	kl_region x = kl_region_parent(c->rg, r);
	while (x.id != s.id) {
		kl_region_kind k = kl_region_kind_of(c->rg, x);
		if (k == KL_REGION_LOOP || k == KL_REGION_SWITCH)
			break;
		x = kl_region_parent(c->rg, x);
	}
	if (x.id == s.id)
		return false;
	for (kl_region node = x;;) {
		kl_region p = kl_region_parent(c->rg, node);
		kl_region_kind k = kl_region_kind_of(c->rg, p);
		if (kl_region_next_sibling(c->rg, node).id != KL_NONE)
			return false;
		if (p.id == s.id)
			return true;
		if (k == KL_REGION_ARM)
			node = kl_region_parent(c->rg, p);
		else if (k == KL_REGION_SCOPE)
			node = p;
		else
			return false;
	}
}

static bool
can_continue(fn_ctx *c, kl_region r, kl_region loop)
{
	kl_region x = kl_region_parent(c->rg, r);
	while (kl_region_kind_of(c->rg, x) != KL_REGION_LOOP)
		x = kl_region_parent(c->rg, x);
	return x.id == loop.id;
}

static void
emit_edge(fn_ctx *c, uint32_t ind, kl_region r)
{
	kl_region_kind k = kl_region_kind_of(c->rg, r);
	kl_region to = kl_region_target(c->rg, r);
	emit_copies(c, ind, kl_region_source(c->rg, r),
		    kl_region_succ_index(c->rg, r));
	if (k == KL_REGION_BREAK) {
		if (can_break(c, r, to)) {
			line(c, ind, "break;");
		} else {
			c->label[to.id] |= LABEL_AFTER;
			line(c, ind, "goto to_block%u;",
			     kl_region_block(c->rg, to).id);
		}
	} else if (k == KL_REGION_CONTINUE) {
		if (can_continue(c, r, to)) {
			line(c, ind, "continue;");
		} else {
			c->label[to.id] |= LABEL_TOP;
			line(c, ind, "goto top_block%u;",
			     kl_region_block(c->rg, to).id);
		}
	} else if (k == KL_REGION_GOTO) {
		kl_block b = kl_region_block(c->rg, r);
		c->label[kl_regions_code(c->rg, b).id] |= LABEL_CODE;
		line(c, ind, "goto block%u;", b.id);
	}
}

static void
emit_return(fn_ctx *c, uint32_t ind, kl_inst i)
{
	uint32_t n = kl_inst_num_args(c->f, i);
	if (c->heap)
		line(c, ind, "rt_release(frame);");
	if (n == 0) {
		line(c, ind, "return;");
	} else if (n == 1) {
		line(c, ind, "return %s;", arg(c, i, 0));
	} else {
		sig_text st = { 0 };
		kl_buf args = { 0 };
		sig_c(c->e->m, kl_func_signature(c->f), &st, false, 0);
		call_args(c, i, 0, n, &args);
		line(c, ind, "return (%s){ %s };", st.ret.data, args.data);
		kl_buf_free(&args);
		sig_text_free(&st);
	}
}

static void emit_seq(fn_ctx *c, uint32_t ind, kl_region parent);

static void
emit_node(fn_ctx *c, uint32_t ind, kl_region r)
{
	kl_block b = kl_region_block(c->rg, r);
	kl_inst term = kl_block_last_inst(c->f, b);
	switch (kl_region_kind_of(c->rg, r)) {
	case KL_REGION_CODE:
		if (c->label[r.id] & LABEL_CODE)
			line(c, ind ? ind - 1 : 0, "block%u: ;", b.id);
		for (kl_inst i = kl_block_first_inst(c->f, b);
		     i.id != KL_NONE && i.id != term.id;
		     i = kl_inst_next(c->f, i))
			emit_inst(c, ind, i);
		break;
	case KL_REGION_SCOPE:
		if (!(c->label[r.id] & LABEL_AFTER)) {
			emit_seq(c, ind, r);
			break;
		}
		line(c, ind, "{");
		emit_seq(c, ind + 1, r);
		line(c, ind, "}");
		line(c, ind ? ind - 1 : 0, "to_block%u: ;", b.id);
		break;
	case KL_REGION_LOOP:
		line(c, ind, "for (;;) {");
		if (c->label[r.id] & LABEL_TOP)
			line(c, ind, "top_block%u: ;", b.id);
		emit_seq(c, ind + 1, r);
		line(c, ind, "}");
		break;
	case KL_REGION_IF: {
		/* the arms apart first: an empty one is left out */
		kl_region then = kl_region_first_child(c->rg, r);
		kl_buf *out = c->out, arms[2] = { { 0 }, { 0 } };
		c->out = &arms[0];
		emit_seq(c, ind + 1, then);
		c->out = &arms[1];
		emit_seq(c, ind + 1, kl_region_next_sibling(c->rg, then));
		c->out = out;
		bool swap = arms[0].len == 0 && arms[1].len > 0;
		line(c, ind, swap ? "if (!%s) {" : "if (%s) {",
		     arg(c, term, 0));
		kl_buf_append(out, arms[swap].data, arms[swap].len);
		if (!swap && arms[1].len) {
			line(c, ind, "} else {");
			kl_buf_append(out, arms[1].data, arms[1].len);
		}
		line(c, ind, "}");
		kl_buf_free(&arms[0]);
		kl_buf_free(&arms[1]);
		break;
	}
	case KL_REGION_SWITCH: {
		line(c, ind, "switch (%s) {", arg(c, term, 0));
		for (kl_region a = kl_region_first_child(c->rg, r);
		     a.id != KL_NONE; a = kl_region_next_sibling(c->rg, a)) {
			uint32_t k = kl_region_succ_index(c->rg, a);
			if (k == 0)
				line(c, ind, "default:");
			else
				line(c, ind, "case %u:", k - 1);
			emit_seq(c, ind + 1, a);
			/* no break after a jump of the arm's own */
			kl_region last = a, n = kl_region_first_child(c->rg, a);
			for (; n.id != KL_NONE;
			     n = kl_region_next_sibling(c->rg, n))
				last = n;
			kl_region_kind lk = kl_region_kind_of(c->rg, last);
			if (lk != KL_REGION_BREAK && lk != KL_REGION_CONTINUE &&
			    lk != KL_REGION_GOTO && lk != KL_REGION_LEAVE)
				line(c, ind + 1, "break;");
		}
		line(c, ind, "}");
		break;
	}
	case KL_REGION_ENTER:
	case KL_REGION_NEXT:
	case KL_REGION_BREAK:
	case KL_REGION_CONTINUE:
	case KL_REGION_GOTO:
		emit_edge(c, ind, r);
		break;
	case KL_REGION_LEAVE:
		if (kl_inst_opcode(c->f, term) == KL_OP_RETURN) {
			emit_return(c, ind, term);
		} else {
			uint32_t user;
			kl_trapcode t = kl_inst_trap_code(c->f, term, &user);
			char what[64];
			if (t == KL_TRAP_USER)
				snprintf(what, sizeof what, "user %u", user);
			else
				snprintf(what, sizeof what, "%s",
					 kl_trapcode_name(t));
			line(c, ind, "rt_trap(%u, \"%s: trap instruction\");",
			     site(c, term), what);
		}
		break;
	default:
		refuse(c, term, "a regions node of an unknown kind");
	}
}

static void
emit_seq(fn_ctx *c, uint32_t ind, kl_region parent)
{
	if (++c->depth > MAX_DEPTH)
		refuse(c, KL_NO_INST, "regions nested deeper than %u",
		       MAX_DEPTH);
	for (kl_region r = kl_region_first_child(c->rg, parent);
	     r.id != KL_NONE; r = kl_region_next_sibling(c->rg, r))
		emit_node(c, ind, r);
	c->depth--;
}

/* Is s a declared function that is keel run's built-in name, with a
 * declaration that built-in accepts? */
static bool
is_builtin_call(const kl_module *m, kl_sym s, const char *name)
{
	size_t len;
	const char *n = kl_sym_name(m, s, &len);
	if (kl_sym_func(m, s) || kl_sym_get_kind(m, s) != KL_SYM_FUNC ||
	    len != strlen(name) || memcmp(n, name, len) != 0)
		return false;
	kl_signature sig = kl_sym_signature(m, s);
	uint32_t k = 0;
	while (strcmp(builtins[k].name, name) != 0)
		k++;
	if (sig.num_params != builtins[k].params ||
	    sig.variadic != (strcmp(name, "printf") == 0) ||
	    sig.num_results > 1 ||
	    (sig.num_results && !kl_type_is_int(m, sig.results[0])))
		return false;
	for (uint32_t p = 0; p < sig.num_params; p++)
		if (!kl_type_is_int(m, sig.params[p]))
			return false;
	return true;
}

/* The C body of a declared function: a built-in, or the failure keel
 * run reports when such a function is called. */
static void
emit_declared(const kl_module *m, kl_sym s, kl_buf *out)
{
	static const char *const body[] = {
		"putchar", "rt_out(&(unsigned char){ (unsigned char)v0 }, 1);"
		"\n\tr = (unsigned char)v0;",
		"puts", "r = (uint64_t)(int64_t)rt_puts(v0);",
		"printf", "va_list ap;\n\tva_start(ap, v0);\n\t"
		"r = (uint64_t)(int64_t)rt_vprintf(v0, ap);\n\tva_end(ap);",
		"malloc", "r = rt_malloc(v0);",
		"calloc", "r = rt_calloc(v0, v1);",
		"free", "free(rt_at(v0, 0));",
		"memcpy", "memmove(rt_at(v0, 0), rt_at(v1, 0), v2);\n\tr = v0;",
		"memmove", "memmove(rt_at(v0, 0), rt_at(v1, 0), v2);"
		"\n\tr = v0;",
		"memset", "memset(rt_at(v0, 0), (unsigned char)v1, v2);"
		"\n\tr = v0;",
		"strlen", "r = strlen(rt_at(v0, 0));",
		"abort", "rt_trap(0, \"abort: the program called abort()\");",
		"exit", "fflush(stdout);\n\texit((int)(v0 & 255));",
		NULL,
	};
	kl_signature sig = kl_sym_signature(m, s);
	sig_text st = { 0 };
	sig_c(m, sig, &st, true, 0);
	size_t len;
	const char *name = kl_sym_name(m, s, &len);
	bool vararg = is_builtin_call(m, s, "printf");
	kl_buf_printf(out, "static %s\n%s(%s%s)\n{\n", st.ret.data,
		      ident(m, s), st.params.data, vararg ? ", ..." : "");
	const char *code = NULL;
	for (uint32_t k = 0; body[k]; k += 2)
		if (is_builtin_call(m, s, body[k]))
			code = body[k + 1];
	if (code) {
		kl_buf_printf(out, "\tuint64_t r = 0;\n\t%s\n", code);
		kl_buf_puts(out, sig.num_results ? "\treturn r;\n"
			    : "\t(void)r;\n");
	} else {
		kl_buf text = { 0 };
		kl_buf_puts(&text, "call to external function ");
		kl_name_format(name, len, &text);
		bool known = false;
		for (uint32_t k = 0; k < sizeof builtins / sizeof *builtins;
		     k++)
			known |= len == strlen(builtins[k].name) &&
				 memcmp(name, builtins[k].name, len) == 0;
		if (known) {
			kl_buf_puts(&text, ", whose declaration the built-in "
				    "does not fit");
		} else {
			kl_buf_puts(&text, ", which the interpreter does not "
				    "provide (built-ins:");
			for (uint32_t k = 0;
			     k < sizeof builtins / sizeof *builtins; k++)
				kl_buf_printf(&text, "%s %s", k ? "," : "",
					      builtins[k].name);
			kl_buf_putc(&text, ')');
		}
		kl_buf_puts(out, "\trt_fail(");
		c_string(out, text.data, text.len);
		kl_buf_puts(out, ");\n");
		kl_buf_free(&text);
	}
	kl_buf_puts(out, "}\n\n");
	sig_text_free(&st);
}

/* A data object: its bytes; the addresses of symbols it holds are
 * written by rt_init at start-up, as they are no constants to C. */
static bool
emit_data(const kl_module *m, kl_sym s, kl_buf *out, kl_buf *init)
{
	uint64_t size = kl_data_size(m, s), at = 0;
	uint32_t align = kl_data_align(m, s);
	if (size > ((uint64_t)1 << 31) || align > 4096)
		return false;
	unsigned char *bytes = must(calloc(size ? size : 1, 1));
	for (uint32_t k = 0; k < kl_data_num_items(m, s); k++) {
		kl_data_item it = kl_data_item_at(m, s, k);
		uint32_t n = kl_type_bytes(m, it.type);
		switch (it.kind) {
		case KL_DATA_VALUE:
			for (uint32_t b = 0; b < n; b++)
				bytes[at + b] = (unsigned char)(it.value >>
								(8 * b));
			at += n;
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
					      ident(m, it.sym));
			else
				kl_buf_printf(init, "(uint64_t)(uintptr_t)%s",
					      ident(m, it.sym));
			kl_buf_printf(init, " + UINT64_C(0x%llx);\n",
				      (unsigned long long)it.value);
			kl_buf_printf(init, "\t\tmemcpy(%s + %llu, &a, %u);\n"
				      "\t}\n", ident(m, s),
				      (unsigned long long)at, n);
			at += n;
			break;
		}
	}
	uint64_t used = size;
	while (used > 0 && bytes[used - 1] == 0)
		used--;
	kl_buf_printf(out, "static _Alignas(%u) unsigned char %s[%llu] = {",
		      align, ident(m, s),
		      (unsigned long long)(size ? size : 1));
	for (uint64_t k = 0; k < (used ? used : 1); k++)
		kl_buf_printf(out, "%s%u,", k % 12 ? " " : "\n\t", bytes[k]);
	kl_buf_puts(out, "\n};\n\n");
	free(bytes);
	return true;
}

/* The value declarations at the top of a function, grouped by type. */
static void
emit_decls(fn_ctx *c, const kl_domtree *dt)
{
	static const char *const names[] = {
		"uint8_t", "uint16_t", "uint32_t", "uint64_t", "float",
		"double",
	};
	const kl_module *m = c->e->m;
	kl_buf lists[6] = { 0 };
	kl_block entry = kl_func_first_block(c->f);
	for (kl_block b = entry; b.id != KL_NONE; b = kl_block_next(c->f, b)) {
		if (!kl_domtree_is_reachable(dt, b))
			continue;
		for (uint32_t k = 0; b.id != entry.id &&
		     k < kl_block_num_params(c->f, b); k++) {
			kl_value v = kl_block_param(c->f, b, k);
			kl_type t = kl_type_class(m, kl_value_type(c->f, v));
			kl_buf_printf(&lists[t], ", v%u", v.id);
		}
		for (kl_inst i = kl_block_first_inst(c->f, b); i.id != KL_NONE;
		     i = kl_inst_next(c->f, i)) {
			for (uint32_t k = 0; k < kl_inst_num_results(c->f, i);
			     k++) {
				kl_value v = kl_inst_result(c->f, i, k);
				kl_type t = kl_value_type(c->f, v);
				if (!ctype(m, t))
					refuse(c, i, "a type that is no "
					       "machine class");
				kl_buf_printf(&lists[kl_type_class(m, t)],
					      ", v%u", v.id);
			}
			kl_opcode op = kl_inst_opcode(c->f, i);
			uint32_t align = kl_inst_align(c->f, i);
			int64_t size = kl_inst_imm(c->f, i);
			bool local = op == KL_OP_ALLOCA && b.id == entry.id &&
				     size <= 4096 && align <= 16;
			if (local)
				line(c, 1, "_Alignas(%u) unsigned char mv%u"
				     "[%lld] = { 0 };", align,
				     kl_inst_result(c->f, i, 0).id,
				     (long long)size);
			else if (op == KL_OP_ALLOCA ||
				 op == KL_OP_ALLOCA_DYN)
				c->heap = true;
		}
	}
	for (uint32_t t = 0; t < 6; t++) {
		/* about 70 columns a line */
		const char *p = lists[t].data;
		while (p && *p) {
			indent(c->out, 1);
			kl_buf_puts(c->out, names[t]);
			const char *sep = " ";
			size_t col = 8 + strlen(names[t]);
			while (*p && col < 64) {
				const char *next = strchr(p + 2, ',');
				size_t n = next ? (size_t)(next - p - 2)
					: strlen(p + 2);
				kl_buf_puts(c->out, sep);
				kl_buf_append(c->out, p + 2, n);
				col += n + 2;
				sep = ", ";
				p += n + 2;
			}
			kl_buf_puts(c->out, ";\n");
		}
		kl_buf_free(&lists[t]);
	}
	if (c->heap)
		line(c, 1, "struct rt_mem *frame = NULL;");
}

/* Function f: verified, then its regions as C. */
static void
emit_func(emitter *e, kl_func *f, kl_buf *out)
{
	fn_ctx c = { .e = e, .f = f, .out = out };
	kl_cfg *cfg = kl_cfg_new();
	kl_domtree *dt = kl_domtree_new();
	kl_loops *lf = kl_loops_new();
	c.rg = kl_regions_new();
	c.cfg = cfg;
	kl_cfg_compute(cfg, f);
	kl_domtree_compute(dt, f, cfg);
	kl_loops_compute(lf, f, cfg, dt);
	kl_regions_compute(c.rg, f, cfg, dt, lf);
	c.label = must(calloc(kl_regions_count(c.rg) + 1, 1));
	sig_text st = { 0 };
	kl_block entry = kl_func_first_block(f);
	kl_signature sig = kl_func_signature(f);
	sig_c(e->m, sig, &st, true, 0);
	kl_buf_printf(out, "static %s\n%s(", st.ret.data,
		      ident(e->m, kl_func_sym(f)));
	for (uint32_t k = 0; k < sig.num_params; k++)
		kl_buf_printf(out, "%s%s v%u", k ? ", " : "",
			      ctype(e->m, sig.params[k]),
			      kl_block_param(f, entry, k).id);
	kl_buf_puts(out, sig.num_params ? ")\n{\n" : "void)\n{\n");
	emit_decls(&c, dt);
	/* a first pass finds the labels a goto names; its text and trap
	 * sites are thrown away */
	kl_buf scratch = { 0 };
	size_t sites = e->sites.len;
	uint32_t nsites = e->nsites;
	c.out = &scratch;
	emit_seq(&c, 1, (kl_region){ 0 });
	e->sites.len = sites;
	e->nsites = nsites;
	c.out = out;
	emit_seq(&c, 1, (kl_region){ 0 });
	kl_buf_puts(out, "}\n\n");
	kl_buf_free(&scratch);
	sig_text_free(&st);
	free(c.label);
	kl_regions_free(c.rg);
	kl_loops_free(lf);
	kl_domtree_free(dt);
	kl_cfg_free(cfg);
}

/* call_indirect's checks, with the interpreter's messages. */
static const char *const check_call[] = {
	"static void",
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
emit_main(const kl_module *m, kl_sym s, kl_buf *out)
{
	kl_signature sig = kl_sym_signature(m, s);
	kl_buf_puts(out, "int\nmain(void)\n{\n\trt_init();\n");
	if (sig.num_results == 0) {
		kl_buf_printf(out, "\t%s();\n\treturn 0;\n}\n", ident(m, s));
		return;
	}
	sig_text st = { 0 };
	sig_c(m, sig, &st, false, 0);
	kl_buf_printf(out, "\t%s r = %s();\n", st.ret.data, ident(m, s));
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
		else
			kl_buf_printf(out, "\trt_show_int((%s)%s, %d);\n",
				      stype(m, t), field, k == 0);
	}
	kl_buf_puts(out, "\tputchar('\\n');\n");
	if (kl_type_is_int(m, sig.results[0]))
		kl_buf_printf(out, "\treturn (int)(%s & 255);\n}\n",
			      sig.num_results > 1 ? "r.r0" : "r");
	else
		kl_buf_puts(out, "\treturn 0;\n}\n");
	sig_text_free(&st);
}

static bool
verified(const kl_func *f, const char *file)
{
	kl_diags diags = { 0 };
	bool ok = kl_verify_func(f, NULL, &diags) == KL_OK;
	if (!ok) {
		kl_buf text = { 0 };
		kl_verify_render(f, &diags, file, false, &text, &text);
		fputs(text.data ? text.data : "", stderr);
		kl_buf_free(&text);
	}
	kl_diags_free(&diags);
	return ok;
}

/* The whole module as C on stdout; false (after a message) if some of
 * it cannot be translated. */
static bool
emit_module(emitter *e)
{
	const kl_module *m = e->m;
	uint32_t nsyms = kl_module_num_syms(m);
	kl_buf data = { 0 }, init = { 0 }, protos = { 0 }, funcs = { 0 };
	kl_buf fns = { 0 };
	kl_sym main_sym = KL_NO_SYM;
	if (kl_type_class(m, kl_module_pointer_type(m)) != KL_TYPE_I64) {
		fprintf(stderr, "emit_c: %s: pointers are not i64\n", e->file);
		return false;
	}
	kl_buf_puts(&e->sites, "\t{ 0, \"a built-in called indirectly\" },\n");
	e->nsites = 1;
	for (uint32_t k = 0; k < nsyms; k++) {
		kl_sym s = { k };
		size_t len;
		const char *name = kl_sym_name(m, s, &len);
		if (kl_sym_get_kind(m, s) == KL_SYM_DATA) {
			if (!emit_data(m, s, &data, &init)) {
				fprintf(stderr, "emit_c: %s: data ", e->file);
				fwrite(name, 1, len, stderr);
				fputs(": cannot translate: over 2^31 bytes "
				      "or aligned past 4096\n", stderr);
				return false;
			}
			continue;
		}
		kl_func *f = kl_sym_func(m, s);
		kl_signature sig = kl_sym_signature(m, s);
		sig_text st = { 0 };
		sig_c(m, sig, &st, false, 0);
		for (uint32_t p = 0; p < sig.num_params; p++)
			if (!ctype(m, sig.params[p]))
				return false;
		bool variadic = !f && is_builtin_call(m, s, "printf");
		kl_buf_printf(&protos, "static %s %s(%s%s);\n", st.ret.data,
			      ident(m, s), st.params.data,
			      variadic ? ", ..." : "");
		kl_buf_printf(&fns, "\t{ (void (*)(void))%s, ", ident(m, s));
		kl_buf names = { 0 };
		kl_name_format(name, len, &names);
		c_string(&fns, names.data, names.len);
		kl_buf_printf(&fns, ", \"%s\" },\n", st.check.data);
		kl_buf_free(&names);
		sig_text_free(&st);
		if (!f) {
			emit_declared(m, s, &funcs);
			continue;
		}
		if (!verified(f, e->file))
			return false;
		if (len == 4 && memcmp(name, "main", 4) == 0) {
			if (sig.num_params) {
				fprintf(stderr, "emit_c: %s: %%main: cannot "
					"translate: it takes parameters\n",
					e->file);
				return false;
			}
			main_sym = s;
		}
		emit_func(e, f, &funcs);
	}
	printf("/* Generated by keel's examples/emit_c.c from %s. */\n",
	       e->file);
	puts("#include <stdarg.h>\n#include <stdint.h>\n#include <stdio.h>\n"
	     "#include <stdlib.h>\n#include <string.h>\n#include <math.h>\n");
	kl_buf file = { 0 };
	c_string(&file, e->file, strlen(e->file));
	printf("static const char rt_file[] = %s;\n\n", file.data);
	kl_buf_free(&file);
	puts("/* Where each trap can happen, as keel run names it. */\n"
	     "static const struct rt_site {\n\tunsigned line;\n"
	     "\tconst char *text;\n} rt_site[] = {");
	fputs(e->sites.data, stdout);
	puts("};\n");
	for (uint32_t k = 0; runtime[k]; k++)
		puts(runtime[k]);
	puts("");
	fputs(types.data ? types.data : "", stdout);
	fputs(protos.data ? protos.data : "", stdout);
	puts("");
	fputs(data.data ? data.data : "", stdout);
	puts("/* The functions call_indirect may reach: names, signatures. */"
	     "\nstatic const struct {\n\tvoid (*fn)(void);\n"
	     "\tconst char *name, *sig;\n} rt_fns[] = {");
	fputs(fns.data ? fns.data : "\t{ NULL, \"\", \"\" },\n", stdout);
	puts("};\n");
	for (uint32_t k = 0; check_call[k]; k++)
		puts(check_call[k]);
	puts("");
	puts("/* The addresses of symbols that data objects hold. */\n"
	     "static void\nrt_init(void)\n{");
	fputs(init.data ? init.data : "", stdout);
	puts("}\n");
	fputs(funcs.data ? funcs.data : "", stdout);
	kl_buf_reset(&data);
	if (main_sym.id != KL_NONE) {
		emit_main(m, main_sym, &data);
		fputs(data.data, stdout);
	}
	kl_buf_free(&data);
	kl_buf_free(&init);
	kl_buf_free(&protos);
	kl_buf_free(&funcs);
	kl_buf_free(&fns);
	return true;
}

static char *
read_file(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	if (!fp) {
		perror(path);
		return NULL;
	}
	size_t cap = 1 << 16, n = 0, got;
	char *text = must(malloc(cap));
	while ((got = fread(text + n, 1, cap - n, fp)) > 0) {
		n += got;
		if (n == cap)
			text = must(realloc(text, cap *= 2));
	}
	bool bad = ferror(fp);
	fclose(fp);
	if (bad) {
		fprintf(stderr, "%s: cannot read it\n", path);
		free(text);
		return NULL;
	}
	*len = n;
	return text;
}

/* A test file's `test ...` lines (before its first item, among blank
 * and comment lines) blanked, as keel run does: it runs test files. */
static void
blank_test_lines(char *text, size_t len)
{
	size_t at = 0;
	while (at < len) {
		size_t end = at;
		while (end < len && text[end] != '\n')
			end++;
		size_t k = at;
		while (k < end && (text[k] == ' ' || text[k] == '\t' ||
				   text[k] == '\r'))
			k++;
		if (end - k >= 4 && memcmp(text + k, "test", 4) == 0 &&
		    (end - k == 4 || text[k + 4] == ' ' || text[k + 4] == '\t'))
			memset(text + at, ' ', end - at);
		else if (k < end && text[k] != ';')
			return;
		at = end + 1;
	}
}

int
main(int argc, char **argv)
{
	if (argc == 2 && (strcmp(argv[1], "--help") == 0 ||
			  strcmp(argv[1], "-h") == 0)) {
		puts("usage: emit_c FILE.kl > out.c\n"
		     "Translate a keel module to C (a main that runs %main "
		     "as keel run does,\nwhen the module has one); then: "
		     "cc -std=c11 out.c -lm");
		return 0;
	}
	if (argc != 2 || argv[1][0] == '-') {
		fputs("usage: emit_c FILE.kl > out.c (--help for more)\n",
		      stderr);
		return 2;
	}
	size_t len;
	char *text = read_file(argv[1], &len);
	if (!text)
		return 1;
	blank_test_lines(text, len);
	kl_module *m = NULL;
	kl_diags diags = { 0 };
	if (kl_parse_module(text, len, NULL, &m, &diags) != KL_OK) {
		kl_buf out = { 0 };
		for (uint32_t k = 0; k < diags.len; k++)
			kl_diag_render(&diags.items[k], argv[1], text, len,
				       &out);
		fputs(out.data ? out.data : "", stderr);
		kl_buf_free(&out);
	}
	kl_diags_free(&diags);
	emitter e = { .file = argv[1], .m = m };
	bool ok = m && emit_module(&e);
	ok = ok && fflush(stdout) == 0 && !ferror(stdout);
	kl_buf_free(&e.sites);
	kl_buf_free(&types);
	kl_module_free(m);
	free(text);
	return ok ? 0 : 1;
}
