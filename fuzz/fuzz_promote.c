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
 *     most 8, runs in the interpreter on three argument vectors (zeros;
 *     1, 2, 3...; mixed signs and sizes) with a small fuel and memory
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
 *     running a probe, the module with an alloca added before each
 *     alloca, where every id changes: a call whose outcome changes there
 *     is not compared;
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

#include "keel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum {
	NVEC = 3,                /* argument vectors per function */
	MAX_PARAMS = 8,          /* functions with more are not run */
	MAX_RES = 16,            /* results compared per call */
	FUEL = 20000,            /* instructions per call, before */
	AFTER_FUEL = 8 * FUEL,   /* ... and after (see above) */
	MAX_MEMORY = 1 << 20,    /* bytes of allocas, heap, data, registers */
};

/* The outcome of one call, owned by the target (the interpreter's
 * pointers die at its next call). */
typedef struct outcome {
	bool ran;                /* the function was run on this vector */
	bool checked;            /* before: promote must keep this outcome */
	kl_run_status status;
	uint32_t trap, user_code, nres;
	int32_t exit_code;
	uint64_t res[MAX_RES];
	kl_buf output;           /* the program's output */
} outcome;

static void
collect_output(void *ctx, const char *data, size_t len)
{
	kl_buf_append(ctx, data, len);
}

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

/* Whether f can be called with sample arguments: at most MAX_PARAMS, each
 * an integer or a float. */
static bool
runnable(const kl_module *m, const kl_func *f)
{
	kl_signature sig = kl_func_signature(f);
	if (sig.num_params > MAX_PARAMS)
		return false;
	for (uint32_t i = 0; i < sig.num_params; i++)
		if (kl_type_class(m, sig.params[i]) == KL_TYPE_NONE)
			return false;
	return true;
}

/* Argument vector vec's value for parameter i of type t: zeros, then
 * 1, 2, 3..., then a mix of signs and sizes. */
static uint64_t
sample_arg(const kl_module *m, kl_type t, uint32_t vec, uint32_t i)
{
	static const int64_t mixed[] = { -1, 7, 100, -12345, 0x7fffffff, 1,
					 -2, 3 };
	int64_t v = vec == 0 ? 0 : vec == 1 ? (int64_t)i + 1 : mixed[i % 8];
	switch (kl_type_class(m, t)) {
	case KL_TYPE_F32: {
		float x = (float)v / 4;
		uint32_t b;
		memcpy(&b, &x, 4);
		return b;
	}
	case KL_TYPE_F64: {
		double x = (double)v / 4;
		uint64_t b;
		memcpy(&b, &x, 8);
		return b;
	}
	case KL_TYPE_I8:
		return (uint64_t)v & 0xff;
	case KL_TYPE_I16:
		return (uint64_t)v & 0xffff;
	case KL_TYPE_I32:
		return (uint64_t)v & 0xffffffff;
	default:
		return (uint64_t)v;
	}
}

static uint32_t
sample_args(const kl_module *m, const kl_func *f, uint32_t vec,
	    uint64_t *args)
{
	kl_signature sig = kl_func_signature(f);
	for (uint32_t i = 0; i < sig.num_params; i++)
		args[i] = sample_arg(m, sig.params[i], vec, i);
	return sig.num_params;
}

/* Call function s on argument vector vec in fresh memory; *o gets the
 * outcome. The interpreter writes the program's output to *sink. */
static void
run_one(kl_interp *it, kl_buf *sink, const kl_module *m, kl_sym s,
	uint32_t vec, outcome *o)
{
	uint64_t args[MAX_PARAMS];
	uint32_t n = sample_args(m, kl_sym_func(m, s), vec, args);
	kl_run_result r;
	kl_interp_reset(it);
	kl_buf_reset(sink);
	kl_interp_call(it, s, args, n, &r);
	kl_buf_reset(&o->output);
	if (sink->len)
		kl_buf_append(&o->output, sink->data, sink->len);
	o->ran = true;
	o->status = r.status;
	o->trap = r.status == KL_RUN_TRAPPED ? r.trap : 0;
	o->user_code = r.status == KL_RUN_TRAPPED ? r.user_code : 0;
	o->exit_code = r.status == KL_RUN_EXITED ? r.exit_code : 0;
	o->nres = r.status == KL_RUN_RETURNED ? r.num_results : 0;
	for (uint32_t k = 0; k < o->nres && k < MAX_RES; k++)
		o->res[k] = r.results[k];
}

static bool
is_trap(const outcome *o, uint32_t trap)
{
	return o->status == KL_RUN_TRAPPED && o->trap == trap;
}

static bool
same(const outcome *a, const outcome *b)
{
	if (a->status != b->status || a->nres != b->nres ||
	    a->output.len != b->output.len ||
	    (a->output.len &&
	     memcmp(a->output.data, b->output.data, a->output.len) != 0))
		return false;
	switch (a->status) {
	case KL_RUN_RETURNED:
		for (uint32_t k = 0; k < a->nres && k < MAX_RES; k++)
			if (a->res[k] != b->res[k])
				return false;
		return true;
	case KL_RUN_TRAPPED:
		return a->trap == b->trap && a->user_code == b->user_code;
	case KL_RUN_EXITED:
		return a->exit_code == b->exit_code;
	default:
		return true;
	}
}

static void
describe(const outcome *o)
{
	switch (o->status) {
	case KL_RUN_RETURNED:
		fprintf(stderr, "returned");
		for (uint32_t k = 0; k < o->nres && k < MAX_RES; k++)
			fprintf(stderr, " 0x%llx",
				(unsigned long long)o->res[k]);
		break;
	case KL_RUN_TRAPPED:
		fprintf(stderr, "trapped %s", kl_run_trap_name(o->trap));
		if (o->trap == KL_TRAP_USER)
			fprintf(stderr, " %u", o->user_code);
		break;
	case KL_RUN_EXITED:
		fprintf(stderr, "exited %d", o->exit_code);
		break;
	default:
		fprintf(stderr, "failed");
	}
	fprintf(stderr, ", output \"%.*s\"\n", (int)o->output.len,
		o->output.len ? o->output.data : "");
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

/*
 * The probe: the module with a one-byte alloca before every alloca and
 * alloca_dyn, so that the objects a call makes get other ids (allocas and
 * heap objects are numbered in creation order; these come about twice as
 * far apart). A call whose outcome changes in the probe depends on object
 * ids -- it shows a pointer's bits, or fills the memory limit -- and
 * promote, which removes allocas, changes those ids legitimately.
 */
static kl_module *
parse_probe(const uint8_t *data, size_t size)
{
	kl_module *m = parse(data, size);
	uint32_t nsyms = kl_module_num_syms(m);
	for (uint32_t s = 0; s < nsyms; s++) {
		kl_func *f = kl_sym_func(m, (kl_sym){ s });
		if (!f)
			continue;
		kl_builder bld;
		kl_builder_init(&bld, f);
		for (kl_block b = kl_func_first_block(f); b.id != KL_NONE;
		     b = kl_block_next(f, b)) {
			for (kl_inst i = kl_block_first_inst(f, b);
			     i.id != KL_NONE; i = kl_inst_next(f, i)) {
				kl_opcode op = kl_inst_opcode(f, i);
				if (op != KL_OP_ALLOCA &&
				    op != KL_OP_ALLOCA_DYN)
					continue;
				kl_builder_before(&bld, i);
				kl_build_alloca(&bld, 1, 1);
			}
		}
		if (kl_builder_status(&bld) != KL_OK) {
			fprintf(stderr, "cannot build the probe: %s\n",
				bld.error);
			abort();
		}
	}
	check_verifies("the probe (allocas added, not promoted)", m);
	return m;
}

/* Run every runnable function of m on every vector, into out[s * NVEC +
 * vec]. */
static void
run_all(const kl_module *m, uint64_t fuel, outcome *out)
{
	kl_buf output = { 0 };
	kl_interp_options opts = { 0 };
	opts.fuel = fuel;
	opts.max_memory = MAX_MEMORY;
	opts.output = collect_output;
	opts.output_ctx = &output;
	kl_interp *it = kl_interp_new(m, &opts);
	uint32_t nsyms = kl_module_num_syms(m);
	for (uint32_t s = 0; s < nsyms; s++) {
		kl_func *f = kl_sym_func(m, (kl_sym){ s });
		if (!f || !runnable(m, f))
			continue;
		for (uint32_t v = 0; v < NVEC; v++) {
			run_one(it, &output, m, (kl_sym){ s }, v,
				&out[s * NVEC + v]);
		}
	}
	kl_interp_free(it);
	kl_buf_free(&output);
}

/*
 * Which calls promote must keep the outcome of: those that finished before
 * (not out of fuel, not over the depth or memory limit) and whose outcome
 * does not depend on object ids (the probe's is the same).
 */
static void
mark_checked(outcome *before, const outcome *probe, uint32_t n)
{
	for (uint32_t k = 0; k < n; k++) {
		outcome *o = &before[k];
		o->checked = o->ran && !is_trap(o, KL_TRAP_OUT_OF_FUEL) &&
			     !is_trap(o, KL_TRAP_STACK_OVERFLOW) &&
			     same(o, &probe[k]);
	}
}

/* Compare the calls of `after` (module m, promoted as `what`) with
 * `before`; abort on the first difference. */
static void
compare(const char *what, const kl_module *m, const outcome *before,
	const outcome *after, uint32_t nsyms)
{
	for (uint32_t s = 0; s < nsyms; s++) {
		for (uint32_t v = 0; v < NVEC; v++) {
			const outcome *b = &before[s * NVEC + v];
			const outcome *a = &after[s * NVEC + v];
			if (!b->checked || is_trap(a, KL_TRAP_STACK_OVERFLOW) ||
			    same(b, a))
				continue;
			size_t n;
			const char *name = kl_sym_name(m, (kl_sym){ s }, &n);
			uint64_t args[MAX_PARAMS];
			uint32_t nargs = sample_args(m, kl_sym_func(m,
				(kl_sym){ s }), v, args);
			fprintf(stderr, "promote (%s) changed what %%%.*s(",
				what, (int)n, name);
			for (uint32_t i = 0; i < nargs; i++)
				fprintf(stderr, "%s0x%llx", i ? ", " : "",
					(unsigned long long)args[i]);
			fprintf(stderr, ") does:\n  before: ");
			describe(b);
			fprintf(stderr, "  after:  ");
			describe(a);
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
		kl_buf_free(&o[k].output);
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
	uint32_t n = kl_module_num_syms(a) * NVEC;
	outcome *before = new_outcomes(n), *after = new_outcomes(n);
	kl_module *probe = parse_probe(data, size);
	run_all(probe, 2 * FUEL, after); /* an alloca added per alloca */
	kl_module_free(probe);
	run_all(a, FUEL, before);
	mark_checked(before, after, n);

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
