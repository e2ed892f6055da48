#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-skip-flavour: debug a benchmark floor (test-only module), not shipped code
# baseline: the test-only pass-through floor of the benchmark
# vm: -c 2
# 6.12-tier: the stacked benchmarks' floor disks on 6.12 (make bench-exact loads them)
# The stacked polling benchmarks' floors (tests/modules/blkfast-remap.c),
# bfremap0 and bfremap1 (with pdm's duties, which counts in its own disk
# statistics), pass data through unchanged, polled and not, and hold
# their module and lower devices while in use: a floor is only worth
# comparing pdm against if it does the same work.
. "$(dirname "$0")/lib/lib.sh"

nullb_load queue_mode=2 memory_backed=1 gb=1 submit_queues=1 poll_queues=1 \
	irqmode=0 nr_devices=2
expect_fail "Invalid argument" modprobe blkfast-remap
expect_fail "could not insert" modprobe blkfast-remap lower=/dev/nope
dmesg | grep -q "blkfast-remap: cannot open /dev/nope: -2" ||
	fail "no 'cannot open' message for a missing lower device"
expect_fail "could not insert" modprobe blkfast-remap lower=/dev/nullb0 \
	lower2=/dev/nope
[ ! -e /sys/block/bfremap0 ] || fail "bfremap0 left behind by a failed load"
run modprobe blkfast-remap lower=/dev/nullb0 lower2=/dev/nullb1
for n in 0 1; do
	d=bfremap$n l=nullb$n
	wait_for_block $d
	expect_eq "$d size" "$(cat /sys/block/$l/size)" \
		"$(cat /sys/block/$d/size)"
	expect_eq "$d polls" 1 "$(cat /sys/block/$d/queue/io_poll)"

	verify=(--filename="/dev/$d" --ioengine=io_uring --direct=1 --bs=4k
		--size=64m --iodepth=16 --verify=crc32c --verify_fatal=1
		--randseed=7)
	read -r lr0 _ _ _ w0 _ </sys/block/$l/stat
	read -r dr0 _ _ _ dw0 _ </sys/block/$d/stat
	fio_run write "${verify[@]}" --rw=randwrite --do_verify=1
	read -r r0 _ _ _ w1 _ </sys/block/$l/stat
	expect_ge "$d: writes that reached $l" 16384 $((w1 - w0))
	# Polled reads of what was written (reads only: memory-backed
	# null_blk may allocate, so sleep, when it polls a write).
	fio_run polled "${verify[@]}" --rw=randwrite --verify_only --hipri=1
	read -r r1 _ _ _ _ _ </sys/block/$l/stat
	expect_ge "$d: polled reads that reached $l" 16384 $((r1 - r0))
	[ $n = 1 ] || continue
	# bfremap1, the floor with pdm's duties, counts every I/O in its
	# own statistics, as its lower device does (4k each: no splits).
	read -r dr1 _ _ _ dw1 _ _ _ inflight _ </sys/block/$d/stat
	expect_eq "$d: reads in its own statistics" $((r1 - lr0)) \
		$((dr1 - dr0))
	expect_eq "$d: writes in its own statistics" $((w1 - w0)) \
		$((dw1 - dw0))
	expect_eq "$d: in flight at idle" 0 "$inflight"
done

exec 3</dev/bfremap1
expect_fail "in use" rmmod blkfast_remap
exec 3<&-
run rmmod blkfast_remap
run modprobe -r null_blk
echo "PASS"
