// SPDX-License-Identifier: GPL-2.0
/*
 * The NIC pool's receive side (dfabric/nicpool.h): each member's
 * rx_handler takes every frame the member receives, copies it once into a
 * Buffer of the NIC pool's node (what the NIC's DMA into a pre-posted
 * Buffer does, counted in COPIES) and passes the Buffer to the compute node
 * the frame is for, posting its descriptor on that node's RxQ.
 *
 * Which compute node: the one with the destination address (paper 4.4)
 * among the addresses of its netdev, in whatever netns it is: IPv4 from its
 * in_device, under RCU, and for ARP the target address; IPv6 from the
 * netns's address table (ipv6_chk_addr(), strict to the node's netdev, so
 * a tentative address is not yet one); any other unicast by destination
 * MAC. Broadcast and multicast frames (among them IPv6 neighbour
 * solicitations) go to every node that is up, a Buffer each. A unicast
 * frame gets the node's MAC as its destination, as the one big NIC of the
 * rack would deliver it.
 *
 * Spray frames (ethertype 0x88B5) lose their edm_nicpool_hdr and go through a
 * reorder context per (sending rack tag, sequence space): a window of
 * EDM_NICPOOL_WINDOW held descriptors, whose Buffers stay the NIC pool's until
 * they are delivered in sequence. A hole is waited for EDM_NICPOOL_RO_TIMEOUT_US
 * (an hrtimer in softirq flushes every context then), a packet beyond the
 * window flushes its context, a packet behind it is delivered at once
 * (late), one already held is dropped (dup).
 *
 * Locking: the rx_handler runs under RCU in softirq; ro_lock (BH) around
 * the reorder contexts, outside the RxQ lock of the node delivered to.
 */
#include <linux/etherdevice.h>
#include <linux/if_arp.h>
#include <linux/inetdevice.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/jhash.h>
#include <net/addrconf.h>

#include "nicpool.h"
#include "trace.h"

/* The compute node of @rack that has the IPv4 address @ip; RCU. */
static struct edm_rack_cn *edm_nicpool_cn_by_ip(struct edm_rack *rack, __be32 ip)
{
	const struct in_ifaddr *ifa;
	struct in_device *in_dev;
	struct edm_rack_cn *cn;
	int i;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "called without rcu_read_lock()");
	for (i = 0; i < EDM_POOL_NNODES; i++) {
		cn = rcu_dereference(rack->cn[i]);
		in_dev = cn ? __in_dev_get_rcu(cn->netdev) : NULL;
		if (!in_dev)
			continue;
		in_dev_for_each_ifa_rcu(ifa, in_dev)
			if (ifa->ifa_local == ip)
				return cn;
	}
	return NULL;
}

/* The compute node of @rack that has the IPv6 address @ip; RCU. */
static struct edm_rack_cn *edm_nicpool_cn_by_ip6(struct edm_rack *rack, const struct in6_addr *ip)
{
	struct edm_rack_cn *cn;
	int i;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "called without rcu_read_lock()");
	if (!IS_ENABLED(CONFIG_IPV6))
		return NULL;
	for (i = 0; i < EDM_POOL_NNODES; i++) {
		cn = rcu_dereference(rack->cn[i]);
		if (cn && ipv6_chk_addr(dev_net(cn->netdev), ip, cn->netdev, 1))
			return cn;
	}
	return NULL;
}

/* The compute node a unicast frame is for (data at its MAC header). */
static struct edm_rack_cn *edm_nicpool_dest(struct edm_rack *rack, const struct sk_buff *skb)
{
	const struct ethhdr *eth = (const struct ethhdr *)skb->data;
	const struct in6_addr *ip6;
	struct in6_addr _ip6;
	struct arphdr _arp;
	const struct arphdr *arp;
	__be32 _ip;
	const __be32 *ip;
	int off;

	switch (ntohs(eth->h_proto)) {
	case ETH_P_IP:
		off = ETH_HLEN + offsetof(struct iphdr, daddr);
		break;
	case ETH_P_ARP:
		arp = skb_header_pointer(skb, ETH_HLEN, sizeof(_arp), &_arp);
		if (!arp || arp->ar_hln != ETH_ALEN || arp->ar_pln != sizeof(__be32))
			return NULL;
		/* sender MAC and IP, target MAC, then the target IP */
		off = ETH_HLEN + sizeof(*arp) + 2 * ETH_ALEN + sizeof(__be32);
		break;
	case ETH_P_IPV6:
		ip6 = skb_header_pointer(skb, ETH_HLEN + offsetof(struct ipv6hdr, daddr),
					 sizeof(_ip6), &_ip6);
		return ip6 ? edm_nicpool_cn_by_ip6(rack, ip6) : NULL;
	default:
		return edm_rack_by_mac(rack, eth->h_dest, NULL);
	}
	ip = skb_header_pointer(skb, off, sizeof(_ip), &_ip);
	return ip ? edm_nicpool_cn_by_ip(rack, *ip) : NULL;
}

/* The NIC's DMA: @skb's frame into a new Buffer of the NIC pool's, for @cn. */
static int edm_nicpool_copy(struct edm_nicpool *np, const struct sk_buff *skb,
			    struct edm_rack_cn *cn, struct edm_rack_desc *d)
{
	u32 span = edm_shared_skb_span(skb->len);
	void *buf;

	memset(d, 0, sizeof(*d));
	/* has_data_valid: a checked (or GRO'd) frame stays checked */
	if (!span || virtio_net_hdr_from_skb(skb, &d->vh, true, true, 0)) {
		edm_nicpool_stat_add(np, EDM_A_NPSTAT_RX_DROPS, 1);
		return -EINVAL;
	}
	if (edm_alloc_shared_buffer(&np->pn, span, EDM_POOL_LOC_MEM, &d->ref, &buf)) {
		edm_nicpool_stat_add(np, EDM_A_NPSTAT_ENOMEM, 1);
		edm_nicpool_stat_add(np, EDM_A_NPSTAT_RX_DROPS, 1);
		return -ENOMEM;
	}
	edm_shared_skb_fill(&np->pn, d->ref, buf, skb);
	edm_nicpool_stat_add(np, EDM_A_NPSTAT_COPIES, 1);
	edm_nicpool_stat_add(np, EDM_A_NPSTAT_COPY_BYTES, skb->len);
	d->len = skb->len;
	d->src = np->pn.id;
	d->dst = cn->pn.id;
	return 0;
}

/* Pass a copied frame's Buffer to its compute node; RCU held. */
static void edm_nicpool_deliver(struct edm_nicpool *np, const struct edm_rack_desc *d)
{
	struct edm_rack_cn *cn = rcu_dereference(np->rack->cn[d->dst]);

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "called without rcu_read_lock()");
	if (!cn) {
		edm_free_shared_buffer(&np->pn, d->ref);
		edm_nicpool_stat_add(np, EDM_A_NPSTAT_RX_DROPS, 1);
		return;
	}
	if (edm_rack_post(&np->pn, cn, d)) {
		edm_nicpool_stat_add(np, EDM_A_NPSTAT_RX_DROPS, 1);
		return;
	}
	edm_nicpool_stat_add(np, EDM_A_NPSTAT_RX_PACKETS, 1);
	edm_nicpool_stat_add(np, EDM_A_NPSTAT_RX_BYTES, d->len);
}

/* A broadcast or multicast frame: a Buffer for every compute node. */
static void edm_nicpool_flood(struct edm_nicpool *np, const struct sk_buff *skb)
{
	const struct ethhdr *eth = (const struct ethhdr *)skb->data;
	struct edm_rack *rack = np->rack;
	struct edm_rack_desc d;
	struct edm_rack_cn *cn;
	int i;

	/* our own broadcast, come back through another member: a loop */
	if (edm_rack_by_mac(rack, eth->h_source, NULL)) {
		edm_nicpool_stat_add(np, EDM_A_NPSTAT_RX_DROPS, 1);
		return;
	}
	edm_nicpool_stat_add(np, EDM_A_NPSTAT_RX_FLOODS, 1);
	for (i = 0; i < EDM_POOL_NNODES; i++) {
		cn = rcu_dereference(rack->cn[i]);
		/* a node that is down gets no copy (edm_rack_post() checks again) */
		if (cn && READ_ONCE(cn->up) && !edm_nicpool_copy(np, skb, cn, &d))
			edm_nicpool_deliver(np, &d);
	}
}

/* ---- reordering of spray frames ---- */

static void edm_nicpool_ro_give(struct edm_nicpool *np, struct edm_nicpool_held *h)
{
	edm_nicpool_deliver(np, &h->d);
	h->valid = false;
}

/* Deliver what @c holds, in sequence, skipping holes; ro_lock held. */
static void edm_nicpool_ro_flush(struct edm_nicpool *np, struct edm_nicpool_reorder *c)
{
	struct edm_nicpool_held *h;
	u32 i, last = 0;

	lockdep_assert_held(&np->ro_lock);
	for (i = 0; c->nheld && i < EDM_NICPOOL_WINDOW; i++) {
		h = &c->win[(c->next + i) & (EDM_NICPOOL_WINDOW - 1)];
		if (!h->valid)
			continue;
		edm_nicpool_ro_give(np, h);
		c->nheld--;
		last = i + 1;
	}
	c->next += last;
}

/* Deliver what @c holds from its next sequence number on, up to a hole. */
static void edm_nicpool_ro_drain(struct edm_nicpool *np, struct edm_nicpool_reorder *c)
{
	struct edm_nicpool_held *h;

	while (c->nheld) {
		h = &c->win[c->next & (EDM_NICPOOL_WINDOW - 1)];
		if (!h->valid)
			break;
		edm_nicpool_ro_give(np, h);
		c->nheld--;
		c->next++;
	}
}

/* The context of (@tag, @space), taken over from another pair if need be. */
static struct edm_nicpool_reorder *edm_nicpool_ro_ctx(struct edm_nicpool *np, u32 tag, u16 space,
						      u32 seq)
{
	struct edm_nicpool_reorder *c = &np->ro[jhash_2words(tag, space, 0) % EDM_NICPOOL_RO_CTX];

	if (c->used && c->tag == tag && c->space == space)
		return c;
	edm_nicpool_ro_flush(np, c);
	c->used = true;
	c->tag = tag;
	c->space = space;
	c->next = seq;
	return c;
}

/* "held", or "dup" (its place is taken: freed) */
static const char *edm_nicpool_ro_hold(struct edm_nicpool *np, struct edm_nicpool_reorder *c,
				       u32 seq, const struct edm_rack_desc *d)
{
	struct edm_nicpool_held *h = &c->win[seq & (EDM_NICPOOL_WINDOW - 1)];

	if (h->valid) {
		edm_free_shared_buffer(&np->pn, d->ref);
		edm_nicpool_stat_add(np, EDM_A_NPSTAT_DUPS, 1);
		return "dup";
	}
	h->d = *d;
	h->valid = true;
	c->nheld++;
	edm_nicpool_stat_add(np, EDM_A_NPSTAT_REORDERED, 1);
	if (!hrtimer_active(&np->ro_timer))
		hrtimer_start(&np->ro_timer, ns_to_ktime(EDM_NICPOOL_RO_TIMEOUT_US * NSEC_PER_USEC),
			      HRTIMER_MODE_REL_SOFT);
	return "held";
}

static void edm_nicpool_reorder(struct edm_nicpool *np, const struct edm_nicpool_hdr *hdr,
				const struct edm_rack_desc *d)
{
	u32 seq = ntohl(hdr->seq), next;
	struct edm_nicpool_reorder *c;
	const char *what;
	s32 ahead;

	spin_lock(&np->ro_lock);
	c = edm_nicpool_ro_ctx(np, ntohl(hdr->tag), ntohs(hdr->space), seq);
	next = c->next;
	ahead = (s32)(seq - next);
	if (ahead < 0) {
		edm_nicpool_stat_add(np, EDM_A_NPSTAT_LATE, 1);
		edm_nicpool_deliver(np, d);
		what = "late";
	} else if (ahead == 0) {
		edm_nicpool_deliver(np, d);
		c->next++;
		edm_nicpool_ro_drain(np, c);
		what = "in order";
	} else if (ahead < EDM_NICPOOL_WINDOW) {
		what = edm_nicpool_ro_hold(np, c, seq, d);
	} else {
		edm_nicpool_stat_add(np, EDM_A_NPSTAT_WINDOW_FLUSHES, 1);
		edm_nicpool_ro_flush(np, c);
		edm_nicpool_deliver(np, d);
		c->next = seq + 1;
		what = "window";
	}
	spin_unlock(&np->ro_lock);
	trace_edm_nicpool_reorder(np->edev->name, ntohl(hdr->tag), seq, next, what);
}

/* Every context's holes are given up; ro_lock held, BH off or in softirq. */
static void edm_nicpool_ro_flush_locked(struct edm_nicpool *np, bool count)
{
	struct edm_nicpool_reorder *c;
	int i;

	lockdep_assert_held(&np->ro_lock);
	for (i = 0; i < EDM_NICPOOL_RO_CTX; i++) {
		c = &np->ro[i];
		if (!c->nheld)
			continue;
		if (count) {
			edm_nicpool_stat_add(np, EDM_A_NPSTAT_TIMEOUT_FLUSHES, 1);
			trace_edm_nicpool_reorder(np->edev->name, c->tag, c->next, c->next,
						  "timeout");
		}
		edm_nicpool_ro_flush(np, c);
	}
}

enum hrtimer_restart edm_nicpool_ro_timer(struct hrtimer *t)
{
	struct edm_nicpool *np = container_of(t, struct edm_nicpool, ro_timer);

	rcu_read_lock();
	spin_lock(&np->ro_lock);
	edm_nicpool_ro_flush_locked(np, true);
	spin_unlock(&np->ro_lock);
	rcu_read_unlock();
	return HRTIMER_NORESTART;
}

/* At teardown (no member, timer cancelled): what is held goes to its node. */
void edm_nicpool_ro_flush_all(struct edm_nicpool *np)
{
	rcu_read_lock();
	spin_lock_bh(&np->ro_lock);
	edm_nicpool_ro_flush_locked(np, false);
	spin_unlock_bh(&np->ro_lock);
	rcu_read_unlock();
}

/* ---- the rx_handler ---- */

/* Take the spray header out of @skb (data at its MAC header) into @h. */
static int edm_nicpool_decap(struct sk_buff *skb, struct edm_nicpool_hdr *h)
{
	if (skb_ensure_writable(skb, ETH_HLEN + sizeof(*h)))
		return -EINVAL;
	memcpy(h, skb->data + ETH_HLEN, sizeof(*h));
	memmove(skb->data + sizeof(*h), skb->data, 2 * ETH_ALEN);
	__skb_pull(skb, sizeof(*h));
	((struct ethhdr *)skb->data)->h_proto = h->proto;
	skb_reset_mac_header(skb);
	return 0;
}

static void edm_nicpool_rx(struct edm_nicpool *np, struct sk_buff *skb)
{
	struct edm_nicpool_hdr hdr;
	struct edm_rack_desc d;
	struct edm_rack_cn *cn;
	bool spray = false;

	if (skb->len < ETH_HLEN)
		goto bad;
	if (eth_hdr(skb)->h_proto == htons(EDM_NICPOOL_ETH_P_SPRAY)) {
		if (edm_nicpool_decap(skb, &hdr))
			goto bad;
		spray = true;
	}
	if (is_multicast_ether_addr(eth_hdr(skb)->h_dest)) {
		edm_nicpool_flood(np, skb);
		return;
	}
	cn = edm_nicpool_dest(np->rack, skb);
	if (!cn) {
		edm_nicpool_stat_add(np, EDM_A_NPSTAT_RX_NO_DEST, 1);
		return;
	}
	if (skb_ensure_writable(skb, ETH_HLEN))
		goto bad;
	ether_addr_copy(eth_hdr(skb)->h_dest, cn->netdev->dev_addr);
	if (edm_nicpool_copy(np, skb, cn, &d))
		return;
	if (spray)
		edm_nicpool_reorder(np, &hdr, &d);
	else
		edm_nicpool_deliver(np, &d);
	return;
bad:
	edm_nicpool_stat_add(np, EDM_A_NPSTAT_RX_DROPS, 1);
}

rx_handler_result_t edm_nicpool_handle_frame(struct sk_buff **pskb)
{
	struct sk_buff *skb = *pskb;
	struct edm_nicpool_member *m;

	if (unlikely(skb->pkt_type == PACKET_LOOPBACK))
		return RX_HANDLER_PASS;
	m = rcu_dereference(skb->dev->rx_handler_data);
	skb = skb_share_check(skb, GFP_ATOMIC);
	if (!skb)
		return RX_HANDLER_CONSUMED;
	/* the whole frame, from its MAC header */
	skb_push(skb, skb->mac_len);
	edm_nicpool_mstat_add(m, EDM_A_NPMEMBER_RX_PACKETS, 1);
	edm_nicpool_mstat_add(m, EDM_A_NPMEMBER_RX_BYTES, skb->len);
	edm_nicpool_rx(m->np, skb);
	consume_skb(skb);
	return RX_HANDLER_CONSUMED;
}
