/*
 * vars_bench.c -- what SSA construction for variables costs: one random
 * program of bench/vars_program.h built with kl_vars and timed in its two
 * parts (the building, with its reads and writes, and kl_vars_finish),
 * and the same program built with an alloca per variable and promoted
 * (kl_promote_func), the other way to the same SSA.
 *
 *   vars-bench [--runs N] BLOCKS VARS SPAN
 *
 * prints one line of figures, each the best of N runs (default 3):
 *
 *   insts blocks vars span  build_ms finish_ms params  mbuild_ms promote_ms
 *   mparams
 *
 * insts counts the variables' program after finish; the alloca program
 * has more (its loads, stores and allocas). bench/bench.sh makes its table.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vars_program.h"

static double
now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static uint32_t
count(const kl_func *f, uint32_t *params)
{
	uint32_t n = 0;
	*params = 0;
	for (kl_block b = kl_func_first_block(f); b.id != KL_NONE;
	     b = kl_block_next(f, b)) {
		if (b.id != kl_func_first_block(f).id)
			*params += kl_block_num_params(f, b);
		for (kl_inst i = kl_block_first_inst(f, b); i.id != KL_NONE;
		     i = kl_inst_next(f, i))
			n++;
	}
	return n;
}

static double
min_of(double a, double b)
{
	return a < b ? a : b;
}

static int
usage(FILE *to, int status)
{
	fprintf(to, "usage: vars-bench [--runs N] BLOCKS VARS SPAN\n"
		    "Times building a random program with variables and "
		    "kl_vars_finish, and\nthe same with allocas and promote. "
		    "VARS: 2 to %d; SPAN: how far branches\nreach (0: "
		    "anywhere).\n",
		VP_MAX_VARS);
	return status;
}

static bool
number(const char *s, unsigned long *out)
{
	char *end;
	if (!s || *s < '0' || *s > '9')
		return false;
	*out = strtoul(s, &end, 10);
	return *end == '\0' && *out <= 100000000;
}

int
main(int argc, char **argv)
{
	unsigned long runs = 3, nb, nvars, span;
	int a = 1;
	if (argc == 2 && strcmp(argv[1], "--help") == 0)
		return usage(stdout, 0);
	if (argc > 2 && strcmp(argv[1], "--runs") == 0) {
		if (!number(argv[2], &runs) || runs == 0)
			return usage(stderr, 2);
		a = 3;
	}
	if (argc - a != 3 || !number(argv[a], &nb) ||
	    !number(argv[a + 1], &nvars) || !number(argv[a + 2], &span) ||
	    nb == 0 || nvars < 2 || nvars > VP_MAX_VARS)
		return usage(stderr, 2);
	double build = 1e300, finish = 1e300, mbuild = 1e300, promote = 1e300;
	uint32_t insts = 0, params = 0, mparams = 0;
	for (unsigned long r = 0; r < runs; r++) {
		vars_program p;
		double t0 = now_ms();
		bool ok = vars_program_build(&p, 1, true, (uint32_t)nb,
					     (uint32_t)nvars, (uint32_t)span);
		double t1 = now_ms();
		ok = ok && vars_program_finish(&p);
		double t2 = now_ms();
		if (!ok) {
			fprintf(stderr, "vars-bench: building failed\n");
			return 1;
		}
		build = min_of(build, t1 - t0);
		finish = min_of(finish, t2 - t1);
		insts = count(p.f, &params);
		vars_program_free(&p);

		t0 = now_ms();
		ok = vars_program_build(&p, 1, false, (uint32_t)nb,
					(uint32_t)nvars, (uint32_t)span);
		t1 = now_ms();
		ok = ok && kl_promote_func(p.f, NULL) == KL_OK;
		t2 = now_ms();
		if (!ok) {
			fprintf(stderr, "vars-bench: the alloca version "
					"failed\n");
			return 1;
		}
		mbuild = min_of(mbuild, t1 - t0);
		promote = min_of(promote, t2 - t1);
		count(p.f, &mparams);
		vars_program_free(&p);
	}
	printf("%u %lu %lu %lu %.2f %.2f %u %.2f %.2f %u\n", insts, nb, nvars,
	       span, build, finish, params, mbuild, promote, mparams);
	return 0;
}
