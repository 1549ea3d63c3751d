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
 * a new block (its other blocks cannot run).
 *
 * An alloca of the callee (one in its entry block with a constant size:
 * a callee with any other is not inlined) moves to the start of the
 * caller's entry block, so that promote can still make it SSA values.
 * Its memory is then made once per call of the caller, not once per call
 * of the callee, and fresh memory reads as zero: so where the call was,
 * when it was not in the entry block (which runs once), stores of zero
 * fill it again before the body runs. The caller keeps that memory for
 * as long as it runs, so what it takes in is bounded (CALLER_BYTES).
 *
 * Only the calls in the function when the pass starts are inlined, each
 * with the callee's body as it is then: calls the copies bring in stay
 * calls, so recursion, direct or not, ends after one step. keel opt runs
 * a pass over every function before the next pass, in the module's
 * order, so a callee met earlier has had its own calls inlined.
 *
 * A callee is inlined only while small (MOST_SIZE), which is checked in
 * at most that many steps, once per callee and function (a hash table
 * of the function's callees): the pass is linear in the caller's size
 * plus what it copies, which is at most MOST_SIZE (and the stores of
 * zero) a call.
 */
#include <stdlib.h>
#include <string.h>

#include "../ir/ir.h"
#include "../util/util.h"
#include "edges.h"
#include "pass.h"

/* The largest callee inlined: its size counts each block, instruction,
 * parameter of a block but the entry's, value of a list (call arguments
 * and results, returned values) and destination with its arguments.
 * About what LLVM's default threshold lets through, and small enough
 * that a copy costs little more than the call. */
#define MOST_SIZE 60
/* The most bytes of allocas a callee may have. */
#define MOST_BYTES 256
/* The most bytes of allocas inlined into one caller, which keeps them
 * until it returns, in every frame of a recursion. */
#define CALLER_BYTES 1024

#define SPELL_(n) #n
#define SPELL(n) SPELL_(n)

/* What a callee is: whether it can be inlined, why not. */
typedef struct verdict {
	uint32_t sym;     /* the callee's symbol (KL_NONE: a free slot) */
	const kl_func *g; /* NULL: declared only */
	const char *why;  /* NULL: it can be inlined */
	uint32_t nrets;   /* its returns */
	uint32_t bytes;   /* of its allocas */
	/* What a copy adds at most: instructions (stores of zero and the
	 * continuation's jumps counted) and values. */
	uint32_t grows_insts, grows_values;
} verdict;

/* Scratch kept from one function to the next (a pass report's state). */
typedef struct inliner {
	uint32_t *calls; /* the calls to inline, KL_NONE for one kept */
	uint32_t ncalls, calls_cap;
	bool *reached;    /* by block of the caller: can it run? */
	uint32_t *stack;  /* blocks_reached's */
	uint32_t reached_cap;
	verdict *verdicts; /* open addressing by callee symbol */
	uint32_t verdicts_cap;
	uint32_t verdicts_mask; /* this function's part: a power of 2, - 1 */
	/* By value and block of the callee: the caller's value or block
	 * standing for it, valid where the stamp is the current one. */
	uint32_t *vmap, *vstamp, vcap;
	uint32_t *bmap, *bstamp, bcap;
	uint32_t stamp;
	kl_value *results; /* the call's results */
	kl_value *targets; /* what each result becomes */
	kl_value *args;    /* a return's arguments, as the caller's values */
	uint32_t results_cap, targets_cap, args_cap;
	uint32_t *allocas; /* copies of the callee's allocas */
	uint32_t allocas_cap;
	/* By the callee's signature reference: the caller's (filled as the
	 * copy meets it); and by module signature: the caller's reference
	 * to it, valid where the stamp is this function's run. */
	uint32_t *smap, smap_cap;
	uint32_t *sigref_of, *sigstamp, sigcap;
	uint32_t run;
	bool sigrefs_seen; /* the caller's own are in sigref_of */
	uint64_t copied; /* instructions copied into the function */
	/* The function calls a function returning twice, or takes its
	 * address: a longjmp could run its entry block again, where
	 * inlined allocas are not zeroed, so nothing is inlined into it. */
	bool caller_twice;
} inliner;

static void
inliner_free(void *p)
{
	inliner *s = p;
	if (!s)
		return;
	free(s->calls);
	free(s->reached);
	free(s->stack);
	free(s->verdicts);
	free(s->vmap);
	free(s->vstamp);
	free(s->bmap);
	free(s->bstamp);
	free(s->results);
	free(s->targets);
	free(s->args);
	free(s->allocas);
	free(s->smap);
	free(s->sigref_of);
	free(s->sigstamp);
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

/* g's value v (an operand: through aliases) as the caller's value. */
static kl_value
mapped(const inliner *s, const kl_func *g, uint32_t v)
{
	return (kl_value){ s->vmap[value_resolve(g, v)] };
}

/* Does the callee's entry block end by returning (then it alone runs)? */
static bool
entry_returns(const kl_func *g)
{
	uint32_t last = g->blocks[g->first_block].last;
	return last != KL_NONE && g->insts[last].op == KL_OP_RETURN;
}

/* The block of g copied after b: none when the entry alone is. */
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

static uint32_t
zero_stores(uint32_t size)
{
	uint32_t n = 0;
	for (uint32_t at = 0; at < size; at += zero_width(at, size))
		n++;
	return n;
}

/* What instruction i of g counts toward its size, or some number over
 * `left` once it is clear that it counts more: a br_table of a million
 * destinations is not walked to the end (each caller asks once). */
static uint64_t
inst_size(const kl_func *g, uint32_t i, uint64_t left)
{
	const kl_inst_data *d = &g->insts[i];
	uint64_t size = 1;
	switch (kl_op_table[d->op].format) {
	case KL_FMT_CALL:
	case KL_FMT_CALL_INDIRECT:
		size += list_len(&g->pool, d->w[0]) +
			(uint64_t)list_len(&g->pool, d->w[2]);
		break;
	case KL_FMT_RETURN:
		size += list_len(&g->pool, d->w[0]);
		break;
	default:
		break;
	}
	const uint32_t *dests, *args;
	uint32_t n = inst_dests(g, i, &dests);
	size += n;
	for (uint32_t k = 0; k < n && size <= left; k++) {
		uint32_t to, nargs;
		dest_read(&g->pool, dests[k], &to, &args, &nargs);
		size += nargs;
	}
	return size;
}

/* Does instruction i of g call a function returning twice, or take its
 * address (it may be called through that)? */
static bool
reaches_returns_twice(const kl_func *g, uint32_t i)
{
	uint8_t op = (uint8_t)g->insts[i].op;
	return (op == KL_OP_CALL || op == KL_OP_SYMBOL_ADDR) &&
	       module_returns_twice(g->module, g->insts[i].w[1]);
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

/* Mark value v of g as defined by the copy; false if it is no value. */
static bool
mark_defined(inliner *s, const kl_func *g, uint32_t v)
{
	if (v >= g->nvalues)
		return false;
	set_value(s, v, KL_NONE);
	return true;
}

/* Why instruction i, in block b of g, stops g being inlined (NULL: it
 * does not); adds what it costs to v. */
static const char *
inst_why(inliner *s, const kl_func *g, uint32_t b, uint32_t i, verdict *v)
{
	static const char broken[] = "does not verify";
	const kl_inst_data *d = &g->insts[i];
	if (kl_op_is_terminator((kl_opcode)d->op) && i != g->blocks[b].last)
		return broken;
	uint32_t nres = inst_num_results(g, i);
	for (uint32_t k = 0; k < nres; k++)
		if (!mark_defined(s, g, inst_result(g, i, k)))
			return broken;
	v->grows_insts++;
	v->grows_values += nres;
	if ((d->bits & IMM_POOLED) &&
	    (kl_op_table[d->op].format == KL_FMT_BINARY_IMM ||
	     kl_op_table[d->op].format == KL_FMT_ICMP_IMM) &&
	    d->w[2] >= g->nconsts)
		return broken;
	if (reaches_returns_twice(g, i))
		return "calls a function returning twice (setjmp) or takes its "
		       "address";
	switch (d->op) {
	case KL_OP_ALLOCA_DYN:
		return "alloca_dyn";
	case KL_OP_ALLOCA:
		if (b != g->first_block)
			return "alloca outside its entry block";
		v->bytes += d->w[1] > MOST_BYTES ? MOST_BYTES + 1 : d->w[1];
		if (v->bytes > MOST_BYTES)
			return "allocas over " SPELL(MOST_BYTES) " bytes";
		v->grows_insts += zero_stores(d->w[1]);
		break;
	case KL_OP_CALL_INDIRECT:
		if (d->w[1] >= g->nsigrefs ||
		    g->sigrefs[d->w[1]] >= g->module->nsigs)
			return broken;
		break;
	case KL_OP_RETURN:
		if (list_len(&g->pool, d->w[0]) !=
		    g->module->sigs[g->sig].nresults)
			return broken;
		v->nrets++;
		break;
	default:
		break;
	}
	return NULL;
}

/*
 * Why callee g cannot be inlined anywhere (NULL: it can), with what it
 * is in v. Its body is looked at up to the size limit, and checked as
 * far as copying it needs: every operand defined in the blocks copied,
 * every destination one of them, every terminator last in its block.
 */
static const char *
callee_why(inliner *s, const kl_func *g, verdict *v)
{
	static const char too_big[] = "too big (its size is over "
				      SPELL(MOST_SIZE) ")";
	const kl_module *m = g->module;
	if (g->first_block == KL_NONE || g->sig >= m->nsigs)
		return "no body";
	const kl_sig_data *sig = &m->sigs[g->sig];
	if (sig->variadic)
		return "variadic";
	maps_for(s, g);
	bool one_block = entry_returns(g);
	uint32_t entry = g->first_block;
	uint64_t size = 0;
	for (uint32_t b = entry; b != KL_NONE; b = next_copied(g, b,
							       one_block)) {
		s->bstamp[b] = s->stamp;
		const kl_pool *p = &g->pool;
		uint32_t pl = g->blocks[b].params, np = list_len(p, pl);
		if (b != entry) { /* (the entry's are the call's arguments) */
			v->grows_values += np;
			size += np;
		}
		if (++size > MOST_SIZE)
			return too_big;
		for (uint32_t k = 0; k < np; k++)
			if (!mark_defined(s, g, list_get(p, pl, k)))
				return "does not verify";
		for (uint32_t i = g->blocks[b].first; i != KL_NONE;
		     i = g->nodes[i].next) {
			if ((size += inst_size(g, i, MOST_SIZE - size)) >
			    MOST_SIZE)
				return too_big;
			const char *why = inst_why(s, g, b, i, v);
			if (why)
				return why;
		}
		uint32_t last = g->blocks[b].last;
		if (last == KL_NONE ||
		    !kl_op_is_terminator((kl_opcode)g->insts[last].op))
			return "does not verify";
	}
	if (list_len(&g->pool, g->blocks[entry].params) != sig->nparams)
		return "does not verify";
	if (!one_block) /* the continuation's parameters */
		v->grows_values += sig->nresults;
	if (v->bytes) { /* the zero stored */
		v->grows_insts++;
		v->grows_values++;
	}
	return copy_is_closed(s, g, one_block) ? NULL : "does not verify";
}

/* Room for the verdicts of the callees of f's ncalls calls, all free. */
static void
verdicts_for(inliner *s, uint32_t ncalls)
{
	uint32_t cap = 16;
	while (cap < 2 * (uint64_t)ncalls)
		cap *= 2;
	if (s->verdicts_cap < cap) {
		free(s->verdicts);
		s->verdicts = kl_calloc(cap, sizeof *s->verdicts);
		s->verdicts_cap = cap;
	}
	/* (only this function's part: a big one before costs no more) */
	s->verdicts_mask = cap - 1;
	for (uint32_t k = 0; k < cap; k++)
		s->verdicts[k].sym = KL_NONE;
}

/* What callee symbol `callee` of f is, looked at once for f. */
static const verdict *
judge(inliner *s, const kl_func *f, uint32_t callee)
{
	uint32_t mask = s->verdicts_mask, k = (callee * 2654435761u) & mask;
	while (s->verdicts[k].sym != KL_NONE && s->verdicts[k].sym != callee)
		k = (k + 1) & mask;
	verdict *v = &s->verdicts[k];
	if (v->sym == callee)
		return v;
	*v = (verdict){ .sym = callee, .g = f->module->syms[callee].func };
	v->why = !v->g     ? "declared, not defined"
		 : v->g == f ? "recursive"
			     : callee_why(s, v->g, v);
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

/* Stores of zero over the bytes of the n allocas copied, before call c. */
static void
zero_allocas(inliner *s, kl_func *f, uint32_t c, uint32_t n)
{
	static const kl_opcode by_width[9] = { [1] = KL_OP_ISTORE8,
					       [2] = KL_OP_ISTORE16,
					       [4] = KL_OP_ISTORE32,
					       [8] = KL_OP_STORE };
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
			kl_build_store(&b, by_width[w], zero, ptr, (int32_t)at);
		}
	}
}

/* f's reference to module signature sig: one it has (each signature
 * is referred to once, however many calls it has copied), else new. */
static uint32_t
caller_sigref(inliner *s, kl_func *f, uint32_t sig)
{
	if (!s->sigrefs_seen) {
		grow_map(&s->sigref_of, &s->sigstamp, &s->sigcap,
			 f->module->nsigs);
		for (uint32_t k = f->nsigrefs; k-- > 0;)
			if (f->sigrefs[k] < f->module->nsigs) {
				s->sigref_of[f->sigrefs[k]] = k;
				s->sigstamp[f->sigrefs[k]] = s->run;
			}
		s->sigrefs_seen = true;
	}
	if (s->sigstamp[sig] != s->run) {
		kl_signature ks = module_sig(f->module, sig);
		s->sigref_of[sig] = kl_func_add_sigref(f, &ks).id;
		s->sigstamp[sig] = s->run;
	}
	return s->sigref_of[sig];
}

/* Copy instruction i of g to the end of block `to` of f, or before
 * instruction `before` when that is not KL_NONE. Returns the copy. */
static uint32_t
place_copy(inliner *s, kl_func *f, const kl_func *g, uint32_t i, uint32_t to,
	   uint32_t before)
{
	if (g->insts[i].op == KL_OP_CALL_INDIRECT) {
		uint32_t r = g->insts[i].w[1];
		kl_grow(&s->smap, &s->smap_cap, sizeof *s->smap, r + 1);
		s->smap[r] = caller_sigref(s, f, g->sigrefs[r]);
	}
	uint32_t c = inst_copy(f, g, i, s->vmap, s->bmap, s->smap);
	s->copied++;
	if (before != KL_NONE)
		kl_inst_move_before(f, (kl_inst){ c }, (kl_inst){ before });
	else
		kl_inst_move_to_end(f, (kl_inst){ c }, (kl_block){ to });
	return c;
}

/* What return i of g returns, as the caller's values, into out. */
static void
returned(const inliner *s, const kl_func *g, uint32_t i, kl_value *out)
{
	uint32_t list = g->insts[i].w[0];
	for (uint32_t k = 0, n = list_len(&g->pool, list); k < n; k++)
		out[k] = mapped(s, g, list_get(&g->pool, list, k));
}

/* A return of g, in the copy: a jump to the continuation, with the
 * returned values when several returns meet there. */
static void
place_return(inliner *s, kl_func *f, const kl_func *g, uint32_t i,
	     uint32_t to, uint32_t cont, bool with_args)
{
	uint32_t n = with_args ? list_len(&g->pool, g->insts[i].w[0]) : 0;
	kl_grow(&s->args, &s->args_cap, sizeof *s->args, n);
	if (n)
		returned(s, g, i, s->args);
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
	for (uint32_t k = 0, n = inst_num_results(g, i); k < n; k++)
		set_value(s, inst_result(g, i, k), func_new_value(f));
}

/* New blocks of f for g's blocks but the entry, with their parameters,
 * placed after block `after`; then numbers for the results of every
 * instruction copied. Returns the last block placed (`after` if none). */
static uint32_t
make_blocks(inliner *s, kl_func *f, const kl_func *g, uint32_t after,
	    bool one_block)
{
	uint32_t entry = g->first_block;
	for (uint32_t b = next_copied(g, entry, one_block); b != KL_NONE;
	     b = g->blocks[b].next) {
		kl_block nb = kl_func_new_block(f);
		s->bmap[b] = nb.id;
		uint32_t pl = g->blocks[b].params;
		for (uint32_t k = 0; k < list_len(&g->pool, pl); k++) {
			uint32_t v = list_get(&g->pool, pl, k);
			kl_value p = kl_block_append_param(f, nb,
							   value_type(g, v));
			set_value(s, v, p.id);
		}
		kl_func_insert_block_after(f, nb, (kl_block){ after });
		after = nb.id;
	}
	for (uint32_t b = entry; b != KL_NONE; b = next_copied(g, b,
							       one_block))
		for (uint32_t i = g->blocks[b].first; i != KL_NONE;
		     i = g->nodes[i].next)
			number_results(s, f, g, i);
	return after;
}

/* g's allocas to the top of f's entry block, and stores of zero over
 * them before call c unless c is in the entry block. */
static void
move_allocas(inliner *s, kl_func *f, const kl_func *g, uint32_t c)
{
	uint32_t top = f->blocks[f->first_block].first, n = 0;
	for (uint32_t i = g->blocks[g->first_block].first; i != KL_NONE;
	     i = g->nodes[i].next) {
		if (g->insts[i].op != KL_OP_ALLOCA)
			continue;
		kl_grow(&s->allocas, &s->allocas_cap, sizeof *s->allocas,
			n + 1);
		s->allocas[n++] = place_copy(s, f, g, i, KL_NONE, top);
	}
	if (n && f->nodes[c].block != f->first_block)
		zero_allocas(s, f, c, n);
}

/* g's blocks but the entry filled in, and what followed call c moved to
 * a new block after theirs (the last is `after`), the continuation,
 * which g's returns jump to;
 * the call's results become its parameters, or with one return what
 * that returns. */
static void
copy_rest(inliner *s, kl_func *f, const kl_func *g, uint32_t c,
	  uint32_t after, uint32_t nres, uint32_t nrets)
{
	kl_block cont = kl_func_new_block(f);
	kl_func_insert_block_after(f, cont, (kl_block){ after });
	for (uint32_t k = 0; k < nres && nrets != 1; k++)
		s->targets[k] = kl_block_append_param(
			f, cont, value_type(f, s->results[k].id));
	for (uint32_t i = f->nodes[c].next, next; i != KL_NONE; i = next) {
		next = f->nodes[i].next;
		kl_inst_move_to_end(f, (kl_inst){ i }, cont);
	}
	for (uint32_t b = g->blocks[g->first_block].next; b != KL_NONE;
	     b = g->blocks[b].next)
		for (uint32_t i = g->blocks[b].first; i != KL_NONE;
		     i = g->nodes[i].next) {
			if (g->insts[i].op != KL_OP_RETURN) {
				place_copy(s, f, g, i, s->bmap[b], KL_NONE);
				continue;
			}
			if (nrets == 1)
				returned(s, g, i, s->targets);
			place_return(s, f, g, i, s->bmap[b], cont.id,
				     nrets != 1);
		}
}

/* Inline g at call c of f (call_why said it can be); nrets: g's
 * returns. */
static void
inline_call(inliner *s, kl_func *f, uint32_t c, const kl_func *g,
	    uint32_t nrets)
{
	maps_for(s, g);
	uint32_t entry = g->first_block, last = g->blocks[entry].last;
	bool one_block = entry_returns(g);
	/* the call's arguments stand for the entry's parameters */
	uint32_t pl = g->blocks[entry].params;
	for (uint32_t k = 0; k < list_len(&g->pool, pl); k++)
		set_value(s, list_get(&g->pool, pl, k),
			  value_resolve(f, list_get(&f->pool, f->insts[c].w[2],
						    k)));
	uint32_t nres = list_len(&f->pool, f->insts[c].w[0]);
	kl_grow(&s->results, &s->results_cap, sizeof *s->results, nres);
	kl_grow(&s->targets, &s->targets_cap, sizeof *s->targets, nres);
	for (uint32_t k = 0; k < nres; k++) {
		s->results[k].id = list_get(&f->pool, f->insts[c].w[0], k);
		s->targets[k] = KL_NO_VALUE;
	}
	uint32_t after = make_blocks(s, f, g, f->nodes[c].block, one_block);
	move_allocas(s, f, g, c);
	for (uint32_t i = g->blocks[entry].first; i != last;
	     i = g->nodes[i].next)
		if (g->insts[i].op != KL_OP_ALLOCA)
			place_copy(s, f, g, i, KL_NONE, c);
	if (one_block) {
		returned(s, g, last, s->targets);
	} else {
		copy_rest(s, f, g, c, after, nres, nrets);
		place_copy(s, f, g, last, KL_NONE, c);
	}
	kl_inst_remove(f, (kl_inst){ c });
	for (uint32_t k = 0; k < nres; k++)
		kl_value_set_alias(f, s->results[k], s->targets[k]);
}

/* Note why call c stays. */
static void
note_kept(kl_pass_report *rep, const kl_func *f, uint32_t c, const char *why)
{
	const kl_module *m = f->module;
	pass_note_func(rep, f);
	kl_buf_puts(&rep->notes, "kept the call to ");
	uint32_t sym = f->insts[c].w[1];
	if (sym < m->nsyms) {
		size_t n;
		const char *name = kl_sym_name(m, (kl_sym){ sym }, &n);
		kl_name_format(name, n, &rep->notes);
	} else {
		kl_buf_puts(&rep->notes, "?");
	}
	kl_buf_printf(&rep->notes, " (inst%u", c);
	uint32_t line = kl_inst_source_line(f, (kl_inst){ c });
	if (line)
		kl_buf_printf(&rep->notes, ", line %u", line);
	kl_buf_printf(&rep->notes, "): %s\n", why);
}

/* Decide each call of s->calls, noting those kept (and setting them
 * KL_NONE); returns how many are kept. Grows f's instruction and value
 * tables once, to what the copies will need. */
static uint64_t
decide(inliner *s, kl_func *f, kl_pass_report *rep)
{
	uint64_t kept = 0, insts = f->ninsts, values = f->nvalues, bytes = 0;
	for (uint32_t k = 0; k < s->ncalls; k++) {
		const verdict *v = NULL;
		uint32_t c = s->calls[k];
		const char *why;
		if (s->caller_twice)
			why = "the caller calls a function returning twice "
			      "(setjmp) or takes its address";
		else if (!s->reached[f->nodes[c].block])
			why = "in a block that cannot run";
		else
			why = call_why(s, f, c, &v);
		if (!why && bytes + v->bytes > CALLER_BYTES)
			why = "the caller's inlined allocas would pass "
			      SPELL(CALLER_BYTES) " bytes";
		if (why) {
			kept++;
			if (rep && rep->verbose)
				note_kept(rep, f, s->calls[k], why);
			s->calls[k] = KL_NONE;
			continue;
		}
		bytes += v->bytes;
		insts += v->grows_insts;
		values += v->grows_values;
	}
	/* the tables grown once, not doubled and copied along the way */
	if (insts < KL_NONE && values < KL_NONE)
		func_presize(f, (uint32_t)insts, (uint32_t)values);
	return kept;
}

/* The calls of f in s->calls, in layout order, and whether it calls a
 * function returning twice; the table of their callees' verdicts,
 * empty; the blocks that can run; a new run's stamp for the signature
 * references. */
static void
find_calls(inliner *s, kl_func *f)
{
	s->ncalls = 0;
	s->copied = 0;
	s->caller_twice = false;
	bool twice_here = f->module->nreturns_twice;
	for (uint32_t b = f->first_block; b != KL_NONE; b = f->blocks[b].next)
		for (uint32_t i = f->blocks[b].first; i != KL_NONE;
		     i = f->nodes[i].next) {
			if (f->insts[i].op == KL_OP_CALL) {
				kl_grow(&s->calls, &s->calls_cap,
					sizeof *s->calls, s->ncalls + 1);
				s->calls[s->ncalls++] = i;
			}
			if (twice_here && reaches_returns_twice(f, i))
				s->caller_twice = true;
		}
	verdicts_for(s, s->ncalls);
	if (s->ncalls) {
		void **arrays[] = { (void **)&s->reached, (void **)&s->stack };
		const size_t sizes[] = { sizeof *s->reached, sizeof *s->stack };
		pass_grow_all(&s->reached_cap, f->nblocks, 2, arrays, sizes);
		blocks_reached(f, s->reached, s->stack);
	}
	s->sigrefs_seen = false;
	if (++s->run == 0) {
		memset(s->sigstamp, 0, (size_t)s->sigcap * sizeof *s->sigstamp);
		s->run = 1;
	}
}

kl_status
kl_inline_func(kl_func *f, kl_pass_report *rep)
{
	func_edited(f);
	if (f->first_block == KL_NONE)
		return KL_OK;
	bool keep;
	inliner *s = pass_scratch(rep, inliner_free, inliner_new, &keep);
	find_calls(s, f);
	uint64_t kept = decide(s, f, rep), inlined = 0;
	/* Last first: what follows a call moves to its continuation once,
	 * not once for every call before it in its block. */
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
