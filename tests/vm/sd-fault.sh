#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm: -c 2
# vm-skip-flavour: amd64 needs null_blk's fault injection and failslab, which only the debug kernel has
# vm-skip-flavour: cloud-amd64 needs null_blk's fault injection and failslab, which only the debug kernel has
# vm-skip-flavour: rt-amd64 needs null_blk's fault injection and failslab, which only the debug kernel has
# Fault injection around split-deadline, with mq-deadline as the reference:
#  - null_blk requeues 5% of requests (its requeue= fault injection: half
#    through the BUSY path, half through blk_mq_requeue_request(), which
#    inserts them at the head of the scheduler again) under fio verify:
#    requeues happen, every request is dispatched again, no data is lost,
#    and the scheduler holds nothing at idle (its owned_by_driver count
#    behaves as mq-deadline's, which 6.1 leaves raised by requeues);
#  - the same on a zoned device: a requeued write gives back its zone
#    write lock, or waits for itself forever;
#  - null_blk drops requests unanswered (its timeout= injection): each
#    ends by blk-mq's timeout with an error that reaches fio, nothing
#    hangs, and the scheduler holds and owns nothing at idle, as
#    mq-deadline;
#  - every allocation of an elevator switch to split-deadline fails in
#    turn, every 5th in the debug tier's core (/proc/self/fail-nth with
#    failslab and fail_page_alloc armed): a switch that fails says so,
#    and the queue keeps working with its previous scheduler, or with none
#    where 6.1 falls back to it (a failure after the old scheduler was
#    torn down); the loop ends when a switch passes with the fault not
#    reached.
. "$(dirname "$0")/lib/lib.sh"

EV=$TRACEFS/events/block/block_rq_requeue
requeues() {
	awk '/hitcount:/ { for (i = 1; i <= NF; i++) if ($i == "hitcount:") s += $(i+1) }
	     END { print s + 0 }' $EV/hist
}

# sched_sum FILE: the sum over priorities of a scheduler debugfs file.
sched_sum() {
	awk '{ for (i = 1; i <= NF; i++) s += $i } END { print s + 0 }' \
		"$DEBUGFS/block/nullb0/sched/$1"
}

# --- requeues under verify I/O ---
# 128 MiB per job; 32 in the debug tier's core (hundreds of requeues).
mib=128
[ "$(debug_tier)" = core ] && mib=32
declare -A owned
nullb_load queue_mode=2 memory_backed=1 submit_queues=2 gb=1 \
	requeue=1,5,0,-1
for s in mq-deadline split-deadline; do
	set_sched nullb0 $s
	echo 'hist:keys=common_type' >$EV/trigger
	fio_run "requeue-$s" --filename=/dev/nullb0 --ioengine=io_uring \
		--direct=1 --bsrange=4k-64k --rw=randrw --size=${mib}m \
		--iodepth=16 --numjobs=2 --offset_increment=128m \
		--verify=crc32c --verify_fatal=1 --do_verify=1
	n=$(requeues)
	echo '!hist:keys=common_type' >$EV/trigger
	note "$s: $(( $(fio_field 47) / 1024 )) MiB written and verified," \
		"$n requeues"
	expect_ge "$s: requests requeued" 20 "$n"
	expect_eq "$s: queued at idle" 0 "$(sched_sum queued)"
	# 6.1's mq-deadline counts a request dispatched again after
	# blk_mq_requeue_request() twice and completed once: its
	# owned_by_driver stays up by those requeues (about half of all
	# here; the other half goes through the BUSY path), and may drift
	# no further.  split-deadline counts a requeue back: 0.
	owned[$s]=$(sched_sum owned_by_driver)
	if [ "$s" = split-deadline ]; then
		expect_eq "$s: owned_by_driver at idle" 0 "${owned[$s]}"
	else
		expect_le "$s: owned_by_driver at idle (<= requeues)" "$n" \
			"${owned[$s]}"
	fi
done
set_sched nullb0 none

# --- requeued zoned writes ---
# The same requeues on a zoned device: a requeued write gives back its
# zone's write lock when it is inserted again, or it waits for itself
# forever.  Sequential writes to one zone per job, QD8: fio ends by
# itself, its data verified, with requeues seen, under both schedulers.
zmib=32
[ "$(debug_tier)" = core ] && zmib=16
nullb_load queue_mode=2 zoned=1 zone_size=16 zone_nr_conv=0 gb=1 \
	memory_backed=1 submit_queues=2 requeue=1,5,0,-1
for s in mq-deadline split-deadline; do
	set_sched nullb0 $s
	echo 'hist:keys=common_type' >$EV/trigger
	fio_bounded 120 "zreq-$s" fio --name="zreq-$s" \
		--filename=/dev/nullb0 --ioengine=io_uring --direct=1 \
		--zonemode=zbd --bs=16k --rw=write --iodepth=8 --numjobs=4 \
		--offset_increment=256m --size=${zmib}m --verify=crc32c \
		--do_verify=1 --verify_fatal=1 --group_reporting
	n=$(requeues)
	echo '!hist:keys=common_type' >$EV/trigger
	expect_fio_clean "zreq-$s" $((4 * zmib * 1024))
	expect_ge "$s: zoned requests requeued" 10 "$n"
done
set_sched nullb0 none

# --- timeouts under I/O ---
# null_blk's timeout= injection drops 2% of requests (at most 8 per
# run) unanswered; blk-mq's timeout handler (5 s for null_blk) ends each
# with BLK_STS_TIMEOUT.  Random reads: fio ends within its bound with
# ETIMEDOUT as its error, and the scheduler holds nothing at idle and
# owns what mq-deadline owns (nothing: a timeout is no requeue).
for s in mq-deadline split-deadline; do
	nullb_load queue_mode=2 submit_queues=2 gb=1 timeout=1,2,0,8
	set_sched nullb0 $s
	# Counted from here (never cleared: the harness reads the whole
	# kernel log for splats at the end).
	t0=$(dmesg | grep -c 'timed out' || true)
	fio --name="timeout-$s" --filename=/dev/nullb0 --ioengine=io_uring \
		--direct=1 --bs=4k --rw=randread --iodepth=16 --numjobs=2 \
		--number_ios=2000 --output-format=terse --terse-version=3 \
		>"/tmp/fio-timeout-$s.out" 2>&1 &
	wait_ended $! 120 "fio under timeouts on $s"
	n=$(( $(dmesg | grep -c 'timed out' || true) - t0 ))
	# A terse line per job.  fio ends a job at its first ETIMEDOUT,
	# even with continue_on_error; the I/Os still in flight end as the
	# kernel times them out, before fio can exit.
	first=$(awk -F';' '/^3;/ && $5 != 0 { print $5; exit }' \
		"/tmp/fio-timeout-$s.out")
	expect_ge "$s: requests timed out" 1 "$n"
	expect_eq "$s: fio's first error (ETIMEDOUT)" 110 "$first"
	expect_eq "$s: queued at idle" 0 "$(sched_sum queued)"
	expect_eq "$s: owned_by_driver at idle" 0 "$(sched_sum owned_by_driver)"
done
nullb_load queue_mode=2 memory_backed=1 submit_queues=2 gb=1

# --- every allocation of the switch failing in turn ---
set_sched nullb0 mq-deadline
fail_nth_setup
failed=0 done_n=0
# Every call fails in turn; every 5th in the debug tier's core (200 calls,
# some 4 s a try there).
stride=1
[ "$(debug_tier)" = core ] && stride=5
for n in $(seq 1 "$stride" 400); do
	# One subshell per try: fail-nth belongs to it and dies with it.
	# Its outcome comes back as an exit status, not as text: writing to a
	# pipe allocates a page, which the armed fault would hit after the
	# switch had already succeeded.  0: switched before the n-th call
	# (every call was tried), 1: switched with the fault inside,
	# 2: refused.  A fault that hits the read of fail-nth reads as 1.
	rc=0
	(echo "$n" >/proc/self/fail-nth
		echo split-deadline >/sys/block/nullb0/queue/scheduler || exit 2
		read -r left </proc/self/fail-nth || exit 1
		[ "${left:-0}" -gt 0 ] || exit 1) 2>/dev/null || rc=$?
	cur=$(sched_of nullb0)
	case $rc in
	0)
		# The switch finished before its n-th call: all were tried.
		expect_eq "switch with no fault: scheduler" split-deadline "$cur"
		done_n=$n
		break ;;
	1)
		expect_eq "fault $n tolerated: scheduler" split-deadline "$cur" ;;
	*)
		# 6.1 tears the old scheduler down before it sets the new
		# one up, and falls back to none when that fails ("elv:
		# switch to ... failed, falling back to none"); a failure
		# before the teardown keeps the old one.
		failed=$((failed + 1))
		case $cur in
		mq-deadline | none) note "ok: fault $n: refused, now $cur" ;;
		*) fail "fault $n: switch refused, scheduler is '$cur'" ;;
		esac ;;
	esac
	# The queue works with whatever scheduler it has.
	dd if=/dev/nullb0 of=/dev/null bs=4k count=16 iflag=direct \
		2>/dev/null || fail "fault $n: nullb0 unreadable after the switch"
	[ "$cur" = mq-deadline ] || set_sched nullb0 mq-deadline
done
note "every call of the switch failed in turn: $((done_n - 1)) calls," \
	"$failed switches refused"
expect_ge "calls tried until one switch ran clean" 2 "$done_n"
expect_ge "switches refused by an injected failure" 1 "$failed"
dd if=/dev/nullb0 of=/dev/null bs=4k count=256 iflag=direct 2>/dev/null ||
	fail "nullb0 unreadable at the end"
set_sched nullb0 none
echo "PASS"
