#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# 6.12-tier: hybrid polling, which 6.12 has nowhere else (io_poll_delay is gone)
# vm: -c 2 -d 48M -d 48M -t 900
# pdm's hybrid "sleep" (pdm-hybrid.c):
#  0. crc32c verify through every hybrid mode (off, gate, sleep), linear
#     and 2-leg striped, at QD1 and QD32, over null_blk's poll queues
#     (which complete at the first poll: the wait is too short to sleep)
#     and over emulated NVMe.  Then, over the test-only slowpoll disk with
#     a 1 ms service time and its data kept (data=1):
#  1. the same verify; in sleep, sleeps happen and each was judged by its
#     task's next poll (completion ready, or not yet);
#  2. a signal to a fio that sleeps (50 ms reads) cuts its sleep short
#     (hybrid_sleeps_interrupted), and SIGINT ends it within 5 s;
#  3. an SQPOLL ring never sleeps (its poller is an io_uring thread with
#     no task work run between passes) and still completes every I/O;
#  4. while hybrid sleeps run, remove and rmmod are refused (busy), and
#     right after fio exits both succeed: 5 rounds (2 in the debug
#     tier's core), no crash (the debug tier reports a sleep in atomic
#     context or a use-after-free).
# What the sleeps are for, the CPU time they save, is a timing relation:
# pdm-hybrid-cpu asserts it, alone on the host, so that this test can
# share it.  The debug tier's core leaves out step 0 (pdm-poll-modes
# verifies through hybrid sleep over NVMe there too) and verifies step 1
# in sleep alone.
. "$(dirname "$0")/lib/lib.sh"

# 0. null_blk (its polled writes stay in the prefilled first 64 MiB, see
# nullb_prefill) and NVMe.
verify() {
	fio_run "$1" --filename=/dev/pdm0 --ioengine=io_uring --direct=1 \
		--hipri=1 --rw=randwrite --bs=4k --iodepth="$2" --size="$3" \
		--verify=crc32c --verify_fatal=1 --do_verify=1
	expect_eq "$1: KiB verified = written" "$(fio_field 47)" \
		"$(fio_field 6)"
}
verify_modes() {
	local hybrid
	for hybrid in off gate sleep; do
		echo $hybrid >/sys/block/pdm0/pdm/hybrid
		verify "$1-$hybrid-qd1" 1 512k
		verify "$1-$hybrid-qd32" 32 2m
	done
}
nullb_load queue_mode=2 nr_devices=2 submit_queues=1 poll_queues=1 gb=1 \
	memory_backed=1
nullb_prefill /dev/nullb0
nullb_prefill /dev/nullb1
run modprobe nvme poll_queues=1
wait_for_block nvme0n1
wait_for_block nvme1n1
run modprobe pdm
lowers="nullb0:nullb1 nvme0n1:nvme1n1"
[ "$(debug_tier)" = core ] && lowers=""
for lower in $lowers; do
	a=${lower%%:*} b=${lower#*:}
	run pdmsetup create h0 --table "0 $((32 * 2048)) linear /dev/$a 0" >/dev/null
	verify_modes "$a-linear"
	run pdmsetup remove h0
	run pdmsetup create h0 --table "0 $((2 * 32 * 2048)) striped 2 16 /dev/$a 0 /dev/$b 0" >/dev/null
	verify_modes "$a-striped"
	run pdmsetup remove h0
done
run rmmod pdm

svc=1000
run modprobe blkfast-slowpoll service_us=$svc size_mb=64 data=1
wait_for_block slowpoll0
sz=$(cat /sys/block/slowpoll0/size)
half=$((sz / 2))
run modprobe pdm
sys=/sys/block/pdm0/pdm

# The knob: names or numbers in, every choice out with the current one
# in brackets (as poll_mode); anything else refused.
run pdmsetup create hs --table "0 $sz linear /dev/slowpoll0 0" >/dev/null
expect_eq "default hybrid" "[off] gate sleep" "$(pdm_stat hybrid)"
for v in "gate off [gate] sleep" "sleep off gate [sleep]" \
	 "off [off] gate sleep" "2 off gate [sleep]" "1 off [gate] sleep" \
	 "0 [off] gate sleep"; do
	read -r in out <<<"$v"
	echo "$in" >$sys/hybrid || fail "hybrid '$in' refused"
	expect_eq "hybrid after '$in'" "$out" "$(pdm_stat hybrid)"
done
for bad in 3 -1 nap; do
	if echo "$bad" >$sys/hybrid 2>/dev/null; then
		fail "hybrid accepted '$bad'"
	fi
done
expect_eq "hybrid after refusals" "[off] gate sleep" "$(pdm_stat hybrid)"
run pdmsetup remove hs

# 1. Verify: linear over the whole disk, striped over its two halves;
# the debug tier's core verifies in sleep alone, the mode with paths of
# its own (a task work, an hrtimer sleep), and leaves polling off and
# gated to pdm-poll-modes.
modes="off gate sleep"
[ "$(debug_tier)" = core ] && modes="sleep"
for table in "linear:0 $sz linear /dev/slowpoll0 0" \
	"striped:0 $((2 * (half - 8))) striped 2 8 /dev/slowpoll0 0 /dev/slowpoll0 $half"; do
	name=${table%%:*}
	run pdmsetup create hs --table "${table#*:}" >/dev/null
	for hybrid in $modes; do
		echo "$hybrid" >$sys/hybrid
		s0=$(pdm_stat hybrid_sleeps) r0=$(pdm_stat hybrid_sleep_ready)
		e0=$(pdm_stat hybrid_sleep_early)
		verify "$name-$hybrid-qd1" 1 1m
		verify "$name-$hybrid-qd32" 32 4m
		sleeps=$(( $(pdm_stat hybrid_sleeps) - s0 ))
		judged=$(( $(pdm_stat hybrid_sleep_ready) - r0 +
			   $(pdm_stat hybrid_sleep_early) - e0 ))
		if [ "$hybrid" = sleep ]; then
			note "$name: $sleeps sleeps, $judged judged; totals: refused $(pdm_stat hybrid_sleep_refused), early returns $(pdm_stat hybrid_early_returns), estimates $(pdm_stat hybrid_estimate_ns | tr "\n" ";"), lateness $(pdm_stat hybrid_wake_late_ns) ns, late $(pdm_stat hybrid_late_wakeups) by $(pdm_stat hybrid_late_ns) ns, ready $(pdm_stat hybrid_sleep_ready), early $(pdm_stat hybrid_sleep_early)"
			expect_ge "$name: sleeps" 100 "$sleeps"
			# Each sleep judged by its task's next poll, but for
			# those whose verdict another task's overwrote.
			expect_le "$name: sleeps judged" "$sleeps" "$judged"
			expect_ge "$name: sleeps judged (90%)" \
				$((sleeps * 9 / 10)) "$judged"
		else
			expect_eq "$name-$hybrid: sleeps" 0 "$sleeps"
		fi
	done
	run pdmsetup remove hs
done

# 2. Signals to a sleeping fio, with reads of 50 ms (so that their sleeps
# are long): a sleep a signal lands in ends at once, counted as cut
# short, and SIGINT ends fio.
run pdmsetup create hs --table "0 $sz linear /dev/slowpoll0 0" >/dev/null
echo sleep >$sys/hybrid
echo 50000 >/sys/module/blkfast_slowpoll/parameters/service_us
fio --name=sig --filename=/dev/pdm0 --ioengine=io_uring --direct=1 \
	--hipri=1 --rw=randread --bs=4k --iodepth=1 --time_based --runtime=60 \
	>/tmp/sig.out 2>&1 &
fpid=$!
s0=$(pdm_stat hybrid_sleeps) i0=$(pdm_stat hybrid_sleeps_interrupted)
# Until the estimate has learned most of the 50 ms (the sleeps are then as
# long as they may be, PDM_SLEEP_MAX_NS: 10 ms) and ten reads slept.
est=0
for _ in $(seq 100); do
	read -r est _ <$sys/hybrid_estimate_ns
	[ "$est" -ge 20000000 ] &&
		[ "$(pdm_stat hybrid_sleeps)" -ge $((s0 + 10)) ] && break
	sleep 0.1
done
expect_ge "read estimate before the signal (ns)" 20000000 "$est"
expect_ge "sleeps before the signal" $((s0 + 10)) "$(pdm_stat hybrid_sleeps)"
# To fio's job process, which does the I/O (and sleeps about half the
# time: a signal that comes between sleeps only stops the next one):
# SIGUSR1, which fio answers with a status line and goes on, every 20 ms
# until a sleep was cut short; then SIGINT to end it.
job=$(cat /proc/$fpid/task/*/children 2>/dev/null | tr -d " ")
expect_num "fio's job process" "$job"
for _ in $(seq 100); do
	kill -USR1 "$job" 2>/dev/null || break
	[ "$(pdm_stat hybrid_sleeps_interrupted)" -gt "$i0" ] && break
	sleep 0.02
done
kill -INT $fpid "$job" 2>/dev/null
wait_ended $fpid 5 "fio after SIGINT"
expect_ge "sleeps cut short by the signal" $((i0 + 1)) \
	"$(pdm_stat hybrid_sleeps_interrupted)"
echo $svc >/sys/module/blkfast_slowpoll/parameters/service_us

# 3. SQPOLL: the poller is an io_uring thread.
s0=$(pdm_stat hybrid_sleeps) f0=$(pdm_stat hybrid_sleep_refused)
fio_run sqpoll --filename=/dev/pdm0 --ioengine=io_uring --direct=1 \
	--hipri=1 --sqthread_poll=1 --rw=randread --bs=4k --iodepth=4 \
	--number_ios=500 --size=32m
expect_eq "sqpoll: KiB read" 2000 "$(fio_field 6)"
expect_eq "sqpoll: sleeps" 0 $(( $(pdm_stat hybrid_sleeps) - s0 ))
expect_ge "sqpoll: refused (gated instead)" 100 \
	$(( $(pdm_stat hybrid_sleep_refused) - f0 ))
run pdmsetup remove hs
run rmmod pdm

# 4. Remove and unload around sleeping I/O.  fio must still run when
# remove and rmmod are tried: 2 s leaves Debian's kernel room with
# another guest beside it; on the debug kernel 1 s had ended by then.
secs=2 rounds="1 2 3 4 5"
on_debug_kernel && secs=5
# The debug tier's core: two rounds (each 5 s of fio there).
[ "$(debug_tier)" = core ] && rounds="1 2"
for round in $rounds; do
	run modprobe pdm
	run pdmsetup create hs --table "0 $sz linear /dev/slowpoll0 0" >/dev/null
	echo sleep >$sys/hybrid
	fio --name=unload --filename=/dev/pdm0 --ioengine=io_uring \
		--direct=1 --hipri=1 --rw=randread --bs=4k --iodepth=1 \
		--time_based --runtime=$secs --size=32m >/tmp/unload.out 2>&1 &
	fpid=$!
	for _ in $(seq 50); do
		[ "$(pdm_stat hybrid_sleeps)" -gt 10 ] && break
		sleep 0.1
	done
	expect_ge "round $round: sleeps under way" 11 "$(pdm_stat hybrid_sleeps)"
	kill -0 $fpid 2>/dev/null ||
		fail "round $round: fio ended before remove was tried"
	expect_fail "Device or resource busy" pdmsetup remove hs
	expect_fail "in use" rmmod pdm
	wait $fpid || { cat /tmp/unload.out; fail "round $round: fio failed"; }
	# At once: the last sleep's task work ran as fio exited.
	run pdmsetup remove hs
	run rmmod pdm
done
run rmmod blkfast-slowpoll
echo "PASS"
