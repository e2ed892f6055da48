#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# 6.12-tier: deferred remove racing an open, with 6.12 open/release methods
# vm: -c 2
# A deferred removal whose device is opened again between its last close
# and the removal stays pending, as dm's does (udev's watch rule opens a
# disk whenever a writer closes it).  blkfast-hold
# (tests/modules/blkfast-hold.c) holds the removal that the last close
# started (pdm_dev_remove, from pdm's work item) while the test opens the
# device again; released, the removal finds it open: the device stays,
# info still says the removal is pending, and the next last close
# removes it.  The mutant pdm-deferred-dropped fails it.
. "$(dirname "$0")/lib/lib.sh"

nullb_load queue_mode=2 nr_devices=1 gb=1
run modprobe pdm
run pdmsetup create dr --table "0 2048 linear /dev/nullb0 0" >/dev/null
run modprobe blkfast-hold symbol=pdm_dev_remove hold_ms=10000
HP=/sys/module/blkfast_hold/parameters
exec 3</dev/pdm0
run pdmsetup remove --deferred dr
echo 1 >$HP/arm
exec 3<&-
READ_VALUE=-1
for _ in $(seq 100); do
	READ_VALUE=$(cat $HP/holding)
	[ "$READ_VALUE" = -1 ] || break
	sleep 0.05
done
[ "$READ_VALUE" != -1 ] || fail "the deferred removal was not held"
exec 3</dev/pdm0
echo 1 >$HP/release
wait_read $HP/holding -1 || fail "the hold did not end"
expect_eq "calls held" 1 "$(cat $HP/held)"
sleep 0.2
expect_eq "opened again: still there" dr \
	"$(pdmsetup info -c --noheadings -o name dr)"
pdmsetup info dr | grep -q '^Deferred remove: *pending$' ||
	fail "opened again: the removal is no longer pending: $(pdmsetup info dr)"
exec 3<&-
wait_block_gone pdm0 "dr still exists after its next last close"
run rmmod blkfast-hold
run rmmod pdm
echo PASS
