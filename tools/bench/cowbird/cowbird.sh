#!/bin/bash
# Cowbird benchmark (a), natively: compute-side cost per op of a remote read
# and its completion, libcowbird with the user-space stand-in engine against
# liburing with SQPOLL. Needs liburing-dev (scripts/deps.sh). No VM.
#   tools/bench/cowbird/cowbird.sh [-n ops] [-d depth]    (sizes 8 and 64 B)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
lib=$top/tools/lib/cowbird
out=$top/build/bench-cowbird
mkdir -p "$out"

make -s -C "$lib" all
cc -O2 -g -Wall -Wextra -Werror -std=gnu11 -I"$top/include/uapi" -I"$lib" \
	-o "$out/cowbird_bench" "$here/cowbird_bench.c" \
	"$lib/libcowbird.a" "$lib/libcowbird-standin.a" -luring -lpthread

echo "# $(uname -r), $(nproc) CPUs; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)"
for size in 8 64; do
	"$out/cowbird_bench" -s "$size" "$@"
done

# TODO(VM, not here): the third contender, ibverbs ib_post_send(RDMA_READ) +
# ib_poll_cq per op over Soft-RoCE (rxe), runs inside the VM where rxe is
# loaded: selftests/vm/run -- tools/bench/cowbird/cowbird-rxe.sh (to write,
# on the pattern of tools/bench/edm-guest.sh), printing the same columns.
