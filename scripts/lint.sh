#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make lint`: the kernel's own style tools over our sources, and ShellCheck
# over our scripts.  Prints every finding as FILE:LINE: MESSAGE and fails if
# there is any.
#
#   scripts/lint.sh [checkpatch] [sparse] [clang-format] [shellcheck]
#
# With no argument, all four run:
#   checkpatch:   scripts/checkpatch.pl --strict on the kernel sources
#   sparse:       `make C=2 modules` (every file checked, built or not)
#   clang-format: the spacing between tokens, per the kernel's .clang-format
#   ShellCheck:   every shell script
#
# checkpatch.pl (with spelling.txt and const_structs.checkpatch) and
# .clang-format come from Debian's linux-source-6.1 tarball (KSRC_TARBALL),
# extracted once into $BLKFAST_CACHE/lint/; KSRC=<kernel tree> uses a tree
# instead.  KDIR: the headers sparse builds against (default: those of the
# kernel the VM tests boot).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
# shellcheck source=scripts/config.sh
. "$here/config.sh"
cd "$top" || exit 1

kdir=${KDIR:-/usr/src/linux-headers-$KABI-$BLKFAST_FLAVOUR}
ksrc=${KSRC:-}

# The kernel sources, for checkpatch and clang-format (sparse gets them from
# kbuild); the generated *.mod.c are not ours.
kernel_sources() {
	local f

	for f in sched/*.[ch] poll/*.[ch] tests/modules/*.c; do
		case $f in *.mod.c) continue ;; esac
		[ -f "$f" ] && echo "$f"
	done
	find include -name '*.h' | LC_ALL=C sort
}

# User-space C: written in the same style, but only clang-format checks it;
# checkpatch's kernel rules (u32, __printf, no NULL comparisons, ...) do not
# fit programs built on libc.
user_sources() {
	local f

	for f in tools/*.[ch] tests/unit/*.[ch] tests/fuzz/*.c tests/progs/*.c; do
		[ -f "$f" ] && echo "$f"
	done
}

shell_scripts() {
	local f

	for f in scripts/*.sh tests/run tests/host/*.sh tests/host/lib/*.sh \
		 tests/debug/*.sh tests/vm/*.sh tests/vm/*/*.sh .ci/run \
		 system/systemd/pdm-generator system/bash-completion/pdmsetup \
		 tests/system/*.sh; do
		[ -f "$f" ] && echo "$f"
	done
}

# Print the folder holding the kernel's scripts/checkpatch.pl and
# .clang-format, extracting them from the tarball on first use (the whole
# archive is decompressed: some seconds) and again whenever it changes.
kernel_tools() {
	local cache=$BLKFAST_CACHE/lint stamp members tmp

	if [ -n "$ksrc" ]; then
		[ -f "$ksrc/scripts/checkpatch.pl" ] || {
			echo "lint: KSRC=$ksrc is not a kernel tree" >&2
			return 1
		}
		echo "$ksrc"
		return
	fi
	[ -f "$KSRC_TARBALL" ] || {
		echo "lint: $KSRC_TARBALL is missing: apt-get install" \
		     "linux-source-6.1, or pass KSRC=<kernel tree>" >&2
		return 1
	}
	stamp="$KSRC_TARBALL $(stat -c '%s %Y' "$KSRC_TARBALL")"
	if [ "$(cat "$cache/stamp" 2>/dev/null)" != "$stamp" ]; then
		members=(scripts/checkpatch.pl scripts/spelling.txt
			 scripts/const_structs.checkpatch .clang-format)
		echo "lint: extracting checkpatch.pl and .clang-format from" \
		     "$KSRC_TARBALL" >&2
		mkdir -p "$BLKFAST_CACHE"
		tmp=$(mktemp -d "$BLKFAST_CACHE/lint.XXXXXX") || return 1
		tar -xJf "$KSRC_TARBALL" -C "$tmp" --strip-components=1 \
			--occurrence "${members[@]/#/linux-source-6.1/}" || {
			rm -rf "$tmp"
			return 1
		}
		echo "$stamp" >"$tmp/stamp"
		rm -rf "$cache"
		mv "$tmp" "$cache" || return 1
	fi
	echo "$cache"
}

# Findings nobody can fix, by file, with the reason for each.  Nothing is
# ignored everywhere.
checkpatch_ignores() {
	case $1 in
	include/blkfast/compat.h)
		# Its user-space half defines __printf() itself, from
		# __attribute__((format)), as the kernel's compiler_attributes.h
		# does: that is the macro checkpatch asks for.
		echo PREFER_DEFINED_ATTRIBUTE_MACRO ;;
	include/blkfast/kcompat.h)
		# The one place that tests the kernel's version: an
		# out-of-tree module built for two kernel lines has no
		# single version to be "merged to", and checkpatch takes
		# "LINUX_VERSION_CODE >= KERNEL_VERSION()" for a constant
		# on the left.
		echo LINUX_VERSION_CODE,CONSTANT_COMPARISON ;;
	poll/pdm-table.c)
		# pdm_targets[] is the list of pdm-targets.h expanded by an
		# X-macro whose value is an array element, "&target,".
		echo COMPLEX_MACRO ;;
	poll/pdm-target.h)
		# The same list expanded into a declaration per target: the
		# entries carry no separator, so the macro's value ends in ';'.
		echo TRAILING_SEMICOLON ;;
	poll/pdm-targets.h)
		# An entry stays on one line: Kbuild and pdm-targets.sh read
		# the list with sed.
		echo LONG_LINE ;;
	poll/pdm-sysfs.c)
		# PDM_STAT_ATTR() names a counter's sysfs file and its
		# struct pdm_stats field with one argument, so that the two
		# cannot differ: a field name, never an expression.
		echo MACRO_ARG_REUSE ;;
	tests/modules/blkfast-lockhold.c)
		# It samples other code's locks from outside to time their
		# holds: whether one is held is the measurement, not an
		# assertion that lockdep could make.
		echo USE_LOCKDEP ;;
	esac
}

# --no-tree: an out-of-tree module has no kernel tree around it to check
# against (MAINTAINERS, Kconfig, Documentation); every rule about the code
# itself still runs, including --strict's.
checkpatch() {
	local out rc

	out=$(perl "$ktools/scripts/checkpatch.pl" --no-tree --strict --file \
		--terse --show-types --color=never "$@")
	rc=$?
	# --strict's cache of the CamelCase names in include/: not ours to keep.
	rm -f .checkpatch-camelcase.*
	[ -z "$out" ] || grep -v '^total: ' <<<"$out"
	return $rc
}

check_checkpatch() {
	local ktools f ignore plain=() rc=0

	ktools=$(kernel_tools) || return 1
	while read -r f; do
		ignore=$(checkpatch_ignores "$f")
		if [ -z "$ignore" ]; then
			plain+=("$f")
		else
			checkpatch --ignore="$ignore" "$f" || rc=1
		fi
	done < <(kernel_sources)
	checkpatch "${plain[@]}" || rc=1
	return $rc
}

# sparse through kbuild, as in-tree code gets it.  Warnings from the kernel
# headers themselves are not ours to fix; ours are those in our files.
check_sparse() {
	local log=$top/build/lint/sparse.log rc

	command -v sparse >/dev/null || {
		echo "lint: sparse is missing: make deps" >&2
		return 1
	}
	mkdir -p "$(dirname "$log")"
	make --no-print-directory C=2 modules KDIR="$kdir" BLKFAST_TESTS=1 \
		>"$log" 2>&1
	rc=$?
	if [ $rc -ne 0 ]; then
		tail -n 40 "$log"
		echo "lint: sparse: the build failed (make exit $rc); log: $log"
		return 1
	fi
	! sed -n "s|^$top/||p" "$log" |
		grep -E '^(sched|poll|include|tests)/[^:]*:[0-9]+:'
}

# The kernel's .clang-format cannot express kernel style as checkpatch and
# the kernel's own files have it: it re-aligns trailing comments, `=` of
# designated initializers and #define values that the kernel aligns with
# tabs, and re-wraps long expressions and argument lists.  Checking its
# whole output would mean fighting checkpatch-clean code, so only the
# spacing between two tokens on one line is compared: a space clang-format
# adds or removes there (`if(`, `a+b`, `char* p`, `(int) x`, `){`) is a
# finding; alignment, indentation and where lines break are not.  Two more
# spots are not compared because the kernel writes both ways: `* const`
# (most of the kernel) against clang-format's `*const`, and the inside of
# braces, `{1, 2}` against `{ 1, 2 }`.  Nor is the spacing of an operator
# after `)`: clang-format cannot tell `(x) * y` from a cast.
spacing_pl=$(cat <<'PERL'
use strict;
use warnings;

sub slurp {
	open(my $fh, '<', $_[0]) or die "$_[0]: $!\n";
	local $/;
	return <$fh>;
}

# The non-blank characters of a text, each with its line and the gap
# before it: '0' (none), 'S' (spaces on the same line), 'B' (a line break).
sub chars {
	my ($text) = @_;
	my (@c, @g, @l);
	my ($line, $gap) = (1, 'B');

	while ($text =~ /\G((?:[ \t\f\v\r\n]|\\\n)+|.)/gs) {
		my $t = $1;
		if ($t =~ /^(?:[ \t\f\v\r\n]|\\\n)+$/) {
			my $nl = () = $t =~ /\n/g;
			$line += $nl;
			$gap = $nl ? 'B' : 'S';
		} else {
			push @c, $t;
			push @g, $gap;
			push @l, $line;
			$gap = '0';
		}
	}
	return (\@c, \@g, \@l);
}

my ($file, $formatted) = @ARGV;
my ($c, $g, $l) = chars(slurp($file));
my ($fc, $fg) = chars(slurp($formatted));
my $bad = 0;

for my $i (1 .. $#$c) {
	if ($i > $#$fc || $c->[$i] ne $fc->[$i]) {
		print "$file:$l->[$i]: clang-format changes more than spacing\n";
		exit 1;
	}
	my ($have, $want) = ($g->[$i], $fg->[$i]);
	next if $have eq $want || $have eq 'B' || $want eq 'B';
	my ($p, $x) = ($c->[$i - 1], $c->[$i]);
	next if $p eq '*' && $i + 4 <= $#$c &&
		join('', @$c[$i .. $i + 4]) eq 'const' &&
		($i + 5 > $#$c || $g->[$i + 5] ne '0' || $c->[$i + 5] =~ /\W/);
	next if $p eq '{' || $x eq '}';
	next if $x =~ /[-+*&]/ && $p eq ')';
	next if $i > 1 && $p =~ /[-+*&]/ && $c->[$i - 2] eq ')';
	printf "%s:%d: clang-format: %s space between '%s' and '%s'\n",
		$file, $l->[$i], $want eq 'S' ? 'add a' : 'remove the', $p, $x;
	$bad = 1;
}
exit $bad;
PERL
)

check_clang_format() {
	local ktools cf f out rc=0

	cf=$(command -v clang-format-14 || command -v clang-format) || {
		echo "lint: clang-format is missing: make deps" >&2
		return 1
	}
	ktools=$(kernel_tools) || return 1
	out=$(mktemp) || return 1
	while read -r f; do
		if ! "$cf" --style="file:$ktools/.clang-format" "$f" >"$out"; then
			echo "$f: clang-format failed"
			rc=1
			continue
		fi
		perl -e "$spacing_pl" "$f" "$out" || rc=1
	done < <(kernel_sources; user_sources)
	rm -f "$out"
	return $rc
}

# -x and SCRIPTDIR: scripts source their libraries relative to themselves
# ($(dirname "$0")/lib/lib.sh), here as in the guest.
check_shellcheck() {
	local files

	command -v shellcheck >/dev/null || {
		echo "lint: shellcheck is missing: make deps" >&2
		return 1
	}
	mapfile -t files < <(shell_scripts)
	shellcheck -x --source-path=SCRIPTDIR -f gcc "${files[@]}" || return 1
	# The harness finds a guest's WARNs in the kernel log it dumps at
	# the end (the console shows only errors): a test that clears the
	# log hides every splat before it.
	if grep -nE 'dmesg +(-[a-zA-Z]*[cC]|--clear|--read-clear)' \
		tests/vm/*.sh tests/vm/*/*.sh; then
		echo "lint: a VM test clears the kernel log (dmesg -c/-C)" >&2
		return 1
	fi
}

steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(checkpatch sparse clang-format shellcheck)
failed=()
for s in "${steps[@]}"; do
	case $s in
	checkpatch) fn=check_checkpatch ;;
	sparse) fn=check_sparse ;;
	clang-format) fn=check_clang_format ;;
	shellcheck) fn=check_shellcheck ;;
	*) echo "usage: scripts/lint.sh [checkpatch] [sparse] [clang-format]" \
		"[shellcheck]" >&2
	   exit 2 ;;
	esac
	echo "lint: $s"
	$fn || failed+=("$s")
done
if [ ${#failed[@]} -gt 0 ]; then
	echo "lint: FAILED: ${failed[*]}"
	exit 1
fi
echo "lint: clean"
