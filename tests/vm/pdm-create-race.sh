#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm: -c 2
# A remove that races a create waits for create's udev event.  create
# publishes the device (a remove can find it from then on) and then tells
# udev, naming the disk; blkfast-hold (tests/modules/blkfast-hold.c)
# holds that event (pdm_dev_uevent) on CPU 0 while a remove of the same
# device runs on CPU 1.  The remove must wait until the event is sent:
# had it freed the disk meanwhile, the event would read freed memory (the
# debug kernel's poisoned slabs make that an oops) and "remove" would
# reach udev before "create".  Both commands then succeed and the device
# is gone.  The mutant pdm-create-event-unpinned fails it.
. "$(dirname "$0")/lib/lib.sh"

nullb_load queue_mode=2 nr_devices=1 gb=1
run modprobe pdm
run modprobe blkfast-hold symbol=pdm_dev_uevent hold_ms=10000
HP=/sys/module/blkfast_hold/parameters
echo 1 >$HP/arm
taskset -c 0 pdmsetup create race --table "0 2048 linear /dev/nullb0 0" \
	>/tmp/create.out 2>&1 &
create=$!
wait_read $HP/holding 0 ||
	fail "create's event not held on CPU 0 (holding: $READ_VALUE)"
taskset -c 1 pdmsetup remove race >/tmp/remove.out 2>&1 &
remove=$!
still_running $remove "remove while create's event is held"
echo 1 >$HP/release
wait_ended $create 10 "create"
expect_eq "create's status ($(cat /tmp/create.out))" 0 "$RC"
wait_ended $remove 10 "remove"
expect_eq "remove's status ($(cat /tmp/remove.out))" 0 "$RC"
expect_eq "calls held" 1 "$(cat $HP/held)"
[ ! -e /sys/block/pdm0 ] || fail "pdm0 still there after the remove"
run rmmod blkfast-hold
run rmmod pdm
echo PASS
