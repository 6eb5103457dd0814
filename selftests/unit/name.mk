# SPDX-License-Identifier: GPL-2.0
# Object name validation (core/name.c).
TESTS += name_test
name_test_SRCS := name_test.c $(TOP)/core/name.c
FUZZERS += fuzz_name
fuzz_name_SRCS := fuzz_name.c $(TOP)/core/name.c
