/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * edmctl: shared pool events (SHPOOL_REAP, SHPOOL_EXPORT_DOWN), printed by
 * "monitor" and the unit tests.
 */
#ifndef EDMCTL_OBJ_SHPOOL_H
#define EDMCTL_OBJ_SHPOOL_H

#include "nl.h"

/*
 * One text line into the current JSON object: "1: name cb0 slot 1 state
 * free epoch 1 host vm0 reaped 1 self" for a reap, "1: name cb0 index 0
 * instance 3 region 2 target 1 down revoked" for an export that stopped.
 * -1 if malformed.
 */
int shpool_print_event(struct nlmsghdr *nlh);

#endif /* EDMCTL_OBJ_SHPOOL_H */
