#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs in each guest of `selftests/vm/run --guests 2`: two machines talk
# through NetDIMMs in lower mode, each riding on its NIC toward the other
# (ping, then iperf3 from guest 0 to guest 1), and the counters show the
# path. Guest 0 prints the TAP; guest 1 serves iperf3 once, checks its own
# side, and reports only through its exit status and "#" lines.
source "$(dirname "$0")/lib.sh"

me=$EDM_VM_GUEST
peer=$((1 - me))
nic_var=EDM_VM_NIC_TO_$peer
nic=${!nic_var}
ND=ndg
ADDR=10.79.0.$((me + 1))
PEER_ADDR=10.79.0.$((peer + 1))
IPERF_PID=

for t in jq iperf3 ss; do
	command -v "$t" >/dev/null || { echo "1..0 # SKIP $t is not installed"; exit $KSFT_SKIP; }
done

cleanup() {
	[ -n "$IPERF_PID" ] && kill "$IPERF_PID" 2>/dev/null
	if edm_loaded; then
		"$EDMCTL" netdimm del $ND 2>/dev/null
		rmmod edm
	fi
}
trap cleanup EXIT

# check JQ-EXPR: this guest's ndimm counters (.stats) satisfy it.
check() {
	local c

	echo "+ check $1" >&2
	c=$("$EDMCTL" -j netdimm stats $ND)
	jq -e ".[0].stats | $1" >/dev/null <<<"$c" || { echo "counters: $c" >&2; return 1; }
}

# The NIC carries no address of its own: only our frames (ethertype 0x88b6).
ndimm_up() {
	x insmod "$EDM_KO"
	x ip link set "$nic" up
	x "$EDMCTL" netdimm add $ND size 16M lower "$nic" >/dev/null
	x "$EDMCTL" -j netdimm show $ND | jq -e --argjson i "$(cat "/sys/class/net/$nic/ifindex")" '
		.[0].lower == $i and (.[0] | has("peer") | not)'
	# our header rides in the NIC's frames
	[ "$(cat /sys/class/net/$ND/mtu)" -lt "$(cat "/sys/class/net/$nic/mtu")" ]
	x ip -b - <<-EOF
		link set $ND addrgenmode none
		addr add $ADDR/24 dev $ND
		link set $ND up
	EOF
}

# Each guest boots at its own pace: ping until the peer answers, bounded.
peer_reachable() {
	poll 120 ping -c 1 -W 1 -q "$PEER_ADDR"
	x ping -c "$(scaled 5)" -i 0.2 -W 5 "$PEER_ADDR"
	x ping -c 2 -i 0.2 -W 5 -s 1000 "$PEER_ADDR"
	# small replies come inside the descriptor, larger ones in zone pages
	check '.tx_copy_needed > 0 and .rx_inline > 0 and .rx_zerocopy > 0 and .tx_drops == 0'
}

# Guest 1 started its server before its ndimm was up: it is listening.
iperf_across() {
	x timeout 300 iperf3 -c "$PEER_ADDR" -t "$(scaled 3)" -J >/tmp/iperf.json ||
		{ cat /tmp/iperf.json; return 1; }
	jq -e '.end.sum_received | ., .bytes > 0' /tmp/iperf.json >&2
	# each packet is copied into the zone, then into a frame of the NIC;
	# what arrives is copied out of a frame into the zone
	check '.tx_copy_needed == .tx_packets and .host_copies == .tx_packets
		and .wire_copies == .tx_packets + .rx_packets + .rx_drops
		and .tx_drops == 0 and .tx_bytes > 1000000'
}

ndimm_down() {
	x "$EDMCTL" netdimm del $ND
	[ "$(edm_objects dev)" = 0 ]
	[ ! -e /sys/class/net/$ND ]
	x rmmod edm
}

if [ "$me" = 0 ]; then
	run_case ndimm_up "guest 0: ndimm in lower mode on the NIC toward guest 1"
	run_case peer_reachable "guest 0 pings guest 1 through the NetDIMMs"
	run_case iperf_across "guest 0: iperf3 to guest 1 through the NetDIMMs"
	run_case ndimm_down "guest 0: the ndimm deletes and edm.ko unloads"
	tap_done
else
	# the server first: listening before guest 0 can reach us
	iperf3 -s -1 </dev/null >/tmp/iperf-server.log 2>&1 3>&- &
	IPERF_PID=$!
	out=$( (set -e; ndimm_up) 2>&1) || { printf '# g1: %s\n' "$out"; exit 1; }
	# guest 0's test done, or the time is up
	deadline=$((SECONDS + 400))
	while kill -0 "$IPERF_PID" 2>/dev/null; do
		[ $SECONDS -lt $deadline ] || { echo "# g1: iperf3 never ran"; exit 1; }
		sleep 0.2
	done
	wait "$IPERF_PID" || { sed 's/^/# g1: /' /tmp/iperf-server.log; exit 1; }
	IPERF_PID=
	out=$( (set -e; check '.rx_zerocopy > 0 and .rx_bytes > 1000000 and .tx_drops == 0';
		ndimm_down) 2>&1) || { printf '# g1: %s\n' "$out"; exit 1; }
fi
