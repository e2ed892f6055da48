# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Shared settings for the blkfast scripts; sourced, not run.

# Debian 12's kernel ABI and the flavour booted by default: amd64,
# cloud-amd64 or rt-amd64 (PREEMPT_RT).  `make check FLAVOUR=rt-amd64`
# reaches here through make's export of command-line variables.
KABI=6.1.0-57
BLKFAST_DEFAULT_FLAVOUR=amd64
# Debian's flavours, each with a headers package; and what a guest may boot:
# those, plus "debug", built here from the same source with lockdep, KFENCE,
# kmemleak and fault injection (scripts/debug-kernel.sh).
BLKFAST_FLAVOURS="amd64 cloud-amd64 rt-amd64"
# Debian's 6.12 line (Debian 12's bookworm-security, Debian 13), booted
# as the guest flavours "6.12-amd64" and "6.12-rt-amd64" (PREEMPT_RT):
# their image and headers packages at this version, unpacked into the
# cache (the headers package would install the kernel on the host), and
# linux-source-6.12 at the same.
KABI_612=6.12.118+deb12
# shellcheck disable=SC2034 # for scripts/deps.sh, which sources this
KPKG_612=6.12.118-1~deb12u1
BLKFAST_GUEST_FLAVOURS="$BLKFAST_FLAVOURS debug 6.12-amd64 6.12-rt-amd64"
BLKFAST_FLAVOUR=${BLKFAST_FLAVOUR:-${FLAVOUR:-$BLKFAST_DEFAULT_FLAVOUR}}
case " $BLKFAST_GUEST_FLAVOURS " in
*" $BLKFAST_FLAVOUR "*) ;;
*) echo "blkfast: unknown kernel flavour '$BLKFAST_FLAVOUR'" \
	"(one of: $BLKFAST_GUEST_FLAVOURS)" >&2; exit 2 ;;
esac
KSRC_TARBALL=${KSRC_TARBALL:-/usr/src/linux-source-6.1.tar.xz}

# Downloads and generated images live outside the checkout so that a fresh
# clone on the same machine reuses them.
BLKFAST_CACHE=${BLKFAST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/blkfast}
mkdir -p "$BLKFAST_CACHE"

guest_kver() {
	case $1 in
	6.12-*) echo "$KABI_612-${1#6.12-}" ;;
	*) echo "$KABI-$1" ;;
	esac
}

guest_kernel_dir() {
	echo "$BLKFAST_CACHE/linux-image-$(guest_kver "$1")"
}

# guest_series FLAVOUR: the kernel line, 6.1 or 6.12.
guest_series() {
	case $1 in
	6.12-*) echo 6.12 ;;
	*) echo 6.1 ;;
	esac
}

# The tree that modules for a guest flavour build against: Debian's headers
# package (installed for 6.1, unpacked into the cache for 6.12), or the
# debug kernel's own build tree.
guest_kdir() {
	case $1 in
	debug) echo "$(guest_kernel_dir debug)/build" ;;
	6.12-*) echo "$BLKFAST_CACHE/linux-headers-$(guest_kver "$1")/usr/src/linux-headers-$(guest_kver "$1")" ;;
	*) echo "/usr/src/linux-headers-$KABI-$1" ;;
	esac
}

# What a guest kernel must never print (scripts/vm.sh, the Debian system
# test): Debian's kernel prints few of these; the debug kernel adds
# lockdep, KFENCE, SLUB, DEBUG_OBJECTS and atomic-sleep reports.  SLUB's
# own reports (slub_debug) read "BUG kmalloc-64 (Tainted: ...): Poison
# overwritten", "... Object already free", "... Left Redzone overwritten".
BLKFAST_SPLAT_RE='WARNING:|BUG:|Oops|kernel BUG at|general protection fault|soft lockup|hard LOCKUP|blocked for more than|rcu: INFO|self-detected stall|detected stalls|sleeping function called from invalid context|Voluntary context switch within RCU read-side critical section|Call Trace:|Kernel panic'
BLKFAST_SPLAT_RE+='|possible circular locking dependency|inconsistent lock state|possible recursive locking|suspicious RCU usage|lock held when returning to user space|KASAN:|KFENCE:|ODEBUG:'
BLKFAST_SPLAT_RE+='|BUG [^ ]+ \((Not tainted|Tainted)'

# splat_excerpt CONSOLE SPLATS: the first splat in CONSOLE in context
# (what printed a bare "Call Trace:" sits in the lines above it, the top
# of its stack below), then the other kinds of line matched; SPLATS is
# `grep -n` of BLKFAST_SPLAT_RE in CONSOLE.  scripts/vm.sh's evidence for
# a lone test, scripts/vm-split.sh's for each test of a shared boot.
splat_excerpt() {
	local first
	first=$(head -n 1 "$2" | cut -d: -f1)
	echo "vm.sh: guest kernel log has a splat; the first, at line $first:"
	sed -n "$((first > 4 ? first - 4 : 1)),$((first + 10))p" "$1"
	echo "vm.sh: every line matched (Call Trace lines left out):"
	grep -v ':\[ *[0-9.]*\] *Call Trace:' "$2" | head -n 12
}

# A crash that only the emulator causes: a vCPU stopped at a breakpoint
# that the kernel put in its own text while patching it (a static key or
# static call flipped by a tracepoint, a kprobe placed or taken out), in
# an Oops on int3 or stuck there while the patching CPU waits for it.
# The x86 kernel handles such a breakpoint in poke_int3_handler() until
# the patch is done and every CPU has synchronised; multi-threaded TCG
# (QEMU 7.2) can run a vCPU on code another vCPU rewrites, and it then
# hits a breakpoint the kernel no longer knows of.  Seen with no module
# of ours loaded: a 6.12 boot's int3 Oops in sched_clock_cpu (scripts/
# vm.sh boots again for it), and in tests: vm/sd-zoned's RCU stall with
# one vCPU at asm_exc_int3 in __schedule and the other in text_poke_bp
# (stop 61's clean-clone run).  Such a run is run again (tests/run:
# run_retrying), once.  A soft lockup in text_poke_bp's IPI with no vCPU
# seen at a breakpoint (rt/pdm-sweep-contend, stop 60) is not taken for
# one: a CPU of ours spinning would look the same.
# A splat line of ours (a WARN or BUG in a file or module of ours) is
# ours to explain, whatever is beside it.
BLKFAST_OURS_RE=' at (poll|sched|tests)/|\[(pdm|split_deadline|blkfast_[a-z_]+)\]'

# emulator_fault SPLATS LOG: true when LOG (the kernel log of the run,
# or of the test's part of a shared boot) shows a vCPU at a breakpoint of
# text patching (an Oops on int3, or asm_exc_int3 with text_poke_bp in
# the same log) and no line of SPLATS (grep -n of BLKFAST_SPLAT_RE in
# it) is in our code; prints the first splat and what was patched.
emulator_fault() {
	local first
	grep -aqE 'Oops: int3' "$2" ||
		{ grep -aq 'asm_exc_int3' "$2" && grep -aq 'text_poke_bp' "$2"; } ||
		return 1
	! grep -aqE "$BLKFAST_OURS_RE" "$1" || return 1
	first=$(head -n 1 "$1")
	echo "${first#*:} (a vCPU at a breakpoint of the kernel's own text patching)"
}

# qemu_accel EXACT: QEMU's accelerator and CPU arguments, one per line.
# EXACT=1 is exact time (scripts/vm.sh -e): single-threaded TCG with
# icount, whatever BLKFAST_ACCEL says.  Otherwise BLKFAST_ACCEL: "tcg"
# (the default: software emulation, which every test is written for) or
# "kvm" (-cpu host, for a machine with real KVM; refused when
# BLKFAST_KVM_DEV, default /dev/kvm, cannot be opened).  Not automatic:
# a nested /dev/kvm can be slower than TCG (seen on this project's
# machines: a boot several times slower).
qemu_accel() {
	local kvm=${BLKFAST_KVM_DEV:-/dev/kvm}
	if [ "$1" = 1 ]; then
		printf '%s\n' -accel tcg,thread=single,tb-size=256 \
			-icount shift=0,sleep=off -cpu max,la57=off
		return 0
	fi
	case ${BLKFAST_ACCEL:-tcg} in
	tcg)
		printf '%s\n' -accel tcg,thread=multi,tb-size=256 \
			-cpu max,la57=off ;;
	kvm)
		if [ ! -r "$kvm" ] || [ ! -w "$kvm" ]; then
			echo "blkfast: BLKFAST_ACCEL=kvm, but $kvm cannot be opened read-write" >&2
			return 1
		fi
		printf '%s\n' -accel kvm -cpu host ;;
	*)
		echo "blkfast: unknown BLKFAST_ACCEL '${BLKFAST_ACCEL}' (tcg or kvm)" >&2
		return 1 ;;
	esac
}

# qemu_accel_name EXACT: what qemu_accel EXACT chose, in words.
qemu_accel_name() {
	if [ "$1" = 1 ]; then
		echo "TCG single-threaded, icount shift=0,sleep=off (exact time)"
	elif [ "${BLKFAST_ACCEL:-tcg}" = kvm ]; then
		echo "KVM, -cpu host"
	else
		echo "TCG multi-threaded"
	fi
}
