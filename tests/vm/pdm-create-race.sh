#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# 6.12-tier: create racing remove, with holder links made after add_disk
# vm: -c 2
# A remove that races a create waits for create's udev event.  create
# publishes the device (a remove can find it from then on) and then tells
# udev, naming the disk; a test build of pdm can wait between the two
# (its parameter test_create_event_delay_ms, here 2 s) while a remove of
# the same device runs.  The remove must wait until the event is sent:
# had it freed the disk meanwhile, the event would read freed memory (the
# debug kernel's poisoned slabs make that an oops) and "remove" would
# reach udev before "create".  Both commands then succeed and the device
# is gone.  The mutant pdm-create-event-unpinned fails it.
. "$(dirname "$0")/lib/lib.sh"

nullb_load queue_mode=2 nr_devices=1 gb=1
run modprobe pdm test_create_event_delay_ms=2000
pdmsetup create race --table "0 2048 linear /dev/nullb0 0" \
	>/tmp/create.out 2>&1 &
create=$!
wait_read /sys/block/pdm0/size 2048 || fail "pdm0 not published"
pdmsetup remove race >/tmp/remove.out 2>&1 &
remove=$!
sleep 0.5
kill -0 $create 2>/dev/null || fail "create returned within its 2 s wait"
still_running $remove "remove while create's event waits"
wait_ended $create 10 "create"
expect_eq "create's status ($(cat /tmp/create.out))" 0 "$RC"
wait_ended $remove 10 "remove"
expect_eq "remove's status ($(cat /tmp/remove.out))" 0 "$RC"
[ ! -e /sys/block/pdm0 ] || fail "pdm0 still there after the remove"
run rmmod pdm
echo PASS
