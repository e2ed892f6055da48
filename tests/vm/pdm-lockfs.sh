#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# 6.12-tier: bdev_freeze and bdev_thaw
# vm: -c 2
# Suspend freezes the file system above, as dm's lock_fs does: "suspend,
# copy the lower device, resume" under a write load gives a copy that is
# a clean ext4 (no journal to replay, e2fsck -fn passes).  With
# --nolockfs the same copy is of a mounted, live file system, which needs
# recovery: that the test tells the two apart.  Writes go on after each
# resume, and the file system is clean at the end.
. "$(dirname "$0")/lib/lib.sh"

nullb_load queue_mode=2 nr_devices=1 submit_queues=1 poll_queues=1 \
	irqmode=0 gb=1 memory_backed=1 cache_size=16
run modprobe ext4
run modprobe pdm
# 128 MiB of the disk: small enough to copy into the guest's memory.
sectors=$((128 * 2048))
run pdmsetup create fsd --table "0 $sectors linear /dev/nullb0 0" >/dev/null
run mke2fs -q -F -t ext4 -E lazy_itable_init=0,lazy_journal_init=0 /dev/pdm0
mkdir -p /mnt
run mount -t ext4 /dev/pdm0 /mnt

# A writer that keeps the journal busy: small files, each fsync'd.  It
# stops at the stop file rather than by a signal: killing the loop's shell
# would leave its dd running with a file open, and umount would find /mnt
# busy.
writer() {
	local i=0
	while [ ! -e /tmp/lockfs.stop ]; do
		i=$(((i + 1) % 200))
		dd if=/dev/urandom of=/mnt/f$i bs=4k count=4 conv=fsync \
			status=none 2>/dev/null || true
	done
}
writer &
wpid=$!
sleep 1

# copy_suspended NAME [--nolockfs]: suspend, copy the lower range, resume;
# prints the copy's "needs_recovery" state and e2fsck's exit code.
copy_suspended() {
	local name=$1 rc=0
	shift
	run pdmsetup suspend "$@" fsd
	expect_eq "$name: suspended" 1 "$(cat /sys/block/pdm0/pdm/suspended)"
	run dd if=/dev/nullb0 of="/tmp/$name.img" bs=1M count=128 \
		iflag=direct status=none
	run pdmsetup resume "$@" fsd
	dumpe2fs -h "/tmp/$name.img" 2>/dev/null | grep -q needs_recovery &&
		NEEDS=yes || NEEDS=no
	e2fsck -fn "/tmp/$name.img" >"/tmp/$name.fsck" 2>&1 || rc=$?
	FSCK=$rc
	note "$name: needs_recovery $NEEDS, e2fsck -fn exit $FSCK"
	rm -f "/tmp/$name.img"
}

copy_suspended lockfs
expect_eq "lockfs: journal clean" no "$NEEDS"
[ "$FSCK" = 0 ] || { cat /tmp/lockfs.fsck; fail "lockfs: e2fsck -fn exit $FSCK"; }
expect_eq "writes go on after resume" 0 "$(cat /sys/block/pdm0/pdm/suspended)"
sleep 1
copy_suspended nolockfs --nolockfs
expect_eq "nolockfs: the copy needs recovery" yes "$NEEDS"

touch /tmp/lockfs.stop
wait_ended $wpid 60 "the writer"
run umount /mnt
run e2fsck -fn /dev/pdm0
run pdmsetup remove fsd
run rmmod pdm
echo "PASS"
