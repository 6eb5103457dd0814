#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# An unprivileged user (uid 65534) can read through edmctl but gets EPERM on
# every mutating command, and changes nothing.
source "$(dirname "$0")/lib.sh"

nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$@"
}

setup() {
	"$EDMCTL" dev add name perm0 type null >/dev/null
}

mutating_commands_fail() {
	expect_error "Operation not permitted" nobody "$EDMCTL" dev add name perm1 type null
	expect_error "Operation not permitted" nobody "$EDMCTL" dev del name perm0
}

reading_works() {
	x nobody "$EDMCTL" version
	x nobody "$EDMCTL" -j dev show | jq -e 'map(.name) == ["perm0"]'
	x nobody "$EDMCTL" -j dev show name perm0 | jq -e 'length == 1'
}

cleanup() {
	"$EDMCTL" dev del name perm0
}

run_case setup "root creates a device"
run_case mutating_commands_fail "uid 65534: dev add and dev del fail with EPERM"
run_case reading_works "uid 65534: version and dev show work and show nothing changed"
run_case cleanup "root deletes the device"
tap_done
