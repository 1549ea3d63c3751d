/*
 * interp.c -- the interpreter's public API (keel.h, "Interpreter"): making
 * and freeing interpreters, calling functions, describing traps, and the
 * text form of values used by `keel run` and the `interpret` test command.
 *
 * A call sets up the entry frame, runs exec_run (exec.c) and turns what
 * happened into a kl_run_result: results, or the trap (or exit, or
 * failure) with the call stack it happened in. Whatever the outcome, the
 * call's allocas die before kl_interp_call returns, and an out-of-fuel
 * breakpoint planted in the decoded code is removed, so the interpreter is
 * ready for the next call. Traps are raised by raise_trap/raise_fail into
 * it->pend, from wherever they are detected.
 *
 * Following the module. Decoded functions follow their functions' change
 * counters (drop_stale). Memory (an object for each symbol, data filled
 * from its items) follows the module's data counter, which every added
 * symbol and appended item moves: memory is made at the first call from
 * the module as it is then, and kl_interp_reset makes it again when the
 * counter moved, or only refills it when not. Between, a call refuses
 * to run on memory made from data that has changed since (data_current).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../text/text.h"
#include "interp.h"

#define DEFAULT_DEPTH 10000
#define DEFAULT_MEMORY (256ull << 20)
#define STACK_SHOWN 10 /* frames shown at each end of a long stack */

static const char *const run_trap_names[] = {
	[KL_TRAP_STACK_OVERFLOW - KL_TRAP_COUNT] = "stack_overflow",
	[KL_TRAP_OUT_OF_FUEL - KL_TRAP_COUNT] = "out_of_fuel",
	[KL_TRAP_ABORT - KL_TRAP_COUNT] = "abort",
	[KL_TRAP_BAD_SIG - KL_TRAP_COUNT] = "bad_sig",
};

const char *
kl_run_trap_name(uint32_t trap)
{
	if (trap < KL_TRAP_COUNT)
		return kl_trapcode_name((kl_trapcode)trap);
	if (trap < KL_TRAP_RUN_COUNT)
		return run_trap_names[trap - KL_TRAP_COUNT];
	return "?";
}

/* ---- raising ---- */

static void KL_PRINTF(2, 0)
pend_msg(kl_interp *it, const char *fmt, va_list ap)
{
	kl_buf_reset(&it->pend.msg);
	kl_buf_vprintf(&it->pend.msg, fmt, ap);
}

void
raise_trap(kl_interp *it, uint32_t trap, const char *fmt, ...)
{
	it->pend.status = KL_RUN_TRAPPED;
	it->pend.trap = trap;
	it->pend.user_code = 0;
	va_list ap;
	va_start(ap, fmt);
	pend_msg(it, fmt, ap);
	va_end(ap);
}

void
raise_register_limit(kl_interp *it)
{
	uint64_t max = it->opts.max_memory;
	raise_trap(it, KL_TRAP_STACK_OVERFLOW,
		   "register stack limit of %llu byte%s (max_memory) "
		   "reached",
		   (unsigned long long)max, max == 1 ? "" : "s");
}

void
raise_fail(kl_interp *it, const char *fmt, ...)
{
	it->pend.status = KL_RUN_FAILED;
	va_list ap;
	va_start(ap, fmt);
	pend_msg(it, fmt, ap);
	va_end(ap);
}

void
put_sym(const kl_interp *it, uint32_t sym, kl_buf *out)
{
	fmt_sym(out, it->m, sym);
}

/* ---- lifetime ---- */

kl_interp *
kl_interp_new(const kl_module *m, const kl_interp_options *opts)
{
	kl_interp *it = kl_calloc(1, sizeof *it);
	atomic_init(&it->stop, false);
	it->m = m;
	if (opts)
		it->opts = *opts;
	if (!it->opts.max_depth)
		it->opts.max_depth = DEFAULT_DEPTH;
	if (!it->opts.max_memory)
		it->opts.max_memory = DEFAULT_MEMORY;
	it->nsyms = kl_module_num_syms(m);
	it->edits_seen = m->edits;
	it->data_seen = m->data_edits;
	it->funcs = kl_calloc(it->nsyms ? it->nsyms : 1, sizeof *it->funcs);
	it->bids = kl_calloc(it->nsyms ? it->nsyms : 1, 1);
	mem_init(it);
	return it;
}

/*
 * Take in the symbols added to the module since the tables were made
 * (their decodings and built-in numbers: none yet). Only while there is
 * no memory, before the first call or after a reset that found the
 * module changed: the symbols' object ids follow the module's symbols,
 * and with memory the ids after them may be in use.
 */
static void
follow_syms(kl_interp *it)
{
	uint32_t n = kl_module_num_syms(it->m);
	if (n > it->nsyms) {
		it->funcs = kl_realloc(it->funcs,
				       (size_t)n * sizeof *it->funcs);
		memset(it->funcs + it->nsyms, 0,
		       (size_t)(n - it->nsyms) * sizeof *it->funcs);
		it->bids = kl_realloc(it->bids, n);
		memset(it->bids + it->nsyms, 0, n - it->nsyms);
		it->nsyms = n;
	}
	it->data_seen = it->m->data_edits;
}

void
kl_interp_free(kl_interp *it)
{
	if (!it)
		return;
	for (uint32_t s = 0; s < it->nsyms; s++)
		dfunc_free(it->funcs[s]);
	free(it->funcs);
	free(it->bids);
	mem_free(it);
	free(it->allocas);
	free(it->dirty);
	free(it->regs);
	free(it->frames);
	free(it->results);
	free(it->stack);
	kl_buf_free(&it->pend.msg);
	kl_buf_free(&it->message);
	kl_buf_free(&it->scratch);
	free(it);
}

/*
 * With the module's data as memory was made from it, refill the writable
 * data and forget what the calls made (mem_reset: the cost of what was
 * made, not of the module). When a symbol was added or an item appended
 * since, memory is freed, to be made from the whole module at the next
 * call (which takes in the new symbols first), as a new interpreter's.
 */
void
kl_interp_reset(kl_interp *it)
{
	if (it->in_call) {
		it->reset_in_call = true;
		return;
	}
	if (it->m->data_edits != it->data_seen ||
	    kl_module_num_syms(it->m) != it->nsyms)
		mem_free(it);
	else
		mem_reset(it);
}

bool
after_callback(kl_interp *it, const char *which)
{
	if (stop_asked(it))
		return false;
	if (KL_UNLIKELY(it->reset_in_call)) {
		raise_fail(it, "kl_interp_reset was called during the call "
			       "(in the %s callback), which is not allowed: "
			       "the run stops here", which);
		return false;
	}
	if (KL_LIKELY(it->m->edits == it->edits_seen &&
		      it->m->data_edits == it->data_seen))
		return true;
	raise_fail(it, "the module changed during the call (in the %s "
		       "callback), which is not allowed: the run stops here",
		   which);
	return false;
}

void
kl_interp_stop(kl_interp *it)
{
	/* (nothing else of it is touched: this may run on another thread
	 * or in a signal handler) */
	atomic_store(&it->stop, true);
}

/* ---- calls ---- */

/*
 * Forget the decoding of every function changed since it was decoded
 * (its change counter moved: func_edited, src/ir/ir.h); the next call of
 * it decodes it again. Called only between runs, when no frame uses any
 * decoded code. The module's counter moves with every function's, so
 * while it is what was seen last, nothing changed: one comparison a call.
 */
static void
drop_stale(kl_interp *it)
{
	for (uint32_t s = 0; s < it->nsyms; s++) {
		dfunc *fn = it->funcs[s];
		if (fn && fn->edits != fn->f->edits) {
			dfunc_free(fn);
			it->funcs[s] = NULL;
		}
	}
	it->edits_seen = it->m->edits;
}

static void
result_from_pend(kl_interp *it, kl_run_result *res)
{
	res->status = it->pend.status;
	res->trap = it->pend.trap;
	res->user_code = it->pend.user_code;
	res->exit_code = it->pend.exit_code;
	kl_buf_reset(&it->message);
	kl_buf_append(&it->message, it->pend.msg.data ? it->pend.msg.data : "",
		      it->pend.msg.len);
	res->message = it->message.data ? it->message.data : "";
}

static KL_PRINTF(3, 4) kl_status
refuse(kl_interp *it, kl_run_result *res, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	it->pend.status = KL_RUN_FAILED;
	pend_msg(it, fmt, ap);
	va_end(ap);
	result_from_pend(it, res);
	return KL_ERR_INVALID;
}

/*
 * Is memory still what the module's data makes? Called when the data
 * counter moved since that was last known: a symbol was added (its
 * object waits for a reset, and nothing refers to it yet: the old
 * memory is right) or an item appended. An object whose size is not its
 * data's now was made from old items: refuse the call, as running it
 * would give answers from data the module no longer has (a reset or a
 * new interpreter makes memory again). Items of no bytes change nothing.
 */
static bool
data_current(kl_interp *it, kl_run_result *res)
{
	uint32_t s = mem_stale_data(it);
	if (s == KL_NONE) {
		it->data_seen = it->m->data_edits;
		return true;
	}
	kl_buf_reset(&it->scratch);
	put_sym(it, s, &it->scratch);
	obj_info *info = obj_info_get(it, s + 1);
	refuse(it, res, "the module's data changed since this interpreter's "
			"memory was made (data %s: %u bytes then, %llu now): "
			"kl_interp_reset makes it again",
	       it->scratch.data, info->size,
	       (unsigned long long)kl_data_size(it->m, (kl_sym){ s }));
	return false;
}

/* Refuse to call symbol s, which has no body: a front end that called a
 * declaration or a data object by mistake is told which, by name. */
static kl_status
refuse_sym(kl_interp *it, kl_run_result *res, kl_sym s)
{
	size_t len;
	const char *name = kl_sym_name(it->m, s, &len);
	kl_buf spelt = { 0 };
	kl_name_format(name, len, &spelt);
	kl_status st = kl_sym_get_kind(it->m, s) == KL_SYM_DATA
		? refuse(it, res, "%s is a data object, not a function",
			 spelt.data)
		: refuse(it, res, "%s is only declared: it has no body to run",
			 spelt.data);
	kl_buf_free(&spelt);
	return st;
}

/* Refuse to call symbol s, past the interpreter's tables: one the
 * module does not have, or one added after memory was made. */
static kl_status
refuse_late(kl_interp *it, kl_run_result *res, kl_sym s)
{
	uint32_t n = kl_module_num_syms(it->m);
	if (s.id >= n)
		return refuse(it, res, "symbol %u does not exist (the module "
				       "has %u)", s.id, n);
	kl_buf_reset(&it->scratch);
	put_sym(it, s.id, &it->scratch);
	return refuse(it, res, "%s was added to the module after this "
			       "interpreter's memory was made: "
			       "kl_interp_reset makes it again, with it",
		      it->scratch.data);
}

static kl_status call(kl_interp *it, kl_sym func, const uint64_t *args,
		      uint32_t nargs, kl_run_result *res);

kl_status
kl_interp_call(kl_interp *it, kl_sym func, const uint64_t *args,
	       uint32_t nargs, kl_run_result *res)
{
	memset(res, 0, sizeof *res);
	if (KL_UNLIKELY(it->in_call)) {
		/* (from the output callback: it->pend is the running call's) */
		res->status = KL_RUN_FAILED;
		res->message = "kl_interp_call from the output or poll "
			       "callback of a call of the same interpreter, "
			       "which is not allowed";
		return KL_ERR_INVALID;
	}
	kl_status st = call(it, func, args, nargs, res);
	/* A stop is the call's, whether it ran, was stopped, or was
	 * refused before it ran: the next call starts afresh. */
	atomic_store(&it->stop, false);
	return st;
}

/* kl_interp_call, once it is known not to come from a callback. */
static kl_status
call(kl_interp *it, kl_sym func, const uint64_t *args, uint32_t nargs,
     kl_run_result *res)
{
	it->pend.status = KL_RUN_RETURNED;
	it->pend.trap = it->pend.user_code = 0;
	it->pend.exit_code = 0;
	kl_buf_reset(&it->pend.msg);
	res->message = "";
	if (!it->data_ready)
		follow_syms(it);
	else if (KL_UNLIKELY(it->m->data_edits != it->data_seen) &&
		 !data_current(it, res))
		return KL_ERR_INVALID;
	if (func.id >= it->nsyms)
		return refuse_late(it, res, func);
	if (!kl_sym_func(it->m, func))
		return refuse_sym(it, res, func);
	kl_signature sig = kl_sym_signature(it->m, func);
	/* A variadic function too takes exactly its fixed parameters here:
	 * bare bit patterns say no types for extra arguments, and its
	 * entry block could not receive them. */
	if (nargs != sig.num_params)
		return refuse(it, res, "%u argument%s given, the function "
				       "takes %u", nargs,
			      nargs == 1 ? "" : "s", sig.num_params);
	if (nargs && !args)
		return refuse(it, res, "%u argument%s given without an array",
			      nargs, nargs == 1 ? "" : "s");
	if (!it->data_ready && !mem_setup(it)) {
		result_from_pend(it, res);
		return KL_OK;
	}
	if (KL_UNLIKELY(it->m->edits != it->edits_seen))
		drop_stale(it);
	dfunc *fn = it->funcs[func.id];
	if (!fn)
		fn = it->funcs[func.id] = decode_func(it, func.id);
	if (!fn) {
		result_from_pend(it, res);
		return KL_OK;
	}
	/* The entry frame's registers count against max_memory as every
	 * callee's do (push_frame, exec.c): no instruction runs, and the
	 * stack is the entry function alone. */
	if ((uint64_t)fn->nregs * sizeof *it->regs > it->opts.max_memory) {
		raise_register_limit(it);
		result_from_pend(it, res);
		kl_grow(&it->stack, &it->stack_cap, sizeof *it->stack, 1);
		it->stack[0] = (kl_run_frame){ func, { KL_NONE } };
		res->stack = it->stack;
		res->stack_depth = 1;
		return KL_OK;
	}
	if (fn->nregs > it->regs_cap)
		kl_grow(&it->regs, &it->regs_cap, sizeof *it->regs, fn->nregs);
	memset(it->regs, 0, fn->nregs * sizeof *it->regs);
	for (uint32_t k = 0; k < fn->nparams; k++) {
		kl_type c = kl_type_class(it->m, sig.params[k]);
		unsigned bytes = kl_type_bytes(it->m, c);
		it->regs[fn->slots[fn->params + k]] =
			args[k] & mask_of(64 - 8 * (bytes ? bytes : 8));
	}
	it->nframes = 0;
	it->base = 0;
	it->fuel_start = it->opts.fuel ? it->opts.fuel : UINT64_MAX;
	it->fuel_short = 0;
	uint32_t height = it->nallocas, mark = it->cur_chunk;
	size_t used = it->nchunks ? it->chunks[mark].used : 0;

	it->in_call = true;
	exec_run(it, fn, res);
	it->in_call = it->reset_in_call = false;

	if (it->patch) {
		*it->patch = it->patch_saved;
		it->patch = NULL;
	}
	mem_pop_allocas(it, height, mark, used);
	it->nframes = 0;
	result_from_pend(it, res);
	if (res->status == KL_RUN_RETURNED) {
		res->results = it->results;
		res->result_types = sig.results;
	} else {
		res->num_results = 0;
	}
	return KL_OK;
}

/* ---- descriptions ---- */

static void
describe_frame(const kl_interp *it, const kl_run_frame *fr, bool first,
	       kl_buf *out)
{
	kl_buf_puts(out, first ? "  in " : "  called from ");
	put_sym(it, fr->func.id, out);
	const kl_func *f = kl_sym_func(it->m, fr->func);
	if (!f || fr->inst.id == KL_NONE) {
		kl_buf_putc(out, '\n');
		return;
	}
	kl_buf_printf(out, " at inst%u", fr->inst.id);
	uint32_t line = kl_inst_source_line(f, fr->inst);
	if (line)
		kl_buf_printf(out, " (line %u)", line);
	kl_buf_puts(out, ": ");
	kl_print_inst(f, fr->inst, out);
	kl_buf_putc(out, '\n');
}

void
kl_run_describe(const kl_interp *it, const kl_run_result *res, kl_buf *out)
{
	switch (res->status) {
	case KL_RUN_RETURNED:
		return;
	case KL_RUN_EXITED:
		kl_buf_printf(out, "exit %d\n", res->exit_code);
		return;
	case KL_RUN_TRAPPED:
		kl_buf_printf(out, "trap %s", kl_run_trap_name(res->trap));
		if (res->trap == KL_TRAP_USER)
			kl_buf_printf(out, " %u", res->user_code);
		kl_buf_printf(out, ": %s\n", res->message);
		break;
	case KL_RUN_FAILED:
		kl_buf_printf(out, "error: %s\n", res->message);
		break;
	}
	uint32_t n = res->stack_depth;
	for (uint32_t k = 0; k < n; k++) {
		if (n > 2 * STACK_SHOWN && k == STACK_SHOWN) {
			uint32_t more = n - 2 * STACK_SHOWN;
			kl_buf_printf(out, "  ... %u more frame%s ...\n", more,
				      more == 1 ? "" : "s");
			k = n - STACK_SHOWN - 1;
			continue;
		}
		describe_frame(it, &res->stack[k], k == 0, out);
	}
}

/* ---- values as text ---- */

static bool
ends_literal(const char *s, size_t n, size_t at)
{
	if (at >= n)
		return true;
	char c = s[at];
	return !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		 (c >= '0' && c <= '9') || c == '_' || c == '.');
}

size_t
kl_interp_scan_value(const kl_module *m, kl_type t, const char *s, size_t n,
		     uint64_t *bits)
{
	size_t lead = 0;
	while (lead < n && (s[lead] == ' ' || s[lead] == '\t'))
		lead++;
	s += lead;
	n -= lead;
	kl_type c = kl_type_class(m, t);
	size_t used = 0;
	uint64_t value = 0; /* *bits is written only for a valid literal */
	kl_c_locale cl; /* numbers as C reads them (scan_f64) */
	kl_c_locale_begin(&cl);
	if (c == KL_TYPE_F32) {
		uint32_t b;
		used = scan_f32(s, n, &b);
		value = b;
	} else if (c == KL_TYPE_F64) {
		used = scan_f64(s, n, &value);
	} else if (c != KL_TYPE_NONE) {
		bool neg, overflow;
		uint64_t mag = 0;
		used = scan_int(s, n, &neg, &mag, &overflow);
		if (overflow)
			used = 0;
		unsigned w = 8 * kl_type_bytes(m, c);
		uint64_t lo = 1ull << (w - 1); /* -lo is the least value */
		uint64_t hi = mask_of(64 - w);
		if (used && ((neg && mag > lo) || (!neg && mag > hi)))
			used = 0;
		value = (neg ? 0 - mag : mag) & hi;
	}
	kl_c_locale_end(&cl);
	/* a hex float names its bits: one the type cannot hold is no
	 * value of it, nor a decimal out of its range (as in the text
	 * format) */
	if (used && (c == KL_TYPE_F32 || c == KL_TYPE_F64) &&
	    float_literal_fit(s, used, c == KL_TYPE_F32, value) != FLOAT_FITS)
		return 0;
	if (!used || !ends_literal(s, n, used))
		return 0;
	*bits = value;
	return lead + used;
}

void
kl_interp_format_value(const kl_module *m, kl_type t, uint64_t bits,
		       kl_buf *out)
{
	kl_type c = kl_type_class(m, t);
	unsigned spare = 64 - 8 * kl_type_bytes(m, c); /* bits above it */
	if (c == KL_TYPE_NONE) /* (its width would shift by 64) */
		kl_buf_puts(out, "?");
	else if (c == KL_TYPE_F32)
		fmt_f32(out, (uint32_t)bits);
	else if (c == KL_TYPE_F64)
		fmt_f64(out, bits);
	else if (kl_type_refinement(m, t) == KL_REFINE_UNSIGNED)
		kl_buf_printf(out, "%llu",
			      (unsigned long long)(bits & mask_of(spare)));
	else
		kl_buf_printf(out, "%lld", (long long)sext(bits, spare));
}
