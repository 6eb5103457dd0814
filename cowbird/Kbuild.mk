# SPDX-License-Identifier: GPL-2.0
# Cowbird (Documentation/cowbird.md): the ring and congestion-control cores,
# /dev/cowbird and its engine over a local, pool or remote region, and the
# netlink commands of instances and regions.
edm-$(EDM_COWBIRD) += cowbird/ring.o cowbird/cc.o cowbird/dev.o cowbird/engine.o cowbird/remote.o \
	 cowbird/nl.o cowbird/region_nl.o
# cowbird/trace.h is found by the tracepoint machinery from the folder itself.
CFLAGS_cowbird/engine.o := -I$(src)/cowbird
