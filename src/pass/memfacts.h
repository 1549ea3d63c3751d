/*
 * memfacts.h -- what memory is known to hold at a point of a walk: the
 * values stores wrote and plain loads read, by place (alias.h), and a
 * load rebuilt from one whose bytes hold its own (memfacts.c). cse uses
 * it for the loads its table cannot match: another width, another
 * offset inside a store, an address written another way.
 */
#ifndef KEEL_MEMFACTS_H
#define KEEL_MEMFACTS_H

#include "alias.h"

/* At most this many facts at a point: more push the oldest out (loads
 * missed, never a wrong one), so each step costs a constant. */
#define MEMFACTS_MAX 16

/* The bytes at `at` hold bytes skip .. skip + at.bytes - 1 of `value`,
 * or zeros (value MEMFACTS_ZERO: an alloca's fresh memory). */
typedef struct mem_fact {
	mem_place at;
	uint32_t value;
	uint32_t skip;
} mem_fact;

#define MEMFACTS_ZERO KL_NONE

typedef struct mem_facts {
	mem_fact e[MEMFACTS_MAX]; /* oldest first */
	uint32_t n;
} mem_facts;

/* A store of value (resolved) to p: facts about bytes it may overwrite
 * go (those of its own base lose just those bytes), and it becomes
 * one. */
void memfacts_store(mem_facts *m, const alias_info *a, const mem_place *p,
		    uint32_t value);
/* A plain load at p gave value: a fact. */
void memfacts_load(mem_facts *m, const mem_place *p, uint32_t value);
/* A call: facts about memory it may write go. */
void memfacts_call(mem_facts *m, const alias_info *a);
/* An alloca of `size` bytes made object x: its bytes are zeros. */
void memfacts_alloca(mem_facts *m, uint32_t x, uint64_t size);
/*
 * Load i of f, at q: if facts hold all its bytes, as bytes of one value
 * in a row (of up to two values with `several`) and zeros, build before
 * it the value it reads (shifts, a reduction, an extension, masks, an
 * or, a bitcast, as the load's opcode and type need; a constant when
 * all are zeros) and return it; else KL_NONE.
 */
uint32_t memfacts_rebuild(const mem_facts *m, kl_func *f, uint32_t i,
			  const mem_place *q, bool several);

#endif /* KEEL_MEMFACTS_H */
