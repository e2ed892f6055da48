#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# 6.12-tier: lower devices named by path, opened as files with kernel credentials
# vm: -c 2 -t 120
# A command that looks up or opens a lower device must not hold up the
# commands of other devices while it waits for I/O: a table names its
# lower device by a path on the file system of a suspended pdm device A,
# so create B waits for A's I/O in lookup_bdev().  Meanwhile ls answers at
# once, and resume A (over an inactive table, which swaps tables under
# the global lock) returns, after which B is created.  With the global
# lock held across the lookup, as before, ls and resume both waited for
# B, and B for A's resume: forever.
. "$(dirname "$0")/lib/lib.sh"

nullb_load queue_mode=2 nr_devices=2 gb=1 memory_backed=1
run modprobe ext4
run modprobe pdm
table="0 $((128 * 2048)) linear /dev/nullb0 0"
run pdmsetup create A --table "$table" >/dev/null
run mke2fs -q -F -t ext4 /dev/pdm0
mkdir -p /mnt
run mount -t ext4 /dev/pdm0 /mnt
mkdir -p /mnt/d/e
ln -s /dev/nullb1 /mnt/d/e/lower
# Mounted again read-only: no journal pins the metadata in memory, so
# that dropping the caches below drops it.
run umount /mnt
run mount -t ext4 -o ro /dev/pdm0 /mnt
run pdmsetup reload A --table "$table"
# A failed step must not leave A suspended: the guest's sync would hang.
trap 'pdmsetup resume A >/dev/null 2>&1 || :' EXIT
run pdmsetup suspend --nolockfs A
# Forget the directories, so that the lookup must read them from A.
echo 3 >/proc/sys/vm/drop_caches
pdmsetup create B --table "0 8 linear /mnt/d/e/lower 0" >/tmp/B.out 2>&1 &
b=$!
sleep 1
kill -0 $b 2>/dev/null ||
	fail "create B did not wait for suspended A: $(cat /tmp/B.out)"
still_running $b "create B, whose lower device's path is on suspended A"
returns_within 5 "ls while B waits" pdmsetup ls
returns_within 10 "resume A while B waits" pdmsetup resume A
trap - EXIT
wait_ended $b 10 "create B after A's resume"
[ "$RC" = 0 ] || fail "create B: exit $RC: $(cat /tmp/B.out)"
expect_eq "B's lower device" "0 8 linear $(cat /sys/block/nullb1/dev) 0" \
	"$(pdmsetup table B)"
run pdmsetup remove B
run umount /mnt
run pdmsetup remove A
run rmmod pdm
echo "PASS"
