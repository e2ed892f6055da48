#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm: -c 2
# vm-alone: holds a CPU with preemption off while a burst is staged
# vm-skip-flavour: debug holds a CPU with preemption off for seconds, an ordering question; the staging path runs in the core under sd-verify and sd-switch
# 6.12-tier: staging under 6.12's insert_requests(..., blk_insert_t) and its mq-deadline
# Requests staged while another CPU holds split-deadline's dispatch lock
# keep their order and the deadline of their arrival.  An insert that
# finds the lock busy pushes its requests onto a lock-free staging list
# and stamps their deadline then, so that the wait counts; the next pass
# drains the list oldest first into the FIFOs.
#
# blkfast-hold (tests/modules/blkfast-hold.c) holds a pass on one CPU,
# inside its lock (at sd_dispatch_prio()), while fio on the other CPU
# submits a burst of 8 random 4k reads in one io_uring call, until all 8
# are staged (contention counter dispatch_lock_busy_inserts; fio's
# start-up takes about 1 s under TCG, and the hold lasts at most 10 s,
# below the kernel's stall warnings).  With
# read_expire 20 ms and fifo_batch 1, each is expired by the time the
# hold ends, and every dispatch after it takes the oldest: the device
# (null_blk, one request at a time, 2 ms each) must see the reads in the
# order they arrived (their block_getrq events).  A drain that takes the
# newest first issues them in reverse; a deadline stamped at the drain
# leaves them unexpired, and the sweep issues them in sector order.
. "$(dirname "$0")/lib/lib.sh"

nullb_load queue_mode=2 irqmode=2 completion_nsec=2000000 hw_queue_depth=1 \
	submit_queues=1 gb=1 nr_devices=1
set_sched nullb0 split-deadline
sched_depth nullb0 64
echo 1 >/sys/block/nullb0/queue/iosched/fifo_batch
echo 20 >/sys/block/nullb0/queue/iosched/read_expire
HP=/sys/module/blkfast_hold/parameters
modprobe blkfast-hold hold_ms=10000 || fail "cannot load blkfast-hold"
dev=$(sed 's/:/,/' /sys/block/nullb0/dev)

busy_inserts() {
	sed -n 's/^dispatch_lock_busy_inserts \([0-9]*\)$/\1/p' \
		"$DEBUGFS/block/nullb0/sched/contention"
}

echo 0 >$TRACEFS/tracing_on
echo >$TRACEFS/trace
for ev in block_getrq block_rq_issue; do
	echo 1 >$TRACEFS/events/block/$ev/enable
done

# order: one held pass and a burst staged behind it; sets GOT
# (sectors as issued) and WANT (as they arrived).
order() {
	local staged0 trace
	staged0=$(busy_inserts)
	echo >$TRACEFS/trace
	echo 1 >$TRACEFS/tracing_on
	echo 1 >$HP/arm
	# The trigger: its queue run (in a kblockd worker, on either CPU)
	# is the pass held; then fio runs on the other CPU.
	dd if=/dev/nullb0 of=/dev/null bs=4k count=1 iflag=direct \
		2>/dev/null &
	for _ in $(seq 100); do
		[ "$(cat $HP/holding)" = -1 ] || break
		sleep 0.02
	done
	HELD_ON=$(cat $HP/holding)
	fio --name=burst --filename=/dev/nullb0 \
		--ioengine=io_uring --direct=1 --rw=randread --bs=4k \
		--offset=1m --size=64m --number_ios=8 --iodepth=8 \
		--iodepth_batch_submit=8 --randrepeat=0 --norandommap \
		--output=/dev/null &
	fpid=$!
	# The burst's 8 requests allocated (and so inserted right after),
	# or the hold over; then the pass goes on.  (Not from debugfs: its
	# files take the dispatch lock, which the hold holds.)
	for _ in $(seq 100); do
		[ "$(grep -c ' block_getrq: ' $TRACEFS/trace || true)" -ge 9 ] &&
			break
		[ "$(cat $HP/holding)" != -1 ] || break
		sleep 0.1
	done
	sleep 0.2
	echo 1 >$HP/release
	wait $fpid || fail "fio burst failed"
	wait
	echo 0 >$TRACEFS/tracing_on
	trace=$(awk -v dev="$dev" '
		{ for (i = 1; i <= NF; i++) if ($i ~ /^block_(getrq|rq_issue):$/) break }
		i <= NF && $(i + 1) == dev && $(i + 2) ~ /^R/ {
			for (j = i + 3; j <= NF; j++) if ($j ~ /^[0-9]+$/ && $(j + 1) == "+") break
			if (j > NF) next	# no sector
			if ($j == 0) next	# the trigger (sector 0)
			print ($i == "block_getrq:" ? "A" : "I"), $j
		}' $TRACEFS/trace)
	WANT=$(echo "$trace" | awk '$1 == "A" { printf "%s ", $2 }')
	GOT=$(echo "$trace" | awk '$1 == "I" { printf "%s ", $2 }')
	STAGED=$(($(busy_inserts) - staged0))
}

for round in 1 2 3; do
	order
	note "round $round: pass held on CPU $HELD_ON; arrived $WANT"
	note "round $round: issued  $GOT"
	expect_eq "round $round: holds" "$round" "$(cat $HP/held)"
	expect_ge "round $round: requests staged behind the hold" 8 "$STAGED"
	expect_eq "round $round: reads issued" 8 "$(echo "$GOT" | wc -w)"
	expect_eq "round $round: issued in arrival order" "$WANT" "$GOT"
done
set_sched nullb0 none
run rmmod blkfast-hold
