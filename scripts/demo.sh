#!/bin/bash
# make demo: build everything, boot a Debian kernel under QEMU, and show
# edm.ko working inside it. Installs what it needs (scripts/deps.sh).
# make demo KREL=<release> boots that kernel; the default is the newest
# supported one installed (scripts/krel.sh --vm).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
scripts/deps.sh
krel=$(scripts/krel.sh --vm)
make -s module KREL="$krel"
make -s edmctl
make -s -C tools/lib/cowbird
echo "== booting $krel under QEMU"
# --nvdimm: the pool sits on the guest's persistent memory (its fsdax namespace)
selftests/vm/run --kernel-release "$krel" --nvdimm 256M -- scripts/demo-guest.sh
echo
echo "== two guests, one shared pool (guest 0's side)"
selftests/vm/run --kernel-release "$krel" --guests 2 --shmem 64M -- scripts/demo-shpool-guest.sh |
	sed -n 's/^\[g0\] //p'
