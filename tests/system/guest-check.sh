#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The checks inside the booted Debian 12 system (tests/host/debian-system.sh
# installs this as /usr/local/lib/blkfast-systest/check and runs it from a
# unit after multi-user.target).  What a Debian admin would look at:
#   boot 1, 2: the fstab UUID= mount of ext4 on pdm striped over two NVMe
#     disks is up before local-fs.target, /dev/pdm/data and the by-id and
#     by-uuid links exist, polling is on (nvme.poll_queues from
#     modprobe.d), fio io_uring polled verify passes on a file in it and
#     iostat counts that I/O, the third disk runs split-deadline with the
#     example rule's tunables, the root disk too (a rule, no initramfs
#     change); boot 1 also: a linear table at sector 0
#     keeps the by-uuid link that its disk claims too, after a change
#     event on the disk, and pdmsetup rename and remove return with
#     udev's links already moved or gone; boot 2 also: the previous shutdown removed
#     the device cleanly; systemctl stop removes it, start brings it back.
#   boot 3 (the second lower disk left out): pdm@data fails with pdmsetup's
#     reason, the boot reaches multi-user; apt purge leaves nothing behind.
# Each result is a "SYSTEST: ok|FAIL: ..." line on the console, then
# "SYSTEST-DONE rc=N"; the host reads them.
# ok and bad always succeed: "test && ok || bad" is if-then-else here.
# shellcheck disable=SC2015
set -u
phase=$(sed -n 's/.*systest\.phase=\([0-9]\).*/\1/p' /proc/cmdline)
uuid=5e1ec7ed-b1f0-4a57-9d00-000000000031
mnt=/srv/data
rc=0
say() { echo "SYSTEST: $*"; }
ok() { say "ok: $*"; }
bad() { say "FAIL: $*"; rc=1; }
check() { # check WHAT COMMAND...: ok if COMMAND succeeds
	local what=$1
	shift
	if "$@"; then ok "$what"; else bad "$what"; fi
}
mono() { systemctl show -P ActiveEnterTimestampMonotonic "$1"; }

state=$(systemctl is-system-running --wait)
say "boot $phase: system $state; $(systemd-analyze 2>/dev/null | head -n 1)"

if [ "$phase" = 3 ]; then
	check "multi-user.target reached" systemctl -q is-active multi-user.target
	check "pdm@data failed" systemctl -q is-failed pdm@data.service
	j=$(journalctl -b -u pdm@data.service -o cat)
	printf '%s\n' "$j" | sed 's/^/SYSTEST:   journal: /'
	# pdmsetup's own reason: the missing disk's path and the error.
	case $j in
	*"pdmsetup: create data"*"blkfastsys1: no such device"*)
		ok "the journal has pdmsetup's reason" ;;
	*) bad "no 'pdmsetup: create data: ... blkfastsys1: no such device' in the journal" ;;
	esac
	check "no pdm device" test ! -e /sys/block/pdm0
	DEBIAN_FRONTEND=noninteractive apt-get purge -y -q blkfast-dkms pdmsetup \
		>/tmp/purge.log 2>&1 || { cat /tmp/purge.log; bad "apt-get purge"; }
	# What the packages brought (the admin's /etc/pdmtab is the admin's).
	left=$(find /lib/modules /usr/lib/modules /usr/src /var/lib/dkms \
		/lib/udev /usr/lib/udev /lib/systemd /usr/lib/systemd /sbin \
		/usr/sbin /usr/share \( -name 'pdm.ko*' -o -name 'split-deadline.ko*' \
		-o -name 'blkfast*' -o -name 'pdm-generator' -o -name '60-pdm.rules' \
		-o -name 'pdmsetup*' -o -name 'pdmtab.5*' \) 2>/dev/null)
	if [ -z "$left" ]; then
		ok "apt purge left no module, source, rule, generator or tool"
	else
		bad "apt purge left: $(echo "$left" | tr '\n' ' ')"
	fi
	echo "SYSTEST-DONE rc=$rc"
	exit $rc
fi

if [ "$state" = running ]; then
	ok "no failed unit"
else
	bad "system is $state: $(systemctl --failed --plain --no-legend | tr '\n' ';')"
fi

# The mount, by UUID, before local-fs.target.
# fstab's UUID= as systemd-fstab-generator wrote it (the live What= shows
# the node it resolved to).
unit=$(systemd-escape --path --suffix=mount "$mnt")
what=$(systemctl cat "$unit" | sed -n 's/^What=//p')
[ "$what" = "/dev/disk/by-uuid/$uuid" ] && systemctl -q is-active "$unit" &&
	ok "$mnt mounted from $what" || bad "$unit: What=$what, $(systemctl is-active "$unit")"
m=$(mono "$unit") l=$(mono local-fs.target)
if [ "${m:-0}" -gt 0 ] && [ "$m" -le "$l" ]; then
	ok "$unit active before local-fs.target (${m} <= ${l} us)"
else
	bad "$unit active at ${m:-never}, local-fs.target at $l"
fi
src=$(findmnt -n -o SOURCE "$mnt")
[ "$src" = /dev/pdm0 ] && ok "$mnt is on $src" || bad "$mnt is on '$src'"

for l in /dev/pdm/data /dev/disk/by-id/pdm-name-data \
	 /dev/disk/by-id/pdm-uuid-blkfast-data "/dev/disk/by-uuid/$uuid" \
	 /dev/disk/by-label/blkfast-data; do
	[ "$(readlink -f "$l")" = /dev/pdm0 ] && ok "$l -> /dev/pdm0" ||
		bad "$l: $(readlink -f "$l" 2>&1)"
done

# The table as pdmtab wants it: the file the boot read, byte for byte
# (its legs are the disks' first by-id links in name order).
if [ "$(pdmsetup table --paths data)" = "$(cat /etc/pdm/data.table)" ]; then
	ok "pdmsetup table --paths data = /etc/pdm/data.table"
else
	bad "pdmsetup table --paths data: '$(pdmsetup table --paths data 2>&1)', not '$(cat /etc/pdm/data.table)'"
fi

poll=$(pdmsetup info data | sed -n 's/^Polling: *//p')
[ "$poll" = on ] && ok "polling on" || bad "polling: '$poll'"
grep -q . /sys/module/nvme/parameters/poll_queues &&
	say "nvme poll_queues=$(cat /sys/module/nvme/parameters/poll_queues)"

# fio, polled, verified, on a file in the file system; pdm counts the
# polled bios, the block layer's statistics (iostat) the I/O.
p0=$(cat /sys/block/pdm0/pdm/polled_bios)
read -r _ _ _ _ w0 _ s0 _ </sys/block/pdm0/stat
if fio --name=verify --filename="$mnt/fio-$phase.dat" --size=8M \
	--ioengine=io_uring --hipri=1 --direct=1 --rw=randwrite --bs=4k \
	--iodepth=8 --verify=crc32c --do_verify=1 --output=/tmp/fio.out; then
	errs=$(sed -n 's/.*err= *\([0-9]*\).*/\1/p' /tmp/fio.out | head -n 1)
	[ "${errs:-x}" = 0 ] && ok "fio io_uring polled write+verify, 8 MiB" ||
		bad "fio: err=$errs"
else
	cat /tmp/fio.out
	bad "fio failed"
fi
p1=$(cat /sys/block/pdm0/pdm/polled_bios)
read -r _ _ _ _ w1 _ s1 _ </sys/block/pdm0/stat
# The verify phase's 2048 reads at least: ext4 takes HIPRI off the writes
# into newly allocated extents (iomap completes them in a workqueue).
[ $((p1 - p0)) -ge 2048 ] && ok "pdm polled $((p1 - p0)) bios" ||
	bad "pdm polled only $((p1 - p0)) bios"
# 8 MiB in 2048 writes of 4 KiB, plus ext4's own.
[ $((w1 - w0)) -ge 2048 ] && [ $((s1 - s0)) -ge 16384 ] &&
	ok "the disk's statistics: $((w1 - w0)) writes, $((s1 - s0)) sectors" ||
	bad "the disk's statistics: $((w1 - w0)) writes, $((s1 - s0)) sectors"
kw=$(iostat -d -k pdm0 | awk '$1 == "pdm0" { print int($7) }')
[ "${kw:-0}" -ge 8192 ] && ok "iostat: pdm0 kB_wrtn $kw" || bad "iostat: pdm0 kB_wrtn '${kw:-}'"

# The third disk, by serial: NVMe controllers probe in parallel, so its
# kernel name may change from boot to boot.
n=$(basename "$(readlink -f /dev/disk/by-id/nvme-QEMU_NVMe_Ctrl_blkfastsys2)")
d=/sys/block/$n/queue
grep -q '\[split-deadline\]' "$d/scheduler" && ok "$n: $(cat "$d/scheduler")" ||
	bad "$n: scheduler $(cat "$d/scheduler" 2>&1)"
[ "$(cat "$d/iosched/read_expire" 2>/dev/null)" = 400 ] &&
	ok "$n: read_expire 400 from the rule" ||
	bad "$n: read_expire $(cat "$d/iosched/read_expire" 2>&1)"
[ "$(cat "$d/iosched/fifo_batch" 2>/dev/null)" = 24 ] &&
	ok "$n: fifo_batch 24 from the rule" ||
	bad "$n: fifo_batch $(cat "$d/iosched/fifo_batch" 2>&1)"
# The root disk too, though the initramfs holds no split-deadline.ko
# (the docs once said it must).
if [ "$phase" != 3 ]; then
	lsinitramfs "/boot/initrd.img-$(uname -r)" |
		grep 'split-deadline\.ko' &&
		bad "the initramfs holds split-deadline.ko" ||
		ok "the initramfs holds no split-deadline.ko"
	grep -q '\[split-deadline\]' /sys/block/vda/queue/scheduler &&
		ok "vda (/): $(cat /sys/block/vda/queue/scheduler)" ||
		bad "vda (/): scheduler $(cat /sys/block/vda/queue/scheduler)"
fi

if [ "$phase" = 1 ]; then
	# A change event while suspended: blkid would wait for the resume,
	# so the rules keep the last probe's results instead.
	pdmsetup suspend data
	udevadm trigger --action=change /sys/block/pdm0
	if udevadm settle --timeout=10; then
		ok "suspended: udev's change event did not wait for I/O"
	else
		bad "suspended: udev is stuck on the device"
	fi
	[ "$(readlink -f "/dev/disk/by-uuid/$uuid")" = /dev/pdm0 ] &&
		ok "suspended: the by-uuid link stays" ||
		bad "suspended: the by-uuid link went"
	pdmsetup resume data
	udevadm settle --timeout=30
	[ "$(readlink -f "/dev/disk/by-uuid/$uuid")" = /dev/pdm0 ] &&
		ok "resumed: the by-uuid link is there" ||
		bad "resumed: no by-uuid link"

	# LVM on pdm: refused until lvm.conf names pdm's device type, as
	# Documentation/pdm.rst says to; then a PV, a VG and an LV on it.
	lv=/dev/disk/by-id/nvme-QEMU_NVMe_Ctrl_blkfastsys2
	pdmsetup create lvm --table "0 65536 linear $lv 65536" >/tmp/node
	[ "$(cat /tmp/node)" = /dev/pdm/lvm ] &&
		ok "pdmsetup create printed /dev/pdm/lvm" ||
		bad "pdmsetup create printed '$(cat /tmp/node)'"
	pvcreate -q /dev/pdm/lvm >/tmp/lvm.out 2>&1 &&
		bad "pvcreate took pdm without the types line" ||
		ok "without the types line: $(head -n 1 /tmp/lvm.out)"
	sed -i 's|^devices {|devices {\n\ttypes = [ "pdm", 16 ]|' /etc/lvm/lvm.conf
	if pvcreate -q /dev/pdm/lvm && vgcreate -q vgpdm /dev/pdm/lvm &&
	   lvcreate -q -y -L 8M -n lv vgpdm && udevadm settle &&
	   [ -b /dev/vgpdm/lv ] && mkfs.ext4 -q /dev/vgpdm/lv; then
		ok "pvcreate, vgcreate, lvcreate on /dev/pdm/lvm"
	else
		bad "LVM on pdm"
	fi
	vgremove -q -f vgpdm && pvremove -q /dev/pdm/lvm && udevadm settle &&
		pdmsetup remove --retry lvm && ok "LVM and pdm device removed" ||
		bad "LVM teardown"

	# rename, live and open: pdmsetup returns once udev has moved
	# /dev/pdm/rn1 to /dev/pdm/rn2 (no settle here), and remove once
	# the link is gone.
	pdmsetup create rn1 --table "0 32768 linear $lv 65536" \
		>/dev/null 2>/tmp/rn.err || bad "create rn1: $(cat /tmp/rn.err)"
	rdev=$(stat -L -c %t:%T /dev/pdm/rn1)
	exec 7</dev/pdm/rn1
	# Builtin tests first: a fork would give udev time to catch up.
	if pdmsetup rename rn1 rn2 2>/tmp/rn.err && [ ! -L /dev/pdm/rn1 ] &&
	   [ -b /dev/pdm/rn2 ] &&
	   [ "$(stat -L -c %t:%T /dev/pdm/rn2 2>&1)" = "$rdev" ]; then
		ok "rename rn1 rn2, open: /dev/pdm/rn2 there and rn1 gone on return"
	else
		bad "rename rn1 rn2: $(cat /tmp/rn.err); /dev/pdm holds:" \
			/dev/pdm/*
	fi
	exec 7<&-
	udevadm settle --timeout=30
	[ -L /dev/disk/by-id/pdm-name-rn2 ] &&
	   [ ! -L /dev/disk/by-id/pdm-name-rn1 ] &&
		ok "rename: by-id/pdm-name-rn2, no pdm-name-rn1" ||
		bad "rename: by-id:" /dev/disk/by-id/pdm-name-*
	if pdmsetup remove rn2 2>/tmp/rn.err && [ ! -L /dev/pdm/rn2 ]; then
		ok "remove rn2: /dev/pdm/rn2 gone on return"
	else
		bad "remove rn2: $(cat /tmp/rn.err); /dev/pdm holds:" /dev/pdm/*
	fi

	# A linear table at sector 0: the lower disk shows the same file
	# system, and both claim its by-uuid link.  A change event on the
	# disk must not take the link from the pdm device.
	pdmsetup create at0 --table "0 65536 linear $lv 0" >/dev/null &&
		mkfs.ext4 -q /dev/pdm/at0 && udevadm settle ||
		bad "a file system on a pdm device at sector 0"
	u0=$(blkid -s UUID -o value /dev/pdm/at0)
	disk=$(readlink -f "$lv")
	udevadm trigger --action=change --settle "$disk"
	if [ -n "$u0" ] &&
	   [ "$(blkid -p -s UUID -o value "$disk")" = "$u0" ] &&
	   [ "$(readlink -f "/dev/disk/by-uuid/$u0")" = "$(readlink -f /dev/pdm/at0)" ]; then
		ok "by-uuid of a table at sector 0: the pdm device's, after a change event on the disk"
	else
		bad "by-uuid/$u0 -> $(readlink -f "/dev/disk/by-uuid/$u0" 2>&1) after a change event on the disk, not /dev/pdm/at0"
	fi
	wipefs -q -a /dev/pdm/at0 && pdmsetup remove --retry at0 &&
		udevadm trigger --action=change --settle "$disk" ||
		bad "removing at0"
fi

if [ "$phase" = 2 ]; then
	# The shutdown of boot 1: the mount went, then the device, cleanly.
	prev=$(journalctl -b -1 -o cat -g 'srv-data|pdm@data')
	printf '%s\n' "$prev" | sed 's/^/SYSTEST:   boot 1: /'
	case $prev in
	*"Unmounted srv-data.mount"*"Stopping pdm@data.service"*"Stopped pdm@data.service"*)
		ok "boot 1's shutdown: unmounted, then pdm@data stopped" ;;
	*) bad "boot 1's shutdown did not unmount, then stop pdm@data" ;;
	esac
	case $prev in
	*status=*|*"Failed"*) bad "boot 1's removal of data failed" ;;
	*) ok "boot 1's shutdown removed data cleanly" ;;
	esac
	check "systemctl stop: mount" systemctl stop "$unit"
	check "systemctl stop: pdm@data" systemctl stop pdm@data.service
	check "the device is gone" test ! -e /sys/block/pdm0
	pdmsetup ls | grep -qv 'No devices' &&
		bad "pdmsetup ls: $(pdmsetup ls)" || ok "pdmsetup ls: none"
	check "systemctl start: pdm@data" systemctl start pdm@data.service
	check "systemctl start: mount" systemctl start "$unit"
	check "mounted again" mountpoint -q "$mnt"
	# For boot 3, whose second disk is missing: an admin marks a data
	# file system that the boot may go without.
	sed -i "s|^UUID=$uuid .*|UUID=$uuid $mnt ext4 nofail,x-systemd.device-timeout=15s 0 2|" \
		/etc/fstab
	# And waits 30 s for the missing disk, not the default 90 (10 s
	# once failed the disk that is there, on a host busy beside it).
	sed -i 's|^data .*|&,device-timeout=30s|' /etc/pdmtab
fi
echo "SYSTEST-DONE rc=$rc"
exit $rc
