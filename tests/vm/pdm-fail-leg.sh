#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm: -c 2
# vm-skip-flavour: amd64 needs fail_make_request, which only the debug kernel has
# vm-skip-flavour: cloud-amd64 needs fail_make_request, which only the debug kernel has
# vm-skip-flavour: rt-amd64 needs fail_make_request, which only the debug kernel has
# One lower leg failing every bio (fail_make_request on nullb1, its
# make-it-fail set), the other healthy, under a table of two linear
# segments, one on each: polled and by interrupt, fio's writes to the
# failing segment all end with EIO (counted by fio, none hangs), while a
# job on the healthy segment at the same time writes and verifies every
# byte; then suspend drains, the leg recovers (make-it-fail 0) and its
# segment verifies again, and the device is removed.
. "$(dirname "$0")/lib/lib.sh"
# Each fio here takes seconds.  One boot of the debug tier once sat
# silent until its 900 s limit (not reproduced in four runs since): a run
# past 300 s now fails with the block layer's state (io_hang_dump).
FIO_WATCHDOG_S=300

nullb_load queue_mode=2 nr_devices=2 gb=1 memory_backed=1 \
	submit_queues=1 poll_queues=1
run modprobe pdm
half=$(cat /sys/block/nullb0/size)
run pdmsetup create f >/dev/null <<TABLE
0 $half linear /dev/nullb0 0
$half $half linear /dev/nullb1 0
TABLE
nullb_prefill /dev/nullb0
nullb_prefill /dev/nullb1
# The debug tier's mode, tracked: every bio here is cloned.
expect_eq "poll_mode of a new device (the tier's)" "$(pdm_new_mode)" \
	"$(pdm_mode pdm0)"

F=$DEBUGFS/fail_make_request
echo 100 >$F/probability
echo 1 >$F/interval
echo -1 >$F/times
echo 0 >$F/verbose
seg1=$((half * 512))

for hipri in 1 0; do
	echo 1 >/sys/block/nullb1/make-it-fail
	fio --name=bad --filename=/dev/pdm0 --offset=$seg1 --size=8m \
		--ioengine=io_uring --hipri=$hipri --direct=1 --rw=randwrite \
		--bs=16k --iodepth=8 --continue_on_error=all \
		--output-format=terse --terse-version=3 \
		>/tmp/fio-bad.out 2>&1 &
	bad=$!
	fio_run "good-$hipri" --filename=/dev/pdm0 --size=8m \
		--ioengine=io_uring --hipri=$hipri --direct=1 --rw=randwrite \
		--bs=16k --iodepth=8 --verify=crc32c --verify_fatal=1 \
		--do_verify=1
	expect_eq "hipri=$hipri: healthy segment, KiB written and verified" \
		8192 "$(fio_field 47)"
	wait_ended $bad 60 "fio on the failing segment"
	FIO_TERSE=$(grep '^3;' /tmp/fio-bad.out | tail -n 1 || true)
	# With continue_on_error, terse output ends in total_err;first_error.
	errors=$(echo "$FIO_TERSE" | awk -F';' '{ print $(NF - 1) }')
	expect_eq "hipri=$hipri: failing segment, fio's first error (EIO)" 5 \
		"$(fio_field 5)"
	expect_ge "hipri=$hipri: failing segment, I/Os that failed" 512 \
		"$errors"
	expect_eq "hipri=$hipri: KiB written to the failing segment" 0 \
		"$(fio_field 47)"
	echo 0 >/sys/block/nullb1/make-it-fail
	expect_drained f
	fio_run "recovered-$hipri" --filename=/dev/pdm0 --offset=$seg1 \
		--size=8m --ioengine=io_uring --hipri=$hipri --direct=1 \
		--rw=randwrite --bs=16k --iodepth=8 --verify=crc32c \
		--verify_fatal=1 --do_verify=1
	expect_eq "hipri=$hipri: recovered segment verifies" 8192 \
		"$(fio_field 47)"
done
run pdmsetup remove f
run rmmod pdm
echo PASS
