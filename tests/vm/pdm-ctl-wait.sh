#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# 6.12-tier: commands waiting on a suspended device, bdev_freeze() there
# vm: -c 2
# A command waiting for a device's I/O holds up that device only.  pdm1
# stacks on pdm0; pdm0 is suspended, so a read through pdm1 stays
# deferred in pdm0 and "suspend pdm1" waits for it.  While it waits: ls,
# info, table and status of both, a create, suspend, resume and remove
# of a third device all return; a second command on pdm1 waits behind
# the first and dies at once when killed, leaving pdm1 as it was; and
# "resume pdm0" (the one command that lets pdm1's I/O drain) returns,
# after which the suspend of pdm1 returns too and the read completes.
# Then the same with "resume pdm1" over an inactive table (resume
# suspends first).
. "$(dirname "$0")/lib/lib.sh"

nullb_load queue_mode=2 nr_devices=2 gb=1
run modprobe pdm
sz=$(cat /sys/block/nullb0/size)
run pdmsetup create p0 --table "0 $sz linear /dev/nullb0 0" >/dev/null
run pdmsetup create p1 --table "0 $sz linear /dev/pdm0 0" >/dev/null

# stuck_io: suspend pdm0, then read through pdm1 until pdm0 holds it back.
stuck_io() {
	local d0
	d0=$(cat /sys/block/pdm0/pdm/deferred)
	run pdmsetup suspend p0
	dd if=/dev/pdm1 of=/dev/null bs=4k count=1 iflag=direct \
		2>/tmp/dd.err &
	DD=$!
	for _ in $(seq 100); do
		[ "$(cat /sys/block/pdm0/pdm/deferred)" -gt "$d0" ] && return
		sleep 0.1
	done
	fail "the read through pdm1 was not deferred in pdm0"
}

# others_go_on: while a command on pdm1 waits for its I/O, everything else
# returns, and a second command on pdm1 waits and can be killed.
others_go_on() {
	returns_within 10 "ls" pdmsetup ls
	returns_within 10 "info p1" pdmsetup info p1
	grep -q '^State: *SUSPENDED$' /tmp/cmd.out ||
		fail "p1 not shown suspended: $(cat /tmp/cmd.out)"
	returns_within 10 "table p1" pdmsetup table p1
	returns_within 10 "status p0" pdmsetup status p0
	returns_within 10 "info p0" pdmsetup info p0
	returns_within 10 "create p2" pdmsetup create p2 --table \
		"0 $sz linear /dev/nullb1 0"
	returns_within 10 "suspend p2" pdmsetup suspend p2
	returns_within 10 "resume p2" pdmsetup resume p2
	returns_within 10 "remove p2" pdmsetup remove p2
	pdmsetup info p1 >/tmp/info.before
	pdmsetup resume p1 2>/tmp/second.err &
	second=$!
	still_running $second "a second command on p1"
	kill -KILL $second
	wait_ended $second 5 "the killed second command on p1"
	expect_eq "the second command's status" 137 "$RC"
	pdmsetup info p1 >/tmp/info.after
	cmp /tmp/info.before /tmp/info.after ||
		fail "p1 changed: $(cat /tmp/info.after)"
}

# held_by_p0 WHAT CMD...: with a read through pdm1 deferred in pdm0, CMD
# (a command on pdm1 that waits for that read) waits while everything
# else goes on; resuming pdm0 lets CMD and the read finish.
held_by_p0() {
	local what=$1 first
	shift
	stuck_io
	"$@" 2>/tmp/first.err &
	first=$!
	still_running $first "$what"
	others_go_on
	returns_within 10 "resume p0" pdmsetup resume p0
	wait_ended $first 10 "$what"
	expect_eq "$what: status" 0 "$RC"
	wait_ended $DD 10 "the read through p1"
	# Issued before the command, the read is not held back by it.
	expect_eq "the read's status" 0 "$RC"
}

# 1: suspend pdm1 waits for its I/O, which waits in pdm0.
held_by_p0 "suspend p1" pdmsetup suspend p1
run pdmsetup resume p1
# 2: resume with an inactive table suspends (and waits) first.
run pdmsetup reload p1 --table "0 $((sz / 2)) linear /dev/pdm0 0"
held_by_p0 "resume p1 over an inactive table" pdmsetup resume p1
expect_eq "p1's new size" $((sz / 2)) "$(cat /sys/block/pdm1/size)"

run pdmsetup remove p1
run pdmsetup remove p0
run rmmod pdm
echo PASS
