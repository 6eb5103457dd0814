// SPDX-License-Identifier: GPL-2.0
/*
 * Netlink commands on the EDM fabric's links: FLINK_NEW, FLINK_GET (do and
 * dump), FLINK_DEL and FLINK_SET, each naming a link by one end (node and
 * port), and the events: every change is announced on the events group,
 * once per link end it touched, and a link end that went down with
 * FLINK_DOWN and why.
 *
 * Locking: each handler runs under its netns's registry lock, taken by the
 * family's pre_doit (EDM_NL_LOCK), and the fabric calls it makes expect it
 * held. edm_fab_nl_link_down() takes no lock: it only sends what it is
 * given.
 */
#include <linux/etherdevice.h>
#include <linux/netdevice.h>
#include <net/sock.h>

#include "edm/compat.h"
#include "edm/dev.h"
#include "edm/fabric.h"
#include "edm/netlink.h"
#include "fab.h"

static struct netlink_range_validation edm_flink_rate_range = {
	.min = EDM_FAB_RATE_MIN,
	.max = EDM_FAB_RATE_MAX,
};

static struct netlink_range_validation edm_flink_delay_range = {
	.max = EDM_FAB_DELAY_MAX_NS,
};

#define EDM_FLINK_PORT_POLICY NLA_POLICY_MAX(NLA_U32, EDM_FAB_PORTS_MAX - 1)
#define EDM_FLINK_ENDS(attr) \
	[attr] = { .type = NLA_REJECT, \
		   .reject_message = "a link's ends are fixed: delete it and add it again" }

static const struct nla_policy edm_flink_new_policy[EDM_A_FLINK_MAX + 1] = {
	[EDM_A_FLINK_NODE] = EDM_NL_NAME_POLICY,
	[EDM_A_FLINK_PORT] = EDM_FLINK_PORT_POLICY,
	[EDM_A_FLINK_PEER] = EDM_NL_NAME_POLICY,
	[EDM_A_FLINK_PEER_PORT] = EDM_FLINK_PORT_POLICY,
	[EDM_A_FLINK_IFINDEX] = NLA_POLICY_MIN(NLA_U32, 1),
	[EDM_A_FLINK_RATE_MBPS] = NLA_POLICY_FULL_RANGE(NLA_U32, &edm_flink_rate_range),
	[EDM_A_FLINK_DELAY_NS] = NLA_POLICY_FULL_RANGE(NLA_U32, &edm_flink_delay_range),
	[EDM_A_FLINK_MUX] = NLA_POLICY_MAX(NLA_U32, EDM_FAB_MUX_MAX),
	EDM_REPLY_ONLY(EDM_A_FLINK_STATE),
	[EDM_A_FLINK_SHERR_THRESHOLD] = { .type = NLA_U32 },
	[EDM_A_FLINK_CORRUPT] = { .type = NLA_REJECT,
				  .reject_message = "corrupt is for a link that exists: use set" },
	EDM_REPLY_ONLY(EDM_A_FLINK_STATS),
	EDM_REPLY_ONLY(EDM_A_FLINK_REASON),
	[EDM_A_FLINK_PEER_MAC] = NLA_POLICY_ETH_ADDR,
	[EDM_A_FLINK_BROADCAST] = { .type = NLA_FLAG },
};

/* FLINK_GET and FLINK_DEL select a link end by node and port. */
static const struct nla_policy edm_flink_sel_policy[EDM_A_FLINK_MAX + 1] = {
	[EDM_A_FLINK_NODE] = EDM_NL_NAME_POLICY,
	[EDM_A_FLINK_PORT] = EDM_FLINK_PORT_POLICY,
	EDM_REPLY_ONLY(EDM_A_FLINK_PEER),
	EDM_REPLY_ONLY(EDM_A_FLINK_PEER_PORT),
	EDM_REPLY_ONLY(EDM_A_FLINK_IFINDEX),
	EDM_REPLY_ONLY(EDM_A_FLINK_RATE_MBPS),
	EDM_REPLY_ONLY(EDM_A_FLINK_DELAY_NS),
	EDM_REPLY_ONLY(EDM_A_FLINK_MUX),
	EDM_REPLY_ONLY(EDM_A_FLINK_STATE),
	EDM_REPLY_ONLY(EDM_A_FLINK_SHERR_THRESHOLD),
	EDM_REPLY_ONLY(EDM_A_FLINK_CORRUPT),
	EDM_REPLY_ONLY(EDM_A_FLINK_STATS),
	EDM_REPLY_ONLY(EDM_A_FLINK_REASON),
	EDM_REPLY_ONLY(EDM_A_FLINK_PEER_MAC),
	EDM_REPLY_ONLY(EDM_A_FLINK_BROADCAST),
};

static const struct nla_policy edm_flink_set_policy[EDM_A_FLINK_MAX + 1] = {
	[EDM_A_FLINK_NODE] = EDM_NL_NAME_POLICY,
	[EDM_A_FLINK_PORT] = EDM_FLINK_PORT_POLICY,
	EDM_FLINK_ENDS(EDM_A_FLINK_PEER),
	EDM_FLINK_ENDS(EDM_A_FLINK_PEER_PORT),
	EDM_FLINK_ENDS(EDM_A_FLINK_IFINDEX),
	[EDM_A_FLINK_RATE_MBPS] = NLA_POLICY_FULL_RANGE(NLA_U32, &edm_flink_rate_range),
	[EDM_A_FLINK_DELAY_NS] = NLA_POLICY_FULL_RANGE(NLA_U32, &edm_flink_delay_range),
	[EDM_A_FLINK_MUX] = NLA_POLICY_MAX(NLA_U32, EDM_FAB_MUX_MAX),
	EDM_REPLY_ONLY(EDM_A_FLINK_STATE),
	[EDM_A_FLINK_SHERR_THRESHOLD] = { .type = NLA_U32 },
	[EDM_A_FLINK_CORRUPT] = { .type = NLA_U32 },
	EDM_REPLY_ONLY(EDM_A_FLINK_STATS),
	EDM_REPLY_ONLY(EDM_A_FLINK_REASON),
	EDM_FLINK_ENDS(EDM_A_FLINK_PEER_MAC),
	EDM_FLINK_ENDS(EDM_A_FLINK_BROADCAST),
};

/* A fabric node by name, under the registry lock; NULL if there is none. */
static struct edm_dev *edm_fab_find_name(struct edm_net *en, const char *name)
{
	struct edm_dev *dev;
	unsigned long id;

	lockdep_assert_held(&en->lock);
	xa_for_each(&en->devs, id, dev)
		if (!strcmp(dev->name, name))
			return edm_fab_is_node(dev) ? dev : NULL;
	return NULL;
}

/* The node a link request names (NODE, or PEER), with a message if none. */
static struct edm_fab_node *edm_flink_node(struct edm_net *en, struct genl_info *info, int attr)
{
	struct nlattr *name = info->attrs[attr];
	struct edm_dev *dev = edm_fab_find_name(en, nla_data(name));

	if (!dev) {
		NL_SET_ERR_MSG_ATTR(info->extack, name, "no such fabric node");
		return ERR_PTR(-ENODEV);
	}
	return edm_fab_node_of(dev);
}

/* The port that @port_attr gives (0 if absent), checked against node @n. */
static int edm_flink_port(struct edm_fab_node *n, struct genl_info *info, int port_attr,
			  u32 *port)
{
	struct nlattr *a = info->attrs[port_attr];

	*port = a ? nla_get_u32(a) : 0;
	if (*port < edm_fab_node_nports(n))
		return 0;
	if (edm_fab_node_is_host(n))
		NL_SET_ERR_MSG_ATTR(info->extack, a, "a host has one port, port 0");
	else
		NL_SET_ERR_MSG_ATTR(info->extack, a, "no such port on this switch");
	return -ERANGE;
}

/*
 * The linked end NODE:PORT of a request: node, port and what it says of
 * itself. -ENODEV with a message when the port is not linked.
 */
static int edm_flink_find(struct edm_net *en, struct genl_info *info, struct edm_fab_node **n,
			  u32 *port, struct edm_fab_link_info *li)
{
	int err;

	err = edm_nl_require(info, EDM_A_FLINK_NODE, "missing link end: the node's name");
	if (err)
		return err;
	*n = edm_flink_node(en, info, EDM_A_FLINK_NODE);
	if (IS_ERR(*n))
		return PTR_ERR(*n);
	err = edm_flink_port(*n, info, EDM_A_FLINK_PORT, port);
	if (err)
		return err;
	if (edm_fab_link_info(*n, *port, li) || !li->linked) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[EDM_A_FLINK_PORT] ?:
				    info->attrs[EDM_A_FLINK_NODE], "port not linked");
		return -ENODEV;
	}
	return 0;
}

static int edm_flink_put_stats(struct sk_buff *msg, const struct edm_fab_link_stats *s)
{
	static const u8 attrs[] = {
		EDM_A_LSTAT_TX_BLOCKS, EDM_A_LSTAT_RX_BLOCKS, EDM_A_LSTAT_TX_MEM_BLOCKS,
		EDM_A_LSTAT_TX_FRAME_BLOCKS, EDM_A_LSTAT_TX_BURSTS, EDM_A_LSTAT_RX_BURSTS,
		EDM_A_LSTAT_PREEMPTIONS, EDM_A_LSTAT_MEM_WAIT_MAX, EDM_A_LSTAT_SHERR,
		EDM_A_LSTAT_RX_BAD, EDM_A_LSTAT_SEQ_GAPS, EDM_A_LSTAT_TX_DROPS,
		EDM_A_LSTAT_DOWN_EVENTS, EDM_A_LSTAT_RX_FOREIGN, EDM_A_LSTAT_TX_RESENT,
		EDM_A_LSTAT_TX_RTO, EDM_A_LSTAT_TX_ACKS, EDM_A_LSTAT_TX_NACKS, EDM_A_LSTAT_RX_DUPS,
		EDM_A_LSTAT_SRTT_NS, EDM_A_LSTAT_TX_SPILLED,
	};
	const u64 v[] = {
		s->tx_blocks, s->rx_blocks, s->tx_mem_blocks, s->tx_frame_blocks, s->tx_bursts,
		s->rx_bursts, s->preemptions, s->mem_wait_max, s->sherr, s->rx_bad,
		s->seq_gaps, s->tx_drops, s->down_events, s->rx_foreign, s->tx_resent, s->tx_rto,
		s->tx_acks, s->tx_nacks, s->rx_dups, s->srtt_ns, s->tx_spilled,
	};
	struct nlattr *nest = nla_nest_start(msg, EDM_A_FLINK_STATS);
	int i;

	BUILD_BUG_ON(ARRAY_SIZE(attrs) != EDM_A_LSTAT_MAX - EDM_A_LSTAT_PAD);
	BUILD_BUG_ON(ARRAY_SIZE(v) != ARRAY_SIZE(attrs));
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < ARRAY_SIZE(attrs); i++)
		if (nla_put_u64_64bit(msg, attrs[i], v[i], EDM_A_LSTAT_PAD))
			return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

static int edm_flink_fill(struct sk_buff *msg, const struct edm_fab_node *n, u32 port,
			  const struct edm_fab_link_info *li)
{
	const struct edm_fab_link_cfg *c = &li->cfg;

	if (nla_put_string(msg, EDM_A_FLINK_NODE, edm_fab_node_name(n)) ||
	    nla_put_u32(msg, EDM_A_FLINK_PORT, port) ||
	    (li->peer[0] && (nla_put_string(msg, EDM_A_FLINK_PEER, li->peer) ||
			     nla_put_u32(msg, EDM_A_FLINK_PEER_PORT, li->peer_port))) ||
	    (li->ifindex && nla_put_u32(msg, EDM_A_FLINK_IFINDEX, li->ifindex)) ||
	    (li->ifindex && !li->broadcast &&
	     nla_put(msg, EDM_A_FLINK_PEER_MAC, ETH_ALEN, li->peer_mac)) ||
	    (li->broadcast && nla_put_flag(msg, EDM_A_FLINK_BROADCAST)) ||
	    nla_put_u32(msg, EDM_A_FLINK_RATE_MBPS, c->rate_mbps) ||
	    nla_put_u32(msg, EDM_A_FLINK_DELAY_NS, c->delay_ns) ||
	    nla_put_u32(msg, EDM_A_FLINK_MUX, c->mux) ||
	    nla_put_u32(msg, EDM_A_FLINK_SHERR_THRESHOLD, c->sherr_threshold) ||
	    nla_put_u32(msg, EDM_A_FLINK_STATE, li->state) ||
	    edm_flink_put_stats(msg, &li->stats))
		return -EMSGSIZE;
	return 0;
}

/* A reply (with @info) or event (without) about the link end @n:@port. */
static struct sk_buff *edm_flink_msg(const struct edm_fab_node *n, u32 port,
				     const struct edm_fab_link_info *li, struct genl_info *info,
				     u8 cmd)
{
	struct sk_buff *msg;
	void *hdr;

	msg = edm_nl_msg_new(info, cmd, NLMSG_GOODSIZE, &hdr);
	return msg ? edm_nl_msg_end(msg, hdr, edm_flink_fill(msg, n, port, li)) : NULL;
}

static void edm_flink_notify(struct net *net, struct edm_fab_node *n, u32 port, u8 cmd)
{
	struct edm_fab_link_info li;
	struct sk_buff *msg;

	if (edm_fab_link_info(n, port, &li) || !li.linked)
		return;
	msg = edm_flink_msg(n, port, &li, NULL, cmd);
	if (msg)
		edm_nl_notify(net, msg);
}

/* The other end of an emulated link, or NULL (a bound link, or none). */
static struct edm_fab_node *edm_flink_peer(struct edm_net *en, const struct edm_fab_link_info *li)
{
	struct edm_dev *dev;

	if (!li->linked || !li->peer[0])
		return NULL;
	dev = edm_fab_find_name(en, li->peer);
	return dev ? edm_fab_node_of(dev) : NULL;
}

/* An event for each end of the link at @n:@port: that end, then its peer. */
static void edm_flink_notify_ends(struct edm_net *en, struct edm_fab_node *n, u32 port, u8 cmd)
{
	struct edm_fab_link_info li;
	struct edm_fab_node *peer;

	if (edm_fab_link_info(n, port, &li) || !li.linked)
		return;
	edm_flink_notify(en->net, n, port, cmd);
	peer = edm_flink_peer(en, &li);
	if (peer)
		edm_flink_notify(en->net, peer, li.peer_port, cmd);
}

/* Every linked end of @dev's node and their peers: it is going away. */
void edm_flink_notify_node(struct edm_dev *dev, u8 cmd)
{
	struct edm_fab_node *n = edm_fab_node_of(dev);
	u32 port;

	for (port = 0; port < edm_fab_node_nports(n); port++)
		edm_flink_notify_ends(edm_net(dev->net), n, port, cmd);
}

/* NEW and SET: the optional link parameters over @cfg. */
static void edm_flink_get_cfg(struct genl_info *info, struct edm_fab_link_cfg *cfg)
{
	struct nlattr **a = info->attrs;

	if (a[EDM_A_FLINK_RATE_MBPS])
		cfg->rate_mbps = nla_get_u32(a[EDM_A_FLINK_RATE_MBPS]);
	if (a[EDM_A_FLINK_DELAY_NS])
		cfg->delay_ns = nla_get_u32(a[EDM_A_FLINK_DELAY_NS]);
	if (a[EDM_A_FLINK_MUX])
		cfg->mux = nla_get_u32(a[EDM_A_FLINK_MUX]);
	if (a[EDM_A_FLINK_SHERR_THRESHOLD])
		cfg->sherr_threshold = nla_get_u32(a[EDM_A_FLINK_SHERR_THRESHOLD]);
}

/*
 * A bound link says whom it talks to: the peer's unicast address, or the
 * broadcast opt-in for a point-to-point wire; an emulated link neither.
 */
static int edm_flink_chk_peer_mac(struct genl_info *info)
{
	struct nlattr *mac = info->attrs[EDM_A_FLINK_PEER_MAC];
	struct nlattr *bcast = info->attrs[EDM_A_FLINK_BROADCAST];

	if (!info->attrs[EDM_A_FLINK_IFINDEX]) {
		if (mac || bcast) {
			NL_SET_ERR_MSG_ATTR(info->extack, mac ?: bcast,
					    "an emulated link has no MAC address to filter on");
			return -EINVAL;
		}
		return 0;
	}
	if (mac && bcast) {
		NL_SET_ERR_MSG_ATTR(info->extack, bcast,
				    "a bound link sends to its peer's address or broadcasts, not both");
		return -EINVAL;
	}
	if (!mac && !bcast) {
		NL_SET_ERR_MSG(info->extack,
			       "a bound link needs its peer's MAC address, or broadcast for a point-to-point wire");
		NL_SET_ERR_ATTR_MISS(info->extack, NULL, EDM_A_FLINK_PEER_MAC);
		return -EINVAL;
	}
	if (mac && !is_valid_ether_addr(nla_data(mac))) {
		NL_SET_ERR_MSG_ATTR(info->extack, mac,
				    "the peer's MAC address must be a unicast address");
		return -EINVAL;
	}
	return 0;
}

/* A new link has one other end: a peer node, or a netdev, never both. */
static int edm_flink_chk_new(struct genl_info *info)
{
	struct nlattr **a = info->attrs;
	int err;

	err = edm_nl_require(info, EDM_A_FLINK_NODE, "missing link end: the node's name");
	if (err)
		return err;
	if (a[EDM_A_FLINK_PEER] && a[EDM_A_FLINK_IFINDEX]) {
		NL_SET_ERR_MSG_ATTR(info->extack, a[EDM_A_FLINK_IFINDEX],
				    "a link goes to a peer node or to a netdev, not both");
		return -EINVAL;
	}
	if (!a[EDM_A_FLINK_PEER] && !a[EDM_A_FLINK_IFINDEX]) {
		NL_SET_ERR_MSG(info->extack, "missing other end: a peer or a netdev");
		NL_SET_ERR_ATTR_MISS(info->extack, NULL, EDM_A_FLINK_PEER);
		return -EINVAL;
	}
	if (a[EDM_A_FLINK_PEER_PORT] && !a[EDM_A_FLINK_PEER]) {
		NL_SET_ERR_MSG_ATTR(info->extack, a[EDM_A_FLINK_PEER_PORT],
				    "a peer port needs a peer node");
		return -EINVAL;
	}
	if (a[EDM_A_FLINK_PEER] &&
	    !strcmp(nla_data(a[EDM_A_FLINK_PEER]), nla_data(a[EDM_A_FLINK_NODE]))) {
		NL_SET_ERR_MSG_ATTR(info->extack, a[EDM_A_FLINK_PEER],
				    "a node cannot be linked to itself");
		return -EINVAL;
	}
	return edm_flink_chk_peer_mac(info);
}

/* The netdev IFINDEX names, held for the call; NULL for an emulated link. */
static int edm_flink_get_netdev(struct genl_info *info, struct net_device **ndev)
{
	struct nlattr *attr = info->attrs[EDM_A_FLINK_IFINDEX];

	*ndev = NULL;
	if (!attr)
		return 0;
	*ndev = dev_get_by_index(genl_info_net(info), nla_get_u32(attr));
	if (!*ndev) {
		NL_SET_ERR_MSG_ATTR(info->extack, attr, "no such netdev in this netns");
		return -ENODEV;
	}
	return 0;
}

/* Under the registry lock: make the link at @n:@port (to a peer or @ndev). */
static int edm_flink_make(struct edm_net *en, struct genl_info *info, struct edm_fab_node *n,
			  u32 port, struct net_device *ndev)
{
	struct edm_fab_link_cfg cfg;
	struct edm_fab_node *peer;
	u32 peer_port;
	int err;

	lockdep_assert_held(&en->lock);
	edm_fab_link_cfg_default(&cfg);
	edm_flink_get_cfg(info, &cfg);
	if (ndev) {
		struct nlattr *mac = info->attrs[EDM_A_FLINK_PEER_MAC];

		return edm_fab_link_bind(n, port, ndev, mac ? nla_data(mac) : NULL, &cfg,
					 info->extack);
	}
	peer = edm_flink_node(en, info, EDM_A_FLINK_PEER);
	if (IS_ERR(peer))
		return PTR_ERR(peer);
	err = edm_flink_port(peer, info, EDM_A_FLINK_PEER_PORT, &peer_port);
	if (err)
		return err;
	return edm_fab_link_emu(n, port, peer, peer_port, &cfg, info->extack);
}

static int edm_nl_flink_new_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct edm_net *en = edm_nl_en(info);
	struct edm_fab_link_info li;
	struct net_device *ndev;
	struct sk_buff *reply;
	struct edm_fab_node *n;
	u32 port;
	int err;

	err = edm_flink_chk_new(info) ?: edm_flink_get_netdev(info, &ndev);
	if (err)
		return err;
	n = edm_flink_node(en, info, EDM_A_FLINK_NODE);
	err = PTR_ERR_OR_ZERO(n) ?:
	      edm_flink_port(n, info, EDM_A_FLINK_PORT, &port) ?:
	      edm_flink_make(en, info, n, port, ndev);
	if (err)
		goto out;
	err = edm_fab_link_info(n, port, &li);
	reply = err ? NULL : edm_flink_msg(n, port, &li, info, EDM_CMD_FLINK_NEW);
	if (!reply) {
		edm_fab_link_del(n, port, NULL);
		err = -ENOMEM;
		goto out;
	}
	en->gen++;	/* link dumps see the change */
	edm_flink_notify_ends(en, n, port, EDM_CMD_FLINK_NEW);
	dev_put(ndev);
	return genlmsg_reply(reply, info);

out:
	dev_put(ndev);
	return err;
}

static int edm_nl_flink_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct edm_net *en = edm_nl_en(info);
	struct sk_buff *event, *peer_event = NULL;
	struct edm_fab_link_info li;
	struct edm_fab_node *n, *peer;
	u32 port;
	int err;

	err = edm_flink_find(en, info, &n, &port, &li);
	if (err)
		return err;
	/* Both ends' events, made while there is something to describe. */
	event = edm_flink_msg(n, port, &li, NULL, EDM_CMD_FLINK_DEL);
	peer = edm_flink_peer(en, &li);
	if (peer) {
		struct edm_fab_link_info pli;

		if (!edm_fab_link_info(peer, li.peer_port, &pli) && pli.linked)
			peer_event = edm_flink_msg(peer, li.peer_port, &pli, NULL,
						   EDM_CMD_FLINK_DEL);
	}
	err = edm_fab_link_del(n, port, info->extack);
	if (err) {
		nlmsg_free(event);
		nlmsg_free(peer_event);
		return err;
	}
	en->gen++;
	if (event)
		edm_nl_notify(genl_info_net(info), event);
	if (peer_event)
		edm_nl_notify(genl_info_net(info), peer_event);
	return 0;
}

/* What a SET can change at one link end. */
struct edm_flink_was {
	struct edm_fab_link_cfg cfg;
	u32 state;
};

static void edm_flink_was(struct edm_flink_was *was, const struct edm_fab_link_info *li)
{
	was->cfg = li->cfg;
	was->state = li->state;
}

/* The other end of @li, if it is an emulated link, and what it was. */
static bool edm_flink_peer_was(struct edm_net *en, const struct edm_fab_link_info *li,
			       struct edm_fab_node **peer, struct edm_flink_was *was)
{
	struct edm_fab_link_info pli;

	*peer = edm_flink_peer(en, li);
	if (!*peer || edm_fab_link_info(*peer, li->peer_port, &pli) || !pli.linked)
		return false;
	edm_flink_was(was, &pli);
	return true;
}

/* A SET event for @n:@port if it is no longer what it @was, or if @force. */
static void edm_flink_notify_changed(struct net *net, struct edm_fab_node *n, u32 port,
				     const struct edm_flink_was *was, bool force)
{
	struct edm_fab_link_info li;
	struct sk_buff *msg;

	if (edm_fab_link_info(n, port, &li) || !li.linked)
		return;
	if (!force && li.state == was->state && !memcmp(&li.cfg, &was->cfg, sizeof(li.cfg)))
		return;
	msg = edm_flink_msg(n, port, &li, NULL, EDM_CMD_FLINK_SET);
	if (msg)
		edm_nl_notify(net, msg);
}

/*
 * Events go to the ends that changed (their parameters, or a disabled end
 * that a set brought back up), and to this end when it was told to corrupt
 * blocks: a set that changed nothing is no event.
 */
static int edm_nl_flink_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct edm_net *en = edm_nl_en(info);
	struct nlattr *corrupt = info->attrs[EDM_A_FLINK_CORRUPT];
	struct edm_flink_was was, peer_was;
	struct edm_fab_node *n, *peer;
	struct edm_fab_link_info li;
	struct edm_fab_link_cfg cfg;
	u32 port, ncorrupt = 0;
	bool has_peer;
	int err;

	if (corrupt)
		ncorrupt = nla_get_u32(corrupt);
	err = edm_flink_find(en, info, &n, &port, &li);
	if (err)
		return err;
	edm_flink_was(&was, &li);
	has_peer = edm_flink_peer_was(en, &li, &peer, &peer_was);
	cfg = li.cfg;
	edm_flink_get_cfg(info, &cfg);
	err = edm_fab_link_set(n, port, &cfg, ncorrupt, info->extack);
	if (err)
		return err;
	edm_flink_notify_changed(en->net, n, port, &was, ncorrupt);
	if (has_peer)
		edm_flink_notify_changed(en->net, peer, li.peer_port, &peer_was, false);
	return 0;
}

static int edm_nl_flink_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct edm_fab_link_info li;
	struct edm_fab_node *n;
	struct sk_buff *msg;
	u32 port;
	int err;

	err = edm_flink_find(edm_nl_en(info), info, &n, &port, &li);
	if (err)
		return err;
	msg = edm_flink_msg(n, port, &li, info, EDM_CMD_FLINK_GET);
	if (!msg)
		return -ENOMEM;
	return genlmsg_reply(msg, info);
}

static int edm_flink_dump_one(struct sk_buff *skb, struct netlink_callback *cb,
			      const struct edm_fab_node *n, u32 port,
			      const struct edm_fab_link_info *li)
{
	void *hdr = edm_nl_dump_hdr(skb, cb, EDM_CMD_FLINK_GET);

	return hdr ? edm_nl_dump_end(skb, hdr, edm_flink_fill(skb, n, port, li)) : -EMSGSIZE;
}

/* The linked ports of one node from port cb->args[1] on, the filter's if any. */
static int edm_flink_dump_node(struct sk_buff *skb, struct netlink_callback *cb,
			       struct edm_fab_node *n, struct nlattr **attrs)
{
	struct nlattr *only = attrs[EDM_A_FLINK_PORT];
	struct edm_fab_link_info li;
	u32 port;
	int err;

	for (port = cb->args[1]; port < edm_fab_node_nports(n); port++) {
		if (only && nla_get_u32(only) != port)
			continue;
		if (edm_fab_link_info(n, port, &li) || !li.linked)
			continue;
		err = edm_flink_dump_one(skb, cb, n, port, &li);
		if (err) {
			cb->args[1] = port;
			return err;
		}
	}
	cb->args[1] = 0;
	return 0;
}

/* The links of @dev, if it is a fabric node the request selects (NODE, if given). */
static int edm_flink_dump_dev(struct sk_buff *skb, struct netlink_callback *cb,
			      struct edm_dev *dev)
{
	struct nlattr **attrs = edm_genl_dump_attrs(cb);
	struct nlattr *node = attrs[EDM_A_FLINK_NODE];

	if (!edm_fab_is_node(dev) || (node && strcmp(nla_data(node), dev->name)))
		return 0;
	return edm_flink_dump_node(skb, cb, edm_fab_node_of(dev), attrs);
}

/*
 * Every linked port of every fabric node (of NODE only, and only PORT, if
 * given). The registry generation, which link changes bump too, flags
 * interrupted dumps.
 */
static int edm_nl_flink_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	return edm_nl_dump_devs(skb, cb, edm_flink_dump_dev);
}

void edm_fab_nl_link_down(struct net *net, const char *node, u32 port, const char *why)
{
	struct sk_buff *msg;
	void *hdr;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return;
	hdr = genlmsg_put(msg, 0, 0, &edm_genl_family, 0, EDM_CMD_FLINK_DOWN);
	if (!hdr || nla_put_string(msg, EDM_A_FLINK_NODE, node) ||
	    nla_put_u32(msg, EDM_A_FLINK_PORT, port) ||
	    nla_put_u32(msg, EDM_A_FLINK_STATE, EDM_FLINK_DOWN) ||
	    nla_put_string(msg, EDM_A_FLINK_REASON, why)) {
		nlmsg_free(msg);
		return;
	}
	genlmsg_end(msg, hdr);
	edm_nl_notify(net, msg);
}

static const struct genl_ops edm_flink_genl_ops[] = {
	{
		.cmd = EDM_CMD_FLINK_GET,
		.doit = edm_nl_flink_get_doit,
		.dumpit = edm_nl_flink_get_dumpit,
		.policy = edm_flink_sel_policy,
		.maxattr = EDM_A_FLINK_MAX,
		.internal_flags = EDM_NL_LOCK,
	},
	{
		.cmd = EDM_CMD_FLINK_NEW,
		.doit = edm_nl_flink_new_doit,
		.policy = edm_flink_new_policy,
		.maxattr = EDM_A_FLINK_MAX,
		.flags = GENL_ADMIN_PERM,
		.internal_flags = EDM_NL_LOCK,
	},
	{
		.cmd = EDM_CMD_FLINK_DEL,
		.doit = edm_nl_flink_del_doit,
		.policy = edm_flink_sel_policy,
		.maxattr = EDM_A_FLINK_MAX,
		.flags = GENL_ADMIN_PERM,
		.internal_flags = EDM_NL_LOCK,
	},
	{
		.cmd = EDM_CMD_FLINK_SET,
		.doit = edm_nl_flink_set_doit,
		.policy = edm_flink_set_policy,
		.maxattr = EDM_A_FLINK_MAX,
		.flags = GENL_ADMIN_PERM,
		.internal_flags = EDM_NL_LOCK,
	},
	/* EDM_CMD_FLINK_DOWN is an event only: no request takes it. */
};

const struct edm_nl_ops edm_flink_nl_ops = {
	.ops = edm_flink_genl_ops,
	.n_ops = ARRAY_SIZE(edm_flink_genl_ops),
};
