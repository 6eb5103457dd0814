#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# EDM over Ethernet between two machines (issue 4, item 9): runs in each
# guest of `selftests/vm/run --guests 2`, joined by their QEMU socket link.
#
#   guest 0: compute host cn (addr 1), bound to its NIC toward guest 1
#   guest 1: switch sw, port 1 bound to its NIC toward guest 0, port 2 on
#            an emulated link to memory host mn (addr 2, 1 MiB region)
#
# Guest 0 prints the TAP: once mn answers, writes of bytes it chose read
# back unchanged and a CAS swaps only when it expects the word's value,
# with cn's counters matching. Its last op is a posted write to a sentinel
# word. Guest 1 waits for that write, checks that its switch and memory
# host served exactly guest 0's ops with nothing lost on the NIC, and
# reports only through its exit status and "#" lines.
source "$(dirname "$0")/lib.sh"

EDMOP=$EDM_TOP/tools/edmop/edmop
me=$EDM_VM_GUEST
peer=$((1 - me))
nic_var=EDM_VM_NIC_TO_$peer
nic=${!nic_var}
REGION=$((1 << 20))
SENTINEL=$((REGION - 8))
# guest 0's writes (their lengths) and RMWs, the sentinel included (see
# write_read, cas, finish)
WRITE_LENS=(64 7 16 3000 8 8)
WRITES=${#WRITE_LENS[@]}
RMWS=3

for t in jq "$EDMOP"; do
	command -v "$t" >/dev/null || { echo "1..0 # SKIP $t is not installed"; exit $KSFT_SKIP; }
done

cleanup() {
	if edm_loaded; then
		"$EDMCTL" fabric del cn 2>/dev/null
		"$EDMCTL" fabric del mn 2>/dev/null
		"$EDMCTL" fabric del sw 2>/dev/null
		rmmod edm
	fi
}
trap cleanup EXIT

# node_stat NODE KEY: a node counter; link_stat NODE KEY: its links' counter, summed
node_stat() {
	"$EDMCTL" -j fabric stats "$1" | jq -er --arg n "$1" '.[] | select(.name == $n) | .stats.'"$2"
}

link_stat() {
	"$EDMCTL" -s -j fabric link show "$1" | jq -er --arg n "$1" \
		"[.[] | select(.node == \$n) | .stats.$2] | add"
}

# guest 0's edmop calls, as in fabric_netns.sh
op_write() {
	x "$EDMOP" "$DEV" write 2 "$1" "hex:$2"
}

op_read() {
	x "$EDMOP" -j "$DEV" read 2 "$1" "$2" | jq -er '.data'
}

op_cas() {
	x "$EDMOP" -j "$DEV" cas 2 "$1" "$2" "$3" | jq -er '.old'
}

le64() {
	printf '%016x' "$1" | sed 's/../& /g' | awk '{ for (i = NF; i; i--) printf "%s", $i }'
}

rand_hex() {
	od -An -tx1 -N "$1" /dev/urandom | tr -d ' \n'
}

compute_up() {
	x insmod "$EDM_KO"
	x ip link set "$nic" up
	x "$EDMCTL" fabric add host cn addr 1
	x "$EDMCTL" fabric link add cn dev "$nic"
	"$EDMCTL" -j fabric link show cn | jq -e --argjson i "$(cat "/sys/class/net/$nic/ifindex")" \
		'.[0].ifindex == $i and .[0].state == "up"'
	DEV=/dev/edm$("$EDMCTL" -j fabric show cn | jq -er '.[0].minor')
	poll 5 test -c "$DEV"
}

switch_memory_up() {
	x insmod "$EDM_KO"
	x ip link set "$nic" up
	x "$EDMCTL" fabric add switch sw ports 4
	x "$EDMCTL" fabric add host mn addr 2 region 1m
	x "$EDMCTL" fabric link add sw:1 dev "$nic"
	x "$EDMCTL" fabric link add sw:2 peer mn
}

# Guest 1 boots at its own pace: read until mn answers, bounded. Each
# unanswered read ends with cn's timeout.
mn_answers() {
	poll 150 "$EDMOP" "$DEV" read 2 0 8 >/dev/null 2>&1
	"$EDMCTL" -j fabric stats cn >/tmp/fg_snap
}

# delta KEY: how much cn's counter grew since mn_answers
delta() {
	echo $(($(node_stat cn "$1") - $(jq -er '.[] | select(.name == "cn") | .stats.'"$1" /tmp/fg_snap)))
}

write_read() {
	local addrs=(0 64 $((REGION - 4096)) 65539) lens=(64 7 16 3000) i got
	local -a data

	for i in "${!addrs[@]}"; do
		data[i]=$(rand_hex "${lens[i]}")
		op_write "${addrs[i]}" "${data[i]}"
	done
	for i in "${!addrs[@]}"; do
		got=$(op_read "${addrs[i]}" "${lens[i]}")
		[ "$got" = "${data[i]}" ] ||
			{ echo "at ${addrs[i]}: wrote ${data[i]}, read $got"; return 1; }
	done
	got=$(op_read 60 8)
	[ "$got" = "${data[0]:120:8}${data[1]:0:8}" ]
}

cas() {
	local a=$((REGION / 2)) v1 v2 v3

	v1=$((RANDOM * 65536 + RANDOM + 1)) v2=$((v1 + RANDOM + 1)) v3=$((v2 + 7))
	op_write $a "$(le64 "$v1")"
	[ $(($(op_cas $a "$v2" "$v3"))) -eq "$v1" ]
	[ $(($(op_cas $a "$v1" "$v2"))) -eq "$v1" ]
	[ $(($(op_cas $a "$v1" "$v3"))) -eq "$v2" ]
	[ "$(op_read $a 8)" = "$(le64 "$v2")" ]
}

# cn's side: 6 reads, 5 writes, 3 RMWs since mn answered, no error
counters() {
	if ! [ "$(delta reads)" -eq 6 ] || ! [ "$(delta writes)" -eq $((WRITES - 1)) ] ||
	   ! [ "$(delta rmws)" -eq "$RMWS" ] || ! [ "$(delta errors)" -eq 0 ]; then
		"$EDMCTL" -j fabric stats cn
		return 1
	fi
	[ "$(link_stat cn seq_gaps)" -eq 0 ] && [ "$(link_stat cn sherr)" -eq 0 ]
}

# The last write, posted: guest 1 learns from it that guest 0 is done.
finish() {
	op_write $SENTINEL "$(le64 $((0xed0ed0)))"
	[ "$(delta writes)" -eq "$WRITES" ]
}

# Guest 1's side: once guest 0's sentinel arrived, mn served exactly
# guest 0's writes and RMWs, the switch granted and forwarded them, and
# nothing was lost or damaged on the NIC.
# The chunks mn serves for guest 0's writes: one per grant of the switch.
write_chunks() {
	local c n=0 len

	c=$("$EDMCTL" -j fabric show sw | jq -er '.[0].chunk')
	for len in "${WRITE_LENS[@]}"; do
		n=$((n + (len + c - 1) / c))
	done
	echo $n
}

sentinel_arrived() {
	[ "$(node_stat mn served_writes)" -ge "$CHUNKS" ]
}

served() {
	CHUNKS=$(write_chunks)
	poll 400 sentinel_arrived
	[ "$(node_stat mn served_writes)" -eq "$CHUNKS" ]
	[ "$(node_stat mn served_rmws)" -eq $RMWS ]
	[ "$(node_stat mn served_errors)" -eq 0 ]
	[ "$(node_stat sw grants)" -ge "$CHUNKS" ]
	[ "$(node_stat sw fwd_msgs)" -gt 0 ]
	[ "$(node_stat sw drops)" -eq 0 ]
	[ "$(link_stat sw seq_gaps)" -eq 0 ] && [ "$(link_stat sw sherr)" -eq 0 ]
	[ "$(link_stat sw rx_blocks)" -gt 0 ]
}

if [ "$me" = 0 ]; then
	run_case compute_up "guest 0: compute host bound to the NIC toward guest 1"
	DEV=/dev/edm$("$EDMCTL" -j fabric show cn 2>/dev/null | jq -r '.[0].minor // empty')
	run_case mn_answers "guest 0 reaches guest 1's memory host through its switch"
	run_case write_read "guest 0 writes chosen bytes to guest 1 and reads them back"
	run_case cas "guest 0's CAS on guest 1's memory swaps only when it expects the value"
	run_case counters "guest 0: the host counters count exactly those ops"
	run_case finish "guest 0: a last posted write tells guest 1 it is done"
	tap_done
else
	out=$( (set -e; switch_memory_up && served) 2>&1) || { printf '# g1: %s\n' "$out"; exit 1; }
	echo "# g1: mn served guest 0's $(node_stat mn served_writes) write chunks and $RMWS RMWs"
fi
