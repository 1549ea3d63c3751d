/*
 * test_pass.c -- the `pass` test command:
 *
 *   test pass promote[,PASS...] [precise] [notes] [stats]
 *
 * runs the passes over each function, verifies it, and checks the printed
 * result: with the function's check directives, or (precise) against the
 * comment block after it, which --bless rewrites. With `notes`, the
 * passes' verbose notes follow the function as "; note: ..." lines, so
 * tests can check why a pass decided what it did; with `stats`, each
 * pass's counters for the function precede its notes, as
 * "; stat: PASS: NAME N" lines. A pass that leaves broken IR fails the
 * test with the verifier's listing.
 *
 * The running of passes is shared with `test interpret after=PASSES`,
 * which runs the file's run lines on what the passes made.
 */
#include <string.h>

#include "testcmd.h"

bool
test_parse_passes(test_file *tf, const char *s, size_t len,
		  const kl_pass **passes, uint32_t *npasses, kl_buf *report)
{
	kl_buf err = { 0 };
	*npasses = 0;
	const char *bad = cli_parse_passes(s, len, passes, npasses, &err);
	if (bad)
		test_args_error(tf, bad, report, "%s", err.data);
	kl_buf_free(&err);
	return !bad;
}

/* The pass's counters and notes for the function, as comment lines. */
static void
put_report(const kl_pass *pass, const kl_pass_report *rep, bool stats,
	   kl_buf *extra)
{
	for (uint32_t c = 0; stats && c < rep->num_counters; c++)
		kl_buf_printf(extra, "; stat: %s: %s %llu\n", pass->name,
			      rep->counters[c].name,
			      (unsigned long long)rep->counters[c].value);
	for (const char *n = rep->notes.data; n && *n;) {
		const char *nl = strchr(n, '\n');
		size_t len = nl ? (size_t)(nl - n) : strlen(n);
		kl_buf_printf(extra, "; note: %.*s\n", (int)len, n);
		n += len + (nl ? 1 : 0);
	}
}

bool
test_run_passes(test_file *tf, const test_func *tfn,
		const kl_pass *const *passes, uint32_t npasses, bool notes,
		bool stats, kl_buf *extra, kl_buf *report)
{
	kl_func *f = tfn->func;
	kl_diags d = { 0 };
	if (kl_verify_func(f, NULL, &d) != KL_OK) {
		kl_buf_printf(report, "%s:%u: the function does not verify "
			      "before the passes:\n", tf->path,
			      tfn->first_line);
		kl_verify_render(f, &d, tf->path, false, report, report);
		kl_diags_free(&d);
		return false;
	}
	tf->module_changed = true;
	bool ok = true;
	for (uint32_t i = 0; i < npasses && ok; i++) {
		kl_pass_report rep = { 0 };
		rep.verbose = notes;
		rep.input_verified = true; /* verified before */
		kl_status st = passes[i]->run(f, &rep);
		if (st != KL_OK) {
			kl_buf_printf(report, "%s:%u: pass '%s' failed: %s\n",
				      tf->path, tfn->first_line,
				      passes[i]->name, kl_status_name(st));
			ok = false;
		} else if (kl_verify_func(f, NULL, &d) != KL_OK) {
			kl_buf_printf(report, "%s:%u: the IR is broken after "
				      "pass '%s':\n", tf->path,
				      tfn->first_line, passes[i]->name);
			kl_verify_render(f, &d, tf->path, false, report,
					 report);
			ok = false;
		}
		kl_diags_free(&d);
		put_report(passes[i], &rep, stats, extra);
		kl_pass_report_free(&rep);
	}
	return ok;
}

int
test_cmd_pass(test_file *tf, const char *args, kl_buf *report)
{
	/* (check_args made sure the list is there) */
	const char *e = args;
	size_t len;
	const char *s = test_next_word(&e, &len);
	const kl_pass *passes[CLI_MAX_PASSES];
	uint32_t npasses;
	if (!test_parse_passes(tf, s, len, passes, &npasses, report))
		return 1;
	bool precise = test_has_option(e, "precise");
	bool notes = test_has_option(e, "notes");
	bool stats = test_has_option(e, "stats");
	int failures = 0;
	uint32_t directives = tf->ndirectives;
	kl_buf out = { 0 }, extra = { 0 };
	for (uint32_t k = 0; k < tf->nfuncs; k++) {
		kl_buf_reset(&extra);
		if (!test_run_passes(tf, &tf->funcs[k], passes, npasses, notes,
				     stats, &extra, report)) {
			/* The checks would have run: the failure said, they
			 * are not also "run by none of the commands". */
			tf->directives_run = true;
			failures++;
			continue;
		}
		kl_buf_reset(&out);
		kl_print_func(tf->funcs[k].func, NULL, &out);
		kl_buf_append(&out, extra.data, extra.len);
		failures += test_check_output(tf, &tf->funcs[k], precise,
					      out.data, out.len, report);
	}
	kl_buf_free(&out);
	kl_buf_free(&extra);
	/* The notes and counters are lines for checks to read: with none
	 * to read them, asking for them would pass whatever they said. */
	const char *asked = notes ? test_find_option(e, "notes")
				  : test_find_option(e, "stats");
	if (asked && !precise && tf->ndirectives == directives && !failures) {
		test_args_error(tf, asked, report, "'%s' adds lines for checks "
				"to read, but no function has check directives "
				"(write them, or give 'precise')",
				notes ? "notes" : "stats");
		failures++;
	}
	return failures;
}
