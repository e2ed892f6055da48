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
		vm | rt | 6.12 | 6.12-rt) f=tests/vm/$test.sh ;;
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
		# A flavour tier runs only the tests its header key names.
		case $kind in
		rt | 6.12-rt) tag=rt-tier ;;
		6.12) tag=6.12-tier ;;
		*) tag= ;;
		esac
		if [ -n "$tag" ] && [ -f "$f" ] && ! grep -q "^# $tag: " "$f"; then
			echo "FAIL: $name: kills '$t', but $f has no '# $tag:' line"
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

# The record of proofs names only mutants that exist.
if [ -f tests/mutants/proved ]; then
	while read -r name date rev; do
		case $name in '#'* | '') continue ;; esac
		[ -f "tests/mutants/$name.patch" ] || {
			echo "FAIL: tests/mutants/proved: $name ($date, $rev)" \
				"is no mutant"
			fail=1
		}
	done <tests/mutants/proved
fi

# The sample's rotation: never proved first, then least recently proved
# (a scratch record: the first mutant proved after the second), and a
# start further along wraps around.
mapfile -t all < <(for p in tests/mutants/*.patch; do basename "$p" .patch; done)
rec=$(mktemp)
printf '%s 2026-01-02 a\n%s 2026-01-01 b\n' "${all[0]}" "${all[1]}" >"$rec"
mapfile -t got < <(BLKFAST_MUTANT_RECORD=$rec BLKFAST_MUTANT_START=0 \
	scripts/mutants.sh -s 1 -o)
want=("${all[@]:2}" "${all[1]}" "${all[0]}")
if [ "${got[*]}" != "${want[*]}" ]; then
	echo "FAIL: the sample's order from 0 is '${got[*]:0:3} ... ${got[*]: -2}'," \
		"not '${want[*]:0:3} ... ${want[*]: -2}'"
	fail=1
fi
mapfile -t got < <(BLKFAST_MUTANT_RECORD=$rec BLKFAST_MUTANT_START=$((n + 1)) \
	scripts/mutants.sh -s 1 -o)
if [ "${got[0]}" != "${want[1]}" ] || [ "${got[-1]}" != "${want[0]}" ]; then
	echo "FAIL: the sample from place $((n + 2)) starts '${got[0]}' and" \
		"ends '${got[-1]}', not '${want[1]}' ... '${want[0]}'"
	fail=1
fi
rm -f "$rec"
[ $fail = 0 ] || exit 1
echo "PASS: $n mutants apply, each kill naming its failure"
