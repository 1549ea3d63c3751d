/*
 * test_corpus.c -- properties every module in the repository's own IR
 * text must have, checked on each: the file tests (tests/filetests) and
 * the examples, every file that parses.
 *
 * - Printing round-trips: the printed text parses, and prints again to
 *   the same bytes. (`test roundtrip` checks this only in the files that
 *   ask for it.)
 * - The verifier's fast path says yes exactly when its careful phases
 *   find nothing. A file test that passes never reaches the careful
 *   phases through `keel test`, so without this one of them refusing
 *   valid IR would go unseen.
 *
 * Run from the repository's top directory, as tests/check.sh runs it.
 */
#include <dirent.h>
#include <stdlib.h>

#include "keel.h"
#include "unit.h"
#include "../../src/cli/cli.h"
#include "../../src/verify/verify.h"

/* The text of path (free it), its leading `test` lines blanked as keel
 * test blanks them; NULL if it cannot be read. */
static char *
read_test_file(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	if (!fp)
		return NULL;
	kl_buf b = { 0 };
	char chunk[4096];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0)
		kl_buf_append(&b, chunk, n);
	fclose(fp);
	if (b.data)
		cli_blank_test_lines(b.data, b.len, NULL, NULL);
	*len = b.len;
	return b.data ? b.data : calloc(1, 1);
}

static bool
fast_says_ok(const kl_func *f)
{
	kl_verify_scratch *s = kl_verify_scratch_new();
	kl_verify_ctx ctx = { .scratch = s };
	bool ok = verify_fast(f, &ctx, s, NULL);
	kl_verify_scratch_free(s);
	return ok;
}

/* Do the careful phases, alone, find nothing, not even a warning? */
static bool
careful_says_ok(const kl_func *f)
{
	kl_verify_scratch *s = kl_verify_scratch_new();
	kl_verify_ctx ctx = { .scratch = s };
	kl_diags d = { 0 };
	verify_careful(f, &ctx, s, &d);
	bool nothing = d.len == 0;
	kl_diags_free(&d);
	kl_verify_scratch_free(s);
	return nothing;
}

/* Where the fast path may say "maybe" of valid IR (docs/verifier.md):
 * offsets whose sum wraps around. */
static const char *const fast_path_unsure[] = {
	"tests/filetests/promote/wrap.kl",
};

static void
check_paths_agree(const char *path, const kl_module *m)
{
	bool unsure = false;
	for (size_t k = 0; k < sizeof fast_path_unsure /
				   sizeof fast_path_unsure[0]; k++)
		unsure |= strcmp(path, fast_path_unsure[k]) == 0;
	for (uint32_t i = 0; i < kl_module_num_syms(m); i++) {
		const kl_func *f = kl_sym_func(m, (kl_sym){ i });
		if (!f)
			continue;
		bool quick = fast_says_ok(f), careful = careful_says_ok(f);
		if (unsure && !quick)
			quick = careful;
		if (quick != careful)
			fprintf(stderr, "%s, symbol %u: the fast path says %s, "
				"the careful phases find %s\n", path, i,
				quick ? "yes" : "maybe",
				careful ? "nothing" : "something");
		CHECK(quick == careful);
	}
}

static void
check_round_trip(const char *path, const kl_module *m)
{
	kl_buf once = { 0 }, twice = { 0 };
	kl_print_module(m, NULL, &once);
	kl_module *again = NULL;
	kl_diags d = { 0 };
	kl_status st = kl_parse_module(once.data, once.len, NULL, &again, &d);
	if (st != KL_OK)
		fprintf(stderr, "%s: the printed text does not parse: line %u: "
			"%s\n", path, d.len ? d.items[0].line : 0,
			d.len ? d.items[0].message : "");
	CHECK_EQ_INT(st, KL_OK);
	if (again) {
		kl_print_module(again, NULL, &twice);
		bool same = once.len == twice.len &&
			    (once.len == 0 ||
			     memcmp(once.data, twice.data, once.len) == 0);
		if (!same)
			fprintf(stderr, "%s: printed twice, the texts differ\n",
				path);
		CHECK(same);
	}
	kl_module_free(again);
	kl_diags_free(&d);
	kl_buf_free(&once);
	kl_buf_free(&twice);
}

/* Every .kl file under dir (recursively) that parses; the count in
 * *modules. */
static void
check_under(const char *dir, uint32_t *modules)
{
	DIR *d = opendir(dir);
	CHECK(d != NULL);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		char path[1024];
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		size_t nl = strlen(e->d_name);
		if (nl < 3 || strcmp(e->d_name + nl - 3, ".kl") != 0) {
			DIR *sub = opendir(path);
			if (sub) {
				closedir(sub);
				check_under(path, modules);
			}
			continue;
		}
		size_t len = 0;
		char *text = read_test_file(path, &len);
		CHECK(text != NULL);
		kl_module *m = NULL;
		kl_diags diags = { 0 };
		if (text && kl_parse_module(text, len, NULL, &m, &diags) ==
				    KL_OK) {
			check_round_trip(path, m);
			check_paths_agree(path, m);
			++*modules;
		}
		kl_module_free(m);
		kl_diags_free(&diags);
		free(text);
	}
	closedir(d);
}

static void
test_corpus(void)
{
	uint32_t modules = 0;
	check_under("tests/filetests", &modules);
	check_under("examples", &modules);
	CHECK(modules > 150); /* (the tree was found) */
}

int
main(void)
{
	UNIT_RUN(test_corpus);
	return unit_report("corpus");
}
