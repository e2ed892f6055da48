#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# 6.12-tier: EAGAIN requeues of polled bios, with 6.12's cookie (the queue number alone)
# vm: -c 2
# Polled I/O whose clones meet EAGAIN below.  Two null_blk devices with 2
# tags per hardware queue sit under a 2-leg stripe of 4 KiB chunks; fio
# writes 16-64 KiB bios (4 to 16 clones each) polled at depth 16 and
# verifies them, so most passes find a lower queue out of tags: its
# REQ_NOWAIT clone fails with EAGAIN while the others are in flight.  In
# 6.1 io_uring cannot take an EAGAIN that a poll delivers (it marks the
# request for reissue and never completes it: io_complete_rw_iopoll()),
# so pdm must map such a bio again itself, as dm requeues polled bios
# that hit BLK_STS_AGAIN.  Checked: the same fio finishes with its data
# verified in tracked and sweep mode (bounded by a timeout: a hang
# fails), pdm counts the requeues (requeued >= 1), and a suspend
# afterwards finds nothing in flight; the same in direct mode with hybrid
# polling on, where no poll may go to a lower queue that does not poll.  dm-striped over the same devices
# runs first as the reference; 6.1's dm hands some of these EAGAINs to
# io_uring, which fails them to fio ("Resource temporarily unavailable"):
# that is printed, not asserted, and pdm must do better (no error).
. "$(dirname "$0")/lib/lib.sh"

# load_lowers KEY=VALUE...: the two memory-backed null_blk devices, 2 tags
# per hardware queue, with these parameters added.
load_lowers() {
	nullb_load queue_mode=2 nr_devices=2 gb=1 memory_backed=1 \
		submit_queues=1 hw_queue_depth=2 "$@"
}

load_lowers poll_queues=1
run modprobe dm-mod
run modprobe pdm
sz=$(( $(cat /sys/block/nullb0/size) * 2 ))
table="0 $sz striped 2 8 /dev/nullb0 0 /dev/nullb1 0"

# polled_verify NAME DEV: polled, verified random writes of 4-16 clones
# each, 32 MiB (over 1,000 bios, thousands of EAGAINs), ended after 120 s
# (fio_bounded).  The debug kernel on a slow CI host needs about 30 s in
# sweep mode, where every poller walks both lower queues; the debug
# tier's core writes 8 MiB, still hundreds of EAGAINs.
mib=32
[ "$(debug_tier)" = core ] && mib=8
# polled_verify NAME DEV [HIPRI]: HIPRI 0 for the same I/O unpolled (io_uring
# still issues it REQ_NOWAIT first).
polled_verify() {
	fio_bounded 120 "$1" fio --name="$1" --filename="$2" \
		--ioengine=io_uring --hipri="${3:-1}" --direct=1 --rw=randwrite \
		--bsrange=16k-64k --iodepth=16 --size=${mib}m --verify=crc32c \
		--verify_fatal=1 --do_verify=1
}

# The reference: dm-striped over the same devices.
run dmsetup create dstripe --table "$table"
nullb_prefill /dev/mapper/dstripe
polled_verify dm /dev/mapper/dstripe
note "reference: dm-striped: fio exit $FIO_RC, $FIO_ERRORS I/O errors"
run dmsetup remove dstripe

run pdmsetup create pstripe --table "$table" >/dev/null
for mode in tracked sweep; do
	echo $mode >/sys/block/pdm0/pdm/poll_mode
	before=$(cat /sys/block/pdm0/pdm/requeued)
	polled_verify "pdm-$mode" /dev/pdm0
	expect_fio_clean "pdm-$mode" $((mib * 1024))
	n=$(( $(cat /sys/block/pdm0/pdm/requeued) - before ))
	note "pdm $mode: $n polled bios requeued after EAGAIN below," \
		"$(cat /sys/block/pdm0/pdm/polled_bios) polled in all"
	expect_ge "pdm $mode: bios requeued" 1 "$n"
done

expect_drained pstripe
run pdmsetup remove pstripe

# A bio requeued after EAGAIN is no longer pdm's to poll: its cookie goes
# back to BLK_QC_T_NONE.  In direct mode with hybrid on (polled bios are
# cloned; a requeued one, unpolled, is remapped in place if it fits one
# chunk: 4 KiB writes here) a cookie left at 0 made io_uring's bio_poll()
# poll the lower device's hardware queue 0, which does not poll
# (null_blk's poll queue is 1): no blk_mq_poll() may name queue 0 (6.1's
# cookie: the queue number << 16 | the tag; 6.12's: the queue number).
# The unpolled queue
# completes by timer after 100 us (irqmode=2), so io_uring is still
# polling every requeued bio when it is in flight there: with an instant
# completion the wrong poll was a race that a run could miss.
load_lowers poll_queues=1 irqmode=2 completion_nsec=100000
run pdmsetup create pstripe --table "$table" >/dev/null
nullb_prefill /dev/pdm0
echo direct >/sys/block/pdm0/pdm/poll_mode
echo gate >/sys/block/pdm0/pdm/hybrid
before=$(cat /sys/block/pdm0/pdm/requeued)
probe_hist_start mqpoll cookie 'p blk_mq_poll cookie=%si:u32'
fio_bounded 120 pdm-direct fio --name=pdm-direct --filename=/dev/pdm0 \
	--ioengine=io_uring --hipri=1 --direct=1 --rw=randwrite --bs=4k \
	--iodepth=16 --size=$((mib / 2))m --verify=crc32c --verify_fatal=1 \
	--do_verify=1
expect_fio_clean pdm-direct $((mib * 1024 / 2))
expect_ge "pdm direct, hybrid: bios requeued" 1 \
	$(( $(cat /sys/block/pdm0/pdm/requeued) - before ))
cookies=$(probe_hist_keys mqpoll | tr '\n' ' ')
probe_hist_stop mqpoll
note "blk_mq_poll cookies: $cookies"
shift_q=16
[ "$(kernel_line)" = 6.1 ] || shift_q=0
for c in $cookies; do
	[ $((c >> shift_q)) != 0 ] ||
		fail "blk_mq_poll() polled hardware queue 0 (cookie $c), which does not poll"
done
expect_ge "blk_mq_poll cookies seen" 1 "$(echo "$cookies" | wc -w)"
echo off >/sys/block/pdm0/pdm/hybrid
echo tracked >/sys/block/pdm0/pdm/poll_mode
expect_drained pstripe
run pdmsetup remove pstripe

# Unpolled: every io_uring read or write is first issued REQ_NOWAIT, and
# an EAGAIN that reaches it after submission, from a completion in
# another context (here a timer interrupt: irqmode=2), fails the request
# ("Resource temporarily unavailable"): pdm maps such a bio again itself,
# blocking, as it does polled ones.  dm-striped, the reference, hands
# them to io_uring (printed, not asserted).
load_lowers irqmode=2 completion_nsec=20000
run dmsetup create dstripe --table "$table"
nullb_prefill /dev/mapper/dstripe
polled_verify dm-irq /dev/mapper/dstripe 0
note "reference: dm-striped unpolled: fio exit $FIO_RC, $FIO_ERRORS I/O errors"
run dmsetup remove dstripe
run pdmsetup create pstripe --table "$table" >/dev/null
polled_verify pdm-irq /dev/pdm0 0
expect_fio_clean pdm-irq $((mib * 1024))
n=$(cat /sys/block/pdm0/pdm/requeued)
note "pdm unpolled: $n bios requeued after EAGAIN below"
expect_ge "pdm unpolled: bios requeued" 1 "$n"
expect_drained pstripe
run pdmsetup remove pstripe
run rmmod pdm
echo "PASS"
