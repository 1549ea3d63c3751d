#!/bin/sh
# Run every test of keel and finish with one line "N passed, N failed".
# Usage: tests/check.sh BUILD_DIR [UNIT_PROGRAM...]
# The unit programs are those named (make check names those its sources
# build: one left in BUILD/unit by a test since removed or renamed is not
# run, and cannot fail a run here that passes on a clean clone); with none
# named, every BUILD/unit/test_*.
build=${1:-build}
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- "$build"/unit/test_*
passed=0
failed=0

# Sanitizer reports go to files here, and each is a failure: a report
# from a program whose status a test does not read (a pipeline, a check
# of its output alone) fails the run all the same. (clang's UBSan and
# MSan and both compilers' ASan and LSan write there; gcc's UBSan keeps
# stderr.)
reports=$(mkdir -p "$build/sanitizer" && cd "$build/sanitizer" && pwd) || exit 1
# Each step's output, in the build directory: not mktemp's TMPDIR, which
# may not exist (TMPDIR=/nonexistent failed every step as "no summary").
log=$(mktemp "$build/check.XXXXXX") || exit 1
scripts_log=$(mktemp "$build/check.XXXXXX") || { rm -f "$log"; exit 1; }
trap 'rm -f "$log" "$scripts_log"' EXIT
rm -f "$reports"/report.*
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}log_path=$reports/report"
UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}log_path=$reports/report"
MSAN_OPTIONS="${MSAN_OPTIONS:+$MSAN_OPTIONS:}log_path=$reports/report"
export ASAN_OPTIONS UBSAN_OPTIONS MSAN_OPTIONS

# KEEL_EMULATOR runs a cross-built keel ("qemu-s390x", with
# QEMU_LD_PREFIX naming the target's libraries): the unit programs and
# keel test run under it. tests/scripts.sh, which runs the host's tools
# around keel's, is skipped, and says so.
emulator=${KEEL_EMULATOR:-}

# Each step runs under a time limit: a hang fails it (status 124)
# instead of stalling the run, and CI, for ever.
limit=${KEEL_CHECK_TIMEOUT:-1800}
limited() {
	if command -v timeout >/dev/null 2>&1; then
		timeout -k 10 "$limit" "$@"
	else
		"$@"
	fi
}

count() { # exit-status
	# Add the last "N passed, M failed" line of $log to the totals.
	line=$(grep -E '[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
	if [ -z "$line" ]; then
		echo "  (no summary line: counted as 1 failure)"
		failed=$((failed + 1))
		return
	fi
	p=$(echo "$line" | awk '{ for (i = 2; i <= NF; i++) if ($i ~ /^passed,?$/) { print $(i-1); exit } }')
	f=$(echo "$line" | awk '{ for (i = 2; i <= NF; i++) if ($i ~ /^failed,?$/) { print $(i-1); exit } }')
	# A program that failed after its summary (a leak found at exit)
	# has a failure its line does not count.
	if [ "$1" != 0 ] && [ "$f" = 0 ]; then
		echo "  (exit status $1 after '$line': counted as 1 failure)"
		f=1
	fi
	passed=$((passed + p))
	failed=$((failed + f))
}

# A locale with a decimal comma, for test_locale (the library reads and
# writes numbers as C does, whatever locale the program that embeds it
# chose): made once into the build directory where localedef and its
# sources are installed (Debian's libc-bin and locales; about a second).
# Without it, test_locale's summary says it skipped. Only made when
# test_locale is among the programs to run (tests/scripts.sh runs this
# script on stub builds four times: 1.3 s each, for nothing).
locales="$build/locale"
wants_locale=
for t in "$@"; do
	case $t in */test_locale) wants_locale=1 ;; esac
done
if [ -n "$wants_locale" ] && [ ! -d "$locales/de_DE.UTF-8" ] &&
	command -v localedef >/dev/null 2>&1; then
	mkdir -p "$locales"
	localedef -i de_DE -f UTF-8 "$locales/de_DE.UTF-8" >/dev/null 2>&1 ||
		rm -rf "$locales/de_DE.UTF-8"
fi
if [ -d "$locales/de_DE.UTF-8" ]; then
	LOCPATH=$(cd "$locales" && pwd)
	export LOCPATH
fi

# tests/scripts.sh, the longest step (four fifths of the whole on one
# core), runs beside the others, its output kept until they are done:
# on two cores make check took 54 s one after the other. It runs the
# host's tools around keel's, so not under an emulator.
scripts_pid=
if [ -f tests/scripts.sh ] && [ -z "$emulator" ]; then
	limited sh tests/scripts.sh "$build" >"$scripts_log" 2>&1 &
	scripts_pid=$!
fi

for t in "$@"; do
	[ -x "$t" ] || continue
	st=0
	# shellcheck disable=SC2086 # (the emulator's words, or none)
	limited $emulator "$t" >"$log" 2>&1 || { st=$?; cat "$log"; }
	grep -E '[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1 | sed 's/^/  unit /'
	count "$st"
done

if [ -d tests/filetests ]; then
	st=0
	# shellcheck disable=SC2086
	limited $emulator "$build"/keel test tests/filetests >"$log" 2>&1 ||
		{ st=$?; cat "$log"; }
	tail -n 1 "$log" | sed 's/^/  filetests: /'
	count "$st"
fi

if [ -d tests/failing ]; then
	# Tests of the checkers themselves: every file here must fail, with
	# the failure its '; expect-fail:' lines name. (3 s a file: hang.kl
	# waits for it; the slowest other file took 0.37 s under ASan on a
	# loaded CPU, and clang's sanitizers are slower still.)
	st=0
	# shellcheck disable=SC2086
	limited $emulator "$build"/keel test --expect-fail --timeout 3 \
		tests/failing >"$log" 2>&1 || { st=$?; cat "$log"; }
	tail -n 1 "$log" | sed 's/^/  failing (expected to fail): /'
	count "$st"
fi

# keel reduce runs shell commands that run keel: the host's, so not under
# an emulator either.
if [ -f tests/reduce.sh ] && [ -n "$emulator" ]; then
	echo "  reduce: skipped under $emulator"
elif [ -f tests/reduce.sh ]; then
	st=0
	limited sh tests/reduce.sh "$build" >"$log" 2>&1 || { st=$?; cat "$log"; }
	tail -n 1 "$log" | sed 's/^/  reduce: /'
	count "$st"
fi

if [ -f tests/scripts.sh ] && [ -n "$emulator" ]; then
	echo "  scripts: skipped under $emulator"
elif [ -n "$scripts_pid" ]; then
	st=0
	wait "$scripts_pid" || st=$?
	cat "$scripts_log" >"$log"
	[ "$st" = 0 ] || cat "$log"
	tail -n 1 "$log" | sed 's/^/  scripts: /'
	count "$st"
fi

for r in "$reports"/report.*; do
	[ -e "$r" ] || continue
	echo "  sanitizer report $r: counted as 1 failure"
	cat "$r"
	failed=$((failed + 1))
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
