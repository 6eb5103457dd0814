#!/bin/bash
# The demo's shared-pool half: runs in both guests that scripts/demo.sh
# boots on one ivshmem file. Each kernel joins the pool; guest 0 pings and
# runs iperf3 to guest 1 through it, and shows who holds what. Then
# Cowbird across kernels: guest 1 makes a region and sends guest 0 its key
# through the pool's netdev, and guest 0's cowbird_demo writes and reads
# it with guest 1's engine serving its rings in pool memory. Only guest
# 0's lines are shown (scripts/demo.sh filters on "[g0] ").
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
export PATH=$top/tools/edmctl:$PATH
cd "$top"
me=$EDM_VM_GUEST
peer=10.84.0.$((2 - me))

step() {
	echo
	echo "\$ $*"
	"$@"
}

# wait SECS CMD...: until CMD succeeds, bounded (the guests boot at their own pace)
wait_for() {
	local deadline=$((SECONDS + $1))

	shift
	until "$@" >/dev/null 2>&1; do
		[ $SECONDS -lt $deadline ] || { echo "timed out waiting for: $*" >&2; return 1; }
		sleep 0.2
	done
}

two_live() {
	[ "$(edmctl -j shpool show rack0 | jq '[.[0].hosts[] | select(.state == "live")] | length')" = 2 ]
}

guest0_gone() {
	edmctl -j shpool show rack0 |
		jq -e '[.[0].hosts[] | select(.name == "edm-vm0" and .state == "live")] | length == 0'
}

step insmod "build/$(uname -r)/edm.ko"
step edmctl shpool join rack0 dev "$EDM_VM_SHMEM"
step ip addr add "10.84.0.$((me + 1))/24" dev shp0
step ip link set shp0 up
wait_for 120 two_live
xfer=selftests/edm/xfer.py
if [ "$me" = 1 ]; then
	iperf3 -s -1 >/dev/null
	edmctl region create mem0 size 1M addr 2 >/dev/null
	edmctl region key 2 >/tmp/key
	python3 "$xfer" send "$peer" 6201 /tmp/key
	# guest 0 leaves first, so its last "show" still sees us
	wait_for 300 guest0_gone
else
	python3 "$xfer" recv 6201 /tmp/key &
	step edmctl shpool show rack0
	wait_for 60 ping -c 1 -W 1 "$peer"
	step ping -c 3 "$peer"
	wait_for 60 sh -c "iperf3 -c $peer -t 3 >/tmp/iperf.log && cat /tmp/iperf.log"
	tail -4 /tmp/iperf.log
	step edmctl -s shpool show rack0
	wait
	id=$(edmctl -j shpool show rack0 | jq '.[0].id')
	via=$(edmctl -j shpool show rack0 | jq '[.[0].hosts[] | select(.self | not)][0].slot')
	echo
	echo "# Cowbird across kernels: guest 1 (slot $via) serves region 2 of its memory;"
	echo "# this guest's rings are pool Buffers, its CPUs do no engine work."
	echo "# cowbird_demo REGION KEY OFFSET ENGINE-SLOT MEMBERSHIP-ID:" 
	step tools/lib/cowbird/cowbird_demo 2 "$(cat /tmp/key)" 0x1000 "$via" "$id"
	step edmctl -s shpool stats rack0
fi
step edmctl shpool leave rack0
step rmmod edm
