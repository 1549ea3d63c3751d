/*
 * parsed.h -- for unit tests that start from IR text: the module it
 * parses to, its symbols and functions by name, a function printed, and
 * whether a function still verifies after the test changed it.
 */
#ifndef KEEL_PARSED_H
#define KEEL_PARSED_H

#include <stdbool.h>
#include <string.h>

#include "keel.h"
#include "unit.h"

/* The module text[0..len) parses to (free it); the text must parse. */
static inline kl_module *
parse_text(const char *text, size_t len)
{
	kl_module *m = NULL;
	kl_diags d = { 0 };
	CHECK(kl_parse_module(text, len, NULL, &m, &d) == KL_OK);
	kl_diags_free(&d);
	return m;
}

/* The symbol called name (KL_NO_SYM if there is none). */
static inline kl_sym
sym(const kl_module *m, const char *name)
{
	return kl_module_lookup(m, name, strlen(name));
}

/* Does f verify (after the test changed it)? */
static inline bool
verifies(const kl_func *f)
{
	kl_diags d = { 0 };
	bool ok = kl_verify_func(f, NULL, &d) == KL_OK;
	kl_diags_free(&d);
	return ok;
}

/* The function called name. */
static inline kl_func *
func_of(kl_module *m, const char *name)
{
	return kl_sym_func(m, sym(m, name));
}

/* f printed (free the text). */
static inline char *
printed(const kl_func *f)
{
	kl_buf out = { 0 };
	kl_print_func(f, NULL, &out);
	return out.data;
}

#endif
