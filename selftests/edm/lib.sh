# SPDX-License-Identifier: GPL-2.0
# Shared by the edm shell selftests: paths, TAP output and polling helpers.
# A test script defines one function per case and calls `run_case fn "what"`
# for each; every case runs in a subshell with `set -e` and its output is
# shown, as TAP comments, only when it fails. A case that calls `skip WHY`
# (a kernel feature it needs is absent) is "ok ... # SKIP WHY", which make
# check counts as skipped, not passed. Only skip() skips: a command that
# happens to exit with KSFT_SKIP's 4 (jq -e on empty input does) fails.

EDM_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
EDMCTL=$EDM_TOP/tools/edmctl/edmctl
EDM_KO=${EDM_KO:-$EDM_TOP/build/$(uname -r)/edm.ko}
EDM_DEBUGFS=/sys/kernel/debug/edm
KSFT_SKIP=4

tap_n=0
tap_failed=0
tap_ran=""

# The one knob that slows kernels use: iteration counts are divided by
# EDM_TEST_SCALE (the debug kernel's lane sets it), never skipped.
scaled() {
	local n=$(($1 / ${EDM_TEST_SCALE:-1}))

	echo $((n > 0 ? n : 1))
}

# jq is gojq where it is installed: the same language for what these tests
# ask, and it starts at once, where jq 1.6 compiles its builtins at every
# start (about 0.6 s under TCG, which was 170 s of the Debian lane's
# 283 calls). Scripts still check for jq, the fallback.
if command -v gojq >/dev/null; then
	jq() {
		gojq "$@"
	}
fi

# note MSG...: a TAP comment that is shown whether the case passes or not.
exec 3>&1
note() {
	printf '%s\n' "$@" | sed 's/^/# /' >&3
}

# skip WHY: end the running case as skipped.
skip() {
	echo "$*"
	: >"$EDM_SKIP_MARK"
	exit "$KSFT_SKIP"
}

# run_case FN WHAT: run FN as one TAP case. With EDM_CASES set (run.sh's
# SCRIPT:CASE,CASE), a case not named there is not run and not counted.
run_case() {
	local fn=$1 what=$2 out rc t0=$SECONDS

	if [ -n "${EDM_CASES:-}" ] && [[ " $EDM_CASES " != *" $fn "* ]]; then
		echo "# $fn: not in this run's cases"
		return 0
	fi
	[ $tap_n -gt 0 ] || echo "TAP version 13"
	tap_n=$((tap_n + 1))
	tap_ran="$tap_ran $fn"
	EDM_SKIP_MARK=$(mktemp -u)
	out=$( (set -e; "$fn") 2>&1)
	rc=$?
	echo "# $fn: $((SECONDS - t0)) s"
	if [ $rc -eq 0 ]; then
		echo "ok $tap_n $what"
	elif [ $rc -eq $KSFT_SKIP ] && [ -e "$EDM_SKIP_MARK" ]; then
		# skip's argument, the case's last line, says why
		echo "ok $tap_n $what # SKIP $(printf '%s\n' "$out" | tail -n 1)"
	else
		tap_failed=$((tap_failed + 1))
		echo "not ok $tap_n $what"
		printf '%s\n' "$out" | sed 's/^/# /'
	fi
	rm -f "$EDM_SKIP_MARK"
}

tap_done() {
	local c

	# a case named in EDM_CASES that this script does not have is a failure
	for c in ${EDM_CASES:-}; do
		[[ " $tap_ran " == *" $c "* ]] && continue
		[ $tap_n -gt 0 ] || echo "TAP version 13"
		tap_n=$((tap_n + 1))
		tap_failed=$((tap_failed + 1))
		echo "not ok $tap_n EDM_CASES names $c, which did not run"
	done
	echo "1..$tap_n"
	[ $tap_failed -eq 0 ]
}

# Echo a command, then run it (for readable failure logs).
x() {
	echo "+ $*" >&2
	"$@"
}

# poll SECONDS CMD...: retry CMD every 0.1 s until it succeeds or time is up.
poll() {
	local deadline=$((SECONDS + $1))

	shift
	until "$@"; do
		[ $SECONDS -lt $deadline ] || { echo "timed out waiting for: $*"; return 1; }
		sleep 0.1
	done
}

# netdev_mac NETNS IFNAME: the netdev's MAC address (NETNS "" for this netns)
netdev_mac() {
	ip ${1:+-n "$1"} -j link show "$2" | jq -er '.[0].address'
}

# expect_error "MSG" CMD...: CMD must fail and print exactly "Error: MSG." on stderr.
# expect_error_in "TEXT" CMD...: CMD must fail with TEXT somewhere on stderr.
expect_error() {
	expect_failure "Error: $1." exact "${@:2}"
}

expect_error_in() {
	expect_failure "$1" part "${@:2}"
}

# expect_failure WANT exact|part CMD...: what the two above share.
expect_failure() {
	local want=$1 how=$2 err

	shift 2
	echo "+ $* (must fail: $want)"
	if err=$("$@" 2>&1 >/dev/null); then
		echo "succeeded, expected: $want"
		return 1
	fi
	if [ "$how" = exact ]; then
		[ "$err" = "$want" ] && return 0
	elif [[ $err == *"$want"* ]]; then
		return 0
	fi
	echo "stderr was: $err"
	return 1
}

edm_loaded() {
	[ -d /sys/module/edm ]
}

edm_load() {
	edm_loaded || insmod "$EDM_KO"
}

# The live count of objects of kind $1 (dev, ...).
edm_objects() {
	awk -v k="$1" '$1 == k { print $2 }' "$EDM_DEBUGFS/objects"
}

edm_no_objects() {
	! awk '$2 != 0 { bad = 1 } END { exit !bad }' "$EDM_DEBUGFS/objects"
}

# edm_objects_are KIND N: edm counts N live objects of KIND. A condition
# for poll, which runs it again each time: `poll 30 test "$(edm_objects
# KIND)" = N` would compare the count read once, before polling.
edm_objects_are() {
	[ "$(edm_objects "$1")" = "$2" ]
}

# ethtool_json DEV [NETNS]: `ethtool -S DEV` as a JSON object
ethtool_json() {
	${2:+ip netns exec "$2"} ethtool -S "$1" | awk -F': *' 'NR > 1 { k = $1; sub(/^ +/, "", k)
		printf "%s\"%s\":%s", (n++ ? "," : "{"), k, $2 } END { print "}" }'
}

# eth_between BEFORE ETHTOOL AFTER: the JSON counters edmctl gave before and
# after an `ethtool -S` (ethtool_json) name the same counters, dashes for
# underscores, and each ethtool value lies between edmctl's two (a gauge
# may have gone down between them).
eth_between() {
	jq -en --argjson a "$1" --argjson s "$2" --argjson b "$3" '
		($a | keys | map(gsub("-"; "_")) | sort) == ($s | keys | sort) and
		all($a | keys[]; gsub("-"; "_") as $u |
			([$a[.], $b[.]] | min) <= $s[$u] and $s[$u] <= ([$a[.], $b[.]] | max))' \
		>/dev/null || { echo "edmctl $1, ethtool $2, edmctl $3" >&2; return 1; }
}

# eth_rings DEV NETNS N: `ethtool -g` gives N descriptors in each ring, now
# and at most; `ethtool -G` is refused (fixed-size rings); `ethtool -l`,
# one combined channel, now and at most. NETNS may be "".
eth_rings() {
	local g l

	g=$(${2:+ip netns exec "$2"} ethtool -g "$1")
	[ "$(grep -cxE "(RX|TX):[[:space:]]+$3" <<<"$g")" = 4 ] || { echo "$g" >&2; return 1; }
	if ${2:+ip netns exec "$2"} ethtool -G "$1" rx $(($3 / 2)) 2>/dev/null; then
		echo "ethtool -G $1 was taken" >&2
		return 1
	fi
	l=$(${2:+ip netns exec "$2"} ethtool -l "$1")
	[ "$(grep -cxE "Combined:[[:space:]]+1" <<<"$l")" = 2 ] || { echo "$l" >&2; return 1; }
}

# The NVDIMM of selftests/vm/run --nvdimm: libnvdimm's modules loaded
# (pmem_load); whether its namespace0.0 is in fsdax mode (pmem_fsdax), as
# edm's pmem memory provider needs; made so, its struct pages in RAM so
# that no kernel writes them into memory other guests share
# (pmem_make_fsdax); probed again until it shows the info block another
# guest wrote (pmem_reprobe).
pmem_load() {
	x modprobe nfit && x modprobe nd_pmem || return 1
	udevadm settle 2>/dev/null
	return 0
}

# pmem_is MODE: namespace0.0 is in that mode (fsdax, devdax, raw)
pmem_is() {
	ndctl list -n namespace0.0 | jq -e --arg m "$1" \
		'(if type == "array" then .[0] else . end).mode == $m' >/dev/null 2>&1
}

pmem_fsdax() {
	pmem_is fsdax
}

pmem_make_fsdax() {
	pmem_fsdax || x ndctl create-namespace -f -e namespace0.0 -m fsdax -M mem >/dev/null
	poll 10 test -b /dev/pmem0
}

# namespace0.0 as a device-DAX device /dev/dax0.0 whose pages are $1
# bytes apart (4096: one struct page each; 2M: compound pages), its
# struct pages in RAM (pmem_make_devdax).
pmem_make_devdax() {
	x modprobe dax_pmem && x modprobe device_dax || return 1
	x ndctl create-namespace -f -e namespace0.0 -m devdax -M mem -a "$1" >/dev/null || return 1
	poll 10 test -c /dev/dax0.0
}

# pmem_reprobe [MODE]: probe namespace0.0 again until it reads the info
# block of MODE (fsdax by default) another guest wrote
pmem_reprobe() {
	local m=${1:-fsdax}

	pmem_is "$m" && return 0
	ndctl disable-namespace namespace0.0 >/dev/null 2>&1
	ndctl enable-namespace namespace0.0 >/dev/null 2>&1
	pmem_is "$m"
}

# ipl ARGS...: ip(8) with our plug-ins for the ndimm, rackcn, fhost and
# shpool kinds (tools/iplink).
ipl() {
	local k

	for k in ndimm rackcn fhost shpool; do
		[ -e "$EDM_TOP/tools/iplink/link_$k.so" ] ||
			{ echo "ip's plug-ins are not built: make -C tools/iplink" >&2; return 1; }
	done
	IP_LIB_DIR=$EDM_TOP/tools/iplink ip "$@"
}

TRACING=/sys/kernel/tracing

# trace_on EVENT...: the trace emptied, then each event on (EVENT: a system,
# edm_pool, or one event, edm_pool/edm_nicpool_tx). The comm record goes
# off first: with it, enabling an event also patches the scheduler's
# tracepoints, which hung a 6.1 guest under TCG (selftests/edm/cowbird.c).
trace_on() {
	local e

	for e; do
		[ -e "$TRACING/events/$e/enable" ] || { echo "no trace event $e" >&2; return 1; }
	done
	echo 0 >$TRACING/options/record-cmd
	: >$TRACING/trace
	for e; do echo 1 >"$TRACING/events/$e/enable"; done
}

# trace_off EVENT...
trace_off() {
	local e

	for e; do echo 0 >"$TRACING/events/$e/enable"; done
}
