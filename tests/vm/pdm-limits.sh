#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# 6.12-tier: queue features in queue_limits; polled bios on a disk that cannot poll fail there
# debug-tier: full limit arithmetic and what passes through; the same clone paths run in the core's pdm tests
# vm: -c 2
# What pdm passes on from its lower devices:
# - polling only when every leg polls: a table with a leg that has no poll
#   queue says why in status, and fio hipri=1 on it still completes (by
#   interrupt) on 6.1, fails with EOPNOTSUPP on 6.12 as on dm-linear;
#   on 6.12, polled reads held by a suspend still complete after a
#   reload to a table that cannot poll (6.1 holds no polled read);
# - lower limits: 1 MiB polled reads over null_blk (max_sectors 255) are
#   cut into clones the lower queue takes whole, so none of them is split
#   below and failed with EAGAIN (which io_uring would retry forever),
#   from buffers of many bvecs and from a huge page (one bvec);
# - flushes and discards when every lower device supports them;
# - no zoned lower devices.
. "$(dirname "$0")/lib/lib.sh"

nullb_load queue_mode=2 nr_devices=1 submit_queues=1 poll_queues=1 \
	irqmode=0 gb=1
grep -q " /sys/kernel/config " /proc/mounts ||
	run mount -t configfs none /sys/kernel/config
# 6.1 names a configfs null_blk disk after its directory.
cfg=/sys/kernel/config/nullb/nullb1
run mkdir $cfg
for kv in size=1024 queue_mode=2 poll_queues=0 memory_backed=1 discard=1 \
	  cache_size=64; do
	echo "${kv#*=}" >$cfg/"${kv%%=*}" || fail "configfs ${kv%%=*}"
done
echo 1 >$cfg/power || fail "power on nullb1"
wait_for_block nullb1
run modprobe pdm
n1=$(cat /sys/block/nullb1/dev)

# 1. A leg without poll queues turns polling off, and says so.
mixed="$(printf '0 8192 linear /dev/nullb0 0\n8192 8192 linear /dev/nullb1 0')"
run pdmsetup create mix --table "$mixed" >/dev/null
expect_eq "mixed status" "$(printf '0 8192 linear P\n8192 8192 linear I')" \
	"$(pdmsetup status mix)"
expect_eq "mixed io_poll" 0 "$(cat /sys/block/pdm0/queue/io_poll)"
expect_eq "mixed polling" "Polling:           off: $n1 (nullb1) has no poll queues" \
	"$(pdmsetup info mix | grep '^Polling:')"
# 6.1 clears REQ_POLLED on a disk that cannot poll, and the reads
# complete by interrupt; 6.12 fails them with EOPNOTSUPP before any
# driver sees them, as it does on dm-linear over the same legs, the
# kernel's reference, in the same boot.
# expect_notsupp DEV: hipri=1 reads on DEV fail with EOPNOTSUPP.
expect_notsupp() {
	fio_bounded 60 mixpoll fio --name=mixpoll --filename="$1" \
		--ioengine=io_uring --direct=1 --hipri=1 --bs=4k \
		--rw=randread --iodepth=8 --number_ios=200
	if [ "$FIO_RC" = 0 ] || [ "$FIO_RC" = 124 ]; then
		fail "hipri=1 on $1 (no polling): fio exit $FIO_RC"
	fi
	grep -q "Operation not supported" /tmp/fio-mixpoll.out ||
		fail "hipri=1 on $1 (no polling): not EOPNOTSUPP: $(cat /tmp/fio-mixpoll.out)"
	echo "  ok: hipri=1 on $1 (no polling): EOPNOTSUPP, as 6.12 has it"
}
if [ "$(kernel_line)" = 6.1 ]; then
	fio_run mixpoll --filename=/dev/pdm0 --ioengine=io_uring --direct=1 \
		--hipri=1 --bs=4k --rw=randread --iodepth=8 --number_ios=2000
	expect_eq "hipri=1 I/Os on a non-polling table" 2000 "$(fio_ios 4096)"
else
	expect_notsupp /dev/pdm0
fi
expect_eq "polled bios there" 0 "$(pdm_stat polled_bios)"
run pdmsetup remove mix
if [ "$(kernel_line)" = 6.12 ]; then
	run dmsetup create mixdm --table "$mixed"
	expect_notsupp /dev/mapper/mixdm
	run dmsetup remove mixdm
fi

# 1b. Polled reads held back by a suspend meet a table that cannot poll:
# they complete, by interrupt.  On 6.12 only: there io_uring's first try
# of each polled read is NOWAIT, which a suspended device refuses with
# EAGAIN, and its worker's blocking retry, still REQ_POLLED, is held.
# 6.1 marks every polled bio REQ_NOWAIT and retries it so, never
# blocking: a suspend holds none.  pdm clears REQ_POLLED on the replay,
# as 6.1's block layer does at a submission to a disk that cannot poll;
# 6.12 would fail such a bio (EOPNOTSUPP) where it comes back in.
if [ "$(kernel_line)" = 6.12 ]; then
	run pdmsetup create held --table "0 8192 linear /dev/nullb0 0" >/dev/null
	deferred0=$(pdm_stat deferred)
	run pdmsetup suspend held
	# Exactly the reads that are held: none comes after the resume
	# (6.12 fails those, as in 1).
	fio --name=heldpoll --filename=/dev/pdm0 --ioengine=io_uring \
		--direct=1 --hipri=1 --bs=4k --rw=randread --iodepth=4 \
		--number_ios=4 --output-format=terse --terse-version=3 \
		>/tmp/fio-heldpoll.out 2>&1 &
	fpid=$!
	wait_read /sys/block/pdm0/pdm/deferred $((deferred0 + 4)) || true
	expect_eq "polled reads held back" 4 \
		$(( $(pdm_stat deferred) - deferred0 ))
	run pdmsetup reload held --table "0 8192 linear /dev/nullb1 0"
	run pdmsetup resume held
	wait_ended $fpid 60 "polled reads held for a table that cannot poll: fio"
	[ "$RC" = 0 ] ||
		fail "polled reads held for a table that cannot poll: fio exit $RC: $(cat /tmp/fio-heldpoll.out)"
	FIO_TERSE=$(grep '^3;' /tmp/fio-heldpoll.out | tail -n 1)
	expect_eq "polled reads held, then on a table that cannot poll: error" \
		0 "$(fio_field 5)"
	expect_eq "... reads done" 4 "$(fio_ios 4096)"
	run pdmsetup remove held
fi

# 2. 1 MiB polled reads over max_sectors=255: at least 9 clones each, all
# completed by a poll, in bounded time.
expect_eq "nullb0 max_sectors_kb" 127 "$(cat /sys/block/nullb0/queue/max_sectors_kb)"
run pdmsetup create big --table "0 $(cat /sys/block/nullb0/size) linear /dev/nullb0 0" >/dev/null
expect_eq "pdm max_sectors_kb" 127 "$(cat /sys/block/pdm0/queue/max_sectors_kb)"
# A run still going after 60 s is an EAGAIN retried forever.  As clones
# first (tracked); the huge page step below also in direct.
echo tracked >/sys/block/pdm0/pdm/poll_mode
FIO_WATCHDOG_S=60
fio_run big --filename=/dev/pdm0 --ioengine=io_uring --direct=1 --hipri=1 \
	--bs=1m --rw=randread --iodepth=4 --number_ios=200
expect_eq "1 MiB polled reads" 200 "$(fio_ios 1048576)"
expect_ge "clones of 1 MiB reads" 1800 "$(pdm_stat clones)"
expect_eq "clones completed by a poll" "$(pdm_stat clones)" \
	"$(pdm_stat completions_found)"
# The same from a huge page: each bio is then one bvec of 1 MiB, which
# the quick "one bvec within a page fits anywhere" test must not pass:
# as clones (tracked), and not remapped whole (direct, the default).
echo 4 >/proc/sys/vm/nr_hugepages
expect_ge "huge pages" 2 "$(cat /proc/sys/vm/nr_hugepages)"
for mode in tracked direct; do
	echo $mode >/sys/block/pdm0/pdm/poll_mode
	clones0=$(pdm_stat clones) remapped0=$(pdm_stat remapped)
	fio_run bighuge --filename=/dev/pdm0 --ioengine=io_uring --direct=1 \
		--hipri=1 --bs=1m --rw=randread --iodepth=2 --mem=shmhuge \
		--hugepage-size=2m --number_ios=100
	expect_eq "$mode: 1 MiB polled reads from a huge page" 100 \
		"$(fio_ios 1048576)"
	expect_ge "$mode: clones of 1 MiB reads from a huge page" 900 \
		$(($(pdm_stat clones) - clones0))
	expect_eq "$mode: 1 MiB reads remapped whole" 0 \
		$(($(pdm_stat remapped) - remapped0))
done
unset FIO_WATCHDOG_S
expect_eq "pdm requeues (EAGAIN from a split below)" 0 "$(pdm_stat requeued)"
echo 0 >/proc/sys/vm/nr_hugepages
run pdmsetup remove big

# 3. Flush and discard pass through to a device with a volatile cache and
# discard support, and are off over one without discard.
run pdmsetup create wc --table "0 8192 linear /dev/nullb1 0" >/dev/null
expect_eq "pdm write_cache" "write back" "$(cat /sys/block/pdm0/queue/write_cache)"
expect_ge "pdm discard_max_bytes" 1 "$(cat /sys/block/pdm0/queue/discard_max_bytes)"
flush0=$(awk '{ print $16 }' /sys/block/nullb1/stat)
fio_run fsync --filename=/dev/pdm0 --ioengine=psync --direct=1 --bs=4k \
	--rw=write --size=1m --fsync=4
flushes=$(( $(awk '{ print $16 }' /sys/block/nullb1/stat) - flush0 ))
expect_ge "flushes reaching nullb1 (256 writes, fsync after every 4)" 60 "$flushes"
run dd if=/dev/urandom of=/dev/pdm0 bs=64k count=8 oflag=direct status=none
[ "$(dd if=/dev/pdm0 bs=64k count=8 iflag=direct status=none | tr -d '\0' | wc -c)" -gt 0 ] ||
	fail "random data read back as zeros"
run blkdiscard -o 0 -l 524288 /dev/pdm0
expect_eq "non-zero bytes after discard" 0 \
	"$(dd if=/dev/pdm0 bs=64k count=8 iflag=direct status=none | tr -d '\0' | wc -c)"
run pdmsetup remove wc
run pdmsetup create nodiscard --table "0 8192 linear /dev/nullb0 0" >/dev/null
expect_eq "discard_max_bytes over a lower without discard" 0 \
	"$(cat /sys/block/pdm0/queue/discard_max_bytes)"
run pdmsetup remove nodiscard

# 4. Zoned lower devices are refused: zone append would need remapping.
nullb_cfs nullb2 size=256 queue_mode=2 zoned=1 zone_size=64
expect_fail "Operation not supported: line 1: /dev/nullb2: zoned devices are not supported" \
	pdmsetup create zoned --table "0 8192 linear /dev/nullb2 0"
expect_eq "devices after refusals" "No devices found" "$(pdmsetup ls)"
run rmmod pdm
echo "PASS"
