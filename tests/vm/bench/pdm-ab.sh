#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest half of scripts/bench-pdm-ab.sh: builds of pdm compared in one
# boot.  Each build (/blkfast/extra/NAME/pdm.ko and its pdmsetup) is
# loaded in turn, the order rotated per repeat, with a linear table over
# nullb0; each of its runs (by default 4k randread QD32 batched, polled,
# 1 job pinned to vCPU 1), tracked and direct, is paired with a run of the
# floor (blkfast-remap over nullb1, an identical device) just before it
# in odd repeats and just after it in even ones, so that whatever the
# second run of a pair gains or loses by coming second cancels out.
# The host of an emulated guest slows down and speeds up for many seconds
# at a time; a pair's two runs share that state, so the ratio of a pair is
# steadier than the ratio of two medians.  Prints each build's median
# pdm/floor ratio and its quartiles, and the median of each order.
#
# Arguments (KEY=VALUE): reps=10 secs=1.5 qd=32 jobs=1 (2 jobs: one per
# vCPU) hipri=1 (0: interrupt-driven) iostats=1 (pdm's queue/iostats)
# irqmode=2 (null_blk's: 2 a timer, 1 a softirq; polled I/O is reaped by
# polling either way) modes=tracked,direct (poll_modes; MODE-noacct is
# MODE with queue/iostats off, e.g. modes=direct,direct-noacct for what
# the statistics cost in one boot).
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/bench.sh"
REPS=10 SECS=1.5 QD=32 JOBS=1 HIPRI=1 IOSTATS=1 IRQMODE=2 MODES=tracked,direct
bench_args "qd jobs hipri iostats irqmode modes" "$@"
read -ra modes_list <<<"${MODES//,/ }"

extra=/blkfast/extra
builds=()
for b in "$extra"/*/; do
	[ -f "$b/pdm.ko" ] && builds+=("$(basename "$b")")
done
[ ${#builds[@]} -gt 0 ] || fail "no builds in $extra (scripts/bench-pdm-ab.sh)"
pdm_ab_devices "$IRQMODE"
sz=$(cat /sys/block/nullb0/size)
pdm_ab_job "$QD" "$JOBS" "$HIPRI"
fio_args=("${PDM_AB_FIO[@]}" --runtime="$SECS" --time_based --ramp_time=0.5)
# The two runs of a pair: IOPS of the floor into f, of CONFIG on pdm0 into p.
run_floor() {
	bench_fio "floor" --filename=/dev/bfremap0 "${fio_args[@]}"
	f=$(fio_field 8)
}
run_pdm() {
	bench_fio "$1" --filename=/dev/pdm0 "${fio_args[@]}"
	p=$(fio_field 8)
}

for rep in $(seq "$REPS"); do
	for k in $(bench_rotate "${#builds[@]}" "$rep"); do
		b=${builds[$k]}
		run insmod "$extra/$b/pdm.ko"
		"$extra/$b/pdmsetup" create ab --table "0 $sz linear /dev/nullb0 0" \
			>/dev/null || fail "$b: pdmsetup create"
		# The modes in turn, in reverse order in even repeats.
		modes=()
		for m in "${modes_list[@]}"; do
			if [ $((rep % 2)) = 1 ]; then
				modes+=("$m")
			else
				modes=("$m" "${modes[@]}")
			fi
		done
		for m in "${modes[@]}"; do
			echo "${m%-noacct}" >/sys/block/pdm0/pdm/poll_mode ||
				fail "poll_mode ${m%-noacct}"
			st=$IOSTATS
			[ "$m" = "${m%-noacct}" ] || st=0
			echo "$st" >/sys/block/pdm0/queue/iostats
			if [ $((rep % 2)) = 1 ]; then
				order=floor-first
				run_floor
				run_pdm "$b $m"
			else
				order=pdm-first
				run_pdm "$b $m"
				run_floor
			fi
			r=$(awk -v a="$p" -v b="$f" 'BEGIN { printf "%.4f", a / b }')
			bench_extra "$b $m" "$r"
			bench_extra "$b $m $order" "$r"
		done
		"$extra/$b/pdmsetup" remove ab || fail "$b: pdmsetup remove"
		run rmmod pdm
	done
done

echo
polled=polled
[ "$HIPRI" = 1 ] || polled="interrupts (null_blk irqmode=$IRQMODE)"
echo "### pdm builds in one boot: $(nproc) vCPUs, 4k randread QD$QD x $JOBS job(s), batches of $PDM_AB_BATCH, $polled, pdm iostats=$IOSTATS, $REPS x ${SECS}s"
echo
echo "Each run of a build paired with a floor run (bfremap0) just before it"
echo "(odd repeats) or just after it (even repeats)."
echo
echo "| build | mode | pdm/floor, median of pairs | quartiles | floor first / pdm first | IOPS (median) | CPU us/IO |"
echo "|---|---|---:|---:|---:|---:|---:|"
for b in "${builds[@]}"; do
	for m in "${modes_list[@]}"; do
		read -r q1 q2 q3 <<<"$(quartiles "${BENCH_EXTRA[$b $m]}")"
		ff=$(median "${BENCH_EXTRA[$b $m floor-first]:-}")
		pf=$(median "${BENCH_EXTRA[$b $m pdm-first]:-}")
		echo "| $b | $m | $q2 | $q1-$q3 | $ff / $pf | $(bench_median "$b $m") | $(median "${BENCH_CPU[$b $m]}") |"
	done
done
