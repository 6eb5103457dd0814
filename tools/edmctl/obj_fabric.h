/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * edmctl: EDM fabric messages, nodes (FABRIC_*) and link ends (FLINK_*),
 * shared by "fabric", "monitor" and the unit tests.
 */
#ifndef EDMCTL_OBJ_FABRIC_H
#define EDMCTL_OBJ_FABRIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "edmctl.h"
#include "nl.h"

extern const struct edm_object obj_fabric;

/* What of a FABRIC_GET-shaped message a command prints. */
enum fabric_view {
	FABRIC_VIEW_SHOW,	/* the node (and its counters with stats) */
	FABRIC_VIEW_STATS,	/* the name and the counters */
};

/*
 * Print a FABRIC_GET-shaped message into the current JSON object (the
 * caller opens and closes it, and ends the text line with print_nl()).
 * -1 if malformed.
 */
int fabric_print_msg(struct nlmsghdr *nlh, enum fabric_view view, bool stats);
/* A FLINK_GET-shaped message the same way: the link end, stats optional. */
int fabric_link_print_msg(struct nlmsghdr *nlh, bool stats);

/* For the monitor: the node's or link end's own fields, one text line. */
int fabric_print_event(struct nlmsghdr *nlh);
int fabric_link_print_event(struct nlmsghdr *nlh);

/*
 * "NODE[:PORT]": a node name (1..EDM_NAME_LEN - 1 characters, copied into
 * name) and an optional decimal port. 0, or -1 after printing why.
 */
int fabric_parse_end(const char *s, char *name, size_t len, uint32_t *port,
		     bool *has_port);
/* A region size: "0", or what netdimm_parse_size() takes ("64M", "4k"). */
int fabric_parse_region(const char *s, uint64_t *v);

/*
 * The counters' tables, for the unit tests: entry i has the JSON key
 * ..._stat_key(i) for attribute ..._stat_attr(i); n is the count.
 */
unsigned int fabric_stat_count(void);
int fabric_stat_attr(unsigned int i);
const char *fabric_stat_key(unsigned int i);
unsigned int fabric_link_stat_count(void);
int fabric_link_stat_attr(unsigned int i);
const char *fabric_link_stat_key(unsigned int i);

#endif /* EDMCTL_OBJ_FABRIC_H */
