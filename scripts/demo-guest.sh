#!/bin/bash
# The demo's guest half: runs inside the VM that scripts/demo.sh boots.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
export PATH=$top/tools/edmctl:$top/tools/edmop:$PATH
cd "$top"

step() {
	echo
	echo "\$ $*"
	"$@"
}

# iperf3 -s -1 -D in netns $1, listening within 2 s
iperf3_server() {
	ip netns exec "$1" iperf3 -s -1 -D
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		ip netns exec "$1" ss -ltn | grep -q ':5201' && return 0
		sleep 0.2
	done
	echo "iperf3 did not listen in $1" >&2
	return 1
}

echo "guest kernel: $(uname -r)"
step insmod "build/$(uname -r)/edm.ko"
step edmctl version
step edmctl dev add name demo0 type null
step edmctl -j dev show
step edmctl dev del name demo0

echo
echo "## NetDIMM: iperf3 over a pair of ndimm netdevs in two namespaces"
step edmctl netdimm add nd0 size 32M peer nd1
step ip netns add demo-a
step ip netns add demo-b
step ip link set nd0 netns demo-a
step ip link set nd1 netns demo-b
step ip -n demo-a addr add 10.77.0.1/24 dev nd0
step ip -n demo-b addr add 10.77.0.2/24 dev nd1
step ip -n demo-a link set nd0 up
step ip -n demo-b link set nd1 up
step ip netns exec demo-a ping -c 2 10.77.0.2
iperf3_server demo-b
step ip netns exec demo-a iperf3 -c 10.77.0.2 -t 3
step edmctl netdimm stats nd0
step edmctl netdimm zone show nd1
step edmctl netdimm del nd0
ip netns del demo-a
ip netns del demo-b

echo
echo "## DFabric rack: two compute nodes share a memory pool and pass references"
echo "## to it; iperf3 between them, then their counters. The pool's memory is the"
echo "## VM's NVDIMM, found by the kernel's own stack (ACPI NFIT, libnvdimm) and put"
echo "## in fsdax mode, as a CXL pmem region's namespace would be"
step modprobe nfit
step modprobe nd_pmem
udevadm settle
step ndctl create-namespace -f -e namespace0.0 -m fsdax -M mem
step edmctl pool create p0 size 128M dev /dev/pmem0
step edmctl rack create r0 pool p0
step edmctl rack add-cn r0 cna
step edmctl rack add-cn r0 cnb
step ip netns add demo-a
step ip netns add demo-b
step ip link set cna netns demo-a
step ip link set cnb netns demo-b
step ip -n demo-a addr add 10.77.1.1/24 dev cna
step ip -n demo-b addr add 10.77.1.2/24 dev cnb
step ip -n demo-a link set cna up
step ip -n demo-b link set cnb up
step ip netns exec demo-a ping -c 2 10.77.1.2
iperf3_server demo-b
step ip netns exec demo-a iperf3 -c 10.77.1.2 -t 3
step edmctl rack stats
# Each packet a CN sends is copied once, into a pool Buffer, and only its
# reference goes to the other CN, which builds its skb on that Buffer: no
# copy at RX. (A few packets sent before the peer was up are dropped.)
edmctl -j rack stats | jq -er '.[] | .name as $n | .stats |
	"\($n): \(.["tx-packets"]) packets sent, \(.copies) copies " +
	"(\(if .["tx-packets"] > 0 then .copies / .["tx-packets"] else 0 end) per packet), " +
	"\(.forwarded) references passed, \(.["rx-packets"]) received by reference"'
if ! edmctl -j rack stats | jq -e '(map(.stats) | all(.copies == .["tx-packets"] and
		.refused == 0)) and (map(.stats.forwarded) | add) == (map(.stats["rx-packets"]) |
		add)' >/dev/null; then
	echo "a compute node copied more than once per packet, or a reference went missing" >&2
	exit 1
fi
echo "## cnb with a DRAM cache (DFabric 4.6): what arrives is read into its lines, local"
echo "## pages, and its socket reads it there"
step edmctl rack set r0 cn cnb dcache-sets 16 dcache-ways 4 dcache-gran 131072
iperf3_server demo-b
step ip netns exec demo-a iperf3 -c 10.77.1.2 -t 2
edmctl -j rack stats | jq -er '.[] | select(.name == "cnb") | .stats |
	"cnb: \(.["dcache-misses"]) packets read into cache lines, \(.["dcache-hits"]) read " +
	"there by the socket, \(.["dcache-bypassed"]) shorter than min-len or longer than a " +
	"line, \(.["dcache-busy"]) finding every way of their set lent"'
if ! edmctl -j rack stats | jq -e '.[] | select(.name == "cnb") | .stats["dcache-hits"] > 0' \
		>/dev/null; then
	echo "cnb's socket read nothing from its DRAM cache" >&2
	exit 1
fi
step edmctl pool stats p0
step edmctl rack del r0
echo
echo "## Cowbird on the pool: a region of whole 2M Sections of p0, written and read"
echo "## through libcowbird's rings by the kernel engine, straight in pool memory"
step edmctl region create pool p0 size 2M
pkey=$(edmctl -j region key owner p0 | jq -er '.[0].key')
step tools/lib/cowbird/cowbird_demo 512 "$pkey" 0x2000
step edmctl -s region show 512
step edmctl region del 512
step edmctl pool del p0
ip netns del demo-a
ip netns del demo-b

echo
echo "## EDM fabric: a switch, a compute host and a memory host, built with edmctl;"
echo "## the compute host reads, writes and CASes the memory host's region"
step edmctl fabric add switch sw0 ports 4
step edmctl fabric add host cpu0 addr 1
step edmctl fabric add host mem0 addr 2 region 64k
step edmctl fabric link add cpu0 peer sw0:1
step edmctl fabric link add mem0 peer sw0:2
step edmctl fabric show
dev=/dev/edm$(edmctl -j fabric show cpu0 | jq -er '.[0].minor')
for _ in $(seq 50); do [ -c "$dev" ] && break; sleep 0.1; done
step edmop "$dev" write 2 0x100 str:hello-remote-memory
step edmop "$dev" read 2 0x100 19
step edmop "$dev" write 2 0x200 hex:0500000000000000
step edmop "$dev" cas 2 0x200 5 42
step edmop "$dev" cas 2 0x200 5 7
step edmop "$dev" read 2 0x200 8
step edmctl -s fabric show sw0

echo
echo "## Cowbird: a program writes and reads mem0's region through libcowbird's rings;"
echo "## the kernel engine carries each op over the EDM fabric from cpu0 (address 1),"
echo "## and edmop sees the same bytes"
step edmctl region show
key=$(edmctl -j region key 2 | jq -er '.[0].key')
echo "mem0's region key (edmctl -j region key 2): $key"
step tools/lib/cowbird/cowbird_demo 2 "$key" 0x1000 1
step edmop "$dev" read 2 0x1000 22
step edmctl -s cowbird show
echo
echo "## A rekey cuts the old key off; the bytes stay"
step edmctl region rekey 2
if tools/lib/cowbird/cowbird_demo 2 "$key" 0x1000 1; then
	echo "the old key still works: the demo fails" >&2
	exit 1
fi
echo "(the old key is refused, as it must be)"
step edmop "$dev" read 2 0x1000 22
step edmctl fabric del cpu0
step edmctl fabric del mem0
step edmctl fabric del sw0
step rmmod edm
echo
echo "demo done: edm.ko loaded, answered, carried iperf3 over NetDIMMs and between two"
echo "compute nodes of a DFabric rack by reference, read and CASed remote memory over the"
echo "EDM fabric, wrote and read it and a pool region through libcowbird, rekeyed a region,"
echo "and unloaded cleanly"
