# SPDX-License-Identifier: GPL-2.0
# DFabric (Documentation/pool.md, nicpool.md): the CXL memory pool (core,
# DRAM cache, kernel object, shared skbs, pool regions), racks and their
# compute-node netdevs (also `ip link add ... type rackcn`), the NIC pool,
# the pool shared between kernels and its netdev (also `ip link add ... type
# shpool`), and their netlink commands.
edm-$(EDM_DFABRIC) += dfabric/pool_core.o dfabric/pool_dcache.o dfabric/pool.o dfabric/pool_skb.o \
	 dfabric/pool_dc.o \
	 dfabric/pool_region.o dfabric/pool_nl.o dfabric/rack.o dfabric/rack_cn.o \
	 dfabric/rack_nl.o dfabric/rack_link.o dfabric/nicpool.o dfabric/nicpool_tx.o dfabric/nicpool_rx.o \
	 dfabric/nicpool_nl.o dfabric/shpool_core.o dfabric/shpool.o dfabric/shpool_net.o \
	 dfabric/shpool_nl.o dfabric/shpool_x.o dfabric/shpool_ethtool.o dfabric/rack_ethtool.o \
	 dfabric/shpool_link.o
# dfabric/trace.h is found by the tracepoint machinery from the folder itself.
CFLAGS_dfabric/pool.o := -I$(src)/dfabric
