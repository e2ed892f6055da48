# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers for the guest side of the VM tests; sourced by each test.  Every
# check prints what it expected and what it got, and a failure ends the test.
#
# Any failed command, unset variable or bad expansion ends the test too, so
# that a script can reach its PASS line only by running every step:
#  - errexit with an ERR trap (inherited by functions and subshells) names
#    the command that failed; a command that may fail says so (|| true);
#  - POSIX mode, because without it bash aborts only the current command
#    on an arithmetic or expansion error (a loop over an empty value
#    silently stops) and carries on to PASS.  POSIX mode exits instead.
# pipefail is left off: `cmd | grep -q` would fail whenever grep exits early.
set -o posix
set -eEu
trap 'fail "line $LINENO: \"$BASH_COMMAND\" exited with $?"' ERR
# What a test (or a helper it calls) exits with for SKIP: the runner reports
# it as skipped, with the last "SKIP: why" line as the reason.
SKIP_RC=77
TRACEFS=/sys/kernel/tracing
# shellcheck disable=SC2034 # for the tests that source this file
DEBUGFS=/sys/kernel/debug

fail() {
	echo "FAIL: $*"
	exit 1
}

# skip WHY: end the test as skipped (never PASS) because this boot could not
# create the situation the test needs; the runner prints WHY.
skip() {
	echo "SKIP: $*"
	exit "$SKIP_RC"
}

# with_reference WHY MEASURE CHECK [ARGS...]: run "MEASURE ARGS", then
# "CHECK ARGS", which says whether the kernel's own reference (mq-deadline,
# dm) showed the situation the test needs in this boot; at most 3 times,
# then the test SKIPs with WHY.  A busy host can keep the situation from
# arising; it must never make a test fail or pass.
with_reference() {
	local why=$1 measure=$2 check=$3 try
	shift 3
	for try in 1 2 3; do
		"$measure" "$@"
		"$check" "$@" && return 0
		note "try $try: the reference did not show the situation"
	done
	skip "$why (3 tries; host too slow)"
}

note() {
	echo "  $*"
}

# expect_num WHAT VALUE: VALUE is a whole number.  A measure checks what it
# parsed with this, so that output it could not read fails there, instead
# of making a reference check false (and the test SKIP) or an assertion
# compare against nothing.
expect_num() {
	[[ $2 =~ ^[0-9]+$ ]] || fail "$1: expected a number, got '$2'"
}

# expect_eq WHAT EXPECTED GOT
expect_eq() {
	[ "$2" = "$3" ] || fail "$1: expected '$2', got '$3'"
	note "ok: $1 = $3"
}

# expect_ge WHAT MIN GOT
expect_ge() {
	[ "$3" -ge "$2" ] 2>/dev/null || fail "$1: expected >= $2, got '$3'"
	note "ok: $1 = $3 (>= $2)"
}

# expect_le WHAT MAX GOT
expect_le() {
	[ "$3" -le "$2" ] 2>/dev/null || fail "$1: expected <= $2, got '$3'"
	note "ok: $1 = $3 (<= $2)"
}

# run CMD...: run a command that must succeed.
run() {
	"$@" || fail "'$*' exited with $?"
}

# expect_fail ERRNO_TEXT CMD...: CMD must fail and its stderr must say why.
expect_fail() {
	local want=$1 out
	shift
	if out=$("$@" 2>&1); then
		fail "'$*' succeeded; expected failure '$want'"
	fi
	case $out in
	*"$want"*) note "ok: '$*' failed with '$want'" ;;
	*) fail "'$*': expected error '$want', got '$out'" ;;
	esac
}

# fio_run NAME FIO-ARGS...: run fio, fail on a non-zero exit or any I/O or
# verify error, and leave the terse (v3) summary in $FIO_TERSE.  Fields
# (1-based): 5 error, 6 read KiB, 8 read IOPS, 47 write KiB, 49 write IOPS.
#
# With FIO_WATCHDOG_S set (the benchmarks set it), a run still going after
# that many seconds is taken for an I/O that never ended: the block
# layer's state is dumped (io_hang_dump) and the run fails, instead of
# the guest waiting for its boot's timeout.  (io_uring waits
# interruptibly, so the kernel's hung task check never reports it.)
fio_run() {
	local name=$1 out pid dog ended rc=0
	shift
	out=/tmp/fio-$name.out
	set -- --name="$name" --output-format=terse --terse-version=3 \
		--group_reporting "$@"
	if [ -z "${FIO_WATCHDOG_S:-}" ]; then
		fio "$@" >"$out" 2>&1 || rc=$?
	else
		fio "$@" >"$out" 2>&1 &
		pid=$!
		# One sleeper, not a polling loop: nothing runs beside fio.
		sleep "$FIO_WATCHDOG_S" &
		dog=$!
		# bash 5.2's `wait -n` can miss a child that exited before it
		# was called, and wait for the other one: ask only while fio
		# runs, and take the watchdog's end for a hang only if fio
		# still runs then.
		ended=$pid
		if kill -0 $pid 2>/dev/null; then
			# fio's status comes from `wait $pid` below.
			wait -n -p ended $pid $dog || :
		fi
		if [ "$ended" != "$dog" ] || ! kill -0 $pid 2>/dev/null; then
			wait $pid || rc=$?
		else
			io_hang_dump
			kill -KILL $pid 2>/dev/null || true
			fail "fio $name: still running after ${FIO_WATCHDOG_S}s (an I/O that never ended?)"
		fi
		kill $dog 2>/dev/null || true
		wait $dog 2>/dev/null || true
	fi
	if [ $rc != 0 ]; then
		cat "$out"
		fail "fio $name exited with an error"
	fi
	FIO_TERSE=$(grep '^3;' "$out" | tail -n 1)
	[ -n "$FIO_TERSE" ] || { cat "$out"; fail "fio $name: no summary"; }
	local err
	err=$(fio_field 5)
	[ "$err" = 0 ] || { cat "$out"; fail "fio $name: error $err"; }
}

# io_hang_dump: what a request that never ended left behind: every
# block device's hardware queues (state, requests waiting for dispatch,
# tags in use) and scheduler (debugfs), the blocked tasks and every CPU's
# stack (sysrq w and l, into the kernel log), and the kernel log's end.
io_hang_dump() {
	local f
	echo "=== io_hang_dump"
	for f in "$DEBUGFS"/block/*/hctx*/{state,dispatch,busy,tags,sched_tags} \
		"$DEBUGFS"/block/*/sched/*; do
		[ -f "$f" ] || continue
		echo "--- $f"
		head -c 2000 "$f" 2>&1 || true
	done
	echo w >/proc/sysrq-trigger 2>/dev/null || true
	echo l >/proc/sysrq-trigger 2>/dev/null || true
	dmesg | tail -n 300
	echo "=== io_hang_dump end"
}

fio_field() {
	echo "$FIO_TERSE" | cut -d';' -f"$1"
}

# fio_cpu_per_io JOBS: "USR SYS TOTAL", fio's CPU microseconds per read
# of the last fio_run of JOBS jobs (terse fields 8, 88, 89; fio's CPU
# percentages are per job, so they are scaled by the job count).
fio_cpu_per_io() {
	echo "$FIO_TERSE" | awk -F';' -v j="$1" \
		'{ u = $88 * j * 10000 / $8; s = $89 * j * 10000 / $8
		   printf "%.2f %.2f %.2f\n", u, s, u + s }'
}

# fio_ios BS: total I/Os (reads + writes) of the last fio_run.
fio_ios() {
	local bs=$1
	echo $(( ($(fio_field 6) + $(fio_field 47)) * 1024 / bs ))
}

# Sum a kretprobe's return values: probe_sum_start NAME FUNC arms it,
# probe_sum NAME reads the total (and the number of calls), probe_sum_stop
# NAME removes it.  Used to count completions a ->poll() handler reaped.
probe_sum_start() {
	local name=$1 func=$2
	echo "r:blkfast/$name $func ret=\$retval:s32" >>$TRACEFS/kprobe_events ||
		fail "cannot add kretprobe on $func"
	echo "hist:keys=common_type:vals=hitcount,ret" \
		>"$TRACEFS/events/blkfast/$name/trigger" ||
		fail "cannot add hist trigger on $func"
}

probe_sum() {
	awk '/ret:/ { for (i = 1; i <= NF; i++) if ($i == "ret:") s += $(i+1) }
	     END { print s + 0 }' $TRACEFS/events/blkfast/"$1"/hist
}

probe_calls() {
	awk '/hitcount:/ { for (i = 1; i <= NF; i++) if ($i == "hitcount:") s += $(i+1) }
	     END { print s + 0 }' $TRACEFS/events/blkfast/"$1"/hist
}

probe_sum_stop() {
	local name=$1
	echo "!hist:keys=common_type:vals=hitcount,ret" \
		>"$TRACEFS/events/blkfast/$name/trigger"
	echo "-:blkfast/$name" >>$TRACEFS/kprobe_events
}

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

# median NUMBERS...: the median (lower middle for an even count).  An
# argument may hold several numbers separated by spaces.
median() {
	printf '%s\n' "$@" | tr -s ' ' '\n' | sort -n |
		awk 'NF { v[++n] = $1 } END { print v[int((n + 1) / 2)] }'
}

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

# trace_complete WHAT: the trace buffer kept every event written since it
# was last cleared (its header's entries-in-buffer = entries-written): an
# overwritten ring loses the oldest events without a LOST mark.
trace_complete() {
	local kept a b
	kept=$(sed -n 's/^# entries-in-buffer\/entries-written: \([0-9]*\)\/\([0-9]*\).*/\1 \2/p' \
		$TRACEFS/trace | head -n 1)
	[ -n "$kept" ] || fail "$1: no entries line in the trace header"
	read -r a b <<<"$kept"
	[ "$a" = "$b" ] ||
		fail "$1: trace buffer overran: $a of $b events kept"
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

# Count a probe's hits per key.  probe_hist_start NAME KEY 'p|r FUNC
# FETCHARGS...' arms the kprobe event blkfast/NAME with a hist trigger keyed
# on KEY (one of its fetch args, or common_type for a single total);
# probe_hist_counts NAME prints the hits of each key, one a line, fewest
# first; probe_hist_keys NAME the keys hit, as numbers, smallest first;
# probe_hist_total NAME their sum; probe_hist_clear NAME zeroes the
# counts; probe_hist_stop NAME removes it.  Arm a probe once per test and
# clear it between runs: every arming of an ftrace-based kprobe builds and
# rewrites kernel text on all CPUs, each one more chance at what failed
# stop 22's CI once (a report, of a kind the log lost, with its stack in
# arch_ftrace_update_trampoline; not reproduced here).
declare -A PROBE_HIST_KEY=()
probe_hist_start() {
	local name=$1 key=$2 type=${3%% *} rest=${3#* }
	echo "$type:blkfast/$name $rest" >>$TRACEFS/kprobe_events ||
		fail "cannot add probe '$3'"
	echo "hist:keys=$key:vals=hitcount" \
		>"$TRACEFS/events/blkfast/$name/trigger" ||
		fail "cannot add hist trigger on blkfast/$name"
	PROBE_HIST_KEY[$name]=$key
}

probe_hist_counts() {
	awk '$1 == "{" && /hitcount:/ { print $NF }' "$TRACEFS/events/blkfast/$1/hist" |
		sort -n
}

probe_hist_keys() {
	awk '$1 == "{" && /hitcount:/ { print $3 }' \
		"$TRACEFS/events/blkfast/$1/hist" | sort -n
}

probe_hist_total() {
	awk '$1 == "{" && /hitcount:/ { s += $NF } END { print s + 0 }' \
		"$TRACEFS/events/blkfast/$1/hist"
}

probe_hist_clear() {
	echo "hist:keys=${PROBE_HIST_KEY[$1]}:vals=hitcount:clear" \
		>>"$TRACEFS/events/blkfast/$1/trigger" ||
		fail "cannot clear hist on blkfast/$1"
}

probe_hist_stop() {
	local name=$1
	echo "!hist:keys=${PROBE_HIST_KEY[$name]}:vals=hitcount" \
		>>"$TRACEFS/events/blkfast/$name/trigger"
	echo "-:blkfast/$name" >>$TRACEFS/kprobe_events
}

# fail_nth_setup: make /proc/*/fail-nth (and pdmsetup-fail-nth's
# PDMSETUP_FAIL_NTH, tests/progs/pdmsetup-fail-nth.c) reach
# every allocation (debug kernel).  fail-nth counts only the checks that
# pass a fault type's filters, so these are opened: sleeping allocations
# too, pages of any order and zone; no stack dumps (each would be a
# "Call Trace:" that the harness counts as a splat).
fail_nth_setup() {
	local f
	for f in failslab fail_page_alloc; do
		echo N >"$DEBUGFS/$f/ignore-gfp-wait"
		echo 0 >"$DEBUGFS/$f/verbose"
	done
	echo 0 >"$DEBUGFS/fail_page_alloc/min-order"
	echo N >"$DEBUGFS/fail_page_alloc/ignore-gfp-highmem"
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

# on_debug_kernel: true in a guest of the debug tier (tests/run puts
# blkfast.debug_tier= on its command line).
on_debug_kernel() {
	grep -q blkfast.debug_tier= /proc/cmdline
}

# on_rt_kernel: true on a PREEMPT_RT kernel (the rt tier).
on_rt_kernel() {
	[ "$(cat /sys/kernel/realtime 2>/dev/null)" = 1 ]
}

# debug_tier: "core" when make check's core of the debug tier boots this
# guest (tests/run puts blkfast.debug_tier= on its command line), else
# "full".
debug_tier() {
	local w
	for w in $(</proc/cmdline); do
		case $w in blkfast.debug_tier=*) echo "${w#*=}"; return ;; esac
	done
	echo full
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

# fio_bounded SECS NAME CMD...: run CMD, a fio command line for job NAME
# (maybe behind a wrapper that execs it), with terse output, killed after
# SECS; its exit status in FIO_RC, its I/O errors in FIO_ERRORS, its
# summary in FIO_TERSE, its output in /tmp/fio-NAME.out.
fio_bounded() {
	local secs=$1 out=/tmp/fio-$2.out
	shift 2
	FIO_RC=0
	timeout "$secs" "$@" --output-format=terse --terse-version=3 \
		>"$out" 2>&1 || FIO_RC=$?
	# shellcheck disable=SC2034 # read by the tests
	FIO_ERRORS=$(grep -c "io_u error" "$out" || true)
	FIO_TERSE=$(grep '^3;' "$out" | tail -n 1 || true)
}

# expect_fio_clean NAME KIB: the last fio_bounded (job NAME) ended by
# itself, without an error, having written (and verified) KIB KiB.  124
# is still running at the timeout; above 128, killed, or aborted when
# fio's own watchdog found a job stuck after the TERM: a hang either way.
expect_fio_clean() {
	if [ "$FIO_RC" = 124 ] || [ "$FIO_RC" -gt 128 ]; then
		fail "fio $1: hung (exit $FIO_RC after its timeout)"
	fi
	[ "$FIO_RC" = 0 ] || { cat "/tmp/fio-$1.out"; fail "fio $1: exit $FIO_RC"; }
	expect_eq "fio $1: error" 0 "$(fio_field 5)"
	expect_eq "fio $1: KiB written and verified" "$2" "$(fio_field 47)"
}

# A command stuck in the kernel, uninterruptibly, outlives timeout(1):
# these poll for its end instead, so that the test fails in time.

# wait_read FILE VALUE: wait up to 5 s for FILE to read VALUE; what it
# read last is in READ_VALUE, for the caller's message.
wait_read() {
	for _ in $(seq 100); do
		READ_VALUE=$(cat "$1")
		[ "$READ_VALUE" = "$2" ] && return 0
		sleep 0.05
	done
	return 1
}

# wait_ended PID SECS WHAT: PID ends within SECS seconds, its exit status
# in RC; else the test fails.
wait_ended() {
	for _ in $(seq $(($2 * 10))); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$1" 2>/dev/null; then
		fail "$3: still running after $2 s"
	fi
	RC=0
	wait "$1" || RC=$?
}

# returns_within SECS WHAT CMD...: CMD ends by itself within SECS seconds,
# with status 0; its output in /tmp/cmd.out.
returns_within() {
	local secs=$1 what=$2
	shift 2
	"$@" >/tmp/cmd.out 2>&1 &
	wait_ended $! "$secs" "$what"
	[ "$RC" = 0 ] || fail "$what: exit $RC: $(cat /tmp/cmd.out)"
	note "ok: $what returned"
}

# still_running PID WHAT: PID has not ended a second later (it waits).
still_running() {
	sleep 1
	if ! kill -0 "$1" 2>/dev/null; then
		RC=0
		wait "$1" || RC=$?
		fail "$2: ended (exit $RC); it should wait"
	fi
	note "ok: $2 waits"
}

# failslab_arm IGNORE_GFP_WAIT CACHE_FILTER PERCENT TIMES: failslab fails
# PERCENT% of the slab allocations of the tasks whose make-it-fail is set
# (task-filter), at most TIMES of them, with no stack dumps; with
# IGNORE_GFP_WAIT Y only those that may not sleep, with CACHE_FILTER Y
# only in caches marked for it (slub_debug=A).  FAILSLAB names the
# debugfs folder.
FAILSLAB=$DEBUGFS/failslab
failslab_arm() {
	echo Y >$FAILSLAB/task-filter
	echo "$1" >$FAILSLAB/ignore-gfp-wait
	echo "$2" >$FAILSLAB/cache-filter
	echo 0 >$FAILSLAB/verbose
	echo 0 >$FAILSLAB/space
	echo 1 >$FAILSLAB/interval
	echo "$3" >$FAILSLAB/probability
	echo "$4" >$FAILSLAB/times
}
