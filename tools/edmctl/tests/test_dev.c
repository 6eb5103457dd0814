// SPDX-License-Identifier: GPL-2.0-only
/*
 * edmctl unit tests of obj_dev.c: "dev show" of a device message in text and
 * JSON, attributes and enum values of a newer module, malformed attributes,
 * a message too short for its genl header.
 */

#include <stdio.h>
#include <stdlib.h>

#include <netlink/attr.h>
#include <netlink/msg.h>

#include <linux/edm.h>

#include "obj_dev.h"

#include "unit.h"

void test_dev_basic(void)
{
	struct nl_msg *msg = unit_dev_msg(EDM_CMD_DEV_GET);

	unit_put_dev(msg, 1, "dev0", EDM_DEV_TYPE_NULL);
	unit_expect("dev text", unit_show_one(msg, false, false),
		    "1: name dev0 type null\n");
	unit_expect("dev json", unit_show_one(msg, true, false),
		    "[{\"id\":1,\"name\":\"dev0\",\"type\":\"null\"}]\n");
	unit_expect("dev json pretty", unit_show_one(msg, true, true),
		    "[\n"
		    "    {\n"
		    "        \"id\": 1,\n"
		    "        \"name\": \"dev0\",\n"
		    "        \"type\": \"null\"\n"
		    "    }\n"
		    "]\n");
	nlmsg_free(msg);
}

void test_dev_forward_compat(void)
{
	struct nl_msg *msg = unit_dev_msg(EDM_CMD_DEV_GET);
	struct nlattr *nest;
	uint64_t big = 42;

	/* Unknown attributes before, between and after the known ones. */
	if (nla_put_u32(msg, EDM_A_DEV_MAX + 1, 7) ||
	    nla_put(msg, 200, 3, "abc") ||
	    nla_put(msg, EDM_A_DEV_MAX + 7, 0, NULL))
		abort();
	unit_put_dev(msg, 3, "x", EDM_DEV_TYPE_NULL);
	nest = nla_nest_start(msg, (EDM_A_DEV_MAX + 2) | NLA_F_NESTED);
	if (!nest || nla_put_u64(msg, 1, big))
		abort();
	nla_nest_end(msg, nest);
	unit_expect("unknown attrs ignored", unit_show_one(msg, false, false),
		    "3: name x type null\n");
	nlmsg_free(msg);

	/* Unknown enum values (a newer module) print, never crash. */
	msg = unit_dev_msg(EDM_CMD_DEV_GET);
	unit_put_dev(msg, 4, "y", 77);
	unit_expect("unknown enums text", unit_show_one(msg, false, false),
		    "4: name y type unknown(77)\n");
	unit_expect("unknown enums json", unit_show_one(msg, true, false),
		    "[{\"id\":4,\"name\":\"y\",\"type\":\"unknown(77)\"}]\n");
	nlmsg_free(msg);

	/* Wrong sizes and an unterminated string are treated as absent. */
	msg = unit_dev_msg(EDM_CMD_DEV_GET);
	if (nla_put_u32(msg, EDM_A_DEV_ID, 5) ||
	    nla_put(msg, EDM_A_DEV_NAME, 3, "abc") ||
	    nla_put_u8(msg, EDM_A_DEV_TYPE, 1))
		abort();
	unit_expect("malformed attrs text", unit_show_one(msg, false, false), "5:\n");
	unit_expect("malformed attrs json", unit_show_one(msg, true, false),
		    "[{\"id\":5}]\n");
	nlmsg_free(msg);

	/* No attributes at all. */
	msg = unit_dev_msg(EDM_CMD_DEV_GET);
	unit_expect("no attrs json", unit_show_one(msg, true, false), "[{}]\n");
	nlmsg_free(msg);
}

void test_truncated(void)
{
	struct nlmsghdr hdr = {
		.nlmsg_len = NLMSG_HDRLEN,	/* no genl header */
		.nlmsg_type = FAMILY,
	};
	struct edm_dev d;

	unit_checks++;
	if (dev_parse(&hdr, &d) != -1) {
		unit_failures++;
		fprintf(stderr, "FAIL truncated message accepted\n");
	}
}
