#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Memory regions and the Cowbird engine through edmctl, asserted through its
# JSON: regions made, shown and found by id or owner, their keys shown to
# CAP_NET_ADMIN only and never in an event; a rekey that cuts off a program
# holding the old key (libcowbird's cowbird_demo) while the bytes it wrote
# stay, read over the fabric with edmop; the engine shown and set; the
# kernel's messages for what it refuses; regions kept to their netns.
source "$(dirname "$0")/lib.sh"

EDMOP=$EDM_TOP/tools/edmop/edmop
CBDEMO=$EDM_TOP/tools/lib/cowbird/cowbird_demo
MON_OUT=$(mktemp)
MON_PID=
NS=edm-region-$$

# What a case makes; each case starts with none of it, whatever the last one left.
fresh() {
	local n

	for n in mem0 mem1 mem2 cpu0 sw0 probe; do
		"$EDMCTL" fabric del $n 2>/dev/null || true
	done
	for n in 512 513 700; do "$EDMCTL" region del $n 2>/dev/null || true; done
	for n in $("$EDMCTL" -j region show 2>/dev/null | jq -r '.[] | select(.kind == "pool") | .id')
	do
		"$EDMCTL" region del "$n" 2>/dev/null || true
	done
	for n in rp0 rp1; do "$EDMCTL" pool del $n 2>/dev/null || true; done
	ip netns del "$NS" 2>/dev/null || true
}

cleanup() {
	fresh
	rm -f "$MON_OUT"
}
trap cleanup EXIT

command -v jq >/dev/null || { echo "# SKIP: jq missing"; exit "$KSFT_SKIP"; }

nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$@"
}

# The key debugfs lists for host $1 of this netns.
debugfs_key() {
	local inum

	inum=$(stat -L -c %i /proc/self/ns/net)
	awk -v i="$inum" -v h="$1" '$1 == i && $3 == h { print $5 }' "$EDM_DEBUGFS/cowbird_regions"
}

regions() {
	fresh
	x "$EDMCTL" -j region show | jq -e 'length == 0'
	x "$EDMCTL" -j region create mem0 size 1M addr 2 | tee /dev/stderr | jq -e '.[0] |
		.id == 2 and .kind == "fabric" and .owner == "mem0" and .size == 1048576
		and .key_gen == 0 and (.key | test("^0x[0-9a-f]{16}$")) and (has("stats") | not)'
	# the lowest address no host has: mem0 is on 2, so 0
	x "$EDMCTL" -j region create mem1 size 64k | jq -e '.[0] | .id == 0 and .size == 65536'
	x "$EDMCTL" -j fabric show mem1 | jq -e '.[0] | .type == "host" and .addr == 0
		and .region_size == 65536'
	# a host without a region is no region
	x "$EDMCTL" fabric add host cpu0 addr 1
	x "$EDMCTL" -j region show | jq -e 'map(.owner) == ["mem0", "mem1"]'
	x "$EDMCTL" -j region show 2 | jq -e 'length == 1 and .[0].owner == "mem0"'
	x "$EDMCTL" -j region show owner mem1 | jq -e 'length == 1 and .[0].id == 0'
	x "$EDMCTL" -j region show 9 | jq -e 'length == 0'
	x "$EDMCTL" -j -s region show 2 | jq -e '.[0].stats | has("access_errors")
		and has("read_bytes") and all(.[]; type == "number")'
	x "$EDMCTL" region show 2 |
		grep -E '^2: kind fabric owner mem0 size 1M key-gen 0 key 0x[0-9a-f]{16}$'
	# "key": the key alone, the one debugfs lists and JSON carries
	key=$(x "$EDMCTL" region key 2)
	[[ $key =~ ^0x[0-9a-f]{16}$ ]]
	[ "$key" = "$(debugfs_key mem0)" ]
	x "$EDMCTL" -j region key owner mem0 | jq -e --arg k "$key" '.[0] | .key == $k
		and .id == 2 and .owner == "mem0" and .key_gen == 0'
	[ "$("$EDMCTL" -j region show 2 | jq -r '.[0].key')" = "$key" ]
	# two regions may share an id (two fabrics in a netns): the owner tells them apart
	x "$EDMCTL" region create mem2 size 4k addr 2 >/dev/null
	x "$EDMCTL" -j region show 2 | jq -e 'map(.owner) == ["mem0", "mem2"]'
	expect_error "several regions have this id: name the owner too" "$EDMCTL" region key 2
	x "$EDMCTL" -j region key 2 owner mem2 | jq -e '.[0].owner == "mem2"'
	for n in mem2 cpu0 mem1 mem0; do x "$EDMCTL" fabric del $n; done
	x "$EDMCTL" -j region show | jq -e 'length == 0'
}

region_errors() {
	fresh
	x "$EDMCTL" region create mem0 size 4k addr 2 >/dev/null
	x "$EDMCTL" fabric add host cpu0 addr 1
	expect_error "no region with this id" "$EDMCTL" region key 3
	expect_error "no region with this id" "$EDMCTL" region rekey 3
	expect_error "this device owns no region" "$EDMCTL" region key owner cpu0
	expect_error "this device owns no region" "$EDMCTL" region rekey owner nosuch
	expect_error "no region with this id and owner" "$EDMCTL" region key 2 owner cpu0
	expect_error "integer out of range (attribute \"id\")" "$EDMCTL" region show 65536
	expect_error "integer out of range (attribute \"id\")" "$EDMCTL" region rekey 70000
	# create is a fabric host: the fabric's checks, named by create's words
	expect_error "device name already in use" "$EDMCTL" region create mem0 size 4k
	expect_error "region size must be a multiple of 4 KiB" "$EDMCTL" region create m size 4097
	expect_error "integer out of range (attribute \"size\")" "$EDMCTL" region create m size 2G
	expect_error "integer out of range (attribute \"addr\")" \
		"$EDMCTL" region create m size 4k addr 512
	# nothing refused was made or changed
	x "$EDMCTL" -j region show | jq -e 'length == 1 and .[0].key_gen == 0'
	x "$EDMCTL" fabric del cpu0
	x "$EDMCTL" fabric del mem0
}

mon_has() {
	jq -e "select($1)" "$MON_OUT" 2>/dev/null | grep -q .
}

mon_count() {
	jq -c "select($1)" "$MON_OUT" | wc -l
}

# Subscribe, then prove the subscription is live before the real events.
# The monitor writes nothing to the case's output, and a case that fails
# before mon_stop still ends it: run_case waits for its output to close.
mon_start() {
	local k=0

	"$EDMCTL" -j monitor >"$MON_OUT" 2>/dev/null &
	MON_PID=$!
	trap 'kill "$MON_PID" 2>/dev/null' EXIT
	until mon_has '.name // "" | startswith("probe")'; do
		k=$((k + 1))
		[ $k -le 100 ] || { echo "monitor never saw a probe event"; return 1; }
		"$EDMCTL" fabric add host probe addr 9 >/dev/null
		"$EDMCTL" fabric del probe
		sleep 0.1
	done
}

mon_stop() {
	kill "$MON_PID"
	wait "$MON_PID" 2>/dev/null
	MON_PID=
	trap - EXIT
	cat "$MON_OUT" >&2
}

# A rekey: a new key for the caller, the old one cut off, the data kept, an
# event with no key in it.
rekey() {
	local dev old new

	fresh
	[ -x "$EDMOP" ] || { echo "edmop not built"; return 1; }
	[ -x "$CBDEMO" ] || { echo "cowbird_demo not built"; return 1; }
	x "$EDMCTL" fabric add switch sw0 ports 4
	# A 2 s op timeout, not the default 100 ms: an edmop read here timed out
	# once in about 40 runs of the 6.12 lane under TCG (a vCPU not run for
	# 100 ms); a fabric wedged for real still fails it.
	x "$EDMCTL" fabric add host cpu0 addr 1 timeout 2000
	x "$EDMCTL" region create mem0 size 64k addr 2 >/dev/null
	x "$EDMCTL" fabric link add cpu0 peer sw0:1
	x "$EDMCTL" fabric link add mem0 peer sw0:2
	dev=/dev/edm$("$EDMCTL" -j fabric show cpu0 | jq -er '.[0].minor')
	poll 5 test -c "$dev"
	old=$(x "$EDMCTL" region key 2)
	# a program writes and reads through libcowbird with the key edmctl gave
	x "$CBDEMO" 2 "$old" 0x1000 | tee /dev/stderr | grep -q 'read back: "hello from libcowbird"'
	mon_start
	new=$(x "$EDMCTL" region rekey 2)
	[[ $new =~ ^0x[0-9a-f]{16}$ ]]
	[ "$new" != "$old" ]
	[ "$(x "$EDMCTL" region key 2)" = "$new" ]
	[ "$(debugfs_key mem0)" = "$new" ]
	x "$EDMCTL" -j region show 2 | jq -e '.[0].key_gen == 1'
	x "$EDMCTL" -j region rekey owner mem0 | jq -e '.[0] | .key_gen == 2 and .owner == "mem0"'
	new=$("$EDMCTL" region key 2)
	poll 10 mon_has '.object == "region" and .event == "rekey" and .key_gen == 2'
	mon_stop
	# events say which region, never its key
	[ "$(mon_count '.object == "region" and .event == "rekey"')" = 2 ]
	if mon_has 'has("key")' || grep -q "${new#0x}" "$MON_OUT"; then
		echo "an event carries a key"
		return 1
	fi
	# the old key opens nothing; the bytes it wrote are still there
	if x "$CBDEMO" 2 "$old" 0x1000; then
		echo "cowbird_demo with the old key succeeded"
		return 1
	fi
	x "$EDMOP" -j "$dev" read 2 0x1000 22 | tee /dev/stderr |
		jq -e '.data == "68656c6c6f2066726f6d206c6962636f776269726400"'
	# and the new key works
	x "$CBDEMO" 2 "$new" 0x2000 | grep -q 'read back: "hello from libcowbird"'
	x "$EDMCTL" -j -s region show 2 | jq -e '.[0].stats | .writes > 0 and .reads > 0'
	for n in cpu0 mem0 sw0; do x "$EDMCTL" fabric del $n; done
}

# Without CAP_NET_ADMIN: regions and the engine read, keys hidden, changes refused.
unprivileged() {
	local key msg

	fresh
	x "$EDMCTL" region create mem0 size 4k addr 2 >/dev/null
	key=$("$EDMCTL" region key 2)
	x nobody "$EDMCTL" -j region show | tee /dev/stderr |
		jq -e 'length == 1 and .[0].owner == "mem0" and (.[0] | has("key") | not)'
	x nobody "$EDMCTL" region show 2 | grep -E '^2: kind fabric owner mem0 size 4K key-gen 0$'
	msg="Operation not permitted: only CAP_NET_ADMIN in the region's network namespace"
	expect_error "$msg sees its key" nobody "$EDMCTL" region key 2
	[ -z "$(nobody "$EDMCTL" -j region key 2 2>/dev/null)" ]
	expect_error "Operation not permitted" nobody "$EDMCTL" region rekey 2
	expect_error "Operation not permitted" nobody "$EDMCTL" cowbird set batch 4
	expect_error "Operation not permitted" nobody "$EDMCTL" region create mem9 size 4k
	x nobody "$EDMCTL" -j cowbird show | jq -e '.engine.batch == 16'
	# nothing changed
	[ "$("$EDMCTL" region key 2)" = "$key" ]
	x "$EDMCTL" fabric del mem0
}

cowbird() {
	local created

	fresh
	[ -x "$CBDEMO" ] || { echo "cowbird_demo not built"; return 1; }
	x "$EDMCTL" -j cowbird show | tee /dev/stderr | jq -e '.engine | .threads >= 1
		and .batch == 16 and .probe_max_us == 1000 and .idle_spins == 64
		and (has("stats") | not)'
	x "$EDMCTL" -j cowbird show | jq -e '.instances == []'
	x "$EDMCTL" cowbird show |
		grep -E '^engine threads [0-9]+ .*probe-max-us 1000 idle-spins 64 batch 16$'
	created=$("$EDMCTL" -j -s cowbird show | jq -er '.engine.stats.created')
	# an instance comes and goes: the engine counted it
	x "$EDMCTL" region create mem0 size 64k addr 2 >/dev/null
	x "$CBDEMO" 2 "$("$EDMCTL" region key 2)" >/dev/null
	x "$EDMCTL" -j -s cowbird show | jq -e --argjson c "$created" '.engine.stats |
		.created == $c + 1 and .picks > 0'
	poll 10 sh -c "\"$EDMCTL\" -j cowbird show | jq -e '.instances == []' >/dev/null"
	mon_start
	x "$EDMCTL" cowbird set batch 8 probe-max-us 200 idle-spins 0
	x "$EDMCTL" -j cowbird show | jq -e '.engine | .batch == 8 and .probe_max_us == 200
		and .idle_spins == 0'
	# a set that changes nothing is no event; the next one is
	x "$EDMCTL" cowbird set batch 8
	x "$EDMCTL" cowbird set batch 16 probe-max-us 1000 idle-spins 64
	poll 10 mon_has '.object == "cowbird" and .batch == 16'
	mon_stop
	[ "$(mon_count '.object == "cowbird" and .event == "set"')" = 2 ]
	mon_has '.object == "cowbird" and .batch == 8 and .probe_max_us == 200'
	# ranges, each refusal naming the keyword
	expect_error "integer out of range (attribute \"batch\")" "$EDMCTL" cowbird set batch 0
	expect_error "integer out of range (attribute \"batch\")" "$EDMCTL" cowbird set batch 1025
	expect_error "integer out of range (attribute \"probe-max-us\")" \
		"$EDMCTL" cowbird set probe-max-us 1
	expect_error "integer out of range (attribute \"idle-spins\")" \
		"$EDMCTL" cowbird set idle-spins 1000001 batch 4
	x "$EDMCTL" -j cowbird show | jq -e '.engine | .batch == 16 and .probe_max_us == 1000'
	x "$EDMCTL" fabric del mem0
}

# A region belongs to its netns: another netns neither sees nor rekeys it.
netns() {
	fresh
	x ip netns add "$NS"
	x "$EDMCTL" region create mem0 size 4k addr 2 >/dev/null
	x "$EDMCTL" -n "$NS" -j region show | jq -e 'length == 0'
	expect_error "no region with this id" "$EDMCTL" -n "$NS" region rekey 2
	x "$EDMCTL" -n "$NS" -j region create mem0 size 8k addr 2 | jq -e '.[0].size == 8192'
	x "$EDMCTL" -j region show | jq -e 'length == 1 and .[0].size == 4096'
	[ "$("$EDMCTL" region key 2)" != "$("$EDMCTL" -n "$NS" region key 2)" ]
	x "$EDMCTL" -n "$NS" fabric del mem0
	x "$EDMCTL" fabric del mem0
	x ip netns del "$NS"
}

# Pool regions: made in a pool of whole Sections, ids from 512 unique in the
# netns, shown beside the fabric's, deleted; the pool stays while it has one.
pool_regions() {
	fresh
	x "$EDMCTL" pool create rp0 size 16M >/dev/null
	x "$EDMCTL" pool create rp1 size 8M >/dev/null
	x "$EDMCTL" region create mem0 size 4k addr 2 >/dev/null
	x "$EDMCTL" -j region create pool rp0 size 3M | tee /dev/stderr | jq -e '.[0] |
		.id == 512 and .kind == "pool" and .owner == "rp0" and .size == 4194304
		and .key_gen == 0 and (.key | test("^0x[0-9a-f]{16}$"))'
	x "$EDMCTL" -j region create pool rp1 size 1 | jq -e '.[0] | .id == 513 and
		.size == 2097152'
	x "$EDMCTL" -j region create pool rp0 size 2M id 700 | jq -e '.[0].id == 700'
	# in device order (the pools were made first), each pool's by id
	x "$EDMCTL" -j region show | jq -e 'map([.id, .kind, .owner]) ==
		[[512, "pool", "rp0"], [700, "pool", "rp0"], [513, "pool", "rp1"],
		 [2, "fabric", "mem0"]]'
	x "$EDMCTL" region show 513 | grep -E '^513: kind pool owner rp1 size 2M key-gen 0 key '
	key=$(x "$EDMCTL" region key 700)
	x "$EDMCTL" region rekey 700 >/dev/null
	[ "$("$EDMCTL" region key 700)" != "$key" ]
	x "$EDMCTL" -j region show 700 | jq -e '.[0].key_gen == 1'
	# the pool's Sections: 2 + 1 held by rp0's regions
	expect_error "a region of this netns has this id" "$EDMCTL" region create pool rp1 size 1 id 700
	expect_error "pool region ids are 512 and up: below are the fabric's" \
		"$EDMCTL" region create pool rp0 size 1 id 511
	expect_error "regions are made in pools: not a pool" "$EDMCTL" region create pool mem0 size 1
	expect_error "no such device" "$EDMCTL" region create pool nosuch size 1
	expect_error "a region's size is 1 byte to the pool's" "$EDMCTL" region create pool rp1 size 16M
	expect_error "the pool has not that many free Sections" \
		"$EDMCTL" region create pool rp1 size 8M
	expect_error "the owner has several regions: name the id too" "$EDMCTL" region key owner rp0
	expect_error "a fabric host's region goes with the host: delete the host" \
		"$EDMCTL" region del 2
	expect_error "the pool has regions: delete them first" "$EDMCTL" pool del rp0
	x "$EDMCTL" region del 512
	x "$EDMCTL" region del 700 owner rp0
	expect_error "no region with this id" "$EDMCTL" region del 700
	x "$EDMCTL" pool del rp0
	x "$EDMCTL" region del owner rp1
	x "$EDMCTL" pool del rp1
	x "$EDMCTL" fabric del mem0
	x "$EDMCTL" -j region show | jq -e 'length == 0'
	edm_no_objects
}

run_case regions "region create, show by id and owner, key: edmctl, JSON and debugfs agree"
run_case region_errors "refusals name what is wrong and change nothing"
run_case rekey "rekey: old key refused, data kept (edmop), new key works, events keyless"
run_case unprivileged "uid 65534: regions and the engine read, no key, changes EPERM"
run_case cowbird "cowbird show and set: parameters, counters, events, ranges"
run_case netns "a region is seen and rekeyed in its own netns only"
run_case pool_regions "pool regions: create, ids, show, rekey, refusals, delete"
tap_done
