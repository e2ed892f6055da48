#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# baseline: the VM harness's stall thresholds
# host-alone: its stall thresholds are times, which a second guest beside it would stretch
# The harness's stall thresholds (scripts/vm.sh) tell emulator starvation
# from a real stall: a 25 s loop under rcu_read_lock() (longer than the
# kernel's default 21 s RCU stall timeout, shorter than the harness's) passes,
# and one that outlasts the booted timeout by 15 s fails the run on its RCU
# stall report, with the script itself passing.  That second guest boots
# with a 10 s timeout (appended, so it overrides the harness's): the same
# report, without waiting out the harness's 60 s.
. "$(dirname "$0")/lib/lib.sh"
vm_expect 0 "guest exit 0" "$guest/stall.sh" 25
vm_expect 1 "rcu: INFO: rcu_preempt" -t 240 -a rcupdate.rcu_cpu_stall_timeout=10 \
	"$guest/stall.sh" timeout 15
