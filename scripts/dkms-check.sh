#!/bin/bash
# Build edm.ko with dkms against kernel release $1, in a private dkms tree,
# so the check never touches the system's /var/lib/dkms or /usr/src.
set -euo pipefail

krel=$1
top=$(cd "$(dirname "$0")/.." && pwd)
ver=$(cat "$top/VERSION")
grep -q "PACKAGE_VERSION=\"$ver\"" "$top/dkms.conf" ||
	{ echo "dkms.conf's PACKAGE_VERSION differs from VERSION ($ver)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
src=$tmp/src/edm-$ver
mkdir -p "$src" "$tmp/dkms"
# Exactly the files the module's Kbuild needs: include/ and every folder
# with a Kbuild.mk.
mapfile -t dirs < <(cd "$top" && git ls-files '*/Kbuild.mk' | xargs -n 1 dirname)
(cd "$top" && cp -r --parents Kbuild VERSION dkms.conf include "${dirs[@]}" "$src/")
find "$src" -name '*.o' -o -name '*.cmd' -o -name '*.ko' | xargs -r rm -f

dk=(--sourcetree "$tmp/src" --dkmstree "$tmp/dkms")
dkms add -m edm -v "$ver" "${dk[@]}" >"$tmp/log" 2>&1 &&
	dkms build -m edm -v "$ver" -k "$krel" "${dk[@]}" >>"$tmp/log" 2>&1 ||
	{ cat "$tmp/log" >&2; exit 1; }
# dkms compresses the module as the kernel does its own (6.12: edm.ko.xz).
ko=$(find "$tmp/dkms" -name 'edm.ko*' | head -1)
[ -n "$ko" ] || { cat "$tmp/log" >&2; echo "dkms built no edm.ko" >&2; exit 1; }
echo "dkms build: edm $ver for $krel OK: ${ko#"$tmp/dkms/"}"
