# SPDX-License-Identifier: GPL-2.0
# Sourced by the soaks (soak.sh, fabric_soak.sh), from the top of the tree.
# bench_vm KERNEL TIMEOUT: builds edm.ko for KERNEL (debian: the installed
# Debian kernel the VM boots; debug: the cached debug kernel), edmctl and
# the selftests, and sets the array vm to the runner's command for it.
bench_vm() {
	local krel

	vm=(selftests/vm/run --timeout "$2")
	if [ "$1" = debug ]; then
		krel=$(scripts/debug-kernel.sh release)
		make -s module KREL="$krel" KDIR="$(scripts/debug-kernel.sh kdir)"
		vm+=(--kernel "$(scripts/debug-kernel.sh image)"
		     --append "$(scripts/debug-kernel.sh cmdline)")
	else
		krel=$(scripts/krel.sh --vm)
		make -s module KREL="$krel"
		vm+=(--kernel-release "$krel")
	fi
	make -s edmctl selftests
}
