#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# debug-tier: full counts lower polls in gate mode; the hybrid paths run in the core under pdm-hybrid-sleep
# vm: -c 2
# vm-alone: counts polls against a fixed service time
# 6.12-tier: the hybrid sleep against a fixed service time through 6.12's io_uring
# The test-only slowpoll disk (tests/modules/blkfast-slowpoll.c) and
# pdm's hybrid polling over it.  The disk takes service_us per request
# on both paths: no completion, polled or by timer, comes sooner.  Over
# it, pdm's learned estimate settles near the service time and hybrid
# polling issues far fewer lower polls than classic polling for the same
# reads (the counts, not the timings, are asserted).
. "$(dirname "$0")/lib/lib.sh"

svc=200
run modprobe blkfast-slowpoll service_us=$svc
wait_for_block slowpoll0
expect_eq "poll queues" 1 "$(cat /sys/block/slowpoll0/queue/io_poll)"

# terse v3: 38 = read total latency min (us), from fio's issue of the I/O
# (clat starts after the submitting syscall returns: too late)
for hipri in 1 0; do
	fio_run "raw-hipri$hipri" --filename=/dev/slowpoll0 --ioengine=io_uring \
		--direct=1 --hipri=$hipri --rw=randread --bs=4k --iodepth=4 \
		--number_ios=400
	expect_eq "hipri=$hipri: reads" $((400 * 4)) "$(fio_field 6)"
	expect_ge "hipri=$hipri: min latency (us)" $svc \
		"$(fio_field 38 | cut -d. -f1)"
done

run modprobe pdm
run pdmsetup create sp --table "0 $(cat /sys/block/slowpoll0/size) linear /dev/slowpoll0 0" >/dev/null
sys=/sys/block/pdm0/pdm
# Classic polling counted through pdm's poll_bio: tracked, since direct
# (the default) hands a polled bio's polling to the lower queue itself.
echo tracked >$sys/poll_mode
polls() {
	fio_run "pdm-hybrid$1" --filename=/dev/pdm0 --ioengine=io_uring \
		--direct=1 --hipri=1 --rw=randread --bs=4k --iodepth=1 \
		--number_ios=500
	expect_eq "hybrid=$1: KiB read" 2000 "$(fio_field 6)"
}
echo 0 >$sys/hybrid
l0=$(cat $sys/lower_polls)
polls 0
classic=$(( $(cat $sys/lower_polls) - l0 ))
echo 1 >$sys/hybrid
polls 1
l0=$(cat $sys/lower_polls) e0=$(cat $sys/hybrid_early_returns)
polls 1
hybrid=$(( $(cat $sys/lower_polls) - l0 ))
expect_ge "hybrid: early returns" 500 $(( $(cat $sys/hybrid_early_returns) - e0 ))
read -r est _ <$sys/hybrid_estimate_ns
# A lower quartile of completions that all take the service time or
# more, stepping down 3/64 at a time: a few percent under at worst.
expect_ge "read estimate (ns) >= 0.9 x service time" $((svc * 900)) "$est"
expect_le "read estimate (ns) < 3x service time" $((3 * svc * 1000)) "$est"
note "lower polls for 500 reads: classic $classic, hybrid $hybrid"
expect_ge "classic polls per read" 2 $((classic / 500))
# hybrid polls from 7/8 of the estimate, some 1/8 of classic's polls;
# seen from 0.06 to 0.27 of them (both kernels, polls per microsecond
# follow the host's speed).  Without the sleep it would be all of them:
# at most half.
expect_le "hybrid polls (x2)" "$classic" $((hybrid * 2))
run pdmsetup remove sp
run rmmod pdm
run rmmod blkfast-slowpoll
echo "PASS"
