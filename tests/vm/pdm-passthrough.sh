#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# 6.12-tier: discards, write zeroes and flushes through queue_limits stacking
# debug-tier: full what passes through is not timing or lifetime (2.7 min on the debug kernel); its clone paths run in the core under pdm-basic and pdm-lower-fail
# vm: -c 2 -d 48M -d 48M
# What pdm passes through to its lower devices, with dm-linear over a
# twin device as the reference in the same boot: over emulated NVMe
# (discard, write zeroes, a volatile cache and FUA), pdm's queue limits
# for discard, write zeroes, FUA and the write cache are dm's; discard
# and write zeroes (blkdiscard, blkdiscard -z) reach the lower device as
# discard and write-zeroes requests covering the range, an O_SYNC direct
# write as a FUA write (block_rq_issue on the lower device), as they do
# through dm; zeroed data reads back as zeros, the data around it
# untouched.  Over a table mixing an NVMe leg with a null_blk leg that
# has no discard, pdm, like dm, offers no discard (blkdiscard fails with
# EOPNOTSUPP), and blkdiscard -z still zeroes, with plain writes on the
# leg without write zeroes.  Tables read from standard input: create and
# reload.
. "$(dirname "$0")/lib/lib.sh"

run modprobe nvme
wait_for_block nvme0n1
wait_for_block nvme1n1
nullb_load queue_mode=2 nr_devices=2 gb=1 memory_backed=1
run modprobe pdm
export DM_DISABLE_UDEV=1
nv=$(cat /sys/block/nvme0n1/size)
MB=2048		# sectors

# Tables from standard input.
printf '# one segment\n0 %s linear /dev/nvme0n1 0\n' "$nv" >/tmp/t1
run pdmsetup create p </tmp/t1 >/dev/null
expect_eq "table read from stdin" "0 $nv linear $(cat /sys/block/nvme0n1/dev) 0" \
	"$(pdmsetup table p)"
printf '0 %s linear /dev/nvme0n1 0\n' $((nv - MB)) | run pdmsetup reload p
expect_eq "reloaded table read from stdin" \
	"0 $((nv - MB)) linear $(cat /sys/block/nvme0n1/dev) 0" \
	"$(pdmsetup table --inactive p)"
run pdmsetup resume p
run dmsetup create ref --table "0 $((nv - MB)) linear /dev/nvme1n1 0"

# pdm's queue offers what dm's does.
for f in discard_max_bytes discard_granularity write_zeroes_max_bytes fua \
	write_cache; do
	expect_eq "queue/$f as dm's" "$(cat /sys/block/dm-0/queue/$f)" \
		"$(cat /sys/block/pdm0/queue/$f)"
done
expect_ge "discard offered" 1 "$(cat /sys/block/pdm0/queue/discard_max_bytes)"
expect_ge "write zeroes offered" 1 \
	"$(cat /sys/block/pdm0/queue/write_zeroes_max_bytes)"
expect_eq "fua offered" 1 "$(cat /sys/block/pdm0/queue/fua)"

echo 0 >$TRACEFS/tracing_on
echo 4096 >$TRACEFS/buffer_size_kb
echo 1 >$TRACEFS/events/block/block_rq_issue/enable

# issued LOWER: "discard zeroes fua writes", the sectors of each kind of
# request issued on LOWER (major,minor) since the trace was cleared.
issued() {
	awk -v dev="$1" '
	{
		for (i = 1; i <= NF; i++)
			if ($i == "block_rq_issue:")
				break
		if (i > NF || $(i + 1) != dev)
			next
		rwbs = $(i + 2); nr = 0
		for (j = i + 3; j < NF; j++)
			if ($j == "+") { nr = $(j + 1); break }
		if (rwbs ~ /^D/) d += nr
		else if (rwbs ~ /^N/) z += nr	# blktrace prints write zeroes as N
		else if (rwbs ~ /^WF/) f += nr
		else if (rwbs ~ /^W/) w += nr
	}
	END { print d + 0, z + 0, f + 0, w + 0 }' $TRACEFS/trace
}

# exercise DEV LOWER: discard 1 MiB at 1 MiB, zero 1 MiB at 3 MiB, a
# 4 KiB O_SYNC direct write at 5 MiB; the requests LOWER saw.
exercise() {
	echo >$TRACEFS/trace
	echo 1 >$TRACEFS/tracing_on
	run blkdiscard -o $((1 << 20)) -l $((1 << 20)) "$1"
	run blkdiscard -z -o $((3 << 20)) -l $((1 << 20)) "$1"
	run fio --name=fua --filename="$1" --ioengine=psync --direct=1 \
		--sync=1 --rw=write --bs=4k --size=4k --offset=5m \
		--output=/dev/null
	echo 0 >$TRACEFS/tracing_on
	issued "$(tr : , <"/sys/block/$2/dev")"
}

# Data around the zeroed range stays; the range reads back as zeros.
dd if=/dev/urandom of=/tmp/pattern bs=1M count=8 status=none
for dev in pdm0 dm-0; do
	run dd if=/tmp/pattern of=/dev/$dev bs=1M oflag=direct status=none
done
want="2048 2048 8 0"
expect_eq "dm-linear: discard, zeroes, fua, plain write sectors" "$want" \
	"$(exercise /dev/dm-0 nvme1n1)"
# Remapped whole (direct, the default) and as clones (tracked).
for mode in direct tracked; do
	echo $mode >/sys/block/pdm0/pdm/poll_mode
	expect_eq "pdm ($mode): discard, zeroes, fua, plain write sectors" \
		"$want" "$(exercise /dev/pdm0 nvme0n1)"
done
for dev in pdm0 dm-0; do
	cmp -s -n $((1 << 20)) /dev/$dev /tmp/pattern ||
		fail "$dev: data before the discard changed"
	cmp -s -n $((1 << 20)) /dev/zero /dev/$dev 0 $((3 << 20)) ||
		fail "$dev: the zeroed range does not read back as zeros"
	cmp -s -n $((1 << 20)) /dev/$dev /tmp/pattern $((4 << 20)) \
		$((4 << 20)) || fail "$dev: data after the zeroed range changed"
done
run dmsetup remove ref
run pdmsetup remove p

# A leg without discard: no discard for the whole table, as in dm.
mixed() {
	printf '0 %s linear /dev/%s 0\n%s %s linear /dev/%s 0\n' \
		$((4 * MB)) "$1" $((4 * MB)) $((4 * MB)) "$2"
}
mixed nvme0n1 nullb0 | run pdmsetup create m >/dev/null
mixed nvme1n1 nullb1 >/tmp/mixed
run dmsetup create mref /tmp/mixed
expect_eq "mixed: dm offers no discard" 0 \
	"$(cat /sys/block/dm-0/queue/discard_max_bytes)"
expect_eq "mixed: pdm offers no discard" 0 \
	"$(cat /sys/block/pdm0/queue/discard_max_bytes)"
expect_eq "mixed: write zeroes as dm's" \
	"$(cat /sys/block/dm-0/queue/write_zeroes_max_bytes)" \
	"$(cat /sys/block/pdm0/queue/write_zeroes_max_bytes)"
expect_fail "Operation not supported" blkdiscard /dev/pdm0
run dd if=/tmp/pattern of=/dev/pdm0 bs=1M oflag=direct status=none
run blkdiscard -z -o $((1 << 20)) -l $((2 << 20)) /dev/pdm0
cmp -s -n $((2 << 20)) /dev/zero /dev/pdm0 0 $((1 << 20)) ||
	fail "mixed: the zeroed range does not read back as zeros"
cmp -s -n $((4 << 20)) /dev/pdm0 /tmp/pattern $((3 << 20)) $((3 << 20)) ||
	fail "mixed: data after the zeroed range changed"
run dmsetup remove mref
run pdmsetup remove m
run rmmod pdm
echo PASS
