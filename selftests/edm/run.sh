#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs the edm selftests inside the VM, in the Makefile's order, and prints
# their TAP with each result tagged by the kernel it ran on. A program that
# fails without reporting a failed case is reported as one. Last, the module
# must unload with no object alive. Usage: run.sh [TEST...], where a TEST of
# the form SCRIPT:CASE,CASE runs only those cases of a lib.sh script (the
# debug kernel's lane: selftests/edm/Makefile, TEST_DEBUG).
cd "$(dirname "$0")" || exit 1
source ./lib.sh

krel=$(uname -r)
tag() {
	sed -u -E "s/^(not ok|ok) ([0-9]+) /\1 \2 [$krel] /"
}

echo "# guest kernel: $krel"
tests=("$@")
[ ${#tests[@]} -gt 0 ] || read -r -a tests <<<"$(make -s print-tests)"
rc=0
for spec in "${tests[@]}"; do
	t=${spec%%:*}
	cases=
	[ "$t" = "$spec" ] || cases=${spec#*:}
	echo "# selftests: edm: $t${cases:+ (cases ${cases//,/, })}"
	edm_load || { echo "not ok - [$krel] $t: cannot load $EDM_KO"; rc=1; continue; }
	out=$(mktemp)
	t0=$SECONDS
	EDM_CASES=${cases//,/ } ./"$t" 2>&1 | tee "$out" | tag
	trc=${PIPESTATUS[0]}
	echo "# $t took $((SECONDS - t0)) s"
	# a program skips by saying so ("1..0 # SKIP why"), not by its status alone
	if [ "$trc" -eq $KSFT_SKIP ] && grep -q '# SKIP' "$out"; then
		echo "ok - [$krel] $t # SKIP"
	elif [ "$trc" -ne 0 ]; then
		rc=1
		grep -q '^not ok' "$out" || echo "not ok - [$krel] $t exited $trc"
	fi
	rm -f "$out"
	# A fresh module for the next program: state never leaks between them.
	if edm_loaded && ! rmmod edm; then
		echo "not ok - [$krel] $t: edm.ko does not unload after it"
		rc=1
	fi
done

# The module frees everything it made: after the tests above, load it,
# make and delete objects, and it must unload with none alive.
echo "# selftests: edm: final unload"
if edm_load && "$EDMCTL" dev add name last0 type null >/dev/null &&
   "$EDMCTL" dev del name last0 && edm_no_objects && rmmod edm && ! edm_loaded; then
	echo "ok - [$krel] edm.ko unloads with no object alive"
else
	echo "not ok - [$krel] edm.ko unloads with no object alive"
	[ -r "$EDM_DEBUGFS/objects" ] && sed 's/^/# /' "$EDM_DEBUGFS/objects"
	rc=1
fi
exit $rc
