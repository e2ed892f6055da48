#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm: -c 2
# I/O priority classes: an RT and an IDLE reader compete on a slow device
# with few driver tags and many scheduler tags.  RT gets most of the service, and IDLE still progresses
# because prio_aging_expire lets its aged requests through.
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/tests/lib.sh"

nullb_load queue_mode=2 irqmode=2 completion_nsec=200000 hw_queue_depth=4 \
	submit_queues=1 gb=1
set_sched nullb0 split-deadline
echo 200 >/sys/block/nullb0/queue/iosched/prio_aging_expire
# Let requests wait in the scheduler rather than for a tag.
echo 128 >/sys/block/nullb0/queue/nr_requests

common=(--filename=/dev/nullb0 --ioengine=libaio --direct=1 --bs=4k
	--rw=randread --iodepth=32 --runtime=3 --time_based)
fio --output-format=terse --terse-version=3 \
	--name=rt "${common[@]}" --prioclass=1 --prio=0 \
	--name=idle "${common[@]}" --prioclass=3 >/tmp/prio.out 2>&1 ||
	{ cat /tmp/prio.out; fail "fio failed"; }
rt=$(awk -F';' '$3 == "rt" { print $6 / 4 }' /tmp/prio.out)
idle=$(awk -F';' '$3 == "idle" { print $6 / 4 }' /tmp/prio.out)
note "RT reads: $rt, IDLE reads: $idle"
expect_ge "IDLE reads (aging lets them through)" 1 "$idle"
expect_ge "RT reads (>= 3x IDLE)" $((3 * idle)) "$rt"
cat /sys/kernel/debug/block/nullb0/sched/queued
set_sched nullb0 none
echo "PASS"
