#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The demo, run inside the VM by `make demo`: fio io_uring 4k random reads on
# null_blk, comparing schedulers and polled against interrupt completion.
# "irq" rows complete from a timer interrupt (null_blk irqmode=2,
# completion_nsec=0: an hrtimer per request, in hardirq context); irqmode=1
# would complete inline in the submitter here: 6.1's
# blk_mq_complete_request() raises a softirq only on a device with a single
# hardware queue shared by several CPUs, and the poll queue makes more than
# one.  "polled" rows go to the poll queue, where null_blk ignores irqmode.
# Each configuration runs REPS times, interleaved; the table shows medians.
# Absolute IOPS under software emulation mean little: read the ratios.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/bench.sh"
REPS=${1:-3}
SECS=${2:-2}

nullb_load queue_mode=2 nr_devices=2 submit_queues=2 poll_queues=1 \
	irqmode=2 completion_nsec=0 hw_queue_depth=256 gb=4
run modprobe split-deadline
modprobe kyber-iosched
# pdm linear over the second, identical device (pdm holds it exclusively).
run modprobe pdm
run pdmsetup create demo --table \
	"0 $(cat /sys/block/nullb1/size) linear /dev/nullb1 0" >/dev/null

configs=("none irq" "mq-deadline irq" "kyber irq" "split-deadline irq"
	 "none polled" "mq-deadline polled" "split-deadline polled"
	 "pdm irq" "pdm polled" "pdm-tracked irq" "pdm-tracked polled")
# A line per run, [k/N], so that a first `make demo` shows where it is.
k=0
n=$((REPS * ${#configs[@]}))
for _ in $(seq "$REPS"); do
	for c in "${configs[@]}"; do
		k=$((k + 1))
		printf '[%d/%d] ' "$k" "$n"
		read -r sched completion <<<"$c"
		dev=/dev/pdm0
		case $sched in
		pdm) echo direct >/sys/block/pdm0/pdm/poll_mode ;;
		pdm-tracked) echo tracked >/sys/block/pdm0/pdm/poll_mode ;;
		*)
			set_sched nullb0 "$sched"
			dev=/dev/nullb0
			;;
		esac
		hipri=0
		[ "$completion" = polled ] && hipri=1
		bench_fio "$c" --filename=$dev --ioengine=io_uring \
			--direct=1 --bs=4k --rw=randread --iodepth=32 \
			--iodepth_batch_submit=16 --iodepth_batch_complete=16 \
			--hipri=$hipri --runtime="$SECS" --time_based \
			--ramp_time=0.5
	done
done

echo
echo "fio io_uring 4k randread, QD32 batched, 1 job, null_blk; $REPS reps x ${SECS}s, medians"
printf '%-22s %10s %8s %14s\n' configuration IOPS ratio "CPU us/IO"
for c in "${configs[@]}"; do
	printf '%-22s %10s %8s %14s\n' "$c" "$(bench_median "$c")" \
		"$(bench_ratio "$c" "none irq")" "$(median "${BENCH_CPU[$c]}")"
done
echo "(ratio: against 'none irq'; irq: completed by a timer interrupt, null_blk"
echo " irqmode=2 completion_nsec=0; polled: reaped from the poll queue; pdm is a"
echo " linear pdm device over an identical null_blk device, in its default"
echo " poll_mode direct and in tracked; emulated time is noisy, compare ratios)"
run pdmsetup remove demo
