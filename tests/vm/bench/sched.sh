#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Scheduler contention benchmark, run inside the VM by scripts/bench.sh's
# scheduler part (`make bench`, `make bench-sched`): fio io_uring 4k random
# reads with batched submission on null_blk, at several job counts, for
# none, mq-deadline, kyber and split-deadline, interleaved (the order
# rotates every repeat) and repeated.  Prints one markdown table per job count and the headline ratios
# split-deadline/none and split-deadline/mq-deadline at the highest job count.
#
# Arguments, all optional, KEY=VALUE (lists are comma-separated, since
# scripts/vm.sh passes no spaces inside an argument):
#   reps=3          repeats of every (job count, scheduler) point
#   secs=2          measured seconds per fio run (after a 0.5 s ramp)
#   jobs=1,N,2N     fio job counts; N = nproc (the guest's vCPUs)
#   qd=32           io_uring queue depth per job
#   batch=8         iodepth_batch_submit and iodepth_batch_complete_min/max
#   irqmode=1       null_blk irqmode (see below)
#   scheds=none,mq-deadline,kyber,split-deadline[,bf-fifo-hctx,bf-fifo-global]
#                   the two floors are added when their test-only module
#                   (tests/modules/blkfast-fifo.c) is there: bf-fifo-hctx is
#                   what any 6.1 elevator costs over none, bf-fifo-global the
#                   cheapest elevator that keeps one device-wide order (as
#                   mq-deadline's semantics need) under one lock
#   dev=            a real device to use instead of null_blk (e.g. nvme0n1,
#                   with `make bench` --host on a real machine)
#
# Why these settings:
# - Batched submission: with one SQE per io_uring_enter every 6.1 elevator
#   inserts asynchronously and dispatches from a kblockd worker, which hides
#   the elevator's own cost.  With batch=8 the requests go through the plug
#   and are inserted and dispatched from the submitting task.
# - null_blk queue_mode=2 (blk-mq), submit_queues = nproc (one hctx per vCPU,
#   so contention is on the elevator, not on a shared hctx), no poll queues,
#   hw_queue_depth=1024 (never the limit).
# - irqmode=1 (softirq, null_blk's default): completions go through
#   blk_mq_complete_request() like a real driver's.  With one ctx per hctx,
#   6.1's blk_mq_complete_request_remote() completes locally at once (no
#   softirq is actually raised), so this costs little more than irqmode=0
#   but keeps the real completion path.  irqmode=2 (hrtimer) would add one
#   emulated timer interrupt per I/O, which under TCG would dominate.
#
# CPU cost, two views, both in CPU microseconds per I/O:
# - fio sys: fio's own threads' system time (terse field 89, % of one CPU
#   averaged over jobs, so x jobs x 10^4 / IOPS).  Misses kworkers/softirqs
#   running on behalf of others.
# - guest: all non-idle CPU time of the guest (/proc/stat, tick-based) from
#   the first I/O to fio's exit (ramp included, fio's start-up not), divided
#   by the reads nullb0 completed over the same interval.
# Under oversubscription both are skewed by host preemption: fio's rusage
# (scaled by the TSC-based runtime) counts time a vCPU was descheduled on
# the host, the tick-based /proc/stat loses ticks instead.
#
# Contention meter (tests/modules/blkfast-lockstat.c, when it loads): after
# the timed runs, one more run per (job count, scheduler) with a kretprobe
# on the queued spinlock's slow path, counting only the locks inside the
# elevator's data: per I/O, how often a submitter (insert, merge) or a
# dispatcher found one held, and how long it spun.  The probe costs only
# on the slow path, but it does cost there, so these runs are not in the
# IOPS columns.  It counts what the design claims to remove, whatever the
# number of host cores.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/bench.sh"

ncpu=$(nproc)
DEV=
REPS=5 SECS=2 JOBS="1,$ncpu,$((2 * ncpu))" QD=32 BATCH=8 IRQMODE=1
SCHEDS=
bench_args "jobs qd batch irqmode scheds dev" "$@"
# Why the floors are not in the tables, when they are not.
floors_skipped=
if [ -z "$SCHEDS" ]; then
	SCHEDS=none,mq-deadline,kyber,split-deadline
	if why=$(modprobe blkfast-fifo 2>&1); then
		SCHEDS=$SCHEDS,bf-fifo-hctx,bf-fifo-global
	else
		why=${why:-modprobe blkfast-fifo failed}
		floors_skipped=${why//$'\n'/; }
	fi
fi
# Unique job counts, in order; the last is the highest contention point.
jobs_list=$(echo "$JOBS" | tr ',' '\n' | awk 'NF && !seen[$1]++')
last_j=$(echo "$jobs_list" | tail -n 1)
IFS=, read -r -a scheds <<<"$SCHEDS"
[ "$BATCH" -le "$QD" ] || fail "batch ($BATCH) > qd ($QD)"

if [ -z "$DEV" ]; then
	nullb_load queue_mode=2 submit_queues="$ncpu" poll_queues=0 \
		irqmode="$IRQMODE" hw_queue_depth=1024
	DEV=nullb0
	# How a request completes, for the header.
	case $IRQMODE in
	0) completes="inline in queue_rq" ;;
	1) completes="through blk_mq_complete_request() inside queue_rq: one vCPU per hardware queue, so 6.1 completes there and raises no softirq" ;;
	2) completes="from an hrtimer interrupt" ;;
	*) completes="as null_blk irqmode $IRQMODE does" ;;
	esac
	what="null_blk (blk-mq, $ncpu submit queues, irqmode=$IRQMODE: completed $completes; no poll queues)"
else
	what="/dev/$DEV (completed by its own interrupts)"
fi
for s in "${scheds[@]}"; do
	case $s in
	none) ;;
	# Elevators autoload on selection; load them up front anyway so that
	# the first switch does not pay for it.
	*) modprobe "$s-iosched" 2>/dev/null || modprobe "$s" 2>/dev/null ;;
	esac
done
dev=$DEV
echo "guest: $ncpu vCPUs, $(uname -r), null_blk irqmode=$IRQMODE" \
	"submit_queues=$ncpu nr_hw_queues=$(find "/sys/block/$dev/mq" -mindepth 1 -maxdepth 1 | wc -l)"
echo "guest: schedulers available: $(cat "/sys/block/$dev/queue/scheduler")"

# sample: BUSY = non-idle jiffies of all CPUs, READS = reads nullb0
# completed.  Builtins only: no fork, so the sample is taken at once even on
# a guest whose CPUs fio keeps busy.
sample() {
	local u n sy irq sirq st
	read -r _ u n sy _ _ irq sirq st _ </proc/stat
	BUSY=$((u + n + sy + irq + sirq + st))
	read -r READS _ <"/sys/block/$dev/stat"
}
# nap: sleep 20 ms.  Not bash's `read -t` on a FIFO, which forks
# nothing but, in Debian 12's bash 5.2.15, can block for good in
# pipe_read() when a child exits at the wrong moment: the 8-vCPU boots
# hung there with fio's subshell a zombie (a `sleep` fork costs a
# little precision in finding the first I/O, nothing else).
nap() {
	sleep 0.02
}

# fio_bench JOBS: one measured fio run (summary in /tmp/fio-bench.out).
fio_bench() {
	fio_run bench --filename="/dev/$dev" --ioengine=io_uring \
		--direct=1 --bs=4k --rw=randread --numjobs="$1" \
		--iodepth="$QD" --iodepth_batch_submit="$BATCH" \
		--iodepth_batch_complete_min="$BATCH" \
		--iodepth_batch_complete_max="$BATCH" \
		--runtime="$SECS" --time_based --ramp_time=0.5
}

declare -A iops fsys gcpu
start=$SECONDS
for j in $jobs_list; do
	for rep in $(seq "$REPS"); do
		for k in $(bench_rotate "${#scheds[@]}" "$rep"); do
			s=${scheds[$k]}
			set_sched "$dev" "$s"
			# fio in the background, so that the guest CPU count
			# starts at the first I/O, not at fio's (slow) start-up.
			sample
			bs=$BUSY rs=$READS
			( fio_bench "$j" ) &
			pid=$!
			sample
			while [ "$READS" = "$rs" ] && kill -0 $pid 2>/dev/null; do
				nap
				sample
			done
			b0=$BUSY r0=$READS
			wait $pid || fail "fio: $s, $j jobs failed (see above)"
			sample
			b1=$BUSY r1=$READS
			# A starved polling loop (oversubscribed, busy host) may
			# see the first I/O late; then count the whole run.
			late=
			if [ $(((r0 - rs) * 20)) -gt $((r1 - rs)) ]; then
				b0=$bs r0=$rs late=" (late start detection: whole run counted)"
			fi
			# fio_run checked the exit status and error field in
			# the subshell; take its summary here.
			FIO_TERSE=$(grep '^3;' /tmp/fio-bench.out | tail -n 1)
			grep -q "\[$s\]" "/sys/block/$dev/queue/scheduler" ||
				fail "scheduler changed during the run: $(cat "/sys/block/$dev/queue/scheduler"), expected $s"
			io=$(fio_field 8)
			[ "$io" -gt 0 ] || fail "fio: $s, $j jobs: no I/O"
			[ $((r1 - r0)) -gt 0 ] || fail "$dev completed no reads for $s"
			read -r _ fs _ <<<"$(fio_cpu_per_io "$j")"
			gc=$(awk -v b=$((b1 - b0)) -v r=$((r1 - r0)) \
				'BEGIN { printf "%.2f", b * 10000 / r }')
			iops[$j,$s]+=" $io"
			fsys[$j,$s]+=" $fs"
			gcpu[$j,$s]+=" $gc"
			printf 'run: jobs=%s rep=%s sched=%s iops=%s fio_usr%%=%s fio_sys%%=%s fio_sys_us/io=%s guest_us/io=%s%s\n' \
				"$j" "$rep" "$s" "$io" "$(fio_field 88)" \
				"$(fio_field 89)" "$fs" "$gc" "$late"
		done
	done
done
elapsed=$((SECONDS - start))

# Metered runs: per point, LOCK SIDE ENTRIES/IO NS/IO lines in meter[].
# The contention meter's module is loaded only now: its kretprobe fires on
# every spinlock slow path in the guest (it returns at once for locks it
# does not meter, but the probe itself costs), and the timed runs above
# must not pay for it, least of all the schedulers whose lock is busiest.
METER=/sys/module/blkfast_lockstat/parameters
meter_skipped=
if ! why=$(modprobe blkfast-lockstat dev="/dev/$dev" 2>&1); then
	meter_skipped=${why:-modprobe blkfast-lockstat failed}
	meter_skipped=${meter_skipped//$'\n'/; }
fi
declare -A meter
if [ -z "$meter_skipped" ]; then
	for j in $jobs_list; do
		for s in "${scheds[@]}"; do
			[ "$s" != none ] || continue
			set_sched "$dev" "$s"
			echo 1 >$METER/reset
			fio_bench "$j"
			ios=$(fio_ios 4096)
			meter[$j,$s]=$(awk -v n="$ios" '{ printf "%s %s %.4f %.0f\n",
				$1, $2, $3 / n, $4 / n }' $METER/stats)
			printf 'meter: jobs=%s sched=%s ios=%s %s\n' "$j" "$s" \
				"$ios" "$(echo "${meter[$j,$s]}" | tr '\n' ';')"
		done
	done
	rmmod blkfast-lockstat
fi
# Hold meter (tests/modules/blkfast-lockhold.c): 1-job runs per
# scheduler, pinned to vCPU 1, while a sampler on vCPU 0 reads the lock
# words of the locks the contention meter saw contended (split-deadline's
# dispatch lock in any case): the fraction of time each is held, over the
# I/Os per second, is its hold time per I/O, the scaling model's input
# (scripts/sched-model.sh).  Every 50 ms the sampler switches between
# reading only the lock words and also reading every cache line of the
# elevator's data and of its requests' list and tree links ("swept"), so
# that the one job finds them shared with another CPU as it does when two
# submit; the model takes the cost of
# that sharing from the two phases' rates.  Nothing runs in the I/O path,
# but the sampler takes a vCPU, so these runs stay out of the IOPS
# columns; one run per scheduler and repeat, in the timed runs' order.
HOLD=/sys/module/blkfast_lockhold/parameters
hold_skipped=
if [ "$ncpu" -lt 2 ]; then
	hold_skipped="one vCPU: no CPU for the sampler"
elif ! why=$(modprobe blkfast-lockhold dev="/dev/$dev" cpu=0 sweep=50 2>&1); then
	hold_skipped=${why:-modprobe blkfast-lockhold failed}
	hold_skipped=${hold_skipped//$'\n'/; }
fi
# hold_run S LOCKS REP: one sampled 1-job run; prints its "hold:" lines,
# per phase (sweep=0: lock words only, sweep=1: swept) "hold: sched=S
# sweep=W rep=R ios=N samples=M ns=T", then one line per lock.
hold_run() {
	local s=$1 locks=$2 rep=$3 pid
	fio --name=hold --filename="/dev/$dev" --ioengine=io_uring \
		--direct=1 --bs=4k --rw=randread --numjobs=1 \
		--iodepth="$QD" --iodepth_batch_submit="$BATCH" \
		--iodepth_batch_complete_min="$BATCH" \
		--iodepth_batch_complete_max="$BATCH" --cpus_allowed=1 \
		--runtime=$((SECS + 3)) --time_based >/tmp/fio-hold.out 2>&1 &
	pid=$!
	sleep 1
	echo "$locks" >$HOLD/start
	sleep "$SECS"
	echo 1 >$HOLD/stop
	wait $pid || fail "fio (hold meter) failed on $s: $(cat /tmp/fio-hold.out)"
	awk -v s="$s" -v r="$rep" '
		{ w = 0 }
		$1 == "swept" { w = 1; $1 = ""; $0 = $0 }
		$1 == "samples" {
			printf "hold: sched=%s sweep=%s rep=%s ios=%s samples=%s ns=%s\n",
				s, w, r, $6, $2, $4
			next }
		{ printf "hold: sched=%s sweep=%s rep=%s lock=%s held=%s holds=%s p25=%s p50=%s p75=%s\n",
			s, w, r, $1, $2, $3, $4, $5, $6 }' $HOLD/stats
}
if [ -z "$hold_skipped" ]; then
	declare -A hold_locks
	for s in "${scheds[@]}"; do
		locks=$(for j in $jobs_list; do echo "${meter[$j,$s]:-}"; done |
			awk 'NF { print $1 }')
		[ "$s" != split-deadline ] || locks="dispatch_lock $locks"
		hold_locks[$s]=$(echo "$locks" | tr ' ' '\n' |
			awk 'NF && !seen[$1]++' | paste -sd, -)
	done
	for rep in $(seq "$REPS"); do
		for k in $(bench_rotate "${#scheds[@]}" "$rep"); do
			s=${scheds[$k]}
			[ -n "${hold_locks[$s]}" ] || continue
			set_sched "$dev" "$s"
			hold_run "$s" "${hold_locks[$s]}" "$rep"
		done
	done
	rmmod blkfast-lockhold
else
	echo "hold: skipped: $hold_skipped"
fi
# Hand-off meter (tests/modules/blkfast-handoff.c): with no I/O, vCPUs 0
# and 1 pass one spinlock back and forth, each acquisition after the
# other's release: what a lock that another CPU waits for costs beyond
# its hold, the model's t.  A first pass warms up and is not printed.
if [ "$ncpu" -ge 2 ] && modprobe blkfast-handoff cpus=0,1; then
	HO=/sys/module/blkfast_handoff/parameters/rounds
	echo 10000 >$HO
	for rep in $(seq "$REPS"); do
		echo 100000 >$HO || fail "the hand-off meter failed"
		read -r _ n _ t <$HO
		echo "handoff: rep=$rep handoffs=$n ns=$t"
	done
	rmmod blkfast-handoff
else
	echo "handoff: skipped"
fi
# meter_side J S SIDE: slow-path entries per I/O of SIDE, all locks.
meter_side() {
	echo "${meter[$1,$2]:-}" | awk -v side="$3" '$2 == side { e += $3 }
		END { printf "%.4f", e }'
}

# floor_pairs: split-deadline and mq-deadline against bf-fifo-global run
# by run.  A repeat runs every scheduler within seconds, and the emulated
# host speeds up and slows down for longer than that, so the ratio within
# a repeat moves less between boots than the ratio of medians does.  The
# CPU column is what each I/O costs over the floor: the deadline policy's
# work, with its lock's contention, which mq-deadline has too.
floor_pairs() {
	local j s goal ok q1 q2 q3
	echo
	echo "### Against the floor, repeat by repeat"
	echo
	echo "Each run divided by the bf-fifo-global run of the same repeat;" \
		"median and quartiles of those ratios.  Goals (issue 17):" \
		"split-deadline >= 0.92x the floor with a vCPU per host core" \
		"(2 vCPUs here), >= 0.85x at the highest contention point" \
		"(oversubscribed).  mq-deadline is the same policy under one lock."
	echo
	echo "| jobs | scheduler | IOPS / bf-fifo-global | quartiles | guest us/IO over the floor | goal |"
	echo "|---:|---|---:|---:|---:|---|"
	for j in $jobs_list; do
		for s in split-deadline mq-deadline; do
			# iops[] and gcpu[] hold one value per repeat, in order.
			read -r q1 q2 q3 <<<"$(quartiles "$(pairwise / \
				"${iops[$j,$s]}" "${iops[$j,bf-fifo-global]}")")"
			goal=-
			if [ "$s" = split-deadline ]; then
				if [ "$ncpu" -le 2 ]; then
					goal=0.92
				elif [ "$j" = "$last_j" ]; then
					goal=0.85
				fi
			fi
			ok=-
			[ "$goal" = - ] || ok=$(awk -v r="$q2" -v g="$goal" \
				'BEGIN { print (r >= g) ? "meets " g : "BELOW " g }')
			printf '| %s | %s | %s | %s-%s | %s | %s |\n' "$j" "$s" \
				"$q2" "$q1" "$q3" "$(median "$(pairwise - \
				"${gcpu[$j,$s]}" "${gcpu[$j,bf-fifo-global]}")")" "$ok"
		done
	done
}

# pairwise OP A B: A's and B's values (space-separated), element by
# element, as A/B (OP "/") or A-B (OP "-").
pairwise() {
	awk -v op="$1" -v a="$2" -v b="$3" 'BEGIN {
		n = split(a, x, " "); split(b, y, " ")
		for (i = 1; i <= n; i++)
			if (op == "/")
				printf " %.4f", x[i] / y[i]
			else
				printf " %.2f", x[i] - y[i]
	}'
}

has() {
	local x
	for x in "${scheds[@]}"; do [ "$x" = "$1" ] && return 0; done
	return 1
}

echo "### Setup"
echo
echo "fio io_uring 4k randread, QD$QD per job, batch submit/complete $BATCH/$BATCH," \
	"$what;" \
	"$ncpu vCPUs; $REPS repeats x ${SECS}s (+0.5s ramp), schedulers interleaved," \
	"order rotated per repeat; ${elapsed}s of runs."
if [ -n "$floors_skipped" ]; then
	echo
	echo "**Skipped:** the floors bf-fifo-hctx and bf-fifo-global (the" \
		"test-only blkfast-fifo module did not load: $floors_skipped)."
fi
echo
echo "CPU columns: CPU microseconds per I/O (medians). fio sys = system time of" \
	"fio's threads; guest = all non-idle guest CPU time over the fio run" \
	"from the first I/O to fio's exit (incl. kworkers, softirqs)."
declare -A med
for j in $jobs_list; do
	echo
	echo "### $j job(s) on $ncpu vCPUs"
	echo
	echo "| scheduler | median IOPS | min-max IOPS | spread | fio sys us/IO | guest us/IO | vs none | vs mq-deadline |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|"
	for s in "${scheds[@]}"; do
		# shellcheck disable=SC2086
		med[$j,$s]=$(median ${iops[$j,$s]})
	done
	for s in "${scheds[@]}"; do
		m=${med[$j,$s]}
		# shellcheck disable=SC2086
		mm=$(minmax ${iops[$j,$s]})
		spread=$(awk -v r="$mm" -v m="$m" 'BEGIN { split(r, a, "-");
			printf "%.0f%%", (a[2] - a[1]) * 100 / m }')
		vn=- vm=-
		has none && vn=$(ratio "$m" "${med[$j,none]}")
		has mq-deadline && vm=$(ratio "$m" "${med[$j,mq-deadline]}")
		# shellcheck disable=SC2086
		printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$s" "$m" \
			"$mm" "$spread" "$(median ${fsys[$j,$s]})" \
			"$(median ${gcpu[$j,$s]})" "$vn" "$vm"
	done
done

if has split-deadline && has none && has mq-deadline; then
	echo
	echo "### split-deadline ratios (median IOPS) on $ncpu vCPUs"
	echo
	echo "| jobs | split-deadline / none (target >= 0.95x) | split-deadline / mq-deadline (target >= 2x at the highest contention) |"
	echo "|---:|---:|---:|"
	for j in $jobs_list; do
		printf '| %s | %s | %s |\n' "$j" \
			"$(ratio "${med[$j,split-deadline]}" "${med[$j,none]}")" \
			"$(ratio "${med[$j,split-deadline]}" "${med[$j,mq-deadline]}")"
		last=$j
	done
	if has bf-fifo-global; then
		echo
		echo "Floors: bf-fifo-hctx (a FIFO per hardware queue, no policy) is what" \
			"any 6.1 elevator costs over none; bf-fifo-global (one FIFO," \
			"one lock) is the cheapest elevator that keeps one device-wide" \
			"order, which mq-deadline's semantics need."
		echo
		echo "| jobs | bf-fifo-hctx / none | bf-fifo-global / none | split-deadline / bf-fifo-global |"
		echo "|---:|---:|---:|---:|"
		for j in $jobs_list; do
			printf '| %s | %s | %s | %s |\n' "$j" \
				"$(ratio "${med[$j,bf-fifo-hctx]}" "${med[$j,none]}")" \
				"$(ratio "${med[$j,bf-fifo-global]}" "${med[$j,none]}")" \
				"$(ratio "${med[$j,split-deadline]}" "${med[$j,bf-fifo-global]}")"
		done
	fi
	if has bf-fifo-global; then
		floor_pairs
	fi
	rn=$(ratio "${med[$last,split-deadline]}" "${med[$last,none]}")
	rmq=$(ratio "${med[$last,split-deadline]}" "${med[$last,mq-deadline]}")
	okn=$(awk -v r="${rn%x}" 'BEGIN { print (r >= 0.95) ? "meets" : "BELOW" }')
	okm=$(awk -v r="${rmq%x}" 'BEGIN { print (r >= 2) ? "meets" : "BELOW" }')
	echo
	echo "Headline at $last jobs on $ncpu vCPUs: split-deadline/none = $rn" \
		"($okn target 0.95x), split-deadline/mq-deadline = $rmq ($okm target 2x)."
fi
echo
echo "### Contention meter"
echo
if [ -n "$meter_skipped" ]; then
	echo "**Skipped:** the test-only blkfast-lockstat module did not load:" \
		"$meter_skipped."
else
	echo "One more run per point with a kretprobe on" \
		"native_queued_spin_lock_slowpath(), counting the locks inside the" \
		"elevator's data (split-deadline's by name, others by offset):" \
		"per I/O, how often a submitter (insert, merge) or a dispatcher" \
		"found one held, and the spin in ns."
	echo
	echo "| jobs | scheduler | lock | side | slow-path entries / IO | spin ns / IO |"
	echo "|---:|---|---|---|---:|---:|"
	for j in $jobs_list; do
		for s in "${scheds[@]}"; do
			[ "$s" != none ] || continue
			if [ -z "${meter[$j,$s]:-}" ]; then
				printf '| %s | %s | - | - | 0 | 0 |\n' "$j" "$s"
				continue
			fi
			echo "${meter[$j,$s]}" | while read -r l side e ns; do
				printf '| %s | %s | %s | %s | %s | %s |\n' "$j" \
					"$s" "$l" "$side" "$e" "$ns"
			done
		done
	done
	if has split-deadline && has mq-deadline; then
		sd=$(meter_side "$last_j" split-deadline submit)
		mq=$(meter_side "$last_j" mq-deadline submit)
		r=$(ratio "$sd" "$mq")
		ok=$(awk -v a="$sd" -v b="$mq" 'BEGIN {
			print (b > 0 && a <= 0.1 * b) ? "meets" : "BELOW" }')
		echo
		echo "Submit-side slow-path entries per I/O at $last_j jobs:" \
			"split-deadline $sd, mq-deadline $mq: $r ($ok target <= 0.1x)."
	fi
fi
