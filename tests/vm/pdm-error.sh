#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# debug-tier: full error segments end bios before any clone or remap (2.3 min on the debug kernel); the core's pdm-fail-leg and pdm-fault-io run the clone and split error paths
# 6.12-tier: the error target under 6.12's validated limits, and the kernel's dm-error reference there
# vm: -c 2
# pdm's error target against dm-error, the same tables over twin
# memory-backed null_blk devices in one boot: a linear segment, an error
# segment, a linear segment.  Reads and writes inside the error segment
# fail with EIO, as do polled reads there (pdm polls such a table: I/O to
# its error segments fails before it needs a poll; dm does not poll it,
# and io_uring refuses polled reads with EOPNOTSUPP); the linear segments
# around it keep their data (crc32c verify); a write that spans a
# boundary between linear and error fails, and what it left in the linear
# part is what dm-error leaves (md5 of that part through both); pdm prints
# the table as dm does.  A table with only an error segment holds no
# device.
. "$(dirname "$0")/lib/lib.sh"

nullb_load queue_mode=2 nr_devices=2 submit_queues=1 poll_queues=1 \
	irqmode=0 gb=1 memory_backed=1
run modprobe pdm
export DM_DISABLE_UDEV=1

# layout DEV: linear 0-2047, error 2048-4095, linear 4096-6143 (DEV 2048+).
layout() {
	printf '0 2048 linear %s 0\n2048 2048 error\n4096 2048 linear %s 2048\n' \
		"$1" "$1"
}
pdm=$(layout /dev/nullb0 | pdmsetup create err) || fail "pdmsetup create err"
expect_eq "create prints the node" /dev/pdm0 "$pdm"
layout /dev/nullb1 >/tmp/dm.table
run dmsetup create err /tmp/dm.table
dm=/dev/mapper/err
n0=$(cat /sys/block/nullb0/dev)
expect_eq "table" "$(layout "$n0")" "$(pdmsetup table err)"
expect_eq "status" "$(printf '0 2048 linear P\n2048 2048 error\n4096 2048 linear P')" \
	"$(pdmsetup status err)"
expect_eq "polling" "Polling:           on" \
	"$(pdmsetup info err | grep '^Polling:')"
expect_eq "size" 6144 "$(cat /sys/block/pdm0/size)"
expect_eq "slaves" nullb0 "$(ls /sys/block/pdm0/slaves)"

head -c 8192 /dev/urandom >/tmp/pat
# dd_at DEV SECTOR BYTES read|write: one O_DIRECT I/O of BYTES at SECTOR.
dd_at() {
	if [ "$4" = read ]; then
		dd if="$1" of=/dev/null bs="$3" count=1 iflag=direct,skip_bytes \
			skip=$(($2 * 512)) status=none
	else
		dd if=/tmp/pat of="$1" bs="$3" count=1 oflag=direct,seek_bytes \
			seek=$(($2 * 512)) status=none
	fi
}

for dev in "$pdm" "$dm"; do
	name=$(basename "$dev")
	# The linear segments on both sides of the error one hold data.
	for off in 0 $((4096 * 512)); do
		fio_run "lin-$name-$off" --filename="$dev" --ioengine=io_uring \
			--direct=1 --bs=4k --rw=randwrite --offset="$off" \
			--size=1m --verify=crc32c --do_verify=1
		expect_eq "$dev: KiB written and verified at $off" 1024 \
			"$(fio_field 47)"
	done
	expect_fail "Input/output error" dd_at "$dev" 2048 4096 read
	expect_fail "Input/output error" dd_at "$dev" 4088 4096 read
	expect_fail "Input/output error" dd_at "$dev" 3000 4096 write
	# A read that starts in a linear segment and ends in the error one.
	expect_fail "Input/output error" dd_at "$dev" 2040 8192 read
	# Polled reads: pdm polls this table and fails them with EIO.  dm
	# on 6.1 does not poll a table with an error target (it has no
	# devices to ask), so io_uring refuses them with EOPNOTSUPP; dm on
	# 6.12 polls it, and fails them with EIO as pdm does.
	want=5
	[ "$dev" = "$pdm" ] || [ "$(kernel_line)" = 6.12 ] || want=95
	fio_bounded 60 "poll-$name" fio --name="poll-$name" --filename="$dev" \
		--ioengine=io_uring --hipri=1 --direct=1 --bs=4k \
		--rw=randread --offset=$((2048 * 512)) --size=1m \
		--number_ios=16 --iodepth=4
	expect_eq "$dev: polled reads in the error segment: fio error" \
		"$want" "$(fio_field 5)"
	# Writes across both boundaries: they fail, and keep or lose what
	# they wrote in the linear part as dm-error's do.
	expect_fail "Input/output error" dd_at "$dev" 2040 8192 write
	expect_fail "Input/output error" dd_at "$dev" 4088 8192 write
done
expect_eq "io_poll: pdm" 1 "$(cat /sys/block/pdm0/queue/io_poll)"
expect_eq "lower data before the error segment (pdm, dm)" \
	"$(md5_of /dev/nullb1 2040 8)" "$(md5_of /dev/nullb0 2040 8)"
expect_eq "lower data after the error segment (pdm, dm)" \
	"$(md5_of /dev/nullb1 2048 8)" "$(md5_of /dev/nullb0 2048 8)"
# Both spanning writes reached their linear parts, on dm as on pdm.
expect_eq "linear part of the write into the error segment" \
	"$(head -c 4096 /tmp/pat | md5sum | cut -d' ' -f1)" \
	"$(md5_of /dev/nullb0 2040 8)"
expect_eq "linear part of the write out of the error segment" \
	"$(tail -c 4096 /tmp/pat | md5sum | cut -d' ' -f1)" \
	"$(md5_of /dev/nullb0 2048 8)"
run pdmsetup remove err
run dmsetup remove err
expect_eq "nullb0 holders after remove" "" "$(ls /sys/block/nullb0/holders)"

# Only an error segment: no device held, every I/O fails, removal clean.
pdm=$(pdmsetup create only --table "0 1024 error") ||
	fail "pdmsetup create only"
run dmsetup create only --table "0 1024 error"
expect_eq "error-only table" "0 1024 error" "$(pdmsetup table only)"
expect_eq "error-only slaves" "" "$(ls /sys/block/pdm0/slaves)"
for dev in "$pdm" /dev/mapper/only; do
	expect_eq "$dev: size" 1024 "$(blockdev --getsz "$dev")"
	expect_fail "Input/output error" dd_at "$dev" 0 4096 read
	expect_fail "Input/output error" dd_at "$dev" 1016 4096 write
done
run pdmsetup remove only
run dmsetup remove only
expect_eq "ls at the end" "No devices found" "$(pdmsetup ls)"
run rmmod pdm
