#!/bin/bash
# Guest half of harness-warn: a passing script whose kernel logs a WARN.
run_rc=0
insmod /lib/modules/"$(uname -r)"/extra/blkfast-warn.ko || run_rc=$?
echo "insmod blkfast-warn: $run_rc"
exit "$run_rc"
