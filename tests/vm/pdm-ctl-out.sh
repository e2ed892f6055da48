#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# debug-tier: full output sizing, no concurrency; the control path's allocation and error paths run in the core under pdm-fault-ctl
# 6.12-tier: the control device's output sizing, on the 6.12 build of its ioctls
# The control device's output protocol (LIST, TABLE, STATUS), with data
# areas of exactly chosen sizes (tests/progs/pdm-ctl-out.c): a buffer just
# too small or far too small comes back with PDM_F_BUFFER_FULL and the
# whole output's length in data_len, nothing written; one exactly full
# gets every byte, its last included; one over 4 MiB works as any other;
# the driver never writes past data_len; a list entry holds its own name
# and zeros after it, never the bytes of a longer name before it.
. "$(dirname "$0")/lib/lib.sh"

nullb_load queue_mode=2 nr_devices=2 gb=1
run modprobe pdm
long=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
run pdmsetup create "$long" --table "0 64 linear /dev/nullb0 0"
# Three segments, so that the table and status texts are a few lines.
run pdmsetup create b <<TABLE
0 8 linear /dev/nullb1 0
8 16 linear /dev/nullb1 800
24 8 linear /dev/nullb1 64
TABLE
big=$((5 << 20))

# out CMD NAME ROOM: the driver's answer line; the data goes to out.dat.
out() {
	pdm-ctl-out "$@" 2>out.info >out.dat || fail "pdm-ctl-out $*: $(cat out.info)"
	cat out.info
}

entry=264	# sizeof(struct pdm_list_entry), ABI 3
need=$((2 * entry))
expect_eq "list, no room" "full=1 len=$need reach=0" "$(out list x 0)"
expect_eq "list, a byte short" "full=1 len=$need reach=0" \
	"$(out list x $((need - 1)))"
expect_eq "list, exactly full" "full=0 len=$need reach=$need" \
	"$(out list x $need)"
expect_eq "list entries" "$(printf '%s %s clean\n%s b clean' \
	"$(cat /sys/block/pdm0/dev)" "$long" "$(cat /sys/block/pdm1/dev)")" \
	"$(cat out.dat)"
expect_eq "list, a 5 MiB buffer" "full=0 len=$need reach=$need" \
	"$(out list x $big)"
expect_eq "list entries (5 MiB buffer)" 2 "$(grep -c ' clean$' out.dat)"

# check_text CMD TEXTFILE: CMD's output for b against the text pdmsetup got.
check_text() {
	local cmd=$1 want=$2 len
	len=$(wc -c <"$want")
	expect_ge "$cmd: text length" 20 "$len"
	expect_eq "$cmd, a byte short" "full=1 len=$len reach=0" \
		"$(out "$cmd" b $((len - 1)))"
	expect_eq "$cmd, one byte" "full=1 len=$len reach=0" \
		"$(out "$cmd" b 1)"
	expect_eq "$cmd, exactly full" "full=0 len=$len reach=$len" \
		"$(out "$cmd" b "$len")"
	cmp "$want" out.dat || fail "$cmd, exactly full: text differs:" \
		"$(od -c out.dat | tail -n 3)"
	expect_eq "$cmd, a 5 MiB buffer" "full=0 len=$len reach=$len" \
		"$(out "$cmd" b $big)"
	cmp "$want" out.dat || fail "$cmd, 5 MiB buffer: text differs"
}
pdmsetup table b >table.txt
expect_eq "table lines" 3 "$(wc -l <table.txt)"
check_text table table.txt
# The driver's status text ends with the polling line, which pdmsetup
# shows in info, not in status.
{ pdmsetup status b; pdmsetup info b | sed -n 's/^Polling: *\(.*\)/poll \1/p'; } \
	>status.txt
expect_eq "status lines" 4 "$(wc -l <status.txt)"
expect_eq "status: polling line" "poll on" "$(tail -n 1 status.txt)"
check_text status status.txt
expect_eq "no inactive table" "full=0 len=0 reach=0" "$(out inactive b 64)"
run pdmsetup reload b --table "0 32 linear /dev/nullb1 0"
pdmsetup table --inactive b >inactive.txt
check_text inactive inactive.txt

expect_fail "no such device" pdm-ctl-out table nosuch 64
run pdmsetup remove b
run pdmsetup remove "$long"
run rmmod pdm
echo PASS
