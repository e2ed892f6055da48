#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# baseline: the test runner's pool of guests
# tests/run -j 2 vm 6.12 against stub VM tests (a stub scripts/vm.sh in a
# scratch tree that notes when each test starts and ends, on which
# flavour, and stub builds): a test whose header says `# vm-alone:` runs
# with no other guest beside it, every tier's before any other test; the
# others run two at a time in one pool across the tiers (a test of one
# tier beside one of the other), with a host test that says
# '# host-pool:' among them; every test runs once and passes.
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
# One longer test staggers the pool's slots.
case $t in */s1) sleep 1.5 ;; *) sleep 1 ;; esac
echo "end $t $(date +%s.%N)" >>"$log"
echo PASS
EOF
# The 6.12 tier's kernel and modules, stubbed.
runner_stub_builds "$tmp"
for t in a1 a2; do
	printf '#!/bin/bash\n# vm-alone: a timing relation\n' >"$tmp/tests/vm/$t.sh"
done
for t in s1 s2 s3 s4; do
	printf '#!/bin/bash\n' >"$tmp/tests/vm/$t.sh"
done
for t in a2 s3 s4; do
	echo '# 6.12-tier: on both lines' >>"$tmp/tests/vm/$t.sh"
done
# A host test that says '# host-pool:' runs in the pool beside the guests.
mkdir -p "$tmp/tests/host"
cat >"$tmp/tests/host/shp.sh" <<'EOF'
#!/bin/bash
# host-pool: waits on purpose
log=$(dirname "$0")/../../times
echo "start host/shp $(date +%s.%N)" >>"$log"
sleep 1
echo "end host/shp $(date +%s.%N)" >>"$log"
EOF

out=$(cd "$tmp" && BLKFAST_CACHE=$tmp/cache tests/run -j 2 -l "$tmp/logs" \
	host vm 6.12 2>&1) || fail "tests/run -j 2 host vm 6.12: $out"
case $out in
*"10 passed, 0 failed"*) echo "ok: every test ran and passed" ;;
*) fail "expected 10 passed: $out" ;;
esac

# Each test's interval, then what overlapped what.
# Names are FLAVOUR/TEST; a test named a* is alone.
verdict=$(awk '$1 == "start" { s[$2] = $3 } $1 == "end" { e[$2] = $3 }
	END {
		for (a in s) {
			n++
			if (a ~ /\/s/ && (first_shared == "" || s[a] < first_shared))
				first_shared = s[a]
		}
		if (n != 10) { print "ran " n " tests, not 10"; exit }
		for (a in s) for (b in s) {
			if (a >= b || !(s[a] < e[b] && s[b] < e[a]))
				continue
			if (a ~ /\/a/ || b ~ /\/a/) { print a " ran beside " b; exit }
			shared++
			split(a, fa, "/"); split(b, fb, "/")
			if (fa[1] != fb[1] && fa[1] != "host" && fb[1] != "host")
				across++
			if (a == "host/shp" || b == "host/shp")
				hostpool++
		}
		for (a in s)
			if (a ~ /\/a/ && e[a] > first_shared) {
				print a " ended after a shared test started"; exit
			}
		if (!shared) { print "no two shared tests ran at once"; exit }
		if (!across) { print "no test of one tier ran beside one of the other"; exit }
		if (!hostpool) { print "the host-pool test ran beside no guest"; exit }
		print "ok"
	}' "$tmp/times")
[ "$verdict" = ok ] || fail "$verdict"
echo "ok: the vm-alone tests of both tiers ran alone and first, the others two at a time, across the tiers, the host-pool test among them"
echo PASS
