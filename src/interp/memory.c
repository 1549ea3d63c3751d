/*
 * memory.c -- the memory of an interpreted program: objects, pointers,
 * the alloca stack, heap objects and the module's data.
 *
 * Model (docs/interpreter.md, "Memory"). Memory is a set of separate
 * objects, never one flat address space, so no access can reach host
 * memory or a neighbouring object. A pointer is (object id << 32 | byte
 * offset); id 0 is null. Ids 1..nsyms are the module's symbols in symbol
 * order (a function is a size-0 object: its address is a distinct value
 * that call_indirect accepts and every load or store refuses); allocas and
 * heap objects take the following ids in creation order, and ids are never
 * reused, so a pointer to a dead object stays invalid forever.
 *
 * Every access is checked against its object's bounds (readable size, and
 * writable size for stores: 0 for const data). A dead object keeps its
 * entry with size 0, so the check needs no separate "alive" test. Entries
 * live in pages of OBJ_PAGE; a page whose objects are all dead, and which
 * will receive no new ones, is freed, so a program that makes millions of
 * allocas keeps only its live ones (a pointer into a freed page still
 * traps: the page is missing).
 *
 * Alloca memory comes from a stack of chunks: a frame's allocas are
 * released together when it returns (a mark saved at the call), and are
 * zeroed when made. Heap objects (malloc) are separate host allocations.
 * Everything counts against opts.max_memory.
 *
 * A reset (mem_reset) gives back memory as mem_setup made it at a cost
 * proportional to what the runs since changed, not to the module: a
 * caller that resets before each of N calls (keel difftest, the
 * interpret test command) would otherwise pay N times the module's data.
 * Writable data is made write-protected (wsize 0, the flag wdata set):
 * its first store fails the check every store makes anyway, and the slow
 * path (mem_first_write) records the object as dirty and lifts the
 * protection, so stores cost nothing more. A reset refills only the
 * dirty objects from their items (no pristine copy is kept) and clears
 * only the object entries the runs used (ids past the symbols', below
 * next_id): the entries at or past next_id are kept zero, so that a
 * pointer from an earlier run names no object.
 */
#include <stdlib.h>
#include <string.h>

#include "interp.h"

#define CHUNK_MIN (64u * 1024)

/*
 * What an object of memory (alloca, heap or data) costs against
 * max_memory besides its bytes: its records here (the object table's
 * entries, the alloca stack's) and the host's own allocation. Without
 * it a program making objects of 0 or 1 bytes in a loop would pass the
 * limit by a factor of 30 or more, or never reach it.
 */
#define OBJ_OVERHEAD 64u

/*
 * What a page of object entries a run makes costs against max_memory
 * (with its place in the page table): 40 bytes an entry. A page lives
 * while one object in it does, so a program keeping one object of every
 * 1,024 would hold 36 KB of host memory for each 65 bytes it was
 * charged: 576 times the limit. The symbols' pages are the module's, and
 * not charged.
 */
#define PAGE_CHARGE (40u * OBJ_PAGE)
/* (a figure of its own, not the size, so that limits are reached at the
 * same point on every machine) */
_Static_assert(sizeof(obj_page) + sizeof(obj_page *) <= PAGE_CHARGE,
	       "PAGE_CHARGE covers a page");

/* The charge of an object of n bytes (n < 2^32: no overflow). */
static uint64_t
obj_charge(uint64_t n)
{
	return n + OBJ_OVERHEAD;
}

static obj_page *page_of(const kl_interp *it, uint32_t id);

/* Does an object of n bytes fit in an object and under the limit, with
 * the page its entry needs if that is new and the run's (by_run)? */
static bool
obj_fits(const kl_interp *it, uint64_t n, bool by_run)
{
	uint64_t page = by_run && !page_of(it, it->next_id) ? PAGE_CHARGE
							     : 0;
	return n <= UINT32_MAX &&
	       it->mem_used + obj_charge(n) + page <= it->opts.max_memory;
}

void
mem_init(kl_interp *it)
{
	it->next_id = 1;
	it->mem_used = 0;
	it->data_ready = false;
	it->ndirty = 0;
}

static obj_page *
page_of(const kl_interp *it, uint32_t id)
{
	uint32_t pg = id >> OBJ_PAGE_BITS;
	return pg < it->npages ? it->pages[pg] : NULL;
}

obj_info *
obj_info_get(const kl_interp *it, uint32_t id)
{
	obj_page *pg = page_of(it, id);
	return pg ? &pg->cold[id & (OBJ_PAGE - 1)] : NULL;
}

/* A new object; 0 when the ids are exhausted. */
static uint32_t
obj_new(kl_interp *it, uint8_t kind, uint8_t *base, uint32_t size,
	bool writable, uint32_t sym, uint32_t inst)
{
	if (it->next_id == UINT32_MAX)
		return 0;
	uint32_t id = it->next_id++;
	uint32_t pg = id >> OBJ_PAGE_BITS;
	if (pg >= it->npages) {
		kl_grow(&it->pages, &it->pages_cap, sizeof *it->pages, pg + 1);
		memset(it->pages + it->npages, 0,
		       (pg + 1 - it->npages) * sizeof *it->pages);
		it->npages = pg + 1;
	}
	if (!it->pages[pg]) {
		it->pages[pg] = kl_calloc(1, sizeof(obj_page));
		if (kind == OK_ALLOCA || kind == OK_HEAP) {
			it->pages[pg]->charged = true;
			it->mem_used += PAGE_CHARGE;
		}
	}
	obj_page *p = it->pages[pg];
	uint32_t k = id & (OBJ_PAGE - 1);
	p->hot[k] = (obj){ base, size, writable ? size : 0 };
	p->cold[k] = (obj_info){ kind, 0, 0, size, sym, inst };
	p->live++;
	return id;
}

static void
obj_kill(kl_interp *it, uint32_t id)
{
	uint32_t pg = id >> OBJ_PAGE_BITS;
	obj_page *p = page_of(it, id);
	if (!p)
		return;
	uint32_t k = id & (OBJ_PAGE - 1);
	if (p->cold[k].kind == OK_HEAP)
		free(p->hot[k].base);
	p->hot[k] = (obj){ NULL, 0, 0 };
	p->cold[k].dead = 1;
	it->mem_used -= obj_charge(p->cold[k].size);
	/* Free the page once nothing in it lives or ever will. */
	if (--p->live == 0 &&
	    ((uint64_t)pg + 1) << OBJ_PAGE_BITS <= it->next_id) {
		if (p->charged)
			it->mem_used -= PAGE_CHARGE;
		free(p);
		it->pages[pg] = NULL;
	}
}

void
mem_free(kl_interp *it)
{
	for (uint32_t pg = 0; pg < it->npages; pg++) {
		obj_page *p = it->pages[pg];
		if (!p)
			continue;
		for (uint32_t k = 0; k < OBJ_PAGE; k++) {
			uint8_t kind = p->cold[k].kind;
			if (!p->cold[k].dead && (kind == OK_HEAP ||
						 kind == OK_DATA))
				free(p->hot[k].base);
		}
		free(p);
	}
	free(it->pages);
	it->pages = NULL;
	it->npages = it->pages_cap = 0;
	for (uint32_t k = 0; k < it->nchunks; k++)
		free(it->chunks[k].mem);
	free(it->chunks);
	it->chunks = NULL;
	it->nchunks = it->chunks_cap = it->cur_chunk = 0;
	it->nallocas = 0;
	mem_init(it);
}

/* ---- data ---- */

static bool
fill_data(kl_interp *it, uint32_t sym, uint8_t *mem, uint64_t size)
{
	const kl_module *m = it->m;
	kl_sym s = { sym };
	uint64_t at = 0;
	uint32_t n = kl_data_num_items(m, s);
	for (uint32_t k = 0; k < n; k++) {
		kl_data_item item = kl_data_item_at(m, s, k);
		uint32_t bytes = kl_type_bytes(m, item.type);
		uint64_t v = item.value;
		/* (at <= size throughout: the items are checked against
		 * what is left, not summed, which could wrap) */
		switch (item.kind) {
		case KL_DATA_STRING:
			if (item.len > size - at)
				return false;
			memcpy(mem + at, item.bytes, item.len);
			at += item.len;
			continue;
		case KL_DATA_ZERO:
			if (item.value > size - at)
				return false;
			at += item.value;
			continue;
		case KL_DATA_SYMREF:
			if (item.sym.id >= it->nsyms)
				return false;
			v = ((uint64_t)(item.sym.id + 1) << 32) + item.value;
			break;
		case KL_DATA_VALUE:
			break;
		}
		if (bytes > size - at || bytes > 8)
			return false;
		for (uint32_t b = 0; b < bytes; b++)
			mem[at + b] = (uint8_t)(v >> (8 * b));
		at += bytes;
	}
	return at == size;
}

bool
mem_setup(kl_interp *it)
{
	const kl_module *m = it->m;
	it->ndirty = 0;
	it->setups++;
	for (uint32_t s = 0; s < it->nsyms; s++) {
		if (kl_sym_get_kind(m, (kl_sym){ s }) == KL_SYM_FUNC) {
			obj_new(it, OK_FUNC, NULL, 0, false, s, KL_NONE);
			continue;
		}
		uint64_t size = kl_data_size(m, (kl_sym){ s });
		if (!obj_fits(it, size, false)) {
			kl_buf_reset(&it->scratch);
			put_sym(it, s, &it->scratch);
			if (size > UINT32_MAX)
				raise_fail(it, "data %s is too large (%llu "
					       "bytes; an object holds at most "
					       "2^32 - 1)", it->scratch.data,
					   (unsigned long long)size);
			else
				raise_fail(it, "data %s is too large (%llu "
					       "bytes; the memory limit, "
					       "max_memory, is %llu)",
					   it->scratch.data,
					   (unsigned long long)size,
					   (unsigned long long)
						   it->opts.max_memory);
			mem_free(it);
			return false;
		}
		uint8_t *mem = calloc(size ? size : 1, 1);
		if (!mem) {
			kl_buf_reset(&it->scratch);
			put_sym(it, s, &it->scratch);
			raise_fail(it, "no memory for data %s (%llu bytes): "
				       "the system has none left",
				   it->scratch.data, (unsigned long long)size);
			mem_free(it);
			return false;
		}
		if (!fill_data(it, s, mem, size)) {
			free(mem);
			kl_buf_reset(&it->scratch);
			put_sym(it, s, &it->scratch);
			raise_fail(it, "data %s has malformed items",
				   it->scratch.data);
			mem_free(it);
			return false;
		}
		it->mem_used += obj_charge(size);
		/* writable data starts write-protected: mem_first_write */
		uint32_t id = obj_new(it, OK_DATA, mem, (uint32_t)size, false,
				      s, KL_NONE);
		/* (ids start at 1 here, one per symbol: never exhausted) */
		KL_ASSERT(id != 0);
		obj_info_get(it, id)->wdata =
			!kl_data_is_const(m, (kl_sym){ s });
	}
	it->setup_mem_used = it->mem_used;
	it->data_ready = true;
	return true;
}

/*
 * The first store to a writable data object since memory was made or
 * reset: n bytes at p, which mem_check refused. When they lie in
 * such an object, record it as dirty, for mem_reset to refill, and make
 * it writable; the later stores pass the check. Else NULL: the store
 * traps, as it would have.
 */
uint8_t *
mem_first_write(kl_interp *it, uint64_t p, uint32_t n)
{
	uint32_t id = (uint32_t)(p >> 32);
	uint64_t off = (uint32_t)p;
	obj_info *info = obj_info_get(it, id);
	if (!info || !info->wdata || off + n > info->size)
		return NULL;
	obj *o = obj_get(it, id);
	if (o->wsize == 0) {
		kl_grow(&it->dirty, &it->dirty_cap, sizeof *it->dirty,
			(uint64_t)it->ndirty + 1);
		it->dirty[it->ndirty++] = id;
		o->wsize = o->size;
	}
	return o->base + off;
}

/*
 * Forget the objects made since mem_setup: ids first..next_id - 1 (the
 * ones past the symbols'). Free their heap memory, free the pages that
 * hold only such ids, and zero their entries in the page the symbols
 * end in: the entries past them are zero already (see the top).
 */
static void
forget_made(kl_interp *it, uint32_t first)
{
	uint32_t end = it->next_id;
	for (uint32_t id = first; id < end;) {
		uint32_t pg = id >> OBJ_PAGE_BITS, from = id & (OBJ_PAGE - 1);
		uint64_t page_end = ((uint64_t)pg + 1) << OBJ_PAGE_BITS;
		uint32_t to = end < page_end ? end & (OBJ_PAGE - 1) : OBJ_PAGE;
		id = end < page_end ? end : (uint32_t)page_end;
		obj_page *p = page_of(it, pg << OBJ_PAGE_BITS);
		if (!p)
			continue;
		for (uint32_t k = from; k < to; k++)
			if (!p->cold[k].dead && p->cold[k].kind == OK_HEAP)
				free(p->hot[k].base);
		if (from == 0) {
			free(p);
			it->pages[pg] = NULL;
			continue;
		}
		memset(p->hot + from, 0, (to - from) * sizeof *p->hot);
		memset(p->cold + from, 0, (to - from) * sizeof *p->cold);
		p->live = from - (pg == 0); /* (id 0 is null, no object) */
	}
	/* the pages past the symbols' are all gone: a reset does not walk
	 * them again, however many an earlier run needed */
	uint32_t keep = ((first - 1) >> OBJ_PAGE_BITS) + 1;
	if (it->npages > keep)
		it->npages = keep;
}

/*
 * Memory as mem_setup leaves it, without making it again: the symbols'
 * objects (ids 1..nsyms, which never die) stay, the writable data
 * written since is filled again and write-protected again, and what was
 * made since (allocas, heap objects: ids past the symbols') is freed,
 * so the next ids are the same as after a fresh setup. The cost is what
 * the runs since made and wrote, not the module's symbols or data: a
 * module of many functions called once each with a reset between (keel
 * difftest, the interpret test command) paid for every symbol, then for
 * all its writable data, at every call. The caller (kl_interp_reset) has
 * checked that no symbol was added and no data item appended since
 * mem_setup, or only items of no bytes: each object is filled from
 * items of exactly its size, which cannot fail.
 */
void
mem_reset(kl_interp *it)
{
	if (!it->data_ready) {
		mem_free(it);
		return;
	}
	uint32_t first = it->nsyms + 1;
	forget_made(it, first);
	for (uint32_t k = 0; k < it->nchunks; k++)
		free(it->chunks[k].mem);
	it->nchunks = it->cur_chunk = 0;
	it->nallocas = 0;
	for (uint32_t k = 0; k < it->ndirty; k++) {
		uint32_t id = it->dirty[k];
		obj *o = obj_get(it, id);
		const obj_info *info = obj_info_get(it, id);
		memset(o->base, 0, info->size);
		bool filled = fill_data(it, info->sym, o->base, info->size);
		KL_ASSERT(filled);
		o->wsize = 0;
	}
	it->ndirty = 0;
	it->next_id = first;
	it->mem_used = it->setup_mem_used;
}

uint32_t
mem_stale_data(const kl_interp *it)
{
	for (uint32_t s = 0; s < it->nsyms; s++) {
		if (kl_sym_get_kind(it->m, (kl_sym){ s }) != KL_SYM_DATA)
			continue;
		const obj_info *info = obj_info_get(it, s + 1);
		if (info->size != kl_data_size(it->m, (kl_sym){ s }))
			return s;
	}
	return KL_NONE;
}

uint32_t
mem_func_of(const kl_interp *it, uint64_t p)
{
	uint32_t id = (uint32_t)(p >> 32);
	if ((uint32_t)p != 0 || id == 0 || id > it->nsyms ||
	    kl_sym_get_kind(it->m, (kl_sym){ id - 1 }) != KL_SYM_FUNC)
		return KL_NONE;
	return id - 1;
}

/* ---- the alloca stack ---- */

/* NULL, and nothing changed, when the system has no memory for it. */
static uint8_t *
arena_alloc(kl_interp *it, size_t n)
{
	if (it->nchunks) {
		chunk *c = &it->chunks[it->cur_chunk];
		if (c->size - c->used >= n) {
			uint8_t *p = c->mem + c->used;
			c->used += n;
			return p;
		}
	}
	uint32_t next = it->nchunks ? it->cur_chunk + 1 : 0;
	size_t want = (size_t)CHUNK_MIN << (next < 6 ? next : 6);
	if (want < n)
		want = n;
	if (next < it->nchunks && it->chunks[next].size < n) {
		uint8_t *mem = malloc(want);
		if (!mem)
			return NULL;
		free(it->chunks[next].mem);
		it->chunks[next].mem = mem;
		it->chunks[next].size = want;
	} else if (next >= it->nchunks) {
		uint8_t *mem = malloc(want);
		if (!mem)
			return NULL;
		kl_grow(&it->chunks, &it->chunks_cap, sizeof *it->chunks,
			it->nchunks + 1);
		it->chunks[it->nchunks++] = (chunk){ mem, want, 0 };
	}
	it->cur_chunk = next;
	it->chunks[next].used = n;
	return it->chunks[next].mem;
}

uint64_t
mem_alloca(kl_interp *it, uint64_t n, uint32_t sym, uint32_t inst)
{
	if (n > UINT32_MAX) {
		/* an object's size is 32 bits, whatever the limit */
		raise_trap(it, KL_TRAP_STACK_OVERFLOW,
			   "alloca of %llu bytes is larger than an object can "
			   "be (2^32 - 1 bytes)", (unsigned long long)n);
		return 0;
	}
	if (!obj_fits(it, n, true)) {
		raise_trap(it, KL_TRAP_STACK_OVERFLOW,
			   "alloca of %llu byte%s exceeds the memory limit "
			   "(max_memory) of %llu byte%s (%llu in use)",
			   (unsigned long long)n, n == 1 ? "" : "s",
			   (unsigned long long)it->opts.max_memory,
			   it->opts.max_memory == 1 ? "" : "s",
			   (unsigned long long)it->mem_used);
		return 0;
	}
	uint8_t *mem = arena_alloc(it, (size_t)n);
	if (!mem) {
		raise_trap(it, KL_TRAP_STACK_OVERFLOW,
			   "alloca of %llu bytes: the system has no memory "
			   "left for it", (unsigned long long)n);
		return 0;
	}
	memset(mem, 0, (size_t)n);
	uint32_t id = obj_new(it, OK_ALLOCA, mem, (uint32_t)n, true, sym,
			      inst);
	if (!id) {
		raise_trap(it, KL_TRAP_STACK_OVERFLOW,
			   "all object numbers (1 to 2^32 - 2) are used");
		return 0;
	}
	it->mem_used += obj_charge(n);
	kl_grow(&it->allocas, &it->allocas_cap, sizeof *it->allocas,
		it->nallocas + 1);
	it->allocas[it->nallocas++] = id;
	return (uint64_t)id << 32;
}

void
mem_pop_allocas(kl_interp *it, uint32_t height, uint32_t chunk_index,
		size_t used)
{
	while (it->nallocas > height)
		obj_kill(it, it->allocas[--it->nallocas]);
	if (it->nchunks) {
		it->cur_chunk = chunk_index;
		it->chunks[chunk_index].used = used;
	}
}

/* ---- the heap ---- */

uint64_t
mem_malloc(kl_interp *it, uint64_t n)
{
	if (!obj_fits(it, n, true))
		return 0;
	/* The host out of memory is the program's malloc failing, as C's
	 * does, not keel's: null, for the program to handle. */
	uint8_t *mem = calloc(n ? (size_t)n : 1, 1);
	if (!mem)
		return 0;
	uint32_t id = obj_new(it, OK_HEAP, mem, (uint32_t)n, true, KL_NONE,
			      KL_NONE);
	if (!id) {
		free(mem);
		return 0;
	}
	it->mem_used += obj_charge(n);
	return (uint64_t)id << 32;
}

bool
mem_free_obj(kl_interp *it, uint64_t p)
{
	if (p == 0)
		return true;
	uint32_t id = (uint32_t)(p >> 32);
	obj_info *info = obj_info_get(it, id);
	if ((uint32_t)p != 0 || !info || info->dead || info->kind != OK_HEAP)
		return false;
	obj_kill(it, id);
	return true;
}

/* ---- messages ---- */

static void
describe_obj(const kl_interp *it, uint32_t id, const obj_info *info,
	     kl_buf *out)
{
	kl_buf_printf(out, "object %u (", id);
	switch (info->kind) {
	case OK_DATA:
		kl_buf_puts(out, kl_data_is_const(it->m, (kl_sym){ info->sym })
					 ? "const data " : "data ");
		put_sym(it, info->sym, out);
		kl_buf_printf(out, ", %u byte%s", info->size,
			      info->size == 1 ? "" : "s");
		break;
	case OK_FUNC:
		kl_buf_puts(out, "the address of function ");
		put_sym(it, info->sym, out);
		break;
	case OK_ALLOCA: {
		kl_buf_printf(out, "%u-byte alloca", info->size);
		const kl_func *f = kl_sym_func(it->m, (kl_sym){ info->sym });
		if (f && info->inst != KL_NONE) {
			kl_value v = kl_inst_result(f, (kl_inst){ info->inst },
						    0);
			kl_buf_printf(out, " v%u", v.id);
		}
		kl_buf_puts(out, " in ");
		put_sym(it, info->sym, out);
		break;
	}
	case OK_HEAP:
		kl_buf_printf(out, "%u-byte heap object", info->size);
		break;
	default:
		kl_buf_puts(out, "?");
		break;
	}
	kl_buf_putc(out, ')');
}

void
mem_describe(const kl_interp *it, uint64_t p, kl_buf *out)
{
	uint32_t id = (uint32_t)(p >> 32);
	const obj_info *info = id && id < it->next_id ? obj_info_get(it, id)
						      : NULL;
	if (info)
		describe_obj(it, id, info, out);
	else
		kl_buf_printf(out, "object %u", id);
}

void
mem_explain(const kl_interp *it, uint64_t p, uint64_t n, bool write,
	    kl_buf *out)
{
	uint32_t id = (uint32_t)(p >> 32), off = (uint32_t)p;
	if (id == 0) {
		kl_buf_printf(out, "null pointer (offset %u)", off);
		return;
	}
	if (id >= it->next_id) {
		kl_buf_printf(out, "0x%016llx is not a pointer: object %u "
				   "does not exist", (unsigned long long)p, id);
		return;
	}
	const obj_info *info = obj_info_get(it, id);
	if (!info) {
		kl_buf_printf(out, "object %u is dead (offset %u)", id, off);
		return;
	}
	describe_obj(it, id, info, out);
	if (info->dead) {
		kl_buf_printf(out, " is dead: %s (offset %u)",
			      info->kind == OK_HEAP ? "it was freed"
						    : "its frame returned",
			      off);
	} else if (info->kind == OK_FUNC) {
		kl_buf_puts(out, " has no bytes to access");
	} else if (write && (uint64_t)off + n <= info->size) {
		kl_buf_puts(out, " is read-only");
	} else if (off < info->size && n > 0) {
		/* starts inside: "offset 6 is out of bounds" would read as
		 * if offset 6 were the fault */
		kl_buf_printf(out, ": bytes %u to %llu run past its end", off,
			      (unsigned long long)((uint64_t)off + n - 1));
	} else {
		kl_buf_printf(out, ": offset %u is out of bounds", off);
	}
	/* A negative offset borrows from the id: say what it may have been. */
	if (off >= 0x80000000u)
		kl_buf_printf(out, " (or offset -%u from object %u)",
			      (uint32_t)(0 - off), id + 1);
}

void
mem_explain_free(const kl_interp *it, uint64_t p, kl_buf *out)
{
	/* a live object: its bounds are not what is wrong ("offset 0 is
	 * out of bounds" said of a data object's start) */
	uint32_t id = (uint32_t)(p >> 32), off = (uint32_t)p;
	const obj_info *info = id && id < it->next_id ? obj_info_get(it, id)
						      : NULL;
	if (!info || info->dead) {
		mem_explain(it, p, 0, false, out);
		return;
	}
	describe_obj(it, id, info, out);
	if (info->kind != OK_HEAP)
		kl_buf_puts(out, " was not made by malloc or calloc");
	else
		kl_buf_printf(out, ": offset %u is not its start", off);
}
