#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# guest-hang-report.sh LIMIT SINCE SCRIPT: in the guest, wait until
# SCRIPT has run near LIMIT seconds counted from guest uptime SINCE, then
# print the evidence of a hang (blocked tasks, every CPU's stack, the
# kernel log's end) for the host's log.  "Near": a tenth of the limit
# early, 5 s to a minute, as the host's clock started before the guest's
# (scripts/guest-init.sh for a lone test, from boot;
# scripts/guest-group.sh for each test of a shared boot, from its start).
limit=$1 since=$2 script=$3
early=$((limit / 10))
[ $early -ge 5 ] || early=5
[ $early -le 60 ] || early=60
wait_s=$((since + limit - early - $(cut -d. -f1 /proc/uptime)))
[ $wait_s -ge 1 ] || wait_s=1
sleep $wait_s
echo "@@BLKFAST-HANG@@ $script still running at" \
	"$(cut -d' ' -f1 /proc/uptime)s; blocked tasks and stacks:"
echo w >/proc/sysrq-trigger
echo l >/proc/sysrq-trigger
sleep 2
dmesg | tail -n 400
echo "@@BLKFAST-HANG-END@@"
