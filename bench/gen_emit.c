/*
 * gen_emit.c -- keel-gen's printers: one function per keel instruction,
 * writing it as keel text or as the equivalent LLVM IR.
 *
 * Nothing here draws a random number; gen.c makes every choice. That is
 * what keeps the two formats the same program.
 *
 * The keel side follows the canonical printed form byte for byte (the keel
 * printer must reproduce it): 4-space indentation, one space after each
 * comma, a blank line before every block but the first, immediates in
 * decimal when -10000 < x < 10000 and in grouped hex otherwise, and `.T`
 * on a polymorphic instruction exactly when its controlling operand is not
 * defined earlier in the same block.
 *
 * The LLVM side maps each keel instruction to one or a few LLVM ones:
 * - iconst becomes `add T imm, 0` (LLVM has no constant instruction);
 * - a compare yields an i1 %cN and the i8 %vN = zext %cN that keel has;
 *   branches and selects use the i1 directly when they can, otherwise
 *   `icmp ne c, 0`;
 * - shifts mask the amount to width-1 (keel shifts modulo the width,
 *   LLVM makes a too-wide shift poison);
 * - an alloca is `alloca T` when it is only ever accessed whole as T (so
 *   LLVM's mem2reg can promote it, as keel's promote does), otherwise
 *   `alloca [N x i8]`; an address p+off is a GEP on i8, a sized
 *   load or store a narrow load plus zext/sext, or a trunc plus store;
 * - block parameters become phis, listing the edges gen.c passes in;
 * - iadd_imm on a pointer becomes a GEP.
 * Temporaries are %tN, numbered per function.
 */
#include <stdlib.h>
#include <string.h>

#include "gen.h"

static const char *const kl_tname[] = {
	"i8", "i16", "i32", "i64", "f32", "f64", "i64"
};
static const char *const ll_tname[] = {
	"i8", "i16", "i32", "i64", "float", "double", "ptr"
};

static const char *const kl_bin[] = {
	"iadd", "isub", "imul", "band", "bor", "bxor",
	"ishl", "ushr", "sshr", "udiv", "urem", "sdiv", "srem", "rotl", "rotr"
};
static const char *const ll_bin[] = {
	"add", "sub", "mul", "and", "or", "xor",
	"shl", "lshr", "ashr", "udiv", "urem", "sdiv", "srem"
};

static const char *const kl_un[NUNOP] = {
	"ineg", "bnot", "clz", "ctz", "popcnt", "bmask"
};
/* the intrinsics of clz, ctz and popcnt (ctlz and cttz take an i1 that
 * says whether 0 is poison: false, as keel gives the width) */
static const char *const ll_intrinsic[] = { "ctlz", "cttz", "ctpop" };

static const char *const kl_icc[] = {
	"eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"
};
/* keel's float conditions follow Cranelift: ne is "unordered or not
 * equal", the others are ordered. */
static const char *const kl_fcc[] = {
	"eq", "ne", "lt", "le", "gt", "ge", "ord", "uno"
};
static const char *const ll_fcc[] = {
	"oeq", "une", "olt", "ole", "ogt", "oge", "ord", "uno"
};

static const char *const kl_conv[] = { "uextend", "sextend", "ireduce" };
static const char *const ll_conv[] = { "zext", "sext", "trunc" };

static const char *const kl_mem[] = {
	"load", "uload8", "sload8", "uload16", "sload16", "uload32", "sload32",
	"store", "istore8", "istore16", "istore32"
};
static const unsigned mem_bytes[] = { 0, 1, 1, 2, 2, 4, 4, 0, 1, 2, 4 };

/* ---- memory and numbers ------------------------------------------------ */

void
gen_bug(const char *file, int line, const char *fn, const char *what)
{
	fprintf(stderr, "keel-gen: internal error at %s:%d (%s): %s\n", file,
		line, fn, what);
	abort();
}

void *
xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		fputs("keel-gen: out of memory\n", stderr);
		exit(1);
	}
	return p;
}

/* Makes room for one more element in a growable array. */
void *
grow(void *p, size_t *cap, size_t n, size_t elsz)
{
	if (n < *cap)
		return p;
	*cap = *cap ? *cap * 2 : 64;
	return xrealloc(p, *cap * elsz);
}

static void
spush(struct stack *s, uint32_t v)
{
	s->v = grow(s->v, &s->cap, s->n, sizeof *s->v);
	s->v[s->n++] = v;
}

/* Sign-extends the low bytes*8 bits of x. */
int64_t
sext(uint64_t x, unsigned bytes)
{
	uint64_t m, sign;

	if (bytes >= 8)
		return (int64_t)x;
	m = ((uint64_t)1 << (bytes * 8)) - 1;
	sign = (uint64_t)1 << (bytes * 8 - 1);
	x &= m;
	return (int64_t)((x ^ sign) - sign);
}

/* ---- output ------------------------------------------------------------- */

void
flush(struct gen *g)
{
	if (g->len && fwrite(g->buf, 1, g->len, g->f) != g->len) {
		perror("keel-gen: write");
		exit(1);
	}
	g->len = 0;
}

static void
putn(struct gen *g, const char *s, size_t n)
{
	if (g->len + n > BUFSZ)
		flush(g);
	if (n > BUFSZ) {
		GEN_ASSERT(fwrite(s, 1, n, g->f) == n);
		return;
	}
	memcpy(g->buf + g->len, s, n);
	g->len += n;
}

static void
put(struct gen *g, const char *s)
{
	putn(g, s, strlen(s));
}

static void
putch(struct gen *g, char c)
{
	if (g->len + 1 > BUFSZ)
		flush(g);
	g->buf[g->len++] = c;
}

static void
putu(struct gen *g, uint64_t u)
{
	char d[24];
	int n = 0;

	do {
		d[sizeof d - 1 - n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	putn(g, d + sizeof d - n, (size_t)n);
}

static void
puti(struct gen *g, int64_t i)
{
	if (i < 0) {
		putch(g, '-');
		putu(g, (uint64_t)0 - (uint64_t)i);
	} else {
		putu(g, (uint64_t)i);
	}
}

/* A keel immediate at the width of type t: signed decimal when small,
 * otherwise the two's-complement bits in hex, grouped by four digits. */
static void
put_klimm(struct gen *g, int64_t x, int t)
{
	char d[20];
	int n = 0, i;
	uint64_t u;

	x = sext((uint64_t)x, tbytes[t]);
	if (x > -10000 && x < 10000) {
		puti(g, x);
		return;
	}
	u = (uint64_t)x;
	if (tbytes[t] < 8)
		u &= ((uint64_t)1 << (tbytes[t] * 8)) - 1;
	do {
		d[n++] = "0123456789abcdef"[u & 15];
		u >>= 4;
	} while (u);
	while (n % 4)
		d[n++] = '0';
	put(g, "0x");
	for (i = n - 1; i >= 0; i--) {
		putch(g, d[i]);
		if (i && i % 4 == 0)
			putch(g, '_');
	}
}

static void
put_imm(struct gen *g, int64_t x, int t)
{
	if (g->ll)
		puti(g, sext((uint64_t)x, tbytes[t]));
	else
		put_klimm(g, x, t);
}

static void
tname(struct gen *g, int t)
{
	put(g, g->ll ? ll_tname[t] : kl_tname[t]);
}

static void
ref(struct gen *g, uint32_t v)
{
	put(g, g->ll ? "%v" : "v");
	putu(g, v);
}

/* An LLVM operand with its type: "i64 %v3". */
static void
tref(struct gen *g, uint32_t v)
{
	tname(g, g->val[v].type);
	putch(g, ' ');
	ref(g, v);
}

static void
bref(struct gen *g, uint32_t b)
{
	put(g, g->ll ? "%block" : "block");
	putu(g, b);
}

static void
temp(struct gen *g, uint32_t t)
{
	put(g, "%t");
	putu(g, t);
}

static void
fname(struct gen *g, uint32_t fi)
{
	putch(g, g->ll ? '@' : '%');
	if (fi == g->nfunc) {
		put(g, "main");
	} else {
		putch(g, 'f');
		putu(g, fi);
	}
}

/* Starts a line of LLVM that is not a keel instruction of its own. */
static void
ind(struct gen *g)
{
	put(g, g->ll ? "  " : "    ");
}

/* Starts the line of one keel instruction and accounts for it. */
static void
ins(struct gen *g)
{
	ind(g);
	g->ninst++;
	g->cost = satadd(g->cost, g->mult);
}

/* keel's controlling-type suffix: written when the operand it would be
 * inferred from is not defined earlier in the same block. */
static void
suffix(struct gen *g, uint32_t ctl)
{
	if (g->val[ctl].block != g->cur) {
		putch(g, '.');
		put(g, kl_tname[g->val[ctl].type]);
	}
}

/* ---- values and the instruction printers ------------------------------- */

static uint32_t
newval(struct gen *g, int t)
{
	struct val *v;

	g->val = grow(g->val, &g->capval, g->nval, sizeof *g->val);
	v = &g->val[g->nval];
	v->block = g->cur;
	v->type = (uint8_t)t;
	v->cmp = 0;
	v->align = 0;
	if (t < NTYPES)
		spush(&g->avail[t], (uint32_t)g->nval);
	return (uint32_t)g->nval++;
}

static uint32_t
def(struct gen *g, int t)
{
	uint32_t v = newval(g, t);

	ref(g, v);
	put(g, " = ");
	return v;
}

/*
 * With --aliases P: P% of operands are read through an alias line written
 * just before the instruction, `vW -> vV` (keel only). The alias copies
 * V's record, so the suffixes come out as for V, and is not offered to
 * later picks: the program is the same as without aliases but for the
 * names its operands use. One in five aliases is itself named by another,
 * a chain.
 */
static uint32_t via_alias_of(struct gen *g, uint32_t v);

static uint32_t
via_alias(struct gen *g, uint32_t v)
{
	if (g->ll || !g->aliases || !chance(g, g->aliases))
		return v;
	return via_alias_of(g, v);
}

/* The alias line itself: a fresh vW -> vV, W returned. */
static uint32_t
via_alias_of(struct gen *g, uint32_t v)
{
	uint32_t w;

	g->val = grow(g->val, &g->capval, g->nval, sizeof *g->val);
	w = (uint32_t)g->nval++;
	g->val[w] = g->val[v];
	ind(g);
	ref(g, w);
	put(g, " -> ");
	ref(g, v);
	putch(g, '\n');
	/* Now and then an alias of that alias: a chain, each link numbered
	 * above the one it names. */
	if (chance(g, 20))
		return via_alias_of(g, w);
	return w;
}

uint32_t
emit_iconst(struct gen *g, int t, int64_t imm)
{
	uint32_t v;

	ins(g);
	v = def(g, t);
	if (g->ll) {
		/* LLVM has no constant instruction; an add keeps the
		 * instruction-for-instruction correspondence. */
		put(g, "add ");
		tname(g, t);
		putch(g, ' ');
		put_imm(g, imm, t);
		put(g, ", 0\n");
	} else {
		put(g, "iconst.");
		put(g, kl_tname[t]);
		putch(g, ' ');
		put_imm(g, imm, t);
		putch(g, '\n');
	}
	return v;
}

/* An LLVM temporary %tN = "OP T X, Y" of int type t, X and Y written by
 * the caller's strings (values or temporaries already printed). */
static uint32_t
ll_temp_op(struct gen *g, const char *op, int t, const char *x, uint32_t xv,
	   const char *y, uint32_t yv)
{
	uint32_t m = g->ntemp++;

	ind(g);
	temp(g, m);
	put(g, " = ");
	put(g, op);
	putch(g, ' ');
	tname(g, t);
	putch(g, ' ');
	put(g, x);
	putu(g, xv);
	put(g, ", ");
	put(g, y);
	putu(g, yv);
	putch(g, '\n');
	return m;
}

/* rotl a, b as (a << m) | (a >> (-m mod w)) with m = b mod w: LLVM's own
 * funnel shifts are intrinsics lli's interpreter lacks. */
static uint32_t
ll_rotate(struct gen *g, int op, uint32_t a, uint32_t b)
{
	int t = g->val[a].type;
	unsigned w1 = tbytes[t] * 8 - 1;
	uint32_t m, neg, back, hi, lo, v;

	m = ll_temp_op(g, "and", t, "%v", b, "", w1);
	neg = ll_temp_op(g, "sub", t, "", 0, "%t", m);
	back = ll_temp_op(g, "and", t, "%t", neg, "", w1);
	hi = ll_temp_op(g, op == OP_ROTL ? "shl" : "lshr", t, "%v", a, "%t", m);
	lo = ll_temp_op(g, op == OP_ROTL ? "lshr" : "shl", t, "%v", a, "%t",
			back);
	ins(g);
	v = def(g, t);
	put(g, "or ");
	tname(g, t);
	put(g, " %t");
	putu(g, hi);
	put(g, ", %t");
	putu(g, lo);
	putch(g, '\n');
	return v;
}

uint32_t
emit_bin(struct gen *g, int op, uint32_t a, uint32_t b)
{
	int t = g->val[a].type;
	uint32_t v, m = 0;

	a = via_alias(g, a);
	b = via_alias(g, b);
	GEN_ASSERT(g->val[b].type == t && is_int(t));
	if (!g->ll) {
		ins(g);
		v = def(g, t);
		put(g, kl_bin[op]);
		suffix(g, a);
		putch(g, ' ');
		ref(g, a);
		put(g, ", ");
		ref(g, b);
		putch(g, '\n');
		return v;
	}
	if (op == OP_ROTL || op == OP_ROTR)
		return ll_rotate(g, op, a, b);
	if (op == OP_ISHL || op == OP_USHR || op == OP_SSHR) {
		/* keel shifts by the amount modulo the width; LLVM
		 * makes a shift by >= the width poison. */
		m = ll_temp_op(g, "and", t, "%v", b, "", tbytes[t] * 8 - 1);
	}
	ins(g);
	v = def(g, t);
	put(g, ll_bin[op]);
	putch(g, ' ');
	tref(g, a);
	put(g, ", ");
	if (op == OP_ISHL || op == OP_USHR || op == OP_SSHR)
		temp(g, m);
	else
		ref(g, b);
	putch(g, '\n');
	return v;
}

/* The _imm form. Shift amounts must be below the width (keel would reduce
 * them, LLVM would not); on a pointer, iadd_imm becomes a GEP. */
uint32_t
emit_binimm(struct gen *g, int op, uint32_t a, int64_t imm)
{
	int t = g->val[a].type;
	uint32_t v;

	a = via_alias(g, a);
	ins(g);
	v = def(g, t);
	if (!g->ll) {
		put(g, kl_bin[op]);
		put(g, "_imm");
		suffix(g, a);
		putch(g, ' ');
		ref(g, a);
		put(g, ", ");
		put_imm(g, imm, t);
	} else if (t == T_PTR) {
		GEN_ASSERT(op == OP_IADD);
		put(g, "getelementptr inbounds i8, ptr ");
		ref(g, a);
		put(g, ", i64 ");
		puti(g, imm);
	} else {
		put(g, ll_bin[op]);
		putch(g, ' ');
		tref(g, a);
		put(g, ", ");
		put_imm(g, imm, t);
	}
	putch(g, '\n');
	return v;
}

/* A compare: keel's result is an i8 0/1; LLVM computes the i1 %cN and
 * widens it, so both the i1 (for branches) and the i8 exist. */
uint32_t
emit_unary(struct gen *g, int op, uint32_t a)
{
	int t = g->val[a].type;
	uint32_t v, c = 0;

	a = via_alias(g, a);
	GEN_ASSERT(is_int(t) && op < NUNOP);
	if (!g->ll) {
		ins(g);
		v = def(g, t);
		put(g, kl_un[op]);
		if (op == U_BMASK) {
			putch(g, '.'); /* its type is never an operand's */
			put(g, kl_tname[t]);
		} else {
			suffix(g, a);
		}
		putch(g, ' ');
		ref(g, a);
		putch(g, '\n');
		return v;
	}
	if (op == U_BMASK) {
		c = g->ntemp++;
		ind(g);
		temp(g, c);
		put(g, " = icmp ne ");
		tref(g, a);
		put(g, ", 0\n");
	}
	ins(g);
	v = def(g, t);
	switch (op) {
	case U_INEG:
		put(g, "sub ");
		tname(g, t);
		put(g, " 0, ");
		ref(g, a);
		break;
	case U_BNOT:
		put(g, "xor ");
		tref(g, a);
		put(g, ", -1");
		break;
	case U_BMASK:
		put(g, "sext i1 ");
		temp(g, c);
		put(g, " to ");
		tname(g, t);
		break;
	default:
		put(g, "call ");
		tname(g, t);
		put(g, " @llvm.");
		put(g, ll_intrinsic[op - U_CLZ]);
		putch(g, '.');
		tname(g, t);
		putch(g, '(');
		tref(g, a);
		put(g, op == U_POPCNT ? ")" : ", i1 false)");
		break;
	}
	putch(g, '\n');
	return v;
}

/* The declarations emit_unary's calls need, for every integer type. */
void
emit_intrinsic_decls(struct gen *g)
{
	unsigned k;
	int t;

	for (k = 0; k < sizeof ll_intrinsic / sizeof ll_intrinsic[0]; k++)
		for (t = T_I8; t <= T_I64; t++) {
			put(g, "declare ");
			tname(g, t);
			put(g, " @llvm.");
			put(g, ll_intrinsic[k]);
			putch(g, '.');
			tname(g, t);
			putch(g, '(');
			tname(g, t);
			put(g, k == 2 ? ")\n" : ", i1)\n");
		}
}

uint32_t
emit_cmp(struct gen *g, bool fl, unsigned cc, uint32_t a, uint32_t b,
	 bool imm, int64_t k)
{
	uint32_t v;

	a = via_alias(g, a);
	if (!imm)
		b = via_alias(g, b);
	ins(g);
	if (!g->ll) {
		v = def(g, T_I8);
		put(g, fl ? "fcmp" : imm ? "icmp_imm" : "icmp");
		suffix(g, a);
		putch(g, ' ');
		put(g, fl ? kl_fcc[cc] : kl_icc[cc]);
		putch(g, ' ');
		ref(g, a);
		put(g, ", ");
		if (imm)
			put_imm(g, k, g->val[a].type);
		else
			ref(g, b);
		putch(g, '\n');
		g->val[v].cmp = 1;
		return v;
	}
	v = newval(g, T_I8);
	g->val[v].cmp = 1;
	put(g, "%c");
	putu(g, v);
	put(g, fl ? " = fcmp " : " = icmp ");
	put(g, fl ? ll_fcc[cc] : kl_icc[cc]);
	putch(g, ' ');
	tref(g, a);
	put(g, ", ");
	if (imm)
		put_imm(g, k, g->val[a].type);
	else
		ref(g, b);
	putch(g, '\n');
	ind(g);
	ref(g, v);
	put(g, " = zext i1 %c");
	putu(g, v);
	put(g, " to i8\n");
	return v;
}

/* LLVM: makes an i1 for keel's "integer condition is non-zero" and
 * returns the temporary, or UINT32_MAX when c is a compare's i8. */
static uint32_t
ll_cond(struct gen *g, uint32_t c)
{
	uint32_t t;

	if (g->val[c].cmp)
		return UINT32_MAX;
	t = g->ntemp++;
	ind(g);
	temp(g, t);
	put(g, " = icmp ne ");
	tref(g, c);
	put(g, ", 0\n");
	return t;
}

static void
ll_condref(struct gen *g, uint32_t c, uint32_t t)
{
	if (t != UINT32_MAX) {
		temp(g, t);
	} else {
		put(g, "%c");
		putu(g, c);
	}
}

uint32_t
emit_select(struct gen *g, uint32_t c, uint32_t a, uint32_t b)
{
	uint32_t v, t = 0;

	c = via_alias(g, c);
	a = via_alias(g, a);
	b = via_alias(g, b);
	if (!g->ll) {
		ins(g);
		v = def(g, g->val[a].type);
		put(g, "select");
		suffix(g, a);
		putch(g, ' ');
		ref(g, c);
		put(g, ", ");
		ref(g, a);
		put(g, ", ");
		ref(g, b);
		putch(g, '\n');
		return v;
	}
	t = ll_cond(g, c);
	ins(g);
	v = def(g, g->val[a].type);
	put(g, "select i1 ");
	ll_condref(g, c, t);
	put(g, ", ");
	tref(g, a);
	put(g, ", ");
	tref(g, b);
	putch(g, '\n');
	return v;
}

uint32_t
emit_conv(struct gen *g, int op, int t, uint32_t a)
{
	uint32_t v;

	a = via_alias(g, a);
	ins(g);
	v = def(g, t);
	if (g->ll) {
		put(g, ll_conv[op]);
		putch(g, ' ');
		tref(g, a);
		put(g, " to ");
		tname(g, t);
	} else {
		put(g, kl_conv[op]);
		putch(g, '.');
		put(g, kl_tname[t]);
		putch(g, ' ');
		ref(g, a);
	}
	putch(g, '\n');
	return v;
}

uint32_t
emit_alloca(struct gen *g, uint32_t size, unsigned align, int elem)
{
	uint32_t v;

	ins(g);
	v = def(g, T_PTR);
	g->val[v].align = (uint8_t)align;
	if (g->ll && elem >= 0) {
		/* One type, accessed whole: LLVM's mem2reg can promote it
		 * only if it is allocated as that type. */
		put(g, "alloca ");
		put(g, ll_tname[elem]);
		put(g, ", align ");
	} else if (g->ll) {
		put(g, "alloca [");
		putu(g, size);
		put(g, " x i8], align ");
	} else {
		put(g, "alloca ");
		putu(g, size);
		put(g, ", align ");
	}
	putu(g, align);
	putch(g, '\n');
	return v;
}

/* The alignment LLVM may assume for an access of n bytes at p+off. */
static unsigned
access_align(struct gen *g, uint32_t p, int64_t off, unsigned n)
{
	unsigned a = g->val[p].align;

	while (a > 1 && off % (int64_t)a != 0)
		a >>= 1;
	return a < n ? a : n;
}

static void
kl_addr(struct gen *g, uint32_t p, int64_t off)
{
	ref(g, p);
	if (off > 0)
		putch(g, '+');
	if (off)
		puti(g, off);
}

/* LLVM: the address p+off, as a GEP temporary when off != 0. */
static void
ll_addr_prep(struct gen *g, uint32_t p, int64_t off, uint32_t *t)
{
	if (!off)
		return;
	*t = g->ntemp++;
	ind(g);
	temp(g, *t);
	put(g, " = getelementptr inbounds i8, ptr ");
	ref(g, p);
	put(g, ", i64 ");
	puti(g, off);
	putch(g, '\n');
}

static void
ll_addr(struct gen *g, uint32_t p, int64_t off, uint32_t t)
{
	put(g, "ptr ");
	if (off)
		temp(g, t);
	else
		ref(g, p);
}

uint32_t
emit_load(struct gen *g, int op, int t, uint32_t p, int64_t off)
{
	unsigned n = mem_bytes[op] ? mem_bytes[op] : tbytes[t];
	uint32_t v = 0, a = 0, l = 0;

	p = via_alias(g, p);
	if (!g->ll) {
		ins(g);
		v = def(g, t);
		put(g, kl_mem[op]);
		putch(g, '.');
		put(g, kl_tname[t]);
		putch(g, ' ');
		kl_addr(g, p, off);
		putch(g, '\n');
		return v;
	}
	ll_addr_prep(g, p, off, &a);
	if (op == M_LOAD) {
		ins(g);
		v = def(g, t);
		put(g, "load ");
		tname(g, t);
	} else {
		l = g->ntemp++;
		ind(g);
		temp(g, l);
		put(g, " = load i");
		putu(g, n * 8);
	}
	put(g, ", ");
	ll_addr(g, p, off, a);
	put(g, ", align ");
	putu(g, access_align(g, p, off, n));
	putch(g, '\n');
	if (op == M_LOAD)
		return v;
	ins(g);
	v = def(g, t);
	put(g, op == M_ULOAD8 || op == M_ULOAD16 || op == M_ULOAD32 ?
		       "zext i" : "sext i");
	putu(g, n * 8);
	putch(g, ' ');
	temp(g, l);
	put(g, " to ");
	tname(g, t);
	putch(g, '\n');
	return v;
}

void
emit_store(struct gen *g, int op, uint32_t x, uint32_t p, int64_t off)
{
	int t = g->val[x].type;
	unsigned n = mem_bytes[op] ? mem_bytes[op] : tbytes[t];
	uint32_t a = 0, tr = 0;

	x = via_alias(g, x);
	p = via_alias(g, p);
	if (!g->ll) {
		ins(g);
		put(g, kl_mem[op]);
		suffix(g, x);
		putch(g, ' ');
		ref(g, x);
		put(g, ", ");
		kl_addr(g, p, off);
		putch(g, '\n');
		return;
	}
	ll_addr_prep(g, p, off, &a);
	if (op != M_STORE) {
		tr = g->ntemp++;
		ind(g);
		temp(g, tr);
		put(g, " = trunc ");
		tref(g, x);
		put(g, " to i");
		putu(g, n * 8);
		putch(g, '\n');
	}
	ins(g);
	put(g, "store ");
	if (op != M_STORE) {
		putch(g, 'i');
		putu(g, n * 8);
		putch(g, ' ');
		temp(g, tr);
	} else {
		tref(g, x);
	}
	put(g, ", ");
	ll_addr(g, p, off, a);
	put(g, ", align ");
	putu(g, access_align(g, p, off, n));
	putch(g, '\n');
}

uint32_t
emit_call(struct gen *g, uint32_t fi, const uint32_t *arg, unsigned n)
{
	const struct sig *s = &g->fn[fi];
	uint32_t v = UINT32_MAX, aliased[MAXP];
	unsigned i;

	GEN_ASSERT(n <= MAXP);
	for (i = 0; i < n; i++)
		aliased[i] = via_alias(g, arg[i]);
	arg = aliased;
	ins(g);
	if (s->result != T_NONE)
		v = def(g, s->result);
	put(g, "call ");
	if (g->ll) {
		put(g, s->result == T_NONE ? "void" : ll_tname[s->result]);
		putch(g, ' ');
	}
	fname(g, fi);
	putch(g, '(');
	for (i = 0; i < n; i++) {
		if (i)
			put(g, ", ");
		if (g->ll)
			tref(g, arg[i]);
		else
			ref(g, arg[i]);
	}
	put(g, ")\n");
	return v;
}

static void
kl_target(struct gen *g, uint32_t b, const struct edge *e)
{
	uint32_t i;

	bref(g, b);
	if (!e || !e->n)
		return;
	putch(g, '(');
	for (i = 0; i < e->n; i++) {
		if (i)
			put(g, ", ");
		ref(g, e->arg[i]);
	}
	putch(g, ')');
}

/* e, or with --aliases a copy in *tmp whose arguments are read through
 * alias lines written now, before the branch. */
static const struct edge *
alias_args(struct gen *g, const struct edge *e, struct edge *tmp)
{
	uint32_t i;

	if (g->ll || !g->aliases || !e || !e->n)
		return e;
	*tmp = *e;
	for (i = 0; i < tmp->n; i++)
		tmp->arg[i] = via_alias(g, tmp->arg[i]);
	return tmp;
}

void
term_jump(struct gen *g, uint32_t b, const struct edge *e)
{
	struct edge tmp;

	e = alias_args(g, e, &tmp);
	ins(g);
	if (g->ll) {
		put(g, "br label ");
		bref(g, b);
	} else {
		put(g, "jump ");
		kl_target(g, b, e);
	}
	putch(g, '\n');
}

void
term_brif(struct gen *g, uint32_t c, uint32_t bt, const struct edge *et,
	  uint32_t be, const struct edge *ee)
{
	struct edge tt, te;
	uint32_t t;

	GEN_ASSERT(bt != be);
	if (!g->ll) {
		c = via_alias(g, c);
		et = alias_args(g, et, &tt);
		ee = alias_args(g, ee, &te);
		ins(g);
		put(g, "brif ");
		ref(g, c);
		put(g, ", ");
		kl_target(g, bt, et);
		put(g, ", ");
		kl_target(g, be, ee);
		putch(g, '\n');
		return;
	}
	t = ll_cond(g, c);
	ins(g);
	put(g, "br i1 ");
	ll_condref(g, c, t);
	put(g, ", label ");
	bref(g, bt);
	put(g, ", label ");
	bref(g, be);
	putch(g, '\n');
}

void
term_return(struct gen *g, uint32_t v)
{
	if (v != UINT32_MAX)
		v = via_alias(g, v);
	ins(g);
	if (g->ll) {
		put(g, "ret ");
		if (v == UINT32_MAX)
			put(g, "void");
		else
			tref(g, v);
	} else {
		put(g, "return");
		if (v != UINT32_MAX) {
			putch(g, ' ');
			ref(g, v);
		}
	}
	putch(g, '\n');
}

/* Begins block id (which must be the next in layout order). Its
 * parameters are typed after the arguments of the incoming edges, all of
 * which have already been printed. */
void
begin_block(struct gen *g, uint32_t id, const struct edge *e, unsigned ne)
{
	uint32_t np = ne ? e[0].n : 0, i, v;
	unsigned k;

	GEN_ASSERT(id == g->nblk && id > 0);
	g->nblk++;
	g->cur = id;
	putch(g, '\n');
	put(g, "block");
	putu(g, id);
	if (g->ll) {
		put(g, ":\n");
		for (i = 0; i < np; i++) {
			ind(g);
			v = def(g, g->val[e[0].arg[i]].type);
			put(g, "phi ");
			tname(g, g->val[v].type);
			for (k = 0; k < ne; k++) {
				put(g, k ? ", [ " : " [ ");
				ref(g, e[k].arg[i]);
				put(g, ", ");
				bref(g, e[k].from);
				put(g, " ]");
			}
			putch(g, '\n');
		}
		return;
	}
	if (np)
		putch(g, '(');
	for (i = 0; i < np; i++) {
		if (i)
			put(g, ", ");
		v = newval(g, g->val[e[0].arg[i]].type);
		ref(g, v);
		put(g, ": ");
		put(g, kl_tname[g->val[v].type]);
	}
	put(g, np ? "):\n" : ":\n");
}

/* Starts function fi: resets the per-function state, prints the
 * signature and the entry block's header, defines the parameters. */
void
begin_function(struct gen *g, uint32_t fi)
{
	const struct sig *s = &g->fn[fi];
	unsigned i;
	uint32_t v;

	g->curfn = fi;
	g->nval = g->nslot = g->slot_lo = g->nctr = 0;
	for (i = 0; i < NTYPES; i++)
		g->avail[i].n = 0;
	g->ntemp = g->cur = g->ninst = 0;
	g->nblk = 1;
	g->mult = 1;
	g->cost = g->callspent = 0;
	g->rt = s->result;
	if (fi)
		putch(g, '\n');
	if (g->ll) {
		put(g, "define ");
		put(g, s->result == T_NONE ? "void" : ll_tname[s->result]);
		putch(g, ' ');
	} else {
		put(g, "function ");
	}
	fname(g, fi);
	putch(g, '(');
	for (i = 0; i < s->np; i++) {
		if (i)
			put(g, ", ");
		tname(g, s->param[i]);
		if (g->ll) {
			put(g, " %v");
			putu(g, i);
		}
	}
	putch(g, ')');
	if (!g->ll && s->result != T_NONE) {
		put(g, " -> ");
		put(g, kl_tname[s->result]);
	}
	put(g, g->ll ? " {\nblock0:\n" : " {\nblock0");
	if (!g->ll && s->np)
		putch(g, '(');
	for (i = 0; i < s->np; i++) {
		v = newval(g, s->param[i]);
		g->val[v].align = 8;
		if (g->ll)
			continue;
		if (i)
			put(g, ", ");
		ref(g, v);
		put(g, ": ");
		put(g, kl_tname[s->param[i]]);
	}
	if (!g->ll)
		put(g, s->np ? "):\n" : ":\n");
}

void
end_function(struct gen *g)
{
	put(g, "}\n");
	g->fn[g->curfn].cost = g->cost;
	g->total_blocks += g->nblk;
	g->total_insts += g->ninst;
}
