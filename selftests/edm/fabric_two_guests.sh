#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# EDM over Ethernet between two machines (issue 4, item 9): runs in each
# guest of `selftests/vm/run --guests 2`, joined by their QEMU socket link.
#
#   guest 0: compute host cn (addr 1), bound to its NIC toward guest 1
#   guest 1: switch sw, port 1 bound to its NIC toward guest 0, ports 2, 3
#            and 4 on emulated links to memory hosts mn (addr 2) and mn2
#            (addr 3), 4 MiB regions, and compute host c2 (addr 4)
#
# Guest 0 prints the TAP: once mn answers, writes of bytes it chose read
# back unchanged and a CAS swaps only when it expects the word's value,
# with cn's counters matching. Then a posted write to a sentinel word
# tells guest 1 it is done with those. Guest 1 waits for that write,
# checks that its switch and memory host served exactly guest 0's ops with
# nothing lost on the NIC, and lets guest 0 go on by a word c2 writes in
# mn. Then both guests run fabric_stress's checked workload at once, 2
# compute hosts x 2 memory hosts (issue 17): cn from across the link, c2
# beside the switch, each on its own part of both regions. Guest 0 ends
# with a second sentinel write; guest 1 waits for it and checks again that
# nothing was lost. Guest 1 reports only through its exit status and "#"
# lines.
source "$(dirname "$0")/lib.sh"

EDMOP=$EDM_TOP/tools/edmop/edmop
me=$EDM_VM_GUEST
peer=$((1 - me))
nic_var=EDM_VM_NIC_TO_$peer
nic=${!nic_var}
peer_mac_var=EDM_VM_PEER_MAC_$peer
peer_mac=${!peer_mac_var}
STRESS=$EDM_TOP/selftests/edm/fabric_stress
REGION=$((1 << 20))		# the first MiB: the cases before the workload
MN_REGION=$((4 << 20))
SENTINEL=$((REGION - 8))
GO=$((REGION - 16))		# guest 1 lets guest 0's workload start
SENTINEL2=$((REGION - 24))	# guest 0's workload ended
GO_VALUE=$((0x60))
SENTINEL2_OK=$((0xed0ed1))
SENTINEL2_FAILED=$((0xed0edf))
# each guest's workload works from its own offset of mn and mn2
STRESS_SECONDS=$(scaled 20)
STRESS_BASE0=$REGION
STRESS_BASE1=$((REGION + (MN_REGION - REGION) / 2))
# guest 0's writes (their lengths) and RMWs, the sentinel included (see
# write_read, cas, finish)
WRITE_LENS=(64 7 16 3000 8 8)
WRITES=${#WRITE_LENS[@]}
RMWS=3

for t in jq "$EDMOP" "$STRESS"; do
	command -v "$t" >/dev/null || { echo "1..0 # SKIP $t is not installed"; exit $KSFT_SKIP; }
done

cleanup() {
	if edm_loaded; then
		"$EDMCTL" fabric del cn 2>/dev/null
		"$EDMCTL" fabric del mn 2>/dev/null
		"$EDMCTL" fabric del mn2 2>/dev/null
		"$EDMCTL" fabric del c2 2>/dev/null
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
	x "$EDMCTL" fabric add host cn addr 1 timeout 20000
	x "$EDMCTL" fabric link add cn dev "$nic" peer-mac "$peer_mac"
	"$EDMCTL" -j fabric link show cn | jq -e --argjson i "$(cat "/sys/class/net/$nic/ifindex")" \
		--arg m "$peer_mac" '.[0].ifindex == $i and .[0].peer_mac == $m and .[0].state == "up"'
	DEV=/dev/edm$("$EDMCTL" -j fabric show cn | jq -er '.[0].minor')
	poll 5 test -c "$DEV"
}

switch_memory_up() {
	x insmod "$EDM_KO"
	x ip link set "$nic" up
	x "$EDMCTL" fabric add switch sw ports 5
	x "$EDMCTL" fabric add host mn addr 2 region $MN_REGION
	x "$EDMCTL" fabric add host mn2 addr 3 region $MN_REGION
	x "$EDMCTL" fabric add host c2 addr 4 timeout 20000
	x "$EDMCTL" fabric link add sw:1 dev "$nic" peer-mac "$peer_mac"
	x "$EDMCTL" fabric link add sw:2 peer mn
	x "$EDMCTL" fabric link add sw:3 peer mn2
	x "$EDMCTL" fabric link add sw:4 peer c2
	DEV2=/dev/edm$("$EDMCTL" -j fabric show c2 | jq -er '.[0].minor')
	poll 5 test -c "$DEV2"
}

# Guest 1 boots at its own pace: read until mn answers, bounded. Each
# unanswered read ends with cn's timeout (20 s: the workload's bound), so
# first wait for guest 1 to say its switch and memory hosts are up: a file
# in its results directory, which the shared tree shows us when the
# results are under it (as make check's are; elsewhere the reads find out).
mn_answers() {
	local deadline=$((SECONDS + 300))

	poll 120 test -e "${EDM_VM_OUT%/*}/guest1/fabric-up" 2>/dev/null || true
	until timeout 30 "$EDMOP" "$DEV" read 2 0 8 >/dev/null 2>&1; do
		[ $SECONDS -lt $deadline ] || { echo "mn never answered"; return 1; }
		sleep 1
	done
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
	[ "$(link_stat cn seq_gaps)" -eq 0 ] && [ "$(link_stat cn sherr)" -eq 0 ] &&
		[ "$(link_stat cn rx_foreign)" -eq 0 ]
}

# The last write (acknowledged): guest 1 learns from it that guest 0 is done.
finish() {
	op_write $SENTINEL "$(le64 $((0xed0ed0)))"
	[ "$(delta writes)" -eq "$WRITES" ]
}

# stress_run DEV BASE: the workload from one compute host; its last line
# must count no failure
stress_run() {
	local out

	out=$("$STRESS" run --seconds "$STRESS_SECONDS" --threads 4 --dev "$1" --mem 2,3 \
		--region $MN_REGION --base "$2" 2>&1) || { echo "$out"; return 1; }
	grep -Eq '^fabric_stress: ops [1-9][0-9]* verified [1-9][0-9]* mismatches 0 timeouts 0 errors 0$' \
		<<<"$(tail -n 1 <<<"$out")" || { echo "$out"; return 1; }
	tail -n 1 <<<"$out"
}

# Guest 0: once guest 1 says so (c2's word in mn), the workload to mn and
# mn2, beside guest 1's own; then the second sentinel.
go_arrived() {
	[ "$(op_read $GO 8 2>/dev/null)" = "$(le64 $GO_VALUE)" ]
}

# Guest 0 writes the second sentinel whatever its workload's outcome, so
# guest 1 never waits out its poll for a guest that already failed: the
# value says which.
stress() {
	local out rc=0

	poll 300 go_arrived
	out=$(stress_run "$DEV" $STRESS_BASE0) || rc=1
	if [ $rc = 0 ]; then
		note "g0: $out"
		op_write $SENTINEL2 "$(le64 $SENTINEL2_OK)"
	else
		echo "$out"
		op_write $SENTINEL2 "$(le64 $SENTINEL2_FAILED)"
		"$EDMCTL" -j fabric stats cn
		return 1
	fi
	[ "$(link_stat cn seq_gaps)" -eq 0 ] && [ "$(link_stat cn sherr)" -eq 0 ]
	# (the reads before guest 1 was up timed out, by design)
	[ "$(delta timeouts)" -eq 0 ]
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
	[ "$(node_stat mn served_write_chunks)" -ge "$CHUNKS" ]
}

served() {
	CHUNKS=$(write_chunks)
	poll 400 sentinel_arrived
	[ "$(node_stat mn served_write_chunks)" -eq "$CHUNKS" ]
	[ "$(node_stat mn served_writes)" -eq "$WRITES" ]
	[ "$(node_stat mn served_rmws)" -eq $RMWS ]
	[ "$(node_stat mn served_errors)" -eq 0 ]
	[ "$(node_stat sw grants)" -ge "$CHUNKS" ]
	[ "$(node_stat sw fwd_msgs)" -gt 0 ]
	[ "$(node_stat sw drops)" -eq 0 ]
	[ "$(link_stat sw seq_gaps)" -eq 0 ] && [ "$(link_stat sw sherr)" -eq 0 ]
	[ "$(link_stat sw rx_foreign)" -eq 0 ] && [ "$(link_stat sw rx_blocks)" -gt 0 ]
}

sentinel2() {
	"$EDMOP" -j "$DEV2" read 2 $SENTINEL2 8 | jq -er '.data'
}

sentinel2_arrived() {
	local v

	v=$(sentinel2) || return 1
	[ "$v" = "$(le64 $SENTINEL2_OK)" ] || [ "$v" = "$(le64 $SENTINEL2_FAILED)" ]
}

# Guest 1's workload from c2, while guest 0's runs; then it waits for guest
# 0's end and checks that the switch lost nothing on the way.
stress_g1() {
	"$EDMOP" "$DEV2" write 2 $GO "hex:$(le64 $GO_VALUE)"
	stress_run "$DEV2" $STRESS_BASE1
	poll 600 sentinel2_arrived
	[ "$(sentinel2)" = "$(le64 $SENTINEL2_OK)" ] || { echo "guest 0's workload failed"; return 1; }
	[ "$(node_stat sw drops)" -eq 0 ]
	[ "$(link_stat sw seq_gaps)" -eq 0 ] && [ "$(link_stat sw sherr)" -eq 0 ]
	[ "$(node_stat c2 timeouts)" -eq 0 ]
}

if [ "$me" = 0 ]; then
	run_case compute_up "guest 0: compute host bound to the NIC toward guest 1"
	DEV=/dev/edm$("$EDMCTL" -j fabric show cn 2>/dev/null | jq -r '.[0].minor // empty')
	run_case mn_answers "guest 0 reaches guest 1's memory host through its switch"
	run_case write_read "guest 0 writes chosen bytes to guest 1 and reads them back"
	run_case cas "guest 0's CAS on guest 1's memory swaps only when it expects the value"
	run_case counters "guest 0: the host counters count exactly those ops"
	run_case finish "guest 0: its last write tells guest 1 it is done"
	run_case stress "2 x 2 checked random batches, one compute host in each guest"
	tap_done
else
	# each step a command of its own: set -e does not reach into a function
	# called from an && list, so "a && b" would check only b's last command
	out=$( (set -e; switch_memory_up; { : >"$EDM_VM_OUT/fabric-up"; } 2>/dev/null || true
		served) 2>&1) || { printf '# g1: %s\n' "$out"; exit 1; }
	echo "# g1: mn served guest 0's $(node_stat mn served_writes) writes" \
		"($(node_stat mn served_write_chunks) chunks) and $RMWS RMWs"
	DEV2=/dev/edm$("$EDMCTL" -j fabric show c2 | jq -er '.[0].minor')
	out=$( (set -e; stress_g1) 2>&1) || { printf '# g1: %s\n' "$out"; exit 1; }
	printf '# g1: %s\n' "$out"
fi
