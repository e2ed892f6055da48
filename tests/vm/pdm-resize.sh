#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# 6.12-tier: set_capacity_and_notify() and ext4's online resize over 6.12's bdev code
# debug-tier: full the grow is set_capacity_and_notify() and ext4's own resize; pdm's reload and resume run in the core under pdm-reload
# vm: -c 2
# Online grow, as an admin grows a dm-linear device under a mounted file
# system: ext4 mounted on a 64 MiB linear device with a file in it;
# reload a 128 MiB table over the same start, resume (the file system
# frozen and thawed around it), and the disk is 128 MiB
# (/sys/block/X/size), resize2fs grows the mounted file system online,
# which then holds 80 MiB more than it could before; the first file reads
# back unchanged, and e2fsck finds the file system clean after umount.
# dm-linear in the same boot is the control: the same steps, the same
# outcome.
. "$(dirname "$0")/lib/lib.sh"

nullb_load queue_mode=2 nr_devices=2 gb=1 memory_backed=1
run modprobe ext4
run modprobe dm-mod
run modprobe pdm
export DM_DISABLE_UDEV=1
small=$((64 * 2048)) big=$((128 * 2048))
mkdir -p /mnt/grow

# grow KIND DEV LOWER: the steps on device DEV (KIND dm or pdm), whose
# tables map LOWER from sector 0.
grow() {
	local kind=$1 dev=$2 lower=$3 sum kib kib0

	run mke2fs -q -F -t ext4 -E lazy_itable_init=0,lazy_journal_init=0 "$dev"
	run mount -t ext4 "$dev" /mnt/grow
	run dd if=/dev/urandom of=/mnt/grow/first bs=1M count=16 conv=fsync \
		status=none
	sum=$(md5sum </mnt/grow/first)
	# 80 MiB does not fit in 64 MiB.
	if dd if=/dev/zero of=/mnt/grow/big bs=1M count=80 conv=fsync \
		status=none 2>/dev/null; then
		fail "$kind: 80 MiB fit before the grow"
	fi
	rm -f /mnt/grow/big
	kib0=$(df -k /mnt/grow | awk 'NR == 2 { print $2 }')
	if [ "$kind" = dm ]; then
		run dmsetup reload grow --table "0 $big linear $lower 0"
		run dmsetup resume grow
	else
		run pdmsetup reload grow --table "0 $big linear $lower 0"
		run pdmsetup resume grow
	fi
	expect_eq "$kind: disk sectors after the resume" "$big" \
		"$(cat "/sys/block/${dev##*/}/size")"
	run resize2fs "$dev"
	kib=$(df -k /mnt/grow | awk 'NR == 2 { print $2 }')
	# 64 MiB more, less the new block groups' own metadata.
	expect_ge "$kind: file system KiB after resize2fs" \
		$((kib0 + 56 * 1024)) "$kib"
	run dd if=/dev/zero of=/mnt/grow/big bs=1M count=80 conv=fsync \
		status=none
	expect_eq "$kind: the first file after the grow" "$sum" \
		"$(md5sum </mnt/grow/first)"
	run umount /mnt/grow
	run e2fsck -fn "$dev"
	note "ok: $kind: grown online from $kib0 to $kib KiB, data intact, fsck clean"
}

run dmsetup create grow --table "0 $small linear /dev/nullb0 0"
grow dm /dev/dm-0 /dev/nullb0
run dmsetup remove grow

run pdmsetup create grow --table "0 $small linear /dev/nullb1 0" >/dev/null
grow pdm /dev/pdm0 /dev/nullb1
run pdmsetup remove grow
run rmmod pdm
echo "PASS"
