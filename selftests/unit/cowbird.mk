# SPDX-License-Identifier: GPL-2.0
# Cowbird's ring protocol and congestion control cores (cowbird/).
TESTS += cowbird_ring_test cowbird_cc_test
cowbird_ring_test_SRCS := cowbird_ring_test.c $(TOP)/cowbird/ring.c
cowbird_cc_test_SRCS := cowbird_cc_test.c $(TOP)/cowbird/cc.c
FUZZERS += fuzz_cowbird_ring
fuzz_cowbird_ring_SRCS := fuzz_cowbird_ring.c $(TOP)/cowbird/ring.c
