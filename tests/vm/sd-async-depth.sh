#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# 6.12-tier: async_depth is a whole-bitmap shallow depth there (sbitmap, 6.12.43)
# vm-skip-flavour: debug a timing relation to mq-deadline; the debug kernel's checks distort timing, and its locking is covered by sd-switch, sd-verify and sd-fault
# vm: -c 2
# async_depth, side by side with mq-deadline: writes (async requests and
# all writes, as 6.1's dd_limit_depth() throttles them) take at most
# async_depth of the scheduler's 128 tags, so that sync reads find tags.
# A random read flood and a random write flood, QD64 each, on the slow
# pair (1 ms per request, 2 driver tags); the writes waiting in the
# scheduler (debugfs write1_fifo_list, class BE; sampled every 20 ms)
# never exceed async_depth=8, under either scheduler, while reads wait
# there too; with async_depth=128 (the default) writes fill the
# scheduler well past 8.
# split-deadline's largest sample is within 2 of mq-deadline's.
. "$(dirname "$0")/lib/lib.sh"

sd_slow_pair
lines() { wc -l <"$DEBUGFS/block/$1/sched/$2"; }
declare -A wmax rmax
for ad in 8 128; do
	for d in nullb0 nullb1; do
		echo $ad >/sys/block/$d/queue/iosched/async_depth
		expect_eq "$d async_depth" $ad \
			"$(cat /sys/block/$d/queue/iosched/async_depth)"
		wmax[$d]=0 rmax[$d]=0
	done
	sd_floods 64
	fio --output-format=terse --terse-version=3 "${SD_FLOODS[@]}" \
		>/tmp/ad.out 2>&1 &
	fpid=$!
	while kill -0 $fpid 2>/dev/null; do
		for d in nullb0 nullb1; do
			w=$(lines $d write1_fifo_list) r=$(lines $d read1_fifo_list)
			[ "$w" -gt "${wmax[$d]}" ] && wmax[$d]=$w
			[ "$r" -gt "${rmax[$d]}" ] && rmax[$d]=$r
		done
		sleep 0.02
	done
	wait $fpid || { cat /tmp/ad.out; fail "fio failed"; }
	for d in nullb0 nullb1; do
		s=${SD_PAIR[$d]}
		note "$s async_depth=$ad: at most ${wmax[$d]} writes and ${rmax[$d]} reads queued"
		expect_ge "$s ad=$ad: reads queued at some point" 16 "${rmax[$d]}"
		if [ $ad = 8 ]; then
			expect_le "$s ad=8: writes queued" 8 "${wmax[$d]}"
		else
			expect_ge "$s ad=128: writes queued" 24 "${wmax[$d]}"
		fi
	done
	mq=${wmax[nullb0]} sd=${wmax[nullb1]}
	if [ $ad = 8 ]; then
		expect_le "ad=8: |split-deadline - mq-deadline| writes queued" 2 \
			$(( sd > mq ? sd - mq : mq - sd ))
	fi
done
set_sched nullb0 none
set_sched nullb1 none
echo "PASS"
