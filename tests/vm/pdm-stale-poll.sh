#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# 6.12-tier: polls of a bio whose lower device went away
# vm: -c 2 -t 400
# Pollers against bios that are freed and reused under them: io_uring
# may call poll_bio on a top bio that has just completed, been freed and
# been reused, as another pdm top bio, published or not yet, or as any
# other bio (the bio slab is SLAB_TYPESAFE_BY_RCU; see pdm_io_walk()).
# Over a 2-leg stripe of null_blk poll queues, four jobs write and verify
# polled, 4-64 KiB (several clones a bio), while two write and verify
# unpolled on their own regions, their bios taken from and given back to
# the same slab all the time, and poll_mode flips between tracked and
# sweep every 200 ms.  Every byte verifies, nothing hangs (suspend drains
# at the end), and every polled write was polled among them (the stale
# polls are counted; pdm-stale-walk forces each kind); on the debug kernel
# KFENCE and SLUB debugging watch the freed bios.
. "$(dirname "$0")/lib/lib.sh"

nullb_load queue_mode=2 nr_devices=2 gb=1 memory_backed=1 \
	submit_queues=2 poll_queues=2 irqmode=0
run modprobe pdm
sz=$(( $(cat /sys/block/nullb0/size) * 2 ))
run pdmsetup create s --table \
	"0 $sz striped 2 16 /dev/nullb0 0 /dev/nullb1 0" >/dev/null
sys=/sys/block/pdm0/pdm
nullb_prefill /dev/pdm0
# Polled writes stay in the region nullb_prefill wrote (see there).
[ "$(debug_tier)" = core ] && size=4m || size=8m

flip() {
	while :; do
		echo sweep >$sys/poll_mode
		sleep 0.2
		echo tracked >$sys/poll_mode
		sleep 0.2
	done
}
flip &
flipper=$!
fio --name=unpolled --filename=/dev/pdm0 --offset=0 --size="$size" \
	--offset_increment="$size" --numjobs=2 --ioengine=io_uring --hipri=0 \
	--direct=1 --rw=randwrite --bsrange=4k-64k --iodepth=16 \
	--verify=crc32c --verify_fatal=1 --do_verify=1 --loops=2 \
	--group_reporting --output-format=terse --terse-version=3 \
	>/tmp/fio-unpolled.out 2>&1 &
unpolled=$!
fio_run polled --filename=/dev/pdm0 --offset=16m --size="$size" \
	--offset_increment="$size" --numjobs=4 --ioengine=io_uring --hipri=1 \
	--direct=1 --rw=randwrite --bsrange=4k-64k --iodepth=16 \
	--verify=crc32c --verify_fatal=1 --do_verify=1
polled_kib=$(fio_field 47)
wait_ended $unpolled 300 "the unpolled jobs"
kill $flipper
wait $flipper 2>/dev/null || true
expect_eq "unpolled jobs' status" 0 "$RC"
FIO_TERSE=$(grep '^3;' /tmp/fio-unpolled.out | tail -n 1 || true)
expect_eq "unpolled jobs' error" 0 "$(fio_field 5)"
mib=${size%m}
expect_eq "polled: KiB written and verified" $((4 * mib * 1024)) "$polled_kib"
expect_eq "unpolled: KiB written and verified" $((2 * 2 * mib * 1024)) \
	"$(fio_field 47)"
# How many polls find their bio gone is up to timing, and may be none:
# pdm-stale-walk makes each kind happen on purpose.  What this run must
# show is the traffic that makes them possible.
calls=$(cat $sys/poll_bio_calls)
note "stale polls: $(cat $sys/stale_polls) of $calls poll_bio calls"
# Each polled write (64 KiB at most) is polled once at least.
expect_ge "poll_bio calls while bios were freed and reused" \
	$((polled_kib / 64)) "$calls"
expect_drained s
run pdmsetup remove s
run rmmod pdm
echo PASS
