#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs in each guest of `selftests/vm/run --guests 2`: edm.ko loads and
# answers in both machines, and the two reach each other over their link.
# Guest 0 prints the TAP; guest 1 answers until guest 0's pings arrived.
source "$(dirname "$0")/lib.sh"

me=$EDM_VM_GUEST
peer=$((1 - me))
nic_var=EDM_VM_NIC_TO_$peer
nic=${!nic_var}

module_answers() {
	x insmod "$EDM_KO"
	x "$EDMCTL" -j version | jq -e --arg k "$(uname -r)" '.kernel_release == $k'
	x rmmod edm
}

link_up() {
	x ip addr add 192.0.2.$((me + 1))/24 dev "$nic"
	x ip link set "$nic" up
}

# Each guest boots at its own pace: ping until the peer answers, bounded.
peer_reachable() {
	poll 60 ping -c 1 -W 1 -q 192.0.2.$((peer + 1))
}

# Guest 1's side of the proof: guest 0's echo requests arrived.
pinged() {
	[ "$(awk '/^Icmp:/ { if (!n++) { for (i = 1; i <= NF; i++) if ($i == "InEchos") f = i }
		else print $f }' /proc/net/snmp)" -gt 0 ]
}

if [ "$me" = 0 ]; then
	run_case module_answers "guest 0: edm.ko loads and answers, then unloads"
	run_case link_up "guest 0: link toward guest 1 is up"
	run_case peer_reachable "guest 0 reaches guest 1 over the QEMU socket link"
	tap_done
else
	module_answers >/dev/null && link_up && poll 90 pinged
fi
