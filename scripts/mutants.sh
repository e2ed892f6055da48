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
#   scripts/mutants.sh -s SECONDS [-o]
#   scripts/mutants.sh -l PATCH
#
# Every mutant that all its tests kill, each for the reason named, is
# recorded in tests/mutants/proved ("NAME DATE COMMIT", the commit it was
# proved on, "+" if the tree had changes): commit that file with the work
# that proved them.
#
# -s runs a sample (make check's host/mutants-sample): a rotation, least
# recently proved first (never proved before all), for as long as SECONDS
# allows (one at least).  Successive commits start further along it, by
# the commits made since tests/mutants/proved last changed, so that a run
# of commits proves mutant after mutant even before the record is
# updated; BLKFAST_MUTANT_START=N starts at the Nth instead.  Mutants
# killed in the rt or debug tiers are taken too, when their kernel is
# already here (the debug kernel takes long to build: a fresh machine
# builds it in the debug tier, after the sample), else passed over, saying
# so.
# -o with -s prints the sample's order, a name a line, and runs nothing
# (host/mutants-apply).
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
sample_s='' list='' order=''
while getopts "f:s:l:o" opt; do
	case $opt in
	f) flavour=$OPTARG ;;
	s) sample_s=$OPTARG ;;
	l) list=$OPTARG ;;
	o) order=1 ;;
	*) echo "usage: scripts/mutants.sh [-f FLAVOUR] [NAME...]" \
		"| -s SECONDS [-o] | -l PATCH" >&2
	   exit 2 ;;
	esac
done
shift $((OPTIND - 1))

# kill_lines PATCH: "TEST<tab>TEXT" per test the mutant names (TEXT empty
# for the older form).
kill_lines() {
	sed -n 's/^# kills: //p' "$1" | while read -r line; do
		if [[ $line =~ ^([a-z0-9.-]+/[^[:space:]:]+):[[:space:]]+(.+)$ ]]
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

record=${BLKFAST_MUTANT_RECORD:-$top/tests/mutants/proved}

# proved_on NAME: the date NAME was last proved ("" if never).
proved_on() {
	[ -f "$record" ] || return 0
	awk -v n="$1" '$1 == n { print $2 }' "$record"
}

# record_proof NAME: NAME was proved now, on this tree.
record_proof() {
	local rev tmp
	rev=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
	git diff --quiet HEAD 2>/dev/null || rev=$rev+
	tmp=$(mktemp)
	{
		[ -f "$record" ] && grep -v "^$1 " "$record"
		echo "$1 $(date -u +%F) $rev"
	} | LC_ALL=C sort -k1,1 >"$tmp" || true
	mv "$tmp" "$record"
}

# tier_ready PATCH: the kernels that PATCH's killers boot are here (rt,
# 6.12 and 6.12-rt: their images; debug: the kernel scripts/debug-kernel.sh
# builds).
tier_ready() {
	local t
	for t in $(kill_lines "$1" | cut -f 1); do
		case $t in
		rt/*) [ -s "$(guest_kernel_dir rt-amd64)/vmlinux" ] || return 1 ;;
		6.12/*) [ -s "$(guest_kernel_dir 6.12-amd64)/vmlinux" ] ||
			return 1 ;;
		6.12-rt/*) [ -s "$(guest_kernel_dir 6.12-rt-amd64)/vmlinux" ] ||
			return 1 ;;
		debug/*) [ -s "$(guest_kdir debug)/Makefile" ] || return 1 ;;
		esac
	done
}

names=("$@")
if [ ${#names[@]} = 0 ]; then
	for p in tests/mutants/*.patch; do
		[ -f "$p" ] && names+=("$(basename "$p" .patch)")
	done
fi
[ ${#names[@]} -gt 0 ] || { echo "mutants: no mutants" >&2; exit 2; }

# The sample's order: least recently proved first (ties by name), from
# the commit's place in the rotation on.
if [ -n "$sample_s" ]; then
	mapfile -t names < <(for name in "${names[@]}"; do
		echo "$(proved_on "$name") $name"
	done | LC_ALL=C sort -k1,1 -k2,2 | awk '{ print $NF }')
	start=${BLKFAST_MUTANT_START:-}
	if [ -z "$start" ]; then
		base=$(git log -1 --format=%H -- "$record" 2>/dev/null || true)
		start=$(git rev-list --count "${base:-HEAD}..HEAD" 2>/dev/null ||
			echo 0)
	fi
	start=$((start % ${#names[@]}))
	names=("${names[@]:start}" "${names[@]:0:start}")
	if [ -n "$order" ]; then
		printf '%s\n' "${names[@]}"
		exit 0
	fi
	echo "mutants: sample of ${sample_s}s from place $((start + 1)) of" \
		"${#names[@]} (least recently proved first): ${names[0]}," \
		"last proved $(proved_on "${names[0]}")"
fi

kdir=$(guest_kdir "$flavour")
killed=0 unchecked=0 ran=0 survived=() broken=()
began=$SECONDS
for name in "${names[@]}"; do
	if [ -n "$sample_s" ] && [ $ran -gt 0 ] &&
	   [ $((SECONDS - began)) -ge "$sample_s" ]; then
		break
	fi
	patch=$top/tests/mutants/$name.patch
	[ -f "$patch" ] || { echo "mutants: no such mutant: $name" >&2; exit 2; }
	if [ -n "$sample_s" ] && ! tier_ready "$patch"; then
		echo "mutants: passed over $name: its tier's kernel is not built yet"
		continue
	fi
	ran=$((ran + 1))
	before=$((${#survived[@]} + ${#broken[@]})) unchecked_before=$unchecked
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
		# Sparse is lint's, not the mutant's: the 6.12 build skips it.
		(cd "$dir" && BLKFAST_NO_SPARSE=1 \
			tests/run -f "$flavour" -k "$t" "$kind") \
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
	if [ $((${#survived[@]} + ${#broken[@]})) = "$before" ] &&
	   [ "$unchecked" = "$unchecked_before" ]; then
		record_proof "$name"
		echo "proved    $name (tests/mutants/proved)"
	fi
done

echo "mutants: $ran run, $killed kills ($unchecked without a text)," \
	"${#survived[@]} survived, ${#broken[@]} broken"
for s in "${survived[@]}" "${broken[@]}"; do
	echo "  $s"
done
[ ${#survived[@]} = 0 ] && [ ${#broken[@]} = 0 ]
