#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm: -c 2 -a slub_debug=A,pdm_remap
# vm-skip-flavour: amd64 needs failslab, which only the debug kernel has
# vm-skip-flavour: cloud-amd64 needs failslab, which only the debug kernel has
# vm-skip-flavour: rt-amd64 needs failslab, which only the debug kernel has
# Direct mode's remap pool keeps its reserve.  Every allocation from the
# pdm_remap slab (slub_debug=A marks it, failslab's cache-filter confines
# failslab to it) fails for fio's tasks, so every remap of a blocking bio
# (GFP_NOIO) comes from the pool's reserve of two.  fio reads through pdm
# in direct mode at QD2 on CPU 0, where null_blk completes each read
# from a timer 100 us after it was issued: both reserved elements are in
# use at once, and freed there.  Then
# the same on CPU 1, then on CPU 0 again.  Freed onto CPU 0's own list
# of spare elements, they would leave the reserve empty for CPU 1, whose
# reads would each sleep in mempool_alloc() 5 s at a time, woken by no
# free, for ever; the reserve is refilled first, so every run must end
# within its bound (a few seconds each), and with the reserve full again
# the last run needs both elements.  The mutant pdm-remap-reserve-parked
# fails it.
. "$(dirname "$0")/lib/lib.sh"

nullb_load queue_mode=2 nr_devices=1 submit_queues=1 irqmode=2 \
	completion_nsec=100000 gb=1
run modprobe pdm
marked=$(cat /sys/kernel/slab/pdm_remap/failslab)
expect_eq "pdm_remap slab marked for failslab" 1 "$marked"
sz=$(cat /sys/block/nullb0/size)
run pdmsetup create rsv --table "0 $sz linear /dev/nullb0 0" >/dev/null
# Direct mode's reserve, whatever mode the tier starts devices in.
echo direct >/sys/block/pdm0/pdm/poll_mode
expect_eq "poll_mode" direct "$(pdm_mode pdm0)"
# failslab counts its failures down from TIMES.
TIMES=1000000
failslab_arm N Y 100 $TIMES
r0=$(cat /sys/block/pdm0/pdm/remapped)

N=400
# reads CPU WHAT: N blocking 4k reads at QD2 on CPU, failing every
# pdm_remap slab allocation; they must end within 20 s.  Not fio_bounded:
# a task asleep in mempool_alloc() cannot be killed, and timeout(1)
# would wait for it.
reads() {
	local pid
	(
		echo 1 >/proc/self/make-it-fail
		exec fio --name=rsv --filename=/dev/pdm0 --ioengine=libaio \
			--direct=1 --bs=4k --rw=randread --iodepth=2 \
			--number_ios=$N --cpus_allowed="$1" \
			--output-format=terse --terse-version=3
	) >/tmp/rsv.out 2>&1 &
	pid=$!
	if ! ends_within $pid 20; then
		# The blocked tasks' stacks, into the log.
		echo w >/proc/sysrq-trigger
		fail "$2: reads through pdm still running after 20 s (a remap waiting for the pool?)"
	fi
	wait $pid || { cat /tmp/rsv.out; fail "$2: fio failed"; }
	note "$2: $N reads done"
}
reads 0 "CPU 0"
reads 1 "CPU 1"
reads 0 "CPU 0 again"
# Every remap met a failing slab: the reserve served them all.
expect_ge "failed pdm_remap slab allocations" $((3 * N)) \
	$((TIMES - $(cat "$FAILSLAB/times")))
expect_ge "bios remapped" $((3 * N)) \
	$(($(cat /sys/block/pdm0/pdm/remapped) - r0))
echo 0 >"$FAILSLAB/probability"
run pdmsetup remove rsv
echo PASS
