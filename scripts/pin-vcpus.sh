#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Pin each vCPU thread of a running QEMU ("CPU n/TCG", or "CPU n/KVM")
# to host CPU n modulo the host's CPU count, so benchmark runs vary less.
#   scripts/pin-vcpus.sh QEMU_PID NR_VCPUS [OTHERS_CPU]
# With OTHERS_CPU, QEMU's other threads go to that host CPU: the main loop
# (emulated devices, guest timers) and the I/O workers it starts later,
# which inherit its mask.  A guest whose polling thread sleeps between
# reads (pdm hybrid "sleep") lost 0.30 of its IOPS on a table over
# slowpoll and QEMU's NVMe, to NVMe reads of 2-4 ms, and lost nothing with
# the main loop pinned away from fio's vCPU.  The likely reason (inferred,
# not traced): left free, the main loop moves to the host CPU of a vCPU
# that went idle, and shares it with that vCPU when it spins again, in
# scheduler slices of milliseconds.
# On success prints where the vCPUs went; on failure says why on stderr
# and exits 1 (scripts/vm.sh reports either).
set -euo pipefail
pid=$1 want=$2 others=${3:-} ncpu=$(nproc)
for _ in $(seq 100); do
	found=0
	for t in /proc/"$pid"/task/*; do
		comm=$(cat "$t/comm" 2>/dev/null) || continue
		case $comm in
		"CPU "*"/TCG" | "CPU "*"/KVM")
			n=${comm#CPU }
			n=${n%%/*}
			if ! err=$(taskset -pc $((n % ncpu)) "${t##*/}" 2>&1 >/dev/null); then
				echo "pin-vcpus: vCPU $n to host CPU $((n % ncpu)): ${err:-taskset failed}" >&2
				exit 1
			fi
			found=$((found + 1)) ;;
		*)
			[ -z "$others" ] ||
				taskset -pc "$others" "${t##*/}" >/dev/null 2>&1 ||
				true ;;
		esac
	done
	if [ "$found" -ge "$want" ]; then
		echo "vCPU n on host CPU n mod $ncpu${others:+, the other QEMU threads on host CPU $others}"
		exit 0
	fi
	sleep 0.1
done
echo "pin-vcpus: found $found of $want vCPU threads" >&2
exit 1
