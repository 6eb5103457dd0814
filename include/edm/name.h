/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Object names: the rule shared by the kernel (netlink validation) and by
 * user space (edmctl checks a name before it sends it). A kernel-agnostic core.
 */
#ifndef _EDM_NAME_H
#define _EDM_NAME_H

#include "core.h"

/*
 * edm_name_valid() - is @name, of @len bytes (no NUL counted), a valid name?
 * @max: the largest length allowed, NUL not included.
 *
 * Valid names are 1 to @max characters of [A-Za-z0-9_.-] starting with a
 * letter or digit, so they are safe in file names, debugfs and shell scripts.
 */
bool edm_name_valid(const char *name, size_t len, size_t max);

#endif /* _EDM_NAME_H */
