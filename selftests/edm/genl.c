// SPDX-License-Identifier: GPL-2.0
/* A raw generic netlink client for the edm tests; see genl.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/genetlink.h>

#include "genl.h"

#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK 11
#endif
#ifndef NETLINK_CAP_ACK
#define NETLINK_CAP_ACK 10
#endif

#define NLA_DATA(a) ((const unsigned char *)(a) + NLA_HDRLEN)

void ab_put(struct attrbuf *ab, uint16_t type, const void *data, size_t len)
{
	struct nlattr *a = (struct nlattr *)(ab->data + ab->len);

	if (ab->len + NLA_ALIGN(NLA_HDRLEN + len) > sizeof(ab->data))
		return;
	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy((unsigned char *)a + NLA_HDRLEN, data, len);
	memset((unsigned char *)a + NLA_HDRLEN + len, 0, NLA_ALIGN(len) - len);
	ab->len += NLA_ALIGN(NLA_HDRLEN + len);
}

void ab_put_u32(struct attrbuf *ab, uint16_t type, uint32_t v)
{
	ab_put(ab, type, &v, sizeof(v));
}

void ab_put_str(struct attrbuf *ab, uint16_t type, const char *s)
{
	ab_put(ab, type, s, strlen(s) + 1);
}

const struct nlattr *genl_attr(const struct nlattr *attrs, size_t len, uint16_t type)
{
	const unsigned char *p = (const unsigned char *)attrs;
	size_t off = 0;

	while (off + NLA_HDRLEN <= len) {
		const struct nlattr *a = (const struct nlattr *)(p + off);

		if (a->nla_len < NLA_HDRLEN || off + a->nla_len > len)
			break;
		if ((a->nla_type & NLA_TYPE_MASK) == type)
			return a;
		off += NLA_ALIGN(a->nla_len);
	}
	return NULL;
}

static void genl_take_extack(struct genl_sock *gs, const struct nlmsghdr *nlh)
{
	const struct nlmsgerr *e = NLMSG_DATA(nlh);
	size_t off = sizeof(*e);
	const struct nlattr *msg, *a;
	const struct nlattr *tlvs;
	size_t tlen;

	/* With NETLINK_CAP_ACK the request is not echoed: TLVs follow. */
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS) || nlh->nlmsg_len < NLMSG_HDRLEN + off)
		return;
	tlvs = (const struct nlattr *)((const unsigned char *)e + off);
	tlen = nlh->nlmsg_len - NLMSG_HDRLEN - off;
	a = genl_attr(tlvs, tlen, NLMSGERR_ATTR_OFFS);
	if (a)
		gs->erroff = *(const uint32_t *)NLA_DATA(a);
	a = genl_attr(tlvs, tlen, NLMSGERR_ATTR_MISS_TYPE);
	if (a)
		gs->misstype = *(const uint32_t *)NLA_DATA(a);
	msg = genl_attr(tlvs, tlen, NLMSGERR_ATTR_MSG);
	if (msg)
		snprintf(gs->errmsg, sizeof(gs->errmsg), "%.*s",
			 (int)(msg->nla_len - NLA_HDRLEN), (const char *)NLA_DATA(msg));
}

static int genl_send(struct genl_sock *gs, uint16_t type, uint8_t cmd, uint16_t flags,
		     const struct attrbuf *ab)
{
	struct {
		struct nlmsghdr nlh;
		struct genlmsghdr g;
		unsigned char attrs[8192];
	} req = {};
	size_t alen = ab ? ab->len : 0;

	req.nlh.nlmsg_len = NLMSG_HDRLEN + GENL_HDRLEN + alen;
	req.nlh.nlmsg_type = type;
	req.nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	req.nlh.nlmsg_seq = ++gs->seq;
	req.g.cmd = cmd;
	req.g.version = 1;
	if (alen)
		memcpy(req.attrs, ab->data, alen);
	if (send(gs->fd, &req, req.nlh.nlmsg_len, 0) < 0)
		return -errno;
	return 0;
}

/* Handle one received message; 1 when the request is complete. */
static int genl_recv_one(struct genl_sock *gs, const struct nlmsghdr *nlh, int *err,
			 genl_msg_cb cb, void *arg)
{
	if (nlh->nlmsg_seq != gs->seq)
		return 0;
	if (nlh->nlmsg_type == NLMSG_ERROR) {
		*err = ((const struct nlmsgerr *)NLMSG_DATA(nlh))->error;
		genl_take_extack(gs, nlh);
		return 1;
	}
	if (nlh->nlmsg_type == NLMSG_DONE) {
		*err = *(const int *)NLMSG_DATA(nlh);
		return 1;
	}
	gs->nmsgs++;
	if (cb && nlh->nlmsg_len >= NLMSG_HDRLEN + GENL_HDRLEN)
		cb((const struct nlattr *)((const unsigned char *)NLMSG_DATA(nlh) + GENL_HDRLEN),
		   nlh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN, arg);
	return 0;
}

static int genl_request_type(struct genl_sock *gs, uint16_t type, uint8_t cmd, int dump,
			     const struct attrbuf *ab, genl_msg_cb cb, void *arg)
{
	static unsigned char buf[1 << 16];
	int err = 0, done = 0;

	gs->errmsg[0] = '\0';
	gs->erroff = -1;
	gs->misstype = -1;
	gs->nmsgs = 0;
	err = genl_send(gs, type, cmd, dump ? NLM_F_DUMP : 0, ab);
	if (err)
		return err;
	while (!done) {
		ssize_t n = recv(gs->fd, buf, sizeof(buf), 0);
		struct nlmsghdr *nlh = (struct nlmsghdr *)buf;

		if (n < 0)
			return -errno;
		for (; NLMSG_OK(nlh, n) && !done; nlh = NLMSG_NEXT(nlh, n))
			done = genl_recv_one(gs, nlh, &err, cb, arg);
	}
	return err;
}

int genl_request(struct genl_sock *gs, uint8_t cmd, int dump, const struct attrbuf *ab,
		 genl_msg_cb cb, void *arg)
{
	return genl_request_type(gs, gs->family, cmd, dump, ab, cb, arg);
}

static void genl_family_cb(const struct nlattr *attrs, size_t len, void *arg)
{
	const struct nlattr *id = genl_attr(attrs, len, CTRL_ATTR_FAMILY_ID);

	if (id)
		memcpy(arg, NLA_DATA(id), sizeof(uint16_t));
}

int genl_open(struct genl_sock *gs, const char *family)
{
	struct attrbuf ab = {};
	int one = 1, err;

	memset(gs, 0, sizeof(*gs));
	gs->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (gs->fd < 0)
		return -errno;
	setsockopt(gs->fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(gs->fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	ab_put_str(&ab, CTRL_ATTR_FAMILY_NAME, family);
	err = genl_request_type(gs, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 0, &ab, genl_family_cb,
				&gs->family);
	if (!err && !gs->family)
		err = -ENOENT;
	if (err) {
		close(gs->fd);
		gs->fd = -1;
	}
	return err;
}

void genl_close(struct genl_sock *gs)
{
	if (gs->fd >= 0)
		close(gs->fd);
	gs->fd = -1;
}
