#!/bin/bash
# Install, when missing, every Debian package that building, testing and the
# demo need. Runs `apt-get update` once, only when something is missing.
set -euo pipefail

pkgs=(
	# the kernels the VM boots and the headers edm.ko builds against: both
	# supported series (scripts/krel.sh), Debian 12's 6.1 and its 6.12 LTS
	linux-headers-amd64 linux-image-amd64 linux-headers-6.12-amd64 linux-image-6.12-amd64
	# the debug kernel's source (scripts/debug-kernel.sh)
	linux-source-6.12
	# builds and checks
	build-essential kmod sparse dkms pkg-config libnl-3-dev libnl-genl-3-dev
	clang llvm xz-utils cpio
	# the debug kernel (scripts/debug-kernel.sh)
	flex bison bc libelf-dev libssl-dev
	# the VM runner
	qemu-system-x86 busybox-static binutils
	# tests, the spec check and the apps tests run
	python3 python3-yaml jq util-linux iproute2 iputils-ping ethtool iperf3 sockperf
	# the selftests' jq (selftests/edm/lib.sh): it starts several times faster
	gojq
	# pool.sh and nicpool.sh: redis-server, redis-benchmark and redis-cli between
	# compute nodes (packages only: the service Debian would start is not used)
	redis-server redis-tools
	# shpool_guests.sh on an NVDIMM (--nvdimm): ndctl puts its namespace in fsdax mode
	ndctl
	# make sim-report's plots
	gnuplot-nox
	# Soft-RoCE for tools/bench/edm.sh: the rxe verbs provider (librxe), ibv_devices
	# and perftest's ib_read_lat/ib_write_lat/ib_read_bw ("rdma link" is iproute2's;
	# rdma-core itself only adds udev rules and services, not needed)
	ibverbs-providers ibverbs-utils perftest
	# tools/bench/cowbird: the io_uring contender (liburing with SQPOLL) and the
	# ibverbs one (its headers and libibverbs.so; the rxe provider is above)
	liburing-dev libibverbs-dev
	# make bench's cost breakdowns: perf record/report inside the guests
	# (tools/bench/profile-guest.sh; the guests see this machine's /)
	linux-perf
)

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages: ${missing[*]}; run this script as root" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
