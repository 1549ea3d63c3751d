/*
 * print.c -- the canonical text form of modules and functions.
 *
 * The form (docs/ir.md, "The canonical text form") is chosen so that
 * parse -> print is the identity on canonical text: four-space indentation,
 * one blank line between top-level items and before every block after the
 * first, ", " between operands, `.T` written exactly when the parser could not
 * infer it from an operand defined earlier in the same block (so the text
 * re-parses whatever order blocks come in).
 *
 * Alias lines "vA -> vB" are written just before the first instruction
 * that uses the alias (the target chain first); aliases nothing uses are
 * not written, unless their chain is broken (then after the last
 * instruction, so that the text keeps the error; write_broken_aliases).
 *
 * The printer must survive broken IR, since the verifier prints functions
 * it has just found broken: every index is checked before it is followed,
 * and nonsense prints as something visibly wrong rather than crashing.
 */
#include <stdlib.h>
#include <string.h>

#include "text.h"

typedef struct printer {
	const kl_func *f;
	const kl_module *m;
	kl_buf *out;
	const kl_print_options *opts;
	uint8_t *alias_state; /* per value: 0 not written, 1 written, 2 busy */
	uint32_t *chain;      /* scratch for alias chains */
	uint32_t chain_cap;
	/* Where each value's alias chain ends (func_resolve_table), when
	 * some alias leads to another; else NULL. */
	const uint32_t *resolved;
	uint32_t *resolved_buf;
	uint32_t resolved_cap;
	kl_buf line;          /* the current line, when annotating */
	size_t line_start;
	/* With the renumber option: the number each value, block and sigref
	 * is written with (KL_NONE: none yet), and the next to give; the
	 * maps are NULL otherwise. */
	uint32_t *renum[3];
	uint32_t renum_bound[3], renum_next[3];
} printer;

enum { RN_VALUE, RN_BLOCK, RN_SIGREF };

/* The number entity id of the kind is written with: its own, or with
 * renumbering the next one free when it first appears. (A number past
 * the tables, in IR that does not verify, is written as it is.) */
static uint32_t
shown(printer *p, int kind, uint32_t id)
{
	uint32_t *map = p->renum[kind];
	if (!map || id >= p->renum_bound[kind])
		return id;
	if (map[id] == KL_NONE)
		map[id] = p->renum_next[kind]++;
	return map[id];
}

static bool
annotating(const printer *p)
{
	return p->opts && p->opts->annotate;
}

static void
line_begin(printer *p)
{
	p->line_start = p->out->len;
}

/* Hands out's text to the caller's flush once it holds at least `from`
 * bytes (1: whatever it holds), when there is a flush. */
static void
flush_from(const kl_print_options *opts, kl_buf *out, size_t from)
{
	if (!opts || !opts->flush || out->len < from)
		return;
	opts->flush(opts->flush_ctx, out->data, out->len);
	kl_buf_reset(out);
}

/* Ends a line; hands it to the annotation callback when there is one. */
static void
line_end(printer *p, kl_entity what)
{
	buf_addc(p->out, '\n');
	if (annotating(p)) {
		kl_buf_reset(&p->line);
		buf_add(&p->line, p->out->data + p->line_start,
			      p->out->len - p->line_start - 1);
		p->opts->annotate(p->opts->annotate_ctx, p->f, what,
				  p->line.data, p->line.len, p->out);
	}
	flush_from(p->opts, p->out, KL_PRINT_CHUNK);
}

static void
put_type(printer *p, kl_type t)
{
	buf_adds(p->out, kl_type_name(p->m, t));
}

static void
put_value(printer *p, uint32_t v)
{
	if (v == KL_NONE)
		buf_adds(p->out, "v?");
	else
		kl_buf_put_entity(p->out, "v", 1, shown(p, RN_VALUE, v));
}

static void
put_values(printer *p, const uint32_t *vals, uint32_t n)
{
	for (uint32_t k = 0; k < n; k++) {
		if (k)
			buf_adds(p->out, ", ");
		put_value(p, vals[k]);
	}
}

void
fmt_signature(kl_buf *out, const kl_module *m, kl_signature sig)
{
	buf_addc(out, '(');
	for (uint32_t k = 0; k < sig.num_params; k++) {
		if (k)
			buf_adds(out, ", ");
		buf_adds(out, kl_type_name(m, sig.params[k]));
	}
	if (sig.variadic)
		buf_adds(out, sig.num_params ? ", ..." : "...");
	buf_addc(out, ')');
	for (uint32_t k = 0; k < sig.num_results; k++) {
		buf_adds(out, k ? ", " : " -> ");
		buf_adds(out, kl_type_name(m, sig.results[k]));
	}
}

/* An alloca's alignment from its log2: without printf for those that fit
 * 32 bits, as every real one does (printf took 9% of printing small-1M,
 * whose every twelfth instruction is an alloca). */
static void
put_align(kl_buf *out, unsigned log2)
{
	if (log2 < 32)
		kl_buf_put_entity(out, ", align ", 8, (uint32_t)1 << log2);
	else
		kl_buf_printf(out, ", align %llu",
			      log2 < 64 ? 1ull << log2 : 0ull);
}

/* A list handle whose elements lie inside the pool (or the empty list). */
static bool
list_ok(const kl_func *f, uint32_t l)
{
	return l == 0 || (l < f->pool.len &&
			  (uint64_t)l + list_len(&f->pool, l) <= f->pool.len);
}

/* A pool list, if the handle is plausible, else an empty one. */
static uint32_t
safe_list(const kl_func *f, uint32_t l, const uint32_t **elems)
{
	if (l == 0 || !list_ok(f, l)) {
		*elems = NULL;
		return 0;
	}
	*elems = list_elems(&f->pool, l);
	return list_len(&f->pool, l);
}

static void
put_dest(printer *p, uint32_t dest)
{
	uint32_t b, n;
	const uint32_t *args;
	if (!dest_read(&p->f->pool, dest, &b, &args, &n)) {
		buf_adds(p->out, "block?");
		return;
	}
	kl_buf_put_entity(p->out, "block", 5, shown(p, RN_BLOCK, b));
	if (n > 0) {
		buf_addc(p->out, '(');
		put_values(p, args, n);
		buf_addc(p->out, ')');
	}
}

/* An integer immediate of type t, as t reads it (unsigned types print
 * their numbers unsigned). */
static void
put_typed_int(const kl_module *m, kl_buf *out, kl_type t, int64_t v)
{
	fmt_int_as(out, v, kl_type_bytes(m, t) * 8,
		   kl_type_refinement(m, t) == KL_REFINE_UNSIGNED);
}

static void
put_offset(printer *p, int32_t off)
{
	if (off > 0) {
		buf_addc(p->out, '+');
		fmt_uint(p->out, (uint64_t)off);
	} else if (off < 0) {
		buf_addc(p->out, '-');
		fmt_uint(p->out, (uint64_t)(-(int64_t)off));
	}
}

/* Is value r (resolved: KL_NONE or out of range for a broken chain)
 * defined before instruction i in its block? */
static bool
defined_earlier_in_block(const printer *p, uint32_t r, uint32_t i)
{
	const kl_func *f = p->f;
	if (r >= f->nvalues)
		return false;
	uint32_t blk = f->nodes[i].block;
	if (blk == KL_NONE)
		return false;
	const kl_value_data *d = &f->values[r];
	if (d->kind == VK_PARAM)
		return d->def == blk;
	if (d->kind == VK_RESULT && d->def < f->ninsts) {
		const kl_inst_node *n = &f->nodes[d->def];
		return n->block == blk && n->seq < f->nodes[i].seq;
	}
	return false;
}

static kl_type
operand_type(const printer *p, uint32_t v)
{
	const kl_func *f = p->f;
	if (v >= f->nvalues)
		return KL_TYPE_NONE;
	uint32_t r = resolve_with(f, p->resolved, v);
	return r >= f->nvalues ? KL_TYPE_NONE : value_type(f, r);
}

/* The type of i's result where the parser gives the result the
 * controlling type (not a compare's), else none. */
static kl_type
ctrl_result_type(const printer *p, uint32_t i)
{
	const kl_func *f = p->f;
	if (result_takes_ctrl(inst_info(f, i)) && inst_num_results(f, i) > 0)
		return operand_type(p, inst_result(f, i, 0));
	return KL_TYPE_NONE;
}

/*
 * The type controlling operand v gives instruction i. When v's alias
 * chain is broken (a cycle) it has none: then the type the parser took
 * from the suffix, which the result keeps where it is the controlling
 * type, else i64 (a compare's or a store's suffix is only checked), so
 * that the printed suffix parses back to the same instruction.
 */
static kl_type
ctrl_operand_type(const printer *p, uint32_t i, uint32_t v)
{
	kl_type t = operand_type(p, v);
	if (t != KL_TYPE_NONE)
		return t;
	t = ctrl_result_type(p, i);
	return t != KL_TYPE_NONE ? t : KL_TYPE_I64;
}

/* The `.T` suffix, when the opcode needs one here. */
static void
put_ctrl_type(printer *p, uint32_t i)
{
	const kl_func *f = p->f;
	const kl_opinfo *info = inst_info(f, i);
	const uint32_t *args;
	uint32_t nargs;
	switch (info->ctrl) {
	case KL_CTRL_EXPLICIT:
		buf_addc(p->out, '.');
		put_type(p, operand_type(p, inst_result(f, i, 0)));
		return;
	case KL_CTRL_ARG0:
	case KL_CTRL_ARG1: {
		uint32_t k = info->ctrl == KL_CTRL_ARG1;
		nargs = inst_args(f, i, &args);
		if (k >= nargs) {
			buf_adds(p->out, ".?");
			return;
		}
		/* A result of another type than the operand shows its own:
		 * a refined one (`iadd.u32 v0, v1` with v0 an s32), which
		 * the suffix gives it, or one of another class (an operand
		 * replaced through kl_inst_set_arg), for which the parser
		 * then rejects the text as the verifier rejects the IR,
		 * where the text without it would verify. */
		uint32_t r = f->insts[i].w[0]; /* these formats' result */
		kl_type rt = result_takes_ctrl(info) && r < f->nvalues
				     ? value_type(f, r)
				     : KL_TYPE_NONE;
		uint32_t a = args[k] < f->nvalues
				     ? resolve_with(f, p->resolved, args[k])
				     : KL_NONE;
		kl_type ot = a < f->nvalues ? value_type(f, a) : KL_TYPE_NONE;
		if (KL_UNLIKELY(rt != ot) && rt != KL_TYPE_NONE &&
		    ot != KL_TYPE_NONE) {
			buf_addc(p->out, '.');
			put_type(p, rt);
			return;
		}
		if (defined_earlier_in_block(p, a, i))
			return;
		buf_addc(p->out, '.');
		if (ot == KL_TYPE_NONE) /* (a broken chain) */
			ot = ctrl_operand_type(p, i, args[k]);
		put_type(p, ot);
		return;
	}
	default:
		return;
	}
}

static void
put_imm_operand(printer *p, uint32_t i)
{
	const kl_func *f = p->f;
	const uint32_t *args;
	uint32_t n = inst_args(f, i, &args);
	kl_type t = n ? ctrl_operand_type(p, i, args[0]) : KL_TYPE_I64;
	/* an addend or a factor reads better signed, whatever it is added
	 * to (`iadd_imm v1, -1` of a u64) */
	kl_opcode op = (kl_opcode)f->insts[i].op;
	if (op == KL_OP_IADD_IMM || op == KL_OP_IRSUB_IMM ||
	    op == KL_OP_IMUL_IMM)
		t = kl_type_class(p->m, t);
	put_typed_int(p->m, p->out, t, inst_imm(f, i));
}

static void
put_operands(printer *p, uint32_t i)
{
	const kl_func *f = p->f;
	const kl_inst_data *d = &f->insts[i];
	const kl_opinfo *info = inst_info(f, i);
	kl_buf *out = p->out;
	const uint32_t *e;
	uint32_t n;
	switch ((kl_format)info->format) {
	case KL_FMT_CONST:
		buf_addc(out, ' ');
		if (d->op == KL_OP_F32CONST)
			fmt_f32(out, d->w[1]);
		else if (d->op == KL_OP_F64CONST)
			fmt_f64(out, (uint64_t)inst_imm(f, i));
		else
			put_typed_int(p->m, out, operand_type(p, d->w[0]),
				      inst_imm(f, i));
		break;
	case KL_FMT_UNARY:
		buf_addc(out, ' ');
		put_value(p, d->w[1]);
		break;
	case KL_FMT_BINARY:
		buf_addc(out, ' ');
		put_values(p, &d->w[1], 2);
		break;
	case KL_FMT_ICMP:
	case KL_FMT_FCMP:
		buf_addc(out, ' ');
		buf_adds(out, info->format == KL_FMT_ICMP
				      ? kl_intcc_name((kl_intcc)d->aux)
				      : kl_floatcc_name((kl_floatcc)d->aux));
		buf_addc(out, ' ');
		put_values(p, &d->w[1], 2);
		break;
	case KL_FMT_ICMP_IMM:
		buf_addc(out, ' ');
		buf_adds(out, kl_intcc_name((kl_intcc)d->aux));
		/* fall through */
	case KL_FMT_BINARY_IMM:
		buf_addc(out, ' ');
		put_value(p, d->w[1]);
		buf_adds(out, ", ");
		put_imm_operand(p, i);
		break;
	case KL_FMT_TERNARY:
		n = safe_list(f, d->w[1], &e);
		buf_addc(out, ' ');
		put_values(p, e, n);
		break;
	case KL_FMT_LOAD:
		buf_addc(out, ' ');
		put_value(p, d->w[1]);
		put_offset(p, (int32_t)d->w[2]);
		break;
	case KL_FMT_STORE:
		buf_addc(out, ' ');
		put_value(p, d->w[0]);
		buf_adds(out, ", ");
		put_value(p, d->w[1]);
		put_offset(p, (int32_t)d->w[2]);
		break;
	case KL_FMT_ALLOCA:
		buf_addc(out, ' ');
		fmt_uint(out, d->w[1]);
		put_align(out, d->aux);
		break;
	case KL_FMT_ALLOCA_DYN:
		buf_addc(out, ' ');
		put_value(p, d->w[1]);
		put_align(out, d->aux);
		break;
	case KL_FMT_SYMBOL:
		buf_addc(out, ' ');
		fmt_sym(out, p->m, d->w[1]);
		break;
	case KL_FMT_CALL:
		buf_addc(out, ' ');
		fmt_sym(out, p->m, d->w[1]);
		n = safe_list(f, d->w[2], &e);
		buf_addc(out, '(');
		put_values(p, e, n);
		buf_addc(out, ')');
		break;
	case KL_FMT_CALL_INDIRECT:
		buf_addc(out, ' ');
		kl_buf_put_entity(out, "sig", 3, shown(p, RN_SIGREF, d->w[1]));
		buf_adds(out, ", ");
		n = safe_list(f, d->w[2], &e);
		put_value(p, n ? e[0] : KL_NONE);
		buf_addc(out, '(');
		if (n)
			put_values(p, e + 1, n - 1);
		buf_addc(out, ')');
		break;
	case KL_FMT_JUMP:
		buf_addc(out, ' ');
		put_dest(p, d->w[0]);
		break;
	case KL_FMT_BRIF:
		buf_addc(out, ' ');
		put_value(p, d->w[0]);
		buf_adds(out, ", ");
		put_dest(p, d->w[1]);
		buf_adds(out, ", ");
		put_dest(p, d->w[2]);
		break;
	case KL_FMT_BR_TABLE:
		buf_addc(out, ' ');
		put_value(p, d->w[0]);
		buf_adds(out, ", ");
		n = safe_list(f, d->w[1], &e);
		put_dest(p, n ? e[0] : 0);
		buf_adds(out, ", [");
		for (uint32_t k = 1; k < n; k++) {
			if (k > 1)
				buf_adds(out, ", ");
			/* e may move if the pool grew; it cannot here. */
			put_dest(p, e[k]);
		}
		buf_addc(out, ']');
		break;
	case KL_FMT_RETURN:
		n = safe_list(f, d->w[0], &e);
		if (n) {
			buf_addc(out, ' ');
			put_values(p, e, n);
		}
		break;
	case KL_FMT_TRAP:
		kl_buf_printf(out, " %s",
			      kl_trapcode_name((kl_trapcode)d->aux));
		if (d->aux == KL_TRAP_USER) {
			buf_addc(out, ' ');
			fmt_uint(out, d->w[0]);
		}
		break;
	}
}

/*
 * Can instruction i be printed without following a broken index (the
 * verifier prints functions it has found broken)? A valid opcode, a
 * pooled immediate that exists, and the list handles that the accessors
 * read unchecked are sound.
 */
static bool
inst_printable(const kl_func *f, uint32_t i)
{
	const kl_inst_data *d = &f->insts[i];
	if (d->op >= KL_OP_COUNT)
		return false;
	switch ((kl_format)inst_info(f, i)->format) {
	case KL_FMT_BINARY_IMM:
	case KL_FMT_ICMP_IMM:
		return !(d->bits & IMM_POOLED) || d->w[2] < f->nconsts;
	case KL_FMT_TERNARY:
	case KL_FMT_BR_TABLE:
		return list_ok(f, d->w[1]);
	case KL_FMT_CALL:
	case KL_FMT_CALL_INDIRECT:
		return list_ok(f, d->w[0]) && list_ok(f, d->w[2]);
	case KL_FMT_RETURN:
		return list_ok(f, d->w[0]);
	default:
		return true;
	}
}

static void
put_inst(printer *p, uint32_t i)
{
	const kl_func *f = p->f;
	if (!inst_printable(f, i)) {
		/* A comment, so that the listing still parses. */
		kl_buf_printf(p->out, "; unprintable instruction (opcode %u)",
			      f->insts[i].op);
		return;
	}
	uint32_t nres = inst_num_results(f, i);
	for (uint32_t k = 0; k < nres; k++) {
		if (k)
			buf_adds(p->out, ", ");
		put_value(p, inst_result(f, i, k));
	}
	if (nres)
		buf_adds(p->out, " = ");
	const char *name = kl_op_name((kl_opcode)f->insts[i].op);
	buf_add(p->out, name, strlen(name));
	put_ctrl_type(p, i);
	put_operands(p, i);
}

void
print_inst_with(const kl_func *f, const uint32_t *resolved, uint32_t i,
		kl_buf *out)
{
	if (i >= f->ninsts)
		return;
	printer p = { .f = f, .m = f->module, .out = out,
		      .resolved = resolved };
	put_inst(&p, i);
}

void
kl_print_inst(const kl_func *f, kl_inst i, kl_buf *out)
{
	print_inst_with(f, NULL, i.id, out);
}

void
kl_print_value(const kl_func *f, kl_value v, kl_buf *out)
{
	(void)f;
	kl_buf_printf(out, "v%u", v.id);
}

/* ---- alias lines ---- */

static void
write_alias_chain(printer *p, uint32_t v)
{
	const kl_func *f = p->f;
	uint32_t n = 0;
	/* Collect aliases not yet written, from v towards its target. */
	while (v < f->nvalues && f->values[v].kind == VK_ALIAS &&
	       p->alias_state[v] == 0) {
		p->alias_state[v] = 2;
		kl_grow(&p->chain, &p->chain_cap, sizeof *p->chain, n + 1);
		p->chain[n++] = v;
		v = f->values[v].def;
	}
	while (n > 0) {
		uint32_t a = p->chain[--n];
		p->alias_state[a] = 1;
		line_begin(p);
		buf_adds(p->out, "    ");
		put_value(p, a);
		buf_adds(p->out, " -> ");
		put_value(p, f->values[a].def);
		line_end(p, (kl_entity){ KL_ENT_VALUE, a });
	}
}

static void
write_aliases_used_by(printer *p, uint32_t i)
{
	const kl_func *f = p->f;
	if (!inst_printable(f, i))
		return;
	const uint32_t *args;
	uint32_t n = inst_args(f, i, &args);
	for (uint32_t k = 0; k < n; k++) {
		/* Writing lines may not move the pool; args stays valid. */
		write_alias_chain(p, args[k]);
	}
	const uint32_t *dests;
	uint32_t nd = inst_dests(f, i, &dests);
	for (uint32_t k = 0; k < nd; k++) {
		const uint32_t *da;
		uint32_t b, na;
		if (dest_read(&f->pool, dests[k], &b, &da, &na))
			for (uint32_t j = 0; j < na; j++)
				write_alias_chain(p, da[j]);
	}
}

/*
 * Aliases nothing uses are not written, but those whose chain is broken
 * (a cycle, or an end that is no defined value) are, after the last
 * instruction: the text keeps the error the verifier reports, instead of
 * a printed module that verifies where the one printed did not.
 */
static void
write_broken_aliases(printer *p)
{
	const kl_func *f = p->f;
	for (uint32_t v = 0; v < f->nvalues; v++) {
		if (f->values[v].kind != VK_ALIAS || p->alias_state[v] != 0)
			continue;
		uint32_t end = resolve_with(f, p->resolved, v);
		unsigned kind = end < f->nvalues ? f->values[end].kind
						 : VK_UNUSED;
		if (kind != VK_RESULT && kind != VK_PARAM &&
		    kind != VK_REMOVED)
			write_alias_chain(p, v);
	}
}

static bool
func_has_aliases(const kl_func *f)
{
	for (uint32_t v = 0; v < f->nvalues; v++)
		if (f->values[v].kind == VK_ALIAS)
			return true;
	return false;
}

/* ---- functions and modules ---- */

static void
put_block_header(printer *p, uint32_t b)
{
	const kl_func *f = p->f;
	line_begin(p);
	kl_buf_put_entity(p->out, "block", 5, shown(p, RN_BLOCK, b));
	const uint32_t *e;
	uint32_t n = safe_list(f, f->blocks[b].params, &e);
	if (n) {
		buf_addc(p->out, '(');
		for (uint32_t k = 0; k < n; k++) {
			if (k)
				buf_adds(p->out, ", ");
			put_value(p, e[k]);
			buf_adds(p->out, ": ");
			put_type(p, operand_type(p, e[k]));
		}
		buf_addc(p->out, ')');
	}
	buf_addc(p->out, ':');
	line_end(p, (kl_entity){ KL_ENT_BLOCK, b });
}

static void
print_func(printer *p)
{
	const kl_func *f = p->f;
	kl_buf *out = p->out;
	line_begin(p);
	buf_adds(out, "function ");
	fmt_sym(out, p->m, f->sym);
	fmt_signature(out, p->m, module_sig(p->m, f->sig));
	buf_adds(out, " {");
	line_end(p, (kl_entity){ KL_ENT_FUNC, f->sym });

	bool preamble = false;
	for (uint32_t s = 0; s < f->nsigrefs; s++) {
		if (f->sigrefs[s] == KL_NONE)
			continue;
		line_begin(p);
		buf_adds(out, "    ");
		kl_buf_put_entity(out, "sig", 3, shown(p, RN_SIGREF, s));
		buf_adds(out, " = ");
		fmt_signature(out, p->m, module_sig(p->m, f->sigrefs[s]));
		line_end(p, (kl_entity){ KL_ENT_SIGREF, s });
		preamble = true;
	}

	if (func_has_aliases(f)) {
		p->alias_state = kl_calloc(f->nvalues, 1);
		p->resolved = func_resolve_table(f, &p->resolved_buf,
						 &p->resolved_cap);
	}
	uint32_t steps = 0;
	for (uint32_t b = f->first_block; b != KL_NONE && b < f->nblocks;
	     b = f->blocks[b].next) {
		if (steps++ > f->nblocks)
			break; /* a cycle in broken layout */
		if (steps > 1 || preamble)
			buf_addc(out, '\n');
		put_block_header(p, b);
		uint32_t isteps = 0;
		for (uint32_t i = f->blocks[b].first;
		     i != KL_NONE && i < f->ninsts; i = f->nodes[i].next) {
			if (isteps++ > f->ninsts)
				break;
			if (p->alias_state)
				write_aliases_used_by(p, i);
			line_begin(p);
			buf_adds(out, "    ");
			put_inst(p, i);
			if (p->opts && p->opts->inst_numbers)
				kl_buf_put_entity(out, " ; inst", 7, i);
			line_end(p, (kl_entity){ KL_ENT_INST, i });
		}
	}
	if (p->alias_state && steps)
		write_broken_aliases(p);
	free(p->alias_state);
	p->alias_state = NULL;
	p->resolved = NULL;
	buf_adds(out, "}\n");
}

/*
 * Renumbering: blocks in layout order, so that the text reads as the
 * layout does; values and sigrefs as they first appear, which for values
 * is mostly the order of their definitions (a use before its definition,
 * round a loop, takes the next number there).
 */
static void
start_renumbering(printer *p)
{
	const kl_func *f = p->f;
	uint32_t bound[3] = { f->nvalues, f->nblocks, f->nsigrefs };
	for (int k = 0; k < 3; k++) {
		p->renum_bound[k] = bound[k];
		p->renum[k] = kl_malloc(((size_t)bound[k] + 1) *
					sizeof *p->renum[k]);
		memset(p->renum[k], 0xff, ((size_t)bound[k] + 1) *
					  sizeof *p->renum[k]);
	}
	uint32_t steps = 0;
	for (uint32_t b = f->first_block; b != KL_NONE && b < f->nblocks &&
					  steps++ <= f->nblocks;
	     b = f->blocks[b].next)
		shown(p, RN_BLOCK, b);
}

/* A function's text, left in out (but for what a flush took). */
static void
print_func_text(const kl_func *f, const kl_print_options *opts, kl_buf *out)
{
	printer p = { .f = f, .m = f->module, .out = out, .opts = opts };
	/* About 36 bytes a line: reserve once rather than grow by copying;
	 * with a flush, a chunk and a long line. */
	size_t whole = (size_t)f->ninsts * 36 + (size_t)f->nblocks * 24;
	size_t chunk = KL_PRINT_CHUNK + 4096;
	kl_buf_reserve(out, opts && opts->flush && whole > chunk ? chunk
								 : whole);
	if (opts && opts->renumber)
		start_renumbering(&p);
	print_func(&p);
	for (int k = 0; k < 3; k++)
		free(p.renum[k]);
	free(p.chain);
	free(p.resolved_buf);
	kl_buf_free(&p.line);
}

void
kl_print_func(const kl_func *f, const kl_print_options *opts, kl_buf *out)
{
	print_func_text(f, opts, out);
	flush_from(opts, out, 1);
}

static void
put_data_item(kl_buf *out, const kl_module *m, const kl_item_data *it)
{
	switch (it->kind) {
	case KL_DATA_VALUE:
		buf_adds(out, kl_type_name(m, it->type));
		buf_addc(out, ' ');
		if (it->type == KL_TYPE_F32)
			fmt_f32(out, (uint32_t)it->value);
		else if (it->type == KL_TYPE_F64)
			fmt_f64(out, it->value);
		else
			put_typed_int(m, out, it->type, (int64_t)it->value);
		break;
	case KL_DATA_STRING:
		buf_adds(out, "i8 ");
		fmt_string(out, m->bytes + it->str, it->len);
		break;
	case KL_DATA_ZERO:
		buf_adds(out, "zero "); /* a size: as alloca's */
		fmt_uint(out, it->value);
		break;
	case KL_DATA_SYMREF: {
		buf_adds(out, kl_type_name(m, it->type));
		buf_addc(out, ' ');
		fmt_sym(out, m, it->sym);
		int64_t off = (int64_t)it->value;
		if (off > 0) {
			buf_addc(out, '+');
			fmt_uint(out, (uint64_t)off);
		} else if (off < 0) {
			buf_addc(out, '-');
			fmt_uint(out, -(uint64_t)off);
		}
		break;
	}
	}
}

static void
print_data(kl_buf *out, const kl_module *m, uint32_t s)
{
	const kl_sym_data *d = &m->syms[s];
	buf_adds(out, "data ");
	fmt_sym(out, m, s);
	buf_adds(out, " = ");
	if (d->is_const)
		buf_adds(out, "const ");
	if (d->align != 1)
		kl_buf_printf(out, "align %u ", d->align);
	if (d->nitems == 0) {
		buf_adds(out, "{}\n");
		return;
	}
	buf_adds(out, "{ ");
	for (uint32_t k = 0; k < d->nitems; k++) {
		if (k)
			buf_adds(out, ", ");
		put_data_item(out, m, &m->items[d->items + k]);
	}
	buf_adds(out, " }\n");
}

void
kl_print_module(const kl_module *m, const kl_print_options *opts, kl_buf *out)
{
	for (uint32_t s = 0; s < m->nsyms; s++) {
		const kl_sym_data *d = &m->syms[s];
		if (s)
			buf_addc(out, '\n');
		if (d->kind == KL_SYM_DATA) {
			print_data(out, m, s);
		} else if (d->func) {
			print_func_text(d->func, opts, out);
		} else {
			buf_adds(out, "declare ");
			fmt_sym(out, m, s);
			fmt_signature(out, m, module_sig(m, d->sig));
			buf_addc(out, '\n');
		}
		flush_from(opts, out, KL_PRINT_CHUNK);
	}
	flush_from(opts, out, 1);
}
