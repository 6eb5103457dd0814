// SPDX-License-Identifier: GPL-2.0
/*
 * edmsim's entry point: a table of subcommands. A command line that names
 * none is a run (edmsim -f trace.csv, or a generated workload).
 */
#include <string.h>

#include "edmsim.h"
#include "cli.h"

static const struct {
	const char *name;
	int (*main)(int argc, char **argv);
} cmds[] = {
	{ "run",	edmsim_run_main },
	{ "gen",	edmsim_gen_main },
	{ "sweep",	edmsim_sweep_main },
	{ "bench",	edmsim_bench_main },
	{ "fabrics",	edmsim_fabrics_main },
	{ "help",	edmsim_help_main },
};

int main(int argc, char **argv)
{
	u32 i;

	if (argc > 1 && argv[1][0] != '-') {
		for (i = 0; i < ARRAY_SIZE(cmds); i++)
			if (!strcmp(argv[1], cmds[i].name))
				return cmds[i].main(argc - 1, argv + 1);
		fprintf(stderr, "edmsim: command \"%s\" not found; try \"edmsim help\"\n",
			argv[1]);
		return 1;
	}
	return edmsim_run_main(argc, argv);
}
