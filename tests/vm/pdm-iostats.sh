#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# 6.12-tier: bio-based accounting counts sectors at the end there
# debug-tier: full counting arithmetic (2.2 min on the debug kernel); the accounting calls run with every I/O of the core's pdm tests, EAGAIN requeues (pdm-again) and held bios (pdm-suspend) included
# vm: -c 2
# pdm's I/O statistics (/sys/block/pdmN/stat, and iostat's totals)
# against what fio did: in tracked and direct mode, polled and by
# interrupt, reads and writes count each top bio once with its sectors;
# a flush (fsync) counts as a flush; a discard counts as the lower
# device's discards do; the time fields that iostat -x reads (read
# ticks, io_ticks, time in queue, r_await) hold the lower device's time
# for the same slow reads; no merges; nothing in flight at idle, even after
# queue/iostats was switched off and on under I/O; and with iostats off
# nothing is counted.
. "$(dirname "$0")/lib/lib.sh"

# nullb0 polls and keeps no data (a memory-backed null_blk allocates its
# pages in ->poll, under io_uring's RCU read lock); nbc keeps data, with
# a write cache (so that flushes reach pdm) and discard, for pdm1.
nullb_load queue_mode=2 nr_devices=1 submit_queues=1 poll_queues=1 \
	irqmode=0 gb=1
nullb_cfs nbc queue_mode=2 size=64 memory_backed=1 discard=1 cache_size=16
# nbt completes each request from a timer 50 ms after it came.
nullb_cfs nbt queue_mode=2 size=64 irqmode=2 completion_nsec=50000000
run modprobe pdm
sz=$(cat /sys/block/nullb0/size)
run pdmsetup create st --table "0 $sz linear /dev/nullb0 0" >/dev/null
run pdmsetup create wc --table "0 $(cat /sys/block/nbc/size) linear /dev/nbc 0" \
	>/dev/null
Q=/sys/block/pdm0/queue
expect_eq "iostats on by default" 1 "$(cat $Q/iostats)"

# block_stat DEV: the 17 fields of /sys/block/DEV/stat (6.1): 1 reads,
# 2 read merges, 3 read sectors, 5 writes, 6 write merges, 7 write
# sectors, 9 in flight, 12 discards, 13 discard merges, 14 discard
# sectors, 16 flushes.
block_stat() {
	cat "/sys/block/$1/stat"
}
# iostat_col FLAG DEV COLUMN: DEV's COLUMN of `iostat -d FLAG DEV` (since
# boot), as an admin reads it.
iostat_col() {
	iostat -d "$1" "$2" | awk -v d="$2" -v c="$3" '
		$1 == "Device" { for (i = 1; i <= NF; i++) if ($i == c) k = i }
		$1 == d && k { print $k }'
}
# delta BEFORE AFTER FIELD
delta() {
	local a b
	a=$(echo "$1" | awk -v f="$3" '{ print $f }')
	b=$(echo "$2" | awk -v f="$3" '{ print $f }')
	echo $((b - a))
}
# expect_counts WHAT BEFORE AFTER FIELD=N...: each FIELD moved by N; the
# merges stay 0 and nothing is left in flight (on D, pdm0 or pdm1).
D=pdm0
expect_counts() {
	local what=$1 before=$2 after=$3 kv f
	shift 3
	for kv in "$@"; do
		expect_eq "$what: field ${kv%%=*}" "${kv#*=}" \
			"$(delta "$before" "$after" "${kv%%=*}")"
	done
	for f in 2 6 13; do
		expect_eq "$what: merges (field $f)" 0 \
			"$(echo "$after" | awk -v f=$f '{ print $f }')"
	done
	expect_eq "$what: in flight" 0 "$(echo "$after" | awk '{ print $9 }')"
	expect_eq "$what: inflight file" "0 0" \
		"$(awk '{ print $1, $2 }' "/sys/block/$D/inflight")"
}

N=1000
for mode in tracked direct; do
	echo $mode >/sys/block/pdm0/pdm/poll_mode
	for hipri in 1 0; do
		w="$mode hipri=$hipri"
		b=$(block_stat pdm0)
		fio_run r --filename=/dev/pdm0 --ioengine=io_uring --direct=1 \
			--hipri=$hipri --bs=4k --rw=randread --iodepth=16 \
			--number_ios=$N
		expect_eq "$w: fio reads" $N "$(fio_ios 4096)"
		expect_counts "$w: reads" "$b" "$(block_stat pdm0)" \
			1=$N 3=$((N * 8)) 5=0 7=0 12=0 16=0
		b=$(block_stat pdm0)
		fio_run w --filename=/dev/pdm0 --ioengine=io_uring --direct=1 \
			--hipri=$hipri --bs=8k --rw=randwrite --iodepth=16 \
			--number_ios=$((N / 2))
		expect_counts "$w: writes" "$b" "$(block_stat pdm0)" \
			1=0 5=$((N / 2)) 7=$((N * 8)) 12=0 16=0
	done
done

# A flush per fsync (the lower device has a write cache, so each reaches
# pdm): 200 writes of 4 KiB, an fsync after each but the last (fio ends
# the job before it); the lower device counts the same flushes.
expect_eq "write cache" "write back" \
	"$(cat /sys/block/pdm1/queue/write_cache)"
D=pdm1
b=$(block_stat pdm1) lb=$(block_stat nbc)
fio_run f --filename=/dev/pdm1 --ioengine=psync --direct=1 --bs=4k \
	--rw=write --number_ios=200 --fsync=1
after=$(block_stat pdm1)
expect_counts "fsync" "$b" "$after" 1=0 5=200 7=1600 \
	16="$(delta "$lb" "$(block_stat nbc)" 16)"
expect_ge "flushes" 199 "$(delta "$b" "$after" 16)"

# Discards: the same count and sectors as the lower device's.
b=$(block_stat pdm1) lb=$(block_stat nbc)
# --force: no signature probe, whose reads would count.
run blkdiscard -f -o 0 -l $((4 << 20)) /dev/pdm1
after=$(block_stat pdm1)
expect_counts "discard" "$b" "$after" 14=8192 \
	12="$(delta "$lb" "$(block_stat nbc)" 12)" 1=0 5=0
expect_ge "discards" 1 "$(delta "$b" "$after" 12)"

# Time: 20 reads of 50 ms each, one at a time, through pdm2 to nbt.
# Fields 4 (read ticks), 10 (io_ticks, %util's) and 11 (time in queue,
# aqu-sz's), in ms, against nbt's own for the same requests: pdm's
# interval of each read holds nbt's, and pdm counts in jiffies
# (bio-based accounting, as dm's), so at least nbt's less a jiffy a read
# (4 ms at HZ=250: 90 % here), and not much more.
run pdmsetup create slow --table "0 $(cat /sys/block/nbt/size) linear /dev/nbt 0" \
	>/dev/null
D=pdm2
b=$(block_stat pdm2) lb=$(block_stat nbt)
fio_run t --filename=/dev/pdm2 --ioengine=psync --direct=1 --bs=4k \
	--rw=randread --number_ios=20
after=$(block_stat pdm2) lafter=$(block_stat nbt)
expect_counts "slow reads" "$b" "$after" 1=20 3=160 5=0 12=0
expect_ge "nbt's read ticks for 20 reads of 50 ms" 1000 \
	"$(delta "$lb" "$lafter" 4)"
for f in 4 10 11; do
	p=$(delta "$b" "$after" $f) l=$(delta "$lb" "$lafter" $f)
	if [ "$p" -lt $((l * 9 / 10)) ] || [ "$p" -gt $((l * 3 / 2 + 100)) ]
	then
		fail "time field $f: pdm2 $p ms, nbt $l ms (want 90-150 %)"
	fi
	note "ok: time field $f: pdm2 $p ms, nbt $l ms"
done
# iostat -x's r_await (ms per read since boot), which these make.
pa=$(iostat_col -x pdm2 r_await) la=$(iostat_col -x nbt r_await)
pa=${pa:-0} la=${la:-0}
if [ "${la%.*}" -lt 50 ] || [ "${pa%.*}" -lt $((${la%.*} * 9 / 10)) ]; then
	fail "iostat -x r_await: pdm2 '$pa' ms, nbt '$la' ms"
fi
note "ok: iostat -x r_await: pdm2 $pa ms, nbt $la ms"
run pdmsetup remove slow

# What iostat (sysstat) shows, as an admin would read it: the totals of
# the runs above, in KiB, from fio's sizes (pdm0, reads: 4 runs of N
# 4 KiB; writes: 4 runs of N/2 8 KiB; pdm1: 200 writes of 4 KiB and a
# discard of 4 MiB).
# iostat_total DEV COLUMN: DEV's COLUMN of `iostat -d -k DEV`, since boot.
iostat_total() {
	iostat_col -k "$1" "$2"
}
expect_eq "iostat pdm0 kB_read" $((4 * N * 4)) "$(iostat_total pdm0 kB_read)"
expect_eq "iostat pdm0 kB_wrtn" $((4 * N * 8 / 2)) \
	"$(iostat_total pdm0 kB_wrtn)"
expect_eq "iostat pdm1 kB_wrtn" $((200 * 4)) "$(iostat_total pdm1 kB_wrtn)"
expect_eq "iostat pdm1 kB_dscd" 4096 "$(iostat_total pdm1 kB_dscd)"
run pdmsetup remove wc
D=pdm0

# Off: nothing counted.  Off and on under I/O: nothing left in flight.
echo 0 >$Q/iostats
b=$(block_stat pdm0)
fio_run off --filename=/dev/pdm0 --ioengine=io_uring --direct=1 --hipri=1 \
	--bs=4k --rw=randread --iodepth=16 --number_ios=$N
expect_eq "iostats off: nothing counted" "$b" "$(block_stat pdm0)"
fio --name=flip --filename=/dev/pdm0 --ioengine=io_uring --direct=1 \
	--bs=4k --rw=randrw --iodepth=32 --time_based --runtime=4 \
	>/tmp/flip.out 2>&1 &
pid=$!
while kill -0 $pid 2>/dev/null; do
	echo 1 >$Q/iostats
	sleep 0.05
	echo 0 >$Q/iostats
	sleep 0.05
done
wait $pid || { cat /tmp/flip.out; fail "fio flip failed"; }
echo 1 >$Q/iostats
expect_counts "iostats flipped under I/O" "$b" "$(block_stat pdm0)"
run pdmsetup remove st
run rmmod pdm
echo "PASS"
