#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Both modules, and the test modules, build with no warning at all against
# the headers of every Debian 12 6.1 flavour: amd64, cloud-amd64 and
# rt-amd64 (PREEMPT_RT, where spinlock_t is a sleeping rt_mutex).
#
# kbuild's M= builds write their objects next to the sources, so each flavour
# builds in its own copy, build/flavour-FLAVOUR/, and the tree's own objects
# (and anyone building there) are left alone.  The .ko files stay there: a
# VM run on another flavour takes them from that copy, e.g.
#   BLKFAST_KO_DIR=build/flavour-rt-amd64 tests/run -f rt-amd64 vm
# BLKFAST_BUILD_FLAVOURS="rt-amd64" builds a subset.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
# shellcheck source=scripts/config.sh
. scripts/config.sh

failed=()
for f in ${BLKFAST_BUILD_FLAVOURS:-$BLKFAST_FLAVOURS}; do
	kdir=$(guest_kdir "$f")
	if [ ! -f "$kdir/Makefile" ]; then
		echo "FAIL $f: no headers in $kdir (scripts/deps.sh installs" \
		     "linux-headers-$KABI-$f)"
		failed+=("$f")
		continue
	fi
	out=build/flavour-$f
	log=$out/build.log
	start=$SECONDS
	rc=0
	scripts/flavour-modules.sh "$f" KCFLAGS=-Werror || rc=$?
	# -Werror catches the compiler's warnings; this catches modpost's and
	# kbuild's own.
	nwarn=$(grep -ciE 'warning' "$log" || true)
	kos=$(cd "$out" && find sched poll -name '*.ko' | sort | tr '\n' ' ')
	if [ "$rc" -ne 0 ] || [ "$nwarn" -ne 0 ] ||
	   [ "$kos" != "poll/pdm.ko sched/split-deadline.ko " ]; then
		echo "FAIL $f: make exit $rc, $nwarn warning(s), built: ${kos:-none}"
		grep -iE -B2 -A4 'warning|error' "$log" | head -n 60 || tail -n 30 "$log"
		failed+=("$f")
		continue
	fi
	for ko in "$out"/sched/*.ko "$out"/poll/*.ko; do
		vm=$(modinfo -F vermagic "$ko")
		[ "${vm%% *}" = "$KABI-$f" ] || {
			echo "FAIL $f: $ko has vermagic '$vm'"
			failed+=("$f")
			continue 2
		}
	done
	echo "ok: $f: ${kos}0 warnings, $((SECONDS - start))s (in $out)"
done
[ ${#failed[@]} -eq 0 ] || { echo "failed flavours: ${failed[*]}"; exit 1; }
