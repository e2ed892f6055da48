# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# fio: runs that fail on any I/O or verify error, bounded runs, and the
# fields of fio's terse output.
# Sourced by lib.sh, never on its own.

# fio_run NAME FIO-ARGS...: run fio, fail on a non-zero exit or any I/O or
# verify error, and leave the terse (v3) summary in $FIO_TERSE.  Fields
# (1-based): 5 error, 6 read KiB, 8 read IOPS, 47 write KiB, 49 write IOPS.
#
# A run still going after FIO_WATCHDOG_S seconds (by default four fifths
# of the guest's time limit, blkfast.timeout= on its command line) is
# taken for an I/O that never ended: the block layer's state is dumped
# (io_hang_dump) and the run fails, naming it, before the guest's own
# watchdog and the host's limit.  (io_uring waits interruptibly, so the
# kernel's hung task check never reports it.)
fio_run() {
	local name=$1 out pid dog ended rc=0 limit
	shift
	if [ -z "${FIO_WATCHDOG_S:-}" ]; then
		limit=$(cmdline_value blkfast.timeout '')
		[ -z "$limit" ] || local FIO_WATCHDOG_S=$((limit * 4 / 5))
	fi
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

# fio_bounded SECS NAME CMD...: run CMD, a fio command line for job NAME
# (maybe behind a wrapper that execs it), with terse output, ended after
# SECS; its exit status in FIO_RC, its I/O errors in FIO_ERRORS, its
# summary in FIO_TERSE, its output in /tmp/fio-NAME.out.  A run still
# going at SECS is taken for an I/O that never ended: the block layer's
# state is dumped (io_hang_dump), fio is killed, and FIO_RC is 124
# without waiting for it, since a task whose io_uring requests never end
# cannot exit (`timeout` would wait with it until the guest's limit).
fio_bounded() {
	local secs=$1 name=$2 out=/tmp/fio-$2.out pid
	shift 2
	FIO_RC=0
	"$@" --output-format=terse --terse-version=3 >"$out" 2>&1 &
	pid=$!
	if ! ends_within $pid "$secs"; then
		echo "fio_bounded: fio $name still running after ${secs}s"
		io_hang_dump
		kill -TERM $pid 2>/dev/null || true
		sleep 5
		kill -KILL $pid 2>/dev/null || true
		FIO_RC=124
	else
		wait $pid || FIO_RC=$?
	fi
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
		fail "fio $1: hung: an I/O never ended (exit $FIO_RC at its" \
			"time limit)"
	fi
	[ "$FIO_RC" = 0 ] || { cat "/tmp/fio-$1.out"; fail "fio $1: exit $FIO_RC"; }
	expect_eq "fio $1: error" 0 "$(fio_field 5)"
	expect_eq "fio $1: KiB written and verified" "$2" "$(fio_field 47)"
}
