# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Helpers for host-side tests of the harness.
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/../../.." || exit 1
# shellcheck disable=SC2034 # for the tests that source this file
guest=tests/vm/harness

fail() {
	echo "FAIL: $*"
	exit 1
}

# runner_tree DIR: a scratch tree in DIR for tests/run against stub VM
# tests: tests/run, scripts/config.sh, an empty tests/vm/ and, from
# stdin, the stub scripts/vm.sh.
runner_tree() {
	mkdir -p "$1/tests/vm" "$1/scripts" || fail "cannot create $1"
	cp tests/run "$1/tests/run"
	cp scripts/config.sh "$1/scripts/"
	cat >"$1/scripts/vm.sh"
	chmod +x "$1/scripts/vm.sh"
}

# vm_expect WANT_RC WANT_TEXT VM-ARGS...: run scripts/vm.sh, check its exit
# code and that its output contains WANT_TEXT.
vm_expect() {
	local want_rc=$1 want_text=$2 out rc
	shift 2
	out=$(scripts/vm.sh "$@" 2>&1)
	rc=$?
	[ "$rc" = "$want_rc" ] ||
		fail "vm.sh $*: expected exit $want_rc, got $rc; output: $out"
	case $out in
	*"$want_text"*) echo "ok: vm.sh $* -> exit $rc, '$want_text'" ;;
	*) fail "vm.sh $*: expected '$want_text' in output, got: $out" ;;
	esac
}
