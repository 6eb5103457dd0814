#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Shared pool benchmark: two QEMU guests on one ivshmem device (selftests/vm/run
# --guests 2 --shmem 64M) join it as a shared pool (edmctl shpool join) and
# talk over its netdev shp0 (10.81.0.1 -> .2: frames copied into a pool
# Buffer, passed by reference, copied out by the peer's polling NAPI), and,
# in the same run between the same two guests, over their virtio-net link
# (10.82.0.1 -> .2). Guest 0 is the client, guest 1 the server; the guest
# half is shpool-guest.sh. The virtio-net link is the one a user would pick:
# each NIC on a tap, the two taps on one bridge (selftests/vm/run --link tap,
# in a network namespace of the run's own; needs root), so the guests'
# virtio-net has checksum offload and TSO. --link socket runs it on QEMU's
# socket netdev instead, which has no vnet header: frames of one MTU.
#
#   latency     sockperf ping-pong, 64 B, UDP and TCP, p50 and p99 (RTT/2,
#               as sockperf reports it); a warm-up run first, thrown away;
#               and UDP at 100 messages a second (quiet spells between the
#               requests: what a member's receive polling costs a request)
#   throughput  iperf3, one TCP stream, guest 0 -> guest 1; and iperf3 UDP
#               with 64 B datagrams, no rate limit (packets received per s)
#   cost        guest 0's CPU time (all its vCPUs, /proc/stat) per round
#               trip and per GB sent, in a steady window of each run
#   proof       each run's packets on both of guest 0's devices, guest 1's
#               over the whole run, and the pool's own counters (polls,
#               drops), so that one sees the traffic took the path named
#
# Prints the paths side by side with the pool/virtio ratios and issue 28's
# targets (pool latency <= 0.5x the Ethernet path's, throughput >= 1.5x):
# MET / NOT MET, reported, not enforced. Exits non-zero only when a
# measurement could not be taken (or the VMs failed). Not part of make check.
#
#   tools/bench/shpool.sh [-l LAT_SECS] [-w WARM_SECS] [-t TPUT_SECS]
#                         [-u UDP_SECS] [-s SMP] [--pmem] [--link tap|socket]
#                         [-o|--out DIR]
#   tools/bench/shpool.sh --report DIR     format an earlier run again
#
# --pmem: the pool on one NVDIMM's pmem device (selftests/vm/run --nvdimm
# 128M, its namespace in fsdax mode; Documentation/pool.md) instead of
# ivshmem: its receivers make no copy (SHB_RX_COPY=1 makes them copy, to
# measure what the copy costs on the same memory). Defaults: sockperf 10 s after a 2 s warm-up, iperf3 TCP 10 s (+1 s
# omitted), UDP 5 s (0 skips it), 2 vCPUs per guest; sockperf's client and
# server both on vCPU 0 of their guest (SHB_LAT_CPU). About four minutes
# under TCG. Uses the built edm.ko (build/<release>/edm.ko) and
# tools/edmctl/edmctl: it builds nothing (make does). Raw files in
# DIR/guest0/shpool and DIR/guest1/shpool (DIR default: a new
# /tmp/shpool-bench.XXXXXX), the report in DIR/summary.txt.
# It also writes DIR/rows.jsonl, the rows of tools/bench/README.md ("Rows"),
# DIR/breakdown.md, where guest 0's CPU goes on each path
# (tools/bench/breakdown.sh), and DIR/cdf-udp.json, cdf-tcp.json, the
# latency CDFs (tools/bench/cdf.py).
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
lat=${SHB_LAT_SECS:-10} warm=${SHB_WARM_SECS:-2} tput=${SHB_TPUT_SECS:-10}
udp=${SHB_UDP_SECS:-5} smp=2 out='' report='' mem=(--shmem 64M) link=tap

usage() {
	echo "usage: $0 [-l LAT_SECS] [-w WARM_SECS] [-t TPUT_SECS] [-u UDP_SECS] [-s SMP]" \
		"[--pmem] [--link tap|socket] [-o|--out DIR] | --report DIR" >&2
	exit 2
}

# sockperf's log -> {"p50", "p99", "avg", "rtts", "secs"} (microseconds,
# RTT/2; round trips and seconds of its valid duration)
parse_sockperf() {
	awk '/percentile 50.000/ { p50 = $NF } /percentile 99.000/ { p99 = $NF }
	     /avg-latency=/ { sub(/.*avg-latency=/, ""); sub(/ .*/, ""); avg = $0 }
	     /\[Valid Duration\]/ { s = $0; sub(/.*RunTime=/, "", s); secs = s + 0
				    sub(/.*ReceivedMessages=/, ""); rt = $0 + 0 }
	     END { printf "{\"p50\":%s,\"p99\":%s,\"avg\":%s,\"rtts\":%s,\"secs\":%s}\n",
		   p50 != "" ? p50 : "null", p99 != "" ? p99 : "null", avg != "" ? avg : "null",
		   rt ? rt : "null", secs ? secs : "null" }' "$1" 2>/dev/null || echo '{}'
}

# iperf3 -J -> {"bps", "retrans", "pkts", "lost", "secs", "sent", "ssecs"}
parse_iperf3() {
	jq -c '.end | { bps: .sum_received.bits_per_second, retrans: .sum_sent.retransmits,
		pkts: .sum_received.packets, lost: .sum_received.lost_packets,
		secs: .sum_received.seconds, sent: .sum_sent.packets, ssecs: .sum_sent.seconds }' \
		"$1" 2>/dev/null || echo '{}'
}

# a samples file -> {"label": {"t", "busy", "idle", "p": [rxp, txp, rxb, txb], "e": [...]}}
parse_samples() {
	[ -r "$1" ] || { echo '{}'; return 0; }
	awk 'BEGIN { printf "{" }
	     NF >= 12 { printf "%s\"%s\":{\"t\":%s,\"busy\":%s,\"idle\":%s,", sep, $1, $2, $3, $4
			printf "\"p\":[%s,%s,%s,%s],\"e\":[%s,%s,%s,%s]}", $5, $6, $7, $8, $9, $10, $11, $12
			sep = "," }
	     END { print "}" }' "$1" 2>/dev/null || echo '{}'
}

# edmctl -j shpool stats -> the first pool's stats
parse_st() {
	jq -c '.[0].stats // {}' "$1" 2>/dev/null || echo '{}'
}

# one JSON line per run of guest 0, in run order
collect() {
	local d=$1 tag

	while read -r tag; do
		jq -cn --arg tag "$tag" \
			--argjson sp "$(parse_sockperf "$d/$tag.sockperf.log")" \
			--argjson ip "$(parse_iperf3 "$d/$tag.iperf3.json")" \
			--argjson smp "$(parse_samples "$d/$tag.samples")" \
			--argjson st0 "$(parse_st "$d/$tag.st0.json")" \
			--argjson st1 "$(parse_st "$d/$tag.st1.json")" '
			($tag | split(".")) as $t
			| { tag: $tag, kind: $t[0], path: $t[1], proto: $t[2], smp: $smp,
			    st: (if ($st0 | length) == 0 or ($st1 | length) == 0 then {}
				 else $st1 | with_entries(.value -= ($st0[.key] // 0)) end) } +
			  (if $t[0] == "lat" then $sp else $ip end)'
	done <"$d/order"
}

summarize() {
	local d=$1 g0=$1/guest0/shpool g1=$1/guest1/shpool q t

	if [ ! -s "$g0/order" ]; then
		echo "no runs in $g0" >&2
		rows "$d" </dev/null >"$d/rows.jsonl" || echo "shpool bench: no $d/rows.jsonl" >&2
		return 1
	fi
	collect "$g0" >"$d/runs.jsonl"
	rows "$d" <"$d/runs.jsonl" >"$d/rows.jsonl" || echo "shpool bench: no $d/rows.jsonl" >&2
	"$top/tools/bench/breakdown.sh" -w "guest 0's alone, the client and sender" "$g0" \
		prof.pool prof.virtio >"$d/breakdown.md"
	for q in udp tcp; do
		[ -s "$g0/lat.pool.$q.lat.csv" ] || continue
		t="the shared pool and virtio-net between two guests:"
		t+=" sockperf ${q^^} ping-pong latency (RTT/2)"
		"$top/tools/bench/cdf.py" "$d/cdf-$q.json" "$t" pool="$g0/lat.pool.$q.lat.csv" \
			virtio="$g0/lat.virtio.$q.lat.csv"
	done
jq -rs --slurpfile p <(sed 's/^\([^=]*\)=\(.*\)/{"\1": "\2"}/' "$g0/params" | jq -s add) \
		--argjson g1 "$(parse_samples "$g1/g1.samples")" \
		--argjson g1st "$(parse_st "$g1/g1.st.json")" \
		--arg g0status "$(cat "$g1/g0.status" 2>/dev/null)" \
		--arg errors "$(cat "$g0/errors.txt" "$g1/errors.txt" 2>/dev/null)" \
		--arg host "$(cat "$d/host" 2>/dev/null)" "$(summary_jq)" "$d/runs.jsonl" |
		tee "$d/summary.txt"
	# every figure the targets need, on both paths
	jq -se 'def run(k; p; q): map(select(.kind == k and .path == p and .proto == q)) | first;
		. as $r | all(("pool", "virtio") as $p |
			($r | run("lat"; $p; "udp") | .p50 != null and .p99 != null),
			($r | run("lat"; $p; "tcp") | .p50 != null and .p99 != null),
			($r | run("tput"; $p; "tcp") | .bps != null); .)' "$d/runs.jsonl" >/dev/null ||
		{ echo "shpool bench: some measurements are missing (see above)" >&2; return 1; }
}

# runs.jsonl on stdin -> rows.jsonl: the figures compared with virtio-net, one
# JSON object a line (tools/bench/README.md, "Rows"); the pool's device and
# the link from DIR/host (a --report without it: the options given)
rows() {
	local d=$1 pm=${mem[0]} ln=$link

	[[ $(cat "$d/host" 2>/dev/null) =~ "pool on "(--[a-z]+) ]] && pm=${BASH_REMATCH[1]}
	# a run from before --link says nothing of it: it was on the socket netdev
	if [ -e "$d/host" ]; then
		ln=socket
		[[ $(cat "$d/host") =~ "virtio-net on "([a-z]+) ]] && ln=${BASH_REMATCH[1]}
	fi
	jq -cs --slurpfile p <(sed 's/^\([^=]*\)=\(.*\)/{"\1": "\2"}/' \
			"$d/guest0/shpool/params" 2>/dev/null | jq -s add) \
		--arg errors "$(cat "$d/guest0/shpool/errors.txt" 2>/dev/null)" \
		--arg pmem "$([ "$pm" = --nvdimm ] && echo " (pmem)")" --arg link "$ln" "$(rows_jq)"
}

rows_jq() {
	defs_jq
	cat <<'EOF'
def rnd: if . == null then null else round end;
def r1: if . == null then "?" else . * 10 | round / 10 | tostring end;
($p[0] // {}) as $p | . as $runs
| def run(k; p; q): $runs | map(select(.kind == k and .path == p and .proto == q)) | first;
  # why the run k.p.q has no figure f (what: the figure's name); guest 0's complaints
  def why(k; p; q; f; what): "\(k).\(p).\(q)" as $t | run(k; p; q) as $r |
	if ($runs | length) == 0 then "no runs at all (see run.log)" | select(p == "pool")
	elif $r == null then "no \($t) run"
	elif ($r | f) == null then "the \($t) run gave no \(what)"
	elif ($r | own_path) == false then "\($t): not all of its traffic took its own path"
	else empty end,
	($errors | split("\n")[] | select(contains(" \($t): ")) | sub("^shpool-bench "; ""));
  def row(metric; better; k; q; f; what; target; note):
	(run(k; "pool"; q) | if . then f else null end) as $e |
	(run(k; "virtio"; q) | if . then f else null end) as $c |
	([why(k; "pool"; q; f; what), why(k; "virtio"; q; f; what),
	  (if $c == 0 then "virtio-net's figure is 0: no ratio" else empty end), note] |
	 map(select(. != null)) | join("; ")) as $n |
	{ bench: "shpool", path: "shared pool netdev between two guests\($pmem)",
	  metric: metric, better: better, edm: $e,
	  competitor: ("the guests' virtio-net link" +
		if $link == "socket" then " (QEMU socket netdev, TCP on the host's loopback)"
		else " (a tap each, on one bridge; checksum offload and TSO)" end),
	  comp: $c, ratio: per($e; $c), target: target, rounds: 1,
	  ratio_min: null, ratio_max: null }
	+ (if $n == "" then {} else { note: $n } end);
  def mbps: if .bps == null then null else .bps / 1e6 end;
  def pps: if .pkts == null then null else per(.pkts - (.lost // 0); .secs) end;
  def txsz: per(wdev(me; 3); wdev(me; 1));
row("sockperf UDP p50 latency (us)"; "lower"; "lat"; "udp"; .p50; "p50"; "<= 0.5"; null),
row("sockperf TCP p50 latency (us)"; "lower"; "lat"; "tcp"; .p50; "p50"; "<= 0.5"; null),
row("iperf3 TCP Mbit/s"; "higher"; "tput"; "tcp"; mbps; "throughput"; ">= 1.5";
	(run("tput"; "virtio"; "tcp") | if . then txsz else null end | rnd) as $v |
	(run("tput"; "pool"; "tcp") | if . then txsz else null end | rnd) as $s |
	if $v == null then null else "bytes per frame guest 0 sent in the TCP run: \($v) on " +
		"virtio-net (" + (if $link == "socket" then "a socket netdev has no vnet header, " +
		"so no TSO: frames of one MTU" else "TSO through the tap's vnet header" end) +
		"), \($s // "?") on shp0 (TSO up to a pool buffer)" end),
(if ($p.udp_s // "1") == "0" then empty else
 row("iperf3 UDP \($p.msg // "64") B packets/s"; "higher"; "tput"; "udp"; pps; "packet count";
	null; "packets guest 1 received per second, at no rate limit" +
	([(["pool", "shp0"], ["virtio", "virtio-net"]) as [$r, $n] | run("tput"; $r; "udp") |
	  select(. != null) |
	  "\($n) \(per(.lost; .pkts) | if . then . * 100 else . end | r1)% of " +
	  "\(per(.sent; .ssecs) | if . then . / 1e3 else . end | r1) k/s offered"] |
	 if length == 0 then "" else "; lost at the receiver: " + join(", ") end)) end),
row("sockperf UDP p99 latency (us)"; "lower"; "lat"; "udp"; .p99; "p99"; null; null),
(if run("lat"; "pool"; "sparse") == null and run("lat"; "virtio"; "sparse") == null then empty
 else row("sockperf UDP p50 latency at \($p.sparse_mps // "100") msg/s (us)"; "lower"; "lat";
	"sparse"; .p50; "p50"; null; "requests with quiet spells between them") end),
row("sockperf TCP p99 latency (us)"; "lower"; "lat"; "tcp"; .p99; "p99"; null; null)
EOF
}

# What the summary and the rows both read from a run.
defs_jq() {
	cat <<'EOF'
def per(a; b): if a == null or b == null or b == 0 then null else a / b end;
# a device's counter (0 rxp, 1 txp, 2 rxb, 3 txb) over the steady window or the whole run
def wdev(dev; i): if .smp.w0 == null or .smp.w1 == null then null
	else .smp.w1[dev][i] - .smp.w0[dev][i] end;
def adev(dev; i): if .smp.a0 == null or .smp.a1 == null then null
	else .smp.a1[dev][i] - .smp.a0[dev][i] end;
def me: if .path == "pool" then "p" else "e" end;
def other: if .path == "pool" then "e" else "p" end;
# "own path only?": the path named carried the run and the other device next to
# nothing; null without samples
def own_path: adev(me; 1) as $m | ((adev(other; 1) // 0) + (adev(other; 0) // 0)) as $o |
	if $m == null then null else $m > 0 and $o * 100 <= $m + 100 end;
EOF
}

summary_jq() {
	defs_jq
	cat <<'EOF'
def r(n): def zp(w): if length >= w then . else ("0" * (w - length)) + . end;
	if . == null then "-" elif n == 0 then round | tostring
	else (. * pow(10; n) | round) as $i | ($i | fabs | tostring | zp(n + 1)) as $z |
		(if $i < 0 then "-" else "" end) + $z[:-n] + "." + $z[-n:] end;
def pad(w): tostring | if length >= w then . else (" " * (w - length)) + . end;
def lpad(w): tostring | if length >= w then . else . + (" " * (w - length)) end;
def hz: $p[0].hz | tonumber;
def win(k): if .smp.w0 == null or .smp.w1 == null then null else .smp.w1[k] - .smp.w0[k] end;
def figures: win("t") as $wt | win("busy") as $wb | per(.rtts; .secs) as $rate | . + {
	rate: $rate,
	gbps: (if .bps then .bps / 1e9 else null end),
	kpps: per(if .pkts == null then null else .pkts - (.lost // 0) end; .secs) | (if . then . / 1e3 else null end),
	offered: per(.sent; .ssecs) | (if . then . / 1e3 else null end),
	lostpct: per((.lost // null) | if . then . * 100 else . end; .pkts),
	us_rt: per(if $wb then $wb * 1e6 / hz else null end;
		   if $rate and $wt then $rate * $wt else null end),
	txsz: per(wdev(me; 3); wdev(me; 1)),
	s_gb: per(if $wb then $wb / hz else null end;
		  wdev(me; 3) | if . then . / 1e9 else null end),
	mine: [adev(me; 1), adev(me; 0)], theirs: [adev(other; 1), adev(other; 0)],
	own: own_path
};
map(figures) as $runs
| def run(k; p; q): $runs | map(select(.kind == k and .path == p and .proto == q)) | first;
  def cell(f; n): (f | r(n));
  def row3(lbl; k; q; f; n; target; op):
	(run(k; "pool"; q) | f) as $a | (run(k; "virtio"; q) | f) as $b | per($a; $b) as $q |
	(lbl | lpad(32)) + ($a | r(n) | pad(12)) + ($b | r(n) | pad(12)) +
	(if $q == null then "-" else ($q | r(2)) + "x" end | pad(13)) +
	(if target == null then "" else
		"   " + ("\(op) \(target)x" | lpad(8)) +
		(if $q == null then "n/a"
		 elif (op == "<=" and $q <= target) or (op == ">=" and $q >= target) then "MET"
		 else "NOT MET" end) end);
  def pk(x): if x[0] == null then "-" else "\(x[0])/\(x[1])" end;
  def ok: if .own == null then "-" elif .own then "ok" else "NOT ok" end;
"==== shared pool (shp0) vs virtio-net, between two guests, one run: \($p[0].krel), " +
	"\($p[0].nproc) vCPUs each ====",
"sockperf ping-pong \($p[0].msg) B, \($p[0].warm_s) s warm-up (thrown away) + \($p[0].lat_s) s, " +
	"client (guest 0) and server (guest 1)",
"  on vCPU \($p[0].lat_cpu) of their guest; latency = RTT/2, as sockperf reports it",
"iperf3 guest 0 -> guest 1: one TCP stream \($p[0].tput_s) s (+1 s omitted); UDP \($p[0].msg) B " +
	"datagrams, no rate limit, \($p[0].udp_s) s",
(if $host != "" then "host: \($host)" else empty end),
"",
("" | lpad(32)) + ("pool (shp0)" | pad(12)) + ("virtio-net" | pad(12)) + ("pool/virtio" | pad(13)) +
	"   target",
row3("latency p50 UDP (us)"; "lat"; "udp"; .p50; 1; 0.5; "<="),
row3("latency p99 UDP (us)"; "lat"; "udp"; .p99; 1; 0.5; "<="),
row3("latency p50 TCP (us)"; "lat"; "tcp"; .p50; 1; 0.5; "<="),
row3("latency p99 TCP (us)"; "lat"; "tcp"; .p99; 1; 0.5; "<="),
row3("TCP throughput (Gbit/s)"; "tput"; "tcp"; .gbps; 3; 1.5; ">="),
"",
row3("latency avg UDP (us)"; "lat"; "udp"; .avg; 1; null; null),
row3("latency avg TCP (us)"; "lat"; "tcp"; .avg; 1; null; null),
row3("p50 UDP at \($p[0].sparse_mps // "100") msg/s (us)"; "lat"; "sparse"; .p50; 1; null; null),
row3("p99 UDP at \($p[0].sparse_mps // "100") msg/s (us)"; "lat"; "sparse"; .p99; 1; null; null),
row3("round trips / s UDP"; "lat"; "udp"; .rate; 0; null; null),
row3("round trips / s TCP"; "lat"; "tcp"; .rate; 0; null; null),
row3("TCP retransmits"; "tput"; "tcp"; .retrans; 0; null; null),
row3("  bytes per frame sent (TCP)"; "tput"; "tcp"; .txsz; 0; null; null),
row3("UDP 64 B received (kpkt/s)"; "tput"; "udp"; .kpps; 1; null; null),
row3("  offered (kpkt/s)"; "tput"; "udp"; .offered; 1; null; null),
row3("  lost at the receiver (%)"; "tput"; "udp"; .lostpct; 1; null; null),
row3("g0 CPU us / round trip UDP"; "lat"; "udp"; .us_rt; 0; null; null),
row3("g0 CPU us / round trip TCP"; "lat"; "tcp"; .us_rt; 0; null; null),
row3("g0 CPU s / GB sent (TCP)"; "tput"; "tcp"; .s_gb; 1; null; null),
"g0 CPU: guest 0's /proc/stat busy time, all its vCPUs, in a steady window of the run",
"(under TCG guest CPU time is host thread time as the guest sees it: a rough figure).",
"",
"== where the packets went: guest 0's devices during each run (tx/rx packets) ==",
("run" | lpad(18)) + ("shp0" | pad(16)) + ("virtio" | pad(16)) + ("polls" | pad(10)) +
	("idle %" | pad(8)) + ("polls/rx" | pad(10)) + ("drops" | pad(7)) + "  own path only?",
($runs[] | (.tag | lpad(18)) +
	(pk(if .path == "pool" then .mine else .theirs end) | pad(16)) +
	(pk(if .path == "pool" then .theirs else .mine end) | pad(16)) +
	(.st.polls | r(0) | pad(10)) +
	(per(.st["idle-polls"]; .st.polls) | if . then . * 100 else . end | r(0) | pad(8)) +
	(per(.st.polls; .st["rx-packets"]) | r(2) | pad(10)) +
	(if .st.polls == null then null else [.st["tx-no-buf"], .st["tx-ring-full"],
	  .st["tx-no-host"], .st["rx-drops"], .st["rx-refused"]] | map(. // 0) | add end |
	  r(0) | pad(7)) +
	"  " + ok),
($g1 | if .ready == null or .done == null then "guest 1: no counters"
 else "guest 1 from \"ready\" to \"done\": shp0 rx/tx \(.done.p[0] - .ready.p[0])/" +
	"\(.done.p[1] - .ready.p[1]), virtio rx/tx \(.done.e[0] - .ready.e[0])/" +
	"\(.done.e[1] - .ready.e[1]) packets" end),
($g1st | if .polls == null then "guest 1: no pool counters" else
 "guest 1's pool since it joined: rx \(.["rx-packets"]), polls \(.polls) " +
	"(\(per(.["idle-polls"]; .polls) | if . then . * 100 else . end | r(0))% idle), drops " +
	"\([.["tx-no-buf"], .["tx-ring-full"], .["tx-no-host"], .["rx-drops"], .["rx-refused"]] |
	   map(. // 0) | add)" end),
"polls, idle %, polls/rx: guest 0's shared-pool receive polls during the run (no doorbell:",
"its NAPI polls on an hrtimer), the share that found nothing, polls per frame received;",
"drops: tx no-buf + ring-full + no-host, rx drops + refused; own path only: the path named",
"carried the traffic and the other device (nearly) nothing.",
(if $errors != "" then "", "complaints:", ($errors | split("\n")[] | select(. != "") |
	"  " + .) else empty end),
(if ($g0status | startswith("done")) then empty
 else "guest 1 did not hear guest 0 finish" end)
EOF
}

while [ $# -gt 0 ]; do
	case $1 in
	-l | -w | -t | -u | -s | -o | --out | --report) [ $# -ge 2 ] || usage ;;&
	-l) lat=$2; shift ;;
	-w) warm=$2; shift ;;
	-t) tput=$2; shift ;;
	-u) udp=$2; shift ;;
	-s) smp=$2; shift ;;
	--pmem) mem=(--nvdimm 128M) ;;
	--link) [ $# -ge 2 ] || usage; link=$2; shift ;;
	-o | --out) out=$2; shift ;;
	--out=*) out=${1#--out=} ;;
	--report) report=$2; shift ;;
	*) usage ;;
	esac
	shift
done

if [ -n "$report" ]; then
	summarize "$report"
	exit
fi
[ "$lat" -ge 3 ] && [ "$tput" -ge 2 ] && [ "$warm" -ge 1 ] && [ "$udp" -ge 0 ] ||
	{ echo "$0: need -l >= 3, -t >= 2, -w >= 1, -u >= 0" >&2; exit 2; }

case $link in
tap) [ "$(id -u)" = 0 ] ||
	{ echo "$0: --link tap (the default) needs root; --link socket does not" >&2; exit 2; } ;;
socket) ;;
*) usage ;;
esac

cd "$top"
krel=$(scripts/krel.sh --vm)
[ -e "build/$krel/edm.ko" ] || { echo "$0: no build/$krel/edm.ko: build it (make)" >&2; exit 2; }
[[ $(tools/edmctl/edmctl shpool help 2>&1) == *"shpool join"* ]] ||
	{ echo "$0: tools/edmctl/edmctl has no shpool: build it (make edmctl)" >&2; exit 2; }
[ -n "$out" ] || out=$(mktemp -d /tmp/shpool-bench.XXXXXX)
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -rf "$out/guest0/shpool" "$out/guest1/shpool"	# the guests append to their files
# How busy the host was with work other than this run's (other VMs under
# TCG are the main source of drift): host CPU time minus our children's.
host_busy() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat; }
children_cpu() { awk '{ print $16 + $17 }' /proc/$$/stat; }
b0=$(host_busy) c0=$(children_cpu) t0=$(date +%s)
envs=()
for v in SHB_LAT_CPU SHB_MSG SHB_SPARSE_MPS SHB_BOOT_SECS SHB_RX_COPY PROF PROF_GRAPH; do
	[ -z "${!v:-}" ] || envs+=(--env "$v=${!v}")
done
echo "VM: two guests, about four minutes under TCG" >&2
status=0
selftests/vm/run --guests 2 --link "$link" "${mem[@]}" --smp "$smp" --kernel-release "$krel" \
	--out "$out" --timeout $((6 * (lat + warm + 20) + 2 * (tput + 30) + 2 * (udp + 30) + 400)) \
	--env SHB_LAT_SECS="$lat" --env SHB_WARM_SECS="$warm" --env SHB_TPUT_SECS="$tput" \
	--env SHB_UDP_SECS="$udp" --env SHB_DONE_SECS=$((6 * (lat + warm + 20) + 2 * (tput + 30) +
		2 * (udp + 30) + 300)) "${envs[@]}" \
	-- tools/bench/shpool-guest.sh >"$out/run.log" 2>&1 || status=$?
b1=$(host_busy) c1=$(children_cpu) t1=$(date +%s)
[ $status -eq 0 ] || { echo "VM run failed ($status): $out/run.log" >&2; tail -n 20 "$out/run.log" >&2; }
hz=$(getconf CLK_TCK)
other=$(awk -v b=$((b1 - b0)) -v c=$((c1 - c0)) -v t=$((t1 - t0)) -v hz="$hz" \
	'BEGIN { printf "%.2f", (b - c) / hz / (t > 0 ? t : 1) }')
echo "tree $(git describe --always --dirty 2>/dev/null || echo '?'), pool on ${mem[*]}," \
	"virtio-net on $link;" \
	"$(nproc) CPUs, of which" \
	"other work used $other on average during the $((t1 - t0)) s run" >"$out/host"
summarize "$out" || status=1
echo "raw files: $out/guest0/shpool, $out/guest1/shpool" >&2
exit "$status"
