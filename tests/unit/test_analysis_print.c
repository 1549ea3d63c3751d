/*
 * test_analysis_print.c -- the listing no file test can read: the
 * Graphviz digraph of `keel cfg --dot` (kl_cfg_print_dot), whose marks
 * come from the dominator tree and the loop forest: loop headers bold,
 * back edges dashed, blocks of irreducible regions red, unreachable
 * blocks dotted; the edges of a brif labelled then and else, a br_table's
 * default and entry index. (`test print-cfg` prints the text listing only, and
 * tests/scripts.sh checks --dot's usage errors, not its output.)
 */
#include <stdlib.h>
#include <string.h>

#include "keel.h"
#include "unit.h"

/*
 * %loop: block1 heads a natural loop (bold, and a cluster holding block1
 * and block2) whose latch block2 branches back to it (dashed); the
 * forward edges, block1 -> block2 among them, stay plain.
 * %irr: block1 and block2 form a cycle entered at both (red, no header,
 * no dashed edge: neither dominates the other); block3 is unreachable
 * (dotted) and branches into the cycle; block4 loops on itself (bold, a
 * cluster of its own, its self-edge dashed).
 * %nest: two loops side by side, each cluster closed before the next
 * opens, and a third inside the second (block4, whose edge back to
 * block3 is dashed too); the unreachable block6 loops on itself, a
 * plain edge: it is in no loop.
 */
static const char text[] =
	"function %loop(i32) -> i32 {\n"
	"block0(v0: i32):\n"
	"    jump block1\n"
	"block1:\n"
	"    brif v0, block2, block3\n"
	"block2:\n"
	"    jump block1\n"
	"block3:\n"
	"    return v0\n"
	"}\n"
	"function %irr(i32) -> i32 {\n"
	"block0(v0: i32):\n"
	"    brif v0, block1, block2\n"
	"block1:\n"
	"    jump block2\n"
	"block2:\n"
	"    brif v0, block1, block4\n"
	"block3:\n"
	"    jump block2\n"
	"block4:\n"
	"    brif v0, block4, block5\n"
	"block5:\n"
	"    return v0\n"
	"}\n"
	"function %nest(i32) -> i32 {\n"
	"block0(v0: i32):\n"
	"    brif v0, block1, block3\n"
	"block1:\n"
	"    brif v0, block2, block5\n"
	"block2:\n"
	"    jump block1\n"
	"block3:\n"
	"    brif v0, block4, block5\n"
	"block4:\n"
	"    brif v0, block4, block3\n"
	"block5:\n"
	"    return v0\n"
	"block6:\n"
	"    jump block6\n"
	"}\n"
	"function %table(i32) -> i32 {\n"
	"block0(v0: i32):\n"
	"    br_table v0, block2, [block1, block2, block1]\n"
	"block1:\n"
	"    return v0\n"
	"block2:\n"
	"    return v0\n"
	"}\n";

static const char loop_dot[] =
	"digraph \"%loop\" {\n"
	"    node [shape=box, fontname=\"monospace\"];\n"
	"    block0;\n"
	"    block1 [style=bold];\n"
	"    block2;\n"
	"    block3;\n"
	"    subgraph cluster_loop0 {\n"
	"        label=\"loop0 (depth 1)\"; style=dashed; color=blue;\n"
	"        block1;\n"
	"        block2;\n"
	"    }\n"
	"    block0 -> block1;\n"
	"    block1 -> block2 [label=\"then\"];\n"
	"    block1 -> block3 [label=\"else\"];\n"
	"    block2 -> block1 [style=dashed];\n"
	"}\n";

static const char irr_dot[] =
	"digraph \"%irr\" {\n"
	"    node [shape=box, fontname=\"monospace\"];\n"
	"    block0;\n"
	"    block1 [color=red];\n"
	"    block2 [color=red];\n"
	"    block3 [style=dotted];\n"
	"    block4 [style=bold];\n"
	"    block5;\n"
	"    subgraph cluster_loop0 {\n"
	"        label=\"loop0 (depth 1)\"; style=dashed; color=blue;\n"
	"        block4;\n"
	"    }\n"
	"    block0 -> block1 [label=\"then\"];\n"
	"    block0 -> block2 [label=\"else\"];\n"
	"    block1 -> block2;\n"
	"    block2 -> block1 [label=\"then\"];\n"
	"    block2 -> block4 [label=\"else\"];\n"
	"    block3 -> block2;\n"
	"    block4 -> block4 [label=\"then\", style=dashed];\n"
	"    block4 -> block5 [label=\"else\"];\n"
	"}\n";

static const char nest_dot[] =
	"digraph \"%nest\" {\n"
	"    node [shape=box, fontname=\"monospace\"];\n"
	"    block0;\n"
	"    block1 [style=bold];\n"
	"    block2;\n"
	"    block3 [style=bold];\n"
	"    block4 [style=bold];\n"
	"    block5;\n"
	"    block6 [style=dotted];\n"
	"    subgraph cluster_loop0 {\n"
	"        label=\"loop0 (depth 1)\"; style=dashed; color=blue;\n"
	"        block1;\n"
	"        block2;\n"
	"    }\n"
	"    subgraph cluster_loop1 {\n"
	"        label=\"loop1 (depth 1)\"; style=dashed; color=blue;\n"
	"        block3;\n"
	"        subgraph cluster_loop2 {\n"
	"            label=\"loop2 (depth 2)\"; style=dashed; "
	"color=blue;\n"
	"            block4;\n"
	"        }\n"
	"    }\n"
	"    block0 -> block1 [label=\"then\"];\n"
	"    block0 -> block3 [label=\"else\"];\n"
	"    block1 -> block2 [label=\"then\"];\n"
	"    block1 -> block5 [label=\"else\"];\n"
	"    block2 -> block1 [style=dashed];\n"
	"    block3 -> block4 [label=\"then\"];\n"
	"    block3 -> block5 [label=\"else\"];\n"
	"    block4 -> block4 [label=\"then\", style=dashed];\n"
	"    block4 -> block3 [label=\"else\", style=dashed];\n"
	"    block6 -> block6;\n"
	"}\n";

/* A br_table's edges are told apart by their labels: the default, then
 * the index of each table entry, one edge per entry as the CFG has them. */
static const char table_dot[] =
	"digraph \"%table\" {\n"
	"    node [shape=box, fontname=\"monospace\"];\n"
	"    block0;\n"
	"    block1;\n"
	"    block2;\n"
	"    block0 -> block2 [label=\"default\"];\n"
	"    block0 -> block1 [label=\"0\"];\n"
	"    block0 -> block2 [label=\"1\"];\n"
	"    block0 -> block1 [label=\"2\"];\n"
	"}\n";

/* Without the tree and the loops (both may be NULL): no marks. */
static const char loop_plain_dot[] =
	"digraph \"%loop\" {\n"
	"    node [shape=box, fontname=\"monospace\"];\n"
	"    block0;\n"
	"    block1;\n"
	"    block2;\n"
	"    block3;\n"
	"    block0 -> block1;\n"
	"    block1 -> block2 [label=\"then\"];\n"
	"    block1 -> block3 [label=\"else\"];\n"
	"    block2 -> block1;\n"
	"}\n";

/* The digraph of function name in the module parsed from text (plain:
 * given no tree and no loops). */
static void
check_dot(kl_module *m, const char *name, const char *want, bool plain)
{
	kl_func *f = kl_sym_func(m, kl_module_lookup(m, name, strlen(name)));
	CHECK(f != NULL);
	if (!f)
		return;
	kl_cfg *cfg = kl_cfg_new();
	kl_domtree *dt = kl_domtree_new();
	kl_loops *lf = kl_loops_new();
	kl_cfg_compute(cfg, f);
	kl_domtree_compute(dt, f, cfg);
	kl_loops_compute(lf, f, cfg, dt);
	kl_buf out = { 0 };
	kl_cfg_print_dot(f, cfg, plain ? NULL : dt, plain ? NULL : lf, &out);
	CHECK_EQ_STR(out.data, want);
	kl_buf_free(&out);
	kl_loops_free(lf);
	kl_domtree_free(dt);
	kl_cfg_free(cfg);
}

static void
test_dot(void)
{
	kl_module *m = NULL;
	kl_diags d = { 0 };
	CHECK(kl_parse_module(text, sizeof text - 1, NULL, &m, &d) == KL_OK);
	kl_diags_free(&d);
	if (!m)
		return;
	check_dot(m, "loop", loop_dot, false);
	check_dot(m, "irr", irr_dot, false);
	check_dot(m, "nest", nest_dot, false);
	check_dot(m, "table", table_dot, false);
	check_dot(m, "loop", loop_plain_dot, true);
	kl_module_free(m);
}

int
main(void)
{
	UNIT_RUN(test_dot);
	return unit_report("analysis_print");
}
