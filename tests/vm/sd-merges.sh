#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-skip-flavour: debug a timing relation to mq-deadline; the debug kernel's checks distort timing, and its locking is covered by sd-switch, sd-verify and sd-fault
# vm: -c 4 -m 1536
# 6.12-tier: merges under contention, against 6.12's mq-deadline
# Merges survive the lock split: sequential 4k direct writes from 16 jobs on
# a slow null_blk with few tags; split-deadline's write merges (from
# /sys/block/X/stat; medians of 5 interleaved runs, which vary by 10-20%
# run to run) are at least 95% of mq-deadline's in the same boot, and
# split-deadline's staging path ran and merged staged requests as it
# drained them (debugfs contention: dispatch_lock_busy_inserts,
# drained_merges).  If mq-deadline merged fewer than 1000 writes, requests
# never queued on this host and the test SKIPs.
. "$(dirname "$0")/lib/lib.sh"

nullb_load queue_mode=2 irqmode=2 completion_nsec=100000 hw_queue_depth=32 \
	submit_queues=1 gb=2

write_merges() { awk '{ print $6 }' /sys/block/nullb0/stat; }
write_ios() { awk '{ print $5 }' /sys/block/nullb0/stat; }

# contention NAME: a counter from split-deadline's debugfs contention file.
contention() {
	awk -v k="$1" '$1 == k { print $2 }' "$DEBUGFS/block/nullb0/sched/contention"
}

declare -A merges
staged=0 drained_merges=0
for rep in 1 2 3 4 5; do
	for s in mq-deadline split-deadline; do
		set_sched nullb0 "$s"
		m0=$(write_merges) i0=$(write_ios)
		fio_run "seq-$s" --filename=/dev/nullb0 --ioengine=io_uring \
			--direct=1 --bs=4k --rw=write --numjobs=16 --iodepth=8 \
			--offset_increment=64m --size=4m
		m=$(( $(write_merges) - m0 ))
		if [ "$s" = split-deadline ]; then
			# Each switch starts a new scheduler: add up per rep.
			staged=$((staged + $(contention dispatch_lock_busy_inserts)))
			drained_merges=$((drained_merges + $(contention drained_merges)))
		fi
		merges[$s]+=" $m"
		note "$s rep $rep: $m write merges, $(( $(write_ios) - i0 )) write requests"
	done
done
mq=$(median "${merges[mq-deadline]}")
sd=$(median "${merges[split-deadline]}")
# The reference must merge at all, or the host never let requests queue.
[ "$mq" -ge 1000 ] ||
	skip "mq-deadline merged only $mq writes (median): requests never queued"
expect_ge "split-deadline write merges (median, >= 95% of $mq)" \
	$(( (mq * 95 + 99) / 100 )) "$sd"
# The staging path ran (16 submitters on 4 vCPUs force it), and requests
# that waited there were still merged when drained: the lock split defers
# merges, it does not lose them.
expect_ge "split-deadline staged inserts (5 reps)" 1 "$staged"
expect_ge "split-deadline requests merged as they were drained" 1 \
	"$drained_merges"
set_sched nullb0 none
echo "PASS"
