// SPDX-License-Identifier: GPL-2.0
/*
 * Netlink commands on Cowbird (cowbird/): COWBIRD_GET and
 * COWBIRD_SET on the offload engine, COWBIRD_INST_GET (dump) on its
 * instances.
 *
 * The engine is one for the module, shared by every netns: GET shows its
 * parameters and counters to anyone, SET needs CAP_NET_ADMIN in the initial
 * user namespace (GENL_ADMIN_PERM) and announces a change on the events
 * group of the requester's netns. An instance is shown in the netns it was
 * created in, which is where its region is.
 *
 * Locking: the engine serializes its own state (engine.c); these handlers
 * take no lock of their own and run serialized under genl_mutex.
 */
#include <net/sock.h>
#include <uapi/linux/edm.h>

#include "edm/cowbird.h"
#include "edm/netlink.h"

/* Not const: the 6.1 API. */
static struct netlink_range_validation edm_cowbird_probe_range = {
	.min = COWBIRD_PROBE_MAX_US_MIN,
	.max = COWBIRD_PROBE_MAX_US_MAX,
};

static struct netlink_range_validation edm_cowbird_spins_range = {
	.max = COWBIRD_IDLE_SPINS_MAX,
};

/* COWBIRD_GET takes nothing. */
static const struct nla_policy edm_cowbird_get_policy[EDM_A_COWBIRD_MAX + 1] = {
	EDM_REPLY_ONLY(EDM_A_COWBIRD_THREADS),
	EDM_REPLY_ONLY(EDM_A_COWBIRD_CPU),
	EDM_REPLY_ONLY(EDM_A_COWBIRD_INSTANCES),
	EDM_REPLY_ONLY(EDM_A_COWBIRD_PROBE_MAX_US),
	EDM_REPLY_ONLY(EDM_A_COWBIRD_IDLE_SPINS),
	EDM_REPLY_ONLY(EDM_A_COWBIRD_BATCH),
	EDM_REPLY_ONLY(EDM_A_COWBIRD_STATS),
};

static const struct nla_policy edm_cowbird_set_policy[EDM_A_COWBIRD_MAX + 1] = {
	EDM_REPLY_ONLY(EDM_A_COWBIRD_THREADS),
	EDM_REPLY_ONLY(EDM_A_COWBIRD_CPU),
	EDM_REPLY_ONLY(EDM_A_COWBIRD_INSTANCES),
	EDM_REPLY_ONLY(EDM_A_COWBIRD_STATS),
	[EDM_A_COWBIRD_PROBE_MAX_US] = NLA_POLICY_FULL_RANGE(NLA_U32, &edm_cowbird_probe_range),
	[EDM_A_COWBIRD_IDLE_SPINS] = NLA_POLICY_FULL_RANGE(NLA_U32, &edm_cowbird_spins_range),
	[EDM_A_COWBIRD_BATCH] = NLA_POLICY_RANGE(NLA_U32, 1, COWBIRD_BATCH_MAX),
};

/* COWBIRD_INST_GET (dump) takes nothing. */
static const struct nla_policy edm_cbinst_get_policy[EDM_A_CBINST_MAX + 1] = {
	EDM_REPLY_ONLY(EDM_A_CBINST_ID),
	EDM_REPLY_ONLY(EDM_A_CBINST_REGION_ID),
	EDM_REPLY_ONLY(EDM_A_CBINST_REGION_SIZE),
	EDM_REPLY_ONLY(EDM_A_CBINST_RINGS),
	EDM_REPLY_ONLY(EDM_A_CBINST_ENTRIES),
	EDM_REPLY_ONLY(EDM_A_CBINST_DATA_SIZE),
	EDM_REPLY_ONLY(EDM_A_CBINST_BATCH),
	EDM_REPLY_ONLY(EDM_A_CBINST_STATS),
};

/* ---- the engine ---- */

static int edm_cowbird_put_stats(struct sk_buff *msg, const struct cowbird_engine_info *ei)
{
	const u64 v[] = { ei->picks, ei->busy_skips, ei->sleeps, ei->created, ei->destroyed };
	struct nlattr *nest = nla_nest_start(msg, EDM_A_COWBIRD_STATS);
	int i;

	BUILD_BUG_ON(ARRAY_SIZE(v) != EDM_A_CBSTAT_MAX - EDM_A_CBSTAT_PAD);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < ARRAY_SIZE(v); i++)
		if (nla_put_u64_64bit(msg, EDM_A_CBSTAT_PAD + 1 + i, v[i], EDM_A_CBSTAT_PAD))
			return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

/* The engine's parameters; its counters too if @stats (not in events). */
static int edm_cowbird_fill(struct sk_buff *msg, bool stats)
{
	struct cowbird_engine_info ei;

	cowbird_engine_info(&ei);
	if (nla_put_u32(msg, EDM_A_COWBIRD_THREADS, ei.threads) ||
	    (ei.cpu >= 0 && nla_put_u32(msg, EDM_A_COWBIRD_CPU, ei.cpu)) ||
	    nla_put_u32(msg, EDM_A_COWBIRD_INSTANCES, ei.instances) ||
	    nla_put_u32(msg, EDM_A_COWBIRD_PROBE_MAX_US, ei.probe_max_us) ||
	    nla_put_u32(msg, EDM_A_COWBIRD_IDLE_SPINS, ei.idle_spins) ||
	    nla_put_u32(msg, EDM_A_COWBIRD_BATCH, ei.batch) ||
	    (stats && edm_cowbird_put_stats(msg, &ei)))
		return -EMSGSIZE;
	return 0;
}

/* A reply to @info, or an event without it. */
static struct sk_buff *edm_cowbird_msg(struct genl_info *info, u8 cmd, bool stats)
{
	struct sk_buff *msg;
	void *hdr;

	msg = edm_nl_msg_new(info, cmd, NLMSG_DEFAULT_SIZE, &hdr);
	return msg ? edm_nl_msg_end(msg, hdr, edm_cowbird_fill(msg, stats)) : NULL;
}

static int edm_nl_cowbird_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *msg = edm_cowbird_msg(info, EDM_CMD_COWBIRD_GET, true);

	if (!msg)
		return -ENOMEM;
	return genlmsg_reply(msg, info);
}

static const u32 *edm_cowbird_u32(struct genl_info *info, int attr, u32 *v)
{
	if (!info->attrs[attr])
		return NULL;
	*v = nla_get_u32(info->attrs[attr]);
	return v;
}

/* The policy checked every range; a set that changes nothing sends no event. */
static int edm_nl_cowbird_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	u32 probe_max_us, idle_spins, batch;
	struct sk_buff *event;

	if (!info->attrs[EDM_A_COWBIRD_PROBE_MAX_US] && !info->attrs[EDM_A_COWBIRD_IDLE_SPINS] &&
	    !info->attrs[EDM_A_COWBIRD_BATCH]) {
		NL_SET_ERR_MSG(info->extack,
			       "nothing to set: give probe-max-us, idle-spins or batch");
		NL_SET_ERR_ATTR_MISS(info->extack, NULL, EDM_A_COWBIRD_BATCH);
		return -EINVAL;
	}
	if (!cowbird_engine_set(edm_cowbird_u32(info, EDM_A_COWBIRD_PROBE_MAX_US, &probe_max_us),
				edm_cowbird_u32(info, EDM_A_COWBIRD_IDLE_SPINS, &idle_spins),
				edm_cowbird_u32(info, EDM_A_COWBIRD_BATCH, &batch)))
		return 0;
	event = edm_cowbird_msg(NULL, EDM_CMD_COWBIRD_SET, false);
	if (event)
		edm_nl_notify(genl_info_net(info), event);
	return 0;
}

/* ---- instances ---- */

static int edm_cbinst_put_stats(struct sk_buff *msg, const struct cowbird_inst_info *ii)
{
	const u64 v[] = {
		ii->inst.passes, ii->ring.fetched, ii->ring.rejected, ii->ring.ops,
		ii->ring.completed, ii->ring.batches, ii->ring.rd_blocked, ii->ring.wr_blocked,
		ii->rings_stopped, ii->inst.rd_ops, ii->inst.rd_bytes, ii->inst.wr_ops,
		ii->inst.wr_bytes, ii->inst.op_errors, ii->cc.issued, ii->cc.completed,
		ii->cc.increases, ii->cc.decreases, ii->cc.timeout_decreases, ii->cwnd_local,
		ii->cwnd_dst, ii->cwnd_dst_write,
	};
	struct nlattr *nest = nla_nest_start(msg, EDM_A_CBINST_STATS);
	int i;

	/* v[] is in EDM_A_CBISTAT_* order, from PASSES to CWND_DST_WRITE. */
	BUILD_BUG_ON(ARRAY_SIZE(v) != EDM_A_CBISTAT_MAX - EDM_A_CBISTAT_PAD);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < ARRAY_SIZE(v); i++)
		if (nla_put_u64_64bit(msg, EDM_A_CBISTAT_PAD + 1 + i, v[i], EDM_A_CBISTAT_PAD))
			return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

static int edm_cbinst_fill(struct sk_buff *msg, const struct cowbird_inst_info *ii)
{
	if (nla_put_u32(msg, EDM_A_CBINST_ID, ii->id) ||
	    nla_put_u32(msg, EDM_A_CBINST_REGION_ID, ii->region_id) ||
	    nla_put_u64_64bit(msg, EDM_A_CBINST_REGION_SIZE, ii->region_size, EDM_A_CBINST_PAD) ||
	    nla_put_u32(msg, EDM_A_CBINST_RINGS, ii->rings) ||
	    nla_put_u32(msg, EDM_A_CBINST_ENTRIES, ii->entries) ||
	    nla_put_u32(msg, EDM_A_CBINST_DATA_SIZE, ii->data_size) ||
	    nla_put_u32(msg, EDM_A_CBINST_BATCH, ii->batch) ||
	    edm_cbinst_put_stats(msg, ii))
		return -EMSGSIZE;
	return 0;
}

/*
 * The instances of the caller's netns in ID order, resuming at ID
 * cb->args[0]; the engine's generation (creations and destructions) flags
 * a dump that spans a change.
 */
static int edm_nl_cowbird_inst_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	u64 cookie = sock_net(skb->sk)->net_cookie;
	struct cowbird_inst_info ii;
	int err = 0;

	cb->seq = cowbird_engine_gen();
	while (!cowbird_engine_inst_info(cookie, cb->args[0], &ii)) {
		void *hdr = edm_nl_dump_hdr(skb, cb, EDM_CMD_COWBIRD_INST_GET);

		err = hdr ? edm_nl_dump_end(skb, hdr, edm_cbinst_fill(skb, &ii)) : -EMSGSIZE;
		if (err)
			break;
		cb->args[0] = ii.id + 1;
	}
	return edm_nl_dump_done(skb, err);
}

static const struct genl_ops edm_cowbird_genl_ops[] = {
	{
		.cmd = EDM_CMD_COWBIRD_GET,
		.doit = edm_nl_cowbird_get_doit,
		.policy = edm_cowbird_get_policy,
		.maxattr = EDM_A_COWBIRD_MAX,
	},
	{
		.cmd = EDM_CMD_COWBIRD_SET,
		.doit = edm_nl_cowbird_set_doit,
		.policy = edm_cowbird_set_policy,
		.maxattr = EDM_A_COWBIRD_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = EDM_CMD_COWBIRD_INST_GET,
		.dumpit = edm_nl_cowbird_inst_get_dumpit,
		.policy = edm_cbinst_get_policy,
		.maxattr = EDM_A_CBINST_MAX,
	},
};

const struct edm_nl_ops edm_cowbird_nl_ops = {
	.ops = edm_cowbird_genl_ops,
	.n_ops = ARRAY_SIZE(edm_cowbird_genl_ops),
};
