#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: every benchmark of tools/bench once, at its own defaults (the
# rounds each one's header names), one VM boot each (a single guest, two for
# the shared pool), after the machine's physical floor (tools/bench/floor,
# natively); then tools/bench/report.py writes the CSVs, the plots,
# Documentation/bench/summary.csv and Documentation/benchmarks.md. Leave
# the machine alone meanwhile: the figures are only as quiet as the host.
#
#   tools/bench/all.sh [-o DIR] [-b "BENCH..."] [--no-doc]
#
# -o: the run directory (default build/bench/<date>-<commit>), one
# directory per benchmark in it, each with meta.json (the command, kernel,
# date, commit, seconds, exit status) beside the benchmark's own files.
# -b: only these benchmarks (edm cowbird ndimm dfabric shpool); like
# --no-doc, it leaves Documentation alone: the report, CSVs and plots go
# to DIR/doc instead.
# A benchmark that fails is reported as such; the others still run. Exits
# non-zero when one failed.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
benches="edm cowbird ndimm dfabric shpool"
out='' doc=$top/Documentation

usage() {
	echo "usage: $0 [-o DIR] [-b \"BENCH...\"] [--no-doc]" >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case $1 in
	-o) out=$2; shift ;;
	-b) benches=$2; doc=; shift ;;
	--no-doc) doc= ;;
	*) usage ;;
	esac
	shift
done

known=" edm cowbird ndimm dfabric shpool "
for b in $benches; do
	[[ $known == *" $b "* ]] || { echo "all.sh: no benchmark $b" >&2; usage; }
done

cd "$top" || exit 1
scripts/deps.sh || exit 1
krel=$(scripts/krel.sh --vm)
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
git diff --quiet HEAD 2>/dev/null || commit=$commit-dirty
date=$(date -u +%Y-%m-%d)
[ -n "$out" ] || out=build/bench/$date-$commit
mkdir -p "$out" && out=$(cd "$out" && pwd) || exit 1
[ -n "$doc" ] || doc=$out/doc
make -s module KREL="$krel" && make -s edmctl && make -s -C tools/edmop &&
	make -s bench-build || exit 1

# cmd BENCH: the command that measures BENCH into $out/BENCH; its rows' path there
cmd() {
	local d=$out/$1

	case $1 in
	edm) echo "tools/bench/edm.sh -o $d"; echo edm/rows.jsonl ;;
	cowbird) echo "tools/bench/cowbird/cowbird.sh --vm -o $d"; echo rows.jsonl ;;
	ndimm) echo "tools/bench/ndimm.sh -o $d"; echo ndimm/rows.jsonl ;;
	dfabric) echo "tools/bench/dfabric/dfabric.sh -o $d"; echo dfabric/rows.jsonl ;;
	shpool) echo "tools/bench/shpool.sh -o $d"; echo rows.jsonl ;;
	*) return 1 ;;
	esac
}

failed=0
# the machine's own floor, natively, before any VM loads it
build/bench-floor/floor >"$out/floor.json" || { failed=1; rm -f "$out/floor.json"; }
for b in $benches; do
	{ read -r c; read -r rows; } < <(cmd "$b")
	mkdir -p "$out/$b"
	echo "== $b: $c"
	t0=$SECONDS
	# shellcheck disable=SC2086 # the command is words, split on purpose
	$c >"$out/$b.log" 2>&1
	st=$?
	[ $st -eq 0 ] || { failed=1; echo "all.sh: $b failed ($st): $out/$b.log" >&2; }
	jq -n --arg command "$c" --arg kernel "$krel" --arg date "$date" --arg commit "$commit" \
		--argjson seconds $((SECONDS - t0)) --argjson status $st --arg rows "$rows" \
		'$ARGS.named' >"$out/$b/meta.json"
	echo "   $((SECONDS - t0)) s, exit status $st"
done
mkdir -p "$doc"
tools/bench/report.py "$out" --doc "$doc" || failed=1
echo "run: $out"
exit $failed
