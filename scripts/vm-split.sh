#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm-split.sh CONSOLE VMOUT VMRC OUTDIR N: judge each of the N tests that
# one boot ran (scripts/guest-group.sh; CONSOLE is the guest's whole
# console, from scripts/vm.sh -G -l; VMOUT and VMRC vm.sh's own output
# and exit code), as scripts/vm.sh judges a test alone.  For test I it
# writes OUTDIR/I.log (the test's output, and the verdict's evidence) and
# OUTDIR/I.verdict, one line:
#   RC SECONDS   the test ran: its exit code (1 for a splat or a hang in
#                its section), and its time in the guest
#   rerun WHY    it must run again in a boot of its own: it never started
#                (the group ended before it), or the boot failed in a way
#                that is no one test's (its own boot's log, kmemleak,
#                the time limit), or it skipped (exit 77: run again, as
#                tests/run does for a lone test), or its section (to
#                the console's end, if the guest died under it) holds
#                an emulator fault and no splat of ours (scripts/
#                config.sh: emulator_fault; OUTDIR/I.log.emufault keeps
#                its log).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/config.sh
. "$here/config.sh"
console=$1 vmout=$2 vmrc=$3 out=$4 n=$5
mkdir -p "$out"
tr -d '\r' <"$console" >"$out/console.lf"
c=$out/console.lf

# line_of PATTERN: the console's first line number matching PATTERN.
line_of() {
	grep -anF -m 1 "$1" "$c" | cut -d: -f1
}

# Why every test still to be judged runs again alone, if the boot as a
# whole went wrong: before the first test, after the last, or in vm.sh.
whole=
boot_at=$(line_of '@@BLKFAST-GROUP-BOOT@@')
first_at=$(line_of '@@BLKFAST-TEST-BEGIN 1 ')
if [ -z "$boot_at" ] || [ -z "$first_at" ]; then
	whole="the boot never reached the first test"
elif sed -n "${boot_at},${first_at}p" "$c" |
     grep -aEq "$BLKFAST_SPLAT_RE"; then
	whole="a splat in the boot, before the first test"
fi
if [ "$vmrc" = 2 ]; then
	whole="scripts/vm.sh could not run the group (exit 2)"
elif grep -aq '^vm.sh: FAIL: kmemleak' "$vmout"; then
	whole="kmemleak reports a leak of our modules in the boot"
elif grep -aq '^vm.sh: FAIL: guest still running after' "$vmout" &&
     ! grep -aq '@@BLKFAST-HANG@@' "$c"; then
	whole="the boot's time limit passed"
fi

# The tests' results, in order; after the last one that ended, the
# rest never started (or hung: below).
last_end=0
for i in $(seq "$n"); do
	log=$out/$i.log verdict=$out/$i.verdict
	b=$(line_of "@@BLKFAST-TEST-BEGIN $i ")
	if [ -z "$b" ]; then
		echo "rerun the boot it shared ended before it" >"$verdict"
		: >"$log"
		continue
	fi
	e=$(line_of "@@BLKFAST-TEST-END $i ")
	d=$(line_of "@@BLKFAST-TEST-DMESG $i@@")
	{
		echo "vm.sh: test $i of $n in one boot (scripts/guest-group.sh)"
		# Its output: up to its kernel log, or (hung) a few lines.
		if [ -n "$d" ]; then
			sed -n "$((b + 1)),$((d - 1))p" "$c"
		else
			sed -n "$((b + 1)),\$p" "$c" | sed '/@@BLKFAST-HANG@@/q' |
				head -n 200
		fi
	} >"$log"
	if [ -z "$e" ]; then
		# It started and never ended: it hung (the guest's report) or
		# the guest crashed under it.
		fault=
		if sed -n "$b,\$p" "$c" | grep -aq '@@BLKFAST-HANG@@'; then
			echo "vm.sh: FAIL: test still running near its limit (hang?)"
			echo "vm.sh: --- the guest's hang report ---"
			sed -n '/@@BLKFAST-HANG@@/,/@@BLKFAST-HANG-END@@/p' \
				"$c" | head -n 600
		else
			# A crash from the emulator: its splats from the
			# test's start to the console's end.
			sed -n "$b,\$p" "$c" >"$out/section"
			grep -anE "$BLKFAST_SPLAT_RE" "$out/section" \
				>"$out/splats" || true
			fault=$(emulator_fault "$out/splats" "$out/section") ||
				fault=
			if [ -n "$fault" ]; then
				echo "vm.sh: FAIL: emulator fault (script exit" \
					"code none): $fault"
			else
				echo "vm.sh: FAIL: guest never reported an exit" \
					"code (crash or panic)"
			fi
			echo "vm.sh: --- last 40 console lines ---"
			tail -n 40 "$c"
		fi >>"$log"
		if [ -n "$fault" ]; then
			# Its one run again is alone (tests/run: group_job).
			echo "rerun an emulator fault in the boot it shared" \
				>"$verdict"
			cp "$log" "$log.emufault"
		else
			echo "1 0" >"$verdict"
		fi
		last_end=$i
		continue
	fi
	read -r rc t1 <<<"$(sed -n "${e}s/^@@BLKFAST-TEST-END $i \([0-9]*\) \([0-9.]*\)@@.*/\1 \2/p" "$c")"
	t0=$(sed -n "${b}s/^@@BLKFAST-TEST-BEGIN $i \([0-9.]*\)@@.*/\1/p" "$c")
	secs=$(echo "$t1 - $t0" | bc)
	last_end=$i
	# The splats of its own kernel log, numbered as in the console.
	grep -anE "$BLKFAST_SPLAT_RE" "$c" |
		awk -F: -v d="$d" -v e="$e" '$1 >= d && $1 <= e' >"$out/splats"
	if [ -s "$out/splats" ]; then
		sed -n "${d},${e}p" "$c" >"$out/section"
		fault=$(emulator_fault "$out/splats" "$out/section") || fault=
		{
			splat_excerpt "$c" "$out/splats"
			if [ -n "$fault" ]; then
				echo "vm.sh: FAIL: emulator fault (script exit" \
					"code $rc): $fault"
			else
				echo "vm.sh: FAIL: kernel splat (script exit" \
					"code $rc)"
			fi
			echo "vm.sh: --- the test's kernel log ---"
			sed -n "$((d + 1)),$((e - 1))p" "$c" | tail -n 60
		} >>"$log"
		if [ -n "$fault" ]; then
			# Its one run again is alone (tests/run: group_job).
			echo "rerun an emulator fault in the boot it shared" \
				>"$verdict"
			cp "$log" "$log.emufault"
		else
			echo "1 $secs" >"$verdict"
		fi
	elif [ "$rc" = 77 ]; then
		echo "rerun it skipped at run time" >"$verdict"
		cp "$log" "$log.skipped"
	else
		echo "$rc $secs" >"$verdict"
		[ "$rc" = 0 ] || {
			echo "vm.sh: --- the test's kernel log ---"
			sed -n "$((d + 1)),$((e - 1))p" "$c" | tail -n 60
		} >>"$log"
	fi
	# The guest took down what this test left, and found it changed.
	if grep -aq "^@@BLKFAST-TEST-DIRTY $i@@" "$c"; then
		sed -n "/^@@BLKFAST-TEST-DIRTY $i@@/,\$p" "$c" | head -n 40 |
			sed 's/^/vm.sh: (the tests after it ran alone) /' >>"$log"
	fi
done

# A boot that went wrong as a whole: the tests that passed in it run
# again alone (a failure stands: it is that test's, whatever else the
# boot saw).
if [ -z "$whole" ] && [ "$last_end" -gt 0 ]; then
	end=$(line_of "@@BLKFAST-TEST-END $last_end ")
	if [ -n "$end" ] && sed -n "$((end + 1)),\$p" "$c" |
	   grep -aEq "$BLKFAST_SPLAT_RE"; then
		whole="a splat after the last test (kmemleak's scans, clean-up)"
	fi
fi
if [ -n "$whole" ]; then
	for i in $(seq "$n"); do
		read -r rc _ <"$out/$i.verdict"
		[ "$rc" = 0 ] || continue
		echo "rerun $whole" >"$out/$i.verdict"
	done
fi
exit 0
