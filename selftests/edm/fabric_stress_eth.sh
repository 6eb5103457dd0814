#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# fabric_stress's workload over EDM over Ethernet (issue 17), between three
# network namespaces, every host on its own veth to the switch:
#
#   edms_c: compute hosts c1 (addr 1), c2 (addr 2); lossy host cl (addr 5);
#           slow host cs (addr 6)
#   edms_s: switch sw, ports 1 to 6 bound to the veths' other ends
#   edms_m: memory hosts m1 (addr 3, keyed), m2 (addr 4), 4 MiB regions each
#
# stress: both compute hosts, four threads each, random batches to both
# memory nodes checked against fabric_stress's shadow model (presenting
# m1's key): no mismatch, no timeout, and no bad block or dropped burst on
# any link.
# reorder: netem sends some of the frames between cl and the switch ahead
# of others; the ports put the bursts back in order: no op fails, no gap.
# lossy: netem drops 10% of the frames both ways between cl and the switch
# and between the switch and m1. Link-level retry sends what was lost again:
# every op of cl's completes, none times out; each end counts what it sent
# again (tx_resent). Once the loss stops, every pair works, and the workload
# from the other hosts over m1's links verifies.
# slow_egress: the switch's veth toward cs sends at 20 Mbit/s, a thousandth
# of the rate the switch schedules at, while cs reads 32 KiB at a time, 64
# in flight, then runs the checked workload: the switch holds that port
# back instead of overfilling it, so nothing is dropped, no op times out,
# and every byte read back matches the shadow model.
source "$(dirname "$0")/lib.sh"

EDMOP=$EDM_TOP/tools/edmop/edmop
STRESS=$(cd "$(dirname "$0")" && pwd)/fabric_stress
C=edms_c S=edms_s M=edms_m
LOSSY_TIMEOUT_MS=300

for t in jq tc "$EDMOP" "$STRESS"; do
	command -v "$t" >/dev/null || { echo "1..0 # SKIP $t is not installed"; exit $KSFT_SKIP; }
done

cleanup() {
	ip netns del $C 2>/dev/null
	ip netns del $S 2>/dev/null
	ip netns del $M 2>/dev/null
	rm -f /tmp/edms_*
}
trap cleanup EXIT

ctl() {
	local ns=$1

	shift
	x "$EDMCTL" -n "$ns" "$@"
}

# dev NETNS HOST: the host's /dev/edm<N>
dev() {
	echo "/dev/edm$("$EDMCTL" -n "$1" -j fabric show "$2" | jq -er '.[0].minor')"
}

# veth NETNS HOST PORT: a veth from the host's netns to the switch's port
veth() {
	local ns=$1 host=$2 port=$3

	x ip link add "es_$host" netns "$ns" type veth peer name "es_s$port" netns $S
	x ip -n "$ns" link set "es_$host" up
	x ip -n $S link set "es_s$port" up
	ctl "$ns" fabric link add "$host" dev "es_$host" peer-mac "$(netdev_mac $S "es_s$port")"
	ctl $S fabric link add "sw:$port" dev "es_s$port" peer-mac "$(netdev_mac "$ns" "es_$host")"
}

topology() {
	x modprobe veth
	x ip netns add $C
	x ip netns add $S
	x ip netns add $M
	ctl $S fabric add switch sw ports 8
	ctl $C fabric add host c1 addr 1 timeout 20000
	ctl $C fabric add host c2 addr 2 timeout 20000
	ctl $C fabric add host cl addr 5 timeout $LOSSY_TIMEOUT_MS
	ctl $M fabric add host m1 addr 3 region 4m keyed
	ctl $M fabric add host m2 addr 4 region 4m
	veth $C c1 1
	veth $C c2 2
	veth $M m1 3
	veth $M m2 4
	veth $C cl 5
	ctl $C fabric add host cs addr 6 timeout 20000
	veth $C cs 6
	"$EDMCTL" -n $S -j fabric link show sw | jq -e 'length == 6 and all(.state == "up")'
	echo "$(dev $C c1),$(dev $C c2)" >/tmp/edms_devs
	"$EDMCTL" -n $M region key 3 >/tmp/edms_key
	[ -s /tmp/edms_key ]
	dev $C cl >/tmp/edms_lossy
	dev $C cs >/tmp/edms_slow
	poll 5 test -c "$(cat /tmp/edms_lossy)"
	poll 5 test -c "$(cat /tmp/edms_slow)"
}

# links_clean NETNS NODE: none of the node's link ends lost or refused a block
links_clean() {
	"$EDMCTL" -n "$1" -s -j fabric link show "$2" | jq -e --arg n "$2" \
		'[.[] | select(.node == $n) | .stats] | length > 0 and
		 all(.sherr == 0 and .rx_bad == 0 and .tx_drops == 0)' >/dev/null
}

# dump: every node's and link end's counters, and the veths', for a failure
dump() {
	local ns

	for ns in $C $S $M; do
		"$EDMCTL" -n $ns -s -j fabric show | jq -c '.[] | {name, stats}'
		"$EDMCTL" -n $ns -s -j fabric link show | jq -c '.[] | {node, port, state, stats}'
		ip -n $ns -s -o link show type veth
	done
	echo "softnet_stat (processed, dropped, ...) per CPU:"
	cat /proc/net/softnet_stat
}

# stress_run SECONDS: the workload from c1 and c2; its last line must count
# no failure
stress_run() {
	local out

	out=$(x ip netns exec $C "$STRESS" run --seconds "$1" --threads 4 \
		--dev "$(cat /tmp/edms_devs)" --mem 3,4 --keys "$(cat /tmp/edms_key),0" \
		--region $((4 << 20)) 2>&1) ||
		{ echo "$out"; dump; return 1; }
	note "$(tail -n 1 <<<"$out")"
	grep -Eq '^fabric_stress: ops [1-9][0-9]* verified [1-9][0-9]* mismatches 0 timeouts 0 errors 0$' \
		<<<"$out" || { echo "$out"; return 1; }
}

stress() {
	stress_run 20
	note "$(echo "missed and resent bursts (late under TCG, the veths lose none): sw" \
		"$(seq_gaps $S sw) and $(link_sum $S sw tx_resent), m1 $(seq_gaps $M m1) and" \
		"$(link_sum $M m1 tx_resent)")"
	"$EDMCTL" -n $S -j fabric stats sw | jq -e '.[0].stats.drops == 0' >/dev/null
	# every link end that sent measured its RTT, which its retry timers follow
	note "link RTT (srtt_ns) at the switch's ports: $("$EDMCTL" -n $S -s -j fabric link show sw |
		jq -c 'map(.stats.srtt_ns)')"
	for ns in $C $S $M; do
		"$EDMCTL" -n $ns -s -j fabric link show | jq -e 'any(.[]; .stats.tx_bursts > 0) and
			all(.[]; .stats.tx_bursts == 0 or
				 (.stats.srtt_ns > 0 and .stats.srtt_ns < 1e9))' >/dev/null
	done
	links_clean $C c1
	links_clean $C c2
	links_clean $S sw
	links_clean $M m1
	links_clean $M m2
}

# bench DST OP: a bench of cl's on memory node DST; its JSON, even when some
# of its ops failed (edmop then exits non-zero after printing it)
bench() {
	ip netns exec $C "$EDMOP" -k "$(cat /tmp/edms_key)" -j "$(cat /tmp/edms_lossy)" \
		bench "$1" "$2" 64 "$(scaled 400)" depth 16 || true
}

# link_sum NETNS NODE KEY: a counter of the node's link ends, summed
link_sum() {
	"$EDMCTL" -n "$1" -s -j fabric link show "$2" | jq -er --arg n "$2" --arg k "$3" \
		'[.[] | select(.node == $n) | .stats[$k]] | add'
}

# seq_gaps NETNS NODE: the node's missed bursts, over its link ends
seq_gaps() {
	link_sum "$1" "$2" seq_gaps
}

# netem QDISC...: the qdisc on both ends of cl's veth and of m1's
netem() {
	local i ns d

	for i in "$S es_s5" "$S es_s3" "$C es_cl" "$M es_m1"; do
		read -r ns d <<<"$i"
		if [ "$1" = del ]; then
			x ip netns exec "$ns" tc qdisc del dev "$d" root
		else
			x ip netns exec "$ns" tc qdisc add dev "$d" root netem "$@"
		fi
	done
}

reorder() {
	local out dst op g0 g1 g2

	x modprobe sch_netem
	g0=$(seq_gaps $C cl) g1=$(seq_gaps $S sw) g2=$(seq_gaps $M m1)
	# a third of the frames go at once, the rest 2 ms later
	netem delay 2ms reorder 33%
	for dst in 3 4; do
		for op in read write; do
			out=$(bench $dst $op)
			note "reordered, cl to $dst, $op: $out"
			jq -e '.count > 0 and .errors == 0' <<<"$out" >/dev/null
		done
	done
	netem del
	[ "$(seq_gaps $C cl)" -eq "$g0" ] && [ "$(seq_gaps $S sw)" -eq "$g1" ] &&
		[ "$(seq_gaps $M m1)" -eq "$g2" ]
	"$EDMCTL" -n $C -j fabric stats cl | jq -e '.[0].stats.timeouts == 0' >/dev/null
}

lossy() {
	local out t0 dst op

	x modprobe sch_netem
	netem loss 10%
	t0=$("$EDMCTL" -n $C -j fabric stats cl | jq -er '.[0].stats.timeouts')
	for op in read write read; do
		out=$(bench 3 $op)
		note "with 10% loss, cl to m1, $op: $out"
		jq -e '.count > 0 and .errors == 0' <<<"$out" >/dev/null
	done
	# requests, grants and answers were lost, and sent again: none timed out
	"$EDMCTL" -n $C -j fabric stats cl | jq -e --argjson t0 "$t0" '.[0].stats.timeouts == $t0'
	note "$(echo "missed bursts: cl $(seq_gaps $C cl), sw $(seq_gaps $S sw), m1" \
		"$(seq_gaps $M m1); resent: cl $(link_sum $C cl tx_resent), sw" \
		"$(link_sum $S sw tx_resent), m1 $(link_sum $M m1 tx_resent);" \
		"$("$EDMCTL" -n $C -j fabric stats cl | jq -c '.[0].stats | {timeouts, stray}')," \
		"switch $("$EDMCTL" -n $S -j fabric stats sw | jq -c '.[0].stats | {drops}')")"
	# each end lost some of what it sent, and sent it again: after a NACK
	# for a gap the next burst showed, or after its timeout when nothing
	# followed the lost one (most bursts here: a batch, then the answers)
	[ "$(link_sum $C cl tx_resent)" -gt 0 ]
	[ "$(link_sum $S sw tx_resent)" -gt 0 ]
	[ "$(link_sum $M m1 tx_resent)" -gt 0 ]
	netem del
	# nothing is wedged: every pair of cl's works at once, the lossy one too
	for dst in 3 4; do
		for op in read write; do
			out=$(bench $dst $op)
			jq -e '.count > 0 and .errors == 0' <<<"$out" >/dev/null ||
				{ echo "after the loss, cl to $dst, $op: $out"; return 1; }
		done
	done
	# the workload, again, from the other hosts, over m1's links that lost
	stress_run 10
}

# sw_stat KEY: a switch counter; port6_stat KEY: a counter of its port to cs
sw_stat() {
	"$EDMCTL" -n $S -j fabric stats sw | jq -er ".[0].stats.$1"
}

port6_stat() {
	"$EDMCTL" -n $S -s -j fabric link show sw | jq -er ".[] | select(.port == 6) | .stats.$1"
}

slow_egress() {
	local out h0 d0

	x modprobe sch_netem
	h0=$(sw_stat holds) d0=$(sw_stat drops)
	x ip netns exec $S tc qdisc add dev es_s6 root netem rate 20mbit
	out=$(ip netns exec $C "$EDMOP" -j "$(cat /tmp/edms_slow)" bench 4 read 32768 \
		"$(scaled 256)" depth 64) || { echo "$out"; dump; return 1; }
	note "cs reads through a 20 Mbit/s egress: $out"
	jq -e '.count > 0 and .errors == 0' <<<"$out" >/dev/null
	out=$(x ip netns exec $C "$STRESS" run --seconds "$(scaled 10)" --threads 4 \
		--dev "$(cat /tmp/edms_slow)" --mem 3,4 --keys "$(cat /tmp/edms_key),0" \
		--region $((4 << 20)) 2>&1) || { echo "$out"; dump; return 1; }
	x ip netns exec $S tc qdisc del dev es_s6 root
	note "$(tail -n 1 <<<"$out")"
	grep -Eq '^fabric_stress: ops [1-9][0-9]* verified [1-9][0-9]* mismatches 0 timeouts 0 errors 0$' \
		<<<"$out" || { echo "$out"; dump; return 1; }
	out="switch: holds $(($(sw_stat holds) - h0)), drops $(($(sw_stat drops) - d0));"
	out+=" to cs: $(port6_stat tx_spilled) blocks spilled, $(port6_stat tx_drops) frames"
	note "$out the qdisc refused (sent again)"
	# the port was held back, and the switch dropped nothing (the qdisc's
	# refusals are the wire's losses: link-level retry sends them again)
	[ "$(sw_stat holds)" -gt "$h0" ] || { dump; return 1; }
	[ "$(sw_stat drops)" -eq "$d0" ] || { dump; return 1; }
	"$EDMCTL" -n $C -j fabric stats cs | jq -e '.[0].stats.timeouts == 0' >/dev/null
	links_clean $C cs
}

run_case topology "three netns: 4 compute and 2 memory hosts, each on its own veth"
[ -s /tmp/edms_devs ] || { tap_done; exit 1; }
run_case stress "2 x 2 random batches over veths match the shadow model, nothing lost"
run_case reorder "frames reordered on the way: bursts put back in order, no op fails"
run_case lossy "10% frame loss: lost bursts are sent again, no op fails, then every pair works"
run_case slow_egress "an egress 1000 times slower than scheduled: its port is held, nothing lost"
tap_done
