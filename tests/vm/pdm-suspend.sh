#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# 6.12-tier: suspend waits for every lower request (bd_dev's offset is 6.12's)
# vm: -c 2 -t 200
# pdmsetup suspend returns only when the I/O in flight has completed.  A
# pdm stripe over two slow null_blk devices (every request completes by
# timer 100 ms after it was issued) runs random reads and writes at depth
# 32 while it is suspended and resumed over and over: 4-32 KiB in
# poll_mode tracked (clones) and direct (4 KiB bios remapped in place, the
# rest cloned) by turns, then 4 KiB only in direct mode, so that all that
# is in flight was remapped (with a fixed service time, a suspend that
# waited for the clones alone would cover the remapped bios issued before
# them).  The kernel's own view, not pdm's counters: right after each
# suspend returns (or within 50 ms, the time a request whose bios have
# ended takes to be freed on a busy host), /sys/block/nullbN/inflight
# shows no request on either lower device; and kprobe events traced on one global clock, with a
# trace marker written as each suspend returns and another before the
# resume, show as many top bios completed (blkdev_bio_end_io_async on
# the pdm device) before the first marker as pdm had mapped by then, and
# no top bio, clone or remapped bio completing between the two.  (The
# probes all fire in the timer interrupt that completes the requests: a
# probe in task context would lose the events of interrupts that hit
# its handler, as kprobe_profile's misses show.)
. "$(dirname "$0")/lib/lib.sh"

nullb_load queue_mode=2 irqmode=2 completion_nsec=100000000 submit_queues=1 \
	poll_queues=0 gb=1 nr_devices=2
run modprobe pdm
sz=$(cat /sys/block/nullb0/size)
run pdmsetup create slow --table "0 $((2 * sz)) striped 2 8 /dev/nullb0 0 /dev/nullb1 0" >/dev/null
sys=/sys/block/pdm0/pdm
IFS=: read -r maj min </sys/block/pdm0/dev
pdm_devt=$(( (maj << 20) | min ))

# The events, on one clock for all CPUs.  blkdev_bio_end_io_async ends
# the direct I/O of libaio's fio, each top bio once; struct bio's
# bi_bdev is at 8, struct block_device's bd_dev at 36 in 6.1 and at 52
# in 6.12 (pahole on each vmlinux).  (libaio,
# not io_uring: io_uring's first try of each bio is REQ_NOWAIT, which a
# suspend ends at once with EAGAIN in the submitting task, and a probe
# hit in a task loses the events of the interrupts that come during it.)
echo 0 >$TRACEFS/tracing_on
echo global >$TRACEFS/trace_clock
echo 4096 >$TRACEFS/buffer_size_kb
bd_dev=36
[ "$(kernel_line)" = 6.1 ] || bd_dev=52
for ev in "topend blkdev_bio_end_io_async dev=+$bd_dev(+8(%di)):u32" \
	"cloneend pdm:pdm_clone_endio" "remapend pdm:pdm_remap_endio"; do
	echo "p:blkfast/$ev" >>$TRACEFS/kprobe_events ||
		fail "cannot add kprobe '$ev'"
done
echo "dev == $pdm_devt" >$TRACEFS/events/blkfast/topend/filter
echo 1 >$TRACEFS/events/blkfast/enable
echo >$TRACEFS/trace
b0=$(cat $sys/bios)
echo 1 >$TRACEFS/tracing_on

inflight() {
	local r w
	read -r r w </sys/block/"$1"/inflight
	echo $((r + w))
}

# run_cycles N MODES FIO-ARGS...: run fio with FIO-ARGS for 12 s (30 on
# the debug kernel, where two guests at once left room for only 3 cycles
# in 12) and, while it runs, suspend and resume up to N times (at least
# 4), in each of MODES by turns.
runtime=12
on_debug_kernel && runtime=30
cycles=0 busy=0 d0=$(cat $sys/deferred)
rm -f /tmp/mapped
run_cycles() {
	local n=$1 modes fpid start mode before r0 w0 r1 w1 nb
	read -ra modes <<<"$2"
	shift 2
	fio --name=slow --filename=/dev/pdm0 --ioengine=libaio --direct=1 \
		--rw=randrw --iodepth=32 --time_based --runtime=$runtime \
		--output-format=terse --terse-version=3 "$@" >/tmp/slow.out 2>&1 &
	fpid=$!
	# Until fio's I/O reaches the lower devices.
	for _ in $(seq 50); do
		[ $(( $(inflight nullb0) + $(inflight nullb1) )) -gt 0 ] && break
		sleep 0.1
	done
	start=$cycles
	while [ $cycles -lt $((start + n)) ] && kill -0 $fpid 2>/dev/null; do
		mode=${modes[$((cycles % ${#modes[@]}))]}
		echo "$mode" >$sys/poll_mode
		sleep 0.3
		before=$(( $(inflight nullb0) + $(inflight nullb1) ))
		[ "$before" -gt 0 ] && busy=$((busy + 1))
		run pdmsetup suspend slow
		# Builtins only until the reads: no fork between them and the
		# return.
		echo "suspended $cycles" >$TRACEFS/trace_marker
		read -r r0 w0 </sys/block/nullb0/inflight
		read -r r1 w1 </sys/block/nullb1/inflight
		# No bio is mapped while suspended: pdm's count is exact.
		read -r nb <$sys/bios
		echo "mapped $cycles $((nb - b0))" >>/tmp/mapped
		# blk_mq_end_request() ends a request's bios (and so pdm's
		# last clone, which lets suspend return) before it frees the
		# request, and inflight counts the request until then: the
		# same window dm's suspend has.  A request still in flight
		# must so be gone within a few ms; one that pdm did not wait
		# for has up to 100 ms of service left.
		settle=0
		while [ "$r0 $w0 $r1 $w1" != "0 0 0 0" ] && [ $settle -lt 5 ]; do
			sleep 0.01
			settle=$((settle + 1))
			read -r r0 w0 </sys/block/nullb0/inflight
			read -r r1 w1 </sys/block/nullb1/inflight
		done
		[ $settle = 0 ] || echo "cycle $cycles: lower requests freed after $settle rechecks"
		expect_eq "cycle $cycles, $mode, $before in flight before: lower reads,writes in flight as suspend returned (rechecked $settle times)" \
			"0 0 0 0" "$r0 $w0 $r1 $w1"
		expect_eq "suspended" 1 "$(cat $sys/suspended)"
		sleep 0.3
		echo "resuming $cycles" >$TRACEFS/trace_marker
		run pdmsetup resume slow
		cycles=$((cycles + 1))
	done
	expect_ge "suspend/resume cycles under fio $*" 4 $((cycles - start))
	wait $fpid || { cat /tmp/slow.out; fail "fio exited $?"; }
	FIO_TERSE=$(grep '^3;' /tmp/slow.out | tail -n 1)
	expect_eq "fio error" 0 "$(fio_field 5)"
}
r0=$(cat $sys/remapped) c0=$(cat $sys/clones)
run_cycles 6 "tracked direct" --bsrange=4k-32k
expect_ge "clones" 100 $(( $(cat $sys/clones) - c0 ))
r1=$(cat $sys/remapped) c1=$(cat $sys/clones)
run_cycles 6 direct --bs=4k
expect_ge "4 KiB bios remapped in place" 100 $(( $(cat $sys/remapped) - r1 ))
expect_eq "4 KiB bios cloned in direct mode" 0 $(( $(cat $sys/clones) - c1 ))
echo 0 >$TRACEFS/tracing_on
expect_ge "cycles that found lower requests in flight" $((cycles - 2)) $busy
expect_ge "bios held back while suspended" $cycles \
	$(( $(cat $sys/deferred) - d0 ))

# At each "suspended" marker, the top bios completed so far; from there to
# "resuming", nothing completes.  Every event is there: no probe missed
# one, the buffer did not overrun.
expect_eq "probe hits missed" "topend 0 cloneend 0 remapend 0" \
	"$(awk '$1 ~ /^(topend|cloneend|remapend)$/ { printf "%s%s %s", \
		n++ ? " " : "", $1, $3 }' $TRACEFS/kprobe_profile)"
grep -q 'LOST' $TRACEFS/trace && fail "trace buffer overran"
trace_complete "suspend cycles"
awk '
	/tracing_mark_write: suspended/ {
		printf "ended %d %d\n", $NF, ended
		window = 1
		next
	}
	/tracing_mark_write: resuming/ { window = 0; next }
	/ topend: / { ended++; if (window) late["top bios"]++ }
	/ cloneend: / { if (window) late["clones"]++ }
	/ remapend: / { if (window) late["remapped bios"]++ }
	END {
		for (k in late)
			printf "late %s completed while suspended: %d\n", k, late[k]
		printf "total %d\n", ended
	}' $TRACEFS/trace >/tmp/windows
expect_eq "suspend markers traced" $cycles "$(grep -c '^ended' /tmp/windows)"
awk 'FNR == NR { mapped[$2] = $3; next }
     $1 == "ended" && mapped[$2] != $3 {
	printf "cycle %d: %d top bios mapped, %d completed\n", $2, mapped[$2], $3
     }
     $1 == "late" { print }' /tmp/mapped /tmp/windows >/tmp/unfinished
cat /tmp/unfinished
expect_eq "suspends that returned with I/O unfinished" 0 \
	"$(wc -l </tmp/unfinished)"
ended=$(sed -n 's/^total //p' /tmp/windows)
expect_ge "top bios completed" 100 "$ended"
expect_eq "top bios completed = mapped" $(( $(cat $sys/bios) - b0 )) "$ended"

echo 0 >$TRACEFS/events/blkfast/enable
for ev in topend cloneend remapend; do
	echo "-:blkfast/$ev" >>$TRACEFS/kprobe_events
done
run pdmsetup remove slow
run rmmod pdm
echo "PASS"
