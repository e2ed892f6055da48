#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What the harness asks of QEMU and of a real machine, checked without
# either: scripts/config.sh's qemu_accel gives TCG by default, KVM with
# -cpu host only when BLKFAST_ACCEL=kvm and the device opens (a stand-in
# file here: this machine's /dev/kvm is never used), an error for a
# device that does not or an unknown accelerator, and exact time's
# single-threaded TCG with icount whatever BLKFAST_ACCEL says;
# scripts/vm.sh refuses exact time on more than one vCPU; and
# `scripts/bench.sh --host` refuses a kernel other than 6.1 or 6.12, and
# one without our modules, before it touches anything.
. "$(dirname "$0")/lib/lib.sh"
# shellcheck source=scripts/config.sh
. scripts/config.sh

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# accel_expect WANT_RC WANT_WORDS EXACT: qemu_accel EXACT's words on one
# line, or its error, and exit code.
accel_expect() {
	local out rc=0
	out=$(qemu_accel "$3" 2>&1) || rc=$?
	out=$(echo "$out" | paste -sd' ' -)
	[ "$rc" = "$1" ] ||
		fail "qemu_accel $3 (BLKFAST_ACCEL=${BLKFAST_ACCEL:-}): exit $rc, expected $1: $out"
	case $out in
	*"$2"*) echo "ok: BLKFAST_ACCEL=${BLKFAST_ACCEL:-} exact=$3 -> $out" ;;
	*) fail "qemu_accel $3 (BLKFAST_ACCEL=${BLKFAST_ACCEL:-}): '$out', expected '$2'" ;;
	esac
}

unset BLKFAST_ACCEL
export BLKFAST_KVM_DEV=$tmp/kvm
accel_expect 0 "-accel tcg,thread=multi,tb-size=256 -cpu max,la57=off" 0
accel_expect 0 "-accel tcg,thread=single,tb-size=256 -icount shift=0,sleep=off -cpu max,la57=off" 1
export BLKFAST_ACCEL=kvm
accel_expect 1 "$tmp/kvm cannot be opened read-write" 0
: >"$tmp/kvm"
accel_expect 0 "-accel kvm -cpu host" 0
# Exact time is TCG's icount: KVM cannot count instructions.
accel_expect 0 "-icount shift=0,sleep=off" 1
[ "$(qemu_accel_name 0)" = "KVM, -cpu host" ] ||
	fail "qemu_accel_name says '$(qemu_accel_name 0)' for KVM"
export BLKFAST_ACCEL=hvf
accel_expect 1 "unknown BLKFAST_ACCEL 'hvf'" 0
unset BLKFAST_ACCEL BLKFAST_KVM_DEV

# shellcheck disable=SC2016 # the script's own expansions
echo '. "$(dirname "$0")/lib/lib.sh"; echo PASS' >"$tmp/never.sh"
vm_expect 2 "exact time (-e) runs one vCPU, not 2" -e -c 2 "$tmp/never.sh"

# bench_host_expect RELEASE WANT_TEXT: bench.sh --host on a machine
# running RELEASE refuses, saying WANT_TEXT.
bench_host_expect() {
	local out rc=0
	out=$(BLKFAST_HOST_RELEASE=$1 scripts/bench.sh --host --only=pdm 2>&1) ||
		rc=$?
	[ "$rc" = 2 ] || fail "bench.sh --host on $1: exit $rc, expected 2: $out"
	case $out in
	*"$2"*) echo "ok: bench.sh --host on $1 -> '$out'" ;;
	*) fail "bench.sh --host on $1: '$out', expected '$2'" ;;
	esac
}
bench_host_expect 6.10.0-1-amd64 \
	"needs Linux 6.1 or 6.12 (Debian 12, 13), this machine runs 6.10.0-1-amd64"
bench_host_expect 6.6.0-1-amd64 "needs Linux 6.1 or 6.12"
# No 6.12.0-0-none kernel has modules here either.
bench_host_expect 6.12.0-0-none "no module pdm for 6.12.0-0-none"
# No 6.1.0-0-none kernel has modules here.
bench_host_expect 6.1.0-0-none "no module pdm for 6.1.0-0-none"
echo PASS
