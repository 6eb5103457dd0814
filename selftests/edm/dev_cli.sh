#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Devices through edmctl, asserted through its JSON: version, create, show,
# delete, kernel error messages, events, netns scoping, injected faults.
source "$(dirname "$0")/lib.sh"

MON_OUT=$(mktemp)
MON_PID=

cleanup() {
	[ -n "$MON_PID" ] && kill "$MON_PID" 2>/dev/null
	ip netns del edm_a 2>/dev/null
	ip netns del edm_b 2>/dev/null
	rm -f "$MON_OUT"
	[ -w "$EDM_DEBUGFS/fail_dev_create" ] && echo 0 >"$EDM_DEBUGFS/fail_dev_create"
}
trap cleanup EXIT

version() {
	x "$EDMCTL" -j version | tee /dev/stderr | jq -e --arg v "$(cat "$EDM_TOP/VERSION")" \
		--arg k "$(uname -r)" \
		'.module_version == $v and .kernel_release == $k and .abi_version == 1'
}

create_show_delete() {
	local id

	x "$EDMCTL" -j dev show | jq -e 'length == 0'
	id=$("$EDMCTL" -j dev add name d0 type null | jq -e '.[0].id')
	x "$EDMCTL" dev add name d1 type null
	x "$EDMCTL" -j dev show | tee /dev/stderr | jq -e --argjson id "$id" '
		length == 2 and .[0] == {id: $id, name: "d0", type: "null"}
		and .[1].name == "d1"'
	x "$EDMCTL" -j dev show id "$id" | jq -e 'map(.name) == ["d0"]'
	x "$EDMCTL" -j version | jq -e '.dev_count == 2'
	x "$EDMCTL" dev del id "$id"
	x "$EDMCTL" dev del name d1
	x "$EDMCTL" -j dev show | jq -e 'length == 0'
	[ "$(edm_objects dev)" = 0 ]
}

kernel_errors() {
	"$EDMCTL" dev add name e0 type null >/dev/null
	expect_error "device name already in use" "$EDMCTL" dev add name e0 type null
	expect_error "invalid name: use [A-Za-z0-9_.-], starting with a letter or digit" \
		"$EDMCTL" dev add name _e1 type null
	expect_error "no such device" "$EDMCTL" dev del name nosuch
	expect_error "no such device" "$EDMCTL" dev show name nosuch
	"$EDMCTL" dev del name e0
}

mon_has() {
	grep -q "$1" "$MON_OUT"
}

# Subscribe, then prove the subscription is live before the real events.
events() {
	local k=0

	"$EDMCTL" -j monitor >"$MON_OUT" &
	MON_PID=$!
	until mon_has '"name":"probe'; do
		k=$((k + 1))
		[ $k -le 100 ] || { echo "monitor never saw a probe event"; return 1; }
		"$EDMCTL" dev add name probe$k type null >/dev/null
		"$EDMCTL" dev del name probe$k
		sleep 0.1
	done
	"$EDMCTL" dev add name ev0 type null >/dev/null
	"$EDMCTL" dev del name ev0
	poll 10 mon_has '"event":"del".*"name":"ev0"'
	kill "$MON_PID"
	MON_PID=
	cat "$MON_OUT" >&2
	grep '"ev0"' "$MON_OUT" | jq -se '
		length == 2 and .[0].object == "dev" and .[0].event == "new"
		and .[1].event == "del" and .[0].id == .[1].id and .[0].type == "null"'
}

netns_scoping() {
	x ip netns add edm_a
	x ip netns add edm_b
	x "$EDMCTL" -n edm_a dev add name same type null
	x "$EDMCTL" -n edm_b dev add name same type null
	x "$EDMCTL" -j dev show | jq -e 'length == 0'
	x "$EDMCTL" -n edm_a -j dev show | jq -e 'map(.name) == ["same"]'
	[ "$(edm_objects dev)" = 2 ]
	x ip netns del edm_a
	x ip netns del edm_b
	# netns teardown is asynchronous: wait for its devices to go
	poll 30 edm_no_objects
}

injected_fault() {
	echo 1 >"$EDM_DEBUGFS/fail_dev_create"
	expect_error "device creation failed (injected fault)" "$EDMCTL" dev add name f0 type null
	x "$EDMCTL" -j dev show | jq -e 'length == 0'
	[ "$(edm_objects dev)" = 0 ]
	x "$EDMCTL" dev add name f0 type null
	x "$EDMCTL" dev del name f0
}

run_case version "version: module version and guest kernel release"
run_case create_show_delete "dev add, show (JSON), del"
run_case kernel_errors "kernel error messages reach the user"
run_case events "monitor prints dev new and dev del events"
run_case netns_scoping "devices are per netns and go with their netns"
run_case injected_fault "an injected creation fault fails cleanly"
tap_done
