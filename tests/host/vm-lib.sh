#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The script bodies below expand when they run, not here.
# shellcheck disable=SC2016
# The VM tests' shell discipline (tests/vm/lib/lib.sh), checked on the host:
# a script that sources it cannot reach its PASS line past a failed
# command, an arithmetic error on an empty value (which plain bash, even
# with errexit, only aborts the current loop for), an unset variable or a
# failed command substitution; a command allowed to fail (|| true) and a
# count of 0 from grep -c used as a value pass; skip exits 77, and so does
# with_reference when the reference never shows the situation.
. "$(dirname "$0")/lib/lib.sh"

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/lib"
cp tests/vm/lib/*.sh "$dir/lib/"

# expect_script NAME WANT_RC BODY: a guest-style script sourcing lib.sh.
expect_script() {
	local name=$1 want=$2 rc=0 out
	printf '. "$(dirname "$0")/lib/lib.sh"\n%s\necho PASS\n' "$3" \
		>"$dir/$name.sh"
	out=$(bash "$dir/$name.sh" 2>&1) || rc=$?
	[ "$rc" = "$want" ] ||
		fail "$name: expected exit $want, got $rc; output: $out"
	if [ "$want" != 0 ]; then
		case $out in *PASS*) fail "$name: reached PASS: $out" ;; esac
	fi
	echo "ok: $name -> exit $rc"
}

expect_script failed-command 1 'false'
expect_script empty-arithmetic 1 'for i in 1 2; do x=$(( $(echo "") / 4 )); done'
expect_script unset-variable 1 'echo "$no_such_variable"'
expect_script failed-substitution 1 'v=$(false)'
expect_script failed-in-function 1 'f() { false; echo after; }; f'
expect_script allowed-failure 0 'false || true'
expect_script grep-count-zero 0 'n=$(echo x | grep -c y || true); [ "$n" = 0 ]'
expect_script condition 0 'if false; then :; fi; [ 1 = 2 ] && echo no'
expect_script skip 77 'skip "host too slow"'
# with_reference: measured again until the reference shows the situation,
# SKIP after 3 tries that never do.
expect_script reference-late 0 'n=0; m() { n=$((n + 1)); }; c() { [ $n = 2 ]; }
with_reference "never" m c; [ $n = 2 ]'
expect_script reference-never 77 'm() { :; }; c() { false; }
with_reference "never" m c'
