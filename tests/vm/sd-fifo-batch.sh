#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# 6.12-tier: fifo_batch against 6.12's mq-deadline, whose batches go on by latest_pos
# vm-skip-flavour: debug a timing relation to mq-deadline; the debug kernel's checks distort timing, and its locking is covered by sd-switch, sd-verify and sd-fault
# vm: -c 2
# fifo_batch, side by side with mq-deadline, seen in the dispatch order:
# a random read flood and a random write flood (QD32 each) on the slow
# pair (1 ms per request, 2 tags), writes_starved=1 so that writes get
# every other batch decision, no expiry.  block_rq_issue traced per
# device gives the runs of same-direction dispatches: a write run is one
# write batch, which holds fifo_batch requests unless the sort order
# runs out; two batches may run into one when no read was queued at the
# decision between them (mq-deadline showed a run of 11 at fifo_batch 4).
# For fifo_batch 4 and 12, under either scheduler: the median and the
# most common write run are fifo_batch long; split-deadline's median
# equals mq-deadline's.
. "$(dirname "$0")/lib/lib.sh"

sd_slow_pair
declare -A devt
for d in nullb0 nullb1; do
	echo 60000 >/sys/block/$d/queue/iosched/read_expire
	echo 1 >/sys/block/$d/queue/iosched/writes_starved
	IFS=: read -r maj min </sys/block/$d/dev
	devt[$d]="$maj,$min"
done
echo 0 >$TRACEFS/tracing_on
echo 4096 >$TRACEFS/buffer_size_kb
echo 1 >$TRACEFS/events/block/block_rq_issue/enable

for fb in 4 12; do
	for d in nullb0 nullb1; do
		echo $fb >/sys/block/$d/queue/iosched/fifo_batch
	done
	echo >$TRACEFS/trace
	echo 1 >$TRACEFS/tracing_on
	sd_floods 32
	fio --output-format=terse --terse-version=3 "${SD_FLOODS[@]}" \
		>/tmp/batch.out 2>&1 || { cat /tmp/batch.out; fail "fio failed"; }
	echo 0 >$TRACEFS/tracing_on
	trace_complete "fb=$fb"
	declare -A median
	for d in nullb0 nullb1; do
		s=${SD_PAIR[$d]}
		# Write run lengths, in dispatch order; the last run may be
		# cut by the end of the trace and is left out.
		awk -v dev="${devt[$d]}" '
			/ block_rq_issue: / && $0 ~ (" " dev " ") {
				for (i = 1; i <= NF; i++) if ($i == dev) break
				w = $(i + 1) ~ /W/
				if (w) { run++; next }
				if (run) print run
				run = 0
			}' $TRACEFS/trace | sort -n >/tmp/runs-$d
		n=$(wc -l </tmp/runs-$d)
		med=$(awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] + 0 }' /tmp/runs-$d)
		mode=$(uniq -c /tmp/runs-$d | sort -k1,1nr | awk 'NR == 1 { print $2 }')
		max=$(tail -n 1 /tmp/runs-$d)
		median[$s]=$med
		note "$s fifo_batch=$fb: $n write runs, median $med, most often $mode, longest $max"
		expect_ge "$s fb=$fb: write runs traced" 20 "$n"
		expect_eq "$s fb=$fb: median write run" $fb "$med"
		expect_eq "$s fb=$fb: most common write run" $fb "$mode"
	done
	expect_eq "fb=$fb: split-deadline's median write run = mq-deadline's" \
		"${median[mq-deadline]}" "${median[split-deadline]}"
done
echo 0 >$TRACEFS/events/block/block_rq_issue/enable
set_sched nullb0 none
set_sched nullb1 none
echo "PASS"
