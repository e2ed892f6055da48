#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Mutation check: each tests/mutants/NAME.patch breaks the code (or a test
# switch) in one deliberate way, and names the tests that must catch it.
# For each mutant this applies the patch to a scratch copy of the working
# tree (build/mutants/NAME; the tree itself is never touched), builds it
# as `make check` does, runs the named tests there and expects every one of
# them to FAIL, for the reason the mutant names.  A mutant that a test lets
# through ("survived"), one that fails a test for another reason, or a
# patch that no longer applies, fails the check.
#
#   scripts/mutants.sh [-f FLAVOUR] [NAME...]     (default: every mutant)
#   scripts/mutants.sh -s SECONDS
#   scripts/mutants.sh -l PATCH
#
# -s runs a sample (make check's host/mutants-sample): the mutants in
# name order, starting at one chosen by the checked-out commit, for as
# long as SECONDS allows (one at least), so that successive commits
# re-prove every mutant in turn.  It takes only mutants that the default
# flavour's unit, host and VM tests kill (rt and debug killers need their
# own kernels' builds).  BLKFAST_MUTANT_START=N starts at the Nth instead.
# -l prints a patch's kills, "TEST<tab>TEXT" a line (host/mutants-apply).
#
# A mutant patch is `git diff` output, preceded by header lines that
# `git apply` skips:
#   # mutant: what it breaks, in one line
#   # kills: vm/sd-prio: TEXT
#   # kills: unit/pdm-table: TEXT
# One `kills:` line per test that must fail, with the text that its log
# must then hold (a fixed string, from the test's FAIL line): a test that
# fails for another reason (a hang, a build error, a different assertion)
# has not shown that it catches this mutant.  A kill without a text
# (`# kills: vm/a vm/b`) is refused by host/mutants-apply; run here, it
# counts any FAIL, reported as unchecked with the test's first FAIL line:
# the text to name.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
cd "$top"
# shellcheck source=scripts/config.sh
. "$here/config.sh"

flavour=$BLKFAST_FLAVOUR
sample_s='' list=''
while getopts "f:s:l:" opt; do
	case $opt in
	f) flavour=$OPTARG ;;
	s) sample_s=$OPTARG ;;
	l) list=$OPTARG ;;
	*) echo "usage: scripts/mutants.sh [-f FLAVOUR] [NAME...]" \
		"| -s SECONDS | -l PATCH" >&2
	   exit 2 ;;
	esac
done
shift $((OPTIND - 1))

# kill_lines PATCH: "TEST<tab>TEXT" per test the mutant names (TEXT empty
# for the older form).
kill_lines() {
	sed -n 's/^# kills: //p' "$1" | while read -r line; do
		if [[ $line =~ ^([a-z]+/[^[:space:]:]+):[[:space:]]+(.+)$ ]]
		then
			printf '%s\t%s\n' "${BASH_REMATCH[1]}" \
				"${BASH_REMATCH[2]}"
		else
			read -ra tests <<<"$line"
			printf '%s\t\n' "${tests[@]}"
		fi
	done
}

if [ -n "$list" ]; then
	kill_lines "$list"
	exit 0
fi

names=("$@")
if [ ${#names[@]} = 0 ]; then
	for p in tests/mutants/*.patch; do
		[ -f "$p" ] || continue
		name=$(basename "$p" .patch)
		if [ -n "$sample_s" ] &&
		   kill_lines "$p" | cut -f 1 | grep -qv '^\(unit\|host\|vm\)/'
		then
			continue
		fi
		names+=("$name")
	done
fi
[ ${#names[@]} -gt 0 ] || { echo "mutants: no mutants" >&2; exit 2; }

# The sample's order: every mutant, from the commit's choice on.
if [ -n "$sample_s" ]; then
	start=${BLKFAST_MUTANT_START:-}
	if [ -z "$start" ]; then
		head=$(git rev-parse --short=8 HEAD 2>/dev/null || echo 0)
		start=$((16#$head))
	fi
	start=$((start % ${#names[@]}))
	names=("${names[@]:start}" "${names[@]:0:start}")
	echo "mutants: sample of ${sample_s}s from mutant $((start + 1)) of" \
		"${#names[@]}: ${names[0]}"
fi

kdir=$(guest_kdir "$flavour")
killed=0 unchecked=0 ran=0 survived=() broken=()
began=$SECONDS
for name in "${names[@]}"; do
	if [ -n "$sample_s" ] && [ $ran -gt 0 ] &&
	   [ $((SECONDS - began)) -ge "$sample_s" ]; then
		break
	fi
	ran=$((ran + 1))
	patch=$top/tests/mutants/$name.patch
	[ -f "$patch" ] || { echo "mutants: no such mutant: $name" >&2; exit 2; }
	kills=$(kill_lines "$patch")
	what=$(sed -n 's/^# mutant: //p' "$patch" | head -n 1)
	[ -n "$kills" ] || { broken+=("$name (no '# kills:' line)"); continue; }
	echo "=== mutant $name: $what"

	# The working tree as it is (tracked and untracked, not ignored),
	# plus the extracted private headers so they are not made again.
	dir=$top/build/mutants/$name
	rm -rf "$dir"
	mkdir -p "$dir/build"
	git ls-files -z --cached --others --exclude-standard |
		cpio --quiet -0 -pdm "$dir"
	cp -r build/kheaders-* "$dir/build/" 2>/dev/null || true
	# The scratch copy lies inside this repository: without the ceiling
	# git would take the repository's root as the patch's root, and
	# silently skip every path outside build/mutants/NAME.  The reverse
	# check proves that the mutation is really in place.
	if ! (cd "$dir" && export GIT_CEILING_DIRECTORIES=$top/build/mutants &&
	      git apply "$patch" && git apply --check -R "$patch"); then
		broken+=("$name (does not apply)")
		continue
	fi
	if ! (cd "$dir" &&
	      make -s modules KDIR="$kdir" BLKFAST_TESTS=1 >build.log 2>&1 &&
	      make -s tools >>build.log 2>&1); then
		broken+=("$name (does not build: $dir/build.log)")
		continue
	fi
	while IFS=$'\t' read -r t text; do
		kind=${t%%/*}
		log=$dir/run-${t//\//-}.log
		(cd "$dir" && tests/run -f "$flavour" -k "$t" "$kind") \
			>"$log" 2>&1 || true
		# Only a FAIL kills, for the reason named: a SKIP says nothing
		# about the mutant, nor does a failure of another kind.
		if ! grep -q "^FAIL  $t " "$log"; then
			if grep -q "^PASS  $t " "$log"; then
				echo "SURVIVED  $name: $t passed against the mutant"
				survived+=("$name:$t")
			else
				broken+=("$name ($t neither passed nor failed: $log)")
			fi
		elif [ -z "$text" ]; then
			# The first reason the test gave: a text to name.
			why=$(grep -hm1 -E '^(FAIL: |vm\.sh: FAIL: )' \
				"$dir/build/test-logs/$kind-${t#*/}.log" \
				2>/dev/null || true)
			echo "killed    $name: $t failed (unchecked: no text" \
				"named; it said '${why:-?}')"
			killed=$((killed + 1)) unchecked=$((unchecked + 1))
		elif grep -qF -- "$text" "$log" \
			"$dir/build/test-logs/$kind-${t#*/}.log" 2>/dev/null; then
			echo "killed    $name: $t failed with '$text'"
			killed=$((killed + 1))
		else
			echo "SURVIVED  $name: $t failed, but not with '$text'" \
				"($log)"
			survived+=("$name:$t (another failure)")
		fi
	done <<<"$kills"
	rm -rf "$dir/tests/modules/"*.ko "$dir/sched/"*.ko "$dir/poll/"*.ko
done

echo "mutants: $ran run, $killed kills ($unchecked without a text)," \
	"${#survived[@]} survived, ${#broken[@]} broken"
for s in "${survived[@]}" "${broken[@]}"; do
	echo "  $s"
done
[ ${#survived[@]} = 0 ] && [ ${#broken[@]} = 0 ]
