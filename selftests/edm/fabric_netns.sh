#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# EDM over Ethernet between network namespaces (issue 4, item 9; issue 25):
#
#   edmf_cn: host cn (addr 1) on fv_c -+
#   edmf_sw: switch sw, port 1 on fv_sc -+- bridge br0 in edmf_br
#   edmf_rg: rogue host rg (addr 1) on fv_g -+
#   edmf_mn: host mn (addr 2, 1 MiB keyed region) on fv_m <-veth-> fv_sm: port 2
#
# each node built with edmctl inside its own netns and bound to its veth
# end, so every block crosses veths in EDM frames (ethertype 0x88B5): cn
# and sw name each other's MAC address (peer-mac), mn's point-to-point
# wire is a broadcast link. mn's region is keyed: cn presents its key
# (edmop -k, the key edmctl region key shows mn's admin). From cn, through edmop: writes of bytes this
# test chose read back unchanged, a CAS swaps only when its expected value
# is the word's, a request past the region fails with ERANGE; the counters
# of the three nodes and of their links moved by what was done. The rogue
# on the same bridge, claiming cn's address, can neither read nor write
# mn's region, by its own fabric host (with and without the key, stolen)
# or by replaying a frame of cn's with
# the sequence number the switch expects, sees none of cn's traffic, and
# floods the switch's port without costing cn an op; each frame it sent is
# counted as foreign. The control: with the switch's port in broadcast mode
# the same replay is taken in (a received burst, not a foreign frame), the
# rogue's own host is refused by mn without the key (a key NACK, counted)
# and with the stolen key reads the bytes cn wrote. Deleting the memory host turns a read
# into a timeout error; and corrupted sync headers disable a link and
# `edmctl monitor` reports it.
source "$(dirname "$0")/lib.sh"

EDMOP=$EDM_TOP/tools/edmop/edmop
CN=edmf_cn SW=edmf_sw MN=edmf_mn BR=edmf_br RG=edmf_rg
FORGE=$EDM_TOP/selftests/edm/eth_forge.py
REGION=$((1 << 20))
DEV=
KEY=		# mn's region key, from topology

for t in jq "$EDMOP"; do
	command -v "$t" >/dev/null || { echo "1..0 # SKIP $t is not installed"; exit $KSFT_SKIP; }
done

PY=/usr/bin/python3

# the edmctl monitors corrupt() started, by the PIDs it noted
kill_monitors() {
	local p

	[ -e /tmp/edmf_mon_pids ] || return 0
	while read -r p; do kill "$p" 2>/dev/null; done </tmp/edmf_mon_pids
	rm -f /tmp/edmf_mon_pids
}

cleanup() {
	kill_monitors
	# the nodes go with their netns
	ip netns del $CN 2>/dev/null
	ip netns del $SW 2>/dev/null
	ip netns del $MN 2>/dev/null
	ip netns del $RG 2>/dev/null
	ip netns del $BR 2>/dev/null
	rm -f /tmp/edmf_*
}
trap cleanup EXIT

# ctl NETNS ARGS...: edmctl in a netns
ctl() {
	local ns=$1

	shift
	x "$EDMCTL" -n "$ns" "$@"
}

# The edmop calls, in one place; all of them from cn, with mn's key.
# Errors go to stderr as edmop prints them ("edmop: ...: Connection timed out").
# cn_op EDMOP-ARGS...: edmop in cn's netns, presenting the key
cn_op() {
	ip netns exec $CN "$EDMOP" -k "$KEY" "$@"
}

# op_write ADDR HEX: write the bytes HEX (two hex digits each) at ADDR of mn
op_write() {
	x cn_op "$DEV" write 2 "$1" "hex:$2"
}

# op_read ADDR LEN: print the LEN bytes at ADDR of mn, in hex
op_read() {
	x cn_op -j "$DEV" read 2 "$1" "$2" | jq -er '.data'
}

# op_cas ADDR OLD NEW: print the old value of the word at ADDR (0x hex)
op_cas() {
	x cn_op -j "$DEV" cas 2 "$1" "$2" "$3" | jq -er '.old'
}

# le64 V: the 8 bytes of V, a little-endian word, in hex
le64() {
	printf '%016x' "$1" | sed 's/../& /g' | awk '{ for (i = NF; i; i--) printf "%s", $i }'
}

# Random bytes in hex: the values the test compares against.
rand_hex() {
	od -An -tx1 -N "$1" /dev/urandom | tr -d ' \n'
}

# node_stat NETNS NODE KEY: a node counter
node_stat() {
	"$EDMCTL" -n "$1" -j fabric stats "$2" | jq -er --arg n "$2" \
		'.[] | select(.name == $n) | .stats.'"$3"
}

# link_stat NETNS NODE FILTER: FILTER (jq) over the counters of the node's
# link on its port 0 (hosts) or of all its links summed (switch): a counter
# (.tx_blocks), or a check that fails when false
link_stat() {
	"$EDMCTL" -n "$1" -s -j fabric link show "$2" | jq -er --arg n "$2" \
		"[.[] | select(.node == \$n) | .stats] |
		 reduce .[] as \$s ({}; reduce (\$s | keys[]) as \$k (.; .[\$k] += \$s[\$k])) | $3"
}

bridge_forwarding() {
	bridge -n $BR -j link show | jq -e 'length == 3 and all(.state == "forwarding")' >/dev/null
}

topology() {
	x modprobe veth
	# the debug kernel has no bridge: cn and the switch on one veth pair
	# there, and no rogue
	if modprobe bridge 2>/dev/null || [ -d /sys/module/bridge ]; then
		: >/tmp/edmf_bridge
	fi
	x ip netns add $CN
	x ip netns add $SW
	x ip netns add $MN
	x ip netns add $RG
	if [ -e /tmp/edmf_bridge ]; then
		x ip netns add $BR
		x ip -n $BR link add br0 type bridge
		x ip -n $BR link set br0 up
		x ip link add fv_c netns $CN type veth peer name fv_bc netns $BR
		x ip link add fv_sc netns $SW type veth peer name fv_bs netns $BR
		x ip link add fv_g netns $RG type veth peer name fv_bg netns $BR
		for p in fv_bc fv_bs fv_bg; do
			x ip -n $BR link set $p master br0 up
		done
		x ip -n $RG link set fv_g up
	else
		x ip link add fv_c netns $CN type veth peer name fv_sc netns $SW
	fi
	x ip link add fv_m netns $MN type veth peer name fv_sm netns $SW
	x ip -n $CN link set fv_c up
	x ip -n $SW link set fv_sc up
	x ip -n $SW link set fv_sm up
	x ip -n $MN link set fv_m up
	# the bridge forwards once it has seen the carrier of each port
	[ ! -e /tmp/edmf_bridge ] || poll 10 bridge_forwarding

	ctl $SW fabric add switch sw ports 4
	# 1 s, not the default 100 ms: on the debug kernel under TCG, a round
	# trip over three netns can take longer than 100 ms
	ctl $CN fabric add host cn addr 1 timeout 1000
	ctl $MN fabric add host mn addr 2 region 1m keyed
	KEY=$("$EDMCTL" -n $MN region key 2)
	[ -n "$KEY" ] && [ "$KEY" != 0 ]
	ctl $CN fabric link add cn dev fv_c peer-mac "$(netdev_mac $SW fv_sc)"
	ctl $SW fabric link add sw:1 dev fv_sc peer-mac "$(netdev_mac $CN fv_c)"
	ctl $SW fabric link add sw:2 dev fv_sm peer-mac "$(netdev_mac $MN fv_m)"
	ctl $MN fabric link add mn dev fv_m broadcast
	# the rogue: cn's address, the switch's MAC, a short timeout
	ctl $RG fabric add host rg addr 1 timeout 200

	# every node sees only its own netns
	"$EDMCTL" -n $CN -j fabric show | jq -e 'map(.name) == ["cn"]'
	"$EDMCTL" -n $SW -j fabric show | jq -e 'map(.name) == ["sw"]'
	"$EDMCTL" -j fabric show | jq -e 'length == 0'
	# bound to the veth end of its netns, and up
	"$EDMCTL" -n $CN -j fabric link show cn | jq -e --argjson i \
		"$(ip netns exec $CN cat /sys/class/net/fv_c/ifindex)" --arg m "$(netdev_mac $SW fv_sc)" \
		'length == 1 and .[0].ifindex == $i and .[0].peer_mac == $m and
		 (.[0] | has("broadcast") | not) and .[0].state == "up"'
	"$EDMCTL" -n $MN -j fabric link show mn | jq -e '.[0].broadcast == true and
		(.[0] | has("peer_mac") | not)'
	"$EDMCTL" -n $SW -j fabric link show sw | jq -e 'length == 2 and all(.state == "up")'
	"$EDMCTL" -n $MN -j fabric show mn | jq -e --argjson r $REGION '.[0].region_size == $r'

	DEV=/dev/edm$("$EDMCTL" -n $CN -j fabric show cn | jq -er '.[0].minor')
	poll 5 test -c "$DEV"
	# cn learns mn's region size (and checks its writes against it from now)
	x cn_op -j "$DEV" size 2 | jq -e --argjson r $REGION '.size == $r'
	echo "$DEV" >/tmp/edmf_dev
	echo "$KEY" >/tmp/edmf_key
}

# snapshot: every node's counters now, for delta to compare with
snapshot() {
	"$EDMCTL" -n $CN -j fabric stats cn >/tmp/edmf_snap_cn
	"$EDMCTL" -n $SW -j fabric stats sw >/tmp/edmf_snap_sw
	"$EDMCTL" -n $MN -j fabric stats mn >/tmp/edmf_snap_mn
	link_stat $CN cn .tx_blocks >/tmp/edmf_snap_cn_tx
}

# want NETNS NODE "KEY OP N"...: each counter's growth since the snapshot
# compares to N (OP -eq or -ge); one edmctl and one jq for them all
want() {
	local ns=$1 node=$2 spec key op n d
	local -A grew=()

	shift 2
	# a here-string, not <(...): the guest has no /dev/fd
	while read -r key d; do
		grew[$key]=$d
	done <<<"$("$EDMCTL" -n "$ns" -j fabric stats "$node" |
		   jq -r --arg n "$node" --slurpfile was "/tmp/edmf_snap_$node" '
			def of: .[] | select(.name == $n) | .stats;
			($was[0] | of) as $w | of | to_entries[] | "\(.key) \(.value - $w[.key])"')"
	for spec in "$@"; do
		read -r key op n <<<"$spec"
		d=${grew[$key]:-}
		[ -n "$d" ] || { echo "$node has no counter $key"; return 1; }
		case $op in
		-eq) [ "$d" -eq "$n" ] ;;
		-ge) [ "$d" -ge "$n" ] ;;
		*) echo "want: no operator $op"; return 1 ;;
		esac || { echo "$node $key grew by $d, want $op $n"; return 1; }
	done
}

# Random bytes at a few offsets, among them the region's last bytes and an
# unaligned write larger than a chunk; each reads back as written, after
# all were written.
write_read() {
	local addrs=(0 64 $((REGION - 16)) 65539) lens=(64 7 16 1000) i
	local -a data

	snapshot
	for i in "${!addrs[@]}"; do
		data[i]=$(rand_hex "${lens[i]}")
		op_write "${addrs[i]}" "${data[i]}"
	done
	for i in "${!addrs[@]}"; do
		got=$(op_read "${addrs[i]}" "${lens[i]}")
		[ "$got" = "${data[i]}" ] ||
			{ echo "at ${addrs[i]}: wrote ${data[i]}, read $got"; return 1; }
	done
	# a read that spans two writes sees both
	got=$(op_read 60 8)
	[ "$got" = "${data[0]:120:8}${data[1]:0:8}" ]
}

# CAS on a word the test wrote: the wrong expected value leaves it, the
# right one swaps, and each returns the word as it was.
cas() {
	local a=$((REGION / 2)) v1 v2 v3

	v1=$((RANDOM * 65536 + RANDOM + 1)) v2=$((v1 + RANDOM + 1)) v3=$((v2 + 7))
	op_write $a "$(le64 "$v1")"
	[ $(($(op_cas $a "$v2" "$v3"))) -eq "$v1" ]	# fails: the word is v1
	[ $(($(op_cas $a "$v1" "$v2"))) -eq "$v1" ]	# swaps
	[ $(($(op_cas $a "$v1" "$v3"))) -eq "$v2" ]	# fails again
	got=$(op_read $a 8)
	[ "$got" = "$(le64 "$v2")" ]
}

# What write_read and cas did, counted where it happened: cn completed
# 6 reads, 5 writes and 3 RMWs, mn served them, the switch granted every
# write and forwarded each op's messages; blocks crossed both veth pairs,
# none lost or damaged.
# fab_ethtool NETNS HOST: ethtool on a host's netdev: -i names the driver
# and /dev/edm<N>; -S has the counters edmctl has, each between edmctl's
# reads before and after (lib.sh's eth_between).
fab_ethtool() {
	local e0 s e1 minor

	minor=$("$EDMCTL" -n "$1" -j fabric show "$2" | jq -er '.[0].minor')
	x ip netns exec "$1" ethtool -i "$2" | grep -qx 'driver: edm-fabric'
	ip netns exec "$1" ethtool -i "$2" | grep -qx "bus-info: edm$minor"
	e0=$("$EDMCTL" -n "$1" -j fabric stats "$2" | jq -c --arg n "$2" '.[] | select(.name == $n) | .stats')
	s=$(ethtool_json "$2" "$1")
	e1=$("$EDMCTL" -n "$1" -j fabric stats "$2" | jq -c --arg n "$2" '.[] | select(.name == $n) | .stats')
	eth_between "$e0" "$s" "$e1"
}

counters() {
	local c len served=0 nn

	want $CN cn "reads -eq 6" "writes -eq 5" "rmws -eq 3" \
		"write_bytes -eq $((64 + 7 + 16 + 1000 + 8))" \
		"read_bytes -eq $((64 + 7 + 16 + 1000 + 8 + 8))" "errors -eq 0" "timeouts -eq 0"
	# mn serves a write chunk by chunk (the switch's grant size)
	c=$("$EDMCTL" -n $SW -j fabric show sw | jq -er '.[0].chunk')
	for len in 64 7 16 1000 8; do
		served=$((served + (len + c - 1) / c))
	done
	want $MN mn "served_reads -eq 6" "served_rmws -eq 3" "served_errors -eq 0" \
		"served_writes -eq 5" "served_write_chunks -eq $served"
	want $SW sw "grants -ge 5" "fwd_msgs -ge 14" "drops -eq 0"
	[ "$(link_stat $CN cn .tx_blocks)" -gt "$(cat /tmp/edmf_snap_cn_tx)" ]
	for nn in $CN:cn $SW:sw $MN:mn; do
		link_stat "${nn%:*}" "${nn#*:}" \
			'.rx_blocks > 0 and .seq_gaps == 0 and .sherr == 0' >/dev/null
	done
	fab_ethtool $CN cn
	fab_ethtool $MN mn
}

# The hosts' netdevs (named as the hosts, in their netns) carry IP over the
# fabric: cn pings mn through the switch. mn's MAC address changes while it
# is up (as a veth's may), and cn reaches it at the new one: the switch
# learns it from mn's next frame. IPv6 is off and both go down at the end,
# so that no frame of theirs moves the later cases' counters.
host_netdev() {
	local mac=02:ed:00:00:00:2a

	x ip netns exec $CN sysctl -qw net.ipv6.conf.cn.disable_ipv6=1
	x ip netns exec $MN sysctl -qw net.ipv6.conf.mn.disable_ipv6=1
	x ip -n $CN addr add 10.78.0.1/24 dev cn
	x ip -n $MN addr add 10.78.0.2/24 dev mn
	x ip -n $CN link set cn up
	x ip -n $MN link set mn up
	poll 20 ip netns exec $CN ping -c 1 -W 1 10.78.0.2 >/dev/null
	x ip -n $MN link set mn address $mac
	[ "$(netdev_mac $MN mn)" = $mac ]
	ip -n $MN -j link show mn | jq -e '.[0].operstate != "DOWN"' >/dev/null
	x ip -n $CN neigh flush dev cn
	poll 20 ip netns exec $CN ping -c 1 -W 1 10.78.0.2 >/dev/null
	ip -n $CN -j neigh show 10.78.0.2 dev cn | jq -e --arg m $mac '.[0].lladdr == $m' >/dev/null
	x ip -n $CN link set cn down
	x ip -n $MN link set mn down
}

# refused EDMOP-ARGS...: an op of cn's that must fail with ERANGE
refused() {
	local err

	if err=$(cn_op "$DEV" "$1" 2 "${@:2}" 2>&1); then
		echo "$1 ${*:2} succeeded: $err"
		return 1
	fi
	grep -q 'out of range' <<<"$err" || { echo "$1 ${*:2}: $err"; return 1; }
}

# Past the end of the 1 MiB region: ERANGE for reads, writes and RMWs;
# the memory node refuses the read and the RMW, the writer the write (it
# knows the region's size from the probe in topology).
out_of_range() {
	local err

	snapshot
	refused read $((REGION - 8)) 16
	refused write $REGION hex:00
	refused cas $REGION 0 1
	# the write never became an op: the ioctl refused it
	want $CN cn "errors -eq 2"
	want $MN mn "served_errors -eq 2" "served_writes -eq 0" "served_write_chunks -eq 0"
	# and the region is intact next to the refused write
	op_read $((REGION - 16)) 16 >/dev/null
}

# The rogue cases need the bridge.
no_bridge_skip() {
	[ -e /tmp/edmf_bridge ] || skip "this kernel has no bridge (CONFIG_BRIDGE)"
}

# rg_link WHOM...: the rogue's link to the bridge, made anew: "peer-mac
# MAC" or "broadcast"
rg_link() {
	"$EDMCTL" -n $RG fabric link del rg 2>/dev/null || :
	ctl $RG fabric link add rg dev fv_g "$@"
}

# rg_fails KEY EDMOP-ARGS...: an op of the rogue's, presenting KEY (none
# when empty), which must not succeed
rg_fails() {
	local out dev kopt=()

	[ -n "$1" ] && kopt=(-k "$1")
	shift
	dev=/dev/edm$("$EDMCTL" -n $RG -j fabric show rg | jq -er '.[0].minor')
	if out=$(timeout 30 ip netns exec $RG "$EDMOP" "${kopt[@]}" "$dev" "$@" 2>&1); then
		echo "the rogue's $* succeeded: $out"
		return 1
	fi
}

# grew NETNS NODE KEY FROM OP N: the node's link counter KEY (summed over
# its links) went from FROM by OP N (-eq, -ge)
grew() {
	[ $(($(link_stat "$1" "$2" ".$3") - $4)) "$5" "$6" ]
}

# The rogue's own fabric host, claiming cn's address, aims reads, writes
# and CAS at a word cn wrote, without mn's key and with it (stolen): to the
# switch's MAC, then broadcast. None of them is served, the word is what cn
# wrote, and the switch's port counted every frame as foreign.
rogue_ops() {
	no_bridge_skip
	local a=$((REGION / 4)) data f0 whom key

	data=$(rand_hex 16)
	op_write $a "$data"
	snapshot
	f0=$(link_stat $SW sw .rx_foreign)
	for whom in "peer-mac $(netdev_mac $SW fv_sc)" broadcast; do
		# shellcheck disable=SC2086
		rg_link $whom
		for key in "" "$KEY"; do
			rg_fails "$key" write 2 $a "hex:$(rand_hex 16)"
			rg_fails "$key" read 2 $a 16
			rg_fails "$key" cas 2 $a 0 1
		done
	done
	[ "$(op_read $a 16)" = "$data" ]
	want $MN mn "served_reads -eq 1" "served_writes -eq 0" "served_rmws -eq 0" \
		"served_errors -eq 0"
	want $CN cn "errors -eq 0" "timeouts -eq 0" "stray -eq 0"
	grew $SW sw rx_foreign "$f0" -ge 12
	"$EDMCTL" -n $RG -j fabric stats rg | jq -e '.[0].stats.timeouts >= 12'
	# its link would send its refused bursts again for seconds
	ctl $RG fabric link del rg
}

# capture_frame: one EDM frame of cn's, taken where it enters the bridge,
# into /tmp/edmf_frame (cn reads until one is seen).
capture_frame() {
	local pid deadline=$((SECONDS + 60))

	ip netns exec $BR "$PY" "$FORGE" capture fv_bc /tmp/edmf_frame timeout=60 &
	pid=$!
	while kill -0 $pid 2>/dev/null; do
		[ $SECONDS -lt $deadline ] || { echo "nothing captured"; return 1; }
		op_read 0 8 >/dev/null
	done
	wait $pid
}

# A frame of cn's (taken where it enters the bridge) sent again by the
# rogue, from its own MAC, with the sequence number the switch's port
# expects next: refused, counted, and nothing decoded. The control: with
# the switch's port made anew with the broadcast opt-in, the same frame is
# decoded, and the rogue's own host, refused without mn's key, reads the
# bytes cn wrote with it; so what stopped both before was the filter.
rogue_replay() {
	no_bridge_skip
	local cap=/tmp/edmf_frame seq b0 f0 rg_mac sw_mac k0
	local a=$((REGION / 4 + 64)) data

	data=$(rand_hex 16)
	op_write $a "$data"
	capture_frame
	rg_mac=$(netdev_mac $RG fv_g) sw_mac=$(netdev_mac $SW fv_sc)
	seq=$(link_stat $CN cn .tx_bursts)
	snapshot
	b0=$(link_stat $SW sw .rx_bursts) f0=$(link_stat $SW sw .rx_foreign)
	[ "$(ip netns exec $RG "$PY" "$FORGE" send fv_g $cap "$rg_mac" "$sw_mac" "$seq")" = 1 ]
	poll 10 grew $SW sw rx_foreign "$f0" -eq 1
	grew $SW sw rx_bursts "$b0" -eq 0
	want $MN mn "served_reads -eq 0" "served_errors -eq 0"
	want $SW sw "fwd_msgs -eq 0"

	ctl $SW fabric link del sw:1
	ctl $SW fabric link add sw:1 dev fv_sc broadcast
	b0=$(link_stat $SW sw .rx_bursts) f0=$(link_stat $SW sw .rx_foreign)
	[ "$(ip netns exec $RG "$PY" "$FORGE" send fv_g $cap "$rg_mac" "$sw_mac" 0)" = 1 ]
	poll 10 grew $SW sw rx_bursts "$b0" -eq 1
	grew $SW sw rx_foreign "$f0" -eq 0
	# the rogue's own host: refused without the key, served with it
	rg_link broadcast
	k0=$(node_stat $MN mn nacks_key)
	poll 20 rg_key_refused $a
	[ "$(node_stat $MN mn nacks_key)" -gt "$k0" ]
	poll 20 rg_reads $a "$data"
	ctl $RG fabric link del rg

	ctl $SW fabric link del sw:1
	ctl $SW fabric link add sw:1 dev fv_sc peer-mac "$(netdev_mac $CN fv_c)"
	poll 10 op_read 0 8 >/dev/null
}

# rg_key_refused ADDR: the rogue's read of ADDR without mn's key fails for the key
rg_key_refused() {
	local dev out

	dev=/dev/edm$("$EDMCTL" -n $RG -j fabric show rg | jq -er '.[0].minor')
	out=$(ip netns exec $RG "$EDMOP" "$dev" read 2 "$1" 16 2>&1) && return 1
	[[ $out == *"Key was rejected"* ]]
}

# rg_reads ADDR HEX: the rogue's read of ADDR, with mn's key, returns HEX
rg_reads() {
	local dev

	dev=/dev/edm$("$EDMCTL" -n $RG -j fabric show rg | jq -er '.[0].minor')
	[ "$(ip netns exec $RG "$EDMOP" -k "$KEY" -j "$dev" read 2 "$1" $((${#2} / 2)) 2>/dev/null |
	     jq -r '.data')" = "$2" ]
}

# The rogue listens to everything (broadcast) while cn works: once the
# bridge has learnt both ends, not one EDM frame reaches it.
rogue_blind() {
	no_bridge_skip
	local r0 i data

	rg_link broadcast
	op_read 0 8 >/dev/null		# the bridge (re)learns both ends
	r0=$(link_stat $RG rg '.rx_bursts + .rx_foreign')
	for i in 1 2 3 4 5; do
		data=$(rand_hex 64)
		op_write $((i * 4096)) "$data"
		[ "$(op_read $((i * 4096)) 64)" = "$data" ]
	done
	[ "$(link_stat $RG rg '.rx_bursts + .rx_foreign')" -eq "$r0" ] || { link_stat $RG rg .; return 1; }
}

# The rogue floods the switch's port with replays for a few seconds while
# cn writes and reads back: cn loses no op, the switch's port refuses
# every flood frame that reached it and decodes cn's without a gap.
rogue_flood() {
	no_bridge_skip
	local f0 s0 i data n

	[ -s /tmp/edmf_frame ] || capture_frame	# rogue_replay took one already
	snapshot
	f0=$(link_stat $SW sw .rx_foreign) s0=$(link_stat $SW sw .seq_gaps)
	ip netns exec $RG "$PY" "$FORGE" send fv_g /tmp/edmf_frame "$(netdev_mac $RG fv_g)" \
		"$(netdev_mac $SW fv_sc)" 0 seconds="$(scaled 3)" >/tmp/edmf_flood_n &
	for i in $(seq 8); do
		data=$(rand_hex 256)
		op_write $((i * 8192)) "$data"
		[ "$(op_read $((i * 8192)) 256)" = "$data" ]
	done
	wait $!
	n=$(cat /tmp/edmf_flood_n)
	note "the rogue sent $n frames; the switch's port refused $(($(link_stat $SW sw .rx_foreign) - f0))"
	[ "$n" -gt 0 ]
	grew $SW sw rx_foreign "$f0" -ge 1
	grew $SW sw rx_foreign "$f0" -le "$n"
	grew $SW sw seq_gaps "$s0" -eq 0
	want $CN cn "errors -eq 0" "timeouts -eq 0" "writes -eq 8" "reads -eq 8"
	want $MN mn "served_errors -eq 0"
}

# mon_has NETNS JQ-FILTER: an event line of the netns' monitor matches
mon_has() {
	jq -e "select($2)" "/tmp/edmf_mon_$1" 2>/dev/null | grep -q .
}

# 64 spoiled sync headers received by cn's link end: past the threshold
# (16 in a window) cn disables it, and the monitors started before tell.
# Reads from cn make mn send blocks to it. "link set" with nothing else
# brings the end back up, and ops work again.
corrupt() {
	local deadline=$((SECONDS + 60)) k=0 ns ev

	for ns in $CN $SW; do
		"$EDMCTL" -n $ns -j monitor >/tmp/edmf_mon_$ns &
		echo $! >>/tmp/edmf_mon_pids
	done
	# a monitor is listening once it printed an event: a probe host's,
	# made and deleted again until both saw one
	until mon_has $CN '.name // "" | startswith("probe")' &&
	      mon_has $SW '.name // "" | startswith("probe")'; do
		k=$((k + 1))
		[ $SECONDS -lt $deadline ] || { echo "the monitors never saw an event"; return 1; }
		for ns in $CN $SW; do
			"$EDMCTL" -n $ns fabric add host probe$k addr 9 >/dev/null
			"$EDMCTL" -n $ns fabric del probe$k
		done
		sleep 0.1
	done
	ctl $CN fabric link set cn corrupt 64
	deadline=$((SECONDS + 60))
	until mon_has $CN '.event == "down"'; do
		[ $SECONDS -lt $deadline ] || { echo "no link-down event"; cat /tmp/edmf_mon_*; return 1; }
		cn_op "$DEV" read 2 0 64 >/dev/null 2>&1 || :
	done
	cat /tmp/edmf_mon_$CN >&2
	ev=$(jq -c 'select(.event == "down")' /tmp/edmf_mon_$CN)
	jq -se 'length == 1 and .[0].object == "fabric-link" and .[0].node == "cn"
		and .[0].state == "down" and (.[0].reason | length > 0)' <<<"$ev"
	# the switch's end saw nothing wrong
	if mon_has $SW '.event == "down"'; then
		echo "the switch's end went down too"
		return 1
	fi
	"$EDMCTL" -n $CN -s -j fabric link show cn | jq -e '.[0] | .state == "down"
		and .stats.sherr >= 16 and .stats.down_events == 1'
	"$EDMCTL" -n $SW -s -j fabric link show sw | jq -e 'all(.state == "up" and .stats.sherr == 0)'
	# back up: a read returns what is there
	ctl $CN fabric link set cn
	"$EDMCTL" -n $CN -j fabric link show cn | jq -e '.[0].state == "up"'
	poll 10 cn_op "$DEV" read 2 0 64 >/dev/null
	kill_monitors
}

# The memory host goes: cn's next read ends in a timeout error within
# seconds (the host's timeout, plus edmop's start under TCG), never a hang.
memory_gone() {
	local n0 t0 ms err

	ctl $MN fabric del mn
	"$EDMCTL" -n $MN -j fabric show | jq -e 'length == 0'
	n0=$(node_stat $CN cn timeouts)
	t0=${EPOCHREALTIME/./}
	if err=$(timeout 20 ip netns exec $CN "$EDMOP" -k "$KEY" "$DEV" read 2 0 64 2>&1); then
		echo "the read succeeded: $err"
		return 1
	fi
	ms=$(((${EPOCHREALTIME/./} - t0) / 1000))
	note "read from a deleted memory host: \"$err\" after $ms ms"
	grep -q 'timed out' <<<"$err"
	[ $ms -lt 10000 ]
	[ "$(node_stat $CN cn timeouts)" -eq $((n0 + 1)) ]
}

run_case topology "three netns: hosts and switch built with edmctl, bound to veths"
# the other cases need the fabric
[ -s /tmp/edmf_dev ] || { tap_done; exit 1; }
DEV=$(cat /tmp/edmf_dev) KEY=$(cat /tmp/edmf_key)
run_case write_read "cn writes chosen bytes to mn and reads them back"
run_case cas "cn's CAS on mn swaps only when it expects the word's value"
run_case counters "host, switch and link counters count the ops across the veths"
run_case host_netdev "the hosts' netdevs carry a ping; mn's MAC changes while up, cn follows"
run_case out_of_range "ops past mn's region fail with ERANGE"
run_case rogue_ops "a rogue host on the bridge can neither read nor write mn's region"
run_case rogue_replay "a replayed frame with the expected sequence number is refused"
run_case rogue_blind "the rogue host receives none of cn's memory traffic"
run_case rogue_flood "cn loses no op while the rogue floods the switch's port"
run_case corrupt "corrupted sync headers disable the link; monitor reports it"
run_case memory_gone "memory host deleted: cn's read fails with a timeout"
tap_done
