#!/bin/bash
# make check: the whole suite, in order. Each gate and test prints TAP; the
# last line counts them all: "N passed, N failed[, N skipped]". Exits non-zero
# on any failure. Installs what it needs (scripts/deps.sh).
#
# It runs in every installed supported kernel (scripts/krel.sh --all-vm: the
# newest Debian 6.1 and 6.12), or in $KREL alone when that is set:
#   deps -> per kernel: edm.ko with W=1 + sparse, and with no subsystem
#   (EDM_*=n), a dkms build -> checkpatch -> edmctl (with edmop and ip's
#   plug-ins) and its host tests
#   -> make unit -> make fuzz (5 s each) -> spec vs uapi header
#   -> per kernel: the VM suite in Debian's kernel, the minimal module
#   -> the multi-guest runs, guests alternating between the kernels
#   -> debug kernel (6.12, built once, cached), edm.ko against it, VM suite
#   in it with EDM_TEST_SCALE=5: selftests/edm/Makefile's TEST_DEBUG.
# Each lane's time is printed at the end. Gate and VM TAP lines name their
# kernel.
# check.sh --debug-full (make check-debug-full): the build gates, then every
# VM test but the CLI scripts on the debug kernel only (about an hour).
set -uo pipefail

full=0
case ${1:-} in
--debug-full) full=1 ;;
"") ;;
*) echo "usage: $0 [--debug-full]" >&2; exit 2 ;;
esac

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
out=$top/build/check
tap=$out/tap.txt
py=/usr/bin/python3

mkdir -p "$out"
rm -rf "$out"/vm-*	# no guest console of an earlier run in this one's oopses
: >"$tap"

# timed CMD...: run CMD, then say on stderr how long it took.
timed() {
	local t0=$SECONDS rc

	"$@"
	rc=$?
	echo "# took $((SECONDS - t0)) s" >&2
	return $rc
}

# gate NAME CMD...: run CMD with its output in $out/NAME.log; one TAP line.
gate() {
	local name=$1 log=$out/$1.log t0=$SECONDS

	shift
	echo "== $name"
	if "$@" >"$log" 2>&1; then
		echo "ok - gate: $name ($((SECONDS - t0)) s)" | tee -a "$tap"
	else
		echo "not ok - gate: $name" | tee -a "$tap"
		tail -n 40 "$log" | sed 's/^/# /' | tee -a "$tap"
		return 1
	fi
}

# Compiler and sparse diagnostics are errors here. build_module_clean R LOG.
build_module_clean() {
	rm -rf "$top/build/$1"
	make -C "$top" module KREL="$1" W=1 C=1 || return 1
	! grep -E '(warning|error):' "$2"
}

# The module with every subsystem left out (Kbuild's EDM_* knobs): it must
# build as cleanly as the whole one; vm-minimal loads it. R LOG.
minimal_knobs=(EDM_FABRIC=n EDM_NETDIMM=n EDM_DFABRIC=n EDM_COWBIRD=n)
build_module_minimal() {
	rm -rf "$top/build/$1"-no-*
	make -C "$top" module KREL="$1" W=1 C=1 "${minimal_knobs[@]}" || return 1
	! grep -E '(warning|error):' "$2"
}

build_edmctl() {
	make -C tools/edmctl clean && make -C tools/edmctl &&
		make -C tools/edmop clean && make -C tools/edmop &&
		make -C tools/iplink clean && make -C tools/iplink
}

# suite NAME CMD...: run a TAP-printing suite, show and keep its TAP. A
# suite that fails without a "not ok" of its own (it did not build, its VM
# crashed, ...) gets one, so no failure goes uncounted.
suite() {
	local name=$1 rc

	shift
	echo "== $name"
	timed "$@" 2>&1 | tee "$out/$name.log" | tee -a "$tap"
	rc=${PIPESTATUS[0]}
	if [ "$rc" -ne 0 ] && ! grep -q '^not ok' "$out/$name.log"; then
		echo "not ok - $name: exited $rc (see $out/$name.log)" | tee -a "$tap"
	fi
	return "$rc"
}

# lane NAME CMD...: run CMD (gates and suites), and keep how long it took
# for the table at the end.
lane_times=()
lane() {
	local name=$1 t0=$SECONDS rc

	shift
	"$@"
	rc=$?
	lane_times+=("$(printf '%-34s %5d s' "$name" $((SECONDS - t0)))")
	return $rc
}

# The first oops of each guest's console that had one, its registers and
# code left out: printed last, so that a log cut in the middle (as CI's is)
# still says what crashed where.
oopses() {
	local f n oops='BUG: (unable|kernel NULL)|Oops:|general protection|KASAN:|kernel BUG at'
	local regs='(RAX|RBX|RCX|RDX|RSI|RDI|RBP|RSP|R[0-9]+|FS|CS|CR2|DR[0-9]|PKRU|Code)'

	find "$out" -name console.log 2>/dev/null | sort | while read -r f; do
		n=$(grep -m1 -nE "$oops|WARNING: CPU|Kernel panic" "$f" | cut -d: -f1)
		[ -n "$n" ] || continue
		echo "# oops in ${f#"$out"/}:"
		sed -n "$n,$((n + 80))p" "$f" | grep -vE "\] *($regs|Hardware name):" |
			head -32 | sed 's/^/#   /'
	done
}

summary() {
	local pass fail skip line

	skip=$(grep -cE '^ok .*# SKIP' "$tap")
	pass=$(grep -E '^ok ' "$tap" | grep -cv '# SKIP')
	fail=$(grep -cE '^not ok ' "$tap")
	line="$pass passed, $fail failed"
	[ "$skip" -gt 0 ] && line="$line, $skip skipped"
	echo
	echo "# lane times:"
	printf '#   %s\n' "${lane_times[@]}"
	oopses
	grep -E '^not ok ' "$tap" | sed 's/^/FAILED: /'
	echo "$line"
	[ "$fail" -eq 0 ]
}

start=$SECONDS
if ! gate deps scripts/deps.sh; then
	summary
	exit 1
fi
# The kernels: every installed supported one (the newest of each series),
# or $KREL alone.
if [ -n "${KREL:-}" ]; then
	krels=("$(scripts/krel.sh --vm)") || krels=()
	[ -n "${krels[0]:-}" ] || krels=()
else
	mapfile -t krels < <(scripts/krel.sh --all-vm)
fi
if [ ${#krels[@]} -eq 0 ]; then
	echo "not ok - kernels: no supported kernel is installed ($(scripts/krel.sh --series | tr '\n' ' '))" |
		tee -a "$tap"
	summary
	exit 1
fi
echo "== kernels: ${krels[*]}"
# series R: "6.12" of "6.12.117+deb12-amd64", for lane and gate names.
series() { [[ $1 =~ ^([0-9]+\.[0-9]+) ]] && echo "${BASH_REMATCH[1]}"; }

# The module's gates for kernel $1.
module_gates() {
	local k=$1 s

	s=$(series "$k")
	gate "module-W1-sparse-$s" build_module_clean "$k" "$out/module-W1-sparse-$s.log"
	gate "module-minimal-$s" build_module_minimal "$k" "$out/module-minimal-$s.log"
	[ $full = 1 ] || gate "dkms-build-$s" scripts/dkms-check.sh "$k"
}
for k in "${krels[@]}"; do
	lane "build $k" module_gates "$k"
done
[ $full = 1 ] || lane checkpatch gate checkpatch scripts/checkpatch.sh
user_gates() {
	gate edmctl build_edmctl
	[ $full = 1 ] || gate edmctl-host-tests make -C tools/edmctl check
	gate selftests-build make -j"$(nproc)" -C selftests/edm
}
lane "edmctl, selftests build" user_gates
if [ $full = 0 ]; then
	lane unit suite unit make -s -j"$(nproc)" unit
	lane fuzz suite fuzz make -s -j"$(nproc)" fuzz FUZZ_SECONDS=5
	# The VM runner's boot-failure and lost-guest logic, with a fake QEMU.
	lane "vm runner" suite vm-runner selftests/vm/runner_test.sh
	suite spec-header "$py" selftests/edm/spec_check.py header
fi
# vm_suite LANE RELEASE RUNNER-ARGS... [-- TEST...]: the kselftest suite
# (or the TESTs of it) in one kernel.
vm_suite() {
	local lane=$1 rel=$2 args=() tests=()

	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do args+=("$1"); shift; done
	[ $# -eq 0 ] || { shift; tests=("$@"); }
	if ! [ -e "build/$rel/edm.ko" ] || ! [ -x tools/edmctl/edmctl ] ||
	   ! [ -x selftests/edm/genl_test ]; then
		echo "not ok - vm-$lane: not run, a build gate failed" | tee -a "$tap"
		return 1
	fi
	lane "vm-$lane" suite "vm-$lane" selftests/vm/run "${args[@]}" --out "$out/vm-$lane" -- \
		selftests/edm/run.sh "${tests[@]}"
}

# The VM suite in Debian's kernel $1, then the module with no subsystem.
debian_lane() {
	local k=$1 s minimal_ko

	s=$(series "$k")
	# --shmem: an ivshmem device for netdev_kinds.sh's shared pool member;
	# --nvdimm: a pmem device for shpool_pmem.sh's
	vm_suite "debian-$s" "$k" --kernel-release "$k" --cpuless-node 256M --shmem 16M \
		--nvdimm 128M --timeout 1200
	minimal_ko=$(echo "$top/build/$k"-no-*/edm.ko)
	if [ -e "$minimal_ko" ]; then
		lane "vm-minimal-$s" suite "vm-minimal-$s" selftests/vm/run --kernel-release "$k" \
			--timeout 300 --env EDM_KO="$minimal_ko" --out "$out/vm-minimal-$s" -- \
			selftests/edm/run.sh minimal.sh
	else
		echo "not ok - vm-minimal-$s: not run, the minimal module did not build" | tee -a "$tap"
	fi
}
if [ $full = 0 ]; then
	for k in "${krels[@]}"; do
		debian_lane "$k"
	done
fi

# The multi-guest runs boot their guests in different kernels
# (selftests/vm/run --guest-kernels), so the two kernels' builds of edm.ko
# meet on one link and one shared pool. A run whose guests play different
# parts runs twice when there are two kernels, the kernels swapped, so
# each part runs in each kernel; but fabric_two_guests.sh, whose parts
# (compute host; switch and memory host) the single-guest lanes run over
# veth in each kernel, runs once. A run's TAP lines name each guest's
# kernel.
# pair A B: the kernel list "A,B" (just "A" when they are the same).
pair() { if [ "$1" = "$2" ]; then echo "$1"; else echo "$1,$2"; fi; }
k_old=${krels[0]}
k_new=${krels[${#krels[@]} - 1]}

# multi_guest NAME KERNELS RUNNER-ARGS... -- SCRIPT: one run, its output's
# "[gN] " prefixes turned into kernel tags on TAP lines, dropped elsewhere.
multi_guest() {
	local name=$1 list=$2 i tag=() k

	shift 2
	IFS=, read -ra k <<<"$list"
	for ((i = 0; i < 8; i++)); do
		tag+=(-e "s/^\[g$i\] (not ok|ok)( [0-9]+)? /\1\2 [${k[i % ${#k[@]}]}] /")
	done
	selftests/vm/run --guest-kernels "$list" --out "$out/vm-$name" "$@" |
		sed -u -E "${tag[@]}" -e 's/^\[g[0-9]+\] //'
	return "${PIPESTATUS[0]}"
}

# Two guests joined by a QEMU socket link: two_guests NAME KERNELS SCRIPT.
two_guests() {
	multi_guest "$1" "$2" --guests 2 -- "selftests/edm/$3"
}

# A DFabric pool shared by the guests' kernels (one ivshmem file); the last
# guest kills its kernel mid-traffic. shpool_guests NAME KERNELS N.
shpool_guests() {
	multi_guest "$1" "$2" --guests "$3" --shmem 64M --may-die $(($3 - 1)) -- \
		selftests/edm/shpool_guests.sh
}

# The same on a pmem device: one NVDIMM backing file, its fsdax namespace
# in every guest (Documentation/pool.md, "Persistent memory underneath").
shpool_guests_pmem() {
	multi_guest "$1" "$2" --guests "$3" --nvdimm 128M --may-die $(($3 - 1)) -- \
		selftests/edm/shpool_guests.sh
}

# The same on a device-DAX device: the NVDIMM's namespace in devdax mode.
shpool_guests_devdax() {
	multi_guest "$1" "$2" --guests "$3" --nvdimm 128M --env EDM_SHP_DEVDAX=1 \
		--may-die $(($3 - 1)) -- selftests/edm/shpool_guests.sh
}

# Cowbird across kernels: guest 1's engine serves guest 0's rings through
# the shared pool, then guest 1 dies with reads in flight.
cowbird_guests() {
	multi_guest "$1" "$2" --guests 2 --shmem 64M --may-die 1 -- selftests/edm/cowbird_guests.sh
}

# A run in each order of the two kernels: both_ways FUNC NAME ARGS...
both_ways() {
	local f=$1 name=$2

	shift 2
	suite "vm-$name" "$f" "$name" "$(pair "$k_old" "$k_new")" "$@"
	[ "$k_old" = "$k_new" ] ||
		suite "vm-$name-swapped" "$f" "$name-swapped" "$(pair "$k_new" "$k_old")" "$@"
}

multi_guest_runs() {
	both_ways two_guests two-guests two_guests.sh
	# NetDIMMs in lower mode, one per machine, riding on the link.
	both_ways two_guests two-guests-ndimm ndimm_two_guests.sh
	# EDM over Ethernet: a compute host in one guest, switch and memory host in the other.
	suite vm-two-guests-fabric two_guests two-guests-fabric "$(pair "$k_old" "$k_new")" \
		fabric_two_guests.sh
	# The same script twice: guest 0 and the guest that dies each in both kernels.
	suite vm-shpool-two-guests shpool_guests shpool-two-guests "$(pair "$k_new" "$k_old")" 2
	suite vm-shpool-two-guests-pmem shpool_guests_pmem shpool-two-guests-pmem \
		"$(pair "$k_old" "$k_new")" 2
	# three members on device-DAX (ivshmem: the two-guest and Cowbird runs)
	suite vm-shpool-three-guests-devdax shpool_guests_devdax shpool-three-guests-devdax \
		"$(pair "$k_old" "$k_new"),$k_new" 3
	both_ways cowbird_guests cowbird-two-guests
}
[ $full = 1 ] || lane "multi-guest runs ($(pair "${k_old%%-*}" "${k_new%%-*}"))" multi_guest_runs

# The debug kernel (KASAN, lockdep, UBSAN, kmemleak): built once, cached
# outside the clone; edm.ko built against it with W=1 and no warning.
build_module_debug() {
	make -C "$top" module KREL="$dkrel" KDIR="$(scripts/debug-kernel.sh kdir)" W=1 || return 1
	! grep -E '(warning|error):' "$out/module-debug-W1.log"
}

if lane "debug kernel (built once, cached)" gate debug-kernel scripts/debug-kernel.sh build; then
	dkrel=$(scripts/debug-kernel.sh release)
	echo "== debug kernel: $dkrel"
	lane "build $dkrel" gate module-debug-W1 build_module_debug
	list=print-debug-tests
	[ $full = 0 ] || list=print-debug-tests-full
	vm_suite debug "$dkrel" --kernel "$(scripts/debug-kernel.sh image)" \
		--modules-dir "$(scripts/debug-kernel.sh moddir)" \
		--append "$(scripts/debug-kernel.sh cmdline)" --env EDM_TEST_SCALE=5 \
		--timeout $((full ? 4800 : 2400)) --cpuless-node 256M --shmem 16M -- \
		$(make -s -C selftests/edm $list)
fi
echo "# make check took $((SECONDS - start)) s"
summary
