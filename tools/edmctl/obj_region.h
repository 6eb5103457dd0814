/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * edmctl: memory region messages (REGION_*), shared by "region", "monitor"
 * and the unit tests.
 */
#ifndef EDMCTL_OBJ_REGION_H
#define EDMCTL_OBJ_REGION_H

#include <stdbool.h>

#include "edmctl.h"
#include "nl.h"

extern const struct edm_object obj_region;

/*
 * Print a REGION_GET-shaped message into the current JSON object (the
 * caller opens and closes it, and ends the text line with print_nl()): the
 * region, its key when the message has one, its counters with stats.
 * -1 if malformed.
 */
int region_print_msg(struct nlmsghdr *nlh, bool stats);
/* For the monitor: the region's own fields, one text line. */
int region_print_event(struct nlmsghdr *nlh);

/* The counters' table, for the unit tests (as fabric_stat_*()). */
unsigned int region_stat_count(void);
int region_stat_attr(unsigned int i);
const char *region_stat_key(unsigned int i);

#endif /* EDMCTL_OBJ_REGION_H */
