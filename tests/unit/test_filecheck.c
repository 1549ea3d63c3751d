/*
 * test_filecheck.c -- unit tests of the FileCheck engine.
 *
 * Every directive is tested both ways: a checker that cannot fail is
 * worthless, so each positive case has a near miss that must be rejected,
 * and failure reports are checked for the facts a reader needs (the check
 * file line, the output line, the marker). A small deterministic fuzz loop
 * feeds arbitrary bytes to both halves of the API; run under the sanitizers
 * it shows that no input crashes or leaks.
 */
#include <stdlib.h>
#include <sys/resource.h>

#include "keel.h"
#include "unit.h"
#include "child.h"

/*
 * Build a checker from a check file: lines separated by '\n', each offered
 * whole. Any malformed directive fails the current test.
 */
static kl_filecheck *
make(const char *check)
{
	kl_filecheck *fc = kl_filecheck_new();
	kl_buf err = {0};
	uint32_t line = 1;
	for (const char *s = check; *s; line++) {
		const char *e = strchr(s, '\n');
		if (!e)
			e = s + strlen(s);
		size_t n = (size_t)(e - s);
		if (kl_filecheck_add_line(fc, s, n, line, &err) < 0)
			fprintf(stderr, "unexpected error: %s", err.data);
		CHECK(err.len == 0);
		s = *e ? e + 1 : e;
	}
	kl_buf_free(&err);
	return fc;
}

/* Run check against out; the report, if any, goes to *report. */
static bool
run(const char *check, const char *out, kl_buf *report)
{
	kl_filecheck *fc = make(check);
	bool ok = kl_filecheck_run(fc, out, strlen(out), report);
	kl_filecheck_free(fc);
	return ok;
}

static bool
passes(const char *check, const char *out)
{
	kl_buf report = {0};
	bool ok = run(check, out, &report);
	if (!ok)
		fprintf(stderr, "unexpected failure:\n%s", report.data);
	CHECK(ok == (report.len == 0));
	kl_buf_free(&report);
	return ok;
}

/* Expect failure with a report that contains every string in want. */
static bool
fails_with(const char *check, const char *out, const char *want1,
	   const char *want2)
{
	kl_buf report = {0};
	bool ok = run(check, out, &report);
	bool good = !ok && report.len > 0 &&
		    report.data[report.len - 1] == '\n';
	const char *want[2] = {want1, want2};
	for (int i = 0; good && i < 2; i++)
		if (want[i] && !strstr(report.data, want[i])) {
			fprintf(stderr, "report lacks \"%s\":\n%s", want[i],
				report.data);
			good = false;
		}
	kl_buf_free(&report);
	return good;
}

static bool
fails(const char *check, const char *out)
{
	return fails_with(check, out, NULL, NULL);
}

/* Offer one line to a fresh checker; return add_line's result. */
static int
add_one(const char *line, kl_buf *err)
{
	kl_filecheck *fc = kl_filecheck_new();
	int rc = kl_filecheck_add_line(fc, line, strlen(line), 7, err);
	CHECK_EQ_INT(kl_filecheck_count(fc), rc == 1);
	kl_filecheck_free(fc);
	return rc;
}

/* Expect the line to be rejected with a one-line message, which leaves
 * the place to the caller. */
static bool
malformed(const char *line, const char *want)
{
	kl_buf err = {0};
	int rc = add_one(line, &err);
	bool good = rc == -1 && err.len > 0 &&
		    strncmp(err.data, "line ", 5) != 0 &&
		    !strchr(err.data, '\n') &&
		    (!want || strstr(err.data, want));
	if (!good)
		fprintf(stderr, "for \"%s\": rc %d, err \"%s\"\n", line, rc,
			err.len ? err.data : "");
	kl_buf_free(&err);
	return good;
}

/* Every line of check but the last is accepted; the last is rejected
 * with a message containing want, and the checker keeps the others. */
static bool
rejects_last(const char *check, const char *want)
{
	const char *last = strrchr(check, '\n');
	CHECK(last != NULL);
	size_t n = (size_t)(last - check);
	char *first = malloc(n + 1);
	memcpy(first, check, n);
	first[n] = 0;
	kl_filecheck *fc = make(first);
	uint32_t kept = kl_filecheck_count(fc), line = 2;
	for (const char *c = check; c < last; c++)
		line += *c == '\n';
	kl_buf err = {0};
	int rc = kl_filecheck_add_line(fc, last + 1, strlen(last + 1), line,
				       &err);
	bool good = rc == -1 && err.len > 0 && strstr(err.data, want) &&
		    kl_filecheck_count(fc) == kept;
	if (!good)
		fprintf(stderr, "for \"%s\": rc %d, err \"%s\"\n", check, rc,
			err.len ? err.data : "");
	kl_buf_free(&err);
	kl_filecheck_free(fc);
	free(first);
	return good;
}

static void
test_empty(void)
{
	kl_filecheck *fc = kl_filecheck_new();
	CHECK_EQ_INT(kl_filecheck_count(fc), 0);
	CHECK(kl_filecheck_run(fc, "anything", 8, NULL));
	CHECK(kl_filecheck_run(fc, "", 0, NULL));
	CHECK(kl_filecheck_run(fc, NULL, 0, NULL));
	kl_filecheck_free(fc);
	kl_filecheck_free(NULL);
	CHECK(passes("just a comment\nerror: bad thing", ""));
	/* definitions alone check nothing: a failure, not a pass */
	kl_buf why = { 0 };
	fc = make("regex: X=x+");
	CHECK(!kl_filecheck_run(fc, "x", 1, &why));
	CHECK(why.data && strstr(why.data, "only regex: definitions"));
	kl_filecheck_free(fc);
	kl_buf_free(&why);
}

static void
test_not_directives(void)
{
	const char *plain[] = {
		"", "   ", "plain comment", "error: value v3 undefined",
		"run: %f(1) == 2", "dominates: block1", "Check: prose",
		"check this: x", "checks: x", "nextlines: x", "test cat",
		"; error: x", "; Check: prose", "Not: really", "regex = x",
		"x86: prose", "; note: x", "averyveryverylongword: prose",
	};
	for (size_t i = 0; i < sizeof plain / sizeof *plain; i++) {
		kl_buf err = {0};
		CHECK_EQ_INT(add_one(plain[i], &err), 0);
		CHECK_EQ_INT(err.len, 0);
		kl_buf_free(&err);
	}
	/* habits from LLVM's FileCheck, capitals, and a directive behind a
	 * second ';' (";; check:" in a test file, read by no one): reported,
	 * not skipped, with the directive meant */
	const char *misspelt[][3] = {
		{ "CHECK: x", "'check:'", "misspelt directive" },
		{ "NOT: x", "'not:'", "misspelt directive" },
		{ "check-not: x", "'not:'", "misspelt directive" },
		{ "CHECK-NEXT: x", "'nextln:'", "misspelt directive" },
		{ "check-same: x", "'sameln:'", "misspelt directive" },
		{ "check-dag: x", "'unordered:'", "misspelt directive" },
		{ "check-label: x", "'check:'", "misspelt directive" },
		{ "REGEX: X=x", "'regex:'", "misspelt directive" },
		{ "CHECK-COUNT-2: x", "'check:'", "misspelt directive" },
		{ "CHECK-COUNT-1000: x", "'check:'", "misspelt directive" },
		{ "check-some-very-long-name: x", "'check:'",
		  "misspelt directive" },
		{ "check{literal}: x", "'check:'", "misspelt directive" },
		{ "not{LITERAL}: x", "'not:'", "misspelt directive" },
		{ "; check: x", "'; check:'", "second ';'" },
		{ ";;  not: x", "'; not:'", "second ';'" },
		{ " ; CHECK-NEXT: x", "'; nextln:'", "second ';'" },
		/* a blank before the ':', the names spelt out */
		{ "not : x", "'not:'", "misspelt directive" },
		{ "check\t: x", "'check:'", "misspelt directive" },
		{ "CHECK : x", "'check:'", "misspelt directive" },
		{ "nextline: x", "'nextln:'", "misspelt directive" },
		{ "next-line: x", "'nextln:'", "misspelt directive" },
		{ "SAMELINE: x", "'sameln:'", "misspelt directive" },
		{ "same-line: x", "'sameln:'", "misspelt directive" },
	};
	for (size_t i = 0; i < sizeof misspelt / sizeof *misspelt; i++) {
		kl_buf err = {0};
		CHECK_EQ_INT(add_one(misspelt[i][0], &err), -1);
		CHECK(err.data && strstr(err.data, misspelt[i][2]) &&
		      strstr(err.data, misspelt[i][1]));
		kl_buf_free(&err);
	}
	const char *directives[] = {
		"check: x", " check: x", "\t  sameln: x", "nextln: x",
		"unordered: x", "not: x", "regex: X=x", "check:x",
		"check: x  \r",
	};
	for (size_t i = 0; i < sizeof directives / sizeof *directives; i++)
		CHECK_EQ_INT(add_one(directives[i], NULL), 1);

	kl_filecheck *fc = make("check: a\nhello\nnot: b\nregex: N=[0-9]+");
	CHECK_EQ_INT(kl_filecheck_count(fc), 3);
	CHECK_EQ_INT(kl_filecheck_add_line(fc, NULL, 0, 9, NULL), 0);
	CHECK_EQ_INT(kl_filecheck_count(fc), 3);
	kl_filecheck_free(fc);
}

static void
test_check(void)
{
	const char *out = "block0:\n  v1 = iconst.i32 1\n  v2 = iadd v1, v1\n"
			  "  return v2\n";
	CHECK(passes("check: iconst\ncheck: iadd\ncheck: return", out));
	CHECK(fails("check: iadd\ncheck: iconst", out)); /* order matters */
	CHECK(fails("check: imul", out));
	/* the next search starts where the last match ended */
	CHECK(passes("check: v1\ncheck: v1\ncheck: v1", out));
	CHECK(fails("check: v2\ncheck: v2\ncheck: v2", out));
	CHECK(passes("check: iadd v1\ncheck: v1", out)); /* same line */
	CHECK(passes("check: block0:", out));
	CHECK(passes("check: x", "x")); /* no final newline */
	CHECK(fails("check: x", ""));
	/* no pattern spans a newline */
	CHECK(fails("check: 1 v2", out));
	CHECK(fails("check: a$(=.*)b", "a\nb\n"));
	CHECK(passes("check: a$(=.*)b", "xa..b\n"));
}

static void
test_sameln(void)
{
	const char *out = "v1 = iadd v2, v3\nv4 = isub v5, v6\n";
	CHECK(passes("check: iadd\nsameln: v2\nsameln: v3", out));
	CHECK(fails("check: iadd\nsameln: v5", out));
	/* after the previous match, not before it */
	CHECK(fails("check: iadd\nsameln: v1", out));
	CHECK(fails("check: v3\nsameln: v2", out));
	/* with nothing matched yet, the line is the first one */
	CHECK(passes("sameln: iadd", out));
	CHECK(fails("sameln: isub", out));
	CHECK(fails_with("check: iadd\nsameln: isub", out, "line 2:",
			 "no match on the same line"));
}

static void
test_nextln(void)
{
	const char *out = "one\ntwo\nthree\n";
	CHECK(passes("check: one\nnextln: two\nnextln: three", out));
	CHECK(fails("check: one\nnextln: three", out));
	CHECK(fails("check: two\nnextln: two", out));
	CHECK(passes("check: tw\nsameln: o\nnextln: thr", out));
	/* with nothing matched yet, the next line is line 1 */
	CHECK(passes("nextln: one", out));
	CHECK(fails("nextln: two", out));
	CHECK(fails_with("check: three\nnextln: four", out, "line 2:",
			 "no output line after line 3"));
	CHECK(fails_with("check: one\nnextln: three", out,
			 "no match on the next line", "output line 2"));
	CHECK(fails("check: x\nnextln: y", "x"));
	CHECK(passes("check: x\nnextln: y", "x\ny"));
}

static void
test_not(void)
{
	const char *out = "a\nb\nc\nd\n";
	/* between two checks */
	CHECK(passes("check: a\nnot: x\ncheck: d", out));
	CHECK(fails("check: a\nnot: c\ncheck: d", out));
	/* only the range between the matches counts */
	CHECK(passes("check: b\nnot: a\ncheck: c", out));
	CHECK(passes("check: b\nnot: d\ncheck: c", out));
	CHECK(passes("check: b\nnot: b\nnot: c\nnextln: c", out));
	/* at the end: up to the end of the output */
	CHECK(passes("check: c\nnot: b", out));
	CHECK(fails("check: b\nnot: d", out));
	CHECK(fails("check: a\nnot: c\nnot: d", out));
	/* at the start, and alone */
	CHECK(fails("not: b\ncheck: c", out));
	CHECK(passes("not: c\ncheck: b", out));
	CHECK(passes("not: x", out));
	CHECK(fails("not: d", out));
	/* a match touching the next match's start still counts */
	CHECK(fails("check: a\nnot: bc\ncheck: de", "a bcde\n"));
	/* but one running into it does not */
	CHECK(passes("check: a\nnot: bcd\ncheck: de", "a bcde\n"));
	/* before a sameln: */
	CHECK(fails("check: a\nnot: b\nsameln: c", "a b c\n"));
	CHECK(passes("check: a\nnot: x\nsameln: c", "a b c\n"));
	CHECK(fails_with("check: a\nnot: c\ncheck: d", out, "line 2: not: c",
			 "forbidden match on output line 3"));
}

static void
test_unordered(void)
{
	const char *out = "start\nx\ny\nz\nend\n";
	CHECK(passes("check: start\nunordered: x\nunordered: y\n"
		     "unordered: z\ncheck: end", out));
	CHECK(passes("check: start\nunordered: z\nunordered: x\n"
		     "unordered: y\ncheck: end", out));
	CHECK(fails("check: start\nunordered: z\nunordered: w\n"
		    "check: end", out));
	/* matches are after the previous match */
	CHECK(fails("check: x\nunordered: start\nunordered: y", out));
	/* non-overlapping: the same text cannot satisfy two directives */
	CHECK(fails_with("unordered: y\nunordered: y", out, "line 2:",
			 "apart from the other unordered"));
	CHECK(passes("unordered: y\nunordered: y", "y\ny\n"));
	CHECK(passes("unordered: ab\nunordered: b", "ab b\n"));
	/* matches that touch do not overlap: "a" ends where "b" starts */
	CHECK(passes("unordered: a\nunordered: b", "ab\n"));
	CHECK(passes("unordered: b\nunordered: a", "ab\n"));
	/* a refused match is retried one byte on, not past its end: the
	 * leftmost-longest "abc" overlaps "cd", and "b" inside it does not
	 * (docs/testing.md's example) */
	CHECK(passes("unordered: cd\nunordered: $(=b|abc)", "abcd\n"));
#ifdef __GLIBC__
	/* an empty match strictly inside another is refused too: glibc's
	 * \> (a GNU extension) matches empty at each word's end, and both
	 * of those in "ab cd." lie inside the match of the first line */
	CHECK(fails("unordered: ab cd.\nunordered: $(=\\>)", "ab cd.\n"));
	CHECK(passes("unordered: ab cd.\nunordered: $(=\\>)", "ab cd. x\n"));
#endif
	/* the position after the group is the end of its latest match */
	CHECK(passes("unordered: z\nunordered: x\nnextln: end", out));
	CHECK(fails("unordered: z\nunordered: x\ncheck: y", out));
	CHECK(passes("unordered: y\nunordered: x\ncheck: z", out));
	CHECK(passes("unordered: x\nunordered: z\nnextln: end", out));
	CHECK(fails("unordered: x\nunordered: z\nnextln: y", out));
	/* a not: before a group covers up to its earliest match */
	CHECK(fails("check: start\nnot: x\nunordered: z\nunordered: y",
		    out));
	CHECK(passes("check: start\nnot: end\nunordered: z\nunordered: x",
		     out));
	CHECK(passes("check: start\nnot: y\nunordered: x\nunordered: z",
		     out));
	/* a not: ends a group: two groups, each after the previous one */
	CHECK(passes("unordered: y\nunordered: x\nnot: w\nunordered: z",
		     out));
	CHECK(fails("unordered: y\nnot: w\nunordered: x", out));
	/* greedy in file order, as documented */
	CHECK(fails("unordered: a\nunordered: ab", "ab a\n"));
	CHECK(passes("unordered: ab\nunordered: a", "ab a\n"));
}

static void
test_whitespace(void)
{
	CHECK(passes("check: v1 = iadd v2, v3", "v1\t=  iadd \t v2,\tv3\n"));
	CHECK(passes("check:    a  \t b   ", "a b\n"));
	CHECK(fails("check: a b", "ab\n"));
	CHECK(fails("check: a b", "a\nb\n"));
	CHECK(fails("check: ab", "a b\n"));
	/* inside a regex the blanks are the regex's own */
	CHECK(fails("check: $(=a  b)", "a b\n"));
	CHECK(passes("check: $(=a  b)", "a  b\n"));
	/* the text a variable captured is a pattern's text when used:
	 * its blanks match any run of blanks, as LLVM's FileCheck does */
	CHECK(passes("check: $(x=a.*b)\ncheck: <$x>", "a  b\n<a\tb>\n"));
	CHECK(fails("check: $(x=a.*b)\ncheck: <$x>", "a b\n<ab>\n"));
	CHECK(passes("check: $(x=a.*b)\nnot: <$x>", "a \tb\n<ab>\n"));
	CHECK(fails("check: $(x=a.*b)\nnot: <$x>", "a \tb\n<a b>\n"));
}

static void
test_literals(void)
{
	const char *specials = "check: (v1.x)*+?[a]{2}|^\\d $$ } ] .";
	CHECK(passes(specials, "  (v1.x)*+?[a]{2}|^\\d $ } ] .\n"));
	CHECK(fails(specials, "  (v1yx)*+?[a]{2}|^\\d $ } ] .\n"));
	CHECK(fails("check: a.c", "abc\n"));
	CHECK(passes("check: $$x", "cost $x\n"));
	CHECK(fails("check: $$x", "cost x\n"));
	CHECK(passes("check: $$$$", "$$\n"));
	CHECK(passes("check: a$$", "a$\n"));
	CHECK(passes("check: café", "un café\n"));
}

static void
test_capture(void)
{
	const char *out = "v7 = iconst.i32 1\nv9 = iadd v7, v7\n";
	CHECK(passes("check: $(x=v[0-9]+) = iconst\ncheck: iadd $x, $x", out));
	CHECK(passes("check: $(x=v[0-9]+) = iconst\ncheck: iadd $(x), $x",
		     out));
	CHECK(fails_with("check: $(x=v[0-9]+) = iconst\ncheck: = $x", out,
			 "line 2:", NULL));
	/* the bound text is matched literally, not as a regex */
	CHECK(fails("check: $(x=a.c)\ncheck: $x", "a.c abc\n"));
	CHECK(passes("check: $(x=a.c)\ncheck: $x", "abc a.c abc\n"));
	CHECK(passes("check: $(x=a.c)\ncheck: $x", "a.c a.c\n"));
	/* a later definition rebinds */
	CHECK(passes("check: $(x=v[0-9]+) = iconst\ncheck: $(x=v[0-9]+) = "
		     "iadd\ncheck: $x", "v1 = iconst\nv2 = iadd v1\nv2\n"));
	CHECK(fails("check: $(x=v[0-9]+) = iconst\ncheck: $(x=v[0-9]+) = "
		    "iadd\ncheck: $x", "v1 = iconst\nv2 = iadd v1\nv1\n"));
	/* groups inside the regex keep the numbering straight */
	CHECK(passes("check: $(a=(x|y)+) $(b=([0-9])([0-9])) $(c=z*)\n"
		     "check: $c$b$a", "xyx 42 zz\nzz42xyx\n"));
	CHECK(passes("regex: R=(p|q)\ncheck: $R $(b=[0-9]+) $R\n"
		     "check: <$b>", "p 17 q\n<17>\n"));
	/* a binding is used by sameln:, nextln:, unordered: and not: */
	CHECK(passes("check: $(v=v[0-9]+) =\nsameln: $v", "v3 = v3\n"));
	CHECK(fails("check: $(v=v[0-9]+) =\nnot: $v\ncheck: end",
		    "v3 = 1\nuse v3\nend\n"));
	CHECK(passes("check: $(v=v[0-9]+) =\nnot: $v\ncheck: end",
		     "v3 = 1\nuse v4\nend\n"));
	CHECK(passes("unordered: $(v=v[0-9]+) = b\nunordered: use $v",
		     "use v2\nv2 = b\n"));
	/* the checker keeps no bindings from one run to the next */
	kl_filecheck *fc = make("check: $(x=[a-z]+)!\ncheck: $x?");
	CHECK(kl_filecheck_run(fc, "foo! foo?", 9, NULL));
	CHECK(kl_filecheck_run(fc, "bar! bar?", 9, NULL));
	CHECK(!kl_filecheck_run(fc, "bar! foo?", 9, NULL));
	kl_filecheck_free(fc);
}

/*
 * A directive using a captured variable is searched for as literal text
 * once the capture is spliced in, without a regex (filecheck_run.c, lit_find):
 * it matches and fails exactly where the regex of the text did, at the
 * same columns.
 */
static void
test_spliced(void)
{
	/* regex syntax in the captured text is matched as itself */
	const char *meta = "(a|b)*[x]{2}^$\\.+?";
	kl_buf out = {0};
	kl_buf_printf(&out, "%s end\n<%s>\n", meta, meta);
	CHECK(passes("check: $(x=[^ ]+) end\ncheck: <$x>", out.data));
	CHECK(fails("check: $(x=[^ ]+) end\nnot: <$x>", out.data));
	kl_buf_reset(&out);
	kl_buf_printf(&out, "%s end\n<ab> <xx> <(a|b)*[x]{2}^$\\.+x>\n", meta);
	CHECK(fails("check: $(x=[^ ]+) end\ncheck: <$x>", out.data));
	CHECK(passes("check: $(x=[^ ]+) end\nnot: <$x>", out.data));
	kl_buf_free(&out);
	/* a not: that matches fails, at the match's column and length; the
	 * text overlaps itself, so the search must fall back within it */
	CHECK(fails_with("check: $(x=[a-z]+)!\nnot: $x",
			 "aabaab!\nxaabaaabaabaab\n",
			 "forbidden match on output line 2, column 6",
			 "^~~~~~ forbidden match"));
	CHECK(passes("check: $(x=[a-z]+)!\nnot: $x", "aabaab!\naabaaaba\n"));
	/* an empty capture matches the empty text, where the search starts */
	CHECK(passes("check: <$(x=[a-z]*)>\ncheck: [$x]", "<>\n[]\n"));
	CHECK(fails("check: <$(x=[a-z]*)>\ncheck: [$x]", "<>\n[a]\n"));
	CHECK(fails_with("check: <$(x=[a-z]*)>\nnot: $x\ncheck: end",
			 "<>\nend\n", "forbidden match on output line 1, "
			 "column 3", NULL));
	/* captured blanks at either end: the leftmost match starts at the
	 * first blank of a run, the longest takes the whole run */
	CHECK(fails_with("check: <$(x=[^>]*)>\nnot: $x", "< \tb >\nxx  b\t\t\n",
			 "column 3", "^~~~~ forbidden match"));
	/* two runs of blanks meeting where text and capture join want two
	 * blanks or more there, as their regexes do */
	CHECK(passes("check: <$(x=[^>]*)>\ncheck: a $x", "< b>\na \tb\n"));
	CHECK(fails("check: <$(x=[^>]*)>\ncheck: a $x", "< b>\na b\n"));
	CHECK(passes("check: <$(x=[^>]*)>\ncheck: $x$x", "< a >\nx a \ta x\n"));
	CHECK(fails("check: <$(x=[^>]*)>\ncheck: $x$x", "< a >\nx a a x\n"));
	/* the end of a not:'s range cuts the literal short too */
	CHECK(passes("check: <$(x=[a-z]+)>\nnot: $x\nsameln: cd",
		      "<bcd> bcd\n"));
	CHECK(fails("check: <$(x=[a-z]+)>\nnot: $x\nsameln: d",
		    "<bc> bcd\n"));
	/* unordered: literal overlaps are refused as regex ones are */
	CHECK(passes("check: $(x=[a-z]+)!\nunordered: $x\nunordered: $x",
		     "ab!\nabab\n"));
	CHECK(fails("check: $(x=[a-z]+)!\nunordered: $x\nunordered: $x",
		    "aba!\nababa\n"));
}

/* Regex source that matches s[0, n) as a pattern's literal text does. */
static void
escape(kl_buf *re, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == ' ' || s[i] == '\t') {
			while (i + 1 < n && strchr(" \t", s[i + 1]))
				i++;
			kl_buf_puts(re, "[ \t]+");
			continue;
		}
		if (strchr("^.[$()|*+?{\\", s[i]))
			kl_buf_putc(re, '\\');
		kl_buf_putc(re, s[i]);
	}
}

/* The report without its "line N: directive" lines, which name the
 * directive as written, and the "  with $x = ..." lines under them,
 * which only a directive that names a variable has. */
static void
strip_heads(kl_buf *report)
{
	size_t w = 0;
	for (size_t r = 0; r < report->len;) {
		const char *at = report->data + r;
		const char *nl = memchr(at, '\n', report->len - r);
		size_t n = nl ? (size_t)(nl - at) + 1 : report->len - r;
		if (strncmp(report->data + r, "line ", 5) != 0 &&
		    strncmp(report->data + r, "  with $", 8) != 0) {
			memmove(report->data + w, report->data + r, n);
			w += n;
		}
		r += n;
	}
	report->len = w;
	if (report->data)
		report->data[w] = 0;
}

static unsigned next_rand(uint64_t *state);

/*
 * Literal text (fixed, or with a capture spliced in) against the regex
 * the engine used to build for it, $(=RE): on random text the two pass
 * and fail alike, and a failure reports the same places (a not:'s
 * match: its column and length; a check:'s: where sameln: searched on).
 */
static void
test_literal_vs_regex(void)
{
	static const char text_bytes[] = "aab  \t\t.($";
	static const char pat_bytes[] = "aab \t.(";
	uint64_t state = 99;
	for (int iter = 0; iter < 3000; iter++) {
		char cap[8], p1[6], p2[6], out[64];
		size_t ncap = next_rand(&state) % sizeof cap;
		size_t n1 = next_rand(&state) % sizeof p1;
		size_t n2 = next_rand(&state) % sizeof p2;
		size_t nout = next_rand(&state) % sizeof out;
		for (size_t i = 0; i < ncap; i++)
			cap[i] = text_bytes[next_rand(&state) %
					    (sizeof text_bytes - 1)];
		for (size_t i = 0; i < n1; i++)
			p1[i] = pat_bytes[next_rand(&state) %
					  (sizeof pat_bytes - 1)];
		for (size_t i = 0; i < n2; i++)
			p2[i] = pat_bytes[next_rand(&state) %
					  (sizeof pat_bytes - 1)];
		for (size_t i = 0; i < nout; i++)
			out[i] = next_rand(&state) % 6 == 0 ? '\n' :
				 text_bytes[next_rand(&state) %
					    (sizeof text_bytes - 1)];
		/* a pattern is trimmed: no blank at its ends */
		if (n1 && (p1[0] == ' ' || p1[0] == '\t'))
			p1[0] = 'b';
		if (n2 && (p2[n2 - 1] == ' ' || p2[n2 - 1] == '\t'))
			p2[n2 - 1] = 'a';
		bool use = next_rand(&state) % 4 != 0;
		if (!use && n1 + n2 == 0)
			p1[n1++] = 'a';
		if (!use && n1 && (p1[n1 - 1] == ' ' || p1[n1 - 1] == '\t'))
			p1[n1 - 1] = '.'; /* the pattern's end, then */
		if (!use && n2 && (p2[0] == ' ' || p2[0] == '\t'))
			p2[0] = '.';
		kl_buf text = {0}, lit = {0}, re = {0};
		kl_buf_append(&text, cap, ncap);
		kl_buf_puts(&text, "|\n");
		kl_buf_append(&text, out, nout);
		for (int kind = 0; kind < 2; kind++) {
			const char *head = kind ? "check: " : "not: ";
			kl_buf_reset(&lit);
			kl_buf_reset(&re);
			kl_buf_printf(&lit, "check: $(x=[^|]*)|\n%s", head);
			kl_buf_printf(&re, "check: $(x=[^|]*)|\n%s$(=(", head);
			kl_buf_append(&lit, p1, n1);
			escape(&re, p1, n1);
			if (use) {
				kl_buf_puts(&lit, "$(x)");
				escape(&re, cap, ncap);
			}
			kl_buf_append(&lit, p2, n2);
			escape(&re, p2, n2);
			kl_buf_puts(&re, "))");
			if (kind) {
				kl_buf_puts(&lit, "\nsameln: #");
				kl_buf_puts(&re, "\nsameln: #");
			}
			kl_buf got = {0}, want = {0};
			bool ok_lit = run(lit.data, text.data, &got);
			bool ok_re = run(re.data, text.data, &want);
			strip_heads(&got);
			strip_heads(&want);
			if (ok_lit != ok_re || (got.len && strcmp(got.data,
								  want.data))) {
				fprintf(stderr, "%s\nvs\n%s\non\n%s\n"
					"%s\nvs\n%s", lit.data, re.data,
					text.data,
					got.len ? got.data : "(pass)\n",
					want.len ? want.data : "(pass)\n");
				CHECK(false);
				iter = 1 << 30;
			}
			kl_buf_free(&got);
			kl_buf_free(&want);
		}
		kl_buf_free(&text);
		kl_buf_free(&lit);
		kl_buf_free(&re);
	}
}

static void
test_regex_var(void)
{
	const char *out = "v1 = iadd v2, v3\n";
	/* fresh each time: three different texts */
	CHECK(passes("regex: V=v[0-9]+\ncheck: $V = iadd $V, $V", out));
	CHECK(passes("regex: V = v[0-9]+\ncheck: $(V) = iadd $V, $(V)", out));
	CHECK(fails("regex: V=v[0-9]+\ncheck: $V = isub", out));
	CHECK(fails("regex: V=v[0-9]+\ncheck: $V = iadd $V, $V, $V", out));
	CHECK(passes("regex: OP=(iadd|isub)\ncheck: = $OP v2", out));
	CHECK(passes("regex: NUM=[0-9]+\nnot: $NUM", "no digits\n"));
	CHECK(fails("regex: NUM=[0-9]+\nnot: $NUM", "digit 5\n"));
	/* anonymous regexes */
	CHECK(passes("check: $(=v[0-9]+) = iadd", out));
	CHECK(fails("check: $(=v[0-9]+) = isub", out));
	CHECK(passes("check: $(=[])(]+)", "x)(]y\n"));
	CHECK(passes("check: $(=[[:digit:]]+), $(=\\))", "1, )\n"));
	/* anchors: ^ only at a real line start, $ only at a real line end */
	CHECK(passes("check: a\ncheck: $(=^)b", "a b\nb\n"));
	CHECK(fails("check: a\nsameln: $(=^)b", "ab\n"));
	CHECK(passes("check: a\nnot: b$(=$)\ncheck: c", "a b c\n"));
	CHECK(passes("check: a\nnot: c$(=$)\nsameln: d", "a cd\n"));
	CHECK(fails("check: a\nnot: c$(=$)\ncheck: x", "a c\nx\n"));
}

static void
test_undefined(void)
{
	/* an error in the check file, at its line, before any match */
	CHECK(rejects_last("check: a\ncheck: $y", "undefined variable $y "
			   "(define it on an earlier line of the same check "
			   "block"));
	CHECK(malformed("not: $nope", "undefined variable $nope"));
	CHECK(malformed("check: a $(B) c", "undefined variable $B"));
	/* a line is judged by the lines before it: a later definition
	 * comes too late */
	CHECK(malformed("check: $x", "undefined variable $x"));
	/* within a group, defined by an earlier line of it: fine */
	CHECK(passes("unordered: $(a=1)\nunordered: $a", "1 1\n"));
	CHECK(fails("unordered: $(a=1)\nunordered: $a", "1 2\n"));
	CHECK(rejects_last("unordered: $(a=1)\nunordered: $b",
			   "undefined variable $b"));
	/* a regex: variable counts from its line on */
	CHECK(passes("regex: V=[0-9]+\ncheck: x$V", "x42\n"));
	/* nor is a variable defined for the rest of its own line: $x there
	 * would match whatever was captured before, or nothing */
	CHECK(malformed("check: $(x=a) $x",
			"$x is used in the directive that defines it"));
	CHECK(rejects_last("check: $(x=a)\ncheck: $(x=b) $x",
			   "$x is used in the directive that defines it"));
}

static void
test_malformed(void)
{
	CHECK(malformed("check: $(x=[a-)", "missing ']'"));
	CHECK(malformed("check: $(x=a{2,1})", "bad regex 'a{2,1}': "));
	CHECK(malformed("check: $(x=(a)", "missing ')'"));
	CHECK(malformed("check: $(x=abc", "missing ')'"));
	CHECK(malformed("check: $(x=)", "empty regex"));
	CHECK(malformed("check: $(x=\\", NULL));
	CHECK(malformed("check: $(x=(a)\\1)", "back-references"));
	/* a regex expands no variable: '$' before a name or '(' is an
	 * anchor that can match nothing; at the end, before ')' or '|', or
	 * in brackets or escaped, it is as POSIX has it */
	CHECK(malformed("regex: X=$Y", "not a variable"));
	CHECK(malformed("regex: X=a$_b", "not a variable"));
	CHECK(malformed("check: $(x=a$(y))", "not a variable"));
	CHECK(malformed("check: $(x=a$1)", "not a variable"));
	CHECK(passes("regex: X=[$a]+\ncheck: $X", "$a\n"));
	CHECK(passes("regex: X=\\$a\ncheck: $X", "$a\n"));
	CHECK(passes("regex: X=a$|b$\ncheck: $X", "a\n"));
	CHECK(passes("check: $(x=(a$))", "a\n"));
	/* what glibc's regcomp would take gigabytes for: a repetition
	 * repeated (undefined in POSIX; "a+++..." doubles at each '+'),
	 * repetitions whose product passes 100,000 copies, groups nested
	 * past 32; the same at the bounds is taken */
	CHECK(malformed("regex: X=a**", "repetition of a repetition"));
	CHECK(malformed("check: $(x=\\+++)", "repetition of a repetition"));
	CHECK(malformed("regex: X=a{2}{3}", "repetition of a repetition"));
	CHECK(malformed("regex: X=((a){400}){250}", "too big"));
	CHECK(malformed("regex: X=((a){,400}){,250}", "too big"));
	CHECK(malformed("regex: X=a{,4}*", "repetition of a repetition"));
	CHECK(malformed("regex: X=((((((((((((((((((a)+)+)+)+)+)+)+)+)+)+)+)+)+"
			")+)+)+)+)+", "too big"));
	/* (repetitions of at most 255, RE_DUP_MAX on musl) */
	CHECK_EQ_INT(add_one("regex: X=(((a){149}){29}){19}", NULL), 1);
	CHECK(malformed("regex: X=((((((((((((((((((((((((((((((((("
			"a)))))))))))))))))))))))))))))))))", "nested"));
	CHECK(passes("regex: X=(((((((((((((((((((((((((((((((("
		     "a))))))))))))))))))))))))))))))))\ncheck: $X", "a\n"));
	CHECK(passes("regex: X=(ab)+c*[0-9]{1,20}x?\ncheck: $X", "abab1x\n"));
	CHECK(malformed("check: cost $", "$$"));
	CHECK(malformed("check: $1", "$$"));
	CHECK(malformed("check: a $ b", NULL));
	CHECK(malformed("check: $(1x)", "bad variable name"));
	CHECK(malformed("check: $()", NULL));
	CHECK(malformed("check: $(x", NULL));
	CHECK(malformed("check: $(x y)", NULL));
	CHECK(malformed("check:", "needs a pattern"));
	CHECK(malformed("not:   ", "needs a pattern"));
	CHECK(malformed("not: $(x=a)", "not: cannot define"));
	CHECK(malformed("check: $(x=a) $x", "defines it"));
	CHECK(malformed("check: $(x=a) $(x=b)", "twice"));
	CHECK(malformed("regex: =foo", "NAME=RE"));
	CHECK(malformed("regex: X", "NAME=RE"));
	CHECK(malformed("regex: 9X=a", "NAME=RE"));
	CHECK(malformed("regex: X-Y=a", "NAME=RE"));
	CHECK(malformed("regex: X=", "empty regex"));
	CHECK(malformed("regex: X=(", NULL));
	CHECK(malformed("regex: X=a)|(b", "unbalanced"));
	CHECK(malformed("regex:", NULL));

	/* a rejected line leaves the checker as it was */
	kl_filecheck *fc = make("regex: X=a\ncheck: $(y=b)");
	kl_buf err = {0};
	const char *dup = "regex: X=b";
	CHECK_EQ_INT(kl_filecheck_add_line(fc, dup, strlen(dup), 3, &err), -1);
	CHECK(strstr(err.data, "already defined on line 1") != NULL);
	const char *clash = "check: $(X=a)";
	CHECK_EQ_INT(kl_filecheck_add_line(fc, clash, strlen(clash), 4, &err),
		     -1);
	CHECK(strstr(err.data, "variable X is already defined by "
			       "regex: on line 1") != NULL);
	const char *clash2 = "regex: y=c";
	CHECK_EQ_INT(kl_filecheck_add_line(fc, clash2, strlen(clash2), 5,
					   &err), -1);
	const char *half = "check: $(z=a) $(w=[)";
	CHECK_EQ_INT(kl_filecheck_add_line(fc, half, strlen(half), 6, &err),
		     -1);
	const char *nul = "check: a\0b";
	CHECK_EQ_INT(kl_filecheck_add_line(fc, nul, 10, 7, &err), -1);
	CHECK(strstr(err.data, "NUL byte") != NULL);
	CHECK_EQ_INT(kl_filecheck_count(fc), 2);
	/* a pattern never matches across lines, so one with a line break
	 * inside could never match; one at either end is a blank */
	kl_buf_reset(&err);
	const char *brk = " check: x\ny";
	CHECK_EQ_INT(kl_filecheck_add_line(fc, brk, strlen(brk), 7, &err), -1);
	CHECK(strstr(err.data, "line break") != NULL);
	CHECK_EQ_INT(kl_filecheck_error_at(fc), 9);
	const char *cr = "check: x\ry";
	CHECK_EQ_INT(kl_filecheck_add_line(fc, cr, strlen(cr), 7, &err), -1);
	const char *ends = "check: x\r\n";
	CHECK_EQ_INT(kl_filecheck_add_line(fc, ends, strlen(ends), 7, &err),
		     1);
	CHECK_EQ_INT(kl_filecheck_count(fc), 3);
	/* z was not left half-defined by the rejected line 6 */
	kl_buf_reset(&err);
	const char *usez = "check: $z";
	CHECK_EQ_INT(kl_filecheck_add_line(fc, usez, strlen(usez), 8, &err),
		     -1);
	CHECK(strstr(err.data, "undefined variable $z") != NULL);
	CHECK_EQ_INT(kl_filecheck_count(fc), 3);
	kl_buf_free(&err);
	kl_filecheck_free(fc);
}

static void
test_report(void)
{
	const char *check = "first line of the test\n"
			    "check: v1\n"
			    "check: v9\n";
	const char *out = "a\nb\nv1 = iconst.i64 3\nc\nd\ne\nf\n";
	kl_buf report = {0};
	CHECK(!run(check, out, &report));
	const char *want = "line 3: check: v9\n"
			   "no match, searching from output line 3, column 3:\n"
			   "     1 | a\n"
			   "     2 | b\n"
			   "     3 | v1 = iconst.i64 3\n"
			   "       |   ^ search starts here\n"
			   "     4 | c\n"
			   "     5 | d\n";
	CHECK_EQ_STR(report.data, want);
	kl_buf_free(&report);

	/* not: marks both where the search started and the match; tabs are
	 * copied into the padding so the caret stays under the text */
	CHECK(!run("check: x\nnot: trap\ncheck: ret", "x\n\ttrap\nret\n",
		   &report));
	want = "line 2: not: trap\n"
	       "forbidden match on output line 2, column 2 (searched from "
	       "line 1, column 2):\n"
	       "     1 | x\n"
	       "       |  ^ search starts here\n"
	       "     2 | \ttrap\n"
	       "       | \t^~~~ forbidden match\n"
	       "     3 | ret\n";
	CHECK_EQ_STR(report.data, want);
	kl_buf_free(&report);

	/* an empty output says so; control characters are made visible */
	CHECK(fails_with("check: x", "", "line 1: check: x",
			 "(the output is empty)"));
	CHECK(fails_with("check: x", "a\033b\n", "a?b", NULL));
	/* the report is appended, not overwritten */
	kl_buf_puts(&report, "earlier\n");
	CHECK(!run("check: x", "y", &report));
	CHECK(strncmp(report.data, "earlier\nline 1: check: x\n", 25) == 0);
	kl_buf_free(&report);
	/* a NULL report is allowed */
	CHECK(!run("check: x", "y", NULL));
}

static void
test_odd_output(void)
{
	/* a NUL byte would end what a pattern sees of its line, and a not:
	 * would pass for not seeing the rest: output with one fails, named */
	kl_filecheck *fc = make("check: a\ncheck: c");
	CHECK(!kl_filecheck_run(fc, "a\0b\nc", 5, NULL));
	kl_filecheck_free(fc);
	fc = make("not: secret");
	kl_buf report = {0};
	CHECK(!kl_filecheck_run(fc, "x\ny\0secret\n", 11, &report));
	CHECK(report.data &&
	      strstr(report.data, "output line 2 has a NUL byte") != NULL);
	kl_buf_free(&report);
	kl_filecheck_free(fc);
	/* CRLF output and blank lines */
	CHECK(passes("check: a\nnextln: b", "a\r\nb\r\n"));
	CHECK(passes("check: a\nnextln: $(=^$)\nnextln: b", "a\n\nb\n"));
	CHECK(fails("check: a\nnextln: b", "a\n\nb\n"));
	CHECK(passes("not: x", ""));
	CHECK(passes("not: x", "\n\n\n"));
}

static void
test_big(void)
{
	/* long outputs stay linear: 20000 lines, a check for every 100th */
	kl_buf out = {0}, check = {0};
	for (int i = 0; i < 20000; i++)
		kl_buf_printf(&out, "  v%d = iconst.i32 %d\n", i, i);
	kl_buf_puts(&check, "regex: V=v[0-9]+\nnot: iadd\n");
	for (int i = 0; i < 20000; i += 100)
		kl_buf_printf(&check, "check: $(x=v%d) = iconst\nsameln: %d\n"
			      "not: $x =\nnextln: $V = iconst.i32 %d\n", i, i,
			      i + 1);
	kl_buf_puts(&check, "not: $(=iadd|isub)");
	kl_filecheck *fc = make(check.data);
	CHECK(kl_filecheck_run(fc, out.data, out.len, NULL));
	kl_filecheck_free(fc);
	kl_buf_free(&out);
	kl_buf_free(&check);
}

/* (AddressSanitizer reserves terabytes of address space: no limit on it
 * can be set under ASan (or MSan): SHADOW_MEMORY, child.h.) */

struct bounded {
	kl_buf check, out;
	bool want; /* the run passes */
};

/* In a child: run b's check under 512 MB of address space; exit 0 if it
 * gave b->want, having used under 256 MB at its peak (Linux reports it),
 * 1 if not, 2 if it used more. */
static void
run_bounded(void *ctx)
{
	const struct bounded *b = ctx;
	struct rlimit lim = {512u << 20, 512u << 20};
	if (setrlimit(RLIMIT_AS, &lim) != 0)
		_exit(3);
	kl_filecheck *fc = kl_filecheck_new();
	uint32_t line = 1;
	for (const char *s = b->check.data; *s; line++) {
		const char *e = strchr(s, '\n');
		if (kl_filecheck_add_line(fc, s, (size_t)(e - s), line,
					  NULL) < 0)
			_exit(1);
		s = e + 1;
	}
	bool ok = kl_filecheck_run(fc, b->out.data, b->out.len, NULL);
	kl_filecheck_free(fc);
#ifdef __linux__
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru) == 0 && ru.ru_maxrss > 256 << 10)
		_exit(2); /* (in kB) */
#endif
	_exit(ok == b->want ? 0 : 1);
}

static void
check_bounded(struct bounded *b, const char *what)
{
	char msg[512];
	int st = unit_in_child(run_bounded, b, msg, sizeof msg);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		fprintf(stderr, "%s: status %d (%s)\n", what, st, msg);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	kl_buf_free(&b->check);
	kl_buf_free(&b->out);
}

/*
 * Long literal text in many directives: a regex_t grows by some 2 kB per
 * byte of its pattern as glibc searches with it, and one was kept per
 * directive to the end of a run, so each of these took gigabytes (the
 * first also 40 s: the search of glibc's regexec for literal text of
 * length L is L^2 a line). Now none passes 256 MB, or 10 s.
 */
static void
test_bounded(void)
{
#ifdef SHADOW_MEMORY
	return;
#endif
	char v[1001];
	for (int i = 0; i < 1000; i++)
		v[i] = (char)('a' + i * 7 % 26);
	v[1000] = 0;
	/* 8000 bytes captured, 200 not:s of it (3.7 GB); then one that
	 * does match, which must fail */
	for (int fail = 0; fail < 2; fail++) {
		struct bounded b = {.want = !fail};
		kl_buf_puts(&b.out, "x = ");
		for (int i = 0; i < 8000; i++)
			kl_buf_putc(&b.out, 'q');
		kl_buf_putc(&b.out, '\n');
		for (int i = 0; i < 7999 + fail; i++)
			kl_buf_putc(&b.out, 'q');
		kl_buf_puts(&b.out, "r\nend\n");
		kl_buf_puts(&b.check, "check: x = $(X=q+)\n");
		for (int i = 0; i < 200; i++)
			kl_buf_puts(&b.check, "not: $X\n");
		kl_buf_puts(&b.check, "check: end\n");
		check_bounded(&b, "not: $X");
	}
	/* a 1000-byte capture, then 2500 lines of check: yI $X (5.8 GB) */
	struct bounded b = {.want = true};
	kl_buf_printf(&b.out, "def %s\n", v);
	kl_buf_puts(&b.check, "check: def $(X=[a-z]+)\n");
	for (int i = 0; i < 2500; i++) {
		kl_buf_printf(&b.out, "y%d %s\n", i, v);
		kl_buf_printf(&b.check, "check: y%d $X\n", i);
	}
	check_bounded(&b, "check: yI $X");
	/* the same without a variable: literal text each time (2.3 GB) */
	b = (struct bounded){.want = true};
	for (int i = 0; i < 1000; i++) {
		kl_buf_printf(&b.out, "y%d %s\n", i, v);
		kl_buf_printf(&b.check, "check: y%d %s\n", i, v);
	}
	check_bounded(&b, "check: yI <literal>");
	/* a capture spliced into a regex: each compiled for its directive
	 * and freed after it (a not: waits with its source only) */
	b = (struct bounded){.want = true};
	kl_buf_printf(&b.out, "def %s\n", v);
	kl_buf_puts(&b.check, "check: def $(X=[a-z]+)\n");
	for (int i = 0; i < 300; i++) {
		kl_buf_printf(&b.out, "y%d %s\n", i, v);
		kl_buf_printf(&b.check, "not: $(=[0-9]) $X\n"
			      "check: $(=y[0-9]+) $X\n");
	}
	check_bounded(&b, "check: $(=y[0-9]+) $X");
	/* regexes without a captured variable, each searched once: every
	 * regex_t kept to the end, 30,000 of them took some 1.7 GB (100,000:
	 * 5.6 GB), so 10,000 would pass the 512 MB limit; compiled for its
	 * search alone now. (10,000, not 30,000: under qemu, on a loaded
	 * machine, 30,000 compiles twice took past the child's 10 s.) */
	b = (struct bounded){.want = true};
	for (int i = 0; i < 10000; i++) {
		kl_buf_printf(&b.out, "v%d = iconst.i32 %d\n", i, i);
		kl_buf_printf(&b.check, "check: v$(=[0-9]+) = iconst.i32 %d\n",
			      i);
	}
	check_bounded(&b, "check: v$(=[0-9]+) = ... I");
}

/* Deterministic pseudo-random bytes, biased towards pattern syntax. */
static unsigned
next_rand(uint64_t *state)
{
	*state = *state * 6364136223846793005u + 1442695040888963407u;
	return (unsigned)(*state >> 33);
}

static void
random_text(uint64_t *state, char *buf, size_t n)
{
	static const char alphabet[] = "ab $()=[]{}\\^.*+?|x_:\n\t09";
	for (size_t i = 0; i < n; i++) {
		unsigned r = next_rand(state);
		size_t k = (r >> 8) % (sizeof alphabet - 1);
		buf[i] = r % 8 == 0 ? (char)(r >> 8) : alphabet[k];
	}
}

/*
 * A refused line's caret: under each line, a '^' at the byte
 * kl_filecheck_error_at must name. The first line of a pair is offered
 * after "regex: V=v" on line 1, so that a $V is defined.
 */
static void
test_error_at(void)
{
	static const char *const cases[][2] = {
		{ " check: a $Y b", "          ^" },
		{ " check: a $V $(Y) b", "             ^" },
		{ " check: $(V=x)", "        ^" },
		{ " check: $(Y=x) $(Y=z)", "               ^" },
		{ " check: $(Y=x) $Y", "               ^" },
		{ " not: a $(Q=x) c", "        ^" },
		{ " check: $(1x)", "          ^" },
		{ " check: a $( b", "          ^" },
		{ " check: $(=x", "        ^" },
		{ " check: a $(=b[c) d", "              ^" },
		{ " check: a$", "         ^" },
		{ " check: $(=a\\1)", "            ^" },
		{ " check: $(=a**)", "             ^" },
		{ " regex: Z=a)", "           ^" },
		{ " regex: Z=(a", "          ^" },
		{ " regex: Z=", "          ^" },
		{ " regex: 9=x", "        ^" },
		{ " regex: V=y", "        ^" },
		{ " regex: Z=x$Y", "           ^" },
		{ " regex: Z=(((((((((((((((((((((((((((((((((a))))))))))))"
		  "))))))))))))))))))))))",
		  "                                          ^" },
		{ " regex: Z=(a{1000}){1000}", "          ^" },
		{ "   CHECK: x", "   ^" },
		{ " ;; check: x", " ^" },
		{ " check:", " ^" },
	};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		kl_filecheck *fc = make("regex: V=v");
		kl_buf err = {0};
		const char *line = cases[k][0];
		int rc = kl_filecheck_add_line(fc, line, strlen(line), 2, &err);
		size_t want = strlen(cases[k][1]) - 1;
		if (rc != -1 || kl_filecheck_error_at(fc) != want)
			fprintf(stderr, "for \"%s\": rc %d, at %zu, want %zu "
				"(%s)\n", line, rc, kl_filecheck_error_at(fc),
				want, err.len ? err.data : "");
		CHECK_EQ_INT(rc, -1);
		CHECK_EQ_INT(kl_filecheck_error_at(fc), want);
		kl_buf_free(&err);
		kl_filecheck_free(fc);
	}
	/* a NUL inside the pattern: at the NUL */
	kl_filecheck *fc = kl_filecheck_new();
	CHECK_EQ_INT(kl_filecheck_add_line(fc, "check: ab\0c", 11, 1, NULL),
		     -1);
	CHECK_EQ_INT(kl_filecheck_error_at(fc), 9);
	kl_filecheck_free(fc);
	CHECK_EQ_INT(kl_filecheck_error_at(NULL), 0);
}

static void
test_fuzz(void)
{
	static const char *const kw[] = {
		"check: ", "sameln: ", "nextln: ", "unordered: ", "not: ",
		"regex: X=", "regex: Y",
	};
	uint64_t state = 12345;
	char line[64], out[256];
	for (int iter = 0; iter < 2000; iter++) {
		kl_filecheck *fc = kl_filecheck_new();
		kl_buf err = {0};
		for (uint32_t l = 1; l <= 6; l++) {
			const char *k = kw[next_rand(&state) % 7];
			size_t klen = strlen(k);
			size_t n = klen + next_rand(&state) % 24;
			memcpy(line, k, klen);
			random_text(&state, line + klen, n - klen);
			int rc = kl_filecheck_add_line(fc, line, n, l, &err);
			CHECK(rc >= -1 && rc <= 1);
			CHECK(rc != -1 || kl_filecheck_error_at(fc) <= n);
		}
		size_t n = next_rand(&state) % sizeof out;
		random_text(&state, out, n);
		kl_buf report = {0};
		bool ok = kl_filecheck_run(fc, out, n, &report);
		CHECK(ok == (report.len == 0));
		kl_buf_free(&report);
		kl_buf_free(&err);
		kl_filecheck_free(fc);
	}
}

/* A miss names what the variables it uses held: a capture of the wrong
 * text earlier is the usual cause. Once each, cut at 80 bytes. */
static void
test_report_captures(void)
{
	const char *out = "v0 = iconst 1\nv1 = iadd v0, v0\nv2 = imul v0, 4\n";
	CHECK(fails_with("check: $(A=v[0-9]+) = iadd\n"
			 "check: imul $A, $A, 4",
			 out, "line 2: check: imul $A, $A, 4\n  with $A = \"v1\"\n"
			 "no match", NULL));
	kl_buf long_out = { 0 };
	kl_buf_puts(&long_out, "x ");
	for (int i = 0; i < 100; i++)
		kl_buf_putc(&long_out, (char)('a' + i % 26));
	kl_buf_puts(&long_out, "\ny\n");
	CHECK(fails_with("check: x $(L=[a-z]+)\ncheck: y $L", long_out.data,
			 "  with $L = \"abcdefghijklmnopqrstuvwxyzabcdefghijklm"
			 "nopqrstuvwxyzabcdefghijklmnopqrstuvwxy...\"\n",
			 NULL));
	kl_buf_free(&long_out);
}

/* Cases that mutants of the engine passed (a survivor of a mutation run
 * each): the literal search's fallback, a one-line output, class and
 * limit edges of the regex checks, and the report's details. */
static void
test_mutation_gaps(void)
{
	/* The fallback table of a literal with a repeated prefix: a
	 * partial match must fall back as far as it takes. */
	CHECK(fails("check: aaa", "aabaa\n"));
	CHECK(passes("check: aaa", "aabaaa\n"));
	CHECK(fails("check: aaabb", "aaabaabb\n"));
	CHECK(passes("check: aaabb", "aaabaaabb\n"));
	/* nextln: with nothing matched yet looks at line 1, also when
	 * there is no line 2 */
	CHECK(passes("nextln: a", "a\n"));
	/* `]` right after `[^` is in the class, not its end */
	CHECK(passes("check: a$(=[^])]*)b", "axyb\n"));
	CHECK(fails("check: a$(=[^])]*)b", "a]b\n"));
	/* exactly 100,000 copies (125 * 40 * 20) is within the limit */
	CHECK(passes("check: x$(=|((a{124}){39}){19})", "x\n"));
	/* \0 is refused as the other back-references are, although glibc
	 * would read it as a 0 */
	CHECK(malformed("check: a$(=\\0)", "back-references"));
	/* a variable defined twice in one directive, side by side */
	CHECK(malformed("check: $(X=a)$(X=b)", "defined twice"));
	/* an 80-byte capture is shown whole (longer ones are cut) */
	char x80[82], want[100];
	memset(x80, 'x', 80);
	x80[80] = '\n';
	x80[81] = 0;
	snprintf(want, sizeof want, "with $X = \"%.80s\"\n", x80);
	CHECK(fails_with("check: $(X=x+)\ncheck: y$X", x80, want, NULL));
	/* a refused overlap searches on from the last match, not from the
	 * refused one */
	CHECK(fails_with("unordered: a\nunordered: a", "ab\n",
			 "searching from output line 1, column 1:", NULL));
	/* the caret counts a UTF-8 character as one column */
	CHECK(fails_with("check: \xc3\xa9\nsameln: b", "\xc3\xa9" "a\n",
			 "|  ^ search starts here", NULL));
	/* a variable used twice in a directive is shown once */
	kl_buf report = {0};
	CHECK(!run("check: $(X=a)\ncheck: $X$X", "a\nb\n", &report));
	const char *first = strstr(report.data ? report.data : "", "with $X");
	CHECK(first && !strstr(first + 1, "with $X"));
	kl_buf_free(&report);
}

int
main(void)
{
	UNIT_RUN(test_empty);
	UNIT_RUN(test_report_captures);
	UNIT_RUN(test_not_directives);
	UNIT_RUN(test_check);
	UNIT_RUN(test_sameln);
	UNIT_RUN(test_nextln);
	UNIT_RUN(test_not);
	UNIT_RUN(test_unordered);
	UNIT_RUN(test_whitespace);
	UNIT_RUN(test_literals);
	UNIT_RUN(test_capture);
	UNIT_RUN(test_spliced);
	UNIT_RUN(test_literal_vs_regex);
	UNIT_RUN(test_regex_var);
	UNIT_RUN(test_undefined);
	UNIT_RUN(test_malformed);
	UNIT_RUN(test_error_at);
	UNIT_RUN(test_report);
	UNIT_RUN(test_odd_output);
	UNIT_RUN(test_big);
	UNIT_RUN(test_bounded);
	UNIT_RUN(test_fuzz);
	UNIT_RUN(test_mutation_gaps);
	return unit_report("filecheck");
}
