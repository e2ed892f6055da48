#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Mutation check: each tests/mutants/NAME.patch breaks the code (or a test
# switch) in one deliberate way, and names the tests that must catch it.
# For each mutant this applies the patch to a scratch copy of the working
# tree (build/mutants/NAME; the tree itself is never touched), builds it
# as `make check` does, runs the named tests there and expects every one of
# them to FAIL.  A mutant that a test lets through ("survived"), or a patch
# that no longer applies, fails the check.
#
#   scripts/mutants.sh [-f FLAVOUR] [NAME...]     (default: every mutant)
#
# A mutant patch is `git diff` output, preceded by header lines that
# `git apply` skips:
#   # mutant: what it breaks, in one line
#   # kills: vm/sd-prio [host/harness-warn ...]
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
cd "$top"
# shellcheck source=scripts/config.sh
. "$here/config.sh"

flavour=$BLKFAST_FLAVOUR
while getopts "f:" opt; do
	case $opt in
	f) flavour=$OPTARG ;;
	*) echo "usage: scripts/mutants.sh [-f FLAVOUR] [NAME...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))

names=("$@")
if [ ${#names[@]} = 0 ]; then
	for p in tests/mutants/*.patch; do
		[ -f "$p" ] && names+=("$(basename "$p" .patch)")
	done
fi
[ ${#names[@]} -gt 0 ] || { echo "mutants: no mutants" >&2; exit 2; }

kdir=$(guest_kdir "$flavour")
killed=0 survived=() broken=()
for name in "${names[@]}"; do
	patch=$top/tests/mutants/$name.patch
	[ -f "$patch" ] || { echo "mutants: no such mutant: $name" >&2; exit 2; }
	kills=$(sed -n 's/^# kills: //p' "$patch" | head -n 1)
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
	for t in $kills; do
		kind=${t%%/*}
		log=$dir/run-${t//\//-}.log
		(cd "$dir" && tests/run -f "$flavour" -k "$t" "$kind") \
			>"$log" 2>&1 || true
		# Only a FAIL kills: a SKIP says nothing about the mutant.
		if grep -q "^FAIL  $t " "$log"; then
			echo "killed    $name: $t failed against the mutant"
			killed=$((killed + 1))
		elif grep -q "^PASS  $t " "$log"; then
			echo "SURVIVED  $name: $t passed against the mutant"
			survived+=("$name:$t")
		else
			broken+=("$name ($t neither passed nor failed: $log)")
		fi
	done
	rm -rf "$dir/tests/modules/"*.ko "$dir/sched/"*.ko "$dir/poll/"*.ko
done

echo "mutants: $killed kills, ${#survived[@]} survived, ${#broken[@]} broken"
for s in "${survived[@]}" "${broken[@]}"; do
	echo "  $s"
done
[ ${#survived[@]} = 0 ] && [ ${#broken[@]} = 0 ]
