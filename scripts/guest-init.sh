#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# /init of the test guest.  Mounts the pseudo file systems, runs
# /blkfast/run.sh (the test, put there by scripts/vm.sh), prints the kernel
# log and an exit marker for the host, and powers off.
export PATH=/sbin:/bin:/usr/sbin:/usr/bin:/blkfast/bin
export HOME=/root DM_DISABLE_UDEV=1

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/shm /dev/pts /root
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs tmpfs /tmp
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing
modprobe configfs && mount -t configfs configfs /sys/kernel/config
# The kernel calls this for module autoloading (elevator aliases, dm).
echo /sbin/modprobe >/proc/sys/kernel/modprobe
hostname blkfast-vm

cd /blkfast || exit 1
read -ra args <./args
bash ./run.sh "${args[@]}" </dev/null
rc=$?

# The debug kernel's kmemleak: objects are reported only once no reference
# to them was found in two scans at least min_age (5 s) apart.  The host
# fails the run when a reported object's backtrace names one of our
# modules (scripts/vm.sh).
kml=/sys/kernel/debug/kmemleak
if [ -w $kml ]; then
	echo scan >$kml
	sleep 6
	echo scan >$kml
	echo "@@BLKFAST-KMEMLEAK-BEGIN@@"
	cat $kml
	echo "@@BLKFAST-KMEMLEAK-END@@"
fi

echo "@@BLKFAST-DMESG-BEGIN@@"
dmesg
echo "@@BLKFAST-DMESG-END@@"
echo "@@BLKFAST-EXIT $rc@@"
sync
# isa-debug-exit ends QEMU at once; poweroff is the fallback.
printf '\001' | dd of=/dev/port bs=1 seek=244 count=1 2>/dev/null
poweroff -f
