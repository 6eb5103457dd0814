#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The guest half of tools/bench/cowbird/cowbird-shpool.sh: measurements
# only, the host formats them. Runs in both guests of selftests/vm/run
# --guests 2 --shmem 64M; both join the shared pool "cbp" (edm.ko loaded
# with cowbird_cpu=1) and bring up shp0 (10.85.0.1, .2).
#
#   guest 1  the Spot VM: a 64 MiB region at fabric address 2 of its own
#            memory; sends its key to guest 0 through shp0, then waits for
#            guest 0's "done".
#   guest 0  the compute node, app thread on CPU 0: per size in CBS_SIZES
#            (8 64), cowbird_bench -O with its own kernel engine (a local
#            64 MiB region, the engine's thread on CPU 1), with guest 1's
#            engine through the pool (COWBIRD_CREATE_SHPOOL), and io_uring
#            SQPOLL (its thread on CPU 1), CBS_OPS ops each, CBS_DEPTH in
#            flight, into $EDM_VM_OUT/cowbird-shpool/a-SIZE.txt.
# Anything that could not be set up says so in errors.txt there.
set -uo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
bin=$top/build/bench-cowbird
edmctl=$top/tools/edmctl/edmctl
xfer=$top/selftests/edm/xfer.py
out=${EDM_VM_OUT:-/tmp}/cowbird-shpool
ops=${CBS_OPS:-20000} depth=${CBS_DEPTH:-32}
read -ra sizes <<<"${CBS_SIZES:-8 64}"
me=${EDM_VM_GUEST:-0}
addr() { echo "10.85.0.$(($1 + 1))"; }

mkdir -p "$out" || exit 1
: >"$out/errors.txt"
fail() { echo "cowbird-shpool g$me: $*" | tee -a "$out/errors.txt" >&2; exit 1; }

insmod "$top/build/$(uname -r)/edm.ko" cowbird_cpu=1 || fail "insmod"
"$edmctl" shpool join cbp dev "$EDM_VM_SHMEM" >/dev/null || fail "shpool join"
ip addr add "$(addr "$me")/24" dev shp0 && ip link set shp0 up || fail "shp0"
cs=/sys/devices/system/clocksource/clocksource0/current_clocksource
echo "$(uname -r), $(nproc) vCPUs, clocksource $(cat $cs)" >"$out/cpu"

if [ "$me" = 1 ]; then
	"$edmctl" region create mem0 size 64M addr 2 >/dev/null || fail "region"
	"$edmctl" region key 2 >"$out/key" || fail "region key"
	for _ in $(seq 600); do ping -c 1 -W 1 -q "$(addr 0)" >/dev/null 2>&1 && break; done
	python3 "$xfer" send "$(addr 0)" 6101 "$out/key" || fail "sending the key"
	python3 "$xfer" recv 6102 "$out/done" idle=3000 || fail "no done from guest 0"
	"$edmctl" -s shpool stats cbp >"$out/shpool-stats"
	exit 0
fi

python3 "$xfer" recv 6101 "$out/rkey" || fail "no key from guest 1"
"$edmctl" fabric add host cbmn addr 2 region 64M || fail "local region"
lkey=$(awk '$3 == "cbmn" { print $5 }' /sys/kernel/debug/edm/cowbird_regions)
id=$("$edmctl" -j shpool show cbp | jq '.[0].id')
via=$("$edmctl" -j shpool show cbp | jq '[.[0].hosts[] | select(.self | not)][0].slot')
rkey=$(cat "$out/rkey")
echo "# guest 1's region: key $rkey, host slot $via; our membership $id" >"$out/setup"
for s in "${sizes[@]}"; do
	cat "$out/setup" >"$out/a-$s.txt"
	"$bin/cowbird_bench" -O -s "$s" -n "$ops" -d "$depth" -c 0 -C 1 -k "2:$lkey" \
		-x "2:$rkey:$id:$via" -e kernel,shpool,uring >>"$out/a-$s.txt" ||
		echo "cowbird_bench -s $s failed" >>"$out/errors.txt"
done
"$edmctl" -s shpool stats cbp >"$out/shpool-stats"
echo done >"$out/done"
python3 "$xfer" send "$(addr 1)" 6102 "$out/done" || echo "could not tell guest 1" >>"$out/errors.txt"
"$edmctl" shpool leave cbp
"$edmctl" fabric del cbmn
rmmod edm
[ -s "$out/errors.txt" ] && exit 1
exit 0
