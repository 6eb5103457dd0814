# SPDX-License-Identifier: GPL-2.0
# NetDIMM (Documentation/netdimm.md): the NETi zone, its geometry core and
# clone engine; the netdimm netdev, its queues and rings, paths, lower mode,
# /dev/ndimm<i>, ethtool, per-queue stats; the netlink commands and
# `ip link add ... type ndimm`.
edm-$(EDM_NETDIMM) += netdimm/geom.o netdimm/zone.o netdimm/clone.o netdimm/dev.o netdimm/ring.o \
	 netdimm/queues.o netdimm/tx.o netdimm/rx.o netdimm/lower.o netdimm/sock.o netdimm/cdev.o \
	 netdimm/ethtool.o netdimm/qstats.o netdimm/nl.o netdimm/link.o
# netdimm/trace.h is found by the tracepoint machinery from the folder itself.
CFLAGS_netdimm/dev.o := -I$(src)/netdimm
