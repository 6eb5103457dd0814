// SPDX-License-Identifier: GPL-2.0
/*
 * Netlink commands on shared pools: SHPOOL_JOIN (format the memory if
 * blank, take a host slot, make the netdev), SHPOOL_GET (do and dump, with
 * every host slot in use and this kernel's counters) and SHPOOL_LEAVE;
 * and the events SHPOOL_REAP and SHPOOL_EXPORT_DOWN, sent from the works.
 * Each runs under its netns's registry lock (EDM_NL_LOCK); a reply reads
 * the membership under edm_shmem_lock, since the PCI device may go away
 * under it, and the pool's host table with plain loads (other kernels
 * change it as we read).
 */
#include <linux/etherdevice.h>
#include <net/sock.h>

#include "edm/dev.h"
#include "edm/netlink.h"
#include "shpool.h"

#define EDM_SHPOOL_REJECT(attr, msg) \
	[attr] = { .type = NLA_REJECT, .reject_message = msg }

static struct netlink_range_validation edm_shpool_lease_range = {
	.min = EDM_SHP_MIN_LEASE_MS,
	.max = EDM_SHP_MAX_LEASE_MS,
};

const struct nla_policy edm_shpool_join_policy[EDM_A_SHPOOL_MAX + 1] = {
	EDM_SHPOOL_REJECT(EDM_A_SHPOOL_ID, "device IDs are assigned by the kernel"),
	[EDM_A_SHPOOL_NAME] = EDM_NL_NAME_POLICY,
	[EDM_A_SHPOOL_DEVICE] = { .type = NLA_NUL_STRING, .len = EDM_SHPOOL_DEV_LEN - 1 },
	[EDM_A_SHPOOL_IFNAME] = { .type = NLA_NUL_STRING, .len = IFNAMSIZ - 1 },
	[EDM_A_SHPOOL_HOSTNAME] = { .type = NLA_NUL_STRING, .len = EDM_SHP_NAME_LEN - 1 },
	[EDM_A_SHPOOL_NHOSTS] = NLA_POLICY_RANGE(NLA_U32, 2, EDM_SHP_MAX_HOSTS),
	[EDM_A_SHPOOL_BUF_SHIFT] = NLA_POLICY_RANGE(NLA_U32, EDM_SHP_MIN_BUF_SHIFT,
						    EDM_SHP_MAX_BUF_SHIFT),
	[EDM_A_SHPOOL_RING] = NLA_POLICY_RANGE(NLA_U32, EDM_SHP_MIN_RING, EDM_SHP_MAX_RING),
	[EDM_A_SHPOOL_LEASE_MS] = NLA_POLICY_FULL_RANGE(NLA_U32, &edm_shpool_lease_range),
	EDM_REPLY_ONLY(EDM_A_SHPOOL_SIZE),
	EDM_REPLY_ONLY(EDM_A_SHPOOL_BUFS),
	EDM_REPLY_ONLY(EDM_A_SHPOOL_SLOT),
	EDM_REPLY_ONLY(EDM_A_SHPOOL_EPOCH),
	EDM_REPLY_ONLY(EDM_A_SHPOOL_FORMATTED),
	EDM_REPLY_ONLY(EDM_A_SHPOOL_HOST),
	EDM_REPLY_ONLY(EDM_A_SHPOOL_STATS),
	EDM_REPLY_ONLY(EDM_A_SHPOOL_EXPORT),
};

/* SHPOOL_GET and SHPOOL_LEAVE select a membership by ID or by name. */
static const struct nla_policy edm_shpool_sel_policy[EDM_A_SHPOOL_MAX + 1] = {
	[EDM_A_SHPOOL_ID] = NLA_POLICY_MIN(NLA_U32, 1),
	[EDM_A_SHPOOL_NAME] = EDM_NL_NAME_POLICY,
	EDM_REPLY_ONLY(EDM_A_SHPOOL_DEVICE),
	EDM_REPLY_ONLY(EDM_A_SHPOOL_IFNAME),
	EDM_REPLY_ONLY(EDM_A_SHPOOL_HOSTNAME),
	EDM_REPLY_ONLY(EDM_A_SHPOOL_NHOSTS),
	EDM_REPLY_ONLY(EDM_A_SHPOOL_BUF_SHIFT),
	EDM_REPLY_ONLY(EDM_A_SHPOOL_RING),
	EDM_REPLY_ONLY(EDM_A_SHPOOL_LEASE_MS),
	EDM_REPLY_ONLY(EDM_A_SHPOOL_SIZE),
	EDM_REPLY_ONLY(EDM_A_SHPOOL_BUFS),
	EDM_REPLY_ONLY(EDM_A_SHPOOL_SLOT),
	EDM_REPLY_ONLY(EDM_A_SHPOOL_EPOCH),
	EDM_REPLY_ONLY(EDM_A_SHPOOL_FORMATTED),
	EDM_REPLY_ONLY(EDM_A_SHPOOL_HOST),
	EDM_REPLY_ONLY(EDM_A_SHPOOL_STATS),
	EDM_REPLY_ONLY(EDM_A_SHPOOL_EXPORT),
};

static int edm_shpool_put_host(struct sk_buff *msg, struct edm_shpool *sp, u32 slot)
{
	const struct edm_shp_host *h = &sp->v.hosts[slot];
	u64 st = edm_shp_host_state(&sp->v, slot);
	char name[EDM_SHP_NAME_LEN];
	u8 mac[ETH_ALEN];
	struct nlattr *nest;

	/* a free slot only if a life of it was reaped: the survivors' record */
	if (EDM_SHP_HW_STATE(st) == EDM_SHP_H_FREE && !READ_ONCE(h->reaped))
		return 0;
	/* another kernel may be writing them: copy, and terminate the name ourselves */
	memcpy(name, h->name, sizeof(name));
	name[sizeof(name) - 1] = '\0';
	memcpy(mac, h->mac, sizeof(mac));
	nest = nla_nest_start(msg, EDM_A_SHPOOL_HOST);
	if (!nest ||
	    nla_put_u32(msg, EDM_A_SHHOST_SLOT, slot) ||
	    nla_put_u32(msg, EDM_A_SHHOST_STATE,
			min_t(u32, EDM_SHP_HW_STATE(st), EDM_SHPOOL_HOST_MAX)) ||
	    nla_put_u32(msg, EDM_A_SHHOST_EPOCH, EDM_SHP_HW_EPOCH(st)) ||
	    nla_put_string(msg, EDM_A_SHHOST_NAME, name) ||
	    nla_put(msg, EDM_A_SHHOST_MAC, ETH_ALEN, mac) ||
	    nla_put_u32(msg, EDM_A_SHHOST_HELD, edm_shp_held(&sp->v, slot)) ||
	    nla_put_u64_64bit(msg, EDM_A_SHHOST_REAPED, READ_ONCE(h->reaped), EDM_A_SHHOST_PAD) ||
	    (slot == sp->v.slot && nla_put_flag(msg, EDM_A_SHHOST_SELF)))
		return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

/* Export slot @i if in use; the words are other kernels' too: each read once. */
static int edm_shpool_put_export(struct sk_buff *msg, struct edm_shpool *sp, u32 i)
{
	const struct edm_shp_export *x = edm_shp_x(&sp->v, i);
	/* pairs with the release that published the slot's state: its fields are set */
	u64 w = smp_load_acquire(&x->word);
	u32 e = READ_ONCE(x->engine), ans = READ_ONCE(x->result);
	s32 err = READ_ONCE(x->error);
	struct nlattr *nest;

	if (EDM_SHP_XW_STATE(w) == EDM_SHP_X_FREE)
		return 0;
	nest = nla_nest_start(msg, EDM_A_SHPOOL_EXPORT);
	if (!nest ||
	    nla_put_u32(msg, EDM_A_SHEXP_INDEX, i) ||
	    nla_put_u32(msg, EDM_A_SHEXP_STATE,
			min_t(u32, EDM_SHP_XW_STATE(w), EDM_SHPOOL_EXPORT_MAX)) ||
	    nla_put_u32(msg, EDM_A_SHEXP_OWNER, EDM_SHP_TAG_SLOT(EDM_SHP_XW_OWNER(w))) ||
	    nla_put_u32(msg, EDM_A_SHEXP_TARGET, READ_ONCE(x->target)) ||
	    (e && e != EDM_SHP_X_BLOCKED &&
	     nla_put_u32(msg, EDM_A_SHEXP_ENGINE, EDM_SHP_TAG_SLOT(e))) ||
	    nla_put_u32(msg, EDM_A_SHEXP_ANSWER, min_t(u32, ans, EDM_SHPOOL_ANSWER_MAX)) ||
	    (ans == EDM_SHP_XR_REFUSED && err < 0 &&
	     nla_put_u32(msg, EDM_A_SHEXP_ERRNO, -err)) ||
	    nla_put_u32(msg, EDM_A_SHEXP_BUFS, READ_ONCE(x->nbufs)) ||
	    nla_put_u32(msg, EDM_A_SHEXP_INSTANCE, READ_ONCE(x->inst_id)) ||
	    nla_put_u32(msg, EDM_A_SHEXP_REGION, READ_ONCE(x->region_id)))
		return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

static int edm_shpool_put_stats(struct sk_buff *msg, struct edm_shpool *sp)
{
	struct nlattr *nest = nla_nest_start(msg, EDM_A_SHPOOL_STATS);
	struct edm_shpool_stats s;
	int i;

	if (!nest)
		return -EMSGSIZE;
	edm_shpool_stats(sp, &s);
	for (i = EDM_A_SHSTAT_PAD + 1; i < __EDM_A_SHSTAT_CNT; i++)
		if (nla_put_u64_64bit(msg, i, s.v[i], EDM_A_SHSTAT_PAD))
			return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

static int edm_shpool_fill_attached(struct sk_buff *msg, struct edm_shpool *sp)
{
	const struct edm_shp_super *g = &sp->v.geo;
	u32 i;

	if (nla_put_string(msg, EDM_A_SHPOOL_IFNAME, sp->netdev->name) ||
	    nla_put_u32(msg, EDM_A_SHPOOL_NHOSTS, g->nhosts) ||
	    nla_put_u32(msg, EDM_A_SHPOOL_BUF_SHIFT, g->buf_shift) ||
	    nla_put_u32(msg, EDM_A_SHPOOL_RING, g->ring_size) ||
	    nla_put_u32(msg, EDM_A_SHPOOL_LEASE_MS, g->lease_ms) ||
	    nla_put_u64_64bit(msg, EDM_A_SHPOOL_SIZE, g->size, EDM_A_SHPOOL_PAD) ||
	    nla_put_u32(msg, EDM_A_SHPOOL_BUFS, g->nbufs) ||
	    nla_put_u32(msg, EDM_A_SHPOOL_SLOT, sp->v.slot) ||
	    nla_put_u32(msg, EDM_A_SHPOOL_EPOCH, sp->v.epoch) ||
	    (sp->formatted && nla_put_flag(msg, EDM_A_SHPOOL_FORMATTED)))
		return -EMSGSIZE;
	for (i = 0; i < g->nhosts; i++)
		if (edm_shpool_put_host(msg, sp, i))
			return -EMSGSIZE;
	for (i = 0; i < g->nxports; i++)
		if (edm_shpool_put_export(msg, sp, i))
			return -EMSGSIZE;
	return 0;
}

/* The events' head: which membership. */
static int edm_shpool_put_ident(struct sk_buff *msg, struct edm_shpool *sp)
{
	if (nla_put_u32(msg, EDM_A_SHPOOL_ID, sp->edev->id) ||
	    nla_put_string(msg, EDM_A_SHPOOL_NAME, sp->edev->name))
		return -EMSGSIZE;
	return 0;
}

/*
 * SHPOOL_REAP: host slot @slot's life was reaped, by this kernel or (our
 * own slot) by another member. From the beat work, the membership attached.
 */
void edm_shpool_notify_reap(struct edm_shpool *sp, u32 slot)
{
	struct sk_buff *msg;
	void *hdr;

	msg = edm_nl_msg_new(NULL, EDM_CMD_SHPOOL_REAP, NLMSG_DEFAULT_SIZE, &hdr);
	if (!msg)
		return;
	msg = edm_nl_msg_end(msg, hdr, edm_shpool_put_ident(msg, sp) ?:
			     edm_shpool_put_host(msg, sp, slot));
	if (msg)
		edm_nl_notify(sp->edev->net, msg);
}

/*
 * SHPOOL_EXPORT_DOWN: this kernel's instance @inst_id (export slot @xi,
 * served for region @region by host slot @target) stopped, and @why. Our
 * own numbers: the shared slot may have been freed already.
 */
void edm_shpool_notify_xdown(struct edm_shpool *sp, u32 xi, u32 inst_id, u32 region, u32 target,
			     enum edm_shpool_export_down why)
{
	struct sk_buff *msg;
	struct nlattr *nest;
	void *hdr;
	int err;

	msg = edm_nl_msg_new(NULL, EDM_CMD_SHPOOL_EXPORT_DOWN, NLMSG_DEFAULT_SIZE, &hdr);
	if (!msg)
		return;
	err = edm_shpool_put_ident(msg, sp);
	nest = err ? NULL : nla_nest_start(msg, EDM_A_SHPOOL_EXPORT);
	if (!nest ||
	    nla_put_u32(msg, EDM_A_SHEXP_INDEX, xi) ||
	    nla_put_u32(msg, EDM_A_SHEXP_OWNER, sp->v.slot) ||
	    nla_put_u32(msg, EDM_A_SHEXP_TARGET, target) ||
	    nla_put_u32(msg, EDM_A_SHEXP_INSTANCE, inst_id) ||
	    nla_put_u32(msg, EDM_A_SHEXP_REGION, region) ||
	    nla_put_u32(msg, EDM_A_SHEXP_DOWN, why))
		err = -EMSGSIZE;
	else
		nla_nest_end(msg, nest);
	msg = edm_nl_msg_end(msg, hdr, err);
	if (msg)
		edm_nl_notify(sp->edev->net, msg);
}

static int edm_shpool_fill(struct sk_buff *msg, const struct edm_dev *dev)
{
	struct edm_shpool *sp = edm_shpool_of(dev);
	int err = -EMSGSIZE;

	mutex_lock(&edm_shmem_lock);
	if (nla_put_u32(msg, EDM_A_SHPOOL_ID, dev->id) ||
	    nla_put_string(msg, EDM_A_SHPOOL_NAME, dev->name) ||
	    nla_put_string(msg, EDM_A_SHPOOL_DEVICE, sp->device) ||
	    nla_put_string(msg, EDM_A_SHPOOL_HOSTNAME, sp->hostname) ||
	    (sp->mem && edm_shpool_fill_attached(msg, sp)) ||
	    edm_shpool_put_stats(msg, sp))
		goto out;
	err = 0;
out:
	mutex_unlock(&edm_shmem_lock);
	return err;
}

static bool edm_shpool_is(const struct edm_dev *dev)
{
	return dev->type == EDM_DEV_TYPE_SHPOOL;
}

const struct edm_nl_obj edm_shpool_nl_obj = {
	.id_attr = EDM_A_SHPOOL_ID,
	.name_attr = EDM_A_SHPOOL_NAME,
	.is = edm_shpool_is,
	.not_msg = "not a shared pool",
	.fill = edm_shpool_fill,
};

/*
 * A join's parameters from SHPOOL_JOIN's attributes (or `ip link add`'s,
 * dfabric/shpool_link.c): the device, the hostname and the format.
 */
int edm_shpool_cfg_parse(struct nlattr **a, struct edm_shpool_cfg *cfg,
			 struct netlink_ext_ack *extack)
{
	static const int fmt_attrs[] = {
		EDM_A_SHPOOL_NHOSTS, EDM_A_SHPOOL_BUF_SHIFT, EDM_A_SHPOOL_RING,
		EDM_A_SHPOOL_LEASE_MS,
	};
	int err, i;

	err = edm_nl_require_attr(a, extack, EDM_A_SHPOOL_DEVICE,
				  "missing device: the shared memory's PCI name or pmem path");
	if (err)
		return err;
	cfg->device = nla_data(a[EDM_A_SHPOOL_DEVICE]);
	if (a[EDM_A_SHPOOL_HOSTNAME])
		cfg->hostname = nla_data(a[EDM_A_SHPOOL_HOSTNAME]);
	edm_shp_cfg_default(&cfg->fmt);
	for (i = 0; i < ARRAY_SIZE(fmt_attrs); i++)
		if (a[fmt_attrs[i]])
			cfg->fmt_given |= BIT(fmt_attrs[i]);
	if (a[EDM_A_SHPOOL_NHOSTS])
		cfg->fmt.nhosts = nla_get_u32(a[EDM_A_SHPOOL_NHOSTS]);
	if (a[EDM_A_SHPOOL_BUF_SHIFT])
		cfg->fmt.buf_shift = nla_get_u32(a[EDM_A_SHPOOL_BUF_SHIFT]);
	if (a[EDM_A_SHPOOL_LEASE_MS])
		cfg->fmt.lease_ms = nla_get_u32(a[EDM_A_SHPOOL_LEASE_MS]);
	if (a[EDM_A_SHPOOL_RING]) {
		cfg->fmt.ring_size = nla_get_u32(a[EDM_A_SHPOOL_RING]);
		if (!is_power_of_2(cfg->fmt.ring_size)) {
			NL_SET_ERR_MSG_ATTR(extack, a[EDM_A_SHPOOL_RING],
					    "ring size must be a power of 2");
			return -EINVAL;
		}
	}
	return 0;
}

static int edm_shpool_chk_join(struct genl_info *info, struct edm_shpool_cfg *cfg)
{
	struct nlattr **a = info->attrs;
	int err;

	err = edm_nl_require(info, EDM_A_SHPOOL_NAME, "missing shared pool name") ?:
	      edm_nl_chk_name(info, EDM_A_SHPOOL_NAME);
	if (err)
		return err;
	if (a[EDM_A_SHPOOL_IFNAME]) {
		cfg->ifname = nla_data(a[EDM_A_SHPOOL_IFNAME]);
		if (!dev_valid_name(cfg->ifname)) {
			NL_SET_ERR_MSG_ATTR(info->extack, a[EDM_A_SHPOOL_IFNAME],
					    "not a valid netdev name");
			return -EINVAL;
		}
	}
	return edm_shpool_cfg_parse(a, cfg, info->extack);
}

static int edm_nl_shpool_join_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct edm_shpool_cfg cfg = {};
	struct edm_dev *dev;
	int err;

	err = edm_shpool_chk_join(info, &cfg);
	if (err)
		return err;
	dev = edm_dev_create(edm_nl_en(info), nla_data(info->attrs[EDM_A_SHPOOL_NAME]),
			     EDM_DEV_TYPE_SHPOOL, &cfg, info->extack);
	if (IS_ERR(dev))
		return PTR_ERR(dev);
	return edm_nl_created(info, dev);
}

static int edm_nl_shpool_leave_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct edm_dev *dev = edm_nl_dev(info);

	/* their mappings are pool memory, which would be given to others */
	if (edm_shpool_x_busy(edm_shpool_of(dev))) {
		NL_SET_ERR_MSG(info->extack,
			       "Cowbird instances of this kernel use the pool: close them first");
		return -EBUSY;
	}
	return edm_nl_deleted(info, dev);
}

static const struct genl_ops edm_shpool_genl_ops[] = {
	{
		.cmd = EDM_CMD_SHPOOL_GET,
		.doit = edm_nl_obj_get_doit,
		.dumpit = edm_nl_obj_dumpit,
		.policy = edm_shpool_sel_policy,
		.maxattr = EDM_A_SHPOOL_MAX,
		.internal_flags = EDM_NL_FIND(EDM_NL_OBJ_SHPOOL),
	},
	{
		.cmd = EDM_CMD_SHPOOL_JOIN,
		.doit = edm_nl_shpool_join_doit,
		.policy = edm_shpool_join_policy,
		.maxattr = EDM_A_SHPOOL_MAX,
		.flags = GENL_ADMIN_PERM,
		.internal_flags = EDM_NL_NEW(EDM_NL_OBJ_SHPOOL),
	},
	{
		.cmd = EDM_CMD_SHPOOL_LEAVE,
		.doit = edm_nl_shpool_leave_doit,
		.policy = edm_shpool_sel_policy,
		.maxattr = EDM_A_SHPOOL_MAX,
		.flags = GENL_ADMIN_PERM,
		.internal_flags = EDM_NL_FIND(EDM_NL_OBJ_SHPOOL),
	},
};

const struct edm_nl_ops edm_shpool_nl_ops = {
	.ops = edm_shpool_genl_ops,
	.n_ops = ARRAY_SIZE(edm_shpool_genl_ops),
};
