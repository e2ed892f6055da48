#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# baseline: the test runner's core of the 6.1 tier
# tests/run against stub VM tests and stub builds: with
# BLKFAST_VM_TIER=core (make check), a test that the same run's debug tier
# runs in its core and the 6.12 tier runs too is skipped on Debian's 6.1
# (vm/), saying where it runs; a test that asserts timing (vm-alone), that
# the debug core leaves out (debug-tier: full, vm-skip-flavour: debug) or
# that has no 6.12-tier line still runs there; without the variable, or
# without the debug tier in the run, every test runs on vm/.
. "$(dirname "$0")/lib/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
runner_tree "$tmp" <<'EOF2'
#!/bin/bash
echo PASS
EOF2
runner_stub_builds "$tmp"
mk() {
	local name=$1
	shift
	{ echo '#!/bin/bash'; printf '%s\n' "$@"; } >"$tmp/tests/vm/$name.sh"
}
both='# 6.12-tier: on both lines'
mk dup "$both"
mk timing "$both" '# vm-alone: a timing relation'
mk full "$both" '# debug-tier: full not in the core'
mk nodebug "$both" '# vm-skip-flavour: debug not there'
mk only61

# run_suite ENV... -- KINDS...: tests/run in the scratch tree, with ENV
# only (make check exports both tier variables to this test too).
run_suite() {
	local envs=()
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	OUT=$(cd "$tmp" && env -u BLKFAST_VM_TIER -u BLKFAST_DEBUG_TIER \
		BLKFAST_CACHE="$tmp/cache" "${envs[@]}" \
		tests/run -l "$tmp/logs" "$@" 2>&1) ||
		fail "tests/run $*: $OUT"
}

run_suite BLKFAST_VM_TIER=core BLKFAST_DEBUG_TIER=core -- vm 6.12 debug
out_has "SKIP  vm/dup " "core: a test of the debug core and the 6.12 tier skips vm/"
out_has "(core vm tier: runs on 6.1 in debug/ and on 6.12 in 6.12/" "saying where"
out_has "PASS  debug/dup" "it runs in the debug tier"
out_has "PASS  6.12/dup" "and in the 6.12 tier"
for t in timing full nodebug only61; do
	out_has "PASS  vm/$t " "core: vm/$t still runs"
done

run_suite BLKFAST_DEBUG_TIER=core -- vm 6.12 debug
out_has "PASS  vm/dup " "without BLKFAST_VM_TIER=core, vm/dup runs"

run_suite BLKFAST_VM_TIER=core BLKFAST_DEBUG_TIER=core -- vm 6.12
out_has "PASS  vm/dup " "without the debug tier in the run, vm/dup runs"

run_suite BLKFAST_VM_TIER=core BLKFAST_DEBUG_TIER=core -- -k vm/dup vm 6.12 debug
out_has "PASS  vm/dup " "filtered to vm/dup alone, it runs"
out_hasnt "debug/dup" "and nothing else does"
echo PASS
