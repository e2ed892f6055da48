#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# baseline: the test runner's deadline
# tests/run against stub VM tests (a stub scripts/vm.sh in a scratch tree)
# under BLKFAST_DEADLINE: each test's VM limit is cut to what is left of
# the deadline, less the runner's slack; a test that would start with too
# little left fails at once without running, and the suite still ends
# with its summary.
. "$(dirname "$0")/lib/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The stub harness says what limit it was given, and records that it ran.
runner_tree "$tmp" <<'EOF'
#!/bin/bash
echo "limit=${BLKFAST_VM_LIMIT_S:-none}"
echo ran >>"$(dirname "$0")/../ran"
echo PASS
EOF
printf '#!/bin/bash\n' >"$tmp/tests/vm/a.sh"
printf '#!/bin/bash\n' >"$tmp/tests/vm/b.sh"

# run_suite DEADLINE: tests/run vm in the scratch tree; output in OUT,
# exit in RC.
run_suite() {
	rm -f "$tmp/ran"
	RC=0
	# Not the limit that this test's own runner may have set.
	OUT=$(cd "$tmp" && env -u BLKFAST_VM_LIMIT_S BLKFAST_DEADLINE="$1" \
		BLKFAST_CACHE="$tmp/cache" tests/run -l "$tmp/logs" vm 2>&1) ||
		RC=$?
}

now=$(date +%s)
run_suite $((now + 1000))
[ "$RC" = 0 ] || fail "1000 s left: suite exit $RC: $OUT"
limit=$(sed -n 's/^limit=//p' "$tmp/logs/vm-a.log")
# 1000 s less the slack (30 s), less the seconds this run took to start.
case $limit in
'' | none | *[!0-9]*) fail "1000 s left: the guest's limit was '$limit'" ;;
esac
if [ "$limit" -gt 970 ] || [ "$limit" -lt 900 ]; then
	fail "1000 s left: the guest's limit was $limit s, not 900-970"
fi
echo "ok: with 1000 s left, a guest's limit is $limit s"

run_suite $((now + 60))
[ "$RC" != 0 ] || fail "60 s left: the suite passed: $OUT"
[ ! -e "$tmp/ran" ] || fail "60 s left: a test ran ($(wc -l <"$tmp/ran") runs)"
case $OUT in
*"FAIL  vm/a"*"not run: the suite's deadline"*"FAIL  vm/b"*"0 passed, 2 failed"*)
	echo "ok: with 60 s left, both tests fail unrun, with a summary" ;;
*) fail "60 s left: expected both tests failed unrun, got: $OUT" ;;
esac

run_suite ''
[ "$RC" = 0 ] || fail "no deadline: suite exit $RC: $OUT"
expect_limit=$(sed -n 's/^limit=//p' "$tmp/logs/vm-a.log")
[ "$expect_limit" = none ] ||
	fail "no deadline: the guest's limit was cut to '$expect_limit'"
echo "ok: without a deadline, no limit is imposed"
echo PASS
