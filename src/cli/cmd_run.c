/*
 * cmd_run.c -- `keel run`: verify a module, then run one of its functions
 * in the interpreter (docs/interpreter.md, "keel run").
 *
 * Arguments after the function name are parsed as its parameter types,
 * with the text format's spelling of literals. The program's output
 * (putchar, puts, printf) goes to standard output as it is produced; the
 * results follow on one line, ", "-separated, in the same spelling, so a
 * run can be pasted into a `; run:` test line. A trap, failure or exit is
 * described on standard error with its call stack.
 *
 * Exit status: running %main, the low 8 bits of an integer first result
 * (the convention of C's main); exit(N) gives N; otherwise 0. A trap or
 * a failure gives 1, like bad input; bad usage 2. Ctrl-C stops the run,
 * which is described as a trap is, and then keel dies of SIGINT.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char run_help[] =
	"usage: keel run [options] FILE [%FUNC [ARGS...]]\n"
	"\n"
	"Verify FILE ('-' for standard input), then run %FUNC (default\n"
	"%main; also written f for %f, #hex for any name, noname for the\n"
	"unnamed function) in the interpreter with ARGS parsed as its\n"
	"parameter types (integers in decimal or hex, floats as 1.5,\n"
	"0x1.8p1, inf, nan...).\n"
	"Program output goes to standard output, then the results on a\n"
	"line of their own, separated by \", \" (integers in signed\n"
	"decimal, unsigned for u8 .. u64, floats in the text format's\n"
	"exact spelling). A trap is\n"
	"reported on standard error as FILE:LINE: trap KIND: MESSAGE, with\n"
	"the instruction where it happened and the call stack; so is a run\n"
	"stopped by Ctrl-C (SIGINT), after which keel dies of the signal.\n"
	"\n"
	"options (before FILE):\n"
	"  --fuel N        stop with an out_of_fuel trap after N executed\n"
	"                  IR instructions (default and 0: no limit)\n"
	"  --max-depth N   call depth limit (default 10000)\n"
	"  --max-memory N  bytes of alloca, heap and data (default 256 MiB)\n"
	"  --time          print executed instructions, the time of the call\n"
	"                  (wall clock and CPU) and the speed to standard\n"
	"                  error\n"
	"  -h, --help      show this help\n"
	"\n"
	"Numbers of options are decimal or 0x hexadecimal, with the\n"
	"suffixes k, M and G (10^3, 10^6, 10^9: 256 MiB is 268435456). An\n"
	"option that takes a value may also be written --NAME=VALUE.\n"
	"\n"
	"exit status: running %main, its integer result (mod 256); after\n"
	"exit(N), N; otherwise 0. 1 on a trap, a failure, bad input or\n"
	"output that could not be written, 2 on bad usage (arguments\n"
	"that do not fit the function included)\n";

typedef struct run_opts {
	kl_interp_options io;
	bool timing;
	bool mid_line;  /* the program's output ends in an unended line */
	bool lost;      /* a write of it failed */
	bool cut;       /* a Ctrl-C broke a write of it: never flush it */
} run_opts;

/* The interpreter running, which a failed write or a Ctrl-C stops, and
 * whether a Ctrl-C did. (Static: a signal handler has nothing else to
 * look at.) */
static kl_interp *volatile running;
static volatile sig_atomic_t interrupted;

static void
on_interrupt(int sig)
{
	(void)sig;
	interrupted = 1;
	kl_interp_stop(running); /* one lock-free atomic store */
}

/*
 * Around the call: SIGINT stops the run, so that a program looping for
 * ever shows where it was. A second one, with the first's handler gone
 * (SA_RESETHAND), ends keel at once. Left alone where SIGINT is ignored
 * (a background job's), as a shell expects.
 */
static bool
catch_interrupt(struct sigaction *old)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_interrupt;
	sa.sa_flags = SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGINT, NULL, old) != 0 || old->sa_handler == SIG_IGN)
		return false;
	return sigaction(SIGINT, &sa, NULL) == 0;
}

/* The program's output. A write that fails stops the run: a program
 * printing for ever would run on with nowhere to print. */
static void
write_stdout(void *ctx, const char *data, size_t len)
{
	run_opts *ro = ctx;
	if (len)
		ro->mid_line = data[len - 1] != '\n';
	errno = 0;
	if (fwrite(data, 1, len, stdout) != len || ferror(stdout)) {
		kl_interp_stop(running);
		/* A Ctrl-C that broke a write blocked on a full pipe (keel
		 * run | less): the run is stopped, not its output lost, and
		 * what is left unwritten dies with keel. */
		if (errno == EINTR && interrupted) {
			ro->cut = true;
			return;
		}
		/* said now, while errno says why (once: the flush at the
		 * end says no more) */
		if (!ro->lost)
			cli_say_output_lost(errno ? errno : EIO);
		ro->lost = true;
	}
}

/* Parse ARGS as the parameters of func; false (message printed) if bad. */
static bool
parse_args(const kl_module *m, const char *file, const char *name,
	   kl_sym func, int argc, char **argv, uint64_t *args)
{
	kl_signature sig = kl_sym_signature(m, func);
	if ((uint32_t)argc != sig.num_params) {
		cli_usage_error("run", "%s: %s takes %u argument%s, %d given",
				file, name, sig.num_params,
				cli_plural(sig.num_params), argc);
		return false;
	}
	for (int k = 0; k < argc; k++) {
		size_t n = strlen(argv[k]);
		/* (the scanner's 0, no literal, is also an empty one's
		 * length; it skips leading blanks, which a `; run:` line has
		 * after a comma, but an argument is the literal alone) */
		bool blank = n && (argv[k][0] == ' ' || argv[k][0] == '\t');
		if (n == 0 || blank ||
		    kl_interp_scan_value(m, sig.params[k], argv[k], n,
					 &args[k]) != n) {
			cli_usage_error("run", "%s: argument %d of %s ('%s') "
					"is not a valid %s", file, k + 1, name,
					argv[k],
					kl_type_name(m, sig.params[k]));
			return false;
		}
	}
	return true;
}

/* The program's output so far to standard output, unless a Ctrl-C cut
 * a write of it (a flush would block again on the full pipe). */
static bool
flush_output(const run_opts *ro)
{
	return ro->cut || cli_flush_stdout();
}

/* "FILE:LINE: ", or "FILE: " where the innermost frame has no line (no
 * instruction ran: the registers passed the memory limit at the call),
 * or its instruction has none (one built through the API). A built-in
 * has no frame: its trap is its call's. */
static void
put_trap_place(kl_buf *out, const kl_module *m, const char *file,
	       const kl_run_result *res)
{
	uint32_t line = 0;
	if (res->stack_depth) {
		const kl_run_frame *fr = &res->stack[0];
		const kl_func *f = kl_sym_func(m, fr->func);
		if (f && fr->inst.id != KL_NONE)
			line = kl_inst_source_line(f, fr->inst);
	}
	if (line)
		kl_buf_printf(out, "%s:%u: ", file, line);
	else
		kl_buf_printf(out, "%s: ", file);
}

static int
report(const kl_interp *it, const kl_module *m, const kl_run_result *res,
       bool is_main, const char *file, const run_opts *ro)
{
	if (res->status == KL_RUN_RETURNED) {
		kl_buf out = { 0 };
		/* The results on a line of their own: "A" then 65 is not
		 * "A65". */
		if (ro->mid_line)
			kl_buf_putc(&out, '\n');
		for (uint32_t k = 0; k < res->num_results; k++) {
			if (k)
				kl_buf_puts(&out, ", ");
			kl_interp_format_value(m, res->result_types[k],
					       res->results[k], &out);
		}
		kl_buf_putc(&out, '\n');
		bool ok = cli_write_stdout(&out);
		kl_buf_free(&out);
		int status = EXIT_OK;
		if (is_main && res->num_results &&
		    kl_type_is_int(m, res->result_types[0]))
			status = (int)(res->results[0] & 255);
		/* A lost line makes the status 1, whatever the run's was. */
		return ok ? status : EXIT_BAD_INPUT;
	}
	flush_output(ro); /* (a loss is said, and fails the command) */
	kl_buf msg = { 0 };
	/* On a line of its own after output that did not end one, where
	 * both streams show together ("A" then a trap is not "Atrap"). */
	if (ro->mid_line && cli_stdout_is_stderr())
		kl_buf_putc(&msg, '\n');
	/* A failure is keel's to say (the program did not trap): named as
	 * its other errors are. */
	if (res->status == KL_RUN_FAILED)
		kl_buf_printf(&msg, "keel run: %s: ", file);
	/* A trap is the program's: placed as a compiler places an error,
	 * FILE:LINE of the innermost instruction, which an editor can
	 * jump to (the frames below say the same line in words). */
	if (res->status == KL_RUN_TRAPPED)
		put_trap_place(&msg, m, file, res);
	/* (the message keel.h gives a stop: a run that failed for a reason
	 * of its own as Ctrl-C came keeps its message) */
	if (interrupted && res->status == KL_RUN_FAILED &&
	    strcmp(res->message, "kl_interp_stop stopped the run") == 0) {
		/* the stack, under our own first line: the user stopped
		 * it, nothing went wrong */
		kl_buf_printf(&msg, "interrupted after %llu instruction%s\n",
			      (unsigned long long)res->executed,
			      cli_plural(res->executed));
		kl_buf frames = { 0 };
		kl_run_describe(it, res, &frames);
		const char *nl = memchr(frames.data, '\n', frames.len);
		kl_buf_append(&msg, nl + 1,
			      frames.len - (size_t)(nl + 1 - frames.data));
		kl_buf_free(&frames);
	} else {
		kl_run_describe(it, res, &msg);
	}
	fwrite(msg.data ? msg.data : "", 1, msg.len, stderr);
	kl_buf_free(&msg);
	if (res->status == KL_RUN_EXITED)
		return res->exit_code & 255;
	return EXIT_BAD_INPUT;
}

static int
run_file(const char *file, int argc, char **argv, run_opts *ro)
{
	cli_file f;
	if (!cli_read_file("run", file, &f))
		return EXIT_BAD_INPUT;
	file = f.name; /* "standard input" for "-" */
	kl_module *m = cli_parse_then_free_text(&f);
	int status = EXIT_BAD_INPUT;
	if (!m || !cli_verify_module(m, file, "run"))
		goto out;
	const char *name = argc > 0 ? argv[0] : "%main";
	kl_sym func = cli_lookup(m, name);
	if (func.id == KL_NONE || !kl_sym_func(m, func)) {
		cli_no_such_func("run", file, m, name);
		goto out;
	}
	int nargs = argc > 0 ? argc - 1 : 0;
	uint64_t *args = cli_alloc((size_t)nargs + 1, sizeof *args);
	if (!parse_args(m, file, name, func, nargs, argv + 1, args)) {
		/* arguments that do not fit the function: the command
		 * line's mistake, as an option's bad value is */
		free(args);
		status = EXIT_USAGE;
		goto out;
	}
	kl_interp *it = kl_interp_new(m, &ro->io);
	running = it;
	kl_run_result res;
	struct sigaction old_int;
	bool caught = catch_interrupt(&old_int);
	double t0 = cli_now();
	double c0 = cli_cpu_seconds();
	kl_interp_call(it, func, args, (uint32_t)nargs, &res);
	double t = cli_now() - t0;
	double c = cli_cpu_seconds() - c0;
	if (caught && !interrupted)
		sigaction(SIGINT, &old_int, NULL);
	flush_output(ro); /* the program's output before our lines */
	if (ro->timing)
		fprintf(stderr, "executed %llu instruction%s in %.3f s "
				"(%.1f M instructions/s; CPU time %.3f s, "
				"%.1f M/s)\n",
			(unsigned long long)res.executed,
			cli_plural(res.executed), t,
			t > 0 ? (double)res.executed / t / 1e6 : 0.0, c,
			c > 0 ? (double)res.executed / c / 1e6 : 0.0);
	size_t len;
	const char *fname = kl_sym_name(m, func, &len);
	bool is_main = len == 4 && memcmp(fname, "main", 4) == 0;
	/* (a run its lost output stopped has nothing more to say: the
	 * failed write is said below) */
	if (!ro->lost)
		status = report(it, m, &res, is_main, file, ro);
	/* Output lost fails the run whatever status the program gave: an
	 * exit(2) is no usage error, which main's finish would keep. */
	bool out_lost = !flush_output(ro);
	if (out_lost || fflush(stderr) != 0 || ferror(stderr))
		status = EXIT_BAD_INPUT;
	kl_interp_free(it);
	free(args);
out:
	kl_module_free(m);
	if (interrupted) {
		/* Die of the signal, as a shell expects of what it stops: a
		 * script's loop ends too (the handler is gone already). */
		flush_output(ro);
		fflush(stderr);
		raise(SIGINT);
		return 128 + SIGINT;
	}
	return status;
}

int
cmd_run(int argc, char **argv)
{
	run_opts ro = { { 0 }, false, false, false, false };
	static const char *const limit_name[] = { "--fuel", "--max-depth",
						   "--max-memory" };
	cli_args args;
	cli_args_init(&args, argc, argv);
	while (cli_args_next(&args)) {
		int which = -1, r = 0;
		for (int k = 0; k < 3 && !r; k++)
			if ((r = cli_args_option(&args, limit_name[k], NULL)))
				which = k;
		uint64_t v;
		if (cli_args_help(&args)) {
			fputs(run_help, stdout);
			return EXIT_OK;
		} else if (cli_args_flag(&args, "--time", NULL)) {
			ro.timing = true;
		} else if (r) {
			/* --fuel 0: no limit, as fuel=0 in a test file */
			static const uint64_t least[] = { 0, 1, 1 };
			static const uint64_t most[] = { UINT64_MAX, UINT32_MAX,
							 UINT64_MAX };
			if (!cli_option_count("run", limit_name[which], r,
					      args.value, least[which],
					      most[which], &v))
				return EXIT_USAGE;
			if (which == 0)
				ro.io.fuel = v;
			else if (which == 1)
				ro.io.max_depth = (uint32_t)v;
			else
				ro.io.max_memory = v;
		} else if (cli_args_is_option(&args)) {
			return cli_args_unknown(&args, "run");
		} else {
			break; /* the file; after it, the function and its
				  arguments, which may start with '-' */
		}
	}
	if (!args.arg)
		return cli_usage_error("run", "no input file");
	if (args.next < argc && cli_empty_func_name(argv[args.next]))
		return cli_usage_error("run", "%s", CLI_EMPTY_FUNC_NAME);
	/* No name or literal starts with "--" or is "-h": an option the
	 * user put after FILE, which would otherwise count as an argument
	 * ("%fib takes 1 argument, 3 given"). */
	for (int k = args.next; k < argc; k++)
		if (strncmp(argv[k], "--", 2) == 0 ||
		    strcmp(argv[k], "-h") == 0)
			return cli_usage_error("run", "option '%s' after FILE: "
					       "options go before it (keel run "
					       "[options] FILE [%%FUNC "
					       "[ARGS...]])", argv[k]);
	ro.io.output = write_stdout;
	ro.io.output_ctx = &ro;
	return run_file(args.arg, argc - args.next, argv + args.next, &ro);
}
