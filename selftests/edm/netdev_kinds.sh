#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every kind of edm netdev, driven only with the tools a netdev user has
# (ip with our plug-ins, ethtool) and what Documentation/ says of them: each
# kind is made with `ip link add`, shown with `ip -d link` and `ip -s link`,
# queried with every ethtool query the docs name (-i, -S, -l, -g, -k),
# moved into a namespace and back, deleted with `ip link del`, and made
# again in a namespace whose death deletes it; the module's object counts
# go back to zero. The debug lane runs it under kmemleak.
# Kinds: ndimm (a pair), rackcn (in a rack on a CXL pool), fhost (a fabric
# host), shpool (a shared pool's member; needs the VM's ivshmem device,
# EDM_VM_SHMEM). Usage: netdev_kinds.sh [CASE...] (default: all).
source "$(dirname "$0")/lib.sh"

NS=edm_kinds
TMPD=$(mktemp -d)
trap 'rm -rf "$TMPD"' EXIT

for t in jq ethtool; do
	command -v "$t" >/dev/null || { echo "1..0 # SKIP $t is not installed"; exit $KSFT_SKIP; }
done
edm_loaded || { echo "1..0 # SKIP edm.ko is not loaded"; exit $KSFT_SKIP; }

# The cases' EXIT trap: the namespace, every edm kind's netdev left here,
# the rack and the pool. Safe to run twice.
cleanup() {
	local d

	set +e
	ip netns del $NS 2>/dev/null
	for d in $(ip -j -d link show | jq -r '.[] | select(.linkinfo.info_kind // "" |
			test("^(ndimm|rackcn|fhost|shpool)$")) | .ifname'); do
		ip link del "$d" 2>/dev/null
	done
	"$EDMCTL" rack del kr 2>/dev/null
	"$EDMCTL" pool del kp 2>/dev/null
	return 0
}

# inns NS CMD...: CMD in netns NS ("" for this one).
inns() {
	local ns=$1

	shift
	${ns:+ip netns exec "$ns"} "$@"
}

# shows KIND DEV NS: `ip -d link` names the kind and shows its attributes;
# `ip -s link` has the netdev's 64-bit counters.
shows() {
	x ipl ${3:+-n "$3"} -j -d link show "$2" | jq -e --arg k "$1" '.[0].linkinfo |
		.info_kind == $k and (.info_data | type == "object" and length > 0)' >/dev/null
	x ip ${3:+-n "$3"} -j -s link show "$2" | jq -e '.[0].stats64 |
		(.rx.packets | type == "number") and (.tx.bytes | type == "number")' >/dev/null
}

# ethtool_all DRIVER DEV NS: -i names the driver (edm-*), the version and
# the emulated device (bus-info); -S gives counters, each a number; -l has
# at least one combined channel now and at most; -g a TX ring or queue of
# at least one entry, and an RX ring or none (a fabric host has none); -k
# the offloads, the checksum among them.
ethtool_all() {
	local i s l g k

	i=$(inns "$3" ethtool -i "$2")
	grep -qx "driver: $1" <<<"$i" && grep -q "^version: [0-9]" <<<"$i" &&
		grep -q "^bus-info: ." <<<"$i" || { echo "ethtool -i: $i"; return 1; }
	s=$(inns "$3" ethtool -S "$2")
	[ "$(sed 1d <<<"$s" | grep -cvE '^ +[a-z0-9_]+: [0-9]+$')" = 0 ] &&
		[ "$(sed 1d <<<"$s" | wc -l)" -ge 4 ] || { echo "ethtool -S: $s"; return 1; }
	l=$(inns "$3" ethtool -l "$2")
	[ "$(grep -cE '^Combined:[[:space:]]+[1-9]' <<<"$l")" = 2 ] || { echo "ethtool -l: $l"; return 1; }
	g=$(inns "$3" ethtool -g "$2")
	[ "$(grep -cE '^TX:[[:space:]]+[1-9]' <<<"$g")" = 2 ] &&
		[ "$(grep -cE '^RX:[[:space:]]+([1-9]|n/a)' <<<"$g")" = 2 ] || { echo "ethtool -g: $g"; return 1; }
	k=$(inns "$3" ethtool -k "$2")
	grep -qE '^tx-checksumming: (on|off)' <<<"$k" || { echo "ethtool -k: $k"; return 1; }
}

# roundtrip KIND DRIVER DEV: DEV (made by the caller with ip link add, in
# this namespace) shows and answers ethtool here, in $NS after a move, and
# here again after a move back.
roundtrip() {
	shows "$1" "$3" ""
	ethtool_all "$2" "$3" ""
	x ip link set "$3" netns $NS
	[ ! -e "/sys/class/net/$3" ]
	shows "$1" "$3" $NS
	ethtool_all "$2" "$3" $NS
	x ip -n $NS link set "$3" up
	x ip -n $NS link set "$3" netns 1
	shows "$1" "$3" ""
	ethtool_all "$2" "$3" ""
}

# gone_with_ns KIND ADD-ARGS...: made in $NS with ip link add, the device
# goes with the namespace.
gone_with_ns() {
	local kind=$1

	shift
	x ip netns add $NS
	x ipl -n $NS link add "$@"
	x ip -n $NS -j -d link show | jq -e --arg k "$kind" \
		'any(.[]; .linkinfo.info_kind == $k)' >/dev/null
	x ip netns del $NS
	poll 30 edm_no_objects || { cat "$EDM_DEBUGFS/objects"; return 1; }
}

case_ndimm() {
	trap cleanup EXIT
	x ip netns add $NS
	x ipl link add ka type ndimm peer kb size 8M
	roundtrip ndimm edm-ndimm ka
	x ip link set kb up
	x ip link set ka up
	x ip link del ka		# its peer goes too
	[ ! -e /sys/class/net/kb ]
	x ip netns del $NS
	edm_no_objects
	gone_with_ns ndimm kc type ndimm peer kd size 8M
}

case_rackcn() {
	trap cleanup EXIT
	x "$EDMCTL" pool create kp size 16M >/dev/null
	x "$EDMCTL" rack create kr pool kp >/dev/null
	x ip netns add $NS
	x ipl link add kcn type rackcn rack kr dcache-sets 8 dcache-ways 2
	roundtrip rackcn edm-rack kcn
	x ip link del kcn
	x "$EDMCTL" -j rack cn-show | jq -e 'length == 0' >/dev/null
	x ip netns del $NS
	x "$EDMCTL" rack del kr
	x "$EDMCTL" pool del kp
	edm_no_objects
	# a rack of the namespace's own, and a CN in it; the namespace takes both
	x ip netns add $NS
	x "$EDMCTL" -n $NS pool create kp size 16M >/dev/null
	x "$EDMCTL" -n $NS rack create kr pool kp >/dev/null
	x ipl -n $NS link add kcn type rackcn
	x ip netns del $NS
	poll 30 edm_no_objects || { cat "$EDM_DEBUGFS/objects"; return 1; }
}

case_fhost() {
	trap cleanup EXIT
	x ip netns add $NS
	x ipl link add kh type fhost addr 7 region 64k timeout 200
	roundtrip fhost edm-fabric kh
	x ip link del kh
	x "$EDMCTL" -j fabric show | jq -e 'length == 0' >/dev/null
	x ip netns del $NS
	edm_no_objects
	gone_with_ns fhost kh2 type fhost addr 8 ports 2
}

case_shpool() {
	[ -n "$EDM_VM_SHMEM" ] || { echo "no ivshmem device: the VM needs --shmem"; return 1; }
	trap cleanup EXIT
	x ip netns add $NS
	x ipl link add ksp type shpool dev "$EDM_VM_SHMEM" name kpool hostname kinds
	roundtrip shpool edm-shpool ksp
	x ip link del ksp
	x "$EDMCTL" -j shpool show | jq -e 'length == 0' >/dev/null
	x ip netns del $NS
	edm_no_objects
	gone_with_ns shpool ksq type shpool dev "$EDM_VM_SHMEM"
}

cases=(
	case_ndimm "kinds: an ndimm pair by ip link add; ip -d/-s, ethtool; netns and back; del"
	case_rackcn "kinds: a rack CN by ip link add; ip -d/-s, ethtool; netns and back; del"
	case_fhost "kinds: a fabric host by ip link add; ip -d/-s, ethtool; netns and back; del"
	case_shpool "kinds: a shared pool member by ip link add; ip -d/-s, ethtool; netns and back; del"
)
for ((i = 0; i < ${#cases[@]}; i += 2)); do
	if [ $# -eq 0 ] || [[ " $* " == *" ${cases[i]} "* ]]; then
		run_case "${cases[i]}" "${cases[i + 1]}"
	fi
done
tap_done
