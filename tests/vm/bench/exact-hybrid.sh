#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Hybrid polling in exact time (scripts/vm.sh -e, by scripts/bench-exact.sh):
# pdm linear over the test-only slowpoll disk (tests/modules/
# blkfast-slowpoll.c), whose requests complete a fixed service time after
# issue, polled or not; under icount that time is exact in guest time and
# a sleeping guest skips straight to its timer, so the CPU a mode spends
# per I/O (instr/IO) and the IOPS it gets (1e9 / ns/IO) are both exact.
# 4k random reads, 1 job, QD1 and QD8, service times 100 us and 1 ms;
# modes: classic polling (hybrid off), gate, sleep, and interrupts (irq:
# hipri=0, slowpoll's hrtimer completion).  Each configuration first runs
# 200 I/Os to learn its estimate.
#
# Mixed legs: one pdm device whose first half is slowpoll at 1 ms and
# whose second half is null_blk's poll queue; a job reading the fast half
# alone, then beside a second job reading the slow half (both polled, in
# the same hybrid mode; and, as the reference, the slow job by interrupts).
# With one vCPU the two jobs share it: the fast job keeps its IOPS only
# if the slow job gives the CPU up while its I/O is in flight.
#
# Arguments (KEY=VALUE): secs=0.5 (guest seconds per measured run),
# services=100,1000 qds=1,8
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/bench.sh"

SECS=0.5 SERVICES=100,1000 QDS=1,8
bench_args "services qds" "$@"
in_exact_time || fail "not in exact time: boot with scripts/vm.sh -e"
IFS=, read -r -a services <<<"$SERVICES"
IFS=, read -r -a qds <<<"$QDS"

run modprobe blkfast-slowpoll service_us=100
wait_for_block slowpoll0
nullb_load queue_mode=2 submit_queues=1 poll_queues=1 gb=1
run modprobe pdm
half=$((256 * 2048))
# Read-only: the mixed device below writes the same sectors (pdm-overlap).
run pdmsetup create hy --readonly --table "0 $half linear /dev/slowpoll0 0" \
	>/dev/null
run pdmsetup create mix --table "$(printf '0 %s linear /dev/slowpoll0 0\n%s %s linear /dev/nullb0 0' \
	$half $half $half)" >/dev/null
# Named in the order made (no udev here for /dev/pdm/NAME).
hy=pdm0 mix=pdm1
sp=/sys/module/blkfast_slowpoll/parameters/service_us

# io QD HIPRI: fio's job for one read stream at QD.
io() {
	echo --ioengine=io_uring --direct=1 --bs=4k --rw=randread \
		--iodepth="$1" --hipri="$2" --gtod_reduce=1
}

modes=(classic gate sleep irq)
for us in "${services[@]}"; do
	echo "$us" >"$sp"
	for qd in "${qds[@]}"; do
		# I/Os for SECS of guest time at this service time and depth.
		n=$(awk -v s="$SECS" -v q="$qd" -v us="$us" \
			'BEGIN { printf "%d", s * 1e6 * q / us }')
		for m in "${modes[@]}"; do
			h=off hipri=1
			case $m in
			irq) hipri=0 ;;
			gate | sleep) h=$m ;;
			esac
			echo "$h" >"/sys/block/$hy/pdm/hybrid"
			# shellcheck disable=SC2046 # io's words
			fio_run warm --filename="/dev/$hy" $(io "$qd" $hipri) \
				--number_ios=200
			# shellcheck disable=SC2046
			exact_fio "sp$us qd$qd $m" "$n" --filename="/dev/$hy" \
				$(io "$qd" $hipri)
		done
	done
done

# The mixed legs: the fast half alone, then beside the slow half's job.
echo 1000 >"$sp"
fast=(--filename="/dev/$mix" --offset=$((half * 512)) --size=$((half * 512)))
for h in off gate sleep irq; do
	# irq: the reference, the slow job by interrupts (the least CPU its
	# I/O can take), the fast one polled as in "off".
	slow_hipri=1
	[ $h != irq ] || slow_hipri=0
	echo "${h/irq/off}" >"/sys/block/$mix/pdm/hybrid"
	# shellcheck disable=SC2046
	fio_run warm "${fast[@]}" $(io 8 1) --number_ios=2000
	# shellcheck disable=SC2046
	exact_fio "mix $h fast alone" 20000 "${fast[@]}" $(io 8 1)
	# shellcheck disable=SC2046
	fio --name=slow --filename="/dev/$mix" --size=$((half * 512)) \
		$(io 8 $slow_hipri) --time_based --runtime=3600 >/dev/null 2>&1 &
	slow=$!
	# Its estimate learned, its ring polling.
	sleep 0.2
	# shellcheck disable=SC2046
	exact_fio "mix $h fast beside slow" 20000 "${fast[@]}" $(io 8 1)
	kill -INT $slow
	wait $slow || true
done

echo
echo "### Hybrid polling in exact time: pdm over slowpoll, 1 job, 1 vCPU"
echo
echo "ns/IO is guest time per I/O (1e9 / IOPS), instr/IO the CPU busy per"
echo "I/O; vs classic: the ratio to classic polling at the same point."
echo "Goals: sleep at most 0.2x classic's instr/IO at 1 ms and 0.5x at"
echo "100 us, at no less than 0.95x its IOPS."
for us in "${services[@]}"; do
	echo
	echo "#### Service time $us us"
	echo
	echo "| QD | mode | ns/IO | IOPS | vs classic | instr/IO | vs classic |"
	echo "|---:|---|---:|---:|---:|---:|---:|"
	for qd in "${qds[@]}"; do
		b="sp$us qd$qd classic"
		for m in "${modes[@]}"; do
			c="sp$us qd$qd $m"
			printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$qd" "$m" \
				"${EXACT_NS[$c]}" \
				"$(awk -v ns="${EXACT_NS[$c]}" 'BEGIN { printf "%.0f", 1e9 / ns }')" \
				"$(awk -v a="${EXACT_NS[$b]}" -v b="${EXACT_NS[$c]}" 'BEGIN { printf "%.3fx", a / b }')" \
				"${EXACT_INSTR[$c]}" \
				"$(awk -v a="${EXACT_INSTR[$c]}" -v b="${EXACT_INSTR[$b]}" 'BEGIN { printf "%.3fx", a / b }')"
		done
	done
	echo
	cap=0.5
	[ "$us" -lt 1000 ] || cap=0.2
	for qd in "${qds[@]}"; do
		for m in gate sleep; do
			b="sp$us qd$qd classic" c="sp$us qd$qd $m"
			awk -v m="$m" -v q="$qd" -v cap="$cap" \
				-v ci="${EXACT_INSTR[$c]}" -v bi="${EXACT_INSTR[$b]}" \
				-v cn="${EXACT_NS[$c]}" -v bn="${EXACT_NS[$b]}" 'BEGIN {
				i = ci / bi; p = bn / cn
				printf "- QD%s %s: %.3fx the CPU for %.3fx the IOPS", q, m, i, p
				if (m == "sleep")
					printf " (goal: <= %sx for >= 0.95x: %s)", cap,
						(i <= cap && p >= 0.95) ? "met" : "**not met**"
				printf "; io_uring 6.13 hybrid traded 0.62x IOPS for 0.50x CPU\n" }'
		done
	done
done
echo
echo "#### Mixed legs: slowpoll at 1 ms and null_blk, one job each, QD8"
echo
echo "Both jobs share the one vCPU, so the fast job keeps at most what the"
echo "slow job's own I/O leaves it: the irq row (the slow job by"
echo "interrupts, hybrid off) is that ceiling."
echo
echo "| hybrid | fast job alone, ns/IO | beside the slow job | fast IOPS kept | goal >= 0.95 |"
echo "|---|---:|---:|---:|---|"
for h in off gate sleep irq; do
	a=${EXACT_NS["mix $h fast alone"]} b=${EXACT_NS["mix $h fast beside slow"]}
	awk -v h="$h" -v a="$a" -v b="$b" 'BEGIN { r = a / b
		printf "| %s | %d | %d | %.3fx | %s |\n", h, a, b, r,
			(r >= 0.95 ? "met" : "**not met**") }'
done
echo
for d in "$hy" "$mix"; do
	echo "- $d: sleeps $(cat /sys/block/$d/pdm/hybrid_sleeps), late wake-ups $(cat /sys/block/$d/pdm/hybrid_late_wakeups), learned wake-up lateness $(cat /sys/block/$d/pdm/hybrid_wake_late_ns) ns, sleeps refused $(cat /sys/block/$d/pdm/hybrid_sleep_refused), first poll after a sleep found a completion $(cat /sys/block/$d/pdm/hybrid_sleep_ready) / not yet $(cat /sys/block/$d/pdm/hybrid_sleep_early) times"
done
run pdmsetup remove hy
run pdmsetup remove mix
echo PASS
