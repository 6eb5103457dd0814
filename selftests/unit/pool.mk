# SPDX-License-Identifier: GPL-2.0
# DFabric's memory pool core and DRAM cache index (dfabric/pool_core.c, dfabric/pool_dcache.c).
TESTS += pool_core_test dram_cache_test
pool_core_test_SRCS := pool_core_test.c $(TOP)/dfabric/pool_core.c
dram_cache_test_SRCS := dram_cache_test.c $(TOP)/dfabric/pool_dcache.c
FUZZERS += fuzz_pool
fuzz_pool_SRCS := fuzz_pool.c $(TOP)/dfabric/pool_core.c
