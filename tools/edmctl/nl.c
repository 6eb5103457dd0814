// SPDX-License-Identifier: GPL-2.0-only
/*
 * edmctl: libnl socket, family resolution, request/reply with extended
 * ACK, dumps and the event monitor.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/netlink.h>
#include <netlink/genl/genl.h>
#include <netlink/genl/ctrl.h>
#include <netlink/handlers.h>
#include <netlink/socket.h>

#include <linux/edm.h>

#include "edmctl.h"
#include "nl.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

#define NETNS_RUN_DIR	"/var/run/netns"

static struct nl_sock *sk;
static int family = -1;
static const char *family_name = EDM_GENL_NAME;

void edm_nl_set_family_name(const char *name)
{
	family_name = name;
}

int edm_nl_netns_switch(const char *name)
{
	char path[PATH_MAX];
	int fd;

	if (!*name || strchr(name, '/') || !strcmp(name, ".") ||
	    !strcmp(name, ".."))
		return edm_err("invalid network namespace name \"%s\"", name);
	snprintf(path, sizeof(path), "%s/%s", NETNS_RUN_DIR, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return edm_err("cannot open network namespace \"%s\": %s",
			       name, strerror(errno));
	if (setns(fd, CLONE_NEWNET) < 0) {
		int e = errno;

		close(fd);
		return edm_err("setting the network namespace \"%s\" failed: %s",
			       name, strerror(e));
	}
	close(fd);
	return 0;
}

int edm_nl_open(void)
{
	int one = 1;
	int err, fd;

	if (sk)
		return 0;
	sk = nl_socket_alloc();
	if (!sk)
		return edm_err("out of memory");
	err = genl_connect(sk);
	if (err < 0) {
		edm_err("cannot open a generic netlink socket: %s",
			nl_geterror(err));
		goto fail;
	}
	fd = nl_socket_get_fd(sk);
	/*
	 * Best effort: old kernels just give less detail. No NETLINK_CAP_ACK:
	 * an error then echoes the request, so its extack offset can name the
	 * attribute it is about.
	 */
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	/* We ask for ACKs ourselves and check sequence numbers ourselves. */
	nl_socket_disable_auto_ack(sk);
	/* Never lose a message larger than libnl's default buffer. */
	nl_socket_enable_msg_peek(sk);

	family = genl_ctrl_resolve(sk, family_name);
	if (family == -NLE_OBJ_NOTFOUND) {
		edm_err("edm module not loaded (generic netlink family \"%s\" not found)",
			family_name);
		goto fail;
	}
	if (family < 0) {
		edm_err("cannot resolve generic netlink family \"%s\": %s",
			family_name, nl_geterror(family));
		goto fail;
	}
	return 0;
fail:
	nl_socket_free(sk);
	sk = NULL;
	family = -1;
	return -1;
}

void edm_nl_close(void)
{
	if (sk)
		nl_socket_free(sk);
	sk = NULL;
	family = -1;
}

struct nl_msg *edm_nl_req(uint8_t cmd, int flags)
{
	struct nl_msg *msg;

	msg = nlmsg_alloc();
	if (!msg) {
		edm_err("out of memory");
		return NULL;
	}
	if (!(flags & NLM_F_DUMP))
		flags |= NLM_F_ACK;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, flags,
			 cmd, EDM_GENL_VERSION)) {
		nlmsg_free(msg);
		edm_err("out of memory");
		return NULL;
	}
	return msg;
}

struct nlattr *edm_nl_nest_start(struct nl_msg *msg, int type)
{
	return nla_nest_start(msg, type | NLA_F_NESTED);
}

void edm_nl_nest_end(struct nl_msg *msg, struct nlattr *nest)
{
	nla_nest_end(msg, nest);
}

int edm_nl_parse(struct nlmsghdr *nlh, struct nlattr **tb, int maxtype)
{
	if (!genlmsg_valid_hdr(nlh, 0))
		return -1;
	/* No policy: unknown (newer) attributes are ignored, sizes are
	 * checked by the getters, so nothing here rejects a message.
	 */
	if (genlmsg_parse(nlh, 0, tb, maxtype, NULL) < 0)
		return -1;
	return 0;
}

uint8_t edm_nl_cmd(struct nlmsghdr *nlh)
{
	return genlmsg_hdr(nlh)->cmd;
}

bool edm_nl_get_u32(const struct nlattr *a, uint32_t *v)
{
	if (!a || nla_len(a) != sizeof(uint32_t))
		return false;
	memcpy(v, nla_data(a), sizeof(*v));
	return true;
}

bool edm_nl_get_u64(const struct nlattr *a, uint64_t *v)
{
	if (!a || nla_len(a) != sizeof(uint64_t))
		return false;
	memcpy(v, nla_data(a), sizeof(*v));
	return true;
}

const char *edm_nl_get_str(const struct nlattr *a)
{
	const char *s;
	int len;

	if (!a)
		return NULL;
	len = nla_len(a);
	s = nla_data(a);
	if (len <= 0 || memchr(s, '\0', len) == NULL)
		return NULL;
	return s;
}

/* ---- errors and the extended ACK ---- */

/*
 * The name of the top-level attribute at (or around) byte @offs of the
 * request that an NLMSG_ERROR echoes, or NULL. @offs counts from the
 * request's nlmsghdr, as NLMSGERR_ATTR_OFFS does. An offset inside a
 * nest names the nest.
 */
static const char *edm_nl_offs_name(const struct nlmsghdr *nlh, uint32_t offs,
				    const struct edm_nl_attr_names *names)
{
	const struct nlmsgerr *e = NLMSG_DATA(nlh);
	size_t first = NLMSG_HDRLEN + GENL_HDRLEN, pos = first, len;
	const char *req = (const char *)&e->msg;

	if (!names || (nlh->nlmsg_flags & NLM_F_CAPPED) || offs < first)
		return NULL;
	len = e->msg.nlmsg_len;
	if (len > nlh->nlmsg_len - NLMSG_HDRLEN - sizeof(int) || offs >= len)
		return NULL;
	while (pos + NLA_HDRLEN <= len) {
		const struct nlattr *a = (const struct nlattr *)(req + pos);
		unsigned int type = a->nla_type & NLA_TYPE_MASK;

		if (a->nla_len < NLA_HDRLEN || pos + a->nla_len > len)
			return NULL;
		if (offs >= pos && offs < pos + a->nla_len)
			return type < names->count ? names->names[type] : NULL;
		pos += NLA_ALIGN(a->nla_len);
	}
	return NULL;
}

/*
 * The kernel's own policy messages (lib/nlattr.c) do not say which
 * attribute they are about; the family's messages do, so only these get
 * the attribute's name added.
 */
static bool edm_nl_generic_msg(const char *msg)
{
	static const char *const generic[] = {
		"integer out of range", "invalid attribute length", "Attribute failed policy validation",
		"binary attribute size out of range", "NLA_F_NESTED is missing",
		"NLA_F_NESTED not expected", "Unknown attribute type", "reserved bit set",
	};
	size_t i;

	for (i = 0; msg && i < sizeof(generic) / sizeof(generic[0]); i++)
		if (!strcmp(msg, generic[i]))
			return true;
	return false;
}

void edm_nl_report(FILE *fp, const struct nlmsghdr *nlh, size_t tlv_off,
		   int error, const struct edm_nl_attr_names *names)
{
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1] = { NULL };
	const char *msg = NULL, *bad = NULL;
	uint32_t miss, offs;
	bool has_miss = false;
	size_t start = NLMSG_HDRLEN + NLMSG_ALIGN(tlv_off);

	if ((nlh->nlmsg_flags & NLM_F_ACK_TLVS) && start < nlh->nlmsg_len &&
	    nlh->nlmsg_len - start <= INT_MAX) {
		nla_parse(tb, NLMSGERR_ATTR_MAX,
			  (struct nlattr *)((char *)nlh + start),
			  (int)(nlh->nlmsg_len - start), NULL);
		msg = edm_nl_get_str(tb[NLMSGERR_ATTR_MSG]);
		if (msg && !*msg)
			msg = NULL;
		has_miss = edm_nl_get_u32(tb[NLMSGERR_ATTR_MISS_TYPE], &miss);
		if (nlh->nlmsg_type == NLMSG_ERROR && edm_nl_generic_msg(msg) &&
		    edm_nl_get_u32(tb[NLMSGERR_ATTR_OFFS], &offs))
			bad = edm_nl_offs_name(nlh, offs, names);
	}

	fflush(stdout);
	if (!error) {
		if (msg)
			fprintf(fp, "Warning: %s%s\n", msg,
				msg[strlen(msg) - 1] == '.' ? "" : ".");
		return;
	}
	if (error < 0)
		error = -error;
	if (msg && bad) {
		fprintf(fp, "Error: %s (attribute \"%s\").\n", msg, bad);
	} else if (msg) {
		fprintf(fp, "Error: %s%s\n", msg,
			msg[strlen(msg) - 1] == '.' ? "" : ".");
	} else if (has_miss) {
		if (names && miss < names->count && names->names[miss])
			fprintf(fp, "Error: %s (missing attribute \"%s\").\n",
				strerror(error), names->names[miss]);
		else
			fprintf(fp, "Error: %s (missing attribute %u).\n",
				strerror(error), miss);
	} else {
		fprintf(fp, "Error: %s.\n", strerror(error));
	}
}

struct talk {
	uint32_t seq;
	bool monitor;
	bool done;
	bool dump_intr;
	int err;			/* -errno, or -EIO for local errors */
	const struct edm_nl_attr_names *names;
	edm_nl_fn fn;
	void *arg;
};

static int cb_seq(struct nl_msg *msg, void *arg)
{
	struct talk *t = arg;

	if (t->monitor)
		return NL_OK;
	/* Anything not answering our request is not for us. */
	return nlmsg_hdr(msg)->nlmsg_seq == t->seq ? NL_OK : NL_SKIP;
}

static int cb_valid(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct talk *t = arg;
	int ret;

	if (nlh->nlmsg_type != family || !genlmsg_valid_hdr(nlh, 0))
		return NL_SKIP;
	ret = t->fn ? t->fn(nlh, t->arg) : 0;
	if (ret < 0) {
		t->err = -EIO;
		t->done = true;
		return NL_STOP;
	}
	if (ret > 0) {
		t->done = true;
		return NL_STOP;
	}
	return NL_OK;
}

static int cb_ack(struct nl_msg *msg, void *arg)
{
	struct talk *t = arg;

	/* An ACK may carry a warning. */
	edm_nl_report_err(stderr, nlmsg_hdr(msg), t->names);
	t->done = true;
	return NL_STOP;
}

int edm_nl_report_done(FILE *fp, const struct nlmsghdr *nlh,
		       const struct edm_nl_attr_names *names)
{
	int error = 0;

	/* A dump that failed half-way ends with a negative errno in DONE. */
	if (nlh->nlmsg_len >= NLMSG_LENGTH(sizeof(int)))
		memcpy(&error, nlmsg_data(nlh), sizeof(error));
	if (error > 0)
		error = 0;
	edm_nl_report(fp, nlh, sizeof(int), error, names);
	return error;
}

static int cb_finish(struct nl_msg *msg, void *arg)
{
	struct talk *t = arg;
	int error;

	error = edm_nl_report_done(stderr, nlmsg_hdr(msg), t->names);
	if (error)
		t->err = error;
	t->done = true;
	return NL_STOP;
}

int edm_nl_report_err(FILE *fp, const struct nlmsghdr *nlh,
		      const struct edm_nl_attr_names *names)
{
	const struct nlmsgerr *e = nlmsg_data(nlh);
	size_t off = sizeof(*e);
	int error = e->error;

	/* Without NETLINK_CAP_ACK the request is echoed before the TLVs. */
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED) &&
	    e->msg.nlmsg_len >= NLMSG_HDRLEN)
		off += NLMSG_ALIGN(e->msg.nlmsg_len - NLMSG_HDRLEN);
	if (error > 0)		/* some subsystems use positive codes */
		error = -error;
	edm_nl_report(fp, nlh, off, error, names);
	return error;
}

static int cb_err(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	/* libnl hands us the payload; the header is right before it. */
	struct nlmsghdr *nlh = (struct nlmsghdr *)((char *)e - NLMSG_HDRLEN);
	struct talk *t = arg;

	(void)nla;
	if (!t->monitor && nlh->nlmsg_seq != t->seq)
		return NL_SKIP;
	t->err = edm_nl_report_err(stderr, nlh, t->names);
	t->done = true;
	return NL_STOP;
}

static int cb_dump_intr(struct nl_msg *msg, void *arg)
{
	struct talk *t = arg;

	(void)msg;
	t->dump_intr = true;
	return NL_OK;
}

static struct nl_cb *talk_cb(struct talk *t)
{
	struct nl_cb *cb = nl_cb_alloc(NL_CB_DEFAULT);

	if (!cb)
		return NULL;
	nl_cb_set(cb, NL_CB_SEQ_CHECK, NL_CB_CUSTOM, cb_seq, t);
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, cb_valid, t);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, cb_ack, t);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, cb_finish, t);
	nl_cb_set(cb, NL_CB_DUMP_INTR, NL_CB_CUSTOM, cb_dump_intr, t);
	nl_cb_err(cb, NL_CB_CUSTOM, cb_err, t);
	return cb;
}

int edm_nl_talk(struct nl_msg *msg, const struct edm_nl_attr_names *names,
		edm_nl_fn fn, void *arg)
{
	struct talk t = { .names = names, .fn = fn, .arg = arg };
	struct nl_cb *cb;
	int ret;

	if (!sk) {
		nlmsg_free(msg);
		return edm_err("netlink socket not open"), -EIO;
	}
	ret = nl_send_auto(sk, msg);
	if (ret < 0) {
		nlmsg_free(msg);
		edm_err("cannot send netlink request: %s", nl_geterror(ret));
		return -EIO;
	}
	t.seq = nlmsg_hdr(msg)->nlmsg_seq;
	nlmsg_free(msg);

	cb = talk_cb(&t);
	if (!cb)
		return edm_err("out of memory"), -ENOMEM;
	while (!t.done) {
		ret = nl_recvmsgs(sk, cb);
		if (t.done)
			break;
		if (ret < 0) {
			edm_err("cannot receive netlink reply: %s",
				nl_geterror(ret));
			t.err = -EIO;
			break;
		}
	}
	nl_cb_put(cb);
	if (t.dump_intr && !t.err)
		edm_warn("the dump was interrupted and may be inconsistent, run it again");
	return t.err;
}

/* ---- monitor ---- */

static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
	got_signal = sig;
}

int edm_nl_monitor(const char *group, edm_nl_fn fn, void *arg)
{
	struct talk t = { .monitor = true, .fn = fn, .arg = arg };
	struct sigaction sa = { .sa_handler = on_signal };
	struct sigaction old_int, old_term;
	sigset_t block, old_mask;
	struct pollfd pfd;
	struct nl_cb *cb;
	int grp, ret;

	if (!sk)
		return edm_err("netlink socket not open"), -EIO;
	grp = genl_ctrl_resolve_grp(sk, family_name, group);
	if (grp == -NLE_OBJ_NOTFOUND)
		return edm_err("generic netlink family \"%s\" has no multicast group \"%s\"",
			       family_name, group), -ENOENT;
	if (grp < 0)
		return edm_err("cannot resolve multicast group \"%s\": %s",
			       group, nl_geterror(grp)), -EIO;
	ret = nl_socket_add_membership(sk, grp);
	if (ret < 0)
		return edm_err("cannot join multicast group \"%s\": %s",
			       group, nl_geterror(ret)), -EIO;
	/* Bursts of events: a bigger queue before the kernel drops any. */
	nl_socket_set_buffer_size(sk, 1 << 20, 0);
	ret = nl_socket_set_nonblocking(sk);
	if (ret < 0)
		return edm_err("cannot set the socket non-blocking: %s",
			       nl_geterror(ret)), -EIO;

	cb = talk_cb(&t);
	if (!cb)
		return edm_err("out of memory"), -ENOMEM;

	/*
	 * SIGINT/SIGTERM are blocked except inside ppoll(), so a signal is
	 * either seen by ppoll() (EINTR) or pending until the next one:
	 * no race between checking got_signal and sleeping.
	 */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &old_mask);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);

	pfd.fd = nl_socket_get_fd(sk);
	pfd.events = POLLIN;
	while (!got_signal && !t.done) {
		ret = ppoll(&pfd, 1, NULL, &old_mask);
		if (ret < 0) {
			if (errno == EINTR)
				continue;
			edm_err("poll: %s", strerror(errno));
			t.err = -EIO;
			break;
		}
		ret = nl_recvmsgs(sk, cb);
		if (t.done)
			break;
		if (ret == -NLE_AGAIN || ret >= 0)
			continue;
		if (ret == -NLE_NOMEM) {
			/* ENOBUFS: the socket queue overflowed. */
			edm_warn("events were lost (receive queue overflow)");
			continue;
		}
		edm_err("cannot receive events: %s", nl_geterror(ret));
		t.err = -EIO;
		break;
	}

	/* Unblock first: a second pending signal still lands in on_signal. */
	sigprocmask(SIG_SETMASK, &old_mask, NULL);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	nl_cb_put(cb);
	return t.err;
}
