/*
 * emit_asm.c -- kl_emit_asm: a keel module as x86-64 assembly (GNU as,
 * AT&T syntax, System V ELF), through keel.h alone (emit_asm.h lists
 * the files).
 *
 *   keel emit-asm FILE.kl > out.s
 *   cc out.s -o out && ./out
 *
 * The program prints what `keel run FILE.kl` prints on standard output
 * and exits with its status; docs/emit-asm.md says where they differ.
 *
 * The code is simple, and right before fast: values live in registers
 * or stack slots (emit_asm_alloc.c, in emit_asm_order.c's block order);
 * an instruction computes in its result's register where it has one,
 * and otherwise through fixed scratch registers (emit_asm_inst.c).
 * Functions and data objects keep their names and are global, so C
 * code links with them; a name the assembler cannot take, or one the
 * rest of the program owns (reserved()), is spelled __keel_N_NAME.
 * Code in the file refers to what the module defines through local
 * aliases
 * (.LsymN), so it needs no relocation through the GOT and the file can
 * go into a position-independent executable or shared object.
 *
 * A declared function is called by its name through the PLT (C's
 * function, or libc's); keel run's built-ins putchar, puts and printf
 * go through a routine that notes whether the output ends a line (so
 * that %main's results go on a line of their own, as keel run puts
 * them), malloc through calloc (the interpreter's heap reads as zero),
 * abort through a trap with keel run's message. A trap prints keel
 * run's first line without its explanation, "FILE:LINE: trap KIND",
 * and where ("  in %f at instN (line L)") on standard error, and exits
 * with 1. main runs %main on a stack of its own (__keel_stack).
 */
#include "emit_asm.h"
#include "emit_c.h"

void
asm_refuse(asm_func *c, kl_inst i, const char *fmt, ...)
{
	c->e->refused = true;
	va_list ap;
	va_start(ap, fmt);
	emit_add_refusal(c->e->diags, c->e->m, c->f, kl_func_sym(c->f), i, fmt,
			 ap);
	va_end(ap);
}

/* A refusal of what is no function's: a data object, %main's shape. */
static void KL_PRINTF(3, 4)
	refuse_sym(asm_emitter *e, kl_sym s, const char *fmt, ...)
{
	e->refused = true;
	va_list ap;
	va_start(ap, fmt);
	emit_add_refusal(e->diags, e->m, NULL, s, KL_NO_INST, fmt, ap);
	va_end(ap);
}

uint32_t
asm_label(asm_emitter *e)
{
	return e->nlabels++;
}

static bool
is_main(const kl_module *m, kl_sym s)
{
	size_t len;
	const char *name = kl_sym_name(m, s, &len);
	return kl_sym_func(m, s) && len == 4 && memcmp(name, "main", 4) == 0;
}

/* Is name one the program's other parts define or the runtime calls?
 * A module's symbol of that name would take their place (a %printf
 * would print main's results, a data %stderr take the trap's
 * messages, an %_init not link): the names C reserves for the
 * implementation (__x, _X), the C start files', the runtime's, and the
 * allocator's, which the C library calls itself. */
static bool
reserved(const char *name, size_t len)
{
	static const char *const names[] = {
		"_start",        "_init",      "_fini",    "_edata",
		"_end",          "data_start", "environ",  "printf",
		"putchar",       "puts",       "fflush",   "fputs",
		"stderr",        "stdout",     "_exit",    "exit",
		"abort",         "mmap",       "malloc",   "calloc",
		"realloc",       "free",       "memalign", "posix_memalign",
		"aligned_alloc", "valloc",     "pvalloc",  "malloc_usable_size",
	};
	if (len >= 2 && name[0] == '_' &&
	    (name[1] == '_' || (name[1] >= 'A' && name[1] <= 'Z')))
		return true;
	for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
		if (strlen(names[k]) == len && memcmp(names[k], name, len) == 0)
			return true;
	return false;
}

const char *
asm_sym_name(asm_emitter *e, kl_sym s)
{
	size_t len;
	const char *name = kl_sym_name(e->m, s, &len);
	bool plain = emit_is_ident(name, len) &&
		     !(name[0] >= '0' && name[0] <= '9');
	kl_buf_reset(&e->name);
	/* a declared function is the C library's or the program's: its
	 * own name, whatever it is */
	bool defined = kl_sym_func(e->m, s) ||
		       kl_sym_get_kind(e->m, s) == KL_SYM_DATA;
	if (plain && !is_main(e->m, s) && !(defined && reserved(name, len))) {
		kl_buf_append(&e->name, name, len);
		return e->name.data;
	}
	kl_buf_printf(&e->name, "__keel_%u_", s.id);
	emit_ident_chars(&e->name, name, len);
	return e->name.data;
}

/* keel run's built-ins that need a routine of the runtime here. */
static const char *
runtime_routine(asm_emitter *e, kl_sym s)
{
	static const char *const routines[] = { "putchar", "puts", "printf",
						"malloc", "abort" };
	for (size_t k = 0; k < sizeof routines / sizeof routines[0]; k++)
		if (emit_is_builtin(e->m, s, routines[k]))
			return routines[k];
	return NULL;
}

const char *
asm_call_target(asm_emitter *e, kl_sym s)
{
	const char *routine = runtime_routine(e, s);
	if (!kl_sym_func(e->m, s) && !routine) {
		asm_sym_name(e, s);
		kl_buf_puts(&e->name, "@PLT");
		return e->name.data;
	}
	kl_buf_reset(&e->name);
	if (routine && !kl_sym_func(e->m, s))
		kl_buf_printf(&e->name, "__keel_%s", routine);
	else
		kl_buf_printf(&e->name, ".Lsym%u", s.id);
	return e->name.data;
}

void
asm_sym_addr(asm_emitter *e, kl_sym s, const char *reg)
{
	const kl_module *m = e->m;
	bool defined = kl_sym_get_kind(m, s) == KL_SYM_DATA ||
		       kl_sym_func(m, s);
	if (defined)
		kl_buf_printf(e->out, "\tleaq .Lsym%u(%%rip), %s\n", s.id, reg);
	else if (runtime_routine(e, s))
		kl_buf_printf(e->out, "\tleaq __keel_%s(%%rip), %s\n",
			      runtime_routine(e, s), reg);
	else
		kl_buf_printf(e->out, "\tmovq %s@GOTPCREL(%%rip), %s\n",
			      asm_sym_name(e, s), reg);
}

void
asm_trap(asm_func *c, kl_inst i, const char *kind)
{
	asm_emitter *e = c->e;
	uint32_t n = e->nstrings++;
	kl_buf text = { 0 };
	size_t len;
	uint32_t line = kl_inst_source_line(c->f, i);
	kl_buf_printf(&text, "%s:%u: trap %s\n  in ", e->file, line, kind);
	const char *name = kl_sym_name(e->m, kl_func_sym(c->f), &len);
	kl_name_format(name, len, &text);
	kl_buf_printf(&text, " at inst%u (line %u)\n", i.id, line);
	kl_buf_printf(&e->strings, ".Lstr%u:\n\t.asciz ", n);
	emit_c_string(&e->strings, text.data, text.len);
	kl_buf_putc(&e->strings, '\n');
	kl_buf_free(&text);
	asm_line(c, "leaq .Lstr%u(%%rip), %%rdi", n);
	asm_line(c, "call __keel_trap");
}

/* The routines the code calls: a trap's report, the output built-ins
 * that note how the output ends, malloc's zeroed memory, abort. */
static const char runtime[] =
	"\t.text\n"
	"__keel_trap:\n"
	"\tandq $-16, %rsp\n"
	"\tmovq %rdi, %rbx\n"
	"\txorl %edi, %edi\n"
	"\tcall fflush@PLT\n"
	"\tmovq stderr@GOTPCREL(%rip), %rax\n"
	"\tmovq (%rax), %rsi\n"
	"\tmovq %rbx, %rdi\n"
	"\tcall fputs@PLT\n"
	"\tmovl $1, %edi\n"
	"\tcall _exit@PLT\n"
	"__keel_putchar:\n"
	"\tmovb %dil, __keel_last(%rip)\n"
	"\tjmp putchar@PLT\n"
	"__keel_puts:\n"
	"\tmovb $10, __keel_last(%rip)\n"
	"\tjmp puts@PLT\n"
	/* printf with the caller's own arguments, registers and stack:
	 * its return address goes aside while printf runs */
	"__keel_printf:\n"
	"\tpopq __keel_ret(%rip)\n"
	"\tmovq %rdi, __keel_fmt(%rip)\n"
	"\tcall printf@PLT\n"
	"\tmovq __keel_fmt(%rip), %rcx\n"
	"\tmovb $0, __keel_last(%rip)\n"
	"\tcmpb $0, (%rcx)\n"
	"\tje 2f\n"
	"1:\tincq %rcx\n"
	"\tcmpb $0, (%rcx)\n"
	"\tjne 1b\n"
	"\tcmpb $10, -1(%rcx)\n"
	"\tjne 2f\n"
	"\tmovb $10, __keel_last(%rip)\n"
	"2:\tjmp *__keel_ret(%rip)\n"
	/* keel run's spelling of a float (bits in %rdi, %esi: is it
	 * 64-bit): inf, nan, nan:0xPAYLOAD, 0.0, or 0x1.HEXpEXP with
	 * the trailing zero digits left out */
	"__keel_show_float:\n"
	"\tpushq %rbx\n\tpushq %r12\n\tpushq %r13\n\tpushq %r14\n"
	"\tpushq %r15\n\tsubq $16, %rsp\n"
	"\tmovl $52, %r12d\n\tmovl $1023, %r13d\n\tmovl $13, %r14d\n"
	"\tmovl $11, %r15d\n"
	"\ttestl %esi, %esi\n\tjne 1f\n"
	"\tmovl $23, %r12d\n\tmovl $127, %r13d\n\tmovl $6, %r14d\n"
	"\tmovl $8, %r15d\n"
	"1:\tleal (%r12,%r15), %ecx\n\tmovq %rdi, %rax\n\tshrq %cl, %rax\n"
	"\tleaq __keel_nosign(%rip), %rdx\n\tleaq __keel_minus(%rip), %r8\n"
	"\ttestb $1, %al\n\tcmovneq %r8, %rdx\n\tmovq %rdx, (%rsp)\n"
	"\tmovl %r12d, %ecx\n\tmovq %rdi, %rax\n\tshrq %cl, %rax\n"
	"\tmovl %r15d, %ecx\n\tmovl $1, %edx\n\tshlq %cl, %rdx\n"
	"\tdecq %rdx\n\tandq %rdx, %rax\n\tmovq %rax, %r15\n"
	"\tmovq %rdx, 8(%rsp)\n"
	"\tmovl %r12d, %ecx\n\tmovl $1, %eax\n\tshlq %cl, %rax\n"
	"\tdecq %rax\n\tandq %rdi, %rax\n\tmovq %rax, %rbx\n"
	"\tcmpq 8(%rsp), %r15\n\tjne 3f\n"
	"\tleaq __keel_inf(%rip), %rdi\n\ttestq %rbx, %rbx\n\tje 2f\n"
	"\tleal -1(%r12), %ecx\n\tmovl $1, %eax\n\tshlq %cl, %rax\n"
	"\tleaq __keel_nan(%rip), %rdi\n\tcmpq %rax, %rbx\n\tje 2f\n"
	"\tleaq __keel_nanpay(%rip), %rdi\n"
	"2:\tmovq (%rsp), %rsi\n\tmovq %rbx, %rdx\n\txorl %eax, %eax\n"
	"\tcall printf@PLT\n\tjmp 9f\n"
	"3:\ttestq %r15, %r15\n\tjne 4f\n\ttestq %rbx, %rbx\n\tjne 4f\n"
	"\tleaq __keel_zero(%rip), %rdi\n\tjmp 2b\n"
	"4:\tcmpl $52, %r12d\n\tje 5f\n\tshlq $1, %rbx\n"
	"5:\ttestl %r14d, %r14d\n\tje 6f\n\ttestb $15, %bl\n\tjne 6f\n"
	"\tshrq $4, %rbx\n\tdecl %r14d\n\tjmp 5b\n"
	"6:\txorl %edx, %edx\n\ttestq %r15, %r15\n\tsetne %dl\n"
	"\tmovq (%rsp), %rsi\n\tleaq __keel_lead(%rip), %rdi\n"
	"\txorl %eax, %eax\n\tcall printf@PLT\n"
	"\ttestl %r14d, %r14d\n\tje 7f\n"
	"\tleaq __keel_digits(%rip), %rdi\n\tmovl %r14d, %esi\n"
	"\tmovq %rbx, %rdx\n\txorl %eax, %eax\n\tcall printf@PLT\n"
	"7:\tmovl $1, %esi\n\ttestq %r15, %r15\n\tcmovneq %r15, %rsi\n"
	"\tsubl %r13d, %esi\n\tleaq __keel_exp(%rip), %rdi\n"
	"\txorl %eax, %eax\n\tcall printf@PLT\n"
	"9:\taddq $16, %rsp\n\tpopq %r15\n\tpopq %r14\n\tpopq %r13\n"
	"\tpopq %r12\n\tpopq %rbx\n\tret\n"
	/* a stack for %main of 1 GiB, reserved, not committed: its top,
	 * or 0 when the system gives none (mmap's Linux flags:
	 * MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE) */
	"__keel_stack:\n"
	"\tsubq $8, %rsp\n"
	"\txorl %edi, %edi\n"
	"\tmovl $0x40000000, %esi\n"
	"\tmovl $3, %edx\n"
	"\tmovl $0x4022, %ecx\n"
	"\tmovl $-1, %r8d\n"
	"\txorl %r9d, %r9d\n"
	"\tcall mmap@PLT\n"
	"\taddq $8, %rsp\n"
	"\tcmpq $-1, %rax\n"
	"\tje 1f\n"
	"\taddq $0x40000000, %rax\n"
	"\tret\n"
	"1:\txorl %eax, %eax\n"
	"\tret\n"
	"__keel_malloc:\n"
	"\tmovq %rdi, %rsi\n"
	"\tmovl $1, %edi\n"
	"\tjmp calloc@PLT\n"
	"__keel_abort:\n"
	"\tleaq __keel_abort_text(%rip), %rdi\n"
	"\tjmp __keel_trap\n"
	"\t.section .rodata\n"
	"__keel_abort_text:\n"
	"\t.asciz \"trap abort: the program called abort()\\n\"\n"
	"__keel_int:\n\t.asciz \"%lld\"\n"
	"__keel_uint:\n\t.asciz \"%llu\"\n"
	"__keel_comma:\n\t.asciz \", \"\n"
	"__keel_nosign:\n\t.asciz \"\"\n"
	"__keel_minus:\n\t.asciz \"-\"\n"
	"__keel_inf:\n\t.asciz \"%sinf\"\n"
	"__keel_nan:\n\t.asciz \"%snan\"\n"
	"__keel_nanpay:\n\t.asciz \"%snan:0x%llx\"\n"
	"__keel_zero:\n\t.asciz \"%s0.0\"\n"
	"__keel_lead:\n\t.asciz \"%s0x%d\"\n"
	"__keel_digits:\n\t.asciz \".%0*llx\"\n"
	"__keel_exp:\n\t.asciz \"p%d\"\n"
	"\t.data\n"
	"__keel_last:\n"
	"\t.byte 10\n"
	"\t.bss\n"
	"\t.balign 8\n"
	"__keel_ret:\n"
	"\t.zero 8\n"
	"__keel_fmt:\n"
	"\t.zero 8\n";

/* main: run %main, print its results as keel run does, and exit with
 * its first integer result modulo 256. */
static void
emit_main(asm_emitter *e, kl_sym s)
{
	const kl_module *m = e->m;
	kl_signature sig = kl_sym_signature(m, s);
	kl_buf *out = e->out;
	if (sig.num_params) {
		refuse_sym(e, s, "it takes parameters");
		return;
	}
	uint32_t n = sig.num_results;
	/* (%rbx saved under the results: 8 more to keep %rsp aligned) */
	uint32_t frame = ((8 * n + 15) & ~15u) + 8;
	kl_buf_printf(out,
		      "\t.text\n\t.globl main\nmain:\n\tpushq %%rbp\n"
		      "\tmovq %%rsp, %%rbp\n\tpushq %%rbx\n"
		      "\tsubq $%u, %%rsp\n",
		      frame);
	/* %main runs on a stack of its own, if there is one */
	kl_buf_puts(out, "\tcall __keel_stack\n\tmovq %rsp, %rbx\n"
			 "\ttestq %rax, %rax\n\tje 2f\n"
			 "\tmovq %rax, %rsp\n2:\n");
	bool memory = asm_results_in_memory(m, sig);
	if (memory)
		kl_buf_puts(out, "\tmovq %rbx, %rdi\n");
	kl_buf_printf(out, "\tcall .Lsym%u\n\tmovq %%rbx, %%rsp\n", s.id);
	for (uint32_t k = 0; !memory && k < n; k++) {
		char reg[8];
		asm_result_place(m, sig, k, reg, sizeof reg);
		kl_buf_printf(out, "\tmovq %s, %u(%%rsp)\n", reg, 8 * k);
	}
	/* the results' line, an empty one for none, after a newline
	 * if the output stopped inside a line */
	kl_buf_puts(out, "\tcmpb $10, __keel_last(%rip)\n\tje 1f\n"
			 "\tmovl $10, %edi\n\tcall putchar@PLT\n1:\n");
	for (uint32_t k = 0; k < n; k++) {
		kl_type t = sig.results[k];
		uint32_t bytes = kl_type_bytes(m, t);
		if (k)
			kl_buf_puts(out, "\tleaq __keel_comma(%rip), %rdi\n"
					 "\txorl %eax, %eax\n"
					 "\tcall printf@PLT\n");
		if (kl_type_is_float(m, t)) {
			kl_buf_printf(out, "\t%s %u(%%rsp), %s\n",
				      bytes == 4 ? "movl" : "movq", 8 * k,
				      bytes == 4 ? "%edi" : "%rdi");
			kl_buf_printf(out,
				      "\tmovl $%d, %%esi\n"
				      "\tcall __keel_show_float\n",
				      bytes == 8);
			continue;
		}
		bool sign = kl_type_refinement(m, t) != KL_REFINE_UNSIGNED;
		char at[16];
		snprintf(at, sizeof at, "%u(%%rsp)", 8 * k);
		asm_ext_line(out, at, bytes, sign, "%rsi");
		kl_buf_printf(out, "\tleaq __keel_%s(%%rip), %%rdi\n",
			      sign ? "int" : "uint");
		kl_buf_puts(out, "\txorl %eax, %eax\n\tcall printf@PLT\n");
	}
	kl_buf_puts(out, "\tmovl $10, %edi\n\tcall putchar@PLT\n");
	if (n && kl_type_is_int(m, sig.results[0]))
		kl_buf_puts(out, "\tmovzbl (%rsp), %eax\n");
	else
		kl_buf_puts(out, "\txorl %eax, %eax\n");
	kl_buf_puts(out, "\tmovq -8(%rbp), %rbx\n\tleave\n\tret\n");
}

/* A data object: its bytes item by item. */
static void
emit_data(asm_emitter *e, kl_sym s)
{
	const kl_module *m = e->m;
	kl_buf *out = e->out;
	uint32_t n = kl_data_num_items(m, s);
	bool relocated = false;
	for (uint32_t k = 0; k < n; k++) {
		kl_data_item it = kl_data_item_at(m, s, k);
		if (it.kind != KL_DATA_SYMREF)
			continue;
		relocated = true;
		if (kl_type_bytes(m, it.type) != 8)
			refuse_sym(e, s, "an address in fewer than 8 bytes");
	}
	if (kl_data_size(m, s) > (UINT64_C(1) << 31))
		refuse_sym(e, s, "over 2^31 bytes");
	if (kl_data_align(m, s) > 4096)
		refuse_sym(e, s, "aligned past 4096");
	if (!kl_data_is_const(m, s))
		kl_buf_puts(out, "\t.data\n");
	else if (relocated)
		kl_buf_puts(out, "\t.section .data.rel.ro,\"aw\"\n");
	else
		kl_buf_puts(out, "\t.section .rodata\n");
	const char *name = asm_sym_name(e, s);
	kl_buf_printf(out, "\t.balign %u\n\t.globl %s\n%s:\n.Lsym%u:\n",
		      kl_data_align(m, s), name, name, s.id);
	for (uint32_t k = 0; k < n; k++) {
		kl_data_item it = kl_data_item_at(m, s, k);
		static const char *const dirs[] = { ".byte", ".short", ".long",
						    ".quad" };
		uint32_t bytes = kl_type_bytes(m, it.type);
		const char *dir = dirs[asm_size_index(bytes)];
		switch (it.kind) {
		case KL_DATA_VALUE: {
			uint64_t v = it.value;
			if (bytes < 8)
				v &= (UINT64_C(1) << (8 * bytes)) - 1;
			kl_buf_printf(out, "\t%s %" PRIu64 "\n", dir, v);
			break;
		}
		case KL_DATA_STRING:
			kl_buf_puts(out, "\t.ascii ");
			emit_c_string(out, it.bytes, it.len);
			kl_buf_putc(out, '\n');
			break;
		case KL_DATA_ZERO:
			if (it.value)
				kl_buf_printf(out, "\t.zero %" PRIu64 "\n",
					      it.value);
			break;
		default: {
			bool defined = kl_sym_get_kind(m, it.sym) ==
					       KL_SYM_DATA ||
				       kl_sym_func(m, it.sym);
			const char *routine = runtime_routine(e, it.sym);
			if (defined)
				kl_buf_printf(out, "\t.quad .Lsym%u",
					      it.sym.id);
			else if (routine)
				kl_buf_printf(out, "\t.quad __keel_%s",
					      routine);
			else
				kl_buf_printf(out, "\t.quad %s",
					      asm_sym_name(e, it.sym));
			kl_buf_printf(out, "%+" PRId64 "\n", (int64_t)it.value);
		}
		}
	}
}

kl_status
kl_emit_asm(const kl_module *m, const char *file, kl_buf *out, kl_diags *diags)
{
	if (!m || !out)
		return KL_ERR_INVALID;
	if (!emit_verified(m, diags))
		return KL_ERR_VERIFY;
	/* written into out itself (a module's assembly is some 90 bytes
	 * an instruction: a copy would double the peak), and taken back
	 * on a refusal */
	size_t was = out->len;
	asm_emitter e = { .m = m,
			  .file = file ? file : "<module>",
			  .diags = diags,
			  .out = out };
	/* (a file name's newline would end the comment) */
	kl_buf_puts(out, "# made by keel emit-asm from ");
	for (const char *p = e.file; *p; p++)
		kl_buf_putc(out, *p >= ' ' && *p != 127 ? *p : '?');
	kl_buf_putc(out, '\n');
	kl_buf_puts(out, runtime);
	kl_sym main_sym = KL_NO_SYM;
	for (uint32_t k = 0; k < kl_module_num_syms(m); k++) {
		kl_sym s = { k };
		const kl_func *f = kl_sym_func(m, s);
		if (kl_sym_get_kind(m, s) == KL_SYM_DATA) {
			emit_data(&e, s);
		} else if (f) {
			kl_buf_puts(out, "\t.text\n");
			if (is_main(m, s)) {
				main_sym = s;
			} else {
				const char *name = asm_sym_name(&e, s);
				kl_buf_printf(out, "\t.globl %s\n%s:\n", name,
					      name);
			}
			kl_buf_printf(out, ".Lsym%u:\n", k);
			asm_emit_func(&e, f);
		}
	}
	if (main_sym.id != KL_NONE)
		emit_main(&e, main_sym);
	kl_buf_puts(out, "\t.section .rodata\n");
	kl_buf_append(out, e.strings.data ? e.strings.data : "", e.strings.len);
	kl_buf_puts(out, "\t.section .note.GNU-stack,\"\",@progbits\n");
	if (e.refused) {
		out->len = was;
		if (out->data)
			out->data[was] = '\0';
	}
	kl_buf_free(&e.strings);
	kl_buf_free(&e.name);
	return e.refused ? KL_ERR_UNSUPPORTED : KL_OK;
}
