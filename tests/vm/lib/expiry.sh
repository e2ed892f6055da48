# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# FIFO expiry side by side with mq-deadline, for either direction; sourced
# by sd-read-expiry and sd-write-expiry after lib.sh.
#
# In (mq-)deadline an expiry orders requests of one direction against each
# other: a new batch of that direction continues the sector sweep unless
# the direction's oldest request has expired.  (Which direction gets the
# batch is writes_starved's business, whatever the expiries say.)  So the
# victim, a QD1 job in the first 64 MiB, competes with a strided
# sequential stream of the same direction higher up (always a request
# queued further along the sweep, no merges) and with a random flood of
# the other direction, on a slow null_blk with 2 driver tags.  It is
# dispatched only once its FIFO deadline has passed, so its completion
# latency sits just above the expiry.
#
# mq-deadline (nullb0, the reference) runs first and alone, until it has
# shown the situation; then split-deadline (nullb1), alone too, so that
# nothing it does (burning CPU, say) can keep the reference from showing
# it and turn a failure into a SKIP.  With the victim's expiry
# at E (the other direction's at 60 s), the reference must first show the
# situation in this boot: its victim's median latency in [E/2, 2E + 100 ms]
# (the stream really starves the victim, and the expiry really ends the
# wait) and its max <= E + 1500 ms (no request waited for the stream to
# end).  A boot that cannot create it is measured again, up to 3 times,
# then SKIPs.  split-deadline's victim must then match: median within
# 0.5x-2x (+ 50 ms) of mq-deadline's, max <= 2x mq-deadline's max + 100 ms,
# all its requests completed and the flood progressed at least a quarter
# as far.  E is 100 ms, then 200 ms.  A scheduler that ignored the tunable
# (or used the other direction's) fails the E=100 median, one that served
# the direction in FIFO order fails the lower bound, and one that never
# checked that FIFO, or only at the end of a sweep, leaves the victim
# waiting for the stream to end and fails median and max.

# expiry_field JOB N: field N of JOB's terse line.
expiry_field() {
	awk -F';' -v j="$1" -v f="$2" '$3 == j { print $f }' /tmp/expiry.out
}

# expiry_measure DIR E DEV...: one run on DEVs with DIR's expiry at E ms;
# the victim's requests, clat median and max (ms) and the flood's
# completed requests per device into EX_N[], EX_P50[], EX_MAX[] and
# EX_FLOOD[].
declare -A EX_N EX_P50 EX_MAX EX_FLOOD
expiry_measure() {
	local dir=$1 e=$2 other rw stat d v jobs=() common
	local kb p50 max got_kb got_p50 got_max
	local -A f0
	shift 2
	# Terse v3: read KiB, clat max and median (the 7th percentile of
	# fio's default list) at 6, 15 and 24; the write side at 47, 56, 65.
	# /sys/block/X/stat: reads completed at 1, writes at 5.
	case $dir in
	read) other=write rw=read kb=6 max=15 p50=24 stat=5 ;;
	write) other=read rw=write kb=47 max=56 p50=65 stat=1 ;;
	esac
	for d in "$@"; do
		echo "$e" >"/sys/block/$d/queue/iosched/${dir}_expire"
		echo 60000 >"/sys/block/$d/queue/iosched/${other}_expire"
		f0[$d]=$(awk -v f="$stat" '{ print $f }' "/sys/block/$d/stat")
		common=("--filename=/dev/$d" --direct=1 --bs=4k --runtime=5
			--time_based)
		# The victim starts once the stream and the flood are queued,
		# and the first victim's end ends all jobs (exitall): no victim
		# runs alone.  At QD16 the stream always has a request queued
		# further along the sweep, and its own requests wait well
		# under E, so the victim heads its direction's FIFO.
		jobs+=("--name=stream-$d" "${common[@]}" --ioengine=libaio
			--iodepth=16 "--rw=$rw:4k" --offset=512m
			"--name=flood-$d" "${common[@]}" --ioengine=libaio
			--iodepth=32 "--rw=rand$other" --offset=256m --size=256m
			"--name=victim-$d" "${common[@]}" --ioengine=psync
			"--rw=rand$rw" --size=64m --startdelay=500ms --runtime=2)
	done
	fio --output-format=terse --terse-version=3 --exitall "${jobs[@]}" \
		>/tmp/expiry.out 2>&1 || { cat /tmp/expiry.out; fail "fio failed"; }
	for d in "$@"; do
		v=victim-$d
		EX_FLOOD[$d]=$(( $(awk -v f=$stat '{ print $f }' \
			"/sys/block/$d/stat") - f0[$d] ))
		[ "$(expiry_field "$v" 5)" = 0 ] ||
			fail "$v: fio error $(expiry_field "$v" 5)"
		got_kb=$(expiry_field "$v" "$kb")
		got_p50=$(expiry_field "$v" "$p50")
		got_p50=${got_p50#*=}
		got_max=$(expiry_field "$v" "$max")
		expect_num "$v KiB" "$got_kb"
		expect_num "$v clat median" "$got_p50"
		expect_num "$v clat max" "$got_max"
		EX_N[$d]=$((got_kb / 4))
		EX_P50[$d]=$((got_p50 / 1000))
		EX_MAX[$d]=$((got_max / 1000))
		note "${SD_PAIR[$d]} ${dir}_expire=$e: victim ${EX_N[$d]}" \
			"${dir}s, clat median ${EX_P50[$d]} ms," \
			"max ${EX_MAX[$d]} ms; ${EX_FLOOD[$d]} ${other}s"
	done
}

# expiry_reference_ok DIR E: mq-deadline's victim waited for its expiry,
# not longer.
expiry_reference_ok() {
	local e=$2
	[ "${EX_N[nullb0]}" -ge 1 ] && [ "${EX_FLOOD[nullb0]}" -ge 1 ] &&
		[ "${EX_P50[nullb0]}" -ge $((e / 2)) ] &&
		[ "${EX_P50[nullb0]}" -le $((2 * e + 100)) ] &&
		[ "${EX_MAX[nullb0]}" -le $((e + 1500)) ]
}

# expiry_test DIR: the whole test, on the slow pair, for E = 100, 200.
expiry_test() {
	local dir=$1 e mq sd
	sd_slow_pair
	for e in 100 200; do
		with_reference "e=$e: mq-deadline's victim median never in [$((e / 2)), $((2 * e + 100))] ms with max <= $((e + 1500)) ms" \
			expiry_measure expiry_reference_ok "$dir" $e nullb0
		expiry_measure "$dir" $e nullb1
		mq=${EX_P50[nullb0]} sd=${EX_P50[nullb1]}
		expect_ge "e=$e: split-deadline victim ${dir}s" 1 "${EX_N[nullb1]}"
		expect_ge "e=$e: split-deadline victim median ms (>= mq's $mq / 2)" \
			$((mq / 2)) "$sd"
		expect_le "e=$e: split-deadline victim median ms (<= mq's $mq * 2 + 50)" \
			$((2 * mq + 50)) "$sd"
		expect_le "e=$e: split-deadline victim max ms (<= mq's ${EX_MAX[nullb0]} * 2 + 100)" \
			$((2 * EX_MAX[nullb0] + 100)) "${EX_MAX[nullb1]}"
		expect_ge "e=$e: split-deadline flood (>= mq's ${EX_FLOOD[nullb0]} / 4)" \
			$(( (EX_FLOOD[nullb0] + 3) / 4 )) "${EX_FLOOD[nullb1]}"
	done
	set_sched nullb0 none
	set_sched nullb1 none
}
