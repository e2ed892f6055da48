#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# baseline: the debug kernel's detectors, through the harness
# Each detector of the debug kernel fails a run through the harness when
# test code (tests/modules/blkfast-bugs.c) commits its kind of bug, with
# the script itself passing: a sleep under a spinlock (DEBUG_ATOMIC_SLEEP),
# two mutexes taken in both orders (lockdep), a read after kfree (KFENCE),
# a write after kmem_cache_free() (SLUB's poison checks) and an allocation
# with no reference left (kmemleak), also once the module that leaked it
# is unloaded.  That a boot with
# no bug passes, the debug kernel booting clean, every other test of the
# tier shows.
. "$(dirname "$0")/../host/lib/lib.sh"
bug=tests/vm/harness/bug.sh
vm_expect 1 "sleeping function called from invalid context" -f debug \
	"$bug" atomic_sleep
vm_expect 1 "possible circular locking dependency" -f debug \
	"$bug" lock_inversion
# KFENCE's pool (511 objects on this kernel) can fill during a slow boot:
# sampling an allocation every 1 ms (the tier's setting), it held 422
# long-lived ones 12 s into a boot of an idle host, and on a loaded host
# (make check) this boot once found none left to guard the module's
# object.  A 100 ms interval leaves the pool nearly empty at the module's
# load; its allocation loop still meets some 30 samples.
vm_expect 1 "KFENCE: use-after-free read" -f debug \
	-a kfence.sample_interval=100 "$bug" use_after_free
vm_expect 1 "Poison overwritten" -f debug "$bug" write_after_free
vm_expect 1 "kmemleak: leak in our modules" -f debug "$bug" leak
# The same leak with the module unloaded before the scan: its frames print
# as bare addresses, which the harness names from the guest's notes of
# where modules lay (scripts/guest-init.sh).
vm_expect 1 "kmemleak: leak in our modules" -f debug "$bug" leak unload
