#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-skip-flavour: debug a baseline of the kernel's own code, not ours
# baseline: the kernel's null_blk polling, which pdm's tests stand on
# vm: -c 1
# 6.12-tier: 6.12's null_blk poll queues, which the tier's pdm tests stand on
# null_blk with a poll queue: fio io_uring hipri=1 completes every I/O by
# polling (the sum of null_poll()'s return values equals fio's I/O count),
# and hipri=0 on the same device completes none by polling.
. "$(dirname "$0")/lib/lib.sh"

nullb_load queue_mode=2 submit_queues=1 poll_queues=1 irqmode=0 gb=1
expect_eq "io_poll" 1 "$(cat /sys/block/nullb0/queue/io_poll)"

common=(--filename=/dev/nullb0 --ioengine=io_uring --direct=1 --bs=4k
	--rw=randread --iodepth=16 --iodepth_batch_submit=8
	--iodepth_batch_complete=8 --number_ios=4000)

probe_sum_start npoll null_poll
fio_run polled "${common[@]}" --hipri=1
ios=$(fio_ios 4096)
expect_eq "fio I/Os (polled)" 4000 "$ios"
expect_eq "completions reaped by null_poll" "$ios" "$(probe_sum npoll)"
probe_sum_stop npoll

probe_sum_start npoll null_poll
fio_run irq "${common[@]}" --hipri=0
expect_eq "fio I/Os (irq)" 4000 "$(fio_ios 4096)"
expect_eq "completions reaped by null_poll (hipri=0)" 0 "$(probe_sum npoll)"
probe_sum_stop npoll
echo "PASS"
