#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The systemd generator for /etc/pdmtab (system/systemd/pdm-generator), on
# a pdmtab of good and bad lines: one unit per good line, ordered after
# the .device units of the lower devices its table names by path and
# before local-fs-pre.target, pulled in by local-fs.target, removing the
# device at shutdown; device-timeout= as a drop-in on those .device units;
# each bad line reported with its line number and skipped.  The units
# pass `systemd-analyze verify` where the host has it.
. "$(dirname "$0")/lib/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gen=system/systemd/pdm-generator
a=/dev/disk/by-id/nvme-QEMU_NVMe_Ctrl_blkfastsys0
b=/dev/disk/by-id/nvme-QEMU_NVMe_Ctrl_blkfastsys1
printf '0 1024 striped 2 128 %s 0 %s 0\n1024 8 linear 259:3 0\n' "$a" "$b" \
	>"$tmp/data.table"
printf '0 8 linear /dev/vdb 0\n' >"$tmp/logs.table"
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
TAB
mkdir "$tmp/out"
PDMTAB=$tmp/pdmtab PDMSETUP=/sbin/pdmsetup sh "$gen" "$tmp/out" \
	"$tmp/early" "$tmp/late" 2>"$tmp/err" || fail "the generator failed"
cat "$tmp/err"

units=$(cd "$tmp/out" && ls -- *.service)
[ "$units" = "$(printf 'pdm@data.service\npdm@logs.service')" ] ||
	fail "units: want pdm@data and pdm@logs, got: $units"
for l in 5:"cannot read table file" 6:"not an absolute path" \
	 7:"unknown option 'frob'" 8:"want: NAME TABLE-FILE" 9:"listed twice" \
	 10:"name 'bad/name'" 11:"bad device-timeout" 12:"uuid:"; do
	grep -q "pdmtab:${l%%:*}: .*${l#*:}" "$tmp/err" ||
		fail "line ${l%%:*}: no '${l#*:}' in the generator's messages"
done
[ "$(wc -l <"$tmp/err")" = 8 ] || fail "more messages than bad lines"
echo "ok: 2 units from 2 good lines; each of 8 bad lines reported and skipped"

u=$tmp/out/pdm@data.service
has() { grep -qxF -- "$1" "$u" || fail "$(basename "$u") lacks '$1'"; }
da=$(systemd-escape --path --suffix=device "$a")
db=$(systemd-escape --path --suffix=device "$b")
for l in "Wants=$da" "After=$da" "Wants=$db" "After=$db" \
	 "DefaultDependencies=no" "Wants=local-fs-pre.target" \
	 "Before=local-fs-pre.target umount.target shutdown.target" \
	 "Conflicts=umount.target" "Type=oneshot" "RemainAfterExit=yes" \
	 "ExecStart=/sbin/pdmsetup create data $tmp/data.table --uuid blkfast-data" \
	 "ExecStop=/sbin/pdmsetup remove --retry data"; do
	has "$l"
done
# Wants, not Requires: a missing disk must reach pdmsetup's own error.
! grep -q '^Requires=\|^BindsTo=' "$u" || fail "a missing disk would fail as a dependency"
# 259:3 (MAJOR:MINOR) has no .device unit to wait for.
[ "$(grep -c '^After=dev-' "$u")" = 2 ] || fail "want exactly 2 device orderings"
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
		"$tmp/out/pdm@data.service" "$tmp/out/pdm@logs.service" \
		>"$tmp/verify" 2>&1 || { cat "$tmp/verify"; fail "systemd-analyze verify"; }
	! grep -q 'pdm@' "$tmp/verify" || { cat "$tmp/verify"; fail "systemd-analyze verify warns"; }
	echo "ok: systemd-analyze verify"
fi
