#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# debug-tier: full 5.8 min on the debug kernel; the core's pdm-ctl-wait kills commands waiting on suspended devices, and pdm-suspend and pdm-lockfs run suspends under I/O
# 6.12-tier: killed suspends with polled I/O held, bdev_freeze()/thaw there
# vm: -c 2 -t 240
# A suspend waiting for polled I/O can be killed, and leaves the device
# live.  null_blk's poll queue completes a request only when it is
# polled, so a polled fio (io_uring, hipri, verifying writes; its job a
# thread, so that SIGSTOP stops it too) that is stopped leaves its reads
# and writes in flight for as long as it stays stopped: "pdmsetup
# suspend" then waits for them (it must), and dies at once when killed,
# with the device ACTIVE, taking new I/O (a read through it returns), and
# fio, continued, finishes with its data verified.  Then the same for
# "resume" over an inactive table, which suspends first: killed, it
# leaves the old table live and the new one waiting, and a second
# resume, with nothing in flight, swaps them.  Then a suspend of a
# mounted device, which froze its file system first (lockfs), killed
# while it waits for polled reads of a file there: the file system is
# thawed again and takes writes.  A remove never waits here: the device
# stays open while I/O is in flight.  Each stop lasts a few seconds, well
# inside the block layer's 30 s request timeout.  fio writes 64 MiB 4
# times over (once on the debug kernel), so that it still runs when
# stopped.
. "$(dirname "$0")/lib/lib.sh"

nullb_load queue_mode=2 nr_devices=1 gb=1 submit_queues=1 poll_queues=1 \
	memory_backed=1
run modprobe pdm
sz=$(cat /sys/block/nullb0/size)
run pdmsetup create k --table "0 $sz linear /dev/nullb0 0" >/dev/null
# Polled writes stay in the prefilled first 64 MiB (nullb_prefill).
nullb_prefill /dev/nullb0
loops=4
on_debug_kernel && loops=1

# stopped PID: wait until every thread of PID is stopped.
stopped() {
	local t st
	for _ in $(seq 50); do
		st=T
		for t in /proc/"$1"/task/*/stat; do
			# The state follows "(comm)", which has no spaces here.
			[ "$(cut -d' ' -f3 "$t" 2>/dev/null)" = T ] || st=
		done
		[ -n "$st" ] && return 0
		sleep 0.05
	done
	fail "fio's threads not all stopped 2.5 s after SIGSTOP"
}

# stopped_fio [FIO-ARGS...]: start a polled fio (by default verifying
# writes to pdm0) and stop it with requests in flight on nullb0 (it may
# be between two at the first try).
stopped_fio() {
	local r w
	[ $# -gt 0 ] || set -- --filename=/dev/pdm0 --rw=randwrite --size=64M \
		--loops=$loops --verify=crc32c --do_verify=1
	fio --name=held --thread --ioengine=io_uring --hipri --direct=1 \
		--bs=4k --iodepth=8 --output-format=terse --terse-version=3 \
		"$@" >/tmp/fio-held.out 2>&1 &
	FIO=$!
	sleep 1
	for _ in $(seq 50); do
		kill -STOP $FIO
		# SIGSTOP lands as each thread leaves the kernel: a thread still
		# in io_uring_enter() polls (and completes) once more.
		stopped $FIO
		read -r r w </sys/block/nullb0/inflight
		if [ $((r + w)) -gt 0 ]; then
			note "fio stopped with $r reads, $w writes in flight"
			return
		fi
		kill -CONT $FIO
		sleep 0.1
	done
	fail "fio never had a request in flight when stopped (50 tries)"
}

# killed_while_waiting WHAT CMD...: CMD waits for the stopped fio's I/O,
# is killed, and the device is left ACTIVE and taking I/O.
killed_while_waiting() {
	local what=$1 cmd
	shift
	"$@" &
	cmd=$!
	still_running $cmd "$what with polled I/O in flight"
	kill -KILL $cmd
	wait_ended $cmd 5 "the killed $what"
	expect_eq "the killed $what's status" 137 "$RC"
	pdmsetup info $NAME >/tmp/info
	grep -q '^State: *ACTIVE$' /tmp/info ||
		fail "$NAME not active after the killed $what: $(cat /tmp/info)"
	expect_eq "suspended" 0 "$(cat /sys/block/pdm0/pdm/suspended)"
	returns_within 5 "a read of pdm0 after the killed $what" \
		dd if=/dev/pdm0 of=/dev/null bs=4k count=1 iflag=direct
}

# fio_finishes: continue fio; it ends by itself, its data verified.
fio_finishes() {
	kill -CONT $FIO
	wait_ended $FIO 120 "fio, continued"
	# shellcheck disable=SC2034 # read by expect_fio_clean
	FIO_RC=$RC FIO_TERSE=$(grep '^3;' /tmp/fio-held.out | tail -n 1)
	expect_fio_clean held $((loops * 64 * 1024))
}

# 1: suspend.
NAME=k
stopped_fio
killed_while_waiting suspend pdmsetup suspend k
fio_finishes

# 2: resume over an inactive table (half the size) suspends first.
run pdmsetup reload k --table "0 $((sz / 2)) linear /dev/nullb0 0"
stopped_fio
killed_while_waiting "resume over an inactive table" pdmsetup resume k
grep -q '^Tables present: *LIVE & INACTIVE$' /tmp/info ||
	fail "the inactive table is gone: $(cat /tmp/info)"
expect_eq "pdm0's size (the old table)" "$sz" "$(cat /sys/block/pdm0/size)"
fio_finishes
returns_within 10 "resume with nothing in flight" pdmsetup resume k
expect_eq "pdm0's size (the new table)" $((sz / 2)) \
	"$(cat /sys/block/pdm0/size)"

run pdmsetup remove k

# 3: a suspend that froze the file system on the device (lockfs, the
# default), killed while it waits for polled reads of a file there: the
# file system is thawed again, and takes writes.  (Reads: an io_uring
# write in flight holds the file system's freeze protection until it
# completes, so freezing would wait for the stopped writer itself.)
NAME=fs
run pdmsetup create fs --table "0 $((sz / 2)) linear /dev/nullb0 0" \
	>/dev/null
run mke2fs -q -F -t ext4 /dev/pdm0
run mount -t ext4 /dev/pdm0 /mnt
run dd if=/dev/urandom of=/mnt/data bs=1M count=32 conv=fsync status=none
stopped_fio --filename=/mnt/data --rw=randread --time_based --runtime=600
killed_while_waiting "suspend of a mounted device" pdmsetup suspend fs
returns_within 5 "a write to the file system after the killed suspend" \
	sh -c 'echo after >/mnt/after && sync -f /mnt/after'
kill -CONT $FIO
kill -TERM $FIO
wait_ended $FIO 60 "fio, continued and ended"
run umount /mnt
run pdmsetup remove fs
run rmmod pdm
echo PASS
