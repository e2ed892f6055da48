#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-skip-flavour: debug a timing relation to mq-deadline; the debug kernel's checks distort timing, and its locking is covered by sd-switch, sd-verify and sd-fault
# vm: -c 2
# vm-alone: the write share is a rate; pooled, 6.12's split-deadline once got 6 % to mq-deadline's 14 %
# 6.12-tier: writes_starved, against 6.12's mq-deadline
# Writes are not starved beyond writes_starved, as in mq-deadline.
#
# A random read flood and a random write flood, QD32 each, on a slow
# null_blk with 2 driver tags, so that both directions always wait in the
# scheduler.  With writes_starved=N the scheduler picks reads for at most N
# batch decisions in a row while writes wait, then a write batch: with full
# batches of fifo_batch requests, writes get 1/(N+1) of the dispatches.
# The share of completed writes (from /sys/block/X/stat, so emulation speed
# cancels out) must be 30-75% at N=1 and 4-30% at N=8, N=1 must give at
# least twice N=8's share, and split-deadline's share must be within 0.5x-2x
# of mq-deadline's.  The debugfs "starved" count, sampled during the run,
# never exceeds N.  This catches a scheduler that starves writes (share ~0),
# ignores the tunable (same share at 1 and 8, or starved > 1 at N=1) or
# ignores the read preference (share ~50% at 8).  Wherever mq-deadline's
# sampled starved count reached 1, split-deadline's must too (a debugfs
# file stuck at 0 fails; a missing one fails the read).  mq-deadline
# (nullb0, the reference) and split-deadline (nullb1) run side by side.
. "$(dirname "$0")/lib/lib.sh"

# Room for both floods in each scheduler.
sd_slow_pair
for d in nullb0 nullb1; do
	# No FIFO expiry: only writes_starved lets writes through.
	echo 60000 >/sys/block/$d/queue/iosched/read_expire
done

stat_field() { awk -v f="$2" '{ print $f }' /sys/block/"$1"/stat; }

# writes_starved 1 first: "starved" is not reset when the tunable changes.
declare -A share r0 w0 maxst
for ws in 1 8; do
	for d in nullb0 nullb1; do
		echo "$ws" >/sys/block/$d/queue/iosched/writes_starved
		r0[$d]=$(stat_field $d 1) w0[$d]=$(stat_field $d 5) maxst[$d]=0
	done
	sd_floods 32
	fio --output-format=terse --terse-version=3 "${SD_FLOODS[@]}" \
		>/tmp/starved.out 2>&1 &
	fpid=$!
	while kill -0 $fpid 2>/dev/null; do
		for d in nullb0 nullb1; do
			st=$(cat "$DEBUGFS/block/$d/sched/starved")
			[ "$st" -gt "${maxst[$d]}" ] && maxst[$d]=$st
		done
		sleep 0.05
	done
	wait $fpid || { cat /tmp/starved.out; fail "fio failed"; }
	for d in nullb0 nullb1; do
		s=${SD_PAIR[$d]}
		r=$(( $(stat_field $d 1) - r0[$d] ))
		w=$(( $(stat_field $d 5) - w0[$d] ))
		pct=$(( 100 * w / (r + w) ))
		share[$s-$ws]=$pct
		note "$s writes_starved=$ws: $r reads, $w writes ($pct%)," \
			"max starved ${maxst[$d]}"
		expect_le "$s ws=$ws: debugfs starved" "$ws" "${maxst[$d]}"
		# The count moves (a file stuck at 0 fails) wherever the
		# reference's moved in the same samples.
		expect_ge "$s ws=$ws: debugfs starved (mq-deadline's max ${maxst[nullb0]})" \
			$(( maxst[nullb0] > 0 ? 1 : 0 )) "${maxst[$d]}"
		if [ "$ws" = 1 ]; then
			expect_ge "$s ws=1: write share %" 30 "$pct"
			expect_le "$s ws=1: write share %" 75 "$pct"
		else
			expect_ge "$s ws=8: write share %" 4 "$pct"
			expect_le "$s ws=8: write share %" 30 "$pct"
		fi
	done
done
for s in mq-deadline split-deadline; do
	expect_ge "$s: write share % at ws=1 (>= 2x ws=8)" \
		$((2 * share[$s-8])) "${share[$s-1]}"
done
for ws in 1 8; do
	mq=${share[mq-deadline-$ws]} sd=${share[split-deadline-$ws]}
	expect_ge "ws=$ws: split-deadline write share % (>= mq-deadline's / 2)" \
		$(( (mq + 1) / 2 )) "$sd"
	expect_le "ws=$ws: split-deadline write share % (<= mq-deadline's * 2)" \
		$((2 * mq)) "$sd"
done
set_sched nullb0 none
set_sched nullb1 none
echo "PASS"
