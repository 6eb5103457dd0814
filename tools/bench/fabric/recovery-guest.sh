#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The guest half of recovery.sh: measurements only. A switch "sw", a
# memory host "mn" (addr 2, 1 MiB) and three compute hosts on emulated
# links: "cf" (addr 1) with a fixed op timeout (timeout 100, timeout-min
# 100000 us: every op waits 100 ms, the only timeout before they followed
# the RTT), "cr" (addr 3) with the defaults (timeout 100, so timeout-min
# 25000: four RTTs, at least 25 ms) and "ct" (addr 4) with timeout-min
# 1000 (four RTTs, at least 1 ms). Per round, in rotating order, the
# recovery program reads FRB_LEN bytes from mn through each, FRB_LOSSES
# losses, one every FRB_EVERY reads (edmctl spoils mn's next two blocks).
# Files in $EDM_VM_OUT/recovery: HOST.r<round>.txt (the program's line),
# fabric.txt, stats.txt (the counters after), kernel, errors.txt.
set -uo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
edmctl=$top/tools/edmctl/edmctl
prog=$top/build/bench-fabric/recovery
out=${EDM_VM_OUT:-/tmp}/recovery
rounds=${FRB_ROUNDS:-3} losses=${FRB_LOSSES:-20} every=${FRB_EVERY:-50} len=${FRB_LEN:-64}

mkdir -p "$out" || exit 1
: >"$out/errors.txt"
fail() { echo "recovery: $*" | tee -a "$out/errors.txt" >&2; exit 1; }

insmod "$top/build/$(uname -r)/edm.ko" || fail "insmod"
"$edmctl" fabric add switch sw ports 8 >/dev/null || fail "switch"
"$edmctl" fabric add host mn addr 2 region 1m >/dev/null || fail "mn"
"$edmctl" fabric add host cf addr 1 timeout 100 timeout-min 100000 >/dev/null || fail "cf"
"$edmctl" fabric add host cr addr 3 timeout 100 >/dev/null || fail "cr"
"$edmctl" fabric add host ct addr 4 timeout 100 timeout-min 1000 >/dev/null || fail "ct"
for h in mn:2 cf:1 cr:3 ct:4; do
	"$edmctl" fabric link add "${h%:*}" peer "sw:${h#*:}" >/dev/null || fail "link $h"
done
"$edmctl" fabric show >"$out/fabric.txt"
uname -r >"$out/kernel"
minor() { "$edmctl" -j fabric show "$1" | jq -r '.[0].minor'; }

for ((r = 0; r < rounds; r++)); do
	case $((r % 3)) in
	0) order="cf cr ct" ;;
	1) order="cr ct cf" ;;
	*) order="ct cf cr" ;;
	esac
	for h in $order; do
		"$prog" -d "/dev/edm$(minor "$h")" -t 2 -l "$len" -n "$losses" -e "$every" -- \
			"$edmctl" fabric link set mn corrupt 2 >"$out/$h.r$r.txt" 2>>"$out/errors.txt" ||
			echo "recovery: $h round $r failed" >>"$out/errors.txt"
	done
done
"$edmctl" -s fabric show >"$out/stats.txt"
