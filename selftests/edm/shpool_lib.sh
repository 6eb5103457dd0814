# SPDX-License-Identifier: GPL-2.0
# What the shared-pool guest scripts (shpool_guests.sh, cowbird_guests.sh)
# have in common, sourced after lib.sh. The script sets SP (the
# membership's name), LEASE_MS, me (its guest index), n (the guests) and
# addr() (a guest's address on shp0) first.

# Background jobs die with us; the module unloads if it can.
shpool_cleanup() {
	jobs -p | xargs -r kill -9 2>/dev/null
	wait 2>/dev/null
	if edm_loaded; then
		"$EDMCTL" shpool leave $SP 2>/dev/null
		rmmod edm
	fi
}

# sp JQ-EXPR: this guest's membership (.[0] of show -j -s) satisfies it.
sp() {
	local c

	c=$("$EDMCTL" -j -s shpool show $SP) || return 1
	jq -e ".[0] | $1" >/dev/null <<<"$c" || { echo "shpool: $c" >&2; return 1; }
}

# Load edm.ko and join; the guest that finds the memory blank formats it.
shpool_join() {
	x insmod "$EDM_KO"
	x "$EDMCTL" shpool join $SP dev "$EDM_VM_SHMEM" lease-ms $LEASE_MS >/dev/null
	x ip addr add "$(addr "$me")/24" dev shp0
	x ip link set shp0 up
}

# All n members are live, as this guest sees the pool's host table.
all_live() {
	sp "[.hosts[] | select(.state == \"live\")] | length == $n"
}
