#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot Debian's 6.1 kernel under QEMU (TCG) with the cached base initramfs
# plus an overlay holding our modules, tools and tests, run one test script
# inside, power off and return its exit code.  A run also fails when the
# guest kernel logged a WARN, BUG, Oops, lockup, stall or context splat, when
# the guest never reported back (crash, panic), or on timeout.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
# shellcheck source=scripts/config.sh
. "$here/config.sh"

usage() {
	cat <<USAGE
usage: scripts/vm.sh [options] SCRIPT [ARGS...]
  -c N        vCPUs (default 1)
  -m MB       guest memory (default 1024)
  -a ARGS     extra kernel command line arguments
  -d SIZE[,PROP=VALUE...]
              attach an emulated NVMe disk of SIZE (e.g. 256M), with QEMU
              nvme device properties (e.g. physical_block_size=4096);
              repeatable
  -q N        I/O queue pairs of each NVMe disk (default 4)
  -l FILE     keep the whole console log in FILE
  -s          stream the guest's output while it runs (make demo), instead
              of printing it when the guest is done
  -t SECS     kill the guest after SECS seconds (default 300; three times
              that on the debug kernel; never more than BLKFAST_VM_LIMIT_S,
              which tests/run sets from the suite's deadline)
  -f FLAVOUR  kernel flavour (default $BLKFAST_FLAVOUR; "debug" boots the
              debug kernel of scripts/debug-kernel.sh)
  -p          pin QEMU's vCPU threads to host CPUs (for benchmarks)
  -P          with -p, also pin QEMU's other threads (main loop, I/O
              workers) to the last host CPU (scripts/pin-vcpus.sh says why)
  -x DIR      copy DIR into the guest as /blkfast/extra (e.g. other builds
              of a module, for scripts/bench-pdm-ab.sh)
  -G          the script is scripts/guest-group.sh running several tests:
              their exit codes and splats are scripts/vm-split.sh's to
              judge, test by test; this run fails only on what is no
              test's (a hang past the limit, kmemleak, a boot that failed)
  -e          exact time: one vCPU under single-threaded TCG with
              -icount shift=0,sleep=off, so that guest time advances one
              nanosecond per guest instruction and an idle guest skips to
              its next timer (instruction counts, not wall-clock time)
\$BLKFAST_ACCEL: tcg (default) or kvm (-cpu host; a machine with real
KVM: a nested /dev/kvm can be slower than TCG, so it is never automatic).
SCRIPT runs in the guest with ARGS.  /blkfast holds tests/vm/ and
tests/pdm-tables/ as the checkout does, so a script there sources
\$(dirname "\$0")/lib/lib.sh (or ../lib/ from tests/vm/bench/) in both; a
SCRIPT from elsewhere runs as /blkfast/tests/vm/run.sh, beside the tests.
Our .ko files are in /lib/modules/<release>/extra, the tools on the PATH.
The .ko files come from sched/, poll/ and tests/modules/ under
\$BLKFAST_KO_DIR (default: this tree), and must be built for the flavour
booted (e.g. build/flavour-rt-amd64 from tests/host/flavours-build.sh).
\$BLKFAST_VM_PROGS: extra host programs (e.g. /usr/bin/perf) to copy into
the guest with their libraries, for a look inside by hand.
USAGE
}

# parse_args ARGS...: the options into their variables, SCRIPT and its
# arguments into script and script_args.
parse_args() {
	local opt OPTIND=1
	cpus=1 mem=1024 append='' timeout_s=300 log='' pin=0 qpairs=4 extra=''
	stream=0 pin_others='' flavour=$BLKFAST_FLAVOUR exact=0 group=0
	disks=()
	while getopts "c:m:a:d:q:l:t:f:x:pPseGh" opt; do
		parse_opt "$opt" "${OPTARG:-}"
	done
	shift $((OPTIND - 1))
	[ $# -ge 1 ] || { usage >&2; exit 2; }
	script=$1
	shift
	script_args=("$@")
}

parse_opt() {
	local opt=$1 OPTARG=$2
	case $opt in
	c) cpus=$OPTARG ;;
	m) mem=$OPTARG ;;
	a) append="$append $OPTARG" ;;
	d) disks+=("$OPTARG") ;;
	q) qpairs=$OPTARG ;;
	l) log=$OPTARG ;;
	t) timeout_s=$OPTARG ;;
	f) flavour=$OPTARG ;;
	p) pin=1 ;;
	s) stream=1 ;;
	P) pin_others=$(($(nproc) - 1)) ;;
	x) extra=$OPTARG ;;
	e) exact=1 ;;
	G) group=1 ;;
	h) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
}

parse_args "$@"
[ -f "$script" ] || { echo "vm.sh: no such script: $script" >&2; exit 2; }
# A test states the guest it needs in its header ("# vm: OPTIONS", as
# tests/README.md says): those options come first, then the command
# line's, so running a test here boots what tests/run boots for it.
header=$(sed -n 's/^# vm: //p' "$script" | head -n 1)
if [ -n "$header" ]; then
	# shellcheck disable=SC2086 # one word per option, as written
	parse_args $header "$@"
fi
set -- "${script_args[@]}"

kver=$(guest_kver "$flavour")
# The debug kernel's checks (lockdep, kmemleak, SLUB debugging) slow the
# guest several times over: its time limit is three times as long.
[ "$flavour" != debug ] || timeout_s=$((timeout_s * 3))
# tests/run's share of its deadline (see deadline_allows there).
if [ -n "${BLKFAST_VM_LIMIT_S:-}" ] && [ "$BLKFAST_VM_LIMIT_S" -lt "$timeout_s" ]
then
	echo "vm.sh: limit ${timeout_s}s cut to ${BLKFAST_VM_LIMIT_S}s by the suite's deadline"
	timeout_s=$BLKFAST_VM_LIMIT_S
fi
vmlinux=$(guest_kernel_dir "$flavour")/vmlinux
[ -s "$vmlinux" ] || "$here/deps.sh" --flavour "$flavour"
# Debian's kernels boot their uncompressed vmlinux through the PVH entry.
# The debug kernel boots its bzImage (LZ4, quick to unpack) through the
# normal entry: built with KASAN, as it once was, 6.1's PVH entry ran
# instrumented code (xen_prepare_pvh, memcmp) before the shadow existed.
[ ! -s "$(dirname "$vmlinux")/bzImage" ] ||
	vmlinux=$(dirname "$vmlinux")/bzImage
base=$("$here/initramfs-base.sh" "$flavour")

work=$(mktemp -d "${TMPDIR:-/tmp}/blkfast-vm.XXXXXX")
# shellcheck disable=SC2317 # run by the EXIT trap (shellcheck#2542)
cleanup() {
	[ -n "${qpid:-}" ] && kill "$qpid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

# The per-run overlay: same directory layout as the base archive.
ov=$work/overlay
mkdir -p "$ov/blkfast/bin" "$ov/lib/modules/$kver/extra"
install -m 755 "$here/guest-init.sh" "$ov/init"
install -m 755 "$here/guest-hang-report.sh" "$ov/blkfast/bin/guest-hang-report"
# What a splat looks like, for scripts/guest-group.sh.
printf '%s\n' "$BLKFAST_SPLAT_RE" >"$ov/blkfast/splat-re"
printf '%s\n' "$@" | sed 's/[^A-Za-z0-9_.,:=\/+-]/\\&/g' | tr '\n' ' ' \
	>"$ov/blkfast/args"
# The guest-side shell and the table corpus (one copy for the unit tests,
# the fuzzer and the guest), laid out as in the checkout.
mkdir -p "$ov/blkfast/tests"
cp -r "$top/tests/vm" "$top/tests/pdm-tables" "$ov/blkfast/tests/"
[ -z "$extra" ] || cp -r "$extra" "$ov/blkfast/extra"
abs=$(realpath "$script")
case $abs in
"$top"/tests/vm/*) echo "/blkfast/${abs#"$top"/}" >"$ov/blkfast/script" ;;
*)
	install -m 755 "$script" "$ov/blkfast/tests/vm/run.sh"
	echo /blkfast/tests/vm/run.sh >"$ov/blkfast/script"
	;;
esac
# Our modules, built against the headers of the flavour booted: a module
# from another flavour would only fail later, in modprobe, on its vermagic
# or symbol versions.
kodir=${BLKFAST_KO_DIR:-$top}
for ko in "$kodir"/sched/*.ko "$kodir"/poll/*.ko "$kodir"/tests/modules/*.ko; do
	[ -f "$ko" ] || continue
	vm=$(modinfo -F vermagic "$ko" 2>/dev/null) || vm=
	if [ "${vm%% *}" != "$kver" ]; then
		echo "vm.sh: $ko is built for '${vm%% *}', the guest boots $kver:" \
		     "rebuild it against /usr/src/linux-headers-$kver" \
		     "(or set BLKFAST_KO_DIR)" >&2
		exit 2
	fi
	cp "$ko" "$ov/lib/modules/$kver/extra/"
done
for t in "$top"/tools/*; do
	[ -f "$t" ] && [ -x "$t" ] && cp "$t" "$ov/blkfast/bin/"
done
for p in ${BLKFAST_VM_PROGS:-}; do
	cp "$p" "$ov/blkfast/bin/"
	ldd "$p" | awk '/=> \//{print $3}' | while read -r lib; do
		mkdir -p "$ov$(dirname "$lib")"
		cp -Ln "$lib" "$ov$lib"
	done
done
# Regenerate the module indexes over base + extra so that aliases of our
# modules (split-deadline-iosched) autoload in the guest.
idx=$work/idx
mkdir -p "$idx/lib/modules/$kver/extra"
(cd "$idx" && cpio --quiet -id "lib/modules/$kver/*" <"$base")
cp "$ov/lib/modules/$kver/extra/"*.ko "$idx/lib/modules/$kver/extra/" \
	2>/dev/null || true
depmod -b "$idx" "$kver"
cp "$idx/lib/modules/$kver"/modules.* "$ov/lib/modules/$kver/"
(cd "$ov" && find . -mindepth 1 | LC_ALL=C sort |
	cpio --quiet -o -H newc -R 0:0 | gzip -1) >"$work/overlay.cpio.gz"
cat "$base" "$work/overlay.cpio.gz" >"$work/initrd"

# Stall detectors sized for TCG on a busy 2-core host.  There a vCPU, or
# the rcu_preempt kthread on it, can go unscheduled for 10-20 s of real
# time while the guest clock runs on (seen: the default 21 s RCU stall
# timeout firing in a passing test while the host ran other VMs).  60 s
# for an RCU CPU stall and for a soft lockup (2 x watchdog_thresh) leaves
# three times that margin, and still catches a real stall: code that holds
# a CPU or an RCU read-side section that long is broken on any machine.
# tests/host/harness-stall.sh proves both sides: a 25 s stall passes, one
# past the threshold fails the run.
stall_args="rcupdate.rcu_cpu_stall_timeout=60 watchdog_thresh=30"
# A stall, a soft lockup or a hung task panics the guest, and the panic
# replays the whole kernel log, stack dumps included, onto the console
# (panic_print 0x20; loglevel=4 keeps them off it otherwise) and dumps
# every CPU's stack (0x40), the one a stalled CPU waits on among them:
# such a run fails at once, saying where it was stuck, instead of when its
# time limit kills a guest that reported nothing.
stall_args+=" softlockup_panic=1 sysctl.kernel.panic_on_rcu_stall=1"
stall_args+=" sysctl.kernel.hung_task_panic=1 panic_print=0x60"
# A hang that no detector sees (a killable wait, a polling loop) leaves
# evidence all the same: shortly before the time limit the guest itself
# prints the blocked tasks, every CPU's stack and the end of its kernel
# log (scripts/guest-init.sh); the time is the guest's, so a host slower
# than the guest thinks is at worst early, never late.
stall_args+=" blkfast.timeout=$timeout_s"
# The debug kernel's memory-error detection (scripts/debug-kernel.sh says
# why KFENCE, not KASAN): KFENCE guards one allocation every
# kfence.sample_interval ms with guard pages, and SLUB checks every slab
# object: red zones, poison after free, sanity checks on free, and who
# allocated and freed it for the report (slub_debug=FZPU); freed pages are
# zeroed (init_on_free=1; slab objects get SLUB's poison instead), so a
# use after free reads zeros or poison, not stale data.
# A test that sets slub_debug itself (pdm-forward) keeps its own.
if [ "$flavour" = debug ]; then
	case $append in
	*slub_debug=*) ;;
	*) stall_args+=" slub_debug=FZPU" ;;
	esac
	stall_args+=" init_on_free=1"
fi
# The accelerator (scripts/config.sh's qemu_accel): TCG by default, KVM
# with BLKFAST_ACCEL=kvm; -cpu max without 5-level paging under TCG
# (la57=off): with it, an interrupt that lands while 6.1's
# identify_cpu() has cleared the boot CPU's feature bits makes KASAN take
# a direct-map address for a wild one (seen on the debug kernel: "KASAN:
# wild-memory-access in do_raw_spin_lock" from handle_edge_irq at 0.005
# s).  No test needs 5-level paging.
# Exact time (-e): QEMU's icount makes guest time an instruction count
# (shift=0: one ns per instruction) and, with sleep=off, skips an idle
# guest's wait to its next timer instead of sleeping it in real time.  It
# needs single-threaded TCG, and one vCPU: two under icount hung at boot
# here, and turns taken by one host thread measure no contention anyway.
if [ "$exact" = 1 ]; then
	[ "$cpus" = 1 ] || {
		echo "vm.sh: exact time (-e) runs one vCPU, not $cpus" >&2
		exit 2
	}
	append="$append blkfast.exact=1"
fi
accel_args=$(qemu_accel "$exact") || exit 2
mapfile -t accel <<<"$accel_args"
echo "vm.sh: accelerator: $(qemu_accel_name "$exact")" >&2
qemu=(qemu-system-x86_64 "${accel[@]}"
      -name "blkfast,debug-threads=on"
      -smp "$cpus" -m "$mem" -nographic -nodefaults -serial stdio
      -no-reboot -device "isa-debug-exit,iobase=0xf4,iosize=0x04"
      -kernel "$vmlinux" -initrd "$work/initrd"
      -monitor "pipe:$work/mon")
# Boot-time self-tests, and set-up that no guest uses, are skipped: under
# emulation they were half of 6.12's boot (initcall_debug: 7.4 s to the
# test before, 3.6 s after; 6.1 4.1 s to 3.1, the debug kernel 13.2 to
# 10.4).  cryptomgr.notests: the crypto API's self-test of each algorithm
# at its first use (1-2 s of hmac and sha on every kernel).  Blacklisted
# initcalls: the SP800-108 KDF's own self-test, the "encrypted" key type's
# hash set-up, and 6.12's BPF TCP congestion-control kfuncs and dummy
# struct_ops.  A name a kernel lacks is ignored.
skip_boot="cryptomgr.notests=1 initcall_blacklist=crypto_kdf108_init"
skip_boot+=",init_encrypted,bpf_tcp_ca_kfunc_init,bpf_dummy_struct_ops_init"
cmdline="console=ttyS0 quiet loglevel=4 panic=-1 oops=panic tsc=reliable no_timer_check $skip_boot $stall_args$append"
i=0
for d in "${disks[@]}"; do
	# SIZE[,PROP=VALUE...]: the rest goes to the nvme device
	props=''
	[ "$d" = "${d#*,}" ] || props=,${d#*,}
	truncate -s "${d%%,*}" "$work/disk$i.img"
	qemu+=(-drive "file=$work/disk$i.img,if=none,id=d$i,format=raw,cache=unsafe"
	       -device "nvme,serial=blkfast$i,drive=d$i,max_ioqpairs=$qpairs$props")
	i=$((i + 1))
done

console=$work/console.log
start=$(date +%s.%N)
# The test's own output: the console up to the kernel log dump.
test_output() {
	sed -u -n -e '/@@BLKFAST-DMESG-BEGIN@@/q' -e '/SeaBIOS/d' \
		-e 's/^.*Booting from ROM\.\.//' -e p
}

# boot [APPEND]: start QEMU on a fresh console log, the kernel command
# line with APPEND added (the test-only switch below).
boot() {
	: >"$console"
	rm -f "$work/mon.in" "$work/mon.out"
	mkfifo "$work/mon.in" "$work/mon.out"
	"${qemu[@]}" -append "$cmdline${1:-}" </dev/null >"$console" 2>&1 &
	qpid=$!
	tpid=''
	if [ "$stream" = 1 ]; then
		tail -n +1 -f --pid="$qpid" "$console" | test_output &
		tpid=$!
	fi
	[ "$pin" = 1 ] || return 0
	local why
	# Say whether the pinning took: scripts/bench.sh reports it per table.
	if why=$("$here/pin-vcpus.sh" "$qpid" "$cpus" ${pin_others:+"$pin_others"} 2>&1); then
		echo "vm.sh: pinned $cpus vCPUs${why:+ ($why)}" >&2
	else
		why=${why:-pin-vcpus.sh failed, saying nothing}
		echo "vm.sh: pinning FAILED: ${why//$'\n'/; }" >&2
	fi
}

# A boot that never reaches the test: it hangs, or its kernel crashes in
# its own boot.  Seen in CI: a 4-vCPU guest that printed nothing after
# the firmware for the whole 300 s of its limit, where every other boot
# reaches the test in under 30 s of guest time (the debug kernel's
# included); and here, once in some 30 boots of Debian's 6.12 under
# multi-threaded TCG, an int3 Oops in enqueue_timer at 1.3 s, as the
# kernel patched its own text.  No module of ours is loaded before the
# test starts, so such a boot says nothing about our code, and the run
# boots once more rather than fail; the first boot's console and, for a
# hang, each vCPU's registers (halted or spinning, and where) go to the
# log.  BLKFAST_BOOT_S sets the wait (tests/host/harness-boot.sh
# shortens it).
boot_s=${BLKFAST_BOOT_S:-120}
[ "$flavour" != debug ] || boot_s=$((boot_s * 2))

# wait_guest LIMIT: 0 once QEMU has ended after the guest's start
# marker; 1 when LIMIT seconds passed first; 2 when boot_s passed before
# the marker; 3 when QEMU ended before it.
wait_guest() {
	local end=$((SECONDS + $1)) boot_end=$((SECONDS + boot_s)) started=0
	while kill -0 "$qpid" 2>/dev/null; do
		[ $SECONDS -lt $end ] || return 1
		if [ $started = 0 ]; then
			if grep -aq '@@BLKFAST-START@@' "$console"; then
				started=1
			elif [ $SECONDS -ge $boot_end ]; then
				return 2
			fi
		fi
		sleep 0.2
	done
	grep -aq '@@BLKFAST-START@@' "$console" || return 3
}

# boot_failed N ENDED: say how boot N failed to reach the test.
boot_failed() {
	if [ "$2" = 2 ]; then
		echo "vm.sh: boot $1 never reached the test in ${boot_s}s;" \
			"its vCPUs:" >&2
		vcpu_registers >&2
	else
		echo "vm.sh: boot $1 ended before the test (its kernel" \
			"crashed in its own boot?)" >&2
	fi
}

# vcpu_registers: where each vCPU is, from QEMU's monitor.
vcpu_registers() {
	echo "info registers -a" >"$work/mon.in"
	timeout 3 cat "$work/mon.out" | tr -d '\r' |
		grep -aE '^CPU#|^[ER]IP=|HLT=' | sed 's/^/vm.sh:   /' || true
}

stop_qemu() {
	kill "$qpid" 2>/dev/null || true
	sleep 0.5
	kill -9 "$qpid" 2>/dev/null || true
}

limit_s=$timeout_s
boot "${BLKFAST_TEST_BOOT_HANG:+ blkfast.test_boot_hang=$BLKFAST_TEST_BOOT_HANG}"
wait_guest "$limit_s" && ended=0 || ended=$?
if [ "$ended" = 2 ] || [ "$ended" = 3 ]; then
	boot_failed 1 "$ended"
	stop_qemu
	wait "$qpid" 2>/dev/null || true
	[ -z "$tpid" ] || wait "$tpid" 2>/dev/null || true
	mv "$console" "$work/console.boot1"
	echo "vm.sh: --- last 10 console lines of boot 1 ---" >&2
	tail -n 10 "$work/console.boot1" >&2
	# The second boot has the test's whole limit (the guest's own hang
	# report counts on it), less what the suite's deadline no longer
	# allows: tests/run's BLKFAST_VM_LIMIT_S counts from when this
	# script started.
	if [ -n "${BLKFAST_VM_LIMIT_S:-}" ]; then
		left=$((BLKFAST_VM_LIMIT_S - SECONDS))
		[ "$left" -ge "$limit_s" ] || limit_s=$left
	fi
	[ "$limit_s" -ge "$boot_s" ] || {
		echo "vm.sh: FAIL: guest never reached the test, and" \
			"${limit_s}s left is too little to boot again" >&2
		exit 1
	}
	echo "vm.sh: booting again, limit ${limit_s}s" >&2
	boot
	wait_guest "$limit_s" && ended=0 || ended=$?
	case $ended in 2 | 3) boot_failed 2 "$ended" ;; esac
fi
[ "$ended" = 0 ] || stop_qemu
wait "$qpid" 2>/dev/null || true
qpid=
wall=$(echo "$(date +%s.%N) - $start" | bc)
if [ -n "$log" ]; then
	{
		if [ -f "$work/console.boot1" ]; then
			cat "$work/console.boot1"
			echo "@@BLKFAST-BOOT1-END@@ (vm.sh booted again)"
		fi
		cat "$console"
	} >"$log"
fi
if [ -n "$tpid" ]; then
	wait "$tpid" 2>/dev/null || true
else
	test_output <"$console"
fi

# name_unloaded_frames MODULES: kmemleak's report, from stdin to stdout,
# with each bare frame address (a module unloaded before the scan) that
# lies in a module listed in MODULES (lines of /proc/modules) named as
# kmemleak names a loaded one's: "[module]".  bash's 64-bit arithmetic
# wraps kernel addresses to negative numbers, in order.
name_unloaded_frames() {
	local -a names=() starts=() sizes=()
	local name size base line addr i
	while read -r name size _ _ _ base _; do
		base=${base%$'\r'}
		case $base in 0x*) ;; *) continue ;; esac
		names+=("$name") starts+=("$base") sizes+=("$size")
	done <"$1"
	while IFS= read -r line; do
		line=${line%$'\r'}
		# "    [<hashed>] 0xffffffffc0a0c1e5": %pK hashes the first,
		# %pS prints an address it cannot name as it is.
		if [[ $line =~ \]\ 0x([0-9a-f]{16})$ ]]; then
			addr=$((16#${BASH_REMATCH[1]}))
			for i in "${!names[@]}"; do
				if ((addr >= starts[i] && addr < starts[i] + sizes[i]))
				then
					line+=" [${names[i]}]"
					break
				fi
			done
		fi
		printf '%s\n' "$line"
	done
}

fail() {
	echo "vm.sh: FAIL: $*" >&2
	# A guest that saw its own time run out printed its evidence.
	if grep -aq '@@BLKFAST-HANG@@' "$console"; then
		echo "vm.sh: --- the guest's hang report ---" >&2
		sed -n '/@@BLKFAST-HANG@@/,/@@BLKFAST-HANG-END@@/p' "$console" |
			head -n 600 >&2
	fi
	echo "vm.sh: --- last 40 console lines ---" >&2
	tail -n 40 "$console" >&2
	exit 1
}
rc=$(sed -n 's/^@@BLKFAST-EXIT \([0-9]*\)@@.*/\1/p' "$console" | tail -n 1)
# First the time limit: the guest's own hang report (stacks) would read
# as a splat below.
case $ended in 2 | 3) fail "guest never reached the test in two boots" ;; esac
[ "$ended" != 1 ] || fail "guest still running after ${limit_s}s (hang?)"
# A shared boot's splats are scripts/vm-split.sh's, test by test.
if [ "$group" = 0 ] &&
   grep -aEn "$BLKFAST_SPLAT_RE" "$console" >"$work/splats"; then
	splat_excerpt "$console" "$work/splats" >&2
	# tests/run runs such a test again, once, on this line.
	if fault=$(emulator_fault "$work/splats" "$console"); then
		fail "emulator fault (script exit code ${rc:-none}): $fault"
	fi
	[ -n "$rc" ] || fail "kernel splat; guest never reported an exit code" \
		"(crash or panic)"
	fail "kernel splat (script exit code $rc)"
fi
[ -n "$rc" ] || fail "guest never reported an exit code (crash or panic)"
# kmemleak's report (debug kernel, scripts/guest-init.sh): an unreferenced
# object whose allocation backtrace names one of our modules is a leak of
# ours.  A frame in a module unloaded before the scan prints as a bare
# address: it is named from where the guest saw the modules lie.
sed -n '/@@BLKFAST-KMEMLEAK-BEGIN@@/,/@@BLKFAST-KMEMLEAK-END@@/p' "$console" \
	>"$work/kmemleak"
sed -n '/@@BLKFAST-MODULES-BEGIN@@/,/@@BLKFAST-MODULES-END@@/p' "$console" \
	>"$work/modules"
name_unloaded_frames "$work/modules" <"$work/kmemleak" >"$work/kmemleak.named"
mv "$work/kmemleak.named" "$work/kmemleak"
if grep -aEq '\[(pdm|split_deadline|blkfast_[a-z]+)\]' "$work/kmemleak"; then
	echo "vm.sh: kmemleak reports objects allocated by our modules:" >&2
	head -n 60 "$work/kmemleak" >&2
	fail "kmemleak: leak in our modules (script exit code $rc)"
fi
printf 'vm.sh: guest exit %s, %.1fs wall\n' "$rc" "$wall" >&2
exit "$rc"
