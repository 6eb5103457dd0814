#!/bin/bash
# Extract the kernel's YNL client (tools/net/ynl: cli.py and its lib) and
# the netdev and nlctrl family specs from Debian's linux-source-6.12 tarball
# into $1 (once): the tests read the netdev family's per-queue statistics
# with it, as a user of 6.10 or later would (ynl --family netdev). Taken at
# build time, never committed; cached outside the tree, keyed by the
# tarball's size.
#   $1/cli.py --spec $1/specs/netdev.yaml --no-schema --dump qstats-get
set -euo pipefail

out=$1
[ -f "$out/cli.py" ] && [ -f "$out/specs/netdev.yaml" ] && exit 0
tarball=/usr/src/linux-source-6.12.tar.xz
[ -r "$tarball" ] || { echo "no $tarball: run scripts/deps.sh" >&2; exit 1; }
top=$(basename "$tarball" .tar.xz)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/edm/ynl-$top-$(stat -c %s "$tarball")
if ! [ -f "$cache/cli.py" ] || ! [ -f "$cache/specs/netdev.yaml" ]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	tar -xJf "$tarball" -C "$tmp" "$top/tools/net/ynl/cli.py" "$top/tools/net/ynl/lib" \
		"$top/Documentation/netlink/specs/netdev.yaml" \
		"$top/Documentation/netlink/specs/nlctrl.yaml"
	mkdir -p "$cache.tmp/specs"
	cp -r "$tmp/$top/tools/net/ynl/cli.py" "$tmp/$top/tools/net/ynl/lib" "$cache.tmp/"
	cp "$tmp/$top/Documentation/netlink/specs/"{netdev,nlctrl}.yaml "$cache.tmp/specs/"
	rm -rf "$cache"
	mv "$cache.tmp" "$cache"
fi
mkdir -p "$out"
cp -r "$cache/." "$out/"
