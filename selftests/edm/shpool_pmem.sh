#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A shared pool on persistent memory, in one guest (selftests/vm/run
# --nvdimm 128M), written from Documentation/pool.md ("Persistent memory
# underneath"): the NVDIMM's namespace, raw at boot, is refused (no DAX)
# until it is in fsdax mode; then a membership joins it, and while it holds
# it a second join, a file system and ndctl disable-namespace are refused;
# it leaves and joins again with ip; and on kernels that give notice before
# a namespace goes (6.7 and later), the driver unbound under a member whose
# netdev polls (through sysfs, which does not ask) detaches it first: the
# netdev goes, nothing leaks, and once bound again the namespace is joined
# with the pool as it was. 6.1 gives no notice: there the unbind waits
# until the member leaves. Last, the same namespace as a device-DAX
# device (/dev/dax0.0) is joined, claimed, and joined again.
source "$(dirname "$0")/lib.sh"

me=0 n=1 SP=pm0 LEASE_MS=1000
addr() { echo "10.84.0.$(($1 + 1))"; }
source "$(dirname "$0")/shpool_lib.sh"

for t in jq ndctl ethtool mkfs.ext4; do
	command -v "$t" >/dev/null || { echo "1..0 # SKIP $t is not installed"; exit $KSFT_SKIP; }
done
if [ -z "${EDM_VM_NVDIMM_SIZE:-}" ]; then
	echo "1..0 # SKIP needs selftests/vm/run --nvdimm SIZE"
	exit $KSFT_SKIP
fi
edm_loaded || { echo "1..0 # SKIP edm.ko is not loaded"; exit $KSFT_SKIP; }

ND_BOUND=	# the device unbind() unbound, until it binds it again

cleanup() {
	"$EDMCTL" shpool leave $SP 2>/dev/null
	ip link del shx 2>/dev/null
	ndctl enable-namespace namespace0.0 >/dev/null 2>&1
	[ -z "${ND_BOUND:-}" ] || echo "$ND_BOUND" >/sys/bus/nd/drivers/nd_pmem/bind 2>/dev/null
	return 0
}
trap cleanup EXIT

join_pmem() {
	pmem_setup	# refused while raw ("has no DAX"), then fsdax
	x "$EDMCTL" shpool join $SP dev "$SHP_DEV" lease-ms $LEASE_MS >/dev/null
	sp '.device == env.SHP_DEV and .ifname == "shp0" and .formatted and .bufs > 0'
	ethtool -i shp0 | grep -qx "bus-info: $SHP_DEV"
	# the device is claimed: no second membership, no file system on it
	expect_error_in "that block device is in use" "$EDMCTL" shpool join twice dev "$SHP_DEV"
	if mkfs.ext4 -q -F "$SHP_DEV" >/dev/null 2>&1; then
		echo "mkfs.ext4 wrote a file system over a joined pool"
		return 1
	fi
	[ "$(edm_objects shpool)" = 1 ]
}

leave_rejoin() {
	x "$EDMCTL" shpool leave $SP
	[ ! -e /sys/class/net/shp0 ]
	edm_no_objects
	x ipl link add shx type shpool dev "$SHP_DEV" name $SP lease-ms $LEASE_MS
	# formatted by the first join: the memory kept it
	sp '(.formatted | not) and .device == env.SHP_DEV and .ifname == "shx"'
	x ip link del shx
	edm_no_objects
}

# ndctl asks first: it will not disable a namespace a member holds.
busy() {
	x "$EDMCTL" shpool join $SP dev "$SHP_DEV" >/dev/null
	expect_error_in "busy" ndctl disable-namespace namespace0.0
	[ -e /sys/class/net/shp0 ] && [ -b "$SHP_DEV" ]
	x "$EDMCTL" shpool leave $SP
	edm_no_objects
}

# 6.1: no notice, the unbind waits (in D state) for the member to leave.
unbind_waits() {
	local ub

	bash -c "echo $1 >/sys/bus/nd/drivers/nd_pmem/unbind" &
	ub=$!
	poll 10 grep -q "^State:.*D" "/proc/$ub/status"
	[ -e /sys/class/net/shp0 ]
	x "$EDMCTL" shpool leave $SP
	x wait "$ub"
	[ ! -b "$SHP_DEV" ]
	edm_no_objects
}

unbind() {
	local nd notice=1

	case $(uname -r) in
	6.[0-6].*) notice= ;;
	esac
	# the device nd_pmem drives: the namespace's pfn device in fsdax mode
	nd=$(basename "$(readlink -f "/sys/block/${SHP_DEV#/dev/}/device")")
	[ -e "/sys/bus/nd/drivers/nd_pmem/$nd" ]
	x "$EDMCTL" shpool join $SP dev "$SHP_DEV" >/dev/null
	x ip addr add "$(addr 0)/24" dev shp0
	x ip link set shp0 up	# its NAPI polls the pool's rings
	ND_BOUND=$nd
	if [ -z "$notice" ]; then
		unbind_waits "$nd"
		echo "$nd" >/sys/bus/nd/drivers/nd_pmem/bind
		ND_BOUND=
		poll 10 test -b "$SHP_DEV"
		return 0
	fi
	echo "$nd" >/sys/bus/nd/drivers/nd_pmem/unbind
	# the notice came first: detached, its netdev gone, before the unmap
	[ ! -e /sys/class/net/shp0 ] && [ ! -b "$SHP_DEV" ]
	dmesg | grep -q "$SHP_DEV going away: shared pool $SP leaves"
	[ "$(edm_objects shpool)" = 1 ]
	x "$EDMCTL" shpool leave $SP
	edm_no_objects
	echo "$nd" >/sys/bus/nd/drivers/nd_pmem/bind
	ND_BOUND=
	poll 10 test -b "$SHP_DEV"
	x "$EDMCTL" shpool join $SP dev "$SHP_DEV" >/dev/null
	sp '(.formatted | not) and .nhosts >= 2'
	x "$EDMCTL" shpool leave $SP
	edm_no_objects
}

run_case join_pmem "a raw namespace is refused; fsdax is joined and claimed"
run_case leave_rejoin "left and joined again with ip link, the pool's format kept"
run_case busy "ndctl will not disable the namespace a member holds"
# The namespace as a device-DAX device: joined whole, claimed, its format kept.
devdax() {
	local epoch

	trap 'set +e; cleanup; pmem_make_fsdax' EXIT
	pmem_load
	pmem_make_devdax 2M
	x "$EDMCTL" shpool join $SP dev /dev/dax0.0 lease-ms $LEASE_MS >/dev/null
	# formatted already if an fsdax member wrote it: the same memory after the info block
	sp '.device == "/dev/dax0.0" and .ifname == "shp0" and .bufs > 0'
	epoch=$("$EDMCTL" -j shpool show $SP | jq -e '.[0].epoch')
	expect_error_in "that DAX device is in use" "$EDMCTL" shpool join twice dev /dev/dax0.0
	x "$EDMCTL" shpool leave $SP
	edm_no_objects
	x "$EDMCTL" shpool join $SP dev /dev/dax0.0 lease-ms $LEASE_MS >/dev/null
	sp "(.formatted | not) and .device == \"/dev/dax0.0\" and .epoch > $epoch"
	x "$EDMCTL" shpool leave $SP
	edm_no_objects
	pmem_make_fsdax		# as the scripts after this one expect
}

run_case unbind "the driver unbound under a member: it detaches first (6.7+) or the unbind waits"
run_case devdax "a device-DAX device is joined, claimed and joined again"
tap_done
