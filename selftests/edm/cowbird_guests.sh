#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs in each guest of `selftests/vm/run --guests 2 --shmem 64M --may-die
# 1`: Cowbird across kernels. Both guests join one shared pool; guest 1 is
# the paper's Spot VM: its engine serves a 1 MiB region of its own memory.
# Guest 0 is the compute node: cowbird_xguest maps rings in pool memory
# and its requests are served by guest 1's engine, checked against
# shadows. Guest 0 stalls past its lease with an instance mapped: guest 1
# reaps it, and guest 0 must take the mapping away once it runs again
# (SIGBUS). Guest 1 rekeys its region under an open instance. At the end
# guest 1 kills its kernel while guest 0 has reads in flight: guest 0's
# library must say EPIPE, and the pool must get the export back. Written
# from <linux/cowbird.h>, cowbird.3 and Documentation/pool.md.
#
# Guest 0 prints the TAP. Guest 1 sends its region's key to guest 0
# through the pool's netdev, then waits to be told to rekey (and sends the
# new key back), then to die.
source "$(dirname "$0")/lib.sh"

me=$EDM_VM_GUEST
n=${EDM_VM_NGUESTS:-1}
SP=cb0
XFER=$(dirname "$0")/xfer.py
XG=$(dirname "$0")/cowbird_xguest
LEASE_MS=1000
REGION=2
addr() { echo "10.84.0.$(($1 + 1))"; }

for t in jq python3; do
	command -v "$t" >/dev/null || { echo "1..0 # SKIP $t is not installed"; exit $KSFT_SKIP; }
done
if [ -z "${EDM_VM_SHMEM:-}" ] || [ "$n" != 2 ]; then
	echo "1..0 # SKIP needs selftests/vm/run --guests 2 --shmem SIZE"
	exit $KSFT_SKIP
fi

source "$(dirname "$0")/shpool_lib.sh"
trap shpool_cleanup EXIT

# xp JQ-EXPR: the export slots in use (.exports of "shpool exports -j") satisfy it.
xp() {
	local c

	c=$("$EDMCTL" -j shpool exports $SP) || return 1
	jq -e ".[0].exports | $1" >/dev/null <<<"$c" || { echo "exports: $c" >&2; return 1; }
}

# mon_start FILE: edmctl -j monitor into FILE, its PID in MON; listening
# once this returns: it printed a probe device's event (made and deleted
# again until it did). None of its output goes to run_case's pipe, which
# would wait for it otherwise.
mon_start() {
	local k=0

	"$EDMCTL" -j monitor >"$1" 2>"$1.err" </dev/null &
	MON=$!
	until grep -q '"name":"mprobe' "$1"; do
		k=$((k + 1))
		[ $k -le 300 ] || { echo "the monitor never saw an event" >&2; return 1; }
		"$EDMCTL" dev add name mprobe$k type null >/dev/null
		"$EDMCTL" dev del name mprobe$k
		sleep 0.1
	done
}

# mon_one FILE JQ-COND: exactly one event in FILE satisfies JQ-COND.
mon_one() {
	jq -s -e "[.[] | select($2)] | length == 1" "$1" >/dev/null ||
		{ echo "events: $(cat "$1")" >&2; return 1; }
}

# ---- guest 0: the compute node ----

# What up learns, for the later cases (each runs in its own subshell).
ENVF=/tmp/cowbird_guests.env

up() {
	shpool_join
	python3 "$XFER" recv 6001 /tmp/key &
	poll 120 all_live
	wait $! || { echo "no key from guest 1" >&2; return 1; }
	KEY=$(cat /tmp/key)
	[[ $KEY =~ ^0x[0-9a-f]{16}$ ]] || { echo "a bad key: $KEY" >&2; return 1; }
	ID=$("$EDMCTL" -j shpool show $SP | jq '.[0].id')
	OWN=$("$EDMCTL" -j shpool show $SP | jq '.[0].slot')
	VIA=$("$EDMCTL" -j shpool show $SP | jq '[.[0].hosts[] | select(.self | not)][0].slot')
	FREE=$("$EDMCTL" -j shpool show $SP |
		jq '[range(.[0].nhosts)] - [.[0].hosts[].slot] | .[0]')
	note "membership $ID, our slot $OWN, the engine's $VIA, a free slot $FREE, key $KEY"
	printf 'ID=%s VIA=%s KEY=%s OWN=%s FREE=%s\n' "$ID" "$VIA" "$KEY" "$OWN" "$FREE" >$ENVF
	# nothing exported yet
	xp 'length == 0'
}

errors() {
	source $ENVF
	x "$XG" errors "$ID" "$VIA" $REGION "$KEY" "$FREE" "$OWN"
	# each refused create gave its slot and Buffers back. Offered: the
	# wrong key, the missing region, the free slot and the good one; the
	# others are refused before a slot is claimed. Freed: by whichever
	# kernel swept first, so not counted here.
	poll 10 xp 'length == 0'
	sp '.stats["x-offered"] == 4 and .stats["x-lost"] == 0'
}

# Four threads, 64 KiB each, against shadows; the rings live in the pool.
shadow() {
	source $ENVF
	local out

	out=$(x "$XG" shadow "$ID" "$VIA" $REGION "$KEY" 4 "$(scaled 3000)") || return 1
	note "$out"
	poll 10 xp 'length == 0'
}

# While an instance is open: it shows as offered and served by guest 1,
# its area is some Buffers, and leaving the pool is refused.
open_state() {
	source $ENVF
	local pid rc=0

	"$XG" shadow "$ID" "$VIA" $REGION "$KEY" 2 1000000 &
	pid=$!
	poll 20 xp "length == 1 and (.[0] | .state == \"offered\" and .answer == \"served\"
		and .owner == $OWN and .target == $VIA and .engine == $VIA and .bufs >= 2
		and .region == $REGION)" || rc=1
	expect_error "Cowbird instances of this kernel use the pool: close them first" \
		"$EDMCTL" shpool leave $SP || rc=1
	# killed with requests in flight: the engine lets go, a sweep frees the slot
	kill -9 $pid
	wait $pid 2>/dev/null || true
	poll 10 xp 'length == 0' || rc=1
	return $rc
}

# Our kernel stalls past its lease with an instance mapped (debugfs
# shpool_stall pauses its pool works, as a paused guest's would): guest 1
# reaps us, drops the instance and frees its export, so the Buffers may
# go to others. Once running again our kernel finds itself fenced and takes
# the mapping away: a load from it is SIGBUS, a new mmap ENODEV. Then we
# leave and join again, a new life for the cases after.
stalled() {
	source $ENVF
	local pid

	rm -f /tmp/mark /tmp/go
	mon_start /tmp/stalled.events
	"$XG" revoked "$ID" "$VIA" $REGION "$KEY" /tmp/mark /tmp/go >/tmp/revoked.out 2>&1 &
	pid=$!
	poll 60 test -e /tmp/mark || { cat /tmp/revoked.out >&2; return 1; }
	xp "length == 1 and .[0].answer == \"served\""
	echo 1 >"$EDM_DEBUGFS/shpool_stall"
	poll 30 sp "[.hosts[] | select(.slot == $OWN and .state == \"free\")] | length == 1"
	poll 10 xp 'length == 0'
	sp '.stats.fenced == 0 and .stats["x-revoked"] == 0'
	echo 0 >"$EDM_DEBUGFS/shpool_stall"
	poll 10 sp '.stats.fenced == 1 and .stats["x-revoked"] == 1'
	touch /tmp/go
	wait $pid || { cat /tmp/revoked.out >&2; return 1; }
	note "$(cat /tmp/revoked.out)"
	# the events: this kernel reaped (self), its export revoked; each is
	# sent just after its counter moves, so they are waited for
	poll 10 mon_one /tmp/stalled.events ".object == \"shpool\" and .event == \"reap\"
		and .self and .slot == $OWN and .state == \"free\""
	poll 10 mon_one /tmp/stalled.events ".event == \"export-down\" and .down == \"revoked\"
		and .owner == $OWN and .target == $VIA and .region == $REGION"
	kill $MON
	x "$EDMCTL" shpool leave $SP
	x "$EDMCTL" shpool join $SP dev "$EDM_VM_SHMEM" >/dev/null
	x ip addr add "$(addr "$me")/24" dev shp0
	x ip link set shp0 up
	poll 30 all_live
	ID=$("$EDMCTL" -j shpool show $SP | jq '.[0].id')
	OWN=$("$EDMCTL" -j shpool show $SP | jq '.[0].slot')
	printf 'ID=%s VIA=%s KEY=%s OWN=%s FREE=%s\n' "$ID" "$VIA" "$KEY" "$OWN" "$FREE" >$ENVF
}

# Guest 1 rekeys its region while our instance is open (keys are checked
# by its engine, where the memory is, on every op): our write and read then
# end EACCES and move nothing, the old key opens nothing, and the new key,
# which guest 1 sends back, reads the bytes as they were.
rekey() {
	source $ENVF
	local pid rx

	rm -f /tmp/mark /tmp/key2 /tmp/key2.part
	"$XG" rekeyed "$ID" "$VIA" $REGION "$KEY" /tmp/mark /tmp/key2 >/tmp/rekeyed.out 2>&1 &
	pid=$!
	poll 60 test -e /tmp/mark || { cat /tmp/rekeyed.out >&2; kill $pid; return 1; }
	python3 "$XFER" recv 6004 /tmp/key2.part &
	rx=$!
	echo rekey >/tmp/rekey
	x python3 "$XFER" send "$(addr 1)" 6003 /tmp/rekey
	wait $rx || { kill $pid; return 1; }
	[[ $(cat /tmp/key2.part) =~ ^0x[0-9a-f]{16}$ ]] && [ "$(cat /tmp/key2.part)" != "$KEY" ] ||
		{ echo "a bad new key: $(cat /tmp/key2.part)" >&2; kill $pid; return 1; }
	mv /tmp/key2.part /tmp/key2
	wait $pid || { cat /tmp/rekeyed.out >&2; return 1; }
	note "$(cat /tmp/rekeyed.out)"
	KEY=$(cat /tmp/key2)
	printf 'ID=%s VIA=%s KEY=%s OWN=%s FREE=%s\n' "$ID" "$VIA" "$KEY" "$OWN" "$FREE" >$ENVF
	poll 10 xp 'length == 0'
}

# Guest 1 dies with our reads in flight: the library says EPIPE, guest 1 is
# reaped, our export is freed.
engine_dies() {
	source $ENVF
	local pid out

	rm -f /tmp/mark
	mon_start /tmp/dies.events
	"$XG" until-dead "$ID" "$VIA" $REGION "$KEY" /tmp/mark 60 >/tmp/until.out 2>&1 &
	pid=$!
	poll 120 test -e /tmp/mark
	echo die >/tmp/die
	x python3 "$XFER" send "$(addr 1)" 6002 /tmp/die
	wait $pid || { cat /tmp/until.out >&2; return 1; }
	note "$(cat /tmp/until.out)"
	poll 30 sp "[.hosts[] | select(.slot == $VIA and .state == \"free\"
		and .reaped >= 1)] | length == 1"
	poll 10 xp 'length == 0'
	sp '.stats["x-lost"] == 1'
	# the events: we reaped guest 1; our instance's engine is gone
	poll 10 mon_one /tmp/dies.events ".event == \"reap\" and .slot == $VIA and (.self | not)"
	poll 10 mon_one /tmp/dies.events ".event == \"export-down\" and .down == \"engine-gone\"
		and .target == $VIA"
	kill $MON
	# nobody serves that slot now: a create says so (EHOSTDOWN)
	x "$XG" refused "$ID" "$VIA" $REGION "$KEY" 112 -
}

leave() {
	x "$EDMCTL" shpool leave $SP
	x rmmod edm
}

# ---- guest 1: the engine (Spot VM) ----

engine() {
	local out

	out=$( (set -e
		shpool_join
		x "$EDMCTL" region create mem0 size 1M addr $REGION >/dev/null
		"$EDMCTL" region key $REGION >/tmp/key
		poll 120 all_live
		poll 120 ping -c 1 -W 1 -q "$(addr 0)"
		x python3 "$XFER" send "$(addr 0)" 6001 /tmp/key) 2>&1) ||
		{ printf '# g1: %s\n' "$out"; exit 1; }
	# rekey when asked, and send the new key back
	out=$( (set -e
		x python3 "$XFER" recv 6003 /tmp/rekey idle=600
		x "$EDMCTL" region rekey $REGION >/dev/null
		"$EDMCTL" region key $REGION >/tmp/key
		x python3 "$XFER" send "$(addr 0)" 6004 /tmp/key) 2>&1) ||
		{ printf '# g1: never asked to rekey, or could not: %s\n' "$out"; exit 1; }
	python3 "$XFER" recv 6002 /tmp/die idle=600 ||
		{ echo "# g1: never told to die"; exit 1; }
	echo "# g1: $("$EDMCTL" -s shpool stats $SP | tr '\n' ' ')"
	echo b >/proc/sysrq-trigger
	sleep 30
	echo "# g1: still alive after sysrq b"
	exit 1
}

case $me in
0)
	rm -f $ENVF
	run_case up "guest 0: both guests join one shared pool; guest 1's key arrives"
	run_case errors "guest 0: every create refusal, each slot given back"
	run_case shadow "guest 0: 4 threads' reads and writes served by guest 1, shadows equal"
	run_case open_state "guest 0: an open instance is shown served; leave refused; kill -9"
	run_case stalled "guest 0 stalls past its lease: reaped, its mapping taken away (SIGBUS)"
	run_case rekey "guest 1 rekeys its region: our open instance gets EACCES, the new key reads"
	run_case engine_dies "guest 1 dies with reads in flight: EPIPE, export freed"
	run_case leave "guest 0 leaves the pool and unloads"
	tap_done
	;;
1)
	engine
	;;
esac
