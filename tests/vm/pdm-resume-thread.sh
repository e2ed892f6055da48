#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm: -c 2
# vm-skip-flavour: amd64 needs failslab, which only the debug kernel has
# vm-skip-flavour: cloud-amd64 needs failslab, which only the debug kernel has
# vm-skip-flavour: rt-amd64 needs failslab, which only the debug kernel has
# A resume issued by a thread of the io_uring process whose polled reads
# the suspend held back.  io_uring first issues every read REQ_NOWAIT;
# replayed from the resume ioctl with REQ_NOWAIT still set, a clone that
# cannot be allocated at once ends the read with EAGAIN in the resuming
# thread, which io_uring takes for a request of its own to reissue
# (REQ_F_REISSUE) and then never completes.  The replay must wait for
# memory instead.  tests/progs/uring-resume submits 64 polled 4 KiB reads
# to the suspended device (none may complete), then resumes it from a
# second thread whose allocations that may not sleep all fail (failslab,
# make-it-fail on that thread only), while the first polls: all 64
# complete with 4096 bytes, within 30 s.
. "$(dirname "$0")/lib/lib.sh"

nullb_load queue_mode=2 nr_devices=1 gb=1 submit_queues=1 poll_queues=1
run modprobe pdm
sz=$(cat /sys/block/nullb0/size)
run pdmsetup create rt --table "0 $sz linear /dev/nullb0 0" >/dev/null
run pdmsetup suspend rt
expect_eq "suspended" 1 "$(cat /sys/block/pdm0/pdm/suspended)"

failslab_arm Y N 100 1000000
RC=0
uring-resume /dev/pdm0 rt 64 >/tmp/resume.out 2>&1 || RC=$?
echo 0 >"$FAILSLAB/probability"
cat /tmp/resume.out
line() {
	grep -E "$1" /tmp/resume.out || true
}
expect_eq "reads completed while suspended" "before resume: 0 completed" \
	"$(line '^before resume')"
expect_eq "reads completed after the resume" \
	"completed 64 of 64, errors 0" "$(line '^(completed|timeout)')"
expect_eq "resume from the io_uring thread" "resume: OK" "$(line '^resume')"
expect_eq "uring-resume's status" 0 "$RC"
expect_eq "suspended after the resume" 0 \
	"$(cat /sys/block/pdm0/pdm/suspended)"
run pdmsetup remove rt
run rmmod pdm
echo "PASS"
