#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fabric soak (issue 17): selftests/edm/fabric_stress's checked workload on
# an EDM fabric of C compute hosts and M memory hosts (4 x 3 by default, keyed) on
# one switch, in the VM, for a given time or number of ops. Every read and
# RMW result is checked against the program's shadow model; the shared
# counters' final values are checked exactly. Prints ops, verified ops,
# mismatches, timeouts and errors, then the fabric's own counters (switch
# drops, host timeouts and strays). Not part of make check.
#   tools/bench/fabric_soak.sh [-m MINUTES | -n OPS] [-k debian|debug] [-c C] [-M M]
#                              [-t THREADS] [-p srpt|fcfs]
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
minutes=5 ops= kernel=debian ncomp=4 nmem=3 threads=4 policy=srpt
while getopts "m:n:k:c:M:t:p:" o; do
	case $o in
	m) minutes=$OPTARG ;;
	n) ops=$OPTARG ;;
	k) kernel=$OPTARG ;;
	c) ncomp=$OPTARG ;;
	M) nmem=$OPTARG ;;
	t) threads=$OPTARG ;;
	p) policy=$OPTARG ;;
	*) echo "usage: $0 [-m MINUTES | -n OPS] [-k debian|debug] [-c C] [-M M] [-t THREADS]" \
		"[-p srpt|fcfs]" >&2; exit 2 ;;
	esac
done

cd "$top"
# the VM's bound: the time asked, or an hour for a count of ops
limit=$((minutes * 60 + 600))
[ -z "$ops" ] || limit=3600
source tools/bench/vm.sh
bench_vm "$kernel" "$limit"
"${vm[@]}" --env FSOAK_SECONDS=$((minutes * 60)) --env FSOAK_OPS="$ops" \
	--env FSOAK_COMPUTE="$ncomp" --env FSOAK_MEMORY="$nmem" --env FSOAK_THREADS="$threads" \
	--env FSOAK_POLICY="$policy" -- tools/bench/fabric_soak-guest.sh
