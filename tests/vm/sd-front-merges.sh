#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-skip-flavour: debug a timing relation to mq-deadline; the debug kernel's checks distort timing, and its locking is covered by sd-switch, sd-verify and sd-fault
# vm: -c 2
# 6.12-tier: front merges, against 6.12's mq-deadline and its bio merging
# front_merges, side by side with mq-deadline: 8 jobs of descending
# sequential 4k direct writes (fio rw=write:-8k, one I/O per io_submit so
# that no plug merges them), each in its own region, on the slow pair
# (1 ms per request, 2 tags: the writes wait in the scheduler).  A new
# write ends where a queued one begins, so it can only front-merge.
# front_merges=0 turns off the scheduler's sorted lookup, not the block
# layer's one-hit cache (q->last_merge, which blk_try_merge() front-merges
# into whatever the setting): with 8 streams the cache mostly holds
# another stream's request.  Measured here: 1024 writes, some 860
# merged with front_merges=1, 120-160 with 0, under either scheduler.
# Asserted: with 1, a quarter or more merge; with 0, at most a third as
# many as with 1; and split-deadline merges 0.5x-2x what mq-deadline does
# in both settings.
. "$(dirname "$0")/lib/lib.sh"

sd_slow_pair
stat_field() { awk -v f="$2" '{ print $f }' /sys/block/"$1"/stat; }

declare -A merged
for fm in 1 0; do
	jobs=()
	declare -A m0 w0
	for d in nullb0 nullb1; do
		echo $fm >/sys/block/$d/queue/iosched/front_merges
		m0[$d]=$(stat_field $d 6) w0[$d]=$(stat_field $d 5)
		jobs+=("--name=desc-$d" "--filename=/dev/$d" --direct=1
			--ioengine=libaio --iodepth=8 --iodepth_batch_submit=1
			--rw=write:-8k --bs=4k --size=8m --number_ios=128
			--numjobs=8 --offset_increment=64m)
	done
	fio --output-format=terse --terse-version=3 "${jobs[@]}" \
		>/tmp/desc.out 2>&1 || { cat /tmp/desc.out; fail "fio failed"; }
	for d in nullb0 nullb1; do
		s=${SD_PAIR[$d]}
		m=$(( $(stat_field $d 6) - m0[$d] ))
		w=$(( $(stat_field $d 5) - w0[$d] ))
		merged[$s-$fm]=$m
		note "$s front_merges=$fm: $w write requests, $m writes merged"
		if [ $fm = 1 ]; then
			expect_ge "$s fm=1: merged x4 >= 1024 writes" 1024 $((4 * m))
		else
			expect_le "$s fm=0: merged x3 <= merged with fm=1" \
				"${merged[$s-1]}" $((3 * m))
		fi
	done
	mq=${merged[mq-deadline-$fm]} sd=${merged[split-deadline-$fm]}
	expect_ge "fm=$fm: split-deadline's merges x2 >= mq-deadline's" \
		"$mq" $((2 * sd))
	expect_le "fm=$fm: split-deadline's merges <= 2x mq-deadline's" \
		$((2 * mq)) "$sd"
done
set_sched nullb0 none
set_sched nullb1 none
echo "PASS"
