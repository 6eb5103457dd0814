#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Cowbird benchmarks (issue 5, item 8), everything with one command; not
# part of make check. Builds what it needs, runs natively, then in one VM
# run (selftests/vm/run, guest half cowbird-guest.sh), and prints per size
# (8 and 64 B) the contenders side by side with their ratios:
#
#  (a) compute-side cost per op of a remote read and its completion
#      (cowbird_bench.c, cowbird_verbs.c): libcowbird with the user-space
#      stand-in engine, libcowbird with edm's kernel engine on a fabric
#      memory host's region (VM), liburing with SQPOLL, and ibverbs
#      post_send(RDMA READ) + poll_cq over Soft-RoCE (VM). ns per op of the
#      app thread (issue + reap), of issue, wall, of a compute-side helper
#      thread (natively io_uring's SQPOLL; in the VM, cowbird_bench -O: all
#      the guest's CPU outside the app thread, so the kernel engine's thread
#      and the SQPOLL thread count alike), and user-space instructions per
#      op where the machine has a PMU ("n/a" otherwise: this project's
#      machine has none, and QEMU's TCG gives the guest none).
#  (b) the paper's hash index probe (cowbird_probe.c): 95% of the records
#      remote through libcowbird, reads overlapped with the probing, against
#      the same loop with every record local; probes/s and the ratio, the
#      issue's target being within 15% of local (ratio >= 0.85), the share
#      of the time the thread stalled on a full window (the engine was the
#      limit) and its busy ns per probe (what it cost the thread itself).
#  (c) Cowbird through the EDM fabric (VM): the kernel engine reading a
#      memory host's region from a compute host (COWBIRD_CREATE_FABRIC),
#      against edmop reading the same region from that host's /dev/edm at
#      the same depth: ops/s of each and their ratio (issue 28's target:
#      >= 0.5). CBB_FAB_OPS ops each (20000), CBB_FAB_REPS times (3; the medians,
#      and the spread of the ratios).
#  (d) a key-value store on a hybrid log, as FASTER is (cowbird_kv.c; Cowbird
#      8.1, Figure 9): 64 B records, 5% of them in the local tail, the rest
#      remote; YCSB-B (95% reads, zipfian) and reads only, uniform keys; ops/s
#      on local memory, through libcowbird (stand-in natively, the kernel
#      engine in the VM), io_uring SQPOLL on a memfd, and ibverbs over
#      Soft-RoCE (VM); every read checked against the index's version.
#
# App threads run on CPU 0, engines (stand-in thread, edm's kthread via
# cowbird_cpu=1, io_uring's SQPOLL thread) on CPU 1. The VM boots with
# tsc=reliable (see below); the host's load average is printed at the end,
# because other users' VMs and builds share this machine's CPUs.
#
#   tools/bench/cowbird/cowbird.sh [--native | --vm] [-n OPS] [-d DEPTH]
#                                  [-p PROBES] [-o DIR]
#   tools/bench/cowbird/cowbird.sh --report DIR    format an earlier run again
#
# Defaults: 200000 ops and 1000000 probes natively; in the VM (TCG is
# slower) CBB_VM_OPS=50000 and CBB_VM_PROBES=300000, or -n/-p for both.
# Depth 32. Raw output in DIR (default: a new /tmp/cowbird-bench.XXXXXX):
# native/ and vm/cowbird/ hold a-SIZE.txt, b-SIZE.txt and d-b.txt, d-c.txt.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
bin=$top/build/bench-cowbird
ops= probes= depth=32 out= report= native=1 vm=1

usage() {
	echo "usage: $0 [--native | --vm] [-n OPS] [-d DEPTH] [-p PROBES] [-o DIR]" \
		"| --report DIR" >&2
	exit 2
}

# format_a FILE TITLE: (a)'s rows side by side, then every cowbird row
# against every other: compute-side ns = app thread + helper thread.
format_a() {
	awk -v title="$2" '
	/^#/ { notes = notes $0 "\n"; next }
	NF == 6 { n++; name[n] = $1; ins[n] = $2; cpu[n] = $3; iss[n] = $4; wall[n] = $5
		  hlp[n] = $6; cs[n] = $3 + ($6 == "-" ? 0 : $6) }
	function ratio(a, b) { return b > 0 ? sprintf("%.3f", a / b) : "n/a" }
	END {
		printf "%s\n%s", title, notes
		printf "%-18s %10s %14s %10s %10s %10s %16s\n", "contender", "instr/op",
			"issue+reap ns", "issue ns", "wall ns", "helper ns", "compute-side ns"
		for (i = 1; i <= n; i++)
			printf "%-18s %10s %14s %10s %10s %10s %16.1f\n", name[i], ins[i],
				cpu[i], iss[i], wall[i], hlp[i], cs[i]
		print "ratios, cowbird / other (compute-side ns; app thread ns; instructions):"
		for (i = 1; i <= n; i++) {
			if (name[i] !~ /^cowbird/)
				continue
			for (j = 1; j <= n; j++) {
				if (name[j] ~ /^cowbird/)
					continue
				in_r = "n/a"
				if (ins[i] != "n/a" && ins[j] != "n/a")
					in_r = ratio(ins[i], ins[j])
				printf "  %-16s / %-16s %8s; %8s; %s\n", name[i], name[j],
					ratio(cs[i], cs[j]), ratio(cpu[i], cpu[j]), in_r
			}
		}
		if (!n)
			print "  (no rows: see the errors above)"
	}' "$1"
}

# format_b FILE TITLE: (b)'s runs, and each remote run against local. The
# thread's busy ns per probe are ns/probe less the stalled share: what the
# probe loop costs the thread when the engine keeps up.
format_b() {
	awk -v title="$2" '
	/^#/ { notes = notes $0 "\n"; next }
	NF == 7 { n++; name[n] = $1; ps[n] = $2; ns[n] = $3; rem[n] = $4; st[n] = $5
		  sum[n] = $6; bad[n] = $7; if ($1 ~ /^local/) loc = n }
	END {
		printf "%s\n%s", title, notes
		printf "%-22s %11s %9s %7s %8s %8s %17s %4s\n", "run", "probes/s", "ns/probe",
			"remote", "stalled", "busy ns", "checksum", "bad"
		for (i = 1; i <= n; i++)
			printf "%-22s %11s %9s %7s %8s %8.1f %17s %4s\n", name[i], ps[i], ns[i],
				rem[i], st[i], ns[i] * (1 - st[i] / 100), sum[i], bad[i]
		for (i = 1; i <= n; i++) {
			if (i == loc || !loc)
				continue
			r = ps[i] / ps[loc]
			printf "  %s / %s: %.3f of local throughput, target >= 0.85: %s;" \
				" checksum %s\n", name[i], name[loc], r,
				(r >= 0.85 ? "met" : "NOT met"),
				(sum[i] == sum[loc] ? "matches local" : "DIFFERS from local")
		}
		if (!loc)
			print "  (no local run: see the errors above)"
	}' "$1"
}

# format_d FILE TITLE: (d)'s runs, and Cowbird against each other contender
format_d() {
	awk -v title="$2" '
	/^#/ { notes = notes $0 "\n"; next }
	NF == 7 { n++; name[n] = $1; ops[n] = $2; ns[n] = $3; rem[n] = $4; st[n] = $5
		  fl[n] = $6; bad[n] = $7; if ($1 ~ /^cowbird/) cb = n }
	END {
		printf "%s\n%s", title, notes
		printf "%-26s %11s %9s %13s %8s %8s %4s\n", "run", "ops/s", "ns/op",
			"remote/op", "stalled", "flushes", "bad"
		for (i = 1; i <= n; i++)
			printf "%-26s %11s %9s %13s %8s %8s %4s\n", name[i], ops[i], ns[i],
				rem[i], st[i], fl[i], bad[i]
		for (i = 1; i <= n && cb; i++)
			if (i != cb)
				printf "  %s / %s: %.3f\n", name[cb], name[i], ops[cb] / ops[i]
		if (!n)
			print "  (no rows: see the errors above)"
	}' "$1"
}

# kv_mix W: (d)'s workload W (b, c) in words
kv_mix() {
	if [ "$1" = b ]; then echo "YCSB-B: 95% reads, zipfian"; else echo "reads only, uniform keys"; fi
}

# where DIR native|vm: the directory of that half's files, and its title
where() {
	if [ "$2" = native ]; then
		echo "$1/native"
		echo "native: $(cat "$1/native/cpu" 2>/dev/null)"
	else
		echo "$1/vm/cowbird"
		echo "VM ($(sed -n 's/^VM: accel: \([a-z]*\).*/\1/p' "$1/vm/run.log" 2>/dev/null |
			head -n 1)): $(cat "$1/vm/cowbird/cpu" 2>/dev/null)"
	fi
}

# c_figures FILE: (c)'s runs, "COWBIRD-OPS/S EDMOP-OPS/S" per repetition
# (their order in FILE; "-" for a figure missing)
c_figures() {
	awk '$1 == "cowbird/fabric" { cb[++n] = $5 > 0 ? 1e9 / $5 : "-" }
	     /"ops_per_sec"/ { match($0, /"ops_per_sec":[0-9.]+/)
		ed[++m] = substr($0, RSTART + 14, RLENGTH - 14) + 0 }
	     END { for (i = 1; i <= (n > m ? n : m); i++)
		print (i in cb ? cb[i] : "-"), (i in ed ? ed[i] : "-") }' "$1"
}

# c_summary FILE: "MEDIAN-COWBIRD MEDIAN-EDMOP RATIO-MIN RATIO-MAX REPS" ("-" if none)
c_summary() {
	c_figures "$1" | awk '
	function med(a, k,   i, j, t) {
		for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++)
			if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2 }
	$1 != "-" && $2 != "-" && $2 > 0 { k++; e[k] = $1; c[k] = $2; q = $1 / $2
		lo = k == 1 || q < lo ? q : lo; hi = k == 1 || q > hi ? q : hi }
	END { if (!k) { print "- - - - 0"; exit }
		print med(e, k), med(c, k), lo, hi, k }'
}

# format_c FILE SIZE: Cowbird through the fabric against /dev/edm, same depth
format_c() {
	local e c lo hi k

	read -r e c lo hi k < <(c_summary "$1")
	[ "$e" = - ] || e=$(printf %.0f "$e")
	[ "$c" = - ] || c=$(printf %.0f "$c")
	printf "== (c) %s B reads through the EDM fabric (VM), the same depth ==\n" "$2"
	printf "%-34s %12s %12s\n" "" "ops/s" "each run"
	printf "%-34s %12s %12s\n" "cowbird/fabric (kernel engine)" "$e" \
		"$(c_figures "$1" | awk '{ printf "%s%.0f", (NR > 1 ? " " : ""), $1 }')"
	printf "%-34s %12s %12s\n" "/dev/edm (edmop bench, via host)" "$c" \
		"$(c_figures "$1" | awk '{ printf "%s%.0f", (NR > 1 ? " " : ""), $2 }')"
	awk -v e="$e" -v c="$c" -v lo="$lo" -v hi="$hi" -v k="$k" 'BEGIN {
		printf "%-34s %12s   (medians of %d; runs %s-%s; issue 28 target: >= 0.5)\n",
			"cowbird / /dev/edm", (c > 0 ? sprintf("%.3f", e / c) : "n/a"), k,
			(lo == "-" ? "-" : sprintf("%.2f", lo)),
			(hi == "-" ? "-" : sprintf("%.2f", hi)) }'
}

# json_row BENCH-FIELDS...: one rows.jsonl line (tools/bench/README.md) from
# name=value pairs; values that look like numbers stay numbers, "" is null
json_row() {
	local a=()

	for kv in "$@"; do
		a+=(--arg "${kv%%=*}" "${kv#*=}")
	done
	jq -cn "${a[@]}" '$ARGS.named | with_entries(.value = (.value as $s |
		if $s == "" then null else ([$s | tonumber?] | first // $s) end))
		| {bench: "cowbird"} + .
		| .ratio = (if .edm != null and .comp != null and .comp != 0
			then .edm / .comp else null end)
		| .rounds = (.rounds // 1) | .ratio_min = (.ratio_min // null)
		| .ratio_max = (.ratio_max // null)'
}

# rows DIR: the VM half's compared figures, one round each, as rows.jsonl
rows() {
	local f=$1/vm/cowbird s e c lo hi k w t ur vb kvnote

	for s in 8 64; do
		[ -e "$f/a-$s.txt" ] && {
			read -r e c < <(awk '$1 == "cowbird/kernel" { e = $3 + ($6 == "-" ? 0 : $6) }
				$1 == "io_uring/sqpoll" { c = $3 + ($6 == "-" ? 0 : $6) }
				END { print (e == "" ? "-" : e), (c == "" ? "-" : c) }' "$f/a-$s.txt")
			json_row path="libcowbird $s B remote read, kernel engine" \
				metric="compute-side ns per read" better=lower edm="${e#-}" \
				competitor="io_uring SQPOLL" comp="${c#-}" target="<= 0.5" \
				note="both: the app thread and all the guest's other CPU per read (cowbird_bench -O), the kernel engine's thread and the SQPOLL thread alike"
		}
		[ -e "$f/b-$s.txt" ] && {
			read -r e c < <(awk '$1 ~ /^cowbird-kernel\// { e = $2 } $1 ~ /^local\// { c = $2 }
				END { print (e == "" ? "-" : e), (c == "" ? "-" : c) }' "$f/b-$s.txt")
			json_row path="hash index probe, $s B records, 95% remote (kernel engine)" \
				metric="probes/s" better=higher edm="${e#-}" \
				competitor="the same probe, every record local" comp="${c#-}" \
				target=">= 0.85"
		}
		[ -e "$f/c-$s.txt" ] && {
			read -r e c lo hi k < <(c_summary "$f/c-$s.txt")
			[ "$k" -gt 1 ] || lo=- hi=-
			json_row path="Cowbird $s B reads through the EDM fabric" metric="ops/s" \
				better=higher edm="${e#-}" competitor="/dev/edm (edmop bench), same depth" \
				comp="${c#-}" target=">= 0.5" rounds="$k" ratio_min="${lo#-}" \
				ratio_max="${hi#-}"
		}
	done
	for w in b c; do
		[ -e "$f/d-$w.txt" ] || continue
		t=$(kv_mix $w)
		kvnote="95% of the records remote, 5% in the local tail; every read checked"
		kvnote+=" (a run that read a bad record gives no figure)"
		read -r e lo ur vb < <(awk 'NF == 7 && $7 == 0 { v[$1] = $2 }
			END { n = split("cowbird-kernel/64B local/64B io_uring-sqpoll/64B" \
					" ibverbs-rxe/64B", a)
			      for (i = 1; i <= n; i++) printf "%s ", (a[i] in v ? v[a[i]] : "-")
			      print "" }' "$f/d-$w.txt")
		for k in "$ur:io_uring SQPOLL on a memfd" "$vb:ibverbs RDMA READ/WRITE over Soft-RoCE" \
			"$lo:the same store, every record in local memory"; do
			c=${k%%:*}
			json_row path="key-value store on a hybrid log (kernel engine), $t, 64 B" \
				metric="ops/s" better=higher edm="${e#-}" competitor="${k#*:}" \
				comp="${c#-}" \
				note="$kvnote"
		done
	done
	return 0
}

# breakdown DIR: the VM half's perf windows as Markdown (tools/bench/stages.py)
breakdown() {
	local st=$top/tools/bench/stages.py p=$1/prof

	if [ -s "$p.probe-local.perf.txt" ] && [ -s "$p.probe-kernel.perf.txt" ]; then
		echo "Where the CPU goes in the hash probe, 64 B records, on local memory and"
		echo "95% remote through the kernel engine (perf cpu-clock in the guest, a 2 s"
		echo "window in the middle of an 8 s run of each):"
		echo
		"$st" --md --secs 2 local="$p.probe-local.perf.txt" remote="$p.probe-kernel.perf.txt"
		echo
	fi
	if [ -s "$p.fab-cowbird.perf.txt" ] && [ -s "$p.fab-edmop.perf.txt" ]; then
		echo "Where the CPU goes in (c), 64 B reads through the EDM fabric, Cowbird's"
		echo "kernel engine against edmop on /dev/edm (the same windows):"
		echo
		"$st" --md --secs 2 cowbird="$p.fab-cowbird.perf.txt" edmop="$p.fab-edmop.perf.txt"
	fi
}

report() {
	local d=$1 s w f t

	for s in 8 64; do
		for w in native vm; do
			{ read -r f; read -r t; } < <(where "$d" $w)
			[ -e "$f/a-$s.txt" ] || continue
			echo
			format_a "$f/a-$s.txt" "== (a) $s B reads, $t =="
		done
	done
	for s in 8 64; do
		for w in native vm; do
			{ read -r f; read -r t; } < <(where "$d" $w)
			[ -e "$f/b-$s.txt" ] || continue
			echo
			format_b "$f/b-$s.txt" "== (b) hash index probe, $s B records, $t =="
		done
	done
	for w in b c; do
		for s in native vm; do
			{ read -r f; read -r t; } < <(where "$d" $s)
			[ -e "$f/d-$w.txt" ] || continue
			echo
			format_d "$f/d-$w.txt" "== (d) key-value store, $(kv_mix $w), $t =="
		done
	done
	for s in 8 64; do
		f=$d/vm/cowbird/c-$s.txt
		[ -e "$f" ] || continue
		echo
		format_c "$f" "$s"
	done
	[ -e "$d/host" ] && echo && cat "$d/host"
	rows "$d" >"$d/rows.jsonl" || echo "cowbird.sh: $d/rows.jsonl not written" >&2
	breakdown "$d/vm/cowbird" >"$d/breakdown.md"
	if [ -s "$d/vm/cowbird/errors.txt" ]; then
		echo
		echo "VM errors:"
		sed 's/^/  /' "$d/vm/cowbird/errors.txt"
	fi
	return 0
}

while [ $# -gt 0 ]; do
	case $1 in
	--native) vm=0 ;;
	--vm) native=0 ;;
	-n) ops=$2; shift ;;
	-d) depth=$2; shift ;;
	-p) probes=$2; shift ;;
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
[ $vm -eq 0 ] || { make -s module KREL="$krel" && make -s edmctl && make -s -C tools/edmop; }
make -s -C tools/bench/cowbird
[ -n "$out" ] || out=$(mktemp -d /tmp/cowbird-bench.XXXXXX)
mkdir -p "$out"
out=$(cd "$out" && pwd)
load0=$(cut -d' ' -f1-3 /proc/loadavg)

if [ $native -eq 1 ]; then
	mkdir -p "$out/native"
	echo "$(uname -r), $(nproc) CPUs,$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)" \
		>"$out/native/cpu"
	for s in 8 64; do
		echo "native: $s B" >&2
		"$bin/cowbird_bench" -s $s -n "${ops:-200000}" -d "$depth" \
			>"$out/native/a-$s.txt" || echo "native: cowbird_bench -s $s failed" >&2
		"$bin/cowbird_probe" -s $s -n "${probes:-1000000}" >"$out/native/b-$s.txt" ||
			echo "native: cowbird_probe -s $s failed" >&2
	done
	"$bin/cowbird_kv" -s 64 -r 95 -e local,standin,uring >"$out/native/d-b.txt" ||
		echo "native: cowbird_kv (d-b) failed" >&2
	"$bin/cowbird_kv" -s 64 -r 100 -u -e local,standin,uring >"$out/native/d-c.txt" ||
		echo "native: cowbird_kv (d-c) failed" >&2
fi
status=0
if [ $vm -eq 1 ]; then
	echo "VM: booting $krel (TCG when there is no KVM: a few minutes)" >&2
	mkdir -p "$out/vm/cowbird"
	# tsc=reliable: TCG's guest would mark its TSC unstable and run on
	# HPET, whose every read (each ktime_get_ns of the engine, each
	# clock_gettime) is an emulated device access of microseconds
	selftests/vm/run --kernel-release "$krel" --out "$out/vm" --timeout 1500 \
		--append tsc=reliable \
		--env CBB_OUT="$out/vm/cowbird" --env CBB_DEPTH="$depth" \
		--env CBB_OPS="${ops:-${CBB_VM_OPS:-50000}}" \
		--env CBB_PROBES="${probes:-${CBB_VM_PROBES:-300000}}" \
		--env CBB_FAB_OPS="${CBB_FAB_OPS:-20000}" --env CBB_FAB_REPS="${CBB_FAB_REPS:-3}" \
		--env CBB_KV_RECORDS="${CBB_KV_RECORDS:-262144}" \
		--env CBB_KV_OPS="${CBB_KV_OPS:-300000}" \
		-- tools/bench/cowbird/cowbird-guest.sh >"$out/vm/run.log" 2>&1 || status=$?
	[ $status -eq 0 ] || echo "VM run failed ($status): $out/vm/run.log" >&2
fi
echo "host: tree $(git describe --always --dirty 2>/dev/null || echo '?'), $(nproc) CPUs;" \
	"load average $load0 before, $(cut -d' ' -f1-3 /proc/loadavg) after (other" \
	"users' VMs and builds share these CPUs)" >"$out/host"
report "$out"
echo "raw output: $out" >&2
exit $status
