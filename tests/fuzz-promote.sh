#!/bin/sh
# make fuzz-promote: the differential test of promote with fresh seeds,
# for FUZZ_TIME seconds (default 60). Failing programs are kept in
# BUILD/fuzz-promote/ with the seed in their name. A batch of ten that
# takes over KEEL_FUZZ_BATCH_TIMEOUT seconds (default 600) fails. At least
# one batch runs, whatever FUZZ_TIME says (a clock that ticked between the
# start and the first test used to leave a run of 0 programs that passed).
# The seeds follow the clock unless KEEL_FUZZ_SEED gives the one before
# the first (make check's run of this script gives one: what it generates
# must not change from run to run).
build=${1:-build}
secs=${2:-60}
dir="$build/fuzz-promote"
mkdir -p "$dir"
start=$(date +%s)
seed=${KEEL_FUZZ_SEED:-$(( $(date +%s) % 1000000 * 1000 ))}
runs=0
fails=0
while :; do
	batch=""
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		seed=$((seed + 1))
		f="$dir/seed$seed.kl"
		# (with --blocks 100, functions of more than 64 blocks:
		# promote's compact dominance arrays instead of bit sets)
		# (--pointer-locals: allocas reached through pointers kept
		# in other allocas, which promote takes a level a run)
		case $((seed % 5)) in
		0) opts="--mixed-widths --irreducible" ;;
		1) opts="--mixed-widths --call-density 40 --loop-depth 3 --pointer-locals 40" ;;
		2) opts="--mixed-widths --allocas 12 --blocks 40" ;;
		3) opts="--mixed-widths --aliases 40 --irreducible --pointer-locals 30" ;;
		4) opts="--mixed-widths --allocas 12 --blocks 100 --irreducible" ;;
		esac
		# one in ten: a function of a hundred regions, each with its
		# own allocas (hundreds of slots, placed one by one); one in
		# twenty: whole-slot accesses, through pointers
		case $((seed % 20)) in
		2) opts="--allocas 12 --blocks 40 --call-density 30 --pointer-locals 60" ;;
		9) opts="--shape merged --size 4k --irreducible" ;;
		19) opts="--shape merged --size 4k --mixed-widths --aliases 20 --pointer-locals 30" ;;
		esac
		# shellcheck disable=SC2086
		"$build"/keel-gen --seed "$seed" $opts -o "$f"
		batch="$batch $f"
	done
	# (a time limit: a pass that hangs is a failure, not a stalled run;
	# timeout's 124 is a status past 1 like a crash's)
	# shellcheck disable=SC2086
	out=$(timeout -k 10 "${KEEL_FUZZ_BATCH_TIMEOUT:-600}" "$build"/keel difftest -q -p promote $batch)
	st=$?
	runs=$((runs + 10))
	# A status past 1 is no verdict (a crash, a hang, a keel that
	# could not run): the whole batch counts as failed, is kept, and
	# the run stops there.
	if [ "$st" -gt 1 ]; then
		echo "keel difftest exited with status $st on:$batch"
		fails=$((fails + 10))
		break
	fi
	echo "$out" | grep '^FAIL' && fails=$((fails + $(echo "$out" | grep -c '^FAIL')))
	for f in $batch; do
		echo "$out" | grep -q "FAIL $f" || rm -f "$f"
	done
	[ $(( $(date +%s) - start )) -lt "$secs" ] || break
done
echo "fuzz-promote: $runs programs, $fails failures (kept in $dir)"
[ "$fails" -eq 0 ]
