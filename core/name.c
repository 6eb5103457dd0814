// SPDX-License-Identifier: GPL-2.0
/*
 * Object name validation, a kernel-agnostic core (see include/edm/core.h).
 * Pure function, no state, no locking.
 */
#include "edm/name.h"

static bool edm_name_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

bool edm_name_valid(const char *name, size_t len, size_t max)
{
	size_t i;

	if (!len || len > max || !edm_name_alnum(name[0]))
		return false;
	for (i = 1; i < len; i++) {
		char c = name[i];

		if (!edm_name_alnum(c) && c != '_' && c != '.' && c != '-')
			return false;
	}
	return true;
}
