#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (once) and cache a minimal Debian 12 root file system that boots
# with systemd as init: the "real system" the system tests run in, as
# opposed to the busybox initramfs of scripts/vm.sh.  It carries Debian's
# kernel and headers for the ABI in scripts/config.sh, dkms and the kernel
# source package (so that the packaging can be exercised as a user would),
# initramfs-tools, lvm2, fio, sysstat and jq.
#
#   scripts/debian-image.sh [OUTDIR]
#
# Prints the cached root directory's path on stdout (progress goes to
# stderr).  The cache is read-only by convention: with OUTDIR (which must
# not exist, or be empty), the root is also copied there, writable, and
# OUTDIR is printed instead.  scripts/debian-boot.sh turns such a copy into
# a disk image and boots it.
#
# The cache, $BLKFAST_CACHE/debian-system-<hash>, is keyed on this script,
# the package list with the versions it resolves to and the host's apt
# sources: it is rebuilt only when one of them changes, and other
# debian-system-* trees are then removed.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/config.sh
. "$here/config.sh"

me=debian-image.sh
say() { echo "$me: $*" >&2; }
die() { say "$*"; exit 1; }

[ $# -le 1 ] || { echo "usage: scripts/$me [OUTDIR]" >&2; exit 2; }
outdir=${1:-}
[ "$(id -u)" -eq 0 ] || die "must run as root (mmdebstrap --mode=root, chroot)"
command -v mmdebstrap >/dev/null || die "mmdebstrap is not installed"

# The image boots the amd64 flavour: scripts/debian-boot.sh boots the
# cached vmlinux of that flavour, whose modules must be the image's.
flavour=amd64
kver=$(guest_kver "$flavour")

# Kernel, headers and source from one upload: dkms builds against the
# headers, the kernel booted must match them, and a test that compares
# the source with the headers needs both from the same version.  The
# candidate is what the host's apt would install, from the same sources
# the image is built from.
kpkg_version=$(apt-cache policy "linux-headers-$kver" 2>/dev/null |
	sed -n 's/^ *Candidate: //p')
case $kpkg_version in
'' | '(none)') die "apt knows no linux-headers-$kver; run apt-get update" ;;
esac

# apt and its essential set (--variant=apt) plus what a booting systemd
# system needs.  No dbus: systemctl, systemd-analyze and journalctl reach
# systemd without it, and the boot still ends "running"; only logind
# (login sessions) and the *ctl tools that talk D-Bus (hostnamectl,
# loginctl) go with it.  passwd: to clear root's password.  zstd:
# initramfs-tools' default compressor.
packages=(systemd systemd-sysv udev passwd
	  kmod initramfs-tools zstd procps util-linux e2fsprogs
	  lvm2 fio sysstat jq dkms
	  "linux-image-$kver=$kpkg_version"
	  "linux-headers-$kver=$kpkg_version"
	  "linux-source-6.1=$kpkg_version")

# Exactly the host's apt sources: apt reads sources.list and those files
# in sources.list.d whose names end in .list or .sources (others, like
# *.disabled, it ignores); mmdebstrap takes such files as mirror arguments
# and copies them into the image under the same names.
sources=()
[ ! -s /etc/apt/sources.list ] || sources+=(/etc/apt/sources.list)
for f in /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
	[ -s "$f" ] && sources+=("$f")
done
[ ${#sources[@]} -gt 0 ] || die "the host has no apt sources"
# And the host's freshness checks: a host pinned to a snapshot of the
# archive turns them off, or apt rejects the snapshot's expired Release.
aptopts=()
while read -r opt; do
	aptopts+=(--aptopt="$opt")
done < <(apt-config dump | grep -E '^Acquire::Check-(Valid-Until|Date) ' || true)

key=$( {
	cat "$0"
	printf '%s\n' "${packages[@]}" "${aptopts[@]}"
	cat "${sources[@]}"
} | sha256sum | cut -c1-16)
root=$BLKFAST_CACHE/debian-system-$key

# copy_out: hand the caller the cached root, or a writable copy of it.
copy_out() {
	if [ -z "$outdir" ]; then
		echo "$root"
		return
	fi
	if [ -e "$outdir" ] && [ -n "$(ls -A "$outdir")" ]; then
		die "$outdir exists and is not empty"
	fi
	mkdir -p "$outdir"
	# -a keeps owners, modes, hard links and extended attributes (file
	# capabilities) exactly as dpkg left them.
	cp -a "$root/." "$outdir/"
	echo "$outdir"
}

# has_mounts DIR: whether anything is mounted at or below DIR.  A build
# killed half way may leave mmdebstrap's /proc, /sys and /dev mounts in
# its tree, and a recursive rm through a /dev bind mount would delete the
# host's device nodes.
has_mounts() {
	local d
	d=$(realpath "$1")
	awk -v d="$d" '$5 == d || index($5, d "/") == 1 { found = 1 }
		END { exit !found }' /proc/self/mountinfo
}

# remove_tree DIR: remove a tree, refusing if something is mounted in it
# (--one-file-system on top, in case mountinfo's escaping hid a path).
remove_tree() {
	if has_mounts "$1"; then
		say "not removing $1: something is mounted below it"
		return 0
	fi
	rm -rf --one-file-system "$1"
}

# The tree is renamed into place only once complete.
if [ -d "$root" ]; then
	copy_out
	exit 0
fi

# Tests may run in parallel: one builds, the others wait for it.
exec 9>"$BLKFAST_CACHE/debian-system.lock"
flock 9
if [ -d "$root" ]; then
	copy_out
	exit 0
fi

# Other versions of the tree, and what an interrupted build left: with the
# lock held nobody else is building or about to rename one into place.
for d in "$BLKFAST_CACHE"/debian-system-*; do
	[ -e "$d" ] || continue
	say "removing stale $d"
	remove_tree "$d"
done

tmp=$(mktemp -d "$BLKFAST_CACHE/debian-system-$key.tmp.XXXXXX")
# shellcheck disable=SC2317 # run by the EXIT trap (shellcheck#2542)
cleanup() {
	[ -z "${tmp:-}" ] || remove_tree "$tmp"
}
trap cleanup EXIT

say "building a Debian 12 root in $tmp (a few minutes)"
start=$SECONDS
# Before the packages beyond the essential set are unpacked:
# initramfs-tools builds the initrd when the kernel is installed, and must
# see its configuration then.
#   MODULES=list: only the modules named in /etc/initramfs-tools/modules
#     (below: what mounting the root needs) and those hooks add.  Debian's
#     default, "most", copies some 760 modules: update-initramfs took
#     77 s on the host (and would take many minutes in the emulated
#     guest), the initrd was 32 MB instead of 9, and the boot to the root
#     file system 5 s longer.  "dep" would probe the build host's
#     hardware.  A test that wants a module in the initrd lists it there,
#     as an administrator would.
#   FSTYPE=ext4: the root's type, which the fsck hook would otherwise
#     probe from a /dev/vda that the build host lacks, leaving fsck out
#     (but not out of an initrd rebuilt in the guest).
#   RESUME=none: there is no swap to resume from; without it the initrd
#     looks for a resume device at boot.
# shellcheck disable=SC2016 # expanded by mmdebstrap's shell
conf_hook='mkdir -p "$1/etc/initramfs-tools/conf.d" &&
	printf "MODULES=list\nFSTYPE=ext4\nRESUME=none\n" \
		>"$1/etc/initramfs-tools/conf.d/blkfast"'
# Root without a password, for a look at the guest by hand.
# shellcheck disable=SC2016 # expanded by mmdebstrap's shell
passwd_hook='chroot "$1" passwd --delete root'
# --variant=apt: the essential set and apt, nothing of priority
# "required" or "important" that nobody asked for; recommends stay out
# (mmdebstrap's default), and so do apt's caches and lists (its cleanup).
mmdebstrap --mode=root --variant=apt --format=directory \
	--include="$(IFS=,; echo "${packages[*]}")" \
	"${aptopts[@]}" \
	--essential-hook="$conf_hook" \
	--customize-hook="$passwd_hook" \
	bookworm "$tmp" "${sources[@]}" >&2

# The system's identity and the settings the tests rely on.  Done here,
# not in mmdebstrap's customize hooks: its cleanup, which runs after
# them, empties /etc/machine-id.
echo blkfast-sys >"$tmp/etc/hostname"
printf '127.0.0.1\tlocalhost\n127.0.1.1\tblkfast-sys\n' >"$tmp/etc/hosts"
# scripts/debian-boot.sh gives the root file system to the guest as its
# first virtio disk and says root=/dev/vda rw.
printf '/dev/vda\t/\text4\tdefaults\t0\t1\n' >"$tmp/etc/fstab"
# A machine ID from the start: with an empty one systemd treats each boot
# as a first boot until it manages to commit one (and runs
# systemd-firstboot, which may prompt on the console).  A fixed ID also
# keeps the persistent journal in one directory across the boots of a
# test.  Every copy of the cache shares it; nothing here needs it unique.
tr -d - </proc/sys/kernel/random/uuid >"$tmp/etc/machine-id"
# systemd keeps its journal on disk when this directory exists (Storage=
# auto): a test can read what an earlier boot logged.
mkdir -p "$tmp/var/log/journal"

# Units that cost time under emulation or that act on their own in the
# middle of a test, none of which a test needs; masked (linked to
# /dev/null) rather than removed, so that a test may unmask one.
#   apt-daily*: download package lists and upgrade at random times.
#   e2scrub*, fstrim: check and discard file systems (the test's) on a
#     timer; e2scrub_reap also scans for LVM snapshots at every boot.
#   sysstat-collect/summary: sadc every 10 minutes; a test runs iostat.
#   dpkg-db-backup: nightly housekeeping.
#   getty@tty1 and serial-getty@ttyS0: there is no display, and a login
#     prompt on the serial console only clutters the log the test reads.
#   systemd-firstboot: would prompt on the console when it thinks the
#     system unconfigured.
for unit in apt-daily.timer apt-daily-upgrade.timer apt-daily.service \
	    apt-daily-upgrade.service e2scrub_all.timer e2scrub_all.service \
	    e2scrub_reap.service fstrim.timer fstrim.service \
	    sysstat-collect.timer sysstat-summary.timer \
	    dpkg-db-backup.timer \
	    getty@tty1.service serial-getty@ttyS0.service \
	    systemd-firstboot.service; do
	ln -sfn /dev/null "$tmp/etc/systemd/system/$unit"
done

# The initrd again, now with the modules that mount the root: the PCI
# transport and disk of virtio (scripts/debian-boot.sh's root disk) and
# ext4, which the initrd loads before it looks for the root.  MODULES=list
# leaves the others to the booted system's udev.
cat >>"$tmp/etc/initramfs-tools/modules" <<'MODULES'
# blkfast: the root file system (scripts/debian-image.sh)
virtio_pci
virtio_blk
ext4
MODULES
"$here/debian-boot.sh" chroot "$tmp" update-initramfs -u -k "$kver" >&2
[ -s "$tmp/boot/initrd.img-$kver" ] || die "no initrd built for $kver"
[ -d "$tmp/lib/modules/$kver/kernel" ] || die "no modules for $kver"

mv -T "$tmp" "$root"
tmp=
say "built $root in $((SECONDS - start)) s, $(du -sh "$root" | cut -f1)"
copy_out
