// SPDX-License-Identifier: GPL-2.0
/*
 * ndimm lower mode: the wire is a real netdev, so NetDIMMs on two machines
 * (or two namespaces joined by veth) can talk. Each packet travels in one
 * frame of ethertype EDM_NETDIMM_ETHERTYPE, IEEE's second local experimental
 * type, to the broadcast address: a small header (magic, length, the
 * virtio-style offload state) and the packet. A packet_type handler bound
 * to the lower device receives them into the ndimm's zone.
 *
 * Binding and unbinding run under RTNL; a netdev notifier unbinds when the
 * lower device goes away. The receive handler runs under RCU, which
 * dev_remove_pack() waits out.
 */
#include <linux/etherdevice.h>
#include <linux/if_ether.h>
#include <linux/rtnetlink.h>
#include <net/flow_dissector.h>

#include "edm/edm.h"
#include "netdimm.h"

#define EDM_NETDIMM_WIRE_MAGIC	0xed31

/* ndimms bound to a lower device; under RTNL. */
static LIST_HEAD(edm_netdimm_lowers);

struct edm_netdimm_wirehdr {
	__be16 magic;
	__be16 len;
	struct virtio_net_hdr vh;	/* little endian, as virtio 1.0 */
} __packed;

/* RSS: the flow hash of the packet's first @len bytes, which start at
 * byte @off of @skb (its Ethernet header). 0 if it has no flow to hash.
 */
static u32 edm_netdimm_lower_hash(struct edm_netdimm *nd, const struct sk_buff *skb, u32 off,
				  u32 len)
{
	u8 buf[EDM_NETDIMM_INLINE];
	struct flow_keys keys;
	u32 n = min_t(u32, len, sizeof(buf));

	if (skb_copy_bits(skb, off, buf, n))
		return 0;
	memset(&keys, 0, sizeof(keys));
	if (!__skb_flow_dissect(dev_net(nd->netdev), NULL, &flow_keys_dissector, &keys, buf,
				((struct ethhdr *)buf)->h_proto, ETH_HLEN, n, 0))
		return 0;
	return flow_hash_from_keys(&keys);
}

static int edm_netdimm_lower_rcv(struct sk_buff *skb, struct net_device *dev,
				 struct packet_type *pt, struct net_device *orig_dev)
{
	struct edm_netdimm *nd = container_of(pt, struct edm_netdimm, ptype);
	unsigned int nq = READ_ONCE(nd->nq), rxq = 0;
	struct edm_netdimm_wirehdr h;
	u32 len;

	if (skb_copy_bits(skb, 0, &h, sizeof(h)) || h.magic != htons(EDM_NETDIMM_WIRE_MAGIC))
		goto drop;
	len = ntohs(h.len);
	if (len < ETH_HLEN || len > skb->len - sizeof(h))
		goto drop;
	if (nq > 1)
		rxq = reciprocal_scale(edm_netdimm_lower_hash(nd, skb, sizeof(h), len), nq);
	edm_netdimm_stat_inc(nd->q[rxq].ctrs, EDM_A_NDSTAT_WIRE_COPIES);
	edm_netdimm_wire_deliver(nd, rxq, NULL, skb, sizeof(h), len, &h.vh, 0);
	consume_skb(skb);
	return NET_RX_SUCCESS;

drop:
	edm_netdimm_stat_inc(nd->q[0].ctrs, EDM_A_NDSTAT_RX_DROPS);
	kfree_skb(skb);
	return NET_RX_DROP;
}

/* The NIC's DMA onto the wire: the packet into one frame for the lower device. */
int edm_netdimm_lower_xmit(struct edm_netdimm *nd, struct edm_netdimm_desc *d)
{
	struct net_device *lower = READ_ONCE(nd->lower);
	struct edm_netdimm_wirehdr *h;
	struct sk_buff *skb;
	u16 i;

	if (!lower)
		return -ENOTCONN;
	if (d->len + sizeof(*h) > lower->mtu)
		return -EMSGSIZE;
	skb = alloc_skb(LL_RESERVED_SPACE(lower) + sizeof(*h) + d->len, GFP_ATOMIC);
	if (!skb)
		return -ENOMEM;
	skb_reserve(skb, LL_RESERVED_SPACE(lower));
	h = skb_put(skb, sizeof(*h));
	h->magic = htons(EDM_NETDIMM_WIRE_MAGIC);
	h->len = htons(d->len);
	h->vh = d->vh;
	skb_put_data(skb, d->hdr, d->inline_len);
	for (i = 0; i < d->nseg; i++)
		memcpy_from_page(skb_put(skb, d->seg[i].len), d->seg[i].page, d->seg[i].off,
				 d->seg[i].len);
	skb->dev = lower;
	skb->protocol = htons(EDM_NETDIMM_ETHERTYPE);
	if (dev_hard_header(skb, lower, EDM_NETDIMM_ETHERTYPE, lower->broadcast,
			    lower->dev_addr, skb->len) < 0) {
		kfree_skb(skb);
		return -EINVAL;
	}
	return dev_queue_xmit(skb) == NET_XMIT_SUCCESS ? 0 : -ENOBUFS;
}

int edm_netdimm_lower_attach(struct edm_netdimm *nd, struct net_device *lower)
{
	ASSERT_RTNL();
	if (lower->type != ARPHRD_ETHER || lower->mtu < ETH_MIN_MTU + ETH_HLEN +
	    sizeof(struct edm_netdimm_wirehdr))
		return -EINVAL;
	netdev_hold(lower, &nd->lower_tracker, GFP_KERNEL);
	nd->ptype.type = htons(EDM_NETDIMM_ETHERTYPE);
	nd->ptype.dev = lower;
	nd->ptype.func = edm_netdimm_lower_rcv;
	dev_add_pack(&nd->ptype);
	nd->netdev->max_mtu = min_t(unsigned int, EDM_NETDIMM_MTU_MAX,
				    lower->mtu - ETH_HLEN - sizeof(struct edm_netdimm_wirehdr));
	if (nd->netdev->mtu > nd->netdev->max_mtu)
		dev_set_mtu(nd->netdev, nd->netdev->max_mtu);
	WRITE_ONCE(nd->lower, lower);
	WRITE_ONCE(nd->lower_ifindex, lower->ifindex);
	list_add(&nd->lower_node, &edm_netdimm_lowers);
	return 0;
}

void edm_netdimm_lower_detach(struct edm_netdimm *nd)
{
	ASSERT_RTNL();
	if (!nd->lower)
		return;
	dev_remove_pack(&nd->ptype);	/* waits for receivers in flight */
	netif_carrier_off(nd->netdev);
	WRITE_ONCE(nd->lower, NULL);
	WRITE_ONCE(nd->lower_ifindex, 0);
	synchronize_net();		/* for xmits that read nd->lower */
	netdev_put(nd->ptype.dev, &nd->lower_tracker);
	list_del_init(&nd->lower_node);
}

static int edm_netdimm_netdev_event(struct notifier_block *nb, unsigned long event, void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct edm_netdimm *nd, *tmp;

	if (event != NETDEV_UNREGISTER)
		return NOTIFY_DONE;
	list_for_each_entry_safe(nd, tmp, &edm_netdimm_lowers, lower_node)
		if (nd->lower == dev) {
			netdev_info(nd->netdev, "lower device %s is going away\n", dev->name);
			edm_netdimm_lower_detach(nd);
		}
	return NOTIFY_DONE;
}

static struct notifier_block edm_netdimm_notifier = {
	.notifier_call = edm_netdimm_netdev_event,
};

int edm_netdimm_notifier_init(void)
{
	return register_netdevice_notifier(&edm_netdimm_notifier);
}

void edm_netdimm_notifier_exit(void)
{
	unregister_netdevice_notifier(&edm_netdimm_notifier);
}
