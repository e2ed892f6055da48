#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build our modules, the test-only ones included, for a guest kernel flavour
# other than the tree's own build: in a copy of the sources,
# build/flavour-FLAVOUR/ (kbuild's M= builds write their objects next to
# the sources, so the tree's own objects are left alone).  A VM run on that
# flavour takes its .ko files from there:
#   BLKFAST_KO_DIR=build/flavour-FLAVOUR tests/run -f FLAVOUR vm
#
#   scripts/flavour-modules.sh FLAVOUR [MAKE-ARGS...]
# FLAVOUR is a Debian flavour (built against its headers package) or
# "debug" (against the debug kernel's own tree, scripts/debug-kernel.sh).
# The make output goes to build/flavour-FLAVOUR/build.log.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
cd "$top"
# shellcheck source=scripts/config.sh
. scripts/config.sh

flavour=$1
shift
kdir=$(guest_kdir "$flavour")
[ -f "$kdir/Makefile" ] || {
	echo "flavour-modules: no kernel tree for $flavour in $kdir" >&2
	exit 1
}
out=build/flavour-$flavour
rm -rf "$out"
mkdir -p "$out"
# The sources of the modules: what the build reads (dkms.conf for the
# version they report), and nothing it made.
find Makefile Kbuild dkms.conf scripts/private-headers.sh sched poll include \
	tests/modules -type f \
	\( -name '*.[ch]' -o -name Kbuild -o -name Makefile -o -name '*.sh' \
	   -o -name dkms.conf \) \
	! -name '*.mod.c' -print0 | cpio --quiet -0 -pdm "$out"
# The private block/ headers depend on the kernel version only, which every
# flavour shares: extract them once, into this tree's build/.
kv=$(MAKEFLAGS='' make -s --no-print-directory -C "$kdir" kernelversion)
make -C "$out" --no-print-directory -j"$(nproc)" modules KDIR="$kdir" \
	PRIV_DIR="$top/build/kheaders-$kv" BLKFAST_TESTS=1 "$@" \
	>"$out/build.log" 2>&1
