#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install what blkfast needs on a Debian 12 host, and fetch the Debian 6.1
# kernel image into a cache folder for the QEMU harness.  Idempotent: quiet
# when everything is already present.  The kernel is never installed on the
# host; it is only unpacked under $BLKFAST_CACHE.
#
#   scripts/deps.sh [--demo] [--flavour amd64|rt-amd64|cloud-amd64|debug]
# --demo: only what `make demo` needs.  --flavour picks the guest kernel to
# fetch (debug: to build, with scripts/debug-kernel.sh, from the kernel
# source package).  Otherwise everything `make check` needs: the headers
# of every flavour (tests/host/flavours-build.sh builds against each),
# dkms and the packaging tools, mmdebstrap for the Debian system test.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/config.sh
. "$here/config.sh"

flavour=$BLKFAST_FLAVOUR
demo=0
while [ $# -gt 0 ]; do
	case $1 in
	--flavour) flavour=$2; shift 2 ;;
	--demo) demo=1; shift ;;
	*) echo "deps.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
case " $BLKFAST_GUEST_FLAVOURS " in
*" $flavour "*) ;;
*) echo "deps.sh: unknown flavour '$flavour' ($BLKFAST_GUEST_FLAVOURS)" >&2
   exit 2 ;;
esac

# What `make demo` needs: build the modules and tools, boot the VM.
pkgs=(make gcc libc6-dev bc kmod cpio xz-utils gzip binutils
      qemu-system-x86 busybox-static fio liburing-dev dmsetup e2fsprogs jq
      sysstat util-linux "linux-headers-$KABI-$BLKFAST_DEFAULT_FLAVOUR")
# And what `make check` adds: DKMS and packaging, the sanitizers, lint,
# the debug kernel's build, every flavour's headers, the Debian system,
# and perf for the guest's profiles (make bench-exact, make bench).
if [ "$demo" = 0 ]; then
	pkgs+=(dkms openssl dh-dkms debhelper lintian mmdebstrap
	       clang libclang-rt-14-dev
	       perl sparse clang-format shellcheck
	       linux-perf
	       flex bison libelf-dev libssl-dev lz4)
	for f in $BLKFAST_FLAVOURS; do
		pkgs+=("linux-headers-$KABI-$f")
	done
fi

# install PACKAGE...: with apt's own progress, for a first run that talks.
install() {
	if [ "$(id -u)" -ne 0 ]; then
		echo "deps.sh: missing packages: $*; run as root" >&2
		exit 1
	fi
	echo "deps.sh: installing $# packages (a few minutes on a fresh" \
	     "machine): $*"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	apt-get install -y -q --no-install-recommends --allow-downgrades \
		-o Dpkg::Use-Pty=0 "$@"
}

# The 6.12 guest's: pahole, which its headers' kbuild runs for the
# modules' BTF; zstd, which its compressed image is unpacked with.
series=$(guest_series "$flavour")
[ "$series" != 6.12 ] || pkgs+=(pahole zstd)

missing=()
for p in "${pkgs[@]}"; do
	st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$st" = installed ] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] || install "${missing[@]}"

# split-deadline's private headers come from linux-source-6.1, which must
# be at exactly the headers' version (scripts/private-headers.sh): pinned,
# so that the newest source does not stand in for another 6.1.y.
hdr=linux-headers-$KABI-$BLKFAST_DEFAULT_FLAVOUR
want=$(dpkg-query -W -f='${Version}' "$hdr")
have=$(dpkg-query -W -f='${db:Status-Status} ${Version}' linux-source-6.1 \
	2>/dev/null || true)
[ "$have" = "installed $want" ] || install "linux-source-6.1=$want"

# The 6.12 guest's source, pinned as 6.1's is.
if [ "$series" = 6.12 ]; then
	have=$(dpkg-query -W -f='${db:Status-Status} ${Version}' \
		linux-source-6.12 2>/dev/null || true)
	[ "$have" = "installed $KPKG_612" ] ||
		install "linux-source-6.12=$KPKG_612"
fi

# The debug kernel is built, from the source package, on Debian's config.
if [ "$flavour" = debug ]; then
	"$here/debug-kernel.sh" >/dev/null
	exit 0
fi

# fetch_debs DIR PACKAGE...: download the packages into DIR.
fetch_debs() {
	local dir=$1
	shift
	echo "deps.sh: fetching $*"
	(cd "$dir" && apt-get download -q "$@" >/dev/null 2>&1) || {
		echo "deps.sh: apt-get download $* failed" >&2
		exit 1
	}
}

# The guest kernel: unpack the image package into the cache, never install.
kver=$(guest_kver "$flavour")
kdir=$(guest_kernel_dir "$flavour")
deb_dir=$(mktemp -d "$BLKFAST_CACHE/deb.XXXXXX")
trap 'rm -rf "$deb_dir"' EXIT
if [ ! -s "$kdir/vmlinux" ]; then
	mkdir -p "$kdir"
	fetch_debs "$deb_dir" "linux-image-$kver"
	rm -rf "$kdir/root"
	dpkg-deb -x "$deb_dir"/linux-image-*.deb "$kdir/root"
	# extract-vmlinux ships in the kernel source package; run it from
	# there rather than carry a copy.  Booting the uncompressed image
	# through PVH saves seconds of in-guest decompression.
	tar -xJOf "/usr/src/linux-source-$series.tar.xz" \
		"linux-source-$series/scripts/extract-vmlinux" \
		>"$deb_dir/extract-vmlinux"
	sh "$deb_dir/extract-vmlinux" "$kdir/root/boot/vmlinuz-$kver" \
		>"$kdir/vmlinux.tmp"
	mv "$kdir/vmlinux.tmp" "$kdir/vmlinux"
	echo "deps.sh: guest kernel ready in $kdir"
fi

# 6.12's headers, unpacked beside it: the flavour's, the common ones and
# kbuild, whose relative links hold together wherever they lie; only the
# Makefile names the common tree by its installed path.
hdir=$(guest_kdir "$flavour")
if [ "$series" = 6.12 ] && [ ! -s "$hdir/Makefile" ]; then
	root=${hdir%/usr/src/*}
	rm -rf "$root" "$root.tmp" "$deb_dir"/*.deb
	# PREEMPT_RT's flavour has its own common tree.
	common=linux-headers-$KABI_612-common
	case $flavour in *-rt-*) common=$common-rt ;; esac
	fetch_debs "$deb_dir" "linux-headers-$kver" "$common" \
		"linux-kbuild-$KABI_612"
	for d in "$deb_dir"/*.deb; do
		dpkg-deb -x "$d" "$root.tmp"
	done
	sed -i "s|^include /usr/src/|include $root/usr/src/|" \
		"$root.tmp/usr/src/linux-headers-$kver/Makefile"
	mv "$root.tmp" "$root"
	echo "deps.sh: headers of $kver ready in $hdir"
fi
