#!/bin/bash
# Guest half of tests/debug/detectors.sh: load blkfast-bugs.ko with one
# deliberate bug ($1), or nothing ("none"); the script itself passes.
# With "unload" ($2) the module is unloaded before the harness looks, as
# most tests unload pdm before the kernel's leak scan.
kf=/sys/kernel/debug/kfence/stats
# How full KFENCE's pool is, for a run whose object it did not guard.
[ "$1" != use_after_free ] || [ ! -r $kf ] || grep -E 'allocated|capacity' $kf
if [ "$1" != none ]; then
	insmod /lib/modules/"$(uname -r)"/extra/blkfast-bugs.ko bug="$1"
	echo "insmod blkfast-bugs bug=$1: $?"
	[ "${2:-}" != unload ] || rmmod blkfast-bugs
fi
# SLUB checks a freed object's poison when it is next allocated, or now.
[ "$1" != write_after_free ] || echo 1 >/sys/kernel/slab/blkfast_bugs/validate
exit 0
