/*
 * emit_asm_func.c -- one keel function as x86-64 code (emit_asm.h): the
 * frame, the blocks in emit_asm_order.c's order, block parameters as
 * copies on each edge, calls and returns.
 *
 * The frame, below the saved %rbp: the callee-saved registers values
 * live in (emit_asm_alloc.c), the 8-byte slots of the others, then the
 * constant allocas of the entry block (zeroed on entry), then a scratch
 * area for parallel copies and a buffer for a call's many results.
 * %rsp stays 16-byte aligned between instructions, so every call site
 * is aligned; other allocas and alloca_dyn move %rsp down by multiples
 * of 16, and `leave` takes them back.
 *
 * Calls follow the System V AMD64 ABI for what C can say: integer
 * arguments in %rdi %rsi %rdx %rcx %r8 %r9 (narrow ones extended to 64
 * bits, by their type's sign), floats in %xmm0..%xmm7, the rest on the
 * stack, %al the number of vector registers of a variadic call, whose
 * f32 extra arguments are promoted to double as C promotes them. A
 * function returns up to two integers in %rax and %rdx and up to two
 * floats in %xmm0 and %xmm1; with more of either, all its results go to
 * a buffer whose address the caller passes first, in %rdi.
 */
#include "emit_asm.h"

static const char *const int_regs[6] = { "%rdi", "%rsi", "%rdx",
					 "%rcx", "%r8",  "%r9" };

void
asm_line(asm_func *c, const char *fmt, ...)
{
	va_list ap;
	kl_buf_putc(c->out, '\t');
	va_start(ap, fmt);
	kl_buf_vprintf(c->out, fmt, ap);
	va_end(ap);
	kl_buf_putc(c->out, '\n');
}

/* Every register the code names, at 1, 2, 4 and 8 bytes: first those
 * values live in (c->loc's register r is row r - 1), then the scratch
 * ones. */
static const char *const registers[][4] = {
	{ "%bl", "%bx", "%ebx", "%rbx" },
	{ "%r12b", "%r12w", "%r12d", "%r12" },
	{ "%r13b", "%r13w", "%r13d", "%r13" },
	{ "%r14b", "%r14w", "%r14d", "%r14" },
	{ "%r15b", "%r15w", "%r15d", "%r15" },
	{ "%sil", "%si", "%esi", "%rsi" },
	{ "%r8b", "%r8w", "%r8d", "%r8" },
	{ "%r9b", "%r9w", "%r9d", "%r9" },
	{ "%r10b", "%r10w", "%r10d", "%r10" },
	{ "%r11b", "%r11w", "%r11d", "%r11" },
	{ "%al", "%ax", "%eax", "%rax" },
	{ "%cl", "%cx", "%ecx", "%rcx" },
	{ "%dl", "%dx", "%edx", "%rdx" },
	{ "%dil", "%di", "%edi", "%rdi" },
};

uint32_t
asm_size_index(uint32_t bytes)
{
	return bytes == 1 ? 0 : bytes == 2 ? 1 : bytes == 4 ? 2 : 3;
}

char
asm_suffix(uint32_t bytes)
{
	return "bwlq"[asm_size_index(bytes)];
}

const char *
asm_reg(const char *reg64, uint32_t bytes)
{
	for (size_t r = 0; r < sizeof registers / sizeof registers[0]; r++)
		if (strcmp(registers[r][3], reg64) == 0)
			return registers[r][asm_size_index(bytes)];
	return reg64;
}

void
asm_ext_line(kl_buf *out, const char *from, uint32_t bytes, bool sign,
	     const char *reg64)
{
	static const char *const forms[2][4] = {
		{ "movzbl", "movzwl", "movl", "movq" },
		{ "movsbq", "movswq", "movslq", "movq" },
	};
	uint32_t k = asm_size_index(bytes);
	/* (a 32-bit write clears the upper half: zeros need no q form) */
	kl_buf_printf(out, "\t%s %s, %s\n", forms[sign][k], from,
		      asm_reg(reg64, sign || k == 3 ? 8 : 4));
}

const char *
asm_slot_at(asm_func *c, kl_value v, uint32_t bytes)
{
	v = kl_value_resolve(c->f, v);
	int32_t loc = c->loc[v.id];
	if (loc > 0)
		return registers[loc - 1][asm_size_index(bytes)];
	char *t = c->texts[c->next_text++ % 8];
	/* (a value no code defines: the junk slot below the others) */
	int32_t at = loc < 0 ? c->slots - 8 * (-loc - 1)
			     : c->slots - 8 * (int32_t)c->nslots;
	snprintf(t, sizeof c->texts[0], "%d(%%rbp)", at);
	return t;
}

const char *
asm_slot(asm_func *c, kl_value v)
{
	return asm_slot_at(c, v, 8);
}

bool
asm_in_reg(asm_func *c, kl_value v)
{
	return c->loc[kl_value_resolve(c->f, v).id] > 0;
}

void
asm_float_in(asm_func *c, kl_value v, const char *xmm)
{
	asm_line(c, "movq %s, %s", asm_slot(c, v), xmm);
}

bool
asm_results_in_memory(const kl_module *m, kl_signature sig)
{
	uint32_t ints = 0, floats = 0;
	for (uint32_t k = 0; k < sig.num_results; k++) {
		if (kl_type_is_float(m, sig.results[k]))
			floats++;
		else
			ints++;
	}
	return ints > 2 || floats > 2;
}

static void
block_label(asm_func *c, kl_block b, kl_buf *out)
{
	kl_buf_printf(out, ".Lf%ub%u", kl_func_sym(c->f).id, b.id);
}

bool
asm_same_place(asm_func *c, kl_value a, kl_value b)
{
	return c->loc[kl_value_resolve(c->f, a).id] ==
	       c->loc[kl_value_resolve(c->f, b).id];
}

/* v's place as an index of c->marked: registers, then slots, then the
 * junk slot. */
static uint32_t
place_index(asm_func *c, kl_value v)
{
	int32_t loc = c->loc[kl_value_resolve(c->f, v).id];
	return loc > 0   ? (uint32_t)loc - 1
	       : loc < 0 ? ASM_NREGS + (uint32_t)(-loc - 1)
			 : ASM_NREGS + c->nslots;
}

/* Move v's 64 bits to where p lives, through %rax from memory to
 * memory. */
static void
move(asm_func *c, kl_value v, kl_value p)
{
	if (asm_in_reg(c, v) || asm_in_reg(c, p)) {
		asm_line(c, "movq %s, %s", asm_slot(c, v), asm_slot(c, p));
	} else {
		asm_line(c, "movq %s, %%rax", asm_slot(c, v));
		asm_line(c, "movq %%rax, %s", asm_slot(c, p));
	}
}

/* Does edge d of i copy anything? */
static bool
edge_copies_some(asm_func *c, kl_inst i, uint32_t d)
{
	const kl_func *f = c->f;
	kl_block dest = kl_inst_dest(f, i, d);
	for (uint32_t k = 0; k < kl_inst_dest_num_args(f, i, d); k++)
		if (!asm_same_place(c, kl_inst_dest_arg(f, i, d, k),
				    kl_block_param(f, dest, k)))
			return true;
	return false;
}

/* The copies of an edge's arguments into dest's parameters: through the
 * scratch area when one argument is one of those parameters (a swap). */
static void
edge_copies(asm_func *c, kl_inst i, uint32_t d)
{
	const kl_func *f = c->f;
	kl_block dest = kl_inst_dest(f, i, d);
	uint32_t n = kl_inst_dest_num_args(f, i, d);
	/* mark each written parameter's place (with the parameter, or n
	 * for two parameters in one place), then look up the arguments':
	 * one read from a place written before it is a conflict */
	c->epoch++;
	for (uint32_t p = 0; p < n; p++) {
		if (asm_same_place(c, kl_inst_dest_arg(f, i, d, p),
				   kl_block_param(f, dest, p)))
			continue;
		uint32_t at = place_index(c, kl_block_param(f, dest, p));
		c->marked[at].param = c->marked[at].epoch == c->epoch ? n : p;
		c->marked[at].epoch = c->epoch;
	}
	bool overlap = false;
	for (uint32_t k = 0; k < n && !overlap; k++) {
		uint32_t at = place_index(c, kl_inst_dest_arg(f, i, d, k));
		overlap = c->marked[at].epoch == c->epoch &&
			  c->marked[at].param != k;
	}
	for (uint32_t k = 0; k < n; k++) {
		kl_value a = kl_inst_dest_arg(f, i, d, k);
		kl_value p = kl_block_param(f, dest, k);
		if (asm_same_place(c, a, p))
			continue;
		if (!overlap) {
			move(c, a, p);
			continue;
		}
		asm_line(c, "movq %s, %%rax", asm_slot(c, a));
		asm_line(c, "movq %%rax, %d(%%rbp)",
			 c->scratch + 8 * (int32_t)k);
	}
	for (uint32_t k = 0; overlap && k < n; k++) {
		kl_value a = kl_inst_dest_arg(f, i, d, k);
		kl_value p = kl_block_param(f, dest, k);
		if (asm_same_place(c, a, p))
			continue;
		if (asm_in_reg(c, p)) {
			asm_line(c, "movq %d(%%rbp), %s",
				 c->scratch + 8 * (int32_t)k, asm_slot(c, p));
			continue;
		}
		asm_line(c, "movq %d(%%rbp), %%rax",
			 c->scratch + 8 * (int32_t)k);
		asm_line(c, "movq %%rax, %s", asm_slot(c, p));
	}
}

/* Go along edge d of i: its copies, then a jump (none to next, the
 * block laid out after). */
static void
take_edge(asm_func *c, kl_inst i, uint32_t d, kl_block next)
{
	edge_copies(c, i, d);
	kl_block dest = kl_inst_dest(c->f, i, d);
	if (dest.id == next.id)
		return;
	kl_buf_puts(c->out, "\tjmp ");
	block_label(c, dest, c->out);
	kl_buf_putc(c->out, '\n');
}

/* Is i an icmp whose result only the branch right after it reads? Its
 * comparison then sets the flags the branch jumps on. */
static bool
fused(asm_func *c, kl_inst i)
{
	const kl_func *f = c->f;
	kl_opcode op = kl_inst_opcode(f, i);
	kl_inst next = kl_inst_next(f, i);
	bool one_flag = op == KL_OP_FCMP &&
			asm_fcc_suffix(kl_inst_cond(f, i), false);
	return (op == KL_OP_ICMP || op == KL_OP_ICMP_IMM || one_flag) &&
	       next.id != KL_NONE && kl_inst_opcode(f, next) == KL_OP_BRIF &&
	       kl_value_resolve(f, kl_inst_arg(f, next, 0)).id ==
		       kl_inst_result(f, i, 0).id &&
	       c->uses[kl_inst_result(f, i, 0).id] == 1;
}

static void
jump_to(asm_func *c, const char *cc, kl_block b)
{
	kl_buf_printf(c->out, "\tj%s ", cc);
	block_label(c, b, c->out);
	kl_buf_putc(c->out, '\n');
}

/* brif: a jump on the condition (the fused compare's, or the value
 * tested at its width), then each arm's copies; an arm without copies
 * is jumped to straight. */
static void
branch(asm_func *c, kl_inst i, kl_block next)
{
	const kl_func *f = c->f;
	kl_value cond = kl_inst_arg(f, i, 0);
	kl_inst def = kl_value_def_inst(f, kl_value_resolve(f, cond));
	/* the jumps' conditions: when true, when false */
	const char *yes = "ne", *no = "e";
	if (def.id != KL_NONE && kl_inst_next(f, def).id == i.id &&
	    fused(c, def)) {
		if (kl_inst_opcode(f, def) == KL_OP_FCMP) {
			uint32_t cc = asm_float_flags(c, def);
			yes = asm_fcc_suffix(cc, false);
			no = asm_fcc_suffix(cc, true);
		} else {
			uint32_t cc = asm_compare_flags(c, def);
			yes = asm_icc_suffix(cc, false);
			no = asm_icc_suffix(cc, true);
		}
	} else {
		asm_test_value(c, cond);
	}
	kl_block then = kl_inst_dest(f, i, 0), other = kl_inst_dest(f, i, 1);
	bool then_copies = edge_copies_some(c, i, 0);
	bool else_copies = edge_copies_some(c, i, 1);
	if (!then_copies && !(then.id == next.id && !else_copies)) {
		jump_to(c, yes, then);
		take_edge(c, i, 1, next);
	} else if (!else_copies) {
		jump_to(c, no, other);
		take_edge(c, i, 0, next);
	} else {
		uint32_t away = asm_label(c->e);
		asm_line(c, "j%s .Lk%u", no, away);
		take_edge(c, i, 0, KL_NO_BLOCK);
		asm_line(c, ".Lk%u:", away);
		take_edge(c, i, 1, next);
	}
}

/* br_table: a bounds check, then a table of 32-bit offsets from the
 * table to each entry's edge. */
static void
table(asm_func *c, kl_inst i, kl_block next)
{
	const kl_func *f = c->f;
	uint32_t n = kl_inst_num_dests(f, i) - 1;
	uint32_t tab = asm_label(c->e), first = c->e->nlabels;
	c->e->nlabels += n;
	asm_load_ext(c, kl_inst_arg(f, i, 0), false, "%rax");
	asm_line(c, "movl $%u, %%ecx", n);
	asm_line(c, "cmpq %%rcx, %%rax");
	asm_line(c, "jae .Lk%u", first + n);
	asm_line(c, "leaq .Lk%u(%%rip), %%rcx", tab);
	asm_line(c, "movslq (%%rcx,%%rax,4), %%rax");
	asm_line(c, "addq %%rcx, %%rax");
	asm_line(c, "jmp *%%rax");
	asm_line(c, ".Lk%u:", tab);
	for (uint32_t k = 0; k < n; k++)
		asm_line(c, ".long .Lk%u-.Lk%u", first + k, tab);
	c->e->nlabels++; /* first + n: the default's edge */
	for (uint32_t k = 0; k < n; k++) {
		asm_line(c, ".Lk%u:", first + k);
		take_edge(c, i, k + 1, KL_NO_BLOCK);
	}
	asm_line(c, ".Lk%u:", first + n);
	take_edge(c, i, 0, next);
}

/* The type an argument travels as: the callee's parameter type, or the
 * argument's own for a variadic call's extra ones. */
static kl_type
arg_type(asm_func *c, kl_signature sig, kl_value a, uint32_t k)
{
	return k < sig.num_params ? sig.params[k] : kl_value_type(c->f, a);
}

/* Put a call's arguments where the ABI wants them; the bytes of stack
 * it took (to give back after the call). */
static uint32_t
pass_args(asm_func *c, kl_inst i, kl_signature sig, uint32_t first, bool hidden)
{
	const kl_func *f = c->f;
	const kl_module *m = c->e->m;
	uint32_t nargs = kl_inst_num_args(f, i) - first;
	uint32_t ints = hidden, floats = 0, stack = 0;
	for (uint32_t k = 0; k < nargs; k++) {
		kl_value a = kl_inst_arg(f, i, first + k);
		if (kl_type_is_float(m, arg_type(c, sig, a, k)) ? floats++ >= 8
								: ints++ >= 6)
			stack++;
	}
	uint32_t bytes = (stack * 8 + 15) & ~15u;
	if (bytes)
		asm_line(c, "subq $%u, %%rsp", bytes);
	ints = hidden;
	floats = stack = 0;
	for (uint32_t k = 0; k < nargs; k++) {
		kl_value a = kl_inst_arg(f, i, first + k);
		kl_type t = arg_type(c, sig, a, k);
		bool is_float = kl_type_is_float(m, t);
		bool promote = is_float && k >= sig.num_params &&
			       kl_type_bytes(m, t) == 4;
		bool sign = kl_type_refinement(m, t) == KL_REFINE_SIGNED;
		if (is_float && floats < 8) {
			char xmm[16];
			snprintf(xmm, sizeof xmm, "%%xmm%u", floats++);
			asm_float_in(c, a, xmm);
			if (promote)
				asm_line(c, "cvtss2sd %s, %s", xmm, xmm);
		} else if (!is_float && ints < 6) {
			asm_load_ext(c, a, sign, int_regs[ints]);
			ints++;
		} else {
			if (promote) {
				asm_float_in(c, a, "%xmm8");
				asm_line(c, "cvtss2sd %%xmm8, %%xmm8");
				asm_line(c, "movq %%xmm8, %%rax");
			} else if (is_float) {
				asm_line(c, "movq %s, %%rax", asm_slot(c, a));
			} else {
				asm_load_ext(c, a, sign, "%rax");
			}
			asm_line(c, "movq %%rax, %u(%%rsp)", 8 * stack++);
		}
	}
	if (hidden)
		asm_line(c, "leaq %d(%%rbp), %%rdi", c->results);
	if (sig.variadic)
		asm_line(c, "movl $%u, %%eax", floats);
	return bytes;
}

void
asm_result_place(const kl_module *m, kl_signature sig, uint32_t k, char *buf,
		 size_t size)
{
	uint32_t ints = 0, floats = 0;
	for (uint32_t j = 0; j < k; j++) {
		if (kl_type_is_float(m, sig.results[j]))
			floats++;
		else
			ints++;
	}
	if (kl_type_is_float(m, sig.results[k]))
		snprintf(buf, size, "%%xmm%u", floats);
	else
		snprintf(buf, size, "%s", ints ? "%rdx" : "%rax");
}

static void
call(asm_func *c, kl_inst i)
{
	const kl_func *f = c->f;
	const kl_module *m = c->e->m;
	bool indirect = kl_inst_opcode(f, i) == KL_OP_CALL_INDIRECT;
	kl_signature sig = indirect ? kl_func_sigref_signature(
					      f, kl_inst_sigref(f, i))
				    : kl_sym_signature(m, kl_inst_callee(f, i));
	bool hidden = asm_results_in_memory(m, sig);
	uint32_t bytes = pass_args(c, i, sig, indirect, hidden);
	if (indirect) {
		asm_line(c, "movq %s, %%r11",
			 asm_slot(c, kl_inst_arg(f, i, 0)));
		asm_line(c, "call *%%r11");
	} else {
		asm_line(c, "call %s",
			 asm_call_target(c->e, kl_inst_callee(f, i)));
	}
	if (bytes)
		asm_line(c, "addq $%u, %%rsp", bytes);
	for (uint32_t k = 0; k < kl_inst_num_results(f, i); k++) {
		const char *to = asm_slot(c, kl_inst_result(f, i, k));
		if (hidden) {
			asm_line(c, "movq %d(%%rbp), %%rax",
				 c->results + 8 * (int32_t)k);
			asm_line(c, "movq %%rax, %s", to);
		} else {
			char reg[8];
			asm_result_place(m, sig, k, reg, sizeof reg);
			asm_line(c, "movq %s, %s", reg, to);
		}
	}
}

/* Save the callee-saved registers values live in, at the top of the
 * frame, or restore them. */
static void
save_regs(asm_func *c, bool save)
{
	int32_t at = 0;
	for (uint32_t r = 0; r < ASM_NSAVED; r++) {
		if (!(c->used_regs >> r & 1))
			continue;
		at -= 8;
		if (save)
			asm_line(c, "movq %s, %d(%%rbp)", registers[r][3], at);
		else
			asm_line(c, "movq %d(%%rbp), %s", at, registers[r][3]);
	}
}

static void
ret(asm_func *c, kl_inst i)
{
	const kl_func *f = c->f;
	const kl_module *m = c->e->m;
	kl_signature sig = kl_func_signature(f);
	if (c->result_ptr)
		asm_line(c, "movq %d(%%rbp), %%rcx", c->result_ptr);
	for (uint32_t k = 0; k < kl_inst_num_args(f, i); k++) {
		const char *from = asm_slot(c, kl_inst_arg(f, i, k));
		if (c->result_ptr) {
			asm_line(c, "movq %s, %%rax", from);
			asm_line(c, "movq %%rax, %u(%%rcx)", 8 * k);
		} else {
			char reg[8];
			asm_result_place(m, sig, k, reg, sizeof reg);
			asm_line(c, "movq %s, %s", from, reg);
		}
	}
	save_regs(c, false);
	asm_line(c, "leave");
	asm_line(c, "ret");
}

static void
terminator(asm_func *c, kl_inst i, kl_block next)
{
	const kl_func *f = c->f;
	switch (kl_inst_opcode(f, i)) {
	case KL_OP_JUMP:
		take_edge(c, i, 0, next);
		break;
	case KL_OP_BRIF:
		branch(c, i, next);
		break;
	case KL_OP_BR_TABLE:
		table(c, i, next);
		break;
	case KL_OP_RETURN:
		ret(c, i);
		break;
	default: {
		uint32_t user = 0;
		kl_trapcode t = kl_inst_trap_code(f, i, &user);
		char kind[32];
		if (t == KL_TRAP_USER)
			snprintf(kind, sizeof kind, "user %u", user);
		else
			snprintf(kind, sizeof kind, "%s", kl_trapcode_name(t));
		asm_trap(c, i, kind);
	}
	}
}

int32_t
asm_frame_addr(asm_func *c, kl_value v)
{
	kl_inst def = kl_value_def_inst(c->f, kl_value_resolve(c->f, v));
	return def.id != KL_NONE && asm_in_frame(c, def) ? c->alloca_at[def.id]
							 : 0;
}

bool
asm_unplaced(asm_func *c, kl_value v)
{
	v = kl_value_resolve(c->f, v);
	kl_inst def = kl_value_def_inst(c->f, v);
	return def.id != KL_NONE && asm_in_frame(c, def) &&
	       c->uses[v.id] == c->addr_uses[v.id];
}

bool
asm_in_frame(asm_func *c, kl_inst i)
{
	const kl_func *f = c->f;
	return kl_inst_opcode(f, i) == KL_OP_ALLOCA &&
	       kl_inst_block(f, i).id == kl_func_first_block(f).id &&
	       kl_inst_align(f, i) <= 16 &&
	       (uint64_t)kl_inst_imm(f, i) <= ASM_FRAME_ALLOCA_MAX;
}

/* Lay out the frame: slots, frame allocas, scratch, results. Offsets
 * from %rbp, which is 16-byte aligned. */
static void
plan_frame(asm_func *c)
{
	const kl_func *f = c->f;
	const kl_module *m = c->e->m;
	uint64_t below = 0;
	for (uint32_t r = 0; r < ASM_NSAVED; r++)
		below += c->used_regs >> r & 1 ? 8 : 0;
	/* the slots, and a junk one past them */
	c->slots = -(int32_t)below - 8;
	below += 8 * ((uint64_t)c->nslots + 1);
	/* the entry block's constant allocas, aligned up to 16 */
	kl_block entry = kl_func_first_block(f);
	below = (below + 15) & ~(uint64_t)15;
	c->alloca_hi = -(int32_t)below;
	for (kl_inst i = kl_block_first_inst(f, entry); i.id != KL_NONE;
	     i = kl_inst_next(f, i)) {
		uint32_t align = kl_inst_align(f, i);
		if (!asm_in_frame(c, i))
			continue;
		below += (uint64_t)kl_inst_imm(f, i);
		below = (below + align - 1) & ~(uint64_t)(align - 1);
		c->alloca_at[i.id] = -(int32_t)below;
	}
	below = (below + 15) & ~(uint64_t)15;
	c->alloca_lo = -(int32_t)below;
	/* the most a branch passes, and the most results a call gets */
	uint32_t most_args = 0, most_results = 0;
	for (kl_block b = entry; b.id != KL_NONE; b = kl_block_next(f, b)) {
		kl_inst t = kl_block_last_inst(f, b);
		for (uint32_t d = 0;
		     t.id != KL_NONE && d < kl_inst_num_dests(f, t); d++)
			if (kl_inst_dest_num_args(f, t, d) > most_args)
				most_args = kl_inst_dest_num_args(f, t, d);
		for (kl_inst i = kl_block_first_inst(f, b); i.id != KL_NONE;
		     i = kl_inst_next(f, i))
			if (kl_inst_num_results(f, i) > most_results)
				most_results = kl_inst_num_results(f, i);
	}
	below += 8 * (uint64_t)most_args;
	c->scratch = -(int32_t)below;
	below += 8 * (uint64_t)most_results;
	c->results = -(int32_t)below;
	if (asm_results_in_memory(m, kl_func_signature(f))) {
		below += 8;
		c->result_ptr = -(int32_t)below;
	}
	c->frame = (uint32_t)((below + 15) & ~(uint64_t)15);
}

/* Entry: the frame, the parameters from their registers or the stack
 * into their slots, the frame allocas zeroed. */
static void
prologue(asm_func *c)
{
	const kl_func *f = c->f;
	const kl_module *m = c->e->m;
	asm_line(c, "pushq %%rbp");
	asm_line(c, "movq %%rsp, %%rbp");
	if (c->frame)
		asm_line(c, "subq $%u, %%rsp", c->frame);
	save_regs(c, true);
	uint32_t ints = 0, floats = 0, stack = 0;
	if (c->result_ptr)
		asm_line(c, "movq %s, %d(%%rbp)", int_regs[ints++],
			 c->result_ptr);
	kl_block entry = kl_func_first_block(f);
	for (uint32_t k = 0; k < kl_block_num_params(f, entry); k++) {
		kl_value p = kl_block_param(f, entry, k);
		const char *to = asm_slot(c, p);
		if (kl_type_is_float(m, kl_value_type(f, p)) && floats < 8) {
			asm_line(c, "movq %%xmm%u, %s", floats++, to);
		} else if (!kl_type_is_float(m, kl_value_type(f, p)) &&
			   ints < 6) {
			asm_line(c, "movq %s, %s", int_regs[ints++], to);
		} else {
			asm_line(c, "movq %u(%%rbp), %%rax", 16 + 8 * stack++);
			asm_line(c, "movq %%rax, %s", to);
		}
	}
	if (c->alloca_lo < c->alloca_hi) {
		asm_line(c, "leaq %d(%%rbp), %%rdi", c->alloca_lo);
		asm_line(c, "movl $%d, %%ecx", c->alloca_hi - c->alloca_lo);
		asm_line(c, "xorl %%eax, %%eax");
		asm_line(c, "rep stosb");
	}
}

static void
count_uses(asm_func *c)
{
	const kl_func *f = c->f;
	for (kl_block b = kl_func_first_block(f); b.id != KL_NONE;
	     b = kl_block_next(f, b))
		for (kl_inst i = kl_block_first_inst(f, b); i.id != KL_NONE;
		     i = kl_inst_next(f, i)) {
			for (uint32_t k = 0; k < kl_inst_num_args(f, i); k++)
				c->uses[kl_value_resolve(f,
							 kl_inst_arg(f, i, k))
						.id]++;
			kl_opcode op = kl_inst_opcode(f, i);
			if (kl_op_can_load(op) && op != KL_OP_CALL &&
			    op != KL_OP_CALL_INDIRECT)
				c->addr_uses[kl_value_resolve(
						     f, kl_inst_arg(f, i, 0))
						     .id]++;
			else if (kl_op_can_store(op) && op != KL_OP_CALL &&
				 op != KL_OP_CALL_INDIRECT)
				c->addr_uses[kl_value_resolve(
						     f, kl_inst_arg(f, i, 1))
						     .id]++;
			for (uint32_t d = 0; d < kl_inst_num_dests(f, i); d++)
				for (uint32_t k = 0;
				     k < kl_inst_dest_num_args(f, i, d); k++)
					c->uses[kl_value_resolve(
							f, kl_inst_dest_arg(
								   f, i, d, k))
							.id]++;
		}
}

void
asm_emit_func(asm_emitter *e, const kl_func *f)
{
	asm_func c = { .e = e, .f = f, .out = e->out };
	c.loc = kl_calloc(kl_func_value_bound(f) + 1, sizeof *c.loc);
	c.alloca_at = kl_calloc(kl_func_inst_bound(f) + 1, sizeof *c.alloca_at);
	c.uses = kl_calloc(kl_func_value_bound(f) + 1, sizeof *c.uses);
	c.addr_uses = kl_calloc(kl_func_value_bound(f) + 1,
				sizeof *c.addr_uses);
	count_uses(&c);
	asm_order(&c);
	asm_allocate(&c);
	c.marked = kl_calloc(ASM_NREGS + c.nslots + 1, sizeof *c.marked);
	plan_frame(&c);
	prologue(&c);
	for (uint32_t k = 0; k < c.norder; k++) {
		kl_block b = c.order[k];
		kl_block next = k + 1 < c.norder ? c.order[k + 1] : KL_NO_BLOCK;
		block_label(&c, b, c.out);
		kl_buf_puts(c.out, ":\n");
		for (kl_inst i = kl_block_first_inst(f, b); i.id != KL_NONE;
		     i = kl_inst_next(f, i)) {
			kl_opcode op = kl_inst_opcode(f, i);
			if (op == KL_OP_CALL || op == KL_OP_CALL_INDIRECT)
				call(&c, i);
			else if (kl_op_is_terminator(op))
				terminator(&c, i, next);
			else if (!fused(&c, i))
				asm_emit_inst(&c, i);
		}
	}
	asm_order_free(&c);
	free(c.marked);
	free(c.loc);
	free(c.alloca_at);
	free(c.uses);
	free(c.addr_uses);
}
