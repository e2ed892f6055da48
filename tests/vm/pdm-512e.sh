#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# debug-tier: full clone sizing is arithmetic (1.8 min on the debug kernel); the same clone paths run in the core
# vm: -c 2
# Clones fit a 512e lower device's limit, which 6.1 cuts at a physical
# block boundary whatever the bio's size (get_max_io_size()).  scsi_debug
# gives a disk of 512-byte logical and 4 KiB physical blocks, with a poll
# queue, and its max_sectors_kb is set to 127: 254 sectors, of which a
# request starting on a physical block may take 248 only.  126 KiB reads
# (252 sectors) through dm-linear, the reference in the same boot, are
# split on the lower device (block_split events); through pdm none is,
# unpolled, and polled none meets EAGAIN below (pdm's requeued stays 0),
# with every I/O done and no error.
. "$(dirname "$0")/lib/lib.sh"

run modprobe scsi_debug dev_size_mb=64 sector_size=512 physblk_exp=3 \
	submit_queues=2 poll_queues=1 ndelay=20000
run modprobe sd_mod
for _ in $(seq 50); do
	sd=$(ls /sys/bus/pseudo/drivers/scsi_debug/adapter0/host*/target*/*/block \
		2>/dev/null || true)
	[ -n "$sd" ] && break
	sleep 0.1
done
[ -n "$sd" ] || fail "no scsi_debug disk"
wait_for_block "$sd"
q=/sys/block/$sd/queue
expect_eq "$sd logical block size" 512 "$(cat "$q/logical_block_size")"
expect_eq "$sd physical block size" 4096 "$(cat "$q/physical_block_size")"
expect_eq "$sd io_poll" 1 "$(cat "$q/io_poll")"
echo 127 >"$q/max_sectors_kb"
sectors=$(cat "/sys/block/$sd/size")
run modprobe pdm
export DM_DISABLE_UDEV=1

IFS=: read -r maj min <"/sys/block/$sd/dev"
echo 0 >$TRACEFS/tracing_on
echo "dev == $(( (maj << 20) | min ))" \
	>$TRACEFS/events/block/block_split/filter
echo 1 >$TRACEFS/events/block/block_split/enable

# splits DEV HIPRI: 500 126 KiB random reads on DEV; the requests split on
# the lower device meanwhile, in SPLITS.
splits() {
	echo >$TRACEFS/trace
	echo 1 >$TRACEFS/tracing_on
	fio_run "split-${1##*/}-$2" --filename="$1" --ioengine=io_uring --direct=1 \
		--hipri="$2" --rw=randread --bs=126k --iodepth=8 \
		--number_ios=500
	echo 0 >$TRACEFS/tracing_on
	expect_eq "$1 hipri=$2: I/Os" 500 "$(fio_ios 129024)"
	SPLITS=$(grep -c 'block_split:' $TRACEFS/trace || true)
}

run dmsetup create ref --table "0 $sectors linear /dev/$sd 0"
splits /dev/dm-0 0
expect_ge "dm-linear: requests split below (the situation)" 1 "$SPLITS"
run dmsetup remove ref

run pdmsetup create e --table "0 $sectors linear /dev/$sd 0" >/dev/null
splits /dev/pdm0 0
expect_eq "pdm: requests split below" 0 "$SPLITS"
splits /dev/pdm0 1
expect_eq "pdm polled: requests split below" 0 "$SPLITS"
expect_eq "pdm polled: bios that met EAGAIN below" 0 \
	"$(cat /sys/block/pdm0/pdm/requeued)"
expect_ge "pdm polled: clones completed by a poll" 1 \
	"$(cat /sys/block/pdm0/pdm/completions_found)"
run pdmsetup remove e
run rmmod pdm
echo PASS
