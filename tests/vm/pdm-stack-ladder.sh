#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm: -c 2
# debug-tier: full a walk of device lists, no concurrency: the core's reloads (pdm-reload, pdm-fault-ctl) run the same check
# 6.12-tier: the stacking check's walk over lower devices held as 6.12 files
# A ladder of read-only pdm devices, two a level, 16 levels high: each
# device maps half its sectors to each device of the level below, and
# carries an inactive table that does the same.  One lower device may sit
# under several pdm devices, so the stack check that guards every reload
# (a table may not stack a device on itself, nor reach deeper than 16
# levels) meets each device below a new table by 4 paths a level: a walk
# along every path takes 4^(levels-1) steps under the control mutex, for
# the top 4^15.  Walking each device once, every reload must return
# within 5 s.  Then the ladder is as high as it may be: a table that
# would put a 17th level under a 16-level stack is refused with ELOOP,
# and so is one that would close a loop (the bottom over the top); neither
# changes anything.  The mutant pdm-stack-walk-every-path fails it.
. "$(dirname "$0")/lib/lib.sh"

nullb_load queue_mode=2 nr_devices=2 gb=1
run modprobe pdm
half=2048

# rung LEVEL: the table of either device of LEVEL, over those of LEVEL-1.
rung() {
	local a b
	if [ "$1" = 1 ]; then
		a=/dev/nullb0 b=/dev/nullb1
	else
		a=/dev/pdm$((2 * ($1 - 2))) b=/dev/pdm$((2 * ($1 - 2) + 1))
	fi
	printf '0 %s linear %s 0\n%s %s linear %s 0\n' $half "$a" $half $half "$b"
}

for lvl in $(seq 16); do
	rung "$lvl" >/tmp/rung
	for side in a b; do
		returns_within 5 "create level $lvl$side" \
			pdmsetup create "l$lvl$side" --readonly /tmp/rung
		returns_within 5 "reload of level $lvl$side" \
			pdmsetup reload "l$lvl$side" --readonly /tmp/rung
	done
done
rung 16 >/tmp/rung
returns_within 5 "reload of the top" pdmsetup reload l16b --readonly /tmp/rung

# refused WHAT NAME TABLE-FILE: a reload of NAME is refused with ELOOP
# within 5 s, and NAME's inactive table stays what it was.
refused() {
	local before RC=0
	before=$(pdmsetup table --inactive "$2")
	timeout 5 pdmsetup reload "$2" --readonly "$3" >/tmp/refused.out 2>&1 ||
		RC=$?
	expect_eq "$1: status" 1 "$RC"
	grep -q "Too many levels of symbolic links" /tmp/refused.out ||
		fail "$1: not refused with ELOOP: $(cat /tmp/refused.out)"
	expect_eq "$1: $2's inactive table" "$before" \
		"$(pdmsetup table --inactive "$2")"
}
printf '0 %s linear /dev/pdm31 0\n' $((2 * half)) >/tmp/loop
refused "a loop, the bottom over the top" l1a /tmp/loop
# Create checks nothing (nothing can be below a new device); a reload
# checks its whole stack: 16 pdm levels and null_blk below a 17th are
# 17 levels, one more 18.
printf '0 %s linear /dev/pdm31 0\n' $((2 * half)) >/tmp/l17
returns_within 5 "create level 17" pdmsetup create l17 --readonly /tmp/l17
returns_within 5 "reload of level 17" pdmsetup reload l17 --readonly /tmp/l17
printf '0 %s linear /dev/pdm32 0\n' $((2 * half)) >/tmp/l18
returns_within 5 "create level 18" pdmsetup create l18 --readonly /tmp/l18
refused "a stack deeper than 16 levels" l18 /tmp/l18

for name in l18 l17; do
	run pdmsetup remove $name
done
for lvl in $(seq 16 -1 1); do
	run pdmsetup remove "l${lvl}b"
	run pdmsetup remove "l${lvl}a"
done
run rmmod pdm
echo PASS
