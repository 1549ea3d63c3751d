/*
 * test_qbe.c -- kl_qbe_import, the QBE IL importer, through keel.h: a
 * module imported, printed exactly and run; errors with their line and
 * column; NULL and empty arguments; every function of a small program
 * given each prefix of its text (no crash, a module or an error, never
 * both).
 */
#include <stdlib.h>
#include <string.h>

#include "keel.h"
#include "unit.h"

static const char good[] =
	"# a loop that is not in SSA form\n"
	"export function w $sum(w %n) {\n"
	"@start\n"
	"\t%s =w copy 0\n"
	"@loop\n"
	"\t%s =w add %s, %n\n"
	"\t%n =w sub %n, 1\n"
	"\tjnz %n, @loop, @end\n"
	"@end\n"
	"\tret %s\n"
	"}\n";

static const char good_kl[] =
	"function %sum(i32) -> i32 {\n"
	"block0(v0: i32):\n"
	"    v1 = iconst.i32 0\n"
	"    jump block1(v1, v0)\n"
	"\n"
	"block1(v2: i32, v3: i32):\n"
	"    v4 = iadd v2, v3\n"
	"    v5 = iconst.i32 1\n"
	"    v6 = isub v3, v5\n"
	"    brif v6, block1(v4, v6), block2\n"
	"\n"
	"block2:\n"
	"    return v4\n"
	"}\n";

static void
test_good(void)
{
	kl_module *m = NULL;
	kl_diags d = { 0 };
	CHECK(kl_qbe_import(good, strlen(good), &m, &d) == KL_OK);
	CHECK_EQ_INT(d.len, 0);
	CHECK(m != NULL);
	if (!m)
		return;
	kl_buf out = { 0 };
	kl_print_module(m, NULL, &out);
	CHECK_EQ_STR(out.data, good_kl);
	CHECK(kl_verify_module(m, &d) == KL_OK);
	kl_interp *it = kl_interp_new(m, NULL);
	uint64_t arg = 100;
	kl_run_result r;
	kl_interp_call(it, kl_module_lookup(m, "sum", 3), &arg, 1, &r);
	CHECK(r.status == KL_RUN_RETURNED);
	CHECK_EQ_INT(r.results[0], 5050);
	kl_interp_free(it);
	kl_buf_free(&out);
	kl_diags_free(&d);
	kl_module_free(m);
}

/* text has one error, at line:col, whose message contains what. */
static void
check_error(const char *text, uint32_t line, uint32_t col, const char *what)
{
	kl_module *before = kl_module_new(), *m = before; /* made NULL */
	kl_diags d = { 0 };
	CHECK(kl_qbe_import(text, strlen(text), &m, &d) == KL_ERR_PARSE);
	CHECK(m == NULL);
	CHECK_EQ_INT(d.len, 1);
	if (d.len) {
		CHECK_EQ_INT(d.items[0].line, line);
		CHECK_EQ_INT(d.items[0].col, col);
		CHECK(d.items[0].severity == KL_SEV_ERROR);
		if (!strstr(d.items[0].message, what))
			fprintf(stderr, "message: %s\n", d.items[0].message);
		CHECK(strstr(d.items[0].message, what) != NULL);
	}
	kl_diags_free(&d);
	kl_module_free(before);
}

static void
test_errors(void)
{
	check_error("function w $f() {\n@a\n\t%x =w frob 1\n\tret %x\n}\n", 3,
		    8, "unknown instruction 'frob'");
	check_error("function w $f() {\n@a\n\tjmp @b\n}\n", 3, 6,
		    "undefined block @b");
	check_error("type :t = { w }\ntype :t = { l }\n", 2, 6,
		    "type :t is already defined on line 1");
	check_error("function w $f() {\n@a\n\tret 0\n", 3, 7,
		    "'}' missing");
	check_error("function w $f() {\n@a\n\t%y =w add %x, 1\n\tret %y\n}\n",
		    3, 12, "%x is used but never defined");
	check_error("data $d = { w \"s\" }\n", 1, 15, "a string in a w "
		    "field");
	/* no diagnostics list: the status alone */
	kl_module *m = NULL;
	CHECK(kl_qbe_import("bad", 3, &m, NULL) == KL_ERR_PARSE);
	CHECK(m == NULL);
}

static void
test_arguments(void)
{
	kl_module *m = NULL;
	kl_diags d = { 0 };
	CHECK(kl_qbe_import(NULL, 0, &m, &d) == KL_OK); /* an empty module */
	CHECK(m != NULL && kl_module_num_syms(m) == 0);
	kl_module_free(m);
	CHECK(kl_qbe_import("", 0, &m, &d) == KL_OK);
	kl_module_free(m);
	CHECK(kl_qbe_import(NULL, 4, &m, &d) == KL_ERR_INVALID);
	CHECK(kl_qbe_import(good, strlen(good), NULL, &d) == KL_ERR_INVALID);
	CHECK_EQ_INT(d.len, 0);
	kl_diags_free(&d);
}

/* Every prefix of a program: a module or errors, never both, no crash
 * (the sanitizers watch the rest). */
static void
test_prefixes(void)
{
	static const char prog[] =
		"data $s = { b \"hi\", b 0, z 2, l $s + 1 }\n"
		"function w $main() {\n@start\n"
		"\t%p =l alloc8 8\n\tstorel 1, %p\n\t%x =w loadw %p\n"
		"\t%c =w call $puts(l $s)\n"
		"@l\n\t%y =w phi @start %x, @l %z\n\t%z =w add %y, 1\n"
		"\t%k =w csltw %z, 9\n\tjnz %k, @l, @e\n@e\n\tret %z\n}\n";
	size_t n = strlen(prog);
	uint32_t modules = 0;
	for (size_t len = 0; len <= n; len++) {
		kl_module *m = NULL;
		kl_diags d = { 0 };
		kl_status st = kl_qbe_import(prog, len, &m, &d);
		CHECK((st == KL_OK) == (m != NULL));
		CHECK((st == KL_OK) == (kl_diags_errors(&d) == 0));
		modules += st == KL_OK;
		kl_module_free(m);
		kl_diags_free(&d);
	}
	CHECK(modules >= 2); /* the empty text, the data alone, the whole */
}

int
main(void)
{
	UNIT_RUN(test_good);
	UNIT_RUN(test_errors);
	UNIT_RUN(test_arguments);
	UNIT_RUN(test_prefixes);
	return unit_report("qbe");
}
