# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Guest-side helpers for the benchmarks (sourced after lib.sh): run a
# configuration's fio job, keep every repeat's IOPS and CPU cost, print
# markdown tables of medians, spread and ratios.  Configurations are plain
# strings; repeats of all configurations are meant to be interleaved by
# the caller.

declare -A BENCH_IOPS BENCH_CPU BENCH_USR BENCH_SYS BENCH_EXTRA
# Every run is seconds long: one still going after 5 minutes lost an I/O,
# and fio_run dumps the block layer's state and fails the part, rather
# than leave the guest waiting for its boot's timeout (over an hour for
# the scheduler part).
FIO_WATCHDOG_S=${FIO_WATCHDOG_S:-300}

# bench_args "KEYS" ARGS...: a guest script's KEY=VALUE arguments, each
# into the variable named as its key in capitals: reps= (REPS, default 5)
# and secs= (SECS, default 2), and the keys the script lists in KEYS
# (space-separated; it sets their defaults first).  Anything else fails.
# shellcheck disable=SC2034 # read by the guest scripts that source this
REPS=5 SECS=2
bench_args() {
	local keys="reps secs $1" a k
	shift
	for a in "$@"; do
		k=${a%%=*}
		case " $keys " in
		*" $k "*) [ "$k" != "$a" ] || fail "argument '$a' has no value" ;;
		*) fail "unknown argument '$a'" ;;
		esac
		printf -v "${k^^}" '%s' "${a#*=}"
	done
}

# completed_by FIO-ARGS...: one short untimed fio run (4000 I/Os) of
# FIO-ARGS with kretprobes on null_blk's two asynchronous completion
# paths; sets BY to the lower requests completed per I/O from the hrtimer
# (interrupt) and by null_poll (polling), as "IRQ/POLL"; 0.00/0.00 is
# inline completion.
completed_by() {
	local n t p
	probe_sum_start cb_poll null_poll
	probe_sum_start cb_timer null_cmd_timer_expired
	fio_run check "$@" --number_ios=4000
	n=$(fio_ios 4096) t=$(probe_calls cb_timer) p=$(probe_sum cb_poll)
	probe_sum_stop cb_timer
	probe_sum_stop cb_poll
	# shellcheck disable=SC2034 # read by the guest scripts
	BY=$(awk -v t="$t" -v p="$p" -v n="$n" \
		'BEGIN { printf "%.2f/%.2f", t / n, p / n }')
}

# bench_fio CONFIG FIO-ARGS...: one repeat of CONFIG.  Records read IOPS
# and CPU microseconds per I/O, usr+sys and each apart.
bench_fio() {
	local config=$1 jobs=1 a io usr sys cpu
	shift
	for a in "$@"; do
		case $a in --numjobs=*) jobs=${a#*=} ;; esac
	done
	fio_run bench "$@" --group_reporting
	io=$(fio_field 8)
	[ "$io" -gt 0 ] || fail "$config: no I/O"
	read -r usr sys cpu <<<"$(fio_cpu_per_io "$jobs")"
	BENCH_IOPS[$config]+=" $io"
	BENCH_CPU[$config]+=" $cpu"
	BENCH_USR[$config]+=" $usr"
	BENCH_SYS[$config]+=" $sys"
	echo "run: $config iops=$io cpu_us/io=$cpu"
}

# bench_extra CONFIG VALUE: one repeat's value of a per-config extra
# column (e.g. lower polls per I/O).
bench_extra() {
	BENCH_EXTRA[$1]+=" $2"
}

# bench_per_io COUNT: COUNT (e.g. a counter's increase over the last
# bench_fio) per 4k I/O of that run, to two decimals.
bench_per_io() {
	awk -v p="$1" -v n="$(fio_ios 4096)" \
		'BEGIN { printf "%.2f", n ? p / n : 0 }'
}

# bench_median CONFIG: median IOPS of CONFIG.
bench_median() {
	median "${BENCH_IOPS[$1]}"
}

# ratio A B: A over B, as "0.00x" ("-" if B is 0 or missing).
ratio() {
	awk -v a="$1" -v b="$2" \
		'BEGIN { if (b > 0) printf "%.2fx", a / b; else print "-" }'
}

# minmax VALUES...: "LOW-HIGH" of VALUES (numbers, one or more per word).
minmax() {
	printf '%s\n' "$@" | tr -s ' ' '\n' | sort -n |
		awk 'NF { if (!n++) lo = $1; hi = $1 } END { print lo "-" hi }'
}

# quartiles VALUES...: "Q1 MEDIAN Q3" of VALUES (numbers, one or more per
# word), to three decimals.
quartiles() {
	printf '%s\n' "$@" | tr -s ' ' '\n' | sort -n | awk 'NF { v[++n] = $1 }
		END { printf "%.3f %.3f %.3f\n", v[int((n + 3) / 4)],
			v[int((n + 1) / 2)], v[int((3 * n + 3) / 4)] }'
}

# bench_ratio A B: median IOPS of A over that of B, as "0.00x".
bench_ratio() {
	ratio "$(bench_median "$1")" "$(bench_median "$2")"
}

# bench_table BASELINE EXTRA-TITLE CONFIGS...: a markdown table, one row
# per configuration: median IOPS, min-max, median CPU us/IO, ratio to
# BASELINE and, if EXTRA-TITLE is not empty, the median extra value.
bench_table() {
	local base=$1 xtitle=$2 c
	shift 2
	printf '| configuration | IOPS (median) | min-max | CPU us/IO | vs %s |' "$base"
	[ -n "$xtitle" ] && printf ' %s |' "$xtitle"
	printf '\n|---|---:|---:|---:|---:|'
	[ -n "$xtitle" ] && printf -- '---:|'
	printf '\n'
	for c in "$@"; do
		printf '| %s | %s | %s | %s | %s |' "$c" "$(bench_median "$c")" \
			"$(minmax "${BENCH_IOPS[$c]}")" \
			"$(median "${BENCH_CPU[$c]}")" "$(bench_ratio "$c" "$base")"
		[ -n "$xtitle" ] && printf ' %s |' "$(median "${BENCH_EXTRA[$c]}")"
		printf '\n'
	done
}

# bench_rotate N REP: the order of N configurations in repeat REP, rotated
# so that no configuration always runs first or last.
bench_rotate() {
	local n=$1 rep=$2 k
	for k in $(seq 0 $((n - 1))); do
		echo $(((k + rep - 1) % n))
	done
}

# perf_per_io DATA IOS TOP REGEX WHAT: the top TOP symbols of a `perf
# record -a -e cpu-clock -F 1000` profile in CPU microseconds per I/O (one
# sample is 1 ms of one CPU), then the busy total and the subtotal of the
# symbols REGEX matches (named WHAT).  Idle time (halt) is listed apart:
# under oversubscription the guest's vCPUs wait for the host there.
perf_per_io() {
	echo "CPU us/IO  symbol"
	perf report -q -i "$1" --stdio --sort sym -n 2>/dev/null |
		awk -v n="$2" -v top="$3" -v re="$4" -v what="$5" '$3 ~ /^\[/ {
			sub(/^ *[0-9.]+% +/, ""); c = $1; $1 = $2 = ""
			sub(/^ +/, ""); us = c * 1000 / n
			if ($0 ~ /safe_halt|default_idle|cpu_idle|do_idle/) {
				idle += us; next
			}
			busy += us
			if ($0 ~ re)
				sub_us += us
			if (++k <= top) printf "%9.2f  %s\n", us, $0
		}
		END { printf "%9.2f  (busy: all but idle)\n", busy
			printf "%9.2f  (of which %s)\n", sub_us, what
			printf "%9.2f  (idle)\n", idle }'
}

# pdm_ab_devices IRQMODE: the devices of the pdm A/B (bench/pdm-ab.sh) and
# its profile (bench/profile-pdm.sh): nullb0 for pdm and nullb1, the same,
# under the floor bfremap0 (tests/modules/blkfast-remap.c); a submit and
# a poll queue each, completions by null_blk's IRQMODE.
pdm_ab_devices() {
	nullb_load queue_mode=2 nr_devices=2 submit_queues=1 poll_queues=1 \
		irqmode="$1" completion_nsec=0 hw_queue_depth=256 gb=4
	run modprobe blkfast-remap lower=/dev/nullb1
	wait_for_block bfremap0
}

# pdm_ab_job QD JOBS HIPRI: their fio job, less its file and runtime, in
# PDM_AB_FIO: 4k random reads over io_uring at QD, in batches of QD/2, one
# job pinned to vCPU 1 or JOBS jobs one per vCPU; the batch in PDM_AB_BATCH.
pdm_ab_job() {
	local cpus=1
	[ "$2" = 1 ] || cpus=0-$(($2 - 1))
	PDM_AB_BATCH=$(($1 / 2))
	[ $PDM_AB_BATCH -ge 1 ] || PDM_AB_BATCH=1
	# shellcheck disable=SC2034 # read by the guest scripts
	PDM_AB_FIO=(--ioengine=io_uring --direct=1 --bs=4k --rw=randread
		--iodepth="$1" --iodepth_batch_submit="$PDM_AB_BATCH"
		--iodepth_batch_complete="$PDM_AB_BATCH" --hipri="$3"
		--numjobs="$2" --cpus_allowed="$cpus"
		--cpus_allowed_policy=split)
}
