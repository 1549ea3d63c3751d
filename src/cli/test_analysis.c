/*
 * test_analysis.c -- the test commands about analyses: `print-cfg`,
 * `domtree`, `loops` and `regions`.
 *
 *   test print-cfg [loops] [liveness]
 *                       the check directives of each function run on its
 *                       printed CFG (kl_cfg_print), followed by its loop
 *                       forest and liveness sets when asked for.
 *   test domtree        each terminator may carry a trailing comment
 *                           brif v0, block1, block2 ; dominates: block1 block2
 *                       listing the blocks its block immediately dominates
 *                       (its children in the dominator tree), in any
 *                       order. The annotations of a function must match
 *                       the tree exactly and completely: a block with
 *                       children and no annotation fails, as does an
 *                       annotation anywhere but on the last instruction of
 *                       a block. "; dominates:" with nothing after it
 *                       says "no children". Then the check directives run
 *                       on the printed tree with its RPO, unreachable
 *                       blocks and frontiers (kl_domtree_print).
 *   test loops          the check directives run on the printed loop
 *                       forest (kl_loops_print).
 *   test regions        the check directives run on the printed
 *                       structured regions (kl_regions_print).
 *
 * The definition of a `dominates:` annotation is Cranelift's (its domtree
 * file tests): the comment on the terminator of block B names the blocks
 * whose immediate dominator is B.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "testcmd.h"

/* The analyses one function needs, computed in order. */
typedef struct fn_analyses {
	kl_cfg *cfg;
	kl_domtree *dt;
	kl_domfront *df;
	kl_loops *lf;
	kl_regions *rg;
	kl_liveness *lv;
} fn_analyses;

static void
compute(fn_analyses *a, const kl_func *f)
{
	kl_cfg_compute(a->cfg, f);
	kl_domtree_compute(a->dt, f, a->cfg);
	kl_domfront_compute(a->df, f, a->cfg, a->dt);
	kl_loops_compute(a->lf, f, a->cfg, a->dt);
	kl_regions_compute(a->rg, f, a->cfg, a->dt, a->lf);
	kl_liveness_compute(a->lv, f, a->cfg);
}

static fn_analyses
analyses_new(void)
{
	return (fn_analyses){ kl_cfg_new(), kl_domtree_new(),
			      kl_domfront_new(), kl_loops_new(),
			      kl_regions_new(), kl_liveness_new() };
}

static void
analyses_free(fn_analyses *a)
{
	kl_cfg_free(a->cfg);
	kl_domtree_free(a->dt);
	kl_domfront_free(a->df);
	kl_loops_free(a->lf);
	kl_regions_free(a->rg);
	kl_liveness_free(a->lv);
}

int
test_cmd_print_cfg(test_file *tf, const char *args, kl_buf *report)
{
	bool loops = test_has_option(args, "loops");
	bool live = test_has_option(args, "liveness");
	fn_analyses a = analyses_new();
	kl_buf out = { 0 };
	int failures = 0;
	for (uint32_t k = 0; k < tf->nfuncs; k++) {
		const kl_func *f = tf->funcs[k].func;
		compute(&a, f);
		kl_buf_reset(&out);
		kl_cfg_print(f, a.cfg, &out);
		if (loops)
			kl_loops_print(f, a.lf, &out);
		if (live)
			kl_liveness_print(f, a.lv, &out);
		failures += test_filecheck(tf, &tf->funcs[k], out.data, out.len,
					   report);
	}
	kl_buf_free(&out);
	analyses_free(&a);
	return failures;
}

/* The check directives of each function on one printed analysis. */
static int
check_printed(test_file *tf, bool regions, kl_buf *report)
{
	fn_analyses a = analyses_new();
	kl_buf out = { 0 };
	int failures = 0;
	for (uint32_t k = 0; k < tf->nfuncs; k++) {
		const kl_func *f = tf->funcs[k].func;
		compute(&a, f);
		kl_buf_reset(&out);
		if (regions)
			kl_regions_print(f, a.cfg, a.rg, &out);
		else
			kl_loops_print(f, a.lf, &out);
		failures += test_filecheck(tf, &tf->funcs[k], out.data, out.len,
					   report);
	}
	kl_buf_free(&out);
	analyses_free(&a);
	return failures;
}

int
test_cmd_loops(test_file *tf, const char *args, kl_buf *report)
{
	(void)args;
	return check_printed(tf, false, report);
}

int
test_cmd_regions(test_file *tf, const char *args, kl_buf *report)
{
	(void)args;
	return check_printed(tf, true, report);
}

/* ---- domtree ---- */

/* Does the code before the ';' of comment cm (in the file's text) start
 * an alias statement, `vN -> vM`? */
static bool
trails_alias(const test_file *tf, const test_comment *cm)
{
	const char *semi = cm->text - 1, *s = semi;
	while (s > tf->text && s[-1] != '\n')
		s--;
	while (s < semi && (*s == ' ' || *s == '\t'))
		s++;
	if (semi - s < 2 || s[0] != 'v' || !isdigit((unsigned char)s[1]))
		return false;
	s++;
	while (s < semi && isdigit((unsigned char)*s))
		s++;
	while (s < semi && (*s == ' ' || *s == '\t'))
		s++;
	return semi - s >= 2 && s[0] == '-' && s[1] == '>';
}

/*
 * The terminator that comment cm, trailing code, follows: the last
 * instruction of the last block whose header is at or above the
 * comment's line, if that instruction starts at or above it too (a
 * terminator may span lines); none if the comment trails an earlier
 * instruction, an alias statement after the terminator, or the
 * function's closing brace on a line of its own. The n blocks of the
 * layout and their header lines are given, in layout order, which for
 * parsed text is the order of the lines: a binary search, not a walk
 * of the layout for every annotation.
 */
static kl_inst
terminator_before(const test_file *tf, const test_func *tfn,
		  const test_comment *cm, const kl_block *blocks,
		  const uint32_t *lines, uint32_t n)
{
	const kl_func *f = tfn->func;
	uint32_t line = cm->line;
	uint32_t lo = 0, hi = n; /* the first header below line is in
				  * [lo, hi] */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (lines[mid] <= line)
			lo = mid + 1;
		else
			hi = mid;
	}
	kl_block at = lo ? blocks[lo - 1] : KL_NO_BLOCK;
	kl_inst t = kl_block_last_inst(f, at);
	if (t.id == KL_NONE)
		return KL_NO_INST;
	uint32_t from = kl_inst_source_line(f, t);
	if (from > line || (from < line && (line >= tfn->last_line ||
					    trails_alias(tf, cm))))
		return KL_NO_INST;
	return t;
}

/*
 * Parse "block3 block7" into a set (marks in seen[], which must be all
 * zero for the blocks named, and their numbers in marked[], *nmarked of
 * them, to clear them by). Returns false with a message on bad syntax,
 * a block not in the layout (placed[], bound entries: a number past the
 * last block, or one the text skipped) or a repeated block, *bad then
 * pointing at the word at fault.
 */
static bool
parse_blocks(const char *s, size_t n, uint32_t bound, const uint8_t *placed,
	     uint8_t *seen, uint32_t *marked, uint32_t *nmarked, kl_buf *why,
	     const char **bad)
{
	size_t i = 0;
	while (i < n) {
		if (s[i] == ' ' || s[i] == '\t' || s[i] == ',') {
			i++;
			continue;
		}
		size_t j = i;
		while (j < n && s[j] != ' ' && s[j] != '\t' && s[j] != ',')
			j++;
		uint64_t num = 0;
		bool ok = j - i > 5 && memcmp(s + i, "block", 5) == 0 &&
			  j - i <= 5 + 9;
		for (size_t k = i + 5; ok && k < j; k++) {
			ok = s[k] >= '0' && s[k] <= '9';
			num = num * 10 + (uint64_t)(s[k] - '0');
		}
		*bad = s + i;
		if (!ok) {
			kl_buf_printf(why, "'%.*s' is not a block name",
				      (int)(j - i), s + i);
			return false;
		}
		if (num >= bound || !placed[num]) {
			kl_buf_printf(why, "block%llu does not exist",
				      (unsigned long long)num);
			return false;
		}
		if (seen[num]) {
			kl_buf_printf(why, "block%llu is listed twice",
				      (unsigned long long)num);
			return false;
		}
		seen[num] = 1;
		marked[(*nmarked)++] = (uint32_t)num;
		i = j;
	}
	return true;
}

/* The children of b in the tree, as text. */
static void
children_text(const kl_domtree *dt, kl_block b, kl_buf *out)
{
	kl_buf_reset(out);
	for (kl_block c = kl_domtree_first_child(dt, b); c.id != KL_NONE;
	     c = kl_domtree_next_sibling(dt, c))
		kl_buf_printf(out, "%sblock%u", out->len ? " " : "", c.id);
	if (out->len == 0)
		kl_buf_puts(out, "(nothing)");
}

typedef struct dom_check {
	test_file *tf;
	const test_func *tfn;
	const kl_func *f;
	const kl_domtree *dt;
	uint32_t bound;
	uint8_t *placed;    /* per block: in the layout */
	uint8_t *seen;      /* per block: named by the annotation in hand */
	uint8_t *annotated; /* per block: its terminator has an annotation */
	uint32_t *marked;   /* the blocks seen[] marks, nmarked of them */
	uint32_t nmarked;
	kl_block *blocks;   /* the layout, nblocks of them, and the */
	uint32_t *lines;    /* line of each one's header */
	uint32_t nblocks;
	kl_buf *report;
	kl_buf name, why, kids;
} dom_check;

static int
fail_at(dom_check *c, uint32_t line, const char *what)
{
	kl_buf_printf(c->report, "%s:%u: in %s: %s\n", c->tf->path, line,
		      test_func_name(c->tfn, &c->name), what);
	return 1;
}

/* An annotation that cannot be read: where in it (at, or its first word
 * when at is NULL), with a caret. */
static int
annotation_error(dom_check *c, const test_comment *cm, const char *at,
		 const char *what)
{
	const char *name = test_func_name(c->tfn, &c->name);
	if (at)
		test_comment_error_at(c->tf, cm, at, c->report, "in %s: %s",
				      name, what);
	else
		test_comment_error(c->tf, cm, c->report, "in %s: %s", name,
				   what);
	return 1;
}

/* Check one `dominates:` comment; returns the number of failures. */
static int
check_annotation(dom_check *c, const test_comment *cm, const char *rest,
		 size_t len)
{
	const kl_func *f = c->f;
	kl_buf_reset(&c->why);
	if (cm->own_line)
		return annotation_error(c, cm, NULL, "a dominates: annotation "
					"must follow a terminator on its "
					"line");
	kl_inst i = terminator_before(c->tf, c->tfn, cm, c->blocks, c->lines,
				      c->nblocks);
	kl_block b = kl_inst_block(f, i);
	if (i.id == KL_NONE || b.id == KL_NONE)
		return annotation_error(c, cm, NULL, "a dominates: annotation "
					"must follow the last instruction of "
					"a block");
	if (c->annotated[b.id])
		return annotation_error(c, cm, NULL, "a second dominates: "
					"annotation for the same block");
	c->annotated[b.id] = 1;
	/* (seen[] is clear: each annotation clears what it marked) */
	c->nmarked = 0;
	const char *bad = NULL;
	bool parsed = parse_blocks(rest, len, c->bound, c->placed, c->seen,
				   c->marked, &c->nmarked, &c->why, &bad);
	/* The same set: as many blocks, each of b's children among them. */
	uint32_t nkids = 0;
	bool same = parsed;
	for (kl_block k = kl_domtree_first_child(c->dt, b);
	     parsed && k.id != KL_NONE; k = kl_domtree_next_sibling(c->dt, k)) {
		nkids++;
		same &= k.id < c->bound && c->seen[k.id];
	}
	same &= nkids == c->nmarked;
	for (uint32_t k = 0; k < c->nmarked; k++)
		c->seen[c->marked[k]] = 0;
	if (!parsed)
		return annotation_error(c, cm, bad, c->why.data);
	if (same)
		return 0;
	children_text(c->dt, b, &c->kids);
	kl_buf_printf(&c->why, "block%u dominates %s, not what the "
		      "annotation says (%.*s)", b.id, c->kids.data, (int)len,
		      len ? rest : "nothing");
	return fail_at(c, cm->line, c->why.data);
}

static int
check_domtree_annotations(test_file *tf, const test_func *tfn,
			  const kl_domtree *dt, kl_buf *report)
{
	const kl_func *f = tfn->func;
	dom_check c = { .tf = tf, .tfn = tfn, .f = f, .dt = dt,
			.bound = kl_func_block_bound(f), .report = report };
	c.placed = cli_alloc(c.bound + 1, 1);
	c.seen = cli_alloc(c.bound + 1, 1);
	c.annotated = cli_alloc(c.bound + 1, 1);
	c.marked = cli_alloc(c.bound + 1, sizeof *c.marked);
	c.blocks = cli_alloc(c.bound + 1, sizeof *c.blocks);
	c.lines = cli_alloc(c.bound + 1, sizeof *c.lines);
	for (kl_block b = kl_func_first_block(f); b.id != KL_NONE;
	     b = kl_block_next(f, b)) {
		c.placed[b.id] = 1;
		c.blocks[c.nblocks] = b;
		c.lines[c.nblocks++] = kl_block_source_line(f, b);
	}
	int failures = 0;
	for (uint32_t k = 0; k < tfn->ncomments; k++) {
		const char *rest;
		size_t len;
		if (test_comment_directive(&tfn->comments[k], "dominates",
					   &rest, &len))
			failures += check_annotation(&c, &tfn->comments[k],
						     rest, len);
	}
	/* Completeness: every block with children says so. */
	for (kl_block b = kl_func_first_block(f); b.id != KL_NONE;
	     b = kl_block_next(f, b)) {
		if (c.annotated[b.id] ||
		    kl_domtree_first_child(dt, b).id == KL_NONE)
			continue;
		children_text(dt, b, &c.kids);
		kl_buf_reset(&c.why);
		kl_buf_printf(&c.why, "block%u dominates %s but its terminator "
			      "has no dominates: annotation", b.id,
			      c.kids.data);
		kl_inst t = kl_block_last_inst(f, b);
		uint32_t line = kl_inst_source_line(f, t);
		if (line == 0)
			line = kl_block_source_line(f, b);
		failures += fail_at(&c, line, c.why.data);
	}
	free(c.placed);
	free(c.seen);
	free(c.annotated);
	free(c.marked);
	free(c.blocks);
	free(c.lines);
	kl_buf_free(&c.name);
	kl_buf_free(&c.why);
	kl_buf_free(&c.kids);
	return failures;
}

int
test_cmd_domtree(test_file *tf, const char *args, kl_buf *report)
{
	(void)args;
	fn_analyses a = analyses_new();
	kl_buf out = { 0 };
	int failures = 0;
	for (uint32_t k = 0; k < tf->nfuncs; k++) {
		const test_func *tfn = &tf->funcs[k];
		compute(&a, tfn->func);
		int bad = check_domtree_annotations(tf, tfn, a.dt, report);
		kl_buf_reset(&out);
		kl_domtree_print(tfn->func, a.dt, a.df, &out);
		bad += test_filecheck(tf, tfn, out.data, out.len, report);
		failures += bad;
	}
	kl_buf_free(&out);
	analyses_free(&a);
	return failures;
}
