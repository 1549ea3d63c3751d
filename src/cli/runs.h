/*
 * runs.h -- calling a module's functions in the interpreter on sample
 * arguments and comparing what the calls do: what `keel difftest` and the
 * fuzz_promote target share. Public API only (keel.h), so a fuzz target
 * can compile runs.c beside the library.
 */
#ifndef KEEL_CLI_RUNS_H
#define KEEL_CLI_RUNS_H

#include <stdbool.h>
#include <stdint.h>

#include "keel.h"

enum {
	RUN_MAX_PARAMS = 16, /* functions with more are not called */
	RUN_NVEC = 8,        /* argument vectors per function with parameters */
	/* Fuel after a pass, as a multiple of the fuel before: promote
	 * adds up to a zero per type at the top of a function, so a call
	 * that finished before may need more after. */
	RUN_AFTER_FUEL_FACTOR = 8,
	/* Memory for the calls (the interpreter's default), and after a
	 * pass, for a call that ran over it: registers share the limit
	 * with allocas, and a pass may trade one for the other (promote
	 * adds block parameters, under half as many again as a function
	 * had values in keel-gen's programs). Not 8 times: a pass that
	 * makes a big function recurse for ever would take 2 GB to show. */
	RUN_MEMORY = 256 << 20,
	RUN_AFTER_MEMORY_FACTOR = 2,
	/* Fuel on the probe (run_make_probe): an instruction more for each
	 * alloca. */
	RUN_PROBE_FUEL_FACTOR = 2,
};

/*
 * A program's output as a call keeps it: its first `keep` bytes, and the
 * length and a hash of all of it. A program printing for ever then holds
 * no more than keep bytes of the host's memory, and two outputs still
 * compare whole (a difference past what was kept changes the hash).
 */
typedef struct run_output {
	kl_buf kept;
	uint64_t len;  /* bytes printed in all */
	uint64_t hash; /* FNV-1a of all of them */
	size_t keep;   /* the most kept */
} run_output;

/* How much of an output difftest keeps: enough to show where two differ
 * in any output a test would print. */
#define RUN_OUTPUT_KEEP ((size_t)1 << 20)

/* Forget what o took; keep at most keep bytes of what comes next. */
void run_output_start(run_output *o, size_t keep);
/* The interpreter's output callback, ctx a run_output. */
void run_output_take(void *ctx, const char *data, size_t len);
/* Did a and b take the same bytes (by length, hash and what was kept)? */
bool run_output_same(const run_output *a, const run_output *b);

/* What one call did, kept after the interpreter's next call. */
typedef struct run_outcome {
	kl_run_status status;
	uint32_t trap, user_code, nres;
	int32_t exit_code;
	kl_buf res;        /* RETURNED: each result's bits, 8 bytes each */
	run_output output; /* what the program printed */
} run_outcome;

/* An interpreter on a module, its program's output collected. */
typedef struct runner {
	const kl_module *m;
	kl_interp *it;
	run_output sink;
} runner;

/* max_memory 0: the interpreter's default. */
void runner_init(runner *r, const kl_module *m, uint64_t fuel,
		 uint64_t max_memory);
void runner_free(runner *r);

/* Can f be called on sample arguments (at most RUN_MAX_PARAMS, each an
 * integer or a float)? */
bool run_callable(const kl_module *m, const kl_func *f);

/* How many argument vectors f is called on: one without parameters. */
uint32_t run_nvectors(const kl_func *f);

/* Argument vector vec of f (zeros; 1, 2, 3...; six mixes of signs and
 * sizes), into args; returns how many. */
uint32_t run_args(const kl_module *m, const kl_func *f, uint32_t vec,
		  uint64_t *args);

/* Call function s on argument vector vec, in fresh memory. */
void run_call(runner *r, kl_sym s, uint32_t vec, run_outcome *o);

/* Did the call finish on its own: not out of fuel, not over the call
 * depth or memory limit, not stopped by the interpreter? Only such
 * calls say what the program does. */
bool run_finished(const run_outcome *o);

/* Did the call run over the call depth or memory limit? After a pass
 * that may be no fault of the pass, which may trade memory for
 * registers (they share the limit): difftest runs it again with more
 * memory, not more depth. */
bool run_over_limit(const run_outcome *o);

/* The same status, results, trap, exit code and output? */
bool run_same(const run_outcome *a, const run_outcome *b);

/* "returned 42", "trapped int_divz", "exited 3", ... (results spelt as
 * the types of sig in m, as keel run prints them) and the output when
 * there is some: whole when short, else its length and the part from
 * `from` (the first byte where it differs from the other outcome's). */
void run_describe(kl_buf *out, const kl_module *m, kl_signature sig,
		  const run_outcome *o, size_t from);
/* Where the outputs of a and b first differ (the shorter's length if one
 * is the start of the other). */
size_t run_output_difference(const run_outcome *a, const run_outcome *b);
/* f's argument vector vec as a call: "%f(100, -1)". */
void run_describe_call(kl_buf *out, const kl_module *m, kl_sym s,
		       uint32_t vec);

void run_outcome_free(run_outcome *o);

/*
 * The probes of a comparison: m changed so that the objects a call makes
 * get other ids (the interpreter numbers allocas and heap objects in the
 * order they are made, and a pointer's bits are its object's id and an
 * offset). A call that does something else on a probe depends on object
 * ids: it shows a pointer's bits, or fills the memory limit. A pass that
 * removes allocas, as promote does, changes those ids, and the call's
 * outcome with them, legitimately.
 *
 * Probe 0 has a one-byte alloca before every alloca and alloca_dyn: an
 * object made after k allocas moves up by k (+1 for an alloca). Probe 1
 * has those and one symbol more, at the end (symbols have the first
 * ids), so every such object moves by one more. One probe alone can
 * miss a dependence: an id modulo 3 stays where it was when the object
 * moved by 3 (tests/difftest/id-modulo.kl). Two moves one apart cannot
 * both be multiples of any n >= 2. m stays valid IR if it was.
 */
enum { RUN_NPROBES = 2 };
kl_status run_make_probe(kl_module *m, uint32_t probe);

/*
 * Is a call that differs after the passes no fault of theirs? A call
 * that ran out of fuel or over the memory limit after runs again with
 * more of both (RUN_AFTER_*_FACTOR): a pass may add instructions
 * (promote's zeros) or trade memory for registers, which share the
 * limit. Not with more call depth, which no pass should need: a pass
 * that made a function call itself for ever once passed every file, its
 * calls excused as over a limit after the passes. A call that does
 * something else on either probe depends on object ids. The longer run
 * and the probes are made only when a call differs: a right pass pays
 * nothing for them.
 */
enum run_excuse {
	RUN_EXCUSE_MORE,       /* with more fuel and memory: the same */
	RUN_EXCUSE_OBJECT_IDS, /* the outcome depends on object ids */
	RUN_NOT_EXCUSED,       /* the passes changed what the call does */
};

typedef struct run_judge {
	const kl_module *after;
	uint64_t fuel;
	/* a copy of the module before the passes, to make the probe of */
	kl_module *(*copy_before)(void *ctx);
	void *ctx;
	runner longer;    /* after, with more fuel and memory */
	kl_module *probes[RUN_NPROBES]; /* run_make_probe's, of before */
	runner on_probe[RUN_NPROBES];
	run_outcome scratch;
} run_judge;

void run_judge_init(run_judge *j, const kl_module *after, uint64_t fuel,
		    kl_module *(*copy_before)(void *ctx), void *ctx);
/* Call s on vector v did *before before the passes and *after after them
 * (the same function, symbol s_after of the module after), with the fuel
 * given and RUN_MEMORY, and they differ. *after may be replaced by the
 * longer run's outcome. */
enum run_excuse run_judge_excuse(run_judge *j, kl_sym s, kl_sym s_after,
				 uint32_t v, const run_outcome *before,
				 run_outcome *after);
void run_judge_free(run_judge *j);

#endif
