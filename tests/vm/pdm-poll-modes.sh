#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# 6.12-tier: every poll_mode against lower poll queues that may lose BLK_FEAT_POLL
# vm: -c 2 -d 48M -d 48M -t 400
# rt-tier: sweep and sweep_wait lock lower poll queues whose ->poll() takes sleeping locks there
# pdm's polling strategies over a 2-leg stripe of emulated NVMe disks:
# crc32c verify through every poll_mode (tracked, sweep, sweep_wait,
# direct) with hybrid off, gate and sleep (in the debug tier's core each
# mode once, off or sleep), each round's lower bios all
# completed by a poll and polled by the mode's own path (direct: bios within one
# chunk remapped in place and polled by io_uring itself, except while
# hybrid is on); then poll_mode and hybrid flipped every 100 ms under
# running polled verify I/O; then a pdm device in direct mode over the
# stripe (direct, then tracked) verifies polled I/O; then, over two
# null_blk devices with two poll queues each, a kprobe on null_blk's
# ->poll() shows each mode's own signature: tracked and direct poll only
# the queue their bios went to (direct without pdm's poll_bio), sweep and
# sweep_wait poll all four queues once per sweep; with three pollers sweep
# skips busy queues and sweep_wait never does.
. "$(dirname "$0")/lib/lib.sh"

run modprobe nvme poll_queues=1
wait_for_block nvme0n1
wait_for_block nvme1n1
run modprobe pdm
s=$(( $(cat /sys/block/nvme0n1/size) / 64 * 64 ))
run pdmsetup create st --table "0 $((2 * s)) striped 2 32 /dev/nvme0n1 0 /dev/nvme1n1 0" >/dev/null
sys=/sys/block/pdm0/pdm
# direct, but where the tier sets another (the debug tier: tracked).
want=
for m in tracked sweep sweep_wait direct; do
	[ "$m" != "$(pdm_new_mode)" ] || m="[$m]"
	want="$want${want:+ }$m"
done
expect_eq "default poll_mode" "$want" "$(cat $sys/poll_mode)"
expect_eq "default hybrid" "[off] gate sleep" "$(cat $sys/hybrid)"
if echo bogus >$sys/poll_mode 2>/dev/null; then
	fail "poll_mode accepted 'bogus'"
fi
if echo 2x >$sys/hybrid 2>/dev/null; then
	fail "hybrid accepted '2x'"
fi

verify() {
	fio_run "$1" --filename=/dev/pdm0 --ioengine=io_uring --direct=1 \
		--hipri=1 --rw=randwrite --bsrange=4k-64k --numjobs=2 \
		--size=6m --offset_increment=6m --iodepth=8 \
		--verify=crc32c --verify_fatal=1 --do_verify=1
	expect_eq "$1: KiB verified" $((2 * 6144)) "$(fio_field 6)"
}

# The debug tier's core leaves out gate (1), whose early returns sleep
# (2) takes too, on top of its own paths, and runs each mode once, off
# or sleep by turns (direct with hybrid off, the default, runs in most
# other tests of the core).  The rt tier is here for the sweeps' locks
# and the hybrid sleep: both sweeps with each hybrid setting, tracked
# and direct once each.
pairs="tracked:0 tracked:1 tracked:2 sweep:0 sweep:1 sweep:2"
pairs+=" sweep_wait:0 sweep_wait:1 sweep_wait:2 direct:0 direct:1 direct:2"
[ "$(debug_tier)" = core ] &&
	pairs="tracked:0 sweep:2 sweep_wait:0 direct:2"
on_rt_kernel &&
	pairs="tracked:2 sweep:0 sweep:1 sweep:2 sweep_wait:0 sweep_wait:1 sweep_wait:2 direct:0"
for pair in $pairs; do
	mode=${pair%:*} hybrid=${pair#*:}
	echo "$mode" >$sys/poll_mode || fail "poll_mode $mode"
	echo "$hybrid" >$sys/hybrid || fail "hybrid $hybrid"
	grep -q "\[$mode\]" $sys/poll_mode || fail "poll_mode: $(cat $sys/poll_mode)"
	c0=$(cat $sys/clones) f0=$(cat $sys/completions_found)
	l0=$(cat $sys/lower_polls) e0=$(cat $sys/hybrid_early_returns)
	r0=$(cat $sys/remapped)
	verify "$mode-h$hybrid"
	remapped=$(( $(cat $sys/remapped) - r0 ))
	expect_eq "$mode-h$hybrid: lower bios completed by a poll" \
		$(( $(cat $sys/clones) - c0 + remapped )) \
		$(( $(cat $sys/completions_found) - f0 ))
	if [ "$mode" = direct ] && [ "$hybrid" = 0 ]; then
		# 4k-64k over 16k chunks: both kinds of bio
		expect_ge "direct: bios remapped in place" 100 "$remapped"
	else
		expect_eq "$mode-h$hybrid: bios remapped" 0 "$remapped"
	fi
	expect_ge "$mode-h$hybrid: lower polls" 1 \
		$(( $(cat $sys/lower_polls) - l0 ))
	early=$(( $(cat $sys/hybrid_early_returns) - e0 ))
	if [ "$hybrid" != 0 ]; then
		expect_ge "$mode-h$hybrid: hybrid early returns" 1 "$early"
	else
		expect_eq "$mode: hybrid early returns (off)" 0 "$early"
	fi
done
read -r est_r est_w _ <$sys/hybrid_estimate_ns
expect_ge "hybrid read estimate (ns)" 1000 "$est_r"
expect_ge "hybrid write estimate (ns)" 1000 "$est_w"
note "hybrid estimates: read ${est_r} ns, write ${est_w} ns"

# Flip the knobs every 100 ms under polled verify I/O.
fio --name=flip --filename=/dev/pdm0 --ioengine=io_uring --direct=1 \
	--hipri=1 --rw=randwrite --bsrange=4k-64k --numjobs=2 --size=6m \
	--offset_increment=6m --iodepth=8 --verify=crc32c --verify_fatal=1 \
	--verify_backlog=16 --time_based --runtime=10 --group_reporting \
	--output-format=terse --terse-version=3 >/tmp/flip.out 2>&1 &
pid=$!
flips=0
while kill -0 $pid 2>/dev/null; do
	for mode in sweep tracked direct sweep_wait; do
		echo $mode >$sys/poll_mode
		echo $((flips % 3)) >$sys/hybrid
		flips=$((flips + 1))
		sleep 0.1
	done
done
wait $pid || { cat /tmp/flip.out; fail "fio under flipping knobs exited $?"; }
FIO_TERSE=$(grep '^3;' /tmp/flip.out | tail -n 1)
expect_eq "flip: fio error" 0 "$(fio_field 5)"
expect_ge "knob flips under I/O" 20 "$flips"

# pdm over pdm, the upper device in direct mode over the stripe in direct
# and then tracked mode: a bio remapped twice, or remapped and then
# cloned (and published by the lower device), comes back whole.
up_sectors=$(cat /sys/block/pdm0/size)
run pdmsetup create up --table "0 $up_sectors linear /dev/pdm0 0" >/dev/null
upsys=/sys/block/pdm1/pdm
echo 0 >$sys/hybrid
echo direct >$upsys/poll_mode
for lower in direct tracked; do
	echo $lower >$sys/poll_mode
	ur0=$(cat $upsys/remapped) ub0=$(cat $upsys/bios)
	lr0=$(cat $sys/remapped)
	fio_run "stacked-$lower" --filename=/dev/pdm1 --ioengine=io_uring \
		--direct=1 --hipri=1 --rw=randwrite --bsrange=4k-64k \
		--numjobs=2 --size=6m --offset_increment=6m --iodepth=8 \
		--verify=crc32c --verify_fatal=1 --do_verify=1
	expect_eq "stacked over $lower: KiB verified" $((2 * 6144)) \
		"$(fio_field 6)"
	# one linear segment, the lower device's limits: every bio fits
	expect_eq "stacked over $lower: upper bios all remapped" \
		$(( $(cat $upsys/bios) - ub0 )) \
		$(( $(cat $upsys/remapped) - ur0 ))
	lr=$(( $(cat $sys/remapped) - lr0 ))
	if [ $lower = direct ]; then
		expect_ge "stacked: lower bios remapped" 100 "$lr"
	else
		expect_eq "stacked: lower bios remapped (tracked)" 0 "$lr"
	fi
done
run pdmsetup remove up
run pdmsetup remove st

# Which lower queues each mode polls, as the kernel sees it: a kprobe on
# null_blk's ->poll() counts the polls of each hardware queue (keyed by its
# blk_mq_hw_ctx), not pdm's own counters.  Two null_blk devices back to
# back in one table, each with two poll queues (one per CPU).
nullb_load queue_mode=2 submit_queues=1 poll_queues=2 irqmode=0 gb=1 \
	nr_devices=2
for d in nullb0 nullb1; do
	expect_eq "$d poll queues" 2 \
		"$(cat $DEBUGFS/block/$d/hctx*/type | grep -c '^poll$')"
done
nsz=$(cat /sys/block/nullb0/size)
run pdmsetup create sh --table "$(printf '0 %s linear /dev/nullb0 0\n%s %s linear /dev/nullb1 0' \
	"$nsz" "$nsz" "$nsz")" >/dev/null
expect_eq "sh is pdm0" sh "$(cat $sys/name)"

# qpoll MODE FIO-ARGS...: run polled 4k reads in MODE with the probes armed;
# QPOLL holds the polls of each lower queue polled at all (fewest first),
# QKEYS how many queues that is, QMIN and QMAX the fewest and most, QTOTAL
# all ->poll() calls, QBIO the calls of pdm's poll_bio, and D[counter] the
# change of each of pdm's counters.
declare -A D=()
QCOUNTERS="bios clones remapped lower_polls trylock_skips completions_found"
qpoll() {
	local mode=$1 c
	local -A before=()
	shift
	echo "$mode" >$sys/poll_mode || fail "poll_mode $mode"
	for c in $QCOUNTERS; do
		before[$c]=$(cat "$sys/$c")
	done
	probe_hist_clear qpoll
	probe_hist_clear pdmpoll
	fio_run "q-$mode" --filename=/dev/pdm0 --ioengine=io_uring --direct=1 \
		--hipri=1 --bs=4k --rw=randread "$@"
	QPOLL=$(probe_hist_counts qpoll | tr '\n' ' ')
	QKEYS=$(probe_hist_counts qpoll | wc -l)
	QMIN=$(probe_hist_counts qpoll | head -n 1)
	QMAX=$(probe_hist_counts qpoll | tail -n 1)
	QTOTAL=$(probe_hist_total qpoll)
	QBIO=$(probe_hist_total pdmpoll)
	for c in $QCOUNTERS; do
		D[$c]=$(( $(cat "$sys/$c") - before[$c] ))
	done
	note "$mode: polls per lower queue: $QPOLL($QKEYS queues," \
		"$QTOTAL polls, $QBIO poll_bio calls)"
}

# One poller on CPU 0 reading from nullb0 only: tracked and direct poll
# that one queue (the clones', or the remapped bios' own), sweep and
# sweep_wait every one of the four, each exactly once per sweep: the same
# count on all four, and each ->poll() call is one of pdm's lower polls.
one=(--cpus_allowed=0 --iodepth=8 --size=8m)
probe_hist_start qpoll hctx 'p null_blk:null_poll hctx=%di:u64'
probe_hist_start pdmpoll common_type 'p pdm:pdm_poll_bio'
qpoll tracked "${one[@]}"
expect_eq "tracked: lower queues polled" 1 "$QKEYS"
expect_ge "tracked: ->poll() calls cover pdm's lower polls" "${D[lower_polls]}" \
	"$QTOTAL"
expect_ge "tracked: pdm poll_bio calls" 1 "$QBIO"
expect_eq "tracked: bios remapped" 0 "${D[remapped]}"
qpoll direct "${one[@]}"
expect_eq "direct: lower queues polled" 1 "$QKEYS"
expect_eq "direct: bios remapped" "${D[bios]}" "${D[remapped]}"
expect_ge "direct: bios" 1 "${D[bios]}"
expect_eq "direct: pdm poll_bio calls (io_uring polls below)" 0 "$QBIO"
for mode in sweep sweep_wait; do
	qpoll $mode "${one[@]}"
	expect_eq "$mode: lower queues polled" 4 "$QKEYS"
	expect_eq "$mode: fewest polls of a queue = most" \
		"$QMAX" "$QMIN"
	expect_eq "$mode: ->poll() calls = pdm's lower polls" \
		"${D[lower_polls]}" "$QTOTAL"
	expect_eq "$mode: trylock skips with one poller" 0 "${D[trylock_skips]}"
	expect_ge "$mode: pdm poll_bio calls" 1 "$QBIO"
done

# Three pollers on two CPUs, every one sweeping all four queues: sweep
# skips a queue another poller holds (and does not poll it), sweep_wait
# never skips, so every queue is still polled once per sweep.
three=(--iodepth=16 --numjobs=3 --time_based --runtime=4)
qpoll sweep "${three[@]}"
expect_ge "sweep: trylock skips with 3 pollers" 1 "${D[trylock_skips]}"
expect_eq "sweep: ->poll() calls = pdm's lower polls" "${D[lower_polls]}" \
	"$QTOTAL"
expect_eq "sweep: clones completed by a poll" "${D[clones]}" \
	"${D[completions_found]}"
qpoll sweep_wait "${three[@]}"
expect_eq "sweep_wait: trylock skips with 3 pollers" 0 "${D[trylock_skips]}"
expect_eq "sweep_wait: lower queues polled" 4 "$QKEYS"
expect_eq "sweep_wait: fewest polls of a queue = most" \
	"$QMAX" "$QMIN"
expect_eq "sweep_wait: ->poll() calls = pdm's lower polls" \
	"${D[lower_polls]}" "$QTOTAL"
expect_eq "sweep_wait: clones completed by a poll" "${D[clones]}" \
	"${D[completions_found]}"
probe_hist_stop qpoll
probe_hist_stop pdmpoll
run pdmsetup remove sh
run rmmod pdm
echo "PASS"
