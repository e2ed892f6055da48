#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host side of `make bench-sched`: one VM boot per vCPU count, each running
# tests/vm/bench/sched.sh (none, mq-deadline, kyber, split-deadline at
# 1, N and 2N fio jobs, interleaved and repeated).  QEMU's vCPU threads are
# pinned (scripts/pin-vcpus.sh: vCPU n on host CPU n mod host CPUs).  A boot
# with no more vCPUs than host CPUs is the "pinned" point (real
# parallelism); one with more is the "oversubscribed" high-contention point
# (several vCPUs share each host CPU, so lock holders get preempted).  Each
# table's title says whether the pinning took (scripts/vm.sh reports it).
# Results go to build/bench/sched-<N>cpu.md, the console to .log.
#
# Environment (the Makefile passes these through):
#   BENCH_CPUS="2 8"   vCPU counts, one boot each
#   BENCH_REPEATS=5    repeats;  BENCH_SECS=2  seconds per fio run
#   BENCH_QUICK=1      1 repeat of 1 s (a smoke test of the harness)
#   BENCH_JOBS=1,4     job counts (default 1,N,2N per boot)
#   BENCH_ARGS="qd=64 batch=16 irqmode=0"  more guest arguments
#   BENCH_MEM, BENCH_TIMEOUT  override guest memory (MB) and the time limit
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
cpus_list=${BENCH_CPUS:-"2 8"}
reps=${BENCH_REPEATS:-5}
secs=${BENCH_SECS:-2}
if [ -n "${BENCH_QUICK:-}" ] && [ "${BENCH_QUICK}" != 0 ]; then
	reps=1 secs=1
fi
hostcpus=$(nproc)
outdir=$top/build/bench
mkdir -p "$outdir"

status=0
for c in $cpus_list; do
	# Guest memory: the initramfs (~90 MB unpacked) plus per-CPU and
	# per-fio-job overhead; null_blk is not memory backed.
	mem=${BENCH_MEM:-$(( c * 128 + 512 > 1024 ? c * 128 + 512 : 1024 ))}
	jobs=${BENCH_JOBS:-1,$c,$((2 * c))}
	njobs=$(echo "$jobs" | tr ',' '\n' | sort -u | grep -c .)
	# Each fio run takes secs + 0.5 s ramp + start-up (slow under TCG,
	# worse when oversubscribed); then leave a wide margin for a busy host.
	est=$(( 60 + reps * njobs * 4 * (secs + 3 + 2 * c / hostcpus) ))
	tmo=${BENCH_TIMEOUT:-$(( 3 * est + 300 ))}
	args=(reps="$reps" secs="$secs" jobs="$jobs")
	# shellcheck disable=SC2206
	[ -n "${BENCH_ARGS:-}" ] && args+=(${BENCH_ARGS})
	md=$outdir/sched-${c}cpu.md
	log=$outdir/sched-${c}cpu.log
	echo "bench-sched: $c vCPUs on $hostcpus host CPUs; ${args[*]}; -m $mem -t $tmo" >&2
	t0=$(date +%s)
	when=$(date -u '+%Y-%m-%d %H:%M UTC')
	set +e
	out=$("$here/vm.sh" -c "$c" -p -m "$mem" -t "$tmo" -l "$log" \
		"$top/tests/vm/bench/sched.sh" "${args[@]}" 2>"$outdir/sched-${c}cpu.err")
	rc=$?
	set -e
	t1=$(date +%s)
	# What the table measured: vm.sh says whether the pinning took.
	pin=$(grep -aE '^vm\.sh: (pinned|pinning FAILED)' \
		"$outdir/sched-${c}cpu.err" | tail -n 1) || true
	case $pin in
	"vm.sh: pinned "*) pinned='' why='' ;;
	"vm.sh: pinning FAILED"*) pinned="**NOT pinned**" why=${pin#vm.sh: } ;;
	*) pinned="**pinning unknown**" why="vm.sh did not report it" ;;
	esac
	if [ -z "$pinned" ] && [ "$c" -le "$hostcpus" ]; then
		kind="pinned ($c vCPUs on $hostcpus host CPUs, one vCPU thread per host CPU)"
	elif [ -z "$pinned" ]; then
		kind="oversubscribed, high contention ($c vCPUs pinned round-robin on $hostcpus host CPUs)"
	elif [ "$c" -le "$hostcpus" ]; then
		kind="$pinned: $c vCPUs on $hostcpus host CPUs, placed by the host scheduler"
	else
		kind="oversubscribed, high contention, $pinned: $c vCPUs on $hostcpus host CPUs"
	fi
	{
		echo "## split-deadline contention benchmark: $c vCPUs, $kind"
		echo
		echo "Run $when on $(hostname) ($hostcpus host CPUs, load $(cut -d' ' -f1-3 /proc/loadavg) after the run);" \
			"boot took $((t1 - t0)) s; guest args: ${args[*]}; exit $rc."
		[ -z "$why" ] || printf '\nvCPU threads %s: %s.\n' "$pinned" "$why"
		echo
		echo "$out" | sed -n '/@@BENCH-MD-BEGIN@@/,/@@BENCH-MD-END@@/p' |
			sed '/@@BENCH-MD-/d'
		echo
		echo "<details><summary>individual runs</summary>"
		echo
		echo '```'
		echo "$out" | grep -E '^(guest|run):' || true
		echo '```'
		echo "</details>"
	} >"$md"
	if [ $rc -ne 0 ]; then
		{
			echo
			echo "**FAILED** (exit $rc):"
			echo '```'
			echo "$out" | grep -vE '^(guest|run):' | tail -n 30
			tail -n 40 "$outdir/sched-${c}cpu.err"
			echo '```'
		} >>"$md"
		status=1
	fi
	cat "$md"
	echo
	cat "$outdir/sched-${c}cpu.err" >&2
done
exit $status
