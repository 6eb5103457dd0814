// SPDX-License-Identifier: GPL-2.0
/*
 * edm_fuzz: throws random but well-formed-looking input at edm.ko's user
 * interfaces, for a bounded count: generic netlink messages to the edm
 * family (random commands, attribute types, nesting, lengths and values),
 * and random ioctls with random arguments to every edm character device.
 * The commands, attribute spaces and ioctl numbers come from the uapi
 * header (edm_uapi_list.h is generated from it), never from a hand list.
 *
 *   edm_fuzz [-n COUNT] [-s SEED] [-u]
 *
 * -u drops to uid/gid 65534 first. Exits non-zero when the kernel breaks
 * its contract: no answer within 10 s, an error outside the expected set,
 * or an EINVAL on a known command without an extack message. Prints the
 * counts it made, for reports.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include <linux/genetlink.h>

#include "edm_uapi_list.h"
#include "genl.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const unsigned int attr_maxes[] = { EDM_FUZZ_ATTR_MAXES 0 };
static const unsigned long ioctl_cmds[] = { EDM_FUZZ_IOCTLS 0 };
static const char * const dev_globs[] = { "/dev/edm*", "/dev/cowbird*", "/dev/ndimm*" };

static int unprivileged;	/* EPERM on mutating commands is expected */
static unsigned long errs[256];	/* netlink results by -errno; [0] is success */
static unsigned long ioctl_errs[256];
static unsigned long nl_sent, ioctl_sent, violations;
static unsigned int attr_max;

static uint32_t rnd(uint32_t n)
{
	return n ? (uint32_t)random() % n : 0;
}

/* Lengths and values near the edges that policies check. */
static size_t pick_len(void)
{
	static const size_t edges[] = { 0, 1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 31, 32, 64 };

	return rnd(4) ? edges[rnd(ARRAY_SIZE(edges))] : rnd(300);
}

static uint32_t pick_u32(void)
{
	static const uint32_t edges[] = { 0, 1, 2, 3, 4, 0x7fffffff, 0x80000000, 0xffffffff };

	return rnd(2) ? edges[rnd(ARRAY_SIZE(edges))] : (uint32_t)random();
}

static void fill_payload(unsigned char *p, size_t len)
{
	size_t i;

	if (len == 4 && rnd(2)) {
		uint32_t v = pick_u32();

		memcpy(p, &v, 4);
		return;
	}
	for (i = 0; i < len; i++)
		p[i] = rnd(5) ? (unsigned char)"abcdefghijklmnopqrstuvwxyz0123456789_.-"[rnd(39)]
			       : (unsigned char)rnd(256);
	if (len && rnd(3))
		p[len - 1] = '\0';	/* mostly strings that look like strings */
}

static void put_random_attrs(struct attrbuf *ab, int depth)
{
	int i, n = rnd(4) ? rnd(3) : rnd(6);	/* mostly few: more get past the policy */

	for (i = 0; i < n; i++) {
		uint16_t type = rnd(attr_max + 3);
		unsigned char payload[300] __attribute__((aligned(4)));
		size_t len = pick_len();

		if (depth < 3 && !rnd(8)) {
			struct attrbuf inner = {};

			put_random_attrs(&inner, depth + 1);
			ab_put(ab, type | NLA_F_NESTED, inner.data, inner.len);
			continue;
		}
		if (!rnd(16))
			type |= NLA_F_NESTED;
		switch (rnd(10)) {
		case 0 ... 3:	/* a small u32: IDs, enums */
			len = 4;
			*(uint32_t *)payload = rnd(5);
			break;
		case 4 ... 6:	/* a short valid name, from a small pool */
			len = (size_t)snprintf((char *)payload, sizeof(payload), "f%u", rnd(8)) + 1;
			break;
		default:
			fill_payload(payload, len);
		}
		ab_put(ab, type, payload, len);
	}
	if (!depth && !rnd(25))
		ab->len += 1 + rnd(3);	/* stray bytes after the attributes */
}

static int nl_expected(int err)
{
	switch (err) {
	case 0: case -EINVAL: case -ERANGE: case -ENODEV: case -EEXIST:
	case -EOPNOTSUPP: case -ENOSPC: case -ENOMEM:
		return 1;
	case -EPERM:
		return unprivileged;
	}
	return 0;
}

static void fuzz_netlink(struct genl_sock *gs)
{
	struct attrbuf ab = {};
	uint8_t cmd;
	int err;

	cmd = rnd(10) ? 1 + rnd(EDM_CMD_MAX) : rnd(256);
	put_random_attrs(&ab, 0);
	err = genl_request(gs, cmd, !rnd(6), &ab, NULL, NULL);
	nl_sent++;
	errs[-err & 0xff]++;
	if (err == -EAGAIN) {
		fprintf(stderr, "edm_fuzz: cmd %u: no answer within 10 s\n", cmd);
		violations++;
	} else if (!nl_expected(err)) {
		fprintf(stderr, "edm_fuzz: cmd %u: unexpected %s\n", cmd, strerror(-err));
		violations++;
	} else if (err == -EINVAL && cmd >= 1 && cmd <= EDM_CMD_MAX && !gs->errmsg[0]) {
		fprintf(stderr, "edm_fuzz: cmd %u: EINVAL without an extack message\n", cmd);
		violations++;
	}
}

/* Arguments that a careless or hostile caller passes. */
static void *pick_ioctl_arg(unsigned char *page, size_t pagesz)
{
	switch (rnd(6)) {
	case 0: return NULL;
	case 1: return (void *)1;
	case 2: return (void *)0xffff888000000000ul;	/* a kernel address */
	case 3: return page + pagesz - rnd(16);	/* runs into the guard page */
	default:
		fill_payload(page, pagesz);
		return page;
	}
}

static void fuzz_ioctl(int fd, unsigned char *page, size_t pagesz)
{
	unsigned long cmd;
	int ret;

	if (ARRAY_SIZE(ioctl_cmds) > 1 && rnd(4))
		cmd = ioctl_cmds[rnd(ARRAY_SIZE(ioctl_cmds) - 1)];
	else
		cmd = (unsigned long)random();	/* numbers nobody defined */
	ret = ioctl(fd, cmd, pick_ioctl_arg(page, pagesz));
	ioctl_sent++;
	ioctl_errs[ret < 0 ? errno & 0xff : 0]++;
}

static int open_devices(int *fds, int max)
{
	int n = 0;
	size_t g, i;

	for (g = 0; g < ARRAY_SIZE(dev_globs); g++) {
		glob_t gl;

		if (glob(dev_globs[g], 0, NULL, &gl))
			continue;
		for (i = 0; i < gl.gl_pathc && n < max; i++) {
			int fd = open(gl.gl_pathv[i], O_RDWR | O_NONBLOCK | O_CLOEXEC);

			if (fd >= 0)
				fds[n++] = fd;
			else
				fprintf(stderr, "edm_fuzz: %s: %s\n", gl.gl_pathv[i], strerror(errno));
		}
		globfree(&gl);
	}
	return n;
}

static void print_counts(const char *what, const unsigned long *counts)
{
	int e;

	printf("  %s: ok %lu", what, counts[0]);
	for (e = 1; e < 256; e++)
		if (counts[e])
			printf(", %s %lu", strerrorname_np(e) ?: "?", counts[e]);
	printf("\n");
}

static int drop_privileges(void)
{
	return setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
	       setresuid(65534, 65534, 65534);
}

int main(int argc, char **argv)
{
	long count = 3000, i;
	unsigned int seed = getpid();
	struct timeval tmo = { .tv_sec = 10 };
	struct genl_sock gs;
	unsigned char *map;
	int fds[64], nfds, opt, drop = 0;
	size_t k, pagesz = getpagesize();

	while ((opt = getopt(argc, argv, "n:s:u")) != -1) {
		switch (opt) {
		case 'n': count = atol(optarg); break;
		case 's': seed = strtoul(optarg, NULL, 0); break;
		case 'u': drop = 1; break;
		default:
			fprintf(stderr, "usage: edm_fuzz [-n COUNT] [-s SEED] [-u]\n");
			return 2;
		}
	}
	for (k = 0; k < ARRAY_SIZE(attr_maxes) - 1; k++)
		if (attr_maxes[k] > attr_max)
			attr_max = attr_maxes[k];
	if (drop && drop_privileges()) {
		perror("edm_fuzz: dropping privileges");
		return 2;
	}
	/* However we got here (-u, setpriv, sudo -u), EPERM is then expected. */
	unprivileged = geteuid() != 0;
	srandom(seed);
	if (genl_open(&gs, EDM_GENL_NAME)) {
		fprintf(stderr, "edm_fuzz: edm family not found: is edm.ko loaded?\n");
		return 2;
	}
	setsockopt(gs.fd, SOL_SOCKET, SO_RCVTIMEO, &tmo, sizeof(tmo));
	/* A data page followed by a guard page. */
	map = mmap(NULL, 2 * pagesz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED || mprotect(map + pagesz, pagesz, PROT_NONE))
		return 2;
	nfds = open_devices(fds, ARRAY_SIZE(fds));

	for (i = 0; i < count; i++) {
		fuzz_netlink(&gs);
		if (nfds)
			fuzz_ioctl(fds[rnd(nfds)], map, pagesz);
	}

	printf("edm_fuzz: uid %d, seed %u: %lu netlink messages (attr types 0..%u, %zu commands),"
	       " %lu ioctls on %d devices (%zu known ioctls), %lu violations\n",
	       (int)getuid(), seed, nl_sent, attr_max + 2, (size_t)EDM_CMD_MAX, ioctl_sent,
	       nfds, ARRAY_SIZE(ioctl_cmds) - 1, violations);
	print_counts("netlink", errs);
	if (ioctl_sent)
		print_counts("ioctl", ioctl_errs);
	genl_close(&gs);
	return violations ? 1 : 0;
}
