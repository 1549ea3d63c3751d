/*
 * idoms.c -- immediate dominators by Lengauer and Tarjan, "A Fast
 * Algorithm for Finding Dominators in a Flowgraph" (TOPLAS 1979), the
 * simple version (path compression, no balancing):
 *
 *  1. semidominators, in decreasing preorder, each the least semi of the
 *     labels that eval finds on the compressed forest paths from the
 *     vertex's predecessors;
 *  2. in the same sweep, each vertex's relative dominator, once the
 *     forest holds the path from its semidominator down to it;
 *  3. idom(w) from that, in increasing preorder.
 *
 * The kernel used to end with semi-NCA's step 2 instead (Georgiadis,
 * PhD thesis, Princeton 2005; LLVM's choice): idom(w) as the nearest
 * common ancestor of parent(w) and sdom(w), by a walk up the tree built
 * so far. That walk is short in practice but quadratic at worst (a chain
 * whose every block branches to a leaf the entry also reaches, searched
 * chain first: 160,000 blocks took 5 s); step 2 here costs one eval a
 * vertex, 1.5% more instructions on promote's huge-1M, and is O(m log n)
 * on every flowgraph, irreducible ones included. Nothing is recursive
 * and eval needs no stack.
 */
#include "idoms.h"

/*
 * The label of least semidominator on v's path in the forest of the
 * numbers >= last (those already swept), compressing the path: each
 * vertex on it then points past its top, with the best label so far.
 * The path is walked up with its links reversed, then down again setting
 * them, so it needs no stack (0 is no number: it ends the way down).
 */
static uint32_t
eval(uint32_t *anc, uint32_t *label, const uint32_t *semi, uint32_t v,
     uint32_t last)
{
	if (anc[v] < last)
		return label[v];
	uint32_t below = 0, y = v, top;
	for (;;) {
		uint32_t up = anc[y];
		anc[y] = below;
		below = y;
		if (anc[up] < last) {
			top = up;
			break;
		}
		y = up;
	}
	uint32_t root = anc[top], p = top;
	for (y = below; y != 0;) {
		uint32_t down = anc[y];
		anc[y] = root;
		if (semi[label[p]] < semi[label[y]])
			label[y] = label[p];
		p = y;
		y = down;
	}
	return label[p];
}

void
ana_idoms(uint32_t n, const uint32_t *start, const uint32_t *preds,
	     uint32_t *idom, uint32_t *anc, uint32_t *semi, uint32_t *label)
{
	anc[1] = 0;
	idom[1] = 0;
	for (uint32_t w = 1; w <= n; w++) {
		semi[w] = w;
		label[w] = w;
		if (w >= 2)
			idom[w] = anc[w]; /* the parent, for now */
	}
	/*
	 * Vertex s's bucket holds the vertices whose semidominator is s,
	 * chained from label[s] through idom[] and ending at s itself
	 * (label[s] is free until s joins the forest, idom[v] once v's own
	 * semidominator is found). When the sweep reaches s, the forest
	 * holds exactly the numbers above s, so eval(v) is the vertex u of
	 * least semidominator on the tree path from s down to v, and v's
	 * relative dominator is u, or s itself if semi(u) = s (Lengauer
	 * and Tarjan's step 3): stored in idom[v].
	 */
	for (uint32_t w = n; w >= 1; w--) {
		for (uint32_t v = label[w], next; v != w; v = next) {
			next = idom[v];
			uint32_t u = eval(anc, label, semi, v, w + 1);
			idom[v] = semi[u] < semi[v] ? u : w;
		}
		label[w] = w;
		if (w == 1)
			break;
		uint32_t s = idom[w];
		for (uint32_t e = start[w]; e < start[w + 1]; e++) {
			uint32_t u = eval(anc, label, semi, preds[e], w + 1);
			if (semi[u] < s)
				s = semi[u];
		}
		semi[w] = s;
		idom[w] = label[s]; /* into s's bucket */
		label[s] = w;
	}
	/* A relative dominator u below the semidominator has v's
	 * immediate dominator (step 4), in increasing preorder: u < v is
	 * done. */
	for (uint32_t w = 2; w <= n; w++)
		if (idom[w] != semi[w])
			idom[w] = idom[idom[w]];
	idom[1] = 0;
}

uint32_t
ana_dfs_number(uint32_t entry, const succ_span *out, const uint32_t *succ,
	       dom_span *dom, uint32_t *vertex, uint32_t *anc)
{
	uint32_t n = 1, w = 1;
	/* dom[b].hi: b's next edge to try, while b is on the path */
	dom[entry] = (dom_span){ 1, out[entry].start };
	vertex[1] = entry;
	anc[1] = 0;
	while (w > 0) {
		uint32_t b = vertex[w], e = dom[b].hi;
		if (e == out[b].start + out[b].n) {
			w = anc[w]; /* done with b: back to its parent */
			continue;
		}
		dom[b].hi = e + 1;
		uint32_t t = succ[e];
		if (dom[t].lo)
			continue;
		dom[t] = (dom_span){ ++n, out[t].start };
		vertex[n] = t;
		anc[n] = w;
		w = n;
	}
	return n;
}

void
ana_dfs_preds(uint32_t n, const succ_span *out, const uint32_t *succ,
	      const dom_span *dom, const uint32_t *vertex, uint32_t *start,
	      uint32_t *preds)
{
	uint32_t at = 0;
	for (uint32_t w = 0; w <= n + 1; w++)
		start[w] = 0;
	for (uint32_t u = 1; u <= n; u++) {
		const succ_span *o = &out[vertex[u]];
		for (uint32_t e = o->start; e < o->start + o->n; e++)
			start[dom[succ[e]].lo]++;
	}
	for (uint32_t w = 1; w <= n; w++) {
		at += start[w];
		start[w] = at; /* the end of w's list, for now */
	}
	start[n + 1] = at;
	/* Each list filled backwards, so its end moves to its start. */
	for (uint32_t u = 1; u <= n; u++) {
		const succ_span *o = &out[vertex[u]];
		for (uint32_t e = o->start; e < o->start + o->n; e++)
			preds[--start[dom[succ[e]].lo]] = u;
	}
}

void
ana_dom_spans(uint32_t n, const uint32_t *idom, const uint32_t *vertex,
	      dom_span *dom, uint32_t *size, uint32_t *next)
{
	for (uint32_t w = 1; w <= n; w++)
		size[w] = 1;
	for (uint32_t w = n; w >= 2; w--)
		size[idom[w]] += size[w];
	next[1] = 2;
	dom[vertex[1]] = (dom_span){ 1, size[1] };
	for (uint32_t w = 2; w <= n; w++) {
		uint32_t lo = next[idom[w]];
		next[idom[w]] += size[w];
		next[w] = lo + 1;
		dom[vertex[w]] = (dom_span){ lo, lo + size[w] - 1 };
	}
}
