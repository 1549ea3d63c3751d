/*
 * emit_c_flow.c -- a function as C (emit_c.h): its values declared at
 * the top, grouped by type; then its structured regions (kl_regions,
 * after Ramsey's "Beyond Relooper"): a LOOP is `for (;;)`, an IF `if`,
 * a SWITCH `switch`, a BREAK or CONTINUE C's own where they reach and a
 * `goto` to a label where they do not, and a GOTO (an edge into an
 * irreducible part) a `goto`. Block parameters are assigned at each
 * edge, as a parallel copy. Regions nested deeper than EMIT_MAX_DEPTH
 * go out of line: `goto deepN;` where they were, their nodes after the
 * function's own as a section `deepN: ... goto backN;`, and `backN:`
 * where they were, so that no C block nests deeper than that (C's
 * labels are the function's, and a goto may enter a block).
 */
#include "emit_c.h"

/* The branch arguments of edge idx of block src, assigned to the
 * target's parameters as a parallel copy: a copy whose target another
 * copy still reads waits; when all wait (a cycle, such as a swap), one
 * target's old value is saved in a temporary first. */
static void
emit_copies(fn_ctx *c, uint32_t ind, kl_block src, uint32_t idx)
{
	kl_cfg_edge e = kl_cfg_succ_edge(c->cfg, src, idx);
	uint32_t n = kl_block_num_params(c->f, e.block), left = 0, temps = 0;
	if (n == 0)
		return;
	uint32_t *dst = kl_calloc(n, sizeof *dst);
	uint32_t *from = kl_calloc(n, sizeof *from);
	for (uint32_t k = 0; k < n; k++) {
		uint32_t d = kl_block_param(c->f, e.block, k).id;
		uint32_t s = kl_value_resolve(
				     c->f,
				     kl_inst_dest_arg(c->f, e.inst, idx, k))
				     .id;
		if (d != s && !emit_unused(c, (kl_value){ d })) {
			dst[left] = d;
			from[left++] = s;
		}
	}
	/* temporaries are numbered down from KL_NONE - 1 */
	kl_buf *saved = c->out, scratch = { 0 };
	c->out = &scratch;
	while (left > 0) {
		uint32_t k = 0;
		for (; k < left; k++) {
			uint32_t j = 0;
			while (j < left && (j == k || from[j] != dst[k]))
				j++;
			if (j == left)
				break;
		}
		if (k == left) {
			uint32_t t = KL_NONE - 1 - temps;
			kl_type ty = kl_value_type(c->f, (kl_value){ dst[0] });
			emit_line(c, ind + 1, "%s t%u = v%u;",
				  emit_ctype(c->e->m, ty), temps++, dst[0]);
			for (uint32_t j = 0; j < left; j++)
				if (from[j] == dst[0])
					from[j] = t;
			k = 0;
		}
		if (from[k] >= KL_NONE - temps)
			emit_line(c, ind + 1, "v%u = t%u;", dst[k],
				  KL_NONE - 1 - from[k]);
		else
			emit_line(c, ind + 1, "v%u = v%u;", dst[k], from[k]);
		/* the rest keep their order: the parameters' */
		left--;
		memmove(dst + k, dst + k + 1, (left - k) * sizeof *dst);
		memmove(from + k, from + k + 1, (left - k) * sizeof *from);
	}
	c->out = saved;
	if (temps)
		emit_line(c, ind, "{");
	/* without a temporary, the lines go one tab further out */
	const char *p = scratch.data ? scratch.data : "";
	while (*p) {
		const char *end = strchr(p, '\n');
		kl_buf_append(c->out, p + (temps ? 0 : 1),
			      (size_t)(end - p) + (temps ? 1 : 0));
		p = end + 1;
	}
	if (temps)
		emit_line(c, ind, "}");
	kl_buf_free(&scratch);
	free(dst);
	free(from);
}

/* Can C's `break` do what BREAK r to scope s does? Yes when the
 * innermost loop or switch around r is inside s and running off its
 * end runs off the end of s. */
static bool
can_break(fn_ctx *c, kl_region r, kl_region s)
{
	kl_region x = kl_region_parent(c->rg, r);
	while (x.id != s.id) {
		kl_region_kind k = kl_region_kind_of(c->rg, x);
		if (c->label[x.id] & LABEL_OUT)
			return false;
		if (k == KL_REGION_LOOP || k == KL_REGION_SWITCH)
			break;
		x = kl_region_parent(c->rg, x);
	}
	if (x.id == s.id)
		return false;
	/* (a goto across a section out of line: the climb then stays within
	 * EMIT_MAX_DEPTH levels, where down a nest of any depth it took
	 * time quadratic in the depth) */
	for (kl_region node = x;;) {
		kl_region p = kl_region_parent(c->rg, node);
		kl_region_kind k = kl_region_kind_of(c->rg, p);
		if (kl_region_next_sibling(c->rg, node).id != KL_NONE ||
		    (c->label[p.id] & LABEL_OUT))
			return false;
		if (p.id == s.id)
			return true;
		if (k == KL_REGION_ARM)
			node = kl_region_parent(c->rg, p);
		else if (k == KL_REGION_SCOPE)
			node = p;
		else
			return false;
	}
}

static bool
can_continue(fn_ctx *c, kl_region r, kl_region loop)
{
	kl_region x = kl_region_parent(c->rg, r);
	while (!(c->label[x.id] & LABEL_OUT) &&
	       kl_region_kind_of(c->rg, x) != KL_REGION_LOOP)
		x = kl_region_parent(c->rg, x);
	return x.id == loop.id && !(c->label[x.id] & LABEL_OUT);
}

static void
emit_edge(fn_ctx *c, uint32_t ind, kl_region r)
{
	kl_region_kind k = kl_region_kind_of(c->rg, r);
	kl_region to = kl_region_target(c->rg, r);
	emit_copies(c, ind, kl_region_source(c->rg, r),
		    kl_region_succ_index(c->rg, r));
	if (k == KL_REGION_BREAK) {
		if (can_break(c, r, to)) {
			emit_line(c, ind, "break;");
		} else {
			c->label[to.id] |= LABEL_AFTER;
			emit_line(c, ind, "goto to_block%u;",
				  kl_region_block(c->rg, to).id);
		}
	} else if (k == KL_REGION_CONTINUE) {
		if (can_continue(c, r, to)) {
			emit_line(c, ind, "continue;");
		} else {
			c->label[to.id] |= LABEL_TOP;
			emit_line(c, ind, "goto top_block%u;",
				  kl_region_block(c->rg, to).id);
		}
	} else if (k == KL_REGION_GOTO) {
		kl_block b = kl_region_block(c->rg, r);
		c->label[kl_regions_code(c->rg, b).id] |= LABEL_CODE;
		emit_line(c, ind, "goto block%u;", b.id);
	}
}

static void
emit_return(fn_ctx *c, uint32_t ind, kl_inst i)
{
	uint32_t n = kl_inst_num_args(c->f, i);
	if (c->heap)
		emit_line(c, ind, "rt_release(frame);");
	if (n == 0) {
		emit_line(c, ind, "return;");
	} else if (n == 1) {
		emit_line(c, ind, "return %s;", emit_arg(c, i, 0));
	} else {
		sig_text st = { 0 };
		kl_buf args = { 0 };
		emit_sig(c->e, kl_func_signature(c->f), &st, false, 0);
		emit_call_args(c, i, 0, n, &args);
		emit_line(c, ind, "return (%s){ %s };", st.ret.data, args.data);
		kl_buf_free(&args);
		emit_sig_free(&st);
	}
}

/* Cut b back to its first len bytes (text emitted and taken back). */
static void
cut(kl_buf *b, size_t len)
{
	b->len = len;
	if (b->cap)
		b->data[len] = 0;
}

static void emit_seq(fn_ctx *c, uint32_t ind, kl_region parent);

/* Can control run off the end of parent's nodes? Not when the last is
 * a jump (an IF whose arms both jump is taken as running off). */
static bool
falls_off(fn_ctx *c, kl_region parent)
{
	kl_region last = { KL_NONE };
	for (kl_region n = kl_region_first_child(c->rg, parent);
	     n.id != KL_NONE; n = kl_region_next_sibling(c->rg, n))
		last = n;
	if (last.id == KL_NONE)
		return true;
	kl_region_kind k = kl_region_kind_of(c->rg, last);
	return k != KL_REGION_BREAK && k != KL_REGION_CONTINUE &&
	       k != KL_REGION_GOTO && k != KL_REGION_LEAVE;
}

/*
 * An IF node: `if (c) { then } else { else }`, an empty arm left out
 * (`if (!c)` when it is the first). Each arm goes straight into the
 * output, once, and a header that turns out wrong is cut back: copying
 * arms emitted apart into their parent cost, down a deep nest, the
 * text's size at every level.
 */
static void
emit_if(fn_ctx *c, uint32_t ind, kl_region r, kl_inst term)
{
	kl_region then = kl_region_first_child(c->rg, r);
	kl_region other = kl_region_next_sibling(c->rg, then);
	const char *cond = emit_arg(c, term, 0);
	char name[16];
	snprintf(name, sizeof name, "%s", cond);
	size_t start = c->out->len;
	emit_line(c, ind, "if (%s) {", name);
	size_t then_at = c->out->len;
	emit_seq(c, ind + 1, then);
	if (c->out->len == then_at) {
		cut(c->out, start);
		emit_line(c, ind, "if (!%s) {", name);
		size_t other_at = c->out->len;
		emit_seq(c, ind + 1, other);
		if (c->out->len == other_at) {
			cut(c->out, start);
			emit_line(c, ind, "if (%s) {", name);
		}
	} else {
		size_t else_at = c->out->len;
		emit_line(c, ind, "} else {");
		size_t other_at = c->out->len;
		emit_seq(c, ind + 1, other);
		if (c->out->len == other_at)
			cut(c->out, else_at);
	}
	emit_line(c, ind, "}");
}

static void
emit_node(fn_ctx *c, uint32_t ind, kl_region r)
{
	kl_block b = kl_region_block(c->rg, r);
	kl_inst term = kl_block_last_inst(c->f, b);
	switch (kl_region_kind_of(c->rg, r)) {
	case KL_REGION_CODE:
		if (c->label[r.id] & LABEL_CODE)
			emit_line(c, ind ? ind - 1 : 0, "block%u: ;", b.id);
		for (kl_inst i = kl_block_first_inst(c->f, b);
		     i.id != KL_NONE && i.id != term.id;
		     i = kl_inst_next(c->f, i))
			emit_inst(c, ind, i);
		break;
	case KL_REGION_SCOPE:
		if (!(c->label[r.id] & LABEL_AFTER)) {
			emit_seq(c, ind, r);
			break;
		}
		emit_line(c, ind, "{");
		emit_seq(c, ind + 1, r);
		emit_line(c, ind, "}");
		emit_line(c, ind ? ind - 1 : 0, "to_block%u: ;", b.id);
		break;
	case KL_REGION_LOOP:
		emit_line(c, ind, "for (;;) {");
		if (c->label[r.id] & LABEL_TOP)
			emit_line(c, ind, "top_block%u: ;", b.id);
		emit_seq(c, ind + 1, r);
		emit_line(c, ind, "}");
		break;
	case KL_REGION_IF:
		emit_if(c, ind, r, term);
		break;
	case KL_REGION_SWITCH: {
		emit_line(c, ind, "switch (%s) {", emit_arg(c, term, 0));
		for (kl_region a = kl_region_first_child(c->rg, r);
		     a.id != KL_NONE; a = kl_region_next_sibling(c->rg, a)) {
			uint32_t k = kl_region_succ_index(c->rg, a);
			if (k == 0)
				emit_line(c, ind, "default:");
			else
				emit_line(c, ind, "case %u:", k - 1);
			emit_seq(c, ind + 1, a);
			/* no break after a jump of the arm's own */
			if (falls_off(c, a))
				emit_line(c, ind + 1, "break;");
		}
		emit_line(c, ind, "}");
		break;
	}
	case KL_REGION_ENTER:
	case KL_REGION_NEXT:
	case KL_REGION_BREAK:
	case KL_REGION_CONTINUE:
	case KL_REGION_GOTO:
		emit_edge(c, ind, r);
		break;
	case KL_REGION_LEAVE:
		if (kl_inst_opcode(c->f, term) == KL_OP_RETURN) {
			emit_return(c, ind, term);
		} else {
			uint32_t user;
			kl_trapcode t = kl_inst_trap_code(c->f, term, &user);
			char what[64];
			if (t == KL_TRAP_USER)
				snprintf(what, sizeof what, "user %u", user);
			else
				snprintf(what, sizeof what, "%s",
					 kl_trapcode_name(t));
			emit_line(c, ind,
				  "rt_trap(%u, \"%s: trap instruction\");",
				  emit_site(c, term), what);
		}
		break;
	default:
		emit_refuse(c, term, "a regions node of an unknown kind");
	}
}

static void
emit_seq(fn_ctx *c, uint32_t ind, kl_region parent)
{
	if (kl_region_first_child(c->rg, parent).id == KL_NONE)
		return;
	if (c->depth + 1 > EMIT_MAX_DEPTH) {
		/* out of line: emit_sections emits it, at depth 0 */
		kl_grow(&c->sections, &c->sections_cap, sizeof *c->sections,
			(uint64_t)c->nsections + 1);
		uint32_t n = c->nsections++;
		c->sections[n] = parent.id;
		c->label[parent.id] |= LABEL_OUT;
		emit_line(c, ind, "goto deep%u;", n);
		if (falls_off(c, parent))
			emit_line(c, ind ? ind - 1 : 0, "back%u: ;", n);
		return;
	}
	c->depth++;
	for (kl_region r = kl_region_first_child(c->rg, parent);
	     r.id != KL_NONE; r = kl_region_next_sibling(c->rg, r))
		emit_node(c, ind, r);
	c->depth--;
}

/* The regions emit_seq sent out of line, after the function's own nodes
 * (which never run off their end), each in turn: those sections send
 * deeper ones further on, so the emitter's recursion stays within
 * EMIT_MAX_DEPTH levels however deep the regions nest. */
static void
emit_sections(fn_ctx *c)
{
	for (uint32_t n = 0; n < c->nsections; n++) {
		kl_region parent = { c->sections[n] };
		emit_line(c, 0, "deep%u: ;", n);
		c->depth = 0;
		emit_seq(c, 1, parent);
		if (falls_off(c, parent))
			emit_line(c, 1, "goto back%u;", n);
	}
}

/* The value declarations at the top of a function, grouped by type. */
static void
emit_decls(fn_ctx *c, const kl_domtree *dt)
{
	static const char *const names[] = {
		"uint8_t",  "uint16_t", "uint32_t",
		"uint64_t", "float",    "double",
	};
	const kl_module *m = c->e->m;
	kl_buf lists[6] = { 0 };
	kl_block entry = kl_func_first_block(c->f);
	for (kl_block b = entry; b.id != KL_NONE; b = kl_block_next(c->f, b)) {
		if (!kl_domtree_is_reachable(dt, b))
			continue;
		for (uint32_t k = 0;
		     b.id != entry.id && k < kl_block_num_params(c->f, b);
		     k++) {
			kl_value v = kl_block_param(c->f, b, k);
			kl_type t = kl_type_class(m, kl_value_type(c->f, v));
			if (!emit_unused(c, v) && t < 6)
				kl_buf_printf(&lists[t], ", v%u", v.id);
		}
		for (kl_inst i = kl_block_first_inst(c->f, b); i.id != KL_NONE;
		     i = kl_inst_next(c->f, i)) {
			kl_opcode op = kl_inst_opcode(c->f, i);
			if (emit_dropped(c, i))
				continue;
			for (uint32_t k = 0; k < kl_inst_num_results(c->f, i);
			     k++) {
				kl_value v = kl_inst_result(c->f, i, k);
				kl_type t = kl_value_type(c->f, v);
				if (!emit_ctype(m, t)) {
					emit_refuse(c, i,
						    "a type that is no "
						    "machine class");
					continue;
				}
				/* a call's unused result is not kept */
				if (kl_op_is_call(op) && emit_unused(c, v))
					continue;
				kl_buf_printf(&lists[kl_type_class(m, t)],
					      ", v%u", v.id);
			}
			uint32_t align = kl_inst_align(c->f, i);
			int64_t size = kl_inst_imm(c->f, i);
			bool local = op == KL_OP_ALLOCA && b.id == entry.id &&
				     size <= 4096 && align <= 16;
			if (local)
				emit_line(c, 1,
					  "_Alignas(%u) unsigned char mv%u"
					  "[%lld] = { 0 };",
					  align, kl_inst_result(c->f, i, 0).id,
					  (long long)size);
			else if (op == KL_OP_ALLOCA || op == KL_OP_ALLOCA_DYN)
				c->heap = true;
		}
	}
	for (uint32_t t = 0; t < 6; t++) {
		/* about 70 columns a line */
		const char *p = lists[t].data;
		while (p && *p) {
			emit_indent(c->out, 1);
			kl_buf_puts(c->out, names[t]);
			const char *sep = " ";
			size_t col = 8 + strlen(names[t]);
			while (*p && col < 64) {
				const char *next = strchr(p + 2, ',');
				size_t n = next ? (size_t)(next - p - 2)
						: strlen(p + 2);
				kl_buf_puts(c->out, sep);
				kl_buf_append(c->out, p + 2, n);
				col += n + 2;
				sep = ", ";
				p += n + 2;
			}
			kl_buf_puts(c->out, ";\n");
		}
		kl_buf_free(&lists[t]);
	}
	if (c->heap)
		emit_line(c, 1, "struct rt_mem *frame = NULL;");
	for (uint32_t k = 0; k < kl_block_num_params(c->f, entry); k++)
		if (emit_unused(c, kl_block_param(c->f, entry, k)))
			emit_line(c, 1, "(void)v%u;",
				  kl_block_param(c->f, entry, k).id);
}

void
emit_func(emitter *e, const kl_func *f, kl_buf *out)
{
	fn_ctx c = { .e = e, .f = f, .out = out };
	kl_cfg *cfg = kl_cfg_new();
	kl_domtree *dt = kl_domtree_new();
	kl_loops *lf = kl_loops_new();
	c.rg = kl_regions_new();
	c.uses = kl_uses_new();
	c.cfg = cfg;
	kl_uses_compute(c.uses, f);
	kl_cfg_compute(cfg, f);
	kl_domtree_compute(dt, f, cfg);
	kl_loops_compute(lf, f, cfg, dt);
	kl_regions_compute(c.rg, f, cfg, dt, lf);
	c.label = kl_calloc(kl_regions_count(c.rg) + 1, 1);
	sig_text st = { 0 };
	kl_block entry = kl_func_first_block(f);
	kl_signature sig = kl_func_signature(f);
	emit_sig(e, sig, &st, true, 0);
	kl_buf_printf(out, "static %s\n%s(", st.ret.data,
		      emit_ident(e, kl_func_sym(f)));
	for (uint32_t k = 0; k < sig.num_params; k++)
		kl_buf_printf(out, "%s%s v%u", k ? ", " : "",
			      emit_ctype(e->m, sig.params[k]),
			      kl_block_param(f, entry, k).id);
	kl_buf_puts(out, sig.num_params ? ")\n{\n" : "void)\n{\n");
	emit_decls(&c, dt);
	/* a first pass finds the labels a goto names; its text and trap
	 * sites are thrown away */
	kl_buf scratch = { 0 };
	size_t sites = e->sites.len;
	uint32_t nsites = e->nsites;
	c.out = &scratch;
	c.scouting = true;
	emit_seq(&c, 1, (kl_region){ 0 });
	emit_sections(&c);
	e->sites.len = sites;
	e->nsites = nsites;
	c.out = out;
	c.scouting = false;
	c.nsections = 0;
	c.depth = 0;
	emit_seq(&c, 1, (kl_region){ 0 });
	emit_sections(&c);
	kl_buf_puts(out, "}\n\n");
	kl_buf_free(&scratch);
	emit_sig_free(&st);
	free(c.label);
	free(c.sections);
	kl_regions_free(c.rg);
	kl_uses_free(c.uses);
	kl_loops_free(lf);
	kl_domtree_free(dt);
	kl_cfg_free(cfg);
}
