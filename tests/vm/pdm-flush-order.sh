#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# 6.12-tier: flushes and FUA through write_cache set by queue_limits features
# vm: -c 1 -t 400
# debug-tier: full an ordering question against dm; pdm's flush path runs in the core under pdm-lockfs, whose ext4 commits journal blocks through it
# A write with REQ_PREFLUSH and data (a jbd2 commit block: PREFLUSH|FUA)
# must reach the lower devices as "flush every device, wait, then write":
# if the FUA data write is issued while the flush is still outstanding,
# the commit block can be stable before the journal blocks the flush was
# meant to make stable, and a power failure leaves a committed transaction
# with garbage in it.  dm (and blk-flush below it) issue the data only once
# the preflush has completed; this checks pdm against dm on the same lower
# devices.
#
# Two memory-backed null_blk devices with a volatile write cache (write
# back, FUA) and 2 ms completions by timer, so that a flush stays
# outstanding long enough to be seen.  On each stacked device: ext4 (with
# its journal), 128 rounds (16 in the debug tier's core) of a 4 KiB append
# and fsync (each a journal commit), with the block layer's own trace
# events on one clock.  The
# check, from the trace alone: every lower write carrying FUA (the commit
# blocks: nothing else in the workload writes FUA) issued while a flush
# request (rwbs FF) is outstanding on either lower device is a write
# ordered wrongly.  dm-striped must give 0 (the reference: it proves the
# check does not see violations that are not there); so must a pdm stripe
# with the same table, a pdm linear table of two segments on the two
# devices, and a single-leg pdm linear table (where the lower device's
# own flush machinery orders the data behind the flush); and the pdm
# stripe again while its table is swapped for an equivalent one and the
# device suspended and resumed under the rounds.  Each run must also show
# the situation: a PREFLUSH+data bio per round at least on the stacked
# device, as many lower FUA writes, and a lower flush per leg per commit.
# Last, a preflush that fails (its lower device is dead) must fail the
# write without its data ever being issued.
. "$(dirname "$0")/lib/lib.sh"

ROUNDS=128
# The debug tier's core runs PREFLUSH+data bios through pdm's two-pass
# path too, under lockdep, KFENCE and kmemleak, in fewer rounds (128 of
# each configuration took 3.5 min there).
[ "$(debug_tier)" = core ] && ROUNDS=16
MB=128				# per lower device
leg=$((MB * 2048))		# sectors

run modprobe null_blk nr_devices=0
for d in fa fb; do
	nullb_cfs $d queue_mode=2 submit_queues=1 size=$MB memory_backed=1 \
		cache_size=32 irqmode=2 completion_nsec=2000000
	expect_eq "$d write cache" "write back" \
		"$(cat /sys/block/$d/queue/write_cache)"
	expect_eq "$d fua" 1 "$(cat /sys/block/$d/queue/fua)"
done
run modprobe ext4
run modprobe pdm
lower=$(cat /sys/block/fa/dev /sys/block/fb/dev | tr : , | tr '\n' ' ')

echo 0 >$TRACEFS/tracing_on
echo global >$TRACEFS/trace_clock
echo 8192 >$TRACEFS/buffer_size_kb
for ev in block_bio_queue block_bio_complete block_rq_issue \
	block_rq_complete; do
	echo 1 >$TRACEFS/events/block/$ev/enable
done

# count_order TOP: from the trace, "commits flushes fua bad": PREFLUSH+data
# bios queued on TOP (major,minor), flush requests issued on the lower
# devices, FUA data writes issued on them, and of those the ones issued
# while a lower flush request was outstanding.
count_order() {
	awk -v top="$1" -v lower="$lower" '
	BEGIN { n = split(lower, l, " "); for (i = 1; i <= n; i++) low[l[i]] = 1 }
	{
		for (i = 1; i <= NF; i++)
			if ($i ~ /^block_(bio_queue|rq_issue|rq_complete):$/)
				break
		if (i > NF)
			next
		ev = $i; dev = $(i + 1); rwbs = $(i + 2); nr = 0
		for (j = i + 3; j < NF; j++)
			if ($j == "+") { nr = $(j + 1); break }
		if (ev == "block_bio_queue:") {
			if (dev == top && rwbs ~ /^FW/ && nr > 0)
				commits++
			next
		}
		if (!(dev in low))
			next
		if (rwbs ~ /^FF/) {
			if (ev == "block_rq_issue:") {
				out++; flushes++
			} else if (out > 0) {
				out--
			}
		} else if (ev == "block_rq_issue:" && rwbs ~ /^W[^ ]*F/ &&
			   nr > 0) {
			fua++
			if (out > 0)
				bad++
		}
	}
	END { print commits + 0, flushes + 0, fua + 0, bad + 0 }' $TRACEFS/trace
}

# rounds: ROUNDS 4 KiB appends to /mnt/f, each followed by fsync.
rounds() {
	local i
	for i in $(seq 0 $((ROUNDS - 1))); do
		dd if=/dev/zero of=/mnt/f bs=4k count=1 seek="$i" \
			conv=notrunc,fsync 2>/dev/null || {
			echo "append+fsync round $i failed"
			return 1
		}
	done
}

# flush_order NAME NODE LEGS [BUSY]: ext4 on NODE (whose LEGS lower
# devices are fa and fb), the rounds traced; stores "commits flushes fua
# bad" in RES[NAME].  With BUSY, the rounds run in the background while
# BUSY PID runs, PID being theirs.
declare -A RES=()
flush_order() {
	local name=$1 node=$2 legs=$3 busy=${4:-} top lost pid rc=0
	top=$(stat -L -c '%t %T' "$node")
	top=$(printf '%d,%d' "0x${top% *}" "0x${top#* }")
	run mke2fs -q -F -t ext4 -E lazy_itable_init=0,lazy_journal_init=0 \
		"$node"
	run mount -t ext4 "$node" /mnt
	echo >$TRACEFS/trace
	echo 1 >$TRACEFS/tracing_on
	if [ -n "$busy" ]; then
		(rounds || exit 1) &
		pid=$!
		"$busy" $pid
		wait $pid || rc=$?
	else
		rounds || rc=$?
	fi
	expect_eq "$name: exit status of the rounds" 0 "$rc"
	echo 0 >$TRACEFS/tracing_on
	run umount /mnt
	lost=$(cat $TRACEFS/per_cpu/cpu*/stats | awk '/^overrun:/ { s += $2 }
		END { print s + 0 }')
	expect_eq "$name: trace events lost" 0 "$lost"
	RES[$name]="$(count_order "$top") $legs"
	# shellcheck disable=SC2086 # the fields, split on purpose
	set -- ${RES[$name]}
	note "$name: $1 PREFLUSH+data bios, $2 lower flushes, $3 lower FUA" \
		"writes, $4 of them issued while a flush was outstanding"
}

run pdmsetup create fs --table \
	"0 $((2 * leg)) striped 2 128 /dev/fa 0 /dev/fb 0" >/dev/null
flush_order pdm-striped /dev/pdm0 2
run pdmsetup remove fs

# The same stripe while the table is swapped, by reload and resume, for
# an equivalent one cut in two segments and back, and the device
# suspended and resumed, for as long as the rounds run: the data of a
# PREFLUSH+data bio keeps the reference its flushes held, so a suspend
# and a swap wait for it, and bios held back meanwhile are still ordered.
# --nolockfs: with ext4 frozen first (the default), nothing would reach
# the device to be held back.
echo "0 $((2 * leg)) striped 2 128 /dev/fa 0 /dev/fb 0" >/tmp/one
cat >/tmp/two <<TABLE
0 $leg striped 2 128 /dev/fa 0 /dev/fb 0
$leg $leg striped 2 128 /dev/fa $((leg / 2)) /dev/fb $((leg / 2))
TABLE
SWAPS=0
# swaps PID: swap tables, suspend and resume while PID runs.
swaps() {
	local t
	while kill -0 "$1" 2>/dev/null; do
		if [ $((SWAPS % 2)) = 0 ]; then t=/tmp/two; else t=/tmp/one; fi
		run pdmsetup reload fs "$t"
		run pdmsetup resume --nolockfs fs
		run pdmsetup suspend --nolockfs fs
		sleep 0.05
		run pdmsetup resume --nolockfs fs
		SWAPS=$((SWAPS + 1))
	done
}
run pdmsetup create fs /tmp/one >/dev/null
deferred0=$(cat /sys/block/pdm0/pdm/deferred)
flush_order pdm-striped-swaps /dev/pdm0 2 swaps
expect_ge "table swaps under the rounds" 4 "$SWAPS"
expect_ge "bios held back while suspended" 1 \
	$(($(cat /sys/block/pdm0/pdm/deferred) - deferred0))
expect_eq "suspended at the end" 0 "$(cat /sys/block/pdm0/pdm/suspended)"
run pdmsetup remove fs

run dmsetup create fsref --table \
	"0 $((2 * leg)) striped 2 128 /dev/fa 0 /dev/fb 0"
flush_order dm-striped /dev/mapper/fsref 2
run dmsetup remove fsref

run pdmsetup create fs <<TABLE >/dev/null
0 $leg linear /dev/fa 0
$leg $leg linear /dev/fb 0
TABLE
flush_order pdm-linear2 /dev/pdm0 2
run pdmsetup remove fs

run pdmsetup create fs --table "0 $leg linear /dev/fa 0" >/dev/null
flush_order pdm-linear1 /dev/pdm0 1
run pdmsetup remove fs

# The reference first: dm must show the situation and no violation, or
# the check means nothing.
for name in dm-striped pdm-striped pdm-striped-swaps pdm-linear2 \
	pdm-linear1; do
	# shellcheck disable=SC2086 # the fields, split on purpose
	set -- ${RES[$name]}
	expect_ge "$name: PREFLUSH+data bios" $ROUNDS "$1"
	expect_ge "$name: lower flushes (one per leg per commit)" \
		$(($1 * $5)) "$2"
	expect_ge "$name: lower FUA writes" "$1" "$3"
	expect_eq "$name: FUA writes issued while a flush was outstanding" \
		0 "$4"
done

# A failed preflush fails the write, and its data is never issued (as
# blk-flush does; 6.1's dm issues the data anyway, so it is no reference
# here).  ext4 lies wholly in the first segment, on fa; the second, on fb,
# only ever gets flushes.  With fb powered off, each flush sent to it
# fails (its disk is dead), so the first commit block after that must
# complete with an error and never reach fa.
run pdmsetup create fs <<TABLE >/dev/null
0 $leg linear /dev/fa 0
$leg $leg linear /dev/fb 0
TABLE
top=$(tr : , </sys/block/pdm0/dev)
run mke2fs -q -F -t ext4 -E lazy_itable_init=0,lazy_journal_init=0 \
	/dev/pdm0 "${MB}M"
run mount -t ext4 /dev/pdm0 /mnt
run dd if=/dev/zero of=/mnt/f bs=4k count=1 conv=fsync 2>/dev/null
echo 0 >/sys/kernel/config/nullb/fb/power
echo >$TRACEFS/trace
echo 1 >$TRACEFS/tracing_on
if dd if=/dev/zero of=/mnt/f bs=4k count=1 seek=1 conv=notrunc,fsync \
	2>/dev/null; then
	fail "append+fsync succeeded with its commit's flush failing"
fi
echo 0 >$TRACEFS/tracing_on
# The first PREFLUSH+data bio on pdm0, its completion status, and the
# lower writes at its sector issued on fa in between.
res=$(awk -v top="$top" -v fa="$(tr : , </sys/block/fa/dev)" '
	{
		for (i = 1; i <= NF; i++)
			if ($i ~ /^block_(bio_queue|bio_complete|rq_issue):$/)
				break
		if (i > NF)
			next
		ev = $i; dev = $(i + 1); rwbs = $(i + 2); sec = -1
		for (j = i + 3; j < NF; j++)
			if ($j == "+") { sec = $(j - 1); break }
		if (ev == "block_bio_queue:" && dev == top && rwbs ~ /^FW/ &&
		    !seen) {
			want = sec; seen = 1; pending = 1
		} else if (ev == "block_bio_complete:" && pending &&
			   dev == top && sec == want) {
			err = $NF; pending = 0
		} else if (ev == "block_rq_issue:" && pending && dev == fa &&
			   rwbs ~ /^W/ && sec == want) {
			issued++
		}
	}
	END { print (seen ? "found" : "none"), err, issued + 0 }' \
	$TRACEFS/trace)
note "first PREFLUSH+data bio after the power-off: $res"
# shellcheck disable=SC2086 # the fields, split on purpose
set -- $res
expect_eq "a PREFLUSH+data bio was sent" found "$1"
expect_eq "its completion status" "[-5]" "$2"
expect_eq "its data writes issued on fa" 0 "$3"
umount /mnt || true
run pdmsetup remove fs
run rmmod pdm
echo "PASS"
