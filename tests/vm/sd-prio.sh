#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# 6.12-tier: priority levels counted at the level of the insert, as 6.12's mq-deadline keeps it
# vm-skip-flavour: debug a timing relation to mq-deadline; the debug kernel's checks distort timing, and its locking is covered by sd-switch, sd-verify and sd-fault
# vm: -c 2
# I/O priority classes and aging, against mq-deadline in the same boot.
#
# On each of two slow null_blk devices (sd_slow_pair: 1 ms per request, 2
# driver tags; mq-deadline on nullb0, split-deadline on nullb1) an RT reader
# keeps the device busy and an IDLE reader at QD4 competes.  Both
# schedulers dispatch IDLE only when no RT request is queued or in flight,
# or once an IDLE request has waited prio_aging_expire (A = 250 ms).  With
# RT never idle, every IDLE slot is served once per A, so IDLE completes
# about 4 * runtime / A = 64 reads in 4 s, and RT takes the rest.  The RT
# reader runs at QD32 (RT requests always queued), then at QD2, the driver
# depth (RT requests mostly in flight, none queued: IDLE must still wait,
# and gets in only when both RT requests complete before fio resubmits).
#
# Each scheduler runs alone, the reference first, so that nothing
# split-deadline does (burning CPU, say) can keep the reference from
# showing its situation and turn a failure into a SKIP.  The reference
# must show that situation first: mq-deadline's RT at least
# 3x its IDLE, and at QD32 its IDLE between a third and 1.5x of the aging
# bound (more means the host was too slow to keep RT queued, and IDLE got
# in without aging).  A boot that cannot create it is measured again, up
# to 3 times, then SKIPs.  split-deadline must then show the same: RT >= 3x
# IDLE, IDLE at least a third of the aging bound, and its IDLE count within
# 0.5x-2x of mq-deadline's.  A scheduler without priorities fails the 3x,
# one that lets IDLE through while RT is in flight gives IDLE half the
# device at QD2, one without aging gives IDLE ~0, and one that ignores the
# tunable (10 s by default) gives IDLE 0-4.
. "$(dirname "$0")/lib/lib.sh"

aging_ms=250 secs=4 idle_qd=4
bound=$((idle_qd * secs * 1000 / aging_ms))

sd_slow_pair
for d in nullb0 nullb1; do
	echo $aging_ms >/sys/block/$d/queue/iosched/prio_aging_expire
done

# measure RT_QD DEV...: RT and IDLE reads per device into rt[] and idle[].
declare -A rt idle
measure() {
	local rt_qd=$1 d jobs=() common
	shift
	for d in "$@"; do
		common=("--filename=/dev/$d" --ioengine=libaio --direct=1
			--bs=4k --rw=randread "--runtime=$secs" --time_based)
		jobs+=("--name=rt-$d" "${common[@]}" "--iodepth=$rt_qd"
		       --prioclass=1 --prio=0
		       "--name=idle-$d" "${common[@]}" "--iodepth=$idle_qd"
		       --prioclass=3)
	done
	fio --output-format=terse --terse-version=3 "${jobs[@]}" \
		>/tmp/prio.out 2>&1 || { cat /tmp/prio.out; fail "fio failed"; }
	for d in "$@"; do
		rt[$d]=$(awk -F';' -v j="rt-$d" '$3 == j { print $6 / 4 }' \
			/tmp/prio.out)
		idle[$d]=$(awk -F';' -v j="idle-$d" '$3 == j { print $6 / 4 }' \
			/tmp/prio.out)
		expect_num "rt-$d reads" "${rt[$d]}"
		expect_num "idle-$d reads" "${idle[$d]}"
		note "${SD_PAIR[$d]}: RT QD$rt_qd reads ${rt[$d]}," \
			"IDLE reads ${idle[$d]} (aging bound $bound)"
	done
}

# reference_ok RT_QD: did mq-deadline show RT priority (and at QD32, IDLE
# bound by aging)?
reference_ok() {
	[ "${rt[nullb0]}" -ge $((3 * idle[nullb0])) ] || return 1
	[ "$1" != 32 ] || { [ "${idle[nullb0]}" -ge $((bound / 3)) ] &&
		[ "${idle[nullb0]}" -le $((bound * 3 / 2)) ]; }
}

for rt_qd in 32 2; do
	with_reference "RT QD$rt_qd: mq-deadline never showed RT >= 3x IDLE (with IDLE at $((bound / 3))-$((bound * 3 / 2)) at QD32)" \
		measure reference_ok $rt_qd nullb0
	measure $rt_qd nullb1
	mq=${idle[nullb0]} sd=${idle[nullb1]}
	expect_ge "RT QD$rt_qd: split-deadline RT reads (>= 3x its IDLE)" \
		$((3 * sd)) "${rt[nullb1]}"
	expect_ge "RT QD$rt_qd: split-deadline IDLE reads (aging: >= bound/3)" \
		$((bound / 3)) "$sd"
	expect_ge "RT QD$rt_qd: split-deadline IDLE reads (>= mq's $mq / 2)" \
		$(((mq + 1) / 2)) "$sd"
	expect_le "RT QD$rt_qd: split-deadline IDLE reads (<= mq's $mq * 2)" \
		$((2 * mq)) "$sd"
done
for d in nullb0 nullb1; do
	expect_eq "${SD_PAIR[$d]}: requests queued at idle" 0 \
		"$(awk '{ for (i = 1; i <= NF; i++) s += $i } END { print s + 0 }' \
			"$DEBUGFS/block/$d/sched/queued")"
	set_sched $d none
done
echo "PASS"
