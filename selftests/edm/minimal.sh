#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# edm.ko built with every subsystem left out (make module EDM_FABRIC=n
# EDM_NETDIMM=n EDM_DFABRIC=n EDM_COWBIRD=n; EDM_KO names it): modinfo says
# so, the core's commands work, and every left-out subsystem's command is
# refused while nothing is made. Not in the usual
# list: make check runs it on its own against that build.
source "$(dirname "$0")/lib.sh"

cleanup() {
	"$EDMCTL" dev del name m0 >/dev/null 2>&1
}
trap cleanup EXIT

modinfo_says_core() {
	[ "$(modinfo -F subsystems "$EDM_KO")" = core ]
}

core_works() {
	x "$EDMCTL" -j version | jq -e '.abi_version == 1 and .dev_count == 0'
	x "$EDMCTL" dev add name m0 type null
	x "$EDMCTL" -j dev show | jq -e 'map(.name) == ["m0"]'
	x "$EDMCTL" dev del name m0
	[ "$(edm_objects dev)" = 0 ]
}

commands_left_out() {
	local obj

	for obj in fabric netdimm pool rack nicpool shpool region cowbird; do
		expect_error_in "not supported" "$EDMCTL" "$obj" show || return 1
	done
	expect_error_in "not supported" "$EDMCTL" fabric add switch s0 ports 4
	expect_error_in "not supported" "$EDMCTL" shpool join s0 dev 0000:00:10.0
	[ ! -d /sys/bus/pci/drivers/edm-shmem ]
	[ ! -e /dev/cowbird ]
	x "$EDMCTL" -j dev show | jq -e 'length == 0'
}

run_case modinfo_says_core "modinfo: the build has the core only"
run_case core_works "version and null devices work"
run_case commands_left_out "left-out subsystems' commands are refused, nothing made"
tap_done
