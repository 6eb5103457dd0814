#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The guest half of soak.sh. Workers, each with its own names and a shadow
# model of what it made, create, look up and delete devices and check every
# answer and, every few steps, the kernel's list against the model. Beside
# them run edm_fuzz and a netns that comes and goes with devices in it.
# After SOAK_SECONDS the module is unloaded while all of it still runs.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
edmctl=$top/tools/edmctl/edmctl
fuzz=$top/selftests/edm/edm_fuzz
secs=${SOAK_SECONDS:-300}
nworkers=${SOAK_WORKERS:-4}
out=$(mktemp -d)

# worker W: counts go to $out/W as "ops verified mismatches", written only
# while no unload has started, so the last line holds checked work only.
worker() {
	local w=$1 ops=0 verified=0 bad=0 k name want got
	declare -A have=()

	# Once the unload starts, answers are no longer checked: errors are due.
	while [ ! -e "$out/unloading" ]; do
		k=$((RANDOM % 16)) name=w$w-$k
		if [ -n "${have[$name]:-}" ]; then
			"$edmctl" -j dev show name "$name" | jq -e --arg n "$name" '.[0].name == $n' \
				>/dev/null || bad=$((bad + 1))
			"$edmctl" dev del name "$name" || bad=$((bad + 1))
			unset "have[$name]"
			ops=$((ops + 2))
		else
			"$edmctl" dev add name "$name" type null >/dev/null || bad=$((bad + 1))
			have[$name]=1
			ops=$((ops + 1))
		fi
		if [ $((ops % 20)) -lt 2 ]; then
			want=$(printf '%s\n' "${!have[@]}" | grep . | sort | tr '\n' ' ')
			got=$("$edmctl" -j dev show | jq -r --arg p "w$w-" \
				'.[].name | select(startswith($p))' | sort | tr '\n' ' ')
			if [ "$want" = "$got" ]; then
				verified=$((verified + ${#have[@]}))
			elif [ ! -e "$out/unloading" ]; then
				bad=$((bad + 1))
				echo "worker $w: kernel has [$got], model [$want]" >&2
			fi
		fi
		[ -e "$out/unloading" ] || echo "$ops $verified $bad" >"$out/$w"
	done
}

# In its own netns: its random deletes must not hit the workers' devices.
fuzzer() {
	local runs=0

	ip netns add soakfuzz
	while [ ! -e "$out/stop" ]; do
		ip netns exec soakfuzz "$fuzz" -n 500 >/dev/null 2>>"$out/fuzz.err" || true
		runs=$((runs + 1))
		echo "$runs" >"$out/fuzz"
	done
	ip netns del soakfuzz
}

netns_churn() {
	local i=0

	while [ ! -e "$out/stop" ]; do
		ip netns add soak$i && "$edmctl" -n soak$i dev add name x type null >/dev/null
		ip netns del soak$i
		i=$((i + 1))
		echo "$i" >"$out/netns"
	done
}

dmesg -C
insmod "$top/build/$(uname -r)/edm.ko"
for w in $(seq 1 "$nworkers"); do worker "$w" & done
fuzzer &
netns_churn &

sleep "$secs"
# Unload under load: the workers are still issuing requests. rmmod can be
# refused while a request holds the module; retry until it goes.
touch "$out/unloading"
tries=0
until rmmod edm 2>/dev/null; do
	tries=$((tries + 1))
	[ $tries -lt 200 ] || { echo "soak: edm.ko would not unload under load"; break; }
	sleep 0.05
done
unloaded_under_load=$([ -d /sys/module/edm ] && echo no || echo yes)
touch "$out/stop"
wait

ops=0 verified=0 bad=0
for w in $(seq 1 "$nworkers"); do
	read -r o v b <"$out/$w" || continue
	ops=$((ops + o)) verified=$((verified + v)) bad=$((bad + b))
done
splats=$(dmesg | grep -cE 'WARNING:|BUG:|Oops|general protection|refcount_t:|list_add corruption|UBSAN:|KASAN:|kmemleak:|INFO: task .* blocked|soft lockup|hard LOCKUP' || true)
echo "soak on $(uname -r), ${secs} s, $nworkers workers:"
echo "  registry operations: $ops (each answer checked)"
echo "  objects verified against the shadow models: $verified"
echo "  mismatches: $bad"
echo "  fuzzer rounds of 500 messages: $(cat "$out/fuzz" 2>/dev/null || echo 0)"
echo "  netns created and destroyed with a device inside: $(cat "$out/netns" 2>/dev/null || echo 0)"
echo "  unloaded under load: $unloaded_under_load (after $tries refusals)"
echo "  splats in dmesg: $splats"
[ "$bad" -eq 0 ] && [ "$splats" -eq 0 ] && [ "$unloaded_under_load" = yes ]
