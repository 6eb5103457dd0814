#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# NetDIMM benchmark (issue 7, item 8), in one VM run: sockperf ping-pong
# latency (p50, p99) and iperf3 single-stream TCP throughput between two
# namespaces, over a veth pair and over ndimm pairs (interrupt mode with
# zerocopy RX, clone RX, and a 20 us polling agent), in rounds of
# alternating order; copies per packet from the ndimm counters; the CPU
# time /proc/stat charges per GB and per round trip as the cost figure
# (instruction counts are not to be had under TCG). Prints the systems
# side by side and the ndimm/veth ratios against the issue's targets
# (latency <= 1.0x veth, throughput >= 0.9x veth): reported, not enforced.
# Writes DIR/ndimm/summary.txt and rows.jsonl (tools/bench/README.md, "Rows"),
# breakdown.md: where the CPU goes, per round trip and per MB, from the
# perf windows of round 1 (tools/bench/stages.py), and cdf.json: every
# system's latency CDF (tools/bench/cdf.py).
# Not part of make check.
#
#   tools/bench/ndimm.sh [-l LAT_SECS] [-t TPUT_SECS] [-r ROUNDS] [-o|--out DIR]
#   tools/bench/ndimm.sh --report DIR     summarize an earlier run again
#
# The guest (ndimm-guest.sh) only measures; the sums are done here, on the
# host, from the raw files in DIR/ndimm. The defaults (4 s, 5 s, 3 rounds)
# take about four minutes under TCG. NDB_SYSTEMS picks the systems (default
# "veth ndimm-zc ndimm-clone ndimm-poll20"), NDB_LAT_CPUS the sockperf
# server and client CPUs (default "0 0": under TCG a wakeup across vCPUs
# costs milliseconds), NDB_TPUT_CPUS iperf3's client and server (0,1).
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
lat=${NDB_LAT_SECS:-4} tput=${NDB_TPUT_SECS:-5} rounds=${NDB_ROUNDS:-3} out= report=

usage() {
	echo "usage: $0 [-l LAT_SECS] [-t TPUT_SECS] [-r ROUNDS] [-o|--out DIR] | --report DIR" >&2
	exit 2
}

# sockperf's log -> {"p50", "p99", "avg", "rtts"} (microseconds; one way = RTT/2)
parse_sockperf() {
	[ -r "$1" ] || { echo '{}'; return; }
	awk '/percentile 50.000/ { p50 = $NF } /percentile 99.000/ { p99 = $NF }
	     /avg-latency=/ { sub(/.*avg-latency=/, ""); sub(/ .*/, ""); avg = $0 }
	     /\[Valid Duration\]/ { sub(/.*ReceivedMessages=/, ""); rt = $0 + 0 }
	     END { printf "{\"p50\":%s,\"p99\":%s,\"avg\":%s,\"rtts\":%s}\n", p50 ? p50 : "null",
		   p99 ? p99 : "null", avg ? avg : "null", rt ? rt : "null" }' "$1" 2>/dev/null ||
		echo '{}'
}

# the samples file -> {"label": {"t", "busy", "idle", "rxb", "rxp", "txb", "txp"}}
parse_samples() {
	[ -r "$1" ] || { echo '{}'; return; }
	awk 'BEGIN { printf "{" }
	     { printf "%s\"%s\":{\"t\":%s,\"busy\":%s,\"idle\":%s,", (NR > 1 ? "," : ""), $1, $2, $3, $4
	       printf "\"rxb\":%s,\"rxp\":%s,\"txb\":%s,\"txp\":%s}", $5, $6, $7, $8 }
	     END { print "}" }' "$1" 2>/dev/null || echo '{}'
}

# edmctl -j netdimm stats -> {"nd0": {...}, "nd1": {...}}
parse_nd() {
	jq -c 'map({ key: .name, value: .stats }) | from_entries' "$1" 2>/dev/null || echo '{}'
}

# tc -s qdisc and BQL -> {"qdisc", "requeues", "qdrops", "bql_limit"}
parse_qdisc() {
	[ -r "$1" ] || { echo '{}'; return; }
	awk '/^qdisc/ && !q { q = $2 } /Sent .* pkt/ && !s { s = 1; sub(/.*dropped /, ""); d = $1 + 0 }
	     /requeues/ { r = $NF } /^limit:/ { sub(/^limit:/, ""); l = $0 }
	     END { printf "{\"qdisc\":\"%s\",\"requeues\":%s,\"qdrops\":%s,\"bql_limit\":%s}\n",
		   q, r + 0, d + 0, l == "" ? "null" : l }' "$1" 2>/dev/null || echo '{}'
}

# one JSON line per run from the raw files of DIR/ndimm
collect() {
	local d=$1 tag sys round

	while read -r tag; do
		sys=${tag%.r*} round=${tag##*.r}
		if [ -e "$d/$tag.error" ]; then
			jq -cn --arg s "$sys" --argjson r "$round" --rawfile e "$d/$tag.error" \
				'{ sys: $s, round: $r, error: ($e | rtrimstr("\n")) }'
			continue
		fi
		jq -cn --arg s "$sys" --argjson r "$round" \
			--argjson pp "$(parse_sockperf "$d/$tag.sockperf.log")" \
			--argjson ip "$(jq -c '{ bps: .end.sum_received.bits_per_second,
				retrans: .end.sum_sent.retransmits }' "$d/$tag.iperf3.json" 2>/dev/null ||
				echo '{}')" \
			--argjson smp "$(parse_samples "$d/$tag.samples")" \
			--argjson nd0 "$(parse_nd "$d/$tag.nd0.json")" \
			--argjson nd1 "$(parse_nd "$d/$tag.nd1.json")" \
			--argjson nd2 "$(parse_nd "$d/$tag.nd2.json")" \
			--argjson nd3 "$(parse_nd "$d/$tag.nd3.json")" \
			--argjson q "$(parse_qdisc "$d/$tag.qdisc")" '
			def d(x; y): y | with_entries(.key as $k | .value |=
				with_entries(.value -= (x[$k][.key] // 0)));
			{ sys: $s, round: $r } + $pp + $ip + $q +
			{ smp: $smp, idle: d($nd0; $nd1), lat: d($nd1; $nd2), tput: d($nd2; $nd3) }'
	done <"$d/order"
}

summarize() {
	local d=$1

	collect "$d" >"$d/runs.jsonl"
	jq -rs --slurpfile p <(params "$d") \
		--arg host "$(cat "$d/host" 2>/dev/null)" "$(summary_jq)" "$d/runs.jsonl" |
		tee "$d/summary.txt"
	jq -cs --slurpfile p <(params "$d") "$(rows_jq)" "$d/runs.jsonl" >"$d/rows.jsonl"
	breakdown "$d" >"$d/breakdown.md"
	cdf "$d"
}

# DIR/cdf.json: each system's ping-pong latencies, every round pooled
cdf() {
	"$top/tools/bench/cdf.py" "$1/cdf.json" \
		"ndimm pairs and a veth pair: sockperf UDP ping-pong latency (RTT/2), all rounds" \
		veth="$1/veth.r*.lat.csv" ndimm-zc="$1/ndimm-zc.r*.lat.csv" \
		ndimm-clone="$1/ndimm-clone.r*.lat.csv" ndimm-poll20="$1/ndimm-poll20.r*.lat.csv"
}

# the cost breakdown of round 1's profiled phases, veth first
breakdown() {
	local tags=() s

	for s in veth ndimm-zc ndimm-clone ndimm-poll20; do tags+=("$s.r1"); done
	"$top/tools/bench/breakdown.sh" "$1" "${tags[@]}"
}

# DIR/params (k=v lines) -> {"k": "v", ...}
params() {
	sed 's/^\([^=]*\)=\(.*\)/{"\1": "\2"}/' "$1/params" | jq -s add
}

# the definitions the summary and the rows share
figures_jq() {
	cat <<'EOF'
def median: map(select(. != null)) | sort | if length == 0 then null
	elif (.[0] | type) != "number" then .[0]
	elif length % 2 == 1 then .[length / 2 | floor]
	else (.[length / 2 - 1] + .[length / 2]) / 2 end;
def spread: map(numbers) | if length < 2 or median == 0 then null
	else (max - min) / median * 100 end;
# fixed point with n decimals, "-" for nothing
def r(n): def zp(w): if length >= w then . else ("0" * (w - length)) + . end;
	if . == null then "-" elif n == 0 then round | tostring
	else (. * pow(10; n) | round) as $i | ($i | fabs | tostring | zp(n + 1)) as $z |
		(if $i < 0 then "-" else "" end) + $z[:-n] + "." + $z[-n:] end;
def pad(w): tostring | if length >= w then . else (" " * (w - length)) + . end;
def lpad(w): tostring | if length >= w then . else . + (" " * (w - length)) end;
def per(a; b): if a == null or b == null or b == 0 then null else a / b end;
def mul(k): if . == null then null else . * k end;
# a counter of the phase, both devices summed (null for veth)
def both(ph; k): if (.[ph] | length) == 0 then null
	else [.[ph][] | .[k] // 0] | add end;
def win(a; b; k): (.smp[b][k] // null) as $y | (.smp[a][k] // null) as $x |
	if $x == null or $y == null then null else $y - $x end;
def hz: $p[0].hz | tonumber;
def clones(ph): (both(ph; "clone_fpm") // 0) + (both(ph; "clone_psm") // 0) +
	(both(ph; "clone_gcm") // 0);
# a counter of the phase on the data sender (nd0, in ndA) or receiver (nd1)
def tx(ph; k): .[ph].nd0[k] // null;
def rx(ph; k): .[ph].nd1[k] // null;

# per run: the figures the table shows
def figures: {
	p50, p99, avg,
	mbps: (if .bps then .bps / 1e6 else null end),
	retrans,
	win_mbps: per(win("tput0"; "tput1"; "txb") | mul(8e-6); win("tput0"; "tput1"; "t")),
	s_gb: per(win("tput0"; "tput1"; "busy") | mul(1 / hz); win("tput0"; "tput1"; "txb") | mul(1e-9)),
	us_rtt: per(win("lat0"; "lat1"; "busy") | mul(1e6 / hz); win("lat0"; "lat1"; "rxp")),
	idle: per(win("idle0"; "idle1"; "busy") | mul(100);
		  (win("idle0"; "idle1"; "busy") // 0) + (win("idle0"; "idle1"; "idle") // 0)),
	txsz: per(win("tput0"; "tput1"; "txb"); win("tput0"; "tput1"; "txp")),
	host: per(both("tput"; "host_copies"); both("tput"; "tx_packets")),
	wire: per(both("tput"; "wire_copies"); both("tput"; "tx_packets")),
	zc: per(rx("tput"; "rx_zerocopy"); rx("tput"; "rx_packets")),
	cloned: per(rx("tput"; "rx_cloned"); rx("tput"; "rx_packets")),
	clones: (if rx("tput"; "rx_packets") == null then null
		 else per((rx("tput"; "clone_fpm") // 0) + (rx("tput"; "clone_psm") // 0) +
			  (rx("tput"; "clone_gcm") // 0); rx("tput"; "rx_packets")) end),
	data_copies: (if tx("tput"; "tx_packets") == null then null
		      else [per(tx("tput"; "host_copies"); tx("tput"; "tx_packets")),
			    per(tx("tput"; "wire_copies"); tx("tput"; "tx_packets")),
			    per(rx("tput"; "rx_cloned"); rx("tput"; "rx_packets"))] | map(. // 0) | add end),
	fpm: per(both("tput"; "clone_fpm"); clones("tput")),
	hits: per(both("tput"; "cache_hits");
		  (both("tput"; "cache_hits") // 0) + (both("tput"; "cache_misses") // 0)),
	qdisc, requeues, qdrops, bql_limit,
	polls_pkt: per(both("tput"; "polls"); both("tput"; "rx_packets")),
	lat_polls: per(both("lat"; "polls"); both("lat"; "rx_packets")),
	lat_host: per(both("lat"; "host_copies"); both("lat"; "tx_packets")),
	idle_polls: per(both("idle"; "polls"); $p[0].idle_s | tonumber),
	fallback: (if both("tput"; "tx_packets") == null then null
		   else [both("tput"; "tx_zone_fallback"), both("tput"; "rx_zone_fallback"),
			 both("lat"; "tx_zone_fallback"), both("lat"; "rx_zone_fallback")] | add end),
	drops: (if both("tput"; "tx_packets") == null then null
		else [both("tput"; "tx_drops"), both("tput"; "rx_drops"),
		      both("lat"; "tx_drops"), both("lat"; "rx_drops")] | add end)
};
EOF
}

summary_jq() {
	figures_jq
	cat <<'EOF'
[.[] | select(.error == null)] as $ok
| [.[] | select(.error != null) | "\(.sys) round \(.round): \(.error)"] as $errs
# per system: the median of each figure, its spread and every round's value
| def agg: . as $g | reduce ($g[0] | keys_unsorted[] | select(. != "sys" and . != "round")) as $k
	({ n: ($g | length) }; .[$k] = ($g | map(.[$k]) | median) |
	 .[$k + "_sp"] = ($g | map(.[$k]) | spread) | .[$k + "_all"] = ($g | map(.[$k])));
  ($ok | map({ sys, round } + figures) | group_by(.sys) |
   map({ key: .[0].sys, value: agg }) | from_entries) as $s
# the systems in the order they first ran, veth first
| (reduce ($ok[] | .sys) as $x (["veth"]; if any(.[]; . == $x) then . else . + [$x] end) |
   map(select($s[.] != null))) as $sys
| $s.veth as $v
| ([14, ($sys[] | length + 2)] | max) as $w
| def row(lbl; f): (lbl | lpad(30)) + ([$sys[] | $s[.] | f | pad($w)] | join(""));
  def ratio_row(lbl; f): (lbl | lpad(30)) + ([$sys[] | per($s[.] | f; $v | f) | r(2) |
	if . == "-" then . else . + "x" end | pad($w)] | join(""));
  # in the context of a system's name
  def verdict(name; f; op; target): per($s[.] | f; $v | f) as $q |
	"\(name) \($q | r(2))x " + (if $q == null then "n/a"
	elif (op == "<=" and $q <= target) or (op == ">=" and $q >= target) then "met" else "NOT met" end);
"==== ndimm vs veth: \($p[0].krel), \($p[0].nproc) vCPUs, \($p[0].rounds) rounds, " +
	"order alternating ====",
"sockperf pp \($p[0].msg) B UDP \($p[0].lat_s) s, server,client on CPU \($p[0].lat_cpus) " +
	"(latency = RTT/2);",
"iperf3 1 TCP stream \($p[0].tput_s) s (+1 s omitted), client,server on CPU \($p[0].tput_cpus)",
"medians over rounds; \"spread\" = (max - min) / median; CPU figures: /proc/stat busy time of",
"all CPUs in a steady window of each phase, per GB sent / per round trip",
(if $host != "" then "host: \($host)" else empty end),
"",
(("" | lpad(30)) + ([$sys[] | pad($w)] | join(""))),
row("latency p50 (us)"; .p50 | r(1)),
row("  spread %"; .p50_sp | r(0)),
row("latency p99 (us)"; .p99 | r(1)),
row("  spread %"; .p99_sp | r(0)),
row("latency avg (us)"; .avg | r(1)),
row("throughput (Mbit/s)"; .mbps | r(0)),
row("  spread %"; .mbps_sp | r(0)),
row("  steady window (Mbit/s)"; .win_mbps | r(0)),
row("  TCP retransmits"; .retrans | r(0)),
row("CPU s per GB"; .s_gb | r(1)),
row("  spread %"; .s_gb_sp | r(0)),
row("CPU us per round trip"; .us_rtt | r(0)),
row("CPU busy at idle (%)"; .idle | r(1)),
row("bytes per TX packet (iperf3)"; .txsz | r(0)),
row("host copies / TX packet"; .host | r(2)),
row("wire copies / TX packet"; .wire | r(2)),
row("data copies / data packet"; if .host == null then "0 (a)" else .data_copies | r(2) end),
row("RX zerocopy share (data)"; .zc | r(2)),
row("RX cloned share (data)"; .cloned | r(2)),
row("clone ops / RX data packet"; .clones | r(2)),
row("  FPM share of clone ops"; .fpm | r(2)),
row("allocCache hit rate"; .hits | r(2)),
row("polls / RX packet (iperf3)"; .polls_pkt | r(2)),
row("polls / RX packet (sockperf)"; .lat_polls | r(2)),
row("polls / s at idle (both)"; .idle_polls | r(0)),
row("qdisc"; .qdisc_all[0] // "-"),
row("  requeues, drops"; if .requeues == null then "-"
	else "\(.requeues | r(0)), \(.qdrops | r(0))" end),
row("  BQL limit (bytes)"; .bql_limit | r(0)),
row("zone fallbacks, drops (sum)"; if .fallback == null then "-"
	else "\(.fallback), \(.drops)" end),
"(a) veth hands the sender's skb to the receiver: no copy. ndimm counters: the iperf3",
"    phase's; per TX packet: both devices (data and ACKs); (data): the receiving end only;",
"    data copies = host + wire copies per packet sent + clones per packet received.",
"",
ratio_row("ndimm/veth latency p50"; .p50),
ratio_row("ndimm/veth latency p99"; .p99),
ratio_row("ndimm/veth throughput"; .mbps),
ratio_row("ndimm/veth CPU per GB"; .s_gb),
ratio_row("ndimm/veth CPU per round trip"; .us_rtt),
"",
"targets (issue 7 item 8: latency <= 1.0x veth, throughput >= 0.9x veth), not enforced:",
($sys[] | select(. != "veth") | "  \(. | lpad($w))" + verdict("p50"; .p50; "<="; 1.0) + ", " +
	verdict("p99"; .p99; "<="; 1.0) + ", " + verdict("throughput"; .mbps; ">="; 0.9)),
"",
"each round, in run order (p50 us | p99 us | Mbit/s | CPU s/GB):",
($sys[] | . as $n | $s[$n] | "  \($n | lpad($w)) \(.p50_all | map(r(0)) | join(" ")) | " +
	"\(.p99_all | map(r(0)) | join(" ")) | \(.mbps_all | map(r(0)) | join(" ")) | " +
	"\(.s_gb_all | map(r(1)) | join(" "))"),
(if ($errs | length) > 0 then "", "failed runs:", ($errs[] | "  " + .) else empty end)
EOF
}

# rows.jsonl (tools/bench/README.md, "Rows"): per ndimm system of the run, each ratio the
# summary prints against veth, from the same medians; per-round ratios pair round numbers
rows_jq() {
	figures_jq
	cat <<'EOF'
[.[] | select(.error == null) | { sys, round } + figures] as $runs
| . as $all
# every system of the run, ndimm ones in the order they first ran
| (reduce (.[] | .sys) as $x ([]; if any(.[]; . == $x) then . else . + [$x] end) |
   map(select(. != "veth"))) as $nd
| def pname: "ndimm pair (" + (ltrimstr("ndimm-") |
	if test("^poll[0-9]+$") then "poll \(ltrimstr("poll")) us" else . end) + ")";
  # why a system's rounds lack figure k: failed runs, or nothing measured
  def gaps($n; $k; $what): ($all | map(select(.sys == $n))) as $r |
	if ($r | length) == 0 then ["\($n) was not in this run"]
	else [$r[] | .round as $i | if .error != null then { $i, why: "failed: \(.error)" }
		elif any($runs[]; .sys == $n and .round == $i and .[$k] != null) then empty
		else { $i, why: "no \($what)" } end] | group_by(.why) | sort_by(.[0].i) |
		map("\($n) round\(if length > 1 then "s" else "" end) " +
		    "\(map(.i | tostring) | join(", ")): \(.[0].why)") end;
  def row($n; $metric; $better; $k; $what; $target):
	($runs | map(select(.sys == $n and .[$k] != null))) as $e |
	($runs | map(select(.sys == "veth" and .[$k] != null))) as $c |
	($e | map(.[$k]) | median) as $em | ($c | map(.[$k]) | median) as $cm |
	[$e[] | .round as $i | .[$k] as $x |
	 $c[] | select(.round == $i) | per($x; .[$k])] as $pr |
	(gaps($n; $k; $what) + gaps("veth"; $k; $what) +
	 if $em != null and $cm == 0 then ["veth's \($what) is 0"] else [] end +
	 if ($pr | length) < ([$e, $c] | map(length) | min) then
		["per-round ratios over the \($pr | length) rounds both measured"] else [] end)
	as $why |
	{ bench: "ndimm", path: ($n | pname), metric: $metric, better: $better, edm: $em,
	  competitor: "veth pair", comp: $cm, ratio: per($em; $cm), target: $target,
	  rounds: ([$e, $c] | map(length) | min),
	  ratio_min: (if ($pr | length) < 2 then null else $pr | min end),
	  ratio_max: (if ($pr | length) < 2 then null else $pr | max end) } +
	if ($why | length) > 0 then { note: $why | join("; ") } else {} end;
$nd[] |
row(.; "sockperf p50 latency (us)"; "lower"; "p50"; "sockperf p50"; "<= 1.0"),
row(.; "sockperf p99 latency (us)"; "lower"; "p99"; "sockperf p99"; "<= 1.0"),
row(.; "iperf3 TCP Mbit/s"; "higher"; "mbps"; "iperf3 result"; ">= 0.9"),
row(.; "CPU s per GB sent (iperf3)"; "lower"; "s_gb"; "CPU or byte counts"; null),
row(.; "CPU us per round trip (sockperf)"; "lower"; "us_rtt"; "CPU or packet counts"; null)
EOF
}

while [ $# -gt 0 ]; do
	case $1 in
	-l) lat=$2; shift ;;
	-t) tput=$2; shift ;;
	-r) rounds=$2; shift ;;
	-o | --out) out=$2; shift ;;
	--out=*) out=${1#--out=} ;;
	--report) report=$2; shift ;;
	*) usage ;;
	esac
	shift
done

if [ -n "$report" ]; then
	summarize "$report/ndimm"
	exit
fi

cd "$top"
krel=$(scripts/krel.sh --vm)
make -s module KREL="$krel"
make -s edmctl
[ -n "$out" ] || out=$(mktemp -d /tmp/ndimm-bench.XXXXXX)
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -rf "$out/ndimm"	# the guest appends to its files
nsys=$(wc -w <<<"${NDB_SYSTEMS:-veth ndimm-zc ndimm-clone ndimm-poll20}")
# How busy the host was with work other than this run's (other VMs under
# TCG are the main source of drift): host CPU time minus our children's.
host_busy() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat; }
children_cpu() { awk '{ print $16 + $17 }' /proc/$$/stat; }
b0=$(host_busy) c0=$(children_cpu) t0=$(date +%s)
envs=()
for v in NDB_SYSTEMS NDB_SIZE NDB_MSG NDB_IDLE_SECS NDB_LAT_CPUS NDB_TPUT_CPUS; do
	[ -z "${!v:-}" ] || envs+=(--env "$v=${!v}")
done
status=0
selftests/vm/run --kernel-release "$krel" --out "$out" \
	--timeout $(((lat + tput + 30) * rounds * nsys + 300)) \
	--env NDB_LAT_SECS="$lat" --env NDB_TPUT_SECS="$tput" --env NDB_ROUNDS="$rounds" \
	--env NDB_OUT="$out/ndimm" "${envs[@]}" \
	-- tools/bench/ndimm-guest.sh || status=$?
b1=$(host_busy) c1=$(children_cpu) t1=$(date +%s)
hz=$(getconf CLK_TCK)
other=$(awk -v b=$((b1 - b0)) -v c=$((c1 - c0)) -v t=$((t1 - t0)) -v hz="$hz" \
	'BEGIN { printf "%.2f", (b - c) / hz / (t > 0 ? t : 1) }')
echo "tree $(git describe --always --dirty 2>/dev/null || echo '?'); $(nproc) CPUs, of which" \
	"other work used $other on average during the run" >"$out/ndimm/host"
summarize "$out/ndimm"
echo "raw logs: $out/ndimm" >&2
exit "$status"
