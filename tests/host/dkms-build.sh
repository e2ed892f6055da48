#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Packaging, without touching the host:
#  - dkms.conf: `dkms add`, `dkms build` (signed with a throwaway MOK key, as
#    Debian's dkms signs with /var/lib/dkms/mok.key) and `dkms install` for
#    the installed Debian 6.1 headers, in a private DKMS tree, source tree
#    and install tree;
#  - a kernel update without the matching linux-source: pdm alone, and the
#    fix printed;
#  - `make install` and `make uninstall` into a DESTDIR.
# Everything lives in one temporary folder, removed at the end; the test
# checks that /usr/src, /var/lib/dkms and /lib/modules gained nothing.
# Needs root (dkms refuses otherwise) and the dkms package (scripts/deps.sh).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
# shellcheck source=scripts/config.sh
. scripts/config.sh

kver=$KABI-amd64
ksrc=/usr/src/linux-headers-$kver
fail() { echo "FAIL: $*"; exit 1; }
command -v dkms >/dev/null || fail "dkms is missing (scripts/deps.sh installs it)"
[ "$(id -u)" = 0 ] || fail "dkms needs root"
[ -f "$ksrc/Makefile" ] || fail "no headers in $ksrc"

ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
[ -n "$ver" ] || fail "dkms.conf has no PACKAGE_VERSION"
# What the host had before, to prove that the test left it alone.
footprint() {
	ls -d /usr/src/blkfast-* /var/lib/dkms/blkfast 2>/dev/null || true
	find /lib/modules -name 'pdm.ko*' -o -name 'split-deadline.ko*' \
		2>/dev/null || true
	ls /var/lib/dkms/mok.* 2>/dev/null || true
}
before=$(footprint)

tmp=$(mktemp -d "${TMPDIR:-/tmp}/blkfast-dkms.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
srctree=$tmp/src dkmstree=$tmp/dkms insttree=$tmp/modules
# dkms installs only for a kernel that has a modules folder.
mkdir -p "$srctree" "$dkmstree" "$insttree/$kver"
# dkms reads the signing key's location from its framework.conf, where
# Debian leaves it unset: the environment stands in for it here.
export mok_signing_key=$tmp/mok.key mok_certificate=$tmp/mok.pub
dk=(--dkmstree "$dkmstree" --sourcetree "$srctree" --installtree "$insttree")

echo "== make dkms-src: the sources DKMS builds from"
make -s --no-print-directory dkms-src DKMS_SRCTREE="$srctree" \
	KDIR="$ksrc" >"$tmp/src.log" 2>&1 || { cat "$tmp/src.log"; fail "make dkms-src"; }
[ -f "$srctree/blkfast-$ver/dkms.conf" ] || fail "no dkms.conf in the DKMS sources"

echo "== dkms add / build / install for $kver"
dkms add -m blkfast -v "$ver" "${dk[@]}" || fail "dkms add"
# The build extracts the private block/ headers from the kernel source
# tarball (linux-source-6.1) as it would on a user's machine.
kv=$(MAKEFLAGS='' make -s --no-print-directory -C "$ksrc" kernelversion)
if ! dkms build -m blkfast -v "$ver" -k "$kver" --kernelsourcedir "$ksrc" \
	"${dk[@]}" >"$tmp/build.log" 2>&1; then
	cat "$tmp/build.log"
	cat "$dkmstree/blkfast/$ver/build/make.log" 2>/dev/null || true
	fail "dkms build"
fi
cat "$tmp/build.log"
# dkms goes on past a failed clean: it is still a broken dkms.conf/tree.
! grep -q 'bad exit status' "$tmp/build.log" || fail "a dkms step failed"
dkms status -m blkfast -v "$ver" "${dk[@]}" | tee "$tmp/status"
grep -q "^blkfast/$ver, $kver, x86_64: built" "$tmp/status" ||
	fail "dkms status does not say built"
mods=$dkmstree/blkfast/$ver/$kver/x86_64/module
for m in split-deadline pdm; do
	ko=$mods/$m.ko
	[ -f "$ko" ] || fail "dkms built no $m.ko"
	vm=$(modinfo -F vermagic "$ko")
	[ "${vm%% *}" = "$kver" ] || fail "$m.ko: vermagic '$vm'"
	# Signed by the key given: what a Secure Boot machine checks.
	signer=$(modinfo -F signer "$ko")
	[ "$signer" = "DKMS module signing key" ] ||
		fail "$m.ko is not signed with the DKMS key (signer '$signer')"
	echo "ok: $m.ko: vermagic $kver, signed by '$signer'"
done
dkms install -m blkfast -v "$ver" -k "$kver" --no-depmod "${dk[@]}" \
	>"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; fail "dkms install"; }
for m in split-deadline pdm; do
	[ -f "$insttree/$kver/updates/dkms/$m.ko" ] ||
		fail "dkms install: no $insttree/$kver/updates/dkms/$m.ko"
done
echo "ok: dkms install put both modules in updates/dkms/"
dkms uninstall -m blkfast -v "$ver" -k "$kver" --no-depmod "${dk[@]}" \
	>"$tmp/uninstall.log" 2>&1 || { cat "$tmp/uninstall.log"; fail "dkms uninstall"; }
dkms unbuild -m blkfast -v "$ver" -k "$kver" "${dk[@]}" >/dev/null 2>&1 ||
	fail "dkms unbuild"

# A kernel update whose linux-source is missing or at another 6.1.y: pdm
# is still built and installed, split-deadline is left out with the exact
# command that brings it back, and DKMS does not fail.
hv=$(dpkg-query -W -f='${Version}' "linux-headers-$kver")
mkdir -p "$tmp/fake/linux-source-6.1"
printf 'VERSION = 6\nPATCHLEVEL = 1\nSUBLEVEL = 1\n' \
	>"$tmp/fake/linux-source-6.1/Makefile"
tar -C "$tmp/fake" -cJf "$tmp/other-source.tar.xz" linux-source-6.1
for case in "missing:$tmp/none.tar.xz" "other:$tmp/other-source.tar.xz"; do
	what=${case%%:*}
	# every dkms step sees the same source: dkms.conf asks for each
	export KSRC_TARBALL=${case#*:}
	if ! dkms install -m blkfast -v "$ver" \
		-k "$kver" --kernelsourcedir "$ksrc" --no-depmod "${dk[@]}" \
		>"$tmp/upgrade.log" 2>&1; then
		cat "$tmp/upgrade.log"
		fail "linux-source $what: dkms install failed"
	fi
	cat "$tmp/upgrade.log"
	[ -f "$insttree/$kver/updates/dkms/pdm.ko" ] ||
		fail "linux-source $what: pdm.ko was not installed"
	[ ! -e "$insttree/$kver/updates/dkms/split-deadline.ko" ] ||
		fail "linux-source $what: split-deadline.ko appeared"
	grep -qF "apt-get install linux-source-6.1=$hv" "$tmp/upgrade.log" ||
		fail "linux-source $what: no 'apt-get install linux-source-6.1=$hv'"
	echo "ok: linux-source $what: pdm installed, split-deadline skipped with the fix"
	dkms uninstall -m blkfast -v "$ver" -k "$kver" --no-depmod "${dk[@]}" \
		>/dev/null 2>&1 || fail "dkms uninstall"
	dkms unbuild -m blkfast -v "$ver" -k "$kver" "${dk[@]}" >/dev/null 2>&1 ||
		fail "dkms unbuild"
	[ ! -e "$insttree/$kver/updates/dkms/pdm.ko" ] ||
		fail "linux-source $what: dkms uninstall left pdm.ko"
done
unset KSRC_TARBALL

dkms remove -m blkfast -v "$ver" --all "${dk[@]}" >"$tmp/remove.log" 2>&1 ||
	{ cat "$tmp/remove.log"; fail "dkms remove"; }
[ ! -e "$insttree/$kver/updates/dkms/pdm.ko" ] || fail "dkms remove left pdm.ko"
[ ! -e "$dkmstree/blkfast" ] || fail "dkms remove left $dkmstree/blkfast"
echo "ok: dkms remove"

echo "== make install / uninstall into a DESTDIR"
# In a copy of the tree, so that this build leaves the tree's objects alone.
tree=$tmp/tree stage=$tmp/stage
mkdir -p "$tree"
find Makefile Kbuild dkms.conf scripts sched poll include tools man system \
	-type f ! -name '*.mod.c' ! -name '*.o' ! -name '*.ko' ! -name '*.mod' \
	! -name '*.cmd' ! -path 'tools/*' -print0 | cpio --quiet -0 -pdm "$tree"
find tools -maxdepth 1 -type f \( -name '*.[ch]' -o -name Makefile \) -print0 |
	cpio --quiet -0 -pdm "$tree"
# Signing as make install does it, with the same throwaway key.
if ! make -C "$tree" --no-print-directory install DESTDIR="$stage" \
	KDIR="$ksrc" PRIV_DIR="$top/build/kheaders-$kv" \
	SIGN_KEY="$mok_signing_key" SIGN_CERT="$mok_certificate" \
	>"$tmp/make-install.log" 2>&1; then
	cat "$tmp/make-install.log"
	fail "make install DESTDIR=..."
fi
# The modules where DKMS puts them: one copy whichever installed last.
moddir=$stage/lib/modules/$kver/updates/dkms
for f in "$moddir/split-deadline.ko" "$moddir/pdm.ko" \
	 "$stage/usr/local/sbin/pdmsetup" \
	 "$stage/usr/local/share/man/man8/pdmsetup.8" \
	 "$stage/usr/local/share/man/man5/pdmtab.5" \
	 "$stage/lib/udev/rules.d/60-pdm.rules" \
	 "$stage/lib/systemd/system-generators/pdm-generator" \
	 "$stage/usr/local/share/bash-completion/completions/pdmsetup"; do
	[ -f "$f" ] || { cat "$tmp/make-install.log"; fail "make install: no ${f#"$stage"}"; }
done
[ ! -e "$stage/usr/local/sbin/uring-bench" ] ||
	fail "make install: uring-bench is a benchmark, not installed"
! ldd "$stage/usr/local/sbin/pdmsetup" 2>&1 | grep -q 'not a dynamic' ||
	fail "make install: pdmsetup is static"
[ "$(find "$stage/lib/modules" -name '*.ko' | wc -l)" = 2 ] ||
	fail "make install: more than our two modules: $(find "$stage/lib/modules" -name '*.ko')"
grep -q '^updates/dkms/pdm.ko:' "$stage/lib/modules/$kver/modules.dep" ||
	fail "make install: depmod did not index updates/dkms/pdm.ko"
grep -q 'split-deadline-iosched' "$stage/lib/modules/$kver/modules.alias" ||
	fail "make install: no split-deadline-iosched alias"
for m in split-deadline pdm; do
	[ "$(modinfo -F signer "$moddir/$m.ko")" = "DKMS module signing key" ] ||
		fail "make install SIGN_KEY=...: $m.ko is not signed"
done
if command -v man >/dev/null; then
	for page in man8/pdmsetup.8 man5/pdmtab.5; do
		MANWIDTH=80 man --warnings -E UTF-8 -l \
			"$stage/usr/local/share/man/$page" >/dev/null 2>"$tmp/man.err" ||
			{ cat "$tmp/man.err"; fail "man cannot format $page"; }
		! grep -q . "$tmp/man.err" || { cat "$tmp/man.err"; fail "$page: warnings"; }
	done
fi
echo "ok: make install: 2 signed modules in updates/dkms (indexed by depmod), pdmsetup (dynamic), udev rules, generator, man pages, completion"
make -C "$tree" --no-print-directory -s uninstall DESTDIR="$stage" \
	KDIR="$ksrc" PRIV_DIR="$top/build/kheaders-$kv" >"$tmp/uninstall.log" 2>&1 ||
	{ cat "$tmp/uninstall.log"; fail "make uninstall"; }
left=$(find "$stage" -type f ! -name 'modules.*' | sed "s|^$stage||")
[ -z "$left" ] || fail "make uninstall left: $left"
! grep -q pdm "$stage/lib/modules/$kver/modules.dep" ||
	fail "make uninstall: modules.dep still names pdm"
echo "ok: make uninstall removed everything"

after=$(footprint)
[ "$before" = "$after" ] || fail "the host changed: before '$before', after '$after'"
echo "ok: the host's /usr/src, /var/lib/dkms and /lib/modules are as they were"
