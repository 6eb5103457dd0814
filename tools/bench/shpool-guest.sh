#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The guest half of tools/bench/shpool.sh: measurements only, the host does
# the sums. Both guests of one `selftests/vm/run --guests 2 --shmem SIZE`
# run it; EDM_VM_GUEST picks the role. Each joins the shared pool SHB_POOL
# on the ivshmem device ($EDM_VM_SHMEM) with its netdev shp0 (10.81.0.1,
# .2) and brings up its virtio-net NIC toward the other guest
# (EDM_VM_NIC_TO_<peer>, 10.82.0.1, .2); IPv6 stays off both, so their
# counters only see the benchmark's traffic (and ARP).
#
#   guest 1  serves: sockperf sr (UDP :11111, TCP :11112, on CPU
#            SHB_LAT_CPU) and iperf3 -s, on every address; when they
#            listen it accepts one connection on :5998 (guest 0's "ready?")
#            and waits, at most SHB_DONE_SECS, for guest 0's "done STATUS"
#            on :5999; then it saves its counters, stops, leaves the pool.
#   guest 0  pings the peer over both paths until it answers, waits for
#            :5998, then per path (pool, virtio), in an order that
#            alternates so that drift favours neither:
#              lat.PATH.udp, lat.PATH.tcp  sockperf ping-pong, SHB_MSG
#                  bytes, a SHB_WARM_SECS warm-up run (thrown away), then
#                  SHB_LAT_SECS measured, client on CPU SHB_LAT_CPU;
#              lat.PATH.sparse  the same in UDP at SHB_SPARSE_MPS messages
#                  a second (100): requests with quiet spells between them,
#                  as a lightly loaded RPC service sees them;
#              tput.PATH.tcp  iperf3, one TCP stream, SHB_TPUT_SECS (+1 s
#                  omitted), guest 0 -> guest 1;
#              tput.PATH.udp  iperf3 UDP, SHB_MSG-byte datagrams, no rate
#                  limit, SHB_UDP_SECS (0: skipped);
#            around each run: both devices' counters and /proc/stat (a0,
#            a1: the whole run; w0, w1: a steady window inside it, for the
#            CPU cost) and edmctl -j shpool stats; then, per path, the
#            UDP ping-pong and the TCP stream once more with a window of
#            perf inside (profile-guest.sh; guest 0's CPU only); then
#            sends "done".
# Under TCG every exec costs a lot: the sampling uses shell builtins only.
#
# Files in $EDM_VM_OUT/shpool (each guest sees only its own results
# directory). Guest 0: params; order (its runs, in run order); per run TAG:
# TAG.sockperf.log (and TAG.warm.log, and TAG.lat.csv, its --full-log) or
# TAG.iperf3.json, TAG.samples
# (lines "<label> <time> <busy> <idle> <shp0 rxp txp rxb txb> <virtio rxp
# txp rxb txb>", jiffies and packets), TAG.st0.json and TAG.st1.json
# (edmctl -j shpool stats before and after); prof.PATH.lat and prof.PATH.tput,
# .perf.txt and .ops (round trips; MB sent). Guest 1: g1.samples (at
# "ready" and at "done"), g1.st.json (at "done"), the servers' logs and
# g0.status (what guest 0 said when it finished: "done STATUS"). Both:
# errors.txt, their complaints.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
edmctl=/tmp/shpool-edmctl
ko=$top/build/$(uname -r)/edm.ko
out=${EDM_VM_OUT:-/tmp}/shpool
lat_s=${SHB_LAT_SECS:-10}
warm_s=${SHB_WARM_SECS:-2}
tput_s=${SHB_TPUT_SECS:-10}
udp_s=${SHB_UDP_SECS:-5}
msg=${SHB_MSG:-64}
lat_cpu=${SHB_LAT_CPU:-0}
sparse_mps=${SHB_SPARSE_MPS:-100}
pool=${SHB_POOL:-shb}
# how long guest 0 waits for the peer to boot and serve, and guest 1 for
# guest 0 to finish
boot_s=${SHB_BOOT_SECS:-240}
done_s=${SHB_DONE_SECS:-900}
ifp=shp0
me=${EDM_VM_GUEST:?not in a selftests/vm/run guest}
peer=$((1 - me))
nicvar=EDM_VM_NIC_TO_$peer
nic=${!nicvar:-}
paddr=(10.81.0.1 10.81.0.2) eaddr=(10.82.0.1 10.82.0.2)
pids=()

log() { echo "shpool-bench g$me: $*" | tee -a "$out/errors.txt" >&2; }
. "$top/tools/bench/profile-guest.sh"

# sleep without an exec: a read that times out on a pipe nobody writes
nap() { read -rt "$1" -u "$napfd" || :; }

# poll SECONDS CMD...: retry CMD every 0.5 s until it succeeds or time is up
poll() {
	local end=$((SECONDS + $1))

	shift
	until "$@"; do
		[ "$SECONDS" -lt "$end" ] || return 1
		nap 0.5
	done
}

# both devices' counters from /proc/net/dev: sets pc (shp0) and ec (virtio),
# "rxp txp rxb txb" each
devs() {
	local name rest rxb rxp txb txp

	pc='0 0 0 0' ec='0 0 0 0'
	while read -r name rest; do
		[ "$name" = "$ifp:" ] || [ "$name" = "$nic:" ] || continue
		read -r rxb rxp _ _ _ _ _ _ txb txp _ <<<"$rest"
		if [ "$name" = "$ifp:" ]; then
			pc="$rxp $txp $rxb $txb"
		else
			ec="$rxp $txp $rxb $txb"
		fi
	done </proc/net/dev
}

# sample FILE LABEL: one line of FILE
sample() {
	local u n s i w q sq st

	read -r _ u n s i w q sq st _ </proc/stat
	devs
	echo "$2 $EPOCHREALTIME $((u + n + s + q + sq + st)) $((i + w)) $pc $ec" >>"$1"
}

# the tx packets of the device of $path: sets txp
path_txp() {
	local t

	devs
	if [ "$path" = pool ]; then read -r _ t _ <<<"$pc"; else read -r _ t _ <<<"$ec"; fi
	txp=$t
}

# until the path's device has sent $1 more packets than now, or 20 s
wait_traffic() {
	local want k txp

	path_txp
	want=$((txp + $1))
	for ((k = 0; k < 200; k++)); do
		path_txp
		[ "$txp" -ge "$want" ] && return 0
		nap 0.1
	done
	return 1
}

# listening PROTO PORT: an IPv4 socket of PROTO (tcp, udp) on PORT listens
listening() {
	local hex t

	printf -v hex '%04X' "$2"
	t=$(<"/proc/net/$1") || return 1
	if [ "$1" = tcp ]; then
		[[ $t == *":$hex 00000000:0000 0A"* ]]
	else
		[[ $t == *":$hex 00000000:0000 07"* ]]
	fi
}

# connects IP PORT: a TCP connection to IP:PORT opens (bash's /dev/tcp)
connects() {
	local fd

	{ exec {fd}<>"/dev/tcp/$1/$2"; } 2>/dev/null || return 1
	exec {fd}>&-
}

pings() {
	ping -c 1 -W 1 "$1" >/dev/null 2>&1
}

# --pmem: the NVDIMM's namespace in fsdax mode; guest 0 makes it so, guest 1
# probes it again until it finds the info block (as selftests/edm/shpool_lib.sh)
pmem_mode() {
	ndctl list -n namespace0.0 | jq -r 'if type == "array" then .[0].mode else .mode end'
}

pmem_setup() {
	local i

	modprobe nfit && modprobe nd_pmem || { log "no nfit/nd_pmem"; return 1; }
	udevadm settle 2>/dev/null
	if [ "$me" = 0 ]; then
		[ "$(pmem_mode)" = fsdax ] ||
			ndctl create-namespace -f -e namespace0.0 -m fsdax -M mem >/dev/null ||
			{ log "ndctl create-namespace failed"; return 1; }
		return 0
	fi
	for i in $(seq 600); do
		[ "$(pmem_mode)" = fsdax ] && return 0
		ndctl disable-namespace namespace0.0 >/dev/null 2>&1
		ndctl enable-namespace namespace0.0 >/dev/null 2>&1
		sleep 0.2
	done
	log "the namespace never showed guest 0's fsdax info block"
	return 1
}

setup() {
	local fifo=/tmp/shpool-nap dev

	mkfifo $fifo && exec {napfd}<>$fifo || { log "no fifo"; return 1; }
	# a copy: the tree's edmctl may be rebuilt while we run
	cp "$top/tools/edmctl/edmctl" "$edmctl" || { log "no edmctl"; return 1; }
	[ -n "$nic" ] || { log "no $nicvar: not booted with --guests 2?"; return 1; }
	dev=${EDM_VM_SHMEM:-}
	[ -z "${EDM_VM_NVDIMM_SIZE:-}" ] || { pmem_setup && dev=/dev/pmem0; } || return 1
	[ -n "$dev" ] || { log "no EDM_VM_SHMEM: not booted with --shmem or --nvdimm?"; return 1; }
	insmod "$ko" || { log "insmod $ko failed"; return 1; }
	# SHB_RX_COPY=1: receivers copy even on memory they could lend (to measure the copy)
	[ "${SHB_RX_COPY:-0}" = 0 ] || echo 1 >/sys/kernel/debug/edm/shpool_rx_copy ||
		{ log "no debugfs edm/shpool_rx_copy"; return 1; }
	# lease-ms: generous, so that a guest starved by the host is not reaped
	"$edmctl" shpool join "$pool" dev "$dev" ifname $ifp lease-ms 10000 >/dev/null ||
		{ log "edmctl shpool join $pool dev $dev failed"; return 1; }
	ip -b - <<EOF || { log "addressing failed"; return 1; }
link set $ifp addrgenmode none
addr add ${paddr[$me]}/24 dev $ifp
link set $ifp up
link set $nic addrgenmode none
addr add ${eaddr[$me]}/24 dev $nic
link set $nic up
EOF
}

teardown() {
	local p

	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
	pids=()
	if [ -d /sys/module/edm ]; then
		"$edmctl" shpool leave "$pool" >/dev/null 2>&1
		rmmod edm || log "edm.ko would not unload"
	fi
}

# ---- guest 1: the servers ----

serve() {
	local d msgs

	taskset -c "$lat_cpu" sockperf sr -i 0.0.0.0 -p 11111 >"$out/g1.sockperf-udp.log" 2>&1 &
	pids+=($!)
	taskset -c "$lat_cpu" sockperf sr --tcp -i 0.0.0.0 -p 11112 \
		>"$out/g1.sockperf-tcp.log" 2>&1 &
	pids+=($!)
	iperf3 -s -B 0.0.0.0 >"$out/g1.iperf3.log" 2>&1 &
	pids+=($!)
	poll 30 listening udp 11111 && poll 30 listening tcp 11112 && poll 30 listening tcp 5201 ||
		{ log "the servers did not listen"; return 1; }
	# "done" first, so that it listens before guest 0 can know we are ready
	timeout "$done_s" busybox nc -l -p 5999 </dev/null >"$out/g0.status" 2>&1 &
	d=$!
	timeout "$done_s" busybox nc -l -p 5998 </dev/null >/dev/null 2>&1 &
	pids+=($!)
	sample "$out/g1.samples" ready
	echo "g1: serving"
	wait $d
	msgs=$(<"$out/g0.status")
	sample "$out/g1.samples" "done"
	"$edmctl" -j shpool stats "$pool" >"$out/g1.st.json" 2>&1
	if [[ $msgs != done* ]]; then
		log "no \"done\" from guest 0 in $done_s s"
		return 1
	fi
	echo "g1: guest 0 said: $msgs"
}

# ---- guest 0: the client ----

snap() {
	"$edmctl" -j shpool stats "$pool" >"$out/$tag.st$1.json" 2>&1
}

# lat PATH PROTO: warm-up, then the measured sockperf ping-pong; PROTO udp,
# tcp, or sparse (UDP at sparse_mps messages a second)
lat() {
	local path=$1 proto=$2 tag=lat.$1.$2 ip opt=() port=11111 pid w

	ip=${paddr[$peer]}
	[ "$path" = pool ] || ip=${eaddr[$peer]}
	[ "$proto" != tcp ] || opt=(--tcp) port=11112
	[ "$proto" != sparse ] || opt=(--mps "$sparse_mps")
	echo "$tag" >>"$out/order"
	taskset -c "$lat_cpu" sockperf pp -i "$ip" -p $port "${opt[@]}" --msg-size "$msg" \
		-t "$warm_s" >"$out/$tag.warm.log" 2>&1 || log "$tag: warm-up failed"
	snap 0
	sample "$out/$tag.samples" a0
	taskset -c "$lat_cpu" sockperf pp -i "$ip" -p $port "${opt[@]}" --msg-size "$msg" \
		-t "$lat_s" --full-log "$out/$tag.lat.csv" >"$out/$tag.sockperf.log" 2>&1 &
	pid=$!
	# a steady window, clear of sockperf's start (its own warm-up is 0.4
	# s) and of its end
	w=$((lat_s - 2))
	if wait_traffic 20; then
		nap 0.5
		sample "$out/$tag.samples" w0
		nap "$w"
		sample "$out/$tag.samples" w1
	fi
	wait $pid || log "$tag: sockperf failed ($?)"
	sample "$out/$tag.samples" a1
	snap 1
	echo "g0: $tag done"
}

# tput PATH PROTO: iperf3 guest 0 -> guest 1
tput() {
	local path=$1 proto=$2 tag=tput.$1.$2 ip opt=() secs=$tput_s pid w

	ip=${paddr[$peer]}
	[ "$path" = pool ] || ip=${eaddr[$peer]}
	[ "$proto" = tcp ] || opt=(-u -l "$msg" -b 0) secs=$udp_s
	[ "$secs" -gt 0 ] || return 0
	echo "$tag" >>"$out/order"
	snap 0
	sample "$out/$tag.samples" a0
	timeout $((secs + 60)) iperf3 -c "$ip" "${opt[@]}" -t "$secs" -O 1 -J \
		>"$out/$tag.iperf3.json" 2>&1 &
	pid=$!
	w=$((secs - 1))
	if wait_traffic 50; then
		nap 1
		sample "$out/$tag.samples" w0
		nap "$w"
		sample "$out/$tag.samples" w1
	fi
	wait $pid || log "$tag: iperf3 failed ($?)"
	sample "$out/$tag.samples" a1
	snap 1
	echo "g0: $tag done"
}

# profile PATH: the UDP ping-pong and the TCP stream again, each with a
# window of perf in its steady part, ops counted on the path's device
profile() {
	local path=$1 ip=${paddr[$peer]} dev=$ifp pid

	[ "$1" = pool ] || ip=${eaddr[$peer]} dev=$nic
	taskset -c "$lat_cpu" sockperf pp -i "$ip" -p 11111 --msg-size "$msg" -t 30 \
		>/dev/null 2>&1 &
	pid=$!
	wait_traffic 20 && nap 0.5 && prof_window "$out/prof.$1.lat" $$ "$dev" rt
	kill $pid
	wait $pid
	iperf3 -c "$ip" -t 30 >/dev/null 2>&1 &
	pid=$!
	wait_traffic 50 && nap 1 && prof_window "$out/prof.$1.tput" $$ "$dev" MB
	kill -INT $pid
	wait $pid
	return 0
}

client() {
	local t0=$SECONDS

	poll "$boot_s" pings "${eaddr[$peer]}" || { log "no ping over $nic"; return 1; }
	poll 60 pings "${paddr[$peer]}" || { log "no ping over $ifp"; return 1; }
	poll 120 connects "${eaddr[$peer]}" 5998 || { log "guest 1 never served"; return 1; }
	echo "g0: peer up after $((SECONDS - t0)) s"
	lat pool udp
	lat virtio udp
	lat virtio tcp
	lat pool tcp
	lat virtio sparse
	lat pool sparse
	tput pool tcp
	tput virtio tcp
	tput virtio udp
	tput pool udp
	echo "g0: $((SECONDS - t0)) s of measurements"
	profile pool
	profile virtio
}

bye() {
	local rc=$?

	[ "$me" = 0 ] && { poll 30 send_done "$rc" || log "could not tell guest 1 we are done"; }
	teardown
	exit "$rc"
}

send_done() {
	echo "done $1" 2>/dev/null >"/dev/tcp/${eaddr[$peer]}/5999"
}

mkdir -p "$out" || exit 1
if [ "$me" = 0 ]; then
	{ echo "krel=$(uname -r)"; echo "hz=$(getconf CLK_TCK)"; echo "nproc=$(nproc)"
	  echo "lat_s=$lat_s"; echo "warm_s=$warm_s"; echo "tput_s=$tput_s"; echo "udp_s=$udp_s"
	  echo "msg=$msg"; echo "lat_cpu=$lat_cpu"; echo "nic=$nic"
	  echo "sparse_mps=$sparse_mps"; } >"$out/params"
fi
trap bye EXIT
setup || exit 1
if [ "$me" = 0 ]; then
	client || exit 1
else
	serve || exit 1
fi
exit 0
