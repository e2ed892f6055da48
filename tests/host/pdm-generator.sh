#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The systemd generator for /etc/pdmtab (system/systemd/pdm-generator), on
# a pdmtab of good and bad lines: one unit per good line, ordered after
# the .device units of the lower devices its table names by path (read as
# the kernel reads a table: a '#' starts a comment, a '\r' ends a line)
# and before local-fs-pre.target, pulled in by local-fs.target, removing
# the device at shutdown; device-timeout= (or x-systemd.device-timeout=,
# in systemd's time syntax) as a drop-in on those .device units; nofail,
# noauto and _netdev as crypttab(5) has them; an unknown option or a bad
# time span reported and ignored; a table path with '%', '$' or '"'
# quoted so that systemd passes it unchanged.  A bad line (and a table
# that names a lower device by MAJOR:MINOR) is reported with its line
# number and skipped.  The units pass `systemd-analyze verify` where the
# host has it.
. "$(dirname "$0")/lib/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gen=system/systemd/pdm-generator
a=/dev/disk/by-id/nvme-QEMU_NVMe_Ctrl_blkfastsys0
b=/dev/disk/by-id/nvme-QEMU_NVMe_Ctrl_blkfastsys1
# A comment naming a path must not become a device to wait for.
printf '0 1024 striped 2 128 %s 0 %s 0 # was /dev/nvme9n1\r\n' "$a" "$b" \
	>"$tmp/data.table"
printf '0 8 linear /dev/vdb 0\n' >"$tmp/logs.table"
printf '0 8 linear /dev/vdb 0\n8 8 linear 259:3 0\n' >"$tmp/num.table"
printf '0 8 linear /dev/vdc 0\n' >"$tmp/late.table"
printf '0 8 linear /dev/vdd 0\n' >"$tmp/manual.table"
mkdir "$tmp/odd%dir\$HOME\"q"
cp "$tmp/logs.table" "$tmp/odd%dir\$HOME\"q/t"
odd=$tmp/odd%dir\$HOME\"q/t
cat >"$tmp/pdmtab" <<TAB
# a comment, then a blank line

data	$tmp/data.table	uuid=blkfast-data,device-timeout=10s
logs $tmp/logs.table
nofile $tmp/missing.table
relative data.table
opt $tmp/logs.table frob
extra $tmp/logs.table defaults more
data $tmp/logs.table
bad/name $tmp/logs.table
tmo $tmp/logs.table device-timeout=soon
quote $tmp/logs.table uuid=a%b
num $tmp/num.table
-dash $tmp/logs.table
late $tmp/late.table nofail,x-systemd.device-timeout=1h30min
manual $tmp/manual.table noauto,device-timeout=infinity
net $tmp/logs.table _netdev
odd $odd
TAB
mkdir "$tmp/out"
PDMTAB=$tmp/pdmtab PDMSETUP=/sbin/pdmsetup sh "$gen" "$tmp/out" \
	"$tmp/early" "$tmp/late" 2>"$tmp/err" || fail "the generator failed"
cat "$tmp/err"

units=$(cd "$tmp/out" && echo *.service)
[ "$units" = "pdm@data.service pdm@late.service pdm@logs.service pdm@manual.service pdm@net.service pdm@odd.service pdm@opt.service pdm@tmo.service" ] ||
	fail "units: want data, late, logs, manual, net, odd, opt and tmo, got: $units"
for l in 5:"cannot read table file" 6:"not an absolute path" \
	 7:"unknown option 'frob' ignored" 8:"want: NAME TABLE-FILE" \
	 9:"listed twice" 10:"name 'bad/name'" \
	 11:"bad device-timeout 'soon' ignored" 12:"uuid:" \
	 13:"by number (259:3)" 14:"name '-dash'"; do
	grep -q "pdmtab:${l%%:*}: .*${l#*:}" "$tmp/err" ||
		fail "line ${l%%:*}: no '${l#*:}' in the generator's messages"
done
[ "$(wc -l <"$tmp/err")" = 10 ] || fail "more messages than bad lines and options"
echo "ok: 8 units from 8 lines; 10 bad lines and options reported, unknown options and bad time spans ignored"

u=$tmp/out/pdm@data.service
has() { grep -qxF -- "$1" "$u" || fail "$(basename "$u") lacks '$1'"; }
da=$(systemd-escape --path --suffix=device "$a")
db=$(systemd-escape --path --suffix=device "$b")
for l in "Wants=$da" "After=$da" "Wants=$db" "After=$db" \
	 "DefaultDependencies=no" "Wants=local-fs-pre.target" \
	 "Before=local-fs-pre.target umount.target shutdown.target" \
	 "Conflicts=umount.target" "Type=oneshot" "RemainAfterExit=yes" \
	 "ExecStart=/sbin/pdmsetup create --uuid blkfast-data -- data \"$tmp/data.table\"" \
	 "ExecStop=/sbin/pdmsetup remove --retry -- data"; do
	has "$l"
done
# Wants, not Requires: a missing disk must reach pdmsetup's own error.
! grep -q '^Requires=\|^BindsTo=' "$u" || fail "a missing disk would fail as a dependency"
# The comment's /dev/nvme9n1 is no device to wait for.
[ "$(grep -c '^After=dev-' "$u")" = 2 ] || fail "want exactly 2 device orderings"
! grep -q '^TimeoutSec=0' "$u" || fail "an unbounded start: TimeoutSec=0"
for d in "$da" "$db"; do
	f=$tmp/out/$d.d/50-pdm-device-timeout.conf
	[ "$(cat "$f" 2>/dev/null)" = "$(printf '[Unit]\nJobRunningTimeoutSec=10s')" ] ||
		fail "no device-timeout drop-in for $d"
done
[ ! -e "$tmp/out/$(systemd-escape --path --suffix=device /dev/vdb).d" ] ||
	fail "a timeout drop-in for a device that asked for none"
for s in data logs; do
	[ -L "$tmp/out/local-fs.target.wants/pdm@$s.service" ] ||
		fail "local-fs.target does not pull pdm@$s in"
done
echo "ok: pdm@data orders after its two lower devices, before local-fs-pre.target, with a 10s device timeout"

# nofail: pulled in, but nothing waits for it; noauto: not pulled in;
# _netdev: after the network, before remote-fs-pre.target.
u=$tmp/out/pdm@late.service
has "Before=umount.target shutdown.target"
! grep -q 'local-fs-pre' "$u" || fail "nofail: local-fs-pre.target waits for it"
[ -L "$tmp/out/local-fs.target.wants/pdm@late.service" ] ||
	fail "nofail: local-fs.target does not pull it in"
for v in vdc:1h30min vdd:infinity; do
	dv=$(systemd-escape --path --suffix=device "/dev/${v%%:*}")
	grep -qx "JobRunningTimeoutSec=${v#*:}" \
		"$tmp/out/$dv.d/50-pdm-device-timeout.conf" ||
		fail "device-timeout ${v#*:}: no drop-in for /dev/${v%%:*}"
done
[ ! -e "$tmp/out/local-fs.target.wants/pdm@manual.service" ] ||
	fail "noauto: pulled in by local-fs.target"
u=$tmp/out/pdm@net.service
for l in "Wants=network-online.target" "After=network-online.target" \
	 "Wants=remote-fs-pre.target" \
	 "Before=remote-fs-pre.target umount.target shutdown.target"; do
	has "$l"
done
[ -L "$tmp/out/remote-fs.target.wants/pdm@net.service" ] ||
	fail "_netdev: remote-fs.target does not pull it in"
echo "ok: nofail, noauto and _netdev as in crypttab"

# '%' doubled (no specifier), '$' doubled (no variable), '"' escaped.
u=$tmp/out/pdm@odd.service
has "ExecStart=/sbin/pdmsetup create -- odd \"$tmp/odd%%dir\$\$HOME\\\"q/t\""
echo "ok: a table path with % \$ and \" reaches pdmsetup unchanged"

# No pdmtab, no units, no complaint.
mkdir "$tmp/none"
PDMTAB=$tmp/absent sh "$gen" "$tmp/none" 2>"$tmp/err2" || fail "no pdmtab: failed"
[ -z "$(ls -A "$tmp/none")" ] || fail "no pdmtab: units made"
[ ! -s "$tmp/err2" ] || fail "no pdmtab: messages"
echo "ok: no /etc/pdmtab: nothing generated, nothing said"

if command -v systemd-analyze >/dev/null; then
	# verify resolves ExecStart's program: point it at a real one.
	sed -i "s|/sbin/pdmsetup|$(command -v true)|" "$tmp"/out/*.service
	SYSTEMD_UNIT_PATH=$tmp/out: systemd-analyze verify --man=no \
		"$tmp"/out/*.service \
		>"$tmp/verify" 2>&1 || { cat "$tmp/verify"; fail "systemd-analyze verify"; }
	! grep -q 'pdm@' "$tmp/verify" || { cat "$tmp/verify"; fail "systemd-analyze verify warns"; }
	echo "ok: systemd-analyze verify"
fi
