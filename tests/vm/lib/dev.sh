# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Block devices: null_blk, pdm's counters and holders, checksums of a
# device's sectors.
# Sourced by lib.sh, never on its own.

# md5_of DEV [SECTOR COUNT]: the md5 of DEV (whole, or COUNT sectors from
# SECTOR), read with O_DIRECT (past any page cache).
md5_of() {
	if [ $# = 1 ]; then
		dd if="$1" bs=64k iflag=direct status=none | md5sum |
			cut -d' ' -f1
	else
		dd if="$1" bs=64k iflag=direct,skip_bytes,count_bytes \
			skip=$(($2 * 512)) count=$(($3 * 512)) status=none |
			md5sum | cut -d' ' -f1
	fi
}

# holders_of DEV: the holders of /dev/DEV (holders/ links), by name.
holders_of() {
	local h out=
	for h in /sys/block/"$1"/holders/*; do
		[ -e "$h" ] && out="$out${out:+ }${h##*/}"
	done
	echo "$out"
}

# pdm_stat NAME [DEV]: pdm's sysfs file NAME of DEV (default pdm0).
pdm_stat() {
	cat "/sys/block/${2:-pdm0}/pdm/$1"
}

# pdm_new_mode: the poll_mode a new pdm device starts in here: direct, or
# the one the tier put on the command line (pdm.test_poll_mode=: the
# debug tier's is tracked, see tests/run).
pdm_new_mode() {
	cmdline_value pdm.test_poll_mode direct
}

# pdm_mode DEV: DEV's poll_mode, the bracketed choice.
pdm_mode() {
	sed -n 's/.*\[\(.*\)\].*/\1/p' "/sys/block/$1/pdm/poll_mode"
}

# nullb_load ARGS...: (re)load null_blk with ARGS.
nullb_load() {
	modprobe -r null_blk 2>/dev/null || true
	run modprobe null_blk "$@"
	[ -b /dev/nullb0 ] || fail "null_blk loaded but /dev/nullb0 is missing"
}

# wait_for_block DEV: wait up to 5 s for /dev/DEV.
wait_for_block() {
	for _ in $(seq 50); do
		[ -b "/dev/$1" ] && return 0
		sleep 0.1
	done
	fail "/dev/$1 did not appear"
}

# wait_block_gone DEV WHY: wait up to 5 s for /sys/block/DEV to go; if it
# does not, the test fails saying WHY.
wait_block_gone() {
	for _ in $(seq 50); do
		[ -e "/sys/block/$1" ] || return 0
		sleep 0.1
	done
	fail "$2"
}

# nullb_cfs NAME KEY=VALUE...: create a null_blk device through configfs
# (null_blk must be loaded), set its attributes, power it on and wait for
# it.  6.1 names the disk after the directory: /dev/NAME.
nullb_cfs() {
	local name=$1 kv d=/sys/kernel/config/nullb/$1
	shift
	mkdir "$d" || fail "cannot create configfs null_blk $name"
	for kv in "$@"; do
		echo "${kv#*=}" >"$d/${kv%%=*}" ||
			fail "null_blk $name: cannot set ${kv%%=*}=${kv#*=}"
	done
	echo 1 >"$d/power" || fail "null_blk $name: cannot power on"
	wait_for_block "$name"
}

# nullb_prefill DEV: write the first 64 MiB of DEV once, unpolled.  6.1's
# null_blk (memory_backed) allocates a backing page, GFP_NOIO, when a write
# first touches it, which a polled write does inside io_uring's RCU
# read-side section (null_poll() -> null_insert_page()): a kernel bug that
# the debug kernel reports whoever polls.  A test that writes polled to a
# memory-backed null_blk writes its region through this first.
nullb_prefill() {
	dd if=/dev/zero of="$1" bs=1M count=64 oflag=direct status=none ||
		fail "cannot prefill $1"
}

# expect_drained NAME: no top bio is left in pdm: a suspend (which waits
# for every bio in flight) returns, within 10 s.
expect_drained() {
	timeout 10 pdmsetup suspend "$1" ||
		fail "pdmsetup suspend $1 did not return: bios left in flight"
	pdmsetup info "$1" | grep -q '^State: *SUSPENDED$' ||
		fail "$1 not suspended: $(pdmsetup info "$1")"
	run pdmsetup resume "$1"
	note "ok: $1 drained (suspend returned)"
}
