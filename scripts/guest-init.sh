#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# /init of the test guest.  Mounts the pseudo file systems, runs the
# script named in /blkfast/script (a path under /blkfast, which holds
# tests/vm/ and tests/pdm-tables/ as the checkout does: scripts/vm.sh),
# prints the kernel log and an exit marker for the host, and powers off.
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

# The debug kernel's kmemleak scans once, at the end (below): its
# automatic thread would scan, for 15 s of a vCPU on the debug kernel,
# once a minute in and every ten after, in the middle of the test.
kml=/sys/kernel/debug/kmemleak
[ ! -w $kml ] || echo scan=off >$kml

# kmemleak names the module of a leaked object's allocator only while it
# is loaded; most tests unload ours before the scan below, and then print
# its frames as bare addresses.  So every rmmod and modprobe first notes
# where the modules lie (/proc/modules), for the host to name them
# (scripts/vm.sh).
wrap=/tmp/.blkfast-wrap mods=/tmp/.blkfast-modules
if [ -w $kml ]; then
	mkdir -p $wrap
	for t in rmmod modprobe; do
		printf '#!/bin/bash\ncat /proc/modules >>%s\nexec -a %s /usr/bin/kmod "$@"\n' \
			$mods $t >$wrap/$t
		chmod +x $wrap/$t
	done
	echo /tmp/.blkfast-wrap/modprobe >/proc/sys/kernel/modprobe
fi

cd /blkfast || exit 1
read -ra args <./args
read -r script <./script

# Shortly before scripts/vm.sh's time limit (blkfast.timeout=, seconds),
# a test still running is taken for a hang: its evidence (blocked tasks,
# every CPU's stack, the kernel log's end) goes to the console, where the
# host's log keeps it, before the host kills the guest.
limit=$(sed -n 's/.*blkfast\.timeout=\([0-9]*\).*/\1/p' /proc/cmdline)
dog=
if [ -n "$limit" ]; then
	# Counted from boot (since 0).
	guest-hang-report "$limit" 0 "$script" &
	dog=$!
fi
# Test-only: a boot that never reaches its test, hung or crashed
# (tests/host/harness-boot.sh, through scripts/vm.sh's
# BLKFAST_TEST_BOOT_HANG).
case " $(cat /proc/cmdline) " in
*" blkfast.test_boot_hang=hang "*) sleep infinity ;;
*" blkfast.test_boot_hang=crash "*) echo c >/proc/sysrq-trigger ;;
esac
echo "@@BLKFAST-START@@ $script at $(cut -d' ' -f1 /proc/uptime)s"
PATH=$wrap:$PATH bash "$script" "${args[@]}" </dev/null
rc=$?
[ -z "$dog" ] || kill $dog 2>/dev/null

# The debug kernel's kmemleak reports an object that no reference points
# to in a scan, once it is min_age (5 s) old, unless its contents changed
# since the scan before: so two scans, the second starting 6 s after the
# end of the test at least (a scan of this guest takes about 15 s
# itself).  The host fails the run when a reported object's backtrace
# names one of our modules (scripts/vm.sh).
if [ -w $kml ]; then
	ended=$(cut -d. -f1 /proc/uptime)
	echo scan >$kml
	left=$((ended + 6 - $(cut -d. -f1 /proc/uptime)))
	[ $left -le 0 ] || sleep $left
	echo scan >$kml
	echo "@@BLKFAST-KMEMLEAK-BEGIN@@"
	cat $kml
	echo "@@BLKFAST-KMEMLEAK-END@@"
	echo "@@BLKFAST-MODULES-BEGIN@@"
	cat $mods /proc/modules 2>/dev/null | sort -u
	echo "@@BLKFAST-MODULES-END@@"
fi

echo "@@BLKFAST-DMESG-BEGIN@@"
dmesg
echo "@@BLKFAST-DMESG-END@@"
echo "@@BLKFAST-EXIT $rc@@"
sync
# isa-debug-exit ends QEMU at once; poweroff is the fallback.
printf '\001' | dd of=/dev/port bs=1 seek=244 count=1 2>/dev/null
poweroff -f
