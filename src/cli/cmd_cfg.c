/*
 * cmd_cfg.c -- `keel cfg` and `keel domtree`: print the analyses of every
 * function of a file, and (--time) measure them.
 *
 * Both commands parse each file, run the analyses on each function (or on
 * the one named by --func) and print the listings of libkeel's
 * kl_*_print functions, the formats the print-cfg, domtree and loops file
 * tests check (docs/analyses.md). `keel cfg --dot` writes Graphviz
 * instead, with loops as nested clusters, loop headers bold, back edges
 * dashed, irreducible blocks red, unreachable blocks dotted and branch
 * arms labelled.
 *
 * --time measures, inside the process, each analysis over the whole file:
 * the first run (which pays for fresh memory) and the best of --repeat
 * runs that reuse the analysis objects as passes do, with the cost per
 * block and the speed in blocks per second. Printing is not timed.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char cfg_help[] =
	"usage: keel cfg [options] FILE...\n"
	"\n"
	"Print the control-flow graph of every function of each FILE ('-'\n"
	"for standard input): one line per block in layout order, its\n"
	"predecessors after '<-' and its successors after '->', one entry\n"
	"per edge (a br_table naming a block twice gives two):\n"
	"\n"
	"    cfg %max\n"
	"        block0 -> block1 block2\n"
	"        block1 <- block0 -> block2\n"
	"        block2 <- block0 block1\n"
	"\n"
	"With several FILEs, each file's listing starts with a line 'FILE:'\n"
	"('// FILE' with --dot), after a blank line but for the first.\n"
	"\n"
	"options:\n"
	"  --dot            write a Graphviz digraph per function instead:\n"
	"                   loops as nested clusters (headers bold), back\n"
	"                   edges dashed, irreducible blocks red,\n"
	"                   unreachable blocks dotted, branch edges\n"
	"                   labelled (brif: then, else; br_table: default,\n"
	"                   0, 1, ...); dot -Tsvg makes one SVG document\n"
	"                   of each: --func NAME for one image, or\n"
	"                   dot -Tsvg -O FILE.gv for a file each\n"
	"  --loops          also print the loop forest\n"
	"  --regions        also print the structured regions: the code as\n"
	"                   nested scopes, loops, ifs and switches with\n"
	"                   break, continue and (irreducible edges only)\n"
	"                   goto; docs/analyses.md has the format\n"
	"  --liveness       also print live-in and live-out sets\n"
	"  --live-limit N   with --liveness: the most entries the sets of\n"
	"                   a function may hold, live-in and live-out\n"
	"                   entries together (default 67108864); past it\n"
	"                   they are not computed, and the listing says so\n"
	"  --func NAME      only the function NAME (%f or f, #hex, noname);\n"
	"                   given again, those functions, in the file's\n"
	"                   order\n"
	"  --time           report the time of each analysis on standard\n"
	"                   error (cfg, domtree, frontiers, loops,\n"
	"                   regions; with --liveness, liveness too)\n"
	"  --repeat N       with --time: best of N runs (default 5, at\n"
	"                   most 100000)\n"
	"  -h, --help       show this help\n"
	"\n"
	"exit status: 0 on success, 1 if a file has errors, 2 on bad usage\n";

static const char domtree_help[] =
	"usage: keel domtree [options] FILE...\n"
	"\n"
	"Print the dominator tree of every function of each FILE ('-' for\n"
	"standard input), one block per line, indented under its immediate\n"
	"dominator (children in layout order), then the reverse post-order\n"
	"of the reachable blocks and the unreachable blocks:\n"
	"\n"
	"    domtree %max\n"
	"        block0\n"
	"            block1\n"
	"            block2\n"
	"        rpo: block0 block1 block2\n"
	"\n"
	"With several FILEs, each file's listing starts with a line 'FILE:',\n"
	"after a blank line but for the first.\n"
	"\n"
	"options:\n"
	"  --frontiers      also print the dominance frontiers\n"
	"  --func NAME      only the function NAME (%f or f, #hex, noname);\n"
	"                   given again, those functions, in the file's\n"
	"                   order\n"
	"  --time           report the time of each analysis on standard\n"
	"                   error (cfg, domtree, frontiers, loops,\n"
	"                   regions)\n"
	"  --repeat N       with --time: best of N runs (default 5, at\n"
	"                   most 100000)\n"
	"  -h, --help       show this help\n"
	"\n"
	"exit status: 0 on success, 1 if a file has errors, 2 on bad usage\n";

typedef struct options {
	bool domtree;  /* `keel domtree` (else `keel cfg`) */
	const char *cmd; /* "domtree" or "cfg", as messages name it */
	bool dot, loops, regions, liveness, frontiers, timing;
	const char **funcs; /* the names --func gave, if any */
	uint32_t nfuncs;
	long repeat;
	uint64_t live_limit; /* 0: the library's default */
} options;

/* The analyses of one function, reused from function to function. */
typedef struct analyses {
	kl_cfg *cfg;
	kl_domtree *dt;
	kl_domfront *df;
	kl_loops *lf;
	kl_regions *rg;
	kl_liveness *lv;
	bool too_large; /* liveness stopped at its limit for some function
			 * of the file being timed */
} analyses;

static analyses
analyses_new(const options *o)
{
	analyses a = { kl_cfg_new(), kl_domtree_new(), kl_domfront_new(),
		       kl_loops_new(), kl_regions_new(), kl_liveness_new(),
		       false };
	kl_liveness_set_limit(a.lv, o->live_limit);
	return a;
}

static void
analyses_free(analyses *a)
{
	kl_cfg_free(a->cfg);
	kl_domtree_free(a->dt);
	kl_domfront_free(a->df);
	kl_loops_free(a->lf);
	kl_regions_free(a->rg);
	kl_liveness_free(a->lv);
}

/* The sum line adds the phases before PH_REGIONS: what make bench has
 * always compared (bench/bench.sh reads it). */
enum { PH_CFG, PH_DOM, PH_DF, PH_LOOPS, PH_REGIONS, PH_LIVE, NPHASES };
static const char *const phase_name[NPHASES] = {
	"cfg", "domtree", "frontiers", "loops", "regions", "liveness"
};

/*
 * Run the analyses of f: with t (--time), all of them, each timed into t;
 * else only those the listing prints. The frontiers especially: they can
 * hold blocks^2 / 4 entries (268 MB in a nest of 8,100 loops), which the
 * plain listing, --dot (which draws loops and back edges only) and
 * --liveness never show.
 */
static void
run_analyses(analyses *a, const kl_func *f, const options *o, double *t)
{
	bool regions = t || o->regions;
	bool loops = regions || o->dot || o->loops;
	bool dom = loops || o->domtree;
	bool df = t || o->frontiers;
	double t0 = cli_now();
	kl_cfg_compute(a->cfg, f);
	double t1 = cli_now();
	if (dom)
		kl_domtree_compute(a->dt, f, a->cfg);
	double t2 = cli_now();
	if (df)
		kl_domfront_compute(a->df, f, a->cfg, a->dt);
	double t3 = cli_now();
	if (loops)
		kl_loops_compute(a->lf, f, a->cfg, a->dt);
	double t4 = cli_now();
	if (regions)
		kl_regions_compute(a->rg, f, a->cfg, a->dt, a->lf);
	double t5 = cli_now();
	if (o->liveness && kl_liveness_compute(a->lv, f, a->cfg) != KL_OK)
		a->too_large = true;
	double t6 = cli_now();
	if (t) {
		t[PH_CFG] += t1 - t0;
		t[PH_DOM] += t2 - t1;
		t[PH_DF] += t3 - t2;
		t[PH_LOOPS] += t4 - t3;
		t[PH_REGIONS] += t5 - t4;
		t[PH_LIVE] += t6 - t5;
	}
}

/* Whether symbol s is to be shown: all, or one --func named (only, a
 * flag per symbol, set once per module in run_file). */
static bool
wanted(const bool *only, uint32_t s)
{
	return !only || only[s];
}

static void
print_func(const options *o, analyses *a, const kl_func *f, kl_buf *out)
{
	if (o->domtree) {
		kl_domtree_print(f, a->dt, o->frontiers ? a->df : NULL, out);
		return;
	}
	if (o->dot) {
		kl_cfg_print_dot(f, a->cfg, a->dt, a->lf, out);
		return;
	}
	kl_cfg_print(f, a->cfg, out);
	if (o->loops)
		kl_loops_print(f, a->lf, out);
	if (o->regions)
		kl_regions_print(f, a->cfg, a->rg, out);
	if (o->liveness)
		kl_liveness_print(f, a->lv, out);
}

static void
report_times(const char *file, uint64_t nfuncs, uint64_t nblocks,
	     uint64_t ninsts, const double *first, const double *best,
	     long repeat, bool live, bool too_large, uint64_t live_limit)
{
	fprintf(stderr, "%s: %llu function%s, %llu block%s, %llu "
		"instruction%s\n", file, (unsigned long long)nfuncs,
		cli_plural(nfuncs), (unsigned long long)nblocks,
		cli_plural(nblocks), (unsigned long long)ninsts,
		cli_plural(ninsts));
	if (nblocks == 0) {
		/* no rate to give ("inf M blocks/s" said nothing) */
		fprintf(stderr, "  no blocks: nothing timed\n");
		return;
	}
	double nb = (double)nblocks;
	fprintf(stderr, "  %-16s %10s %10s %10s %12s\n", "analysis",
		"first ms", "best ms", "ns/block", "M blocks/s");
	double sum_first = 0, sum_best = 0;
	for (int p = 0; p < (live ? NPHASES : PH_LIVE); p++) {
		fprintf(stderr, "  %-16s %10.3f %10.3f %10.1f %12.1f\n",
			phase_name[p], first[p] * 1e3, best[p] * 1e3,
			best[p] * 1e9 / nb, nb / best[p] / 1e6);
		if (p < PH_REGIONS) {
			sum_first += first[p];
			sum_best += best[p];
		}
	}
	fprintf(stderr, "  %-16s %10.3f %10.3f %10.1f %12.1f\n",
		"cfg+dom+df+loops", sum_first * 1e3, sum_best * 1e3,
		sum_best * 1e9 / nb, nb / sum_best / 1e6);
	fprintf(stderr, "  (best of %ld run%s reusing the analysis objects; "
		"first = first run, fresh memory)\n", repeat,
		cli_plural((uint64_t)repeat));
	if (live && too_large)
		fprintf(stderr, "  (liveness stopped at its size limit of %llu "
			"entr%s: the live sets of this input are too large "
			"to hold)\n", (unsigned long long)live_limit,
			live_limit == 1 ? "y" : "ies");
}

/* Time every analysis over all functions of m: first run and best run. */
static void
time_module(const options *o, analyses *a, const char *file,
	    const kl_module *m, const bool *only)
{
	double first[NPHASES] = { 0 }, best[NPHASES];
	uint64_t nfuncs = 0, nblocks = 0, ninsts = 0;
	for (uint32_t s = 0; s < kl_module_num_syms(m); s++) {
		kl_func *f = kl_sym_func(m, (kl_sym){ s });
		if (!f || !wanted(only, s))
			continue;
		nfuncs++;
		for (kl_block b = kl_func_first_block(f); b.id != KL_NONE;
		     b = kl_block_next(f, b)) {
			nblocks++;
			for (kl_inst i = kl_block_first_inst(f, b);
			     i.id != KL_NONE; i = kl_inst_next(f, i))
				ninsts++;
		}
	}
	for (int p = 0; p < NPHASES; p++)
		best[p] = 1e30;
	/* The note about the limit is this file's: an earlier file that
	 * passed it (timed or printed) says nothing about this one. */
	a->too_large = false;
	for (long r = 0; r < o->repeat; r++) {
		double t[NPHASES] = { 0 };
		for (uint32_t s = 0; s < kl_module_num_syms(m); s++) {
			kl_func *f = kl_sym_func(m, (kl_sym){ s });
			if (f && wanted(only, s))
				run_analyses(a, f, o, t);
		}
		for (int p = 0; p < NPHASES; p++) {
			if (r == 0)
				first[p] = t[p];
			if (t[p] < best[p])
				best[p] = t[p];
		}
	}
	report_times(file, nfuncs, nblocks, ninsts, first, best, o->repeat,
		     o->liveness, a->too_large, kl_liveness_limit(a->lv));
}

/*
 * Print the analyses of the file name (and time them). With several files
 * (label), the listing of each starts with a line naming it, as --time's
 * lines do ("FILE:"; in a digraph, which has no such line, the comment
 * "// FILE"), after a blank line if one came before (*printed).
 */
static int
run_file(const options *o, analyses *a, const char *name, bool label,
	 bool *printed)
{
	cli_file file;
	if (!cli_read_file(o->cmd, name, &file))
		return EXIT_BAD_INPUT;
	/* Nothing here reads the text once it is parsed: freed, its pages
	 * serve the analyses and the listing (domtree of huge-1M peaked at
	 * 129 MB with the 36 MB text mapped, now 94). */
	kl_module *m = cli_parse_then_free_text(&file);
	if (!m)
		return EXIT_BAD_INPUT;
	int status = EXIT_OK;
	bool *only = NULL;
	if (o->nfuncs) {
		only = cli_alloc(kl_module_num_syms(m) + 1, sizeof *only);
		for (uint32_t k = 0; k < o->nfuncs; k++) {
			kl_sym s = cli_lookup(m, o->funcs[k]);
			if (s.id != KL_NONE && kl_sym_func(m, s)) {
				only[s.id] = true;
				continue;
			}
			cli_no_such_func(o->cmd, file.name, m, o->funcs[k]);
			status = EXIT_BAD_INPUT;
		}
	}
	if (o->timing)
		time_module(o, a, file.name, m, only);
	kl_buf out = { 0 };
	bool found = false;
	if (label) { /* a file without functions too: its listing is empty */
		kl_buf_printf(&out, "%s%s%s%s\n", *printed ? "\n" : "",
			      o->dot ? "// " : "", file.name,
			      o->dot ? "" : ":");
		*printed = true;
	}
	for (uint32_t s = 0; s < kl_module_num_syms(m); s++) {
		kl_func *f = kl_sym_func(m, (kl_sym){ s });
		if (!f || !wanted(only, s))
			continue;
		run_analyses(a, f, o, NULL);
		if (found && !o->dot)
			kl_buf_putc(&out, '\n');
		found = true;
		print_func(o, a, f, &out);
	}
	if (!cli_write_stdout(&out))
		status = EXIT_BAD_INPUT;
	kl_buf_free(&out);
	free(only);
	kl_module_free(m);
	return status;
}

/* funcs has room for every argument as a --func name. */
static int
run_with(int argc, char **argv, bool domtree, const char **funcs)
{
	const char *cmd = domtree ? "domtree" : "cfg";
	options o = { .domtree = domtree, .cmd = cmd, .repeat = 5,
		      .funcs = funcs };
	bool repeat_given = false;
	int nfiles = 0;
	cli_args args;
	cli_args_init(&args, argc, argv);
	while (cli_args_next(&args)) {
		int func = cli_args_option(&args, "--func", NULL);
		int repeat = func ? 0
				  : cli_args_option(&args, "--repeat", NULL);
		int limit = func || repeat || domtree
				    ? 0
				    : cli_args_option(&args, "--live-limit",
						      NULL);
		if (cli_args_help(&args)) {
			fputs(domtree ? domtree_help : cfg_help, stdout);
			return EXIT_OK;
		} else if (!domtree && cli_args_flag(&args, "--dot", NULL)) {
			o.dot = true;
		} else if (!domtree && cli_args_flag(&args, "--loops", NULL)) {
			o.loops = true;
		} else if (!domtree &&
			   cli_args_flag(&args, "--regions", NULL)) {
			o.regions = true;
		} else if (!domtree &&
			   cli_args_flag(&args, "--liveness", NULL)) {
			o.liveness = true;
		} else if (domtree &&
			   cli_args_flag(&args, "--frontiers", NULL)) {
			o.frontiers = true;
		} else if (cli_args_flag(&args, "--time", NULL)) {
			o.timing = true;
		} else if (limit) {
			uint64_t n;
			if (!cli_option_count(cmd, "--live-limit", limit,
					      args.value, 1, UINT64_MAX, &n))
				return EXIT_USAGE;
			o.live_limit = n;
		} else if (func) {
			if (func < 0)
				return cli_usage_error(cmd, "--func needs a "
						       "value");
			if (cli_empty_func_name(args.value))
				return cli_usage_error(cmd, "%s",
						       CLI_EMPTY_FUNC_NAME);
			o.funcs[o.nfuncs++] = args.value;
		} else if (repeat) {
			uint64_t n;
			if (!cli_option_count(cmd, "--repeat", repeat,
					      args.value, 1, 100000, &n))
				return EXIT_USAGE;
			o.repeat = (long)n;
			repeat_given = true;
		} else if (cli_args_is_option(&args)) {
			return cli_args_unknown(&args, cmd);
		} else {
			if ((nfiles = cli_args_keep(&args, cmd)) < 0)
				return EXIT_USAGE;
		}
	}
	if (nfiles == 0)
		return cli_usage_error(cmd, "no input files");
	/* An option that would change nothing is a mistake to point out,
	 * not to ignore. */
	if (repeat_given && !o.timing)
		return cli_usage_error(cmd, "--repeat counts --time's runs: "
				       "give --time too");
	if (o.live_limit && !o.liveness)
		return cli_usage_error(cmd, "--live-limit bounds --liveness's "
				       "sets: give --liveness too");
	if (o.dot && (o.loops || o.regions || o.liveness))
		/* the digraph has the loops already, and no place for sets
		 * or a tree */
		return cli_usage_error(
			cmd, "--dot prints no %s",
			o.loops     ? "--loops (the digraph has them)"
			: o.regions ? "--regions"
				    : "--liveness");
	analyses an = analyses_new(&o);
	int status = EXIT_OK;
	bool printed = false; /* a file's listing is out */
	for (int i = 1; i <= nfiles; i++) {
		if (o.timing && i > 1) {
			/* The first run of each file is reported as the one
			 * on fresh memory: objects kept from the file before
			 * made it as fast as the best (19 ms -> 3 ms for
			 * huge-200k timed twice). */
			analyses_free(&an);
			an = analyses_new(&o);
		}
		int st = run_file(&o, &an, argv[i], nfiles > 1, &printed);
		if (st != EXIT_OK)
			status = st;
	}
	analyses_free(&an);
	return status;
}

static int
run(int argc, char **argv, bool domtree)
{
	const char **funcs = cli_alloc((size_t)argc + 1, sizeof *funcs);
	int status = run_with(argc, argv, domtree, funcs);
	free(funcs);
	return status;
}

int
cmd_cfg(int argc, char **argv)
{
	return run(argc, argv, false);
}

int
cmd_domtree(int argc, char **argv)
{
	return run(argc, argv, true);
}
