/*
 * fold.c -- a pass of your own, through keel.h alone: constant folding,
 * branches on constants made jumps, unreachable blocks dropped, and dead
 * code removed, the first optimisations a course has students write.
 *
 *   make build/fold && ./build/fold FILE.kl
 *
 * reads a module, promotes its locals to SSA values (as `keel opt -p
 * promote` does), runs the four steps over every function, verifies the
 * result and prints it; stderr gets what each step did. docs/api.md
 * ("Writing a pass") walks through this file.
 *
 * The steps use the rewriting API as any pass does: a value is replaced
 * everywhere by removing the instruction that computes it and making its
 * result an alias of the replacement (kl_inst_remove, kl_value_set_alias);
 * the use lists (kl_uses) say which instructions to look at again.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keel.h"

/* A growable stack of instructions: the worklists. */
typedef struct inst_stack {
	kl_inst *items;
	uint32_t len, cap;
} inst_stack;

static void
push(inst_stack *s, kl_inst i)
{
	if (s->len == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->items = realloc(s->items, s->cap * sizeof *s->items);
		if (!s->items) {
			fputs("fold: out of memory\n", stderr);
			exit(1);
		}
	}
	s->items[s->len++] = i;
}

static bool
placed(const kl_func *f, kl_inst i)
{
	return kl_inst_block(f, i).id != KL_NONE;
}

/* Is v (through aliases) the result of an iconst? Its value in *c. */
static bool
constant_of(const kl_func *f, kl_value v, uint64_t *c)
{
	kl_inst def = kl_value_def_inst(f, kl_value_resolve(f, v));
	if (def.id == KL_NONE || kl_inst_opcode(f, def) != KL_OP_ICONST)
		return false;
	*c = (uint64_t)kl_inst_imm(f, def);
	return true;
}

/* x cut to its type's width and sign-extended, as iconst holds it. */
static uint64_t
wrap(uint64_t x, unsigned bits)
{
	if (bits >= 64)
		return x;
	uint64_t sign = (uint64_t)1 << (bits - 1);
	x &= (sign << 1) - 1;
	return (x ^ sign) - sign;
}

static bool
compare(kl_intcc cc, uint64_t x, uint64_t y, unsigned bits)
{
	/* Signed: the sign-extended values; unsigned: the low bits. */
	int64_t sx = (int64_t)wrap(x, bits), sy = (int64_t)wrap(y, bits);
	uint64_t mask = bits >= 64 ? ~(uint64_t)0
				   : ((uint64_t)1 << bits) - 1;
	uint64_t ux = x & mask, uy = y & mask;
	switch (cc) {
	case KL_ICC_EQ: return ux == uy;
	case KL_ICC_NE: return ux != uy;
	case KL_ICC_SLT: return sx < sy;
	case KL_ICC_SLE: return sx <= sy;
	case KL_ICC_SGT: return sx > sy;
	case KL_ICC_SGE: return sx >= sy;
	case KL_ICC_ULT: return ux < uy;
	case KL_ICC_ULE: return ux <= uy;
	case KL_ICC_UGT: return ux > uy;
	case KL_ICC_UGE: return ux >= uy;
	default: return false;
	}
}

/*
 * The value instruction i computes, if its operands are constants and it
 * is one this pass knows (integer arithmetic that cannot trap, compares).
 * Unsigned arithmetic: it wraps as the IR's does, with no undefined
 * behaviour in C.
 */
static bool
fold_value(const kl_module *m, const kl_func *f, kl_inst i, uint64_t *out)
{
	kl_opcode op = kl_inst_opcode(f, i);
	uint64_t x, y;
	uint32_t nargs = kl_inst_num_args(f, i);
	if (nargs == 0 || nargs > 2 || kl_inst_num_results(f, i) != 1 ||
	    !constant_of(f, kl_inst_arg(f, i, 0), &x))
		return false;
	if (nargs == 2 && !constant_of(f, kl_inst_arg(f, i, 1), &y))
		return false;
	if (nargs == 1)
		y = (uint64_t)kl_inst_imm(f, i); /* the _imm forms */
	kl_type operand = kl_value_type(f, kl_inst_arg(f, i, 0));
	unsigned bits = 8 * kl_type_bytes(m, operand);
	uint64_t r;
	switch (op) {
	case KL_OP_IADD: case KL_OP_IADD_IMM: r = x + y; break;
	case KL_OP_ISUB: r = x - y; break;
	case KL_OP_IRSUB_IMM: r = y - x; break;
	case KL_OP_IMUL: case KL_OP_IMUL_IMM: r = x * y; break;
	case KL_OP_BAND: case KL_OP_BAND_IMM: r = x & y; break;
	case KL_OP_BOR: case KL_OP_BOR_IMM: r = x | y; break;
	case KL_OP_BXOR: case KL_OP_BXOR_IMM: r = x ^ y; break;
	case KL_OP_ICMP: case KL_OP_ICMP_IMM:
		*out = compare((kl_intcc)kl_inst_cond(f, i), x, y, bits);
		return true; /* an i8, 0 or 1 */
	default:
		return false;
	}
	*out = wrap(r, bits);
	return true;
}

/* `brif c, A(args), B(args)` with c a constant: `jump A(args)` (or B). */
static bool
fold_branch(kl_builder *b, kl_inst i)
{
	kl_func *f = b->func;
	uint64_t c;
	if (kl_inst_opcode(f, i) != KL_OP_BRIF ||
	    !constant_of(f, kl_inst_arg(f, i, 0), &c))
		return false;
	uint32_t taken = c != 0 ? 0 : 1;
	uint32_t n = kl_inst_dest_num_args(f, i, taken);
	kl_value *args = calloc(n ? n : 1, sizeof *args);
	if (!args)
		return false;
	for (uint32_t k = 0; k < n; k++)
		args[k] = kl_inst_dest_arg(f, i, taken, k);
	kl_builder_before(b, i);
	kl_build_jump(b, (kl_block_call){ kl_inst_dest(f, i, taken), args, n });
	free(args);
	kl_inst_remove(f, i);
	return true;
}

typedef struct fold_counts {
	unsigned folded, jumps, blocks, params, dead;
} fold_counts;

/*
 * Folding with a worklist: every instruction once, then again each user
 * of a value just folded. The use lists are computed once, before any
 * change; they keep describing the function as it was then, so a result
 * made an alias still lists the users it had, which are the ones to visit.
 */
static void
fold_constants(const kl_module *m, kl_func *f, kl_uses *uses,
	       fold_counts *n)
{
	kl_uses_compute(uses, f);
	inst_stack work = { 0 };
	for (kl_block b = kl_func_first_block(f); b.id != KL_NONE;
	     b = kl_block_next(f, b))
		for (kl_inst i = kl_block_first_inst(f, b); i.id != KL_NONE;
		     i = kl_inst_next(f, i))
			push(&work, i);
	/* Taken from the top of the stack: in layout order. */
	for (uint32_t lo = 0, hi = work.len; lo + 1 < hi; lo++, hi--) {
		kl_inst t = work.items[lo];
		work.items[lo] = work.items[hi - 1];
		work.items[hi - 1] = t;
	}
	kl_builder b;
	kl_builder_init(&b, f);
	while (work.len) {
		kl_inst i = work.items[--work.len];
		uint64_t c;
		if (!placed(f, i))
			continue;
		if (fold_branch(&b, i)) {
			n->jumps++;
			continue;
		}
		if (!fold_value(m, f, i, &c))
			continue;
		kl_value r = kl_inst_result(f, i, 0);
		kl_builder_before(&b, i);
		kl_value known = kl_build_iconst(&b, kl_value_type(f, r),
						 (int64_t)c);
		kl_inst_remove(f, i);
		if (kl_value_set_alias(f, r, known) != KL_OK)
			abort(); /* same type, defined: cannot be refused */
		n->folded++;
		uint32_t nu;
		const kl_use *u = kl_uses_of(uses, f, r, &nu);
		for (uint32_t k = 0; k < nu; k++)
			push(&work, u[k].inst);
	}
	free(work.items);
}

/* Blocks no path from the entry reaches any more leave the layout (all
 * of them: branches to one come only from others). */
static void
drop_unreachable(kl_func *f, fold_counts *n)
{
	uint32_t nb = kl_func_block_bound(f);
	bool *seen = calloc(nb ? nb : 1, 1);
	kl_block *stack = calloc(nb ? nb : 1, sizeof *stack);
	if (!seen || !stack)
		abort();
	uint32_t top = 0;
	kl_block entry = kl_func_first_block(f);
	seen[entry.id] = true;
	stack[top++] = entry;
	while (top) {
		kl_inst t = kl_block_last_inst(f, stack[--top]);
		for (uint32_t d = 0; d < kl_inst_num_dests(f, t); d++) {
			kl_block s = kl_inst_dest(f, t, d);
			if (!seen[s.id]) {
				seen[s.id] = true;
				stack[top++] = s;
			}
		}
	}
	kl_block b = kl_func_first_block(f);
	while (b.id != KL_NONE) {
		kl_block next = kl_block_next(f, b);
		if (!seen[b.id] && kl_func_remove_block(f, b) == KL_OK)
			n->blocks++;
		b = next;
	}
	free(seen);
	free(stack);
}

/*
 * Is v an address whose accesses the verifier checks where they run or
 * not: an alloca's or a const data object's, or an iadd_imm chain over
 * one (a load or store at a constant offset from an alloca must lie
 * inside it, none may store into const data)? One made through a
 * parameter is not checked so, and may not become one made through v.
 */
static bool
followed_address(const kl_module *m, const kl_func *f, kl_value v)
{
	for (uint32_t steps = 0; steps <= kl_func_inst_bound(f); steps++) {
		kl_inst def = kl_value_def_inst(f, kl_value_resolve(f, v));
		kl_opcode op = kl_inst_opcode(f, def);
		if (op == KL_OP_ALLOCA)
			return true;
		if (op == KL_OP_SYMBOL_ADDR) {
			kl_sym s = kl_inst_callee(f, def);
			return kl_sym_get_kind(m, s) == KL_SYM_DATA &&
			       kl_data_is_const(m, s);
		}
		if (op != KL_OP_IADD_IMM)
			return false;
		v = kl_inst_arg(f, def, 0);
	}
	return false;
}

/*
 * A block parameter that every branch to its block passes the same value
 * (or the parameter itself, round a loop) is that value: the parameter
 * and its arguments go (kl_func_remove_params), and the parameter becomes
 * an alias of the value, which dominates the block since it reaches every
 * predecessor. One walk over the branches finds them, one more removes
 * them all, chains of them (a parameter passed only another that goes)
 * included.
 */
static void
simplify_params(const kl_module *m, kl_func *f, fold_counts *n)
{
	const uint32_t UNSEEN = KL_NONE, MANY = KL_NONE - 1;
	uint32_t nv = kl_func_value_bound(f);
	uint32_t *same = malloc((nv ? nv : 1) * sizeof *same);
	if (!same)
		abort();
	for (uint32_t v = 0; v < nv; v++)
		same[v] = UNSEEN;
	for (kl_block b = kl_func_first_block(f); b.id != KL_NONE;
	     b = kl_block_next(f, b)) {
		kl_inst t = kl_block_last_inst(f, b);
		for (uint32_t d = 0; d < kl_inst_num_dests(f, t); d++) {
			kl_block to = kl_inst_dest(f, t, d);
			for (uint32_t k = 0; k < kl_inst_dest_num_args(f, t, d);
			     k++) {
				kl_value p = kl_block_param(f, to, k);
				kl_value a = kl_value_resolve(
					f, kl_inst_dest_arg(f, t, d, k));
				if (a.id == p.id)
					continue;
				if (same[p.id] == UNSEEN)
					same[p.id] = a.id;
				else if (same[p.id] != a.id)
					same[p.id] = MANY;
			}
		}
	}
	/* The parameters that go, all at once (kl_func_remove_params walks
	 * the function once for them all). One whose value is another going
	 * too stands for what that one stands for: the end of the chain,
	 * found once for each parameter on it (a chain that loops back has
	 * no value from outside, and its parameters stay). */
	const uint32_t ON_PATH = KL_NONE - 1, LOOPS = KL_NONE - 2;
	uint8_t *going = calloc(nv ? nv : 1, 1);
	uint32_t *root = malloc((nv ? nv : 1) * sizeof *root);
	uint32_t *path = malloc((nv ? nv : 1) * sizeof *path);
	kl_value *go = malloc((nv ? nv : 1) * sizeof *go);
	if (!going || !root || !path || !go)
		abort();
	kl_block entry = kl_func_first_block(f);
	for (kl_block b = kl_block_next(f, entry); b.id != KL_NONE;
	     b = kl_block_next(f, b))
		for (uint32_t k = 0; k < kl_block_num_params(f, b); k++) {
			uint32_t p = kl_block_param(f, b, k).id, s = same[p];
			going[p] = s != UNSEEN && s != MANY &&
				   !followed_address(m, f, (kl_value){ s });
		}
	for (uint32_t v = 0; v < nv; v++)
		root[v] = UNSEEN;
	uint32_t ngo = 0;
	for (kl_block b = kl_block_next(f, entry); b.id != KL_NONE;
	     b = kl_block_next(f, b))
		for (uint32_t k = 0; k < kl_block_num_params(f, b); k++) {
			uint32_t p = kl_block_param(f, b, k).id, x = p, r;
			if (!going[p])
				continue;
			uint32_t len = 0;
			for (;;) {
				if (!going[x]) {
					r = x;
					break;
				}
				if (root[x] != UNSEEN) {
					r = root[x] == ON_PATH ? LOOPS : root[x];
					break;
				}
				root[x] = ON_PATH;
				path[len++] = x;
				x = same[x];
			}
			while (len)
				root[path[--len]] = r;
			if (root[p] != LOOPS)
				go[ngo++] = (kl_value){ p };
		}
	if (kl_func_remove_params(f, go, ngo) != KL_OK)
		abort(); /* parameters of blocks past the entry: not refused */
	for (uint32_t k = 0; k < ngo; k++)
		if (kl_value_set_alias(f, go[k], (kl_value){ root[go[k].id] }) !=
		    KL_OK)
			abort(); /* the same type, defined: not refused */
	n->params += ngo;
	free(go);
	free(path);
	free(root);
	free(going);
	free(same);
}

/* Does pure instruction i compute only values nothing uses? */
static bool
dead(const kl_func *f, kl_inst i, const uint32_t *count)
{
	uint32_t nr = kl_inst_num_results(f, i);
	if (nr == 0 || !kl_op_is_pure(kl_inst_opcode(f, i)))
		return false;
	for (uint32_t k = 0; k < nr; k++)
		if (count[kl_inst_result(f, i, k).id])
			return false;
	return true;
}

/* Dead code, by counting uses: removing an instruction takes one use off
 * each operand, and an operand left with none may go next. */
static void
remove_dead(kl_func *f, kl_uses *uses, fold_counts *n)
{
	kl_uses_compute(uses, f);
	uint32_t nv = kl_func_value_bound(f);
	uint32_t *count = calloc(nv ? nv : 1, sizeof *count);
	if (!count)
		abort();
	for (uint32_t v = 0; v < nv; v++)
		kl_uses_of(uses, f, (kl_value){ v }, &count[v]);
	inst_stack work = { 0 };
	for (kl_block b = kl_func_first_block(f); b.id != KL_NONE;
	     b = kl_block_next(f, b))
		for (kl_inst i = kl_block_first_inst(f, b); i.id != KL_NONE;
		     i = kl_inst_next(f, i))
			if (dead(f, i, count))
				push(&work, i);
	while (work.len) {
		kl_inst i = work.items[--work.len];
		if (!placed(f, i) || !dead(f, i, count))
			continue;
		kl_inst_remove(f, i);
		n->dead++;
		for (uint32_t k = 0, na = kl_inst_num_args(f, i); k < na; k++) {
			kl_value a = kl_value_resolve(f, kl_inst_arg(f, i, k));
			if (a.id < nv && count[a.id] && --count[a.id] == 0) {
				kl_inst def = kl_value_def_inst(f, a);
				if (def.id != KL_NONE && placed(f, def))
					push(&work, def);
			}
		}
	}
	free(work.items);
	free(count);
}

/* Verify f; on errors print them inside the function's listing. */
static bool
verified(const kl_func *f, const char *file)
{
	kl_diags diags = { 0 };
	bool ok = kl_verify_func(f, NULL, &diags) == KL_OK;
	if (!ok) {
		kl_buf text = { 0 }; /* the error lines, then the listing */
		kl_verify_render(f, &diags, file, false, &text, &text);
		fputs(text.data ? text.data : "", stderr);
		kl_buf_free(&text);
	}
	kl_diags_free(&diags);
	return ok;
}

/* The whole of a file, or NULL (with a message). */
static char *
read_file(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	if (!fp) {
		perror(path);
		return NULL;
	}
	size_t cap = 1 << 16, n = 0, got;
	char *text = malloc(cap);
	while (text && (got = fread(text + n, 1, cap - n, fp)) > 0) {
		n += got;
		if (n == cap) {
			char *bigger = realloc(text, cap *= 2);
			if (!bigger)
				free(text);
			text = bigger;
		}
	}
	bool bad = ferror(fp) || !text;
	fclose(fp);
	if (bad) {
		fprintf(stderr, "%s: cannot read it\n", path);
		free(text);
		return NULL;
	}
	*len = n;
	return text;
}

/* Parse text; on errors print them with their source lines. */
static kl_module *
parse(const char *path, const char *text, size_t len)
{
	kl_module *m = NULL;
	kl_diags diags = { 0 };
	if (kl_parse_module(text, len, NULL, &m, &diags) != KL_OK) {
		kl_buf out = { 0 };
		for (uint32_t k = 0; k < diags.len; k++)
			kl_diag_render(&diags.items[k], path, text, len, &out);
		fputs(out.data ? out.data : "", stderr);
		kl_buf_free(&out);
	}
	kl_diags_free(&diags);
	return m;
}

int
main(int argc, char **argv)
{
	if (argc != 2 || argv[1][0] == '-') {
		fprintf(stderr, "usage: fold FILE.kl\n"
			"Promote, fold constants and branches on them, drop "
			"unreachable blocks and dead code; print the module.\n");
		return 2;
	}
	size_t len;
	char *text = read_file(argv[1], &len);
	kl_module *m = text ? parse(argv[1], text, len) : NULL;
	bool ok = m != NULL;
	uint32_t nsyms = m ? kl_module_num_syms(m) : 0;
	for (uint32_t s = 0; s < nsyms && ok; s++) {
		kl_func *f = kl_sym_func(m, (kl_sym){ s });
		ok = !f || verified(f, argv[1]);
	}
	if (ok) {
		kl_pass_report report = { 0 };
		report.input_verified = true; /* verified() said so */
		kl_promote_module(m, &report);
		kl_pass_report_free(&report);
		kl_uses *uses = kl_uses_new();
		fold_counts n = { 0 };
		for (uint32_t s = 0; s < nsyms && ok; s++) {
			kl_func *f = kl_sym_func(m, (kl_sym){ s });
			if (!f)
				continue;
			/* Each step may give the others more to do. */
			unsigned before;
			do {
				before = n.folded + n.jumps + n.params;
				fold_constants(m, f, uses, &n);
				drop_unreachable(f, &n);
				simplify_params(m, f, &n);
			} while (n.folded + n.jumps + n.params != before);
			remove_dead(f, uses, &n);
			ok = verified(f, argv[1]);
		}
		kl_uses_free(uses);
		fprintf(stderr, "fold: instructions folded %u, branches made "
			"jumps %u, blocks dropped %u, block parameters "
			"replaced %u, dead instructions removed %u\n", n.folded,
			n.jumps, n.blocks, n.params, n.dead);
	}
	if (ok) {
		kl_buf out = { 0 };
		kl_print_module(m, NULL, &out);
		fputs(out.data ? out.data : "", stdout);
		kl_buf_free(&out);
		ok = fflush(stdout) == 0 && !ferror(stdout);
	}
	kl_module_free(m);
	free(text);
	return ok ? 0 : 1;
}
