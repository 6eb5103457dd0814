#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# NetDIMM (ndimm) netdevs in the VM: a pair between two namespaces carries
# ping, iperf3, sockperf and a file whose checksum must match; the counters
# prove which path each packet took (edmctl -j netdimm stats, ethtool -S);
# a full zone falls back to ordinary pages with no drop; deletion under
# traffic, with pages still lent to a socket, and of a lower device is
# clean; the netdev behaves (MTU 9000, GSO, BQL, tc) and shows its queues
# in the netdev family (6.10+); bad input is refused.
# Each case builds its own devices and namespaces and removes them.
# Usage: ndimm.sh [CASE...] (default: all, in order).
#
# Under TCG every process costs 0.1-0.5 s, and up to 3 s under the debug
# kernel (jq, ss and python the most): cases share what setup they can,
# batch their ip(8) commands, assert each state with one edmctl and one jq,
# and poll with shell builtins. The VM has no /dev/fd: no process
# substitution.
source "$(dirname "$0")/lib.sh"

NS_A=ndt_a
NS_B=ndt_b
IP_A=10.77.0.1
IP_B=10.77.0.2
PY=/usr/bin/python3
BG=()		# background processes of the running case

for t in jq ethtool iperf3 sockperf tc ss "$PY"; do
	command -v "$t" >/dev/null || { echo "1..0 # SKIP $t is not installed"; exit $KSFT_SKIP; }
done
edm_loaded || { echo "1..0 # SKIP edm.ko is not loaded"; exit $KSFT_SKIP; }

TMPD=$(mktemp -d)
# 6.1 frees an skb that a socket let go of on the CPU that received it
# (skb_attempt_defer_free), which may keep it, and the zone pages in it,
# until that CPU's next NET_RX softirq: the zones could not be seen to get
# every page back once traffic stops. Free them at once.
defer_max=$(sysctl -n net.core.skb_defer_max 2>/dev/null)
[ -z "$defer_max" ] || sysctl -qw net.core.skb_defer_max=0
trap 'rm -rf "$TMPD"; [ -z "$defer_max" ] || sysctl -qw net.core.skb_defer_max="$defer_max"' EXIT

# The file transfers (no nc in the image); they send with via=sendall, whose
# skbs take the transmit path the cases count.
XFER=$EDM_TOP/selftests/edm/xfer.py

# ---- helpers ----

# The cases' EXIT trap: kill what the case started in the background, show
# its output, delete its devices, namespaces and files. Safe to run twice.
nd_cleanup() {
	local p line

	set +e
	trace_off edm_ndimm 2>/dev/null	# a failed tracepoints
	for p in "${BG[@]}"; do
		kill "$p" 2>/dev/null
	done
	for p in "${BG[@]}"; do
		wait "$p" 2>/dev/null
	done
	BG=()
	[ -s "$TMPD/bg.log" ] && sed 's/^/bg: /' "$TMPD/bg.log"
	while read -r line; do		# "ID: name NAME ..."; a pair goes at once
		[[ $line =~ ^[0-9]+:\ name\ ([^ ]+) ]] &&
			"$EDMCTL" netdimm del "${BASH_REMATCH[1]}" 2>/dev/null
	done <<<"$("$EDMCTL" netdimm show 2>/dev/null)"
	ip -force -b - >/dev/null 2>&1 <<-EOF
		netns del $NS_A
		netns del $NS_B
		link del vA
	EOF
	rm -f "$TMPD"/*.bin "$TMPD"/*.json "$TMPD"/*.out "$TMPD"/go "$TMPD"/bg.log
	return 0
}

# ns_pair DEV_A DEV_B: DEV_A into $NS_A as $IP_A, DEV_B into $NS_B as $IP_B,
# up, without IPv6 addresses (no stray packets in the counts).
ns_pair() {
	x ip -b - <<-EOF
		netns add $NS_A
		netns add $NS_B
		link set $1 netns $NS_A
		link set $2 netns $NS_B
	EOF
	ns_up $NS_A "$1" $IP_A
	ns_up $NS_B "$2" $IP_B
}

ns_up() {
	ip -n "$1" -b - <<-EOF
		link set lo up
		link set $2 addrgenmode none
		addr add $3/24 dev $2
		link set $2 up
	EOF
}

# pair ARGS...: NetDIMMs nda and ndb joined by a wire (ARGS for "add"),
# nda in $NS_A, ndb in $NS_B.
pair() {
	x "$EDMCTL" netdimm add nda peer ndb "$@" >/dev/null
	ns_pair nda ndb
}

in_a() {
	ip netns exec $NS_A "$@"
}

in_b() {
	ip netns exec $NS_B "$@"
}

# bg NS CMD...: run CMD in netns NS in the background, its output (and
# the TAP descriptor 3) away from the case's; its pid joins BG. Not
# through a shell function: $! must be CMD itself, for nd_cleanup's kill.
bg() {
	local ns=$1

	shift
	ip netns exec "$ns" "$@" </dev/null >>"$TMPD/bg.log" 2>&1 3>&- &
	BG+=($!)
}

# fails CMD...: CMD must fail (an assertion set -e honours, unlike "! CMD").
fails() {
	if "$@" >/dev/null 2>&1; then
		echo "should have failed: $*" >&2
		return 1
	fi
}

# ready PID PORT: process PID (a bg one) listens on PORT, TCP or UDP. Read
# from /proc/PID/net, its netns's view, with no process of our own: under
# the debug kernel an ss(8) takes seconds.
ready() {
	local hex tcp udp

	printf -v hex '%04X' "$2"
	tcp=$(<"/proc/$1/net/tcp") || return 1
	udp=$(<"/proc/$1/net/udp") || return 1
	[[ $tcp == *":$hex 00000000:0000 0A"* || $udp == *":$hex 00000000:0000 07"* ]]
}

# check JQ-EXPR: every device's counters, as one object keyed by device
# name ({"nda": {"tx_packets": ...}, ...}), satisfy JQ-EXPR; shown if not.
check() {
	local c

	echo "+ check $1" >&2
	c=$("$EDMCTL" -j netdimm stats)
	jq -e "map({(.name): .stats}) | add // {} | $1" >/dev/null <<<"$c" ||
		{ echo "counters: $c" >&2; return 1; }
}

# Like check, but polled: for counters that settle once traffic stops.
check_soon() {
	poll 30 check "$1" 2>/dev/null || check "$1"
}

# zones [JQ-ARGS...] JQ-EXPR: `netdimm zone show`'s JSON satisfies it.
zones() {
	"$EDMCTL" -j netdimm zone show | jq -e "$@" >/dev/null
}

# Once traffic stops, the stack lets go of every page it was lent.
zones_settled() {
	zones 'all(.[].zone; .lent == 0)'
}

zone_report() {
	"$EDMCTL" -j netdimm zone show | jq -c '.[]' >&2
	in_a ss -tanm >&2
	in_b ss -tanm >&2
}

# eth_json DEV [NS]: the device's totals in `ethtool -S DEV` as JSON, under
# edmctl's names (zone_alloc_same_subarray is alloc_same); the queue
# pairs' own counters (tx<i>_*, rx<i>_*) left out.
eth_json() {
	ethtool_json "$1" "$2" | jq -c 'with_entries(select(.key | test("^[rt]x[0-9]+_") | not)
		| .key |= (sub("_subarray$"; "") | sub("^zone_"; "")))'
}

# eth_queues DEV [NS]: the queue pairs' counters in `ethtool -S DEV`, as
# [{tx_packets, ..., rx_polls}, ...] by pair.
eth_queues() {
	ethtool_json "$1" "$2" | jq -c '[to_entries[]
		| (.key | capture("^(?<d>[rt]x)(?<q>[0-9]+)_(?<n>.*)")) as $c
		| {q: ($c.q | tonumber), k: "\($c.d)_\($c.n)", value}]
		| group_by(.q) | map(map({(.k): .value}) | add)'
}

# queues_add_up DEV [NS]: the pairs' counters add up to the device's totals.
queues_add_up() {
	local e q

	e=$(eth_json "$1" "$2")
	q=$(eth_queues "$1" "$2")
	jq -ne --argjson e "$e" --argjson q "$q" '
		all(["tx_packets", "tx_bytes", "tx_drops", "rx_packets", "rx_bytes", "rx_drops"][];
			. as $k | ($q | map(.[$k]) | add) == $e[$k])
		and ($q | map(.rx_polls) | add) == $e.polls' >/dev/null ||
		{ echo "device: $e"; echo "queues: $q"; return 1; }
}

# eth_agrees DEV NS: ethtool -S and edmctl report the same counters.
eth_agrees() {
	local e c

	e=$(eth_json "$1" "$2")
	c=$("$EDMCTL" -j netdimm stats "$1")
	jq -ne --argjson e "$e" --argjson c "$c" '$e == $c[0].stats' >/dev/null ||
		{ echo "ethtool: $e"; echo "edmctl:  $c"; return 1; }
}

# iperf SECS [ARGS...]: iperf3 from $NS_A to $NS_B, which must move bytes.
iperf() {
	local secs=$1

	shift
	bg $NS_B iperf3 -s -1 -B $IP_B
	poll 60 ready "${BG[-1]}" 5201
	x in_a timeout $((secs + 120)) iperf3 -c $IP_B -t "$secs" -J "$@" >"$TMPD/iperf.json" ||
		{ cat "$TMPD/iperf.json"; return 1; }
	jq -e '.end.sum_received | ., .bytes > 0' "$TMPD/iperf.json" >&2
}

# rtt_min NS ADDR COUNT [ARGS...]: the minimum ping RTT, in ms.
rtt_min() {
	local ns=$1 addr=$2 n=$3 out

	shift 3
	out=$(ip netns exec "$ns" ping -q -c "$n" -i 0.2 -W 5 "$@" "$addr") ||
		{ echo "$out" >&2; return 1; }
	echo "$out" >&2
	[[ $out =~ rtt\ min/avg/max/mdev\ =\ ([0-9.]+)/ ]] && echo "${BASH_REMATCH[1]}"
}

# at_least X Y: X >= Y, as decimals.
at_least() {
	awk -v x="$1" -v y="$2" 'BEGIN { exit !(x >= y) }'
}

# mkfile PATH MIB: random contents.
mkfile() {
	head -c "$(($2 << 20))" /dev/urandom >"$1"
}

same_file() {
	local a b

	a=$(sha256sum <"$1")
	b=$(sha256sum <"$2")
	echo "sha256 $1: $a, $2: $b" >&2
	[ "$a" = "$b" ]
}

# receive PORT [OPTS...]: the file receiver in $NS_B, listening; see xfer.py.
receive() {
	local port=$1

	shift
	bg $NS_B "$PY" "$XFER" recv "$port" "$TMPD/out.bin" "$@"
	poll 60 ready "${BG[-1]}" "$port"
}

# ---- cases ----

# Create, show (JSON), the netdevs and char devices, delete both at once.
create_show_delete() {
	local show z0 z1

	trap nd_cleanup EXIT
	x "$EDMCTL" -j netdimm add nda size 16M peer ndb | jq -e '
		length == 1 and .[0].name == "nda" and .[0].peer == "ndb"'
	show=$("$EDMCTL" -j netdimm show)
	echo "$show" >&2
	jq -e --argjson ia "$(cat /sys/class/net/nda/ifindex)" \
		--argjson ib "$(cat /sys/class/net/ndb/ifindex)" '
		length == 2 and (map(.name) | sort) == ["nda", "ndb"]
		and (map(select(.name == "nda"))[0] | .ifindex == $ia and .peer == "ndb"
			and .poll_us == 0 and .rx_mode == "zerocopy" and .wire_mbps == 0
			and .wire_delay_ns == 0 and (has("lower") | not))
		and (map(select(.name == "ndb"))[0] | .ifindex == $ib and .peer == "nda")
		and all(.[].zone; .size == 16777216 and .free > 0 and .free < .size and .lent == 0
			and .name == "NET\(.index)"
			and .geometry == {row_bytes: 1024, devices: 8, banks: 16, subarrays: 512,
					  rows: 128})
		and (map(.zone.index) | unique | length) == 2' <<<"$show" >/dev/null
	read -r z0 z1 <<<"$(jq -r 'map(.zone.index) | @tsv' <<<"$show")"
	[ -c "/dev/ndimm$z0" ]
	[ -c "/dev/ndimm$z1" ]
	# zone show is show's zones
	x "$EDMCTL" -j netdimm zone show | jq -e --argjson show "$show" '. == ($show | map({name, zone}))'
	x ethtool -i nda | tee /dev/stderr | grep -qx "driver: edm-ndimm"
	ethtool -i nda | grep -qx "bus-info: NET$z0"
	# ethtool -S names every counter edmctl shows
	eth_agrees nda ""
	queues_add_up nda ""
	[ "$(edm_objects dev)" = 2 ]
	x "$EDMCTL" netdimm del ndb		# takes its peer along
	x "$EDMCTL" -j netdimm show | jq -e 'length == 0'
	[ ! -e /sys/class/net/nda ]
	[ ! -e /sys/class/net/ndb ]
	[ ! -e "/dev/ndimm$z0" ]
	[ ! -e "/dev/ndimm$z1" ]
	[ "$(edm_objects dev)" = 0 ]
}

# Both ways, then with 9000-byte frames: a jumbo frame spans three zone
# pages, and one too big for the MTU is refused with DF.
ping_mtu() {
	trap nd_cleanup EXIT
	pair size 16M
	x in_a ping -c "$(scaled 5)" -i 0.2 -W 5 $IP_B
	x in_b ping -c 2 -i 0.2 -W 5 $IP_A
	x in_a ip link set nda mtu 9000
	x in_b ip link set ndb mtu 9000
	fails in_a ip link set nda mtu 9001
	x in_a ping -c 3 -i 0.2 -W 5 -M "do" -s 8000 $IP_B
	x in_a ping -c 1 -W 5 -M "do" -s 8972 $IP_B
	fails in_a ping -c 1 -W 5 -M "do" -s 8973 $IP_B
	check '.nda.tx_packets > 0 and .ndb.rx_packets > 0 and .ndb.rx_zerocopy > 0
		and .nda.tx_drops == 0 and .ndb.rx_drops == 0 and .ndb.tx_drops == 0
		and .nda.rx_drops == 0'
}

# iperf3 through the copy path: the counters account for every packet;
# TSO makes packets larger than the MTU; BQL sees bytes and drains.
iperf_counters() {
	local bql=/sys/class/net/nda/queues/tx-*/byte_queue_limits

	trap nd_cleanup EXIT
	pair size 16M
	in_a sh -c "for q in $bql; do test -r \$q/inflight && test -r \$q/limit || exit 1; done"
	iperf "$(scaled 3)"
	check_soon '.nda.tx_packets == .ndb.rx_packets and .nda.tx_bytes == .ndb.rx_bytes
		and .ndb.tx_packets == .nda.rx_packets'
	# Algorithm 1: a socket's bytes are not in the zone, so each packet is
	# COPY_NEEDED, one host copy and one wire copy; the receiver leaves the
	# payload in its zone, and the ACKs come back inside the descriptors.
	# GSO/TSO: the segments leave as super-packets.
	check '.nda as $a | .ndb as $b
		| $a.tx_copy_needed > 0 and $a.tx_fast_path == 0
		and $a.tx_copy_needed + $a.tx_fast_path == $a.tx_packets
		and $a.host_copies == $a.tx_copy_needed and $a.wire_copies == $a.tx_packets
		and $a.tx_sock_hints > 0 and $a.tx_drops == 0 and $a.tx_zone_fallback == 0
		and $b.rx_zerocopy > 0 and $b.rx_zerocopy <= $b.rx_packets and $b.rx_cloned == 0
		and $b.rx_drops == 0 and $b.rx_zone_fallback == 0
		and $b.alloc_same > 0 and $b.cache_hits > 0 and $b.reclaimed > 0
		and $a.rx_inline > 0 and $a.polls > 0
		and $a.tx_bytes / $a.tx_packets > 1500'
	# ethtool -S and the netdev's statistics read the same counters
	poll 30 eth_agrees nda $NS_A >/dev/null || eth_agrees nda $NS_A
	poll 30 eth_agrees ndb $NS_B >/dev/null || eth_agrees ndb $NS_B
	[ "$(in_a cat /sys/class/net/nda/statistics/tx_packets)" = \
	  "$("$EDMCTL" -j netdimm stats nda | jq '.[0].stats.tx_packets')" ]
	# BQL: everything sent was completed, on every queue
	poll 30 in_a sh -c "[ \"\$(cat $bql/inflight | sort -u)\" = 0 ]"
	# and the zones got every lent page back
	poll 20 zones_settled || { zone_report; return 1; }
}

# ynl NS ARGS...: the kernel's YNL client on the netdev family in netns NS,
# JSON out.
YNL=$EDM_TOP/build/ynl
ynl() {
	local ns=$1

	shift
	ip netns exec "$ns" "$PY" "$YNL/cli.py" --spec "$YNL/netdev.yaml" --no-schema \
		--output-json "$@"
}

# netdev_has OP: the running kernel's netdev family has operation OP (the
# nth of the spec's list is command n), as its genetlink controller says.
netdev_has() {
	local id fam

	id=$("$PY" -c 'import sys, yaml
ops = [o["name"] for o in yaml.safe_load(open(sys.argv[1]))["operations"]["list"]]
print(ops.index(sys.argv[2]) + 1)' "$YNL/netdev.yaml" "$1")
	fam=$("$PY" "$YNL/cli.py" --spec "$YNL/nlctrl.yaml" --no-schema --output-json \
		--do getfamily --json '{"family-name": "netdev"}' 2>/dev/null) || return 1
	jq -e --argjson id "$id" '[.ops[][].id] | index($id) != null' >/dev/null <<<"$fam"
}

# qstats_agree IFINDEX N: nda's N queues of each direction and its device
# totals in the netdev family (qstats-get) are ethtool -S's counters, queue
# by queue; read back to back, so a stray ARP between them is polled away.
qstats_agree() {
	local e eq q d

	q=$(ynl $NS_A --dump qstats-get --json "{\"ifindex\": $1, \"scope\": \"queue\"}")
	d=$(ynl $NS_A --dump qstats-get --json "{\"ifindex\": $1}")
	e=$(eth_json nda $NS_A)
	eq=$(eth_queues nda $NS_A)
	jq -ne --argjson e "$e" --argjson eq "$eq" --argjson q "$q" --argjson d "$d" \
		--argjson i "$1" --argjson n "$2" '
		($q | map(select(.["queue-type"] == "rx")) | sort_by(.["queue-id"])) as $rx
		| ($q | map(select(.["queue-type"] == "tx")) | sort_by(.["queue-id"])) as $tx
		| ($rx | length) == $n and ($tx | length) == $n and ($eq | length) >= $n
		and $e.rx_packets >= 4 and $e.tx_packets >= 4 and all($q[]; .ifindex == $i)
		and ($rx | map(.["queue-id"])) == [range($n)]
		and ($tx | map(.["queue-id"])) == [range($n)]
		and all(range($n); . as $k | $rx[$k]["rx-packets"] == $eq[$k].rx_packets
			and $rx[$k]["rx-bytes"] == $eq[$k].rx_bytes
			and $rx[$k]["rx-hw-drops"] == $eq[$k].rx_drops
			and $tx[$k]["tx-packets"] == $eq[$k].tx_packets
			and $tx[$k]["tx-bytes"] == $eq[$k].tx_bytes
			and $tx[$k]["tx-hw-drops"] == $eq[$k].tx_drops)
		and ($d | length) == 1 and $d[0]["rx-packets"] == $e.rx_packets
		and $d[0]["rx-bytes"] == $e.rx_bytes and $d[0]["tx-packets"] == $e.tx_packets
		and $d[0]["tx-bytes"] == $e.tx_bytes and $d[0]["rx-hw-drops"] == $e.rx_drops
		and $d[0]["tx-hw-drops"] == $e.tx_drops' >/dev/null ||
		{ echo "ethtool: $e $eq"; echo "queues: $q"; echo "device: $d"; return 1; }
}

# queues_napi IFINDEX N: queue-get lists N queues of each direction, queue
# i of both served by one NAPI, each pair by its own.
queues_napi() {
	local q

	q=$(ynl $NS_A --dump queue-get --json "{\"ifindex\": $1}")
	jq -e --argjson n "$2" 'length == 2 * $n and all(.[]; .["napi-id"] > 0)
		and (group_by(.id) | length == $n and all(.[]; map(.["napi-id"]) | unique | length == 1))
		and (map(.["napi-id"]) | unique | length == $n)' >/dev/null <<<"$q" ||
		{ echo "queues: $q"; return 1; }
}

# The netdev family's view of an ndimm, read with the kernel's YNL client
# as a user of 6.10 or later would: per queue (qstats-get, scope queue),
# each queue holds its pair's counters as ethtool -S has them, and the
# device's totals are the same; queue-get names one NAPI per queue pair while
# the device is up (and lists none while it is down); after ethtool -L
# with one pair fewer, the pair gone counts in the base stats, so the
# totals stay. Skipped where the family lacks qstats-get (6.1: no netdev
# family at all).
queue_stats() {
	local ifi n

	[ -f "$YNL/cli.py" ] || { echo "no $YNL (make selftests)"; return 1; }
	netdev_has qstats-get || skip "the netdev family has no qstats-get (Linux 6.10+)"
	trap nd_cleanup EXIT
	pair size 16M
	n=$(in_a ethtool -l nda | awk '/^Combined:/ { n = $2 } END { print n }')
	x in_a ping -c "$(scaled 5)" -i 0.2 -W 5 $IP_B
	x in_b ping -c 2 -i 0.2 -W 5 $IP_A
	ifi=$(in_a cat /sys/class/net/nda/ifindex)
	poll 20 qstats_agree "$ifi" "$n" >/dev/null || qstats_agree "$ifi" "$n"
	queues_napi "$ifi" "$n"
	# down, the family lists no queue of it; up again, the links are back
	x in_a ip link set nda down
	q=$(ynl $NS_A --dump queue-get --json "{\"ifindex\": $ifi}")
	jq -e 'length == 0' >/dev/null <<<"$q" || { echo "queues while down: $q"; return 1; }
	x in_a ip link set nda up
	queues_napi "$ifi" "$n"
	[ "$n" -gt 1 ] || return 0
	x in_a ethtool -L nda combined $((n - 1))
	queues_napi "$ifi" $((n - 1))
	poll 20 qstats_agree "$ifi" $((n - 1)) >/dev/null || qstats_agree "$ifi" $((n - 1))
}

# ethtool_field TITLE NAME: in `ethtool -l` or `-g` output on stdin, NAME's
# value under the heading that starts with TITLE ("Pre-set", "Current").
ethtool_field() {
	awk -v t="$1" -v n="$2:" '/:$/ { in_t = index($0, t) == 1 } in_t && $1 == n { print $2 }'
}

# chan NS DEV: the combined channels now and at most ("N MAX").
chan() {
	local l

	l=$(ip netns exec "$1" ethtool -l "$2")
	echo "$(ethtool_field <<<"$l" Current Combined)" \
		"$(ethtool_field <<<"$l" Pre-set Combined)"
}

# rings NS DEV: the RX and TX descriptors now, and at most ("RX TX RXMAX TXMAX").
rings() {
	local g

	g=$(ip netns exec "$1" ethtool -g "$2")
	echo "$(ethtool_field <<<"$g" Current RX)" "$(ethtool_field <<<"$g" Current TX)" \
		"$(ethtool_field <<<"$g" Pre-set RX)" "$(ethtool_field <<<"$g" Pre-set TX)"
}

# queue_used DEV NS K KEY: queue pair K of DEV counted 5 or more KEY.
queue_used() {
	eth_queues "$1" "$2" | jq -e --argjson k "$3" ".[\$k].$4 >= 5" >/dev/null
}

# ethtool -l/-L and -g/-G, as with any multi-queue NIC: one queue pair per
# CPU (as many as there may be, 16 at most), 256 descriptors a ring, 4096
# at most. A ping pinned to each CPU leaves on that CPU's queue (XPS) and
# arrives on the peer's queue of the same index; the pairs' counters add
# up to the device's. Ring sizes round up to a power of two; sizes and
# counts change under iperf3 traffic, which goes on, and nothing is lost
# that the counters do not count; bad values are refused with the reason,
# and a zone too small for the rings asked for keeps the ones it has.
queues_rings() {
	local cpus max n r rx k

	trap nd_cleanup EXIT
	pair size 16M
	cpus=$(nproc)
	max=$(($(cut -d- -f2 /sys/devices/system/cpu/possible) + 1))
	[ "$max" -le 16 ] || max=16
	[ "$(chan $NS_A nda)" = "$((cpus < max ? cpus : max)) $max" ]
	[ "$(rings $NS_A nda)" = "256 256 4096 4096" ]
	n=$((cpus < max ? cpus : max))
	for ((k = 0; k < n; k++)); do
		x in_a taskset -c "$k" ping -c 5 -i 0.2 -W 5 -q $IP_B
	done
	for ((k = 0; k < n; k++)); do
		queue_used nda $NS_A "$k" tx_packets || { eth_queues nda $NS_A; return 1; }
		queue_used ndb $NS_B "$k" rx_packets || { eth_queues ndb $NS_B; return 1; }
	done
	poll 20 queues_add_up nda $NS_A >/dev/null || queues_add_up nda $NS_A
	poll 20 queues_add_up ndb $NS_B >/dev/null || queues_add_up ndb $NS_B
	# sizes round up; refusals say why and change nothing
	x in_a ethtool -G nda rx 100 tx 300
	[ "$(rings $NS_A nda)" = "128 512 4096 4096" ]
	expect_error_in "64 descriptors at least" in_a ethtool -G nda rx 32
	fails in_a ethtool -G nda tx 8192
	fails in_a ethtool -L nda combined 0
	fails in_a ethtool -L nda combined $((max + 1))
	fails in_a ethtool -L nda rx 1
	[ "$(rings $NS_A nda)" = "128 512 4096 4096" ]
	[ "$(chan $NS_A nda)" = "$n $max" ]
	# changes under traffic
	bg $NS_B iperf3 -s -1 -B $IP_B
	poll 60 ready "${BG[-1]}" 5201
	bg $NS_A iperf3 -c $IP_B -t 300 -P 2	# stopped below
	poll 60 check '.ndb.rx_packets > 200'
	for r in "-L nda combined 1" "-G nda rx 1024 tx 64" "-L nda combined $n" "-G nda rx 256 tx 256"; do
		x in_a ethtool $r
		x in_b ethtool ${r/nda/ndb}
		# the traffic goes on: ndb receives 100 packets more
		rx=$(stat_of ndb rx_packets)
		poll 60 check ".ndb.rx_packets > $rx + 100"
	done
	[ "$(chan $NS_B ndb)" = "$n $max" ]
	kill "${BG[@]}"
	check_soon '.nda.tx_packets == .ndb.rx_packets + .ndb.rx_drops
		and .ndb.tx_packets == .nda.rx_packets + .nda.rx_drops'
	x in_a ping -c 3 -i 0.2 -W 5 $IP_B
	poll 20 queues_add_up nda $NS_A >/dev/null || queues_add_up nda $NS_A
	poll 20 zones_settled || { zone_report; return 1; }
	# a 4 MiB zone has no room for 4096-descriptor rings
	nd_cleanup
	trap nd_cleanup EXIT
	pair size 4M
	expect_error_in "no room for these rings" in_a ethtool -G nda rx 4096 tx 4096
	[ "$(rings $NS_A nda)" = "256 256 4096 4096" ]
	x in_a ping -c 2 -i 0.2 -W 5 $IP_B
}

sockperf_pp() {
	trap nd_cleanup EXIT
	pair size 16M
	bg $NS_B sockperf sr -i $IP_B -p 11111
	poll 60 ready "${BG[-1]}" 11111
	bg $NS_B sockperf sr --tcp -i $IP_B -p 11112
	poll 60 ready "${BG[-1]}" 11112
	x in_a sockperf pp -i $IP_B -p 11111 -t "$(scaled 2)" >"$TMPD/sp.out" 2>&1 ||
		{ cat "$TMPD/sp.out"; return 1; }
	x in_a sockperf pp --tcp -i $IP_B -p 11112 -t "$(scaled 2)" >>"$TMPD/sp.out" 2>&1 ||
		{ cat "$TMPD/sp.out"; return 1; }
	grep -E 'Summary: Latency is|dropped messages' "$TMPD/sp.out" >&2
	[ "$(grep -c 'Summary: Latency is [0-9.]* usec' "$TMPD/sp.out")" = 2 ]
	check '.nda.tx_drops == 0 and .ndb.rx_drops == 0 and .ndb.tx_drops == 0
		and .nda.rx_drops == 0'
}

# A random file through a plain TCP socket arrives intact.
file_transfer() {
	local mib

	trap nd_cleanup EXIT
	mib=$(scaled 20)
	pair size 16M
	mkfile "$TMPD/in.bin" "$mib"
	receive 7001
	x in_a timeout 120 "$PY" "$XFER" send $IP_B 7001 "$TMPD/in.bin" via=sendall
	wait "${BG[0]}"
	same_file "$TMPD/in.bin" "$TMPD/out.bin"
	check ".nda.tx_bytes > $((mib << 20)) and .ndb.rx_bytes > $((mib << 20))
		and .nda.tx_copy_needed > 0 and .ndb.rx_zerocopy > 0
		and .nda.tx_drops == 0 and .ndb.rx_drops == 0"
}

# The smallest zone, filled by a receiver that does not read: the receive
# path falls back to ordinary pages, so does the full side's transmit path
# (for packets past the inline size), nothing is dropped, iperf3 runs
# meanwhile, and the file is intact. Then the zone recovers: after more
# traffic every page comes back, and the allocCache holds pages again.
zone_exhaustion() {
	local idle

	trap nd_cleanup EXIT
	pair size 4M
	idle=$("$EDMCTL" -j netdimm zone show |
		jq -c 'map({(.name): (.zone.free + .zone.cached * 4096)}) | add')
	# an 8 MiB window (half the buffer) holds the whole file: more than the zone
	mkfile "$TMPD/in.bin" 6
	receive 7002 go="$TMPD/go" rcvbuf=16777216
	bg $NS_A timeout 240 "$PY" "$XFER" send $IP_B 7002 "$TMPD/in.bin" via=sendall
	poll 120 check '.ndb.rx_zone_fallback > 0'
	x "$EDMCTL" -j netdimm zone show ndb | jq -c '.[0].zone' >&2
	# what the full side sends needs a page too (pings past the inline size)
	x in_b ping -c 2 -i 0.2 -W 5 -s 1000 $IP_A
	iperf "$(scaled 2)"
	touch "$TMPD/go"
	wait "${BG[1]}"
	wait "${BG[0]}"
	same_file "$TMPD/in.bin" "$TMPD/out.bin"
	check '.ndb.rx_zone_fallback > 0 and .ndb.tx_zone_fallback > 0 and .ndb.alloc_fail > 0
		and .nda.tx_copy_needed > 0 and .ndb.tx_copy_needed > 0
		and .nda.rx_drops == 0 and .ndb.rx_drops == 0
		and .nda.tx_drops == 0 and .ndb.tx_drops == 0'
	x in_a ping -c 3 -i 0.2 -W 5 -s 1000 $IP_B
	poll 20 zones_settled || { zone_report; return 1; }
	poll 20 zones 'all(.[].zone; .cached >= .subarrays)' || { zone_report; return 1; }
	zones --argjson idle "$idle" 'all(.[]; .zone.free + .zone.cached * 4096 == $idle[.name])'
}

# Deleting the pair while iperf3 runs returns, and leaves nothing behind.
delete_under_traffic() {
	local z

	trap nd_cleanup EXIT
	pair size 16M
	z=$("$EDMCTL" -j netdimm show nda | jq -r '.[0].zone.index')
	bg $NS_B iperf3 -s -1 -B $IP_B
	poll 60 ready "${BG[-1]}" 5201
	bg $NS_A iperf3 -c $IP_B -t 300
	poll 60 check '.ndb.rx_packets > 200'
	x timeout 120 "$EDMCTL" netdimm del nda
	x "$EDMCTL" -j netdimm show | jq -e 'length == 0'
	[ "$(edm_objects dev)" = 0 ]
	[ ! -e "/dev/ndimm$z" ]
	fails in_a ip link show nda
	fails in_b ip link show ndb
	# the sockets outlive the devices and may hold pages; they go now
	nd_cleanup
	[ "$(edm_objects dev)" = 0 ]
}

# Deleting the pair while a socket's receive queue holds zone pages: the
# pages outlive the zone, and the bytes in them are still the sender's.
delete_with_lent_pages() {
	local got

	trap nd_cleanup EXIT
	pair size 8M
	mkfile "$TMPD/in.bin" 4
	receive 7003 go="$TMPD/go" idle=3 rcvbuf=4194304
	bg $NS_A timeout 120 "$PY" "$XFER" send $IP_B 7003 "$TMPD/in.bin" via=sendall
	poll 60 zones '.[] | select(.name == "ndb") | .zone.lent > 64'
	x "$EDMCTL" netdimm del nda
	[ "$(edm_objects dev)" = 0 ]
	touch "$TMPD/go"
	wait "${BG[0]}"
	got=$(stat -c %s "$TMPD/out.bin")
	echo "received $got bytes before the wire went" >&2
	[ "$got" -gt 0 ]
	[ "$(head -c "$got" "$TMPD/in.bin" | sha256sum)" = "$(sha256sum <"$TMPD/out.bin")" ]
}

# The receive path can clone the payload within the zone (FPM when the
# copy stays on its sub-array).
rx_clone() {
	trap nd_cleanup EXIT
	pair size 16M rx-mode clone
	x "$EDMCTL" -j netdimm show nda | jq -e '.[0].rx_mode == "clone"'
	x in_a ping -c 3 -i 0.2 -W 5 -s 1000 $IP_B
	iperf 1
	check '.ndb.rx_cloned > 0 and .ndb.clone_fpm > 0 and .ndb.clone_bytes > 0
		and .ndb.clone_modeled_ns > 0 and .nda.rx_cloned > 0 and .ndb.rx_zerocopy == 0
		and .ndb.rx_drops == 0 and .nda.rx_drops == 0'
}

# The polling agent: an hrtimer polls the rings every poll-us, even idle
# (every 200 us; slower on a slow kernel, where it would eat the machine).
poll_mode() {
	local p0 us=$((200 * ${EDM_TEST_SCALE:-1}))

	trap nd_cleanup EXIT
	pair size 16M poll-us $us
	x "$EDMCTL" -j netdimm show nda | jq -e --argjson us $us '.[0].poll_us == $us'
	x in_a ping -c 3 -i 0.2 -W 5 $IP_B
	p0=$("$EDMCTL" -j netdimm stats ndb | jq '.[0].stats.polls')
	poll 30 check ".ndb.polls > $p0 + 20"
}

# The wire's model: 2 ms of latency each way, so no reply comes back in
# under 4 ms; 20 Mbit/s, so 2 MiB take at least 0.84 s to cross, whatever
# the machine (0.8 s asserted). Lower bounds on time, never upper ones.
wire_model() {
	local rtt t0 t1

	trap nd_cleanup EXIT
	pair size 16M wire-delay 2000000 wire-rate 20
	x "$EDMCTL" -j netdimm show nda | jq -e '.[0] | .wire_delay_ns == 2000000 and .wire_mbps == 20'
	rtt=$(rtt_min $NS_A $IP_B 5)
	at_least "$rtt" 4.0
	mkfile "$TMPD/in.bin" 2
	receive 7004
	t0=$EPOCHREALTIME
	x in_a timeout 120 "$PY" "$XFER" send $IP_B 7004 "$TMPD/in.bin" via=sendall
	t1=$EPOCHREALTIME
	wait "${BG[0]}"
	same_file "$TMPD/in.bin" "$TMPD/out.bin"
	echo "2 MiB from $t0 to $t1" >&2
	at_least "$t1" "$(awk -v t="$t0" 'BEGIN { printf "%.6f", t + 0.8 }')"
}

# qdiscs work on an ndimm: tbf counts what it sent, netem adds its delay.
tc_qdisc() {
	local rtt

	trap nd_cleanup EXIT
	modprobe -q sch_tbf 2>/dev/null || true
	modprobe -q sch_netem 2>/dev/null || true
	pair size 16M
	x in_a tc qdisc add dev nda root tbf rate 100mbit burst 32k latency 50ms
	x in_a ping -c 3 -i 0.2 -W 5 $IP_B
	x in_a tc -s -j qdisc show dev nda | tee /dev/stderr | jq -e '
		.[0].kind == "tbf" and .[0].packets >= 3 and .[0].bytes > 0'
	x in_a tc qdisc replace dev nda root netem delay 5ms
	rtt=$(rtt_min $NS_A $IP_B 3)
	at_least "$rtt" 5.0
	in_a tc -s -j qdisc show dev nda | jq -e '.[0].kind == "netem" and .[0].packets >= 3'
}

carrier() {
	ip netns exec "$1" cat "/sys/class/net/$2/carrier"
}

carrier_off() {
	[ "$(carrier "$1" "$2")" = 0 ]
}

# lower mode: ndimms riding on a veth pair, one in each namespace; the
# veth goes first, and the ndimms stay, without carrier, until deleted.
lower_mode() {
	trap nd_cleanup EXIT
	modprobe -q veth 2>/dev/null || true
	x ip -b - <<-EOF
		link add vA type veth peer name vB
		link set vA up
		link set vB up
	EOF
	x "$EDMCTL" netdimm add la size 8M lower vA >/dev/null
	x "$EDMCTL" netdimm add lb size 8M lower vB >/dev/null
	x "$EDMCTL" -j netdimm show | jq -e --argjson ia "$(cat /sys/class/net/vA/ifindex)" \
		--argjson ib "$(cat /sys/class/net/vB/ifindex)" '
		length == 2 and (map(select(.name == "la"))[0] | .lower == $ia and (has("peer") | not))
		and (map(select(.name == "lb"))[0].lower == $ib)'
	# our header rides in the lower device's frame
	[ "$(cat /sys/class/net/la/mtu)" -le 1472 ]
	ns_pair la lb
	x in_a ping -c 3 -i 0.2 -W 5 $IP_B
	iperf "$(scaled 2)"
	# No backpressure from a lower device: a full RX ring drops, as a NIC's
	# does, so rx_drops may grow. Lower mode counts a wire copy at both
	# ends: into the frame, and out of it into the zone.
	check '.la.tx_copy_needed > 0 and .lb.rx_zerocopy > 0
		and .la.tx_drops == 0 and .lb.tx_drops == 0'
	check_soon 'all(.la, .lb; .wire_copies == .tx_packets + .rx_packets + .rx_drops)'
	x ip link del vA
	poll 10 carrier_off $NS_A la
	carrier_off $NS_B lb
	x "$EDMCTL" -j netdimm show | jq -e 'length == 2 and all(.[]; has("lower") | not)'
	fails in_a ping -c 1 -W 1 $IP_B
	x "$EDMCTL" netdimm del la
	x "$EDMCTL" netdimm del lb
	[ "$(edm_objects dev)" = 0 ]
	fails in_a ip link show la
}

# Deleting the namespaces first hands the netdevs back to init_net.
# As a veth pair: the namespace's death deletes the device in it and its
# peer in the other namespace, and the edm devices, zones and /dev/ndimm<i>
# with them (dellink). The netns goes in a kernel worker: poll.
netns_first() {
	trap nd_cleanup EXIT
	pair size 4M
	x in_a ping -c 1 -W 5 $IP_B
	x ip netns del $NS_A
	poll 30 edm_objects_are dev 0
	fails ip -n $NS_B link show ndb
	x "$EDMCTL" -j netdimm show | jq -e 'length == 0'
	! compgen -G '/dev/ndimm*' >/dev/null
}

# `ip link add` makes the same object as edmctl (one path in the kernel):
# without the plug-in, a 32 MiB pair whose peer is ndimm<N>; with it, the
# parameters given, shown by edmctl and by `ip -d link`. Both kinds of
# pair go with `ip link del` of either end, from any namespace; bad input
# gets the kernel's message through ip and leaves nothing behind.
iplink() {
	local id

	trap nd_cleanup EXIT
	x ip link add nd0 type ndimm
	x "$EDMCTL" -j netdimm show | jq -e '
		length == 2 and (map(.name) | sort) == ["nd0", "ndimm0"]
		and (map(select(.name == "nd0"))[0].peer == "ndimm0")
		and all(.[]; .zone.size == 33554432 and .rx_mode == "zerocopy")'
	x ip -j -d link show nd0 | jq -e '.[0].linkinfo.info_kind == "ndimm"'
	id=$("$EDMCTL" -j netdimm show | jq -e '.[] | select(.name == "nd0") | .id')
	x ipl -j -d link show nd0 | jq -e --argjson id "$id" '.[0].linkinfo.info_data |
		.edm_id == $id and .peer == "ndimm0" and .size == 33554432
		and .rx_mode == "zerocopy" and .poll_us == 0 and .wire_mbps == 0
		and .wire_delay_ns == 0 and .numa_node >= 0 and (has("lower") | not)'
	[ "$(edm_objects dev)" = 2 ]
	x ip link del ndimm0		# takes nd0 along
	[ ! -e /sys/class/net/nd0 ]
	nothing_made

	# the plug-in's parameters; moved into namespaces, it carries traffic
	x ipl link add nda type ndimm peer ndb size 8M rx-mode clone wire-delay-ns 1000
	x "$EDMCTL" -j netdimm show | jq -e '
		length == 2 and (map(.name) | sort) == ["nda", "ndb"]
		and all(.[]; .zone.size == 8388608 and .rx_mode == "clone"
			and .wire_delay_ns == 1000 and .poll_us == 0)'
	x ipl -d link show nda | grep -q "ndimm edm-id [0-9]* peer ndb size 8388608 rx-mode clone"
	ns_pair nda ndb
	x in_a ping -c 2 -i 0.2 -W 5 $IP_B
	x ip -n $NS_A -j -s link show nda | jq -e '.[0].stats64.tx.packets >= 2'
	# a new MAC address while up, as on a veth; the peer learns it anew
	x ip -n $NS_A link set nda address 02:00:00:00:0e:01
	x ip -n $NS_A -j link show nda | jq -e '.[0].address == "02:00:00:00:0e:01"
		and .[0].operstate == "UP"'
	x ip -n $NS_B neigh flush dev ndb
	x in_b ping -c 1 -W 5 $IP_A
	x ip -n $NS_B -j neigh show dev ndb | jq -e 'any(.[]; .lladdr == "02:00:00:00:0e:01")'
	x ipl -n $NS_B -d link show ndb | grep -q "peer nda size 8388608"
	x ip -n $NS_B link del ndb
	fails ip -n $NS_A link show nda
	[ "$(edm_objects dev)" = 0 ]

	# an edmctl pair has the kind too
	x "$EDMCTL" netdimm add x0 size 4M peer x1 >/dev/null
	x ipl -d link show x1 | grep -q "peer x0 size 4194304"
	x ip link del x0
	nothing_made

	expect_fail "zone size must be a multiple of 2 MiB" ipl link add x0 type ndimm size 5M
	expect_fail "integer out of range" ipl link add x0 type ndimm size 2M
	expect_fail "the peer needs a name of its own" ipl link add x0 type ndimm peer x0
	expect_fail "a NetDIMM has a peer or a lower device, not both" \
		ipl link add x0 type ndimm peer x1 lower lo
	expect_fail "cannot register the netdev" ipl link add x0 type ndimm peer lo
	expect_fail "an ndimm's name is [A-Za-z0-9_.-]" ip link add x+0 type ndimm
	nothing_made
}

# expect_fail TEXT CMD...: CMD fails, saying "Error: ...TEXT...".
expect_fail() {
	local want=$1 err

	shift
	echo "+ ${*#"$EDMCTL"} (must fail: $want)"
	if err=$("$@" 2>&1 >/dev/null); then
		echo "succeeded, expected: $want"
		return 1
	fi
	[[ $err == "Error: "*"$want"* ]] || { echo "stderr was: $err"; return 1; }
}

nothing_made() {
	"$EDMCTL" -j netdimm show | jq -e 'length == 0' >/dev/null &&
		[ "$(edm_objects dev)" = 0 ] && ! compgen -G '/dev/ndimm*' >/dev/null &&
		[ ! -e /sys/class/net/x0 ] && [ ! -e /sys/class/net/x1 ]
}

# Bad requests fail with a message that names the problem, and whatever
# they made on the way (a device, its zone, its netdev) is gone again.
bad_input() {
	local e=$EDMCTL

	trap nd_cleanup EXIT
	expect_fail "zone size must be a multiple of 2 MiB" $e netdimm add x0 size 5M peer x1
	expect_fail "zones may take at most half of the machine's memory" \
		$e netdimm add x0 size 64G
	expect_fail '"peer" and "lower" are mutually exclusive' \
		$e netdimm add x0 size 4M peer x1 lower lo
	expect_fail 'cannot find network device "nosuch"' $e netdimm add x0 size 4M lower nosuch
	expect_fail "lower device must be Ethernet" $e netdimm add x0 size 4M lower lo
	expect_fail "must be a power of two" $e netdimm add x0 size 4M banks 3
	expect_fail "must be a power of two" $e netdimm add x0 size 4M row-bytes 1000
	expect_fail "a rank row (row bytes x devices) must hold a whole page" \
		$e netdimm add x0 size 4M row-bytes 256 devices 8
	expect_fail "the peer needs a name of its own" $e netdimm add x0 size 4M peer x0
	expect_fail "cannot register the netdev" $e netdimm add lo size 4M
	nothing_made
	# a taken peer name undoes the first device too
	x $e netdimm add x0 size 4M >/dev/null
	expect_fail "device name already in use" $e netdimm add x1 size 4M peer x0
	x $e -j netdimm show | jq -e 'map(.name) == ["x0"]'
	[ ! -e /sys/class/net/x1 ]
	x $e netdimm del x0
	# a geometry that is legal is taken as given
	x $e -j netdimm add x0 size 4M row-bytes 2048 banks 8 | jq -e '
		.[0].zone.geometry | .row_bytes == 2048 and .banks == 8 and .devices == 8'
	x $e netdimm del x0
	# the kernel's policy says only "integer out of range": edmctl names
	# the attribute
	expect_fail 'integer out of range (attribute "size")' $e netdimm add x0 size 2M
	expect_fail 'integer out of range (attribute "poll-us")' \
		$e netdimm add x0 size 4M poll-us 100001
	nothing_made
}

# stat_of DEV COUNTER: one counter of one NetDIMM, from edmctl
stat_of() {
	"$EDMCTL" -j netdimm stats | jq -e ".[] | select(.name == \"$1\") | .stats.$2"
}

# The edm_ndimm events (lib.sh's trace_on): each packet of a ping that nda counts as sent is traced as
# sent, each that ndb counts as received as received, the 3000-byte echo
# requests (3042 bytes on the wire) by a copy into the zone and into ndb's
# zone pages; nothing is dropped.
tracepoints() {
	local t tx0 rx0 tx rx

	trap nd_cleanup EXIT
	pair size 16M
	x in_a ip link set nda mtu 9000	# one frame a ping, not IP fragments
	x in_b ip link set ndb mtu 9000
	x in_a ping -c 1 -W 5 $IP_B	# ARP done before the count starts
	trace_on edm_ndimm
	tx0=$(stat_of nda tx_packets) rx0=$(stat_of ndb rx_packets)
	x in_a ping -c 3 -i 0.2 -W 5 -s 3000 $IP_B
	tx=$(stat_of nda tx_packets) rx=$(stat_of ndb rx_packets)
	trace_off edm_ndimm
	t=$(grep -E 'edm_ndimm_(tx|rx|drop):' $TRACING/trace)
	note "$(grep -c . <<<"$t") edm_ndimm events, the first: $(sed -n '1s/.*edm_ndimm/edm_ndimm/p' <<<"$t")"
	[ "$(grep -c 'edm_ndimm_tx: dev=nda queue=[0-9]* len=[0-9]* path=copy err=0$' <<<"$t")" \
		-ge $((tx - tx0)) ]
	[ "$(grep -c 'edm_ndimm_tx: dev=nda queue=[0-9]* len=3042 path=copy err=0$' <<<"$t")" -eq 3 ]
	[ "$(grep -c 'edm_ndimm_rx: dev=ndb queue=[0-9]* len=[0-9]* how=' <<<"$t")" -ge $((rx - rx0)) ]
	[ "$(grep -c 'edm_ndimm_rx: dev=ndb queue=[0-9]* len=3042 how=zerocopy$' <<<"$t")" -eq 3 ]
	! grep -q 'edm_ndimm_drop:' <<<"$t"
}

# Cases in order: function and description.
cases=(
	create_show_delete "ndimm: create, show, delete a pair; netdevs and /dev/ndimm<i> follow"
	bad_input "ndimm: bad input fails with a clear error and creates nothing"
	ping_mtu "ndimm: ping between two namespaces; MTU 9000, jumbo pings with DF"
	iperf_counters "ndimm: iperf3; copy-needed TX, zero-copy RX, TSO, BQL, counters agree"
	queue_stats "ndimm: the netdev family's per-queue stats and NAPIs (qstats-get, queue-get)"
	queues_rings "ndimm: ethtool -l/-L and -g/-G; pinned pings use each queue; changes under iperf3"
	sockperf_pp "ndimm: sockperf ping-pong, UDP and TCP"
	file_transfer "ndimm: a file crosses intact (sha256)"
	zone_exhaustion "ndimm: a full zone falls back to ordinary pages, no drop, file intact"
	delete_under_traffic "ndimm: deleting a pair under iperf3 traffic is clean"
	delete_with_lent_pages "ndimm: pages lent to a socket outlive the deleted zone, intact"
	rx_clone "ndimm: rx-mode clone clones payloads in the zone (FPM)"
	poll_mode "ndimm: poll-us 200 (x EDM_TEST_SCALE) answers pings and polls while idle"
	wire_model "ndimm: wire-delay 2 ms: RTT at least 4 ms; wire-rate 20 Mbit/s: 2 MiB in 0.8 s or more"
	tc_qdisc "ndimm: tbf and netem qdiscs on an ndimm"
	lower_mode "ndimm: lower mode over veth; losing the lower leaves carrier off"
	netns_first "ndimm: a namespace's death deletes the pair, as a veth's"
	iplink "ndimm: ip link add/del, with and without the ip plug-in, and ip -d link"
	tracepoints "ndimm: each packet sent and received in the edm_ndimm trace events"
)
for ((i = 0; i < ${#cases[@]}; i += 2)); do
	if [ $# -eq 0 ] || [[ " $* " == *" ${cases[i]} "* ]]; then
		run_case "${cases[i]}" "${cases[i + 1]}"
	fi
done
tap_done
