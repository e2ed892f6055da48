#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm: -e -m 2048 -t 900
# vm-skip-flavour: debug its checks change every path's instruction count; the budget is Debian's amd64 kernel's
# vm-skip-flavour: rt-amd64 another kernel's paths; the budget is Debian's amd64 kernel's
# vm-skip-flavour: cloud-amd64 another kernel's paths; the budget is Debian's amd64 kernel's
# 6.12-tier: 6.12's instruction budgets (tests/vm/exact-budget-6.12)
# The exact-cost gate: in exact time (one vCPU, QEMU icount: instructions
# per I/O, the same in every boot and on any host), pdm direct and
# tracked over raw null_blk, polled and by interrupt, at QD1 and QD32,
# and split-deadline over none at QD1 and QD32 (tests/vm/bench/exact.sh's
# rows), each as a ratio to its baseline in this boot, may cost at most
# 1% more than tests/vm/exact-budget says (exact-budget-6.12 on 6.12).
# A fast path that grew by 1% of the whole I/O (some 60-80 instructions)
# fails here.  A row that came
# in more than 1% under its budget is noted: the budget can come down.
# Mutant pdm-remap-busywork: 60 spins of cpu_relax() per remapped bio.
. "$(dirname "$0")/lib/lib.sh"

# Each kernel line its own budget: the baselines' paths differ.
budget=$(dirname "$0")/exact-budget
[ "$(kernel_line)" = 6.1 ] || budget=$budget-$(kernel_line)
[ -r "$budget" ] || fail "no budget file $budget"
rows=$(awk '!/^#/ && NF == 3' "$budget")
[ -n "$rows" ] || fail "$budget lists no rows"
stacks=$(echo "$rows" | awk '{ split($1, a, "_"); split($2, b, "_")
	s[a[1]]; s[b[1]] } END { for (k in s) printf "%s,", k }')
bash "$(dirname "$0")/bench/exact.sh" ios=20000 nostats=0 \
	stacks="${stacks%,}" >/tmp/exact-gate.log 2>&1 ||
	{ cat /tmp/exact-gate.log; fail "the exact run failed"; }
grep '^exact:' /tmp/exact-gate.log

# instr ROW: ROW's instructions per I/O ("_" for spaces), or fail.
instr() {
	local v
	v=$(sed -n "s/^exact: ${1//_/ } ns\\/io=[0-9]* instr\\/io=\\([0-9]*\\) .*/\\1/p" \
		/tmp/exact-gate.log)
	[ -n "$v" ] || fail "no exact figure for row '${1//_/ }'"
	echo "$v"
}

over=0
while read -r row base want; do
	a=$(instr "$row") b=$(instr "$base")
	verdict=$(awk -v a="$a" -v b="$b" -v w="$want" 'BEGIN {
		r = a / b
		if (r > w * 1.01) v = "OVER"
		else if (r < w * 0.99) v = "under"
		else v = "ok"
		printf "%.4f %s %+.2f%%", r, v, 100 * (r / w - 1) }')
	read -r r v pct <<<"$verdict"
	note "${row//_/ }: $a instr/IO over ${base//_/ }'s $b: $r, budget $want ($pct)"
	case $v in
	OVER)
		echo "FAIL-ROW: ${row//_/ } costs $r of ${base//_/ }, budget $want ($pct)"
		over=$((over + 1)) ;;
	under)
		note "  more than 1% under budget: $budget can come down to $r" ;;
	esac
done <<<"$rows"
[ "$over" = 0 ] || fail "$over row(s) over the exact-cost budget by more than 1% ($budget)"
echo PASS
