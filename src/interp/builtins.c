/*
 * builtins.c -- the external functions the interpreter provides, so that
 * test programs can print and use a heap: putchar, puts, printf, malloc,
 * calloc, free, memcpy, memmove, memset, strlen, abort, exit.
 *
 * A declared-only function with one of these names runs the built-in,
 * provided its declaration fits (checked on the first call): pointer
 * parameters must be i64, integer ones any integer type, printf alone is
 * variadic (after its format), a result is optional. Any other declared-only
 * function makes the run fail with a message naming it. docs/interpreter.md
 * gives each one's exact behaviour.
 *
 * Every access to program memory goes through mem_check (a write through
 * mem_store_check, so that a reset knows the data it wrote), so a built-in
 * cannot touch anything outside the objects it is given; a bad pointer
 * traps heap_oob like a load or store would. Output goes to the caller's
 * output callback, never to the host's stdout.
 */
#include <stdio.h>
#include <string.h>

#include "builtins.h"
#include "interp.h"

enum {
	B_UNKNOWN = 0, B_NONE, B_PUTCHAR, B_PUTS, B_PRINTF, B_MALLOC,
	B_CALLOC, B_FREE, B_MEMCPY, B_MEMMOVE, B_MEMSET, B_STRLEN, B_ABORT,
	B_EXIT, B_COUNT
};

typedef struct builtin {
	const char *name;
	const char *params; /* p: pointer (i64), i: any integer; '.': more */
	char result;        /* i: integer, p: pointer, v: none */
} builtin;

static const builtin builtins[B_COUNT] = {
	[B_PUTCHAR] = { "putchar", "i", 'i' },
	[B_PUTS] = { "puts", "p", 'i' },
	[B_PRINTF] = { "printf", "p.", 'i' },
	[B_MALLOC] = { "malloc", "i", 'p' },
	[B_CALLOC] = { "calloc", "ii", 'p' },
	[B_FREE] = { "free", "p", 'v' },
	[B_MEMCPY] = { "memcpy", "ppi", 'p' },
	[B_MEMMOVE] = { "memmove", "ppi", 'p' },
	[B_MEMSET] = { "memset", "pii", 'p' },
	[B_STRLEN] = { "strlen", "p", 'i' },
	[B_ABORT] = { "abort", "", 'v' },
	[B_EXIT] = { "exit", "i", 'v' },
};

#define MAX_WIDTH 65536 /* printf field widths and precisions */

static int
builtin_lookup(const char *name, size_t len)
{
	for (int b = B_PUTCHAR; b < B_COUNT; b++)
		if (strlen(builtins[b].name) == len &&
		    memcmp(builtins[b].name, name, len) == 0)
			return b;
	return B_NONE;
}

/* The arguments of one call. */
typedef struct args {
	kl_interp *it;
	const uint64_t *r;
	const uint32_t *regs;  /* argument registers */
	const uint32_t *types; /* their machine types */
	uint32_t n;
} args;

static uint64_t
arg(const args *a, uint32_t k)
{
	return a->r[a->regs[k]];
}

/* Does the declaration of sym fit built-in b? */
static bool
decl_fits(const kl_module *m, uint32_t sym, int b)
{
	const builtin *bi = &builtins[b];
	kl_signature sig = kl_sym_signature(m, (kl_sym){ sym });
	size_t nfixed = strcspn(bi->params, ".");
	/* printf's "..." too: a native call of a variadic function differs
	 * from a fixed one's (on x86-64, %al counts the vector registers),
	 * so (i64, f64) -> i32 would work here and fail there */
	bool ok = sig.num_params == nfixed &&
		  sig.variadic == (bi->params[nfixed] == '.');
	for (uint32_t k = 0; ok && k < sig.num_params; k++) {
		kl_type c = kl_type_class(m, sig.params[k]);
		char want = bi->params[k];
		if (want == 'p' && c != KL_TYPE_I64)
			ok = false;
		if (want == 'i' && !kl_type_is_int(m, c))
			ok = false;
	}
	if (sig.num_results > 1 || (sig.num_results == 1 &&
				    (bi->result == 'v' ||
				     !kl_type_is_int(m, sig.results[0]) ||
				     (bi->result == 'p' &&
				      kl_type_class(m, sig.results[0]) !=
					      KL_TYPE_I64))))
		ok = false;
	return ok;
}

bool
interp_builtin_fits(const kl_module *m, kl_sym s, kl_buf *why)
{
	size_t len;
	const char *name = kl_sym_name(m, s, &len);
	int b = builtin_lookup(name, len);
	if (b != B_NONE && decl_fits(m, s.id, b))
		return true;
	if (!why)
		return false;
	static const char *const shapes[B_COUNT] = {
		[B_PUTCHAR] = "(i32) -> i32", [B_PUTS] = "(i64) -> i32",
		[B_PRINTF] = "(i64, ...) -> i32", [B_MALLOC] = "(i64) -> i64",
		[B_CALLOC] = "(i64, i64) -> i64", [B_FREE] = "(i64)",
		[B_MEMCPY] = "(i64, i64, i64) -> i64",
		[B_MEMMOVE] = "(i64, i64, i64) -> i64",
		[B_MEMSET] = "(i64, i32, i64) -> i64",
		[B_STRLEN] = "(i64) -> i64", [B_ABORT] = "()",
		[B_EXIT] = "(i32)",
	};
	if (b == B_NONE) {
		kl_buf_puts(why, "call to external function ");
		fmt_sym(why, m, s.id);
		kl_buf_puts(why, ", which the interpreter does not provide "
			    "(built-ins: putchar, puts, printf, malloc, "
			    "calloc, free, memcpy, memmove, memset, strlen, "
			    "abort, exit)");
		return false;
	}
	fmt_sym(why, m, s.id);
	kl_buf_printf(why, " is declared with a signature the built-in %s "
		      "does not have (expected %s; integers may have any "
		      "width, pointers are i64)",
		      builtins[b].name, shapes[b]);
	return false;
}

/* ---- memory helpers ---- */

static void
oob(kl_interp *it, const char *what, uint64_t p, uint64_t n, bool write)
{
	kl_buf_reset(&it->scratch);
	mem_explain(it, p, n, write, &it->scratch);
	raise_trap(it, KL_TRAP_HEAP_OOB, "%s: %llu byte%s at 0x%016llx: %s",
		   what, (unsigned long long)n, n == 1 ? "" : "s",
		   (unsigned long long)p, it->scratch.data);
}

/*
 * The n bytes at p in *h; false (a trap raised) if they are not inside
 * one live (writable) object. n may be 0: any pointer will do, *h = NULL.
 */
static bool
range(kl_interp *it, const char *what, uint64_t p, uint64_t n, bool write,
      uint8_t **h)
{
	*h = NULL;
	if (n == 0)
		return true;
	bool ok = n <= UINT32_MAX &&
		  (write ? mem_store_check(it, p, (uint32_t)n, h)
			 : mem_check(it, p, (uint32_t)n, false, h));
	if (!ok)
		oob(it, what, p, n, write);
	return ok;
}

/* The NUL-terminated string at p; *len excludes the NUL. */
static const char *
cstring(kl_interp *it, const char *what, uint64_t p, size_t *len)
{
	uint8_t *h;
	if (!mem_check(it, p, 1, false, &h)) {
		oob(it, what, p, 1, false);
		return NULL;
	}
	const obj *o = obj_get(it, (uint32_t)(p >> 32));
	size_t avail = o->size - (uint32_t)p;
	const uint8_t *z = memchr(h, 0, avail);
	if (!z) {
		kl_buf *b = &it->scratch;
		kl_buf_reset(b);
		mem_describe(it, p, b);
		raise_trap(it, KL_TRAP_HEAP_OOB,
			   "%s: the string at 0x%016llx has no NUL before the "
			   "end of %s", what,
			   (unsigned long long)p, b->data);
		return NULL;
	}
	*len = (size_t)(z - h);
	return (const char *)h;
}

/* Hand s to the output callback; false when the run must stop
 * (after_callback). */
static bool
output(kl_interp *it, const char *s, size_t n)
{
	if (!it->opts.output || !n)
		return true;
	it->opts.output(it->opts.output_ctx, s, n);
	return after_callback(it, "output");
}

/* A count of bytes written as puts and printf return it, an int: -1
 * past INT_MAX, as C's do (EOVERFLOW). */
static uint64_t
int_count(uint64_t n)
{
	return n > INT32_MAX ? UINT32_MAX : n;
}

/* ---- printf ---- */

typedef struct spec {
	char flags[8];
	int width, prec; /* -1: none */
	int len;         /* 0 none, 1 hh, 2 h, 3 l/ll/z/j/t */
	char conv;
	const char *text; /* the conversion as written, from its '%' */
	int text_len;
} spec;

/* The next variadic argument, which must have machine type t; for a '*'
 * of the conversion (its width or precision) if star. */
static bool
next_arg(const args *a, uint32_t *k, kl_type t, const spec *s, bool star,
	 uint32_t num, uint64_t *v)
{
	kl_interp *it = a->it;
	const char *what = star ? "the '*' of conversion" : "conversion";
	if (*k >= a->n) {
		raise_fail(it, "printf: %s %.*s (number %u) has no argument",
			   what, s->text_len, s->text, num);
		return false;
	}
	if (a->types[*k] != t) {
		raise_fail(it, "printf: %s %.*s (number %u) needs an %s "
			       "argument, got %s", what, s->text_len, s->text,
			   num, kl_type_name(it->m, t),
			   kl_type_name(it->m, a->types[*k]));
		return false;
	}
	*v = arg(a, (*k)++);
	return true;
}

/* Decimal digits of a width or precision, clamped to MAX_WIDTH. */
static size_t
scan_count(const char *f, size_t n, int *out)
{
	size_t i = 0;
	int v = 0;
	for (; i < n && f[i] >= '0' && f[i] <= '9'; i++)
		if (v <= MAX_WIDTH)
			v = v * 10 + (f[i] - '0');
	*out = v > MAX_WIDTH ? MAX_WIDTH : v;
	return i;
}

/* Parse one conversion after '%'; returns the characters used, 0 if bad. */
static size_t
parse_spec(const char *f, size_t n, spec *s)
{
	size_t i = 0, nf = 0;
	memset(s, 0, sizeof *s);
	s->width = s->prec = -1;
	/* Any number of flags, as C takes them; each kept once (at most
	 * five, and room for the '-' a negative '*' width adds). */
	for (; i < n && f[i] && strchr("-+ #0", f[i]); i++)
		if (!memchr(s->flags, f[i], nf))
			s->flags[nf++] = f[i];
	if (i < n && f[i] == '*') {
		s->width = -2;
		i++;
	} else if (i < n && f[i] >= '0' && f[i] <= '9') {
		i += scan_count(f + i, n - i, &s->width);
	}
	if (i < n && f[i] == '.') {
		i++;
		if (i < n && f[i] == '*') {
			s->prec = -2;
			i++;
		} else {
			i += scan_count(f + i, n - i, &s->prec);
		}
	}
	if (i + 1 < n && f[i] == 'h' && f[i + 1] == 'h') {
		s->len = 1;
		i += 2;
	} else if (i + 1 < n && f[i] == 'l' && f[i + 1] == 'l') {
		s->len = 3;
		i += 2;
	} else if (i < n && f[i] == 'h') {
		s->len = 2;
		i++;
	} else if (i < n && strchr("lzjt", f[i])) {
		s->len = 3;
		i++;
	}
	if (i >= n || !strchr("diuxXocspfFeEgGaA%", f[i]))
		return 0;
	s->conv = f[i++];
	return i;
}

/* Host format text for a spec, with the given length and conversion.
 * Flags C leaves undefined for the conversion ('#' for d i u c s, '0'
 * for c s) are dropped, as glibc ignores them: the output is then
 * glibc's on every host, and the host's printf is never given a format
 * whose behaviour is undefined. */
static void
host_spec(const spec *s, const char *len, char conv, char *out, size_t n)
{
	char flags[sizeof s->flags], *fl = flags;
	for (const char *f = s->flags; *f; f++)
		if (!(*f == '#' && strchr("diucs", conv)) &&
		    !(*f == '0' && strchr("cs", conv)))
			*fl++ = *f;
	*fl = 0;
	char w[16] = "", p[16] = "";
	if (s->width >= 0)
		snprintf(w, sizeof w, "%d", s->width);
	if (s->prec >= 0)
		snprintf(p, sizeof p, ".%d", s->prec);
	snprintf(out, n, "%%%s%s%s%s%c", flags, w, p, len, conv);
}

/* printf's output goes to the callback in pieces of about this size,
 * so that memory does not grow with what one call prints. */
#define PRINTF_PIECE 65536

/* A printf call printing: what is not yet handed to the callback, and
 * the bytes handed in all (its result). */
typedef struct printer {
	kl_interp *it;
	kl_c_locale *loc; /* "C" while formatting, not in the callback */
	kl_buf out;
	uint64_t total;
} printer;

/* Bytes to the callback, in the host's locale as every call of it; the
 * one place they are counted. */
static bool
printer_output(printer *p, const char *s, size_t n)
{
	p->total += n;
	kl_c_locale_end(p->loc);
	bool ok = output(p->it, s, n);
	kl_c_locale_begin(p->loc);
	return ok;
}

/* What is kept to the callback: all of it, or once it is a piece. */
static bool
printer_flush(printer *p, bool all)
{
	if (p->out.len < (all ? 1 : PRINTF_PIECE))
		return true;
	bool ok = printer_output(p, p->out.data, p->out.len);
	kl_buf_reset(&p->out);
	return ok;
}

/* %s with its width and precision, written by hand: a long string goes
 * from the program's memory to the callback without a copy. */
static bool
printer_string(printer *p, const spec *s, const char *str, size_t n)
{
	if (s->prec >= 0 && (size_t)s->prec < n)
		n = (size_t)s->prec;
	size_t pad = s->width > 0 && (size_t)s->width > n ?
		     (size_t)s->width - n : 0;
	bool left = strchr(s->flags, '-') != NULL;
	if (!left)
		for (size_t k = 0; k < pad; k++)
			kl_buf_putc(&p->out, ' ');
	if (n < PRINTF_PIECE)
		kl_buf_append(&p->out, str, n);
	else if (!printer_flush(p, true) || !printer_output(p, str, n))
		return false;
	if (left)
		for (size_t k = 0; k < pad; k++)
			kl_buf_putc(&p->out, ' ');
	return true;
}

/*
 * One conversion: its arguments are fetched and checked; then, unless p
 * is NULL (the first pass, which only checks), it is printed.
 */
static bool
format_one(const args *a, uint32_t *k, spec *s, uint32_t num, printer *p)
{
	kl_interp *it = a->it;
	kl_buf *out = p ? &p->out : NULL;
	uint64_t v;
	char hs[48];
	if (s->width == -2 || s->prec == -2) {
		if (s->width == -2) {
			if (!next_arg(a, k, KL_TYPE_I32, s, true, num, &v))
				return false;
			int w = (int)sext(v, 32);
			if (w < 0) { /* C: a negative width means '-' */
				size_t nf = strlen(s->flags);
				if (nf < sizeof s->flags - 1)
					s->flags[nf] = '-';
				w = w == INT32_MIN ? MAX_WIDTH : -w;
			}
			s->width = w > MAX_WIDTH ? MAX_WIDTH : w;
		}
		if (s->prec == -2) {
			if (!next_arg(a, k, KL_TYPE_I32, s, true, num, &v))
				return false;
			int pr = (int)sext(v, 32);
			s->prec = pr < 0 ? -1 : pr > MAX_WIDTH ? MAX_WIDTH : pr;
		}
	}
	switch (s->conv) {
	case 'd':
	case 'i':
	case 'u':
	case 'x':
	case 'X':
	case 'o': {
		bool sgn = s->conv == 'd' || s->conv == 'i';
		if (!next_arg(a, k, s->len == 3 ? KL_TYPE_I64 : KL_TYPE_I32, s,
			      false, num, &v))
			return false;
		unsigned sh = s->len == 1 ? 56 : s->len == 2 ? 48 :
			      s->len == 3 ? 0 : 32;
		if (!out)
			return true;
		host_spec(s, "ll", s->conv, hs, sizeof hs);
		if (sgn)
			kl_buf_printf(out, hs, (long long)sext(v, sh));
		else
			kl_buf_printf(out, hs,
				      (unsigned long long)(v & mask_of(sh)));
		break;
	}
	case 'c':
		if (!next_arg(a, k, KL_TYPE_I32, s, false, num, &v))
			return false;
		if (!out)
			return true;
		host_spec(s, "", 'c', hs, sizeof hs);
		kl_buf_printf(out, hs, (int)(unsigned char)v);
		break;
	case 's': {
		if (!next_arg(a, k, KL_TYPE_I64, s, false, num, &v))
			return false;
		size_t n;
		const char *str = cstring(it, "printf %s", v, &n);
		if (!str)
			return false;
		return !p || printer_string(p, s, str, n);
	}
	case 'p': {
		if (!next_arg(a, k, KL_TYPE_I64, s, false, num, &v))
			return false;
		if (!out)
			return true;
		char tmp[24];
		snprintf(tmp, sizeof tmp, "0x%llx", (unsigned long long)v);
		spec ps = *s;
		ps.prec = -1;
		ps.flags[0] = strchr(s->flags, '-') ? '-' : 0;
		ps.flags[1] = 0;
		host_spec(&ps, "", 's', hs, sizeof hs);
		kl_buf_printf(out, hs, tmp);
		break;
	}
	case '%':
		if (!out)
			return true;
		kl_buf_putc(out, '%');
		break;
	default: { /* f F e E g G a A */
		if (!next_arg(a, k, KL_TYPE_F64, s, false, num, &v))
			return false;
		if (!out)
			return true;
		double d;
		memcpy(&d, &v, sizeof d);
		host_spec(s, "", s->conv, hs, sizeof hs);
		kl_buf_printf(out, hs, d);
		break;
	}
	}
	return true;
}

/*
 * One pass over the format f[0, n): with p NULL, check every conversion
 * and its arguments; otherwise print them, a piece at a time.
 */
static bool
printf_pass(const args *a, const char *f, size_t n, printer *p)
{
	uint32_t k = 1, num = 0;
	for (size_t i = 0; i < n; i++) {
		if (f[i] != '%') {
			size_t run = 1;
			while (i + run < n && f[i + run] != '%')
				run++;
			if (p)
				kl_buf_append(&p->out, f + i, run);
			i += run - 1;
		} else {
			spec s;
			size_t used = parse_spec(f + i + 1, n - i - 1, &s);
			if (!used) {
				raise_fail(a->it, "printf: unsupported "
					   "conversion at offset %zu of the "
					   "format", i);
				return false;
			}
			s.text = f + i;
			s.text_len = (int)used + 1;
			if (!format_one(a, &k, &s, ++num, p))
				return false;
			i += used;
		}
		if (p && !printer_flush(p, false))
			return false;
	}
	return !p || printer_flush(p, true);
}

/*
 * Every conversion is checked before anything is printed, so a bad one
 * fails the run with nothing of the call printed; then the output goes
 * to the callback in pieces (PRINTF_PIECE), and a long %s straight from
 * the program's memory: the host holds no more than a piece and one
 * conversion (MAX_WIDTH bytes and some digits), however much one call
 * prints.
 */
static bool
do_printf(const args *a, uint64_t *ret)
{
	kl_interp *it = a->it;
	size_t n;
	const char *f = cstring(it, "printf format", arg(a, 0), &n);
	if (!f)
		return false;
	/* As a C program prints until it calls setlocale (the callback,
	 * the host's code, is called in the host's locale). */
	kl_c_locale c;
	kl_c_locale_begin(&c);
	printer p = { it, &c, { 0 }, 0 };
	bool ok = printf_pass(a, f, n, NULL) && printf_pass(a, f, n, &p);
	kl_c_locale_end(&c);
	*ret = int_count(p.total);
	kl_buf_free(&p.out);
	return ok;
}

/* ---- the call ---- */

static bool
run(int b, const args *a, uint64_t *ret)
{
	kl_interp *it = a->it;
	uint8_t *d, *s;
	size_t n;
	const char *str;
	*ret = 0;
	switch (b) {
	case B_PUTCHAR: {
		char ch = (char)(uint8_t)arg(a, 0);
		*ret = (uint8_t)arg(a, 0);
		return output(it, &ch, 1);
	}
	case B_PUTS:
		if (!(str = cstring(it, "puts", arg(a, 0), &n)))
			return false;
		*ret = int_count((uint64_t)n + 1);
		return output(it, str, n) && output(it, "\n", 1);
	case B_PRINTF:
		return do_printf(a, ret);
	case B_MALLOC:
		*ret = mem_malloc(it, arg(a, 0));
		return true;
	case B_CALLOC: {
		uint64_t x = arg(a, 0), y = arg(a, 1);
		if (x && y > UINT64_MAX / x)
			return true;
		*ret = mem_malloc(it, x * y);
		return true;
	}
	case B_FREE:
		if (!mem_free_obj(it, arg(a, 0))) {
			kl_buf_reset(&it->scratch);
			mem_explain_free(it, arg(a, 0), &it->scratch);
			raise_trap(it, KL_TRAP_HEAP_OOB,
				   "free of 0x%016llx, which is not the start "
				   "of a live heap object: %s",
				   (unsigned long long)arg(a, 0),
				   it->scratch.data);
			return false;
		}
		return true;
	case B_MEMCPY:
	case B_MEMMOVE: {
		const char *name = builtins[b].name;
		if (!range(it, name, arg(a, 0), arg(a, 2), true, &d) ||
		    !range(it, name, arg(a, 1), arg(a, 2), false, &s))
			return false;
		if (d)
			memmove(d, s, (size_t)arg(a, 2));
		*ret = arg(a, 0);
		return true;
	}
	case B_MEMSET:
		if (!range(it, "memset", arg(a, 0), arg(a, 2), true, &d))
			return false;
		if (d)
			memset(d, (uint8_t)arg(a, 1), (size_t)arg(a, 2));
		*ret = arg(a, 0);
		return true;
	case B_STRLEN:
		if (!cstring(it, "strlen", arg(a, 0), &n))
			return false;
		*ret = n;
		return true;
	case B_ABORT:
		raise_trap(it, KL_TRAP_ABORT, "the program called abort()");
		return false;
	case B_EXIT:
		raise_trap(it, 0, "the program called exit()");
		it->pend.status = KL_RUN_EXITED;
		unsigned bytes = kl_type_bytes(it->m, a->types[0]);
		it->pend.exit_code = (int32_t)sext(arg(a, 0), 64 - 8 * bytes);
		return false;
	}
	return false;
}

bool
builtin_call(kl_interp *it, uint32_t sym, const dfunc *fn, const dcall *c,
	     uint64_t *r)
{
	uint8_t b = it->bids[sym];
	if (b == B_UNKNOWN) {
		size_t len;
		const char *name = kl_sym_name(it->m, (kl_sym){ sym }, &len);
		b = (uint8_t)builtin_lookup(name, len);
		kl_buf_reset(&it->scratch);
		if (!interp_builtin_fits(it->m, (kl_sym){ sym },
					 &it->scratch)) {
			raise_fail(it, "%s", it->scratch.data);
			return false;
		}
		it->bids[sym] = b;
	}
	args a = { it, r, fn->slots + c->args, fn->slots + c->types, c->nargs };
	uint64_t ret;
	if (!run(b, &a, &ret))
		return false;
	if (c->nresults == 1) {
		kl_type t = fn->slots[c->rtypes];
		r[fn->slots[c->results]] =
			ret & mask_of(64 - 8 * kl_type_bytes(it->m, t));
	}
	/* (one builtin may take long: a stop is seen after each, not a
	 * fuel chunk later) */
	return !stop_asked(it);
}
