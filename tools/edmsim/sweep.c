// SPDX-License-Identifier: GPL-2.0
/*
 * edmsim sweep: the runs behind the report, one CSV line each.
 *
 *   fig8a   all2all 64 B reads, writes and a 50/50 mix, loads 0.1..0.9
 *   fig8b   heavy-tailed sizes (-C CDF), half reads, loads 0.3..0.9
 *   incast  64 B all2all with half the load in bursts of 16 messages of
 *           4 KiB onto one victim, half reads, loads 0.2..0.6
 *   artifact  the EDM authors' regime: bursts of 2000 messages of 64 B
 *           (reads with 16 B requests) at their data loads, EDM and IRD
 *           each run two ways, as edmsim models them ("own") and with the
 *           authors' simulator's choices (--as-artifact), seeds 1..5
 *
 * Every fabric runs the same generated trace at a given workload and load.
 * With -j N the runs go to N forked workers; each sends its line back
 * through a pipe and the parent writes the file in run order, so the CSV
 * does not depend on -j. Wall times are the only nondeterministic column.
 */
#include <getopt.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

enum {
	SWEEP_LINE = 1024, SWEEP_MAX_RUNS = 1024, SWEEP_BURST = 4096,
	ART_MSGS = 2000, ART_RREQ = 16, ART_SEEDS = 5,
};

enum sweep_mode {
	MODE_OWN,
	MODE_ARTIFACT,
};

struct sweep_run {
	const char *set;
	const char *workload;
	u32 wl;			/* enum edmsim_workload */
	u32 fabric;
	double load;
	double reads;
	bool heavy;
	/* set "artifact" only */
	u32 mode;		/* enum sweep_mode */
	u64 seed;
	double label;		/* the authors' name for the load */
};

struct sweep {
	struct edmsim_opts *o;
	struct sweep_run run[SWEEP_MAX_RUNS];
	char *line[SWEEP_MAX_RUNS];
	u32 n;
	int fab;		/* -F: only this one, or -1 */
};

static const char csv_header[] =
	"set,workload,fabric,load,reads,msgs,seed,read_n,read_unloaded_ns,read_mean_ns,"
	"read_norm_mean,read_norm_p99,write_n,write_unloaded_ns,write_mean_ns,write_norm_mean,"
	"write_norm_p99,mct_mean,mct_p99,avg_fct_slots,avg_slowdown,util_max,incomplete,"
	"dup_bytes,below_unloaded,multi_sender,events,wall_s,mode,label,data_load,art_flows,"
	"art_done,art_avg_fct_slots,art_avg_slowdown,art_write,art_request,art_reply,"
	"read_delay_ns,write_delay_ns\n";

static double wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void add_runs(struct sweep *sw, const char *set, const char *workload, u32 wl,
		     double reads, bool heavy, const double *loads, u32 nloads)
{
	u32 l, f;

	for (l = 0; l < nloads; l++) {
		for (f = 0; f < edmsim_nr_fabrics; f++) {
			if ((sw->fab >= 0 && (u32)sw->fab != f) || sw->n == SWEEP_MAX_RUNS)
				continue;
			sw->run[sw->n++] = (struct sweep_run){
				.set = set, .workload = workload, .wl = wl, .fabric = f,
				.load = loads[l], .reads = reads, .heavy = heavy,
			};
		}
	}
}

/*
 * The authors' labels and the data loads their generator gives (pFabric's
 * formula with loads 3, 7, 12, 19, 21); mixes at "0.8" with 20, 50 and 80 %
 * writes.
 */
static void add_run(struct sweep *sw, const struct sweep_run *r)
{
	if (sw->n < SWEEP_MAX_RUNS)
		sw->run[sw->n++] = *r;
}

/* One seed of one model in one mode: reads and writes at every load, mixes. */
static void add_artifact_seed(struct sweep *sw, struct sweep_run *r)
{
	static const double label[] = { 0.2, 0.4, 0.6, 0.8, 0.9 };
	static const double data[] = { 0.13, 0.30, 0.51, 0.81, 0.90 };
	static const double mix[] = { 0.8, 0.5, 0.2 };
	u32 k, l;

	for (k = 0; k < 2; k++) {
		r->workload = k ? "read" : "write";
		r->reads = k;
		for (l = 0; l < ARRAY_SIZE(label); l++) {
			r->label = label[l];
			r->load = data[l];
			add_run(sw, r);
		}
	}
	r->workload = "mix";
	r->label = 0.8;
	r->load = 0.81;
	for (l = 0; l < ARRAY_SIZE(mix); l++) {
		r->reads = mix[l];
		add_run(sw, r);
	}
}

/*
 * The authors' labels and the data loads their generator gives (pFabric's
 * formula with loads 3, 7, 12, 19, 21); mixes at "0.8" with 20, 50 and 80 %
 * writes.
 */
static void add_artifact(struct sweep *sw)
{
	static const char *const fabs[] = { "edm", "ird" };
	struct sweep_run r = { .set = "artifact", .wl = EDMSIM_WL_ALL2ALL };
	u32 f, m, sd;
	int fab;

	for (f = 0; f < ARRAY_SIZE(fabs); f++) {
		fab = edmsim_fabric_find(fabs[f]);
		if (sw->fab >= 0 && sw->fab != fab)
			continue;
		r.fabric = fab;
		for (m = MODE_OWN; m <= MODE_ARTIFACT; m++) {
			r.mode = m;
			for (sd = 1; sd <= ART_SEEDS; sd++) {
				r.seed = sd;
				add_artifact_seed(sw, &r);
			}
		}
	}
}

static int plan(struct sweep *sw, const char *set)
{
	static const double a[] = { 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9 };
	static const double b[] = { 0.3, 0.5, 0.7, 0.9 };
	static const double c[] = { 0.2, 0.4, 0.6 };
	bool all = !strcmp(set, "all");

	if (all || !strcmp(set, "fig8a")) {
		add_runs(sw, "fig8a", "read", EDMSIM_WL_ALL2ALL, 1, false, a, 9);
		add_runs(sw, "fig8a", "write", EDMSIM_WL_ALL2ALL, 0, false, a, 9);
		add_runs(sw, "fig8a", "mix", EDMSIM_WL_ALL2ALL, 0.5, false, a, 9);
	}
	if (all || !strcmp(set, "fig8b")) {
		if (!sw->o->gen.cdf) {
			fprintf(stderr, "edmsim: sweep fig8b needs -C CDF (cdf/heavy.cdf)\n");
			return -EINVAL;
		}
		add_runs(sw, "fig8b", "heavy", EDMSIM_WL_ALL2ALL, 0.5, true, b, 4);
	}
	if (all || !strcmp(set, "incast"))
		add_runs(sw, "incast", "incast", EDMSIM_WL_INCAST, 0.5, false, c, 3);
	if (all || !strcmp(set, "artifact"))
		add_artifact(sw);
	if (!sw->n) {
		fprintf(stderr, "edmsim: sweep: unknown set \"%s\" (fig8a, fig8b, incast, artifact,"
			" all)\n",
			set);
		return -EINVAL;
	}
	return 0;
}

static int run_line(struct sweep *sw, const struct sweep_run *run, char *buf, size_t len)
{
	struct edmsim_gen g = sw->o->gen;
	struct edmsim_cfg cfg = sw->o->cfg;
	const struct edmsim_result *r;
	struct edmsim_result res;
	struct edmsim_trace t;
	struct edmsim_phy phy;
	int err;

	g.workload = run->wl;
	g.load = run->load;
	g.read_frac = run->reads;
	if (!run->heavy)
		g.cdf = NULL;
	if (run->wl == EDMSIM_WL_INCAST && !g.burst_size)
		g.burst_size = SWEEP_BURST;
	if (!strcmp(run->set, "artifact")) {
		g.msgs = ART_MSGS;
		g.rreq = ART_RREQ;
		g.size = EDMSIM_MSG_BYTES;
		g.cdf = NULL;
		g.data_load = true;
		g.seed = run->seed;
		if (run->mode == MODE_ARTIFACT) {
			cfg.bare_phy = true;
			cfg.sched_slots = true;
			cfg.ctrl_fifo = true;
			cfg.stop_at_start = true;
		}
	}
	cfg.fabric = run->fabric;
	cfg.progress = false;
	memset(&t, 0, sizeof(t));
	err = edmsim_phy_init(&phy, cfg.rate_mbps);
	if (!err)
		err = edmsim_gen(&g, &phy, &t);
	if (!err)
		err = edmsim_run(&cfg, &t, NULL, NULL, &res);
	edmsim_trace_free(&t);
	if (err)
		return err;
	r = &res;
	snprintf(buf, len, "%s,%s,%s,%.2f,%.2f,%u,%llu,%u,%.3f,%.3f,%.4f,%.4f,%u,%.3f,%.3f,%.4f,"
		 "%.4f,%.4f,%.4f,%.3f,%.4f,%.3f,%llu,%llu,%llu,%llu,%llu,%.3f,%s,%.2f,%.4f,%u,%u,"
		 "%.3f,%.4f,%.4f,%.4f,%.4f,%.3f,%.3f\n",
		 run->set, run->workload, edmsim_fabrics[run->fabric]->name, run->load, run->reads,
		 g.msgs, (unsigned long long)g.seed,
		 r->n[EDMSIM_C_READ], r->unloaded_ns[EDMSIM_C_READ], r->mean_ns[EDMSIM_C_READ],
		 r->norm_mean[EDMSIM_C_READ], r->norm_p99[EDMSIM_C_READ],
		 r->n[EDMSIM_C_WRITE], r->unloaded_ns[EDMSIM_C_WRITE], r->mean_ns[EDMSIM_C_WRITE],
		 r->norm_mean[EDMSIM_C_WRITE], r->norm_p99[EDMSIM_C_WRITE],
		 r->mct_mean, r->mct_p99, r->fct_slots, r->slowdown, r->util,
		 (unsigned long long)r->check.incomplete, (unsigned long long)r->check.dup_bytes,
		 (unsigned long long)r->check.below_unloaded,
		 (unsigned long long)r->check.multi_sender, (unsigned long long)r->events,
		 r->wall_s, run->mode == MODE_ARTIFACT ? "as-artifact" : "own", run->label,
		 r->data_load, r->art_flows, r->art_done, r->art_fct_slots, r->art_slowdown,
		 r->art_kind_slowdown[EDMSIM_ART_WRITE], r->art_kind_slowdown[EDMSIM_ART_REQUEST],
		 r->art_kind_slowdown[EDMSIM_ART_REPLY], r->art_delay_ns[EDMSIM_C_READ],
		 r->art_delay_ns[EDMSIM_C_WRITE]);
	return 0;
}

static void progress(const struct sweep *sw, u32 i, u32 done, double t)
{
	const struct sweep_run *run = &sw->run[i];

	if (sw->o->quiet)
		return;
	fprintf(stderr, "[%u/%u] %s %s load %.1f %s: %.1f s\n", done, sw->n, run->set,
		run->workload, run->load, edmsim_fabrics[run->fabric]->name, t);
}

/* Run i in a child that writes its line to fd; returns the child's pid. */
static pid_t spawn(struct sweep *sw, u32 i, int *fd)
{
	char buf[SWEEP_LINE];
	int p[2];
	pid_t pid;

	if (pipe(p))
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (!pid) {
		close(p[0]);
		if (run_line(sw, &sw->run[i], buf, sizeof(buf)))
			_exit(1);
		_exit(write(p[1], buf, strlen(buf)) == (ssize_t)strlen(buf) ? 0 : 1);
	}
	close(p[1]);
	*fd = p[0];
	return pid;
}

static int collect(struct sweep *sw, u32 i, int fd, int status)
{
	char buf[SWEEP_LINE];
	ssize_t n = read(fd, buf, sizeof(buf) - 1);

	close(fd);
	if (!WIFEXITED(status) || WEXITSTATUS(status) || n <= 0) {
		fprintf(stderr, "edmsim: sweep run %u (%s %s %.1f %s) failed\n", i,
			sw->run[i].set, sw->run[i].workload, sw->run[i].load,
			edmsim_fabrics[sw->run[i].fabric]->name);
		return -EIO;
	}
	buf[n] = '\0';
	sw->line[i] = strdup(buf);
	return sw->line[i] ? 0 : -ENOMEM;
}

static int run_all(struct sweep *sw, u32 jobs)
{
	pid_t pid[SWEEP_MAX_RUNS];
	int fd[SWEEP_MAX_RUNS], status, err = 0;
	double t0[SWEEP_MAX_RUNS];
	u32 next = 0, running = 0, done = 0, i;
	pid_t w;

	while (done < sw->n) {
		while (!err && running < jobs && next < sw->n) {
			t0[next] = wall_now();
			pid[next] = spawn(sw, next, &fd[next]);
			if (pid[next] < 0) {
				err = -errno;
				break;
			}
			next++;
			running++;
		}
		if (!running)
			break;
		w = wait(&status);
		for (i = 0; i < next && pid[i] != w; i++)
			;
		if (i == next)
			continue;
		pid[i] = 0;
		running--;
		done++;
		if (collect(sw, i, fd[i], status))
			err = -EIO;
		else
			progress(sw, i, done, wall_now() - t0[i]);
	}
	return err;
}

static int write_csvs(struct sweep *sw, const char *dir)
{
	static const char *const sets[] = { "fig8a", "fig8b", "incast", "artifact" };
	char path[4096];
	FILE *f;
	u32 s, i;

	if (mkdir(dir, 0777) && errno != EEXIST) {
		fprintf(stderr, "edmsim: %s: cannot create\n", dir);
		return -EIO;
	}
	for (s = 0; s < ARRAY_SIZE(sets); s++) {
		for (i = 0; i < sw->n && strcmp(sw->run[i].set, sets[s]); i++)
			;
		if (i == sw->n)
			continue;
		snprintf(path, sizeof(path), "%s/%s.csv", dir, sets[s]);
		f = fopen(path, "w");
		if (!f) {
			fprintf(stderr, "edmsim: %s: cannot create\n", path);
			return -EIO;
		}
		fputs(csv_header, f);
		for (i = 0; i < sw->n; i++)
			if (!strcmp(sw->run[i].set, sets[s]))
				fputs(sw->line[i], f);
		if (fclose(f))
			return -EIO;
		printf("wrote %s\n", path);
	}
	return 0;
}

int edmsim_sweep_main(int argc, char **argv)
{
	struct edmsim_opts o;
	struct sweep *sw;
	double t0 = wall_now();
	int err;
	u32 i;

	if (edmsim_opts_parse(&o, argc, argv) || optind != argc - 1) {
		fprintf(stderr, "usage: edmsim sweep SET [OPTIONS], SET one of %s\n",
			"fig8a fig8b incast artifact all");
		edmsim_opts_free(&o);
		return 1;
	}
	sw = edmsim_zalloc(1, sizeof(*sw));
	sw->o = &o;
	sw->fab = o.fabric && strcmp(o.fabric, "all") ? edmsim_fabric_find(o.fabric) : -1;
	err = plan(sw, argv[optind]);
	if (!err)
		err = run_all(sw, o.jobs);
	if (!err)
		err = write_csvs(sw, o.out ? o.out : ".");
	if (!err)
		printf("sweep %s: %u runs, %u jobs, %.1f s wall\n", argv[optind], sw->n, o.jobs,
		       wall_now() - t0);
	for (i = 0; i < sw->n; i++)
		free(sw->line[i]);
	free(sw);
	edmsim_opts_free(&o);
	return err ? 1 : 0;
}
