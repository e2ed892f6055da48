#!/bin/bash
# vm: -c 2
# Guest half of harness-stall: a passing script whose kernel module holds
# an RCU read-side section and its CPU for $1 seconds, or for the booted
# RCU stall timeout plus $2 seconds when $1 is "timeout".  Two vCPUs: the
# grace-period kthread that reports the stall must run beside the CPU the
# module holds (on one vCPU it runs only if a grace period was already
# under way, and the stall went unreported about one run in two).
secs=$1
if [ "$secs" = timeout ]; then
	t=$(cat /sys/module/rcupdate/parameters/rcu_cpu_stall_timeout)
	secs=$((t + $2))
fi
echo "stall: $secs s"
insmod /lib/modules/"$(uname -r)"/extra/blkfast-warn.ko rcu_stall_s="$secs"
echo "insmod blkfast-warn rcu_stall_s=$secs: $?"
