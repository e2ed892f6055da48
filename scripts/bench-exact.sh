#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench-exact`: the exact cost of an I/O, in guest instructions,
# from VM boots in exact time (scripts/vm.sh -e: QEMU icount, one vCPU):
# tests/vm/bench/exact.sh's matrix twice, in two boots at once (exact
# time does not care what else the host runs), to show that the numbers
# repeat; then one boot of its profiles (perf in the guest); then the
# hybrid polling part (tests/vm/bench/exact-hybrid.sh); and the matrix
# once more on Debian's 6.12 ("612"), beside 6.1's: each kernel's
# mq-deadline and dm-linear against split-deadline and pdm built for it.
# Report: build/bench/exact.md.
#
#   scripts/bench-exact.sh [--report] [--only=matrix,profile,hybrid,612]
#     --report  only rebuild the report from the last run's logs
#   BENCH_EXACT_IOS (default 50000): I/Os per measured run
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
guest=$top/tests/vm/bench
# shellcheck source=scripts/config.sh
. "$here/config.sh"
report_only=0 only=matrix,profile,hybrid,612
for a in "$@"; do
	case $a in
	--report) report_only=1 ;;
	--only=*) only=${a#*=} ;;
	*) echo "bench-exact.sh: unknown argument '$a'" >&2; exit 2 ;;
	esac
done
want() {
	case ,$only, in *,"$1",*) return 0 ;; esac
	return 1
}
ios=${BENCH_EXACT_IOS:-50000}
out=$top/build/bench
mkdir -p "$out"
report=$out/exact.md
profiled=raw,floor,dm-linear,pdm-direct,pdm-tracked,none,mq-deadline,split-deadline

# boot NAME VM-OPTIONS SCRIPT ARGS...: one exact-time boot, its output in
# $out/NAME.log, its exit status in $out/NAME.rc.
boot() {
	local name=$1 opts=$2 script=$3 rc=0
	shift 3
	# shellcheck disable=SC2086 # options, a word each
	"$here/vm.sh" -e $opts "$script" "$@" >"$out/$name.log" 2>&1 || rc=$?
	echo "$rc" >"$out/$name.rc"
	echo "bench-exact: $name done (exit $rc)" >&2
}

t0=$(date +%s)
if [ $report_only = 0 ]; then
	rm -f "$out"/exact*.log "$out"/exact*.rc "$report"
	if want matrix; then
		boot exact-1 "-m 2048 -t 3600" "$guest/exact.sh" ios="$ios" &
		boot exact-2 "-m 2048 -t 3600" "$guest/exact.sh" ios="$ios" &
	fi
	# 6.12: its kernel and our modules built for it, beside 6.1's boots.
	if want 612; then
		{ "$here/deps.sh" --flavour 6.12-amd64 &&
		  "$here/flavour-modules.sh" 6.12-amd64; } >"$out/exact-612.build" 2>&1 &&
		BLKFAST_KO_DIR=$top/build/flavour-6.12-amd64 boot exact-612 \
			"-f 6.12-amd64 -m 2048 -t 3600" "$guest/exact.sh" \
			ios="$ios" ||
			echo 1 >"$out/exact-612.rc" &
	fi
	wait
	if want profile; then
		BLKFAST_VM_PROGS="$(command -v perf)" boot exact-profile \
			"-m 2048 -t 1800" "$guest/exact.sh" ios="$ios" \
			profile=$profiled
	fi
	if want hybrid && [ -f "$guest/exact-hybrid.sh" ]; then
		boot exact-hybrid "-m 2048 -t 3600" "$guest/exact-hybrid.sh"
	fi
fi
t1=$(date +%s)

# kernel_table: boot 1's rows (6.1) beside the 6.12 boot's, each as
# instructions per I/O and as a multiple of its kernel's baseline row of
# the same table (raw, raw-nostats or none).
kernel_table() {
	echo "| configuration | instr/IO 6.1 | instr/IO 6.12 | 6.12 vs 6.1 | vs baseline 6.1 | vs baseline 6.12 |"
	echo "|---|---:|---:|---:|---:|---:|"
	awk 'FNR == 1 { f++ }
		/^exact: / { sub(/^exact: /, ""); c = $0
			sub(/ ns\/io=.*/, "", c)
			for (i = 1; i <= NF; i++) { split($i, kv, "=")
				if (kv[1] == "instr/io") v[c, f] = kv[2] }
			if (f == 1) order[++n] = c }
		END { for (i = 1; i <= n; i++) { c = order[i]
			# The baseline of a row: raw or none at its QD and mode.
			b = c; split(c, w, " ")
			base = w[1] ~ /^(none|mq-deadline|split-deadline|kyber)$/ ? "none" : "raw"
			if (w[1] ~ /-nostats$/) base = base "-nostats"
			sub(/^[^ ]+/, base, b)
			if (!((c, 2) in v)) continue
			printf "| %s | %d | %d | %.3fx | %.3fx | %.3fx |\n", c,
				v[c, 1], v[c, 2], v[c, 2] / v[c, 1],
				v[c, 1] / v[b, 1], v[c, 2] / v[b, 2] } }' \
		"$out/exact-1.log" "$out/exact-612.log"
}

# section NAME: the markdown NAME's guest script printed, or why there
# is none.
section() {
	local md
	md=$(sed -n '/^### /,$p' "$out/$1.log" 2>/dev/null |
		grep -vE '^(vm\.sh|PASS|  ok):') || true
	if [ -n "$md" ]; then
		echo "$md" | grep -vx PASS
	else
		echo "**No results:** $1 printed no table (see $out/$1.log," \
			"exit $(cat "$out/$1.rc" 2>/dev/null || echo '?'))."
	fi
}

# repeat_table: every row of the two matrix boots side by side, and the
# largest difference.
repeat_table() {
	echo "| configuration | ns/IO boot 1 | boot 2 | instr/IO boot 1 | boot 2 |"
	echo "|---|---:|---:|---:|---:|"
	awk 'FNR == 1 { f++ }
		/^exact: / { sub(/^exact: /, ""); c = $0
			sub(/ ns\/io=.*/, "", c)
			for (i = 1; i <= NF; i++) { split($i, kv, "=")
				if (kv[1] == "ns/io") ns[c, f] = kv[2]
				if (kv[1] == "instr/io") in_[c, f] = kv[2] }
			if (f == 1) order[++n] = c }
		END { for (i = 1; i <= n; i++) { c = order[i]
			printf "| %s | %s | %s | %s | %s |\n", c, ns[c, 1],
				ns[c, 2], in_[c, 1], in_[c, 2]
			for (k = 1; k <= 2; k++) {
				d = (k == 1 ? ns[c, 2] - ns[c, 1] : in_[c, 2] - in_[c, 1])
				if (d < 0) d = -d
				r = d / (k == 1 ? ns[c, 1] : in_[c, 1])
				if (r > worst) { worst = r; wc = c; wd = d } } }
		printf "\nLargest difference between the boots: %d ns/IO (%.2f%%), %s.\n",
			wd, 100 * worst, (wc == "" ? "none" : wc) }' \
		"$out/exact-1.log" "$out/exact-2.log"
}

{
	echo "# blkfast exact cost report"
	echo
	echo "- Date: $(date -u '+%Y-%m-%d %H:%M UTC'); $((t1 - t0)) s of boots"
	echo "- Guest kernel: $(guest_kver "$BLKFAST_FLAVOUR") (Debian 12), one vCPU, under $(qemu-system-x86_64 --version | head -n 1), TCG single-threaded with -icount shift=0,sleep=off"
	echo
	echo "**What is exact here.** Every figure below comes from a one-vCPU"
	echo "guest whose clock advances one nanosecond per guest instruction"
	echo "and skips idle waits to the next timer: instr/IO is an"
	echo "instruction count, the same in every boot and on any host, and"
	echo "ns/IO is guest time, exact too (timers fire on time in guest"
	echo "time).  An instruction is not a cycle: a cache miss, a lock's"
	echo "atomic or a TLB refill counts as one.  Nothing with more than"
	echo "one CPU is here: contention between CPUs stays with"
	echo "\`make bench\`'s wall-clock runs and scaling model, which are not"
	echo "exact (two vCPUs under icount hung at boot here)."
	echo
	echo "Commands: \`scripts/vm.sh -e -m 2048 tests/vm/bench/exact.sh ios=$ios\`"
	echo "(twice), the same with \`profile=$profiled\` and"
	echo "\`BLKFAST_VM_PROGS=$(command -v perf || echo /usr/bin/perf)\`, and"
	echo "\`scripts/vm.sh -e tests/vm/bench/exact-hybrid.sh\`."
	echo
	echo "## The matrix (boot 1)"
	echo
	section exact-1
	echo
	echo "## Reproducibility: the same matrix in a second boot"
	echo
	if [ -f "$out/exact-1.log" ] && [ -f "$out/exact-2.log" ]; then
		repeat_table
	else
		echo "**Not run** (--only=$only)."
	fi
	echo
	echo "## Profiles"
	echo
	section exact-profile
	echo
	echo "## Hybrid polling, exact"
	echo
	section exact-hybrid
	echo
	echo "## Linux 6.1 and 6.12 side by side"
	echo
	echo "The matrix of boot 1 (Debian's $(guest_kver amd64)) beside one"
	echo "boot of Debian's $(guest_kver 6.12-amd64), our modules built for"
	echo "each: split-deadline against that kernel's mq-deadline, pdm"
	echo "against its dm-linear.  Instructions per I/O, and each row as a"
	echo "multiple of its kernel's baseline (raw for stacks, none for"
	echo "elevators)."
	echo
	if [ -f "$out/exact-1.log" ] && [ -f "$out/exact-612.log" ]; then
		kernel_table
		echo
		echo "<details><summary>the 6.12 boot's own tables</summary>"
		echo
		section exact-612
		echo
		echo "</details>"
	else
		echo "**Not run** (--only=$only, or the 6.12 build failed:" \
			"$out/exact-612.build)."
	fi
} >"$report"
cat "$report"
echo "bench-exact: report in $report" >&2
bad=0
for rc in "$out"/exact*.rc; do
	[ -f "$rc" ] || continue
	[ "$(cat "$rc")" = 0 ] || bad=1
done
exit $bad
