/*
 * test_emit_asm.c -- kl_emit_asm through the API: what it appends, its
 * statuses and diagnostics. tests/scripts.sh assembles and runs what it
 * writes against keel run (docs/emit-asm.md).
 */
#include <stdlib.h>
#include <string.h>

#include "keel.h"
#include "unit.h"
#include "parsed.h"
#include "emit_checks.h"

static const char ok_text[] = "function %main() -> i32 {\n"
			      "block0:\n"
			      "    v0 = iconst.i32 7\n"
			      "    return v0\n"
			      "}\n";

/* It appends: what out held stays in front; main wraps %main, which is
 * not global itself. */
static void
test_appends_a_program(void)
{
	kl_module *m = parse_text(ok_text, strlen(ok_text));
	kl_buf out = { 0 };
	kl_buf_puts(&out, "# before\n");
	kl_diags diags = { 0 };
	CHECK_EQ_INT(kl_emit_asm(m, "seven.kl", &out, &diags), KL_OK);
	CHECK_EQ_INT(diags.len, 0);
	CHECK(strncmp(out.data,
		      "# before\n# made by keel emit-asm from "
		      "seven.kl\n",
		      47) == 0);
	CHECK(strstr(out.data, "\t.globl main\nmain:\n"));
	CHECK(!strstr(out.data, "__keel_0_main:"));
	CHECK(strstr(out.data, "\tcall .Lsym0\n"));
	CHECK(strstr(out.data, ".section .note.GNU-stack"));
	kl_buf again = { 0 };
	CHECK_EQ_INT(kl_emit_asm(m, NULL, &again, NULL), KL_OK);
	CHECK(strstr(again.data, "from <module>\n"));
	kl_buf_free(&again);
	kl_buf_free(&out);
	kl_diags_free(&diags);
	kl_module_free(m);
}

static void
test_null_arguments(void)
{
	check_emit_null_arguments(kl_emit_asm, ok_text);
}

static void
test_unverified_input(void)
{
	check_emit_unverified(kl_emit_asm);
}

/* An error for each thing, at its line, and nothing appended. */
static void
test_refusals(void)
{
	const char *text = "data %a = { i32 %a }\n"
			   "\n"
			   "data %b = align 8192 { i8 1 }\n"
			   "\n"
			   "function %main(i32) -> i32 {\n"
			   "block0(v0: i32):\n"
			   "    return v0\n"
			   "}\n";
	kl_module *m = parse_text(text, strlen(text));
	kl_buf out = { 0 };
	kl_diags diags = { 0 };
	CHECK_EQ_INT(kl_emit_asm(m, "r.kl", &out, &diags), KL_ERR_UNSUPPORTED);
	CHECK_EQ_INT(out.len, 0);
	CHECK_EQ_INT(diags.len, 3);
	if (diags.len == 3) {
		CHECK_EQ_STR(diags.items[0].message,
			     "data %a: cannot translate: an address in fewer "
			     "than 8 bytes");
		CHECK_EQ_INT(diags.items[0].line, 1);
		CHECK_EQ_STR(diags.items[1].message,
			     "data %b: cannot translate: aligned past 4096");
		CHECK_EQ_INT(diags.items[1].line, 3);
		CHECK_EQ_STR(diags.items[2].message,
			     "%main: cannot translate: it takes parameters");
		CHECK_EQ_INT(diags.items[2].line, 5);
	}
	kl_buf_free(&out);
	kl_diags_free(&diags);
	kl_module_free(m);
}

/* Names: a C identifier stays, another is numbered; data goes to the
 * section its kind asks for; a file name with a newline stays one line
 * of comment. */
static void
test_names_and_sections(void)
{
	const char *text = "data %plain = { i8 1 }\n"
			   "\n"
			   "data #6f6464206e616d65 = const { i64 %plain+4 }\n"
			   "\n"
			   "data %ro = const { i8 \"hi\" }\n"
			   "\n"
			   "function %f() {\n"
			   "block0:\n"
			   "    return\n"
			   "}\n";
	kl_module *m = parse_text(text, strlen(text));
	kl_buf out = { 0 };
	CHECK_EQ_INT(kl_emit_asm(m, "a\nb.kl", &out, NULL), KL_OK);
	CHECK(strstr(out.data, "# made by keel emit-asm from a?b.kl\n"));
	CHECK(strstr(out.data, "\t.data\n\t.balign 1\n\t.globl plain\n"
			       "plain:\n.Lsym0:\n\t.byte 1\n"));
	CHECK(strstr(out.data, "\t.section .data.rel.ro,\"aw\"\n\t.balign 1\n"
			       "\t.globl __keel_1_odd_name\n"));
	CHECK(strstr(out.data, "\t.quad .Lsym0+4\n"));
	CHECK(strstr(out.data, "\t.section .rodata\n\t.balign 1\n"
			       "\t.globl ro\nro:\n.Lsym2:\n\t.ascii \"hi\"\n"));
	CHECK(strstr(out.data, "\t.globl f\nf:\n.Lsym3:\n"));
	kl_buf_free(&out);
	kl_module_free(m);
}

static void
test_deterministic(void)
{
	check_emit_deterministic(kl_emit_asm, NULL);
}

int
main(void)
{
	UNIT_RUN(test_appends_a_program);
	UNIT_RUN(test_null_arguments);
	UNIT_RUN(test_unverified_input);
	UNIT_RUN(test_refusals);
	UNIT_RUN(test_names_and_sections);
	UNIT_RUN(test_deterministic);
	return unit_report("emit_asm");
}
