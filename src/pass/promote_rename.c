/*
 * promote_rename.c -- the promote pass's rewrite: renaming along the
 * dominator tree (stores disappear, loads become the slot's current
 * value, branches record their arguments for the candidate parameters),
 * then pruning the candidates to those whose value reaches a load and
 * giving the survivors their parameters and branch arguments.
 */
#include <stdlib.h>

#include "promote.h"

/* ---- renaming ---- */

/*
 * While renaming, a candidate parameter that may yet be pruned has no
 * value number: it is referred to as PHI_REF + its index. Operands that
 * receive such a reference are recorded as fixups and patched once the
 * surviving parameters have numbers.
 */
#define PHI_REF 0x80000000u

static bool
is_phi_ref(uint32_t v)
{
	return v >= PHI_REF && v != KL_NONE;
}

static inline void
add_fixup(promoter *p, uint8_t kind, uint32_t id, uint32_t ref)
{
	if (!is_phi_ref(ref))
		return;
	if (KL_UNLIKELY(p->nfixups == p->fixups_cap))
		kl_grow(&p->fixups, &p->fixups_cap, sizeof *p->fixups,
			p->nfixups + 1);
	p->fixups[p->nfixups++] = (fixup){ kind, id, ref - PHI_REF };
	((uint8_t *)p->phi_used.a)[ref - PHI_REF] = 1;
}

/* The zero of a slot type, made once at the top of the entry block,
 * after the zeros made before it, so they read in the order of their
 * numbers. */
static uint32_t
zero_of(promoter *p, kl_type t)
{
	if (p->zero[t] != KL_NONE)
		return p->zero[t];
	kl_func *f = p->f;
	uint32_t at = p->last_zero == KL_NONE
			      ? f->blocks[f->first_block].first
			      : f->nodes[p->last_zero].next;
	kl_builder_before(&p->b, (kl_inst){ at });
	kl_value v;
	if (t == KL_TYPE_F32)
		v = kl_build_f32const(&p->b, 0);
	else if (t == KL_TYPE_F64)
		v = kl_build_f64const(&p->b, 0);
	else
		v = kl_build_iconst(&p->b, t, 0);
	KL_ASSERT(v.id != KL_NONE);
	p->last_zero = f->values[v.id].def;
	return p->zero[t] = v.id;
}

static uint32_t
current(promoter *p, uint32_t s)
{
	uint32_t v = p->cur.a[s];
	return v != KL_NONE ? v : zero_of(p, p->slots[s].type);
}

static inline void
set_current(promoter *p, uint32_t s, uint32_t v)
{
	if (KL_UNLIKELY(p->nlog == p->log_cap))
		kl_grow(&p->log, &p->log_cap, sizeof *p->log, p->nlog + 1);
	p->log[p->nlog++] = (undo){ s, p->cur.a[s] };
	p->cur.a[s] = v;
}

/* `vN = op.t x` before inst; x may be a parameter reference. */
static uint32_t
convert_before(promoter *p, uint32_t inst, kl_opcode op, kl_type t, uint32_t x)
{
	kl_func *f = p->f;
	uint32_t i = func_new_inst(f, op);
	layout_insert_inst_before(f, i, inst);
	uint32_t v = func_new_value(f);
	value_define(f, v, VK_RESULT, t, i);
	f->insts[i].w[0] = v;
	f->insts[i].w[1] = x;
	add_fixup(p, FIX_OPERAND, i, x);
	return v;
}

/*
 * A store to slot s: the value it leaves in the slot; the store goes.
 * The access says what the instruction stores and its class: aliases the
 * pass makes keep the class of the value they replace (a load becomes an
 * alias only of a value of its own class), so only the value needs
 * resolving, and only when it may be an alias.
 */
static uint32_t
store_value(promoter *p, const access *x)
{
	kl_func *f = p->f;
	kl_type st = p->slots[x->slot].type;
	/* The stored value may be a load already replaced by a parameter
	 * that has no number yet. */
	uint32_t v = x->value;
	if (x->may_alias || !p->defs_first)
		v = resolve(p, v);
	if (x->form == ACC_ISTORE || x->cls != st) {
		v = convert_before(p, x->inst, x->form == ACC_ISTORE
						       ? KL_OP_IREDUCE
						       : KL_OP_BITCAST, st, v);
		if (KL_UNLIKELY(p->nstore_convs == p->store_convs_cap))
			kl_grow(&p->store_convs, &p->store_convs_cap,
				sizeof *p->store_convs, p->nstore_convs + 1);
		p->store_convs[p->nstore_convs++] = v;
	}
	layout_remove_inst(f, x->inst);
	return v;
}

/* A load from slot s holding c: the load becomes c, or converts it. */
static void
replace_load(promoter *p, const access *x, uint32_t c)
{
	kl_func *f = p->f;
	uint32_t i = x->inst;
	kl_type st = p->slots[x->slot].type;
	uint32_t r = x->value;
	/* A slot's value is no alias when definitions come before uses:
	 * store_value resolved every stored value that might be one, and
	 * a load is renamed before any store of its result, which it
	 * dominates. */
	if (!is_phi_ref(c) && !p->defs_first)
		c = resolve(p, c);
	if (x->form == ACC_LOAD) {
		if (x->cls == st) {
			f->values[r].kind = VK_ALIAS;
			f->values[r].def = c;
			f->has_aliases = true;
			if (r < p->nvalues) /* for finish */
				value_marks(p)[r] = ALIASED;
			add_fixup(p, FIX_ALIAS, r, c);
			layout_remove_inst(f, i);
			p->made_aliases = true;
		} else {
			inst_rewrite_unary(f, i, KL_OP_BITCAST, c);
			add_fixup(p, FIX_OPERAND, i, c);
		}
		return;
	}
	KL_ASSERT(x->form == ACC_ULOAD || x->form == ACC_SLOAD);
	if (kl_type_is_float(f->module, st)) {
		kl_type it = st == KL_TYPE_F32 ? KL_TYPE_I32 : KL_TYPE_I64;
		c = convert_before(p, i, KL_OP_BITCAST, it, c);
	}
	kl_opcode ext = x->form == ACC_SLOAD ? KL_OP_SEXTEND : KL_OP_UEXTEND;
	inst_rewrite_unary(f, i, ext, c);
	add_fixup(p, FIX_OPERAND, i, c);
}

/*
 * Record what b's branch passes to each candidate parameter of its
 * targets: the slot's current value (zero from unreachable blocks). The
 * arguments are added once the pruning is known.
 */
static void
record_edges(promoter *p, uint32_t b, bool zeros)
{
	kl_func *f = p->f;
	uint32_t t = f->blocks[b].last;
	if (t == KL_NONE || p->nphis == 0)
		return;
	/* A big function's destinations as its dominance facts read them:
	 * the terminator itself is a cache miss per block by now (a third
	 * of renaming's samples on huge-1M). */
	const uint32_t *dests = NULL, *targets = NULL;
	const uint32_t *cur = p->cur.a; /* read once: arg[] might alias it */
	uint32_t nd;
	if (!p->tiny && p->dom.exact) {
		targets = p->dom.succ.a + p->dom.out[b].start;
		nd = p->dom.out[b].n;
	} else {
		nd = inst_dests(f, t, &dests);
	}
	for (uint32_t k = 0; k < nd; k++) {
		uint32_t target = targets ? targets[k]
					  : dest_block(&f->pool, dests[k]);
		uint32_t n = target < p->nblocks ? p->nphi[target] : 0;
		if (n == 0)
			continue;
		/* The edges recorded into a block are among those its
		 * dominance facts count (all of them for verified IR; the
		 * generic CFG's of unverified IR count every branch, not only
		 * the last instruction's): its room in incoming holds them,
		 * and the edges array holds all blocks' (nedges_in). */
		uint32_t *in = p->in_block[target];
		KL_ASSERT(in[1] < npreds(p, target) &&
			  p->nedges < p->edges_cap);
		uint32_t first = in[0] + in[1]++ * n;
		p->edges[p->nedges++] = (edge){ t, k, target, first };
		/* KL_NONE stands for the slot's zero, made only if a surviving
		 * parameter needs it. */
		const uint32_t *slot_of = p->phi_slot.a + p->first_phi[target];
		uint32_t *arg = p->incoming + first;
		if (zeros) {
			for (uint32_t j = 0; j < n; j++)
				arg[j] = KL_NONE;
		} else {
			for (uint32_t j = 0; j < n; j++)
				arg[j] = cur[slot_of[j]];
		}
	}
}

static void
rename_block(promoter *p, uint32_t b, bool reachable)
{
	for (uint32_t k = 0; reachable && k < p->nphi[b]; k++) {
		uint32_t ph = p->first_phi[b] + k;
		set_current(p, p->phi_slot.a[ph], PHI_REF + ph);
	}
	/* Read once: the stores below could alias them, for the compiler. */
	const access *acc = p->acc + p->block_acc.a[b];
	uint32_t nacc = p->block_nacc.a[b];
	/* A big function's instruction and value records are cold by now,
	 * and an access's are far from the last one's: asked for a few
	 * accesses ahead in the order the walk recorded them (the layout's),
	 * which is the order renaming meets them wherever the layout is a
	 * preorder of the dominator tree. */
	const access *ahead_end = p->tiny ? acc : p->acc + p->nacc;
	for (uint32_t k = 0; k < nacc; k++) {
		const access *x = &acc[k];
		if (x + PREFETCH_AHEAD < ahead_end) {
			const access *y = x + PREFETCH_AHEAD;
			KL_PREFETCH_WRITE(&p->f->nodes[y->inst]);
			uint32_t v = y->value < p->f->nvalues ? y->value : 0;
			KL_PREFETCH_WRITE(&p->f->values[v]);
		}
		if (x->slot == KL_NONE)
			continue;
		if (access_is_store(x) && !reachable) {
			layout_remove_inst(p->f, x->inst); /* never runs */
		} else if (access_is_store(x)) {
			set_current(p, x->slot, store_value(p, x));
		} else {
			replace_load(
				p, x,
				reachable ? current(p, x->slot)
					  : zero_of(p, p->slots[x->slot].type));
		}
	}
	record_edges(p, b, !reachable);
}

/* Undo the log down to its first `to` entries. */
static void
unwind(promoter *p, uint32_t to)
{
	uint32_t *cur = p->cur.a;
	while (p->nlog > to) {
		const undo *u = &p->log[--p->nlog];
		cur[u->slot] = u->value;
	}
}

/*
 * A tiny function's blocks in the preorder its facts list, without a
 * stack: entering a block, the log is unwound to where it stood at the
 * end of the block's idom, every block renamed since being below that
 * idom. The same order as the walk below, so the same output.
 */
static void
rename_preorder(promoter *p)
{
	const tiny_cfg *t = &p->t;
	uint32_t end[TINY_BLOCKS]; /* the log's length after each block */
	for (uint32_t k = 0; k < t->nreach; k++) {
		uint32_t b = t->order[k];
		if (k)
			unwind(p, end[t->b[b].idom]);
		rename_block(p, b, true);
		end[b] = p->nlog;
	}
}

/*
 * The preorder of a bigger function's tree, without a stack: down to the
 * first child, else on to the next sibling, else up through the idoms to
 * the nearest one that has a next sibling. A block's subtree is done when
 * the walk leaves it sideways or upwards, and the log is then unwound to
 * where it stood when the block was entered (log_at, a word a block).
 * Children come in layout order, so the walk follows the layout wherever
 * the layout is a preorder of the tree (structured code), and reads the
 * tables in the order they are laid out. A deep tree (a function of
 * regions one after another) needs no memory beyond that word.
 */
static void
rename_tree(promoter *p)
{
	uint32_t *log_at = spare_array(p, SPARE_LOG_AT);
	uint32_t b = p->f->first_block;
	for (;;) {
		log_at[b] = p->nlog;
		rename_block(p, b, true);
		uint32_t c = first_child(p, b);
		if (c != KL_NONE) {
			b = c;
			continue;
		}
		for (;;) {
			unwind(p, log_at[b]);
			c = next_sibling(p, b);
			if (c != KL_NONE)
				break;
			b = idom_of(p, b);
			if (b == KL_NONE)
				return;
		}
		b = c;
	}
}

/* Rename along the dominator tree in preorder, children in layout
 * order; then the unreachable blocks. */
void
promote_rename_all(promoter *p)
{
	kl_func *f = p->f;
	KL_ASSERT(f->nvalues < PHI_REF && p->nphis < KL_NONE - PHI_REF);
	uint32_t *cur = room(&p->cur, (uint64_t)p->nslots + 1);
	/* A store or a parameter sets a slot once; an access makes at most
	 * two fixups (a conversion and the load itself). */
	reserve_fresh(&p->log, &p->log_cap, sizeof *p->log,
		      (uint64_t)p->nacc + p->nphis + 1);
	reserve_fresh(&p->fixups, &p->fixups_cap, sizeof *p->fixups,
		      2 * (uint64_t)p->nacc + 1);
	/* Placement's candidates (or bit sets) and slot sites are dead now
	 * that the candidates are sorted: their memory can hold the edges
	 * and the incoming arguments until pruning is done (on huge-1M, 4
	 * MB less fresh memory). */
	borrow_or_reserve(&p->edges, &p->edges_cap, sizeof *p->edges,
			  p->nedges_in + 1, p->nedges_in, p->slot_site.a,
			  (size_t)p->slot_site.cap * sizeof *p->slot_site.a,
			  &p->edges_loan);
	void *lender = p->cands;
	size_t lender_bytes = (size_t)p->cands_cap * sizeof *p->cands;
	if ((size_t)p->bsets_cap * sizeof *p->bsets > lender_bytes) {
		lender = p->bsets;
		lender_bytes = (size_t)p->bsets_cap * sizeof *p->bsets;
	}
	borrow_or_reserve(&p->incoming, &p->incoming_cap, sizeof *p->incoming,
			  p->nincoming + 1, p->nincoming, lender, lender_bytes,
			  &p->incoming_loan);
	memset(cur, 0xff, ((size_t)p->nslots + 1) * sizeof *cur);
	if (p->tiny)
		rename_preorder(p);
	else
		rename_tree(p);
	for (uint32_t b = f->first_block; b != KL_NONE; b = f->blocks[b].next)
		if (!reached(p, b))
			rename_block(p, b, false);
}

/* ---- pruning and materialising the parameters ---- */

/*
 * Grow the pool once for the lists the survivors need: block parameter
 * lists and branch destinations that receive arguments. A list that
 * grows may move to a new block: at most twice its old and new elements
 * and a header. The old lists are bounded by the pool's length, not read
 * one by one (a cache miss each in a big function): the bound costs
 * address space, not memory, as only what is written is touched.
 * Only a hint: an edge or list beyond it grows the pool as usual. A
 * small function's pool in the module arena grows as it goes, by
 * doubling: a generous bound would leave arena memory unused.
 */
static void
reserve_lists(promoter *p, uint32_t live)
{
	kl_func *f = p->f;
	if (f->pool.arena)
		return;
	/* Parameter lists: old and new elements and a header, a block
	 * with a survivor at most one per survivor. */
	uint64_t slots = 4 * (uint64_t)live + 2 * (uint64_t)f->pool.len +
			 4 * (uint64_t)p->nedges;
	const uint8_t *used = (const uint8_t *)p->phi_used.a;
	const uint32_t *block_of = p->phi_block.a;
	/* an argument on each edge into its block (without a branch on
	 * which survive, which is no pattern) */
	for (uint32_t k = 0; k < p->nphis; k++)
		slots += 2 * (uint64_t)(used[k] * p->in_block[block_of[k]][1]);
	uint64_t left = DEST_BLOCK - 1 - (uint64_t)f->pool.len;
	uint64_t room = slots < left ? slots : left;
	pool_make_room(&f->pool, room);
	/* What the lists take at the pool's end is about half the bound
	 * without the old lists (huge-100k: 78,000 words of 163,000;
	 * promote-100k 176,000 of 334,000): that much is faulted in by one
	 * call. */
	uint64_t fresh = (slots - 2 * (uint64_t)f->pool.len) / 2;
	if (fresh && room) /* (an empty pool may have no array) */
		kl_prefault(f->pool.data + f->pool.len,
			    (size_t)(fresh < room ? fresh : room) *
				    sizeof *f->pool.data);
}

/*
 * Candidate q survives: mark the candidates its arguments name (one an
 * edge into its block, n words apart in incoming). Those newly marked
 * that the sweep below has passed (above q, or any once it is done:
 * `passed` is then the last candidate) go on the work list.
 */
static KL_ALWAYS_INLINE uint32_t
mark_args(promoter *p, uint8_t *used, uint32_t q, uint32_t passed,
	  uint32_t *work, uint32_t nwork)
{
	uint32_t b = p->phi_block.a[q], n = p->nphi[b];
	/* (read once: the marks' stores might alias them, for the
	 * compiler) */
	const uint32_t *arg = p->incoming + p->in_block[b][0] +
			      (q - p->first_phi[b]);
	uint32_t nin = p->in_block[b][1], nphis = p->nphis;
	for (uint32_t e = 0; e < nin; e++) {
		/* Without a branch (whether an argument is a candidate
		 * marked already is no pattern): anything but a candidate
		 * marks the spare byte used[nphis], which nothing reads. */
		uint32_t r = arg[e * n] - PHI_REF;
		bool is_cand = r < nphis;
		uint32_t at = is_cand ? r : nphis;
		bool fresh = is_cand & !used[at];
		used[at] = 1;
		work[nwork] = r;
		nwork += fresh & (r >= passed);
	}
	return nwork;
}

/*
 * A candidate survives when its value reaches a real use: a load took it,
 * or it is passed to a surviving candidate. These are exactly the blocks
 * where the slot is live on entry (a path from there reaches a load
 * without a store, and along it every parameter passes the value on), so
 * this is pruned SSA (Choi, Cytron and Ferrante 1991), found in time
 * linear in the minimal SSA instead of a liveness walk per slot.
 *
 * The marks spread against the edges, mostly to candidates of blocks
 * laid out earlier (dominators, predecessors): one sweep from the last
 * candidate to the first (they are in block order) visits the candidates'
 * arguments in the order they lie, and leaves to a work list only what
 * it had passed (loops' back edges). A work list alone visits them at
 * random (on huge-1M, 216,000 candidates: a cache miss each).
 */
static uint32_t
prune(promoter *p)
{
	kl_func *f = p->f;
	uint32_t nb = p->nblocks;
	if (p->nphis == 0)
		return 0;
	const uint32_t *first = p->first_phi, *nphi = p->nphi;
	uint8_t *used = (uint8_t *)p->phi_used.a;
	/* Renaming is done with its undo log. */
	borrow_or_reserve(&p->work.a, &p->work.cap, sizeof *p->work.a,
			  (uint64_t)p->nphis + 1, 0, p->log,
			  (size_t)p->log_cap * sizeof *p->log, &p->work_loan);
	uint32_t *work = p->work.a;
	uint32_t nwork = 0;
	for (uint32_t q = p->nphis; q-- > 0;)
		if (used[q])
			nwork = mark_args(p, used, q, q + 1, work, nwork);
	while (nwork) {
		uint32_t q = work[--nwork];
		nwork = mark_args(p, used, q, 0, work, nwork);
	}

	uint32_t live = 0;
	for (uint32_t k = 0; k < p->nphis; k++)
		live += used[k];
	uint32_t next_value = f->nvalues;
	if (live)
		func_reserve_values(f, next_value + live);
	reserve_lists(p, live);
	/* Numbers for the survivors block by block, in each block's
	 * candidate order (slot order): an order that does not depend on
	 * how the candidates were found. Each block's parameters are added
	 * to its list at once. */
	/* A block's or an edge's values at a time: sized by the most
	 * candidates a block has, not by all (a huge page zeroed for a few
	 * words, on a big function). */
	uint32_t *args = room(&p->args, (uint64_t)p->most_block_phis + 1);
	uint32_t *value = p->phi_value.a;
	const uint32_t *slot_of = p->phi_slot.a;
	for (uint32_t b = 0; b < nb; b++) {
		/* The survivors' slots first, without a branch on which
		 * survive (no pattern: a dead one's entries are written and
		 * left behind), then their values, numbered in order. */
		uint32_t n = 0, v0 = next_value;
		for (uint32_t q = first[b]; q < first[b] + nphi[b]; q++) {
			value[q] = v0 + n;
			args[n] = slot_of[q];
			n += used[q];
		}
		for (uint32_t j = 0; j < n; j++) {
			value_define(f, v0 + j, VK_PARAM,
				     p->slots[args[j]].type, b);
			args[j] = v0 + j;
		}
		next_value += n;
		if (n) {
			uint32_t *e = list_extend(&f->pool,
						  &f->blocks[b].params, n);
			for (uint32_t j = 0; j < n; j++) /* a few: no memcpy */
				e[j] = args[j];
		}
	}
	for (uint32_t k = 0; k < p->nfixups; k++) {
		const fixup *x = &p->fixups[k];
		uint32_t v = value[x->phi];
		if (x->kind == FIX_ALIAS)
			f->values[x->id].def = v;
		else
			f->insts[x->id].w[1] = v;
	}
	/* Branch arguments for the surviving parameters. */
	for (uint32_t e = 0; e < p->nedges; e++) {
		const edge *ed = &p->edges[e];
		/* The branches are cold by now, and far apart: asked for a
		 * few edges ahead (a cache miss each on a big function). */
		if (e + PREFETCH_AHEAD < p->nedges)
			KL_PREFETCH(&f->insts[ed[PREFETCH_AHEAD].inst]);
		uint32_t n = 0, q0 = first[ed->target];
		const uint32_t *in = p->incoming + ed->first;
		for (uint32_t j = 0, nj = nphi[ed->target]; j < nj; j++) {
			/* Without a branch on whether q survives (no
			 * pattern): a dead one's argument is written and
			 * left behind (what it reads is never used). */
			uint32_t q = q0 + j, v = in[j];
			if (KL_UNLIKELY(v == KL_NONE) && used[q])
				v = zero_of(p, p->slots[slot_of[q]].type);
			args[n] = is_phi_ref(v) ? value[v - PHI_REF] : v;
			n += used[q];
		}
		inst_dest_append_args(f, ed->inst, ed->dest, args, n);
	}
	return live;
}

uint32_t
promote_prune_params(promoter *p)
{
	uint32_t live = prune(p);
	/* Done with the edges and arguments: the lenders' memory back. */
	give_back(&p->edges, &p->edges_cap, &p->edges_loan);
	give_back(&p->incoming, &p->incoming_cap, &p->incoming_loan);
	give_back(&p->work.a, &p->work.cap, &p->work_loan);
	return live;
}
