#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The guest half of edm.sh: measurements only, the host does the sums.
# One veth pair, veth0 (10.89.0.1) and veth1 (10.89.0.2), both ends in the
# initial network namespace, carries first Soft-RoCE and then EDM over
# Ethernet; the systems run in rounds whose order flips every other round.
#
#   rxe  In 6.1, rxe only works in the initial netns (its UDP socket and
#        route lookups live there), hence both ends there, one rxe device on
#        each. For RoCE between two addresses of one host to leave through
#        the wire, policy routing: rp_filter 0 and accept_local 1 on both
#        ends, "iif vethX lookup local" rules (what arrives is delivered),
#        per-veth "oif" tables routing to the peer's address (rxe looks its
#        route up with the oif of its netdev), and the local table's rule
#        moved from priority 0 to after those. perftest's ib_write_lat and
#        ib_read_lat (EDB_SIZE bytes, EDB_LAT_ITERS iterations; typical and
#        99% percentile) and ib_read_bw (EDB_BW_ITERS iterations, message
#        rate, EDB_BW_DEPTH reads in flight), server on CPU 0, client on CPU 1.
#   edm  A switch with 4 ports and a memory host "mn" (addr 2) on an
#        emulated link to port 2; a compute host "cn" (addr 1) bound to
#        veth0 and switch port 1 bound to veth1, so every request and
#        response crosses the veth pair as EDM-over-Ethernet frames. edmop
#        bench runs EDB_LAT_ITERS reads and writes of EDB_SIZE bytes from
#        cn's /dev/edmN, one at a time (p50/p99 of the latency each
#        completion carries, ops/s, modeled latency; JSON), then
#        EDB_BW_ITERS reads with EDB_BW_DEPTH in flight for the ops/s,
#        then EDB_HOPS (500; 0: none) reads one at a time with the edm_fab
#        and net tracepoints on, for the per-hop table. With EDB_KEYED=1,
#        mn's region is keyed and every op presents its key (edmop -k).
#
# Files in $EDB_OUT, per run TAG = <system>.r<round>: TAG.<test>.log (the
# tools' output; edmop's errors in TAG.<test>.err), TAG.stats.json and
# TAG.links.json (the fabric's counters after the EDM runs), TAG.hops.trace
# (the traced reads, ftrace's text), TAG.error when
# the system could not be set up, and rxe.describe / edm.describe
# (devices, GIDs, rules, fabric). In round 1 each system reads
# EDB_PROF_ITERS (150000; 0: none) times one at a time again, with a window
# of perf inside (profile-guest.sh), into prof.<system>.perf.txt.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
edmctl=$top/tools/edmctl/edmctl
edmop=$top/tools/edmop/edmop
ko=$top/build/$(uname -r)/edm.ko
size=${EDB_SIZE:-64}
lat_iters=${EDB_LAT_ITERS:-10000}
bw_iters=${EDB_BW_ITERS:-20000}
# reads in flight for the ops/s figure: ib_read_bw's default (128) for both
bw_depth=${EDB_BW_DEPTH:-128}
rounds=${EDB_ROUNDS:-3}
read -ra systems <<<"${EDB_SYSTEMS:-rxe edm}"
# CPUs of the perftest server and client, and of edmop
read -r srv_cpu cli_cpu <<<"${EDB_RXE_CPUS:-0 1}"
edm_cpu=${EDB_EDM_CPU:-1}
hops=${EDB_HOPS:-500}
# reads one at a time in round 1's profiled runs (0: none)
prof_iters=${EDB_PROF_ITERS:-150000}
# EDB_KEYED=1: mn's region is keyed and edmop presents its key (the key check's cost)
keyed=
if [ "${EDB_KEYED:-0}" = 1 ]; then keyed=1; fi
kopt=()
out=${EDB_OUT:-${EDM_VM_OUT:-/tmp}/edm}
ip0=10.89.0.1 ip1=10.89.0.2
# perftest's out-of-band TCP port, a fresh one per test
port=18515

log() { echo "edm-bench: $*" >&2; }
. "$top/tools/bench/profile-guest.sh"

veth_up() {
	modprobe veth || return 1
	ip -b - <<-EOF || return 1
		link add veth0 type veth peer name veth1
		addr add $ip0/24 dev veth0
		addr add $ip1/24 dev veth1
		link set veth0 up
		link set veth1 up
	EOF
}

# The policy routing that makes RoCE between veth0 and veth1 cross the pair.
rxe_routes() {
	local d

	sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0 || return 1
	for d in veth0 veth1; do
		sysctl -qw "net.ipv4.conf.$d.rp_filter=0" "net.ipv4.conf.$d.accept_local=1" ||
			return 1
	done
	ip -b - <<-EOF || return 1
		rule add pref 100 iif veth0 lookup local
		rule add pref 101 iif veth1 lookup local
		route add $ip1/32 dev veth0 src $ip0 table 100
		route add $ip0/32 dev veth1 src $ip1 table 101
		rule add pref 110 oif veth0 lookup 100
		rule add pref 111 oif veth1 lookup 101
		rule add pref 200 lookup local
		rule del pref 0 lookup local
	EOF
}

# The GID index of rxe device $1's RoCE v2 IPv4 address.
rxe_gid() {
	local p=/sys/class/infiniband/$1/ports/1 f i

	for f in "$p"/gids/*; do
		i=${f##*/}
		case $(cat "$f" 2>/dev/null) in
		0000:0000:0000:0000:0000:ffff:*) ;;
		*) continue ;;
		esac
		[ "$(cat "$p/gid_attrs/types/$i" 2>/dev/null)" = "RoCE v2" ] || continue
		echo "$i"
		return 0
	done
	return 1
}

rxe_setup() {
	modprobe crc32_generic && modprobe rdma_rxe || return 1
	rxe_routes || return 1
	rdma link add rxe0 type rxe netdev veth0 &&
	rdma link add rxe1 type rxe netdev veth1 || return 1
	# the GIDs appear once the devices are registered
	for _ in $(seq 50); do
		gid0=$(rxe_gid rxe0) && gid1=$(rxe_gid rxe1) && break
		sleep 0.1
	done
	[ -n "${gid0:-}" ] && [ -n "${gid1:-}" ] || return 1
	{ rdma link show; ibv_devices; ip rule show; ip route show table 100
	  ip route show table 101; echo "gid index rxe0 $gid0 rxe1 $gid1"
	  grep . /sys/class/infiniband/rxe*/ports/1/gids/"$gid0"; } >"$out/rxe.describe" 2>&1
}

# perf TOOL ARGS...: the server on rxe1, the client on rxe0 toward it; the
# client's output is $tag.TOOL.log. perftest calibrates its cycle counter
# first and, when the fit is poor (TCG's TSC, a busy host: "Correlation
# coefficient r^2 < 0.9"), prints no figures ("Can't produce a report", or
# "inf" latencies): then the test runs again, three times at most.
perf() {
	local tool=$1 try rc

	shift
	for try in 1 2 3; do
		perf_once "$tool" "$@"
		rc=$?
		[ $rc -eq 0 ] && perf_ok "$out/$tag.$tool.log" && break
		log "$tag: $tool gave no figures (try $try)"
		[ $rc -ne 0 ] || rc=1
	done
	[ $rc -eq 0 ] || log "$tag: $tool failed ($rc)"
	return $rc
}

# perf_ok LOG: the line under the table's head has figures
perf_ok() {
	awk '/^ *#bytes/ { getline; if ($5 + 0 > 0 && $5 != "inf") ok = 1 } END { exit !ok }' "$1"
}

perf_once() {
	local tool=$1 srv rc

	shift
	port=$((port + 1))
	timeout 300 taskset -c "$srv_cpu" "$tool" -d rxe1 -x "$gid1" -p $port "$@" \
		>"$out/$tag.$tool.server.log" 2>&1 &
	srv=$!
	# the server listens once it has its QP; the client retries meanwhile
	for _ in $(seq 100); do
		timeout 300 taskset -c "$cli_cpu" "$tool" -d rxe0 -x "$gid0" -p $port "$@" $ip1 \
			>"$out/$tag.$tool.log" 2>&1
		rc=$?
		grep -q "Couldn't connect\|Unable to open file descriptor" \
			"$out/$tag.$tool.log" || break
		sleep 0.2
	done
	wait $srv
	return $rc
}

rxe_run() {
	perf ib_write_lat -s "$size" -n "$lat_iters"
	perf ib_read_lat -s "$size" -n "$lat_iters"
	perf ib_read_bw -s "$size" -n "$bw_iters" -t "$bw_depth" -o "$bw_depth"
}

rxe_down() {
	rdma link del rxe0 2>/dev/null
	rdma link del rxe1 2>/dev/null
	ip -force -b - <<-EOF 2>/dev/null
		rule add pref 0 lookup local
		rule del pref 200
		rule del pref 100
		rule del pref 101
		rule del pref 110
		rule del pref 111
		route flush table 100
		route flush table 101
	EOF
	return 0
}

# SYS_prof: in round 1, $prof_iters reads one at a time once more, with a
# window of perf (profile-guest.sh) in the middle: $out/prof.SYS.perf.txt
rxe_prof() {
	local tag=prof.rxe

	prof_during "$out/prof.rxe" 3 perf_once ib_read_lat -s "$size" -n "$prof_iters"
	# perf_once ran in prof_during's subshell: its port is not counted here
	port=$((port + 1))
}

edm_prof() {
	local tag=prof.edm

	prof_during "$out/prof.edm" 1 edmop_bench read "$prof_iters" 1 read
}

# The fabric of the header comment, cn's /dev/edmN in $dev.
edm_setup() {
	local minor

	[ -x "$edmop" ] || { log "no $edmop"; return 1; }
	[ -d /sys/module/edm ] || insmod "$ko" || return 1
	{ "$edmctl" fabric add switch sw ports 4 &&
	  "$edmctl" fabric add host cn addr 1 &&
	  "$edmctl" fabric add host mn addr 2 region 1m ${keyed:+keyed} &&
	  "$edmctl" fabric link add cn dev veth0 peer-mac "$(cat /sys/class/net/veth1/address)" &&
	  "$edmctl" fabric link add sw:1 dev veth1 peer-mac "$(cat /sys/class/net/veth0/address)" &&
	  "$edmctl" fabric link add sw:2 peer mn; } >/dev/null || return 1
	# a keyed mn: every op carries its key, which mn checks
	kopt=()
	if [ -n "$keyed" ]; then
		kopt=(-k "$("$edmctl" region key 2)") || return 1
	fi
	minor=$("$edmctl" -j fabric show cn | jq -er '.[0].minor') || return 1
	dev=/dev/edm$minor
	for _ in $(seq 50); do
		[ -c "$dev" ] && break
		sleep 0.1
	done
	[ -c "$dev" ] || return 1
	{ "$edmctl" fabric show; "$edmctl" fabric link show; } >"$out/edm.describe" 2>&1
}

edm_run() {
	local rc=0

	edmop_bench read "$lat_iters" 1 edm-read || rc=1
	# posted, as the paper's writes (and /dev/edm's before 2026-11-28)
	edmop_bench write "$lat_iters" 1 edm-write -P || rc=1
	edmop_bench read "$bw_iters" "$bw_depth" edm-read-bw || rc=1
	"$edmctl" -j fabric stats >"$out/$tag.stats.json" 2>&1
	"$edmctl" -s -j fabric link show >"$out/$tag.links.json" 2>&1
	[ "$hops" -eq 0 ] || hops_trace || rc=1
	return $rc
}

# $hops reads one at a time with the edm_fab and net tracepoints on, the
# trace in TAG.hops.trace for tools/bench/edm_hops.py; not part of the
# figures above (tracing slows every step).
hops_trace() {
	local t=/sys/kernel/tracing e

	[ -e $t/trace ] || mount -t tracefs nodev $t || return 1
	# no comm record: enabling events then patches their own sites only,
	# not the scheduler's (see selftests/edm/cowbird.c, tracepoints)
	echo 0 >$t/tracing_on && echo mono >$t/trace_clock && echo 8192 >$t/buffer_size_kb &&
		echo 0 >$t/options/record-cmd && echo >$t/trace || return 1
	for e in edm_fab net/net_dev_queue net/netif_rx net/netif_receive_skb; do
		echo 1 >"$t/events/$e/enable" || return 1
	done
	echo 1 >$t/tracing_on
	edmop_bench read "$hops" 1 edm-read-traced
	echo 0 >$t/tracing_on
	cp $t/trace "$out/$tag.hops.trace"
	echo 0 >$t/events/enable
	echo >$t/trace
}

# edmop_bench OP COUNT DEPTH NAME [EDMOP-OPTION]: edmop's JSON in $tag.NAME.log
edmop_bench() {
	taskset -c "$edm_cpu" timeout 300 "$edmop" -j "${kopt[@]}" ${5:+"$5"} "$dev" bench 2 "$1" \
		"$size" "$2" \
		depth "$3" >"$out/$tag.$4.log" 2>"$out/$tag.$4.err" && return 0
	log "$tag: edmop bench $1 depth $3 failed"
	return 1
}

edm_down() {
	"$edmctl" fabric del cn 2>/dev/null
	"$edmctl" fabric del mn 2>/dev/null
	"$edmctl" fabric del sw 2>/dev/null
	return 0
}

# run SYSTEM ROUND
run() {
	local sys=$1 t0=$EPOCHREALTIME

	tag=$1.r$2
	if ! "${sys}_setup"; then
		log "$tag: setup failed"
		echo setup >"$out/$tag.error"
	else
		"${sys}_run"
		[ "$2" != 1 ] || [ "$prof_iters" -eq 0 ] || "${sys}_prof"
	fi
	"${sys}_down"
	log "$tag done in $(((${EPOCHREALTIME/./} - ${t0/./}) / 1000000)) s"
}

cleanup() {
	rxe_down
	edm_down
	ip link del veth0 2>/dev/null
	[ -d /sys/module/edm ] && { rmmod edm || log "edm.ko would not unload"; }
	return 0
}

mkdir -p "$out" || exit 1
veth_up || { log "the veth pair did not come up"; exit 1; }
trap cleanup EXIT
{ echo "krel=$(uname -r)"; echo "nproc=$(nproc)"; echo "size=$size"
  echo "lat_iters=$lat_iters"; echo "bw_iters=$bw_iters"; echo "bw_depth=$bw_depth"
  echo "rounds=$rounds"; echo "prof_iters=$prof_iters"
  echo "perftest=$(ib_read_lat --version 2>&1 | awk '{ print $NF; exit }')"; } >"$out/params"
t0=$EPOCHREALTIME
for round in $(seq 1 "$rounds"); do
	order=("${systems[@]}")
	if [ $((round % 2)) -eq 0 ]; then
		order=()
		for ((i = ${#systems[@]} - 1; i >= 0; i--)); do order+=("${systems[$i]}"); done
	fi
	for s in "${order[@]}"; do
		echo "$s.r$round" >>"$out/order"
		run "$s" "$round"
	done
done
log "$(((${EPOCHREALTIME/./} - ${t0/./}) / 1000000)) s of measurements"
