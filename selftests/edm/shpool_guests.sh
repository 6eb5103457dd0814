#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs in each guest of `selftests/vm/run --guests N --shmem 64M --may-die
# N-1` (N = 2 or 3): the guests join one shared pool (an ivshmem device
# every guest maps; with --nvdimm 128M instead, the pmem device of one
# NVDIMM backing file, or with EDM_SHP_DEVDAX=1 too its device-DAX device)
# and talk through its netdevs; then the last guest
# kills its own kernel while receiving traffic, and the others must reap
# it and go on. Written from the uapi header and Documentation/pool.md.
#
# Guest 0 drives and prints the TAP. Guest 1 serves (file echo, iperf3, and
# with two guests redis). The last guest is the victim: when it has received enough of the
# kill phase's traffic it reboots at once (sysrq b), no unload, no leave.
# With three guests guest 1 is a survivor: its iperf3 runs through the
# death, and a file crosses the pool after it, sha256 checked; then, on
# memory with struct pages, it sends guest 0 datagrams that guest 0's
# socket holds, unread, while guest 0 leaves the pool. Guest 1
# reports through its exit status and "#" lines.
#
# A receiver on pmem or device-DAX memory makes no copy (the frame goes up
# in its Buffer), one on ivshmem copies every frame: the counters say which.
source "$(dirname "$0")/lib.sh"

me=$EDM_VM_GUEST
n=${EDM_VM_NGUESTS:-1}
victim=$((n - 1))
SP=rack0
XFER=$(dirname "$0")/xfer.py
LEASE_MS=1000
addr() { echo "10.83.0.$(($1 + 1))"; }
BURST=32	# datagrams the linger case holds

for t in jq iperf3 redis-server redis-benchmark redis-cli python3 sha256sum; do
	command -v "$t" >/dev/null || { echo "1..0 # SKIP $t is not installed"; exit $KSFT_SKIP; }
done
source "$(dirname "$0")/shpool_lib.sh"
# memory with struct pages: frames are received without a copy
zc=0
case $SHP_DEV in /dev/*) zc=1 ;; esac
if [ -z "$SHP_DEV" ] || [ "$n" -lt 2 ]; then
	echo "1..0 # SKIP needs selftests/vm/run --guests 2 or 3 --shmem SIZE or --nvdimm SIZE"
	exit $KSFT_SKIP
fi
trap shpool_cleanup EXIT

# Every guest joins, and finds what the uapi promises of a fresh member.
join() {
	local busy="this kernel has joined that device already"

	shpool_join
	sp '.device == env.SHP_DEV and .ifname == "shp0" and .["lease-ms"] == 1000
		and .nhosts >= 2 and .bufs > 0 and .epoch > 0
		and ([.hosts[]? | select(.self)] | length) == 1'
	# one membership of a memory per kernel (a pmem device is claimed)
	[ "$SHP_DEV" != /dev/pmem0 ] || busy="that block device is in use"
	[ "$SHP_DEV" != /dev/dax0.0 ] || busy="that DAX device is in use"
	expect_error_in "$busy" "$EDMCTL" shpool join twice dev "$SHP_DEV"
	[ "$(edm_objects shpool)" = 1 ]
}

# The victim's slot: reaped (free, counted) and holding nothing.
victim_reaped() {
	sp "[.hosts[] | select(.name == \"edm-vm$victim\" and .state == \"free\"
		and .reaped >= 1 and .held == 0)] | length == 1"
}

# This guest holds no Buffer: every one it sent was taken, every one it got
# freed, every one it lent to its network stack came back.
holds_nothing() {
	sp '([.hosts[] | select(.self and .held == 0)] | length == 1) and
		.stats["rx-returned"] == .stats["rx-zerocopy"]'
}

# Every frame of more than 256 bytes received was passed up without a copy
# (pmem, device-DAX) or copied (ivshmem); shorter ones (ACKs) are copied on
# any memory; each frame counted once.
rx_path() {
	local all='.stats["rx-zerocopy"] + .stats["rx-copied"] + .stats["rx-small"] ==
		.stats["rx-packets"] + .stats["rx-drops"] and .stats["rx-small"] > 0'

	if [ $zc = 1 ]; then
		sp "$all and .stats[\"rx-zerocopy\"] > 0 and .stats[\"rx-copied\"] == 0"
	else
		sp "$all and .stats[\"rx-zerocopy\"] == 0 and .stats[\"rx-returned\"] == 0 and
			.stats[\"rx-copied\"] > 0"
	fi
}

up() {
	join
	poll 120 all_live
}

reach() {
	local i

	for ((i = 0; i < n; i++)); do
		[ "$i" = "$me" ] && continue
		poll 120 ping -c 1 -W 1 -q "$(addr "$i")"
		x ping -c 3 -i 0.2 -W 5 "$(addr "$i")"
	done
	# ARP is a broadcast: one Buffer per live member
	sp '.stats["tx-floods"] > 0 and .stats["rx-packets"] > 0 and .stats["tx-no-host"] == 0'
	traced_ping
	eth_agrees
}

# ethtool on the pool's netdev: -i names the driver and the device joined;
# -g the pool's ring size; -S has every counter edmctl shows, under its name
# with underscores, each between edmctl's reads before and after (lib.sh).
eth_agrees() {
	local e0 e1 s

	ethtool -i shp0 | grep -qx 'driver: edm-shpool'
	ethtool -i shp0 | grep -qx "bus-info: $SHP_DEV"
	eth_rings shp0 "" "$("$EDMCTL" -j shpool show $SP | jq -er '.[0].ring')"
	e0=$("$EDMCTL" -j -s shpool show $SP | jq -c '.[0].stats')
	s=$(ethtool_json shp0)
	e1=$("$EDMCTL" -j -s shpool show $SP | jq -c '.[0].stats')
	eth_between "$e0" "$s" "$e1"
}

# A ping to guest 1 in the edm_shpool_tx/rx events: each frame the
# counters count is traced, the three requests (98 bytes) to guest 1's
# slot and the three replies from it.
traced_ping() {
	local s1 c0 c1 t

	s1=$(host_field edm-vm1 slot)
	trace_on edm_pool/edm_shpool_tx edm_pool/edm_shpool_rx
	c0=$("$EDMCTL" -j -s shpool show $SP | jq -c '.[0].stats | [.["tx-packets"], .["rx-packets"]]')
	x ping -c 3 -i 0.2 -W 5 "$(addr 1)"
	c1=$("$EDMCTL" -j -s shpool show $SP | jq -c '.[0].stats | [.["tx-packets"], .["rx-packets"]]')
	trace_off edm_pool/edm_shpool_tx edm_pool/edm_shpool_rx
	t=$(grep -E 'edm_shpool_(tx|rx):' $TRACING/trace)
	note "$(grep -c . <<<"$t") edm_shpool_tx/rx events for $c1 - $c0 frames"
	[ "$(grep -c 'edm_shpool_tx: dev=shp0 slot=[0-9]* len=[0-9]* err=0$' <<<"$t")" -ge \
	  "$(jq -n "$c1[0] - $c0[0]")" ]
	[ "$(grep -c 'edm_shpool_rx: dev=shp0 slot=[0-9]* len=[0-9]* err=0$' <<<"$t")" -ge \
	  "$(jq -n "$c1[1] - $c0[1]")" ]
	[ "$(grep -c "edm_shpool_tx: dev=shp0 slot=$s1 len=98 err=0$" <<<"$t")" -ge 3 ]
	[ "$(grep -c "edm_shpool_rx: dev=shp0 slot=$s1 len=98 err=0$" <<<"$t")" -ge 3 ]
}

# Guest 0's MAC changes while shp0 is up (as a veth's may): the pool's
# host table says the new one at once, and guest 1's replies, which the
# pool routes by that table, reach it. Guest 1 takes the new address from
# guest 0's ARP requests once its entry is a second old (ARP's locktime),
# hence the retries. A multicast address is refused.
mac_change() {
	local new=02:00:00:ed:00:0a slot

	slot=$("$EDMCTL" -j shpool show $SP | jq '.[0].slot')
	expect_error_in "Cannot assign requested address" ip link set shp0 address 01:00:5e:00:00:01
	x ip link set shp0 address $new
	sp "[.hosts[] | select(.self)] | length == 1 and .[0].mac == \"$new\" and .[0].slot == $slot"
	x ip neigh flush dev shp0
	poll 20 ping -c 1 -W 1 -q "$(addr 1)"
	x ip -j neigh show dev shp0 | jq -e "any(.[]; .dst == \"$(addr 1)\")"
	sp '.stats["rx-packets"] > 0'
}

# xfer_echo PORT: a file to guest 1 and back, sha256 compared.
xfer_echo() {
	local port=$1

	head -c $((8 << 20)) /dev/urandom >/tmp/xfer.in
	python3 "$XFER" recv $((port + 1)) /tmp/xfer.back &
	x python3 "$XFER" send "$(addr 1)" "$port" /tmp/xfer.in
	wait $! || return 1
	x sha256sum /tmp/xfer.in /tmp/xfer.back
	[ "$(sha256sum </tmp/xfer.in)" = "$(sha256sum </tmp/xfer.back)" ]
}

xfer() {
	xfer_echo 5001
	rx_path
}

iperf() {
	x timeout 300 iperf3 -c "$(addr 1)" -p 5201 -t "$(scaled 4)" -J >/tmp/iperf.json ||
		{ cat /tmp/iperf.json; return 1; }
	jq -e '.end.sum_received.bytes > 1000000' /tmp/iperf.json
	sp '.stats["tx-bytes"] > 1000000 and .stats["rx-drops"] == 0'
}

redis() {
	local v

	v=$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')
	poll 60 redis-cli -h "$(addr 1)" ping
	x redis-cli -h "$(addr 1)" set edm-key "$v"
	[ "$(redis-cli -h "$(addr 1)" get edm-key)" = "$v" ]
	x timeout 300 redis-benchmark -h "$(addr 1)" -n "$(scaled 2000)" -c 4 -t set,get -q \
		>/tmp/redis.out
	cat /tmp/redis.out
	[ "$(grep -c 'requests per second' /tmp/redis.out)" = 2 ]
}

# host_field NAME FIELD: a field of the hosts table's row for NAME
host_field() {
	"$EDMCTL" -j -s shpool show $SP | jq -er ".[0].hosts[] | select(.name == \"$1\") | .$2"
}

# What the trace of the death says: this kernel renewed its lease under its
# own slot and epoch while it waited; with two guests it reaped the victim
# itself (one event, the victim's slot and epoch, as many Buffers freed as
# the pool's counter grew); with three, guest 1 may have reaped it first.
trace_death() {
	local vslot=$1 vepoch=$2 bufs0=$3 t slot epoch bufs reaps freed

	trace_off edm_pool/edm_shpool_lease edm_pool/edm_shpool_reap
	t=$(grep -E 'edm_shpool_(lease|reap):' $TRACING/trace)
	read -r slot epoch bufs <<<"$("$EDMCTL" -j -s shpool show $SP |
		jq -r '.[0] | "\(.slot) \(.epoch) \(.stats["reaped-bufs"])"')"
	reaps=$(grep -c "edm_shpool_reap: dev=shp0 slot=$vslot epoch=$vepoch silent_ms=" <<<"$t" ||
		true)	# none (grep fails) when the other survivor reaped
	freed=$(sed -nE 's/.*edm_shpool_reap: .* freed=([0-9]+)$/\1/p' <<<"$t" |
		awk '{ s += $1 } END { print s + 0 }')
	note "trace: $(grep -c 'edm_shpool_lease:' <<<"$t") lease renewals, $(grep -c \
	     'edm_shpool_reap:' <<<"$t") reaps freeing $freed Buffers"
	[ "$(grep -c "edm_shpool_lease: dev=shp0 slot=$slot epoch=$epoch beat=" <<<"$t")" -ge 2 ]
	[ "$(grep -c 'edm_shpool_reap:' <<<"$t")" -eq "$reaps" ]
	if [ "$n" -eq 2 ]; then
		[ "$reaps" -eq 1 ] && [ "$freed" -eq $((bufs - bufs0)) ]
	else
		[ "$reaps" -le 1 ] && [ "$freed" -le $((bufs - bufs0)) ]
	fi
}

# The victim dies while it receives; the survivors reap it and go on.
death() {
	local bystander= vslot vepoch bufs0

	vslot=$(host_field "edm-vm$victim" slot)
	vepoch=$(host_field "edm-vm$victim" epoch)
	bufs0=$("$EDMCTL" -j -s shpool show $SP | jq '.[0].stats["reaped-bufs"]')
	trace_on edm_pool/edm_shpool_lease edm_pool/edm_shpool_reap
	timeout 200 iperf3 -c "$(addr $victim)" -p 5299 -t 150 >/tmp/iperf-victim.log 2>&1 &
	if [ "$n" -gt 2 ]; then
		# guest 1's transfer runs through the death
		timeout 300 iperf3 -c "$(addr 1)" -p 5203 -t "$(scaled 12)" -J \
			>/tmp/iperf-by.json 2>&1 &
		bystander=$!
	fi
	poll 240 victim_reaped
	note "victim reaped: $("$EDMCTL" shpool hosts $SP | tr '\n' ' ')"
	trace_death "$vslot" "$vepoch" "$bufs0"
	if [ -n "$bystander" ]; then
		wait "$bystander" || { cat /tmp/iperf-by.json; return 1; }
		jq -e '.end.sum_received.bytes > 1000000' /tmp/iperf-by.json
	fi
	# what it held or was passed is free again; what is ours is ours
	poll 30 holds_nothing
	sp '.stats["rx-drops"] == 0'
}

after() {
	if [ "$n" -gt 2 ]; then
		# guest 1 sends the linger case's datagrams once this file is back;
		# the receiver outlives this case, so it leaves its status in a file
		# (one command, a new bash: no fd of this case's output pipe stays open)
		rm -f /tmp/udp.go /tmp/udp.rc
		if [ $zc = 1 ]; then
			bash -c 'python3 "$0" udprecv 5006 "$1" go=/tmp/udp.go
				echo $? >/tmp/udp.rc' "$XFER" $BURST </dev/null >/tmp/udp.out 2>&1 3>&- &
		fi
		xfer_echo 5004
	fi
	# nothing goes to the dead: its address's broadcasts (ARP) reach only the living
	local f

	f=$("$EDMCTL" -j -s shpool show $SP | jq '.[0].stats["tx-floods"]')
	x ip neigh flush dev shp0
	x ping -c 2 -W 1 "$(addr $victim)" && return 1
	sp ".stats[\"tx-floods\"] > $f and .stats.fenced == 0"
	victim_reaped
}

# Frames lent to this kernel's stack that a socket holds, unread, as the
# membership leaves: the Buffers stay this kernel's (the memory stays
# claimed, the module held) until the socket reads them, intact, and
# then the leave ends and the device can be joined again.
lent() {
	sp "(.stats[\"rx-zerocopy\"] - .stats[\"rx-returned\"]) >= $BURST"
}

linger() {
	local busy="that DAX device is in use"

	[ "$SHP_DEV" != /dev/pmem0 ] || busy="that block device is in use"
	poll 120 lent
	dmesg -C
	x "$EDMCTL" shpool leave $SP
	[ "$(edm_objects shpool)" = 0 ]
	dmesg | grep -q "shared pool $SHP_DEV: [0-9]* Buffers still held by the network stack"
	expect_error_in "$busy" "$EDMCTL" shpool join $SP dev "$SHP_DEV"
	expect_error_in "in use" rmmod edm
	touch /tmp/udp.go
	poll 60 test -e /tmp/udp.rc
	[ "$(cat /tmp/udp.rc)" = 0 ] || { cat /tmp/udp.out; return 1; }
	# the socket read them: the Buffers go back, the leave ends (guest 1
	# may have gone meanwhile: its part is done)
	poll 30 "$EDMCTL" shpool join $SP dev "$SHP_DEV" lease-ms $LEASE_MS
	sp '.stats["rx-packets"] == 0 and ([.hosts[] | select(.state == "leaving")] | length == 0)'
}

rejoin() {
	local s e

	s=$("$EDMCTL" -j shpool show $SP | jq '.[0].slot')
	e=$("$EDMCTL" -j shpool show $SP | jq '.[0].epoch')
	x "$EDMCTL" shpool leave $SP
	[ "$(edm_objects shpool)" = 0 ]
	[ ! -e /sys/class/net/shp0 ]
	x "$EDMCTL" shpool join $SP dev "$SHP_DEV" >/dev/null
	# formatted once, by whoever came first; a new life is a new (slot, epoch)
	sp "(.formatted | not) and (.slot != $s or .epoch != $e)"
	# an edmctl membership's netdev has the kind: ip shows it, ip link del leaves
	x ipl -d link show shp0 | grep -q "shpool name $SP dev $SHP_DEV "
	x ip link del shp0
	edm_no_objects
	iplink
	x rmmod edm
}

# The same with ip: `ip link add` joins (one path with SHPOOL_JOIN),
# `ip -d link` shows the membership, `ip link del` leaves, and so does the
# death of the namespace it joined from.
iplink() {
	expect_error_in "missing device" ip link add shpx type shpool
	expect_error_in "no ivshmem device of that PCI name" \
		ipl link add shpx type shpool dev 0000:00:1f.7
	expect_error_in "no DAX device (not on the dax bus)" ipl link add shpx type shpool dev /dev/null
	expect_error_in "no device at that path" ipl link add shpx type shpool dev /dev/nothing
	[ ! -e /sys/class/net/shpx ]
	x ipl link add shpx type shpool dev "$SHP_DEV" name ipjoin hostname ip-host
	x "$EDMCTL" -j shpool show ipjoin | jq -e '.[0] | .ifname == "shpx"
		and .device == env.SHP_DEV and .hostname == "ip-host" and (.formatted | not)'
	note "ip -d link: $(ipl -d link show shpx | tr -s ' \n' ' ')"
	x ipl -j -d link show shpx | jq -e '.[0].linkinfo | .info_kind == "shpool" and
		(.info_data | .name == "ipjoin" and .device == env.SHP_DEV
		 and .hostname == "ip-host" and .lease_ms == 1000 and .nhosts >= 2)'
	x ip link set shpx up
	x ip link del shpx
	edm_no_objects
	x ip netns add edm_shx
	x ipl -n edm_shx link add shpy type shpool dev "$SHP_DEV"
	x "$EDMCTL" -n edm_shx -j shpool show | jq -e '.[0] | .name == "shpy" and .ifname == "shpy"'
	x ip netns del edm_shx
	poll 30 edm_no_objects
}

# The victim: serve the kill phase's iperf3 and die half way into it.
die_mid_traffic() {
	local base deadline

	iperf3 -s -1 -p 5299 </dev/null >/dev/null 2>&1 &
	base=$(cat /sys/class/net/shp0/statistics/rx_bytes)
	deadline=$((SECONDS + 400))
	while [ $(($(cat /sys/class/net/shp0/statistics/rx_bytes) - base)) -lt $((4 << 20)) ]; do
		[ $SECONDS -lt $deadline ] || { echo "# g$me: the kill phase never came"; exit 1; }
		sleep 0.05
	done
	echo b >/proc/sysrq-trigger
	sleep 30
	echo "# g$me: still alive after sysrq b"
	exit 1
}

# Guest 1: serve until guest 0 is done with us.
serve() {
	local p rx ip

	python3 "$XFER" recv 5001 /tmp/xfer.in1 &
	rx=$!
	iperf3 -s -1 -p 5201 </dev/null >/dev/null 2>&1 &
	ip=$!
	if [ "$n" -gt 2 ]; then
		iperf3 -s -1 -p 5203 </dev/null >/dev/null 2>&1 &
		p=$!
	fi
	out=$( (set -e; up) 2>&1) || { printf '# g1: %s\n' "$out"; exit 1; }
	# it binds the pool's address, which exists now
	redis-server --bind "$(addr 1)" --port 6379 --protected-mode no --save '' \
		--daemonize no >/tmp/redis.log 2>&1 &
	wait "$rx" || { echo "# g1: file receive failed"; exit 1; }
	x python3 "$XFER" send "$(addr 0)" 5002 /tmp/xfer.in1 || exit 1
	wait "$ip" || { echo "# g1: iperf3 server failed"; exit 1; }
	if [ "$n" = 2 ]; then
		die_mid_traffic
	fi
	# three guests: the iperf3 through the death, then a file after it
	python3 "$XFER" recv 5004 /tmp/xfer.in2 || { echo "# g1: late file receive failed"; exit 1; }
	x python3 "$XFER" send "$(addr 0)" 5005 /tmp/xfer.in2 || exit 1
	[ $zc = 0 ] || x python3 "$XFER" udpsend "$(addr 0)" 5006 $BURST || exit 1
	wait "$p" || { echo "# g1: iperf3 through the death failed"; exit 1; }
	# guest 0 leaves last; we may go once our Buffers are all back
	out=$( (set -e; poll 60 victim_reaped; poll 30 holds_nothing) 2>&1) ||
		{ printf '# g1: %s\n' "$out"; exit 1; }
}

case $me in
0)
	run_case up "guest 0: every guest joins one shared pool"
	run_case reach "guest 0 pings each member through the pool"
	run_case mac_change "guest 0's MAC changes while up; guest 1's replies follow it"
	run_case xfer "guest 0: 8 MiB to guest 1 and back, sha256 equal"
	run_case iperf "guest 0: iperf3 to guest 1 through the pool"
	# with three guests, the same redis-benchmark as in the two-guest run
	# (make check runs both) would only repeat it: their point is the survivor
	[ "$n" -gt 2 ] || run_case redis "guest 0: redis-benchmark against guest 1 through the pool"
	run_case death "guest $victim dies mid-traffic: reaped, nothing leaked"
	run_case after "guest 0 goes on after the death"
	[ "$n" -lt 3 ] || [ $zc = 0 ] ||
		run_case linger "guest 0 leaves while a socket holds frames lent to it; they stay intact"
	run_case rejoin "guest 0 leaves and joins again (edmctl, then ip link), then unloads"
	tap_done
	;;
$victim)
	[ "$n" -gt 2 ] || { serve; exit 1; }	# two guests: guest 1 serves, then dies
	out=$( (set -e; up) 2>&1) || { printf '# g%s: %s\n' "$me" "$out"; exit 1; }
	die_mid_traffic
	;;
*)
	serve
	;;
esac
