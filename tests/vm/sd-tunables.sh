#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# 6.12-tier: sysfs and debugfs of the elevator built without zone locking
# debug-tier: full reads and writes sysfs knobs, no concurrency or teardown (1.5 min on the debug kernel)
# vm: -c 1
# Every split-deadline tunable has mq-deadline's default, round-trips the
# same values with the same clamping, and refuses garbage with EINVAL.
. "$(dirname "$0")/lib/lib.sh"

nullb_load queue_mode=2 nr_devices=2 gb=1
set_sched nullb0 mq-deadline
set_sched nullb1 split-deadline
mq=/sys/block/nullb0/queue/iosched
sd=/sys/block/nullb1/queue/iosched

# names DIR: the files in DIR, on one line.
names() {
	local f

	for f in "$1"/*; do
		printf '%s ' "${f##*/}"
	done
}

expect_eq "tunables" "$(names $mq)" "$(names $sd)"
for f in "$mq"/*; do
	t=${f##*/}
	expect_eq "default $t" "$(cat "$mq/$t")" "$(cat "$sd/$t")"
	for v in 0 1 2 7 100 4000 -1 -2147483648 2147483647 2147483648 0x10; do
		a=0 b=0
		echo "$v" >"$mq/$t" 2>/dev/null || a=1
		echo "$v" >"$sd/$t" 2>/dev/null || b=1
		[ "$a" = "$b" ] || fail "$t=$v: mq-deadline write status $a, split-deadline $b"
		[ "$(cat "$mq/$t")" = "$(cat "$sd/$t")" ] ||
			fail "$t=$v: mq-deadline reads back '$(cat "$mq/$t")', split-deadline '$(cat "$sd/$t")'"
	done
	for junk in abc 12x " " 1.5 -; do
		out=$(printf '%s' "$junk" 2>&1 >"$sd/$t") && fail "$t: '$junk' accepted"
		case $out in
		*"Invalid argument"*) ;;
		*) fail "$t: '$junk': expected 'Invalid argument', got '$out'" ;;
		esac
	done
	note "ok: $t matches mq-deadline on 11 values, rejects 5 kinds of junk"
done
echo "PASS"
