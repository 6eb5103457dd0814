#!/bin/bash
# checkpatch.pl --strict over the module's sources. checkpatch comes from
# Debian's linux-source tarball (extracted once into build/checkpatch).
# include/edm/core.h is exempt from PREFER_KERNEL_TYPES: it is the one
# place that defines the kernel types for user-space builds of the cores.
# Tracepoint headers (include/edm/trace_*.h) are exempt from the two checks
# the TRACE_EVENT() layout of the kernel's own trace headers always trips.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
dir=$top/build/checkpatch
if [ ! -f "$dir/scripts/checkpatch.pl" ]; then
	tarball=$(ls /usr/src/linux-source-*.tar.xz | sort -V | tail -n 1)
	src=$(basename "$tarball" .tar.xz)
	mkdir -p "$dir"
	tar -xJf "$tarball" -C "$dir" --strip-components=1 "$src/scripts/checkpatch.pl" \
		"$src/scripts/spelling.txt" "$src/scripts/const_structs.checkpatch"
fi
cd "$top"
rc=0
for f in $(git ls-files 'kernel/*.[ch]' 'drivers/*.[ch]' 'net/*.[ch]' 'mm/*.[ch]' \
		'include/edm/*.h' 'include/uapi/linux/*.h'); do
	ignore=
	[ "$f" = include/edm/core.h ] && ignore=--ignore=PREFER_KERNEL_TYPES
	case $f in include/edm/trace_*.h) ignore=--ignore=OPEN_ENDED_LINE,PARENTHESIS_ALIGNMENT ;; esac
	if ! perl "$dir/scripts/checkpatch.pl" --strict --no-tree --terse --show-types \
		--max-line-length=100 $ignore -f "$f" >"$dir/out" 2>&1 ||
		grep -qv '^total: 0 errors, 0 warnings, 0 checks' "$dir/out"; then
		cat "$dir/out"
		rc=1
	fi
done
exit $rc
