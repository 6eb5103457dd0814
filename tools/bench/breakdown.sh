#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The cost breakdown of a netdev benchmark, as Markdown for its
# breakdown.md (tools/bench/report.py puts it under the benchmark's rows).
#
#   tools/bench/breakdown.sh [-w WHOSE] DIR TAG [TAG ...]
#
# For each phase, lat (a ping-pong, per round trip) and tput (a TCP stream,
# per MB sent), one table whose columns are the TAGs that have
# DIR/TAG.PHASE.perf.txt and DIR/TAG.PHASE.ops, as the guests'
# profile-guest.sh windows write them: tools/bench/stages.py's stages in
# microseconds of CPU, all CPUs together. A column is named by its TAG
# without "intra." or "prof." before it and ".r1" after it. WHOSE says whose
# CPU that is (default "both ends").
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
whose="both ends"
[ "$1" != -w ] || { whose=$2; shift 2; }
d=$1
shift

for phase in lat tput; do
	args=() cols=() c=
	for tag in "$@"; do
		[ -s "$d/$tag.$phase.perf.txt" ] && [ -s "$d/$tag.$phase.ops" ] || continue
		args+=(--ops "$(cat "$d/$tag.$phase.ops")")
		c=${tag%.r1} c=${c#intra.} c=${c#prof.}
		cols+=("$c=$d/$tag.$phase.perf.txt")
	done
	[ ${#cols[@]} -gt 0 ] || continue
	case $phase in
	lat) unit="round trip" what="the ping-pong: CPU per round trip, $whose" ;;
	tput) unit="MB sent" what="the TCP stream: CPU per MB sent, $whose" ;;
	esac
	echo "Where the CPU goes in $what (perf cpu-clock in the guest, a 2 s window, round 1):"
	echo
	"$top/tools/bench/stages.py" --md --unit "$unit" "${args[@]}" "${cols[@]}"
	echo
done
