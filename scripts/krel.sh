#!/bin/bash
# Which kernel to build for and boot.
#   krel.sh            the default release: the running kernel when its build
#                      tree exists, else the newest Debian -amd64 headers
#   krel.sh --vm       the newest release that has headers, a bootable image
#                      and modules, i.e. one the VM runner can boot ($EDM_KREL wins)
#   krel.sh --kdir R   the build tree for release R
set -euo pipefail

newest_headers() {
	local d r
	for d in /usr/src/linux-headers-*-amd64; do
		[ -d "$d" ] || continue
		r=${d#/usr/src/linux-headers-}
		if [ "${1:-}" = vm ]; then
			[ -r "/boot/vmlinuz-$r" ] && [ -d "/lib/modules/$r/kernel" ] || continue
		fi
		echo "$r"
	done | sort -V | tail -n 1
}

case "${1:-}" in
--kdir)
	if [ -d "/lib/modules/$2/build" ]; then
		echo "/lib/modules/$2/build"
	else
		echo "/usr/src/linux-headers-$2"
	fi
	;;
--vm)
	[ -n "${EDM_KREL:-}" ] && { echo "$EDM_KREL"; exit 0; }
	newest_headers vm
	;;
*)
	if [ -d "/lib/modules/$(uname -r)/build" ]; then
		uname -r
	else
		newest_headers
	fi
	;;
esac
