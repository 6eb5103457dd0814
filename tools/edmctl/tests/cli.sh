#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# edmctl command-line tests that need no kernel module: help, option and
# argument errors, exit codes, and (when the "edm" family is absent, as on
# a host) the module-not-loaded error. JSON output is checked with a JSON
# parser when python3 is there.
#
#   tests/cli.sh [path/to/edmctl]
#
# Set EDMCTL_WRAP to run edmctl under a wrapper, e.g.
#   EDMCTL_WRAP="valgrind -q --error-exitcode=99 --leak-check=full" tests/cli.sh

EDMCTL=${1:-./edmctl}
UNIT=$(dirname "$EDMCTL")/tests/unit
WRAP=${EDMCTL_WRAP:-}
fail=0
n=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run EXPECTED_RC STDOUT_PATTERN STDERR_PATTERN -- ARGS...
# Patterns are grep -E expressions; "" means the stream must be empty,
# "*" means anything.
run() {
	want_rc=$1 out_pat=$2 err_pat=$3
	shift 4
	n=$((n + 1))
	# shellcheck disable=SC2086
	$WRAP "$EDMCTL" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	ok=1
	[ "$rc" = "$want_rc" ] || ok=0
	check "$tmp/out" "$out_pat" || ok=0
	check "$tmp/err" "$err_pat" || ok=0
	if [ $ok = 0 ]; then
		fail=$((fail + 1))
		echo "FAIL: edmctl $* (rc $rc, want $want_rc)"
		sed 's/^/  out: /' "$tmp/out"
		sed 's/^/  err: /' "$tmp/err"
	fi
}

check() {
	case $2 in
	'*') return 0 ;;
	'') [ ! -s "$1" ] ;;
	*) grep -Eq -- "$2" "$1" ;;
	esac
}

have_family() {
	# "version" succeeds only with the module loaded.
	"$EDMCTL" version >/dev/null 2>&1
}

# --- help and version ---
run 0 '^edmctl [0-9]' '' -- -V
run 0 '^edmctl [0-9]' '' -- --version
run 0 '^Usage: edmctl' '' -- -h
run 0 '^Usage: edmctl' '' -- --help
run 0 '^Usage: edmctl' '' -- help
run 0 '^Usage: edmctl' '' -- h
run 0 '^Usage: edmctl dev' '' -- help dev
run 0 '^Usage: edmctl dev' '' -- dev help
run 0 '^Usage: edmctl dev' '' -- d h
run 0 '^Usage: edmctl dev' '' -- dev add help
run 0 '^Usage: edmctl dev' '' -- dev show name x help
run 0 '^Usage: edmctl version' '' -- version help
run 0 '^Usage: edmctl monitor' '' -- monitor help
run 0 '^Usage: edmctl monitor' '' -- -j monitor help
run 1 '' '^Usage: edmctl' --
run 0 '^Usage: edmctl netdimm' '' -- netdimm help
run 0 '^Usage: edmctl netdimm' '' -- help netdimm
run 0 '^Usage: edmctl netdimm' '' -- n h
run 0 '^Usage: edmctl netdimm' '' -- netdimm add help
run 0 '^Usage: edmctl netdimm' '' -- netdimm add nd0 size 64M help
run 0 '^Usage: edmctl netdimm' '' -- netdimm show nd0 help
run 0 '^Usage: edmctl netdimm' '' -- netdimm zone help
run 0 '^Usage: edmctl netdimm' '' -- netdimm zone show help
run 0 '^Usage: edmctl netdimm' '' -- netdimm stats help
run 0 '^Usage: edmctl netdimm' '' -- netdimm del help
run 0 'RXMODE := \{ zerocopy \| clone \}' '' -- netdimm help
run 0 'OBJECT := \{ version \| dev \| netdimm \| monitor \}' '' -- help
run 0 'netdimm new' '' -- monitor help

# --- unknown words ---
run 1 '' '^Object "foo" is unknown, try "edmctl help"\.$' -- foo
run 1 '' '^Object "x" is unknown, try "edmctl help"\.$' -- -j x
run 1 '' '^Object "foo" is unknown' -- help foo
run 1 '' '^Command "foo" not found, try "edmctl dev help"\.$' -- dev foo
run 1 '' '^Command "foo" not found, try "edmctl version help"\.$' -- version foo
run 1 '' '^Error: unknown argument "foo", try "edmctl monitor help"\.$' -- monitor foo
run 1 '' '^Error: unknown argument "foo", try "edmctl dev help"\.$' -- dev show foo
run 1 '' '^Error: unknown argument "bar", try "edmctl version help"\.$' -- version show bar
run 1 '' '^Command "foo" not found, try "edmctl netdimm help"\.$' -- netdimm foo
run 1 '' '^Command "s" is ambiguous, try "edmctl netdimm help"\.$' -- netdimm s
run 1 '' '^Command "foo" not found, try "edmctl netdimm help"\.$' -- netdimm zone foo
run 1 '' '^Error: unknown argument "nd1", try "edmctl netdimm help"\.$' -- netdimm show nd0 nd1
run 1 '' '^Error: unknown argument "foo", try "edmctl netdimm help"\.$' \
	-- netdimm add nd0 size 64M foo 1
run 1 '' '^Option "-x" is unknown' -- -x dev
run 1 '' '^Option "--bogus" is unknown' -- --bogus
run 1 '' '^Error: option "-n" needs an argument\.$' -- -n

# --- bad arguments (all caught before talking to the kernel) ---
run 1 '' '^Error: unknown device type "foo", expected one of: null\.$' -- dev add name a type foo
run 1 '' '^Error: unknown backend "bar", expected one of: soft\.$' -- dev add name a type null backend bar
run 1 '' '^Error: unknown device type "unspec"' -- dev add name a type unspec
run 1 '' '^Error: "type" is required' -- dev add name a
run 1 '' '^Error: "name" is required' -- dev add type null
run 1 '' '^Error: "name" needs an argument\.$' -- dev add type null name
run 1 '' '^Error: duplicate "type"\.$' -- dev add name a type null type null
run 1 '' '^Error: invalid device id "0"\.$' -- dev show id 0
run 1 '' '^Error: invalid device id "abc"\.$' -- dev show id abc
run 1 '' '^Error: invalid device id "-1"\.$' -- dev del id -1
run 1 '' '^Error: invalid device id "4294967296"\.$' -- dev del id 4294967296
run 1 '' '^Error: "id" and "name" are mutually exclusive\.$' -- dev show id 1 name a
run 1 '' '^Error: "id" or "name" is required' -- dev del
run 1 '' '^Error: device name "0123456789abcdef" is too long \(at most 15 characters\)\.$' -- dev add name 0123456789abcdef type null
run 1 '' '^Error: device name must not be empty\.$' -- dev del name ''
run 1 '' '^Error: a NetDIMM needs a size: create it with "edmctl netdimm add"\.$' \
	-- dev add name a type netdimm
run 1 '' '^Error: invalid count "0"' -- monitor count 0
run 1 '' '^Error: invalid count "x"' -- monitor count x
run 1 '' '^Error: cannot open network namespace "edmctl-no-such-ns": ' -- -n edmctl-no-such-ns dev show
run 1 '' '^Error: invalid network namespace name' -- -n ../x dev show

# --- netdimm: bad arguments, all caught before talking to the kernel ---
sizehelp='\(expected bytes, 1 or more, with an optional K, M or G suffix\)\.$'
for size in 3X 0 0K -1 1.5G 1MB 1T 0x10 '' 17179869184G 18446744073709551616; do
	run 1 '' "^Error: invalid size \"$size\" $sizehelp" -- netdimm add nd0 size "$size"
done
run 1 '' '^Error: a device name is required, try "edmctl netdimm help"\.$' -- netdimm add size 64M
run 1 '' '^Error: a device name is required' -- netdimm add
run 1 '' '^Error: "size" is required, try "edmctl netdimm help"\.$' -- netdimm add nd0
run 1 '' '^Error: "size" is required' -- netdimm add name nd0 peer nd1
run 1 '' '^Error: "size" needs an argument\.$' -- netdimm add nd0 size
run 1 '' '^Error: duplicate "size"\.$' -- netdimm add nd0 size 64M size 1G
run 1 '' '^Error: duplicate "name"\.$' -- netdimm add nd0 size 64M name nd1
run 1 '' '^Error: duplicate "rows"\.$' -- netdimm add nd0 size 64M rows 1 rows 2
run 1 '' '^Error: "peer" and "lower" are mutually exclusive: a NetDIMM has one wire\.$' \
	-- netdimm add nd0 size 64M peer nd1 lower lo
run 1 '' '^Error: "peer" and "lower" are mutually exclusive' \
	-- netdimm add nd0 lower edmctl-nosuch0 size 64M peer nd1
run 1 '' '^Error: the peer needs a name of its own, not "nd0"\.$' \
	-- netdimm add nd0 size 64M peer nd0
run 1 '' '^Error: peer name must not be empty\.$' -- netdimm add nd0 size 64M peer ''
run 1 '' '^Error: peer name "0123456789abcdef" is too long \(at most 15 characters\)\.$' \
	-- netdimm add nd0 size 64M peer 0123456789abcdef
run 1 '' '^Error: device name "0123456789abcdef" is too long \(at most 15 characters\)\.$' \
	-- netdimm add 0123456789abcdef size 64M
run 1 '' '^Error: device name must not be empty\.$' -- netdimm add '' size 64M
run 1 '' '^Error: cannot find network device "edmctl-nosuch0"\.$' \
	-- netdimm add nd0 size 64M lower edmctl-nosuch0
run 1 '' '^Error: unknown rx mode "foo", expected one of: zerocopy, clone\.$' \
	-- netdimm add nd0 size 64M rx-mode foo
run 1 '' '^Error: unknown rx mode "unspec"' -- netdimm add nd0 size 64M rx-mode unspec
run 1 '' '^Error: invalid poll-us "x" \(expected a number\)\.$' \
	-- netdimm add nd0 size 64M poll-us x
run 1 '' '^Error: invalid poll-us "-1"' -- netdimm add nd0 size 64M poll-us -1
run 1 '' '^Error: invalid wire-rate "fast" \(expected a number or unlimited\)\.$' \
	-- netdimm add nd0 size 64M wire-rate fast
run 1 '' '^Error: invalid wire-delay "1ms"' -- netdimm add nd0 size 64M wire-delay 1ms
run 1 '' '^Error: invalid node "4294967296"' -- netdimm add nd0 size 64M node 4294967296
for kw in row-bytes devices banks subarrays rows; do
	run 1 '' "^Error: invalid $kw \"x\" \\(expected a number\\)\\.\$" -- netdimm add nd0 size 64M $kw x
done
run 1 '' '^Error: "lower" needs an argument\.$' -- netdimm add nd0 size 64M lower
run 1 '' '^Error: a device name or "id ID" is required, try "edmctl netdimm help"\.$' -- netdimm del
run 1 '' '^Error: invalid device id "0"\.$' -- netdimm del id 0
run 1 '' '^Error: "id" and "name" are mutually exclusive\.$' -- netdimm show nd0 id 1
run 1 '' '^Error: duplicate "name"\.$' -- netdimm stats nd0 name nd1
run 1 '' '^Error: invalid device id "x"\.$' -- netdimm zone show id x
run 1 '' '^Error: device name "0123456789abcdef" is too long' -- netdimm del 0123456789abcdef

# --- without the module: one clear error, nothing on stdout ---
if ! have_family; then
	notloaded='^Error: edm module not loaded \(generic netlink family "edm" not found\)\.$'
	for args in "version" "-j version" "dev" "dev show" "d s" "-j -p dev show" \
		    "dev show id 1" "dev show name dev0" "dev list" \
		    "dev add name a type null" "dev add name a type null backend soft" \
		    "dev del id 1" "dev delete name a" "monitor" "monitor count 1" \
		    "netdimm" "netdimm show" "-j netdimm show" "-s netdimm show nd0" \
		    "netdimm list id 1" "netdimm show name nd0" "n sh" \
		    "netdimm zone" "netdimm zone show" "netdimm zone s nd0" \
		    "-j netdimm zone list" "netdimm stats" "netdimm st nd0" \
		    "-j -p netdimm stats id 2" "netdimm add nd0 size 64M" \
		    "netdimm add name nd0 size 4g peer nd1" \
		    "netdimm add nd0 size 64M lower lo poll-us 50 rx-mode clone" \
		    "netdimm add nd0 size 1G wire-rate unlimited wire-delay 1000 node 0" \
		    "netdimm add nd0 size 64M row-bytes 1024 devices 8 banks 16 subarrays 512 rows 128" \
		    "netdimm add nd0 size 18446744073709551615" \
		    "netdimm del nd0" "netdimm delete id 1" "netdimm del name nd0"; do
		# shellcheck disable=SC2086
		run 1 '' "$notloaded" -- $args
	done
else
	echo "note: the edm family exists here; module-not-loaded tests skipped"
fi

# --- JSON documents parse (escaping, pretty, monitor lines) ---
if command -v python3 >/dev/null 2>&1 && [ -x "$UNIT" ]; then
	n=$((n + 1))
	"$UNIT" json >"$tmp/json" || { fail=$((fail + 1)); echo "FAIL: unit json"; }
	# show arrays (compact, then pretty) and monitor lines: decode them all.
	if ! python3 - "$tmp/json" <<'EOF'
import json, sys
text = open(sys.argv[1], encoding="utf-8").read()
dec = json.JSONDecoder()
i, docs = 0, []
while True:
    while i < len(text) and text[i].isspace():
        i += 1
    if i >= len(text):
        break
    obj, i = dec.raw_decode(text, i)
    docs.append(obj)
assert len(docs) == 4, docs
assert docs[0] == docs[2] == [{"id": 7, "name": "q\"uo\\te\n\x01\ufffd",
                               "type": "unknown(99)", "backend": "soft"}], docs[0]
assert docs[1] == docs[3] == {"object": "dev", "event": "new", "id": 7,
                              "name": "q\"uo\\te\n\x01\ufffd",
                              "type": "unknown(99)", "backend": "soft"}, docs[1]
# compact monitor output is exactly one line per event
lines = [l for l in text.splitlines() if l.startswith('{"object"')]
assert len(lines) == 1, lines
EOF
	then
		fail=$((fail + 1))
		echo "FAIL: JSON documents do not parse"
	fi

	# "netdimm show -s": the documented shape, a counter per EDM_A_NDSTAT_*.
	n=$((n + 1))
	"$UNIT" netdimm-json >"$tmp/nd.json" || { fail=$((fail + 1)); echo "FAIL: unit netdimm-json"; }
	if ! python3 - "$tmp/nd.json" "$(dirname "$0")/../../../include/uapi/linux/edm.h" <<'EOF'
import json, re, sys
doc = json.load(open(sys.argv[1], encoding="utf-8"))
hdr = open(sys.argv[2]).read()
assert isinstance(doc, list) and len(doc) == 1, doc
nd = doc[0]
assert list(nd) == ["id", "name", "ifindex", "peer", "size", "poll_us", "rx_mode",
                    "wire_mbps", "wire_delay_ns", "numa_node", "zone", "stats"], list(nd)
assert list(nd["zone"]) == ["index", "name", "size", "free", "lent", "cached",
                            "subarrays", "numa_node", "geometry"], list(nd["zone"])
assert list(nd["zone"]["geometry"]) == ["row_bytes", "devices", "banks", "subarrays",
                                        "rows"], nd["zone"]["geometry"]
want = [n.lower() for n in re.findall(r"\bEDM_A_NDSTAT_(\w+)", hdr)
        if n not in ("UNSPEC", "PAD", "MAX")]
assert want and sorted(nd["stats"]) == sorted(want), (sorted(nd["stats"]), sorted(want))
assert all(isinstance(v, int) for v in nd["stats"].values())
EOF
	then
		fail=$((fail + 1))
		echo "FAIL: netdimm JSON keys do not match the documented shape and the header"
	fi
fi

# --- monitor loop: SIGTERM and SIGINT end it with success ---
# (on nlctrl's "notify" group through the same edm_nl_monitor() code)
if [ -x "$UNIT" ]; then
	for sig in TERM INT; do
		n=$((n + 1))
		"$UNIT" monitor >"$tmp/mon" 2>&1 &
		pid=$!
		i=0
		while ! grep -q ready "$tmp/mon" 2>/dev/null && [ $i -lt 50 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		sleep 0.2
		kill -s $sig $pid
		# never hang the test run if the signal is not handled
		( sleep 5; kill -s KILL $pid 2>/dev/null ) &
		dog=$!
		wait $pid
		rc=$?
		kill $dog 2>/dev/null
		wait $dog 2>/dev/null
		if [ $rc != 0 ] || ! grep -q '^stopped 0$' "$tmp/mon"; then
			fail=$((fail + 1))
			echo "FAIL: monitor on SIG$sig: rc $rc"
			sed 's/^/  out: /' "$tmp/mon"
		fi
	done
fi

echo "cli: $n tests, $fail failures"
[ $fail = 0 ]
