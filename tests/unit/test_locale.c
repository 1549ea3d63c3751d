/*
 * test_locale.c -- the library reads and writes numbers as C does,
 * whatever locale the program that embeds it chose.
 *
 * A front end that calls setlocale(LC_ALL, "") for its own messages
 * may get a decimal comma. The IR's text must still read "1.5" and
 * print what reads back; the interpreter's printf must print as a C
 * program's does until it calls setlocale (in the "C" locale); the
 * library's messages must not change with the host's locale; and
 * FileCheck's regexes match bytes, as keel test's do.
 *
 * It needs a locale whose decimal point is a comma: tests/check.sh
 * makes one with localedef when it can (LOCPATH). Without one, its
 * summary line says it skipped.
 */
#include <locale.h>
#include <stdlib.h>

#include "keel.h"
#include "unit.h"

static const char *const comma_locales[] = {
	"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8", "nl_NL.UTF-8",
};

static bool
host_has_comma(void)
{
	return strcmp(localeconv()->decimal_point, ",") == 0;
}

/* Switch to a locale with a decimal comma; false if there is none. */
static bool
use_comma_locale(void)
{
	for (size_t k = 0; k < sizeof comma_locales / sizeof *comma_locales;
	     k++) {
		if (setlocale(LC_ALL, comma_locales[k]) && host_has_comma())
			return true;
	}
	setlocale(LC_ALL, "C");
	return false;
}

static kl_module *
parse_text(const char *text)
{
	kl_module *m = NULL;
	kl_diags d = { 0 };
	kl_status s = kl_parse_module(text, strlen(text), NULL, &m, &d);
	CHECK_EQ_INT(s, KL_OK);
	CHECK_EQ_INT(kl_diags_errors(&d), 0);
	kl_diags_free(&d);
	return m;
}

static char *
print_text(const kl_module *m)
{
	kl_buf b = { 0 };
	kl_print_module(m, NULL, &b);
	return b.data;
}

/* Decimal and hexadecimal float literals read as in C, and what is
 * printed reads back to the same text. */
static void
test_float_literals(void)
{
	static const char text[] =
		"function %f() -> f64, f32 {\n"
		"block0:\n"
		"    v0 = f64const 1.5\n"
		"    v1 = f64const 0x1.8p1\n"
		"    v2 = f64const 2.5e-3\n"
		"    v3 = f32const 0.25\n"
		"    v4 = fadd v0, v1\n"
		"    v5 = fadd v4, v2\n"
		"    return v5, v3\n"
		"}\n";
	static const char want[] =
		"function %f() -> f64, f32 {\n"
		"block0:\n"
		"    v0 = f64const 0x1.8p0\n"
		"    v1 = f64const 0x1.8p1\n"
		"    v2 = f64const 0x1.47ae147ae147bp-9\n"
		"    v3 = f32const 0x1p-2\n"
		"    v4 = fadd v0, v1\n"
		"    v5 = fadd v4, v2\n"
		"    return v5, v3\n"
		"}\n";
	kl_module *m = parse_text(text);
	if (!m)
		return;
	char *printed = print_text(m);
	CHECK_EQ_STR(printed, want);
	kl_module *again = parse_text(printed ? printed : "");
	if (again) {
		char *reprinted = print_text(again);
		CHECK_EQ_STR(reprinted, want);
		free(reprinted);
		kl_module_free(again);
	}
	free(printed);
	kl_module_free(m);
}

static void
collect(void *ctx, const char *data, size_t len)
{
	kl_buf *b = ctx;
	kl_buf_append(b, data, len);
}

/* A keel program's printf prints as a C program's does before it calls
 * setlocale, and a trap's message names a float as C writes it. */
static void
test_interpreter_numbers(void)
{
	static const char text[] =
		"declare %printf(i64, ...) -> i32\n"
		"data %fmt = const { i8 \"%.2f %g %e %d\", i8 0 }\n"
		"function %show(f64, i32) -> i32 {\n"
		"block0(v0: f64, v1: i32):\n"
		"    v2 = symbol_addr %fmt\n"
		"    v3 = call %printf(v2, v0, v0, v0, v1)\n"
		"    return v3\n"
		"}\n"
		"function %narrow(f64) -> i8 {\n"
		"block0(v0: f64):\n"
		"    v1 = fcvt_to_sint.i8 v0\n"
		"    return v1\n"
		"}\n";
	kl_module *m = parse_text(text);
	if (!m)
		return;
	uint64_t bits = 0;
	CHECK_EQ_INT(kl_interp_scan_value(m, KL_TYPE_F64, "1.5", 3, &bits), 3);
	CHECK_EQ_INT(bits, 0x3ff8000000000000ull);
	kl_buf out = { 0 };
	kl_interp_options o = { .output = collect, .output_ctx = &out };
	kl_interp *it = kl_interp_new(m, &o);
	kl_run_result r;
	uint64_t args[2] = { 0x3ff8000000000000ull /* 1.5 */, 1234567 };
	kl_sym show = kl_module_lookup(m, "show", 4);
	CHECK(kl_interp_call(it, show, args, 2, &r) == KL_OK);
	CHECK_EQ_INT(r.status, KL_RUN_RETURNED);
	kl_buf_append(&out, "", 1);
	CHECK_EQ_STR(out.data, "1.50 1.5 1.500000e+00 1234567");

	uint64_t wide = 0x4072c80000000000ull; /* 300.5 */
	kl_sym narrow = kl_module_lookup(m, "narrow", 6);
	CHECK(kl_interp_call(it, narrow, &wide, 1, &r) == KL_OK);
	CHECK_EQ_INT(r.status, KL_RUN_TRAPPED);
	CHECK_EQ_STR(r.message, "float to integer conversion of f64 300.5: "
				"out of range for signed i8");
	kl_buf_free(&out);
	kl_interp_free(it);
	kl_module_free(m);
}

/* A check's regex matches bytes, as keel test's (which runs in the C
 * locale) and LLVM FileCheck's do: in a UTF-8 locale, '.' would match
 * a whole character and the same check file would pass or fail by the
 * host's locale. */
static void
test_filecheck_bytes(void)
{
	static const char check[] = "check: <$(=a..b)>";
	static const char out[] = "<a\xc3\xa9" "b>\n"; /* "é", two bytes */
	kl_filecheck *fc = kl_filecheck_new();
	kl_buf err = { 0 }, report = { 0 };
	CHECK_EQ_INT(kl_filecheck_add_line(fc, check, sizeof check - 1, 1,
					   &err), 1);
	bool ok = kl_filecheck_run(fc, out, sizeof out - 1, &report);
	kl_buf_append(&report, "", 1);
	CHECK(ok);
	if (!ok)
		fprintf(stderr, "%s", report.data);
	kl_buf_free(&err);
	kl_buf_free(&report);
	kl_filecheck_free(fc);
}

static void
note_callback_locale(void *ctx, const char *data, size_t len)
{
	(void)data;
	(void)len;
	*(bool *)ctx = host_has_comma();
}

/* Every call gives the host its locale back, on the paths that fail
 * too (a parse error unwinds with longjmp inside the C locale's span,
 * a trap ends a run), and the output callback, the host's code, runs
 * in the host's locale: the tests above pass as well when the C locale
 * is never left. */
static void
test_host_locale_restored(void)
{
	static const char bad[] = "function %f() {\nblock0:\n"
				  "    v0 = f64const 1.5x\n}\n";
	kl_module *m = NULL;
	CHECK_EQ_INT(kl_parse_module(bad, sizeof bad - 1, NULL, &m, NULL),
		     KL_ERR_PARSE);
	CHECK(host_has_comma());

	static const char text[] =
		"declare %printf(i64, ...) -> i32\n"
		"data %fmt = const { i8 \"%g\", i8 0 }\n"
		"function %show(f64) -> i8 {\n"
		"block0(v0: f64):\n"
		"    v1 = symbol_addr %fmt\n"
		"    v2 = call %printf(v1, v0)\n"
		"    v3 = fcvt_to_sint.i8 v0\n"
		"    return v3\n"
		"}\n";
	m = parse_text(text);
	if (!m)
		return;
	CHECK(host_has_comma());
	uint64_t bits = 0;
	CHECK_EQ_INT(kl_interp_scan_value(m, KL_TYPE_F64, "1.5", 3, &bits), 3);
	CHECK(host_has_comma());
	bool comma_in_callback = false;
	kl_interp_options o = { .output = note_callback_locale,
				.output_ctx = &comma_in_callback };
	kl_interp *it = kl_interp_new(m, &o);
	kl_run_result r;
	uint64_t wide = 0x4072c80000000000ull; /* 300.5: prints, then traps */
	kl_sym show = kl_module_lookup(m, "show", 4);
	CHECK(kl_interp_call(it, show, &wide, 1, &r) == KL_OK);
	CHECK_EQ_INT(r.status, KL_RUN_TRAPPED);
	CHECK(comma_in_callback);
	CHECK(host_has_comma());
	kl_interp_free(it);
	kl_module_free(m);

	kl_filecheck *fc = kl_filecheck_new();
	kl_buf err = { 0 };
	static const char check[] = "check: x$(=[0-9]+)";
	CHECK_EQ_INT(kl_filecheck_add_line(fc, check, sizeof check - 1, 1,
					   &err), 1);
	CHECK(host_has_comma());
	CHECK(!kl_filecheck_run(fc, "y\n", 2, NULL));
	CHECK(host_has_comma());
	kl_buf_free(&err);
	kl_filecheck_free(fc);
}

/* A piece handed to the callback mid-call (after 64 KiB) does not leave
 * the rest of the call formatting in the host's locale. */
static void
test_locale_after_a_piece(void)
{
	static const char text[] =
		"declare %printf(i64, ...) -> i32\n"
		"data %fmt = const { i8 \"%65536d%.1f\", i8 0 }\n"
		"function %show(i32, f64) -> i32 {\n"
		"block0(v0: i32, v1: f64):\n"
		"    v2 = symbol_addr %fmt\n"
		"    v3 = call %printf(v2, v0, v1)\n"
		"    return v3\n"
		"}\n";
	kl_module *m = parse_text(text);
	if (!m)
		return;
	kl_buf out = { 0 };
	kl_interp_options o = { .output = collect, .output_ctx = &out };
	kl_interp *it = kl_interp_new(m, &o);
	kl_run_result r;
	uint64_t args[2] = { 7, 0x3ff8000000000000ull /* 1.5 */ };
	CHECK(kl_interp_call(it, kl_module_lookup(m, "show", 4), args, 2, &r) ==
	      KL_OK);
	CHECK_EQ_INT(r.status, KL_RUN_RETURNED);
	CHECK_EQ_INT(out.len, 65539);
	CHECK(out.len == 65539 && memcmp(out.data + 65535, "71.5", 4) == 0);
	CHECK(host_has_comma());
	kl_buf_free(&out);
	kl_interp_free(it);
	kl_module_free(m);
}

int
main(void)
{
	if (!use_comma_locale()) {
		printf("locale: 0 passed, 0 failed (skipped: no locale with a "
		       "decimal comma; tests/check.sh makes one with "
		       "localedef)\n");
		return 0;
	}
	UNIT_RUN(test_float_literals);
	UNIT_RUN(test_interpreter_numbers);
	UNIT_RUN(test_filecheck_bytes);
	UNIT_RUN(test_host_locale_restored);
	UNIT_RUN(test_locale_after_a_piece);
	setlocale(LC_ALL, "C");
	return unit_report("locale");
}
