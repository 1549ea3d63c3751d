/*
 * func.c -- a function's entity tables: instructions, values, blocks,
 * signature references and pooled constants, and the read accessors of the
 * public API.
 *
 * Values and blocks are numbered by the author when parsed (v7 is entry 7
 * of the value table) so that printing reproduces the source and
 * diagnostics use the author's names; numbers never used are VK_UNUSED
 * holes (blocks without BLOCK_EXISTS). New entities take numbers above all
 * existing ones, so output stays deterministic.
 */
#include <stdlib.h>
#include <string.h>

#include "ir.h"

kl_func *
func_new(kl_module *m, uint32_t sym, uint32_t sig)
{
	kl_func *f = kl_arena_alloc(&m->arena, sizeof *f);
	func_init(f, m, sym, sig);
	return f;
}

void
func_init(kl_func *f, kl_module *m, uint32_t sym, uint32_t sig)
{
	memset(f, 0, sizeof *f);
	f->module = m;
	f->sym = sym;
	f->sig = sig;
	f->first_block = f->last_block = KL_NONE;
}

/* Frees the tables only: the struct itself lives in the module arena (or,
 * for the parser's working function, inside the parser). */
void
func_free(kl_func *f)
{
	uint32_t a = f->in_arena;
	if (!(a & TAB_INSTS))
		free(f->insts);
	if (!(a & TAB_NODES))
		free(f->nodes);
	if (!(a & TAB_VALUES))
		free(f->values);
	if (!(a & TAB_BLOCKS))
		free(f->blocks);
	pool_free_all(&f->pool);
	if (!(a & TAB_CONSTS))
		free(f->consts);
	if (!(a & TAB_SIGREFS))
		free(f->sigrefs);
	if (!(a & TAB_INST_LINES))
		free(f->inst_lines);
	if (!(a & TAB_BLOCK_LINES))
		free(f->block_lines);
	if (!(a & TAB_SIGREF_LINES))
		free(f->sigref_lines);
}

void
func_grow(kl_func *f, uint32_t table, void *p, uint32_t *cap,
	  size_t elem_size, uint64_t need)
{
	if (need <= *cap)
		return;
	if (f->in_arena & table) {
		if (!kl_arena_grow(&f->module->arena, p, cap, elem_size, need,
				   ARENA_TABLE_MAX))
			f->in_arena &= ~table;
	} else {
		kl_grow(p, cap, elem_size, need);
	}
}

void
func_grow_lined(kl_func *f, uint32_t table, void *p, uint32_t line_table,
		uint32_t **lines, uint32_t *cap, size_t elem_size,
		uint64_t need)
{
	uint32_t lines_cap = *cap;
	func_grow(f, table, p, cap, elem_size, need);
	if (*lines)
		func_grow(f, line_table, lines, &lines_cap, sizeof **lines,
			  *cap);
}

/* Bytes of the tables func_take_tables moves. */
static size_t
table_bytes(const kl_func *f)
{
	return (size_t)f->ninsts * (sizeof *f->insts + sizeof *f->nodes) +
	       (size_t)f->nvalues * sizeof *f->values +
	       (size_t)f->nconsts * sizeof *f->consts +
	       (size_t)f->nblocks * sizeof *f->blocks +
	       (size_t)f->pool.len * sizeof *f->pool.data +
	       (size_t)f->nsigrefs * sizeof *f->sigrefs +
	       (f->inst_lines ? (size_t)f->ninsts * sizeof *f->inst_lines : 0) +
	       (f->block_lines ? (size_t)f->nblocks * sizeof *f->block_lines
			       : 0) +
	       (f->sigref_lines ? (size_t)f->nsigrefs * sizeof *f->sigref_lines
				: 0);
}

/*
 * Carve n bytes from *at for a copy of src; NULL stays NULL (it means "no
 * such table", e.g. no source lines). The tables are carved in order of
 * alignment, and the sizes of all but the last 4-byte-aligned ones are
 * multiples of 8, so every table is aligned for its elements.
 */
_Static_assert(sizeof(kl_inst_data) % 16 == 0 &&
		       sizeof(kl_inst_node) % 16 == 0 &&
		       sizeof(kl_value_data) % 8 == 0 &&
		       sizeof(kl_block_data) % 8 == 0,
	       "tables carved in order keep their alignment");
static void *
carve(char **at, const void *src, size_t n)
{
	if (!src)
		return NULL;
	void *d = *at;
	if (n)
		memcpy(d, src, n);
	*at += n;
	return d;
}

/* Above this many bytes a function's tables are handed over, not copied:
 * the copy would cost more than the cache warmth it buys. */
#define TAKE_COPY_MAX ((size_t)1 << 20)

/*
 * The capacity of a value table copied into the arena for nv values.
 * Passes add a few values to most functions (promote: a parameter or
 * two, a zero); in a table filling its place exactly, the first would
 * move the whole table to fresh arena memory (on small-1M, 5.4 MB of
 * it). An eighth more and four is room enough for what promote adds to
 * every function of its benchmarks; a function that needs more grows as
 * any table does.
 */
static uint32_t
value_capacity(uint32_t nv)
{
	uint64_t cap = (uint64_t)nv + nv / 8 + 4;
	return cap < UINT32_MAX ? (uint32_t)cap : nv;
}

void
func_take_tables(kl_func *f, kl_func *from)
{
	KL_ASSERT(f->ninsts == 0 && f->insts_cap == 0 && f->nvalues == 0 &&
		  f->nblocks == 0 && f->pool.cap == 0 && f->nconsts == 0 &&
		  f->nsigrefs == 0 && from->in_arena == 0 &&
		  !from->pool.arena);
	size_t total = table_bytes(from);
	uint32_t ni = from->ninsts, nv = from->nvalues, nb = from->nblocks;
	uint32_t nc = from->nconsts, ns = from->nsigrefs, np = from->pool.len;
	if (total > TAKE_COPY_MAX) {
		/*
		 * Hand over with the capacity the parser reserved (from its
		 * line count): the pages past the end were never touched, so
		 * they cost address space only, and a pass that adds values
		 * or instructions fills them instead of copying the tables
		 * to fresh memory (tens of MB for a big function; a page
		 * fault costs over 10 us here).
		 */
		f->insts = from->insts;
		f->nodes = from->nodes;
		f->values = from->values;
		f->consts = from->consts;
		f->blocks = from->blocks;
		f->pool = from->pool;
		f->sigrefs = from->sigrefs;
		f->inst_lines = from->inst_lines;
		f->block_lines = from->block_lines;
		f->sigref_lines = from->sigref_lines;
		f->insts_cap = from->insts_cap;
		f->values_cap = from->values_cap;
		f->consts_cap = from->consts_cap;
		f->blocks_cap = from->blocks_cap;
		f->sigrefs_cap = from->sigrefs_cap;
		from->insts = NULL;
		from->nodes = NULL;
		from->values = NULL;
		from->consts = NULL;
		from->blocks = NULL;
		from->sigrefs = NULL;
		from->inst_lines = NULL;
		from->block_lines = NULL;
		from->sigref_lines = NULL;
		from->insts_cap = from->values_cap = from->consts_cap = 0;
		from->blocks_cap = from->sigrefs_cap = 0;
		memset(&from->pool, 0, sizeof from->pool);
	} else {
		uint32_t vcap = from->values ? value_capacity(nv) : nv;
		char *at = kl_arena_alloc(&f->module->arena,
					  total + (size_t)(vcap - nv) *
							  sizeof *f->values);
		f->insts = carve(&at, from->insts, ni * sizeof *f->insts);
		f->nodes = carve(&at, from->nodes, ni * sizeof *f->nodes);
		f->values = carve(&at, from->values, nv * sizeof *f->values);
		at += (size_t)(vcap - nv) * sizeof *f->values;
		f->consts = carve(&at, from->consts, nc * sizeof *f->consts);
		f->blocks = carve(&at, from->blocks, nb * sizeof *f->blocks);
		f->pool = from->pool;
		f->pool.data = carve(&at, from->pool.data,
				     np * sizeof *f->pool.data);
		f->pool.cap = np;
		f->pool.arena = &f->module->arena;
		f->sigrefs = carve(&at, from->sigrefs, ns * sizeof *f->sigrefs);
		f->inst_lines = carve(&at, from->inst_lines,
				      ni * sizeof *f->inst_lines);
		f->block_lines = carve(&at, from->block_lines,
				       nb * sizeof *f->block_lines);
		f->sigref_lines = carve(&at, from->sigref_lines,
					ns * sizeof *f->sigref_lines);
		f->insts_cap = ni;
		f->values_cap = vcap;
		f->consts_cap = nc;
		f->blocks_cap = nb;
		f->sigrefs_cap = ns;
		f->in_arena = TAB_INSTS | TAB_NODES | TAB_VALUES | TAB_BLOCKS |
			      TAB_CONSTS | TAB_SIGREFS | TAB_INST_LINES |
			      TAB_BLOCK_LINES | TAB_SIGREF_LINES;
		memset(from->pool.free_head, 0, sizeof from->pool.free_head);
		from->pool.len = 0;
	}
	f->ninsts = ni;
	f->nvalues = nv;
	f->nblocks = nb;
	f->nconsts = nc;
	f->nsigrefs = ns;
	f->first_block = from->first_block;
	f->last_block = from->last_block;
	f->has_aliases = from->has_aliases;
	from->has_aliases = false;
	from->ninsts = from->nvalues = from->nblocks = 0;
	from->nconsts = from->nsigrefs = 0;
	from->first_block = from->last_block = KL_NONE;
}

/* A new instruction in a table with room for it. */
static inline uint32_t
add_inst(kl_func *f, kl_opcode op)
{
	uint32_t i = f->ninsts++;
	memset(&f->insts[i], 0, sizeof f->insts[i]);
	f->insts[i].op = (uint16_t)op;
	f->nodes[i] = (kl_inst_node){ KL_NONE, KL_NONE, KL_NONE, 0 };
	if (f->inst_lines)
		f->inst_lines[i] = 0;
	return i;
}

/* The same after growing the tables: apart, so that the common path (the
 * parser presizes the tables) needs no stack frame. */
static KL_NOINLINE uint32_t
add_inst_grown(kl_func *f, kl_opcode op)
{
	uint32_t cap = f->insts_cap;
	func_grow(f, TAB_INSTS, &f->insts, &cap, sizeof *f->insts,
		  f->ninsts + 1);
	cap = f->insts_cap;
	func_grow_lined(f, TAB_NODES, &f->nodes, TAB_INST_LINES,
			&f->inst_lines, &cap, sizeof *f->nodes, f->ninsts + 1);
	f->insts_cap = cap;
	return add_inst(f, op);
}

uint32_t
func_new_inst(kl_func *f, kl_opcode op)
{
	if (KL_UNLIKELY(f->ninsts == f->insts_cap))
		return add_inst_grown(f, op);
	return add_inst(f, op);
}

/*
 * Resize a table to exactly n elements (n above its capacity). A table in
 * the module arena moves inside it while it stays under ARENA_TABLE_MAX
 * (a small function's tables fill their place exactly, or nearly, and
 * growing would otherwise move them to twice their size), and out to
 * malloc beyond, as func_grow's do.
 */
static void
resize(kl_func *f, uint32_t table, void *p, uint32_t cap, size_t elem,
       uint32_t n)
{
	void **pp = p;
	size_t bytes = kl_table_bytes(n, elem);
	if (f->in_arena & table) {
		bool stays = bytes <= ARENA_TABLE_MAX;
		void *q = stays ? kl_arena_alloc(&f->module->arena, bytes)
				: kl_malloc(bytes);
		if (cap)
			memcpy(q, *pp, (size_t)cap * elem);
		*pp = q;
		if (!stays) {
			f->in_arena &= ~table;
			kl_advise_huge(q, bytes);
		}
	} else {
		*pp = kl_realloc_table(*pp, (size_t)cap * elem, bytes);
	}
}

void
func_presize(kl_func *f, uint32_t ninsts, uint32_t nvalues)
{
	if (ninsts > f->insts_cap) {
		uint32_t cap = f->insts_cap;
		resize(f, TAB_INSTS, &f->insts, cap, sizeof *f->insts, ninsts);
		resize(f, TAB_NODES, &f->nodes, cap, sizeof *f->nodes, ninsts);
		if (f->inst_lines)
			resize(f, TAB_INST_LINES, &f->inst_lines, cap,
			       sizeof *f->inst_lines, ninsts);
		f->insts_cap = ninsts;
	}
	if (nvalues > f->values_cap) {
		resize(f, TAB_VALUES, &f->values, f->values_cap,
		       sizeof *f->values, nvalues);
		f->values_cap = nvalues;
	}
}

void
func_reserve_values(kl_func *f, uint32_t n)
{
	if (n <= f->nvalues)
		return;
	if (n > f->values_cap)
		func_grow(f, TAB_VALUES, &f->values, &f->values_cap,
			  sizeof *f->values, n);
	/* Many values at once (a pass's new parameters) are faulted in by
	 * one call, not page by page: room past the old count, grown or
	 * left spare by the parser, is likely untouched. */
	if (n - f->nvalues >= 512)
		kl_prefault(f->values + f->nvalues,
			    (size_t)(n - f->nvalues) * sizeof *f->values);
	for (uint32_t v = f->nvalues; v < n; v++)
		f->values[v] = value_hole();
	f->nvalues = n;
}

uint32_t
func_new_value(kl_func *f)
{
	uint32_t v = f->nvalues;
	func_reserve_values(f, v + 1);
	return v;
}

/*
 * A function's IR is usually cold when a walk starts (the module was
 * parsed long before), and the walks follow the layout links, one
 * dependent load after another; with the lines already on their way,
 * the misses overlap instead (keel verify: 26.7 to 20.2 ms on small-1M).
 * Nothing for a big function, which a walk reads in order: the hardware
 * prefetches it.
 */
enum { PREFETCH_MOST_INSTS = 4096 };

/* The tables a walk over the layout reads first: instructions, layout. */
static void
prefetch_layout(const kl_func *f)
{
	for (uint32_t i = 0; i < f->ninsts; i += 4) {
		KL_PREFETCH(&f->nodes[i]);
		KL_PREFETCH(&f->insts[i]);
	}
}

/* The others: values, blocks, value lists; and, to write, where a pass
 * adds values and value lists. */
static void
prefetch_rest(const kl_func *f)
{
	for (uint32_t v = 0; v < f->nvalues; v += 8)
		KL_PREFETCH(&f->values[v]);
	for (uint32_t b = 0; b < f->nblocks; b += 2)
		KL_PREFETCH(&f->blocks[b]);
	for (uint32_t k = 0; k < f->pool.len; k += 16)
		KL_PREFETCH(&f->pool.data[k]);
	if (f->nvalues < f->values_cap)
		KL_PREFETCH_WRITE(&f->values[f->nvalues]);
	if (f->pool.len < f->pool.cap)
		KL_PREFETCH_WRITE(&f->pool.data[f->pool.len]);
}

void
func_prefetch(const kl_func *f)
{
	if (f->ninsts > PREFETCH_MOST_INSTS)
		return;
	prefetch_layout(f);
	prefetch_rest(f);
}

/*
 * Passes go through a module in order: asked for while one function is
 * worked on, the next one's lines arrive in time for its first walk,
 * instead of at that walk (promote: some 4% off small-1M against
 * prefetching the function itself at its start). In two parts, at two
 * points of the work on f: asked for all at once, the misses outnumber
 * what the core keeps in flight, and it waits for them to drain (promote
 * on small-1M: 3.2 ms at the start of its functions, 1.9 with the rest
 * asked for after the first walk; then both a step later, after the
 * walk and after the slots, a little less again).
 */
static const kl_func *
next_func(const kl_func *f)
{
	const kl_module *m = f->module;
	if (f->sym + 1 >= m->nsyms)
		return NULL;
	const kl_func *g = m->syms[f->sym + 1].func;
	return g && g->ninsts <= PREFETCH_MOST_INSTS ? g : NULL;
}

void
func_prefetch_next_layout(const kl_func *f)
{
	const kl_func *g = next_func(f);
	if (g)
		prefetch_layout(g);
}

void
func_prefetch_next_rest(const kl_func *f)
{
	const kl_func *g = next_func(f);
	if (g)
		prefetch_rest(g);
}

uint32_t
value_resolve(const kl_func *f, uint32_t v)
{
	/* Bounded so that an alias cycle (which the verifier reports) cannot
	 * hang a caller. */
	for (uint32_t steps = 0; steps <= f->nvalues; steps++) {
		if (v >= f->nvalues || f->values[v].kind != VK_ALIAS)
			return v;
		v = f->values[v].def;
	}
	return KL_NONE;
}

const uint32_t *
func_resolve_table(const kl_func *f, uint32_t **buf, uint32_t *cap)
{
	uint32_t n = f->nvalues;
	const kl_value_data *val = f->values;
	bool chains = false;
	for (uint32_t v = 0; v < n && !chains; v++)
		chains = val[v].kind == VK_ALIAS && val[v].def < n &&
			 val[v].kind == val[val[v].def].kind;
	if (!chains)
		return NULL;
	kl_grow(buf, cap, sizeof **buf, n);
	/* Each chain is walked once: its values are marked on the way
	 * (ON_PATH), then given its end; a walk that meets a value already
	 * done takes that value's end, one that meets its own path is on a
	 * cycle (KL_NONE, as value_resolve says). */
	const uint32_t UNSEEN = KL_NONE - 2, ON_PATH = KL_NONE - 1;
	uint32_t *out = *buf;
	for (uint32_t v = 0; v < n; v++)
		out[v] = val[v].kind == VK_ALIAS ? UNSEEN : v;
	for (uint32_t v = 0; v < n; v++) {
		if (out[v] != UNSEEN)
			continue;
		uint32_t x = v, end;
		for (;;) {
			if (x >= n) {
				end = x;
				break;
			}
			if (out[x] == ON_PATH) {
				end = KL_NONE;
				break;
			}
			if (out[x] != UNSEEN) {
				end = out[x];
				break;
			}
			out[x] = ON_PATH;
			x = val[x].def;
		}
		for (x = v; x < n && out[x] == ON_PATH; x = val[x].def)
			out[x] = end;
	}
	return out;
}

void
func_reserve_blocks(kl_func *f, uint32_t n)
{
	if (n <= f->nblocks)
		return;
	/* A block number must fit a destination word beside DEST_BLOCK;
	 * and the dominator tree's keys (domtree.c) need n < 2^31. */
	if (n >= DEST_BLOCK)
		kl_out_of_room(__FILE__, __LINE__, __func__, "too many blocks");
	uint32_t cap = f->blocks_cap;
	func_grow_lined(f, TAB_BLOCKS, &f->blocks, TAB_BLOCK_LINES,
			&f->block_lines, &cap, sizeof *f->blocks, n);
	f->blocks_cap = cap;
	for (uint32_t b = f->nblocks; b < n; b++) {
		f->blocks[b] = block_hole();
		if (f->block_lines)
			f->block_lines[b] = 0;
	}
	f->nblocks = n;
}

uint32_t
func_new_block_id(kl_func *f)
{
	uint32_t b = f->nblocks;
	func_reserve_blocks(f, b + 1);
	f->blocks[b].flags = BLOCK_EXISTS;
	return b;
}

/* ---- immediates ---- */

int64_t
inst_imm(const kl_func *f, uint32_t i)
{
	const kl_inst_data *d = &f->insts[i];
	switch (kl_op_info((kl_opcode)d->op)->format) {
	case KL_FMT_CONST:
		return (int64_t)((uint64_t)d->w[1] | (uint64_t)d->w[2] << 32);
	case KL_FMT_BINARY_IMM:
	case KL_FMT_ICMP_IMM:
		if (d->bits & IMM_POOLED)
			return f->consts[d->w[2]];
		return (int32_t)d->w[2];
	case KL_FMT_ALLOCA:
		return d->w[1];
	default:
		return 0;
	}
}

void
inst_set_imm(kl_func *f, uint32_t i, int64_t imm)
{
	kl_inst_data *d = &f->insts[i];
	switch (kl_op_info((kl_opcode)d->op)->format) {
	case KL_FMT_CONST:
		d->w[1] = (uint32_t)(uint64_t)imm;
		d->w[2] = (uint32_t)((uint64_t)imm >> 32);
		break;
	case KL_FMT_BINARY_IMM:
	case KL_FMT_ICMP_IMM:
		if (imm >= INT32_MIN && imm <= INT32_MAX) {
			d->bits &= (uint8_t)~IMM_POOLED;
			d->w[2] = (uint32_t)(int32_t)imm;
		} else {
			func_grow(f, TAB_CONSTS, &f->consts, &f->consts_cap,
				  sizeof *f->consts, f->nconsts + 1);
			f->consts[f->nconsts] = imm;
			d->bits |= IMM_POOLED;
			d->w[2] = f->nconsts++;
		}
		break;
	default:
		KL_UNREACHABLE();
	}
}

/* ---- public read accessors ---- */

kl_module *
kl_func_module(const kl_func *f)
{
	return f->module;
}

kl_sym
kl_func_sym(const kl_func *f)
{
	return (kl_sym){ f->sym };
}

kl_signature
kl_func_signature(const kl_func *f)
{
	return module_sig(f->module, f->sig);
}

kl_signature
kl_func_sigref_signature(const kl_func *f, kl_sigref s)
{
	/* (a hole, sigN never declared, is KL_NONE: out of range too) */
	uint32_t sig = s.id < f->nsigrefs ? f->sigrefs[s.id] : KL_NONE;
	return module_sig(f->module, sig);
}

static bool
block_ok(const kl_func *f, kl_block b)
{
	return b.id < f->nblocks && (f->blocks[b.id].flags & BLOCK_EXISTS);
}

static bool
inst_ok(const kl_func *f, kl_inst i)
{
	return i.id < f->ninsts;
}

static bool
value_ok(const kl_func *f, kl_value v)
{
	return v.id < f->nvalues;
}

kl_block
kl_func_first_block(const kl_func *f)
{
	return (kl_block){ f->first_block };
}

kl_block
kl_block_next(const kl_func *f, kl_block b)
{
	return block_ok(f, b) ? (kl_block){ f->blocks[b.id].next }
			      : KL_NO_BLOCK;
}

kl_block
kl_block_prev(const kl_func *f, kl_block b)
{
	return block_ok(f, b) ? (kl_block){ f->blocks[b.id].prev }
			      : KL_NO_BLOCK;
}

uint32_t
kl_block_num_params(const kl_func *f, kl_block b)
{
	return block_ok(f, b) ? list_len(&f->pool, f->blocks[b.id].params) : 0;
}

kl_value
kl_block_param(const kl_func *f, kl_block b, uint32_t i)
{
	if (i >= kl_block_num_params(f, b))
		return KL_NO_VALUE;
	return (kl_value){ list_get(&f->pool, f->blocks[b.id].params, i) };
}

kl_inst
kl_block_first_inst(const kl_func *f, kl_block b)
{
	return block_ok(f, b) ? (kl_inst){ f->blocks[b.id].first } : KL_NO_INST;
}

kl_inst
kl_block_last_inst(const kl_func *f, kl_block b)
{
	return block_ok(f, b) ? (kl_inst){ f->blocks[b.id].last } : KL_NO_INST;
}

bool
kl_block_is_terminated(const kl_func *f, kl_block b)
{
	/* (an empty block's KL_NONE is no opcode: KL_OP_COUNT) */
	return kl_op_is_terminator(kl_inst_opcode(f, kl_block_last_inst(f, b)));
}

kl_inst
kl_inst_next(const kl_func *f, kl_inst i)
{
	return inst_ok(f, i) ? (kl_inst){ f->nodes[i.id].next } : KL_NO_INST;
}

kl_inst
kl_inst_prev(const kl_func *f, kl_inst i)
{
	return inst_ok(f, i) ? (kl_inst){ f->nodes[i.id].prev } : KL_NO_INST;
}

kl_block
kl_inst_block(const kl_func *f, kl_inst i)
{
	return inst_ok(f, i) ? (kl_block){ f->nodes[i.id].block } : KL_NO_BLOCK;
}

bool
kl_inst_precedes(const kl_func *f, kl_inst a, kl_inst b)
{
	return inst_ok(f, a) && inst_ok(f, b) &&
	       f->nodes[a.id].seq < f->nodes[b.id].seq;
}

uint32_t
kl_func_value_bound(const kl_func *f)
{
	return f->nvalues;
}

uint32_t
kl_func_block_bound(const kl_func *f)
{
	return f->nblocks;
}

uint32_t
kl_func_inst_bound(const kl_func *f)
{
	return f->ninsts;
}

uint32_t
kl_func_sigref_bound(const kl_func *f)
{
	return f->nsigrefs;
}

kl_type
kl_value_type(const kl_func *f, kl_value v)
{
	return value_ok(f, v) ? value_type(f, v.id) : KL_TYPE_NONE;
}

bool
kl_value_typable(const kl_func *f, kl_value v)
{
	if (!value_ok(f, v))
		return false;
	const kl_value_data *d = &f->values[v.id];
	if (d->kind == VK_PARAM)
		return value_def_block(f, v.id) != KL_NONE;
	if (d->kind != VK_RESULT || value_def_block(f, v.id) == KL_NONE)
		return false;
	const kl_opinfo *info = inst_info(f, d->def);
	switch ((kl_ctrl)info->ctrl) {
	case KL_CTRL_EXPLICIT:
		return true;
	case KL_CTRL_ARG0:
	case KL_CTRL_ARG1:
		return result_takes_ctrl(info);
	default:
		return false;
	}
}

kl_status
kl_value_set_type(kl_func *f, kl_value v, kl_type t)
{
	if (!kl_value_typable(f, v))
		return KL_ERR_INVALID;
	const kl_module *m = f->module;
	kl_type c = kl_type_class(m, t);
	if (c == KL_TYPE_NONE || c != kl_type_class(m, value_type(f, v.id)))
		return KL_ERR_INVALID;
	func_edited(f);
	f->values[v.id].type = t;
	return KL_OK;
}

kl_value
kl_value_resolve(const kl_func *f, kl_value v)
{
	return value_ok(f, v) ? (kl_value){ value_resolve(f, v.id) }
			      : KL_NO_VALUE;
}

bool
kl_value_is_alias(const kl_func *f, kl_value v)
{
	return value_ok(f, v) && f->values[v.id].kind == VK_ALIAS;
}

kl_inst
kl_value_def_inst(const kl_func *f, kl_value v)
{
	if (!value_ok(f, v) || f->values[v.id].kind != VK_RESULT)
		return KL_NO_INST;
	return (kl_inst){ f->values[v.id].def };
}

kl_block
kl_value_def_block(const kl_func *f, kl_value v)
{
	if (!value_ok(f, v))
		return KL_NO_BLOCK;
	return (kl_block){ value_def_block(f, v.id) };
}

uint32_t
kl_value_param_index(const kl_func *f, kl_value v, kl_block *block)
{
	if (!value_ok(f, v) || f->values[v.id].kind != VK_PARAM ||
	    f->values[v.id].def >= f->nblocks)
		return KL_NONE;
	kl_block b = { f->values[v.id].def };
	/* (a removed parameter may keep its block: it is in no list) */
	for (uint32_t k = 0, n = kl_block_num_params(f, b); k < n; k++)
		if (kl_block_param(f, b, k).id == v.id) {
			if (block)
				*block = b;
			return k;
		}
	return KL_NONE;
}

kl_opcode
kl_inst_opcode(const kl_func *f, kl_inst i)
{
	return inst_ok(f, i) ? (kl_opcode)f->insts[i.id].op : KL_OP_COUNT;
}

uint32_t
kl_inst_num_results(const kl_func *f, kl_inst i)
{
	return inst_ok(f, i) ? inst_num_results(f, i.id) : 0;
}

kl_value
kl_inst_result(const kl_func *f, kl_inst i, uint32_t n)
{
	return inst_ok(f, i) ? (kl_value){ inst_result(f, i.id, n) }
			     : KL_NO_VALUE;
}

uint32_t
kl_inst_num_args(const kl_func *f, kl_inst i)
{
	const uint32_t *vals;
	return inst_ok(f, i) ? inst_args(f, i.id, &vals) : 0;
}

kl_value
kl_inst_arg(const kl_func *f, kl_inst i, uint32_t n)
{
	const uint32_t *vals;
	if (!inst_ok(f, i) || n >= inst_args(f, i.id, &vals))
		return KL_NO_VALUE;
	return (kl_value){ vals[n] };
}

int64_t
kl_inst_imm(const kl_func *f, kl_inst i)
{
	return inst_ok(f, i) ? inst_imm(f, i.id) : 0;
}

int32_t
kl_inst_offset(const kl_func *f, kl_inst i)
{
	if (!inst_ok(f, i))
		return 0;
	kl_format fmt = inst_info(f, i.id)->format;
	if (fmt != KL_FMT_LOAD && fmt != KL_FMT_STORE)
		return 0;
	return (int32_t)f->insts[i.id].w[2];
}

uint32_t
kl_inst_cond(const kl_func *f, kl_inst i)
{
	if (!inst_ok(f, i))
		return 0;
	kl_format fmt = inst_info(f, i.id)->format;
	bool compare = fmt == KL_FMT_ICMP || fmt == KL_FMT_ICMP_IMM ||
		       fmt == KL_FMT_FCMP;
	return compare ? f->insts[i.id].aux : 0;
}

uint32_t
kl_inst_align(const kl_func *f, kl_inst i)
{
	if (!inst_ok(f, i))
		return 0;
	kl_format fmt = inst_info(f, i.id)->format;
	if (fmt != KL_FMT_ALLOCA && fmt != KL_FMT_ALLOCA_DYN)
		return 0;
	return (uint32_t)1 << f->insts[i.id].aux;
}

kl_trapcode
kl_inst_trap_code(const kl_func *f, kl_inst i, uint32_t *user_code)
{
	if (user_code)
		*user_code = 0;
	if (!inst_ok(f, i) || inst_info(f, i.id)->format != KL_FMT_TRAP)
		return KL_TRAP_COUNT;
	const kl_inst_data *d = &f->insts[i.id];
	if (user_code && d->aux == KL_TRAP_USER)
		*user_code = d->w[0];
	return (kl_trapcode)d->aux;
}

kl_sym
kl_inst_callee(const kl_func *f, kl_inst i)
{
	if (!inst_ok(f, i))
		return KL_NO_SYM;
	kl_format fmt = inst_info(f, i.id)->format;
	if (fmt != KL_FMT_CALL && fmt != KL_FMT_SYMBOL)
		return KL_NO_SYM;
	return (kl_sym){ f->insts[i.id].w[1] };
}

kl_sigref
kl_inst_sigref(const kl_func *f, kl_inst i)
{
	if (!inst_ok(f, i) ||
	    inst_info(f, i.id)->format != KL_FMT_CALL_INDIRECT)
		return (kl_sigref){ KL_NONE };
	return (kl_sigref){ f->insts[i.id].w[1] };
}

uint32_t
kl_inst_num_dests(const kl_func *f, kl_inst i)
{
	const uint32_t *d;
	return inst_ok(f, i) ? inst_dests(f, i.id, &d) : 0;
}

/* Destination n of branch i: false if there is none (or it is broken). */
static bool
dest_of(const kl_func *f, kl_inst i, uint32_t n, uint32_t *block,
	const uint32_t **args, uint32_t *nargs)
{
	const uint32_t *d;
	if (!inst_ok(f, i) || n >= inst_dests(f, i.id, &d))
		return false;
	return dest_read(&f->pool, d[n], block, args, nargs);
}

kl_block
kl_inst_dest(const kl_func *f, kl_inst i, uint32_t n)
{
	uint32_t b, na;
	const uint32_t *args;
	return dest_of(f, i, n, &b, &args, &na) ? (kl_block){ b }
						  : KL_NO_BLOCK;
}

uint32_t
kl_inst_dest_num_args(const kl_func *f, kl_inst i, uint32_t n)
{
	uint32_t b, na;
	const uint32_t *args;
	return dest_of(f, i, n, &b, &args, &na) ? na : 0;
}

kl_value
kl_inst_dest_arg(const kl_func *f, kl_inst i, uint32_t n, uint32_t k)
{
	uint32_t b, na;
	const uint32_t *args;
	if (!dest_of(f, i, n, &b, &args, &na) || k >= na)
		return KL_NO_VALUE;
	return (kl_value){ args[k] };
}

void
kl_func_source_range(const kl_func *f, uint32_t *first, uint32_t *last)
{
	*first = f->line_first;
	*last = f->line_last;
}

uint32_t
kl_inst_source_line(const kl_func *f, kl_inst i)
{
	return f->inst_lines && inst_ok(f, i) ? f->inst_lines[i.id] : 0;
}

uint32_t
kl_block_source_line(const kl_func *f, kl_block b)
{
	return f->block_lines && b.id < f->nblocks ? f->block_lines[b.id] : 0;
}
