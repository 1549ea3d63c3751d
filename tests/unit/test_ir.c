/*
 * test_ir.c -- unit tests of the IR data structures: the value-list pool,
 * layout sequence numbers, global names, and the builder API.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <stdint.h>

#include "../../src/ir/ir.h"
#include "../../src/text/text.h"
#include "keel.h"
#include "unit.h"
#include "child.h"
#include "onefunc.h"

/* ---- value-list pool ---- */

/* Slots a list of n elements takes: exact up to 7 elements, then bins of
 * 12, 16, 32, 64... slots (header included). */
static uint32_t
slots_for(uint32_t n)
{
	if (n <= 7)
		return n + 1;
	if (n <= 11)
		return 12;
	uint32_t s = 16;
	while (s < n + 1)
		s *= 2;
	return s;
}

static void
test_pool_bin_sizes(void)
{
	kl_pool p = { 0 };
	uint32_t elems[40];
	for (uint32_t i = 0; i < 40; i++)
		elems[i] = i;
	for (uint32_t n = 1; n <= 40; n++) {
		uint32_t before = p.len;
		uint32_t l = list_make(&p, elems, n);
		CHECK_EQ_INT(l, before + 1); /* slot 0 is a header too */
		CHECK_EQ_INT(p.len - before, slots_for(n));
		CHECK_EQ_INT(list_len(&p, l), n);
		CHECK_EQ_INT(list_get(&p, l, n - 1), n - 1);
		/* The verifier's sanity bound on a header (verify.h). */
		CHECK((p.data[l - 1] >> 27) < POOL_BINS);
		CHECK((uint64_t)n + 1 <= (4ull << (p.data[l - 1] >> 27)));
	}
	pool_free_all(&p);
}

static void
test_pool_bins_and_growth(void)
{
	kl_pool p = { 0 };
	uint32_t l = 0;
	CHECK_EQ_INT(list_len(&p, l), 0);
	list_push(&p, &l, 0);
	uint32_t first = l;
	for (uint32_t i = 1; i < 1000; i++) {
		list_push(&p, &l, i * 3);
		CHECK_EQ_INT(list_len(&p, l), i + 1);
	}
	for (uint32_t i = 0; i < 1000; i++)
		CHECK_EQ_INT(list_get(&p, l, i), i * 3);
	/* The last block of the pool grows in place: same handle, no
	 * freed blocks, exactly one 1024-slot block. */
	CHECK_EQ_INT(l, first);
	CHECK_EQ_INT(p.len, 1024);
	for (uint32_t b = 0; b < POOL_BINS; b++)
		CHECK_EQ_INT(p.free_head[b], 0);

	/* A list that is not last moves, leaving its block on a free list,
	 * and keeps its elements. */
	kl_pool q = { 0 };
	uint32_t a = 0, z = 0;
	for (uint32_t i = 0; i < 7; i++)
		list_push(&q, &a, i);
	list_push(&q, &z, 99);
	uint32_t old = a;
	list_push(&q, &a, 7);
	CHECK(a != old);
	CHECK_EQ_INT(list_len(&q, a), 8);
	for (uint32_t i = 0; i < 8; i++)
		CHECK_EQ_INT(list_get(&q, a, i), i);
	CHECK_EQ_INT(q.free_head[6], old); /* the 8-slot bin */
	CHECK_EQ_INT(list_get(&q, z, 0), 99);
	/* One not last that fills its block's last slot stays where it is
	 * (10 elements and the header in 12 slots: room for one more). */
	uint32_t c = list_make(&q, NULL, 10);
	list_push(&q, &z, 98);
	old = c;
	uint32_t len = q.len;
	list_push(&q, &c, 5);
	CHECK_EQ_INT(c, old);
	CHECK_EQ_INT(q.len, len);
	CHECK_EQ_INT(list_len(&q, c), 11);
	CHECK_EQ_INT(list_get(&q, c, 10), 5);
	pool_free_all(&p);
	pool_free_all(&q);
}

static void
test_pool_reuse_after_free(void)
{
	kl_pool p = { 0 };
	uint32_t a = list_make(&p, (uint32_t[]){ 1, 2, 3 }, 3);
	uint32_t keep = list_make(&p, (uint32_t[]){ 9 }, 1);
	uint32_t used = p.len;
	list_free(&p, a);
	/* A list of another size does not take the freed block. */
	uint32_t c = list_make(&p, (uint32_t[]){ 5, 6 }, 2);
	CHECK(c != a);
	CHECK_EQ_INT(p.len, used + 3);
	used = p.len;
	uint32_t b = list_make(&p, (uint32_t[]){ 7, 8, 9 }, 3);
	CHECK_EQ_INT(b, a); /* same bin: the freed block comes back */
	CHECK_EQ_INT(p.len, used);
	CHECK_EQ_INT(list_get(&p, b, 0), 7);
	CHECK_EQ_INT(list_get(&p, b, 2), 9);
	CHECK_EQ_INT(list_get(&p, keep, 0), 9);
	CHECK_EQ_INT(list_get(&p, c, 1), 6);
	/* The last block of the pool gives its slots back when freed. */
	list_free(&p, c);
	CHECK_EQ_INT(p.len, used - 3);
	pool_free_all(&p);
}

static void
test_pool_free_lists(void)
{
	/* Each bin keeps its own free list, last freed first reused. */
	kl_pool p = { 0 };
	uint32_t elems[20] = { 0 };
	uint32_t sizes[] = { 1, 4, 1, 10, 4, 20, 1 };
	enum { N = sizeof sizes / sizeof sizes[0] };
	uint32_t l[N];
	for (uint32_t i = 0; i < N; i++)
		l[i] = list_make(&p, elems, sizes[i]);
	uint32_t tail = list_make(&p, elems, 1); /* keeps the rest off the end */
	uint32_t used = p.len;
	for (uint32_t i = 0; i < N; i++)
		list_free(&p, l[i]);
	CHECK_EQ_INT(list_make(&p, elems, 1), l[6]);
	CHECK_EQ_INT(list_make(&p, elems, 9), l[3]); /* 9 and 10: 12 slots */
	CHECK_EQ_INT(list_make(&p, elems, 4), l[4]);
	CHECK_EQ_INT(list_make(&p, elems, 1), l[2]);
	CHECK_EQ_INT(list_make(&p, elems, 16), l[5]); /* 17 and 21: 32 */
	CHECK_EQ_INT(list_make(&p, elems, 4), l[1]);
	CHECK_EQ_INT(list_make(&p, elems, 1), l[0]);
	CHECK_EQ_INT(p.len, used);
	CHECK_EQ_INT(list_make(&p, elems, 1), used + 1);
	CHECK_EQ_INT(list_len(&p, tail), 1);
	pool_free_all(&p);
}

/* Truncating keeps the first elements; truncating to nothing gives the
 * list's block back and makes the handle the empty list again. */
static void
test_pool_truncate(void)
{
	kl_pool p = { 0 };
	uint32_t l = 0;
	for (uint32_t i = 0; i < 10; i++)
		list_push(&p, &l, i);
	list_truncate(&p, &l, 10);
	CHECK_EQ_INT(list_len(&p, l), 10);
	list_truncate(&p, &l, 4);
	CHECK_EQ_INT(list_len(&p, l), 4);
	for (uint32_t i = 0; i < 4; i++)
		CHECK_EQ_INT(list_get(&p, l, i), i);
	uint32_t block = l;
	list_truncate(&p, &l, 0);
	CHECK_EQ_INT(l, 0);
	uint32_t again = 0;
	for (uint32_t i = 0; i < 10; i++)
		list_push(&p, &again, i);
	CHECK_EQ_INT(again, block); /* the freed block is taken again */
	pool_free_all(&p);
	/* The empty list, truncated to nothing or freed, stays the empty
	 * list and takes no slot. */
	uint32_t none = 0;
	list_truncate(&p, &none, 0);
	list_free(&p, none);
	CHECK_EQ_INT(none, 0);
	CHECK_EQ_INT(p.len, 0);
}

static void
test_pool_many_lists(void)
{
	/* Interleaved pushes to many lists keep each list intact. */
	kl_pool p = { 0 };
	enum { N = 200 };
	uint32_t lists[N] = { 0 };
	for (uint32_t round = 0; round < 40; round++)
		for (uint32_t i = 0; i < N; i++)
			list_push(&p, &lists[i], i * 1000 + round);
	for (uint32_t i = 0; i < N; i++) {
		CHECK_EQ_INT(list_len(&p, lists[i]), 40);
		for (uint32_t r = 0; r < 40; r++)
			CHECK_EQ_INT(list_get(&p, lists[i], r), i * 1000 + r);
	}
	pool_free_all(&p);
}

/* ---- layout ---- */

static kl_func *
new_func(kl_module *m, const char *name)
{
	kl_func *f = NULL;
	CHECK_EQ_INT(kl_module_add_func(m, name, strlen(name), NULL, &f), KL_OK);
	return f;
}

static bool
seq_increasing(const kl_func *f, kl_block b)
{
	kl_inst prev = KL_NO_INST;
	for (kl_inst i = kl_block_first_inst(f, b); i.id != KL_NONE;
	     i = kl_inst_next(f, i)) {
		if (prev.id != KL_NONE && !kl_inst_precedes(f, prev, i))
			return false;
		prev = i;
	}
	return true;
}

static void
test_layout_insert_between(void)
{
	kl_module *m = kl_module_new();
	kl_func *f = new_func(m, "f");
	kl_block b = kl_func_new_block(f);
	CHECK_EQ_INT(kl_func_append_block(f, b), KL_OK);
	kl_builder bld;
	kl_builder_init(&bld, f);
	kl_builder_at_end(&bld, b);
	kl_value a = kl_build_iconst(&bld, KL_TYPE_I32, 1);
	kl_value z = kl_build_iconst(&bld, KL_TYPE_I32, 2);
	kl_inst ia = kl_value_def_inst(f, a), iz = kl_value_def_inst(f, z);
	CHECK(kl_inst_precedes(f, ia, iz));
	/* Insert many times right before z: the gap closes and the local
	 * renumbering must keep the order. */
	for (int k = 0; k < 200; k++) {
		kl_builder_before(&bld, iz);
		kl_build_iconst(&bld, KL_TYPE_I32, 100 + k);
	}
	CHECK(seq_increasing(f, b));
	/* Insert repeatedly right after the first instruction too. */
	for (int k = 0; k < 200; k++) {
		kl_builder_before(&bld, kl_inst_next(f, ia));
		kl_build_iconst(&bld, KL_TYPE_I32, 1000 + k);
	}
	CHECK(seq_increasing(f, b));
	CHECK(kl_inst_precedes(f, ia, iz));
	CHECK(!kl_inst_precedes(f, iz, ia));
	CHECK_EQ_INT(kl_builder_status(&bld), KL_OK);
	/* Order of the values: first a, then the 200 later inserts in
	 * reverse, then the first 200 in order, then z. */
	kl_inst i = kl_block_first_inst(f, b);
	CHECK_EQ_INT(i.id, ia.id);
	i = kl_inst_next(f, i);
	CHECK_EQ_INT(kl_inst_imm(f, i), 1199);
	kl_module_free(m);
}

static void
test_layout_renumber_is_local(void)
{
	/* Inserting between two neighbours with a gap touches only the new
	 * instruction: the others keep their numbers. */
	kl_func *f;
	kl_block b;
	kl_builder bld;
	kl_module *m = one_block_func(&f, &b, &bld);
	kl_inst insts[50];
	for (int k = 0; k < 50; k++)
		insts[k] = kl_value_def_inst(f, kl_build_iconst(&bld, KL_TYPE_I8, k));
	uint32_t before[50];
	for (int k = 0; k < 50; k++)
		before[k] = f->nodes[insts[k].id].seq;
	kl_builder_before(&bld, insts[25]);
	kl_build_iconst(&bld, KL_TYPE_I8, 99);
	for (int k = 0; k < 50; k++)
		CHECK_EQ_INT(f->nodes[insts[k].id].seq, before[k]);
	kl_module_free(m);
}

/* ---- names ---- */

static void
print_name_of(kl_module *m, kl_sym s, kl_buf *out)
{
	kl_buf_reset(out);
	kl_func *f = kl_sym_func(m, s);
	kl_print_func(f, NULL, out);
}

/* The symbol table keeps each name's hash and rehashes from it as it
 * doubles: every name stays found, a redefinition (kept hidden) does not
 * replace the first, and absent names, of any length, are not found. */
static void
test_symbols_across_rehashes(void)
{
	kl_module *m = kl_module_new();
	char name[40];
	kl_status st;
	uint32_t first = KL_NONE, again = KL_NONE;
	for (uint32_t i = 0; i < 1000; i++) {
		int n = snprintf(name, sizeof name, "%s%u",
				 i % 3 ? "f" : "a_long_symbol_name_", i);
		uint32_t s = module_add_sym(m, name, (size_t)n, KL_SYM_FUNC,
					    false, &st);
		CHECK_EQ_INT(st, KL_OK);
		CHECK_EQ_INT(s, i);
		if (i == 10) {
			first = s;
			again = module_add_sym(m, name, (size_t)n, KL_SYM_FUNC,
					       true, &st);
			CHECK_EQ_INT(st, KL_OK);
			CHECK(m->syms[again].hidden);
			i++; /* the redefinition took number 11 */
		}
	}
	CHECK(m->hcap >= 2048);
	for (uint32_t i = 0; i < 1000; i++) {
		if (i == again)
			continue;
		int n = snprintf(name, sizeof name, "%s%u",
				 i % 3 ? "f" : "a_long_symbol_name_", i);
		CHECK_EQ_INT(kl_module_lookup(m, name, (size_t)n).id, i);
		n = snprintf(name, sizeof name, "%s%u",
			     i % 3 ? "a_long_symbol_name_" : "f", i);
		CHECK_EQ_INT(kl_module_lookup(m, name, (size_t)n).id,
			     KL_NONE);
	}
	CHECK_EQ_INT(kl_module_lookup(m, "f10", 3).id, first);
	module_add_sym(m, "f10", 3, KL_SYM_FUNC, false, &st);
	CHECK_EQ_INT(st, KL_ERR_EXISTS);
	kl_module_free(m);
}

static void
test_names(void)
{
	kl_module *m = kl_module_new();
	const char *longname = "i32.no_fold_cmp_s_offset";
	kl_func *f1 = new_func(m, "short");
	kl_func *f2 = new_func(m, longname);
	kl_func *f3 = NULL;
	CHECK_EQ_INT(kl_module_add_func(m, "hi :)", 5, NULL, &f3), KL_OK);
	kl_func *f4 = NULL;
	CHECK_EQ_INT(kl_module_add_func(m, "", 0, NULL, &f4), KL_OK);
	kl_func *dup = NULL;
	CHECK_EQ_INT(kl_module_add_func(m, "short", 5, NULL, &dup),
		     KL_ERR_EXISTS);
	size_t n;
	const char *s = kl_sym_name(m, kl_func_sym(f2), &n);
	CHECK_EQ_INT(n, strlen(longname));
	CHECK(memcmp(s, longname, n) == 0);
	CHECK_EQ_INT(kl_module_lookup(m, longname, strlen(longname)).id,
		     kl_func_sym(f2).id);
	CHECK_EQ_INT(kl_module_lookup(m, "", 0).id, kl_func_sym(f4).id);
	CHECK_EQ_INT(kl_module_lookup(m, "nope", 4).id, KL_NONE);
	/* Every name, short or long, lives in the byte store. */
	CHECK(m->nbytes >= strlen("short") + strlen(longname) + 5);
	kl_buf out = { 0 };
	print_name_of(m, kl_func_sym(f1), &out);
	CHECK(strncmp(out.data, "function %short() {", 19) == 0);
	print_name_of(m, kl_func_sym(f2), &out);
	CHECK(strncmp(out.data, "function %i32.no_fold_cmp_s_offset() {",
		      38) == 0);
	print_name_of(m, kl_func_sym(f3), &out);
	CHECK(strncmp(out.data, "function #6869203a29() {", 24) == 0);
	print_name_of(m, kl_func_sym(f4), &out);
	CHECK(strncmp(out.data, "function noname() {", 19) == 0);
	/* Many symbols: the hash table grows, every name is still found. */
	char buf[64];
	for (int k = 0; k < 3000; k++) {
		snprintf(buf, sizeof buf, "sym_%d_with_a_long_tail", k);
		kl_sym d;
		CHECK_EQ_INT(kl_module_add_data(m, buf, strlen(buf), false, 1, &d),
			     KL_OK);
	}
	for (int k = 0; k < 3000; k += 7) {
		snprintf(buf, sizeof buf, "sym_%d_with_a_long_tail", k);
		kl_sym d = kl_module_lookup(m, buf, strlen(buf));
		CHECK(d.id != KL_NONE);
		size_t len;
		const char *nm = kl_sym_name(m, d, &len);
		CHECK(len == strlen(buf) && memcmp(nm, buf, len) == 0);
	}
	kl_buf_free(&out);
	kl_module_free(m);
}

/* ---- builder ---- */

static void
test_builder_builds_what_the_parser_reads(void)
{
	kl_module *m = kl_module_new();
	kl_type params[] = { KL_TYPE_I32, KL_TYPE_I32 };
	kl_type results[] = { KL_TYPE_I32 };
	kl_signature sig = { params, results, 2, 1, false };
	kl_func *f = NULL;
	CHECK_EQ_INT(kl_module_add_func(m, "max", 3, &sig, &f), KL_OK);
	kl_block b0 = kl_func_new_block(f), b1 = kl_func_new_block(f),
		 b2 = kl_func_new_block(f);
	kl_func_append_block(f, b0);
	kl_func_append_block(f, b1);
	kl_func_append_block(f, b2);
	kl_value x = kl_block_append_param(f, b0, KL_TYPE_I32);
	kl_value y = kl_block_append_param(f, b0, KL_TYPE_I32);
	kl_value r = kl_block_append_param(f, b2, KL_TYPE_I32);
	kl_builder bld;
	kl_builder_init(&bld, f);
	kl_builder_at_end(&bld, b0);
	kl_value c = kl_build_icmp(&bld, KL_ICC_SGT, x, y);
	kl_build_brif(&bld, c, (kl_block_call){ b1, NULL, 0 },
		      (kl_block_call){ b2, &y, 1 });
	kl_builder_at_end(&bld, b1);
	kl_build_jump(&bld, (kl_block_call){ b2, &x, 1 });
	kl_builder_at_end(&bld, b2);
	kl_build_return(&bld, &r, 1);
	CHECK_EQ_INT(kl_builder_status(&bld), KL_OK);
	CHECK_EQ_INT(kl_value_type(f, c), KL_TYPE_I8);

	kl_buf out = { 0 };
	kl_print_module(m, NULL, &out);
	const char *want =
		"function %max(i32, i32) -> i32 {\n"
		"block0(v0: i32, v1: i32):\n"
		"    v3 = icmp sgt v0, v1\n"
		"    brif v3, block1, block2(v1)\n"
		"\n"
		"block1:\n"
		"    jump block2(v0)\n"
		"\n"
		"block2(v2: i32):\n"
		"    return v2\n"
		"}\n";
	CHECK_EQ_STR(out.data, want);
	/* And the text parses back to the same print. */
	kl_module *m2 = NULL;
	kl_diags d = { 0 };
	CHECK_EQ_INT(kl_parse_module(out.data, out.len, NULL, &m2, &d), KL_OK);
	kl_buf out2 = { 0 };
	if (m2)
		kl_print_module(m2, NULL, &out2);
	CHECK_EQ_STR(out2.data, want);
	kl_buf_free(&out);
	kl_buf_free(&out2);
	kl_diags_free(&d);
	kl_module_free(m2);
	kl_module_free(m);
}

/* Operands in the order given: select's three, a store's value and
 * address, and the offsets of a load and a store. */
static void
test_builder_operand_order(void)
{
	kl_module *m = kl_module_new();
	kl_type params[] = { KL_TYPE_I32, KL_TYPE_I32, KL_TYPE_I32 };
	kl_signature sig = { params, params, 3, 1, false };
	kl_func *f = NULL;
	CHECK_EQ_INT(kl_module_add_func(m, "f", 1, &sig, &f), KL_OK);
	kl_block b0 = kl_func_make_entry(f);
	kl_builder bld;
	kl_builder_init(&bld, f);
	kl_builder_at_end(&bld, b0);
	kl_value v[3];
	for (uint32_t k = 0; k < 3; k++)
		v[k] = kl_block_param(f, b0, k);
	kl_value s = kl_build_select(&bld, v[0], v[1], v[2]);
	kl_value a = kl_build_alloca(&bld, 8, 0);
	kl_build_store(&bld, KL_OP_STORE, s, a, 4);
	kl_value l = kl_build_load(&bld, KL_OP_LOAD, KL_TYPE_I32, a, 4);
	kl_build_return(&bld, &l, 1);
	CHECK_EQ_INT(kl_builder_status(&bld), KL_OK);
	kl_buf out = { 0 };
	kl_print_func(f, NULL, &out);
	CHECK_EQ_STR(out.data, "function %f(i32, i32, i32) -> i32 {\n"
			       "block0(v0: i32, v1: i32, v2: i32):\n"
			       "    v3 = select v0, v1, v2\n"
			       "    v4 = alloca 8, align 8\n"
			       "    store v3, v4+4\n"
			       "    v5 = load.i32 v4+4\n"
			       "    return v5\n"
			       "}\n");
	kl_buf_free(&out);
	kl_module_free(m);
}

/* A destination without arguments is the block alone, one word; it
 * becomes a list when a pass gives it arguments, and the API reads both
 * kinds alike. */
static void
test_destination_words(void)
{
	kl_module *m = kl_module_new();
	kl_func *f = new_func(m, "f");
	kl_block b0 = kl_func_new_block(f), b1 = kl_func_new_block(f);
	kl_func_append_block(f, b0);
	kl_func_append_block(f, b1);
	kl_value p = kl_block_append_param(f, b1, KL_TYPE_I32);
	kl_builder bld;
	kl_builder_init(&bld, f);
	kl_builder_at_end(&bld, b0);
	kl_value c = kl_build_iconst(&bld, KL_TYPE_I32, 7);
	kl_inst br = kl_build_brif(&bld, c, (kl_block_call){ b1, &c, 1 },
				   (kl_block_call){ b1, &c, 1 });
	kl_builder_at_end(&bld, b1);
	kl_inst j = kl_build_jump(&bld, (kl_block_call){ b1, NULL, 0 });
	CHECK_EQ_INT(kl_builder_status(&bld), KL_OK);
	uint32_t pool_before = f->pool.len;
	CHECK_EQ_INT(f->insts[j.id].w[0], dest_word_of_block(b1.id));
	CHECK_EQ_INT(kl_inst_num_dests(f, j), 1);
	CHECK_EQ_INT(kl_inst_dest(f, j, 0).id, b1.id);
	CHECK_EQ_INT(kl_inst_dest_num_args(f, j, 0), 0);
	CHECK_EQ_INT(kl_inst_dest_arg(f, j, 0, 0).id, KL_NONE);
	CHECK(!(f->insts[br.id].w[1] & DEST_BLOCK));
	CHECK_EQ_INT(kl_inst_dest_arg(f, br, 1, 0).id, c.id);
	/* jump block1 -> jump block1(v_p): a list now. */
	inst_dest_append_args(f, j.id, 0, &p.id, 1);
	CHECK(!(f->insts[j.id].w[0] & DEST_BLOCK));
	CHECK(f->pool.len > pool_before);
	CHECK_EQ_INT(kl_inst_dest(f, j, 0).id, b1.id);
	CHECK_EQ_INT(kl_inst_dest_num_args(f, j, 0), 1);
	CHECK_EQ_INT(kl_inst_dest_arg(f, j, 0, 0).id, p.id);
	kl_module_free(m);
}

static void
test_builder_errors_are_values(void)
{
	kl_module *m = kl_module_new();
	kl_func *f = new_func(m, "f");
	kl_builder bld;
	kl_builder_init(&bld, f);
	/* No block yet. */
	CHECK_EQ_INT(kl_build_iconst(&bld, KL_TYPE_I32, 1).id, KL_NONE);
	CHECK_EQ_INT(kl_builder_status(&bld), KL_ERR_POSITION);
	CHECK_EQ_INT(bld.error_op, KL_OP_ICONST);
	/* Sticky: later calls fail too, even with a block, and the error
	 * still names the call that failed first. */
	kl_block b = kl_func_new_block(f);
	kl_func_append_block(f, b);
	kl_builder_at_end(&bld, b);
	CHECK_EQ_INT(kl_build_iconst(&bld, KL_TYPE_I32, 1).id, KL_NONE);
	kl_build_jump(&bld, (kl_block_call){ b, NULL, 0 });
	CHECK_EQ_INT(bld.error_op, KL_OP_ICONST);

	kl_builder_init(&bld, f);
	kl_builder_at_end(&bld, b);
	kl_value one = kl_build_iconst(&bld, KL_TYPE_I32, 1);
	CHECK(one.id != KL_NONE);
	/* Wrong builder call for the opcode. */
	kl_build_binary(&bld, KL_OP_ICONST, one, one);
	CHECK_EQ_INT(kl_builder_status(&bld), KL_ERR_FORMAT);

	kl_builder_init(&bld, f);
	kl_builder_at_end(&bld, b);
	kl_build_store(&bld, KL_OP_STORE, one, one, 0);
	kl_build_binary(&bld, KL_OP_IADD, one, (kl_value){ 12345 });
	CHECK_EQ_INT(kl_builder_status(&bld), KL_ERR_INVALID);
	CHECK_EQ_INT(bld.error_op, KL_OP_IADD); /* (not the store before) */
	CHECK_EQ_STR(kl_op_name(bld.error_op), "iadd");
	CHECK_EQ_INT(bld.error_value.id, 12345); /* which operand */
	/* a later bad operand does not replace the first */
	kl_build_binary(&bld, KL_OP_IADD, (kl_value){ 777 }, one);
	CHECK_EQ_INT(bld.error_value.id, 12345);
	/* a failure about no operand leaves it none */
	kl_builder_init(&bld, f);
	kl_build_iconst(&bld, KL_TYPE_I32, 1);
	CHECK_EQ_INT(kl_builder_status(&bld), KL_ERR_POSITION);
	CHECK_EQ_INT(bld.error_value.id, KL_NONE);
	/* An opcode that needs its result type, given none, says so; a
	 * handle that is no type is "not a type". */
	kl_builder_init(&bld, f);
	kl_builder_at_end(&bld, b);
	kl_build_unary(&bld, KL_OP_SEXTEND, KL_TYPE_NONE, one);
	CHECK_EQ_INT(kl_builder_status(&bld), KL_ERR_INVALID);
	CHECK(bld.error && strstr(bld.error, "needs its result type"));
	kl_builder_init(&bld, f);
	kl_builder_at_end(&bld, b);
	kl_build_iconst(&bld, (kl_type)999, 1);
	CHECK(bld.error && strcmp(bld.error, "not a type") == 0);

	kl_builder_init(&bld, f);
	kl_builder_at_end(&bld, b);
	kl_build_alloca(&bld, 8, 3);
	CHECK_EQ_INT(kl_builder_status(&bld), KL_ERR_RANGE);

	kl_builder_init(&bld, f);
	kl_builder_at_end(&bld, b);
	kl_build_jump(&bld, (kl_block_call){ { 77 }, NULL, 0 });
	CHECK_EQ_INT(kl_builder_status(&bld), KL_ERR_INVALID);

	kl_builder_init(&bld, f);
	kl_builder_at_end(&bld, b);
	kl_build_call(&bld, (kl_sym){ 99 }, NULL, 0);
	CHECK_EQ_INT(kl_builder_status(&bld), KL_ERR_INVALID);
	CHECK_EQ_INT(bld.error_op, KL_OP_CALL);

	/* A bad condition code is the compare's error, not the call's
	 * before it. */
	kl_builder_init(&bld, f);
	kl_builder_at_end(&bld, b);
	kl_build_iconst(&bld, KL_TYPE_I32, 2);
	kl_build_icmp(&bld, (kl_intcc)99, one, one);
	CHECK_EQ_INT(kl_builder_status(&bld), KL_ERR_RANGE);
	CHECK_EQ_INT(bld.error_op, KL_OP_ICMP);
	kl_builder_init(&bld, f);
	kl_builder_at_end(&bld, b);
	kl_build_icmp_imm(&bld, (kl_intcc)99, one, 1);
	CHECK_EQ_INT(bld.error_op, KL_OP_ICMP_IMM);
	kl_builder_init(&bld, f);
	kl_builder_at_end(&bld, b);
	kl_build_fcmp(&bld, (kl_floatcc)99, one, one);
	CHECK_EQ_INT(bld.error_op, KL_OP_FCMP);

	kl_builder_init(&bld, f);
	kl_builder_before(&bld, (kl_inst){ 999 });
	kl_build_iconst(&bld, KL_TYPE_I8, 0);
	CHECK_EQ_INT(kl_builder_status(&bld), KL_ERR_POSITION);

	/* A block outside the layout takes no instructions: they would be
	 * in no listing, and the printed text would verify where the IR
	 * does not. Nor can a block be placed after it. */
	kl_block loose = kl_func_new_block(f);
	kl_builder_init(&bld, f);
	kl_builder_at_end(&bld, loose);
	CHECK_EQ_INT(kl_build_trap(&bld, KL_TRAP_UNREACHABLE, 0).id, KL_NONE);
	CHECK_EQ_INT(kl_builder_status(&bld), KL_ERR_POSITION);
	kl_block other = kl_func_new_block(f);
	CHECK_EQ_INT(kl_func_insert_block_after(f, other, loose),
		     KL_ERR_POSITION);
	CHECK_EQ_INT(kl_func_append_block(f, loose), KL_OK);
	CHECK_EQ_INT(kl_func_append_block(f, loose), KL_ERR_INVALID);
	CHECK_EQ_INT(kl_func_insert_block_after(f, other, loose), KL_OK);

	/* Types that do not exist. */
	CHECK_EQ_INT(kl_block_append_param(f, b, 4242).id, KL_NONE);
	kl_type bad = 4242;
	kl_signature sig = { &bad, NULL, 1, 0, false };
	kl_sym s;
	CHECK_EQ_INT(kl_module_declare(m, "g", 1, &sig, &s), KL_ERR_INVALID);
	kl_module_free(m);
}

static void
test_builder_immediates(void)
{
	kl_func *f;
	kl_block b;
	kl_builder bld;
	kl_module *m = one_block_func(&f, &b, &bld);
	kl_value v = kl_build_iconst(&bld, KL_TYPE_I8, 255);
	CHECK_EQ_INT(kl_inst_imm(f, kl_value_def_inst(f, v)), -1);
	kl_value w = kl_build_iconst(&bld, KL_TYPE_I64, INT64_MIN);
	CHECK_EQ_INT(kl_inst_imm(f, kl_value_def_inst(f, w)), INT64_MIN);
	/* A 64-bit immediate of an _imm instruction goes to the pool. */
	kl_value big = kl_build_binary_imm(&bld, KL_OP_IADD_IMM, w,
					   0x123456789abcll);
	CHECK_EQ_INT(kl_inst_imm(f, kl_value_def_inst(f, big)),
		     0x123456789abcll);
	kl_value small = kl_build_binary_imm(&bld, KL_OP_IADD_IMM, w, -5);
	CHECK_EQ_INT(kl_inst_imm(f, kl_value_def_inst(f, small)), -5);
	CHECK_EQ_INT(f->nconsts, 1);
	/* an _imm's immediate is read at its operand's width: 255 beside
	 * an i8 is -1 */
	kl_value byte = kl_build_icmp_imm(&bld, KL_ICC_EQ, v, 255);
	CHECK_EQ_INT(kl_inst_imm(f, kl_value_def_inst(f, byte)), -1);
	/* docs/api.md: an i32 immediate given unsigned is kept
	 * sign-extended; one that fits no i32 is built, and the verifier
	 * refuses it */
	kl_value u = kl_build_iconst(&bld, KL_TYPE_I32, 0xffffffffll);
	CHECK_EQ_INT(kl_inst_imm(f, kl_value_def_inst(f, u)), -1);
	CHECK_EQ_INT(kl_verify_func(f, NULL, NULL), KL_ERR_VERIFY); /* no return */
	kl_build_return(&bld, NULL, 0);
	CHECK_EQ_INT(kl_verify_func(f, NULL, NULL), KL_OK);
	kl_builder_before(&bld, kl_block_last_inst(f, b));
	kl_value wide = kl_build_iconst(&bld, KL_TYPE_I32, 1ll << 40);
	CHECK_EQ_INT(kl_builder_status(&bld), KL_OK);
	CHECK_EQ_INT(kl_inst_imm(f, kl_value_def_inst(f, wide)), 1ll << 40);
	CHECK_EQ_INT(kl_verify_func(f, NULL, NULL), KL_ERR_VERIFY);
	kl_module_free(m);
}

/* Equal signatures share one module signature, whatever made them; a
 * difference in any part (a type, the count, variadic) makes another. */
static void
test_signatures_interned(void)
{
	kl_module *m = kl_module_new();
	kl_type a[] = { KL_TYPE_I32, KL_TYPE_I64 }, r[] = { KL_TYPE_F64 };
	uint32_t s0 = module_add_sig(m, a, 2, r, 1, false);
	CHECK_EQ_INT(module_add_sig(m, a, 2, r, 1, false), s0);
	uint32_t s1 = module_add_sig(m, a, 2, r, 1, true);
	uint32_t s2 = module_add_sig(m, a, 1, r, 1, false);
	uint32_t s3 = module_add_sig(m, a, 2, NULL, 0, false);
	uint32_t s4 = module_add_sig(m, r, 1, a, 2, false);
	uint32_t s5 = module_add_sig(m, NULL, 0, NULL, 0, false);
	CHECK(s1 != s0 && s2 != s0 && s3 != s0 && s4 != s0 && s5 != s0);
	CHECK(s2 != s1 && s3 != s2 && s4 != s3 && s5 != s4 && s5 != s3);
	CHECK_EQ_INT(module_add_sig(m, NULL, 0, NULL, 0, false), s5);
	CHECK_EQ_INT(m->nsigs, 6);
	/* Many functions of few shapes: the table grows and rehashes. */
	kl_type t[3] = { KL_TYPE_I8, KL_TYPE_I16, KL_TYPE_F32 };
	uint32_t first[3];
	for (int i = 0; i < 3000; i++) {
		uint32_t s = module_add_sig(m, t, (uint32_t)(i % 3) + 1, t, 1,
					    false);
		if (i < 3)
			first[i] = s;
		CHECK_EQ_INT(s, first[i % 3]);
	}
	CHECK_EQ_INT(m->nsigs, 9);
	kl_signature x = module_sig(m, first[2]);
	CHECK_EQ_INT(x.num_params, 3);
	CHECK_EQ_INT(x.params[2], KL_TYPE_F32);
	kl_module_free(m);
}

/* Parse text holding a function %f; f, or NULL. */
static kl_func *
parse_f(const char *text, size_t len, kl_module **m)
{
	kl_diags d = { 0 };
	CHECK_EQ_INT(kl_parse_module(text, len, NULL, m, &d), KL_OK);
	kl_diags_free(&d);
	return *m ? kl_sym_func(*m, kl_module_lookup(*m, "f", 1)) : NULL;
}

/*
 * A parsed small function's value table sits in the module arena with
 * room for a few more values (an eighth and four), which a pass fills
 * without moving it. func_presize moves an arena table once, to exactly
 * the room asked for, keeping its values; past ARENA_TABLE_MAX it leaves
 * the arena.
 */
static void
test_value_room(void)
{
	static const char text[] = "function %f(i32) -> i32 {\n"
				   "block0(v0: i32):\n"
				   "    v1 = iadd_imm v0, 7\n"
				   "    return v1\n"
				   "}\n";
	kl_module *m;
	kl_func *f = parse_f(text, sizeof text - 1, &m);
	CHECK(f && (f->in_arena & TAB_VALUES));
	CHECK_EQ_INT(f->nvalues, 2);
	CHECK_EQ_INT(f->values_cap, 2 + 0 + 4);
	const kl_value_data *table = f->values;
	for (int k = 0; k < 4; k++)
		func_new_value(f);
	CHECK(f->values == table); /* filled in place */
	CHECK_EQ_INT(f->nvalues, 6);
	func_presize(f, 0, 9);
	CHECK_EQ_INT(f->values_cap, 9);
	CHECK(f->values != table && (f->in_arena & TAB_VALUES));
	CHECK_EQ_INT(f->values[1].def, 0); /* v1 = iadd_imm, inst 0 */
	table = f->values;
	for (int k = 0; k < 3; k++)
		func_new_value(f);
	CHECK(f->values == table);
	CHECK_EQ_INT(f->nvalues, 9);
	func_presize(f, 0, 3); /* no smaller */
	CHECK_EQ_INT(f->values_cap, 9);

	uint32_t big = (uint32_t)(ARENA_TABLE_MAX / sizeof *f->values) + 1;
	func_presize(f, 0, big);
	CHECK(!(f->in_arena & TAB_VALUES) && f->values_cap == big);
	CHECK_EQ_INT(f->values[1].def, 0);
	kl_module_free(m);
}

/*
 * A buffer asked to grow by nearly SIZE_MAX bytes ends in the one fatal
 * error the header allows, out of memory, at once: the capacity used to
 * double past SIZE_MAX to 0 and loop forever. (In a child: it exits.)
 */
static void
reserve_huge(void *ctx)
{
	(void)ctx;
	kl_buf b = { 0 };
	kl_buf_putc(&b, 'x');
	kl_buf_reserve(&b, SIZE_MAX - 10);
}

/* kl_buf_printf around its 256-byte first try: every length whole, the
 * last byte too (at exactly 256 the small buffer's NUL could take its
 * place). */
static void
test_buf_printf_lengths(void)
{
	char s[300];
	for (size_t n = 254; n <= 258; n++) {
		memset(s, 'x', n);
		s[n - 1] = 'y';
		s[n] = 0;
		kl_buf b = { 0 };
		kl_buf_printf(&b, "%s", s);
		CHECK_EQ_INT(b.len, n);
		CHECK(strcmp(b.data, s) == 0);
		kl_buf_free(&b);
	}
}

/* The decimal writer counts digits from the bit length, then one
 * comparison: each side of every power of 10 and of 2 is where a count
 * off by one would show, against snprintf. */
static void
test_buf_put_entity_digits(void)
{
	kl_buf b = { 0 };
	char want[32];
	uint32_t edges[80];
	unsigned n = 0;
	for (uint64_t p = 1; p <= UINT32_MAX; p *= 10)
		edges[n++] = (uint32_t)p;
	for (unsigned k = 0; k < 32; k++)
		edges[n++] = (uint32_t)1 << k;
	for (unsigned e = 0; e < n; e++)
		for (uint32_t d = 0; d < 3; d++) {
			uint32_t v = edges[e] - 1 + d; /* wraps at 0: 2^32-1 */
			kl_buf_reset(&b);
			kl_buf_put_entity(&b, "block", 5, v);
			snprintf(want, sizeof want, "block%u", v);
			CHECK_EQ_STR(b.data, want);
		}
	kl_buf_reset(&b);
	kl_buf_put_entity(&b, "", 0, 0);
	CHECK_EQ_STR(b.data, "0");
	kl_buf_free(&b);
}

static void
test_buf_reserve_huge(void)
{
	char msg[256];
	int st = unit_in_child(reserve_huge, NULL, msg, sizeof msg);
	/* it aborts; a loop would end by the child's alarm, SIGALRM */
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT);
	CHECK(strncmp(msg, "keel: out of memory (kl_buf_reserve at ", 39) ==
	      0);
}

/* A list longer than the pool holds is an error value from the builder,
 * not the pool's fatal stop; the count is checked before any operand is
 * read, so a short array shows it. */
static void
test_lists_too_long(void)
{
	kl_func *f;
	kl_block b0;
	kl_builder b;
	kl_module *m = one_block_func(&f, &b0, &b);
	kl_value one[1] = { kl_build_iconst(&b, KL_TYPE_I32, 1) };
	kl_inst i = kl_build_return(&b, one, 1u << 27);
	CHECK_EQ_INT(i.id, KL_NONE);
	CHECK_EQ_INT(kl_builder_status(&b), KL_ERR_RANGE);
	kl_builder_init(&b, f);
	kl_builder_at_end(&b, b0);
	i = kl_build_br_table(&b, one[0], (kl_block_call){ b0, NULL, 0 },
			      (kl_block_call[1]){ { b0, NULL, 0 } }, 1u << 27);
	CHECK_EQ_INT(i.id, KL_NONE);
	CHECK_EQ_INT(kl_builder_status(&b), KL_ERR_RANGE);
	kl_module_free(m);
}

/* The empty name may come as (NULL, 0), and (NULL, n) is refused: no
 * memcpy or memcmp of NULL (UBSan's report). */
static void
test_null_names(void)
{
	kl_module *m = kl_module_new();
	kl_sym d;
	CHECK_EQ_INT(kl_module_add_data(m, NULL, 0, false, 1, &d), KL_OK);
	CHECK_EQ_INT(kl_module_lookup(m, NULL, 0).id, d.id);
	CHECK_EQ_INT(kl_module_lookup(m, "", 0).id, d.id);
	CHECK(kl_module_add_data(m, NULL, 3, false, 1, &d) != KL_OK);
	CHECK_EQ_INT(kl_module_lookup(m, NULL, 3).id, KL_NO_SYM.id);
	kl_module_free(m);
}

/*
 * An alias cycle: kl_value_set_alias refuses to close one, whatever the
 * chain passes through, and the builder refuses an operand on a cycle
 * the text made (the verifier reports it) instead of following it.
 */
static void
test_alias_cycles(void)
{
	static const char gaps[] = "function %f(i32) -> i32 {\n"
				   "block0(v0: i32):\n"
				   "    v10 = iadd_imm v0, 7\n"
				   "    return v10\n"
				   "}\n";
	kl_module *m;
	kl_func *f = parse_f(gaps, sizeof gaps - 1, &m);
	CHECK(f != NULL);
	kl_value v0 = { 0 }, v1 = { 1 }, v2 = { 2 };
	CHECK_EQ_INT(kl_value_set_alias(f, v1, v0), KL_OK);
	CHECK_EQ_INT(kl_value_set_alias(f, v2, v1), KL_OK);
	/* v1 -> v2 -> v1: the chain from v2 passes through v1 */
	CHECK_EQ_INT(kl_value_set_alias(f, v1, v2), KL_ERR_INVALID);
	CHECK_EQ_INT(kl_value_set_alias(f, v2, v2), KL_ERR_INVALID);
	kl_module_free(m);

	static const char cycle[] = "function %f(i32) -> i32 {\n"
				    "block0(v0: i32):\n"
				    "    v1 -> v2\n"
				    "    v2 -> v1\n"
				    "    return v0\n"
				    "}\n";
	f = parse_f(cycle, sizeof cycle - 1, &m);
	CHECK(f != NULL);
	kl_builder b;
	kl_builder_init(&b, f);
	kl_builder_before(&b, (kl_inst){ f->blocks[f->first_block].first });
	kl_value r = kl_build_binary_imm(&b, KL_OP_IADD_IMM, v1, 1);
	CHECK_EQ_INT(r.id, KL_NONE);
	CHECK_EQ_INT(kl_builder_status(&b), KL_ERR_INVALID);
	kl_module_free(m);
}

/*
 * Refined types (docs/ir.md): their classes and refinements, the type
 * refining each class, and the API taking a refined type where the text
 * does: an alias of a value of the same class (it takes the end's type),
 * never of another class; copy.s32 of an i32 value, not copy.i64.
 */
static void
test_refined_types(void)
{
	static const struct {
		kl_type t, cls;
		kl_refinement r;
		const char *name;
	} types[] = {
		{ KL_TYPE_S8, KL_TYPE_I8, KL_REFINE_SIGNED, "s8" },
		{ KL_TYPE_S64, KL_TYPE_I64, KL_REFINE_SIGNED, "s64" },
		{ KL_TYPE_U16, KL_TYPE_I16, KL_REFINE_UNSIGNED, "u16" },
		{ KL_TYPE_U32, KL_TYPE_I32, KL_REFINE_UNSIGNED, "u32" },
		{ KL_TYPE_PTR, KL_TYPE_I64, KL_REFINE_POINTER, "ptr" },
		{ KL_TYPE_I32, KL_TYPE_I32, KL_REFINE_NONE, "i32" },
	};
	for (size_t k = 0; k < sizeof types / sizeof types[0]; k++) {
		CHECK_EQ_INT(kl_type_class(NULL, types[k].t), types[k].cls);
		CHECK_EQ_INT(kl_type_refinement(NULL, types[k].t),
			     types[k].r);
		CHECK_EQ_STR(kl_type_name(NULL, types[k].t), types[k].name);
		CHECK(kl_type_is_int(NULL, types[k].t));
		CHECK_EQ_INT(kl_type_refined(NULL, types[k].cls, types[k].r),
			     types[k].t);
	}
	/* no float, pointer of another size, or refined class to refine */
	CHECK_EQ_INT(kl_type_refined(NULL, KL_TYPE_F32, KL_REFINE_SIGNED),
		     KL_TYPE_NONE);
	CHECK_EQ_INT(kl_type_refined(NULL, KL_TYPE_I32, KL_REFINE_POINTER),
		     KL_TYPE_NONE);
	CHECK_EQ_INT(kl_type_refined(NULL, KL_TYPE_S32, KL_REFINE_NONE),
		     KL_TYPE_NONE);
	CHECK_EQ_INT(kl_type_refinement(NULL, KL_TYPE_BUILTIN_COUNT),
		     KL_REFINE_NONE);

	static const char text[] = "function %f(i32, s32, i64) -> i32 {\n"
				   "block0(v0: i32, v1: s32, v2: i64):\n"
				   "    v3 = iadd v1, v1\n"
				   "    v4 = iadd v2, v2\n"
				   "    return v0\n"
				   "}\n";
	kl_module *m;
	kl_func *f = parse_f(text, sizeof text - 1, &m);
	CHECK(f != NULL);
	kl_inst add = { f->values[3].def }, add64 = { f->values[4].def };
	kl_inst_remove(f, add);
	kl_inst_remove(f, add64);
	/* v3 (s32) may stand for v0 (i32), and takes its type */
	CHECK_EQ_INT(kl_value_set_alias(f, (kl_value){ 3 }, (kl_value){ 0 }),
		     KL_OK);
	CHECK_EQ_INT(kl_value_type(f, (kl_value){ 3 }), KL_TYPE_I32);
	/* v4 (i64) may not stand for v1 (s32) */
	CHECK_EQ_INT(kl_value_set_alias(f, (kl_value){ 4 }, (kl_value){ 1 }),
		     KL_ERR_INVALID);
	kl_builder b;
	kl_builder_init(&b, f);
	kl_builder_before(&b, (kl_inst){ f->blocks[f->first_block].last });
	/* an alias chain w -> v -> v1 (s32 throughout), then v aimed at v0
	 * (i32): v takes i32, w keeps s32, of the same class, and the
	 * function verifies (an alias must have its end's class) */
	kl_value v = kl_build_unary(&b, KL_OP_COPY, KL_TYPE_NONE,
				    (kl_value){ 1 });
	kl_value w = kl_build_unary(&b, KL_OP_COPY, KL_TYPE_NONE, v);
	kl_value y = kl_build_binary(&b, KL_OP_IADD, w, w);
	kl_inst_remove(f, kl_value_def_inst(f, w));
	CHECK_EQ_INT(kl_value_set_alias(f, w, v), KL_OK);
	kl_inst_remove(f, kl_value_def_inst(f, v));
	CHECK_EQ_INT(kl_value_set_alias(f, v, (kl_value){ 1 }), KL_OK);
	CHECK_EQ_INT(kl_value_set_alias(f, v, (kl_value){ 0 }), KL_OK);
	CHECK_EQ_INT(kl_value_type(f, v), KL_TYPE_I32);
	CHECK_EQ_INT(kl_value_type(f, w), KL_TYPE_S32);
	CHECK_EQ_INT(kl_value_type(f, y), KL_TYPE_S32);
	kl_diags d = { 0 };
	CHECK_EQ_INT(kl_verify_func(f, NULL, &d), KL_OK);
	kl_diags_free(&d);
	/* kl_value_set_type: a parameter and an iadd's result take another
	 * type of their class; not another class, an alias, a compare's
	 * result, a symbol address or a value out of range */
	kl_value cmp = kl_build_icmp(&b, KL_ICC_SLT, (kl_value){ 0 },
				     (kl_value){ 0 });
	kl_value sa = kl_build_symbol_addr(&b, kl_module_lookup(m, "f", 1));
	kl_value sum = kl_build_binary(&b, KL_OP_IADD, sa, sa);
	CHECK(kl_value_typable(f, (kl_value){ 0 }) && kl_value_typable(f, sum));
	CHECK(!kl_value_typable(f, cmp) && !kl_value_typable(f, sa) &&
	      !kl_value_typable(f, w));
	CHECK_EQ_INT(kl_value_set_type(f, (kl_value){ 0 }, KL_TYPE_U32), KL_OK);
	CHECK_EQ_INT(kl_value_type(f, (kl_value){ 0 }), KL_TYPE_U32);
	CHECK_EQ_INT(kl_value_set_type(f, sum, KL_TYPE_PTR), KL_OK);
	CHECK_EQ_INT(kl_value_set_type(f, sum, KL_TYPE_S32), KL_ERR_INVALID);
	CHECK_EQ_INT(kl_value_set_type(f, cmp, KL_TYPE_U8), KL_ERR_INVALID);
	CHECK_EQ_INT(kl_value_set_type(f, sa, KL_TYPE_PTR), KL_ERR_INVALID);
	CHECK_EQ_INT(kl_value_set_type(f, w, KL_TYPE_I32), KL_ERR_INVALID);
	CHECK_EQ_INT(kl_value_set_type(f, (kl_value){ 99999 }, KL_TYPE_I32),
		     KL_ERR_INVALID);
	CHECK_EQ_INT(kl_value_type(f, sum), KL_TYPE_PTR);
	CHECK_EQ_INT(kl_value_type(f, cmp), KL_TYPE_I8);
	CHECK_EQ_INT(kl_verify_func(f, NULL, &d), KL_OK);
	kl_diags_free(&d);
	kl_value c = kl_build_unary(&b, KL_OP_COPY, KL_TYPE_S32,
				    (kl_value){ 0 });
	CHECK_EQ_INT(kl_value_type(f, c), KL_TYPE_S32);
	CHECK_EQ_INT(kl_builder_status(&b), KL_OK);
	c = kl_build_unary(&b, KL_OP_COPY, KL_TYPE_I64, (kl_value){ 0 });
	CHECK_EQ_INT(c.id, KL_NONE);
	CHECK_EQ_INT(kl_builder_status(&b), KL_ERR_INVALID);
	kl_module_free(m);
}

/*
 * has_aliases says whether a function may hold an alias (promote skips
 * looking for them when not): false for a parsed function without alias
 * lines, true with one, and true once the API or a rewrite makes one.
 */
static void
test_has_aliases(void)
{
	static const char plain[] = "function %f(i32) -> i32 {\n"
				    "block0(v0: i32):\n"
				    "    v1 = iadd_imm v0, 7\n"
				    "    return v1\n"
				    "}\n";
	static const char aliased[] = "function %f(i32) -> i32 {\n"
				      "block0(v0: i32):\n"
				      "    v2 -> v0\n"
				      "    v1 = iadd_imm v2, 7\n"
				      "    return v1\n"
				      "}\n";
	kl_module *m;
	kl_func *f = parse_f(plain, sizeof plain - 1, &m);
	CHECK(f && !f->has_aliases);
	uint32_t v = func_new_value(f);
	CHECK_EQ_INT(kl_value_set_alias(f, (kl_value){ v }, (kl_value){ 0 }),
		     KL_OK);
	CHECK(f->has_aliases);
	kl_module_free(m);

	f = parse_f(aliased, sizeof aliased - 1, &m);
	CHECK(f && f->has_aliases);
	kl_module_free(m);

	/* The parser's working function starts each body afresh. */
	static const char two[] = "function %g(i32) -> i32 {\n"
				  "block0(v0: i32):\n"
				  "    v2 -> v0\n"
				  "    return v2\n"
				  "}\n"
				  "function %f(i32) -> i32 {\n"
				  "block0(v0: i32):\n"
				  "    return v0\n"
				  "}\n";
	f = parse_f(two, sizeof two - 1, &m);
	CHECK(f && !f->has_aliases);
	CHECK(kl_sym_func(m, kl_module_lookup(m, "g", 1))->has_aliases);
	kl_module_free(m);
}

/*
 * A parsed small function's tables sit in the module arena, sized
 * exactly (the value table with a little room). Growing them (as a pass does) keeps them in the arena while
 * they are small, then moves them out to malloc; the contents survive
 * both moves, and freeing the module frees each table once (ASan).
 */
/* Reset keeps the largest chunk, also when kl_arena_reserve made a
 * smaller one after it (it kept the newest, 128 bytes here, and the next
 * big allocation went back to malloc). */
static void
test_arena_reset_keeps_largest(void)
{
	kl_arena a = { 0 };
	kl_arena_alloc(&a, 128 * 1024); /* fills a chunk of 128 KB */
	kl_arena_reserve(&a, 128);      /* a new chunk, of 128 bytes */
	kl_arena_reset(&a);
	struct arena_chunk *kept = a.chunk;
	kl_arena_alloc(&a, 100000);
	CHECK(a.chunk == kept);
	kl_arena_free(&a);
}

static void
test_arena_tables_grow(void)
{
	static const char text[] = "function %f(i32) -> i32 {\n"
				   "block0(v0: i32):\n"
				   "    v1 = iadd_imm v0, 7\n"
				   "    jump block1(v1, v0)\n"
				   "\n"
				   "block1(v2: i32, v3: i32):\n"
				   "    return v2\n"
				   "}\n";
	kl_module *m;
	kl_func *f = parse_f(text, sizeof text - 1, &m);
	CHECK(f && (f->in_arena & TAB_VALUES) && (f->in_arena & TAB_INSTS));
	CHECK(f->pool.arena == &m->arena);
	uint32_t params = f->blocks[1].params;
	CHECK_EQ_INT(list_len(&f->pool, params), 2);

	/* A few new values, instructions and lists: still in the arena. */
	uint32_t v = func_new_value(f);
	value_define(f, v, VK_RESULT, KL_TYPE_I32, 0);
	uint32_t i = func_new_inst(f, KL_OP_IADD);
	uint32_t two[2] = { 0, 1 };
	uint32_t list = list_make(&f->pool, two, 2);
	for (int k = 0; k < 10; k++)
		list_push(&f->pool, &list, (uint32_t)k);
	CHECK((f->in_arena & TAB_VALUES) && (f->in_arena & TAB_INSTS) &&
	      (f->in_arena & TAB_NODES) && (f->in_arena & TAB_INST_LINES));
	CHECK(f->pool.arena == &m->arena);
	CHECK_EQ_INT(f->values[1].def, 0); /* v1 = iadd_imm, inst 0 */
	CHECK_EQ_INT(f->values[v].type, KL_TYPE_I32);
	CHECK_EQ_INT(f->insts[i].op, KL_OP_IADD);
	CHECK_EQ_INT(list_len(&f->pool, params), 2);
	CHECK_EQ_INT(list_get(&f->pool, params, 1), 3);
	CHECK_EQ_INT(list_len(&f->pool, list), 12);

	/* Past ARENA_TABLE_MAX bytes, out to malloc. */
	uint32_t nv = (uint32_t)(ARENA_TABLE_MAX / sizeof *f->values) + 1;
	while (f->nvalues < nv)
		func_new_value(f);
	while (f->ninsts < nv)
		func_new_inst(f, KL_OP_COPY);
	for (uint32_t k = 0; k < nv; k++)
		list_push(&f->pool, &list, k);
	CHECK(!(f->in_arena & TAB_VALUES) && !(f->in_arena & TAB_INSTS) &&
	      !(f->in_arena & TAB_NODES));
	CHECK(f->pool.arena == NULL);
	CHECK_EQ_INT(f->values[1].def, 0);
	CHECK_EQ_INT(f->values[v].type, KL_TYPE_I32);
	CHECK_EQ_INT(f->insts[i].op, KL_OP_IADD);
	CHECK_EQ_INT(list_get(&f->pool, params, 1), 3);
	CHECK_EQ_INT(list_len(&f->pool, list), 12 + nv);
	CHECK_EQ_INT(list_get(&f->pool, list, 11 + nv), nv - 1);
	kl_module_free(m);
}

/* Growth: at least doubling (amortised appends), at least 8, and exactly
 * the need when that is more (a table sized from a bound is not rounded
 * up to a power of two). */
static void
test_grown_cap(void)
{
	CHECK_EQ_INT(kl_grown_cap(0, 1), 8);
	CHECK_EQ_INT(kl_grown_cap(0, 8), 8);
	CHECK_EQ_INT(kl_grown_cap(8, 9), 16);
	CHECK_EQ_INT(kl_grown_cap(8, 100), 100);
	CHECK_EQ_INT(kl_grown_cap(100, 101), 200);
	CHECK_EQ_INT(kl_grown_cap(100, 100002), 100002);
	uint32_t cap = 0, grows = 0;
	for (uint32_t n = 1; n <= 100000; n++)
		if (n > cap) {
			cap = kl_grown_cap(cap, n);
			grows++;
		}
	CHECK(grows <= 15); /* 8, 16, ..., 131072 */
}

/* A need past what a table's 32-bit count holds stops keel as running
 * out of room does ("keel: table too large (FUNC at FILE:LINE)"), not as
 * an internal error, which is kept for bugs. (In a child: it aborts.) */
static void
grow_past_32_bits(void *ctx)
{
	(void)ctx;
	kl_grown_cap(8, UINT32_MAX);
}

static void
test_grown_cap_too_large(void)
{
	char msg[256];
	int st = unit_in_child(grow_past_32_bits, NULL, msg, sizeof msg);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT);
	CHECK(strncmp(msg, "keel: table too large (kl_grown_cap at ", 39) ==
	      0);
	CHECK(strstr(msg, "internal error") == NULL);
}

/* pool_make_room grows the pool once: lists that fit in the room it made
 * are built without moving the pool, and keep their elements. */
static void
test_pool_make_room(void)
{
	kl_pool p = { 0 };
	uint32_t l = 0;
	list_push(&p, &l, 5);
	pool_make_room(&p, 2 * 100 + 2 * 50 + 4);
	CHECK(p.cap >= p.len + 2 * 100 + 2 * 50 + 4);
	const uint32_t *data = p.data;
	uint32_t a = list_make(&p, NULL, 100), b = 0;
	for (uint32_t i = 0; i < 50; i++)
		list_push(&p, &b, i);
	CHECK(p.data == data);
	CHECK_EQ_INT(list_len(&p, a), 100);
	CHECK_EQ_INT(list_get(&p, b, 49), 49);
	CHECK_EQ_INT(list_get(&p, l, 0), 5);
	pool_free_all(&p);
}

/*
 * A big body's tables are handed over with the capacity the parser
 * reserved from its line count (one instruction or value a line), not
 * trimmed: a pass adding instructions and values fills that room without
 * moving the tables.
 */
static void
test_big_tables_keep_room(void)
{
	kl_buf text = { 0 };
	kl_buf_puts(&text, "function %big(i64) -> i64 {\nblock0(v0: i64):\n");
	uint32_t n = 40000; /* over 1 MB of tables: handed over, not copied */
	for (uint32_t i = 1; i <= n; i++)
		kl_buf_printf(&text, "    v%u = iadd_imm v%u, 1\n", i, i - 1);
	kl_buf_printf(&text, "    return v%u\n}\n", n);
	kl_module *m;
	kl_diags d = { 0 };
	CHECK_EQ_INT(kl_parse_module(text.data, text.len, NULL, &m, &d), KL_OK);
	kl_func *f = kl_sym_func(m, kl_module_lookup(m, "big", 3));
	CHECK(f && !(f->in_arena & TAB_INSTS));
	CHECK(f->insts_cap > f->ninsts && f->values_cap > f->nvalues);
	const kl_inst_data *insts = f->insts;
	const kl_value_data *values = f->values;
	func_new_inst(f, KL_OP_COPY);
	func_new_value(f);
	CHECK(f->insts == insts && f->values == values);
	kl_module_free(m);
	kl_diags_free(&d);
	kl_buf_free(&text);
}

/* kl_prefault is a hint: whatever the range (unaligned, small, empty,
 * already written), memory reads back what was written before it and
 * takes writes after it. */
static void
test_prefault_keeps_contents(void)
{
	size_t n = (size_t)1 << 20;
	unsigned char *p = kl_malloc(n);
	for (size_t k = 0; k < n / 2; k++)
		p[k] = (unsigned char)(k * 7);
	kl_prefault(p + 3, n - 5);
	kl_prefault(p, 100);
	kl_prefault(p, 0);
	bool same = true;
	for (size_t k = 0; k < n / 2; k++)
		same &= p[k] == (unsigned char)(k * 7);
	CHECK(same);
	memset(p + n / 2, 0xab, n / 2);
	CHECK(p[n - 1] == 0xab && p[n / 2] == 0xab);
	free(p);
}

/* kl_realloc_table faults in the part a table grows by (below 1 MB) or
 * moves it to huge pages (from 1 MB): either way the old bytes read back
 * and the new ones take writes, through a chain of growths across both. */
static void
test_realloc_table_keeps_contents(void)
{
	size_t sizes[] = { 100, 5000, 9000, 70000, 600000, 1100000, 3000000 };
	unsigned char *p = NULL;
	size_t old = 0;
	bool same = true;
	for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
		size_t n = sizes[s];
		p = kl_realloc_table(p, old, n);
		for (size_t k = 0; k < old; k++)
			same &= p[k] == (unsigned char)(k * 13 + 1);
		for (size_t k = old; k < n; k++)
			p[k] = (unsigned char)(k * 13 + 1);
		old = n;
	}
	CHECK(same);
	CHECK(p[old - 1] == (unsigned char)((old - 1) * 13 + 1));
	free(p);
}

/*
 * Entity numbers are limited by the input's size (the sparseness budget:
 * a million plus two per byte), not by a fixed cap, so a pass's output
 * numbering past ten million reads back. Above 2^31 - 2 is refused.
 */
static void
test_numbers_past_ten_million(void)
{
	const char *body = "function %f(i32) -> i32 {\n"
			   "block12000000(v12000000: i32):\n"
			   "    v12000001 = iadd_imm v12000000, 1\n"
			   "    return v12000001\n"
			   "}\n";
	/* A comment pads the input so the budget covers 24M entries (12M
	 * values and 12M blocks). */
	size_t pad = 13000000, len = pad + strlen(body);
	char *text = malloc(len + 1);
	memset(text, 'x', pad);
	text[0] = ';';
	text[pad - 1] = '\n';
	strcpy(text + pad, body);
	kl_module *m = NULL;
	kl_func *f = parse_f(text, len, &m);
	CHECK(f != NULL);
	if (f) {
		kl_buf out = { 0 };
		kl_print_func(f, NULL, &out);
		CHECK(out.data && strstr(out.data, "v12000001 = iadd_imm "
					 "v12000000, 1") != NULL);
		kl_buf_free(&out);
	}
	kl_module_free(m);

	/* Without the padding the same numbers are too sparse. */
	kl_diags d = { 0 };
	m = NULL;
	CHECK_EQ_INT(kl_parse_module(body, strlen(body), NULL, &m, &d),
		     KL_ERR_PARSE);
	CHECK(d.len >= 1 && strstr(d.items[0].message, "too sparse"));
	kl_diags_free(&d);
	kl_module_free(m);

	const char *huge = "function %f() {\nblock0:\n    v2147483647 = "
			   "iconst.i32 1\n    return\n}\n";
	m = NULL;
	CHECK_EQ_INT(kl_parse_module(huge, strlen(huge), NULL, &m, &d),
		     KL_ERR_PARSE);
	CHECK(d.len >= 1 && strstr(d.items[0].message, "too large (the "
				   "limit is 2147483646)"));
	kl_diags_free(&d);
	kl_module_free(m);
	free(text);
}

/* A NUL inside what reads as an opcode is the error, at its column: the
 * message was "unknown opcode 'ret'" (a file test cannot hold the NUL). */
static void
test_parse_nul_in_opcode(void)
{
	const char text[] = "function %f() {\nblock0:\n    ret\0urn\n}\n";
	kl_module *m = NULL;
	kl_diags d = { 0 };
	CHECK_EQ_INT(kl_parse_module(text, sizeof text - 1, NULL, &m, &d),
		     KL_ERR_PARSE);
	CHECK_EQ_INT(d.len, 1);
	if (d.len) {
		CHECK_EQ_STR(d.items[0].message,
			     "found byte 0x00 in an opcode");
		CHECK_EQ_INT(d.items[0].line, 3);
		CHECK_EQ_INT(d.items[0].col, 8);
	}
	kl_diags_free(&d);
	kl_module_free(m);
}

/* ---- printing in pieces ---- */

typedef struct pieces {
	kl_buf text;     /* all pieces, in order */
	uint32_t count;
	uint32_t small;  /* pieces but the last below KL_PRINT_CHUNK */
	uint32_t unended; /* pieces not ending a line */
	size_t last;
} pieces;

static void
take_piece(void *ctx, const char *text, size_t len)
{
	pieces *pc = ctx;
	if (pc->count && pc->last < KL_PRINT_CHUNK)
		pc->small++; /* the one before was not the last */
	pc->unended += len == 0 || text[len - 1] != '\n';
	kl_buf_append(&pc->text, text, len);
	pc->count++;
	pc->last = len;
}

/* One comment line after every instruction's line. */
static void
note_insts(void *ctx, const kl_func *f, kl_entity what, const char *line,
	   size_t len, kl_buf *out)
{
	(void)ctx;
	(void)f;
	(void)line;
	if (what.kind == KL_ENT_INST)
		kl_buf_printf(out, "; %zu bytes\n", len);
}

/* Tags every annotated line with the kind and number of its entity. */
static void
note_entities(void *ctx, const kl_func *f, kl_entity what, const char *line,
	      size_t len, kl_buf *out)
{
	(void)ctx;
	(void)f;
	(void)line;
	(void)len;
	kl_buf_printf(out, "; %d %u\n", (int)what.kind, what.id);
}

/* keel.h lists what the annotate callback is called with: an alias line
 * too (as its value), which the list left out, and a diagnostic without
 * a line renders as "FILE: error: ...", without ":0:0". */
static void
test_annotate_and_render_as_documented(void)
{
	static const char text[] = "function %f(i32) -> i32 {\n"
				   "block0(v0: i32):\n"
				   "    v1 = iadd v0, v0\n"
				   "    v3 -> v1\n"
				   "    return v3\n"
				   "}\n";
	kl_module *m = NULL;
	CHECK(kl_parse_module(text, sizeof text - 1, NULL, &m, NULL) == KL_OK);
	if (!m)
		return;
	kl_print_options o = { .annotate = note_entities };
	kl_buf out = { 0 };
	kl_print_func(kl_sym_func(m, kl_module_lookup(m, "f", 1)), &o, &out);
	CHECK_EQ_STR(out.data, "function %f(i32) -> i32 {\n; 1 0\n"
			       "block0(v0: i32):\n; 2 0\n"
			       "    v1 = iadd v0, v0\n; 3 0\n"
			       "    v3 -> v1\n; 4 3\n"
			       "    return v3\n; 3 1\n}\n");
	kl_diags d = { 0 };
	kl_diags_add(&d, KL_SEV_ERROR, 0, 0, "no line");
	kl_diags_add(&d, KL_SEV_ERROR, 2, 0, "no column");
	kl_buf_reset(&out);
	kl_diag_render(&d.items[0], "f.kl", text, sizeof text - 1, &out);
	kl_diag_render(&d.items[1], NULL, NULL, 0, &out);
	CHECK_EQ_STR(out.data, "f.kl: error: no line\n"
			       "<input>:2: error: no column\n");
	kl_diags_free(&d);
	kl_buf_free(&out);
	kl_buf_free(&out);
	kl_module_free(m);
}

/* Alignment 0 builds the text format's default, as the parser gives it to
 * an alloca written without one (it was refused, so a front end had to
 * work the default out); 3 is no power of two. */
static void
test_build_alloca_default_align(void)
{
	kl_module *m = kl_module_new();
	kl_type i32 = KL_TYPE_I32;
	kl_signature sig = { 0 };
	kl_func *f = NULL;
	CHECK_EQ_INT(kl_module_add_func(m, "f", 1, &sig, &f), KL_OK);
	if (!f)
		return;
	kl_builder b;
	kl_builder_init(&b, f);
	kl_block entry = kl_func_new_block(f);
	kl_func_append_block(f, entry);
	kl_builder_at_end(&b, entry);
	kl_value size = kl_build_iconst(&b, i32, 8);
	const uint32_t sizes[] = { 1, 3, 4, 12, 16, 100 };
	for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
		CHECK(kl_build_alloca(&b, sizes[k], 0).id != KL_NONE);
	CHECK(kl_build_alloca_dyn(&b, size, 0).id != KL_NONE);
	kl_build_return(&b, NULL, 0);
	CHECK_EQ_INT(kl_builder_status(&b), KL_OK);
	kl_buf out = { 0 };
	kl_print_func(f, NULL, &out);
	CHECK_EQ_STR(out.data, "function %f() {\n"
			       "block0:\n"
			       "    v0 = iconst.i32 8\n"
			       "    v1 = alloca 1, align 1\n"
			       "    v2 = alloca 3, align 4\n"
			       "    v3 = alloca 4, align 4\n"
			       "    v4 = alloca 12, align 16\n"
			       "    v5 = alloca 16, align 16\n"
			       "    v6 = alloca 100, align 16\n"
			       "    v7 = alloca_dyn v0, align 16\n"
			       "    return\n"
			       "}\n");
	kl_builder_at_end(&b, entry);
	CHECK_EQ_INT(kl_build_alloca(&b, 4, 3).id, KL_NONE);
	CHECK_EQ_INT(kl_builder_status(&b), KL_ERR_RANGE);
	kl_buf_free(&out);
	kl_module_free(m);
}

/*
 * With a flush, the printer hands out the same text as without, in
 * pieces of at least KL_PRINT_CHUNK bytes that end lines (the last may
 * be shorter), and leaves its buffer empty; annotations go with them.
 */
static void
test_print_in_pieces(void)
{
	kl_buf src = { 0 };
	kl_buf_puts(&src, "declare %g(i64) -> i64\n\nfunction %small() {\n"
			  "block0:\n    return\n}\n\nfunction %big(i64) -> i64 {\n"
			  "block0(v0: i64):\n    jump block1(v0)\n");
	for (uint32_t b = 1; b < 3000; b++)
		kl_buf_printf(&src, "\nblock%u(v%u: i64):\n    v%u = iadd_imm "
				    "v%u, %u\n    jump block%u(v%u)\n",
			      b, 2 * b, 2 * b + 1, 2 * b, b, b + 1, 2 * b + 1);
	kl_buf_printf(&src, "\nblock3000(v6000: i64):\n    return v6000\n}\n");
	kl_module *m = NULL;
	kl_diags d = { 0 };
	CHECK_EQ_INT(kl_parse_module(src.data, src.len, NULL, &m, &d), KL_OK);
	if (!m)
		return;
	for (int annotated = 0; annotated < 2; annotated++) {
		kl_print_options whole_opts = { 0 };
		if (annotated)
			whole_opts.annotate = note_insts;
		kl_buf whole = { 0 };
		kl_print_module(m, &whole_opts, &whole);
		CHECK(whole.len > 2 * KL_PRINT_CHUNK);
		if (!annotated)
			CHECK_EQ_STR(whole.data, src.data);

		pieces pc = { 0 };
		kl_print_options o = whole_opts;
		o.flush = take_piece;
		o.flush_ctx = &pc;
		kl_buf out = { 0 };
		kl_print_module(m, &o, &out);
		CHECK_EQ_INT(out.len, 0);
		CHECK_EQ_STR(pc.text.data, whole.data);
		CHECK(pc.count >= 2);
		CHECK_EQ_INT(pc.small, 0);
		CHECK_EQ_INT(pc.unended, 0);

		/* kl_print_func: the function alone, all of it handed out. */
		kl_func *big = kl_sym_func(m, (kl_sym){ 2 });
		pieces pf = { 0 };
		o.flush_ctx = &pf;
		kl_print_func(big, &o, &out);
		CHECK_EQ_INT(out.len, 0);
		CHECK(pf.count >= 2 && pf.text.len > 2 * KL_PRINT_CHUNK);
		CHECK(pf.text.data &&
		      strstr(whole.data, pf.text.data) != NULL);
		kl_buf_free(&pf.text);
		kl_buf_free(&pc.text);
		kl_buf_free(&out);
		kl_buf_free(&whole);
	}
	kl_diags_free(&d);
	kl_module_free(m);
	kl_buf_free(&src);
}

/* Integers print the same at every width up to 64 bits, 63 included
 * (its bound was once 1 << 63, undefined for int64_t: UBSan builds
 * catch it), small ones in decimal, others as grouped hex. */
static void
test_fmt_int_widths(void)
{
	kl_buf out = { 0 };
	for (unsigned bits = 1; bits <= 64; bits++) {
		kl_buf_reset(&out);
		fmt_int(&out, -1, bits);
		CHECK_EQ_STR(out.data, "-1");
		kl_buf_reset(&out);
		fmt_int(&out, 9999, bits);
		if (bits >= 15)
			CHECK_EQ_STR(out.data, "9999");
	}
	kl_buf_reset(&out);
	fmt_int(&out, 10000, 63);
	CHECK_EQ_STR(out.data, "0x2710");
	kl_buf_reset(&out);
	fmt_int(&out, INT64_MIN, 64);
	CHECK_EQ_STR(out.data, "0x8000_0000_0000_0000");
	kl_buf_free(&out);
}

/* A destination whose last argument kl_block_remove_param takes away
 * goes back to its one-word form (its list goes back to the pool), as
 * one built without arguments has. */
static void
test_remove_last_param_gives_block_word(void)
{
	kl_module *m = kl_module_new();
	kl_func *f = new_func(m, "f");
	kl_block b0 = kl_func_new_block(f), b1 = kl_func_new_block(f);
	kl_func_append_block(f, b0);
	kl_func_append_block(f, b1);
	kl_block_append_param(f, b1, KL_TYPE_I32);
	kl_builder bld;
	kl_builder_init(&bld, f);
	kl_builder_at_end(&bld, b0);
	kl_value c = kl_build_iconst(&bld, KL_TYPE_I32, 7);
	kl_inst j = kl_build_jump(&bld, (kl_block_call){ b1, &c, 1 });
	CHECK_EQ_INT(kl_builder_status(&bld), KL_OK);
	CHECK(!(f->insts[j.id].w[0] & DEST_BLOCK));
	CHECK_EQ_INT(kl_block_remove_param(f, b1, 0), KL_OK);
	CHECK_EQ_INT(f->insts[j.id].w[0], dest_word_of_block(b1.id));
	CHECK_EQ_INT(kl_inst_dest(f, j, 0).id, b1.id);
	CHECK_EQ_INT(kl_inst_dest_num_args(f, j, 0), 0);
	kl_module_free(m);
}

/* keel.h: kl_inst_append_dest_arg is KL_ERR_RANGE at 2^27 - 2
 * arguments, before the list grows (list_extend would end the process).
 * The list's header (and the pool's length, which a list must not pass)
 * is made to say the block and 2^27 - 3 arguments, the most there may
 * be, rather than filled; nothing past the list's first words is read. */
static void
test_append_dest_arg_limit(void)
{
	kl_func *f;
	kl_block b0;
	kl_builder bld;
	kl_module *m = one_block_func(&f, &b0, &bld);
	kl_value c = kl_build_iconst(&bld, KL_TYPE_I32, 7);
	kl_inst j = kl_build_jump(&bld, (kl_block_call){ b0, &c, 1 });
	CHECK_EQ_INT(kl_builder_status(&bld), KL_OK);
	uint32_t list = f->insts[j.id].w[0];
	CHECK(!(list & DEST_BLOCK));
	uint32_t *header = &f->pool.data[list - 1];
	uint32_t saved = *header, pool_len = f->pool.len;
	const uint32_t len_mask = LIST_MAX_LEN + 1; /* pool.c's LEN_MASK */
	*header = (saved & ~len_mask) | LIST_MAX_LEN;
	f->pool.len = list + LIST_MAX_LEN; /* (dest_read's bound) */
	CHECK_EQ_INT(kl_inst_dest_num_args(f, j, 0), LIST_MAX_LEN - 1);
	CHECK_EQ_INT(kl_inst_append_dest_arg(f, j, 0, c), KL_ERR_RANGE);
	CHECK_EQ_INT(*header, (saved & ~len_mask) | LIST_MAX_LEN);
	*header = saved;
	f->pool.len = pool_len;
	CHECK_EQ_INT(kl_inst_append_dest_arg(f, j, 0, c), KL_OK);
	CHECK_EQ_INT(kl_inst_dest_num_args(f, j, 0), 2);
	kl_module_free(m);
}

/* keel.h: kl_block_append_param gives none when b has 2^27 - 2
 * parameters already, and adds no value (list_push would end the
 * process). The parameter list's header is made to say so. */
static void
test_append_param_limit(void)
{
	kl_module *m = kl_module_new();
	kl_func *f = new_func(m, "f");
	kl_block b0 = kl_func_new_block(f);
	kl_func_append_block(f, b0);
	CHECK(kl_block_append_param(f, b0, KL_TYPE_I32).id != KL_NONE);
	uint32_t list = f->blocks[b0.id].params;
	uint32_t *header = &f->pool.data[list - 1];
	uint32_t saved = *header, values = kl_func_value_bound(f);
	const uint32_t len_mask = LIST_MAX_LEN + 1; /* pool.c's LEN_MASK */
	*header = (saved & ~len_mask) | LIST_MAX_LEN;
	CHECK_EQ_INT(kl_block_append_param(f, b0, KL_TYPE_I32).id, KL_NONE);
	CHECK_EQ_INT(kl_func_value_bound(f), values);
	*header = saved;
	CHECK(kl_block_append_param(f, b0, KL_TYPE_I32).id != KL_NONE);
	CHECK_EQ_INT(kl_block_num_params(f, b0), 2);
	kl_module_free(m);
}

/* Interning tells signatures apart by every part, variadic and results
 * included, also when one's probe in the table passes the other (the
 * hash tells most apart before they are compared, so many shapes are
 * added for some probes to meet). */
static void
test_signatures_differ_in_every_part(void)
{
	kl_module *m = kl_module_new();
	enum { N = 64 };
	kl_type t[N];
	for (uint32_t k = 0; k < N; k++)
		t[k] = KL_TYPE_I32;
	const kl_type f64 = KL_TYPE_F64;
	uint32_t id[N][4];
	for (uint32_t k = 0; k < N; k++) {
		id[k][0] = module_add_sig(m, t, k, t, 1, false);
		id[k][1] = module_add_sig(m, t, k, t, 1, true);
		id[k][2] = module_add_sig(m, t, k, &f64, 1, false);
		id[k][3] = module_add_sig(m, t, k, &f64, 1, true);
	}
	CHECK_EQ_INT(m->nsigs, 4 * N);
	for (uint32_t k = 0; k < N; k++) {
		for (uint32_t v = 0; v < 4; v++) {
			kl_signature s = module_sig(m, id[k][v]);
			CHECK_EQ_INT(s.num_params, k);
			CHECK_EQ_INT(s.variadic, v & 1);
			CHECK_EQ_INT(s.results[0], v & 2 ? f64 : KL_TYPE_I32);
		}
		/* and each is found again */
		CHECK_EQ_INT(module_add_sig(m, t, k, t, 1, true), id[k][1]);
		CHECK_EQ_INT(module_add_sig(m, t, k, &f64, 1, false),
			     id[k][2]);
	}
	kl_module_free(m);
}

/* An _imm instruction's immediate is kept inline only as far as it fits
 * an int32_t: just past either end it goes to the pool, and every one
 * reads back as built. */
static void
test_imm_inline_bounds(void)
{
	kl_func *f;
	kl_block b;
	kl_builder bld;
	kl_module *m = one_block_func(&f, &b, &bld);
	kl_value x = kl_build_iconst(&bld, KL_TYPE_I64, 0);
	const int64_t imms[] = { INT32_MAX, INT32_MIN,
				 (int64_t)INT32_MAX + 1,
				 (int64_t)INT32_MIN - 1 };
	for (uint32_t k = 0; k < 4; k++) {
		kl_value v = kl_build_binary_imm(&bld, KL_OP_IADD_IMM, x,
						 imms[k]);
		CHECK_EQ_INT(kl_inst_imm(f, kl_value_def_inst(f, v)), imms[k]);
		kl_value c = kl_build_icmp_imm(&bld, KL_ICC_EQ, x, imms[k]);
		CHECK_EQ_INT(kl_inst_imm(f, kl_value_def_inst(f, c)), imms[k]);
	}
	CHECK_EQ_INT(kl_builder_status(&bld), KL_OK);
	CHECK_EQ_INT(f->nconsts, 4);
	kl_module_free(m);
}

int
main(void)
{
	UNIT_RUN(test_parse_nul_in_opcode);
	UNIT_RUN(test_pool_bin_sizes);
	UNIT_RUN(test_arena_reset_keeps_largest);
	UNIT_RUN(test_pool_bins_and_growth);
	UNIT_RUN(test_pool_reuse_after_free);
	UNIT_RUN(test_pool_free_lists);
	UNIT_RUN(test_pool_truncate);
	UNIT_RUN(test_pool_many_lists);
	UNIT_RUN(test_layout_insert_between);
	UNIT_RUN(test_layout_renumber_is_local);
	UNIT_RUN(test_names);
	UNIT_RUN(test_symbols_across_rehashes);
	UNIT_RUN(test_builder_builds_what_the_parser_reads);
	UNIT_RUN(test_builder_operand_order);
	UNIT_RUN(test_builder_errors_are_values);
	UNIT_RUN(test_builder_immediates);
	UNIT_RUN(test_signatures_interned);
	UNIT_RUN(test_destination_words);
	UNIT_RUN(test_arena_tables_grow);
	UNIT_RUN(test_value_room);
	UNIT_RUN(test_has_aliases);
	UNIT_RUN(test_grown_cap);
	UNIT_RUN(test_pool_make_room);
	UNIT_RUN(test_big_tables_keep_room);
	UNIT_RUN(test_prefault_keeps_contents);
	UNIT_RUN(test_realloc_table_keeps_contents);
	UNIT_RUN(test_numbers_past_ten_million);
	UNIT_RUN(test_build_alloca_default_align);
	UNIT_RUN(test_print_in_pieces);
	UNIT_RUN(test_annotate_and_render_as_documented);
	UNIT_RUN(test_fmt_int_widths);
	UNIT_RUN(test_alias_cycles);
	UNIT_RUN(test_buf_reserve_huge);
	UNIT_RUN(test_buf_printf_lengths);
	UNIT_RUN(test_buf_put_entity_digits);
	UNIT_RUN(test_grown_cap_too_large);
	UNIT_RUN(test_null_names);
	UNIT_RUN(test_lists_too_long);
	UNIT_RUN(test_remove_last_param_gives_block_word);
	UNIT_RUN(test_append_dest_arg_limit);
	UNIT_RUN(test_append_param_limit);
	UNIT_RUN(test_signatures_differ_in_every_part);
	UNIT_RUN(test_imm_inline_bounds);
	UNIT_RUN(test_refined_types);
	return unit_report("ir");
}
