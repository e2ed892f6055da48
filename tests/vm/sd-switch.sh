#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# 6.12-tier: elevator switches under verify I/O, inserts with blk_insert_t flags
# vm: -c 2
# Switching none / mq-deadline / split-deadline while verify I/O runs loses
# nothing and hangs nothing; rmmod is refused while a queue uses the
# scheduler and succeeds once none does.
. "$(dirname "$0")/lib/lib.sh"

# The debug tier's core verifies 32 MiB per job, not 256: its checks
# need the switches under I/O, not the volume.
mib=256
[ "$(debug_tier)" = core ] && mib=32
nullb_load queue_mode=2 memory_backed=1 submit_queues=2 gb=1
set_sched nullb0 split-deadline
expect_fail "in use" rmmod split_deadline

fio --name=switch --filename=/dev/nullb0 --ioengine=io_uring --direct=1 \
	--bs=4k --rw=randrw --size=${mib}m --iodepth=16 --numjobs=2 \
	--offset_increment=256m --verify=crc32c --verify_fatal=1 \
	--do_verify=1 --eta=never --output=/tmp/switch.out &
fio_pid=$!
switches=0
while kill -0 $fio_pid 2>/dev/null; do
	for s in none mq-deadline split-deadline; do
		echo "$s" >/sys/block/nullb0/queue/scheduler ||
			fail "switch to $s failed"
		switches=$((switches + 1))
		sleep 0.2
	done
done
wait $fio_pid || { cat /tmp/switch.out; fail "fio failed during switching"; }
# Each job's line, not the first: "err= 0" from one job says nothing of
# the other.
expect_eq "fio jobs that reported, and without errors" "2 2" \
	"$(grep -c 'err=' /tmp/switch.out) $(grep -c 'err= 0:' /tmp/switch.out)"
expect_ge "scheduler switches during I/O" 6 "$switches"

set_sched nullb0 none
run rmmod split_deadline
expect_eq "split_deadline after rmmod" 0 "$(grep -c '^split_deadline ' /proc/modules || true)"
echo "PASS"
