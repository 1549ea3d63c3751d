/*
 * cfg.c -- the control-flow graph: the successors and predecessors of every
 * block, and the repair of one block's edges after it changed.
 *
 * An edge is a (block, branch instruction) pair. The successor list of a
 * block holds its edges in branch order: instructions in layout order, and
 * for each the destinations in operand order (brif: then, else; br_table:
 * default first, then the table). The predecessor list of a block holds the
 * edges coming in, ordered by the layout position of the branch (blocks in
 * layout order, then destination order), so it does not change when the IR
 * is printed and parsed again. A br_table naming a block twice, or a brif
 * with both arms to one block, gives two edges: the multiplicity matters to
 * whoever rewrites branch arguments edge by edge.
 *
 * Only terminators branch, and in verified IR the branch is the last
 * instruction of its block, but the CFG is also computed on IR the verifier
 * has not accepted yet: every branch instruction of a block counts,
 * wherever it sits (all instructions are examined, not just the last), a
 * destination that is not a block in the layout (a number out of range, a
 * block never placed) gives no edge, and every link is checked before it
 * is followed (analysis.h: layout_next).
 *
 * Memory: all edge lists live in one pool array; no per-edge malloc.
 * kl_cfg_compute lays the lists out back to back by block number:
 * successors, then predecessors. The edges are found in one sequential
 * pass over the instruction table (the branches of placed blocks), then
 * placed by counting sort; the predecessors are filled by walking the
 * layout, so they come out in the layout order of their branches. A
 * list that must grow during a repair moves to the end of the pool with
 * at least twice the room, leaving a hole. No compaction is needed: the
 * holes a list left add up to less than the room it holds now (each was
 * at most half the next), so holes are under half the pool, whose size
 * follows the most edges each list ever held, not the number of edits;
 * kl_cfg_compute starts it afresh. (A compaction at half the pool was
 * here and could never run.)
 *
 * Repair (kl_cfg_recompute_block): the old successors of b are known from
 * b's cached successor list, not from its instructions, which may have
 * changed; b is dropped from their predecessor lists, its successor list is
 * cleared and its instructions are scanned again. The new edges go into
 * the predecessor lists at their layout position, found by binary search
 * on a per-block position key: keys grow along the layout with gaps, and a
 * block that was just inserted into the layout (a split) gets a key between
 * its neighbours' (all keys are renumbered when there is no gap left).
 * Edges into b stay as they are. The repair assumes the rest of the layout
 * kept its order since the CFG was computed; a pass that reorders blocks
 * recomputes the whole CFG.
 *
 * Complexity: compute is O(instructions + edges); a repair of b costs
 * O(instructions of b + sum of the predecessor-list lengths touched).
 */
#include <stdlib.h>
#include <string.h>

#include "analysis.h"

/* Gap between the layout keys of consecutive blocks after a numbering. */
#define POS_STRIDE ((uint64_t)1 << 32)


kl_cfg *
kl_cfg_new(void)
{
	return kl_calloc(1, sizeof(kl_cfg));
}

void
kl_cfg_free(kl_cfg *cfg)
{
	if (!cfg)
		return;
	free(cfg->region);
	free(cfg->tmp);
	free(cfg->pool);
	free(cfg);
}

/* Small functions (most of them) clear their few entries in one loop:
 * four memset calls would cost more than the stores. */
#define SMALL_BLOCKS 64

/* Make the per-block arrays cover n blocks; new blocks have no edges. */
static void
cover_blocks(kl_cfg *cfg, uint32_t n)
{
	if (n > cfg->blocks_cap || cfg->blocks_cap == 0) {
		uint32_t old = cfg->blocks_cap;
		uint32_t cap = kl_grown_cap(old, n);
		/*
		 * One region for the four arrays, as the dominator tree's
		 * (domtree.c, cover_blocks): large, it goes on huge pages,
		 * where four separate arrays would each be faulted in 4 KB
		 * at a time. 8-byte entries first, for alignment.
		 */
		size_t c = (size_t)cap;
		char *r = kl_alloc_table(c * (sizeof *cfg->pos +
					      2 * sizeof(cfg_list) +
					      sizeof *cfg->mark));
		uint64_t *pos = (uint64_t *)r;
		cfg_list *succ = (cfg_list *)(pos + c), *pred = succ + c;
		uint32_t *mark = (uint32_t *)(pred + c);
		if (old) {
			memcpy(pos, cfg->pos, old * sizeof *pos);
			memcpy(succ, cfg->succ, old * sizeof *succ);
			memcpy(pred, cfg->pred, old * sizeof *pred);
			memcpy(mark, cfg->mark, old * sizeof *mark);
		}
		free(cfg->region);
		cfg->region = r;
		cfg->pos = pos;
		cfg->succ = succ;
		cfg->pred = pred;
		cfg->mark = mark;
		cfg->blocks_cap = cap;
	}
	if (n <= cfg->nblocks)
		return;
	uint32_t k = cfg->nblocks;
	if (n - k <= SMALL_BLOCKS) {
		cfg_list *succ = cfg->succ, *pred = cfg->pred;
		uint64_t *pos = cfg->pos;
		uint32_t *mark = cfg->mark;
		for (uint32_t b = k; b < n; b++) {
			succ[b] = (cfg_list){ 0, 0, 0 };
			pred[b] = (cfg_list){ 0, 0, 0 };
			pos[b] = 0;
			mark[b] = 0;
		}
	} else {
		memset(cfg->succ + k, 0, (n - k) * sizeof *cfg->succ);
		memset(cfg->pred + k, 0, (n - k) * sizeof *cfg->pred);
		memset(cfg->pos + k, 0, (n - k) * sizeof *cfg->pos);
		memset(cfg->mark + k, 0, (n - k) * sizeof *cfg->mark);
	}
	cfg->nblocks = n;
}

static void
pool_reserve(kl_cfg *cfg, uint64_t need)
{
	kl_grow(&cfg->pool, &cfg->pool_cap, sizeof *cfg->pool, need);
}

/*
 * Room in the pool for the ne edges counted in the lists' caps: the lists
 * by block number, successors, then predecessors, back to back.
 */
static void
place_lists(kl_cfg *cfg, uint32_t nb, uint32_t ne)
{
	if (KL_UNLIKELY(2 * (uint64_t)ne > cfg->pool_cap))
		pool_reserve(cfg, 2 * (uint64_t)ne);
	uint32_t at = 0;
	for (uint32_t b = 0; b < nb; b++) {
		cfg->succ[b].start = at;
		at += cfg->succ[b].cap;
	}
	for (uint32_t b = 0; b < nb; b++) {
		cfg->pred[b].start = at;
		at += cfg->pred[b].cap;
	}
	cfg->pool_len = at;
}

/*
 * The destination words of instruction i, if its operands look sane (the
 * CFG must survive IR the verifier would reject). Returns the count.
 */
static uint32_t
dests_of(const kl_func *f, uint32_t i, const uint32_t **dests)
{
	if (!(inst_info(f, i)->flags & KL_OPF_BRANCH))
		return 0;
	uint32_t n = inst_dests(f, i, dests);
	if (n && kl_op_table[f->insts[i].op].format == KL_FMT_BR_TABLE) {
		uint32_t l = f->insts[i].w[1];
		if (l == 0 || l >= f->pool.len || (uint64_t)l + n > f->pool.len)
			return 0;
	}
	return n;
}

/* The target block of a destination word, or KL_NONE if it is no block
 * of the layout. */
static uint32_t
target_of(const kl_func *f, uint32_t dest)
{
	const uint32_t *args;
	uint32_t b, n;
	if (!dest_read(&f->pool, dest, &b, &args, &n))
		return KL_NONE;
	return ana_block_placed(f, b) ? b : KL_NONE;
}

/*
 * Record the edges of branch i of block b in the scratch, as (block,
 * branch, target) from edge number ne on, counting them in the lists'
 * caps. Returns the new number of edges.
 */
static inline uint32_t
add_edges(kl_cfg *cfg, const kl_func *f, uint32_t b, uint32_t i, uint32_t ne)
{
	const uint32_t *d;
	uint32_t n = dests_of(f, i, &d);
	if (KL_UNLIKELY(3 * ((uint64_t)ne + n) > cfg->tmp_cap))
		kl_grow(&cfg->tmp, &cfg->tmp_cap, sizeof *cfg->tmp,
			3 * ((uint64_t)ne + n));
	for (uint32_t k = 0; k < n; k++) {
		uint32_t t = target_of(f, d[k]);
		if (t == KL_NONE)
			continue;
		uint32_t *x = cfg->tmp + 3 * (size_t)ne++;
		x[0] = b;
		x[1] = i;
		x[2] = t;
		cfg->succ[b].cap++;
		cfg->pred[t].cap++;
	}
	return ne;
}

/* Key the placed blocks 1, 2, 3... times POS_STRIDE along the layout. */
static void
number_layout(kl_cfg *cfg, const kl_func *f)
{
	uint64_t k = 0;
	for (uint32_t st, b = layout_first(f, &st); b != KL_NONE;
	     b = layout_next(f, b, &st))
		cfg->pos[b] = (k += POS_STRIDE);
}

/* Order the successor edges of b by the layout position of their branch
 * (stable, so destinations keep their operand order). Only unverified IR
 * has several branches in a block. */
static void
sort_succs(kl_cfg *cfg, const kl_func *f, uint32_t b)
{
	uint32_t n = cfg->succ[b].len;
	if (n < 2) /* (the pool may be NULL: no edges at all) */
		return;
	kl_cfg_edge *e = cfg->pool + cfg->succ[b].start;
	for (uint32_t k = 1; k < n; k++) {
		kl_cfg_edge x = e[k];
		uint32_t j = k, sx = f->nodes[x.inst.id].seq;
		for (; j > 0 && f->nodes[e[j - 1].inst.id].seq > sx; j--)
			e[j] = e[j - 1];
		e[j] = x;
	}
}

/* Room in the scratch for two edges a block up front: grown step by
 * step, a large scratch would be copied and faulted in several times
 * over. */
static void
reserve_edges(kl_cfg *cfg, const kl_func *f)
{
	kl_grow(&cfg->tmp, &cfg->tmp_cap, sizeof *cfg->tmp,
		6 * (uint64_t)f->nblocks);
}

/*
 * One sequential pass over the instruction table finds the branches of
 * placed blocks and their edges (far cheaper than following the layout
 * through every instruction of a large function, and the destination
 * lists of consecutive branches sit close together in the pool). The
 * edges go to a scratch array as (block, branch, target) with counts per
 * block; mark[b] counts b's branches.
 */
static uint32_t
find_edges(kl_cfg *cfg, const kl_func *f)
{
	uint32_t ne = 0;
	reserve_edges(cfg, f);
	for (uint32_t i = 0; i < f->ninsts; i++) {
		if (!(kl_op_table[f->insts[i].op].flags & KL_OPF_BRANCH))
			continue;
		uint32_t b = f->nodes[i].block;
		if (!ana_block_placed(f, b))
			continue;
		cfg->mark[b]++;
		ne = add_edges(cfg, f, b, i, ne);
	}
	return ne;
}

/* Empty lists for the nb blocks of a function about to be computed. */
static void
start_afresh(kl_cfg *cfg, uint32_t nb)
{
	cfg->nblocks = 0;
	cover_blocks(cfg, nb);
	cfg->pool_len = cfg->pool_dead = 0;
	cfg->stamp = 0;
}

void
kl_cfg_compute(kl_cfg *cfg, const kl_func *f)
{
	uint32_t nb = f->nblocks;
	start_afresh(cfg, nb);
	number_layout(cfg, f);
	uint32_t ne = find_edges(cfg, f);

	place_lists(cfg, nb, ne);
	for (uint32_t k = 0; k < ne; k++) {
		const uint32_t *x = cfg->tmp + 3 * (size_t)k;
		cfg_list *s = &cfg->succ[x[0]];
		cfg->pool[s->start + s->len++] =
			(kl_cfg_edge){ { x[2] }, { x[1] } };
	}
	for (uint32_t b = 0; b < nb; b++)
		if (cfg->mark[b] > 1)
			sort_succs(cfg, f, b);

	/* Predecessors in the layout order of their branches: walk the
	 * layout, each block once (a broken layout may show one twice). */
	memset(cfg->mark, 0, nb * sizeof *cfg->mark);
	for (uint32_t st, b = layout_first(f, &st); b != KL_NONE;
	     b = layout_next(f, b, &st)) {
		if (cfg->mark[b])
			continue;
		cfg->mark[b] = 1;
		const cfg_list *s = &cfg->succ[b];
		for (uint32_t k = 0; k < s->len; k++) {
			kl_cfg_edge e = cfg->pool[s->start + k];
			cfg_list *p = &cfg->pred[e.block.id];
			cfg->pool[p->start + p->len++] =
				(kl_cfg_edge){ { b }, e.inst };
		}
	}
	memset(cfg->mark, 0, nb * sizeof *cfg->mark);
}

/* ---- repair ---- */

/* Make room for n more edges in list l (which may move). */
static void
list_room(kl_cfg *cfg, cfg_list *l, uint32_t n)
{
	if ((uint64_t)l->len + n <= l->cap)
		return;
	uint64_t cap = l->cap < 2 ? 2 : (uint64_t)l->cap * 2;
	while (cap < (uint64_t)l->len + n)
		cap *= 2;
	pool_reserve(cfg, (uint64_t)cfg->pool_len + cap);
	if (l->start + l->cap == cfg->pool_len) {
		/* The list is the last thing in the pool: grow in place. */
		cfg->pool_len += (uint32_t)cap - l->cap;
	} else {
		memcpy(cfg->pool + cfg->pool_len, cfg->pool + l->start,
		       l->len * sizeof *cfg->pool);
		cfg->pool_dead += l->cap;
		l->start = cfg->pool_len;
		cfg->pool_len += (uint32_t)cap;
	}
	l->cap = (uint32_t)cap;
}

/* Remove every edge from block b out of list l, keeping the order. */
static void
drop_from(kl_cfg *cfg, cfg_list *l, uint32_t b)
{
	kl_cfg_edge *e = cfg->pool + l->start;
	uint32_t out = 0;
	for (uint32_t k = 0; k < l->len; k++)
		if (e[k].block.id != b)
			e[out++] = e[k];
	l->len = out;
}

/* The key of the nearest keyed block before (dir 0) or after (dir 1) b in
 * the layout; 0 or UINT64_MAX at the ends. */
static uint64_t
neighbour_key(const kl_cfg *cfg, const kl_func *f, uint32_t b, int dir)
{
	uint32_t st = 0;
	for (;;) {
		b = dir ? layout_next(f, b, &st) : layout_prev(f, b, &st);
		if (b == KL_NONE)
			return dir ? UINT64_MAX : 0;
		if (b < cfg->nblocks && cfg->pos[b] != 0)
			return cfg->pos[b];
	}
}

/* Give b (placed) a key that fits between its neighbours' keys. */
static void
place_block(kl_cfg *cfg, const kl_func *f, uint32_t b)
{
	uint64_t lo = neighbour_key(cfg, f, b, 0);
	uint64_t hi = neighbour_key(cfg, f, b, 1);
	uint64_t k = cfg->pos[b];
	if (k != 0 && lo < k && k < hi)
		return;
	if (lo < hi && hi - lo >= 2) {
		if (hi == UINT64_MAX && lo <= UINT64_MAX - 2 * POS_STRIDE)
			cfg->pos[b] = lo + POS_STRIDE;
		else
			cfg->pos[b] = lo + (hi - lo) / 2;
		return;
	}
	/* No gap left (or the layout changed order): renumber; the other
	 * blocks keep their relative order, so the lists stay sorted. */
	number_layout(cfg, f);
}

/* Index in list l of the first edge whose block lies after key k. */
static uint32_t
upper_bound(const kl_cfg *cfg, const cfg_list *l, uint64_t k)
{
	const kl_cfg_edge *e = cfg->pool + l->start;
	uint32_t lo = 0, hi = l->len;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (cfg->pos[e[mid].block.id] <= k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* An edge out of the block being repaired: its target and its index in
 * the block's successor list. */
typedef struct edge_ref {
	uint32_t target, at;
} edge_ref;

static int
cmp_edge_ref(const void *a, const void *b)
{
	const edge_ref *x = a, *y = b;
	if (x->target != y->target)
		return x->target < y->target ? -1 : 1;
	return x->at < y->at ? -1 : x->at > y->at;
}

/*
 * Enter the edges of b's successor list into their targets' predecessor
 * lists. All of b's edges to one target go in at once, in branch order:
 * one per edge would shift the target's list once for every repeat of a
 * br_table destination.
 */
static void
add_pred_edges(kl_cfg *cfg, uint32_t b)
{
	uint32_t n = cfg->succ[b].len;
	if (n == 0)
		return;
	kl_grow(&cfg->tmp, &cfg->tmp_cap, sizeof *cfg->tmp, 2 * (uint64_t)n);
	edge_ref *r = (edge_ref *)(void *)cfg->tmp;
	const kl_cfg_edge *se = cfg->pool + cfg->succ[b].start;
	for (uint32_t k = 0; k < n; k++)
		r[k] = (edge_ref){ se[k].block.id, k };
	qsort(r, n, sizeof *r, cmp_edge_ref);
	for (uint32_t g0 = 0, g1; g0 < n; g0 = g1) {
		uint32_t t = r[g0].target;
		for (g1 = g0 + 1; g1 < n && r[g1].target == t; g1++)
			;
		cfg_list *p = &cfg->pred[t];
		list_room(cfg, p, g1 - g0); /* (may move the pool) */
		uint32_t at = upper_bound(cfg, p, cfg->pos[b]);
		kl_cfg_edge *e = cfg->pool + p->start;
		memmove(e + at + (g1 - g0), e + at,
			(p->len - at) * sizeof *e);
		se = cfg->pool + cfg->succ[b].start;
		for (uint32_t j = g0; j < g1; j++)
			e[at + j - g0] =
				(kl_cfg_edge){ { b }, se[r[j].at].inst };
		p->len += g1 - g0;
	}
}

void
kl_cfg_recompute_block(kl_cfg *cfg, const kl_func *f, kl_block blk)
{
	uint32_t b = blk.id;
	if (b >= f->nblocks)
		return;
	cover_blocks(cfg, f->nblocks);

	/* Forget the old edges out of b, each predecessor list once. */
	if (++cfg->stamp == 0) {
		memset(cfg->mark, 0, cfg->nblocks * sizeof *cfg->mark);
		cfg->stamp = 1;
	}
	cfg_list *s = &cfg->succ[b];
	for (uint32_t k = 0; k < s->len; k++) {
		uint32_t t = cfg->pool[s->start + k].block.id;
		if (cfg->mark[t] == cfg->stamp)
			continue;
		cfg->mark[t] = cfg->stamp;
		drop_from(cfg, &cfg->pred[t], b);
	}
	s->len = 0;
	if (!ana_block_placed(f, b)) {
		cfg->pos[b] = 0;
		return;
	}

	place_block(cfg, f, b);
	for (uint32_t ist, i = insts_first(f, b, &ist); i != KL_NONE;
	     i = insts_next(f, i, &ist)) {
		const uint32_t *d;
		uint32_t n = dests_of(f, i, &d);
		for (uint32_t k = 0; k < n; k++) {
			uint32_t t = target_of(f, d[k]);
			if (t == KL_NONE)
				continue;
			list_room(cfg, s, 1);
			cfg->pool[s->start + s->len++] =
				(kl_cfg_edge){ { t }, { i } };
		}
	}
	add_pred_edges(cfg, b);
}

/* ---- queries ---- */

uint32_t
kl_cfg_num_succs(const kl_cfg *cfg, kl_block b)
{
	return cfg_nsuccs(cfg, b.id);
}

kl_block
kl_cfg_succ(const kl_cfg *cfg, kl_block b, uint32_t i)
{
	if (i >= cfg_nsuccs(cfg, b.id))
		return KL_NO_BLOCK;
	return cfg->pool[cfg->succ[b.id].start + i].block;
}

kl_cfg_edge
kl_cfg_succ_edge(const kl_cfg *cfg, kl_block b, uint32_t i)
{
	if (i >= cfg_nsuccs(cfg, b.id))
		return (kl_cfg_edge){ KL_NO_BLOCK, KL_NO_INST };
	return cfg->pool[cfg->succ[b.id].start + i];
}

uint32_t
kl_cfg_num_preds(const kl_cfg *cfg, kl_block b)
{
	return cfg_npreds(cfg, b.id);
}

kl_cfg_edge
kl_cfg_pred(const kl_cfg *cfg, kl_block b, uint32_t i)
{
	if (i >= cfg_npreds(cfg, b.id))
		return (kl_cfg_edge){ KL_NO_BLOCK, KL_NO_INST };
	return cfg->pool[cfg->pred[b.id].start + i];
}

static bool
lists_equal(const kl_cfg *a, const cfg_list *la, const kl_cfg *b,
	    const cfg_list *lb)
{
	uint32_t na = la ? la->len : 0, nb = lb ? lb->len : 0;
	if (na != nb)
		return false;
	for (uint32_t k = 0; k < na; k++) {
		kl_cfg_edge x = a->pool[la->start + k];
		kl_cfg_edge y = b->pool[lb->start + k];
		if (x.block.id != y.block.id || x.inst.id != y.inst.id)
			return false;
	}
	return true;
}

bool
kl_cfg_equal(const kl_cfg *a, const kl_cfg *b, kl_block *differs)
{
	uint32_t n = a->nblocks > b->nblocks ? a->nblocks : b->nblocks;
	for (uint32_t k = 0; k < n; k++) {
		const cfg_list *sa = k < a->nblocks ? &a->succ[k] : NULL;
		const cfg_list *sb = k < b->nblocks ? &b->succ[k] : NULL;
		const cfg_list *pa = k < a->nblocks ? &a->pred[k] : NULL;
		const cfg_list *pb = k < b->nblocks ? &b->pred[k] : NULL;
		if (!lists_equal(a, sa, b, sb) || !lists_equal(a, pa, b, pb)) {
			if (differs)
				*differs = (kl_block){ k };
			return false;
		}
	}
	if (differs)
		*differs = KL_NO_BLOCK;
	return true;
}
