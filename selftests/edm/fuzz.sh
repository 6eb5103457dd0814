#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# edm_fuzz from root and from uid 65534; then the module must still answer
# correctly, and its object count must agree with what it reports.
source "$(dirname "$0")/lib.sh"

COUNT=${EDM_FUZZ_COUNT:-$(scaled 3000)}
FUZZ=$(dirname "$0")/edm_fuzz

fuzz() {
	local counts

	counts=$(x "$@" -n "$COUNT")
	note "$counts"
}

as_root() {
	fuzz "$FUZZ"
}

as_nobody() {
	fuzz setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$FUZZ"
}

still_works() {
	local n

	x "$EDMCTL" -j version | jq -e '.abi_version == 1'
	n=$("$EDMCTL" -j dev show | jq length)
	[ "$(edm_objects dev)" = "$n" ] || { echo "objects $(edm_objects dev), listed $n"; return 1; }
	x "$EDMCTL" dev add name after0 type null
	x "$EDMCTL" -j dev show name after0 | jq -e '.[0].type == "null"'
	x "$EDMCTL" dev del name after0
}

run_case as_root "edm_fuzz as root: $COUNT messages, the kernel kept its contract"
run_case as_nobody "edm_fuzz as uid 65534: $COUNT messages, the kernel kept its contract"
run_case still_works "the module still answers correctly and its counts agree"
tap_done
