#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# edmctl command-line tests that need no kernel module: help, option and
# argument errors, exit codes, and (when the "edm" family is absent, as on
# a host) the module-not-loaded error. JSON output is checked with a JSON
# parser when python3 is there.
#
#   tests/cli.sh [path/to/edmctl]
#
# Set EDMCTL_WRAP to run edmctl under a wrapper, e.g.
#   EDMCTL_WRAP="valgrind -q --error-exitcode=99 --leak-check=full" tests/cli.sh

EDMCTL=${1:-./edmctl}
UNIT=$(dirname "$EDMCTL")/tests/unit
WRAP=${EDMCTL_WRAP:-}
fail=0
n=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run EXPECTED_RC STDOUT_PATTERN STDERR_PATTERN -- ARGS...
# Patterns are grep -E expressions; "" means the stream must be empty,
# "*" means anything.
run() {
	want_rc=$1 out_pat=$2 err_pat=$3
	shift 4
	n=$((n + 1))
	# shellcheck disable=SC2086
	$WRAP "$EDMCTL" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	ok=1
	[ "$rc" = "$want_rc" ] || ok=0
	check "$tmp/out" "$out_pat" || ok=0
	check "$tmp/err" "$err_pat" || ok=0
	if [ $ok = 0 ]; then
		fail=$((fail + 1))
		echo "FAIL: edmctl $* (rc $rc, want $want_rc)"
		sed 's/^/  out: /' "$tmp/out"
		sed 's/^/  err: /' "$tmp/err"
	fi
}

check() {
	case $2 in
	'*') return 0 ;;
	'') [ ! -s "$1" ] ;;
	*) grep -Eq -- "$2" "$1" ;;
	esac
}

have_family() {
	# "version" succeeds only with the module loaded.
	"$EDMCTL" version >/dev/null 2>&1
}

# --- help and version ---
run 0 '^edmctl [0-9]' '' -- -V
run 0 '^edmctl [0-9]' '' -- --version
run 0 '^Usage: edmctl' '' -- -h
run 0 '^Usage: edmctl' '' -- --help
run 0 '^Usage: edmctl' '' -- help
run 0 '^Usage: edmctl' '' -- h
run 0 '^Usage: edmctl dev' '' -- help dev
run 0 '^Usage: edmctl dev' '' -- dev help
run 0 '^Usage: edmctl dev' '' -- d h
run 0 '^Usage: edmctl dev' '' -- dev add help
run 0 '^Usage: edmctl dev' '' -- dev show name x help
run 0 '^Usage: edmctl version' '' -- version help
run 0 '^Usage: edmctl monitor' '' -- monitor help
run 0 '^Usage: edmctl monitor' '' -- -j monitor help
run 1 '' '^Usage: edmctl' --
run 0 '^Usage: edmctl netdimm' '' -- netdimm help
run 0 '^Usage: edmctl netdimm' '' -- help netdimm
run 0 '^Usage: edmctl netdimm' '' -- ne h
run 1 '' '^Object "n" is ambiguous' -- n h
run 0 '^Usage: edmctl netdimm' '' -- netdimm add help
run 0 '^Usage: edmctl netdimm' '' -- netdimm add nd0 size 64M help
run 0 '^Usage: edmctl netdimm' '' -- netdimm show nd0 help
run 0 '^Usage: edmctl netdimm' '' -- netdimm zone help
run 0 '^Usage: edmctl netdimm' '' -- netdimm zone show help
run 0 '^Usage: edmctl netdimm' '' -- netdimm stats help
run 0 '^Usage: edmctl netdimm' '' -- netdimm del help
run 0 'RXMODE := \{ zerocopy \| clone \}' '' -- netdimm help
run 0 'OBJECT := \{ version \| dev \| netdimm \| fabric \| pool \| rack \| nicpool \| shpool \| region \|' \
	'' -- help
run 0 '^Usage: edmctl pool' '' -- pool help
run 0 '^Usage: edmctl pool' '' -- pool create p0 size 64M help
run 0 '^Usage: edmctl rack' '' -- rack help
run 0 '^Usage: edmctl rack' '' -- rack add-cn r0 help
run 0 '^Usage: edmctl nicpool' '' -- nicpool help
run 0 '^Usage: edmctl nicpool' '' -- nicpool create np0 rack r0 help
run 0 '^Usage: edmctl nicpool' '' -- nicpool add-nic np0 help
run 0 'MODE := \{ flowlet \| spray \}' '' -- ni help
run 1 '' '^Error: a NIC pool name is required' -- nicpool create
run 1 '' '^Error: a NIC pool name and a netdev are required' -- nicpool add-nic np0
run 1 '' '^Error: a NIC pool name and a netdev are required' -- nicpool del-nic np0 a b
run 1 '' '^Error: unknown mode "fast", expected one of: flowlet, spray' -- nicpool create np0 rack r0 mode fast
run 1 '' '^Error: invalid flowlet-gap-us "x"' -- nicpool set np0 flowlet-gap-us x
run 1 '' '^Error: "mode" given twice|^Error: duplicate' -- nicpool set np0 mode spray mode flowlet
run 1 '' '^Error: unknown.*"rack"|"rack"' -- nicpool set np0 rack r1
run 1 '' '^Error: invalid name' -- nicpool show 0123456789abcdefg
run 0 '^Usage: edmctl shpool' '' -- shpool help
run 0 '^Usage: edmctl shpool' '' -- help shpool
run 0 '^Usage: edmctl shpool' '' -- s he
run 0 '^Usage: edmctl shpool' '' -- shpool join sp0 dev 0000:00:10.0 help
run 0 '^Usage: edmctl shpool' '' -- shpool hosts help
run 0 '^Usage: edmctl shpool' '' -- shpool leave help
run 1 '' '^Command "h" is ambiguous' -- shpool h
run 1 '' '^Error: a shared pool name is required' -- shpool join
run 1 '' '^Error: a shared pool name is required' -- shpool leave
run 1 '' '^Error: "dev" is required' -- shpool join sp0
run 1 '' '^Error: "dev" is required' -- shpool join sp0 ifname shp0
run 1 '' '^Error: "dev" needs an argument' -- shpool join sp0 dev
run 1 '' '^Error: duplicate "ring"' -- shpool join sp0 dev 0000:00:10.0 ring 8 ring 16
run 1 '' '^Error: invalid lease-ms "3s"' -- shpool join sp0 dev 0000:00:10.0 lease-ms 3s
run 1 '' '^Error: invalid hosts "-1"' -- shpool join sp0 dev 0000:00:10.0 hosts -1
run 1 '' '^Error: invalid ifname "0123456789abcdef" \(expected 1 to 15' -- \
	shpool join sp0 dev 0000:00:10.0 ifname 0123456789abcdef
run 1 '' '^Error: invalid dev "" \(expected 1 to 31' -- shpool join sp0 dev ''
run 1 '' '^Error: unknown argument "size"' -- shpool join sp0 dev 0000:00:10.0 size 64M
run 1 '' '^Error: unknown argument "x"' -- shpool leave sp0 x
run 1 '' '^Error: unknown argument "x"' -- shpool stats sp0 x
run 1 '' '^Error: invalid name' -- shpool show 0123456789abcdefg
run 1 '' '^Error: "size" is required|^Error: a name is required' -- pool create
run 0 'netdimm new' '' -- monitor help
run 0 'fabric-link' '' -- monitor help
run 0 '^Usage: edmctl fabric' '' -- fabric help
run 0 '^Usage: edmctl fabric' '' -- help fabric
run 0 '^Usage: edmctl fabric' '' -- f h
run 0 '^Usage: edmctl fabric' '' -- fabric add help
run 0 '^Usage: edmctl fabric' '' -- fabric add switch help
run 0 '^Usage: edmctl fabric' '' -- fabric add switch sw0 ports 4 help
run 0 '^Usage: edmctl fabric' '' -- fabric show sw0 help
run 0 '^Usage: edmctl fabric' '' -- fabric del help
run 0 '^Usage: edmctl fabric' '' -- fabric set sw0 help
run 0 '^Usage: edmctl fabric' '' -- fabric link help
run 0 '^Usage: edmctl fabric' '' -- fabric link add help
run 0 '^Usage: edmctl fabric' '' -- fabric link add sw0:1 peer h0 help
run 0 '^Usage: edmctl fabric' '' -- fabric link show sw0 help
run 0 'MUX := \{ fair \| strict \| none \}' '' -- fabric help
run 0 'POLICY := \{ srpt \| fcfs \}' '' -- fabric help
run 0 '^Usage: edmctl region' '' -- region help
run 0 '^Usage: edmctl region' '' -- help region
run 0 '^Usage: edmctl region' '' -- reg h
run 1 '' 'Object "r" is ambiguous' -- r h
run 0 '^Usage: edmctl region' '' -- region show help
run 0 '^Usage: edmctl region' '' -- region show 2 owner mem0 help
run 0 '^Usage: edmctl region' '' -- region key help
run 0 '^Usage: edmctl region' '' -- region rekey 2 help
run 0 '^Usage: edmctl region' '' -- region create help
run 0 '^Usage: edmctl region' '' -- region create mem0 size 1M help
run 0 'SELECTOR := \{ ID \[ owner NAME \] \| owner NAME \}' '' -- region help
run 0 '^Usage: edmctl cowbird' '' -- cowbird help
run 0 '^Usage: edmctl cowbird' '' -- help cowbird
run 0 '^Usage: edmctl cowbird' '' -- c h
run 0 '^Usage: edmctl cowbird' '' -- cowbird show help
run 0 '^Usage: edmctl cowbird' '' -- cowbird set batch 4 help
run 0 'region rekey' '' -- monitor help
run 0 'cowbird set' '' -- monitor help

# --- unknown words ---
run 1 '' '^Object "foo" is unknown, try "edmctl help"\.$' -- foo
run 1 '' '^Object "x" is unknown, try "edmctl help"\.$' -- -j x
run 1 '' '^Object "foo" is unknown' -- help foo
run 1 '' '^Command "foo" not found, try "edmctl dev help"\.$' -- dev foo
run 1 '' '^Command "foo" not found, try "edmctl version help"\.$' -- version foo
run 1 '' '^Error: unknown argument "foo", try "edmctl monitor help"\.$' -- monitor foo
run 1 '' '^Error: unknown argument "foo", try "edmctl dev help"\.$' -- dev show foo
run 1 '' '^Error: unknown argument "bar", try "edmctl version help"\.$' -- version show bar
run 1 '' '^Command "foo" not found, try "edmctl netdimm help"\.$' -- netdimm foo
run 1 '' '^Command "s" is ambiguous, try "edmctl netdimm help"\.$' -- netdimm s
run 1 '' '^Command "foo" not found, try "edmctl netdimm help"\.$' -- netdimm zone foo
run 1 '' '^Error: unknown argument "nd1", try "edmctl netdimm help"\.$' -- netdimm show nd0 nd1
run 1 '' '^Error: unknown argument "foo", try "edmctl netdimm help"\.$' \
	-- netdimm add nd0 size 64M foo 1
run 1 '' '^Option "-x" is unknown' -- -x dev
run 1 '' '^Option "--bogus" is unknown' -- --bogus
run 1 '' '^Error: option "-n" needs an argument\.$' -- -n

# --- bad arguments (all caught before talking to the kernel) ---
run 1 '' '^Error: unknown device type "foo", expected one of: null\.$' -- dev add name a type foo
run 1 '' '^Error: unknown argument "backend", try "edmctl dev help"\.$' -- dev add name a type null backend soft
run 1 '' '^Error: unknown device type "unspec"' -- dev add name a type unspec
run 1 '' '^Error: "type" is required' -- dev add name a
run 1 '' '^Error: "name" is required' -- dev add type null
run 1 '' '^Error: "name" needs an argument\.$' -- dev add type null name
run 1 '' '^Error: duplicate "type"\.$' -- dev add name a type null type null
run 1 '' '^Error: invalid device id "0"\.$' -- dev show id 0
run 1 '' '^Error: invalid device id "abc"\.$' -- dev show id abc
run 1 '' '^Error: invalid device id "-1"\.$' -- dev del id -1
run 1 '' '^Error: invalid device id "4294967296"\.$' -- dev del id 4294967296
run 1 '' '^Error: "id" and "name" are mutually exclusive\.$' -- dev show id 1 name a
run 1 '' '^Error: "id" or "name" is required' -- dev del
run 1 '' '^Error: device name "0123456789abcdef" is too long \(at most 15 characters\)\.$' -- dev add name 0123456789abcdef type null
run 1 '' '^Error: device name must not be empty\.$' -- dev del name ''
run 1 '' '^Error: a NetDIMM needs a size: create it with "edmctl netdimm add"\.$' \
	-- dev add name a type netdimm
run 1 '' '^Error: invalid count "0"' -- monitor count 0
run 1 '' '^Error: invalid count "x"' -- monitor count x
run 1 '' '^Error: cannot open network namespace "edmctl-no-such-ns": ' -- -n edmctl-no-such-ns dev show
run 1 '' '^Error: invalid network namespace name' -- -n ../x dev show

# --- netdimm: bad arguments, all caught before talking to the kernel ---
sizehelp='\(expected bytes, 1 or more, with an optional K, M or G suffix\)\.$'
for size in 3X 0 0K -1 1.5G 1MB 1T 0x10 '' 17179869184G 18446744073709551616; do
	run 1 '' "^Error: invalid size \"$size\" $sizehelp" -- netdimm add nd0 size "$size"
done
run 1 '' '^Error: a device name is required, try "edmctl netdimm help"\.$' -- netdimm add size 64M
run 1 '' '^Error: a device name is required' -- netdimm add
run 1 '' '^Error: "size" is required, try "edmctl netdimm help"\.$' -- netdimm add nd0
run 1 '' '^Error: "size" is required' -- netdimm add name nd0 peer nd1
run 1 '' '^Error: "size" needs an argument\.$' -- netdimm add nd0 size
run 1 '' '^Error: duplicate "size"\.$' -- netdimm add nd0 size 64M size 1G
run 1 '' '^Error: duplicate "name"\.$' -- netdimm add nd0 size 64M name nd1
run 1 '' '^Error: duplicate "rows"\.$' -- netdimm add nd0 size 64M rows 1 rows 2
run 1 '' '^Error: "peer" and "lower" are mutually exclusive: a NetDIMM has one wire\.$' \
	-- netdimm add nd0 size 64M peer nd1 lower lo
run 1 '' '^Error: "peer" and "lower" are mutually exclusive' \
	-- netdimm add nd0 lower edmctl-nosuch0 size 64M peer nd1
run 1 '' '^Error: the peer needs a name of its own, not "nd0"\.$' \
	-- netdimm add nd0 size 64M peer nd0
run 1 '' '^Error: peer name must not be empty\.$' -- netdimm add nd0 size 64M peer ''
run 1 '' '^Error: peer name "0123456789abcdef" is too long \(at most 15 characters\)\.$' \
	-- netdimm add nd0 size 64M peer 0123456789abcdef
run 1 '' '^Error: device name "0123456789abcdef" is too long \(at most 15 characters\)\.$' \
	-- netdimm add 0123456789abcdef size 64M
run 1 '' '^Error: device name must not be empty\.$' -- netdimm add '' size 64M
run 1 '' '^Error: cannot find network device "edmctl-nosuch0"\.$' \
	-- netdimm add nd0 size 64M lower edmctl-nosuch0
run 1 '' '^Error: unknown rx mode "foo", expected one of: zerocopy, clone\.$' \
	-- netdimm add nd0 size 64M rx-mode foo
run 1 '' '^Error: unknown rx mode "unspec"' -- netdimm add nd0 size 64M rx-mode unspec
run 1 '' '^Error: invalid poll-us "x" \(expected a number\)\.$' \
	-- netdimm add nd0 size 64M poll-us x
run 1 '' '^Error: invalid poll-us "-1"' -- netdimm add nd0 size 64M poll-us -1
run 1 '' '^Error: invalid wire-rate "fast" \(expected a number or unlimited\)\.$' \
	-- netdimm add nd0 size 64M wire-rate fast
run 1 '' '^Error: invalid wire-delay "1ms"' -- netdimm add nd0 size 64M wire-delay 1ms
run 1 '' '^Error: invalid node "4294967296"' -- netdimm add nd0 size 64M node 4294967296
for kw in row-bytes devices banks subarrays rows; do
	run 1 '' "^Error: invalid $kw \"x\" \\(expected a number\\)\\.\$" -- netdimm add nd0 size 64M $kw x
done
run 1 '' '^Error: "lower" needs an argument\.$' -- netdimm add nd0 size 64M lower
run 1 '' '^Error: a device name or "id ID" is required, try "edmctl netdimm help"\.$' -- netdimm del
run 1 '' '^Error: invalid device id "0"\.$' -- netdimm del id 0
run 1 '' '^Error: "id" and "name" are mutually exclusive\.$' -- netdimm show nd0 id 1
run 1 '' '^Error: duplicate "name"\.$' -- netdimm stats nd0 name nd1
run 1 '' '^Error: invalid device id "x"\.$' -- netdimm zone show id x
run 1 '' '^Error: device name "0123456789abcdef" is too long' -- netdimm del 0123456789abcdef

# --- fabric: bad arguments, all caught before talking to the kernel ---
run 1 '' '^Command "foo" not found, try "edmctl fabric help"\.$' -- fabric foo
run 1 '' '^Command "s" is ambiguous, try "edmctl fabric help"\.$' -- fabric s
run 1 '' '^Command "foo" not found, try "edmctl fabric help"\.$' -- fabric link foo
run 1 '' '^Command "s" is ambiguous, try "edmctl fabric help"\.$' -- fabric link s
run 1 '' '^Error: "add" needs "switch" or "host", try "edmctl fabric help"\.$' -- fabric add
run 1 '' '^Error: unknown node kind "sw0", expected one of: switch, host\.$' \
	-- fabric add sw0 ports 4
run 1 '' '^Error: "switch" needs a name\.$' -- fabric add switch
run 1 '' '^Error: node name "0123456789abcdef" is too long \(at most 15 characters\)\.$' \
	-- fabric add switch 0123456789abcdef
run 1 '' '^Error: node name must not be empty\.$' -- fabric add host '' addr 1
run 1 '' '^Error: a host needs "addr ADDR", the switch port it is on\.$' -- fabric add host h0
run 1 '' '^Error: a host needs "addr ADDR"' -- fabric add host h0 region 1m timeout 5
for kw in x chunk policy rate; do
	run 1 '' "^Error: \"$kw\" is a switch option, not for a host\\.\$" \
		-- fabric add host h0 addr 1 $kw 1
done
for kw in addr region timeout timeout-min; do
	run 1 '' "^Error: \"$kw\" is a host option, not for a switch\\.\$" \
		-- fabric add switch sw0 $kw 1
done
run 1 '' '^Error: "keyed" is a host option, not for a switch\.$' -- fabric add switch sw0 keyed
run 1 '' '^Error: "keyed" needs a region \("region SIZE"\)\.$' -- fabric add host h0 addr 1 keyed
run 1 '' '^Error: "keyed" needs a region' -- fabric add host h0 addr 1 region 0 keyed
run 1 '' '^Error: duplicate "keyed"\.$' -- fabric add host h0 addr 1 region 4k keyed keyed
for kw in ports x chunk rate; do
	run 1 '' "^Error: invalid $kw \"4x\" \\(expected a number\\)\\.\$" \
		-- fabric add switch sw0 $kw 4x
	run 1 '' "^Error: invalid $kw \"-1\"" -- fabric add switch sw0 $kw -1
	run 1 '' "^Error: \"$kw\" needs an argument\\.\$" -- fabric add switch sw0 $kw
done
run 1 '' '^Error: duplicate "ports"\.$' -- fabric add switch sw0 ports 4 ports 8
run 1 '' '^Error: unknown policy "lifo", expected one of: srpt, fcfs\.$' \
	-- fabric add switch sw0 policy lifo
run 1 '' '^Error: invalid addr "4294967296" \(expected a number\)\.$' \
	-- fabric add host h0 addr 4294967296
run 1 '' '^Error: invalid timeout "1s" \(expected a number\)\.$' \
	-- fabric add host h0 addr 1 timeout 1s
run 1 '' '^Error: invalid timeout-min "5ms" \(expected a number\)\.$' \
	-- fabric add host h0 addr 1 timeout-min 5ms
for region in 3X 0K -1 1.5G 1MB ''; do
	run 1 '' "^Error: invalid region \"$region\" \\(expected bytes with an optional K, M or G suffix\\)\\.\$" \
		-- fabric add host h0 addr 1 region "$region"
done
run 1 '' '^Error: duplicate "region"\.$' -- fabric add host h0 addr 1 region 4k region 8k
run 1 '' '^Error: unknown argument "foo", try "edmctl fabric help"\.$' \
	-- fabric add switch sw0 foo 1
run 1 '' '^Error: a node name is required, try "edmctl fabric help"\.$' -- fabric del
run 1 '' '^Error: unknown argument "sw1", try "edmctl fabric help"\.$' -- fabric del sw0 sw1
run 1 '' '^Error: unknown argument "sw1", try "edmctl fabric help"\.$' -- fabric show sw0 sw1
run 1 '' '^Error: a node name is required' -- fabric set
run 1 '' '^Error: nothing to set: give "policy" or "chunk"\.$' -- fabric set sw0
run 1 '' '^Error: "ports" is fixed when a switch is created\.$' -- fabric set sw0 ports 8
run 1 '' '^Error: unknown policy "x", expected one of: srpt, fcfs\.$' -- fabric set sw0 policy x
run 1 '' '^Error: duplicate "chunk"\.$' -- fabric set sw0 chunk 64 chunk 128
run 1 '' '^Error: a link end NODE\[:PORT\] is required, try "edmctl fabric help"\.$' \
	-- fabric link add
for end in sw0: :1 sw0:x sw0:-1 sw0:1:2 sw0:4294967296; do
	run 1 '' "^Error: invalid link end \"$end\" \\(expected NODE\\[:PORT\\]\\)\\.\$" \
		-- fabric link add "$end" peer h0
	run 1 '' "^Error: invalid link end \"$end\"" -- fabric link add sw0:1 peer "$end"
	run 1 '' "^Error: invalid link end \"$end\"" -- fabric link del "$end"
	run 1 '' "^Error: invalid link end \"$end\"" -- fabric link show "$end"
done
run 1 '' '^Error: node name in "0123456789abcdef:1" is too long \(at most 15 characters\)\.$' \
	-- fabric link set 0123456789abcdef:1 rate 10000
run 1 '' '^Error: a link needs "peer NODE\[:PORT\]" or "dev IFNAME"\.$' -- fabric link add sw0:1
run 1 '' '^Error: a link needs "peer' -- fabric link add sw0:1 rate 10000 mux fair
run 1 '' '^Error: "peer" and "dev" are mutually exclusive: a link has one other end\.$' \
	-- fabric link add sw0:1 peer h0 dev lo
run 1 '' '^Error: duplicate "peer"\.$' -- fabric link add sw0:1 peer h0 peer h1
run 1 '' '^Error: a node cannot be linked to itself\.$' -- fabric link add sw0:1 peer sw0:2
run 1 '' '^Error: cannot find network device "edmctl-nosuch0"\.$' \
	-- fabric link add h0 dev edmctl-nosuch0
run 1 '' '^Error: "dev" needs an argument\.$' -- fabric link add h0 dev
# a link on a netdev says whom it talks to, and only such a link does
run 1 '' '^Error: a link on a netdev needs "peer-mac LLADDR" \(the peer.s address\) or "broadcast" \(a point-to-point wire\)\.$' \
	-- fabric link add h0 dev lo
run 1 '' '^Error: "peer-mac" and "broadcast" are mutually exclusive\.$' \
	-- fabric link add h0 dev lo broadcast peer-mac 02:00:00:00:00:01
run 1 '' '^Error: "peer-mac" is for a link on a netdev\.$' \
	-- fabric link add sw0:1 peer h0 peer-mac 02:00:00:00:00:01
run 1 '' '^Error: "broadcast" is for a link on a netdev\.$' -- fabric link add sw0:1 broadcast peer h0
run 1 '' '^Error: duplicate "broadcast"\.$' -- fabric link add h0 dev lo broadcast broadcast
run 1 '' '^Error: "peer-mac" needs an argument\.$' -- fabric link add h0 dev lo peer-mac
for mac in 02:00:00:00:00 02:00:00:00:00:01:02 02-00-00-00-00-01 0x2:00:00:00:00:01 \
	   02:00:00:00:00:0g 2:0:0:0:0:1; do
	run 1 '' "^Error: \"$mac\" is not a MAC address \\(xx:xx:xx:xx:xx:xx\\)\\.\$" \
		-- fabric link add h0 dev lo peer-mac "$mac"
done
run 1 '' '^Error: a link.s ends are fixed: delete it and add it again\.$' \
	-- fabric link set h0 peer-mac 02:00:00:00:00:01
run 1 '' '^Error: unknown mux "fifo", expected one of: fair, strict, none\.$' \
	-- fabric link add sw0:1 peer h0 mux fifo
for kw in rate delay sherr; do
	run 1 '' "^Error: invalid $kw \"1k\" \\(expected a number\\)\\.\$" \
		-- fabric link add sw0:1 peer h0 $kw 1k
	run 1 '' "^Error: invalid $kw \"x\"" -- fabric link set sw0:1 $kw x
done
run 1 '' '^Error: unknown argument "corrupt", try "edmctl fabric help"\.$' \
	-- fabric link add sw0:1 peer h0 corrupt 1
run 1 '' '^Error: invalid corrupt "x" \(expected a number\)\.$' -- fabric link set sw0:1 corrupt x
run 1 '' "^Error: a link's ends are fixed: delete it and add it again\\.\$" \
	-- fabric link set h0 peer sw0
run 1 '' "^Error: a link's ends are fixed" -- fabric link set h0 dev lo
run 1 '' '^Error: unknown argument "h1", try "edmctl fabric help"\.$' -- fabric link del h0 h1
run 1 '' '^Error: unknown argument "h1", try "edmctl fabric help"\.$' -- fabric link show h0 h1

# --- region and cowbird: bad arguments, all caught before talking to the kernel ---
run 1 '' '^Command "foo" not found, try "edmctl region help"\.$' -- region foo
run 1 '' '^Command "foo" not found, try "edmctl cowbird help"\.$' -- cowbird foo
run 1 '' '^Error: a region id or "owner NAME" is required, try "edmctl region help"\.$' \
	-- region key
run 1 '' '^Error: a region id or "owner NAME" is required' -- region rekey
for id in -1 x; do
	run 1 '' "^Error: unknown argument \"$id\", try \"edmctl region help\"\.\$" \
		-- region show "$id"
done
run 1 '' '^Error: invalid region id "1x"\.$' -- region key 1x
run 1 '' '^Error: invalid region id "4294967296"\.$' -- region show 4294967296
run 1 '' '^Error: invalid region id "99999999999"\.$' -- region rekey 99999999999
run 1 '' '^Error: unknown argument "3", try "edmctl region help"\.$' -- region show 2 3
run 1 '' '^Error: "owner" needs an argument\.$' -- region key 2 owner
run 1 '' '^Error: duplicate "owner"\.$' -- region key owner a owner b
run 1 '' '^Error: owner name must not be empty\.$' -- region show owner ''
run 1 '' '^Error: owner name "0123456789abcdef" is too long \(at most 15 characters\)\.$' \
	-- region rekey owner 0123456789abcdef
run 1 '' '^Error: "create" needs a name, try "edmctl region help"\.$' -- region create
run 1 '' '^Error: "size" is required: the region.s bytes\.$' -- region create mem0
run 1 '' '^Error: "size" is required' -- region create mem0 addr 2
run 1 '' '^Error: "size" needs an argument\.$' -- region create mem0 size
run 1 '' '^Error: duplicate "size"\.$' -- region create mem0 size 4k size 8k
run 1 '' '^Error: duplicate "addr"\.$' -- region create mem0 size 4k addr 1 addr 2
for size in 0 3X 1.5G -1 ''; do
	run 1 '' "^Error: invalid size \"$size\" \\(expected bytes with an optional K, M or G" \
		-- region create mem0 size "$size"
done
run 1 '' '^Error: invalid addr "x" \(expected a number\)\.$' -- region create mem0 size 4k addr x
# "create pool POOL": a pool region, "id" instead of "addr"
run 1 '' '^Error: "size" is required: the region.s bytes\.$' -- region create pool p0
run 1 '' '^Error: invalid id "x" \(expected a number\)\.$' -- region create pool p0 size 1 id x
run 1 '' '^Error: duplicate "id"\.$' -- region create pool p0 size 1 id 512 id 513
run 1 '' '^Error: unknown argument "addr", try "edmctl region help"\.$' \
	-- region create pool p0 size 1 addr 2
run 1 '' '^Error: a region id or "owner NAME" is required' -- region del
run 1 '' '^Error: unknown argument "region", try "edmctl region help"\.$' \
	-- region create mem0 region 4k
run 1 '' '^Error: owner name "0123456789abcdef" is too long' \
	-- region create 0123456789abcdef size 4k
run 1 '' '^Error: unknown argument "x", try "edmctl cowbird help"\.$' -- cowbird show x
run 1 '' '^Error: nothing to set: give "probe-max-us", "idle-spins" or "batch"\.$' -- cowbird set
for kw in probe-max-us idle-spins batch; do
	run 1 '' "^Error: invalid $kw \"1k\" \\(expected a number\\)\\.\$" -- cowbird set $kw 1k
	run 1 '' "^Error: invalid $kw \"-1\"" -- cowbird set $kw -1
	run 1 '' "^Error: \"$kw\" needs an argument\\.\$" -- cowbird set $kw
done
run 1 '' '^Error: duplicate "batch"\.$' -- cowbird set batch 1 batch 2
run 1 '' '^Error: unknown argument "threads", try "edmctl cowbird help"\.$' -- cowbird set threads 2

# --- without the module: one clear error, nothing on stdout ---
if ! have_family; then
	notloaded='^Error: edm module not loaded \(generic netlink family "edm" not found\)\.$'
	for args in "version" "-j version" "dev" "dev show" "d s" "-j -p dev show" \
		    "dev show id 1" "dev show name dev0" "dev list" \
		    "dev add name a type null" \
		    "dev del id 1" "dev delete name a" "monitor" "monitor count 1" \
		    "netdimm" "netdimm show" "-j netdimm show" "-s netdimm show nd0" \
		    "netdimm list id 1" "netdimm show name nd0" "ne sh" \
		    "netdimm zone" "netdimm zone show" "netdimm zone s nd0" \
		    "-j netdimm zone list" "netdimm stats" "netdimm st nd0" \
		    "-j -p netdimm stats id 2" "netdimm add nd0 size 64M" \
		    "netdimm add name nd0 size 4g peer nd1" \
		    "netdimm add nd0 size 64M lower lo poll-us 50 rx-mode clone" \
		    "netdimm add nd0 size 1G wire-rate unlimited wire-delay 1000 node 0" \
		    "netdimm add nd0 size 64M row-bytes 1024 devices 8 banks 16 subarrays 512 rows 128" \
		    "netdimm add nd0 size 18446744073709551615" \
		    "netdimm del nd0" "netdimm delete id 1" "netdimm del name nd0" \
		    "fabric" "fabric show" "-j fabric show sw0" "-s fabric list" "f sh" \
		    "fabric stats" "-j fabric st h0" "fabric add switch sw0" \
		    "fabric add switch sw0 ports 8 x 3 chunk 256 policy fcfs rate 100000" \
		    "fabric add host h0 addr 1" \
		    "fabric add host h0 addr 511 region 1G timeout 60000" \
		    "fabric add host h0 addr 0 region 0" "fabric add host h0 addr 2 region 4k" \
		    "fabric del sw0" "fabric delete h0" "fabric set sw0 policy srpt" \
		    "fabric set sw0 chunk 64 policy fcfs" \
		    "fabric link" "fabric link show" "-j -s fabric link show sw0" \
		    "fabric link show sw0:3" "fabric link list h0:0" \
		    "fabric link add sw0:1 peer h0" "fabric link add sw0 peer h0:0" \
		    "fabric link add h0 dev lo peer-mac 02:00:5e:00:53:01 rate 10000 delay 100 mux strict sherr 0" \
		    "fabric link add h0 broadcast dev lo" "fabric link add sw0:2 peer-mac 02:AB:cd:00:00:ff dev lo" \
		    "fabric link add sw0:2 peer h1 mux none rate 400000" \
		    "fabric link del sw0:1" "fabric link delete h0" \
		    "fabric link set h0" "fabric link set sw0:1 corrupt 64" \
		    "fabric link set sw0:1 rate 10000 delay 5 mux fair sherr 16" \
		    "region" "region show" "-j -s region show 2" "region list owner mem0" \
		    "region key 2" "-j region key 2 owner mem0" "region rekey owner mem0" \
		    "region create mem0 size 1M" "region create mem0 size 4k addr 511" \
		    "cowbird" "cowbird show" "-j -s cowbird show" "cowbird set batch 4" \
		    "cowbird set probe-max-us 100 idle-spins 0 batch 1024" \
		    "shpool" "shpool show" "-j -s shpool show sp0" "shpool hosts" \
		    "-j shpool hosts sp0" "shpool stats" "sh st sp0" \
		    "shpool join sp0 dev 0000:00:10.0" \
		    "shpool join sp0 dev 0000:00:10.0 ifname shp0 hostname g0 hosts 16 buf-shift 11 ring 4096 lease-ms 100" \
		    "shpool leave sp0"; do
		# shellcheck disable=SC2086
		run 1 '' "$notloaded" -- $args
	done
else
	echo "note: the edm family exists here; module-not-loaded tests skipped"
fi

# --- JSON documents parse (escaping, pretty, monitor lines) ---
if command -v python3 >/dev/null 2>&1 && [ -x "$UNIT" ]; then
	n=$((n + 1))
	"$UNIT" json >"$tmp/json" || { fail=$((fail + 1)); echo "FAIL: unit json"; }
	# show arrays (compact, then pretty) and monitor lines: decode them all.
	if ! python3 - "$tmp/json" <<'EOF'
import json, sys
text = open(sys.argv[1], encoding="utf-8").read()
dec = json.JSONDecoder()
i, docs = 0, []
while True:
    while i < len(text) and text[i].isspace():
        i += 1
    if i >= len(text):
        break
    obj, i = dec.raw_decode(text, i)
    docs.append(obj)
assert len(docs) == 4, docs
assert docs[0] == docs[2] == [{"id": 7, "name": "q\"uo\\te\n\x01\ufffd",
                               "type": "unknown(99)"}], docs[0]
assert docs[1] == docs[3] == {"object": "dev", "event": "new", "id": 7,
                              "name": "q\"uo\\te\n\x01\ufffd",
                              "type": "unknown(99)"}, docs[1]
# compact monitor output is exactly one line per event
lines = [l for l in text.splitlines() if l.startswith('{"object"')]
assert len(lines) == 1, lines
EOF
	then
		fail=$((fail + 1))
		echo "FAIL: JSON documents do not parse"
	fi

	# "netdimm show -s": the documented shape, a counter per EDM_A_NDSTAT_*.
	n=$((n + 1))
	"$UNIT" netdimm-json >"$tmp/nd.json" || { fail=$((fail + 1)); echo "FAIL: unit netdimm-json"; }
	if ! python3 - "$tmp/nd.json" "$(dirname "$0")/../../../include/uapi/linux/edm.h" <<'EOF'
import json, re, sys
doc = json.load(open(sys.argv[1], encoding="utf-8"))
hdr = open(sys.argv[2]).read()
assert isinstance(doc, list) and len(doc) == 1, doc
nd = doc[0]
assert list(nd) == ["id", "name", "ifindex", "peer", "size", "poll_us", "rx_mode",
                    "wire_mbps", "wire_delay_ns", "numa_node", "zone", "stats"], list(nd)
assert list(nd["zone"]) == ["index", "name", "size", "free", "lent", "cached",
                            "subarrays", "numa_node", "geometry"], list(nd["zone"])
assert list(nd["zone"]["geometry"]) == ["row_bytes", "devices", "banks", "subarrays",
                                        "rows"], nd["zone"]["geometry"]
want = [n.lower() for n in re.findall(r"\bEDM_A_NDSTAT_(\w+)", hdr)
        if n not in ("UNSPEC", "PAD", "MAX")]
assert want and sorted(nd["stats"]) == sorted(want), (sorted(nd["stats"]), sorted(want))
assert all(isinstance(v, int) for v in nd["stats"].values())
EOF
	then
		fail=$((fail + 1))
		echo "FAIL: netdimm JSON keys do not match the documented shape and the header"
	fi

	# "fabric show -s" of a switch and a host, "fabric link show -s": the
	# documented keys, a counter per EDM_A_FSTAT_* of the node's kind and
	# per EDM_A_LSTAT_*, named after the attribute.
	n=$((n + 1))
	"$UNIT" fabric-json >"$tmp/fab.json" || { fail=$((fail + 1)); echo "FAIL: unit fabric-json"; }
	if ! python3 - "$tmp/fab.json" "$(dirname "$0")/../../../include/uapi/linux/edm.h" <<'EOF'
import json, re, sys
text = open(sys.argv[1], encoding="utf-8").read()
hdr = open(sys.argv[2]).read()
dec, i, docs = json.JSONDecoder(), 0, []
while i < len(text):
    if text[i].isspace():
        i += 1
        continue
    doc, i = dec.raw_decode(text, i)
    docs.append(doc)
assert len(docs) == 3 and all(len(d) == 1 for d in docs), docs
sw, host, link = (d[0] for d in docs)
def attrs(space):
    names = re.findall(rf"\bEDM_A_{space}_(\w+)", hdr)
    return [n.lower() for n in names if n not in ("UNSPEC", "PAD", "MAX", "CNT")]
fstat = attrs("FSTAT")
host_keys = fstat[:fstat.index("served_errors") + 1] + \
    fstat[fstat.index("served_write_chunks"):fstat.index("failovers") + 1]
sw_keys = fstat[fstat.index("sched_notifs"):fstat.index("drops") + 1] + \
    fstat[fstat.index("holds"):]
assert sorted(host_keys + sw_keys) == sorted(fstat), fstat
assert list(sw) == ["id", "name", "type", "ports", "sched_x", "chunk", "policy",
                    "rate_mbps", "stats"], list(sw)
assert sw["type"] == "switch" and sorted(sw["stats"]) == sorted(sw_keys), sw
assert list(host) == ["id", "name", "type", "addr", "region_size", "keyed", "timeout_ms",
                      "timeout_min_us", "minor", "stats"], list(host)
assert host["type"] == "host" and sorted(host["stats"]) == sorted(host_keys), host
assert list(link) == ["node", "port", "peer", "peer_port", "rate_mbps", "delay_ns", "mux",
                      "sherr_threshold", "state", "stats"], list(link)
want = attrs("LSTAT")
assert want and sorted(link["stats"]) == sorted(want), (sorted(link["stats"]), want)
assert all(isinstance(v, int) for d in (sw, host, link) for v in d["stats"].values())
EOF
	then
		fail=$((fail + 1))
		echo "FAIL: fabric JSON keys do not match the documented shape and the header"
	fi

	# "region show -s" with a key, "cowbird show -s"'s engine and an instance:
	# the documented keys, a counter per EDM_A_RSTAT_*, EDM_A_CBSTAT_* and
	# EDM_A_CBISTAT_*, and the key a string that keeps all 64 bits.
	n=$((n + 1))
	"$UNIT" cowbird-json >"$tmp/cb.json" ||
		{ fail=$((fail + 1)); echo "FAIL: unit cowbird-json"; }
	if ! python3 - "$tmp/cb.json" "$(dirname "$0")/../../../include/uapi/linux/edm.h" <<'EOF'
import json, re, sys
text = open(sys.argv[1], encoding="utf-8").read()
hdr = open(sys.argv[2]).read()
dec, i, docs = json.JSONDecoder(), 0, []
while i < len(text):
    if text[i].isspace():
        i += 1
        continue
    doc, i = dec.raw_decode(text, i)
    docs.append(doc)
assert len(docs) == 3 and all(len(d) == 1 for d in docs), docs
region, engine, inst = (d[0] for d in docs)
def attrs(space):
    names = re.findall(rf"\bEDM_A_{space}_(\w+)", hdr)
    return [n.lower() for n in names if n not in ("UNSPEC", "PAD", "MAX", "CNT")]
assert list(region) == ["id", "kind", "owner", "size", "key_gen", "key", "stats"], list(region)
assert region["key"] == "0xfedcba9876543210" and int(region["key"], 16) == 0xfedcba9876543210
assert sorted(region["stats"]) == sorted(attrs("RSTAT")), region["stats"]
assert list(engine) == ["threads", "cpu", "instances", "probe_max_us", "idle_spins", "batch",
                        "stats"], list(engine)
assert sorted(engine["stats"]) == sorted(attrs("CBSTAT")), engine["stats"]
assert list(inst) == ["id", "region_id", "region_size", "rings", "entries", "data_size",
                      "batch", "stats"], list(inst)
assert sorted(inst["stats"]) == sorted(attrs("CBISTAT")), (sorted(inst["stats"]), attrs("CBISTAT"))
assert all(isinstance(v, int) for d in (region, engine, inst) for v in d["stats"].values())
EOF
	then
		fail=$((fail + 1))
		echo "FAIL: region and cowbird JSON keys do not match the documented shape" \
			"and the header"
	fi
fi

# --- monitor loop: SIGTERM and SIGINT end it with success ---
# (on nlctrl's "notify" group through the same edm_nl_monitor() code)
if [ -x "$UNIT" ]; then
	for sig in TERM INT; do
		n=$((n + 1))
		"$UNIT" monitor >"$tmp/mon" 2>&1 &
		pid=$!
		i=0
		while ! grep -q ready "$tmp/mon" 2>/dev/null && [ $i -lt 50 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		sleep 0.2
		kill -s $sig $pid
		# never hang the test run if the signal is not handled
		( sleep 5; kill -s KILL $pid 2>/dev/null ) &
		dog=$!
		wait $pid
		rc=$?
		kill $dog 2>/dev/null
		wait $dog 2>/dev/null
		if [ $rc != 0 ] || ! grep -q '^stopped 0$' "$tmp/mon"; then
			fail=$((fail + 1))
			echo "FAIL: monitor on SIG$sig: rc $rc"
			sed 's/^/  out: /' "$tmp/mon"
		fi
	done
fi

echo "cli: $n tests, $fail failures"
[ $fail = 0 ]
