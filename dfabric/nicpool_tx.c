// SPDX-License-Identifier: GPL-2.0
/*
 * The NIC pool's transmit side (dfabric/nicpool.h): a compute node's
 * port engine passes a Buffer to the NIC pool, which wraps it as a shared
 * skb (no copy) and sends it on a member.
 *
 * Choice of member: the least queue depth in bytes (each TX queue's qdisc
 * backlog plus, where the driver has BQL, the bytes in flight); ties go
 * round the members in turn, so idle members (a veth has no qdisc and no
 * BQL) share new flows evenly.
 *
 * Flowlet mode keeps a table of flow hashes, each with the member its flow
 * is on and when it was last seen. A flow stays on its member until it has
 * been idle for the gap and its member's queue is empty, so its packets
 * cannot pass each other on two members; then it goes to the least loaded
 * member, staying where it is on a tie. A flow whose member left or went
 * down moves at once.
 *
 * Spray mode sends every unicast packet to the least loaded member with an
 * edm_nicpool_hdr after the MAC addresses (ethertype 0x88B5): a sequence number
 * per destination MAC hash (space), the rack's tag and the frame's own
 * ethertype. GSO packets are cut into wire-sized ones first (in software:
 * a header copy per segment), since no NIC segments an unknown ethertype.
 * Broadcasts are not sprayed, so ARP works with any peer.
 *
 * Locking: RCU (the engine's NAPI) for members[]; the flowlet table is
 * written without a lock (see nicpool.h); the rest is per-CPU counters.
 */
#include <linux/etherdevice.h>
#include <linux/jhash.h>
#include <net/sch_generic.h>

#include "edm/compat.h"
#include "nicpool.h"
#include "trace.h"

/* The bytes waiting in @txq: its qdisc's backlog and, with BQL, the driver's. */
static u32 edm_nicpool_txq_depth(struct netdev_queue *txq)
{
	/* the queue's root qdisc */
	typeof(*txq->qdisc) *q = rcu_dereference_bh(txq->qdisc);
	u32 depth = 0;
	int cpu;

	if (q && qdisc_is_percpu_stats(q)) {
		for_each_possible_cpu(cpu)
			depth += READ_ONCE(per_cpu_ptr(q->cpu_qstats, cpu)->backlog);
	} else if (q) {
		depth = READ_ONCE(q->qstats.backlog);
	}
#ifdef CONFIG_BQL
	depth += READ_ONCE(txq->dql.num_queued) - READ_ONCE(txq->dql.num_completed);
#endif
	return depth;
}

static u32 edm_nicpool_depth(struct edm_nicpool_member *m)
{
	struct net_device *dev = m->dev;
	u32 i, n = min_t(u32, dev->real_num_tx_queues, EDM_NICPOOL_DEPTH_QUEUES);
	u32 depth = 0;

	for (i = 0; i < n; i++)
		depth += edm_nicpool_txq_depth(netdev_get_tx_queue(dev, i));
	return depth;
}

static bool edm_nicpool_usable(const struct edm_nicpool_member *m)
{
	return netif_running(m->dev) && netif_carrier_ok(m->dev);
}

static struct edm_nicpool_member *edm_nicpool_member_by_id(struct edm_nicpool *np, u32 id)
{
	struct edm_nicpool_member *m;

	if (!id)
		return NULL;
	m = rcu_dereference(np->members[(id & EDM_NICPOOL_SLOT_MASK) % EDM_NICPOOL_MEMBERS_MAX]);
	return m && m->id == id ? m : NULL;
}

/* The usable member with the least queue depth, @stay (if usable) on a tie,
 * else the next in turn; NULL if none is usable. Records the depth it saw.
 */
static struct edm_nicpool_member *edm_nicpool_pick(struct edm_nicpool *np,
						   struct edm_nicpool_member *stay)
{
	struct edm_nicpool_member *up[EDM_NICPOOL_MEMBERS_MAX], *m, *best = NULL;
	u32 depth[EDM_NICPOOL_MEMBERS_MAX], bestd = U32_MAX;
	u32 i, j, n = 0, start;

	for (i = 0; i < EDM_NICPOOL_MEMBERS_MAX; i++) {
		m = rcu_dereference(np->members[i]);
		if (m && edm_nicpool_usable(m)) {
			depth[n] = edm_nicpool_depth(m);
			up[n++] = m;
		}
	}
	if (!n)
		return NULL;
	start = (u32)atomic_inc_return(&np->rr) % n;
	for (i = 0; i < n; i++) {
		j = (start + i) % n;
		if (depth[j] < bestd || (depth[j] == bestd && up[j] == stay)) {
			best = up[j];
			bestd = depth[j];
		}
	}
	WRITE_ONCE(best->depth, bestd);
	if (bestd > READ_ONCE(best->depth_max))
		WRITE_ONCE(best->depth_max, bestd);
	return best;
}

/* Flowlet mode: the member @skb's flow is on, or moves to. */
static struct edm_nicpool_member *edm_nicpool_flowlet(struct edm_nicpool *np, struct sk_buff *skb)
{
	struct edm_nicpool_flow *f = &np->flows[skb_get_hash(skb) & (EDM_NICPOOL_FLOWS - 1)];
	u64 now = ktime_get_mono_fast_ns(), last = READ_ONCE(f->last_ns);
	u32 owner = READ_ONCE(f->owner);
	struct edm_nicpool_member *cur = edm_nicpool_member_by_id(np, owner), *m;
	bool up = cur && edm_nicpool_usable(cur);

	WRITE_ONCE(f->last_ns, now);
	if (up && now - last < READ_ONCE(np->gap_ns))
		return cur;
	/* idle for the gap, but the flow's last packets may still wait in its
	 * member's queue (a shaped or slow member): moving now would let this
	 * one pass them
	 */
	if (up && edm_nicpool_depth(cur)) {
		edm_nicpool_stat_add(np, EDM_A_NPSTAT_FLOWLET_HOLDS, 1);
		return cur;
	}
	m = edm_nicpool_pick(np, up ? cur : NULL);
	if (!m || m == cur)
		return m;
	WRITE_ONCE(f->owner, m->id);
	edm_nicpool_mstat_add(m, EDM_A_NPMEMBER_FLOWS, 1);
	if (!owner) {
		edm_nicpool_stat_add(np, EDM_A_NPSTAT_FLOWS_NEW, 1);
	} else if (!up) {
		edm_nicpool_stat_add(np, EDM_A_NPSTAT_FLOWS_REHOMED, 1);
	} else {
		edm_nicpool_stat_add(np, EDM_A_NPSTAT_FLOWLET_MOVES, 1);
		edm_nicpool_mstat_add(cur, EDM_A_NPMEMBER_FLOWS_MOVED, 1);
	}
	return m;
}

static void edm_nicpool_send(struct edm_nicpool *np, struct sk_buff *skb,
			     struct edm_nicpool_member *m)
{
	u32 len = skb->len;
	int rc;

	if (!m) {
		edm_nicpool_stat_add(np, EDM_A_NPSTAT_TX_DROPS, 1);
		kfree_skb(skb);
		return;
	}
	skb->dev = m->dev;
	/* once: net_xmit_eval() evaluates its argument twice; dev_queue_xmit()
	 * consumes the skb whatever it returns
	 */
	rc = dev_queue_xmit(skb);
	trace_edm_nicpool_tx(netdev_name(m->dev), len, m->depth, rc);
	if (net_xmit_eval(rc)) {
		/* the member's, and the pool's: a frame the rack lost */
		edm_nicpool_mstat_add(m, EDM_A_NPMEMBER_TX_DROPS, 1);
		edm_nicpool_stat_add(np, EDM_A_NPSTAT_TX_DROPS, 1);
		return;
	}
	edm_nicpool_mstat_add(m, EDM_A_NPMEMBER_TX_PACKETS, 1);
	edm_nicpool_mstat_add(m, EDM_A_NPMEMBER_TX_BYTES, len);
	edm_nicpool_stat_add(np, EDM_A_NPSTAT_TX_PACKETS, 1);
	edm_nicpool_stat_add(np, EDM_A_NPSTAT_TX_BYTES, len);
}

/* The spray header after the MAC addresses of @skb (data at its MAC header). */
static int edm_nicpool_encap(struct edm_nicpool *np, struct sk_buff *skb, u16 space)
{
	struct edm_nicpool_hdr *h;
	struct ethhdr *eth;
	__be16 proto;

	if (skb_cow_head(skb, sizeof(*h)))
		return -ENOMEM;
	proto = ((struct ethhdr *)skb->data)->h_proto;
	eth = skb_push(skb, sizeof(*h));
	memmove(eth, (u8 *)eth + sizeof(*h), 2 * ETH_ALEN);
	eth->h_proto = htons(EDM_NICPOOL_ETH_P_SPRAY);
	h = (struct edm_nicpool_hdr *)(eth + 1);
	h->seq = htonl(atomic_inc_return(&np->seq[space]));
	h->tag = htonl(np->tag);
	h->space = htons(space);
	h->proto = proto;
	skb_reset_mac_header(skb);
	/* not IP to the driver: a NIC that only checksums IP falls back to software */
	skb->protocol = htons(EDM_NICPOOL_ETH_P_SPRAY);
	return 0;
}

static void edm_nicpool_spray_one(struct edm_nicpool *np, struct sk_buff *skb, u16 space)
{
	if (edm_nicpool_encap(np, skb, space)) {
		edm_nicpool_stat_add(np, EDM_A_NPSTAT_TX_DROPS, 1);
		kfree_skb(skb);
		return;
	}
	edm_nicpool_stat_add(np, EDM_A_NPSTAT_SPRAYED, 1);
	edm_nicpool_send(np, skb, edm_nicpool_pick(np, NULL));
}

/* Spray mode: every wire-sized packet on the least loaded member. */
static void edm_nicpool_spray(struct edm_nicpool *np, struct sk_buff *skb)
{
	u16 space = jhash(eth_hdr(skb)->h_dest, ETH_ALEN, 0) & (EDM_NICPOOL_BUCKETS - 1);
	struct sk_buff *segs, *next;

	if (!skb_is_gso(skb)) {
		edm_nicpool_spray_one(np, skb, space);
		return;
	}
	segs = skb_gso_segment(skb, NETIF_F_SG | NETIF_F_HW_CSUM);
	if (IS_ERR_OR_NULL(segs)) {
		edm_nicpool_stat_add(np, EDM_A_NPSTAT_TX_DROPS, 1);
		kfree_skb(skb);
		return;
	}
	edm_nicpool_stat_add(np, EDM_A_NPSTAT_SEGMENTED, 1);
	consume_skb(skb);
	skb_list_walk_safe(segs, skb, next) {
		skb_mark_not_on_list(skb);
		edm_nicpool_spray_one(np, skb, space);
	}
}

/* The shared skb as a frame to send: headers where the stack wants them. */
static int edm_nicpool_tx_prepare(struct sk_buff *skb, const struct virtio_net_hdr *vh)
{
	if (skb->len < ETH_HLEN)
		return -EINVAL;
	skb_reset_mac_header(skb);
	skb->protocol = eth_hdr(skb)->h_proto;
	skb_set_network_header(skb, ETH_HLEN);
	return edm_rack_skb_offloads(skb, vh);
}

int edm_nicpool_xmit(struct edm_nicpool *np, struct edm_rack_cn *cn,
		     const struct edm_rack_desc *d)
{
	u32 span = edm_shared_skb_span(d->len);
	struct sk_buff *skb;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "called without rcu_read_lock()");
	/* the NIC pool loads the Buffer by reference (its DMA), no copy */
	if (edm_pass_shared_buffer(&cn->pn, &np->pn, d->ref, span)) {
		edm_free_shared_buffer(&cn->pn, d->ref);
		return -EACCES;
	}
	skb = edm_build_shared_skb(&np->pn, NULL, d->ref, d->len);
	if (!skb) {
		edm_free_shared_buffer(&np->pn, d->ref);
		edm_nicpool_stat_add(np, EDM_A_NPSTAT_TX_DROPS, 1);
		return 0;
	}
	/* from the CN, until a member takes it: flowlet hashing dissects the
	 * flow in the netns of skb->dev, and with none (DEBUG_NET warns) no
	 * netns's flow dissector program would run
	 */
	skb->dev = cn->netdev;
	if (edm_nicpool_tx_prepare(skb, &d->vh)) {
		edm_kfree_shared_skb(&np->pn, skb, d->ref);
		edm_nicpool_stat_add(np, EDM_A_NPSTAT_TX_DROPS, 1);
		return 0;
	}
	if (READ_ONCE(np->mode) == EDM_NICPOOL_MODE_SPRAY &&
	    !is_multicast_ether_addr(eth_hdr(skb)->h_dest))
		edm_nicpool_spray(np, skb);
	else
		edm_nicpool_send(np, skb, edm_nicpool_flowlet(np, skb));
	return 0;
}
