#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# pdmsetup's bash completion (system/bash-completion/pdmsetup), in a
# scripted bash: device names are offered as they are, never expanded (a
# device named $(touch${IFS}FILE) creates no FILE when a TAB lists it),
# filtered by what is typed; a TAB where pdm is not loaded runs no
# pdmsetup (which would load it); verbs and a verb's options complete;
# rename completes a device, then nothing (the new name is new).
. "$(dirname "$0")/lib/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
comp=$PWD/system/bash-completion/pdmsetup

# complete WORDS...: COMPREPLY for a TAB after the last word, one a line.
cat >"$tmp/complete.sh" <<'EOF2'
. "$COMP"
[ -z "${NAMES+set}" ] || _pdmsetup_names() { printf '%s\n' "${NAMES[@]}"; }
COMP_WORDS=(pdmsetup "$@")
COMP_CWORD=$#
_pdmsetup
printf '%s\n' "${COMPREPLY[@]}"
EOF2
complete() {
	(cd "$tmp" && COMP=$comp bash "$tmp/complete.sh" "$@")
}

# Names, stubbed as pdm ls would list them.
out=$(cd "$tmp" && COMP=$comp bash -c '
	NAMES=("data" "$(printf "\$(touch\${IFS}%s)" PWNED)" "dump")
	. ./complete.sh info d')
[ "$out" = "$(printf 'data\ndump')" ] ||
	fail "names starting with d: got '$out'"
out=$(cd "$tmp" && COMP=$comp bash -c '
	NAMES=("data" "$(printf "\$(touch\${IFS}%s)" PWNED)")
	. ./complete.sh info ""')
[ ! -e "$tmp/PWNED" ] || fail "a device's name ran as a command"
# shellcheck disable=SC2016 # the name, literally
case $out in
*'$(touch${IFS}PWNED)'*) ;;
*) fail "the name \$(touch\${IFS}PWNED) is not offered as it is: '$out'" ;;
esac
echo "ok: names offered as they are, never run, filtered by the prefix"

# Without pdm loaded (this host), a TAB runs no pdmsetup.
if [ ! -d /sys/module/pdm ]; then
	mkdir "$tmp/bin"
	printf '#!/bin/sh\ntouch %s/ran\n' "$tmp" >"$tmp/bin/pdmsetup"
	chmod +x "$tmp/bin/pdmsetup"
	PATH=$tmp/bin:$PATH complete info "" >/dev/null
	[ ! -e "$tmp/ran" ] || fail "a TAB ran pdmsetup with pdm not loaded"
	echo "ok: no pdmsetup (which loads pdm) while pdm is not loaded"
fi

[ "$(complete ta)" = table ] || fail "verb: got '$(complete ta)'"
[ "$(complete table --p)" = --paths ] ||
	fail "table's options: got '$(complete table --p)'"
[ "$(complete ren)" = rename ] || fail "verb: got '$(complete ren)'"
# rename: OLD is a device, NEW is not.
out=$(cd "$tmp" && COMP=$comp bash -c '
	NAMES=("data" "dump")
	. ./complete.sh rename d')
[ "$out" = "$(printf 'data\ndump')" ] || fail "rename OLD: got '$out'"
out=$(cd "$tmp" && COMP=$comp bash -c '
	NAMES=("data" "dump")
	. ./complete.sh rename data d')
[ -z "$out" ] || fail "rename NEW offered names: '$out'"
[ "$(complete remove --noudev)" = --noudevsync ] ||
	fail "remove's options: got '$(complete remove --noudev)'"
echo "ok: verbs and options"
echo PASS
