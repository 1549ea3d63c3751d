/*
 * filecheck.c -- the FileCheck engine: parse directives from test-file
 * comments, match them in order against a tool's output, and explain the
 * first one that fails. Modelled on Cranelift's filecheck crate and LLVM
 * FileCheck; the regex dialect is POSIX extended (<regex.h>, libc only).
 *
 * Building. A pattern is parsed once, when its line is added, into pieces:
 * regex source for literal text (escaped, each run of blanks turned into
 * "[ \t]+") and for uses of regex: variables (inlined as "(RE)"); a group
 * "(RE)" for each $(X=RE) or $(=RE); and a placeholder for each use of a
 * variable captured by an earlier directive. Variables must be defined
 * before they are used, in file order, so the kind of every $X is known
 * then. A pattern without captured-variable uses is concatenated and
 * compiled right away, to report its errors where it is written, and
 * freed. Every regex is compiled when a run reaches its directive, with
 * any captured text spliced in as an escaped literal whose blanks are
 * turned as the pattern's own are (a capture of "a  b" then matches
 * "a\tb", as LLVM FileCheck's does): that text differs from run to run,
 * and splicing keeps one regex per directive instead of matching piece by
 * piece. It is freed as soon as its directive has matched (a not: waits
 * with its source only, and compiles it again to search): glibc grows a
 * regex_t by some 2 kB per byte of pattern as it searches, and keeping
 * one per directive took gigabytes. A pattern
 * that is literal text alone, once any captured text is spliced in, is
 * compiled to no regex at all: lit_find searches for its tokens (bytes, a
 * run of blanks as one) in linear time, matching exactly what regexec would,
 * where regexec takes time quadratic in a long literal. The subexpression
 * number of each $(X=RE) group is fixed when its line is added, because
 * regcomp tells how many groups every RE opens (re_nsub) and a spliced
 * literal opens none. Back-references are rejected: splicing would renumber
 * their groups.
 *
 * Matching. The output is copied once with every '\n' replaced by NUL, so
 * each line is a C string for regexec and no pattern can match across a
 * newline. A search goes line by line from a start position (REG_NOTBOL if
 * that is mid-line) up to a limit (whose line is cut short there, with
 * REG_NOTEOL); regexec's leftmost-longest match on the first line that has
 * one is the match. A run keeps one position, the end of the previous
 * positive match, starting at 0:
 *   check:     searches from the position to the end of the output;
 *   sameln:    from the position to the end of its line;
 *   nextln:    the whole line after the position's line (line 1 when
 *              nothing has matched yet);
 *   unordered: each of a run of consecutive ones, in file order, takes the
 *              leftmost match after the position that overlaps none taken
 *              by the others; the position becomes the latest end. This is
 *              greedy, like LLVM's CHECK-DAG: it can miss an assignment
 *              that only another order would find;
 *   not:       is compiled when reached (so it sees the bindings of that
 *              point) and kept pending; once the next positive directive
 *              or group has matched, it must not match between the old
 *              position and the start of that match (the earliest start of
 *              a group), or the end of the output after the last directive.
 * A positive match binds the variables of its $(X=RE) groups; a later
 * binding of the same name replaces the earlier one.
 *
 * Invariants: a run never changes the checker, so it can be run again; a
 * rejected line leaves the checker as it was; the position never moves
 * backwards and always lies on the line of the last match.
 */
#include <inttypes.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "../util/util.h"

#define NOVAR SIZE_MAX

enum kind { D_CHECK, D_SAMELN, D_NEXTLN, D_UNORDERED, D_NOT, D_REGEX };

static const char *const kind_names[] = {
	"check", "sameln", "nextln", "unordered", "not", "regex",
};

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
 * Literal text to search for (literal_of): its bytes, with each run of
 * blanks as one ' ', which matches any run of spaces and tabs; and the
 * Knuth-Morris-Pratt failure function of those tokens (lit_find).
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

/*
 * A directive spliced during a run, from the bindings of when the run
 * reached it, and kept only until the directive has been matched: glibc
 * grows a regex_t by some 2 kB per byte of pattern as it searches with it,
 * so one kept per directive to the end of a run took gigabytes.
 */
struct spliced {
	bool done;    /* spliced (the rest is empty until then) */
	bool literal; /* matched as lit */
	bool live;    /* re is compiled (from src) */
	regex_t re;
	kl_buf src; /* regex source, kept while a not: waits */
	struct literal lit;
};

/* What find() searches for: a regex, or else literal text. */
struct matcher {
	const regex_t *re;
	const struct literal *lit;
};

/* The state of one kl_filecheck_run. */
struct run {
	const kl_filecheck *fc;
	char *text;            /* the output, each '\n' replaced by NUL */
	size_t len;            /* bytes in the output */
	size_t *starts;        /* first byte of each line */
	size_t nlines;         /* a final '\n' does not start a line */
	size_t last_end;       /* end of the last line */
	struct binding *binds; /* one per variable */
	struct spliced *own;   /* one per directive */
	regmatch_t *pm;        /* room for the most groups of any directive */
	size_t npm;
	size_t base; /* where the search that filled pm started */
	kl_buf *report;
};

/* Why a line was refused, and the byte of it the message is about (NULL:
 * the directive as a whole), for a caret there. */
struct fault {
	kl_buf msg;
	const char *at;
};

/* Say where, unless a deeper step said it first. */
static void
fault_at(struct fault *why, const char *at)
{
	if (!why->at)
		why->at = at;
}

/* Blanks inside a pattern: a run of them matches any run in the output. */
static bool
is_hspace(char c)
{
	return c == ' ' || c == '\t';
}

/* Blanks trimmed from the ends of a pattern (a CRLF file ends in '\r'). */
static bool
is_blank(char c)
{
	return is_hspace(c) || c == '\r' || c == '\n';
}

static bool
name_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool
name_char(char c)
{
	return name_start(c) || (c >= '0' && c <= '9');
}

/* Compile src as an extended regex; on failure say why in msg. */
static bool
compile(regex_t *re, const char *src, kl_buf *msg)
{
	kl_c_locale c; /* bytes, whatever the host's locale (util.h) */
	kl_c_locale_begin(&c);
	int rc = regcomp(re, src, REG_EXTENDED);
	kl_c_locale_end(&c);
	if (rc == 0)
		return true;
	size_t n = regerror(rc, re, NULL, 0);
	char *s = kl_malloc(n + 1);
	regerror(rc, re, s, n + 1);
	kl_buf_puts(msg, s);
	free(s);
	return false;
}

/*
 * The user's regex s[0, n) as the group "(RE)", checked by compiling it on
 * its own, and the number of groups it opens. NULL, with why set, if bad.
 */
static char *
group_src(const char *s, size_t n, size_t *nsub, struct fault *why)
{
	kl_buf *msg = &why->msg;
	if (n == 0) {
		fault_at(why, s);
		kl_buf_puts(msg, "empty regex");
		return NULL;
	}
	kl_buf src = {0}, why_not = {0};
	kl_buf_putc(&src, '(');
	kl_buf_append(&src, s, n);
	kl_buf_putc(&src, ')');
	regex_t re;
	char *res = NULL;
	if (compile(&re, src.data, &why_not)) {
		*nsub = re.re_nsub;
		regfree(&re);
		res = kl_strndup(src.data, src.len);
	} else {
		fault_at(why, s);
		kl_buf_puts(msg, "bad regex '");
		kl_buf_append(msg, s, n);
		kl_buf_printf(msg, "': %s", why_not.data);
	}
	kl_buf_free(&src);
	kl_buf_free(&why_not);
	return res;
}

/* Index of the ']' closing the bracket expression opened at s[i], or n. */
static size_t
skip_bracket(const char *s, size_t i, size_t n)
{
	i++;
	if (i < n && s[i] == '^')
		i++;
	if (i < n && s[i] == ']') /* a leading ']' is a member, not the end */
		i++;
	while (i < n && s[i] != ']') {
		char d = i + 1 < n ? s[i + 1] : 0;
		if (s[i] == '[' && (d == ':' || d == '.' || d == '=')) {
			/* [:class:], [.coll.] and [=equiv=] may contain ']' */
			size_t j = i + 2;
			while (j + 1 < n && !(s[j] == d && s[j + 1] == ']'))
				j++;
			if (j + 1 >= n)
				return n;
			i = j + 2;
		} else {
			i++;
		}
	}
	return i;
}

/* How many copies of its atoms a regex may hold once glibc has expanded
 * its repetitions ("(a{200}){200}" is 40,000), and how deep its groups
 * may nest: regcomp's memory grows with the product, to gigabytes. */
enum { RE_MAX_COPIES = 100000, RE_MAX_NESTING = 32 };

/* The copies a repetition at s[i] adds per copy of what it repeats. */
static uint64_t
extra_copies(const char *s, size_t i, size_t n)
{
	if (s[i] != '{')
		return 1; /* a* and a+ are a|aa*, a? is a or nothing */
	uint64_t most = 0, v = 0;
	for (i++; i < n && s[i] != '}'; i++) {
		if (s[i] >= '0' && s[i] <= '9' && v <= RE_MAX_COPIES)
			v = v * 10 + (uint64_t)(s[i] - '0');
		else if (s[i] < '0' || s[i] > '9')
			v = 0;
		most = v > most ? v : most;
	}
	return most;
}

/*
 * Find where a regex starting at s ends: at the first ')' that closes no
 * '(' of its own, or at n. Escapes and bracket expressions are skipped the
 * way regcomp reads them, so "\)" and "[)]" do not end it. Returns SIZE_MAX,
 * with why set, for a stray '\' at the end, an unterminated bracket
 * expression, a back-reference, a '$' before a name or '(' (a variable
 * written where none is expanded), a repetition repeated, or a regex
 * too big for regcomp once expanded (RE_MAX_COPIES, RE_MAX_NESTING).
 */
static size_t
scan_re(const char *s, size_t n, struct fault *why)
{
	kl_buf *msg = &why->msg;
	size_t depth = 0;
	bool repeated = false; /* the last token was a repetition */
	/* copies of atoms in each open group, and in the last atom or group */
	uint64_t copies[RE_MAX_NESTING + 1] = { 0 }, last = 0;
	size_t i = 0;
	for (; i < n; i++) {
		/* glibc reads "{,n}" as "{0,n}" */
		bool interval = s[i] == '{' && i + 1 < n &&
				((s[i + 1] >= '0' && s[i + 1] <= '9') ||
				 s[i + 1] == ',');
		if (s[i] == '*' || s[i] == '+' || s[i] == '?' || interval) {
			/* POSIX leaves "a**" undefined, and glibc builds
			 * "a++++..." as a tree doubled at each '+' */
			if (repeated) {
				fault_at(why, s + i);
				kl_buf_puts(msg, "a repetition of a repetition "
						 "('a**', 'a+?', 'a{2}*') is "
						 "undefined in a POSIX regex");
				return SIZE_MAX;
			}
			repeated = true;
			copies[depth] += last * extra_copies(s, i, n);
			while (interval && i + 1 < n && s[i] != '}')
				i++;
		} else {
			repeated = false;
			last = 1;
		}
		if (copies[depth] > RE_MAX_COPIES)
			break;
		if (repeated)
			continue;
		if (s[i] == '\\') {
			if (i + 1 == n) {
				fault_at(why, s + i);
				kl_buf_puts(msg, "regex ends with '\\'");
				return SIZE_MAX;
			}
			if (s[i + 1] >= '0' && s[i + 1] <= '9') {
				fault_at(why, s + i);
				kl_buf_puts(msg, "back-references are not "
						 "supported");
				return SIZE_MAX;
			}
			i++;
		} else if (s[i] == '[') {
			size_t open = i;
			i = skip_bracket(s, i, n);
			if (i == n) {
				fault_at(why, s + open);
				kl_buf_puts(msg, "missing ']' in regex");
				return SIZE_MAX;
			}
		} else if (s[i] == '$' && i + 1 < n &&
			   (name_char(s[i + 1]) || s[i + 1] == '(')) {
			/* an anchor before a name matches nothing, ever */
			fault_at(why, s + i);
			kl_buf_puts(msg, "'$' in a regex is the end of the "
					 "line, not a variable: regexes use "
					 "none (a literal '$' is '\\$')");
			return SIZE_MAX;
		} else if (s[i] == '(') {
			if (depth == RE_MAX_NESTING) {
				fault_at(why, s + i);
				kl_buf_printf(msg, "groups nested more than %d "
					      "deep in a regex",
					      RE_MAX_NESTING);
				return SIZE_MAX;
			}
			copies[++depth] = 0;
			last = 0;
			continue;
		} else if (s[i] == ')') {
			if (depth == 0)
				break;
			last = copies[depth--];
			copies[depth] += last;
			continue;
		} else if (s[i] == '|') {
			last = 0;
			continue;
		}
		copies[depth]++;
	}
	if (copies[depth] > RE_MAX_COPIES || copies[0] > RE_MAX_COPIES) {
		fault_at(why, s);
		kl_buf_printf(msg, "the regex is too big once its repetitions "
			      "are expanded (more than %d copies of its "
			      "characters)", RE_MAX_COPIES);
		return SIZE_MAX;
	}
	return i;
}

/*
 * Append regex source matching s literally. With blanks, a run of spaces
 * and tabs instead matches any run of one or more spaces and tabs.
 */
static void
put_literal(kl_buf *b, const char *s, size_t n, bool blanks)
{
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (blanks && is_hspace(c)) {
			while (i + 1 < n && is_hspace(s[i + 1]))
				i++;
			kl_buf_puts(b, "[ \t]+");
			continue;
		}
		/* ']' and '}' are literal on their own in an ERE */
		if (c != 0 && strchr("^.[$()|*+?{\\", c))
			kl_buf_putc(b, '\\');
		kl_buf_putc(b, c);
	}
}

static struct piece *
new_piece(struct directive *d, enum piece_kind kind)
{
	kl_grow(&d->pieces, &d->cappieces, sizeof *d->pieces,
		(uint64_t)d->npieces + 1);
	struct piece *p = &d->pieces[d->npieces++];
	memset(p, 0, sizeof *p);
	p->kind = kind;
	p->var = NOVAR;
	return p;
}

static void
free_pieces(struct directive *d)
{
	for (uint32_t i = 0; i < d->npieces; i++) {
		free(d->pieces[i].src);
		free(d->pieces[i].text);
		free(d->pieces[i].name);
	}
	free(d->pieces);
}

static void
add_literal(struct directive *d, const char *s, size_t n)
{
	if (n == 0)
		return;
	kl_buf b = {0};
	put_literal(&b, s, n, true);
	struct piece *p = new_piece(d, P_SRC);
	p->src = kl_strndup(b.data, b.len);
	p->text = kl_strndup(s, n);
	kl_buf_free(&b);
}

/*
 * Parse what follows "$(" (at s[i]): NAME), NAME=RE) or =RE). Returns the
 * index just after the closing ')', or SIZE_MAX with why set.
 */
static size_t
parse_group(struct directive *d, const char *s, size_t i, size_t n,
	    struct fault *why)
{
	kl_buf *msg = &why->msg;
	const char *group = s + i - 2; /* its "$(" */
	size_t j = i;
	while (j < n && name_char(s[j]))
		j++;
	if (j > i && !name_start(s[i])) {
		fault_at(why, s + i);
		kl_buf_puts(msg, "bad variable name '");
		kl_buf_append(msg, s + i, j - i);
		kl_buf_putc(msg, '\'');
		return SIZE_MAX;
	}
	if (j > i && j < n && s[j] == ')') {
		struct piece *p = new_piece(d, P_REF);
		p->name = kl_strndup(s + i, j - i);
		p->at = (size_t)(group - s);
		return j + 1;
	}
	if (j == n || s[j] != '=') {
		fault_at(why, group);
		kl_buf_puts(msg, "expected $(NAME), $(NAME=RE) or $(=RE)");
		return SIZE_MAX;
	}
	size_t r = j + 1, end = scan_re(s + r, n - r, why), nsub;
	if (end == SIZE_MAX)
		return SIZE_MAX;
	if (r + end == n) {
		fault_at(why, group);
		kl_buf_puts(msg, "missing ')' after $(...=RE");
		return SIZE_MAX;
	}
	char *src = group_src(s + r, end, &nsub, why);
	if (!src)
		return SIZE_MAX;
	struct piece *p = new_piece(d, P_DEF);
	p->src = src;
	p->name = j > i ? kl_strndup(s + i, j - i) : NULL;
	p->nsub = nsub;
	p->at = (size_t)(group - s);
	return r + end + 1;
}

/* Split pattern s into pieces; variable names are not resolved yet. */
static bool
parse_pattern(struct directive *d, const char *s, size_t n,
	      struct fault *why)
{
	size_t i = 0, lit = 0;
	while (i < n) {
		if (s[i] != '$') {
			i++;
			continue;
		}
		if (i + 1 < n && s[i + 1] == '$') {
			/* the first '$' stays as literal text */
			add_literal(d, s + lit, i + 1 - lit);
			i += 2;
			lit = i;
			continue;
		}
		add_literal(d, s + lit, i - lit);
		if (i + 1 < n && name_start(s[i + 1])) {
			size_t j = i + 1;
			while (j < n && name_char(s[j]))
				j++;
			struct piece *p = new_piece(d, P_REF);
			p->name = kl_strndup(s + i + 1, j - i - 1);
			p->at = i;
			i = j;
		} else if (i + 1 < n && s[i + 1] == '(') {
			i = parse_group(d, s, i + 2, n, why);
			if (i == SIZE_MAX)
				return false;
		} else {
			fault_at(why, s + i);
			kl_buf_puts(&why->msg, "'$' must start $NAME, $(NAME), "
					 "$(NAME=RE) or $(=RE); write $$ for "
					 "a literal '$'");
			return false;
		}
		lit = i;
	}
	add_literal(d, s + lit, n - lit);
	return true;
}

/* The slot of name in the table by name: its variable's, or the empty
 * slot where it would go. */
static uint32_t
var_slot(const kl_filecheck *fc, const char *name)
{
	uint32_t mask = fc->nslots - 1;
	uint32_t k = (uint32_t)kl_hash_bytes(name, strlen(name)) & mask;
	while (fc->var_slots[k] &&
	       strcmp(fc->vars[fc->var_slots[k] - 1].name, name) != 0)
		k = (k + 1) & mask;
	return k;
}

static size_t
find_var(const kl_filecheck *fc, const char *name)
{
	if (!fc->nslots)
		return NOVAR;
	uint32_t k = var_slot(fc, name);
	return fc->var_slots[k] ? fc->var_slots[k] - 1 : NOVAR;
}

/* Enter var i in the table by name, unless its name is there already
 * (the first definition stays the one found). */
static void
index_var(kl_filecheck *fc, uint32_t i)
{
	uint32_t k = var_slot(fc, fc->vars[i].name);
	if (!fc->var_slots[k])
		fc->var_slots[k] = i + 1;
}

static size_t
add_var(kl_filecheck *fc, char *name, char *re, size_t nsub, uint32_t line)
{
	kl_grow(&fc->vars, &fc->capvars, sizeof *fc->vars,
		(uint64_t)fc->nvars + 1);
	fc->vars[fc->nvars] = (struct var){name, re, nsub, line};
	if (2 * ((uint64_t)fc->nvars + 1) > fc->nslots) {
		free(fc->var_slots);
		fc->nslots = fc->nslots ? 2 * fc->nslots : 16;
		fc->var_slots = kl_calloc(fc->nslots, sizeof *fc->var_slots);
		for (uint32_t i = 0; i < fc->nvars; i++)
			index_var(fc, i);
	}
	index_var(fc, fc->nvars);
	return fc->nvars++;
}

/*
 * Decide what each $X of a parsed pattern means, from the variables
 * defined on earlier lines, and reject uses of undefined ones and
 * definitions that clash, at their place in the pattern s. Changes
 * nothing in fc.
 */
static bool
resolve(const kl_filecheck *fc, struct directive *d, const char *s,
	struct fault *why)
{
	kl_buf *msg = &why->msg;
	for (uint32_t i = 0; i < d->npieces; i++) {
		struct piece *p = &d->pieces[i];
		if ((p->kind != P_DEF && p->kind != P_REF) || !p->name)
			continue;
		for (uint32_t k = 0; k < i; k++) {
			const struct piece *q = &d->pieces[k];
			if (q->kind != P_DEF || !q->name ||
			    strcmp(q->name, p->name) != 0)
				continue;
			kl_buf_printf(msg, p->kind == P_DEF ?
				"$(%s=...) is defined twice in one directive" :
				"$%s is used in the directive that defines it",
				p->name);
			fault_at(why, s + p->at);
			return false;
		}
		size_t v = find_var(fc, p->name);
		const struct var *var = v == NOVAR ? NULL : &fc->vars[v];
		if (p->kind == P_DEF) {
			if (var && var->re) {
				kl_buf_printf(msg, "variable %s is already "
					      "defined by regex: on line %"
					      PRIu32, p->name, var->line);
				fault_at(why, s + p->at);
				return false;
			}
		} else if (!var) {
			/* No line before this one defines it, so no run
			 * could bind it: say so now, not after the matches
			 * before it (which a run may never get past). */
			kl_buf_printf(msg, "undefined variable $%s (define it "
				      "on an earlier line)", p->name);
			fault_at(why, s + p->at);
			return false;
		} else if (var->re) {
			p->kind = P_SRC;
			p->src = kl_strndup(var->re, strlen(var->re));
			p->nsub = var->nsub;
		} else {
			p->kind = P_USE;
			p->var = v;
		}
	}
	return true;
}

/* Give each $(X=RE) group its number, and count all groups. */
static void
number_groups(struct directive *d)
{
	size_t g = 1;
	for (uint32_t i = 0; i < d->npieces; i++) {
		if (d->pieces[i].kind == P_DEF)
			d->pieces[i].group = g;
		g += d->pieces[i].nsub;
	}
	d->nsub = g - 1;
}

/*
 * Concatenate d's pieces into regex source, splicing in the text that cx
 * binds to captured variables (cx is NULL while adding lines). Returns
 * NULL, or the name of a variable that has no text.
 */
static const char *
build(const struct directive *d, const struct run *cx, kl_buf *src)
{
	for (uint32_t i = 0; i < d->npieces; i++) {
		const struct piece *p = &d->pieces[i];
		const struct binding *b = p->kind == P_USE && cx ?
						  &cx->binds[p->var] : NULL;
		if (p->kind == P_SRC || p->kind == P_DEF)
			kl_buf_puts(src, p->src);
		else if (b && b->bound)
			put_literal(src, cx->text + b->start, b->end - b->start,
				    true);
		else
			return p->name;
	}
	return NULL;
}

/* Append s[0, n) to literal tokens; false if a run of blanks in it meets
 * one already there. */
static bool
put_tokens(kl_buf *tok, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!is_hspace(s[i])) {
			kl_buf_putc(tok, s[i]);
			continue;
		}
		if (tok->len && tok->data[tok->len - 1] == ' ')
			return false;
		kl_buf_putc(tok, ' ');
		while (i + 1 < n && is_hspace(s[i + 1]))
			i++;
	}
	return true;
}

static void
literal_free(struct literal *lit)
{
	kl_buf_free(&lit->tok);
	free(lit->fail);
	*lit = (struct literal){0};
}

/*
 * The literal text d matches, with the text cx binds to captured variables
 * spliced in (cx is NULL while adding lines), as tokens in lit. Returns
 * false, lit left empty, if d has a regex in it or a variable without text,
 * or if two runs of blanks meet where pieces join ("a $X" with X bound to
 * " b"): its regex "a[ \t]+[ \t]+b" wants two blanks there, which one ' '
 * token does not say, so such a directive is left to the regex.
 */
static bool
literal_of(const struct directive *d, const struct run *cx,
	   struct literal *lit)
{
	bool ok = true;
	for (uint32_t i = 0; ok && i < d->npieces; i++) {
		const struct piece *p = &d->pieces[i];
		const struct binding *b = p->kind == P_USE && cx ?
						  &cx->binds[p->var] : NULL;
		if (p->kind == P_SRC && p->text)
			ok = put_tokens(&lit->tok, p->text, strlen(p->text));
		else if (b && b->bound)
			ok = put_tokens(&lit->tok, cx->text + b->start,
					b->end - b->start);
		else
			ok = false;
	}
	if (!ok) {
		literal_free(lit);
		return false;
	}
	size_t n = lit->tok.len, k = 0;
	lit->fail = kl_malloc((n + 1) * sizeof *lit->fail);
	lit->fail[0] = 0;
	for (size_t i = 1; i < n; i++) {
		while (k > 0 && lit->tok.data[i] != lit->tok.data[k])
			k = lit->fail[k - 1];
		if (lit->tok.data[i] == lit->tok.data[k])
			k++;
		lit->fail[i] = k;
	}
	return true;
}

/* Compile d's regex from src; on failure say why in msg. */
static bool
compile_pattern(regex_t *re, const struct directive *d, const kl_buf *src,
		kl_buf *msg)
{
	if (!compile(re, src->len ? src->data : "", msg))
		return false;
	if (re->re_nsub == d->nsub)
		return true;
	/* the groups of the pieces did not survive concatenation */
	regfree(re);
	kl_buf_puts(msg, "cannot combine the regexes of this pattern");
	return false;
}

static int
add_match(kl_filecheck *fc, enum kind kind, const char *s, size_t n,
	  uint32_t line, struct fault *why)
{
	kl_buf *msg = &why->msg;
	if (n == 0) {
		kl_buf_printf(msg, "%s: needs a pattern", kind_names[kind]);
		return -1;
	}
	struct directive d = {.kind = kind, .line = line};
	bool ok = parse_pattern(&d, s, n, why) && resolve(fc, &d, s, why);
	for (uint32_t i = 0; ok && kind == D_NOT && i < d.npieces; i++) {
		if (d.pieces[i].kind == P_DEF && d.pieces[i].name) {
			fault_at(why, s + d.pieces[i].at);
			kl_buf_puts(msg, "not: cannot define variables");
			ok = false;
		}
	}
	number_groups(&d);
	kl_buf src = {0};
	/* literal text needs no regex: a search for it is linear, and
	 * glibc's regex_t would grow by kilobytes per byte as it runs */
	regex_t re;
	if (ok && literal_of(&d, NULL, &d.lit)) {
		d.literal = true;
	} else if (ok && !build(&d, NULL, &src)) {
		/* A regex is compiled now for its errors, then freed: a run
		 * compiles it again when it reaches the directive and frees
		 * it once searched (splice), as for a pattern with captured
		 * text. Kept, 100,000 of them took gigabytes. */
		ok = compile_pattern(&re, &d, &src, msg);
		if (ok)
			regfree(&re);
	}
	if (!ok)
		fault_at(why, s);
	kl_buf_free(&src);
	if (!ok) {
		free_pieces(&d);
		return -1;
	}
	for (uint32_t i = 0; i < d.npieces; i++) {
		struct piece *p = &d.pieces[i];
		if (p->kind != P_DEF || !p->name)
			continue;
		p->var = find_var(fc, p->name);
		if (p->var == NOVAR) {
			char *name = kl_strndup(p->name, strlen(p->name));
			p->var = add_var(fc, name, NULL, 0, line);
		}
	}
	kl_buf text = {0};
	kl_buf_printf(&text, "%s: ", kind_names[kind]);
	kl_buf_append(&text, s, n);
	d.text = kl_strndup(text.data, text.len);
	kl_buf_free(&text);
	kl_grow(&fc->dirs, &fc->capdirs, sizeof *fc->dirs,
		(uint64_t)fc->ndirs + 1);
	fc->dirs[fc->ndirs++] = d;
	if (d.nsub > fc->max_nsub)
		fc->max_nsub = d.nsub;
	return 1;
}

/* regex: NAME=RE, with blanks allowed around the '='. */
static int
add_regex(kl_filecheck *fc, const char *s, size_t n, uint32_t line,
	  struct fault *why)
{
	kl_buf *msg = &why->msg;
	size_t i = 0;
	while (i < n && name_char(s[i]))
		i++;
	size_t j = i;
	while (j < n && is_blank(s[j]))
		j++;
	if (i == 0 || !name_start(s[0]) || j == n || s[j] != '=') {
		fault_at(why, s);
		kl_buf_puts(msg, "regex: expects NAME=RE, NAME being "
				 "[A-Za-z_][A-Za-z0-9_]*");
		return -1;
	}
	for (j++; j < n && is_blank(s[j]); j++)
		;
	size_t end = scan_re(s + j, n - j, why), nsub;
	if (end == SIZE_MAX)
		return -1;
	if (end != n - j) {
		fault_at(why, s + j + end);
		kl_buf_puts(msg, "unbalanced ')' in regex");
		return -1;
	}
	char *name = kl_strndup(s, i);
	size_t v = find_var(fc, name);
	if (v != NOVAR) {
		fault_at(why, s);
		kl_buf_printf(msg, "variable %s is already defined on line %"
			      PRIu32, name, fc->vars[v].line);
		free(name);
		return -1;
	}
	char *src = group_src(s + j, n - j, &nsub, why);
	if (!src) {
		free(name);
		return -1;
	}
	add_var(fc, name, src, nsub, line);
	return 1;
}

kl_filecheck *
kl_filecheck_new(void)
{
	return kl_calloc(1, sizeof(kl_filecheck));
}

void
kl_filecheck_free(kl_filecheck *fc)
{
	if (!fc)
		return;
	for (uint32_t i = 0; i < fc->ndirs; i++) {
		struct directive *d = &fc->dirs[i];
		free(d->text);
		free_pieces(d);
		if (d->literal)
			literal_free(&d->lit);
	}
	for (uint32_t i = 0; i < fc->nvars; i++) {
		free(fc->vars[i].name);
		free(fc->vars[i].re);
	}
	free(fc->dirs);
	free(fc->vars);
	free(fc->var_slots);
	free(fc);
}

/*
 * LLVM FileCheck's spellings (check-not:, CHECK-NEXT:) and keel's in
 * capitals (NOT:) are what a test writer types by habit: as plain
 * comments they would be skipped, and the test would check less than it
 * says. The keel directive each means, or NULL: word is the text before
 * the ':' (letters and '-'). A word in mixed case ("Not: really") is
 * prose.
 */
static const char *
misspelt_directive(const char *word, size_t n)
{
	bool upper = true, lower = true;
	for (size_t j = 0; j < n; j++) {
		upper &= !(word[j] >= 'a' && word[j] <= 'z');
		lower &= !(word[j] >= 'A' && word[j] <= 'Z');
	}
	if (!upper && !lower)
		return NULL;
	static const char *const llvm[][2] = {
		{ "check-next", "nextln" }, { "check-same", "sameln" },
		{ "check-not", "not" },     { "check-dag", "unordered" },
		{ "check", "check" },
		/* and the names spelt out */
		{ "nextline", "nextln" },  { "next-line", "nextln" },
		{ "sameline", "sameln" },  { "same-line", "sameln" },
	};
	/* A long word (CHECK-COUNT-1000) is judged by its start: no
	 * directive's name is that long, but "check-" may begin it. */
	char low[16];
	if (n == 0)
		return NULL;
	size_t kept = n < sizeof low ? n : sizeof low - 1;
	for (size_t j = 0; j < kept; j++)
		low[j] = (char)(word[j] >= 'A' && word[j] <= 'Z'
					? word[j] - 'A' + 'a'
					: word[j]);
	low[kept] = 0;
	if (kept < n)
		return strncmp(low, "check-", 6) == 0 ? "check" : NULL;
	for (size_t j = 0; j < sizeof kind_names / sizeof kind_names[0]; j++)
		if (strcmp(low, kind_names[j]) == 0)
			return kind_names[j];
	for (size_t j = 0; j < sizeof llvm / sizeof llvm[0]; j++)
		if (strcmp(low, llvm[j][0]) == 0)
			return llvm[j][1];
	if (strncmp(low, "check-", 6) == 0)
		return "check"; /* check-label, check-empty, ...: no such */
	return NULL;
}

/* Is c a byte of a directive's word as a test writer might spell it
 * (CHECK-COUNT-2)? */
static bool
is_word_byte(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '-';
}

/*
 * The directive text (from `at`) means, spelt otherwise than keel reads
 * it: LLVM's spellings and capitals (misspelt_directive), a modifier in
 * braces (check{literal}:), or a directive behind a second ';' (";;
 * check:", read by no one). Returns the keel directive it looks like,
 * or NULL (then it is prose); *end is where its ':' is.
 */
static const char *
misspelt_at(const char *text, size_t len, size_t at, bool *behind_semicolon,
	    size_t *end)
{
	size_t i = at;
	*behind_semicolon = false;
	if (i < len && text[i] == ';') {
		while (i < len && (text[i] == ';' || is_hspace(text[i])))
			i++;
		*behind_semicolon = true;
	}
	size_t w = i;
	while (w < len && is_word_byte(text[w]))
		w++;
	const char *meant = w > i ? misspelt_directive(text + i, w - i) : NULL;
	if (!meant)
		return NULL;
	bool braces = w < len && text[w] == '{';
	if (braces) {
		while (w < len && text[w] != '}' && !is_hspace(text[w]))
			w++;
		if (w == len || text[w] != '}')
			return NULL;
		w++;
	}
	/* a blank before the ':' (not : x) */
	size_t colon = w;
	while (colon < len && is_hspace(text[colon]))
		colon++;
	if (colon == len || text[colon] != ':')
		return NULL;
	*end = colon;
	/* keel's own spelling, as it is: not misspelt, unless behind ';;',
	 * with a modifier or a blank before its ':' */
	bool exact = strlen(meant) == w - i && memcmp(meant, text + i, w - i) == 0;
	if (exact && !*behind_semicolon && colon == w)
		return NULL;
	return meant;
}

int
kl_filecheck_add_line(kl_filecheck *fc, const char *text, size_t len,
		      uint32_t line, kl_buf *err)
{
	if (!text)
		return 0;
	size_t i = 0;
	while (i < len && is_hspace(text[i]))
		i++;
	bool semi;
	size_t w;
	const char *meant = misspelt_at(text, len, i, &semi, &w);
	if (meant) {
		fc->error_at = i;
		if (err && semi)
			kl_buf_printf(err, "a directive after a second ';' is "
				      "read by no one (write '; %s:')",
				      meant);
		else if (err)
			kl_buf_printf(err, "'%.*s:' looks like a misspelt "
				      "directive (keel's is '%s:')",
				      (int)(w - i), text + i, meant);
		return -1;
	}
	size_t k = i;
	while (k < len && text[k] >= 'a' && text[k] <= 'z')
		k++;
	if (k == len || text[k] != ':')
		return 0;
	enum kind kind = D_CHECK;
	while (strlen(kind_names[kind]) != k - i ||
	       memcmp(kind_names[kind], text + i, k - i) != 0) {
		if (kind == D_REGEX)
			return 0;
		kind++;
	}
	/* the pattern: the rest of the line, blanks trimmed at both ends */
	size_t s = k + 1, e = len;
	while (s < e && is_blank(text[s]))
		s++;
	while (e > s && is_blank(text[e - 1]))
		e--;
	struct fault why = {0};
	int rc;
	const char *nul = memchr(text + s, 0, e - s);
	size_t brk = s;
	while (brk < e && text[brk] != '\n' && text[brk] != '\r')
		brk++;
	if (nul) {
		why.at = nul;
		kl_buf_puts(&why.msg, "NUL byte in directive");
		rc = -1;
	} else if (brk < e) {
		/* patterns match within one line of output: this one never
		 * could, and its report would break the report's lines */
		why.at = text + brk;
		kl_buf_puts(&why.msg, "line break in directive (a directive "
				      "is one line)");
		rc = -1;
	} else if (kind == D_REGEX) {
		rc = add_regex(fc, text + s, e - s, line, &why);
	} else {
		rc = add_match(fc, kind, text + s, e - s, line, &why);
	}
	if (rc > 0) {
		fc->count++;
	} else {
		fc->error_at = why.at ? (size_t)(why.at - text) : i;
		if (err)
			kl_buf_puts(err, why.msg.len ? why.msg.data
						     : "malformed directive");
	}
	kl_buf_free(&why.msg);
	return rc;
}

size_t
kl_filecheck_error_at(const kl_filecheck *fc)
{
	return fc ? fc->error_at : 0;
}

size_t
kl_filecheck_count(const kl_filecheck *fc)
{
	return fc ? fc->count : 0;
}

/* ------------------------------------------------------------------------
 * Running
 */

/* One past the last byte of line i (its '\n', now a NUL, or the end). */
static size_t
end_of(const struct run *cx, size_t i)
{
	return i + 1 < cx->nlines ? cx->starts[i + 1] - 1 : cx->last_end;
}

static size_t
line_of(const struct run *cx, size_t pos)
{
	size_t lo = 0, hi = cx->nlines;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (cx->starts[mid] <= pos)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Find lit in s[0, n), as regexec would find its regex (put_literal's):
 * the leftmost match, and of those the longest. Knuth-Morris-Pratt over
 * tokens, the text's read as the literal's are (a byte, or a whole run of
 * blanks as one ' '), so the search is linear where regexec's is
 * quadratic in the literal's length. A run of blanks matches only a whole
 * run: the token next to it is a byte that is no blank, or the end, where
 * the longest match takes the whole run; and a match that begins inside a
 * run (the literal starts with blanks) would begin further left at its
 * start. Hence the leftmost match in tokens is regexec's.
 */
static bool
lit_find(const struct literal *lit, const char *s, size_t n, size_t *ms,
	 size_t *me)
{
	const char *tok = lit->tok.data;
	size_t len = lit->tok.len, k = 0; /* tokens matched so far */
	if (len == 0) {
		*ms = *me = 0;
		return true;
	}
	for (size_t j = 0; j < n;) {
		char c = s[j++];
		if (is_hspace(c)) {
			c = ' ';
			while (j < n && is_hspace(s[j]))
				j++;
		}
		while (k > 0 && tok[k] != c)
			k = lit->fail[k - 1];
		if (tok[k] == c)
			k++;
		if (k < len)
			continue;
		/* matched, ending at j: walk its tokens back to its start */
		size_t at = j;
		for (size_t t = len; t-- > 0;) {
			at--;
			while (tok[t] == ' ' && at > 0 && is_hspace(s[at - 1]))
				at--;
		}
		*ms = at;
		*me = j;
		return true;
	}
	return false;
}

/*
 * Find the first match of m that starts at or after from and ends at or
 * before to. On success, pm holds the groups relative to cx->base (of a
 * regex: a literal has none).
 */
static bool
find(struct run *cx, const struct matcher *m, size_t from, size_t to,
     size_t *ms, size_t *me)
{
	const regex_t *re = m->re;
	size_t nm = !re ? 0 : re->re_nsub + 1 < cx->npm ? re->re_nsub + 1
							 : cx->npm;
	for (size_t i = line_of(cx, from);
	     from <= to && i < cx->nlines && cx->starts[i] <= to; i++) {
		size_t b = from > cx->starts[i] ? from : cx->starts[i];
		size_t e = end_of(cx, i) < to ? end_of(cx, i) : to;
		size_t s = 0, t = 0;
		bool hit;
		if (!re) {
			hit = lit_find(m->lit, cx->text + b, e - b, &s, &t);
		} else {
			int flags = b > cx->starts[i] ? REG_NOTBOL : 0;
			char saved = cx->text[e];
			if (e < end_of(cx, i)) {
				flags |= REG_NOTEOL;
				cx->text[e] = 0;
			}
			hit = regexec(re, cx->text + b, nm, cx->pm, flags) == 0;
			cx->text[e] = saved;
			if (hit) {
				s = (size_t)cx->pm[0].rm_so;
				t = (size_t)cx->pm[0].rm_eo;
			}
		}
		if (hit) {
			cx->base = b;
			*ms = b + s;
			*me = b + t;
			return true;
		}
	}
	return false;
}

/* Record the text of d's $(X=RE) groups after find() matched d. */
static void
bind(struct run *cx, const struct directive *d)
{
	for (uint32_t i = 0; i < d->npieces; i++) {
		const struct piece *p = &d->pieces[i];
		if (p->kind != P_DEF || p->var == NOVAR || p->group >= cx->npm)
			continue;
		regmatch_t m = cx->pm[p->group];
		if (m.rm_so < 0)
			continue;
		cx->binds[p->var] = (struct binding){
			cx->base + (size_t)m.rm_so, cx->base + (size_t)m.rm_eo,
			true};
	}
}

static void
report_head(struct run *cx, const struct directive *d)
{
	kl_buf_printf(cx->report, "line %" PRIu32 ": %s\n", d->line, d->text);
}

/* A place in the output to point at under its line. */
struct mark {
	size_t pos, len;
	const char *label;
};

/* Append n bytes of an output line, control characters made visible. */
static void
put_visible(kl_buf *b, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		kl_buf_putc(b, (c < 0x20 && c != '\t') || c == 0x7f ? '?' :
								      s[i]);
	}
}

/*
 * Show output lines around line `center`, numbered, each followed by the
 * marks that fall on it. The padding before a caret copies the tabs of the
 * line and skips UTF-8 continuation bytes, so the caret lines up however
 * the reader's terminal sets its tab stops.
 */
static void
show(struct run *cx, size_t center, const struct mark *marks, size_t nmarks)
{
	kl_buf *r = cx->report;
	if (cx->len == 0) {
		kl_buf_puts(r, "  (the output is empty)\n");
		return;
	}
	size_t lo = center >= 2 ? center - 2 : 0;
	size_t hi = center + 3 < cx->nlines ? center + 3 : cx->nlines;
	for (size_t i = lo; i < hi; i++) {
		size_t s = cx->starts[i], e = end_of(cx, i);
		kl_buf_printf(r, "%6zu | ", i + 1);
		put_visible(r, cx->text + s, e - s);
		kl_buf_putc(r, '\n');
		for (size_t k = 0; k < nmarks; k++) {
			const struct mark *m = &marks[k];
			if (line_of(cx, m->pos) != i)
				continue;
			kl_buf_puts(r, "       | ");
			for (size_t j = s; j < m->pos; j++) {
				unsigned char c = (unsigned char)cx->text[j];
				if (c == '\t')
					kl_buf_putc(r, '\t');
				else if (c < 0x80 || c >= 0xc0)
					kl_buf_putc(r, ' ');
			}
			kl_buf_putc(r, '^');
			size_t n = m->len < e - m->pos ? m->len : e - m->pos;
			for (size_t j = 1; j < n; j++)
				kl_buf_putc(r, '~');
			kl_buf_printf(r, " %s\n", m->label);
		}
	}
}

/* Report that d found nothing when searching from `from`. */
static void
report_miss(struct run *cx, const struct directive *d, size_t from,
	    const char *what)
{
	size_t l = line_of(cx, from);
	report_head(cx, d);
	kl_buf_printf(cx->report, "%s, searching from output line %zu, "
		      "column %zu:\n", what, l + 1, from - cx->starts[l] + 1);
	struct mark m = {from, 0, "search starts here"};
	show(cx, l, &m, 1);
}

/*
 * Splice directive i, unless it was literal text when added: from the
 * bindings of now, as literal text if it is that, else as a compiled
 * regex.
 * Returns false after reporting why it cannot be had.
 */
static bool
splice(struct run *cx, uint32_t i)
{
	const struct directive *d = &cx->fc->dirs[i];
	struct spliced *c = &cx->own[i];
	if (d->literal || c->done)
		return true;
	c->done = true;
	if (literal_of(d, cx, &c->lit)) {
		c->literal = true;
		return true;
	}
	kl_buf msg = {0};
	const char *undef = build(d, cx, &c->src);
	c->live = !undef && compile_pattern(&c->re, d, &c->src, &msg);
	if (!c->live) {
		report_head(cx, d);
		if (undef) /* (resolve saw it defined earlier, whose
			    * match, before this one, binds it: a bug) */
			kl_buf_printf(cx->report, "internal error: variable "
				      "$%s has no value\n", undef);
		else
			kl_buf_printf(cx->report, "bad regex after "
				      "substituting variables: %s\n", msg.data);
	}
	kl_buf_free(&msg);
	return c->live;
}

/*
 * Free what splice made for directive i. With keep_src, the regex source
 * stays, for a not: that waits for the next match (matcher compiles it
 * again then): a regex_t per waiting not: would hold far more.
 */
static void
unsplice(struct run *cx, uint32_t i, bool keep_src)
{
	struct spliced *c = &cx->own[i];
	if (c->live)
		regfree(&c->re);
	c->live = false;
	if (keep_src)
		return;
	literal_free(&c->lit);
	kl_buf_free(&c->src);
	*c = (struct spliced){0};
}

/*
 * What to search for directive i, spliced already. Returns false after
 * reporting why not (a not:'s regex, compiled again, fails this time).
 */
static bool
matcher(struct run *cx, uint32_t i, struct matcher *m)
{
	const struct directive *d = &cx->fc->dirs[i];
	struct spliced *c = &cx->own[i];
	*m = (struct matcher){0};
	if (d->literal || c->literal) {
		m->lit = d->literal ? &d->lit : &c->lit;
		return true;
	}
	kl_buf msg = {0};
	if (!c->live)
		c->live = compile_pattern(&c->re, d, &c->src, &msg);
	if (!c->live) {
		report_head(cx, d);
		kl_buf_printf(cx->report, "bad regex after substituting "
			      "variables: %s\n", msg.data);
	}
	kl_buf_free(&msg);
	m->re = c->live ? &c->re : NULL;
	return c->live;
}

/* Match one check:, sameln: or nextln:, searching from pos. */
static bool
match_one(struct run *cx, uint32_t i, size_t pos, bool any, size_t *ms,
	  size_t *me)
{
	const struct directive *d = &cx->fc->dirs[i];
	size_t l = line_of(cx, pos), from = pos, to = cx->last_end;
	const char *what = "no match";
	if (d->kind == D_SAMELN) {
		to = end_of(cx, l);
		what = "no match on the same line";
	} else if (d->kind == D_NEXTLN) {
		if (any && l + 1 >= cx->nlines) {
			report_head(cx, d);
			kl_buf_printf(cx->report, "no output line after line "
				      "%zu:\n", l + 1);
			struct mark m = {pos, 0, "previous match ends here"};
			show(cx, l, &m, 1);
			return false;
		}
		l += any;
		from = cx->starts[l];
		to = end_of(cx, l);
		what = "no match on the next line";
	}
	struct matcher m;
	bool ready = splice(cx, i) && matcher(cx, i, &m);
	bool found = ready && find(cx, &m, from, to, ms, me);
	if (found)
		bind(cx, d);
	else if (ready)
		report_miss(cx, d, from, what);
	unsplice(cx, i, false);
	return found;
}

struct range {
	size_t start, end;
};

static bool
overlaps(const struct range *r, size_t n, size_t start, size_t end)
{
	for (size_t i = 0; i < n; i++) {
		size_t s = start > r[i].start ? start : r[i].start;
		size_t e = end < r[i].end ? end : r[i].end;
		if (s < e || (start == end && r[i].start < start &&
			      start < r[i].end))
			return true;
	}
	return false;
}

/*
 * Match the group of unordered: directives that starts at dirs[first].
 * Sets *start to the earliest start of their matches, *end to the latest
 * end, and *next to the first directive after the group.
 */
static bool
match_group(struct run *cx, uint32_t first, size_t pos, size_t *start,
	    size_t *end, uint32_t *next)
{
	const kl_filecheck *fc = cx->fc;
	uint32_t last = first;
	while (last < fc->ndirs && fc->dirs[last].kind == D_UNORDERED)
		last++;
	*next = last;
	*start = SIZE_MAX;
	*end = pos;
	struct range *taken = kl_malloc((last - first) * sizeof *taken);
	size_t ntaken = 0;
	bool ok = true;
	for (uint32_t i = first; ok && i < last; i++) {
		const struct directive *d = &fc->dirs[i];
		struct matcher m;
		if (!splice(cx, i) || !matcher(cx, i, &m)) {
			ok = false;
			break;
		}
		size_t f = pos, ms = 0, me = 0;
		bool crowded = false; /* a match was refused for overlapping */
		while ((ok = find(cx, &m, f, cx->last_end, &ms, &me)) &&
		       overlaps(taken, ntaken, ms, me)) {
			crowded = true;
			f = ms + 1;
		}
		if (ok) {
			bind(cx, d);
			taken[ntaken++] = (struct range){ms, me};
			*start = ms < *start ? ms : *start;
			*end = me > *end ? me : *end;
		} else {
			report_miss(cx, d, pos, crowded ?
				    "no match apart from the other unordered "
				    "matches" : "no match");
		}
		unsplice(cx, i, false);
	}
	free(taken);
	return ok;
}

/*
 * The not: directives among dirs[first, last), all spliced already, may
 * not match in [from, to).
 */
static bool
check_nots(struct run *cx, uint32_t first, uint32_t last, size_t from,
	   size_t to)
{
	for (uint32_t i = first; i < last; i++) {
		const struct directive *d = &cx->fc->dirs[i];
		size_t ms, me;
		struct matcher mt;
		if (d->kind != D_NOT)
			continue;
		if (!matcher(cx, i, &mt))
			return false;
		bool hit = find(cx, &mt, from, to, &ms, &me);
		unsplice(cx, i, false);
		if (!hit)
			continue;
		size_t l = line_of(cx, ms), fl = line_of(cx, from);
		report_head(cx, d);
		kl_buf_printf(cx->report, "forbidden match on output line %zu, "
			      "column %zu (searched from line %zu, column "
			      "%zu):\n", l + 1, ms - cx->starts[l] + 1, fl + 1,
			      from - cx->starts[fl] + 1);
		struct mark m[2] = {
			{from, 0, "search starts here"},
			{ms, me - ms, "forbidden match"},
		};
		show(cx, l, m, 2);
		return false;
	}
	return true;
}

static void
run_init(struct run *cx, const kl_filecheck *fc, const char *out,
	 size_t len, kl_buf *report)
{
	cx->fc = fc;
	cx->report = report;
	cx->len = len;
	cx->text = kl_malloc(len + 1);
	if (len)
		memcpy(cx->text, out, len);
	cx->text[len] = 0;
	bool final_nl = len > 0 && out[len - 1] == '\n';
	size_t nl = 0;
	for (size_t i = 0; i < len; i++)
		nl += out[i] == '\n';
	cx->nlines = final_nl ? nl : nl + 1;
	cx->last_end = final_nl ? len - 1 : len;
	cx->starts = kl_malloc(cx->nlines * sizeof *cx->starts);
	cx->starts[0] = 0;
	for (size_t i = 0, k = 1; i < len; i++) {
		if (out[i] != '\n')
			continue;
		cx->text[i] = 0;
		if (k < cx->nlines)
			cx->starts[k++] = i + 1;
	}
	cx->binds = kl_calloc(fc->nvars, sizeof *cx->binds);
	cx->own = kl_calloc(fc->ndirs, sizeof *cx->own);
	cx->npm = fc->max_nsub + 1;
	cx->pm = kl_malloc(cx->npm * sizeof *cx->pm);
	cx->base = 0;
}

bool
kl_filecheck_run(const kl_filecheck *fc, const char *out, size_t len,
		 kl_buf *report)
{
	if (!fc || fc->count == 0)
		return true;
	if (fc->ndirs == 0) {
		/* regex: lines alone check nothing: not a pass */
		if (report)
			kl_buf_puts(report, "only regex: definitions, no "
				    "directive that checks the output\n");
		return false;
	}
	if (!out)
		len = 0;
	/* Lines are matched as C strings: past a NUL a check would not see
	 * the rest of its line, and a not: would pass for not seeing it. */
	const char *nul = len ? memchr(out, 0, len) : NULL;
	if (nul) {
		uint32_t line = 1;
		for (const char *c = out; c < nul; c++)
			line += *c == '\n';
		if (report)
			kl_buf_printf(report, "output line %" PRIu32 " has a NUL "
				      "byte, which checks cannot see past\n",
				      line);
		return false;
	}
	kl_buf scratch = {0};
	struct run cx;
	/* In the C locale as regcomp is (compile): glibc fixes the
	 * character width at regcomp, but a libc may read the locale again
	 * in regexec (musl's decodes the text there with mbtowc); under glibc
	 * test_locale cannot tell this span from none. */
	kl_c_locale c;
	kl_c_locale_begin(&c);
	run_init(&cx, fc, out, len, report ? report : &scratch);
	/* the not:s since the last positive match are dirs[nots, i) */
	uint32_t nots = 0, i = 0;
	size_t pos = 0;
	bool any = false, ok = true;
	while (ok && i < fc->ndirs) {
		if (fc->dirs[i].kind == D_NOT) {
			/* spliced now, with the bindings of where it stands */
			ok = splice(&cx, i);
			unsplice(&cx, i++, true);
			continue;
		}
		size_t start = 0, end = 0;
		uint32_t next = i + 1;
		if (fc->dirs[i].kind == D_UNORDERED)
			ok = match_group(&cx, i, pos, &start, &end, &next);
		else
			ok = match_one(&cx, i, pos, any, &start, &end);
		ok = ok && check_nots(&cx, nots, i, pos, start);
		pos = end;
		any = true;
		i = nots = next;
	}
	ok = ok && check_nots(&cx, nots, i, pos, cx.last_end);
	for (uint32_t k = 0; k < fc->ndirs; k++)
		unsplice(&cx, k, false); /* not:s a failure left waiting */
	free(cx.own);
	free(cx.text);
	free(cx.starts);
	free(cx.binds);
	free(cx.pm);
	kl_buf_free(&scratch);
	kl_c_locale_end(&c);
	return ok;
}
