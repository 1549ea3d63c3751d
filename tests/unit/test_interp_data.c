/*
 * test_interp_data.c -- an interpreter follows the module's data and
 * symbols.
 *
 * A program runs, then the module grows under the interpreter: items
 * appended to a data object, a data object, a function and a declaration
 * added. After kl_interp_reset the interpreter must be what a new one
 * would be (the same object ids, the same contents); before it, a call
 * must not run on memory made from the old data (it used to, and a reset
 * made the data again at its old size, so the program silently read the
 * old bytes or trapped on the new ones). Also: a reset after no such
 * change does not make memory from the whole module again, and a call
 * that found memory could not be made tries again from scratch.
 */
#include <stdlib.h>

#include "keel.h"
#include "../../src/interp/interp.h"
#include "parsed.h"
#include "unit.h"

static const char program[] =
	"data %tab = { i32 1, i32 2 }\n"
	"\n"
	"function %get(i64) -> i32 {\n"
	"block0(v0: i64):\n"
	"    v1 = symbol_addr %tab\n"
	"    v2 = imul_imm v0, 4\n"
	"    v3 = iadd v1, v2\n"
	"    v4 = load.i32 v3\n"
	"    return v4\n"
	"}\n"
	"\n"
	"function %set(i64, i32) {\n"
	"block0(v0: i64, v1: i32):\n"
	"    v2 = symbol_addr %tab\n"
	"    v3 = imul_imm v0, 4\n"
	"    v4 = iadd v2, v3\n"
	"    store v1, v4\n"
	"    return\n"
	"}\n";

/* The module of program (free it). */
static kl_module *
parse(void)
{
	return parse_text(program, sizeof program - 1);
}

/* Call name(args), which must return one result; that result. */
static uint64_t
run(kl_interp *it, const kl_module *m, const char *name,
    const uint64_t *args, uint32_t nargs)
{
	kl_run_result r;
	kl_status st = kl_interp_call(it, sym(m, name), args, nargs, &r);
	CHECK(st == KL_OK);
	CHECK_EQ_INT(r.status, KL_RUN_RETURNED);
	if (st != KL_OK || r.status != KL_RUN_RETURNED) {
		fprintf(stderr, "  %s: %s\n", name, r.message);
		return ~0ull;
	}
	return r.num_results ? r.results[0] : 0;
}

static uint64_t
get(kl_interp *it, const kl_module *m, uint64_t k)
{
	return run(it, m, "get", &k, 1);
}

static void
set(kl_interp *it, const kl_module *m, uint64_t k, uint64_t v)
{
	uint64_t a[2] = { k, v };
	run(it, m, "set", a, 2);
}

static void
append_i32(kl_module *m, const char *data, uint64_t v)
{
	kl_data_item item = { 0 };
	item.kind = KL_DATA_VALUE;
	item.type = KL_TYPE_I32;
	item.value = v;
	CHECK(kl_data_append(m, sym(m, data), &item) == KL_OK);
}

/* A call of name(args) that is refused because memory is out of date. */
static void
refused(kl_interp *it, const kl_module *m, const char *name,
	const uint64_t *args, uint32_t nargs, const char *says)
{
	kl_run_result r;
	CHECK(kl_interp_call(it, sym(m, name), args, nargs, &r) ==
	      KL_ERR_INVALID);
	CHECK_EQ_INT(r.status, KL_RUN_FAILED);
	CHECK(strstr(r.message, "kl_interp_reset") != NULL);
	if (!strstr(r.message, says)) {
		fprintf(stderr, "  message: %s\n", r.message);
		CHECK(strstr(r.message, says) != NULL);
	}
}

/* Items appended to %tab after the first call: a reset makes %tab
 * again with them, as a new interpreter would. */
static void
test_append_then_reset(void)
{
	kl_module *m = parse();
	kl_interp *it = kl_interp_new(m, NULL);
	CHECK_EQ_INT(get(it, m, 1), 2);
	set(it, m, 0, 50);
	CHECK_EQ_INT(get(it, m, 0), 50); /* memory persists */
	append_i32(m, "tab", 3);
	append_i32(m, "tab", 4);
	kl_interp_reset(it);
	CHECK_EQ_INT(get(it, m, 0), 1);
	CHECK_EQ_INT(get(it, m, 2), 3);
	CHECK_EQ_INT(get(it, m, 3), 4);
	set(it, m, 3, 40);
	CHECK_EQ_INT(get(it, m, 3), 40);
	/* and a reset with nothing changed since fills it again */
	kl_interp_reset(it);
	CHECK_EQ_INT(get(it, m, 3), 4);
	uint64_t four = 4;
	kl_run_result r;
	CHECK(kl_interp_call(it, sym(m, "get"), &four, 1, &r) == KL_OK);
	CHECK_EQ_INT(r.status, KL_RUN_TRAPPED); /* past the 16 bytes */
	kl_interp_free(it);
	kl_module_free(m);
}

/* Items appended without a reset: a call refuses, naming the object,
 * whichever function it is, until the reset. Memory made from the old
 * items would give the old answers. */
static void
test_append_without_reset(void)
{
	kl_module *m = parse();
	kl_interp *it = kl_interp_new(m, NULL);
	set(it, m, 1, 20);
	append_i32(m, "tab", 3);
	uint64_t two = 2, a[2] = { 0, 9 };
	refused(it, m, "get", &two, 1, "%tab");
	refused(it, m, "set", a, 2, "%tab");
	refused(it, m, "get", &two, 1, "8 bytes then, 12 now");
	kl_interp_reset(it);
	CHECK_EQ_INT(get(it, m, 1), 2);
	CHECK_EQ_INT(get(it, m, 2), 3);

	/* items of no bytes change no memory: nothing to refuse */
	set(it, m, 1, 21);
	kl_data_item z = { 0 };
	z.kind = KL_DATA_ZERO;
	CHECK(kl_data_append(m, sym(m, "tab"), &z) == KL_OK);
	CHECK_EQ_INT(get(it, m, 1), 21);
	kl_interp_free(it);
	kl_module_free(m);
}

/*
 * Add to m: data %late = { i64 7, i64 %tab+4 }, declare %malloc(i64) ->
 * i64, and functions %late_addr() -> i64 (symbol_addr %late), %late_at(i64)
 * -> i64 (the i64 at %late + the argument) and %mk() -> i64 (malloc(8)).
 */
static void
add_late(kl_module *m)
{
	kl_sym late;
	CHECK(kl_module_add_data(m, "late", 4, false, 8, &late) == KL_OK);
	kl_data_item item = { 0 };
	item.kind = KL_DATA_VALUE;
	item.type = KL_TYPE_I64;
	item.value = 7;
	CHECK(kl_data_append(m, late, &item) == KL_OK);
	item.kind = KL_DATA_SYMREF;
	item.sym = sym(m, "tab");
	item.value = 4;
	CHECK(kl_data_append(m, late, &item) == KL_OK);

	kl_type i64 = KL_TYPE_I64;
	kl_signature s_i64 = { &i64, &i64, 1, 1, false };
	kl_signature s_void = { NULL, &i64, 0, 1, false };
	kl_sym malloc_sym;
	CHECK(kl_module_declare(m, "malloc", 6, &s_i64, &malloc_sym) ==
	      KL_OK);
	kl_builder b;
	kl_func *f;

	CHECK(kl_module_add_func(m, "late_addr", 9, &s_void, &f) == KL_OK);
	kl_block e = kl_func_new_block(f);
	kl_func_append_block(f, e);
	kl_builder_init(&b, f);
	kl_builder_at_end(&b, e);
	kl_value p = kl_build_symbol_addr(&b, late);
	kl_build_return(&b, &p, 1);
	CHECK(kl_builder_status(&b) == KL_OK);
	CHECK(verifies(f));

	CHECK(kl_module_add_func(m, "late_at", 7, &s_i64, &f) == KL_OK);
	e = kl_func_new_block(f);
	kl_func_append_block(f, e);
	kl_value off = kl_block_append_param(f, e, KL_TYPE_I64);
	kl_builder_init(&b, f);
	kl_builder_at_end(&b, e);
	p = kl_build_symbol_addr(&b, late);
	kl_value q = kl_build_binary(&b, KL_OP_IADD, p, off);
	kl_value v = kl_build_load(&b, KL_OP_LOAD, KL_TYPE_I64, q, 0);
	kl_build_return(&b, &v, 1);
	CHECK(kl_builder_status(&b) == KL_OK);
	CHECK(verifies(f));

	CHECK(kl_module_add_func(m, "mk", 2, &s_void, &f) == KL_OK);
	e = kl_func_new_block(f);
	kl_func_append_block(f, e);
	kl_builder_init(&b, f);
	kl_builder_at_end(&b, e);
	kl_value eight = kl_build_iconst(&b, KL_TYPE_I64, 8);
	kl_inst c = kl_build_call(&b, malloc_sym, &eight, 1);
	kl_value h = kl_inst_result(f, c, 0);
	kl_build_return(&b, &h, 1);
	CHECK(kl_builder_status(&b) == KL_OK);
	CHECK(verifies(f));
}

/* The answers of the late functions: the address of %late, its two
 * i64s, and the first heap object's address. */
static void
late_answers(kl_interp *it, const kl_module *m, uint64_t out[4])
{
	uint64_t zero = 0, eight = 8;
	out[0] = run(it, m, "late_addr", NULL, 0);
	out[1] = run(it, m, "late_at", &zero, 1);
	out[2] = run(it, m, "late_at", &eight, 1);
	out[3] = run(it, m, "mk", NULL, 0);
}

/* A data object, a declaration and functions added after the first
 * call: refused until a reset, then run with the ids and contents a new
 * interpreter gives them. */
static void
test_new_symbols_then_reset(void)
{
	kl_module *m = parse();
	kl_interp *it = kl_interp_new(m, NULL);
	set(it, m, 0, 11);
	add_late(m);
	/* no reset: the old functions run on the memory they had ... */
	CHECK_EQ_INT(get(it, m, 0), 11);
	/* ... and the new symbols have no objects yet */
	uint64_t zero = 0;
	refused(it, m, "late_addr", NULL, 0, "after this interpreter's "
					      "memory was made");
	refused(it, m, "late_at", &zero, 1, "after this interpreter's "
					     "memory was made");
	kl_interp_reset(it);
	uint64_t got[4], want[4];
	late_answers(it, m, got);
	CHECK_EQ_INT(get(it, m, 0), 1);
	kl_interp *fresh = kl_interp_new(m, NULL);
	late_answers(fresh, m, want);
	for (int k = 0; k < 4; k++)
		CHECK_EQ_INT(got[k], want[k]);
	/* and what they are: %late is symbol 3, %tab symbol 0; the heap
	 * object comes after the module's 8 symbols */
	CHECK_EQ_INT(got[0], 4ull << 32);
	CHECK_EQ_INT(got[1], 7);
	CHECK_EQ_INT(got[2], (1ull << 32) + 4);
	CHECK_EQ_INT(got[3], 9ull << 32);
	kl_interp_free(fresh);
	kl_interp_free(it);
	kl_module_free(m);
}

/* Symbols added after kl_interp_new but before its first call need no
 * reset: memory is made at the first call, from the module as it is. */
static void
test_new_symbols_before_first_call(void)
{
	kl_module *m = parse();
	kl_interp *it = kl_interp_new(m, NULL);
	add_late(m);
	append_i32(m, "tab", 3);
	uint64_t got[4];
	late_answers(it, m, got);
	CHECK_EQ_INT(got[0], 4ull << 32);
	CHECK_EQ_INT(got[1], 7);
	CHECK_EQ_INT(got[3], 9ull << 32);
	CHECK_EQ_INT(get(it, m, 2), 3);
	kl_interp_free(it);
	kl_module_free(m);
}

/* A reset after no change of the data or the symbols keeps the symbols'
 * objects (it costs what the calls made, not the module's size); after
 * a change, memory is made from the module once more. */
static void
test_unchanged_reset_is_cheap(void)
{
	kl_module *m = parse();
	kl_interp *it = kl_interp_new(m, NULL);
	CHECK_EQ_INT(it->setups, 0);
	CHECK_EQ_INT(get(it, m, 0), 1);
	CHECK_EQ_INT(it->setups, 1);
	for (int k = 0; k < 3; k++) {
		set(it, m, 0, 5);
		kl_interp_reset(it);
		CHECK_EQ_INT(get(it, m, 0), 1);
	}
	CHECK_EQ_INT(it->setups, 1);
	/* a function changed is no data change */
	kl_func *f = kl_sym_func(m, sym(m, "get"));
	CHECK(kl_func_add_sigref(f, NULL).id != KL_NONE);
	kl_interp_reset(it);
	CHECK_EQ_INT(get(it, m, 1), 2);
	CHECK_EQ_INT(it->setups, 1);
	append_i32(m, "tab", 3);
	kl_interp_reset(it);
	CHECK_EQ_INT(get(it, m, 2), 3);
	CHECK_EQ_INT(it->setups, 2);
	kl_interp_reset(it);
	CHECK_EQ_INT(get(it, m, 2), 3);
	CHECK_EQ_INT(it->setups, 2);
	/* decoded functions were kept through it all: %get, %set, and
	 * %get again after it changed */
	CHECK_EQ_INT(it->decoded, 3);
	kl_interp_free(it);
	kl_module_free(m);
}

/* Every public call that adds a symbol or appends an item moves the
 * module's data counter (when it succeeds); nothing else does. */
static void
test_data_counter(void)
{
	kl_module *m = parse();
	uint64_t de = m->data_edits;
#define MOVES(call, moves)                                                   \
	do {                                                                 \
		call;                                                        \
		CHECK((m->data_edits != de) == (moves));                     \
		de = m->data_edits;                                          \
	} while (0)
	kl_sym d;
	MOVES(CHECK(kl_module_add_data(m, "d", 1, true, 0, &d) == KL_OK),
	      true);
	MOVES(append_i32(m, "d", 1), true);
	kl_data_item bad = { 0 };
	bad.kind = KL_DATA_VALUE;
	bad.type = KL_TYPE_I8;
	bad.value = 300;
	MOVES(CHECK(kl_data_append(m, d, &bad) == KL_ERR_RANGE), false);
	MOVES(CHECK(kl_module_add_data(m, "d", 1, true, 0, NULL) ==
		    KL_ERR_EXISTS), false);
	MOVES(CHECK(kl_module_declare(m, "x", 1, NULL, NULL) == KL_OK), true);
	MOVES(CHECK(kl_module_add_func(m, "y", 1, NULL, NULL) == KL_OK),
	      true);
	MOVES(CHECK(kl_module_add_func(m, "y", 1, NULL, NULL) ==
		    KL_ERR_EXISTS), false);
	kl_func *f = kl_sym_func(m, sym(m, "y"));
	MOVES(kl_func_append_block(f, kl_func_new_block(f)), false);
#undef MOVES
	kl_module_free(m);
}

/* Memory that could not be made (data past max_memory) is made from
 * scratch at the next call: its message does not change (the first
 * attempt's objects once stayed, charged, and the second blamed %a). */
static void
test_failed_setup_again(void)
{
	static const char src[] =
		"data %a = { zero 100 }\n"
		"data %b = { zero 1000 }\n"
		"function %f() -> i32 {\n"
		"block0:\n"
		"    v0 = iconst.i32 1\n"
		"    return v0\n"
		"}\n";
	kl_module *m = NULL;
	kl_diags d = { 0 };
	CHECK(kl_parse_module(src, sizeof src - 1, NULL, &m, &d) == KL_OK);
	kl_diags_free(&d);
	kl_interp_options o = { 0 };
	o.max_memory = 300;
	kl_interp *it = kl_interp_new(m, &o);
	for (int k = 0; k < 3; k++) {
		kl_run_result r;
		CHECK(kl_interp_call(it, sym(m, "f"), NULL, 0, &r) == KL_OK);
		CHECK_EQ_INT(r.status, KL_RUN_FAILED);
		if (!strstr(r.message, "data %b is too large")) {
			fprintf(stderr, "  message: %s\n", r.message);
			CHECK(strstr(r.message, "data %b is too large") != NULL);
		}
	}
	kl_interp_free(it);
	kl_module_free(m);
}

int
main(void)
{
	UNIT_RUN(test_append_then_reset);
	UNIT_RUN(test_append_without_reset);
	UNIT_RUN(test_new_symbols_then_reset);
	UNIT_RUN(test_new_symbols_before_first_call);
	UNIT_RUN(test_unchanged_reset_is_cheap);
	UNIT_RUN(test_data_counter);
	UNIT_RUN(test_failed_setup_again);
	return unit_report("interp_data");
}
