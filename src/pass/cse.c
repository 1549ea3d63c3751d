/*
 * cse.c -- common subexpression elimination: an instruction that
 * computes what one dominating it computed already is removed, its result
 * an alias of the earlier one; and a load that reads what one dominating
 * it read, or what a store dominating it wrote, with nothing written to
 * memory on any way between, is removed the same way.
 *
 * Dominator-based value numbering (as in Briggs, Cooper and Simpson's
 * "Value numbering", the hash-based scoped form): a walk down the
 * dominator tree keeps a hash table of the instructions met on the way
 * from the entry, and a block's entries leave the table when the walk
 * leaves the block's subtree. An instruction whose key (opcode, small
 * immediate, result type, operands resolved through aliases, sorted for
 * commutative opcodes, immediate) is in the table is replaced by the
 * value there, which dominates it. Block parameters need no care: each
 * is its own value.
 *
 * Pure instructions of one result: constants, unary and binary
 * operations, compares, select, symbol addresses. Not allocas (each is
 * another object) nor calls.
 *
 * Loads (as LLVM's EarlyCSE does them, with alias.c's facts): memory
 * has *generations*, numbers that change where memory may change, and
 * a load's key holds the generations of what it reads, so it finds
 * only a load of the same address value, offset, opcode and type met
 * since those last changed; that one did not trap, and read the same
 * bytes. Each object (an alloca, a symbol) has a generation of its own,
 * changed by a store to it; "unknown" changes at a call or a store
 * through an address of unknown base (they may write any object a
 * pointer can reach), and "shared" at those and at a store to such an
 * object (an escaped alloca, data). A load of an alloca whose address
 * does not escape reads under its own generation; of another object,
 * under its own and unknown; through an unknown base, under shared. A
 * block with more than one edge in starts a new *epoch*, in which every
 * generation is new (another way in may have written anything); a
 * block with one edge in starts as its predecessor, its parent in the
 * tree, ended. Objects' generations are given lazily, stamped with their
 * epoch, and put back as the walk leaves a block (a log of changes). A
 * `store` (not the narrowing istoreN) enters, under the generations it
 * starts, the plain load of its value's type at its address, which
 * gives the stored value.
 *
 * Removing a chain's table entries in the reverse of their insertion
 * keeps each at the head of its hash chain when it goes, so a plain
 * chained table does.
 */
#include <stdlib.h>
#include <string.h>

#include "../ir/ir.h"
#include "../util/util.h"
#include "alias.h"
#include "memfacts.h"
#include "pass.h"

/* What an instruction computes, compared whole. */
typedef struct cse_key {
	uint16_t op;
	uint8_t aux;
	uint32_t type; /* the result's machine class: an s32 computes what
			* an i32 does, and may stand for it (an alias) */
	uint64_t a, b;
} cse_key;

/* What the table knows: a key and the value that computes it (an
 * instruction's result, or a stored value), with the hash kept: a probe
 * compares keys, and leaving a block finds each entry's chain, without
 * working the key out again. */
typedef struct cse_entry {
	cse_key key;
	uint32_t hash, value;
	uint32_t next; /* the next entry of its hash chain */
} cse_entry;

/* A block deeper in the dominator tree than this starts with no facts
 * of memory, not its parent's: a tree a million deep would keep a
 * list at each depth. */
#define FACTS_DEPTH 4096

/* Memory's generations at a point of the walk (the header says what
 * each counts). */
typedef struct cse_memory {
	uint32_t epoch, unknown, shared;
} cse_memory;

/* An object's generation as it was before a change. */
typedef struct obj_change {
	uint32_t obj, gen, epoch;
} obj_change;

/* Scratch kept from one function to the next (a pass report's state). */
typedef struct cse {
	kl_cfg *cfg;
	kl_domtree *dt;
	uint32_t *heads;     /* hash chains: an entry, or KL_NONE */
	cse_entry *entries;  /* in insertion order: a stack */
	uint32_t *child;     /* by depth in the walk: the next child */
	uint32_t *mark;      /* by depth in the walk: the entries before */
	cse_memory *mem_end; /* by depth in the walk: the block's last
			      * generations */
	uint32_t *log_mark;  /* by depth in the walk: the log before */
	uint32_t *repl;      /* by value: what replaced it, or KL_NONE */
	uint32_t *resolved;  /* func_resolve_table's buffer */
	const uint32_t *table; /* func_resolve_table's answer */
	alias_info alias;
	uint32_t *obj_gen;   /* by object (alloca result, or nvalues +
			      * symbol): its generation, */
	uint32_t *obj_epoch; /* valid in this epoch only */
	obj_change *log;     /* objects' generations changed, to put back */
	uint32_t heads_cap, entries_cap, walk_cap, repl_cap, resolved_cap;
	uint32_t objs_cap, log_cap;
	uint32_t nh, top, log_top;
	cse_memory mem;      /* the generations at this point */
	mem_facts facts;     /* what memory holds at this point */
	mem_facts *facts_end; /* by depth, below FACTS_DEPTH: the block's
			       * last facts */
	uint32_t facts_cap;
	uint32_t nvalues;    /* f's at the start: the alias table's */
	uint32_t repl_len;   /* values repl[] covers: f's, as loads rebuilt
			      * add some */
	uint32_t gens;       /* generations given out (all functions) */
} cse;

static void
cse_free(void *state)
{
	cse *c = state;
	if (!c)
		return;
	kl_cfg_free(c->cfg);
	kl_domtree_free(c->dt);
	free(c->heads);
	free(c->entries);
	free(c->child);
	free(c->mark);
	free(c->mem_end);
	free(c->log_mark);
	free(c->repl);
	free(c->resolved);
	free(c->obj_gen);
	free(c->obj_epoch);
	free(c->log);
	free(c->facts_end);
	alias_free(&c->alias);
	free(c);
}

static void *
cse_new(void)
{
	cse *c = kl_calloc(1, sizeof *c);
	c->cfg = kl_cfg_new();
	c->dt = kl_domtree_new();
	return c;
}

/* v through its aliases and the replacements made so far (the alias
 * table was made before them). */
static uint64_t
resolve(const cse *c, const kl_func *f, uint32_t v)
{
	if (v < c->nvalues) /* (one made since is no alias of its own) */
		v = resolve_with(f, c->table, v);
	return v < c->repl_len && c->repl[v] != KL_NONE ? c->repl[v] : v;
}

/* Object x's generation in this epoch (a new one if it has none yet:
 * the change is logged, to be put back). */
static uint32_t
object_gen(cse *c, uint32_t x)
{
	if (c->obj_epoch[x] != c->mem.epoch) {
		kl_grow(&c->log, &c->log_cap, sizeof *c->log,
			(uint64_t)c->log_top + 1);
		c->log[c->log_top++] = (obj_change){ x, c->obj_gen[x],
						     c->obj_epoch[x] };
		c->obj_gen[x] = ++c->gens;
		c->obj_epoch[x] = c->mem.epoch;
	}
	return c->obj_gen[x];
}

/* Object x, whose generation changes: a new one, logged. */
static void
object_written(cse *c, uint32_t x)
{
	object_gen(c, x); /* (logs the old one if not yet) */
	kl_grow(&c->log, &c->log_cap, sizeof *c->log,
		(uint64_t)c->log_top + 1);
	c->log[c->log_top++] = (obj_change){ x, c->obj_gen[x],
					     c->obj_epoch[x] };
	c->obj_gen[x] = ++c->gens;
}

/* Put back the objects' generations changed since the log held n. */
static void
undo_objects(cse *c, uint32_t n)
{
	while (c->log_top > n) {
		const obj_change *e = &c->log[--c->log_top];
		c->obj_gen[e->obj] = e->gen;
		c->obj_epoch[e->obj] = e->epoch;
	}
}

/* The generations a load at p reads under, in one word. */
static uint64_t
place_gens(cse *c, const mem_place *p)
{
	uint32_t x = alias_object(&c->alias, p);
	if (x == KL_NONE)
		return c->mem.shared;
	uint64_t own = object_gen(c, x);
	/* (a call or a store through an unknown base may write it) */
	if (alias_call_reaches(&c->alias, p))
		own |= (uint64_t)c->mem.unknown << 32;
	return own;
}

/* The key of a load of type t at ptr+offset by opcode op, reading p
 * (which says what object that is), under the generations now. */
static cse_key
load_key(cse *c, const kl_func *f, uint16_t op, uint32_t t,
	 uint32_t ptr, uint32_t offset, const mem_place *p)
{
	uint64_t gens = place_gens(c, p);
	return (cse_key){ op, 0, t,
			  resolve(c, f, ptr) | (gens >> 32) << 32,
			  offset | gens << 32 };
}

static kl_type
value_class(const kl_func *f, uint32_t v)
{
	return type_class(f->module, value_type(f, v));
}

/* The key of instruction i, or false if cse does not take it; for a
 * load, where it reads in *p. */
static bool
key_of(cse *c, const kl_func *f, uint32_t i, cse_key *k, mem_place *p)
{
	const kl_inst_data *d = &f->insts[i];
	const kl_opinfo *info = &kl_op_table[d->op];
	if (info->format == KL_FMT_LOAD) {
		*p = alias_place(&c->alias, i);
		*k = load_key(c, f, d->op, value_class(f, d->w[0]), d->w[1],
			      d->w[2], p);
		return true;
	}
	if (!(info->flags & KL_OPF_PURE) || info->nres != 1)
		return false;
	*k = (cse_key){ d->op, d->aux, value_class(f, d->w[0]), 0, 0 };
	switch (info->format) {
	case KL_FMT_CONST:
		k->a = d->w[1] | (uint64_t)d->w[2] << 32;
		return true;
	case KL_FMT_SYMBOL:
		k->a = d->w[1];
		return true;
	case KL_FMT_UNARY:
		k->a = resolve(c, f, d->w[1]);
		return true;
	case KL_FMT_BINARY_IMM:
	case KL_FMT_ICMP_IMM:
		k->a = resolve(c, f, d->w[1]);
		k->b = (uint64_t)inst_imm(f, i);
		return true;
	case KL_FMT_BINARY:
	case KL_FMT_ICMP:
	case KL_FMT_FCMP: {
		uint64_t x = resolve(c, f, d->w[1]);
		uint64_t y = resolve(c, f, d->w[2]);
		bool swap = (info->flags & KL_OPF_COMMUTATIVE) && y < x;
		k->a = swap ? y : x;
		k->b = swap ? x : y;
		return true;
	}
	case KL_FMT_TERNARY: {
		if (list_len(&f->pool, d->w[1]) != 3)
			return false; /* (broken input) */
		const uint32_t *l = list_elems(&f->pool, d->w[1]);
		k->a = resolve(c, f, l[0]);
		k->b = resolve(c, f, l[1]) | resolve(c, f, l[2]) << 32;
		return true;
	}
	default:
		return false;
	}
}

static uint32_t
hash_key(const cse_key *k)
{
	uint64_t h = ((uint64_t)k->op << 40 | (uint64_t)k->aux << 32 |
		      k->type) * 0x9e3779b97f4a7c15u;
	h = (h ^ k->a) * 0xbf58476d1ce4e5b9u;
	h = (h ^ k->b) * 0x94d049bb133111ebu;
	/* (the products alone left keys that differ only high up, such as
	 * constants 1 << 49, 2 << 49, ..., in one chain of the table's
	 * mask: 32,000 of them took 3 s; a review found it) */
	return (uint32_t)kl_hash_mix(h);
}

static bool
same_key(const cse_key *x, const cse_key *y)
{
	return x->op == y->op && x->aux == y->aux && x->type == y->type &&
	       x->a == y->a && x->b == y->b;
}

/* repl[] for every value of f, the new ones replaced by nothing. */
static void
grow_repl(cse *c, const kl_func *f)
{
	kl_grow(&c->repl, &c->repl_cap, sizeof *c->repl,
		(uint64_t)f->nvalues + 1);
	if (f->nvalues > c->repl_len)
		memset(c->repl + c->repl_len, 0xff,
		       (size_t)(f->nvalues - c->repl_len) * sizeof *c->repl);
	c->repl_len = f->nvalues;
}

/* Room for f: a table of at least twice its instructions' chains (a
 * power of two), all empty, and no value replaced. */
static void
cse_size(cse *c, const kl_func *f)
{
	uint32_t nh = 16;
	while (nh < 2 * (uint64_t)f->ninsts && nh < (1u << 31))
		nh *= 2;
	kl_grow(&c->heads, &c->heads_cap, sizeof *c->heads, nh);
	memset(c->heads, 0xff, (size_t)nh * sizeof *c->heads);
	c->nh = nh;
	c->top = 0;
	kl_grow(&c->entries, &c->entries_cap, sizeof *c->entries,
		(uint64_t)f->ninsts + 1);
	pass_grow_all(&c->walk_cap, (uint64_t)f->nblocks + 1, 4,
		      (void **[]){ (void **)&c->child, (void **)&c->mark,
				   (void **)&c->mem_end,
				   (void **)&c->log_mark },
		      (const size_t[]){ sizeof *c->child, sizeof *c->mark,
					sizeof *c->mem_end,
					sizeof *c->log_mark });
	c->log_top = 0;
	c->nvalues = f->nvalues;
	c->facts.n = 0;
	c->repl_len = 0;
	grow_repl(c, f);
	/* Objects' stamps are epochs, and generations go on rising from
	 * one function to the next, so no stamp left by another function
	 * matches: no clearing per function (a module's symbols are
	 * objects of every function). Only new room, and the rare wrap,
	 * clear them. */
	uint32_t had = c->objs_cap;
	uint64_t objs = (uint64_t)f->nvalues + f->module->nsyms;
	pass_grow_all(&c->objs_cap, objs, 2,
		      (void **[]){ (void **)&c->obj_gen,
				   (void **)&c->obj_epoch },
		      (const size_t[]){ sizeof *c->obj_gen,
					sizeof *c->obj_epoch });
	if (c->gens > UINT32_MAX / 2)
		had = c->gens = 0;
	memset(c->obj_epoch + had, 0,
	       (c->objs_cap - had) * sizeof *c->obj_epoch);
}

/* Keep the facts the block at `depth` ended with, for its children. */
static void
save_facts(cse *c, uint32_t depth)
{
	if (depth >= FACTS_DEPTH)
		return;
	kl_grow(&c->facts_end, &c->facts_cap, sizeof *c->facts_end,
		(uint64_t)depth + 1);
	c->facts_end[depth] = c->facts;
}

/* A new epoch: every generation new (a block with several ways in). */
static void
new_epoch(cse *c)
{
	c->mem.epoch = ++c->gens;
	c->mem.unknown = ++c->gens;
	c->mem.shared = ++c->gens;
}

static void
enter(cse *c, const cse_key *k, uint32_t h, uint32_t value)
{
	if (c->top == c->entries_cap) /* (loads rebuilt made more) */
		kl_grow(&c->entries, &c->entries_cap, sizeof *c->entries,
			(uint64_t)c->top + 1);
	c->entries[c->top] = (cse_entry){ *k, h, value, c->heads[h] };
	c->heads[h] = c->top++;
}

/* Instruction i may write memory: new generations for what it may
 * write, under which a plain store's value is what a load of its type
 * at its address reads. */
static void
memory_written(cse *c, const kl_func *f, uint32_t i)
{
	const kl_inst_data *d = &f->insts[i];
	if (kl_op_table[d->op].format != KL_FMT_STORE) { /* a call */
		c->mem.unknown = ++c->gens;
		c->mem.shared = ++c->gens;
		memfacts_call(&c->facts, &c->alias);
		return;
	}
	mem_place p = alias_place(&c->alias, i);
	memfacts_store(&c->facts, &c->alias, &p,
		       (uint32_t)resolve(c, f, d->w[0]));
	uint32_t x = alias_object(&c->alias, &p);
	if (x == KL_NONE)
		c->mem.unknown = ++c->gens;
	else
		object_written(c, x);
	if (x == KL_NONE || alias_call_reaches(&c->alias, &p))
		c->mem.shared = ++c->gens;
	if (d->op != KL_OP_STORE)
		return;
	uint32_t v = (uint32_t)resolve(c, f, d->w[0]);
	if (v >= f->nvalues)
		return; /* (broken input: an alias chain that goes round) */
	cse_key k = load_key(c, f, KL_OP_LOAD, value_class(f, v), d->w[1],
			     d->w[2], &p);
	enter(c, &k, hash_key(&k) & (c->nh - 1), v);
}

/* The instructions of block b, each found in the table (then removed,
 * its result an alias of the value found) or added to it; how many were
 * removed, and how many of those were loads. */
static uint64_t
number_block(cse *c, kl_func *f, uint32_t b, uint64_t *loads)
{
	uint64_t n = 0;
	for (uint32_t i = f->blocks[b].first; i != KL_NONE;) {
		uint32_t next = f->nodes[i].next;
		cse_key k;
		if (kl_op_table[f->insts[i].op].flags & KL_OPF_CAN_STORE)
			memory_written(c, f, i);
		else if (f->insts[i].op == KL_OP_ALLOCA)
			memfacts_alloca(&c->facts, f->insts[i].w[0],
					f->insts[i].w[1]);
		mem_place p = { 0 };
		if (!key_of(c, f, i, &k, &p)) {
			i = next;
			continue;
		}
		uint32_t h = hash_key(&k) & (c->nh - 1);
		uint32_t hit = c->heads[h];
		while (hit != KL_NONE && !same_key(&k, &c->entries[hit].key))
			hit = c->entries[hit].next;
		uint32_t r = f->insts[i].w[0];
		bool load = kl_op_table[f->insts[i].op].format == KL_FMT_LOAD;
		uint32_t to = hit != KL_NONE ? c->entries[hit].value : KL_NONE;
		uint32_t before = f->nodes[i].prev, after = next;
		if (to == KL_NONE && load && r < c->repl_len) {
			/* rebuilt from what memory is known to hold: of two
			 * values only in a private alloca, whose stores dse
			 * may then remove (else it costs more than a load) */
			bool private = p.kind == BASE_ALLOCA &&
				       !alias_call_reaches(&c->alias, &p);
			to = memfacts_rebuild(&c->facts, f, i, &p, private);
			grow_repl(c, f);
			/* what it was rebuilt of, looked at next (found in
			 * the table, an ireduce made twice goes) */
			uint32_t made = before == KL_NONE
					? f->blocks[b].first
					: f->nodes[before].next;
			next = made != i ? made : next;
		}
		if (to != KL_NONE && r < c->repl_len) {
			kl_inst_remove(f, (kl_inst){ i });
			if (kl_value_set_alias(f, (kl_value){ r },
					       (kl_value){ to }) == KL_OK) {
				c->repl[r] = to;
				n++;
				*loads += load;
			} else if (after != KL_NONE) { /* (broken input:
							 * put it back) */
				kl_inst_move_before(f, (kl_inst){ i },
						    (kl_inst){ after });
			} else {
				kl_inst_move_to_end(f, (kl_inst){ i },
						    (kl_block){ b });
			}
		} else {
			enter(c, &k, h, r);
			if (f->insts[i].op == KL_OP_LOAD && r < c->repl_len)
				memfacts_load(&c->facts, &p, r);
		}
		i = next;
	}
	return n;
}

/* Take the entries past the first `from` out of the table, the last in
 * first: each is at the head of its chain then. */
static void
unwind(cse *c, uint32_t from)
{
	while (c->top > from) {
		const cse_entry *e = &c->entries[--c->top];
		c->heads[e->hash] = e->next;
	}
}

kl_status
kl_cse_func(kl_func *f, kl_pass_report *rep)
{
	func_edited(f);
	if (f->first_block == KL_NONE)
		return KL_OK;
	bool keep;
	cse *c = pass_scratch(rep, cse_free, cse_new, &keep);
	kl_cfg_compute(c->cfg, f);
	kl_domtree_compute(c->dt, f, c->cfg);
	cse_size(c, f);
	c->table = func_resolve_table(f, &c->resolved, &c->resolved_cap);
	alias_compute(&c->alias, f, c->table);
	/* Depth first down the tree: a block is numbered when the walk
	 * enters it, and its entries go when the walk leaves it. At each
	 * depth, child[] is the next child to enter, mark[] the table's
	 * top before the block's own entries, log_mark[] the objects' log
	 * before them, and mem_end[] the generations the block ended
	 * with. */
	uint64_t loads = 0;
	new_epoch(c);
	uint64_t n = number_block(c, f, f->first_block, &loads);
	uint32_t depth = 1;
	c->mark[0] = 0;
	c->log_mark[0] = 0;
	c->mem_end[0] = c->mem;
	save_facts(c, 0);
	c->child[0] = kl_domtree_first_child(c->dt, (kl_block){
					     f->first_block }).id;
	while (depth) {
		uint32_t k = depth - 1, b = c->child[k];
		if (b == KL_NONE) {
			unwind(c, c->mark[k]);
			undo_objects(c, c->log_mark[k]);
			depth--;
			continue;
		}
		kl_block next = kl_domtree_next_sibling(c->dt, (kl_block){ b });
		c->child[k] = next.id;
		c->mark[depth] = c->top;
		c->log_mark[depth] = c->log_top;
		/* One edge in: from the parent, as the parent left memory. */
		kl_block blk = { b };
		bool one_way_in = kl_cfg_num_preds(c->cfg, blk) == 1;
		if (one_way_in)
			c->mem = c->mem_end[k];
		else
			new_epoch(c);
		c->facts.n = 0;
		if (one_way_in && k < FACTS_DEPTH)
			c->facts = c->facts_end[k];
		n += number_block(c, f, b, &loads);
		c->mem_end[depth] = c->mem;
		save_facts(c, depth);
		c->child[depth++] =
			kl_domtree_first_child(c->dt, (kl_block){ b }).id;
	}
	kl_pass_report_count(rep, "insts", n);
	kl_pass_report_count(rep, "loads", loads);
	if (!keep)
		cse_free(c);
	return KL_OK;
}
