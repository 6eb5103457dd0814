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

# --- unknown words ---
run 1 '' '^Object "foo" is unknown, try "edmctl help"\.$' -- foo
run 1 '' '^Object "x" is unknown, try "edmctl help"\.$' -- -j x
run 1 '' '^Object "foo" is unknown' -- help foo
run 1 '' '^Command "foo" not found, try "edmctl dev help"\.$' -- dev foo
run 1 '' '^Command "foo" not found, try "edmctl version help"\.$' -- version foo
run 1 '' '^Error: unknown argument "foo", try "edmctl monitor help"\.$' -- monitor foo
run 1 '' '^Error: unknown argument "foo", try "edmctl dev help"\.$' -- dev show foo
run 1 '' '^Error: unknown argument "bar", try "edmctl version help"\.$' -- version show bar
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
run 1 '' '^Error: invalid count "0"' -- monitor count 0
run 1 '' '^Error: invalid count "x"' -- monitor count x
run 1 '' '^Error: cannot open network namespace "edmctl-no-such-ns": ' -- -n edmctl-no-such-ns dev show
run 1 '' '^Error: invalid network namespace name' -- -n ../x dev show

# --- without the module: one clear error, nothing on stdout ---
if ! have_family; then
	notloaded='^Error: edm module not loaded \(generic netlink family "edm" not found\)\.$'
	for args in "version" "-j version" "dev" "dev show" "d s" "-j -p dev show" \
		    "dev show id 1" "dev show name dev0" "dev list" \
		    "dev add name a type null" "dev add name a type null backend soft" \
		    "dev del id 1" "dev delete name a" "monitor" "monitor count 1"; do
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
