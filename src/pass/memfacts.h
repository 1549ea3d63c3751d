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

/* The bytes at `at` hold the low at.bytes bytes of `value`. */
typedef struct mem_fact {
	mem_place at;
	uint32_t value;
} mem_fact;

typedef struct mem_facts {
	mem_fact e[MEMFACTS_MAX]; /* oldest first */
	uint32_t n;
} mem_facts;

/* A store of value (resolved) to p: facts about bytes it may overwrite
 * go, and it becomes one. */
void memfacts_store(mem_facts *m, const alias_info *a, const mem_place *p,
		    uint32_t value);
/* A plain load at p gave value: a fact. */
void memfacts_load(mem_facts *m, const mem_place *p, uint32_t value);
/* A call: facts about memory it may write go. */
void memfacts_call(mem_facts *m, const alias_info *a);
/*
 * Load i of f, at q: if a fact holds all its bytes, build before it the
 * value it reads (a shift, a reduction, an extension, a bitcast, as the
 * load's opcode and type need) and return it; else KL_NONE.
 */
uint32_t memfacts_rebuild(const mem_facts *m, kl_func *f, uint32_t i,
			  const mem_place *q);

#endif /* KEEL_MEMFACTS_H */
