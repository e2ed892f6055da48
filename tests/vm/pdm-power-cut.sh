#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm: -c 2 -t 600
# vm-skip-flavour: debug its kernel has no dm-delay; pdm's flush path runs there in pdm-lockfs (core) and pdm-flush-order (full)
# 6.12-tier: flush and FUA through 6.12's block layer, its ext4 and journal
# Crash consistency, the end result a user cares about: after a power cut,
# every file an application made durable (write, fsync, fsync of the
# directory) is intact, and the file system is clean once its journal is
# replayed.
#
# The lower devices are disks with a volatile write cache: memory-backed
# null_blk with a 1 MiB cache (unflushed writes sit in it, and powering
# the device off through configfs drops them, while flushed and FUA data
# persist), each behind dm-delay so that its cache flush takes 20 ms, as
# a real disk's does: the window in which a write that skipped its flush
# or its FUA is lost.  On each stacked device (a pdm stripe, a pdm
# linear table of two segments, and dm-striped over the same lower
# devices, the control), cut after cut for about CUT_S seconds (and
# MIN_CUTS cuts at least): fresh
# disks, ext4, and tests/progs/fsync-log writing and fsyncing files and
# logging each one (to the guest's RAM, outside the devices) once it is
# durable; at a random moment both legs lose power; then power on, the
# same table over the same data, a mount that replays the journal,
# `e2fsck -fn` (must be clean) and every logged file checked against its
# content.
. "$(dirname "$0")/lib/lib.sh"

MB=128				# per lower device
leg=$((MB * 2048))		# sectors
CUT_S=30			# of cutting per stacked device
MIN_CUTS=4			# and at least, on a slow host
FLUSH_MS=20
CFS=/sys/kernel/config/nullb

run modprobe null_blk nr_devices=0
run modprobe dm-delay
run modprobe ext4
run modprobe pdm

# legs_up [fresh]: power on (the first time, create) the two disks, with
# "fresh" all their data discarded first; over each a dm-linear gate (gca,
# gcb: see legs_cut) and over that dm-delay (dca, dcb), whose major:minor
# LOWER gets.
#
# null_blk's cache holds only writes to pages that it has never stored: a
# write to a stored page goes straight to it.  A discard frees the pages,
# so on a fresh disk every write of the run, the journal's included (the
# file system is made with lazy_journal_init: mke2fs does not write the
# journal), sits in the cache until a flush or FUA makes it durable.
LOWER=()
legs_up() {
	local d
	LOWER=()
	for d in ca cb; do
		if [ -d $CFS/$d ]; then
			echo 1 >$CFS/$d/power || fail "$d: cannot power on"
			wait_for_block $d
		else
			nullb_cfs $d queue_mode=2 submit_queues=1 size=$MB \
				memory_backed=1 cache_size=4 discard=1
			expect_eq "$d write cache" "write back" \
				"$(cat /sys/block/$d/queue/write_cache)"
		fi
		[ "${1:-}" = fresh ] && run blkdiscard /dev/$d
		run dmsetup create "g$d" --table "0 $leg linear /dev/$d 0"
		run dmsetup create "d$d" --table "0 $leg delay \
/dev/mapper/g$d 0 0 /dev/mapper/g$d 0 0 /dev/mapper/g$d 0 $FLUSH_MS"
		LOWER+=("$(dmsetup info -c --noheadings -o major,minor "d$d" |
			tr -d ' ')")
	done
}

# legs_cut HOW: the power cut.  "atomic": both disks lose power at one
# moment, as disks in one box do.  Each gate is suspended first, so that
# neither disk sees another request: a consistent cut, since whatever
# reaches one disk's gate after it closed waits there, undelivered, and
# so does all that depends on it.  The gates sit below dm-delay because
# a suspended dm-delay sends its delayed flushes at once, which would
# make durable what a cut in that moment loses.  Then both disks power
# off and the held requests are let go, to fail.  "staggered": the first
# disk goes, the other 50 ms later and takes requests meanwhile, as disks
# in two boxes do.
legs_cut() {
	local pid
	if [ "$1" = atomic ]; then
		run dmsetup suspend --noflush --nolockfs gca
		run dmsetup suspend --noflush --nolockfs gcb
		echo 0 >$CFS/ca/power &
		pid=$!
		echo 0 >$CFS/cb/power
		wait $pid
		run dmsetup resume gca
		run dmsetup resume gcb
	else
		echo 0 >$CFS/ca/power
		sleep 0.05
		echo 0 >$CFS/cb/power
	fi
}

legs_down() {
	local d
	for d in dca dcb gca gcb; do
		run dmsetup remove $d
	done
}

# Every bio as clones (tracked), whose flags pdm sets itself: a bio that
# direct, the default, remaps whole keeps its submitter's FUA as it is
# (pdm-passthrough checks both), and only a cut right after a journal
# commit shows a lost one, so all the cutting goes to the clones.
pdm_clones_only() {
	echo tracked >/sys/block/pdm0/pdm/poll_mode
}

# top_up KIND: the stacked device over LOWER; TOP gets its node.
TOP=''
top_up() {
	local a=${LOWER[0]} b=${LOWER[1]}
	case $1 in
	pdm-striped)
		run pdmsetup create pc --table \
			"0 $((2 * leg)) striped 2 128 $a 0 $b 0" >/dev/null
		pdm_clones_only
		TOP=/dev/pdm0 ;;
	pdm-linear)
		run pdmsetup create pc --table "0 $leg linear $a 0
$leg $leg linear $b 0" >/dev/null
		pdm_clones_only
		TOP=/dev/pdm0 ;;
	dm-striped)
		run dmsetup create pcref --table \
			"0 $((2 * leg)) striped 2 128 $a 0 $b 0"
		TOP=/dev/mapper/pcref ;;
	esac
}

top_down() {
	case $1 in
	pdm-*) run pdmsetup remove pc ;;
	dm-*) run dmsetup remove pcref ;;
	esac
}

# recover KIND LOG: power on, the same table, journal replay, fsck, check.
recover() {
	local kind=$1 log=$2 out
	legs_up
	top_up "$kind"
	out=$(mount -t ext4 "$TOP" /mnt 2>&1) ||
		fail "$kind: not crash-consistent after cut $CUTS ($HOW):" \
			"the journal does not replay, mount failed: $out;" \
			"$(dmesg | tail -n 4)"
	run umount /mnt
	out=$(e2fsck -fn "$TOP" 2>&1) ||
		fail "$kind: not crash-consistent after cut $CUTS ($HOW):" \
			"e2fsck -fn found errors: $out"
	run mount -t ext4 -o ro "$TOP" /mnt
	out=$(fsync-log check /mnt "$log") ||
		fail "$kind: not crash-consistent after cut $CUTS ($HOW): $out"
	run umount /mnt
	top_down "$kind"
	legs_down
}

# cut_once KIND HOW: fresh disks, ext4 on KIND, the writer, at a random
# moment the cut (see legs_cut), then recovery and the checks.  Adds to
# LOGGED the files the writer made durable.
cut_once() {
	local kind=$1 log=/tmp/$1.log pid ms n
	HOW=$2
	: >"$log"
	legs_up fresh
	top_up "$kind"
	# No lazy inode table init: ext4lazyinit would flush the disks now
	# and then, and hide a flush or a FUA that pdm failed to send.
	run mke2fs -q -F -t ext4 -E lazy_itable_init=0,lazy_journal_init=1 \
		"$TOP"
	run mount -t ext4 "$TOP" /mnt
	fsync-log write /mnt "$log" "$CUTS" >/tmp/writer.out 2>&1 &
	pid=$!
	# 0.2 to 1.7 s: the writer has logged some files, and the cut falls
	# anywhere in a commit's cycle.
	ms=$((200 + RANDOM % 1500))
	sleep "$((ms / 1000)).$(printf %03d $((ms % 1000)))"
	legs_cut "$HOW"
	CUTS=$((CUTS + 1))
	wait $pid || fail "$kind: writer: $(cat /tmp/writer.out)"
	n=$(sed -n 's/^fsync-log: \([0-9]*\) files logged.*/\1/p' \
		/tmp/writer.out)
	[ -n "$n" ] || fail "$kind: the writer never met the cut:" \
		"$(cat /tmp/writer.out)"
	LOGGED=$((LOGGED + n))
	umount /mnt 2>/dev/null || fail "$kind: cannot unmount after cut"
	top_down "$kind"
	legs_down
	recover "$kind" "$log"
}

# cuts KIND HOW...: cut after cut on KIND for CUT_S seconds, and at
# least MIN_CUTS cuts however slow the host, each of the next HOW in turn.
cuts() {
	local kind=$1 end how
	shift
	CUTS=0 LOGGED=0
	end=$((SECONDS + CUT_S))
	while [ $SECONDS -lt $end ] || [ $CUTS -lt $MIN_CUTS ]; do
		how=$1
		shift
		set -- "$@" "$how"
		cut_once "$kind" "$how"
	done
	note "$kind: $CUTS power cuts, $LOGGED files made durable before" \
		"them, all intact, file system clean each time"
	# The situation: files made durable before the cut, most times.
	expect_ge "$kind: files made durable" $((CUTS * 2)) "$LOGGED"
}

# dm 6.1 reissues a PREFLUSH+data bio's data even when the preflush failed
# (drivers/md/dm.c, __dm_io_complete()), so under a staggered cut the data
# can be written to the disk still on while the other's flush failed, and
# complete: the control takes atomic cuts only.
cuts dm-striped atomic
cuts pdm-striped atomic staggered
cuts pdm-linear atomic staggered
