# SPDX-License-Identifier: GPL-2.0
# 66-bit block codec, scrambler, sync-header monitor, wire form (fabric/pcs.c).
TESTS += pcs_test
pcs_test_SRCS := pcs_test.c $(TOP)/fabric/pcs.c
FUZZERS += fuzz_pcs
fuzz_pcs_SRCS := fuzz_pcs.c $(TOP)/fabric/pcs.c
