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
printf '#!/bin/bash\nexit 0\n' >"$tmp/scripts/deps.sh"
printf '#!/bin/bash\nexit 0\n' >"$tmp/scripts/debug-kernel.sh"
cat >"$tmp/scripts/flavour-modules.sh" <<'EOF2'
#!/bin/bash
mkdir -p "build/flavour-$1" && : >"build/flavour-$1/build.log"
EOF2
chmod +x "$tmp"/scripts/*.sh
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
has() {
	case $OUT in
	*"$1"*) echo "ok: $2" ;;
	*) fail "$2: expected '$1' in: $OUT" ;;
	esac
}
hasnt() {
	case $OUT in
	*"$1"*) fail "$2: unexpected '$1' in: $OUT" ;;
	*) echo "ok: $2" ;;
	esac
}

run_suite BLKFAST_VM_TIER=core BLKFAST_DEBUG_TIER=core -- vm 6.12 debug
has "SKIP  vm/dup " "core: a test of the debug core and the 6.12 tier skips vm/"
has "(core vm tier: runs on 6.1 in debug/ and on 6.12 in 6.12/" "saying where"
has "PASS  debug/dup" "it runs in the debug tier"
has "PASS  6.12/dup" "and in the 6.12 tier"
for t in timing full nodebug only61; do
	has "PASS  vm/$t " "core: vm/$t still runs"
done

run_suite BLKFAST_DEBUG_TIER=core -- vm 6.12 debug
has "PASS  vm/dup " "without BLKFAST_VM_TIER=core, vm/dup runs"

run_suite BLKFAST_VM_TIER=core BLKFAST_DEBUG_TIER=core -- vm 6.12
has "PASS  vm/dup " "without the debug tier in the run, vm/dup runs"

run_suite BLKFAST_VM_TIER=core BLKFAST_DEBUG_TIER=core -- -k vm/dup vm 6.12 debug
has "PASS  vm/dup " "filtered to vm/dup alone, it runs"
hasnt "debug/dup" "and nothing else does"
echo PASS
