#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm: -c 2 -t 600
# vm-skip-flavour: amd64 needs failslab, which only the debug kernel has
# vm-skip-flavour: cloud-amd64 needs failslab, which only the debug kernel has
# vm-skip-flavour: rt-amd64 needs failslab, which only the debug kernel has
# Clone allocations failing under I/O.  failslab fails 1 in 10 of the
# allocations that may not sleep made by fio's tasks (task-filter and
# make-it-fail; GFP_NOWAIT, as pdm allocates the clones of a REQ_NOWAIT
# bio, which io_uring's first try of every bio is), while fio writes and
# verifies 16-64 KiB bios, 4 to 16 clones each, through a 2-leg stripe of
# 4 KiB chunks: polled in tracked and in sweep mode, then by interrupts.
# A pass short of a clone must issue none of them and fail with EAGAIN at
# once, which io_uring retries blocking: every I/O completes and
# verifies, none hangs (bounded by a timeout), pdm counts those passes
# (nowait_again), and a suspend afterwards finds nothing in flight.
. "$(dirname "$0")/lib/lib.sh"

nullb_load queue_mode=2 nr_devices=2 gb=1 memory_backed=1 \
	submit_queues=1 poll_queues=1
run modprobe pdm
sz=$(( $(cat /sys/block/nullb0/size) * 2 ))
run pdmsetup create f --table "0 $sz striped 2 8 /dev/nullb0 0 /dev/nullb1 0" \
	>/dev/null
sys=/sys/block/pdm0/pdm

nullb_prefill /dev/pdm0

TIMES=1000000
failslab_arm Y N 10 $TIMES

# faulty_verify NAME HIPRI: fio, with failslab armed for it, writes and
# verifies 64 MiB (16 in the debug tier's core: still thousands of
# failed allocations), ended after 120 s (fio_bounded).
mib=64
[ "$(debug_tier)" = core ] && mib=16
faulty_verify() {
	fio_bounded 120 "$1" \
		sh -c 'echo 1 >/proc/self/make-it-fail && exec "$@"' sh \
		fio --name="$1" --filename=/dev/pdm0 --ioengine=io_uring \
		--hipri="$2" --direct=1 --rw=randwrite --bsrange=16k-64k \
		--iodepth=16 --size=${mib}m --verify=crc32c --verify_fatal=1 \
		--do_verify=1
	expect_fio_clean "$1" $((mib * 1024))
}

for run in tracked:1 sweep:1 tracked:0; do
	mode=${run%:*} hipri=${run#*:}
	echo "$mode" >$sys/poll_mode
	before=$(cat $sys/nowait_again)
	left=$(cat $FAILSLAB/times)
	faulty_verify "$mode-hipri$hipri" "$hipri"
	n=$(( $(cat $sys/nowait_again) - before ))
	note "$mode, hipri=$hipri: $((left - $(cat $FAILSLAB/times))) allocations" \
		"failed, $n passes failed with EAGAIN"
	expect_ge "$mode, hipri=$hipri: passes short of a clone" 1 "$n"
done
echo 0 >$FAILSLAB/probability
expect_drained f
run pdmsetup remove f
run rmmod pdm
echo "PASS"
