#!/bin/bash
# checkpatch.pl --strict over the module's sources. checkpatch comes from
# Debian's linux-source-6.12 tarball (extracted once into build/checkpatch).
# include/edm/core.h is exempt from PREFER_KERNEL_TYPES: it is the one
# place that defines the kernel types for user-space builds of the cores.
# Tracepoint headers (*/trace.h) are exempt from the two checks
# the TRACE_EVENT() layout of the kernel's own trace headers always trips.
# include/edm/compat.h is the one file allowed to test LINUX_VERSION_CODE
# (and so to compare it with KERNEL_VERSION(), and to have a wrapper that
# drops an argument the newer API no longer takes); in any other file
# checkpatch's LINUX_VERSION_CODE warning fails this gate.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
dir=$top/build/checkpatch
if [ ! -f "$dir/scripts/checkpatch.pl" ]; then
	tarball=/usr/src/linux-source-6.12.tar.xz
	src=$(basename "$tarball" .tar.xz)
	mkdir -p "$dir"
	tar -xJf "$tarball" -C "$dir" --strip-components=1 "$src/scripts/checkpatch.pl" \
		"$src/scripts/spelling.txt" "$src/scripts/const_structs.checkpatch"
fi
cd "$top"
# check OUT IGNORE FILE...: one checkpatch run over FILEs (its start-up is
# most of the cost of a file), its report in OUT; --terse says nothing of a
# clean file, so any line at all is a finding.
check() {
	local out=$dir/$1 ignore=$2

	shift 2
	[ $# -gt 0 ] || return 0
	if ! perl "$dir/scripts/checkpatch.pl" --strict --no-tree --terse --show-types \
		--max-line-length=100 ${ignore:+--ignore=$ignore} -f "$@" >"$out" 2>&1 ||
	   [ -s "$out" ]; then
		cat "$out"
		return 1
	fi
}
# The module's folders are those with a Kbuild.mk.
mapfile -t dirs < <(git ls-files '*/Kbuild.mk' | xargs -n 1 dirname)
mapfile -t files < <(git ls-files "${dirs[@]/%//*.[ch]}" 'include/edm/*.h' \
		'include/uapi/linux/*.h' |
		grep -v -e '^include/edm/core.h$' -e '^include/edm/compat.h$' -e '/trace\.h$')
mapfile -t traces < <(git ls-files "${dirs[@]/%//trace.h}")
# Two halves at once: one per CPU of a typical build machine.
half=$(((${#files[@]} + 1) / 2))
check out1 "" "${files[@]:0:half}" &
pid=$!
rc=0
check out2 "" "${files[@]:half}" || rc=1
wait $pid || rc=1
check out3 PREFER_KERNEL_TYPES include/edm/core.h || rc=1
check out5 LINUX_VERSION_CODE,CONSTANT_COMPARISON,MACRO_ARG_UNUSED include/edm/compat.h || rc=1
check out4 OPEN_ENDED_LINE,PARENTHESIS_ALIGNMENT "${traces[@]}" || rc=1
exit $rc
