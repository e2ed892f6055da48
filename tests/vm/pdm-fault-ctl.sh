#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm: -c 1 -t 1200
# vm-skip-flavour: amd64 needs fail-nth (fault injection), which only the debug kernel has
# vm-skip-flavour: cloud-amd64 needs fail-nth (fault injection), which only the debug kernel has
# vm-skip-flavour: rt-amd64 needs fail-nth (fault injection), which only the debug kernel has
# Every allocation of pdm's control commands failing in turn: create (a
# linear and a striped table), reload, resume with an inactive table, and
# remove.  PDMSETUP_FAIL_NTH=N pdmsetup-fail-nth (pdmsetup built with the
# test-only tests/progs/pdmsetup-fail-nth.c) fails the N-th allocation
# (slab or page) that its ioctl reaches, N = 1, 2, ... until the command runs
# with N beyond its last: pdm's own allocations and the block layer's it
# calls (add_disk, holders, opening the lower devices).  The full debug
# tier fails every one; make check's core fails every 5th (from a
# different first one per command): about 90 of a create's 460, some 50 s
# each on the debug kernel.  After each try:
#  - create and reload must refuse some tries (resume and remove
#    allocate little, and may tolerate every failure);
#  - a command that fails says why (an errno and pdm's reason) and changes
#    nothing: no disk, holder link or reference on a lower device left by
#    a failed create; the live table, no inactive one, after a failed
#    reload; the inactive table still loaded and the live one serving
#    after a failed resume, which a clean resume then applies; the device
#    still there and serving after a failed remove;
#  - a command that succeeds (its failure tolerated inside the kernel)
#    leaves a device that reads;
# and the harness's kmemleak scans and splat check cover the leaks and
# warnings of every failed path.
. "$(dirname "$0")/lib/lib.sh"

run modprobe null_blk nr_devices=3 gb=1
run modprobe pdm
fail_nth_setup
sz=$(cat /sys/block/nullb0/size)
n0=$(cat /sys/block/nullb0/dev) n1=$(cat /sys/block/nullb1/dev)
LIN="0 $sz linear /dev/nullb0 0"
LIN_T="0 $sz linear $n0 0"
STR="0 $((sz * 2)) striped 2 8 /dev/nullb0 0 /dev/nullb1 0"
STR_T="0 $((sz * 2)) striped 2 8 $n0 0 $n1 0"
STRIDE=1
[ "$(debug_tier)" = full ] || STRIDE=5

# A device on nullb2 that stays throughout: the bio slab for pdm's front
# pad then exists before the loops, which so fail pdm's allocations and
# the block layer's, not the creation of a slab cache (6.1's slab
# allocator dumps a stack and leaks the cache's name when that fails).
run pdmsetup create keep --table "0 8 linear /dev/nullb2 0" >/dev/null
KEEP=$(ls /sys/block/nullb2/holders)
read -r REFS </sys/module/null_blk/refcnt

# try_nth N ARGS...: pdmsetup ARGS with its N-th allocation failing
# (pdmsetup-fail-nth arms /proc/thread-self/fail-nth right before the
# command's ioctl and reports "K left" after it).  TRY:
# "ok", or the error it printed, with N; LEFT: the allocations the ioctl
# did not reach (> 0: nothing was injected).  Refusals are tallied by
# message.
declare -A ERRORS=()
try_nth() {
	local n=$1 rc=0 line
	shift
	PDMSETUP_FAIL_NTH=$n pdmsetup-fail-nth "$@" >/dev/null 2>/tmp/try.err ||
		rc=$?
	LEFT='' TRY=''
	while read -r line; do
		case $line in
		"pdmsetup: fail-nth: "*" left") LEFT=${line#pdmsetup: fail-nth: }
			LEFT=${LEFT% left} ;;
		*) [ -n "$TRY" ] || TRY=$line ;;
		esac
	done </tmp/try.err
	[ -n "$LEFT" ] || { cat /tmp/try.err; fail "pdmsetup $*: no fail-nth report"; }
	if [ $rc = 0 ]; then
		TRY="ok (fault $n)"
		return
	fi
	# "pdmsetup: VERB NAME: <strerror>: <reason>": a reason, always.
	case $TRY in
	"pdmsetup: $1 "*": "*": "*) ;;
	*) cat /tmp/try.err; fail "pdmsetup $* (fault $n): exit $rc, '$TRY'" ;;
	esac
	[ "$LEFT" = 0 ] || fail "pdmsetup $*: refused with no fault injected: $TRY"
	local key=${TRY#pdmsetup: }
	ERRORS[$key]=$(( ${ERRORS[$key]:-0} + 1 ))
	TRY="$TRY (fault $n)"
}

# expect_absent: no trace of device c: no disk, no holder links on its
# lower devices, no references on them (shell builtins only: these run
# hundreds of times on a slow kernel).
expect_absent() {
	local d r
	for d in /sys/block/pdm*; do
		[ "${d##*/}" = "$KEEP" ] || fail "${d##*/} is left after: $TRY"
	done
	for d in /sys/block/nullb0/holders/* /sys/block/nullb1/holders/*; do
		[ ! -e "$d" ] || fail "holder link $d left after: $TRY"
	done
	read -r r </sys/module/null_blk/refcnt
	[ "$r" = "$REFS" ] ||
		fail "null_blk references $r, expected $REFS after: $TRY"
}

# expect_serving TABLE [TABLES]: c is active with live TABLE (and no
# inactive one unless TABLES says "LIVE & INACTIVE") and reads.
expect_serving() {
	local got line state='' tables='' node=''
	got=$(pdmsetup table c)
	[ "$got" = "$1" ] || fail "c: table '$got', expected '$1' after: $TRY"
	while read -r line; do
		case $line in
		State:*) state=${line#State: } ;;
		"Tables present:"*) tables=${line#Tables present: } ;;
		"Major, minor:"*) node=${line##* } ;;
		esac
	done <<<"$(pdmsetup info c)"
	state=${state#"${state%%[! ]*}"} tables=${tables#"${tables%%[! ]*}"}
	[ "$state" = ACTIVE ] || fail "c is '$state' after: $TRY"
	[ "$tables" = "${2:-LIVE}" ] ||
		fail "c: tables '$tables', expected '${2:-LIVE}' after: $TRY"
	dd if="/dev/pdm$node" of=/dev/null bs=4k count=4 iflag=direct \
		2>/dev/null || fail "c unreadable after: $TRY"
}

# each_fault WHAT MIN SETUP CHECK_OK CHECK_REFUSED UNDO ARGS...: for N =
# 1, 1 + STRIDE, ...: SETUP, then pdmsetup ARGS with its N-th allocation
# failing, then CHECK_OK and UNDO if it succeeded, else CHECK_REFUSED;
# until a try reaches no fault.  At least MIN tries must be refused (the
# commands that allocate what they need up front); the others may
# tolerate every failure.  With a stride, the first N moves along with
# each command, so that the core tier covers different sites.
FIRST=0
each_fault() {
	local what=$1 min=$2 setup=$3 ok=$4 refused=$5 undo=$6 n tries=0 nref=0
	shift 6
	FIRST=$(( (FIRST + 2) % STRIDE + 1 ))
	for n in $(seq "$FIRST" "$STRIDE" 20000); do
		$setup
		try_nth "$n" "$@"
		tries=$((tries + 1))
		if [ "$TRY" = "ok (fault $n)" ]; then
			$ok
			$undo
			[ "$LEFT" = 0 ] || break
		else
			nref=$((nref + 1))
			$refused
		fi
	done
	[ "$LEFT" != 0 ] || fail "$what: still reaching faults after $n"
	note "$what: $((n - 1)) allocations, every $STRIDE (from $FIRST)" \
		"failed: $tries tries, $nref refused cleanly, the rest tolerated"
	expect_ge "$what: tries refused" "$min" "$nref"
}

nothing() { :; }
create_c() { run pdmsetup create c --table "$LIN" >/dev/null; }
remove_c() { run pdmsetup remove c; }
recreate_c() {
	remove_c
	create_c
}
serving_lin() { expect_serving "$LIN_T"; }
serving_str() { expect_serving "$STR_T"; }
reloaded() { expect_serving "$LIN_T" "LIVE & INACTIVE"; }
reload_c() { run pdmsetup reload c --table "$STR"; }
resume_refused() {
	expect_serving "$LIN_T" "LIVE & INACTIVE"
	run pdmsetup resume c
	expect_serving "$STR_T"
	recreate_c
}

each_fault "create linear" 1 nothing serving_lin expect_absent remove_c \
	create c --table "$LIN"
each_fault "create striped" 1 nothing serving_str expect_absent remove_c \
	create c --table "$STR"
create_c
each_fault "reload" 1 nothing reloaded serving_lin recreate_c \
	reload c --table "$STR"
each_fault "resume" 0 reload_c serving_str resume_refused recreate_c resume c
each_fault "remove" 0 nothing expect_absent serving_lin create_c remove c
remove_c
expect_absent

for k in "${!ERRORS[@]}"; do
	note "refused with '$k': ${ERRORS[$k]} times"
done
run pdmsetup remove keep
run rmmod pdm
echo "PASS"
