/*
 * cli.h -- what the keel command's subcommands share: reading input files,
 * printing diagnostics, option helpers. The CLI uses only the public API
 * (keel.h), like any other program built on libkeel.
 */
#ifndef KEEL_CLI_H
#define KEEL_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "keel.h"

/* The subcommand running ("cat", "opt", ...; set by main), named by the
 * messages of code every command shares; NULL before one is chosen. */
extern const char *cli_command;

/* Exit statuses of every subcommand. */
enum { EXIT_OK = 0, EXIT_BAD_INPUT = 1, EXIT_USAGE = 2 };

typedef struct cli_file {
	const char *name; /* as given, "standard input" for "-" */
	char *text;       /* len bytes and a NUL; not to be written */
	size_t len;
	size_t mapped;    /* bytes mapped from the file, or 0: malloc'd */
} cli_file;

/* A path as messages name it: "standard input" for "-". */
const char *cli_input_name(const char *path);

/* Read a whole file ("-" = stdin, out->name "standard input"). Prints
 * "keel CMD: cannot ..." and returns false. */
bool cli_read_file(const char *cmd, const char *path, cli_file *out);
/* The same, with why it failed ("cannot open F: REASON") appended to why
 * instead of printed. */
bool cli_load_file(const char *path, cli_file *out, kl_buf *why);
void cli_file_free(cli_file *f);

/* Render every diagnostic to stderr with source lines and carets. */
void cli_print_diags(const kl_diags *d, const cli_file *f);

/* Where the comment of the line [s, e) starts (';' outside a string). */
const char *cli_comment_start(const char *s, const char *e);

/*
 * A test file starts with `test COMMAND [args]` lines (blank lines and
 * comments may come between them). Overwrite them with spaces, so line
 * and column numbers stay, and report each to each() (which may be NULL).
 * Returns how many there were.
 */
uint32_t cli_blank_test_lines(char *text, size_t len,
			      void (*each)(void *ctx, uint32_t line,
					   const char *name, size_t nlen,
					   const char *args, size_t alen),
			      void *ctx);

/* Parse a file into a module, printing diagnostics on failure. Test
 * files are accepted: their `test` lines are ignored. */
kl_module *cli_parse(const cli_file *f, bool allow_redefinition);

/* cli_parse, then free the text (name and len stay): for commands that
 * read only the module afterwards. */
kl_module *cli_parse_then_free_text(cli_file *f);

/* The symbol a command-line name means, in any spelling the printer
 * uses or a bare name: "%f", "f", "#6869" (hex digits, two a byte) or
 * "noname"; KL_NO_SYM if none. */
kl_sym cli_lookup(const kl_module *m, const char *name);
/* "keel CMD: FILE: no function NAME defined", for a name cli_lookup did
 * not find a function for, with a hint when "noname" was meant as
 * %noname (noname is the empty name). */
void cli_no_such_func(const char *cmd, const char *file, const kl_module *m,
		      const char *name);

/* The usage error for an empty function name on the command line (it
 * would name the function without a name, spelt "noname"). */
#define CLI_EMPTY_FUNC_NAME \
	"an empty function name (the function without a name is 'noname')"
/* Is name empty in cli_lookup's spellings: "", "%" or "#" (which the
 * text format and test files refuse too)? */
bool cli_empty_func_name(const char *name);

/* Verify every function of m; false, with "keel CMD: FILE does not
 * verify:" and the verifier's listing of each broken one on stderr, if
 * any is. */
bool cli_verify_module(const kl_module *m, const char *file, const char *cmd);

/* Print m to `to` as it goes (a small buffer, not the whole text); false,
 * with a message, if writing failed. With a name (the file m was read
 * from), warn if the text printed would not parse back because its
 * numbers are too sparse for its size (docs/ir.md, "Limits"). */
bool cli_print_module(const kl_module *m, const kl_print_options *opts,
		      FILE *to, const char *name);
/* Write a buffer to stdout; false (with a message) if writing failed. */
bool cli_write_stdout(const kl_buf *b);
/* Say on stderr, once per process, that what went to stdout was lost
 * (errnum), naming cli_command. */
void cli_say_output_lost(int errnum);
/* Flush stdout (before a message on stderr that must follow it); false,
 * reported once, if what was written is lost. */
bool cli_flush_stdout(void);
/* Do stdout and stderr go to one place (a terminal, a file or pipe taken
 * twice as by 2>&1), where their lines show interleaved? */
bool cli_stdout_is_stderr(void);

/* Grow *pp (an array of *cap elements) to hold need; exits on OOM. */
void cli_grow(void *pp, uint32_t *cap, size_t elem, uint32_t need);
/* count zeroed elements of size bytes (at least one byte), or "keel CMD:
 * out of memory" and exit status 1, as the library says it and stops. */
void *cli_alloc(size_t count, size_t size);
/* A copy of s, or out of memory as cli_alloc says it. */
char *cli_strdup(const char *s);

/* Monotonic time, and CPU time of the process, in seconds (--time). */
double cli_now(void);
double cli_cpu_seconds(void);
/* A count, decimal or 0x-hexadecimal, with an optional k, M or G suffix
 * ("10M"); false if malformed or past 2^64 - 1, and then *too_large says
 * whether it failed only by its size. */
bool cli_parse_count(const char *s, uint64_t *out, bool *too_large);
/*
 * The value of count option `name` of command cmd (given: what
 * cli_args_option returned; value: the args' value) into *out, a count
 * from min to max. Every count option says a mistake the same way: "NAME
 * needs a value", "NAME is at most MAX" (past 2^64 - 1 too), "NAME needs
 * a count of at least MIN, not 'V'" ("a count" when MIN is 0, "a count
 * from MIN to MAX" when MAX is below 2^64 - 1). Returns false after
 * printing the usage error.
 */
bool cli_option_count(const char *cmd, const char *name, int given,
		      const char *value, uint64_t min, uint64_t max,
		      uint64_t *out);
/* One line of a text, without its newline, to show a difference:
 * "(end)" for a text that ended before it. */
typedef struct cli_line {
	const char *text;
	int len;
} cli_line;
/* Where texts a (na bytes) and b (nb bytes) first differ: false if they
 * are the same; else the 1-based number of the first line that differs
 * (its bytes or its newline) in *line, and that line of each. */
bool cli_first_difference(const char *a, size_t na, const char *b,
			  size_t nb, uint32_t *line, cli_line *la,
			  cli_line *lb);
/* Append the FileCheck engine's report rep (len bytes) to report, each
 * "line N: directive" head made "PATH:N: directive", a place an editor
 * opens (keel test, keel filecheck). */
void cli_put_check_report(kl_buf *report, const char *path, const char *rep,
			  size_t len);

/* The ending of a count's noun: "1 block", "2 blocks". */
static inline const char *
cli_plural(uint64_t n)
{
	return n == 1 ? "" : "s";
}
/* Peak resident memory of the process in bytes (0 if unknown). */
size_t cli_peak_rss(void);

/* The registered passes' names, separated by ", ", into out. */
void cli_pass_names(kl_buf *out);
/* "unknown pass 'NAME' (known: ...)", and which pass NAME is known as
 * elsewhere ("mem2reg": promote). */
void cli_unknown_pass(kl_buf *out, const char *name, size_t len);

/* The pass called name[0..len): a registered one, or one of the hidden
 * passes that go wrong on purpose, so that what the tools do then, which
 * no real pass makes them do, can be tested: `debug-break` removes the
 * terminator of each function's first block (what --verify-each, and the
 * verification after the passes in `keel test` and `keel difftest`,
 * catch); `debug-fail` fails on every function; `debug-miscompile` adds
 * 1 to every integer a function returns (output that verifies but
 * computes something else: what `keel difftest` catches). NULL if there
 * is none. */
const kl_pass *cli_pass_find(const char *name, size_t len);

/* The most passes one list may name (`keel opt`, `keel difftest`, the
 * `pass` test command). */
#define CLI_MAX_PASSES 64

/* Read the list "PASS[,PASS...]" in s[0..len), appending to the *n
 * passes in out (room for CLI_MAX_PASSES): -p given again adds. NULL if
 * it is good; else where in s the problem is (an empty name, an unknown
 * pass, one too many), with the message in err. */
const char *cli_parse_passes(const char *s, size_t len, const kl_pass **out,
			     uint32_t *n, kl_buf *err);

/* Is arg "-h" or "--help"? */
bool cli_is_help(const char *arg);

/*
 * A command's arguments, one at a time, read the same way by every
 * command: an option that takes a value is "--name VALUE" or
 * "--name=VALUE" (a short one "-x VALUE", "-xVALUE" or "-x=VALUE");
 * "--" ends the options, so a file may start with '-'; "-" alone is an
 * operand (standard input).
 */
typedef struct cli_args {
	int argc, next;
	char **argv;
	const char *arg;    /* the current argument */
	const char *value;  /* the value cli_args_option found */
	bool operands_only; /* past "--" (or set by the command) */
	int kept;           /* operands kept: argv[1 .. kept] */
	bool stdin_kept;    /* one of them is "-" */
	const char *flag_given_value; /* a flag asked for, as FLAG=VALUE */
} cli_args;

/* Start before argv[1] (argv[0] is the command's name). */
void cli_args_init(cli_args *a, int argc, char **argv);
/* The next argument into a->arg (a "--" is taken, not returned); false
 * at the end. */
bool cli_args_next(cli_args *a);
/* Is the current argument an option (not an operand)? */
bool cli_args_is_option(const cli_args *a);
/* Is the current argument "-h" or "--help" (a flag: cli_args_flag)? */
bool cli_args_help(cli_args *a);
/* Is the current argument the option name, or alt (may be NULL), that
 * takes no value? (Given one, "--name=VALUE", it is not, and
 * cli_args_unknown says the option takes no value.) */
bool cli_args_flag(cli_args *a, const char *name, const char *alt);
/* Is it the option name (or alt) that takes a value? 1: yes, the value
 * in a->value; -1: yes, but no value follows; 0: no. */
int cli_args_option(cli_args *a, const char *name, const char *alt);
/* Keep the current argument, a file operand, for after the options: the
 * kept ones go to argv[1 .. n] in order, over arguments already read.
 * Returns n; or, for a second "-", reports that standard input can be
 * named once as a usage error of command cmd and returns -1 (a second
 * read would find it empty, and an empty module passes every check). */
int cli_args_keep(cli_args *a, const char *cmd);

/* The current argument is an option the command does not know: report
 * it ("unknown option", or "takes no value" for a flag given one) and
 * return EXIT_USAGE. */
int cli_args_unknown(const cli_args *a, const char *cmd);

/* Report a usage error for a subcommand and return EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;

/* Subcommands: argv[0] is the subcommand name. */
int cmd_cat(int argc, char **argv);
int cmd_cfg(int argc, char **argv);
int cmd_domtree(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_test(int argc, char **argv);
int cmd_filecheck(int argc, char **argv);
int cmd_opt(int argc, char **argv);
int cmd_difftest(int argc, char **argv);
int cmd_import_qbe(int argc, char **argv);
int cmd_emit_c(int argc, char **argv);
int cmd_emit_asm(int argc, char **argv);
int cmd_reduce(int argc, char **argv);

#endif /* KEEL_CLI_H */
