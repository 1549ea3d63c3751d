# keel -- plain Makefile (GNU make). No generators, no recursion.
#
#   make                 build build/keel, build/libkeel.a, libkeel.so
#   make check           build and run every test; ends "N passed, N failed"
#   make check SAN=1     the same under AddressSanitizer + UBSan (+ leaks)
#   make check SAN=memory CC=clang   under MemorySanitizer (build/msan)
#   make CC=clang        build with clang (into build/clang)
#   make fuzz            libFuzzer targets for FUZZ_TIME s each (clang)
#   make fuzz-promote    differential test of promote, new seeds, FUZZ_TIME s
#   make bench           benchmarks (see bench/bench.sh)
#   make install         keel, the libraries, keel.h and keel.pc under PREFIX
#                        (/usr/local; DESTDIR for a staging directory)
#   make uninstall       remove what make install put there

CC ?= cc
SAN ?=
OPT ?= -O2 -g

# clang's objects go apart from gcc's: build/clang, build/san-clang
# (any word of CC, for wrappers such as "ccache clang")
CLANG := $(if $(filter clang clang-% %-clang,$(notdir $(CC))),clang)

ifeq ($(SAN),1)
BUILD ?= build/san$(if $(CLANG),-clang)
SANFLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer \
	   -fno-sanitize-recover=all
OPT = -O1 -g
else ifeq ($(SAN),memory)
# reads of uninitialised memory, which ASan does not see; clang only
$(if $(CLANG),,$(error SAN=memory needs clang: make check SAN=memory CC=clang))
BUILD ?= build/msan
SANFLAGS = -fsanitize=memory -fsanitize-memory-track-origins \
	   -fno-omit-frame-pointer
OPT = -O1 -g
else ifeq ($(SAN),)
BUILD ?= build$(if $(CLANG),/clang)
SANFLAGS =
else
$(error SAN=$(SAN): SAN=1 is ASan and UBSan, SAN=memory is MSan)
endif

WARN = -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes \
       -Wmissing-prototypes -Wundef -Wwrite-strings -Werror
# (64-bit file offsets and inode numbers on 32-bit machines too: without
# them, readdir fails with EOVERFLOW on a file system of big inode
# numbers, and keel test found no test files on armhf)
FEATURES = -D_POSIX_C_SOURCE=200809L -D_FILE_OFFSET_BITS=64
# Position-independent code, for the shared library (and everything
# else, so that the flags are one set); without interposition, calls
# inside the library are bound and inlined as in a program's own code
# (callgrind counts the same instructions in keel either way).
PIC = -fPIC -fno-semantic-interposition
# Floats in SSE2 registers on 32-bit x86, whose default, x87 (floats
# evaluated in long double: FLT_EVAL_METHOD 2), rounds an f64 result
# first to 64 bits and then to 53: one unit off for about one product or
# quotient of random operands in 4,000, and some sums
# (tests/filetests/interp/float-rounded-once.kl);
# src/interp/exec.c refuses to compile so. (The compiler is asked, once:
# CC=i686-linux-gnu-gcc, CFLAGS=-m32.)
FP_PROBE := $(shell echo __i386__ __FLT_EVAL_METHOD__ | \
	$(CC) $(CPPFLAGS) $(CFLAGS) -std=c11 -E -P - 2>/dev/null | tr ' ' _)
FPFLAGS := $(if $(filter 1_2,$(FP_PROBE)),-msse2 -mfpmath=sse)
CFLAGS_ALL = -std=c11 $(FEATURES) $(WARN) $(OPT) $(SANFLAGS) $(PIC) \
	     $(FPFLAGS) -Iinclude -MMD -MP $(CPPFLAGS) $(CFLAGS)
# (CFLAGS on the links too: -flto there, or an -m32, is the link's)
LDFLAGS_ALL = $(SANFLAGS) $(CFLAGS) $(LDFLAGS)

LIB_SRC := $(sort $(wildcard src/util/*.c src/ir/*.c src/text/*.c \
	src/analysis/*.c src/verify/*.c src/pass/*.c src/interp/*.c \
	src/emit/*.c \
	src/filetest/*.c src/qbe/*.c))
CLI_SRC := $(sort $(wildcard src/cli/*.c))
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
GEN_SRC := $(sort $(wildcard bench/gen*.c))

LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
CLI_OBJ := $(CLI_SRC:%.c=$(BUILD)/obj/%.o)
GEN_OBJ := $(GEN_SRC:%.c=$(BUILD)/obj/%.o)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/unit/%)

LIB := $(BUILD)/libkeel.a
# The shared library, for programs that load it (a Python course's
# ctypes, say): no ABI promise before 1.0, so the soname is the whole
# version; $(BUILD)/libkeel.so links to it.
KL_VERSION := $(shell sed -n 's/^\#define KL_VERSION "\(.*\)"$$/\1/p' \
	include/keel.h)
SONAME := libkeel.so.$(KL_VERSION)
SHLIB := $(BUILD)/$(SONAME)
# every object as it is, internal names global: for the unit tests,
# which reach inside
LIB_INTERNAL := $(BUILD)/libkeel-internal.a
KEEL := $(BUILD)/keel
GEN := $(BUILD)/keel-gen
# examples/embed.c: the library used from C through keel.h alone
EMBED := $(BUILD)/embed
# bench/vars_bench.c: kl_vars_finish and promote timed on one program
VARS_BENCH := $(BUILD)/vars-bench

.PHONY: all check clean fuzz fuzz-promote bench bench-scaling install \
	uninstall
all: $(KEEL) $(GEN) $(EMBED) $(VARS_BENCH) $(SHLIB)

# What everything in BUILD is compiled and linked with. When it differs
# from what BUILD/flags holds (make OPT=-O0, CFLAGS=..., another CC into
# the same BUILD), the file is rewritten and, as everything compiled
# depends on it, everything is built again instead of mixing objects.
FLAGS_STAMP := $(BUILD)/flags
FLAGS_NOW := $(CC) $(CFLAGS_ALL) | $(LDFLAGS_ALL)
# (Not for make clean or uninstall alone, which build nothing: the
# stamp would make a directory of any BUILD they are given.)
ONLY_CLEANING := $(and $(MAKECMDGOALS),$(if \
	$(filter-out clean uninstall,$(MAKECMDGOALS)),,yes))
write_flags_stamp = $(shell mkdir -p $(BUILD))$(file >$(FLAGS_STAMP),$(FLAGS_NOW))
# make -n writes nothing: the stamp, when the flags differ, is only taken
# as changed, so that it shows everything a real make would build again.
DRY_RUN := $(findstring n,$(firstword -$(MAKEFLAGS)))
ifndef ONLY_CLEANING
ifneq ($(FLAGS_NOW),$(file <$(FLAGS_STAMP)))
ifdef DRY_RUN
.PHONY: $(FLAGS_STAMP)
else
$(write_flags_stamp)
endif
endif
endif
# Made again when removed after that (make clean all).
$(FLAGS_STAMP):
	$(if $(DRY_RUN),,$(write_flags_stamp))

$(BUILD)/obj/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CFLAGS_ALL) -c $< -o $@

# The binutils of the compiler's target, as the compiler names them: a
# cross compiler's own (CC=aarch64-linux-gnu-gcc builds for that
# machine); AR or OBJCOPY given (AR=gcc-ar) are taken as they are.
TOOL_OBJCOPY := $(or $(OBJCOPY),$(shell $(CC) -print-prog-name=objcopy))
TOOL_AR := $(if $(filter default,$(origin AR)),\
	$(shell $(CC) -print-prog-name=ar),$(AR))

# The partial link goes through the compiler driver, so that -m32 (and
# clang's --target) choose the linker's emulation, and -flto objects are
# compiled to code first (gcc: -flinker-output=nolto-rel), where
# localizing their LTO sections' symbols broke the link. (Not with
# -fsanitize: clang would link its runtime's .preinit_array in.)
LTO_REL = $(if $(filter -flto%,$(CFLAGS_ALL)),\
	$(if $(CLANG),,-flinker-output=nolto-rel))

# The library a user links: one object whose only global names are the
# functions keel.h declares, so that a program of its own with a
# list_push or a parse_int still links, and the library's own helpers
# (kl_malloc, the arena, ...) are no part of its ABI: every other name
# becomes local after a partial link. Both libraries are made of it.
# (The names are read off the header as the compiler sees it, without
# its comments: each kl_ name right before a '('; tests/scripts.sh reads
# them its own way, off the text, to check that the two agree.
# i386's __x86.get_pc_thunk.* stay global too: hidden already, and
# defined in COMDAT groups of which the final link keeps one, a local
# copy's references would point into a discarded section.)
$(BUILD)/api.syms: include/keel.h
	@$(CC) -E -P $< | grep -oE '\bkl_[a-z0-9_]+\(' | tr -d '(' | \
		sort -u >$@.tmp
	@mv $@.tmp $@

$(BUILD)/obj/keel.o: $(LIB_OBJ) $(BUILD)/api.syms
	@echo "  LD -r   $@"
	@$(CC) $(filter-out -fsanitize%,$(CFLAGS_ALL)) -nostdlib -r \
		$(LTO_REL) -o $@.tmp $(LIB_OBJ)
	@$(TOOL_OBJCOPY) --wildcard --keep-global-symbols=$(BUILD)/api.syms \
		--keep-global-symbol='__x86.get_pc_thunk.*' $@.tmp
	@mv $@.tmp $@

$(LIB): $(BUILD)/obj/keel.o
	@rm -f $@
	@echo "  AR      $@"
	@$(TOOL_AR) rcs $@ $<

# LDFLAGS=-static asks for static programs, not for a shared library
# linked -static: gcc and glibc's static start files cannot make one, and
# musl's would put a second C library inside libkeel.so.
$(SHLIB): $(BUILD)/obj/keel.o
	@echo "  LD      $@"
	@$(CC) $(filter-out -static --static,$(LDFLAGS_ALL)) -shared \
		-Wl,-soname,$(SONAME) $< -lm -o $@
	@ln -sf $(SONAME) $(BUILD)/libkeel.so

$(LIB_INTERNAL): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	@rm -f $@
	@echo "  AR      $@"
	@$(TOOL_AR) rcs $@ $^

$(KEEL): $(CLI_OBJ) $(LIB)
	@echo "  LD      $@"
	@$(CC) $(LDFLAGS_ALL) $(CLI_OBJ) $(LIB) -lm -o $@

$(GEN): $(GEN_OBJ)
	@echo "  LD      $@"
	@$(CC) $(LDFLAGS_ALL) $(GEN_OBJ) -lm -o $@

$(EMBED): $(BUILD)/%: examples/%.c $(LIB) $(FLAGS_STAMP)
	@echo "  LD      $@"
	@$(CC) $(CFLAGS_ALL) $< $(LIB) -lm $(LDFLAGS) -o $@

$(VARS_BENCH): bench/vars_bench.c $(LIB) $(FLAGS_STAMP)
	@echo "  LD      $@"
	@$(CC) $(CFLAGS_ALL) -Itests/unit $< $(LIB) -lm $(LDFLAGS) -o $@

$(BUILD)/unit/%: tests/unit/%.c $(LIB_INTERNAL) $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@echo "  LD      $@"
	@$(CC) $(CFLAGS_ALL) -Itests/unit $< $(LIB_INTERNAL) -lm -pthread \
		$(LDFLAGS) -o $@

# Unit tests of code beside the CLI link its object too: test_runs,
# difftest's calls and comparisons; test_corpus, the blanking of a test
# file's `test` lines; test_cli, the helpers the commands share.
$(BUILD)/unit/test_runs: $(BUILD)/obj/src/cli/runs.o
$(BUILD)/unit/test_corpus $(BUILD)/unit/test_cli: $(BUILD)/obj/src/cli/cli.o
$(BUILD)/unit/test_runs $(BUILD)/unit/test_corpus $(BUILD)/unit/test_cli: \
		$(BUILD)/unit/%: \
		tests/unit/%.c $(LIB_INTERNAL) $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@echo "  LD      $@"
	@$(CC) $(CFLAGS_ALL) -Itests/unit $< $(filter %.o,$^) \
		$(LIB_INTERNAL) -lm $(LDFLAGS) -o $@

# The fuzz targets are compiled by every check too (as objects, with the
# build's compiler: libFuzzer is clang's), so that a change of an
# internal interface they use cannot break them unseen.
FUZZ_OBJ = $(patsubst fuzz/%.c,$(BUILD)/fuzzobj/%.o,$(wildcard fuzz/fuzz_*.c))
$(BUILD)/fuzzobj/%.o: fuzz/%.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	@$(CC) $(CFLAGS_ALL) -c $< -o $@

# Every test: unit programs (those of tests/unit/test_*.c alone, not
# what an older tree left in $(BUILD)/unit), then the file tests.
# tests/check.sh sums the "N passed, N failed" lines into the final one.
check: $(KEEL) $(GEN) $(EMBED) $(SHLIB) $(UNIT_BIN) $(FUZZ_OBJ)
	@sh tests/check.sh $(BUILD) $(UNIT_BIN)

# Benchmarks against LLVM 19 when installed (bench/bench.sh explains the
# method); results also in build/bench/results.md (scaling.md). Always the optimised
# build in build/.
bench:
	@$(MAKE) --no-print-directory BUILD=build SAN= all
	@sh bench/bench.sh build

bench-scaling:
	@$(MAKE) --no-print-directory BUILD=build SAN= all
	@sh bench/bench.sh build scaling

# libFuzzer targets (clang): the parser on any bytes, print/parse agreement,
# the verifier (and promote, and the interpreter) on any parsed module,
# promote checked by running code (fuzz_promote: difftest's checks), and
# random edits through the rewriting API (fuzz_rewrite: the checks of
# tests/unit/rewrite_random.h), and `keel test` on one file in process
# (fuzz_testfile: the reader of test files and every command), and the
# QBE IL importer (fuzz_qbe, seeded with tests/qbe/).
# Seeds come from the file tests and examples (for fuzz_testfile, the
# file tests whole, `test` lines kept); crashes land in build/fuzz/.
# The dictionaries (the text format's words, FileCheck's directives, and
# for fuzz_testfile both and the test lines' words) let mutations make
# keywords that byte flips seldom reach.
FUZZ_TARGETS := parse roundtrip verify promote rewrite filecheck testfile qbe
# (FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION, the name OSS-Fuzz gives it:
# `test interpret` takes the small limits of a fuzz run)
FUZZ_FLAGS = -std=c11 $(FEATURES) $(WARN) -O1 -g -Iinclude \
	     -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION \
	     -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
# runs.c: difftest's calls and comparisons, which fuzz_promote shares;
# for fuzz_testfile, the test runner's code that runs in the child (not
# cmd_test.c, the parent, nor main.c and the other commands).
FUZZ_LIB_SRC := $(LIB_SRC) src/cli/runs.c
FUZZ_TEST_SRC := src/cli/cli.c src/cli/test_file.c \
	$(filter-out src/cli/test_file.c,$(wildcard src/cli/test_*.c))
build/fuzz/fuzz_%: fuzz/fuzz_%.c $(FUZZ_LIB_SRC)
	@mkdir -p build/fuzz
	@echo "  FUZZ    $@"
	@clang $(FUZZ_FLAGS) $< $(FUZZ_LIB_SRC) $(FUZZ_EXTRA_SRC) -lm -o $@

build/fuzz/fuzz_testfile: FUZZ_EXTRA_SRC = $(FUZZ_TEST_SRC)
build/fuzz/fuzz_testfile: $(FUZZ_TEST_SRC) $(wildcard src/cli/*.h)

build/fuzz/corpus: $(wildcard tests/filetests/*/*.kl examples/*.kl)
	@rm -rf $@ && mkdir -p $@
	@for f in $^; do sed '/^test /d' $$f > $@/$$(echo $$f | tr / _); done

build/fuzz/corpus-qbe-seeds: $(wildcard tests/qbe/*.ssa tests/qbe/errors/*.ssa)
	@rm -rf $@ && mkdir -p $@
	@for f in $^; do cp $$f $@/$$(echo $$f | tr / _); done

build/fuzz/corpus-tests: $(wildcard tests/filetests/*/*.kl)
	@rm -rf $@ && mkdir -p $@
	@for f in $^; do cp $$f $@/$$(echo $$f | tr / _); done

build/fuzz/testfile.dict: fuzz/keel.dict fuzz/filecheck.dict \
		fuzz/testfile.dict
	@mkdir -p build/fuzz
	@cat $^ >$@

# A fuzzer that fails (a crash found) fails make fuzz, after the others
# ran; its whole output stays in build/fuzz/log-TARGET.
fuzz: $(FUZZ_TARGETS:%=build/fuzz/fuzz_%) build/fuzz/corpus \
		build/fuzz/corpus-tests build/fuzz/corpus-qbe-seeds \
		build/fuzz/testfile.dict
	@failed=""; for t in $(FUZZ_TARGETS); do \
		mkdir -p build/fuzz/corpus-$$t; \
		dict=../../fuzz/keel.dict; seeds=corpus; \
		[ $$t = filecheck ] && dict=../../fuzz/filecheck.dict; \
		[ $$t = testfile ] && dict=testfile.dict seeds=corpus-tests; \
		[ $$t = qbe ] && dict=../../fuzz/qbe.dict seeds=corpus-qbe-seeds; \
		echo "== fuzz_$$t for $(FUZZ_TIME) s"; \
		(cd build/fuzz && ./fuzz_$$t -max_total_time=$(FUZZ_TIME) \
			-max_len=65536 -timeout=10 -rss_limit_mb=2048 \
			-dict=$$dict \
			-print_final_stats=1 corpus-$$t $$seeds >log-$$t 2>&1); \
		st=$$?; \
		grep -E "stat::number_of_executed_units|ERROR|SUMMARY|Done|crash-" \
			build/fuzz/log-$$t; \
		[ $$st = 0 ] || { echo "fuzz_$$t: exit $$st"; failed="$$failed $$t"; }; \
	done; \
	[ -z "$$failed" ] || { echo "make fuzz: failed:$$failed"; exit 1; }

# The differential test of promote with new seeds, for FUZZ_TIME seconds.
FUZZ_TIME ?= 60
fuzz-promote: $(KEEL) $(GEN)
	@sh tests/fuzz-promote.sh $(BUILD) $(FUZZ_TIME)

# Installing: the tool, the libraries, the header (with the opcode
# table it includes) and a pkg-config file, keel.pc, so that `cc prog.c
# $(pkg-config --cflags --libs keel)` builds a program of one's own
# (linked to the shared library; --static: the static one, with -lm).
# keel-gen and embed are the project's own tools and examples.
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
install: $(KEEL) $(LIB) $(SHLIB)
	install -d '$(DESTDIR)$(BINDIR)' '$(DESTDIR)$(LIBDIR)' \
		'$(DESTDIR)$(INCLUDEDIR)' '$(DESTDIR)$(PKGCONFIGDIR)'
	install -m 755 $(KEEL) '$(DESTDIR)$(BINDIR)/keel'
	install -m 644 $(LIB) '$(DESTDIR)$(LIBDIR)/libkeel.a'
	install -m 755 $(SHLIB) '$(DESTDIR)$(LIBDIR)/$(SONAME)'
	ln -sf $(SONAME) '$(DESTDIR)$(LIBDIR)/libkeel.so'
	install -m 644 include/keel.h include/keel_opcodes.def \
		'$(DESTDIR)$(INCLUDEDIR)'
	printf '%s\n' 'includedir=$(INCLUDEDIR)' 'libdir=$(LIBDIR)' '' \
		'Name: keel' \
		'Description: a small SSA compiler IR toolkit' \
		'Version: $(KL_VERSION)' \
		'Cflags: -I$${includedir}' \
		'Libs: -L$${libdir} -lkeel' 'Libs.private: -lm' \
		>'$(DESTDIR)$(PKGCONFIGDIR)/keel.pc'
	chmod 644 '$(DESTDIR)$(PKGCONFIGDIR)/keel.pc'
	@# (the loader's cache, when installing for real as root: without
	@# it, a program linked to libkeel.so does not find it)
	@if [ -z '$(DESTDIR)' ] && [ "$$(id -u)" = 0 ] && \
		command -v ldconfig >/dev/null 2>&1; then ldconfig; fi

uninstall:
	rm -f '$(DESTDIR)$(BINDIR)/keel' '$(DESTDIR)$(LIBDIR)/libkeel.a' \
		'$(DESTDIR)$(LIBDIR)/$(SONAME)' '$(DESTDIR)$(LIBDIR)/libkeel.so' \
		'$(DESTDIR)$(INCLUDEDIR)/keel.h' \
		'$(DESTDIR)$(INCLUDEDIR)/keel_opcodes.def' \
		'$(DESTDIR)$(PKGCONFIGDIR)/keel.pc'

# Removes build/ and, when BUILD names a directory elsewhere, that one too,
# but only if it holds a keel build (its flags file): BUILD=. or a typo must
# not remove a source tree.
clean:
	rm -rf build
	@if [ -f '$(BUILD)/flags' ] && [ -f '$(BUILD)/libkeel.a' -o \
		-d '$(BUILD)/obj' ]; then echo "rm -rf '$(BUILD)'"; \
		rm -rf '$(BUILD)'; fi

# (the unit tests and examples are compiled and linked in one step: their
# dependency files sit beside the programs)
-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(GEN_OBJ:.o=.d) \
	$(UNIT_BIN:=.d) $(EMBED).d $(VARS_BENCH).d \
	$(FUZZ_OBJ:.o=.d)
