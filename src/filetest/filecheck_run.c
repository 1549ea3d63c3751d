/*
 * filecheck_run.c -- matching a checker (built by filecheck.c) against a
 * tool's output, and explaining the first directive that fails.
 *
 * Matching. The output is copied once with every '\n' replaced by NUL, so
 * each line is a C string for regexec and no pattern can match across a
 * newline. A search goes line by line from a start position (REG_NOTBOL if
 * that is mid-line) up to a limit (whose line is cut short there, with
 * REG_NOTEOL); regexec's leftmost-longest match on the first line that has
 * one is the match. A run keeps one position, the end of the previous
 * positive match, starting at 0:
 *   check:     searches from the position to the end of the output;
 *   sameln:    from the position to the end of its line;
 *   nextln:    the whole line after the position's line (line 1 when
 *              nothing has matched yet);
 *   unordered: each of a run of consecutive ones, in file order, takes the
 *              leftmost match after the position that overlaps none taken
 *              by the others; the position becomes the latest end. This is
 *              greedy, like LLVM's CHECK-DAG: it can miss an assignment
 *              that only another order would find;
 *   not:       is compiled when reached (so it sees the bindings of that
 *              point) and kept pending; once the next positive directive
 *              or group has matched, it must not match between the old
 *              position and the start of that match (the earliest start of
 *              a group), or the end of the output after the last directive.
 * A positive match binds the variables of its $(X=RE) groups; a later
 * binding of the same name replaces the earlier one.
 *
 * Invariants: a run never changes the checker, so it can be run again;
 * the position never moves backwards and always lies on the line of the
 * last match.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "filecheck.h"

/*
 * A directive spliced during a run, from the bindings of when the run
 * reached it, and kept only until the directive has been matched: glibc
 * grows a regex_t by some 2 kB per byte of pattern as it searches with it,
 * so one kept per directive to the end of a run took gigabytes.
 */
struct spliced {
	bool done;    /* spliced (the rest is empty until then) */
	bool literal; /* matched as lit */
	bool live;    /* re is compiled (from src) */
	regex_t re;
	kl_buf src; /* regex source, kept while a not: waits */
	struct literal lit;
};

/* What find() searches for: a regex, or else literal text. */
struct matcher {
	const regex_t *re;
	const struct literal *lit;
};

/* The state of one kl_filecheck_run. */
struct run {
	const kl_filecheck *fc;
	char *text;            /* the output, each '\n' replaced by NUL */
	size_t len;            /* bytes in the output */
	size_t *starts;        /* first byte of each line */
	size_t nlines;         /* a final '\n' does not start a line */
	size_t last_end;       /* end of the last line */
	struct binding *binds; /* one per variable */
	struct spliced *own;   /* one per directive */
	regmatch_t *pm;        /* room for the most groups of any directive */
	size_t npm;
	size_t base; /* where the search that filled pm started */
	kl_buf *report;
};

/* One past the last byte of line i (its '\n', now a NUL, or the end). */
static size_t
end_of(const struct run *cx, size_t i)
{
	return i + 1 < cx->nlines ? cx->starts[i + 1] - 1 : cx->last_end;
}

static size_t
line_of(const struct run *cx, size_t pos)
{
	size_t lo = 0, hi = cx->nlines;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (cx->starts[mid] <= pos)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Find lit in s[0, n), as regexec would find its regex (put_literal's):
 * the leftmost match, and of those the longest. Knuth-Morris-Pratt over
 * tokens, the text's read as the literal's are (a byte, or a whole run of
 * blanks as one ' '), so the search is linear where regexec's is
 * quadratic in the literal's length. A run of blanks matches only a whole
 * run: the token next to it is a byte that is no blank, or the end, where
 * the longest match takes the whole run; and a match that begins inside a
 * run (the literal starts with blanks) would begin further left at its
 * start. Hence the leftmost match in tokens is regexec's.
 */
static bool
lit_find(const struct literal *lit, const char *s, size_t n, size_t *ms,
	 size_t *me)
{
	const char *tok = lit->tok.data;
	size_t len = lit->tok.len, k = 0; /* tokens matched so far */
	if (len == 0) {
		*ms = *me = 0;
		return true;
	}
	for (size_t j = 0; j < n;) {
		char c = s[j++];
		if (is_hspace(c)) {
			c = ' ';
			while (j < n && is_hspace(s[j]))
				j++;
		}
		while (k > 0 && tok[k] != c)
			k = lit->fail[k - 1];
		if (tok[k] == c)
			k++;
		if (k < len)
			continue;
		/* matched, ending at j: walk its tokens back to its start */
		size_t at = j;
		for (size_t t = len; t-- > 0;) {
			at--;
			while (tok[t] == ' ' && at > 0 && is_hspace(s[at - 1]))
				at--;
		}
		*ms = at;
		*me = j;
		return true;
	}
	return false;
}

/*
 * Find the first match of m that starts at or after from and ends at or
 * before to. On success, pm holds the groups relative to cx->base (of a
 * regex: a literal has none).
 */
static bool
find(struct run *cx, const struct matcher *m, size_t from, size_t to,
     size_t *ms, size_t *me)
{
	const regex_t *re = m->re;
	size_t nm = !re ? 0 : re->re_nsub + 1 < cx->npm ? re->re_nsub + 1
							 : cx->npm;
	for (size_t i = line_of(cx, from);
	     from <= to && i < cx->nlines && cx->starts[i] <= to; i++) {
		size_t b = from > cx->starts[i] ? from : cx->starts[i];
		size_t e = end_of(cx, i) < to ? end_of(cx, i) : to;
		size_t s = 0, t = 0;
		bool hit;
		if (!re) {
			hit = lit_find(m->lit, cx->text + b, e - b, &s, &t);
		} else {
			int flags = b > cx->starts[i] ? REG_NOTBOL : 0;
			char saved = cx->text[e];
			if (e < end_of(cx, i)) {
				flags |= REG_NOTEOL;
				cx->text[e] = 0;
			}
			hit = regexec(re, cx->text + b, nm, cx->pm, flags) == 0;
			cx->text[e] = saved;
			if (hit) {
				s = (size_t)cx->pm[0].rm_so;
				t = (size_t)cx->pm[0].rm_eo;
			}
		}
		if (hit) {
			cx->base = b;
			*ms = b + s;
			*me = b + t;
			return true;
		}
	}
	return false;
}

/* Record the text of d's $(X=RE) groups after find() matched d. */
static void
bind(struct run *cx, const struct directive *d)
{
	for (uint32_t i = 0; i < d->npieces; i++) {
		const struct piece *p = &d->pieces[i];
		if (p->kind != P_DEF || p->var == NOVAR || p->group >= cx->npm)
			continue;
		regmatch_t m = cx->pm[p->group];
		if (m.rm_so < 0)
			continue;
		cx->binds[p->var] = (struct binding){
			cx->base + (size_t)m.rm_so, cx->base + (size_t)m.rm_eo,
			true};
	}
}

/* Append n bytes of an output line, control characters made visible. */
static void
put_visible(kl_buf *b, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		kl_buf_putc(b, (c < 0x20 && c != '\t') || c == 0x7f ? '?' :
								      s[i]);
	}
}

static void
report_head(struct run *cx, const struct directive *d)
{
	kl_buf_printf(cx->report, "line %" PRIu32 ": %s\n", d->line, d->text);
	/* What its captured variables held: a capture of the wrong text
	 * earlier is the usual cause of a miss here. */
	for (uint32_t i = 0; i < d->npieces; i++) {
		const struct piece *p = &d->pieces[i];
		if (p->kind != P_USE || !cx->binds[p->var].bound)
			continue;
		bool seen = false;
		for (uint32_t k = 0; k < i && !seen; k++)
			seen = d->pieces[k].kind == P_USE &&
			       d->pieces[k].var == p->var;
		if (seen)
			continue;
		const struct binding *b = &cx->binds[p->var];
		size_t n = b->end - b->start, shown = n > 80 ? 77 : n;
		kl_buf_printf(cx->report, "  with $%s = \"", p->name);
		put_visible(cx->report, cx->text + b->start, shown);
		kl_buf_puts(cx->report, shown < n ? "...\"\n" : "\"\n");
	}
}

/* A place in the output to point at under its line. */
struct mark {
	size_t pos, len;
	const char *label;
};

/*
 * Show output lines around line `center`, numbered, each followed by the
 * marks that fall on it. The padding before a caret copies the tabs of the
 * line and skips UTF-8 continuation bytes, so the caret lines up however
 * the reader's terminal sets its tab stops.
 */
static void
show(struct run *cx, size_t center, const struct mark *marks, size_t nmarks)
{
	kl_buf *r = cx->report;
	if (cx->len == 0) {
		kl_buf_puts(r, "  (the output is empty)\n");
		return;
	}
	size_t lo = center >= 2 ? center - 2 : 0;
	size_t hi = center + 3 < cx->nlines ? center + 3 : cx->nlines;
	for (size_t i = lo; i < hi; i++) {
		size_t s = cx->starts[i], e = end_of(cx, i);
		kl_buf_printf(r, "%6zu | ", i + 1);
		put_visible(r, cx->text + s, e - s);
		kl_buf_putc(r, '\n');
		for (size_t k = 0; k < nmarks; k++) {
			const struct mark *m = &marks[k];
			if (line_of(cx, m->pos) != i)
				continue;
			kl_buf_puts(r, "       | ");
			for (size_t j = s; j < m->pos; j++) {
				unsigned char c = (unsigned char)cx->text[j];
				if (c == '\t')
					kl_buf_putc(r, '\t');
				else if (c < 0x80 || c >= 0xc0)
					kl_buf_putc(r, ' ');
			}
			kl_buf_putc(r, '^');
			size_t n = m->len < e - m->pos ? m->len : e - m->pos;
			for (size_t j = 1; j < n; j++)
				kl_buf_putc(r, '~');
			kl_buf_printf(r, " %s\n", m->label);
		}
	}
}

/* Report that d found nothing when searching from `from`. */
static void
report_miss(struct run *cx, const struct directive *d, size_t from,
	    const char *what)
{
	size_t l = line_of(cx, from);
	report_head(cx, d);
	kl_buf_printf(cx->report, "%s, searching from output line %zu, "
		      "column %zu:\n", what, l + 1, from - cx->starts[l] + 1);
	struct mark m = {from, 0, "search starts here"};
	show(cx, l, &m, 1);
}

/*
 * Splice directive i, unless it was literal text when added: from the
 * bindings of now, as literal text if it is that, else as a compiled
 * regex.
 * Returns false after reporting why it cannot be had.
 */
static bool
splice(struct run *cx, uint32_t i)
{
	const struct directive *d = &cx->fc->dirs[i];
	struct spliced *c = &cx->own[i];
	if (d->literal || c->done)
		return true;
	c->done = true;
	if (filecheck_literal_of(d, cx->binds, cx->text, &c->lit)) {
		c->literal = true;
		return true;
	}
	kl_buf msg = {0};
	const char *undef = filecheck_build(d, cx->binds, cx->text, &c->src);
	c->live = !undef &&
		   filecheck_compile_pattern(&c->re, d, &c->src, &msg);
	if (!c->live) {
		report_head(cx, d);
		if (undef) /* (resolve saw it defined earlier, whose
			    * match, before this one, binds it: a bug) */
			kl_buf_printf(cx->report, "internal error: variable "
				      "$%s has no value\n", undef);
		else
			kl_buf_printf(cx->report, "bad regex after "
				      "substituting variables: %s\n", msg.data);
	}
	kl_buf_free(&msg);
	return c->live;
}

/*
 * Free what splice made for directive i. With keep_src, the regex source
 * stays, for a not: that waits for the next match (matcher compiles it
 * again then): a regex_t per waiting not: would hold far more.
 */
static void
unsplice(struct run *cx, uint32_t i, bool keep_src)
{
	struct spliced *c = &cx->own[i];
	if (c->live)
		regfree(&c->re);
	c->live = false;
	if (keep_src)
		return;
	filecheck_literal_free(&c->lit);
	kl_buf_free(&c->src);
	*c = (struct spliced){0};
}

/*
 * What to search for directive i, spliced already. Returns false after
 * reporting why not (a not:'s regex, compiled again, fails this time).
 */
static bool
matcher(struct run *cx, uint32_t i, struct matcher *m)
{
	const struct directive *d = &cx->fc->dirs[i];
	struct spliced *c = &cx->own[i];
	*m = (struct matcher){0};
	if (d->literal || c->literal) {
		m->lit = d->literal ? &d->lit : &c->lit;
		return true;
	}
	kl_buf msg = {0};
	if (!c->live)
		c->live = filecheck_compile_pattern(&c->re, d, &c->src, &msg);
	if (!c->live) {
		report_head(cx, d);
		kl_buf_printf(cx->report, "bad regex after substituting "
			      "variables: %s\n", msg.data);
	}
	kl_buf_free(&msg);
	m->re = c->live ? &c->re : NULL;
	return c->live;
}

/* Match one check:, sameln: or nextln:, searching from pos. */
static bool
match_one(struct run *cx, uint32_t i, size_t pos, bool any, size_t *ms,
	  size_t *me)
{
	const struct directive *d = &cx->fc->dirs[i];
	size_t l = line_of(cx, pos), from = pos, to = cx->last_end;
	const char *what = "no match";
	if (d->kind == D_SAMELN) {
		to = end_of(cx, l);
		what = "no match on the same line";
	} else if (d->kind == D_NEXTLN) {
		if (any && l + 1 >= cx->nlines) {
			report_head(cx, d);
			kl_buf_printf(cx->report, "no output line after line "
				      "%zu:\n", l + 1);
			struct mark m = {pos, 0, "previous match ends here"};
			show(cx, l, &m, 1);
			return false;
		}
		l += any;
		from = cx->starts[l];
		to = end_of(cx, l);
		what = "no match on the next line";
	}
	struct matcher m;
	bool ready = splice(cx, i) && matcher(cx, i, &m);
	bool found = ready && find(cx, &m, from, to, ms, me);
	if (found)
		bind(cx, d);
	else if (ready)
		report_miss(cx, d, from, what);
	unsplice(cx, i, false);
	return found;
}

struct range {
	size_t start, end;
};

static bool
overlaps(const struct range *r, size_t n, size_t start, size_t end)
{
	for (size_t i = 0; i < n; i++) {
		size_t s = start > r[i].start ? start : r[i].start;
		size_t e = end < r[i].end ? end : r[i].end;
		if (s < e || (start == end && r[i].start < start &&
			      start < r[i].end))
			return true;
	}
	return false;
}

/*
 * Match the group of unordered: directives that starts at dirs[first].
 * Sets *start to the earliest start of their matches, *end to the latest
 * end, and *next to the first directive after the group.
 */
static bool
match_group(struct run *cx, uint32_t first, size_t pos, size_t *start,
	    size_t *end, uint32_t *next)
{
	const kl_filecheck *fc = cx->fc;
	uint32_t last = first;
	while (last < fc->ndirs && fc->dirs[last].kind == D_UNORDERED)
		last++;
	*next = last;
	*start = SIZE_MAX;
	*end = pos;
	struct range *taken = kl_malloc((last - first) * sizeof *taken);
	size_t ntaken = 0;
	bool ok = true;
	for (uint32_t i = first; ok && i < last; i++) {
		const struct directive *d = &fc->dirs[i];
		struct matcher m;
		if (!splice(cx, i) || !matcher(cx, i, &m)) {
			ok = false;
			break;
		}
		size_t f = pos, ms = 0, me = 0;
		bool crowded = false; /* a match was refused for overlapping */
		while ((ok = find(cx, &m, f, cx->last_end, &ms, &me)) &&
		       overlaps(taken, ntaken, ms, me)) {
			crowded = true;
			f = ms + 1;
		}
		if (ok) {
			bind(cx, d);
			taken[ntaken++] = (struct range){ms, me};
			*start = ms < *start ? ms : *start;
			*end = me > *end ? me : *end;
		} else {
			report_miss(cx, d, pos, crowded ?
				    "no match apart from the other unordered "
				    "matches" : "no match");
		}
		unsplice(cx, i, false);
	}
	free(taken);
	return ok;
}

/*
 * The not: directives among dirs[first, last), all spliced already, may
 * not match in [from, to).
 */
static bool
check_nots(struct run *cx, uint32_t first, uint32_t last, size_t from,
	   size_t to)
{
	for (uint32_t i = first; i < last; i++) {
		const struct directive *d = &cx->fc->dirs[i];
		size_t ms, me;
		struct matcher mt;
		if (d->kind != D_NOT)
			continue;
		if (!matcher(cx, i, &mt))
			return false;
		bool hit = find(cx, &mt, from, to, &ms, &me);
		unsplice(cx, i, false);
		if (!hit)
			continue;
		size_t l = line_of(cx, ms), fl = line_of(cx, from);
		report_head(cx, d);
		kl_buf_printf(cx->report, "forbidden match on output line %zu, "
			      "column %zu (searched from line %zu, column "
			      "%zu):\n", l + 1, ms - cx->starts[l] + 1, fl + 1,
			      from - cx->starts[fl] + 1);
		struct mark m[2] = {
			{from, 0, "search starts here"},
			{ms, me - ms, "forbidden match"},
		};
		show(cx, l, m, 2);
		return false;
	}
	return true;
}

static void
run_init(struct run *cx, const kl_filecheck *fc, const char *out,
	 size_t len, kl_buf *report)
{
	cx->fc = fc;
	cx->report = report;
	cx->len = len;
	cx->text = kl_malloc(len + 1);
	if (len)
		memcpy(cx->text, out, len);
	cx->text[len] = 0;
	bool final_nl = len > 0 && out[len - 1] == '\n';
	size_t nl = 0;
	for (size_t i = 0; i < len; i++)
		nl += out[i] == '\n';
	cx->nlines = final_nl ? nl : nl + 1;
	cx->last_end = final_nl ? len - 1 : len;
	cx->starts = kl_malloc(kl_table_bytes(cx->nlines, sizeof *cx->starts));
	cx->starts[0] = 0;
	for (size_t i = 0, k = 1; i < len; i++) {
		if (out[i] != '\n')
			continue;
		cx->text[i] = 0;
		if (k < cx->nlines)
			cx->starts[k++] = i + 1;
	}
	cx->binds = kl_calloc(fc->nvars, sizeof *cx->binds);
	cx->own = kl_calloc(fc->ndirs, sizeof *cx->own);
	cx->npm = fc->max_nsub + 1;
	cx->pm = kl_malloc(cx->npm * sizeof *cx->pm);
	cx->base = 0;
}

bool
kl_filecheck_run(const kl_filecheck *fc, const char *out, size_t len,
		 kl_buf *report)
{
	if (!fc || fc->count == 0)
		return true;
	if (fc->ndirs == 0) {
		/* regex: lines alone check nothing: not a pass */
		if (report)
			kl_buf_puts(report, "only regex: definitions, no "
				    "directive that checks the output\n");
		return false;
	}
	if (!out)
		len = 0;
	/* Lines are matched as C strings: past a NUL a check would not see
	 * the rest of its line, and a not: would pass for not seeing it. */
	const char *nul = len ? memchr(out, 0, len) : NULL;
	if (nul) {
		uint32_t line = 1;
		for (const char *c = out; c < nul; c++)
			line += *c == '\n';
		if (report)
			kl_buf_printf(report,
				      "output line %" PRIu32 " has a NUL "
				      "byte, which checks cannot see past\n",
				      line);
		return false;
	}
	kl_buf scratch = {0};
	struct run cx;
	/* In the C locale as regcomp is (compile): glibc fixes the
	 * character width at regcomp, but a libc may read the locale again
	 * in regexec (musl's decodes the text there with mbtowc); under glibc
	 * test_locale cannot tell this span from none. */
	kl_c_locale c;
	kl_c_locale_begin(&c);
	run_init(&cx, fc, out, len, report ? report : &scratch);
	/* the not:s since the last positive match are dirs[nots, i) */
	uint32_t nots = 0, i = 0;
	size_t pos = 0;
	bool any = false, ok = true;
	while (ok && i < fc->ndirs) {
		if (fc->dirs[i].kind == D_NOT) {
			/* spliced now, with the bindings of where it stands */
			ok = splice(&cx, i);
			unsplice(&cx, i++, true);
			continue;
		}
		size_t start = 0, end = 0;
		uint32_t next = i + 1;
		if (fc->dirs[i].kind == D_UNORDERED)
			ok = match_group(&cx, i, pos, &start, &end, &next);
		else
			ok = match_one(&cx, i, pos, any, &start, &end);
		ok = ok && check_nots(&cx, nots, i, pos, start);
		pos = end;
		any = true;
		i = nots = next;
	}
	ok = ok && check_nots(&cx, nots, i, pos, cx.last_end);
	for (uint32_t k = 0; k < fc->ndirs; k++)
		unsplice(&cx, k, false); /* not:s a failure left waiting */
	free(cx.own);
	free(cx.text);
	free(cx.starts);
	free(cx.binds);
	free(cx.pm);
	kl_buf_free(&scratch);
	kl_c_locale_end(&c);
	return ok;
}

