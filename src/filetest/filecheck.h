/*
 * filecheck.h -- what the two halves of the FileCheck engine share:
 * filecheck.c builds a checker from directive lines, filecheck_run.c
 * matches it against a tool's output. A checker is never changed by a
 * run.
 */
#ifndef KEEL_FILECHECK_H
#define KEEL_FILECHECK_H

#include <regex.h>

#include "../util/util.h"

#define NOVAR SIZE_MAX

enum kind { D_CHECK, D_SAMELN, D_NEXTLN, D_UNORDERED, D_NOT, D_REGEX };

enum piece_kind {
	P_SRC,   /* regex source: escaped literal text or an inlined regex: */
	P_DEF,   /* the group "(RE)" of $(X=RE) or $(=RE) */
	P_REF,   /* $X while parsing, then resolved into one of the others */
	P_USE,   /* $X of a variable captured by an earlier directive */
};

struct piece {
	enum piece_kind kind;
	char *src;    /* P_SRC, P_DEF: regex source */
	char *text;   /* P_SRC of literal text: the text itself, unescaped */
	char *name;   /* variable name; NULL for literal text and $(=RE) */
	size_t var;   /* P_DEF, P_USE: index into vars, or NOVAR */
	size_t nsub;  /* groups src opens */
	size_t group; /* P_DEF: number of its group in the directive's regex */
	size_t at;    /* P_DEF, P_REF: where its '$' is in the pattern */
};

/*
 * Literal text to search for (filecheck_literal_of): its bytes, with each
 * run of blanks as one ' ', which matches any run of spaces and tabs; and
 * the Knuth-Morris-Pratt failure function of those tokens (lit_find).
 */
struct literal {
	kl_buf tok;
	size_t *fail; /* fail[k]: longest proper border of tok[0, k] */
};

struct directive {
	enum kind kind;
	uint32_t line;
	char *text; /* "kind: pattern", for reports */
	struct piece *pieces;
	uint32_t npieces, cappieces;
	size_t nsub;  /* groups of the whole regex */
	bool literal; /* literal text, in lit, when the line was added */
	struct literal lit;
};

struct var {
	char *name;
	char *re;      /* "(RE)" of a regex: variable; NULL if captured */
	size_t nsub;   /* groups re opens */
	uint32_t line; /* where it was first defined */
};

struct kl_filecheck {
	struct directive *dirs; /* matching directives, in file order */
	uint32_t ndirs, capdirs;
	struct var *vars;
	uint32_t nvars, capvars;
	/* vars by name: an open-addressing table of index + 1 (0: empty),
	 * at most half full; a scan per $X was quadratic in the variables */
	uint32_t *var_slots;
	uint32_t nslots;
	size_t count;    /* lines accepted, regex: included */
	size_t error_at; /* in the last line refused, the byte at fault */
	size_t max_nsub; /* most groups of any directive, to size regmatch_t */
};

struct binding {
	size_t start, end; /* the bound text is text[start, end) of a run */
	bool bound;
};

/* Blanks inside a pattern: a run of them matches any run in the output. */
static inline bool
is_hspace(char c)
{
	return c == ' ' || c == '\t';
}

/*
 * Concatenate d's pieces into regex source, splicing in the text of the
 * bindings of a run (binds NULL while adding lines) as escaped literals.
 * Returns NULL, or the name of a variable that has no text.
 */
const char *filecheck_build(const struct directive *d,
			    const struct binding *binds, const char *text,
			    kl_buf *src);

/*
 * The literal text d matches, bindings spliced in as for
 * filecheck_build, as tokens in lit; false (lit left empty) if d needs a
 * regex.
 */
bool filecheck_literal_of(const struct directive *d,
			  const struct binding *binds, const char *text,
			  struct literal *lit);
void filecheck_literal_free(struct literal *lit);

/* Compile d's regex from src; false, saying why in msg, on failure. */
bool filecheck_compile_pattern(regex_t *re, const struct directive *d,
			       const kl_buf *src, kl_buf *msg);

#endif
