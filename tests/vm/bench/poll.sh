#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# pdm polling strategies benchmark, run inside the VM by scripts/bench.sh
# (needs at least 3 vCPUs and one emulated NVMe disk).  Two tables:
#
# 1. Shared poll queues (the 2021 dm polling table): 3 fio jobs polling a
#    pdm linear device over nullb0 and a 2-leg striped one over nullb1 and
#    nullb2, each lower device with a single poll queue for the 3 pollers:
#    IRQ (hipri=0) against poll_mode sweep_wait, sweep and tracked.  The
#    IRQ rows complete from an interrupt: null_blk irqmode=2 with
#    completion_nsec=0, an hrtimer per request firing at once (irqmode=1
#    would complete inline in the submitter here: with a poll queue there
#    are 2 hardware queues, and 6.1 then raises no softirq); polled I/O
#    ignores irqmode.  One short untimed run per row before the timed
#    ones counts, with kretprobes, how the lower requests completed.
# 2. Hybrid polling on lower devices with real service time on their poll
#    queue: QEMU's NVMe (whose service time wanders under TCG) and the
#    test-only slowpoll disk (tests/modules/blkfast-slowpoll.c, a fixed
#    100 us; skipped, saying why, where that module does not load): lower
#    poll calls per I/O and IOPS, hybrid=1 against hybrid=0, at QD1 and at
#    QD32.
#
# Arguments (KEY=VALUE): reps=5 secs=2
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/bench.sh"

bench_args "" "$@"
[ "$(nproc)" -ge 3 ] || fail "needs 3 vCPUs for 3 pollers, has $(nproc)"

nullb_load queue_mode=2 nr_devices=3 submit_queues=1 poll_queues=1 \
	irqmode=2 completion_nsec=0 hw_queue_depth=256 gb=4
run modprobe nvme poll_queues=1
wait_for_block nvme0n1
run modprobe pdm
s=$(cat /sys/block/nullb0/size)
run pdmsetup create lin --table "0 $s linear /dev/nullb0 0" >/dev/null
run pdmsetup create str --table "0 $((2 * s)) striped 2 8 /dev/nullb1 0 /dev/nullb2 0" >/dev/null
run pdmsetup create nv --table "0 $(cat /sys/block/nvme0n1/size) linear /dev/nvme0n1 0" >/dev/null
# hybrid lower devices: name -> pdm device
declare -A hdev=([nvme]=pdm2)
slowpoll_skipped=''
if why=$(modprobe blkfast-slowpoll service_us=100 2>&1); then
	wait_for_block slowpoll0
	run pdmsetup create sp --table "0 $(cat /sys/block/slowpoll0/size) linear /dev/slowpoll0 0" >/dev/null
	hdev[slowpoll]=pdm3
else
	why=${why:-modprobe blkfast-slowpoll failed}
	slowpoll_skipped=${why//$'\n'/; }
fi
declare -A dev=([linear]=pdm0 [striped]=pdm1)

# lower polls of pdm device $1 so far
lower_polls() {
	cat /sys/block/"$1"/pdm/lower_polls
}

# --- 1. three pollers on one poll queue per lower device ---------------
modes=(irq sweep_wait sweep tracked)
declare -A by
for t in linear striped; do
	for m in "${modes[@]}"; do
		hipri=1
		if [ "$m" = irq ]; then
			hipri=0
		else
			echo "$m" >"/sys/block/${dev[$t]}/pdm/poll_mode"
		fi
		completed_by --filename="/dev/${dev[$t]}" --ioengine=io_uring \
			--direct=1 --bs=4k --rw=randread --iodepth=16 \
			--iodepth_batch_submit=8 --iodepth_batch_complete=8 \
			--hipri=$hipri
		by["$t $m"]=$BY
	done
done
for rep in $(seq "$REPS"); do
	for t in linear striped; do
		for k in $(bench_rotate "${#modes[@]}" "$rep"); do
			m=${modes[$k]}
			hipri=1
			if [ "$m" = irq ]; then
				hipri=0
			else
				echo "$m" >"/sys/block/${dev[$t]}/pdm/poll_mode"
			fi
			p0=$(lower_polls "${dev[$t]}")
			bench_fio "$t $m" --filename="/dev/${dev[$t]}" \
				--ioengine=io_uring --direct=1 --bs=4k \
				--rw=randread --numjobs=3 --iodepth=16 \
				--iodepth_batch_submit=8 \
				--iodepth_batch_complete=8 --hipri=$hipri \
				--runtime="$SECS" --time_based --ramp_time=0.5
			bench_extra "$t $m" "$(bench_per_io \
				$(( $(lower_polls "${dev[$t]}") - p0 )))"
		done
	done
done
skips_lin=$(cat /sys/block/pdm0/pdm/trylock_skips)
skips_str=$(cat /sys/block/pdm1/pdm/trylock_skips)

# --- 2. hybrid -------------------------------------------------------------
hyb=("qd1 classic" "qd1 hybrid" "qd32 classic" "qd32 hybrid")
declare -A est_r
for lower in nvme slowpoll; do
	d=${hdev[$lower]:-}
	[ -n "$d" ] || continue
	echo tracked >/sys/block/"$d"/pdm/poll_mode
	for rep in $(seq "$REPS"); do
		for k in $(bench_rotate "${#hyb[@]}" "$rep"); do
			c=${hyb[$k]}
			read -r depth kind <<<"$c"
			h=0
			[ "$kind" = hybrid ] && h=1
			echo $h >/sys/block/"$d"/pdm/hybrid
			qd=${depth#qd} b=1
			[ "$qd" -gt 1 ] && b=8
			p0=$(lower_polls "$d")
			bench_fio "$lower $c" --filename=/dev/"$d" \
				--ioengine=io_uring --direct=1 --bs=4k \
				--rw=randread --iodepth="$qd" \
				--iodepth_batch_submit=$b \
				--iodepth_batch_complete=$b --hipri=1 \
				--runtime="$SECS" --time_based --ramp_time=0.5
			bench_extra "$lower $c" \
				"$(bench_per_io $(( $(lower_polls "$d") - p0 )))"
		done
	done
	read -r e _ </sys/block/"$d"/pdm/hybrid_estimate_ns
	est_r[$lower]=$e
done

echo
echo "### Shared poll queues: $(nproc) vCPUs, 3 fio jobs (QD16, batch 8), 1 poll queue per lower null_blk, $REPS x ${SECS}s"
echo
echo "Completion: **irq** = hipri=0, completed by a timer interrupt (null_blk" \
	"irqmode=2 completion_nsec=0: an hrtimer per request, in hardirq" \
	"context); the others hipri=1, reaped by polling in pdm's poll_mode of" \
	"that name."
echo
for t in linear striped; do
	bench_table "$t irq" "lower polls/IO" "$t irq" "$t sweep_wait" \
		"$t sweep" "$t tracked"
	echo
	printf -- '- %s, lower requests per I/O completed from the hrtimer /' "$t"
	printf ' reaped by null_poll (kretprobes, one untimed 4000-I/O run each):'
	sep=' '
	for m in "${modes[@]}"; do
		printf '%s%s %s' "$sep" "$m" "${by["$t $m"]}"
		sep=', '
	done
	echo
	echo
done
echo "- sweep/IRQ: linear $(bench_ratio "linear sweep" "linear irq"), striped $(bench_ratio "striped sweep" "striped irq") (upstream 2021 with trylock: 1.13x)"
echo "- sweep/sweep_wait: linear $(bench_ratio "linear sweep" "linear sweep_wait"), striped $(bench_ratio "striped sweep" "striped sweep_wait")"
echo "- tracked/IRQ: linear $(bench_ratio "linear tracked" "linear irq"), striped $(bench_ratio "striped tracked" "striped irq")"
echo "- trylock skips: linear $skips_lin, striped $skips_str"
echo
for lower in nvme slowpoll; do
	[ -n "${hdev[$lower]:-}" ] || continue
	case $lower in
	nvme) what="QEMU NVMe (1 poll queue)" ;;
	slowpoll) what="slowpoll (1 poll queue, 100 us service time)" ;;
	esac
	echo "### Hybrid polling: pdm linear over $what, 4k randread, 1 job, tracked, $REPS x ${SECS}s"
	echo
	bench_table "$lower qd1 classic" "lower polls/IO" "${hyb[@]/#/$lower }"
	echo
	for qd in qd1 qd32; do
		echo "- $qd hybrid/classic: IOPS $(bench_ratio "$lower $qd hybrid" "$lower $qd classic"), lower polls/IO $(ratio \
			"$(median "${BENCH_EXTRA["$lower $qd hybrid"]}")" \
			"$(median "${BENCH_EXTRA["$lower $qd classic"]}")")"
	done
	echo "- learned read estimate: ${est_r[$lower]} ns"
	echo
done
if [ -n "$slowpoll_skipped" ]; then
	echo "### Hybrid polling: pdm linear over slowpoll"
	echo
	echo "**Skipped:** the test-only blkfast-slowpoll module did not load" \
		"($slowpoll_skipped)."
	echo
fi
if [ -n "${hdev[slowpoll]:-}" ]; then
	run pdmsetup remove sp
fi
for d in lin str nv; do
	run pdmsetup remove $d
done
