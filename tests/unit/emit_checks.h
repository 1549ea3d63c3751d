/*
 * emit_checks.h -- what the unit tests of both emitters (kl_emit_c,
 * kl_emit_asm) check alike: NULL arguments, IR that does not verify,
 * the same bytes every time. Needs unit.h and parsed.h.
 */
#ifndef KEEL_EMIT_CHECKS_H
#define KEEL_EMIT_CHECKS_H

typedef kl_status (*emit_fn)(const kl_module *m, const char *file,
			     kl_buf *out, kl_diags *diags);

/* KL_ERR_INVALID for no module or no buffer, and nothing appended. */
static void
check_emit_null_arguments(emit_fn emit, const char *ok_text)
{
	kl_module *m = parse_text(ok_text, strlen(ok_text));
	kl_buf out = { 0 };
	CHECK_EQ_INT(emit(NULL, "x", &out, NULL), KL_ERR_INVALID);
	CHECK_EQ_INT(emit(m, "x", NULL, NULL), KL_ERR_INVALID);
	CHECK_EQ_INT(out.len, 0);
	kl_module_free(m);
}

/* IR that does not verify: the verifier's diagnostics, nothing
 * appended. */
static void
check_emit_unverified(emit_fn emit)
{
	const char *text = "function %f() {\n"
			   "block0:\n"
			   "    jump block0\n"
			   "}\n";
	kl_module *m = parse_text(text, strlen(text));
	kl_buf out = { 0 };
	kl_diags diags = { 0 };
	CHECK_EQ_INT(emit(m, "bad.kl", &out, &diags), KL_ERR_VERIFY);
	CHECK_EQ_INT(out.len, 0);
	CHECK(diags.len >= 1 && strstr(diags.items[0].message,
				       "branch to the entry block"));
	kl_buf_free(&out);
	kl_diags_free(&diags);
	kl_module_free(m);
}

/* examples/sieve.kl emitted twice gives the same bytes, which hold
 * want (NULL: anything). */
static void
check_emit_deterministic(emit_fn emit, const char *want)
{
	const char *path = "examples/sieve.kl";
	FILE *fp = fopen(path, "rb");
	CHECK(fp != NULL);
	if (!fp)
		return;
	static char text[1 << 16];
	size_t len = fread(text, 1, sizeof text - 1, fp);
	fclose(fp);
	kl_module *m = parse_text(text, len);
	kl_buf a = { 0 }, b = { 0 };
	CHECK_EQ_INT(emit(m, path, &a, NULL), KL_OK);
	CHECK_EQ_INT(emit(m, path, &b, NULL), KL_OK);
	CHECK(a.len == b.len && memcmp(a.data, b.data, a.len) == 0);
	CHECK(!want || (a.data && strstr(a.data, want)));
	kl_buf_free(&a);
	kl_buf_free(&b);
	kl_module_free(m);
}

#endif
