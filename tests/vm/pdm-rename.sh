#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# 6.12-tier: a live rename against 6.12's block and sysfs code
# vm: -c 1
# pdmsetup rename OLD NEW, live:
# - a device that is open and has data renames; the opener keeps its file,
#   the data written under the old name reads back (fio verify) under the
#   new one, and the new name is everywhere the old one was: info, ls,
#   /sys/block/pdmN/pdm/name, and the disk (pdmN) is the same;
# - the old name is free at once (info: ENXIO; a new device may take it);
# - refused, by value and changing nothing: a name another device has
#   (EEXIST naming it), the device's own name, a name outside udev's set,
#   an over-long name (pdmsetup, exit 2), an unknown device (ENXIO);
# - reload, suspend, resume and remove work under the new name.
# The change event it sends is pdm-uevent's; udev's links following it
# (and pdmsetup's wait for them) are the system test's, which runs udev.
. "$(dirname "$0")/lib/lib.sh"

nullb_load queue_mode=2 nr_devices=2 gb=1 memory_backed=1
run modprobe pdm
sz=$(cat /sys/block/nullb0/size)

run pdmsetup create --uuid PDM-rn-1 old --table "0 $sz linear /dev/nullb0 0" \
	>/dev/null
dev=$(cat /sys/block/pdm0/dev)
fio_run write --filename=/dev/pdm0 --rw=write --bs=64k --size=4m \
	--direct=1 --verify=crc32c --do_verify=0
# An opener across the rename: a rename does not care who has it open.
exec 3</dev/pdm0

run pdmsetup rename old new
expect_eq "sysfs name after rename" new "$(cat /sys/block/pdm0/pdm/name)"
expect_eq "same disk after rename" "$dev" "$(cat /sys/block/pdm0/dev)"
expect_eq "uuid after rename" PDM-rn-1 "$(cat /sys/block/pdm0/pdm/uuid)"
expect_eq "ls after rename" "new	($dev)	PDM-rn-1" "$(pdmsetup ls)"
expect_eq "info new: open count" 1 \
	"$(pdmsetup info -c --noheadings -o open new)"
expect_fail "pdmsetup: info old: No such device or address: old: no such device" \
	pdmsetup info old
fio_run verify --filename=/dev/pdm0 --rw=read --bs=64k --size=4m \
	--direct=1 --verify=crc32c --do_verify=1 --verify_only=1
exec 3<&-

# The old name is free: another device may take it.
run pdmsetup create old --table "0 $sz linear /dev/nullb1 0" >/dev/null
expect_fail "pdmsetup: rename new: File exists: new: the name old is taken (pdm1)" \
	pdmsetup rename new old
expect_fail "pdmsetup: rename new: File exists: new: the name new is taken (pdm0)" \
	pdmsetup rename new new
expect_fail "pdmsetup: rename new: Invalid argument: new: bad new name: letters, digits and #+-.:=@_ only" \
	pdmsetup rename new 'a!b'
expect_fail "pdmsetup: rename new: Invalid argument: new: bad new name" \
	pdmsetup rename new ..
expect_fail "pdmsetup: rename nosuch: No such device or address: nosuch: no such device" \
	pdmsetup rename nosuch other
rc=0
pdmsetup rename new "$(printf 'x%.0s' $(seq 128))" 2>/tmp/err || rc=$?
expect_eq "rename to 128 bytes: exit" 2 "$rc"
expect_eq "rename to 128 bytes: stderr" \
	"pdmsetup: rename: NAME longer than 127 bytes" "$(cat /tmp/err)"
expect_eq "ls after the refusals" "new	($dev)	PDM-rn-1
old	($(cat /sys/block/pdm1/dev))" "$(pdmsetup ls | sort)"
expect_eq "sysfs name after the refusals" new \
	"$(cat /sys/block/pdm0/pdm/name)"

# The other commands find it by its new name.
run pdmsetup reload new --table "0 $sz linear /dev/nullb0 0"
run pdmsetup suspend new
run pdmsetup resume new
fio_run verify2 --filename=/dev/pdm0 --rw=read --bs=64k --size=4m \
	--direct=1 --verify=crc32c --do_verify=1 --verify_only=1
run pdmsetup remove new
run pdmsetup remove old
expect_eq "ls at the end" "No devices found" "$(pdmsetup ls)"
run rmmod pdm
echo "PASS"
