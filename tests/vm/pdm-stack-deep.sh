#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm: -c 2
# debug-tier: full a walk of device lists, no concurrency: the core's reloads (pdm-reload, pdm-fault-ctl) run the same check
# 6.12-tier: the stacking check's walk over lower devices held as 6.12 files
# Five pdm devices stacked on one another, each a table of 1,024 linear
# segments over the one below.  A reload is checked for a table that
# would stack a device on itself (a new device cannot be below anything,
# so create needs no check): the check walks the devices below the new
# table, under the control mutex.  Over every leg instead of every
# distinct device, that walk is 1,024^(depth-1) steps: a reload of the
# top device, with the table it has, would take hours (at four levels,
# 15 s).  It must return within 30 s, and the stack must be the identity
# map it is: data written at the top reads back from null_blk.  Then a reload that would close
# the loop (the bottom device over the top one) is refused with ELOOP and
# changes nothing.
. "$(dirname "$0")/lib/lib.sh"

nullb_load queue_mode=2 nr_devices=1 gb=1 memory_backed=1
run modprobe pdm
seg=2048 n=1024
expect_eq "null_blk's size, sectors" $((seg * n)) \
	"$(cat /sys/block/nullb0/size)"

# table_over DEV: n segments of seg sectors, each at the same offset of DEV.
table_over() {
	awk -v seg=$seg -v n=$n -v dev="$1" 'BEGIN {
		for (i = 0; i < n; i++)
			printf "%d %d linear %s %d\n", i * seg, seg, dev, i * seg
	}'
}

lower=/dev/nullb0
for lvl in 1 2 3 4 5; do
	table_over "$lower" >/tmp/t$lvl
	returns_within 60 "create level $lvl" pdmsetup create "s$lvl" /tmp/t$lvl
	lower=/dev/pdm$((lvl - 1))
done
expect_eq "segments of the top table" $n "$(pdmsetup table s5 | wc -l)"
returns_within 30 "reload of the top device" pdmsetup reload s5 /tmp/t5
run pdmsetup resume s5

run dd if=/dev/urandom of=/tmp/data bs=1M count=1 status=none
run dd if=/tmp/data of=/dev/pdm4 bs=1M seek=100 oflag=direct status=none
expect_eq "data written at the top, read from null_blk" \
	"$(md5sum </tmp/data)" \
	"$(dd if=/dev/nullb0 bs=1M skip=100 count=1 iflag=direct \
		status=none | md5sum)"

table_over /dev/pdm4 >/tmp/loop
RC=0
timeout 60 pdmsetup reload s1 /tmp/loop >/tmp/reload.out 2>&1 || RC=$?
expect_eq "reload that closes the loop: status" 1 "$RC"
expect_eq "reload that closes the loop: error" \
	"pdmsetup: reload s1: Too many levels of symbolic links: line 1: /dev/pdm4: stacks on pdm0 itself" \
	"$(cat /tmp/reload.out)"
expect_eq "s1's inactive table after the refusal" "" \
	"$(pdmsetup table --inactive s1 2>/dev/null)"

for lvl in 5 4 3 2 1; do
	run pdmsetup remove "s$lvl"
done
run rmmod pdm
echo "PASS"
