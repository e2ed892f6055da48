#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm: -c 2 -a preempt=full
# vm-alone: its stall is measured against mq-deadline's p99.9 latency
# rt-tier: the priority inversion only a fully preemptible kernel has
# vm-skip-flavour: debug asserts a timing relation; the vm tier (preempt=full) and the rt tier run this test
# 6.12-tier: the dispatch gate under preempt=full on 6.12's PREEMPT_DYNAMIC
# No priority inversion on a fully preemptible kernel: PREEMPT_RT, and
# Debian's PREEMPT_DYNAMIC kernel booted with preempt=full (this test's
# boot on every other flavour).  A task of normal priority
# dispatching on CPU 0 (for a reader at QD8 there) is preempted inside the scheduler's dispatch lock
# by a SCHED_FIFO 40 busy loop that lasts 500 ms (the test-only
# blkfast-hog module, tests/modules/blkfast-hog.c), while a SCHED_FIFO 50
# fio reads at QD1 on CPU 1.  mq-deadline's dd->lock is an rtmutex there:
# the reader blocks on it in its bio merge and insert, which boosts the
# holder, so the reader never waits for the busy loop.  split-deadline
# must do the same.  Two ways it did not: a bare "one dispatcher" bit in
# place of the lock (its non-RT gate), and a submitter that stages its
# request instead of waiting for the lock (then kblockd dispatches it, at
# normal priority, and boosts nothing).  Either is a 500 ms stall.
#
# The holder is preempted only while the reader has no request (blk-mq
# issues what a dispatch run picked when the run ends, and a request's
# completion timer runs on the CPU that issued it: a preempted CPU 0
# holding either stalls the reader under any scheduler).  The reader is
# held to 300 I/Os a second, so that such moments come often.  Each
# scheduler runs in its own phase, mq-deadline first: a reference that
# stalls too fails the test (the scenario is broken, not split-deadline).
# Each phase must see at least 6 busy loops, and on PREEMPT_RT in at
# least one the holder ran, boosted; fewer under the reference is a
# host too slow for the scenario, a run-time SKIP (tests/run runs it
# again).
#
# Under preempt=full without PREEMPT_RT a spinlock holder is not
# preempted, but one is at the lock's release, and split-deadline's
# dispatching gate (which PREEMPT_RT does without) is still held there:
# the reader's dispatches are turned away for the whole busy loop unless
# the gate is held with preemption off.  mq-deadline holds nothing once
# its lock is released.  There is no boost to see: the holder is
# preempted holding nothing.  The mutant sd-gate-preemptible fails it.
. "$(dirname "$0")/lib/lib.sh"

rt=0
if grep -q PREEMPT_RT /proc/version; then
	rt=1
else
	grep -q '(full)' "$DEBUGFS/sched/preempt" ||
		fail "sd-rt-inversion needs PREEMPT_RT or preempt=full; booted $(uname -r) preempt '$(cat "$DEBUGFS/sched/preempt")'"
fi

hog_ms=500
# A hardware queue per CPU, so that CPU 1's requests are told apart;
# completions from a timer, so that the FIFO reader sleeps between its
# I/Os and leaves CPU 1 to the kernel's threads.
nullb_load queue_mode=2 nr_devices=1 submit_queues=2 irqmode=2 \
	completion_nsec=100000 gb=1
run modprobe split-deadline

# stop_reader PID WHAT: end a fio started with a long runtime by SIGINT;
# fio then reports as usual and exits 128 (0 if it had ended).
stop_reader() {
	kill -INT "$1" 2>/dev/null || true
	wait_ended "$1" 30 "$2"
	[ "$RC" = 128 ] && RC=0
	expect_eq "$sched: $2's status" 0 "$RC"
}

# phase SCHED SYMBOL: the two readers until 10 busy loops have run (at
# most 60 s: how often the scenario arises depends on the host's speed);
# sets LAT_MAX and P999 (microseconds) of the FIFO reader, HOGS and BOOSTED.
phase() {
	local sched=$1 symbol=$2 bg
	local par=/sys/module/blkfast_hog/parameters
	echo "$sched" >/sys/block/nullb0/queue/scheduler ||
		fail "cannot select $sched"
	run modprobe blkfast-hog symbol="$symbol" cpu=0 hog_ms=$hog_ms \
		prio=40 quiet_disk=/dev/nullb0 quiet_hctx=1
	fio --name=other --filename=/dev/nullb0 --direct=1 --ioengine=libaio \
		--iodepth=8 --rw=randread --bs=4k --cpus_allowed=0 --time_based \
		--runtime=90 >/tmp/fio-other.out 2>&1 &
	bg=$!
	chrt -f 50 fio --name=fifo --filename=/dev/nullb0 --direct=1 \
		--ioengine=psync --rw=randread --bs=4k --cpus_allowed=1 \
		--rate_iops=300 --time_based --runtime=90 \
		--output-format=terse --terse-version=3 \
		>/tmp/fio-fifo.out 2>&1 &
	FIFO=$!
	sleep 1
	# 10 busy loops, each at least 200 ms (the module's gap_ms) after the
	# one before.
	echo 10 >$par/arm
	for _ in $(seq 600); do
		[ "$(cat $par/hogs)" -ge 10 ] && break
		sleep 0.1
	done
	sleep 0.5
	stop_reader $FIFO "FIFO reader"
	stop_reader $bg "other reader"
	FIO_TERSE=$(grep '^3;' /tmp/fio-fifo.out | tail -n 1 || true)
	expect_eq "$sched: FIFO reader's error" 0 "$(fio_field 5)"
	# Fields 39 and 32: read latency max and clat's 99.9th percentile.
	LAT_MAX=$(fio_field 39 | cut -d. -f1)
	expect_num "$sched: FIFO reader's latency max" "$LAT_MAX"
	P999=$(fio_field 32 | sed 's/.*=//')
	expect_num "$sched: FIFO reader's p99.9" "$P999"
	HOGS=$(cat $par/hogs) BOOSTED=$(cat $par/boosted)
	note "$sched: $(cat $par/fired) fired, $HOGS busy loops," \
		"$BOOSTED with the holder boosted;" \
		"FIFO reader p99.9 $P999 us, max $LAT_MAX us"
	run rmmod blkfast-hog
}

# check WHAT: the phase's outcome, then how it came about.
check() {
	expect_ge "$1: busy loops run" 6 "$HOGS"
	expect_le "$1: worst FIFO latency, us" $((hog_ms * 1000 / 4)) "$LAT_MAX"
	[ $rt = 0 ] ||
		expect_ge "$1: busy loops the boosted holder ran in" 1 "$BOOSTED"
}

phase mq-deadline __dd_dispatch_request
# Too few busy loops under the reference in its 60 s: the host was too
# slow for the scenario to arise, which says nothing of split-deadline.
[ "$HOGS" -ge 6 ] ||
	skip "mq-deadline (reference): $HOGS busy loops in 60 s, not 6 (host too slow)"
check "mq-deadline (reference)"
phase split-deadline sd_dispatch_prio
check split-deadline
echo none >/sys/block/nullb0/queue/scheduler
run rmmod split-deadline
echo "PASS"
