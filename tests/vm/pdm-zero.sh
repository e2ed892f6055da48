#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# 6.12-tier: a table with no device passes 6.12's validation of its limits
# debug-tier: full a target that moves no data; the clone paths around it run in the core's other pdm tests
# vm: -c 2
# pdm's zero target between two linear segments over a memory-backed
# null_blk: writes over the whole device succeed, reach the linear
# segments only, and leave the lower device holding exactly their data;
# reads of the zero segment return zeroes, through a buffer that the read
# before it filled with data (dd reuses its buffer, so a zero segment left
# unfilled would show the data), and a read across a boundary returns the
# linear part's data and then zeroes (also through a buffer of data); polled reads there complete without
# error; a discard of the whole device succeeds, the linear segments
# passing theirs to the lower device (whose discarded sectors then read
# as zeroes: null_blk frees them) and the zero segment dropping its own.
# A table with only a zero segment holds no device.
. "$(dirname "$0")/lib/lib.sh"

nullb_load queue_mode=2 nr_devices=1 submit_queues=1 poll_queues=1 \
	irqmode=0 gb=1 memory_backed=1 discard=1
run modprobe pdm

# linear 0-2047 (nullb0 0-2047), zero 2048-4095, linear 4096-6143
# (nullb0 2048-4095): 1 MiB each.
table='0 2048 linear /dev/nullb0 0
2048 2048 zero
4096 2048 linear /dev/nullb0 2048'
pdm=$(echo "$table" | pdmsetup create z) || fail "pdmsetup create z"
n0=$(cat /sys/block/nullb0/dev)
expect_eq "table" "${table//\/dev\/nullb0/$n0}" \
	"$(pdmsetup table z)"
expect_eq "size" 6144 "$(cat /sys/block/pdm0/size)"
expect_eq "slaves" nullb0 "$(ls /sys/block/pdm0/slaves)"

md5() { md5sum | cut -d' ' -f1; }
head -c $((3 << 20)) /dev/urandom >/tmp/pat
run dd if=/tmp/pat of="$pdm" bs=1M oflag=direct status=none
expect_eq "lower device: the two linear segments' data, nothing else" \
	"$({ head -c $((1 << 20)) /tmp/pat; tail -c $((1 << 20)) /tmp/pat; } | md5)" \
	"$(md5_of /dev/nullb0 0 4096)"
# One dd, one buffer: the zero segment's read follows a read of data.
expect_eq "whole device: data, zeroes, data" \
	"$({ head -c $((1 << 20)) /tmp/pat; head -c $((1 << 20)) /dev/zero; tail -c $((1 << 20)) /tmp/pat; } | md5)" \
	"$(dd if="$pdm" bs=1M iflag=direct status=none | md5)"
# Two 8 KiB reads, one buffer: data (sectors 2024-2039), then a read
# across linear -> zero (2040-2055), data and then zeroes.
expect_eq "a read across linear -> zero: data, then zeroes" \
	"$({ head -c $((2048 * 512)) /tmp/pat | tail -c 12288; head -c 4096 /dev/zero; } | md5)" \
	"$(dd if="$pdm" bs=8k count=2 iflag=direct,skip_bytes \
		skip=$((2024 * 512)) status=none | md5)"
expect_eq "a read across zero -> linear: zeroes, then data" \
	"$({ head -c 4096 /dev/zero; tail -c $((1 << 20)) /tmp/pat | head -c 4096; } | md5)" \
	"$(md5_of "$pdm" 4088 16)"

expect_eq "io_poll" 1 "$(cat /sys/block/pdm0/queue/io_poll)"
fio_run poll-zero --filename="$pdm" --ioengine=io_uring --hipri=1 \
	--direct=1 --bsrange=4k-16k --rw=randrw --iodepth=8 --size=3m \
	--number_ios=2000
expect_eq "polled I/O over all three segments: fio error" 0 "$(fio_field 5)"
expect_eq "lower device after the polled writes: still two linear segments" \
	"$(md5_of "$pdm" 0 2048)$(md5_of "$pdm" 4096 2048)" \
	"$(md5_of /dev/nullb0 0 2048)$(md5_of /dev/nullb0 2048 2048)"
expect_eq "zero segment after the polled writes" \
	"$(head -c $((1 << 20)) /dev/zero | md5)" "$(md5_of "$pdm" 2048 2048)"

# A discard of the whole device: one bio over all three segments.  The
# lower device's next 1 MiB, which no segment maps, must keep its data.
[ "$(cat /sys/block/pdm0/queue/discard_max_bytes)" -gt 0 ] ||
	fail "pdm0 offers no discard over a null_blk that has it"
run dd if=/tmp/pat of=/dev/nullb0 bs=1M count=1 seek=2 oflag=direct \
	status=none
run blkdiscard "$pdm"
expect_eq "lower device after a discard of the whole pdm device: zeroes" \
	"$(head -c $((2 << 20)) /dev/zero | md5)" "$(md5_of /dev/nullb0 0 4096)"
expect_eq "lower device past the mapped sectors: its data" \
	"$(head -c $((1 << 20)) /tmp/pat | md5)" "$(md5_of /dev/nullb0 4096 2048)"
expect_eq "pdm device after the discard: zeroes" \
	"$(head -c $((3 << 20)) /dev/zero | md5)" "$(md5_of "$pdm")"
run pdmsetup remove z

# Only a zero segment: no device held, reads zeroes, writes succeed.
pdm=$(pdmsetup create only --table "0 1024 zero") ||
	fail "pdmsetup create only"
expect_eq "zero-only slaves" "" "$(ls /sys/block/pdm0/slaves)"
run dd if=/tmp/pat of="$pdm" bs=512k count=1 oflag=direct status=none
expect_eq "zero-only reads" "$(head -c $((512 << 10)) /dev/zero | md5)" \
	"$(md5_of "$pdm")"
run pdmsetup remove only
expect_eq "ls at the end" "No devices found" "$(pdmsetup ls)"
run rmmod pdm
