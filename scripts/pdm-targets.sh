#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# pdm's targets, as poll/pdm-targets.h lists them, for what is not C:
#   pdm-targets.sh names     one name a line
#   pdm-targets.sh sources   their files, poll/pdm-NAME.c, on one line
#   pdm-targets.sh man       a man page template on stdin to stdout, with
#                            the lines '.\" @TARGET-NAMES@' replaced by
#                            the names ("a, b and c"), '.\" @TARGET-LINES@'
#                            by a table line each, '.\" @TARGET-LIST@' by
#                            what each does
set -eu
list=$(dirname "$0")/../poll/pdm-targets.h
# name<TAB>arguments<TAB>description, one target a line
entries() {
	sed -n 's/^PDM_TARGET(\([a-z0-9_]*\), *"\([^"]*\)", *"\([^"]*\)")$/\1\t\2\t\3/p' \
		"$list"
}
[ -n "$(entries)" ] || { echo "pdm-targets.sh: no targets in $list" >&2; exit 1; }

case ${1:-} in
names)
	entries | cut -f1 ;;
sources)
	entries | cut -f1 | sed 's|.*|poll/pdm-&.c|' | tr '\n' ' ' | sed 's/ $/\n/' ;;
man)
	# <word> becomes \fIword\fP; the lines go through the environment,
	# where awk leaves backslashes alone (-v would not).
	PDM_EX=$(entries | awk -F'\t' '{
		a = $2; gsub(/</, "\\fI", a); gsub(/>/, "\\fP", a)
		printf "\\fIstart length\\fP %s%s\n", $1, a }')
	PDM_TP=$(entries | awk -F'\t' '{
		printf ".TP\n.B %s\n%s%s.\n", $1, toupper(substr($3, 1, 1)),
			substr($3, 2) }')
	PDM_NAMES=$(entries | awk -F'\t' '
		{ n[NR] = $1 }
		END { for (i = 1; i <= NR; i++)
			if (i < NR - 1)
				printf ".BR %s ,\n", n[i]
			else if (i == NR - 1)
				printf ".B %s\nand\n", n[i]
			else
				printf ".B %s\n", n[i] }')
	export PDM_EX PDM_TP PDM_NAMES
	awk '
		$0 == ".\\\" @TARGET-LINES@" {
			print ".IP\n.EX\n" ENVIRON["PDM_EX"] "\n.EE"
			next
		}
		$0 == ".\\\" @TARGET-LIST@" { print ENVIRON["PDM_TP"]; next }
		$0 == ".\\\" @TARGET-NAMES@" { print ENVIRON["PDM_NAMES"]; next }
		{ print }' ;;
*)
	echo "usage: pdm-targets.sh names|sources|man" >&2
	exit 2 ;;
esac
