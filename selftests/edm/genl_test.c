// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
/*
 * The edm generic netlink family against bad input: every command with an
 * unknown, wrongly typed, oversized, reply-only or missing attribute must
 * fail with EINVAL and an extack message that points at the attribute,
 * and an unprivileged caller must get EPERM on every mutating command
 * while it can still read. Random messages are edm_fuzz's (fuzz.sh).
 * Needs edm.ko loaded and root.
 */
#include <errno.h>
#include <grp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/edm.h>
#include <linux/genetlink.h>

#include "genl.h"
#include "kselftest_harness.h"

/* Where the first attribute of a request starts, for extack offsets. */
#define ATTR0_OFF ((int)(NLMSG_HDRLEN + GENL_HDRLEN))
#define LIST_MAX 16

FIXTURE(cmd) {
	struct genl_sock gs;
};

/* What one command accepts; the lists end at 0. */
FIXTURE_VARIANT(cmd) {
	uint8_t cmd;
	int dump;
	uint16_t maxattr;
	uint16_t u32s[LIST_MAX];
	uint16_t u64s[LIST_MAX];
	uint16_t strs[LIST_MAX];
	uint16_t nests[LIST_MAX];
	uint16_t reply_only[LIST_MAX];
	uint16_t required[LIST_MAX];	/* each is required on its own */
	int needs_one;			/* needs at least one attribute */
};

FIXTURE_VARIANT_ADD(cmd, version_get) {
	.cmd = EDM_CMD_VERSION_GET,
	.maxattr = EDM_A_INFO_MAX,
	.reply_only = { EDM_A_INFO_VERSION, EDM_A_INFO_ABI_VERSION,
			EDM_A_INFO_KERNEL_RELEASE, EDM_A_INFO_DEV_COUNT },
};

FIXTURE_VARIANT_ADD(cmd, dev_get) {
	.cmd = EDM_CMD_DEV_GET,
	.maxattr = EDM_A_DEV_MAX,
	.u32s = { EDM_A_DEV_ID },
	.strs = { EDM_A_DEV_NAME },
	.reply_only = { EDM_A_DEV_TYPE, EDM_A_DEV_BACKEND },
	.needs_one = 1,
};

FIXTURE_VARIANT_ADD(cmd, dev_dump) {
	.cmd = EDM_CMD_DEV_GET,
	.dump = 1,
	.maxattr = EDM_A_DEV_MAX,
	.u32s = { EDM_A_DEV_ID },
	.strs = { EDM_A_DEV_NAME },
	.reply_only = { EDM_A_DEV_TYPE, EDM_A_DEV_BACKEND },
};

FIXTURE_VARIANT_ADD(cmd, dev_new) {
	.cmd = EDM_CMD_DEV_NEW,
	.maxattr = EDM_A_DEV_MAX,
	.u32s = { EDM_A_DEV_TYPE, EDM_A_DEV_BACKEND },
	.strs = { EDM_A_DEV_NAME },
	.reply_only = { EDM_A_DEV_ID },
	.required = { EDM_A_DEV_NAME, EDM_A_DEV_TYPE },
};

FIXTURE_VARIANT_ADD(cmd, dev_del) {
	.cmd = EDM_CMD_DEV_DEL,
	.maxattr = EDM_A_DEV_MAX,
	.u32s = { EDM_A_DEV_ID },
	.strs = { EDM_A_DEV_NAME },
	.reply_only = { EDM_A_DEV_TYPE, EDM_A_DEV_BACKEND },
	.needs_one = 1,
};

#define NETDIMM_NOT_SELECTORS						\
	EDM_A_NETDIMM_SIZE, EDM_A_NETDIMM_PEER, EDM_A_NETDIMM_LOWER,	\
	EDM_A_NETDIMM_POLL_US, EDM_A_NETDIMM_RX_MODE,			\
	EDM_A_NETDIMM_WIRE_MBPS, EDM_A_NETDIMM_WIRE_DELAY_NS,		\
	EDM_A_NETDIMM_GEOM, EDM_A_NETDIMM_IFINDEX, EDM_A_NETDIMM_ZONE,	\
	EDM_A_NETDIMM_STATS, EDM_A_NETDIMM_NUMA_NODE

FIXTURE_VARIANT_ADD(cmd, netdimm_get) {
	.cmd = EDM_CMD_NETDIMM_GET,
	.maxattr = EDM_A_NETDIMM_MAX,
	.u32s = { EDM_A_NETDIMM_ID },
	.strs = { EDM_A_NETDIMM_NAME },
	.reply_only = { NETDIMM_NOT_SELECTORS },
	.needs_one = 1,
};

FIXTURE_VARIANT_ADD(cmd, netdimm_dump) {
	.cmd = EDM_CMD_NETDIMM_GET,
	.dump = 1,
	.maxattr = EDM_A_NETDIMM_MAX,
	.u32s = { EDM_A_NETDIMM_ID },
	.strs = { EDM_A_NETDIMM_NAME },
	.reply_only = { NETDIMM_NOT_SELECTORS },
};

FIXTURE_VARIANT_ADD(cmd, netdimm_new) {
	.cmd = EDM_CMD_NETDIMM_NEW,
	.maxattr = EDM_A_NETDIMM_MAX,
	.u32s = { EDM_A_NETDIMM_LOWER, EDM_A_NETDIMM_POLL_US, EDM_A_NETDIMM_RX_MODE,
		  EDM_A_NETDIMM_WIRE_MBPS, EDM_A_NETDIMM_WIRE_DELAY_NS, EDM_A_NETDIMM_NUMA_NODE },
	.u64s = { EDM_A_NETDIMM_SIZE },
	.strs = { EDM_A_NETDIMM_NAME, EDM_A_NETDIMM_PEER },
	.nests = { EDM_A_NETDIMM_GEOM },
	.reply_only = { EDM_A_NETDIMM_ID, EDM_A_NETDIMM_IFINDEX, EDM_A_NETDIMM_ZONE,
			EDM_A_NETDIMM_STATS },
	.required = { EDM_A_NETDIMM_NAME, EDM_A_NETDIMM_SIZE },
};

FIXTURE_VARIANT_ADD(cmd, netdimm_del) {
	.cmd = EDM_CMD_NETDIMM_DEL,
	.maxattr = EDM_A_NETDIMM_MAX,
	.u32s = { EDM_A_NETDIMM_ID },
	.strs = { EDM_A_NETDIMM_NAME },
	.reply_only = { NETDIMM_NOT_SELECTORS },
	.needs_one = 1,
};

FIXTURE_SETUP(cmd)
{
	ASSERT_EQ(0, genl_open(&self->gs, EDM_GENL_NAME)) {
		TH_LOG("edm family not found: is edm.ko loaded?");
	}
}

FIXTURE_TEARDOWN(cmd)
{
	genl_close(&self->gs);
}

/* Send one message made of @ab; expect EINVAL with a message. */
static int send_bad(struct __test_metadata *_metadata, struct genl_sock *gs,
		    const FIXTURE_VARIANT(cmd) *v, const struct attrbuf *ab, const char *what)
{
	int err = genl_request(gs, v->cmd, v->dump, ab, NULL, NULL);

	EXPECT_EQ(-EINVAL, err) {
		TH_LOG("%s: got %d (%s)", what, err, gs->errmsg);
	}
	EXPECT_NE('\0', gs->errmsg[0]) {
		TH_LOG("%s: no extack message", what);
	}
	return err;
}

/* A single bad attribute: the extack offset must point at it. */
static void send_bad_attr(struct __test_metadata *_metadata, struct genl_sock *gs,
			  const FIXTURE_VARIANT(cmd) *v, uint16_t type, const void *data,
			  size_t len, const char *what)
{
	struct attrbuf ab = {};

	ab_put(&ab, type, data, len);
	if (send_bad(_metadata, gs, v, &ab, what) == -EINVAL)
		EXPECT_EQ(ATTR0_OFF, gs->erroff) {
			TH_LOG("%s (attr %u): extack offset %d", what, type, gs->erroff);
		}
}

TEST_F(cmd, unknown_attribute)
{
	uint32_t v32 = 1;

	send_bad_attr(_metadata, &self->gs, variant, variant->maxattr + 1, &v32, 4, "maxattr+1");
	send_bad_attr(_metadata, &self->gs, variant, 0x3fff, &v32, 4, "type 0x3fff");
	send_bad_attr(_metadata, &self->gs, variant, 0, &v32, 4, "type 0 (unspec)");
}

TEST_F(cmd, wrongly_typed_attribute)
{
	const char nonul[4] = { 'a', 'b', 'c', 'd' };
	uint32_t v32 = 1;
	int i, len;

	for (i = 0; variant->u32s[i]; i++)
		for (len = 0; len < 4; len++)
			send_bad_attr(_metadata, &self->gs, variant, variant->u32s[i], &v32, len,
				      "short u32");
	for (i = 0; variant->strs[i]; i++) {
		send_bad_attr(_metadata, &self->gs, variant, variant->strs[i], nonul, 4,
			      "string without NUL");
		send_bad_attr(_metadata, &self->gs, variant, variant->strs[i], nonul, 0,
			      "empty string attribute");
	}
	for (i = 0; variant->u64s[i]; i++)
		for (len = 0; len < 8; len += 4)
			send_bad_attr(_metadata, &self->gs, variant, variant->u64s[i], &v32, len,
				      "short u64");
	for (i = 0; variant->nests[i]; i++)
		send_bad_attr(_metadata, &self->gs, variant, variant->nests[i], &v32, 0,
			      "a nest without NLA_F_NESTED");
	for (i = 0; variant->u32s[i]; i++) {
		uint32_t v = 1 | NLA_F_NESTED;	/* payload does not matter */

		send_bad_attr(_metadata, &self->gs, variant, variant->u32s[i] | NLA_F_NESTED, &v, 4,
			      "NLA_F_NESTED on a u32");
	}
}

TEST_F(cmd, oversized_attribute)
{
	static char big[4000];
	uint64_t v64 = 1;
	int i;

	memset(big, 'a', sizeof(big) - 1);
	uint64_t v128[2] = { 1, 1 };

	for (i = 0; variant->u32s[i]; i++)
		send_bad_attr(_metadata, &self->gs, variant, variant->u32s[i], &v64, 8,
			      "8-byte u32");
	for (i = 0; variant->u64s[i]; i++)
		send_bad_attr(_metadata, &self->gs, variant, variant->u64s[i], v128, 16,
			      "16-byte u64");
	for (i = 0; variant->strs[i]; i++) {
		char name[EDM_NAME_LEN + 1];

		memset(name, 'a', EDM_NAME_LEN);
		name[EDM_NAME_LEN] = '\0';	/* one character too many */
		send_bad_attr(_metadata, &self->gs, variant, variant->strs[i], name, sizeof(name),
			      "name of EDM_NAME_LEN characters");
		send_bad_attr(_metadata, &self->gs, variant, variant->strs[i], big, sizeof(big),
			      "4000-byte string");
	}
}

TEST_F(cmd, reply_only_attribute)
{
	uint32_t v32 = 1;
	int i;

	for (i = 0; variant->reply_only[i]; i++)
		send_bad_attr(_metadata, &self->gs, variant, variant->reply_only[i], &v32, 4,
			      "reply-only attribute");
}

TEST_F(cmd, trailing_bytes)
{
	struct attrbuf ab = {};

	ab.len = 3;	/* less than an attribute header */
	memset(ab.data, 0xff, 3);
	send_bad(_metadata, &self->gs, variant, &ab, "3 stray bytes");
}

/* Valid values for a command's required attributes, except @skip. */
static void put_required(struct attrbuf *ab, const FIXTURE_VARIANT(cmd) *v, uint16_t skip)
{
	int i;

	for (i = 0; v->required[i]; i++) {
		uint16_t type = v->required[i];
		uint64_t size = 8 << 20;

		if (type == skip)
			continue;
		if (type == v->strs[0])	/* the name */
			ab_put_str(ab, type, "missing0");
		else if (type == v->u64s[0])
			ab_put(ab, type, &size, sizeof(size));
		else
			ab_put_u32(ab, type, 1);
	}
}

TEST_F(cmd, missing_attribute)
{
	struct attrbuf ab = {};
	int i, err;

	for (i = 0; variant->required[i]; i++) {
		memset(&ab, 0, sizeof(ab));
		put_required(&ab, variant, variant->required[i]);
		if (send_bad(_metadata, &self->gs, variant, &ab, "required attribute left out"))
			EXPECT_EQ(variant->required[i], self->gs.misstype);
	}
	if (variant->needs_one) {
		send_bad(_metadata, &self->gs, variant, NULL, "no attribute at all");
	} else if (!variant->required[0]) {
		/* Nothing is required: the bare request must succeed. */
		err = genl_request(&self->gs, variant->cmd, variant->dump, NULL, NULL, NULL);
		EXPECT_EQ(0, err) {
			TH_LOG("bare request: %d (%s)", err, self->gs.errmsg);
		}
	}
}

/* A device created for a test, by name. */
static uint32_t dev_new(struct genl_sock *gs, const char *name, int *err);

static void id_cb(const struct nlattr *attrs, size_t len, void *arg)
{
	const struct nlattr *a = genl_attr(attrs, len, EDM_A_DEV_ID);

	if (a)
		*(uint32_t *)arg = *(const uint32_t *)((const char *)a + NLA_HDRLEN);
}

static uint32_t dev_new(struct genl_sock *gs, const char *name, int *err)
{
	struct attrbuf ab = {};
	uint32_t id = 0;

	ab_put_str(&ab, EDM_A_DEV_NAME, name);
	ab_put_u32(&ab, EDM_A_DEV_TYPE, EDM_DEV_TYPE_NULL);
	*err = genl_request(gs, EDM_CMD_DEV_NEW, 0, &ab, id_cb, &id);
	return id;
}

static int dev_del(struct genl_sock *gs, uint32_t id)
{
	struct attrbuf ab = {};

	ab_put_u32(&ab, EDM_A_DEV_ID, id);
	return genl_request(gs, EDM_CMD_DEV_DEL, 0, &ab, NULL, NULL);
}

struct id_set {
	int n;
	uint32_t ids[8192];
};

static void collect_cb(const struct nlattr *attrs, size_t len, void *arg)
{
	struct id_set *set = arg;
	const struct nlattr *a = genl_attr(attrs, len, EDM_A_DEV_ID);

	if (a && set->n < (int)(sizeof(set->ids) / sizeof(set->ids[0])))
		set->ids[set->n++] = *(const uint32_t *)((const char *)a + NLA_HDRLEN);
}

static void dev_del_all(struct __test_metadata *_metadata, struct genl_sock *gs)
{
	static struct id_set set;
	int i;

	set.n = 0;
	ASSERT_EQ(0, genl_request(gs, EDM_CMD_DEV_GET, 1, NULL, collect_cb, &set));
	for (i = 0; i < set.n; i++)
		EXPECT_EQ(0, dev_del(gs, set.ids[i]));
}

FIXTURE(edm) {
	struct genl_sock gs;
};

FIXTURE_SETUP(edm)
{
	ASSERT_EQ(0, genl_open(&self->gs, EDM_GENL_NAME));
	dev_del_all(_metadata, &self->gs);
}

FIXTURE_TEARDOWN(edm)
{
	genl_close(&self->gs);
}

TEST_F(edm, device_lifecycle)
{
	struct attrbuf ab = {};
	uint32_t id, id2 = 0;
	int err;

	id = dev_new(&self->gs, "life0", &err);
	ASSERT_EQ(0, err);
	ASSERT_NE(0U, id);

	ab_put_str(&ab, EDM_A_DEV_NAME, "life0");
	ASSERT_EQ(0, genl_request(&self->gs, EDM_CMD_DEV_GET, 0, &ab, id_cb, &id2));
	EXPECT_EQ(id, id2);

	dev_new(&self->gs, "life0", &err);
	EXPECT_EQ(-EEXIST, err);
	EXPECT_NE('\0', self->gs.errmsg[0]);

	dev_new(&self->gs, "bad/name", &err);
	EXPECT_EQ(-EINVAL, err);
	EXPECT_NE('\0', self->gs.errmsg[0]);
	dev_new(&self->gs, "-dash", &err);
	EXPECT_EQ(-EINVAL, err);

	memset(&ab, 0, sizeof(ab));
	ab_put_u32(&ab, EDM_A_DEV_ID, id);
	ab_put_str(&ab, EDM_A_DEV_NAME, "life0");
	EXPECT_EQ(-EINVAL, genl_request(&self->gs, EDM_CMD_DEV_GET, 0, &ab, NULL, NULL));
	EXPECT_NE('\0', self->gs.errmsg[0]);

	EXPECT_EQ(0, dev_del(&self->gs, id));
	EXPECT_EQ(-ENODEV, dev_del(&self->gs, id));
	EXPECT_NE('\0', self->gs.errmsg[0]);
	memset(&ab, 0, sizeof(ab));
	ab_put_u32(&ab, EDM_A_DEV_ID, id);
	EXPECT_EQ(-ENODEV, genl_request(&self->gs, EDM_CMD_DEV_GET, 0, &ab, NULL, NULL));
}

TEST_F(edm, out_of_range_values)
{
	struct attrbuf ab = {};

	ab_put_str(&ab, EDM_A_DEV_NAME, "range0");
	ab_put_u32(&ab, EDM_A_DEV_TYPE, EDM_DEV_TYPE_MAX + 1);
	EXPECT_EQ(-ERANGE, genl_request(&self->gs, EDM_CMD_DEV_NEW, 0, &ab, NULL, NULL));
	EXPECT_NE('\0', self->gs.errmsg[0]);

	memset(&ab, 0, sizeof(ab));
	ab_put_str(&ab, EDM_A_DEV_NAME, "range0");
	ab_put_u32(&ab, EDM_A_DEV_TYPE, EDM_DEV_TYPE_NULL);
	ab_put_u32(&ab, EDM_A_DEV_BACKEND, 0);
	EXPECT_EQ(-ERANGE, genl_request(&self->gs, EDM_CMD_DEV_NEW, 0, &ab, NULL, NULL));

	memset(&ab, 0, sizeof(ab));
	ab_put_u32(&ab, EDM_A_DEV_ID, 0);
	EXPECT_EQ(-ERANGE, genl_request(&self->gs, EDM_CMD_DEV_DEL, 0, &ab, NULL, NULL));
}

/* A dump larger than one message buffer returns every device once. */
TEST_F(edm, dump_spans_messages)
{
	static struct id_set set;
	const int n = 300;
	char name[EDM_NAME_LEN];
	int i, j, err;

	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "many%d", i);
		dev_new(&self->gs, name, &err);
		ASSERT_EQ(0, err);
	}
	ASSERT_EQ(0, genl_request(&self->gs, EDM_CMD_DEV_GET, 1, NULL, collect_cb, &set));
	EXPECT_EQ(n, set.n);
	for (i = 0; i < set.n; i++)
		for (j = i + 1; j < set.n; j++)
			ASSERT_NE(set.ids[i], set.ids[j]);
	dev_del_all(_metadata, &self->gs);
}

/* As uid 65534: 0 when every mutating command fails with EPERM and reads work. */
static int unprivileged_checks(uint32_t id)
{
	static struct id_set set;
	uint64_t size = 4 << 20;
	struct genl_sock gs;
	struct attrbuf ab = {};
	int err, bad = 0;

	if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
	    setresuid(65534, 65534, 65534))
		return 100;
	if (genl_open(&gs, EDM_GENL_NAME))
		return 101;
	dev_new(&gs, "unpriv0", &err);
	bad |= (err != -EPERM) << 0;
	bad |= (dev_del(&gs, id) != -EPERM) << 1;
	/* Reading still works, and shows that nothing changed. */
	bad |= (genl_request(&gs, EDM_CMD_VERSION_GET, 0, NULL, NULL, NULL) != 0) << 2;
	ab_put_u32(&ab, EDM_A_DEV_ID, id);
	bad |= (genl_request(&gs, EDM_CMD_DEV_GET, 0, &ab, NULL, NULL) != 0) << 3;
	bad |= (genl_request(&gs, EDM_CMD_DEV_GET, 1, NULL, collect_cb, &set) != 0) << 4;
	bad |= (set.n != 1) << 5;
	/* NetDIMMs: creating and deleting need CAP_NET_ADMIN, reading does not. */
	memset(&ab, 0, sizeof(ab));
	ab_put_str(&ab, EDM_A_NETDIMM_NAME, "unpriv1");
	ab_put(&ab, EDM_A_NETDIMM_SIZE, &size, sizeof(size));
	bad |= (genl_request(&gs, EDM_CMD_NETDIMM_NEW, 0, &ab, NULL, NULL) != -EPERM) << 6;
	memset(&ab, 0, sizeof(ab));
	ab_put_str(&ab, EDM_A_NETDIMM_NAME, "unpriv1");
	bad |= (genl_request(&gs, EDM_CMD_NETDIMM_DEL, 0, &ab, NULL, NULL) != -EPERM) << 7;
	bad |= (genl_request(&gs, EDM_CMD_NETDIMM_GET, 1, NULL, NULL, NULL) != 0) << 8;
	genl_close(&gs);
	return bad;
}

TEST_F(edm, unprivileged_gets_eperm_and_can_read)
{
	int err, status;
	uint32_t id;
	pid_t pid;

	id = dev_new(&self->gs, "priv0", &err);
	ASSERT_EQ(0, err);

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(unprivileged_checks(id));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	/*
	 * Bits: 0 new, 1 del not EPERM; 2 version, 3 get, 4 dump failed; 5 changed;
	 * 6 netdimm new, 7 netdimm del not EPERM; 8 netdimm dump failed.
	 */
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(0, dev_del(&self->gs, id));
}

TEST_HARNESS_MAIN
