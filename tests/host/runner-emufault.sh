#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# baseline: the test runner's one run again after an emulator fault
# A vCPU stopped at a breakpoint of the kernel's own text patching (an
# Oops on int3, or asm_exc_int3 while another CPU waits in text_poke_bp),
# which multi-threaded TCG causes (QEMU 7.2), is the emulator's, not the
# test's: scripts/config.sh's emulator_fault() tells it from any other
# crash, and tests/run runs the test again, once.  First the classifier
# on kernel logs; then tests/run -j 2 vm against stub VM tests that boot
# for real (Debian's 6.1) and print such an Oops line into the kernel
# log: one that does so only in a shared boot passes alone, with both
# logs kept and the reason on its PASS line; one that does so in every
# boot fails after its second; one whose log holds a WARN in our code
# beside it fails at once, as any splat.
# shellcheck disable=SC2016 # the stubs' expansions are the guest's
. "$(dirname "$0")/lib/lib.sh"
# shellcheck source=scripts/config.sh
. scripts/config.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fault='Oops: int3: 0000 [#1] PREEMPT SMP NOPTI'
why="(a vCPU at a breakpoint of the kernel's own text patching)"
# splats_of LINES...: LINES as a console, grepped as vm.sh greps it.
splats_of() {
	printf '[   34.5] %s\n' "$@" >"$tmp/console"
	grep -anE "$BLKFAST_SPLAT_RE" "$tmp/console" >"$tmp/splats"
}
splats_of "$fault" 'Call Trace:' ' asm_exc_int3+0x35/0x40'
got=$(emulator_fault "$tmp/splats" "$tmp/console") ||
	fail "an int3 Oops is not an emulator fault"
[ "$got" = "[   34.5] $fault $why" ] || fail "emulator_fault printed '$got'"
# vm/sd-zoned's stall (stop 61): a CPU at int3, another patching.
splats_of 'rcu: INFO: rcu_preempt self-detected stall on CPU' \
	' asm_exc_int3+0x35/0x40' ' text_poke_bp+0x4b/0x70' \
	'Kernel panic - not syncing: RCU Stall'
emulator_fault "$tmp/splats" "$tmp/console" >/dev/null ||
	fail "a stall at int3 while text_poke_bp waits is not an emulator fault"
for other in 'WARNING: CPU: 0 PID: 1 at arch/x86/kernel/traps.c:1120 exc_debug_kernel+0xca/0x160' \
	'watchdog: BUG: soft lockup - CPU#1 stuck for 67s! [bash:1]' \
	'BUG: kernel NULL pointer dereference, address: 0000000000000000'; do
	# Beside text_poke_bp alone (a CPU of ours spinning while the
	# kernel patches) it is a splat, not the emulator's.
	splats_of "$other" 'Call Trace:' ' text_poke_bp+0x4b/0x70'
	! emulator_fault "$tmp/splats" "$tmp/console" >/dev/null ||
		fail "'$other' taken for an emulator fault"
done
for ours in 'WARNING: CPU: 0 PID: 1 at poll/pdm-core.c:1 x+0x1/0x2' \
	'WARNING: CPU: 0 PID: 1 at mm/slub.c:1 y+0x1/0x2 [pdm]'; do
	splats_of "$fault" 'Call Trace:' "$ours"
	! emulator_fault "$tmp/splats" "$tmp/console" >/dev/null ||
		fail "'$ours' beside the fault taken for an emulator fault"
done
echo "ok: emulator_fault() takes a vCPU at a patching breakpoint, nothing else, nothing of ours"

mkdir -p "$tmp/tree/tests/vm" "$tmp/tree/tests/pdm-tables"
cp -r scripts "$tmp/tree/"
cp tests/run "$tmp/tree/tests/"
cp -r tests/vm/lib "$tmp/tree/tests/vm/"

# stub NAME HEADER LINES...: a VM test of one vCPU with HEADER as an extra
# header line (or none) and LINES as its body.
stub() {
	local name=$1 header=$2
	shift 2
	{
		echo '#!/bin/bash'
		echo '# vm: -c 1 -t 30'
		[ -z "$header" ] || echo "$header"
		echo '. "$(dirname "$0")/lib/lib.sh"'
		printf '%s\n' "$@"
		echo 'echo PASS'
	} >"$tmp/tree/tests/vm/$name.sh"
}
emit="echo '$fault' >/dev/kmsg"
# A boot of three whose second test meets the fault (only while it
# shares a boot): it runs again alone and passes, as does the third.
stub a-pass ''
# (scripts/guest-group.sh has each test as PATH:LIMIT on its command line.)
stub b-emu-shared '' \
	"! tr '\\0' ' ' </proc/\$PPID/cmdline | grep -q \"\$0:\" || $emit"
stub c-after ''
# The fault, then the guest dies under the test (only while it shares a
# boot): vm-split.sh finds the fault from the test's start to the
# console's end, and the test runs again alone and passes; the tests
# after it in that boot run alone too.
stub c1-emu-dies '' \
	"! tr '\\0' ' ' </proc/\$PPID/cmdline | grep -q \"\$0:\" ||
	{ $emit; echo c >/proc/sysrq-trigger; }"
# Alone, with the fault in both of its boots.
stub d-emu-always '# vm-own-boot: meets the fault in every boot' "$emit"
# The fault beside a WARN of ours: a splat, failed at once.
stub e-mixed '' "$emit" \
	"echo 'WARNING: CPU: 0 PID: 1 at poll/pdm-core.c:1 x+0x1/0x2' >/dev/kmsg"
stub f-after ''

RC=0
OUT=$(cd "$tmp/tree" && BLKFAST_VM_GROUP=3 tests/run -j 2 -l "$tmp/logs" vm 2>&1) ||
	RC=$?
[ "$RC" != 0 ] || fail "suite passed with a fault in every boot: $OUT"
logs=$tmp/logs
line=$(echo "$OUT" | grep '^PASS  vm/b-emu-shared ') ||
	fail "b-emu-shared did not pass alone: $OUT"
case $line in
*"alone: an emulator fault in the boot it shared"*"run again after an emulator fault: [ "*"] $fault $why; log $logs/vm-b-emu-shared.log.emufault"*) ;;
*) fail "b-emu-shared's PASS line does not say why it ran again: $line" ;;
esac
grep -q "^vm.sh: FAIL: emulator fault (script exit code 0): " \
	"$logs/vm-b-emu-shared.log.emufault" ||
	fail "b-emu-shared's first log lacks the fault"
! grep -q "emulator fault" "$logs/vm-b-emu-shared.log" ||
	fail "b-emu-shared's second log has a fault"
echo "ok: a fault in a shared boot: the test ran again alone and passed"
for t in a-pass c-after f-after; do
	out_has "PASS  vm/$t" "$t passes"
done
line=$(echo "$OUT" | grep '^PASS  vm/c1-emu-dies ') ||
	fail "c1-emu-dies did not pass alone: $OUT"
case $line in
*"alone: an emulator fault in the boot it shared"*"run again after an emulator fault"*) ;;
*) fail "c1-emu-dies's PASS line does not say why it ran again: $line" ;;
esac
grep -q "^vm.sh: FAIL: emulator fault (script exit code none): " \
	"$logs/vm-c1-emu-dies.log.emufault" ||
	fail "c1-emu-dies's first log lacks the fault"
echo "ok: a fault, then the guest dead under the test: it ran again alone and passed"

line=$(echo "$OUT" | grep '^FAIL  vm/d-emu-always ') ||
	fail "d-emu-always did not fail: $OUT"
case $line in
*"run again after an emulator fault"*) ;;
*) fail "d-emu-always's FAIL line does not say it ran again: $line" ;;
esac
for l in "$logs/vm-d-emu-always.log" "$logs/vm-d-emu-always.log.emufault"; do
	grep -q "^vm.sh: FAIL: emulator fault (script exit code 0): " "$l" ||
		fail "$l lacks the fault: $(cat "$l")"
done
echo "ok: a fault in two boots of a lone test fails it, after one run again"

out_has "FAIL  vm/e-mixed" "the fault beside another splat fails"
grep -q "^vm.sh: FAIL: kernel splat (script exit code 0)" \
	"$logs/vm-e-mixed.log" || fail "e-mixed's log does not say splat"
[ ! -e "$logs/vm-e-mixed.log.emufault" ] ||
	fail "e-mixed ran again after another splat"
echo "$OUT" | grep '^FAIL  vm/e-mixed ' | grep -vq "run again" ||
	fail "e-mixed's FAIL line says it ran again"
echo "ok: the fault beside another splat: failed at once"
out_has "5 passed, 2 failed" "the closing line"
out_has "run again after a run-time SKIP or an emulator fault: 3" \
	"the count of tests run again"
echo PASS
