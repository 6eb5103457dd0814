// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
/*
 * fabric_stress: many compute hosts, many memory nodes, deep queues, every
 * op kind in one batch, checked against a model of the documented ordering.
 *
 * The rule under test (Documentation/fabric.md, "Ops"): the ops of one file
 * to one memory node take effect in the order they were submitted, within a
 * batch and across batches, so every op sees every op submitted before it to
 * the same node, even while both are in flight. The model applies each op to
 * a shadow of the thread's memory at submission time and records what a READ
 * must return and what old value an RMW must report; completions are checked
 * against that when they are reaped.
 *
 * Harness mode (no arguments): each variant builds, through netlink, a switch
 * fs_sw (16 ports, the variant's policy and chunk), compute hosts fs_c<i>
 * (address 1+i, no region) and memory hosts fs_m<j> (address 9+j, a 4 MiB
 * keyed region, every file presenting its key), each on its own port by an
 * emulated link, all with a 20 s op timeout (x EDM_TEST_SCALE, at most
 * 60 s) so that even under TCG no op may time out: an ETIMEDOUT is a
 * failure. It runs the workload below from 4 or 8 threads per compute
 * host, prints its counts as a TAP comment and deletes the topology.
 * Variants: 2 hosts x 2 memory nodes and 4 x 3, each
 * with the srpt and the fcfs scheduler, 2 x 3 with 64-byte grants, and
 * 2 x 2 with a standby switch fs_sb on every host's second port and fs_sw
 * deleted when fs_c0 is half way through its ops (READs and WRITEs only: a
 * failover ends the RMWs it catches with ENETRESET); every host must count
 * one failover.
 *
 * The workload. Each thread has its own open file of its host's /dev/edm<N>
 * and a private area in every memory node's region (disjoint per device and
 * thread). It fills its areas, then submits random batches (1..256 ops,
 * mostly small) of READ, WRITE, CAS, FADD and SWAP spread over all memory
 * nodes in the same batch, lengths 1..65535 (mostly small, unaligned,
 * often across a page boundary), RMWs aimed at words inside the range of a
 * READ or WRITE just before them in the batch or in a batch still in flight,
 * and up to 4 batches in flight per file (within 768 ops and 12 MiB, under
 * the per-file caps). Every completion is checked: status 0, bytes, READ
 * data, RMW old values; the first mismatches are printed with the op, its
 * place in its batch, and the later op of the batch that wrote the first
 * wrong byte, if one did. A few words at the start of every region are
 * shared by all threads of all hosts: FADD counters (random addends) and CAS
 * counters (compare-and-swap increment loops); the old values each file sees
 * must grow along its submission order, and the final values must be exact.
 * At the end each thread reads its whole areas back and compares them with
 * its shadow. The first timeout or error stops the run: every thread stops
 * submitting and waits at most the op timeout + 5 s for its ops in flight
 * (the rest count as errors, never completed); nothing is read back then.
 * EDM_TEST_SCALE divides the op counts, and above 1 halves the threads;
 * EDM_STRESS_SEED sets the seed.
 *
 * Run mode, for soaks and other topologies (namespaces, guests):
 *
 *   fabric_stress run [--seconds S | --ops N] [--threads T]
 *                     --dev /dev/edmX[,/dev/edmY...] --mem ADDR[,ADDR...]
 *                     [--keys KEY[,KEY...]] [--region BYTES] [--base OFFSET]
 *                     [--area BYTES] [--seed S]
 *                     [--counters-exact] [--no-rmw] [--max-len L] [--timeout MS]
 *                     [--quiet]
 *
 * runs the same workload from T threads (default 4) per device against the
 * memory nodes at the fabric addresses ADDR (presenting KEY, the region key
 * of the node in the same place of --mem, when given), whose regions are BYTES long
 * (default: as EDM_IOC_TARGET reports them; the smallest counts). Thread t
 * of the d-th device owns, in every region, the area of --area bytes
 * (default 128 KiB, less if they do not all fit before the region's end)
 * at base + (d * T + t) * area, base defaulting to 4096: a process uses
 * [base, base + devices * T * area), which it prints, so processes given
 * --base values that far apart may share memory nodes, from any namespace
 * or guest. The shared counters are the words at offsets 0..31 (4 FADD
 * counters) and 32..47 (2 CAS counters) of every region, in its first 4 KiB,
 * where no area may start; every process's ops on them are checked for
 * order, and their final values exactly only with --counters-exact (which
 * zeroes them first), when only one process may use the nodes. --ops is the
 * process's total, --seconds a time bound (default 10 s); --timeout is the
 * hosts' op timeout (default 60000): no completion at all for 30 s past it
 * counts the ops in flight as lost. The last line is
 *
 *   fabric_stress: ops N verified N mismatches N timeouts N errors N
 *
 * (ops: ops the kernel accepted; verified: their completions that agreed
 * with the model; mismatches: those that did not, and counter values that
 * broke the order; timeouts: ETIMEDOUT completions; errors: any other
 * failure), and the exit status is 0 only if the last three are 0 (1, or 2
 * for bad arguments or a run that could not start).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/edm.h>
#include <sys/ioctl.h>

#include "genl.h"
#include "kselftest_harness.h"

#define MAXDEV		16
#define MAXMEM		16
#define MAXTHR		16

#define PAGE		4096u
#define SHARED_SIZE	PAGE		/* the shared counters' page, at offset 0 */
#define NFADD		4
#define NCAS		2
#define FADD_OFF(k)	(8u * (k))
#define CAS_OFF(k)	(8u * NFADD + 8u * (k))
#define COUNTERS_LEN	(8u * (NFADD + NCAS))

/* Ours, below the documented per-file caps (1024 ops, 16 MiB). */
#define FILE_OPS_CAP	768u
#define FILE_BYTES_CAP	(12u << 20)
#define MAX_BATCHES	4		/* batches in flight per file */
#define NSLOTS		(FILE_OPS_CAP + EDM_OP_BATCH_MAX)
#define BULK_LEN	32768u		/* fills and read-backs */
#define NRECENT		16		/* READ/WRITE ranges an RMW may aim at */
#define AREA_DEFAULT	(128u << 10)	/* per device and thread, at most */
#define AREA_MIN	(2 * PAGE)

/* ---- configuration and results ---- */

struct cfg {
	int ndev;
	char dev[MAXDEV][64];
	int nmem;
	uint16_t mem[MAXMEM];
	uint64_t key[MAXMEM];		/* each node's region key; 0: none */
	int threads;
	uint64_t ops;			/* per thread; 0: until the deadline */
	uint64_t seconds;
	uint64_t base;			/* where the process's areas start */
	uint64_t region;		/* the regions' size; 0: as the nodes report it */
	uint64_t area;			/* bytes per device and thread; 0: the default */
	uint64_t seed;
	bool counters_exact;
	bool no_rmw;			/* READs and WRITEs only (a failover ends RMWs) */
	uint32_t max_len;
	uint32_t timeout_ms;		/* the hosts' op timeout */
};

struct totals {
	uint64_t ops, verified, mismatches, timeouts, errors, unchecked;
	uint64_t lost;			/* of the errors: ops that never completed */
};

static FILE *log_out;			/* details: stdout as TAP comments, or stderr */
static const char *logpfx = "# ";
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
/* What report() prints: notes always, the first few failures of each kind. */
enum { R_NOTE, R_MISMATCH, R_FAILURE, __R_CNT };
static const int report_max[__R_CNT] = { 0, 8, 6 };
static int reports[__R_CNT];
static bool quiet;

static void __attribute__((format(printf, 2, 3))) report(int kind, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&log_lock);
	if (kind == R_NOTE || (!quiet && reports[kind] < report_max[kind])) {
		fputs(logpfx, log_out);
		va_start(ap, fmt);
		vfprintf(log_out, fmt, ap);
		va_end(ap);
		fputc('\n', log_out);
		fflush(log_out);
	} else if (!quiet && reports[kind] == report_max[kind]) {
		fprintf(log_out, "%s(further %s are counted, not shown)\n", logpfx,
			kind == R_MISMATCH ? "mismatches" : "failures");
		fflush(log_out);
	}
	if (kind != R_NOTE)
		reports[kind]++;
	pthread_mutex_unlock(&log_lock);
}

static const char *opname(uint8_t op)
{
	static const char *const n[] = { "READ", "WRITE", "CAS", "FADD", "SWAP" };

	return op <= EDM_OP_MAX ? n[op] : "?";
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ull + ts.tv_nsec / 1000000;
}

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t rnd(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dull;
}

static void fill_random(uint8_t *p, uint32_t len, uint64_t *s)
{
	uint32_t i;
	uint64_t v;

	for (i = 0; i + 8 <= len; i += 8) {
		v = rnd(s);
		memcpy(p + i, &v, 8);
	}
	for (v = rnd(s); i < len; i++, v >>= 8)
		p[i] = v;
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* ---- per-thread state ---- */

enum { K_READ, K_WRITE, K_RMW, K_SFADD, K_SCAS };

struct fadd_ent {
	uint64_t addend, result, seq;
	bool done;
};

struct fadd_log {
	struct fadd_ent *e;
	size_t n, cap;
};

struct range {
	uint32_t off, len;
};

/* One thread's view of one memory node. */
struct nstate {
	uint8_t *shadow;		/* its area, as the ops submitted so far leave it */
	uint64_t seq;			/* ops submitted to the node */
	uint64_t poison;		/* ops after this one are not checked: a failed op */
	bool failed;			/* an op to it failed: no read-back */
	struct range recent[NRECENT];	/* READ/WRITE ranges, for RMWs to aim at */
	unsigned int nrecent, rhead;
	struct fadd_log fadd[NFADD];
	uint64_t fadd_sum[NFADD];
	uint64_t cas_guess[NCAS], cas_wins[NCAS];
	bool cas_busy[NCAS];
};

struct batch {
	uint32_t id, n, refs;
	bool sent;
	struct edm_op ops[EDM_OP_BATCH_MAX];
};

struct oprec {
	bool used;
	uint8_t kind, node, k;
	uint16_t bidx;
	uint32_t gen;
	struct batch *b;
	struct edm_op op;
	uint8_t *buf, *expect;
	uint64_t word;			/* own RMW: the old value; shared CAS: the guess */
	uint64_t seq;
	size_t logi;
};

struct thr {
	const struct cfg *cfg;
	int dev, idx;
	uint64_t area_off, area_size;
	uint32_t max_len;
	int fd;
	uint64_t rng;
	struct nstate ns[MAXMEM];
	struct oprec slots[NSLOTS];
	uint32_t freel[NSLOTS], nfree;
	uint32_t gen, nbatch;
	uint32_t inflight_ops, inflight_batches;
	uint64_t inflight_bytes;
	uint64_t last_progress;
	struct batch *cur;		/* being built */
	struct totals t;
	bool stop;			/* no more workload batches: a failure */
	uint64_t stop_at;		/* when it stopped, or saw the run stop */
	bool dead;			/* completions went missing: give up */
	bool counters_uncertain;	/* a shared-counter op failed */
	uint64_t target, deadline;
};

/*
 * The first timeout or error stops the whole run: every thread stops
 * submitting, waits a bounded time for what it has in flight, and the
 * read-backs and counter checks are skipped. Mismatches do not stop it.
 */
static int run_stopped;

static bool stopped(struct thr *th)
{
	if (!th->stop && !__atomic_load_n(&run_stopped, __ATOMIC_RELAXED))
		return false;
	if (!th->stop_at)
		th->stop_at = now_ms();
	return true;
}

static void fail_stop(struct thr *th)
{
	th->stop = true;
	__atomic_store_n(&run_stopped, 1, __ATOMIC_RELAXED);
	stopped(th);
}

static uint64_t stall_ms(const struct thr *th)
{
	return th->cfg->timeout_ms + 30000ull;
}

static uint32_t op_bytes(const struct edm_op *op)
{
	return op->len;
}

static void batch_put(struct thr *th, struct batch *b)
{
	if (--b->refs == 0 && b->sent) {
		th->inflight_batches--;
		free(b);
	}
}

static void rec_release(struct thr *th, struct oprec *r)
{
	free(r->buf);
	free(r->expect);
	r->buf = r->expect = NULL;
	r->used = false;
	th->inflight_ops--;
	th->inflight_bytes -= op_bytes(&r->op);
	th->freel[th->nfree++] = r - th->slots;
	batch_put(th, r->b);
}

static bool room_for(const struct thr *th, uint32_t bytes)
{
	return th->nfree > 0 && th->inflight_ops + 1 <= FILE_OPS_CAP &&
	       th->inflight_bytes + bytes <= FILE_BYTES_CAP;
}

static void who(const struct thr *th, int node, char *s, size_t n)
{
	snprintf(s, n, "%s thread %d node %u", th->cfg->dev[th->dev], th->idx,
		 th->cfg->mem[node]);
}

/* ---- building and submitting batches ---- */

static void batch_begin(struct thr *th)
{
	th->cur = calloc(1, sizeof(*th->cur));
	if (!th->cur) {
		perror("calloc");
		exit(2);
	}
	th->cur->id = th->nbatch++;
}

/* A new op at the end of the batch being built, its slot taken and counted. */
static struct oprec *batch_add(struct thr *th, int node, uint8_t kind, uint8_t opcode,
			       uint32_t off, uint32_t len)
{
	struct batch *b = th->cur;
	struct oprec *r = &th->slots[th->freel[--th->nfree]];

	memset(r, 0, sizeof(*r));
	r->used = true;
	r->kind = kind;
	r->node = node;
	r->gen = ++th->gen;
	r->b = b;
	r->bidx = b->n++;
	r->seq = ++th->ns[node].seq;
	r->op.user_data = (uint64_t)r->gen << 32 | (uint32_t)(r - th->slots);
	r->op.dst = th->cfg->mem[node];
	r->op.opcode = opcode;
	r->op.len = len;
	r->op.addr = (kind == K_SFADD || kind == K_SCAS) ? off : th->area_off + off;
	b->refs++;
	th->inflight_ops++;
	th->inflight_bytes += len;
	return r;
}

/* The batch's ops are complete in their records: copy them into it. */
static void batch_seal(struct thr *th, struct batch *b)
{
	uint32_t i;

	for (i = 0; i < NSLOTS; i++)
		if (th->slots[i].used && th->slots[i].b == b)
			b->ops[th->slots[i].bidx] = th->slots[i].op;
}

static int reap_some(struct thr *th, uint32_t min);

/*
 * Submit the batch being built. A file or host over its caps (EAGAIN) takes
 * a prefix: reap, then submit the rest, which keeps the order. Any other
 * refusal is an error; the ops not taken are dropped and, as the shadows
 * already hold their effects, their nodes are no longer checked.
 */
static int batch_submit(struct thr *th)
{
	struct batch *b = th->cur;
	uint32_t next = 0, i;
	uint64_t t0 = now_ms();
	bool failed = false;

	th->cur = NULL;
	if (!b->n) {
		free(b);
		return 0;
	}
	batch_seal(th, b);
	b->sent = true;
	th->inflight_batches++;
	b->refs++;			/* ours, until the loop is done */
	while (next < b->n) {
		struct edm_submit s = { .ops = (uintptr_t)(b->ops + next), .nr = b->n - next };
		int err = ioctl(th->fd, EDM_IOC_SUBMIT, &s) ? errno : 0;

		if (s.done > s.nr || (!err && s.done != s.nr)) {
			report(R_FAILURE, "%s: SUBMIT of %u says %u done (%s)", th->cfg->dev[th->dev],
			       s.nr, s.done, err ? strerror(err) : "no error");
			s.done = s.done > s.nr ? 0 : s.done;
			err = err ?: EPROTO;
		}
		th->t.ops += s.done;
		next += s.done;
		th->last_progress = now_ms();
		if (!err)
			continue;
		if (err == EAGAIN && now_ms() - t0 < stall_ms(th)) {
			if (th->inflight_ops > b->n - next) {
				if (reap_some(th, 1) >= 0)
					continue;
			} else {
				usleep(1000);	/* other files hold the host's ops */
				continue;
			}
		}
		/* refused for good: drop what is left */
		report(R_FAILURE, "%s thread %d: SUBMIT refused op %u of batch %u (%s at 0x%llx len "
		       "%u dst %u): %s", th->cfg->dev[th->dev], th->idx, next, b->id,
		       opname(b->ops[next].opcode), (unsigned long long)b->ops[next].addr,
		       b->ops[next].len, b->ops[next].dst, strerror(err));
		th->t.errors++;
		fail_stop(th);
		failed = true;
		for (i = 0; i < NSLOTS; i++) {
			struct oprec *r = &th->slots[i];

			if (r->used && r->b == b && r->bidx >= next) {
				struct nstate *ns = &th->ns[r->node];

				ns->failed = true;
				if (r->kind <= K_RMW && r->seq - 1 < ns->poison)
					ns->poison = r->seq - 1;
				if (r->kind == K_SFADD || r->kind == K_SCAS)
					th->counters_uncertain = true;
				if (r->kind == K_SCAS)
					ns->cas_busy[r->k] = false;
				rec_release(th, r);
			}
		}
		break;
	}
	th->last_progress = now_ms();
	batch_put(th, b);
	return failed ? -1 : 0;
}

/* ---- checking completions ---- */

static void check_read(struct thr *th, struct oprec *r)
{
	uint32_t i, j, len = r->op.len;
	uint64_t a;
	char w[96], later[160] = "";

	if (!memcmp(r->buf, r->expect, len)) {
		th->t.verified++;
		return;
	}
	th->t.mismatches++;
	for (i = 0; i < len && r->buf[i] == r->expect[i]; i++)
		;
	a = r->op.addr + i;
	/* the first op after it in its batch that wrote the byte, if any */
	for (j = r->bidx + 1; j < r->b->n; j++) {
		const struct edm_op *o = &r->b->ops[j];

		if (o->dst == r->op.dst && o->opcode != EDM_OP_READ && a >= o->addr &&
		    a < o->addr + o->len) {
			snprintf(later, sizeof(later),
				 "; op %u of the batch, %s at 0x%llx len %u, writes that byte",
				 j, opname(o->opcode), (unsigned long long)o->addr, o->len);
			break;
		}
	}
	who(th, r->node, w, sizeof(w));
	report(R_MISMATCH, "mismatch: %s: READ at 0x%llx len %u (op %u of %u in batch %u): first "
	       "difference at +%u (0x%llx): got %02x want %02x%s", w,
	       (unsigned long long)r->op.addr, len, r->bidx, r->b->n, r->b->id, i,
	       (unsigned long long)a, r->buf[i], r->expect[i], later);
}

static void check_rmw(struct thr *th, struct oprec *r, uint64_t result)
{
	char w[96];

	if (result == r->word) {
		th->t.verified++;
		return;
	}
	th->t.mismatches++;
	who(th, r->node, w, sizeof(w));
	report(R_MISMATCH, "mismatch: %s: %s at 0x%llx (op %u of %u in batch %u) arg0 0x%llx: "
	       "old value 0x%llx, want 0x%llx", w, opname(r->op.opcode),
	       (unsigned long long)r->op.addr, r->bidx, r->b->n, r->b->id,
	       (unsigned long long)r->op.arg0, (unsigned long long)result,
	       (unsigned long long)r->word);
}

static void complete(struct thr *th, const struct edm_cqe *c)
{
	uint32_t slot = (uint32_t)c->user_data, want;
	struct oprec *r = slot < NSLOTS ? &th->slots[slot] : NULL;
	struct nstate *ns;
	char w[96];

	if (!r || !r->used || r->gen != c->user_data >> 32) {
		th->t.errors++;
		report(R_FAILURE, "%s thread %d: a completion for no op in flight: user_data 0x%llx "
		       "status %d", th->cfg->dev[th->dev], th->idx,
		       (unsigned long long)c->user_data, c->status);
		return;
	}
	ns = &th->ns[r->node];
	if (c->status) {
		if (c->status == -ETIMEDOUT)
			th->t.timeouts++;
		else
			th->t.errors++;
		who(th, r->node, w, sizeof(w));
		report(R_FAILURE, "%s: %s at 0x%llx len %u (op %u of %u in batch %u): status %d (%s)",
		       w, opname(r->op.opcode), (unsigned long long)r->op.addr, r->op.len,
		       r->bidx, r->b->n, r->b->id, c->status, strerror(-c->status));
		fail_stop(th);
		ns->failed = true;
		/* it may or may not have taken effect: later ops cannot be judged */
		if ((r->kind == K_WRITE || r->kind == K_RMW) && r->seq < ns->poison)
			ns->poison = r->seq;
		if (r->kind == K_SFADD || r->kind == K_SCAS)
			th->counters_uncertain = true;
		if (r->kind == K_SCAS)
			ns->cas_busy[r->k] = false;
		rec_release(th, r);
		return;
	}
	want = r->op.opcode <= EDM_OP_WRITE ? r->op.len : 8;
	if (c->bytes != want) {
		th->t.mismatches++;
		who(th, r->node, w, sizeof(w));
		report(R_MISMATCH, "mismatch: %s: %s at 0x%llx len %u: bytes %u", w,
		       opname(r->op.opcode), (unsigned long long)r->op.addr, r->op.len, c->bytes);
		if (r->kind == K_SCAS)
			ns->cas_busy[r->k] = false;
		rec_release(th, r);
		return;
	}
	switch (r->kind) {
	case K_READ:
		if (r->seq > ns->poison)
			th->t.unchecked++;
		else
			check_read(th, r);
		break;
	case K_WRITE:
		th->t.verified++;	/* its data is checked by the reads after it */
		break;
	case K_RMW:
		if (r->seq > ns->poison)
			th->t.unchecked++;
		else
			check_rmw(th, r, c->result);
		break;
	case K_SFADD:
		ns->fadd[r->k].e[r->logi].result = c->result;
		ns->fadd[r->k].e[r->logi].done = true;
		th->t.verified++;	/* its old value is checked at the end */
		break;
	case K_SCAS:
		/* the counter only grows, and we saw it at r->word or more */
		if (c->result < r->word) {
			th->t.mismatches++;
			who(th, r->node, w, sizeof(w));
			report(R_MISMATCH, "mismatch: %s: shared CAS counter %u went back: old value "
			       "%llu, this file saw %llu before", w, r->k,
			       (unsigned long long)c->result, (unsigned long long)r->word);
		} else {
			th->t.verified++;
		}
		if (c->result == r->word) {
			ns->cas_wins[r->k]++;
			ns->cas_guess[r->k] = r->word + 1;
		} else {
			ns->cas_guess[r->k] = c->result;
		}
		ns->cas_busy[r->k] = false;
		break;
	}
	th->last_progress = now_ms();
	rec_release(th, r);
}

/*
 * Reap what is ready, waiting for @min completions (0: don't wait). -1 when
 * completions went missing: nothing for far longer than any op may take.
 */
static int reap_some(struct thr *th, uint32_t min)
{
	struct edm_cqe cqes[EDM_OP_BATCH_MAX];
	struct edm_reap rp;
	uint32_t i;

	if (th->dead)
		return -1;
	if (min > th->inflight_ops)
		min = th->inflight_ops;
	if (min > EDM_OP_BATCH_MAX)
		min = EDM_OP_BATCH_MAX;
	for (;;) {
		rp = (struct edm_reap){ .cqes = (uintptr_t)cqes, .max = EDM_OP_BATCH_MAX,
					.min = min, .timeout_ms = min ? 1000 : 0 };
		if (ioctl(th->fd, EDM_IOC_REAP, &rp)) {
			if (errno == EINTR)
				continue;
			report(R_FAILURE, "%s thread %d: REAP: %s", th->cfg->dev[th->dev], th->idx,
			       strerror(errno));
			th->t.errors++;
			th->dead = true;
			fail_stop(th);
			return -1;
		}
		for (i = 0; i < rp.nr && i < EDM_OP_BATCH_MAX; i++)
			complete(th, &cqes[i]);
		if (rp.nr || !min)
			return rp.nr;
		if (now_ms() - th->last_progress > stall_ms(th)) {
			report(R_FAILURE, "%s thread %d: %u ops in flight, no completion for %llu ms: "
			       "counted as lost", th->cfg->dev[th->dev], th->idx, th->inflight_ops,
			       (unsigned long long)(now_ms() - th->last_progress));
			th->t.errors += th->inflight_ops;
			th->t.lost += th->inflight_ops;
			th->dead = true;
			fail_stop(th);
			return -1;
		}
		if (stopped(th) && now_ms() - th->stop_at > th->cfg->timeout_ms + 5000ull) {
			report(R_FAILURE, "%s thread %d: %u ops still in flight %llu ms after the run "
			       "stopped: counted as lost", th->cfg->dev[th->dev], th->idx,
			       th->inflight_ops, (unsigned long long)(now_ms() - th->stop_at));
			th->t.errors += th->inflight_ops;
			th->t.lost += th->inflight_ops;
			th->dead = true;
			return -1;
		}
	}
}

static int drain(struct thr *th)
{
	while (th->inflight_ops)
		if (reap_some(th, th->inflight_ops) < 0)
			return -1;
	return 0;
}

/* ---- the workload ---- */

static uint32_t pick_len(struct thr *th)
{
	uint32_t r = rnd(&th->rng) % 100, len;

	if (r < 55)
		len = 1 + rnd(&th->rng) % 64;
	else if (r < 80)
		len = 1 + rnd(&th->rng) % 4096;
	else if (r < 93)
		len = 1 + rnd(&th->rng) % 16384;
	else
		len = 1 + rnd(&th->rng) % EDM_OP_MAX_LEN;
	return len < th->max_len ? len : th->max_len;
}

/* Where a READ or WRITE of @len goes: anywhere, or across a page boundary. */
static uint32_t pick_off(struct thr *th, uint32_t len)
{
	uint64_t size = th->area_size;

	if (len > 1 && rnd(&th->rng) % 4 == 0) {
		/* a page boundary of the region, inside the area */
		uint64_t first = (PAGE - th->area_off % PAGE) % PAGE;
		uint64_t bnd = first + PAGE * (rnd(&th->rng) % (size / PAGE));
		uint32_t before = 1 + rnd(&th->rng) % (len - 1);

		if (bnd >= before && bnd - before + len <= size)
			return bnd - before;
	}
	return rnd(&th->rng) % (size - len + 1);
}

static void remember(struct nstate *ns, uint32_t off, uint32_t len)
{
	ns->recent[ns->rhead] = (struct range){ off, len };
	ns->rhead = (ns->rhead + 1) % NRECENT;
	if (ns->nrecent < NRECENT)
		ns->nrecent++;
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p) {
		perror("malloc");
		exit(2);
	}
	return p;
}

static struct oprec *gen_read(struct thr *th, int node, uint32_t off, uint32_t len)
{
	struct nstate *ns = &th->ns[node];
	struct oprec *r = batch_add(th, node, K_READ, EDM_OP_READ, off, len);
	uint32_t i;

	r->expect = xmalloc(len);
	r->buf = xmalloc(len);
	memcpy(r->expect, ns->shadow + off, len);
	for (i = 0; i < len; i++)	/* a byte never written back differs */
		r->buf[i] = ~r->expect[i];
	r->op.buf = (uintptr_t)r->buf;
	return r;
}

static struct oprec *gen_write(struct thr *th, int node, uint32_t off, uint32_t len,
			       const uint8_t *data)
{
	struct nstate *ns = &th->ns[node];
	struct oprec *r = batch_add(th, node, K_WRITE, EDM_OP_WRITE, off, len);

	r->buf = xmalloc(len);
	if (data)
		memcpy(r->buf, data, len);
	else
		fill_random(r->buf, len, &th->rng);
	memcpy(ns->shadow + off, r->buf, len);
	r->op.buf = (uintptr_t)r->buf;
	return r;
}

/* An RMW on the own word at @off (8-byte aligned); the shadow takes its effect. */
static void gen_rmw(struct thr *th, int node, uint32_t off)
{
	struct nstate *ns = &th->ns[node];
	uint8_t opcode = EDM_OP_CAS + rnd(&th->rng) % 3;
	struct oprec *r = batch_add(th, node, K_RMW, opcode, off, 8);
	uint64_t v = get64(ns->shadow + off);

	r->word = v;
	r->op.arg0 = rnd(&th->rng);
	r->op.arg1 = rnd(&th->rng);
	switch (opcode) {
	case EDM_OP_CAS:
		if (rnd(&th->rng) % 2)
			r->op.arg0 = v;	/* half of them succeed */
		if (v == r->op.arg0)
			v = r->op.arg1;
		break;
	case EDM_OP_FADD:
		v += r->op.arg0;
		break;
	case EDM_OP_SWAP:
		v = r->op.arg0;
		break;
	}
	memcpy(ns->shadow + off, &v, 8);
}

/* The aligned word holding a random byte of [off, off + len). */
static uint32_t word_in(struct thr *th, uint32_t off, uint32_t len)
{
	return (off + rnd(&th->rng) % len) & ~7u;
}

static void gen_shared_fadd(struct thr *th, int node)
{
	struct nstate *ns = &th->ns[node];
	uint8_t k = rnd(&th->rng) % NFADD;
	struct fadd_log *l = &ns->fadd[k];
	struct oprec *r = batch_add(th, node, K_SFADD, EDM_OP_FADD, FADD_OFF(k), 8);

	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 256;
		l->e = realloc(l->e, l->cap * sizeof(*l->e));
		if (!l->e) {
			perror("realloc");
			exit(2);
		}
	}
	r->k = k;
	r->logi = l->n;
	r->op.arg0 = 1 + rnd(&th->rng) % 1000;
	l->e[l->n++] = (struct fadd_ent){ .addend = r->op.arg0, .seq = r->seq };
	ns->fadd_sum[k] += r->op.arg0;
}

/* An increment try of a shared CAS counter, if none of ours is in flight. */
static bool gen_shared_cas(struct thr *th, int node)
{
	struct nstate *ns = &th->ns[node];
	uint8_t k = rnd(&th->rng) % NCAS;
	struct oprec *r;

	if (ns->cas_busy[k])
		return false;
	r = batch_add(th, node, K_SCAS, EDM_OP_CAS, CAS_OFF(k), 8);
	r->k = k;
	r->word = ns->cas_guess[k];
	r->op.arg0 = r->word;
	r->op.arg1 = r->word + 1;
	ns->cas_busy[k] = true;
	return true;
}

/* One random op into the batch being built. */
static void gen_op(struct thr *th, const struct oprec *prev)
{
	int node = rnd(&th->rng) % th->cfg->nmem;
	struct nstate *ns;
	uint32_t r = rnd(&th->rng) % 100, len, off;

	if (th->cfg->no_rmw)
		r %= 62;
	/* right after a READ or WRITE: often an RMW on a word inside it */
	else if (prev && prev->kind <= K_WRITE && rnd(&th->rng) % 100 < 30) {
		gen_rmw(th, prev->node, word_in(th, prev->op.addr - th->area_off, prev->op.len));
		return;
	}
	ns = &th->ns[node];
	if (r < 34) {
		len = pick_len(th);
		off = pick_off(th, len);
		gen_read(th, node, off, len);
		remember(ns, off, len);
	} else if (r < 62) {
		len = pick_len(th);
		off = pick_off(th, len);
		gen_write(th, node, off, len, NULL);
		remember(ns, off, len);
	} else if (r < 84) {
		/* a third aim inside a READ or WRITE still in flight or just sent */
		if (ns->nrecent && rnd(&th->rng) % 3 == 0) {
			struct range *g = &ns->recent[rnd(&th->rng) % ns->nrecent];

			off = word_in(th, g->off, g->len);
		} else {
			off = (rnd(&th->rng) % th->area_size) & ~7u;
		}
		gen_rmw(th, node, off);
	} else if (r < 93 || !gen_shared_cas(th, node)) {
		gen_shared_fadd(th, node);
	}
}

static uint32_t pick_batch(struct thr *th)
{
	uint32_t r = rnd(&th->rng) % 100;

	if (r < 45)
		return 1 + rnd(&th->rng) % 8;
	if (r < 80)
		return 9 + rnd(&th->rng) % 56;
	return 65 + rnd(&th->rng) % (EDM_OP_BATCH_MAX - 64);
}

static bool keep_going(struct thr *th, uint64_t issued)
{
	if (stopped(th))
		return false;
	if (th->target)
		return issued < th->target;
	return now_ms() < th->deadline;
}

static int workload(struct thr *th)
{
	uint64_t issued = 0;

	while (keep_going(th, issued)) {
		uint32_t n = pick_batch(th), i;
		const struct oprec *prev = NULL;

		if (th->target && n > th->target - issued)
			n = th->target - issued;
		while (th->inflight_batches >= MAX_BATCHES || !room_for(th, EDM_OP_MAX_LEN))
			if (reap_some(th, 1) < 0)
				return -1;
		if (stopped(th))
			break;
		batch_begin(th);
		for (i = 0; i < n && room_for(th, EDM_OP_MAX_LEN); i++) {
			gen_op(th, prev);
			prev = &th->slots[th->freel[th->nfree]];	/* the slot just taken */
		}
		issued += i;
		if (batch_submit(th))
			return -1;
		if (reap_some(th, 0) < 0)
			return -1;
	}
	return drain(th);
}

/*
 * Fill (@write) or read back every area of the thread in BULK_LEN ops, all
 * nodes in the same batches. Read-backs skip nodes that cannot be judged.
 */
static int bulk(struct thr *th, bool write)
{
	uint64_t off;
	int node;

	batch_begin(th);
	for (off = 0; off < th->area_size; off += BULK_LEN) {
		uint32_t len = th->area_size - off < BULK_LEN ? th->area_size - off : BULK_LEN;

		for (node = 0; node < th->cfg->nmem; node++) {
			if (!write && th->ns[node].failed)
				continue;
			if (th->cur->n == EDM_OP_BATCH_MAX || !room_for(th, len)) {
				if (batch_submit(th))
					return -1;
				while (!room_for(th, len))
					if (reap_some(th, 1) < 0)
						return -1;
				batch_begin(th);
			}
			if (write)
				gen_write(th, node, off, len, th->ns[node].shadow + off);
			else
				gen_read(th, node, off, len);
		}
	}
	if (batch_submit(th))
		return -1;
	return drain(th);
}

/* Opens device @d, presenting each memory node's key (EDM_IOC_KEY); an fd or -1. */
static int dev_open(const struct cfg *c, int d)
{
	int fd = open(c->dev[d], O_RDWR | O_CLOEXEC), j;

	for (j = 0; fd >= 0 && j < c->nmem; j++) {
		struct edm_key k = { .dst = c->mem[j], .key = c->key[j] };

		if (k.key && ioctl(fd, EDM_IOC_KEY, &k)) {
			report(R_NOTE, "%s: EDM_IOC_KEY: %s", c->dev[d], strerror(errno));
			close(fd);
			fd = -1;
		}
	}
	return fd;
}

static void *thread_main(void *arg)
{
	struct thr *th = arg;
	int node;

	th->fd = dev_open(th->cfg, th->dev);
	if (th->fd < 0) {
		report(R_FAILURE, "%s: %s", th->cfg->dev[th->dev], strerror(errno));
		th->t.errors++;
		return NULL;
	}
	th->last_progress = now_ms();
	for (node = 0; node < th->cfg->nmem; node++)
		fill_random(th->ns[node].shadow, th->area_size, &th->rng);
	if (!bulk(th, true) && !stopped(th))
		workload(th);
	if (!th->dead && !stopped(th))
		bulk(th, false);
	drain(th);
	close(th->fd);		/* allowed with ops in flight, if any went missing */
	return NULL;
}

/* ---- setup, the shared counters, the whole run ---- */

/* One op, synchronously, on @fd: its status, or -errno. */
static int sync_op(int fd, uint8_t opcode, uint16_t dst, uint64_t addr, void *buf,
		   uint32_t len, uint32_t wait_ms)
{
	struct edm_op op = { .opcode = opcode, .dst = dst, .addr = addr, .len = len,
			     .buf = (uintptr_t)buf, .user_data = 1 };
	struct edm_submit s = { .ops = (uintptr_t)&op, .nr = 1 };
	struct edm_cqe c;
	struct edm_reap r = { .cqes = (uintptr_t)&c, .max = 1, .min = 1, .timeout_ms = 1000 };
	uint64_t t0 = now_ms();

	if (ioctl(fd, EDM_IOC_SUBMIT, &s))
		return -errno;
	while (now_ms() - t0 < wait_ms) {
		r.nr = 0;
		if (ioctl(fd, EDM_IOC_REAP, &r) && errno != EINTR)
			return -errno;
		if (r.nr == 1)
			return c.status;
	}
	return -ETIME;
}

static int probe(struct cfg *c, uint64_t *minsize)
{
	int fd = dev_open(c, 0), j;

	if (fd < 0) {
		report(R_NOTE, "%s: %s", c->dev[0], strerror(errno));
		return -1;
	}
	*minsize = UINT64_MAX;
	for (j = 0; j < c->nmem; j++) {
		struct edm_target t = { .dst = c->mem[j] };

		if (ioctl(fd, EDM_IOC_TARGET, &t)) {
			report(R_NOTE, "%s: EDM_IOC_TARGET %u: %s", c->dev[0], c->mem[j],
			       strerror(errno));
			close(fd);
			return -1;
		}
		if (t.size < *minsize)
			*minsize = t.size;
	}
	close(fd);
	return 0;
}

/* Zero the shared counters, and read them back: the writes have landed. */
static int counters_zero(const struct cfg *c, struct totals *tot)
{
	uint8_t zero[COUNTERS_LEN] = {}, back[COUNTERS_LEN];
	int fd = dev_open(c, 0), j, err = 0;
	uint32_t wait = c->timeout_ms + 30000;

	if (fd < 0)
		return -errno;
	for (j = 0; j < c->nmem && !err; j++) {
		err = sync_op(fd, EDM_OP_WRITE, c->mem[j], 0, zero, sizeof(zero), wait);
		if (!err)
			err = sync_op(fd, EDM_OP_READ, c->mem[j], 0, back, sizeof(back), wait);
		tot->ops += 2;
		if (!err && memcmp(back, zero, sizeof(zero))) {
			report(R_MISMATCH, "mismatch: node %u: the shared counters read back non-zero "
			       "after they were zeroed", c->mem[j]);
			tot->mismatches++;
		} else if (!err) {
			tot->verified += 2;
		}
	}
	close(fd);
	if (err) {
		report(R_FAILURE, "zeroing the shared counters: %s", strerror(-err));
		if (err == -ETIMEDOUT)
			tot->timeouts++;
		else
			tot->errors++;
	}
	return err;
}

static void bad_counter(struct totals *tot, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void bad_counter(struct totals *tot, const char *fmt, ...)
{
	char s[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s, sizeof(s), fmt, ap);
	va_end(ap);
	tot->mismatches++;
	report(R_MISMATCH, "mismatch: %s", s);
}

/* The shared counters' final values against every thread's view of them. */
static void counters_check(const struct cfg *c, struct thr *ths, int nth, bool exact,
			   struct totals *tot)
{
	uint8_t v[COUNTERS_LEN];
	int fd = dev_open(c, 0), j, i, k, err;
	size_t e;

	if (fd < 0) {
		tot->errors++;
		return;
	}
	for (j = 0; j < c->nmem; j++) {
		err = sync_op(fd, EDM_OP_READ, c->mem[j], 0, v, sizeof(v), c->timeout_ms + 30000);
		tot->ops++;
		if (err) {
			report(R_FAILURE, "node %u: reading the shared counters: %s", c->mem[j],
			       strerror(-err));
			if (err == -ETIMEDOUT)
				tot->timeouts++;
			else
				tot->errors++;
			continue;
		}
		tot->verified++;
		for (k = 0; k < NFADD; k++) {
			uint64_t final = get64(v + FADD_OFF(k)), sum = 0;

			for (i = 0; i < nth; i++) {
				const struct fadd_log *l = &ths[i].ns[j].fadd[k];
				const struct fadd_ent *last = NULL;

				sum += ths[i].ns[j].fadd_sum[k];
				/* in one file's submission order, each sees the ones before */
				for (e = 0; e < l->n; e++) {
					if (!l->e[e].done)
						continue;
					if (last && l->e[e].result < last->result + last->addend)
						bad_counter(tot, "%s thread %d node %u: shared FADD counter "
							    "%d: FADD #%zu saw %llu, but the one before "
							    "it saw %llu and added %llu",
							    c->dev[ths[i].dev], ths[i].idx, c->mem[j], k,
							    e, (unsigned long long)l->e[e].result,
							    (unsigned long long)last->result,
							    (unsigned long long)last->addend);
					last = &l->e[e];
				}
				if (last && final < last->result + last->addend)
					bad_counter(tot, "%s thread %d node %u: shared FADD counter %d "
						    "ends at %llu, below %llu + %llu that it saw and added",
						    c->dev[ths[i].dev], ths[i].idx, c->mem[j], k,
						    (unsigned long long)final,
						    (unsigned long long)last->result,
						    (unsigned long long)last->addend);
			}
			if (exact && final != sum)
				bad_counter(tot, "node %u: shared FADD counter %d ends at %llu, the "
					    "addends sum to %llu", c->mem[j], k,
					    (unsigned long long)final, (unsigned long long)sum);
		}
		for (k = 0; k < NCAS; k++) {
			uint64_t final = get64(v + CAS_OFF(k)), wins = 0;

			for (i = 0; i < nth; i++) {
				wins += ths[i].ns[j].cas_wins[k];
				if (final < ths[i].ns[j].cas_guess[k])
					bad_counter(tot, "%s thread %d node %u: shared CAS counter %d "
						    "ends at %llu, below the %llu it saw",
						    c->dev[ths[i].dev], ths[i].idx, c->mem[j], k,
						    (unsigned long long)final,
						    (unsigned long long)ths[i].ns[j].cas_guess[k]);
			}
			if (exact && final != wins)
				bad_counter(tot, "node %u: shared CAS counter %d ends at %llu after "
					    "%llu successful increments", c->mem[j], k,
					    (unsigned long long)final, (unsigned long long)wins);
		}
		if (!exact && c->counters_exact)
			report(R_NOTE, "node %u: shared counters not checked exactly: some of their "
			       "ops failed", c->mem[j]);
	}
	close(fd);
}

static void totals_add(struct totals *a, const struct totals *b)
{
	a->ops += b->ops;
	a->verified += b->verified;
	a->mismatches += b->mismatches;
	a->timeouts += b->timeouts;
	a->errors += b->errors;
	a->unchecked += b->unchecked;
	a->lost += b->lost;
}

/* The whole run: 0 when it ran (see @tot for what it found), -1 when it could not. */
static int stress_run(struct cfg *c, struct totals *tot)
{
	int nth = c->ndev * c->threads, i, j, k;
	uint64_t minsize, region, area, seed = c->seed;
	bool exact = c->counters_exact, uncertain = false;
	struct thr *ths;
	pthread_t *tids;

	memset(tot, 0, sizeof(*tot));
	memset(reports, 0, sizeof(reports));
	run_stopped = 0;
	if (probe(c, &minsize))
		return -1;
	if (c->base < SHARED_SIZE || c->base >= minsize) {
		report(R_NOTE, "base 0x%llx: must be at least %u (the shared counters' page) and "
		       "inside the smallest region (%llu bytes)", (unsigned long long)c->base,
		       SHARED_SIZE, (unsigned long long)minsize);
		return -1;
	}
	if (c->base % 8) {
		report(R_NOTE, "base 0x%llx: must be a multiple of 8", (unsigned long long)c->base);
		return -1;
	}
	if (c->region > minsize) {
		report(R_NOTE, "region %llu: a memory node serves only %llu bytes",
		       (unsigned long long)c->region, (unsigned long long)minsize);
		return -1;
	}
	region = c->region ?: minsize;
	if (c->area) {
		area = c->area / PAGE * PAGE;
	} else {
		area = region > c->base ? (region - c->base) / nth / PAGE * PAGE : 0;
		if (area > AREA_DEFAULT)
			area = AREA_DEFAULT;
	}
	if (area < AREA_MIN || c->base + nth * area > region) {
		report(R_NOTE, "%d areas (%d devices x %d threads) of %llu bytes from 0x%llx do not "
		       "fit in a region of %llu bytes (an area takes %u at least)", nth, c->ndev,
		       c->threads, (unsigned long long)area, (unsigned long long)c->base,
		       (unsigned long long)region, AREA_MIN);
		return -1;
	}
	report(R_NOTE, "%d areas of %llu bytes at [0x%llx, 0x%llx) of every region, seed 0x%llx", nth,
	       (unsigned long long)area, (unsigned long long)c->base,
	       (unsigned long long)(c->base + nth * area), (unsigned long long)c->seed);
	if (exact && counters_zero(c, tot))
		return 0;
	ths = calloc(nth, sizeof(*ths));
	tids = calloc(nth, sizeof(*tids));
	if (!ths || !tids) {
		perror("calloc");
		exit(2);
	}
	for (i = 0; i < nth; i++) {
		struct thr *th = &ths[i];

		th->cfg = c;
		th->dev = i / c->threads;
		th->idx = i % c->threads;
		th->area_size = area;
		th->area_off = c->base + (uint64_t)i * area;
		th->max_len = c->max_len < area ? c->max_len : area;
		th->fd = -1;
		th->rng = splitmix(&seed) | 1;
		th->target = c->ops;
		th->deadline = now_ms() + c->seconds * 1000;
		for (k = 0; k < (int)NSLOTS; k++)
			th->freel[k] = NSLOTS - 1 - k;
		th->nfree = NSLOTS;
		for (j = 0; j < c->nmem; j++) {
			th->ns[j].shadow = xmalloc(area);
			th->ns[j].poison = UINT64_MAX;
		}
	}
	for (i = 0; i < nth; i++)
		if (pthread_create(&tids[i], NULL, thread_main, &ths[i])) {
			perror("pthread_create");
			exit(2);
		}
	for (i = 0; i < nth; i++) {
		pthread_join(tids[i], NULL);
		totals_add(tot, &ths[i].t);
		uncertain |= ths[i].counters_uncertain;
	}
	if (run_stopped)
		report(R_NOTE, "stopped at the first timeout or error: the areas were not read "
		       "back, the shared counters not checked");
	else
		counters_check(c, ths, nth, exact && !uncertain, tot);
	for (i = 0; i < nth; i++)
		for (j = 0; j < c->nmem; j++) {
			free(ths[i].ns[j].shadow);
			for (k = 0; k < NFADD; k++)
				free(ths[i].ns[j].fadd[k].e);
		}
	free(ths);
	free(tids);
	return 0;
}

/* ---- run mode ---- */

static void usage(FILE *f)
{
	fprintf(f,
"Usage: fabric_stress run [--seconds S | --ops N] [--threads T]\n"
"                         --dev /dev/edmX[,/dev/edmY...] --mem ADDR[,ADDR...]\n"
"                         [--keys KEY[,KEY...]] [--region BYTES] [--base OFFSET]\n"
"                         [--area BYTES] [--seed S]\n"
"                         [--counters-exact] [--no-rmw] [--max-len L] [--timeout MS]\n"
"                         [--quiet]\n"
"       fabric_stress        (the kselftest harness: builds its own topologies)\n"
"\n"
"  --dev       the /dev/edm<N> of the compute hosts to issue from\n"
"  --mem       the fabric addresses of the memory nodes\n"
"  --keys      their region keys, one per --mem in its order (0: none), for\n"
"              keyed regions (edmctl region key)\n"
"  --threads   threads (each with its own file) per device, 1..%d (default 4)\n"
"  --seconds   run this long (default 10), or\n"
"  --ops       submit about this many ops in all (split over the threads)\n"
"  --region    the memory nodes' region size (default: as they report it)\n"
"  --base      where this process's areas start in every region (default 4096;\n"
"              the shared counters are the first 48 bytes: at least 4096)\n"
"  --area      bytes per device and thread (default 128K, or what fits)\n"
"  --seed      the workload's seed (default: from the time)\n"
"  --no-rmw    READs and WRITEs only: no RMW, which a failover to a standby\n"
"              switch may end with ENETRESET\n"
"  --counters-exact  zero the shared counters first and check their final\n"
"              values exactly (only one process may use the nodes then)\n"
"  --max-len   longest READ or WRITE, 1..65535 (default 65535)\n"
"  --timeout   the hosts' op timeout in ms (default 60000): no completion for\n"
"              30 s past it counts the ops in flight as lost\n"
"  --quiet     no detail lines, the last line only\n"
"The process uses [base, base + devices * threads * area) of every region.\n"
"Sizes take K, M or G. The last line is\n"
"  fabric_stress: ops N verified N mismatches N timeouts N errors N\n"
"and the exit status is 1 if any of the last three is not 0.\n", MAXTHR);
}

static bool parse_u64(const char *s, uint64_t *v, bool size)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	if (errno || end == s || *s == '-')
		return false;
	if (size && *end) {
		int sh = *end == 'K' || *end == 'k' ? 10 : *end == 'M' || *end == 'm' ? 20 :
			 *end == 'G' || *end == 'g' ? 30 : -1;

		if (sh < 0 || end[1] || *v > (UINT64_MAX >> sh))
			return false;
		*v <<= sh;
		end++;
	}
	return !*end;
}

static int run_main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "seconds", required_argument, NULL, 's' },
		{ "ops", required_argument, NULL, 'o' },
		{ "threads", required_argument, NULL, 't' },
		{ "dev", required_argument, NULL, 'd' },
		{ "mem", required_argument, NULL, 'm' },
		{ "keys", required_argument, NULL, 'k' },
		{ "region", required_argument, NULL, 'r' },
		{ "area", required_argument, NULL, 'a' },
		{ "base", required_argument, NULL, 'b' },
		{ "seed", required_argument, NULL, 'S' },
		{ "counters-exact", no_argument, NULL, 'c' },
		{ "no-rmw", no_argument, NULL, 'R' },
		{ "max-len", required_argument, NULL, 'l' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	static struct cfg c;
	struct totals tot;
	uint64_t v, total_ops = 0;
	char *list, *tok, *save;
	bool have_seconds = false;
	int o, bad, nkeys = -1;

	c = (struct cfg){ .threads = 4, .seconds = 10, .base = SHARED_SIZE,
			  .seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32),
			  .max_len = EDM_OP_MAX_LEN, .timeout_ms = 60000 };
	log_out = stderr;
	logpfx = "fabric_stress: ";
	while ((o = getopt_long(argc, argv, "s:o:t:d:m:k:r:a:b:S:cRl:T:qh", lopts, NULL)) != -1) {
		bad = 0;
		switch (o) {
		case 's':
			bad = !parse_u64(optarg, &c.seconds, false) || !c.seconds;
			have_seconds = true;
			break;
		case 'o':
			bad = !parse_u64(optarg, &total_ops, false) || !total_ops;
			break;
		case 't':
			bad = !parse_u64(optarg, &v, false) || !v || v > MAXTHR;
			c.threads = v;
			break;
		case 'd':
			list = strdup(optarg);
			for (tok = strtok_r(list, ",", &save); tok && !bad;
			     tok = strtok_r(NULL, ",", &save)) {
				bad = c.ndev == MAXDEV || strlen(tok) >= sizeof(c.dev[0]);
				if (!bad)
					strcpy(c.dev[c.ndev++], tok);
			}
			free(list);
			break;
		case 'm':
			list = strdup(optarg);
			for (tok = strtok_r(list, ",", &save); tok && !bad;
			     tok = strtok_r(NULL, ",", &save)) {
				bad = c.nmem == MAXMEM || !parse_u64(tok, &v, false) || v > 511;
				if (!bad)
					c.mem[c.nmem++] = v;
			}
			free(list);
			break;
		case 'k':
			list = strdup(optarg);
			nkeys = 0;
			for (tok = strtok_r(list, ",", &save); tok && !bad;
			     tok = strtok_r(NULL, ",", &save)) {
				bad = nkeys == MAXMEM || !parse_u64(tok, &v, false);
				if (!bad)
					c.key[nkeys++] = v;
			}
			free(list);
			break;
		case 'r':
			bad = !parse_u64(optarg, &c.region, true) || !c.region;
			break;
		case 'a':
			bad = !parse_u64(optarg, &c.area, true) || c.area < AREA_MIN;
			break;
		case 'b':
			bad = !parse_u64(optarg, &c.base, true);
			break;
		case 'S':
			bad = !parse_u64(optarg, &c.seed, false);
			break;
		case 'c':
			c.counters_exact = true;
			break;
		case 'R':
			c.no_rmw = true;
			break;
		case 'l':
			bad = !parse_u64(optarg, &v, false) || !v || v > EDM_OP_MAX_LEN;
			c.max_len = v;
			break;
		case 'T':
			bad = !parse_u64(optarg, &v, false) || !v || v > 600000;
			c.timeout_ms = v;
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			fprintf(stderr, "Try 'fabric_stress run --help'.\n");
			return 2;
		}
		if (bad) {
			const struct option *p = lopts;

			while (p->name && p->val != o)
				p++;
			fprintf(stderr, "fabric_stress: bad --%s value \"%s\"\n", p->name, optarg);
			return 2;
		}
	}
	if (optind != argc || !c.ndev || !c.nmem || (have_seconds && total_ops) ||
	    (nkeys >= 0 && nkeys != c.nmem)) {
		fprintf(stderr, "fabric_stress: %s\n", optind != argc ? "unexpected arguments" :
			!c.ndev ? "--dev is required" : !c.nmem ? "--mem is required" :
			nkeys >= 0 && nkeys != c.nmem ? "--keys needs one key per --mem" :
			"--seconds and --ops exclude each other");
		fprintf(stderr, "Try 'fabric_stress run --help'.\n");
		return 2;
	}
	if (total_ops) {
		int nth = c.ndev * c.threads;

		c.ops = (total_ops + nth - 1) / nth;
	}
	if (stress_run(&c, &tot))
		return 2;
	if (tot.lost || tot.unchecked)
		fprintf(stderr, "fabric_stress: of the errors, %llu ops never completed; %llu "
			"completions not judged (after a failure)\n", (unsigned long long)tot.lost,
			(unsigned long long)tot.unchecked);
	fflush(stderr);
	printf("fabric_stress: ops %llu verified %llu mismatches %llu timeouts %llu errors %llu\n",
	       (unsigned long long)tot.ops, (unsigned long long)tot.verified,
	       (unsigned long long)tot.mismatches, (unsigned long long)tot.timeouts,
	       (unsigned long long)tot.errors);
	return tot.mismatches || tot.timeouts || tot.errors ? 1 : 0;
}

/* ---- harness mode: the topologies, through netlink ---- */

#define REGION		(4u << 20)
#define SW		"fs_sw"
#define SB		"fs_sb"		/* the failover variant's standby switch */
#define HOST_ADDR(i)	(1 + (i))
#define MEM_ADDR(j)	(9 + (j))
#define NHOSTS_MAX	4
#define NMEMS_MAX	4

#define NLA_DATA(a) ((const unsigned char *)(a) + NLA_HDRLEN)

static int scale(void)
{
	const char *s = getenv("EDM_TEST_SCALE");
	int n = s ? atoi(s) : 1;

	return n > 0 ? n : 1;
}

static uint32_t host_timeout_ms(void)
{
	uint32_t ms = 20000 * scale();

	return ms < 60000 ? ms : 60000;
}

static int fab_del(struct genl_sock *gs, const char *name)
{
	struct attrbuf ab = {};

	ab_put_str(&ab, EDM_A_FAB_NAME, name);
	return genl_request(gs, EDM_CMD_FABRIC_DEL, 0, &ab, NULL, NULL);
}

static int fab_switch(struct genl_sock *gs, const char *name, uint32_t policy, uint32_t chunk)
{
	struct attrbuf ab = {};
	int err;

	ab_put_str(&ab, EDM_A_FAB_NAME, name);
	ab_put_u32(&ab, EDM_A_FAB_TYPE, EDM_DEV_TYPE_FSWITCH);
	ab_put_u32(&ab, EDM_A_FAB_PORTS, 16);
	ab_put_u32(&ab, EDM_A_FAB_POLICY, policy);
	if (chunk)
		ab_put_u32(&ab, EDM_A_FAB_CHUNK, chunk);
	err = genl_request(gs, EDM_CMD_FABRIC_NEW, 0, &ab, NULL, NULL);
	if (err)
		report(R_NOTE, "FABRIC_NEW %s: %s (%s)", name, strerror(-err), gs->errmsg);
	return err;
}

static void minor_cb(const struct nlattr *attrs, size_t len, void *arg)
{
	const struct nlattr *a = genl_attr(attrs, len, EDM_A_FAB_MINOR);

	if (a)
		memcpy(arg, NLA_DATA(a), sizeof(uint32_t));
}

/* @name's port @port linked to @sw's port @addr. */
static int fab_link(struct genl_sock *gs, const char *name, uint32_t port, const char *sw,
		    uint32_t addr)
{
	struct attrbuf ab = {};
	int err;

	ab_put_str(&ab, EDM_A_FLINK_NODE, name);
	ab_put_u32(&ab, EDM_A_FLINK_PORT, port);
	ab_put_str(&ab, EDM_A_FLINK_PEER, sw);
	ab_put_u32(&ab, EDM_A_FLINK_PEER_PORT, addr);
	err = genl_request(gs, EDM_CMD_FLINK_NEW, 0, &ab, NULL, NULL);
	if (err)
		report(R_NOTE, "FLINK_NEW %s: %s (%s)", name, strerror(-err), gs->errmsg);
	return err;
}

/*
 * A host linked to the switch's port @addr, and with @standby, its second
 * port to the standby switch's; its minor, or -errno.
 */
static int fab_host(struct genl_sock *gs, const char *name, uint32_t addr, uint64_t region,
		    bool keyed, bool standby)
{
	struct attrbuf ab = {};
	int32_t minor = -1;
	int err;

	ab_put_str(&ab, EDM_A_FAB_NAME, name);
	ab_put_u32(&ab, EDM_A_FAB_TYPE, EDM_DEV_TYPE_FHOST);
	ab_put_u32(&ab, EDM_A_FAB_ADDR, addr);
	if (standby)
		ab_put_u32(&ab, EDM_A_FAB_PORTS, 2);
	ab_put_u32(&ab, EDM_A_FAB_TIMEOUT_MS, host_timeout_ms());
	if (region)
		ab_put(&ab, EDM_A_FAB_REGION_SIZE, &region, sizeof(region));
	if (keyed)
		ab_put(&ab, EDM_A_FAB_REGION_KEYED, "", 0);
	err = genl_request(gs, EDM_CMD_FABRIC_NEW, 0, &ab, minor_cb, &minor);
	if (err) {
		report(R_NOTE, "FABRIC_NEW %s: %s (%s)", name, strerror(-err), gs->errmsg);
		return err;
	}
	err = fab_link(gs, name, 0, SW, addr);
	if (!err && standby)
		err = fab_link(gs, name, 1, SB, addr);
	if (err)
		return err;
	return minor >= 0 ? minor : -EPROTO;
}

static void key_cb(const struct nlattr *attrs, size_t len, void *arg)
{
	const struct nlattr *a = genl_attr(attrs, len, EDM_A_REGION_KEY);

	if (a && a->nla_len == NLA_HDRLEN + sizeof(uint64_t))
		memcpy(arg, NLA_DATA(a), sizeof(uint64_t));
}

/* The region key of host @name (REGION_GET, as root); 0 if none. */
static uint64_t region_key(struct genl_sock *gs, const char *name)
{
	struct attrbuf ab = {};
	uint64_t key = 0;

	ab_put_str(&ab, EDM_A_REGION_OWNER, name);
	if (genl_request(gs, EDM_CMD_REGION_GET, 0, &ab, key_cb, &key))
		report(R_NOTE, "REGION_GET %s: %s", name, gs->errmsg);
	return key;
}

static void topo_remove(struct genl_sock *gs)
{
	char name[EDM_NAME_LEN];
	int i;

	for (i = 0; i < NHOSTS_MAX; i++) {
		snprintf(name, sizeof(name), "fs_c%d", i);
		fab_del(gs, name);
	}
	for (i = 0; i < NMEMS_MAX; i++) {
		snprintf(name, sizeof(name), "fs_m%d", i);
		fab_del(gs, name);
	}
	fab_del(gs, SW);
	fab_del(gs, SB);
}

FIXTURE(stress) {
	struct genl_sock gs;
	struct cfg cfg;
};

FIXTURE_VARIANT(stress) {
	int hosts, mems, threads;
	uint32_t policy, chunk;		/* chunk 0: the switch's default */
	uint32_t ops;			/* per thread, before EDM_TEST_SCALE */
	bool failover;			/* a standby switch; the active one deleted */
};

FIXTURE_VARIANT_ADD(stress, h2m2_srpt) {
	.hosts = 2, .mems = 2, .threads = 8, .policy = EDM_FAB_POLICY_SRPT,
	.ops = 1000,
};

FIXTURE_VARIANT_ADD(stress, h2m2_fcfs) {
	.hosts = 2, .mems = 2, .threads = 8, .policy = EDM_FAB_POLICY_FCFS,
	.ops = 1000,
};

FIXTURE_VARIANT_ADD(stress, h4m3_srpt) {
	.hosts = 4, .mems = 3, .threads = 4, .policy = EDM_FAB_POLICY_SRPT,
	.ops = 1000,
};

FIXTURE_VARIANT_ADD(stress, h4m3_fcfs) {
	.hosts = 4, .mems = 3, .threads = 4, .policy = EDM_FAB_POLICY_FCFS,
	.ops = 1000,
};

/* Grants of 64 bytes: a long READ or WRITE is hundreds of chunks. */
FIXTURE_VARIANT_ADD(stress, h2m3_chunk64) {
	.hosts = 2, .mems = 3, .threads = 4, .policy = EDM_FAB_POLICY_SRPT, .chunk = 64,
	.ops = 1300,
};

/*
 * A standby switch (EDM 3.3): every host has a second port, on fs_sb, and
 * fs_sw is deleted under the workload, READs and WRITEs only (a failover
 * ends the RMWs it catches with ENETRESET: fabric_ops's standby_switch).
 * Every op must still complete and agree with the model.
 */
FIXTURE_VARIANT_ADD(stress, h2m2_failover) {
	.hosts = 2, .mems = 2, .threads = 4, .policy = EDM_FAB_POLICY_SRPT,
	.ops = 1500, .failover = true,
};

FIXTURE_SETUP(stress)
{
	char name[EDM_NAME_LEN];
	int i, minor;

	log_out = stdout;
	logpfx = "# ";
	ASSERT_EQ(0, genl_open(&self->gs, EDM_GENL_NAME));
	topo_remove(&self->gs);		/* what an aborted run left */
	ASSERT_EQ(0, fab_switch(&self->gs, SW, variant->policy, variant->chunk));
	if (variant->failover)
		ASSERT_EQ(0, fab_switch(&self->gs, SB, variant->policy, variant->chunk));
	for (i = 0; i < variant->mems; i++) {
		snprintf(name, sizeof(name), "fs_m%d", i);
		minor = fab_host(&self->gs, name, MEM_ADDR(i), REGION, true, variant->failover);
		ASSERT_LE(0, minor);
		self->cfg.key[self->cfg.nmem] = region_key(&self->gs, name);
		ASSERT_NE(0ull, self->cfg.key[self->cfg.nmem]);
		self->cfg.mem[self->cfg.nmem++] = MEM_ADDR(i);
	}
	for (i = 0; i < variant->hosts; i++) {
		snprintf(name, sizeof(name), "fs_c%d", i);
		minor = fab_host(&self->gs, name, HOST_ADDR(i), 0, false, variant->failover);
		ASSERT_LE(0, minor);
		snprintf(self->cfg.dev[self->cfg.ndev++], sizeof(self->cfg.dev[0]),
			 "/dev/edm%d", minor);
	}
}

FIXTURE_TEARDOWN(stress)
{
	topo_remove(&self->gs);
	genl_close(&self->gs);
}

/*
 * The failover variant's: deletes the active switch once fs_c0 completed
 * @ops ops (half its share: under the workload however fast it runs), or
 * after a minute; says when.
 */
struct deleter {
	uint64_t ops, at_ms;
	int err;
};

static uint64_t host_stat(struct genl_sock *gs, const char *name, uint16_t stat);

static void *delete_switch(void *arg)
{
	struct deleter *d = arg;
	uint64_t t0 = now_ms(), n;
	struct genl_sock gs;

	d->err = genl_open(&gs, EDM_GENL_NAME);
	if (d->err)
		return NULL;
	do {
		usleep(10000);
		n = host_stat(&gs, "fs_c0", EDM_A_FSTAT_READS) +
		    host_stat(&gs, "fs_c0", EDM_A_FSTAT_WRITES);
	} while (n < d->ops && now_ms() - t0 < 60000);
	d->err = fab_del(&gs, SW);
	d->at_ms = now_ms();
	genl_close(&gs);
	return NULL;
}

TEST_F_TIMEOUT(stress, mixed, 400)
{
	const char *s = getenv("EDM_STRESS_SEED");
	struct cfg *c = &self->cfg;
	struct deleter del = {};
	char name[EDM_NAME_LEN];
	pthread_t deleter;
	struct totals t;
	uint64_t t0 = now_ms(), t1;
	int i;

	/* a slow kernel (EDM_TEST_SCALE > 1) runs half the threads, 2 at least */
	c->threads = scale() > 1 && variant->threads > 2 ? variant->threads / 2 : variant->threads;
	c->ops = variant->ops / scale() ?: 1;
	c->base = SHARED_SIZE;
	c->region = REGION;
	c->seed = s ? strtoull(s, NULL, 0) : 0x5eed0000ull + variant->hosts * 16 + variant->mems +
		  variant->policy * 256 + variant->chunk * 4096;
	c->counters_exact = true;
	c->no_rmw = variant->failover;
	c->max_len = EDM_OP_MAX_LEN;
	c->timeout_ms = host_timeout_ms();
	del.ops = c->ops * c->threads / 2;
	if (variant->failover)
		ASSERT_EQ(0, pthread_create(&deleter, NULL, delete_switch, &del));
	ASSERT_EQ(0, stress_run(c, &t));
	t1 = now_ms();
	if (variant->failover) {
		pthread_join(deleter, NULL);
		ASSERT_EQ(0, del.err);
		/* under the workload, not after it */
		EXPECT_GT(t1, del.at_ms) TH_LOG("the workload ended before the switch was deleted");
		for (i = 0; i < variant->hosts + variant->mems; i++) {
			if (i < variant->hosts)
				snprintf(name, sizeof(name), "fs_c%d", i);
			else
				snprintf(name, sizeof(name), "fs_m%d", i - variant->hosts);
			EXPECT_EQ(1ull, host_stat(&self->gs, name, EDM_A_FSTAT_FAILOVERS))
				TH_LOG("%s", name);
		}
	}
	ksft_print_msg("%d hosts x %d threads, %d memory nodes, seed 0x%llx: %llu ops, %llu "
		       "verified, %llu mismatches, %llu timeouts, %llu errors (%llu ops never "
		       "completed), %llu not judged (after a failure), %.1f s\n", c->ndev,
		       c->threads, c->nmem, (unsigned long long)c->seed, (unsigned long long)t.ops,
		       (unsigned long long)t.verified, (unsigned long long)t.mismatches,
		       (unsigned long long)t.timeouts, (unsigned long long)t.errors,
		       (unsigned long long)t.lost, (unsigned long long)t.unchecked,
		       (now_ms() - t0) / 1000.0);
	fflush(stdout);
	EXPECT_EQ(0ull, t.mismatches);
	EXPECT_EQ(0ull, t.timeouts);
	EXPECT_EQ(0ull, t.errors);
	EXPECT_EQ(t.ops, t.verified);
	EXPECT_LT(0ull, t.ops);
}

/* Host @name's counter @stat (an EDM_A_FSTAT_*); ~0 when it is not there. */
struct u64_in_nest {
	uint16_t nest, type;
	uint64_t v;
};

static void u64_in_nest_cb(const struct nlattr *attrs, size_t len, void *arg)
{
	struct u64_in_nest *u = arg;
	const struct nlattr *n = genl_attr(attrs, len, u->nest), *a;

	if (!n)
		return;
	a = genl_attr((const struct nlattr *)NLA_DATA(n), n->nla_len - NLA_HDRLEN, u->type);
	if (a && a->nla_len == NLA_HDRLEN + sizeof(uint64_t))
		memcpy(&u->v, NLA_DATA(a), sizeof(u->v));
}

static uint64_t host_stat(struct genl_sock *gs, const char *name, uint16_t stat)
{
	struct u64_in_nest u = { EDM_A_FAB_STATS, stat, ~0ull };
	struct attrbuf ab = {};

	ab_put_str(&ab, EDM_A_FAB_NAME, name);
	if (genl_request(gs, EDM_CMD_FABRIC_GET, 0, &ab, u64_in_nest_cb, &u))
		return ~0ull;
	return u.v;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "run"))
		return run_main(argc - 1, argv + 1);
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "help"))) {
		usage(stdout);
		return 0;
	}
	return test_harness_run(argc, argv);
}
