/*
 * test_interp_reuse.c -- a reused interpreter and a new one agree.
 *
 * A randomized differential test of the interpreter's change tracking.
 * Each round parses a small module, makes interpreter A and runs every
 * function once (so A has decoded them and made memory), then makes a
 * random series of edits through the public API. After each edit the
 * module must verify, and at random points A is checked against B, an
 * interpreter made now:
 *   - before any reset, the functions that read no writable memory give
 *     the same outcome on A as on B (A's decodings of changed functions
 *     must not be kept); a symbol added since A's memory was made may
 *     make A fail (documented), never give another answer; after items
 *     were appended to data A's memory has, every call on A is refused
 *     (KL_ERR_INVALID, FAILED), never run on the old data;
 *   - after kl_interp_reset(A), a fixed series of calls of every
 *     function gives the same outcomes on A and B: results, trap or
 *     exit and its kind, the program's output, the instructions
 *     executed (pointers included: object ids must be what a new
 *     interpreter gives);
 *   - another reset with nothing changed gives the same series again.
 * Before the last call of an edit that changes behaviour by itself, A
 * runs every function (settle), so that a call that does not mark its
 * function changed is not hidden by the edit's other calls, which do.
 * The calls that change what runs only with others (a block parameter
 * removed or appended, a branch argument appended, a block taken out or
 * added, a sigref, a clone not yet placed) are driven without that:
 * test_interp_edit.c checks that each moves the change counter.
 *
 * The mutators of keel.h this drives (every public call that can change
 * a function body, layout, values, aliases, block params, sigrefs,
 * symbols or data; keel.h has none that adds types):
 *   builder: kl_builder_init, kl_builder_at_end, kl_builder_before,
 *     kl_build_iconst, _f32const, _f64const, _unary, _binary,
 *     _binary_imm, _icmp, _icmp_imm, _fcmp, _select, _load, _store,
 *     _alloca, _alloca_dyn, _symbol_addr, _call, _call_indirect, _jump,
 *     _brif, _br_table, _return, _trap;
 *   layout: kl_func_new_block, kl_func_append_block,
 *     kl_func_insert_block_after, kl_func_remove_block, kl_inst_remove,
 *     kl_inst_move_before, kl_inst_move_to_end, kl_inst_clone;
 *   values and operands: kl_value_set_alias, kl_inst_set_arg,
 *     kl_inst_set_dest_arg, kl_inst_set_dest, kl_inst_append_dest_arg;
 *   block params: kl_block_append_param, kl_block_remove_param,
 *     kl_func_remove_params;
 *   sigrefs: kl_func_add_sigref;
 *   symbols and data: kl_module_add_func, kl_module_declare,
 *     kl_module_add_data, kl_data_append;
 *   passes: kl_promote_func (directly and through kl_pass_find),
 *     kl_promote_module.
 *
 * Then, with no edits, what a reset gives back and what it costs
 * (memory.c: writable data is refilled only once written, and only the
 * object entries the runs used are cleared): every data object reads its
 * initial bytes again after stores of each width, stores through a
 * pointer computed from another object's address, memcpy and memset,
 * also when written again after a reset; heap objects and allocas of
 * before a reset are gone; and 200,000 resets of a module of 200,000
 * writable data items take time for what the calls did, not for the
 * data (quadratic, the test would run for hours).
 */
#include <stdlib.h>

#include "keel.h"
#include "../../src/interp/interp.h"
#include "parsed.h"
#include "rng.h"
#include "unit.h"

#ifndef ROUNDS
#define ROUNDS 200
#endif
#ifndef EDITS
#define EDITS 12
#endif

static const char program[] =
	"data %tab = { i32 10, i32 20, i32 30, i32 40 }\n"
	"data %ro = const { i32 7, i32 11 }\n"
	"declare %putchar(i32) -> i32\n"
	"declare %malloc(i64) -> i64\n"
	"\n"
	"function %leaf(i32) -> i32 {\n"
	"block0(v0: i32):\n"
	"    v1 = imul_imm v0, 3\n"
	"    v2 = iadd_imm v1, 1\n"
	"    return v2\n"
	"}\n"
	"\n"
	"function %main(i32) -> i32 {\n"
	"block0(v0: i32):\n"
	"    v1 = alloca 4\n"
	"    v2 = iconst.i32 5\n"
	"    store v2, v1\n"
	"    v3 = call %leaf(v0)\n"
	"    v4 = icmp_imm slt v0, 10\n"
	"    brif v4, block1(v3), block2(v0)\n"
	"\n"
	"block1(v5: i32):\n"
	"    v6 = load.i32 v1\n"
	"    v7 = iadd v5, v6\n"
	"    jump block3(v7, v0)\n"
	"\n"
	"block2(v8: i32):\n"
	"    v9 = iconst.i32 100\n"
	"    v10 = isub v8, v9\n"
	"    jump block3(v10, v0)\n"
	"\n"
	"block3(v11: i32, v12: i32):\n"
	"    v13 = iadd v11, v12\n"
	"    return v13\n"
	"}\n"
	"\n"
	"function %bump(i32) -> i32 {\n"
	"block0(v0: i32):\n"
	"    v1 = symbol_addr %tab\n"
	"    v2 = load.i32 v1\n"
	"    v3 = iadd v2, v0\n"
	"    store v3, v1\n"
	"    v4 = symbol_addr %ro\n"
	"    v5 = load.i32 v4+4\n"
	"    v6 = imul v3, v5\n"
	"    return v6\n"
	"}\n"
	"\n"
	"function %out(i32) -> i32 {\n"
	"block0(v0: i32):\n"
	"    v4 = iconst.i32 10\n"
	"    v1 = band_imm v0, 7\n"
	"    v2 = iadd_imm v1, 65\n"
	"    v3 = call %putchar(v2)\n"
	"    v5 = call %putchar(v4)\n"
	"    return v2\n"
	"}\n"
	"\n"
	"function %div(i32) -> i32 {\n"
	"block0(v0: i32):\n"
	"    v1 = iconst.i32 1000\n"
	"    v2 = band_imm v0, 3\n"
	"    v3 = sdiv v1, v2\n"
	"    jump block1(v3)\n"
	"\n"
	"block1(v4: i32):\n"
	"    return v4\n"
	"}\n"
	"\n"
	"function %heap(i32) -> i32 {\n"
	"block0(v0: i32):\n"
	"    v1 = iconst.i64 16\n"
	"    v2 = call %malloc(v1)\n"
	"    store v0, v2+4\n"
	"    v3 = load.i32 v2+4\n"
	"    v4 = ushr_imm v2, 32\n"
	"    v5 = ireduce.i32 v4\n"
	"    v6 = iadd v3, v5\n"
	"    return v6\n"
	"}\n";

/* Functions that read no writable memory and make no heap objects: the
 * same outcome on a reused interpreter as on a new one without a reset.
 * (Edits never make them read writable data: the loads they add read
 * %ro, new data objects nothing writes, or their own allocas.) */
static const char *const pure_funcs[] = { "leaf", "main", "out", "div" };

static const int64_t call_args[] = { 0, 1, 7, 12, -3, 0x7fffffff };

/* ---- random numbers (rng.h) ---- */

static uint64_t rng;

static uint32_t
below(uint32_t n)
{
	return rng_below(&rng, n);
}

/* ---- the state of a round ---- */

typedef struct round {
	kl_module *m;
	kl_interp *a;       /* made before the edits, reused */
	kl_buf a_out;       /* A's program output */
	uint32_t seed;
	uint32_t nfuncs;    /* functions added: %f0, %f1, ... */
	uint32_t ndata;     /* data objects added: %d0, %d1, ... */
	bool syms_added;    /* since A's memory was made */
	bool data_grown;    /* items appended to data A's memory has */
	bool a_made;        /* A has made memory (it has run) */
	const char *edit;   /* the last edit, for messages */
	kl_interp_options opts; /* A's and B's (not the output) */
} round;

static void
collect(void *ctx, const char *data, size_t len)
{
	kl_buf_append(ctx, data, len);
}

/* ---- sites: where an i32 operand can be replaced ---- */

static bool
is_func(const kl_module *m, kl_sym s)
{
	return kl_sym_func(m, s) != NULL;
}

/* Is f one whose code may call others? %leaf and added functions call
 * nothing (no recursion: the calls terminate). */
static bool
may_call(const round *r, const kl_func *f)
{
	size_t len;
	const char *name = kl_sym_name(r->m, kl_func_sym(f), &len);
	return !(len == 4 && memcmp(name, "leaf", 4) == 0) &&
	       !(len >= 2 && name[0] == 'f' && name[1] >= '0' &&
		 name[1] <= '9');
}

/* A random function with a body. */
static kl_func *
any_func(const round *r)
{
	uint32_t n = kl_module_num_syms(r->m), k = below(n);
	for (uint32_t t = 0; t < n; t++) {
		kl_sym s = { (k + t) % n };
		if (is_func(r->m, s))
			return kl_sym_func(r->m, s);
	}
	return NULL;
}

/* A random placed instruction of f with an i32 value operand: *i and
 * the operand's index *n. False if f has none. */
static bool
pick_site(const kl_func *f, kl_inst *i, uint32_t *n)
{
	uint32_t count = 0;
	for (int pass = 0; pass < 2; pass++) {
		uint32_t want = pass ? below(count) : 0, seen = 0;
		for (kl_block b = kl_func_first_block(f); b.id != KL_NONE;
		     b = kl_block_next(f, b))
			for (kl_inst x = kl_block_first_inst(f, b);
			     x.id != KL_NONE; x = kl_inst_next(f, x)) {
				uint32_t na = kl_inst_num_args(f, x);
				for (uint32_t k = 0; k < na; k++) {
					kl_value v = kl_inst_arg(f, x, k);
					/* (call_indirect's callee, stores'
					 * pointers: i64) */
					if (kl_value_type(f, v) != KL_TYPE_I32)
						continue;
					if (pass && seen == want) {
						*i = x;
						*n = k;
						return true;
					}
					seen++;
				}
			}
		if (!pass) {
			count = seen;
			if (!count)
				return false;
		}
	}
	return false;
}

/* ---- edits ---- */

static void call_into(const round *r, kl_interp *it, kl_buf *out,
		      const char *name, int64_t arg, kl_buf *log);

/*
 * Have A decode every function as it is now (by calling each), so that
 * the edit's last call alone must make A decode again: an edit is often
 * several calls, and one that moves the counter would hide another
 * that does not. (Not while A refuses calls: grown data.)
 */
static void
settle(round *r)
{
	if (r->data_grown)
		return;
	kl_buf log = { 0 };
	r->a_made = true;
	for (uint32_t s = 0; s < kl_module_num_syms(r->m); s++) {
		if (!is_func(r->m, (kl_sym){ s }))
			continue;
		size_t len;
		const char *n = kl_sym_name(r->m, (kl_sym){ s }, &len);
		char name[32];
		snprintf(name, sizeof name, "%.*s", (int)len, n);
		call_into(r, r->a, &r->a_out, name, 1, &log);
	}
	kl_buf_free(&log);
}

static kl_sym
sym_of(const round *r, const char *name)
{
	return sym(r->m, name);
}

/* A new i32 value computed from x before the builder's position, one
 * of many shapes (each builder call gets its turn). */
static kl_value
expr(round *r, kl_builder *b, kl_value x, bool calls)
{
	kl_func *f = b->func;
	switch (below(calls ? 17 : 14)) {
	case 0:
		r->edit = "iconst";
		return kl_build_iconst(b, KL_TYPE_I32, (int64_t)below(50) - 9);
	case 1: {
		static const kl_opcode ops[] = { KL_OP_IADD_IMM, KL_OP_IMUL_IMM,
						 KL_OP_BXOR_IMM, KL_OP_IRSUB_IMM };
		r->edit = "binary_imm";
		return kl_build_binary_imm(b, ops[below(4)], x,
					   (int64_t)below(9) + 1);
	}
	case 2: {
		r->edit = "binary";
		kl_value c = kl_build_iconst(b, KL_TYPE_I32, 3);
		return kl_build_binary(b, below(2) ? KL_OP_IMUL : KL_OP_ISUB, x,
				       below(2) ? c : x);
	}
	case 3: {
		r->edit = "icmp_imm+select";
		kl_value c = kl_build_icmp_imm(b, KL_ICC_SLT, x,
					       (int64_t)below(12));
		kl_value k = kl_build_iconst(b, KL_TYPE_I32, 77);
		return kl_build_select(b, c, x, k);
	}
	case 4: {
		r->edit = "icmp+select";
		kl_value k = kl_build_iconst(b, KL_TYPE_I32, (int64_t)below(9));
		kl_value c = kl_build_icmp(b, KL_ICC_UGT, x, k);
		return kl_build_select(b, c, k, x);
	}
	case 5: {
		static const kl_opcode ops[] = { KL_OP_BNOT, KL_OP_INEG,
						 KL_OP_POPCNT };
		r->edit = "unary";
		return kl_build_unary(b, ops[below(3)], KL_TYPE_I32, x);
	}
	case 6: {
		r->edit = "f64+fcmp";
		kl_value g = kl_build_unary(b, KL_OP_FCVT_FROM_SINT,
					    KL_TYPE_F64, x);
		kl_value h = kl_build_f64const(b, 0x4004000000000000ull); /* 2.5 */
		kl_value p = kl_build_binary(b, KL_OP_FMUL, g, h);
		kl_value c = kl_build_fcmp(b, KL_FCC_LT, p, h);
		kl_value y = kl_build_unary(b, KL_OP_FCVT_TO_SINT,
					    KL_TYPE_I32, p);
		return kl_build_select(b, c, x, y);
	}
	case 7: {
		r->edit = "f32";
		kl_value g = kl_build_unary(b, KL_OP_FCVT_FROM_SINT,
					    KL_TYPE_F32, x);
		kl_value h = kl_build_f32const(b, 0x3fc00000u); /* 1.5 */
		kl_value p = kl_build_binary(b, KL_OP_FADD, g, h);
		return kl_build_unary(b, KL_OP_FCVT_TO_SINT, KL_TYPE_I32, p);
	}
	case 8: {
		r->edit = "sdiv";
		kl_value d = kl_build_binary_imm(b, KL_OP_BAND_IMM, x, 3);
		kl_value k = kl_build_iconst(b, KL_TYPE_I32, 999);
		return kl_build_binary(b, KL_OP_SDIV, k, d);
	}
	case 9: {
		r->edit = "alloca_dyn";
		kl_value n = kl_build_iconst(b, KL_TYPE_I64, 8);
		kl_value p = kl_build_alloca_dyn(b, n, 0);
		kl_build_store(b, KL_OP_STORE, x, p, 4);
		kl_value y = kl_build_load(b, KL_OP_LOAD, KL_TYPE_I32, p, 4);
		return kl_build_binary_imm(b, KL_OP_IADD_IMM, y, 2);
	}
	case 10: {
		r->edit = "alloca";
		kl_value p = kl_build_alloca(b, 4, 0);
		kl_build_store(b, KL_OP_STORE, x, p, 0);
		kl_value y = kl_build_load(b, KL_OP_LOAD, KL_TYPE_I32, p, 0);
		return kl_build_binary_imm(b, KL_OP_IMUL_IMM, y, 5);
	}
	case 11: {
		r->edit = "load %ro";
		kl_value p = kl_build_symbol_addr(b, sym_of(r, "ro"));
		kl_value y = kl_build_load(b, KL_OP_LOAD, KL_TYPE_I32, p,
					   4 * (int32_t)below(2));
		return kl_build_binary(b, KL_OP_IADD, x, y);
	}
	case 12: {
		if (!r->ndata)
			return expr(r, b, x, calls);
		r->edit = "load new data";
		char name[16];
		snprintf(name, sizeof name, "d%u", below(r->ndata));
		kl_sym d = sym_of(r, name);
		kl_value p = kl_build_symbol_addr(b, d);
		uint64_t size = kl_data_size(r->m, d);
		kl_value y = kl_build_load(b, KL_OP_LOAD, KL_TYPE_I32, p,
					   (int32_t)(4 * below((uint32_t)(size / 4))));
		return kl_build_binary(b, KL_OP_BXOR, x, y);
	}
	case 13: {
		r->edit = "copy";
		return kl_build_unary(b, KL_OP_COPY, KL_TYPE_I32, x);
	}
	case 14:
		r->edit = "call %leaf";
		return kl_inst_result(f, kl_build_call(b, sym_of(r, "leaf"),
						       &x, 1), 0);
	case 15: {
		r->edit = "call_indirect %leaf";
		kl_type t = KL_TYPE_I32;
		kl_signature s = { &t, &t, 1, 1, false };
		kl_sigref sr = kl_func_add_sigref(f, &s);
		kl_value p = kl_build_symbol_addr(b, sym_of(r, "leaf"));
		return kl_inst_result(f, kl_build_call_indirect(b, sr, p, &x,
								1), 0);
	}
	default: {
		if (!r->nfuncs)
			return expr(r, b, x, calls);
		r->edit = "call new function";
		char name[16];
		snprintf(name, sizeof name, "f%u", below(r->nfuncs));
		return kl_inst_result(f, kl_build_call(b, sym_of(r, name),
						       &x, 1), 0);
	}
	}
}

/* Replace an i32 operand by a value computed from it. */
static void
edit_operand(round *r)
{
	kl_func *f = any_func(r);
	kl_inst i;
	uint32_t n;
	if (!f || !pick_site(f, &i, &n))
		return;
	kl_builder b;
	kl_builder_init(&b, f);
	kl_builder_before(&b, i);
	kl_value y = expr(r, &b, kl_inst_arg(f, i, n), may_call(r, f));
	CHECK(kl_builder_status(&b) == KL_OK);
	settle(r);
	CHECK(kl_inst_set_arg(f, i, n, y) == KL_OK);
}

/* The first placed instruction of f with opcode op in a random order
 * of candidates: a random one. */
static kl_inst
pick_op(const kl_func *f, bool (*ok)(const kl_func *, kl_inst))
{
	uint32_t count = 0;
	for (kl_block b = kl_func_first_block(f); b.id != KL_NONE;
	     b = kl_block_next(f, b))
		for (kl_inst x = kl_block_first_inst(f, b); x.id != KL_NONE;
		     x = kl_inst_next(f, x))
			count += ok(f, x);
	if (!count)
		return KL_NO_INST;
	uint32_t want = below(count);
	for (kl_block b = kl_func_first_block(f); b.id != KL_NONE;
	     b = kl_block_next(f, b))
		for (kl_inst x = kl_block_first_inst(f, b); x.id != KL_NONE;
		     x = kl_inst_next(f, x))
			if (ok(f, x) && want-- == 0)
				return x;
	return KL_NO_INST;
}

static bool
is_brif(const kl_func *f, kl_inst i)
{
	return kl_inst_opcode(f, i) == KL_OP_BRIF;
}

/* A binary or binary_imm i32 instruction whose result has arg 0's type. */
static bool
is_arith(const kl_func *f, kl_inst i)
{
	kl_opcode op = kl_inst_opcode(f, i);
	const kl_opinfo *info = kl_op_info(op);
	return info && (info->format == KL_FMT_BINARY ||
			info->format == KL_FMT_BINARY_IMM) &&
	       kl_inst_num_results(f, i) == 1 &&
	       kl_value_type(f, kl_inst_result(f, i, 0)) == KL_TYPE_I32 &&
	       kl_value_type(f, kl_inst_arg(f, i, 0)) == KL_TYPE_I32;
}

/* Destination d of branch i as a block call (args in buf). */
static kl_block_call
dest_of(const kl_func *f, kl_inst i, uint32_t d, kl_value *buf)
{
	uint32_t n = kl_inst_dest_num_args(f, i, d);
	for (uint32_t k = 0; k < n; k++)
		buf[k] = kl_inst_dest_arg(f, i, d, k);
	return (kl_block_call){ kl_inst_dest(f, i, d), buf, n };
}

/* A brif's destinations swapped. */
static void
edit_swap_brif(round *r)
{
	r->edit = "swap brif";
	kl_func *f = any_func(r);
	kl_inst i = f ? pick_op(f, is_brif) : KL_NO_INST;
	if (i.id == KL_NONE)
		return;
	kl_value a0[64], a1[64];
	kl_block_call t = dest_of(f, i, 0, a0), e = dest_of(f, i, 1, a1);
	CHECK(kl_inst_set_dest(f, i, 0, e) == KL_OK);
	settle(r);
	CHECK(kl_inst_set_dest(f, i, 1, t) == KL_OK);
}

/* An arithmetic instruction taken out, its result an alias of its
 * first operand. */
static void
edit_alias(round *r)
{
	r->edit = "remove + alias";
	kl_func *f = any_func(r);
	kl_inst i = f ? pick_op(f, is_arith) : KL_NO_INST;
	if (i.id == KL_NONE)
		return;
	kl_value res = kl_inst_result(f, i, 0), a = kl_inst_arg(f, i, 0);
	kl_inst_remove(f, i);
	CHECK(kl_value_set_alias(f, res, a) == KL_OK);
	/* an alias made to lead elsewhere, alone */
	if (kl_inst_num_args(f, i) == 2 &&
	    kl_value_type(f, kl_inst_arg(f, i, 1)) == KL_TYPE_I32 &&
	    kl_value_resolve(f, kl_inst_arg(f, i, 1)).id != res.id) {
		settle(r);
		r->edit = "alias retargeted";
		CHECK(kl_value_set_alias(f, res, kl_inst_arg(f, i, 1)) ==
		      KL_OK);
	}
}

/* An arithmetic instruction cloned before itself with another second
 * operand, the original now taking the clone's result. */
static void
edit_clone(round *r)
{
	r->edit = "clone";
	kl_func *f = any_func(r);
	kl_inst i = f ? pick_op(f, is_arith) : KL_NO_INST;
	if (i.id == KL_NONE)
		return;
	kl_inst c = kl_inst_clone(f, i);
	CHECK(c.id != KL_NONE);
	CHECK(kl_inst_move_before(f, c, i) == KL_OK);
	if (kl_inst_num_args(f, c) == 2) {
		kl_builder b;
		kl_builder_init(&b, f);
		kl_builder_before(&b, c);
		kl_value k = kl_build_iconst(&b, kl_value_type(f,
					     kl_inst_arg(f, c, 1)),
					     (int64_t)below(7) + 1);
		CHECK(kl_inst_set_arg(f, c, 1, k) == KL_OK);
	}
	settle(r);
	CHECK(kl_inst_set_arg(f, i, 0, kl_inst_result(f, c, 0)) == KL_OK);
}

/* The block of the entry's parameter 0 (every function takes one i32). */
static kl_value
param0(const kl_func *f)
{
	return kl_block_param(f, kl_func_first_block(f), 0);
}

/* A random non-entry block with a parameter: its parameter k. */
static bool
pick_param(const kl_func *f, kl_block *blk, uint32_t *k)
{
	uint32_t count = 0;
	kl_block entry = kl_func_first_block(f);
	for (kl_block b = entry; b.id != KL_NONE; b = kl_block_next(f, b))
		if (b.id != entry.id)
			count += kl_block_num_params(f, b);
	if (!count)
		return false;
	uint32_t want = below(count);
	for (kl_block b = entry; b.id != KL_NONE; b = kl_block_next(f, b)) {
		uint32_t n = b.id != entry.id ? kl_block_num_params(f, b) : 0;
		if (want < n) {
			*blk = b;
			*k = want;
			return true;
		}
		want -= n;
	}
	return false;
}

/* A block parameter removed, its arguments with it; its value becomes
 * an alias of the function's parameter. */
static void
edit_remove_param(round *r)
{
	kl_func *f = any_func(r);
	kl_block b;
	uint32_t k;
	if (!f || !pick_param(f, &b, &k))
		return;
	kl_value p = kl_block_param(f, b, k);
	if (below(2)) {
		r->edit = "kl_block_remove_param";
		CHECK(kl_block_remove_param(f, b, k) == KL_OK);
	} else {
		r->edit = "kl_func_remove_params";
		CHECK(kl_func_remove_params(f, &p, 1) == KL_OK);
	}
	CHECK(kl_value_set_alias(f, p, param0(f)) == KL_OK);
}

/* A parameter appended to a block with predecessors, an argument on
 * every branch to it (one of them then set to a constant), and an i32
 * operand in the block made the parameter. */
static void
edit_append_param(round *r)
{
	r->edit = "append param";
	kl_func *f = any_func(r);
	if (!f)
		return;
	kl_block b;
	uint32_t k;
	if (!pick_param(f, &b, &k))
		return; /* (blocks with parameters have predecessors here) */
	kl_value p = kl_block_append_param(f, b, KL_TYPE_I32);
	CHECK(p.id != KL_NONE);
	kl_inst last = KL_NO_INST;
	uint32_t last_d = 0;
	for (kl_block x = kl_func_first_block(f); x.id != KL_NONE;
	     x = kl_block_next(f, x)) {
		kl_inst t = kl_block_last_inst(f, x);
		for (uint32_t d = 0; d < kl_inst_num_dests(f, t); d++)
			if (kl_inst_dest(f, t, d).id == b.id) {
				CHECK(kl_inst_append_dest_arg(f, t, d,
							      param0(f)) ==
				      KL_OK);
				last = t;
				last_d = d;
			}
	}
	/* use it: the first i32 operand in b */
	bool used = false;
	for (kl_inst i = kl_block_first_inst(f, b); i.id != KL_NONE && !used;
	     i = kl_inst_next(f, i))
		for (uint32_t n = 0; n < kl_inst_num_args(f, i) && !used; n++)
			if (kl_value_type(f, kl_inst_arg(f, i, n)) ==
			    KL_TYPE_I32) {
				kl_builder bld;
				kl_builder_init(&bld, f);
				kl_builder_before(&bld, i);
				kl_value s = kl_build_binary(
					&bld, KL_OP_IADD, kl_inst_arg(f, i, n), p);
				CHECK(kl_inst_set_arg(f, i, n, s) == KL_OK);
				used = true;
			}
	/* then, alone, one branch passes another argument */
	if (last.id != KL_NONE) {
		kl_builder bld;
		kl_builder_init(&bld, f);
		kl_builder_before(&bld, last);
		kl_value c = kl_build_iconst(&bld, KL_TYPE_I32,
					     (int64_t)below(30));
		uint32_t n = kl_inst_dest_num_args(f, last, last_d);
		settle(r);
		r->edit = "set_dest_arg";
		CHECK(kl_inst_set_dest_arg(f, last, last_d, n - 1, c) == KL_OK);
	}
}

/* A block split before an instruction with an i32 operand x: the first
 * half ends in a brif (or br_table) on x to a new block that traps (or
 * exits), or to the second half. */
static void
edit_split(round *r)
{
	kl_func *f = any_func(r);
	kl_inst i;
	uint32_t n;
	if (!f || !pick_site(f, &i, &n))
		return;
	kl_value x = kl_inst_arg(f, i, n);
	kl_block b = kl_inst_block(f, i);
	kl_block rest = kl_func_new_block(f);
	CHECK(kl_func_insert_block_after(f, rest, b) == KL_OK);
	for (kl_inst j = i, next; j.id != KL_NONE; j = next) {
		next = kl_inst_next(f, j);
		CHECK(kl_inst_move_to_end(f, j, rest) == KL_OK);
	}
	kl_block bad = kl_func_new_block(f);
	CHECK(kl_func_append_block(f, bad) == KL_OK);
	kl_builder bld;
	kl_builder_init(&bld, f);
	kl_builder_at_end(&bld, bad);
	kl_sym ex = sym_of(r, "exit");
	if (ex.id != KL_NONE && below(2)) {
		r->edit = "split, exit";
		kl_value code = kl_build_binary_imm(&bld, KL_OP_IADD_IMM, x, 3);
		kl_build_call(&bld, ex, &code, 1);
		kl_build_trap(&bld, KL_TRAP_UNREACHABLE, 0);
	} else {
		r->edit = "split, trap";
		kl_build_trap(&bld, KL_TRAP_USER, below(100));
	}
	kl_builder_at_end(&bld, b);
	kl_block_call go = { rest, NULL, 0 }, stop = { bad, NULL, 0 };
	if (below(3)) {
		kl_value c = kl_build_icmp_imm(&bld, KL_ICC_EQ, x,
					       (int64_t)below(14));
		kl_build_brif(&bld, c, stop, go);
	} else {
		r->edit = "split, br_table";
		kl_value c = kl_build_binary_imm(&bld, KL_OP_BAND_IMM, x, 7);
		kl_block_call table[3] = { go, stop, go };
		kl_build_br_table(&bld, c, go, table, 3);
	}
	CHECK(kl_builder_status(&bld) == KL_OK);
	/* and now and then a plain jump in between */
	if (below(2)) {
		kl_block mid = kl_func_new_block(f);
		CHECK(kl_func_insert_block_after(f, mid, b) == KL_OK);
		kl_inst t = kl_block_last_inst(f, b);
		for (uint32_t d = 0; d < kl_inst_num_dests(f, t); d++)
			if (kl_inst_dest(f, t, d).id == rest.id)
				CHECK(kl_inst_set_dest(f, t, d, (kl_block_call){
					mid, NULL, 0 }) == KL_OK);
		kl_builder_at_end(&bld, mid);
		kl_build_jump(&bld, go);
		CHECK(kl_builder_status(&bld) == KL_OK);
	}
}

/* A call whose result nothing uses moved earlier in its block, before
 * an instruction its arguments are defined before (output reordered),
 * or taken out (output gone). */
static bool
move_call_in(round *r, kl_func *f)
{
	kl_uses *u = kl_uses_new();
	kl_uses_compute(u, f);
	for (kl_block b = kl_func_first_block(f); b.id != KL_NONE;
	     b = kl_block_next(f, b))
		for (kl_inst c = kl_block_first_inst(f, b); c.id != KL_NONE;
		     c = kl_inst_next(f, c)) {
			if (kl_inst_opcode(f, c) != KL_OP_CALL)
				continue;
			uint32_t nu = 0;
			for (uint32_t k = 0; k < kl_inst_num_results(f, c); k++) {
				uint32_t n;
				kl_uses_of(u, f, kl_inst_result(f, c, k), &n);
				nu += n;
			}
			if (nu)
				continue;
			/* the earliest place after its arguments' definitions */
			kl_inst to = kl_block_first_inst(f, b);
			for (uint32_t k = 0; k < kl_inst_num_args(f, c); k++) {
				kl_value a = kl_value_resolve(f,
							      kl_inst_arg(f, c, k));
				kl_inst d = kl_value_def_inst(f, a);
				if (d.id != KL_NONE &&
				    kl_inst_block(f, d).id == b.id &&
				    (d.id == to.id || kl_inst_precedes(f, to, d)))
					to = kl_inst_next(f, d);
			}
			if (below(3) == 0) {
				/* or out: its output goes */
				settle(r);
				r->edit = "remove call";
				kl_inst_remove(f, c);
				kl_uses_free(u);
				return true;
			}
			/* (only past another call: a change that shows) */
			bool past_call = false;
			for (kl_inst x = to; x.id != KL_NONE && x.id != c.id;
			     x = kl_inst_next(f, x))
				past_call |= kl_inst_opcode(f, x) == KL_OP_CALL;
			if (past_call && kl_inst_precedes(f, to, c)) {
				settle(r);
				r->edit = "move call";
				CHECK(kl_inst_move_before(f, c, to) == KL_OK);
				kl_uses_free(u);
				return true;
			}
		}
	kl_uses_free(u);
	return false;
}

static void
edit_move_call(round *r)
{
	r->edit = "move call (none)";
	uint32_t n = kl_module_num_syms(r->m), k = below(n);
	for (uint32_t t = 0; t < n; t++) {
		kl_func *f = kl_sym_func(r->m, (kl_sym){ (k + t) % n });
		if (f && move_call_in(r, f))
			return;
	}
}

/* Is v used outside block b? */
static bool
used_outside(const kl_uses *u, const kl_func *f, kl_value v, kl_block b)
{
	uint32_t n;
	const kl_use *us = kl_uses_of(u, f, v, &n);
	for (uint32_t j = 0; j < n; j++)
		if (kl_inst_block(f, us[j].inst).id != b.id)
			return true;
	return false;
}

/* A brif made to go to its then-block both ways; its old else-block,
 * when nothing else branches to it and nothing outside uses what it
 * defines, taken out of the layout. */
static void
edit_remove_block(round *r)
{
	r->edit = "remove block";
	kl_func *f = any_func(r);
	kl_inst i = f ? pick_op(f, is_brif) : KL_NO_INST;
	if (i.id == KL_NONE)
		return;
	kl_value a0[64];
	kl_block gone = kl_inst_dest(f, i, 1);
	/* only when this edge is its one way in */
	uint32_t edges = 0;
	for (kl_block b = kl_func_first_block(f); b.id != KL_NONE;
	     b = kl_block_next(f, b)) {
		kl_inst t = kl_block_last_inst(f, b);
		for (uint32_t d = 0; d < kl_inst_num_dests(f, t); d++)
			edges += kl_inst_dest(f, t, d).id == gone.id;
	}
	kl_uses *u = kl_uses_new();
	kl_uses_compute(u, f);
	bool used = false;
	for (uint32_t k = 0; k < kl_block_num_params(f, gone); k++)
		used |= used_outside(u, f, kl_block_param(f, gone, k), gone);
	for (kl_inst x = kl_block_first_inst(f, gone); x.id != KL_NONE;
	     x = kl_inst_next(f, x))
		for (uint32_t k = 0; k < kl_inst_num_results(f, x); k++)
			used |= used_outside(u, f, kl_inst_result(f, x, k),
					     gone);
	kl_uses_free(u);
	if (edges != 1 || used)
		return;
	CHECK(kl_inst_set_dest(f, i, 1, dest_of(f, i, 0, a0)) == KL_OK);
	CHECK(kl_func_remove_block(f, gone) == KL_OK);
}

static void
edit_promote(round *r)
{
	switch (below(3)) {
	case 0: {
		r->edit = "kl_promote_func";
		kl_func *f = any_func(r);
		if (f)
			CHECK(kl_promote_func(f, NULL) == KL_OK);
		break;
	}
	case 1: {
		r->edit = "promote from the registry";
		const kl_pass *p = kl_pass_find("promote", 7);
		kl_func *f = any_func(r);
		kl_pass_report rep = { 0 };
		if (f)
			CHECK(p->run(f, &rep) == KL_OK);
		kl_pass_report_free(&rep);
		break;
	}
	default:
		r->edit = "kl_promote_module";
		kl_promote_module(r->m, NULL);
		break;
	}
}

static void
append_i32(round *r, kl_sym d, uint64_t v)
{
	kl_data_item item = { 0 };
	item.kind = KL_DATA_VALUE;
	item.type = KL_TYPE_I32;
	item.value = v;
	CHECK(kl_data_append(r->m, d, &item) == KL_OK);
}

/* A new data object of a few i32 values (the loads of expr read it). */
static void
edit_add_data(round *r)
{
	r->edit = "add data";
	char name[16];
	snprintf(name, sizeof name, "d%u", r->ndata);
	kl_sym d;
	CHECK(kl_module_add_data(r->m, name, strlen(name), below(2), 4, &d) ==
	      KL_OK);
	uint32_t n = 1 + below(4);
	for (uint32_t k = 0; k < n; k++) {
		if (below(4)) {
			append_i32(r, d, below(1000));
			continue;
		}
		/* the address of any symbol: an i32 load of its upper half
		 * reads the object id, which a reset must give again */
		kl_data_item item = { 0 };
		item.kind = KL_DATA_SYMREF;
		item.type = KL_TYPE_I64;
		item.sym = (kl_sym){ below(kl_module_num_syms(r->m)) };
		item.value = below(8);
		CHECK(kl_data_append(r->m, d, &item) == KL_OK);
	}
	if (below(2)) {
		/* an item of no bytes: nothing changes in memory */
		kl_data_item z = { 0 };
		z.kind = KL_DATA_ZERO;
		CHECK(kl_data_append(r->m, d, &z) == KL_OK);
	}
	r->ndata++;
	r->syms_added = r->a_made;
}

/* An item appended to %tab, which A's memory has. */
static void
edit_grow_data(round *r)
{
	r->edit = "grow data";
	kl_sym d = sym_of(r, "tab");
	kl_data_item item = { 0 };
	switch (below(4)) {
	case 3:
		/* no bytes: A's memory is still the module's */
		r->edit = "grow data by nothing";
		item.kind = below(2) ? KL_DATA_ZERO : KL_DATA_STRING;
		CHECK(kl_data_append(r->m, d, &item) == KL_OK);
		return;
	case 0:
		item.kind = KL_DATA_VALUE;
		item.type = KL_TYPE_I32;
		item.value = below(100);
		break;
	case 1:
		item.kind = KL_DATA_ZERO;
		item.value = 4;
		break;
	default:
		item.kind = KL_DATA_SYMREF;
		item.type = KL_TYPE_I64;
		item.sym = sym_of(r, "leaf");
		break;
	}
	CHECK(kl_data_append(r->m, d, &item) == KL_OK);
	r->data_grown = r->a_made;
}

/* A new function %fN(i32) -> i32 built from nothing (and, now and then,
 * %exit declared for the splits to call). */
static void
edit_add_func(round *r)
{
	if (below(3) == 0 && sym_of(r, "exit").id == KL_NONE) {
		r->edit = "declare %exit";
		kl_type t = KL_TYPE_I32;
		kl_signature s = { &t, NULL, 1, 0, false };
		CHECK(kl_module_declare(r->m, "exit", 4, &s, NULL) == KL_OK);
		r->syms_added = r->a_made;
		return;
	}
	r->edit = "add func";
	char name[16];
	snprintf(name, sizeof name, "f%u", r->nfuncs);
	kl_type t = KL_TYPE_I32;
	kl_signature s = { &t, &t, 1, 1, false };
	kl_func *f;
	CHECK(kl_module_add_func(r->m, name, strlen(name), &s, &f) == KL_OK);
	kl_block b = kl_func_new_block(f);
	CHECK(kl_func_append_block(f, b) == KL_OK);
	kl_value x = kl_block_append_param(f, b, KL_TYPE_I32);
	kl_builder bld;
	kl_builder_init(&bld, f);
	kl_builder_at_end(&bld, b);
	kl_value y = kl_build_binary_imm(&bld, KL_OP_IMUL_IMM, x,
					 (int64_t)r->nfuncs + 2);
	kl_build_return(&bld, &y, 1);
	CHECK(kl_builder_status(&bld) == KL_OK);
	r->nfuncs++;
	r->syms_added = r->a_made;
}

/* A putchar of an i32 operand built before its instruction: the
 * builder's call alone changes the output. */
static void
edit_putchar(round *r)
{
	r->edit = "build putchar";
	kl_func *f = any_func(r);
	kl_inst i;
	uint32_t n;
	if (!f || !pick_site(f, &i, &n))
		return;
	kl_value x = kl_inst_arg(f, i, n);
	kl_builder b;
	kl_builder_init(&b, f);
	kl_builder_before(&b, i);
	kl_value k = kl_build_binary_imm(&b, KL_OP_BAND_IMM, x, 31);
	kl_value c = kl_build_binary_imm(&b, KL_OP_IADD_IMM, k, 64);
	settle(r);
	kl_build_call(&b, sym_of(r, "putchar"), &c, 1);
	CHECK(kl_builder_status(&b) == KL_OK);
}

static void
edit(round *r)
{
	switch (below(21)) {
	case 0: case 1: case 2: case 3: case 4: case 5:
		edit_operand(r);
		break;
	case 6: edit_swap_brif(r); break;
	case 7: edit_alias(r); break;
	case 8: edit_clone(r); break;
	case 9: edit_remove_param(r); break;
	case 10: edit_append_param(r); break;
	case 11: case 12: edit_split(r); break;
	case 13: edit_move_call(r); break;
	case 14: edit_remove_block(r); break;
	case 15: edit_promote(r); break;
	case 16: edit_add_data(r); break;
	case 17: edit_grow_data(r); break;
	case 18: edit_putchar(r); break;
	default: edit_add_func(r); break;
	}
}

/* ---- calls and their outcomes ---- */

/* Call name(arg) on it and append the outcome, as text, to log. */
static void
call_into(const round *r, kl_interp *it, kl_buf *out, const char *name,
	  int64_t arg, kl_buf *log)
{
	uint64_t a = (uint64_t)arg & 0xffffffffu;
	kl_run_result res;
	kl_buf_reset(out);
	kl_status st = kl_interp_call(it, sym_of(r, name), &a, 1, &res);
	kl_buf_printf(log, "%s(%lld): %s ", name, (long long)arg,
		      kl_status_name(st));
	switch (res.status) {
	case KL_RUN_RETURNED:
		kl_buf_printf(log, "returned");
		for (uint32_t k = 0; k < res.num_results; k++)
			kl_buf_printf(log, " %#llx",
				      (unsigned long long)res.results[k]);
		break;
	case KL_RUN_TRAPPED:
		kl_buf_printf(log, "trap %s %u: %s", kl_run_trap_name(res.trap),
			      res.user_code, res.message);
		break;
	case KL_RUN_EXITED:
		kl_buf_printf(log, "exit %d", res.exit_code);
		break;
	case KL_RUN_FAILED:
		kl_buf_printf(log, "failed: %s", res.message);
		break;
	}
	kl_buf_printf(log, " (%llu executed) [%.*s]\n",
		      (unsigned long long)res.executed, (int)out->len,
		      out->data ? out->data : "");
	/* and the stack, as kl_run_describe shows it */
	if (st == KL_OK)
		kl_run_describe(it, &res, log);
}

/* Every function with a body, each argument, in symbol order; %bump
 * twice (memory persists between calls). */
static void
run_all(const round *r, kl_interp *it, kl_buf *out, kl_buf *log)
{
	for (uint32_t s = 0; s < kl_module_num_syms(r->m); s++) {
		if (!is_func(r->m, (kl_sym){ s }))
			continue;
		size_t len;
		const char *n = kl_sym_name(r->m, (kl_sym){ s }, &len);
		char name[32];
		snprintf(name, sizeof name, "%.*s", (int)len, n);
		for (size_t k = 0; k < sizeof call_args / sizeof *call_args; k++)
			call_into(r, it, out, name, call_args[k], log);
		if (strcmp(name, "bump") == 0)
			call_into(r, it, out, name, 5, log);
	}
}

static void
fail_round(const round *r, const char *what, const kl_buf *a,
	   const kl_buf *b)
{
	fprintf(stderr, "seed %u, after edit \"%s\": %s\n", r->seed, r->edit,
		what);
	if (a)
		fprintf(stderr, "--- reused\n%s--- new\n%s", a->data ? a->data : "",
			b && b->data ? b->data : "");
	kl_buf text = { 0 };
	kl_print_module(r->m, NULL, &text);
	fprintf(stderr, "--- module\n%s", text.data);
	kl_buf_free(&text);
	unit_current_failed = 1;
}

/* A checked against a new interpreter (see the top of the file).
 * Returns false after a failure (the round stops). */
static bool
compare(round *r)
{
	kl_buf bout = { 0 }, la = { 0 }, lb = { 0 };
	kl_interp_options o = r->opts;
	o.output = collect;
	o.output_ctx = &bout;
	kl_interp *b = kl_interp_new(r->m, &o);
	bool ok = true;

	/* Before a reset: refused after grown data, else the same for
	 * functions that read no writable memory. */
	for (size_t p = 0; p < sizeof pure_funcs / sizeof *pure_funcs && ok;
	     p++)
		for (size_t k = 0; k < sizeof call_args / sizeof *call_args;
		     k++) {
			kl_buf_reset(&la);
			kl_buf_reset(&lb);
			uint64_t arg = (uint64_t)call_args[k] & 0xffffffffu;
			kl_run_result res;
			if (r->data_grown) {
				kl_status st = kl_interp_call(
					r->a, sym_of(r, pure_funcs[p]), &arg, 1,
					&res);
				if (st != KL_ERR_INVALID ||
				    res.status != KL_RUN_FAILED ||
				    !strstr(res.message, "kl_interp_reset")) {
					fail_round(r, "a call after data "
						      "grew was not refused",
						   NULL, NULL);
					ok = false;
					break;
				}
				continue;
			}
			call_into(r, r->a, &r->a_out, pure_funcs[p],
				  call_args[k], &la);
			r->a_made = true;
			call_into(r, b, &bout, pure_funcs[p], call_args[k], &lb);
			if (r->syms_added &&
			    strstr(la.data, "added to the module after"))
				continue;
			/* (with a memory limit, A's allocas may not fit
			 * beside what earlier calls left on the heap) */
			if (r->opts.max_memory)
				continue;
			if (strcmp(la.data, lb.data) != 0) {
				fail_round(r, "before a reset", &la, &lb);
				ok = false;
				break;
			}
		}
	kl_interp_free(b);
	if (ok) {
		/* After a reset: everything, as a new interpreter. */
		kl_interp_reset(r->a);
		r->syms_added = r->data_grown = false;
		r->a_made = true; /* (by run_all, next) */
		b = kl_interp_new(r->m, &o);
		kl_buf_reset(&la);
		kl_buf_reset(&lb);
		run_all(r, r->a, &r->a_out, &la);
		run_all(r, b, &bout, &lb);
		if (strcmp(la.data, lb.data) != 0) {
			fail_round(r, "after a reset", &la, &lb);
			ok = false;
		}
		kl_interp_free(b);
	}
	if (ok && below(2)) {
		/* A reset with nothing changed: the same again (every
		 * other time: the test stays under 2 s with ASan). */
		kl_interp_reset(r->a);
		kl_buf_reset(&lb);
		run_all(r, r->a, &r->a_out, &lb);
		if (strcmp(la.data, lb.data) != 0) {
			fail_round(r, "after a second reset", &la, &lb);
			ok = false;
		}
	}
	kl_buf_free(&la);
	kl_buf_free(&lb);
	kl_buf_free(&bout);
	return ok;
}

static void
one_round(uint32_t seed)
{
	round r = { 0 };
	r.seed = seed;
	rng = 0x9E3779B97F4A7C15ull * (seed + 1);
	r.m = parse_text(program, sizeof program - 1);
	/* Now and then little fuel (calls run out, the decoded code is
	 * patched and mended) or little memory (malloc fails, data does
	 * not fit once it grew: what a reset gives back must be exact). */
	r.opts.fuel = seed % 5 == 1 ? 10 + below(40) : 100000;
	r.opts.max_memory = seed % 7 == 2 ? 600 + 40 * below(20) : 0;
	kl_interp_options o = r.opts;
	o.output = collect;
	o.output_ctx = &r.a_out;
	r.a = kl_interp_new(r.m, &o);
	r.edit = "none";
	bool ok = true;
	if (seed % 4) {
		/* decoded, memory made, before the edits; else memory is
		 * made after some (symbols added before the first call
		 * included) */
		kl_buf log = { 0 };
		run_all(&r, r.a, &r.a_out, &log);
		kl_buf_free(&log);
		r.a_made = true;
		ok = compare(&r);
	}
	for (int e = 0; e < EDITS && ok; e++) {
		r.edit = "(skipped)";
		edit(&r);
		kl_diags d = { 0 };
		if (kl_verify_module(r.m, &d) != KL_OK) {
			fail_round(&r, "the module does not verify", NULL,
				   NULL);
			for (uint32_t k = 0; k < d.len; k++)
				fprintf(stderr, "  %s\n", d.items[k].message);
			ok = false;
		}
		kl_diags_free(&d);
		if (ok)
			ok = compare(&r);
	}
	if (ok)
		compare(&r);
	kl_interp_free(r.a);
	kl_buf_free(&r.a_out);
	kl_module_free(r.m);
}

static void
test_random_rounds(void)
{
	for (uint32_t seed = 1; seed <= ROUNDS && !unit_current_failed; seed++)
		one_round(seed);
}

/* ---- what a reset restores, and its cost ---- */

static const char data_program[] =
	"data %a = { i32 10, i32 20 }\n"
	"data %b = { i64 0x1122334455667788 }\n"
	"data %w8 = { i64 1 }\n"
	"data %w16 = { i64 2 }\n"
	"data %w32 = { i64 3 }\n"
	"data %w64 = { i64 4 }\n"
	"data %wf32 = { i64 5 }\n"
	"data %wf64 = { i64 6 }\n"
	"data %ro = const { i64 9 }\n"
	"data %cp = { i8 \"abcdefg\", i8 0 }\n"
	"data %set = { i16 1, i16 2, i16 3, i16 4 }\n"
	"declare %malloc(i64) -> i64\n"
	"declare %memcpy(i64, i64, i64) -> i64\n"
	"declare %memset(i64, i32, i64) -> i64\n"
	"\n"
	"function %peek(i64) -> i64 {\n"
	"block0(v0: i64):\n"
	"    v1 = load.i64 v0\n"
	"    return v1\n"
	"}\n"
	"\n"
	"function %poke(i64, i64) {\n"
	"block0(v0: i64, v1: i64):\n"
	"    store v1, v0\n"
	"    return\n"
	"}\n"
	"\n"
	"function %stores(i64) {\n"
	"block0(v0: i64):\n"
	"    v1 = symbol_addr %w8\n"
	"    istore8 v0, v1+3\n"
	"    v2 = symbol_addr %w16\n"
	"    istore16 v0, v2+2\n"
	"    v3 = symbol_addr %w32\n"
	"    istore32 v0, v3+4\n"
	"    v4 = symbol_addr %w64\n"
	"    store v0, v4\n"
	"    v5 = symbol_addr %wf32\n"
	"    v6 = f32const 1.5\n"
	"    store v6, v5+4\n"
	"    v7 = symbol_addr %wf64\n"
	"    v8 = f64const -0.0\n"
	"    store v8, v7\n"
	"    return\n"
	"}\n"
	"\n"
	/* %a's address plus 2^32 is %b's: a store there writes %b */
	"function %next(i64) {\n"
	"block0(v0: i64):\n"
	"    v1 = symbol_addr %a\n"
	"    v2 = iconst.i64 0x100000000\n"
	"    v3 = iadd v1, v2\n"
	"    store v0, v3\n"
	"    return\n"
	"}\n"
	"\n"
	"function %copy() {\n"
	"block0:\n"
	"    v0 = symbol_addr %cp\n"
	"    v1 = symbol_addr %ro\n"
	"    v2 = iconst.i64 8\n"
	"    v3 = call %memcpy(v0, v1, v2)\n"
	"    v4 = symbol_addr %set\n"
	"    v5 = iconst.i32 0x7f\n"
	"    v6 = iconst.i64 3\n"
	"    v7 = iadd_imm v4, 2\n"
	"    v8 = call %memset(v7, v5, v6)\n"
	"    return\n"
	"}\n"
	"\n"
	"function %heap() -> i64 {\n"
	"block0:\n"
	"    v0 = iconst.i64 8\n"
	"    v1 = call %malloc(v0)\n"
	"    v2 = iconst.i64 77\n"
	"    store v2, v1\n"
	"    return v1\n"
	"}\n"
	"\n"
	"function %stack() -> i64 {\n"
	"block0:\n"
	"    v0 = alloca 8\n"
	"    return v0\n"
	"}\n"
	"\n"
	"function %ro_store(i64) {\n"
	"block0(v0: i64):\n"
	"    v1 = symbol_addr %ro\n"
	"    store v0, v1\n"
	"    return\n"
	"}\n"
	"\n"
	"function %past_end(i64) {\n"
	"block0(v0: i64):\n"
	"    v1 = symbol_addr %b\n"
	"    istore32 v0, v1+6\n"
	"    return\n"
	"}\n";

/* The data objects of data_program and their initial 8 bytes. */
static const struct {
	const char *name;
	uint64_t bytes;
} data_init[] = {
	{ "a", 10 | 20ull << 32 },
	{ "b", 0x1122334455667788ull },
	{ "w8", 1 },
	{ "w16", 2 },
	{ "w32", 3 },
	{ "w64", 4 },
	{ "wf32", 5 },
	{ "wf64", 6 },
	{ "ro", 9 },
	{ "cp", 0x67666564636261ull },
	{ "set", 1 | 2ull << 16 | 3ull << 32 | 4ull << 48 },
};

/* Call name(args), which must return; its first result, or 0. */
static uint64_t
call_ok(kl_interp *it, const kl_module *m, const char *name,
	const uint64_t *args, uint32_t nargs)
{
	kl_run_result res;
	kl_status st = kl_interp_call(it, sym(m, name), args, nargs, &res);
	CHECK(st == KL_OK);
	if (res.status != KL_RUN_RETURNED) {
		fprintf(stderr, "%%%s: %s\n", name,
			res.message ? res.message : "(no message)");
		CHECK(res.status == KL_RUN_RETURNED);
		return 0;
	}
	return res.num_results ? res.results[0] : 0;
}

/* Call name(arg), which must trap heap_oob with a message holding
 * what. */
static void
call_oob(kl_interp *it, const kl_module *m, const char *name, uint64_t arg,
	 const char *what)
{
	kl_run_result res;
	CHECK(kl_interp_call(it, sym(m, name), &arg, 1, &res) == KL_OK);
	CHECK(res.status == KL_RUN_TRAPPED);
	CHECK_EQ_STR(kl_run_trap_name(res.trap), "heap_oob");
	if (!res.message || !strstr(res.message, what)) {
		fprintf(stderr, "%%%s: \"%s\" has no \"%s\"\n", name,
			res.message ? res.message : "(null)", what);
		CHECK(0);
	}
}

/* The pointer to data symbol name: (its symbol number + 1) << 32. */
static uint64_t
data_ptr(const kl_module *m, const char *name)
{
	return (uint64_t)(sym(m, name).id + 1) << 32;
}

static uint64_t
peek(kl_interp *it, const kl_module *m, const char *name)
{
	uint64_t p = data_ptr(m, name);
	return call_ok(it, m, "peek", &p, 1);
}

/* Every data object reads its initial bytes, but for the one named
 * skip (NULL: none), which must not. */
static void
check_initial(kl_interp *it, const kl_module *m, const char *skip)
{
	for (size_t k = 0; k < sizeof data_init / sizeof *data_init; k++) {
		uint64_t v = peek(it, m, data_init[k].name);
		bool same = v == data_init[k].bytes;
		if (skip && strcmp(skip, data_init[k].name) == 0)
			same = !same;
		if (!same)
			fprintf(stderr, "%%%s reads %#llx (initial %#llx, "
					"written: %s)\n",
				data_init[k].name, (unsigned long long)v,
				(unsigned long long)data_init[k].bytes,
				skip ? skip : "none");
		CHECK(same);
	}
}

/* A run writes %a and not %b; after a reset both read their initial
 * bytes, and a heap object and an alloca of the run are gone. */
static void
test_reset_restores_data(void)
{
	kl_module *m = parse_text(data_program, sizeof data_program - 1);
	kl_interp *it = kl_interp_new(m, NULL);
	for (int pass = 0; pass < 3; pass++) {
		uint64_t args[2] = { data_ptr(m, "a"),
				     0xabcdef0012345678ull + (uint64_t)pass };
		check_initial(it, m, NULL);
		CHECK_EQ_INT(it->ndirty, 0);
		call_ok(it, m, "poke", args, 2);
		check_initial(it, m, "a");
		CHECK_EQ_INT(peek(it, m, "a"), args[1]);
		CHECK_EQ_INT(it->ndirty, 1);
		/* written again: still one object to refill */
		call_ok(it, m, "poke", args, 2);
		CHECK_EQ_INT(it->ndirty, 1);
		uint64_t h = call_ok(it, m, "heap", NULL, 0);
		uint64_t s = call_ok(it, m, "stack", NULL, 0);
		CHECK_EQ_INT(call_ok(it, m, "peek", &h, 1), 77);
		call_oob(it, m, "peek", s, "is dead: its frame returned");
		kl_interp_reset(it);
		CHECK_EQ_INT(it->ndirty, 0);
		check_initial(it, m, NULL);
		/* the run's heap object and alloca are no more; the next
		 * allocation takes the heap object's id again, as in a new
		 * interpreter */
		call_oob(it, m, "peek", h, "does not exist");
		call_oob(it, m, "peek", s, "does not exist");
		CHECK_EQ_INT(call_ok(it, m, "heap", NULL, 0), h);
		kl_interp_reset(it);
	}
	kl_interp_free(it);
	kl_module_free(m);
}

/* Every way a run writes data marks it for the reset: stores of each
 * width (integer and float), a store through a pointer computed from
 * another object's address, memcpy, memset. Each object is restored,
 * and written and restored again after the reset (the reset must make
 * its first write be noticed again). Stores that trap write nothing. */
static void
test_reset_each_write(void)
{
	kl_module *m = parse_text(data_program, sizeof data_program - 1);
	kl_interp *it = kl_interp_new(m, NULL);
	uint64_t v = 0x8877665544332211ull;
	for (int pass = 0; pass < 2; pass++) {
		check_initial(it, m, NULL);
		call_ok(it, m, "stores", &v, 1);
		CHECK_EQ_INT(it->ndirty, 6);
		CHECK_EQ_INT(peek(it, m, "w8"), 0x11000001);
		CHECK_EQ_INT(peek(it, m, "w16"), 0x22110002);
		CHECK_EQ_INT(peek(it, m, "w32"), 0x4433221100000003);
		CHECK_EQ_INT(peek(it, m, "w64"), v);
		CHECK_EQ_INT(peek(it, m, "wf32"), 0x3fc0000000000005);
		CHECK_EQ_INT(peek(it, m, "wf64"), 0x8000000000000000);
		kl_interp_reset(it);
		check_initial(it, m, NULL);

		uint64_t w = 42;
		call_ok(it, m, "next", &w, 1);
		CHECK_EQ_INT(peek(it, m, "b"), 42);
		kl_interp_reset(it);
		check_initial(it, m, NULL);

		call_ok(it, m, "copy", NULL, 0);
		CHECK_EQ_INT(it->ndirty, 2);
		CHECK_EQ_INT(peek(it, m, "cp"), 9);
		CHECK_EQ_INT(peek(it, m, "set"),
			     0x4007f7f7f0001ull);
		kl_interp_reset(it);
		check_initial(it, m, NULL);

		/* a store to const data, or past the end of clean
		 * writable data, traps as before and marks nothing */
		call_oob(it, m, "ro_store", v, "is read-only");
		call_oob(it, m, "past_end", v, "bytes 6 to 9 run past its end");
		CHECK_EQ_INT(it->ndirty, 0);
		check_initial(it, m, NULL);
		kl_interp_reset(it);
	}
	kl_interp_free(it);
	kl_module_free(m);
}

#define BIG_ITEMS 200000
#define CYCLES 200000

/* 200,000 resets, each followed by a call, of a module with 200,000
 * writable data items: a reset that refilled all the data (as it did)
 * would make 4e10 item writes, hours; now each costs what the call did.
 * The calls alternate between touching no data, writing a small
 * object and making a heap object (whose id must be the same every
 * time). No timing is asserted: the test must just end. */
static void
test_reset_cost(void)
{
	kl_buf text = { 0 };
	kl_buf_puts(&text, "data %big = {");
	for (uint32_t k = 0; k < BIG_ITEMS; k++)
		kl_buf_printf(&text, "%s i64 %u", k ? "," : "", k);
	kl_buf_puts(&text,
		    " }\n"
		    "data %small = { i64 5 }\n"
		    "declare %malloc(i64) -> i64\n"
		    "function %id(i64) -> i64 {\n"
		    "block0(v0: i64):\n"
		    "    return v0\n"
		    "}\n"
		    "function %bump(i64) -> i64 {\n"
		    "block0(v0: i64):\n"
		    "    v1 = symbol_addr %small\n"
		    "    v2 = load.i64 v1\n"
		    "    v3 = iadd v2, v0\n"
		    "    store v3, v1\n"
		    "    return v3\n"
		    "}\n"
		    "function %get(i64) -> i64 {\n"
		    "block0(v0: i64):\n"
		    "    v1 = call %malloc(v0)\n"
		    "    return v1\n"
		    "}\n"
		    "function %big_at(i64) -> i64 {\n"
		    "block0(v0: i64):\n"
		    "    v1 = symbol_addr %big\n"
		    "    v2 = imul_imm v0, 8\n"
		    "    v3 = iadd v1, v2\n"
		    "    v4 = load.i64 v3\n"
		    "    return v4\n"
		    "}\n");
	kl_module *m = parse_text(text.data, text.len);
	kl_buf_free(&text);
	kl_interp *it = kl_interp_new(m, NULL);
	uint64_t heap_id = 0;
	bool same = true;
	for (uint32_t k = 0; k < CYCLES && same; k++) {
		kl_interp_reset(it);
		uint64_t arg = k;
		switch (k % 3) {
		case 0:
			same = call_ok(it, m, "id", &arg, 1) == k;
			break;
		case 1:
			same = call_ok(it, m, "bump", &arg, 1) == 5 + k;
			break;
		default:
			arg = 8;
			uint64_t p = call_ok(it, m, "get", &arg, 1);
			if (!heap_id)
				heap_id = p;
			same = p != 0 && p == heap_id;
			break;
		}
	}
	CHECK(same);
	kl_interp_reset(it);
	uint64_t at[] = { 0, 1, BIG_ITEMS / 2, BIG_ITEMS - 1 };
	for (size_t k = 0; k < sizeof at / sizeof *at; k++)
		CHECK_EQ_INT(call_ok(it, m, "big_at", &at[k], 1), at[k]);
	kl_interp_free(it);
	kl_module_free(m);
}

int
main(void)
{
	UNIT_RUN(test_random_rounds);
	UNIT_RUN(test_reset_restores_data);
	UNIT_RUN(test_reset_each_write);
	UNIT_RUN(test_reset_cost);
	return unit_report("interp_reuse");
}
