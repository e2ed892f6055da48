#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# host-alone: boots of a whole Debian system under emulation, with time limits; a build beside it once outlasted its disks' wait (now systemd's 90 s, but 30 s in the missing-disk boot)
# The proof that blkfast runs as a Debian 12 system runs it: a minimal
# Debian 12 (systemd, udev, Debian's 6.1 kernel; scripts/debian-image.sh,
# cached) gets the packages built from this checkout (make deb; lintian
# on them and on the source package) installed
# with apt in a chroot, as a user would, DKMS building the modules; then
# the configuration an admin writes: nvme.poll_queues in modprobe.d, a
# pdmtab entry for ext4 striped over two NVMe disks, an fstab UUID= line
# for it, the example rule selecting split-deadline for a third disk.
# Three boots under QEMU with systemd as init, each checked from inside
# (tests/system/guest-check.sh says what): boot 1, boot 2 after a clean
# shutdown, boot 3 with one lower disk gone, ending with apt purge.
# Slow (minutes): the image's first build downloads ~250 packages.
. "$(dirname "$0")/lib/lib.sh"
# shellcheck source=scripts/config.sh
. scripts/config.sh
[ "$(id -u)" = 0 ] || fail "needs root (chroot, apt)"
command -v mmdebstrap >/dev/null || fail "mmdebstrap is missing: scripts/deps.sh"

t0=$SECONDS
tmp=$(mktemp -d "${TMPDIR:-/tmp}/blkfast-system.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
uuid=5e1ec7ed-b1f0-4a57-9d00-000000000031
by=/dev/disk/by-id/nvme-QEMU_NVMe_Ctrl_blkfastsys

echo "== the packages (make deb) and the image"
make -s --no-print-directory deb >"$tmp/deb.log" 2>&1 ||
	{ tail -30 "$tmp/deb.log"; fail "make deb"; }
lintian --fail-on error,warning build/deb/blkfast_*_amd64.changes \
	>"$tmp/lintian.log" 2>&1 || { cat "$tmp/lintian.log"; fail "lintian"; }
echo "ok: make deb; lintian: no errors, no warnings"
# The source package too, as Debian's archive would lint it: from a copy
# of the tree without what .gitignore names (build outputs).
mkdir "$tmp/src"
tar -C . --exclude=./.git --exclude=./build -cf - . | tar -C "$tmp/src" -xf -
{ git -C "$tmp/src" init -q && git -C "$tmp/src" clean -fdXq &&
  rm -rf "$tmp/src/.git" && (cd "$tmp" && dpkg-source -b src); } \
	>"$tmp/source.log" 2>&1 || { cat "$tmp/source.log"; fail "dpkg-source -b"; }
lintian --fail-on error,warning "$tmp"/blkfast_*.dsc >"$tmp/lintian-src.log" 2>&1 ||
	{ cat "$tmp/lintian-src.log"; fail "lintian on the source package"; }
rm -rf "$tmp/src" "$tmp"/blkfast_*
echo "ok: the source package (dpkg-source -b); lintian: no errors, no warnings"
base=$(scripts/debian-image.sh) || fail "scripts/debian-image.sh"
root=$tmp/root
cp -a "$base" "$root"
echo "image: $base ($((SECONDS - t0)) s so far)"

echo "== apt install ./blkfast-dkms ./pdmsetup (in a chroot)"
cp build/deb/blkfast-dkms_*_all.deb build/deb/pdmsetup_*_amd64.deb "$root/tmp/"
chr() { scripts/debian-boot.sh chroot "$root" "$@"; }
if ! chr sh -c 'DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
	/tmp/blkfast-dkms_*_all.deb /tmp/pdmsetup_*_amd64.deb' >"$tmp/apt.log" 2>&1; then
	cat "$tmp/apt.log"
	fail "apt-get install of the packages"
fi
rm -f "$root"/tmp/*.deb
grep -E 'Building module|Installing to|split-deadline' "$tmp/apt.log" | head -n 8
for m in pdm split-deadline; do
	[ -f "$root/lib/modules/$KABI-amd64/updates/dkms/$m.ko" ] ||
		{ cat "$tmp/apt.log"; fail "DKMS did not install $m.ko"; }
done
echo "ok: DKMS built and installed pdm.ko and split-deadline.ko"

echo "== the admin's configuration"
echo "options nvme poll_queues=2" >"$root/etc/modprobe.d/blkfast-nvme.conf"
mkdir -p "$root/etc/pdm" "$root/srv/data"
# 64 MiB striped over two disks in 64 KiB chunks.
echo "0 131072 striped 2 128 ${by}0 0 ${by}1 0" >"$root/etc/pdm/data.table"
# The disks' wait: systemd's default, 90 s, which a slow or busy host
# needs; boot 3, whose disk is missing, shortens it (guest-check.sh).
printf 'data /etc/pdm/data.table uuid=blkfast-data\n' >"$root/etc/pdmtab"
echo "UUID=$uuid /srv/data ext4 defaults 0 2" >>"$root/etc/fstab"
# Tunables other than the defaults (500, 16; 400 ms, a whole number of
# jiffies at HZ 100, 250 and 1000): a rule that never applied
# must not pass.
sed 's/CHANGE-ME/blkfastsys2/; s/read_expire}="500"/read_expire}="400"/
     s/fifo_batch}="16"/fifo_batch}="24"/' \
	"$root/usr/share/doc/pdmsetup/examples/65-split-deadline.rules" \
	>"$root/etc/udev/rules.d/65-split-deadline.rules"
# And for the root disk, with no module added to the initramfs: the rule
# fires again when udev replays the boot's events after switch_root, and
# the module loads from the root file system (guest-check.sh checks both).
printf '%s\n' 'ACTION=="add|change", KERNEL=="vda", ATTR{queue/scheduler}="split-deadline"' \
	>"$root/etc/udev/rules.d/66-blkfast-systest-root.rules"
install -D -m 755 tests/system/guest-check.sh \
	"$root/usr/local/lib/blkfast-systest/check"
cat >"$root/etc/systemd/system/blkfast-systest.service" <<'UNIT'
[Unit]
Description=blkfast system test
After=multi-user.target
[Service]
Type=exec
ExecStart=/usr/local/lib/blkfast-systest/check
ExecStopPost=/bin/systemctl --no-block poweroff
StandardOutput=journal+console
StandardError=journal+console
[Install]
WantedBy=multi-user.target
UNIT
ln -s /etc/systemd/system/blkfast-systest.service \
	"$root/etc/systemd/system/multi-user.target.wants/blkfast-systest.service"
chr update-initramfs -u -k "$KABI-amd64" >"$tmp/initramfs.log" 2>&1 ||
	{ cat "$tmp/initramfs.log"; fail "update-initramfs"; }

# ext4 on the striped device, made here: a flat file system split into the
# two disks' chunks as pdm's striped target maps them.
disks=$tmp/disks
mkdir -p "$disks"
mkfs.ext4 -q -F -b 4096 -U "$uuid" -L blkfast-data "$tmp/fs.img" 64M
for i in 0 1 2; do truncate -s 64M "$disks/blkfastsys$i.img"; done
for c in $(seq 0 1023); do
	dd if="$tmp/fs.img" of="$disks/blkfastsys$((c % 2)).img" bs=64K \
		skip="$c" seek=$((c / 2)) count=1 conv=notrunc status=none
done
rm -f "$tmp/fs.img"
scripts/debian-boot.sh mkimage "$root" "$tmp/root.img" >/dev/null ||
	fail "mkimage"
rm -rf "$root"
echo "ready after $((SECONDS - t0)) s"

# boot PHASE SERIALS: boot the image; the guest's verdict from its console.
boot() {
	local phase=$1 serials=$2 log=$tmp/boot$1.log s=$SECONDS
	echo "== boot $phase: NVMe disks $serials"
	scripts/debian-boot.sh boot --no-echo --disk-dir "$disks" \
		--nvme-serials "$serials" --append "systest.phase=$phase" \
		--log "$log" --timeout 300 "$tmp/root.img" ||
		echo "(QEMU exited with $?)"
	grep -a 'SYSTEST' "$log" | sed 's/^.*SYSTEST/SYSTEST/'
	echo "boot $phase took $((SECONDS - s)) s"
	grep -aq 'SYSTEST-DONE rc=0' "$log" || {
		grep -aE 'FAIL|Failed|failed|emergency|Timed out' "$log" | head -n 30
		fail "boot $phase"
	}
	! grep -aq 'SYSTEST: FAIL' "$log" || fail "boot $phase"
	if grep -aE "$BLKFAST_SPLAT_RE" "$log" >"$tmp/splats"; then
		head -n 12 "$tmp/splats"
		fail "boot $phase: the kernel logged a splat"
	fi
}
boot 1 "blkfastsys0 blkfastsys1 blkfastsys2"
boot 2 "blkfastsys0 blkfastsys1 blkfastsys2"
boot 3 "blkfastsys0 blkfastsys2"
echo "ok: three boots of a Debian 12 system in $((SECONDS - t0)) s"
