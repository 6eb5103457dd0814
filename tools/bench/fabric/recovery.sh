#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Recovery after a loss (issue 25), in one VM run: what one lost answer
# costs a /dev/edm application that submits a read again when it times
# out, with the op timeout fixed at 100 ms (as every host had before op
# timeouts followed the RTT), with the defaults (four measured RTTs, at
# least 25 ms) and with a 1 ms floor, side by side, and the ratios. The
# guest half, recovery-guest.sh, says how. Not part of make check.
#
#   tools/bench/fabric/recovery.sh [-o DIR]
#
# FRB_ROUNDS (3), FRB_LOSSES (20 per round), FRB_EVERY (a loss every 50
# reads) and FRB_LEN (64 B) go to the guest. About two minutes under TCG.
set -euo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
out=
while getopts "o:" o; do
	case $o in
	o) out=$OPTARG ;;
	*) echo "usage: $0 [-o DIR]" >&2; exit 2 ;;
	esac
done
[ -n "$out" ] || out=$(mktemp -d /tmp/fabric-recovery.XXXXXX)
mkdir -p "$out"

cd "$top"
source tools/bench/vm.sh
bench_vm debian 900
make -s -C tools/bench/fabric
envs=()
for v in FRB_ROUNDS FRB_LOSSES FRB_EVERY FRB_LEN; do
	[ -z "${!v:-}" ] || envs+=(--env "$v=${!v}")
done
"${vm[@]}" --out "$out" "${envs[@]}" -- tools/bench/fabric/recovery-guest.sh

d=$out/recovery
[ ! -s "$d/errors.txt" ] || { echo "guest errors:"; cat "$d/errors.txt"; }
# key=value lines -> per host: the median over rounds of each figure
med() {
	cat "$d/$1".r*.txt 2>/dev/null | tr ' ' '\n' | awk -F= -v k="$2" '$1 == k { print $2 }' |
		sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "-" }'
}
{
	echo "fabric recovery after a lost answer, $(date -u +%F), guest $(cat "$d/kernel" 2>/dev/null)"
	echo "(medians over rounds; timeouts: all ops that timed out, one per loss expected;"
	echo " reads/s over the whole run, losses and the spoiling included)"
	printf '%-24s %14s %14s %12s %9s %9s\n' "op timeout" "recovery p50" "recovery max" \
		"read p50" "timeouts" "reads/s"
	for h in cf cr ct; do
		case $h in
		cf) name="fixed 100 ms" ;;
		cr) name="4 RTT, >= 25 ms (dflt)" ;;
		ct) name="4 RTT, >= 1 ms" ;;
		esac
		printf '%-24s %11s us %11s us %9s us %9s %9s\n' "$name" "$(med $h recovery_p50_us)" \
			"$(med $h recovery_max_us)" "$(med $h read_p50_us)" "$(med $h timeouts)" \
			"$(med $h reads_per_s)"
	done
	f=$(med cf recovery_p50_us)
	for h in cr ct; do
		r=$(med $h recovery_p50_us)
		if [ "$f" != - ] && [ "$r" != - ] && [ "$r" -gt 0 ]; then
			echo "recovery p50, fixed / $h: $(awk -v f="$f" -v r="$r" \
				'BEGIN { printf "%.1fx", f / r }')"
		fi
	done
} | tee "$d/summary.txt"
