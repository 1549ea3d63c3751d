/*
 * test_interp_printf.c -- unit tests of the interpreter's printf
 * (src/interp/builtins.c): %s, which it writes by hand, against the
 * host's printf for every mix of flags, width and precision; and output
 * that goes to the callback in pieces, so that one call printing much
 * holds little, with nothing printed when a conversion is bad.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keel.h"
#include "parsed.h"
#include "unit.h"

typedef struct sink {
	kl_buf all;
	size_t pieces, largest;
	uint64_t result; /* the run's first result, if it returned one */
} sink;

static void
take(void *ctx, const char *data, size_t len)
{
	sink *k = ctx;
	kl_buf_append(&k->all, data, len);
	k->pieces++;
	if (len > k->largest)
		k->largest = len;
}

/* Run %f() of text; its i32 result, the output in k. */
static kl_run_result
run(const char *text, size_t len, sink *k)
{
	kl_module *m = parse_text(text, len);
	kl_interp_options o = { 0 };
	o.output = take;
	o.output_ctx = k;
	kl_interp *it = kl_interp_new(m, &o);
	kl_run_result r;
	CHECK(kl_interp_call(it, sym(m, "f"), NULL, 0, &r) == KL_OK);
	if (r.status == KL_RUN_RETURNED && r.num_results)
		k->result = r.results[0];
	r.results = NULL; /* (the interpreter's, freed below) */
	kl_run_result copy = r;
	kl_interp_free(it);
	kl_module_free(m);
	return copy;
}

/* %s as glibc prints it, '0' and '#' ignored (C leaves them undefined
 * for %s; the interpreter drops them: docs/interpreter.md). */
static void
test_string_conversions(void)
{
	static const char *flags[] = { "", "-", "0", "-0", "#", " +" };
	static const char *widths[] = { "", "0", "1", "3", "12", "*" };
	static const char *precs[] = { "", ".", ".0", ".2", ".12", ".*" };
	static const char *strs[] = { "", "ab", "hello world" };
	static const int stars[] = { -7, 0, 5 };
	unsigned cases = 0;
	for (size_t a = 0; a < sizeof flags / sizeof *flags; a++)
	for (size_t b = 0; b < sizeof widths / sizeof *widths; b++)
	for (size_t c = 0; c < sizeof precs / sizeof *precs; c++)
	for (size_t d = 0; d < sizeof strs / sizeof *strs; d++)
	for (size_t e = 0; e < sizeof stars / sizeof *stars; e++) {
		bool sw = strchr(widths[b], '*') != NULL,
		     sp = strchr(precs[c], '*') != NULL;
		if (!sw && !sp && e)
			continue;
		char fmt[32], host_fmt[32], want[64];
		snprintf(fmt, sizeof fmt, "[%%%s%s%ss]", flags[a],
			 widths[b], precs[c]);
		snprintf(host_fmt, sizeof host_fmt, "[%%%s%s%ss]",
			 strchr(flags[a], '-') ? "-" :
			 flags[a][0] == ' ' ? " +" : "",
			 widths[b], precs[c]);
		int w = stars[e], p = stars[e];
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#endif
		if (sw && sp)
			snprintf(want, sizeof want, host_fmt, w, p, strs[d]);
		else if (sw || sp)
			snprintf(want, sizeof want, host_fmt, w, strs[d]);
		else
			snprintf(want, sizeof want, host_fmt, strs[d]);
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
		kl_buf t = { 0 };
		kl_buf_printf(&t, "declare %%printf(i64, ...) -> i32\n"
			      "data %%fmt = const { i8 \"%s\", i8 0 }\n"
			      "data %%str = const { i8 \"%s\", i8 0 }\n"
			      "function %%f() -> i32 {\n"
			      "block0:\n"
			      "    v0 = symbol_addr %%fmt\n"
			      "    v1 = symbol_addr %%str\n"
			      "    v2 = iconst.i32 %d\n"
			      "    v3 = call %%printf(v0%s%s, v1)\n"
			      "    return v3\n"
			      "}\n", fmt, strs[d], w, sw ? ", v2" : "",
			      sp ? ", v2" : "");
		sink k = { 0 };
		kl_run_result r = run(t.data, t.len, &k);
		CHECK(r.status == KL_RUN_RETURNED);
		CHECK_EQ_INT(k.all.len, strlen(want));
		if (k.all.len != strlen(want) ||
		    memcmp(k.all.data, want, k.all.len) != 0)
			fprintf(stderr, "format %s: got '%.*s', want '%s'\n",
				fmt, (int)k.all.len, k.all.data, want);
		kl_buf_free(&k.all);
		kl_buf_free(&t);
		cases++;
	}
	CHECK(cases > 600);
}

/* Four %s of a 100,000-byte string between <>, and ten 65,536-wide
 * numbers: all of it printed and counted, in several pieces, none much
 * larger than the interpreter's piece (64 KiB) and one conversion. */
static void
test_long_output_in_pieces(void)
{
	static const char text[] =
		"declare %printf(i64, ...) -> i32\n"
		"declare %malloc(i64) -> i64\n"
		"declare %memset(i64, i32, i64) -> i64\n"
		"data %four = const { i8 \"<%s%s%s%s>\", i8 0 }\n"
		"data %wide = const { i8 \"%65536d%65536d%65536d%65536d"
		"%65536d%65536d%65536d%65536d%65536d%65536d\", i8 0 }\n"
		"function %f() -> i32 {\n"
		"block0:\n"
		"    v0 = iconst.i64 100001\n"
		"    v1 = call %malloc(v0)\n"
		"    v2 = iconst.i32 97\n"
		"    v3 = iconst.i64 100000\n"
		"    v4 = call %memset(v1, v2, v3)\n"
		"    v5 = symbol_addr %four\n"
		"    v6 = call %printf(v5, v1, v1, v1, v1)\n"
		"    v7 = symbol_addr %wide\n"
		"    v8 = iconst.i32 7\n"
		"    v9 = call %printf(v7, v8, v8, v8, v8, v8, v8, v8, v8, "
		"v8, v8)\n"
		"    v10 = iadd v6, v9\n"
		"    return v10\n"
		"}\n";
	sink k = { 0 };
	kl_run_result r = run(text, sizeof text - 1, &k);
	size_t total = 400002 + 10 * 65536;
	CHECK(r.status == KL_RUN_RETURNED);
	CHECK_EQ_INT(k.all.len, total);
	CHECK_EQ_INT(k.result, total); /* printf's counts, added */
	CHECK(k.pieces >= 10);
	CHECK(k.largest <= 100000 + 65536);
	/* (the text before a long %s goes first, though the string goes
	 * to the callback on its own) */
	CHECK(k.all.len == total && k.all.data[0] == '<' &&
	      k.all.data[1] == 'a' && k.all.data[400000] == 'a' &&
	      k.all.data[400001] == '>' && k.all.data[400002] == ' ' &&
	      k.all.data[400002 + 65535] == '7');
	kl_buf_free(&k.all);
}

/* A bad conversion after good ones: the run fails with nothing of that
 * call printed, though the good ones come first. */
static void
test_bad_conversion_prints_nothing(void)
{
	static const char text[] =
		"declare %printf(i64, ...) -> i32\n"
		"data %fmt = const { i8 \"%65536d%65536d and %d\", i8 0 }\n"
		"function %f() -> i32 {\n"
		"block0:\n"
		"    v0 = symbol_addr %fmt\n"
		"    v1 = iconst.i32 1\n"
		"    v2 = iconst.i64 2\n"
		"    v3 = call %printf(v0, v1, v1, v2)\n"
		"    return v3\n"
		"}\n";
	sink k = { 0 };
	kl_run_result r = run(text, sizeof text - 1, &k);
	CHECK(r.status == KL_RUN_FAILED);
	CHECK_EQ_INT(k.pieces, 0);
	kl_buf_free(&k.all);
}

int
main(void)
{
	UNIT_RUN(test_string_conversions);
	UNIT_RUN(test_long_output_in_pieces);
	UNIT_RUN(test_bad_conversion_prints_nothing);
	return unit_report("interp_printf");
}
