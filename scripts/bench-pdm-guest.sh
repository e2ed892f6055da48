#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Stacked polling benchmark, run inside the VM by scripts/bench.sh: fio
# io_uring 4k random reads, QD32 with batched submission, 1 job, on three
# identical null_blk devices with a poll queue each: nullb0 raw, dm-linear
# over nullb1, pdm linear over nullb2 (each stack needs its own device:
# both dm and pdm hold their lower devices exclusively), polled (hipri=1)
# and by interrupt (hipri=0), interleaved and repeated.  pdm runs in its
# default poll_mode (tracked: one clone per bio, polled through pdm's
# poll_bio) and in poll_mode direct (bios remapped in place, polled by
# io_uring on the lower queue).  When the test-only blkfast-remap module is
# there, a fourth device gets the floor of any 6.1 bio-based stacking
# driver: bfremap0 passes each bio down unchanged with no bookkeeping at
# all (tests/modules/blkfast-remap.c); where it cannot run, the report
# says why.
#
# Arguments (KEY=VALUE): reps=5 secs=2, and devs=A,B,C[,D] to use three
# (four with the floor) real, identical devices (with poll queues) instead
# of null_blk.
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/tests/lib.sh"
# shellcheck source=tests/vm/bench-lib.sh
. "$(dirname "$0")/tests/bench-lib.sh"

REPS=5 SECS=2 DEVS=
for a in "$@"; do
	case $a in
	reps=*) REPS=${a#*=} ;;
	secs=*) SECS=${a#*=} ;;
	devs=*) DEVS=${a#*=} ;;
	*) fail "unknown argument '$a'" ;;
	esac
done

if [ -z "$DEVS" ]; then
	nullb_load queue_mode=2 nr_devices=4 submit_queues=1 poll_queues=1 \
		irqmode=0 hw_queue_depth=256 gb=4
	DEVS=nullb0,nullb1,nullb2,nullb3
fi
IFS=, read -r raw dml pl fl <<<"$DEVS"
run modprobe pdm
sectors=$(cat /sys/block/"$dml"/size)
export DM_DISABLE_UDEV=1
run dmsetup create dml --table "0 $sectors linear /dev/$dml 0"
run pdmsetup create pl --table "0 $(cat /sys/block/"$pl"/size) linear /dev/$pl 0" >/dev/null
pdm=$(basename "$(ls -d /sys/block/"$pl"/holders/pdm*)")
dm=/dev/mapper/dml

configs=("raw polled" "raw irq" "dm-linear polled" "dm-linear irq"
	 "pdm polled" "pdm irq" "pdm-direct polled" "pdm-direct irq")
declare -A dev=([raw]=/dev/$raw [dm-linear]=$dm [pdm]=/dev/$pdm
	[pdm-direct]=/dev/$pdm)
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
for rep in $(seq "$REPS"); do
	for k in $(bench_rotate "${#configs[@]}" "$rep"); do
		c=${configs[$k]}
		read -r stack completion <<<"$c"
		hipri=0
		[ "$completion" = polled ] && hipri=1
		case $stack in
		pdm) echo tracked >"$mode" ;;
		pdm-direct) echo direct >"$mode" ;;
		esac
		bench_fio "$c" --filename="${dev[$stack]}" --ioengine=io_uring \
			--direct=1 --bs=4k --rw=randread --iodepth=32 \
			--iodepth_batch_submit=16 \
			--iodepth_batch_complete=16 --hipri=$hipri \
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
bench_table "raw polled" "" "${configs[@]}"
echo
[ -z "$floor_skipped" ] ||
	echo "- **Skipped:** floor polled, floor irq (bfremap0): $floor_skipped"
echo "- pdm/raw: polled $(bench_ratio "pdm polled" "raw polled"), irq $(bench_ratio "pdm irq" "raw irq")"
echo "- pdm-direct/raw: polled $(bench_ratio "pdm-direct polled" "raw polled"), irq $(bench_ratio "pdm-direct irq" "raw irq")"
echo "- pdm/dm-linear: polled $(bench_ratio "pdm polled" "dm-linear polled"), irq $(bench_ratio "pdm irq" "dm-linear irq")"
[ -n "$floor" ] &&
	echo "- floor (bfremap0: pass-through, no bookkeeping)/raw: polled $(bench_ratio "floor polled" "raw polled"), irq $(bench_ratio "floor irq" "raw irq"); pdm-direct/floor: polled $(bench_ratio "pdm-direct polled" "floor polled"), irq $(bench_ratio "pdm-direct irq" "floor irq")"
echo "- polled/irq: raw $(bench_ratio "raw polled" "raw irq"), dm-linear $(bench_ratio "dm-linear polled" "dm-linear irq"), pdm $(bench_ratio "pdm polled" "pdm irq"), pdm-direct $(bench_ratio "pdm-direct polled" "pdm-direct irq")"
run pdmsetup remove pl
run dmsetup remove dml
[ -z "$floor" ] || run rmmod blkfast_remap
