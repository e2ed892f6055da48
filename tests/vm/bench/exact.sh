#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The exact cost of an I/O, run inside a VM booted in exact time
# (scripts/vm.sh -e, by scripts/bench-exact.sh): guest nanoseconds and
# instructions per I/O (lib/exact.sh), for fio io_uring 4k random reads
# with fio's own per-I/O clock reads off (gtod_reduce), 1 job, at QD1 and
# QD32 (batches of 16).
#
# Part "pdm", stacked devices over identical null_blk devices with a
# submit and a poll queue each: raw, the floor (tests/modules/
# blkfast-remap.c's bfremap0: pass-through, no bookkeeping), the floor
# with pdm's duties (its bfremap1: an in-flight count, disk statistics
# and an end_io hook with a record per bio), dm-linear, and pdm linear
# in each poll_mode; each polled (hipri=1, reaped from the poll
# queue, where null_blk completes at the first poll) and by interrupt
# (hipri=0, null_blk irqmode=2 completion_nsec=0: an hrtimer per request,
# in hardirq context); and at QD32 each again with queue/iostats off
# ("-nostats").
# Part "sched", the elevators on one null_blk device with one hardware
# queue and no poll queue, completing in its queue_rq path (irqmode=1,
# which blk_mq_complete_request() completes locally here): none,
# mq-deadline, split-deadline and kyber.
#
# Arguments (KEY=VALUE): parts=pdm,sched ios=100000 (I/Os per measured
# run; a second run of ios/4 takes out fio's start-up) qds=1,32,
# stacks=all (or a comma-separated list of the rows' first words: raw,
# floor, dm-linear, pdm-MODE, none, mq-deadline, ...), nostats=1 (0: no
# "-nostats" rows), and
# profile=STACK,... to profile those rows instead of measuring the matrix
# (lib/exact.sh's exact_profile: pdm's stacks polled at QD32, the
# elevators at each QD), each next to its baseline (raw, none): the top
# symbols and what grew.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/bench.sh"

PARTS=pdm,sched IOS=100000 QDS=1,32 PROFILE='' TOP=20 STACKS=all NOSTATS=1
bench_args "parts ios qds profile top stacks nostats" "$@"
in_exact_time || fail "not in exact time: boot with scripts/vm.sh -e"
want() {
	case ,$PARTS, in *,"$1",*) return 0 ;; esac
	return 1
}
IFS=, read -r -a qds <<<"$QDS"
# wanted STACK: STACK's rows are among those stacks= asks for.
wanted() {
	[ "$STACKS" = all ] && return 0
	case ,$STACKS, in *,"$1",*) return 0 ;; esac
	return 1
}

# fio's job at QD $1: batches of half the depth, as the wall-clock
# benchmarks submit.
job() {
	local b=$(($1 / 2))
	[ $b -ge 1 ] || b=1
	echo --ioengine=io_uring --direct=1 --bs=4k --rw=randread \
		--iodepth="$1" --iodepth_batch_submit=$b \
		--iodepth_batch_complete=$b --gtod_reduce=1
}

order=()
if want pdm; then
	nullb_load queue_mode=2 nr_devices=5 submit_queues=1 poll_queues=1 \
		irqmode=2 completion_nsec=0 hw_queue_depth=256 gb=4
	run modprobe pdm
	export DM_DISABLE_UDEV=1
	run dmsetup create dml --table "0 $(cat /sys/block/nullb1/size) linear /dev/nullb1 0"
	run pdmsetup create pl --table "0 $(cat /sys/block/nullb2/size) linear /dev/nullb2 0" >/dev/null
	run modprobe blkfast-remap lower=/dev/nullb3 lower2=/dev/nullb4
	wait_for_block bfremap0
	wait_for_block bfremap1
	pdm=$(basename "$(ls -d /sys/block/nullb2/holders/pdm*)")
	dm=$(basename "$(ls -d /sys/block/nullb1/holders/dm-*)")
	declare -A dev=([raw]=nullb0 [floor]=bfremap0
		[floor-duties]=bfremap1 [dm-linear]=$dm)
	stacks=(raw floor floor-duties dm-linear)
	for m in direct tracked sweep sweep_wait; do
		dev[pdm-$m]=$pdm
		stacks+=("pdm-$m")
	done
	for qd in "${qds[@]}"; do
		for way in polled irq; do
			for s in "${stacks[@]}"; do
				wanted "$s" || continue
				order+=("$s $way qd$qd")
			done
			if [ "$qd" != 32 ] || [ "$NOSTATS" != 1 ]; then
				continue
			fi
			for s in raw dm-linear pdm-direct pdm-tracked; do
				wanted "$s" || continue
				order+=("$s-nostats $way qd$qd")
			done
		done
	done
fi
if want sched; then
	modprobe null_blk 2>/dev/null || true
	nullb_cfs nsched queue_mode=2 submit_queues=1 irqmode=1 \
		hw_queue_depth=256 size=4096
	run modprobe split-deadline
	modprobe kyber-iosched 2>/dev/null || true
	for qd in "${qds[@]}"; do
		for s in none mq-deadline split-deadline kyber; do
			wanted "$s" || continue
			grep -qw "$s" /sys/block/nsched/queue/scheduler || continue
			order+=("$s qd$qd")
		done
	done
fi

# setup CONFIG: the device (into d), hipri and QD for CONFIG, with its
# scheduler, poll mode and statistics set.
setup() {
	local stack way q stats=1
	read -r stack way q <<<"$1"
	if [ -z "$q" ]; then
		q=$way way=irq
	fi
	qd=${q#qd} hipri=0
	[ "$way" = polled ] && hipri=1
	case $stack in
	*-nostats) stack=${stack%-nostats} stats=0 ;;
	esac
	case $stack in
	none | mq-deadline | split-deadline | kyber)
		set_sched nsched "$stack"
		d=nsched
		return ;;
	esac
	d=${dev[$stack]}
	echo "$stats" >"/sys/block/$d/queue/iostats"
	case $stack in
	pdm-*) echo "${stack#pdm-}" >"/sys/block/$d/pdm/poll_mode" ;;
	esac
}

# profiled CONFIG: CONFIG is a row profile= asks for, or its baseline.
profiled() {
	local stack rest
	read -r stack rest <<<"$1"
	case $rest in
	"polled qd32" | qd*) ;;
	*) return 1 ;;
	esac
	case ,$PROFILE,raw,none, in *,"$stack",*) return 0 ;; esac
	return 1
}

if [ -n "$PROFILE" ]; then
	for c in "${order[@]}"; do
		profiled "$c" || continue
		setup "$c"
		# shellcheck disable=SC2046 # job's words
		exact_profile "$c" "$IOS" --filename="/dev/$d" $(job "$qd") \
			--hipri=$hipri
	done
	echo
	echo "### Exact profiles: 1 vCPU in exact time, $IOS I/Os per row"
	echo
	echo "perf record -a -e cpu-clock every $EXACT_PERIOD ns of guest"
	echo "time (= instructions), fio's I/O window only; instr/IO ="
	echo "samples x $EXACT_PERIOD / I/Os.  Sampling adds its own"
	echo "interrupts, so totals run above the unprofiled instr/IO."
	for c in "${order[@]}"; do
		profiled "$c" || continue
		case $c in
		*" polled qd32") base="raw polled qd32" ;;
		*) base="none ${c##* }" ;;
		esac
		echo
		echo "#### $c: top $TOP symbols"
		echo
		exact_profile_table "$c" "$TOP"
		[ "$c" != "$base" ] || continue
		echo
		echo "What changed from $base, per I/O (the $TOP that grew most, the $TOP that shrank most):"
		echo
		exact_profile_diff "$c" "$base" "$TOP"
	done
	echo PASS
	exit 0
fi

for c in "${order[@]}"; do
	setup "$c"
	# shellcheck disable=SC2046 # job's words
	exact_fio "$c" "$IOS" --filename="/dev/$d" $(job "$qd") --hipri=$hipri
	echo 1 >"/sys/block/$d/queue/iostats"
done

echo
echo "### Exact cost per I/O: 1 vCPU in exact time, $IOS I/Os per row"
echo
echo "fio io_uring 4k randread, 1 job, batches of QD/2, gtod_reduce."
echo "**ns/IO**: guest time per I/O (fio's runtime; 1e9 / IOPS);"
echo "**instr/IO**: busy guest time per I/O, i.e. instructions."
if want pdm; then
	for qd in "${qds[@]}"; do
		for way in polled irq; do
			echo
			echo "#### Stacked, $way, QD$qd"
			echo
			rows=()
			for c in "${order[@]}"; do
				case $c in *" $way qd$qd") rows+=("$c") ;; esac
			done
			exact_table "raw $way qd$qd" "${rows[@]}"
			k="$way qd$qd"
			echo
			echo "- added over raw, as a share of dm-linear's:" \
				"pdm direct $(exact_share "pdm-direct $k" "dm-linear $k" "raw $k")," \
				"tracked $(exact_share "pdm-tracked $k" "dm-linear $k" "raw $k")," \
				"sweep $(exact_share "pdm-sweep $k" "dm-linear $k" "raw $k")," \
				"floor $(exact_share "floor $k" "dm-linear $k" "raw $k")"
			echo "- pdm direct over the floor: $(exact_over "pdm-direct $k" "floor $k") instr/IO; over the floor with pdm's duties: $(exact_over "pdm-direct $k" "floor-duties $k"); the duties over the floor: $(exact_over "floor-duties $k" "floor $k")"
			[ "$qd" = 32 ] || continue
			echo "- statistics (iostats on less off): raw" \
				"$(exact_over "raw $k" "raw-nostats $k")," \
				"dm-linear $(exact_over "dm-linear $k" "dm-linear-nostats $k")," \
				"pdm direct $(exact_over "pdm-direct $k" "pdm-direct-nostats $k")," \
				"tracked $(exact_over "pdm-tracked $k" "pdm-tracked-nostats $k") instr/IO"
		done
	done
fi
if want sched; then
	for qd in "${qds[@]}"; do
		echo
		echo "#### Elevators, unpolled, QD$qd"
		echo
		rows=()
		for c in "${order[@]}"; do
			case $c in *" qd$qd") [[ $c == *" "*" "* ]] || rows+=("$c") ;; esac
		done
		exact_table "none qd$qd" "${rows[@]}"
		echo
		echo "- added over none: split-deadline as a share of" \
			"mq-deadline's: $(exact_share "split-deadline qd$qd" \
				"mq-deadline qd$qd" "none qd$qd")"
	done
fi
if want pdm; then
	run pdmsetup remove pl
	run dmsetup remove dml
	run rmmod blkfast_remap
fi
echo PASS
