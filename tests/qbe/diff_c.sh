#!/bin/sh
# The differential test of keel import-qbe against the system's cc.
# Usage: tests/qbe/diff_c.sh KEEL DIR SIZE FIRST COUNT
# Seeds FIRST to FIRST+COUNT-1 of tests/qbe/gen_qbe_c.py at SIZE, written
# to DIR as SEED.ssa and one all.c, which cc compiles once; each seed's
# program must print the same (standard output and exit status) under
# `keel import-qbe` + `keel run` as compiled by cc, and the same again
# after `keel opt -p promote,inline,sccp,combine,licm,cse,dse,dce,simplify`,
# the pipeline the README gives (the importer's output has allocas, calls to
# small functions, constants to fold and dead code to remove: constants
# of copies, zeros of variables, blocks of QBE's jumps). Prints a line per
# mismatch (`MISMATCH SEED: ...`, the files kept in DIR), then
# "N passed, M failed"; exit 0 when none failed, 1 otherwise.
set -u
keel=$1 dir=$2 size=$3 first=$4 count=$5
here=$(dirname "$0")
mkdir -p "$dir"
seeds=$(awk -v f="$first" -v n="$count" 'BEGIN { for (i = f; i < f + n; i++) print i }')
# shellcheck disable=SC2086
python3 "$here/gen_qbe_c.py" --multi "$size" "$dir" $seeds || exit 1
if ! cc -std=c11 -O0 -w "$dir/all.c" -o "$dir/all" 2>"$dir/cc.err"; then
	echo "cc failed on $dir/all.c:"; head -n 20 "$dir/cc.err"; exit 1
fi
passed=0 failed=0
for s in $seeds; do
	"$dir/all" "$s" >"$dir/$s.c.out" 2>&1
	cst=$?
	if "$keel" import-qbe "$dir/$s.ssa" >"$dir/$s.kl" 2>"$dir/$s.k.out"; then
		"$keel" run "$dir/$s.kl" >"$dir/$s.k.out" 2>&1
		kst=$?
	else
		kst=import
	fi
	dst=$kst
	if [ "$kst" != import ]; then
		if "$keel" opt -p promote,inline,sccp,combine,licm,cse,dse,dce,simplify \
			"$dir/$s.kl" >"$dir/$s.dce.kl" 2>"$dir/$s.d.out"; then
			"$keel" run "$dir/$s.dce.kl" >"$dir/$s.d.out" 2>&1
			dst=$?
		else
			dst=passes
		fi
		cmp -s "$dir/$s.k.out" "$dir/$s.d.out" || dst="$dst (other output)"
	fi
	if [ "$cst" = "$kst" ] && [ "$kst" = "$dst" ] &&
		cmp -s "$dir/$s.c.out" "$dir/$s.k.out"; then
		passed=$((passed + 1))
		rm -f "$dir/$s.ssa" "$dir/$s.kl" "$dir/$s.dce.kl" \
			"$dir/$s.c.out" "$dir/$s.k.out" "$dir/$s.d.out"
	else
		failed=$((failed + 1))
		echo "MISMATCH $s (size $size): cc exit $cst, keel exit $kst," \
			"after the passes $dst;" \
			"kept as $dir/$s.ssa and its C in $dir/all.c:"
		diff "$dir/$s.c.out" "$dir/$s.k.out" | head -n 6 | sed 's/^/    /'
	fi
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
