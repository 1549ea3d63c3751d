/*
 * test_interp_stop.c -- unit tests of how a run ends early: kl_interp_stop
 * from another thread, and the fuel the dispatch loop takes from its bank
 * in chunks (src/interp/exec.c, FUEL_CHUNK), which must count exactly
 * across a chunk's end and through a segment longer than a chunk.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "keel.h"
#include "parsed.h"
#include "unit.h"

/* %spin calls %forever, which prints a byte and then jumps to itself
 * for ever; %count(n) loops n times (4n + 5 instructions). */
static const char program[] =
	"declare %putchar(i32) -> i32\n"
	"\n"
	"function %forever() {\n"
	"block0:\n"
	"    v0 = iconst.i32 65\n"
	"    v1 = call %putchar(v0)\n"
	"    jump block1\n"
	"\n"
	"block1:\n"
	"    jump block1\n"
	"}\n"
	"\n"
	"function %spin() -> i32 {\n"
	"block0:\n"
	"    call %forever()\n"
	"    v0 = iconst.i32 0\n"
	"    return v0\n"
	"}\n"
	"\n"
	"function %count(i64) -> i64 {\n"
	"block0(v0: i64):\n"
	"    v1 = iconst.i64 0\n"
	"    jump block1(v1)\n"
	"\n"
	"block1(v2: i64):\n"
	"    v3 = icmp ult v2, v0\n"
	"    brif v3, block2, block3\n"
	"\n"
	"block2:\n"
	"    v4 = iadd_imm v2, 1\n"
	"    jump block1(v4)\n"
	"\n"
	"block3:\n"
	"    return v2\n"
	"}\n";

typedef struct watcher {
	kl_interp *it;
	atomic_bool printed; /* the program is running */
} watcher;

static void
note_output(void *ctx, const char *data, size_t len)
{
	(void)data;
	(void)len;
	watcher *w = ctx;
	atomic_store(&w->printed, true);
}

/* Another thread: once the program runs, stop it. */
static void *
stop_when_running(void *arg)
{
	watcher *w = arg;
	while (!atomic_load(&w->printed))
		sched_yield();
	/* (a stop while the callback has yet to return is seen there, at
	 * the call that printed: these tests want the loop after it) */
	struct timespec pause = { 0, 10 * 1000 * 1000 };
	nanosleep(&pause, NULL);
	kl_interp_stop(w->it);
	return NULL;
}

/* Call func of m, which takes no arguments, while another thread stops
 * it once it has printed; w->it is the interpreter, to be freed. */
static void
call_and_stop(watcher *w, kl_module *m, const char *func, kl_run_result *r)
{
	atomic_init(&w->printed, false);
	kl_interp_options o = { 0 };
	o.output = note_output;
	o.output_ctx = w;
	w->it = kl_interp_new(m, &o);
	pthread_t t;
	CHECK(pthread_create(&t, NULL, stop_when_running, w) == 0);
	CHECK(kl_interp_call(w->it, sym(m, func), NULL, 0, r) == KL_OK);
	CHECK(pthread_join(t, NULL) == 0);
}

/* r failed, stopped at the first instruction of the second block of
 * func (a loop). */
static void
check_stopped_at_loop(kl_module *m, const char *func, const kl_run_result *r)
{
	CHECK(r->status == KL_RUN_FAILED);
	CHECK_EQ_STR(r->message, "kl_interp_stop stopped the run");
	const kl_func *f = kl_sym_func(m, sym(m, func));
	kl_block b1 = kl_block_next(f, kl_func_first_block(f));
	CHECK_EQ_INT(r->stack[0].inst.id, kl_block_first_inst(f, b1).id);
}

/* A run that would never end, stopped from another thread: FAILED, with
 * the stack where it was (the loop's jump, inside the callee). */
static void
test_stop_from_another_thread(void)
{
	kl_module *m = parse_text(program, sizeof program - 1);
	watcher w;
	kl_run_result r;
	call_and_stop(&w, m, "spin", &r);
	/* at the loop's only instruction, which did not run (the call's
	 * three, then the jumps) */
	check_stopped_at_loop(m, "forever", &r);
	CHECK_EQ_INT(r.stack_depth, 2);
	CHECK_EQ_INT(r.stack[0].func.id, sym(m, "forever").id);
	CHECK_EQ_INT(r.stack[1].func.id, sym(m, "spin").id);
	CHECK(r.executed >= 4);

	/* the stop was that call's: the next call runs to its end */
	uint64_t n = 10;
	CHECK(kl_interp_call(w.it, sym(m, "count"), &n, 1, &r) == KL_OK);
	CHECK(r.status == KL_RUN_RETURNED);
	CHECK_EQ_INT(r.results[0], 10);
	kl_interp_free(w.it);
	kl_module_free(m);
}

/* A loop of builtin calls, each slow: a stop is seen when the builtin
 * running returns, not a fuel chunk (2^16 instructions, here 32,768
 * calls of memset) later. */
static void
test_stop_after_a_builtin(void)
{
	static const char text[] =
		"declare %putchar(i32) -> i32\n"
		"declare %malloc(i64) -> i64\n"
		"declare %memset(i64, i32, i64) -> i64\n"
		"\n"
		"function %fill() {\n"
		"block0:\n"
		"    v0 = iconst.i64 1000000\n"
		"    v1 = call %malloc(v0)\n"
		"    v2 = iconst.i32 65\n"
		"    v3 = call %putchar(v2)\n"
		"    jump block1\n"
		"\n"
		"block1:\n"
		"    v4 = call %memset(v1, v2, v0)\n"
		"    jump block1\n"
		"}\n";
	kl_module *m = parse_text(text, sizeof text - 1);
	watcher w;
	kl_run_result r;
	call_and_stop(&w, m, "fill", &r);
	/* at the call, which ran (as when the output callback stops) */
	check_stopped_at_loop(m, "fill", &r);
	CHECK(r.executed < 60000);
	kl_interp_free(w.it);
	kl_module_free(m);
}

/* A stop before a segment that starts with an iconst the decoder folded
 * away names that iconst, as fuel running out there does, and counts
 * none of the segment's instructions. */
static void
test_stop_before_a_folded_constant(void)
{
	static const char text[] = "function %f(i64) -> i64 {\n"
				   "block0(v0: i64):\n"
				   "    v1 = iconst.i64 5\n"
				   "    v2 = iadd v0, v1\n"
				   "    return v2\n"
				   "}\n";
	kl_module *m = parse_text(text, sizeof text - 1);
	kl_interp *it = kl_interp_new(m, NULL);
	uint64_t x = 1;
	kl_run_result r;
	kl_interp_stop(it);
	CHECK(kl_interp_call(it, sym(m, "f"), &x, 1, &r) == KL_OK);
	CHECK(r.status == KL_RUN_FAILED);
	CHECK_EQ_INT(r.executed, 0);
	CHECK_EQ_INT(r.stack[0].inst.id, 0);
	/* a refused call takes the stop too: the next one runs */
	kl_interp_stop(it);
	CHECK(kl_interp_call(it, sym(m, "f"), NULL, 0, &r) ==
	      KL_ERR_INVALID);
	CHECK(kl_interp_call(it, sym(m, "f"), &x, 1, &r) == KL_OK);
	CHECK(r.status == KL_RUN_RETURNED);
	CHECK_EQ_INT(r.results[0], 6);
	kl_interp_free(it);
	kl_module_free(m);
}

/* A loop entered only through branches with arguments (whose copies are
 * a stub before the block): a stop there is reported at the block's
 * first instruction. */
static void
test_stop_at_a_branch_stub(void)
{
	static const char text[] = "declare %putchar(i32) -> i32\n"
				   "function %spin() -> i64 {\n"
				   "block0:\n"
				   "    v0 = iconst.i32 66\n"
				   "    v1 = call %putchar(v0)\n"
				   "    v2 = iconst.i64 1\n"
				   "    jump block1(v2)\n"
				   "block1(v3: i64):\n"
				   "    v4 = iadd_imm v3, 1\n"
				   "    v5 = icmp_imm ne v4, 0\n"
				   "    brif v5, block1(v4), block2\n"
				   "block2:\n"
				   "    return v3\n"
				   "}\n";
	kl_module *m = parse_text(text, sizeof text - 1);
	watcher w;
	kl_run_result r;
	call_and_stop(&w, m, "spin", &r);
	check_stopped_at_loop(m, "spin", &r);
	kl_interp_free(w.it);
	kl_module_free(m);
}

/* The budget runs out at exactly its count, on either side of the ends
 * of the loop's first chunks, and a run that fits it ends as it would
 * without one. */
static void
test_fuel_across_chunks(void)
{
	kl_module *m = parse_text(program, sizeof program - 1);
	uint64_t n = 40000, total = 4 * n + 5;
	kl_interp *it = kl_interp_new(m, NULL);
	kl_run_result r;
	kl_interp_call(it, sym(m, "count"), &n, 1, &r);
	CHECK(r.status == KL_RUN_RETURNED);
	CHECK_EQ_INT(r.executed, total);
	kl_interp_free(it);
	const uint64_t chunk = 1u << 16;
	uint64_t fuels[] = { chunk - 1, chunk, chunk + 1, chunk + 2,
			     2 * chunk - 1, 2 * chunk, 2 * chunk + 1,
			     3 * chunk + 5, total - 1, total, total + 1 };
	for (size_t k = 0; k < sizeof fuels / sizeof *fuels; k++) {
		kl_interp_options o = { 0 };
		o.fuel = fuels[k];
		it = kl_interp_new(m, &o);
		kl_interp_call(it, sym(m, "count"), &n, 1, &r);
		if (fuels[k] < total) {
			CHECK(r.status == KL_RUN_TRAPPED);
			CHECK_EQ_INT(r.trap, KL_TRAP_OUT_OF_FUEL);
			CHECK_EQ_INT(r.executed, fuels[k]);
		} else {
			CHECK(r.status == KL_RUN_RETURNED);
			CHECK_EQ_INT(r.results[0], n);
			CHECK_EQ_INT(r.executed, total);
		}
		kl_interp_free(it);
	}
	kl_module_free(m);
}

/* One block longer than a chunk: its length is charged at once, so
 * the budget ends inside it at the right instruction. */
static void
test_fuel_in_a_long_segment(void)
{
	enum { LEN = 70000 };
	kl_buf text = { 0 };
	kl_buf_puts(&text, "function %long(i64) -> i64 {\n"
			   "block0(v0: i64):\n");
	for (unsigned k = 1; k <= LEN; k++)
		kl_buf_printf(&text, "    v%u = iadd_imm v%u, 1\n", k, k - 1);
	kl_buf_printf(&text, "    return v%u\n}\n", LEN);
	kl_module *m = parse_text(text.data, text.len);
	kl_buf_free(&text);
	uint64_t total = LEN + 1;
	uint64_t fuels[] = { 0, 1, (1u << 16) + 1, LEN, total, total + 1 };
	for (size_t k = 0; k < sizeof fuels / sizeof *fuels; k++) {
		kl_interp_options o = { 0 };
		o.fuel = fuels[k];
		kl_interp *it = kl_interp_new(m, &o);
		uint64_t x = 5;
		kl_run_result r;
		kl_interp_call(it, sym(m, "long"), &x, 1, &r);
		if (fuels[k] && fuels[k] < total) {
			CHECK(r.status == KL_RUN_TRAPPED);
			CHECK_EQ_INT(r.executed, fuels[k]);
			/* the instruction the budget did not reach */
			CHECK_EQ_INT(r.stack[0].inst.id, fuels[k]);
		} else {
			CHECK(r.status == KL_RUN_RETURNED);
			CHECK_EQ_INT(r.results[0], 5 + LEN);
			CHECK_EQ_INT(r.executed, total);
		}
		kl_interp_free(it);
	}
	kl_module_free(m);
}

/* ---- the poll callback ---- */

typedef struct poller {
	kl_interp *it;
	kl_module *m;
	unsigned calls;
	unsigned stop_at; /* return true at this call; 0: never */
	int act;          /* at stop_at: 0 return true, 1 kl_interp_stop,
			     2 kl_interp_reset, 3 kl_interp_call */
	kl_status inner;  /* act 3: what the inner call returned */
	const char *inner_message;
} poller;

static bool
poll_count(void *ctx)
{
	poller *p = ctx;
	if (++p->calls != p->stop_at)
		return false;
	switch (p->act) {
	case 1:
		kl_interp_stop(p->it);
		return false;
	case 2:
		kl_interp_reset(p->it);
		return false;
	case 3: {
		uint64_t n = 1;
		kl_run_result r;
		p->inner = kl_interp_call(p->it, sym(p->m, "count"), &n, 1,
					  &r);
		p->inner_message = r.message;
		return false;
	}
	}
	return true;
}

static kl_interp *
new_polled(kl_module *m, poller *p)
{
	kl_interp_options o = { 0 };
	o.poll = poll_count;
	o.poll_ctx = p;
	p->m = m;
	p->it = kl_interp_new(m, &o);
	return p->it;
}

/* Polled as the call starts and then once a fuel chunk (2^16
 * instructions): a run of 400,005 instructions polls 7 times (the
 * start, then at 65,536 to 393,216), and runs as it would unpolled. */
static void
test_poll_when(void)
{
	kl_module *m = parse_text(program, sizeof program - 1);
	poller p = { 0 };
	kl_interp *it = new_polled(m, &p);
	uint64_t n = 0;
	kl_run_result r;
	CHECK(kl_interp_call(it, sym(m, "count"), &n, 1, &r) == KL_OK);
	CHECK(r.status == KL_RUN_RETURNED);
	CHECK_EQ_INT(p.calls, 1);
	p.calls = 0;
	n = 100000;
	CHECK(kl_interp_call(it, sym(m, "count"), &n, 1, &r) == KL_OK);
	CHECK(r.status == KL_RUN_RETURNED);
	CHECK_EQ_INT(r.results[0], n);
	CHECK_EQ_INT(r.executed, 4 * n + 5);
	CHECK_EQ_INT(p.calls, 7);
	kl_interp_free(it);
	kl_module_free(m);
}

/* A loop that prints nothing, ended by the poll callback's true on its
 * third call (after two chunks): FAILED, with the stack in the loop. */
static void
test_poll_stops_a_loop(void)
{
	kl_module *m = parse_text(program, sizeof program - 1);
	poller p = { .stop_at = 3 };
	kl_interp *it = new_polled(m, &p);
	kl_run_result r;
	CHECK(kl_interp_call(it, sym(m, "spin"), NULL, 0, &r) == KL_OK);
	CHECK(r.status == KL_RUN_FAILED);
	CHECK_EQ_STR(r.message, "the poll callback stopped the run");
	CHECK_EQ_INT(p.calls, 3);
	CHECK(r.executed > 2 * 65536 && r.executed <= 3 * 65536);
	const kl_func *f = kl_sym_func(m, sym(m, "forever"));
	kl_block b1 = kl_block_next(f, kl_func_first_block(f));
	CHECK_EQ_INT(r.stack[0].inst.id, kl_block_first_inst(f, b1).id);
	CHECK_EQ_INT(r.stack_depth, 2);
	/* that call's: the next runs to its end */
	p.stop_at = 0;
	uint64_t n = 10;
	CHECK(kl_interp_call(it, sym(m, "count"), &n, 1, &r) == KL_OK);
	CHECK(r.status == KL_RUN_RETURNED);
	kl_interp_free(it);
	kl_module_free(m);
}

/* The output callback's rules hold in the poll callback:
 * kl_interp_stop there stops the run, kl_interp_reset stops it as a
 * change does, and a kl_interp_call is refused while the run goes on. */
static void
test_poll_rules(void)
{
	kl_module *m = parse_text(program, sizeof program - 1);
	uint64_t n = 100000;
	kl_run_result r;
	for (int act = 1; act <= 3; act++) {
		poller p = { .stop_at = 2, .act = act };
		kl_interp *it = new_polled(m, &p);
		CHECK(kl_interp_call(it, sym(m, "count"), &n, 1, &r) ==
		      KL_OK);
		if (act == 1) {
			CHECK(r.status == KL_RUN_FAILED);
			CHECK_EQ_STR(r.message,
				     "kl_interp_stop stopped the run");
		} else if (act == 2) {
			CHECK(r.status == KL_RUN_FAILED);
			CHECK_EQ_STR(r.message,
				     "kl_interp_reset was called during the "
				     "call (in the poll callback), which is "
				     "not allowed: the run stops here");
		} else {
			CHECK(r.status == KL_RUN_RETURNED);
			CHECK_EQ_INT(r.results[0], n);
			CHECK_EQ_INT(p.inner, KL_ERR_INVALID);
			CHECK_EQ_STR(p.inner_message,
				     "kl_interp_call from the output or poll "
				     "callback of a call of the same "
				     "interpreter, which is not allowed");
		}
		/* (at the first chunk's end, give or take a segment) */
		if (act != 3)
			CHECK(r.executed >= 65536 && r.executed < 65536 + 8);
		kl_interp_free(it);
	}
	kl_module_free(m);
}

int
main(void)
{
	UNIT_RUN(test_stop_from_another_thread);
	UNIT_RUN(test_stop_after_a_builtin);
	UNIT_RUN(test_stop_before_a_folded_constant);
	UNIT_RUN(test_stop_at_a_branch_stub);
	UNIT_RUN(test_fuel_across_chunks);
	UNIT_RUN(test_fuel_in_a_long_segment);
	UNIT_RUN(test_poll_when);
	UNIT_RUN(test_poll_stops_a_loop);
	UNIT_RUN(test_poll_rules);
	return unit_report("interp_stop");
}
