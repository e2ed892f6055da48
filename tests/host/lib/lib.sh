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
# stdin, the stub scripts/vm.sh, which runs one test: tests/run boots
# each test alone there (host/runner-group tests shared boots).
runner_tree() {
	export BLKFAST_VM_GROUP=1
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

# runner_stub_builds DIR: stub the tiers' preparation in runner_tree DIR:
# scripts/deps.sh and scripts/debug-kernel.sh do nothing, and
# scripts/flavour-modules.sh leaves an empty build log, so that every
# tier named is ready at once.
runner_stub_builds() {
	printf '#!/bin/bash\nexit 0\n' >"$1/scripts/deps.sh"
	printf '#!/bin/bash\nexit 0\n' >"$1/scripts/debug-kernel.sh"
	# shellcheck disable=SC2016 # the stub's own $1
	printf '%s\n' '#!/bin/bash' \
		'mkdir -p "build/flavour-$1" && : >"build/flavour-$1/build.log"' \
		>"$1/scripts/flavour-modules.sh"
	chmod +x "$1"/scripts/deps.sh "$1"/scripts/debug-kernel.sh \
		"$1"/scripts/flavour-modules.sh
}

# out_has TEXT WHAT: $OUT (a test's captured output) contains TEXT;
# out_hasnt TEXT WHAT: it does not.
out_has() {
	case $OUT in
	*"$1"*) echo "ok: $2" ;;
	*) fail "$2: expected '$1' in: $OUT" ;;
	esac
}
out_hasnt() {
	case $OUT in
	*"$1"*) fail "$2: unexpected '$1' in: $OUT" ;;
	*) echo "ok: $2" ;;
	esac
}
