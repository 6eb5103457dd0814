// SPDX-License-Identifier: GPL-2.0-only
/*
 * edmctl: the counters' printer (stats.h).
 */
#include <inttypes.h>
#include <string.h>

#include "nl.h"
#include "print.h"
#include "stats.h"

void print_stat_nest(struct nlattr *nest, const struct edm_stat *table, unsigned int n)
{
	struct nlattr *tb[EDM_STAT_TB_MAX + 1];
	const char *group = NULL;
	unsigned int i;
	bool space;
	uint64_t v;

	if (!nest || nla_parse_nested(tb, EDM_STAT_TB_MAX, nest, NULL))
		return;
	open_json_object("stats");
	for (i = 0; i < n; i++) {
		const struct edm_stat *st = &table[i];

		if (st->attr > EDM_STAT_TB_MAX || !edm_nl_get_u64(tb[st->attr], &v))
			continue;
		space = true;
		if (!group || strcmp(group, st->group)) {
			/* A new text line: "    ops reads 1", "    down-events 0". */
			print_string(PRINT_FP, NULL, "\n    %s", st->group);
			space = *st->group;
			group = st->group;
		}
		print_string(PRINT_FP, NULL, space ? " %s" : "%s", st->word);
		print_u64(PRINT_ANY, st->key, " %" PRIu64, v);
	}
	close_json_object();
}
