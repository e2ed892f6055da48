#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# 6.12-tier: a lower device removed under I/O, its file-based open released
# vm: -c 1
# A lower device that goes away under I/O.  null_blk devices made through
# configfs are powered off (or their directory removed) while fio runs on a
# pdm device above them.  In 6.1 both end in null_del_dev(): del_gendisk()
# marks the disk dead, sets its capacity to 0 and waits for the requests in
# flight (polled ones complete when their poller polls, and bio_poll()
# still enters the frozen queue); every later clone fails in
# submit_bio_noacct() (beyond the end of a 0-sector device) with EIO, while
# pdm keeps the dead block device open.  Checked, polled and not:
# - cases 1 and 2 run in poll_mode direct (4k bios remapped in place, so
#   the errors come back through pdm's remap end_io), case 3 in tracked;
# - fio ends with EIO soon after the power-off (no hang), having done I/O
#   before it, with requests in flight on the lower device at the moment it
#   went; nothing is left in flight in pdm afterwards (suspend returns);
# - a 2-leg stripe with one leg gone fails reads that touch it, and still
#   reads the other leg;
# - the pdm device survives: info/table/status work, I/O fails with EIO, a
#   reload onto a new lower device and a resume bring it back;
# - pdm's reference on the dead device pins null_blk until pdmsetup remove;
#   afterwards pdm and null_blk unload.
. "$(dirname "$0")/lib/lib.sh"

CFS=/sys/kernel/config/nullb

uptime_s() {
	local up rest
	read -r up rest </proc/uptime
	echo "$up"
}

# Milliseconds since boot.
uptime_ms() {
	local up rest
	read -r up rest </proc/uptime
	echo $(( ${up%.*} * 1000 + 10#${up#*.} * 10 ))
}

refcnt() {
	cat /sys/module/"$1"/refcnt
}

# fio_bg NAME FIO-ARGS...: start a time-based fio that would run 30 s, in
# the background, bounded by timeout; its pid in FIO_PID, its output in
# /tmp/fio-NAME.out.
fio_bg() {
	local name=$1
	shift
	timeout 60 fio --name="$name" --output-format=terse --terse-version=3 \
		--group_reporting --direct=1 --time_based --runtime=30 "$@" \
		>/tmp/fio-"$name".out 2>&1 &
	FIO_PID=$!
}

# wait_bios PDMDEV N: wait (up to 20 s) until pdm has seen N top bios.
wait_bios() {
	local b
	for _ in $(seq 200); do
		b=$(cat /sys/block/"$1"/pdm/bios)
		[ "$b" -ge "$2" ] && { note "$1: $b bios at $(uptime_s) s"; return; }
		kill -0 "$FIO_PID" 2>/dev/null || {
			cat /tmp/fio-*.out
			fail "fio exited before $2 bios"
		}
		sleep 0.1
	done
	fail "$1: only $b bios after 20 s"
}

# fio_wait_failed NAME SINCE_MS: fio (still running until now) must end
# within 15 s of SINCE_MS, with a non-zero exit and EIO as its error, after
# having done some I/O; FIO_TERSE holds its summary.
fio_wait_failed() {
	local name=$1 since=$2 rc=0 took
	wait "$FIO_PID" || rc=$?
	took=$(( $(uptime_ms) - since ))
	note "fio $name: exit $rc, ${took} ms after the lower device went"
	[ "$rc" != 0 ] || { cat /tmp/fio-"$name".out; fail "fio $name exited 0"; }
	if [ "$rc" = 124 ] || [ "$rc" = 143 ]; then
		fail "fio $name: killed by timeout (hang?)"
	fi
	expect_le "fio $name: ms from the failure to its end" 15000 "$took"
	FIO_TERSE=$(grep '^3;' /tmp/fio-"$name".out | tail -n 1)
	[ -n "$FIO_TERSE" ] || { cat /tmp/fio-"$name".out; fail "fio $name: no summary"; }
	expect_eq "fio $name: error (EIO)" 5 "$(fio_field 5)"
	grep -q "Input/output error" /tmp/fio-"$name".out ||
		fail "fio $name: no 'Input/output error' in its output"
	expect_ge "fio $name: KiB done before the failure" 1 \
		"$(( $(fio_field 6) + $(fio_field 47) ))"
}

# expect_lower_busy DEV: the lower device has requests in flight (polled
# ones wait for fio to poll; lf1's for their 50 ms timer).  Sampled up to
# 20 times, letting fio run in between.
expect_lower_busy() {
	local n=0 r w
	for _ in $(seq 20); do
		read -r r w </sys/block/"$1"/inflight
		n=$((r + w))
		[ $n -gt 0 ] && break
		sleep 0.05
	done
	expect_ge "$1: requests in flight just before it goes" 1 $n
}

# dd_eio DEV: a direct 4 KiB read of DEV fails with EIO.
dd_eio() {
	local out
	out=$(dd if="$1" of=/dev/null bs=4k count=1 iflag=direct 2>&1) &&
		fail "dd from $1 succeeded after its lower device went"
	case $out in
	*"Input/output error"*) note "ok: dd from $1: Input/output error" ;;
	*) fail "dd from $1: expected EIO, got '$out'" ;;
	esac
}

run modprobe null_blk nr_devices=0
run modprobe pdm
# 256 MiB each, one submit and one poll queue, completions in softirq;
# lf1: no poll queue (pdm does not poll) and completions by a 50 ms timer,
# so that requests are in flight when it goes: its rmdir is a fork away
# from the check, the power-offs a shell builtin.
nullb_cfs lf0 size=256 queue_mode=2 submit_queues=1 poll_queues=1
nullb_cfs lf1 size=256 queue_mode=2 submit_queues=1 poll_queues=0 \
	irqmode=2 completion_nsec=50000000
nullb_cfs lf2 size=256 queue_mode=2 submit_queues=1 poll_queues=1
nullb_cfs lf3 size=256 queue_mode=2 submit_queues=1 poll_queues=1
sz=$(cat /sys/block/lf0/size)
expect_eq "lf0 sectors" 524288 "$sz"

# ---- 1. linear over lf0, io_uring hipri=1, lf0 powered off --------------
echo "linear, polled, power off ($(uptime_s) s)"
run pdmsetup create lin --table "0 $sz linear /dev/lf0 0" >/dev/null
expect_eq "lin status" "$(printf '0 %s linear P' "$sz")" \
	"$(pdmsetup status lin)"
lin_table="0 $sz linear $(cat /sys/block/lf0/dev) 0"
echo direct >/sys/block/pdm0/pdm/poll_mode
fio_bg lin --filename=/dev/pdm0 --ioengine=io_uring --hipri=1 --bs=4k \
	--rw=randread --iodepth=16
wait_bios pdm0 2000
polled=$(cat /sys/block/pdm0/pdm/polled_bios)
expect_ge "polled bios before the power-off" 2000 "$polled"
expect_ge "remapped bios before the power-off" 2000 \
	"$(cat /sys/block/pdm0/pdm/remapped)"
kill -0 $FIO_PID 2>/dev/null || fail "fio lin ended before the power-off"
expect_lower_busy lf0
t0=$(uptime_ms)
echo 0 >$CFS/lf0/power || fail "cannot power off lf0"
[ -b /dev/lf0 ] && fail "/dev/lf0 still there after power-off"
fio_wait_failed lin "$t0"
expect_drained lin
# The device stays, on a dead lower device that it still holds.
expect_eq "lin table" "$lin_table" "$(pdmsetup table lin)"
pdmsetup info lin | grep -q '^State: *ACTIVE$' || fail "info: $(pdmsetup info lin)"
dd_eio /dev/pdm0
# Back to life on another device (named otherwise: a new lf0 would clash
# with the dead one's link in pdm0/slaves).
nullb_cfs lf9 size=256 queue_mode=2 submit_queues=1 poll_queues=1
# (null_blk's refcnt counts configfs directories too: compare, don't count.)
r=$(refcnt null_blk)
run pdmsetup reload lin --table "0 $sz linear /dev/lf9 0"
expect_eq "null_blk refcnt: lf9 open too" $((r + 1)) "$(refcnt null_blk)"
run pdmsetup resume lin
expect_eq "lin table after reload" "0 $sz linear $(cat /sys/block/lf9/dev) 0" \
	"$(pdmsetup table lin)"
expect_eq "slaves after reload" lf9 "$(ls /sys/block/pdm0/slaves)"
expect_eq "null_blk refcnt: dead lf0 let go" "$r" "$(refcnt null_blk)"
expect_eq "lin status after reload" "$(printf '0 %s linear P' "$sz")" \
	"$(pdmsetup status lin)"
run dd if=/dev/pdm0 of=/dev/null bs=4k count=256 iflag=direct status=none
note "ok: lin reads again"
run pdmsetup remove lin
expect_eq "lf9 holders after remove" "" "$(ls /sys/block/lf9/holders)"
expect_eq "null_blk refcnt after remove lin" $((r - 1)) "$(refcnt null_blk)"

# ---- 2. linear over lf1, interrupts, configfs directory removed ----------
echo "linear, interrupts, rmdir ($(uptime_s) s)"
run pdmsetup create irq --table "0 $sz linear /dev/lf1 0" >/dev/null
pdmsetup info irq | grep -q '^Polling: *off: ' || fail "irq: $(pdmsetup info irq)"
echo direct >/sys/block/pdm0/pdm/poll_mode
fio_bg irq --filename=/dev/pdm0 --ioengine=io_uring --hipri=0 --bs=4k \
	--rw=randrw --iodepth=16
wait_bios pdm0 100
kill -0 $FIO_PID 2>/dev/null || fail "fio irq ended before the rmdir"
expect_ge "remapped bios before the rmdir" 100 \
	"$(cat /sys/block/pdm0/pdm/remapped)"
expect_lower_busy lf1
t0=$(uptime_ms)
rmdir $CFS/lf1 || fail "cannot remove lf1"
fio_wait_failed irq "$t0"
expect_drained irq
dd_eio /dev/pdm0
# The deleted lf1 is held by pdm alone now: it pins null_blk until removed.
r=$(refcnt null_blk)
run pdmsetup remove irq
expect_eq "null_blk refcnt after remove irq" $((r - 1)) "$(refcnt null_blk)"

# ---- 3. 2-leg stripe over lf2 and lf3, hipri=1, lf3 powered off ----------
echo "striped, polled, one leg off ($(uptime_s) s)"
run pdmsetup create str --table "0 $sz striped 2 128 /dev/lf2 0 /dev/lf3 0" \
	>/dev/null
expect_eq "str status" "$(printf '0 %s striped PP' "$sz")" \
	"$(pdmsetup status str)"
# 128 KiB reads at 64 KiB offsets: most span both legs.
fio_bg str --filename=/dev/pdm0 --ioengine=io_uring --hipri=1 --bs=128k \
	--blockalign=64k --rw=randread --iodepth=8
wait_bios pdm0 500
kill -0 $FIO_PID 2>/dev/null || fail "fio str ended before the power-off"
expect_lower_busy lf3
t0=$(uptime_ms)
echo 0 >$CFS/lf3/power || fail "cannot power off lf3"
fio_wait_failed str "$t0"
expect_drained str
# Keep reading the half-dead stripe for 2 s, 64 KiB reads (one chunk
# each), errors or not: about half fail (lf3), half are read (lf2), and
# polled bios whose clone failed at once still complete through poll_bio.
rc=0
timeout 30 fio --name=half --filename=/dev/pdm0 --ioengine=io_uring --hipri=1 \
	--direct=1 --bs=64k --blockalign=64k --rw=randread --iodepth=8 \
	--time_based --runtime=2 --continue_on_error=all --output-format=json \
	>/tmp/fio-half.json 2>&1 || rc=$?
if [ $rc = 124 ] || [ $rc = 143 ]; then
	fail "fio half: killed by timeout (hang?)"
fi
json_first() {
	sed -n "s/^ *\"$1\" : \([0-9]*\),*\$/\1/p" /tmp/fio-half.json | head -n 1
}
errs=$(json_first total_err) ios=$(json_first total_ios)
bytes=$(json_first io_bytes)
note "fio half: exit $rc, $ios reads, $errs errors, $bytes bytes read"
expect_eq "fio half: first error (EIO)" 5 "$(json_first error)"
expect_ge "fio half: reads that failed" 100 "$errs"
expect_ge "fio half: bytes read from lf2" $((100 * 65536)) "$bytes"
# io_bytes counts the reads that succeeded: each read did one or the other.
expect_eq "fio half: reads = read + failed" "$ios" $((bytes / 65536 + errs))
expect_ge "fio half: % failed (lf3's half)" 35 $((100 * errs / ios))
expect_le "fio half: % failed (lf3's half)" 65 $((100 * errs / ios))
expect_drained str
# Chunk 0 is on lf2, chunk 1 on lf3: the first still reads, the second not.
run dd if=/dev/pdm0 of=/dev/null bs=64k count=1 iflag=direct status=none
out=$(dd if=/dev/pdm0 of=/dev/null bs=64k skip=1 count=1 iflag=direct 2>&1) &&
	fail "a read of lf3's chunk succeeded"
case $out in *"Input/output error"*) ;; *) fail "dd of lf3's chunk: '$out'" ;; esac
note "ok: chunk 0 (lf2) reads, chunk 1 (lf3) fails with EIO"
run pdmsetup remove str
expect_eq "lf2 holders after remove" "" "$(ls /sys/block/lf2/holders)"

# ---- teardown ------------------------------------------------------------
expect_eq "ls" "No devices found" "$(pdmsetup ls)"
run rmmod pdm
for d in lf0 lf2 lf3 lf9; do
	run rmdir $CFS/$d
done
run modprobe -r null_blk
echo "PASS ($(uptime_s) s)"
