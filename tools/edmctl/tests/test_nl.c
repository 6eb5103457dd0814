// SPDX-License-Identifier: GPL-2.0-only
/*
 * edmctl unit tests of nl.c: kernel errors and warnings with extended ACK,
 * and the request/reply machinery (sequence checks, ACKs, dumps, kernel
 * errors) live against the kernel's own "nlctrl" family, which every kernel
 * has; "unit monitor" runs edm_nl_monitor() on nlctrl's "notify" group.
 */

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/genetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>

#include <linux/edm.h>

#include "edmctl.h"
#include "nl.h"

#include "unit.h"

/* ---- extended ACK ---- */

static const char *const words[] = { NULL, "id", "name", "type" };
static const struct edm_nl_attr_names names = { words, ARRAY_SIZE(words) };

static struct nl_msg *err_msg(int error, bool capped, const char *text,
			      int miss)
{
	struct nlmsghdr req = {
		.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN + 12),
		.nlmsg_type = FAMILY,
		.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK,
	};
	struct nlmsgerr e = { .error = error, .msg = req };
	char echo[GENL_HDRLEN + 12];
	struct nl_msg *msg;
	int flags = 0;

	if (capped || !error)
		flags |= NLM_F_CAPPED;
	if (text || miss >= 0)
		flags |= NLM_F_ACK_TLVS;
	msg = nlmsg_alloc_simple(NLMSG_ERROR, flags);
	if (!msg || nlmsg_append(msg, &e, sizeof(e), NLMSG_ALIGNTO))
		abort();
	if (!(flags & NLM_F_CAPPED)) {
		/* The echoed request's payload; its bytes look like TLVs. */
		memset(echo, 0x08, sizeof(echo));
		if (nlmsg_append(msg, echo, sizeof(echo), NLMSG_ALIGNTO))
			abort();
	}
	if (text && nla_put_string(msg, NLMSGERR_ATTR_MSG, text))
		abort();
	if (miss >= 0 && nla_put_u32(msg, NLMSGERR_ATTR_MISS_TYPE, miss))
		abort();
	return msg;
}

/*
 * An error about an echoed request of two attributes, name "ab" then a u32
 * type; NLMSGERR_ATTR_OFFS points into the second one.
 */
static struct nl_msg *err_msg_offs(const char *text, uint32_t into)
{
	struct {
		struct nlmsghdr nlh;
		struct genlmsghdr genl;
		struct nlattr a1;
		char name[4];
		struct nlattr a2;
		uint32_t v;
	} __attribute__((packed)) req = {
		.nlh = { .nlmsg_len = sizeof(req), .nlmsg_type = FAMILY,
			 .nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK },
		.a1 = { .nla_len = NLA_HDRLEN + 3, .nla_type = EDM_A_DEV_NAME },
		.name = "ab",
		.a2 = { .nla_len = NLA_HDRLEN + 4, .nla_type = EDM_A_DEV_TYPE },
		.v = 7,
	};
	int error = -EINVAL;
	struct nl_msg *msg;

	msg = nlmsg_alloc_simple(NLMSG_ERROR, NLM_F_ACK_TLVS);
	if (!msg || nlmsg_append(msg, &error, sizeof(error), NLMSG_ALIGNTO) ||
	    nlmsg_append(msg, &req, sizeof(req), NLMSG_ALIGNTO) ||
	    nla_put_string(msg, NLMSGERR_ATTR_MSG, text) ||
	    nla_put_u32(msg, NLMSGERR_ATTR_OFFS, offsetof(typeof(req), a2) + into))
		abort();
	return msg;
}

static const char *report(struct nl_msg *msg, int *ret)
{
	unit_capture_start(false, false);
	*ret = edm_nl_report_err(unit_mem, nlmsg_hdr(msg), &names);
	nlmsg_free(msg);
	return unit_capture_end();
}

void test_extack(void)
{
	int ret;

	unit_expect("extack msg capped",
		    report(err_msg(-EINVAL, true, "device name in use", -1), &ret),
		    "Error: device name in use.\n");
	unit_checks++;
	if (ret != -EINVAL) {
		unit_failures++;
		fprintf(stderr, "FAIL extack return %d\n", ret);
	}
	unit_expect("extack msg echoed request",
		    report(err_msg(-EEXIST, false, "exists", -1), &ret),
		    "Error: exists.\n");
	unit_expect("extack msg with period",
		    report(err_msg(-EEXIST, true, "Already there.", -1), &ret),
		    "Error: Already there.\n");
	unit_expect("no extack",
		    report(err_msg(-ENODEV, true, NULL, -1), &ret),
		    "Error: No such device.\n");
	unit_expect("no extack echoed",
		    report(err_msg(-EPERM, false, NULL, -1), &ret),
		    "Error: Operation not permitted.\n");
	unit_expect("missing attribute",
		    report(err_msg(-EINVAL, true, NULL, EDM_A_DEV_NAME), &ret),
		    "Error: Invalid argument (missing attribute \"name\").\n");
	unit_expect("missing unknown attribute",
		    report(err_msg(-EINVAL, true, NULL, 99), &ret),
		    "Error: Invalid argument (missing attribute 99).\n");
	unit_expect("empty message",
		    report(err_msg(-EINVAL, true, "", -1), &ret),
		    "Error: Invalid argument.\n");
	unit_expect("generic policy message names the attribute",
		    report(err_msg_offs("integer out of range", 0), &ret),
		    "Error: integer out of range (attribute \"type\").\n");
	unit_expect("offset inside the attribute names it too",
		    report(err_msg_offs("integer out of range", NLA_HDRLEN), &ret),
		    "Error: integer out of range (attribute \"type\").\n");
	unit_expect("the family's own message is left as is",
		    report(err_msg_offs("invalid device type", 0), &ret),
		    "Error: invalid device type.\n");
	unit_expect("offset past the request names nothing",
		    report(err_msg_offs("integer out of range", 64), &ret),
		    "Error: integer out of range.\n");
	unit_expect("ack no warning", report(err_msg(0, true, NULL, -1), &ret), "");
	unit_expect("ack warning",
		    report(err_msg(0, true, "deprecated attribute", -1), &ret),
		    "Warning: deprecated attribute.\n");

	/* NLMSG_DONE of a failed dump. */
	{
		int error = -ENOBUFS;
		struct nl_msg *msg = nlmsg_alloc_simple(NLMSG_DONE,
						NLM_F_MULTI | NLM_F_ACK_TLVS);

		if (!msg || nlmsg_append(msg, &error, sizeof(error), NLMSG_ALIGNTO) ||
		    nla_put_string(msg, NLMSGERR_ATTR_MSG, "dump failed"))
			abort();
		unit_capture_start(false, false);
		ret = edm_nl_report_done(unit_mem, nlmsg_hdr(msg), &names);
		nlmsg_free(msg);
		unit_expect("dump done error", unit_capture_end(), "Error: dump failed.\n");
		unit_checks++;
		if (ret != -ENOBUFS) {
			unit_failures++;
			fprintf(stderr, "FAIL done return %d\n", ret);
		}
	}
	/* A clean NLMSG_DONE. */
	{
		int zero = 0;
		struct nl_msg *msg = nlmsg_alloc_simple(NLMSG_DONE, NLM_F_MULTI);

		if (!msg || nlmsg_append(msg, &zero, sizeof(zero), NLMSG_ALIGNTO))
			abort();
		unit_capture_start(false, false);
		ret = edm_nl_report_done(unit_mem, nlmsg_hdr(msg), &names);
		nlmsg_free(msg);
		unit_expect("dump done clean", unit_capture_end(), "");
	}
}

/* ---- live: the kernel's nlctrl family ---- */

static int count_cb(struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[CTRL_ATTR_MAX + 1];
	int *count = arg;

	if (edm_nl_parse(nlh, tb, CTRL_ATTR_MAX) == 0 &&
	    edm_nl_get_str(tb[CTRL_ATTR_FAMILY_NAME]))
		(*count)++;
	return 0;
}

static void expect_int(const char *what, int got, int want)
{
	unit_checks++;
	if (got != want) {
		unit_failures++;
		fprintf(stderr, "FAIL %s: got %d, want %d\n", what, got, want);
	}
}

void test_live_nlctrl(void)
{
	struct nl_msg *msg;
	const char *err;
	int count, ret;

	edm_nl_set_family_name("nlctrl");
	if (edm_nl_open()) {
		fprintf(stderr, "note: no generic netlink here, live tests skipped\n");
		return;
	}

	/* A dump: several replies, then NLMSG_DONE. */
	count = 0;
	msg = edm_nl_req(CTRL_CMD_GETFAMILY, NLM_F_DUMP);
	ret = edm_nl_talk(msg, NULL, count_cb, &count);
	expect_int("nlctrl dump ret", ret, 0);
	unit_checks++;
	if (count < 1) {
		unit_failures++;
		fprintf(stderr, "FAIL nlctrl dump: %d families\n", count);
	}

	/* A do request: one reply, then the ACK. */
	count = 0;
	msg = edm_nl_req(CTRL_CMD_GETFAMILY, 0);
	nla_put_string(msg, CTRL_ATTR_FAMILY_NAME, "nlctrl");
	ret = edm_nl_talk(msg, NULL, count_cb, &count);
	expect_int("nlctrl do ret", ret, 0);
	expect_int("nlctrl do replies", count, 1);

	/* Two requests on one socket: sequence numbers keep them apart. */
	count = 0;
	msg = edm_nl_req(CTRL_CMD_GETFAMILY, 0);
	nla_put_string(msg, CTRL_ATTR_FAMILY_NAME, "nlctrl");
	ret = edm_nl_talk(msg, NULL, count_cb, &count);
	expect_int("nlctrl second do", ret + count, 1);

	/* A kernel error, printed as "Error: ...". */
	msg = edm_nl_req(CTRL_CMD_GETFAMILY, 0);
	nla_put_string(msg, CTRL_ATTR_FAMILY_NAME, "edmctl-nosuch");
	unit_err_capture_start();
	ret = edm_nl_talk(msg, NULL, count_cb, &count);
	err = unit_err_capture_end();
	expect_int("nlctrl ENOENT", ret, -ENOENT);
	unit_checks++;
	if (strncmp(err, "Error: ", 7) || err[strlen(err) - 1] != '\n') {
		unit_failures++;
		fprintf(stderr, "FAIL nlctrl ENOENT message: \"%s\"\n", err);
	}

	/* A policy error: the kernel's extack message is printed. */
	msg = edm_nl_req(CTRL_CMD_GETFAMILY, 0);
	nla_put_string(msg, CTRL_ATTR_FAMILY_NAME,
		       "a-name-much-longer-than-genl-namsiz");
	unit_err_capture_start();
	ret = edm_nl_talk(msg, NULL, count_cb, &count);
	err = unit_err_capture_end();
	unit_checks++;
	if (ret >= 0 || strncmp(err, "Error: ", 7) ||
	    !strcmp(err, "Error: Invalid argument.\n")) {
		unit_failures++;
		fprintf(stderr, "FAIL nlctrl policy error: ret %d \"%s\"\n",
			ret, err);
	} else {
		printf("unit: kernel policy error printed as: %s", err);
	}

	/* An unknown command. */
	msg = edm_nl_req(250, 0);
	unit_err_capture_start();
	ret = edm_nl_talk(msg, NULL, count_cb, &count);
	err = unit_err_capture_end();
	expect_int("nlctrl unknown command", ret, -EOPNOTSUPP);
	unit_expect("nlctrl unknown command message", err,
		    "Error: Operation not supported.\n");

	edm_nl_close();
	edm_nl_set_family_name(EDM_GENL_NAME);
}

int monitor_nlctrl(void)
{
	int ret;

	edm_nl_set_family_name("nlctrl");
	if (edm_nl_open())
		return 1;
	printf("ready\n");
	fflush(stdout);
	ret = edm_nl_monitor("notify", NULL, NULL);
	edm_nl_close();
	printf("stopped %d\n", ret);
	return ret ? 1 : 0;
}
