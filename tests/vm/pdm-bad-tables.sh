#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# 6.12-tier: refusals unwind lower devices opened as files and holder links
# debug-tier: full 6 min on the debug kernel; the parser's error paths run under ASan in the unit tests and the fuzzer, and pdm-fault-ctl runs the kernel's refusals in the core
# vm: -c 1
# What pdm refuses, and that a refusal leaves nothing behind:
# - the malformed-table corpus (tests/pdm-tables/bad/, which scripts/vm.sh
#   carries into the guest as /blkfast/pdm-tables; its EXPECTED gives each
#   file's errno, line and message): each create fails with its errno,
#   "line N: <reason>" from the kernel, no device, no module reference;
#   then the corpus again and again while the kernel's unreclaimable slab
#   stays flat (a leak on the failure path would grow it);
# - 1 MiB tables: exactly PDM_MAX_TABLE bytes is accepted, one byte more is
#   refused (by pdmsetup, before the ioctl);
# - errors that need the lower devices: ENOENT, ENOTBLK, ENXIO, ERANGE, a
#   segment not aligned to 4 KiB blocks (EINVAL), EBUSY (a disk that
#   device-mapper holds: pdm devices share disks, pdm-share), ELOOP (a device
#   under itself, a 2-device cycle, a cycle through an inactive table),
#   ERANGE, EINVAL and EBUSY on a later leg of a reload too (where the
#   legs before it were already linked in sysfs), bad names (any byte
#   outside udev's set for link names), EEXIST,
#   ENXIO for unknown names; after each refusal that
#   opened lower devices, each has no holders/ link and opens exclusively
#   again (device-mapper claims it), pdm's module references and disks are
#   those of the devices that exist; and the kernel's unreclaimable slab
#   stays flat over rounds of these refusals too;
# - the control node: 0600 root (EACCES for a user), and EPERM from the
#   ioctl for a user, even a user namespace's root, when it is 0666.

. "$(dirname "$0")/lib/lib.sh"

declare -A STRERROR=(
	[EINVAL]="Invalid argument"
	[ERANGE]="Numerical result out of range"
	[E2BIG]="Argument list too long"
	[ENAMETOOLONG]="File name too long"
)

refcnt() {
	local n
	read -r n </sys/module/pdm/refcnt
	echo "$n"
}

# No pdm disk in sysfs and no pdm module reference (without forking).
expect_no_pdm_disk() {
	local d
	for d in /sys/block/pdm*; do
		[ -e "$d" ] && fail "$1: $d exists"
	done
	[ "$(refcnt)" = 0 ] || fail "$1: pdm refcnt $(refcnt), expected 0"
}

# Seconds since boot, for the log.
uptime_s() {
	local up rest
	read -r up rest </proc/uptime
	echo "$up"
}

sunreclaim() {
	awk '$1 == "SUnreclaim:" { print $2 }' /proc/meminfo
}

# The least SUnreclaim of 5 readings over a second: RCU callbacks and
# deferred work free in bursts, and a leak stays while they pass.
sunreclaim_settled() {
	local v min=
	for _ in 1 2 3 4 5; do
		v=$(sunreclaim)
		[ -z "$min" ] || [ "$v" -lt "$min" ] && min=$v
		sleep 0.2
	done
	echo "$min"
}

# expect_err WANT CMD...: CMD fails, and its whole output is exactly WANT.
expect_err() {
	local want=$1 out
	shift
	if out=$("$@" 2>&1); then
		fail "'$*' succeeded; expected '$want'"
	fi
	[ "$out" = "$want" ] || fail "'$*': expected '$want', got '$out'"
	note "ok: $want"
}

# ---- the malformed-table corpus ------------------------------------------

# null_blk devices named as in the corpus, so that a table the parser
# wrongly accepted would really create a device.
nullb_load queue_mode=2 nr_devices=2 gb=1 irqmode=0
run modprobe pdm
expect_eq "refcnt after load" 0 "$(refcnt)"
expect_eq "ls" "No devices found" "$(pdmsetup ls)"

dir=$(dirname "$0")/../pdm-tables/bad
[ -f "$dir/EXPECTED" ] || fail "no corpus at $dir"
expect_eq "corpus cases" 55 "$(wc -l <"$dir/EXPECTED")"
expect_eq "31-too-many-segments bytes" 31495 \
	"$(stat -c %s "$dir/31-too-many-segments.table")"
expect_eq "42-long-line bytes" 4123 \
	"$(stat -c %s "$dir/42-long-line.table")"

# Tables of 1 MiB: exactly PDM_MAX_TABLE bytes (one segment, then blank
# lines) is accepted; one more byte is refused by pdmsetup itself, which
# never hands the kernel more than PDM_MAX_TABLE.
{ printf '0 8 linear /dev/nullb0 0\n'; head -c $((1048576 - 25)) /dev/zero |
	tr '\0' '\n'; } >/tmp/max.table
expect_eq "max table bytes" 1048576 "$(stat -c %s /tmp/max.table)"
expect_eq "max table create" /dev/pdm0 "$(pdmsetup create max /tmp/max.table)"
expect_eq "max table sectors" 8 "$(cat /sys/block/pdm0/size)"
run pdmsetup remove max
echo >>/tmp/max.table
expect_err "pdmsetup: /tmp/max.table: table over 1048576 bytes" \
	pdmsetup create big /tmp/max.table
expect_no_pdm_disk "over-size table"
rm -f /tmp/max.table

echo "corpus: each create fails with its errno and line ($(uptime_s) s)"
cases=0
while read -r name err line msg; do
	out=$(pdmsetup create bad "$dir/$name" 2>&1) &&
		fail "$name: create succeeded: $out"
	want="pdmsetup: create bad: ${STRERROR[$err]}: line $line: $msg"
	case $out in
	*$'\n'*) fail "$name: more than one line of output: '$out'" ;;
	"$want"*) ;;
	*) fail "$name: expected '$want...', got '$out'" ;;
	esac
	expect_no_pdm_disk "$name"
	cases=$((cases + 1))
done <"$dir/EXPECTED"
expect_eq "corpus cases refused with errno and line" 55 $cases
expect_eq "ls after the corpus" "No devices found" "$(pdmsetup ls)"
expect_eq "nullb0 holders" "" "$(ls /sys/block/nullb0/holders)"

# ---- leaks on the failure path -------------------------------------------

# A failed create allocates and frees, among others, the pdm_dev (656 bytes,
# kmalloc-1k), the gendisk (kmalloc-1k), the request_queue, the map
# (kmalloc-256), the percpu_ref data (kmalloc-64), the table text and the
# segment array.  SUnreclaim moves in 4 KiB pages, and in bursts of up to
# 40 KiB that are freed again within a second: the least of 5 readings over
# a second is taken.  With the corpus run once above (warm caches), 12
# rounds (648 failed creates) moved it by 0-4 KiB.
# Over 4 rounds (216 creates) a leak of one 64-byte object per create is
# 13.5 KiB: a bound of 8 KiB catches it (an injected kmalloc(64) per failed
# create grew SUnreclaim by 16 KiB).  Growth over the bound is confirmed by
# measuring again, up to twice, before failing, so that noise does not fail
# the test while a leak, which grows with every round, still does (on a
# loaded host one measure grew by 60 KiB and the next by 12, with no leak).
# More rounds would be more sensitive, but each costs 3-10 s under TCG.
ROUNDS=4
BOUND_KB=8

# leak_rounds: run the corpus ROUNDS times; the SUnreclaim growth in kB.
leak_rounds() {
	local r name before after
	before=$(sunreclaim_settled)
	note "before: SUnreclaim $before kB (settled) at $(uptime_s) s"
	for ((r = 1; r <= ROUNDS; r++)); do
		while read -r name _; do
			pdmsetup create bad "$dir/$name" 2>/dev/null &&
				fail "$name: create succeeded in round $r"
		done <"$dir/EXPECTED"
		note "round $r: SUnreclaim $(sunreclaim) kB at $(uptime_s) s"
	done
	after=$(sunreclaim_settled)
	note "after: SUnreclaim $after kB (settled)"
	GROWTH=$((after - before))
}

# leak_check WHAT FUNC: FUNC measures GROWTH; up to 3 measures, passing
# on the first within BOUND_KB.
leak_check() {
	local try
	for try in 1 2 3; do
		"$2"
		[ "$GROWTH" -le $BOUND_KB ] && break
		note "measure $try grew $GROWTH kB: again, to tell a leak from noise"
	done
	expect_le "SUnreclaim growth over $1 (kB)" $BOUND_KB "$GROWTH"
}

leak_check "$((ROUNDS * 55)) failed creates" leak_rounds
expect_no_pdm_disk "after the rounds"
expect_eq "ls after the rounds" "No devices found" "$(pdmsetup ls)"

# ---- errors that need the lower devices ----------------------------------

# After each refusal that got as far as the lower devices, what it opened
# is closed again, as the kernel sees it:
# expect_free WHAT DEV...: DEV has no holders/ link and opens exclusively
# (device-mapper claims it, FMODE_EXCL, for a moment: a claim pdm leaked
# would make that EBUSY).
expect_free() {
	local what=$1 d out
	shift
	for d in "$@"; do
		out=$(ls "/sys/block/$d/holders")
		[ -z "$out" ] || fail "$what: $d still has holders: $out"
		out=$(dmsetup create excl --table "0 8 linear /dev/$d 0" 2>&1) ||
			fail "$what: $d does not open exclusively: $out"
		run dmsetup remove excl
	done
	note "ok: $what: $* free"
}

pdm_disks() {
	local d out=
	for d in /sys/block/pdm*; do
		[ -e "$d" ] && out="$out${out:+ }${d##*/}"
	done
	echo "$out"
}

# expect_pdm WHAT REFCNT DISKS: pdm's module references and its disks
# (e.g. "pdm0 pdm1") are those of the devices that should exist.
expect_pdm() {
	expect_eq "$1: pdm refcnt" "$2" "$(refcnt)"
	expect_eq "$1: pdm disks" "$3" "$(pdm_disks)"
}

echo "lower devices ($(uptime_s) s)"
run modprobe dm-mod
sz=$(cat /sys/block/nullb0/size)
nmaj=$(cut -d: -f1 /sys/block/nullb0/dev)
nullb_cfs nb4k size=64 blocksize=4096
expect_eq "nb4k logical block size" 4096 \
	"$(cat /sys/block/nb4k/queue/logical_block_size)"
expect_free "before" nullb0 nullb1 nb4k
# Held by device-mapper throughout: pdm must get EBUSY on it.
nullb_cfs nbhold size=64
run dmsetup create hold --table "0 8 linear /dev/nbhold 0"

expect_err "pdmsetup: create bad: No such file or directory: line 1: /dev/pdm-none: no such device" \
	pdmsetup create bad --table "0 8 linear /dev/pdm-none 0"
expect_pdm "ENOENT" 0 ""
expect_err "pdmsetup: create bad: Block device required: line 1: /dev/null: not a block device" \
	pdmsetup create bad --table "0 8 linear /dev/null 0"
expect_pdm "ENOTBLK" 0 ""
expect_err "pdmsetup: create bad: No such device or address: line 1: $nmaj:999: no such device" \
	pdmsetup create bad --table "0 8 linear $nmaj:999 0"
expect_pdm "ENXIO" 0 ""
expect_err "pdmsetup: create bad: Numerical result out of range: line 1: /dev/nullb0: needs $((sz + 8)) sectors, has $sz" \
	pdmsetup create bad --table "0 16 linear /dev/nullb0 $((sz - 8))"
expect_free "ERANGE" nullb0
expect_pdm "ERANGE" 0 ""
# The second leg is past the end: the first, already open, is closed again.
expect_err "pdmsetup: create bad: Numerical result out of range: line 1: /dev/nullb1: needs $((sz + 8)) sectors, has $sz" \
	pdmsetup create bad --table "0 32 striped 2 8 /dev/nullb0 0 /dev/nullb1 $((sz - 8))"
expect_free "ERANGE on the second leg" nullb0 nullb1
expect_pdm "ERANGE on the second leg" 0 ""
expect_err "pdmsetup: create bad: Invalid argument: line 1: /dev/nb4k: not aligned to its 4096-byte blocks" \
	pdmsetup create bad --table "0 8 linear /dev/nb4k 1"
expect_free "misaligned offset" nb4k
expect_pdm "misaligned offset" 0 ""
expect_err "pdmsetup: create bad: Invalid argument: line 1: /dev/nb4k: not aligned to its 4096-byte blocks" \
	pdmsetup create bad --table "0 4 linear /dev/nb4k 0"
expect_free "misaligned length" nb4k
expect_pdm "misaligned length" 0 ""
expect_err "pdmsetup: create bad: Invalid argument: line 2: /dev/nb4k: not aligned to its 4096-byte blocks" \
	pdmsetup create bad --table "$(printf '0 4 linear /dev/nullb0 0\n4 8 linear /dev/nb4k 0')"
expect_free "misaligned second segment" nullb0 nb4k
expect_pdm "misaligned second segment" 0 ""
# The limits just inside the ones refused above are accepted.
expect_eq "create at the very end" /dev/pdm0 \
	"$(pdmsetup create a --table "0 8 linear /dev/nullb0 $((sz - 8))")"
expect_eq "create aligned on nb4k" /dev/pdm1 \
	"$(pdmsetup create b --table "0 8 linear /dev/nb4k 8")"
expect_eq "pdm1 logical block size" 4096 \
	"$(cat /sys/block/pdm1/queue/logical_block_size)"
expect_eq "create on nullb1" /dev/pdm2 \
	"$(pdmsetup create c --table "0 8 linear /dev/nullb1 $((sz - 8))")"
expect_pdm "with a, b, c" 3 "pdm0 pdm1 pdm2"
run pdmsetup remove b
run pdmsetup remove c
expect_free "b and c removed" nullb1 nb4k

# EBUSY: dm holds nbhold; a striped table opens nullb1 first, then fails
# on nbhold and must let nullb1 go.
expect_err "pdmsetup: create bad: Device or resource busy: line 1: /dev/nbhold: in use by someone else" \
	pdmsetup create bad --table "0 8 linear /dev/nbhold 0"
expect_pdm "EBUSY" 1 pdm0
expect_err "pdmsetup: create bad: Device or resource busy: line 1: /dev/nbhold: in use by someone else" \
	pdmsetup create bad --table "0 16 striped 2 8 /dev/nullb1 0 /dev/nbhold 0"
expect_free "EBUSY on the second leg" nullb1
expect_pdm "EBUSY on the second leg" 1 pdm0
expect_eq "nullb0 holders: only a" pdm0 "$(ls /sys/block/nullb0/holders)"
expect_eq "nbhold holders: only dm" "dm-" "$(holders_of nbhold | cut -c1-3)"

# The same refusals by a reload of a, a live disk: there a leg that opened
# is linked at once (holders/ and slaves/ links in sysfs), so a later
# leg's failure must unlink it too; a keeps its table and no inactive one.
# expect_a_alone WHAT: a is as it was.
expect_a_alone() {
	expect_eq "$1: a's slaves" nullb0 "$(ls /sys/block/pdm0/slaves)"
	expect_eq "$1: nullb0 holders" pdm0 "$(ls /sys/block/nullb0/holders)"
	expect_eq "$1: a's table" "0 8 linear $(cat /sys/block/nullb0/dev) $((sz - 8))" \
		"$(pdmsetup table a)"
	pdmsetup info a | grep -q '^Tables present: *LIVE$' ||
		fail "$1: a has an inactive table: $(pdmsetup info a)"
	expect_pdm "$1" 1 pdm0
}
expect_err "pdmsetup: reload a: Numerical result out of range: line 1: /dev/nb4k: needs $(( $(cat /sys/block/nb4k/size) + 8)) sectors, has $(cat /sys/block/nb4k/size)" \
	pdmsetup reload a --table "0 32 striped 2 8 /dev/nullb1 0 /dev/nb4k $(( $(cat /sys/block/nb4k/size) - 8))"
expect_free "reload: ERANGE on the second leg" nullb1 nb4k
expect_a_alone "reload: ERANGE on the second leg"
expect_err "pdmsetup: reload a: Invalid argument: line 2: /dev/nb4k: not aligned to its 4096-byte blocks" \
	pdmsetup reload a --table "$(printf '0 4 linear /dev/nullb1 0\n4 8 linear /dev/nb4k 0')"
expect_free "reload: misaligned second segment" nullb1 nb4k
expect_a_alone "reload: misaligned second segment"
# nbhold held by dm: EBUSY after nullb1 was opened and linked.
expect_err "pdmsetup: reload a: Device or resource busy: line 1: /dev/nbhold: in use by someone else" \
	pdmsetup reload a --table "0 16 striped 2 8 /dev/nullb1 0 /dev/nbhold 0"
expect_free "reload: EBUSY on the second leg" nullb1
expect_eq "nbhold holders: only dm" "dm-" "$(holders_of nbhold | cut -c1-3)"
expect_a_alone "reload: EBUSY on the second leg"

# Leaks on these failure paths: each opens and closes lower devices (and
# links and unlinks a holder, in sysfs too for a reload) on top of what a
# parser failure allocates.  The same measure and bound as for the corpus,
# over DEV_ROUNDS rounds of the 9 refusals below after one round to warm
# the caches: 360 refusals (about 6 s), so that a 64-byte object leaked by
# each (a struct bd_holder_disk is one) grows it by 22.5 KiB.  Without a
# leak, 210 refusals moved it by 0-8 KiB.
DEV_ROUNDS=40
DEV_ERRORS=(
	"create|0 16 linear /dev/nullb1 $((sz - 8))"
	"create|0 32 striped 2 8 /dev/nullb1 0 /dev/nb4k 4"
	"create|0 8 linear /dev/nb4k 1"
	"create|$(printf '0 4 linear /dev/nullb1 0\n4 8 linear /dev/nb4k 0')"
	"create|0 8 linear /dev/nbhold 0"
	"create|0 16 striped 2 8 /dev/nullb1 0 /dev/nbhold 0"
	"create|$(printf '0 8 linear /dev/nb4k 0\n8 8 linear /dev/nbhold 0')"
	"reload|0 32 striped 2 8 /dev/nullb1 0 /dev/nb4k 4"
	"reload|$(printf '0 4 linear /dev/nullb1 0\n4 8 linear /dev/nb4k 0')"
)
# dev_leak_rounds [N]: N (DEV_ROUNDS) rounds; the growth in GROWTH.
dev_leak_rounds() {
	local r e cmd before after
	before=$(sunreclaim_settled)
	for ((r = 1; r <= ${1:-$DEV_ROUNDS}; r++)); do
		for e in "${DEV_ERRORS[@]}"; do
			if [ "${e%%|*}" = create ]; then cmd="create bad"; else cmd="reload a"; fi
			# shellcheck disable=SC2086 # two words
			pdmsetup $cmd --table "${e#*|}" 2>/dev/null &&
				fail "'$e': succeeded in round $r"
		done
	done
	after=$(sunreclaim_settled)
	note "device errors: SUnreclaim $before -> $after kB at $(uptime_s) s"
	GROWTH=$((after - before))
}
dev_leak_rounds 1
leak_check "$((DEV_ROUNDS * ${#DEV_ERRORS[@]})) refusals by lower devices" \
	dev_leak_rounds
expect_free "after the device error rounds" nullb1 nb4k
expect_a_alone "after the device error rounds"

# Names.
expect_err "pdmsetup: create a: File exists: a: a device of that name exists" \
	pdmsetup create a --table "0 8 linear /dev/nullb1 0"
# Only the bytes udev keeps in a link's name: "a!b" and "a?b" would both
# be /dev/pdm/a_b.
badname="Invalid argument: bad device name: letters, digits and #+-.:=@_ only"
for n in "" a/b .. 'a!b' 'a b' "a\$b" "$(printf 'a\303\251')"; do
	expect_err "pdmsetup: create${n:+ $n}: $badname" \
		pdmsetup create "$n" --table "0 8 linear /dev/nullb1 0"
done
expect_err "pdmsetup: info a?b: $badname" pdmsetup info 'a?b'
dev=$(pdmsetup create 'x#+-.:=@_Z9' --table "0 8 linear /dev/nullb1 0") ||
	fail "a name of udev's other bytes refused: $dev"
expect_eq "the name with every other byte udev keeps" 'x#+-.:=@_Z9' \
	"$(cat "/sys/block/${dev##*/}/pdm/name")"
run pdmsetup remove 'x#+-.:=@_Z9'
expect_err "pdmsetup: remove zz: No such device or address: zz: no such device" \
	pdmsetup remove zz
expect_err "pdmsetup: info zz: No such device or address: zz: no such device" \
	pdmsetup info zz
expect_eq "ls after name errors" "$(printf 'a\t(%s)' "$(cat /sys/block/pdm0/dev)")" \
	"$(pdmsetup ls)"
expect_pdm "after name errors" 1 pdm0
expect_free "after name errors" nullb1

# ELOOP.  a on itself, by path and by number.
a_dev=$(cat /sys/block/pdm0/dev)
expect_err "pdmsetup: reload a: Too many levels of symbolic links: line 1: /dev/pdm0: a device cannot sit on itself" \
	pdmsetup reload a --table "0 8 linear /dev/pdm0 0"
expect_err "pdmsetup: reload a: Too many levels of symbolic links: line 1: $a_dev: a device cannot sit on itself" \
	pdmsetup reload a --table "0 8 linear $a_dev 0"
pdmsetup info a | grep -q '^Tables present: *LIVE$' ||
	fail "a has an inactive table after a failed reload: $(pdmsetup info a)"
expect_free "ELOOP on itself" pdm0
expect_pdm "ELOOP on itself" 1 pdm0
# A 2-device cycle: b on nullb1, a on b, then b reloaded onto a: b opens
# a, finds the cycle and must close a again.
run pdmsetup remove a
expect_eq "create b" /dev/pdm0 "$(pdmsetup create b --table "0 16 linear /dev/nullb1 0")"
expect_eq "create a on b" /dev/pdm1 "$(pdmsetup create a --table "0 8 linear /dev/pdm0 0")"
expect_err "pdmsetup: reload b: Too many levels of symbolic links: line 1: /dev/pdm1: stacks on pdm0 itself" \
	pdmsetup reload b --table "0 8 linear /dev/pdm1 0"
pdmsetup info b | grep -q '^Tables present: *LIVE$' ||
	fail "b has an inactive table after a failed reload: $(pdmsetup info b)"
expect_free "ELOOP through a" pdm1
# b and a, and b open under a
expect_pdm "ELOOP through a" 3 "pdm0 pdm1"
expect_eq "b's table" "0 16 linear $(cat /sys/block/nullb1/dev) 0" "$(pdmsetup table b)"
# A cycle through an inactive table: c on nullb0 with an inactive table on
# a; then a may not be reloaded onto c, although c's live table is safe.
expect_eq "create c" /dev/pdm2 "$(pdmsetup create c --table "0 8 linear /dev/nullb0 0")"
run pdmsetup reload c --table "0 8 linear /dev/pdm1 0"
expect_err "pdmsetup: reload a: Too many levels of symbolic links: line 1: /dev/pdm2: stacks on pdm1 itself" \
	pdmsetup reload a --table "0 8 linear /dev/pdm2 0"
expect_free "ELOOP through an inactive table" pdm2
# One reference per device, and one per pdm device open below another
# (b under a's live table, a under c's inactive one).
expect_pdm "ELOOP through an inactive table" 5 "pdm0 pdm1 pdm2"
run pdmsetup remove c
run pdmsetup remove a
run pdmsetup remove b
expect_no_pdm_disk "after ELOOP"
expect_free "at the end" nullb0 nullb1 nb4k

# ---- the control node and privileges -------------------------------------

echo "privileges ($(uptime_s) s)"
expect_eq "pdm-control mode and owner" "600 0:0" \
	"$(stat -c '%a %u:%g' /dev/pdm-control)"
mkdir -p /etc
grep -q '^pdmtest:' /etc/passwd 2>/dev/null || {
	echo 'root:x:0:0:root:/root:/bin/sh'
	echo 'pdmtest:x:1000:1000::/tmp:/bin/sh'
} >>/etc/passwd
grep -q '^pdmtest:' /etc/group 2>/dev/null || {
	echo 'root:x:0:'
	echo 'pdmtest:x:1000:'
} >>/etc/group
expect_eq "su drops to uid 1000" 1000 "$(su pdmtest -c 'id -u')"
expect_err "pdmsetup: /dev/pdm-control: Permission denied (pdmsetup needs root)" \
	su pdmtest -c 'pdmsetup ls'
run chmod 666 /dev/pdm-control
eperm="Operation not permitted (pdmsetup needs root: CAP_SYS_ADMIN)"
expect_err "pdmsetup: ls: $eperm" su pdmtest -c 'pdmsetup ls'
expect_err "pdmsetup: create u: $eperm" \
	su pdmtest -c 'pdmsetup create u --table "0 8 linear /dev/nullb0 0"'
# version reports what it can, as root's does, and fails for nothing.
expect_eq "version as a user" "Driver ABI:        unknown (Operation not permitted)" \
	"$(su pdmtest -c 'pdmsetup version' | grep '^Driver ABI')"
# Root of a user namespace has CAP_SYS_ADMIN there, not in the initial one.
expect_eq "userns root" 0 "$(su pdmtest -c 'unshare -r id -u')"
expect_err "pdmsetup: ls: $eperm" su pdmtest -c 'unshare -r pdmsetup ls'
run chmod 600 /dev/pdm-control
expect_no_pdm_disk "after the user's attempts"
expect_eq "root still may" "No devices found" "$(pdmsetup ls)"

run dmsetup remove hold
run rmdir /sys/kernel/config/nullb/nbhold
run rmdir /sys/kernel/config/nullb/nb4k
run rmmod pdm
# Without the module a user is told why, and nothing runs modprobe.
expect_err "pdmsetup: /dev/pdm-control: No such file or directory (pdm.ko is not loaded, and loading it needs root)" \
	su pdmtest -c 'pdmsetup ls'
[ ! -e /sys/module/pdm ] || fail "a user's pdmsetup loaded pdm.ko"
echo "PASS ($(uptime_s) s)"
