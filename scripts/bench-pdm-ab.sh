#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Compare builds of pdm in one VM boot: "is this change slower?".
#
#   scripts/bench-pdm-ab.sh [reps=N] [secs=S] REV...
#
# Each REV (a commit, or "." for the working tree as it is) is built in a
# scratch worktree under build/ab/ (modules against the VM kernel's
# headers, and pdmsetup), and tests/vm/bench/pdm-ab.sh compares them in
# one boot, paired with a floor run each (see there).  The report is
# build/ab/report.md.  Needs the VM's modules built here too (make
# vm-build): the floor is this tree's test-only blkfast-remap.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
# shellcheck source=scripts/config.sh
. "$here/config.sh"
args=() revs=()
for a in "$@"; do
	case $a in
	*=*) args+=("$a") ;;
	*) revs+=("$a") ;;
	esac
done
[ ${#revs[@]} -gt 0 ] || { sed -n '4,13p' "$0" >&2; exit 2; }
kdir=$(guest_kdir "$BLKFAST_FLAVOUR")
out=$top/build/ab
stage=$out/extra
rm -rf "$stage"
mkdir -p "$stage"
for r in "${revs[@]}"; do
	if [ "$r" = . ]; then
		name=worktree src=$top
	else
		name=$(git -C "$top" rev-parse --short "$r")
		src=$out/src-$name
		if [ ! -d "$src" ]; then
			git -C "$top" worktree prune
			git -C "$top" worktree add -f --detach "$src" "$r" \
				>/dev/null
		fi
		# This tree's private headers, copied, not extracted again.
		mkdir -p "$src/build"
		for k in "$top"/build/kheaders-*; do
			[ -e "$src/build/$(basename "$k")" ] || cp -r "$k" "$src/build/"
		done
	fi
	echo "bench-pdm-ab: building $r in $src" >&2
	make -C "$src" -s modules KDIR="$kdir" >"$out/build-$name.log" 2>&1 ||
		{ tail -n 20 "$out/build-$name.log" >&2; exit 1; }
	make -C "$src" -s tools >>"$out/build-$name.log" 2>&1 ||
		{ tail -n 20 "$out/build-$name.log" >&2; exit 1; }
	mkdir -p "$stage/$name"
	cp "$src/poll/pdm.ko" "$src/tools/pdmsetup" "$stage/$name/"
done
"$here/vm.sh" -c 2 -p -t 3600 -x "$stage" "$top/tests/vm/bench/pdm-ab.sh" \
	"${args[@]}" | tee "$out/report.log"
sed -n '/^### pdm builds/,$p' "$out/report.log" >"$out/report.md"
echo "bench-pdm-ab: $out/report.md" >&2
