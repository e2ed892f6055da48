#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# 6.12-tier: both modules load, refuse unloading in use and unload
# debug-tier: full every other test of the tier loads and unloads the modules
# vm: -c 1
# Our modules load and unload cleanly, twice, and leave nothing behind.
. "$(dirname "$0")/lib/lib.sh"

for round in 1 2; do
	run modprobe split-deadline
	run modprobe pdm
	expect_eq "round $round: split_deadline loaded" 1 \
		"$(grep -c '^split_deadline ' /proc/modules)"
	[ -c /dev/pdm-control ] || fail "round $round: /dev/pdm-control missing"
	expect_eq "pdm-control mode" "crw-------" \
		"$(stat -c %A /dev/pdm-control)"
	run pdmsetup version
	run modprobe -r pdm
	run modprobe -r split-deadline
	expect_eq "round $round: modules left" 0 \
		"$(grep -cE '^(split_deadline|pdm) ' /proc/modules || true)"
	[ ! -e /dev/pdm-control ] || fail "round $round: /dev/pdm-control left behind"
done
echo "PASS"
