#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Extract the private block-layer headers that an elevator needs from the
# kernel source matching KDIR, into OUT/block/.  They are never committed:
# struct layouts must match the running kernel exactly, so they come from
# the same version's source at build time.
#
#   scripts/private-headers.sh KDIR OUT [KSRC]
#   scripts/private-headers.sh --check KDIR [KSRC]
# KSRC is a kernel tree; without it Debian's linux-source-X.Y tarball is
# used ($KSRC_TARBALL overrides its path).  --check only says whether the
# headers can be had (exit 0) or why not, with the command that fixes it
# (exit 1): dkms.conf asks before it lists split-deadline.
set -euo pipefail

check=
if [ "${1:-}" = --check ]; then
	check=1
	shift
	set -- "$1" "" "${2:-}"
fi
kdir=$1 out=$2 ksrc=${3:-}
headers=(elevator.h blk-mq.h blk-stat.h blk-mq-sched.h blk-mq-debugfs.h)

version_of_makefile() {
	awk -F' *= *' '$1=="VERSION"{v=$2} $1=="PATCHLEVEL"{p=$2}
		$1=="SUBLEVEL"{s=$2} END{if (v != "") print v "." p "." s}'
}

# Without the caller's MAKEFLAGS: under a parent make (DKMS, make check)
# the sub-make would print its directory changes into the version.
kver=$(MAKEFLAGS='' make -s --no-print-directory -C "$kdir" kernelversion \
	2>/dev/null | grep -E '^[0-9]+\.[0-9]+' | tail -n 1) || kver=''
[ -n "$kver" ] || {
	echo "private-headers: cannot read the kernel version of KDIR=$kdir" >&2
	exit 1
}
series=${kver%.*}
# 6.12 has blk-mq-tag.h's declarations in blk-mq.h.
[ "$series" != 6.1 ] || headers+=(blk-mq-tag.h)

# The fix to print: linux-source at exactly the version of the headers
# package that KDIR belongs to (Debian revisions of one 6.1.y may differ in
# block/, so the whole version is pinned).
fix() {
	local pkg ver
	pkg=$(dpkg-query -S "$(readlink -f "$kdir")" 2>/dev/null |
	      sed -n '1s/:.*//p') || pkg=''
	ver=${pkg:+$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null)} ||
		ver=''
	if [ -n "$ver" ]; then
		echo "apt-get install linux-source-$series=$ver (the version" \
		     "of $pkg), or pass KSRC=<kernel tree>"
	else
		echo "apt-get install linux-source-$series at the version" \
		     "that gives $kver, or pass KSRC=<kernel tree>"
	fi
}

if [ -n "$ksrc" ]; then
	[ -f "$ksrc/Makefile" ] || {
		echo "private-headers: KSRC=$ksrc is not a kernel tree" >&2
		exit 1
	}
	sver=$(version_of_makefile <"$ksrc/Makefile")
	src_desc=$ksrc
else
	tarball=${KSRC_TARBALL:-/usr/src/linux-source-$series.tar.xz}
	[ -f "$tarball" ] || {
		echo "private-headers: split-deadline needs the kernel source" \
		     "of $kver, and $tarball is missing: $(fix)" >&2
		exit 1
	}
	# --occurrence: stop at the first match, not read 1 GB of archive.
	sver=$(tar --occurrence=1 -xJOf "$tarball" \
		"linux-source-$series/Makefile" | version_of_makefile)
	src_desc=$tarball
fi
if [ "$sver" != "$kver" ]; then
	echo "private-headers: split-deadline needs the kernel source of" \
	     "$kver (KDIR=$kdir), but $src_desc is ${sver:-unreadable}:" \
	     "$(fix)" >&2
	exit 1
fi
[ -z "$check" ] || exit 0

mkdir -p "$(dirname "$out")"
tmp=$(mktemp -d "$out.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/block"
if [ -n "$ksrc" ]; then
	for h in "${headers[@]}"; do cp "$ksrc/block/$h" "$tmp/block/"; done
else
	tar -xJf "$tarball" -C "$tmp/block" --strip-components=2 \
		"${headers[@]/#/linux-source-$series/block/}"
fi
echo "$kver" >"$tmp/version"
rm -rf "$out"
mv "$tmp" "$out"
trap - EXIT
