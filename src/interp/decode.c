/*
 * decode.c -- turn an IR function into the interpreter's decoded form
 * (interp.h), the first time the function is called, and again when it
 * has changed since (kl_interp_call compares change counters).
 *
 * Algorithm: two walks over the blocks in layout order.
 *  1. Count, for every value, its uses that will stay register reads:
 *     a binary operation whose operand is an iconst takes the constant
 *     into the instruction (iadd v1, v2 with v2 = iconst 5 becomes
 *     iadd_imm v1, 5; isub 5, v1 becomes irsub_imm v1, 5; icmp with a
 *     constant first operand swaps its condition), and such uses do not
 *     count. An iconst with no remaining use emits nothing.
 *  2. Emit one dinst per remaining IR instruction, picking the opcode
 *     that already knows its width and variant. Branch arguments become
 *     sequential copies: the parallel copy params <- args is ordered by
 *     Boissinot et al.'s algorithm (CGO 2009), which needs one scratch
 *     register for a cycle such as a loop rotating its parameters. A jump
 *     does its copies itself (D_JUMPC); a brif or br_table edge with copies
 *     goes through a stub (D_COPYGO) emitted after the last block.
 * Branch targets are block numbers until a final pass (link) replaces
 * them with displacements (target pc - branch pc, as unsigned 32-bit) and
 * the fuel cost of the target block's first segment, and gives operand
 * lists and call descriptors as direct pointers in imm: the dispatch loop
 * then needs neither the code base nor the function in a register, which
 * lets the compiler keep the instruction pointer in one.
 *
 * Segments (interp.h): every emitted instruction records its IR
 * instruction and how many IR instructions follow it in its segment; a
 * dropped iconst still counts, so fuel and the instruction counter count
 * IR instructions exactly.
 *
 * The decoder relies on the function being verified, but checks every
 * index an instruction holds (values, blocks, symbols, signatures,
 * operand counts): a malformed function is refused with a message
 * instead of crashing. The layout's links it follows as they are: only
 * the library writes them, and every edit keeps them whole.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp.h"

#define STUB_REF 0x80000000u
#define SCRATCH_REG 0 /* the parallel copies' (reg()) */

typedef struct stub {
	uint32_t block;
	uint32_t copies, ncopies; /* pairs at slots[copies] */
} stub;

typedef struct decoder {
	kl_interp *it;
	const kl_func *f;
	const kl_module *m;
	dfunc *fn;
	uint32_t code_cap, slots_cap, calls_cap;
	uint32_t *block_pc;   /* by block: first pc; KL_NONE if not placed */
	uint32_t *block_cost; /* by block: length of its first segment */
	uint32_t *uses;       /* by value: register reads */
	/* by value: its register, given at its first reference (reg());
	 * KL_NONE before */
	uint32_t *regno;
	uint32_t next_reg;
	stub *stubs;
	uint32_t nstubs, stubs_cap;
	/* the segment being emitted */
	uint32_t cur_inst;
	uint32_t seg_pc, seg_len, seg_block, seg_call;
	/* parallel-copy scratch, indexed by register */
	uint32_t *loc, *pred;
	uint8_t *done;
	uint32_t *pdst, *psrc, *pout, *pready;
	uint32_t pcap;
	/* Where each value's alias chain ends (func_resolve_table), when
	 * some alias leads to another; else NULL. */
	const uint32_t *resolved;
	uint32_t *resolved_buf;
	uint32_t resolved_cap;
	bool failed;
} decoder;

static KL_PRINTF(2, 3) void
fail(decoder *dc, const char *fmt, ...)
{
	if (dc->failed)
		return;
	dc->failed = true;
	kl_buf *b = &dc->it->scratch;
	kl_buf_reset(b);
	va_list ap;
	va_start(ap, fmt);
	kl_buf_vprintf(b, fmt, ap);
	va_end(ap);
	if (dc->cur_inst != KL_NONE) {
		kl_buf_puts(b, " (");
		kl_print_inst(dc->f, (kl_inst){ dc->cur_inst }, b);
		kl_buf_putc(b, ')');
	}
}

/*
 * Is symbol s one added to the module after the interpreter's memory was
 * made? It has no object then (the symbols' ids were given when memory
 * was made, and the ids after them may be in use), so the function
 * cannot run: fail, saying so. A reset makes memory again, with it.
 */
static bool
late_symbol(decoder *dc, uint32_t s)
{
	if (s < dc->it->nsyms || s >= dc->m->nsyms)
		return false;
	fail(dc, "refers to a symbol added to the module after this "
		 "interpreter's memory was made (kl_interp_reset makes it "
		 "again, with the symbol)");
	return true;
}

/* ---- registers and types ---- */

/* The register of value v, after alias resolution. */
static uint32_t
reg(decoder *dc, uint32_t v)
{
	const kl_func *f = dc->f;
	uint32_t r = resolve_with(f, dc->resolved, v);
	if (r >= f->nvalues || (f->values[r].kind != VK_RESULT &&
				f->values[r].kind != VK_PARAM)) {
		fail(dc, "uses v%u, which is not defined", v);
		return 0;
	}
	/* A result of an instruction taken out of the layout (or in a block
	 * taken out), or a parameter of a block not placed, has a register
	 * that nothing writes: it would read 0. */
	if (value_def_block(f, r) == KL_NONE) {
		fail(dc, "uses v%u, defined %s not in the layout", v,
		     f->values[r].kind == VK_PARAM ? "in a block"
						   : "by an instruction");
		return 0;
	}
	/* Registers are numbered as values are first met, from 1 (0 is the
	 * scratch of parallel copies): a frame then holds as many as the
	 * function defines values, not its highest value number (a function
	 * whose only value was v999990 cleared 8 MB at every call). */
	if (dc->regno[r] == KL_NONE)
		dc->regno[r] = dc->next_reg++;
	return dc->regno[r];
}

static kl_type
vclass(decoder *dc, uint32_t v)
{
	uint32_t r = resolve_with(dc->f, dc->resolved, v);
	if (r >= dc->f->nvalues)
		return KL_TYPE_I64;
	kl_type c = kl_type_class(dc->m, value_type(dc->f, r));
	return c == KL_TYPE_NONE ? KL_TYPE_I64 : c;
}

/* 64 - width of an integer type (floats: of their bits). */
static uint8_t
shift_of(decoder *dc, kl_type cls)
{
	uint32_t bytes = kl_type_bytes(dc->m, cls);
	return (uint8_t)(64 - 8 * (bytes ? bytes : 8));
}

static bool
const_of(decoder *dc, uint32_t v, int64_t *imm)
{
	uint32_t r = resolve_with(dc->f, dc->resolved, v);
	if (r >= dc->f->nvalues || dc->f->values[r].kind != VK_RESULT)
		return false;
	uint32_t i = dc->f->values[r].def;
	if (i >= dc->f->ninsts || dc->f->insts[i].op != KL_OP_ICONST)
		return false;
	*imm = inst_imm(dc->f, i);
	return true;
}

/* ---- constant folding ---- */

static bool
foldable(kl_opcode op)
{
	switch (op) {
	case KL_OP_IADD: case KL_OP_ISUB: case KL_OP_IMUL:
	case KL_OP_SDIV: case KL_OP_UDIV: case KL_OP_SREM: case KL_OP_UREM:
	case KL_OP_BAND: case KL_OP_BOR: case KL_OP_BXOR:
	case KL_OP_ISHL: case KL_OP_USHR: case KL_OP_SSHR:
	case KL_OP_ROTL: case KL_OP_ROTR: case KL_OP_ICMP:
		return true;
	default:
		return false;
	}
}

/* May the first operand be the constant (with the operation adjusted)? */
static bool
x_foldable(kl_opcode op)
{
	switch (op) {
	case KL_OP_IADD: case KL_OP_ISUB: case KL_OP_IMUL:
	case KL_OP_BAND: case KL_OP_BOR: case KL_OP_BXOR: case KL_OP_ICMP:
		return true;
	default:
		return false;
	}
}

/* Which operand of instruction i is folded: 1 (y), 0 (x) or -1. */
static int
fold_pos(decoder *dc, uint32_t i, int64_t *imm)
{
	const kl_inst_data *d = &dc->f->insts[i];
	if (!foldable((kl_opcode)d->op))
		return -1;
	if (const_of(dc, d->w[2], imm))
		return 1;
	if (x_foldable((kl_opcode)d->op) && const_of(dc, d->w[1], imm))
		return 0;
	return -1;
}

/* ---- emission ---- */

static uint32_t
emit(decoder *dc, uint16_t op, uint8_t sh, uint8_t aux, uint32_t d,
     uint32_t a, uint32_t b, uint64_t imm)
{
	dfunc *fn = dc->fn;
	if (fn->ncode == dc->code_cap) {
		uint32_t cap = dc->code_cap;
		kl_grow(&fn->code, &cap, sizeof *fn->code, fn->ncode + 1);
		cap = dc->code_cap;
		kl_grow(&fn->pcs, &cap, sizeof *fn->pcs, fn->ncode + 1);
		dc->code_cap = cap;
	}
	uint32_t pc = fn->ncode++;
	fn->code[pc] = (dinst){ op, sh, aux, d, a, b, imm };
	/* seg_left holds the index in the segment until the segment ends. */
	fn->pcs[pc] = (dpc){ dc->cur_inst, dc->seg_len };
	return pc;
}

static uint32_t
slots_add(decoder *dc, uint32_t n)
{
	dfunc *fn = dc->fn;
	kl_grow(&fn->slots, &dc->slots_cap, sizeof *fn->slots,
		(uint64_t)fn->nslots + n);
	uint32_t at = fn->nslots;
	fn->nslots += n;
	return at;
}

/* A list of the registers of values vals[0..n) in slots[]. */
static uint32_t
reg_list(decoder *dc, const uint32_t *vals, uint32_t n)
{
	uint32_t at = slots_add(dc, n);
	for (uint32_t k = 0; k < n; k++)
		dc->fn->slots[at + k] = reg(dc, vals[k]);
	return at;
}

static void
seg_begin(decoder *dc, uint32_t block, uint32_t call)
{
	dc->seg_pc = dc->fn->ncode;
	dc->seg_len = 0;
	dc->seg_block = block;
	dc->seg_call = call;
}

/* The current segment ends with the instruction just counted. */
static void
seg_end(decoder *dc, uint32_t next_call)
{
	dfunc *fn = dc->fn;
	uint32_t len = dc->seg_len;
	for (uint32_t pc = dc->seg_pc; pc < fn->ncode; pc++)
		fn->pcs[pc].seg_left = len - 1 - fn->pcs[pc].seg_left;
	if (dc->seg_block != KL_NONE)
		dc->block_cost[dc->seg_block] = len;
	if (dc->seg_call != KL_NONE)
		fn->calls[dc->seg_call].cont_cost = len;
	seg_begin(dc, KL_NONE, next_call);
}

/* ---- branch edges ---- */

static void
pcopy_reserve(decoder *dc, uint32_t n)
{
	if (n <= dc->pcap)
		return;
	uint32_t cap = dc->pcap;
	kl_grow(&dc->pdst, &cap, sizeof *dc->pdst, n);
	cap = dc->pcap;
	kl_grow(&dc->psrc, &cap, sizeof *dc->psrc, n);
	cap = dc->pcap;
	kl_grow(&dc->pready, &cap, sizeof *dc->pready, n);
	cap = dc->pcap;
	/* pairs: n copies plus one per cycle, at most 2n pairs */
	kl_grow(&dc->pout, &cap, 4 * sizeof *dc->pout, n);
	dc->pcap = cap;
}

/*
 * The copies of the edge of destination word `dest` into slots[]; *block
 * gets the target. Returns the number of (dst, src) pairs, at *at.
 */
static uint32_t
edge_copies(decoder *dc, uint32_t dest, uint32_t *block, uint32_t *at)
{
	const kl_func *f = dc->f;
	const uint32_t *args;
	uint32_t b, n;
	*at = 0;
	if (!dest_read(&f->pool, dest, &b, &args, &n)) {
		fail(dc, "malformed branch destination");
		*block = 0;
		return 0;
	}
	*block = b;
	if (b >= f->nblocks || dc->block_pc[b] == KL_NONE) {
		fail(dc, "branches to block%u, which is not in the layout", b);
		return 0;
	}
	uint32_t np = list_len(&f->pool, f->blocks[b].params);
	if (np != n) {
		fail(dc, "passes %u argument%s to block%u, which has %u "
			 "parameter%s", n, n == 1 ? "" : "s", b, np,
		     np == 1 ? "" : "s");
		return 0;
	}
	pcopy_reserve(dc, np);
	const uint32_t *params = list_elems(&f->pool, f->blocks[b].params);
	uint32_t k = 0;
	for (uint32_t i = 0; i < np; i++) {
		uint32_t dst = reg(dc, params[i]), src = reg(dc, args[i]);
		if (dst != src) {
			dc->pdst[k] = dst;
			dc->psrc[k] = src;
			k++;
		}
	}
	if (k == 0 || dc->failed)
		return 0;
	uint32_t npairs = pcopy_sequence(dc->pdst, dc->psrc, k,
					 SCRATCH_REG, dc->loc, dc->pred,
					 dc->done, dc->pready, dc->pout);
	*at = slots_add(dc, 2 * npairs);
	memcpy(dc->fn->slots + *at, dc->pout, 2 * npairs * sizeof *dc->pout);
	return npairs;
}

/* A branch target: the block itself, or a stub doing the edge's copies. */
static uint32_t
edge_ref(decoder *dc, uint32_t dest)
{
	uint32_t block, at;
	uint32_t n = edge_copies(dc, dest, &block, &at);
	if (n == 0)
		return block;
	kl_grow(&dc->stubs, &dc->stubs_cap, sizeof *dc->stubs, dc->nstubs + 1);
	dc->stubs[dc->nstubs] = (stub){ block, at, n };
	return STUB_REF | dc->nstubs++;
}

static void
emit_jump(decoder *dc, uint32_t dest)
{
	uint32_t block, at;
	uint32_t n = edge_copies(dc, dest, &block, &at);
	if (n == 0)
		emit(dc, D_JUMP, 0, 0, block, 0, 0, 0);
	else
		emit(dc, D_JUMPC, 0, 0, block, at, n, 0);
}

static void
emit_br_table(decoder *dc, const kl_inst_data *d)
{
	const uint32_t *dests;
	uint32_t n = inst_dests(dc->f, dc->cur_inst, &dests);
	if (n == 0) {
		fail(dc, "br_table without a default destination");
		return;
	}
	uint32_t at = slots_add(dc, 2 * n);
	for (uint32_t k = 0; k < n; k++) {
		/* edge_ref may grow (move) slots: index them afterwards */
		uint32_t ref = edge_ref(dc, dests[k]);
		dc->fn->slots[at + 2 * k] = ref;
		dc->fn->slots[at + 2 * k + 1] = 0;
	}
	emit(dc, D_BR_TABLE, 0, 0, 0, reg(dc, d->w[0]), n - 1, at);
}

/* ---- instructions ---- */

/* Register form and immediate form of each foldable binary opcode. */
static void
binary_ops(kl_opcode op, uint16_t *rr, uint16_t *ri)
{
	switch (op) {
	case KL_OP_IADD: *rr = D_IADD; *ri = D_IADDI; break;
	case KL_OP_ISUB: *rr = D_ISUB; *ri = D_IADDI; break;
	case KL_OP_IMUL: *rr = D_IMUL; *ri = D_IMULI; break;
	case KL_OP_SDIV: *rr = D_SDIV; *ri = D_SDIVI; break;
	case KL_OP_UDIV: *rr = D_UDIV; *ri = D_UDIVI; break;
	case KL_OP_SREM: *rr = D_SREM; *ri = D_SREMI; break;
	case KL_OP_UREM: *rr = D_UREM; *ri = D_UREMI; break;
	case KL_OP_BAND: *rr = D_BAND; *ri = D_BANDI; break;
	case KL_OP_BOR: *rr = D_BOR; *ri = D_BORI; break;
	case KL_OP_BXOR: *rr = D_BXOR; *ri = D_BXORI; break;
	case KL_OP_ISHL: *rr = D_ISHL; *ri = D_ISHLI; break;
	case KL_OP_USHR: *rr = D_USHR; *ri = D_USHRI; break;
	case KL_OP_SSHR: *rr = D_SSHR; *ri = D_SSHRI; break;
	case KL_OP_ROTL: *rr = D_ROTL; *ri = D_ROTLI; break;
	case KL_OP_ROTR: *rr = D_ROTR; *ri = D_ROTRI; break;
	default: *rr = *ri = D_COUNT; break;
	}
}

static bool
is_shift(uint16_t dop)
{
	return dop >= D_ISHLI && dop <= D_ROTRI;
}

static void
decode_binary(decoder *dc, uint32_t i, const kl_inst_data *d)
{
	kl_opcode op = (kl_opcode)d->op;
	kl_type cls = vclass(dc, d->w[0]);
	uint8_t sh = shift_of(dc, cls);
	uint64_t mask = mask_of(sh);
	if (kl_type_is_float(dc->m, cls)) {
		bool f64 = cls == KL_TYPE_F64;
		uint16_t o = op == KL_OP_FADD ? D_FADD32 :
			     op == KL_OP_FSUB ? D_FSUB32 :
			     op == KL_OP_FMUL ? D_FMUL32 : D_FDIV32;
		if (f64)
			o = (uint16_t)(o + (D_FADD64 - D_FADD32));
		emit(dc, o, 0, 0, reg(dc, d->w[0]), reg(dc, d->w[1]),
		     reg(dc, d->w[2]), 0);
		return;
	}
	uint16_t rr, ri;
	binary_ops(op, &rr, &ri);
	if (rr == D_COUNT) {
		fail(dc, "the interpreter cannot run %s (no binary case)",
		     kl_op_name(op));
		return;
	}
	int64_t c;
	int pos = fold_pos(dc, i, &c);
	uint32_t res = reg(dc, d->w[0]);
	if (pos < 0) {
		emit(dc, rr, sh, 0, res, reg(dc, d->w[1]), reg(dc, d->w[2]), 0);
		return;
	}
	uint32_t x = reg(dc, d->w[pos == 1 ? 1 : 2]);
	uint64_t imm = (uint64_t)c & mask;
	if (pos == 0 && op == KL_OP_ISUB)
		ri = D_IRSUBI; /* c - y */
	else if (pos == 1 && op == KL_OP_ISUB)
		imm = (0 - imm) & mask; /* x - c = x + (-c) */
	if (is_shift(ri))
		imm = (uint64_t)c & (uint64_t)(63 - sh); /* amount mod width */
	emit(dc, ri, sh, 0, res, x, 0, imm);
}

static void
decode_binary_imm(decoder *dc, uint32_t i, const kl_inst_data *d)
{
	static const uint16_t map[][2] = {
		{ KL_OP_IADD_IMM, D_IADDI }, { KL_OP_IMUL_IMM, D_IMULI },
		{ KL_OP_SDIV_IMM, D_SDIVI }, { KL_OP_UDIV_IMM, D_UDIVI },
		{ KL_OP_SREM_IMM, D_SREMI }, { KL_OP_UREM_IMM, D_UREMI },
		{ KL_OP_IRSUB_IMM, D_IRSUBI }, { KL_OP_BAND_IMM, D_BANDI },
		{ KL_OP_BOR_IMM, D_BORI }, { KL_OP_BXOR_IMM, D_BXORI },
		{ KL_OP_ISHL_IMM, D_ISHLI }, { KL_OP_USHR_IMM, D_USHRI },
		{ KL_OP_SSHR_IMM, D_SSHRI },
	};
	uint16_t o = D_COUNT;
	for (size_t k = 0; k < sizeof map / sizeof map[0]; k++)
		if (map[k][0] == d->op)
			o = map[k][1];
	if (o == D_COUNT) {
		fail(dc, "the interpreter cannot run %s (no immediate case)",
		     kl_op_name(d->op));
		return;
	}
	uint8_t sh = shift_of(dc, vclass(dc, d->w[0]));
	uint64_t imm = (uint64_t)inst_imm(dc->f, i) & mask_of(sh);
	if (is_shift(o))
		imm &= (uint64_t)(63 - sh);
	emit(dc, o, sh, 0, reg(dc, d->w[0]), reg(dc, d->w[1]), 0, imm);
}

static void
decode_icmp(decoder *dc, uint32_t i, const kl_inst_data *d)
{
	uint8_t sh = shift_of(dc, vclass(dc, d->w[1]));
	uint32_t cc = d->aux;
	if (cc >= KL_ICC_COUNT) {
		fail(dc, "bad condition code");
		return;
	}
	uint32_t res = reg(dc, d->w[0]);
	if (d->op == KL_OP_ICMP_IMM) {
		uint64_t imm = (uint64_t)inst_imm(dc->f, i) & mask_of(sh);
		emit(dc, (uint16_t)(D_IEQI + cc), sh, 0, res, reg(dc, d->w[1]),
		     0, imm);
		return;
	}
	int64_t c;
	int pos = fold_pos(dc, i, &c);
	if (pos < 0) {
		emit(dc, (uint16_t)(D_IEQ + cc), sh, 0, res, reg(dc, d->w[1]),
		     reg(dc, d->w[2]), 0);
		return;
	}
	if (pos == 0)
		cc = intcc_swapped((kl_intcc)cc);
	emit(dc, (uint16_t)(D_IEQI + cc), sh, 0, res,
	     reg(dc, d->w[pos == 1 ? 1 : 2]), 0, (uint64_t)c & mask_of(sh));
}

static void
decode_unary(decoder *dc, const kl_inst_data *d)
{
	kl_opcode op = (kl_opcode)d->op;
	uint32_t res = reg(dc, d->w[0]), a = reg(dc, d->w[1]);
	kl_type rc = vclass(dc, d->w[0]), ac = vclass(dc, d->w[1]);
	uint8_t sh = shift_of(dc, rc), ash = shift_of(dc, ac);
	bool f64 = rc == KL_TYPE_F64, a64 = ac == KL_TYPE_F64;
	uint64_t sign = f64 ? 1ull << 63 : 1ull << 31;
	uint16_t o;
	uint8_t aux = 0;
	uint64_t imm = 0;
	switch (op) {
	case KL_OP_INEG: o = D_INEG; break;
	case KL_OP_BNOT: o = D_BNOT; break;
	case KL_OP_CLZ: o = D_CLZ; break;
	case KL_OP_CTZ: o = D_CTZ; break;
	case KL_OP_POPCNT: o = D_POPCNT; break;
	case KL_OP_BMASK: o = D_BMASK; break;
	case KL_OP_UEXTEND: o = D_COPY; break; /* registers are zero-extended */
	case KL_OP_BITCAST: o = D_COPY; break; /* same bits, same size */
	case KL_OP_COPY: o = D_COPY; break;
	case KL_OP_SEXTEND: o = D_SEXT; aux = ash; break;
	case KL_OP_IREDUCE: o = D_MASK; break;
	case KL_OP_FNEG: o = D_FXOR; imm = sign; break;
	case KL_OP_FABS: o = D_FAND; imm = (sign - 1); break;
	case KL_OP_SQRT: o = f64 ? D_SQRT64 : D_SQRT32; break;
	case KL_OP_FPROMOTE: o = D_FPROMOTE; break;
	case KL_OP_FDEMOTE: o = D_FDEMOTE; break;
	case KL_OP_FCVT_TO_SINT: o = a64 ? D_F64TOS : D_F32TOS; break;
	case KL_OP_FCVT_TO_UINT: o = a64 ? D_F64TOU : D_F32TOU; break;
	case KL_OP_FCVT_FROM_SINT:
		o = f64 ? D_STOF64 : D_STOF32;
		aux = ash;
		break;
	case KL_OP_FCVT_FROM_UINT:
		o = f64 ? D_UTOF64 : D_UTOF32;
		aux = ash;
		break;
	default:
		fail(dc, "the interpreter cannot run %s (no unary case)",
		     kl_op_name(op));
		return;
	}
	emit(dc, o, sh, aux, res, a, 0, imm);
}

static void
decode_load(decoder *dc, const kl_inst_data *d)
{
	const kl_opinfo *info = kl_op_info((kl_opcode)d->op);
	kl_type rc = vclass(dc, d->w[0]);
	uint32_t bytes = info->memw ? info->memw : kl_type_bytes(dc->m, rc);
	bool sign = d->op == KL_OP_SLOAD8 || d->op == KL_OP_SLOAD16 ||
		    d->op == KL_OP_SLOAD32;
	uint16_t o = bytes == 1 ? D_LOAD8 : bytes == 2 ? D_LOAD16 :
		     bytes == 4 ? D_LOAD32 : D_LOAD64;
	if (sign)
		o = bytes == 1 ? D_SLOAD8 : bytes == 2 ? D_SLOAD16 : D_SLOAD32;
	emit(dc, o, shift_of(dc, rc), 0, reg(dc, d->w[0]), reg(dc, d->w[1]),
	     0, (uint64_t)(int64_t)(int32_t)d->w[2]);
}

static void
decode_store(decoder *dc, const kl_inst_data *d)
{
	const kl_opinfo *info = kl_op_info((kl_opcode)d->op);
	uint32_t bytes = info->memw ? info->memw
				    : kl_type_bytes(dc->m, vclass(dc, d->w[0]));
	uint16_t o = bytes == 1 ? D_STORE8 : bytes == 2 ? D_STORE16 :
		     bytes == 4 ? D_STORE32 : D_STORE64;
	emit(dc, o, 0, 0, reg(dc, d->w[0]), reg(dc, d->w[1]), 0,
	     (uint64_t)(int64_t)(int32_t)d->w[2]);
}

/* A call: its descriptor, then the instruction; ends the segment. */
static void
decode_call(decoder *dc, uint32_t i, const kl_inst_data *d)
{
	const kl_func *f = dc->f;
	dfunc *fn = dc->fn;
	const uint32_t *args;
	uint32_t nargs = inst_args(f, i, &args);
	bool indirect = d->op == KL_OP_CALL_INDIRECT;
	dcall c = { KL_NONE, 0, KL_NONE, 0, 0, 0, 0, 0, 0, 0 };
	kl_signature sig;
	if (indirect) {
		uint32_t sr = d->w[1];
		if (sr >= f->nsigrefs || f->sigrefs[sr] == KL_NONE ||
		    nargs == 0) {
			fail(dc, "call_indirect with an unknown signature");
			return;
		}
		c.sig = f->sigrefs[sr];
		c.ptr = reg(dc, args[0]);
		args++;
		nargs--;
		sig = module_sig(dc->m, c.sig);
	} else {
		c.callee = d->w[1];
		if (late_symbol(dc, c.callee))
			return;
		if (c.callee >= dc->m->nsyms ||
		    dc->m->syms[c.callee].kind != KL_SYM_FUNC) {
			fail(dc, "calls a symbol that is not a function");
			return;
		}
		sig = kl_sym_signature(dc->m, (kl_sym){ c.callee });
	}
	if (nargs < sig.num_params ||
	    (nargs > sig.num_params && !sig.variadic)) {
		fail(dc, "passes %u argument%s for %u parameter%s", nargs,
		     nargs == 1 ? "" : "s", sig.num_params,
		     sig.num_params == 1 ? "" : "s");
		return;
	}
	uint32_t nres = inst_num_results(f, i);
	if (nres != sig.num_results) {
		fail(dc, "has %u result%s, the callee returns %u", nres,
		     nres == 1 ? "" : "s", sig.num_results);
		return;
	}
	c.nargs = nargs;
	c.args = reg_list(dc, args, nargs);
	c.types = slots_add(dc, nargs);
	for (uint32_t k = 0; k < nargs; k++)
		fn->slots[c.types + k] = vclass(dc, args[k]);
	c.nresults = nres;
	c.results = slots_add(dc, nres);
	for (uint32_t k = 0; k < nres; k++)
		fn->slots[c.results + k] = reg(dc, inst_result(f, i, k));
	c.rtypes = slots_add(dc, nres);
	for (uint32_t k = 0; k < nres; k++)
		fn->slots[c.rtypes + k] = vclass(dc, inst_result(f, i, k));
	kl_grow(&fn->calls, &dc->calls_cap, sizeof *fn->calls, fn->ncalls + 1);
	uint32_t ci = fn->ncalls++;
	fn->calls[ci] = c;
	emit(dc, indirect ? D_CALL_INDIRECT : D_CALL, 0, 0, ci, 0, 0, 0);
	dc->seg_len++;
	seg_end(dc, ci);
}

static void
decode_return(decoder *dc, uint32_t i)
{
	const uint32_t *vals;
	uint32_t n = inst_args(dc->f, i, &vals);
	kl_signature sig = module_sig(dc->m, dc->f->sig);
	if (n != sig.num_results) {
		fail(dc, "returns %u value%s, the signature has %u", n,
		     n == 1 ? "" : "s", sig.num_results);
		return;
	}
	emit(dc, D_RETURN, 0, 0, 0, reg_list(dc, vals, n), n, 0);
}

/* One IR instruction (the segment bookkeeping is done by the caller). */
static void
decode_inst(decoder *dc, uint32_t i)
{
	const kl_inst_data *d = &dc->f->insts[i];
	const kl_opinfo *info = kl_op_info((kl_opcode)d->op);
	switch (info->format) {
	case KL_FMT_CONST:
		if (d->op == KL_OP_ICONST) {
			/* (before reg(): a dropped one takes no register) */
			if (dc->uses[d->w[0]] == 0)
				return; /* every use took the constant */
			uint8_t sh = shift_of(dc, vclass(dc, d->w[0]));
			emit(dc, D_MOVI, sh, 0, reg(dc, d->w[0]), 0, 0,
			     (uint64_t)inst_imm(dc->f, i) & mask_of(sh));
		} else {
			uint64_t bits = (uint64_t)inst_imm(dc->f, i);
			if (d->op == KL_OP_F32CONST)
				bits &= 0xffffffffu;
			emit(dc, D_MOVI, 0, 0, reg(dc, d->w[0]), 0, 0, bits);
		}
		return;
	case KL_FMT_UNARY:
		decode_unary(dc, d);
		return;
	case KL_FMT_BINARY:
		decode_binary(dc, i, d);
		return;
	case KL_FMT_BINARY_IMM:
		decode_binary_imm(dc, i, d);
		return;
	case KL_FMT_ICMP:
	case KL_FMT_ICMP_IMM:
		decode_icmp(dc, i, d);
		return;
	case KL_FMT_FCMP: {
		bool f64 = vclass(dc, d->w[1]) == KL_TYPE_F64;
		if (d->aux >= KL_FCC_COUNT) {
			fail(dc, "bad condition code");
			return;
		}
		emit(dc, f64 ? D_FCMP64 : D_FCMP32, 0, d->aux,
		     reg(dc, d->w[0]), reg(dc, d->w[1]), reg(dc, d->w[2]), 0);
		return;
	}
	case KL_FMT_TERNARY: {
		const uint32_t *a;
		if (inst_args(dc->f, i, &a) != 3) {
			fail(dc, "select needs 3 operands");
			return;
		}
		emit(dc, D_SELECT, 0, 0, reg(dc, d->w[0]), reg(dc, a[1]),
		     reg(dc, a[2]), reg(dc, a[0]));
		return;
	}
	case KL_FMT_LOAD:
		decode_load(dc, d);
		return;
	case KL_FMT_STORE:
		decode_store(dc, d);
		return;
	case KL_FMT_ALLOCA:
		emit(dc, D_ALLOCA, 0, 0, reg(dc, d->w[0]), 0, 0, d->w[1]);
		return;
	case KL_FMT_ALLOCA_DYN:
		emit(dc, D_ALLOCA_DYN, 0, 0, reg(dc, d->w[0]), reg(dc, d->w[1]),
		     0, 0);
		return;
	case KL_FMT_SYMBOL:
		if (late_symbol(dc, d->w[1]))
			return;
		if (d->w[1] >= dc->m->nsyms) {
			fail(dc, "symbol_addr of an unknown symbol");
			return;
		}
		emit(dc, D_MOVI, 0, 0, reg(dc, d->w[0]), 0, 0,
		     (uint64_t)(d->w[1] + 1) << 32);
		return;
	case KL_FMT_JUMP:
		emit_jump(dc, d->w[0]);
		return;
	case KL_FMT_BRIF: {
		uint32_t t = edge_ref(dc, d->w[1]), e = edge_ref(dc, d->w[2]);
		emit(dc, D_BRIF, 0, 0, t, reg(dc, d->w[0]), e, 0);
		return;
	}
	case KL_FMT_BR_TABLE:
		emit_br_table(dc, d);
		return;
	case KL_FMT_RETURN:
		decode_return(dc, i);
		return;
	case KL_FMT_TRAP:
		emit(dc, D_TRAP, 0, d->aux, 0, 0, 0, d->w[0]);
		return;
	case KL_FMT_CALL:
	case KL_FMT_CALL_INDIRECT:
		KL_UNREACHABLE(); /* decode_block handles calls */
	}
	fail(dc, "unknown instruction format");
}

/* ---- whole functions ---- */

static void
count_uses(decoder *dc)
{
	const kl_func *f = dc->f;
	for (uint32_t b = f->first_block; b != KL_NONE && !dc->failed;
	     b = f->blocks[b].next) {
		for (uint32_t i = f->blocks[b].first; i != KL_NONE;
		     i = f->nodes[i].next) {
			const uint32_t *a;
			uint32_t n = inst_args(f, i, &a);
			int64_t c;
			int skip = fold_pos(dc, i, &c);
			for (uint32_t k = 0; k < n; k++) {
				uint32_t r = resolve_with(f, dc->resolved,
							  a[k]);
				if ((int)k != skip && r < f->nvalues)
					dc->uses[r]++;
			}
			const uint32_t *dests;
			uint32_t nd = inst_dests(f, i, &dests);
			for (uint32_t k = 0; k < nd; k++) {
				const uint32_t *da;
				uint32_t t, na;
				if (!dest_read(&f->pool, dests[k], &t, &da,
					       &na))
					continue;
				for (uint32_t j = 0; j < na; j++) {
					uint32_t r = resolve_with(
						f, dc->resolved, da[j]);
					if (r < f->nvalues)
						dc->uses[r]++;
				}
			}
		}
	}
}

static void
decode_block(decoder *dc, uint32_t b)
{
	const kl_func *f = dc->f;
	seg_begin(dc, b, KL_NONE);
	dc->block_pc[b] = dc->fn->ncode;
	uint32_t last = KL_NONE;
	for (uint32_t i = f->blocks[b].first; i != KL_NONE && !dc->failed;
	     i = f->nodes[i].next) {
		dc->cur_inst = i;
		if (last != KL_NONE && kl_op_is_terminator(
					       (kl_opcode)f->insts[last].op)) {
			fail(dc, "follows the terminator of block%u", b);
			break;
		}
		last = i;
		kl_opcode op = (kl_opcode)f->insts[i].op;
		if (kl_op_is_call(op)) {
			decode_call(dc, i, &f->insts[i]);
			continue;
		}
		decode_inst(dc, i);
		dc->seg_len++;
		if (kl_op_is_terminator(op))
			seg_end(dc, KL_NONE);
	}
	if (!dc->failed &&
	    (last == KL_NONE ||
	     !kl_op_is_terminator((kl_opcode)f->insts[last].op))) {
		dc->cur_inst = KL_NONE;
		fail(dc, "block%u does not end with a terminator", b);
	}
}

/* Block numbers and stubs -> pcs and costs. */
static uint32_t
resolve_ref(decoder *dc, uint32_t ref, uint32_t *cost)
{
	if (ref & STUB_REF) {
		const stub *s = &dc->stubs[ref & ~STUB_REF];
		*cost = dc->block_cost[s->block];
		return dc->fn->ncode - dc->nstubs + (ref & ~STUB_REF);
	}
	*cost = dc->block_cost[ref];
	return dc->block_pc[ref];
}

static void
link(decoder *dc)
{
	dfunc *fn = dc->fn;
	uint32_t end = fn->ncode;
	dc->cur_inst = KL_NONE;
	for (uint32_t k = 0; k < dc->nstubs; k++) {
		const stub *s = &dc->stubs[k];
		emit(dc, D_COPYGO, 0, 0, s->block, s->copies, s->ncopies, 0);
		fn->pcs[fn->ncode - 1].seg_left = 0;
	}
	for (uint32_t pc = 0; pc < fn->ncode; pc++) {
		dinst *x = &fn->code[pc];
		uint32_t c1, c2;
		switch (x->op) {
		case D_JUMP:
			x->d = resolve_ref(dc, x->d, &c1) - pc;
			x->imm = c1;
			break;
		case D_JUMPC:
			x->d = resolve_ref(dc, x->d, &c1) - pc;
			x->imm = (uint64_t)(uintptr_t)(fn->slots + x->a);
			x->a = c1;
			break;
		case D_COPYGO:
			if (pc >= end)
				x->d = resolve_ref(dc, x->d, &c1) - pc;
			x->imm = (uint64_t)(uintptr_t)(fn->slots + x->a);
			break;
		case D_BRIF:
			x->d = resolve_ref(dc, x->d, &c1) - pc;
			x->b = resolve_ref(dc, x->b, &c2) - pc;
			x->imm = c1 | (uint64_t)c2 << 32;
			break;
		case D_BR_TABLE:
			for (uint32_t k = 0; k <= x->b; k++) {
				uint32_t *e = fn->slots + x->imm + 2 * k;
				e[0] = resolve_ref(dc, e[0], &e[1]) - pc;
			}
			x->imm = (uint64_t)(uintptr_t)(fn->slots + x->imm);
			break;
		case D_RETURN:
			x->imm = (uint64_t)(uintptr_t)(fn->slots + x->a);
			break;
		case D_CALL:
		case D_CALL_INDIRECT:
			x->imm = (uint64_t)(uintptr_t)(fn->calls + x->d);
			break;
		default:
			break;
		}
	}
}

static void
decoder_free(decoder *dc)
{
	free(dc->block_pc);
	free(dc->block_cost);
	free(dc->uses);
	free(dc->regno);
	free(dc->stubs);
	free(dc->loc);
	free(dc->pred);
	free(dc->done);
	free(dc->pdst);
	free(dc->psrc);
	free(dc->pout);
	free(dc->pready);
	free(dc->resolved_buf);
}

void
dfunc_free(dfunc *fn)
{
	if (!fn)
		return;
	free(fn->code);
	free(fn->pcs);
	free(fn->slots);
	free(fn->calls);
	free(fn);
}

static void
decode_entry(decoder *dc)
{
	const kl_func *f = dc->f;
	uint32_t entry = f->first_block;
	kl_signature sig = module_sig(dc->m, f->sig);
	if (entry == KL_NONE) {
		fail(dc, "has no entry block");
		return;
	}
	uint32_t np = list_len(&f->pool, f->blocks[entry].params);
	if (np != sig.num_params) {
		fail(dc, "entry block has %u parameter%s, the signature %u",
		     np, np == 1 ? "" : "s", sig.num_params);
		return;
	}
	dc->fn->nparams = np;
	dc->fn->params = reg_list(dc, list_elems(&f->pool,
						 f->blocks[entry].params), np);
	dc->fn->entry_cost = dc->block_cost[entry];
}

dfunc *
decode_func(kl_interp *it, uint32_t sym)
{
	const kl_func *f = it->m->syms[sym].func;
	decoder dc = { 0 };
	dc.it = it;
	dc.f = f;
	dc.m = it->m;
	dc.cur_inst = KL_NONE;
	dc.fn = kl_calloc(1, sizeof *dc.fn);
	dc.fn->f = f;
	dc.fn->sym = sym;
	dc.fn->edits = f->edits;
	it->decoded++;
	/* Never a NULL slot table: operand lists point into it even when
	 * they are empty (a function without a single value). */
	kl_grow(&dc.fn->slots, &dc.slots_cap, sizeof *dc.fn->slots, 1);
	if ((uint64_t)f->nvalues + 1 >= UINT32_MAX / 8) {
		fail(&dc, "has too many values");
	} else {
		uint32_t nv = f->nvalues ? f->nvalues : 1;
		dc.regno = kl_malloc(nv * sizeof *dc.regno);
		memset(dc.regno, 0xff, nv * sizeof *dc.regno);
		dc.next_reg = SCRATCH_REG + 1;
		/* (registers by the most there can be, until they are
		 * numbered) */
		uint32_t nr = f->nvalues + 1, nb = f->nblocks ? f->nblocks : 1;
		dc.block_pc = kl_malloc(nb * sizeof *dc.block_pc);
		dc.block_cost = kl_calloc(nb, sizeof *dc.block_cost);
		dc.uses = kl_calloc(nv, sizeof *dc.uses);
		dc.loc = kl_malloc(nr * sizeof *dc.loc);
		dc.pred = kl_malloc(nr * sizeof *dc.pred);
		dc.done = kl_calloc(nr, 1);
		memset(dc.loc, 0xff, nr * sizeof *dc.loc);
		memset(dc.pred, 0xff, nr * sizeof *dc.pred);
		memset(dc.block_pc, 0xff, nb * sizeof *dc.block_pc);
		dc.resolved = func_resolve_table(f, &dc.resolved_buf,
						 &dc.resolved_cap);
		/* Number the placed blocks first: branches may go forward. */
		for (uint32_t b = f->first_block; b != KL_NONE;
		     b = f->blocks[b].next)
			dc.block_pc[b] = 0;
		count_uses(&dc);
		for (uint32_t b = f->first_block; b != KL_NONE && !dc.failed;
		     b = f->blocks[b].next)
			decode_block(&dc, b);
		if (!dc.failed)
			decode_entry(&dc);
		if (!dc.failed)
			link(&dc);
		dc.fn->nregs = dc.next_reg;
	}
	decoder_free(&dc);
	if (dc.failed) {
		kl_buf msg = { 0 };
		kl_buf_append(&msg, it->scratch.data, it->scratch.len);
		kl_buf_reset(&it->scratch);
		put_sym(it, sym, &it->scratch);
		raise_fail(it, "cannot run %s: %s",
			   it->scratch.data ? it->scratch.data : "",
			   msg.data ? msg.data : "");
		kl_buf_free(&msg);
		dfunc_free(dc.fn);
		return NULL;
	}
	return dc.fn;
}

/* ---- parallel copies ---- */

uint32_t
pcopy_sequence(const uint32_t *dst, const uint32_t *src, uint32_t n,
	       uint32_t tmp, uint32_t *loc, uint32_t *pred, uint8_t *done,
	       uint32_t *ready, uint32_t *out)
{
	uint32_t nready = 0, npairs = 0, todo = n;
	for (uint32_t i = 0; i < n; i++) {
		loc[src[i]] = src[i]; /* its value is still needed, there */
		pred[dst[i]] = src[i];
	}
	for (uint32_t i = 0; i < n; i++)
		if (loc[dst[i]] == KL_NONE) /* not a source: free to write */
			ready[nready++] = dst[i];
	while (todo > 0) {
		while (nready > 0) {
			uint32_t b = ready[--nready];
			uint32_t a = pred[b], c = loc[a];
			out[2 * npairs] = b;
			out[2 * npairs + 1] = c;
			npairs++;
			done[b] = 1;
			loc[a] = b;
			if (a == c && pred[a] != KL_NONE)
				ready[nready++] = a; /* copied out, writable */
		}
		uint32_t b = dst[--todo];
		if (!done[b]) {
			/* b is on a cycle: save its value, then it is free */
			out[2 * npairs] = tmp;
			out[2 * npairs + 1] = b;
			npairs++;
			loc[b] = tmp;
			ready[nready++] = b;
		}
	}
	for (uint32_t i = 0; i < n; i++) {
		loc[src[i]] = loc[dst[i]] = KL_NONE;
		pred[dst[i]] = KL_NONE;
		done[dst[i]] = 0;
	}
	return npairs;
}
