#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# 6.12-tier: several pdm devices over one disk: holders, shared poll queues
# debug-tier: full holders and shared poll queues (1.6 min on the debug kernel); the clone and remap paths run in the core's other pdm tests
# vm: -c 2 -d 64M
# pdm devices share a lower disk as dm devices do: pdm holds every lower
# device with one module-wide holder.  Two devices over the two halves of
# one emulated NVMe namespace (with a poll queue) and a third, read-only,
# over all of it (a writable one would be refused: pdm-overlap)
# write and verify data polled at the same time, every I/O completed by
# a poll; the whole-disk device sees the half devices' data where they
# put it; holders/ lists each user.
# Any other exclusive opener is still refused while pdm holds the disk
# (dm, a mount), pdm is refused on a disk with a file system mounted, and
# each device is removed alone while the others keep their data.
. "$(dirname "$0")/lib/lib.sh"

nullb_load queue_mode=2 nr_devices=1 gb=1 memory_backed=1
run modprobe nvme poll_queues=1
wait_for_block nvme0n1
expect_eq "nvme0n1 io_poll" 1 "$(cat /sys/block/nvme0n1/queue/io_poll)"
run modprobe dm-mod
run modprobe ext4
run modprobe pdm
sz=$(cat /sys/block/nvme0n1/size)
half=$((sz / 2))
mib=4

expect_eq "create lo" /dev/pdm0 \
	"$(pdmsetup create lo --table "0 $half linear /dev/nvme0n1 0")"
expect_eq "create hi" /dev/pdm1 \
	"$(pdmsetup create hi --table "0 $half linear /dev/nvme0n1 $half")"
expect_eq "create all (read-only, overlaps both)" /dev/pdm2 \
	"$(pdmsetup create all --readonly --table "0 $sz linear /dev/nvme0n1 0")"
expect_eq "nvme0n1 holders" "pdm0 pdm1 pdm2" "$(holders_of nvme0n1)"

# Both halves written and verified at once, polled.  fio_run's job
# options follow its first --name; the second job repeats them.
# job DEV [VERIFY-OPTS]: one job's options.
job() {
	echo "--filename=$1 --ioengine=io_uring --hipri=1 --direct=1" \
		"--rw=randwrite --bs=4k --iodepth=16 --size=${mib}m" \
		"--verify=crc32c --verify_fatal=1 ${2:---do_verify=1}"
}
# shellcheck disable=SC2046 # one word per option
fio_run lo $(job /dev/pdm0) --name=hi $(job /dev/pdm1)
# Each wrote and read back mib MiB in 4k I/Os, every one polled (nvme's
# poll queue raises no interrupt): remapped in place, reaped by a poll.
for d in pdm0 pdm1; do
	expect_ge "$d: polled bios" $((mib * 512)) \
		"$(cat /sys/block/$d/pdm/polled_bios)"
	expect_eq "$d: of them completed by a poll" \
		"$(cat /sys/block/$d/pdm/polled_bios)" \
		"$(cat /sys/block/$d/pdm/completions_found)"
done
expect_eq "all sees lo's data" "$(md5_of /dev/pdm0 0 $((mib * 2048)))" \
	"$(md5_of /dev/pdm2 0 $((mib * 2048)))"
expect_eq "all sees hi's data" "$(md5_of /dev/pdm1 0 $((mib * 2048)))" \
	"$(md5_of /dev/pdm2 "$half" $((mib * 2048)))"

# Other exclusive openers are still refused while pdm holds the disk.
expect_fail "Device or resource busy" \
	dmsetup create other --table "0 8 linear /dev/nvme0n1 0"
expect_fail "Device or resource busy" mount -t ext4 /dev/nvme0n1 /mnt

# And pdm is refused on a disk that a mounted file system holds.
run mke2fs -q -F -t ext4 /dev/nullb0
run mount -t ext4 /dev/nullb0 /mnt
expect_fail "line 1: /dev/nullb0: in use by someone else" \
	pdmsetup create mounted --table "0 8 linear /dev/nullb0 0"
expect_eq "nullb0 holders while mounted" "" "$(holders_of nullb0)"
run umount /mnt

# Each device goes alone; the others keep serving their data.
run pdmsetup remove lo
expect_eq "nvme0n1 holders without lo" "pdm1 pdm2" "$(holders_of nvme0n1)"
# shellcheck disable=SC2046
fio_run hi $(job /dev/pdm1 --verify_only=1)
run pdmsetup remove all
expect_eq "nvme0n1 holders: hi alone" pdm1 "$(holders_of nvme0n1)"
# shellcheck disable=SC2046
fio_run hi $(job /dev/pdm1 --verify_only=1)
run pdmsetup remove hi
expect_eq "nvme0n1 holders after the last" "" "$(holders_of nvme0n1)"
# Released: another exclusive opener gets it now.
run dmsetup create other --table "0 8 linear /dev/nvme0n1 0"
expect_fail "nvme0n1: in use by someone else" \
	pdmsetup create back --table "0 8 linear /dev/nvme0n1 0"
run dmsetup remove other
run rmmod pdm
echo "PASS"
