#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# 6.12-tier: the elevator's insert with blk_insert_t flags, verified data
# vm: -c 2 -d 256M
# split-deadline autoloads on selection and keeps data intact: fio
# verify=crc32c mixed random reads and writes from several jobs on an
# emulated NVMe disk and on memory-backed null_blk, 0 mismatches, with
# requests through split-deadline's staging path (4 submitters on 2 vCPUs
# contend for the dispatch lock).
. "$(dirname "$0")/lib/lib.sh"

run modprobe nvme
wait_for_block nvme0n1
nullb_load queue_mode=2 memory_backed=1 submit_queues=2 gb=1

# 64 MiB per job; 16 in the debug tier's core, whose slow checks still
# make submitters meet a held dispatch lock.
mib=64
[ "$(debug_tier)" = core ] && mib=16
grep -q '^split_deadline ' /proc/modules && fail "split_deadline loaded before use"
for dev in nvme0n1 nullb0; do
	set_sched "$dev" split-deadline
	fio_run "verify-$dev" --filename=/dev/$dev --ioengine=io_uring \
		--direct=1 --bs=4k --bsrange=4k-64k --rw=randrw --rwmixread=50 \
		--size=${mib}m --iodepth=16 --numjobs=4 --offset_increment=64m \
		--iodepth_batch_submit=8 --verify=crc32c --verify_fatal=1 \
		--do_verify=1
	note "ok: $dev verified, $(( $(fio_field 47) / 1024 )) MiB written"
	# The verified data went through the staging path too.
	cont=$DEBUGFS/block/$dev/sched/contention
	cat "$cont"
	expect_ge "$dev: staged inserts" 1 \
		"$(awk '$1 == "dispatch_lock_busy_inserts" { print $2 }' "$cont")"
	expect_ge "$dev: requests drained from staging" 1 \
		"$(awk '$1 == "drained" { print $2 }' "$cont")"
	set_sched "$dev" none
done
grep -q '^split_deadline ' /proc/modules || fail "split_deadline did not autoload"
echo "PASS"
