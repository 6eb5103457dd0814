#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The guest half of tools/bench/dfabric/dfabric.sh: measurements only, the
# host formats them. Runs in the VM that selftests/vm/run boots.
#
#   intra    a rack (pool dfpi, rack dfri) with compute nodes cni1 and cni2
#            in namespaces dfia and dfib (10.82.0.1, .2), against a plain
#            veth pair in dfva and dfvb (10.81.0.1, .2); DFB_ROUNDS rounds,
#            order reversed every other round: sockperf ping-pong (64 B UDP,
#            DFB_LAT_SECS, both ends on CPU 0: under TCG a wakeup across
#            vCPUs costs milliseconds), iperf3, one flow, DFB_TPUT_SECS, and
#            redis-benchmark (SET and GET, DFB_REDIS_N requests each from one
#            client; redis-server on CPU 0 too) when redis is installed.
#            In round 1 both systems run sockperf and iperf3 once more with
#            a window of perf inside, for the cost breakdown (not measured).
#            The veth run is also the check that one unshaped link carries
#            far more than the four shaped ones together. DFB_POOLS names
#            the memory providers the rack's pool is made on, one rack run
#            each per round (SYS rack, rack-pmem, rack-devdax; the rounds
#            of each provider numbered after the last's): ram (the
#            page allocator, the default), dcache (the page allocator,
#            and each compute node with a DRAM cache of 16 x 4 lines of
#            128 KiB, which every packet fits), pmem (/dev/pmem0, the
#            NVDIMM's namespace in fsdax mode) and devdax (/dev/dax0.0, the
#            same namespace in devdax mode, align 4096); the last two need
#            selftests/vm/run --nvdimm 256M.
#   link     the other check: one veth link shaped like those below (lka in
#            dfka 10.83.0.1, lkb in dfkb 10.83.0.2), iperf3 with 1 flow: the
#            share of its rate TCP gets from one link here, the ceiling of
#            any contender's ratio to the four links' sum.
#   inter    per contender in DFB_CONTENDERS ("none": no inter-rack run,
#            nor the link check), a topology of its own with
#            four veth links, each end shaped by tbf to DFB_RATE Mbit/s, a
#            sender namespace and a receiver namespace; iperf3 with 1 and
#            with 4 flows, DFB_TPUT_SECS each (+1 s omitted), then, when
#            redis is installed, redis-benchmark as the intra runs do it
#            (the link check too):
#              nicpool-flowlet, nicpool-spray: racks dfra (CN cna in dfna,
#                10.77.0.1) and dfrb (cnb in dfnb, 10.77.0.11), each with a
#                NIC pool (dfxa, dfxb) whose members are the links' ends
#                npa0-3 and npb0-3 in this netns; no routes;
#              bond-rr, bond-xor: bond0 in dfba and dfbb (10.79.0.1, .2),
#                balance-rr, or balance-xor with layer3+4 hashing, over
#                bla0-3 and blb0-3;
#              mptcp: link k is mpak 10.80.k.1 in dfma to mpbk 10.80.k.2 in
#                dfmb; the receiver signals 10.80.1-3.2, both ends allow 4
#                subflows; iperf3 runs under mptcp_preload.so (its TCP
#                sockets become MPTCP ones).
#
# Files in $DFB_OUT: params; intra.order; per intra run TAG = intra.SYS.rN:
# TAG.sockperf.log, TAG.lat.csv (its --full-log), TAG.iperf3.json,
# TAG.redis.csv, and for the rack TAG.cn0.json and TAG.cn1.json (edmctl -j
# rack stats around iperf3); in round 1 TAG.lat.perf.txt, TAG.tput.perf.txt
# and their .ops (profile-guest.sh). Per inter run TAG = CONTENDER.FLOWS:
# TAG.iperf3.json, TAG.tx0.nstat, TAG.tx1.nstat (sender's netns, before and
# after), TAG.rx0.nstat, TAG.rx1.nstat (receiver's), TAG.links0.json,
# TAG.links1.json (ip -s -j link of the netns holding the sending ends), for
# the NIC pools TAG.npa0.json .. TAG.npb1.json (edmctl -j nicpool stats); per
# contender CONTENDER.redis.csv, CONTENDER.describe, and CONTENDER.error when
# it could not run (its first line says why); DFB_OUT/errors.txt for the log.
set -uo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
edmctl=$top/tools/edmctl/edmctl
ko=$top/build/$(uname -r)/edm.ko
preload=$top/build/bench-dfabric/mptcp_preload.so
out=${DFB_OUT:-${EDM_VM_OUT:-/tmp}/dfabric}
rate=${DFB_RATE:-25}
tput_s=${DFB_TPUT_SECS:-8}
lat_s=${DFB_LAT_SECS:-4}
redis_n=${DFB_REDIS_N:-5000}
rounds=${DFB_ROUNDS:-2}
gap=${DFB_GAP_US:-}
np_mtu=${DFB_NP_MTU:-1600}
read -ra contenders <<<"${DFB_CONTENDERS:-nicpool-flowlet nicpool-spray bond-rr bond-xor mptcp}"
read -ra pools <<<"${DFB_POOLS:-ram}"
# tbf: a 32 KB burst, above rate / HZ at these rates (a bigger GSO packet
# tbf cuts into MTU frames itself), and a queue of 20 ms at the rate.
tbf=(tbf rate "${rate}mbit" burst 32kb latency 20ms)
pids=()
declare -A srv_pid	# receiving netns -> its sockperf server's pid
cur=
. "$top/tools/bench/profile-guest.sh"

log() { echo "dfabric-bench: $*" | tee -a "$out/errors.txt" >&2; }

# na REASON: the current contender could not run; the host prints REASON.
na() {
	[ -e "$out/$cur.error" ] || echo "$*" >"$out/$cur.error"
	log "$cur: $*"
}

# run CMD...: run it; on failure, the contender is n/a with CMD's message.
run() {
	local err

	err=$("$@" 2>&1 >/dev/null) && return 0
	na "$* failed: ${err:-no message}"
	return 1
}

# nsx NS CMD...: CMD in netns NS, or in this one when NS is ""
nsx() {
	local ns=$1

	shift
	if [ -n "$ns" ]; then
		ip netns exec "$ns" "$@"
	else
		"$@"
	fi
}

# poll SECONDS CMD...: retry CMD every 0.1 s until it succeeds or time is up.
poll() {
	local n=$(($1 * 10))

	shift
	until "$@"; do
		[ $((n--)) -gt 0 ] || return 1
		sleep 0.1
	done
}

# listening PID PORT: process PID's netns has an IPv4 TCP listener on PORT.
listening() {
	local hex tcp

	printf -v hex '%04X' "$2"
	tcp=$(<"/proc/$1/net/tcp") || return 1
	[[ $tcp == *":$hex 00000000:0000 0A"* ]]
}

# server NS [ENV...] CMD...: a background server in NS (ip netns exec
# execs it: its pid is the server's, in NS); the caller waits.
server() {
	local ns=$1

	shift
	ip netns exec "$ns" env "$@" >>"$out/servers.log" 2>&1 </dev/null &
	pids+=($!)
}

servers_stop() {
	local p

	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
	pids=()
}

# iperf3_server NS [ENV...]: iperf3 -s on every IPv4 address of NS (MPTCP
# joins arrive on the other addresses), ready to take clients.
iperf3_server() {
	local ns=$1

	shift
	server "$ns" "$@" iperf3 -s -B 0.0.0.0
	poll 20 listening "${pids[-1]}" 5201 || { na "iperf3 -s did not listen in $ns"; return 1; }
}

ns_new() {
	local ns

	for ns in "$@"; do
		ip netns add "$ns" && ip -n "$ns" link set lo up || return 1
	done
}

ns_del() {
	local ns

	for ns in "$@"; do ip netns del "$ns" 2>/dev/null; done
	return 0
}

# shape NS DEV...: DFB_RATE on each device's egress, RPS over every CPU on
# its receive side, and up. RPS makes each link FIFO per flow, as a wire is:
# a veth hands a frame to the backlog of the CPU that sent it, and frames of
# one flow sent from two CPUs can swap (see Documentation/nicpool.md).
shape() {
	local ns=$1 d all

	shift
	printf -v all '%x' $(((1 << $(nproc)) - 1))
	for d in "$@"; do
		run nsx "$ns" tc qdisc replace dev "$d" root "${tbf[@]}" &&
			run nsx "$ns" sh -c "echo $all >/sys/class/net/$d/queues/rx-0/rps_cpus" &&
			run nsx "$ns" ip link set "$d" up || return 1
	done
}

nstat_snap() {
	nsx "$1" nstat -saz >"$2" 2>&1
}

# ---- intra-rack ----

# pool_dev PROVIDER: the device the pool is made on ("" for RAM), the
# NVDIMM's namespace put in the mode it needs
pool_dev() {
	local mode=fsdax dev=/dev/pmem0 opts=()

	case $1 in
	ram | dcache) return 0 ;;
	devdax) mode=devdax dev=/dev/dax0.0 opts=(-a 4096) ;;
	esac
	modprobe nfit && modprobe nd_pmem && modprobe dax_pmem && modprobe device_dax ||
		{ na "no NVDIMM drivers"; return 1; }
	udevadm settle 2>/dev/null
	run ndctl create-namespace -f -e namespace0.0 -m $mode -M mem "${opts[@]}" >/dev/null ||
		{ na "no $mode namespace (run with --nvdimm 256M)"; return 1; }
	poll 10 test -e $dev || { na "no $dev"; return 1; }
	echo $dev
}

# intra_up PROVIDER
intra_up() {
	local ns dev cn=()

	cur=intra
	dev=$(pool_dev "$1") || return 1
	[ "$1" != dcache ] || cn=(dcache-sets 16 dcache-ways 4 dcache-gran 131072)
	run ns_new dfva dfvb dfia dfib &&
		run ip link add iva netns dfva type veth peer name ivb netns dfvb &&
		run "$edmctl" pool create dfpi size 128M ${dev:+dev $dev} &&
		run "$edmctl" rack create dfri pool dfpi &&
		run "$edmctl" rack add-cn dfri cni1 "${cn[@]}" &&
		run "$edmctl" rack add-cn dfri cni2 "${cn[@]}" &&
		run ip link set cni1 netns dfia && run ip link set cni2 netns dfib || return 1
	addr dfva iva 10.81.0.1 && addr dfvb ivb 10.81.0.2 &&
		addr dfia cni1 10.82.0.1 && addr dfib cni2 10.82.0.2 || return 1
	poll 10 nsx dfva ping -c 1 -W 1 10.81.0.2 >/dev/null &&
		poll 10 nsx dfia ping -c 1 -W 1 10.82.0.2 >/dev/null ||
		{ na "no ping over the veth pair or between the compute nodes"; return 1; }
	for ns in dfvb dfib; do
		server "$ns" taskset -c 0 sockperf sr -i 0.0.0.0 -p 11111
		srv_pid[$ns]=${pids[-1]}
		iperf3_server "$ns" || return 1
		command -v redis-server >/dev/null || continue
		server "$ns" taskset -c 0 redis-server --bind 0.0.0.0 --port 6379 \
			--protected-mode no --save "" --appendonly no --dir /tmp --logfile ""
		poll 20 listening "${pids[-1]}" 6379 ||
			{ na "redis-server did not listen in $ns"; return 1; }
	done
}

intra_down() {
	servers_stop
	ns_del dfva dfvb dfia dfib
	"$edmctl" rack del dfri 2>/dev/null
	"$edmctl" pool del dfpi 2>/dev/null
	return 0
}

# addr NS DEV IP: address it (/24), up, without IPv6 (no stray packets)
addr() {
	run ip -n "$1" link set "$2" addrgenmode none &&
		run ip -n "$1" addr add "$3/24" dev "$2" &&
		run ip -n "$1" link set "$2" up
}

# intra_profile TAG NS IP RNS RDEV: sockperf and iperf3 again, each with a
# window of perf in its steady part, ops counted on RDEV in RNS
intra_profile() {
	local pid

	# not nsx: $! must be the tool's own pid (ip netns exec execs it)
	ip netns exec "$2" taskset -c 0 sockperf pp -i "$3" -p 11111 -m 64 -t 30 >/dev/null 2>&1 &
	pid=$!
	sleep 1.5
	prof_window "$out/$1.lat" "${srv_pid[$4]}" "$5" rt
	kill $pid
	wait $pid
	ip netns exec "$2" iperf3 -c "$3" -t 30 >/dev/null 2>&1 &
	pid=$!
	sleep 2.5
	prof_window "$out/$1.tput" "${srv_pid[$4]}" "$5" MB
	kill -INT $pid
	wait $pid
	return 0
}

# intra_run SYS ROUND: sockperf, then iperf3, veth or rack[-PROVIDER]; in
# round 1 the profiled runs after them
intra_run() {
	local tag=intra.$1.r$2 ns ip rns rdev

	case $1 in
	veth) ns=dfva ip=10.81.0.2 rns=dfvb rdev=ivb ;;
	rack*) ns=dfia ip=10.82.0.2 rns=dfib rdev=cni2 ;;
	esac
	echo "$tag" >>"$out/intra.order"
	nsx $ns taskset -c 0 sockperf pp -i $ip -p 11111 -m 64 -t "$lat_s" \
		--full-log "$out/$tag.lat.csv" >"$out/$tag.sockperf.log" 2>&1 ||
		log "$tag: sockperf failed"
	[ "$1" = veth ] || "$edmctl" -j rack stats >"$out/$tag.cn0.json" 2>&1
	nsx $ns timeout $((tput_s + 60)) iperf3 -c $ip -t "$tput_s" -O 1 -J \
		>"$out/$tag.iperf3.json" 2>&1 || log "$tag: iperf3 failed"
	[ "$1" = veth ] || "$edmctl" -j rack stats >"$out/$tag.cn1.json" 2>&1
	if command -v redis-benchmark >/dev/null; then
		nsx $ns taskset -c 0 timeout 300 redis-benchmark -h $ip -n "$redis_n" -c 1 \
			-t set,get --csv >"$out/$tag.redis.csv" 2>&1 || log "$tag: redis-benchmark failed"
	fi
	[ "$2" = 1 ] && intra_profile "$tag" $ns $ip $rns $rdev
	log "$tag done"
}

# intra PROVIDER FIRST: its rack against the veth pair, rounds numbered from FIRST
intra() {
	local r sys=rack

	[ "$1" = ram ] || sys=rack-$1
	if ! intra_up "$1"; then
		intra_down
		return
	fi
	for r in $(seq "$2" $(($2 + rounds - 1))); do
		if [ $((r % 2)) -eq 1 ]; then
			intra_run veth "$r"; intra_run "$sys" "$r"
		else
			intra_run "$sys" "$r"; intra_run veth "$r"
		fi
	done
	intra_down
}

# ---- inter-rack contenders: C_up sets tx, rx (namespaces), ip (receiver),
# lns (netns of the sending ends, "" for this one), env (iperf3's) ----

nicpool_up() {
	local mode=$1 s k

	# An edmctl without the object says so; any other trouble shows below.
	[[ $("$edmctl" nicpool help 2>&1) != *'Object "nicpool" is unknown'* ]] ||
		{ na "edmctl has no nicpool"; return 1; }
	run ns_new dfna dfnb || return 1
	for s in a b; do
		run "$edmctl" pool create dfp$s size 128M &&
			run "$edmctl" rack create dfr$s pool dfp$s &&
			run "$edmctl" rack add-cn dfr$s cn$s &&
			run ip link set cn$s netns dfn$s || return 1
	done
	addr dfna cna 10.77.0.1 && addr dfnb cnb 10.77.0.11 || return 1
	# The members get room for the spray header; the CNs keep MTU 1500.
	for k in 0 1 2 3; do
		run ip link add npa$k mtu "$np_mtu" type veth peer name npb$k mtu "$np_mtu" &&
			shape "" npa$k npb$k || return 1
	done
	for s in a b; do
		run "$edmctl" nicpool create dfx$s rack dfr$s mode "$mode" \
			${gap:+flowlet-gap-us "$gap"} || return 1
		for k in 0 1 2 3; do
			run "$edmctl" nicpool add-nic dfx$s np$s$k || return 1
		done
	done
	tx=dfna rx=dfnb ip=10.77.0.11 lns='' env=()
}

nicpool_down() {
	local s k

	for s in a b; do
		"$edmctl" nicpool del dfx$s 2>/dev/null
		"$edmctl" rack del dfr$s 2>/dev/null
		"$edmctl" pool del dfp$s 2>/dev/null
	done
	for k in 0 1 2 3; do ip link del npa$k 2>/dev/null; done
	ns_del dfna dfnb
}

nicpool_describe() {
	"$edmctl" -j nicpool show
	"$edmctl" nicpool show
	tc -s qdisc show dev npa0
	ip -d link show dev npa0
}

bond_up() {
	local mode=$1 ns k

	modprobe bonding max_bonds=0 2>/dev/null
	run ns_new dfba dfbb || return 1
	for ns in dfba dfbb; do
		if [ "$mode" = balance-xor ]; then
			run ip -n $ns link add bond0 type bond mode balance-xor \
				xmit_hash_policy layer3+4 || return 1
		else
			run ip -n $ns link add bond0 type bond mode "$mode" || return 1
		fi
	done
	for k in 0 1 2 3; do
		run ip link add bla$k netns dfba type veth peer name blb$k netns dfbb &&
			run ip -n dfba link set bla$k master bond0 &&
			run ip -n dfbb link set blb$k master bond0 &&
			shape dfba bla$k && shape dfbb blb$k || return 1
	done
	addr dfba bond0 10.79.0.1 && addr dfbb bond0 10.79.0.2 || return 1
	tx=dfba rx=dfbb ip=10.79.0.2 lns=dfba env=()
}

bond_down() {
	ns_del dfba dfbb
}

bond_describe() {
	nsx dfba cat /proc/net/bonding/bond0
	nsx dfba tc -s qdisc show dev bla0
}

mptcp_up() {
	local k ns

	[ -e "$preload" ] || { na "no $preload (make -C tools/bench/dfabric)"; return 1; }
	[ "$(sysctl -n net.mptcp.enabled 2>/dev/null)" = 1 ] ||
		{ na "the kernel has no MPTCP (net.mptcp.enabled)"; return 1; }
	run ns_new dfma dfmb || return 1
	for k in 0 1 2 3; do
		run ip link add mpa$k netns dfma type veth peer name mpb$k netns dfmb &&
			addr dfma mpa$k 10.80.$k.1 && addr dfmb mpb$k 10.80.$k.2 &&
			shape dfma mpa$k && shape dfmb mpb$k || return 1
	done
	for ns in dfma dfmb; do
		run ip -n $ns mptcp limits set subflow 4 add_addr_accepted 4 || return 1
	done
	# The first subflow takes link 0; the receiver announces its address on
	# each other link and the sender opens a subflow to each.
	for k in 1 2 3; do
		run ip -n dfmb mptcp endpoint add 10.80.$k.2 dev mpb$k signal || return 1
	done
	tx=dfma rx=dfmb ip=10.80.0.2 lns=dfma env=(LD_PRELOAD="$preload")
}

mptcp_down() {
	ns_del dfma dfmb
}

link_up() {
	run ns_new dfka dfkb &&
		run ip link add lka netns dfka type veth peer name lkb netns dfkb &&
		addr dfka lka 10.83.0.1 && addr dfkb lkb 10.83.0.2 &&
		shape dfka lka && shape dfkb lkb || return 1
	tx=dfka rx=dfkb ip=10.83.0.2 lns=dfka env=()
}

link_down() {
	ns_del dfka dfkb
}

link_describe() {
	nsx dfka tc -s qdisc show dev lka
}

mptcp_describe() {
	ip -n dfma mptcp limits show
	ip -n dfmb mptcp endpoint show
	nsx dfma tc -s qdisc show dev mpa0
}

# links_snap FILE: counters of the sending ends' netns
links_snap() {
	nsx "$lns" ip -s -j link show >"$1" 2>&1
}

np_snap() {
	[ "${cur%%-*}" = nicpool ] || return 0
	"$edmctl" -j nicpool stats dfxa >"$out/$tag.npa$1.json" 2>&1
	"$edmctl" -j nicpool stats dfxb >"$out/$tag.npb$1.json" 2>&1
}

snap() {
	nstat_snap "$tx" "$out/$tag.tx$1.nstat"
	nstat_snap "$rx" "$out/$tag.rx$1.nstat"
	links_snap "$out/$tag.links$1.json"
	np_snap "$1"
}

# inter_run FLOWS: one iperf3 run of the current contender
inter_run() {
	local tag=$cur.$1

	snap 0
	nsx "$tx" env "${env[@]}" timeout $((tput_s + 60)) \
		iperf3 -c "$ip" -t "$tput_s" -O 1 -P "$1" -J >"$out/$tag.iperf3.json" 2>&1 ||
		log "$tag: iperf3 failed"
	snap 1
	log "$tag done"
}

# inter_redis: redis-benchmark across the contender's links, as the
# intra-rack runs do it (one client, SET and GET), into CONTENDER.redis.csv
inter_redis() {
	command -v redis-benchmark >/dev/null || return 0
	server "$rx" "${env[@]}" taskset -c 0 redis-server --bind 0.0.0.0 --port 6379 \
		--protected-mode no --save "" --appendonly no --dir /tmp --logfile ""
	poll 20 listening "${pids[-1]}" 6379 || { log "$cur: redis-server did not listen"; return; }
	nsx "$tx" env "${env[@]}" taskset -c 0 timeout 300 redis-benchmark -h "$ip" \
		-n "$redis_n" -c 1 -t set,get --csv >"$out/$cur.redis.csv" 2>&1 ||
		log "$cur: redis-benchmark failed"
}

# inter CONTENDER: set up, ping, serve, 1 flow, 4 flows, redis, tear down
inter() {
	local kind arg tx='' rx='' ip='' lns='' env=()

	cur=$1
	case $1 in
	nicpool-flowlet) kind=nicpool arg=flowlet ;;
	nicpool-spray) kind=nicpool arg=spray ;;
	bond-rr) kind=bond arg=balance-rr ;;
	bond-xor) kind=bond arg=balance-xor ;;
	mptcp) kind=mptcp arg= ;;
	link) kind=link arg= ;;
	*) na "unknown contender"; return ;;
	esac
	if ${kind}_up $arg; then
		if poll 15 nsx "$tx" ping -c 1 -W 1 "$ip" >/dev/null; then
			${kind}_describe >"$out/$cur.describe" 2>&1
			if iperf3_server "$rx" "${env[@]}"; then
				inter_run 1
				[ $kind = link ] || inter_run 4
			fi
			inter_redis
		else
			na "no ping from $tx to $ip"
		fi
	fi
	servers_stop
	${kind}_down
}

cleanup() {
	servers_stop
	intra_down
	nicpool_down
	bond_down
	mptcp_down
	link_down
	[ -d /sys/module/edm ] && { rmmod edm || log "edm.ko would not unload"; }
	return 0
}

mkdir -p "$out" || exit 1
: >"$out/errors.txt"
trap cleanup EXIT
if ! modprobe veth || ! modprobe sch_tbf; then
	log "no veth or tbf"
	exit 1
fi
insmod "$ko" || { log "insmod $ko failed"; exit 1; }
{ echo "krel=$(uname -r)"; echo "nproc=$(nproc)"; echo "rate=$rate"
  echo "tput_s=$tput_s"; echo "lat_s=$lat_s"; echo "redis_n=$redis_n"; echo "rounds=$rounds"
  echo "tbf=${tbf[*]}"
  echo "gap=${gap:-default}"; echo "np_mtu=$np_mtu"
  echo "contenders=${contenders[*]}"; echo "pools=${pools[*]}"; } >"$out/params"
t0=$SECONDS
r=1
for p in "${pools[@]}"; do
	intra "$p" $r
	r=$((r + rounds))
done
if [ "${contenders[*]}" != none ]; then
	inter link
	for c in "${contenders[@]}"; do
		inter "$c"
	done
fi
log "$((SECONDS - t0)) s of measurements"
