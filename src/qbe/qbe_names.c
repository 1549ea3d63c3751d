/*
 * qbe_names.c -- numbers for names: globals of a file, temporaries and
 * labels of a function.
 *
 * Open addressing with linear probing over a power-of-two table kept at
 * most half full, keyed by the name's bytes (FNV-1a). Names are numbered
 * 0, 1, ... in the order first seen, which is the only order anything
 * is visited in, so the output does not depend on the hash. Clearing
 * empties the slots of the names held, not the whole table, so that a
 * file of many small functions costs what its names do.
 */
#include <stdlib.h>
#include <string.h>

#include "qbe.h"

static uint32_t
find_slot(const qbe_names *t, const char *s, uint32_t len)
{
	uint32_t mask = t->cap - 1;
	uint32_t i = (uint32_t)kl_hash_bytes(s, len) & mask;
	for (;;) {
		uint32_t k = t->slots[i];
		if (k == 0 || (t->klen[k - 1] == len &&
			       memcmp(t->key[k - 1], s, len) == 0))
			return i;
		i = (i + 1) & mask;
	}
}

static void
grow(qbe_names *t)
{
	uint32_t old = t->cap;
	uint32_t *slots = t->slots;
	t->cap = old ? old * 2 : 64;
	t->slots = kl_calloc(t->cap, sizeof *t->slots);
	for (uint32_t i = 0; i < old; i++)
		if (slots[i]) {
			uint32_t k = slots[i] - 1;
			t->kslot[k] = find_slot(t, t->key[k], t->klen[k]);
			t->slots[t->kslot[k]] = k + 1;
		}
	free(slots);
}

uint32_t
qbe_names_get(qbe_names *t, const char *s, uint32_t len, bool *fresh)
{
	if ((uint64_t)(t->n + 1) * 2 > t->cap)
		grow(t);
	uint32_t i = find_slot(t, s, len);
	*fresh = t->slots[i] == 0;
	if (!*fresh)
		return t->slots[i] - 1;
	uint32_t kcap = t->kcap, scap = t->kcap;
	kl_grow(&t->key, &kcap, sizeof *t->key, t->n + 1);
	kl_grow(&t->kslot, &scap, sizeof *t->kslot, t->n + 1);
	kl_grow(&t->klen, &t->kcap, sizeof *t->klen, t->n + 1);
	t->key[t->n] = s;
	t->klen[t->n] = len;
	t->kslot[t->n] = i;
	t->slots[i] = ++t->n;
	return t->n - 1;
}

void
qbe_names_clear(qbe_names *t)
{
	for (uint32_t k = 0; k < t->n; k++)
		t->slots[t->kslot[k]] = 0;
	t->n = 0;
}

void
qbe_names_free(qbe_names *t)
{
	free(t->slots);
	free(t->key);
	free(t->klen);
	free(t->kslot);
	memset(t, 0, sizeof *t);
}
