// SPDX-License-Identifier: GPL-2.0
/*
 * Cowbird's offload engine: kthreads that find and execute the requests of
 * every instance (Cowbird 5.2 to 5.4), standing for the paper's spot-VM
 * engine. Each thread, optionally pinned to one CPU, takes the instances
 * round robin and serves each ring of one as tools/lib/cowbird/standin.c
 * does: fetch (ring core), let the congestion-control core gate each op,
 * execute it by copying between the region and the ring's data buffers at
 * the offsets the core checked, account it, publish completions every
 * `batch` of them and when the ring's pass ends.
 *
 * Probing: a thread keeps probing while passes find work; after
 * cowbird_idle_spins empty picks in a row it sleeps, from 2 us doubling to
 * cowbird_probe_max_us; the first work found resets both. With no instance
 * at all the threads wait on cowbird_eng.wq.
 *
 * Locking: cowbird_eng.lock (a mutex) protects the list of instances and
 * its count; a thread holds it only to pick the next instance and take a
 * reference. It then serves the instance under inst->serve_lock, trylocked,
 * so one thread at a time touches an instance's rings and CC state (another
 * thread that finds it taken moves on). Order: cowbird_eng.lock, then
 * serve_lock (the debugfs reader); the engine threads never hold both.
 */
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/timekeeping.h>
#include <linux/wait.h>

#include "edm/cowbird.h"
#include "edm/edm.h"
#include "edm/fabric.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

enum {
	COWBIRD_THREADS_MAX	= 8,
	COWBIRD_SLEEP_MIN_US	= 2,
	COWBIRD_RESCHED_OPS	= 64,	/* cond_resched() this often within a pass */
};

static int cowbird_cpu = -1;
module_param(cowbird_cpu, int, 0444);
MODULE_PARM_DESC(cowbird_cpu, "CPU the Cowbird engine threads are pinned to (-1: none)");

static uint cowbird_threads = 1;
module_param(cowbird_threads, uint, 0444);
MODULE_PARM_DESC(cowbird_threads, "Cowbird engine threads (1..8)");

static uint cowbird_batch = COWBIRD_BATCH_DEFAULT;
module_param(cowbird_batch, uint, 0644);
MODULE_PARM_DESC(cowbird_batch, "completions per book update (BATCH_SIZE) of new instances");

static uint cowbird_probe_max_us = 1000;
module_param(cowbird_probe_max_us, uint, 0644);
MODULE_PARM_DESC(cowbird_probe_max_us, "longest sleep between probes of idle rings, us");

static uint cowbird_idle_spins = 64;
module_param(cowbird_idle_spins, uint, 0644);
MODULE_PARM_DESC(cowbird_idle_spins, "empty probes in a row before sleeping");

struct cowbird_eng_stats {
	atomic64_t picks;		/* instances taken to serve */
	atomic64_t busy_skips;		/* taken by another thread */
	atomic64_t sleeps;
	atomic64_t created;
	atomic64_t destroyed;
};

static struct {
	struct mutex lock;		/* protects insts and ninsts */
	struct list_head insts;
	u32 ninsts;
	wait_queue_head_t wq;		/* threads waiting for an instance */
	struct task_struct *threads[COWBIRD_THREADS_MAX];
	u32 nthreads;
	struct cowbird_eng_stats stats;
} cowbird_eng;

u32 cowbird_engine_batch(void)
{
	u32 b = READ_ONCE(cowbird_batch);

	return clamp_t(u32, b, 1, COWBIRD_BATCH_MAX);
}

/* ---- executing ops ---- */

static u16 cowbird_status_of(int err)
{
	switch (err) {
	case 0:
		return COWBIRD_ST_OK;
	case -EACCES:
		return COWBIRD_ST_EACCES;
	default:
		return COWBIRD_ST_EFAULT;
	}
}

/* Copies one op's bytes; the ring core checked both ranges. */
static u16 cowbird_op_exec(struct cowbird_inst *inst, struct cowbird_eng_ring *er,
			   const struct cowbird_op *op)
{
	bool write = op->rw_type == COWBIRD_RW_WRITE;
	u8 *buf = write ? er->req : er->resp;
	u32 size = inst->lay.data_size;

	/* Belt and braces: the core computed buf_off, never trust a bug there. */
	if (op->buf_off > size || op->length > size - op->buf_off)
		return COWBIRD_ST_EFAULT;
	if (inst->preg)
		return cowbird_status_of(edm_pool_region_io(inst->preg, inst->region_key,
							    op->region_off, buf + op->buf_off,
							    op->length, write));
	return cowbird_status_of(edm_fab_host_region_io(inst->host, inst->region_key,
							op->region_off, buf + op->buf_off,
							op->length, write));
}

void cowbird_engine_account(struct cowbird_inst *inst, const struct cowbird_op *op, u16 st)
{
	struct cowbird_inst_stats *s = &inst->stats;

	trace_edm_cowbird_op_done(inst->id, op->rw_type == COWBIRD_RW_WRITE, op->region_off,
				  op->length, st, inst->rmt);
	if (st != COWBIRD_ST_OK) {
		s->op_errors++;
	} else if (op->rw_type == COWBIRD_RW_READ) {
		s->rd_ops++;
		s->rd_bytes += op->length;
	} else {
		s->wr_ops++;
		s->wr_bytes += op->length;
	}
}

/* One pass over one ring; returns a measure of the work found (0: idle). */
static u32 cowbird_ring_pass(struct cowbird_inst *inst, struct cowbird_eng_ring *er)
{
	struct cowbird_ring *r = &er->r;
	struct cowbird_cc *cc = inst->cc;
	u64 now = ktime_get_ns();
	struct cowbird_op op;
	u32 n = 0, dirs;
	int got;

	got = cowbird_ring_fetch(r, r->entries, now);
	if (got)
		trace_edm_cowbird_fetch(inst->id, er - inst->rings, got);
	if (got < 0)
		return 0;	/* stopped: book.error tells user space */
	while ((dirs = cowbird_cc_dirs(cc, now)) && cowbird_ring_next_op_dirs(r, now, dirs, &op)) {
		const struct cowbird_req *req = &r->reqs[op.index & r->mask];
		u32 dst = cowbird_cc_dst(op.rw_type);
		u16 st;

		cowbird_cc_on_issue(cc, dst, now);
		st = cowbird_op_exec(inst, er, &op);
		now = ktime_get_ns();
		cowbird_ring_op_done(r, &op, st, now);
		cowbird_cc_on_complete(cc, dst, st, req->issue_delay_ns, now - req->fetched_ns,
				       now);
		cowbird_engine_account(inst, &op, st);
		cowbird_ring_complete(r, false);
		if (!(++n % COWBIRD_RESCHED_OPS))
			cond_resched();
	}
	cowbird_ring_complete(r, true);
	return n + got + cowbird_ring_inflight(r);
}

/* Serves every ring of an instance once; under its serve_lock. */
static u32 cowbird_inst_pass(struct cowbird_inst *inst)
{
	u32 i, work = 0;

	lockdep_assert_held(&inst->serve_lock);
	if (inst->dead)
		return 0;
	/* another kernel's area, and this kernel was reaped: not one more store */
	if (inst->area_ours && !inst->area_ours(inst->area_ours_arg))
		return 0;
	if (inst->rmt) {
		cowbird_rmt_pass(inst);
		for (i = 0; i < inst->lay.nr_rings; i++)
			work += cowbird_rmt_ring_pass(inst, &inst->rings[i]);
		inst->stats.passes++;
		return work;
	}
	for (i = 0; i < inst->lay.nr_rings; i++)
		work += cowbird_ring_pass(inst, &inst->rings[i]);
	inst->stats.passes++;
	return work;
}

/* ---- the threads ---- */

/* The next instance, round robin, with a reference; NULL when there is none. */
static struct cowbird_inst *cowbird_pick(void)
{
	struct cowbird_inst *inst;

	mutex_lock(&cowbird_eng.lock);
	inst = list_first_entry_or_null(&cowbird_eng.insts, struct cowbird_inst, node);
	if (inst) {
		list_move_tail(&inst->node, &cowbird_eng.insts);
		kref_get(&inst->ref);
	}
	mutex_unlock(&cowbird_eng.lock);
	return inst;
}

static bool cowbird_has_work(void)
{
	return READ_ONCE(cowbird_eng.ninsts) || kthread_should_stop();
}

static void cowbird_backoff(u32 *idle, u32 *sleep_us)
{
	u32 cap = max_t(u32, READ_ONCE(cowbird_probe_max_us), COWBIRD_SLEEP_MIN_US);

	if (++*idle <= READ_ONCE(cowbird_idle_spins)) {
		cond_resched();
		return;
	}
	atomic64_inc(&cowbird_eng.stats.sleeps);
	usleep_range(*sleep_us, *sleep_us + *sleep_us / 4 + 1);
	*sleep_us = min(*sleep_us * 2, cap);
}

static int cowbird_thread(void *arg)
{
	u32 idle = 0, sleep_us = COWBIRD_SLEEP_MIN_US;

	while (!kthread_should_stop()) {
		struct cowbird_inst *inst;
		u32 work = 0;

		inst = cowbird_pick();
		if (!inst) {
			wait_event_interruptible(cowbird_eng.wq, cowbird_has_work());
			continue;
		}
		atomic64_inc(&cowbird_eng.stats.picks);
		if (mutex_trylock(&inst->serve_lock)) {
			work = cowbird_inst_pass(inst);
			mutex_unlock(&inst->serve_lock);
		} else {
			atomic64_inc(&cowbird_eng.stats.busy_skips);
		}
		cowbird_inst_put(inst);
		if (work) {
			idle = 0;
			sleep_us = COWBIRD_SLEEP_MIN_US;
			cond_resched();
		} else {
			cowbird_backoff(&idle, &sleep_us);
		}
	}
	return 0;
}

int cowbird_engine_add(struct cowbird_inst *inst)
{
	mutex_lock(&cowbird_eng.lock);
	list_add_tail(&inst->node, &cowbird_eng.insts);
	kref_get(&inst->ref);		/* the list's */
	WRITE_ONCE(cowbird_eng.ninsts, cowbird_eng.ninsts + 1);
	mutex_unlock(&cowbird_eng.lock);
	atomic64_inc(&cowbird_eng.stats.created);
	wake_up_all(&cowbird_eng.wq);
	return 0;
}

/*
 * Takes an instance from the engine for good: 1. unlink it, so no thread
 * picks it again; 2. mark it dead under serve_lock, which waits for the
 * thread serving it now (local ops end within the pass); 3. stop every ring
 * with EDEAD for anyone still looking at the books; 4. for a remote
 * instance, wait until the fabric has given back every op it holds (each
 * ends within its host's timeout); 5. drop the list's reference.
 */
void cowbird_engine_del(struct cowbird_inst *inst)
{
	u32 i;

	mutex_lock(&cowbird_eng.lock);
	list_del_init(&inst->node);
	WRITE_ONCE(cowbird_eng.ninsts, cowbird_eng.ninsts - 1);
	mutex_unlock(&cowbird_eng.lock);

	mutex_lock(&inst->serve_lock);
	inst->dead = true;
	for (i = 0; i < inst->lay.nr_rings && !inst->area_gone; i++)
		cowbird_ring_fail(&inst->rings[i].r, COWBIRD_RING_EDEAD);
	mutex_unlock(&inst->serve_lock);
	if (inst->rmt)
		cowbird_rmt_drain(inst);
	atomic64_inc(&cowbird_eng.stats.destroyed);
	cowbird_inst_put(inst);
}

/* ---- debugfs "cowbird": the engine's and every instance's counters ---- */

static void cowbird_show_inst(struct seq_file *m, struct cowbird_inst *inst)
{
	struct cowbird_ring_stats rs = {};
	const struct cowbird_cc_stats *cs = &inst->cc->stats;
	const struct cowbird_inst_stats *is = &inst->stats;
	u32 i, stopped = 0;

	for (i = 0; i < inst->lay.nr_rings; i++) {
		const struct cowbird_ring *r = &inst->rings[i].r;

		rs.fetched += r->stats.fetched;
		rs.rejected += r->stats.rejected;
		rs.ops += r->stats.ops;
		rs.completed += r->stats.completed;
		rs.batches += r->stats.batches;
		rs.rd_blocked += r->stats.rd_blocked;
		rs.wr_blocked += r->stats.wr_blocked;
		stopped += !!r->error;
	}
	seq_printf(m, "instance %u region %u size %llu rings %u entries %u data %u\n",
		   inst->id, inst->region_id, inst->region_size, inst->lay.nr_rings,
		   inst->lay.entries, inst->lay.data_size);
	seq_printf(m, "  passes %llu fetched %llu rejected %llu ops %llu completed %llu",
		   is->passes, rs.fetched, rs.rejected, rs.ops, rs.completed);
	seq_printf(m, " batches %llu rd_blocked %llu wr_blocked %llu rings_stopped %u\n",
		   rs.batches, rs.rd_blocked, rs.wr_blocked, stopped);
	seq_printf(m, "  rd_ops %llu rd_bytes %llu wr_ops %llu wr_bytes %llu op_errors %llu\n",
		   is->rd_ops, is->rd_bytes, is->wr_ops, is->wr_bytes, is->op_errors);
	seq_printf(m, "  cc issued %llu completed %llu increases %llu decreases %llu",
		   cs->issued, cs->completed, cs->increases, cs->decreases);
	seq_printf(m, " timeout_decreases %llu cwnd_local %u cwnd_dst %u cwnd_dst_write %u\n",
		   cs->timeout_decreases, inst->cc->local.cwnd,
		   inst->cc->dst[COWBIRD_CC_DST_READ].cwnd,
		   inst->cc->dst[COWBIRD_CC_DST_WRITE].cwnd);
	if (inst->rmt) {
		struct cowbird_rmt_stats rt;

		cowbird_rmt_get_stats(inst, &rt);
		seq_printf(m, "  remote sent %llu busy %llu lost %llu gbn_rounds %llu resent %llu",
			   rt.sent, rt.busy, rt.lost, rt.gbn_rounds, rt.resent);
		seq_printf(m, " timeouts %llu dispatch_timeouts %llu\n", rt.timeouts,
			   rt.dispatch_timeouts);
	}
}

static int cowbird_stats_show(struct seq_file *m, void *v)
{
	struct cowbird_eng_stats *s = &cowbird_eng.stats;
	struct cowbird_inst *inst;

	mutex_lock(&cowbird_eng.lock);
	seq_printf(m, "engine threads %u cpu %d instances %u picks %lld busy_skips %lld",
		   cowbird_eng.nthreads, cowbird_cpu, cowbird_eng.ninsts,
		   atomic64_read(&s->picks), atomic64_read(&s->busy_skips));
	seq_printf(m, " sleeps %lld created %lld destroyed %lld\n", atomic64_read(&s->sleeps),
		   atomic64_read(&s->created), atomic64_read(&s->destroyed));
	list_for_each_entry(inst, &cowbird_eng.insts, node) {
		mutex_lock(&inst->serve_lock);
		cowbird_show_inst(m, inst);
		mutex_unlock(&inst->serve_lock);
	}
	mutex_unlock(&cowbird_eng.lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cowbird_stats);

static void cowbird_threads_stop(void)
{
	while (cowbird_eng.nthreads)
		kthread_stop(cowbird_eng.threads[--cowbird_eng.nthreads]);
}

int edm_cowbird_engine_init(void)
{
	u32 i, n = clamp_t(u32, cowbird_threads, 1, COWBIRD_THREADS_MAX);
	int cpu = cowbird_cpu;

	mutex_init(&cowbird_eng.lock);
	INIT_LIST_HEAD(&cowbird_eng.insts);
	init_waitqueue_head(&cowbird_eng.wq);
	if (cpu >= 0 && (cpu >= nr_cpu_ids || !cpu_online(cpu))) {
		pr_warn("cowbird_cpu %d is not online: engine threads not pinned\n", cpu);
		cpu = -1;
	}
	for (i = 0; i < n; i++) {
		struct task_struct *t;

		t = kthread_create(cowbird_thread, NULL, "edm_cowbird/%u", i);
		if (IS_ERR(t)) {
			cowbird_threads_stop();
			return PTR_ERR(t);
		}
		if (cpu >= 0)
			kthread_bind(t, cpu);
		cowbird_eng.threads[cowbird_eng.nthreads++] = t;
		wake_up_process(t);
	}
	debugfs_create_file("cowbird", 0400, edm_debugfs_root, NULL, &cowbird_stats_fops);
	return 0;
}

void edm_cowbird_engine_exit(void)
{
	debugfs_lookup_and_remove("cowbird", edm_debugfs_root);
	cowbird_threads_stop();
	mutex_destroy(&cowbird_eng.lock);
}

/* ---- for netlink (cowbird/nl.c): parameters, counters, instances ---- */

/* The CPU the threads are bound to (kthread_bind() at init), or -1. */
static int cowbird_bound_cpu(void)
{
	const struct cpumask *mask;

	if (cowbird_cpu < 0 || !cowbird_eng.nthreads)
		return -1;
	mask = cowbird_eng.threads[0]->cpus_ptr;
	if (cpumask_weight(mask) != 1 || cpumask_first(mask) != cowbird_cpu)
		return -1;
	return cowbird_cpu;
}

void cowbird_engine_info(struct cowbird_engine_info *info)
{
	struct cowbird_eng_stats *s = &cowbird_eng.stats;

	info->threads = cowbird_eng.nthreads;
	info->cpu = cowbird_bound_cpu();
	info->instances = READ_ONCE(cowbird_eng.ninsts);
	info->probe_max_us = READ_ONCE(cowbird_probe_max_us);
	info->idle_spins = READ_ONCE(cowbird_idle_spins);
	info->batch = cowbird_engine_batch();
	info->picks = atomic64_read(&s->picks);
	info->busy_skips = atomic64_read(&s->busy_skips);
	info->sleeps = atomic64_read(&s->sleeps);
	info->created = atomic64_read(&s->created);
	info->destroyed = atomic64_read(&s->destroyed);
}

static bool cowbird_param_set(uint *param, const u32 *v)
{
	if (!v || READ_ONCE(*param) == *v)
		return false;
	WRITE_ONCE(*param, *v);
	return true;
}

/* Every live instance's rings publish every @batch completions from now on. */
static void cowbird_batch_apply(u32 batch)
{
	struct cowbird_inst *inst;
	u32 i;

	mutex_lock(&cowbird_eng.lock);
	list_for_each_entry(inst, &cowbird_eng.insts, node) {
		mutex_lock(&inst->serve_lock);
		for (i = 0; i < inst->lay.nr_rings; i++)
			inst->rings[i].r.batch = batch;
		mutex_unlock(&inst->serve_lock);
	}
	mutex_unlock(&cowbird_eng.lock);
}

bool cowbird_engine_set(const u32 *probe_max_us, const u32 *idle_spins, const u32 *batch)
{
	bool changed;

	changed = cowbird_param_set(&cowbird_probe_max_us, probe_max_us);
	changed |= cowbird_param_set(&cowbird_idle_spins, idle_spins);
	changed |= cowbird_param_set(&cowbird_batch, batch);
	if (batch)
		cowbird_batch_apply(*batch);
	return changed;
}

u32 cowbird_engine_gen(void)
{
	return atomic64_read(&cowbird_eng.stats.created) +
	       atomic64_read(&cowbird_eng.stats.destroyed);
}

/* Under its serve_lock: what an instance says about itself. */
static void cowbird_inst_snapshot(struct cowbird_inst *inst, struct cowbird_inst_info *info)
{
	struct cowbird_ring_stats *rs = &info->ring;
	u32 i;

	lockdep_assert_held(&inst->serve_lock);
	memset(info, 0, sizeof(*info));
	info->id = inst->id;
	info->region_id = inst->region_id;
	info->region_size = inst->region_size;
	info->rings = inst->lay.nr_rings;
	info->entries = inst->lay.entries;
	info->data_size = inst->lay.data_size;
	info->batch = inst->rings[0].r.batch;
	info->inst = inst->stats;
	for (i = 0; i < inst->lay.nr_rings; i++) {
		const struct cowbird_ring *r = &inst->rings[i].r;

		rs->fetched += r->stats.fetched;
		rs->rejected += r->stats.rejected;
		rs->ops += r->stats.ops;
		rs->completed += r->stats.completed;
		rs->batches += r->stats.batches;
		rs->rd_blocked += r->stats.rd_blocked;
		rs->wr_blocked += r->stats.wr_blocked;
		info->rings_stopped += !!r->error;
	}
	info->cc = inst->cc->stats;
	info->cwnd_local = inst->cc->local.cwnd;
	info->cwnd_dst = inst->cc->dst[COWBIRD_CC_DST_READ].cwnd;
	info->cwnd_dst_write = inst->cc->dst[COWBIRD_CC_DST_WRITE].cwnd;
}

int cowbird_engine_inst_info(u64 net_cookie, u32 from, struct cowbird_inst_info *info)
{
	struct cowbird_inst *inst, *next = NULL;

	mutex_lock(&cowbird_eng.lock);
	list_for_each_entry(inst, &cowbird_eng.insts, node)
		if (inst->net_cookie == net_cookie && inst->id >= from &&
		    (!next || inst->id < next->id))
			next = inst;
	if (next) {
		mutex_lock(&next->serve_lock);
		cowbird_inst_snapshot(next, info);
		mutex_unlock(&next->serve_lock);
	}
	mutex_unlock(&cowbird_eng.lock);
	return next ? 0 : -ENOENT;
}
