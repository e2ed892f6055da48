# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Assertions: each prints what it expected and what it got; a failure
# ends the test (fail, in lib.sh).
# Sourced by lib.sh, never on its own.

# expect_num WHAT VALUE: VALUE is a whole number.  A measure checks what it
# parsed with this, so that output it could not read fails there, instead
# of making a reference check false (and the test SKIP) or an assertion
# compare against nothing.
expect_num() {
	[[ $2 =~ ^[0-9]+$ ]] || fail "$1: expected a number, got '$2'"
}

# expect_eq WHAT EXPECTED GOT
expect_eq() {
	[ "$2" = "$3" ] || fail "$1: expected '$2', got '$3'"
	note "ok: $1 = $3"
}

# expect_ge WHAT MIN GOT
expect_ge() {
	[ "$3" -ge "$2" ] 2>/dev/null || fail "$1: expected >= $2, got '$3'"
	note "ok: $1 = $3 (>= $2)"
}

# expect_le WHAT MAX GOT
expect_le() {
	[ "$3" -le "$2" ] 2>/dev/null || fail "$1: expected <= $2, got '$3'"
	note "ok: $1 = $3 (<= $2)"
}

# run CMD...: run a command that must succeed.
run() {
	"$@" || fail "'$*' exited with $?"
}

# expect_fail ERRNO_TEXT CMD...: CMD must fail and its stderr must say why.
expect_fail() {
	local want=$1 out
	shift
	if out=$("$@" 2>&1); then
		fail "'$*' succeeded; expected failure '$want'"
	fi
	case $out in
	*"$want"*) note "ok: '$*' failed with '$want'" ;;
	*) fail "'$*': expected error '$want', got '$out'" ;;
	esac
}

# median NUMBERS...: the median (lower middle for an even count).  An
# argument may hold several numbers separated by spaces.
median() {
	printf '%s\n' "$@" | tr -s ' ' '\n' | sort -n |
		awk 'NF { v[++n] = $1 } END { print v[int((n + 1) / 2)] }'
}

# A command stuck in the kernel, uninterruptibly, outlives timeout(1):
# these poll for its end instead, so that the test fails in time.

# wait_read FILE VALUE: wait up to 5 s for FILE to read VALUE; what it
# read last is in READ_VALUE, for the caller's message.
wait_read() {
	for _ in $(seq 100); do
		READ_VALUE=$(cat "$1")
		[ "$READ_VALUE" = "$2" ] && return 0
		sleep 0.05
	done
	return 1
}

# ends_within PID SECS: true if PID ends within SECS seconds, false if it
# still runs then (for a caller that must act before failing); PID is not
# reaped, its status is for the caller's wait.
ends_within() {
	for _ in $(seq $(($2 * 10))); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.1
	done
	! kill -0 "$1" 2>/dev/null
}

# wait_ended PID SECS WHAT: PID ends within SECS seconds, its exit status
# in RC; else the test fails.
wait_ended() {
	ends_within "$1" "$2" || fail "$3: still running after $2 s"
	RC=0
	wait "$1" || RC=$?
}

# returns_within SECS WHAT CMD...: CMD ends by itself within SECS seconds,
# with status 0; its output in /tmp/cmd.out.
returns_within() {
	local secs=$1 what=$2
	shift 2
	"$@" >/tmp/cmd.out 2>&1 &
	wait_ended $! "$secs" "$what"
	[ "$RC" = 0 ] || fail "$what: exit $RC: $(cat /tmp/cmd.out)"
	note "ok: $what returned"
}

# still_running PID WHAT: PID has not ended a second later (it waits).
still_running() {
	sleep 1
	if ! kill -0 "$1" 2>/dev/null; then
		RC=0
		wait "$1" || RC=$?
		fail "$2: ended (exit $RC); it should wait"
	fi
	note "ok: $2 waits"
}
