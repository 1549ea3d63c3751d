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
 * How a run matches the directives: filecheck_run.c.
 *
 * Invariants: a rejected line leaves the checker as it was.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "filecheck.h"

static const char *const kind_names[] = {
	"check", "sameln", "nextln", "unordered", "not", "regex",
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
	/* (regerror is given what a failed regcomp left: zeroed first, so
	 * that MemorySanitizer's regerror finds it initialised) */
	memset(re, 0, sizeof *re);
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
				      "on an earlier line of the same check "
				      "block: in a test file, among the same "
				      "function's directives)", p->name);
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

/* (filecheck.h) */
const char *
filecheck_build(const struct directive *d, const struct binding *binds,
		const char *text, kl_buf *src)
{
	for (uint32_t i = 0; i < d->npieces; i++) {
		const struct piece *p = &d->pieces[i];
		const struct binding *b = p->kind == P_USE && binds ?
						  &binds[p->var] : NULL;
		if (p->kind == P_SRC || p->kind == P_DEF)
			kl_buf_puts(src, p->src);
		else if (b && b->bound)
			put_literal(src, text + b->start, b->end - b->start,
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

void
filecheck_literal_free(struct literal *lit)
{
	kl_buf_free(&lit->tok);
	free(lit->fail);
	*lit = (struct literal){0};
}

/*
 * (filecheck.h) Also false if two runs of blanks meet where pieces join
 * ("a $X" with X bound to " b"): its regex "a[ \t]+[ \t]+b" wants two
 * blanks there, which one ' ' token does not say, so such a directive is
 * left to the regex.
 */
bool
filecheck_literal_of(const struct directive *d, const struct binding *binds,
		     const char *text, struct literal *lit)
{
	bool ok = true;
	for (uint32_t i = 0; ok && i < d->npieces; i++) {
		const struct piece *p = &d->pieces[i];
		const struct binding *b = p->kind == P_USE && binds ?
						  &binds[p->var] : NULL;
		if (p->kind == P_SRC && p->text)
			ok = put_tokens(&lit->tok, p->text, strlen(p->text));
		else if (b && b->bound)
			ok = put_tokens(&lit->tok, text + b->start,
					b->end - b->start);
		else
			ok = false;
	}
	if (!ok) {
		filecheck_literal_free(lit);
		return false;
	}
	size_t n = lit->tok.len, k = 0;
	lit->fail = kl_malloc(kl_table_bytes((uint64_t)n + 1,
					     sizeof *lit->fail));
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

/* (filecheck.h) */
bool
filecheck_compile_pattern(regex_t *re, const struct directive *d,
			  const kl_buf *src, kl_buf *msg)
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
	if (ok && filecheck_literal_of(&d, NULL, NULL, &d.lit)) {
		d.literal = true;
	} else if (ok && !filecheck_build(&d, NULL, NULL, &src)) {
		/* A regex is compiled now for its errors, then freed: a run
		 * compiles it again when it reaches the directive and frees
		 * it once searched (splice), as for a pattern with captured
		 * text. Kept, 100,000 of them took gigabytes. */
		ok = filecheck_compile_pattern(&re, &d, &src, msg);
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
			filecheck_literal_free(&d->lit);
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
	bool exact = strlen(meant) == w - i &&
		     memcmp(meant, text + i, w - i) == 0;
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
