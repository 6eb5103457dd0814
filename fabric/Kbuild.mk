# SPDX-License-Identifier: GPL-2.0
# The EDM fabric (Documentation/fabric.md): the 66-bit block codec, the
# scheduler and timing cores, nodes, links, mux, host stack, switch,
# /dev/edm<N>, EDM over Ethernet, the hosts' netdevs (their ethtool and `ip link
# add`) and the netlink commands.
edm-$(EDM_FABRIC) += fabric/pcs.o fabric/sched.o fabric/timing.o fabric/node.o fabric/link.o \
	 fabric/mux.o fabric/host.o fabric/requester.o fabric/responder.o \
	 fabric/region.o fabric/switch.o fabric/cdev.o fabric/eth.o \
	 fabric/netdev.o fabric/ethtool.o fabric/nl.o fabric/link_nl.o fabric/host_link.o
# fabric/trace.h is found by the tracepoint machinery from the folder itself.
CFLAGS_fabric/node.o := -I$(src)/fabric
