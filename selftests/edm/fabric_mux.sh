#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Intra-frame preemption on the EDM PHY (issue 4, item 2): ordinary frames
# and memory messages share a host's link block by block.
#
#   fm_a (addr 1, netns fm_a) -- sw:1   sw:2 -- fm_b (addr 2, 1 MiB region,
#   netns fm_b), emulated links; fm_a and fm_b are also netdevs, 10.77.0.1/2
#
# fm_a queues an MTU frame for fm_b and then a read of fm_b's memory while
# the ports are held (debugfs fabric_tx_hold), so the mux meets both at
# once. Each link end counts, in mem-wait-max, the most frame blocks a
# memory message waited behind. With the fair mux a message waits for at
# most one frame block (2.56 ns at 25 GbE), with strict priority for none;
# without preemption (mux none, the baseline) it waits for the rest of the
# frame in progress, up to the 190 blocks of a 1514-byte frame. The case
# for the baseline is what shows that the bound is the mux's doing.
source "$(dirname "$0")/lib.sh"

EDMOP=$EDM_TOP/tools/edmop/edmop
A=fm_a B=fm_b

edm_loaded || { echo "1..0 # SKIP edm.ko is not loaded"; exit $KSFT_SKIP; }
for t in jq "$EDMOP"; do
	command -v "$t" >/dev/null || { echo "1..0 # SKIP $t is not installed"; exit $KSFT_SKIP; }
done

cleanup() {
	local n

	echo 0 >"$EDM_DEBUGFS/fabric_tx_hold" 2>/dev/null || true
	for n in $A $B; do
		ip netns pids $n 2>/dev/null | xargs -r kill 2>/dev/null || true
		ip netns del $n 2>/dev/null || true
	done
	for n in fm_sw $A $B; do
		$EDMCTL fabric del $n 2>/dev/null || true
	done
	return 0
}
trap cleanup EXIT

# Two hosts through a switch, each host's netdev in its own netns (the
# nodes stay in the initial one, where the links are emulated).
build() {
	cleanup
	x $EDMCTL fabric add switch fm_sw ports 4
	x $EDMCTL fabric add host $A addr 1 timeout 10000
	x $EDMCTL fabric add host $B addr 2 region 1m
	x $EDMCTL fabric link add $A peer fm_sw:1 mux "$1"
	x $EDMCTL fabric link add $B peer fm_sw:2 mux "$1"
	ip netns add $A
	ip netns add $B
	ip link set $A netns $A
	ip link set $B netns $B
	ip -n $A addr add 10.77.0.1/24 dev $A
	ip -n $B addr add 10.77.0.2/24 dev $B
	ip -n $A link set $A up
	ip -n $B link set $B up
	ip -n $B link set lo up
	# no ARP while the ports are held: the frame queued is the ping's
	ip -n $A neigh replace 10.77.0.2 dev $A nud permanent \
		lladdr "$(ip -n $B -j link show $B | jq -r '.[0].address')"
}

# The /dev/edm<N> of host $A.
edm_dev() {
	echo /dev/edm$($EDMCTL -j fabric show $A | jq -r '.[0].minor')
}

# lstat NODE KEY: a counter of NODE's link end
lstat() {
	$EDMCTL -j -s fabric link show "$1" | jq -r ".[0].stats[\"$2\"]"
}

# fstat NODE KEY: a counter of fabric node NODE
fstat() {
	$EDMCTL -j -s fabric show "$1" | jq -r ".[0].stats[\"$2\"]"
}

tx_packets() {
	ip netns exec $A cat /sys/class/net/$A/statistics/tx_packets
}

grew() {
	[ "$(tx_packets)" -gt "$1" ]
}

read_inflight() {
	[ "$(fstat $A inflight)" -ge 1 ]
}

# With the ports held (debugfs fabric_tx_hold), queue an MTU frame from A to
# B and then a 64 B read of B's memory on A's port, release the ports, and
# print the mem-wait-max of A's link end: how many frame blocks the read
# waited behind.
frame_then_read() {
	local dev tx pids

	dev=$(edm_dev)
	poll 20 ip netns exec $A ping -c 1 -W 1 10.77.0.2 >/dev/null
	echo 1 >"$EDM_DEBUGFS/fabric_tx_hold"
	tx=$(tx_packets)
	ip netns exec $A ping -c 1 -W 10 -s 1400 10.77.0.2 >/dev/null &
	pids=$!
	poll 10 grew "$tx" >&2
	"$EDMOP" "$dev" read 2 0 64 >/dev/null &
	pids="$pids $!"
	poll 10 read_inflight >&2
	echo 0 >"$EDM_DEBUGFS/fabric_tx_hold"
	wait $pids
	[ "$(lstat $A tx_frame_blocks)" -gt 180 ]
	lstat $A mem_wait_max
}

fair_bounds_wait() {
	local wait

	build fair
	wait=$(frame_then_read)
	note "fair: mem-wait-max $wait blocks, preemptions $(lstat $A preemptions)"
	[ "$wait" -le 1 ]
}

strict_never_waits() {
	local wait

	build strict
	wait=$(frame_then_read)
	note "strict: mem-wait-max $wait blocks"
	[ "$wait" -eq 0 ]
}

# The baseline: with no preemption, some read waits behind a frame's blocks.
none_waits_for_frames() {
	local wait

	build none
	wait=$(frame_then_read)
	note "none: mem-wait-max $wait blocks"
	[ "$(lstat $A preemptions)" -eq 0 ]
	[ "$wait" -gt 1 ]
}

run_case fair_bounds_wait "fair mux: a read waits for at most one frame block"
run_case strict_never_waits "strict mux: a read never waits for frame blocks"
run_case none_waits_for_frames "no preemption: reads wait behind frames (baseline)"
tap_done
