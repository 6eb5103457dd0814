#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The guest half of tools/bench/cowbird/cowbird.sh: measurements only, the
# host formats them. Runs in the VM that selftests/vm/run boots.
#
#   edm.ko   loaded with cowbird_cpu=1 (the kernel engine's thread on CPU 1;
#            every app thread runs on CPU 0, the stand-in's on CPU 1);
#            a fabric memory host "cbmn" at address 2 serving a CBB_REGION
#            (64M) region, its key read from debugfs edm/cowbird_regions.
#   rxe      one veth pair, veth0 10.89.1.1/24 and veth1, and one Soft-RoCE
#            device rxe0 on veth0 in the initial netns (where rxe works in
#            6.1); cowbird_verbs connects two QPs of rxe0 to each other
#            through its own RoCE v2 GID, so rxe loops the packets back.
#   (a)      per size in CBB_SIZES (8 64): cowbird_bench with the stand-in,
#            the kernel engine and io_uring SQPOLL, then cowbird_verbs, each
#            CBB_OPS ops, CBB_DEPTH in flight, into $out/a-SIZE.txt;
#   (b)      per size: cowbird_probe, all local, then 95% remote through the
#            kernel engine, then through the stand-in, CBB_PROBES probes of
#            CBB_RECORDS records, into $out/b-SIZE.txt.
#   (c)      per size: the kernel engine reading cbmn's region through the
#            fabric (COWBIRD_CREATE_FABRIC, via compute host cbcn at address
#            1, cbcn - switch cbsw - cbmn over soft links), then edmop's
#            reads from cbcn's /dev/edm at the same depth, CBB_FAB_OPS ops
#            (20000) each, CBB_FAB_REPS (3) times, which goes first
#            alternating, into $out/c-SIZE.txt.
#   (d)      cowbird_kv, a key-value store on a hybrid log, 64 B records,
#            CBB_KV_RECORDS (262144) of them, 5% in the local tail,
#            CBB_KV_OPS (300000) ops, on local memory, through the kernel
#            engine, io_uring SQPOLL and ibverbs over rxe0, into
#            $out/d-b.txt (YCSB-B: 95% reads, zipfian) and $out/d-c.txt
#            (reads only, uniform keys).
#   profile  for 64 B, the probe on local memory, the probe through the
#            kernel engine, (c)'s Cowbird reads and (c)'s edmop reads again,
#            each for about 8 s at the rate just measured, with a window of
#            perf in the middle (profile-guest.sh): $out/prof.NAME.perf.txt
#            (NAME probe-local, probe-kernel, fab-cowbird, fab-edmop).
# Anything that could not be set up says so in $out/errors.txt.
set -uo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
bin=$top/build/bench-cowbird
edmctl=$top/tools/edmctl/edmctl
out=${CBB_OUT:-${EDM_VM_OUT:-/tmp}/cowbird}
ops=${CBB_OPS:-100000} depth=${CBB_DEPTH:-32} probes=${CBB_PROBES:-500000}
records=${CBB_RECORDS:-1048576} region=${CBB_REGION:-64M}
read -ra sizes <<<"${CBB_SIZES:-8 64}"
fab_ops=${CBB_FAB_OPS:-20000} fab_reps=${CBB_FAB_REPS:-3}
kv_records=${CBB_KV_RECORDS:-262144} kv_ops=${CBB_KV_OPS:-300000}

log() { echo "cowbird-bench: $*" | tee -a "$out/errors.txt" >&2; }

# fab_cowbird OPS, fab_edmop OPS: (c)'s two sides, OPS reads of $s bytes,
# their figures on stdout
fab_cowbird() {
	"$bin/cowbird_bench" -s "$s" -n "$1" -d "$depth" -c 0 -C 1 -k "2:$key@1" -e kernel ||
		log "cowbird_bench over the fabric -s $s failed"
}

fab_edmop() {
	taskset -c 0 "$top/tools/edmop/edmop" -j "$fdev" bench 2 read "$s" "$1" depth "$depth" ||
		log "edmop bench -s $s failed"
}
. "$top/tools/bench/profile-guest.sh"

edm_setup() {
	insmod "$top/build/$(uname -r)/edm.ko" cowbird_cpu=1 || return 1
	"$edmctl" fabric add host cbmn addr 2 region "$region" || return 1
	key=$(awk '$3 == "cbmn" { print $5 }' /sys/kernel/debug/edm/cowbird_regions)
	[ -n "$key" ] || return 1
	echo "# kernel engine:" $(cd /sys/module/edm/parameters &&
		for p in cowbird_*; do echo "$p=$(cat "$p")"; done) >"$out/engine"
}

# (c)'s fabric: compute host cbcn, a switch, and cbmn; cbcn's /dev/edm in $fdev.
fab_setup() {
	local minor

	"$edmctl" fabric add switch cbsw ports 4 && "$edmctl" fabric add host cbcn addr 1 &&
		"$edmctl" fabric link add cbcn peer cbsw:1 &&
		"$edmctl" fabric link add cbsw:2 peer cbmn || return 1
	minor=$("$edmctl" -j fabric show cbcn | jq -er '.[0].minor') || return 1
	fdev=/dev/edm$minor
	for _ in $(seq 50); do
		[ -c "$fdev" ] && return 0
		sleep 0.1
	done
	return 1
}

# rxe0 on veth0, up once its port has an IPv4 RoCE v2 GID.
rxe_setup() {
	local g

	modprobe veth && modprobe crc32_generic && modprobe rdma_rxe || return 1
	ip link add veth0 type veth peer name veth1 &&
		ip addr add 10.89.1.1/24 dev veth0 &&
		ip link set veth0 up && ip link set veth1 up &&
		rdma link add rxe0 type rxe netdev veth0 || return 1
	for _ in $(seq 100); do
		for g in /sys/class/infiniband/rxe0/ports/1/gids/*; do
			case $(cat "$g" 2>/dev/null) in
			0000:0000:0000:0000:0000:ffff:*) return 0 ;;
			esac
		done
		sleep 0.1
	done
	return 1
}

cleanup() {
	rdma link del rxe0 2>/dev/null
	ip link del veth0 2>/dev/null
	"$edmctl" fabric del cbcn 2>/dev/null
	"$edmctl" fabric del cbsw 2>/dev/null
	"$edmctl" fabric del cbmn 2>/dev/null
	[ -d /sys/module/edm ] && { rmmod edm || log "edm.ko would not unload"; }
	return 0
}

mkdir -p "$out" || exit 1
: >"$out/errors.txt"
cs=/sys/devices/system/clocksource/clocksource0/current_clocksource
echo "$(uname -r), $(nproc) vCPUs,$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)," \
	"clocksource $(cat $cs)" >"$out/cpu"
trap cleanup EXIT
kernel=
if edm_setup; then
	kernel="-k 2:$key"
else
	log "edm.ko or the memory host could not be set up: no kernel-engine rows"
fi
fab=0
[ -z "$kernel" ] || { fab_setup && fab=1; } || log "no fabric for (c): no fabric rows"
rxe=1
rxe_setup || { log "rxe0 could not be set up: no ibverbs row"; rxe=0; }
t0=$SECONDS
for s in "${sizes[@]}"; do
	f=$out/a-$s.txt
	cat "$out/engine" >"$f" 2>/dev/null
	"$bin/cowbird_bench" -s "$s" -n "$ops" -d "$depth" -c 0 -C 1 $kernel -O \
		-e "standin${kernel:+,kernel},uring" >>"$f" || log "cowbird_bench -s $s failed"
	[ $rxe -eq 0 ] || "$bin/cowbird_verbs" -D rxe0 -s "$s" -n "$ops" -d "$depth" -c 0 >>"$f" ||
		log "cowbird_verbs -s $s failed"
	cat "$out/engine" >"$out/b-$s.txt" 2>/dev/null
	"$bin/cowbird_probe" -s "$s" -N "$records" -n "$probes" -c 0 -C 1 $kernel \
		-e "local${kernel:+,kernel},standin" >>"$out/b-$s.txt" ||
		log "cowbird_probe -s $s failed"
	if [ $fab -eq 1 ]; then
		f=$out/c-$s.txt
		for ((rep = 1; rep <= fab_reps; rep++)); do
			if ((rep % 2)); then
				fab_cowbird "$fab_ops"; fab_edmop "$fab_ops"
			else
				fab_edmop "$fab_ops"; fab_cowbird "$fab_ops"
			fi
		done >"$f"
	fi
	echo "cowbird-bench: $s B done, $((SECONDS - t0)) s so far" >&2
done

for w in b c; do
	f=$out/d-$w.txt
	cat "$out/engine" >"$f" 2>/dev/null
	wl=(-r 95)
	[ $w = b ] || wl=(-r 100 -u)
	"$bin/cowbird_kv" -s 64 -N "$kv_records" -n "$kv_ops" "${wl[@]}" -c 0 -C 1 $kernel \
		-D rxe0 -e "local${kernel:+,kernel},uring$([ $rxe -eq 0 ] || echo ,verbs)" >>"$f" ||
		log "cowbird_kv (d-$w) failed"
done
echo "cowbird-bench: the key-value store done, $((SECONDS - t0)) s so far" >&2

# n OPS_PER_SEC: the ops of an 8 s run at that rate (at least 1000)
n8() { awk -v r="$1" 'BEGIN { n = int(r * 8); print (n < 1000 ? 1000 : n) }'; }

s=64 b=$out/b-64.txt c=$out/c-64.txt
if [ "${PROF:-1}" = 1 ] && [ -n "$kernel" ] && [ -s "$b" ]; then
	prof_during "$out/prof.probe-local" 1 "$bin/cowbird_probe" -s $s -N "$records" \
		-n "$(n8 "$(awk '$1 == "local/64B" { print $2 }' "$b")")" -c 0 -C 1 $kernel -e local
	prof_during "$out/prof.probe-kernel" 1 "$bin/cowbird_probe" -s $s -N "$records" \
		-n "$(n8 "$(awk '$1 == "cowbird-kernel/64B" { print $2 }' "$b")")" -c 0 -C 1 \
		$kernel -e kernel
fi
if [ "${PROF:-1}" = 1 ] && [ $fab -eq 1 ] && [ -s "$c" ]; then
	# each side at the rate of its last run in (c)
	prof_during "$out/prof.fab-cowbird" 1 fab_cowbird \
		"$(n8 "$(awk '$1 == "cowbird/fabric" && $5 > 0 { r = 1e9 / $5 } END { print r }' "$c")")"
	prof_during "$out/prof.fab-edmop" 1 fab_edmop "$(n8 "$(awk -F'"ops_per_sec":' \
		'NF > 1 { split($2, a, ","); r = a[1] } END { print r }' "$c")")"
fi
echo "cowbird-bench: $((SECONDS - t0)) s with the profiles" >&2
