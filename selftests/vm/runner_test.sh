#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# selftests/vm/runner_test.sh: the VM runner's own logic, on the host, in
# seconds: selftests/vm/run with fake_qemu.py in place of QEMU, so that a
# guest can be made to panic while booting, die, or print at a chosen
# moment.  Checks that a boot failure before CMD reboots every guest once
# (with the shared memory zeroed), never twice and never after a result
# was printed, and that a lost guest stops the others at once instead of
# leaving them to the timeout.  Needs an installed kernel for the runner
# to pick (its initramfs is built once and cached), not KVM.

# shellcheck source=../edm/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../edm/lib.sh"

RUN=$EDM_TOP/selftests/vm/run
FAKE=$EDM_TOP/selftests/vm/fake_qemu.py
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# fake RUNNER-ARGS...: run CMD "true" under the runner with the plan in
# $PLAN; leaves the status in $st, stdout in $TMP/out, stderr in $TMP/err,
# the results under $TMP/res and the boot counts in $TMP/state.
fake() {
	rm -rf "$TMP/res" "$TMP/state"
	mkdir -p "$TMP/state"
	st=0
	EDM_VM_QEMU=$FAKE FAKE_QEMU_STATE=$TMP/state FAKE_QEMU_PLAN=$PLAN \
		"$RUN" --accel tcg --timeout 60 --out "$TMP/res" "$@" -- true \
		>"$TMP/out" 2>"$TMP/err" || st=$?
	echo "# runner status $st; its stderr:"
	sed 's/^/#   /' "$TMP/err"
}

# boots I: how many times guest I booted.
boots() { cat "$TMP/state/boots$1"; }

expect() {
	[ "$1" = "$2" ] || { echo "$3: $1, expected $2"; return 1; }
}

# Guest 0 panics while booting, after guest 1 (waiting on it, as two-guest
# tests do) has written to the shared memory; the second boot of both
# passes, and guest 1 finds the shared memory zero.
panic_once() {
	PLAN="0:1:await-dirty+panic 1:1:started+dirty+wait 1:2:started+check+print+status"
	fake --guests 2 --shmem 1M
	expect "$st" 0 "runner status"
	expect "$(boots 0),$(boots 1)" 2,2 "boots of guest 0,1"
	grep -q "guest 0's kernel ended while booting" "$TMP/err"
	grep -q "first boot: .*Kernel panic" "$TMP/err"
	grep -q "Kernel panic" "$TMP/res/guest0/console-first-boot.log"
	expect "$(grep -c "Kernel panic" "$TMP/res/guest0/console.log")" 0 \
		"panic lines in the second boot's console"
	expect "$(grep -c '^\[g1\] ok 1 guest 1$' "$TMP/out")" 1 "guest 1's result lines"
	expect "$(grep -c '^\[g0\] ok 1 guest 0$' "$TMP/out")" 1 "guest 0's result lines"
	expect "$(grep -c "not zeroed" "$TMP/out")" 0 "complaints of guest 1's check"
}

# A kernel that panics at every boot is booted twice, not more, and the
# waiting guest is stopped at once, not at the timeout.
panic_twice() {
	PLAN="0:1:panic 0:2:panic 1:1:started+wait 1:2:started+wait"
	fake --guests 2
	expect "$st" 1 "runner status"
	expect "$(boots 0)" 2 "boots of guest 0"
	grep -q "guest 1 stopped: guest 0 ended with no exit status" "$TMP/err"
	grep -q "guest (guest 0) crashed or panicked" "$TMP/err"
}

# Once a guest has printed a result, a boot failure elsewhere fails the
# run: booting again would count that result twice.
panic_after_result() {
	PLAN="0:1:await-dirty+panic 1:1:started+print+dirty+wait"
	fake --guests 2 --shmem 1M
	expect "$st" 1 "runner status"
	expect "$(boots 0),$(boots 1)" 1,1 "boots of guest 0,1"
	grep -q "not booting again: results were already printed" "$TMP/err"
}

# A guest that dies while CMD runs is not a boot failure: no second boot,
# the other guest is stopped, the run fails; unless --may-die allows it.
die_while_running() {
	PLAN="0:1:started+die 1:1:started+wait"
	fake --guests 2
	expect "$st" 1 "runner status"
	expect "$(boots 0),$(boots 1)" 1,1 "boots of guest 0,1"
	grep -q "guest 1 stopped: guest 0 ended with no exit status" "$TMP/err"

	PLAN="1:1:started+die"
	fake --guests 2 --may-die 1
	expect "$st" 0 "runner status with --may-die 1"
	grep -q "guest 1 died (allowed by --may-die)" "$TMP/err"
}

# A single guest that panics while booting is booted again too, and one
# whose console stalls (EDM_VM_BOOT_STALL seconds) is.
single_guest() {
	PLAN="0:1:panic"
	fake
	expect "$st" 0 "runner status"
	expect "$(boots 0)" 2 "boots"
	expect "$(grep -c '^ok 1 guest 0$' "$TMP/out")" 1 "result lines"

	# QEMU slower to print its first line than the stall bound (a loaded
	# host): the clock starts at that line, so the stall is still caught
	# there, and the line it names is the boot's own
	PLAN="0:1:wait"
	EDM_VM_BOOT_STALL=2 FAKE_QEMU_DELAY=3 fake
	expect "$st" 0 "runner status after a stall"
	expect "$(boots 0)" 2 "boots after a stall"
	grep -q "guest stuck booting: no console output for 2 s before CMD started; last line: .*Linux version fake (guest 0, boot 1)" "$TMP/err"
}

# No second boot when init gave up (a setup error, the same every time), nor
# when another guest died while CMD ran (that may be a real failure).
no_retry() {
	PLAN="0:1:fatal 1:1:started+wait"
	fake --guests 2
	expect "$st" 1 "runner status after init gave up"
	expect "$(boots 0)" 1 "boots after init gave up"

	PLAN="0:1:await-dirty+panic 1:1:started+dirty+die"
	fake --guests 2 --shmem 1M
	expect "$st" 1 "runner status after a guest died running CMD"
	expect "$(boots 0),$(boots 1)" 1,1 "boots of guest 0,1"
}

# Under TCG the guest CPU has no CMPXCHG16B: Debian 12's QEMU 7.2 leaves
# garbage in RFLAGS after it (selftests/vm/run, qemu_args).
tcg_cpu() {
	PLAN=
	fake
	expect "$st" 0 "runner status"
	grep -qx -- "-cpu" "$TMP/state/argv0"
	expect "$(grep -A1 -x -- "-cpu" "$TMP/state/argv0" | tail -1)" "max,cx16=off" "TCG's -cpu"
}

# --nvdimm: one backing file every guest's QEMU maps as an nvdimm, zeroed
# for a second boot as --shmem's is; sizes off x86's 128 MiB step refused.
nvdimm() {
	local a

	PLAN="0:1:await-dirty+panic 1:1:started+dirty+wait 1:2:started+check+print+status"
	fake --guests 2 --shmem 1M --nvdimm 128M
	expect "$st" 0 "runner status"
	expect "$(grep -c "not zeroed" "$TMP/out")" 0 "complaints of guest 1's check"
	expect "$(grep -c '^\[g1\] ok 1 guest 1$' "$TMP/out")" 1 "guest 1's result lines"
	a=$(tr '\n' ' ' <"$TMP/state/argv1")
	[[ $a == *"-machine q35,nvdimm=on "* ]] || { echo "no nvdimm=on: $a"; return 1; }
	[[ $a == *"-device nvdimm,memdev=nvmem,id=nv0 "* ]] || { echo "no nvdimm: $a"; return 1; }
	[[ $a == *"-m 2G,slots=1,maxmem=2176M "* ]] || { echo "no hotplug room: $a"; return 1; }
	grep -qx "export EDM_VM_NVDIMM_SIZE='134217728'" "$TMP/res/guest1/cmd.sh" ||
		{ echo "no EDM_VM_NVDIMM_SIZE in guest 1's environment"; return 1; }

	PLAN=
	fake --nvdimm 100M
	expect "$st" 2 "runner status with --nvdimm 100M"
	grep -q "needs SIZE as a multiple of 128 M" "$TMP/err"

	# --cxl: the Type-3 device behind its host bridge and root port, in a window
	PLAN=
	fake --cxl 256M
	expect "$st" 0 "runner status with --cxl 256M"
	a=$(tr '\n' ' ' <"$TMP/state/argv0")
	[[ $a == *"-machine q35,cxl=on "* ]] || { echo "no cxl=on: $a"; return 1; }
	[[ $a == *"-device cxl-type3,bus=cxlrp0,memdev=cxlmem,lsa=cxllsa,id=cxl-pmem0 "* ]] ||
		{ echo "no cxl-type3: $a"; return 1; }
	[[ $a == *"-M cxl-fmw.0.targets.0=cxl.1,cxl-fmw.0.size=4G"* ]] ||
		{ echo "no fixed memory window: $a"; return 1; }
	fake --cxl 100M
	expect "$st" 2 "runner status with --cxl 100M"
	grep -q "needs SIZE as a multiple of 256 M" "$TMP/err"
}

# --link tap: each link a bridge and two taps in a network namespace of the
# run's own, the NICs on the taps with vnet headers; the namespace is gone
# after the run.  Anything but socket or tap is refused.
link_tap() {
	local a0 a1 ns

	PLAN=
	fake --guests 2 --link udp
	expect "$st" 2 "runner status with --link udp"
	grep -q "link must be socket or tap" "$TMP/err"

	[ "$(id -u)" = 0 ] || skip "--link tap needs root"
	fake --guests 2 --link tap
	expect "$st" 0 "runner status with --link tap"
	a0=$(tr '\n' ' ' <"$TMP/state/argv0")
	a1=$(tr '\n' ' ' <"$TMP/state/argv1")
	[[ $a0 == *"-netdev tap,id=next,ifname=t0a,script=no,downscript=no,vnet_hdr=on "* ]] ||
		{ echo "guest 0 not on tap t0a: $a0"; return 1; }
	[[ $a1 == *"-netdev tap,id=prev,ifname=t0b,script=no,downscript=no,vnet_hdr=on "* ]] ||
		{ echo "guest 1 not on tap t0b: $a1"; return 1; }
	[[ $a0$a1 != *socket,* ]] || { echo "a socket netdev with --link tap"; return 1; }
	ns=$(sed -n 's/.*links: taps on bridges in network namespace \(edm-vm-[0-9]*\).*/\1/p' \
		"$TMP/err")
	[ -n "$ns" ] || { echo "the runner named no namespace"; return 1; }
	! ip netns list | grep -qw "$ns" || { echo "namespace $ns left behind"; return 1; }

	# nor after a failed run: guest 1's kernel panics at both boots
	PLAN="1:1:panic 1:2:panic 0:1:started+wait 0:2:started+wait"
	fake --guests 2 --link tap
	expect "$st" 1 "runner status with --link tap, a guest that panics"
	ns=$(sed -n 's/.*links: taps on bridges in network namespace \(edm-vm-[0-9]*\).*/\1/p' \
		"$TMP/err")
	[ -n "$ns" ] || { echo "the runner named no namespace"; return 1; }
	! ip netns list | grep -qw "$ns" || { echo "namespace $ns left behind"; return 1; }
}

run_case panic_once "a guest's panic while booting boots every guest again, shmem zeroed"
run_case panic_twice "a kernel that panics at every boot is booted twice, then fails"
run_case panic_after_result "no second boot once a result was printed"
run_case die_while_running "a guest lost while CMD runs stops the others (unless --may-die)"
run_case single_guest "a single guest's panic or stall while booting boots it again"
run_case no_retry "no second boot after init's own failure or a death while CMD ran"
run_case nvdimm "--nvdimm and --cxl: the devices every guest gets, bad sizes refused"
run_case link_tap "--link tap: taps on bridges in a namespace of the run's own, removed"
run_case tcg_cpu "a TCG guest's CPU has no CMPXCHG16B"
tap_done
