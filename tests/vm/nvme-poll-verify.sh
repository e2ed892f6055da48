#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-skip-flavour: debug a baseline of the kernel's own code, not ours
# baseline: the kernel's NVMe polling under QEMU, which pdm-nvme-verify stands on
# vm: -c 2 -d 256M -t 120
# 6.12-tier: 6.12's NVMe polling under QEMU, which pdm-nvme-verify stands on
# An emulated NVMe disk with a poll queue: fio io_uring hipri=1 writes and
# verifies with crc32c while the disk raises no I/O interrupt at all (every
# completion was polled); hipri=0 on the same disk completes by interrupt.
. "$(dirname "$0")/lib/lib.sh"

# Interrupts of the disk's I/O queues (nvme0q1...; q0 is the admin queue).
nvme_io_irqs() {
	awk '/nvme0q[1-9]/ { for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i }
	     END { print s + 0 }' /proc/interrupts
}

run modprobe nvme poll_queues=1
wait_for_block nvme0n1
dmesg | grep -q '/0/1 default/read/poll queues' ||
	fail "nvme: expected one poll queue ('N/0/1 default/read/poll queues'), got '$(dmesg | grep 'poll queues')'"
expect_eq "io_poll" 1 "$(cat /sys/block/nvme0n1/queue/io_poll)"

# nvme_poll() returns whether it found work, not how much.
probe_sum_start nvpoll nvme_poll
irq0=$(nvme_io_irqs)
fio_run verify --filename=/dev/nvme0n1 --ioengine=io_uring --direct=1 \
	--hipri=1 --bs=4k --rw=randwrite --size=16m --iodepth=8 \
	--verify=crc32c --verify_fatal=1 --do_verify=1
expect_eq "written 4k blocks" 4096 "$(( $(fio_field 47) / 4 ))"
expect_eq "verified 4k blocks" 4096 "$(( $(fio_field 6) / 4 ))"
expect_eq "I/O queue interrupts during polled I/O" 0 $(( $(nvme_io_irqs) - irq0 ))
expect_ge "nvme_poll calls that reaped completions" 1 "$(probe_sum nvpoll)"
probe_sum_stop nvpoll

probe_sum_start nvpoll nvme_poll
irq0=$(nvme_io_irqs)
fio_run irq --filename=/dev/nvme0n1 --ioengine=io_uring --direct=1 \
	--hipri=0 --bs=4k --rw=randread --size=16m --iodepth=8 --number_ios=1000
expect_ge "I/O queue interrupts during hipri=0 I/O" 1 $(( $(nvme_io_irqs) - irq0 ))
expect_eq "nvme_poll calls that reaped completions (hipri=0)" 0 "$(probe_sum nvpoll)"
probe_sum_stop nvpoll
echo "PASS"
