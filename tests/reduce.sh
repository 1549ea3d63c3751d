#!/bin/sh
# Tests of `keel reduce` (docs/reduce.md): what it makes of a program, that
# every candidate it tries verifies, its output file, its errors, its
# temporary files and an interrupt. Usage: tests/reduce.sh BUILD.
# Ends with "N passed, N failed".
build=${1:-build}
keel=$(cd "$build" && pwd)/keel
dir="$build/reduce"
rm -rf "$dir"
mkdir -p "$dir/tmp"
dir=$(cd "$dir" && pwd)
passed=0
failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL $*"; }
# Candidates go to $TMPDIR: each test checks that none is left there.
TMPDIR="$dir/tmp"
export TMPDIR
no_temp_left() {
	if [ -z "$(ls -A "$TMPDIR")" ]; then ok; else
		bad "$1: left in TMPDIR: $(ls -A "$TMPDIR")"
		rm -rf "${TMPDIR:?}"/*
	fi
}

# ---- a division by zero deep in a program, kept: the exact result ----
divz_test="$keel run --fuel 100000 \"\$1\" 2>&1 | grep -q 'trap int_divz'"
"$keel" reduce -t "$divz_test" tests/reduce/divz.kl >"$dir/divz.kl" \
	2>"$dir/divz.err"
st=$?
if [ "$st" = 0 ] && cmp -s "$dir/divz.kl" tests/reduce/divz.expected
then ok; else bad "divz.kl: exit $st, $(diff tests/reduce/divz.expected "$dir/divz.kl" | head -5)"; fi
case $(cat "$dir/divz.err") in
"keel reduce: tests/reduce/divz.kl: 1254 -> 222 bytes, 45 tests, 14 kept, "*" s")
	ok ;;
*) bad "divz.kl: summary '$(cat "$dir/divz.err")'" ;;
esac
no_temp_left divz
# ... the same from standard input, and with -v the steps it kept
"$keel" reduce -v -t "$divz_test" - <tests/reduce/divz.kl \
	>"$dir/divz-stdin.kl" 2>"$dir/divz-stdin.err"
if cmp -s "$dir/divz-stdin.kl" tests/reduce/divz.expected &&
	grep -q '^keel reduce: insts 0-8: 990 -> 781 bytes$' "$dir/divz-stdin.err" &&
	[ "$(grep -c '^keel reduce: ' "$dir/divz-stdin.err")" = 15 ]
then ok; else bad "divz.kl from stdin: $(cat "$dir/divz-stdin.err")"; fi
no_temp_left divz-stdin
# ... and to a file with -o: nothing on standard output, no file beside
"$keel" reduce -t "$divz_test" -o "$dir/divz-o.kl" tests/reduce/divz.kl \
	>"$dir/divz-o.out" 2>/dev/null
if cmp -s "$dir/divz-o.kl" tests/reduce/divz.expected &&
	[ ! -s "$dir/divz-o.out" ] && [ ! -e "$dir/divz-o.kl.reducing" ]
then ok; else bad "divz.kl -o: $(ls "$dir")"; fi

# ... and written without indentation or blank lines, shorter than keel
# prints it: the same result (a candidate had to be shorter than the text
# as read, and none was)
sed -e 's/^ *//' -e '/^$/d' -e '/^;/d' tests/reduce/divz.kl >"$dir/compact.kl"
"$keel" reduce -t "$divz_test" "$dir/compact.kl" >"$dir/compact-out.kl" \
	2>/dev/null
if cmp -s "$dir/compact-out.kl" tests/reduce/divz.expected; then ok; else
	bad "compact divz.kl: $(head -3 "$dir/compact-out.kl")"; fi
# ... through a symbolic link given to -o: the link stays, its target
# gets the module
: >"$dir/target.kl"
ln -sf "$dir/target.kl" "$dir/link.kl"
"$keel" reduce -t "$divz_test" -o "$dir/link.kl" tests/reduce/divz.kl \
	2>/dev/null
if [ -L "$dir/link.kl" ] && cmp -s "$dir/target.kl" tests/reduce/divz.expected
then ok; else bad "-o through a link: $(ls -l "$dir/link.kl")"; fi
# ... with a test that writes beside the candidate: nothing left, and
# with a reader that goes away: nothing left either
"$keel" reduce -t "cp \"\$1\" \"\$1.copy\" && $divz_test" \
	tests/reduce/divz.kl >/dev/null 2>&1
no_temp_left "a test writing beside the candidate"
"$keel" reduce -t "$divz_test" tests/reduce/divz.kl 2>/dev/null | true
no_temp_left "a reader gone"
# ... and a test that takes its candidate's directory away stops the
# reduction: status 1, and the smallest module found still printed
"$keel" reduce -t "$divz_test && rm -rf \"\${1%/*}\"" \
	tests/reduce/divz.kl >"$dir/gone.kl" 2>"$dir/gone.err"
st=$?
if [ "$st" = 1 ] && grep -q '^keel reduce: cannot write ' "$dir/gone.err" &&
	grep -q '(stopped: a test could not be run)$' "$dir/gone.err" &&
	"$keel" verify "$dir/gone.kl" 2>/dev/null
then ok; else bad "a directory gone: exit $st, $(cat "$dir/gone.err")"; fi
rm -rf "${TMPDIR:?}"/*

# ---- a generated program whose result is kept: every candidate the test
# sees verifies and is shorter than the last one kept, and the result
# returns what the program did in under a third of its text ----
"$build"/keel-gen --seed 5 --size 400 >"$dir/gen.kl"
want=$("$keel" run "$dir/gen.kl")
cat >"$dir/gen-test.sh" <<EOF
#!/bin/sh
# each candidate: verifies, and its size goes to a log
"$keel" verify "\$1" >/dev/null 2>&1 || echo "unverified" >>"$dir/gen.log"
wc -c <"\$1" >>"$dir/gen.log"
test "\$("$keel" run --fuel 1000000 "\$1" 2>&1)" = "$want"
EOF
: >"$dir/gen.log"
"$keel" reduce -t "sh $dir/gen-test.sh \"\$1\"" "$dir/gen.kl" \
	>"$dir/gen-reduced.kl" 2>"$dir/gen.err"
st=$?
got=$("$keel" run "$dir/gen-reduced.kl" 2>&1)
before=$(wc -c <"$dir/gen.kl")
after=$(wc -c <"$dir/gen-reduced.kl")
if [ "$st" = 0 ] && [ "$got" = "$want" ] && [ $((after * 3)) -lt "$before" ]
then ok; else bad "gen.kl: exit $st, '$got' (want '$want'), $before -> $after bytes"; fi
if ! grep -q unverified "$dir/gen.log" && [ "$(wc -l <"$dir/gen.log")" -gt 50 ]
then ok; else bad "gen.kl: $(grep -c unverified "$dir/gen.log") candidates do not verify, $(wc -l <"$dir/gen.log") tests"; fi
no_temp_left gen
# ... and twice gives the same bytes
"$keel" reduce -t "sh $dir/gen-test.sh \"\$1\"" "$dir/gen.kl" \
	>"$dir/gen-again.kl" 2>/dev/null
if cmp -s "$dir/gen-reduced.kl" "$dir/gen-again.kl"; then ok; else
	bad "gen.kl: two reductions differ"; fi

# ---- a miscompiling pass: the function it gets wrong, alone ----
"$keel" reduce -t "! $keel difftest -q -p debug-miscompile \"\$1\"" \
	"$dir/gen.kl" >"$dir/miscompile.kl" 2>/dev/null
if [ "$(cat "$dir/miscompile.kl")" = "function %f1(i32) -> i64 {
block0(v0: i32):
    v1 = iconst.i64 0
    return v1
}" ]; then ok; else bad "debug-miscompile: $(cat "$dir/miscompile.kl")"; fi

# ---- an interrupt: the test's process group killed, the temporary files
# taken away, and the output file a whole module, the smallest found ----
cat >"$dir/int-test.sh" <<EOF
#!/bin/sh
n=\$(cat "$dir/int.count")
echo \$((n + 1)) >"$dir/int.count"
# (the reducer is the first keel up the line of parents)
if [ "\$n" = 30 ]; then
	p=\$PPID
	while [ "\$(cat /proc/\$p/comm)" != keel ]; do
		p=\$(cut -d' ' -f4 /proc/\$p/stat)
	done
	sleep 30 &
	kill -INT \$p
	wait
fi
test "\$("$keel" run --fuel 1000000 "\$1" 2>&1)" = "$want"
EOF
echo 0 >"$dir/int.count"
start=$(date +%s)
"$keel" reduce -t "sh $dir/int-test.sh \"\$1\"" -o "$dir/int.kl" \
	"$dir/gen.kl" >/dev/null 2>&1
st=$?
took=$(($(date +%s) - start))
if [ "$st" = 130 ] && [ "$took" -lt 20 ] && "$keel" verify "$dir/int.kl" &&
	[ "$(wc -c <"$dir/int.kl")" -lt "$before" ] &&
	[ "$("$keel" run "$dir/int.kl")" = "$want" ]
then ok; else bad "interrupt: exit $st after $took s, $(ls "$dir")"; fi
no_temp_left interrupt

# ---- a test that runs too long counts as not interesting ----
printf 'function %%f() {\nblock0:\n    return\n}\n' >"$dir/tiny.kl"
"$keel" reduce --timeout 1 -t 'sleep 5' "$dir/tiny.kl" >/dev/null \
	2>"$dir/timeout.err"
st=$?
if [ "$st" = 1 ] && [ "$(cat "$dir/timeout.err")" = "keel reduce: $dir/tiny.kl is not interesting: the test 'sleep 5' ran out of time (1 s) on it" ]
then ok; else bad "timeout: exit $st, $(cat "$dir/timeout.err")"; fi
no_temp_left timeout

# ---- bad input and bad usage ----
# expect STATUS STDERR ARGS...: keel reduce ARGS exits with STATUS and
# prints exactly STDERR
expect() {
	want_st=$1 want_err=$2
	shift 2
	"$keel" reduce "$@" >"$dir/out" 2>"$dir/err"
	st=$?
	if [ "$st" = "$want_st" ] && [ "$(cat "$dir/err")" = "$want_err" ] &&
		[ ! -s "$dir/out" ]
	then ok; else bad "keel reduce $*: exit $st, '$(cat "$dir/err")'"; fi
}
expect 1 "keel reduce: $dir/tiny.kl is not interesting: the test 'false' exits with status 1 on it" \
	-t false "$dir/tiny.kl"
expect 1 "keel reduce: $dir/tiny.kl is not interesting: the test 'kill -9 \$\$' was killed by signal 9 on it" \
	-t 'kill -9 $$' "$dir/tiny.kl"
expect 1 "keel reduce: $dir/tiny.kl is not interesting: the test 'exit 200' exits with status 200 on it" \
	-t 'exit 200' "$dir/tiny.kl"
expect 2 "keel reduce: no --test command
(see 'keel reduce --help')" "$dir/tiny.kl"
expect 2 "keel reduce: no input file
(see 'keel reduce --help')" -t true
expect 2 "keel reduce: one file at a time
(see 'keel reduce --help')" -t true "$dir/tiny.kl" "$dir/tiny.kl"
expect 2 "keel reduce: --test needs a command
(see 'keel reduce --help')" -t '' "$dir/tiny.kl"
printf 'function %%f() -> i32 {\nblock0:\n    return\n}\n' >"$dir/broken.kl"
"$keel" reduce -t true "$dir/broken.kl" >"$dir/out" 2>"$dir/err"
st=$?
if [ "$st" = 1 ] && grep -q "does not verify" "$dir/err" && [ ! -s "$dir/out" ]
then ok; else bad "broken.kl: exit $st, $(cat "$dir/err")"; fi
printf 'function %%f( {\n' >"$dir/unparsed.kl"
"$keel" reduce -t true "$dir/unparsed.kl" >"$dir/out" 2>"$dir/err"
st=$?
if [ "$st" = 1 ] && grep -q "unparsed.kl:1:" "$dir/err" && [ ! -s "$dir/out" ]
then ok; else bad "unparsed.kl: exit $st, $(cat "$dir/err")"; fi
if "$keel" reduce --help | grep -q '^usage: keel reduce --test CMD'; then ok
else bad "keel reduce --help"; fi
no_temp_left errors

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
