#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# 6.12-tier: device lifetimes around completions, bdev files closed on remove
# vm: -c 2 -t 400
# A device's life around completions that run in another task: create,
# write and read back, remove, over and over (300 times; 50 in the
# debug tier's core), by turns over two lower devices: null_blk
# completing inline under mq-deadline (dispatch, and so the whole
# completion, pdm's clone end_io and the top bio's bio_endio() included,
# runs in a kblockd worker, in process context) and a loop device (its
# worker ends each request, completed in BLOCK_SOFTIRQ).  The submitter
# may close and remove the device the moment it has its bio back, while
# the task that ended it is still inside pdm: pdm must be done with the
# device by then (the reference it drops before bio_endio(), and
# remove's drain).  On the debug kernel KFENCE, SLUB debugging and kmemleak watch.
. "$(dirname "$0")/lib/lib.sh"

nullb_load queue_mode=2 submit_queues=1 irqmode=0 gb=1 memory_backed=1
set_sched nullb0 mq-deadline
run modprobe loop
run modprobe pdm
truncate -s 16M /tmp/lower.img
run losetup /dev/loop0 /tmp/lower.img
sectors=$(cat /sys/block/loop0/size)
lowers=(nullb0 loop0)
rounds=300
[ "$(debug_tier)" = core ] && rounds=50
dd if=/dev/urandom of=/tmp/block bs=64k count=1 status=none
for i in $(seq "$rounds"); do
	lower=${lowers[$((i % 2))]}
	pdmsetup create l --table "0 $sectors linear /dev/$lower 0" \
		>/dev/null || fail "round $i: create over $lower failed"
	dd if=/tmp/block of=/dev/pdm0 bs=64k seek=$((i % 200)) oflag=direct \
		status=none || fail "round $i: write failed"
	dd if=/dev/pdm0 of=/tmp/back bs=64k skip=$((i % 200)) count=1 \
		iflag=direct status=none || fail "round $i: read failed"
	cmp -s /tmp/block /tmp/back || fail "round $i: data read back differs"
	pdmsetup remove l || fail "round $i: remove failed"
done
note "ok: $rounds rounds of create, write, read, remove"
expect_eq "loop0 holders" "" "$(ls /sys/block/loop0/holders)"
expect_eq "nullb0 holders" "" "$(ls /sys/block/nullb0/holders)"
run losetup -d /dev/loop0
run rmmod pdm
echo PASS
