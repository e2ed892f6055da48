# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# I/O schedulers: switching (with a balance check before each switch),
# depths, and the paired slow null_blk devices of the split-deadline tests.
# Sourced by lib.sh, never on its own.

# sched_depth DEV N: nr_requests = async_depth = N for DEV's deadline
# scheduler.  6.1 calls depth_updated before it stores nr_requests, so
# async_depth (which would otherwise hold writes to a few tags) keeps the
# old value unless it is set by hand.
sched_depth() {
	echo "$2" >"/sys/block/$1/queue/nr_requests" ||
		fail "$1: cannot set nr_requests $2"
	echo "$2" >"/sys/block/$1/queue/iosched/async_depth" ||
		fail "$1: cannot set async_depth $2"
}

# sd_slow_pair: two slow null_blk devices (1 ms per request, 2 tags), the
# mq-deadline reference on nullb0 and split-deadline on nullb1, so that
# both see the same host load; 128 requests fit in each scheduler, and
# writes never expire (write_expire 60 s).  SD_PAIR maps device to
# scheduler.
declare -A SD_PAIR=([nullb0]=mq-deadline [nullb1]=split-deadline)
sd_slow_pair() {
	local d
	nullb_load queue_mode=2 irqmode=2 completion_nsec=1000000 \
		hw_queue_depth=2 submit_queues=1 gb=1 nr_devices=2
	for d in nullb0 nullb1; do
		set_sched $d "${SD_PAIR[$d]}"
		sched_depth $d 128
		echo 60000 >/sys/block/$d/queue/iosched/write_expire
	done
}

# sched_of DEV: the name of DEV's current I/O scheduler.
sched_of() {
	sed -n 's/.*\[\(.*\)\].*/\1/p' /sys/block/"$1"/queue/scheduler
}

# sched_balanced DEV: if DEV runs split-deadline or mq-deadline (the
# reference) and stays idle (no request in flight, so none owned by the
# driver and, once the scheduler has had its chance, none queued), its
# debugfs queued and owned_by_driver read 0 in every priority class
# within 1 s.  For split-deadline anything else fails the test; for
# mq-deadline it is noted.  A device still busy after 1 s, or without
# the debugfs files, is noted as not checked.  (Elevator exit WARNs on
# unbalanced queued counts too, but nothing checks owned_by_driver or a
# scheduler that is never switched away from.)  set_sched runs it before every switch.
sched_balanced() {
	local d=$1 cur r w f v bad why
	cur=$(sched_of "$d")
	case $cur in mq-deadline | split-deadline) ;; *) return 0 ;; esac
	for _ in $(seq 10); do
		read -r r w </sys/block/"$d"/inflight
		bad='' why=''
		# Not idle yet: someone's I/O is still running.
		[ "$r $w" = "0 0" ] || why="still busy ($r $w in flight)"
		for f in queued owned_by_driver; do
			[ -z "$why" ] || break
			# debugfs files are best effort: a switch under
			# fault injection may have had none created.
			if [ ! -r "$DEBUGFS/block/$d/sched/$f" ]; then
				why="no debugfs $f"
				break
			fi
			v=$(cat "$DEBUGFS/block/$d/sched/$f")
			[ "$v" = "0 0 0" ] || bad+=" $f '$v'"
		done
		[ -n "$bad$why" ] || return 0
		sleep 0.1
	done
	if [ -n "$why" ]; then
		note "$d: $cur not checked at idle: $why"
		return 0
	fi
	[ "$cur" = split-deadline ] &&
		fail "$d: split-deadline at idle:$bad; expected '0 0 0' each"
	note "$d: mq-deadline at idle:$bad"
}

# sd_floods QD: in SD_FLOODS, fio arguments for a 2 s random read flood
# and a random write flood, 4k direct at depth QD each, on each device of
# the slow pair (the writes in the 256 MiB above the reads).
sd_floods() {
	local d common
	SD_FLOODS=()
	for d in nullb0 nullb1; do
		common=("--filename=/dev/$d" --direct=1 --bs=4k
			--ioengine=libaio --iodepth="$1" --size=256m --runtime=2
			--time_based)
		SD_FLOODS+=("--name=reads-$d" "${common[@]}" --rw=randread
			"--name=writes-$d" "${common[@]}" --rw=randwrite
			--offset=256m)
	done
}

# set_sched DEV NAME: select an I/O scheduler and check that it took.
set_sched() {
	sched_balanced "$1"
	echo "$2" >/sys/block/"$1"/queue/scheduler ||
		fail "cannot set scheduler $2 on $1"
	grep -q "\[$2\]" /sys/block/"$1"/queue/scheduler ||
		fail "$1: scheduler is '$(cat /sys/block/"$1"/queue/scheduler)', expected $2"
}
