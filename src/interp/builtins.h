/*
 * builtins.h -- which external functions keel run provides, and with
 * which declarations (builtins.c): what the interpreter calls, and what
 * the C emitter (src/emit) gives the same functions, so that a call the
 * one refuses the other refuses with the same message.
 */
#ifndef KEEL_INTERP_BUILTINS_H
#define KEEL_INTERP_BUILTINS_H

#include "../util/util.h"

/*
 * Is s, a declared function of m, a built-in whose declaration fits it
 * (integers of any width, i64 for pointers, the built-in's result or
 * none)? If not, and why is not NULL, the failure keel run reports when
 * it is called is appended to why: no such built-in, or a declaration
 * the built-in does not have.
 */
bool interp_builtin_fits(const kl_module *m, kl_sym s, kl_buf *why);

#endif /* KEEL_INTERP_BUILTINS_H */
