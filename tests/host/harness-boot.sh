#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# baseline: the VM harness's second boot after a boot that hangs
# host-pool: its guests hang on purpose and are waited out, the host mostly idle
# A boot that never reaches its test (the guest's start marker) within
# BLKFAST_BOOT_S, or ends before it, is taken for a hang or a crash of the
# kernel's own boot, before any module of ours: scripts/vm.sh says so,
# shows each vCPU's registers for a hang and boots once more, and the
# run's verdict is the second boot's; the log keeps both consoles.  With
# too little of the suite's deadline left, it fails at once instead.  The
# failures are the test-only BLKFAST_TEST_BOOT_HANG=hang|crash
# (scripts/guest-init.sh sleeps, or crashes the kernel, before the
# marker in the first boot).
. "$(dirname "$0")/lib/lib.sh"

log=$(mktemp)
trap 'rm -f "$log"' EXIT

# expect_out NAME OUT WANT...: every WANT in OUT.
expect_out() {
	local name=$1 out=$2 want
	shift 2
	for want in "$@"; do
		case $out in
		*"$want"*) echo "ok: $name: '$want'" ;;
		*) fail "$name: no '$want' in: $out" ;;
		esac
	done
}

out=$(BLKFAST_TEST_BOOT_HANG=hang BLKFAST_BOOT_S=30 \
	scripts/vm.sh -l "$log" "$guest/exit.sh" 3 2>&1)
rc=$?
[ $rc = 3 ] || fail "a first boot that hangs: expected exit 3, got $rc: $out"
expect_out "a first boot that hangs" "$out" \
	"boot 1 never reached the test in 30s" "CPU#0" "booting again" \
	"guest exit 3"
grep -q '@@BLKFAST-BOOT1-END@@' "$log" ||
	fail "a first boot that hangs: the log lacks boot 1's console"
[ "$(grep -c '@@BLKFAST-START@@' "$log")" = 1 ] ||
	fail "a first boot that hangs: expected one start marker in the log"
echo "ok: the log holds both boots' consoles, one start"

# A first boot whose kernel crashes before the test: booted again, and
# its splat is not the run's.
out=$(BLKFAST_TEST_BOOT_HANG=crash scripts/vm.sh "$guest/exit.sh" 0 2>&1)
rc=$?
[ $rc = 0 ] || fail "a first boot that crashes: expected exit 0, got $rc: $out"
expect_out "a first boot that crashes" "$out" \
	"boot 1 ended before the test" "booting again" "guest exit 0"

# The suite's deadline leaves no time for a second boot.
out=$(BLKFAST_TEST_BOOT_HANG=hang BLKFAST_BOOT_S=20 BLKFAST_VM_LIMIT_S=30 \
	scripts/vm.sh "$guest/exit.sh" 0 2>&1)
rc=$?
[ $rc = 1 ] || fail "a hung boot near the deadline: expected exit 1, got $rc: $out"
expect_out "a hung boot near the deadline" "$out" \
	"boot 1 never reached the test in 20s" "too little to boot again"
case $out in
*"booting again"*) fail "a hung boot near the deadline booted again: $out" ;;
esac
