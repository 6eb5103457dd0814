#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The guest half of ndimm.sh: measurements only, the host does the sums.
# Namespaces ndA (10.77.0.1) and ndB (10.77.0.2) live for the whole run,
# with a sockperf and an iperf3 server in ndB. For each system (veth, and
# ndimm pairs in interrupt/zerocopy, clone and 20 us poll modes), in
# rounds whose order is reversed every other round so that drift favors
# no one, a fresh pair joins them and three phases run:
#   idle     nothing sent for NDB_IDLE_SECS (the polling agent's cost),
#   latency  sockperf ping-pong, NDB_MSG bytes of UDP, ndA -> ndB,
#   tput     iperf3, one TCP stream, ndA -> ndB, JSON.
# In round 1 only, two more phases repeat latency and tput with a window of
# perf inside their steady part (profile-guest.sh), for the cost breakdown;
# the measured phases run without perf.
# Around each phase the ndimm counters are saved (edmctl -j netdimm stats),
# and inside each phase a steady window, clear of the tools' start-up,
# samples /proc/stat and ndA's /proc/net/dev for the CPU cost figures.
# Under TCG every exec costs the better part of a second, so the sampling
# uses shell builtins only.
#
# Files in $NDB_OUT, per run TAG = <system>.r<round>: TAG.sockperf.log (and
# TAG.lat.csv, sockperf's --full-log: every message's latency),
# TAG.iperf3.json, TAG.nd<phase>.json, TAG.samples (lines "<label> <time>
# <busy> <idle> <rx bytes> <rx packets> <tx bytes> <tx packets>", jiffies
# and ndA's device), TAG.qdisc (ndA's qdisc and BQL after the run), and
# <system>.describe (link, offloads, qdisc, BQL); in round 1 TAG.<lat|tput>.perf.txt
# (perf report) and TAG.<lat|tput>.ops (round trips, or MB sent, in its window).
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
edmctl=$top/tools/edmctl/edmctl
ko=$top/build/$(uname -r)/edm.ko
lat_s=${NDB_LAT_SECS:-4}
tput_s=${NDB_TPUT_SECS:-5}
idle_s=${NDB_IDLE_SECS:-1}
rounds=${NDB_ROUNDS:-3}
size=${NDB_SIZE:-64M}
msg=${NDB_MSG:-64}
# CPUs: sockperf server and client, iperf3 client and server. Under TCG a
# wakeup across vCPUs costs about 2 ms (measured: p50 300 us on one vCPU,
# 2-3 ms across two, on veth), which would drown what the device costs, so
# the ping-pong runs on one vCPU; iperf3's ends get one each.
read -r lat_srv lat_cli <<<"${NDB_LAT_CPUS:-0 0}"
tput_cpus=${NDB_TPUT_CPUS:-0,1}
read -ra systems <<<"${NDB_SYSTEMS:-veth ndimm-zc ndimm-clone ndimm-poll20}"
out=${NDB_OUT:-${EDM_VM_OUT:-/tmp}/ndimm}
A=ndA B=ndB ipa=10.77.0.1 ipb=10.77.0.2
pids=()
. "$top/tools/bench/profile-guest.sh"

log() { echo "ndimm-bench: $*" >&2; }

# sleep without an exec: a read that times out on a pipe nobody writes
nap() { read -rt "$1" -u "$napfd" || :; }

# ndA's device counters, from the holder's /proc/net/dev: sets rxb rxp txb txp
dev_counters() {
	local name rest

	rxb=0 rxp=0 txb=0 txp=0
	while read -r name rest; do
		[ "$name" = "$da:" ] || continue
		read -r rxb rxp _ _ _ _ _ _ txb txp _ <<<"$rest"
	done <"/proc/$holder/net/dev"
}

# sample LABEL: one line of $tag.samples
sample() {
	local cpu u n s i w q sq st

	read -r cpu u n s i w q sq st _ </proc/stat
	dev_counters
	echo "$1 $EPOCHREALTIME $((u + n + s + q + sq + st)) $((i + w)) $rxb $rxp $txb $txp" \
		>>"$out/$tag.samples"
}

# until ndA has sent $1 more packets than now, or 20 s
wait_traffic() {
	local want k

	dev_counters
	want=$((txp + $1))
	for ((k = 0; k < 200; k++)); do
		dev_counters
		[ "$txp" -ge "$want" ] && return 0
		nap 0.1
	done
	return 1
}

nd_snap() {
	[ "$sys" = veth ] || "$edmctl" -j netdimm stats >"$out/$tag.nd$1.json" 2>&1
}

setup() {
	local fifo=/tmp/ndimm-nap

	mkdir -p "$out" && mkfifo $fifo && exec {napfd}<>$fifo || return 1
	modprobe veth && insmod "$ko" || return 1
	ip netns add $A && ip netns add $B &&
	ip -n $A link set lo up && ip -n $B link set lo up || return 1
	ip netns exec $A sleep 1d &
	holder=$! pids+=($!)
	ip netns exec $B taskset -c "$lat_srv" sockperf sr -i 0.0.0.0 -p 11111 \
		>"$out/sockperf-server.log" 2>&1 &
	pids+=($!)
	ip netns exec $B iperf3 -s >"$out/iperf3-server.log" 2>&1 &
	pids+=($!)
}

# pair_up: a fresh pair between ndA and ndB; sets da, db
pair_up() {
	local opts=()

	case $sys in
	veth)
		da=v0 db=v1
		ip link add $da netns $A type veth peer name $db netns $B || return 1
		;;
	ndimm-zc) opts=(rx-mode zerocopy) ;;
	ndimm-clone) opts=(rx-mode clone) ;;
	ndimm-poll20) opts=(poll-us 20 rx-mode zerocopy) ;;
	*) return 1 ;;
	esac
	if [ "$sys" != veth ]; then
		da=nd0 db=nd1
		"$edmctl" netdimm add $da size "$size" peer $db "${opts[@]}" >/dev/null &&
		ip -b - <<<"link set $da netns $A
link set $db netns $B" || return 1
	fi
	ip -n $A -b - <<<"addr add $ipa/24 dev $da
link set $da up" && ip -n $B -b - <<<"addr add $ipb/24 dev $db
link set $db up" || return 1
	ip netns exec $A ping -c 1 -W 5 $ipb >/dev/null
}

pair_down() {
	if [ "$sys" = veth ]; then
		ip -n $A link del v0 2>/dev/null
	else
		"$edmctl" netdimm del nd0 >/dev/null 2>&1
	fi
	return 0
}

describe() {
	local offloads='^(scatter-gather|tx-checksumming|tcp-segmentation-offload|generic-\w+-offload):'

	[ -e "$out/$sys.describe" ] && return
	ip netns exec $A sh -c "ip -d link show dev $da; ethtool -k $da | grep -E '$offloads'
		tc -s qdisc show dev $da
		echo bql limit: \$(cat /sys/class/net/$da/queues/tx-0/byte_queue_limits/limit)" \
		>"$out/$sys.describe" 2>&1
}

# run SYSTEM ROUND: the three phases on a fresh pair
run() {
	local pid w t0=$EPOCHREALTIME

	sys=$1 tag=$1.r$2
	if ! pair_up; then
		log "$tag: the pair did not come up"
		echo setup >"$out/$tag.error"
		pair_down
		return
	fi
	describe

	nd_snap 0
	sample idle0
	nap "$idle_s"
	sample idle1
	nd_snap 1

	ip netns exec $A taskset -c "$lat_cli" sockperf pp -i $ipb -p 11111 -m "$msg" -t "$lat_s" \
		--full-log "$out/$tag.lat.csv" >"$out/$tag.sockperf.log" 2>&1 &
	pid=$!
	w=$(((lat_s * 10 - 15) / 10)).$(((lat_s * 10 - 15) % 10))
	if wait_traffic 20; then
		nap 0.5
		sample lat0
		nap "$w"
		sample lat1
	fi
	wait $pid || log "$tag: sockperf failed"
	nd_snap 2

	ip netns exec $A iperf3 -c $ipb -t "$tput_s" -O 1 -A "$tput_cpus" -J \
		>"$out/$tag.iperf3.json" 2>&1 &
	pid=$!
	w=$(((tput_s * 10 - 15) / 10)).$(((tput_s * 10 - 15) % 10))
	if wait_traffic 50; then
		nap 1.5
		sample tput0
		nap "$w"
		sample tput1
	fi
	wait $pid || log "$tag: iperf3 failed"
	nd_snap 3
	ip netns exec $A sh -c "tc -s qdisc show dev $da
		cd /sys/class/net/$da/queues/tx-0/byte_queue_limits && grep . limit limit_max inflight" \
		>"$out/$tag.qdisc" 2>&1
	[ "$2" = 1 ] && profile
	pair_down
	log "$tag done in $(((${EPOCHREALTIME/./} - ${t0/./}) / 1000000)) s"
}

# the latency and throughput workloads again, each with a perf window
profile() {
	local pid

	ip netns exec $A taskset -c "$lat_cli" sockperf pp -i $ipb -p 11111 -m "$msg" -t 30 \
		>/dev/null 2>&1 &
	pid=$!
	wait_traffic 20 && nap 0.5 && prof_window "$out/$tag.lat" "$holder" $da rt
	kill $pid
	wait $pid
	ip netns exec $A iperf3 -c $ipb -t 30 -A "$tput_cpus" >/dev/null 2>&1 &
	pid=$!
	wait_traffic 50 && nap 1.5 && prof_window "$out/$tag.tput" "$holder" $da MB
	kill -INT $pid
	wait $pid
}

cleanup() {
	local p

	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	ip netns del $A 2>/dev/null
	ip netns del $B 2>/dev/null
	rmmod edm 2>/dev/null || log "edm.ko would not unload"
}

[ "$lat_s" -ge 3 ] && [ "$tput_s" -ge 3 ] || { log "need latency and throughput >= 3 s"; exit 2; }
dmesg -C
setup || { log "setup failed"; cleanup; exit 1; }
trap cleanup EXIT
{ echo "krel=$(uname -r)"; echo "hz=$(getconf CLK_TCK)"; echo "nproc=$(nproc)"
  echo "lat_s=$lat_s"; echo "tput_s=$tput_s"; echo "idle_s=$idle_s"; echo "msg=$msg"
  echo "rounds=$rounds"; echo "size=$size"; echo "lat_cpus=$lat_srv,$lat_cli"
  echo "tput_cpus=$tput_cpus"; } >"$out/params"
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
