# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Exact cost per I/O, for guests booted in exact time (scripts/vm.sh -e:
# QEMU icount, one guest nanosecond per guest instruction, idle time
# skipped to the next timer).  Sourced by lib.sh, never on its own.
#
# Two figures per configuration, both from the guest's clocks read by fio
# itself just before its first I/O and just after its last
# (exec_prerun/exec_postrun), and both as the difference between a run of
# N I/Os and one of N/4, so that what a run costs besides its I/Os (the
# stamps themselves, fio's set-up and wind-down inside that window) drops
# out:
#  - ns/IO: guest time per I/O: 1e9 over the guest-time IOPS.  It
#    includes time the CPU sat idle waiting for a timer (a completion
#    interrupt, a hybrid sleep).
#  - instr/IO: the CPU's busy time per I/O, which under icount is its
#    instruction count: guest time less the idle time the kernel's nohz
#    accounting measured (/proc/timer_list, in ns).  Interrupts taken
#    while idle are not idle time (nohz stops the idle clock on irq
#    entry), so they count as busy, as they should.
# Both agree between boots to a few ns per I/O (scripts/bench-exact.sh
# shows it).

declare -A EXACT_NS EXACT_INSTR
EXACT_STAMP=/tmp/exact-stamp

# The guest's monotonic time and the time its CPUs have spent idle
# (iowait included), both in ns: "NOW IDLE", from /proc/timer_list.
# shellcheck disable=SC2016 # awk's fields, not the shell's
EXACT_NOW_AWK='/^now at/ { now = $3 }
	/^ *\.(idle|iowait)_sleeptime/ { idle += $(NF - 1) }
	END { printf "%.0f %.0f\n", now, idle }'

# exact_now: "NOW IDLE", as EXACT_NOW_AWK says.
exact_now() {
	awk "$EXACT_NOW_AWK" /proc/timer_list
}

# exact_window N FIO-ARGS...: one fio run of N I/Os of FIO-ARGS; sets
# WIN_NS and WIN_BUSY to the guest time and busy time from just before
# its first I/O to just after its last.
exact_window() {
	local n=$1 t0 i0 t1 i1
	shift
	if [ ! -x "$EXACT_STAMP" ]; then
		# fio runs it through system(): exact_now into its $1.
		# shellcheck disable=SC2016 # the script's $1, not ours
		printf '#!/bin/sh\nexec awk %s /proc/timer_list >"$1"\n' \
			"'$EXACT_NOW_AWK'" >"$EXACT_STAMP"
		chmod +x "$EXACT_STAMP"
	fi
	rm -f /tmp/exact.pre /tmp/exact.post
	fio_run exact --number_ios="$n" "$@" \
		--exec_prerun="$EXACT_STAMP /tmp/exact.pre" \
		--exec_postrun="$EXACT_STAMP /tmp/exact.post"
	[ "$(fio_ios 4096)" = "$n" ] ||
		fail "fio: $(fio_ios 4096) I/Os done, $n asked for"
	read -r t0 i0 </tmp/exact.pre || fail "fio ran no exec_prerun"
	read -r t1 i1 </tmp/exact.post || fail "fio ran no exec_postrun"
	WIN_NS=$((t1 - t0)) WIN_BUSY=$((t1 - t0 - (i1 - i0)))
}

# exact_fio CONFIG N FIO-ARGS...: the exact cost of one I/O of FIO-ARGS
# (reads, 4k), from a run of N I/Os and one of N/4, into EXACT_NS and
# EXACT_INSTR, and an "exact:" line for the log.
exact_fio() {
	local config=$1 n=$2 n0 ns0 busy0
	shift 2
	n0=$((n / 4))
	exact_window "$n0" "$@"
	ns0=$WIN_NS busy0=$WIN_BUSY
	exact_window "$n" "$@"
	EXACT_NS[$config]=$(awk -v a="$WIN_NS" -v b="$ns0" -v n="$((n - n0))" \
		'BEGIN { printf "%.0f", (a - b) / n }')
	EXACT_INSTR[$config]=$(awk -v a="$WIN_BUSY" -v b="$busy0" \
		-v n="$((n - n0))" 'BEGIN { printf "%.0f", (a - b) / n }')
	echo "exact: $config ns/io=${EXACT_NS[$config]}" \
		"instr/io=${EXACT_INSTR[$config]} ios=$n window_ns=$WIN_NS" \
		"busy_ns=$WIN_BUSY window0_ns=$ns0 busy0_ns=$busy0"
}

# exact_over A B: A's instructions per I/O less B's ("-" if either is
# missing).
exact_over() {
	local a=${EXACT_INSTR[$1]:-} b=${EXACT_INSTR[$2]:-}
	if [ -z "$a" ] || [ -z "$b" ]; then
		echo -
	else
		echo $((a - b))
	fi
}

# exact_share A B BASE: what A adds over BASE as a share of what B adds
# over BASE, in instructions per I/O, as "0.00x".
exact_share() {
	local a b
	a=$(exact_over "$1" "$3") b=$(exact_over "$2" "$3")
	awk -v a="$a" -v b="$b" \
		'BEGIN { if (a != "-" && b != "-" && b > 0) printf "%.2fx", a / b
			 else print "-" }'
}

# exact_table BASE CONFIGS...: a markdown table, a row per configuration:
# ns/IO, guest-time IOPS, instr/IO, the instructions it adds over BASE and
# its instructions as a ratio to BASE's.
exact_table() {
	local base=$1 c ns
	shift
	echo "| configuration | ns/IO | IOPS (guest time) | instr/IO | over $base | vs $base |"
	echo "|---|---:|---:|---:|---:|---:|"
	for c in "$@"; do
		ns=${EXACT_NS[$c]:-}
		[ -n "$ns" ] || continue
		printf '| %s | %s | %s | %s | %s | %s |\n' "$c" "$ns" \
			"$(awk -v ns="$ns" 'BEGIN { printf "%.0f", 1e9 / ns }')" \
			"${EXACT_INSTR[$c]}" "$(exact_over "$c" "$base")" \
			"$(awk -v a="${EXACT_INSTR[$c]}" \
				-v b="${EXACT_INSTR[$base]:-0}" \
				'BEGIN { if (b > 0) printf "%.3fx", a / b
					 else print "-" }')"
	done
}

# in_exact_time: true when this guest runs under QEMU's icount (vm.sh -e
# puts blkfast.exact=1 on its command line).
in_exact_time() {
	grep -qw blkfast.exact=1 /proc/cmdline
}

# Profiles in exact time: perf's cpu-clock event samples every
# EXACT_PERIOD ns of guest time, i.e. every EXACT_PERIOD instructions
# (idle time lands in the idle functions), so a symbol's samples times
# the period is the instructions it ran.  Sampling costs instructions of
# its own (an interrupt each), which a profiled run's total shows.  The
# sampling interrupt is a timer's, not an NMI (TCG has no PMU): what runs
# with interrupts off is charged to where they come back on
# (finish_task_switch for a context switch, a spin_unlock_irq*), and user
# space is one row, since perf in the guest cannot name fio's stripped
# functions reliably.
EXACT_PERIOD=${EXACT_PERIOD:-100000}
EXACT_PROF=/tmp/exact-prof

# exact_profile CONFIG N FIO-ARGS...: a run of N I/Os of FIO-ARGS under
# `perf record -a`; the samples of fio's window alone (perf's clock is
# the monotonic one the window's stamps read) go to $EXACT_PROF/CONFIG,
# a line per symbol: "INSTR/IO SYMBOL", most first.
exact_profile() {
	local config=$1 n=$2 pid t0 t1 f
	shift 2
	command -v perf >/dev/null ||
		fail "no perf in the guest (BLKFAST_VM_PROGS=/usr/bin/perf)"
	sysctl -qw kernel.kptr_restrict=0 kernel.perf_event_paranoid=-1
	mkdir -p "$EXACT_PROF"
	f=$EXACT_PROF/${config// /_}
	perf record -q -a -k CLOCK_MONOTONIC -e cpu-clock -c "$EXACT_PERIOD" \
		-o /tmp/exact.perf >/dev/null 2>&1 &
	pid=$!
	# perf's own start-up stays outside fio's window.
	sleep 1
	exact_window "$n" "$@"
	kill -INT $pid
	wait $pid || true
	read -r t0 _ </tmp/exact.pre
	read -r t1 _ </tmp/exact.post
	perf report -q -i /tmp/exact.perf --stdio --sort sym -n \
		--time "$(awk -v t="$t0" 'BEGIN { printf "%.9f", t / 1e9 }'),$(awk -v t="$t1" 'BEGIN { printf "%.9f", t / 1e9 }')" \
		2>/dev/null | awk -v p="$EXACT_PERIOD" -v n="$n" '
		$3 == "[.]" { user += $2 }
		$3 == "[k]" { s = $2; $1 = $2 = $3 = ""; sub(/^ +/, "")
			printf "%.0f %s\n", s * p / n, $0 }
		END { printf "%.0f (user space: fio, libc)\n", user * p / n }' |
		sort -rn >"$f"
	[ -s "$f" ] || fail "$config: perf recorded no samples in fio's window"
	echo "profile: $config $(awk '{ t += $1 } END { print t }' "$f") instr/IO sampled, window $((t1 - t0)) ns for $n I/Os"
}

# exact_profile_table CONFIG TOP: CONFIG's TOP symbols, instructions per
# I/O and share, as markdown.
exact_profile_table() {
	local f=$EXACT_PROF/${1// /_}
	echo "| symbol | instr/IO | share |"
	echo "|---|---:|---:|"
	awk -v top="$2" '{ v[NR] = $1; $1 = ""; s[NR] = substr($0, 2); t += v[NR] }
		END { for (i = 1; i <= NR && i <= top; i++)
			printf "| %s | %d | %.1f%% |\n", s[i], v[i], 100 * v[i] / t
		      printf "| (all %d symbols) | %d | 100%% |\n", NR, t }' "$f"
}

# exact_profile_diff CONFIG BASE TOP: the TOP symbols whose instructions
# per I/O grew most from BASE to CONFIG, and the TOP that shrank most.
exact_profile_diff() {
	local f=$EXACT_PROF/${1// /_} b=$EXACT_PROF/${2// /_}
	echo "| symbol | $2 | $1 | change |"
	echo "|---|---:|---:|---:|"
	awk -v top="$3" 'FNR == 1 { file++ }
		{ v = $1; $1 = ""; s = substr($0, 2); x[s, file] = v; seen[s] = 1 }
		END { for (s in seen) printf "%d\t%d\t%d\t%s\n",
			x[s, 2] - x[s, 1], x[s, 1], x[s, 2], s }' "$b" "$f" |
		sort -t "$(printf '\t')" -k1,1nr >/tmp/exact.diff
	awk -F '\t' -v top="$3" -v n="$(wc -l </tmp/exact.diff)" \
		'(NR <= top && $1 > 0) || (NR > n - top && $1 < 0) {
			printf "| %s | %d | %d | %+d |\n", $4, $2, $3, $1 }' \
		/tmp/exact.diff
}
