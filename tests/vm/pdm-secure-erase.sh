#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# 6.12-tier: secure erase limits stacked through queue_limits
# vm: -c 1
# debug-tier: full a limits question, no concurrency or lifetimes; the table load and limits stacking run in every test of the core
# pdm never offers secure erase, as dm turns it off: 6.1's
# blk_stack_limits() keeps the smallest non-zero leg's limit, so a table
# over a device that erases securely (blkfast-slowpoll secure_erase=1) and
# one that does not (null_blk) used to offer it, and BLKSECDISCARD erased
# the capable leg irreversibly before failing on the other.  Now it fails
# before anything is touched: the capable device counts no erase and its
# data is intact.  On that device itself the same ioctl works, which
# shows the fixture erases when asked.
. "$(dirname "$0")/lib/lib.sh"

nullb_load queue_mode=2 nr_devices=1 gb=1
run modprobe blkfast-slowpoll service_us=10 size_mb=64 data=1 secure_erase=1
run modprobe pdm
erased=/sys/module/blkfast_slowpoll/parameters/secure_erased
dd if=/dev/urandom of=/tmp/data bs=64k count=16 status=none
run dd if=/tmp/data of=/dev/slowpoll0 bs=64k oflag=direct status=none
sum=$(md5sum </tmp/data | cut -d' ' -f1)

run pdmsetup create mix --table "$(printf '0 2048 linear /dev/slowpoll0 0\n2048 2048 linear /dev/nullb0 0')" >/dev/null
expect_fail "Operation not supported" blkdiscard -f -s /dev/pdm0
run pdmsetup remove mix
run pdmsetup create one --table "0 2048 linear /dev/slowpoll0 0" >/dev/null
expect_fail "Operation not supported" blkdiscard -f -s /dev/pdm0
run pdmsetup remove one
expect_eq "secure erases that reached slowpoll0" 0 "$(cat $erased)"
expect_eq "slowpoll0's data" "$sum" "$(md5_of /dev/slowpoll0 0 2048)"

# The fixture itself erases when asked.
run blkdiscard -f -s -o 0 -l 65536 /dev/slowpoll0
expect_ge "secure erases on slowpoll0 itself" 1 "$(cat $erased)"
run rmmod pdm
run rmmod blkfast-slowpoll
echo "PASS"
