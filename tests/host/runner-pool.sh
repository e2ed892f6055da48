#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# baseline: the test runner's pool of guests
# tests/run -j 2 against stub VM tests (a stub scripts/vm.sh in a scratch
# tree that notes when each test starts and ends): a test whose header
# says `# vm-alone:` runs with no other guest beside it, before the
# others; the others run two at a time; every test runs once and passes.
. "$(dirname "$0")/lib/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
runner_tree "$tmp" <<'EOF'
#!/bin/bash
t=$(basename "${!#}" .sh)
log=$(dirname "$0")/../times
echo "start $t $(date +%s.%N)" >>"$log"
sleep 1
echo "end $t $(date +%s.%N)" >>"$log"
echo PASS
EOF
for t in a1 a2; do
	printf '#!/bin/bash\n# vm-alone: a timing relation\n' >"$tmp/tests/vm/$t.sh"
done
for t in s1 s2 s3 s4; do
	printf '#!/bin/bash\n' >"$tmp/tests/vm/$t.sh"
done

out=$(cd "$tmp" && BLKFAST_CACHE=$tmp/cache tests/run -j 2 -l "$tmp/logs" vm 2>&1) ||
	fail "tests/run -j 2 vm: $out"
case $out in
*"6 passed, 0 failed"*) echo "ok: every test ran and passed" ;;
*) fail "expected 6 passed: $out" ;;
esac

# Each test's interval, then what overlapped what.
verdict=$(awk '$1 == "start" { s[$2] = $3 } $1 == "end" { e[$2] = $3 }
	END {
		for (a in s) {
			n++
			if (a ~ /^s/ && (first_shared == "" || s[a] < first_shared))
				first_shared = s[a]
		}
		if (n != 6) { print "ran " n " tests, not 6"; exit }
		for (a in s) for (b in s) {
			if (a >= b || !(s[a] < e[b] && s[b] < e[a]))
				continue
			if (a ~ /^a/ || b ~ /^a/) { print a " ran beside " b; exit }
			shared++
		}
		for (a in s)
			if (a ~ /^a/ && e[a] > first_shared) {
				print a " ended after a shared test started"; exit
			}
		if (!shared) { print "no two shared tests ran at once"; exit }
		print "ok"
	}' "$tmp/times")
[ "$verdict" = ok ] || fail "$verdict"
echo "ok: the vm-alone tests ran alone and first, the others two at a time"
echo PASS
