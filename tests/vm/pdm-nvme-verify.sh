#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# 6.12-tier: polled verify over emulated NVMe, whose poll queues 6.12 feature-flags
# debug-tier: full verify I/O over emulated NVMe (4.5 min on the debug kernel); the same pdm paths run over null_blk in the core
# vm: -c 2 -d 48M -d 48M -d 48M -d 48M -t 400
# fio verify=crc32c through pdm over emulated NVMe disks with a poll queue
# each: linear, 2-leg and 4-leg striped, and a table mixing a linear and a
# striped segment; three jobs on disjoint regions, 4k-64k random writes,
# hipri=1 and hipri=0.  With hipri=1 pdm's statistics show every bio
# polled and the lower queues raised no interrupt; with hipri=0 nothing is
# polled.
. "$(dirname "$0")/lib/lib.sh"

nvme_io_irqs() {
	awk '/nvme[0-9]q[1-9]/ { for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i }
	     END { print s + 0 }' /proc/interrupts
}

run modprobe nvme poll_queues=1
for i in 0 1 2 3; do
	wait_for_block nvme${i}n1
	expect_eq "nvme${i}n1 io_poll" 1 "$(cat /sys/block/nvme${i}n1/queue/io_poll)"
done
run modprobe pdm
disk=$(cat /sys/block/nvme0n1/size)

# verify NAME HIPRI: three jobs, 8 MiB each, on disjoint regions of pdm0.
verify() {
	fio_run "$1" --filename=/dev/pdm0 --ioengine=io_uring --direct=1 \
		--hipri="$2" --rw=randwrite --bsrange=4k-64k --numjobs=3 \
		--size=8m --offset_increment=8m --iodepth=8 \
		--iodepth_batch_submit=4 --iodepth_batch_complete_max=4 \
		--verify=crc32c --verify_fatal=1 --do_verify=1
	expect_eq "$1: KiB written = KiB verified" "$(fio_field 47)" \
		"$(fio_field 6)"
	expect_eq "$1: KiB written" $((3 * 8192)) "$(fio_field 47)"
}

# check_table NAME TABLE: create pdm0, verify polled then unpolled, remove.
check_table() {
	local name=$1 table=$2 irq0 bios0 polled0 found0 sent
	run pdmsetup create "$name" --table "$table" >/dev/null
	expect_eq "$name io_poll" 1 "$(cat /sys/block/pdm0/queue/io_poll)"

	irq0=$(nvme_io_irqs)
	verify "$name-polled" 1
	expect_eq "$name: lower I/O interrupts while polling" 0 \
		$(( $(nvme_io_irqs) - irq0 ))
	expect_eq "$name: every bio polled" "$(pdm_stat bios)" \
		"$(pdm_stat polled_bios)"
	# Each bio went down as clones, or whole (remapped in place by
	# poll_mode direct, the default): each completed by a poll.
	sent=$(( $(pdm_stat clones) + $(pdm_stat remapped) ))
	expect_eq "$name: every lower bio completed by a poll" "$sent" \
		"$(pdm_stat completions_found)"
	expect_ge "$name: lower bios per bio" "$(pdm_stat bios)" "$sent"

	bios0=$(pdm_stat bios) polled0=$(pdm_stat polled_bios)
	found0=$(pdm_stat completions_found)
	verify "$name-irq" 0
	expect_ge "$name: bios with hipri=0" $((bios0 + 1)) "$(pdm_stat bios)"
	expect_eq "$name: polled bios with hipri=0" "$polled0" \
		"$(pdm_stat polled_bios)"
	expect_eq "$name: clones completed by a poll with hipri=0" "$found0" \
		"$(pdm_stat completions_found)"
	run pdmsetup remove "$name"
}

check_table linear "0 $disk linear /dev/nvme0n1 0"
# 2 legs, 32 KiB chunks: most 4k-64k writes land on one leg, some on two.
s2=$(( disk / 128 * 128 ))
check_table striped2 "0 $((2 * s2)) striped 2 64 /dev/nvme1n1 0 /dev/nvme2n1 0"
# 4 legs, 8 KiB chunks: a 64k write becomes 8 clones over all 4 legs.
s4=$(( (disk - 2048) / 16 * 16 ))
check_table striped4 "0 $((4 * s4)) striped 4 16 /dev/nvme0n1 2048 /dev/nvme1n1 0 /dev/nvme2n1 0 /dev/nvme3n1 0"
# A linear and a striped segment in one table; the jobs' regions straddle
# the boundary at 12 MiB.
check_table mixed "$(printf '0 24576 linear /dev/nvme3n1 0\n24576 65536 striped 2 32 /dev/nvme0n1 0 /dev/nvme1n1 0')"
expect_eq "ls after remove" "No devices found" "$(pdmsetup ls)"
run rmmod pdm
echo "PASS"
