# SPDX-License-Identifier: GPL-2.0
# The pool shared by several kernels (dfabric/shpool_core.c). Its threaded
# test runs twice: under ASan + UBSan, and under TSan + UBSan
# (shpool_core_tsan_test; TSan does not model the core's one fence, so its
# warning is off).
TESTS += shpool_core_test shpool_core_tsan_test shpool_export_test shpool_export_tsan_test
shpool_export_test_SRCS := shpool_export_test.c $(TOP)/dfabric/shpool_core.c
shpool_export_test: CFLAGS += -pthread
shpool_export_tsan_test_SRCS := $(shpool_export_test_SRCS)
shpool_export_tsan_test: CFLAGS := $(filter-out -fsanitize=%,$(CFLAGS)) \
	-fsanitize=thread,undefined -Wno-tsan -pthread
shpool_core_test_SRCS := shpool_core_test.c $(TOP)/dfabric/shpool_core.c
shpool_core_test: CFLAGS += -pthread
shpool_core_tsan_test_SRCS := $(shpool_core_test_SRCS)
shpool_core_tsan_test: CFLAGS := $(filter-out -fsanitize=%,$(CFLAGS)) \
	-fsanitize=thread,undefined -Wno-tsan -pthread
FUZZERS += fuzz_shpool
fuzz_shpool_SRCS := fuzz_shpool.c $(TOP)/dfabric/shpool_core.c
