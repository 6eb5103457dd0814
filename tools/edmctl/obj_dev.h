/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * edmctl: device messages, shared by "dev" and "monitor".
 */
#ifndef EDMCTL_OBJ_DEV_H
#define EDMCTL_OBJ_DEV_H

#include <stdbool.h>
#include <stdint.h>

#include "nl.h"

struct edm_dev {
	bool has_id, has_type;
	uint32_t id;
	uint32_t type;		/* enum edm_dev_type */
	const char *name;	/* points into the message, NULL if absent */
};

/* Fill d from an EDM_A_DEV_* message. -1 if the message is malformed. */
int dev_parse(struct nlmsghdr *nlh, struct edm_dev *d);
/*
 * Print d's fields into the current JSON object (the caller opens and
 * closes it); text: "1: name dev0 type null", no newline.
 */
void dev_print(const struct edm_dev *d);
/* dev_parse() + dev_print(); for tables of message printers. */
int dev_print_msg(struct nlmsghdr *nlh);

#endif /* EDMCTL_OBJ_DEV_H */
