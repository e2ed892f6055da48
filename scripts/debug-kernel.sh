#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (or reuse) the debug kernel that the VM tests boot as the flavour
# "debug": Debian's 6.1 source (linux-source-6.1, the same tree the private
# block headers come from) with Debian's amd64 config as the base, trimmed
# to the modules the guest loads and without built-in subsystems the guest
# never uses (see trim_options), plus the kernel's own bug detectors:
#   lockdep (PROVE_LOCKING, PROVE_RCU), DEBUG_ATOMIC_SLEEP, DEBUG_OBJECTS
#   (timers, work, rcu_head, percpu_counter), kmemleak, KFENCE (with SLUB
#   debugging on the command line, scripts/vm.sh; why not KASAN: below),
#   and fault injection (failslab, fail_page_alloc,
#   fail_make_request, fail_io_timeout, with debugfs control; null_blk's
#   own fault injection).  6.1 has no fault-injection stack filter on
#   x86_64 (FAULT_INJECTION_STACKTRACE_FILTER depends on !X86_64): tests
#   confine failures to one task with the task filter and make-it-fail.
# The result has the layout of an unpacked Debian image (scripts/config.sh,
# guest_kernel_dir): root/boot, root/lib/modules/6.1.0-57-debug, vmlinux
# and bzImage, and build/ (the kbuild tree that our modules build against,
# with its own vermagic).  It is keyed by the source package's version and this script
# (which holds the config), built once and cached, never committed.
#
#   scripts/debug-kernel.sh          build if needed, print the kernel dir
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/config.sh
. "$here/config.sh"

flavour=debug
kver=$(guest_kver $flavour)
out=$(guest_kernel_dir $flavour)
base_config=$(guest_kernel_dir amd64)/root/boot/config-$KABI-amd64
[ -s "$base_config" ] || "$here/deps.sh" --flavour amd64 >&2

# In-tree modules the guest loads (scripts/initramfs-base.sh), with what
# they pull in, and ext4 for file system tests.  localmodconfig keeps
# these (and what they depend on) as modules and drops every other module.
guest_modules=(null_blk dm_mod nvme nvme_core kyber_iosched bfq configfs
	       crct10dif_generic crc_t10dif crct10dif_common t10_pi
	       ext4 jbd2 mbcache crc16 crc32c_generic libcrc32c
	       loop scsi_debug sd_mod scsi_mod scsi_common)

# Debug options on top of Debian's config.
#
# The memory-error detector is KFENCE, not KASAN, for time.  With KASAN
# (generic, inline) this kernel built in 21-24 minutes on 2 cores, a boot
# that ran nothing took 51 s and pdm-again 67 s, and make check's core of
# the debug tier 25.5 minutes: the tier alone took the whole of make
# check's 35-minute budget.  With KFENCE: 12 minutes, 18 s and 29 s.
# KFENCE puts one allocation every KFENCE_SAMPLE_INTERVAL ms (1, against
# the default 100: the guest allocates little) among guard pages and
# reports any access out of bounds or after free at once; SLUB debugging
# (slub_debug=FZPU, init_on_free=1 on the guest's command line) checks
# every other slab object's red zones, poison and free pointer whenever
# it is allocated or freed, with who allocated and freed it.  What KASAN
# caught that this does not: a bad read of an unsampled slab object, and
# bad accesses to the stack, globals and vmalloc memory.  Static keys off:
# flipping them every millisecond would rewrite kernel text on every CPU.
#
# No debug info: it would double the build, and reports symbolise through
# kallsyms.  The guest boots the bzImage, LZ4 so that it unpacks in a
# moment under emulation.
debug_options=(
	-e DEBUG_ATOMIC_SLEEP -e PROVE_LOCKING -e PROVE_RCU -d DEBUG_LOCKDEP
	-e DEBUG_OBJECTS -e DEBUG_OBJECTS_TIMERS -e DEBUG_OBJECTS_WORK
	-e DEBUG_OBJECTS_RCU_HEAD -e DEBUG_OBJECTS_PERCPU_COUNTER
	-e DEBUG_KMEMLEAK -d DEBUG_KMEMLEAK_DEFAULT_OFF
	--set-val DEBUG_KMEMLEAK_MEM_POOL_SIZE 65536
	-d KASAN -e KFENCE --set-val KFENCE_SAMPLE_INTERVAL 1
	--set-val KFENCE_NUM_OBJECTS 511 -d KFENCE_STATIC_KEYS
	-d KFENCE_DEFERRABLE
	-e FAULT_INJECTION -e FAILSLAB -e FAIL_PAGE_ALLOC
	-e FAIL_MAKE_REQUEST -e FAIL_IO_TIMEOUT -e FAULT_INJECTION_DEBUG_FS
	-e BLK_DEV_NULL_BLK_FAULT_INJECTION
	-d DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT -d DEBUG_INFO_DWARF4
	-d DEBUG_INFO_DWARF5 -e DEBUG_INFO_NONE -d DEBUG_INFO_BTF
	-d KERNEL_XZ -e KERNEL_LZ4
	-d MODULE_SIG -d MODULE_SIG_ALL
	--set-str SYSTEM_TRUSTED_KEYS "" --set-str SYSTEM_REVOCATION_KEYS ""
	--set-str LOCALVERSION ""
)

# Built-in subsystems that the guest never uses and that neither the block
# layer nor our modules touch: dropped so that the kernel builds in minutes
# on 2 cores.  The block layer, device-mapper, io_uring, cgroups, NUMA,
# tracing and kprobes keep Debian's settings.
trim_options=(
	-d XEN -d X86_SGX -d AMD_MEM_ENCRYPT -d MEMORY_HOTPLUG
	-d SECURITY_SELINUX -d SECURITY_TOMOYO -d SECURITY_APPARMOR
	-d SECURITY_LANDLOCK -d IMA -d EVM -d BPF_LSM
	-d IPV6 -d NETFILTER -d NET_SCHED -d MPTCP -d XDP_SOCKETS
	-d WIRELESS -d WLAN
	-d HOTPLUG_PCI -d AGP -d FB -d EDAC -d HWMON -d I2C -d SPI -d GPIOLIB
	-d WATCHDOG -d DMADEVICES -d INTEL_IOMMU -d AMD_IOMMU
	# Also 12 MiB of .bss (a patch cache per possible node) that
	# kmemleak would scan twice at the end of every test.
	-d MICROCODE_AMD
)

srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
# What the kernel is made of: a comment edit here rebuilds nothing.  Bump
# recipe when a build step changes.
recipe=1
key=$( {
	echo "$recipe $srcver"
	printf '%s\n' "${guest_modules[@]}" "${trim_options[@]}" \
		"${debug_options[@]}"
	sha256sum <"$base_config"
	gcc --version | head -n 1
} | sha256sum | cut -c1-16)
# One build at a time: a second caller waits for the first one's kernel.
exec 9>"$out.lock"
flock 9
if [ -s "$out/vmlinux" ] && [ "$(cat "$out/key" 2>/dev/null)" = "$key" ]; then
	echo "$out"
	exit 0
fi

start=$SECONDS
rm -rf "$out"
mkdir -p "$out"
echo "debug-kernel: unpacking linux-source-6.1 $srcver" >&2
tar -xJf "$KSRC_TARBALL" -C "$out"
mv "$out/linux-source-6.1" "$out/build"
src=$out/build

cp "$base_config" "$src/.config"
lsmod=$out/lsmod
{
	echo "Module Size Used by"
	for m in "${guest_modules[@]}"; do echo "$m 16384 0"; done
} >"$lsmod"
# localmodconfig asks nothing with a complete .config; feed it newlines
# in case a symbol is new to it.
{ yes '' || true; } | make -s -C "$src" LSMOD="$lsmod" localmodconfig >"$out/config.log" 2>&1
"$src/scripts/config" --file "$src/.config" "${trim_options[@]}" \
	"${debug_options[@]}"
make -s -C "$src" olddefconfig >>"$out/config.log" 2>&1

# Every option this tier promises must have survived olddefconfig.
missing=()
for o in DEBUG_ATOMIC_SLEEP PROVE_LOCKING PROVE_RCU DEBUG_OBJECTS_TIMERS \
	 DEBUG_OBJECTS_WORK DEBUG_OBJECTS_RCU_HEAD DEBUG_OBJECTS_PERCPU_COUNTER \
	 DEBUG_KMEMLEAK KFENCE FAILSLAB FAIL_PAGE_ALLOC \
	 FAIL_MAKE_REQUEST FAIL_IO_TIMEOUT FAULT_INJECTION_DEBUG_FS \
	 BLK_DEV_NULL_BLK_FAULT_INJECTION KERNEL_LZ4; do
	grep -q "^CONFIG_$o=y" "$src/.config" || missing+=("$o")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "debug-kernel: options lost by olddefconfig: ${missing[*]}" >&2
	exit 1
fi

echo "debug-kernel: building $kver with $(nproc) jobs" \
     "(log: $out/build.log)" >&2
make -C "$src" -j"$(nproc)" KERNELRELEASE="$kver" bzImage modules \
	>"$out/build.log" 2>&1 || {
	tail -n 30 "$out/build.log" >&2
	echo "debug-kernel: build failed" >&2
	exit 1
}
make -s -C "$src" KERNELRELEASE="$kver" INSTALL_MOD_PATH="$out/root" \
	INSTALL_MOD_STRIP=1 DEPMOD=/bin/true modules_install \
	>>"$out/build.log" 2>&1
rm -f "$out/root/lib/modules/$kver/build" "$out/root/lib/modules/$kver/source"
mkdir -p "$out/root/boot"
cp "$src/.config" "$out/root/boot/config-$kver"
cp "$src/System.map" "$out/root/boot/System.map-$kver"
cp "$src/arch/x86/boot/bzImage" "$out/bzImage"
# vmlinux last: its presence says the kernel is complete (and it is the
# image to symbolise reports against).
cp "$src/vmlinux" "$out/vmlinux.tmp"
mv "$out/vmlinux.tmp" "$out/vmlinux"
echo "$key" >"$out/key"
echo "debug-kernel: $kver ready in $out after $((SECONDS - start)) s" >&2
echo "$out"
