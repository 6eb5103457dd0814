// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
/*
 * /dev/cowbird and the kernel's Cowbird engine, through libcowbird
 * (tools/lib/cowbird) and through raw entries written into the mapping.
 *
 * Each test makes, through netlink, a fabric host cb_mn at address 2 with a
 * 1 MiB region (the local region an instance binds to) and reads its key
 * with REGION_GET. Then:
 *  - create: every rejection of COWBIRD_IOC_CREATE and of mmap;
 *  - integrity: 8 threads on 4 rings write and read random ranges of their
 *    own slice, each read checked against a shadow copy, the whole region
 *    read back at the end;
 *  - read-after-write: a read right after an overlapping write sees it;
 *  - hostile entries written raw: out-of-region addresses, huge lengths, an
 *    unknown rw_type, a wrong region id, a misplaced local address: each
 *    gets its error completion and the ring goes on; a tail moved backwards
 *    stops the ring (book.error ETAIL);
 *  - teardown: a process that exits or is killed with requests in flight,
 *    and a mapping unmapped while the engine runs, leave no instance behind;
 *  - rekey: after REGION_REKEY every op of an instance opened with the old
 *    key completes EACCES and changes nothing, the old key opens nothing,
 *    and the bytes written before are read back under the new key; netlink
 *    shows the instance and the refused accesses, debugfs the new key.
 *
 * The fab fixture adds a switch and a compute host cb_cn at address 1, and
 * its instances reach cb_mn through the EDM fabric (COWBIRD_CREATE_FABRIC,
 * via cb_cn): create checks, integrity, read-after-write, go-back-N under
 * spoiled blocks, exit and kill with ops out, the via host deleted, rekey.
 *
 * Needs edm.ko loaded and root. EDM_TEST_SCALE divides the iterations.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/edm.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "cowbird.h"
#include "genl.h"
#include "kselftest_harness.h"

#define MN		"cb_mn"
#define MN_ADDR		2
#define REGION		(1u << 20)
#define THREADS		8
#define SLICE		(REGION / THREADS)
#define MAXLEN		(3 * COWBIRD_OP_MAX + 100)	/* four ops */
#define DEPTH		16
#define DEBUGFS		"/sys/kernel/debug/edm"
/*
 * How long a completion may take: 10 s, times EDM_TEST_SCALE on a slow
 * kernel (the debug kernel's fabric ops, each resent after a timeout when
 * the machine is loaded, took over 10 s to drain a ring once).
 */
#define WAIT_MS		(10000 * test_scale())
#define SW		"cb_sw"		/* the fabric fixture's switch */
#define CN		"cb_cn"		/* and compute host, the instances' via */
#define CN_ADDR		1
#define FAB_TIMEOUT_MS	200		/* a lost op is resent after this at most */
#define POOL		"cb_pool"	/* the pool fixture's pool */
#define PREGION		(4u << 20)	/* its region: two Sections */
#define PREGION_ID	600

/* The region the shared helpers use: MN_ADDR's, or the pool fixture's. */
static uint16_t cur_region = MN_ADDR;

static int test_scale(void)
{
	const char *s = getenv("EDM_TEST_SCALE");
	int d = s ? atoi(s) : 1;

	return d > 0 ? d : 1;
}

static int scaled(int n)
{
	n /= test_scale();
	return n > 0 ? n : 1;
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ull + ts.tv_nsec / 1000000;
}

/* ---- the region ---- */

static int fab_del(struct genl_sock *gs, const char *name)
{
	struct attrbuf ab = {};

	ab_put_str(&ab, EDM_A_FAB_NAME, name);
	return genl_request(gs, EDM_CMD_FABRIC_DEL, 0, &ab, NULL, NULL);
}

/*
 * A fabric node: a switch when @addr < 0, else a host (with a keyed region
 * if @region: the fabric target's ops carry the key, which it checks).
 */
static int fab_new(struct genl_sock *gs, const char *name, int addr, uint64_t region)
{
	struct attrbuf ab = {};
	int err;

	ab_put_str(&ab, EDM_A_FAB_NAME, name);
	ab_put_u32(&ab, EDM_A_FAB_TYPE, addr < 0 ? EDM_DEV_TYPE_FSWITCH : EDM_DEV_TYPE_FHOST);
	if (addr >= 0) {
		ab_put_u32(&ab, EDM_A_FAB_ADDR, addr);
		ab_put_u32(&ab, EDM_A_FAB_TIMEOUT_MS, FAB_TIMEOUT_MS);
	}
	if (region) {
		ab_put(&ab, EDM_A_FAB_REGION_SIZE, &region, sizeof(region));
		ab_put(&ab, EDM_A_FAB_REGION_KEYED, "", 0);
	}
	err = genl_request(gs, EDM_CMD_FABRIC_NEW, 0, &ab, NULL, NULL);
	if (err)
		fprintf(stderr, "FABRIC_NEW %s: %s (%s)\n", name, strerror(-err), gs->errmsg);
	return err;
}

/* The u64 attribute @type among a reply's attributes, into @arg (untouched if absent). */
struct u64_attr {
	uint16_t type;
	int found;
	uint64_t v;
};

static void u64_attr_cb(const struct nlattr *attrs, size_t len, void *arg)
{
	const struct nlattr *a;
	struct u64_attr *u = arg;

	a = genl_attr(attrs, len, u->type);
	if (a && a->nla_len == NLA_HDRLEN + sizeof(u->v)) {
		memcpy(&u->v, (const char *)a + NLA_HDRLEN, sizeof(u->v));
		u->found = 1;
	}
}

/* REGION_GET or REGION_REKEY of @name's region: its u64 attribute @type, 0 if none. */
static uint64_t region_u64(struct genl_sock *gs, uint8_t cmd, const char *name, uint16_t type)
{
	struct u64_attr u = { .type = type };
	struct attrbuf ab = {};
	int err;

	ab_put_str(&ab, EDM_A_REGION_OWNER, name);
	err = genl_request(gs, cmd, 0, &ab, u64_attr_cb, &u);
	if (err)
		fprintf(stderr, "region %s: %s (%s)\n", name, strerror(-err), gs->errmsg);
	return u.found ? u.v : 0;
}

/* The key of host @name's region, as netlink shows root. */
static uint64_t region_key(struct genl_sock *gs, const char *name)
{
	return region_u64(gs, EDM_CMD_REGION_GET, name, EDM_A_REGION_KEY);
}

/* The key of host @name's region in our netns, from debugfs; 0 if not found. */
static uint64_t debugfs_region_key(const char *name)
{
	unsigned long long size, key, found = 0;
	unsigned int inum, addr;
	char line[256], host[64];
	struct stat st;
	FILE *f;

	if (stat("/proc/self/ns/net", &st))
		return 0;
	f = fopen(DEBUGFS "/cowbird_regions", "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%u %u %63s %llu %llx", &inum, &addr, host, &size, &key) == 5 &&
		    inum == st.st_ino && !strcmp(host, name))
			found = key;
	fclose(f);
	return found;
}

/* Live objects of kind @what, from debugfs edm/objects; -1 if unreadable. */
static int live_objects(const char *what)
{
	char line[128], kind[32];
	int n, found = -1;
	FILE *f = fopen(DEBUGFS "/objects", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%31s %d", kind, &n) == 2 && !strcmp(kind, what))
			found = n;
	fclose(f);
	return found;
}

static int live_instances(void)
{
	return live_objects("cowbird");
}

/* Polls until no instance is left (their files may close a little later). */
static int instances_gone(void)
{
	uint64_t end = now_ms() + WAIT_MS;

	while (live_instances() != 0) {
		if (now_ms() > end)
			return 0;
		usleep(10000);
	}
	return 1;
}

/* ---- a raw instance: the mapping without the library ---- */

struct raw {
	int fd;
	struct cowbird_create c;
	uint8_t *base;
	struct cowbird_book *book;
	struct cowbird_meta *meta;
	struct cowbird_cqe *cq;
	uint8_t *req, *resp;
	uint32_t entries, data;
};

static int raw_create(int fd, uint64_t key, uint16_t id, uint16_t rings, uint8_t meta,
		      uint8_t data, struct cowbird_create *c)
{
	memset(c, 0, sizeof(*c));
	c->abi_version = COWBIRD_ABI_VERSION;
	c->region_key = key;
	c->region_id = id;
	c->nr_rings = rings;
	c->meta_order = meta;
	c->data_order = data;
	return ioctl(fd, COWBIRD_IOC_CREATE, c) ? -errno : 0;
}

static int raw_open(struct raw *r, uint64_t key)
{
	uint8_t *ring;
	int err;

	r->fd = open("/dev/cowbird", O_RDWR | O_CLOEXEC);
	if (r->fd < 0)
		return -errno;
	err = raw_create(r->fd, key, cur_region, 1, 4, 12, &r->c);
	if (err)
		return err;
	r->base = mmap(NULL, r->c.mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
	if (r->base == MAP_FAILED)
		return -errno;
	ring = r->base + r->c.ring_off;
	r->book = (struct cowbird_book *)(r->base + r->c.book_off);
	r->meta = (struct cowbird_meta *)(ring + r->c.meta_off);
	r->cq = (struct cowbird_cqe *)(ring + r->c.cq_off);
	r->req = ring + r->c.req_off;
	r->resp = ring + r->c.resp_off;
	r->entries = 1u << 4;
	r->data = 1u << 12;
	return 0;
}

static void raw_close(struct raw *r)
{
	if (r->base && r->base != MAP_FAILED)
		munmap(r->base, r->c.mmap_size);
	close(r->fd);
}

/*
 * Issues one entry as a producer would, the fields as given, reserving
 * @reserve bytes of data at the computed place (0: none). Returns its index.
 */
static uint32_t raw_issue(struct raw *r, uint16_t type, uint16_t region, uint32_t len,
			  uint64_t remote, int64_t local, uint32_t reserve)
{
	uint64_t tail = __atomic_load_n(&r->book->tail, __ATOMIC_ACQUIRE);
	uint32_t idx = COWBIRD_POS_IDX(tail), d = COWBIRD_POS_DATA(tail), place = d, end = d;
	struct cowbird_meta *m = &r->meta[idx & (r->entries - 1)];

	if (reserve) {
		place = cowbird_data_place(d, reserve, r->data);
		end = place + reserve;
	}
	if (local < 0)
		local = place & (r->data - 1);
	m->region_id = region;
	m->length = len;
	m->req_addr = type == COWBIRD_RW_READ ? remote : (uint64_t)local;
	m->resp_addr = type == COWBIRD_RW_READ ? (uint64_t)local : remote;
	m->index = idx;
	m->pad = 0;
	__atomic_store_n(&r->book->tail, COWBIRD_POS(idx + 1, end), __ATOMIC_RELEASE);
	__atomic_store_n(&m->rw_type, type, __ATOMIC_RELEASE);
	return idx;
}

/* Waits for entry @idx to complete and frees it; its record's status or -1. */
static int raw_wait(struct raw *r, uint32_t idx)
{
	uint64_t end = now_ms() + WAIT_MS;
	struct cowbird_cqe *c = &r->cq[idx & (r->entries - 1)];

	for (;;) {
		uint32_t rd = __atomic_load_n(&r->book->rd_done, __ATOMIC_ACQUIRE);
		uint32_t wr = __atomic_load_n(&r->book->wr_done, __ATOMIC_ACQUIRE);

		if ((int32_t)(rd - idx) > 0 && (int32_t)(wr - idx) > 0)
			break;
		if (now_ms() > end || r->book->error)
			return -1;
		usleep(100);
	}
	r->meta[idx & (r->entries - 1)].rw_type = 0;
	__atomic_store_n(&r->book->head, __atomic_load_n(&r->book->tail, __ATOMIC_RELAXED),
			 __ATOMIC_RELEASE);
	return c->index == idx ? c->status : -1;
}

/* ---- the fixture ---- */

FIXTURE(cb) {
	struct genl_sock gs;
	uint64_t key;
};

FIXTURE_SETUP(cb)
{
	if (access("/dev/cowbird", F_OK))
		SKIP(return, "no /dev/cowbird: edm.ko not loaded");
	ASSERT_EQ(0, genl_open(&self->gs, EDM_GENL_NAME));
	fab_del(&self->gs, MN);		/* what an aborted run left */
	ASSERT_EQ(0, fab_new(&self->gs, MN, MN_ADDR, REGION));
	self->key = region_key(&self->gs, MN);
	ASSERT_NE(0, self->key) TH_LOG("no key for %s from REGION_GET", MN);
	EXPECT_EQ(self->key, debugfs_region_key(MN));
}

FIXTURE_TEARDOWN(cb)
{
	fab_del(&self->gs, MN);
	genl_close(&self->gs);
}

/* ---- create and mmap ---- */

TEST_F(cb, create_checks)
{
	struct cowbird_create c, c2;
	void *p;
	int fd;

	fd = open("/dev/cowbird", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-ENOENT, raw_create(fd, self->key, MN_ADDR + 1, 1, 4, 12, &c));
	EXPECT_EQ(-EACCES, raw_create(fd, self->key ^ 1, MN_ADDR, 1, 4, 12, &c));
	EXPECT_EQ(-EINVAL, raw_create(fd, self->key, MN_ADDR, 0, 4, 12, &c));
	EXPECT_EQ(-EINVAL, raw_create(fd, self->key, MN_ADDR, 65, 4, 12, &c));
	EXPECT_EQ(-EINVAL, raw_create(fd, self->key, MN_ADDR, 1, 3, 12, &c));
	EXPECT_EQ(-EINVAL, raw_create(fd, self->key, MN_ADDR, 1, 4, 25, &c));
	memset(&c, 0, sizeof(c));
	c.abi_version = 99;
	EXPECT_EQ(-1, ioctl(fd, COWBIRD_IOC_CREATE, &c));
	EXPECT_EQ(EPROTO, errno);
	EXPECT_EQ(-1, ioctl(fd, COWBIRD_IOC_CREATE, (void *)8));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(fd, _IO(COWBIRD_IOC_MAGIC, 9)));
	EXPECT_EQ(ENOTTY, errno);
	/* nothing to map yet */
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0));

	ASSERT_EQ(0, raw_create(fd, self->key, MN_ADDR, 2, 4, 12, &c));
	EXPECT_EQ(REGION, c.region_size);
	EXPECT_NE(0, c.instance_id);
	EXPECT_EQ(-EBUSY, raw_create(fd, self->key, MN_ADDR, 2, 4, 12, &c2));
	/* exact size at offset 0, shared, never executable */
	EXPECT_EQ(MAP_FAILED, mmap(NULL, c.mmap_size - 4096, PROT_READ, MAP_SHARED, fd, 0));
	EXPECT_EQ(MAP_FAILED, mmap(NULL, c.mmap_size + 4096, PROT_READ, MAP_SHARED, fd, 0));
	EXPECT_EQ(MAP_FAILED, mmap(NULL, c.mmap_size, PROT_READ, MAP_SHARED, fd, 4096));
	/* as /dev/edm<N>: private is EINVAL, executable EPERM */
	EXPECT_EQ(MAP_FAILED, mmap(NULL, c.mmap_size, PROT_READ, MAP_PRIVATE, fd, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, c.mmap_size, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0));
	EXPECT_EQ(EPERM, errno);
	p = mmap(NULL, c.mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, p) TH_LOG("mmap: %s", strerror(errno));
	EXPECT_EQ(-1, mprotect(p, c.mmap_size, PROT_READ | PROT_EXEC));
	EXPECT_EQ(0, munmap(p, c.mmap_size));
	close(fd);
	EXPECT_TRUE(instances_gone());
}

/* ---- data integrity from 8 threads ---- */

struct worker {
	struct cowbird *cb;
	int nr, ops;
	unsigned char shadow[SLICE];
	long bad, errors;
	int why;		/* the first error: a status, or -1 when none came */
};

struct pending {
	int64_t id;
	unsigned char *buf, *expect;
	uint32_t len;
};

static void reap_one(struct worker *w, int g, struct pending *p, int *np)
{
	struct cowbird_resp r;
	int i;

	int n = cowbird_poll_wait(w->cb, g, &r, 1, WAIT_MS * 1000);

	if (n != 1 || r.status) {
		if (!w->errors++)
			w->why = n != 1 ? -1 : r.status;
		return;
	}
	for (i = 0; i < *np && p[i].id != r.req_id; i++)
		;
	if (i == *np) {
		w->errors++;
		return;
	}
	if (p[i].buf) {
		if (memcmp(p[i].buf, p[i].expect, p[i].len))
			w->bad++;
		free(p[i].buf);
		free(p[i].expect);
	}
	p[i] = p[--*np];
}

static int64_t issue(struct worker *w, int g, struct pending *p, int *np, bool rd,
		     uint64_t off, void *buf, uint32_t len)
{
	int64_t id;

	do {
		id = rd ? cowbird_async_read(w->cb, cur_region, off, buf, len) :
			  cowbird_async_write(w->cb, cur_region, buf, off, len);
		if (id == -EAGAIN && *np)
			reap_one(w, g, p, np);
		else if (id == -EAGAIN)
			sched_yield();
	} while (id == -EAGAIN && !w->errors);
	return id;
}

static void *work(void *arg)
{
	struct worker *w = arg;
	uint64_t s = 0x9e3779b97f4a7c15ull * (w->nr + 1), base = (uint64_t)w->nr * SLICE;
	static __thread unsigned char src[MAXLEN];
	struct pending p[DEPTH];
	int g = cowbird_poll_create(w->cb), np = 0, i;

	if (g < 0) {
		w->errors++;
		return NULL;
	}
	for (i = 0; i < w->ops && !w->errors; i++) {
		uint32_t len = 1 + rnd(&s) % (rnd(&s) % 4 ? 256 : MAXLEN);
		uint64_t off = rnd(&s) % (SLICE - len);
		unsigned char *buf = NULL, *expect = NULL;
		int64_t id;

		if (np == DEPTH)
			reap_one(w, g, p, &np);
		if (rnd(&s) % 2) {
			for (uint32_t k = 0; k < len; k++)
				src[k] = (unsigned char)rnd(&s);
			id = issue(w, g, p, &np, false, base + off, src, len);
			memcpy(w->shadow + off, src, len);
		} else {
			buf = malloc(len);
			expect = malloc(len);
			memcpy(expect, w->shadow + off, len);
			id = issue(w, g, p, &np, true, base + off, buf, len);
		}
		if (id < 0 || cowbird_poll_add(w->cb, g, id)) {
			free(buf);
			free(expect);
			w->errors++;
			break;
		}
		p[np++] = (struct pending){ .id = id, .buf = buf, .expect = expect, .len = len };
	}
	while (np && !w->errors)
		reap_one(w, g, p, &np);
	/* the whole slice, as it must be now */
	for (uint64_t off = 0; off < SLICE && !w->errors; off += 4096) {
		unsigned char *buf = malloc(4096), *expect = malloc(4096);
		int64_t id;

		memcpy(expect, w->shadow + off, 4096);
		id = issue(w, g, p, &np, true, base + off, buf, 4096);
		if (id < 0 || cowbird_poll_add(w->cb, g, id)) {
			free(buf);
			free(expect);
			w->errors++;
			break;
		}
		p[np++] = (struct pending){ .id = id, .buf = buf, .expect = expect, .len = 4096 };
		reap_one(w, g, p, &np);
	}
	cowbird_poll_destroy(w->cb, g);
	return NULL;
}

static int debugfs_count(const char *word)
{
	char line[512], *p;
	long long sum = 0;
	FILE *f = fopen(DEBUGFS "/cowbird", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		p = strstr(line, word);
		if (p && p[strlen(word)] == ' ')
			sum += atoll(p + strlen(word) + 1);
	}
	fclose(f);
	return sum > 0;
}

TEST_F_TIMEOUT(cb, integrity_8_threads, 600)
{
	static struct worker w[THREADS];
	struct cowbird_attr a = {
		.region_key = self->key, .region_id = MN_ADDR, .nr_rings = 4,
		.meta_order = 6, .data_order = 16,
	};
	pthread_t t[THREADS];
	struct cowbird *cb;
	int i;

	ASSERT_EQ(0, cowbird_open(&a, &cb));
	memset(w, 0, sizeof(w));
	for (i = 0; i < THREADS; i++) {
		w[i].cb = cb;
		w[i].nr = i;
		w[i].ops = scaled(4000);
		ASSERT_EQ(0, pthread_create(&t[i], NULL, work, &w[i]));
	}
	for (i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < THREADS; i++) {
		EXPECT_EQ(0, w[i].errors) TH_LOG("thread %d", i);
		EXPECT_EQ(0, w[i].bad) TH_LOG("thread %d: reads differ from the shadow", i);
	}
	/* the engine counted what it did */
	EXPECT_EQ(1, debugfs_count("rd_ops"));
	EXPECT_EQ(1, debugfs_count("wr_ops"));
	EXPECT_EQ(1, debugfs_count("batches"));
	cowbird_close(cb);
	EXPECT_TRUE(instances_gone());
}

/* A read right after an overlapping write sees it, @iters times. */
static void raw_loop(struct __test_metadata *_metadata, struct cowbird *cb, int iters)
{
	static unsigned char wb[6000], rb[6000];
	struct cowbird_resp resp[2];
	int g, i;

	g = cowbird_poll_create(cb);
	ASSERT_LE(0, g);
	for (i = 0; i < iters; i++) {
		uint32_t len = 1 + (i * 37) % sizeof(wb), off = (i * 4099) % (REGION - len);
		uint32_t roff = off + len / 3, rlen = len - len / 3;
		int64_t wid, rid;

		memset(wb, i + 1, len);
		wid = cowbird_async_write(cb, cur_region, wb, off, len);
		rid = cowbird_async_read(cb, cur_region, roff, rb, rlen);
		ASSERT_LE(0, wid);
		ASSERT_LE(0, rid);
		ASSERT_EQ(0, cowbird_poll_add(cb, g, wid));
		ASSERT_EQ(0, cowbird_poll_add(cb, g, rid));
		ASSERT_EQ(2, cowbird_poll_wait(cb, g, resp, 2, WAIT_MS * 1000));
		ASSERT_EQ(COWBIRD_ST_OK, resp[0].status);
		ASSERT_EQ(COWBIRD_ST_OK, resp[1].status);
		ASSERT_EQ(0, memcmp(rb, wb, rlen)) TH_LOG("iteration %d: stale read", i);
	}
	cowbird_poll_destroy(cb, g);
}

/* raw_loop() on a new one-ring instance of cur_region. */
static void read_after_write(struct __test_metadata *_metadata, uint64_t key)
{
	struct cowbird_attr a = {
		.region_key = key, .region_id = cur_region, .nr_rings = 1,
		.meta_order = 6, .data_order = 16,
	};
	struct cowbird *cb;

	ASSERT_EQ(0, cowbird_open(&a, &cb));
	raw_loop(_metadata, cb, scaled(500));
	cowbird_close(cb);
	EXPECT_TRUE(instances_gone());
}

TEST_F_TIMEOUT(cb, read_after_write, 300)
{
	read_after_write(_metadata, self->key);
}

/* ---- tracepoints ---- */

#define TRACING "/sys/kernel/tracing"

static int tracing_write(const char *file, const char *what)
{
	char path[128];
	int fd, n;

	snprintf(path, sizeof(path), TRACING "/%s", file);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, what, strlen(what));
	close(fd);
	return n == (int)strlen(what) ? 0 : -EIO;
}

/* The trace buffer's lines that contain @needle, counted. */
static int trace_count(const char *needle)
{
	FILE *f = fopen(TRACING "/trace", "re");
	char line[512];
	int n = 0;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		n += !!strstr(line, needle);
	fclose(f);
	return n;
}

/*
 * edm_cowbird's events, read through tracefs: one write and one read of a
 * new instance show up as fetches of its ring and as two ops done, with
 * the instance, direction, offset, length and status they had.
 */
TEST_F(cb, tracepoints)
{
	char want[160];
	struct raw r = {};
	uint32_t idx;

	if (access(TRACING "/events", F_OK))
		SKIP(return, "no " TRACING "/events (tracefs not mounted)");
	ASSERT_EQ(0, access(TRACING "/events/edm_cowbird", F_OK));
	/*
	 * Without the comm record, enabling an event patches only the event's
	 * own sites, not the scheduler's tracepoints: patching those while the
	 * other vCPU runs __schedule() hung a 6.1 guest under TCG once.
	 */
	ASSERT_EQ(0, tracing_write("options/record-cmd", "0"));
	ASSERT_EQ(0, tracing_write("trace", ""));
	ASSERT_EQ(0, tracing_write("events/edm_cowbird/enable", "1"));
	ASSERT_EQ(0, raw_open(&r, self->key));
	memset(r.req, 0xc3, 64);
	idx = raw_issue(&r, COWBIRD_RW_WRITE, cur_region, 64, 0x1040, 0, 64);
	EXPECT_EQ(COWBIRD_ST_OK, raw_wait(&r, idx));
	idx = raw_issue(&r, COWBIRD_RW_READ, cur_region, 48, 0x1000, -1, 48);
	EXPECT_EQ(COWBIRD_ST_OK, raw_wait(&r, idx));
	raw_close(&r);
	ASSERT_EQ(0, tracing_write("events/edm_cowbird/enable", "0"));

	snprintf(want, sizeof(want), "edm_cowbird_fetch: inst=%u ring=0 got=", r.c.instance_id);
	EXPECT_LE(1, trace_count(want));
	snprintf(want, sizeof(want),
		 "edm_cowbird_op_done: inst=%u write region_off=0x1040 length=64 status=0\n",
		 r.c.instance_id);
	EXPECT_EQ(1, trace_count(want));
	snprintf(want, sizeof(want),
		 "edm_cowbird_op_done: inst=%u read region_off=0x1000 length=48 status=0\n",
		 r.c.instance_id);
	EXPECT_EQ(1, trace_count(want));
}

/* ---- hostile entries ---- */

TEST_F(cb, hostile_entries)
{
	struct raw r = {};
	uint32_t i;

	ASSERT_EQ(0, raw_open(&r, self->key));
	/* a sound write, then reads outside the region */
	memset(r.req, 0xab, 64);
	i = raw_issue(&r, COWBIRD_RW_WRITE, MN_ADDR, 64, REGION - 64, -1, 64);
	EXPECT_EQ(COWBIRD_ST_OK, raw_wait(&r, i));
	i = raw_issue(&r, COWBIRD_RW_READ, MN_ADDR, 64, REGION - 32, -1, 64);
	EXPECT_EQ(COWBIRD_ST_EFAULT, raw_wait(&r, i));
	i = raw_issue(&r, COWBIRD_RW_READ, MN_ADDR, 64, 1ull << 40, -1, 64);
	EXPECT_EQ(COWBIRD_ST_EFAULT, raw_wait(&r, i));
	i = raw_issue(&r, COWBIRD_RW_READ, MN_ADDR, 64, ~0ull - 8, -1, 64);
	EXPECT_EQ(COWBIRD_ST_EFAULT, raw_wait(&r, i));
	i = raw_issue(&r, COWBIRD_RW_WRITE, MN_ADDR, 64, REGION, -1, 64);
	EXPECT_EQ(COWBIRD_ST_EFAULT, raw_wait(&r, i));
	/* huge lengths, no data reserved */
	i = raw_issue(&r, COWBIRD_RW_READ, MN_ADDR, 0xffffffffu, 0, -1, 0);
	EXPECT_EQ(COWBIRD_ST_EINVAL, raw_wait(&r, i));
	i = raw_issue(&r, COWBIRD_RW_WRITE, MN_ADDR, r.data, 0, -1, 0);
	EXPECT_EQ(COWBIRD_ST_EINVAL, raw_wait(&r, i));
	i = raw_issue(&r, COWBIRD_RW_READ, MN_ADDR, 0, 0, -1, 0);
	EXPECT_EQ(COWBIRD_ST_EINVAL, raw_wait(&r, i));
	/* unknown type, wrong region, local address not the computed place */
	i = raw_issue(&r, 9, MN_ADDR, 64, 0, -1, 0);
	EXPECT_EQ(COWBIRD_ST_EINVAL, raw_wait(&r, i));
	i = raw_issue(&r, COWBIRD_RW_READ, MN_ADDR + 1, 64, 0, -1, 64);
	EXPECT_EQ(COWBIRD_ST_EACCES, raw_wait(&r, i));
	/* (a bad local address takes no data: the stream stays in step) */
	i = raw_issue(&r, COWBIRD_RW_READ, MN_ADDR, 64, 0, 1ull << 32, 0);
	EXPECT_EQ(COWBIRD_ST_EFAULT, raw_wait(&r, i));
	i = raw_issue(&r, COWBIRD_RW_READ, MN_ADDR, 64, 0, r.data - 8, 0);
	EXPECT_EQ(COWBIRD_ST_EFAULT, raw_wait(&r, i));
	/* payload not reserved in the data tail */
	i = raw_issue(&r, COWBIRD_RW_WRITE, MN_ADDR, 64, 0, -1, 0);
	EXPECT_EQ(COWBIRD_ST_EFAULT, raw_wait(&r, i));
	/* and the ring still works: the write above landed, the region's end unharmed */
	i = raw_issue(&r, COWBIRD_RW_READ, MN_ADDR, 64, REGION - 64, -1, 64);
	EXPECT_EQ(COWBIRD_ST_OK, raw_wait(&r, i));
	EXPECT_EQ(0, r.book->error);
	raw_close(&r);
	EXPECT_TRUE(instances_gone());
}

TEST_F(cb, tail_backwards_stops_ring)
{
	uint64_t end = now_ms() + WAIT_MS;
	struct raw r = {};
	uint32_t i;

	ASSERT_EQ(0, raw_open(&r, self->key));
	i = raw_issue(&r, COWBIRD_RW_WRITE, MN_ADDR, 8, 0, -1, 8);
	ASSERT_EQ(COWBIRD_ST_OK, raw_wait(&r, i));
	__atomic_store_n(&r.book->tail, 0, __ATOMIC_RELEASE);	/* hostile */
	while (!__atomic_load_n(&r.book->error, __ATOMIC_ACQUIRE) && now_ms() < end)
		usleep(1000);
	EXPECT_EQ(COWBIRD_RING_ETAIL, r.book->error);
	/* put back: it stays stopped */
	r.book->tail = COWBIRD_POS(1, 8);
	i = raw_issue(&r, COWBIRD_RW_WRITE, MN_ADDR, 8, 0, -1, 8);
	EXPECT_EQ(-1, raw_wait(&r, i));
	EXPECT_EQ(COWBIRD_RING_ETAIL, r.book->error);
	raw_close(&r);
	EXPECT_TRUE(instances_gone());
}

/* A tail far ahead of the head, and a data tail beyond the buffer, stop rings too. */
TEST_F(cb, book_rules)
{
	uint64_t end = now_ms() + WAIT_MS;
	struct raw r = {};

	ASSERT_EQ(0, raw_open(&r, self->key));
	__atomic_store_n(&r.book->tail, COWBIRD_POS(0, 2 * r.data), __ATOMIC_RELEASE);
	while (!__atomic_load_n(&r.book->error, __ATOMIC_ACQUIRE) && now_ms() < end)
		usleep(1000);
	EXPECT_EQ(COWBIRD_RING_EDATA, r.book->error);
	raw_close(&r);

	end = now_ms() + WAIT_MS;
	ASSERT_EQ(0, raw_open(&r, self->key));
	__atomic_store_n(&r.book->tail, COWBIRD_POS(r.entries + 1, 0), __ATOMIC_RELEASE);
	while (!__atomic_load_n(&r.book->error, __ATOMIC_ACQUIRE) && now_ms() < end)
		usleep(1000);
	EXPECT_EQ(COWBIRD_RING_ETAIL, r.book->error);
	raw_close(&r);
	EXPECT_TRUE(instances_gone());
}

/* ---- teardown under load ---- */

/* Issues until killed or @n requests went out (never reaps unless the ring is full). */
/* Writes n times (n < 0: forever) and exits; through the fabric from @via if >= 0. */
static void flood(uint64_t key, int n, int via)
{
	struct cowbird_attr a = {
		.region_key = key, .region_id = MN_ADDR, .nr_rings = 2,
		.meta_order = 8, .data_order = 16,
		.flags = via >= 0 ? COWBIRD_CREATE_FABRIC : 0, .via = via >= 0 ? via : 0,
	};
	static unsigned char b[8192];
	struct cowbird *cb;
	int i;

	if (cowbird_open(&a, &cb))
		_exit(2);
	for (i = 0; n < 0 || i < n; i++) {
		int64_t id = cowbird_async_write(cb, MN_ADDR, b, (i * 8192) % (REGION - 8192),
						 1 + i % sizeof(b));

		if (id == -EAGAIN)
			continue;
		if (id < 0)
			_exit(3);
		cowbird_done(cb, id);
	}
	_exit(0);		/* requests in flight, nothing closed */
}

TEST_F_TIMEOUT(cb, exit_in_flight, 120)
{
	int status, i;
	pid_t pid;

	for (i = 0; i < 4; i++) {
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid)
			flood(self->key, 2000, -1);
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_TRUE(WIFEXITED(status));
		EXPECT_EQ(0, WEXITSTATUS(status));
	}
	EXPECT_TRUE(instances_gone());
}

TEST_F_TIMEOUT(cb, killed_in_flight, 120)
{
	int status, i;
	pid_t pid;

	for (i = 0; i < 4; i++) {
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid)
			flood(self->key, -1, -1);
		usleep(50000 + i * 50000);
		kill(pid, SIGKILL);
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		EXPECT_TRUE(WIFSIGNALED(status));
	}
	EXPECT_TRUE(instances_gone());
}

/* The ring is unmapped while the engine works through it: nothing breaks. */
TEST_F(cb, munmap_mid_run)
{
	struct raw r = {};
	uint32_t k;
	void *p;

	ASSERT_EQ(0, raw_open(&r, self->key));
	for (k = 0; k < r.entries; k++)
		raw_issue(&r, k % 2 ? COWBIRD_RW_READ : COWBIRD_RW_WRITE, MN_ADDR, 128,
			  k * 128, -1, 128);
	ASSERT_EQ(0, munmap(r.base, r.c.mmap_size));
	r.base = NULL;
	usleep(20000);
	/* the file still holds the instance: map it again and look */
	p = mmap(NULL, r.c.mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED, r.fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(0, ((struct cowbird_book *)p)->error);
	EXPECT_EQ(0, munmap(p, r.c.mmap_size));
	close(r.fd);
	EXPECT_TRUE(instances_gone());
}

/* ---- through the EDM fabric: cb_cn reaches cb_mn's region over cb_sw ---- */

static int flink(struct genl_sock *gs, uint8_t cmd, const char *node, int peer_port,
		 uint32_t corrupt)
{
	struct attrbuf ab = {};
	int err;

	ab_put_str(&ab, EDM_A_FLINK_NODE, node);
	ab_put_u32(&ab, EDM_A_FLINK_PORT, 0);
	if (cmd == EDM_CMD_FLINK_NEW) {
		ab_put_str(&ab, EDM_A_FLINK_PEER, SW);
		ab_put_u32(&ab, EDM_A_FLINK_PEER_PORT, peer_port);
		ab_put_u32(&ab, EDM_A_FLINK_SHERR_THRESHOLD, 0);	/* losses, never down */
	} else {
		ab_put_u32(&ab, EDM_A_FLINK_CORRUPT, corrupt);
	}
	err = genl_request(gs, cmd, 0, &ab, NULL, NULL);
	if (err)
		fprintf(stderr, "FLINK %s: %s (%s)\n", node, strerror(-err), gs->errmsg);
	return err;
}

static void fab_remove(struct genl_sock *gs)
{
	fab_del(gs, CN);
	fab_del(gs, MN);
	fab_del(gs, SW);
}

FIXTURE(fab) {
	struct genl_sock gs;
	uint64_t key;
};

FIXTURE_SETUP(fab)
{
	int err;

	if (access("/dev/cowbird", F_OK))
		SKIP(return, "no /dev/cowbird: edm.ko not loaded");
	ASSERT_EQ(0, genl_open(&self->gs, EDM_GENL_NAME));
	fab_remove(&self->gs);		/* what an aborted run left */
	err = fab_new(&self->gs, SW, -1, 0);
	if (!err)
		err = fab_new(&self->gs, CN, CN_ADDR, 0);
	if (!err)
		err = fab_new(&self->gs, MN, MN_ADDR, REGION);
	if (!err)
		err = flink(&self->gs, EDM_CMD_FLINK_NEW, CN, CN_ADDR, 0);
	if (!err)
		err = flink(&self->gs, EDM_CMD_FLINK_NEW, MN, MN_ADDR, 0);
	ASSERT_EQ(0, err);
	self->key = region_key(&self->gs, MN);
	ASSERT_NE(0, self->key) TH_LOG("no key for %s from REGION_GET", MN);
}

FIXTURE_TEARDOWN(fab)
{
	fab_remove(&self->gs);
	genl_close(&self->gs);
}

static struct cowbird_attr fab_attr(uint64_t key, uint16_t rings)
{
	return (struct cowbird_attr){
		.region_key = key, .region_id = MN_ADDR, .nr_rings = rings,
		.meta_order = 6, .data_order = 16,
		.flags = COWBIRD_CREATE_FABRIC, .via = CN_ADDR,
	};
}

TEST_F(fab, create_checks)
{
	struct cowbird_create c;
	int fd = open("/dev/cowbird", O_RDWR | O_CLOEXEC);

	ASSERT_LE(0, fd);
	memset(&c, 0, sizeof(c));
	c.abi_version = COWBIRD_ABI_VERSION;
	c.region_key = self->key;
	c.region_id = MN_ADDR;
	c.nr_rings = 1;
	c.meta_order = 4;
	c.data_order = 12;
	c.via = CN_ADDR;		/* a via without the flag */
	EXPECT_EQ(-1, ioctl(fd, COWBIRD_IOC_CREATE, &c));
	EXPECT_EQ(EINVAL, errno);
	c.flags = 1U << 7;		/* no such flag */
	EXPECT_EQ(-1, ioctl(fd, COWBIRD_IOC_CREATE, &c));
	EXPECT_EQ(EINVAL, errno);
	c.flags = COWBIRD_CREATE_SHPOOL;	/* served elsewhere, but by no membership */
	EXPECT_EQ(-1, ioctl(fd, COWBIRD_IOC_CREATE, &c));
	EXPECT_EQ(EINVAL, errno);
	c.shpool = 0xfffff;			/* no such membership */
	EXPECT_EQ(-1, ioctl(fd, COWBIRD_IOC_CREATE, &c));
	EXPECT_EQ(ENODEV, errno);
	c.shpool = 0;
	c.flags = COWBIRD_CREATE_FABRIC;
	c.via = 9;			/* no host there */
	EXPECT_EQ(-1, ioctl(fd, COWBIRD_IOC_CREATE, &c));
	EXPECT_EQ(ENOENT, errno);
	c.via = CN_ADDR;
	c.region_key = self->key ^ 1;
	EXPECT_EQ(-1, ioctl(fd, COWBIRD_IOC_CREATE, &c));
	EXPECT_EQ(EACCES, errno);
	c.region_key = self->key;
	EXPECT_EQ(0, ioctl(fd, COWBIRD_IOC_CREATE, &c));
	EXPECT_EQ(REGION, c.region_size);
	close(fd);
	EXPECT_TRUE(instances_gone());
}

/* Four threads, each on its own slice, against their shadows. */
static void fab_workers(struct __test_metadata *_metadata, struct cowbird *cb, int nthreads,
			int ops)
{
	static struct worker w[THREADS];
	pthread_t t[THREADS];
	int i;

	memset(w, 0, sizeof(w));
	for (i = 0; i < nthreads; i++) {
		w[i].cb = cb;
		w[i].nr = i;
		w[i].ops = ops;
		ASSERT_EQ(0, pthread_create(&t[i], NULL, work, &w[i]));
	}
	for (i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < nthreads; i++) {
		EXPECT_EQ(0, w[i].errors) TH_LOG("thread %d: first error %d", i, w[i].why);
		EXPECT_EQ(0, w[i].bad) TH_LOG("thread %d: reads differ from the shadow", i);
	}
	if (__test_passed(_metadata))
		return;
	system("cat " DEBUGFS "/cowbird >&2");
}

TEST_F_TIMEOUT(fab, integrity_4_threads, 600)
{
	struct cowbird_attr a = fab_attr(self->key, 4);
	struct cowbird *cb;

	ASSERT_EQ(0, cowbird_open(&a, &cb));
	fab_workers(_metadata, cb, 4, scaled(600));
	EXPECT_EQ(1, debugfs_count("sent")) TH_LOG("the ops did not go through the fabric");
	EXPECT_EQ(1, debugfs_count("rd_ops"));
	cowbird_close(cb);
	EXPECT_TRUE(instances_gone());
}

TEST_F_TIMEOUT(fab, read_after_write, 300)
{
	struct cowbird_attr a = fab_attr(self->key, 1);
	struct cowbird *cb;

	ASSERT_EQ(0, cowbird_open(&a, &cb));
	raw_loop(_metadata, cb, scaled(150));
	cowbird_close(cb);
	EXPECT_TRUE(instances_gone());
}

struct spoiler {
	volatile int stop;
	int rounds, errors;
};

/*
 * Spoils the next two blocks the memory node sends, every second: the burst
 * they are in is lost. Spoiling hits whatever goes next, so it must come
 * well apart from the resends (one timeout, FAB_TIMEOUT_MS at most, after a loss),
 * or it would hit the same op COWBIRD_RMT_TRIES times in a row.
 */
static void *spoil(void *arg)
{
	struct spoiler *sp = arg;
	struct genl_sock gs;

	if (genl_open(&gs, EDM_GENL_NAME)) {
		sp->errors++;
		return NULL;
	}
	while (!sp->stop) {
		if (flink(&gs, EDM_CMD_FLINK_SET, MN, 0, 2))
			sp->errors++;
		sp->rounds++;
		usleep(1000000);
	}
	genl_close(&gs);
	return NULL;
}

/* Lost bursts are resent go-back-N: every op still ends OK with the right bytes. */
TEST_F_TIMEOUT(fab, go_back_n, 600)
{
	struct cowbird_attr a = fab_attr(self->key, 2);
	struct spoiler sp = {};
	struct cowbird *cb;
	pthread_t t;

	ASSERT_EQ(0, cowbird_open(&a, &cb));
	ASSERT_EQ(0, pthread_create(&t, NULL, spoil, &sp));
	fab_workers(_metadata, cb, 2, scaled(400));
	sp.stop = 1;
	pthread_join(t, NULL);
	EXPECT_EQ(0, sp.errors);
	EXPECT_LT(0, sp.rounds);
	EXPECT_EQ(1, debugfs_count("lost")) TH_LOG("no op was lost: the test tested nothing");
	EXPECT_EQ(1, debugfs_count("resent"));
	cowbird_close(cb);
	EXPECT_TRUE(instances_gone());
}

TEST_F_TIMEOUT(fab, exit_in_flight, 120)
{
	int status, i;
	pid_t pid;

	for (i = 0; i < 3; i++) {
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid)
			flood(self->key, i == 2 ? -1 : 500, CN_ADDR);
		if (i == 2) {
			usleep(200000);
			kill(pid, SIGKILL);
		}
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		if (i < 2)
			EXPECT_EQ(0, WEXITSTATUS(status));
	}
	EXPECT_TRUE(instances_gone());
}

/* The via host goes away with reads in flight: each ends, TIMEOUT or OK, none hangs. */
TEST_F_TIMEOUT(fab, via_gone, 120)
{
	struct cowbird_attr a = fab_attr(self->key, 1);
	static unsigned char b[64][512];
	struct cowbird_resp resp[64];
	int g, i, got = 0, ok = 0, timeout = 0;
	struct cowbird *cb;

	ASSERT_EQ(0, cowbird_open(&a, &cb));
	g = cowbird_poll_create(cb);
	ASSERT_LE(0, g);
	for (i = 0; i < 64; i++) {
		int64_t id = cowbird_async_read(cb, MN_ADDR, i * 512, b[i], 512);

		ASSERT_LE(0, id);
		ASSERT_EQ(0, cowbird_poll_add(cb, g, id));
	}
	ASSERT_EQ(0, fab_del(&self->gs, CN));
	while (got < 64) {
		int n = cowbird_poll_wait(cb, g, resp, 64, WAIT_MS * 1000);

		ASSERT_LT(0, n) TH_LOG("%d of 64 completed", got);
		for (i = 0; i < n; i++) {
			ok += resp[i].status == COWBIRD_ST_OK;
			timeout += resp[i].status == COWBIRD_ST_TIMEOUT;
		}
		got += n;
	}
	EXPECT_EQ(64, ok + timeout);
	cowbird_close(cb);
	EXPECT_TRUE(instances_gone());
}

/* ---- rekey ---- */

/* The instances netlink shows in our netns, and the region id of the last. */
struct inst_list {
	int n;
	uint32_t region_id;
};

static void inst_cb(const struct nlattr *attrs, size_t len, void *arg)
{
	const struct nlattr *a = genl_attr(attrs, len, EDM_A_CBINST_REGION_ID);
	struct inst_list *l = arg;

	l->n++;
	if (a)
		memcpy(&l->region_id, (const char *)a + NLA_HDRLEN, sizeof(l->region_id));
}

/* The counter @stat of @name's region, from the EDM_A_REGION_STATS nest. */
struct stat_get {
	uint16_t stat;
	uint64_t v;
};

static void stat_cb(const struct nlattr *attrs, size_t len, void *arg)
{
	const struct nlattr *nest = genl_attr(attrs, len, EDM_A_REGION_STATS), *a;
	struct stat_get *g = arg;

	if (!nest)
		return;
	a = genl_attr((const struct nlattr *)((const char *)nest + NLA_HDRLEN),
		      nest->nla_len - NLA_HDRLEN, g->stat);
	if (a)
		memcpy(&g->v, (const char *)a + NLA_HDRLEN, sizeof(g->v));
}

static uint64_t region_stat(struct genl_sock *gs, const char *name, uint16_t stat)
{
	struct stat_get g = { .stat = stat };
	struct attrbuf ab = {};

	ab_put_str(&ab, EDM_A_REGION_OWNER, name);
	if (genl_request(gs, EDM_CMD_REGION_GET, 0, &ab, stat_cb, &g))
		return ~0ull;
	return g.v;
}

/* The three windows of the one instance netlink shows (UINT64_MAX: none). */
struct windows {
	int n;
	uint64_t local, rd, wr;
};

static void windows_cb(const struct nlattr *attrs, size_t len, void *arg)
{
	const struct nlattr *nest = genl_attr(attrs, len, EDM_A_CBINST_STATS), *a;
	const uint16_t which[] = { EDM_A_CBISTAT_CWND_LOCAL, EDM_A_CBISTAT_CWND_DST,
				   EDM_A_CBISTAT_CWND_DST_WRITE };
	struct windows *w = arg;
	uint64_t *to[] = { &w->local, &w->rd, &w->wr };
	unsigned int i;

	w->n++;
	for (i = 0; i < 3; i++) {
		*to[i] = UINT64_MAX;
		a = nest ? genl_attr((const struct nlattr *)((const char *)nest + NLA_HDRLEN),
				     nest->nla_len - NLA_HDRLEN, which[i]) : NULL;
		if (a)
			memcpy(to[i], (const char *)a + NLA_HDRLEN, sizeof(*to[i]));
	}
}

static int windows_get(struct genl_sock *gs, struct windows *w)
{
	memset(w, 0, sizeof(*w));
	if (genl_request(gs, EDM_CMD_COWBIRD_INST_GET, 1, NULL, windows_cb, w))
		return -1;
	return w->n == 1 ? 0 : -1;
}

/* Issues @n ops of one kind, 4 KiB each, 8 in flight, every one OK. */
static void one_kind(struct __test_metadata *_metadata, struct cowbird *cb, bool rd, int n)
{
	static unsigned char buf[8][4096];
	struct cowbird_resp resp[8];
	int g, i, j;

	g = cowbird_poll_create(cb);
	ASSERT_LE(0, g);
	for (i = 0; i < n; i += 8) {
		for (j = 0; j < 8; j++) {
			uint64_t off = (uint64_t)((i + j) % 64) * 4096;
			int64_t id = rd ? cowbird_async_read(cb, MN_ADDR, off, buf[j], 4096) :
					  cowbird_async_write(cb, MN_ADDR, buf[j], off, 4096);

			ASSERT_LE(0, id);
			ASSERT_EQ(0, cowbird_poll_add(cb, g, id));
		}
		ASSERT_EQ(8, cowbird_poll_wait(cb, g, resp, 8, WAIT_MS * 1000));
		for (j = 0; j < 8; j++)
			ASSERT_EQ(COWBIRD_ST_OK, resp[j].status);
	}
	cowbird_poll_destroy(cb, g);
}

/*
 * Windows per direction (1RMA 6: reads inbound, writes outbound): writes move
 * the region's write window only, and reads its read window only.
 */
TEST_F_TIMEOUT(fab, windows_per_direction, 120)
{
	struct cowbird_attr a = fab_attr(self->key, 1);
	struct windows w0, w1, w2;
	struct cowbird *cb;

	ASSERT_EQ(0, cowbird_open(&a, &cb));
	ASSERT_EQ(0, windows_get(&self->gs, &w0));
	ASSERT_NE(UINT64_MAX, w0.wr) TH_LOG("no write window in the instance's counters");
	EXPECT_EQ(w0.rd, w0.wr);
	one_kind(_metadata, cb, false, 256);
	ASSERT_EQ(0, windows_get(&self->gs, &w1));
	EXPECT_EQ(w0.rd, w1.rd) TH_LOG("writes moved the read window");
	EXPECT_NE(w0.wr, w1.wr) TH_LOG("256 writes left the write window as it was");
	one_kind(_metadata, cb, true, 256);
	ASSERT_EQ(0, windows_get(&self->gs, &w2));
	EXPECT_EQ(w1.wr, w2.wr) TH_LOG("reads moved the write window");
	EXPECT_NE(w1.rd, w2.rd) TH_LOG("256 reads left the read window as it was");
	cowbird_close(cb);
	EXPECT_TRUE(instances_gone());
}

/* The propagation delay of @node's link to the switch, both ways. */
static int flink_delay(struct genl_sock *gs, const char *node, uint32_t ns)
{
	struct attrbuf ab = {};

	ab_put_str(&ab, EDM_A_FLINK_NODE, node);
	ab_put_u32(&ab, EDM_A_FLINK_PORT, 0);
	ab_put_u32(&ab, EDM_A_FLINK_DELAY_NS, ns);
	return genl_request(gs, EDM_CMD_FLINK_SET, 0, &ab, NULL, NULL);
}

/*
 * A fabric instance whose create asks for @dispatch_us (the library has no
 * field for it: the raw ioctl, then cowbird_attach()), released with
 * dispatch_close().
 */
struct disp {
	struct cowbird_create c;
	struct cowbird *cb;
	void *base;
	int fd;
};

static int dispatch_open(struct disp *d, uint64_t key, uint32_t dispatch_us)
{
	int err;

	d->fd = open("/dev/cowbird", O_RDWR | O_CLOEXEC);
	if (d->fd < 0)
		return -errno;
	memset(&d->c, 0, sizeof(d->c));
	d->c.abi_version = COWBIRD_ABI_VERSION;
	d->c.flags = COWBIRD_CREATE_FABRIC;
	d->c.via = CN_ADDR;
	d->c.region_key = key;
	d->c.region_id = MN_ADDR;
	d->c.nr_rings = 1;
	d->c.meta_order = 6;
	d->c.data_order = 16;
	d->c.dispatch_us = dispatch_us;
	if (ioctl(d->fd, COWBIRD_IOC_CREATE, &d->c))
		goto fail;
	d->base = mmap(NULL, d->c.mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED, d->fd, 0);
	if (d->base == MAP_FAILED)
		goto fail;
	err = cowbird_attach(&d->c, d->base, &d->cb);
	if (!err)
		return 0;
	munmap(d->base, d->c.mmap_size);
	close(d->fd);
	return err;
fail:
	err = -errno;
	close(d->fd);
	return err;
}

static void dispatch_close(struct disp *d)
{
	cowbird_close(d->cb);		/* attached: leaves the mapping and file to us */
	munmap(d->base, d->c.mmap_size);
	close(d->fd);
}

/*
 * A write, then a read of other bytes of the same node: the via host issues
 * the read only once the write is acknowledged (fabric/requester.c,
 * "Order"), 10 ms later behind a link of 5 ms each way. Returns the two
 * statuses as write << 8 | read.
 */
static int write_then_read(struct __test_metadata *_metadata, struct cowbird *cb)
{
	static unsigned char wbuf[16384], rbuf[4096];
	struct cowbird_resp resp[2];
	int64_t w, r;
	int g, i, st = 0;

	g = cowbird_poll_create(cb);
	if (g < 0)
		return -1;
	memset(wbuf, 0x3c, sizeof(wbuf));
	w = cowbird_async_write(cb, MN_ADDR, wbuf, 0, sizeof(wbuf));
	r = cowbird_async_read(cb, MN_ADDR, 512 << 10, rbuf, sizeof(rbuf));
	EXPECT_LE(0, w);
	EXPECT_LE(0, r);
	if (w < 0 || r < 0 || cowbird_poll_add(cb, g, w) || cowbird_poll_add(cb, g, r) ||
	    cowbird_poll_wait(cb, g, resp, 2, WAIT_MS * 1000) != 2) {
		cowbird_poll_destroy(cb, g);
		return -1;
	}
	for (i = 0; i < 2; i++)
		st |= resp[i].status << (resp[i].req_id == w ? 8 : 0);
	cowbird_poll_destroy(cb, g);
	return st;
}

/*
 * The dispatch bound (1RMA 4.5, 6.1). Behind a slow link the via host holds
 * a read until the write before it to the same node is acknowledged: with
 * 1RMA's 10 us bound the read ends DISPATCH_TIMEOUT, nothing is resent, and
 * the local window is cut to a tenth. With the default bound (twice the via
 * host's timeout) the read waits in the via host and both end OK.
 */
TEST_F_TIMEOUT(fab, dispatch_timeout, 120)
{
	struct windows w0, w1;
	struct cowbird_create c;
	struct disp d;
	int fd, st;

	ASSERT_EQ(0, flink_delay(&self->gs, MN, 5000000));
	ASSERT_EQ(0, dispatch_open(&d, self->key, 10));
	ASSERT_EQ(0, windows_get(&self->gs, &w0));
	st = write_then_read(_metadata, d.cb);
	ASSERT_EQ(COWBIRD_ST_OK << 8 | COWBIRD_ST_DISPATCH_TIMEOUT, st)
		TH_LOG("write %d read %d", st >> 8, st & 0xff);
	/* cut to a tenth; the write's success may add an increase or two since */
	ASSERT_EQ(0, windows_get(&self->gs, &w1));
	EXPECT_LT(w1.local, w0.local / 4)
		TH_LOG("local window %llu then %llu (1/65536 op)", (unsigned long long)w0.local,
		       (unsigned long long)w1.local);
	EXPECT_EQ(1, debugfs_count("dispatch_timeouts"));
	EXPECT_EQ(0, debugfs_count("resent"));
	dispatch_close(&d);
	EXPECT_TRUE(instances_gone());

	ASSERT_EQ(0, dispatch_open(&d, self->key, 0));
	st = write_then_read(_metadata, d.cb);
	EXPECT_EQ(COWBIRD_ST_OK << 8 | COWBIRD_ST_OK, st)
		TH_LOG("default bound: write %d read %d", st >> 8, st & 0xff);
	dispatch_close(&d);
	EXPECT_TRUE(instances_gone());

	/* a bound past one second, and one for a target without a fabric */
	EXPECT_EQ(-EINVAL, dispatch_open(&d, self->key, COWBIRD_DISPATCH_US_MAX + 1));
	fd = open("/dev/cowbird", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, raw_create(fd, self->key, MN_ADDR, 1, 4, 12, &c));	/* without it: fine */
	close(fd);
	fd = open("/dev/cowbird", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	memset(&c, 0, sizeof(c));
	c.abi_version = COWBIRD_ABI_VERSION;
	c.region_key = self->key;
	c.region_id = MN_ADDR;
	c.nr_rings = 1;
	c.meta_order = 4;
	c.data_order = 12;
	c.dispatch_us = 10;
	EXPECT_EQ(-1, ioctl(fd, COWBIRD_IOC_CREATE, &c));
	EXPECT_EQ(EINVAL, errno);
	close(fd);
	EXPECT_TRUE(instances_gone());
}

/*
 * An instance opened before a rekey loses the region: each op completes
 * EACCES (the engine's key check in edm_fab_host_region_io()) and writes
 * nothing. The data stays, and the new key reads it back.
 */
TEST_F(cb, rekey)
{
	struct raw old = {}, fresh = {};
	struct inst_list insts = {};
	struct cowbird_create c;
	uint64_t key2, refused;
	uint32_t i;
	int fd;

	ASSERT_EQ(0, raw_open(&old, self->key));
	/* First write of the ring: its payload at data position 0. */
	memset(old.req, 0x5a, 256);
	i = raw_issue(&old, COWBIRD_RW_WRITE, MN_ADDR, 256, 0x2000, -1, 256);
	ASSERT_EQ(COWBIRD_ST_OK, raw_wait(&old, i));
	ASSERT_EQ(0, genl_request(&self->gs, EDM_CMD_COWBIRD_INST_GET, 1, NULL, inst_cb, &insts));
	EXPECT_EQ(1, insts.n);
	EXPECT_EQ(MN_ADDR, insts.region_id);
	refused = region_stat(&self->gs, MN, EDM_A_RSTAT_ACCESS_ERRORS);
	EXPECT_EQ(0, refused);

	key2 = region_u64(&self->gs, EDM_CMD_REGION_REKEY, MN, EDM_A_REGION_KEY);
	ASSERT_NE(0, key2);
	EXPECT_NE(self->key, key2);
	EXPECT_EQ(key2, region_key(&self->gs, MN));
	EXPECT_EQ(key2, debugfs_region_key(MN));

	/* The old key: a write (position 256) and a read, each EACCES. */
	memset(old.req + 256, 0xa5, 256);
	i = raw_issue(&old, COWBIRD_RW_WRITE, MN_ADDR, 256, 0x2000, -1, 256);
	EXPECT_EQ(COWBIRD_ST_EACCES, raw_wait(&old, i));
	i = raw_issue(&old, COWBIRD_RW_READ, MN_ADDR, 256, 0x2000, -1, 256);
	EXPECT_EQ(COWBIRD_ST_EACCES, raw_wait(&old, i));
	/* and the ring goes on: the instance is not stopped, only refused */
	EXPECT_EQ(0, old.book->error);
	EXPECT_EQ(2, region_stat(&self->gs, MN, EDM_A_RSTAT_ACCESS_ERRORS));

	/* The old key opens nothing any more. */
	fd = open("/dev/cowbird", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-EACCES, raw_create(fd, self->key, MN_ADDR, 1, 4, 12, &c));
	close(fd);

	/* The new key: the bytes written before the rekey, untouched. */
	ASSERT_EQ(0, raw_open(&fresh, key2));
	i = raw_issue(&fresh, COWBIRD_RW_READ, MN_ADDR, 256, 0x2000, -1, 256);
	ASSERT_EQ(COWBIRD_ST_OK, raw_wait(&fresh, i));
	for (i = 0; i < 256; i++)
		if (fresh.resp[i] != 0x5a)
			break;
	EXPECT_EQ(256, i) TH_LOG("byte %u is 0x%02x after the rekey", i, fresh.resp[i]);
	insts.n = 0;
	ASSERT_EQ(0, genl_request(&self->gs, EDM_CMD_COWBIRD_INST_GET, 1, NULL, inst_cb, &insts));
	EXPECT_EQ(2, insts.n);
	raw_close(&old);
	raw_close(&fresh);
	EXPECT_TRUE(instances_gone());
	insts.n = 0;
	ASSERT_EQ(0, genl_request(&self->gs, EDM_CMD_COWBIRD_INST_GET, 1, NULL, inst_cb, &insts));
	EXPECT_EQ(0, insts.n);
}

/* Through the fabric too: after a rekey each op of the old key ends EACCES, counted. */
TEST_F_TIMEOUT(fab, rekey, 120)
{
	struct cowbird_attr a = fab_attr(self->key, 1);
	static unsigned char w[512], r[512];
	struct cowbird_resp resp;
	struct cowbird *old, *fresh;
	uint64_t key2;
	int g, i;

	for (i = 0; i < (int)sizeof(w); i++)
		w[i] = (unsigned char)(i * 7 + 1);
	ASSERT_EQ(0, cowbird_open(&a, &old));
	g = cowbird_poll_create(old);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, cowbird_poll_add(old, g, cowbird_async_write(old, MN_ADDR, w, 0x3000, 512)));
	ASSERT_EQ(1, cowbird_poll_wait(old, g, &resp, 1, WAIT_MS * 1000));
	ASSERT_EQ(COWBIRD_ST_OK, resp.status);

	key2 = region_u64(&self->gs, EDM_CMD_REGION_REKEY, MN, EDM_A_REGION_KEY);
	ASSERT_NE(0, key2);
	memset(r, 0xee, sizeof(r));
	ASSERT_EQ(0, cowbird_poll_add(old, g, cowbird_async_write(old, MN_ADDR, r, 0x3000, 512)));
	ASSERT_EQ(1, cowbird_poll_wait(old, g, &resp, 1, WAIT_MS * 1000));
	EXPECT_EQ(COWBIRD_ST_EACCES, resp.status);
	ASSERT_EQ(0, cowbird_poll_add(old, g, cowbird_async_read(old, MN_ADDR, 0x3000, r, 512)));
	ASSERT_EQ(1, cowbird_poll_wait(old, g, &resp, 1, WAIT_MS * 1000));
	EXPECT_EQ(COWBIRD_ST_EACCES, resp.status);
	EXPECT_EQ(2, region_stat(&self->gs, MN, EDM_A_RSTAT_ACCESS_ERRORS));
	cowbird_close(old);

	/* the new key reads what was written before, through the fabric */
	a.region_key = key2;
	ASSERT_EQ(0, cowbird_open(&a, &fresh));
	g = cowbird_poll_create(fresh);
	ASSERT_LE(0, g);
	memset(r, 0, sizeof(r));
	ASSERT_EQ(0, cowbird_poll_add(fresh, g, cowbird_async_read(fresh, MN_ADDR, 0x3000, r, 512)));
	ASSERT_EQ(1, cowbird_poll_wait(fresh, g, &resp, 1, WAIT_MS * 1000));
	EXPECT_EQ(COWBIRD_ST_OK, resp.status);
	EXPECT_EQ(0, memcmp(r, w, sizeof(w))) TH_LOG("the rekey changed the region's bytes");
	cowbird_close(fresh);
	EXPECT_TRUE(instances_gone());
}

/* The first remote instance's "remote sent" count in debugfs; -1 if none. */
static long long remote_sent(void)
{
	FILE *f = fopen(DEBUGFS "/cowbird", "r");
	long long n = -1;
	char line[512], *p;

	if (!f)
		return -1;
	while (n < 0 && fgets(line, sizeof(line), f)) {
		p = strstr(line, "remote sent ");
		if (p)
			n = strtoll(p + strlen("remote sent "), NULL, 10);
	}
	fclose(f);
	return n;
}

/*
 * A rekey while reads are on their way: with the via host's link deleted,
 * the reads the engine hands to the fabric (each checked against the key
 * first) wait in the via host's queue; once at least one is there, the
 * region is rekeyed and the link made again, so they reach the memory node
 * with the old key. The node refuses them: each ends NACK, traced as
 * edm_cowbird_nack with reason=key; reads the engine had not handed over
 * end EACCES (its own check); none reads a byte.
 */
#define RK_OPS		8
#define RK_LEN		2048

TEST_F_TIMEOUT(fab, rekey_in_flight, 120)
{
	struct cowbird_attr a = fab_attr(self->key, 1);
	static unsigned char w[RK_LEN], r[RK_OPS][RK_LEN];
	static const unsigned char zero[RK_LEN];
	struct cowbird_resp resp[RK_OPS];
	int g, i, n, nacks = 0, refused = 0;
	uint64_t deadline, key;
	struct attrbuf ab = {};
	struct cowbird *c;
	char want[96];

	if (access(TRACING "/events/edm_cowbird/edm_cowbird_nack", F_OK))
		SKIP(return, "no edm_cowbird_nack event in " TRACING);
	for (i = 0; i < RK_LEN; i++)
		w[i] = (unsigned char)(i * 13 + 5);
	ASSERT_EQ(0, cowbird_open(&a, &c));
	g = cowbird_poll_create(c);
	ASSERT_LE(0, g);
	ASSERT_EQ(0, cowbird_poll_add(c, g, cowbird_async_write(c, MN_ADDR, w, 0x8000, RK_LEN)));
	ASSERT_EQ(1, cowbird_poll_wait(c, g, resp, 1, WAIT_MS * 1000));
	ASSERT_EQ(COWBIRD_ST_OK, resp[0].status);
	ASSERT_EQ(1, remote_sent());

	ASSERT_EQ(0, tracing_write("options/record-cmd", "0"));
	ASSERT_EQ(0, tracing_write("trace", ""));
	ASSERT_EQ(0, tracing_write("events/edm_cowbird/edm_cowbird_nack/enable", "1"));
	ab_put_str(&ab, EDM_A_FLINK_NODE, CN);
	ab_put_u32(&ab, EDM_A_FLINK_PORT, 0);
	ASSERT_EQ(0, genl_request(&self->gs, EDM_CMD_FLINK_DEL, 0, &ab, NULL, NULL));
	memset(r, 0, sizeof(r));
	for (i = 0; i < RK_OPS; i++)
		ASSERT_EQ(0, cowbird_poll_add(c, g, cowbird_async_read(c, MN_ADDR, 0x8000, r[i],
								       RK_LEN)));
	/* the engine hands the first read to the via host, whose link is gone */
	deadline = now_ms() + WAIT_MS;
	while (remote_sent() < 2 && now_ms() < deadline)
		usleep(1000);
	ASSERT_LE(2, remote_sent());
	key = region_u64(&self->gs, EDM_CMD_REGION_REKEY, MN, EDM_A_REGION_KEY);
	ASSERT_NE(0, key);
	ASSERT_EQ(0, flink(&self->gs, EDM_CMD_FLINK_NEW, CN, CN_ADDR, 0));
	for (n = 0; n < RK_OPS; ) {
		int got = cowbird_poll_wait(c, g, resp + n, RK_OPS - n, WAIT_MS * 1000);

		ASSERT_LT(0, got);
		n += got;
	}
	ASSERT_EQ(0, tracing_write("events/edm_cowbird/edm_cowbird_nack/enable", "0"));
	for (n = 0; n < RK_OPS; n++) {
		if (resp[n].status == COWBIRD_ST_NACK)
			nacks++;
		else
			EXPECT_EQ(COWBIRD_ST_EACCES, resp[n].status) TH_LOG("read %d", n);
		refused += resp[n].status == COWBIRD_ST_EACCES;
	}
	for (i = 0; i < RK_OPS; i++)
		EXPECT_EQ(0, memcmp(r[i], zero, RK_LEN)) TH_LOG("read %d has bytes", i);
	TH_LOG("%d reads NACKed, %d refused at issue", nacks, refused);
	EXPECT_LE(1, nacks);
	EXPECT_EQ(nacks, trace_count("edm_cowbird_nack: inst="));
	snprintf(want, sizeof(want), " ring=0 read region_off=0x8000 length=%d reason=key\n",
		 RK_LEN);
	EXPECT_EQ(nacks, trace_count(want));
	cowbird_close(c);
	EXPECT_TRUE(instances_gone());
}

/* ---- the pool fixture: an instance on a CXL pool region ---- */

static int pool_del(struct genl_sock *gs)
{
	struct attrbuf ab = {};

	ab_put_str(&ab, EDM_A_POOL_NAME, POOL);
	return genl_request(gs, EDM_CMD_POOL_DEL, 0, &ab, NULL, NULL);
}

static int pregion_del(struct genl_sock *gs)
{
	struct attrbuf ab = {};
	uint32_t id = PREGION_ID;

	ab_put(&ab, EDM_A_REGION_ID, &id, sizeof(id));
	return genl_request(gs, EDM_CMD_REGION_DEL, 0, &ab, NULL, NULL);
}

FIXTURE(pool) {
	struct genl_sock gs;
	uint64_t key;
};

FIXTURE_SETUP(pool)
{
	struct u64_attr u = { .type = EDM_A_REGION_KEY };
	uint64_t size = 8u << 20, rsize = PREGION;
	uint32_t id = PREGION_ID;
	struct attrbuf ab = {};
	int err;

	if (access("/dev/cowbird", F_OK))
		SKIP(return, "no /dev/cowbird: edm.ko not loaded");
	ASSERT_EQ(0, genl_open(&self->gs, EDM_GENL_NAME));
	pregion_del(&self->gs);		/* what an aborted run left */
	pool_del(&self->gs);
	ab_put_str(&ab, EDM_A_POOL_NAME, POOL);
	ab_put(&ab, EDM_A_POOL_SIZE, &size, sizeof(size));
	err = genl_request(&self->gs, EDM_CMD_POOL_NEW, 0, &ab, NULL, NULL);
	ASSERT_EQ(0, err) TH_LOG("POOL_NEW: %s (%s)", strerror(-err), self->gs.errmsg);
	ab = (struct attrbuf){};
	ab_put_str(&ab, EDM_A_REGION_OWNER, POOL);
	ab_put(&ab, EDM_A_REGION_SIZE, &rsize, sizeof(rsize));
	ab_put(&ab, EDM_A_REGION_ID, &id, sizeof(id));
	err = genl_request(&self->gs, EDM_CMD_REGION_NEW, 0, &ab, u64_attr_cb, &u);
	ASSERT_EQ(0, err) TH_LOG("REGION_NEW: %s (%s)", strerror(-err), self->gs.errmsg);
	ASSERT_TRUE(u.found) TH_LOG("REGION_NEW's reply has no key");
	self->key = u.v;
	EXPECT_EQ(self->key, region_key(&self->gs, POOL));
	cur_region = PREGION_ID;
}

FIXTURE_TEARDOWN(pool)
{
	pregion_del(&self->gs);
	pool_del(&self->gs);
	genl_close(&self->gs);
}

TEST_F(pool, create_checks)
{
	struct cowbird_create c;
	int fd = open("/dev/cowbird", O_RDWR | O_CLOEXEC);
	struct attrbuf ab = {};
	uint64_t rsize = 1;
	uint32_t id = PREGION_ID;

	ASSERT_LE(0, fd);
	EXPECT_EQ(-EACCES, raw_create(fd, self->key ^ 1, PREGION_ID, 1, 4, 12, &c));
	EXPECT_EQ(-ENOENT, raw_create(fd, self->key, PREGION_ID + 1, 1, 4, 12, &c));
	/* A pool region is no fabric host's: "through the fabric" is refused. */
	memset(&c, 0, sizeof(c));
	c.abi_version = COWBIRD_ABI_VERSION;
	c.flags = COWBIRD_CREATE_FABRIC;
	c.region_key = self->key;
	c.region_id = PREGION_ID;
	c.nr_rings = 1;
	c.meta_order = 4;
	c.data_order = 12;
	EXPECT_EQ(-1, ioctl(fd, COWBIRD_IOC_CREATE, &c));
	EXPECT_EQ(EINVAL, errno);
	ASSERT_EQ(0, raw_create(fd, self->key, PREGION_ID, 1, 4, 12, &c));
	EXPECT_EQ(PREGION, c.region_size);
	close(fd);
	/* The ID is the netns's: a second region may not take it, nor an ID below 512. */
	ab_put_str(&ab, EDM_A_REGION_OWNER, POOL);
	ab_put(&ab, EDM_A_REGION_SIZE, &rsize, sizeof(rsize));
	ab_put(&ab, EDM_A_REGION_ID, &id, sizeof(id));
	EXPECT_EQ(-EEXIST, genl_request(&self->gs, EDM_CMD_REGION_NEW, 0, &ab, NULL, NULL));
	EXPECT_STREQ("a region of this netns has this id", self->gs.errmsg);
	id = MN_ADDR;
	ab = (struct attrbuf){};
	ab_put_str(&ab, EDM_A_REGION_OWNER, POOL);
	ab_put(&ab, EDM_A_REGION_SIZE, &rsize, sizeof(rsize));
	ab_put(&ab, EDM_A_REGION_ID, &id, sizeof(id));
	EXPECT_EQ(-ERANGE, genl_request(&self->gs, EDM_CMD_REGION_NEW, 0, &ab, NULL, NULL));
	/* and the pool stays while it has a region */
	EXPECT_EQ(-EBUSY, pool_del(&self->gs));
	EXPECT_STREQ("the pool has regions: delete them first", self->gs.errmsg);
	EXPECT_TRUE(instances_gone());
}

TEST_F_TIMEOUT(pool, integrity_4_threads, 600)
{
	struct cowbird_attr a = {
		.region_key = self->key, .region_id = PREGION_ID, .nr_rings = 4,
		.meta_order = 6, .data_order = 16,
	};
	struct cowbird *cb;

	ASSERT_EQ(0, cowbird_open(&a, &cb));
	fab_workers(_metadata, cb, 4, scaled(2000));
	EXPECT_EQ(1, debugfs_count("rd_ops"));
	EXPECT_EQ(1, debugfs_count("wr_ops"));
	cowbird_close(cb);
	EXPECT_TRUE(instances_gone());
	/* the pool region counted what the engine did */
	EXPECT_LT(0, region_stat(&self->gs, POOL, EDM_A_RSTAT_READS));
	EXPECT_LT(0, region_stat(&self->gs, POOL, EDM_A_RSTAT_WRITES));
	EXPECT_EQ(0, region_stat(&self->gs, POOL, EDM_A_RSTAT_RANGE_ERRORS));
}

TEST_F_TIMEOUT(pool, read_after_write, 300)
{
	read_after_write(_metadata, self->key);
}

/*
 * The region is two Sections, wherever the pool put them: an op across the
 * boundary lands in both, and the region's last byte is its last.
 */
TEST_F(pool, section_boundary)
{
	const uint64_t sec = 2u << 20;
	struct raw r = {};
	uint32_t i, n;

	ASSERT_EQ(0, raw_open(&r, self->key));
	/* Data positions: each op reserves its bytes after the last one's. */
	for (n = 0; n < 1024; n++)
		r.req[n] = (uint8_t)(n * 7 + 1);
	i = raw_issue(&r, COWBIRD_RW_WRITE, PREGION_ID, 1024, sec - 512, -1, 1024);
	ASSERT_EQ(COWBIRD_ST_OK, raw_wait(&r, i));			/* at 0 */
	i = raw_issue(&r, COWBIRD_RW_READ, PREGION_ID, 512, sec, -1, 512);
	ASSERT_EQ(COWBIRD_ST_OK, raw_wait(&r, i));			/* at 1024 */
	for (n = 0; n < 512 && r.resp[1024 + n] == (uint8_t)((n + 512) * 7 + 1); n++)
		;
	EXPECT_EQ(512, n) TH_LOG("second Section: byte %u differs", n);
	i = raw_issue(&r, COWBIRD_RW_READ, PREGION_ID, 512, sec - 512, -1, 512);
	ASSERT_EQ(COWBIRD_ST_OK, raw_wait(&r, i));			/* at 1536 */
	for (n = 0; n < 512 && r.resp[1536 + n] == (uint8_t)(n * 7 + 1); n++)
		;
	EXPECT_EQ(512, n) TH_LOG("first Section: byte %u differs", n);
	/* a new region is zeroed */
	i = raw_issue(&r, COWBIRD_RW_READ, PREGION_ID, 512, sec + 8192, -1, 512);
	ASSERT_EQ(COWBIRD_ST_OK, raw_wait(&r, i));			/* at 2048 */
	for (n = 0; n < 512 && !r.resp[2048 + n]; n++)
		;
	EXPECT_EQ(512, n) TH_LOG("byte %u of a new region is not 0", n);
	/* the last byte, and one past it */
	i = raw_issue(&r, COWBIRD_RW_WRITE, PREGION_ID, 1, PREGION - 1, -1, 1);
	EXPECT_EQ(COWBIRD_ST_OK, raw_wait(&r, i));
	i = raw_issue(&r, COWBIRD_RW_READ, PREGION_ID, 2, PREGION - 1, -1, 2);
	EXPECT_EQ(COWBIRD_ST_EFAULT, raw_wait(&r, i));
	i = raw_issue(&r, COWBIRD_RW_READ, PREGION_ID, 64, 1ull << 40, -1, 64);
	EXPECT_EQ(COWBIRD_ST_EFAULT, raw_wait(&r, i));
	raw_close(&r);
	EXPECT_TRUE(instances_gone());
}

/*
 * Rekey, then delete the region under a bound instance: its ops end EACCES,
 * the region lives until the instance closes, and then nothing is left.
 */
TEST_F(pool, rekey_and_delete)
{
	struct raw old = {}, fresh = {};
	uint64_t key2;
	uint32_t i;

	ASSERT_EQ(0, raw_open(&old, self->key));
	memset(old.req, 0x3c, 256);
	i = raw_issue(&old, COWBIRD_RW_WRITE, PREGION_ID, 256, 0x3000, -1, 256);
	ASSERT_EQ(COWBIRD_ST_OK, raw_wait(&old, i));
	key2 = region_u64(&self->gs, EDM_CMD_REGION_REKEY, POOL, EDM_A_REGION_KEY);
	ASSERT_NE(0, key2);
	EXPECT_NE(self->key, key2);
	i = raw_issue(&old, COWBIRD_RW_READ, PREGION_ID, 256, 0x3000, -1, 256);
	EXPECT_EQ(COWBIRD_ST_EACCES, raw_wait(&old, i));
	EXPECT_EQ(1, region_stat(&self->gs, POOL, EDM_A_RSTAT_ACCESS_ERRORS));

	ASSERT_EQ(0, raw_open(&fresh, key2));
	i = raw_issue(&fresh, COWBIRD_RW_READ, PREGION_ID, 256, 0x3000, -1, 256);
	ASSERT_EQ(COWBIRD_ST_OK, raw_wait(&fresh, i));
	for (i = 0; i < 256 && fresh.resp[i] == 0x3c; i++)
		;
	EXPECT_EQ(256, i) TH_LOG("byte %u changed across the rekey", i);

	/* Deleted under the instance: refused from then on, the memory kept. */
	ASSERT_EQ(0, pregion_del(&self->gs));
	EXPECT_EQ(1, live_objects("region"));
	i = raw_issue(&fresh, COWBIRD_RW_READ, PREGION_ID, 256, 0x3000, -1, 256);
	EXPECT_EQ(COWBIRD_ST_EACCES, raw_wait(&fresh, i));
	EXPECT_EQ(0, fresh.book->error);
	EXPECT_EQ(-ENODEV, pregion_del(&self->gs));
	/* the pool may go now; its memory waits for the instance */
	EXPECT_EQ(0, pool_del(&self->gs));
	raw_close(&old);
	raw_close(&fresh);
	EXPECT_TRUE(instances_gone());
	EXPECT_EQ(0, live_objects("region"));
	EXPECT_EQ(0, live_objects("pool"));
}

TEST_HARNESS_MAIN
