/*
 * cmd_test.c -- `keel test`: the parallel file-test runner.
 *
 * Each .kl file runs in a child process forked from the runner (no exec:
 * the child already holds the whole library, and a fork costs a fraction
 * of a millisecond), so a crash, an abort or an endless loop fails that
 * one file. The runner's own memory stays reachable from the static roots
 * below, so LeakSanitizer in a child reports only what the file's run
 * leaked. The parent keeps up to -j children
 * alive, reads their reports through pipes while they run (so a chatty
 * child cannot block on a full pipe), kills any child past the time limit,
 * and prints one line per failing file followed by its report. Files are
 * found recursively and sorted, and their reports printed in that order
 * (one that finishes early waits for those before it), so the report
 * depends neither on the directory's order on disk nor on which child
 * finishes first. A symbolic link back to a directory being read is not
 * followed, so a link cycle ends (a directory reached through two links
 * is read once, under the least of its spellings).
 *
 * --expect-fail turns the verdict around, for testing keel's own checkers:
 * every file must fail, and every `; expect-fail: TEXT` comment in it must
 * appear in its failure report.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/prctl.h>
#endif
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testcmd.h"

static const char test_help[] =
	"usage: keel test [options] PATH...\n"
	"\n"
	"Run file tests: every file given (whatever its name), and every\n"
	".kl file under the directories given (recursively, skipping names\n"
	"that start with '.'; not '-': there is no test on standard input).\n"
	"A test file starts with lines 'test COMMAND [args]'; the commands\n"
	"are cat, roundtrip, emit-asm, parse-error, verifier, print-cfg,\n"
	"domtree, loops, regions, interpret, pass; an unknown command or\n"
	"option is an error.\n"
	"Expectations are comments: FileCheck directives (check:, sameln:,\n"
	"nextln:, unordered:, not:, regex:), '; error:' and '; run:' lines.\n"
	"Each file runs in its own process; one line per failing file, then\n"
	"a final line 'N passed, N failed'.\n"
	"\n"
	"options:\n"
	"  -j N, -jN       run N files at once (default: one per core)\n"
	"  --timeout SECS  time limit per file (default 60; also\n"
	"                  --timeout=SECS)\n"
	"  --bless         rewrite 'precise' expectations from the output\n"
	"  --expect-fail   every file must fail, with each of its\n"
	"                  '; expect-fail: TEXT' texts in its report\n"
	"                  (not with --bless)\n"
	"  -v, --verbose   also name the files that pass\n"
	"  -h, --help      show this help\n"
	"\n"
	"exit status: 0 if every file passed, 1 otherwise (also when no .kl\n"
	"file is found), 2 on bad usage\n";

typedef struct file_id {
	dev_t dev;
	ino_t ino;
	uint32_t at; /* index in paths */
} file_id;

typedef struct file_list {
	char **paths;
	file_id *ids; /* what each path names, to run each file once */
	uint32_t n, cap, ids_cap;
	/* the directories read so far, a hash set (at 1 marks a used slot):
	 * each is read once, however many links lead to it (a link back up
	 * would make the walk endless, a ladder of sibling links
	 * exponential) */
	file_id *dirs;
	uint32_t ndirs, dirs_cap;
} file_list;

static void
add_path(file_list *l, const char *p, const struct stat *st)
{
	cli_grow(&l->paths, &l->cap, sizeof *l->paths, l->n + 1);
	cli_grow(&l->ids, &l->ids_cap, sizeof *l->ids, l->n + 1);
	l->ids[l->n] = (file_id){ st->st_dev, st->st_ino, l->n };
	l->paths[l->n++] = cli_strdup(p);
}

static bool
ends_with_kl(const char *name)
{
	size_t n = strlen(name);
	return n > 3 && strcmp(name + n - 3, ".kl") == 0;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int
cmp_id(const void *a, const void *b)
{
	const file_id *x = a, *y = b;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return x->at < y->at ? -1 : x->at > y->at;
}

/*
 * A file named twice, under any spelling (dir/a.kl, dir//a.kl,
 * dir/./a.kl, or reached through a directory too), runs once, by the
 * first of its paths in sorted order: two runs would count it twice, and
 * two blessings race. The paths are sorted on return.
 */
static void
sort_and_drop_repeats(file_list *l)
{
	if (l->n < 2)
		return;
	qsort(l->ids, l->n, sizeof *l->ids, cmp_id);
	for (uint32_t k = 0, g; k < l->n; k = g) {
		/* the group of paths naming one file: keep the least */
		uint32_t keep = l->ids[k].at;
		for (g = k + 1; g < l->n && l->ids[g].dev == l->ids[k].dev &&
				l->ids[g].ino == l->ids[k].ino;
		     g++)
			if (strcmp(l->paths[l->ids[g].at], l->paths[keep]) < 0)
				keep = l->ids[g].at;
		for (uint32_t j = k; j < g; j++)
			if (l->ids[j].at != keep) {
				free(l->paths[l->ids[j].at]);
				l->paths[l->ids[j].at] = NULL;
			}
	}
	uint32_t kept = 0;
	for (uint32_t k = 0; k < l->n; k++)
		if (l->paths[k])
			l->paths[kept++] = l->paths[k];
	l->n = kept;
	qsort(l->paths, l->n, sizeof *l->paths, cmp_str);
}

static uint32_t
dir_slot(const file_id *set, uint32_t cap, dev_t dev, ino_t ino)
{
	uint64_t h = ((uint64_t)ino ^ (uint64_t)dev << 40) *
		     0x9e3779b97f4a7c15u;
	uint32_t k = (uint32_t)(h >> 32) & (cap - 1);
	while (set[k].at && (set[k].dev != dev || set[k].ino != ino))
		k = (k + 1) & (cap - 1);
	return k;
}

/* Add the directory to the set; false if it was there already. */
static bool
first_visit(file_list *l, const struct stat *st)
{
	if (2 * ((uint64_t)l->ndirs + 1) > l->dirs_cap) {
		uint32_t cap = l->dirs_cap ? 2 * l->dirs_cap : 64;
		file_id *set = cli_alloc(cap, sizeof *set);
		for (uint32_t k = 0; k < l->dirs_cap; k++)
			if (l->dirs[k].at)
				set[dir_slot(set, cap, l->dirs[k].dev,
					     l->dirs[k].ino)] = l->dirs[k];
		free(l->dirs);
		l->dirs = set;
		l->dirs_cap = cap;
	}
	uint32_t k = dir_slot(l->dirs, l->dirs_cap, st->st_dev, st->st_ino);
	if (l->dirs[k].at)
		return false;
	l->dirs[k] = (file_id){ st->st_dev, st->st_ino, 1 };
	l->ndirs++;
	return true;
}

/* An entry of a directory being read. */
typedef struct entry {
	char *path;
	bool dir;
} entry;

/* Byte k of e's path in the walk's order: a directory's ends in '/';
 * -1 past the end. */
static int
walk_byte(const entry *e, size_t len, size_t k)
{
	if (k < len)
		return (unsigned char)e->path[k];
	return k == len && e->dir ? '/' : -1;
}

/*
 * The walk's order: the paths' bytes, a directory's name read as if it
 * ended in '/'. A depth-first walk in this order meets paths in the
 * sorted order of their full spellings, so a directory reached through
 * several links is read under the least of them.
 */
static int
cmp_entry(const void *x, const void *y)
{
	const entry *a = x, *b = y;
	size_t na = strlen(a->path), nb = strlen(b->path);
	for (size_t k = 0;; k++) {
		int ca = walk_byte(a, na, k), cb = walk_byte(b, nb, k);
		if (ca != cb)
			return ca < cb ? -1 : 1;
		if (ca < 0)
			return 0;
	}
}

/* A path that cannot be read, as a failed file of the report (on
 * standard output: a log of the report alone shows it). */
static void
unreadable(const char *path)
{
	printf("FAIL %s: %s\n", path, strerror(errno));
}

/*
 * Gather the .kl files under path, in the walk's order (cmp_entry).
 * Returns how many paths could not be read (each reported): they count
 * as failed files, and the rest still run.
 */
static uint32_t
collect(file_list *l, const char *path, bool top)
{
	struct stat st = { 0 };
	if (stat(path, &st) != 0) {
		unreadable(path);
		return 1;
	}
	if (!S_ISDIR(st.st_mode)) {
		/* A FIFO or a device found in a directory would wait for a
		 * writer until the time limit, and fail as a slow test: a
		 * path named may be one on purpose (<(...), /dev/stdin). */
		if (!top && !S_ISREG(st.st_mode)) {
			printf("FAIL %s: not a regular file\n", path);
			return 1;
		}
		if (top || ends_with_kl(path))
			add_path(l, path, &st);
		return 0;
	}
	if (!first_visit(l, &st))
		return 0; /* its files are listed already */
	DIR *d = opendir(path);
	if (!d) {
		unreadable(path);
		return 1;
	}
	/* joined with one '/': "dir/" and "/" too ("/" is plen 0) */
	size_t plen = strlen(path);
	while (plen > 0 && path[plen - 1] == '/')
		plen--;
	entry *subs = NULL;
	uint32_t nsubs = 0, subs_cap = 0;
	uint32_t unread = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		size_t n = plen + strlen(e->d_name) + 2;
		char *sub = cli_alloc(n, 1);
		snprintf(sub, n, "%.*s/%s", (int)plen, path, e->d_name);
		struct stat sst = { 0 };
		bool found = stat(sub, &sst) == 0;
		bool dir = found && S_ISDIR(sst.st_mode);
		if (!found && ends_with_kl(e->d_name)) {
			/* a test that cannot be read must not vanish from
			 * the count (a dangling link, say) */
			unreadable(sub);
			unread++;
		}
		if (!found || (!dir && !ends_with_kl(e->d_name))) {
			free(sub);
			continue;
		}
		cli_grow(&subs, &subs_cap, sizeof *subs, nsubs + 1);
		subs[nsubs++] = (entry){ sub, dir };
	}
	closedir(d);
	if (nsubs)
		qsort(subs, nsubs, sizeof *subs, cmp_entry);
	for (uint32_t k = 0; k < nsubs; k++) {
		unread += collect(l, subs[k].path, false);
		free(subs[k].path);
	}
	free(subs);
	return unread;
}

typedef struct child {
	pid_t pid;
	int fd;
	uint32_t file;
	double start;
	bool timed_out;
	kl_buf out;
} child;

/*
 * What the runner allocated, reachable from here so that a child's leak
 * check (at its exit) does not count the runner's memory as leaked.
 * Volatile: nothing reads these, and the stores must not be optimised
 * away.
 */
static struct {
	void *volatile kids, *volatile pollfds, *volatile files;
	void *volatile reports, *volatile finished;
} runner_roots;

/* Where n bytes at needle occur in [hay, hay + len), or NULL; NUL bytes
 * are bytes like any other. */
static const char *
find_bytes(const char *hay, size_t len, const char *needle, size_t n)
{
	for (size_t k = 0; hay && n <= len && k <= len - n; k++)
		if (memcmp(hay + k, needle, n) == 0)
			return hay + k;
	return NULL;
}

static const char expect_key[] = "expect-fail:";

/* Each `expect-fail:` of a file's text, to the end of its line, as a line
 * of out. */
static void
expectations_of(const char *text, size_t len, kl_buf *out)
{
	const char *end = text + len;
	size_t nkey = strlen(expect_key);
	for (const char *s = text;
	     (s = find_bytes(s, (size_t)(end - s), expect_key, nkey));
	     s += nkey) {
		const char *e = s;
		while (e < end && *e != '\n' && *e != '\r')
			e++;
		kl_buf_append(out, s, (size_t)(e - s));
		kl_buf_putc(out, '\n');
	}
}

static void
write_all(int fd, const char *s, size_t left)
{
	while (left > 0) {
		ssize_t w = write(fd, s, left);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		s += w;
		left -= (size_t)w;
	}
}

/*
 * In the child: read the file, run it, send the report, exit with the
 * verdict. With --expect-fail the report starts with the file's
 * `expect-fail:` lines (expectations_of), sent before anything runs: the
 * file is read once, here, under the runner's time limit (a FIFO, or
 * /dev/stdin, can be read only once, and may never give its text), and a
 * file that then hangs still has its expectations checked.
 */
static void
run_child(const char *path, bool bless, bool expect_fail, int fd)
{
	kl_buf report = { 0 };
	cli_file text = { 0 };
	int failures = 1;
	/* Why not in the report, not on stderr: the runner prints the
	 * reports in order, where children finish in any. */
	kl_buf why = { 0 };
	if (!cli_load_file(path, &text, &why)) {
		kl_buf_printf(&report, "%s\n", why.data);
	} else {
		if (expect_fail) {
			kl_buf lines = { 0 };
			expectations_of(text.text, text.len, &lines);
			kl_buf_printf(&report, "%zu\n", lines.len);
			kl_buf_append(&report, lines.data, lines.len);
			write_all(fd, report.data, report.len);
			kl_buf_reset(&report);
			kl_buf_free(&lines);
		}
		failures = test_run_file(path, &text, bless, expect_fail,
					 &report);
		cli_file_free(&text);
	}
	write_all(fd, report.data, report.len);
	kl_buf_free(&report);
	kl_buf_free(&why);
	close(fd);
	exit(failures ? 1 : 0); /* exit, not _exit: leak checkers run at exit */
}

static bool
start_child(child *c, const char *path, uint32_t file, bool bless,
	    bool expect_fail)
{
	int p[2];
	if (pipe(p) != 0) {
		fprintf(stderr, "keel test: pipe: %s\n", strerror(errno));
		return false;
	}
	fflush(stdout); /* or the child would print the parent's buffers too */
	fflush(stderr);
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, "keel test: fork: %s\n", strerror(errno));
		close(p[0]);
		close(p[1]);
		return false;
	}
	if (pid == 0) {
#if defined(__linux__)
		/* Only the runner stops a file that hangs: stopped from
		 * outside (timeout(1), kill), it takes the file with it,
		 * which would run on for ever. Where the call is refused (a
		 * sandbox), the file runs without that guard, as elsewhere:
		 * failing it would fail every file without a reason. A
		 * runner already gone by now is the one case to stop for. */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) == 0 &&
		    getppid() != parent)
			_exit(1);
#else
		(void)parent;
#endif
		close(p[0]);
		run_child(path, bless, expect_fail, p[1]);
	}
	close(p[1]);
	memset(c, 0, sizeof *c);
	c->pid = pid;
	c->fd = p[0];
	c->file = file;
	c->start = cli_now();
	return true;
}

/* Is the text in a line of the report that does not quote an
 * expect-fail comment? A report quotes source lines (a parse error's),
 * and the line holding `; expect-fail: TEXT` holds TEXT: no proof. */
static bool
in_report(const kl_buf *report, const char *text, size_t n, const char *key)
{
	const char *s = report->data, *end = s + report->len;
	while (s && s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *e = nl ? nl : end;
		size_t len = (size_t)(e - s);
		if (!find_bytes(s, len, key, strlen(key)) &&
		    find_bytes(s, len, text, n))
			return true;
		s = nl ? nl + 1 : NULL;
	}
	return false;
}

/* The texts of the `expect-fail:` lines (as expectations_of gives them)
 * must all be in the report. */
static bool
expected_failure_seen(const char *lines, size_t len, const kl_buf *report,
		      kl_buf *why)
{
	bool ok = true, any = false;
	const char *key = expect_key, *end = lines + len;
	size_t nkey = strlen(key);
	for (const char *s = lines;
	     (s = find_bytes(s, (size_t)(end - s), key, nkey)); s += nkey) {
		const char *t = s + nkey;
		while (t < end && (*t == ' ' || *t == '\t'))
			t++;
		const char *e = t;
		while (e < end && *e != '\n' && *e != '\r')
			e++;
		while (e > t && (e[-1] == ' ' || e[-1] == '\t'))
			e--;
		any = true;
		size_t n = (size_t)(e - t);
		if (n == 0) { /* it would match any report */
			kl_buf_puts(why, "  an empty '; expect-fail:' line "
					 "expects nothing\n");
			ok = false;
			continue;
		}
		if (!in_report(report, t, n, key)) {
			kl_buf_printf(why, "  expected in the report: %.*s\n",
				      (int)n, t);
			ok = false;
		}
	}
	if (!any) {
		kl_buf_puts(why, "  the file has no '; expect-fail:' line\n");
		ok = false;
	}
	return ok;
}

/* Split a child's output, with --expect-fail, into the expectations it
 * sent first and the report after; false, all of it the report, if it
 * sent none (it could not read the file, or was stopped first). */
static bool
split_expectations(const kl_buf *out, const char **lines, size_t *nlines,
		   const char **report, size_t *nreport)
{
	const char *s = out->data ? out->data : "";
	const char *end = s + out->len, *p = s;
	size_t n = 0;
	while (p < end && *p >= '0' && *p <= '9' && n < SIZE_MAX / 16)
		n = n * 10 + (size_t)(*p++ - '0');
	if (p == s || p == end || *p != '\n' || n > (size_t)(end - p - 1)) {
		*lines = "";
		*nlines = 0;
		*report = s;
		*nreport = out->len;
		return false;
	}
	*lines = p + 1;
	*nlines = n;
	*report = p + 1 + n;
	*nreport = (size_t)(end - *report);
	return true;
}

/* A child's report text[0, n), each line indented under its file's
 * PASS, BLESSED or FAIL line. */
static void
put_indented(kl_buf *out, const char *text, size_t n)
{
	for (const char *s = text, *e = text + n; s < e;) {
		const char *nl = memchr(s, '\n', (size_t)(e - s));
		size_t k = nl ? (size_t)(nl - s) : (size_t)(e - s);
		kl_buf_printf(out, "    %.*s\n", (int)k, s);
		s += k + 1;
	}
}

typedef struct run_state {
	file_list *files;
	bool expect_fail, verbose, tty;
	uint32_t passed, failed, done;
	double timeout;
	/* Each file's part of the report, held until every file before it
	 * has printed its own (next_print: the first not printed). */
	kl_buf *reports;
	bool *finished;
	uint32_t next_print;
} run_state;

/* Print the reports of the files finished in a row from next_print. */
static void
print_in_order(run_state *rs)
{
	if (rs->tty)
		fputs("\r\033[K", stderr);
	while (rs->next_print < rs->files->n && rs->finished[rs->next_print]) {
		kl_buf *r = &rs->reports[rs->next_print++];
		if (r->len)
			fwrite(r->data, 1, r->len, stdout);
		kl_buf_free(r);
	}
	fflush(stdout);
	if (rs->tty)
		fprintf(stderr, "[%u/%u] %u failed", rs->done, rs->files->n,
			rs->failed);
}

static void
finish_child(run_state *rs, child *c)
{
	int status = 0;
	while (waitpid(c->pid, &status, 0) < 0 && errno == EINTR)
		;
	close(c->fd);
	const char *path = rs->files->paths[c->file];
	kl_buf reason = { 0 };
	bool failed, checks_failed = false;
	if (c->timed_out) {
		kl_buf_printf(&reason, "timed out after %g s", rs->timeout);
		failed = true;
	} else if (WIFSIGNALED(status)) {
		kl_buf_printf(&reason, "crashed (signal %d: %s)",
			      WTERMSIG(status), strsignal(WTERMSIG(status)));
		failed = true;
	} else {
		failed = checks_failed = WEXITSTATUS(status) != 0;
		kl_buf_puts(&reason, failed ? "failed" : "passed");
	}
	const char *lines = "", *text = c->out.data ? c->out.data : "";
	size_t nlines = 0, ntext = c->out.len;
	bool sent = rs->expect_fail &&
		    split_expectations(&c->out, &lines, &nlines, &text, &ntext);
	kl_buf full = { 0 };
	kl_buf_append(&full, reason.data, reason.len);
	kl_buf_putc(&full, '\n');
	kl_buf_append(&full, text, ntext);

	bool ok = !failed;
	kl_buf why = { 0 };
	if (rs->expect_fail && !sent) {
		ok = false;
		kl_buf_puts(&why, "  its '; expect-fail:' lines were never "
			    "read: the file could not be read, or stopped "
			    "first\n");
	} else if (rs->expect_fail) {
		ok = failed &&
		     expected_failure_seen(lines, nlines, &full, &why);
		if (!failed)
			kl_buf_puts(&why,
				    "  the file was expected to fail, but "
				    "it passed\n");
	}
	kl_buf *out = &rs->reports[c->file];
	/* A file --bless rewrote is named whatever -v says: the one way to
	 * see what changed, short of a diff. */
	size_t mark = sizeof TEST_BLESSED; /* its text and '\n' */
	bool blessed = ok && !rs->expect_fail && ntext >= mark &&
		       memcmp(text + ntext - mark, TEST_BLESSED "\n",
			      mark) == 0 &&
		       (ntext == mark || text[ntext - mark - 1] == '\n');
	if (ok) {
		rs->passed++;
		if (blessed) {
			/* with what it says of the rewrite */
			kl_buf_printf(out, "BLESSED %s\n", path);
			put_indented(out, text, ntext - mark);
		} else if (rs->verbose)
			kl_buf_printf(out, "PASS %s\n", path);
	} else {
		rs->failed++;
		/* A file whose checks failed is named alone: its report,
		 * below, says what failed ("FAIL t.kl: failed" said it
		 * twice). A crash, a time-out or an unexpected pass is the
		 * reason itself. */
		if (checks_failed)
			kl_buf_printf(out, "FAIL %s\n", path);
		else
			kl_buf_printf(out, "FAIL %s: %s\n", path,
				      reason.data);
		if (why.len)
			kl_buf_puts(out, why.data);
		put_indented(out, text, ntext);
	}
	rs->finished[c->file] = true;
	rs->done++;
	print_in_order(rs);
	kl_buf_free(&reason);
	kl_buf_free(&full);
	kl_buf_free(&why);
	kl_buf_free(&c->out);
}

/* Seconds as "12" or "0.5": digits, then perhaps '.' and digits. */
static bool
plain_seconds(const char *s, double *out)
{
	const char *p = s;
	while (isdigit((unsigned char)*p))
		p++;
	if (p == s)
		return false;
	if (*p == '.') {
		const char *f = ++p;
		while (isdigit((unsigned char)*p))
			p++;
		if (p == f)
			return false;
	}
	if (*p)
		return false;
	*out = strtod(s, NULL);
	return true;
}

static long
default_jobs(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? n : 1;
}

/*
 * Run every file, up to `jobs` at once. When a child cannot be started
 * (no pipe or process left: the limits of descriptors or processes),
 * the run goes on with the children it has, as many at once from then
 * on; only when none runs is that an error, and the files not run are
 * counted as failed.
 */
static int
run_all(run_state *rs, long jobs, bool bless)
{
	/* (no more children than files: -j 1000000 on one file needs a
	 * table of one) */
	if ((size_t)jobs > rs->files->n)
		jobs = (long)rs->files->n;
	child *kids = cli_alloc((size_t)jobs, sizeof *kids);
	struct pollfd *pfd = cli_alloc((size_t)jobs, sizeof *pfd);
	rs->reports = cli_alloc((size_t)rs->files->n + 1,
				sizeof *rs->reports);
	rs->finished = cli_alloc((size_t)rs->files->n + 1,
				 sizeof *rs->finished);
	runner_roots.kids = kids;
	runner_roots.pollfds = pfd;
	runner_roots.files = rs->files;
	runner_roots.reports = rs->reports;
	runner_roots.finished = rs->finished;
	uint32_t next = 0;
	long running = 0;
	int status = EXIT_OK;
	for (;;) {
		while (running < jobs && next < rs->files->n) {
			if (!start_child(&kids[running], rs->files->paths[next],
					 next, bless, rs->expect_fail)) {
				if (running > 0) {
					jobs = running;
					fprintf(stderr,
						"keel test: running %ld "
						"file%s at once from now on\n",
						jobs, jobs == 1 ? "" : "s");
					break;
				}
				uint32_t left = rs->files->n - next;
				fprintf(stderr,
					"keel test: %u file%s not run\n", left,
					left == 1 ? "" : "s");
				rs->failed += left;
				next = rs->files->n;
				status = EXIT_BAD_INPUT;
				break;
			}
			next++;
			running++;
		}
		/* (<=: gcc -flto could not tell running is never below 0,
		 * and took poll's count for a huge one) */
		if (running <= 0)
			break;
		for (long i = 0; i < running; i++) {
			pfd[i].fd = kids[i].fd;
			pfd[i].events = POLLIN;
			pfd[i].revents = 0;
		}
		int r = poll(pfd, (nfds_t)running, 100);
		if (r < 0 && errno != EINTR) {
			/* No way to hear from the children: stop them and
			 * fail their files (in the report, in order), and
			 * those not started, so that the run cannot pass. */
			int why = errno;
			uint32_t left = rs->files->n - next;
			fprintf(stderr, "keel test: poll: %s; %u file%s not "
				"run\n", strerror(why), left,
				left == 1 ? "" : "s");
			for (long i = 0; i < running; i++) {
				child *c = &kids[i];
				kill(c->pid, SIGKILL);
				while (waitpid(c->pid, NULL, 0) < 0 &&
				       errno == EINTR)
					;
				close(c->fd);
				kl_buf_free(&c->out);
				kl_buf_printf(&rs->reports[c->file],
					      "FAIL %s: not finished (poll: "
					      "%s)\n",
					      rs->files->paths[c->file],
					      strerror(why));
				rs->finished[c->file] = true;
				rs->failed++;
				rs->done++;
			}
			print_in_order(rs);
			rs->failed += left;
			status = EXIT_BAD_INPUT;
			break;
		}
		double t = cli_now();
		for (long i = running - 1; i >= 0; i--) {
			child *c = &kids[i];
			bool done = false;
			if (pfd[i].revents & (POLLIN | POLLHUP | POLLERR)) {
				char buf[65536];
				ssize_t n = read(c->fd, buf, sizeof buf);
				if (n > 0)
					kl_buf_append(&c->out, buf, (size_t)n);
				else if (n == 0 || errno != EINTR)
					done = true;
			}
			if (!done && !c->timed_out &&
			    t - c->start > rs->timeout) {
				kill(c->pid, SIGKILL);
				c->timed_out = true;
			}
			if (done) {
				finish_child(rs, c);
				kids[i] = kids[running - 1];
				running--;
			}
		}
	}
	/* (no child will run now: no root may outlive what it holds) */
	runner_roots.kids = runner_roots.pollfds = NULL;
	runner_roots.files = runner_roots.reports = NULL;
	runner_roots.finished = NULL;
	free(kids);
	free(pfd);
	free(rs->reports);
	free(rs->finished);
	if (rs->tty)
		fputs("\r\033[K", stderr);
	return status;
}

int
cmd_test(int argc, char **argv)
{
	long jobs = default_jobs();
	double timeout = 60;
	bool bless = false;
	file_list files = { 0 };
	run_state rs = { 0 };
	int npaths = 0;
	cli_args args;
	cli_args_init(&args, argc, argv);
	while (cli_args_next(&args)) {
		int jobs_given = cli_args_option(&args, "-j", NULL);
		int timeout_given =
			jobs_given ? 0
				   : cli_args_option(&args, "--timeout", NULL);
		if (cli_args_help(&args)) {
			fputs(test_help, stdout);
			return EXIT_OK;
		} else if (jobs_given) {
			uint64_t n;
			if (!cli_option_count("test", "-j", jobs_given,
					      args.value, 1, 1000000, &n))
				return EXIT_USAGE;
			jobs = (long)n;
		} else if (timeout_given) {
			if (timeout_given < 0)
				return cli_usage_error("test", "--timeout "
						       "needs a value");
			/* seconds as digits with perhaps a fraction (strtod
			 * alone took blanks, hex, exponents and nan) */
			double v = 0;
			if (!plain_seconds(args.value, &v) || v <= 0 ||
			    v > 1e6)
				return cli_usage_error("test",
						       "--timeout needs "
						       "seconds (more than 0, "
						       "at most 1000000), not "
						       "'%s'", args.value);
			timeout = v;
		} else if (cli_args_flag(&args, "--bless", NULL)) {
			bless = true;
		} else if (cli_args_flag(&args, "--expect-fail", NULL)) {
			rs.expect_fail = true;
		} else if (cli_args_flag(&args, "--verbose", "-v")) {
			rs.verbose = true;
		} else if (cli_args_is_option(&args)) {
			return cli_args_unknown(&args, "test");
		} else if (strcmp(args.arg, "-") == 0) {
			/* each file runs by its path (and --bless rewrites
			 * it): there is no test file on standard input */
			return cli_usage_error("test", "'-' (standard input) "
					       "is not a PATH: keel test reads "
					       "files by name (a file named "
					       "'-' is ./-)");
		} else {
			npaths = cli_args_keep(&args, "test"); /* never "-" */
		}
	}
	if (npaths == 0)
		return cli_usage_error("test", "no files or directories given");
	/* blessing a file that must fail rewrites the failure it shows */
	if (bless && rs.expect_fail)
		return cli_usage_error("test", "--bless and --expect-fail do "
				       "not go together");
	/* The arguments in sorted order too: a directory named twice, or
	 * through a link, is read under the least of its spellings. */
	entry *tops = cli_alloc((size_t)npaths, sizeof *tops);
	for (int i = 0; i < npaths; i++) {
		struct stat st = { 0 };
		tops[i] = (entry){ argv[i + 1], stat(argv[i + 1], &st) == 0 &&
							S_ISDIR(st.st_mode) };
	}
	qsort(tops, (size_t)npaths, sizeof *tops, cmp_entry);
	uint32_t unread = 0;
	for (int i = 0; i < npaths; i++)
		unread += collect(&files, tops[i].path, true);
	free(tops);
	if (files.n == 0 && unread == 0) {
		/* a mistyped directory must not pass */
		fprintf(stderr, "keel test: no test files (*.kl) found\n");
		unread = 1;
	}
	sort_and_drop_repeats(&files);
	rs.files = &files;
	rs.timeout = timeout;
	rs.tty = isatty(2);
	int status = files.n ? run_all(&rs, jobs, bless) : EXIT_OK;
	rs.failed += unread; /* each path that could not be read */
	printf("%u passed, %u failed\n", rs.passed, rs.failed);
	for (uint32_t i = 0; i < files.n; i++)
		free(files.paths[i]);
	free(files.paths);
	free(files.ids);
	free(files.dirs);
	if (status != EXIT_OK)
		return status;
	return rs.failed ? EXIT_BAD_INPUT : EXIT_OK;
}
