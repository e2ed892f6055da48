#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The scheduler benchmark's scaling model: where split-deadline,
# mq-deadline and the one-lock floor (bf-fifo-global) would saturate on
# many CPUs, from what a boot with no more vCPUs than host CPUs measures
# without contention.  A model, not a measurement.
#
#   scripts/sched-model.sh LOG[@P] [CHECK-LOG[@P]...] [--plot SVG]
#
# LOG is a scheduler boot's log (build/bench/sched-NCPUcpu.log) with its
# "run:" lines and the hold meter's "hold:" lines (tests/vm/bench/sched.sh,
# tests/modules/blkfast-lockhold.c); @P says the boot's host had P CPUs
# (default: this machine's).  Per scheduler it takes:
#   D  the time one job spends per I/O at 1 job: none's (1 / its median
#      IOPS) over the scheduler's median ratio to none, repeat by repeat
#      (the emulated host speeds up and slows down for longer than a
#      repeat, so ratios within one are steadier than medians);
#   U  the fraction of time its elevator's spinlocks are held while one
#      job runs, sampled from a vCPU of its own: h = U * D per I/O, and a
#      ratio like U does not depend on how fast the host ran then;
#      D - h runs in parallel;
#   F  what sharing the elevator's data with another CPU costs one job:
#      the sampler alternates every 50 ms between reading only the lock
#      words and also reading every cache line of the elevator's data and
#      of its requests' list and tree links, and F is the rate of reads
#      completed in the second phase over the first (median of the runs),
#      the host's speed changing alike for both; U' is U in that phase.
#      With more than one CPU submitting, a job costs D' = D / F per I/O
#      and holds the lock h' = U' * D' (one CPU: D and h);
#   w  the acquisitions per I/O that wait for the lock once it is always
#      taken: the slow-path entries per I/O the contention meter counted
#      at the fewest jobs above one (2 in make bench), over the chance
#      that an arrival finds the lock held by the other jobs then,
#      (J - 1) h' / D'.  An elevator whose every queue run takes the lock
#      waits at each acquisition (mq-deadline: w about its 1.9 holds per
#      I/O); one whose inserts only try it and whose dispatchers pass a
#      gate one at a time hardly waits (split-deadline: w about 0.3);
#   t  what a waited-for lock costs beyond its hold: the time for it to
#      pass to the waiting CPU (blkfast-handoff's two vCPUs taking turns
#      at one lock, with no I/O; median of the repeats).
# N jobs on P CPUs are a closed queueing network solved by exact mean
# value analysis: min(N, P) jobs (a spinning waiter keeps its CPU, so no
# more than P are ever in the race for the lock) cycling between a CPU
# each (a delay, D' - h') and one lock (a FCFS server, h' plus w t times
# the chance an arrival finds the lock taken, the queue it sees).  The
# lock caps the queue at 1 / S, S = h' + w t, however many CPUs submit;
# where N / (D' - h' + S) meets 1 / S the scheduler saturates.
#
# Checked against a boot's measured points as ratios to none, repeat by
# repeat, the parallel part scaled by what that boot's `none` (no
# elevator, no lock) lost against linear scaling at the same job count:
# the emulator's and blk-mq's own cost of more jobs, which no elevator's
# lock explains.  The table of 1-64 CPUs assumes none scales linearly.
#
# What it leaves out, so where it is wrong by construction: that the cost
# of sharing grows with the CPUs sharing (one reader sweeping stands for
# any number of them, and t is measured between two CPUs; on a real
# machine a line fetched from a farther or busier CPU costs more), that
# holds come in bursts (a dispatch loop takes the lock once per request,
# back to back), which mean value analysis sees only through w, and, in
# an oversubscribed guest, a lock holder whose vCPU the host preempts.
# w comes from the meter's kretprobe on the slow path, which lengthens
# each wait it counts and so may count more of them.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
plot='' logs=() cpus_of=()
while [ $# -gt 0 ]; do
	case $1 in
	--plot) plot=$2; shift 2 ;;
	-*) echo "sched-model.sh: unknown option $1" >&2; exit 2 ;;
	*@*) logs+=("${1%@*}"); cpus_of+=("${1##*@}"); shift ;;
	*) logs+=("$1"); cpus_of+=(''); shift ;;
	esac
done
[ ${#logs[@]} -ge 1 ] || { sed -n '9,11p' "$0" >&2; exit 2; }
log=${logs[0]}
hostcpus=${BENCH_HOST_CPUS:-$(nproc)}

# The guest's vCPUs in a boot's log ("guest: N vCPUs, ...").
vcpus() {
	grep -ao 'guest: [0-9]* vCPUs' "$1" | head -n 1 | tr -dc '0-9'
}
p0=$(vcpus "$log")
[ -n "$p0" ] || { echo "sched-model.sh: $log: no 'guest:' line" >&2; exit 1; }
grep -q '^hold: sched=.* lock=' "$log" || {
	why=$(sed -n 's/^hold: skipped: //p' "$log" | head -n 1)
	echo "sched-model.sh: $log has no hold meter lines${why:+ ($why)}" >&2
	exit 1
}

# model PROGRAM: awk over all the logs (LOG first), then PROGRAM in its
# END.  Defines order[1..nsched] (schedulers with a hold time), D[s] and
# H[s] (us per I/O), Q[s] (the locks' holds per I/O and quartiles),
# med(s, j, li) (median IOPS of s at j jobs in log li), has(li, j), and
# mva(s, n, p, li) (predicted IOPS of s, n jobs, p CPUs, the parallel
# part scaled by log li's none at n jobs; li = 0: none scales linearly).
model() {
	awk -v hostcpus="$hostcpus" "
	# The q-quantile of a list, interpolated between its two nearest
	# values (q = 0.5: the median).
	function quantile(list, q,   n, a, i, j, t, f) {
		n = split(list, a, \" \")
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
				t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
			}
		if (!n) return 0
		f = (n - 1) * q + 1; i = int(f)
		return i < n ? a[i] + (f - i) * (a[i + 1] - a[i]) : a[n]
	}
	function median(list) { return quantile(list, 0.5) }
	function kv(line, key,   i, n, w, f) {
		n = split(line, w, \" \")
		for (i = 1; i <= n; i++) {
			split(w[i], f, \"=\")
			if (f[1] == key) return f[2]
		}
		return \"\"
	}
	function med(s, j, li) { return median(iops[li, s, j]) }
	# The q-quantile of s's IOPS over none's, repeat by repeat.
	function rq(s, j, li, q,   n, a, b, i, r) {
		n = split(iops[li, s, j], a, \" \"); split(iops[li, \"none\", j], b, \" \")
		r = \"\"
		for (i = 1; i <= n; i++) if (b[i]) r = r \" \" a[i] / b[i]
		return quantile(r, q)
	}
	function rmed(s, j, li) { return rq(s, j, li, 0.5) }
	function has(li, j) { return (li, j) in jl }
	# none's loss against linear scaling at n jobs in log li (1: none).
	function kscale(n, p, li,   c) {
		c = n < p ? n : p
		if (li && med(\"none\", 1, li) && med(\"none\", n, li))
			return med(\"none\", 1, li) * c / med(\"none\", n, li)
		return 1
	}
	# none as the model sees it: min(n, p) jobs, no lock.
	function none_x(n, p, li) {
		return (n < p ? n : p) / (Dnone / 1e6 * kscale(n, p, li))
	}
	# More than one CPU submitting: the elevator's data is shared, and
	# each acquisition that waits adds a hand-off to the lock's time,
	# as often as an arrival finds the lock taken (the queue it sees
	# is the one with a job fewer).
	function mva(s, n, p, li,   c, k, Z, h0, h, ql, i, rl, x) {
		c = n < p ? n : p
		k = kscale(n, p, li)
		h0 = (c > 1 ? H2[s] : H[s]) / 1e6
		Z = ((c > 1 ? D2[s] : D[s]) / 1e6 - h0) * k
		ql = 0
		for (i = 1; i <= c; i++) {
			h = h0 + W[s] * (ql < 1 ? ql : 1) * TX / 1e6
			rl = h * (1 + ql)
			x = i / (rl + Z)
			ql = x * rl
		}
		WQ = rl - h0	# the wait for the lock per I/O, seconds
		return x
	}
	FNR == 1 { logi++ }
	# The contention meter: slow-path entries (waits) and ns spun per
	# I/O, all locks and sides.
	/^meter: jobs=/ {
		s = kv(\$0, \"sched\"); j = kv(\$0, \"jobs\")
		rest = \$0; sub(/^.* ios=[0-9]* /, \"\", rest)
		n = split(rest, parts, \";\")
		waits[logi, s, j] = spin[logi, s, j] = 0
		for (i = 1; i <= n; i++)
			if (split(parts[i], w, \" \") >= 4) {
				waits[logi, s, j] += w[3]
				spin[logi, s, j] += w[4]
			}
	}
	# The hand-off meter: ns per hand-off, one line per repeat.
	logi == 1 && /^handoff: rep=/ && kv(\$0, \"handoffs\") > 0 {
		HO = HO \" \" kv(\$0, \"ns\") / kv(\$0, \"handoffs\")
	}
	/^run: jobs=/ {
		s = kv(\$0, \"sched\"); j = kv(\$0, \"jobs\")
		iops[logi, s, j] = iops[logi, s, j] \" \" kv(\$0, \"iops\")
		jl[logi, j] = 1
	}
	# The hold meter: one line per run (scheduler, sweep, repeat), then
	# one per lock; the samples and holds of all runs with the same
	# sweep are pooled.
	logi == 1 && /^hold: sched=/ && !/ lock=/ {
		s = kv(\$0, \"sched\"); sw = kv(\$0, \"sweep\") + 0
		r = kv(\$0, \"rep\")
		RIOS[s, sw, r] = kv(\$0, \"ios\"); RSAMP[s, sw, r] = kv(\$0, \"samples\")
		RNS[s, sw, r] = kv(\$0, \"ns\")
		if (!RIOS[s, sw, r] || !RSAMP[s, sw, r]) next
		SAMP[s, sw] += RSAMP[s, sw, r]; HIOS[s, sw] += RIOS[s, sw, r]
		if (sw) reps[s] = reps[s] \" \" r
	}
	logi == 1 && /^hold: sched=.* lock=/ {
		s = kv(\$0, \"sched\"); sw = kv(\$0, \"sweep\") + 0
		r = kv(\$0, \"rep\"); l = kv(\$0, \"lock\")
		if (!RIOS[s, sw, r] || !RSAMP[s, sw, r]) next
		HELD[s, sw] += kv(\$0, \"held\")
		HOLDS[s, sw, l] += kv(\$0, \"holds\")
		for (i = 25; i <= 75; i += 25)
			QU[s, sw, l, i] = QU[s, sw, l, i] \" \" kv(\$0, \"p\" i)
		if (!((s, l) in lk)) { lk[s, l] = 1; locks[s] = locks[s] \" \" l }
		if (!(s in seen)) { seen[s] = 1; order[++nsched] = s }
	}
	END {
		if (!med(\"none\", 1, 1)) {
			print \"sched-model.sh: no 1-job runs of none\" > \"/dev/stderr\"
			exit 1
		}
		Dnone = 1e6 / med(\"none\", 1, 1)
		TX = HO == \"\" ? 0 : median(HO) / 1000
		# The fewest jobs above one that the contention meter ran.
		for (j = 2; j <= 256 && !J2; j++)
			for (t = 1; t <= nsched; t++)
				if ((1, order[t], j) in waits) J2 = j
		for (i = 1; i <= nsched; i++) {
			s = order[i]
			if (!rmed(s, 1, 1)) {
				print \"sched-model.sh: no 1-job runs of \" s > \"/dev/stderr\"
				exit 1
			}
			D[s] = 1e6 / med(\"none\", 1, 1) / rmed(s, 1, 1)
			H[s] = HELD[s, 0] / SAMP[s, 0] * D[s]
			# The cost of sharing: 1-job IOPS with the data swept
			# over without, run by run (1 if never swept).
			n = split(reps[s], ra, \" \"); r = \"\"
			for (t = 1; t <= n; t++)
				if (RIOS[s, 0, ra[t]] && RNS[s, 1, ra[t]])
					r = r \" \" RIOS[s, 1, ra[t]] / RNS[s, 1, ra[t]] \\
						/ (RIOS[s, 0, ra[t]] / RNS[s, 0, ra[t]])
			F[s] = r == \"\" ? 1 : median(r)
			D2[s] = D[s] / F[s]
			H2[s] = (SAMP[s, 1] ? HELD[s, 1] / SAMP[s, 1] : H[s] / D[s]) * D2[s]
			# Acquisitions per I/O that wait for the lock once it
			# is always taken: those the meter saw wait at J2 jobs
			# over the chance that an arrival finds it held by the
			# J2 - 1 others, (J2 - 1) h' / D'.
			W[s] = J2 && TX && H2[s] ? waits[1, s, J2] / ((J2 - 1) * H2[s] / D2[s]) : 0
			S[s] = H2[s] + W[s] * TX
			n = split(locks[s], ra, \" \"); Q[s] = \"\"
			for (t = 1; t <= n; t++)
				Q[s] = Q[s] (t > 1 ? \"; \" : \"\") \\
					sprintf(\"%s %.2f/IO, %s-%s-%s ns\", ra[t],
						HOLDS[s, 0, ra[t]] / HIOS[s, 0],
						median(QU[s, 0, ra[t], 25]),
						median(QU[s, 0, ra[t], 50]),
						median(QU[s, 0, ra[t], 75]))
		}
		$1
	}" "${logs[@]}"
}

echo "### Scaling model (a model, not a measurement)"
echo
echo "From the ${p0}-vCPU boot: per scheduler, D = 1 / (1-job IOPS), the"
echo "time one job spends per I/O, and h, the time per I/O its spinlocks"
echo "are held (sampled by blkfast-lockhold from a vCPU of its own: the"
echo "fraction of time held over the I/Os per second).  \"shared\" is one"
echo "job's rate while the sampler also reads every cache line of the"
echo "elevator's data and its requests' links, over its rate while it"
echo "reads only the lock words (50 ms phases in turn, median of the"
echo "runs): what sharing that data with another CPU costs.  With more"
echo "than one CPU submitting a job costs D' = D / shared and holds the"
echo "lock h', measured in the swept phase.  Each acquisition that waits"
echo "adds a hand-off, t, to the lock's time: w of them per I/O once the"
echo "lock is always taken (the contention meter's waits per I/O at 2 jobs"
echo "over the chance the lock was held then), t from two vCPUs passing"
echo "a lock back and forth (blkfast-handoff).  Exact mean value analysis"
echo "of min(N, P) jobs cycling between a CPU each (D' - h') and one lock"
echo "(h' + w t times the chance it is taken); see scripts/sched-model.sh."
echo "It leaves out that sharing costs more as more CPUs share, and that"
echo "a hand-off costs more from a farther or busier CPU (t is measured"
echo "between two), and lock holders preempted by the host."
echo
model 'printf "Hand-off, t: %s.\n\n", TX ? sprintf("%.0f ns", TX * 1000) : "not measured (0)"'
echo "| scheduler | D, us/IO | h, us/IO | holds per I/O, hold quartiles | shared: 1-job IOPS | D', us/IO | h', us/IO | waits per I/O, w | ceiling 1/(h' + w t), IOPS | saturates at CPUs |"
echo "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|"
model 'for (i = 1; i <= nsched; i++) { s = order[i]
	printf "| %s | %.2f | %.3f | %s | %.3fx | %.2f | %.3f | %.2f | %.0f | %.1f |\n",
		s, D[s], H[s], Q[s], F[s], D2[s], H2[s], W[s], 1e6 / S[s],
		(D2[s] - H2[s] + S[s]) / S[s] }'
echo
echo "Predicted IOPS with one job per CPU (none assumed to scale linearly):"
echo
model 'printf "| CPUs |"; for (i = 1; i <= nsched; i++) printf " %s |", order[i]
	printf " split-deadline / mq-deadline |\n|---:|"
	for (i = 1; i <= nsched; i++) printf "---:|"; print "---:|"
	both = ("split-deadline" in D) && ("mq-deadline" in D)
	for (n = 1; n <= 64; n *= 2) { printf "| %d |", n
		for (i = 1; i <= nsched; i++) printf " %.0f |", mva(order[i], n, n, 0)
		if (both)
			printf " %.2f |\n", mva("split-deadline", n, n, 0) / mva("mq-deadline", n, n, 0)
		else print " - |" }'
echo
echo "The anchor (a real 16-core machine, issue 33): split-deadline /"
echo "mq-deadline 1.63x at 16 CPUs, with mq-deadline's spinlock slow path"
echo "at over 70% of its profile."
echo
echo "### The model against measured points"
echo
echo "Each boot's IOPS per job count as a ratio to none's in the same"
echo "repeat (median and quartiles of the repeats: how far the measured"
echo "point itself moves with the emulated host's speed) against the"
echo "model's prediction for"
echo "that many jobs on P CPUs: the boot's vCPUs, or its host's CPUs when"
echo "it had fewer (oversubscribed); the parallel part scaled by that boot's"
echo "none at that job count."
echo
echo "Where the model is wrong, the last three columns say by how much per"
echo "I/O: the time per I/O it is short of what was measured (the cycle time"
echo "of a job, measured against predicted), the queueing at the lock it"
echo "predicts, and what the contention meter's runs spun on the elevator's"
echo "locks (ns per I/O; \"-\" where none was metered)."
echo
echo "| boot | P | jobs | scheduler | median IOPS | measured / none | its quartiles | predicted / none | error | missing, us/IO | model's lock wait, ns/IO | metered spin, ns/IO |"
echo "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"
li=0
for l in "${logs[@]}"; do
	li=$((li + 1))
	v=$(vcpus "$l")
	[ -n "$v" ] || { echo "sched-model.sh: $l: no 'guest:' line" >&2; exit 1; }
	p=${cpus_of[$((li - 1))]:-$hostcpus}
	[ "$v" -le "$p" ] && p=$v
	model "for (i = 1; i <= nsched; i++) { s = order[i]
		for (j = 1; j <= 256; j++) {
			if (!has($li, j) || !(m = rmed(s, j, $li))) continue
			X = mva(s, j, $p, $li); x = X / none_x(j, $p, $li)
			c = j < $p ? j : $p
			sp = (($li, s, j) in spin) ? sprintf(\"%.0f\", spin[$li, s, j]) : \"-\"
			printf \"| %s | %d | %d | %s | %.0f | %.3f | %.3f-%.3f | %.3f | %+.0f%% | %.2f | %.0f | %s |\\n\",
				\"$(basename "$l" .log)\", $p, j, s, med(s, j, $li), m,
				rq(s, j, $li, 0.25), rq(s, j, $li, 0.75), x,
				(x - m) * 100 / m, c / X * (x / m - 1) * 1e6,
				WQ * 1e9, sp } }"
done
if [ -n "$plot" ]; then
	model 'for (n = 1; n <= 64; n *= 2) for (i = 1; i <= nsched; i++)
		printf "%dCPUs %s %.0f\n", n, order[i], mva(order[i], n, n, 0)' |
		"$here/bench-plot.sh" "Scaling model (not a measurement): one job per CPU" \
		"predicted IOPS" >"$plot"
fi
