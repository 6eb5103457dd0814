// SPDX-License-Identifier: GPL-2.0
/*
 * Fabric ports and links: the PHY of each port (scrambler, sync-header
 * monitor, bursts on the wire) and the links that join two ports, either an
 * emulated wire with a rate and a propagation delay or a netdev (EDM over
 * Ethernet, fabric/eth.c).
 *
 * Locking. A port's state is under its node's lock. port->link is RCU: the
 * link mutex (edm_fab_link_mutex) and the nodes' locks are held to change it,
 * senders read it under rcu_read_lock(). An emulated wire's delay queue has
 * its own lock (the skb queue's) and a soft hrtimer per direction.
 */
#include <linux/debugfs.h>
#include <linux/hrtimer.h>
#include <linux/if_arp.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>

#include "edm/dev.h"
#include "edm/edm.h"
#include "fab.h"
#include "trace.h"

/* serializes link changes: port->link, binds, link memory */
DEFINE_MUTEX(edm_fab_link_mutex);

/*
 * Test knob, debugfs edm/fabric_tx_hold: while set, no port transmits, so a
 * test can queue frames and memory messages and then see in what order the
 * mux sends them.
 */
static bool edm_fab_tx_hold;

int edm_fab_init(void)
{
	debugfs_create_bool("fabric_tx_hold", 0600, edm_debugfs_root, &edm_fab_tx_hold);
	return 0;
}

void edm_fab_exit(void)
{
	debugfs_lookup_and_remove("fabric_tx_hold", edm_debugfs_root);
}

struct edm_wire_cb {
	struct edm_fab_port *port;	/* must stay first: edm_port_of_skb() */
	u64 at_ns;
};

static struct edm_wire_cb *edm_wire_cb(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct edm_wire_cb) > sizeof(skb->cb));
	return (struct edm_wire_cb *)skb->cb;
}

void edm_fab_link_cfg_default(struct edm_fab_link_cfg *cfg)
{
	cfg->rate_mbps = EDM_FAB_DEFAULT_RATE;
	cfg->delay_ns = 0;
	cfg->mux = EDM_FAB_MUX_FAIR;
	cfg->sherr_threshold = EDM_PCS_SHERR_THRESHOLD;
}

/* Under the node lock (or before the port is used): drop the held bursts. */
static void edm_port_held_purge(struct edm_fab_port *p)
{
	__skb_queue_purge(&p->held);
	p->nack_at_ns = 0;
}

/* The same, and what was sent and not acknowledged: the link's retry state. */
static void edm_port_llr_purge(struct edm_fab_port *p)
{
	edm_port_held_purge(p);
	__skb_queue_purge(&p->replay);
	p->ack_due = false;
	p->rtt_timing = false;
	p->resent = false;
}

static void edm_port_phy_reset(struct edm_fab_port *p)
{
	edm_port_llr_purge(p);
	p->tx_epoch++;		/* the peer sees our sequence start again */
	edm_pcs_scr_init(&p->scr_tx, EDM_FAB_SCRAMBLE_SEED);
	edm_pcs_scr_init(&p->scr_rx, EDM_FAB_SCRAMBLE_SEED);
	edm_pcs_sherr_init(&p->sherr, p->cfg.sherr_threshold, EDM_PCS_SHERR_WINDOW);
	if (p->dec_frame)
		edm_pcs_dec_init(&p->dec, p->dec_frame, EDM_FRAME_MAX, p->dec_msg,
				 p->dec_msg ? EDM_PCS_MSG_MAX : 0);
	p->in_run = false;
	p->run_len = 0;
	/*
	 * tx_seq goes on: the new epoch tells the peer, and an ack of the old
	 * sequence still on its way (at most the old tx_seq) frees nothing of
	 * the new one.
	 */
	p->rx_seq_valid = false;
	p->corrupt = 0;
}

static void edm_port_down_work(struct work_struct *work)
{
	struct edm_fab_port *p = container_of(work, struct edm_fab_port, down_work);
	struct edm_fab_node *n = p->node;

	edm_fab_nl_link_down(n->net, n->name, p->index, "sync header errors");
	edm_fab_node_put(n);
}

int edm_fab_port_init(struct edm_fab_node *n, struct edm_fab_port *p, u32 index)
{
	p->node = n;
	p->index = index;
	p->state = EDM_FLINK_DOWN;
	edm_fab_link_cfg_default(&p->cfg);
	INIT_WORK(&p->down_work, edm_port_down_work);
	__skb_queue_head_init(&p->held);
	__skb_queue_head_init(&p->replay);
	p->tx_epoch = get_random_u8();
	edm_port_phy_reset(p);
	return edm_mux_init(&p->mux);
}

void edm_fab_port_uninit(struct edm_fab_port *p)
{
	edm_port_llr_purge(p);
	edm_mux_uninit(&p->mux);
	kvfree(p->dec_frame);
	kvfree(p->dec_msg);
	kvfree(p->run);
}

/* Receive buffers, made when the port is first linked. */
static int edm_port_alloc(struct edm_fab_port *p)
{
	bool host = p->node->kind == EDM_FAB_HOST;

	if (p->dec_frame)
		return 0;
	p->dec_frame = kvmalloc(EDM_FRAME_MAX, GFP_KERNEL);
	if (host)
		p->dec_msg = kvmalloc(EDM_PCS_MSG_MAX, GFP_KERNEL);
	else
		p->run = kvmalloc_array(EDM_RUN_MAX, sizeof(*p->run), GFP_KERNEL);
	if (!p->dec_frame || (host ? !p->dec_msg : !p->run)) {
		kvfree(p->dec_frame);
		kvfree(p->dec_msg);
		kvfree(p->run);
		p->dec_frame = NULL;
		p->dec_msg = NULL;
		p->run = NULL;
		return -ENOMEM;
	}
	return 0;
}

bool edm_fab_port_up(const struct edm_fab_port *p)
{
	return p->state == EDM_FLINK_UP && rcu_access_pointer(p->link);
}

/* Under the node lock: the port stops, its queues are lost. */
static void edm_port_set_down(struct edm_fab_port *p)
{
	struct edm_fab_node *n = p->node;

	lockdep_assert_held(&n->lock);
	if (p->state == EDM_FLINK_DOWN)
		return;
	p->state = EDM_FLINK_DOWN;
	p->stats.down_events++;
	edm_mux_purge(&p->mux);
	edm_port_llr_purge(p);
	if (n->kind == EDM_FAB_SWITCH) {
		edm_fab_netdev_carrier(n, false);
		edm_fab_switch_port_down(n, p->index);
	} else if (n->host && p == edm_host_port(to_host(n))) {
		/* a host's netdev goes off with the port it sends on, and a
		 * host with a standby's port moves to it in its next poll, now
		 */
		edm_fab_netdev_carrier(n, false);
		if (n->nports > 1)
			edm_fab_node_kick(n);
	}
}

/* Bursts */

static void edm_port_rx_blocks(struct edm_fab_port *p, struct edm_pcs_block *b, u32 nb)
{
	struct edm_fab_node *n = p->node;
	u32 i;

	for (i = 0; i < nb && p->corrupt; i++, p->corrupt--)
		b[i].sync = EDM_PCS_SYNC_BAD0;
	for (i = 0; i < nb; i++) {
		if (b[i].sync == EDM_PCS_SYNC_BAD0 || b[i].sync == EDM_PCS_SYNC_BAD3)
			p->stats.sherr++;
		if (edm_pcs_sherr_feed(&p->sherr, b[i].sync)) {
			edm_port_set_down(p);
			edm_fab_node_get(n);
			if (!schedule_work(&p->down_work))
				edm_fab_node_put(n);
			return;
		}
	}
	edm_pcs_descramble(&p->scr_rx, b, nb);
	p->stats.rx_blocks += nb;
	if (n->kind == EDM_FAB_HOST)
		edm_fab_host_rx(p, b, nb);
	else
		edm_fab_switch_rx(p, b, nb);
}

static u32 edm_burst_seq(const struct sk_buff *skb)
{
	return ntohl(((const struct edm_burst_hdr *)skb->data)->seq);
}

/* Under the node lock: decode one burst, the next in sequence, and free it. */
static void edm_port_rx_in_order(struct edm_fab_port *p, struct sk_buff *skb)
{
	struct edm_fab_node *n = p->node;
	const struct edm_burst_hdr *h = (const struct edm_burst_hdr *)skb->data;
	u32 nb = ntohs(h->nblocks), seq = ntohl(h->seq);
	int got;

	lockdep_assert_held(&n->lock);
	p->rx_seq = seq + 1;
	p->rx_seq_valid = true;
	p->rx_epoch = h->epoch;
	p->ack_due = p->llr;
	got = edm_pcs_wire_unpack(skb->data + sizeof(*h), skb->len - sizeof(*h), n->scratch, nb);
	if (got != nb) {
		p->stats.rx_bad++;
		kfree_skb(skb);
		return;
	}
	p->stats.rx_bursts++;
	trace_edm_fab_burst_rx(n->name, p->index, seq, nb);
	edm_port_rx_blocks(p, n->scratch, nb);
	consume_skb(skb);
}

/* Under the node lock: the head of the next burst @p sends, with its ack. */
static void edm_burst_hdr_fill(struct edm_fab_port *p, struct edm_burst_hdr *h, u32 nb)
{
	h->seq = htonl(p->tx_seq);
	h->ack = 0;
	h->nblocks = htons(nb);
	h->flags = 0;
	h->epoch = p->tx_epoch;
	if (p->llr && p->rx_seq_valid) {
		h->flags = EDM_BURST_ACK;
		h->ack = htonl(p->rx_seq);
		p->ack_due = false;
	}
}

/* Under the node lock: a burst of no blocks, our ack alone or a NACK. */
static void edm_llr_send_ack(struct edm_fab_port *p, bool nack)
{
	struct edm_burst_hdr *h;
	struct sk_buff *skb;

	skb = alloc_skb(LL_MAX_HEADER + sizeof(*h), GFP_ATOMIC);
	if (!skb) {
		p->stats.tx_drops++;
		return;
	}
	skb_reserve(skb, LL_MAX_HEADER);
	h = skb_put(skb, sizeof(*h));
	edm_burst_hdr_fill(p, h, 0);
	if (nack) {
		h->flags |= EDM_BURST_NACK;
		p->stats.tx_nacks++;
	} else {
		p->stats.tx_acks++;
	}
	edm_wire_cb(skb)->port = p;
	__skb_queue_tail(&p->node->txq, skb);
}

/*
 * Under the node lock: send again the bursts not acknowledged, oldest
 * first: every one (go-back-N, for a NACK: the peer holds what came after
 * a gap only for a while), or with @head_only the first alone (for a
 * timeout, as TCP sends one segment: the peer holds the rest, and a link
 * that is only slow would otherwise carry the window again at each one).
 * Each goes as a copy: the first send's skb may still be on its way, with
 * its Ethernet header in the buffer they share.
 */
static void edm_llr_resend(struct edm_fab_port *p, u64 now, bool head_only)
{
	struct sk_buff *skb, *c;

	skb_queue_walk(&p->replay, skb) {
		c = skb_copy(skb, GFP_ATOMIC);
		if (!c) {
			p->stats.tx_drops++;
			break;
		}
		__skb_queue_tail(&p->node->txq, c);
		p->stats.tx_resent++;
		if (head_only)
			break;
	}
	p->rto_from_ns = now;
	p->rtt_timing = false;	/* Karn: an ack may now be for either send */
	if (!skb_queue_empty(&p->replay)) {
		p->resent = true;
		p->resent_head = edm_burst_seq(skb_peek(&p->replay));
	}
}

/* Under the node lock: the peer took every burst before @ack. */
static void edm_llr_acked(struct edm_fab_port *p, u32 ack, u64 now)
{
	struct sk_buff *skb;

	if ((s32)(ack - p->tx_seq) > 0)
		return;		/* past what we sent: not for this sequence */
	while ((skb = skb_peek(&p->replay)) && (s32)(ack - edm_burst_seq(skb)) > 0) {
		__skb_unlink(skb, &p->replay);
		consume_skb(skb);
		p->rto_from_ns = now;
		p->ack_from_ns = now;
		p->rto_count = 0;
	}
	if (p->rtt_timing && (s32)(ack - p->rtt_seq) > 0) {
		p->rtt_timing = false;
		/* at least 1 ns: a zero SRTT means none measured */
		edm_rtt_update(&p->stats.srtt_ns, &p->rttvar_ns, max(now - p->rtt_sent_ns, 1ULL),
			       !p->stats.srtt_ns);
	}
}

/*
 * The link's RTO: SRTT + 4 RTTVAR, at least EDM_LLR_RTO_MIN_NS, at most
 * EDM_LLR_RTO_NS or twice SRTT if that is more (up to EDM_LLR_RTO_MAX_NS);
 * EDM_LLR_RTO_NS until measured. A slow link's window takes longer than
 * EDM_LLR_RTO_NS to drain (128 bursts at 20 Mbit/s are 77 ms), and a timer
 * that fires first sends the whole window again, which the link then also
 * has to carry; a fast one's variance alone does not lift the bound.
 */
static u64 edm_llr_base_ns(const struct edm_fab_port *p)
{
	u64 max;

	if (!p->stats.srtt_ns)
		return EDM_LLR_RTO_NS;
	max = clamp_t(u64, 2 * p->stats.srtt_ns, EDM_LLR_RTO_NS, EDM_LLR_RTO_MAX_NS);
	return clamp_t(u64, p->stats.srtt_ns + 4 * p->rttvar_ns, EDM_LLR_RTO_MIN_NS, max);
}

/*
 * The port's retry timeout: the RTO for the first EDM_LLR_RTO_FLAT in a row
 * with no ack (a loss that hit the resent bursts or their ack too), then
 * doubled by each, up to EDM_LLR_RTO_MAX_NS.
 */
static u64 edm_llr_rto_ns(const struct edm_fab_port *p)
{
	u32 n = p->rto_count;

	n = n > EDM_LLR_RTO_FLAT ? min(n - EDM_LLR_RTO_FLAT, 10U) : 0;
	return min_t(u64, edm_llr_base_ns(p) << n, EDM_LLR_RTO_MAX_NS);
}

/* Under the node lock: when the port's next retry is due, U64_MAX if none. */
static u64 edm_llr_due_ns(const struct edm_fab_port *p)
{
	u64 due = U64_MAX;

	if (!skb_queue_empty(&p->held))
		due = p->nack_at_ns ? p->nack_at_ns + edm_llr_base_ns(p) :
				      p->held_since_ns + EDM_LLR_NACK_NS;
	if (!skb_queue_empty(&p->replay))
		due = min(due, p->rto_from_ns + edm_llr_rto_ns(p));
	return due;
}

/*
 * Under the node lock: decode the held bursts that are next in sequence.
 * On a bound link, a gap that is still there asks the sender for it again;
 * on an emulated wire (which loses nothing) it is skipped.
 */
static void edm_port_rx_held(struct edm_fab_port *p, u64 now)
{
	struct sk_buff *skb;

	lockdep_assert_held(&p->node->lock);
	while ((skb = skb_peek(&p->held))) {
		if (edm_burst_seq(skb) != p->rx_seq) {
			if (p->llr)
				break;
			p->stats.seq_gaps++;
		}
		__skb_unlink(skb, &p->held);
		p->held_since_ns = now;
		p->nack_at_ns = 0;
		if (p->state == EDM_FLINK_UP)
			edm_port_rx_in_order(p, skb);
		else
			kfree_skb(skb);
	}
	if (skb_queue_empty(&p->held) || p->state != EDM_FLINK_UP)
		return;
	if (p->nack_at_ns ? now - p->nack_at_ns >= edm_llr_base_ns(p) :
			    now - p->held_since_ns >= EDM_LLR_NACK_NS) {
		if (!p->nack_at_ns)
			p->stats.seq_gaps++;
		edm_llr_send_ack(p, true);
		p->nack_at_ns = now;
	}
}

/* Under the node lock: keep a burst that came after a missing one. */
static void edm_port_hold(struct edm_fab_port *p, struct sk_buff *skb, u64 now)
{
	struct edm_fab_node *n = p->node;
	u32 seq = edm_burst_seq(skb);
	struct sk_buff *at;

	lockdep_assert_held(&n->lock);
	skb_queue_reverse_walk(&p->held, at) {
		if ((s32)(seq - edm_burst_seq(at)) > 0)
			break;
		if (seq == edm_burst_seq(at)) {
			p->stats.rx_dups++;
			consume_skb(skb);
			return;
		}
	}
	if (skb_queue_empty(&p->held)) {
		p->held_since_ns = now;
		p->nack_at_ns = 0;
	}
	__skb_queue_after(&p->held, at, skb);
}

/*
 * Under the node lock, from the poll: take one burst. Its ack, if any, frees
 * what the peer has, and a NACK sends the rest again. Bursts are decoded in
 * sequence order: one that comes early is held until those before it come
 * (edm_port_rx_held()), one already taken (sent again) is dropped. A new
 * epoch means the other end started a new sequence (it was reset, or gave
 * up): what was held is lost, and the new sequence starts with this burst.
 */
void edm_fab_port_rx_burst(struct edm_fab_port *p, struct sk_buff *skb)
{
	struct edm_fab_node *n = p->node;
	const struct edm_burst_hdr *h;
	u64 now;
	u32 nb;
	s32 d;

	lockdep_assert_held(&n->lock);
	if (p->state != EDM_FLINK_UP || skb->len < sizeof(*h))
		goto drop;
	h = (const struct edm_burst_hdr *)skb->data;
	nb = ntohs(h->nblocks);
	if (nb > EDM_BURST_BLOCKS || h->flags & ~(EDM_BURST_ACK | EDM_BURST_NACK) ||
	    (!(h->flags & EDM_BURST_ACK) && (!nb || h->flags)))
		goto bad;
	now = edm_fab_now_ns();
	if (p->llr && h->flags & EDM_BURST_ACK) {
		edm_llr_acked(p, ntohl(h->ack), now);
		/*
		 * A NACK sends the window again once per first burst: the peer
		 * repeats its NACK each of its own RTOs, which on a link slower
		 * than the window drains come faster than the copies can get
		 * there, and each would send the window once more. If the copy
		 * of that burst is lost, the RTO sends again.
		 */
		if (h->flags & EDM_BURST_NACK && !skb_queue_empty(&p->replay) &&
		    edm_burst_seq(skb_peek(&p->replay)) == ntohl(h->ack) &&
		    !(p->resent && p->resent_head == ntohl(h->ack)))
			edm_llr_resend(p, now, false);
	}
	if (!nb) {
		consume_skb(skb);
		return;
	}
	if (!p->rx_seq_valid || h->epoch != p->rx_epoch) {
		if (p->rx_seq_valid)
			p->stats.seq_gaps++;
		edm_port_held_purge(p);
		edm_port_rx_in_order(p, skb);
		return;
	}
	d = (s32)(ntohl(h->seq) - p->rx_seq);
	if (d < 0) {
		/* sent again: our ack was lost, or is late; say it again */
		p->stats.rx_dups++;
		p->ack_due = p->llr;
		consume_skb(skb);
		return;
	}
	if (d > EDM_LLR_WINDOW)
		goto bad;	/* past any window the sender has */
	if (d == 0)
		edm_port_rx_in_order(p, skb);
	else
		edm_port_hold(p, skb, now);
	edm_port_rx_held(p, now);
	return;
bad:
	p->stats.rx_bad++;
drop:
	kfree_skb(skb);
}

/*
 * Under the node lock, from the poll: the retries that are due, of gaps
 * (NACK) and of bursts sent with no ack in time.
 */
void edm_fab_node_timers(struct edm_fab_node *n)
{
	u64 now = edm_fab_now_ns();
	struct edm_fab_port *p;
	u32 i;

	lockdep_assert_held(&n->lock);
	for (i = 0; i < n->nports; i++) {
		p = &n->port[i];
		if (!p->llr || p->state != EDM_FLINK_UP)
			continue;
		if (!skb_queue_empty(&p->held))
			edm_port_rx_held(p, now);
		if (skb_queue_empty(&p->replay) || now - p->rto_from_ns < edm_llr_rto_ns(p))
			continue;
		p->stats.tx_rto++;
		p->rto_count++;
		if (now - p->ack_from_ns < EDM_LLR_GIVEUP_NS) {
			edm_llr_resend(p, now, true);
			continue;
		}
		/*
		 * Nothing acknowledged for seconds: the peer is gone, or is not
		 * ours. What it never took is dropped, and the next burst starts
		 * a new epoch, which a peer that lost its way takes as a restart.
		 */
		p->stats.tx_drops += skb_queue_len(&p->replay);
		__skb_queue_purge(&p->replay);
		p->resent = false;
		p->tx_epoch++;
		p->rto_count = 0;
		p->rtt_timing = false;	/* its burst is dropped */
	}
}

/*
 * Under the node lock: turn what the mux holds into bursts on node->txq,
 * and on a bound link keep each until the peer acknowledges it, at most
 * EDM_LLR_WINDOW of them. Returns when the node must poll again for the
 * port's retries (U64_MAX: never).
 */
u64 edm_fab_port_flush(struct edm_fab_port *p)
{
	struct edm_fab_node *n = p->node;
	struct edm_burst_hdr *h;
	struct sk_buff *skb, *c;
	u32 nb, size;
	u64 now;

	lockdep_assert_held(&n->lock);
	if (!edm_fab_port_up(p))
		return U64_MAX;
	if (READ_ONCE(edm_fab_tx_hold))
		return p->llr ? edm_llr_due_ns(p) : U64_MAX;
	while (edm_mux_pending(&p->mux) &&
	       (!p->llr || skb_queue_len(&p->replay) < EDM_LLR_WINDOW)) {
		/* before the pull: blocks pulled are scrambled, and must go */
		skb = alloc_skb(LL_MAX_HEADER + sizeof(*h) + edm_pcs_wire_size(p->burst_max),
				GFP_ATOMIC);
		if (!skb) {
			p->stats.tx_drops++;
			break;
		}
		nb = edm_mux_pull(p, n->scratch, p->burst_max);
		if (!nb) {
			kfree_skb(skb);
			break;
		}
		edm_pcs_scramble(&p->scr_tx, n->scratch, nb);
		size = edm_pcs_wire_size(nb);
		skb_reserve(skb, LL_MAX_HEADER);
		h = skb_put(skb, sizeof(*h));
		edm_burst_hdr_fill(p, h, nb);
		p->tx_seq++;
		edm_pcs_wire_pack(n->scratch, nb, skb_put(skb, size), size);
		p->stats.tx_blocks += nb;
		p->stats.tx_bursts++;
		trace_edm_fab_burst_tx(n->name, p->index, p->tx_seq - 1, nb);
		edm_wire_cb(skb)->port = p;
		if (p->llr) {
			/* the clone waits for the ack; the skb goes, header pushed */
			c = skb_clone(skb, GFP_ATOMIC);
			if (!c) {
				/* not kept, so lost: as if the wire lost it */
				p->stats.tx_drops++;
			} else {
				now = edm_fab_now_ns();
				if (skb_queue_empty(&p->replay)) {
					p->rto_from_ns = now;
					p->ack_from_ns = now;
				}
				if (!p->rtt_timing) {
					p->rtt_timing = true;
					p->rtt_seq = p->tx_seq - 1;
					p->rtt_sent_ns = now;
				}
				__skb_queue_tail(&p->replay, c);
			}
		}
		__skb_queue_tail(&n->txq, skb);
	}
	if (!p->llr)
		return U64_MAX;
	if (p->ack_due)
		edm_llr_send_ack(p, false);
	return edm_llr_due_ns(p);
}

/* Emulated wires */

static u64 edm_wire_ser_ns(const struct edm_fab_port *p, u32 bytes)
{
	return div_u64((u64)bytes * 8000, p->cfg.rate_mbps);
}

static void edm_wire_deliver(struct edm_fab_link *l, int dir, struct sk_buff *skb)
{
	edm_fab_port_rx(l->end[!dir], skb);
}

static enum hrtimer_restart edm_wire_timer(struct hrtimer *t)
{
	struct edm_wire *w = container_of(t, struct edm_wire, timer);
	enum hrtimer_restart ret = HRTIMER_NORESTART;
	struct sk_buff_head due;
	struct sk_buff *skb;
	u64 now;

	__skb_queue_head_init(&due);
	now = edm_fab_now_ns();
	spin_lock(&w->q.lock);
	while ((skb = skb_peek(&w->q)) && edm_wire_cb(skb)->at_ns <= now) {
		__skb_unlink(skb, &w->q);
		__skb_queue_tail(&due, skb);
	}
	/* decided under the lock: a sender that finds the queue empty starts us */
	if (skb) {
		hrtimer_set_expires(t, ns_to_ktime(edm_wire_cb(skb)->at_ns));
		ret = HRTIMER_RESTART;
	}
	spin_unlock(&w->q.lock);
	while ((skb = __skb_dequeue(&due)))
		edm_wire_deliver(w->link, w->dir, skb);
	return ret;
}

/*
 * A wire with a propagation delay is busy for each burst's serialization
 * time at the link rate and delivers it a delay later. With no delay (the
 * default) it delivers at once: no timer is precise to the nanoseconds a
 * burst takes at 25 Gb/s, and software is far slower than the modeled wire,
 * whose time each op's modeled latency accounts for.
 */
static void edm_wire_xmit(struct edm_fab_link *l, struct edm_fab_port *p, struct sk_buff *skb)
{
	int dir = l->end[0] == p ? 0 : 1;
	struct sk_buff_head *q = &l->wire[dir].q;
	u64 now = edm_fab_now_ns(), at;
	bool first;

	if (!p->cfg.delay_ns && skb_queue_empty_lockless(q)) {
		edm_wire_deliver(l, dir, skb);
		return;
	}
	at = max(now, p->free_at_ns) + edm_wire_ser_ns(p, skb->len);
	p->free_at_ns = at;
	at += p->cfg.delay_ns;
	if (at <= now + NSEC_PER_USEC && skb_queue_empty_lockless(q)) {
		edm_wire_deliver(l, dir, skb);
		return;
	}
	edm_wire_cb(skb)->at_ns = at;
	spin_lock_bh(&q->lock);
	first = skb_queue_empty(q);
	__skb_queue_tail(q, skb);
	if (first)
		hrtimer_start(&l->wire[dir].timer, ns_to_ktime(at), HRTIMER_MODE_ABS_SOFT);
	spin_unlock_bh(&q->lock);
}

/* After a poll, without the node lock. */
void edm_fab_port_xmit(struct edm_fab_port *p, struct sk_buff *skb)
{
	struct edm_fab_link *l;

	rcu_read_lock();
	l = rcu_dereference(p->link);
	if (!l) {
		kfree_skb(skb);
	} else if (l->eth) {
		if (edm_fab_eth_xmit(l->eth, skb))
			p->stats.tx_drops++;	/* racy, a hint */
	} else {
		edm_wire_xmit(l, p, skb);
	}
	rcu_read_unlock();
}

/* Links */

static struct edm_fab_link *edm_link_alloc(void)
{
	struct edm_fab_link *l = kzalloc(sizeof(*l), GFP_KERNEL);
	int i;

	if (!l)
		return NULL;
	for (i = 0; i < 2; i++) {
		skb_queue_head_init(&l->wire[i].q);
		hrtimer_init(&l->wire[i].timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
		l->wire[i].timer.function = edm_wire_timer;
		l->wire[i].link = l;
		l->wire[i].dir = i;
	}
	return l;
}

static void edm_port_attach(struct edm_fab_port *p, struct edm_fab_link *l,
			    const struct edm_fab_link_cfg *cfg, u32 burst_max)
{
	spin_lock_bh(&p->node->lock);
	p->cfg = *cfg;
	p->burst_max = burst_max;
	p->llr = !!l->eth;
	edm_port_phy_reset(p);
	p->free_at_ns = 0;
	p->state = EDM_FLINK_UP;
	rcu_assign_pointer(p->link, l);
	spin_unlock_bh(&p->node->lock);
	edm_fab_netdev_carrier(p->node, true);
}

static void edm_port_detach(struct edm_fab_port *p)
{
	spin_lock_bh(&p->node->lock);
	edm_port_set_down(p);
	RCU_INIT_POINTER(p->link, NULL);
	spin_unlock_bh(&p->node->lock);
}

static int edm_link_cfg_check(const struct edm_fab_link_cfg *cfg, struct netlink_ext_ack *extack)
{
	if (cfg->rate_mbps < EDM_FAB_RATE_MIN || cfg->rate_mbps > EDM_FAB_RATE_MAX ||
	    EDM_SCHED_PS_PER_MBYTE % cfg->rate_mbps) {
		NL_SET_ERR_MSG(extack, "link rate must be 1000..400000 Mb/s and divide 8 Tb/s");
		return -ERANGE;
	}
	if (cfg->delay_ns > EDM_FAB_DELAY_MAX_NS) {
		NL_SET_ERR_MSG(extack, "link delay must be at most 10 ms");
		return -ERANGE;
	}
	if (cfg->mux > EDM_FAB_MUX_MAX) {
		NL_SET_ERR_MSG(extack, "unknown mux policy");
		return -EINVAL;
	}
	return 0;
}

static int edm_link_check(struct edm_fab_node *n, u32 port, const struct edm_fab_link_cfg *cfg,
			  struct netlink_ext_ack *extack)
{
	int err;

	if (n->dead) {
		NL_SET_ERR_MSG(extack, "fabric node is being destroyed");
		return -ENODEV;
	}
	if (port >= n->nports) {
		NL_SET_ERR_MSG(extack, "the node has no such port");
		return -ERANGE;
	}
	if (rcu_access_pointer(n->port[port].link)) {
		NL_SET_ERR_MSG(extack, "the port is already linked");
		return -EEXIST;
	}
	err = edm_link_cfg_check(cfg, extack);
	if (err)
		return err;
	return edm_port_alloc(&n->port[port]);
}

int edm_fab_link_emu(struct edm_fab_node *a, u32 pa, struct edm_fab_node *b, u32 pb,
		     const struct edm_fab_link_cfg *cfg, struct netlink_ext_ack *extack)
{
	struct edm_fab_link *l;
	int err;

	edm_registry_assert_held(a->net);
	if (a == b) {
		NL_SET_ERR_MSG(extack, "a link joins two different nodes");
		return -EINVAL;
	}
	if (a->net != b->net) {
		NL_SET_ERR_MSG(extack, "emulated links stay in one netns: bind a netdev instead");
		return -EXDEV;
	}
	mutex_lock(&edm_fab_link_mutex);
	err = edm_link_check(a, pa, cfg, extack);
	if (!err)
		err = edm_link_check(b, pb, cfg, extack);
	if (err)
		goto out;
	err = -ENOMEM;
	l = edm_link_alloc();
	if (!l)
		goto out;
	l->end[0] = &a->port[pa];
	l->end[1] = &b->port[pb];
	edm_port_attach(l->end[0], l, cfg, EDM_BURST_BLOCKS);
	edm_port_attach(l->end[1], l, cfg, EDM_BURST_BLOCKS);
	err = 0;
out:
	mutex_unlock(&edm_fab_link_mutex);
	return err;
}

int edm_fab_link_bind(struct edm_fab_node *n, u32 port, struct net_device *dev,
		      const u8 *peer_mac, const struct edm_fab_link_cfg *cfg,
		      struct netlink_ext_ack *extack)
{
	struct edm_fab_link *l;
	int err;

	edm_registry_assert_held(n->net);
	if (dev->type != ARPHRD_ETHER || dev->flags & IFF_LOOPBACK) {
		NL_SET_ERR_MSG(extack, "EDM over Ethernet needs an Ethernet netdev");
		return -EINVAL;
	}
	if (dev->mtu < EDM_FAB_ETH_MIN_MTU) {
		NL_SET_ERR_MSG(extack, "the netdev's MTU must be at least 1280");
		return -EINVAL;
	}
	mutex_lock(&edm_fab_link_mutex);
	err = edm_link_check(n, port, cfg, extack);
	if (err)
		goto out;
	err = -ENOMEM;
	l = edm_link_alloc();
	if (!l)
		goto out;
	l->end[0] = &n->port[port];
	l->eth = edm_fab_eth_bind(l->end[0], dev, peer_mac);
	if (IS_ERR(l->eth)) {
		err = PTR_ERR(l->eth);
		kfree(l);
		NL_SET_ERR_MSG(extack, "could not bind the netdev");
		goto out;
	}
	/* a burst must fit the netdev's MTU: whole groups of eight blocks */
	edm_port_attach(l->end[0], l, cfg,
			min_t(u32, EDM_BURST_BLOCKS, (dev->mtu - sizeof(struct edm_burst_hdr)) /
				   EDM_PCS_GROUP_BYTES * EDM_PCS_GROUP));
	err = 0;
out:
	mutex_unlock(&edm_fab_link_mutex);
	return err;
}

/* Under the link mutex: cut both ends, wait for senders, free. */
static void edm_link_free(struct edm_fab_link *l)
{
	int i;

	lockdep_assert_held(&edm_fab_link_mutex);
	for (i = 0; i < 2; i++)
		if (l->end[i])
			edm_port_detach(l->end[i]);
	if (l->eth)
		edm_fab_eth_unbind(l->eth);	/* waits for receivers */
	synchronize_net();		/* and for senders */
	for (i = 0; i < 2; i++) {
		hrtimer_cancel(&l->wire[i].timer);
		skb_queue_purge(&l->wire[i].q);
	}
	kfree(l);
}

int edm_fab_link_del(struct edm_fab_node *n, u32 port, struct netlink_ext_ack *extack)
{
	struct edm_fab_link *l;

	edm_registry_assert_held(n->net);
	if (port >= n->nports) {
		NL_SET_ERR_MSG(extack, "the node has no such port");
		return -ERANGE;
	}
	mutex_lock(&edm_fab_link_mutex);
	l = rcu_dereference_protected(n->port[port].link, lockdep_is_held(&edm_fab_link_mutex));
	if (l)
		edm_link_free(l);
	mutex_unlock(&edm_fab_link_mutex);
	if (!l) {
		NL_SET_ERR_MSG(extack, "the port is not linked");
		return -ENOENT;
	}
	return 0;
}

void edm_fab_node_unlink_all(struct edm_fab_node *n)
{
	struct edm_fab_link *l;
	u32 i;

	mutex_lock(&edm_fab_link_mutex);
	for (i = 0; i < n->nports; i++) {
		l = rcu_dereference_protected(n->port[i].link,
					      lockdep_is_held(&edm_fab_link_mutex));
		if (l)
			edm_link_free(l);
	}
	mutex_unlock(&edm_fab_link_mutex);
}

/* The bound netdev is going away (RTNL and the link mutex held). */
void edm_fab_link_lost(struct edm_fab_port *p)
{
	struct edm_fab_link *l;

	ASSERT_RTNL();
	lockdep_assert_held(&edm_fab_link_mutex);
	l = rcu_dereference_protected(p->link, lockdep_is_held(&edm_fab_link_mutex));
	if (l)
		edm_link_free(l);
}

/* Any set brings a disabled end back up, with a fresh PHY. */
int edm_fab_link_set(struct edm_fab_node *n, u32 port, const struct edm_fab_link_cfg *cfg,
		     u32 corrupt, struct netlink_ext_ack *extack)
{
	struct edm_fab_port *p;
	int err = 0;

	edm_registry_assert_held(n->net);
	if (port >= n->nports) {
		NL_SET_ERR_MSG(extack, "the node has no such port");
		return -ERANGE;
	}
	err = edm_link_cfg_check(cfg, extack);
	if (err)
		return err;
	p = &n->port[port];
	mutex_lock(&edm_fab_link_mutex);
	spin_lock_bh(&n->lock);
	if (!rcu_access_pointer(p->link)) {
		NL_SET_ERR_MSG(extack, "the port is not linked");
		err = -ENOENT;
	} else {
		p->cfg = *cfg;
		if (p->state == EDM_FLINK_DOWN) {
			edm_port_phy_reset(p);
			p->state = EDM_FLINK_UP;
			edm_fab_netdev_carrier(n, true);
		}
		edm_pcs_sherr_init(&p->sherr, cfg->sherr_threshold, EDM_PCS_SHERR_WINDOW);
		p->corrupt = corrupt;
	}
	spin_unlock_bh(&n->lock);
	mutex_unlock(&edm_fab_link_mutex);
	return err;
}

int edm_fab_link_info(struct edm_fab_node *n, u32 port, struct edm_fab_link_info *info)
{
	struct edm_fab_port *p, *peer;
	struct edm_fab_link *l;

	edm_registry_assert_held(n->net);
	if (port >= n->nports)
		return -ERANGE;
	memset(info, 0, sizeof(*info));
	p = &n->port[port];
	mutex_lock(&edm_fab_link_mutex);
	l = rcu_dereference_protected(p->link, lockdep_is_held(&edm_fab_link_mutex));
	if (l) {
		info->linked = true;
		if (!l->eth) {
			peer = l->end[0] == p ? l->end[1] : l->end[0];
			strscpy(info->peer, peer->node->name, sizeof(info->peer));
			info->peer_port = peer->index;
		}
	}
	spin_lock_bh(&n->lock);
	info->state = p->state;
	info->cfg = p->cfg;
	info->stats = p->stats;
	spin_unlock_bh(&n->lock);
	if (l && l->eth)
		edm_fab_eth_info(l->eth, info);
	mutex_unlock(&edm_fab_link_mutex);
	return 0;
}
