#!/bin/bash
# Guest half of harness-stall: a passing script whose kernel module holds
# an RCU read-side section and its CPU for $1 seconds, or for the booted
# RCU stall timeout plus $2 seconds when $1 is "timeout".
secs=$1
if [ "$secs" = timeout ]; then
	t=$(cat /sys/module/rcupdate/parameters/rcu_cpu_stall_timeout)
	secs=$((t + $2))
fi
echo "stall: $secs s"
insmod /lib/modules/"$(uname -r)"/extra/blkfast-warn.ko rcu_stall_s="$secs"
echo "insmod blkfast-warn rcu_stall_s=$secs: $?"
