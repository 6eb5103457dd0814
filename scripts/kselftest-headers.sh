#!/bin/bash
# Extract the kselftest harness headers from Debian's linux-source tarball
# into $1 (once). They are taken at build time, never committed. The two
# files are cached outside the tree, keyed by the tarball's name and size:
# unpacking them from the xz tarball takes about 20 s under load.
set -euo pipefail

out=$1
[ -f "$out/kselftest_harness.h" ] && [ -f "$out/kselftest.h" ] && exit 0
# 6.12's harness: the tests use its __test_passed() and rely on it to order
# the tests itself when they have their own main().
tarball=/usr/src/linux-source-6.12.tar.xz
[ -r "$tarball" ] || { echo "no $tarball: run scripts/deps.sh" >&2; exit 1; }
top=$(basename "$tarball" .tar.xz)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/edm/kselftest-$top-$(stat -c %s "$tarball")
if ! [ -f "$cache/kselftest_harness.h" ] || ! [ -f "$cache/kselftest.h" ]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	tar -xJf "$tarball" -C "$tmp" \
		"$top/tools/testing/selftests/kselftest_harness.h" \
		"$top/tools/testing/selftests/kselftest.h"
	mkdir -p "$cache"
	cp "$tmp/$top/tools/testing/selftests/"kselftest*.h "$cache/"
fi
mkdir -p "$out"
cp "$cache/"kselftest*.h "$out/"
