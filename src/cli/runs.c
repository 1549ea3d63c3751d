/*
 * runs.c -- calls on sample arguments and what they did (runs.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runs.h"

void
run_output_start(run_output *o, size_t keep)
{
	kl_buf_reset(&o->kept);
	o->len = 0;
	o->hash = 0xcbf29ce484222325u; /* FNV-1a's offset basis */
	o->keep = keep;
}

void
run_output_take(void *ctx, const char *data, size_t len)
{
	run_output *o = ctx;
	if (o->kept.len < o->keep) {
		size_t room = o->keep - o->kept.len;
		kl_buf_append(&o->kept, data, len < room ? len : room);
	}
	uint64_t h = o->hash;
	for (size_t k = 0; k < len; k++)
		h = (h ^ (unsigned char)data[k]) * 0x100000001b3u;
	o->hash = h;
	o->len += len;
}

bool
run_output_same(const run_output *a, const run_output *b)
{
	return a->len == b->len && a->hash == b->hash &&
	       a->kept.len == b->kept.len &&
	       (!a->kept.len ||
		memcmp(a->kept.data, b->kept.data, a->kept.len) == 0);
}

/* The runner must stay where it is: the interpreter writes to its sink. */
void
runner_init(runner *r, const kl_module *m, uint64_t fuel, uint64_t max_memory)
{
	memset(r, 0, sizeof *r);
	r->m = m;
	kl_interp_options opts = { 0 };
	opts.fuel = fuel;
	opts.max_memory = max_memory;
	opts.output = run_output_take;
	opts.output_ctx = &r->sink;
	r->it = kl_interp_new(m, &opts);
}

void
runner_free(runner *r)
{
	kl_interp_free(r->it);
	kl_buf_free(&r->sink.kept);
}

bool
run_callable(const kl_module *m, const kl_func *f)
{
	kl_signature sig = kl_func_signature(f);
	if (sig.num_params > RUN_MAX_PARAMS)
		return false;
	for (uint32_t i = 0; i < sig.num_params; i++)
		if (kl_type_class(m, sig.params[i]) == KL_TYPE_NONE)
			return false;
	return true;
}

uint32_t
run_nvectors(const kl_func *f)
{
	return kl_func_signature(f).num_params ? RUN_NVEC : 1;
}

/* Parameter i's value in vector vec, as an integer (a float parameter
 * takes a quarter of it). The first parameter takes 0, 1, -1, 2, 100, 7,
 * -12345, 3: small values too, which a switch's first cases and a
 * recursion's end need (100 alone ran a fib out of fuel). */
static int64_t
sample(uint32_t vec, uint32_t i)
{
	static const int64_t mixed[] = { -1, 2, 100, 7, -12345, 3,
					 0x7fffffff, -2 };
	if (vec == 0)
		return 0;
	if (vec == 1)
		return (int64_t)i + 1;
	return mixed[(vec - 2 + i) % (sizeof mixed / sizeof mixed[0])];
}

uint32_t
run_args(const kl_module *m, const kl_func *f, uint32_t vec, uint64_t *args)
{
	kl_signature sig = kl_func_signature(f);
	for (uint32_t i = 0; i < sig.num_params; i++) {
		int64_t v = sample(vec, i);
		switch (kl_type_class(m, sig.params[i])) {
		case KL_TYPE_F32: {
			float x = (float)v / 4;
			uint32_t b;
			memcpy(&b, &x, 4);
			args[i] = b;
			break;
		}
		case KL_TYPE_F64: {
			double x = (double)v / 4;
			memcpy(&args[i], &x, 8);
			break;
		}
		case KL_TYPE_I8:
			args[i] = (uint64_t)v & 0xff;
			break;
		case KL_TYPE_I16:
			args[i] = (uint64_t)v & 0xffff;
			break;
		case KL_TYPE_I32:
			args[i] = (uint64_t)v & 0xffffffff;
			break;
		default:
			args[i] = (uint64_t)v;
		}
	}
	return sig.num_params;
}

void
run_call(runner *r, kl_sym s, uint32_t vec, run_outcome *o)
{
	uint64_t args[RUN_MAX_PARAMS];
	uint32_t n = run_args(r->m, kl_sym_func(r->m, s), vec, args);
	kl_run_result res;
	kl_interp_reset(r->it);
	run_output_start(&r->sink, RUN_OUTPUT_KEEP);
	kl_interp_call(r->it, s, args, n, &res);
	run_output_start(&o->output, RUN_OUTPUT_KEEP);
	if (r->sink.kept.len)
		kl_buf_append(&o->output.kept, r->sink.kept.data,
			      r->sink.kept.len);
	o->output.len = r->sink.len;
	o->output.hash = r->sink.hash;
	o->status = res.status;
	bool trapped = res.status == KL_RUN_TRAPPED;
	o->trap = trapped ? res.trap : 0;
	o->user_code = trapped ? res.user_code : 0;
	o->exit_code = res.status == KL_RUN_EXITED ? res.exit_code : 0;
	/* Every result, however many: one left out would let a pass that
	 * changes it through. */
	o->nres = res.status == KL_RUN_RETURNED ? res.num_results : 0;
	kl_buf_reset(&o->res);
	if (o->nres)
		kl_buf_append(&o->res, (const char *)res.results,
			      (size_t)o->nres * sizeof res.results[0]);
}

bool
run_finished(const run_outcome *o)
{
	if (o->status == KL_RUN_TRAPPED)
		return o->trap != KL_TRAP_OUT_OF_FUEL &&
		       o->trap != KL_TRAP_STACK_OVERFLOW;
	return o->status != KL_RUN_FAILED;
}

bool
run_over_limit(const run_outcome *o)
{
	return o->status == KL_RUN_TRAPPED && o->trap == KL_TRAP_STACK_OVERFLOW;
}

bool
run_same(const run_outcome *a, const run_outcome *b)
{
	if (a->status != b->status || a->nres != b->nres ||
	    !run_output_same(&a->output, &b->output))
		return false;
	switch (a->status) {
	case KL_RUN_RETURNED:
		return a->nres == 0 ||
		       memcmp(a->res.data, b->res.data, a->res.len) == 0;
	case KL_RUN_TRAPPED:
		return a->trap == b->trap && a->user_code == b->user_code;
	case KL_RUN_EXITED:
		return a->exit_code == b->exit_code;
	default:
		return true;
	}
}

/* s[0, n) as a C string's contents: a FAIL line stays one line. */
static void
put_escaped(kl_buf *out, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '\n')
			kl_buf_puts(out, "\\n");
		else if (c == '\t')
			kl_buf_puts(out, "\\t");
		else if (c == '"' || c == '\\')
			kl_buf_printf(out, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			kl_buf_printf(out, "\\x%02x", c);
		else
			kl_buf_putc(out, (char)c);
	}
}

void
run_describe(kl_buf *out, const kl_module *m, kl_signature sig,
	     const run_outcome *o, size_t from)
{
	switch (o->status) {
	case KL_RUN_RETURNED:
		kl_buf_puts(out, "returned");
		for (uint32_t k = 0; k < o->nres; k++) {
			uint64_t bits;
			memcpy(&bits, o->res.data + 8 * (size_t)k, 8);
			kl_buf_puts(out, k ? ", " : " ");
			if (k < sig.num_results)
				kl_interp_format_value(m, sig.results[k], bits,
						       out);
			else
				kl_buf_printf(out, "0x%llx",
					      (unsigned long long)bits);
		}
		break;
	case KL_RUN_TRAPPED:
		kl_buf_printf(out, "trapped %s", kl_run_trap_name(o->trap));
		if (o->trap == KL_TRAP_USER)
			kl_buf_printf(out, " %u", o->user_code);
		break;
	case KL_RUN_EXITED:
		kl_buf_printf(out, "exited %d", o->exit_code);
		break;
	default:
		kl_buf_puts(out, "failed");
	}
	/* (a long output from a little before its first difference: two
	 * of 100,000 bytes buried the line) */
	enum { SHORT = 120, BEFORE = 20, SHOWN = 80 };
	uint64_t n = o->output.len;
	const char *kept = o->output.kept.data;
	size_t nk = o->output.kept.len;
	if (n && n <= SHORT && nk == n) {
		kl_buf_puts(out, ", output \"");
		put_escaped(out, kept, nk);
		kl_buf_putc(out, '"');
	} else if (n > nk && from >= nk) {
		/* the same as the other's as far as both were kept */
		kl_buf_printf(out, ", output of %llu bytes, the same as the "
			      "other's in the first %zu kept, different "
			      "after", (unsigned long long)n, nk);
	} else if (n) {
		/* (from is at most what was kept: run_output_difference) */
		size_t at = from > BEFORE ? from - BEFORE : 0;
		at = at < nk ? at : nk;
		size_t len = nk - at < SHOWN ? nk - at : SHOWN;
		kl_buf_printf(out, ", output of %llu bytes, from byte %zu: \"",
			      (unsigned long long)n, at);
		put_escaped(out, kept + at, len);
		kl_buf_puts(out, at + len < n ? "\"..." : "\"");
	}
}

size_t
run_output_difference(const run_outcome *a, const run_outcome *b)
{
	/* (within what both kept: past it, the outputs differ somewhere
	 * after, which is where the description starts) */
	const kl_buf *x = &a->output.kept, *y = &b->output.kept;
	size_t n = x->len < y->len ? x->len : y->len, k = 0;
	while (k < n && x->data[k] == y->data[k])
		k++;
	return k;
}

void
run_describe_call(kl_buf *out, const kl_module *m, kl_sym s, uint32_t vec)
{
	const kl_func *f = kl_sym_func(m, s);
	size_t n;
	const char *name = kl_sym_name(m, s, &n);
	kl_name_format(name, n, out);
	uint64_t args[RUN_MAX_PARAMS];
	uint32_t na = run_args(m, f, vec, args);
	kl_signature sig = kl_func_signature(f);
	kl_buf_putc(out, '(');
	for (uint32_t k = 0; k < na; k++) {
		if (k)
			kl_buf_puts(out, ", ");
		kl_interp_format_value(m, sig.params[k], args[k], out);
	}
	kl_buf_putc(out, ')');
}

void
run_outcome_free(run_outcome *o)
{
	kl_buf_free(&o->output.kept);
	kl_buf_free(&o->res);
}

/* A data object of no bytes at the end of m, under a name m does not
 * use: every id the interpreter gives past the symbols' moves up one. */
static kl_status
add_last_symbol(kl_module *m)
{
	char name[32];
	for (uint32_t n = 0;; n++) {
		int len = snprintf(name, sizeof name, "keel.probe.%u", n);
		kl_status st = kl_module_add_data(m, name, (size_t)len, true,
						  0, NULL);
		if (st != KL_ERR_EXISTS)
			return st;
	}
}

kl_status
run_make_probe(kl_module *m, uint32_t probe)
{
	uint32_t nsyms = kl_module_num_syms(m);
	for (uint32_t s = 0; s < nsyms; s++) {
		kl_func *f = kl_sym_func(m, (kl_sym){ s });
		if (!f)
			continue;
		kl_builder b;
		kl_builder_init(&b, f);
		for (kl_block bl = kl_func_first_block(f); bl.id != KL_NONE;
		     bl = kl_block_next(f, bl)) {
			for (kl_inst i = kl_block_first_inst(f, bl);
			     i.id != KL_NONE; i = kl_inst_next(f, i)) {
				kl_opcode op = kl_inst_opcode(f, i);
				if (op != KL_OP_ALLOCA &&
				    op != KL_OP_ALLOCA_DYN)
					continue;
				kl_builder_before(&b, i);
				kl_build_alloca(&b, 1, 1);
			}
		}
		kl_status st = kl_builder_status(&b);
		if (st != KL_OK)
			return st;
	}
	return probe == 0 ? KL_OK : add_last_symbol(m);
}

static uint64_t
times(uint64_t n, uint64_t k)
{
	return n > UINT64_MAX / k ? UINT64_MAX : n * k;
}

void
run_judge_init(run_judge *j, const kl_module *after, uint64_t fuel,
	       kl_module *(*copy_before)(void *ctx), void *ctx)
{
	memset(j, 0, sizeof *j);
	j->after = after;
	j->fuel = fuel;
	j->copy_before = copy_before;
	j->ctx = ctx;
}

enum run_excuse
run_judge_excuse(run_judge *j, kl_sym s, kl_sym s_after, uint32_t v,
		 const run_outcome *before, run_outcome *after)
{
	if ((after->status == KL_RUN_TRAPPED &&
	     after->trap == KL_TRAP_OUT_OF_FUEL && j->fuel) ||
	    run_over_limit(after)) {
		if (!j->longer.it)
			runner_init(&j->longer, j->after,
				    times(j->fuel, RUN_AFTER_FUEL_FACTOR),
				    times(RUN_MEMORY, RUN_AFTER_MEMORY_FACTOR));
		run_call(&j->longer, s_after, v, after);
		if (run_same(before, after))
			return RUN_EXCUSE_MORE;
	}
	/* The whole call is excused, not only the part a probe moved: the
	 * probes move ids up, a pass that removes allocas moves them down,
	 * and a part a probe left alone may still move then (a printed id
	 * one digit shorter changes printf's result). */
	for (uint32_t k = 0; k < RUN_NPROBES; k++) {
		if (!j->on_probe[k].it) {
			kl_module *probe = j->copy_before(j->ctx);
			if (!probe || run_make_probe(probe, k) != KL_OK) {
				kl_module_free(probe);
				return RUN_NOT_EXCUSED;
			}
			j->probes[k] = probe;
			runner_init(&j->on_probe[k], probe,
				    times(j->fuel, RUN_PROBE_FUEL_FACTOR),
				    RUN_MEMORY);
		}
		run_call(&j->on_probe[k], s, v, &j->scratch);
		if (!run_same(before, &j->scratch))
			return RUN_EXCUSE_OBJECT_IDS;
	}
	return RUN_NOT_EXCUSED;
}

void
run_judge_free(run_judge *j)
{
	if (j->longer.it)
		runner_free(&j->longer);
	for (uint32_t k = 0; k < RUN_NPROBES; k++) {
		if (j->on_probe[k].it)
			runner_free(&j->on_probe[k]);
		kl_module_free(j->probes[k]);
	}
	run_outcome_free(&j->scratch);
}
