#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-skip-flavour: debug a baseline of the kernel's own code, not ours
# baseline: the kernel's dm-linear polling, the reference for pdm
# vm: -c 1
# 6.12-tier: 6.12's dm-linear polling, the reference for pdm
# dm-linear over null_blk's poll queue: dm reports polling, and fio io_uring
# hipri=1 on the dm device completes every I/O through null_poll().
. "$(dirname "$0")/lib/lib.sh"

nullb_load queue_mode=2 submit_queues=1 poll_queues=1 irqmode=0 gb=1
sectors=$(cat /sys/block/nullb0/size)
run dmsetup create lin0 --table "0 $sectors linear /dev/nullb0 0"
dm=$(dmsetup info -c --noheadings -o blkdevname lin0)
expect_eq "dm io_poll" 1 "$(cat /sys/block/"$dm"/queue/io_poll)"

probe_sum_start npoll null_poll
fio_run dmpoll --filename=/dev/mapper/lin0 --ioengine=io_uring --direct=1 \
	--hipri=1 --bs=4k --rw=randread --iodepth=16 --number_ios=3000
expect_eq "fio I/Os" 3000 "$(fio_ios 4096)"
expect_eq "completions reaped by null_poll" 3000 "$(probe_sum npoll)"
probe_sum_stop npoll
run dmsetup remove lin0
echo "PASS"
