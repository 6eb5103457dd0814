#!/bin/bash
# Extract the kselftest harness headers from Debian's linux-source tarball
# into $1 (once). They are taken at build time, never committed.
set -euo pipefail

out=$1
[ -f "$out/kselftest_harness.h" ] && [ -f "$out/kselftest.h" ] && exit 0
tarball=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -n 1)
[ -n "$tarball" ] || { echo "no /usr/src/linux-source-*.tar.xz: run scripts/deps.sh" >&2; exit 1; }
top=$(basename "$tarball" .tar.xz)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar -xJf "$tarball" -C "$tmp" \
	"$top/tools/testing/selftests/kselftest_harness.h" \
	"$top/tools/testing/selftests/kselftest.h"
mkdir -p "$out"
cp "$tmp/$top/tools/testing/selftests/"kselftest*.h "$out/"
