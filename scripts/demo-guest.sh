#!/bin/bash
# The demo's guest half: runs inside the VM that scripts/demo.sh boots.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
export PATH=$top/tools/edmctl:$PATH
cd "$top"

step() {
	echo
	echo "\$ $*"
	"$@"
}

echo "guest kernel: $(uname -r)"
step insmod "build/$(uname -r)/edm.ko"
step edmctl version
step edmctl dev add name demo0 type null
step edmctl -j dev show
step edmctl dev del name demo0
step rmmod edm
echo
echo "demo done: edm.ko loaded, answered, and unloaded cleanly"
