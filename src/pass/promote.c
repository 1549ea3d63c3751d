/*
 * promote.c -- promote stack slots to SSA values (mem2reg).
 *
 * Front ends put every local variable in an `alloca` and read and write it
 * with loads and stores. This pass turns such memory into SSA values and
 * block parameters, following the rules of docs/passes.md:
 *
 * 1. Find the allocas, every address derived from one by `iadd_imm`
 *    chains and every use of an address in one walk over the layout
 *    (exact when addresses are defined before their uses in the layout,
 *    as in the entry block; otherwise a breadth-first search over the
 *    iadd_imm chains of every alloca, then a walk for the uses). An
 *    alloca is promoted when it is in the entry block (ALLOCA always has
 *    a constant size), no address derived from it is used except as the
 *    address of a load or store (anything else: it escapes), and its
 *    accesses form slots (offset, width) that lie inside it and do not
 *    overlap.
 * 2. For each slot, candidate parameters on the iterated dominance
 *    frontier of the entry block and the reachable blocks that store to it
 *    (Cytron et al. 1991): minimal SSA. A big function with few slots
 *    places them all at once, with bit sets of slots per block.
 * 3. Rename along the dominator tree in preorder, with an undo log instead
 *    of per-slot stacks: stores set the slot's current value and
 *    disappear, loads become that value (an alias, or the minimal
 *    conversion: bitcast, uextend/sextend, with ireduce at truncating
 *    stores), branches record the current values for their targets'
 *    candidates. Before any store a slot holds 0; so does every load in an
 *    unreachable block, and unreachable branches pass 0.
 * 4. Prune: keep the candidates whose value reaches a load, directly or
 *    through other kept candidates. These are exactly the blocks where the
 *    slot is live on entry, so the result is pruned SSA (Choi, Cytron
 *    and Ferrante 1991), found in time linear in the minimal SSA rather than by
 *    a liveness walk per slot (which is what makes LLVM's mem2reg grow faster
 *    than linearly). Survivors get numbers, parameters and branch arguments.
 * 5. Remove the allocas and the address arithmetic that only fed them
 *    (and any alias of those addresses), and resolve the aliases the
 *    loads left behind in every operand that may name one.
 *
 * Functions not in strict SSA form, or that call setjmp and friends, are
 * left alone. New values take numbers above the highest, in a fixed order
 * (conversions in renaming order, then parameters by block number and,
 * within a block, by slot), so the output is the same on every run.
 * Cost: linear in the function plus the frontier sets the slots touch.
 * Most functions are small, so per-function costs matter as much:
 * scratch arrays are kept from one function to the next, dominance is
 * computed only when a slot needs it (as bit sets for a function of at
 * most 64 blocks, else as compact arrays, whose successor lists the
 * first walk reads as it passes the terminators), and the
 * promoted allocas and their address arithmetic are removed from lists
 * the first walk made; the aliases loads became are resolved in the
 * users of loaded values that walk listed (a second walk only when a use
 * may come before its definition in the layout). In a big function
 * fresh memory costs most: arrays are sized once from bounds
 * (reserve_fresh), not doubled through copies, and the arrays per block
 * of placement and pruning take words the dominance computation leaves
 * free.
 */
#include <stdio.h>
#include <stdlib.h>

#include "pass.h"
#include "promote.h"

static const char *const reason_text[] = {
	[PROMOTED] = "promoted",
	[KEPT_NOT_ENTRY] = "not in the entry block",
	[KEPT_DYNAMIC] = "dynamic size",
	[KEPT_ESCAPES] = "its address escapes",
	[KEPT_OUT_OF_BOUNDS] = "an access lies outside it",
	[KEPT_OVERLAP] = "accesses overlap",
	[KEPT_SETJMP] = "the function calls setjmp or takes its address",
	[KEPT_NOT_SSA] = "the function is not in strict SSA form",
	[KEPT_MALFORMED] = "the function's control flow is malformed",
	[KEPT_TOO_COSTLY] = "too many block parameters would be needed",
	[KEPT_FRONTIERS] = ("the function's dominance frontiers are past "
			    "their size limit"),
	[KEPT_FRONTIER_WALK] = ("placing its parameters would read the "
				"dominance frontiers too many times"),
};

static const char *const count_name[NCOUNTS] = { "slots", "params",
						 "promoted", "kept" };

/*
 * Add the function's counts to the report's counters, all of them, zeros
 * too: every report then names the same counters in the same order
 * (`keel opt --stats`), whatever the first function held. The report
 * looks counters up by name, comparing strings; once a counter is in the
 * report its place is remembered (and checked: the name pointer is this
 * file's). Once per function, in one call, not four.
 */
static void
report_counts(promoter *p, const uint32_t *n)
{
	kl_pass_report *r = p->rep;
	if (!r)
		return;
	for (int which = 0; which < NCOUNTS; which++) {
		uint32_t at = p->count_at[which];
		if (KL_LIKELY(at < r->num_counters &&
			      r->counters[at].name == count_name[which])) {
			r->counters[at].value += n[which];
			continue;
		}
		kl_pass_report_count(r, count_name[which], n[which]);
		for (at = 0; at < r->num_counters; at++)
			if (r->counters[at].name == count_name[which])
				p->count_at[which] = at;
	}
}

/* ---- parameter placement ---- */

/* Past the budget: drop slot s's alloca's candidates (they start at
 * first) and keep that alloca and every later one, saying why (reason).
 * All of the alloca's slots go, those before s too: its accesses must
 * stay as they are. */
static void
give_up_from(promoter *p, uint32_t s, uint32_t first,
	     enum kept_reason reason)
{
	s = p->allocas[p->slots[s].alloca].slot; /* its first */
	p->nphis = first;
	for (uint32_t t = s; t < p->nslots; t++) {
		alloca_info *a = &p->allocas[p->slots[t].alloca];
		if (a->reason == PROMOTED) {
			a->reason = (uint8_t)reason;
			a->why_inst = KL_NONE;
		}
	}
	for (uint32_t k = 0; k < p->nacc; k++) {
		access *x = &p->acc[k];
		if (x->slot != KL_NONE && x->slot >= s)
			x->slot = KL_NONE;
	}
	p->nslots = s;
}

/*
 * A block can need a parameter for slot s only if s may be live there.
 * One cheap, exact-when-it-applies test: if a store block D dominates
 * every block that loads s (and D's first access to s is the store), s is
 * dead on entry to every block D does not dominate — a path from there to
 * a load without a store, preceded by a path from the entry that avoids
 * D, would reach the load avoiding D. This keeps the frontier walk of a
 * loop counter inside its own loop: without it a nest of depth d has
 * minimal SSA of size d^2.
 *
 * The same pass over the slot's sites starts its frontier walk: each
 * reachable block that stores to it (but the entry, which is there
 * already) goes on the work list, marked queued with stamp. A big
 * function's per-block arrays are cache misses at random: its span is
 * read once a block, here, not again to start the walk.
 */
/* D (KL_NONE: no reachable store), the reachable store block first in
 * preorder, with its span, if its own first access is the store
 * (!d_load_first) and every reachable load's lo lies in its span
 * (load_lo .. load_hi; none: load_lo UINT32_MAX); else KL_NONE. */
static inline uint32_t
store_over_loads(uint32_t d, dom_span ds, bool d_load_first,
		 uint32_t load_lo, uint32_t load_hi)
{
	if (d == KL_NONE || d_load_first)
		return KL_NONE; /* no store, or a load before the first */
	if (load_lo != UINT32_MAX && (load_lo < ds.lo || load_hi > ds.hi))
		return KL_NONE;
	return d;
}

static uint32_t
dominating_store(promoter *p, uint32_t s, uint32_t stamp,
		 uint32_t (*mark)[2], uint32_t *work, uint32_t *nwork)
{
	/*
	 * One pass over the sites, reading each block's span once: a
	 * slot's sites are in layout order, so a block's come together
	 * (and it is queued once). D is the reachable store block first in
	 * preorder (lowest lo); it dominates every reachable load block
	 * when all their lo lie in D's span.
	 */
	const uint32_t *site = p->slot_site.a;
	const dom_span *span = p->dom.span;
	uint32_t lo = p->slot_start.a[s], hi = p->slot_start.a[s + 1];
	uint32_t d = KL_NONE, prev = KL_NONE, entry = p->f->first_block;
	uint32_t n = *nwork;
	dom_span ds = { UINT32_MAX, 0 }, sp = { 0, 0 };
	bool d_load_first = false, load_first = false, queued = false;
	uint32_t load_lo = UINT32_MAX, load_hi = 0;
	for (uint32_t k = lo; k < hi; k++) {
		uint32_t b = site[k] >> 1;
		bool is_store = site[k] & 1;
		if (b != prev) {
			prev = b;
			sp = span[b];
			load_first = !is_store;
			queued = b == entry;
		}
		if (sp.lo == 0) /* not reachable */
			continue;
		if (is_store) {
			if (!queued) {
				queued = true;
				mark[b][0] = stamp;
				work[n++] = b;
			}
			if (sp.lo < ds.lo) {
				d = b;
				ds = sp;
				d_load_first = load_first;
			}
		} else {
			load_lo = sp.lo < load_lo ? sp.lo : load_lo;
			load_hi = sp.lo > load_hi ? sp.lo : load_hi;
		}
	}
	*nwork = n;
	return store_over_loads(d, ds, d_load_first, load_lo, load_hi);
}

static void
add_candidate(promoter *p, uint32_t block, uint32_t s)
{
	if (p->nphis == p->cands_cap)
		kl_grow(&p->cands, &p->cands_cap, sizeof *p->cands,
			p->nphis + 1);
	p->cands[p->nphis++] = (cand){ block, s };
}

/* The slot placed last by place_slot_lists: its first worklist (in
 * p->seed; nseed 0 before the first slot, as a worklist holds the entry
 * at least), its dominating store and its candidates' range in p->cands. */
typedef struct last_slot {
	uint32_t nseed, dom, first, end;
} last_slot;

/* Slot s's candidates from the frontier lists: a worklist (the entry and
 * the store blocks, queued by dominating_store), and per block marks
 * s + 1 ([0] queued, [1] placed; cleared per function). Returns how many
 * frontier entries it read.
 *
 * A slot that starts from the same worklist and dominating store as the
 * one before it (an alloca's slots; locals a front end stores in the
 * same blocks) has the same candidates: they are copied, no list read.
 * In a nest of n loops the lists of n candidates hold n^2 entries, read
 * again for every slot: 400 slots stored in the entry and in the body of
 * a nest 3,200 deep read 2 x 10^9 entries (1.5 s) for the candidates of
 * one slot.
 */
static uint64_t
place_slot_lists(promoter *p, uint32_t s, uint32_t (*mark)[2],
		 uint32_t *work, last_slot *last)
{
	uint64_t read = 0;
	uint32_t stamp = s + 1;
	uint32_t entry = p->f->first_block, nwork = 0;
	mark[entry][0] = stamp;
	work[nwork++] = entry;
	uint32_t dom = dominating_store(p, s, stamp, mark, work, &nwork);
	if (last->nseed == nwork && last->dom == dom &&
	    memcmp(p->seed.a, work, (size_t)nwork * sizeof *work) == 0) {
		uint32_t first = p->nphis;
		for (uint32_t k = last->first; k < last->end; k++)
			add_candidate(p, p->cands[k].block, s);
		last->first = first;
		last->end = p->nphis;
		return 0;
	}
	uint32_t *seed = room(&p->seed, (uint64_t)nwork + 1);
	memcpy(seed, work, (size_t)nwork * sizeof *work);
	*last = (last_slot){ nwork, dom, p->nphis, 0 };
	const uint32_t *df = p->dom.df.a, *df_start = p->dom.df_start;
	while (nwork) {
		uint32_t x = work[--nwork];
		read += df_start[x + 1] - df_start[x];
		for (uint32_t k = df_start[x]; k < df_start[x + 1]; k++) {
			uint32_t y = df[k];
			if (mark[y][1] == stamp ||
			    (dom != KL_NONE && !dominates(p, dom, y)))
				continue;
			mark[y][1] = stamp;
			add_candidate(p, y, s);
			if (mark[y][0] != stamp) {
				mark[y][0] = stamp;
				work[nwork++] = y;
			}
		}
	}
	last->end = p->nphis;
	return read;
}

/* dominating_store from the sets: the reachable store block first in
 * preorder, if it dominates every reachable load and its own first
 * access is the store. */
static uint32_t
dominating_store_sets(const promoter *p, const slot_sets *x)
{
	const tiny_cfg *t = &p->t;
	uint64_t stores = x->stores & t->reach;
	if (!stores)
		return KL_NONE;
	uint32_t d = kl_ctz64(stores);
	for (stores &= stores - 1; stores; stores &= stores - 1) {
		uint32_t b = kl_ctz64(stores);
		if (t->b[b].pre < t->b[d].pre)
			d = b;
	}
	uint64_t d_bit = (uint64_t)1 << d;
	if ((x->load_first & d_bit) || (x->loads & t->reach & ~t->b[d].below))
		return KL_NONE;
	return d;
}

/* Slot s's candidates from the bit sets of a tiny function (an
 * unreachable block's frontier is empty). */
static void
place_slot_sets(promoter *p, uint32_t s)
{
	const tiny_cfg *t = &p->t;
	const slot_sets *x = &p->sets[s];
	uint32_t dom = dominating_store_sets(p, x);
	uint64_t defs = (uint64_t)1 << t->entry | x->stores;
	uint64_t allowed = dom != KL_NONE ? t->b[dom].below : ~(uint64_t)0;
	uint64_t placed = 0;
	for (uint64_t work = defs; work;) {
		uint64_t add = t->b[kl_ctz64(work)].df & allowed & ~placed;
		work &= work - 1;
		placed |= add;
		work |= add & ~defs;
	}
	for (; placed; placed &= placed - 1)
		add_candidate(p, kl_ctz64(placed), s);
}

/* ---- placement of a few slots at once ---- */

static inline uint64_t
word_bit(uint32_t s)
{
	return (uint64_t)1 << (s & 63);
}

static inline bool
has_slot(const uint64_t *set, uint32_t s)
{
	return (set[s >> 6] >> (s & 63)) & 1;
}

static inline bool
set_empty(const uint64_t *set)
{
	return (set[0] | set[1]) == 0;
}

/* What the sweep below gathers of a slot, as dominating_store does from
 * its sites. */
typedef struct slot_sweep {
	uint32_t last;     /* the block of its last access so far */
	bool load_first;   /* that block's first access to it is a load */
	uint32_t d;        /* the reachable store block first in preorder */
	dom_span ds;       /* its span */
	bool d_load_first;
	uint32_t load_lo, load_hi; /* the reachable loads' lowest, highest lo */
} slot_sweep;

/*
 * The start of placing every slot at once: one sweep over the accesses,
 * block by block in layout order (in place of each slot's sites, read
 * slot by slot at random), sets each reachable block's queued slots to
 * those it stores (the entry's to all) and puts it on the work map; and
 * finds each slot's dominating store (dominating_store's test), in
 * dom_of, with the slots it limits (a store other than the entry's) in
 * limited. A slot the entry block accesses is limited by no store: the
 * sweep follows only the others (usually none or few).
 */
static void
sets_start(promoter *p, block_set *bs, uint64_t *work_map,
	   uint32_t *dom_of, uint64_t *limited)
{
	const kl_func *f = p->f;
	uint32_t entry = f->first_block;
	const dom_span *span = p->dom.span;
	const uint32_t *block_acc = p->block_acc.a;
	const uint32_t *block_nacc = p->block_nacc.a;
	/* The slots the entry block does not access: the others have no
	 * store that limits them (the entry's, first in preorder, or none
	 * as a load in the entry precedes every other store block). */
	uint64_t open[SET_WORDS] = { ~(uint64_t)0, ~(uint64_t)0 };
	for (uint32_t k = 0; k < block_nacc[entry]; k++) {
		uint32_t s = p->acc[block_acc[entry] + k].slot;
		if (s != KL_NONE)
			open[s >> 6] &= ~word_bit(s);
	}
	slot_sweep sw[SET_SLOTS];
	for (uint32_t s = 0; s < p->nslots; s++) {
		bs[entry].queued[s >> 6] |= word_bit(s);
		sw[s] = (slot_sweep){ KL_NONE, false, KL_NONE,
				      { UINT32_MAX, 0 }, false, UINT32_MAX, 0 };
	}
	work_map[entry >> 6] |= word_bit(entry);
	_Static_assert(SET_WORDS == 2, "the sweep keeps two words of slots");
	uint64_t open0 = open[0], open1 = open[1];
	for (uint32_t b = entry; b != KL_NONE; b = f->blocks[b].next) {
		dom_span sp = span[b];
		if (sp.lo == 0) /* not reachable */
			continue;
		/* The block's stores in two words of registers, not an
		 * array, which the compiler keeps in memory: each access
		 * would wait for the last one's store to it. */
		uint64_t stores0 = 0, stores1 = 0;
		const access *x = p->acc + block_acc[b];
		for (uint32_t k = block_nacc[b]; k > 0; k--, x++) {
			uint32_t s = x->slot;
			if (s == KL_NONE)
				continue;
			/* Without a branch on load or store, or on the word:
			 * they come in no order a predictor learns. */
			unsigned is_store = access_is_store(x);
			uint64_t bit = (uint64_t)is_store << (s & 63);
			uint64_t high = -(uint64_t)(s >> 6); /* s < 128 */
			stores0 |= bit & ~high;
			stores1 |= bit & high;
			if (!(((s >> 6 ? open1 : open0) >> (s & 63)) & 1))
				continue;
			slot_sweep *w = &sw[s];
			bool first = w->last != b;
			w->last = b;
			w->load_first = first ? !is_store : w->load_first;
			uint32_t lo = is_store ? UINT32_MAX : sp.lo;
			uint32_t hi = is_store ? 0 : sp.lo;
			w->load_lo = lo < w->load_lo ? lo : w->load_lo;
			w->load_hi = hi > w->load_hi ? hi : w->load_hi;
			if (KL_UNLIKELY(is_store && sp.lo < w->ds.lo)) {
				w->d = b;
				w->ds = sp;
				w->d_load_first = w->load_first;
			}
		}
		if (b != entry && (stores0 | stores1)) {
			bs[b].queued[0] = stores0;
			bs[b].queued[1] = stores1;
			work_map[b >> 6] |= word_bit(b);
		}
	}
	for (uint32_t s = 0; s < p->nslots; s++) {
		const slot_sweep *w = &sw[s];
		uint32_t d = !has_slot(open, s) ? entry
			     : store_over_loads(w->d, w->ds, w->d_load_first,
						w->load_lo, w->load_hi);
		dom_of[s] = d;
		if (d != KL_NONE && d != entry)
			limited[s >> 6] |= word_bit(s);
	}
}

/*
 * Block x, taken off the work list, sends its queued slots on to its
 * frontier (those sent before are placed there already: nothing changes
 * for them, at no cost in a word); a frontier block y takes those not
 * placed there yet (nor barred by their dominating store), and goes on
 * the work list if some are new to its queue and it is not there yet.
 * The work list is a bit a block (work_map), swept once in block order
 * (word m now), and a stack for the blocks of the words the sweep has
 * passed.
 */
static KL_ALWAYS_INLINE void
send_on(promoter *p, block_set *bs, uint32_t x, uint64_t *work_map,
	uint32_t m, uint32_t *stack, uint32_t *n, const uint32_t *dom_of,
	const uint64_t *limited, bool any_limited)
{
	const uint32_t *df = p->dom.df.a, *df_start = p->dom.df_start;
	uint64_t send[SET_WORDS];
	for (unsigned k = 0; k < SET_WORDS; k++)
		send[k] = bs[x].queued[k];
	for (uint32_t e = df_start[x]; e < df_start[x + 1]; e++) {
		uint32_t y = df[e];
		block_set *t = &bs[y];
		uint64_t add[SET_WORDS], fresh = 0;
		for (unsigned k = 0; k < SET_WORDS; k++)
			add[k] = send[k] & ~t->placed[k];
		if (KL_UNLIKELY(any_limited))
			for (unsigned k = 0; k < SET_WORDS; k++)
				for (uint64_t r = add[k] & limited[k]; r;
				     r &= r - 1) {
					uint32_t s = 64 * k + kl_ctz64(r);
					if (!dominates(p, dom_of[s], y))
						add[k] &= ~word_bit(s);
				}
		for (unsigned k = 0; k < SET_WORDS; k++) {
			uint64_t q = add[k] & ~t->queued[k];
			t->placed[k] |= add[k];
			t->queued[k] |= q;
			fresh |= q;
		}
		uint64_t was = work_map[y >> 6];
		work_map[y >> 6] = was | (uint64_t)(fresh != 0) << (y & 63);
		if (KL_UNLIKELY(fresh && (y >> 6) < m && !(was & word_bit(y))))
			stack[(*n)++] = y;
	}
}

/*
 * The frontier walk of place_slot_lists for every slot at once, with bit
 * sets of slots for its marks (send_on). The work map is swept once in
 * block order: the frontier of a block is mostly close by, where the
 * walk just was (on huge-1M, 151,776 blocks taken for 215,998
 * candidates, against 336,333 a slot at a time). A block of a word the
 * sweep has passed (a loop's header, from its body) goes on a stack,
 * taken before the sweep goes on: sweeping again until the map is empty
 * took a sweep per 64 blocks of a loop nest's depth (a nest 160,000 deep
 * with one slot: 223 ms against 113 slot by slot). Returns the steps
 * taken: words swept and blocks taken (for a test that they stay
 * linear).
 */
static uint64_t
sets_walk(promoter *p, block_set *bs, uint64_t *work_map, uint32_t nmap,
	  const uint32_t *dom_of, const uint64_t *limited)
{
	bool any_limited = !set_empty(limited);
	/* A block is on the stack at most once: pushed when its bit goes
	 * on, the bit off when it is taken. */
	uint32_t *stack = spare_array(p, SPARE_WORK), n = 0;
	uint64_t steps = nmap;
	for (uint32_t m = 0; m < nmap; m++) {
		while (work_map[m]) {
			uint32_t x = 64 * m + kl_ctz64(work_map[m]);
			work_map[m] &= work_map[m] - 1;
			send_on(p, bs, x, work_map, m, stack, &n, dom_of,
				limited, any_limited);
			steps++;
			while (n) {
				x = stack[--n];
				work_map[x >> 6] &= ~word_bit(x);
				send_on(p, bs, x, work_map, m, stack, &n,
					dom_of, limited, any_limited);
				steps++;
			}
		}
	}
	return steps;
}

/*
 * Every slot's candidates at once (at most SET_SLOTS slots, in a big
 * function): the same as place_slot_lists slot by slot, as bit sets per
 * block (bsets), each block's count in cnt. False if they pass budget
 * (then none counts).
 */
static bool
place_all_sets(promoter *p, uint64_t budget, uint64_t arg_budget,
	       uint32_t *cnt)
{
	uint32_t nb = p->nblocks;
	reserve_filled(&p->bsets, &p->bsets_cap, sizeof *p->bsets,
		       (uint64_t)nb + 1, nb);
	block_set *bs = p->bsets;
	memset(bs, 0, (size_t)nb * sizeof *bs);
	/* A bit a block (a scratch array of words, as malloc aligns it). */
	uint32_t nmap = (nb + 63) / 64;
	uint64_t *work_map = (uint64_t *)room_whole(&p->work_map,
						     2 * (uint64_t)nmap);
	memset(work_map, 0, (size_t)nmap * sizeof *work_map);
	uint32_t dom_of[SET_SLOTS];
	uint64_t limited[SET_WORDS] = { 0 };
	sets_start(p, bs, work_map, dom_of, limited);
	p->set_steps = sets_walk(p, bs, work_map, nmap, dom_of, limited);
	uint64_t total = 0, args = 0;
	for (uint32_t b = 0; b < nb; b++) {
		cnt[b] = (uint32_t)(kl_popcount64(bs[b].placed[0]) +
				    kl_popcount64(bs[b].placed[1]));
		total += cnt[b];
		args += (uint64_t)cnt[b] * npreds(p, b);
	}
	/* (Past what a count holds only with some 2^28 blocks: over budget
	 * all the same.) */
	if (total > budget || total > UINT32_MAX - 1 || args > arg_budget)
		return false;
	p->nphis = (uint32_t)total;
	return true;
}

/*
 * Minimal SSA first: a candidate parameter for each slot on the iterated
 * dominance frontier of the entry block and the reachable blocks that
 * store to it (Cytron et al. 1991), the walk skipping blocks where the
 * slot is dead by the dominating-store test. Which candidates survive is
 * decided after renaming (promote_prune_params). Candidates are made slot by
 * slot, then sorted by block (each block's in slot order), the order in
 * which renaming and pruning read them.
 *
 * A budget bounds the candidates (a pathological function must not make
 * the pass run out of memory): past it, the allocas not yet placed are
 * kept, with a note saying why. It grows with the function and starts
 * high, so that a small function with many slots and a wide switch
 * (150 slots, 100 joins: 15,000 candidates) is promoted whole; at the
 * floor the candidates take some 140 MB (2,000 slots and 2,000 joins:
 * 4 M candidates, 0.23 s).
 */
#define DEFAULT_FLOOR ((uint64_t)1 << 22)
#define ARG_CAP ((uint64_t)1 << 30)
static void
place_params(promoter *p)
{
	kl_func *f = p->f;
	uint32_t nb = p->nblocks;
	/* A big function's arrays per block are words the dominance facts
	 * leave spare (spare_array; fresh memory otherwise, 2 MB on
	 * huge-1M). */
	uint32_t(*mark)[2] = NULL;
	uint32_t *work = NULL;
	if (p->tiny) {
		p->first_phi = room_whole(&p->block_phi, (uint64_t)nb + 1);
		p->nphi = room_whole(&p->block_nphi, (uint64_t)nb + 1);
		p->in_block = (uint32_t(*)[2])room_whole(&p->block_in,
							 2 * (uint64_t)nb + 2);
	} else {
		p->first_phi = spare_array(p, SPARE_FIRST_PHI);
		p->nphi = spare_array(p, SPARE_NPHI);
	}
	uint64_t budget = p->rep && p->rep->size_limit
				  ? p->rep->size_limit
				  : 16 * ((uint64_t)f->ninsts + nb) +
				    DEFAULT_FLOOR;
	/* The branch arguments the candidates take are bounded too: one on
	 * every edge into a candidate's block, and a br_table can give a
	 * block any number of edges. (Past the budgets by at most one slot's
	 * worth, below what the 32-bit counts hold.) */
	uint64_t arg_budget = budget < ARG_CAP / 4 ? 4 * budget : ARG_CAP;
	bool at_once = !p->tiny && p->nslots <= p->most_set_slots &&
		       place_all_sets(p, budget, arg_budget, p->nphi);
	/* Counting them per candidate is needed only where the most edges
	 * into a block could take them past their budget (arg_budget /
	 * budget is 0 past ARG_CAP: then they are counted everywhere). */
	bool count_args = false;
	for (uint32_t b = 0; b < nb && !at_once && !count_args; b++)
		count_args = npreds(p, b) > arg_budget / budget;
	uint64_t nargs = 0;
	/* The frontier lists read, slot by slot, are bounded as well: a
	 * slot reads the lists of its blocks of the iterated frontier,
	 * which in a nest of n loops are n^2 entries for n candidates.
	 * Slots that differ in their store blocks read them each
	 * (place_slot_lists copies the others'). One slot reads each list
	 * once at most, so the budget lets two read them all. */
	uint64_t read = 0, read_budget = 4 * budget + 2 * DF_DEFAULT_LIMIT;
	last_slot last = { 0 };
	if (!p->tiny && !at_once) {
		mark = (uint32_t(*)[2])spare_array(p, SPARE_MARKS);
		memset(mark, 0, 2 * ((size_t)nb + 2) * sizeof(uint32_t));
		work = spare_array(p, SPARE_WORK);
	}
	uint32_t first_of_alloca = 0, alloca_now = KL_NONE;
	for (uint32_t s = 0; s < p->nslots && !at_once; s++) {
		if (p->slots[s].alloca != alloca_now) {
			alloca_now = p->slots[s].alloca;
			first_of_alloca = p->nphis;
		}
		if (p->nphis > budget || nargs > arg_budget ||
		    read > read_budget) {
			give_up_from(p, s, first_of_alloca,
				     read > read_budget ? KEPT_FRONTIER_WALK
							: KEPT_TOO_COSTLY);
			break;
		}
		uint32_t before = p->nphis;
		if (p->tiny)
			place_slot_sets(p, s);
		else
			read += place_slot_lists(p, s, mark, work, &last);
		for (uint32_t k = before; count_args && k < p->nphis; k++)
			nargs += npreds(p, p->cands[k].block);
	}

	/* The candidates in block order, where renaming and pruning read
	 * them (a stable counting sort: each block's in slot order): block
	 * b's are first[b] .. first[b] + cnt[b] in phi_block and phi_slot. */
	uint32_t *first = p->first_phi, *cnt = p->nphi;
	if (!at_once) {
		memset(cnt, 0, (size_t)nb * sizeof *cnt);
		for (uint32_t k = 0; k < p->nphis; k++)
			cnt[p->cands[k].block]++;
	}
	if (p->nphis == 0)
		return;
	/* The marks are dead: their words hold in_block now. */
	if (!p->tiny)
		p->in_block = (uint32_t(*)[2])spare_array(p, SPARE_IN_BLOCK);
	uint32_t *block_of = room_whole(&p->phi_block, (uint64_t)p->nphis + 1);
	uint32_t *slot_of = room_whole(&p->phi_slot, (uint64_t)p->nphis + 1);
	room_whole(&p->phi_value, (uint64_t)p->nphis + 1);
	uint32_t at = 0;
	for (uint32_t b = 0; b < nb; b++) {
		first[b] = at;
		/* Placed at once: the block's candidates are its bits. */
		for (uint32_t w = 0, q = at; at_once && w < SET_WORDS; w++)
			for (uint64_t m = p->bsets[b].placed[w]; m;
			     m &= m - 1) {
				block_of[q] = b;
				slot_of[q++] = 64 * w + kl_ctz64(m);
			}
		at += cnt[b];
		if (cnt[b] > p->most_block_phis)
			p->most_block_phis = cnt[b];
		/* an incoming argument per candidate and predecessor edge,
		 * counted here, in block order, not per candidate at random
		 * (and without a branch on whether b has any: no pattern) */
		uint32_t np = npreds(p, b) & -(uint32_t)(cnt[b] != 0);
		p->in_block[b][0] = (uint32_t)p->nincoming;
		p->in_block[b][1] = 0;
		p->nincoming += (uint64_t)cnt[b] * np;
		p->nedges_in += np;
		if (KL_UNLIKELY(p->nincoming > UINT32_MAX - 1))
			kl_out_of_room(__FILE__, __LINE__, __func__,
				       "too many branch arguments");
	}
	if (!at_once) {
		for (uint32_t k = 0; k < p->nphis; k++) {
			cand c = p->cands[k];
			uint32_t q = first[c.block]++;
			block_of[q] = c.block;
			slot_of[q] = c.slot;
		}
		for (uint32_t b = 0; b < nb; b++)
			first[b] -= cnt[b];
	}
	uint64_t words = (uint64_t)p->nphis / 4 + 1; /* of bytes */
	memset(room_whole(&p->phi_used, words), 0, p->nphis);
}

/* ---- the pass ---- */

/* At most this many runs over one function: a chain of pointers n levels
 * deep takes n runs, and a long one would make the pass quadratic. */
#define MAX_RUNS 8

/*
 * Another run may promote what this one kept: an alloca whose address was
 * stored into a slot this run promoted (int *p = &x) escaped through
 * that store, which renaming removed, and the load of p became x's
 * address. Only the first escape of an alloca is known; when another one
 * follows, the next run keeps it and promotes nothing, and runs stop
 * there.
 */
static bool
stored_into_promoted(const promoter *p, const alloca_info *a)
{
	if (a->reason != KEPT_ESCAPES || a->why_inst == KL_NONE)
		return false;
	const kl_func *f = p->f;
	return kl_op_table[f->insts[a->why_inst].op].format == KL_FMT_STORE &&
	       f->nodes[a->why_inst].block == KL_NONE;
}

static void
note_kept(promoter *p, const alloca_info *a)
{
	kl_func *f = p->f;
	kl_buf *out = &p->rep->notes;
	pass_note_func(p->rep, f);
	kl_buf_printf(out, "kept v%u (inst%u", f->insts[a->inst].w[0],
		      a->inst);
	uint32_t line = kl_inst_source_line(f, (kl_inst){ a->inst });
	if (line)
		kl_buf_printf(out, ", line %u", line);
	kl_buf_printf(out, "): %s", reason_text[a->reason]);
	/* (an overlap names both accesses: either may be the mistake) */
	uint32_t at[2] = { a->why_inst,
			   a->reason == KEPT_OVERLAP ? a->with_inst : KL_NONE };
	for (int k = 0; k < 2 && at[k] != KL_NONE; k++) {
		kl_buf_printf(out, k ? " and inst%u" : " at inst%u", at[k]);
		line = kl_inst_source_line(f, (kl_inst){ at[k] });
		if (line)
			kl_buf_printf(out, " (line %u)", line);
	}
	if (stored_into_promoted(p, a))
		kl_buf_printf(out, ", a store that the last of the pass's %u "
			      "runs over the function removed: promote again "
			      "may promote it", MAX_RUNS);
	kl_buf_putc(out, '\n');
}

/* v, or the value it stands for if it is an alias. */
static inline uint32_t
unalias(const promoter *p, uint32_t v)
{
	uint32_t r = resolve(p, v);
	return r != KL_NONE ? r : v;
}

/* Is operand v one of the function's aliases? The marks say so of all:
 * those there were before the pass (promote_clear_addresses) and the
 * loads it replaced (replace_load); values the pass made are none. */
static inline bool
aliased(const promoter *p, uint32_t v)
{
	return v < p->nvalues && value_marks(p)[v] == ALIASED;
}

/* v, or the value it stands for if it is an alias: one step when the
 * function had no alias before the pass (unalias_words says why). */
static inline uint32_t
resolved(const promoter *p, uint32_t v)
{
	if (KL_LIKELY(!aliased(p, v)))
		return v;
	return p->had_aliases ? unalias(p, v) : p->f->values[v].def;
}

static void
unalias_dest(promoter *p, uint32_t dest)
{
	uint32_t *args;
	uint32_t n = dest_args(&p->f->pool, dest, &args);
	for (uint32_t k = 0; k < n; k++)
		args[k] = resolved(p, args[k]);
}

/* Resolve the aliases among the operands and branch arguments of i. */
static void
unalias_inst(promoter *p, uint32_t i)
{
	kl_func *f = p->f;
	uint32_t n;
	uint32_t *args = inst_args_mut(f, i, &n);
	for (uint32_t k = 0; k < n; k++)
		args[k] = resolved(p, args[k]);
	if (!(kl_op_table[f->insts[i].op].flags & KL_OPF_BRANCH))
		return;
	const uint32_t *dests;
	uint32_t nd = inst_dests(f, i, &dests);
	for (uint32_t k = 0; k < nd; k++)
		unalias_dest(p, dests[k]);
}

/* The operand words of each walk kind that finish checks for aliases
 * (a mask of w[0..2]), or FINISH_ALL: every operand and branch argument,
 * through unalias_inst. */
enum { FINISH_ALL = 0xff };
static const uint8_t finish_mask[WALK_OTHER + 1] = {
	[0] = 0, [WALK_W1] = 2, [WALK_W1_W2] = 6,
	[WALK_LOAD] = 2, [WALK_STORE] = 3, [WALK_DERIVE] = 2,
	[WALK_ALLOCA] = 0, [WALK_ALLOCA_DYN] = 2, [WALK_JUMP] = FINISH_ALL,
	[WALK_BRIF] = FINISH_ALL, [WALK_CALL] = FINISH_ALL,
	[WALK_RETURN] = FINISH_ALL, [WALK_TERNARY] = FINISH_ALL,
	[WALK_OTHER] = FINISH_ALL,
};

/* Is v (resolved) the address of a promoted alloca, which finish removes? */
static bool
promoted_address(const promoter *p, uint32_t v)
{
	if (v >= p->nvalues || value_marks(p)[v] != ADDRESS)
		return false;
	return p->allocas[p->address[v].alloca].reason == PROMOTED;
}

/*
 * An alias of an address the pass removes would stand for nothing: it is
 * dropped (its number becomes a hole). Its uses were loads and stores of
 * the promoted slots -- any other use would have kept the alloca -- and
 * they are gone. Each is first pointed at the address itself, then
 * dropped: dropped in one pass, an alias of an alias numbered below it
 * (v3 -> v2 -> v1) would no longer resolve to the address once v2 is a
 * hole, and would be left naming nothing.
 */
static void
drop_address_aliases(promoter *p)
{
	kl_func *f = p->f;
	for (uint32_t v = 0; v < p->nvalues; v++) {
		if (f->values[v].kind != VK_ALIAS)
			continue;
		uint32_t to = chain_end(p, v);
		if (promoted_address(p, to))
			f->values[v].def = to;
	}
	for (uint32_t v = 0; v < p->nvalues; v++)
		if (f->values[v].kind == VK_ALIAS &&
		    promoted_address(p, f->values[v].def))
			f->values[v] = value_hole();
}

/* Remove the promoted allocas and the address arithmetic that only fed
 * them (any other use would have kept the alloca), from the lists the
 * walk made: no look at the other instructions. */
static void
remove_addresses(promoter *p)
{
	kl_func *f = p->f;
	for (uint32_t a = 0; a < p->nallocas; a++) {
		uint32_t i = p->allocas[a].inst;
		if (promoted_address(p, f->insts[i].w[0]))
			layout_remove_inst(f, i);
	}
	for (uint32_t k = 0; k < p->nderives; k++) {
		uint32_t i = p->derives.a[k];
		if (promoted_address(p, f->insts[i].w[0]))
			layout_remove_inst(f, i);
	}
}

/*
 * The words of d that mask m names, each replaced by the value it stands
 * for if it is an alias. Only when the function had no alias before the
 * pass: then every alias is one the pass made of a load, whose value
 * renaming had resolved (or a parameter's), so one step reaches it, and
 * it is taken without a branch per word (which words are aliases varies
 * from one user to the next). values[0] exists: the pass made aliases.
 */
static inline void
unalias_word(promoter *p, kl_inst_data *d, unsigned m, unsigned w)
{
	const uint8_t *mark = value_marks(p);
	uint32_t nv = p->nvalues, v = d->w[w];
	bool alias = ((m >> w) & 1) & (mark[v < nv ? v : nv] == ALIASED);
	uint32_t to = p->f->values[alias ? v : 0].def;
	d->w[w] = alias ? to : v;
}

static inline void
unalias_words(promoter *p, kl_inst_data *d, unsigned m)
{
	/* w0 is an operand only of a store (the value it stores): the
	 * others' w0 is their result. */
	if (m & 1)
		unalias_word(p, d, m, 0);
	unalias_word(p, d, m, 1);
	unalias_word(p, d, m, 2);
}

/*
 * Resolve the aliases among the operands of instruction i. One with its
 * operands in its words is passed over after one test of their marks
 * (an OR, as in promote_walk: 0 for values that are neither aliases nor
 * addresses), without reading the value table.
 */
static KL_ALWAYS_INLINE void
unalias_operands(promoter *p, uint32_t i)
{
	kl_func *f = p->f;
	kl_inst_data *d = &f->insts[i];
	unsigned m = finish_mask[promote_walk_kind[d->op]];
	if (m == FINISH_ALL) {
		unalias_inst(p, i);
		return;
	}
	if (KL_LIKELY(!p->had_aliases)) {
		unalias_words(p, d, m);
		return;
	}
	if (KL_LIKELY(word_marks(value_marks(p), p->nvalues, d, m) == 0))
		return;
	for (unsigned w = 0; w < 3; w++)
		if ((m & (1u << w)) && aliased(p, d->w[w]))
			d->w[w] = unalias(p, d->w[w]);
}

/*
 * Did the walk meet every definition before its uses? Strict SSA lets a
 * use come first in the layout only in an unreachable block or in a
 * block laid out before one of its dominators. So: yes when every block
 * is reachable and comes after its immediate dominator in the layout.
 * Then the walk's marks of loaded values are complete when it reaches a
 * store (renaming resolves only the stored values it found marked), and
 * its list of users holds every instruction whose operands may be
 * aliases once loads are replaced (finish resolves only theirs).
 */
static bool
defs_before_uses(promoter *p)
{
	kl_func *f = p->f;
	KL_ASSERT(p->have_dominance);
	if (p->tiny) {
		const tiny_cfg *t = &p->t;
		uint64_t seen = 0;
		for (uint32_t b = f->first_block; b != KL_NONE;
		     b = f->blocks[b].next) {
			uint32_t d = t->b[b].idom;
			if (!((t->reach >> b) & 1) ||
			    (d != TINY_NONE && !((seen >> d) & 1)))
				return false;
			seen |= (uint64_t)1 << b;
		}
		return true;
	}
	uint8_t *seen = (uint8_t *)room_whole(&p->work,
					       (uint64_t)p->nblocks / 4 + 1);
	memset(seen, 0, p->nblocks);
	for (uint32_t b = f->first_block; b != KL_NONE; b = f->blocks[b].next) {
		uint32_t d = idom_of(p, b);
		if (!reached(p, b) || (d != KL_NONE && !seen[d]))
			return false;
		seen[b] = 1;
	}
	return true;
}

/* unalias_operands on every instruction in the layout. */
static void
unalias_everywhere(promoter *p)
{
	kl_func *f = p->f;
	for (uint32_t b = f->first_block; b != KL_NONE; b = f->blocks[b].next)
		for (uint32_t i = f->blocks[b].first; i != KL_NONE;
		     i = f->nodes[i].next)
			unalias_operands(p, i);
}

/* Is v read by an instruction still in the layout? */
static bool
is_read(const kl_func *f, const kl_uses *u, uint32_t v)
{
	uint32_t n;
	const kl_use *use = kl_uses_of(u, f, (kl_value){ v }, &n);
	for (uint32_t j = 0; j < n; j++)
		if (f->nodes[use[j].inst.id].block != KL_NONE)
			return true;
	return false;
}

/*
 * What the pass made that nothing reads. The conversions stores made (the
 * slot written again before a load, or never loaded): a store's value is
 * made at the store, before renaming knows whether a load will come. The
 * zeros: a load before any store, or in an unreachable block, asks for one
 * whether or not anything reads the load. The function's uses (kl_uses)
 * are listed only for functions with such stores (truncating, or punning
 * int and float) or zeros. Newest first, the zeros last: a conversion
 * may be used only by a newer one (a load's value stored narrower), and a
 * zero only by conversions, gone by then.
 */
static void
remove_unread(promoter *p)
{
	kl_func *f = p->f;
	kl_uses *u = kl_uses_new();
	kl_uses_compute(u, f);
	for (uint32_t k = p->nstore_convs; k-- > 0;) {
		uint32_t v = p->store_convs[k];
		if (!is_read(f, u, v))
			layout_remove_inst(f, f->values[v].def);
	}
	for (uint32_t t = 0; t < KL_TYPE_BUILTIN_COUNT; t++) {
		uint32_t v = p->zero[t];
		if (v != KL_NONE && !is_read(f, u, v))
			layout_remove_inst(f, f->values[v].def);
	}
	kl_uses_free(u);
}

/*
 * Remove what the promoted allocas leave behind. When loads became
 * aliases, the operands of what remains are resolved (what
 * kl_func_resolve_aliases does, without its walk): those of the users the
 * first walk listed, or of every instruction when that list may be
 * incomplete.
 */
static void
finish(promoter *p)
{
	remove_addresses(p);
	/* Aliases are made only by renaming, which computed defs_first. */
	if (p->made_aliases && p->defs_first) {
		/* A big function's users are cold, and apart: each is asked
		 * for a few ahead (they are listed in layout order). */
		const uint32_t *users = p->users.a;
		uint32_t n = p->nusers, ahead = p->tiny ? 0 : PREFETCH_AHEAD;
		for (uint32_t k = 0; k < n; k++) {
			if (k + ahead < n)
				KL_PREFETCH_WRITE(
					&p->f->insts[users[k + ahead]]);
			unalias_operands(p, users[k]);
		}
	} else if (p->made_aliases) {
		unalias_everywhere(p);
	}
	if (p->had_aliases)
		drop_address_aliases(p);
	if (p->nstore_convs || p->last_zero != KL_NONE)
		remove_unread(p);
}

/* The state kept between functions (in a pass report) and freed once. */
static void
promoter_free(void *state)
{
	promoter *p = state;
	kl_cfg_free(p->cfg);
	kl_domtree_free(p->dt);
	promote_dom_free(&p->dom);
	free(p->allocas);
	free(p->chain_buf);
	free(p->acc);
	free(p->slots);
	free(p->sets);
	free(p->cands);
	free(p->bsets);
	free(p->fixups);
	free(p->edges);
	free(p->incoming);
	free(p->log);
	free(p->store_convs);
	free(p->address);
	free(p->keys);
	free(p->keys_tmp);
	scratch *all[] = { &p->marks, &p->derived, &p->next_derived, &p->queue,
			   &p->derives, &p->users,
			   &p->block_acc, &p->block_nacc, &p->slot_site,
			   &p->slot_start, &p->by_alloca, &p->alloca_start,
			   &p->sort_tmp, &p->block_phi,
			   &p->block_nphi, &p->block_in, &p->work, &p->work_map,
			   &p->phi_used, &p->phi_block, &p->phi_slot, &p->seed,
			   &p->phi_value,
			   &p->args, &p->cur };
	for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
		free(all[k]->a);
	kl_arena_free(&p->arena);
	free(p);
}

static void *
promoter_new(void)
{
	promoter *p = kl_calloc(1, sizeof *p);
	p->cfg = kl_cfg_new();
	p->dt = kl_domtree_new();
	p->most_set_slots = SET_SLOTS;
	return p;
}

/* Start on f: keep the buffers, forget the previous function. */
static void
promoter_begin(promoter *p, kl_func *f, kl_pass_report *rep)
{
	p->f = f;
	p->rep = rep;
	p->nvalues = f->nvalues;
	p->nblocks = f->nblocks;
	p->nallocas = p->nacc = p->nslots = p->nphis = p->nderives = 0;
	p->nfixups = p->nedges = p->nlog = p->nstore_convs = 0;
	p->nincoming = p->nedges_in = 0;
	p->most_block_phis = 0;
	p->made_aliases = p->defs_first = false;
	p->dom.have_successors = false;
	p->calls_setjmp = false;
	p->have_dominance = p->have_analyses = false;
	/* Verified IR branches only at the end of its blocks: a function of
	 * few blocks gets its dominance facts as bit sets, read off the
	 * terminators (need_dominance). */
	p->tiny = rep && rep->input_verified && f->nblocks <= TINY_BLOCKS;
	for (uint32_t t = 0; t < KL_TYPE_BUILTIN_COUNT; t++)
		p->zero[t] = KL_NONE;
	p->last_zero = KL_NONE;
	kl_builder_init(&p->b, f);
}

/*
 * The generic CFG and dominator tree, which the strict SSA check of
 * unverified IR reads.
 */
static void
need_analyses(promoter *p)
{
	if (p->have_analyses)
		return;
	kl_cfg_compute(p->cfg, p->f);
	kl_domtree_compute(p->dt, p->f, p->cfg);
	p->have_analyses = true;
}

/*
 * The dominance facts placement and renaming read, computed on first
 * need. A verified function branches only at the end of its blocks, so its
 * edges are read off the terminators: as bit sets if it has few blocks, as
 * most do (promote_tiny.c), else as compact arrays (promote_dom.c). Those
 * of an unverified function come from the generic CFG its strict SSA
 * check computed. False if the frontiers would pass their limit.
 */
static bool
need_dominance(promoter *p)
{
	if (p->have_dominance)
		return true;
	bool verified = p->rep && p->rep->input_verified, ok = true;
	if (p->tiny) {
		promote_tiny_compute(&p->t, p->f);
	} else if (verified) {
		ok = promote_dom_compute(&p->dom, p->f, NULL);
	} else {
		need_analyses(p);
		ok = promote_dom_compute(&p->dom, p->f, p->cfg);
	}
	p->have_dominance = ok;
	return ok;
}

/*
 * One run of the rules over f: adds to count what it promoted (slots,
 * params, promoted) and sets count's kept to what it kept. Returns
 * whether another run may promote more (stored_into_promoted), never
 * after the last (MAX_RUNS); the kept allocas get their notes only in the
 * last run.
 */
static bool
promote_run(promoter *p, kl_func *f, kl_pass_report *rep, uint32_t *count,
	    bool last)
{
	promoter_begin(p, f, rep);
	/* Verified IR is walked once (promote_walk); anything else is
	 * checked for strict SSA before its accesses are looked at. */
	bool verified = rep && rep->input_verified;
	if (verified) {
		promote_clear_addresses(p);
		if (!promote_walk(p, true)) {
			p->nallocas = p->nacc = p->nderives = 0;
			p->calls_setjmp = false;
			promote_find_addresses(p);
			promote_walk(p, false);
		}
	} else {
		promote_find_addresses(p);
	}
	/* The next function's tables are cold: its layout is asked for once
	 * this walk's own misses are done, the rest once the slots are made
	 * (func.c says more). */
	func_prefetch_next_layout(f);
	if (p->nallocas == 0) {
		func_prefetch_next_rest(f);
		count[COUNT_KEPT] = 0;
		return false;
	}

	enum kept_reason whole = PROMOTED;
	if (p->calls_setjmp || promote_takes_setjmp_address(f)) {
		whole = KEPT_SETJMP;
	} else if (!verified) {
		need_analyses(p);
		whole = promote_check_form(p);
	}
	if (whole != PROMOTED) {
		/* What promote_walk found about escapes does not count then. */
		for (uint32_t a = 0; a < p->nallocas; a++) {
			alloca_info *ai = &p->allocas[a];
			ai->reason = ai->own_reason;
			if (ai->reason == PROMOTED)
				ai->reason = (uint8_t)whole;
			ai->why_inst = KL_NONE;
		}
	} else {
		if (!verified)
			promote_walk(p, false);
		promote_make_slots(p);
	}

	func_prefetch_next_rest(f);
	/* Frontiers past their limit (quadratic, in a pathological
	 * function): every slot's alloca is kept, saying so. */
	if (p->nslots && !need_dominance(p))
		give_up_from(p, 0, 0, KEPT_FRONTIERS);
	if (p->nslots) {
		place_params(p); /* may keep allocas past its budget */
		count[COUNT_SLOTS] += p->nslots;
		p->defs_first = defs_before_uses(p);
		promote_rename_all(p);
		count[COUNT_PARAMS] += promote_prune_params(p);
	}
	uint32_t promoted = 0;
	bool again = false;
	for (uint32_t a = 0; a < p->nallocas; a++) {
		if (p->allocas[a].reason == PROMOTED)
			promoted++;
		else
			again |= stored_into_promoted(p, &p->allocas[a]);
	}
	again = again && !last && kl_builder_status(&p->b) == KL_OK;
	if (!again && rep && rep->verbose)
		for (uint32_t a = 0; a < p->nallocas; a++)
			if (p->allocas[a].reason != PROMOTED)
				note_kept(p, &p->allocas[a]);
	count[COUNT_PROMOTED] += promoted;
	count[COUNT_KEPT] = p->nallocas - promoted;
	/* Also when no slot was made: an alloca nothing reads or writes is
	 * promoted all the same, and must go. */
	if (promoted)
		finish(p);
	return again;
}

kl_status
kl_promote_func(kl_func *f, kl_pass_report *rep)
{
	func_edited(f);
	if (f->first_block == KL_NONE)
		return KL_OK;
	bool keep;
	promoter *p = pass_scratch(rep, promoter_free, promoter_new, &keep);
	uint32_t count[NCOUNTS] = { 0 };
	for (int run = 1; promote_run(p, f, rep, count, run == MAX_RUNS); run++)
		;
	report_counts(p, count);
	kl_status st = kl_builder_status(&p->b);
	if (!keep)
		promoter_free(p);
	return st;
}


uint32_t
kl_promote_module(kl_module *m, kl_pass_report *rep)
{
	kl_pass_report own = { 0 };
	bool mine = rep == NULL;
	if (mine)
		rep = &own;
	uint32_t remaining = 0;
	for (uint32_t s = 0; s < m->nsyms; s++) {
		kl_func *f = m->syms[s].func;
		if (!f)
			continue;
		kl_promote_func(f, rep);
		for (uint32_t b = f->first_block; b != KL_NONE;
		     b = f->blocks[b].next)
			for (uint32_t i = f->blocks[b].first; i != KL_NONE;
			     i = f->nodes[i].next)
				remaining += f->insts[i].op == KL_OP_ALLOCA ||
					     f->insts[i].op == KL_OP_ALLOCA_DYN;
	}
	if (mine)
		kl_pass_report_free(&own);
	return remaining;
}
