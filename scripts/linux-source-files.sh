#!/bin/bash
# scripts/linux-source-files.sh OUT PATH...: copy the PATHs (files or
# folders, relative to the top of the kernel tree) of Debian's
# linux-source-6.12 tarball into OUT, each under its base name. What the
# builds take from the kernel's tree, never committed:
#   the kselftest harness: tools/testing/selftests/kselftest{,_harness}.h
#   the YNL client and its specs (ndimm.sh reads the netdev family with it):
#     tools/net/ynl/cli.py tools/net/ynl/lib Documentation/netlink/specs/...
# Does nothing when OUT already has every one. Unpacking the xz tarball
# takes about 20 s under load, so the files are cached outside the tree,
# keyed by the tarball's size and the PATHs.
set -euo pipefail

out=$1
shift
have=1
for p in "$@"; do
	[ -e "$out/$(basename "$p")" ] || have=0
done
[ $have = 1 ] && exit 0
tarball=/usr/src/linux-source-6.12.tar.xz
[ -r "$tarball" ] || { echo "no $tarball: run scripts/deps.sh" >&2; exit 1; }
top=$(basename "$tarball" .tar.xz)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/edm/$top-$(stat -c %s "$tarball")-$(echo "$@" |
	sha256sum | cut -c1-12)
if ! [ -f "$cache/.complete" ]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	tar -xJf "$tarball" -C "$tmp" "${@/#/$top/}"
	mkdir -p "$tmp/out"
	for p in "$@"; do
		cp -r "$tmp/$top/$p" "$tmp/out/"
	done
	touch "$tmp/out/.complete"
	rm -rf "$cache"
	mkdir -p "$(dirname "$cache")"
	mv "$tmp/out" "$cache"
fi
mkdir -p "$out"
cp -r "$cache/." "$out/"
rm -f "$out/.complete"
