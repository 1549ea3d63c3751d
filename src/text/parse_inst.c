/*
 * parse_inst.c -- parsing one instruction: opcode, type suffix, operands
 * by format, results.
 *
 * Opcode names are found through a small hash table built per parse from
 * the opcode table (no global state). The controlling type comes from the
 * `.T` suffix or, for opcodes whose type follows an operand, from that
 * operand when it was defined earlier in the text; a suffix that disagrees
 * with a known operand is an error, and one that names a value defined
 * later is checked when the body ends (parse.c), so the text cannot say
 * one type while the IR holds another.
 */
#include <stdio.h>
#include <string.h>

#include "parse.h"

#define OPTAB_SIZE 512
#define OP_KEY_MAX 16

/* The first n bytes in memory of a loaded word, the rest zero
 * (1 <= n <= 8). */
static inline uint64_t
low_bytes(uint64_t w, size_t n)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return w & (~(uint64_t)0 << (64 - 8 * n));
#else
	return w & (~(uint64_t)0 >> (64 - 8 * n));
#endif
}

/*
 * The key of the n bytes at s (1 <= n <= OP_KEY_MAX). When 16 bytes can
 * be read, two loads and masks, without a branch on n (the lengths of
 * consecutive mnemonics are unrelated); near the end of the text, a copy.
 */
static inline op_key
op_key_of(const char *s, size_t n, const char *end)
{
	op_key k;
	if (KL_LIKELY(end - s >= OP_KEY_MAX)) {
		uint64_t lo, hi;
		memcpy(&lo, s, 8);
		memcpy(&hi, s + 8, 8);
		k.lo = low_bytes(lo, n < 8 ? n : 8);
		k.hi = n > 8 ? low_bytes(hi, n - 8) : 0;
	} else {
		char b[OP_KEY_MAX] = { 0 };
		memcpy(b, s, n);
		memcpy(&k.lo, b, 8);
		memcpy(&k.hi, b + 8, 8);
	}
	return k;
}

static inline uint32_t
op_hash(op_key k)
{
	uint64_t h = (k.lo ^ k.hi * 0x2545f4914f6cdd1du) *
		     0x9e3779b97f4a7c15u;
	return (uint32_t)(h >> 55) & (OPTAB_SIZE - 1);
}

void
init_optab(parser *p)
{
	_Static_assert(KL_OP_COUNT < OPTAB_SIZE / 2, "opcode table too small");
	memset(p->optab, 0, sizeof p->optab);
	for (int op = 0; op < KL_OP_COUNT; op++) {
		const char *name = kl_op_name((kl_opcode)op);
		size_t n = strlen(name);
		KL_ASSERT(n > 0 && n <= OP_KEY_MAX);
		p->opkeys[op] = op_key_of(name, n, name + n);
		uint32_t h = op_hash(p->opkeys[op]);
		while (p->optab[h])
			h = (h + 1) & (OPTAB_SIZE - 1);
		p->optab[h] = (uint16_t)(op + 1);
	}
}

static inline int
lookup_op(const parser *p, const char *s, size_t n)
{
	if (n > OP_KEY_MAX)
		return -1;
	op_key k = op_key_of(s, n, p->end);
	uint32_t h = op_hash(k);
	while (p->optab[h]) {
		int op = p->optab[h] - 1;
		if (p->opkeys[op].lo == k.lo && p->opkeys[op].hi == k.hi)
			return op;
		h = (h + 1) & (OPTAB_SIZE - 1);
	}
	return -1;
}

/*
 * The opcode at the cursor: its number, or -1 with the word's extent in
 * *opos and *n for the message.
 *
 * Fast path: the 16 bytes at the cursor hold a blank, a control byte,
 * a '.' or a byte from 0x80 (all of which end an identifier); the bytes
 * before the first of them are looked up at once. Found, they are an
 * opcode's name, all identifier bytes, so scan_ident would have stopped
 * at the same place; not found, the general path finds the identifier
 * and the message.
 */
static int
scan_opcode(parser *p, const char **opos, size_t *n)
{
	skip_ws(p);
#ifdef PARSE_SSE2
	const char *s = p->p;
	if (KL_LIKELY(p->end - s >= OP_KEY_MAX)) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)s);
		__m128i stop = _mm_or_si128(
			_mm_cmplt_epi8(v, _mm_set1_epi8('!')),
			_mm_cmpeq_epi8(v, _mm_set1_epi8('.')));
		uint32_t m = (uint32_t)_mm_movemask_epi8(stop);
		size_t len = m ? kl_ctz64(m) : 0;
		if (KL_LIKELY(len != 0)) {
			int op = lookup_op(p, s, len);
			if (KL_LIKELY(op >= 0)) {
				p->p = s + len;
				return op;
			}
		}
	}
#endif
	*n = scan_ident(p, opos);
	return *n ? lookup_op(p, *opos, *n) : -1;
}

/* Does the NUL-terminated name equal the n bytes at s? Compared in place:
 * the names are a few bytes long, most differ in the first, and a strlen
 * and a memcmp per candidate cost more than that. */
static bool
name_equals(const char *name, const char *s, size_t n)
{
	size_t i = 0;
	while (i < n && name[i] == s[i])
		i++;
	return i == n && name[n] == 0;
}

/* A condition code word, looked up in names[0..count); a message that
 * lists them, as only they are accepted ("lt" is no integer code). */
static uint8_t
parse_cond(parser *p, const char *const *names, int count, const char *what)
{
	const char *s;
	size_t n = scan_ident(p, &s);
	for (int k = 0; n && k < count; k++)
		if (name_equals(names[k], s, n))
			return (uint8_t)k;
	char list[160]; /* the longest list, the float codes', takes 35 */
	int at = snprintf(list, sizeof list, " (one of");
	for (int k = 0; k < count && at > 0 && (size_t)at < sizeof list; k++)
		at += snprintf(list + at, sizeof list - (size_t)at, " %s%s",
			       names[k], k + 1 < count ? "" : ")");
	/* Not a word at all: say what is there ('-', ',', end of file)
	 * rather than quote an empty word. Else back before the word: when
	 * it starts a later line, recovery reads that line as the next
	 * statement. */
	if (n)
		p->p = s;
	fail_expected_hint(p, p->p, what, list);
}

/* An immediate for an integer type: range-checked, sign-normalised. */
static int64_t
parse_imm(parser *p, kl_type t, const char *what)
{
	skip_ws(p);
	const char *pos = p->p;
	int64_t v = parse_int(p, what);
	unsigned bits;
	_Static_assert(KL_TYPE_I8 == 0 && KL_TYPE_I16 == 1 &&
			       KL_TYPE_I32 == 2 && KL_TYPE_I64 == 3,
		       "the built-in integer types are 8 << t bits wide");
	if (KL_LIKELY(t <= KL_TYPE_I64)) /* no call to look the type up */
		bits = 8u << t;
	else if (kl_type_is_int(p->m, t))
		bits = kl_type_bytes(p->m, t) * 8;
	else
		return v; /* the verifier reports the type */
	if (bits >= 64)
		return v;
	if (!kl_int_fits(v, bits))
		fail_at(p, pos, "immediate does not fit in %s",
			kl_type_name(p->m, t));
	return kl_sign_narrow(v, bits);
}

/* "+N" / "-N" after an address, or nothing. */
static int32_t
parse_offset(parser *p)
{
	skip_ws(p);
	int c = peek(p);
	if (c != '+' && c != '-')
		return 0;
	const char *pos = p->p;
	int64_t v = parse_signed_offset(p);
	if (v < INT32_MIN || v > INT32_MAX)
		fail_at(p, pos, "offset does not fit in 32 bits");
	return (int32_t)v;
}

static uint8_t
parse_align(parser *p, uint32_t size, bool have_size)
{
	/* Most allocas end in ", align N", N of one digit: read at once.
	 * Anything else (other blanks, more digits, errors) takes the general
	 * path below. */
	const char *s = p->p;
	if (p->end - s > 9 && memcmp(s, ", align ", 8) == 0) {
		uint32_t a = (uint32_t)(unsigned char)s[8] - '0';
		unsigned char next = (unsigned char)s[9];
		if (a != 0 && a < 10 && (a & (a - 1)) == 0 &&
		    !is_ident_char(next) && next != '.') {
			p->p = s + 9;
			return (uint8_t)kl_ctz64(a);
		}
	}
	if (!accept(p, ','))
		return alloca_default_align_log2(size, have_size);
	if (!at_word(p, "align"))
		fail_expected(p, p->p, "'align'");
	p->p += 5;
	return (uint8_t)kl_ctz64(parse_alignment(p)); /* a power of two */
}

/* Values separated by commas, into the scratch list. */
static void
parse_value_list(parser *p, char close)
{
	p->nscratch = 0;
	if (accept(p, close))
		return;
	do {
		kl_grow(&p->scratch, &p->scratch_cap, sizeof *p->scratch,
			p->nscratch + 1);
		uint32_t v = parse_value_use(p);
		p->scratch[p->nscratch++] = v;
	} while (accept(p, ','));
	char what[32] = "',' or ' '";
	what[8] = close;
	expect(p, close, what);
}

/* blockN or blockN(args): a destination word (ir.h, DEST_BLOCK). */
static uint32_t
parse_dest(parser *p)
{
	uint32_t b = parse_block_use(p);
	skip_ws(p);
	if (peek(p) != '(')
		return dest_word_of_block(b);
	p->p++;
	parse_value_list(p, ')');
	if (p->nscratch == 0)
		return dest_word_of_block(b); /* blockN() */
	uint32_t l = 0;
	uint32_t *e = list_extend(&p->f->pool, &l, p->nscratch + 1);
	e[0] = b;
	memcpy(e + 1, p->scratch, p->nscratch * sizeof *e);
	return l;
}

/*
 * Is a value next on this line? A bare `return` must not take the next
 * line's `v1 = ...` for its value: its values start on its own line (the
 * rest may follow on others, after a comma).
 */
static bool
value_on_line(parser *p)
{
	const char *s = p->p;
	while (s < p->end && (*s == ' ' || *s == '\t' || *s == '\r'))
		s++;
	if (p->end - s < 2 || s[0] != 'v' || s[1] < '0' || s[1] > '9')
		return false;
	p->p = s;
	return true;
}

/* The type of a suffix, at the cursor just after its '.': one word with
 * the opcode, so no blank or comment may come first. */
static kl_type
suffix_type(parser *p)
{
	kl_type t;
	size_t n = scan_type(p->p, p->end, &t);
	if (!n) {
		int c = peek(p);
		if (c <= ' ' || c == ';')
			fail_at(p, p->p, "expected a type right after '.', "
				"found %s", c == ';' ? "a comment"
				: c == '\n' ? "end of line"
				: c < 0 ? "end of file" : "a blank");
		type_expected(p);
	}
	p->p += n;
	return t;
}

/* Operand v has no type yet: say why, naming the value at fault. */
static KL_NORETURN void
cannot_infer(parser *p, uint32_t v, const char *vpos, const char *opname)
{
	const kl_func *f = p->f;
	uint32_t end = v;
	if (f->values[v].kind == VK_ALIAS) {
		end = alias_end(p, v);
		if (end == KL_NONE)
			fail_at(p, vpos, "cannot infer the type of '%s' from "
				"v%u, whose alias chain is a cycle: write %s.T",
				opname, v, opname);
	}
	if (end < f->nvalues && f->values[end].kind == VK_RESULT)
		fail_quietly(p); /* of a call whose signature failed */
	if (end != v)
		fail_at(p, vpos, "cannot infer the type of '%s' from v%u, an "
			"alias of v%u, which is not defined yet: write %s.T",
			opname, v, end, opname);
	fail_at(p, vpos, "cannot infer the type of '%s' from v%u, which is "
		"not defined yet: write %s.T", opname, v, opname);
}

/*
 * The controlling type from operand v (at vpos): the suffix if given
 * (checked against v's machine class: `iadd.u32` may take an s32, and
 * its result is then a u32), else v's type, which must be known by now.
 */
static kl_type
ctrl_from(parser *p, uint32_t v, const char *vpos, bool has_suffix,
	  kl_type suffix, const char *suffix_pos, const char *opname)
{
	kl_type t;
	bool known = value_type_known(p, v, &t);
	if (has_suffix) {
		if (!known)
			add_type_check(p, v, suffix, suffix_pos);
		else if (type_class(p->m, t) != type_class(p->m, suffix))
			fail_at(p, suffix_pos, "type suffix .%s does not match "
				"v%u, which is %s", kl_type_name(p->m, suffix),
				v, kl_type_name(p->m, t));
		return suffix;
	}
	if (!known)
		cannot_infer(p, v, vpos, opname);
	return t;
}

/*
 * A call whose signature failed to parse (that error is reported): its
 * results are defined without a type, so that their uses report nothing
 * more (ctrl_from), and the call is dropped.
 */
static KL_NORETURN void
sig_failed(parser *p, const uint32_t *results, uint32_t nres)
{
	for (uint32_t k = 0; k < nres; k++)
		if (p->f->values[results[k]].kind == VK_UNUSED)
			value_define(p->f, results[k], VK_RESULT, KL_TYPE_NONE,
				     KL_NONE);
	fail_quietly(p);
}

/*
 * A statement that starts with a word that is no opcode, in the shape of
 * another statement: a block header misnamed ("bb0:", "block:",
 * "Block0(v0: i32):") or a definition of something that is no value or
 * signature ("sig = (i32)"). Says which, at the word; returns if the
 * statement has neither shape.
 */
static void
misnamed_statement(parser *p, const char *word)
{
	const char *e = word_end(p, word, false);
	int n = quoted_len(word, e);
	const char *q = skip_blanks_at(p, e);
	if (n && q < p->end && *q == '=' && (q + 1 == p->end || q[1] != '='))
		fail_at(p, word, "expected a value (vN) or a signature (sigN) "
			"to define, found '%.*s'", n, word);
	if (n && ends_like_block_header(p, e))
		fail_at(p, word, "expected a block header (blockN: or "
			"blockN(PARAMS):), found '%.*s'", n, word);
}

void
parse_inst(parser *p, const uint32_t *results, const char *const *result_pos,
	   uint32_t nres, const char *start)
{
	kl_func *f = p->f;
	if (!p->in_block) {
		/* Said once: the statements after a misnamed first block
		 * header would each say it again. */
		bool first = !p->said_no_block;
		p->said_no_block = true;
		if (nres == 0)
			misnamed_statement(p, start);
		if (!first)
			fail_quietly(p);
		fail_at(p, start, "instruction before the first block");
	}
	const char *opos;
	size_t n;
	int op = scan_opcode(p, &opos, &n);
	if (op < 0) {
		if (n == 0)
			fail_expected(p, opos, "an opcode");
		if (nres == 0)
			misnamed_statement(p, opos);
		if (*opos >= '0' && *opos <= '9') /* no opcode's spelling */
			fail_at(p, opos, "expected an instruction, a block or "
				"'}', found '%.*s'", (int)(n > 32 ? 32 : n),
				opos);
		/* A word cut short by a byte no identifier holds (a NUL, an
		 * accented letter): that byte is the mistake, not the part
		 * before it ("unknown opcode 'ret'" for "ret\0urn"). */
		const char *after = opos + n;
		unsigned char c = after < p->end ? (unsigned char)*after : ' ';
		if ((c < 32 && c != '\t' && c != '\n' && c != '\r') ||
		    c >= 127) {
			char buf[64];
			fail_at(p, after, "found %s in an opcode",
				describe(p, after, buf, sizeof buf));
		}
		fail_at(p, opos, "unknown opcode '%.*s'",
			(int)(n > 32 ? 32 : n), opos);
	}
	const kl_opinfo *info = &kl_op_table[op];
	bool has_suffix = false;
	kl_type suffix = KL_TYPE_NONE;
	const char *suffix_pos = p->p;
	if (p->p < p->end && *p->p == '.') {
		p->p++;
		suffix_pos = p->p;
		suffix = suffix_type(p);
		has_suffix = true;
		if (info->ctrl == KL_CTRL_NONE)
			fail_at(p, suffix_pos - 1, "'%s' takes no type suffix",
				info->name);
	} else if (info->ctrl == KL_CTRL_EXPLICIT) {
		fail_at(p, p->p, "'%s' needs a type: write %s.T", info->name,
			info->name);
	}

	uint32_t i = func_new_inst(f, (kl_opcode)op);
	kl_inst_data *d = &f->insts[i];
	f->inst_lines[i] = p->line;
	kl_type rtype = KL_TYPE_NONE; /* type of the single result */
	kl_signature sig = { 0 };
	bool sig_results = false;
	const char *vpos;

	switch ((kl_format)info->format) {
	case KL_FMT_CONST:
		skip_ws(p);
		if (op == KL_OP_ICONST) {
			if (!kl_type_is_int(p->m, suffix))
				fail_at(p, suffix_pos, "iconst makes integers; "
					"use f32const or f64const for floats");
			inst_set_imm(f, i,
				     parse_imm(p, suffix, iconst_immediate));
			rtype = suffix;
		} else if (op == KL_OP_F32CONST) {
			inst_set_imm(f, i, (int64_t)parse_float(p, true));
			rtype = KL_TYPE_F32;
		} else {
			inst_set_imm(f, i, (int64_t)parse_float(p, false));
			rtype = KL_TYPE_F64;
		}
		break;
	case KL_FMT_UNARY:
		skip_ws(p);
		vpos = p->p;
		d->w[1] = parse_value_use(p);
		if (info->ctrl == KL_CTRL_ARG0)
			rtype = ctrl_from(p, d->w[1], vpos, has_suffix, suffix,
					  suffix_pos, info->name);
		else if (info->ctrl == KL_CTRL_EXPLICIT)
			rtype = suffix;
		else
			rtype = info->typing == KL_TY_FPROMOTE ? KL_TYPE_F64
								: KL_TYPE_F32;
		break;
	case KL_FMT_ICMP:
	case KL_FMT_FCMP:
		if (info->format == KL_FMT_ICMP)
			d->aux = parse_cond(p, kl_intcc_names, KL_ICC_COUNT,
					    "an integer condition code");
		else
			d->aux = parse_cond(p, kl_floatcc_names, KL_FCC_COUNT,
					    "a float condition code");
		/* fall through */
	case KL_FMT_BINARY: {
		skip_ws(p);
		vpos = p->p;
		uint32_t x = parse_value_use(p);
		expect(p, ',', "','");
		uint32_t y = parse_value_use(p);
		d = &f->insts[i];
		d->w[1] = x;
		d->w[2] = y;
		rtype = ctrl_from(p, x, vpos, has_suffix, suffix, suffix_pos,
				  info->name);
		if (info->format != KL_FMT_BINARY)
			rtype = KL_TYPE_I8;
		break;
	}
	case KL_FMT_ICMP_IMM:
		d->aux = parse_cond(p, kl_intcc_names, KL_ICC_COUNT,
				    "an integer condition code");
		/* fall through */
	case KL_FMT_BINARY_IMM: {
		skip_ws(p);
		vpos = p->p;
		uint32_t x = parse_value_use(p);
		f->insts[i].w[1] = x;
		kl_type t = ctrl_from(p, x, vpos, has_suffix, suffix,
				      suffix_pos, info->name);
		expect(p, ',', "','");
		inst_set_imm(f, i, parse_imm(p, t, "an integer immediate"));
		rtype = info->format == KL_FMT_ICMP_IMM ? KL_TYPE_I8 : t;
		break;
	}
	case KL_FMT_TERNARY: {
		uint32_t ops[3];
		const char *xpos = NULL;
		for (int k = 0; k < 3; k++) {
			if (k)
				expect(p, ',', "','");
			skip_ws(p);
			if (k == 1)
				xpos = p->p;
			ops[k] = parse_value_use(p);
		}
		rtype = ctrl_from(p, ops[1], xpos, has_suffix, suffix,
				  suffix_pos, info->name);
		f->insts[i].w[1] = list_make(&f->pool, ops, 3);
		break;
	}
	case KL_FMT_LOAD:
		d->w[1] = parse_value_use(p);
		d->w[2] = (uint32_t)parse_offset(p);
		rtype = suffix;
		break;
	case KL_FMT_STORE: {
		skip_ws(p);
		vpos = p->p;
		uint32_t v = parse_value_use(p);
		expect(p, ',', "','");
		uint32_t ptr = parse_value_use(p);
		int32_t off = parse_offset(p);
		d = &f->insts[i];
		d->w[0] = v;
		d->w[1] = ptr;
		d->w[2] = (uint32_t)off;
		if (has_suffix)
			ctrl_from(p, v, vpos, true, suffix, suffix_pos,
				  info->name);
		break;
	}
	case KL_FMT_ALLOCA: {
		/* 0 parses, for the verifier to report with the rest of
		 * the function; the range a size may take is 1 up */
		uint32_t size = parse_u32(p, "an allocation size", 1);
		d->w[1] = size;
		d->aux = parse_align(p, size, true);
		rtype = p->m->ptr_type;
		break;
	}
	case KL_FMT_ALLOCA_DYN:
		d->w[1] = parse_value_use(p);
		f->insts[i].aux = parse_align(p, 0, false);
		rtype = p->m->ptr_type;
		break;
	case KL_FMT_SYMBOL:
		d->w[1] = parse_sym_use(p);
		rtype = p->m->ptr_type;
		break;
	case KL_FMT_CALL: {
		skip_ws(p);
		const char *cpos = p->p;
		uint32_t callee = parse_sym_use(p);
		const kl_sym_data *cs = &p->m->syms[callee];
		if (cs->kind != KL_SYM_FUNC)
			fail_at(p, cpos, "%.*s is data, not a function",
				(int)(p->p - cpos), cpos);
		expect(p, '(', "'(' and the arguments");
		parse_value_list(p, ')');
		d = &f->insts[i];
		d->w[1] = callee;
		d->w[2] = list_make(&f->pool, p->scratch, p->nscratch);
		if (cs->sig == KL_NONE) /* its signature failed to parse */
			sig_failed(p, results, nres);
		sig = module_sig(p->m, cs->sig);
		sig_results = true;
		break;
	}
	case KL_FMT_CALL_INDIRECT: {
		skip_ws(p);
		const char *spos = p->p;
		if (p->end - p->p < 4 || memcmp(p->p, "sig", 3) != 0)
			fail_expected(p, spos, "a signature (sigN)");
		/* Spelt as a declaration spells it (no leading zero). */
		uint32_t sr = entity_number(p, spos, 3);
		if (sr >= f->nsigrefs || f->sigrefs[sr] == KL_NONE)
			fail_at(p, spos, "sig%u is not defined: declare it "
				"before the first block, as sig%u = (i64) -> "
				"i32", sr, sr);
		expect(p, ',', "','");
		uint32_t callee = parse_value_use(p);
		expect(p, '(', "'(' and the arguments");
		parse_value_list(p, ')');
		uint32_t l = 0;
		uint32_t *e = list_extend(&f->pool, &l, p->nscratch + 1);
		e[0] = callee;
		if (p->nscratch)
			memcpy(e + 1, p->scratch, p->nscratch * sizeof *e);
		d = &f->insts[i];
		d->w[1] = sr;
		d->w[2] = l;
		if (f->sigrefs[sr] == SIGREF_FAILED)
			sig_failed(p, results, nres);
		sig = module_sig(p->m, f->sigrefs[sr]);
		sig_results = true;
		break;
	}
	case KL_FMT_JUMP:
		f->insts[i].w[0] = parse_dest(p);
		break;
	case KL_FMT_BRIF: {
		uint32_t c = parse_value_use(p);
		expect(p, ',', "','");
		uint32_t t = parse_dest(p);
		expect(p, ',', "','");
		uint32_t e = parse_dest(p);
		d = &f->insts[i];
		d->w[0] = c;
		d->w[1] = t;
		d->w[2] = e;
		break;
	}
	case KL_FMT_BR_TABLE: {
		uint32_t idx = parse_value_use(p);
		expect(p, ',', "','");
		uint32_t table = 0;
		uint32_t dl = parse_dest(p);
		list_push(&f->pool, &table, dl);
		/* Keep the list reachable: a later error leaves it in w1. */
		f->insts[i].w[0] = idx;
		f->insts[i].w[1] = table;
		expect(p, ',', "',' and the table");
		expect(p, '[', "'['");
		if (!accept(p, ']')) {
			do {
				dl = parse_dest(p);
				list_push(&f->pool, &table, dl);
				f->insts[i].w[1] = table;
			} while (accept(p, ','));
			expect(p, ']', "',' or ']'");
		}
		break;
	}
	case KL_FMT_RETURN:
		p->nscratch = 0;
		if (value_on_line(p)) {
			do {
				kl_grow(&p->scratch, &p->scratch_cap,
					sizeof *p->scratch, p->nscratch + 1);
				uint32_t v = parse_value_use(p);
				p->scratch[p->nscratch++] = v;
			} while (accept(p, ','));
		}
		f->insts[i].w[0] = list_make(&f->pool, p->scratch, p->nscratch);
		break;
	case KL_FMT_TRAP: {
		uint8_t code = parse_cond(p, kl_trap_names, KL_TRAP_COUNT,
					  "a trap code");
		f->insts[i].aux = code;
		if (code == KL_TRAP_USER)
			f->insts[i].w[0] = parse_u32(p, "a user trap code", 0);
		break;
	}
	}

	/* Results. */
	if (info->nres == KL_NRES_SIG) {
		KL_ASSERT(sig_results);
		if (nres != sig.num_results)
			fail_at(p, start, "'%s' returns %u value%s but %u %s "
				"named%s", info->name, sig.num_results,
				sig.num_results == 1 ? "" : "s", nres,
				nres == 1 ? "is" : "are",
				nres >= sig.num_results ? ""
				: sig.num_results == 1
					? " (name every result, even one "
					  "not used: v1 = call ...)"
					: " (name every result, even one "
					  "not used: v1, v2 = call ...)");
		/* All checked first: an error leaves none of them defined. */
		for (uint32_t k = 0; k < nres; k++)
			if (f->values[results[k]].kind != VK_UNUSED)
				value_redefined(p, results[k], result_pos[k]);
		for (uint32_t k = 0; k < nres; k++)
			define_value(p, results[k], result_pos[k], VK_RESULT,
				     sig.results[k], i);
		f->insts[i].w[0] = list_make(&f->pool, results, nres);
	} else if (nres != info->nres) {
		if (info->nres == 0)
			fail_at(p, start, "'%s' has no result", info->name);
		fail_at(p, start, "'%s' has one result", info->name);
	} else if (nres == 1) {
		define_value(p, results[0], result_pos[0], VK_RESULT, rtype, i);
		f->insts[i].w[0] = results[0];
	}
	layout_append_inst(f, i, f->last_block);
}
