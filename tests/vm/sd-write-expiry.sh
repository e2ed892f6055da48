#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-skip-flavour: debug a timing relation to mq-deadline; the debug kernel's checks distort timing, and its locking is covered by sd-switch, sd-verify and sd-fault
# vm: -c 2
# 6.12-tier: write_expire, against 6.12's mq-deadline
# write_expire bounds a write's wait, under a read flood, as in
# mq-deadline: the victim, a QD1 random writer in the first 64 MiB, waits
# behind a strided sequential write stream higher up until its FIFO
# deadline passes.  The method, the reference check and the bounds are
# lib/expiry.sh's, with the directions of sd-read-expiry swapped.
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/expiry.sh"

expiry_test write
echo "PASS"
