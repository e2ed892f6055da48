#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Where pdm's time goes, per I/O, next to the floor's: run inside the VM
# with perf copied in, e.g.
#   BLKFAST_VM_PROGS=/usr/bin/perf BLKFAST_KO_DIR=$PWD \
#     scripts/vm.sh -c 2 -p -m 2048 tests/vm/bench/profile-pdm.sh
# The default workload of scripts/bench-pdm-ab.sh (pdm_ab_job in
# lib/bench.sh: fio io_uring 4k randread QD32, batches of 16, polled, 1
# job pinned to vCPU 1) on the floor
# (blkfast-remap over nullb1) and on pdm over nullb0 in each poll mode,
# while `perf record -a -e cpu-clock -F 1000` samples every CPU for secs
# seconds.  Each prints its top symbols in CPU microseconds per I/O and a
# subtotal for pdm's own functions; the difference of two busy totals is
# what one path costs over the other.
#
# Arguments, KEY=VALUE: modes=tracked,direct,sweep secs=3 top=30 hipri=1
# iostats=0 (pdm's queue/iostats).
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/bench.sh"

MODES=tracked,direct,sweep SECS=3 TOP=30 HIPRI=1 IOSTATS=0
bench_args "modes top hipri iostats" "$@"
command -v perf >/dev/null ||
	fail "no perf in the guest (BLKFAST_VM_PROGS=/usr/bin/perf)"
sysctl -qw kernel.kptr_restrict=0 kernel.perf_event_paranoid=-1
pdm_ab_devices 2
run modprobe pdm
pdm_ab_job 32 1 "$HIPRI"
sz=$(cat /sys/block/nullb0/size)
run pdmsetup create prof --table "0 $sz linear /dev/nullb0 0"
echo "$IOSTATS" >/sys/block/pdm0/queue/iostats

# profile NAME DEV LOWER: one profiled run on DEV, I/Os counted at LOWER.
profile() {
	local fio
	fio --name=profile --filename="/dev/$2" "${PDM_AB_FIO[@]}" \
		--runtime=$((SECS + 2)) --time_based >/dev/null 2>&1 &
	fio=$!
	sleep 1
	read -r r0 _ </sys/block/"$3"/stat
	perf record -q -a -e cpu-clock -F 1000 -o /tmp/perf.data \
		-- sleep "$SECS" >/dev/null 2>&1
	read -r r1 _ </sys/block/"$3"/stat
	wait $fio || fail "fio failed on $1"
	echo "### $1: $((r1 - r0)) reads in ${SECS}s (hipri=$HIPRI," \
		"pdm iostats=$IOSTATS)"
	perf_per_io /tmp/perf.data $((r1 - r0)) "$TOP" '^pdm_' "pdm_*"
}

profile floor bfremap0 nullb1
IFS=, read -r -a modes <<<"$MODES"
for m in "${modes[@]}"; do
	echo "$m" >/sys/block/pdm0/pdm/poll_mode
	profile "pdm $m" pdm0 nullb0
done
run pdmsetup remove prof
echo "PASS"
