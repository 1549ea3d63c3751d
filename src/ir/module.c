/*
 * module.c -- modules: symbols and their names, signatures, data objects.
 *
 * Symbols are kept in one table in the order they were added, which is the
 * order the printer writes the module's items; a hash table (open
 * addressing, linear probing over symbol indices) serves lookups by name
 * only, so no output ever depends on hash order.
 *
 * Names are arbitrary byte strings. They, and the bytes of data strings,
 * go to the module's byte store and are referred to by offset. The store
 * and the signatures' types are written once and keep their old copies
 * when they grow (grow_kept), so that the pointers keel.h hands out
 * (kl_sym_name, a string item's bytes, a signature's arrays) stay valid
 * while the module lives.
 *
 * The public calls that add a symbol or append a data item move the
 * module's data_edits counter when they succeed (ir.h): an interpreter
 * makes its memory from these, and compares the counter to know whether
 * its memory is still the module's. The parser's internal calls do not.
 */
#include <stdlib.h>
#include <string.h>

#include "ir.h"

kl_module *
kl_module_new(void)
{
	kl_module *m = kl_calloc(1, sizeof *m);
	module_init_types(m);
	return m;
}

void
kl_module_free(kl_module *m)
{
	if (!m)
		return;
	for (uint32_t i = 0; i < m->nsyms; i++)
		if (m->syms[i].func)
			func_free(m->syms[i].func);
	free(m->types);
	free(m->sigs);
	free(m->sigtypes);
	free(m->sig_htab);
	free(m->syms);
	free(m->htab);
	free(m->items);
	free(m->bytes);
	for (uint32_t i = 0; i < m->nkept; i++)
		free(m->kept[i]);
	free(m->kept);
	kl_arena_free(&m->arena);
	free(m);
}

bool
module_bytes_fit(const kl_module *m, uint64_t n)
{
	/* offsets are 32 bits, and the store keeps a byte past its end */
	return n < UINT32_MAX - 1 - (uint64_t)m->nbytes;
}

/*
 * Grow the write-once table *p, of which used elements are filled, to
 * hold need: as kl_grow does, but the old copy is kept until the module
 * is freed instead of freed now. Each copy is at most half the next, so
 * the kept ones together take less than the table itself.
 */
static void
grow_kept(kl_module *m, void *p, uint32_t *cap, size_t elem_size,
	  uint32_t used, uint64_t need)
{
	if (need <= *cap)
		return;
	void **pp = p;
	uint32_t c = kl_grown_cap(*cap, need);
	void *q = kl_malloc(kl_table_bytes(c, elem_size));
	if (used)
		memcpy(q, *pp, (size_t)used * elem_size);
	if (*pp) {
		kl_grow(&m->kept, &m->kept_cap, sizeof *m->kept,
			(uint64_t)m->nkept + 1);
		m->kept[m->nkept++] = *pp;
	}
	*pp = q;
	*cap = c;
}

uint32_t
module_store_bytes(kl_module *m, const char *s, size_t n)
{
	if (!module_bytes_fit(m, n))
		kl_out_of_room(__FILE__, __LINE__, __func__,
			       "module too large");
	grow_kept(m, &m->bytes, &m->bytes_cap, 1, m->nbytes,
		  (uint64_t)m->nbytes + n + 1);
	uint32_t off = m->nbytes;
	if (n)
		memcpy(m->bytes + off, s, n);
	m->nbytes += (uint32_t)n;
	return off;
}

const char *
name_bytes(const kl_module *m, const kl_name *n)
{
	return m->bytes + n->off;
}

bool
name_is_plain(const char *s, size_t n)
{
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '_' || c == '.';
		if (!ok)
			return false;
	}
	return true;
}

/* How the text format writes a name: %name, #hex or noname. */
void
fmt_name(kl_buf *out, const char *s, size_t n)
{
	if (n == 0) {
		kl_buf_puts(out, "noname");
	} else if (name_is_plain(s, n)) {
		kl_buf_putc(out, '%');
		kl_buf_append(out, s, n);
	} else {
		kl_buf_putc(out, '#');
		kl_buf_reserve(out, 2 * n);
		for (size_t i = 0; i < n; i++) {
			unsigned char c = (unsigned char)s[i];
			out->data[out->len++] = kl_hex_digits[c >> 4];
			out->data[out->len++] = kl_hex_digits[c & 15];
		}
		out->data[out->len] = 0;
	}
}

void
kl_name_format(const char *name, size_t len, kl_buf *out)
{
	fmt_name(out, name, len);
}

void
fmt_sym(kl_buf *out, const kl_module *m, uint32_t sym)
{
	if (sym >= m->nsyms) {
		kl_buf_printf(out, "%%invalid_symbol_%u", sym);
		return;
	}
	const kl_sym_data *s = &m->syms[sym];
	fmt_name(out, name_bytes(m, &s->name), s->name.len);
}

static uint32_t
name_hash(const char *name, size_t len)
{
	return (uint32_t)kl_hash_bytes(name, len);
}

/* The slot of the symbol named name (hash: its name_hash) or the empty
 * slot where it would go. */
static uint32_t
find_slot(const kl_module *m, const char *name, size_t len, uint32_t hash,
	  bool *found)
{
	uint32_t mask = m->hcap - 1;
	uint32_t h = hash & mask;
	for (;;) {
		uint32_t e = m->htab[h];
		if (e == 0) {
			*found = false;
			return h;
		}
		const kl_sym_data *s = &m->syms[e - 1];
		if (s->hash == hash && s->name.len == len &&
		    memcmp(name_bytes(m, &s->name), name, len) == 0) {
			*found = true;
			return h;
		}
		h = (h + 1) & mask;
	}
}

/* An empty open-addressing table of twice the capacity (first, if none),
 * for the caller to fill again. */
static void
empty_table_doubled(uint32_t **tab, uint32_t *cap, uint32_t first)
{
	uint32_t ncap = *cap ? *cap * 2 : first;
	free(*tab);
	*tab = kl_calloc(ncap, sizeof **tab);
	*cap = ncap;
}

/* The names in the table are distinct: each goes in the first empty slot
 * from its stored hash, with no name compared. */
static void
rehash(kl_module *m)
{
	empty_table_doubled(&m->htab, &m->hcap, 64);
	uint32_t mask = m->hcap - 1;
	for (uint32_t i = 0; i < m->nsyms; i++) {
		const kl_sym_data *s = &m->syms[i];
		if (s->hidden)
			continue;
		uint32_t h = s->hash & mask;
		while (m->htab[h])
			h = (h + 1) & mask;
		m->htab[h] = i + 1;
	}
}

kl_sym
kl_module_lookup(const kl_module *m, const char *name, size_t len)
{
	if (!m->hcap || (!name && len))
		return KL_NO_SYM;
	if (!name)
		name = "";
	bool found;
	uint32_t h = find_slot(m, name, len, name_hash(name, len), &found);
	return found ? (kl_sym){ m->htab[h] - 1 } : KL_NO_SYM;
}

/* Is a function of this name one that returns twice? */
static bool
name_returns_twice(const char *name, size_t len)
{
	static const char *const names[] = { "setjmp", "_setjmp", "sigsetjmp",
					      "__sigsetjmp" };
	for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
		if (len == strlen(names[k]) && memcmp(name, names[k], len) == 0)
			return true;
	return false;
}

uint32_t
module_add_sym(kl_module *m, const char *name, size_t len, kl_sym_kind kind,
	       bool allow_redefinition, kl_status *status)
{
	*status = KL_OK;
	if (len > UINT32_MAX / 2) {
		*status = KL_ERR_RANGE;
		return KL_NONE;
	}
	if (!name) { /* the empty name may come as (NULL, 0) */
		if (len) {
			*status = KL_ERR_INVALID;
			return KL_NONE;
		}
		name = "";
	}
	if ((uint64_t)(m->nsyms + 1) * 2 > m->hcap)
		rehash(m);
	bool found;
	uint32_t hash = name_hash(name, len);
	uint32_t h = find_slot(m, name, len, hash, &found);
	if (found && !allow_redefinition) {
		*status = KL_ERR_EXISTS;
		return KL_NONE;
	}
	if (!module_bytes_fit(m, len)) {
		*status = KL_ERR_RANGE;
		return KL_NONE;
	}
	kl_grow(&m->syms, &m->syms_cap, sizeof *m->syms, m->nsyms + 1);
	uint32_t id = m->nsyms++;
	kl_sym_data *s = &m->syms[id];
	memset(s, 0, sizeof *s);
	s->kind = (uint8_t)kind;
	s->sig = KL_NONE;
	s->name.len = (uint32_t)len;
	s->hash = hash;
	s->returns_twice = name_returns_twice(name, len);
	m->nreturns_twice += s->returns_twice;
	s->name.off = module_store_bytes(m, name, len);
	if (found)
		s->hidden = 1;
	else
		m->htab[h] = id + 1;
	return id;
}

uint32_t
kl_module_num_syms(const kl_module *m)
{
	return m->nsyms;
}

static const kl_sym_data *
sym_data(const kl_module *m, kl_sym s)
{
	return s.id < m->nsyms ? &m->syms[s.id] : NULL;
}

kl_sym_kind
kl_sym_get_kind(const kl_module *m, kl_sym s)
{
	const kl_sym_data *d = sym_data(m, s);
	return d ? (kl_sym_kind)d->kind : KL_SYM_FUNC;
}

const char *
kl_sym_name(const kl_module *m, kl_sym s, size_t *len)
{
	const kl_sym_data *d = sym_data(m, s);
	if (!d) {
		*len = 0;
		return "";
	}
	*len = d->name.len;
	return name_bytes(m, &d->name);
}

kl_func *
kl_sym_func(const kl_module *m, kl_sym s)
{
	const kl_sym_data *d = sym_data(m, s);
	return d ? d->func : NULL;
}

uint32_t
kl_sym_source_line(const kl_module *m, kl_sym s)
{
	const kl_sym_data *d = sym_data(m, s);
	return d ? d->line : 0;
}

/* ---- signatures ---- */

/* The types of signature s, params then results (NULL while no
 * signature has any). */
static const kl_type *
sig_types(const kl_module *m, const kl_sig_data *s)
{
	return m->sigtypes ? m->sigtypes + s->types : NULL;
}

/* Hash of a signature's shape and types, for interning. */
static uint64_t
sig_hash(const kl_type *params, uint32_t np, const kl_type *results,
	 uint32_t nr, bool variadic)
{
	uint64_t h = (uint64_t)np << 33 ^ (uint64_t)nr << 1 ^ variadic;
	for (uint32_t i = 0; i < np; i++)
		h = (h ^ params[i]) * 0x100000001b3u;
	for (uint32_t i = 0; i < nr; i++)
		h = (h ^ results[i]) * 0x9e3779b97f4a7c15u;
	return h ^ h >> 29;
}

static bool
sig_is(const kl_module *m, uint32_t sig, const kl_type *params, uint32_t np,
       const kl_type *results, uint32_t nr, bool variadic)
{
	const kl_sig_data *s = &m->sigs[sig];
	if (s->nparams != np || s->nresults != nr ||
	    (s->variadic != 0) != variadic)
		return false;
	const kl_type *t = sig_types(m, s);
	for (uint32_t i = 0; i < np; i++)
		if (t[i] != params[i])
			return false;
	for (uint32_t i = 0; i < nr; i++)
		if (t[np + i] != results[i])
			return false;
	return true;
}

/* Slot of sig (by its contents) in the interning table. */
static uint32_t
sig_slot(const kl_module *m, const kl_type *params, uint32_t np,
	 const kl_type *results, uint32_t nr, bool variadic)
{
	uint32_t mask = m->sig_hcap - 1;
	uint32_t h = (uint32_t)sig_hash(params, np, results, nr, variadic) &
		     mask;
	while (m->sig_htab[h] &&
	       !sig_is(m, m->sig_htab[h] - 1, params, np, results, nr,
		       variadic))
		h = (h + 1) & mask;
	return h;
}

static void
sig_rehash(kl_module *m)
{
	empty_table_doubled(&m->sig_htab, &m->sig_hcap, 16);
	for (uint32_t i = 0; i < m->nsigs; i++) {
		const kl_sig_data *s = &m->sigs[i];
		const kl_type *t = sig_types(m, s);
		m->sig_htab[sig_slot(m, t, s->nparams,
				     t ? t + s->nparams : NULL, s->nresults,
				     s->variadic != 0)] = i + 1;
	}
}

/*
 * Signatures are interned: equal ones share one number. A module of
 * thousands of functions has a handful of distinct signatures, so the
 * table stays small enough to be in the cache whenever a call is parsed
 * or checked (a cold miss per call was a tenth of the parse).
 */
uint32_t
module_add_sig(kl_module *m, const kl_type *params, uint32_t np,
	       const kl_type *results, uint32_t nr, bool variadic)
{
	if ((uint64_t)(m->nsigs + 1) * 2 > m->sig_hcap)
		sig_rehash(m);
	uint32_t h = sig_slot(m, params, np, results, nr, variadic);
	if (m->sig_htab[h])
		return m->sig_htab[h] - 1;
	kl_grow(&m->sigs, &m->sigs_cap, sizeof *m->sigs, m->nsigs + 1);
	grow_kept(m, &m->sigtypes, &m->sigtypes_cap, sizeof *m->sigtypes,
		  m->nsigtypes, (uint64_t)m->nsigtypes + np + nr);
	kl_sig_data *s = &m->sigs[m->nsigs];
	s->types = m->nsigtypes;
	s->nparams = np;
	s->nresults = nr;
	s->variadic = variadic;
	if (np)
		memcpy(m->sigtypes + m->nsigtypes, params, np * sizeof *params);
	if (nr)
		memcpy(m->sigtypes + m->nsigtypes + np, results,
		       nr * sizeof *results);
	m->nsigtypes += np + nr;
	m->sig_htab[h] = m->nsigs + 1;
	return m->nsigs++;
}

bool
module_sig_ok(const kl_module *m, const kl_signature *sig)
{
	if (!sig)
		return true;
	if ((sig->num_params && !sig->params) ||
	    (sig->num_results && !sig->results))
		return false;
	for (uint32_t i = 0; i < sig->num_params; i++)
		if (kl_type_class(m, sig->params[i]) == KL_TYPE_NONE)
			return false;
	for (uint32_t i = 0; i < sig->num_results; i++)
		if (kl_type_class(m, sig->results[i]) == KL_TYPE_NONE)
			return false;
	return true;
}

uint32_t
module_add_sig_of(kl_module *m, const kl_signature *sig)
{
	if (!sig)
		return module_add_sig(m, NULL, 0, NULL, 0, false);
	return module_add_sig(m, sig->params, sig->num_params, sig->results,
			      sig->num_results, sig->variadic);
}

kl_signature
kl_sym_signature(const kl_module *m, kl_sym s)
{
	const kl_sym_data *d = sym_data(m, s);
	kl_signature none = { 0 };
	return d && d->kind == KL_SYM_FUNC ? module_sig(m, d->sig) : none;
}

kl_status
kl_module_declare(kl_module *m, const char *name, size_t len,
		  const kl_signature *sig, kl_sym *out)
{
	kl_sym none;
	if (!out)
		out = &none; /* the caller looks it up later, or never */
	*out = KL_NO_SYM;
	if (!module_sig_ok(m, sig))
		return KL_ERR_INVALID;
	kl_status st;
	uint32_t id = module_add_sym(m, name, len, KL_SYM_FUNC, false, &st);
	if (st != KL_OK)
		return st;
	m->syms[id].sig = module_add_sig_of(m, sig);
	m->data_edits++;
	*out = (kl_sym){ id };
	return KL_OK;
}

kl_status
kl_module_add_func(kl_module *m, const char *name, size_t len,
		   const kl_signature *sig, kl_func **out)
{
	kl_func *ignored;
	if (!out)
		out = &ignored;
	*out = NULL;
	kl_sym sym;
	kl_status st = kl_module_declare(m, name, len, sig, &sym);
	if (st != KL_OK)
		return st;
	kl_sym_data *s = &m->syms[sym.id];
	s->defined = 1;
	s->func = func_new(m, sym.id, s->sig);
	*out = s->func;
	return KL_OK;
}

/* ---- data objects ---- */

kl_status
kl_module_add_data(kl_module *m, const char *name, size_t len, bool is_const,
		   uint32_t align, kl_sym *out)
{
	kl_sym none;
	if (!out)
		out = &none;
	*out = KL_NO_SYM;
	if (align & (align - 1))
		return KL_ERR_RANGE;
	kl_status st;
	uint32_t id = module_add_sym(m, name, len, KL_SYM_DATA, false, &st);
	if (st != KL_OK)
		return st;
	m->syms[id].is_const = is_const;
	m->syms[id].align = align ? align : 1; /* 0: the text's default */
	m->syms[id].items = m->nitems;
	m->data_edits++;
	*out = (kl_sym){ id };
	return KL_OK;
}

static uint64_t
item_bytes(const kl_module *m, const kl_item_data *it)
{
	switch (it->kind) {
	case KL_DATA_STRING: return it->len;
	case KL_DATA_ZERO: return it->value;
	default: return kl_type_bytes(m, it->type);
	}
}

/*
 * Items of one data object are contiguous in the item table (the printer
 * and the parser's fixups index them so). The object written last grows
 * at the end of the table, as the parser and most front ends fill one
 * object at a time. An append to another object goes into the room it
 * has, or moves it to the end with room for as many items again: a
 * front end filling objects in any order pays amortised O(1) an item,
 * and the places left behind are each at most half the object's next
 * place, so the table stays within a constant factor of the items.
 */
bool
module_add_item(kl_module *m, uint32_t sym, const kl_item_data *it)
{
	kl_sym_data *s = &m->syms[sym];
	uint64_t bytes = item_bytes(m, it);
	if (bytes > DATA_MAX_BYTES - s->size)
		return false;
	s->size += bytes;
	uint32_t end = s->items + s->nitems;
	if (end == m->nitems) {
		kl_grow(&m->items, &m->items_cap, sizeof *m->items,
			(uint64_t)m->nitems + 1);
		m->nitems++;
		if (s->items_cap < s->nitems + 1)
			s->items_cap = s->nitems + 1;
	} else if (s->nitems == s->items_cap) {
		uint64_t cap = 2 * (uint64_t)s->nitems + 4;
		kl_grow(&m->items, &m->items_cap, sizeof *m->items,
			(uint64_t)m->nitems + cap);
		if (s->nitems)
			memcpy(m->items + m->nitems, m->items + s->items,
			       s->nitems * sizeof *m->items);
		s->items = m->nitems;
		s->items_cap = (uint32_t)cap;
		m->nitems += (uint32_t)cap;
		end = s->items + s->nitems;
	}
	m->items[end] = *it;
	s->nitems++;
	return true;
}

kl_status
kl_data_append(kl_module *m, kl_sym data, const kl_data_item *item)
{
	const kl_sym_data *d = sym_data(m, data);
	if (!d || d->kind != KL_SYM_DATA)
		return KL_ERR_INVALID;
	kl_item_data it = { 0 };
	it.kind = (uint8_t)item->kind;
	it.type = item->type;
	it.value = item->value;
	it.sym = item->sym.id;
	switch (item->kind) {
	case KL_DATA_VALUE:
	case KL_DATA_SYMREF:
		if (kl_type_class(m, item->type) == KL_TYPE_NONE)
			return KL_ERR_INVALID;
		/* an address is an integer, whole in i64 or cut to a
		 * narrower one's low bytes; a float would be its bits */
		if (item->kind == KL_DATA_SYMREF &&
		    (item->sym.id >= m->nsyms ||
		     !kl_type_is_int(m, item->type)))
			return KL_ERR_INVALID;
		/* A value's bits fit its type: an integer's zero- or
		 * sign-extended (-1 is an i8, as kl_build_iconst takes it),
		 * a float's zero-extended; kept as the width's bits, as the
		 * text writes them. */
		if (item->kind == KL_DATA_VALUE &&
		    kl_type_bytes(m, item->type) < 8) {
			unsigned w = 8 * kl_type_bytes(m, item->type);
			bool fits =
				kl_type_is_int(m, item->type)
					? kl_int_fits((int64_t)item->value, w)
					: item->value >> w == 0;
			if (!fits)
				return KL_ERR_RANGE;
			it.value = item->value & ((1ull << w) - 1);
		}
		break;
	case KL_DATA_STRING:
		if (item->len && !item->bytes)
			return KL_ERR_INVALID;
		/* checked before the bytes are stored, which cannot be
		 * undone */
		if (!module_bytes_fit(m, item->len) ||
		    item->len > DATA_MAX_BYTES - d->size)
			return KL_ERR_RANGE;
		it.type = KL_TYPE_I8;
		it.str = module_store_bytes(m, item->bytes, item->len);
		it.len = item->len;
		break;
	case KL_DATA_ZERO:
		break;
	default:
		return KL_ERR_INVALID;
	}
	if (!module_add_item(m, data.id, &it))
		return KL_ERR_RANGE;
	m->data_edits++;
	return KL_OK;
}

uint32_t
kl_data_num_items(const kl_module *m, kl_sym data)
{
	const kl_sym_data *d = sym_data(m, data);
	return d && d->kind == KL_SYM_DATA ? d->nitems : 0;
}

kl_data_item
kl_data_item_at(const kl_module *m, kl_sym data, uint32_t i)
{
	kl_data_item r = { 0 };
	const kl_sym_data *d = sym_data(m, data);
	if (!d || d->kind != KL_SYM_DATA || i >= d->nitems)
		return r;
	const kl_item_data *it = &m->items[d->items + i];
	r.kind = (kl_data_kind)it->kind;
	r.type = it->type;
	r.value = it->value;
	r.sym = (kl_sym){ it->sym };
	if (it->kind == KL_DATA_STRING) {
		r.bytes = m->bytes + it->str;
		r.len = it->len;
	}
	return r;
}

bool
kl_data_is_const(const kl_module *m, kl_sym data)
{
	const kl_sym_data *d = sym_data(m, data);
	return d && d->is_const;
}

uint32_t
kl_data_align(const kl_module *m, kl_sym data)
{
	const kl_sym_data *d = sym_data(m, data);
	return d ? d->align : 0;
}

uint64_t
kl_data_size(const kl_module *m, kl_sym data)
{
	const kl_sym_data *d = sym_data(m, data);
	return d && d->kind == KL_SYM_DATA ? d->size : 0;
}

void
kl_module_get_stats(const kl_module *m, kl_module_stats *st)
{
	memset(st, 0, sizeof *st);
	for (uint32_t i = 0; i < m->nsyms; i++) {
		const kl_func *f = m->syms[i].func;
		if (!f)
			continue;
		st->funcs++;
		st->blocks += f->nblocks;
		st->insts += f->ninsts;
		st->values += f->nvalues;
		size_t inst = sizeof *f->insts + sizeof *f->nodes;
		st->inst_bytes += (uint64_t)f->ninsts * sizeof *f->insts;
		st->layout_bytes += (uint64_t)f->ninsts * sizeof *f->nodes;
		st->value_bytes += (uint64_t)f->nvalues * sizeof *f->values;
		st->block_bytes += (uint64_t)f->nblocks * sizeof *f->blocks;
		st->pool_bytes += (uint64_t)f->pool.len * sizeof *f->pool.data;
		st->const_bytes += (uint64_t)f->nconsts * sizeof *f->consts;
		for (uint32_t b = 0; b < f->nblocks; b++) {
			uint32_t l = f->blocks[b].params;
			st->param_value_bytes +=
				(uint64_t)list_len(&f->pool, l) *
				sizeof *f->values;
			st->param_list_bytes +=
				(uint64_t)list_slots(&f->pool, l) *
				sizeof *f->pool.data;
		}
		st->bytes_allocated +=
			(uint64_t)f->insts_cap * inst +
			(uint64_t)f->values_cap * sizeof *f->values +
			(uint64_t)f->blocks_cap * sizeof *f->blocks +
			(uint64_t)f->pool.cap * sizeof *f->pool.data +
			(uint64_t)f->consts_cap * sizeof *f->consts;
	}
	st->bytes_used = st->inst_bytes + st->layout_bytes + st->value_bytes +
			 st->block_bytes + st->pool_bytes + st->const_bytes;
}
