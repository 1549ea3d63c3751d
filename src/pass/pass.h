/*
 * pass.h -- what the passes share inside the library (pass.c): the
 * scratch a pass keeps in its report from one function to the next.
 */
#ifndef KEEL_PASS_H
#define KEEL_PASS_H

#include "../util/util.h"

/*
 * The scratch a pass keeps in a report, made by make() on first use. A
 * report holding another pass's scratch keeps it (keel.h asks for one
 * report a pass; nothing enforces it), and so does no report: then the
 * scratch is the call's own, *kept is false, and the caller frees it
 * with free_fn when done.
 */
void *pass_scratch(kl_pass_report *rep, void (*free_fn)(void *),
		   void *(*make)(void), bool *kept);

/* Grow the n arrays of *cap entries each, arrays[k] of entries of
 * sizes[k] bytes, to at least need entries (kl_grow's growth, so that
 * they share one capacity). */
void pass_grow_all(uint32_t *cap, uint64_t need, size_t n, void **arrays[],
		   const size_t sizes[]);

/* Begin a note of rep about function f: its name as the text writes it
 * (%name, #hex, noname) and ": "; the caller writes the rest. */
void pass_note_func(kl_pass_report *rep, const kl_func *f);

#endif /* KEEL_PASS_H */
