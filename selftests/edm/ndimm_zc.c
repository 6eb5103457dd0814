// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
/*
 * /dev/ndimm<i>: zone memory mapped into a process and sent with
 * MSG_ZEROCOPY takes the ndimm's TX fast path, and the bytes arrive
 * exactly; the mapping refuses what it cannot honour (private, offset,
 * too big, a deleted device) and outlives the device cleanly.
 *
 * The zero-copy test makes a pair, ndzca in netns ndzc_a and ndzcb in
 * ndzc_b, through netlink (genl.c) and ip(8); the mapping tests make one
 * device. Needs edm.ko loaded, root, and ip. EDM_TEST_SCALE divides the
 * bytes sent.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/edm.h>
#include <linux/errqueue.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "genl.h"
#include "kselftest_harness.h"

#ifndef SO_ZEROCOPY
#define SO_ZEROCOPY 60
#endif
#ifndef MSG_ZEROCOPY
#define MSG_ZEROCOPY 0x4000000
#endif

#define DEV_TX	"ndzca"
#define DEV_RX	"ndzcb"
#define NS_TX	"ndzc_a"
#define NS_RX	"ndzc_b"
#define IP_TX	"10.78.0.1"
#define IP_RX	"10.78.0.2"
#define PORT	7100
#define ZONE_SIZE	(16ULL << 20)
#define MAP_MAX		(64UL << 20)	/* what one mmap() may take */
#define MAP_LEN		(4UL << 20)	/* what the zero-copy test sends from */
#define CHUNK		(64UL << 10)	/* bytes per send() */

#define NLA_DATA(a) ((const unsigned char *)(a) + NLA_HDRLEN)

/* ---- helpers ---- */

static int run(const char *fmt, ...)
{
	char cmd[512];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int scale(void)
{
	const char *s = getenv("EDM_TEST_SCALE");
	int n = s ? atoi(s) : 1;

	return n > 0 ? n : 1;
}

/* The byte at offset @o of the pattern: every 4-byte word differs. */
static uint8_t pat(uint64_t o)
{
	uint32_t x = (uint32_t)(o >> 2) * 2654435761u;

	x ^= x >> 15;
	return x >> ((o & 3) * 8);
}

struct zinfo {
	int index;
	uint64_t free, lent, cached;
};

static uint64_t get_u64(const struct nlattr *a)
{
	uint64_t v = 0;

	if (a)
		memcpy(&v, NLA_DATA(a), sizeof(v));
	return v;
}

static void zone_cb(const struct nlattr *attrs, size_t len, void *arg)
{
	const struct nlattr *z = genl_attr(attrs, len, EDM_A_NETDIMM_ZONE), *a;
	struct zinfo *zi = arg;
	size_t zl;

	if (!z)
		return;
	zl = z->nla_len - NLA_HDRLEN;
	a = genl_attr((const struct nlattr *)NLA_DATA(z), zl, EDM_A_ZONE_INDEX);
	if (a)
		memcpy(&zi->index, NLA_DATA(a), sizeof(uint32_t));
	zi->free = get_u64(genl_attr((const struct nlattr *)NLA_DATA(z), zl, EDM_A_ZONE_FREE));
	zi->lent = get_u64(genl_attr((const struct nlattr *)NLA_DATA(z), zl, EDM_A_ZONE_LENT));
	zi->cached = get_u64(genl_attr((const struct nlattr *)NLA_DATA(z), zl, EDM_A_ZONE_CACHED));
}

/* Zone of NetDIMM @name; 0 or -errno. */
static int zone_get(struct genl_sock *gs, const char *name, struct zinfo *zi)
{
	struct attrbuf ab = {};

	zi->index = -1;
	ab_put_str(&ab, EDM_A_NETDIMM_NAME, name);
	return genl_request(gs, EDM_CMD_NETDIMM_GET, 0, &ab, zone_cb, zi);
}

/* Zone pages not in any user's hands: free, or in the allocCache. */
static uint64_t zone_idle(const struct zinfo *zi)
{
	return zi->free + zi->cached * 4096;
}

/* Wait up to 20 s for the zone to have no page lent; its state then. */
static int zone_settle(struct genl_sock *gs, const char *name, struct zinfo *zi)
{
	int i, err = 0;

	for (i = 0; i < 200; i++) {
		err = zone_get(gs, name, zi);
		if (err || !zi->lent)
			break;
		usleep(100000);
	}
	return err;
}

static int nd_del(struct genl_sock *gs, const char *name)
{
	struct attrbuf ab = {};

	ab_put_str(&ab, EDM_A_NETDIMM_NAME, name);
	return genl_request(gs, EDM_CMD_NETDIMM_DEL, 0, &ab, NULL, NULL);
}

static int ns_enter(const char *ns)
{
	char path[64];
	int fd, err;

	snprintf(path, sizeof(path), "/var/run/netns/%s", ns);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = setns(fd, CLONE_NEWNET) ? -errno : 0;
	close(fd);
	return err;
}

/* One `ethtool -S` counter of @ifname in the caller's netns; -1 if none. */
static int64_t eth_stat(const char *ifname, const char *name)
{
	struct ethtool_drvinfo di = { .cmd = ETHTOOL_GDRVINFO };
	struct ethtool_gstrings *gs = NULL;
	struct ethtool_stats *st = NULL;
	struct ifreq ifr = {};
	int64_t v = -1;
	uint32_t i, n;
	int fd;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	strncpy(ifr.ifr_name, ifname, IFNAMSIZ - 1);
	ifr.ifr_data = (void *)&di;
	if (ioctl(fd, SIOCETHTOOL, &ifr))
		goto out;
	n = di.n_stats;
	gs = calloc(1, sizeof(*gs) + n * ETH_GSTRING_LEN);
	st = calloc(1, sizeof(*st) + n * sizeof(uint64_t));
	if (!gs || !st)
		goto out;
	gs->cmd = ETHTOOL_GSTRINGS;
	gs->string_set = ETH_SS_STATS;
	gs->len = n;
	ifr.ifr_data = (void *)gs;
	if (ioctl(fd, SIOCETHTOOL, &ifr))
		goto out;
	st->cmd = ETHTOOL_GSTATS;
	st->n_stats = n;
	ifr.ifr_data = (void *)st;
	if (ioctl(fd, SIOCETHTOOL, &ifr))
		goto out;
	for (i = 0; i < n; i++)
		if (!strncmp((char *)gs->data + i * ETH_GSTRING_LEN, name, ETH_GSTRING_LEN))
			v = st->data[i];
out:
	free(gs);
	free(st);
	close(fd);
	return v;
}

/* ---- fixtures: a pair across two namespaces; a device alone ---- */

/* NetDIMM @name (with @peer, if not NULL); its zone's index, or -errno. */
static int nd_new(struct genl_sock *gs, const char *name, const char *peer)
{
	uint64_t size = ZONE_SIZE;
	struct attrbuf ab = {};
	struct zinfo zi = { .index = -1 };
	int err;

	ab_put_str(&ab, EDM_A_NETDIMM_NAME, name);
	ab_put(&ab, EDM_A_NETDIMM_SIZE, &size, sizeof(size));
	if (peer)
		ab_put_str(&ab, EDM_A_NETDIMM_PEER, peer);
	err = genl_request(gs, EDM_CMD_NETDIMM_NEW, 0, &ab, zone_cb, &zi);
	if (err) {
		fprintf(stderr, "NETDIMM_NEW %s: %s (%s)\n", name, strerror(-err), gs->errmsg);
		return err;
	}
	return zi.index < 0 ? -EPROTO : zi.index;
}

static void pair_remove(struct genl_sock *gs)
{
	nd_del(gs, DEV_TX);
	run("ip -force -b - >/dev/null 2>&1 <<EOF\nnetns del " NS_TX "\nnetns del " NS_RX "\nEOF");
}

/* The pair, each end in its namespace, addressed and up; its zone or -errno. */
static int pair_make(struct genl_sock *gs)
{
	int zone = nd_new(gs, DEV_TX, DEV_RX);

	if (zone < 0)
		return zone;
	if (run("set -e; ip -b - <<EOF\n"
		"netns add " NS_TX "\nnetns add " NS_RX "\n"
		"link set " DEV_TX " netns " NS_TX "\nlink set " DEV_RX " netns " NS_RX "\nEOF\n"
		"ip -n " NS_TX " -b - <<EOF\nlink set lo up\nlink set " DEV_TX " addrgenmode none\n"
		"addr add " IP_TX "/24 dev " DEV_TX "\nlink set " DEV_TX " up\nEOF\n"
		"ip -n " NS_RX " -b - <<EOF\nlink set lo up\nlink set " DEV_RX " addrgenmode none\n"
		"addr add " IP_RX "/24 dev " DEV_RX "\nlink set " DEV_RX " up\nEOF\n"))
		return -EIO;
	return zone;
}

FIXTURE(zc) {
	struct genl_sock gs;
	char path[32];		/* /dev/ndimm<i> of DEV_TX's zone */
};

FIXTURE_SETUP(zc)
{
	int zone;

	ASSERT_EQ(0, genl_open(&self->gs, EDM_GENL_NAME));
	pair_remove(&self->gs);		/* what an aborted run left */
	zone = pair_make(&self->gs);
	if (zone < 0)
		pair_remove(&self->gs);
	ASSERT_LE(0, zone);
	snprintf(self->path, sizeof(self->path), "/dev/ndimm%d", zone);
}

FIXTURE_TEARDOWN(zc)
{
	pair_remove(&self->gs);
	genl_close(&self->gs);
}

/* For the mappings: one device, no wire, no namespace. */
FIXTURE(map) {
	struct genl_sock gs;
	char path[32];
};

FIXTURE_SETUP(map)
{
	int zone;

	ASSERT_EQ(0, genl_open(&self->gs, EDM_GENL_NAME));
	nd_del(&self->gs, DEV_TX);
	zone = nd_new(&self->gs, DEV_TX, NULL);
	ASSERT_LE(0, zone);
	snprintf(self->path, sizeof(self->path), "/dev/ndimm%d", zone);
}

FIXTURE_TEARDOWN(map)
{
	nd_del(&self->gs, DEV_TX);
	genl_close(&self->gs);
}

/* ---- zero-copy sending ---- */

/* The receiver, in NS_RX: takes @total bytes and checks each one. */
static int receiver(int ready, uint64_t total)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(PORT) };
	static uint8_t buf[CHUNK];
	uint64_t got = 0;
	int ls, s, one = 1;
	ssize_t n, i;

	alarm(900);
	if (ns_enter(NS_RX))
		return 10;
	inet_pton(AF_INET, IP_RX, &sa.sin_addr);
	ls = socket(AF_INET, SOCK_STREAM, 0);
	if (ls < 0 || setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(ls, (struct sockaddr *)&sa, sizeof(sa)) || listen(ls, 1))
		return 11;
	if (write(ready, "r", 1) != 1)
		return 12;
	s = accept(ls, NULL, NULL);
	if (s < 0)
		return 13;
	while ((n = recv(s, buf, sizeof(buf), 0)) > 0) {
		for (i = 0; i < n; i++) {
			if (buf[i] != pat((got + i) % MAP_LEN)) {
				fprintf(stderr, "receiver: byte %llu is 0x%02x, sent 0x%02x\n",
					(unsigned long long)(got + i), buf[i],
					pat((got + i) % MAP_LEN));
				return 14;
			}
		}
		got += n;
	}
	if (n < 0 || got != total) {
		fprintf(stderr, "receiver: %llu bytes of %llu (%s)\n", (unsigned long long)got,
			(unsigned long long)total, n < 0 ? strerror(errno) : "EOF");
		return 15;
	}
	close(s);
	close(ls);
	return 0;
}

struct zc_state {
	uint32_t sends;		/* notification IDs used */
	uint32_t done;		/* completions seen */
	uint32_t copied;	/* of which the kernel had to copy */
};

/* Read zero-copy completions from the error queue; -1 on a bad one. */
static int reap(int fd, struct zc_state *z, int wait_ms)
{
	char control[128];
	struct msghdr msg = { .msg_control = control, .msg_controllen = sizeof(control) };
	struct sock_extended_err *ee;
	struct pollfd pfd = { .fd = fd, .events = 0 };
	struct cmsghdr *cm;

	if (wait_ms && poll(&pfd, 1, wait_ms) <= 0)
		return 0;
	for (;;) {
		msg.msg_controllen = sizeof(control);
		if (recvmsg(fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT) < 0)
			return errno == EAGAIN ? 0 : -1;
		cm = CMSG_FIRSTHDR(&msg);
		if (!cm || cm->cmsg_level != SOL_IP || cm->cmsg_type != IP_RECVERR)
			return -1;
		ee = (struct sock_extended_err *)CMSG_DATA(cm);
		if (ee->ee_errno || ee->ee_origin != SO_EE_ORIGIN_ZEROCOPY)
			return -1;
		z->done += ee->ee_data - ee->ee_info + 1;
		if (ee->ee_code & SO_EE_CODE_ZEROCOPY_COPIED)
			z->copied += ee->ee_data - ee->ee_info + 1;
	}
}

/* Send @len bytes of @buf with MSG_ZEROCOPY, reaping as we go. */
static int zc_send(int fd, const uint8_t *buf, size_t len, struct zc_state *z)
{
	size_t off = 0;
	ssize_t n;

	while (off < len) {
		n = send(fd, buf + off, len - off < CHUNK ? len - off : CHUNK,
			 MSG_ZEROCOPY | MSG_NOSIGNAL);
		if (n < 0 && errno == ENOBUFS) {	/* too many notifications pending */
			if (reap(fd, z, 100))
				return -1;
			continue;
		}
		if (n < 0)
			return -1;
		z->sends++;
		off += n;
		if (reap(fd, z, 0))
			return -1;
	}
	return 0;
}

TEST_F_TIMEOUT(zc, msg_zerocopy_takes_fast_path, 900)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(PORT) };
	int passes = 4 / scale() ?: 1, pfd[2], fd, s, one = 1, st, i, err;
	uint64_t total = (uint64_t)passes * MAP_LEN;
	int64_t fast0, fast1, copy0, copy1;
	struct zc_state z = {};
	struct zinfo zi;
	uint8_t *buf;
	pid_t pid;
	size_t k;
	char c;

	ASSERT_EQ(0, pipe(pfd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(pfd[0]);
		_exit(receiver(pfd[1], total));
	}
	close(pfd[1]);
	ASSERT_EQ(1, read(pfd[0], &c, 1)) TH_LOG("the receiver did not start");
	close(pfd[0]);

	ASSERT_EQ(0, ns_enter(NS_TX));
	fast0 = eth_stat(DEV_TX, "tx_fast_path");
	copy0 = eth_stat(DEV_TX, "tx_copy_needed");
	ASSERT_LE(0, fast0);

	fd = open(self->path, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("%s: %s", self->path, strerror(errno));
	buf = mmap(NULL, MAP_LEN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, buf) TH_LOG("mmap: %s", strerror(errno));
	for (k = 0; k < MAP_LEN; k++)
		if (buf[k])
			break;
	ASSERT_EQ(MAP_LEN, k) TH_LOG("fresh zone pages are not zeroed at byte %zu", k);
	for (k = 0; k < MAP_LEN; k++)
		buf[k] = pat(k);
	/* the mapping's pages are lent out of the zone */
	ASSERT_EQ(0, zone_get(&self->gs, DEV_TX, &zi));
	EXPECT_LE(MAP_LEN / 4096, zi.lent);

	s = socket(AF_INET, SOCK_STREAM, 0);
	ASSERT_LE(0, s);
	ASSERT_EQ(0, setsockopt(s, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof(one)));
	inet_pton(AF_INET, IP_RX, &sa.sin_addr);
	ASSERT_EQ(0, connect(s, (struct sockaddr *)&sa, sizeof(sa)))
		TH_LOG("connect: %s", strerror(errno));
	/* a receiver that finds a wrong byte hangs up: see what it said */
	for (i = 0, err = 0; i < passes && !err; i++)
		err = zc_send(s, buf, MAP_LEN, &z) ? errno : 0;
	EXPECT_EQ(0, err) TH_LOG("send: %s", strerror(err));
	if (!err)
		EXPECT_EQ(0, shutdown(s, SHUT_WR));

	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0)
		TH_LOG("the receiver failed: status 0x%x", st);
	ASSERT_EQ(0, err);
	/* every byte is acknowledged: each send completes */
	for (i = 0; i < 300 && z.done < z.sends; i++)
		ASSERT_EQ(0, reap(s, &z, 100));
	EXPECT_EQ(z.sends, z.done);
	EXPECT_LT(z.copied, z.sends) TH_LOG("every send was copied: no zero-copy at all");

	fast1 = eth_stat(DEV_TX, "tx_fast_path");
	copy1 = eth_stat(DEV_TX, "tx_copy_needed");
	TH_LOG("%u sends, %u copied; tx_fast_path %lld -> %lld, tx_copy_needed %lld -> %lld",
	       z.sends, z.copied, (long long)fast0, (long long)fast1, (long long)copy0,
	       (long long)copy1);
	EXPECT_LT(fast0, fast1);
	close(s);

	/* unmapped, the pages go back to the zone */
	ASSERT_EQ(0, munmap(buf, MAP_LEN));
	close(fd);
	ASSERT_EQ(0, zone_settle(&self->gs, DEV_TX, &zi));
	EXPECT_EQ(0ULL, zi.lent);
}

/* ---- what mmap() refuses ---- */

static void *map(const char *path, size_t len, int flags, off_t off, int *err)
{
	int fd = open(path, O_RDWR | O_CLOEXEC);
	void *p;

	if (fd < 0) {
		*err = errno;
		return MAP_FAILED;
	}
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, flags, fd, off);
	*err = p == MAP_FAILED ? errno : 0;
	close(fd);
	return p;
}

TEST_F(map, private_mapping_einval)
{
	int err;

	EXPECT_EQ(MAP_FAILED, map(self->path, 1 << 20, MAP_PRIVATE, 0, &err));
	EXPECT_EQ(EINVAL, err);
}

TEST_F(map, offset_einval)
{
	int err;

	EXPECT_EQ(MAP_FAILED, map(self->path, 1 << 20, MAP_SHARED, 4096, &err));
	EXPECT_EQ(EINVAL, err);
}

TEST_F(map, over_64m_e2big)
{
	void *p;
	int err;

	EXPECT_EQ(MAP_FAILED, map(self->path, MAP_MAX + 4096, MAP_SHARED, 0, &err));
	EXPECT_EQ(E2BIG, err);
	/* the limit itself is allowed; this 16 MiB zone cannot hold it */
	p = map(self->path, MAP_MAX, MAP_SHARED, 0, &err);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(ENOMEM, err);
	if (p != MAP_FAILED)
		munmap(p, MAP_MAX);
}

/* A mapping the zone cannot complete fails whole and gives back its pages. */
TEST_F(map, bigger_than_zone_enomem)
{
	struct zinfo before, after;
	int err;

	ASSERT_EQ(0, zone_settle(&self->gs, DEV_TX, &before));
	EXPECT_EQ(MAP_FAILED, map(self->path, 2 * ZONE_SIZE, MAP_SHARED, 0, &err));
	EXPECT_EQ(ENOMEM, err);
	ASSERT_EQ(0, zone_settle(&self->gs, DEV_TX, &after));
	EXPECT_EQ(0ULL, after.lent);
	EXPECT_EQ(zone_idle(&before), zone_idle(&after));
}

/* Each mapping gets fresh pages: nothing of an earlier one shows. */
TEST_F(map, fresh_pages_zeroed)
{
	size_t len = 1 << 20, k;
	uint8_t *p;
	int err;

	p = map(self->path, len, MAP_SHARED, 0, &err);
	ASSERT_NE(MAP_FAILED, p) TH_LOG("mmap: %s", strerror(err));
	memset(p, 0xa5, len);
	ASSERT_EQ(0, munmap(p, len));
	p = map(self->path, len, MAP_SHARED, 0, &err);
	ASSERT_NE(MAP_FAILED, p) TH_LOG("mmap: %s", strerror(err));
	for (k = 0; k < len && !p[k]; k++)
		;
	EXPECT_EQ(len, k);
	ASSERT_EQ(0, munmap(p, len));
}

TEST_F(map, map_after_delete_enodev)
{
	int fd = open(self->path, O_RDWR | O_CLOEXEC);
	void *p;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, nd_del(&self->gs, DEV_TX));
	EXPECT_NE(0, access(self->path, F_OK));
	p = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(ENODEV, errno);
	if (p != MAP_FAILED)
		munmap(p, 1 << 20);
	EXPECT_EQ(0, close(fd));
}

/* The device goes while mapped: the pages stay usable until munmap(). */
TEST_F(map, munmap_after_delete)
{
	size_t len = 1 << 20, k;
	uint8_t *p;
	int err;

	p = map(self->path, len, MAP_SHARED, 0, &err);
	ASSERT_NE(MAP_FAILED, p) TH_LOG("mmap: %s", strerror(err));
	for (k = 0; k < len; k++)
		p[k] = pat(k);
	ASSERT_EQ(0, nd_del(&self->gs, DEV_TX));
	for (k = 0; k < len && p[k] == pat(k); k++)
		;
	EXPECT_EQ(len, k);
	memset(p, 0x5a, len);
	EXPECT_EQ(0, munmap(p, len));
}

TEST_HARNESS_MAIN
