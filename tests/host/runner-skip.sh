#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# baseline: the test runner's verdicts on skips
# tests/run against stub VM tests (a stub scripts/vm.sh in a scratch tree):
# a test that skips at run time once and then passes is run again and
# passes, saying so; one that skips at run time twice fails the suite;
# a test whose header skips it by design (vm-skip-flavour) is a skip that
# leaves the suite green.
. "$(dirname "$0")/lib/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/count"
# The stub harness: the test's header says how many runs skip first.
runner_tree "$tmp" <<'EOF'
#!/bin/bash
t=${!#}
n=$(sed -n 's/^# skips: //p' "$t")
c=$(dirname "$0")/../count/$(basename "$t")
echo x >>"$c"
if [ "$(wc -l <"$c")" -le "$n" ]; then
	echo "SKIP: the reference did not show it"
	exit 77
fi
echo PASS
EOF
mk() {
	printf '#!/bin/bash\n# skips: %s\n%s\n' "$2" "${3:-}" >"$tmp/tests/vm/$1.sh"
}

# run_suite: tests/run vm in the scratch tree; its output in OUT, exit in RC.
run_suite() {
	rm -f "$tmp"/count/*
	RC=0
	OUT=$(cd "$tmp" && BLKFAST_CACHE=$tmp/cache tests/run -l "$tmp/logs" vm 2>&1) ||
		RC=$?
}

mk once 1
mk design 0 "# vm-skip-flavour: $(. scripts/config.sh; echo "$BLKFAST_FLAVOUR") not here"
run_suite
[ "$RC" = 0 ] || fail "a test that skips once, then passes: suite exit $RC: $OUT"
out_has "PASS  vm/once" "run again after one run-time SKIP, it passes"
out_has "run again after a run-time SKIP: the reference did not show it" \
	"and says why it ran twice"
out_has "SKIP  vm/design" "a by-design skip is a skip"
out_has "1 passed, 0 failed, 1 skipped" "the closing line"

mk twice 2
run_suite
[ "$RC" != 0 ] || fail "a test that skips twice at run time: suite passed: $OUT"
out_has "FAIL  vm/twice" "a second run-time SKIP fails the test"
out_has "run-time SKIP twice: the reference did not show it" "with why"
out_has "1 passed, 1 failed, 1 skipped" "the closing line"
echo PASS
