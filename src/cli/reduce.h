/*
 * reduce.h -- the edits `keel reduce` tries on a module (reduce_edit.c),
 * each a smaller program that may still be interesting. Public API only.
 *
 * The elements of each kind are counted in the same order on every parse
 * of the same text (functions in symbol order, blocks and instructions in
 * layout order), so that element k of a count and element k of the edit
 * made on a fresh parse of that text are one thing.
 */
#ifndef KEEL_CLI_REDUCE_H
#define KEEL_CLI_REDUCE_H

#include <stdbool.h>
#include <stdint.h>

#include "keel.h"

typedef enum reduce_kind {
	/* The bodies of defined functions become `return 0, ...`; a
	 * function already that small is no element. */
	REDUCE_STUB,
	/* Instructions other than terminators go; their results become
	 * zeros of their types, made at the top of the entry block. A zero
	 * constant is no element (taking one out makes another). */
	REDUCE_INSTS,
	/* Parameters of blocks other than the entry go, with the branch
	 * arguments for them; uses read zeros. */
	REDUCE_PARAMS,
	/* Each terminator that can say less: element k is one choice for
	 * one terminator: a jump to one of its destinations (a brif's or
	 * br_table's), or a return of zeros (any but such a return and a
	 * trap). Blocks that can no longer run go. */
	REDUCE_TERMS,
	/* sccp, cse, dce and simplify on every function: one element. */
	REDUCE_CLEAN,
	REDUCE_KINDS
} reduce_kind;

/* How a kind is named in messages ("insts"). */
const char *reduce_kind_name(reduce_kind kind);

/* How many elements of the kind m has. */
uint32_t reduce_count(kl_module *m, reduce_kind kind);

/* Make the edit of elements [from, to) of the kind (REDUCE_TERMS: to is
 * from + 1). False if the builder failed; what m then holds is for the
 * verifier to judge, which it must anyway. */
bool reduce_apply(kl_module *m, reduce_kind kind, uint32_t from,
		  uint32_t to);

#endif
