#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# baseline: the test runner's background build of the debug kernel
# tests/run -j 2 host vm debug against stubs (runner-pool's stub
# scripts/vm.sh, and a stub scripts/debug-kernel.sh that ticks into a
# file for 4 s of its own running time): the build starts before the host
# tests and ticks beside a shared one; it is stopped while a host-alone
# test and the vm-alone tests run (no tick inside them); the VM tier's
# shared tests start in the pool while it still runs; the debug tier's
# tests start only once it has ended.  Then, with a build that ends at
# once (a cached kernel), the debug tier's tests start the pool.
. "$(dirname "$0")/lib/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
runner_tree "$tmp" <<'EOF'
#!/bin/bash
fl=amd64
[ "$1" != -f ] || fl=$2
t=$fl/$(basename "${!#}" .sh)
log=$(dirname "$0")/../times
echo "start $t $(date +%s.%N)" >>"$log"
sleep 1
echo "end $t $(date +%s.%N)" >>"$log"
echo PASS
EOF
runner_stub_builds "$tmp"
# shellcheck disable=SC2016 # the stub's own variables
printf '%s\n' '#!/bin/bash' 'log=$(dirname "$0")/../times' \
	'echo "start build $(date +%s.%N)" >>"$log"' \
	'for i in $(seq ${STUB_TICKS:-40}); do' \
	'	echo "tick $(date +%s.%N)" >>"$log"; sleep 0.1' \
	'done' \
	'echo "end build $(date +%s.%N)" >>"$log"' \
	>"$tmp/scripts/debug-kernel.sh"
printf '#!/bin/bash\n# vm-alone: a timing relation\n' >"$tmp/tests/vm/a1.sh"
printf '#!/bin/bash\n' >"$tmp/tests/vm/s1.sh"
printf '#!/bin/bash\n' >"$tmp/tests/vm/s2.sh"
mkdir -p "$tmp/tests/host"
for t in hs ha; do
	{
		echo '#!/bin/bash'
		[ $t = hs ] || echo '# host-alone: a time limit'
		# shellcheck disable=SC2016 # the stub's own variables
		printf '%s\n' 'log=$(dirname "$0")/../../times' \
			"echo \"start host/$t \$(date +%s.%N)\" >>\"\$log\"" \
			'sleep 1' \
			"echo \"end host/$t \$(date +%s.%N)\" >>\"\$log\""
	} >"$tmp/tests/host/$t.sh"
done

out=$(cd "$tmp" && BLKFAST_CACHE=$tmp/cache tests/run -j 2 -l "$tmp/logs" \
	host vm debug 2>&1) || fail "tests/run -j 2 host vm debug: $out"
case $out in
*"8 passed, 0 failed"*) echo "ok: every test ran and passed" ;;
*) fail "expected 8 passed: $out" ;;
esac
case $out in
*"ok    debug/prepare"*) echo "ok: the debug tier's build was reported" ;;
*) fail "no 'ok    debug/prepare' line: $out" ;;
esac

verdict=$(awk '$1 == "start" { s[$2] = $3 } $1 == "end" { e[$2] = $3 }
	$1 == "tick" { tick[++n] = $2 }
	END {
		if (!("build" in e)) { print "the build never ended"; exit }
		for (i = 1; i <= n; i++) {
			if (tick[i] > s["host/hs"] && tick[i] < e["host/hs"])
				beside++
			# A tick written as the stop signal went out may
			# land just after the test began.
			for (t in s)
				if ((t == "host/ha" || t ~ /\/a1$/) &&
				    tick[i] > s[t] + 0.3 && tick[i] < e[t]) {
					print "the build ticked during " t; exit
				}
		}
		if (!beside) { print "the build never ticked beside host/hs"; exit }
		if (!(s["amd64/s1"] < e["build"] || s["amd64/s2"] < e["build"])) {
			print "the pool waited for the build"; exit
		}
		for (t in s)
			if (t ~ /^debug\// && s[t] < e["build"]) {
				print t " started before the build ended"; exit
			}
		print "ok"
	}' "$tmp/times")
[ "$verdict" = ok ] || fail "$verdict"
echo "ok: the build ran beside the shared host test, stopped during the alone ones, the pool did not wait for it, the debug tests did"

# A cached kernel: the build is over before the pool, whose first test
# is the debug tier's.
rm -f "$tmp/times"
out=$(cd "$tmp" && STUB_TICKS=1 BLKFAST_CACHE=$tmp/cache \
	tests/run -j 2 -l "$tmp/logs" vm debug 2>&1) ||
	fail "tests/run -j 2 vm debug: $out"
first=$(awk '$1 == "start" && $2 != "build" && $2 !~ /\/a1$/ { print $2; exit }' \
	"$tmp/times")
case $first in
debug/*) echo "ok: with the kernel ready, the pool began with $first" ;;
*) fail "with the kernel ready, the pool began with '$first'" ;;
esac
echo PASS
