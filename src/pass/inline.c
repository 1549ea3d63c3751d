/*
 * inline.c -- inlining: a direct call to a small function of the module
 * is replaced by a copy of that function's body.
 *
 * The copy of the callee's entry block goes where the call was, its
 * parameters standing for the call's arguments; the callee's other
 * blocks follow the call's block in the layout, and what came after the
 * call moves to a new block (the continuation) that its returns jump to.
 * The call's results become aliases: of the returned values when the
 * callee returns in one place, else of the continuation's parameters.
 * A callee whose entry block returns is copied there and then, without
 * a new block.
 *
 * An alloca of the callee (one in its entry block with a constant size:
 * a callee with any other is not inlined) moves to the start of the
 * caller's entry block, so that promote can still make it SSA values.
 * Its memory is then made once per call of the caller, not once per call
 * of the callee, and fresh memory reads as zero: so where the call was,
 * when it was not in the entry block (which runs once), stores of zero
 * fill it again before the body runs.
 *
 * Only the calls in the function when the pass starts are inlined, each
 * with the callee's body as it is then: calls the copies bring in stay
 * calls, so recursion, direct or not, ends after one step. keel opt runs
 * a pass over every function before the next pass, in the module's
 * order, so a callee met earlier has had its own calls inlined.
 *
 * Each call costs the callee's size, and a callee is inlined only while
 * small (INLINE_MOST_INSTS), checked in at most that many steps: the
 * pass is linear in the caller's size times that bound.
 */
#include <stdlib.h>
#include <string.h>

#include "../ir/ir.h"
#include "../util/util.h"
#include "pass.h"

enum {
	/* The most instructions (blocks counted too) a callee may have:
	 * about what LLVM's default threshold allows, and a body small
	 * enough that copying it costs less than the call. */
	INLINE_MOST_INSTS = 40,
	/* The most bytes of allocas a callee may have: their memory lives
	 * as long as the caller's call does, and is zeroed before each
	 * inlined body outside the caller's entry block. */
	INLINE_MOST_ALLOCA_BYTES = 256,
};

/* What a callee is: whether it can be inlined, why not. */
typedef struct verdict {
	const kl_func *g; /* NULL: declared only */
	const char *why;  /* NULL: it can be inlined */
	uint32_t nrets;   /* its returns */
	uint32_t run;     /* made in this run of the pass (0: never) */
	/* What a copy adds at most: instructions (stores of zero and the
	 * continuation's jumps counted) and values. */
	uint32_t grows_insts, grows_values;
} verdict;

/* Scratch kept from one function to the next (a pass report's state). */
typedef struct inliner {
	uint32_t *calls; /* the call instructions to look at, in order */
	uint32_t ncalls, calls_cap;
	/* By value and block of the callee: the caller's value or block
	 * standing for it, valid where the stamp is the current one. */
	uint32_t *vmap, *vstamp, vcap;
	uint32_t *bmap, *bstamp, bcap;
	uint32_t stamp;
	uint32_t *results; /* the call's results */
	uint32_t results_cap;
	uint32_t *targets; /* what each result becomes */
	uint32_t targets_cap;
	uint32_t *allocas; /* copies of the callee's allocas */
	uint32_t allocas_cap;
	kl_value *args; /* a return's arguments, as the caller's values */
	uint32_t args_cap;
	verdict *verdicts; /* by callee symbol */
	uint32_t verdicts_cap;
	uint32_t run; /* which function's run made a verdict */
	uint64_t copied; /* instructions copied into the function */
} inliner;

static void
inliner_free(void *p)
{
	inliner *s = p;
	if (!s)
		return;
	free(s->calls);
	free(s->vmap);
	free(s->vstamp);
	free(s->bmap);
	free(s->bstamp);
	free(s->results);
	free(s->targets);
	free(s->allocas);
	free(s->args);
	free(s->verdicts);
	free(s);
}

static void *
inliner_new(void)
{
	return kl_calloc(1, sizeof(inliner));
}

/* Map and stamps of *cap entries, grown to need, new stamps out of date. */
static void
grow_map(uint32_t **map, uint32_t **stamp, uint32_t *cap, uint32_t need)
{
	uint32_t old = *cap;
	void **arrays[] = { (void **)map, (void **)stamp };
	const size_t sizes[] = { sizeof **map, sizeof **stamp };
	pass_grow_all(cap, need, 2, arrays, sizes);
	if (*cap > old)
		memset(*stamp + old, 0, (size_t)(*cap - old) * sizeof **stamp);
}

/* Maps sized for callee g, every entry out of date. */
static void
maps_for(inliner *s, const kl_func *g)
{
	grow_map(&s->vmap, &s->vstamp, &s->vcap, g->nvalues);
	grow_map(&s->bmap, &s->bstamp, &s->bcap, g->nblocks);
	if (++s->stamp == 0) {
		memset(s->vstamp, 0, (size_t)s->vcap * sizeof *s->vstamp);
		memset(s->bstamp, 0, (size_t)s->bcap * sizeof *s->bstamp);
		s->stamp = 1;
	}
}

static void
set_value(inliner *s, uint32_t v, uint32_t to)
{
	s->vmap[v] = to;
	s->vstamp[v] = s->stamp;
}

static bool
value_known(const inliner *s, const kl_func *g, uint32_t v)
{
	if (v >= g->nvalues)
		return false;
	v = value_resolve(g, v);
	return v < g->nvalues && s->vstamp[v] == s->stamp;
}

static bool
block_known(const inliner *s, const kl_func *g, uint32_t b)
{
	return b < g->nblocks && s->bstamp[b] == s->stamp;
}

/* Does the callee's entry block end by returning (then it alone runs)? */
static bool
entry_returns(const kl_func *g)
{
	uint32_t last = g->blocks[g->first_block].last;
	return last != KL_NONE && g->insts[last].op == KL_OP_RETURN;
}

/* The blocks of g that are copied: its entry alone, or all. */
static uint32_t
next_copied(const kl_func *g, uint32_t b, bool one_block)
{
	return one_block ? KL_NONE : g->blocks[b].next;
}

/* The width of the store of zero at offset `at` of `size` bytes: the
 * widest that fits, at an offset it divides. */
static uint32_t
zero_width(uint32_t at, uint32_t size)
{
	uint32_t w = 8;
	while (w > 1 && (at % w || at + w > size))
		w /= 2;
	return w;
}

/* Does every operand of the blocks of g copied (callee_why marked what
 * they define) have a definition among them, every destination one of
 * them but the entry? What the verifier would say, but for dominance. */
static bool
copy_is_closed(const inliner *s, const kl_func *g, bool one_block)
{
	uint32_t entry = g->first_block;
	for (uint32_t b = entry; b != KL_NONE; b = next_copied(g, b,
							       one_block))
		for (uint32_t i = g->blocks[b].first; i != KL_NONE;
		     i = g->nodes[i].next) {
			const uint32_t *vals, *dests;
			for (uint32_t k = 0, n = inst_args(g, i, &vals); k < n;
			     k++)
				if (!value_known(s, g, vals[k]))
					return false;
			for (uint32_t k = 0, n = inst_dests(g, i, &dests);
			     k < n; k++) {
				uint32_t to, na;
				const uint32_t *args;
				dest_read(&g->pool, dests[k], &to, &args, &na);
				if (to == entry || !block_known(s, g, to))
					return false;
				for (uint32_t a = 0; a < na; a++)
					if (!value_known(s, g, args[a]))
						return false;
			}
		}
	return true;
}

/*
 * Why callee g cannot be inlined anywhere (NULL: it can), its returns
 * counted in *nrets. Its body is looked at up to the size limit, and
 * checked as far as copying it needs: every operand defined in the
 * blocks copied, every destination one of them.
 */
static const char *
callee_why(inliner *s, const kl_func *g, verdict *v)
{
	static const char too_big[] = "too big (over 40 instructions and "
				      "blocks)";
	uint32_t *nrets = &v->nrets;
	const kl_module *m = g->module;
	if (g->first_block == KL_NONE || g->sig >= m->nsigs)
		return "no body";
	const kl_sig_data *sig = &m->sigs[g->sig];
	if (sig->variadic)
		return "variadic";
	maps_for(s, g);
	bool one_block = entry_returns(g);
	uint32_t entry = g->first_block, cost = 0, bytes = 0;
	*nrets = 0;
	for (uint32_t b = entry; b != KL_NONE; b = next_copied(g, b,
							       one_block)) {
		s->bstamp[b] = s->stamp;
		const kl_pool *p = &g->pool;
		uint32_t pl = g->blocks[b].params;
		for (uint32_t k = 0; k < list_len(p, pl); k++)
			if (list_get(p, pl, k) < g->nvalues)
				set_value(s, list_get(p, pl, k), KL_NONE);
		v->grows_values += list_len(p, pl);
		if (++cost > INLINE_MOST_INSTS)
			return too_big;
		for (uint32_t i = g->blocks[b].first; i != KL_NONE;
		     i = g->nodes[i].next) {
			if (++cost > INLINE_MOST_INSTS)
				return too_big;
			const kl_inst_data *d = &g->insts[i];
			uint32_t nres = inst_num_results(g, i);
			v->grows_insts++;
			v->grows_values += nres;
			for (uint32_t k = 0; k < nres; k++) {
				uint32_t r = inst_result(g, i, k);
				if (r < g->nvalues)
					set_value(s, r, KL_NONE);
			}
			switch (d->op) {
			case KL_OP_ALLOCA_DYN:
				return "alloca_dyn";
			case KL_OP_ALLOCA:
				if (b != entry)
					return "alloca outside its entry block";
				bytes += d->w[1] > INLINE_MOST_ALLOCA_BYTES
						 ? INLINE_MOST_ALLOCA_BYTES + 1
						 : d->w[1];
				if (bytes > INLINE_MOST_ALLOCA_BYTES)
					return "allocas over 256 bytes";
				for (uint32_t at = 0; at < d->w[1];
				     at += zero_width(at, d->w[1]))
					v->grows_insts++;
				break;
			case KL_OP_CALL:
				if (module_returns_twice(m, d->w[1]))
					return "calls a function returning "
					       "twice (setjmp)";
				break;
			case KL_OP_CALL_INDIRECT:
				if (d->w[1] >= g->nsigrefs ||
				    g->sigrefs[d->w[1]] == KL_NONE)
					return "does not verify";
				break;
			case KL_OP_RETURN:
				if (list_len(p, d->w[0]) != sig->nresults)
					return "does not verify";
				++*nrets;
				break;
			default:
				break;
			}
		}
		uint32_t last = g->blocks[b].last;
		if (last == KL_NONE || !kl_op_is_terminator(g->insts[last].op))
			return "does not verify";
	}
	if (list_len(&g->pool, g->blocks[entry].params) != sig->nparams)
		return "does not verify";
	return copy_is_closed(s, g, one_block) ? NULL : "does not verify";
}
/* What callee symbol `callee` of f is, with what callee_why says of it,
 * looked at once for each function the pass runs on. */
static const verdict *
judge(inliner *s, const kl_func *f, uint32_t callee)
{
	const kl_module *m = f->module;
	if (s->verdicts_cap < m->nsyms) {
		uint32_t old = s->verdicts_cap;
		kl_grow((void **)&s->verdicts, &s->verdicts_cap,
			sizeof *s->verdicts, m->nsyms);
		memset(s->verdicts + old, 0,
		       (size_t)(s->verdicts_cap - old) * sizeof *s->verdicts);
	}
	verdict *v = &s->verdicts[callee];
	if (v->run == s->run)
		return v;
	*v = (verdict){ .run = s->run, .g = m->syms[callee].func };
	v->why = !v->g     ? "declared, not defined"
		 : v->g == f ? "recursive"
			     : callee_why(s, v->g, v);
	/* the zero stored, the continuation's parameters */
	v->grows_insts++;
	v->grows_values += 1 + (v->why ? 0 : m->sigs[v->g->sig].nresults);
	return v;
}

/* Why call c of f is not inlined (NULL: it is), its callee's verdict
 * in *out. */
static const char *
call_why(inliner *s, const kl_func *f, uint32_t c, const verdict **out)
{
	uint32_t callee = f->insts[c].w[1];
	if (callee >= f->module->nsyms)
		return "does not verify";
	const verdict *v = judge(s, f, callee);
	*out = v;
	if (v->why)
		return v->why;
	const kl_sig_data *sig = &f->module->sigs[v->g->sig];
	if (list_len(&f->pool, f->insts[c].w[2]) != sig->nparams ||
	    list_len(&f->pool, f->insts[c].w[0]) != sig->nresults)
		return "does not verify";
	return NULL;
}

static uint32_t *
room(uint32_t **a, uint32_t *cap, uint32_t n)
{
	if (*cap < n)
		kl_grow((void **)a, cap, sizeof **a, n);
	return *a;
}

/* Stores of zero over the bytes of the allocas copied, before call c. */
static void
zero_allocas(inliner *s, kl_func *f, uint32_t c, uint32_t n)
{
	kl_builder b;
	kl_builder_init(&b, f);
	kl_builder_before(&b, (kl_inst){ c });
	kl_value zero = kl_build_iconst(&b, KL_TYPE_I64, 0);
	for (uint32_t k = 0; k < n; k++) {
		uint32_t a = s->allocas[k];
		kl_value ptr = { f->insts[a].w[0] };
		uint32_t size = f->insts[a].w[1];
		for (uint32_t at = 0, w; at < size; at += w) {
			w = zero_width(at, size);
			static const kl_opcode by_width[9] = {
				[1] = KL_OP_ISTORE8, [2] = KL_OP_ISTORE16,
				[4] = KL_OP_ISTORE32, [8] = KL_OP_STORE
			};
			kl_build_store(&b, by_width[w], zero, ptr, (int32_t)at);
		}
	}
}

/* Copy instruction i of g to the end of block `to` of f, or before
 * instruction `before` when that is not KL_NONE. */
static void
place_copy(inliner *s, kl_func *f, const kl_func *g, uint32_t i, uint32_t to,
	   uint32_t before)
{
	uint32_t c = inst_copy(f, g, i, s->vmap, s->bmap);
	s->copied++;
	if (before != KL_NONE)
		kl_inst_move_before(f, (kl_inst){ c }, (kl_inst){ before });
	else
		kl_inst_move_to_end(f, (kl_inst){ c }, (kl_block){ to });
}

/* A return of g, in the copy: a jump to the continuation, with the
 * returned values when several returns meet there. */
static void
place_return(inliner *s, kl_func *f, const kl_func *g, uint32_t i,
	     uint32_t to, uint32_t cont, bool with_args)
{
	uint32_t list = g->insts[i].w[0];
	uint32_t n = with_args ? list_len(&g->pool, list) : 0;
	if (s->args_cap < n)
		kl_grow((void **)&s->args, &s->args_cap, sizeof *s->args, n);
	for (uint32_t k = 0; k < n; k++)
		s->args[k].id = s->vmap[value_resolve(
			g, list_get(&g->pool, list, k))];
	kl_builder b;
	kl_builder_init(&b, f);
	kl_builder_at_end(&b, (kl_block){ to });
	kl_build_jump(&b, (kl_block_call){ { cont }, s->args, n });
	s->copied++;
}

/* Numbers in f for the results of instruction i of g, in order. */
static void
number_results(inliner *s, kl_func *f, const kl_func *g, uint32_t i)
{
	kl_inst in = { i };
	for (uint32_t k = 0, n = kl_inst_num_results(g, in); k < n; k++)
		set_value(s, kl_inst_result(g, in, k).id, func_new_value(f));
}

/* The results become what return i of g returns. */
static void
returned_values(inliner *s, const kl_func *g, uint32_t i, uint32_t nres)
{
	for (uint32_t k = 0; k < nres; k++)
		s->targets[k] = s->vmap[value_resolve(
			g, list_get(&g->pool, g->insts[i].w[0], k))];
}

/* Inline g at call c of f (call_why said it can be); nrets: g's
 * returns. */
static void
inline_call(inliner *s, kl_func *f, uint32_t c, const kl_func *g,
	    uint32_t nrets)
{
	maps_for(s, g);
	uint32_t here = f->nodes[c].block, entry = g->first_block;
	bool one_block = entry_returns(g);
	/* the call's arguments stand for the entry's parameters */
	uint32_t pl = g->blocks[entry].params;
	for (uint32_t k = 0; k < list_len(&g->pool, pl); k++)
		set_value(s, list_get(&g->pool, pl, k),
			  value_resolve(f, list_get(&f->pool, f->insts[c].w[2],
						    k)));
	/* new blocks and their parameters, then a number for each result */
	for (uint32_t b = next_copied(g, entry, one_block); b != KL_NONE;
	     b = g->blocks[b].next) {
		kl_block nb = kl_func_new_block(f);
		s->bmap[b] = nb.id;
		pl = g->blocks[b].params;
		for (uint32_t k = 0; k < list_len(&g->pool, pl); k++) {
			uint32_t v = list_get(&g->pool, pl, k);
			set_value(s, v,
				  kl_block_append_param(f, nb,
							value_type(g, v))
					  .id);
		}
	}
	for (uint32_t b = entry; b != KL_NONE; b = next_copied(g, b,
							       one_block))
		for (uint32_t i = g->blocks[b].first; i != KL_NONE;
		     i = g->nodes[i].next)
			number_results(s, f, g, i);
	uint32_t nres = list_len(&f->pool, f->insts[c].w[0]);
	room(&s->results, &s->results_cap, nres);
	room(&s->targets, &s->targets_cap, nres);
	for (uint32_t k = 0; k < nres; k++)
		s->results[k] = list_get(&f->pool, f->insts[c].w[0], k);

	/* the entry's allocas to the caller's entry, the rest at the call */
	uint32_t nallocas = 0;
	uint32_t top = f->blocks[f->first_block].first;
	for (uint32_t i = g->blocks[entry].first; i != KL_NONE;
	     i = g->nodes[i].next) {
		if (g->insts[i].op != KL_OP_ALLOCA)
			continue;
		room(&s->allocas, &s->allocas_cap, nallocas + 1);
		s->allocas[nallocas++] = inst_copy(f, g, i, s->vmap, s->bmap);
		kl_inst_move_before(f, (kl_inst){ s->allocas[nallocas - 1] },
				    (kl_inst){ top });
		s->copied++;
	}
	if (nallocas && here != f->first_block)
		zero_allocas(s, f, c, nallocas);
	uint32_t last = g->blocks[entry].last;
	for (uint32_t i = g->blocks[entry].first; i != last;
	     i = g->nodes[i].next)
		if (g->insts[i].op != KL_OP_ALLOCA)
			place_copy(s, f, g, i, here, c);
	if (one_block) {
		returned_values(s, g, last, nres);
		goto replace;
	}

	/* the rest of the call's block to the continuation, after the
	 * callee's blocks */
	kl_block cont = kl_func_new_block(f);
	for (uint32_t k = 0; k < nres && nrets != 1; k++)
		s->targets[k] = kl_block_append_param(
					f, cont, value_type(f, s->results[k]))
					.id;
	uint32_t after = here;
	for (uint32_t b = g->blocks[entry].next; b != KL_NONE;
	     b = g->blocks[b].next) {
		kl_func_insert_block_after(f, (kl_block){ s->bmap[b] },
					   (kl_block){ after });
		after = s->bmap[b];
	}
	kl_func_insert_block_after(f, cont, (kl_block){ after });
	for (uint32_t i = f->nodes[c].next, next; i != KL_NONE; i = next) {
		next = f->nodes[i].next;
		kl_inst_move_to_end(f, (kl_inst){ i }, cont);
	}
	place_copy(s, f, g, last, here, c);
	for (uint32_t b = g->blocks[entry].next; b != KL_NONE;
	     b = g->blocks[b].next)
		for (uint32_t i = g->blocks[b].first; i != KL_NONE;
		     i = g->nodes[i].next) {
			if (g->insts[i].op != KL_OP_RETURN) {
				place_copy(s, f, g, i, s->bmap[b], KL_NONE);
				continue;
			}
			if (nrets == 1)
				returned_values(s, g, i, nres);
			place_return(s, f, g, i, s->bmap[b], cont.id,
				     nrets != 1);
		}
replace:
	kl_inst_remove(f, (kl_inst){ c });
	for (uint32_t k = 0; k < nres; k++)
		kl_value_set_alias(f, (kl_value){ s->results[k] },
				   (kl_value){ s->targets[k] });
}

/* Note why call c (to g, or to a function without body) stays. */
static void
note_kept(kl_pass_report *rep, const kl_func *f, uint32_t c, const char *why)
{
	const kl_module *m = f->module;
	size_t n, gn;
	const char *name = kl_sym_name(m, (kl_sym){ f->sym }, &n);
	const char *callee = kl_sym_name(m, (kl_sym){ f->insts[c].w[1] }, &gn);
	kl_buf spelt = { 0 };
	kl_name_format(callee, gn, &spelt);
	kl_buf_printf(&rep->notes, "%%%.*s: kept the call to %s (inst%u",
		      (int)n, name, spelt.data, c);
	uint32_t line = kl_inst_source_line(f, (kl_inst){ c });
	if (line)
		kl_buf_printf(&rep->notes, ", line %u", line);
	kl_buf_printf(&rep->notes, "): %s\n", why);
	kl_buf_free(&spelt);
}

kl_status
kl_inline_func(kl_func *f, kl_pass_report *rep)
{
	func_edited(f);
	if (f->first_block == KL_NONE)
		return KL_OK;
	bool keep;
	inliner *s = pass_scratch(rep, inliner_free, inliner_new, &keep);
	s->ncalls = 0;
	s->copied = 0;
	for (uint32_t b = f->first_block; b != KL_NONE; b = f->blocks[b].next)
		for (uint32_t i = f->blocks[b].first; i != KL_NONE;
		     i = f->nodes[i].next)
			if (f->insts[i].op == KL_OP_CALL) {
				room(&s->calls, &s->calls_cap, s->ncalls + 1);
				s->calls[s->ncalls++] = i;
			}
	if (++s->run == 0) {
		memset(s->verdicts, 0,
		       (size_t)s->verdicts_cap * sizeof *s->verdicts);
		s->run = 1;
	}
	uint64_t inlined = 0, kept = 0, insts = f->ninsts, values = f->nvalues;
	for (uint32_t k = 0; k < s->ncalls; k++) {
		const verdict *v;
		const char *why = call_why(s, f, s->calls[k], &v);
		if (why) {
			kept++;
			if (rep && rep->verbose)
				note_kept(rep, f, s->calls[k], why);
			s->calls[k] = KL_NONE;
		} else {
			insts += v->grows_insts;
			values += v->grows_values;
		}
	}
	/* the tables grown once, not doubled and copied along the way */
	if (insts < KL_NONE && values < KL_NONE)
		func_presize(f, (uint32_t)insts, (uint32_t)values);
	/* Last first: what follows a call moves to its continuation once,
	 * not once for every call before it in the block. */
	for (uint32_t k = s->ncalls; k-- > 0;) {
		uint32_t c = s->calls[k];
		if (c == KL_NONE)
			continue;
		const verdict *v = judge(s, f, f->insts[c].w[1]);
		inline_call(s, f, c, v->g, v->nrets);
		inlined++;
	}
	kl_pass_report_count(rep, "calls", inlined);
	kl_pass_report_count(rep, "kept", kept);
	kl_pass_report_count(rep, "insts", s->copied);
	if (!keep)
		inliner_free(s);
	return KL_OK;
}
