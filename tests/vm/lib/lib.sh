# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers for the guest side of the VM tests; sourced by each test.  Every
# check prints what it expected and what it got, and a failure ends the test.
#
# Any failed command, unset variable or bad expansion ends the test too, so
# that a script can reach its PASS line only by running every step:
#  - errexit with an ERR trap (inherited by functions and subshells) names
#    the command that failed; a command that may fail says so (|| true);
#  - POSIX mode, because without it bash aborts only the current command
#    on an arithmetic or expansion error (a loop over an empty value
#    silently stops) and carries on to PASS.  POSIX mode exits instead.
# pipefail is left off: `cmd | grep -q` would fail whenever grep exits early.
set -o posix
set -eEu
trap 'fail "line $LINENO: \"$BASH_COMMAND\" exited with $?"' ERR
# What a test (or a helper it calls) exits with for SKIP: the runner reports
# it as skipped, with the last "SKIP: why" line as the reason.
SKIP_RC=77
TRACEFS=/sys/kernel/tracing
# shellcheck disable=SC2034 # for the tests that source this file
DEBUGFS=/sys/kernel/debug

fail() {
	echo "FAIL: $*"
	exit 1
}

# skip WHY: end the test as skipped (never PASS) because this boot could not
# create the situation the test needs; the runner prints WHY.
skip() {
	echo "SKIP: $*"
	exit "$SKIP_RC"
}

# with_reference WHY MEASURE CHECK [ARGS...]: run "MEASURE ARGS", then
# "CHECK ARGS", which says whether the kernel's own reference (mq-deadline,
# dm) showed the situation the test needs in this boot; at most 3 times,
# then the test SKIPs with WHY.  A busy host can keep the situation from
# arising; it must never make a test fail or pass.
with_reference() {
	local why=$1 measure=$2 check=$3 try
	shift 3
	for try in 1 2 3; do
		"$measure" "$@"
		"$check" "$@" && return 0
		note "try $try: the reference did not show the situation"
	done
	skip "$why (3 tries; host too slow)"
}

note() {
	echo "  $*"
}

# on_debug_kernel: true in a guest of the debug tier (tests/run puts
# blkfast.debug_tier= on its command line).
on_debug_kernel() {
	grep -q blkfast.debug_tier= /proc/cmdline
}

# on_rt_kernel: true on a PREEMPT_RT kernel (the rt tier).
on_rt_kernel() {
	[ "$(cat /sys/kernel/realtime 2>/dev/null)" = 1 ]
}

# kernel_line: the Debian kernel line the guest runs, "6.1" or "6.12"
# (the 6.12 tier boots 6.12, every other tier 6.1).
kernel_line() {
	case $(uname -r) in
	6.12.*) echo 6.12 ;;
	*) echo 6.1 ;;
	esac
}

# cmdline_value KEY DEFAULT: the value of KEY=VALUE on the guest's kernel
# command line (what tests/run and scripts/vm.sh put there), else DEFAULT.
cmdline_value() {
	local w
	for w in $(</proc/cmdline); do
		case $w in "$1"=*) echo "${w#*=}"; return ;; esac
	done
	echo "$2"
}

# debug_tier: "core" when make check's core of the debug tier boots this
# guest (tests/run puts blkfast.debug_tier= on its command line), else
# "full".
debug_tier() {
	cmdline_value blkfast.debug_tier full
}

# The helpers, by concern; every test gets them all.
# shellcheck source=tests/vm/lib/assert.sh
. "${BASH_SOURCE[0]%/*}/assert.sh"
# shellcheck source=tests/vm/lib/fio.sh
. "${BASH_SOURCE[0]%/*}/fio.sh"
# shellcheck source=tests/vm/lib/probe.sh
. "${BASH_SOURCE[0]%/*}/probe.sh"
# shellcheck source=tests/vm/lib/dev.sh
. "${BASH_SOURCE[0]%/*}/dev.sh"
# shellcheck source=tests/vm/lib/sched.sh
. "${BASH_SOURCE[0]%/*}/sched.sh"
# shellcheck source=tests/vm/lib/exact.sh
. "${BASH_SOURCE[0]%/*}/exact.sh"
