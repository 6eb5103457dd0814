# SPDX-License-Identifier: GPL-2.0
# The shared core: init table, object accounting, the per-netns registry,
# the genetlink family and its device commands, names, device types,
# the memory providers (pmem, device-DAX).
edm-y += core/main.o core/objects.o core/registry.o core/netlink.o core/dev_nl.o \
	 core/name.o core/ethtool.o core/dev_types.o \
	 core/memprov.o core/memprov_pmem.o core/memprov_devdax.o
