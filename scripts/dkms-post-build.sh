#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DKMS's POST_BUILD step (dkms.conf), run in the build folder: DKMS keeps
# make's output in make.log, so say here, where the user sees it, that
# split-deadline was left out, and the command that brings it back.
if [ -f build/split-deadline.skipped ]; then
	cat build/split-deadline.skipped
	echo "blkfast: then run: dkms autoinstall"
fi
exit 0
