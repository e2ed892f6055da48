#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm: -c 2 -a slub_debug=A,bio-*
# vm-skip-flavour: amd64 needs failslab, which only the debug kernel has
# vm-skip-flavour: cloud-amd64 needs failslab, which only the debug kernel has
# vm-skip-flavour: rt-amd64 needs failslab, which only the debug kernel has
# A blocking pass makes progress with no memory but the clone pool's own
# two entries.  Every allocation from the bio slabs (slub_debug=A marks
# them, failslab's cache-filter confines it to them) fails for fio's task,
# sleeping ones too, so every clone comes from pd->bs's reserve of two.
# fio writes and verifies 1 MiB direct writes, synchronously (blocking
# bios, GFP_NOIO clones), through a 2-leg stripe of 4 KiB chunks: 256
# clones a pass, each issued onto current->bio_list, where they wait until
# the pass returns.  Without a rescuer to take them off it, the third
# clone would wait for the first two forever; with it, fio must finish
# within its bound and every byte verify.
. "$(dirname "$0")/lib/lib.sh"

nullb_load queue_mode=2 nr_devices=2 gb=1 memory_backed=1 submit_queues=1
run modprobe pdm
sz=$(( $(cat /sys/block/nullb0/size) * 2 ))
run pdmsetup create f --table "0 $sz striped 2 8 /dev/nullb0 0 /dev/nullb1 0" \
	>/dev/null
nullb_prefill /dev/pdm0
marked=$(grep -l 1 /sys/kernel/slab/bio-*/failslab | wc -l)
expect_ge "bio slabs marked for failslab" 1 "$marked"

TIMES=100000000
failslab_arm N Y 100 $TIMES

# Not fio_bounded: a task stuck in mempool_alloc() cannot be killed, and
# timeout(1) would wait for it.
sh -c 'echo 1 >/proc/self/make-it-fail && exec "$@"' sh \
	fio --name=sync-1m --filename=/dev/pdm0 --ioengine=psync --direct=1 \
	--rw=write --bs=1m --size=16m --verify=crc32c --verify_fatal=1 \
	--do_verify=1 --output-format=terse --terse-version=3 \
	>/tmp/fio-sync-1m.out 2>&1 &
wait_ended $! 150 "fio with every bio slab allocation failing"
echo 0 >$FAILSLAB/probability
FIO_RC=$RC
FIO_TERSE=$(grep '^3;' /tmp/fio-sync-1m.out | tail -n 1 || true)
expect_fio_clean sync-1m 16384
# 32 passes of 256 clones, and fio's own bios.
expect_ge "bio allocations failed" 8192 $((TIMES - $(cat $FAILSLAB/times)))
expect_drained f
run pdmsetup remove f
run rmmod pdm
echo PASS
