/*
 * testcmd.h -- the interface between `keel test` (the runner, in
 * cmd_test.c and test_file.c) and the test commands (`cat`, `roundtrip`,
 * `verifier`, `interpret`, ...), each in its own test_*.c file.
 *
 * The runner reads a file, finds its `test COMMAND [args]` header lines,
 * parses the module (header lines blanked, so line numbers stay), and
 * splits the comment lines among the functions: a function owns the
 * comments inside it and those after it up to the next function. Each
 * command then checks every function and reports failures as text.
 */
#ifndef KEEL_TESTCMD_H
#define KEEL_TESTCMD_H

#include "cli.h"

typedef struct test_comment {
	uint32_t line;    /* 1-based line in the file */
	uint32_t col;     /* 1-based column of the ';' */
	const char *text; /* after the ';' (not NUL-terminated) */
	size_t len;
	bool own_line;    /* nothing but the comment on its line */
} test_comment;

typedef struct test_func {
	kl_func *func;
	uint32_t first_line, last_line; /* "function" .. "}" */
	test_comment *comments;         /* inside and directly after */
	uint32_t ncomments;
} test_func;

typedef struct test_file {
	const char *path;   /* as messages name it */
	const char *source; /* what is read, and --bless rewrites */
	const char *text; /* the file as read */
	size_t len;
	const char *parse_text; /* the same with the `test` lines blanked */
	kl_module *module; /* parsed with redefinitions allowed; NULL if the
			      file does not parse (see parse_diags) */
	kl_diags parse_diags;
	test_func *funcs;
	uint32_t nfuncs;
	test_comment *comments; /* every comment of the file */
	uint32_t ncomments;
	bool bless;        /* --bless: commands may record new expectations */
	bool expect_fail;  /* --expect-fail: its `; expect-fail:` are read */
	/* The `test` line being run: its line and where its args begin in
	   text, so commands can point a caret at a bad argument. */
	uint32_t header_line, name_col, args_col;
	const char *args;
	/* Replacements of line ranges that --bless writes back
	 * (test_file.c). */
	struct bless_edit *edits;
	uint32_t nedits, edits_cap;
	bool bless_conflict; /* two commands' blocks differ: write nothing */
	bool directives_run; /* a command ran functions' check directives */
	uint32_t ndirectives; /* how many, all the commands together */
	/* The command being run changed the module (ran passes): the
	   commands after it get a fresh parse. */
	bool module_changed;
} test_file;

/*
 * A command checks every function of the file. It appends one message per
 * failure to report (each message may span several lines; start each with
 * the file position, e.g. "t.kl:12: ...") and returns the number of
 * failures. args is the rest of the `test` line (may be empty).
 */
typedef int (*test_cmd_fn)(test_file *tf, const char *args, kl_buf *report);

/*
 * The runner checks a command's arguments before running it: an operand,
 * if the command takes one, comes first; every other word must be one of
 * options, a space-separated list where "key=" takes a number ("key=N")
 * and "key=WORD" ("after=PASS[,PASS...]") a non-empty word that the command
 * reads and checks.
 */
typedef struct test_command {
	const char *name;
	test_cmd_fn run;
	bool needs_module;   /* false: it handles parse errors itself */
	const char *operand; /* what the required first word is, or NULL */
	const char *options; /* the option words, or "" */
	/* It checks each function, so a file with none would pass having
	 * checked nothing (unless the args say "module": roundtrip's whole
	 * module check). */
	bool needs_function;
	/* The annotations it reads ("; KEY: ..." comments other than check
	 * directives), space-separated keys; "^error" names a caret
	 * annotation ("; ^ error: ..."). The runner reports an annotation
	 * that no command of the file reads. */
	const char *annotations;
	/* It reads them among a function's comments (test_func), so one
	 * before the first function is read by none. */
	bool annotations_per_function;
} test_command;

/* ---- helpers for commands (test_file.c) ---- */

/*
 * Run the FileCheck directives among tf's comments against output.
 * Returns the number of failures (0 or 1) and reports them. Functions
 * without directives pass. Marks tf->directives_run.
 */
int test_filecheck(test_file *tf, const test_func *tfn,
		   const char *output, size_t len, kl_buf *report);

/* Does the comment start (after blanks) with key followed by ':'? If so,
 * (*rest, *rest_len) is the text after the colon, blanks trimmed. */
bool test_comment_directive(const test_comment *c, const char *key,
			    const char **rest, size_t *rest_len);

/* Is the comment, on a line of its own, a caret annotation
 * "; ^ error: TEXT"? If so, *col is the caret's column and (*text, *len)
 * is TEXT. */
bool test_caret_annotation(const test_comment *c, uint32_t *col,
			   const char **text, size_t *len);

/*
 * "precise" expectations: the block of comment lines directly after the
 * function's closing brace is the exact expected output, one "; " line per
 * output line (";" alone for an empty line). Compares, reports, and under
 * --bless records the replacement. Returns the number of failures.
 */
int test_precise(test_file *tf, const test_func *tfn, const char *output,
		 size_t len, kl_buf *report);

/* test_precise if precise, else test_filecheck. */
int test_check_output(test_file *tf, const test_func *tfn, bool precise,
		      const char *output, size_t len, kl_buf *report);

/* The next blank-separated word of *s (NULL at the end); *n its length. */
const char *test_next_word(const char **s, size_t *n);

/* Does args contain the word w? */
bool test_has_option(const char *args, const char *w);
/* Where the word w is in args, or NULL. */
const char *test_find_option(const char *args, const char *w);

/* The last word "key=..." in args and its length, or NULL. */
const char *test_option_word(const char *args, const char *key, size_t *len);

/* The number N of the option "key=N" in args (the last one if it is given
 * twice), or def if it is absent. */
uint64_t test_number_option(const char *args, const char *key, uint64_t def);

/*
 * Report an error about the current `test` line as
 * "FILE:LINE:COL: error: MESSAGE" with the line and a caret under at,
 * which points into the args string the command was given.
 */
void test_args_error(const test_file *tf, const char *at, kl_buf *report,
		     const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* The same about the `test` line as a whole (what the file holds does
 * not suit the command), the caret under the command's name. */
void test_line_error(const test_file *tf, kl_buf *report, const char *fmt,
		     ...) __attribute__((format(printf, 3, 4)));

/* The same about comment c, the caret under its first word. */
void test_comment_error(const test_file *tf, const test_comment *c,
			kl_buf *report, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* The same, the caret under at, which points into c's text. */
void test_comment_error_at(const test_file *tf, const test_comment *c,
			   const char *at, kl_buf *report, const char *fmt,
			   ...)
	__attribute__((format(printf, 5, 6)));

/* Record that --bless replaces lines [first, first + count) by text
 * (changes: the lines hold something else now). False if an edit of the
 * same lines with another text was recorded (by another command). */
bool test_add_edit(test_file *tf, uint32_t first, uint32_t count,
		   const char *text, bool changes);

/* The function's name as the text writes it (%f, #hex or noname),
 * NUL-terminated in tmp. */
const char *test_func_name(const test_func *tfn, kl_buf *tmp);

/* Read the pass list "PASS[,PASS...]" in s[0, len) into passes (room for
 * CLI_MAX_PASSES); false, reported with a caret, if it is not one. */
bool test_parse_passes(test_file *tf, const char *s, size_t len,
		       const kl_pass **passes, uint32_t *npasses,
		       kl_buf *report);

/*
 * Run the passes over the function (test_pass.c): verified before (the
 * passes take verified IR) and after each pass. Appends each pass's notes,
 * and with stats its counters, to extra as "; note:" and "; stat:" lines.
 * False, with the failure reported, if the function does not verify
 * before, a pass fails, or a pass leaves broken IR. Marks the module
 * changed, so the commands after get a fresh parse.
 */
bool test_run_passes(test_file *tf, const test_func *tfn,
		     const kl_pass *const *passes, uint32_t npasses,
		     bool notes, bool stats, kl_buf *extra, kl_buf *report);

/* Run every command of one file, whose text has been read (text; NULL:
 * read it here); returns the number of failures. A file --bless
 * rewrote, and which then passed, ends its report with the line
 * TEST_BLESSED, which the runner turns into "BLESSED PATH". */
#define TEST_BLESSED "(blessed)"
int test_run_file(const char *path, const cli_file *text, bool bless,
		  bool expect_fail, kl_buf *report);

/* ---- the commands ---- */
int test_cmd_cat(test_file *tf, const char *args, kl_buf *report);
int test_cmd_roundtrip(test_file *tf, const char *args, kl_buf *report);
int test_cmd_emit_asm(test_file *tf, const char *args, kl_buf *report);
int test_cmd_parse_error(test_file *tf, const char *args, kl_buf *report);
int test_cmd_debug_crash(test_file *tf, const char *args, kl_buf *report);
int test_cmd_debug_hang(test_file *tf, const char *args, kl_buf *report);
int test_cmd_print_cfg(test_file *tf, const char *args, kl_buf *report);
int test_cmd_domtree(test_file *tf, const char *args, kl_buf *report);
int test_cmd_loops(test_file *tf, const char *args, kl_buf *report);
int test_cmd_regions(test_file *tf, const char *args, kl_buf *report);
int test_cmd_verifier(test_file *tf, const char *args, kl_buf *report);
int test_cmd_interpret(test_file *tf, const char *args, kl_buf *report);
int test_cmd_pass(test_file *tf, const char *args, kl_buf *report);

#endif /* KEEL_TESTCMD_H */
