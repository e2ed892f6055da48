#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# baseline: the test runner's shared boots
# tests/run -j 2 vm against stub VM tests that boot for real (Debian's
# 6.1), three to a boot (BLKFAST_VM_GROUP=3), in a scratch tree: what a
# test leaves (a module with its devices, a mount, a process, a trace
# probe, kernel log lines) is gone before the next test of its boot; a
# splat or a failure is charged to the test that caused it and ends the
# boot, and the tests after it run alone and pass; so do the tests after
# one that leaves the guest changed (/dev/shm unmounted) or that hangs
# (reported as a hang, with the guest's report).
# shellcheck disable=SC2016 # the stubs' expansions are the guest's
. "$(dirname "$0")/lib/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/tests/vm" "$tmp/tests/pdm-tables"
cp -r scripts "$tmp/"
cp tests/run "$tmp/tests/"
cp -r tests/vm/lib "$tmp/tests/vm/"

# stub NAME LINES...: a VM test of one vCPU whose body is LINES.
stub() {
	local name=$1
	shift
	{
		echo '#!/bin/bash'
		echo '# vm: -c 1 -t 30'
		echo '. "$(dirname "$0")/lib/lib.sh"'
		printf '%s\n' "$@"
		echo 'echo PASS'
	} >"$tmp/tests/vm/$name.sh"
}
# A boot of three: what a-leave leaves is gone for b-fresh; c-warn's
# splat is its own.
stub a-leave 'modprobe null_blk nr_devices=3' 'mount -t tmpfs t /mnt' \
	'echo "p:blkfast/grp vfs_read" >>$TRACEFS/kprobe_events' \
	'setsid sleep 1000 &' 'echo "a-leave was here" >/dev/kmsg'
stub b-fresh '[ ! -e /sys/module/null_blk ] || fail "null_blk still loaded"' \
	'! grep -q " /mnt " /proc/mounts || fail "/mnt still mounted"' \
	'[ -z "$(cat $TRACEFS/kprobe_events)" ] || fail "a probe is left"' \
	'for p in /proc/[0-9]*/cmdline; do tr "\\0" " " <$p; echo; done |' \
	'	grep "^sleep 1000" && fail "a-leave'"'"'s sleep still runs"' \
	'! dmesg | grep "a-leave was here" || fail "a-leave'"'"'s kernel log"' \
	'modprobe null_blk nr_devices=1' \
	'[ ! -e /dev/nullb1 ] || fail "null_blk kept its old parameters"'
stub c-warn 'echo "WARNING: CPU: 0 PID: 1 at grp-stub" >/dev/kmsg'
# A boot whose second test leaves what no clean-up restores: the third
# runs alone.
stub d-pass
stub e-shm 'umount /dev/shm'
stub f-after
# A failure is the failing test's, and the rest run alone.
stub g-pass
stub h-fail 'fail "h-fail fails"'
stub i-after
# A hang: the guest's report, and the test after it runs alone.
stub j-hang 'sleep 1000'
stub k-after

RC=0
OUT=$(cd "$tmp" && BLKFAST_VM_GROUP=3 tests/run -j 2 -l "$tmp/logs" vm 2>&1) ||
	RC=$?
[ "$RC" != 0 ] || fail "suite passed with a splat, a failure and a hang: $OUT"
for t in a-leave b-fresh d-pass e-shm g-pass; do
	out_has "PASS  vm/$t" "$t passes"
	echo "$OUT" | grep "^PASS  vm/$t " | grep -q "in a boot of 3" ||
		fail "$t did not share a boot of 3: $OUT"
done
out_has "FAIL  vm/c-warn" "a splat fails the test that made it"
grep -q "kernel splat (script exit code 0)" "$tmp/logs/vm-c-warn.log" ||
	fail "c-warn's log does not say splat: $(cat "$tmp/logs/vm-c-warn.log")"
out_has "FAIL  vm/h-fail" "a failure is the failing test's"
grep -q "^FAIL: h-fail fails" "$tmp/logs/vm-h-fail.log" ||
	fail "h-fail's log lacks its FAIL line"
out_has "FAIL  vm/j-hang" "a hang fails the test that hung"
if ! grep -q "test still running near its limit" "$tmp/logs/vm-j-hang.log" ||
   ! grep -q "@@BLKFAST-HANG@@" "$tmp/logs/vm-j-hang.log"; then
	fail "j-hang's log has no hang report: $(cat "$tmp/logs/vm-j-hang.log")"
fi
for t in f-after i-after k-after; do
	echo "$OUT" | grep "^PASS  vm/$t " |
		grep -q "alone: the boot it shared ended before it" ||
		fail "$t did not run alone after its boot ended: $OUT"
	echo "ok: $t ran alone after its boot ended, and passed"
done
grep -q "the guest is not as before" "$tmp/logs/vm-e-shm.log" ||
	fail "e-shm's log does not say what it left changed"
out_has "8 passed, 3 failed" "the closing line"
echo PASS
