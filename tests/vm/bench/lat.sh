#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Scheduler tail latency, run inside the VM by scripts/bench.sh:
# split-deadline against mq-deadline (and none) in one boot, fio io_uring
# 4k random reads at QD1, QD2 and QD4 per job, one job per vCPU (several
# submitting CPUs), on null_blk completing inside queue_rq.  Per point,
# the completion latency p99, p99.9 and max of all jobs together (us,
# medians over the repeats), interleaved and rotated per repeat.  A
# dispatcher that left a request for blk-mq's 3 ms rerun shows here as a
# p99.9 or max that mq-deadline does not have; vm/sd-dispatch-window is
# the deterministic test of that window.
#
# Arguments (KEY=VALUE): reps=5 secs=2
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/bench.sh"

bench_args "" "$@"
ncpu=$(nproc)
nullb_load queue_mode=2 submit_queues="$ncpu" irqmode=1 hw_queue_depth=1024
scheds=(none mq-deadline split-deadline)
qds=(1 2 4)

# pct N: the value of fio's N-th clat percentile field (of 20, from 18).
pct() {
	local v
	v=$(fio_field $((17 + $1)))
	echo "${v#*=}"
}

declare -A p99 p999 pmax
for qd in "${qds[@]}"; do
	for rep in $(seq "$REPS"); do
		for k in $(bench_rotate ${#scheds[@]} "$rep"); do
			s=${scheds[$k]}
			set_sched nullb0 "$s"
			fio_run lat --filename=/dev/nullb0 --ioengine=io_uring \
				--direct=1 --bs=4k --rw=randread \
				--numjobs="$ncpu" --iodepth="$qd" \
				--runtime="$SECS" --time_based --ramp_time=0.5 \
				--percentile_list=99:99.9
			p99[$qd,$s]+=" $(pct 1)" p999[$qd,$s]+=" $(pct 2)"
			pmax[$qd,$s]+=" $(fio_field 15)"
			echo "run: qd=$qd rep=$rep sched=$s iops=$(fio_field 8)" \
				"p99=$(pct 1) p99.9=$(pct 2) max=$(fio_field 15)"
		done
	done
done

echo "### Completion latency, $ncpu jobs on $ncpu vCPUs"
echo
echo "fio io_uring 4k randread, one job per vCPU, null_blk ($ncpu submit" \
	"queues, irqmode=1); $REPS repeats x ${SECS}s, interleaved; medians," \
	"microseconds."
echo
echo "| QD per job | scheduler | p99 | p99.9 | max | p99.9 vs mq-deadline | max vs mq-deadline |"
echo "|---:|---|---:|---:|---:|---:|---:|"
for qd in "${qds[@]}"; do
	for s in "${scheds[@]}"; do
		a=$(median "${p99[$qd,$s]}") b=$(median "${p999[$qd,$s]}")
		c=$(median "${pmax[$qd,$s]}")
		printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$qd" "$s" "$a" \
			"$b" "$c" \
			"$(ratio "$b" "$(median "${p999[$qd,mq-deadline]}")")" \
			"$(ratio "$c" "$(median "${pmax[$qd,mq-deadline]}")")"
	done
done
echo "PASS"
