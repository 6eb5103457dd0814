#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# edm.ko loads and unloads cleanly, many times, with devices alive in several
# network namespaces at unload, leaving no module reference or object behind.
source "$(dirname "$0")/lib.sh"

CYCLES=$(scaled 10)

cycles() {
	local i loads0 unloads0

	loads0=$(dmesg | grep -c 'edm: version .* loaded' || true)
	unloads0=$(dmesg | grep -c 'edm: unloaded' || true)
	if edm_loaded; then rmmod edm; unloads0=$((unloads0 + 1)); fi
	ip netns add edm_lu
	for i in $(seq 1 "$CYCLES"); do
		insmod "$EDM_KO"
		"$EDMCTL" dev add name cyc$i type null >/dev/null
		"$EDMCTL" -n edm_lu dev add name ns$i type null >/dev/null
		[ "$(edm_objects dev)" = 2 ] || { echo "cycle $i: objects: $(cat $EDM_DEBUGFS/objects)"; return 1; }
		[ "$(cat /sys/module/edm/refcnt)" = 0 ] || { echo "cycle $i: refcnt $(cat /sys/module/edm/refcnt)"; return 1; }
		rmmod edm
		! edm_loaded || { echo "cycle $i: still loaded"; return 1; }
	done
	ip netns del edm_lu
	[ "$(dmesg | grep -c 'edm: version .* loaded')" = $((loads0 + CYCLES)) ]
	[ "$(dmesg | grep -c 'edm: unloaded')" = $((unloads0 + CYCLES)) ]
	! dmesg | grep 'edm: .*leaked'
}

run_case cycles "load, make devices in two netns, unload: $CYCLES times, nothing leaked"
tap_done
