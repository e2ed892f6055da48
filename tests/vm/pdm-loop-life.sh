#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm: -c 2 -t 400
# A device's life around I/O that completes in process context: over a
# loop device (its worker ends each request, and pdm's clone end_io runs
# in that task), create, write and read back, remove, over and over (300
# times; 100 in the debug tier's core).  A top bio's submitter may close
# and remove the device the moment it has its bio back, while the worker
# that ended it is still inside pdm: pdm must be done with the device by
# then (the reference it drops before bio_endio(), and remove's drain).
# On the debug kernel KASAN and kmemleak watch every round.
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/tests/lib.sh"

run modprobe loop
run modprobe pdm
truncate -s 16M /tmp/lower.img
run losetup /dev/loop0 /tmp/lower.img
sectors=$(cat /sys/block/loop0/size)
rounds=300
[ "$(debug_tier)" = core ] && rounds=100
dd if=/dev/urandom of=/tmp/block bs=64k count=1 status=none
for i in $(seq "$rounds"); do
	pdmsetup create l --table "0 $sectors linear /dev/loop0 0" >/dev/null ||
		fail "round $i: create failed"
	dd if=/tmp/block of=/dev/pdm0 bs=64k seek=$((i % 200)) oflag=direct \
		status=none || fail "round $i: write failed"
	dd if=/dev/pdm0 of=/tmp/back bs=64k skip=$((i % 200)) count=1 \
		iflag=direct status=none || fail "round $i: read failed"
	cmp -s /tmp/block /tmp/back || fail "round $i: data read back differs"
	pdmsetup remove l || fail "round $i: remove failed"
done
note "ok: $rounds rounds of create, write, read, remove"
expect_eq "loop0 holders" "" "$(ls /sys/block/loop0/holders)"
run losetup -d /dev/loop0
run rmmod pdm
echo PASS
