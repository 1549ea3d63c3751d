/*
 * alias.h -- where loads and stores reach, for the passes that reason
 * about memory (dse.c, cse.c, licm.c): what object an address points
 * into and at what offset, which allocas escape, and whether two
 * accesses may overlap. alias.c says how and on what assumptions.
 */
#ifndef KEEL_ALIAS_H
#define KEEL_ALIAS_H

#include "../ir/ir.h"
#include "../util/util.h"

/* Offsets from an object's root below which an access stays in it. */
#define ALIAS_OBJECT_END ((int64_t)1 << 31)

/* What an address is built on. */
enum {
	BASE_VALUE,  /* a value the pass knows nothing of (a parameter, a
		      * loaded pointer, a sum): id is the value */
	BASE_ALLOCA, /* the object an alloca made: id is its result */
	BASE_SYMBOL, /* the data object or function of symbol id */
};

/* The bytes one load or store reaches: [offset, offset + bytes) from
 * its base. */
typedef struct mem_place {
	uint8_t kind;     /* BASE_* */
	bool in_bounds;   /* an object's, inside it and, for a symbol, not
			   * const: a store there cannot trap */
	uint32_t id;
	uint32_t bytes;
	int64_t offset;
} mem_place;

/* Scratch kept from one function to the next (inside a pass's own). */
typedef struct alias_info {
	const kl_func *f;
	const uint32_t *table; /* func_resolve_table's answer */
	uint32_t nvalues;  /* f's when computed: values made since are
			    * unknown bases */
	uint8_t *kind;     /* by value: BASE_* of its root, or unknown yet */
	uint32_t *id;      /* by value: its root's id */
	int64_t *offset;   /* by value: its offset from its root */
	uint8_t *escaped;  /* by alloca result: its address escapes */
	uint8_t *loaded;   /* by alloca result: a load reads it */
	uint32_t *stack;   /* the chain being resolved */
	uint32_t *allocas; /* the alloca results, in layout order */
	uint32_t values_cap, nallocas, allocas_cap;
} alias_info;

/* Read f's addresses: every value's root, which allocas escape and
 * which are loaded from. table is func_resolve_table's answer for f
 * (kept by the caller while a is used). O(instructions + values). */
void alias_compute(alias_info *a, const kl_func *f, const uint32_t *table);
/* Where load or store i reaches (f as alias_compute saw it). */
mem_place alias_place(alias_info *a, uint32_t i);
/* May the bytes of x and y overlap? */
bool alias_may_overlap(const alias_info *a, const mem_place *x,
		       const mem_place *y);
/* Does x hold every byte of y (the same base)? */
bool alias_covers(const mem_place *x, const mem_place *y);
/* The object x reaches, as one number for both kinds (an alloca's
 * result, or the values alias_compute saw plus a symbol: below their
 * sum), or KL_NONE for an unknown base. */
uint32_t alias_object(const alias_info *a, const mem_place *x);
/* Can a pointer reach object x (alias_object's number): a symbol's,
 * or an alloca whose address escapes? */
bool alias_object_reachable(const alias_info *a, uint32_t x);
/* May a call read or write the bytes of x? (Not those of an alloca
 * whose address does not escape.) */
bool alias_call_reaches(const alias_info *a, const mem_place *x);
void alias_free(alias_info *a);

#endif /* KEEL_ALIAS_H */
