#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# debug-tier: full moves whole devices of data (4 min on the debug kernel); its code paths run in the core's pdm tests
# vm: -c 1 -t 300
# 6.12-tier: data laid out exactly as 6.12's dm lays it out
# pdm lays data out on its lower devices exactly as dm does with the same
# table.  Three memory-backed null_blk devices keep what is written to
# them across table changes.  For each table: random data is written
# through pdm (a pattern over the whole device, then O_DIRECT random
# writes of 512 B to 128 KiB, which cross segment and chunk boundaries
# and are cut into clones), pdm's table is removed, dmsetup loads the
# identical table, and the whole device read through dm must have the
# md5 it had through pdm; then the reverse (written through dm, read
# through pdm).  Tables: a three-leg stripe with a different, non-zero
# offset on each leg; a linear table of five segments (one of 3 sectors)
# in no particular order over the devices, one device used twice; and a
# stripe followed by linear segments.  On a mismatch the segments that
# differ are named.
. "$(dirname "$0")/lib/lib.sh"

run modprobe null_blk nr_devices=0
for d in la lb lc; do
	nullb_cfs $d queue_mode=2 submit_queues=1 size=64 memory_backed=1
done
run modprobe pdm

# scribble DEV SEED: a random pattern over all of DEV, then random
# O_DIRECT writes of random sizes over it.
scribble() {
	local sectors
	sectors=$(blockdev --getsz "$1")
	head -c $((sectors * 512)) /dev/urandom >/tmp/pattern
	dd if=/tmp/pattern of="$1" bs=64k oflag=direct conv=notrunc \
		status=none || fail "writing the pattern to $1"
	rm /tmp/pattern
	fio_run "scribble-$2" --filename="$1" --ioengine=psync --direct=1 \
		--rw=randwrite --bsrange=512-128k --number_ios=1500 \
		--randseed="$2" --norandommap
}

# sums DEV TABLE: the md5 of DEV, then of each segment of TABLE on it, a
# line each.  pdm and dm cannot hold the lower devices at once, so the
# two sides are compared from these.
sums() {
	local start len rest
	md5_of "$1"
	while read -r start len rest; do
		echo "$(md5_of "$1" "$start" "$len") $start $len $rest"
	done <"$2"
}

# same WHAT A B: A and B (sums output) must be equal; if not, the segments
# that differ are named.
same() {
	local line
	if [ "$2" = "$3" ]; then
		note "ok: $1 ($(echo "$2" | head -n 1))"
		return
	fi
	echo "$2" | tail -n +2 | while read -r line; do
		echo "$3" | grep -qxF "$line" || note "differs: ${line#* }"
	done
	fail "$1: md5 $(echo "$3" | head -n 1), expected $(echo "$2" |
		head -n 1)"
}

# dmsetup makes the node itself (no udev in the guest).
ref=/dev/mapper/ref

# layout NAME TABLE: the check above for TABLE (a file).
layout() {
	local name=$1 table=$2 via_pdm via_dm pdm
	pdm=$(pdmsetup create lay <"$table") || fail "$name: pdmsetup create"
	scribble "$pdm" 1
	# The writes crossed chunk and segment boundaries: pdm cut them.
	# A bio that fits one range is remapped whole (poll_mode direct)
	# or sent as one clone; a cut one as two or more clones.
	local st=/sys/block/${pdm#/dev/}/pdm
	expect_ge "$name: pdm clones + remapped, more than bios" \
		$(($(cat "$st/bios") + 1)) \
		$(($(cat "$st/clones") + $(cat "$st/remapped")))
	via_pdm=$(sums "$pdm" "$table")
	run pdmsetup remove lay
	run dmsetup create ref "$table"
	via_dm=$(sums "$ref" "$table")
	same "$name: written through pdm, read through dm" "$via_pdm" \
		"$via_dm"

	scribble "$ref" 2
	via_dm=$(sums "$ref" "$table")
	[ "$via_dm" != "$via_pdm" ] ||
		fail "$name: writing through dm changed nothing"
	run dmsetup remove ref
	pdm=$(pdmsetup create lay <"$table") || fail "$name: pdmsetup create"
	via_pdm=$(sums "$pdm" "$table")
	same "$name: written through dm, read through pdm" "$via_dm" \
		"$via_pdm"
	run pdmsetup remove lay
}

# A stripe of 3 x 16 MiB, 32 KiB chunks, each leg at its own offset.
cat >/tmp/striped <<TABLE
0 98304 striped 3 64 /dev/la 2048 /dev/lb 4104 /dev/lc 520
TABLE
layout striped /tmp/striped

# Linear segments in no order over the devices; la holds two.
cat >/tmp/linear <<TABLE
0 20000 linear /dev/lb 1000
20000 12289 linear /dev/la 37
32289 3 linear /dev/lc 20000
32292 30000 linear /dev/la 50000
62292 8000 linear /dev/lc 9
TABLE
layout linear /tmp/linear

# A stripe with small chunks, then linear segments.
cat >/tmp/mixed <<TABLE
0 32768 striped 2 16 /dev/lc 70000 /dev/la 100001
32768 4095 linear /dev/lb 77777
36863 10000 linear /dev/lc 100
TABLE
layout mixed /tmp/mixed

run rmmod pdm
echo "PASS"
