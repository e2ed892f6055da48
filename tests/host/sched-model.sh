#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The scheduler benchmark's scaling model (scripts/sched-model.sh) on a
# made-up boot log whose answers were worked out by hand: none at 100000
# IOPS with 1 job (D = 10 us) and 190000 with 2; an elevator "lockd" at
# 0.8 of none with 1 job (D = 12.5 us), its lock held in 8% of the
# samples (h = 1 us per I/O: ceiling 1e6 IOPS, saturation at 12.5
# CPUs), measured at 140000 with 2 jobs.  Exact mean value analysis of
# two jobs, Z = D - h, scaled by none's 2-job loss k = 2e5 / 1.9e5:
# X1 = 1 / (h + kZ); R2 = h (1 + X1 h); X2 = 2 / (R2 + kZ) = 151730,
# 0.799 of none's 2 / (10 us k), against 0.737 measured: +8%, 1.10 us
# per I/O short, a wait of R2 - h = 76 ns; the meter spun 150 + 70 ns.
. "$(dirname "$0")/lib/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
log=$tmp/sched-2cpu.log
{
	echo "guest: 2 vCPUs, 2048 MiB"
	for j in 1 2; do
		for r in 1 2 3; do
			echo "run: jobs=$j rep=$r sched=none iops=$((j == 1 ? 100000 : 190000))"
			echo "run: jobs=$j rep=$r sched=lockd iops=$((j == 1 ? 80000 : 140000))"
		done
	done
	echo "meter: jobs=1 sched=lockd ios=1000 ;"
	echo "meter: jobs=2 sched=lockd ios=1000 elevator+8 dispatch 0.1000 150;elevator+8 submit 0.0500 70;"
	echo "hold: sched=lockd ios=100000 samples=1000000 ns=1000000000"
	echo "hold: sched=lockd lock=elevator+8 held=80000 holds=200000 p25=400 p50=500 p75=600"
} >"$log"

out=$(scripts/sched-model.sh "$log@2" 2>&1) || fail "sched-model.sh: $out"
want() {
	grep -qxF "$1" <<<"$out" || fail "no line '$1' in: $out"
	echo "ok: $1"
}
want "| lockd | 12.50 | 1.000 | elevator+8 2.00/IO, 400-500-600 ns | 1000000 | 12.5 |"
want "| 1 | 80000 | - |"
want "| 2 | 158983 | - |"
want "| 64 | 1000000 | - |"
want "| sched-2cpu | 2 | 1 | lockd | 80000 | 0.800 | 0.800 | +0% | 0.00 | 0 | 0 |"
want "| sched-2cpu | 2 | 2 | lockd | 140000 | 0.737 | 0.799 | +8% | 1.10 | 76 | 220 |"

# A log without the hold meter's lines is refused, saying so.
grep -v '^hold:' "$log" >"$tmp/nohold.log"
echo "hold: skipped: one vCPU: no CPU for the sampler" >>"$tmp/nohold.log"
if out=$(scripts/sched-model.sh "$tmp/nohold.log" 2>&1); then
	fail "sched-model.sh accepted a log without hold lines: $out"
fi
case $out in
*"no hold meter lines (one vCPU: no CPU for the sampler)"*)
	echo "ok: refused: $out" ;;
*) fail "refusal without the reason: $out" ;;
esac
echo PASS
