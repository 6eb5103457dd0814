#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# DFabric benchmark (the NIC pool issue's item), everything in one VM run
# (selftests/vm/run, guest half dfabric-guest.sh); not part of make check.
#
#  inter-rack  four veth links, each end shaped by tbf to the same rate;
#              iperf3 with 1 and with 4 TCP flows through edm's NIC pool
#              (flowlet and spray mode) against Linux bonding balance-rr,
#              balance-xor (layer3+4) and MPTCP with four subflows over the
#              same four links: throughput, its ratio to the links' sum,
#              TCP retransmits (iperf3's and the sender's MIB), reordering
#              (the receiver's TcpExtTCPOFOQueue, the sender's
#              TCPSACKReorder + TCPTSReorder + TCPRenoReorder, and the NIC
#              pool's own "reordered" and "late"), each link's share
#              of the bytes sent, and redis-benchmark's GET and SET latency
#              across the links (as intra-rack; one shaped link too).
#  intra-rack  sockperf ping-pong latency, iperf3 throughput and
#              redis-benchmark's GET and SET latency (one client,
#              DFB_REDIS_N requests each, 5000) between two
#              compute nodes of one rack against a plain veth pair; with
#              -p, one rack per memory provider of its pool (ram, pmem,
#              devdax: the VM gets an NVDIMM for the last two), or dcache
#              (ram, the compute nodes with a DRAM cache that every packet
#              fits).
#
# Targets (reported, not enforced): a single flow through the NIC pool
# reaches at least 0.9x the four links' sum with fewer retransmits than
# balance-rr; intra-rack latency (p50) no worse than veth. The NIC pool
# rows say "n/a: edmctl has no nicpool" on a tree without one.
#
#   tools/bench/dfabric/dfabric.sh [-r MBIT] [-t SECS] [-l SECS] [-R ROUNDS]
#                                  [-c "CONTENDER..." | -c none]
#                                  [-p "PROVIDER..."] [-o DIR]
#   tools/bench/dfabric/dfabric.sh --report DIR   format an earlier run again
#
# Defaults: 25 Mbit/s per link (under TCG one unshaped veth carries about
# 500 Mbit/s, and the check line says whether that is still well above the
# four links' sum), iperf3 8 s (+1 s omitted), sockperf 4 s, 2 intra-rack
# rounds in alternating order; all five contenders (nicpool-flowlet
# nicpool-spray bond-rr bond-xor mptcp; none: intra-rack only); the
# pool on RAM (-p "ram pmem devdax" adds the others). DFB_GAP_US sets the NIC pool's
# flowlet gap, DFB_NP_MTU its members' MTU (1600). About five minutes
# under TCG. Raw files in DIR (default: a new /tmp/dfabric-bench.XXXXXX),
# the guest's in DIR/dfabric. See README.md here.
# The report also writes DIR/dfabric/rows.jsonl (../README.md, "Rows") and
# breakdown.md, where the CPU goes in the intra-rack runs of round 1
# (tools/bench/breakdown.sh), and cdf.json, their latency CDFs (cdf.py).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
rate=25 tput=8 lat=4 rounds=2 contenders='' pools='' out='' report=''

usage() {
	echo "usage: $0 [-r MBIT] [-t SECS] [-l SECS] [-R ROUNDS] [-c \"CONTENDER...\"]" \
		"[-p \"PROVIDER...\"] [-o DIR] | --report DIR" >&2
	exit 2
}

# nstat -saz output -> {"Counter": value, ...}
nstat_json() {
	[ -r "$1" ] || { echo '{}'; return; }
	awk 'BEGIN { printf "{" } $1 !~ /^#/ && NF >= 2 && $2 ~ /^[0-9]+$/ {
		printf "%s\"%s\":%s", sep, $1, $2; sep = "," } END { print "}" }' "$1" 2>/dev/null ||
		echo '{}'
}

# sockperf's log -> {"p50", "p99", "avg"} (microseconds; one way = RTT/2)
sockperf_json() {
	awk '/percentile 50.000/ { p50 = $NF } /percentile 99.000/ { p99 = $NF }
	     /avg-latency=/ { sub(/.*avg-latency=/, ""); sub(/ .*/, ""); avg = $0 }
	     END { printf "{\"p50\":%s,\"p99\":%s,\"avg\":%s}\n", p50 ? p50 : "null",
		   p99 ? p99 : "null", avg ? avg : "null" }' "$1" 2>/dev/null || echo '{}'
}

# redis-benchmark's --csv -> {"redis_set_p50", .._p99, "redis_get_p50", .._p99} (us)
redis_json() {
	[ -r "$1" ] || { echo '{}'; return; }
	awk -F'"' '$2 == "SET" || $2 == "GET" { k = tolower($2)
		v[k "_p50"] = $10 * 1000; v[k "_p99"] = $14 * 1000 }
	     END { printf "{"; n = 0
		   for (k in v) printf "%s\"redis_%s\":%s", n++ ? "," : "", k, v[k]
		   print "}" }' "$1" 2>/dev/null || echo '{}'
}

# json FILE: the file if it holds JSON, else null
json() {
	jq -c . "$1" 2>/dev/null || echo null
}

# One JSON line per inter-rack run: CONTENDER FLOWS, from DIR's files.
inter_collect() {
	local d=$1 c=$2 p=$3 t=$2.$3 links

	case $c in
	nicpool-*) links=npa ;;
	bond-*) links=bla ;;
	link) links=lka ;;
	*) links=mpa ;;
	esac
	if [ -e "$d/$c.error" ]; then
		jq -cn --arg c "$c" --argjson p "$p" --arg e "$(head -n 1 "$d/$c.error")" \
			'{ c: $c, flows: $p, error: $e }'
		return
	fi
	jq -cn --arg c "$c" --argjson p "$p" --arg l "$links" \
		--argjson ip "$(json "$d/$t.iperf3.json")" \
		--argjson tx0 "$(nstat_json "$d/$t.tx0.nstat")" \
		--argjson tx1 "$(nstat_json "$d/$t.tx1.nstat")" \
		--argjson rx0 "$(nstat_json "$d/$t.rx0.nstat")" \
		--argjson rx1 "$(nstat_json "$d/$t.rx1.nstat")" \
		--argjson l0 "$(json "$d/$t.links0.json")" \
		--argjson l1 "$(json "$d/$t.links1.json")" \
		--argjson np0 "$(json "$d/$t.npb0.json")" \
		--argjson np1 "$(json "$d/$t.npb1.json")" \
		--argjson rd "$(if [ "$p" = 1 ]; then redis_json "$d/$c.redis.csv"; else echo '{}'; fi)" '
	def dx(a; b; k): (b[k] // 0) - (a[k] // 0);
	def np(k): if $np1 == null then null
		else ([$np1 | .. | objects | .[k]? | numbers] | add // 0) -
		     ([$np0 | .. | objects | .[k]? | numbers] | add // 0) end;
	def txb(j; n): [j[]? | select(.ifname == n) | .stats64.tx.bytes] | first // 0;
	[range(4) | "\($l)\(.)" as $n | txb($l1; $n) - txb($l0; $n)] as $split
	| { c: $c, flows: $p,
	    error: ($ip.error // (if $ip == null then "no iperf3 output" else null end)),
	    mbps: ($ip.end.sum_received.bits_per_second // null | if . then . / 1e6 else null end),
	    retr: ($ip.end.sum_sent.retransmits // null),
	    retr_mib: dx($tx0; $tx1; "TcpRetransSegs"),
	    ofo: dx($rx0; $rx1; "TcpExtTCPOFOQueue"),
	    mp_ofo: dx($rx0; $rx1; "MPTcpExtOFOQueue"),
	    reord: (dx($tx0; $tx1; "TcpExtTCPSACKReorder") + dx($tx0; $tx1; "TcpExtTCPTSReorder") +
		    dx($tx0; $tx1; "TcpExtTCPRenoReorder")),
	    joins: dx($tx0; $tx1; "MPTcpExtMPJoinSynAckRx"),
	    mp_capable: dx($tx0; $tx1; "MPTcpExtMPCapableSYNACKRX"),
	    np_held: np("reordered"), np_late: np("late"),
	    np_flushes: (if $np1 == null then null
			 else np("window-flushes") + np("timeout-flushes") end),
	    split: $split } + $rd'
}

# One JSON line per intra-rack run, in run order.
intra_collect() {
	local d=$1 tag

	while read -r tag; do
		jq -cn --arg tag "$tag" --argjson sp "$(sockperf_json "$d/$tag.sockperf.log")" \
			--argjson rd "$(redis_json "$d/$tag.redis.csv")" \
			--argjson ip "$(json "$d/$tag.iperf3.json")" \
			--argjson cn0 "$(json "$d/$tag.cn0.json")" \
			--argjson cn1 "$(json "$d/$tag.cn1.json")" '
		def cn(j): j | map({ (.name): .stats }) | add // {};
		def d(k): if $cn1 == null then null
			else (cn($cn1).cni1[k] // 0) - (cn($cn0).cni1[k] // 0) end;
		($tag | split(".")) as $t
		| { sys: $t[1], round: ($t[2] | ltrimstr("r") | tonumber) } + $sp + $rd +
		  { mbps: ($ip.end.sum_received.bits_per_second // null |
			   if . then . / 1e6 else null end),
		    txp: d("tx-packets"), copies: d("copies"), fwd: d("forwarded") }'
	done <"$d/intra.order"
}

summary_jq() {
	cat <<'EOF'
def r(n): if . == null then "-" elif n == 0 then (. + 0.5 | floor | tostring)
	else (. * pow(10; n) + 0.5 | floor) as $i |
		($i / pow(10; n) | floor | tostring) + "." +
		(($i % pow(10; n)) | tostring | ("0" * (n - length)) + .) end;
def pad(w): tostring | if length >= w then . else (" " * (w - length)) + . end;
def lpad(w): tostring | if length >= w then . else . + (" " * (w - length)) end;
def per(a; b): if a == null or b == null or b == 0 then null else a / b end;
def mean: map(select(. != null)) | if length == 0 then null else add / length end;
def verdict(ok): if ok == null then "n/a" elif ok then "met" else "NOT met" end;
($p[0].rate | tonumber) as $rate | (4 * $rate) as $sum
| $intra | map(select(.sys == "veth")) as $veth | map(select(.sys == "rack")) as $rack
| ($veth | map(.mbps) | mean) as $veth_mbps
| { p50: ($rack | map(.p50) | mean), p99: ($rack | map(.p99) | mean),
    avg: ($rack | map(.avg) | mean), mbps: ($rack | map(.mbps) | mean),
    copies: per($rack | map(.copies) | mean; $rack | map(.txp) | mean),
    fwd: ($rack | map(.fwd) | mean) } as $R
| { p50: ($veth | map(.p50) | mean), p99: ($veth | map(.p99) | mean),
    avg: ($veth | map(.avg) | mean), mbps: $veth_mbps } as $V
| $inter as $runs
| def run(c; f): $runs | map(select(.c == c and .flows == f)) | first;
  def rr1: run("bond-rr"; 1);
  def split: if .split == null or (.split | add) == 0 then "-"
	else (.split | add) as $t | [.split[] | . * 100 / $t | r(0)] | join("/") end;
  def row: (.c | lpad(16)) + (.flows | pad(5)) +
	if .error then "   n/a: " + .error
	else (.mbps | r(1) | pad(9)) + (per(.mbps; $sum) | r(2) | pad(7)) +
		((.retr | r(0)) + (if (.c == "mptcp") then "*" else "" end) | pad(7)) +
		(.retr_mib | r(0) | pad(10)) + (.ofo | r(0) | pad(9)) + (.reord | r(0) | pad(10)) +
		((if .np_held == null then "-" else "\(.np_held)/\(.np_late)" end) | pad(14)) +
		"  " + split end;
  def tput_target: if .error then null else per(.mbps; $sum) >= 0.9 end;
  def retr_target: if .error or rr1.error or .retr == null or rr1.retr == null then null
	else .retr < rr1.retr end;
"==== DFabric: \($p[0].krel), \($p[0].nproc) vCPUs; \($p[0].tput_s) s iperf3 runs (+1 s omitted) ====",
(if $host != "" then "host: \($host)" else empty end),
"",
"== inter-rack: 4 links x \($rate) Mbit/s (\($p[0].tbf) on both ends of each veth link),",
"   sum \($sum) Mbit/s; sender in one namespace, receiver in another ==",
(per($veth_mbps; $sum) as $q |
 "check: one unshaped veth, 1 flow: \($veth_mbps | r(0)) Mbit/s = \($q | r(1))x the links' sum " +
 "(want >= 2x, so the shaping is the bottleneck): " +
 (if $q == null then "n/a" elif $q >= 2 then "ok" else "NOT ok: lower the rate (-r)" end)),
(run("link"; 1) as $k | per($k.mbps; $rate) as $q |
 "check: one shaped link alone, 1 flow: " +
 if $k == null or $k.error then "n/a\(if $k.error then ": " + $k.error else "" end)"
 else "\($k.mbps | r(1)) Mbit/s = \($q | r(2))x its rate, \($k.retr) retransmits " +
	"(what TCP gets from one link here: the ceiling of any ratio below)" end),
"",
("contender" | lpad(16)) + ("flows" | pad(5)) + ("Mbit/s" | pad(9)) + ("x sum" | pad(7)) +
	("retr" | pad(7)) + ("retr(MIB)" | pad(10)) + ("ofo(rx)" | pad(9)) + ("reord(tx)" | pad(10)) +
	("np held/late" | pad(14)) + "  link split %",
($p[0].contenders | split(" ")[] as $c | (1, 4) as $f | run($c; $f) | select(. != null) | row),
"retr: iperf3's (sum_sent.retransmits; * MPTCP: the first subflow's only); retr(MIB): the",
"sender netns' TcpRetransSegs; ofo(rx): the receiver's TcpExtTCPOFOQueue (segments queued",
"out of order); reord(tx): the sender's TCPSACKReorder + TCPTSReorder + TCPRenoReorder;",
"np held/late: the receiving NIC pool's \"reordered\" and \"late\"; link split: each link's",
"share of the bytes the sending ends sent (data and, for the NIC pool, its headers).",
($runs | map(select(.c == "mptcp" and .error == null))[] |
 "mptcp \(.flows) flow(s): MP_CAPABLE connections \(.mp_capable), joined subflows \(.joins), " +
 "MPTCP-level out-of-order queueing \(.mp_ofo)"),
($runs | map(select(.flows == 1 and .redis_get_p50 != null))) as $rd |
(if $rd == [] then "redis-benchmark across the links: not run (no redis, or it failed)"
 else "redis-benchmark across the links, one client, \($p[0].redis_n // "?") requests (us): " +
	($rd | map("\(.c) GET p50/p99 \(.redis_get_p50 | r(0))/\(.redis_get_p99 | r(0)), " +
		  "SET \(.redis_set_p50 | r(0))/\(.redis_set_p99 | r(0))") | join("; ")) end),
"",
"== intra-rack: compute nodes cni1 -> cni2 of one rack vs a veth pair, \($p[0].rounds) rounds " +
	"(means) ==",
"sockperf ping-pong 64 B UDP \($p[0].lat_s) s on CPU 0 (latency = RTT/2); iperf3 1 flow",
("" | lpad(20)) + ("p50 us" | pad(9)) + ("p99 us" | pad(9)) + ("avg us" | pad(9)) +
	("Mbit/s" | pad(9)) + ("copies/TX pkt" | pad(15)) + ("refs passed" | pad(13)),
("veth" | lpad(20)) + ($V.p50 | r(1) | pad(9)) + ($V.p99 | r(1) | pad(9)) + ($V.avg | r(1) | pad(9)) +
	($V.mbps | r(0) | pad(9)) + ("0 (a)" | pad(15)) + ("-" | pad(13)),
("rack (edm)" | lpad(20)) + ($R.p50 | r(1) | pad(9)) + ($R.p99 | r(1) | pad(9)) +
	($R.avg | r(1) | pad(9)) + ($R.mbps | r(0) | pad(9)) + ($R.copies | r(2) | pad(15)) +
	($R.fwd | r(0) | pad(13)),
("rack / veth" | lpad(20)) + (per($R.p50; $V.p50) | r(2) | pad(9)) +
	(per($R.p99; $V.p99) | r(2) | pad(9)) + (per($R.avg; $V.avg) | r(2) | pad(9)) +
	(per($R.mbps; $V.mbps) | r(2) | pad(9)),
($intra | map(.sys) | unique | map(select(startswith("rack-")))[] as $s |
 ($intra | map(select(.sys == $s))) as $X |
 { p50: ($X | map(.p50) | mean), p99: ($X | map(.p99) | mean), avg: ($X | map(.avg) | mean),
   mbps: ($X | map(.mbps) | mean), copies: per($X | map(.copies) | mean; $X | map(.txp) | mean),
   fwd: ($X | map(.fwd) | mean) } as $Q |
 ("rack, pool on " + ($s | ltrimstr("rack-")) | lpad(20)) + ($Q.p50 | r(1) | pad(9)) +
	($Q.p99 | r(1) | pad(9)) + ($Q.avg | r(1) | pad(9)) + ($Q.mbps | r(0) | pad(9)) +
	($Q.copies | r(2) | pad(15)) + ($Q.fwd | r(0) | pad(13)),
 ("  / veth" | lpad(20)) + (per($Q.p50; $V.p50) | r(2) | pad(9)) +
	(per($Q.p99; $V.p99) | r(2) | pad(9)) + (per($Q.avg; $V.avg) | r(2) | pad(9)) +
	(per($Q.mbps; $V.mbps) | r(2) | pad(9))),
"(a) veth hands the sender's skb to the receiver; the rack copies once at TX into a pool",
"    Buffer and passes its reference (the counters of cni1 during iperf3)",
"each round: " + ($intra | map("\(.sys) \(.p50 | r(0)) us \(.mbps | r(0)) Mbit/s") | join("; ")),
(def rd(X; k): X | map(.[k]) | mean | r(0);
 if ($intra | map(.redis_get_p50) | mean) == null then
	"redis-benchmark: not run (no redis in the guest, or it failed: guest log)"
 else "redis-benchmark, one client, \($p[0].redis_n // "?") requests each (means, us): " +
	([["veth", $veth], ["rack", $rack]] | map(.[0] as $n | .[1] as $X |
	 "\($n) GET p50/p99 \(rd($X; "redis_get_p50"))/\(rd($X; "redis_get_p99")), " +
	 "SET \(rd($X; "redis_set_p50"))/\(rd($X; "redis_set_p99"))") | join("; ")) end),
"",
"== side by side, and the targets ==",
("" | lpad(24)) + ("1 flow Mbit/s (x sum)" | pad(22)) + ("4 flows" | pad(16)) +
	("retr 1/4" | pad(12)) + "  target",
($p[0].contenders | split(" ")[] as $c | run($c; 1) as $a | run($c; 4) as $b |
 select($a != null) |
 ($c | lpad(24)) +
 if $a.error then "n/a: " + $a.error
 else ("\($a.mbps | r(1)) (\(per($a.mbps; $sum) | r(2)))" | pad(22)) +
	("\($b.mbps | r(1)) (\(per($b.mbps; $sum) | r(2)))" | pad(16)) +
	("\($a.retr | r(0))/\($b.retr | r(0))" | pad(12)) + "  " +
	(if ($c | startswith("nicpool")) then
		"1 flow >= 0.9x: \($a | tput_target | verdict(.)); fewer retr than bond-rr " +
		"(\(rr1.retr | r(0))): \($a | retr_target | verdict(.))"
	 elif $c == "bond-rr" then "(the retransmit reference)" else "-" end) end),
("intra-rack latency" | lpad(24)) +
	("p50 rack \($R.p50 | r(1)) us, veth \($V.p50 | r(1)) us" | lpad(50)) +
	"  <= 1.0x veth: \(per($R.p50; $V.p50) | r(2))x \(per($R.p50; $V.p50) |
		if . == null then null else . <= 1.0 end | verdict(.))",
("intra-rack throughput" | lpad(24)) +
	("rack \($R.mbps | r(0)) Mbit/s, veth \($V.mbps | r(0)) Mbit/s" | lpad(50)) +
	"  \(per($R.mbps; $V.mbps) | r(2))x veth (no target)",
(if ($errs | length) > 0 then "", "guest log:", ($errs[] | "  " + .) else empty end)
EOF
}

# The rows.jsonl the report writes (tools/bench/README.md, "Rows"): edm and
# comp are medians over rounds (the summary prints means); inter-rack runs
# are one round each.
rows_jq() {
	cat <<'EOF'
def per(a; b): if a == null or b == null or b == 0 then null else a / b end;
def median: map(select(. != null)) | sort | length as $n |
	if $n == 0 then null elif $n % 2 == 1 then .[($n - 1) / 2]
	else (.[$n / 2 - 1] + .[$n / 2]) / 2 end;
def r1: if . == null then "-" else . * 10 + 0.5 | floor | . / 10 | tostring end;
def notes: map(select(. != null)) | if length == 0 then null else join("; ") end;
def row: { bench: "dfabric", path, metric, better, edm, competitor, comp,
	ratio: per(.edm; .comp), target, rounds, ratio_min, ratio_max } +
	(if .note == null then {} else { note } end);
($p[0].rate | tonumber) as $rate | (4 * $rate) as $sum
| ($intra | unique_by([.sys, .round])) as $runs
| ($runs | map(select(.sys == "veth"))) as $veth
| (if ($intra | length) > ($runs | length) then "the veth rounds were numbered again " +
	"for each provider and their files overwritten: what is left is the last provider's"
   else null end) as $dup
| ((($p[0].pools // "ram") | split(" ")) +
   ($runs | map(.sys | select(startswith("rack")) | ltrimstr("rack") | ltrimstr("-") |
	if . == "" then "ram" else . end)) |
   reduce (.[] | select(. != "")) as $x ([]; if any(.[]; . == $x) then . else . + [$x] end))
	as $provs
| ($provs[] as $pv
   | (if $pv == "ram" then "rack" else "rack-" + $pv end) as $sys
   | ($runs | map(select(.sys == $sys))) as $X
   | (["p50", "sockperf p50 latency (us)", "lower", "<= 1.0"],
      ["p99", "sockperf p99 latency (us)", "lower", null],
      ["mbps", "iperf3 TCP Mbit/s", "higher", ">= 1.0"],
      ["redis_get_p50", "redis-benchmark GET p50 latency (us)", "lower", null],
      ["redis_get_p99", "redis-benchmark GET p99 latency (us)", "lower", "<= 1.0"],
      ["redis_set_p50", "redis-benchmark SET p50 latency (us)", "lower", null],
      ["redis_set_p99", "redis-benchmark SET p99 latency (us)", "lower", "<= 1.0"])
	as [$k, $m, $b, $t]
   | ($X | map(.[$k] | select(. != null))) as $e
   | ($veth | map(.[$k] | select(. != null))) as $v
   | [$X[] | . as $x | per($x[$k]; $veth | map(select(.round == $x.round)) | first | .[$k]) |
	select(. != null)] as $q
   | { path: "rack CNs by reference, pool on \(if $pv == "ram" then "RAM" else $pv end)",
       metric: $m, better: $b, edm: ($e | median), competitor: "veth pair",
       comp: ($v | median), target: $t, rounds: ($e | length),
       ratio_min: (if ($q | length) < 2 then null else $q | min end),
       ratio_max: (if ($q | length) < 2 then null else $q | max end),
       note: [(if $v == [] then "no veth round measured this"
	       else "comp: the median of all \($v | length) veth rounds of the boot (the " +
		"summary: their mean); ratio_min/max: each round over the veth run of its number"
	       end),
	      (if $e == [] then "no \($sys) round measured this (the guest log says why)"
	       else null end),
	      (if ($e | length) > ($q | length) and $v != [] then
		"\(($e | length) - ($q | length)) round(s) without a veth run of their number"
	       else null end), $dup] | notes }
   | row),
($p[0].contenders | split(" ") | map(select(. != "" and . != "none"))) as $cs
| def run(c; f): $inter | map(select(.c == c and .flows == f)) | first;
  def fig(r; k): if r == null or r.error then null else r[k] end;
  def why(c; r): if any($cs[]; . == c) | not then "\(c) was not run (-c)"
	elif r == null then "\(c): no data" elif r.error then "\(c): n/a: \(r.error)"
	else null end;
  run("link"; 1) as $lk | run("bond-rr"; 1) as $rr
| $cs[] | select(startswith("nicpool-")) as $c | run($c; 1) as $a
| "NIC pool (\($c | ltrimstr("nicpool-"))), one TCP flow over 4 shaped links" as $path
| ({ path: $path, metric: "Mbit/s", better: "higher", edm: fig($a; "mbps"),
     competitor: "the four links' sum", comp: $sum, target: ">= 0.9",
     note: [why($c; $a), "comp: 4 x \($rate) Mbit/s, each link's tbf rate" +
	    (if fig($lk; "mbps") == null then "" else "; one shaped link alone carried " +
	     "\($lk.mbps | r1) Mbit/s, the ceiling of this ratio" end)] | notes },
   { path: $path, metric: "Mbit/s", better: "higher", edm: fig($a; "mbps"),
     competitor: "bonding balance-rr", comp: fig($rr; "mbps"), target: null,
     note: [why($c; $a), why("bond-rr"; $rr)] | notes },
   { path: $path, metric: "TCP retransmits", better: "lower", edm: fig($a; "retr"),
     competitor: "bonding balance-rr", comp: fig($rr; "retr"), target: "<= 1.0",
     note: [why($c; $a), why("bond-rr"; $rr), "iperf3's sum_sent.retransmits; the " +
	    "summary's target is strictly fewer than bond-rr",
	    (if fig($rr; "retr") == 0 then "bond-rr had none: no ratio" else null end)] |
	   notes },
   ((["bond-xor", "bonding balance-xor (layer3+4)"], ["mptcp", "MPTCP, 4 subflows"]) as
	[$o, $on] | select(any($cs[]; . == $o)) | run($o; 1) as $r |
    { path: $path, metric: "Mbit/s", better: "higher", edm: fig($a; "mbps"),
      competitor: $on, comp: fig($r; "mbps"), target: null,
      note: [why($c; $a), why($o; $r),
	     (if $o == "mptcp" and fig($r; "mbps") != null then "MP_CAPABLE " +
	      "\($r.mp_capable), joined subflows \($r.joins)" else null end)] | notes }),
   { path: ($path | sub("one TCP flow"; "four TCP flows")), metric: "Mbit/s",
     better: "higher", edm: fig(run($c; 4); "mbps"), competitor: "the four links' sum",
     comp: $sum, target: null, note: [why($c; run($c; 4))] | notes },
   ((["redis_get_p50", "GET p50"], ["redis_get_p99", "GET p99"],
     ["redis_set_p99", "SET p99"]) as [$k, $kn] |
    (["bond-rr", "bonding balance-rr"], ["link", "one shaped link"]) as [$o, $on] |
    select($o == "link" or any($cs[]; . == $o)) | run($o; 1) as $r |
    { path: "NIC pool (\($c | ltrimstr("nicpool-"))), redis-benchmark over 4 shaped links",
      metric: "redis-benchmark \($kn) latency (us)", better: "lower", edm: fig($a; $k),
      competitor: $on, comp: fig($r; $k), target: null,
      note: [why($c; $a), (if $o == "link" then (if $r == null or $r.error then
		"the link check did not run" else null end) else why($o; $r) end),
	     (if fig($a; $k) == null and fig($a; "mbps") != null then
	      "no redis-benchmark figure (no redis in the guest, or it failed: guest log)"
	      else null end),
	     "one client, \($p[0].redis_n // "?") requests (DFabric 6.2's redis over its NIC pool)"]
	    | notes }))
| . + { rounds: (if .edm == null then 0 else 1 end), ratio_min: null, ratio_max: null }
| row
EOF
}

report() {
	local d=$1/dfabric p c

	[ -e "$d/params" ] || { echo "no $d/params: the VM run did not start" >&2; return 1; }
	p=$(sed 's/^\([^=]*\)=\(.*\)/{"\1": "\2"}/' "$d/params" | jq -s -c add)
	{
		if [ "$(jq -r .contenders <<<"$p")" = none ]; then
			jq -cn '{ c: "link", flows: 1, error: "not run (-c none)" }'
		else
			inter_collect "$d" link 1
		fi
		for c in $(jq -r .contenders <<<"$p"); do
			[ "$c" != none ] || continue
			inter_collect "$d" "$c" 1
			inter_collect "$d" "$c" 4
		done
	} >"$d/inter.jsonl"
	touch "$d/intra.order"
	intra_collect "$d" >"$d/intra.jsonl"
	jq -nr --slurpfile p <(echo "$p") --slurpfile inter "$d/inter.jsonl" \
		--slurpfile intra "$d/intra.jsonl" --arg host "$(cat "$1/host" 2>/dev/null)" \
		--rawfile err <(grep -v ' done$' "$d/errors.txt" 2>/dev/null || true) \
		'($err | split("\n") | map(select(length > 0))) as $errs |
		 '"$(summary_jq)" | tee "$d/summary.txt" || return
	jq -nc --slurpfile p <(echo "$p") --slurpfile inter "$d/inter.jsonl" \
		--slurpfile intra "$d/intra.jsonl" "$(rows_jq)" >"$d/rows.jsonl"
	"$top/tools/bench/breakdown.sh" "$d" intra.veth.r1 intra.rack.r1 >"$d/breakdown.md"
	intra_cdf "$d"
}

# DIR/cdf.json: the intra-rack ping-pong latencies, every round pooled
intra_cdf() {
	"$top/tools/bench/cdf.py" "$1/cdf.json" \
		"rack CNs and a veth pair: sockperf UDP ping-pong latency (RTT/2), all rounds" \
		veth="$1/intra.veth.r*.lat.csv" rack="$1/intra.rack.r*.lat.csv" \
		rack-pmem="$1/intra.rack-pmem.r*.lat.csv" rack-devdax="$1/intra.rack-devdax.r*.lat.csv"
}

while [ $# -gt 0 ]; do
	case $1 in
	-r) rate=$2; shift ;;
	-t) tput=$2; shift ;;
	-l) lat=$2; shift ;;
	-R) rounds=$2; shift ;;
	-c) contenders=$2; shift ;;
	-p) pools=$2; shift ;;
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
make -s -C tools/bench/dfabric
[ -n "$out" ] || out=$(mktemp -d /tmp/dfabric-bench.XXXXXX)
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -rf "$out/dfabric"	# the guest appends to its files
load0=$(cut -d' ' -f1-3 /proc/loadavg)
envs=()
[ -z "$contenders" ] || envs+=(--env "DFB_CONTENDERS=$contenders")
[ -z "$pools" ] || envs+=(--env "DFB_POOLS=$pools")
case " $pools " in
*" pmem "* | *" devdax "*) envs+=(--nvdimm 256M) ;;
esac
[ -z "${DFB_GAP_US:-}" ] || envs+=(--env "DFB_GAP_US=$DFB_GAP_US")
[ -z "${DFB_NP_MTU:-}" ] || envs+=(--env "DFB_NP_MTU=$DFB_NP_MTU")
[ -z "${DFB_REDIS_N:-}" ] || envs+=(--env "DFB_REDIS_N=$DFB_REDIS_N")
echo "VM: booting $krel (TCG when there is no KVM: about five minutes)" >&2
status=0
selftests/vm/run --kernel-release "$krel" --out "$out" \
	--timeout $((rounds * (lat + tput + 20) * 2 * (1 + $(wc -w <<<"$pools")) + 10 * (tput + 30) + 300)) \
	--env DFB_OUT="$out/dfabric" --env DFB_RATE="$rate" --env DFB_TPUT_SECS="$tput" \
	--env DFB_LAT_SECS="$lat" --env DFB_ROUNDS="$rounds" "${envs[@]}" \
	-- tools/bench/dfabric/dfabric-guest.sh >"$out/run.log" 2>&1 || status=$?
[ $status -eq 0 ] || echo "VM run failed ($status): $out/run.log" >&2
echo "tree $(git describe --always --dirty 2>/dev/null || echo '?'), $(nproc) CPUs; load" \
	"average $load0 before, $(cut -d' ' -f1-3 /proc/loadavg) after (other users' VMs" \
	"and builds share these CPUs)" >"$out/host"
report "$out" || status=1
echo "raw output: $out/dfabric" >&2
exit $status
