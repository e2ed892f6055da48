#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# 6.12-tier: create, polled I/O, holder links (made after add_disk there), striped clones, remove
# debug-tier: full the verbs and output shapes; every pdm test of the core creates, does polled I/O on and removes devices
# vm: -c 2
# pdm over null_blk poll queues: pdmsetup's verbs and output shapes, linear
# and striped tables with io_uring hipri=1 (every completion reaped by
# null_poll(): on the linear table each 4k read remapped in place by the
# default poll_mode, direct, and polled by io_uring on null_blk's queue;
# on the stripe each 128k read cut into clones polled through pdm's
# poll_bio), holders (a second device sharing a lower disk), EBUSY on
# removing an open device, rmmod refused while devices exist.
. "$(dirname "$0")/lib/lib.sh"

nullb_load queue_mode=2 nr_devices=2 submit_queues=1 poll_queues=1 \
	irqmode=0 gb=1
run modprobe pdm
[ -c /dev/pdm-control ] || fail "/dev/pdm-control missing"
expect_eq "pdm-control mode" 600 "$(stat -c %a /dev/pdm-control)"

sectors=$(cat /sys/block/nullb0/size)
node=$(pdmsetup create lin --table "0 $sectors linear /dev/nullb0 0") ||
	fail "pdmsetup create lin failed"
expect_eq "create prints the node" /dev/pdm0 "$node"
[ -b /dev/pdm0 ] || fail "/dev/pdm0 is not a block device"
expect_eq "ls" "$(printf 'lin\t(%s)' "$(cat /sys/block/pdm0/dev)")" \
	"$(pdmsetup ls)"
expect_eq "table" "0 $sectors linear $(cat /sys/block/nullb0/dev) 0" \
	"$(pdmsetup table lin)"
expect_eq "status" "0 $sectors linear P" "$(pdmsetup status lin)"
expect_eq "polling" "Polling:           on" \
	"$(pdmsetup info lin | grep '^Polling:')"
pdmsetup info lin | grep -q '^State: *ACTIVE$' || fail "info: $(pdmsetup info lin)"
expect_eq "size" "$sectors" "$(cat /sys/block/pdm0/size)"
expect_eq "io_poll" 1 "$(cat /sys/block/pdm0/queue/io_poll)"
expect_eq "holder link" pdm0 "$(ls /sys/block/nullb0/holders)"
expect_eq "slave link" nullb0 "$(ls /sys/block/pdm0/slaves)"
expect_eq "sysfs name" lin "$(cat /sys/block/pdm0/pdm/name)"
expect_eq "poll_mode of a new device (direct, or the tier's)" \
	"$(pdm_new_mode)" "$(pdm_mode pdm0)"

probe_sum_start npoll null_poll
fio_run lin --filename=/dev/pdm0 --ioengine=io_uring --direct=1 --hipri=1 \
	--bs=4k --rw=randread --iodepth=16 --number_ios=3000
expect_eq "fio I/Os" 3000 "$(fio_ios 4096)"
expect_eq "completions reaped by null_poll" 3000 "$(probe_sum npoll)"
probe_sum_stop npoll
expect_ge "polled bios" 3000 "$(cat /sys/block/pdm0/pdm/polled_bios)"
if [ "$(pdm_new_mode)" = direct ]; then
	expect_eq "bios remapped in place (direct, the default)" 3000 \
		"$(cat /sys/block/pdm0/pdm/remapped)"
else
	expect_eq "bios cloned ($(pdm_new_mode), this tier's)" 3000 \
		"$(cat /sys/block/pdm0/pdm/clones)"
fi
expect_eq "lower bios completed by a poll" 3000 \
	"$(cat /sys/block/pdm0/pdm/completions_found)"

# pdm devices share lower devices (pdm-share tests more; lin writes all
# of nullb0, so another writable device there is refused: pdm-overlap);
# an open device cannot be removed; the module cannot be unloaded while
# devices exist.
expect_eq "a second, read-only device on nullb0" /dev/pdm1 \
	"$(pdmsetup create other --readonly --table "0 8 linear /dev/nullb0 8")"
expect_eq "holder links" "pdm0 pdm1" "$(holders_of nullb0)"
run pdmsetup remove other
exec 3</dev/pdm0
expect_fail "Device or resource busy" pdmsetup remove lin
pdmsetup info lin | grep -q '^Open count: *1$' || fail "open count: $(pdmsetup info lin)"
exec 3<&-
expect_fail "in use" rmmod pdm
run pdmsetup remove lin
expect_eq "nullb0 holders after remove" "" "$(ls /sys/block/nullb0/holders)"

# A 2-leg stripe with 64 KiB chunks; 128k reads span both legs.
half=$((sectors / 2))
expect_fail "line 1: 252:1: no such device" pdmsetup create str --table \
	"0 $half striped 2 128 /dev/nullb0 $half 252:1 0"
minor1=$(cut -d: -f2 /sys/block/nullb1/dev)
major1=$(cut -d: -f1 /sys/block/nullb1/dev)
node=$(pdmsetup create str --table \
	"0 $half striped 2 128 /dev/nullb0 $half $major1:$minor1 0") ||
	fail "pdmsetup create str failed"
expect_eq "node" /dev/pdm0 "$node"
probe_sum_start npoll null_poll
fio_run str --filename=/dev/pdm0 --ioengine=io_uring --direct=1 --hipri=1 \
	--bs=128k --rw=randread --iodepth=8 --number_ios=1000
expect_eq "fio I/Os" 1000 "$(fio_ios 131072)"
expect_ge "null_poll completions (>= 2 clones per I/O)" 2000 \
	"$(probe_sum npoll)"
probe_sum_stop npoll
expect_ge "clones" 2000 "$(cat /sys/block/pdm0/pdm/clones)"
expect_eq "clones completed by a poll" "$(cat /sys/block/pdm0/pdm/clones)" \
	"$(cat /sys/block/pdm0/pdm/completions_found)"

run pdmsetup remove str
expect_eq "ls after remove" "No devices found" "$(pdmsetup ls)"
run rmmod pdm
echo "PASS"
