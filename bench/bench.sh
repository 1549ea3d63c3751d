#!/bin/sh
# bench/bench.sh -- keel's benchmarks, side by side with LLVM 19.
#
#   sh bench/bench.sh BUILD [scaling]
#
# Generates workloads with keel-gen (the same program as keel IR and as
# LLVM IR) into BUILD/bench/, times each operation, and prints one table
# per operation; the tables also go to BUILD/bench/results.md.
#
# keel's figures come from its own in-process phase timers (--time,
# --time-passes), so they measure the phase alone, not process start-up or
# file reading. LLVM's come from `opt -time-passes` where the operation is
# a pass (verify, dominator tree + loops, mem2reg, ADCE) and otherwise from the
# whole process minus the start-up time of the same tool on an empty
# module (llvm-as, opt -S, lli). Each figure is the median of RUNS runs
# (BENCH_RUNS, default 3), each right after a warm-up run of the same
# command (warm_then says why; LLVM's only while its runs take under 2 s);
# BENCH_ONLY="promote interp" runs only those
# tables (parse parse_print verify analyses promote dce sccp simplify cse
# licm refine inline combine dse emit_asm interp native vars; refine has
# no LLVM counterpart; native has none either: it runs keel emit-asm's
# code against keel run and the C of keel emit-c). LLVM
# columns appear when llvm-19 is installed (apt-get install llvm-19); the script installs nothing.
# A pass LLVM runs for longer than BENCH_LLVM_LIMIT seconds (default 60;
# its mem2reg takes minutes on promote-1M) is stopped, not run again,
# and shown as ">LIMIT" with the ratio as a lower bound; an LLVM tool that
# fails is shown as "failed" (no ratio), with its message on stderr. A
# keel run that gives no time is shown as "failed" too, and makes the
# script exit 1 at the end, after every table.
# keel's and LLVM's runs alternate, so that both meet the same spells of
# a shared machine. The huge/small ratio of promote (its issue asks at
# most 1.5x) is also measured from keel's runs of both back to back, and
# so is merged/small: merged is the small functions' code in one
# function, so its ratio is the cost of a function's size alone. Beside
# each shape's block parameters per 1,000 instructions stand, at 100k,
# the phis LLVM's mem2reg adds to the same program.
#
# With "scaling", each operation runs at 10k, 100k, 1M and 4M
# instructions and the time per instruction is printed, with a flag on any
# step where it grows by more than 1.5x; that table goes to
# BUILD/bench/scaling.md, so it does not replace the main results.
set -eu
build=${1:-build}
mode=${2:-tables}
keel="$build/keel"
gen="$build/keel-gen"
dir="$build/bench"
runs=${BENCH_RUNS:-3}
llvm_limit=${BENCH_LLVM_LIMIT:-60}
mkdir -p "$dir"
results="$dir/results.md"
[ "$mode" = scaling ] && results="$dir/scaling.md"

have_llvm=0
if command -v opt-19 >/dev/null 2>&1 && command -v llvm-as-19 >/dev/null 2>&1 \
	&& command -v lli-19 >/dev/null 2>&1; then
	have_llvm=1
fi
have_time=0
[ -x /usr/bin/time ] && have_time=1

# median of the numbers on standard input (blank lines aside)
median() {
	median_line | awk '{ print $1 }'
}

# the line of median first field on standard input (blank lines aside)
median_line() {
	sort -g | awk 'NF { a[++n] = $0 } END { if (n) print a[int((n + 1) / 2)]; else print "" }'
}

now() { date +%s.%N; }

# ---- workloads ----

workload() { # shape size -> prints the base path (without extension)
	base="$dir/$1-$2"
	# Both made again when either is missing: always the same program.
	if [ ! -f "$base.kl" ] || [ ! -f "$base.ll" ]; then
		"$gen" --shape "$1" --size "$2" --seed 1 -o "$base.kl"
		"$gen" --shape "$1" --size "$2" --seed 1 --format ll -o "$base.ll"
	fi
	echo "$base"
}

insts() { # number of instructions of a .kl file (lines that are instructions)
	grep -c '^    [^ ]' "$1"
}

bytes() { wc -c < "$1" | tr -d ' '; }

peak_kb() { # command... -> peak RSS in KB of one run
	if [ "$have_time" = 1 ]; then
		/usr/bin/time -f '%M' "$@" 2>&1 >/dev/null | tail -n 1
	else
		echo ""
	fi
}

# ---- keel timers (milliseconds) ----

keel_parse() { "$keel" cat --time "$1" 2>&1 >/dev/null | awk '/^  parse/ { print $2 }'; }
keel_parse_print() {
	"$keel" cat --time "$1" 2>&1 >/dev/null |
		awk '/^  parse/ { p = $2 } /^  print/ { q = $2 } END { print p + q }'
}
keel_verify() {
	"$keel" verify --time "$1" 2>&1 >/dev/null |
		sed -n 's/.*; verify \([0-9.]*\) ms.*/\1/p'
}
keel_analyses() {
	"$keel" cfg --time --repeat 1 "$1" 2>&1 >/dev/null |
		awk '$1 == "cfg+dom+df+loops" { print $2 }'
}
keel_promote() {
	"$keel" opt -p promote --time-passes "$1" 2>&1 >/dev/null |
		awk '$1 == "promote:" { print $2 }'
}
# dce after promote: what mem2reg leaves dead (LLVM: ADCE after mem2reg)
keel_dce() {
	"$keel" opt -p promote,dce --time-passes "$1" 2>&1 >/dev/null |
		awk '$1 == "dce:" { print $2 }'
}
# sccp after promote (LLVM: SCCP after mem2reg)
keel_sccp() {
	"$keel" opt -p promote,sccp --time-passes "$1" 2>&1 >/dev/null |
		awk '$1 == "sccp:" { print $2 }'
}
# simplify after promote,sccp,dce (LLVM: SimplifyCFG after mem2reg,sccp,adce)
keel_simplify() {
	"$keel" opt -p promote,sccp,dce,simplify --time-passes "$1" \
		2>&1 >/dev/null | awk '$1 == "simplify:" { print $2 }'
}
# cse after promote,sccp (LLVM: EarlyCSE after mem2reg,sccp)
keel_cse() {
	"$keel" opt -p promote,sccp,cse --time-passes "$1" 2>&1 >/dev/null |
		awk '$1 == "cse:" { print $2 }'
}
# licm after promote,sccp (LLVM: LICM after mem2reg,sccp, in the loop
# pass manager with the LoopSimplify and LCSSA it needs, not counted)
keel_licm() {
	"$keel" opt -p promote,sccp,licm --time-passes "$1" 2>&1 >/dev/null |
		awk '$1 == "licm:" { print $2 }'
}
# inline after promote (LLVM: the inliner after mem2reg; it decides by
# its own cost model, so the two do different amounts of work)
keel_inline() {
	"$keel" opt -p promote,inline --time-passes "$1" 2>&1 >/dev/null |
		awk '$1 == "inline:" { print $2 }'
}
# combine after promote,sccp (LLVM: InstCombine after mem2reg,sccp, which
# does much more: known bits, memory, floats)
keel_combine() {
	"$keel" opt -p promote,sccp,combine --time-passes "$1" 2>&1 \
		>/dev/null | awk '$1 == "combine:" { print $2 }'
}
# dse after promote,sccp,cse (LLVM: DSE after mem2reg,sccp,early-cse;
# DSE works on MemorySSA, built for it and not counted)
keel_dse() {
	"$keel" opt -p promote,sccp,cse,dse --time-passes "$1" 2>&1 \
		>/dev/null | awk '$1 == "dse:" { print $2 }'
}
# refine after promote (LLVM has no such pass: its integers have no sign)
keel_refine() {
	"$keel" opt -p promote,refine --time-passes "$1" 2>&1 >/dev/null |
		awk '$1 == "refine:" { print $2 }'
}
# the module as x86-64 assembly (LLVM: llc -O0, its fast instruction
# selector and register allocator, whole process minus start-up: its
# figure counts parsing too)
keel_emit_asm() {
	"$keel" emit-asm --time "$1" 2>&1 >/dev/null |
		awk '$1 == "emit" { print $2 }'
}
keel_interp() { # prints "ms executed"
	"$keel" run --time "$1" 2>&1 >/dev/null |
		sed -n 's/.*executed \([0-9]*\) instructions* in \([0-9.]*\) s.*/\2 \1/p' |
		awk '{ print $1 * 1000, $2 }'
}

# ---- LLVM timers (milliseconds) ----

# An LLVM tool that failed: its message to stderr, "failed" as its time.
llvm_failed() { # output
	echo "bench: LLVM failed: $1" | head -n 3 >&2
	echo "failed"
}

# Wall time of a whole process, in ms ("failed" if it fails: an exit
# status that is not 0 with a message; lli's status is the program's).
process_ms() {
	t0=$(now)
	if ! err=$("$@" 2>&1 >/dev/null) && [ -n "$err" ]; then
		llvm_failed "$err"
		return
	fi
	t1=$(now)
	echo "$t0 $t1" | awk '{ printf "%.3f\n", ($2 - $1) * 1000 }'
}

# opt-19 ARGS... with -time-passes, stopped after the limit: its report
# (stderr) on stdout; empty if stopped, "failed" if it failed.
opt_timed() {
	if out=$(timeout "$llvm_limit" opt-19 "$@" -time-passes \
		-disable-output 2>&1); then
		echo "$out"
	elif [ $? -ne 124 ]; then
		llvm_failed "$out"
	fi
}

# Wall time of a pass in `opt -time-passes` output (ms): the first line
# named $1. The percentages in parentheses are dropped first; what is left
# is user, system, user+system, wall, name. "failed" passes through.
pass_ms() {
	awk -v name="$1" '$0 == "failed" { print; exit }
		{ gsub(/\([^)]*\)/, "") }
		$NF == name && !seen { seen = 1; print $(NF - 1) * 1000 }'
}

empty_ll="$dir/empty.ll"
printf 'define i32 @main() {\n  ret i32 0\n}\n' > "$empty_ll"

llvm_parse() { process_ms llvm-as-19 "$1" -o /dev/null; }
llvm_parse_print() { process_ms opt-19 -S "$1" -o /dev/null; }
llvm_verify() { opt_timed -passes=verify "$1" | pass_ms VerifierPass; }
llvm_analyses() {
	# LLVM's loop analysis needs gigabytes on the deepest nests: give up
	# after the limit rather than swap.
	opt_timed -passes='require<domtree>,require<loops>' "$1" |
		awk '$0 == "failed" { print; exit }
		     { gsub(/\([^)]*\)/, "") }
		     $NF == "DominatorTreeAnalysis" || $NF == "LoopAnalysis" { s += $(NF - 1); n++ }
		     END { if (n) print s * 1000 }'
}
llvm_promote() { opt_timed -passes=mem2reg "$1" | pass_ms PromotePass; }
llvm_dce() { opt_timed -passes=mem2reg,adce "$1" | pass_ms ADCEPass; }
llvm_sccp() { opt_timed -passes=mem2reg,sccp "$1" | pass_ms SCCPPass; }
llvm_simplify() {
	opt_timed -passes=mem2reg,sccp,adce,simplifycfg "$1" |
		pass_ms SimplifyCFGPass
}
llvm_cse() {
	opt_timed -passes=mem2reg,sccp,early-cse "$1" | pass_ms EarlyCSEPass
}
llvm_licm() {
	opt_timed '-passes=mem2reg,sccp,loop-mssa(licm)' "$1" | pass_ms LICMPass
}
llvm_combine() {
	opt_timed '-passes=mem2reg,sccp,instcombine<no-verify-fixpoint>' "$1" |
		pass_ms InstCombinePass
}
llvm_dse() {
	opt_timed -passes=mem2reg,sccp,early-cse,dse "$1" | pass_ms DSEPass
}
llvm_inline() {
	opt_timed '-passes=function(mem2reg),cgscc(inline)' "$1" |
		pass_ms InlinerPass
}
llvm_interp() { process_ms lli-19 -force-interpreter "$1"; }
llvm_emit_asm() {
	if command -v llc-19 >/dev/null 2>&1; then
		process_ms llc-19 -O0 "$1" -o /dev/null
	else
		llvm_failed "llc-19 is not installed"
	fi
}

startup() { # median start-up of a whole-process LLVM tool on the empty module
	for _ in $(seq "$runs"); do "$@"; done | median
}

# ---- one measurement ----

# minus T S: LLVM time T less start-up S (not below 0), or T as it is
# when it is no time ("failed", ">LIMIT").
minus() {
	echo "$1 $2" | awk '$1 !~ /^[0-9.]+$/ { print $1; exit }
		{ v = $1 - $2; print (v > 0 ? v : 0) }'
}

# warm_then COMMAND...: COMMAND's output from a second run right after a
# first one, whose output is dropped. This machine's kernel hands the
# memory a process frees back to the hypervisor some two seconds later
# (free page reporting), and a page the hypervisor took back costs some
# twenty times as much to touch again (0.3 GB/s against 5.5-6 GB/s
# measured): a run after a pause meets that, a run right after another
# gets the pages the first freed. So each timed run measures the tool,
# with the page faults of an ordinary machine, not the hypervisor.
warm_then() {
	"$@" >/dev/null
	"$@"
}

# keel_figure OP FILE: warm_then keel_OP FILE; when keel gives no figure
# (it failed, or its timer lines changed), says so on stderr and marks the
# run failed: the table shows "failed" and the script exits 1 at the end,
# instead of a blank or 0 ms taken for a time.
keel_failed="$dir/keel-failed"
rm -f "$keel_failed"
keel_figure() {
	fig=$(warm_then keel_"$1" "$2")
	if [ -z "$fig" ]; then
		echo "bench: keel gave no $1 time for $2 (run keel on it to see why)" >&2
		echo "$1 $2" >>"$keel_failed"
	fi
	echo "$fig"
}

# measure OP FILE_BASE: prints "keel_ms [keel's other figures] llvm_ms",
# each the median of RUNS runs (keel's line of median time), keel's and
# LLVM's alternating. LLVM's is ">LIMIT_MS" when a run printed no time
# (stopped at the limit) and "failed" when one failed; no more LLVM runs
# are made then.
measure() {
	op=$1 base=$2
	ks="" ls="" stop="" llvm_slow=""
	for _ in $(seq "$runs"); do
		ks="$ks
$(keel_figure "$op" "$base.kl")"
		if [ "$have_llvm" != 1 ] || [ -n "$stop" ] ||
			[ "$op" = refine ]; then
			continue
		fi
		# a warm-up run first, while LLVM's runs are short enough for
		# fresh memory to matter (the first one tells)
		for run in warm-up timed; do
			[ "$run" = warm-up ] && [ -n "$llvm_slow" ] && continue
			v=$(llvm_"$op" "$base.ll")
			case $v in
			"") stop=">$((llvm_limit * 1000))"; break ;;
			failed) stop=failed; break ;;
			esac
			if [ "$run" = timed ]; then
				ls="$ls $v"
			else
				llvm_slow=$(echo "$v" | awk '$1 > 2000 { print "yes" }')
			fi
		done
	done
	k=$(echo "$ks" | median_line)
	# (a failed run counts as no run; none left is a failure)
	if [ -z "$k" ]; then
		k=failed
		[ "$op" = interp ] && k="failed 0"
	fi
	l=""
	if [ "$have_llvm" = 1 ] && [ "$op" != refine ]; then
		l=${stop:-$(echo "$ls" | tr ' ' '\n' | median)}
		case $op in
		parse) l=$(minus "$l" "$su_as") ;;
		parse_print) l=$(minus "$l" "$su_opt") ;;
		interp) l=$(minus "$l" "$su_lli") ;;
		emit_asm) l=$(minus "$l" "$su_llc") ;;
		esac
	fi
	echo "$k $l"
}

peak_of() { # op base -> peak KB of keel doing op
	case $1 in
	parse | parse_print) peak_kb "$keel" cat "$2.kl" ;;
	verify) peak_kb "$keel" verify "$2.kl" ;;
	analyses) peak_kb "$keel" cfg "$2.kl" ;;
	promote) peak_kb "$keel" opt -p promote "$2.kl" ;;
	dce) peak_kb "$keel" opt -p promote,dce "$2.kl" ;;
	sccp) peak_kb "$keel" opt -p promote,sccp "$2.kl" ;;
	simplify) peak_kb "$keel" opt -p promote,sccp,dce,simplify "$2.kl" ;;
	cse) peak_kb "$keel" opt -p promote,sccp,cse "$2.kl" ;;
	licm) peak_kb "$keel" opt -p promote,sccp,licm "$2.kl" ;;
	refine) peak_kb "$keel" opt -p promote,refine "$2.kl" ;;
	inline) peak_kb "$keel" opt -p promote,inline "$2.kl" ;;
	combine) peak_kb "$keel" opt -p promote,sccp,combine "$2.kl" ;;
	dse) peak_kb "$keel" opt -p promote,sccp,cse,dse "$2.kl" ;;
	emit_asm) peak_kb "$keel" emit-asm "$2.kl" ;;
	esac
}

title() {
	case $1 in
	parse) echo "parse (keel cat --time: parse phase; LLVM: llvm-as minus start-up)" ;;
	parse_print) echo "parse + print (keel cat --time; LLVM: opt -S minus start-up)" ;;
	verify) echo "verify (keel verify --time: verifier incl. its analyses; LLVM: opt -passes=verify -time-passes, VerifierPass)" ;;
	analyses) echo "CFG + dominator tree + frontiers + loops (keel cfg --time; LLVM: DominatorTreeAnalysis + LoopAnalysis)" ;;
	promote) echo "promote / mem2reg (keel opt --time-passes; LLVM: opt -passes=mem2reg -time-passes, PromotePass)" ;;
	dce) echo "dce after promote (keel opt -p promote,dce --time-passes, dce's line; LLVM: opt -passes=mem2reg,adce -time-passes, ADCEPass)" ;;
	sccp) echo "sccp after promote (keel opt -p promote,sccp --time-passes, sccp's line; LLVM: opt -passes=mem2reg,sccp -time-passes, SCCPPass)" ;;
	simplify) echo "simplify after promote, sccp, dce (keel opt -p promote,sccp,dce,simplify --time-passes, simplify's line; LLVM: opt -passes=mem2reg,sccp,adce,simplifycfg -time-passes, SimplifyCFGPass)" ;;
	cse) echo "cse after promote, sccp (keel opt -p promote,sccp,cse --time-passes, cse's line; LLVM: opt -passes=mem2reg,sccp,early-cse -time-passes, EarlyCSEPass)" ;;
	licm) echo "licm after promote, sccp (keel opt -p promote,sccp,licm --time-passes, licm's line; LLVM: opt -passes='mem2reg,sccp,loop-mssa(licm)' -time-passes, LICMPass)" ;;
	refine) echo "refine after promote (keel opt -p promote,refine --time-passes, refine's line; LLVM has no such pass)" ;;
	inline) echo "inline after promote (keel opt -p promote,inline --time-passes, inline's line; LLVM: opt -passes='function(mem2reg),cgscc(inline)' -time-passes, InlinerPass, which decides by its own cost model)" ;;
	combine) echo "combine after promote, sccp (keel opt -p promote,sccp,combine --time-passes, combine's line; LLVM: opt -passes='mem2reg,sccp,instcombine<no-verify-fixpoint>' -time-passes, InstCombinePass, which does far more)" ;;
	dse) echo "dse after promote, sccp, cse (keel opt -p promote,sccp,cse,dse --time-passes, dse's line; LLVM: opt -passes=mem2reg,sccp,early-cse,dse -time-passes, DSEPass)" ;;
	emit_asm) echo "x86-64 assembly (keel emit-asm --time: the emitter, its liveness and register allocation; LLVM: llc -O0 minus start-up, which counts parsing too)" ;;
	esac
}

if [ "$have_llvm" = 1 ]; then
	su_as=$(startup process_ms llvm-as-19 "$empty_ll" -o /dev/null)
	su_opt=$(startup process_ms opt-19 -S "$empty_ll" -o /dev/null)
	su_lli=$(startup process_ms lli-19 -force-interpreter "$empty_ll")
	su_llc=0
	if command -v llc-19 >/dev/null 2>&1; then
		su_llc=$(startup process_ms llc-19 -O0 "$empty_ll" -o /dev/null)
	fi
fi

# ---- tables ----

table() { # op shapes sizes
	op=$1 shapes=$2 sizes=$3
	per_inst="" # "shape-size ns/inst" lines, for the promote summary
	echo
	echo "### $(title "$op")"
	echo
	echo "| workload | instructions | MB | keel ms | M inst/s | MB/s | peak MB | B/inst | LLVM ms | keel/LLVM speed |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	for shape in $shapes; do
		for size in $sizes; do
			base=$(workload "$shape" "$size")
			n=$(insts "$base.kl")
			b=$(bytes "$base.kl")
			# shellcheck disable=SC2046 # two words, split on purpose
			set -- $(measure "$op" "$base")
			k=${1:-0} l=${2:-}
			pk=$(peak_of "$op" "$base")
			per_inst="$per_inst
$shape-$size $(echo "$k $n" | awk '{ printf "%.3f", ($2 > 0 ? $1 * 1e6 / $2 : 0) }')"
			echo "$shape-$size $n $b $k ${l:--} ${pk:-0}" | awk '{
				mb = $3 / 1e6; ms = $4; llvm = $5; pk = $6
				if (ms == "failed") {
					printf "| %s | %d | %.1f | failed | - | - | - | - | %s | - |\n", $1, $2, mb, llvm
					next
				}
				ips = ms > 0 ? $2 / ms / 1000 : 0
				mbs = ms > 0 ? mb / ms * 1000 : 0
				if (llvm == "") llvm = "-"
				ratio = (llvm ~ /^[0-9.]+$/ && ms > 0) ? sprintf("%.1fx", llvm / ms) : "-"
				if (llvm ~ /^>/ && ms > 0)
					ratio = sprintf(">%.0fx", substr(llvm, 2) / ms)
				printf "| %s | %d | %.1f | %.2f | %.1f | %.0f | %.0f | %.0f | %s | %s |\n",
					$1, $2, mb, ms, ips, mbs, pk / 1024, pk * 1024 / $2, llvm, ratio
			}'
		done
	done
	if [ "$op" = promote ]; then
		# promote's issue asks that one huge function take at most
		# 1.5x the small functions' time per instruction
		echo
		# huge is its own code; merged is the small functions' code
		# in one function, which tells the cost of a function's size
		# apart from the cost of what its code asks (params_made)
		echo "$per_inst" | awk '
			{ split($1, w, "-"); ns[w[1], w[2]] = $2; size[w[2]] = 1 }
			END {
				for (z in size)
					for (k = 1; k <= 2; k++) {
						big = k == 1 ? "huge" : "merged"
						if (ns["small", z] > 0 && ns[big, z] > 0)
							printf "- %s: one function (%s) %.1f ns an instruction, many small ones %.1f ns: %.2fx (%s)\n",
								z, big, ns[big, z], ns["small", z], ns[big, z] / ns["small", z],
								big == "huge" ? "the issue asks at most 1.5x" : "the same code: the cost of size alone"
					}
			}' | sort
		for one in huge merged; do
			case " $shapes " in *" small "*) ;; *) continue ;; esac
			case " $shapes " in *" $one "*) ;; *) continue ;; esac
			for size in $sizes; do paired_ratio "$one" "$size"; done
		done
		case " $shapes " in
		*" small "*)
			for size in $sizes; do params_made "$shapes" "$size"; done ;;
		esac
		# and linear growth: one shape's time per instruction from
		# 100k to 1M (make bench-scaling goes from 10k to 4M)
		echo "$per_inst" | awk '
			{ split($1, w, "-"); ns[w[1], w[2]] = $2 }
			END {
				n = split("small huge merged promote", shape, " ")
				for (k = 1; k <= n; k++) {
					a = ns[shape[k], "100k"]; b = ns[shape[k], "1M"]
					if (a > 0 && b > 0)
						printf "- %s, 100k to 1M: %.1f to %.1f ns an instruction: %.2fx\n",
							shape[k], a, b, b / a
				}
			}'
	fi
}

# paired_ratio BIG SIZE: promote's BIG/small time per instruction from
# runs made back to back (small, BIG, BIG, small, ...), so that both meet
# the same spell of a shared machine: the ratios in the table divide
# medians taken minutes apart, with LLVM's runs in between. Prints the
# median of the pairs' ratios and their range.
paired_ratio() {
	# (names of their own: sh has no local variables)
	pr_small=$(workload small "$2") pr_big=$(workload "$1" "$2")
	pr_ns=$(insts "$pr_small.kl") pr_nb=$(insts "$pr_big.kl")
	pairs=$((runs > 5 ? runs : 5))
	for k in $(seq "$pairs"); do
		if [ $((k % 2)) = 1 ]; then
			pr_s=$(keel_figure promote "$pr_small.kl")
			pr_b=$(keel_figure promote "$pr_big.kl")
		else
			pr_b=$(keel_figure promote "$pr_big.kl")
			pr_s=$(keel_figure promote "$pr_small.kl")
		fi
		echo "$pr_s $pr_b"
	done | awk -v ns="$pr_ns" -v nb="$pr_nb" '$1 > 0 && $2 > 0 { print ($2 / nb) / ($1 / ns) }' |
		sort -g | awk -v z="$2" -v big="$1" '{ r[++k] = $1 }
			END { if (k) printf "- %s, paired: %s against small, per instruction, runs back to back: %.2fx (median of %d pairs; %.2f-%.2fx)\n",
				z, big, r[int((k + 1) / 2)], k, r[1], r[k] }'
}

# params_made SHAPES SIZE: what each shape asks of promote beyond its
# instructions: the block parameters it makes (each with its branch
# arguments), per 1,000 instructions, from --stats; at 100k, with LLVM,
# also the phis its mem2reg adds to the same program (those in its output
# less those in its input), which tells whether a shape's parameters are
# the program's or keel's placement.
params_made() {
	for shape in $1; do
		base=$(workload "$shape" "$2")
		llvm_phis=-
		if [ "$have_llvm" = 1 ] && [ "$2" = 100k ]; then
			llvm_phis=$(llvm_phis_made "$base.ll")
		fi
		"$keel" opt -p promote --stats "$base.kl" 2>&1 >/dev/null |
			awk -v n="$(insts "$base.kl")" -v s="$shape" -v l="$llvm_phis" \
				'$2 == "params" { printf "%s %.1f %s\n", s, $3 * 1000 / n,
					l ~ /^[0-9]+$/ ? sprintf("%.1f", l * 1000 / n) : "-" }'
	done | awk -v z="$2" '{ line = line sep $1 " " $2; sep = ", "
			if ($3 != "-") { line = line " (LLVM " $3 ")"; llvm = 1 } }
		END { if (line != "")
			printf "- %s: parameters made per 1,000 instructions: %s%s\n", z, line,
				llvm ? "; in parentheses, the phis LLVM 19 mem2reg adds" : "" }'
}

# llvm_phis_made FILE.ll: how many phis opt -passes=mem2reg adds to FILE;
# "-" when it is stopped at the limit or fails.
llvm_phis_made() {
	if timeout "$llvm_limit" opt-19 -passes=mem2reg -S "$1" \
		-o "$dir/mem2reg.ll" 2>/dev/null; then
		echo $(($(grep -c ' = phi ' "$dir/mem2reg.ll") - $(grep -c ' = phi ' "$1")))
	else
		echo -
	fi
	rm -f "$dir/mem2reg.ll"
}

# The median wall time (ms) of RUNS runs of a whole process.
process_median() {
	for _ in $(seq "$runs"); do
		process_ms "$@"
	done | median
}

# keel emit-asm's code against the interpreter and against keel emit-c's
# C compiled by cc, on the loop workloads as generated and after the
# recommended pipeline; whole processes.
native_table() {
	echo
	echo "### native code (keel emit-asm, assembled by cc; against keel run, and keel emit-c's C by cc -O0 and -O2; whole process, median of $runs)"
	echo
	if [ "$(uname -m)" != x86_64 ] || ! command -v cc >/dev/null 2>&1; then
		echo "(needs an x86-64 machine and cc)"
		return
	fi
	echo "| workload | keel run ms | native ms | native/run speed | C -O0 ms | C -O2 ms |"
	echo "|---|---:|---:|---:|---:|---:|"
	for size in 200M 1G; do
		base=$(workload loop "$size")
		for form in as-generated optimised; do
			f="$base.kl"
			if [ "$form" = optimised ]; then
				f="$base-opt.kl"
				"$keel" opt -p promote,inline,sccp,combine,licm,cse,dse,dce,simplify \
					"$base.kl" >"$f"
			fi
			"$keel" emit-asm "$f" >"$f.s" && cc "$f.s" -o "$f.native"
			"$keel" emit-c "$f" >"$f.c"
			cc -O0 "$f.c" -o "$f.c0" -lm
			cc -O2 "$f.c" -o "$f.c2" -lm
			run=$(process_median "$keel" run "$f")
			native=$(process_median "$f.native")
			c0=$(process_median "$f.c0")
			c2=$(process_median "$f.c2")
			echo "loop-$size-$form $run $native $c0 $c2" | awk '{
				printf "| %s | %.1f | %.1f | %.1fx | %.1f | %.1f |\n", $1, $2, $3, ($3 > 0 ? $2 / $3 : 0), $4, $5
			}'
		done
	done
}

interp_table() {
	echo
	echo "### interpret (keel run --time; LLVM: lli -force-interpreter minus start-up)"
	echo
	echo "| workload | executed | keel ms | M inst/s | LLVM ms | keel/LLVM speed |"
	echo "|---|---:|---:|---:|---:|---:|"
	for size in 10M 50M; do
		# shellcheck disable=SC2046 # three words, split on purpose
		set -- $(measure interp "$(workload loop "$size")")
		r="$1 ${2:-0}" l=${3:--}
		echo "loop-$size $r $l" | awk '{
			ms = $2; ex = $3; llvm = $4
			if (ms == "failed") {
				printf "| %s | - | failed | - | %s | - |\n", $1, llvm
				next
			}
			ratio = (llvm ~ /^[0-9.]+$/ && ms > 0) ? sprintf("%.1fx", llvm / ms) : "-"
			printf "| %s | %d | %.1f | %.1f | %s | %s |\n", $1, ex, ms, (ms > 0 ? ex / ms / 1000 : 0), llvm, ratio
		}'
	done
}

vars_table() {
	echo
	echo "### variables (kl_vars_finish; the same program with allocas: promote)"
	echo
	echo "Random programs of bench/vars_program.h, 8 variables, branches to"
	echo "blocks within 16 of their own, or anywhere (span 0); best of $runs."
	echo
	echo "| blocks | span | insts | finish ms | ns/inst | params | promote ms | params |"
	echo "|---:|---:|---:|---:|---:|---:|---:|---:|"
	for span in 16 0; do
		for blocks in 10000 100000; do
			"$build/vars-bench" --runs "$runs" "$blocks" 8 "$span" |
				awk '{
				printf "| %d | %d | %d | %.1f | %.0f | %d | %.1f | %d |\n",
					$2, $4, $1, $6, $6 * 1e6 / $1, $7, $9, $10
			}'
		done
	done
}

scaling() {
	for op in ${BENCH_ONLY:-parse verify analyses promote}; do
		echo
		echo "### $(title "$op"): time per instruction"
		echo
		echo "| shape | 10k | 100k | 1M | 4M |"
		echo "|---|---:|---:|---:|---:|"
		for shape in small huge merged chain nest promote; do
			line="| $shape"
			prev=""
			for size in 10k 100k 1M 4M; do
				base=$(workload "$shape" "$size")
				n=$(insts "$base.kl")
				k=$(for _ in $(seq "$runs"); do keel_figure "$op" "$base.kl"; done | median)
				ns=$(echo "$k $n" | awk '{ printf "%.1f", $2 ? $1 * 1e6 / $2 : 0 }')
				flag=""
				if [ -n "$prev" ]; then
					flag=$(echo "$ns $prev" | awk '{ if ($2 > 0 && $1 / $2 > 1.5) print " (!)" }')
				fi
				line="$line | $ns ns$flag"
				prev=$ns
			done
			echo "$line |"
		done
	done
	echo
	echo "(!) marks a step where the time per instruction grew by more than 1.5x."
}

{
	echo "# keel benchmarks"
	echo
	echo "$(date -u +%Y-%m-%d), $(uname -m), $(nproc) cores; median of $runs runs, each right after a warm-up run."
	if [ "$have_llvm" = 1 ]; then
		echo "LLVM: $(opt-19 --version | sed -n 's/.*LLVM version /LLVM /p' | head -n 1)."
	else
		echo "LLVM 19 is not installed (apt-get install llvm-19): keel figures only."
	fi
	echo "keel/LLVM speed: how many times faster keel is (LLVM ms / keel ms)."
	if [ "$mode" = scaling ]; then
		scaling
	else
		only=${BENCH_ONLY:-parse parse_print verify analyses promote dce sccp simplify cse licm refine inline combine dse emit_asm interp native vars}
		for op in $only; do
			case $op in
			parse | parse_print | verify)
				table "$op" "small huge" "10k 100k 1M" ;;
			analyses) table analyses "huge chain nest" "100k 1M" ;;
			promote) table promote "small huge merged promote" "100k 1M" ;;
			dce) table dce "small huge" "100k 1M" ;;
			sccp) table sccp "small huge" "100k 1M" ;;
			simplify) table simplify "small huge" "100k 1M" ;;
			cse) table cse "small huge" "100k 1M" ;;
			licm) table licm "small huge" "100k 1M" ;;
			refine) table refine "small huge" "100k 1M" ;;
			inline) table inline "small huge" "100k 1M" ;;
			combine) table combine "small huge" "100k 1M" ;;
			dse) table dse "small huge" "100k 1M" ;;
			emit_asm) table emit_asm "small huge" "100k 1M" ;;
			interp) interp_table ;;
			native) native_table ;;
			vars) vars_table ;;
			esac
		done
	fi
} | tee "$results"
echo
echo "(written to $results)"
if [ -s "$keel_failed" ]; then
	echo "bench: keel failed on: $(sort -u "$keel_failed" | tr '\n' ' ')" >&2
	exit 1
fi
