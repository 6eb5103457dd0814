/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * edmctl: Cowbird engine (COWBIRD_GET/SET) and instance (COWBIRD_INST_GET)
 * messages, shared by "cowbird", "monitor" and the unit tests.
 */
#ifndef EDMCTL_OBJ_COWBIRD_H
#define EDMCTL_OBJ_COWBIRD_H

#include <stdbool.h>

#include "edmctl.h"
#include "nl.h"

extern const struct edm_object obj_cowbird;

/*
 * Print a COWBIRD_GET-shaped message (the engine) or a COWBIRD_INST_GET
 * one (an instance) into the current JSON object; the caller opens and
 * closes it and ends the text line with print_nl(). stats adds the
 * counters. -1 if malformed.
 */
int cowbird_print_engine(struct nlmsghdr *nlh, bool stats);
int cowbird_print_inst(struct nlmsghdr *nlh, bool stats);
/* For the monitor: the engine's parameters, one text line. */
int cowbird_print_event(struct nlmsghdr *nlh);

/* The counters' tables, for the unit tests (as fabric_stat_*()). */
unsigned int cowbird_stat_count(void);
int cowbird_stat_attr(unsigned int i);
const char *cowbird_stat_key(unsigned int i);
unsigned int cowbird_inst_stat_count(void);
int cowbird_inst_stat_attr(unsigned int i);
const char *cowbird_inst_stat_key(unsigned int i);

#endif /* EDMCTL_OBJ_COWBIRD_H */
