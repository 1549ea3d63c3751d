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

#endif /* KEEL_PASS_H */
