#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The guest half of fabric_soak.sh: builds the fabric with edmctl (compute
# hosts at addresses 1..C, memory hosts at C+1..C+M with 4 MiB keyed
# regions, all on emulated links to one switch), runs fabric_stress, with
# the regions' keys, on all compute hosts
# at once, and prints its counts and the fabric's. Exits non-zero on any
# mismatch, timeout, error or switch drop.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
edmctl=$top/tools/edmctl/edmctl
stress=$top/selftests/edm/fabric_stress
nc=${FSOAK_COMPUTE:-4} nm=${FSOAK_MEMORY:-3} threads=${FSOAK_THREADS:-4}
region=$((4 << 20))

insmod "$top/build/$(uname -r)/edm.ko" || exit 1
"$edmctl" fabric add switch sw ports $((nc + nm + 1)) policy "${FSOAK_POLICY:-srpt}" >/dev/null
devs= mems= keys=
for i in $(seq 1 "$nc"); do
	"$edmctl" fabric add host c$i addr "$i" timeout 30000 >/dev/null
	"$edmctl" fabric link add "sw:$i" peer c$i >/dev/null
	devs=$devs${devs:+,}/dev/edm$("$edmctl" -j fabric show c$i | jq -er '.[0].minor')
done
for i in $(seq 1 "$nm"); do
	a=$((nc + i))
	"$edmctl" fabric add host m$i addr "$a" region "$region" keyed >/dev/null
	"$edmctl" fabric link add "sw:$a" peer m$i >/dev/null
	mems=$mems${mems:+,}$a
	keys=$keys${keys:+,}$("$edmctl" region key "$a") || exit 1
done
args=(run --threads "$threads" --dev "$devs" --mem "$mems" --keys "$keys" --region "$region"
      --counters-exact)
if [ -n "${FSOAK_OPS:-}" ]; then
	args+=(--ops "$FSOAK_OPS")
else
	args+=(--seconds "${FSOAK_SECONDS:-300}")
fi
echo "# fabric soak: $nc compute x $nm memory hosts, $threads threads each," \
     "policy ${FSOAK_POLICY:-srpt}: fabric_stress ${args[*]}"
t0=$SECONDS
"$stress" "${args[@]}"
rc=$?
echo "# fabric soak: $((SECONDS - t0)) s"
# what the fabric itself counted
drops=$("$edmctl" -j fabric stats sw | jq -er '.[0].stats.drops')
"$edmctl" -s -j fabric show | jq -r '.[] | select(.type == "host") |
	"# \(.name): reads \(.stats.reads) writes \(.stats.writes) rmws \(.stats.rmws)" +
	" timeouts \(.stats.timeouts) errors \(.stats.errors) stray \(.stats.stray)"'
timeouts=$("$edmctl" -s -j fabric show | jq '[.[] | select(.type == "host") | .stats.timeouts] | add')
echo "fabric soak: switch drops $drops, host timeouts $timeouts"
[ "$drops" -eq 0 ] && [ "$timeouts" -eq 0 ] || rc=1
for i in $(seq 1 "$nc"); do "$edmctl" fabric del c$i; done
for i in $(seq 1 "$nm"); do "$edmctl" fabric del m$i; done
"$edmctl" fabric del sw
rmmod edm || rc=1
exit $rc
