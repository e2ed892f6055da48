#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# baseline: the VM harness's splat detection
# The harness fails a run whose script passed but whose guest kernel logged a
# WARN (tests/modules/blkfast-warn.ko warns on load).
. "$(dirname "$0")/lib/lib.sh"
vm_expect 1 "kernel splat (script exit code 0)" "$guest/warn.sh"
