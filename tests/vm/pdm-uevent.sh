#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# 6.12-tier: create, rename and remove events with holder links made after add_disk
# debug-tier: full event contents, no I/O path; the create and remove lifetimes run in the core under pdm-create-race and pdm-remove-race
# vm: -c 1
# The uevents a pdm device sends, as heard on the kernel's uevent netlink
# socket (busybox uevent): a change event with PDM_NAME, PDM_UUID,
# PDM_EVENT and PDM_SUSPENDED on create, on every resume of a suspended
# device (a table swapped to another lower device of the same size
# included, which changes nothing else udev would see), on rename (the
# new PDM_NAME), and on remove before the disk's own remove event
# (PDM_SUSPENDED=1 then: remove has drained it, and opens are refused);
# none on suspend (udev would probe a disk that holds its I/O back), none
# on a resume that changed nothing.
. "$(dirname "$0")/lib/lib.sh"

nullb_load queue_mode=2 nr_devices=2 gb=1
run modprobe pdm
sz=$(cat /sys/block/nullb0/size)

# One line per event on the disk: ACTION, then PDM_* sorted.
cat >/tmp/ev.sh <<'EOF'
#!/bin/sh
[ "$DEVNAME" = pdm0 ] || exit 0
echo "$ACTION $(env | grep '^PDM_' | sort | tr '\n' ' ')" >>/tmp/events
EOF
chmod +x /tmp/ev.sh
: >/tmp/events
uevent /tmp/ev.sh &
listener=$!
sleep 0.5

run pdmsetup create --uuid PDM-ev-1 ev --table "0 $sz linear /dev/nullb0 0" >/dev/null
run pdmsetup suspend ev
run pdmsetup resume ev
run pdmsetup resume ev
run pdmsetup reload ev --table "0 $sz linear /dev/nullb1 0"
run pdmsetup resume ev
run pdmsetup rename ev ev2
run pdmsetup remove ev2
sleep 1
kill $listener
wait $listener 2>/dev/null || true

cat /tmp/events
A="PDM_NAME=ev PDM_SUSPENDED=0 PDM_UUID=PDM-ev-1"
expect_eq "events in order" "add 
change PDM_EVENT=create $A 
change PDM_EVENT=resume $A 
change PDM_EVENT=resume $A 
change PDM_EVENT=rename PDM_NAME=ev2 PDM_SUSPENDED=0 PDM_UUID=PDM-ev-1 
change PDM_EVENT=remove PDM_NAME=ev2 PDM_SUSPENDED=1 PDM_UUID=PDM-ev-1 
remove " "$(cat /tmp/events)"
run rmmod pdm
echo "PASS"
