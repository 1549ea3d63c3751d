/*
 * cmd_reduce.c -- `keel reduce`: make a program smaller while a test
 * command still finds it interesting (docs/reduce.md), as llvm-reduce and
 * C-Reduce do: a miscompiled function of 5,000 lines becomes the dozen
 * that show the bug.
 *
 * Each candidate is the smallest text found so far with something taken
 * out: whole declarations, data and functions (from the text), function
 * bodies, branches, instructions and block parameters (reduce_edit.c, on
 * a fresh parse), then a cleanup by sccp, dce and simplify. A candidate
 * must verify and print shorter than the best (renumbered), so every
 * step makes progress and the reduction ends. Lists are taken out in
 * halves, then quarters, ... down to one element at a time (Zeller's
 * delta debugging, without the complements), and the rounds repeat until
 * one takes nothing out.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "reduce.h"
#include "runs.h"

static const char reduce_help[] =
	"usage: keel reduce --test CMD [options] FILE\n"
	"\n"
	"Make FILE ('-' for standard input) smaller while the shell command\n"
	"CMD still finds it interesting, and print the smallest module found.\n"
	"CMD runs as 'sh -c CMD sh CANDIDATE': the candidate's path is $1,\n"
	"a file of the input's name in a directory of its own. It is\n"
	"interesting when CMD exits with status 0; its output is discarded.\n"
	"FILE must verify, and be interesting itself. Every candidate\n"
	"verifies, so CMD sees valid IR only. For example, to find the\n"
	"little a pass gets wrong:\n"
	"\n"
	"  keel reduce --test '! keel difftest -q -p inline \"$1\"' big.kl\n"
	"\n"
	"What goes, in rounds until one takes nothing more: declarations,\n"
	"data and functions; function bodies (made 'return 0'); branches\n"
	"(made a jump to one destination, or a return); instructions (their\n"
	"results made zeros); block parameters; then sccp, cse, dce and\n"
	"simplify.\n"
	"\n"
	"options:\n"
	"  -t, --test CMD      the interestingness test (required)\n"
	"  -o, --output FILE   write the result to FILE (each time it gets\n"
	"                      smaller, so an interrupted run keeps it)\n"
	"                      instead of standard output at the end\n"
	"  --timeout SECONDS   a test running longer is killed and counts as\n"
	"                      not interesting (0: no limit; default: ten\n"
	"                      times what it took on FILE, at least 1):\n"
	"                      a candidate may loop for ever, so give a\n"
	"                      'keel run' in CMD a --fuel\n"
	"  -v, --verbose       say on standard error what each kept step\n"
	"                      took out\n"
	"  -h, --help          show this help\n"
	"\n"
	"Ends with a line on standard error: the sizes before and after, and\n"
	"how many tests ran. Exit status 0 on success, 1 if FILE cannot be\n"
	"read, does not parse or verify, or is not interesting, if a\n"
	"candidate cannot be written or the test cannot be started, or the\n"
	"output cannot be written, 2 on bad usage.\n";

typedef struct reducer {
	const char *test;
	double timeout; /* seconds; 0: none; below 0: from the input's */
	bool verbose;
	const char *out_path;
	char *dir, *path; /* where candidates go */
	/* best: the smallest interesting text, the output (the input as
	 * read until a candidate is kept); work: best's module as the
	 * printer writes it, renumbered, which edits start from and a
	 * candidate must be shorter than. */
	kl_buf best, work, cand;
	size_t start_len;
	uint64_t tests, kept;
	/* Hashes of the candidates tested, sorted: the same text (two
	 * table entries to one block, a stub made again) is not tested
	 * twice. */
	uint64_t *seen;
	uint32_t num_seen, cap_seen;
	bool save_failed;
	bool stopped; /* a candidate could not be written or tested */
	bool reduced; /* the input was interesting: best is the output */
} reducer;

/* A test's verdict beside an exit status (0 to 255). */
enum {
	TEST_SIGNAL = 256,   /* + N: killed by signal N */
	TEST_TIMEOUT = -1,
	TEST_CANNOT_RUN = -2,
};

/* For the signal handler: what to kill and take away on an interrupt. */
static volatile sig_atomic_t running_test;
static const char *volatile temp_path, *volatile temp_dir,
	*volatile temp_out;

static void
on_interrupt(int sig)
{
	if (running_test > 0)
		kill(-running_test, SIGKILL);
	if (temp_path)
		unlink(temp_path);
	if (temp_dir)
		rmdir(temp_dir);
	if (temp_out)
		unlink(temp_out);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void
sleep_seconds(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (time_t)s) * 1e9) };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Run the test on the candidate file: its exit status, or TEST_*. */
static int
run_test(reducer *r)
{
	/* An interrupt between the fork and running_test would leave the
	 * test running: the signals wait until the parent knows its pid. */
	sigset_t interrupts, before;
	sigemptyset(&interrupts);
	sigaddset(&interrupts, SIGINT);
	sigaddset(&interrupts, SIGTERM);
	sigaddset(&interrupts, SIGHUP);
	sigprocmask(SIG_BLOCK, &interrupts, &before);
	pid_t pid = fork();
	if (pid < 0) {
		sigprocmask(SIG_SETMASK, &before, NULL);
		fprintf(stderr, "keel reduce: fork: %s\n", strerror(errno));
		return TEST_CANNOT_RUN;
	}
	if (pid == 0) {
		setpgid(0, 0);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		sigprocmask(SIG_SETMASK, &before, NULL);
		signal(SIGPIPE, SIG_DFL); /* (ignored here, not in the test) */
		int null = open("/dev/null", O_RDWR);
		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
			dup2(null, 2);
		}
		execl("/bin/sh", "sh", "-c", r->test, "sh", r->path,
		      (char *)NULL);
		_exit(127);
	}
	setpgid(pid, pid); /* (the child does too: whichever runs first) */
	running_test = pid;
	sigprocmask(SIG_SETMASK, &before, NULL);
	double start = cli_now(), nap = 50e-6;
	int status = 0;
	for (;;) {
		pid_t got = waitpid(pid, &status, WNOHANG);
		if (got == pid)
			break;
		if (got < 0 && errno != EINTR) {
			running_test = 0;
			return TEST_CANNOT_RUN;
		}
		if (r->timeout > 0 && cli_now() - start > r->timeout) {
			kill(-pid, SIGKILL);
			while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
				;
			running_test = 0;
			return TEST_TIMEOUT;
		}
		sleep_seconds(nap);
		if (nap < 5e-3)
			nap *= 2;
	}
	running_test = 0;
	if (WIFSIGNALED(status))
		return TEST_SIGNAL + WTERMSIG(status);
	return WIFEXITED(status) ? WEXITSTATUS(status) : TEST_CANNOT_RUN;
}

static bool
write_file(const char *path, const kl_buf *text)
{
	FILE *to = fopen(path, "w");
	if (!to)
		return false;
	/* (an empty module is an empty buffer, whose data is NULL) */
	bool ok = !text->len ||
		  fwrite(text->data, 1, text->len, to) == text->len;
	return (fclose(to) == 0) & ok;
}

/* The test's verdict on text. One that cannot be given (the candidate
 * not written, the test not started) stops the reduction. */
static int
test_text(reducer *r, const kl_buf *text)
{
	if (!write_file(r->path, text)) {
		fprintf(stderr, "keel reduce: cannot write %s: %s\n", r->path,
			strerror(errno));
		r->stopped = true;
		return TEST_CANNOT_RUN;
	}
	r->tests++;
	int status = run_test(r);
	if (status == TEST_CANNOT_RUN)
		r->stopped = true;
	return status;
}

/* The hash runs.c takes of a program's output (FNV-1a), of text. */
static uint64_t
text_hash(const kl_buf *text)
{
	run_output o = { 0 };
	run_output_start(&o, 0);
	run_output_take(&o, text->data, text->len);
	kl_buf_free(&o.kept);
	return o.hash;
}

/* Was text tested before? Remembers it if not. */
static bool
tested_before(reducer *r, const kl_buf *text)
{
	uint64_t h = text_hash(text);
	uint32_t lo = 0, hi = r->num_seen;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (r->seen[mid] < h)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < r->num_seen && r->seen[lo] == h)
		return true;
	cli_grow(&r->seen, &r->cap_seen, sizeof *r->seen, r->num_seen + 1);
	memmove(r->seen + lo + 1, r->seen + lo,
		(r->num_seen - lo) * sizeof *r->seen);
	r->seen[lo] = h;
	r->num_seen++;
	return false;
}

/* Write the best text to the output file. A regular file (or none yet)
 * is written beside and renamed over, keeping its mode, so that it
 * always holds a whole module; anything else (a symbolic link, a
 * device, a pipe) is written through. */
static bool
save_best(reducer *r)
{
	if (!r->out_path)
		return true;
	/* (zeroed, as cli.c's: MSan does not see lstat64 write it) */
	struct stat st = { 0 };
	bool exists = lstat(r->out_path, &st) == 0;
	if (exists && !S_ISREG(st.st_mode)) {
		if (write_file(r->out_path, &r->best))
			return true;
		fprintf(stderr, "keel reduce: cannot write %s: %s\n",
			r->out_path, strerror(errno));
		return false;
	}
	size_t n = strlen(r->out_path);
	char *tmp = cli_alloc(n + 16, 1);
	memcpy(tmp, r->out_path, n);
	memcpy(tmp + n, ".reducing", 10);
	temp_out = tmp;
	bool ok = write_file(tmp, &r->best) &&
		  (!exists || chmod(tmp, st.st_mode & 07777) == 0) &&
		  rename(tmp, r->out_path) == 0;
	if (!ok) {
		fprintf(stderr, "keel reduce: cannot write %s: %s\n",
			r->out_path, strerror(errno));
		unlink(tmp);
	}
	temp_out = NULL;
	free(tmp);
	return ok;
}

static kl_module *
parse_text(const char *text, size_t len)
{
	kl_module *m = NULL;
	kl_parse_module(text, len, NULL, &m, NULL);
	return m;
}

/* Keep m (an edit of the best text, in which it takes m over) if it
 * verifies, prints shorter and is interesting. Frees m. */
static bool
try_module(reducer *r, kl_module *m, const char *what, uint32_t from,
	   uint32_t to)
{
	bool kept = false;
	if (m && kl_verify_module(m, NULL) == KL_OK) {
		kl_print_options opts = { .renumber = true };
		kl_buf_reset(&r->cand);
		kl_print_module(m, &opts, &r->cand);
		if (r->cand.len < r->work.len && !r->stopped &&
		    !tested_before(r, &r->cand) &&
		    test_text(r, &r->cand) == 0)
			kept = true;
	}
	kl_module_free(m);
	if (!kept)
		return false;
	if (r->verbose && to - from > 1)
		fprintf(stderr, "keel reduce: %s %u-%u: %zu -> %zu bytes\n",
			what, from, to - 1, r->work.len, r->cand.len);
	else if (r->verbose)
		fprintf(stderr, "keel reduce: %s %u: %zu -> %zu bytes\n",
			what, from, r->work.len, r->cand.len);
	kl_buf_reset(&r->best);
	kl_buf_append(&r->best, r->cand.data, r->cand.len);
	kl_buf swap = r->work;
	r->work = r->cand;
	r->cand = swap;
	r->kept++;
	if (!save_best(r))
		r->save_failed = true;
	return true;
}

/* Where each declaration, data object and function of the best text
 * starts (a line that starts with its keyword), and its end. */
static uint32_t
item_starts(const kl_buf *text, size_t **starts)
{
	static const char *const keywords[] = { "declare ", "data ",
						"function " };
	uint32_t n = 0, cap = 0;
	*starts = NULL;
	for (size_t at = 0; at < text->len;) {
		for (size_t k = 0; k < 3; k++) {
			size_t kl = strlen(keywords[k]);
			if (text->len - at > kl &&
			    memcmp(text->data + at, keywords[k], kl) == 0) {
				cli_grow(starts, &cap, sizeof **starts, n + 2);
				(*starts)[n++] = at;
				break;
			}
		}
		const char *nl = memchr(text->data + at, '\n',
					text->len - at);
		at = nl ? (size_t)(nl - text->data) + 1 : text->len;
	}
	cli_grow(starts, &cap, sizeof **starts, n + 1);
	(*starts)[n] = text->len;
	return n;
}

/* Items [from, to) of the best text taken out, if what is left parses. */
static bool
try_items(reducer *r, uint32_t from, uint32_t to)
{
	size_t *starts;
	uint32_t n = item_starts(&r->work, &starts);
	bool kept = false;
	if (to <= n) {
		kl_buf text = { 0 };
		kl_buf_append(&text, r->work.data, starts[from]);
		kl_buf_append(&text, r->work.data + starts[to],
			      r->work.len - starts[to]);
		kl_module *m = parse_text(text.data, text.len);
		kl_buf_free(&text);
		kept = try_module(r, m, "items", from, to);
	}
	free(starts);
	return kept;
}

/* How many elements of the kind (-1: items of the text) the best has. */
static uint32_t
count(reducer *r, int kind)
{
	if (kind < 0) {
		size_t *starts;
		uint32_t n = item_starts(&r->work, &starts);
		free(starts);
		return n;
	}
	kl_module *m = parse_text(r->work.data, r->work.len);
	uint32_t n = m ? reduce_count(m, (reduce_kind)kind) : 0;
	kl_module_free(m);
	return n;
}

static bool
try_edit(reducer *r, int kind, uint32_t from, uint32_t to)
{
	if (kind < 0)
		return try_items(r, from, to);
	kl_module *m = parse_text(r->work.data, r->work.len);
	if (m && !reduce_apply(m, (reduce_kind)kind, from, to)) {
		kl_module_free(m);
		return false;
	}
	return try_module(r, m, reduce_kind_name((reduce_kind)kind), from,
			  to);
}

/* Take out what the elements of one kind allow: all at once, then
 * halves, quarters... down to one at a time (always one at a time for
 * branches, whose elements are choices for one terminator). */
static bool
reduce_kind_all(reducer *r, int kind)
{
	bool progress = false;
	uint32_t n = count(r, kind);
	uint32_t chunk = kind == REDUCE_TERMS ? 1 : n;
	while (chunk) {
		for (uint32_t at = 0; at < n && !r->stopped;) {
			uint32_t end = n - at < chunk ? n : at + chunk;
			if (try_edit(r, kind, at, end)) {
				progress = true;
				n = count(r, kind);
			} else {
				at = end;
			}
		}
		if (chunk == 1)
			break;
		chunk = (chunk + 1) / 2;
	}
	return progress;
}

static void
reduce(reducer *r, kl_module *input)
{
	/* Edits start from the input as the printer writes it, and what
	 * they make must be shorter than that (the input's own text may be
	 * shorter, as written without indentation). The printed input is
	 * the best when it is interesting too. */
	kl_print_options opts = { .renumber = true };
	kl_print_module(input, &opts, &r->work);
	kl_module_free(input);
	tested_before(r, &r->work);
	if ((r->work.len != r->best.len ||
	     memcmp(r->work.data, r->best.data, r->work.len)) &&
	    test_text(r, &r->work) == 0) {
		if (r->verbose)
			fprintf(stderr, "keel reduce: printed: %zu -> %zu "
				"bytes\n", r->best.len, r->work.len);
		kl_buf_reset(&r->best);
		kl_buf_append(&r->best, r->work.data, r->work.len);
		r->kept++;
		if (!save_best(r))
			r->save_failed = true;
	}
	static const int order[] = {
		-1, REDUCE_STUB, REDUCE_TERMS, REDUCE_INSTS, REDUCE_PARAMS,
		REDUCE_CLEAN,
	};
	for (bool progress = true; progress && !r->stopped;) {
		progress = false;
		for (size_t k = 0; k < sizeof order / sizeof *order; k++)
			progress |= reduce_kind_all(r, order[k]);
	}
}

/* The directory and file the candidates go to. */
static bool
make_temp(reducer *r, const char *input)
{
	const char *tmp = getenv("TMPDIR");
	if (!tmp || !*tmp)
		tmp = "/tmp";
	kl_buf dir = { 0 };
	kl_buf_printf(&dir, "%s/keel-reduce.XXXXXX", tmp);
	if (!mkdtemp(dir.data)) {
		fprintf(stderr, "keel reduce: cannot make a directory in %s: "
			"%s\n", tmp, strerror(errno));
		kl_buf_free(&dir);
		return false;
	}
	const char *base = strcmp(input, "-") ? strrchr(input, '/') : NULL;
	base = base ? base + 1 : strcmp(input, "-") ? input : "input.kl";
	if (!*base)
		base = "input.kl";
	r->dir = dir.data;
	kl_buf path = { 0 };
	kl_buf_printf(&path, "%s/%s", r->dir, base);
	r->path = path.data;
	temp_dir = r->dir;
	temp_path = r->path;
	return true;
}

/* Take the candidates' directory away, with what a test left beside the
 * candidate (a directory of its own it says it leaves). */
static void
remove_temp(reducer *r)
{
	temp_path = temp_dir = NULL;
	if (r->path)
		unlink(r->path);
	DIR *d = r->dir ? opendir(r->dir) : NULL;
	for (struct dirent *e; d && (e = readdir(d));) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		kl_buf path = { 0 };
		kl_buf_printf(&path, "%s/%s", r->dir, e->d_name);
		unlink(path.data);
		kl_buf_free(&path);
	}
	if (d)
		closedir(d);
	if (r->dir && rmdir(r->dir) != 0)
		fprintf(stderr, "keel reduce: cannot remove %s: %s\n", r->dir,
			strerror(errno));
	free(r->path);
	free(r->dir);
}

static void
describe_status(const reducer *r, int status, kl_buf *out)
{
	if (status == TEST_TIMEOUT)
		kl_buf_printf(out, "ran out of time (%g s)", r->timeout);
	else if (status == TEST_CANNOT_RUN)
		kl_buf_puts(out, "could not run");
	else if (status >= TEST_SIGNAL)
		kl_buf_printf(out, "was killed by signal %d",
			      status - TEST_SIGNAL);
	else
		kl_buf_printf(out, "exits with status %d", status);
}

/* Reduce the file read into f (parsed and verified as m), leaving the
 * result in r->best and, with -o, its file; the exit status. */
static int
reduce_file(reducer *r, cli_file *f, kl_module *m)
{
	kl_buf_append(&r->best, f->text, f->len);
	r->start_len = f->len;
	double began = cli_now();
	int status = test_text(r, &r->best);
	if (r->timeout < 0)
		r->timeout = 10 * (cli_now() - began) > 1
				     ? 10 * (cli_now() - began) : 1;
	if (status != 0) {
		kl_buf why = { 0 };
		describe_status(r, status, &why);
		fprintf(stderr, "keel reduce: %s is not interesting: the test "
			"'%s' %s on it\n", f->name, r->test, why.data);
		kl_buf_free(&why);
		kl_module_free(m);
		return EXIT_BAD_INPUT;
	}
	double start = cli_now();
	/* The output file holds a whole module from the start. */
	if (!save_best(r)) {
		kl_module_free(m);
		return EXIT_BAD_INPUT;
	}
	reduce(r, m);
	r->reduced = true;
	int exit_status = EXIT_OK;
	if (r->out_path && !save_best(r))
		exit_status = EXIT_BAD_INPUT;
	if (r->save_failed || r->stopped)
		exit_status = EXIT_BAD_INPUT;
	fprintf(stderr, "keel reduce: %s: %zu -> %zu bytes, %llu test%s, %llu "
		"kept, %.1f s%s\n", f->name, r->start_len, r->best.len,
		(unsigned long long)r->tests, cli_plural(r->tests),
		(unsigned long long)r->kept, cli_now() - start,
		r->stopped ? " (stopped: a test could not be run)" : "");
	return exit_status;
}

int
cmd_reduce(int argc, char **argv)
{
	reducer r = { .timeout = -1 };
	int nfiles = 0, given;
	cli_args args;
	cli_args_init(&args, argc, argv);
	while (cli_args_next(&args)) {
		if (cli_args_help(&args)) {
			fputs(reduce_help, stdout);
			return EXIT_OK;
		} else if (cli_args_flag(&args, "--verbose", "-v")) {
			r.verbose = true;
		} else if ((given = cli_args_option(&args, "--test", "-t"))) {
			if (given < 0 || !*args.value)
				return cli_usage_error("reduce", "--test "
						       "needs a command");
			r.test = args.value;
		} else if ((given = cli_args_option(&args, "--output",
						    "-o"))) {
			if (given < 0 || !*args.value)
				return cli_usage_error("reduce", "--output "
						       "needs a file");
			r.out_path = args.value;
		} else if ((given = cli_args_option(&args, "--timeout",
						    NULL))) {
			uint64_t s;
			if (!cli_option_count("reduce", "--timeout", given,
					      args.value, 0, 86400, &s))
				return EXIT_USAGE;
			r.timeout = (double)s;
		} else if (cli_args_is_option(&args)) {
			return cli_args_unknown(&args, "reduce");
		} else if ((nfiles = cli_args_keep(&args, "reduce")) < 0) {
			return EXIT_USAGE;
		}
	}
	if (!r.test)
		return cli_usage_error("reduce", "no --test command");
	if (nfiles != 1)
		return cli_usage_error("reduce", nfiles ? "one file at a time"
							: "no input file");
	cli_file f;
	if (!cli_read_file("reduce", argv[1], &f))
		return EXIT_BAD_INPUT;
	kl_module *m = cli_parse(&f, false);
	if (!m || !cli_verify_module(m, f.name, "reduce")) {
		kl_module_free(m);
		cli_file_free(&f);
		return EXIT_BAD_INPUT;
	}
	if (!make_temp(&r, argv[1])) {
		kl_module_free(m);
		cli_file_free(&f);
		return EXIT_BAD_INPUT;
	}
	signal(SIGINT, on_interrupt);
	signal(SIGTERM, on_interrupt);
	signal(SIGHUP, on_interrupt);
	/* A reader of the output gone is a write that fails, not a death
	 * that would leave the candidates' directory behind. */
	signal(SIGPIPE, SIG_IGN);
	int status = reduce_file(&r, &f, m);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	remove_temp(&r);
	/* (after the directory is gone: the reader may stop reading) */
	if (r.reduced && !r.out_path && !cli_write_stdout(&r.best))
		status = EXIT_BAD_INPUT;
	signal(SIGPIPE, SIG_DFL);
	kl_buf_free(&r.best);
	kl_buf_free(&r.work);
	kl_buf_free(&r.cand);
	free(r.seen);
	cli_file_free(&f);
	return status;
}
