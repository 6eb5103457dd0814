// SPDX-License-Identifier: GPL-2.0
/*
 * Netlink commands on memory regions, what a Cowbird instance binds to:
 * REGION_GET (do and dump) and REGION_REKEY. Today every region is the
 * local region of a fabric memory host (EDM_REGION_KIND_FABRIC), found
 * among the devices of the caller's netns: its ID is the host's fabric
 * address (COWBIRD_IOC_CREATE's region_id), its owner the host. Several
 * fabrics in one netns may reuse an address, so a request names a region
 * by ID, by owner or by both, and an ID that names several is refused. A
 * region that is not there is ENODEV, as every unknown object of the family.
 *
 * Keys are secrets. A GET reply carries EDM_A_REGION_KEY only when the
 * requester has CAP_NET_ADMIN over the netns (netlink_net_capable() on the
 * request), a REKEY reply always (the command needs admin), an event never.
 *
 * Locking: each handler holds its netns's registry lock around lookup,
 * change and the messages it builds, as the fabric commands do; a region's
 * own fields are read and changed under its host's node->lock
 * (drivers/fabric/host.c). A rekey either happens with its reply and event
 * built, or not at all: the messages are allocated first.
 */
#include <net/sock.h>

#include "edm/dev.h"
#include "edm/fabric.h"
#include "edm/netlink.h"

/* Not const: the 6.1 API. */
static struct netlink_range_validation edm_region_id_range = {
	.max = U16_MAX,
};

/* REGION_GET and REGION_REKEY select a region by ID, owner, or both. */
const struct nla_policy edm_region_sel_policy[EDM_A_REGION_MAX + 1] = {
	[EDM_A_REGION_ID] = NLA_POLICY_FULL_RANGE(NLA_U32, &edm_region_id_range),
	EDM_REPLY_ONLY(EDM_A_REGION_KIND),
	[EDM_A_REGION_OWNER] = { .type = NLA_NUL_STRING, .len = EDM_NAME_LEN - 1 },
	EDM_REPLY_ONLY(EDM_A_REGION_SIZE),
	EDM_REPLY_ONLY(EDM_A_REGION_KEY),
	EDM_REPLY_ONLY(EDM_A_REGION_KEY_GEN),
	EDM_REPLY_ONLY(EDM_A_REGION_STATS),
};

/* A region as seen under the registry lock: its owner and a snapshot. */
struct edm_region {
	const struct edm_dev *owner;
	struct edm_fab_region_info ri;
};

/* True, with @r filled, when @dev is a fabric host serving a region. */
static bool edm_region_of(const struct edm_dev *dev, struct edm_region *r)
{
	struct edm_fab_node *n = edm_fab_node_of(dev);

	if (!n || !edm_fab_node_is_host(n) || edm_fab_host_region_info(n, &r->ri))
		return false;
	r->owner = dev;
	return true;
}

/* Does @r fit the ID and owner of a request (either may be absent)? */
static bool edm_region_match(const struct edm_region *r, struct nlattr **attrs)
{
	struct nlattr *id = attrs[EDM_A_REGION_ID], *owner = attrs[EDM_A_REGION_OWNER];

	if (id && nla_get_u32(id) != r->ri.addr)
		return false;
	if (owner && strcmp(nla_data(owner), r->owner->name))
		return false;
	return true;
}

static int edm_region_not_found(struct genl_info *info)
{
	struct nlattr *id = info->attrs[EDM_A_REGION_ID];
	struct nlattr *owner = info->attrs[EDM_A_REGION_OWNER];

	if (id && owner)
		NL_SET_ERR_MSG_ATTR(info->extack, owner, "no region with this id and owner");
	else if (id)
		NL_SET_ERR_MSG_ATTR(info->extack, id, "no region with this id");
	else
		NL_SET_ERR_MSG_ATTR(info->extack, owner, "this device owns no region");
	return -ENODEV;
}

/* Under the registry lock: the one region @info names, into @r. */
static int edm_region_find(struct edm_net *en, struct genl_info *info, struct edm_region *r)
{
	struct nlattr *id = info->attrs[EDM_A_REGION_ID];
	struct edm_region cur;
	struct edm_dev *dev;
	unsigned long i;
	bool found = false;

	lockdep_assert_held(&en->lock);
	if (!id && !info->attrs[EDM_A_REGION_OWNER]) {
		NL_SET_ERR_MSG(info->extack, "missing region: give its id or its owner");
		NL_SET_ERR_ATTR_MISS(info->extack, NULL, EDM_A_REGION_ID);
		return -EINVAL;
	}
	xa_for_each(&en->devs, i, dev) {
		if (!edm_region_of(dev, &cur) || !edm_region_match(&cur, info->attrs))
			continue;
		if (found) {
			/* Only an ID alone can match twice: owners are unique. */
			NL_SET_ERR_MSG_ATTR(info->extack, id,
					    "several regions have this id: name the owner too");
			return -EINVAL;
		}
		*r = cur;
		found = true;
	}
	return found ? 0 : edm_region_not_found(info);
}

static int edm_region_put_stats(struct sk_buff *msg, const struct edm_fab_region_info *ri)
{
	struct nlattr *nest = nla_nest_start(msg, EDM_A_REGION_STATS);
	int i;

	if (!nest)
		return -EMSGSIZE;
	for (i = EDM_A_RSTAT_PAD + 1; i <= EDM_A_RSTAT_MAX; i++)
		if (nla_put_u64_64bit(msg, i, ri->stats[i], EDM_A_RSTAT_PAD))
			return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

/* The region's attributes; its key only if @key. */
static int edm_region_fill(struct sk_buff *msg, const struct edm_region *r, bool key)
{
	const struct edm_fab_region_info *ri = &r->ri;

	if (nla_put_u32(msg, EDM_A_REGION_ID, ri->addr) ||
	    nla_put_u32(msg, EDM_A_REGION_KIND, EDM_REGION_KIND_FABRIC) ||
	    nla_put_string(msg, EDM_A_REGION_OWNER, r->owner->name) ||
	    nla_put_u64_64bit(msg, EDM_A_REGION_SIZE, ri->size, EDM_A_REGION_PAD) ||
	    nla_put_u32(msg, EDM_A_REGION_KEY_GEN, ri->key_gen) ||
	    (key && nla_put_u64_64bit(msg, EDM_A_REGION_KEY, ri->key, EDM_A_REGION_PAD)) ||
	    edm_region_put_stats(msg, ri))
		return -EMSGSIZE;
	return 0;
}

/* Into @msg, empty: a reply to @info (or an event, without) about @r. */
static int edm_region_put(struct sk_buff *msg, const struct edm_region *r,
			  struct genl_info *info, u8 cmd, bool key)
{
	void *hdr = edm_nl_put_hdr(msg, info, cmd);

	if (!hdr || edm_region_fill(msg, r, key))
		return -EMSGSIZE;
	genlmsg_end(msg, hdr);
	return 0;
}

int edm_nl_region_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct edm_net *en = edm_net(genl_info_net(info));
	bool key = netlink_net_capable(skb, CAP_NET_ADMIN);
	struct edm_region r;
	struct sk_buff *msg;
	int err;

	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	mutex_lock(&en->lock);
	err = edm_region_find(en, info, &r) ?:
	      edm_region_put(msg, &r, info, EDM_CMD_REGION_GET, key);
	mutex_unlock(&en->lock);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

/*
 * Every region of the netns that the request's ID and owner (if any) fit.
 * Resumes at device ID cb->args[0]; cb->seq carries the registry
 * generation, so a dump that spans a change is flagged NLM_F_DUMP_INTR.
 */
int edm_nl_region_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	bool key = netlink_net_capable(cb->skb, CAP_NET_ADMIN);
	struct nlattr **attrs = genl_dumpit_info(cb)->attrs;
	struct edm_net *en = edm_net(sock_net(skb->sk));
	struct edm_region r;
	struct edm_dev *dev;
	unsigned long id;
	int err = 0;

	mutex_lock(&en->lock);
	cb->seq = en->gen;
	xa_for_each_start(&en->devs, id, dev, cb->args[0]) {
		void *hdr;

		if (!edm_region_of(dev, &r) || !edm_region_match(&r, attrs))
			continue;
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
				  &edm_genl_family, NLM_F_MULTI, EDM_CMD_REGION_GET);
		if (!hdr) {
			err = -EMSGSIZE;
			break;
		}
		genl_dump_check_consistent(cb, hdr);
		if (edm_region_fill(skb, &r, key)) {
			genlmsg_cancel(skb, hdr);
			err = -EMSGSIZE;
			break;
		}
		genlmsg_end(skb, hdr);
		cb->args[0] = id + 1;
	}
	mutex_unlock(&en->lock);
	if (err == -EMSGSIZE && skb->len)
		return skb->len;
	return err ?: skb->len;
}

/*
 * A new key for the region, in the reply; the event says the region was
 * rekeyed (its new key_gen) and nothing of the key.
 */
int edm_nl_region_rekey_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct edm_net *en = edm_net(genl_info_net(info));
	struct sk_buff *reply, *event;
	struct edm_region r;
	int err;

	reply = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	event = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!reply || !event) {
		err = -ENOMEM;
		goto err_free;
	}
	mutex_lock(&en->lock);
	err = edm_region_find(en, info, &r);
	if (err)
		goto err_unlock;
	/* Neither can fail: the host is alive under the registry lock. */
	err = edm_fab_host_rekey(edm_fab_node_of(r.owner));
	if (err || !edm_region_of(r.owner, &r))
		goto err_unlock;
	err = edm_region_put(reply, &r, info, EDM_CMD_REGION_REKEY, true) ?:
	      edm_region_put(event, &r, NULL, EDM_CMD_REGION_REKEY, false);
	mutex_unlock(&en->lock);
	if (err)
		goto err_free;
	edm_nl_notify(genl_info_net(info), event);
	return genlmsg_reply(reply, info);

err_unlock:
	mutex_unlock(&en->lock);
err_free:
	nlmsg_free(reply);
	nlmsg_free(event);
	return err ?: -ENODEV;
}
