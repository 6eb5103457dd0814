/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The command line of edmsim's run and gen commands: one option set that
 * fills a run configuration and a workload, shared with sweep.
 */
#ifndef _EDMSIM_CLI_H
#define _EDMSIM_CLI_H

#include "edmsim.h"

struct edmsim_opts {
	struct edmsim_cfg cfg;
	struct edmsim_gen gen;
	struct edmsim_cdf cdf;
	const char *trace;	/* -f: run this trace instead of generating */
	const char *out;	/* gen -o, sweep -o */
	const char *fabric;	/* -F: a name, or "all"; NULL: run edm, sweep all */
	u32 jobs;		/* sweep -j */
	u32 order;		/* --trace-order: enum edmsim_trace_order */
	bool nodes_set;		/* -n given: a trace does not choose */
	bool quiet;
};

int edmsim_opts_parse(struct edmsim_opts *o, int argc, char **argv);
void edmsim_opts_free(struct edmsim_opts *o);
int edmsim_opts_trace(struct edmsim_opts *o, struct edmsim_trace *t);
void edmsim_usage(FILE *f);

int edmsim_run_main(int argc, char **argv);
int edmsim_gen_main(int argc, char **argv);
int edmsim_fabrics_main(int argc, char **argv);
int edmsim_help_main(int argc, char **argv);

#endif /* _EDMSIM_CLI_H */
