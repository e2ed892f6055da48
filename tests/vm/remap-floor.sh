#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-skip-flavour: debug a benchmark floor (test-only module), not shipped code
# baseline: the test-only pass-through floor of the benchmark
# vm: -c 2
# The stacked polling benchmark's floor (tests/modules/blkfast-remap.c)
# passes data through unchanged, polled and not, and holds its module and
# its lower device while in use: the floor is only worth comparing pdm
# against if it does the same work.
. "$(dirname "$0")/lib/lib.sh"

nullb_load queue_mode=2 memory_backed=1 gb=1 submit_queues=1 poll_queues=1 \
	irqmode=0
expect_fail "Invalid argument" modprobe blkfast-remap
expect_fail "could not insert" modprobe blkfast-remap lower=/dev/nope
dmesg | grep -q "blkfast-remap: cannot open /dev/nope: -2" ||
	fail "no 'cannot open' message for a missing lower device"
run modprobe blkfast-remap lower=/dev/nullb0
wait_for_block bfremap0
expect_eq "bfremap0 size" "$(cat /sys/block/nullb0/size)" \
	"$(cat /sys/block/bfremap0/size)"
expect_eq "bfremap0 polls" 1 "$(cat /sys/block/bfremap0/queue/io_poll)"

verify=(--filename=/dev/bfremap0 --ioengine=io_uring --direct=1 --bs=4k
	--size=64m --iodepth=16 --verify=crc32c --verify_fatal=1
	--randseed=7)
read -r _ _ _ _ w0 _ </sys/block/nullb0/stat
fio_run write "${verify[@]}" --rw=randwrite --do_verify=1
read -r r0 _ _ _ w1 _ </sys/block/nullb0/stat
expect_ge "writes that reached nullb0" 16384 $((w1 - w0))
# Polled reads of what was written (reads only: memory-backed null_blk
# may allocate, so sleep, when it polls a write).
fio_run polled "${verify[@]}" --rw=randwrite --verify_only --hipri=1
read -r r1 _ _ _ _ _ </sys/block/nullb0/stat
expect_ge "polled reads that reached nullb0" 16384 $((r1 - r0))

exec 3</dev/bfremap0
expect_fail "in use" rmmod blkfast_remap
exec 3<&-
run rmmod blkfast_remap
run modprobe -r null_blk
echo "PASS"
