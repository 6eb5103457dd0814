# SPDX-License-Identifier: GPL-2.0
# What the shared-pool guest scripts (shpool_guests.sh, cowbird_guests.sh)
# have in common, sourced after lib.sh. The script sets SP (the
# membership's name), LEASE_MS, me (its guest index), n (the guests) and
# addr() (a guest's address on shp0) first.

# The memory the guests share (SHP_DEV): the NVDIMM's namespace as a pmem
# device (/dev/pmem0) with selftests/vm/run --nvdimm, or as a device-DAX
# device (/dev/dax0.0) when EDM_SHP_DEVDAX=1 too; else the ivshmem device
# of --shmem; empty with neither.
if [ -n "${EDM_VM_NVDIMM_SIZE:-}" ] && [ "${EDM_SHP_DEVDAX:-0}" = 1 ]; then
	SHP_DEV=/dev/dax0.0
elif [ -n "${EDM_VM_NVDIMM_SIZE:-}" ]; then
	SHP_DEV=/dev/pmem0
else
	SHP_DEV=${EDM_VM_SHMEM:-}
fi
export SHP_DEV

# The NVDIMM's namespace in fsdax mode in every guest (pmem DAX is what
# edm maps; edm.ko loaded): guest 0, which first finds it raw and refused,
# writes the info block into the shared memory, with its struct pages in
# RAM (-M mem: nothing per guest in the shared part). For /dev/dax0.0 the
# same in devdax mode, 4 KiB pages.
pmem_setup() {
	# raw, the pmem driver maps it, but it has no DAX device for edm, and
	# no /dev/dax0.0 at all
	local mode=fsdax make=pmem_make_fsdax raw="has no DAX" node=-b

	pmem_load
	if [ "$SHP_DEV" = /dev/dax0.0 ]; then
		mode=devdax make="pmem_make_devdax 4096" raw="no device at that path" node=-c
		x modprobe dax_pmem && x modprobe device_dax || return 1
	fi
	if [ "$me" = 0 ]; then
		if ! pmem_is $mode; then
			expect_error_in "$raw" "$EDMCTL" shpool join $SP dev "$SHP_DEV"
			$make || return 1
		fi
	else
		poll 120 pmem_reprobe $mode || return 1
	fi
	poll 10 test $node "$SHP_DEV"
}

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
	[ -z "${EDM_VM_NVDIMM_SIZE:-}" ] || pmem_setup
	x "$EDMCTL" shpool join $SP dev "$SHP_DEV" lease-ms $LEASE_MS >/dev/null
	x ip addr add "$(addr "$me")/24" dev shp0
	x ip link set shp0 up
}

# All n members are live, as this guest sees the pool's host table.
all_live() {
	sp "[.hosts[] | select(.state == \"live\")] | length == $n"
}
