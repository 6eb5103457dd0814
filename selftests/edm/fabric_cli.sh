#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The EDM fabric through edmctl, asserted through its JSON: switches and
# hosts made, shown, changed and deleted; emulated links between their
# ports; the kernel's messages for what it refuses; and every change as an
# event in `edmctl monitor`, a link end that went down with its reason.
source "$(dirname "$0")/lib.sh"

EDMOP=$EDM_TOP/tools/edmop/edmop
MON_OUT=$(mktemp)
MON_PID=

cleanup() {
	[ -n "$MON_PID" ] && kill "$MON_PID" 2>/dev/null
	for n in sw0 h0 h1 h2 swa swb hq hx; do "$EDMCTL" fabric del $n 2>/dev/null; done
	ip netns del edm_fx 2>/dev/null
	rm -f "$MON_OUT"
}
trap cleanup EXIT

command -v jq >/dev/null || { echo "# SKIP: jq missing"; exit "$KSFT_SKIP"; }

nodes() {
	x "$EDMCTL" -j fabric show | jq -e 'length == 0'
	x "$EDMCTL" -j fabric add switch sw0 ports 8 x 4 chunk 512 policy fcfs rate 100000 |
		tee /dev/stderr | jq -e '.[0] | .name == "sw0" and .type == "switch"
			and .ports == 8 and .sched_x == 4 and .chunk == 512 and .policy == "fcfs"
			and .rate_mbps == 100000 and (has("stats") | not)'
	x "$EDMCTL" -j fabric add host h0 addr 1 region 64k timeout 250 |
		jq -e '.[0] | .type == "host" and .addr == 1 and .region_size == 65536
			and .timeout_ms == 250 and .timeout_min_us == 62500
			and (.minor | type) == "number"'
	x "$EDMCTL" -j fabric add host h2 addr 3 timeout 250 timeout-min 2000 |
		jq -e '.[0] | .timeout_ms == 250 and .timeout_min_us == 2000'
	x "$EDMCTL" fabric del h2
	# a host with a second port, for a standby switch
	x "$EDMCTL" -j fabric add host h3 addr 4 ports 2 | jq -e '.[0].ports == 2'
	x "$EDMCTL" fabric del h3
	# the defaults: X 3, chunk 256, SRPT, 25 Gb/s; no region, 100 ms (25 at least)
	x "$EDMCTL" fabric add switch sw1
	x "$EDMCTL" -j fabric show sw1 | jq -e '.[0] | .ports == 16 and .sched_x == 3
		and .chunk == 256 and .policy == "srpt" and .rate_mbps == 25000'
	x "$EDMCTL" fabric add host h1 addr 2
	x "$EDMCTL" -j fabric show h1 | jq -e '.[0] | .region_size == 0 and .timeout_ms == 100
		and .timeout_min_us == 25000'
	# fabric show lists fabric nodes only; dev show lists them all
	x "$EDMCTL" dev add name null0 type null
	x "$EDMCTL" -j fabric show | jq -e 'map(.name) == ["sw0", "h0", "sw1", "h1"]'
	x "$EDMCTL" -j dev show | jq -e 'length == 5'
	# counters of the node's kind, with -s or from stats
	x "$EDMCTL" -j -s fabric show sw0 | jq -e '.[0].stats | has("grants") and
		(has("reads") | not) and all(.[]; type == "number")'
	x "$EDMCTL" -j fabric stats h0 | jq -e '.[0] | .name == "h0" and .stats.reads == 0
		and (.stats | has("grants") | not)'
	# set: the scheduler's policy and chunk
	x "$EDMCTL" fabric set sw0 policy srpt chunk 1024
	x "$EDMCTL" -j fabric show sw0 | jq -e '.[0] | .policy == "srpt" and .chunk == 1024'
	# text names the device file
	x "$EDMCTL" fabric show h0 | grep -E '^[0-9]+: name h0 type host addr 1 region 64K timeout 250 timeout-min 62500 cdev /dev/edm[0-9]+$'
	for n in sw1 h1 sw0 h0; do x "$EDMCTL" fabric del $n; done
	x "$EDMCTL" dev del name null0
	x "$EDMCTL" -j fabric show | jq -e 'length == 0'
	poll 10 edm_no_objects
}

node_errors() {
	x "$EDMCTL" fabric add switch sw0 ports 4
	x "$EDMCTL" fabric add host h0 addr 1
	expect_error "device name already in use" "$EDMCTL" fabric add host sw0 addr 2
	expect_error "integer out of range (attribute \"ports\")" \
		"$EDMCTL" fabric add switch sw1 ports 513
	expect_error "integer out of range (attribute \"addr\")" \
		"$EDMCTL" fabric add host h1 addr 512
	expect_error "integer out of range (attribute \"region\")" \
		"$EDMCTL" fabric add host h1 addr 2 region 2G
	expect_error "region size must be a multiple of 4 KiB" \
		"$EDMCTL" fabric add host h1 addr 2 region 4097
	expect_error "the shortest timeout is longer than the longest (timeout)" \
		"$EDMCTL" fabric add host h1 addr 2 timeout 5 timeout-min 5001
	expect_error "integer out of range (attribute \"timeout-min\")" \
		"$EDMCTL" fabric add host h1 addr 2 timeout-min 99
	expect_error "a host has 1 port, or 2: the second to a standby switch" \
		"$EDMCTL" fabric add host h1 addr 2 ports 3
	expect_error "invalid name: use [A-Za-z0-9_.-], starting with a letter or digit" \
		"$EDMCTL" fabric add switch _sw
	expect_error "no such device" "$EDMCTL" fabric show nosuch
	expect_error "no such device" "$EDMCTL" fabric del nosuch
	expect_error "not a switch: only a switch has settings to change" \
		"$EDMCTL" fabric set h0 policy fcfs
	expect_error "integer out of range (attribute \"chunk\")" "$EDMCTL" fabric set sw0 chunk 7
	x "$EDMCTL" dev add name null0 type null
	expect_error "not a fabric node" "$EDMCTL" fabric show null0
	expect_error "not a fabric node" "$EDMCTL" fabric del null0
	# nothing refused was made
	x "$EDMCTL" -j fabric show | jq -e 'map(.name) == ["sw0", "h0"]'
	x "$EDMCTL" dev del name null0
	x "$EDMCTL" fabric del sw0
	x "$EDMCTL" fabric del h0
}

links() {
	x "$EDMCTL" fabric add switch sw0 ports 4
	x "$EDMCTL" fabric add host h0 addr 1
	x "$EDMCTL" fabric add host h1 addr 2
	x "$EDMCTL" -j fabric link add sw0:1 peer h0 | tee /dev/stderr | jq -e '.[0] |
		.node == "sw0" and .port == 1 and .peer == "h0" and .peer_port == 0
		and .state == "up" and .mux == "fair" and .rate_mbps == 25000
		and (has("stats") | not)'
	x "$EDMCTL" -j fabric link add h1 peer sw0:2 rate 10000 delay 500 mux strict sherr 8 |
		jq -e '.[0] | .node == "h1" and .port == 0 and .peer == "sw0"
			and .peer_port == 2 and .rate_mbps == 10000 and .delay_ns == 500
			and .mux == "strict" and .sherr_threshold == 8'
	x "$EDMCTL" -j fabric link show | jq -e 'length == 4'
	x "$EDMCTL" -j fabric link show sw0 | jq -e 'map(.port) == [1, 2]'
	x "$EDMCTL" -j fabric link show sw0:2 | jq -e 'length == 1 and .[0].peer == "h1"'
	x "$EDMCTL" -j fabric link show h0 | jq -e '.[0].peer == "sw0" and .[0].peer_port == 1'
	x "$EDMCTL" -j -s fabric link show h0 | jq -e '.[0].stats | has("sherr")
		and has("down_events") and all(.[]; type == "number")'
	x "$EDMCTL" fabric link show sw0:1 | grep -E '^sw0:1 peer h0:0 rate 25000 delay 0 mux fair sherr [0-9]+ state up$'
	x "$EDMCTL" fabric link set sw0:1 rate 100000 mux none
	x "$EDMCTL" -j fabric link show sw0:1 | jq -e '.[0].rate_mbps == 100000 and .[0].mux == "none"'
	# errors, each naming what is wrong
	expect_error "the port is already linked" "$EDMCTL" fabric link add sw0:1 peer h1
	expect_error "no such port on this switch" "$EDMCTL" fabric link add sw0:4 peer h1
	expect_error "a host has one port, port 0" "$EDMCTL" fabric link add h1:1 peer sw0:3
	expect_error "no such fabric node" "$EDMCTL" fabric link add sw0:3 peer nosuch
	expect_error "port not linked" "$EDMCTL" fabric link show sw0:3
	expect_error "port not linked" "$EDMCTL" fabric link del sw0:3
	expect_error "integer out of range (attribute \"rate\")" \
		"$EDMCTL" fabric link set sw0:1 rate 999
	expect_error "EDM over Ethernet needs an Ethernet netdev" "$EDMCTL" fabric link add sw0:3 dev lo \
		broadcast
	# deleting one end frees both; deleting a node deletes its links
	x "$EDMCTL" fabric link del h0
	x "$EDMCTL" -j fabric link show | jq -e 'map(.node) | sort == ["h1", "sw0"]'
	x "$EDMCTL" fabric del sw0
	x "$EDMCTL" -j fabric link show | jq -e 'length == 0'
	x "$EDMCTL" fabric del h0
	x "$EDMCTL" fabric del h1
}

mon_has() {
	jq -e "select($1)" "$MON_OUT" 2>/dev/null | grep -q .
}

# mon_count FILTER: how many events match
mon_count() {
	jq -c "select($1)" "$MON_OUT" | wc -l
}

# Subscribe, then prove the subscription is live before the real events.
mon_start() {
	local k=0

	"$EDMCTL" -j monitor >"$MON_OUT" &
	MON_PID=$!
	until mon_has '.name // "" | startswith("probe")'; do
		k=$((k + 1))
		[ $k -le 100 ] || { echo "monitor never saw a probe event"; return 1; }
		"$EDMCTL" fabric add host probe$k addr 9 >/dev/null
		"$EDMCTL" fabric del probe$k
		sleep 0.1
	done
}

mon_stop() {
	kill "$MON_PID"
	wait "$MON_PID" 2>/dev/null
	MON_PID=
	cat "$MON_OUT" >&2
}

events() {
	mon_start
	"$EDMCTL" fabric add switch sw0 ports 4 >/dev/null
	"$EDMCTL" fabric add host h0 addr 1 >/dev/null
	"$EDMCTL" fabric link add sw0:1 peer h0 >/dev/null
	# a set that changes nothing is no event; the one after it is
	"$EDMCTL" fabric set sw0 policy srpt
	"$EDMCTL" fabric link set sw0:1 rate 25000
	"$EDMCTL" fabric set sw0 policy fcfs
	"$EDMCTL" fabric link set sw0:1 rate 10000
	"$EDMCTL" fabric link del sw0:1
	"$EDMCTL" fabric link add h0 peer sw0:2 >/dev/null
	"$EDMCTL" fabric del sw0
	"$EDMCTL" fabric add host end0 addr 3 >/dev/null
	poll 10 mon_has '.name == "end0"'
	mon_stop
	[ "$(mon_count '.object == "fabric" and .event == "new" and .name == "sw0"')" = 1 ]
	mon_has '.object == "fabric" and .event == "new" and .name == "h0" and .type == "host"'
	# one event per link end, for new and del
	[ "$(mon_count '.object == "fabric-link" and .event == "new"')" = 4 ]
	mon_has '.event == "new" and .node == "sw0" and .port == 1 and .peer == "h0"'
	mon_has '.event == "new" and .node == "h0" and .port == 0 and .peer == "sw0" and .peer_port == 1'
	[ "$(mon_count '.object == "fabric" and .event == "set"')" = 1 ]
	mon_has '.object == "fabric" and .event == "set" and .policy == "fcfs"'
	[ "$(mon_count '.object == "fabric-link" and .event == "set"')" = 1 ]
	mon_has '.event == "set" and .node == "sw0" and .port == 1 and .rate_mbps == 10000'
	# link del: both ends; fabric del: its link's two ends, then the node
	[ "$(mon_count '.object == "fabric-link" and .event == "del"')" = 4 ]
	mon_has '.event == "del" and .node == "h0" and .peer_port == 2'
	[ "$(mon_count '.object == "fabric" and .event == "del" and .name == "sw0"')" = 1 ]
	"$EDMCTL" fabric del h0
	"$EDMCTL" fabric del end0
}

# Spoiled sync headers past the threshold disable the end that receives
# them (corrupt spoils what the end it is set on receives), and the monitor
# says so, with why; a set brings it back up.
link_down() {
	local dev k=0

	[ -x "$EDMOP" ] || { echo "edmop not built"; return 1; }
	x "$EDMCTL" fabric add switch sw0 ports 4
	x "$EDMCTL" fabric add host h0 addr 1
	x "$EDMCTL" fabric add host h1 addr 2 region 4k
	x "$EDMCTL" fabric link add h0 peer sw0:1 sherr 4
	x "$EDMCTL" fabric link add h1 peer sw0:2
	dev=/dev/edm$("$EDMCTL" -j fabric show h0 | jq -er '.[0].minor')
	poll 5 test -c "$dev"
	mon_start
	x "$EDMCTL" fabric link set h0 corrupt 64
	until mon_has '.event == "down"'; do
		k=$((k + 1))
		[ $k -le 50 ] || { echo "no link-down event"; mon_stop; return 1; }
		"$EDMOP" "$dev" read 2 0 64 >/dev/null 2>&1 || :
	done
	mon_stop
	[ "$(mon_count '.event == "down"')" = 1 ]
	mon_has '.object == "fabric-link" and .event == "down" and .node == "h0" and .port == 0
		and .state == "down" and (.reason | length) > 0'
	x "$EDMCTL" -j -s fabric link show h0 | jq -e '.[0] | .state == "down"
		and .stats.sherr >= 4 and .stats.down_events == 1'
	x "$EDMCTL" -j fabric link show sw0:1 | jq -e '.[0].state == "up"'
	x "$EDMCTL" fabric link set h0
	x "$EDMCTL" -j fabric link show h0 | jq -e '.[0].state == "up"'
	for n in sw0 h0 h1; do x "$EDMCTL" fabric del $n; done
}

# A dump of more link ends than one message holds (80 of ~330 bytes) resumes at
# the right node and port: every end once, in node then port order.
many_links() {
	local i n=40 want

	x "$EDMCTL" fabric add switch swa ports $n >/dev/null
	x "$EDMCTL" fabric add switch swb ports $n >/dev/null
	for ((i = 0; i < n; i++)); do
		"$EDMCTL" fabric link add swa:$i peer swb:$((n - 1 - i)) >/dev/null || return 1
	done
	want=$(jq -cn --argjson n $n '[range($n) | ["swa", .]] + [range($n) | ["swb", .]]')
	x "$EDMCTL" -j fabric link show | jq -e --argjson want "$want" 'map([.node, .port]) == $want'
	x "$EDMCTL" -j fabric link show swb | jq -e --argjson n $n 'length == $n and
		all(.[]; .node == "swb" and .peer == "swa" and .peer_port == $n - 1 - .port)'
	x "$EDMCTL" fabric del swa
	x "$EDMCTL" fabric del swb
	x "$EDMCTL" -j fabric link show | jq -e 'length == 0'
}

# A namespace's death takes its fabric with it: switch, hosts, links and
# the hosts' netdevs go, and nothing of the fabric keeps the namespace.
netns_death() {
	x ip netns add edm_fx
	x "$EDMCTL" -n edm_fx fabric add switch swx ports 4 >/dev/null
	x "$EDMCTL" -n edm_fx fabric add host hx addr 1 region 64k keyed >/dev/null
	x "$EDMCTL" -n edm_fx fabric add host hy addr 2 >/dev/null
	x "$EDMCTL" -n edm_fx fabric link add hx peer swx:1
	x "$EDMCTL" -n edm_fx fabric link add hy peer swx:2
	x ip -n edm_fx link set hy up
	x "$EDMCTL" -j fabric show | jq -e 'length == 0'
	[ "$(edm_objects fabric)" = 3 ]
	x ip netns del edm_fx
	# netns teardown is asynchronous: wait for its nodes to go
	poll 30 edm_no_objects
}

# `ip link add ... type fhost` makes the same host as edmctl (one path in
# the kernel): edmctl shows it, `ip -d link` shows its parameters, and it
# links to a switch like any host. `ip link del` deletes it with its links,
# and so does the death of its namespace; an edmctl host has the kind too.
iplink() {
	local want

	expect_error_in "missing host address" ip link add hq type fhost
	[ ! -e /sys/class/net/hq ]
	x ipl link add hq type fhost addr 3 region 64k keyed timeout 200 timeout-min 5000
	x "$EDMCTL" -j fabric show hq | jq -e '.[0] | .type == "host" and .addr == 3
		and .region_size == 65536 and .keyed and .timeout_ms == 200
		and .timeout_min_us == 5000 and (.minor | type) == "number"'
	x ipl -j -d link show hq | jq -e '.[0].linkinfo | .info_kind == "fhost" and (.info_data |
		.addr == 3 and .region_size == 65536 and .region_keyed == "keyed"
		and .timeout_ms == 200 and .timeout_min_us == 5000 and (has("ports") | not))'
	x "$EDMCTL" fabric add switch sw0 ports 4 >/dev/null
	x "$EDMCTL" fabric link add hq peer sw0:3
	x "$EDMCTL" -j fabric link show sw0:3 | jq -e '.[0] | .peer == "hq" and .state == "up"'
	x ip link del hq
	x "$EDMCTL" -j fabric show | jq -e 'map(.name) == ["sw0"]'
	x "$EDMCTL" -j fabric link show | jq -e 'length == 0'

	x "$EDMCTL" fabric add host h0 addr 1 ports 2 >/dev/null
	want="fhost addr 1 ports 2 timeout 100 timeout-min 25000 cdev /dev/edm[0-9]+ region 0 "
	x ipl -d link show h0 | grep -qE "$want"
	x ip link del h0
	x "$EDMCTL" -j fabric show | jq -e 'map(.name) == ["sw0"]'

	x ip netns add edm_fx
	x ipl -n edm_fx link add hn type fhost addr 4
	x "$EDMCTL" -n edm_fx -j fabric show | jq -e 'map(.name) == ["hn"]'
	x ip netns del edm_fx
	poll 30 edm_objects_are fabric 1
	x "$EDMCTL" fabric del sw0

	expect_error_in "a host's name is" ipl link add h+x type fhost addr 5
	expect_error_in "region size must be a multiple of 4 KiB" \
		ipl link add hx type fhost addr 5 region 1000
	expect_error_in "only a host with a region can be keyed" ipl link add hx type fhost addr 5 keyed
	expect_error_in "a host has 1 port, or 2" ipl link add hx type fhost addr 5 ports 3
	expect_error_in "shortest timeout is longer" \
		ipl link add hx type fhost addr 5 timeout 10 timeout-min 20000
	[ ! -e /sys/class/net/hx ]
	edm_no_objects
}

run_case nodes "fabric add, show (JSON), stats, set and del of switches and hosts"
run_case node_errors "the kernel's messages for nodes it refuses reach the user"
run_case links "fabric link add, show, set and del of emulated links"
run_case events "monitor prints fabric and link events, none for a set that changed nothing"
run_case many_links "a link dump over several messages has every end once, in order"
run_case link_down "corrupted blocks take a link end down, the monitor says why, set revives it"
run_case netns_death "a namespace's death deletes its fabric nodes, links and netdevs"
run_case iplink "ip link add/del of fabric hosts, with and without the ip plug-in, and ip -d link"
tap_done
