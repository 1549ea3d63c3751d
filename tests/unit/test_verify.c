/*
 * test_verify.c -- unit tests of the verifier: the checks that text cannot
 * express (the parser rejects such IR before the verifier sees it), the
 * cached-analysis checks, the diagnostics' fields, the exact rendering of
 * the design's example, and robustness: randomly corrupted IR must give
 * errors, never a crash, a hang or a leak (run under the sanitizers by
 * `make check SAN=1`).
 *
 * Broken IR is made by parsing a valid function and then poking the
 * internal tables of src/ir/ir.h, or with the builder API, which checks
 * structure but not types.
 *
 * The verifier has a fast path (src/verify/fast.c) that only says "no
 * error" or "maybe", and careful phases that report. Their contract is
 * checked wherever a test verifies: the fast path says yes exactly when
 * the careful phases find nothing (it may say no more often only on
 * cases these tests do not make: address chains deeper than 64, offsets
 * that overflow).
 */
#include <stdlib.h>

#include "keel.h"
#include "unit.h"
#include "../../src/verify/verify.h"

/* ---- helpers ---- */

static kl_module *
parse(const char *text)
{
	kl_module *m = NULL;
	kl_diags d = { 0 };
	kl_parse_options opts = { .allow_redefinition = false };
	if (kl_parse_module(text, strlen(text), &opts, &m, &d) != KL_OK) {
		for (uint32_t i = 0; i < d.len; i++)
			fprintf(stderr, "parse error: %u: %s\n",
				d.items[i].line, d.items[i].message);
	}
	kl_diags_free(&d);
	CHECK(m != NULL);
	return m;
}

static kl_func *
func_named(kl_module *m, const char *name)
{
	kl_sym s = kl_module_lookup(m, name, strlen(name));
	return s.id == KL_NONE ? NULL : kl_sym_func(m, s);
}

/* Does the fast path clear f (with the cached analyses of with, if
 * any)? */
static bool
fast_says_ok_with(const kl_func *f, const kl_verify_ctx *with)
{
	kl_verify_scratch *s = kl_verify_scratch_new();
	kl_verify_ctx ctx = { .scratch = s };
	if (with) {
		ctx.cfg = with->cfg;
		ctx.domtree = with->domtree;
	}
	bool ok = verify_fast(f, &ctx, s, NULL);
	kl_verify_scratch_free(s);
	return ok;
}

static bool
fast_says_ok(const kl_func *f)
{
	return fast_says_ok_with(f, NULL);
}

/* Do the careful phases, alone, find nothing, not even a warning? (The
 * fast path says yes only then: a warning must reach the caller.) They
 * fail only on errors. */
static bool
careful_says_ok(const kl_func *f)
{
	kl_verify_scratch *s = kl_verify_scratch_new();
	kl_verify_ctx ctx = { .scratch = s };
	kl_diags d = { 0 };
	kl_status st = verify_careful(f, &ctx, s, &d);
	CHECK((st == KL_OK) == (kl_diags_errors(&d) == 0));
	bool nothing = d.len == 0;
	kl_diags_free(&d);
	kl_verify_scratch_free(s);
	return nothing;
}

/* Verify f; the number of errors and warnings, all in *d (freed by the
 * caller). The status says whether there were errors; the fast path
 * says yes when there was nothing. */
static uint32_t
verify(const kl_func *f, const kl_verify_ctx *ctx, kl_diags *d)
{
	uint32_t start = d->len, errors_before = kl_diags_errors(d);
	kl_status st = kl_verify_func(f, ctx, d);
	CHECK((st == KL_OK) == (kl_diags_errors(d) == errors_before));
	CHECK(fast_says_ok_with(f, ctx) == (d->len == start));
	return d->len;
}

static void
dump(const kl_diags *d)
{
	for (uint32_t i = 0; i < d->len; i++)
		fprintf(stderr, "  line %u: %s\n", d->items[i].line,
			d->items[i].message);
}

/* Is there an error whose message contains text, about entity kind? */
static bool
has_error(const kl_diags *d, kl_entity_kind kind, const char *text)
{
	for (uint32_t i = 0; i < d->len; i++)
		if (d->items[i].loc.kind == kind &&
		    strstr(d->items[i].message, text))
			return true;
	return false;
}

/* CHECK(has_error(...)) that shows what there was instead. */
#define CHECK_ERROR(d, kind, text)                                          \
	do {                                                                 \
		CHECK(has_error(d, kind, text));                             \
		if (!has_error(d, kind, text))                               \
			dump(d);                                             \
	} while (0)


/* Expect exactly one error, of that kind and text. */
static void
expect_one(const kl_func *f, kl_entity_kind kind, const char *text)
{
	kl_diags d = { 0 };
	uint32_t n = verify(f, NULL, &d);
	if (n != 1 || !has_error(&d, kind, text)) {
		fprintf(stderr, "expected one error '%s', got %u:\n", text, n);
		dump(&d);
		unit_current_failed = 1;
	}
	/* Whatever it is, it renders without trouble. */
	kl_buf out = { 0 };
	CHECK(kl_verify_render(f, &d, "t.kl", true, &out, &out) == n);
	kl_buf_free(&out);
	kl_diags_free(&d);
}

/* Expect at least an error of that kind containing text. */
static void
expect_some(const kl_func *f, kl_entity_kind kind, const char *text)
{
	kl_diags d = { 0 };
	verify(f, NULL, &d);
	if (!has_error(&d, kind, text)) {
		fprintf(stderr, "expected an error '%s', got:\n", text);
		dump(&d);
		unit_current_failed = 1;
	}
	kl_buf out = { 0 };
	kl_verify_render(f, &d, "t.kl", false, &out, &out);
	kl_buf_free(&out);
	kl_diags_free(&d);
}

static void
expect_ok(const kl_func *f)
{
	kl_diags d = { 0 };
	if (verify(f, NULL, &d) != 0) {
		fprintf(stderr, "expected no error, got:\n");
		dump(&d);
		unit_current_failed = 1;
	}
	kl_diags_free(&d);
}

static const char simple[] =
	"declare %g(i32) -> i32\n"
	"data %d = { i32 0 }\n"
	"\n"
	"function %f(i32) -> i32 {\n"
	"    sig0 = (i32) -> i32\n"
	"\n"
	"block0(v0: i32):\n"
	"    v1 = iadd_imm v0, 1\n"
	"    v2 = call %g(v1)\n"
	"    v3 = symbol_addr %g\n"
	"    v4 = call_indirect sig0, v3(v2)\n"
	"    brif v4, block1(v4), block2\n"
	"\n"
	"block1(v5: i32):\n"
	"    v6 = icmp_imm eq v5, 0\n"
	"    br_table v6, block2, [block2]\n"
	"\n"
	"block2:\n"
	"    v7 = symbol_addr %d\n"
	"    store v0, v7\n"
	"    return v0\n"
	"}\n";

/* inst numbers of `simple` */
enum {
	S_IADD_IMM, S_CALL, S_SYMADDR, S_CALLIND, S_BRIF, S_ICMP, S_BRTAB,
	S_SYMADDR_D, S_STORE, S_RETURN
};

/* ---- the design's example ---- */

static const char design_text[] =
	"function %large_imm(i16) -> i32 {\n"
	"block0(v1: i16):\n"
	"    v0 = iadd_imm v1, 1000\n"
	"    return v0\n"
	"}\n";

static const char design_out[] =
	"t.kl:4: error: inst1: arg 0 (v0) has type i16, must match function "
	"signature of i32\n"
	"function %large_imm(i16) -> i32 {\n"
	"block0(v1: i16):\n"
	"    v0 = iadd_imm v1, 1000\n"
	"    return v0\n"
	";   ^~~~~~~~~\n"
	"; error: inst1 (return v0): arg 0 (v0) has type i16, must match "
	"function signature of i32\n"
	"}\n"
	"; 1 verifier error in %large_imm\n";

static void
test_design_example(void)
{
	kl_module *m = parse(design_text);
	kl_diags d = { 0 };
	CHECK(kl_verify_module(m, &d) == KL_ERR_VERIFY);
	CHECK_EQ_INT(d.len, 1);
	const kl_diag *g = &d.items[0];
	CHECK_EQ_INT(g->loc.kind, KL_ENT_INST);
	CHECK_EQ_INT(g->loc.id, 1);
	CHECK_EQ_INT(g->inst.id, 1);
	CHECK_EQ_INT(g->line, 4);
	CHECK_EQ_INT(g->col, 0);
	CHECK_EQ_INT(g->severity, KL_SEV_ERROR);
	CHECK_EQ_STR(g->message, "arg 0 (v0) has type i16, must match "
				 "function signature of i32");
	kl_func *f = func_named(m, "large_imm");
	CHECK(g->func.id == kl_func_sym(f).id);
	kl_buf out = { 0 };
	CHECK_EQ_INT(kl_verify_render(f, &d, "t.kl", false, &out, &out), 1);
	CHECK_EQ_STR(out.data, design_out);

	/* Headers and listing apart: the listing alone parses again. */
	kl_buf hdr = { 0 }, lst = { 0 };
	kl_verify_render(f, &d, "t.kl", false, &hdr, &lst);
	CHECK(strncmp(hdr.data, "t.kl:4: error: inst1: ", 22) == 0);
	kl_module *again = parse(lst.data);
	kl_module_free(again);

	/*
	 * The design writes the immediate 0x3b9a_ca00, which does not fit
	 * in i16: with it (the parser refuses it, so it is poked in) there
	 * is a second error, on inst0, which the design's listing omits.
	 */
	inst_set_imm(f, 0, 0x3b9aca00);
	kl_diags_free(&d);
	CHECK_EQ_INT(verify(f, NULL, &d), 2);
	CHECK_ERROR(&d, KL_ENT_INST,
			"immediate 1000000000 (0x3b9a_ca00) does not fit in "
			"i16");
	kl_buf_reset(&out);
	kl_verify_render(f, &d, "t.kl", false, &out, &out);
	CHECK(strstr(out.data, "t.kl:3: error: inst0: immediate 1000000000 "
			       "(0x3b9a_ca00) does not fit in i16\n"
			       "t.kl:4: error: inst1: ") != NULL);
	CHECK(strstr(out.data, "    v0 = iadd_imm v1, 0x3b9a_ca00\n"
			       ";   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n") != NULL);
	CHECK(strstr(out.data, "; 2 verifier errors in %large_imm\n") != NULL);
	kl_buf_free(&out);
	kl_buf_free(&hdr);
	kl_buf_free(&lst);
	kl_diags_free(&d);
	kl_module_free(m);
}

/* --inst-numbers: messages name instN; the listing shows them all. */
static void
test_render_inst_numbers(void)
{
	kl_module *m = parse(design_text);
	kl_func *f = func_named(m, "large_imm");
	kl_diags d = { 0 };
	verify(f, NULL, &d);
	kl_buf out = { 0 };
	kl_verify_render(f, &d, NULL, true, &out, &out);
	CHECK(strstr(out.data, "<input>:4: error: inst1: ") != NULL);
	CHECK(strstr(out.data, "    v0 = iadd_imm v1, 1000 ; inst0\n") != NULL);
	CHECK(strstr(out.data, "    return v0 ; inst1\n"
			       ";   ^~~~~~~~~\n") != NULL);
	kl_buf_free(&out);
	kl_diags_free(&d);
	kl_module_free(m);
}

/* ---- instruction integrity ---- */

static void
test_valid_simple(void)
{
	kl_module *m = parse(simple);
	expect_ok(func_named(m, "f"));
	kl_diags d = { 0 };
	CHECK(kl_verify_module(m, &d) == KL_OK);
	CHECK_EQ_INT(d.len, 0);
	kl_module_free(m);
}

static void
test_invalid_opcode(void)
{
	kl_module *m = parse(simple);
	kl_func *f = func_named(m, "f");
	f->insts[S_IADD_IMM].op = 999;
	/* v1 has no sound definition now: its use is reported too. */
	expect_some(f, KL_ENT_INST, "invalid opcode 999");
	f->insts[S_IADD_IMM].op = KL_OP_COUNT;
	expect_some(f, KL_ENT_INST, "invalid opcode");
	kl_module_free(m);
}

static void
test_result_def(void)
{
	kl_module *m = parse(simple);
	kl_func *f = func_named(m, "f");
	/* v1's def says inst1: inst0 lists a value that is not its own. */
	f->values[1].def = S_CALL;
	expect_some(f, KL_ENT_INST, "result v1 of inst0 is defined by inst1");
	kl_module_free(m);

	m = parse(simple);
	f = func_named(m, "f");
	/* A value claims the store (no results) as its definition. */
	f->values[7].def = S_STORE;
	expect_some(f, KL_ENT_VALUE, "v7 says it is a result of inst8, which "
				     "does not list it");
	kl_module_free(m);

	/* The same, for a value that is the only one the walk does not
	 * define (the fast path checks the value table only for such). */
	m = parse(simple);
	f = func_named(m, "f");
	CHECK_EQ_INT(f->nvalues, 8);
	func_reserve_values(f, 9);
	f->values[8] = (kl_value_data){ KL_TYPE_I32, VK_RESULT, S_STORE };
	expect_one(f, KL_ENT_VALUE, "v8 says it is a result of inst8, which "
				    "does not list it");
	kl_module_free(m);

	m = parse(simple);
	f = func_named(m, "f");
	/* The result slot names a hole. */
	func_reserve_values(f, 20);
	f->insts[S_IADD_IMM].w[0] = 19;
	expect_some(f, KL_ENT_INST, "result v19 of inst0 is undefined");
	f->insts[S_IADD_IMM].w[0] = 5000;
	expect_some(f, KL_ENT_INST, "result 0 is v5000, which is out of range");
	kl_module_free(m);
}

static void
test_result_count(void)
{
	kl_module *m = parse(simple);
	kl_func *f = func_named(m, "f");
	/* The call's results list loses its value: 0 results, sig has 1. */
	uint32_t *rl = &f->insts[S_CALL].w[0];
	*rl = 0;
	expect_some(f, KL_ENT_INST, "call has 0 results, but the callee's "
				    "signature has 1");
	kl_module_free(m);
}

static void
test_defined_twice(void)
{
	kl_module *m = parse(simple);
	kl_func *f = func_named(m, "f");
	/* The call's results list [v2, v2]. */
	uint32_t v2 = 2;
	list_push(&f->pool, &f->insts[S_CALL].w[0], v2);
	expect_some(f, KL_ENT_INST, "v2 is defined more than once");
	kl_module_free(m);

	m = parse(simple);
	f = func_named(m, "f");
	/* block1's parameter list names v5 twice. */
	list_push(&f->pool, &f->blocks[1].params, 5);
	expect_some(f, KL_ENT_BLOCK, "v5 is defined more than once");
	kl_module_free(m);
}

/* The same, where a second definition is the only error (the fast
 * path's define must notice it: no count or type gives it away). */
static void
test_defined_twice_alone(void)
{
	static const char text[] =
		"declare %h() -> i32, i32\n"
		"function %t(i32) -> i32 {\n"
		"block0(v0: i32):\n"
		"    v1, v2 = call %h()\n"
		"    jump block1(v0, v1)\n"
		"block1(v5: i32, v6: i32):\n"
		"    return v5\n"
		"}\n";
	kl_module *m = parse(text);
	kl_func *f = func_named(m, "t");
	expect_ok(f);
	/* The call's results [v1, v1]; v2 is a hole. */
	uint32_t res = f->insts[0].w[0];
	f->pool.data[res + 1] = 1;
	f->values[2] = value_hole();
	expect_one(f, KL_ENT_INST, "v1 is defined more than once");
	kl_module_free(m);

	m = parse(text);
	f = func_named(m, "t");
	/* block1's parameters [v5, v5]; v6 is a hole. */
	f->pool.data[f->blocks[1].params + 1] = 5;
	f->values[6] = value_hole();
	expect_one(f, KL_ENT_BLOCK, "v5 is defined more than once");
	kl_module_free(m);
}

static void
test_hole_and_range(void)
{
	kl_module *m = parse(simple);
	kl_func *f = func_named(m, "f");
	func_reserve_values(f, 30);
	f->insts[S_IADD_IMM].w[1] = 25; /* a hole */
	expect_one(f, KL_ENT_INST, "use of undefined value v25");
	f->insts[S_IADD_IMM].w[1] = 1u << 30;
	expect_one(f, KL_ENT_INST, "use of v1073741824, which is out of range");
	kl_module_free(m);

	m = parse(simple);
	f = func_named(m, "f");
	/* A branch argument that is a hole. */
	const uint32_t *dests;
	inst_dests(f, S_BRIF, &dests);
	f->pool.data[dests[0] + 1] = 29;
	func_reserve_values(f, 30);
	expect_one(f, KL_ENT_INST, "use of undefined value v29");
	kl_module_free(m);
}

static void
test_removed_definition(void)
{
	kl_module *m = parse(simple);
	kl_func *f = func_named(m, "f");
	/* Remove inst0 from the layout: v1 is still used by the call. */
	kl_inst_remove(f, (kl_inst){ S_IADD_IMM });
	expect_one(f, KL_ENT_INST, "use of v1, whose definition inst0 is not "
				   "in the layout");
	kl_module_free(m);
}

static void
test_missing_entities(void)
{
	kl_module *m = parse(simple);
	kl_func *f = func_named(m, "f");
	f->insts[S_CALL].w[1] = 77;
	expect_some(f, KL_ENT_INST, "call of symbol 77, which does not exist");
	kl_module_free(m);

	m = parse(simple);
	f = func_named(m, "f");
	kl_sym d = kl_module_lookup(m, "d", 1);
	f->insts[S_CALL].w[1] = d.id;
	expect_one(f, KL_ENT_INST, "call of a data object");
	kl_module_free(m);

	m = parse(simple);
	f = func_named(m, "f");
	f->insts[S_CALLIND].w[1] = 3;
	expect_one(f, KL_ENT_INST, "call_indirect uses sig3, which does not "
				   "exist");
	f->sigrefs[0] = 12345;
	f->insts[S_CALLIND].w[1] = 0;
	expect_some(f, KL_ENT_SIGREF, "sig0 names module signature 12345");
	kl_module_free(m);

	/* call_indirect's operand list without the callee */
	m = parse(simple);
	f = func_named(m, "f");
	f->insts[S_CALLIND].w[2] = list_make(&f->pool, NULL, 0);
	expect_some(f, KL_ENT_INST, "call_indirect has no callee operand");
	kl_module_free(m);

	/* %g's module signature gone */
	m = parse(simple);
	f = func_named(m, "f");
	m->syms[kl_module_lookup(m, "g", 1).id].sig = 999;
	expect_some(f, KL_ENT_INST, "the callee's signature does not exist");
	kl_module_free(m);

	m = parse(simple);
	f = func_named(m, "f");
	f->insts[S_SYMADDR].w[1] = 4000;
	expect_one(f, KL_ENT_INST, "symbol_addr of symbol 4000, which does "
				   "not exist");
	kl_module_free(m);

	m = parse(simple);
	f = func_named(m, "f");
	f->sig = 999;
	expect_some(f, KL_ENT_FUNC, "the function's signature does not exist");
	kl_module_free(m);
}

static void
test_branch_targets(void)
{
	kl_module *m = parse(simple);
	kl_func *f = func_named(m, "f");
	/* brif's else, block2, has no arguments: its destination word is
	 * the block itself. */
	f->insts[S_BRIF].w[2] = dest_word_of_block(40);
	expect_one(f, KL_ENT_INST, "branch to block40 (else), which does not "
				   "exist");
	kl_block nb = kl_func_new_block(f);
	f->insts[S_BRIF].w[2] = dest_word_of_block(nb.id);
	expect_one(f, KL_ENT_INST, "which is not in the layout");
	/* The same through a list: block1(v4), then block40(v4). */
	const uint32_t *dests;
	inst_dests(f, S_BRIF, &dests);
	f->insts[S_BRIF].w[2] = dest_word_of_block(2);
	f->pool.data[dests[0]] = 40;
	expect_one(f, KL_ENT_INST, "branch to block40 (then), which does not "
				   "exist");
	kl_module_free(m);
}

static void
test_codes(void)
{
	kl_module *m = parse(simple);
	kl_func *f = func_named(m, "f");
	f->insts[S_ICMP].aux = 200;
	expect_one(f, KL_ENT_INST, "invalid integer condition code 200");
	f->insts[S_ICMP].aux = KL_ICC_EQ;
	kl_builder b;
	kl_builder_init(&b, f);
	kl_builder_before(&b, (kl_inst){ S_RETURN });
	kl_value x = kl_build_f32const(&b, 0);
	kl_value c = kl_build_fcmp(&b, KL_FCC_EQ, x, x);
	CHECK(c.id != KL_NONE);
	f->insts[kl_value_def_inst(f, c).id].aux = 99;
	expect_one(f, KL_ENT_INST, "invalid float condition code 99");
	kl_module_free(m);

	m = parse("function %t() {\nblock0:\n    trap user 3\n}\n");
	f = func_named(m, "t");
	f->insts[0].aux = 17;
	expect_one(f, KL_ENT_INST, "invalid trap code 17");
	/* The first code past the last valid one. */
	f->insts[0].aux = KL_TRAP_COUNT;
	kl_buf want = { 0 };
	kl_buf_printf(&want, "invalid trap code %u", (unsigned)KL_TRAP_COUNT);
	expect_one(f, KL_ENT_INST, want.data);
	kl_buf_free(&want);
	kl_module_free(m);

	/* An alignment is kept as its base-2 logarithm, which must be below
	 * 32: 2^31 is fine, 2^32 is not, on both paths (expect_one and
	 * careful_says_ok: the fast path clears a valid function alone). */
	m = parse("function %a() {\nblock0:\n    v0 = alloca 8, align 8\n"
		  "    return\n}\n");
	f = func_named(m, "a");
	f->insts[0].aux = 31;
	CHECK(careful_says_ok(f));
	expect_ok(f);
	f->insts[0].aux = 32;
	expect_one(f, KL_ENT_INST, "alignment 2^32 is too large");
	kl_module_free(m);
}

static void
test_bad_lists(void)
{
	/* Every list handle of simple, one at a time, made absurd. */
	static const struct {
		uint32_t inst, word;
	} lists[] = {
		{ S_CALL, 0 }, { S_CALL, 2 }, { S_CALLIND, 2 },
		{ S_BRIF, 1 }, { S_BRIF, 2 }, { S_BRTAB, 1 }, { S_RETURN, 0 },
	};
	static const uint32_t bad[] = { 1u << 31, 0xffffffff, 3 };
	for (size_t k = 0; k < sizeof lists / sizeof lists[0]; k++) {
		for (size_t j = 0; j < sizeof bad / sizeof bad[0]; j++) {
			kl_module *m = parse(simple);
			kl_func *f = func_named(m, "f");
			f->insts[lists[k].inst].w[lists[k].word] = bad[j];
			kl_diags d = { 0 };
			/* Handle 3 may happen to name another sound list. */
			if (verify(f, NULL, &d) == 0 && bad[j] != 3)
				CHECK(!"a broken list was not reported");
			kl_buf out = { 0 };
			kl_verify_render(f, &d, NULL, true, &out, &out);
			kl_buf_free(&out);
			kl_diags_free(&d);
			kl_module_free(m);
		}
	}
	/* A pool header whose length overruns the pool. */
	kl_module *m = parse(simple);
	kl_func *f = func_named(m, "f");
	uint32_t l = f->insts[S_RETURN].w[0];
	f->pool.data[l - 1] = 0x00ffffff;
	expect_some(f, KL_ENT_INST, "broken (bad value-list handle)");
	kl_module_free(m);

	m = parse(simple);
	f = func_named(m, "f");
	f->blocks[1].params = 0x7fffffff;
	expect_some(f, KL_ENT_BLOCK, "the parameter list of block1 is broken");
	kl_module_free(m);

	m = parse(simple);
	f = func_named(m, "f");
	f->insts[S_IADD_IMM].bits |= IMM_POOLED;
	f->insts[S_IADD_IMM].w[2] = 55;
	expect_one(f, KL_ENT_INST, "constant 55 of the function, which does "
				   "not exist");
	kl_module_free(m);
}

/* ---- block integrity and layout ---- */

static void
test_layout_cycles(void)
{
	kl_module *m = parse(simple);
	kl_func *f = func_named(m, "f");
	f->blocks[2].next = 1; /* block0 -> block1 -> block2 -> block1 */
	expect_some(f, KL_ENT_FUNC, "the block layout has a cycle at block1");
	kl_module_free(m);

	m = parse(simple);
	f = func_named(m, "f");
	f->blocks[0].next = 9;
	expect_some(f, KL_ENT_FUNC, "the block layout names block9");
	kl_module_free(m);

	m = parse(simple);
	f = func_named(m, "f");
	/* inst3 -> inst1: a cycle in block0's list. */
	f->nodes[S_CALLIND].next = S_CALL;
	expect_some(f, KL_ENT_BLOCK, "the instruction list of block0 has a "
				     "cycle at inst1");
	kl_module_free(m);

	m = parse(simple);
	f = func_named(m, "f");
	f->nodes[S_ICMP].next = 4000;
	expect_some(f, KL_ENT_BLOCK, "names inst4000, which does not exist");
	kl_module_free(m);

	m = parse(simple);
	f = func_named(m, "f");
	f->nodes[S_BRTAB].seq = 1;
	expect_some(f, KL_ENT_INST, "layout sequence number 1 of inst6 does "
				    "not increase");
	kl_module_free(m);

	m = parse(simple);
	f = func_named(m, "f");
	f->nodes[S_CALL].prev = S_RETURN;
	expect_one(f, KL_ENT_INST, "link from inst1 to the instruction before "
				   "it is wrong");
	f->nodes[S_CALL].prev = S_IADD_IMM;
	f->blocks[1].prev = 2;
	expect_one(f, KL_ENT_BLOCK, "link from block1 to the block before it");
	f->blocks[1].prev = 0;
	f->last_block = 1;
	expect_one(f, KL_ENT_FUNC, "the layout's last block should be block2");
	f->last_block = 2;
	f->blocks[2].last = S_STORE;
	expect_some(f, KL_ENT_BLOCK, "last instruction of block2 should be "
				     "inst9");
	/* A terminator of another block: the only error. */
	f->blocks[2].last = S_BRTAB;
	expect_one(f, KL_ENT_BLOCK, "last instruction of block2 should be "
				    "inst9");
	kl_module_free(m);
}

static void
test_inst_in_two_blocks(void)
{
	kl_module *m = parse(simple);
	kl_func *f = func_named(m, "f");
	/* block2's list starts with the return of ... block2, and block1's
	 * list is [icmp, br_table, return]: the return is in both. */
	f->nodes[S_BRTAB].next = S_RETURN;
	f->blocks[1].last = S_RETURN;
	expect_some(f, KL_ENT_INST, "inst9 is listed in block2 and in block1");
	kl_module_free(m);

	m = parse(simple);
	f = func_named(m, "f");
	f->nodes[S_ICMP].block = 2;
	expect_some(f, KL_ENT_INST, "inst5 is in the list of block1, but its "
				    "layout node says block2");
	kl_module_free(m);
}

static void
test_orphan_inst(void)
{
	kl_module *m = parse(simple);
	kl_func *f = func_named(m, "f");
	/* An instruction whose node says block2, in no list. */
	uint32_t i = func_new_inst(f, KL_OP_TRAP);
	f->nodes[i].block = 2;
	expect_one(f, KL_ENT_INST, "inst10 says it is in block2, but no block "
				   "lists it");
	kl_module_free(m);
}

static void
test_block_flags(void)
{
	kl_module *m = parse(simple);
	kl_func *f = func_named(m, "f");
	f->blocks[1].flags &= ~(uint32_t)BLOCK_PLACED;
	expect_one(f, KL_ENT_BLOCK, "block1 is in the layout but not flagged "
				    "as placed");
	f->blocks[1].flags |= BLOCK_PLACED;
	kl_block nb = kl_func_new_block(f);
	f->blocks[nb.id].flags |= BLOCK_PLACED;
	expect_one(f, KL_ENT_BLOCK, "block3 is flagged as placed but is not "
				    "in the layout");
	kl_module_free(m);
}

static void
test_params(void)
{
	kl_module *m = parse(simple);
	kl_func *f = func_named(m, "f");
	f->values[5].def = 2; /* v5 claims block2, listed by block1 */
	expect_some(f, KL_ENT_BLOCK, "parameter v5 of block1 is a parameter "
				     "of block2 in the value table");
	kl_module_free(m);

	m = parse(simple);
	f = func_named(m, "f");
	f->values[1].type = 4000;
	expect_some(f, KL_ENT_INST, "result v1 has no valid type");
	kl_module_free(m);

	m = parse(simple);
	f = func_named(m, "f");
	f->values[0].kind = 9;
	expect_some(f, KL_ENT_BLOCK, "parameter v0 of block0 is of invalid "
				     "kind 9");
	kl_module_free(m);

	m = parse(simple);
	f = func_named(m, "f");
	f->values[5].type = 4000;
	expect_some(f, KL_ENT_BLOCK, "parameter v5 has no valid type");
	kl_module_free(m);

	/* a value no instruction or block defines, of no kind there is */
	m = parse(simple);
	f = func_named(m, "f");
	func_reserve_values(f, 9);
	f->values[8] = (kl_value_data){ KL_TYPE_I32, 9, 0 };
	expect_one(f, KL_ENT_VALUE, "v8 has invalid kind 9");
	kl_module_free(m);

	/* block1's parameter list names a value past the table */
	m = parse(simple);
	f = func_named(m, "f");
	uint32_t far[] = { 90 };
	f->blocks[1].params = list_make(&f->pool, far, 1);
	expect_some(f, KL_ENT_BLOCK, "parameter 0 is v90, which is out of "
				     "range (8 values)");
	kl_module_free(m);
}

/* ---- aliases ---- */

static void
test_aliases(void)
{
	kl_module *m = parse("function %a(i32) -> i32 {\n"
			     "block0(v0: i32):\n"
			     "    v1 = iadd_imm v0, 1\n"
			     "    v5 -> v1\n"
			     "    return v5\n"
			     "}\n");
	kl_func *f = func_named(m, "a");
	expect_ok(f);
	/* The alias's type differs from its target's. */
	f->values[5].type = KL_TYPE_I64;
	kl_diags d = { 0 };
	verify(f, NULL, &d);
	CHECK_ERROR(&d, KL_ENT_VALUE, "alias v5 has type i64, but the "
					  "value it stands for (v1) has "
					  "type i32");
	/* Shown at the first instruction using it: the return, line 5. */
	CHECK_EQ_INT(d.items[0].line, 5);
	CHECK_EQ_INT(d.items[0].inst.id, 1);
	kl_buf out = { 0 };
	kl_verify_render(f, &d, "t.kl", false, &out, &out);
	CHECK(strstr(out.data, "    v5 -> v1\n;   ^~~~~~~~\n; error: v5: "
			       "alias v5 has type i64") != NULL);
	kl_buf_free(&out);
	kl_diags_free(&d);
	f->values[5].type = KL_TYPE_I32;
	/* To a hole; out of range. */
	func_reserve_values(f, 8);
	f->values[5].def = 7;
	expect_one(f, KL_ENT_VALUE, "alias v5 -> v7: v7 is not defined");
	f->values[5].def = 900;
	expect_one(f, KL_ENT_VALUE, "alias v5 -> v900: v900 is out of range");
	/* A cycle through an alias nothing uses: shown at the header. */
	f->values[5].def = 1;
	value_define(f, 6, VK_ALIAS, KL_TYPE_I32, 7);
	value_define(f, 7, VK_ALIAS, KL_TYPE_I32, 6);
	d = (kl_diags){ 0 };
	verify(f, NULL, &d);
	CHECK_EQ_INT(d.len, 1);
	CHECK_ERROR(&d, KL_ENT_VALUE, "the alias chain of v6 has a cycle");
	CHECK_EQ_INT(d.items[0].line, 1);
	kl_diags_free(&d);
	kl_module_free(m);
}

/* An alias nothing uses, of a hole: found among the values no listed
 * entity defines, not at a use. */
static void
test_unused_alias_of_hole(void)
{
	kl_module *m = parse("function %a(i32) -> i32 {\n"
			     "block0(v0: i32):\n"
			     "    v1 = iadd_imm v0, 1\n"
			     "    v5 -> v1\n"
			     "    return v1\n"
			     "}\n");
	kl_func *f = func_named(m, "a");
	expect_ok(f);
	func_reserve_values(f, 8);
	f->values[7].type = KL_TYPE_I32; /* the alias's type: a hole's kind */
	f->values[5].def = 7;
	expect_one(f, KL_ENT_VALUE, "alias v5 -> v7: v7 is not defined");
	kl_module_free(m);
}

/* ---- types that text cannot express ---- */

static void
test_types_built(void)
{
	kl_module *m = kl_module_new();
	kl_type i16 = KL_TYPE_I16, f32 = KL_TYPE_F32;
	kl_signature sig = { &i16, &i16, 1, 1, false };
	kl_func *f;
	CHECK(kl_module_add_func(m, "b", 1, &sig, &f) == KL_OK);
	kl_block b0 = kl_func_new_block(f);
	kl_func_append_block(f, b0);
	kl_value p = kl_block_append_param(f, b0, i16);
	kl_builder b;
	kl_builder_init(&b, f);
	kl_builder_at_end(&b, b0);
	kl_value c1 = kl_build_iconst(&b, i16, 70000);
	kl_value c2 = kl_build_iconst(&b, f32, 1);
	kl_value a1 = kl_build_binary_imm(&b, KL_OP_IADD_IMM, p, -40000);
	kl_value a2 = kl_build_icmp_imm(&b, KL_ICC_EQ, p, 65535);
	kl_value cp = kl_build_unary(&b, KL_OP_COPY, KL_TYPE_NONE, p);
	kl_value ad = kl_build_binary(&b, KL_OP_IADD, p, p);
	kl_value fc = kl_build_f32const(&b, 0);
	kl_value al = kl_build_alloca(&b, 8, 8);
	kl_value sa = kl_build_symbol_addr(&b, kl_func_sym(f));
	kl_build_iconst(&b, KL_TYPE_I8, 300);
	kl_build_return(&b, &p, 1);
	CHECK(kl_builder_status(&b) == KL_OK);
	(void)a2;
	/* Retype results behind the builder's back. */
	f->values[cp.id].type = KL_TYPE_I64;
	f->values[ad.id].type = KL_TYPE_I32;
	f->values[fc.id].type = KL_TYPE_F64;
	f->values[al.id].type = KL_TYPE_I32;
	f->values[sa.id].type = KL_TYPE_F64;
	kl_diags d = { 0 };
	verify(f, NULL, &d);
	CHECK_ERROR(&d, KL_ENT_INST, "immediate 70000 (0x0001_1170) does not "
		    "fit in i16");
	CHECK_ERROR(&d, KL_ENT_INST, "result (v2) has type f32, must be "
					 "an integer");
	CHECK_ERROR(&d, KL_ENT_INST, "immediate -40000 (0xffff_ffff_ffff_63c0) "
		    "does not fit in i16");
	CHECK(!has_error(&d, KL_ENT_INST, "immediate 65535"));
	/* The listing's spelling only when it is another one. */
	CHECK_ERROR(&d, KL_ENT_INST, "immediate 300 does not fit in i8");
	CHECK_ERROR(&d, KL_ENT_INST, "result (v5) has type i64, must be "
					 "i16 like arg 0 (v0)");
	CHECK_ERROR(&d, KL_ENT_INST, "result (v6) has type i32, must be "
					 "i16 like arg 0 (v0)");
	CHECK_ERROR(&d, KL_ENT_INST, "result (v7) has type f64, must be "
					 "f32");
	CHECK_ERROR(&d, KL_ENT_INST, "result (v8) has type i32, must be "
					 "i64 (the pointer type)");
	CHECK_ERROR(&d, KL_ENT_INST, "result (v9) has type f64, must be "
					 "i64 (the pointer type)");
	CHECK_EQ_INT(d.len, 9);
	(void)c1;
	(void)c2;
	(void)a1;
	CHECK_EQ_INT(d.items[0].line, 0); /* built IR has no lines */
	kl_diags_free(&d);
	kl_module_free(m);
}

static void
test_call_results(void)
{
	kl_module *m = parse(simple);
	kl_func *f = func_named(m, "f");
	f->values[2].type = KL_TYPE_F64;
	f->values[4].type = KL_TYPE_I8;
	kl_diags d = { 0 };
	verify(f, NULL, &d);
	CHECK_ERROR(&d, KL_ENT_INST, "result 0 (v2) has type f64, must "
					 "match %g's signature of i32");
	CHECK_ERROR(&d, KL_ENT_INST, "result 0 (v4) has type i8, must "
					 "match sig0's signature of i32");
	kl_diags_free(&d);
	kl_module_free(m);
}

/*
 * An immediate fits a w-bit type when -2^(w-1) <= imm <= 2^w - 1. The
 * parser and the builder store it sign-extended (255 for an i8 is kept
 * as -1), so the top of the range is made by poking the instruction;
 * the least value is text. Both ends must pass the careful phases (which
 * a valid function never reaches through kl_verify_func, as the fast
 * path clears it) and the fast path; one past each end fails on both.
 */
static void
test_imm_bounds(void)
{
	static const struct {
		uint32_t inst;
		int64_t top, least;
		const char *past_top, *past_least;
	} cases[] = {
		{ 0, 255, -128, "immediate 256 ", "immediate -129 " },
		{ 1, 65535, -32768, "immediate 65536 ", "immediate -32769 " },
		{ 2, 4294967295, -2147483648, "immediate 4294967296 ",
		  "immediate -2147483649 " },
	};
	kl_module *m = parse("function %f(i8, i16, i32) -> i8 {\n"
			     "block0(v0: i8, v1: i16, v2: i32):\n"
			     "    v3 = iadd_imm v0, -128\n"
			     "    v4 = icmp_imm slt v1, -32768\n"
			     "    v5 = udiv_imm v2, -2147483648\n"
			     "    return v3\n"
			     "}\n");
	kl_func *f = func_named(m, "f");
	CHECK(careful_says_ok(f));
	CHECK(fast_says_ok(f));
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		uint32_t i = cases[k].inst;
		CHECK(inst_imm(f, i) == cases[k].least);
		inst_set_imm(f, i, cases[k].top);
		CHECK(careful_says_ok(f));
		CHECK(fast_says_ok(f));
		inst_set_imm(f, i, cases[k].top + 1);
		expect_one(f, KL_ENT_INST, cases[k].past_top);
		inst_set_imm(f, i, cases[k].least - 1);
		expect_one(f, KL_ENT_INST, cases[k].past_least);
		inst_set_imm(f, i, cases[k].least);
	}
	kl_module_free(m);
}

/*
 * Result types the parser infers (so text cannot get them wrong), each
 * wrong alone: in test_types_built the errors share a function, where
 * any of them makes the fast path give up, so a rule only the fast path
 * forgot would not show there.
 */
static void
test_result_types_alone(void)
{
	static const struct {
		uint32_t value;
		kl_type type;
		const char *error;
	} cases[] = {
		{ 2, KL_TYPE_I32, "result (v2) has type i32, must be i8" },
		{ 3, KL_TYPE_I16, "result (v3) has type i16, must be i8" },
		{ 4, KL_TYPE_I64, "result (v4) has type i64, must be i8" },
		{ 5, KL_TYPE_I64, "result (v5) has type i64, must be i32 like "
				  "arg 0 (v0)" },
		{ 6, KL_TYPE_F64, "result (v6) has type f64, must be f32 like "
				  "arg 0 (v1)" },
	};
	kl_module *m = parse("function %f(i32, f32) {\n"
			     "block0(v0: i32, v1: f32):\n"
			     "    v2 = icmp eq v0, v0\n"
			     "    v3 = fcmp lt v1, v1\n"
			     "    v4 = icmp_imm ne v0, 7\n"
			     "    v5 = copy v0\n"
			     "    v6 = fneg v1\n"
			     "    return\n"
			     "}\n");
	kl_func *f = func_named(m, "f");
	expect_ok(f);
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		uint32_t v = cases[k].value;
		uint32_t was = f->values[v].type;
		f->values[v].type = cases[k].type;
		expect_one(f, KL_ENT_INST, cases[k].error);
		f->values[v].type = was;
	}
	kl_module_free(m);
}

/*
 * When arg 0 has the wrong class, the result is not compared with it
 * ("must be f32 like arg 0" would ask for the wrong fix): a result that
 * is of the class is fine, one that is not is held to the class alone.
 * The parser gives the result arg 0's type, so only built IR shows it.
 */
static void
test_result_wrong_class_arg(void)
{
	kl_module *m = parse("function %f(f32, i32) {\n"
			     "block0(v0: f32, v1: i32):\n"
			     "    v2 = iadd v0, v1\n"
			     "    v3 = fneg v1\n"
			     "    return\n"
			     "}\n");
	kl_func *f = func_named(m, "f");
	f->values[2].type = KL_TYPE_I32;
	f->values[3].type = KL_TYPE_F32;
	kl_diags d = { 0 };
	CHECK_EQ_INT(verify(f, NULL, &d), 2);
	CHECK_ERROR(&d, KL_ENT_INST, "arg 0 (v0) has type f32, must be an "
				     "integer");
	CHECK_ERROR(&d, KL_ENT_INST, "arg 0 (v1) has type i32, must be a "
				     "float");
	kl_diags_free(&d);
	f->values[2].type = KL_TYPE_F64;
	f->values[3].type = KL_TYPE_I64;
	CHECK_EQ_INT(verify(f, NULL, &d), 4);
	CHECK_ERROR(&d, KL_ENT_INST, "result (v2) has type f64, must be an "
				     "integer");
	CHECK_ERROR(&d, KL_ENT_INST, "result (v3) has type i64, must be a "
				     "float");
	kl_diags_free(&d);
	kl_module_free(m);
}

/*
 * A value that claims to be a parameter of a block that does not list it
 * is reported about the value, on the block's source line, and the
 * listing shows the error under the block's header (a value has no line
 * of its own).
 */
static void
test_param_claim_location(void)
{
	kl_module *m = parse("function %p(i32) -> i32 {\n"
			     "block0(v0: i32):\n"
			     "    jump block1(v0)\n"
			     "\n"
			     "block1(v1: i32):\n"
			     "    v3 = iadd v1, v1\n"
			     "    return v3\n"
			     "}\n");
	kl_func *f = func_named(m, "p");
	CHECK_EQ_INT(f->values[2].kind, VK_UNUSED); /* the hole v2 */
	f->values[2].kind = VK_PARAM;
	f->values[2].def = 1;
	f->values[2].type = KL_TYPE_I32;
	kl_diags d = { 0 };
	CHECK_EQ_INT(verify(f, NULL, &d), 1);
	CHECK_ERROR(&d, KL_ENT_VALUE, "v2 says it is a parameter of block1, "
				      "which does not list it");
	CHECK_EQ_INT(d.items[0].line, 5);
	CHECK_EQ_INT(kl_block_source_line(f, (kl_block){ 1 }), 5);
	kl_buf hdr = { 0 }, lst = { 0 };
	CHECK(kl_verify_render(f, &d, "p.kl", false, &hdr, &lst) == 1);
	bool at_line = strstr(hdr.data, "p.kl:5: error: v2: v2 says it is");
	bool under_block = strstr(lst.data, "block1(v1: i32):\n"
					    ";^~~~~~~~~~~~~~~\n"
					    "; error: v2: v2 says it is a "
					    "parameter of block1, which does "
					    "not list it\n"
					    "    v3 = iadd v1, v1\n");
	CHECK(at_line);
	CHECK(under_block);
	if (!at_line || !under_block)
		fprintf(stderr, "%s%s", hdr.data, lst.data);
	kl_buf_free(&hdr);
	kl_buf_free(&lst);
	kl_diags_free(&d);
	kl_module_free(m);
}

/*
 * select takes its three operands from a list, which may hold another
 * number: that is one error, and the instruction is not type-checked
 * beyond it (its operands are not where the rule expects them), so
 * [v0, v1] does not also give "result (v2) has type i32, must be i64
 * like arg 1 (v1)".
 */
static void
test_select_operand_count(void)
{
	kl_module *m = parse("function %f(i32, i64) -> i32 {\n"
			     "block0(v0: i32, v1: i64):\n"
			     "    v2 = select v0, v0, v0\n"
			     "    return v2\n"
			     "}\n");
	kl_func *f = func_named(m, "f");
	uint32_t two[] = { 0, 1 }, four[] = { 0, 1, 1, 1 };
	f->insts[0].w[1] = list_make(&f->pool, two, 2);
	expect_one(f, KL_ENT_INST, "select has 2 operands, must have 3");
	f->insts[0].w[1] = list_make(&f->pool, four, 4);
	expect_one(f, KL_ENT_INST, "select has 4 operands, must have 3");
	kl_module_free(m);
}

/* ---- cached analyses ---- */

static void
test_cached_analyses(void)
{
	kl_module *m = parse(simple);
	kl_func *f = func_named(m, "f");
	kl_cfg *cfg = kl_cfg_new();
	kl_domtree *dt = kl_domtree_new();
	kl_cfg_compute(cfg, f);
	kl_domtree_compute(dt, f, cfg);
	kl_verify_ctx ctx = { .cfg = cfg, .domtree = dt };
	kl_diags d = { 0 };
	CHECK_EQ_INT(verify(f, &ctx, &d), 0);

	/* brif's then-arm now goes to block2 too: the cached CFG is stale
	 * (block1 loses its predecessor, block2 gains one) and so is the
	 * tree (block2's idom stays block0, block1 is unreachable). */
	CHECK_EQ_INT(kl_inst_set_dest(f, (kl_inst){ S_BRIF }, 0,
				      (kl_block_call){ .block = { 2 } }),
		     KL_OK);
	CHECK(verify(f, NULL, &d) == 0);
	CHECK(verify(f, &ctx, &d) >= 1);
	CHECK_ERROR(&d, KL_ENT_BLOCK, "the cached CFG is stale at block0: it "
		    "has successors [block1, block2], predecessors []; the "
		    "function has successors [block2, block2], predecessors "
		    "[]");
	kl_diags_free(&d);
	kl_verify_ctx only_dt = { .domtree = dt };
	CHECK(verify(f, &only_dt, &d) == 1);
	CHECK_ERROR(&d, KL_ENT_BLOCK, "the cached dominator tree is stale "
					  "at block1: immediate dominator "
					  "block0, should be none");
	kl_diags_free(&d);

	/* Recomputed, they agree again. */
	kl_cfg_compute(cfg, f);
	kl_domtree_compute(dt, f, cfg);
	CHECK_EQ_INT(verify(f, &ctx, &d), 0);
	kl_cfg_free(cfg);
	kl_domtree_free(dt);
	kl_module_free(m);
}

/*
 * A cached tree that differs only in reachability or in its post-order
 * (kl_domtree_equal compares both) is named for what differs: the idoms
 * agree, and "immediate dominator block0, should be block0" said nothing.
 * So is a cached CFG whose edges differ only in their branch.
 */
static void
test_cached_analyses_messages(void)
{
	kl_module *m = parse("function %f(i32) -> i32 {\n"
			     "block0(v0: i32):\n"
			     "    brif v0, block1, block2\n"
			     "block1:\n"
			     "    jump block3\n"
			     "block2:\n"
			     "    jump block3\n"
			     "block3:\n"
			     "    return v0\n"
			     "}\n");
	kl_func *f = func_named(m, "f");
	kl_cfg *cfg = kl_cfg_new();
	kl_domtree *dt = kl_domtree_new();
	kl_cfg_compute(cfg, f);
	kl_domtree_compute(dt, f, cfg);
	kl_diags d = { 0 };

	/* The arms swapped: same idoms, another depth-first order. */
	kl_inst br = kl_block_last_inst(f, kl_func_first_block(f));
	CHECK(kl_inst_set_dest(f, br, 0, (kl_block_call){ { 2 }, NULL, 0 }) ==
	      KL_OK);
	CHECK(kl_inst_set_dest(f, br, 1, (kl_block_call){ { 1 }, NULL, 0 }) ==
	      KL_OK);
	kl_verify_ctx only_dt = { .domtree = dt };
	CHECK(verify(f, &only_dt, &d) == 1);
	CHECK_ERROR(&d, KL_ENT_BLOCK, "the cached dominator tree is stale at "
		    "block2: its place in the post-order is 1, should be 2");
	CHECK(!has_error(&d, KL_ENT_BLOCK, "block0, should be block0"));
	kl_diags_free(&d);

	/* A tree never computed: the entry is unreachable in it. */
	kl_domtree *empty = kl_domtree_new();
	kl_verify_ctx never = { .domtree = empty };
	CHECK(verify(f, &never, &d) == 1);
	CHECK_ERROR(&d, KL_ENT_BLOCK, "the cached dominator tree is stale at "
		    "block0: it is unreachable there, should be reachable");
	kl_diags_free(&d);

	kl_domtree_free(empty);

	/* The brif (inst0) replaced by a copy of itself, inst4: the edges
	 * join the same blocks, the cached ones by the old branch. */
	kl_cfg_compute(cfg, f);
	kl_inst copy = kl_inst_clone(f, br);
	CHECK(copy.id == 4 && kl_inst_move_before(f, copy, br) == KL_OK);
	kl_inst_remove(f, br);
	kl_verify_ctx only_cfg = { .cfg = cfg };
	CHECK(verify(f, &only_cfg, &d) == 1);
	CHECK_ERROR(&d, KL_ENT_BLOCK, "the cached CFG is stale at block0: it "
		    "has successors [block2 by inst0, block1 by inst0], "
		    "predecessors []; the function has successors [block2 by "
		    "inst4, block1 by inst4], predecessors []");
	kl_diags_free(&d);

	kl_cfg_free(cfg);
	kl_domtree_free(dt);
	kl_module_free(m);

	/* A br_table's last entry retargeted: the lists differ past the
	 * edges a message shows, which then start near the difference. */
	m = parse("function %f(i32) -> i32 {\n"
		  "block0(v0: i32):\n"
		  "    br_table v0, block9, [block1, block2, block3, block4, "
		  "block5, block6, block7, block8]\n"
		  "block1:\n    return v0\nblock2:\n    return v0\n"
		  "block3:\n    return v0\nblock4:\n    return v0\n"
		  "block5:\n    return v0\nblock6:\n    return v0\n"
		  "block7:\n    return v0\nblock8:\n    return v0\n"
		  "block9:\n    return v0\n"
		  "}\n");
	f = func_named(m, "f");
	cfg = kl_cfg_new();
	kl_cfg_compute(cfg, f);
	br = kl_block_last_inst(f, kl_func_first_block(f));
	CHECK(kl_inst_set_dest(f, br, 8, (kl_block_call){ { 7 }, NULL, 0 }) ==
	      KL_OK);
	only_cfg.cfg = cfg;
	CHECK(verify(f, &only_cfg, &d) == 1);
	CHECK_ERROR(&d, KL_ENT_BLOCK, "the cached CFG is stale at block0: it "
		    "has successors [... block6, block7, block8], predecessors "
		    "[]; the function has successors [... block6, block7, "
		    "block7], predecessors []");
	kl_diags_free(&d);
	kl_cfg_free(cfg);
	kl_module_free(m);
}

/* Every field a phase adds to holds at least what it held: a time set
 * assigned in place of added, or a lap measured backwards, goes below
 * it. (Whether a lap is above zero depends on the clock's resolution,
 * so that is not asked.) */
static void
check_times_kept(const kl_verify_stats *st, double from)
{
	CHECK(st->structure_seconds >= from);
	CHECK(st->analysis_seconds >= from);
	CHECK(st->check_seconds >= from);
}

/* The stats are added to by every call, the fast path's (a function
 * that verifies) and the careful phases' (one that does not, after the
 * fast path has timed its try): counts and times, from what the caller
 * left in them. */
static void
test_stats(void)
{
	kl_module *m = parse(simple);
	kl_verify_stats st = { 0 };
	st.structure_seconds = st.analysis_seconds = st.check_seconds = 100;
	kl_verify_ctx ctx = { .stats = &st };
	kl_diags d = { 0 };
	CHECK(kl_verify_func(func_named(m, "f"), &ctx, &d) == KL_OK);
	CHECK_EQ_INT(st.funcs, 1);
	CHECK_EQ_INT(st.blocks, 3);
	CHECK_EQ_INT(st.insts, 10);
	check_times_kept(&st, 100);
	kl_module_free(m);

	m = parse("function %bad(i32) -> i32, i32 {\n"
		  "block0(v0: i32):\n"
		  "    return v0\n"
		  "}\n");
	st.structure_seconds = st.analysis_seconds = st.check_seconds = 200;
	CHECK(kl_verify_func(func_named(m, "bad"), &ctx, &d) ==
	      KL_ERR_VERIFY);
	CHECK_EQ_INT(st.funcs, 2);
	CHECK_EQ_INT(st.blocks, 4);
	CHECK_EQ_INT(st.insts, 11);
	check_times_kept(&st, 200);
	kl_diags_free(&d);
	kl_module_free(m);
}

/* ---- robustness ---- */

static uint64_t
rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* A word of f's tables, picked at random, set to a random nasty value. */
static void
corrupt(kl_func *f, uint64_t *s)
{
	static const uint32_t nasty[] = { 0, 1, 2, 3, 5, 0xffffffff,
					  0xfffffffe, 0x80000000, 7, 100 };
	uint32_t val = rnd(s) & 1 ? nasty[rnd(s) % 10] : (uint32_t)rnd(s);
	switch (rnd(s) % 6) {
	case 0: {
		uint32_t i = (uint32_t)(rnd(s) % f->ninsts);
		uint32_t *w = (uint32_t *)&f->insts[i];
		uint32_t k = (uint32_t)(rnd(s) % 4);
		w[k] = rnd(s) & 1 ? val : w[k] ^ (1u << (rnd(s) % 32));
		break;
	}
	case 1: {
		uint32_t i = (uint32_t)(rnd(s) % f->ninsts);
		((uint32_t *)&f->nodes[i])[rnd(s) % 4] = val;
		break;
	}
	case 2: {
		uint32_t v = (uint32_t)(rnd(s) % f->nvalues);
		((uint32_t *)&f->values[v])[rnd(s) % 2] = val;
		break;
	}
	case 3: {
		uint32_t b = (uint32_t)(rnd(s) % f->nblocks);
		((uint32_t *)&f->blocks[b])[rnd(s) % 6] = val;
		break;
	}
	case 4:
		if (f->pool.len > 1)
			f->pool.data[1 + rnd(s) % (f->pool.len - 1)] = val;
		break;
	default:
		if (rnd(s) & 1)
			f->first_block = val % 8;
		else
			f->last_block = val;
		break;
	}
}

/*
 * A small change of meaning, keeping most of the structure: another value
 * in an operand, another type, opcode, immediate, code or list word, a
 * value made an alias. Such IR is nearly valid, which is where the fast
 * path's answer matters most.
 */
static void
corrupt_softly(kl_func *f, uint64_t *s)
{
	kl_inst_data *d = &f->insts[rnd(s) % f->ninsts];
	uint32_t v = (uint32_t)(rnd(s) % f->nvalues);
	switch (rnd(s) % 8) {
	case 0:
		d->w[rnd(s) % 3] = (uint32_t)(rnd(s) % (f->nvalues + 1));
		break;
	case 1:
		f->values[v].type = (uint32_t)(rnd(s) % 7);
		break;
	case 2: {
		uint32_t op = (uint32_t)(rnd(s) % KL_OP_COUNT);
		if (d->op < KL_OP_COUNT &&
		    kl_op_table[op].format == kl_op_table[d->op].format)
			d->op = (uint16_t)op;
		break;
	}
	case 3:
		d->w[1 + rnd(s) % 2] = (uint32_t)(rnd(s) % 40) - 8;
		break;
	case 4:
		d->aux = (uint8_t)(rnd(s) % 40);
		break;
	case 5:
		if (f->pool.len > 1)
			f->pool.data[1 + rnd(s) % (f->pool.len - 1)] =
				(uint32_t)(rnd(s) % (f->nvalues + 1));
		break;
	case 6:
		f->values[v].kind = VK_ALIAS;
		f->values[v].def = (uint32_t)(rnd(s) % (f->nvalues + 1));
		break;
	default:
		f->values[v].def = (uint32_t)(rnd(s) % (f->ninsts + 2));
		break;
	}
}

static const char fuzz_src[] =
	"declare %g(i32, ...) -> i32\n"
	"data %c = { i64 1 }\n"
	"\n"
	"function %f(i32, i64) -> i32 {\n"
	"    sig0 = (i32) -> i32\n"
	"\n"
	"block0(v0: i32, v1: i64):\n"
	"    v2 = alloca 16, align 8\n"
	"    v3 = iadd_imm v2, 4\n"
	"    store v0, v3\n"
	"    v4 = load.i32 v2+8\n"
	"    v5 = call %g(v4, v1)\n"
	"    v6 = symbol_addr %g\n"
	"    v7 = call_indirect sig0, v6(v5)\n"
	"    v8 = select v7, v0, v4\n"
	"    brif v8, block1(v8), block2(v0, v1)\n"
	"\n"
	"block1(v9: i32):\n"
	"    v10 -> v9\n"
	"    v11 = icmp_imm slt v10, 3\n"
	"    br_table v11, block2(v9, v1), [block3, block2(v10, v1)]\n"
	"\n"
	"block2(v12: i32, v13: i64):\n"
	"    v14 = symbol_addr %c\n"
	"    v15 = uextend.i64 v12\n"
	"    v16 = iadd v15, v13\n"
	"    istore8 v16, v14\n"
	"    jump block3\n"
	"\n"
	"block3:\n"
	"    v17 = f64const 0x1p0\n"
	"    v18 = fcvt_to_sint.i32 v17\n"
	"    return v18\n"
	"}\n";

/* Same errors, in the same order? */
static bool
same_diags(const kl_diags *a, const kl_diags *b)
{
	if (a->len != b->len)
		return false;
	for (uint32_t k = 0; k < a->len; k++)
		if (strcmp(a->items[k].message, b->items[k].message) != 0 ||
		    a->items[k].line != b->items[k].line ||
		    a->items[k].loc.kind != b->items[k].loc.kind ||
		    a->items[k].loc.id != b->items[k].loc.id)
			return false;
	return true;
}

/*
 * Corrupted functions, verified with fresh memory and with one scratch
 * shared by every round (so stale contents from the round before would
 * show), give the same errors; rendering them never fails; the fast path
 * clears exactly those the careful phases find nothing in.
 */
static void
test_fuzz(void)
{
	uint64_t seed = 0x9e3779b97f4a7c15u;
	kl_verify_scratch *scratch = kl_verify_scratch_new();
	kl_verify_ctx shared = { .scratch = scratch };
	kl_module *base = parse(fuzz_src);
	expect_ok(func_named(base, "f"));
	kl_module_free(base);
	for (int round = 0; round < 3000; round++) {
		kl_module *m = parse(fuzz_src);
		kl_func *f = func_named(m, "f");
		int n = 1 + (int)(rnd(&seed) % 4);
		bool soft = round & 1;
		for (int k = 0; k < n; k++) {
			if (soft)
				corrupt_softly(f, &seed);
			else
				corrupt(f, &seed);
		}
		kl_diags d = { 0 }, d2 = { 0 };
		kl_status st = kl_verify_func(f, NULL, &d);
		CHECK((st == KL_OK) == (kl_diags_errors(&d) == 0));
		CHECK(fast_says_ok(f) == careful_says_ok(f));
		CHECK(kl_verify_func(f, &shared, &d2) == st);
		CHECK(same_diags(&d, &d2));
		kl_diags_free(&d2);
		for (uint32_t k = 0; k < d.len; k++) {
			CHECK(d.items[k].message && d.items[k].message[0]);
			CHECK(d.items[k].func.id == f->sym);
		}
		kl_buf out = { 0 };
		if (d.len)
			CHECK(kl_verify_render(f, &d, "fuzz.kl", round & 1,
					       &out, &out) == d.len);
		kl_buf_free(&out);
		kl_diags_free(&d);
		kl_module_free(m);
	}
	kl_verify_scratch_free(scratch);
}

/*
 * Random control flow (irreducible loops, unreachable blocks, br_table
 * edges) with random uses: the fast path's dominator tree (Lengauer-Tarjan,
 * src/verify/fastdom.c) and the careful phases' (src/analysis/) must
 * agree on every use. Block k > 0 defines v(k+1) from two operands: the
 * entry's v0 or v1 (always available where reachable) or any block's.
 */
static void
random_cfg(kl_buf *b, uint64_t *s)
{
	uint32_t n = 2 + (uint32_t)(rnd(s) % 11);
	kl_buf_puts(b, "function %f(i32) -> i32 {\n"
		       "block0(v0: i32):\n    v1 = iconst.i32 1\n");
	for (uint32_t k = 0; k < n; k++) {
		if (k > 0) {
			kl_buf_printf(b, "\nblock%u:\n    v%u = iadd.i32", k,
				      k + 1);
			for (int a = 0; a < 2; a++) {
				uint32_t v = rnd(s) % 2 ? (uint32_t)(rnd(s) % 2)
							: 2 + (uint32_t)(rnd(s) % (n - 1));
				kl_buf_printf(b, "%s v%u", a ? "," : "", v);
			}
			kl_buf_putc(b, '\n');
		}
		uint32_t t1 = 1 + (uint32_t)(rnd(s) % (n - 1));
		uint32_t t2 = 1 + (uint32_t)(rnd(s) % (n - 1));
		uint32_t t3 = 1 + (uint32_t)(rnd(s) % (n - 1));
		switch (rnd(s) % 5) {
		case 0:
			kl_buf_printf(b, "    return v%u\n", k ? k + 1 : 1);
			break;
		case 1:
			kl_buf_printf(b, "    jump block%u\n", t1);
			break;
		case 2:
			kl_buf_printf(b, "    br_table v0, block%u, [block%u, "
				      "block%u]\n", t1, t2, t3);
			break;
		default:
			kl_buf_printf(b, "    brif v0, block%u, block%u\n", t1,
				      t2);
			break;
		}
	}
	kl_buf_puts(b, "}\n");
}

static void
test_fast_dominance(void)
{
	uint64_t seed = 7;
	int valid = 0, invalid = 0;
	for (int round = 0; round < 2000; round++) {
		kl_buf b = { 0 };
		random_cfg(&b, &seed);
		kl_module *m = parse(b.data);
		kl_func *f = func_named(m, "f");
		bool ok = careful_says_ok(f);
		if (fast_says_ok(f) != ok) {
			fprintf(stderr, "fast path says %s, careful %s:\n%s",
				ok ? "no" : "yes", ok ? "yes" : "no", b.data);
			unit_current_failed = 1;
		}
		ok ? valid++ : invalid++;
		kl_module_free(m);
		kl_buf_free(&b);
	}
	CHECK(valid > 200 && invalid > 200);
}

/* Functions %f(i32) -> i32 of one block, each body (which defines v2)
 * after the declaration decl: only the last is fine, on the fast path
 * and the careful one alike. */
static void
check_bodies(const char *decl, const char *const *bodies, int n)
{
	for (int k = 0; k < n; k++) {
		kl_buf b = { 0 };
		kl_buf_printf(&b, "%s\nfunction %%f(i32) -> i32 {\n"
			      "block0(v0: i32):\n%s    return v2\n}\n", decl,
			      bodies[k]);
		kl_module *m = parse(b.data);
		kl_func *f = func_named(m, "f");
		CHECK(careful_says_ok(f) == (k == n - 1));
		CHECK(fast_says_ok(f) == (k == n - 1)); /* both ways */
		kl_module_free(m);
		kl_buf_free(&b);
	}
}

/* An instruction using its own result fails on the fast path too: results
 * are defined (get their records) after the operands are checked. */
static void
test_fast_own_result(void)
{
	static const char *const bodies[] = {
		"    v1 = iadd v0, v0\n    v2 = imul.i32 v2, v1\n",
		"    v1 = iadd v0, v0\n    v2 = call %g(v2)\n",
		"    v1 = iadd v0, v0\n    v2 = call %g(v1)\n", /* fine */
	};
	check_bodies("declare %g(i32) -> i32", bodies, 3);
}

/* A variadic callee's extra arguments, past its parameters, must be
 * defined and available too: the fast path checks them in a loop of
 * their own. */
static void
test_fast_variadic_extras(void)
{
	static const char *const bodies[] = {
		"    v1 = iadd v0, v0\n    v2 = call %g(v0, v1, v2)\n",
		"    v2 = call %g(v0, v0, v1)\n    v1 = iadd v0, v0\n",
		"    v1 = iadd v0, v0\n    v2 = call %g(v0, v1, v0)\n", /* fine */
	};
	check_bodies("declare %g(i32, ...) -> i32", bodies, 3);
}

/*
 * A module's diagnostics rendered at once, with two of them in one
 * function and the last symbol without any: every one is shown, each
 * function's own, as rendering each function alone shows them.
 */
static void
test_render_module_counts(void)
{
	kl_module *m = parse("function %two(i32) -> i32 {\n"
			     "block0(v0: i64):\n"
			     "    return v0\n"
			     "}\n"
			     "function %one() -> i32 {\n"
			     "block0:\n"
			     "    v0 = iconst.i64 1\n"
			     "    return v0\n"
			     "}\n"
			     "function %ok() {\n"
			     "block0:\n"
			     "    return\n"
			     "}\n");
	kl_diags d = { 0 };
	CHECK(kl_verify_module(m, &d) == KL_ERR_VERIFY);
	CHECK_EQ_INT(d.len, 3);
	kl_buf all = { 0 }, alone = { 0 };
	CHECK_EQ_INT(kl_verify_render_module(m, &d, "t.kl", false, &all, &all),
		     3);
	const char *names[] = { "two", "one" };
	for (int k = 0; k < 2; k++)
		kl_verify_render(func_named(m, names[k]), &d, "t.kl", false,
				 &alone, &alone);
	CHECK_EQ_STR(all.data, alone.data);
	CHECK(strstr(all.data, "; 2 verifier errors in %two\n") != NULL);
	CHECK(strstr(all.data, "; 1 verifier error in %one\n") != NULL);
	kl_buf_free(&all);
	kl_buf_free(&alone);
	kl_diags_free(&d);
	kl_module_free(m);
}

/*
 * A module's diagnostics rendered at once: each broken function's header
 * lines, then its listing, in symbol order; a function that verifies is
 * not shown. The same as rendering each function alone.
 */
static void
test_render_module(void)
{
	kl_module *m = parse("function %a() -> i32 {\n"
			     "block0:\n"
			     "    v0 = iconst.i64 1\n"
			     "    return v0\n"
			     "}\n"
			     "function %ok() {\n"
			     "block0:\n"
			     "    return\n"
			     "}\n"
			     "function %b(i32) {\n"
			     "block0(v0: i64):\n"
			     "    return\n"
			     "}\n");
	kl_diags d = { 0 };
	CHECK(kl_verify_module(m, &d) == KL_ERR_VERIFY);
	kl_buf all = { 0 }, heads = { 0 }, lists = { 0 }, alone = { 0 };
	CHECK_EQ_INT(kl_verify_render_module(m, &d, "t.kl", false, &all, &all),
		     2);
	const char *names[] = { "a", "b" };
	for (int k = 0; k < 2; k++)
		kl_verify_render(func_named(m, names[k]), &d, "t.kl", false,
				 &alone, &alone);
	CHECK_EQ_STR(all.data, alone.data);
	CHECK(strstr(all.data, "%ok") == NULL);
	CHECK(strstr(all.data, "in %a") < strstr(all.data, "t.kl:11"));
	/* two buffers: the headers of both functions, then both listings */
	CHECK_EQ_INT(kl_verify_render_module(m, &d, "t.kl", false, &heads,
					     &lists),
		     2);
	CHECK_EQ_STR(heads.data,
		     "t.kl:4: error: inst1: arg 0 (v0) has type i64, must "
		     "match function signature of i32\n"
		     "t.kl:11: error: block0: parameter 0 (v0) has type "
		     "i64, must match function signature of i32\n");
	CHECK(strstr(lists.data, "; 1 verifier error in %a\n") != NULL);
	CHECK(strstr(lists.data, "; 1 verifier error in %b\n") != NULL);
	kl_buf_free(&all);
	kl_buf_free(&heads);
	kl_buf_free(&lists);
	kl_buf_free(&alone);
	kl_diags_free(&d);
	kl_module_free(m);
}

/*
 * Text mutations that still parse (another value, block or type in one
 * place) make IR with type, SSA and structure errors. Whatever the
 * errors, the listing must parse again (with the module's declarations):
 * everything the verifier adds is a comment.
 */
static void
test_listing_reparses(void)
{
	/* Three characters each, to replace "i32" in place. */
	static const char *const types[] = { "i8 ", "i16", "i32", "i64", "f32",
					     "f64" };
	static const char decls[] =
		"declare %g(i32, ...) -> i32\n"
		"data %c = { i64 1 }\n";
	uint64_t seed = 42;
	size_t len = strlen(fuzz_src);
	char *text = malloc(len + 64);
	int parsed = 0, failing = 0;
	for (int round = 0; round < 600; round++) {
		memcpy(text, fuzz_src, len + 1);
		/* Change a number after 'v' or "block", or a type. */
		for (int k = 0; k < 2; k++) {
			size_t at = (size_t)(rnd(&seed) % len);
			while (at < len &&
			       !(text[at] >= '0' && text[at] <= '9'))
				at++;
			if (at < len && at > 0 && (text[at - 1] == 'v' ||
						   text[at - 1] == 'k'))
				text[at] = (char)('0' + rnd(&seed) % 10);
			const char *t = strstr(text + rnd(&seed) % len, "i32");
			if (t && rnd(&seed) % 2)
				memcpy((char *)t, types[rnd(&seed) % 6], 3);
		}
		kl_module *m = NULL;
		kl_diags d = { 0 };
		kl_parse_options opts = { .allow_redefinition = false };
		if (kl_parse_module(text, strlen(text), &opts, &m, &d) !=
		    KL_OK) {
			kl_diags_free(&d);
			continue;
		}
		parsed++;
		kl_func *f = func_named(m, "f");

		if (kl_verify_func(f, NULL, &d) != KL_OK) {
			failing++;
			kl_buf out = { 0 };
			kl_buf_puts(&out, decls);
			kl_verify_render(f, &d, "m.kl", round & 1, &out, &out);
			/* The headers are not comments: drop them. */
			kl_buf lst = { 0 };
			kl_buf_puts(&lst, decls);
			kl_verify_render(f, &d, "m.kl", round & 1, &out, &lst);
			kl_module *again = NULL;
			kl_diags d2 = { 0 };
			if (kl_parse_module(lst.data, lst.len, NULL, &again,
					    &d2) != KL_OK) {
				fprintf(stderr, "listing does not parse:\n%s",
					lst.data);
				CHECK(!"listing parses");
			}
			kl_module_free(again);
			kl_diags_free(&d2);
			kl_buf_free(&out);
			kl_buf_free(&lst);
		}
		kl_diags_free(&d);
		kl_module_free(m);
	}
	/* The mutations must exercise the verifier. */
	CHECK(parsed > 50);
	CHECK(failing > 20);
	free(text);
}

/* ---- gaps found by mutation testing ---- */

/* Two equal sequence numbers in a row do not increase either: the fast
 * path must not clear them (fast.c: check_block). */
static void
test_gap_seq_equal(void)
{
	kl_module *m = parse("function %g(i32) -> i32 {\n"
			     "block0(v0: i32):\n"
			     "    v1 = iadd_imm v0, 1\n"
			     "    return v1\n"
			     "}\n");
	kl_func *f = func_named(m, "g");
	f->nodes[1].seq = f->nodes[0].seq;
	expect_some(f, KL_ENT_INST, "does not increase");
	kl_module_free(m);
}

/* The first invalid value kind, VK_REMOVED + 1, is invalid. */
static void
test_gap_kind_after_removed(void)
{
	kl_module *m = parse("function %p(i32) -> i32 {\n"
			     "block0(v0: i32):\n"
			     "    v3 = iadd v0, v0\n"
			     "    return v3\n"
			     "}\n");
	kl_func *f = func_named(m, "p");
	CHECK_EQ_INT(f->values[2].kind, VK_UNUSED); /* a hole */
	f->values[2].kind = VK_REMOVED + 1;
	expect_one(f, KL_ENT_VALUE, "v2 has invalid kind 5");
	kl_module_free(m);
}

/* An alloca's result of another type than the pointer type, unused. */
static void
test_gap_alloca_result_type(void)
{
	kl_module *m = parse("function %p() {\n"
			     "block0:\n"
			     "    v1 = alloca 8\n"
			     "    return\n"
			     "}\n");
	kl_func *f = func_named(m, "p");
	expect_ok(f);
	f->values[1].type = KL_TYPE_I32;
	expect_one(f, KL_ENT_INST, "result (v1) has type i32, must be i64 "
				   "(the pointer type)");
	kl_module_free(m);
}

/* A value claiming to be a parameter of a placed block that does not list
 * it, with a block number above every instruction number. */
static void
test_gap_param_claim_high_block(void)
{
	kl_module *m = parse("function %p(i32) -> i32 {\n"
			     "block0(v0: i32):\n"
			     "    jump block9(v0)\n"
			     "\n"
			     "block9(v1: i32):\n"
			     "    return v1\n"
			     "}\n");
	kl_func *f = func_named(m, "p");
	func_reserve_values(f, 4);
	CHECK(f->nblocks > 9 && f->ninsts < 9);
	f->values[3].kind = VK_PARAM;
	f->values[3].def = 9;
	f->values[3].type = KL_TYPE_I32;
	expect_one(f, KL_ENT_VALUE, "v3 says it is a parameter of block9, "
				    "which does not list it");
	kl_module_free(m);
}

/* An alias nothing uses, standing for the result of a removed
 * instruction, is not checked (the printer leaves it out). */
static void
test_gap_unused_alias_of_removed(void)
{
	kl_module *m = parse("function %a(i32) -> i32 {\n"
			     "block0(v0: i32):\n"
			     "    v1 = iadd_imm v0, 1\n"
			     "    v5 -> v1\n"
			     "    return v0\n"
			     "}\n");
	kl_func *f = func_named(m, "a");
	kl_inst_remove(f, (kl_inst){ 0 });
	kl_diags d = { 0 };
	CHECK(kl_verify_func(f, NULL, &d) == KL_OK);
	CHECK_EQ_INT(d.len, 0);
	if (d.len)
		dump(&d);
	kl_diags_free(&d);
	kl_module_free(m);
}

/* An alias of itself is a cycle. */
static void
test_gap_alias_self_cycle(void)
{
	kl_module *m = parse("function %a(i32) -> i32 {\n"
			     "block0(v0: i32):\n"
			     "    v1 = iadd_imm v0, 1\n"
			     "    v5 -> v1\n"
			     "    return v5\n"
			     "}\n");
	kl_func *f = func_named(m, "a");
	f->values[5].def = 5;
	expect_one(f, KL_ENT_VALUE, "the alias chain of v5 has a cycle");
	kl_module_free(m);
}

/* Two instructions' errors on one line (the header: neither is in the
 * layout): each shows its own text. */
static void
test_gap_two_insts_on_header(void)
{
	kl_module *m = parse("function %a(i32) -> i32 {\n"
			     "block0(v0: i32):\n"
			     "    v1 = iadd_imm v0, 1\n"
			     "    v2 = iadd_imm v0, 2\n"
			     "    return v0\n"
			     "}\n");
	kl_func *f = func_named(m, "a");
	kl_inst_remove(f, (kl_inst){ 0 });
	kl_inst_remove(f, (kl_inst){ 1 });
	f->nodes[0].block = 0;
	f->nodes[1].block = 0;
	kl_diags d = { 0 };
	CHECK_EQ_INT(verify(f, NULL, &d), 2);
	kl_buf out = { 0 };
	kl_verify_render(f, &d, "t.kl", false, &out, &out);
	bool both =
		strstr(out.data, "; error: inst0 (v1 = iadd_imm v0, 1): ") &&
		strstr(out.data, "; error: inst1 (v2 = iadd_imm v0, 2): ");
	CHECK(both);
	if (!both)
		fprintf(stderr, "%s", out.data);
	kl_buf_free(&out);
	kl_diags_free(&d);
	kl_module_free(m);
}

/* An error on line 1 says so in its header line. */
static void
test_gap_line_one(void)
{
	kl_module *m = parse("function %e() {\n"
			     "}\n");
	kl_func *f = func_named(m, "e");
	kl_diags d = { 0 };
	CHECK_EQ_INT(verify(f, NULL, &d), 1);
	kl_buf out = { 0 };
	kl_verify_render(f, &d, "t.kl", false, &out, &out);
	bool ok = strstr(out.data, "t.kl:1: error: %e: the function has no "
				   "entry block\n") != NULL;
	CHECK(ok);
	if (!ok)
		fprintf(stderr, "%s", out.data);
	kl_buf_free(&out);
	kl_diags_free(&d);
	kl_module_free(m);
}

/* An alias a use reaches, standing for the result of a removed
 * instruction: reported at the alias (the use alone says nothing). */
static void
test_gap_used_alias_of_removed(void)
{
	kl_module *m = parse("function %a(i32) -> i32 {\n"
			     "block0(v0: i32):\n"
			     "    v1 = iadd_imm v0, 1\n"
			     "    v5 -> v1\n"
			     "    return v5\n"
			     "}\n");
	kl_func *f = func_named(m, "a");
	kl_inst_remove(f, (kl_inst){ 0 });
	expect_one(f, KL_ENT_VALUE, "alias v5 -> v1: v1 is not defined");
	kl_module_free(m);
}

/* The first signature number past the table does not exist either. */
static void
test_gap_callee_sig_at_end(void)
{
	kl_module *m = parse(simple);
	kl_func *f = func_named(m, "f");
	m->syms[kl_module_lookup(m, "g", 1).id].sig = m->nsigs;
	expect_some(f, KL_ENT_INST, "the callee's signature does not exist");
	kl_module_free(m);
}

/* A use of the result of the last-numbered instruction, removed. */
static void
test_gap_removed_last_definition(void)
{
	kl_module *m = parse("function %r(i32) -> i32 {\n"
			     "block0(v0: i32):\n"
			     "    return v0\n"
			     "}\n");
	kl_func *f = func_named(m, "r");
	kl_builder b;
	kl_builder_init(&b, f);
	kl_builder_before(&b, (kl_inst){ 0 });
	kl_value v =
		kl_build_binary_imm(&b, KL_OP_IADD_IMM, (kl_value){ 0 }, 1);
	CHECK(kl_builder_status(&b) == KL_OK);
	CHECK(kl_inst_set_arg(f, (kl_inst){ 0 }, 0, v) == KL_OK);
	CHECK_EQ_INT(f->ninsts, 2);
	kl_inst_remove(f, (kl_inst){ 1 });
	char want[80];
	snprintf(want, sizeof want, "use of v%u, whose definition inst1 is "
		 "not in the layout", v.id);
	expect_one(f, KL_ENT_INST, want);
	kl_module_free(m);
}

/* An out-of-range value used twice by one instruction: one error. */
static void
test_gap_out_of_range_twice(void)
{
	kl_module *m = parse("function %o(i32) -> i32 {\n"
			     "block0(v0: i32):\n"
			     "    v1 = iadd v0, v0\n"
			     "    return v1\n"
			     "}\n");
	kl_func *f = func_named(m, "o");
	f->insts[0].w[1] = 900;
	f->insts[0].w[2] = 900;
	expect_one(f, KL_ENT_INST, "use of v900, which is out of range");
	kl_module_free(m);
}

/* fdemote's result must be f32. */
static void
test_gap_fdemote_result(void)
{
	kl_module *m = parse("function %d(f64) {\n"
			     "block0(v0: f64):\n"
			     "    v1 = fdemote v0\n"
			     "    return\n"
			     "}\n");
	kl_func *f = func_named(m, "d");
	expect_ok(f);
	f->values[1].type = KL_TYPE_F64;
	expect_one(f, KL_ENT_INST, "result (v1) has type f64, must be f32");
	kl_module_free(m);
}

/* An instruction in no list that claims the last block, which is not in
 * the layout. */
static void
test_gap_unlisted_in_last_block(void)
{
	kl_module *m = parse("function %u(i32) -> i32 {\n"
			     "block0(v0: i32):\n"
			     "    v1 = iadd_imm v0, 1\n"
			     "    return v0\n"
			     "}\n");
	kl_func *f = func_named(m, "u");
	kl_block nb = kl_func_new_block(f);
	CHECK_EQ_INT(nb.id, f->nblocks - 1);
	kl_inst_remove(f, (kl_inst){ 0 });
	f->nodes[0].block = nb.id;
	char want[80];
	snprintf(want, sizeof want, "inst0 is in block%u, which is not in the "
		 "layout", nb.id);
	expect_one(f, KL_ENT_INST, want);
	kl_module_free(m);
}

/* An alias error at a built instruction (no source line) of a parsed
 * function is on the function's first line. */
static void
test_gap_alias_error_at_built_user(void)
{
	kl_module *m = parse("\n"
			     "function %a(i32) -> i32 {\n"
			     "block0(v0: i32):\n"
			     "    v1 = iadd_imm v0, 1\n"
			     "    v5 -> v1\n"
			     "    return v0\n"
			     "}\n");
	kl_func *f = func_named(m, "a");
	kl_builder b;
	kl_builder_init(&b, f);
	kl_builder_before(&b, (kl_inst){ 1 });
	kl_build_binary_imm(&b, KL_OP_IADD_IMM, (kl_value){ 5 }, 1);
	CHECK(kl_builder_status(&b) == KL_OK);
	f->values[5].type = KL_TYPE_I64;
	kl_diags d = { 0 };
	CHECK_EQ_INT(verify(f, NULL, &d), 1);
	CHECK_ERROR(&d, KL_ENT_VALUE, "alias v5 has type i64");
	CHECK_EQ_INT(d.items[0].line, 2);
	kl_diags_free(&d);
	kl_module_free(m);
}

/* A cached successor list one edge longer than the function's (the
 * function's is a prefix of it): the message starts near the edge only
 * the cached list has. */
static void
test_gap_cached_cfg_longer(void)
{
	kl_module *m = parse("function %f(i32) -> i32 {\n"
		  "block0(v0: i32):\n"
		  "    br_table v0, block9, [block1, block2, block3, block4, "
		  "block5, block6, block7, block8]\n"
		  "block1:\n    return v0\nblock2:\n    return v0\n"
		  "block3:\n    return v0\nblock4:\n    return v0\n"
		  "block5:\n    return v0\nblock6:\n    return v0\n"
		  "block7:\n    return v0\nblock8:\n    return v0\n"
		  "block9:\n    return v0\n"
		  "}\n");
	kl_func *f = func_named(m, "f");
	kl_cfg *cfg = kl_cfg_new();
	kl_cfg_compute(cfg, f);
	kl_inst br = kl_block_last_inst(f, kl_func_first_block(f));
	uint32_t h = f->insts[br.id].w[1];
	CHECK_EQ_INT(f->pool.data[h - 1] & ((1u << 27) - 1), 9);
	f->pool.data[h - 1]--; /* drop the last entry, block8 */
	kl_verify_ctx only_cfg = { .cfg = cfg };
	kl_diags d = { 0 };
	CHECK(verify(f, &only_cfg, &d) == 1);
	CHECK_ERROR(&d, KL_ENT_BLOCK, "the cached CFG is stale at block0: it "
		    "has successors [... block6, block7, block8], predecessors "
		    "[]; the function has successors [block9, block1, block2, "
		    "block3, block4, block5, ... 8 in all], predecessors []");
	kl_diags_free(&d);
	kl_cfg_free(cfg);
	kl_module_free(m);
}

/* An alias nothing uses is not held to its type (the printer leaves it
 * out). */
static void
test_gap_unused_alias_type(void)
{
	kl_module *m = parse("function %a(i32) -> i32 {\n"
			     "block0(v0: i32):\n"
			     "    v1 = iadd_imm v0, 1\n"
			     "    v5 -> v1\n"
			     "    return v1\n"
			     "}\n");
	kl_func *f = func_named(m, "a");
	f->values[5].type = KL_TYPE_I64;
	kl_diags d = { 0 };
	CHECK(kl_verify_func(f, NULL, &d) == KL_OK);
	CHECK_EQ_INT(d.len, 0);
	if (d.len)
		dump(&d);
	kl_diags_free(&d);
	kl_module_free(m);
}

/* An alias used only by an instruction that is not placed (listed in a
 * block its node does not name) has no user: its error is on the
 * function's line, about no instruction. */
static void
test_gap_alias_user_not_placed(void)
{
	kl_module *m = parse("function %a(i32) -> i32 {\n"
			     "block0(v0: i32):\n"
			     "    v1 = iadd_imm v0, 1\n"
			     "    v5 -> v1\n"
			     "    v6 = iadd_imm v5, 1\n"
			     "    return v0\n"
			     "}\n");
	kl_func *f = func_named(m, "a");
	func_reserve_values(f, 8);
	f->values[5].def = 7; /* a hole */
	f->nodes[1].block = 5;
	kl_diags d = { 0 };
	verify(f, NULL, &d);
	bool found = false;
	for (uint32_t k = 0; k < d.len; k++)
		if (strstr(d.items[k].message, "alias v5 -> v7")) {
			found = true;
			CHECK_EQ_INT(d.items[k].inst.id, KL_NONE);
			CHECK_EQ_INT(d.items[k].line, 1);
		}
	CHECK(found);
	if (!found)
		dump(&d);
	kl_diags_free(&d);
	kl_module_free(m);
}

/* A value's error, about an instruction the listing shows, is shown under
 * that instruction (a value has no line of its own). */
static void
test_gap_value_error_under_inst(void)
{
	kl_module *m = parse("function %v(i32) -> i32 {\n"
			     "block0(v0: i32):\n"
			     "    v3 = iadd_imm v0, 1\n"
			     "    return v0\n"
			     "}\n");
	kl_func *f = func_named(m, "v");
	CHECK_EQ_INT(f->values[2].kind, VK_UNUSED);
	f->values[2].kind = VK_RESULT;
	f->values[2].def = 0;
	f->values[2].type = KL_TYPE_I32;
	kl_diags d = { 0 };
	CHECK_EQ_INT(verify(f, NULL, &d), 1);
	kl_buf out = { 0 };
	kl_verify_render(f, &d, "t.kl", false, &out, &out);
	bool under = strstr(out.data, "    v3 = iadd_imm v0, 1\n"
				      ";   ^~~~~~~~~~~~~~~~~~~\n"
				      "; error: v2: v2 says it is a result of "
				      "inst0") != NULL;
	CHECK(under);
	if (!under)
		fprintf(stderr, "%s", out.data);
	kl_buf_free(&out);
	kl_diags_free(&d);
	kl_module_free(m);
}

int
main(void)
{
	UNIT_RUN(test_design_example);
	UNIT_RUN(test_render_inst_numbers);
	UNIT_RUN(test_valid_simple);
	UNIT_RUN(test_invalid_opcode);
	UNIT_RUN(test_result_def);
	UNIT_RUN(test_result_count);
	UNIT_RUN(test_defined_twice);
	UNIT_RUN(test_defined_twice_alone);
	UNIT_RUN(test_hole_and_range);
	UNIT_RUN(test_removed_definition);
	UNIT_RUN(test_missing_entities);
	UNIT_RUN(test_branch_targets);
	UNIT_RUN(test_codes);
	UNIT_RUN(test_bad_lists);
	UNIT_RUN(test_layout_cycles);
	UNIT_RUN(test_inst_in_two_blocks);
	UNIT_RUN(test_orphan_inst);
	UNIT_RUN(test_block_flags);
	UNIT_RUN(test_params);
	UNIT_RUN(test_aliases);
	UNIT_RUN(test_unused_alias_of_hole);
	UNIT_RUN(test_types_built);
	UNIT_RUN(test_call_results);
	UNIT_RUN(test_imm_bounds);
	UNIT_RUN(test_result_types_alone);
	UNIT_RUN(test_result_wrong_class_arg);
	UNIT_RUN(test_param_claim_location);
	UNIT_RUN(test_select_operand_count);
	UNIT_RUN(test_cached_analyses);
	UNIT_RUN(test_cached_analyses_messages);
	UNIT_RUN(test_stats);
	UNIT_RUN(test_fuzz);
	UNIT_RUN(test_fast_dominance);
	UNIT_RUN(test_fast_own_result);
	UNIT_RUN(test_fast_variadic_extras);
	UNIT_RUN(test_listing_reparses);
	UNIT_RUN(test_render_module);
	UNIT_RUN(test_render_module_counts);
	UNIT_RUN(test_gap_seq_equal);
	UNIT_RUN(test_gap_kind_after_removed);
	UNIT_RUN(test_gap_alloca_result_type);
	UNIT_RUN(test_gap_param_claim_high_block);
	UNIT_RUN(test_gap_unused_alias_of_removed);
	UNIT_RUN(test_gap_alias_self_cycle);
	UNIT_RUN(test_gap_two_insts_on_header);
	UNIT_RUN(test_gap_line_one);
	UNIT_RUN(test_gap_used_alias_of_removed);
	UNIT_RUN(test_gap_callee_sig_at_end);
	UNIT_RUN(test_gap_removed_last_definition);
	UNIT_RUN(test_gap_out_of_range_twice);
	UNIT_RUN(test_gap_fdemote_result);
	UNIT_RUN(test_gap_unlisted_in_last_block);
	UNIT_RUN(test_gap_alias_error_at_built_user);
	UNIT_RUN(test_gap_cached_cfg_longer);
	UNIT_RUN(test_gap_unused_alias_type);
	UNIT_RUN(test_gap_alias_user_not_placed);
	UNIT_RUN(test_gap_value_error_under_inst);
	return unit_report("verify");
}
