#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-skip-flavour: debug a timing relation to mq-deadline; the debug kernel's checks distort timing, and its locking is covered by sd-switch, sd-verify and sd-fault
# vm: -c 2
# 6.12-tier: read_expire, against 6.12's mq-deadline
# read_expire bounds a read's wait, under a write flood, as in
# mq-deadline.  In (mq-)deadline a write flood alone cannot starve a read:
# reads win every batch decision but the writes_starved-th, whatever
# read_expire says.  read_expire orders reads against reads: the victim, a
# QD1 random reader in the first 64 MiB, waits behind a strided
# sequential read stream higher up until its FIFO deadline passes.  The
# method, the reference check and the bounds are lib/expiry.sh's.
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/expiry.sh"

expiry_test read
echo "PASS"
