/*
 * pass.c -- the registry of passes and pass reports.
 *
 * Every pass is one row of the table below; `keel opt -p NAME`, the `pass`
 * test command and any program using kl_pass_find see exactly this list.
 */
#include <string.h>

#include "../util/util.h"
#include "pass.h"

/* in the order promote.c reports them (test_promote checks) */
static const char *const promote_counters[] = { "slots", "params",
						"promoted", "kept", NULL };

/* in the order dce.c reports them */
static const char *const dce_counters[] = { "blocks", "insts", "params",
					    NULL };

/* in the order sccp.c reports them */
static const char *const sccp_counters[] = { "values", "jumps", "blocks",
					     "params", NULL };

/* in the order simplify.c reports them */
static const char *const simplify_counters[] = { "jumps", "skipped",
						 "merged", NULL };

/* in the order cse.c reports them */
static const char *const cse_counters[] = { "insts", "loads", NULL };

/* in the order licm.c reports them */
static const char *const licm_counters[] = { "insts", "loads", "preheaders",
					     NULL };

/* in the order refine.c reports them */
static const char *const refine_counters[] = { "signed", "unsigned",
					       "pointers", NULL };

/* in the order inline.c reports them */
static const char *const inline_counters[] = { "calls", "kept", "insts",
					       NULL };

/* in the order combine.c reports them */
static const char *const combine_counters[] = { "insts", NULL };

/* in the order dse.c reports them */
static const char *const dse_counters[] = { "stores", NULL };

static const kl_pass passes[] = {
	{ "promote", "promote stack slots (allocas) to SSA values and block "
		     "parameters (mem2reg)", kl_promote_func, promote_counters,
	  "mem2reg" },
	{ "dce", "dead code elimination: unreachable blocks, unused values "
		 "and block parameters",
	  kl_dce_func, dce_counters, "die" },
	{ "sccp", "sparse conditional constant propagation: constants, "
		  "branches on them, blocks that cannot run",
	  kl_sccp_func, sccp_counters, "constprop ipsccp" },
	{ "simplify", "control-flow simplification: one-way branches made "
		      "jumps, empty blocks skipped, straight lines merged",
	  kl_simplify_func, simplify_counters, "simplifycfg" },
	{ "cse", "common subexpression elimination: an instruction computing "
		 "what a dominating one computed goes, and a load of what "
		 "memory still holds",
	  kl_cse_func, cse_counters, "gvn early-cse" },
	{ "licm", "loop-invariant code motion: an instruction without effect "
		  "whose operands come from outside a loop moves to before it",
	  kl_licm_func, licm_counters, "loop-invariant-code-motion" },
	{ "refine", "type refinement: integers become signed, unsigned or "
		    "pointers (s32, u8, ptr...) as their uses say",
	  kl_refine_func, refine_counters, NULL },
	{ "inline", "inlining: a call to a small function of the module is "
		    "replaced by a copy of its body",
	  kl_inline_func, inline_counters, "always-inline" },
	{ "combine", "peephole rewrites: identities, constants made "
		     "immediates, chains folded, powers of two made shifts",
	  kl_combine_func, combine_counters, "instcombine instsimplify" },
	{ "dse", "dead store elimination: a store overwritten before "
		 "anything can read it, or to an alloca nothing reads again",
	  kl_dse_func, dse_counters, NULL },
};

const kl_pass *
kl_pass_find(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof passes / sizeof passes[0]; i++)
		if (strlen(passes[i].name) == len &&
		    memcmp(passes[i].name, name, len) == 0)
			return &passes[i];
	return NULL;
}

const kl_pass *
kl_passes(uint32_t *n)
{
	*n = (uint32_t)(sizeof passes / sizeof passes[0]);
	return passes;
}

void *
pass_scratch(kl_pass_report *rep, void (*free_fn)(void *),
	     void *(*make)(void), bool *kept)
{
	bool keep = rep && (rep->state_free == free_fn ||
			    (!rep->state && !rep->state_free));
	void *s = keep ? rep->state : NULL;
	if (!s) {
		s = make();
		if (keep) {
			rep->state = s;
			rep->state_free = free_fn;
		}
	}
	*kept = keep;
	return s;
}

kl_status
kl_pass_report_count(kl_pass_report *r, const char *name, uint64_t n)
{
	if (!r)
		return KL_OK;
	if (!name)
		return KL_ERR_INVALID;
	for (uint32_t i = 0; i < r->num_counters; i++) {
		/* Names are a pass's literals: the pointer usually matches. */
		if (r->counters[i].name == name ||
		    strcmp(r->counters[i].name, name) == 0) {
			r->counters[i].value += n;
			return KL_OK;
		}
	}
	if (r->num_counters == KL_PASS_MAX_COUNTERS)
		return KL_ERR_RANGE;
	r->counters[r->num_counters].name = name;
	r->counters[r->num_counters].value = n;
	r->num_counters++;
	return KL_OK;
}

uint64_t
kl_pass_report_get(const kl_pass_report *r, const char *name)
{
	for (uint32_t i = 0; i < r->num_counters; i++)
		if (strcmp(r->counters[i].name, name) == 0)
			return r->counters[i].value;
	return 0;
}

void
kl_pass_report_free(kl_pass_report *r)
{
	if (!r)
		return;
	kl_buf_free(&r->notes);
	r->num_counters = 0;
	if (r->state && r->state_free)
		r->state_free(r->state);
	r->state = NULL;
	r->state_free = NULL;
}

void
pass_note_func(kl_pass_report *rep, const kl_func *f)
{
	size_t n;
	const char *name = kl_sym_name(kl_func_module(f), kl_func_sym(f), &n);
	kl_name_format(name, n, &rep->notes);
	kl_buf_puts(&rep->notes, ": ");
}

void
pass_grow_all(uint32_t *cap, uint64_t need, size_t n, void **arrays[],
	      const size_t sizes[])
{
	if (*cap >= need)
		return;
	uint32_t got = *cap;
	for (size_t k = 0; k < n; k++) {
		got = *cap;
		kl_grow(arrays[k], &got, sizes[k], need);
	}
	*cap = got;
}
