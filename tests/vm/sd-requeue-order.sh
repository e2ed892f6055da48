#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# debug-tier: full dispatch order, no lifetime question; the requeue path runs in the core under sd-fault's requeue injection
# 6.12-tier: blk-mq's requeue list keeps arrival order there, so at-head inserts come back newest first
# vm: -c 2
# Requeued requests come back in mq-deadline's order, staged or not.  The
# test-only disk requeue0 (tests/modules/blkfast-requeue.c) keeps four
# reads, at sectors 0, 64, 128 and 192, which arrive one by one, and gives
# them back with blk_mq_requeue_request() in that order; its requeue work
# inserts each at the head of the scheduler.  On 6.1 mq-deadline
# dispatches them again in arrival order (its at-head inserts are LIFO,
# and 6.1's requeue list is LIFO too); on 6.12, whose requeue list keeps
# arrival order, newest first: 192 128 64 0.  split-deadline must do the
# same when it inserts them directly and when every insert is staged
# because another CPU holds its dispatch lock (requeue=2): the path where
# a double reversal once gave 6.1 the reverse order.
. "$(dirname "$0")/lib/lib.sh"

P=/sys/module/blkfast_requeue/parameters
modprobe blkfast-requeue || fail "cannot load blkfast-requeue"
wait_for_block requeue0

# hold_reads N: N direct reads at sectors 0, 64, ..., each issued only
# once the previous one is held, so that their arrival order is known;
# their pids in HELD.
hold_reads() {
	local i
	HELD=()
	echo "$1" >$P/hold
	for ((i = 0; i < $1; i++)); do
		dd if=/dev/requeue0 of=/dev/null bs=4k count=1 skip=$((i * 8)) \
			iflag=direct 2>/dev/null &
		HELD+=($!)
		wait_read $P/hold $((i + 1)) ||
			fail "read $i not held: $READ_VALUE held"
	done
}

# requeue_held MODE WHAT: requeue what is held; every read then ends.
requeue_held() {
	local pid
	echo "$1" >$P/requeue || fail "$2: requeue=$1 failed"
	for pid in "${HELD[@]}"; do
		wait_ended "$pid" 30 "$2: a requeued read"
		[ "$RC" = 0 ] || fail "$2: a requeued read failed ($RC)"
	done
}

# requeue_order SCHED MODE WHAT: four reads held, requeued, dispatched
# again in arrival order.
requeue_order() {
	set_sched requeue0 "$1"
	hold_reads 4
	requeue_held "$2" "$3"
	expect_eq "$3: dispatch order" "$want" "$(cat $P/order)"
}

busy_inserts() {
	awk '$1 == "dispatch_lock_busy_inserts" { print $2 }' \
		$DEBUGFS/block/requeue0/sched/contention
}

want="0 64 128 192"
[ "$(kernel_line)" = 6.1 ] || want="192 128 64 0"
requeue_order mq-deadline 1 "mq-deadline, requeued"
requeue_order split-deadline 1 "split-deadline, requeued"
before=$(busy_inserts)
requeue_order split-deadline 2 \
	"split-deadline, requeued while its dispatch lock is held"
expect_eq "split-deadline: requeued inserts staged" 4 \
	$(($(busy_inserts) - before))

# Bad triggers change nothing: no mode 3, nothing held, staging needs
# split-deadline.
expect_fail "Invalid argument" sh -c "echo 3 >$P/requeue"
expect_fail "No such file or directory" sh -c "echo 1 >$P/requeue"
set_sched requeue0 mq-deadline
hold_reads 1
expect_fail "Invalid argument" sh -c "echo 2 >$P/requeue"
expect_eq "held after a refused requeue" 1 "$(cat $P/hold)"
requeue_held 1 "mq-deadline, after a refused requeue"
set_sched requeue0 none
rmmod blkfast-requeue || fail "cannot unload blkfast-requeue"
echo "PASS"
