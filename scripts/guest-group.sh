#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Several VM tests in one boot (tests/run's groups, scripts/vm-split.sh
# reads what this prints).  Run by the guest's /init as its script, with
# arguments PATH:LIMIT, one per test: a test script under /blkfast and its
# time limit in seconds.  A boot costs 4 s on Debian's kernels and 20 s
# on the debug kernel (its kmemleak scans included): most of a short
# test's time.
#
# Each test runs as it would alone, between markers on the console:
#   @@BLKFAST-TEST-BEGIN I UPTIME@@   its output   its kernel log
#   @@BLKFAST-TEST-END I RC UPTIME@@
# Its kernel log is printed and cleared after it (dmesg -c), so that a
# splat is charged to the test that caused it and no test sees another's
# messages.  Then what it left behind is taken down (guest_cleanup) and
# the guest must be as it was before the first test: the same modules,
# block devices, mounts and processes.  The group ends early, and the
# host runs the tests left in boots of their own, when a test fails,
# splats, skips, or leaves the guest changed (@@BLKFAST-TEST-DIRTY@@).
# A test still running near its limit gets the hang report guest-init.sh
# gives a lone test, and the guest is powered off.
cd /blkfast || exit 1
splat_re=$(cat /blkfast/splat-re)

# user_pids: the user processes (kernel threads have no command line)
# but this shell, one PID a line.  A /proc file's size is 0 whatever it
# holds: the command line is read (up to its first NUL, no fork).
user_pids() {
	local p c
	for p in /proc/[0-9]*; do
		p=${p#/proc/}
		case $p in 1 | "$$") continue ;; esac
		c=
		IFS= read -r -d '' c <"/proc/$p/cmdline" 2>/dev/null
		[ -z "$c" ] || echo "$p"
	done
}

# guest_state: what a test must leave as it found it.
guest_state() {
	echo "modules: $(cut -d' ' -f1 /proc/modules | sort | tr '\n' ' ')"
	echo "block:" /sys/block/*
	echo "mounts: $(cut -d' ' -f2 /proc/mounts | tr '\n' ' ')"
	echo "kprobes: $(tr '\n' ' ' </sys/kernel/tracing/kprobe_events)"
	echo "configfs:" /sys/kernel/config/*
	echo "nullb: $(find /sys/kernel/config/nullb -mindepth 1 -maxdepth 1 \
		-type d 2>/dev/null | sort | tr '\n' ' ')"
}

# guest_cleanup: take down what the last test left: its processes,
# mounts, devices (pdm, dm, loop, configfs null_blk), trace probes, the
# page cache, and the modules it loaded, newest first, until none of
# them goes.
guest_cleanup() {
	local p m d
	for p in $(user_pids); do
		grep -qx "$p" /tmp/.blkfast-group-pids || kill -9 "$p" 2>/dev/null
	done
	sleep 0.2
	cut -d' ' -f2 /proc/mounts | tac | while read -r m; do
		grep -qx "$m" /tmp/.blkfast-group-mounts || umount "$m"
	done
	if [ -c /dev/pdm-control ]; then
		pdmsetup ls 2>/dev/null | cut -f1 | while read -r d; do
			[ -z "$d" ] || pdmsetup remove "$d"
		done
	fi
	[ ! -c /dev/mapper/control ] || dmsetup remove_all >/dev/null 2>&1
	losetup -D 2>/dev/null
	for d in /sys/kernel/config/nullb/*; do
		[ -d "$d" ] || continue
		echo 0 >"$d/power" 2>/dev/null
		rmdir "$d"
	done
	echo 0 >/sys/kernel/tracing/events/enable 2>/dev/null
	echo >/sys/kernel/tracing/kprobe_events 2>/dev/null
	echo >/sys/kernel/tracing/trace 2>/dev/null
	# Memory as a fresh boot has it, near enough: a test that wants
	# huge pages (pdm-limits) must not find it cut up by the page cache
	# of the tests before it.
	echo 3 >/proc/sys/vm/drop_caches
	echo 1 >/proc/sys/vm/compact_memory 2>/dev/null
	for _ in 1 2 3 4 5; do
		cut -d' ' -f1 /proc/modules | while read -r m; do
			grep -qx "$m" /tmp/.blkfast-group-modules ||
				modprobe -r "$m" 2>/dev/null
		done
		cut -d' ' -f1 /proc/modules | sort | cmp -s - \
			/tmp/.blkfast-group-modules && break
	done
}

# Before the first test: the state every test must leave.
user_pids >/tmp/.blkfast-group-pids
cut -d' ' -f2 /proc/mounts >/tmp/.blkfast-group-mounts
cut -d' ' -f1 /proc/modules | sort >/tmp/.blkfast-group-modules
guest_state >/tmp/.blkfast-group-state
# The boot's kernel log, for the host to check: a splat there is no
# test's, and every test of the group then runs alone.
echo "@@BLKFAST-GROUP-BOOT@@"
dmesg -c

i=0
for arg; do
	i=$((i + 1))
	t=${arg%:*} limit=${arg##*:}
	echo "@@BLKFAST-TEST-BEGIN $i $(cut -d' ' -f1 /proc/uptime)@@ $t"
	# The hang report, as a lone test's but counted from this test's
	# start, then off: the host runs the rest alone.
	(
		guest-hang-report "$limit" "$(cut -d. -f1 /proc/uptime)" "$t"
		printf '\001' | dd of=/dev/port bs=1 seek=244 count=1 2>/dev/null
		poweroff -f
	) &
	dog=$!
	bash "$t" </dev/null
	rc=$?
	kill $dog 2>/dev/null
	wait $dog 2>/dev/null
	# Read and clear in one call: no line is lost between the two.
	dmesg -c >/tmp/.blkfast-group-dmesg
	echo "@@BLKFAST-TEST-DMESG $i@@"
	cat /tmp/.blkfast-group-dmesg
	echo "@@BLKFAST-TEST-END $i $rc $(cut -d' ' -f1 /proc/uptime)@@"
	[ "$rc" = 0 ] || exit 0
	! grep -aEq "$splat_re" /tmp/.blkfast-group-dmesg || exit 0
	[ "$i" -lt $# ] || exit 0
	guest_cleanup >/tmp/.blkfast-group-cleanup 2>&1
	if ! guest_state | cmp -s /tmp/.blkfast-group-state -; then
		echo "@@BLKFAST-TEST-DIRTY $i@@ the guest is not as before" \
			"the first test:"
		guest_state | diff /tmp/.blkfast-group-state - | grep '^[<>]'
		cat /tmp/.blkfast-group-cleanup
		exit 0
	fi
	# What the clean-up itself logged is nobody's splat but must not
	# be hidden either: it ends the group like a dirty state.
	dmesg -c >/tmp/.blkfast-group-dmesg
	if grep -aEq "$splat_re" /tmp/.blkfast-group-dmesg; then
		echo "@@BLKFAST-TEST-DIRTY $i@@ a splat while taking the" \
			"test's devices and modules down:"
		cat /tmp/.blkfast-group-dmesg
		exit 0
	fi
done
exit 0
