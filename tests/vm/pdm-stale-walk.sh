#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# 6.12-tier: sweeps over queues of a table being replaced
# vm: -c 2 -a kfence.sample_interval=0
# A poll_bio that finds a stale top bio's pdm_io just before the io ends
# and is set up again, unpublished, for the same bio reused unpolled, must
# leave it alone: that io's clones end without a poll, and a walker that
# keeps it ends the bio when it drops its reference, while a clone is
# still in flight.  pdm_io_walk() takes its reference, then requires the
# io to be published.  The test-only blkfast-stalewalk module holds one
# poll_bio in that window (a kprobe on pdm_io_tryget()) while the bio ends
# and is submitted again unpolled, 20 times; the lower null_blk completes
# unpolled reads 50 ms after they reach it, polled ones when polled.
# Asserted: every round was held, the walker's io became the bio's new
# unpublished one at least once (else the test saw nothing), and no read
# ended in under 25 ms or failed.  A walk without the published check
# (mutant pdm-walk-no-published) ends those reads at once.  KFENCE is off
# for this boot (kfence.sample_interval=0; only the debug kernel has it):
# at the debug kernel's 1 ms sample interval it took 18 of 20 of the
# polled reads' first clones, which, SLAB_TYPESAFE_BY_RCU, it frees only
# after a grace period, so the unpolled read never reused the memory (1
# of 20 here, 0 of 20 on a CI machine); with it off, 20 of 20.
. "$(dirname "$0")/lib/lib.sh"

nullb_load queue_mode=2 nr_devices=1 gb=1 submit_queues=1 poll_queues=1 \
	irqmode=2 completion_nsec=50000000
run modprobe pdm
run pdmsetup create w --table \
	"0 $(cat /sys/block/nullb0/size) linear /dev/nullb0 0" >/dev/null
# The window is in pdm's poll_bio, which only cloned bios reach.
echo tracked >/sys/block/pdm0/pdm/poll_mode
run modprobe blkfast-stalewalk dev=/dev/pdm0 min_us=25000
SP=/sys/module/blkfast_stalewalk/parameters
echo 20 >$SP/rounds || fail "the rounds did not complete: a bio was lost"
read -r _ rounds _ held _ recycled _ early _ errors _ kfence <$SP/result
note "held ios that KFENCE had placed: $kfence"
expect_eq "rounds" 20 "$rounds"
expect_eq "rounds with the walker held in its window" 20 "$held"
expect_ge "rounds whose held walker found the bio's new unpublished io" \
	1 "$recycled"
expect_eq "unpolled reads that ended before their clone (< 25 ms)" 0 "$early"
expect_eq "reads that failed" 0 "$errors"
note "stale polls: $(cat /sys/block/pdm0/pdm/stale_polls)"
run rmmod blkfast-stalewalk
expect_drained w
run pdmsetup remove w
run rmmod pdm
echo PASS
