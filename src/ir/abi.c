/*
 * abi.c -- what a program that loads libkeel.so can ask about the
 * library it got: its version and the sizes of the public structs.
 *
 * A binding through an FFI (Python's ctypes, LuaJIT, Rust) mirrors
 * keel.h's structs by hand and sees no sizeof; asking the library it
 * loaded turns a stale or mistyped mirror into an error at load time
 * instead of memory the two sides read differently.
 */
#include <string.h>

#include "ir.h"

const char *
kl_version(void)
{
	return KL_VERSION;
}

/* Every struct keel.h defines (tests/scripts.sh checks the list is
 * whole); opaque ones (kl_module, kl_cfg, ...) have no size to mirror. */
#define PUBLIC_STRUCTS(X)                                                    \
	X(kl_buf) X(kl_value) X(kl_block) X(kl_inst) X(kl_sigref) X(kl_sym)  \
	X(kl_entity) X(kl_diag) X(kl_diags) X(kl_opinfo) X(kl_signature)     \
	X(kl_data_item) X(kl_module_stats) X(kl_builder) X(kl_block_call)    \
	X(kl_var)                                                            \
	X(kl_parse_options) X(kl_print_options) X(kl_cfg_edge) X(kl_loop)    \
	X(kl_region)                                                         \
	X(kl_use) X(kl_verify_stats) X(kl_verify_ctx) X(kl_interp_options)   \
	X(kl_run_frame) X(kl_run_result) X(kl_pass_counter)                  \
	X(kl_pass_report) X(kl_pass)

size_t
kl_struct_size(const char *name)
{
	if (!name)
		return 0;
#define SIZE_IF_NAMED(type)                                                  \
	if (strcmp(name, #type) == 0)                                        \
		return sizeof(type);
	PUBLIC_STRUCTS(SIZE_IF_NAMED)
#undef SIZE_IF_NAMED
	return 0;
}
