#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# 6.12-tier: read-only opens (BLK_OPEN_READ files) and uuid lookups
# debug-tier: full names, modes and refusals, no I/O path; the control path's error paths run in the core under pdm-fault-ctl
# vm: -c 1
# UUIDs, read-only devices and deferred removal, as dmsetup has them:
# - create --uuid: shown by info, ls and sysfs pdm/uuid; unique among pdm
#   devices (EEXIST naming the owner); a uuid with a byte that udev
#   would not keep in a link (a space, '!') is refused;
# - create --readonly: the disk is read-only (writes fail with EPERM,
#   reads see the data), its lower device is opened for reading only (a
#   read-write pdm device may share it), a read-write reload of it is
#   refused with EROFS and a reason, a --readonly one is taken; a
#   read-write table over it, or over a disk set read-only, is refused
#   with EROFS (a read-only one is taken);
# - remove --deferred of an open device returns at once, info says it is
#   pending, and the device goes when its last opener closes it; of a
#   closed device it removes at once; remove --cancel-deferred keeps an
#   open device past its last close, and is refused with ENOENT when no
#   removal is pending.
. "$(dirname "$0")/lib/lib.sh"

nullb_load queue_mode=2 nr_devices=2 gb=1 memory_backed=1
run modprobe pdm
sz=$(cat /sys/block/nullb0/size)

# UUIDs.
run pdmsetup create --uuid LVM-abc a --table "0 $sz linear /dev/nullb0 0" \
	>/dev/null
expect_eq "sysfs uuid" LVM-abc "$(cat /sys/block/pdm0/pdm/uuid)"
pdmsetup info a | grep -q '^UUID: *LVM-abc$' ||
	fail "info has no uuid: $(pdmsetup info a)"
expect_eq "info -c uuid" "a:LVM-abc" \
	"$(pdmsetup info -c --noheadings --separator : -o name,uuid a)"
expect_fail "File exists: b: uuid LVM-abc is a's" \
	pdmsetup create --uuid LVM-abc b --table "0 8 linear /dev/nullb0 0"
for u in "LVM abc" 'LVM!abc'; do
	expect_fail "Invalid argument: b: bad uuid: letters, digits and #+-.:=@_ only" \
		pdmsetup create --uuid "$u" b --table "0 8 linear /dev/nullb0 0"
done
expect_eq "only a after the refusals" a "$(pdmsetup info -c --noheadings -o name)"

# Read-only.
dd if=/dev/urandom of=/tmp/data bs=64k count=16 status=none
run dd if=/tmp/data of=/dev/nullb1 bs=64k oflag=direct status=none
run pdmsetup create --readonly r --table "0 $sz linear /dev/nullb1 0" \
	>/dev/null
expect_eq "ro flag" 1 "$(cat /sys/block/pdm1/ro)"
pdmsetup info r | grep -q '^Read-only: *yes$' ||
	fail "info does not say read-only: $(pdmsetup info r)"
expect_eq "reads see the data" "$(md5sum </tmp/data | cut -d' ' -f1)" \
	"$(md5_of /dev/pdm1 0 2048)"
expect_fail "Operation not permitted" \
	dd if=/tmp/data of=/dev/pdm1 bs=64k count=1 oflag=direct
expect_fail "Operation not permitted" \
	fio --name=w --filename=/dev/pdm1 --ioengine=io_uring --direct=1 \
	--rw=write --bs=4k --size=64k
expect_eq "data unchanged" "$(md5sum </tmp/data | cut -d' ' -f1)" \
	"$(md5_of /dev/nullb1 0 2048)"
run pdmsetup create w --table "0 8 linear /dev/nullb1 0" >/dev/null
run pdmsetup remove w
# A read-write table over the read-only device is refused, as dm refuses
# one over a read-only disk, and so is one over a disk set read-only.
expect_fail "Read-only file system: line 1: /dev/pdm1: read-only: this table needs --readonly" \
	pdmsetup create rw-over-ro --table "0 8 linear /dev/pdm1 0"
run pdmsetup create ro-over-ro --readonly --table "0 8 linear /dev/pdm1 0" \
	>/dev/null
run pdmsetup remove ro-over-ro
run blockdev --setro /dev/nullb0
expect_fail "Read-only file system: line 1: /dev/nullb0: read-only: this table needs --readonly" \
	pdmsetup create rw-over-setro --table "0 8 linear /dev/nullb0 0"
run blockdev --setrw /dev/nullb0
expect_fail "Read-only file system: r: the device is read-only; a reload keeps its mode" \
	pdmsetup reload r --table "0 8 linear /dev/nullb1 0"
pdmsetup info r | grep -q '^Tables present: *LIVE$' ||
	fail "inactive table after a refused reload: $(pdmsetup info r)"
expect_fail "Invalid argument: a: the device is read-write; a reload keeps its mode" \
	pdmsetup reload --readonly a --table "0 8 linear /dev/nullb0 0"
run pdmsetup reload --readonly r --table "0 $sz linear /dev/nullb1 0"
run pdmsetup resume r
expect_eq "still ro after the reload" 1 "$(cat /sys/block/pdm1/ro)"
run pdmsetup remove r

# Deferred removal.
exec 3</dev/pdm0
expect_fail "Device or resource busy" pdmsetup remove a
run pdmsetup remove --deferred a
pdmsetup info a | grep -q '^Deferred remove: *pending$' ||
	fail "info does not show the pending removal: $(pdmsetup info a)"
expect_eq "still there while open" 1 "$(pdmsetup info -c --noheadings -o name | grep -c '^a$')"
exec 3<&-
wait_block_gone pdm0 "a still exists after its last close"
expect_eq "ls after the deferred removal" "No devices found" "$(pdmsetup ls)"
run pdmsetup create c --table "0 8 linear /dev/nullb0 0" >/dev/null
run pdmsetup remove --deferred c
expect_eq "closed: removed at once" "No devices found" "$(pdmsetup ls)"
run pdmsetup create d --table "0 8 linear /dev/nullb0 0" >/dev/null
expect_fail "d: no deferred remove pending" pdmsetup remove --cancel-deferred d
pdmsetup remove --cancel-deferred d 2>&1 | grep -q "No such file or directory" ||
	fail "a cancel with none pending is not ENOENT"
exec 3</dev/pdm0
run pdmsetup remove --deferred d
run pdmsetup remove --cancel-deferred d
! pdmsetup info d | grep -q '^Deferred remove:' ||
	fail "info still shows a removal after the cancel: $(pdmsetup info d)"
exec 3<&-
sleep 0.5
expect_eq "cancelled: still there after the last close" d \
	"$(pdmsetup info -c --noheadings -o name d)"
run pdmsetup remove d
run rmmod pdm
echo "PASS"
