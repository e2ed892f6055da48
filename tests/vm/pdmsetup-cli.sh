#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# 6.12-tier: the module version and the verbs against modules built for 6.12
# debug-tier: full the user-space tool's command line; the control path's error and allocation paths run in the core under pdm-fault-ctl
# vm: -c 1
# pdmsetup as scripts use it:
# - with pdm.ko not loaded: each usage error exits 2 with exactly one line
#   on stderr and nothing on stdout, and loads nothing; --help names every
#   verb, option and target; version and --version say the driver is
#   not loaded, and load nothing;
# - a command loads the module itself (modprobe pdm, said on stderr);
#   version shows the tool's and the module's release (both dkms.conf's)
#   and ABIs;
# - status shows segment lines only, info the polling line; info -c
#   columns (-o, --noheadings, --separator, the dmsetup-style loop over
#   names), --json of ls, info and status parsed by jq (a name with
#   every byte besides letters and digits that a name may hold; the
#   JSON escaping itself is unit/pdmsetup's); deps (deduplicated) and
#   ls --tree over pdm on pdm; suspend/resume --nolockfs;
# - remove --retry waits out a short-lived opener, and gives up on a
#   lasting one after about 5 s; remove --force swaps in an error table of
#   the same size, and reports EBUSY while the device stays open.
. "$(dirname "$0")/lib/lib.sh"

now_ms() {
	local t=${EPOCHREALTIME/./}
	echo $((t / 1000))
}

pdm_loaded() {
	grep -q '^pdm ' /proc/modules
}

# usage_err MSG ARGS...: pdmsetup ARGS is a usage error: exit 2, MSG alone
# on stderr, nothing on stdout.
usage_err() {
	local want=$1 rc=0
	shift
	pdmsetup "$@" >/tmp/out 2>/tmp/err || rc=$?
	expect_eq "pdmsetup $*: exit" 2 "$rc"
	expect_eq "pdmsetup $*: stderr" "$want" "$(cat /tmp/err)"
	expect_eq "pdmsetup $*: stdout" "" "$(cat /tmp/out)"
}

# ---- without the module ---------------------------------------------------

! pdm_loaded || fail "pdm is loaded at the start"
usage_err "pdmsetup: missing COMMAND"
usage_err "pdmsetup: unknown command 'foo'" foo
usage_err "pdmsetup: unknown option '--bogus'" create a --bogus x
usage_err "pdmsetup: unknown option '--bogus'" --bogus=x ls
usage_err "pdmsetup: create: missing NAME" create
usage_err "pdmsetup: create: missing NAME" --table "0 8 error" create
usage_err "pdmsetup: ls: unexpected argument 'x'" ls x
usage_err "pdmsetup: ls: unexpected argument '--json'" ls -- --json
usage_err "pdmsetup: remove: option '--tree' does not apply to remove" \
	remove --tree a
usage_err "pdmsetup: suspend: missing NAME" suspend --nolockfs
usage_err "pdmsetup: rename: missing NEW" rename a
usage_err "pdmsetup: rename: unexpected argument 'c'" rename a b c
usage_err "pdmsetup: ls: option '--noudevsync' does not apply to ls" \
	ls --noudevsync
usage_err "pdmsetup: info: unknown field 'bogus'" info -c -o name,bogus
usage_err "pdmsetup: option '--separator' needs an argument" \
	info -c --separator
usage_err "pdmsetup: create: --table and FILE 'f' both given" \
	create a f --table "0 8 error"
! pdm_loaded || fail "a usage error loaded pdm"

pdmsetup --help >/tmp/help
for w in create reload remove suspend resume rename ' ls ' ' table ' \
	 status info deps version --noudevsync --nolockfs --retry --force --json --tree --inactive \
	 ' -c ' ' -o ' --noheadings --separator --version poll_mode hybrid \
	 '<start> <length> linear <dev> <offset>' \
	 '<start> <length> striped <nr> <chunk_sectors> <dev> <offset>...' \
	 '<start> <length> error'; do
	grep -qF -- "$w" /tmp/help || fail "--help does not mention '$w'"
done
note "ok: --help names every verb, option and target"

pdmsetup --version >/tmp/ver 2>/tmp/err || fail "--version without pdm: exit $?"
expect_eq "--version stderr" "" "$(cat /tmp/err)"
expect_eq "--version: driver" "Driver:            not loaded" \
	"$(grep '^Driver' /tmp/ver)"
tool_ver=$(sed -n 's/^Tool version: *//p' /tmp/ver)
tool_abi=$(sed -n 's/^Tool ABI: *//p' /tmp/ver)
if [ -z "$tool_ver" ] || [ -z "$tool_abi" ]; then
	fail "--version: $(cat /tmp/ver)"
fi
! pdm_loaded || fail "--version loaded pdm"
expect_eq "version = --version without pdm" "$(cat /tmp/ver)" \
	"$(pdmsetup version)"
! pdm_loaded || fail "version loaded pdm"

# ---- the module loaded on demand ------------------------------------------

pdmsetup ls >/tmp/out 2>/tmp/err || fail "ls without pdm: exit $?: $(cat /tmp/err)"
expect_eq "ls loads pdm: stderr" "pdmsetup: loading pdm.ko (modprobe pdm)" \
	"$(cat /tmp/err)"
expect_eq "ls loads pdm: stdout" "No devices found" "$(cat /tmp/out)"
pdm_loaded || fail "pdm not loaded after 'pdmsetup ls'"
pdmsetup ls >/dev/null 2>/tmp/err
expect_eq "ls with pdm loaded: stderr" "" "$(cat /tmp/err)"

pdmsetup version >/tmp/ver
mod_ver=$(cat /sys/module/pdm/version)
expect_eq "module version = tool version (dkms.conf)" "$tool_ver" "$mod_ver"
expect_eq "version: driver version" "$mod_ver" \
	"$(sed -n 's/^Driver version: *//p' /tmp/ver)"
expect_eq "version: driver ABI" "$tool_abi" \
	"$(sed -n 's/^Driver ABI: *//p' /tmp/ver)"
expect_eq "--version: driver ABI" "$tool_abi" \
	"$(pdmsetup --version | sed -n 's/^Driver ABI: *//p')"
usage_err "pdmsetup: info: -o needs -c" info -o name

# ---- devices: status, info, columns, JSON, deps, tree ---------------------

nullb_load queue_mode=2 nr_devices=3 submit_queues=1 poll_queues=1 gb=1
sz=$(cat /sys/block/nullb0/size)
n0=$(cat /sys/block/nullb0/dev) n1=$(cat /sys/block/nullb1/dev)
n2=$(cat /sys/block/nullb2/dev)
# A name of every byte besides letters and digits that names may hold
# (the kernel refuses the rest: pdm-bad-tables).
odd='q#x=y@z:1+2-3.4_5'
expect_eq "create lin" /dev/pdm0 \
	"$(pdmsetup create lin --table "0 $sz linear /dev/nullb0 0")"
expect_eq "create str" /dev/pdm1 "$(pdmsetup create str --table \
	"0 $sz striped 2 128 /dev/nullb1 0 /dev/nullb2 0")"
# pdm on pdm: pdm0 twice (deps lists it once), and an error segment.
expect_eq "create top" /dev/pdm2 "$(pdmsetup create top <<TABLE
0 1024 linear /dev/pdm0 0
1024 1024 error
2048 1024 linear /dev/pdm0 4096
TABLE
)"
expect_eq "create $odd" /dev/pdm3 \
	"$(pdmsetup create "$odd" --table "0 8 error")"
d0=$(cat /sys/block/pdm0/dev) d1=$(cat /sys/block/pdm1/dev)

expect_eq "status: segment lines only" "0 $sz striped PP" \
	"$(pdmsetup status str)"
expect_eq "status top" "$(printf '0 1024 linear P\n1024 1024 error\n2048 1024 linear P')" \
	"$(pdmsetup status top)"
expect_eq "info: polling" "Polling:           on" \
	"$(pdmsetup info lin | grep '^Polling:')"
expect_eq "info: segments" "Number of targets: 3" \
	"$(pdmsetup info top | grep '^Number of targets:')"

# dmsetup's way of walking the devices in a script.
names=''
for n in $(pdmsetup info -c --noheadings -o name); do
	pdmsetup info "$n" >/dev/null || fail "info '$n' from the loop"
	names+="$n "
done
expect_eq "info -c names" "$(printf '%s\n' "$odd" lin str top | sort)" \
	"$(echo "$names" | tr ' ' '\n' | sed '/^$/d' | sort)"
all=name,dev,state,open,tables,poll,poll_mode,hybrid,segments,sectors
# (lin is open under top: the count as info's text shows it.)
open_lin=$(pdmsetup info lin | sed -n 's/^Open count: *//p')
expect_ge "lin open under top" 1 "$open_lin"
expect_eq "info -c -o all" "lin|$d0|ACTIVE|$open_lin|LIVE|on|direct|off|1|$sz" \
	"$(pdmsetup info -c -o $all --noheadings --separator '|' lin)"
# The longest choices, read whole and cut to the bracketed word.
echo sweep_wait >"/sys/dev/block/$d0/pdm/poll_mode"
echo sleep >"/sys/dev/block/$d0/pdm/hybrid"
expect_eq "info -c poll_mode,hybrid" "sweep_wait|sleep" \
	"$(pdmsetup info -c -o poll_mode,hybrid --noheadings --separator '|' lin)"
echo direct >"/sys/dev/block/$d0/pdm/poll_mode"
echo off >"/sys/dev/block/$d0/pdm/hybrid"
expect_eq "info -c headings" "Name Dev" \
	"$(pdmsetup info -c -o name,dev lin top | head -n 1 | tr -s ' ')"
expect_eq "info -c rows" 3 "$(pdmsetup info -c -o name,dev lin top | wc -l)"
echo sweep >/sys/block/pdm1/pdm/poll_mode
echo 1 >/sys/block/pdm1/pdm/hybrid
run pdmsetup reload str --table "0 $sz striped 2 128 /dev/nullb1 0 /dev/nullb2 0"
run pdmsetup suspend --nolockfs str
expect_eq "suspended, reloaded" "SUSPENDED:LIVE+INACTIVE:sweep:gate" \
	"$(pdmsetup info -c --noheadings --separator : -o state,tables,poll_mode,hybrid str)"
run pdmsetup resume str --nolockfs
expect_eq "resumed" "ACTIVE:LIVE" \
	"$(pdmsetup info -c --noheadings --separator : -o state,tables str)"
run pdmsetup suspend str
run pdmsetup resume str
rc=0
pdmsetup info lin nosuch >/tmp/out 2>/tmp/err || rc=$?
expect_eq "info lin nosuch: exit" 1 "$rc"
expect_eq "info lin nosuch: stderr" \
	"pdmsetup: info nosuch: No such device or address: nosuch: no such device" \
	"$(cat /tmp/err)"
grep -q '^Name: *lin$' /tmp/out || fail "info lin nosuch: $(cat /tmp/out)"

command -v jq >/dev/null || fail "no jq in the guest (scripts/initramfs-base.sh)"
pdmsetup ls --json >/tmp/ls.json
expect_eq "ls --json names" "$(printf '%s\n' "$odd" lin str top | sort)" \
	"$(jq -r '.devices[].name' /tmp/ls.json | sort)"
expect_eq "ls --json dev" "$d1" \
	"$(jq -r '.devices[] | select(.name == "str") | .dev' /tmp/ls.json)"
pdmsetup info --json >/tmp/info.json
expect_eq "info --json devices" 4 "$(jq '.devices | length' /tmp/info.json)"
expect_eq "info --json odd name" "$odd" \
	"$(jq -r '.devices[] | select(.dev == "'"$(cat /sys/block/pdm3/dev)"'") | .name' /tmp/info.json)"
expect_eq "info --json str" "true sweep gate 0 ACTIVE LIVE $sz" \
	"$(pdmsetup info --json str | jq -r '.devices[0] |
	   "\(.poll) \(.poll_mode) \(.hybrid) \(.open) \(.state) \(.tables) \(.sectors)"')"
expect_eq "status --json top" "3 true error 1024 P" \
	"$(pdmsetup status --json top | jq -r '"\(.segments | length) \(.poll) \(.segments[1].target) \(.segments[1].start) \(.segments[2].legs)"')"
pdmsetup status --json "$odd" | jq -e --arg n "$odd" '.name == $n' >/dev/null ||
	fail "status --json: name '$(pdmsetup status --json "$odd")'"

expect_eq "deps str" "$(printf '%s (nullb1)\n%s (nullb2)' "$n1" "$n2")" \
	"$(pdmsetup deps str)"
expect_eq "deps top (pdm0 once)" "$d0 (pdm0)" "$(pdmsetup deps top)"
expect_eq "deps of an error table" "" "$(pdmsetup deps "$odd")"

# ls --tree: the roots in ls's order, what each sits on beneath it.
want=''
while IFS=$'\t' read -r name dev; do
	case $name in
	str) want+="str $dev"$'\n'" |-nullb1 ($n1)"$'\n'" \`-nullb2 ($n2)"$'\n' ;;
	top) want+="top $dev"$'\n'" \`-lin ($d0)"$'\n'"   \`-nullb0 ($n0)"$'\n' ;;
	lin) ;;
	*) want+="$name $dev"$'\n' ;;
	esac
done <<<"$(pdmsetup ls)"
expect_eq "ls --tree" "${want%$'\n'}" "$(pdmsetup ls --tree)"

# ---- remove --retry, remove --force ---------------------------------------

expect_fail "pdmsetup: remove nosuch: No such device or address" \
	pdmsetup remove --retry nosuch
# wait_open DEV N: /sys/block/DEV is open N times (pdm's open count).
wait_open() {
	for _ in $(seq 50); do
		[ "$(pdmsetup info -c --noheadings -o open "$1")" = "$2" ] &&
			return 0
		sleep 0.1
	done
	fail "$1: open count not $2"
}
# An opener for 1.5 s.
sleep 1.5 4</dev/pdm3 &
wait_open "$odd" 1
expect_fail "Device or resource busy" pdmsetup remove "$odd"
t0=$(now_ms)
run pdmsetup remove --retry "$odd"
ms=$(($(now_ms) - t0))
note "remove --retry waited $ms ms for the opener"
expect_le "remove --retry (ms)" 5000 "$ms"
[ ! -e /sys/block/pdm3 ] || fail "pdm3 still there after remove --retry"
wait

exec 3</dev/pdm1
t0=$(now_ms)
expect_fail "pdmsetup: remove str: Device or resource busy" \
	pdmsetup remove --retry str
ms=$(($(now_ms) - t0))
expect_ge "remove --retry gives up after (ms)" 4000 "$ms"
expect_le "remove --retry gives up within (ms)" 9000 "$ms"
exec 3<&-

exec 3</dev/pdm2
rc=0
pdmsetup remove --force top >/tmp/out 2>/tmp/err || rc=$?
expect_eq "remove --force of an open device: exit" 1 "$rc"
case $(cat /tmp/err) in
"pdmsetup: remove top: Device or resource busy"*) ;;
*) fail "remove --force top: stderr '$(cat /tmp/err)'" ;;
esac
expect_eq "error table swapped in" "0 3072 error" "$(pdmsetup table top)"
expect_eq "top after remove --force" "ACTIVE:LIVE:1:3072" \
	"$(pdmsetup info -c --noheadings --separator : -o state,tables,segments,sectors top)"
expect_eq "top sits on nothing" "" "$(pdmsetup deps top)"
expect_eq "lin no longer open" 0 \
	"$(pdmsetup info -c --noheadings -o open lin)"
! dd if=/dev/pdm2 of=/dev/null bs=4k count=1 iflag=direct status=none \
	2>/dev/null || fail "top reads after its error table"
exec 3<&-
run pdmsetup remove --force top
run pdmsetup remove --force str
expect_eq "ls --tree at the end" "lin ($d0)"$'\n'" \`-nullb0 ($n0)" \
	"$(pdmsetup ls --tree)"
run pdmsetup remove lin
expect_eq "ls at the end" "No devices found" "$(pdmsetup ls)"
expect_eq "ls --json at the end" 0 "$(pdmsetup ls --json | jq '.devices | length')"
run rmmod pdm
echo "PASS"
