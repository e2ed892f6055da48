#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm: -c 2
# debug-tier: full pdmsetup's own memory, no kernel lifetimes: pdm-suspend and pdm-remove-race run these commands in the core
# 6.12-tier: pdmsetup's locked memory around suspend and resume (6.12's bdev_freeze)
# pdmsetup locks its memory around the commands that leave a device
# suspended or resume it, as libdevmapper does: while a device is
# suspended, a page fault of pdmsetup's that needs I/O through it (swap
# on it, or its own pages on a file system over it) would wait for the
# resume it is about to ask for.  A suspend that waits for a read in
# flight (null_blk completes it 2 s late), a resume that waits for that
# suspend's lock, and a remove --force that waits for a read too must
# each show locked memory in pdmsetup's /proc status (VmLck).  The
# mutant pdmsetup-no-memlock fails it.
. "$(dirname "$0")/lib/lib.sh"

nullb_load queue_mode=2 nr_devices=1 gb=1 irqmode=2 \
	completion_nsec=2000000000
run modprobe pdm
run pdmsetup create ml --table "0 2048 linear /dev/nullb0 0" >/dev/null

# read_in_flight: a 4k read of pdm0 that null_blk ends 2 s from now.
read_in_flight() {
	dd if=/dev/pdm0 of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null &
	sleep 0.3
}

# locked PID WHAT: PID still runs (it waits) with memory locked.
locked() {
	kill -0 "$1" 2>/dev/null || fail "$2 returned before the read ended"
	expect_ge "$2: pdmsetup's locked memory, kB" 1 \
		"$(awk '/^VmLck:/ { print $2 }' "/proc/$1/status")"
}

read_in_flight
pdmsetup suspend ml >/tmp/suspend.out 2>&1 &
suspend=$!
sleep 0.3
pdmsetup resume ml >/tmp/resume.out 2>&1 &
resume=$!
sleep 0.3
locked $suspend "suspend (waiting for the read)"
locked $resume "resume (waiting for the suspend)"
wait_ended $suspend 10 "suspend"
expect_eq "suspend's status ($(cat /tmp/suspend.out))" 0 "$RC"
wait_ended $resume 10 "resume"
expect_eq "resume's status ($(cat /tmp/resume.out))" 0 "$RC"
pdmsetup info ml | grep -q '^State: *ACTIVE$' ||
	fail "ml not active after the resume: $(pdmsetup info ml)"
wait

read_in_flight
pdmsetup remove --force ml >/tmp/remove.out 2>&1 &
remove=$!
sleep 0.3
locked $remove "remove --force (waiting for the read)"
wait_ended $remove 10 "remove --force"
expect_eq "remove --force's status ($(cat /tmp/remove.out))" 0 "$RC"
expect_eq "after remove --force" "No devices found" "$(pdmsetup ls)"
wait
run rmmod pdm
echo PASS
