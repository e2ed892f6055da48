#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm: -c 2
# rt-tier: sweep holds a lock across ->poll(), whose own locks sleep on PREEMPT_RT
# Pollers contending on one lower poll queue, in sweep and sweep_wait
# mode: a pdm device over one null_blk device with a single poll queue,
# two fio jobs polling through pdm while a third polls the null_blk device
# itself (io_uring's own bio_poll(), which takes null_blk's poll_lock
# without pdm).  Every I/O completes, by a poll, and the modes keep their
# signatures: sweep_wait never skips a busy queue.  The point is the
# kernel's view: on PREEMPT_RT (the rt tier), where null_poll()'s
# spinlock_t sleeps, a sweep that held preemption off across ->poll()
# scheduled while atomic whenever the raw poller held that lock; the
# harness fails on any such report.
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/tests/lib.sh"

nullb_load queue_mode=2 nr_devices=1 submit_queues=1 poll_queues=1 \
	irqmode=0 gb=2
run modprobe pdm
half=$(( $(cat /sys/block/nullb0/size) / 2 ))
run pdmsetup create c --table "0 $half linear /dev/nullb0 0" >/dev/null
sys=/sys/block/pdm0/pdm
IOS=20000

for mode in sweep sweep_wait; do
	echo $mode >$sys/poll_mode
	s0=$(cat $sys/trylock_skips)
	f0=$(cat $sys/completions_found)
	fio --name=raw --filename=/dev/nullb0 --offset=$((half * 512)) \
		--ioengine=io_uring --hipri=1 --direct=1 --rw=randread --bs=4k \
		--iodepth=8 --number_ios=$((IOS * 2)) --eta=never --output=/tmp/raw.out &
	raw=$!
	fio_run "$mode" --filename=/dev/pdm0 --ioengine=io_uring --hipri=1 \
		--direct=1 --rw=randread --bs=4k --iodepth=8 --numjobs=2 \
		--number_ios=$IOS
	wait_ended $raw 120 "the raw poller"
	expect_eq "$mode: the raw poller's status" 0 "$RC"
	expect_eq "$mode: I/Os through pdm" $((2 * IOS)) "$(fio_ios 4096)"
	expect_eq "$mode: clones completed by a poll" $((2 * IOS)) \
		$(( $(cat $sys/completions_found) - f0 ))
	skips=$(( $(cat $sys/trylock_skips) - s0 ))
	note "$mode: $skips busy queues skipped"
	[ $mode = sweep ] || expect_eq "sweep_wait: queues skipped" 0 "$skips"
done
run pdmsetup remove c
run rmmod pdm
echo PASS
