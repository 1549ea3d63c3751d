/*
 * test_dse.c -- the dse pass through the API: broken input does not
 * crash it, the registry names its counter, an address 100,000 links of
 * iadd_imm from its alloca is followed without recursion, and a chain
 * of 20,000 blocks each storing to one place keeps only the last store.
 * tests/filetests/dse has every rule.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keel.h"
#include "parsed.h"
#include "pass_checks.h"
#include "unit.h"

/* Addresses defined nowhere or later, a cycle of iadd_imms, an alias
 * cycle as an address and as a stored value, a block without a
 * terminator, a store into a function. */
static void
test_broken_input_does_not_crash(void)
{
	check_broken_input(kl_dse_func,
			   "data %d = { i64 0 }\n"
			   "function %f(i64) -> i64 {\n"
			   "block0(v0: i64):\n"
			   "    v1 = iadd_imm.i64 v2, 8\n"
			   "    v2 = iadd_imm.i64 v1, 8\n"
			   "    store v0, v1\n"
			   "    store v0, v2+4\n"
			   "    store v0, v9\n"
			   "    v6 -> v7\n"
			   "    v7 -> v6\n"
			   "    store v6, v7\n"
			   "    store v0, v6\n"
			   "    v3 = alloca 8\n"
			   "    v4 = iadd_imm v3, 0x7fff_ffff\n"
			   "    store v0, v4\n"
			   "    store v0, v4+0x7fff_ffff\n"
			   "    v5 = symbol_addr %f\n"
			   "    store v0, v5\n"
			   "    store v0, v5\n"
			   "    brif v0, block1, block2\n"
			   "\n"
			   "block1:\n"
			   "    v9 = symbol_addr %d\n"
			   "    store v0, v9-8\n"
			   "\n"
			   "block2:\n"
			   "    v10 = load.i64 v1\n"
			   "    store v10, v3\n"
			   "    return v10\n"
			   "}\n");
}

static void
test_empty_function(void)
{
	check_empty_function(kl_dse_func, "stores");
}

static void
test_registry_names_the_counters(void)
{
	check_registry("dse", kl_dse_func,
		       (const char *const[]){ "stores", NULL });
}

/* v1 = alloca; v2 = v1 + 1; ... v(N+1) = v(N) + 1: a store at v1+N
 * and two through the chain's end, then a load there: the first two are
 * dead, the first only if the chain was followed to its alloca. */
static void
test_long_address_chain(void)
{
	enum { N = 100000 };
	kl_buf text = { 0 };
	kl_buf_puts(&text, "function %f(i64) -> i64 {\nblock0(v0: i64):\n"
			   "    v1 = alloca 200000\n    store v0, v1+100000\n");
	for (int k = 2; k <= N + 1; k++)
		kl_buf_printf(&text, "    v%d = iadd_imm v%d, 1\n", k, k - 1);
	kl_buf_printf(&text, "    store v0, v%d\n    store v0, v%d\n"
			     "    v%d = load.i64 v%d\n    return v%d\n}\n",
		      N + 1, N + 1, N + 2, N + 1, N + 2);
	uint64_t n = counted_on_f(kl_dse_func, text.data, text.len, "stores",
					  NULL);
	CHECK_EQ_INT(n, 2);
	kl_buf_free(&text);
}

/* block0 -> block1 -> ... each storing v0 to %d: every store but the
 * last is overwritten on the only way on. */
static void
test_long_block_chain(void)
{
	enum { N = 20000 };
	kl_buf text = { 0 };
	kl_buf_puts(&text, "data %d = { i64 0 }\n"
			   "function %f(i64) -> i64 {\nblock0(v0: i64):\n"
			   "    v1 = symbol_addr %d\n    jump block1\n");
	for (int k = 1; k <= N; k++)
		kl_buf_printf(&text, "\nblock%d:\n    store v0, v1\n"
				     "    jump block%d\n", k, k + 1);
	kl_buf_printf(&text, "\nblock%d:\n    v2 = load.i64 v1\n"
			     "    return v2\n}\n", N + 1);
	uint64_t n = counted_on_f(kl_dse_func, text.data, text.len, "stores",
					  NULL);
	CHECK_EQ_INT(n, N - 1);
	kl_buf_free(&text);
}

int
main(void)
{
	UNIT_RUN(test_broken_input_does_not_crash);
	UNIT_RUN(test_empty_function);
	UNIT_RUN(test_registry_names_the_counters);
	UNIT_RUN(test_long_address_chain);
	UNIT_RUN(test_long_block_chain);
	return unit_report("dse");
}
