/*
 * cse.c -- common subexpression elimination: an instruction that
 * computes what one dominating it computed already is removed, its result
 * an alias of the earlier one.
 *
 * Dominator-based value numbering (as in Briggs, Cooper and Simpson's
 * "Value numbering", the hash-based scoped form): a walk down the
 * dominator tree keeps a hash table of the instructions met on the way
 * from the entry, and a block's entries leave the table when the walk
 * leaves the block's subtree. An instruction whose key (opcode, small
 * immediate, result type, operands resolved through aliases, sorted for
 * commutative opcodes, immediate) is in the table is replaced by the
 * one there, which dominates it. Block parameters need no care: each is
 * its own value.
 *
 * Only instructions without effect and of one result, whose operands fit
 * in the instruction (constants, unary and binary operations, compares,
 * symbol addresses): not loads (memory may change between two),
 * allocas (each is another object), calls, or select (its operands live
 * in a list). Removing a chain's table entries in the reverse of their
 * insertion keeps each at the head of its hash chain when it goes, so a
 * plain chained table does.
 */
#include <stdlib.h>
#include <string.h>

#include "../ir/ir.h"
#include "../util/util.h"
#include "pass.h"

/* What an instruction computes, compared whole. */
typedef struct cse_key {
	uint16_t op;
	uint8_t aux;
	uint32_t type;
	uint64_t a, b;
} cse_key;

/* An instruction in the table, with its key and hash kept: a probe
 * compares keys, and leaving a block finds each entry's chain, without
 * working the key out again. */
typedef struct cse_entry {
	cse_key key;
	uint32_t hash, inst;
	uint32_t next; /* the next entry of its hash chain */
} cse_entry;

/* Scratch kept from one function to the next (a pass report's state). */
typedef struct cse {
	kl_cfg *cfg;
	kl_domtree *dt;
	uint32_t *heads;     /* hash chains: an entry, or KL_NONE */
	cse_entry *entries;  /* in insertion order: a stack */
	uint32_t *child;     /* by depth in the walk: the next child */
	uint32_t *mark;      /* by depth in the walk: the entries before */
	uint32_t *repl;      /* by value: what replaced it, or KL_NONE */
	uint32_t *resolved;  /* func_resolve_table's buffer */
	const uint32_t *table; /* func_resolve_table's answer */
	uint32_t heads_cap, entries_cap, walk_cap, repl_cap, resolved_cap;
	uint32_t nh, top;
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
	free(c->repl);
	free(c->resolved);
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
	v = resolve_with(f, c->table, v);
	return v < f->nvalues && c->repl[v] != KL_NONE ? c->repl[v] : v;
}

/* The key of instruction i, or false if cse does not take it. */
static bool
key_of(const cse *c, const kl_func *f, uint32_t i, cse_key *k)
{
	const kl_inst_data *d = &f->insts[i];
	const kl_opinfo *info = &kl_op_table[d->op];
	if (!(info->flags & KL_OPF_PURE) || info->nres != 1)
		return false;
	*k = (cse_key){ d->op, d->aux, value_type(f, d->w[0]), 0, 0 };
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
	return (uint32_t)(h >> 32);
}

static bool
same_key(const cse_key *x, const cse_key *y)
{
	return x->op == y->op && x->aux == y->aux && x->type == y->type &&
	       x->a == y->a && x->b == y->b;
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
	pass_grow_all(&c->walk_cap, (uint64_t)f->nblocks + 1, 2,
		      (void **[]){ (void **)&c->child, (void **)&c->mark },
		      (const size_t[]){ sizeof *c->child, sizeof *c->mark });
	kl_grow(&c->repl, &c->repl_cap, sizeof *c->repl,
		(uint64_t)f->nvalues + 1);
	memset(c->repl, 0xff, (size_t)f->nvalues * sizeof *c->repl);
}

/* The instructions of block b, each found in the table (then removed,
 * its result an alias of the one found) or added to it; how many were
 * removed. */
static uint64_t
number_block(cse *c, kl_func *f, uint32_t b)
{
	uint64_t n = 0;
	for (uint32_t i = f->blocks[b].first; i != KL_NONE;) {
		uint32_t next = f->nodes[i].next;
		cse_key k;
		if (!key_of(c, f, i, &k)) {
			i = next;
			continue;
		}
		uint32_t h = hash_key(&k) & (c->nh - 1);
		uint32_t hit = c->heads[h];
		while (hit != KL_NONE && !same_key(&k, &c->entries[hit].key))
			hit = c->entries[hit].next;
		uint32_t r = f->insts[i].w[0];
		if (hit != KL_NONE && r < f->nvalues) {
			uint32_t to = f->insts[c->entries[hit].inst].w[0];
			kl_inst_remove(f, (kl_inst){ i });
			if (kl_value_set_alias(f, (kl_value){ r },
					       (kl_value){ to }) == KL_OK) {
				c->repl[r] = to;
				n++;
			} else if (next != KL_NONE) { /* (broken input:
							* put it back) */
				kl_inst_move_before(f, (kl_inst){ i },
						    (kl_inst){ next });
			} else {
				kl_inst_move_to_end(f, (kl_inst){ i },
						    (kl_block){ b });
			}
		} else {
			c->entries[c->top] = (cse_entry){ k, h, i,
							  c->heads[h] };
			c->heads[h] = c->top++;
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
	/* Depth first down the tree: a block is numbered when the walk
	 * enters it, and its entries go when the walk leaves it. At each
	 * depth, child[] is the next child to enter and mark[] the table's
	 * top before the block's own entries. */
	uint64_t n = number_block(c, f, f->first_block);
	uint32_t depth = 1;
	c->mark[0] = 0;
	c->child[0] = kl_domtree_first_child(c->dt, (kl_block){
					     f->first_block }).id;
	while (depth) {
		uint32_t k = depth - 1, b = c->child[k];
		if (b == KL_NONE) {
			unwind(c, c->mark[k]);
			depth--;
			continue;
		}
		kl_block next = kl_domtree_next_sibling(c->dt, (kl_block){ b });
		c->child[k] = next.id;
		c->mark[depth] = c->top;
		n += number_block(c, f, b);
		c->child[depth++] =
			kl_domtree_first_child(c->dt, (kl_block){ b }).id;
	}
	kl_pass_report_count(rep, "insts", n);
	if (!keep)
		cse_free(c);
	return KL_OK;
}
