#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-skip-flavour: debug a benchmark floor (test-only module), not shipped code
# baseline: the test-only floor elevators of the benchmark
# vm: -c 2
# 6.12-tier: the scheduler benchmark's floor elevators on 6.12 (make bench-exact loads them)
# The benchmark's floor elevators (tests/modules/blkfast-fifo.c) carry data
# correctly, under verify I/O from several jobs on several hardware queues,
# and hold their module while a queue uses them: the scheduler benchmark's
# floors are only worth comparing against if they do the same work.
. "$(dirname "$0")/lib/lib.sh"

nullb_load queue_mode=2 memory_backed=1 submit_queues=2 gb=1
for s in bf-fifo-hctx bf-fifo-global; do
	set_sched nullb0 "$s"
	expect_fail "in use" rmmod blkfast_fifo
	read -r r0 rm0 _ _ w0 wm0 _ </sys/block/nullb0/stat
	fio_run "$s" --filename=/dev/nullb0 --ioengine=io_uring --direct=1 \
		--bs=4k --rw=randwrite --size=64m --iodepth=16 --numjobs=2 \
		--offset_increment=64m --iodepth_batch_submit=4 \
		--verify=crc32c --verify_fatal=1 --do_verify=1
	read -r r1 rm1 _ _ w1 wm1 _ </sys/block/nullb0/stat
	# 2 jobs x 64 MiB written and read back to verify: 32768 4k I/Os
	# each way, merged ones included.
	expect_ge "$s: writes" 32768 $((w1 + wm1 - w0 - wm0))
	expect_ge "$s: reads" 32768 $((r1 + rm1 - r0 - rm0))
done
set_sched nullb0 none
run rmmod blkfast_fifo
echo "PASS"
