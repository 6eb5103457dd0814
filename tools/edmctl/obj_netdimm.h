/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * edmctl: NetDIMM messages, shared by "netdimm", "monitor" and the unit
 * tests.
 */
#ifndef EDMCTL_OBJ_NETDIMM_H
#define EDMCTL_OBJ_NETDIMM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "edmctl.h"
#include "nl.h"

extern const struct edm_object obj_netdimm;

/* What of a NETDIMM_GET-shaped message a command prints. */
enum netdimm_view {
	NETDIMM_VIEW_SHOW,	/* the device, its zone (and stats with -s) */
	NETDIMM_VIEW_EVENT,	/* the device's own fields, one text line */
	NETDIMM_VIEW_ZONE,	/* the name and the zone */
	NETDIMM_VIEW_STATS,	/* the name and the counters */
};

/*
 * Print a NETDIMM_GET-shaped message into the current JSON object (the
 * caller opens and closes it, and ends the text line with print_nl()).
 * stats adds the counters to NETDIMM_VIEW_SHOW. -1 if malformed.
 */
int netdimm_print_msg(struct nlmsghdr *nlh, enum netdimm_view view, bool stats);
/* netdimm_print_msg(nlh, NETDIMM_VIEW_EVENT, false), for the monitor. */
int netdimm_print_event(struct nlmsghdr *nlh);

/*
 * "64M": a decimal byte count with an optional binary suffix K, M or G
 * (either case). Rejects 0, signs, spaces, other suffixes and overflow.
 */
int netdimm_parse_size(const char *s, uint64_t *v);
/* The shortest form netdimm_parse_size() reads back: "64M", "4097", "0". */
void netdimm_fmt_size(char *buf, size_t len, uint64_t v);

/*
 * The counters' table, for the unit tests: entry i has the JSON key
 * netdimm_stat_key(i) for attribute netdimm_stat_attr(i); n is the count.
 */
unsigned int netdimm_stat_count(void);
int netdimm_stat_attr(unsigned int i);
const char *netdimm_stat_key(unsigned int i);

#endif /* EDMCTL_OBJ_NETDIMM_H */
