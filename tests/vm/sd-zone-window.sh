#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# debug-tier: full holds a scheduler window open with kprobes, an ordering question; zone write locking runs in the core under sd-fault
# vm: -c 2
# vm-alone: holds a zone window open for a set time with a kprobe
# No 3 ms bubble when a zone write lock is released while split-deadline's
# dispatcher holds SD_DISPATCHING.  A write held back by its zone's write
# lock is dispatched by the queue run that the zone's last write starts
# when it ends; under split-deadline that run returns at once if an idle
# pass, which found the zone still locked, has not yet dropped the flag.
# Unless that pass looks again (sd_release_dispatch() counts zone
# unlocks), the write waits for blk-mq's rerun BLK_MQ_BUDGET_DELAY (3 ms)
# later, a wait mq-deadline, which has no such flag, never has.
#
# The test-only blkfast-zonewin module (tests/modules/blkfast-zonewin.c)
# holds the window open: per probe, a 4k write W1 to an empty zone, issued
# on CPU 1 and ended by null_blk 20 ms later; a second write W2 to the same
# zone, held back by the scheduler; and CPU 0's own queue run, whose idle
# pass is held just after its lock was dropped (split-deadline: the entry
# of sd_release_dispatch(); mq-deadline: the return of
# dd_dispatch_request()) until W1 has ended and the run W1's end started
# has come in.  Asserted, interleaved twice, 20 probes each: all but at
# most 2 passes were held so, and in as many the restart run came into the
# hold; mq-deadline had W2 issued when the held run returned in every
# probe held (else the run is measured again and at last SKIPs), and
# split-deadline in all but at most one; no write failed.  The mutant
# sd-zone-no-recheck (a pass that looks only for inserts) fails it.
. "$(dirname "$0")/lib/lib.sh"

ZP=/sys/module/blkfast_zonewin/parameters
N=20
nullb_load queue_mode=2 zoned=1 zone_size=4 zone_nr_conv=0 gb=1 \
	submit_queues=2 irqmode=2 completion_nsec=20000000
grep -q split-deadline /sys/block/nullb0/queue/scheduler ||
	modprobe split-deadline
zone0=0

# zone_run SCHED: N probes on SCHED; their counts in HELD, RESTARTS,
# IN_RUN and ERRORS.
zone_run() {
	local hold=dd_dispatch_request at=return entry=dd_dispatch_request
	local stats
	[ "$1" = mq-deadline ] ||
		hold=sd_release_dispatch at=entry entry=sd_dispatch_request
	set_sched nullb0 "$1"
	modprobe blkfast-zonewin dev=/dev/nullb0 zone0=$zone0 hold=$hold \
		at=$at entry=$entry || fail "cannot hold $hold at its $at"
	zone0=$((zone0 + N))
	echo $N >$ZP/probes || fail "$1: the probes failed"
	stats=$(cat $ZP/probes)
	rmmod blkfast-zonewin
	read -r _ HELD _ RESTARTS _ IN_RUN _ ERRORS <<<"$stats"
	note "$1: $stats"
}

# reference_clean: mq-deadline's passes were held, the restart run came
# into each, and each W2 was issued by then.
reference_clean() {
	[ "$HELD" -ge $((N - 2)) ] && [ "$RESTARTS" = "$HELD" ] &&
		[ "$IN_RUN" = "$HELD" ] && [ "$ERRORS" = 0 ]
}

for rep in 1 2; do
	with_reference "mq-deadline's held-back writes were not issued in the held run" \
		zone_run reference_clean mq-deadline
	zone_run split-deadline
	expect_ge "split-deadline, run $rep: passes held while the zone's write ended" \
		$((N - 2)) "$HELD"
	expect_ge "split-deadline, run $rep: of those, the restart run came in" \
		$((HELD - 1)) "$RESTARTS"
	expect_ge "split-deadline, run $rep: held-back writes issued by the end of the held run" \
		$((HELD - 1)) "$IN_RUN"
	expect_eq "split-deadline, run $rep: writes that failed" 0 "$ERRORS"
done
set_sched nullb0 none
echo "PASS"
