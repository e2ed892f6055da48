#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every deliberate bug in tests/mutants/ still applies, exactly (no fuzz),
# to the tree as it is: a mutant whose context drifted is silently no
# longer a check, and `make mutants` is too slow to run in CI.  Each
# patch must also name what it breaks and the tests that must catch it
# (scripts/mutants.sh says how), every test it names must exist, and each
# kill must name the text of the failure it expects.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
fail=0
n=0
for p in tests/mutants/*.patch; do
	[ -f "$p" ] || continue
	n=$((n + 1))
	name=$(basename "$p" .patch)
	grep -q '^# mutant: ' "$p" || { echo "FAIL: $name: no '# mutant:' line"; fail=1; }
	kills=$(scripts/mutants.sh -l "$p")
	[ -n "$kills" ] || { echo "FAIL: $name: no '# kills:' line"; fail=1; }
	while IFS=$'\t' read -r t text; do
		[ -n "$t" ] || continue
		if [ -z "$text" ]; then
			echo "FAIL: $name: kills '$t' without naming the failure" \
				"(# kills: $t: TEXT; scripts/mutants.sh $name says" \
				"what the test failed with)"
			fail=1
		fi
		kind=${t%%/*} test=${t#*/}
		case $kind in
		vm | rt) f=tests/vm/$test.sh ;;
		debug) f=tests/vm/$test.sh
			[ -f "$f" ] || f=tests/debug/$test.sh ;;
		host) f=tests/host/$test.sh ;;
		unit) f=tests/unit/$test.c ;;
		*) f= ;;
		esac
		if [ -z "$f" ] || [ ! -f "$f" ]; then
			echo "FAIL: $name: kills '$t', which is no test"
			fail=1
		fi
	done <<<"$kills"
	if ! out=$(git apply --check "$p" 2>&1); then
		echo "FAIL: $name no longer applies:"
		echo "    ${out//$'\n'/$'\n'    }"
		fail=1
	fi
done
[ $n -gt 0 ] || { echo "FAIL: no mutants"; exit 1; }
[ $fail = 0 ] || exit 1
echo "PASS: $n mutants apply, each kill naming its failure"
