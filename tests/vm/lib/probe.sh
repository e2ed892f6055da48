# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Kernel instrumentation: kretprobe sums and histograms, the trace
# buffer, and fault injection (fail-nth, failslab).
# Sourced by lib.sh, never on its own.

# Sum a kretprobe's return values: probe_sum_start NAME FUNC arms it,
# probe_sum NAME reads the total (and the number of calls), probe_sum_stop
# NAME removes it.  Used to count completions a ->poll() handler reaped.
probe_sum_start() {
	local name=$1 func=$2
	echo "r:blkfast/$name $func ret=\$retval:s32" >>"$TRACEFS/kprobe_events" ||
		fail "cannot add kretprobe on $func"
	echo "hist:keys=common_type:vals=hitcount,ret" \
		>"$TRACEFS/events/blkfast/$name/trigger" ||
		fail "cannot add hist trigger on $func"
}

probe_sum() {
	awk '/ret:/ { for (i = 1; i <= NF; i++) if ($i == "ret:") s += $(i+1) }
	     END { print s + 0 }' "$TRACEFS/events/blkfast/$1/hist"
}

probe_calls() {
	awk '/hitcount:/ { for (i = 1; i <= NF; i++) if ($i == "hitcount:") s += $(i+1) }
	     END { print s + 0 }' "$TRACEFS/events/blkfast/$1/hist"
}

probe_sum_stop() {
	local name=$1
	echo "!hist:keys=common_type:vals=hitcount,ret" \
		>"$TRACEFS/events/blkfast/$name/trigger"
	echo "-:blkfast/$name" >>"$TRACEFS/kprobe_events"
}

# trace_complete WHAT: the trace buffer kept every event written since it
# was last cleared (its header's entries-in-buffer = entries-written): an
# overwritten ring loses the oldest events without a LOST mark.
trace_complete() {
	local kept a b
	kept=$(sed -n 's/^# entries-in-buffer\/entries-written: \([0-9]*\)\/\([0-9]*\).*/\1 \2/p' \
		"$TRACEFS/trace" | head -n 1)
	[ -n "$kept" ] || fail "$1: no entries line in the trace header"
	read -r a b <<<"$kept"
	[ "$a" = "$b" ] ||
		fail "$1: trace buffer overran: $a of $b events kept"
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
	echo "$type:blkfast/$name $rest" >>"$TRACEFS/kprobe_events" ||
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
	echo "-:blkfast/$name" >>"$TRACEFS/kprobe_events"
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

# failslab_arm IGNORE_GFP_WAIT CACHE_FILTER PERCENT TIMES: failslab fails
# PERCENT% of the slab allocations of the tasks whose make-it-fail is set
# (task-filter), at most TIMES of them, with no stack dumps; with
# IGNORE_GFP_WAIT Y only those that may not sleep, with CACHE_FILTER Y
# only in caches marked for it (slub_debug=A).  FAILSLAB names the
# debugfs folder.
FAILSLAB=$DEBUGFS/failslab
failslab_arm() {
	echo Y >"$FAILSLAB/task-filter"
	echo "$1" >"$FAILSLAB/ignore-gfp-wait"
	echo "$2" >"$FAILSLAB/cache-filter"
	echo 0 >"$FAILSLAB/verbose"
	echo 0 >"$FAILSLAB/space"
	echo 1 >"$FAILSLAB/interval"
	echo "$3" >"$FAILSLAB/probability"
	echo "$4" >"$FAILSLAB/times"
}
