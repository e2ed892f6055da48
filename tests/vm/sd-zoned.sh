#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm: -c 2
# Zoned sequential writes at QD>1 from several jobs through split-deadline
# (zone write locking) complete without a write error, as with mq-deadline.
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/tests/lib.sh"

nullb_load queue_mode=2 zoned=1 zone_size=16 zone_nr_conv=0 gb=1 memory_backed=1 \
	submit_queues=2
grep -q split-deadline /sys/block/nullb0/queue/scheduler ||
	modprobe split-deadline
for s in mq-deadline split-deadline; do
	set_sched nullb0 "$s"
	fio_run "zoned-$s" --filename=/dev/nullb0 --ioengine=io_uring \
		--direct=1 --zonemode=zbd --bs=16k --rw=write --iodepth=8 \
		--numjobs=4 --offset_increment=256m --size=64m \
		--verify=crc32c --do_verify=1 --verify_fatal=1
	expect_eq "$s: write KiB" $((4 * 64 * 1024)) "$(fio_field 47)"
done
echo "PASS"
