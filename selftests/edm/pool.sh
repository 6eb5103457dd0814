#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# DFabric pool and rack in the VM: a pool on the CPU-less NUMA node (the VM
# runner's --cpuless-node; any memory without it), a rack with two compute
# nodes in two namespaces carrying ping, iperf3 and a file whose checksum
# must match, and redis (redis-benchmark, a value set and got back); the
# counters prove one copy per packet at TX and none after it, and that
# every byte sent is received; the DRAM cache counts; deletion under
# traffic is clean and every byte of the pool goes back to its node. Bad
# input is refused with a message. With the VM runner's --nvdimm, a pool on
# the NVDIMM's pmem device carries the same traffic, and its memory goes
# back to the device only once a socket that held packets of it let go
# (Documentation/pool.md). Usage: pool.sh [CASE...] (default: all, in order).
source "$(dirname "$0")/lib.sh"

NS_A=pool_a
NS_B=pool_b
IP_A=10.78.0.1
IP_B=10.78.0.2
PY=/usr/bin/python3
BG=()

for t in jq iperf3 ping "$PY"; do
	command -v "$t" >/dev/null || { echo "1..0 # SKIP $t is not installed"; exit $KSFT_SKIP; }
done
edm_loaded || { echo "1..0 # SKIP edm.ko is not loaded"; exit $KSFT_SKIP; }

# The CPU-less node, if the VM has one: node N with memory and no CPU. With
# EDM_POOL_DEV (a pmem device's path: make check's CXL lane sets it), the
# cases' pools are on that device instead (pool_new), and no node is used.
NODE=
for d in /sys/devices/system/node/node[0-9]*; do
	[ -z "${EDM_POOL_DEV:-}" ] && [ -r "$d/cpulist" ] || continue
	if [ -z "$(tr -d '\n' <"$d/cpulist")" ]; then
		NODE=${d##*node}
		break
	fi
done

TMPD=$(mktemp -d)
# Free skbs at once rather than on their receiving CPU's next softirq (see
# ndimm.sh), so the pool is seen to get every Buffer back once traffic stops.
defer_max=$(sysctl -n net.core.skb_defer_max 2>/dev/null)
[ -z "$defer_max" ] || sysctl -qw net.core.skb_defer_max=0
trap 'rm -rf "$TMPD"; [ -z "$defer_max" ] || sysctl -qw net.core.skb_defer_max="$defer_max"' EXIT


# ---- helpers ----

cleanup() {
	local p

	set +e
	trace_off edm_pool 2>/dev/null	# a failed traced_ping
	for p in "${BG[@]}"; do
		kill "$p" 2>/dev/null
	done
	for p in "${BG[@]}"; do
		wait "$p" 2>/dev/null
	done
	BG=()
	[ -s "$TMPD/bg.log" ] && sed 's/^/bg: /' "$TMPD/bg.log"
	"$EDMCTL" rack del r0 2>/dev/null
	"$EDMCTL" pool del p0 2>/dev/null
	ip -force -b - >/dev/null 2>&1 <<-EOF
		netns del $NS_A
		netns del $NS_B
	EOF
	rm -f "$TMPD"/*.bin "$TMPD"/*.json "$TMPD"/bg.log
	return 0
}

in_a() {
	ip netns exec $NS_A "$@"
}

bg() {
	local ns=$1

	shift
	ip netns exec "$ns" "$@" </dev/null >>"$TMPD/bg.log" 2>&1 3>&- &
	BG+=($!)
}

ready() {
	local hex tcp

	printf -v hex '%04X' "$2"
	tcp=$(<"/proc/$1/net/tcp") || return 1
	[[ $tcp == *":$hex 00000000:0000 0A"* ]]
}

# udp_bound PID PORT: PID's netns has a UDP socket bound to PORT.
udp_bound() {
	local hex

	printf -v hex '%04X' "$2"
	[[ $(<"/proc/$1/net/udp") == *":$hex 00000000:0000 07"* ]]
}

# file_across BYTES: a random file of BYTES from cna to cnb; their sha256 agree.
file_across() {
	local sum_a sum_b

	head -c "$1" /dev/urandom >"$TMPD/file.bin"
	bg $NS_B "$PY" "$EDM_TOP/selftests/edm/xfer.py" recv 7000 "$TMPD/out.bin"
	poll 60 ready "${BG[-1]}" 7000
	x in_a "$PY" "$EDM_TOP/selftests/edm/xfer.py" send $IP_B 7000 "$TMPD/file.bin"
	wait "${BG[-1]}"
	sum_a=$(sha256sum <"$TMPD/file.bin")
	sum_b=$(sha256sum <"$TMPD/out.bin")
	[ "$sum_a" = "$sum_b" ] || { echo "checksums differ: $sum_a $sum_b" >&2; return 1; }
}

# The free memory of node $1 in kB.
node_free() {
	awk '/MemFree/ { print $4 }' "/sys/devices/system/node/node$1/meminfo"
}

# Whether node $NODE's free memory is back to $1 kB, give or take 16 MiB: pages
# freed one by one wait in per-CPU lists, and other allocations may land on the
# node meanwhile. A pool that kept its memory would be 128 MiB short.
node_back() {
	[ $(($(node_free "$NODE") + 16384)) -ge "$1" ]
}

# pool_new [ARGS...]: pool p0 of 128 MiB on $EDM_POOL_DEV if set, else on
# $NODE if there is one.
pool_new() {
	x "$EDMCTL" -j pool create p0 size 128M ${EDM_POOL_DEV:+dev $EDM_POOL_DEV} \
		${NODE:+node $NODE} "$@" >"$TMPD/pool.json"
	cat "$TMPD/pool.json" >&2
}

# rack_up [CN ARGS...]: rack r0 over p0, compute nodes cna in $NS_A and cnb
# in $NS_B, addressed and up, without IPv6 (no stray packets in the counts).
rack_up() {
	x "$EDMCTL" rack create r0 pool p0 >/dev/null
	x "$EDMCTL" rack add-cn r0 cna "$@" >/dev/null
	x "$EDMCTL" rack add-cn r0 cnb "$@" >/dev/null
	cns_apart
}

# cns_apart: cna into $NS_A as $IP_A, cnb into $NS_B as $IP_B, up.
cns_apart() {
	x ip -b - <<-EOF
		netns add $NS_A
		netns add $NS_B
		link set cna netns $NS_A
		link set cnb netns $NS_B
	EOF
	ns_up $NS_A cna $IP_A
	ns_up $NS_B cnb $IP_B
}

ns_up() {
	ip -n "$1" -b - <<-EOF
		link set lo up
		link set $2 addrgenmode none
		addr add $3/24 dev $2
		link set $2 up
	EOF
}

# check JQ-EXPR: the compute nodes' counters, keyed by name, satisfy it.
check() {
	local c

	echo "+ check $1" >&2
	c=$("$EDMCTL" -j rack stats)
	jq -e "map({(.name): .stats}) | add // {} | $1" >/dev/null <<<"$c" ||
		{ echo "counters: $c" >&2; return 1; }
}

# pool_check JQ-EXPR: p0's counters satisfy it.
pool_check() {
	local c

	echo "+ pool_check $1" >&2
	c=$("$EDMCTL" -j pool stats p0)
	jq -e ".[0].stats | $1" >/dev/null <<<"$c" || { echo "pool: $c" >&2; return 1; }
}

# pool_stat KEY: one of p0's counters
pool_stat() {
	"$EDMCTL" -j pool stats p0 | jq -er ".[0].stats.$1"
}

# cn_stat CN KEY: one of a compute node's counters
cn_stat() {
	"$EDMCTL" -j rack stats | jq -er ".[] | select(.name == \"$1\") | .stats[\"$2\"]"
}

# A ping between the compute nodes with the edm_pool tracepoints on: every
# Buffer the counters say was allocated and passed was traced, and at least
# the ping's packets were traced whole: allocated by one compute node and
# passed from it under the same reference. Each packet a CN counts as sent
# or received is a tx or rx event of its own, the 98-byte echo requests
# from cna's node to cnb's and the replies back.
traced_ping() {
	local a0 p0 a1 p1 t c matched na nb tx0 rx0 tx1 rx1

	read -r na nb <<<"$("$EDMCTL" -j rack cn-show |
		jq -er 'map({(.name): .node}) | add | [.cna, .cnb] | @tsv')"
	[ -n "$nb" ]
	trace_on edm_pool
	a0=$(pool_stat allocs) p0=$(pool_stat passes)
	tx0=$(cn_stat cna tx-packets) rx0=$(cn_stat cnb rx-packets)
	x in_a ping -c 3 -i 0.2 -W 5 $IP_B >&2
	poll 10 pool_carried_all
	# counted before the events go off: each counted op was traced
	a1=$(pool_stat allocs) p1=$(pool_stat passes)
	tx1=$(cn_stat cna tx-packets) rx1=$(cn_stat cnb rx-packets)
	trace_off edm_pool
	c=$(grep -E 'edm_rack_cn_(tx|rx):' $TRACING/trace)
	[ "$(grep -c 'edm_rack_cn_tx: dev=cna node=[0-9]* len=[0-9]* err=0$' <<<"$c")" -ge $((tx1 - tx0)) ]
	[ "$(grep -c 'edm_rack_cn_rx: dev=cnb node=[0-9]* len=[0-9]* err=0$' <<<"$c")" -ge $((rx1 - rx0)) ]
	[ "$(grep -c "edm_rack_cn_tx: dev=cna node=$nb len=98 err=0\$" <<<"$c")" -ge 3 ]
	[ "$(grep -c "edm_rack_cn_rx: dev=cnb node=$na len=98 err=0\$" <<<"$c")" -ge 3 ]
	[ "$(grep -c "edm_rack_cn_rx: dev=cna node=$nb len=98 err=0\$" <<<"$c")" -ge 3 ]
	! grep -q 'err=-' <<<"$c"
	t=$(grep -E 'edm_pool_(alloc|pass|free):' $TRACING/trace)
	[ "$(grep -c 'edm_pool_alloc: .* err=0$' <<<"$t")" -ge $((a1 - a0)) ]
	[ "$(grep -c 'edm_pool_pass: .* err=0$' <<<"$t")" -ge $((p1 - p0)) ]
	[ $((p1 - p0)) -ge 6 ]
	matched=$(awk '/edm_pool_alloc: .* err=0$/ { for (i = 1; i <= NF; i++) {
			if ($i ~ /^node=/) n = substr($i, 6); if ($i ~ /^ref=/) r = substr($i, 5) }
			got[n " " r] = 1 }
		/edm_pool_pass: .* err=0$/ { for (i = 1; i <= NF; i++) {
			if ($i ~ /^from=/) n = substr($i, 6); if ($i ~ /^ref=/) r = substr($i, 5) }
			if (got[n " " r]) m++ }
		END { print m + 0 }' <<<"$t")
	note "edm_pool trace of a ping: $(grep -c . <<<"$t") events, $matched passes of traced allocations"
	[ "$matched" -ge 6 ]
}

# cn_ethtool CN NETNS: ethtool on a CN's netdev: -i names the driver and
# the rack; -S has every counter `edmctl rack stats` shows for it, each
# between edmctl's reads before and after (lib.sh's eth_between).
cn_ethtool() {
	local e0 s e1 stats=".[] | select(.name == \"$1\") | .stats"

	ip netns exec "$2" ethtool -i "$1" | grep -qx 'driver: edm-rack'
	ip netns exec "$2" ethtool -i "$1" | grep -qx 'bus-info: rack r0'
	eth_rings "$1" "$2" 256
	e0=$("$EDMCTL" -j rack stats | jq -c "$stats")
	s=$(ethtool_json "$1" "$2")
	e1=$("$EDMCTL" -j rack stats | jq -c "$stats")
	eth_between "$e0" "$s" "$e1"
}

# ---- cases ----

# The pool takes its Sections from the CPU-less node, and gives them back.
case_numa() {
	local before after

	trap cleanup EXIT
	[ -n "$NODE" ] || { echo "no CPU-less node: run with --cpuless-node" >&2; return 1; }
	before=$(node_free "$NODE")
	pool_new
	jq -e ".[0] | .node == $NODE and .sections == 64 and .regions == 1" \
		"$TMPD/pool.json" >/dev/null
	after=$(node_free "$NODE")
	note "node $NODE free: $before kB, $after kB with a 128 MiB pool"
	# 128 MiB less at most 1 MiB: allocating drains the per-CPU page lists
	# into the free count (24 kB seen under TCG); a pool taken from another
	# node would leave this one's free memory where it was
	[ $((before - after)) -ge $((127 * 1024)) ]
	x "$EDMCTL" pool del p0
	poll 10 node_back "$before" ||
		{ note "node $NODE free: $(node_free "$NODE") kB, was $before kB"; return 1; }
}

# Ping, iperf3 and a file over two compute nodes in two namespaces.
case_traffic() {
	local sent

	trap cleanup EXIT
	pool_new
	rack_up dcache-sets 64 dcache-ways 4
	traced_ping
	bg $NS_B iperf3 -s -1 -B $IP_B
	poll 60 ready "${BG[-1]}" 5201
	x in_a timeout 120 iperf3 -c $IP_B -t 2 -J >"$TMPD/iperf.json" ||
		{ cat "$TMPD/iperf.json" >&2; return 1; }
	jq -e '.end.sum_received.bytes > 0' "$TMPD/iperf.json" >/dev/null
	note "iperf3 cna -> cnb: $(jq -c '.end.sum_received | {bytes, bits_per_second}' \
		"$TMPD/iperf.json")"
	file_across 3000000
	note "$("$EDMCTL" rack stats)" "$("$EDMCTL" pool stats p0)"
	cn_ethtool cna $NS_A
	# One copy per packet sent (two CNs: a broadcast has one destination
	# too), and every one of them reached the other side by reference.
	check '.cna.copies == .cna["tx-packets"] and .cnb.copies == .cnb["tx-packets"]'
	check '.cna.forwarded == .cnb["rx-packets"] and .cnb.forwarded == .cna["rx-packets"]'
	# Everything iperf3 and the file carried went through cna's TxQ (how many
	# packets that takes depends on GSO and the kernel's speed, not checked).
	sent=$(jq '.end.sum_received.bytes' "$TMPD/iperf.json")
	check ".cna[\"tx-bytes\"] >= $sent + 3000000 and .cna.refused == 0 and .cnb.refused == 0"
	check '.cna["rx-drops"] == 0 and .cnb["rx-drops"] == 0 and .cna.enomem == 0'
	check '.cnb["dcache-hits"] > 0 and .cnb["dcache-misses"] > 0 and .cnb["dcache-flushed"] > 0'
	# Every packet a CN forwarded was one pass and one skb of p0; the
	# count itself depends on GSO and the kernel's speed. The last ACKs
	# may still be in flight, so wait for both sides to agree.
	pool_check '.refused == 0 and .enomem == 0'
	poll 10 pool_carried_all ||
		{ note "$("$EDMCTL" rack stats)" "$("$EDMCTL" pool stats p0)"; return 1; }
	poll 10 pool_check '.lent == 0 and .reclaimed == .skbs'
}

# Whether p0 passed exactly the packets the compute nodes forwarded, and
# made one skb of each.
pool_carried_all() {
	local fwd

	fwd=$("$EDMCTL" -j rack stats | jq 'map(.stats.forwarded) | add')
	[ "$fwd" -gt 0 ] && pool_check ".passes == $fwd and .skbs == $fwd" 2>/dev/null
}

# cn_stat CN KEY: one of compute node CN's counters.
cn_stat() {
	"$EDMCTL" -j rack stats | jq -er ".[] | select(.name == \"$1\") | .stats[\"$2\"]"
}

# dc_counts CN: its received packets, those read into DRAM cache lines, and
# those left in the pool (bypassed or busy).
dc_counts() {
	"$EDMCTL" -j rack stats | jq -r ".[] | select(.name == \"$1\") | .stats |
		\"\\(.[\"rx-packets\"]) \\(.[\"dcache-misses\"]) \\(.[\"dcache-bypassed\"] + .[\"dcache-busy\"])\""
}

# dc_balanced CN RX MISSES OTHER: since those counts, every packet CN
# received is counted once by its cache, and none was dropped.
dc_balanced() {
	local rx m other

	read -r rx m other <<<"$(dc_counts "$1")"
	[ $((rx - $2)) -eq $((m - $3 + other - $4)) ] && [ $((m - $3)) -gt 0 ]
}

# The DRAM cache carries data: a file's packets reach cnb's socket from
# cache lines (counted as they arrive), intact. Then a file waits unread in
# cnb's socket, on lines, while the cache is reshaped: the lines pass to
# the pool, and the file is still intact when read; every Buffer and line
# comes back.
case_dcache() {
	local m0 other lent rx receiver sender

	trap cleanup EXIT
	pool_new
	rack_up dcache-sets 16 dcache-ways 4 dcache-gran 131072
	read -r rx m0 other <<<"$(dc_counts cnb)"
	file_across 3000000
	# every packet cnb received was read into a line, or left in the pool
	# and counted why (short, long, or its set all lent): once each
	poll 10 dc_balanced cnb "$rx" "$m0" "$other" ||
		{ note "before: $rx $m0 $other, after: $(dc_counts cnb)"; return 1; }
	check ".cnb[\"dcache-misses\"] > $m0 and .cnb[\"dcache-hits\"] > 0 and
		.cnb[\"dcache-hits\"] <= .cnb[\"dcache-misses\"]"
	poll 10 check '.cnb["dcache-lent"] == 0'

	head -c 400000 /dev/urandom >"$TMPD/held.bin"
	bg $NS_B "$PY" "$EDM_TOP/selftests/edm/xfer.py" recv 7001 "$TMPD/held.out" \
		go="$TMPD/go" rcvbuf=4000000
	receiver=${BG[-1]}
	poll 60 ready "$receiver" 7001
	rx=$(cn_stat cnb rx-bytes)
	bg $NS_A "$PY" "$EDM_TOP/selftests/edm/xfer.py" send $IP_B 7001 "$TMPD/held.bin"
	sender=${BG[-1]}
	poll 30 check ".cnb[\"rx-bytes\"] >= $rx + 400000"
	lent=$(cn_stat cnb dcache-lent)
	[ "$lent" -gt 0 ] || { note "the unread file holds no line"; return 1; }
	note "the unread file holds $lent lines"
	x "$EDMCTL" rack set r0 cn cnb dcache-sets 8 dcache-gran 65536
	check ".cnb[\"dcache-lent\"] == 0 and .cnb[\"dcache-handed-over\"] == $lent"
	touch "$TMPD/go"
	wait "$receiver"
	wait "$sender"
	cmp "$TMPD/held.bin" "$TMPD/held.out"
	check '.cnb["rx-drops"] == 0 and .cnb["dcache-writebacks"] == 0'
	poll 10 pool_check '.lent == 0 and .reclaimed == .skbs'
}

# redis between the compute nodes: redis-server in cnb's namespace,
# redis-benchmark and redis-cli in cna's. Every request is served, a value
# set is the value got back, every byte one CN sent the other received,
# and the server's own byte counts fit inside cnb's.
case_redis() {
	local rps val reply info bytes_in bytes_out n

	n=$(scaled 2000)	# requests of each kind

	trap cleanup EXIT
	if ! command -v redis-server >/dev/null || ! command -v redis-benchmark >/dev/null; then
		echo "redis-server and redis-tools are not installed (scripts/deps.sh)" >&2
		return 1
	fi
	pool_new
	rack_up
	bg $NS_B redis-server --bind $IP_B --port 6379 --protected-mode no --save "" \
		--appendonly no --dir "$TMPD" --logfile ""
	poll 30 ready "${BG[-1]}" 6379
	x in_a timeout 60 redis-benchmark -h $IP_B -n "$n" -q -t set,get >"$TMPD/bench.txt"
	rps=$(tr '\r' '\n' <"$TMPD/bench.txt" | grep -E '^(SET|GET): [0-9.]+ requests per second') ||
		{ cat "$TMPD/bench.txt" >&2; return 1; }
	note "redis-benchmark cna -> cnb:" "$rps"
	[ "$(wc -l <<<"$rps")" = 2 ]
	# One session: SET 8000 base64 characters (several packets each way),
	# GET them back, and the server's counters.
	val=$(head -c 6000 /dev/urandom | base64 -w 0)
	echo "+ in_a redis-cli -h $IP_B <<< SET edm:value <${#val} characters>;" \
		"GET edm:value; INFO stats" >&2
	printf 'SET edm:value %s\nGET edm:value\nINFO stats\n' "$val" |
		in_a redis-cli -h $IP_B | tr -d '\r' >"$TMPD/reply.txt"
	mapfile -t reply <"$TMPD/reply.txt"
	[ "${reply[0]}" = OK ] || { echo "SET answered: ${reply[0]}" >&2; return 1; }
	[ "${reply[1]}" = "$val" ] ||
		{ echo "GET returned ${#reply[1]} bytes, not the ${#val} set" >&2; return 1; }
	info=$(printf '%s\n' "${reply[@]:2}")
	grep -E '^total_(commands|net_(in|out)put_bytes):' <<<"$info" >&2
	[ "$(sed -n 's/^total_commands_processed://p' <<<"$info")" -ge $((2 * n + 2)) ]
	bytes_in=$(sed -n 's/^total_net_input_bytes://p' <<<"$info")
	bytes_out=$(sed -n 's/^total_net_output_bytes://p' <<<"$info")
	# Once quiet, what one CN sent the other received, by reference, one
	# copy each; the server's payload plus at most 128 header bytes per
	# packet is what cnb carried (4096 more out: the INFO reply itself).
	poll 10 check '.cna["tx-bytes"] == .cnb["rx-bytes"] and
		.cnb["tx-bytes"] == .cna["rx-bytes"]'
	check ".cna.copies == .cna[\"tx-packets\"] and .cnb.copies == .cnb[\"tx-packets\"] and
		.cna.forwarded == .cnb[\"rx-packets\"] and
		.cnb.forwarded == .cna[\"rx-packets\"] and
		.cnb[\"rx-bytes\"] >= $bytes_in and
		.cnb[\"rx-bytes\"] <= $bytes_in + 128 * .cnb[\"rx-packets\"] and
		.cnb[\"tx-bytes\"] >= $bytes_out and
		.cnb[\"tx-bytes\"] <= $bytes_out + 4096 + 128 * .cnb[\"tx-packets\"] and
		.cna.refused + .cnb.refused + .cna[\"rx-drops\"] + .cnb[\"rx-drops\"] == 0"
}

# What the rack's iperf3 must have carried before a deletion or unload
# goes under its traffic: 10 MB, divided by EDM_TEST_SCALE. The debug
# kernel's rack carries about 0.35 MB/s under TCG: 10 MB in 30 s was on
# the edge there, and once was missed by 3%.
traffic_bytes() {
	echo $((10000000 / ${EDM_TEST_SCALE:-1}))
}

# The rack goes under traffic; then the pool, with all its memory.
case_delete() {
	local before

	trap cleanup EXIT
	[ -z "$NODE" ] || before=$(node_free "$NODE")
	pool_new
	rack_up dcache-sets 16 dcache-gran 131072	# lines the stack holds outlive the CN
	bg $NS_B iperf3 -s -1 -B $IP_B
	poll 60 ready "${BG[-1]}" 5201
	bg $NS_A iperf3 -c $IP_B -t 60
	poll 30 check ".cnb[\"rx-bytes\"] > $(traffic_bytes) and .cnb[\"dcache-misses\"] > 0"
	x "$EDMCTL" rack del r0
	[ "$(edm_objects cn)" = 0 ]
	# What the sockets still hold comes back once they let go of it.
	cleanup
	poll 20 pool_check '.lent == 0 and .buffers == 0'
	pool_check '.["sections-free"] == 64'
	x "$EDMCTL" pool del p0
	[ "$(edm_objects pool)" = 0 ]
	[ -z "$NODE" ] || poll 10 node_back "$before" ||
		{ note "node $NODE free: $(node_free "$NODE") kB, was $before kB"; return 1; }
}

# Pool exhaustion is -ENOMEM, counted, never a crash: a pool of 6 Sections
# holds two compute nodes (a Section per skb size class and one for the
# queues each), not a third; traffic then runs out of 128 KB Buffers
# (16 per node) and recovers.
case_enomem() {
	trap cleanup EXIT
	x "$EDMCTL" pool create p0 size 12M ${NODE:+node $NODE} >/dev/null
	rack_up
	expect_error "the pool has no free Section for the node" \
		"$EDMCTL" rack add-cn r0 cnc
	# cnb's socket holds every datagram unread: each holds a Buffer of
	# cna's, whose 4 KB Section (512 Buffers) fills up however slowly the
	# datagrams come, and no Section is left to apply.
	bg $NS_B "$PY" -c "import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, 33, 64 << 20)  # SO_RCVBUFFORCE
s.bind(('$IP_B', 7009))
time.sleep(600)"
	poll 30 udp_bound "${BG[-1]}" 7009
	x in_a timeout 120 "$PY" -c "import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(2000):
    s.sendto(bytes(1400), ('$IP_B', 7009))"
	"$EDMCTL" rack stats >&2
	poll 10 check '.cna.enomem > 0'
	pool_check '.enomem > 0 and .["sections-free"] == 0'
}

case_errors() {
	trap cleanup EXIT
	expect_error "pool size must be a multiple of 2 MiB (a Section)" \
		"$EDMCTL" pool create p0 size 5M
	expect_error "that NUMA node has no memory" "$EDMCTL" pool create p0 size 8M node 999
	expect_error "no such pool in this netns" "$EDMCTL" rack create r0 pool nope
	x "$EDMCTL" pool create p0 size 8M >/dev/null
	x "$EDMCTL" rack create r0 pool p0 >/dev/null
	expect_error "the pool is in use by a rack: delete the rack first" \
		"$EDMCTL" pool del p0
	expect_error "sets must be a power of two" "$EDMCTL" rack add-cn r0 cna dcache-sets 3
	expect_error "no such compute node in the rack" "$EDMCTL" rack del-cn r0 nope
	x "$EDMCTL" rack add-cn r0 cna >/dev/null
	expect_error "the rack has a compute node of that name" "$EDMCTL" rack add-cn r0 cna
	x "$EDMCTL" rack set r0 cn cna dcache-sets 16
	"$EDMCTL" -j rack cn-show | jq -e '.[0]["dcache-sets"] == 16' >/dev/null
	# 1024 x 16 lines of 2 MiB would be 32 GiB of local pages; the cache stays
	expect_error "the DRAM cache's lines (sets x ways x gran) take 64 MiB at most" \
		"$EDMCTL" rack set r0 cn cna dcache-sets 1024 dcache-ways 16 dcache-gran 2097152
	"$EDMCTL" -j rack cn-show | jq -e '.[0]["dcache-sets"] == 16' >/dev/null
	expect_error "Operation not permitted" \
		setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		"$EDMCTL" rack del-cn r0 cna
	expect_error "Operation not permitted" \
		setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		"$EDMCTL" pool create p1 size 8M
	x "$EDMCTL" rack del-cn r0 cna
	[ "$(edm_objects cn)" = 0 ]
}

# `ip link add ... type rackcn` makes the same CN as edmctl (one path in
# the kernel): without the plug-in, in the namespace's only rack and with
# no DRAM cache; with it, in the rack and with the cache given, shown by
# edmctl and `ip -d link`. A CN goes with `ip link del` and with the
# namespace it is in, whoever made it; bad input gets the kernel's message
# through ip and leaves nothing behind.
case_iplink() {
	trap cleanup EXIT
	x "$EDMCTL" pool create p0 size 16M >/dev/null
	expect_error_in "this namespace has no rack" ip link add cna type rackcn
	x "$EDMCTL" rack create r0 pool p0 >/dev/null
	x ip link add cna type rackcn
	x "$EDMCTL" -j rack cn-show | jq -e '
		length == 1 and .[0].name == "cna" and .[0].rack == "r0"
		and .[0]["dcache-sets"] == 0'
	x ip -j -d link show cna | jq -e '.[0].linkinfo.info_kind == "rackcn"'
	x ipl link add cnb type rackcn rack r0 dcache-sets 16 dcache-ways 2
	x "$EDMCTL" -j rack cn-show | jq -e '
		length == 2 and (map(select(.name == "cnb"))[0] |
			.["dcache-sets"] == 16 and .["dcache-ways"] == 2)'
	x ipl -j -d link show cnb | jq -e '.[0].linkinfo.info_data |
		.rack == "r0" and .node >= 0 and .dcache_sets == 16 and .dcache_ways == 2'
	[ "$(edm_objects cn)" = 2 ]
	cns_apart
	x in_a ping -c 2 -i 0.2 -W 5 $IP_B
	eth_rings cnb $NS_B 256
	# a new MAC address while up; cna's engine finds cnb by it at once
	x ip -n $NS_B link set cnb address 02:00:00:00:0c:0b
	x ip -n $NS_A neigh flush dev cna
	x in_a ping -c 1 -W 5 $IP_B
	x ip -n $NS_A -j neigh show dev cna | jq -e 'any(.[]; .lladdr == "02:00:00:00:0c:0b")'
	x ip -n $NS_A link del cna
	[ "$(edm_objects cn)" = 1 ]
	x ip netns del $NS_B
	poll 30 edm_objects_are cn 0
	x "$EDMCTL" -j rack cn-show | jq -e 'length == 0'

	# an edmctl CN has the kind too
	x "$EDMCTL" rack add-cn r0 cnc dcache-sets 8 >/dev/null
	x ipl -d link show cnc | grep -q "rackcn rack r0 node [0-9]* dcache-region 0 dcache-sets 8"
	x ip link del cnc
	[ "$(edm_objects cn)" = 0 ]

	x "$EDMCTL" pool create p1 size 8M >/dev/null
	x "$EDMCTL" rack create r1 pool p1 >/dev/null
	expect_error_in "this namespace has several racks" ip link add cnx type rackcn
	expect_error_in "not a rack" ipl link add cnx type rackcn rack p0
	expect_error_in "no such device" ipl link add cnx type rackcn rack nope
	expect_error_in "sets must be a power of two" \
		ipl link add cnx type rackcn rack r1 dcache-sets 3
	expect_error_in "a compute node's name is" ipl link add cn+x type rackcn rack r1
	[ ! -e /sys/class/net/cnx ]
	[ "$(edm_objects cn)" = 0 ]
	x "$EDMCTL" rack del r1
	x "$EDMCTL" pool del p1
}

# A pool on the NVDIMM's pmem device (fsdax): refused where it cannot be,
# carries a rack's traffic by reference as a RAM pool does; deleted while a
# socket that reads nothing holds packets in its pages, its memory waits for
# them and holds the module (rmmod refused); once the socket goes, the
# device is free again.
case_pmem() {
	local refs

	trap cleanup EXIT
	[ -n "${EDM_VM_NVDIMM_SIZE:-}" ] || skip "needs selftests/vm/run --nvdimm SIZE"
	pmem_load
	pmem_make_fsdax
	expect_error_in "is on the device's NUMA node" \
		"$EDMCTL" pool create p0 size 64M dev /dev/pmem0 node 0
	expect_error_in "no device at that path" "$EDMCTL" pool create p0 size 8M dev /dev/nothing
	expect_error_in 'invalid dev "pmem0" (expected a device' \
		"$EDMCTL" pool create p0 size 8M dev pmem0
	expect_error_in "less memory than the pool's size" \
		"$EDMCTL" pool create p0 size 1G dev /dev/pmem0
	x "$EDMCTL" -j pool create p0 size 64M dev /dev/pmem0 >"$TMPD/pool.json"
	jq -e '.[0] | .dev == "/dev/pmem0" and .sections == 32' "$TMPD/pool.json" >/dev/null
	expect_error_in "that block device is in use" \
		"$EDMCTL" pool create p1 size 8M dev /dev/pmem0
	rack_up
	x in_a ping -c 3 -i 0.2 -W 2 $IP_B
	file_across 2000000
	check '.cna.copies == .cna["tx-packets"] and .cna.refused == 0 and .cnb["rx-drops"] == 0'
	poll 10 pool_carried_all
	# a socket that reads nothing keeps packets, in the pool's pages
	bg $NS_B "$PY" -c "import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(('$IP_B', 9999))
time.sleep(600)"
	poll 30 udp_bound "${BG[-1]}" 9999
	refs=$(cat /sys/module/edm/refcnt)
	for _ in 1 2 3 4; do
		in_a bash -c "echo held >/dev/udp/$IP_B/9999"
	done
	poll 10 pool_check '.lent >= 4'
	x "$EDMCTL" rack del r0
	x "$EDMCTL" pool del p0
	[ "$(edm_objects pool)" = 0 ]
	# its memory waits for the socket, and holds the module meanwhile
	[ "$(cat /sys/module/edm/refcnt)" -gt "$refs" ]
	expect_error_in "in use" rmmod edm
	expect_error_in "that block device is in use" \
		"$EDMCTL" pool create p0 size 8M dev /dev/pmem0
	cleanup		# the socket goes
	poll 10 test "$(cat /sys/module/edm/refcnt)" -eq "$refs"
	x "$EDMCTL" pool create p0 size 8M dev /dev/pmem0 >/dev/null
	x "$EDMCTL" pool del p0
}

# A pool on a device-DAX device, from the uapi: the path picks the
# provider. Refused while its pages are compound; its unbind waits for
# the pool to go, and the device can be taken again after.
case_devdax() {
	local unbind=/sys/bus/dax/drivers/device_dax ub

	trap 'set +e; cleanup; pmem_make_fsdax' EXIT
	[ -n "${EDM_VM_NVDIMM_SIZE:-}" ] || skip "needs selftests/vm/run --nvdimm SIZE"
	pmem_load
	pmem_make_devdax 2M
	expect_error_in "larger than 4 KiB: give it an align of 4096" \
		"$EDMCTL" pool create p0 size 16M dev /dev/dax0.0
	pmem_make_devdax 4096
	expect_error_in "neither a pmem block device nor a DAX device" \
		"$EDMCTL" pool create p0 size 8M dev /tmp
	# a character device off the dax bus is not even opened (a watchdog's would start)
	expect_error_in "no DAX device (not on the dax bus)" \
		"$EDMCTL" pool create p0 size 8M dev /dev/zero
	expect_error_in "less memory than the pool's size" \
		"$EDMCTL" pool create p0 size 1G dev /dev/dax0.0
	x "$EDMCTL" -j pool create p0 size 64M dev /dev/dax0.0 >"$TMPD/pool.json"
	jq -e '.[0] | .dev == "/dev/dax0.0" and .sections == 32' "$TMPD/pool.json" >/dev/null
	expect_error_in "that DAX device is in use" \
		"$EDMCTL" pool create p1 size 8M dev /dev/dax0.0
	rack_up
	x in_a ping -c 3 -i 0.2 -W 2 $IP_B
	file_across 2000000
	check '.cna.copies == .cna["tx-packets"] and .cna.refused == 0 and .cnb["rx-drops"] == 0'
	poll 10 pool_carried_all
	# the device's unbind waits while the pool holds its memory
	bash -c "echo dax0.0 >$unbind/unbind" &
	ub=$!
	poll 10 grep -q "^State:.*D" "/proc/$ub/status"
	x in_a ping -c 2 -i 0.2 -W 2 $IP_B
	x "$EDMCTL" rack del r0
	x "$EDMCTL" pool del p0
	x wait "$ub"
	expect_error_in "cannot open that DAX device" \
		"$EDMCTL" pool create p0 size 8M dev /dev/dax0.0
	x bash -c "echo dax0.0 >$unbind/bind"
	poll 10 test -c /dev/dax0.0
	x "$EDMCTL" pool create p0 size 8M dev /dev/dax0.0 >/dev/null
	x "$EDMCTL" pool del p0
	pmem_make_fsdax		# as the cases and scripts after this one expect
}

# The module goes under traffic, sockets still holding shared skbs: their
# pages outlive it, and nothing in the kernel complains (the VM runner
# scans dmesg). The module is loaded again for what follows.
case_unload() {
	trap 'cleanup; edm_load' EXIT
	pool_new
	rack_up dcache-sets 16 dcache-gran 131072
	bg $NS_B iperf3 -s -1 -B $IP_B
	poll 60 ready "${BG[-1]}" 5201
	bg $NS_A iperf3 -c $IP_B -t 60
	poll 30 check ".cnb[\"rx-bytes\"] > $(traffic_bytes)"
	x rmmod edm
	! edm_loaded
}

cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(numa traffic dcache redis delete enomem errors iplink pmem devdax unload)
for c in "${cases[@]}"; do
	case $c in
	numa) run_case case_numa "pool: Sections from the CPU-less NUMA node, given back" ;;
	traffic) run_case case_traffic "rack: ping, iperf3, a file; one copy per packet" ;;
	dcache) run_case case_dcache "rack: a file through DRAM cache lines, intact, the cache reshaped under it" ;;
	redis) run_case case_redis "rack: redis-benchmark and redis-cli between compute nodes" ;;
	delete) run_case case_delete "rack: deleted under traffic, the pool frees everything" ;;
	enomem) run_case case_enomem "pool: exhaustion refused with a message" ;;
	errors) run_case case_errors "pool, rack: bad input refused with a message" ;;
	iplink) run_case case_iplink "rack: ip link add/del of compute nodes, with and without the ip plug-in" ;;
	pmem) run_case case_pmem "pool on a pmem device: rack traffic; its memory waits for the stack" ;;
	devdax) run_case case_devdax "pool on a device-DAX device: rack traffic; its unbind waits" ;;
	unload) run_case case_unload "edm.ko unloads under rack traffic" ;;
	*) echo "unknown case $c"; exit 2 ;;
	esac
done
tap_done
