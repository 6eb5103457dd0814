#!/bin/bash
# make check: the whole suite, in order. Each gate and test prints TAP; the
# last line counts them all: "N passed, N failed[, N skipped]". Exits non-zero
# on any failure. Installs what it needs (scripts/deps.sh).
#   deps -> edm.ko with W=1 + sparse, and with no subsystem (EDM_*=n) -> edmctl
#   and its host tests -> dkms build
#   -> make unit -> make fuzz (5 s each) -> spec vs uapi header
#   -> VM suite in the Debian kernel -> debug kernel (built once, cached),
#   edm.ko against it, VM suite in it with EDM_TEST_SCALE=5: the programs and
#   cases of selftests/edm/Makefile's TEST_DEBUG.
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

# Compiler and sparse diagnostics are errors here.
build_module_clean() {
	rm -rf "$top/build/$krel"
	make -C "$top" module KREL="$krel" W=1 C=1 || return 1
	! grep -E '(warning|error):' "$out/module-W1-sparse.log"
}

# The module with every subsystem left out (Kbuild's EDM_* knobs): it must
# build as cleanly as the whole one; vm-minimal loads it.
minimal_knobs=(EDM_FABRIC=n EDM_NETDIMM=n EDM_DFABRIC=n EDM_COWBIRD=n)
build_module_minimal() {
	rm -rf "$top/build/$krel"-no-*
	make -C "$top" module KREL="$krel" W=1 C=1 "${minimal_knobs[@]}" || return 1
	! grep -E '(warning|error):' "$out/module-minimal.log"
}

build_edmctl() {
	make -C tools/edmctl clean && make -C tools/edmctl &&
		make -C tools/edmop clean && make -C tools/edmop
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

summary() {
	local pass fail skip line

	skip=$(grep -cE '^ok .*# SKIP' "$tap")
	pass=$(grep -E '^ok ' "$tap" | grep -cv '# SKIP')
	fail=$(grep -cE '^not ok ' "$tap")
	line="$pass passed, $fail failed"
	[ "$skip" -gt 0 ] && line="$line, $skip skipped"
	echo
	grep -E '^not ok ' "$tap" | sed 's/^/FAILED: /'
	echo "$line"
	[ "$fail" -eq 0 ]
}

start=$SECONDS
if ! gate deps scripts/deps.sh; then
	summary
	exit 1
fi
krel=$(scripts/krel.sh --vm)
echo "== kernel: $krel"

gate module-W1-sparse build_module_clean
gate module-minimal build_module_minimal
[ $full = 1 ] || gate checkpatch scripts/checkpatch.sh
gate edmctl build_edmctl
[ $full = 1 ] || gate edmctl-host-tests make -C tools/edmctl check
[ $full = 1 ] || gate dkms-build scripts/dkms-check.sh "$krel"
gate selftests-build make -j"$(nproc)" -C selftests/edm
if [ $full = 0 ]; then
	suite unit make -s -j"$(nproc)" unit
	suite fuzz make -s -j"$(nproc)" fuzz FUZZ_SECONDS=5
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
	suite "vm-$lane" selftests/vm/run "${args[@]}" --out "$out/vm-$lane" -- \
		selftests/edm/run.sh "${tests[@]}"
}

[ $full = 1 ] || vm_suite debian "$krel" --kernel-release "$krel" --cpuless-node 256M --timeout 1200
if [ $full = 0 ]; then
	minimal_ko=$(echo "$top/build/$krel"-no-*/edm.ko)
	if [ -e "$minimal_ko" ]; then
		suite vm-minimal selftests/vm/run --kernel-release "$krel" --timeout 300 \
			--env EDM_KO="$minimal_ko" --out "$out/vm-minimal" -- \
			selftests/edm/run.sh minimal.sh
	else
		echo "not ok - vm-minimal: not run, the minimal module did not build" | tee -a "$tap"
	fi
fi

# Two guests joined by a QEMU socket link; their lines carry "[gN] ".
# two_guests NAME SCRIPT: SCRIPT runs in both guests.
two_guests() {
	selftests/vm/run --kernel-release "$krel" --guests 2 --out "$out/vm-$1" \
		-- "selftests/edm/$2" | sed -u 's/^\[g[0-9]*\] //'
	return "${PIPESTATUS[0]}"
}
if [ $full = 0 ]; then
	suite vm-two-guests two_guests two-guests two_guests.sh
	# NetDIMMs in lower mode, one per machine, riding on the link.
	suite vm-two-guests-ndimm two_guests two-guests-ndimm ndimm_two_guests.sh
	# EDM over Ethernet: a compute host in one guest, switch and memory host in the other.
	suite vm-two-guests-fabric two_guests two-guests-fabric fabric_two_guests.sh
fi

# A DFabric pool shared by the guests' kernels (one ivshmem file); the last
# guest kills its kernel mid-traffic. shpool_guests NAME N: N guests.
shpool_guests() {
	selftests/vm/run --kernel-release "$krel" --guests "$2" --shmem 64M --may-die $(($2 - 1)) \
		--out "$out/vm-$1" -- selftests/edm/shpool_guests.sh | sed -u 's/^\[g[0-9]*\] //'
	return "${PIPESTATUS[0]}"
}
if [ $full = 0 ]; then
	suite vm-shpool-two-guests shpool_guests shpool-two-guests 2
	suite vm-shpool-three-guests shpool_guests shpool-three-guests 3
fi

# Cowbird across kernels: guest 1's engine serves guest 0's rings through
# the shared pool, then guest 1 dies with reads in flight.
cowbird_guests() {
	selftests/vm/run --kernel-release "$krel" --guests 2 --shmem 64M --may-die 1 \
		--out "$out/vm-cowbird-guests" -- selftests/edm/cowbird_guests.sh |
		sed -u 's/^\[g[0-9]*\] //'
	return "${PIPESTATUS[0]}"
}
if [ $full = 0 ]; then
	suite vm-cowbird-two-guests cowbird_guests
fi

# The debug kernel (KASAN, lockdep, UBSAN, kmemleak): built once, cached
# outside the clone; edm.ko built against it with W=1 and no warning.
build_module_debug() {
	make -C "$top" module KREL="$dkrel" KDIR="$(scripts/debug-kernel.sh kdir)" W=1 || return 1
	! grep -E '(warning|error):' "$out/module-debug-W1.log"
}

if gate debug-kernel scripts/debug-kernel.sh build; then
	dkrel=$(scripts/debug-kernel.sh release)
	echo "== debug kernel: $dkrel"
	gate module-debug-W1 build_module_debug
	list=print-debug-tests
	[ $full = 0 ] || list=print-debug-tests-full
	vm_suite debug "$dkrel" --kernel "$(scripts/debug-kernel.sh image)" \
		--modules-dir "$(scripts/debug-kernel.sh moddir)" \
		--append "$(scripts/debug-kernel.sh cmdline)" --env EDM_TEST_SCALE=5 \
		--timeout $((full ? 4800 : 2400)) --cpuless-node 256M -- \
		$(make -s -C selftests/edm $list)
fi
echo "# make check took $((SECONDS - start)) s"
summary
