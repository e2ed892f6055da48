#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# 6.12-tier: trylock sweeps of lower poll queues under contention
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
# could schedule while atomic whenever the raw poller held that lock.
# That report needs contention RT's adaptive spinning rarely lets happen,
# so a kprobe on null_poll() reads the preempt count each ->poll() runs
# at instead: on RT, pdm's polls run at the kernel's own (io_uring's
# polling of nullb0, measured first in the same boot); on other kernels
# one above it, the sweep lock's spinlock_t (which proves the probe sees
# a lock pdm holds).
. "$(dirname "$0")/lib/lib.sh"

nullb_load queue_mode=2 nr_devices=1 submit_queues=1 poll_queues=1 \
	irqmode=0 gb=2
run modprobe pdm
half=$(( $(cat /sys/block/nullb0/size) / 2 ))
run pdmsetup create c --table "0 $half linear /dev/nullb0 0" >/dev/null
sys=/sys/block/pdm0/pdm
IOS=20000
# On 6.1's PREEMPT_RT every fio runs on CPU 0.  There the kernel's
# bio_put() frees the surplus of a CPU's bio cache (bios that another
# CPU allocated: here, whenever a sweep completes the raw poller's
# requests) with preemption off, and kmem_cache_free() may then sleep on
# SLUB's local lock: "scheduling while atomic", then a preempt count off
# by one on another CPU.  A kernel bug, fixed by 6.12 (which frees after
# put_cpu()); pinned, no CPU frees what another allocated.  RT's
# preemption of a lock holder still makes the pollers contend.
pin=()
if on_rt_kernel && [ "$(kernel_line)" = 6.1 ]; then
	pin=(--cpus_allowed=0)
fi

# The preempt counts null_poll() ran at since the last clear, as a sorted
# list: the low 4 bits of its events' common_preempt_count (the high 4
# count migrate_disable(), which RT's spinlock_t takes).
pc_seen() {
	probe_hist_keys pc | awk '{ print $1 % 16 }' | sort -nu | xargs
}
raw_poller() {
	fio --name=raw "${pin[@]}" --filename=/dev/nullb0 \
		--offset=$((half * 512)) --ioengine=io_uring --hipri=1 --direct=1 \
		--rw=randread --bs=4k --iodepth=8 --number_ios="$1" --eta=never \
		--output=/tmp/raw.out
}
probe_hist_start pc common_preempt_count 'p null_blk:null_poll'
raw_poller 2000 || fail "the raw poller alone failed"
base=$(pc_seen)
note "preempt count of the kernel's own ->poll() calls: $base"
case $base in
"" | *" "*) fail "the kernel's own polls ran at preempt counts '$base', not one" ;;
esac
if on_rt_kernel; then
	want=$base why="RT: preemptible, as the kernel's own"
else
	want="$base $((base + 1))" why="the kernel's own, and one more: the sweep lock"
fi

for mode in sweep sweep_wait; do
	probe_hist_clear pc
	echo $mode >$sys/poll_mode
	s0=$(cat $sys/trylock_skips)
	f0=$(cat $sys/completions_found)
	raw_poller $((IOS * 2)) &
	raw=$!
	fio_run "$mode" "${pin[@]}" --filename=/dev/pdm0 --ioengine=io_uring \
		--hipri=1 --direct=1 --rw=randread --bs=4k --iodepth=8 \
		--numjobs=2 --number_ios=$IOS
	wait_ended $raw 120 "the raw poller"
	expect_eq "$mode: the raw poller's status" 0 "$RC"
	expect_eq "$mode: I/Os through pdm" $((2 * IOS)) "$(fio_ios 4096)"
	expect_eq "$mode: clones completed by a poll" $((2 * IOS)) \
		$(( $(cat $sys/completions_found) - f0 ))
	skips=$(( $(cat $sys/trylock_skips) - s0 ))
	note "$mode: $skips busy queues skipped"
	[ $mode = sweep ] || expect_eq "sweep_wait: queues skipped" 0 "$skips"
	expect_eq "$mode: preempt counts ->poll() ran at ($why)" "$want" \
		"$(pc_seen)"
done
probe_hist_stop pc
run pdmsetup remove c
run rmmod pdm
echo PASS
