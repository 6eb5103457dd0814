# SPDX-License-Identifier: GPL-2.0
# The switch scheduler and the hardware timing model (fabric/).
TESTS += sched_test timing_test
sched_test_SRCS := sched_test.c $(TOP)/fabric/sched.c
timing_test_SRCS := timing_test.c $(TOP)/fabric/timing.c
FUZZERS += fuzz_sched
fuzz_sched_SRCS := fuzz_sched.c $(TOP)/fabric/sched.c
