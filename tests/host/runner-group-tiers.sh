#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# baseline: which tests the test runner boots together
# tests/run -j 2 vm debug against stub VM tests (a stub scripts/vm.sh in
# a scratch tree that notes each boot and, for a shared one, prints the
# markers scripts/guest-group.sh would, and stub builds): in the vm tier
# and in the debug tier (whose tests are all pooled, and whose options
# span two lines), the tests that ask for the same guest share one boot,
# up to the tier's cap (6; 4 on the debug kernel); a test with disks, or
# with a "# vm-own-boot:" line, boots alone; each passes, saying so.
. "$(dirname "$0")/lib/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
runner_tree "$tmp" <<'EOF'
#!/bin/bash
fl=amd64 log= group=0
while [ $# -gt 0 ]; do
	case $1 in
	-f) fl=$2; shift 2 ;;
	-l) log=$2; shift 2 ;;
	-a | -c | -m | -t | -d) shift 2 ;;
	-G) group=1; shift ;;
	*) break ;;
	esac
done
boots=$(dirname "$0")/../boots
if [ $group = 0 ]; then
	echo "$fl alone $(basename "$1" .sh)" >>"$boots"
	echo PASS
	exit 0
fi
shift
i=0
{
	echo "@@BLKFAST-GROUP-BOOT@@"
	for a; do
		i=$((i + 1))
		echo "@@BLKFAST-TEST-BEGIN $i 1.0@@ ${a%:*}"
		echo PASS
		echo "@@BLKFAST-TEST-DMESG $i@@"
		echo "@@BLKFAST-TEST-END $i 0 2.0@@"
	done
} >"$log"
echo "$fl group $#" >>"$boots"
EOF
cp scripts/vm-split.sh "$tmp/scripts/"
runner_stub_builds "$tmp"
for t in s1 s2 s3 s4 s5; do
	printf '#!/bin/bash\n# vm: -c 2\n' >"$tmp/tests/vm/$t.sh"
done
printf '#!/bin/bash\n# vm: -c 2 -t 600\n' >"$tmp/tests/vm/s6.sh"
printf '#!/bin/bash\n# vm: -c 2 -d 64M\n' >"$tmp/tests/vm/disk.sh"
printf '#!/bin/bash\n# vm: -c 2\n# vm-own-boot: its own\n' \
	>"$tmp/tests/vm/own.sh"
RC=0
OUT=$(cd "$tmp" && unset BLKFAST_VM_GROUP &&
	tests/run -j 2 -l "$tmp/logs" vm debug 2>&1) || RC=$?
[ "$RC" = 0 ] || fail "suite failed: $OUT"
boots=$(sort "$tmp/boots" | tr '\n' ',')
want="amd64 alone disk,amd64 alone own,amd64 group 6,debug alone disk,"
want+="debug alone own,debug group 2,debug group 4,"
[ "$boots" = "$want" ] || fail "boots: want $want, got $boots; $OUT"
echo "ok: boots $boots"
for t in s1 s6; do
	for p in vm debug; do
		echo "$OUT" | grep "^PASS  $p/$t " | grep -q "in a boot of" ||
			fail "$p/$t did not report its shared boot: $OUT"
	done
done
out_has "16 passed, 0 failed" "the closing line"
echo PASS
