#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# baseline: the VM harness's exit-code protocol
# host-pool: its guests hang on purpose and are waited out, the host mostly idle
# The harness passes the guest script's exit code through, and fails a run
# whose guest crashed or hung, with the hung guest's own report of its
# tasks' stacks; it boots the guest a script's "# vm:"
# header asks for, with the command line's options after the header's.
. "$(dirname "$0")/lib/lib.sh"
vm_expect 0 "guest exit 0" "$guest/exit.sh" 0
vm_expect 3 "guest exit 3" "$guest/exit.sh" 3
vm_expect 1 "never reported an exit code" "$guest/exit.sh" crash
vm_expect 1 "still running after 20s" -t 20 "$guest/exit.sh" hang
# Before the host kills it, a hung guest reports its blocked tasks and
# stacks itself (scripts/guest-init.sh), and the host shows the report;
# tests/run's deadline (BLKFAST_VM_LIMIT_S) cuts the default limit.
out=$(BLKFAST_VM_LIMIT_S=20 scripts/vm.sh "$guest/exit.sh" hang 2>&1) &&
	fail "a hung guest under a 20 s cut: vm.sh passed: $out"
for want in "limit 300s cut to 20s by the suite's deadline" \
	"still running after 20s" "the guest's hang report"; do
	case $out in
	*"$want"*) echo "ok: a hung guest under a 20 s cut: '$want'" ;;
	*) fail "a hung guest under a 20 s cut: no '$want' in: $out" ;;
	esac
done
vm_expect 0 "header: 2 vCPUs, blkfast.from=header blkfast.from=cmdline" \
	-a blkfast.from=cmdline "$guest/header.sh"
