#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# 6.12-tier: NOWAIT is a queue feature, cleared by stacking unless set
# vm: -c 2 -t 240
# debug-tier: full counts and EAGAIN; the requeue path runs in the core under pdm-again, and bios held by a suspend under pdm-suspend and pdm-resume-thread
# Bios whose submitters retry them or can do without them: never held,
# and counted once.
#
# A lower queue that is always full: null_blk with two tags, each
# request done by a timer 200 us after it was issued, under io_uring
# reads at depth 16, unpolled, so that most first tries (REQ_NOWAIT)
# find no tag.  In direct mode the bio goes back to io_uring with EAGAIN
# (eagain_returned), which io_uring issues again from a worker; in
# tracked mode pdm maps it again itself (requeued).  Either way the pdm
# disk counts what fio read, as many reads as the lower disk, and
# nothing is left in flight; its time fields (iostat -x's await, %util
# and queue size) count what the lower disk's do, at least.
#
# A suspended device, as dm's: a RWF_NOWAIT read fails at once with
# EAGAIN and a readahead (POSIX_FADV_WILLNEED) is failed, neither held
# (deferred stays) nor counted; a blocking read is held until the
# resume, and counted once.  Held reads meet the table live after the
# resume: beyond the end of a smaller one, EIO.
. "$(dirname "$0")/lib/lib.sh"

run modprobe null_blk nr_devices=0
nullb_cfs nbfull queue_mode=2 hw_queue_depth=2 submit_queues=1 irqmode=2 \
	completion_nsec=200000 size=256
run modprobe pdm
run pdmsetup create nw --table "0 $(cat /sys/block/nbfull/size) linear /dev/nbfull 0" \
	>/dev/null

# field DEV N: field N of /sys/block/DEV/stat (1 reads, 9 in flight).
field() {
	awk -v f="$2" '{ print $f }' "/sys/block/$1/stat"
}

N=400
for mode in direct tracked; do
	echo $mode >/sys/block/pdm0/pdm/poll_mode
	r0=$(field pdm0 1) l0=$(field nbfull 1)
	a0=$(pdm_stat eagain_returned) q0=$(pdm_stat requeued)
	fio_run "$mode" --filename=/dev/pdm0 --ioengine=io_uring --direct=1 \
		--hipri=0 --bs=4k --rw=randread --iodepth=16 --number_ios=$N
	expect_eq "$mode: fio reads" $N "$(fio_ios 4096)"
	again=$(( $(pdm_stat eagain_returned) - a0 ))
	requeued=$(( $(pdm_stat requeued) - q0 ))
	note "$mode: $again given back with EAGAIN, $requeued mapped again"
	if [ $mode = direct ]; then
		expect_ge "$mode: reads that met a full queue" 1 "$again"
	else
		expect_ge "$mode: reads that met a full queue" 1 "$requeued"
	fi
	expect_eq "$mode: reads the pdm disk counts" $N \
		$(( $(field pdm0 1) - r0 ))
	# The lower disk counts a read when its request ends, after the
	# read's end_io has completed pdm's bio (and fio): wait for its
	# last request to be freed (in flight 0), 2 s at most.
	for _ in $(seq 200); do
		[ "$(field nbfull 9)" != 0 ] || break
		sleep 0.01
	done
	expect_eq "$mode: reads the lower disk counts" $N \
		$(( $(field nbfull 1) - l0 ))
	expect_eq "$mode: in flight" 0 "$(field pdm0 9)"
done
# The time fields that iostat -x reads (r_await from 4, %util from 10,
# aqu-sz from 11), over both runs: each read waited 200 us at least, so
# the lower disk counts 800 * 0.2 = 160 ms of reads at least, and a pdm
# read spans its lower one.  Busy time: 800 reads two at a time, 80 ms.
read4=$(field nbfull 4)
expect_ge "lower disk: ms reading" 160 "$read4"
expect_ge "pdm disk: ms reading (field 4)" "$read4" "$(field pdm0 4)"
expect_ge "pdm disk: ms busy (field 10)" 60 "$(field pdm0 10)"
expect_ge "pdm disk: ms in queue (field 11)" "$(field pdm0 4)" \
	"$(field pdm0 11)"

# Suspended: the non-blocking read and the readahead come back at once.
run pdmsetup suspend nw
r0=$(field pdm0 1) d0=$(pdm_stat deferred) a0=$(pdm_stat eagain_returned)
# unheld WHAT ARGS...: nonblock-read ARGS returns within 5 s, its output
# in /tmp/unheld.out; if the suspend holds it, the test fails saying WHAT
# (after a resume, which releases it).
unheld() {
	local what=$1 pid
	shift
	nonblock-read "$@" >/tmp/unheld.out &
	pid=$!
	if ! ends_within $pid 5; then
		run pdmsetup resume nw
		wait $pid
		fail "$what was held by the suspend for 5 s" \
			"(after the resume: $(cat /tmp/unheld.out))"
	fi
	wait $pid || fail "nonblock-read $*: $(cat /tmp/unheld.out)"
}
unheld "a RWF_NOWAIT read" nowait /dev/pdm0
expect_eq "RWF_NOWAIT read while suspended" EAGAIN "$(cat /tmp/unheld.out)"
expect_eq "eagain_returned after it" $((a0 + 1)) "$(pdm_stat eagain_returned)"
# A held readahead leaves nonblock-read in D state until the resume
# (seen with the readahead held: its pages stay locked).
unheld "a readahead" willneed /dev/pdm0 1048576
expect_eq "readahead while suspended" ok "$(cat /tmp/unheld.out)"
expect_eq "bios held by the suspend" "$d0" "$(pdm_stat deferred)"
expect_eq "reads counted while suspended" "$r0" "$(field pdm0 1)"
expect_eq "in flight while suspended" 0 "$(field pdm0 9)"

# A blocking read waits for the resume.
dd if=/dev/pdm0 of=/dev/null bs=4k count=1 iflag=direct status=none &
pid=$!
wait_read /sys/block/pdm0/pdm/deferred $((d0 + 1)) || true
expect_eq "bios held by the suspend" $((d0 + 1)) "$(pdm_stat deferred)"
still_running $pid "a blocking read while suspended"
run pdmsetup resume nw
wait $pid || fail "the held read failed after the resume"
expect_eq "reads counted after the resume" $((r0 + 1)) "$(field pdm0 1)"

# Held reads meet the table that is live after the resume: one beyond
# the end of a table half the size, loaded meanwhile, fails with EIO;
# one inside it succeeds.
half=$(( $(cat /sys/block/pdm0/size) / 2 ))
run pdmsetup suspend nw
d0=$(pdm_stat deferred)
dd if=/dev/pdm0 of=/dev/null bs=4k count=1 iflag=direct,skip_bytes \
	skip=$(( (half + 8) * 512 )) status=none 2>/tmp/beyond.err &
beyond=$!
dd if=/dev/pdm0 of=/dev/null bs=4k count=1 iflag=direct status=none &
inside=$!
wait_read /sys/block/pdm0/pdm/deferred $((d0 + 2)) || true
expect_eq "reads held by the suspend" $((d0 + 2)) "$(pdm_stat deferred)"
run pdmsetup reload nw --table "0 $half linear /dev/nbfull 0"
run pdmsetup resume nw
expect_eq "size after the resume" "$half" "$(cat /sys/block/pdm0/size)"
RC=0
wait $beyond || RC=$?
[ $RC != 0 ] || fail "a held read beyond the new table's end succeeded"
grep -q 'Input/output error' /tmp/beyond.err ||
	fail "a held read beyond the new table's end: $(cat /tmp/beyond.err)"
note "ok: a held read beyond the new table's end: $(cat /tmp/beyond.err)"
wait $inside || fail "a held read inside the new table failed"
run pdmsetup remove nw
run rmmod pdm
echo "PASS"
