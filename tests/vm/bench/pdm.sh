#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Stacked polling benchmark, run inside the VM by scripts/bench.sh: fio
# io_uring 4k random reads, QD32 with batched submission, 1 job, on three
# identical null_blk devices with a poll queue each: nullb0 raw, dm-linear
# over nullb1, pdm linear over nullb2 (each stack needs its own device:
# both dm and pdm hold their lower devices exclusively), interleaved and
# repeated, each completed two ways:
#   polled  hipri=1: the I/O goes to the device's poll queue and is reaped
#           by polling (null_blk ignores irqmode there);
#   irq     hipri=0: the I/O goes to the device's submit queue and completes
#           from an interrupt: null_blk irqmode=2 with completion_nsec=0, an
#           hrtimer per request firing at once, in hardirq context, as a
#           device's completion interrupt would.
# So one device per stack (submit_queues=1 poll_queues=1) serves both.
# null_blk's irqmode=1 ("softirq") would not be an interrupt here: with a
# poll queue beside the submit queue (2 hardware queues), 6.1's
# blk_mq_complete_request() completes in the submitter's own queue_rq and
# raises no softirq; irqmode=0 does the same without the indirection.  That
# inline completion is kept as one reference row, "raw inline", on a fifth
# device with irqmode=0: the same I/O with no completion interrupt at all.
# Before the timed runs, one short untimed run of each row with kretprobes
# on null_blk's hrtimer callback and null_poll shows how its lower requests
# really completed (by interrupt, by polling, or neither: inline).
# pdm runs in its default poll_mode (direct: bios remapped in place,
# polled by io_uring on the lower queue) and in poll_mode tracked
# ("pdm-tracked": one clone per bio, polled through pdm's poll_bio);
# "pdm-noacct" is the default with queue/iostats off, for what pdm's I/O
# statistics cost.  When the
# test-only blkfast-remap
# module is there, a fourth device gets the floor of any 6.1 bio-based
# stacking driver: bfremap0 passes each bio down unchanged with no
# bookkeeping at all (tests/modules/blkfast-remap.c).  A row that cannot
# run is reported as skipped, with the reason.
#
# Arguments (KEY=VALUE): reps=5 secs=2, and devs=A,B,C[,D] to use three
# (four with the floor) real, identical devices (with poll queues) instead
# of null_blk; their irq rows complete by the devices' own interrupts, and
# there is no inline row.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/bench.sh"

REPS=5 SECS=2 DEVS=
bench_args "devs" "$@"

inl='' inline_skipped=''
if [ -z "$DEVS" ]; then
	nullb_load queue_mode=2 nr_devices=4 submit_queues=1 poll_queues=1 \
		irqmode=2 completion_nsec=0 hw_queue_depth=256 gb=4
	DEVS=nullb0,nullb1,nullb2,nullb3
	completion="a timer interrupt (null_blk irqmode=2 completion_nsec=0: an hrtimer per request, in hardirq context)"
	nullb_cfs nullb4 queue_mode=2 submit_queues=1 poll_queues=1 irqmode=0 \
		hw_queue_depth=256 size=4096
	inl=nullb4
else
	completion="the devices' own interrupts"
	inline_skipped="real devices (devs=) have no inline completion"
fi
IFS=, read -r raw dml pl fl <<<"$DEVS"
run modprobe pdm
sectors=$(cat /sys/block/"$dml"/size)
export DM_DISABLE_UDEV=1
run dmsetup create dml --table "0 $sectors linear /dev/$dml 0"
run pdmsetup create pl --table "0 $(cat /sys/block/"$pl"/size) linear /dev/$pl 0" >/dev/null
pdm=$(basename "$(ls -d /sys/block/"$pl"/holders/pdm*)")
dm=/dev/mapper/dml

configs=("raw polled" "raw irq")
[ -z "$inl" ] || configs+=("raw inline")
configs+=("dm-linear polled" "dm-linear irq" "pdm polled" "pdm irq"
	  "pdm-noacct polled" "pdm-noacct irq"
	  "pdm-tracked polled" "pdm-tracked irq")
declare -A dev=([raw]=/dev/$raw [dm-linear]=$dm [pdm]=/dev/$pdm
	[pdm-noacct]=/dev/$pdm [pdm-tracked]=/dev/$pdm)
floor='' floor_skipped=''
if [ -z "$fl" ]; then
	floor_skipped="no fourth device in devs="
elif why=$(modprobe blkfast-remap lower="/dev/$fl" 2>&1); then
	wait_for_block bfremap0
	floor=1
	configs+=("floor polled" "floor irq")
	dev[floor]=/dev/bfremap0
else
	why=${why:-modprobe blkfast-remap failed}
	floor_skipped="the test-only blkfast-remap module did not load: ${why//$'\n'/; }"
fi

mode=/sys/block/$pdm/pdm/poll_mode
iostats=/sys/block/$pdm/queue/iostats
# setup CONFIG: set d (the device) and hipri for CONFIG, and pdm's mode
# and I/O statistics.
setup() {
	local stack way
	read -r stack way <<<"$1"
	hipri=0 d=${dev[$stack]}
	[ "$way" = polled ] && hipri=1
	[ "$way" = inline ] && d=/dev/$inl
	echo 1 >"$iostats"
	case $stack in
	pdm) echo direct >"$mode" ;;
	pdm-noacct) echo direct >"$mode"; echo 0 >"$iostats" ;;
	pdm-tracked) echo tracked >"$mode" ;;
	esac
}
fio_args=(--ioengine=io_uring --direct=1 --bs=4k --rw=randread --iodepth=32
	  --iodepth_batch_submit=16 --iodepth_batch_complete=16)

check_title=''
if [ -n "$inl" ]; then
	check_title="completions/IO irq/poll"
	for c in "${configs[@]}"; do
		setup "$c"
		completed_by --filename="$d" "${fio_args[@]}" --hipri=$hipri
		bench_extra "$c" "$BY"
	done
fi

for rep in $(seq "$REPS"); do
	for k in $(bench_rotate "${#configs[@]}" "$rep"); do
		c=${configs[$k]}
		setup "$c"
		bench_fio "$c" --filename="$d" "${fio_args[@]}" --hipri=$hipri \
			--runtime="$SECS" --time_based --ramp_time=0.5
	done
done
# Every bio went down whole: as one clone (tracked) or remapped (direct).
expect_eq "pdm: one lower bio per bio" \
	"$(($(cat "/sys/block/$pdm/pdm/clones") + \
	    $(cat "/sys/block/$pdm/pdm/remapped")))" \
	"$(cat "/sys/block/$pdm/pdm/bios")"

echo
echo "### Stacked polling: $(nproc) vCPUs, $DEVS, 4k randread QD32 batched, 1 job, $REPS x ${SECS}s"
echo
how="Completion: **polled** = hipri=1, reaped by polling each device's poll"
how="$how queue; **irq** = hipri=0, completed by $completion"
[ -z "$inl" ] || how="$how; **inline** = hipri=0 on $inl (null_blk"
[ -z "$inl" ] || how="$how irqmode=0), completed inside the submitter's"
[ -z "$inl" ] || how="$how queue_rq with no interrupt at all"
echo "$how."
[ -z "$check_title" ] ||
	echo "$check_title: lower requests per I/O completed from null_blk's" \
		"hrtimer / reaped by null_poll, counted by kretprobes in one" \
		"untimed 4000-I/O run of each row before the timed runs" \
		"(0.00/0.00: inline)."
echo
bench_table "raw polled" "$check_title" "${configs[@]}"
echo
[ -z "$inline_skipped" ] ||
	echo "- **Skipped:** raw inline ($inline_skipped)"
[ -z "$floor_skipped" ] ||
	echo "- **Skipped:** floor polled, floor irq (bfremap0): $floor_skipped"
echo "- pdm/raw: polled $(bench_ratio "pdm polled" "raw polled"), irq $(bench_ratio "pdm irq" "raw irq")"
echo "- pdm-tracked/raw: polled $(bench_ratio "pdm-tracked polled" "raw polled"), irq $(bench_ratio "pdm-tracked irq" "raw irq")"
echo "- pdm's I/O statistics: iostats on/off (direct): polled $(bench_ratio "pdm polled" "pdm-noacct polled"), irq $(bench_ratio "pdm irq" "pdm-noacct irq") (goal: 0.98 or more)"
echo "- pdm/dm-linear: polled $(bench_ratio "pdm polled" "dm-linear polled"), irq $(bench_ratio "pdm irq" "dm-linear irq")"
[ -n "$floor" ] &&
	echo "- floor (bfremap0: pass-through, no bookkeeping)/raw: polled $(bench_ratio "floor polled" "raw polled"), irq $(bench_ratio "floor irq" "raw irq"); pdm/floor: polled $(bench_ratio "pdm polled" "floor polled"), irq $(bench_ratio "pdm irq" "floor irq"); pdm-tracked/floor: polled $(bench_ratio "pdm-tracked polled" "floor polled"), irq $(bench_ratio "pdm-tracked irq" "floor irq")"
echo "- polled/irq: raw $(bench_ratio "raw polled" "raw irq"), dm-linear $(bench_ratio "dm-linear polled" "dm-linear irq"), pdm $(bench_ratio "pdm polled" "pdm irq"), pdm-tracked $(bench_ratio "pdm-tracked polled" "pdm-tracked irq")"
[ -z "$inl" ] ||
	echo "- raw: polled/inline $(bench_ratio "raw polled" "raw inline"), irq/inline $(bench_ratio "raw irq" "raw inline") (what completing by interrupt costs)"
echo 1 >"$iostats"
run pdmsetup remove pl
run dmsetup remove dml
[ -z "$floor" ] || run rmmod blkfast_remap
