# SPDX-License-Identifier: GPL-2.0
# NETi zone geometry (netdimm/geom.c).
TESTS += neti_geom_test
neti_geom_test_SRCS := neti_geom_test.c $(TOP)/netdimm/geom.c
