#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# 6.12-tier: 6.12's batch continuation (latest_pos) and single at-head list, against its mq-deadline
# debug-tier: full exact dispatch order, no lifetime question; its locking is sd-verify's
# Where mq-deadline's policy moved between 6.1 and 6.12.118, split-deadline
# follows the running kernel's (sched/sd-policy.h).  Two dispatch orders
# that the two lines tell apart, each under mq-deadline and then under
# split-deadline in the same boot, on the test-only disk requeue0
# (tests/modules/blkfast-requeue.c) with a budget of one request at a time,
# so that what waits stays queued in the scheduler, in its order:
#
# Batch continuation.  Read X (sector 1024) is held; A (0) and B (320) queue;
# X completes and A is dispatched, starting a batch, and held; C (160)
# queues; A completes.  6.1 goes on with the request that followed A when A
# was dispatched (next_rq: B), then C: "320 160".  6.12 goes on with the
# first request at or after A's sector whenever it came (latest_pos: C),
# then B: "160 320".
#
# At-head requests.  An IDLE read X (0) is held, a BE read B (320) queues,
# X is requeued (an at-head insert).  6.1 keeps X on IDLE's own at-head
# list, which waits while BE has requests: "320 0".  6.12.63 on serves the
# one at-head list before any level: "0 320".
. "$(dirname "$0")/lib/lib.sh"

P=/sys/module/blkfast_requeue/parameters
modprobe blkfast-requeue || fail "cannot load blkfast-requeue"
wait_for_block requeue0
Q=$DEBUGFS/block/requeue0/sched

# read_at SECTOR CLASS: a direct 4 KiB read at SECTOR in I/O class CLASS
# (2 BE, 3 IDLE), in the background; its pid appended to PIDS.
read_at() {
	ionice -c "$2" dd if=/dev/requeue0 of=/dev/null bs=4k count=1 \
		skip=$(($1 / 8)) iflag=direct 2>/dev/null &
	PIDS+=($!)
}

# queued WHAT RT BE IDLE: the scheduler's debugfs "queued" (inserted, not
# completed) reaches "RT BE IDLE" (a 1-vCPU guest: nothing is staged).
queued() {
	wait_read "$Q/queued" "$2 $3 $4" && return
	grep -H . "$Q/read1_fifo_list" "$Q/owned_by_driver" $P/hold || true
	local p
	for p in "${PIDS[@]}"; do
		cat "/proc/$p/stack" 2>/dev/null || true
	done
	fail "$1: queued reads '$READ_VALUE', not '$2 $3 $4'"
}

# held WHAT N: the disk keeps N requests.
held() {
	wait_read "$P/hold" "$2" || fail "$1: $READ_VALUE held, not $2"
}

# all_ended WHAT: every read started ends, successfully.
all_ended() {
	local pid
	for pid in "${PIDS[@]}"; do
		wait_ended "$pid" 10 "$1: a read"
		[ "$RC" = 0 ] || fail "$1: a read failed ($RC)"
	done
	PIDS=()
}

# record_after WHAT TRIGGER: record the two dispatches that follow
# TRIGGER (release or requeue) of what the disk holds; every read ends;
# the order in ORDER.
record_after() {
	echo 2 >$P/record
	echo 1 >"$P/$2" || fail "$1: $2 failed"
	all_ended "$1"
	ORDER=$(cat $P/order)
}

# batch_order SCHED: the batch continuation scenario; its order in ORDER.
batch_order() {
	local what="$1, batch"
	set_sched requeue0 "$1"
	echo 60000 >/sys/block/requeue0/queue/iosched/read_expire
	echo 1 >$P/hold
	read_at 1024 2
	held "$what: X" 1
	read_at 0 2
	queued "$what: A" 0 2 0
	read_at 320 2
	queued "$what: B" 0 3 0
	echo 1 >$P/hold
	echo 1 >$P/release || fail "$what: release of X failed"
	held "$what: A" 1
	read_at 160 2
	queued "$what: C" 0 3 0
	record_after "$what" release
}

# head_order SCHED: the at-head scenario; its order in ORDER.
head_order() {
	local what="$1, at-head"
	set_sched requeue0 "$1"
	echo 1 >$P/hold
	read_at 0 3
	held "$what: X" 1
	read_at 320 2
	queued "$what: B" 0 1 1
	record_after "$what" requeue
}

PIDS=()
echo 1 >$P/budget
case $(kernel_line) in
6.12) batch_want="160 320" head_want="0 320" ;;
*) batch_want="320 160" head_want="320 0" ;;
esac

batch_order mq-deadline
expect_eq "mq-deadline, batch (the test's premise)" "$batch_want" "$ORDER"
batch_order split-deadline
expect_eq "split-deadline, batch" "$batch_want" "$ORDER"

head_order mq-deadline
expect_eq "mq-deadline, at-head (the test's premise)" "$head_want" "$ORDER"
head_order split-deadline
expect_eq "split-deadline, at-head" "$head_want" "$ORDER"

# A bad release changes nothing: only 1, and only with something held.
expect_fail "Invalid argument" sh -c "echo 2 >$P/release"
expect_fail "No such file or directory" sh -c "echo 1 >$P/release"
echo 0 >$P/budget
set_sched requeue0 none
rmmod blkfast-requeue || fail "cannot unload blkfast-requeue"
echo "PASS"
