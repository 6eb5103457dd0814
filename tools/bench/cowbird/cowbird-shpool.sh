#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Cowbird across kernels (Documentation/pool.md, "Cowbird across kernels"):
# what a remote read costs the compute node's CPUs when the offload engine
# runs in another guest (the paper's Spot VM), against edm's kernel engine
# in the compute node's own kernel and against io_uring with SQPOLL. One
# VM run, two guests on one shared pool (selftests/vm/run --guests 2
# --shmem 64M); the guest half is cowbird-shpool-guest.sh. Not part of
# make check.
#
# Per size (8 and 64 B reads at random offsets of a 64 MiB region, 32 in
# flight) and contender, in guest 0 (the compute node):
#   issue+reap ns   the app thread's own work per op (libcowbird's
#                   async_read + poll_add and poll_wait; liburing's SQE and
#                   CQE handling)
#   helper ns       the compute guest's CPU outside the app thread per op
#                   (/proc/stat busy time less the app thread's): the
#                   kernel engine's thread, io_uring's SQPOLL thread, or
#                   for the cross-guest engine what is left (the pool's
#                   export work and netdev polling)
#   compute ns      the two added: the compute node's CPU per remote op
#   wall ns         per op, the engine's speed included
# and the ratios of the cross-guest engine's compute ns to the others'.
# Instructions per op are n/a: TCG gives the guest no PMU.
#
#   tools/bench/cowbird/cowbird-shpool.sh [-n OPS] [-o DIR]
#   tools/bench/cowbird/cowbird-shpool.sh --report DIR
#
# Default 100000 ops per contender (CBS_OPS): /proc/stat counts in ticks of
# 10 ms, so the helper column needs a run of seconds. Raw output in DIR (default a
# new /tmp/cowbird-shpool.XXXXXX), guest0/cowbird-shpool/a-SIZE.txt.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
ops=${CBS_OPS:-100000} out='' report=''

usage() {
	echo "usage: $0 [-n OPS] [-o DIR] | --report DIR" >&2
	exit 2
}

# format FILE TITLE: the rows, compute ns = issue+reap + helper, and ratios.
format() {
	awk -v title="$2" '
	/^#/ { notes = notes $0 "\n"; next }
	NF == 6 { n++; name[n] = $1; cpu[n] = $3; wall[n] = $5; hlp[n] = $6
		  cs[n] = $3 + ($6 == "-" ? 0 : $6); if ($1 == "cowbird/shpool") x = n }
	function ratio(a, b) { return b > 0 ? sprintf("%.3f", a / b) : "n/a" }
	END {
		printf "%s\n%s", title, notes
		printf "%-18s %14s %10s %11s %10s\n", "contender", "issue+reap ns", "helper ns",
			"compute ns", "wall ns"
		for (i = 1; i <= n; i++)
			printf "%-18s %14s %10s %11.1f %10s\n", name[i], cpu[i], hlp[i], cs[i],
				wall[i]
		if (!x) {
			print "  (no cowbird/shpool row: see errors.txt)"
			exit
		}
		print "compute-node CPU per op, cross-guest engine / other:"
		for (i = 1; i <= n; i++)
			if (i != x)
				printf "  cowbird/shpool / %-16s %s (app thread alone: %s)\n",
					name[i], ratio(cs[x], cs[i]), ratio(cpu[x], cpu[i])
	}' "$1"
}

report() {
	local d=$1/guest0/cowbird-shpool f

	echo "VM: $(cat "$d/cpu" 2>/dev/null)"
	for f in "$d"/a-*.txt; do
		[ -e "$f" ] || { echo "no results in $d"; break; }
		s=${f##*/a-}
		format "$f" "== ${s%.txt} B reads"
	done
	for f in "$d/errors.txt" "$1/guest1/cowbird-shpool/errors.txt"; do
		[ -s "$f" ] && { echo "errors ($f):"; cat "$f"; }
	done
	cat "$1/host" 2>/dev/null
}

while [ $# -gt 0 ]; do
	case $1 in
	-n) ops=$2; shift ;;
	-o) out=$2; shift ;;
	--report) report=$2; shift ;;
	*) usage ;;
	esac
	shift
done
if [ -n "$report" ]; then
	report "$report"
	exit
fi

cd "$top"
scripts/deps.sh
krel=$(scripts/krel.sh --vm)
make -s module KREL="$krel"
make -s edmctl
make -s -C tools/bench/cowbird
[ -n "$out" ] || out=$(mktemp -d /tmp/cowbird-shpool.XXXXXX)
mkdir -p "$out"
out=$(cd "$out" && pwd)
load0=$(cut -d' ' -f1-3 /proc/loadavg)
status=0
echo "VM: booting two guests of $krel (TCG when there is no KVM: a few minutes)" >&2
# tsc=reliable: see cowbird.sh (HPET reads are microseconds under TCG)
selftests/vm/run --kernel-release "$krel" --guests 2 --shmem 64M --out "$out" \
	--timeout 1500 --append tsc=reliable --env CBS_OPS="$ops" \
	-- tools/bench/cowbird/cowbird-shpool-guest.sh >"$out/run.log" 2>&1 || status=$?
[ $status -eq 0 ] || echo "VM run failed ($status): $out/run.log" >&2
echo "host: tree $(git describe --always --dirty 2>/dev/null || echo '?'), $(nproc) CPUs;" \
	"load average $load0 before, $(cut -d' ' -f1-3 /proc/loadavg) after" >"$out/host"
report "$out" | tee "$out/summary.txt"
echo "raw output: $out" >&2
exit $status
