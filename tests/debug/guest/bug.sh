#!/bin/bash
# Guest half of tests/debug/detectors.sh: load blkfast-bugs.ko with one
# deliberate bug ($1), or nothing ("none"); the script itself passes.
if [ "$1" != none ]; then
	insmod /lib/modules/"$(uname -r)"/extra/blkfast-bugs.ko bug="$1"
	echo "insmod blkfast-bugs bug=$1: $?"
fi
exit 0
