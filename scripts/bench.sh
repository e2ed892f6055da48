#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench`: every comparison the project claims, each in one VM boot
# with its configurations interleaved and repeated, gathered into one
# report, build/bench/report.md, with SVG plots beside it.
#
#   scripts/bench.sh [--quick] [--host] [--only=PARTS] [GUEST-ARGS...]
#     --quick   1 repeat of 1 s per point: checks the harness, means nothing
#     --only    a comma-separated subset of the parts: sched, pdm, poll,
#               hybrid, lat (`make bench-sched` is --only=sched)
#     --host    run the same guest scripts on this machine instead of in a
#               VM (a real Debian 12 machine: root, pdm.ko/split-deadline.ko
#               built for the running kernel; null_blk and nvme modules);
#               GUEST-ARGS name real devices, e.g. sched_dev=nvme0n1
#               pdm_devs=nvme0n1,nvme1n1,nvme2n1 (see the guest scripts)
#     --report  only rebuild the report from the last run's logs
#     --kernels=LINES  the kernel lines to boot, one after the other:
#               6.1, 6.12 or both (the default, "6.1,6.12"): each line's
#               report in build/bench/LINE/, and build/bench/report.md
#               puts their headlines side by side, each against its own
#               kernel's mq-deadline and dm-linear
#   BENCH_REPEATS (default 5), BENCH_SECS (default 2), BENCH_CPUS (the
#   scheduler part's vCPU counts, one boot each; default "2 8")
#
# The scheduler part boots once per vCPU count.  QEMU's vCPU threads are
# pinned (scripts/pin-vcpus.sh: vCPU n on host CPU n mod host CPUs): a
# boot with no more vCPUs than host CPUs is the "pinned" point (real
# parallelism), one with more the "oversubscribed" high-contention point
# (several vCPUs share each host CPU, so lock holders get preempted).
# Each part's table says whether the pinning took.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
# The guest-side halves of the benchmarks.
guest=$top/tests/vm/bench
# shellcheck source=scripts/config.sh
. "$here/config.sh"
quick=0 host=0 report_only=0 only=sched,pdm,poll,hybrid,lat
kernels=6.1,6.12
guest_args=()
for a in "$@"; do
	case $a in
	--quick) quick=1 ;;
	--host) host=1 ;;
	--report) report_only=1 ;;
	--only=*) only=${a#*=} ;;
	--kernels=*) kernels=${a#*=} ;;
	*=*) guest_args+=("$a") ;;
	*) echo "bench.sh: unknown argument '$a'" >&2; exit 2 ;;
	esac
done
# --host measures this machine's kernel: it must be one of the two lines
# blkfast builds for (6.1, 6.12), with pdm, split-deadline and null_blk
# there to load, or the report would hold another kernel's numbers (or
# none) under this one's name.
# BLKFAST_HOST_RELEASE stands in for `uname -r` (tests/host/vm-accel.sh).
if [ $host = 1 ] && [ $report_only = 0 ]; then
	rel=${BLKFAST_HOST_RELEASE:-$(uname -r)}
	case $rel in
	6.1.* | 6.12.*) ;;
	*) echo "bench.sh: --host needs Linux 6.1 or 6.12 (Debian 12, 13), this machine runs $rel" >&2
	   exit 2 ;;
	esac
	[ "$(id -u)" = 0 ] || {
		echo "bench.sh: --host loads modules and makes devices: run it as root" >&2
		exit 2
	}
	for m in pdm split-deadline null_blk; do
		modinfo -k "$rel" "$m" >/dev/null 2>&1 || {
			echo "bench.sh: --host: no module $m for $rel (sudo make install, or the blkfast-dkms package)" >&2
			exit 2
		}
	done
fi
# Several kernel lines: this script once per line, each into its own
# directory, then the side-by-side report (bench_lines below).
[ $host = 0 ] || kernels=host
case ,$kernels, in
,6.1, | ,6.12, | ,host,) ;;
,6.1,6.12, | ,6.12,6.1,)
	rc=0
	for k in 6.1 6.12; do
		BLKFAST_BENCH_OUT=$top/build/bench/$k "$0" "$@" --kernels=$k ||
			rc=1
	done
	"$here/bench-lines.sh" "$top/build/bench" 6.1 6.12 || rc=1
	exit $rc ;;
*) echo "bench.sh: --kernels=$kernels: 6.1, 6.12 or 6.1,6.12" >&2
   exit 2 ;;
esac
# 6.12: Debian's 6.12 kernel, and our modules built for it.
if [ "$kernels" = 6.12 ]; then
	export BLKFAST_FLAVOUR=6.12-amd64
	export BLKFAST_KO_DIR=$top/build/flavour-6.12-amd64
fi

# want PART: PART is among those to run.
want() {
	case ,$only, in *,"$1",*) return 0 ;; esac
	return 1
}
reps=${BENCH_REPEATS:-5} secs=${BENCH_SECS:-2}
[ $quick = 1 ] && reps=1 secs=1
out=${BLKFAST_BENCH_OUT:-$top/build/bench}
mkdir -p "$out"
# A report only ever shows this run's results.
[ $report_only = 1 ] || rm -f "$out"/*.md "$out"/*.svg "$out"/*.log "$out"/*.err
report=$out/report.md
hostcpus=$(nproc)

# Arguments of one guest script: its own KEY=VALUE pairs from GUEST-ARGS
# (prefix stripped: sched_dev=X becomes dev=X for the sched script).
args_for() {
	local prefix=$1 a
	for a in "${guest_args[@]}"; do
		case $a in "$prefix"_*) echo "${a#"$prefix"_}" ;; esac
	done
}

# run_guest NAME VM-OPTIONS SCRIPT ARGS...: one boot (or, with --host, one
# run here); its output goes to $out/NAME.log and its exit status is kept.
cmds=()
failed=()
run_guest() {
	local name=$1 opts=$2 script=$3 rc
	shift 3
	if [ $host = 1 ]; then
		cmds+=("PATH=$top/tools:\$PATH bash $script $*")
		set +e
		PATH=$top/tools:$PATH bash "$script" "$@" >"$out/$name.log" 2>&1
		rc=$?
		set -e
	else
		# shellcheck disable=SC2086
		cmds+=("scripts/vm.sh $opts $(basename "$script") $*")
		set +e
		# shellcheck disable=SC2086
		"$here/vm.sh" $opts "$script" "$@" >"$out/$name.log" 2>&1
		rc=$?
		set -e
	fi
	if [ $rc != 0 ]; then
		failed+=("$name (exit $rc, see $out/$name.log)")
	fi
	echo "bench: $name done (exit $rc)" >&2
}

# part NAME TITLE VCPUS: a part's section of the report: its boot's
# pinning and the markdown its guest script printed, or that --only left
# it out.
part() {
	echo
	echo "## $2"
	echo
	if [ ! -f "$out/$1.log" ] && ! want "$1"; then
		echo "Not run (--only=$only)."
		return
	fi
	echo "vCPU threads: $(pinning "$out/$1.log" "$3")."
	echo
	section "$1"
}

# The markdown a guest script printed after its runs, or why there is none.
section() {
	local md
	md=$(sed -n '/^### /,$p' "$out/$1.log" 2>/dev/null |
		grep -vE '^(vm\.sh|  ok):') || true
	if [ -n "$md" ]; then
		echo "$md"
	else
		echo "**No results:** the $1 run printed no table (see $out/$1.log)."
	fi
}

# pinning LOG VCPUS [brief]: whether scripts/vm.sh pinned that boot's vCPU
# threads, as it said in LOG (its stderr), why not unless brief, and
# whether they were oversubscribed.
pinning() {
	local line why
	if [ $host = 1 ]; then
		echo "not applicable (--host: no VM)"
		return
	fi
	line=$(grep -aE '^vm\.sh: (pinned|pinning FAILED)' "$1" 2>/dev/null |
		tail -n 1) || true
	case $line in
	"vm.sh: pinned "*) printf 'pinned'; why='' ;;
	"vm.sh: pinning FAILED"*) printf '**NOT pinned**'; why=${line#vm.sh: } ;;
	*) printf '**pinning unknown**'
	   why="no word from vm.sh in $(basename "$1")" ;;
	esac
	[ -z "$why" ] || [ "${3:-}" = brief ] || printf ' (%s)' "$why"
	if [ "$2" -gt "$hostcpus" ]; then
		echo ", oversubscribed: $2 vCPUs on $hostcpus host CPUs"
	else
		echo ", $2 vCPUs on $hostcpus host CPUs"
	fi
}

when=$(date -u '+%Y-%m-%d %H:%M UTC')
t0=$(date +%s)
if [ "$kernels" = 6.12 ] && [ $report_only = 0 ]; then
	{ "$here/deps.sh" --flavour "$BLKFAST_FLAVOUR" &&
	  "$here/flavour-modules.sh" "$BLKFAST_FLAVOUR"; } \
		>"$out/build-modules.log" 2>&1 || {
		echo "bench.sh: building for $BLKFAST_FLAVOUR failed: $out/build-modules.log" >&2
		exit 1
	}
fi

sched_cpus=${BENCH_CPUS:-"2 8"} pdm_cpus=2 poll_cpus=4 hybrid_cpus=2 lat_cpus=2
# sched_md N: the scheduler part's report for its N-vCPU boot, from its
# log: what the boot was, the guest's tables, and its individual runs.
sched_md() {
	local c=$1 log=$out/sched-$1cpu.log kind
	if [ $host = 1 ]; then
		kind="this machine, $hostcpus CPUs (--host)"
	elif [ "$c" -le "$hostcpus" ]; then
		kind="a vCPU per host CPU (real parallelism)"
	else
		kind="oversubscribed, high contention"
	fi
	echo "## split-deadline contention benchmark: $c vCPUs, $kind"
	echo
	echo "vCPU threads: $(pinning "$log" "$c")."
	echo
	section "sched-$1cpu"
	echo
	echo "<details><summary>individual runs</summary>"
	echo
	echo '```'
	grep -aE '^(guest|run|meter):' "$log" || true
	echo '```'
	echo "</details>"
}

# run_part NAME VM-OPTIONS: one boot of part NAME (tests/vm/bench/NAME.sh)
# with its GUEST-ARGS, unless --only leaves it out.
run_part() {
	local extra
	want "$1" || return 0
	mapfile -t extra < <(args_for "$1")
	run_guest "$1" "$2" "$guest/$1.sh" reps="$reps" secs="$secs" \
		"${extra[@]}"
}

if [ $report_only = 0 ]; then
	# 1. Schedulers: one boot per vCPU count (one run with --host).
	mapfile -t extra < <(args_for sched)
	[ $host = 0 ] || sched_cpus=$hostcpus
	for c in $sched_cpus; do
		want sched || break
		# Guest memory: the initramfs (~90 MB unpacked) plus per-CPU
		# and per-fio-job overhead; null_blk is not memory backed.
		mem=$((c * 128 + 512 > 1024 ? c * 128 + 512 : 1024))
		# Each fio run takes secs + 0.5 s ramp + start-up (slow under
		# TCG, worse oversubscribed), 3 job counts by default; then a
		# wide margin for a busy host.
		tmo=$((3 * (60 + reps * 3 * 6 * (secs + 3 + 2 * c / hostcpus)) + 300))
		run_guest "sched-${c}cpu" "-c $c -p -m $mem -t $tmo" \
			"$guest/sched.sh" reps="$reps" secs="$secs" "${extra[@]}"
	done
	# 2. Stacked polling: raw, dm-linear, pdm.
	run_part pdm "-c $pdm_cpus -p -t 1200"
	# 3. Polling strategies: 3 pollers need 3 vCPUs; hybrid needs the
	# NVMe disk.
	run_part poll "-c $poll_cpus -p -d 256M -t 1800"
	# 4. Hybrid polling: classic, gate, sleep and IRQ, one job and one
	# per vCPU.  -P: QEMU's main loop, which runs the emulated NVMe and
	# the guest's timers, kept off the one-job runs' vCPU
	# (scripts/pin-vcpus.sh).
	run_part hybrid "-c $hybrid_cpus -p -P -d 256M -t 3000"
	# 5. Scheduler tail latency: several submitting CPUs, QD1-QD4.
	run_part lat "-c $lat_cpus -p -t 1200"
fi
for log in "$out"/sched-*cpu.log; do
	[ -f "$log" ] || continue
	c=${log##*/sched-} c=${c%cpu.log}
	sched_md "$c" >"$out/sched-${c}cpu.md"
done
t1=$(date +%s)

# median_of VALUES...: the median of numbers, one or more per word (as
# tests/vm/lib/lib.sh's median, which runs in the guest).
median_of() {
	printf '%s\n' "$@" | tr -s ' ' '\n' | sort -n |
		awk 'NF { v[++n] = $1 } END { print v[int((n + 1) / 2)] }'
}

# Plots: IOPS medians per configuration per job count.
plot_sched() {
	awk '/^run: jobs=/ {
		for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
		k = f["jobs"] "jobs " f["sched"]; v[k] = v[k] " " f["iops"]
	} END { for (k in v) print k, v[k] }' "$1" |
	while read -r g s vals; do
		echo "$g $s $(median_of "$vals")"
	done | sort -t' ' -k1,1n -s
}
# The scaling model, from the boot with the fewest vCPUs (no more than
# the host's CPUs: its 1-job runs and hold meter are uncontended), checked
# against every scheduler boot.
model_logs=()
for log in $(printf '%s\n' "$out"/sched-*cpu.log | sort -V); do
	[ -f "$log" ] && model_logs+=("$log")
done
rm -f "$out/sched-model.md" "$out/sched-model.svg"
if [ ${#model_logs[@]} -gt 0 ]; then
	"$here/sched-model.sh" "${model_logs[@]}" --plot "$out/sched-model.svg" \
		>"$out/sched-model.md" 2>"$out/sched-model.err" ||
		printf '### Scaling model\n\n**No results:** %s\n' \
			"$(tail -n 1 "$out/sched-model.err")" >"$out/sched-model.md"
fi
for md in "$out"/sched-*cpu.md; do
	[ -f "$md" ] || continue
	c=$(basename "$md" .md)
	plot_sched "$md" | "$here/bench-plot.sh" \
		"split-deadline vs in-kernel schedulers, ${c#sched-}" \
		"IOPS (median)" >"$out/$c.svg" || rm -f "$out/$c.svg"
done
awk '/^run: / { sub(/^run: /, ""); n = split($0, w, " ");
	cfg = w[1]; for (i = 2; i < n && w[i] !~ /=/; i++) cfg = cfg "_" w[i]
	for (i = 2; i <= n; i++) if (w[i] ~ /^iops=/) { split(w[i], kv, "=")
		v[cfg] = v[cfg] " " kv[2] } }
	END { for (c in v) print c, v[c] }' "$out/pdm.log" 2>/dev/null |
while read -r c vals; do
	echo "${c%_*} ${c##*_} $(median_of "$vals")"
done | sort | "$here/bench-plot.sh" "pdm vs dm-linear vs raw null_blk" \
	"IOPS (median)" >"$out/pdm.svg" 2>/dev/null || rm -f "$out/pdm.svg"

{
	echo "# blkfast benchmark report"
	echo
	echo "- Date: $when; $((t1 - t0)) s of runs; $reps repeats x ${secs}s per point$([ $quick = 1 ] && echo ' (QUICK MODE: not a measurement)')"
	if [ $host = 1 ]; then
		echo "- Machine: this host, $(uname -r), $hostcpus CPUs (--host)"
	else
		accel=$(cat "$out"/*.log 2>/dev/null |
			sed -n 's/^vm\.sh: accelerator: //p' | sort -u |
			paste -sd';' -)
		echo "- Guest kernel: $(guest_kver "$BLKFAST_FLAVOUR") (Debian 12), under $(qemu-system-x86_64 --version | head -n 1), ${accel:-accelerator not reported}, on a $hostcpus-CPU host ($(uname -r))"
		printf -- '- vCPU threads, as scripts/vm.sh reported: schedulers'
		sep=' '
		while read -r log; do
			[ -f "$log" ] || continue
			n=${log##*/sched-} n=${n%cpu.log}
			printf '%s%s' "$sep" "$(pinning "$log" "$n" brief)"
			sep='; '
		done < <(printf '%s\n' "$out"/sched-*cpu.log | sort -V)
		[ "$sep" = '; ' ] || printf ' not run'
		for p in "pdm:stacked polling:$pdm_cpus" \
			 "poll:polling strategies:$poll_cpus" \
			 "hybrid:hybrid polling:$hybrid_cpus" \
			 "lat:tail latency:$lat_cpus"; do
			IFS=: read -r name what n <<<"$p"
			[ -f "$out/$name.log" ] || continue
			printf '; %s %s' "$what" "$(pinning "$out/$name.log" "$n" brief)"
		done
		echo " (each table says why when not pinned)"
	fi
	echo
	echo "**Read the ratios, not the IOPS.** Under software emulation absolute"
	echo "numbers mean little (a guest runs some 20-50x slower than the hardware"
	echo "and a busy host stalls it); configurations were interleaved in one boot"
	echo "and repeated, and the medians' ratios are the result. Spreads"
	echo "(min-max) show how far one run can be trusted."
	echo
	echo "Commands:"
	echo
	echo '```'
	printf '%s\n' "${cmds[@]}"
	echo '```'
	if [ ${#failed[@]} -gt 0 ]; then
		echo
		echo "**Failed:** ${failed[*]}"
	fi
	echo
	echo "## Schedulers"
	nsched=0
	for md in "$out"/sched-*cpu.md; do
		[ -f "$md" ] || continue
		nsched=$((nsched + 1))
		echo
		sed 's/^## /### /; s/^### \([0-9]\)/#### \1/' "$md"
		svg=$(basename "$md" .md).svg
		[ -f "$out/$svg" ] && printf '\n![%s](%s)\n' "$svg" "$svg"
	done
	if [ -f "$out/sched-model.md" ]; then
		echo
		cat "$out/sched-model.md"
		[ -f "$out/sched-model.svg" ] &&
			printf '\n![sched-model](sched-model.svg)\n'
	fi
	if [ $nsched = 0 ] && ! want sched; then
		echo
		echo "Not run (--only=$only)."
	elif [ $nsched = 0 ]; then
		echo
		echo "**No results:** no scheduler boot ran (see $out/sched-*cpu.log)."
	fi
	echo
	part pdm "Stacked polling" $pdm_cpus
	[ -f "$out/pdm.svg" ] && printf '\n![pdm](pdm.svg)\n'
	part poll "Polling strategies" $poll_cpus
	part hybrid "Hybrid polling: classic, gate, sleep, IRQ" $hybrid_cpus
	part lat "Scheduler tail latency" $lat_cpus
} >"$report"
cat "$report"
echo "bench: report in $report" >&2
[ ${#failed[@]} = 0 ]
