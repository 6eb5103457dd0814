// SPDX-License-Identifier: GPL-2.0
/*
 * The run, gen, fabrics and help commands, and the option set they share
 * with sweep. Options are checked as they are read; a bad value names
 * itself and the command exits 1 before anything runs.
 */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>

#include "cli.h"

enum {
	OPT_ETH_BUF = 256,
	OPT_RTO,
	OPT_XOFF,
	OPT_XON,
	OPT_CREDITS,
	OPT_CXL_SWITCH,
	OPT_HORIZON,
	OPT_SHARE,
	OPT_NO_PROGRESS,
	OPT_BURST,
	OPT_ORDER,
	OPT_BARE,
	OPT_SLOTS,
	OPT_FIFO,
	OPT_STOP,
	OPT_AS_ARTIFACT,
	OPT_DATA_LOAD,
	OPT_EPOCH,
};

static const struct option long_opts[] = {
	{ "fabric",		required_argument,	NULL, 'F' },
	{ "trace",		required_argument,	NULL, 'f' },
	{ "nodes",		required_argument,	NULL, 'n' },
	{ "rate",		required_argument,	NULL, 'b' },
	{ "chunk",		required_argument,	NULL, 'c' },
	{ "x",			required_argument,	NULL, 'x' },
	{ "policy",		required_argument,	NULL, 'p' },
	{ "charge-iters",	no_argument,		NULL, 'I' },
	{ "seed",		required_argument,	NULL, 's' },
	{ "load",		required_argument,	NULL, 'l' },
	{ "reads",		required_argument,	NULL, 'r' },
	{ "msgs",		required_argument,	NULL, 'm' },
	{ "size",		required_argument,	NULL, 'S' },
	{ "rreq",		required_argument,	NULL, 'q' },
	{ "workload",		required_argument,	NULL, 'w' },
	{ "cdf",		required_argument,	NULL, 'C' },
	{ "fanin",		required_argument,	NULL, 'k' },
	{ "out",		required_argument,	NULL, 'o' },
	{ "jobs",		required_argument,	NULL, 'j' },
	{ "quiet",		no_argument,		NULL, 'Q' },
	{ "help",		no_argument,		NULL, 'h' },
	{ "incast-share",	required_argument,	NULL, OPT_SHARE },
	{ "incast-bytes",	required_argument,	NULL, OPT_BURST },
	{ "eth-buf",		required_argument,	NULL, OPT_ETH_BUF },
	{ "rto-ns",		required_argument,	NULL, OPT_RTO },
	{ "pfc-xoff",		required_argument,	NULL, OPT_XOFF },
	{ "pfc-xon",		required_argument,	NULL, OPT_XON },
	{ "cxl-credits",	required_argument,	NULL, OPT_CREDITS },
	{ "cxl-switch-ns",	required_argument,	NULL, OPT_CXL_SWITCH },
	{ "horizon-us",		required_argument,	NULL, OPT_HORIZON },
	{ "no-progress",	no_argument,		NULL, OPT_NO_PROGRESS },
	{ "dump",		required_argument,	NULL, 'd' },
	{ "trace-order",	required_argument,	NULL, OPT_ORDER },
	{ "bare-phy",		no_argument,		NULL, OPT_BARE },
	{ "sched-slots",	no_argument,		NULL, OPT_SLOTS },
	{ "ctrl-fifo",		no_argument,		NULL, OPT_FIFO },
	{ "stop-at-last-start",	no_argument,		NULL, OPT_STOP },
	{ "as-artifact",	no_argument,		NULL, OPT_AS_ARTIFACT },
	{ "data-load",		no_argument,		NULL, OPT_DATA_LOAD },
	{ "sched-epoch-ps",	required_argument,	NULL, OPT_EPOCH },
	{ NULL, 0, NULL, 0 },
};

void edmsim_usage(FILE *f)
{
	fprintf(f,
"usage: edmsim [run] [OPTIONS]             one run: -f TRACE, or a generated workload\n"
"       edmsim gen [OPTIONS] [-o FILE]     write a trace in the EDM authors' format\n"
"       edmsim sweep {fig8a|fig8b|incast|artifact|all} [-o DIR] [-j JOBS] [-m MSGS]\n"
"       edmsim bench                       events per second, cost of one matching\n"
"       edmsim fabrics                     the models and what each stands for\n"
"\n"
"fabric:   -F, --fabric NAME     edm edm-fcfs eth pfc cxl fastpass ird, or all (edm)\n"
"          -n, --nodes N         hosts on the switch (144)\n"
"          -b, --rate GBPS       link rate (100)\n"
"          -c, --chunk BYTES     EDM grant and IRD credit size (256)\n"
"          -x, --x X             EDM active notifications per pair (3)\n"
"          -p, --policy P        srpt or fcfs (srpt)\n"
"          -I, --charge-iters    every PIM iteration on the grant's critical path\n"
"              --eth-buf BYTES   eth/pfc egress buffer per port (65536; pfc: unlimited)\n"
"              --rto-ns NS       eth retransmission timeout (10000)\n"
"              --pfc-xoff BYTES  pfc pause threshold per ingress port (16384)\n"
"              --pfc-xon BYTES   pfc resume threshold (14336)\n"
"              --cxl-credits B   cxl ingress buffer per port (4096)\n"
"              --cxl-switch-ns N cxl switch traversal (100)\n"
"              --horizon-us US   stop this long after the last arrival (2000)\n"
"the EDM authors' simulator's choices, one at a time (README, \"Like for like\"):\n"
"              --bare-phy        no PHY or switch pipeline, propagation and blocks only\n"
"              --sched-slots     edm: the scheduler runs on 8-byte timeslot boundaries\n"
"              --ctrl-fifo       edm: control blocks queue behind data, no preemption\n"
"              --stop-at-last-start  end when the last message starts; drop open ones\n"
"              --as-artifact     all four\n"
"              --sched-epoch-ps PS  edm: the scheduler runs only at multiples of PS\n"
"workload: -f, --trace FILE      run this trace (- for stdin) instead\n"
"              --trace-order O   artifact: a read is request,reply bytes; edmsim:\n"
"                                reply,request (edmsim's order until 2026-11) (artifact)\n"
"          -w, --workload W      all2all or incast (all2all)\n"
"          -l, --load L          offered load, 0 < L <= 1 (0.5)\n"
"              --data-load       -l counts data bytes only (the authors' load)\n"
"          -r, --reads F         fraction of reads (1)\n"
"          -m, --msgs N          messages (100000)\n"
"          -S, --size BYTES      message size (64)\n"
"          -q, --rreq BYTES      read request size (8)\n"
"          -C, --cdf FILE        message sizes from a CDF file instead of -S\n"
"          -k, --fanin N         incast senders per burst (16)\n"
"              --incast-share F  share of the load in incast bursts (0.5)\n"
"              --incast-bytes B  size of an incast message (as -S)\n"
"          -s, --seed N          (1)\n"
"output:   -o, --out PATH        gen: trace file; sweep: directory\n"
"          -d, --dump FILE       run: one CSV line of results per flow\n"
"          -j, --jobs N          sweep: runs in parallel (1)\n"
"          -Q, --quiet           sweep: no progress lines\n"
"              --no-progress     run: no progress line\n");
}

static int bad(const char *opt, const char *arg, const char *why)
{
	fprintf(stderr, "edmsim: %s %s: %s\n", opt, arg, why);
	return -EINVAL;
}

static int parse_u64(const char *opt, const char *arg, u64 min, u64 max, u64 *v)
{
	char *end;
	unsigned long long x = strtoull(arg, &end, 0);

	if (end == arg || *end || x < min || x > max || arg[0] == '-')
		return bad(opt, arg, "out of range");
	*v = x;
	return 0;
}

static int parse_u32(const char *opt, const char *arg, u32 min, u32 max, u32 *v)
{
	u64 x;
	int err = parse_u64(opt, arg, min, max, &x);

	if (!err)
		*v = x;
	return err;
}

static int parse_frac(const char *opt, const char *arg, double min, double max, double *v)
{
	char *end;
	double x = strtod(arg, &end);

	if (end == arg || *end || !(x >= min && x <= max))
		return bad(opt, arg, "out of range");
	*v = x;
	return 0;
}

static int parse_rate(const char *arg, u32 *mbps)
{
	double gbps;
	int err = parse_frac("-b", arg, 1, 1600, &gbps);

	if (err)
		return err;
	*mbps = (u32)lround(gbps * 1000);
	if (EDM_SCHED_PS_PER_MBYTE % *mbps || EDM_TIMING_PS_PER_BLOCK_MBPS % *mbps)
		return bad("-b", arg, "a byte and a block must last whole picoseconds");
	return 0;
}

static int parse_named(const char *opt, const char *arg, const char *const *names, u32 n,
		       u32 *v)
{
	u32 i;

	for (i = 0; i < n; i++) {
		if (!strcmp(arg, names[i])) {
			*v = i;
			return 0;
		}
	}
	return bad(opt, arg, "unknown value");
}

static int parse_one(struct edmsim_opts *o, int c, const char *arg)
{
	static const char *const policies[] = { "srpt", "fcfs" };
	static const char *const workloads[] = { "all2all", "incast" };
	static const char *const orders[] = { "artifact", "edmsim" };
	struct edmsim_cfg *cfg = &o->cfg;
	struct edmsim_gen *g = &o->gen;
	u64 v;
	int err;

	switch (c) {
	case 'F':
		o->fabric = arg;
		return 0;
	case 'f':
		o->trace = arg;
		return 0;
	case 'o':
		o->out = arg;
		return 0;
	case 'd':
		o->cfg.dump = arg;
		return 0;
	case 'Q':
		o->quiet = true;
		return 0;
	case 'I':
		cfg->charge_iters = true;
		return 0;
	case OPT_NO_PROGRESS:
		cfg->progress = false;
		return 0;
	case 'n':
		err = parse_u32("-n", arg, 2, EDM_SCHED_MAX_PORTS, &cfg->nodes);
		g->nodes = cfg->nodes;
		o->nodes_set = true;
		return err;
	case 'b':
		return parse_rate(arg, &cfg->rate_mbps);
	case 'c':
		return parse_u32("-c", arg, 8, EDM_SCHED_MAX_CHUNK, &cfg->chunk);
	case 'x':
		return parse_u32("-x", arg, 1, EDM_SCHED_MAX_X, &cfg->x);
	case 'p':
		return parse_named("-p", arg, policies, 2, &cfg->policy);
	case 's':
		return parse_u64("-s", arg, 0, ~0ULL, &g->seed);
	case 'l':
		return parse_frac("-l", arg, 1e-6, 1, &g->load);
	case 'r':
		return parse_frac("-r", arg, 0, 1, &g->read_frac);
	case 'm':
		return parse_u32("-m", arg, 1, 50000000, &g->msgs);
	case 'S':
		return parse_u32("-S", arg, 1, 1 << 30, &g->size);
	case 'q':
		return parse_u32("-q", arg, 1, EDM_SCHED_MAX_CHUNK, &g->rreq);
	case 'w':
		return parse_named("-w", arg, workloads, EDMSIM_NR_WL, &g->workload);
	case 'k':
		return parse_u32("-k", arg, 1, EDM_SCHED_MAX_PORTS - 1, &g->fanin);
	case 'j':
		return parse_u32("-j", arg, 1, 64, &o->jobs);
	case 'C':
		edmsim_cdf_free(&o->cdf);
		err = edmsim_cdf_load(&o->cdf, arg);
		g->cdf = err ? NULL : &o->cdf;
		return err;
	case OPT_SHARE:
		return parse_frac("--incast-share", arg, 1e-6, 1, &g->incast_share);
	case OPT_BURST:
		return parse_u32("--incast-bytes", arg, 1, 1 << 30, &g->burst_size);
	case OPT_ETH_BUF:
		return parse_u32("--eth-buf", arg, 2048, 1 << 30, &cfg->eth_buf);
	case OPT_XOFF:
		return parse_u32("--pfc-xoff", arg, 1, 1 << 30, &cfg->pfc_xoff);
	case OPT_XON:
		return parse_u32("--pfc-xon", arg, 0, 1 << 30, &cfg->pfc_xon);
	case OPT_CREDITS:
		return parse_u32("--cxl-credits", arg, 256, 1 << 30, &cfg->cxl_credits);
	case OPT_RTO:
		err = parse_u64("--rto-ns", arg, 100, 1000000000, &v);
		cfg->eth_rto_ps = v * 1000;
		return err;
	case OPT_CXL_SWITCH:
		err = parse_u64("--cxl-switch-ns", arg, 0, 100000, &v);
		cfg->cxl_switch_ps = v * 1000;
		return err;
	case OPT_HORIZON:
		err = parse_u64("--horizon-us", arg, 1, 1000000000, &v);
		cfg->horizon_ps = v * 1000000;
		return err;
	case OPT_ORDER:
		return parse_named("--trace-order", arg, orders, EDMSIM_NR_ORDERS, &o->order);
	case OPT_BARE:
		cfg->bare_phy = true;
		return 0;
	case OPT_SLOTS:
		cfg->sched_slots = true;
		return 0;
	case OPT_FIFO:
		cfg->ctrl_fifo = true;
		return 0;
	case OPT_STOP:
		cfg->stop_at_start = true;
		return 0;
	case OPT_EPOCH:
		return parse_u64("--sched-epoch-ps", arg, 1, 1000000000, &cfg->sched_epoch_ps);
	case OPT_DATA_LOAD:
		g->data_load = true;
		return 0;
	case OPT_AS_ARTIFACT:
		cfg->bare_phy = true;
		cfg->sched_slots = true;
		cfg->ctrl_fifo = true;
		cfg->stop_at_start = true;
		return 0;
	case 'h':
		edmsim_usage(stdout);
		exit(0);
	default:
		edmsim_usage(stderr);
		return -EINVAL;
	}
}

int edmsim_opts_parse(struct edmsim_opts *o, int argc, char **argv)
{
	int c, err;

	memset(o, 0, sizeof(*o));
	edmsim_cfg_default(&o->cfg);
	edmsim_gen_default(&o->gen);
	o->cfg.progress = true;
	o->jobs = 1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "F:f:n:b:c:x:p:Is:l:r:m:S:q:w:C:k:o:d:j:Qh", long_opts,
				NULL)) != -1) {
		err = parse_one(o, c, optarg);
		if (err)
			return err;
	}
	if (o->cfg.pfc_xon >= o->cfg.pfc_xoff)
		return bad("--pfc-xon", "", "must be below --pfc-xoff");
	if (o->fabric && strcmp(o->fabric, "all") && edmsim_fabric_find(o->fabric) < 0)
		return bad("-F", o->fabric, "unknown fabric; see edmsim fabrics");
	return 0;
}

void edmsim_opts_free(struct edmsim_opts *o)
{
	edmsim_cdf_free(&o->cdf);
}

/* The trace to run: -f, or the generated workload. */
int edmsim_opts_trace(struct edmsim_opts *o, struct edmsim_trace *t)
{
	struct edmsim_phy phy;
	int err;

	memset(t, 0, sizeof(*t));
	err = edmsim_phy_init(&phy, o->cfg.rate_mbps);
	if (err)
		return err;
	if (o->trace)
		return edmsim_trace_read(t, o->trace, phy.blk_ps, o->order);
	err = edmsim_gen(&o->gen, &phy, t);
	if (err)
		fprintf(stderr, "edmsim: bad workload (nodes, load, sizes or fanin)\n");
	return err;
}

static int run_fabric(struct edmsim_opts *o, struct edmsim_trace *t, u32 fab)
{
	struct edmsim_result r;
	struct edmsim_cfg cfg = o->cfg;
	int err;

	cfg.fabric = fab;
	if (o->trace)
		printf("== fabric=%s trace=%s flows=%u nodes=%u\n", edmsim_fabrics[fab]->name,
		       o->trace, t->n, cfg.nodes);
	else
		printf("== fabric=%s workload=%s load=%.2f reads=%.2f msgs=%u nodes=%u seed=%llu\n",
		       edmsim_fabrics[fab]->name, o->gen.workload ? "incast" : "all2all",
		       o->gen.load, o->gen.read_frac, t->n, cfg.nodes,
		       (unsigned long long)o->gen.seed);
	err = edmsim_run(&cfg, t, edmsim_fabrics[fab]->name, stdout, &r);
	if (err) {
		fprintf(stderr, "edmsim: %s: cannot run (%d)\n", edmsim_fabrics[fab]->name, err);
		return 2;
	}
	fflush(stdout);
	return r.check.dup_bytes || r.check.below_unloaded || r.check.multi_sender ? 3 : 0;
}

int edmsim_run_main(int argc, char **argv)
{
	struct edmsim_opts o;
	struct edmsim_trace t;
	int rc = 0, fab, err;
	u32 i;

	if (edmsim_opts_parse(&o, argc, argv) || optind != argc) {
		edmsim_opts_free(&o);
		return 1;
	}
	err = edmsim_opts_trace(&o, &t);
	if (err)
		goto out;
	if (o.trace && (!o.nodes_set || o.cfg.nodes < t.nodes))
		o.cfg.nodes = t.nodes;
	fab = !o.fabric ? 0 : strcmp(o.fabric, "all") ? edmsim_fabric_find(o.fabric) : -1;
	for (i = 0; i < edmsim_nr_fabrics; i++) {
		if (fab >= 0 && (u32)fab != i)
			continue;
		err = run_fabric(&o, &t, i);
		if (err > rc)
			rc = err;
	}
out:
	edmsim_trace_free(&t);
	edmsim_opts_free(&o);
	return err < 0 ? 1 : rc;
}

int edmsim_gen_main(int argc, char **argv)
{
	struct edmsim_opts o;
	struct edmsim_trace t;
	struct edmsim_phy phy;
	FILE *f = stdout;
	int err;

	if (edmsim_opts_parse(&o, argc, argv) || optind != argc || o.trace) {
		edmsim_opts_free(&o);
		return 1;
	}
	err = edmsim_opts_trace(&o, &t);
	if (!err && o.out) {
		f = fopen(o.out, "w");
		if (!f) {
			fprintf(stderr, "edmsim: %s: cannot create\n", o.out);
			err = -EIO;
			f = stdout;
		}
	}
	if (!err) {
		edmsim_phy_init(&phy, o.cfg.rate_mbps);
		err = edmsim_trace_write(&t, f, phy.blk_ps, o.order);
		if (f != stdout && fclose(f))
			err = -EIO;
	}
	edmsim_trace_free(&t);
	edmsim_opts_free(&o);
	return err ? 1 : 0;
}

int edmsim_fabrics_main(int argc, char **argv)
{
	u32 i;

	for (i = 0; i < edmsim_nr_fabrics; i++)
		printf("%-9s %s\n", edmsim_fabrics[i]->name, edmsim_fabrics[i]->stands_for);
	return 0;
}

int edmsim_help_main(int argc, char **argv)
{
	edmsim_usage(stdout);
	return 0;
}
