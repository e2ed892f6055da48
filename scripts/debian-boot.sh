#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Turn a Debian root tree (a writable copy of scripts/debian-image.sh's)
# into a disk image and boot it under QEMU (TCG), with systemd as init;
# or run a command in such a tree on the host.
#
#   scripts/debian-boot.sh mkimage [--size SIZE] ROOTDIR IMG
#   scripts/debian-boot.sh boot [options] IMG
#   scripts/debian-boot.sh chroot ROOTDIR CMD [ARGS...]
#   scripts/debian-boot.sh [options] [--image IMG] [--keep-image] ROOTDIR
#   scripts/debian-boot.sh [options] --image IMG
#
# mkimage writes ROOTDIR into a new ext4 image with mke2fs -d: no loop
# device or mount is needed, which CI machines may not offer.  boot boots
# an image and can do so again and again: what the guest wrote is there
# at the next boot.  The last form does both (the image is deleted after
# the boot unless --image or --keep-image say where to keep it).  Run
# with -h for the options.
#
# The guest runs until it powers off (QEMU exits on a power-off, and on a
# reboot or a panic too: -no-reboot, panic=-1); the script then exits with
# QEMU's status, or 124 when --timeout killed it.  What ran in the guest
# is judged by the caller from the console log: the guest's driver unit
# prints a marker there.  A driver unit ordered After=multi-user.target
# should be Type=exec or simple, not oneshot: a oneshot start job keeps
# the boot "starting" until it ends, so that `systemctl is-system-running
# --wait` or `systemd-analyze` inside it would wait for itself.  Reaching
# multi-user.target does not mean udev has probed every disk: `udevadm
# settle` before using the NVMe disks (/dev/disk/by-id/
# nvme-QEMU_NVMe_Ctrl_<serial>; nvme0/nvme1 may come in either order).
# The image has no D-Bus: `systemctl poweroff` works but first complains
# that it cannot reach logind; `systemctl start poweroff.target` does not.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/config.sh
. "$here/config.sh"

me=debian-boot.sh
say() { echo "$me: $*" >&2; }
die() { say "$*"; exit 1; }

# The image carries the amd64 flavour's modules (scripts/debian-image.sh).
flavour=amd64
kver=$(guest_kver "$flavour")

usage() {
	cat <<USAGE
usage: scripts/$me mkimage [--size SIZE] ROOTDIR IMG
       scripts/$me boot [options] IMG
       scripts/$me chroot ROOTDIR CMD [ARGS...]
       scripts/$me [options] [--image IMG] [--keep-image] ROOTDIR
       scripts/$me [options] --image IMG
mkimage: write ROOTDIR into a new ext4 image IMG (a sparse file); SIZE
  (e.g. 4G) defaults to the content plus a quarter plus 1 GiB.
boot: boot IMG as the guest's root (virtio-blk, /dev/vda) with Debian's
  $kver kernel and the initrd from IMG's /boot.  Options:
  --smp N            vCPUs (default 2)
  --mem MB           guest memory (default 2048)
  --append ARGS      extra kernel command line arguments (repeatable)
  --verbose          boot without "quiet loglevel=5": every kernel message
                     and systemd's unit status lines on the console
  --nvme N           N emulated NVMe disks, serials blkfastsys0..N-1
  --nvme-serials "S1 S2 ..."
                     the NVMe disks by serial (overrides --nvme's names);
                     each disk file is SERIAL.img (see --disk-dir)
  --nvme-size SIZE   size of a disk file when created (default 1G)
  --nvme-qpairs N    I/O queue pairs of each NVMe disk (default 4)
  --disk-dir DIR     keep the NVMe disk files in DIR: a file there is
                     reused, a missing one created (empty, sparse); by
                     default they are made afresh and deleted after the run
  --log FILE         console log (default IMG.log)
  --prefix STR       prefix of the console lines echoed to stdout
                     (default "guest| "); --no-echo: do not echo them
  --timeout SECS     kill QEMU after SECS seconds and exit 124 (default 600)
  --kernel FILE      boot this kernel (default: the cached vmlinux of
                     scripts/deps.sh, $(guest_kernel_dir "$flavour")/vmlinux)
  --initrd FILE      this initrd (default: IMG's /boot/initrd.img-$kver)
  --qemu ARG         one more QEMU argument (repeatable)
chroot: run CMD inside ROOTDIR on the host, with /proc, /sys, /dev,
  /dev/pts and /run mounted for it (and unmounted after), and services
  kept from starting (policy-rc.d); exits with CMD's status.
The last two forms make an image of ROOTDIR (--size as for mkimage) and
boot it with the boot options; the image lives in a temporary folder and
is deleted after the boot, unless --image IMG (made there and kept) or
--keep-image (kept as ROOTDIR.img); the log defaults to ROOTDIR.log.
With --image IMG and no ROOTDIR, IMG is booted as it is (like boot).
USAGE
}

# to_mib SIZE: a size such as 512M, 4G or 1048576 in MiB, rounded up.
to_mib() {
	local n
	n=$(numfmt --from=iec "$1") || die "bad size '$1'"
	echo $(((n + 1048575) / 1048576))
}

# mkimage ROOTDIR IMG [SIZE]
mkimage() {
	local rootdir=$1 img=$2 size=${3:-} used_mib mib start

	[ -d "$rootdir/etc" ] || die "$rootdir is not a root tree"
	[ ! -e "$img" ] || die "$img exists; not overwriting it"
	# du counts blocks, as ext4 will; the quarter covers ext4's own
	# metadata (inode tables, journal) and the slack is room for what
	# the guest writes: logs, dkms builds, a new initrd.  The file is
	# sparse, so unused room costs the host nothing.
	used_mib=$(du -s -x --block-size=1M "$rootdir" | cut -f1)
	if [ -n "$size" ]; then
		mib=$(to_mib "$size")
	else
		mib=$((used_mib + used_mib / 4 + 1024))
	fi
	[ "$mib" -gt "$used_mib" ] ||
		die "$size is less than the content ($used_mib MiB)"
	start=$(date +%s.%N)
	truncate -s "${mib}M" "$img"
	# -d copies the tree with its owners, modes, hard links, device
	# nodes and extended attributes; -m 1: the guest runs as root, the
	# default 5% reserve would only hide room.
	if ! mke2fs -q -F -t ext4 -L blkfast-sys -m 1 -d "$rootdir" "$img" \
		"${mib}M"; then
		rm -f "$img"
		die "mke2fs failed"
	fi
	say "$img: $mib MiB ext4 of $used_mib MiB content in" \
		"$(printf %.1f "$(echo "$(date +%s.%N) - $start" | bc)") s"
}

# image_file IMG PATH OUT: copy PATH out of the ext4 image IMG, unmounted.
image_file() {
	debugfs -R "dump -p $2 $3" "$1" >/dev/null 2>&1 || true
	[ -s "$3" ] || die "no $2 in $1"
}

boot() {
	local img=$1 kernel=$opt_kernel initrd=$opt_initrd log=$opt_log
	local -a qemu serials=()
	local i serial disk start wall rc timed_out=0 want have

	[ -f "$img" ] || die "no image $img"
	[ -n "$log" ] || log=$img.log
	if [ -z "$kernel" ]; then
		kernel=$(guest_kernel_dir "$flavour")/vmlinux
		[ -s "$kernel" ] || "$here/deps.sh" --flavour "$flavour" >&2
	fi
	# The initrd from the image itself: it carries the image's
	# /etc/modprobe.d and whatever update-initramfs put in it, in an
	# earlier boot or through `$me chroot`.
	if [ -z "$initrd" ]; then
		initrd=$work/initrd
		image_file "$img" "/boot/initrd.img-$kver" "$initrd"
	fi
	# The modules in the image must be the kernel's: the same ABI loads,
	# but a different upload is not what the image's headers describe.
	if [ -z "$opt_kernel" ]; then
		image_file "$img" /var/lib/dpkg/status "$work/status"
		want=$(awk -v p="linux-image-$kver" '$1 == "Package:" { q = ($2 == p) }
			q && $1 == "Version:" { print $2; exit }' "$work/status")
		have=$(grep -a -o -m1 -E 'SMP [A-Z_ ]*Debian [^ ]+' "$kernel" |
		       head -n 1 | sed 's/.*Debian //')
		[ "$want" = "$have" ] ||
			say "warning: $kernel is Debian $have, the image's" \
			    "linux-image-$kver is $want"
	fi

	# As scripts/vm.sh: multi-threaded TCG with a large translation
	# cache, no 5-level paging (vm.sh says why), the kernel booted
	# through its PVH entry, and no reboot: a reboot request, as after a
	# panic (panic=-1), ends QEMU like a power-off does.
	qemu=(qemu-system-x86_64 -accel "tcg,thread=multi,tb-size=256"
	      -cpu "max,la57=off" -name "blkfast-sys,debug-threads=on"
	      -smp "$opt_smp" -m "$opt_mem" -nographic -nodefaults
	      -serial stdio -no-reboot
	      -kernel "$kernel" -initrd "$initrd"
	      -append "root=/dev/vda rw console=ttyS0 tsc=reliable no_timer_check panic=-1 $quiet$stall_args$opt_append"
	      -drive "file=$img,if=none,id=root,format=raw,cache=unsafe"
	      -device "virtio-blk-pci,drive=root")
	if [ -n "$opt_serials" ]; then
		read -r -a serials <<<"$opt_serials"
	else
		for ((i = 0; i < opt_nvme; i++)); do
			serials+=("blkfastsys$i")
		done
	fi
	i=0
	for serial in "${serials[@]}"; do
		disk=${opt_disk_dir:-$work}/$serial.img
		[ -f "$disk" ] || truncate -s "$opt_nvme_size" "$disk"
		qemu+=(-drive "file=$disk,if=none,id=nvme$i,format=raw,cache=unsafe"
		       -device "nvme,serial=$serial,drive=nvme$i,max_ioqpairs=$opt_qpairs")
		i=$((i + 1))
	done
	qemu+=("${opt_qemu[@]}")

	: >"$log"
	start=$(date +%s.%N)
	"${qemu[@]}" </dev/null >>"$log" 2>&1 &
	qpid=$!
	if [ "$opt_echo" = 1 ]; then
		# Follow the log while QEMU runs; tail exits once QEMU has and
		# the rest is read.  The terminal's escape sequences (SeaBIOS's
		# screen reset, systemd's colours) stay in the log only.
		tail -n +1 -f --pid="$qpid" "$log" |
			sed -u -e 's/\r$//' -e 's/\x1bc//g' \
				-e 's/\x1b\[[0-9;?]*[A-Za-z]//g' \
				-e "s/^/$opt_prefix/" &
		tpid=$!
	fi
	local end=$((SECONDS + opt_timeout))
	while kill -0 "$qpid" 2>/dev/null; do
		if [ $SECONDS -ge "$end" ]; then
			timed_out=1
			kill "$qpid" 2>/dev/null || true
			sleep 1
			kill -9 "$qpid" 2>/dev/null || true
			break
		fi
		sleep 0.2
	done
	rc=0
	wait "$qpid" 2>/dev/null || rc=$?
	qpid=
	[ -z "$tpid" ] || wait "$tpid" 2>/dev/null || true
	tpid=
	wall=$(printf %.1f "$(echo "$(date +%s.%N) - $start" | bc)")
	if [ $timed_out = 1 ]; then
		say "guest still running after $opt_timeout s: killed ($log)"
		return 124
	fi
	say "QEMU exited with status $rc after $wall s ($log)"
	return "$rc"
}

# chroot_run ROOTDIR CMD...: CMD in ROOTDIR with the pseudo file systems
# that apt, dpkg and update-initramfs use, unmounted again however CMD
# ends.  Only what this function mounted is unmounted.
chroot_mounts=()
policy_rc=
chroot_teardown() {
	local i

	for ((i = ${#chroot_mounts[@]} - 1; i >= 0; i--)); do
		umount "${chroot_mounts[i]}" 2>/dev/null ||
			umount -l "${chroot_mounts[i]}" ||
			say "could not unmount ${chroot_mounts[i]}"
	done
	chroot_mounts=()
	[ -z "$policy_rc" ] || rm -f "$policy_rc"
	policy_rc=
}

chroot_mount() {
	local target=$1

	shift
	mkdir -p "$target"
	mount "$@" "$target"
	chroot_mounts+=("$target")
}

chroot_run() {
	local rootdir rc=0

	rootdir=$(realpath "$1")
	shift
	[ "$rootdir" != / ] || die "refusing to chroot into /"
	[ -x "$rootdir/bin/sh" ] || die "$rootdir is not a root tree"
	[ $# -gt 0 ] || die "chroot: no command"
	# A signal ends the script through the EXIT trap; bash runs its trap
	# once the command in the foreground has ended, so the mounts go only
	# after CMD (a terminal's Ctrl-C reaches both).  CMD stays in the
	# foreground so that an interactive shell in the chroot works.
	trap chroot_teardown EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	# Bind mounts of the host's /dev and /dev/pts (not --rbind: its
	# submounts could not all be unmounted again); a fresh /run, so that
	# nothing of the host's services shows through.
	chroot_mount "$rootdir/proc" -t proc proc
	chroot_mount "$rootdir/sys" -t sysfs sysfs
	chroot_mount "$rootdir/dev" --bind /dev
	chroot_mount "$rootdir/dev/pts" --bind /dev/pts
	chroot_mount "$rootdir/run" -t tmpfs -o mode=755 tmpfs
	# No daemon started by a package's maintainer script: invoke-rc.d
	# asks policy-rc.d first (101: action not allowed).
	if [ ! -e "$rootdir/usr/sbin/policy-rc.d" ]; then
		policy_rc=$rootdir/usr/sbin/policy-rc.d
		printf '#!/bin/sh\nexit 101\n' >"$policy_rc"
		chmod 755 "$policy_rc"
	fi
	chroot "$rootdir" "$@" || rc=$?
	chroot_teardown
	trap - EXIT INT TERM
	return "$rc"
}

[ $# -gt 0 ] || { usage >&2; exit 2; }
mode=oneshot
case $1 in
mkimage | boot | chroot) mode=$1; shift ;;
-h | --help) usage; exit 0 ;;
esac
[ "$(id -u)" -eq 0 ] || die "must run as root"

if [ "$mode" = chroot ]; then
	[ $# -ge 2 ] || { usage >&2; exit 2; }
	chroot_run "$@"
	exit $?
fi

opt_smp=2 opt_mem=2048 opt_append='' opt_nvme=0 opt_serials=''
opt_nvme_size=1G opt_qpairs=4 opt_disk_dir='' opt_log='' opt_timeout=600
opt_kernel='' opt_initrd='' opt_echo=1 opt_prefix='guest| ' opt_qemu=()
opt_size='' opt_image='' opt_keep=0 opt_verbose=0
while [ $# -gt 0 ]; do
	case $1 in
	--smp) opt_smp=$2; shift ;;
	--mem) opt_mem=$2; shift ;;
	--append) opt_append="$opt_append $2"; shift ;;
	--nvme) opt_nvme=$2; shift ;;
	--nvme-serials) opt_serials=$2; shift ;;
	--nvme-size) opt_nvme_size=$2; shift ;;
	--nvme-qpairs) opt_qpairs=$2; shift ;;
	--disk-dir) opt_disk_dir=$2; shift ;;
	--log) opt_log=$2; shift ;;
	--prefix) opt_prefix=$2; shift ;;
	--no-echo) opt_echo=0 ;;
	--verbose) opt_verbose=1 ;;
	--timeout) opt_timeout=$2; shift ;;
	--kernel) opt_kernel=$2; shift ;;
	--initrd) opt_initrd=$2; shift ;;
	--qemu) opt_qemu+=("$2"); shift ;;
	--size) opt_size=$2; shift ;;
	--image) opt_image=$2; shift ;;
	--keep-image) opt_keep=1 ;;
	-h | --help) usage; exit 0 ;;
	--) shift; break ;;
	-*) say "unknown option '$1'"; usage >&2; exit 2 ;;
	*) break ;;
	esac
	shift
done
# sed's replacement: the prefix taken literally.
opt_prefix=$(printf '%s' "$opt_prefix" | sed 's/[\/&]/\\&/g')
[ -z "$opt_disk_dir" ] || mkdir -p "$opt_disk_dir"

if [ "$mode" = mkimage ]; then
	[ $# -eq 2 ] || { usage >&2; exit 2; }
	mkimage "$1" "$2" "$opt_size"
	exit 0
fi
[ $# -le 1 ] || { usage >&2; exit 2; }
[ $# -eq 1 ] || [ -n "$opt_image" ] || { usage >&2; exit 2; }

# Stall detectors sized for TCG on a busy 2-core host, as in scripts/vm.sh
# (which says why); reports only, no panic: a system test judges the
# console log.
stall_args="rcupdate.rcu_cpu_stall_timeout=60 watchdog_thresh=30"
# The console is the test's report: "quiet" keeps the kernel's boot
# messages and systemd's unit status lines (some 650 lines a boot) off it,
# and with them the kernel lines that land in the middle of a line the
# test prints (udev still loads drivers then).  loglevel=5, after it,
# still prints kernel warnings and worse: WARN splats are KERN_WARNING,
# which quiet's own loglevel 4 would hide.  The journal keeps everything.
# Measured, the boot takes no longer without it (12-14 s to multi-user).
quiet="quiet loglevel=5 "
[ "$opt_verbose" = 0 ] || quiet=

qpid='' tpid=''
work=$(mktemp -d "${TMPDIR:-/tmp}/blkfast-sys.XXXXXX")
# shellcheck disable=SC2317 # run by the EXIT trap (shellcheck#2542)
cleanup() {
	[ -z "$qpid" ] || kill -9 "$qpid" 2>/dev/null || true
	[ -z "$tpid" ] || kill "$tpid" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if [ "$mode" = boot ]; then
	[ $# -eq 1 ] || { usage >&2; exit 2; }
	rc=0
	boot "$1" || rc=$?
	exit "$rc"
fi

# One shot: --image IMG alone boots IMG as it is; with ROOTDIR, the image
# is made first (at IMG, or beside ROOTDIR, or in the work folder).
img=$opt_image
if [ $# -eq 1 ]; then
	rootdir=${1%/}
	if [ -z "$img" ]; then
		img=$work/root.img
		[ "$opt_keep" = 0 ] || img=$rootdir.img
	fi
	[ -n "$opt_log" ] || opt_log=$rootdir.log
	mkimage "$rootdir" "$img" "$opt_size"
fi
rc=0
boot "$img" || rc=$?
[ "$img" = "$work/root.img" ] || say "image kept: $img"
exit "$rc"
