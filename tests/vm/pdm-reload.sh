#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm: -c 2 -d 64M -t 300
# Live reload under running crc32c verify I/O, polled and not: while two
# fio jobs write and verify (hipri=1 on one half of the device, hipri=0 on
# the other), pdmsetup swaps between two equivalent tables (one linear
# segment, or the same mapping cut in three) with reload + suspend +
# resume, suspends and resumes without a table, and resumes with an
# inactive table directly, for as long as the jobs run, in poll_mode
# tracked and direct by turns (direct: bios remapped in place, which a
# suspend must wait for as for cloned ones).  No verify error, no I/O
# error, I/O really was held back while suspended, and every table swap
# took.
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/tests/lib.sh"

run modprobe nvme poll_queues=1
wait_for_block nvme0n1
run modprobe pdm
disk=$(cat /sys/block/nvme0n1/size)
a=$((disk / 4)) b=$((disk / 2))
one="0 $disk linear /dev/nvme0n1 0"
three="$(printf '0 %s linear /dev/nvme0n1 0\n%s %s linear /dev/nvme0n1 %s\n%s %s linear /dev/nvme0n1 %s' \
	$a $a $((b - a)) $a $b $((disk - b)) $b)"
run pdmsetup create live --table "$one" >/dev/null
stat_of() {
	cat /sys/block/pdm0/pdm/"$1"
}

half=$((disk * 512 / 2))
job() {
	fio --name="$1" --filename=/dev/pdm0 --ioengine=io_uring --direct=1 \
		--hipri="$2" --offset="$3" --size=$((half / 2)) \
		--rw=randwrite --bsrange=4k-32k --iodepth=8 \
		--verify=crc32c --verify_backlog=16 --verify_fatal=1 \
		--time_based --runtime=24 --output-format=terse \
		--terse-version=3 >/tmp/"$1".out 2>&1
	echo $? >/tmp/"$1".rc
}
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
		expect_eq "suspended" 1 "$(stat_of suspended)"
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
expect_ge "bios held back while suspended" 1 "$(stat_of deferred)"
expect_ge "polled bios" 1 "$(stat_of polled_bios)"
expect_ge "bios remapped in place (direct)" 1 "$(stat_of remapped)"
expect_eq "suspended at the end" 0 "$(stat_of suspended)"
run pdmsetup remove live
run rmmod pdm
echo "PASS"
