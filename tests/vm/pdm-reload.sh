#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# 6.12-tier: limits committed through queue_limits_commit_update on resume
# vm: -c 2 -d 64M -d 16M -t 300
# Live reload.  First, that a swap really moves the I/O: tables that map
# differently (another lower device, another offset, another size, linear
# then striped) are swapped in turn, by suspend + resume and by resume
# alone, in poll_mode direct (bios remapped in place) and tracked
# (clones); after each, random data written through the pdm device is
# read back from the lower devices themselves at the offsets the new
# table names, the places only the old tables named still hold what was
# written there before, and the device has the new table's size.
# Then, under running crc32c verify I/O, polled and not: while two fio
# jobs write and verify (hipri=1 on one half of the device, hipri=0 on
# the other), pdmsetup swaps between two equivalent tables (one linear
# segment, or the same mapping cut in three) with reload + suspend +
# resume, suspends and resumes without a table, and resumes with an
# inactive table directly, for as long as the jobs run, in poll_mode
# tracked and direct by turns (direct: bios remapped in place, which a
# suspend must wait for as for cloned ones).  No verify error, no I/O
# error, I/O really was held back while suspended, and every table swap
# took.
. "$(dirname "$0")/lib/lib.sh"

run modprobe nvme poll_queues=1
wait_for_block nvme0n1
wait_for_block nvme1n1
run modprobe pdm
# ---- a swap moves the I/O where the new table says ------------------------

# put FILE: write FILE at the start of the pdm device, O_DIRECT.
put() {
	dd if="$1" of=/dev/pdm0 bs=64k oflag=direct conv=notrunc status=none ||
		fail "writing $1 to pdm0"
}

# expect_at WHAT DEV SECTOR FILE: DEV holds FILE from SECTOR.
expect_at() {
	expect_eq "$1" "$(md5sum <"$4" | cut -d' ' -f1)" \
		"$(md5_of "$2" "$3" $(($(stat -c %s "$4") / 512)))"
}

# swap TABLE [resume]: reload TABLE and make it live, with suspend +
# resume, or with resume alone (which suspends by itself).
swap() {
	run pdmsetup reload live --table "$1"
	if [ "${2:-}" != resume ]; then
		run pdmsetup suspend live
		expect_eq "suspended" 1 "$(pdm_stat suspended)"
	fi
	run pdmsetup resume live
	pdmsetup info live | grep -q '^Tables present: *LIVE$' ||
		fail "an inactive table left after resume: $(pdmsetup info live)"
}

# expect_table TABLE SECTORS: TABLE is live (as pdmsetup prints it) and the
# device has its size.  Checked after the data, which says more.
expect_table() {
	expect_eq "live table" \
		"$(echo "$1" | sed "s|/dev/nvme0n1|$n0|g; s|/dev/nvme1n1|$n1|g")" \
		"$(pdmsetup table live)"
	expect_eq "size" "$2" "$(cat /sys/block/pdm0/size)"
}

n0=$(cat /sys/block/nvme0n1/dev) n1=$(cat /sys/block/nvme1n1/dev)
for f in A B C; do
	head -c $((512 * 1024)) /dev/urandom >/tmp/$f
done
# A: 1024 sectors on nvme0n1 at 8192.
t1="0 1024 linear /dev/nvme0n1 8192"
run pdmsetup create live --table "$t1" >/dev/null
put /tmp/A
expect_at "t1: nvme0n1 at 8192 holds A" /dev/nvme0n1 8192 /tmp/A
expect_table "$t1" 1024
# B: another device, another offset, and twice the size; bios remapped
# in place.
echo direct >/sys/block/pdm0/pdm/poll_mode
t2="0 2048 linear /dev/nvme1n1 2048"
swap "$t2"
r0=$(pdm_stat remapped)
put /tmp/B
expect_ge "t2: bios remapped in place" 8 $(( $(pdm_stat remapped) - r0 ))
expect_at "t2: nvme1n1 at 2048 holds B" /dev/nvme1n1 2048 /tmp/B
expect_at "t2: nvme0n1 at 8192 still holds A" /dev/nvme0n1 8192 /tmp/A
expect_at "t2: pdm0 reads B" /dev/pdm0 0 /tmp/B
expect_table "$t2" 2048
# C: striped over both at new offsets, 32 KiB chunks (each 64 KiB write
# cut in two clones, one per leg), in tracked mode; made live by resume
# alone.
echo tracked >/sys/block/pdm0/pdm/poll_mode
t3="0 1024 striped 2 64 /dev/nvme0n1 16384 /dev/nvme1n1 4096"
swap "$t3" resume
c0=$(pdm_stat clones)
put /tmp/C
expect_ge "t3: clones" 16 $(( $(pdm_stat clones) - c0 ))
# Chunk k of C goes to leg k % 2, at chunk k / 2 of that leg.
rm -f /tmp/C.0 /tmp/C.1
for k in $(seq 0 15); do
	dd if=/tmp/C bs=32k skip="$k" count=1 status=none >>/tmp/C.$((k % 2))
done
expect_at "t3: nvme0n1 at 16384 holds C's even chunks" /dev/nvme0n1 16384 /tmp/C.0
expect_at "t3: nvme1n1 at 4096 holds C's odd chunks" /dev/nvme1n1 4096 /tmp/C.1
expect_at "t3: nvme1n1 at 2048 still holds B" /dev/nvme1n1 2048 /tmp/B
expect_at "t3: nvme0n1 at 8192 still holds A" /dev/nvme0n1 8192 /tmp/A
expect_at "t3: pdm0 reads C" /dev/pdm0 0 /tmp/C
expect_table "$t3" 1024
# And back to t1 in direct mode: A again, and a write there lands there.
echo direct >/sys/block/pdm0/pdm/poll_mode
swap "$t1"
expect_at "t1 again: pdm0 reads A" /dev/pdm0 0 /tmp/A
put /tmp/C
expect_at "t1 again: nvme0n1 at 8192 holds C" /dev/nvme0n1 8192 /tmp/C
expect_table "$t1" 1024
echo tracked >/sys/block/pdm0/pdm/poll_mode

# ---- swaps under running verify I/O ---------------------------------------

disk=$(cat /sys/block/nvme0n1/size)
a=$((disk / 4)) b=$((disk / 2))
one="0 $disk linear /dev/nvme0n1 0"
three="$(printf '0 %s linear /dev/nvme0n1 0\n%s %s linear /dev/nvme0n1 %s\n%s %s linear /dev/nvme0n1 %s' \
	$a $a $((b - a)) $a $b $((disk - b)) $b)"
swap "$one"
expect_table "$one" "$disk"

half=$((disk * 512 / 2))
job() {
	local rc=0
	fio --name="$1" --filename=/dev/pdm0 --ioengine=io_uring --direct=1 \
		--hipri="$2" --offset="$3" --size=$((half / 2)) \
		--rw=randwrite --bsrange=4k-32k --iodepth=8 \
		--verify=crc32c --verify_backlog=16 --verify_fatal=1 \
		--time_based --runtime=24 --output-format=terse \
		--terse-version=3 >/tmp/"$1".out 2>&1 || rc=$?
	echo $rc >/tmp/"$1".rc
}
deferred0=$(pdm_stat deferred) polled0=$(pdm_stat polled_bios)
remapped0=$(pdm_stat remapped)
job polled 1 0 &
p1=$!
job irq 0 "$half" &
p2=$!
sleep 2

swaps=0 i=0
# Swap for as long as both jobs run.
while kill -0 $p1 2>/dev/null && kill -0 $p2 2>/dev/null; do
	i=$((i + 1))
	if [ $((i % 2)) = 1 ]; then t=$three n=3; else t=$one n=1; fi
	if [ $((i % 3)) = 0 ]; then m=direct; else m=tracked; fi
	echo $m >/sys/block/pdm0/pdm/poll_mode
	run pdmsetup reload live --table "$t"
	pdmsetup info live | grep -q 'LIVE & INACTIVE' ||
		fail "info after reload: $(pdmsetup info live)"
	if [ $((i % 4)) = 0 ]; then
		# resume with an inactive table suspends by itself
		run pdmsetup resume live
	else
		run pdmsetup suspend live
		expect_eq "suspended" 1 "$(pdm_stat suspended)"
		sleep 0.3
		run pdmsetup resume live
	fi
	expect_eq "segments after swap $i" $n "$(pdmsetup table live | wc -l)"
	swaps=$((swaps + 1))
	# and a suspend/resume with no table change
	run pdmsetup suspend live
	sleep 0.2
	run pdmsetup resume live
	sleep 0.5
done
wait

for j in polled irq; do
	rc=$(cat /tmp/$j.rc)
	[ "$rc" = 0 ] || { cat /tmp/$j.out; fail "fio $j exited $rc"; }
	FIO_TERSE=$(grep '^3;' /tmp/$j.out | tail -n 1)
	expect_eq "$j: fio error" 0 "$(fio_field 5)"
	expect_ge "$j: KiB verified" 1024 "$(fio_field 6)"
done
expect_ge "table swaps under I/O" 4 "$swaps"
expect_ge "bios held back while suspended" 1 \
	$(( $(pdm_stat deferred) - deferred0 ))
expect_ge "polled bios" 1 $(( $(pdm_stat polled_bios) - polled0 ))
expect_ge "bios remapped in place (direct)" 1 \
	$(( $(pdm_stat remapped) - remapped0 ))
expect_eq "suspended at the end" 0 "$(pdm_stat suspended)"
run pdmsetup remove live
run rmmod pdm
echo "PASS"
