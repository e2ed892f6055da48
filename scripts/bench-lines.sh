#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench` on both kernel lines: the side-by-side report.
#
#   scripts/bench-lines.sh DIR LINE...
#
# DIR/LINE/ holds scripts/bench.sh's run on kernel line LINE (6.1, 6.12):
# its report.md and each part's log.  Writes DIR/report.md: every summary
# line the parts printed (the scheduler's headlines, the "- A/B: ratios"
# lines of the polling parts) in one table, a column per line, and then
# each line's whole report.  Every ratio was measured against that
# kernel's own reference in the same boot (mq-deadline, dm-linear, the
# raw device), so a row compares how far each kernel's blkfast is from
# its own kernel, not the kernels' speeds.
set -euo pipefail

dir=$1
shift
lines=("$@")
report=$dir/report.md

# summaries LOG: "KEY<tab>VALUE" for each summary line of one part's log
# ("Headline at ...: VALUE", "- KEY: VALUE"), KEY ending at the first
# ": " outside parentheses.
summaries() {
	awk '/^Headline at / || (/^- / && !/^- \*\*/) {
		line = $0; sub(/^- /, "", line)
		depth = 0
		for (i = 1; i < length(line); i++) {
			c = substr(line, i, 1)
			if (c == "(") depth++
			else if (c == ")") depth--
			else if (c == ":" && depth == 0 &&
				 substr(line, i + 1, 1) == " ") {
				print substr(line, 1, i - 1) "\t" \
					substr(line, i + 2)
				break
			}
		}
	}' "$1" 2>/dev/null || true
}

rc=0
{
	echo "# blkfast benchmark report: Linux ${lines[*]}"
	echo
	echo "Each line's boots ran one after the other on this host; within a"
	echo "boot, configurations were interleaved and repeated as"
	echo "scripts/bench.sh says.  Read each row across: a ratio to that"
	echo "kernel's own mq-deadline, dm-linear or raw device, never one"
	echo "kernel's IOPS against the other's."
	echo
	for k in "${lines[@]}"; do
		[ -f "$dir/$k/report.md" ] || {
			echo "**No report for $k** ($dir/$k/report.md)."
			rc=1
		}
		sed -n "s/^- Guest kernel: \\([^ ]*\\).*/- $k: \\1/p" \
			"$dir/$k/report.md" 2>/dev/null || true
	done
	echo
	echo "## Side by side"
	echo
	for k in "${lines[@]}"; do
		if grep -qs 'QUICK MODE' "$dir/$k/report.md"; then
			printf '**QUICK MODE: not a measurement.**\n\n'
			break
		fi
	done
	printf '| part | ratio |'
	printf ' %s |' "${lines[@]}"
	echo
	printf '|---|---|'
	printf -- '---|%.0s' "${lines[@]}"
	echo
	for log in $(cd "$dir/${lines[0]}" && ls sched-*cpu.log pdm.log \
		poll.log hybrid.log lat.log 2>/dev/null); do
		part=${log%.log}
		while IFS=$'\t' read -r key _; do
			printf '| %s | %s |' "$part" "$key"
			for k in "${lines[@]}"; do
				v=$(summaries "$dir/$k/$log" |
					awk -F'\t' -v k="$key" '$1 == k { print $2; exit }')
				printf ' %s |' "${v:-(none)}"
			done
			echo
		done < <(summaries "$dir/${lines[0]}/$log")
	done
	for k in "${lines[@]}"; do
		[ -f "$dir/$k/report.md" ] || continue
		echo
		echo "# Linux $k"
		# One level down, and the plots' paths from here.
		sed -e '1d' -e 's/^#/##/' -e "s|](\\([^)/]*\\.svg\\))|]($k/\\1)|" \
			"$dir/$k/report.md"
	done
} >"$report"
cat "$report"
echo "bench: report in $report" >&2
exit $rc
