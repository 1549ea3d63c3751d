/*
 * fuzz_promote.c -- libFuzzer target: the promote pass (mem2reg) on any
 * module the parser accepts, checked by running code.
 *
 * The input is parsed several times; the parser is deterministic, so the
 * modules are the same. On every module that parses, verified or not,
 * kl_promote_module(m, NULL) must not crash (the library takes unverified
 * IR and leaves alone what is not in strict SSA form). On a module that
 * verifies, the checks of `keel difftest -p promote`:
 *
 *   - every defined function whose parameters are integers or floats, at
 *     most 16, runs in the interpreter on difftest's argument vectors
 *     (src/cli/runs.c, which both use) with a small fuel and memory
 *     budget, each call in fresh memory, and its outcome is kept: status,
 *     results, trap and user code, exit code, program output;
 *   - promote runs three ways: as `keel opt` runs it (input_verified, one
 *     report and its state for the whole module), function by function
 *     with no report (the unverified path, no state kept), and through
 *     kl_promote_module(m, NULL) (unverified, state kept);
 *   - the three results verify and print byte for byte the same;
 *   - the calls are run again on the first two, and every call that
 *     finished before must have the same outcome.
 *
 * What is not compared, because it may legitimately differ:
 *
 *   - calls that ran out of fuel or hit a limit before (trap
 *     stack_overflow: call depth, or memory for allocas and registers);
 *   - a call that hits stack_overflow after: promote frees alloca memory
 *     but adds values (block parameters, zeros), so a frame's registers
 *     may pass the shared limit where its memory fitted before;
 *   - calls whose outcome depends on object ids, which promote changes by
 *     removing allocas (a pointer is id << 32 | offset, and allocas and
 *     heap objects are numbered in creation order): a returned or printed
 *     address of a kept alloca, a difference of two. They are found by
 *     running two probes, the module with an alloca added before each
 *     alloca, and that with a symbol more, where every id changes
 *     (run_make_probe): a call whose outcome changes on either is not
 *     compared;
 *   - instruction counts and trap messages (instruction numbers, object
 *     ids, lines). The calls after get 8 times the fuel: promote adds at
 *     most a zero per type at the top of a function and removes at least
 *     its alloca, so a call that finished before finishes within it.
 *
 * A failure prints what differs and the module, then aborts. Everything
 * is freed: the fuzz build runs with leak detection.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/cli/runs.h"
#include "keel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum {
	FUEL = 20000,            /* instructions per call, before */
	AFTER_FUEL = RUN_AFTER_FUEL_FACTOR * FUEL, /* ... and after */
	MAX_MEMORY = 1 << 20,    /* bytes of allocas, heap, data, registers */
};

/* The outcome of one call (runs.h), and whether it counts. */
typedef struct outcome {
	bool ran;                /* the function was run on this vector */
	bool checked;            /* before: promote must keep this outcome */
	run_outcome o;
} outcome;

/* Parse the input; NULL if it does not parse. */
static kl_module *
parse(const uint8_t *data, size_t size)
{
	kl_module *m = NULL;
	kl_diags d = { 0 };
	kl_parse_module((const char *)data, size, NULL, &m, &d);
	kl_diags_free(&d);
	return m;
}

static void
describe(const kl_module *m, kl_signature sig, const outcome *o, size_t from)
{
	kl_buf b = { 0 };
	run_describe(&b, m, sig, &o->o, from);
	fprintf(stderr, "%.*s\n", (int)b.len, b.len ? b.data : "");
	kl_buf_free(&b);
}

static void
print_module(const char *what, const kl_module *m)
{
	kl_buf out = { 0 };
	kl_print_module(m, NULL, &out);
	fprintf(stderr, "%s:\n%.*s\n", what, (int)out.len,
		out.len ? out.data : "");
	kl_buf_free(&out);
}

/* Verify m, made from a verified module (`what` says how); print the
 * verifier's listing and abort if it is broken. */
static void
check_verifies(const char *what, const kl_module *m)
{
	kl_diags d = { 0 };
	if (kl_verify_module(m, &d) == KL_OK) {
		kl_diags_free(&d);
		return;
	}
	fprintf(stderr, "%s: does not verify:\n", what);
	uint32_t nsyms = kl_module_num_syms(m);
	for (uint32_t s = 0; s < nsyms; s++) {
		kl_func *f = kl_sym_func(m, (kl_sym){ s });
		kl_buf h = { 0 };
		if (f && kl_verify_render(f, &d, "fuzz.kl", false, &h, &h))
			fprintf(stderr, "%.*s", (int)h.len, h.data);
		kl_buf_free(&h);
	}
	abort();
}

/* a and b, promoted two ways, must print the same. */
static void
check_same_text(const char *what, const kl_module *a, const kl_module *b)
{
	kl_buf ta = { 0 }, tb = { 0 };
	kl_print_module(a, NULL, &ta);
	kl_print_module(b, NULL, &tb);
	if (ta.len == tb.len &&
	    (ta.len == 0 || memcmp(ta.data, tb.data, ta.len) == 0)) {
		kl_buf_free(&ta);
		kl_buf_free(&tb);
		return;
	}
	fprintf(stderr, "promote as keel opt runs it and %s print "
		"differently:\n--- keel opt:\n%.*s\n--- %s:\n%.*s\n", what,
		(int)ta.len, ta.len ? ta.data : "", what, (int)tb.len,
		tb.len ? tb.data : "");
	abort();
}

/* Probe k (runs.h): the module with a one-byte alloca before every
 * alloca, and for k = 1 a symbol more, where every object id moves. */
static kl_module *
parse_probe(const uint8_t *data, size_t size, uint32_t k)
{
	kl_module *m = parse(data, size);
	if (run_make_probe(m, k) != KL_OK) {
		fprintf(stderr, "cannot build the probe\n");
		abort();
	}
	check_verifies("the probe (allocas added, not promoted)", m);
	return m;
}

/* Run every callable function of m on every vector, into out[s * RUN_NVEC
 * + vec]. */
static void
run_all(const kl_module *m, uint64_t fuel, outcome *out)
{
	runner r;
	runner_init(&r, m, fuel, MAX_MEMORY);
	uint32_t nsyms = kl_module_num_syms(m);
	for (uint32_t s = 0; s < nsyms; s++) {
		kl_func *f = kl_sym_func(m, (kl_sym){ s });
		if (!f || !run_callable(m, f))
			continue;
		for (uint32_t v = 0; v < run_nvectors(f); v++) {
			outcome *o = &out[s * RUN_NVEC + v];
			run_call(&r, (kl_sym){ s }, v, &o->o);
			o->ran = true;
		}
	}
	runner_free(&r);
}

/*
 * Which calls promote must keep the outcome of: those that finished before
 * (not out of fuel, not over the depth or memory limit) and whose outcome
 * does not depend on object ids (each probe's is the same).
 */
static void
mark_checked(const uint8_t *data, size_t size, outcome *before,
	     outcome *scratch, uint32_t n)
{
	for (uint32_t k = 0; k < n; k++)
		before[k].checked = before[k].ran &&
				    run_finished(&before[k].o);
	for (uint32_t p = 0; p < RUN_NPROBES; p++) {
		kl_module *probe = parse_probe(data, size, p);
		run_all(probe, RUN_PROBE_FUEL_FACTOR * FUEL, scratch);
		kl_module_free(probe);
		for (uint32_t k = 0; k < n; k++)
			if (!run_same(&before[k].o, &scratch[k].o))
				before[k].checked = false;
	}
}

/* Compare the calls of `after` (module m, promoted as `what`) with
 * `before`; abort on the first difference. */
static void
compare(const char *what, const kl_module *m, const outcome *before,
	const outcome *after, uint32_t nsyms)
{
	for (uint32_t s = 0; s < nsyms; s++) {
		for (uint32_t v = 0; v < RUN_NVEC; v++) {
			const outcome *b = &before[s * RUN_NVEC + v];
			const outcome *a = &after[s * RUN_NVEC + v];
			if (!b->checked || run_over_limit(&a->o) ||
			    run_same(&b->o, &a->o))
				continue;
			kl_buf call = { 0 };
			run_describe_call(&call, m, (kl_sym){ s }, v);
			fprintf(stderr, "promote (%s) changed what %s does:\n"
				"  before: ", what, call.data);
			kl_buf_free(&call);
			kl_signature sig = kl_func_signature(
				kl_sym_func(m, (kl_sym){ s }));
			size_t from = run_output_difference(&b->o, &a->o);
			describe(m, sig, b, from);
			fprintf(stderr, "  after:  ");
			describe(m, sig, a, from);
			print_module("the module after promote", m);
			abort();
		}
	}
}

static outcome *
new_outcomes(uint32_t n)
{
	outcome *o = calloc((size_t)n + 1, sizeof *o);
	if (!o)
		abort();
	return o;
}

static void
free_outcomes(outcome *o, uint32_t n)
{
	for (uint32_t k = 0; k < n; k++)
		run_outcome_free(&o[k].o);
	free(o);
}

/* Promote a as keel opt runs it (input verified, one report and its state
 * for every function) and b function by function with no report. */
static void
promote_two_ways(kl_module *a, kl_module *b)
{
	const kl_pass *p = kl_pass_find("promote", 7);
	kl_pass_report rep = { 0 };
	rep.input_verified = true;
	uint32_t nsyms = kl_module_num_syms(a);
	for (uint32_t s = 0; s < nsyms; s++) {
		kl_func *fa = kl_sym_func(a, (kl_sym){ s });
		kl_func *fb = kl_sym_func(b, (kl_sym){ s });
		if ((fa && p->run(fa, &rep) != KL_OK) ||
		    (fb && p->run(fb, NULL) != KL_OK)) {
			fprintf(stderr, "promote failed on a verified "
				"module\n");
			abort();
		}
	}
	kl_pass_report_free(&rep);
}

/* The checks on a module that verifies: a as parsed, c already promoted
 * by kl_promote_module(c, NULL). */
static void
check_verified(const uint8_t *data, size_t size, kl_module *a, kl_module *c)
{
	uint32_t n = kl_module_num_syms(a) * RUN_NVEC;
	outcome *before = new_outcomes(n), *after = new_outcomes(n);
	run_all(a, FUEL, before);
	mark_checked(data, size, before, after, n);

	kl_module *b = parse(data, size);
	promote_two_ways(a, b);
	check_verifies("promote as keel opt runs it", a);
	check_verifies("promote on each function alone, no report", b);
	check_verifies("kl_promote_module(m, NULL)", c);
	check_same_text("each function alone with no report", a, b);
	check_same_text("kl_promote_module(m, NULL)", a, c);

	uint32_t nsyms = kl_module_num_syms(a);
	run_all(a, AFTER_FUEL, after);
	compare("as keel opt runs it", a, before, after, nsyms);
	run_all(b, AFTER_FUEL, after);
	compare("each function alone, no report", b, before, after, nsyms);
	free_outcomes(before, n);
	free_outcomes(after, n);
	kl_module_free(b);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	kl_module *a = parse(data, size);
	if (!a)
		return 0;
	/* Any module, verified or not: the unverified path must cope. */
	kl_module *c = parse(data, size);
	kl_promote_module(c, NULL);
	kl_diags d = { 0 };
	if (kl_verify_module(a, &d) == KL_OK)
		check_verified(data, size, a, c);
	kl_diags_free(&d);
	kl_module_free(a);
	kl_module_free(c);
	return 0;
}
