#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm: -c 2
# debug-tier: full zone write locking under load; split-deadline's zone paths (write lock taken, given back on requeue) run in the core under sd-fault
# Zoned sequential writes at QD>1 from several jobs through split-deadline
# (zone write locking) complete without a write error, as with mq-deadline;
# and the zone write lock really holds: block_rq_issue/block_rq_complete
# traced on the device never show two writes in flight to one zone, under
# either scheduler, while each job had 8 writes to give its zone.
# (Requeued zoned writes: sd-fault, which has null_blk's fault injection.)
. "$(dirname "$0")/lib/lib.sh"

nullb_load queue_mode=2 zoned=1 zone_size=16 zone_nr_conv=0 gb=1 memory_backed=1 \
	submit_queues=2
grep -q split-deadline /sys/block/nullb0/queue/scheduler ||
	modprobe split-deadline
IFS=: read -r maj min </sys/block/nullb0/dev
zone_sectors=$((16 * 2048))
echo 0 >$TRACEFS/tracing_on
# 8,192 writes, two events each, at some 80 bytes an event: 3 MiB a CPU
# leaves room.  (More costs the debug kernel's guest too much memory.)
echo 3072 >$TRACEFS/buffer_size_kb
for e in block_rq_issue block_rq_complete; do
	echo "dev == $(( (maj << 20) | min ))" >$TRACEFS/events/block/$e/filter
	echo 1 >$TRACEFS/events/block/$e/enable
done
# 32 MiB per job; 16 in the debug tier's core: one zone (fio wants one at
# least), still 1,024 writes a job.
mib=32
[ "$(debug_tier)" = core ] && mib=16
for s in mq-deadline split-deadline; do
	set_sched nullb0 "$s"
	read -r r0 _ _ _ w0 _ <<<"$(cat /sys/block/nullb0/stat)"
	echo >$TRACEFS/trace
	echo 1 >$TRACEFS/tracing_on
	fio_run "zoned-$s" --filename=/dev/nullb0 --ioengine=io_uring \
		--direct=1 --zonemode=zbd --bs=16k --rw=write --iodepth=8 \
		--numjobs=4 --offset_increment=256m --size=${mib}m \
		--verify=crc32c --do_verify=1 --verify_fatal=1
	expect_eq "$s: write KiB" $((4 * mib * 1024)) "$(fio_field 47)"
	echo 0 >$TRACEFS/tracing_on
	trace_complete "$s"
	# "... block_rq_issue: 259,0 W 16384 () 32768 + 32 [fio]";
	# block_rq_complete has no byte count.
	read -r writes most <<<"$(awk -v zs=$zone_sectors '
		/ block_rq_(issue|complete): / && $0 ~ / W[A-Z]* / {
			for (i = 1; i <= NF; i++) if ($i == "+") break
			z = int($(i - 1) / zs)
			if ($0 ~ /block_rq_issue:/) {
				n++
				if (++fly[z] > most) most = fly[z]
			} else if (fly[z] > 0) {
				fly[z]--
			}
		}
		END { print n + 0, most + 0 }' $TRACEFS/trace)"
	note "$s: $writes writes issued, at most $most in flight to one zone"
	expect_ge "$s: writes traced (half of them)" $((mib * 128)) "$writes"
	expect_eq "$s: most writes in flight to one zone" 1 "$most"
	[ "$s" = split-deadline ] || continue
	# Only writes released a zone lock: fio's verify reads did not count
	# as zone unlocks (each would send idle passes back over the write
	# FIFO).  The stat's writes hold the zone resets too, which take no
	# lock: the unlocks are at most those, and at least the writes traced.
	read -r r1 _ _ _ w1 _ <<<"$(cat /sys/block/nullb0/stat)"
	unlocks=$(awk '$1 == "zone_unlocks" { print $2 }' \
		"$DEBUGFS/block/nullb0/sched/contention")
	expect_ge "$s: verify reads" 1 $((r1 - r0))
	expect_le "$s: zone unlocks (writes, not reads)" $((w1 - w0)) "$unlocks"
	expect_ge "$s: zone unlocks (every write traced)" "$writes" "$unlocks"
done
for e in block_rq_issue block_rq_complete; do
	echo 0 >$TRACEFS/events/block/$e/enable
	echo 0 >$TRACEFS/events/block/$e/filter
done
echo "PASS"
