#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# 6.12-tier: lower poll-queue maps after nr_hw_queues changes (BLK_FEAT_POLL kept with no poll queues)
# vm: -c 2
# pdm's sweep polls every poll queue of its lower devices: the lower queue
# maps may change under it.  A configfs null_blk device has its
# submit_queues and poll_queues changed (blk_mq_update_nr_hw_queues) while
# polled fio runs on a pdm device over it, in sweep and then tracked mode:
# no I/O error, no hang, no warning.  (Not down to 0 poll queues: 6.1's
# null_blk divides by zero in null_map_queues() when configfs does that.)
. "$(dirname "$0")/lib/lib.sh"

# poll_queues caps what configfs devices may switch to later.
run modprobe null_blk nr_devices=0 poll_queues=2
grep -q " /sys/kernel/config " /proc/mounts ||
	run mount -t configfs none /sys/kernel/config
nullb_cfs nullb0 size=1024 queue_mode=2 submit_queues=1 poll_queues=1 \
	irqmode=0
cfg=/sys/kernel/config/nullb/nullb0
run modprobe pdm
run pdmsetup create q --table "0 $(cat /sys/block/nullb0/size) linear /dev/nullb0 0" >/dev/null
sys=/sys/block/pdm0/pdm

for mode in sweep tracked; do
	echo $mode >$sys/poll_mode
	fio --name=maps --filename=/dev/pdm0 --ioengine=io_uring --direct=1 \
		--hipri=1 --bs=4k --rw=randread --iodepth=16 --numjobs=2 \
		--time_based --runtime=8 --group_reporting \
		--output-format=terse --terse-version=3 >/tmp/maps.out 2>&1 &
	pid=$!
	changes=0
	for q in 2:1 1:2 2:2 1:1 2:1 1:2 2:2; do
		sleep 0.5
		echo "${q%:*}" >$cfg/submit_queues || fail "submit_queues ${q%:*}"
		echo "${q#*:}" >$cfg/poll_queues || fail "poll_queues ${q#*:}"
		changes=$((changes + 1))
	done
	kill -0 $pid 2>/dev/null || fail "$mode: fio ended before the changes did"
	wait $pid || { cat /tmp/maps.out; fail "$mode: fio exited with an error"; }
	FIO_TERSE=$(grep '^3;' /tmp/maps.out | tail -n 1)
	expect_eq "$mode: fio error" 0 "$(fio_field 5)"
	expect_ge "$mode: reads" 1000 "$(fio_ios 4096)"
	expect_eq "$mode: queue map changes under I/O" 7 "$changes"
	hctxs=(/sys/block/nullb0/mq/*)
	expect_eq "$mode: hw queues now (2 + 2 poll)" 4 "${#hctxs[@]}"
done
expect_ge "lower polls" 1 "$(cat $sys/lower_polls)"
run pdmsetup remove q
run rmmod pdm
echo "PASS"
