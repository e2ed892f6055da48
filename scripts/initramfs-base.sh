#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (or reuse) the cached base initramfs for the QEMU harness: busybox,
# kmod, fio, dmsetup, mke2fs, jq with their libraries, and the in-tree modules
# the tests need with every dependency and softdep.  Prints the archive's
# path.
# The archive is keyed on its inputs and rebuilt only when one changes.
#
#   scripts/initramfs-base.sh [flavour]
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/config.sh
. "$here/config.sh"

flavour=${1:-$BLKFAST_FLAVOUR}
kver=$(guest_kver "$flavour")
kroot=$(guest_kernel_dir "$flavour")/root
[ -d "$kroot/lib/modules/$kver" ] || {
	echo "initramfs-base.sh: no guest kernel in $kroot; run scripts/deps.sh" >&2
	exit 1
}

# In-tree modules the tests load; dependencies are resolved below.  ext4
# and mke2fs (busybox makes only ext2, without a journal) are for the tests
# that put a journalling file system on pdm; loop for a lower device that
# completes in process context; scsi_debug (with sd_mod) for one whose
# physical blocks are larger than its logical ones.
modules=(null_blk dm-mod nvme kyber-iosched bfq configfs crct10dif_generic
	 ext4 loop scsi_debug sd_mod)
# dm-delay gives a lower device whose cache flush takes time, as a real
# disk's does (pdm-power-cut).  The debug kernel is built without it, and
# no debug-tier test uses it, so it comes only where the flavour has it.
optional_modules=(dm-delay)
# util-linux's blkdiscard (busybox's has no -z, for write zeroes); jq
# checks that pdmsetup's --json output parses (pdmsetup-cli); e2fsck and
# dumpe2fs judge a copy of a suspended file system (pdm-lockfs), resize2fs
# grows a mounted one (pdm-resize); sysstat's
# iostat reads pdm's I/O statistics as an admin would (pdm-iostats); chrt
# runs fio at a real-time priority (sd-rt-inversion).
programs=(/bin/busybox /bin/bash /usr/bin/kmod /usr/bin/fio /usr/sbin/dmsetup
	  /usr/sbin/mke2fs /usr/sbin/e2fsck /usr/sbin/dumpe2fs \
	  /usr/sbin/resize2fs /sbin/blkdiscard
	  /usr/bin/jq /usr/bin/iostat /usr/bin/chrt)

key=$( {
	cat "$0"
	printf '%s\n' "${modules[@]}" "$kver"
	dpkg-query -W busybox-static kmod fio dmsetup e2fsprogs util-linux jq \
		sysstat \
		"linux-image-$kver" \
		2>/dev/null || true
	ls -l "$kroot/boot"
} | sha256sum | cut -c1-16)
out=$BLKFAST_CACHE/initramfs-base-$flavour-$key.cpio
if [ -s "$out" ]; then
	echo "$out"
	exit 0
fi
# Guests may boot in parallel (tests/run -j): one builds, the others wait.
exec 9>"$BLKFAST_CACHE/initramfs-base-$flavour.lock"
flock 9
if [ -s "$out" ]; then
	echo "$out"
	exit 0
fi

stage=$(mktemp -d "$BLKFAST_CACHE/stage.XXXXXX")
trap 'rm -rf "$stage"' EXIT

# Module dependency data for the unpacked image (the package ships none).
if [ ! -s "$kroot/lib/modules/$kver/modules.dep" ]; then
	depmod -b "$kroot" "$kver"
fi

mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,lib,lib64,proc,sys,dev,tmp,run,mnt}
for p in "${programs[@]}"; do
	cp -L "$p" "$stage$p"
	{ ldd "$p" 2>/dev/null || true; } | awk '/=> \//{print $3} /^\t\/lib/{print $1}' |
	while read -r lib; do
		mkdir -p "$stage$(dirname "$lib")"
		cp -Ln "$lib" "$stage$lib"
	done
done
# fio reaches ICU through libxml2 (its NBD engine's libnbd) and never
# converts a character, but libicudata's 31 MB of locale data are a third
# of the archive, and of the time each boot spends unpacking it (13 s
# under the debug kernel's KASAN): the guest gets a stub with its soname
# and its one symbol instead.
for icu in "$stage"/lib/*/libicudata.so.*; do
	[ -f "$icu" ] || continue
	sym=$(objdump -T "$icu" | awk '$NF ~ /^icudt[0-9]+_dat$/ { print $NF }')
	[ -n "$sym" ] || { echo "initramfs-base.sh: no icudt symbol in $icu" >&2; exit 1; }
	echo "const char ${sym}[16] __attribute__((aligned(16)));" >"$stage/icu.c"
	gcc -shared -fPIC -Wl,-soname,"$(basename "$icu")" -o "$icu" \
		"$stage/icu.c"
	rm "$stage/icu.c"
done
for t in modprobe insmod rmmod lsmod modinfo depmod; do
	ln -s /usr/bin/kmod "$stage/sbin/$t"
done
# Every busybox applet that kmod or a program above does not provide (the
# guest's PATH has /bin before /usr/sbin: busybox's mke2fs makes no ext4).
for a in $(/bin/busybox --list); do
	case $a in busybox|modprobe|insmod|rmmod|lsmod|modinfo|depmod) continue ;; esac
	for d in bin sbin usr/bin usr/sbin; do
		[ -e "$stage/$d/$a" ] && continue 2
	done
	ln -s busybox "$stage/bin/$a"
done

# Modules with their hard and soft dependencies, as modprobe resolves them.
for m in "${optional_modules[@]}"; do
	modprobe -d "$kroot" -S "$kver" --show-depends "$m" >/dev/null 2>&1 &&
		modules+=("$m")
done
for m in "${modules[@]}"; do
	modprobe -d "$kroot" -S "$kver" --show-depends "$m" |
	awk '$1 == "insmod" {print $2}'
done | sort -u | while read -r ko; do
	rel=${ko#"$kroot"}
	mkdir -p "$stage$(dirname "$rel")"
	cp "$ko" "$stage$rel"
done
cp "$kroot/lib/modules/$kver"/modules.{order,builtin,builtin.modinfo} \
	"$stage/lib/modules/$kver/"
depmod -b "$stage" "$kver"

(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort |
	cpio --quiet -o -H newc -R 0:0) >"$out.tmp"
mv "$out.tmp" "$out"
# Older archives of this flavour are stale now.
find "$BLKFAST_CACHE" -maxdepth 1 -name "initramfs-base-$flavour-*.cpio" \
	! -name "$(basename "$out")" -delete
echo "$out"
