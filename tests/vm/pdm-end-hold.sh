#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm: -c 2
# 6.12-tier: the remove of a device whose bio is still in its end_io, where 6.12 closes lower devices through deferred fput
# pdm is done with a device before it ends a bio: a submitter that gets
# its bio back may close and remove the device while it is still inside
# its end_io, and the remove must neither wait for that end_io nor leave
# pdm touching the freed device when it returns (dm, the reference, drops
# its pending count before bio_endio() too).  The test-only blkfast-endhold
# module submits one read, closes the device, and holds its end_io (at
# most 5 s) until the test, having removed the device, releases it; the
# lower device is null_blk with blocking=1 under mq-deadline, which
# completes in a kblockd worker where an end_io may sleep.  Asserted,
# over dm-linear and then pdm linear and striped: the remove returned
# while the end_io was held (the end_io was released, not timed out),
# without error, and the read succeeded.  On the debug kernel KFENCE and SLUB debugging watch the return into pdm.
. "$(dirname "$0")/lib/lib.sh"

nullb_load queue_mode=2 blocking=1 irqmode=0 nr_devices=2 submit_queues=1
# Through a scheduler, from a plug that the submitter's sleep flushes, the
# read is dispatched, and completed, in a kblockd worker: not inside the
# submitter's submit_bio(), which has closed the device by then.
set_sched nullb0 mq-deadline
set_sched nullb1 mq-deadline
run modprobe pdm
run modprobe blkfast-endhold
EP=/sys/module/blkfast_endhold/parameters
sectors=$(cat /sys/block/nullb0/size)
linear="0 $sectors linear /dev/nullb0 0"
striped="0 $((sectors * 2)) striped 2 128 /dev/nullb0 0 /dev/nullb1 0"
n=0

# held_remove WHAT DEV REMOVE...: read DEV, run REMOVE while the read's
# end_io is held, then release it.
held_remove() {
	local what=$1 dev=$2
	shift 2
	n=$((n + 1))
	echo "$dev" >$EP/submit || fail "$what: cannot submit to $dev"
	wait_read $EP/ended 1 || fail "$what: the read did not come back"
	"$@" || fail "$what: the remove failed while the end_io was held"
	echo 1 >$EP/release
	wait_read $EP/result "released $n timeouts 0 errors 0" || true
	expect_eq "$what: end_io waits released after the remove (not timed out)" \
		"released $n timeouts 0 errors 0" "$READ_VALUE"
}

run dmsetup create ref --table "$linear"
held_remove dm-linear "/dev/$(dmsetup info -c --noheadings -o blkdevname ref)" \
	dmsetup remove ref
for table in "$linear" "$striped"; do
	node=$(pdmsetup create held --table "$table") ||
		fail "pdmsetup create held failed"
	held_remove "pdm ${table#* * }" "$node" pdmsetup remove held
done
rmmod blkfast-endhold
echo "PASS"
