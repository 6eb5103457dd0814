#!/bin/bash
# The demo's guest half: runs inside the VM that scripts/demo.sh boots.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
export PATH=$top/tools/edmctl:$PATH
cd "$top"

step() {
	echo
	echo "\$ $*"
	"$@"
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
ip netns exec demo-b iperf3 -s -1 -D
# the server needs a moment to listen; retry the client until it connects
for _ in 1 2 3 4 5 6 7 8 9 10; do
	ip netns exec demo-b ss -ltn | grep -q ':5201' && break
	sleep 0.2
done
step ip netns exec demo-a iperf3 -c 10.77.0.2 -t 3
step edmctl netdimm stats nd0
step edmctl netdimm zone show nd1
step edmctl netdimm del nd0
ip netns del demo-a
ip netns del demo-b
step rmmod edm
echo
echo "demo done: edm.ko loaded, answered, carried iperf3 over NetDIMMs, and unloaded cleanly"
