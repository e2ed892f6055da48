#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Where a scheduler's time goes, per I/O: run inside the VM with perf
# copied in, e.g.
#   BLKFAST_VM_PROGS=/usr/bin/perf BLKFAST_KO_DIR=$PWD \
#     scripts/vm.sh -c 2 -p -m 2048 tests/vm/bench/profile-sched.sh
# For each scheduler, the scheduler benchmark's workload (fio io_uring 4k
# randread, QD32, batch 8, on null_blk with one submit queue per vCPU)
# runs while `perf record -a -e cpu-clock -F 1000` samples every CPU for
# secs seconds; the top symbols are printed as CPU microseconds per I/O
# (one sample = 1 ms of one CPU), so that two schedulers compare by cost,
# not by percentage, with the idle time apart and a subtotal for the
# scheduler's own functions and the spinlock slow path.  Under
# oversubscription (more vCPUs than host cores) the guest's sampling
# clock mostly lands in idle; profile at most one vCPU per host core.
#
# Arguments, KEY=VALUE: scheds=split-deadline,bf-fifo-global,mq-deadline
# jobs=2N (N = vCPUs) secs=3 top=25
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/bench.sh"

ncpu=$(nproc)
SCHEDS=split-deadline,bf-fifo-global,mq-deadline JOBS=$((2 * ncpu))
SECS=3 TOP=25
bench_args "scheds jobs top" "$@"
command -v perf >/dev/null ||
	fail "no perf in the guest (BLKFAST_VM_PROGS=/usr/bin/perf)"
sysctl -qw kernel.kptr_restrict=0 kernel.perf_event_paranoid=-1
modprobe blkfast-fifo 2>/dev/null || true
nullb_load queue_mode=2 submit_queues="$ncpu" poll_queues=0 irqmode=1 \
	hw_queue_depth=1024
IFS=, read -r -a scheds <<<"$SCHEDS"
for s in "${scheds[@]}"; do
	set_sched nullb0 "$s"
	fio --name=profile --filename=/dev/nullb0 --ioengine=io_uring \
		--direct=1 --bs=4k --rw=randread --numjobs="$JOBS" --iodepth=32 \
		--iodepth_batch_submit=8 --iodepth_batch_complete_min=8 \
		--iodepth_batch_complete_max=8 --runtime=$((SECS + 2)) \
		--time_based >/dev/null 2>&1 &
	fio=$!
	sleep 1
	read -r r0 _ </sys/block/nullb0/stat
	perf record -q -a -e cpu-clock -F 1000 -o /tmp/perf.data \
		-- sleep "$SECS" >/dev/null 2>&1
	read -r r1 _ </sys/block/nullb0/stat
	wait $fio || fail "fio failed on $s"
	ios=$((r1 - r0))
	echo "### $s: $JOBS jobs on $ncpu vCPUs, $ios reads in ${SECS}s"
	perf_per_io /tmp/perf.data "$ios" "$TOP" \
		'^(sd_|dd_|__dd_|bf_|elv_|blk_mq_sched|native_queued_spin_lock_slowpath)' \
		"scheduler and lock slow path"
done
echo "PASS"
