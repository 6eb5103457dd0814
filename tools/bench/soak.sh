#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Soak: mixed load on every edm subsystem present, for a given time, in the
# VM, with every result checked; then edm.ko is unloaded while the load is
# still running. Prints the counts: operations, objects verified,
# mismatches, splats. Not part of make check.
#   tools/bench/soak.sh [-m MINUTES] [-k debian|debug] [-w WORKERS]
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
minutes=5 kernel=debian workers=4
while getopts "m:k:w:" o; do
	case $o in
	m) minutes=$OPTARG ;;
	k) kernel=$OPTARG ;;
	w) workers=$OPTARG ;;
	*) echo "usage: $0 [-m MINUTES] [-k debian|debug] [-w WORKERS]" >&2; exit 2 ;;
	esac
done

cd "$top"
source tools/bench/vm.sh
bench_vm "$kernel" $((minutes * 60 + 600))
"${vm[@]}" --env SOAK_SECONDS=$((minutes * 60)) --env SOAK_WORKERS="$workers" \
	-- tools/bench/soak-guest.sh
