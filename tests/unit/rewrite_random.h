/*
 * rewrite_random.h -- random edits through the rewriting API, and the
 * agreements that must hold after every one of them. Shared by the unit
 * test test_rewrite_random.c (fixed seeds, in make check) and the
 * libFuzzer target fuzz/fuzz_rewrite.c (any seeds).
 *
 * Each edit is a call of the public API with entities picked at random,
 * out of range ones included: remove, move or copy an instruction, set an
 * operand, a branch argument or a whole destination, append an argument,
 * make a value an alias or resolve every alias, add or remove a block
 * parameter (or several at once), take a block out, place one again
 * (before or after another) or move one, make a new entry block, add a
 * signature reference, build an instruction. Most
 * edits leave IR that does not verify, which is the point: whatever the
 * IR, the library must not crash, and
 *   - IR that verifies prints as text that parses, verifies, prints the
 *     same bytes and runs (a little way) to the same outcome; and so
 *     does its text renumbered (renumbering it again changes nothing);
 *   - IR that does not verify prints as text that fails to parse or to
 *     verify: the printer never turns a broken function into a good one;
 *   - every use kl_uses lists names an operand that stands for its value;
 *   - every parameter of a placed block says where it is
 *     (kl_value_param_index);
 *   - every analysis runs on every function, broken or not (the sanitizer
 *     builds see what it reads), and promote turns IR that verifies into
 *     IR that still does.
 * A failed agreement is reported through rr_fail, which the includer
 * defines (a unit test's failure, or abort() for the fuzzer).
 */
#ifndef KEEL_REWRITE_RANDOM_H
#define KEEL_REWRITE_RANDOM_H

#include <stdint.h>
#include <string.h>

#include "all_analyses.h"
#include "keel.h"
#include "rng.h"

static void rr_fail(const char *what, const char *text);

typedef struct rr_rng {
	uint64_t s;
} rr_rng;

/* A number below n (0 when n is 0). */
static uint32_t
rr_below(rr_rng *r, uint32_t n)
{
	return rng_below(&r->s, n);
}

/* Entities to edit: nearly always in range, now and then one past. */
static kl_value
rr_value(const kl_func *f, rr_rng *r)
{
	return (kl_value){ rr_below(r, kl_func_value_bound(f) + 1) };
}

static kl_inst
rr_inst(const kl_func *f, rr_rng *r)
{
	return (kl_inst){ rr_below(r, kl_func_inst_bound(f) + 1) };
}

static kl_block
rr_block(const kl_func *f, rr_rng *r)
{
	return (kl_block){ rr_below(r, kl_func_block_bound(f) + 1) };
}

/* One random edit of f. */
static void
rr_edit(kl_func *f, rr_rng *r)
{
	kl_inst i = rr_inst(f, r);
	kl_block blk = rr_block(f, r);
	kl_value v = rr_value(f, r);
	uint32_t nd = kl_inst_num_dests(f, i);
	switch (rr_below(r, 21)) {
	case 0:
		kl_inst_remove(f, i);
		break;
	case 1:
		kl_value_set_alias(f, v, rr_value(f, r));
		break;
	case 2:
		kl_inst_set_arg(f, i, rr_below(r, kl_inst_num_args(f, i) + 1),
				v);
		break;
	case 3: {
		uint32_t d = rr_below(r, nd + 1);
		kl_inst_set_dest_arg(f, i, d,
				     rr_below(r, kl_inst_dest_num_args(f, i,
								       d) + 1),
				     v);
		break;
	}
	case 4:
		kl_inst_append_dest_arg(f, i, rr_below(r, nd + 1), v);
		break;
	case 5:
		kl_inst_move_before(f, i, rr_inst(f, r));
		break;
	case 6:
		kl_inst_move_to_end(f, i, blk);
		break;
	case 7: {
		kl_inst c = kl_inst_clone(f, i);
		if (c.id != KL_NONE && rr_below(r, 2))
			kl_inst_move_before(f, c, rr_inst(f, r));
		break;
	}
	case 8:
		kl_func_remove_block(f, blk);
		break;
	case 9:
		kl_block_remove_param(f, blk,
				      rr_below(r, kl_block_num_params(f, blk) +
							  1));
		break;
	case 10:
		kl_block_append_param(f, blk, rr_below(r, KL_TYPE_BUILTIN_COUNT +
							      1));
		break;
	case 11: {
		kl_builder b;
		kl_builder_init(&b, f);
		kl_builder_before(&b, i);
		if (rr_below(r, 2))
			kl_build_iconst(&b, KL_TYPE_I32, (int64_t)rr_below(r, 9));
		else
			kl_build_binary(&b, KL_OP_IADD, v, rr_value(f, r));
		break;
	}
	case 12: {
		kl_value args[2] = { v, rr_value(f, r) };
		kl_inst_set_dest(f, i, rr_below(r, nd + 1),
				 (kl_block_call){ blk, args, rr_below(r, 3) });
		break;
	}
	case 13:
		kl_func_move_block(f, blk,
				   rr_below(r, 4) ? rr_block(f, r) : KL_NO_BLOCK);
		break;
	case 14:
		/* (a removed block placed again, empty: the entry too) */
		kl_func_insert_block_before(f, blk, rr_block(f, r));
		break;
	case 15: {
		/* resolving aliases keeps IR that verifies verified */
		bool ok = kl_verify_func(f, NULL, NULL) == KL_OK;
		kl_func_resolve_aliases(f);
		if (ok && kl_verify_func(f, NULL, NULL) != KL_OK)
			rr_fail("verified IR no longer verifies after "
				"kl_func_resolve_aliases", "");
		break;
	}
	case 16:
		/* (rarely: each is a block more, and the entry no longer is) */
		if (rr_below(r, 4) == 0)
			kl_func_make_entry(f);
		break;
	case 17: {
		/* a few values at once, repeats and non-parameters included */
		kl_value some[3] = { v, rr_value(f, r), rr_value(f, r) };
		kl_func_remove_params(f, some, 1 + rr_below(r, 3));
		break;
	}
	case 18:
		kl_func_insert_block_after(f, blk, rr_block(f, r));
		break;
	case 19: {
		kl_type types[2] = { rr_below(r, KL_TYPE_BUILTIN_COUNT + 1),
				     KL_TYPE_I32 };
		kl_signature sig = { .params = types,
				     .num_params = rr_below(r, 3),
				     .results = types + 1,
				     .num_results = rr_below(r, 2) };
		kl_func_add_sigref(f, rr_below(r, 4) ? &sig : NULL);
		break;
	}
	default: {
		/* (a removed block placed again, empty) */
		kl_func_append_block(f, blk);
		break;
	}
	}
}

/* Does operand a stand for a value a use list has a place for (through
 * aliases, to a value with a type: not a hole, a cycle or a number out
 * of range)? */
static bool
rr_listed(const kl_func *f, kl_value a)
{
	kl_value r = kl_value_resolve(f, a);
	return r.id != KL_NONE && kl_value_type(f, r) != KL_TYPE_NONE;
}

/* Every use listed stands where it says, for the value it is listed
 * under, and every operand of a placed instruction is listed. */
static void
rr_check_uses(const kl_func *f, kl_uses *u)
{
	kl_uses_compute(u, f);
	uint64_t operands = 0, listed = 0;
	for (kl_block b = kl_func_first_block(f); b.id != KL_NONE;
	     b = kl_block_next(f, b))
		for (kl_inst i = kl_block_first_inst(f, b); i.id != KL_NONE;
		     i = kl_inst_next(f, i)) {
			for (uint32_t k = 0; k < kl_inst_num_args(f, i); k++)
				operands += rr_listed(f, kl_inst_arg(f, i, k));
			for (uint32_t d = 0; d < kl_inst_num_dests(f, i); d++)
				for (uint32_t k = 0;
				     k < kl_inst_dest_num_args(f, i, d); k++)
					operands += rr_listed(
						f, kl_inst_dest_arg(f, i, d, k));
		}
	for (uint32_t v = 0, nv = kl_func_value_bound(f); v < nv; v++) {
		uint32_t n;
		const kl_use *use = kl_uses_of(u, f, (kl_value){ v }, &n);
		kl_value want = kl_value_resolve(f, (kl_value){ v });
		for (uint32_t k = 0; k < n; k++) {
			kl_value at = use[k].dest == KL_NONE
					      ? kl_inst_arg(f, use[k].inst,
							    use[k].index)
					      : kl_inst_dest_arg(f, use[k].inst,
								 use[k].dest,
								 use[k].index);
			if (kl_value_resolve(f, at).id != want.id)
				rr_fail("a use listed for another value", NULL);
		}
		if (want.id == v) /* (an alias answers for its end) */
			listed += n;
	}
	if (listed != operands)
		rr_fail("use lists miss operands or list too many", NULL);
}

/* The outcome of calling each function with zero arguments, briefly, as
 * text (the same module gives the same bytes). */
static void
rr_runs(const kl_module *m, kl_buf *out)
{
	kl_interp_options opts = { 0 };
	opts.fuel = 2000;
	opts.max_memory = 1 << 20;
	kl_interp *it = kl_interp_new(m, &opts);
	for (uint32_t s = 0, ns = kl_module_num_syms(m); s < ns; s++) {
		const kl_func *f = kl_sym_func(m, (kl_sym){ s });
		if (!f)
			continue;
		uint64_t args[8] = { 0 };
		kl_signature sig = kl_func_signature(f);
		kl_run_result res;
		if (sig.num_params > 8 ||
		    kl_interp_call(it, (kl_sym){ s }, args, sig.num_params,
				   &res) != KL_OK)
			continue;
		kl_buf_printf(out, "%u: status %d, %llu executed", s,
			      (int)res.status,
			      (unsigned long long)res.executed);
		if (res.status == KL_RUN_RETURNED)
			for (uint32_t k = 0; k < res.num_results; k++)
				kl_buf_printf(out, " %llx",
					      (unsigned long long)res.results[k]);
		kl_buf_printf(out, "\n");
		kl_interp_reset(it);
	}
	kl_interp_free(it);
}

/* Every parameter of a placed block says where it is. */
static void
rr_check_params(const kl_func *f)
{
	for (kl_block b = kl_func_first_block(f); b.id != KL_NONE;
	     b = kl_block_next(f, b))
		for (uint32_t k = 0; k < kl_block_num_params(f, b); k++) {
			kl_block at = KL_NO_BLOCK;
			if (kl_value_param_index(f, kl_block_param(f, b, k),
						 &at) != k ||
			    at.id != b.id)
				rr_fail("a parameter's place is wrong", NULL);
		}
}

/* Renumbered, verified IR prints as text that parses, verifies, prints
 * the same renumbered again and runs as the IR does (run, its runs). */
static void
rr_check_renumbered(const kl_module *m, const kl_buf *run)
{
	kl_print_options ro = { .renumber = true };
	kl_buf text = { 0 }, text2 = { 0 }, run2 = { 0 };
	kl_print_module(m, &ro, &text);
	kl_module *again = NULL;
	if (kl_parse_module(text.data ? text.data : "", text.len, NULL,
			    &again, NULL) != KL_OK ||
	    kl_verify_module(again, NULL) != KL_OK)
		rr_fail("renumbered text does not parse or verify", text.data);
	kl_print_module(again, &ro, &text2);
	if (text2.len != text.len || memcmp(text2.data, text.data, text.len))
		rr_fail("renumbered text printed again differs", text.data);
	rr_runs(again, &run2);
	if (run2.len != run->len ||
	    (run->len && memcmp(run2.data, run->data, run->len)))
		rr_fail("renumbered text runs otherwise than the IR",
			text.data);
	kl_module_free(again);
	kl_buf_free(&text);
	kl_buf_free(&text2);
	kl_buf_free(&run2);
}

/* IR that verifies (again, a module parsed from m's text) still does
 * after promote, and prints as text that parses. */
static void
rr_check_promoted(kl_module *again)
{
	kl_promote_module(again, NULL);
	kl_buf text = { 0 };
	kl_print_module(again, NULL, &text);
	if (kl_verify_module(again, NULL) != KL_OK)
		rr_fail("IR that verifies does not after promote", text.data);
	kl_module *back = NULL;
	if (kl_parse_module(text.data ? text.data : "", text.len, NULL,
			    &back, NULL) != KL_OK)
		rr_fail("promoted IR prints as text that does not parse",
			text.data);
	kl_module_free(back);
	kl_buf_free(&text);
}

/* The agreements of the opening comment, for module m as it is now. */
static void
rr_check(const kl_module *m, kl_uses *u)
{
	bool ok = kl_verify_module(m, NULL) == KL_OK;
	kl_buf text = { 0 };
	kl_print_module(m, NULL, &text);
	kl_module *again = NULL;
	bool parsed = kl_parse_module(text.data ? text.data : "", text.len,
				      NULL, &again, NULL) == KL_OK;
	bool again_ok = parsed && kl_verify_module(again, NULL) == KL_OK;
	if (ok && !again_ok)
		rr_fail("IR that verifies printed as text that does not "
			"parse or verify", text.data);
	if (!ok && again_ok)
		rr_fail("IR that does not verify printed as text that does",
			text.data);
	if (ok && again_ok) {
		kl_buf text2 = { 0 }, run1 = { 0 }, run2 = { 0 };
		kl_print_module(again, NULL, &text2);
		if (text2.len != text.len ||
		    memcmp(text2.data, text.data, text.len) != 0)
			rr_fail("text printed again differs", text.data);
		rr_runs(m, &run1);
		rr_runs(again, &run2);
		if (run1.len != run2.len ||
		    (run1.len && memcmp(run1.data, run2.data, run1.len)))
			rr_fail("the text runs otherwise than the IR",
				text.data);
		rr_check_renumbered(m, &run1);
		rr_check_promoted(again);
		kl_buf_free(&text2);
		kl_buf_free(&run1);
		kl_buf_free(&run2);
	}
	for (uint32_t s = 0, ns = kl_module_num_syms(m); s < ns; s++) {
		const kl_func *f = kl_sym_func(m, (kl_sym){ s });
		if (f) {
			rr_check_uses(f, u);
			rr_check_params(f);
			all_analyses a;
			kl_buf out = { 0 };
			all_analyses_run(&a, f, &out);
			all_analyses_free(&a);
			kl_buf_free(&out);
		}
	}
	kl_module_free(again);
	kl_buf_free(&text);
}

/* Parse text, then edit its functions at random from seed, checking after
 * every edit; up to nedits edits. Text that does not parse is skipped. */
static void
rr_run(const char *text, size_t len, uint64_t seed, uint32_t nedits)
{
	kl_module *m = NULL;
	if (kl_parse_module(text, len, NULL, &m, NULL) != KL_OK)
		return;
	rr_rng r = { seed * 0x9E3779B97F4A7C15ull + 1 };
	if (r.s == 0) /* (xorshift's one fixed point) */
		r.s = 1;
	kl_uses *u = kl_uses_new();
	uint32_t ns = kl_module_num_syms(m);
	for (uint32_t e = 0; e < nedits && ns; e++) {
		kl_func *f = kl_sym_func(m, (kl_sym){ rr_below(&r, ns) });
		if (!f)
			continue;
		rr_edit(f, &r);
		rr_check(m, u);
	}
	kl_uses_free(u);
	kl_module_free(m);
}

#endif
