#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm: -c 1
# debug-tier: full a check of table ranges under the control mutex, unit-tested on the host; every create and reload of the core runs it
# 6.12-tier: the overlap refusal, over lower devices held as 6.12 files
# Two writable pdm devices may not map the same sectors of a disk: two
# block devices over one file system would both mount it, and corrupt it.
# create and reload refuse, with EBUSY and a reason naming the leg, the
# sectors and the other device, a writable table that shares a sector
# with another device's writable table, live or inactive; the refusal
# changes nothing.  Adjacent ranges are fine, a device may overlap its
# own other table, read-only tables may overlap anything, and a device
# created --shared may be overlapped (info, info --json and ls --tree
# show it).  The mutant pdm-overlap-unchecked fails it.
. "$(dirname "$0")/lib/lib.sh"

nullb_load queue_mode=2 nr_devices=2 gb=1
run modprobe pdm

# refused WHAT REASON CMD...: CMD fails with EBUSY and REASON, and the
# devices are as they were.
refused() {
	local what=$1 reason=$2 before
	shift 2
	before=$(pdmsetup ls; pdmsetup info 2>&1)
	expect_fail "$reason" "$@"
	"$@" 2>&1 | grep -q "Device or resource busy" ||
		fail "$what: not refused with EBUSY: $("$@" 2>&1)"
	expect_eq "$what: the devices after the refusal" "$before" \
		"$(pdmsetup ls; pdmsetup info 2>&1)"
}

run pdmsetup create a --table "0 1000 linear /dev/nullb0 0" >/dev/null
refused "one shared sector" \
	"line 1: /dev/nullb0: 1 sectors from sector 999 of nullb0 are writable through a's live table too (create --shared to allow it)" \
	pdmsetup create b --table "0 1000 linear /dev/nullb0 999"
run pdmsetup create b --table "0 1000 linear /dev/nullb0 1000" >/dev/null
refused "a reload onto another's sectors" \
	"line 2: /dev/nullb0: 10 sectors from sector 990 of nullb0 are writable through a's live table too" \
	pdmsetup reload b --table "$(printf '0 10 zero\n10 10 linear /dev/nullb0 990')"
expect_eq "b's inactive table after the refusal" "" \
	"$(pdmsetup table --inactive b)"
# Its own live table is no other device's.
run pdmsetup reload a --table "0 1000 linear /dev/nullb0 0"
run pdmsetup resume a
# An inactive table counts: d's inactive one covers nullb1's 300-399.
run pdmsetup create d --table "0 100 linear /dev/nullb1 100" >/dev/null
run pdmsetup reload d --table "0 100 linear /dev/nullb1 300"
refused "another's inactive table" \
	"50 sectors from sector 350 of nullb1 are writable through d's inactive table too" \
	pdmsetup create e --table "0 100 linear /dev/nullb1 350"
# A stripe's legs count each: its second leg, nullb0's 0-63, meets a.
refused "a stripe's leg" \
	"line 1: /dev/nullb0: 64 sectors from sector 0 of nullb0 are writable through a's live table too" \
	pdmsetup create s --table "0 128 striped 2 8 /dev/nullb1 4000 /dev/nullb0 0"

# Read-only tables overlap anything; a writable one over a read-only
# one's sectors only is fine.
run pdmsetup create ro --readonly --table "0 100 linear /dev/nullb0 0" \
	>/dev/null
run pdmsetup create ro2 --readonly --table "0 100 linear /dev/nullb1 1000" \
	>/dev/null
run pdmsetup create rw2 --table "0 100 linear /dev/nullb1 1050" >/dev/null

# --shared: overlapped by others, and shown.
run pdmsetup create sh --shared --table "0 100 linear /dev/nullb1 2000" \
	>/dev/null
run pdmsetup create over --table "0 100 linear /dev/nullb1 2050" >/dev/null
pdmsetup info sh | grep -q '^Shared: *yes$' ||
	fail "info does not say sh is shared: $(pdmsetup info sh)"
! pdmsetup info over | grep -q '^Shared:' ||
	fail "info says over is shared: $(pdmsetup info over)"
pdmsetup info --json sh | grep -q '"shared": true' ||
	fail "info --json does not say sh is shared: $(pdmsetup info --json sh)"
pdmsetup ls --tree | grep -q '^sh ([0-9]*:[0-9]*) \[shared\]$' ||
	fail "ls --tree does not mark sh: $(pdmsetup ls --tree)"
pdmsetup ls --tree | grep -q '^over ([0-9]*:[0-9]*)$' ||
	fail "ls --tree marks over: $(pdmsetup ls --tree)"

for n in over sh rw2 ro2 ro d b a; do
	run pdmsetup remove $n
done
run rmmod pdm
echo PASS
