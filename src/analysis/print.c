/*
 * print.c -- the analyses as text: what `keel cfg` and `keel domtree`
 * print and what the `print-cfg`, `domtree` and `loops` file tests check.
 *
 * Every listing starts with a line naming the analysis and the function
 * and has one indented line per block (in layout order) or per loop, so a
 * FileCheck directive can name one line. Blocks print as blockN, values
 * as vN, exactly as in the IR text. Formats (docs/analyses.md has
 * examples):
 *
 *   cfg %f                          domtree %f
 *       block0 -> block1 block2         block0
 *       block1 <- block0 -> block3          block1
 *       block3 <- block1 block2         rpo: block0 block1 ...
 *                                       unreachable: block9
 *   loops %f                            frontiers:
 *       loop0 header block1 depth 1: block1 block4
 *           loop1 header block2 depth 2 parent loop0: block2 block3
 *       irreducible0 entries block5 block6: block5 block6 block7
 *   liveness %f
 *       block1 in: v0 v2 out: v0 v3
 *
 * A loop line lists the loop's own blocks (header first): the blocks of
 * the loops inside it are on the lines below it, and indentation stops at
 * MAX_INDENT levels, so the listing stays linear in size even for a deep
 * nest. Nothing is recursive.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis.h"

/* The function's name as the text format writes it. */
static void
put_func_name(kl_buf *out, const kl_func *f)
{
	fmt_sym(out, f->module, f->sym);
}

static void
header(kl_buf *out, const char *what, const kl_func *f)
{
	kl_buf_puts(out, what);
	kl_buf_putc(out, ' ');
	put_func_name(out, f);
	kl_buf_putc(out, '\n');
}

/*
 * Nesting is shown by indentation up to MAX_INDENT levels; deeper lines
 * stay at that indentation (loop lines say their depth anyway, tree lines
 * add it), so that a 100,000-deep nest does not make a quadratic listing.
 */
#define MAX_INDENT 32

static void
indent(kl_buf *out, uint32_t levels)
{
	if (levels > MAX_INDENT)
		levels = MAX_INDENT;
	for (uint32_t k = 0; k < levels; k++)
		buf_add(out, "    ", 4);
}

/* word and then n in decimal: " block12", " v7", of which the listings
 * are mostly made (the length of a literal word is known here). */
static inline void
put_entity(kl_buf *out, const char *word, uint32_t n)
{
	kl_buf_put_entity(out, word, strlen(word), n);
}

/* ---- CFG ---- */

void
kl_cfg_print(const kl_func *f, const kl_cfg *cfg, kl_buf *out)
{
	header(out, "cfg", f);
	for (uint32_t st, b = layout_first(f, &st); b != KL_NONE;
	     b = layout_next(f, b, &st)) {
		put_entity(out, "    block", b);
		kl_block blk = { b };
		uint32_t np = kl_cfg_num_preds(cfg, blk);
		if (np)
			kl_buf_puts(out, " <-");
		for (uint32_t k = 0; k < np; k++)
			put_entity(out, " block",
				   kl_cfg_pred(cfg, blk, k).block.id);
		uint32_t ns = kl_cfg_num_succs(cfg, blk);
		if (ns)
			kl_buf_puts(out, " ->");
		for (uint32_t k = 0; k < ns; k++)
			put_entity(out, " block", kl_cfg_succ(cfg, blk, k).id);
		kl_buf_putc(out, '\n');
	}
}

/*
 * The loop clusters for Graphviz: loops come in preorder with their
 * depths, so a cluster is closed when the next loop is not deeper. Each
 * cluster lists the loop's own blocks; nested clusters hold the rest.
 */
static void
dot_loops(const kl_loops *lf, kl_buf *out)
{
	uint32_t n = kl_loops_count(lf), depth = 0;
	for (uint32_t l = 0; l < n; l++) {
		uint32_t d = kl_loop_depth(lf, (kl_loop){ l });
		for (; depth >= d; depth--) {
			indent(out, depth);
			kl_buf_puts(out, "}\n");
		}
		depth = d;
		indent(out, d);
		kl_buf_printf(out, "subgraph cluster_loop%u {\n", l);
		indent(out, d + 1);
		kl_buf_printf(out, "label=\"loop%u (depth %u)\"; style=dashed; "
			      "color=blue;\n", l, d);
		uint32_t nb;
		const kl_block *bl = kl_loop_blocks(lf, (kl_loop){ l }, &nb);
		for (uint32_t k = 0; k < nb; k++) {
			if (kl_loops_innermost(lf, bl[k]).id != l)
				break; /* own blocks come first */
			indent(out, d + 1);
			kl_buf_printf(out, "block%u;\n", bl[k].id);
		}
	}
	for (; depth >= 1; depth--) {
		indent(out, depth);
		kl_buf_puts(out, "}\n");
	}
}

/*
 * The label of an edge of branch i, its destination j, opened and not
 * closed (" [label=..."): then and else for a brif, default and the
 * table index for a br_table, so that two edges between the same blocks
 * differ. None for a jump, or for a branch whose nedges edges are not
 * its destinations one to one (unverified IR: some destination is no
 * block). Returns whether it wrote one.
 */
static bool
put_edge_label(kl_buf *out, const kl_func *f, kl_inst i, uint32_t j,
	       uint32_t nedges)
{
	kl_opcode op = kl_inst_opcode(f, i);
	if (op != KL_OP_BRIF && op != KL_OP_BR_TABLE)
		return false;
	if (nedges != kl_inst_num_dests(f, i))
		return false;
	if (op == KL_OP_BRIF)
		kl_buf_printf(out, " [label=\"%s\"", j == 0 ? "then" : "else");
	else if (j == 0)
		kl_buf_puts(out, " [label=\"default\"");
	else
		kl_buf_printf(out, " [label=\"%u\"", j - 1);
	return true;
}

void
kl_cfg_print_dot(const kl_func *f, const kl_cfg *cfg, const kl_domtree *dt,
		 const kl_loops *lf, kl_buf *out)
{
	kl_buf_puts(out, "digraph \"");
	put_func_name(out, f);
	kl_buf_puts(out, "\" {\n"
			 "    node [shape=box, fontname=\"monospace\"];\n");
	for (uint32_t st, b = layout_first(f, &st); b != KL_NONE;
	     b = layout_next(f, b, &st)) {
		put_entity(out, "    block", b);
		bool hdr = lf && kl_loops_is_header(lf, (kl_block){ b });
		bool irr = lf && kl_loops_irreducible_region(
					 lf, (kl_block){ b }) != KL_NONE;
		bool dead = dt && !kl_domtree_is_reachable(dt, (kl_block){ b });
		if (hdr || irr || dead)
			kl_buf_printf(out, " [%s%s%s]",
				      hdr ? "style=bold" : "",
				      irr ? (hdr ? ", color=red" : "color=red")
					  : "",
				      dead ? (hdr || irr ? ", style=dotted"
							 : "style=dotted")
					   : "");
		kl_buf_puts(out, ";\n");
	}
	if (lf)
		dot_loops(lf, out);
	for (uint32_t st, b = layout_first(f, &st); b != KL_NONE;
	     b = layout_next(f, b, &st)) {
		kl_block blk = { b };
		uint32_t ns = kl_cfg_num_succs(cfg, blk);
		/* j: the edge's destination in its branch, of the branch's
		 * nedges edges (they are together, in operand order; counted
		 * once a branch, not once an edge: a br_table's edges are
		 * as many as its table) */
		for (uint32_t k = 0, j = 0, nedges = 0; k < ns; k++) {
			kl_cfg_edge e = kl_cfg_succ_edge(cfg, blk, k);
			if (k > 0 && j + 1 < nedges) {
				j++;
			} else {
				j = 0;
				nedges = 1;
				while (k + nedges < ns &&
				       kl_cfg_succ_edge(cfg, blk, k + nedges)
						       .inst.id == e.inst.id)
					nedges++;
			}
			kl_block t = e.block;
			kl_buf_printf(out, "    block%u -> block%u", b, t.id);
			bool label = put_edge_label(out, f, e.inst, j, nedges);
			/* Back edges of natural loops, dashed. */
			bool back = dt && kl_domtree_is_reachable(dt, blk) &&
				    kl_domtree_dominates(dt, t, blk);
			if (back)
				kl_buf_puts(out, label ? ", style=dashed"
						       : " [style=dashed");
			kl_buf_puts(out, label || back ? "];\n" : ";\n");
		}
	}
	kl_buf_puts(out, "}\n");
}

/* ---- dominator tree ---- */

static void
put_block_list(kl_buf *out, const kl_block *b, uint32_t n)
{
	for (uint32_t k = 0; k < n; k++)
		put_entity(out, " block", b[k].id);
}

void
kl_domtree_print(const kl_func *f, const kl_domtree *dt,
		 const kl_domfront *df, kl_buf *out)
{
	header(out, "domtree", f);
	/* The tree, preorder, children in layout order, without recursion:
	 * a stack of the next sibling to visit at each depth. */
	if (dt->entry != KL_NONE && dt_reachable(dt, dt->entry)) {
		uint32_t *stack = kl_malloc((size_t)(dt->npo + 1) *
					    sizeof *stack);
		uint32_t sp = 0, b = dt->entry;
		for (;;) {
			if (b == KL_NONE) {
				if (sp == 0)
					break;
				b = stack[--sp];
				continue;
			}
			indent(out, sp + 1);
			put_entity(out, "block", b);
			if (sp + 1 > MAX_INDENT) {
				put_entity(out, " (depth ", sp);
				kl_buf_putc(out, ')');
			}
			kl_buf_putc(out, '\n');
			stack[sp++] = dt->sibling[b];
			b = dt->child[b];
		}
		free(stack);
	}
	kl_buf_puts(out, "    rpo:");
	for (uint32_t k = dt->npo; k-- > 0;)
		put_entity(out, " block", dt->po[k].id);
	kl_buf_putc(out, '\n');
	bool any = false;
	for (uint32_t st, b = layout_first(f, &st); b != KL_NONE;
	     b = layout_next(f, b, &st))
		if (!dt_reachable(dt, b)) {
			kl_buf_puts(out, any ? "" : "    unreachable:");
			put_entity(out, " block", b);
			any = true;
		}
	if (any)
		kl_buf_putc(out, '\n');
	if (!df)
		return;
	kl_buf_puts(out, "    frontiers:\n");
	if (kl_domfront_too_large(df)) {
		uint64_t lim = kl_domfront_limit(df);
		kl_buf_printf(out, "        (not computed: the frontiers would "
			      "pass the size limit of %llu entr%s)\n",
			      (unsigned long long)lim, lim == 1 ? "y" : "ies");
		return;
	}
	for (uint32_t st, b = layout_first(f, &st); b != KL_NONE;
	     b = layout_next(f, b, &st)) {
		kl_block blk = { b };
		uint32_t n = kl_domfront_size(df, blk);
		if (n == 0)
			continue;
		put_entity(out, "        block", b);
		kl_buf_putc(out, ':');
		for (uint32_t k = 0; k < n; k++)
			put_entity(out, " block",
				   kl_domfront_get(df, blk, k).id);
		kl_buf_putc(out, '\n');
	}
}

/* ---- loops ---- */

void
kl_loops_print(const kl_func *f, const kl_loops *lf, kl_buf *out)
{
	header(out, "loops", f);
	uint32_t n = kl_loops_count(lf);
	for (uint32_t l = 0; l < n; l++) {
		kl_loop lp = { l };
		uint32_t d = kl_loop_depth(lf, lp);
		indent(out, d);
		kl_buf_printf(out, "loop%u header block%u depth %u", l,
			      kl_loop_header(lf, lp).id, d);
		kl_loop par = kl_loop_parent(lf, lp);
		if (par.id != KL_NONE)
			kl_buf_printf(out, " parent loop%u", par.id);
		kl_buf_putc(out, ':');
		uint32_t nb;
		const kl_block *bl = kl_loop_blocks(lf, lp, &nb);
		for (uint32_t k = 0; k < nb; k++) {
			if (kl_loops_innermost(lf, bl[k]).id != l)
				break; /* own blocks first, nested ones after */
			put_entity(out, " block", bl[k].id);
		}
		kl_buf_putc(out, '\n');
	}
	for (uint32_t r = 0; r < kl_loops_num_irreducible(lf); r++) {
		uint32_t ne, nb;
		const kl_block *en = kl_loops_irreducible_entries(lf, r, &ne);
		const kl_block *bl = kl_loops_irreducible_blocks(lf, r, &nb);
		kl_buf_printf(out, "    irreducible%u entries", r);
		put_block_list(out, en, ne);
		kl_buf_putc(out, ':');
		put_block_list(out, bl, nb);
		kl_buf_putc(out, '\n');
	}
}

/* ---- liveness ---- */

void
kl_liveness_print(const kl_func *f, const kl_liveness *lv, kl_buf *out)
{
	header(out, "liveness", f);
	if (kl_liveness_too_large(lv)) {
		/* The limit, so that a user raising it (keel cfg
		 * --live-limit) knows from where; how many entries the sets
		 * would need is unknown: the computation stopped there. */
		uint64_t lim = kl_liveness_limit(lv);
		kl_buf_printf(out, "    (not computed: the live sets would "
			      "pass the size limit of %llu entr%s)\n",
			      (unsigned long long)lim, lim == 1 ? "y" : "ies");
		return;
	}
	for (uint32_t st, b = layout_first(f, &st); b != KL_NONE;
	     b = layout_next(f, b, &st)) {
		uint32_t n;
		kl_block blk = { b };
		const kl_value *s = kl_liveness_live_in(lv, blk, &n);
		kl_buf_printf(out, "    block%u in:", b);
		for (uint32_t k = 0; k < n; k++)
			put_entity(out, " v", s[k].id);
		s = kl_liveness_live_out(lv, blk, &n);
		kl_buf_puts(out, " out:");
		for (uint32_t k = 0; k < n; k++)
			put_entity(out, " v", s[k].id);
		kl_buf_putc(out, '\n');
	}
}

/* ---- structured regions ---- */

/* Is a node of this kind printed with an opening brace (and so closed)? */
static bool
has_braces(kl_region_kind k)
{
	return k == KL_REGION_SCOPE || k == KL_REGION_LOOP ||
	       k == KL_REGION_IF || k == KL_REGION_SWITCH;
}

/* The closing braces of the constructs that end between node q and the
 * next node, whose parent is up: the ancestors of q below up. Each node
 * is closed once over the whole listing, so this stays linear. */
static void
close_braces(const kl_regions *rg, const uint32_t *level, uint32_t q,
	     uint32_t up, kl_buf *out)
{
	while (q != up && q != KL_NONE) {
		if (has_braces(kl_region_kind_of(rg, (kl_region){ q }))) {
			indent(out, level[q]);
			kl_buf_puts(out, "}\n");
		}
		q = kl_region_parent(rg, (kl_region){ q }).id;
	}
}

/* What an IF or SWITCH of block b tests: the first operand of the
 * branch its first edge leaves by (in unverified IR, not always the
 * block's last instruction). */
static void
put_condition(kl_buf *out, const kl_func *f, const kl_cfg *cfg, kl_block b)
{
	kl_inst t = kl_cfg_succ_edge(cfg, b, 0).inst;
	if (kl_inst_num_args(f, t) > 0)
		put_entity(out, " v", kl_inst_arg(f, t, 0).id);
	else
		kl_buf_puts(out, " ?");
}

/*
 * How many arguments edge r passes, its branch in *br and destination
 * in *d. The edge is successor i of its source; in verified IR that is
 * destination i of the branch. In unverified IR a block's edges may come
 * from several branches (the destinations of each in turn, those to
 * unplaced blocks left out), so the destination counts only where it is
 * the edge's target: otherwise no arguments are shown.
 */
static uint32_t
edge_num_args(const kl_func *f, const kl_cfg *cfg, const kl_regions *rg,
	      kl_region r, kl_inst *br, uint32_t *d)
{
	kl_block from = kl_region_source(rg, r), to = kl_region_block(rg, r);
	uint32_t i = kl_region_succ_index(rg, r), first = 0;
	*br = kl_cfg_succ_edge(cfg, from, i).inst;
	while (first < i &&
	       kl_cfg_succ_edge(cfg, from, first).inst.id != br->id)
		first++;
	*d = i - first;
	return kl_inst_dest(f, *br, *d).id == to.id
		       ? kl_inst_dest_num_args(f, *br, *d)
		       : 0;
}

static void
put_region(kl_buf *out, const kl_func *f, const kl_cfg *cfg,
	   const kl_regions *rg, kl_region r, uint32_t lvl)
{
	static const char *const edge_word[] = {
		[KL_REGION_ENTER] = "enter", [KL_REGION_NEXT] = "next",
		[KL_REGION_BREAK] = "break", [KL_REGION_CONTINUE] = "continue",
		[KL_REGION_GOTO] = "goto",
	};
	kl_region_kind k = kl_region_kind_of(rg, r);
	kl_block b = kl_region_block(rg, r);
	uint32_t idx = kl_region_succ_index(rg, r);
	bool edge = k >= KL_REGION_ENTER && k <= KL_REGION_GOTO;
	kl_inst br = KL_NO_INST;
	uint32_t dest = 0;
	uint32_t nargs = edge ? edge_num_args(f, cfg, rg, r, &br, &dest) : 0;
	/* An ENTER passing nothing says no more than the next line, where
	 * its target's tree starts; an IF's first ARM opens with the IF. */
	if ((k == KL_REGION_ENTER && nargs == 0) ||
	    (k == KL_REGION_ARM && idx == 0 &&
	     kl_region_kind_of(rg, kl_region_parent(rg, r)) == KL_REGION_IF))
		return;
	indent(out, lvl);
	switch (k) {
	case KL_REGION_CODE:
		put_entity(out, "block", b.id);
		break;
	case KL_REGION_SCOPE:
	case KL_REGION_LOOP:
		kl_buf_puts(out, k == KL_REGION_SCOPE ? "scope" : "loop");
		put_entity(out, " block", b.id);
		kl_buf_puts(out, " {");
		break;
	case KL_REGION_IF:
	case KL_REGION_SWITCH:
		kl_buf_puts(out, k == KL_REGION_IF ? "if" : "switch");
		put_condition(out, f, cfg, b);
		kl_buf_puts(out, " {");
		break;
	case KL_REGION_ARM:
		if (kl_region_kind_of(rg, kl_region_parent(rg, r)) ==
		    KL_REGION_IF)
			kl_buf_puts(out, "} else {");
		else if (idx == 0)
			kl_buf_puts(out, "default:");
		else
			kl_buf_printf(out, "case %u:", idx - 1);
		break;
	case KL_REGION_ENTER:
	case KL_REGION_NEXT:
	case KL_REGION_BREAK:
	case KL_REGION_CONTINUE:
	case KL_REGION_GOTO:
		kl_buf_puts(out, edge_word[k]);
		put_entity(out, " block", b.id);
		for (uint32_t a = 0; a < nargs; a++) {
			kl_value v = kl_inst_dest_arg(f, br, dest, a);
			kl_buf_puts(out, a ? ", " : "(");
			put_entity(out, "v", v.id);
		}
		if (nargs)
			kl_buf_putc(out, ')');
		break;
	default: { /* LEAVE */
		kl_opcode op = kl_inst_opcode(f, kl_block_last_inst(f, b));
		kl_buf_puts(out, kl_op_is_terminator(op) ? kl_op_name(op)
							 : "end");
		break;
	}
	}
	kl_buf_putc(out, '\n');
}

void
kl_regions_print(const kl_func *f, const kl_cfg *cfg, const kl_regions *rg,
		 kl_buf *out)
{
	header(out, "regions", f);
	uint32_t n = kl_regions_count(rg);
	if (n == 0)
		return;
	/* An ARM is at its IF's or SWITCH's level, the rest one deeper
	 * than their parent; the root's children at 1. */
	uint32_t *level = kl_malloc(n * sizeof *level);
	level[0] = 0;
	for (uint32_t r = 1; r < n; r++) {
		kl_region reg = { r };
		uint32_t p = kl_region_parent(rg, reg).id;
		close_braces(rg, level, r - 1, p, out);
		bool arm = kl_region_kind_of(rg, reg) == KL_REGION_ARM;
		level[r] = level[p] + (arm ? 0 : 1);
		put_region(out, f, cfg, rg, reg, level[r]);
	}
	close_braces(rg, level, n - 1, 0, out);
	free(level);
	bool any = false;
	for (uint32_t st, b = layout_first(f, &st); b != KL_NONE;
	     b = layout_next(f, b, &st)) {
		if (kl_regions_code(rg, (kl_block){ b }).id != KL_NONE)
			continue;
		if (!any)
			kl_buf_puts(out, "    unreachable:");
		any = true;
		put_entity(out, " block", b);
	}
	if (any)
		kl_buf_putc(out, '\n');
}
