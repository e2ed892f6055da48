# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Shared settings for the blkfast scripts; sourced, not run.

# Debian 12's kernel ABI and the flavour booted by default.
KABI=6.1.0-57
BLKFAST_FLAVOUR=${BLKFAST_FLAVOUR:-amd64}
KSRC_TARBALL=${KSRC_TARBALL:-/usr/src/linux-source-6.1.tar.xz}

# Downloads and generated images live outside the checkout so that a fresh
# clone on the same machine reuses them.
BLKFAST_CACHE=${BLKFAST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/blkfast}
mkdir -p "$BLKFAST_CACHE"

guest_kernel_dir() {
	echo "$BLKFAST_CACHE/linux-image-$KABI-$1"
}

guest_kver() {
	echo "$KABI-$1"
}
