# SPDX-License-Identifier: GPL-2.0
# NETi zone geometry (mm/neti_geom.c).
TESTS += neti_geom_test
neti_geom_test_SRCS := neti_geom_test.c $(TOP)/mm/neti_geom.c
