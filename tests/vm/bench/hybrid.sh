#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Hybrid polling benchmark, run inside the VM by scripts/bench.sh: pdm
# linear over a lower device with real service time on its poll queue,
# 4k random reads, IRQ (hipri=0) against polling with hybrid off
# ("classic"), "gate" and "sleep", over the test-only slowpoll disk at
# 100 us and at 1 ms (tests/modules/blkfast-slowpoll.c; skipped, saying
# why, where it does not load), over QEMU's NVMe, and over a mixed table
# (its first half on slowpoll at 1 ms, its second on null_blk's poll
# queue), at QD1 and QD32, one job and one job per vCPU.  The mixed
# table's fast half is null_blk, not a second NVMe disk, because QEMU
# emulates NVMe in its main loop, a host thread that competes with the
# vCPUs for 2 host CPUs: with 2 jobs, sleep over slowpoll + NVMe lost
# 0.30 of classic's IOPS to NVMe reads of 2-4 ms, where over slowpoll +
# null_blk it loses 0.04-0.06.  One-job runs stay on
# vCPU 0, away from QEMU's main loop (scripts/bench.sh pins it with the
# last vCPU).  Configurations are interleaved, rotated per repeat;
# medians.  Per configuration: IOPS, the polling threads' CPU per
# I/O (fio's usr and sys, us), and the guest's idle share of all CPU time
# over the run (/proc/stat).
#
# Arguments (KEY=VALUE): reps=5 secs=2
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/bench.sh"

bench_args "" "$@"
ncpu=$(nproc)

run modprobe nvme poll_queues=1
wait_for_block nvme0n1
run modprobe pdm
run pdmsetup create nv --table "0 $(cat /sys/block/nvme0n1/size) linear /dev/nvme0n1 0" >/dev/null
declare -A dev=([nvme]=pdm0)
lowers=(nvme)
slowpoll_skipped=''
if why=$(modprobe blkfast-slowpoll service_us=100 2>&1); then
	wait_for_block slowpoll0
	# The slowpoll rows read the first half; "mix" reads both.
	nullb_load queue_mode=2 submit_queues=1 poll_queues=1 gb=1
	half=$((256 * 2048))
	run pdmsetup create sp --table "$(printf '0 %s linear /dev/slowpoll0 0\n%s %s linear /dev/nullb0 0' \
		$half $half $half)" >/dev/null
	dev[sp100]=pdm1 dev[sp1000]=pdm1 dev[mix]=pdm1
	lowers=(sp100 sp1000 mix nvme)
else
	why=${why:-modprobe blkfast-slowpoll failed}
	slowpoll_skipped=${why//$'\n'/; }
fi

# idle_ticks: the guest's idle and total CPU ticks so far.
idle_ticks() {
	awk '$1 == "cpu" { t = 0; for (i = 2; i <= NF; i++) t += $i
		print $5 + $6, t }' /proc/stat
}

modes=(irq classic gate sleep)
declare -A IDLE
configs=()
for l in "${lowers[@]}"; do
	for qd in 1 32; do
		for j in 1 "$ncpu"; do
			for m in "${modes[@]}"; do
				configs+=("$l qd$qd j$j $m")
			done
		done
	done
done
for rep in $(seq "$REPS"); do
	for k in $(bench_rotate "${#configs[@]}" "$rep"); do
		c=${configs[$k]}
		read -r l qd j m <<<"$c"
		d=${dev[$l]}
		case $l in
		sp*) echo "${l#sp}" >/sys/module/blkfast_slowpoll/parameters/service_us ;;
		mix) echo 1000 >/sys/module/blkfast_slowpoll/parameters/service_us ;;
		esac
		size=256m
		[ "$l" = mix ] && size=512m
		pin=()
		[ "$j" = j1 ] && pin=(--cpus_allowed=0)
		h=off hipri=1
		case $m in
		irq) hipri=0 ;;
		gate | sleep) h=$m ;;
		esac
		echo "$h" >/sys/block/"$d"/pdm/hybrid
		# The estimate of the last configuration on this device is
		# not this one's: a short run learns it first.
		fio_run warm --filename=/dev/"$d" --ioengine=io_uring --direct=1 \
			--bs=4k --rw=randread --iodepth="${qd#qd}" --hipri=$hipri \
			--number_ios=200 --size=$size "${pin[@]}"
		read -r i0 t0 <<<"$(idle_ticks)"
		bench_fio "$c" --filename=/dev/"$d" --ioengine=io_uring \
			--direct=1 --bs=4k --rw=randread --iodepth="${qd#qd}" \
			--numjobs="${j#j}" --hipri=$hipri --size=$size "${pin[@]}" \
			--runtime="$SECS" --time_based
		read -r i1 t1 <<<"$(idle_ticks)"
		IDLE[$c]+=" $(awk -v i=$((i1 - i0)) -v t=$((t1 - t0)) \
			'BEGIN { printf "%.1f", t ? 100 * i / t : 0 }')"
	done
done

echo
for l in "${lowers[@]}"; do
	case $l in
	sp100) what="slowpoll, 100 us service time" ;;
	sp1000) what="slowpoll, 1 ms service time" ;;
	mix) what="a mixed table (slowpoll at 1 ms, then null_blk's poll queue)" ;;
	nvme) what="QEMU NVMe (1 poll queue)" ;;
	esac
	echo "### Hybrid polling: pdm linear over $what, 4k randread, $ncpu vCPUs, $REPS x ${SECS}s"
	echo
	echo "| QD | jobs | mode | IOPS (median) | vs classic | CPU us/IO usr | sys | total | vs classic | guest idle % |"
	echo "|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|"
	for qd in 1 32; do
		for j in 1 "$ncpu"; do
			base="$l qd$qd j$j classic"
			for m in "${modes[@]}"; do
				c="$l qd$qd j$j $m"
				echo "| $qd | $j | $m | $(bench_median "$c") | $(bench_ratio "$c" "$base") | $(median "${BENCH_USR[$c]}") | $(median "${BENCH_SYS[$c]}") | $(median "${BENCH_CPU[$c]}") | $(ratio "$(median "${BENCH_CPU[$c]}")" "$(median "${BENCH_CPU[$base]}")") | $(median "${IDLE[$c]}") |"
			done
		done
	done
	echo
done
[ -z "$slowpoll_skipped" ] || echo "- slowpoll rows skipped: $slowpoll_skipped"
for d in pdm0 pdm1; do
	[ -d /sys/block/$d ] || continue
	echo "- $d: sleeps $(cat /sys/block/$d/pdm/hybrid_sleeps), late wake-ups $(cat /sys/block/$d/pdm/hybrid_late_wakeups), learned wake-up lateness $(cat /sys/block/$d/pdm/hybrid_wake_late_ns) ns, first poll after a sleep found a completion $(cat /sys/block/$d/pdm/hybrid_sleep_ready) / not yet $(cat /sys/block/$d/pdm/hybrid_sleep_early) times"
done
echo "PASS"
