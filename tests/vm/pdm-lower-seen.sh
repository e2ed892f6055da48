#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# 6.12-tier: what the lower disk accounts and traces, with 6.12 bdev_*_io_acct
# vm: -m 1536
# debug-tier: full accounting and tracing, no new memory lifetimes: the core's pdm-iostats runs the same paths
# What the lower disk's own accounting sees of pdm's I/O, in each
# poll_mode, polled and not: in a cgroup, 64 MiB of direct 4k reads
# through pdm count in that cgroup's io.stat for the lower disk, bytes
# and I/Os, as they count for pdm's own disk; and blktrace's remap event
# (block_bio_remap, traced here through tracefs) names every one of them,
# from pdm's device and sector to the lower one's, as dm's does.  A bio
# remapped in place (direct) kept the flag that says its bytes were
# counted, at pdm, so the lower disk's line showed I/Os and no bytes; and
# nothing emitted the remap event in either mode.  The mutant
# pdm-remap-cgroup-counted fails it.
. "$(dirname "$0")/lib/lib.sh"

nullb_load queue_mode=2 nr_devices=1 submit_queues=1 poll_queues=1 \
	irqmode=0 gb=1
run modprobe pdm
sz=$(cat /sys/block/nullb0/size)
run pdmsetup create seen --table "0 $sz linear /dev/nullb0 0" >/dev/null
pdm=pdm0
lower=$(cat /sys/block/nullb0/dev) top=$(cat /sys/block/$pdm/dev)

cg=/sys/fs/cgroup
grep -q " $cg cgroup2 " /proc/mounts || run mount -t cgroup2 none $cg
echo +io >$cg/cgroup.subtree_control ||
	fail "cannot enable the io controller"
mkdir $cg/seen

# io_stat DEV KEY: KEY's value on DEV's line of the cgroup's io.stat (0
# before the cgroup's first I/O there).
io_stat() {
	awk -v d="$1" -v k="$2" '$1 == d {
		for (i = 2; i <= NF; i++) { split($i, kv, "=")
			if (kv[1] == k) print kv[2] } }' $cg/seen/io.stat |
		grep . || echo 0
}

T=$TRACEFS/events/block/block_bio_remap
N=16384
# Room for every event of a run (some 60 bytes each).
echo 8192 >$TRACEFS/buffer_size_kb
for mode in direct tracked; do
	echo $mode >/sys/block/$pdm/pdm/poll_mode
	for hipri in 0 1; do
		what="$mode, hipri=$hipri"
		b0=$(io_stat "$lower" rbytes) i0=$(io_stat "$lower" rios)
		t0=$(io_stat "$top" rbytes)
		echo >$TRACEFS/trace
		echo 1 >$T/enable
		# The reads run in the cgroup: a subshell moves itself in.
		(
			echo "$BASHPID" >$cg/seen/cgroup.procs
			exec fio --name=seen --filename=/dev/$pdm \
				--ioengine=io_uring --direct=1 --bs=4k \
				--rw=randread --iodepth=16 --hipri=$hipri \
				--number_ios=$N --norandommap --randrepeat=0 \
				--output-format=terse --terse-version=3
		) >/tmp/seen.out 2>&1 || { cat /tmp/seen.out; fail "$what: fio"; }
		echo 0 >$T/enable
		expect_eq "$what: pdm's rbytes in io.stat" $((N * 4096)) \
			$(($(io_stat "$top" rbytes) - t0))
		expect_eq "$what: the lower disk's rbytes in io.stat" \
			$((N * 4096)) $(($(io_stat "$lower" rbytes) - b0))
		expect_eq "$what: the lower disk's rios in io.stat" $N \
			$(($(io_stat "$lower" rios) - i0))
		# "259,0 R 1234 + 8 <- (252,0) 1234": lower sector, pdm's.
		expect_eq "$what: remap events from $pdm to nullb0" $N \
			"$(grep -c "block_bio_remap: ${lower/:/,} R .* <- (${top/:/,}) " \
				$TRACEFS/trace || true)"
	done
done
run pdmsetup remove seen
rmdir $cg/seen
echo PASS
