#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The scheduler benchmark's scaling model (scripts/sched-model.sh) on a
# made-up boot log whose answers were worked out by hand: none at 100000
# IOPS with 1 job (D = 10 us) and 190000 with 2; an elevator "lockd" at
# 0.8 of none with 1 job (D = 12.5 us), its lock held in 8% of the
# samples (h = 1 us per I/O), measured at 110000 with 2 jobs.  The hold
# meter's swept phases ran at 0.7, 0.75 and 0.8 of the unswept ones'
# rate (median 0.75: D' = 12.5 / 0.75 = 16.67 us once two CPUs share the
# elevator's data) with the lock held in 9% of their samples (h' = 1.5
# us: ceiling 666667 IOPS, saturation at 11.1 CPUs).  Exact mean value
# analysis of two jobs, Z = D' - h', scaled by none's 2-job loss k =
# 2e5 / 1.9e5: X1 = 1 / (h' + kZ); R2 = h' (1 + X1 h'); X2 = 2 / (R2 +
# kZ) = 113677, 0.598 of none's 2 / (10 us k), against 0.579 measured:
# +3%, 0.59 us per I/O short, a wait of R2 - h' = 129 ns; the meter spun
# 150 + 70 ns.  One job per CPU, none linear: 80000 (one CPU: D and h),
# 119036 (two), 666667 (64, the ceiling).  That is without the hand-off
# meter's lines; with them (600 ns per hand-off, the median of 500, 600
# and 900) and the contention meter's 0.1 + 0.05 waits per I/O at 2
# jobs, over the chance h' / D' = 0.09 that the other job held the lock:
# w = 1.667, S = h' + w t = 2.5 us, ceiling 400000, saturation at
# (D' - h' + S) / S = 7.1 CPUs.  Two jobs: X1 as before, Q1 = X1 h'
# = 0.08589; h2 = h' + w t Q1 = 1.58589; R2 = h2 (1 + Q1) = 1.72209;
# X2 = 2 / (R2 + kZ) = 113077, 0.595 of none (+3%, 0.49 us short, a wait
# of R2 - h' = 222 ns).  One job per CPU: 118345 (two), 400000 (64).
. "$(dirname "$0")/lib/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
log=$tmp/sched-2cpu.log
{
	echo "guest: 2 vCPUs, 2048 MiB"
	# lockd with 2 jobs: 105000, 110000, 120000 (median 110000; over
	# none, quartiles 0.566 and 0.605).
	two=(0 105000 110000 120000)
	for j in 1 2; do
		for r in 1 2 3; do
			echo "run: jobs=$j rep=$r sched=none iops=$((j == 1 ? 100000 : 190000))"
			echo "run: jobs=$j rep=$r sched=lockd iops=$((j == 1 ? 80000 : two[r]))"
		done
	done
	echo "meter: jobs=1 sched=lockd ios=1000 ;"
	echo "meter: jobs=2 sched=lockd ios=1000 elevator+8 dispatch 0.1000 150;elevator+8 submit 0.0500 70;"
	# Swept at 0.7, 0.75, 0.8 of the unswept rate (the third in half
	# the time).
	for r in 1 2 3; do
		echo "hold: sched=lockd sweep=0 rep=$r ios=100000 samples=1000000 ns=1000000000"
		echo "hold: sched=lockd sweep=0 rep=$r lock=elevator+8 held=80000 holds=200000 p25=400 p50=500 p75=600"
		case $r in
		1) echo "hold: sched=lockd sweep=1 rep=1 ios=70000 samples=500000 ns=1000000000" ;;
		2) echo "hold: sched=lockd sweep=1 rep=2 ios=75000 samples=500000 ns=1000000000" ;;
		3) echo "hold: sched=lockd sweep=1 rep=3 ios=40000 samples=500000 ns=500000000" ;;
		esac
		echo "hold: sched=lockd sweep=1 rep=$r lock=elevator+8 held=45000 holds=150000 p25=500 p50=700 p75=900"
	done
	echo "handoff: rep=1 handoffs=100000 ns=50000000"
	echo "handoff: rep=2 handoffs=100000 ns=90000000"
	echo "handoff: rep=3 handoffs=50000 ns=30000000"
} >"$log"

want() {
	grep -qxF "$1" <<<"$out" || fail "no line '$1' in: $out"
	echo "ok: $1"
}
out=$(scripts/sched-model.sh "$log@2" 2>&1) || fail "sched-model.sh: $out"
want "Hand-off, t: 600 ns."
want "| lockd | 12.50 | 1.000 | elevator+8 2.00/IO, 400-500-600 ns | 0.750x | 16.67 | 1.500 | 1.67 | 400000 | 7.1 |"
want "| 1 | 80000 | - |"
want "| 2 | 118345 | - |"
want "| 64 | 400000 | - |"
want "| sched-2cpu | 2 | 2 | lockd | 110000 | 0.579 | 0.566-0.605 | 0.595 | +3% | 0.49 | 222 | 220 |"

# Without the hand-off meter's lines (a log from before it): t = 0.
grep -v '^handoff:' "$log" >"$tmp/sched-2cpu.log.new"
mv "$tmp/sched-2cpu.log.new" "$log"
out=$(scripts/sched-model.sh "$log@2" 2>&1) || fail "sched-model.sh: $out"
want "Hand-off, t: not measured (0)."
want "| lockd | 12.50 | 1.000 | elevator+8 2.00/IO, 400-500-600 ns | 0.750x | 16.67 | 1.500 | 0.00 | 666667 | 11.1 |"
want "| 1 | 80000 | - |"
want "| 2 | 119036 | - |"
want "| 64 | 666667 | - |"
want "| sched-2cpu | 2 | 1 | lockd | 80000 | 0.800 | 0.800-0.800 | 0.800 | +0% | 0.00 | 0 | 0 |"
want "| sched-2cpu | 2 | 2 | lockd | 110000 | 0.579 | 0.566-0.605 | 0.598 | +3% | 0.59 | 129 | 220 |"

# An old log, one hold run per scheduler and no sweep: no sharing cost
# (D' = D, h' = h), as the model was before it had one.
grep -v '^hold: .*\(sweep=1\|rep=[23]\)' "$log" | sed 's/ sweep=0 rep=1//' >"$tmp/old.log"
out=$(scripts/sched-model.sh "$tmp/old.log@2" 2>&1) || fail "sched-model.sh: $out"
want "| lockd | 12.50 | 1.000 | elevator+8 2.00/IO, 400-500-600 ns | 1.000x | 12.50 | 1.000 | 0.00 | 1000000 | 12.5 |"
want "| 2 | 158983 | - |"

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
