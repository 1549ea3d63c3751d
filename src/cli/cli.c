/*
 * cli.c -- helpers shared by the subcommands of `keel`.
 */
#define _DEFAULT_SOURCE /* madvise */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

/*
 * A buffer for input text. A big one starts on a huge-page boundary and
 * fills whole huge pages, asked for as such (a hint): reading a file into
 * 4 KB pages costs a page fault, over 10 us on this project's machines,
 * every 4 KB, and the parser's reads then miss the TLB far more often.
 */
static char *
alloc_text(size_t n)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
	const size_t huge = (size_t)2 << 20;
	if (n >= 2 * huge) {
		n = (n + huge - 1) & ~(huge - 1);
		char *p = aligned_alloc(huge, n);
		if (p)
			madvise(p, n, MADV_HUGEPAGE);
		return p;
	}
#endif
	return malloc(n);
}

/*
 * A big regular file is mapped rather than read: its text is then the
 * page cache's own pages, where reading it copied them into memory new to
 * the process, which costs more here than parsing it (huge-1M, 36 MB:
 * 40-120 ms). Only when its size is not a multiple of the page size: the
 * kernel fills the rest of the last page with zeros, so the text ends with
 * a NUL as a read one does. (A file truncated by someone else while it is
 * mapped would fault; the cost every tool that maps its input accepts.)
 */
static bool
map_file(FILE *fp, const struct stat *st, cli_file *out)
{
#if defined(__linux__) && defined(MAP_POPULATE)
	long page = sysconf(_SC_PAGESIZE);
	if (!S_ISREG(st->st_mode) || st->st_size < ((off_t)1 << 20) ||
	    (uint64_t)st->st_size >= SIZE_MAX / 2 || page <= 0 ||
	    st->st_size % page == 0)
		return false;
	size_t n = (size_t)st->st_size;
	void *p = mmap(NULL, n, PROT_READ, MAP_PRIVATE | MAP_POPULATE,
		       fileno(fp), 0);
	if (p == MAP_FAILED)
		return false;
	out->text = p;
	out->len = n;
	out->mapped = n;
	return true;
#else
	(void)fp;
	(void)st;
	(void)out;
	return false;
#endif
}

const char *
cli_input_name(const char *path)
{
	return strcmp(path, "-") == 0 ? "standard input" : path;
}

bool
cli_read_file(const char *cmd, const char *path, cli_file *out)
{
	kl_buf why = { 0 };
	bool ok = cli_load_file(path, out, &why);
	if (!ok)
		fprintf(stderr, "keel %s: %s\n", cmd, why.data);
	kl_buf_free(&why);
	return ok;
}

bool
cli_load_file(const char *path, cli_file *out, kl_buf *why)
{
	memset(out, 0, sizeof *out);
	const char *name = cli_input_name(path);
	out->name = name;
	FILE *fp = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
	if (!fp) {
		kl_buf_printf(why, "cannot open %s: %s", name, strerror(errno));
		return false;
	}
	/* A regular file is read in one go at its size; pipes grow. */
	size_t cap = 1 << 16, len = 0;
	/* (Each struct stat starts zeroed: -D_FILE_OFFSET_BITS=64 makes
	 * stat and fstat glibc's stat64 and fstat64, which clang 14's
	 * MemorySanitizer does not intercept, so it does not see them fill
	 * it in.) */
	struct stat st = { 0 };
	bool have_stat = fstat(fileno(fp), &st) == 0;
	/* Not standard input: it is read from where it stands (a shell may
	 * have read some of it), a mapping would start at 0, and it must
	 * stay open for a second '-'. */
	if (fp != stdin && have_stat && map_file(fp, &st, out)) {
		fclose(fp);
		return true;
	}
	if (have_stat && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (uint64_t)st.st_size < SIZE_MAX / 2)
		cap = (size_t)st.st_size + 2;
	char *buf = alloc_text(cap);
	for (;;) {
		if (!buf) {
			kl_buf_printf(why, "out of memory reading %s", name);
			if (fp != stdin)
				fclose(fp);
			return false;
		}
		size_t n = fread(buf + len, 1, cap - len - 1, fp);
		len += n;
		if (len + 1 < cap)
			break;
		cap *= 2;
		char *nb = realloc(buf, cap);
		if (!nb)
			free(buf);
		buf = nb;
	}
	bool err = ferror(fp);
	int read_errno = errno;
	if (fp != stdin)
		fclose(fp);
	if (err) {
		kl_buf_printf(why, "cannot read %s: %s", name,
			      strerror(read_errno));
		free(buf);
		return false;
	}
	buf[len] = 0;
	out->text = buf;
	out->len = len;
	return true;
}

void
cli_file_free(cli_file *f)
{
#if defined(__linux__)
	if (f->mapped)
		munmap(f->text, f->mapped);
	else
#endif
		free(f->text);
	f->text = NULL;
	f->mapped = 0;
}

void
cli_print_diags(const kl_diags *d, const cli_file *f)
{
	kl_buf out = { 0 };
	for (uint32_t i = 0; i < d->len; i++)
		kl_diag_render(&d->items[i], f ? f->name : NULL,
			       f ? f->text : NULL, f ? f->len : 0, &out);
	if (out.len)
		fwrite(out.data, 1, out.len, stderr);
	kl_buf_free(&out);
}

const char *
cli_comment_start(const char *s, const char *e)
{
	bool in_str = false;
	for (const char *q = s; q < e; q++) {
		if (in_str) {
			if (*q == '\\')
				q++;
			else if (*q == '"')
				in_str = false;
		} else if (*q == '"') {
			in_str = true;
		} else if (*q == ';') {
			return q;
		}
	}
	return NULL;
}

/* Does the line from q (its first byte that is not blank) to e start with
 * the word `test`? (`test` alone is a test line too, missing its command:
 * said so by keel test, not "no test lines".) */
static bool
is_test_line(const char *q, const char *e)
{
	return e - q >= 4 && memcmp(q, "test", 4) == 0 &&
	       (q + 4 == e || q[4] == ' ' || q[4] == '\t' || q[4] == '\r' ||
		q[4] == ';');
}

uint32_t
cli_blank_test_lines(char *text, size_t len,
		     void (*each)(void *ctx, uint32_t line, const char *name,
				  size_t nlen, const char *args, size_t alen),
		     void *ctx)
{
	uint32_t n = 0;
	char *s = text, *end = text + len;
	for (uint32_t line = 1; s < end; line++) {
		char *e = memchr(s, '\n', (size_t)(end - s));
		if (!e)
			e = end;
		char *q = s;
		while (q < e && (*q == ' ' || *q == '\t' || *q == '\r'))
			q++;
		if (q < e && *q != ';') {
			if (!is_test_line(q, e))
				break;
			const char *name = q + 4;
			while (name < e && (*name == ' ' || *name == '\t'))
				name++;
			const char *ne = name;
			while (ne < e && *ne != ' ' && *ne != '\t' &&
			       *ne != '\r' && *ne != ';')
				ne++;
			const char *args = ne;
			const char *ae = cli_comment_start(args, e);
			if (!ae)
				ae = e;
			while (ae > args && (ae[-1] == ' ' || ae[-1] == '\t' ||
					     ae[-1] == '\r'))
				ae--;
			while (args < ae && (*args == ' ' || *args == '\t'))
				args++;
			if (each)
				each(ctx, line, name, (size_t)(ne - name), args,
				     (size_t)(ae - args));
			memset(s, ' ', (size_t)(e - s));
			n++;
		}
		s = e + 1;
	}
	return n;
}

/* Is the first line that is not blank or a comment a `test` line? */
static bool
starts_with_test_line(const char *s, size_t len)
{
	const char *end = s + len;
	while (s < end) {
		while (s < end && (*s == ' ' || *s == '\t' || *s == '\r' ||
				   *s == '\n'))
			s++;
		if (s < end && *s == ';') {
			const char *nl = memchr(s, '\n', (size_t)(end - s));
			s = nl ? nl : end;
			continue;
		}
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		return is_test_line(s, nl ? nl : end);
	}
	return false;
}

kl_module *
cli_parse(const cli_file *f, bool allow_redefinition)
{
	kl_diags diags = { 0 };
	kl_parse_options opts = { .allow_redefinition = allow_redefinition };
	kl_module *m = NULL;
	/* A test file parses with its `test` lines blanked. */
	char *copy = NULL;
	const char *text = f->text;
	if (starts_with_test_line(f->text, f->len)) {
		copy = malloc(f->len + 1);
		if (copy) {
			memcpy(copy, f->text, f->len + 1);
			if (cli_blank_test_lines(copy, f->len, NULL, NULL))
				text = copy;
		}
	}
	kl_parse_module(text, f->len, &opts, &m, &diags);
	free(copy);
	cli_print_diags(&diags, f);
	kl_diags_free(&diags);
	return m;
}

/*
 * The module holds no pointer into the text. Freed as soon as it is
 * parsed, the text's pages go back to the kernel, which hands them to
 * whatever runs next (the verifier's and the passes' scratch, the
 * printed output): on this project's VMs, memory new to the process
 * costs 0.3-1.2 GB/s to touch the first time, pages it freed 6-7 GB/s
 * (promoting huge-1M in `keel opt`, median 99 -> 66 ms).
 */
kl_module *
cli_parse_then_free_text(cli_file *f)
{
	kl_module *m = cli_parse(f, false);
	cli_file_free(f);
	return m;
}

/* Where the printer's pieces go, and the first error writing them. */
static bool output_lost_said;
const char *cli_command;

/* "keel CMD: ", or "keel: " before a command is chosen, on stderr. */
static void
say_who(void)
{
	fprintf(stderr, "keel%s%s: ", cli_command ? " " : "",
		cli_command ? cli_command : "");
}

typedef struct text_writer {
	FILE *to;
	int err;
	uint64_t bytes;
} text_writer;

static void
write_piece(void *ctx, const char *text, size_t len)
{
	text_writer *w = ctx;
	w->bytes += len;
	if (w->err == 0 && fwrite(text, 1, len, w->to) != len)
		w->err = errno ? errno : EIO;
}

/* Flush what was written; false, with a message, if any of it failed. */
static bool
writer_done(text_writer *w)
{
	if (w->err == 0 && fflush(w->to) != 0)
		w->err = errno ? errno : EIO;
	if (w->err) {
		cli_say_output_lost(w->err);
		return false;
	}
	return true;
}

/* Every function verified (the checks passes and the interpreter rely
 * on); else a line saying who refused the module, then the verifier's
 * listing of each broken function, its header first, as keel verify
 * prints them, on stderr. */
bool
cli_verify_module(const kl_module *m, const char *file, const char *cmd)
{
	kl_diags diags = { 0 };
	kl_buf headers = { 0 }, listing = { 0 };
	bool ok = true;
	/* one scratch for all the functions, as kl_verify_module keeps */
	kl_verify_ctx ctx = { .scratch = kl_verify_scratch_new() };
	uint32_t nsyms = kl_module_num_syms(m);
	for (uint32_t s = 0; s < nsyms; s++) {
		kl_func *f = kl_sym_func(m, (kl_sym){ s });
		if (!f)
			continue;
		if (kl_verify_func(f, &ctx, &diags) == KL_OK) {
			/* Warnings only (the memory rules): the function
			 * verifies and the command goes on, but an access
			 * that would trap is said, as a compiler warns, in
			 * keel verify's header lines. */
			if (diags.len) {
				kl_verify_render(f, &diags, file, false,
						 &headers, &listing);
				fwrite(headers.data, 1, headers.len, stderr);
				kl_buf_reset(&headers);
				kl_buf_reset(&listing);
			}
			kl_diags_free(&diags);
			continue;
		}
		if (ok)
			fprintf(stderr, "keel %s: %s does not verify:\n", cmd,
				file);
		ok = false;
		kl_verify_render(f, &diags, file, false, &headers, &listing);
		kl_diags_free(&diags);
		fwrite(headers.data, 1, headers.len, stderr);
		fwrite(listing.data, 1, listing.len, stderr);
		kl_buf_reset(&headers);
		kl_buf_reset(&listing);
	}
	kl_buf_free(&headers);
	kl_buf_free(&listing);
	kl_diags_free(&diags);
	kl_verify_scratch_free(ctx.scratch);
	return ok;
}

/*
 * The module's text is written in pieces as it is printed (the printer's
 * flush), not built whole first: printing huge-1M touched 36 MB of new
 * memory for its text, which cost more than printing it (docs/
 * architecture.md).
 */
/*
 * Warn if the text of m printed with opts (bytes long) would not parse
 * back. The parser's budget (docs/ir.md, "Limits") takes, per function,
 * the highest value, block and sigref numbers plus one each, and allows
 * one million plus two a byte in all. The tables' bounds are at least
 * those numbers: within the budget, the text reads back, and nothing
 * more is done (nearly always). Beyond it, the text is printed again and
 * parsed to know.
 */
static void
warn_if_unreadable(const kl_module *m, const kl_print_options *opts,
		   uint64_t bytes, const char *name)
{
	uint64_t entries = 0;
	for (uint32_t s = 0, n = kl_module_num_syms(m); s < n; s++) {
		const kl_func *f = kl_sym_func(m, (kl_sym){ s });
		if (f)
			entries += (uint64_t)kl_func_value_bound(f) +
				   kl_func_block_bound(f) +
				   kl_func_sigref_bound(f);
	}
	if (entries <= 1000000 + 2 * bytes)
		return;
	kl_buf text = { 0 };
	kl_print_module(m, opts, &text);
	kl_module *again = NULL;
	kl_diags d = { 0 };
	bool sparse = kl_parse_module(text.data, text.len, NULL, &again,
				      &d) != KL_OK &&
		      d.len && strstr(d.items[0].message, "too sparse");
	if (sparse) {
		say_who();
		fprintf(stderr, "%s: warning: the text printed will not parse "
			"back: its numbers are too sparse for its size (with "
			"--renumber it will)\n", name);
	}
	kl_module_free(again);
	kl_diags_free(&d);
	kl_buf_free(&text);
}

bool
cli_print_module(const kl_module *m, const kl_print_options *opts, FILE *to,
		 const char *name)
{
	kl_print_options o = opts ? *opts : (kl_print_options){ 0 };
	text_writer w = { to, 0, 0 };
	o.flush = write_piece;
	o.flush_ctx = &w;
	kl_buf out = { 0 };
	errno = 0;
	kl_print_module(m, &o, &out);
	kl_buf_free(&out);
	bool written = writer_done(&w);
	if (written && name && !o.renumber) {
		o.flush = NULL;
		o.flush_ctx = NULL;
		warn_if_unreadable(m, &o, w.bytes, name);
	}
	return written;
}

bool
cli_write_stdout(const kl_buf *b)
{
	text_writer w = { stdout, 0, 0 };
	errno = 0;
	if (b->len)
		write_piece(&w, b->data, b->len);
	return writer_done(&w);
}

void
cli_say_output_lost(int errnum)
{
	/* Once: a program's output may have been lost already. */
	if (output_lost_said)
		return;
	output_lost_said = true;
	say_who();
	fprintf(stderr, "error writing output: %s\n", strerror(errnum));
}

bool
cli_flush_stdout(void)
{
	errno = 0;
	if (fflush(stdout) == 0 && !ferror(stdout))
		return true;
	cli_say_output_lost(errno ? errno : EIO);
	return false;
}

bool
cli_stdout_is_stderr(void)
{
	struct stat out = { 0 }, err = { 0 };
	if (fstat(1, &out) != 0 || fstat(2, &err) != 0)
		return false;
	/* (Two terminals of one session count as one place.) */
	if (isatty(1) && isatty(2))
		return true;
	return out.st_dev == err.st_dev && out.st_ino == err.st_ino;
}

bool
cli_is_help(const char *arg)
{
	return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0;
}

void
cli_args_init(cli_args *a, int argc, char **argv)
{
	*a = (cli_args){ .argc = argc, .next = 1, .argv = argv };
}

bool
cli_args_next(cli_args *a)
{
	a->value = NULL;
	a->flag_given_value = NULL;
	if (a->next < a->argc && !a->operands_only &&
	    strcmp(a->argv[a->next], "--") == 0) {
		a->operands_only = true;
		a->next++;
	}
	if (a->next >= a->argc) {
		a->arg = NULL;
		return false;
	}
	a->arg = a->argv[a->next++];
	return true;
}

bool
cli_args_is_option(const cli_args *a)
{
	return !a->operands_only && a->arg[0] == '-' && a->arg[1] != '\0';
}

/* Is arg the flag name, or name=VALUE (then noted in a, for
 * cli_args_unknown: a flag takes no value)? */
static bool
is_flag(cli_args *a, const char *name)
{
	size_t n = strlen(name);
	if (strncmp(a->arg, name, n) != 0)
		return false;
	if (a->arg[n] == '=')
		a->flag_given_value = name;
	return a->arg[n] == '\0';
}

bool
cli_args_help(cli_args *a)
{
	return cli_args_flag(a, "--help", "-h");
}

bool
cli_args_flag(cli_args *a, const char *name, const char *alt)
{
	return cli_args_is_option(a) &&
	       (is_flag(a, name) || (alt && is_flag(a, alt)));
}

int
cli_args_unknown(const cli_args *a, const char *cmd)
{
	if (a->flag_given_value)
		return cli_usage_error(cmd, "%s takes no value: '%s'",
				       a->flag_given_value, a->arg);
	return cli_usage_error(cmd, "unknown option '%s'", a->arg);
}

/* Does arg spell the option name with a value: name alone (the value
 * next), name=VALUE, or for a short name -xVALUE? */
static const char *
value_of(const char *arg, const char *name, bool *next)
{
	size_t n = strlen(name);
	*next = false;
	if (strncmp(arg, name, n) != 0)
		return NULL;
	if (arg[n] == '\0') {
		*next = true;
		return NULL;
	}
	if (arg[n] == '=')
		return arg + n + 1;
	bool short_name = n == 2 && name[0] == '-' && name[1] != '-';
	return short_name ? arg + n : NULL;
}

int
cli_args_option(cli_args *a, const char *name, const char *alt)
{
	if (!cli_args_is_option(a))
		return 0;
	bool next = false;
	const char *v = value_of(a->arg, name, &next);
	if (!v && !next && alt)
		v = value_of(a->arg, alt, &next);
	if (!v && !next)
		return 0;
	if (next) {
		if (a->next >= a->argc)
			return -1;
		v = a->argv[a->next++];
	}
	a->value = v;
	return 1;
}

int
cli_args_keep(cli_args *a, const char *cmd)
{
	if (strcmp(a->arg, "-") == 0) {
		if (a->stdin_kept) {
			cli_usage_error(cmd, "'-' (standard input) can be "
					     "named once");
			return -1;
		}
		a->stdin_kept = true;
	}
	a->argv[++a->kept] = (char *)a->arg;
	return a->kept;
}

int
cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "keel %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n(see 'keel %s --help')\n", cmd);
	return EXIT_USAGE;
}

void
cli_pass_names(kl_buf *out)
{
	uint32_t n;
	const kl_pass *all = kl_passes(&n);
	for (uint32_t i = 0; i < n; i++)
		kl_buf_printf(out, "%s%s", i ? ", " : "", all[i].name);
}

void
cli_unknown_pass(kl_buf *out, const char *name, size_t len)
{
	kl_buf_printf(out, "unknown pass '%.*s' (known: ", (int)len, name);
	cli_pass_names(out);
	kl_buf_puts(out, ")");
	/* Another compiler's name for a pass: which of keel's it is. */
	uint32_t n;
	const kl_pass *all = kl_passes(&n);
	for (uint32_t i = 0; i < n && len; i++) {
		for (const char *o = all[i].other_names; o && *o;) {
			size_t k = strcspn(o, " ");
			if (k == len && memcmp(o, name, len) == 0)
				kl_buf_printf(out, "; '%.*s' is keel's '%s'",
					      (int)len, name, all[i].name);
			o += k;
			o += strspn(o, " ");
		}
	}
}

static kl_status
break_first_block(kl_func *f, kl_pass_report *report)
{
	(void)report;
	kl_block b = kl_func_first_block(f);
	kl_inst last = b.id == KL_NONE ? KL_NO_INST : kl_block_last_inst(f, b);
	if (last.id != KL_NONE)
		kl_inst_remove(f, last);
	return KL_OK;
}

static kl_status
fail_always(kl_func *f, kl_pass_report *report)
{
	(void)f;
	(void)report;
	return KL_ERR_INVALID;
}

/* A wrong pass whose output verifies: the first value of each return,
 * when it is an integer, comes back one more. */
static kl_status
add_one_to_returns(kl_func *f, kl_pass_report *report)
{
	(void)report;
	const kl_module *m = kl_func_module(f);
	for (kl_block b = kl_func_first_block(f); b.id != KL_NONE;
	     b = kl_block_next(f, b)) {
		kl_inst ret = kl_block_last_inst(f, b);
		if (ret.id == KL_NONE ||
		    kl_inst_opcode(f, ret) != KL_OP_RETURN ||
		    kl_inst_num_args(f, ret) == 0)
			continue;
		kl_value v = kl_inst_arg(f, ret, 0);
		if (!kl_type_is_int(m, kl_value_type(f, v)))
			continue;
		kl_builder bld;
		kl_builder_init(&bld, f);
		kl_builder_before(&bld, ret);
		kl_value more = kl_build_binary_imm(&bld, KL_OP_IADD_IMM, v, 1);
		if (kl_builder_status(&bld) != KL_OK)
			return kl_builder_status(&bld);
		kl_inst_set_arg(f, ret, 0, more);
	}
	return KL_OK;
}

/* The hidden passes, for the tests of what the tools do when a pass goes
 * wrong, which no real pass does (cli.h). */
static const char *const no_counters[] = { NULL };
static const kl_pass debug_passes[] = {
	{ "debug-break", "remove the terminator of the first block (tests)",
	  break_first_block, no_counters, NULL },
	{ "debug-fail", "fail on every function (tests)", fail_always,
	  no_counters, NULL },
	{ "debug-miscompile", "add 1 to every integer returned (tests)",
	  add_one_to_returns, no_counters, NULL },
};

const kl_pass *
cli_pass_find(const char *name, size_t len)
{
	const kl_pass *p = kl_pass_find(name, len);
	for (size_t i = 0; !p && i < sizeof debug_passes /
					  sizeof debug_passes[0]; i++)
		if (len == strlen(debug_passes[i].name) &&
		    memcmp(name, debug_passes[i].name, len) == 0)
			p = &debug_passes[i];
	return p;
}

const char *
cli_parse_passes(const char *s, size_t len, const kl_pass **out, uint32_t *n,
		 kl_buf *err)
{
	const char *end = s + len;
	for (const char *q = s;;) {
		const char *c = memchr(q, ',', (size_t)(end - q));
		size_t k = c ? (size_t)(c - q) : (size_t)(end - q);
		const kl_pass *p = cli_pass_find(q, k);
		if (k == 0) {
			kl_buf_printf(err, "a pass name is missing in '%.*s'",
				      (int)len, s);
			return q;
		}
		if (!p) {
			cli_unknown_pass(err, q, k);
			return q;
		}
		if (*n == CLI_MAX_PASSES) {
			kl_buf_printf(err, "more than %u passes",
				      (unsigned)CLI_MAX_PASSES);
			return q;
		}
		out[(*n)++] = p;
		if (!c)
			return NULL;
		q = c + 1;
	}
}

static _Noreturn void
out_of_memory(void)
{
	say_who();
	fputs("out of memory\n", stderr);
	exit(EXIT_BAD_INPUT);
}

void *
cli_alloc(size_t count, size_t size)
{
	void *p = calloc(count ? count : 1, size ? size : 1);
	if (!p)
		out_of_memory();
	return p;
}

char *
cli_strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	return memcpy(cli_alloc(n, 1), s, n);
}

void
cli_grow(void *pp, uint32_t *cap, size_t elem, uint32_t need)
{
	void **p = pp;
	if (need <= *cap)
		return;
	/* (in 64 bits: doubling past 2^31 would wrap a 32-bit count to 0) */
	uint64_t c = *cap < 8 ? 8 : *cap;
	while (c < need)
		c *= 2;
	if (c > UINT32_MAX)
		c = UINT32_MAX;
	void *q = c <= SIZE_MAX / elem ? realloc(*p, (size_t)c * elem) : NULL;
	if (!q)
		out_of_memory();
	*p = q;
	*cap = (uint32_t)c;
}

static double
clock_seconds(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double
cli_now(void)
{
	return clock_seconds(CLOCK_MONOTONIC);
}

double
cli_cpu_seconds(void)
{
	return clock_seconds(CLOCK_PROCESS_CPUTIME_ID);
}

bool
cli_empty_func_name(const char *name)
{
	return name[0] == '\0' ||
	       ((name[0] == '%' || name[0] == '#') && name[1] == '\0');
}

kl_sym
cli_lookup(const kl_module *m, const char *name)
{
	if (name[0] == '%')
		return kl_module_lookup(m, name + 1, strlen(name + 1));
	if (strcmp(name, "noname") == 0)
		return kl_module_lookup(m, "", 0);
	if (name[0] != '#')
		return kl_module_lookup(m, name, strlen(name));
	size_t n = strlen(name + 1);
	if (n % 2)
		return KL_NO_SYM;
	char *bytes = cli_alloc(n / 2 + 1, 1);
	for (size_t k = 0; k < n / 2; k++) {
		const char *h = name + 1 + 2 * k;
		/* (isxdigit: strtoul would also take a sign or a blank) */
		if (!isxdigit((unsigned char)h[0]) ||
		    !isxdigit((unsigned char)h[1])) {
			free(bytes);
			return KL_NO_SYM;
		}
		char hex[3] = { h[0], h[1], 0 };
		bytes[k] = (char)strtoul(hex, NULL, 16);
	}
	kl_sym s = kl_module_lookup(m, bytes, n / 2);
	free(bytes);
	return s;
}

void
cli_no_such_func(const char *cmd, const char *file, const kl_module *m,
		 const char *name)
{
	bool named_noname = strcmp(name, "noname") == 0 &&
			    kl_sym_func(m, kl_module_lookup(m, "noname", 6));
	/* A name the module has, but not for a body to run: say what it
	 * is, not that it is missing. */
	kl_sym s = cli_lookup(m, name);
	if (s.id != KL_NONE && !named_noname) {
		bool data = kl_sym_get_kind(m, s) == KL_SYM_DATA;
		fprintf(stderr, "keel %s: %s: %s is %s\n", cmd, file, name,
			data ? "a data object, not a function"
			     : "only declared (a function with no body)");
		return;
	}
	fprintf(stderr, "keel %s: %s: no function %s defined%s\n", cmd, file,
		name, named_noname ? " (noname is the function with the "
				     "empty name; write %noname for this "
				     "file's)" : "");
}

bool
cli_parse_count(const char *s, uint64_t *out, bool *too_large)
{
	*too_large = false;
	/* Decimal, or hexadecimal after one 0x; no sign or blanks, no
	 * octal ("010" is ten), nothing past 2^64 - 1. Digits are read
	 * here: strtoull takes signs, blanks and a second "0x". */
	unsigned base = 10;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	const char *end = s;
	uint64_t v = 0;
	for (;; end++) {
		unsigned char ch = (unsigned char)*end;
		unsigned d = base; /* not a digit */
		if (isdigit(ch))
			d = (unsigned)(ch - '0');
		else if (isxdigit(ch))
			d = (unsigned)(tolower(ch) - 'a' + 10);
		if (d >= base)
			break;
		if (v > (UINT64_MAX - d) / base)
			*too_large = true;
		else
			v = v * base + d;
	}
	if (end == s)
		return false; /* no digits */
	uint64_t mul = 1;
	if (*end == 'k')
		mul = 1000;
	else if (*end == 'M')
		mul = 1000000;
	else if (*end == 'G')
		mul = 1000000000;
	if (mul != 1)
		end++;
	if (*end) {
		*too_large = false; /* malformed, whatever its size */
		return false;
	}
	if (v && mul > UINT64_MAX / v)
		*too_large = true;
	if (*too_large)
		return false;
	*out = v * mul;
	return true;
}

/* Line [start, next newline or n) of s, "(end)" when start is past it;
 * returns where the line ends. */
static size_t
line_at(const char *s, size_t n, size_t start, cli_line *out)
{
	size_t end = start;
	while (end < n && s[end] != '\n')
		end++;
	*out = start < n ? (cli_line){ s + start, (int)(end - start) }
			 : (cli_line){ "(end)", 5 };
	return end;
}

bool
cli_first_difference(const char *a, size_t na, const char *b, size_t nb,
		     uint32_t *line, cli_line *la, cli_line *lb)
{
	size_t ia = 0, ib = 0;
	for (uint32_t k = 1; ia < na || ib < nb; k++) {
		size_t ea = line_at(a, na, ia, la);
		size_t eb = line_at(b, nb, ib, lb);
		if (ia >= na || ib >= nb || ea - ia != eb - ib ||
		    (ea < na) != (eb < nb) ||
		    memcmp(a + ia, b + ib, ea - ia) != 0) {
			*line = k;
			return true;
		}
		ia = ea + 1;
		ib = eb + 1;
	}
	return false;
}

bool
cli_option_count(const char *cmd, const char *name, int given,
		 const char *value, uint64_t min, uint64_t max, uint64_t *out)
{
	if (given < 0) {
		cli_usage_error(cmd, "%s needs a value", name);
		return false;
	}
	bool too_large = false;
	bool read = cli_parse_count(value, out, &too_large);
	if (too_large || (read && *out > max)) {
		cli_usage_error(cmd, "%s is at most %llu", name,
				(unsigned long long)max);
		return false;
	}
	if (!read || *out < min) {
		if (min == 0 && max == UINT64_MAX)
			cli_usage_error(cmd, "%s needs a count, not '%s'", name,
					value);
		else if (max == UINT64_MAX)
			cli_usage_error(cmd,
				       "%s needs a count of at least %llu, "
				       "not '%s'", name,
				       (unsigned long long)min, value);
		else
			cli_usage_error(cmd, "%s needs a count from %llu to "
				       "%llu, not '%s'", name,
				       (unsigned long long)min,
				       (unsigned long long)max, value);
		return false;
	}
	return true;
}

size_t
cli_peak_rss(void)
{
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return 0;
	return (size_t)ru.ru_maxrss * 1024; /* Linux reports kilobytes */
}

/* The engine's report, each "line N: directive" head made "PATH:N:
 * directive", a place an editor opens. */
void
cli_put_check_report(kl_buf *report, const char *path, const char *rep,
		     size_t len)
{
	for (const char *s = rep, *e = rep + len; s < e;) {
		const char *nl = memchr(s, '\n', (size_t)(e - s));
		size_t n = nl ? (size_t)(nl - s) + 1 : (size_t)(e - s);
		size_t d = 5;
		while (d < n && s[d] >= '0' && s[d] <= '9')
			d++;
		if (n > 5 && memcmp(s, "line ", 5) == 0 && d > 5 && d < n &&
		    s[d] == ':') {
			kl_buf_printf(report, "%s:", path);
			kl_buf_append(report, s + 5, n - 5);
		} else {
			kl_buf_append(report, s, n);
		}
		s += n;
	}
}
