#!/bin/bash
# Which kernel to build for and boot. edm supports the kernel series in
# SERIES below (Debian's 6.1 and 6.12 LTS lines); Kbuild refuses others
# with one line, and no default here ever picks one.
#
#   krel.sh              the default release to build for: the running
#                        kernel when it is supported and its build tree
#                        exists, else the newest supported release with
#                        headers installed ($KREL, when set, wins)
#   krel.sh --vm         the default release to boot: the newest supported
#                        one with headers, a bootable image and modules
#                        ($KREL, then $EDM_KREL, when set, win)
#   krel.sh --all-vm     every bootable supported release, the newest of
#                        each series, oldest series first: make check's lanes
#   krel.sh --kdir R     the build tree for release R
#   krel.sh --check R    fail with one line unless R is supported and its
#                        build tree exists
#   krel.sh --check-vm R the same, and R must be bootable by the VM runner
#   krel.sh --series     the supported series, one per line
#
# Every failure is one line on stderr naming the supported series and how
# to choose a kernel.
set -euo pipefail

# The kernel series edm builds for and is tested on. Keep in step with
# Kbuild's EDM_SERIES and include/edm/compat.h.
SERIES=(6.1 6.12)

# The series ("6.12") of release R ("6.12.117+deb12-amd64").
series_of() {
	[[ $1 =~ ^([0-9]+)\.([0-9]+) ]] && echo "${BASH_REMATCH[1]}.${BASH_REMATCH[2]}"
}

supported() {
	local s want

	want=$(series_of "$1") || return 1
	for s in "${SERIES[@]}"; do
		[ "$s" = "$want" ] && return 0
	done
	return 1
}

kdir() {
	if [ -d "/lib/modules/$1/build" ]; then
		echo "/lib/modules/$1/build"
	else
		echo "/usr/src/linux-headers-$1"
	fi
}

has_headers() { [ -f "$(kdir "$1")/Makefile" ]; }
bootable() { [ -r "/boot/vmlinuz-$1" ] && [ -d "/lib/modules/$1/kernel" ]; }

# Installed releases (headers, or headers and image with "vm"), supported
# ones only, sorted oldest first.
installed() {
	local d r

	for d in /usr/src/linux-headers-* /lib/modules/*/build; do
		[ -f "$d/Makefile" ] || continue
		r=${d#/usr/src/linux-headers-}
		[ "$r" != "$d" ] || r=$(basename "$(dirname "$d")")
		supported "$r" || continue
		[ -e "$d/include/config/kernel.release" ] || continue
		if [ "${1:-}" = vm ]; then
			bootable "$r" || continue
		fi
		echo "$r"
	done | sort -uV
}

hint() {
	echo "supported kernels: ${SERIES[*]/%/.y}; choose one with make KREL=<release>" \
		"(installed: $(installed | tr '\n' ' ' | sed 's/ $//;s/^$/none/'))"
}

fail() {
	echo "edm: $*; $(hint)" >&2
	exit 1
}

check() {
	local r=$1

	supported "$r" || fail "kernel $r is not supported"
	has_headers "$r" || fail "no build tree for $r at $(kdir "$r") (install linux-headers-$r)"
	if [ "${2:-}" = vm ]; then
		bootable "$r" ||
			fail "kernel $r cannot be booted: no /boot/vmlinuz-$r or /lib/modules/$r (install linux-image-$r)"
	fi
}

newest() {
	local r

	r=$(installed "${1:-}" | tail -n 1)
	[ -n "$r" ] || fail "no supported kernel's ${1:+image and }headers are installed (scripts/deps.sh installs them)"
	echo "$r"
}

case "${1:-}" in
--kdir)
	kdir "$2"
	;;
--check)
	check "$2"
	;;
--check-vm)
	check "$2" vm
	;;
--series)
	printf '%s\n' "${SERIES[@]}"
	;;
--vm)
	r=${KREL:-${EDM_KREL:-}}
	if [ -n "$r" ]; then
		check "$r" vm
		echo "$r"
	else
		newest vm
	fi
	;;
--all-vm)
	# the newest release of each series
	installed vm | while read -r r; do
		echo "$(series_of "$r") $r"
	done | sort -V -k1,1 -k2,2 | awk '{ last[$1] = $2; if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 } }
		END { for (i = 1; i <= n; i++) print last[order[i]] }'
	;;
"")
	if [ -n "${KREL:-}" ]; then
		echo "$KREL"
	elif supported "$(uname -r)" && has_headers "$(uname -r)"; then
		uname -r
	else
		newest
	fi
	;;
*)
	echo "usage: $0 [--vm | --all-vm | --series | --kdir R | --check R | --check-vm R]" >&2
	exit 2
	;;
esac
