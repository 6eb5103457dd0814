/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * edmctl: the generic netlink side. One libnl socket per run, bound to the
 * "edm" family. Requests are sent and their replies collected with the
 * kernel's extended ACK turned on; any error is printed here (as
 * "Error: <extack message>." or "Error: <strerror>.") so callers only
 * return non-zero.
 */
#ifndef EDMCTL_NL_H
#define EDMCTL_NL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <netlink/netlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>

/*
 * Called for each reply or event of the edm family.
 * Return 0 to go on, > 0 to stop (success), < 0 to stop with an error
 * (already printed).
 */
typedef int (*edm_nl_fn)(struct nlmsghdr *nlh, void *arg);

/* Names of a request's attribute space, for "missing attribute" errors. */
struct edm_nl_attr_names {
	const char *const *names;
	unsigned int count;
};

/* setns() into /var/run/netns/NAME, like "ip -n". */
int edm_nl_netns_switch(const char *name);

/* Talk to another family than "edm" (unit tests use "nlctrl"). */
void edm_nl_set_family_name(const char *name);

/* Open the socket and resolve the family; prints the error. 0 or -1. */
int edm_nl_open(void);
void edm_nl_close(void);

/*
 * A request for cmd. flags: 0 for a "do" request (an ACK is asked for), or
 * NLM_F_DUMP. NULL (after printing an error) if out of memory.
 */
struct nl_msg *edm_nl_req(uint8_t cmd, int flags);
/* Start a nest; NLA_F_NESTED is always set. */
struct nlattr *edm_nl_nest_start(struct nl_msg *msg, int type);
void edm_nl_nest_end(struct nl_msg *msg, struct nlattr *nest);

/*
 * Send msg (always freed) and receive until its ACK, the end of the dump
 * or an error. fn is called for each reply. 0 or -errno.
 */
int edm_nl_talk(struct nl_msg *msg, const struct edm_nl_attr_names *names,
		edm_nl_fn fn, void *arg);

/*
 * Subscribe to the family's multicast group and call fn for each message
 * until fn returns non-zero or SIGINT/SIGTERM arrives (which is success).
 */
int edm_nl_monitor(const char *group, edm_nl_fn fn, void *arg);

/*
 * Parse a message's attributes into tb[0..maxtype]. Attributes above
 * maxtype are ignored, nothing is validated here: use the getters.
 * -1 if the message is too short to be a generic netlink message.
 */
int edm_nl_parse(struct nlmsghdr *nlh, struct nlattr **tb, int maxtype);
/* The generic netlink command of a message (edm_nl_parse() checked it). */
uint8_t edm_nl_cmd(struct nlmsghdr *nlh);
/* false if absent or of the wrong size */
bool edm_nl_get_u32(const struct nlattr *a, uint32_t *v);
/* false if absent or of the wrong size */
bool edm_nl_get_u64(const struct nlattr *a, uint64_t *v);
/* NULL if absent or not NUL-terminated */
const char *edm_nl_get_str(const struct nlattr *a);

/*
 * Print the error or warning carried by an NLMSG_ERROR/NLMSG_DONE message.
 * tlv_off: where the extack TLVs start in the payload (after struct
 * nlmsgerr and the echoed request, or after the int of NLMSG_DONE).
 * Exposed for the unit tests.
 */
void edm_nl_report(FILE *fp, const struct nlmsghdr *nlh, size_t tlv_off,
		   int error, const struct edm_nl_attr_names *names);

/*
 * The same for a whole NLMSG_ERROR (error or ACK) / NLMSG_DONE message;
 * they return the message's -errno (0 for an ACK or a clean DONE).
 */
int edm_nl_report_err(FILE *fp, const struct nlmsghdr *nlh,
		      const struct edm_nl_attr_names *names);
int edm_nl_report_done(FILE *fp, const struct nlmsghdr *nlh,
		       const struct edm_nl_attr_names *names);

#endif /* EDMCTL_NL_H */
