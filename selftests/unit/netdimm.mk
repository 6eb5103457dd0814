# SPDX-License-Identifier: GPL-2.0
# NETi zone geometry (netdimm/geom.c).
TESTS += netdimm_geom_test
netdimm_geom_test_SRCS := netdimm_geom_test.c $(TOP)/netdimm/geom.c
