// SPDX-License-Identifier: GPL-2.0
/*
 * The EDM switch (paper 3.1, 3.2.2): notifications go to the PIM scheduler
 * (fabric/sched.c), each grant goes out as a /G/ to the port that
 * sends the chunk, and the blocks of granted messages are forwarded whole to
 * their destination port without looking at their data.
 *
 * An RREQ or RMWREQ is its own notification (for the RRES that answers it):
 * the switch keeps its blocks until the first grant and then forwards them to
 * the memory node, followed by a /G/ for the first chunk. A notification the
 * scheduler cannot take yet (X already active for the pair, or an id still
 * in use) waits in its pair's overflow queue, in order, and is offered again
 * when a grant to that pair may have freed a place; a notification never
 * overtakes an earlier one of its pair.
 *
 * The scheduler models each link at its line rate; a real link may drain
 * slower (a netdev under link-level retry, under TCG). Before it steps, the
 * switch holds back from the scheduler every port with more than
 * EDM_MUX_HOLD_BLOCKS waiting to go out (holds), and polls again while
 * one is held; what was granted before the hold waits in the port's spill
 * list (fabric/mux.c), bounded but far from full: a chunk granted is a
 * chunk forwarded.
 *
 * Ordinary Ethernet frames are switched store-and-forward with a small MAC
 * learning table.
 *
 * Locking: everything under node->lock; the release timer only kicks the poll.
 */
#include <linux/etherdevice.h>
#include <linux/hrtimer.h>
#include <linux/jhash.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "edm/compat.h"
#include "fab.h"
#include "trace.h"

enum {
	EDM_SW_OVERFLOW_MAX	= 4096,
	EDM_SW_MACS		= 256,
	EDM_SW_REQ_BLOCKS	= EDM_RMWREQ_BYTES / 8 + 2,	/* an RMWREQ's: /MS/, data, /MT/ */
	EDM_SW_ROUNDS		= 16,		/* scheduler steps per poll */
};

struct edm_sw_req {
	struct edm_pcs_block b[EDM_SW_REQ_BLOCKS];
	u8 n;
	u16 src, dst;
};

struct edm_sw_pending {
	struct list_head list;		/* on its edm_sw_ovfq */
	struct edm_sched_notif notif;
};

/* The notifications of one (data source, data destination) pair waiting. */
struct edm_sw_ovfq {
	struct list_head list;
};

struct edm_sw_mac {
	u8 addr[ETH_ALEN];
	u16 port;
	bool valid;
};

struct edm_fab_switch {
	struct edm_fab_node *node;
	struct edm_sched *sched;
	struct edm_sched_grant *grants;		/* [nports] */
	struct xarray reqs;			/* edm_sw_req_key() -> edm_sw_req; ALLOC */
	struct xarray overflow;			/* pair key -> edm_sw_ovfq */
	u32 noverflow;				/* notifications in all of them */
	struct hrtimer release;
	bool stopped;
	struct edm_sw_mac mac[EDM_SW_MACS];
	u64 fwd_msgs, fwd_frames, drops;
	u64 holds;				/* times a port was held back */
};

static struct edm_fab_switch *to_sw(const struct edm_fab_node *n)
{
	return n->sw;
}

static u64 edm_sw_now_ps(void)
{
	return edm_fab_now_ns() * 1000;
}

static bool edm_sw_port_ok(struct edm_fab_switch *sw, u32 port)
{
	return port < sw->node->nports && edm_fab_port_up(&sw->node->port[port]);
}

/* The scheduler's pair of a notification: who sends the data to whom. */
static unsigned long edm_sw_pair_key(const struct edm_fab_switch *sw, u32 src, u32 dst)
{
	return (unsigned long)src * sw->node->nports + dst;
}

/*
 * A request waiting for its first grant. Message ids are the requester's per
 * destination, so one requester may have the same id pending at several
 * memory nodes: the key names the requester, the memory node and the id.
 */
static unsigned long edm_sw_req_key(const struct edm_fab_switch *sw, u32 requester,
				    u32 memnode, u8 id)
{
	return edm_sw_pair_key(sw, requester, memnode) << 8 | id;
}

static unsigned long edm_sw_notif_key(const struct edm_fab_switch *sw,
				      const struct edm_sched_notif *nt)
{
	if (nt->kind == EDM_SCHED_WRITE)
		return edm_sw_pair_key(sw, nt->port, nt->peer);
	return edm_sw_pair_key(sw, nt->peer, nt->port);
}

static void edm_sw_ovfq_free(struct edm_fab_switch *sw, unsigned long key,
			     struct edm_sw_ovfq *q)
{
	struct edm_sw_pending *pd, *tmp;

	list_for_each_entry_safe(pd, tmp, &q->list, list) {
		sw->noverflow--;
		kfree(pd);
	}
	xa_erase(&sw->overflow, key);
	kfree(q);
}

static int edm_sw_ovf_add(struct edm_fab_switch *sw, unsigned long key,
			  const struct edm_sched_notif *nt)
{
	struct edm_sw_pending *pd;
	struct edm_sw_ovfq *q;

	if (sw->noverflow >= EDM_SW_OVERFLOW_MAX)
		return -ENOSPC;
	pd = kmalloc(sizeof(*pd), GFP_ATOMIC);
	if (!pd)
		return -ENOMEM;
	pd->notif = *nt;
	q = xa_load(&sw->overflow, key);
	if (!q) {
		q = kmalloc(sizeof(*q), GFP_ATOMIC);
		if (!q || xa_err(xa_store(&sw->overflow, key, q, GFP_ATOMIC))) {
			kfree(q);
			kfree(pd);
			return -ENOMEM;
		}
		INIT_LIST_HEAD(&q->list);
	}
	list_add_tail(&pd->list, &q->list);
	sw->noverflow++;
	return 0;
}

/* False when the notification was dropped (and counted). */
static bool edm_sw_notify(struct edm_fab_switch *sw, const struct edm_sched_notif *nt)
{
	unsigned long key = edm_sw_notif_key(sw, nt);
	int err = -ENOSPC;

	/* behind its pair's waiting ones, or it would overtake them */
	if (!xa_load(&sw->overflow, key))
		err = edm_sched_notify(sw->sched, nt);
	if (!err)
		return true;
	if ((err != -ENOSPC && err != -EEXIST) || edm_sw_ovf_add(sw, key, nt)) {
		sw->drops++;
		return false;
	}
	return true;
}

/* A grant to the pair may have ended a notification: offer it the next ones. */
static void edm_sw_ovf_drain(struct edm_fab_switch *sw, u32 src, u32 dst)
{
	unsigned long key = edm_sw_pair_key(sw, src, dst);
	struct edm_sw_pending *pd, *tmp;
	struct edm_sw_ovfq *q;
	int err;

	q = xa_load(&sw->overflow, key);
	if (!q)
		return;
	list_for_each_entry_safe(pd, tmp, &q->list, list) {
		err = edm_sched_notify(sw->sched, &pd->notif);
		if (err == -ENOSPC || err == -EEXIST)
			return;
		if (err)	/* queued unchecked behind others: never valid */
			sw->drops++;
		list_del(&pd->list);
		sw->noverflow--;
		kfree(pd);
	}
	edm_sw_ovfq_free(sw, key, q);
}

/* A request waits here for its first grant. */
static void edm_sw_req(struct edm_fab_switch *sw, struct edm_fab_port *p,
		       const struct edm_pcs_msg_hdr *hdr)
{
	struct edm_sched_notif nt = {
		.port = hdr->src, .peer = hdr->dest, .msg_id = hdr->id,
	};
	unsigned long key = edm_sw_req_key(sw, hdr->src, hdr->dest, hdr->id);
	struct edm_sw_req *r, *old;
	u8 word[8];			/* an RREQ's first word: its length */
	u32 len;

	if (p->run_len > EDM_SW_REQ_BLOCKS)
		goto drop;
	if (hdr->kind == EDM_PCS_RREQ) {
		if (hdr->len != EDM_RREQ_BYTES)
			goto drop;
		edm_pcs_data_unpack(&p->run[1], word);
		len = edm_rreq_len(get_unaligned_le64(word));
		nt.kind = EDM_SCHED_READ;
		nt.bytes = len ? len : 8;
	} else {
		nt.kind = EDM_SCHED_RMW;
		nt.bytes = 8;
	}
	r = kmalloc(sizeof(*r), GFP_ATOMIC);
	if (!r)
		goto drop;
	memcpy(r->b, p->run, p->run_len * sizeof(*p->run));
	r->n = p->run_len;
	r->src = hdr->src;
	r->dst = hdr->dest;
	old = xa_store(&sw->reqs, key, r, GFP_ATOMIC);
	if (xa_is_err(old)) {
		kfree(r);
		goto drop;
	}
	kfree(old);	/* a request never granted (its requester timed out): reused id */
	/* a request the scheduler will never grant must not stay here */
	if (!edm_sw_notify(sw, &nt))
		kfree(edm_xa_take(&sw->reqs, key));
	return;
drop:
	sw->drops++;
}

/* A whole message arrived on port p: buffer it or forward it. */
static void edm_sw_run(struct edm_fab_switch *sw, struct edm_fab_port *p)
{
	struct edm_pcs_msg_hdr hdr;
	u8 tiny[EDM_PCS_MST_MAX];
	int err;

	if (p->run_len == 1)
		err = edm_pcs_mst_unpack(&p->run[0], &hdr, tiny);
	else
		err = edm_pcs_ms_unpack(&p->run[0], &hdr);
	/* a host may only speak for itself */
	if (err || hdr.src != p->index || hdr.dest == hdr.src ||
	    !edm_sw_port_ok(sw, hdr.dest)) {
		sw->drops++;
		return;
	}
	if (hdr.kind == EDM_PCS_RREQ || hdr.kind == EDM_PCS_RMWREQ) {
		edm_sw_req(sw, p, &hdr);
		return;
	}
	/* WREQ, RRES, RERR: the granted circuit to dest */
	if (edm_mux_put_blocks(&sw->node->port[hdr.dest], p->run, p->run_len))
		sw->drops++;
	else
		sw->fwd_msgs++;
}

static void edm_sw_rx_notify(struct edm_fab_switch *sw, struct edm_fab_port *p,
			     const struct edm_pcs_block *b)
{
	struct edm_sched_notif nt = { .port = p->index, .kind = EDM_SCHED_WRITE };
	struct edm_pcs_ng ng;

	if (edm_pcs_notify_unpack(b, &ng) || !edm_sw_port_ok(sw, ng.dest) || !ng.size) {
		sw->drops++;
		return;
	}
	nt.peer = ng.dest;
	nt.msg_id = ng.id;
	nt.bytes = ng.size;
	edm_sw_notify(sw, &nt);
}

/* Frames */

static struct edm_sw_mac *edm_sw_mac_slot(struct edm_fab_switch *sw, const u8 *addr)
{
	u32 h = jhash(addr, ETH_ALEN, 0) % EDM_SW_MACS;

	return &sw->mac[h];
}

static void edm_sw_frame_out(struct edm_fab_switch *sw, u32 port, const u8 *f, u32 len)
{
	struct sk_buff *skb;

	if (!edm_sw_port_ok(sw, port))
		return;
	skb = alloc_skb(len, GFP_ATOMIC);
	if (!skb) {
		sw->drops++;
		return;
	}
	skb_put_data(skb, f, len);
	if (!edm_mux_put_frame(&sw->node->port[port], skb))
		sw->fwd_frames++;
}

static void edm_sw_frame(struct edm_fab_switch *sw, struct edm_fab_port *p, u32 len)
{
	const u8 *f = p->dec.frame;
	struct edm_sw_mac *m;
	u32 i;

	if (len < ETH_HLEN) {
		sw->drops++;
		return;
	}
	if (is_valid_ether_addr(f + ETH_ALEN)) {
		m = edm_sw_mac_slot(sw, f + ETH_ALEN);
		ether_addr_copy(m->addr, f + ETH_ALEN);
		m->port = p->index;
		m->valid = true;
	}
	m = edm_sw_mac_slot(sw, f);
	if (is_unicast_ether_addr(f) && m->valid && ether_addr_equal(m->addr, f)) {
		if (m->port != p->index)
			edm_sw_frame_out(sw, m->port, f, len);
		return;
	}
	for (i = 0; i < sw->node->nports; i++)
		if (i != p->index)
			edm_sw_frame_out(sw, i, f, len);
}

static void edm_sw_rx_frame_block(struct edm_fab_switch *sw, struct edm_fab_port *p,
				  const struct edm_pcs_block *b)
{
	struct edm_pcs_event ev;

	if (edm_pcs_dec_block(&p->dec, b, &ev)) {
		p->stats.rx_bad++;
		return;
	}
	if (ev.type == EDM_PCS_EV_FRAME)
		edm_sw_frame(sw, p, ev.len);
}

/* Receive: blocks of one burst from port p */

static void edm_sw_run_block(struct edm_fab_switch *sw, struct edm_fab_port *p,
			     const struct edm_pcs_block *b)
{
	enum edm_pcs_class c = edm_pcs_classify(b);

	if (c == EDM_PCS_K_MT || c == EDM_PCS_K_DATA) {
		if (p->run_len < EDM_RUN_MAX)
			p->run[p->run_len++] = *b;
		else
			p->run_drop = true;
		if (c != EDM_PCS_K_MT)
			return;
		p->in_run = false;
		if (p->run_drop)
			sw->drops++;
		else
			edm_sw_run(sw, p);
		return;
	}
	/* /N/ and /G/ may sit inside a run; anything else ends it badly */
	if (c == EDM_PCS_K_NOTIFY) {
		edm_sw_rx_notify(sw, p, b);
		return;
	}
	p->in_run = false;
	p->stats.rx_bad++;
}

void edm_fab_switch_rx(struct edm_fab_port *p, const struct edm_pcs_block *b, u32 n)
{
	struct edm_fab_switch *sw = to_sw(p->node);
	u32 i;

	for (i = 0; i < n; i++) {
		if (p->in_run) {
			edm_sw_run_block(sw, p, &b[i]);
			continue;
		}
		switch (edm_pcs_classify(&b[i])) {
		case EDM_PCS_K_MS:
			p->in_run = true;
			p->run_drop = false;
			p->run[0] = b[i];
			p->run_len = 1;
			break;
		case EDM_PCS_K_MST:
			p->run[0] = b[i];
			p->run_len = 1;
			edm_sw_run(sw, p);
			break;
		case EDM_PCS_K_NOTIFY:
			edm_sw_rx_notify(sw, p, &b[i]);
			break;
		case EDM_PCS_K_GRANT:	/* only the switch grants */
		case EDM_PCS_K_MT:
			sw->drops++;
			break;
		case EDM_PCS_K_BAD:
		case EDM_PCS_K_UNSUPP:
			p->stats.rx_bad++;
			break;
		default:
			edm_sw_rx_frame_block(sw, p, &b[i]);
		}
	}
}

/* Scheduling */

/*
 * Send one grant: a /G/ to the port that sends the chunk, behind the request
 * it answers on a first grant. Whatever is lost here is counted and ends in
 * the requester's timeout; the pair's waiting notifications are offered
 * again in every case, or a pair whose grant found nothing to send would
 * keep its overflow queue, and so every later notification, for good.
 */
static void edm_sw_grant(struct edm_fab_switch *sw, const struct edm_sched_grant *g)
{
	struct edm_fab_port *out = &sw->node->port[g->src];
	struct edm_pcs_ng ng = { .dest = g->dst, .id = g->msg_id, .size = g->bytes };
	struct edm_sw_req *r;

	trace_edm_fab_grant(sw->node->name, g->src, g->dst, g->msg_id, g->bytes);
	if (g->kind != EDM_SCHED_WRITE && g->flags & EDM_SCHED_GRANT_FIRST) {
		/* a read's data goes from the memory node (src) to the requester */
		r = edm_xa_take(&sw->reqs, edm_sw_req_key(sw, g->dst, g->src, g->msg_id));
		if (!r || edm_mux_put_blocks(out, r->b, r->n)) {
			/* a /G/ without its request would only be stray */
			sw->drops++;
			kfree(r);
			goto drain;
		}
		kfree(r);
	}
	if (edm_mux_put_ng(out, true, &ng))
		sw->drops++;
drain:
	edm_sw_ovf_drain(sw, g->src, g->dst);
}

static enum hrtimer_restart edm_sw_release(struct hrtimer *t)
{
	struct edm_fab_switch *sw = container_of(t, struct edm_fab_switch, release);

	napi_schedule(&sw->node->napi);
	return HRTIMER_NORESTART;
}

/*
 * Hold back the ports whose egress is backed up, let go the others.
 * Returns whether one is held: the node polls again soon to look again.
 */
static bool edm_sw_hold_ports(struct edm_fab_switch *sw)
{
	struct edm_fab_node *n = sw->node;
	bool held, any = false;
	u32 i;

	for (i = 0; i < n->nports; i++) {
		held = edm_mux_backlog(&n->port[i].mux) > EDM_MUX_HOLD_BLOCKS;
		if (held && !edm_sched_held(sw->sched, i))
			sw->holds++;
		edm_sched_hold(sw->sched, i, held);
		any |= held;
	}
	return any;
}

/* Returns when the node must poll again for a held port, or U64_MAX. */
u64 edm_fab_switch_poll(struct edm_fab_node *n)
{
	struct edm_fab_switch *sw = to_sw(n);
	u64 due = U64_MAX, next;
	u32 round;
	int i, k;

	if (edm_sw_hold_ports(sw))
		due = edm_fab_now_ns() + EDM_LLR_TICK_NS;
	/*
	 * A chunk keeps its links busy for its time at the modeled rate, which
	 * is usually over before software gets back here: step again at once
	 * while that is so, and leave the rest to the release timer.
	 */
	for (round = 0; round < EDM_SW_ROUNDS; round++) {
		k = edm_sched_step(sw->sched, edm_sw_now_ps(), sw->grants, n->nports);
		for (i = 0; i < k; i++)
			edm_sw_grant(sw, &sw->grants[i]);
		if (sw->stopped || !sw->sched->stats.depth)
			return due;
		next = edm_sched_next_release(sw->sched);
		if (next == ~0ULL)
			return due;
		if (next > edm_sw_now_ps())
			break;
	}
	hrtimer_start(&sw->release, ns_to_ktime(div_u64(next, 1000) + 1), HRTIMER_MODE_ABS_SOFT);
	return due;
}

/* Under the node lock: forget what the port had asked or was owed. */
void edm_fab_switch_port_down(struct edm_fab_node *n, u32 port)
{
	struct edm_fab_switch *sw = to_sw(n);
	struct edm_sw_ovfq *q;
	struct edm_sw_req *r;
	unsigned long key;

	lockdep_assert_held(&n->lock);
	edm_sched_flush_port(sw->sched, port);
	xa_for_each(&sw->reqs, key, r) {
		if (r->src == port || r->dst == port) {
			xa_erase(&sw->reqs, key);
			kfree(r);
		}
	}
	xa_for_each(&sw->overflow, key, q) {
		if (key / n->nports == port || key % n->nports == port)
			edm_sw_ovfq_free(sw, key, q);
	}
	n->port[port].in_run = false;
}

int edm_fab_switch_set(struct edm_fab_node *n, const u32 *policy, const u32 *chunk,
		       struct netlink_ext_ack *extack)
{
	struct edm_fab_switch *sw;
	int err = 0;

	if (edm_fab_node_is_host(n)) {
		NL_SET_ERR_MSG(extack, "policy and chunk are switch settings");
		return -EOPNOTSUPP;
	}
	if (chunk && (*chunk < EDM_FAB_CHUNK_MIN || *chunk > EDM_FAB_CHUNK_MAX)) {
		NL_SET_ERR_MSG(extack, "chunk must be 8..65519 bytes");
		return -ERANGE;
	}
	sw = to_sw(n);
	spin_lock_bh(&n->lock);
	if (policy)
		err = edm_sched_set_policy(sw->sched, *policy);
	if (!err && chunk)
		err = edm_sched_set_chunk(sw->sched, *chunk);
	if (!err) {
		if (policy)
			n->cfg.policy = *policy;
		if (chunk)
			n->cfg.chunk = *chunk;
	}
	spin_unlock_bh(&n->lock);
	if (err)
		NL_SET_ERR_MSG(extack, "the scheduler refused the setting");
	return err;
}

void edm_fab_switch_stats(struct edm_fab_node *n, struct edm_fab_node_stats *st)
{
	struct edm_fab_switch *sw = to_sw(n);
	const struct edm_sched_stats *s = &sw->sched->stats;

	lockdep_assert_held(&n->lock);
	memset(st, 0, sizeof(*st));
	st->v[EDM_A_FSTAT_SCHED_NOTIFS] = s->notifications;
	st->v[EDM_A_FSTAT_SCHED_REJECTED] = s->rejected;
	st->v[EDM_A_FSTAT_GRANTS] = s->grants;
	st->v[EDM_A_FSTAT_GRANT_BYTES] = s->grant_bytes;
	st->v[EDM_A_FSTAT_MATCHINGS] = s->matchings;
	st->v[EDM_A_FSTAT_ITERATIONS] = s->iterations;
	st->v[EDM_A_FSTAT_ITER_MAX] = s->iterations_max;
	st->v[EDM_A_FSTAT_MATCHING_MAX] = s->matching_max;
	st->v[EDM_A_FSTAT_DEPTH] = s->depth + sw->noverflow;
	st->v[EDM_A_FSTAT_DEPTH_MAX] = s->depth_max;
	st->v[EDM_A_FSTAT_FWD_MSGS] = sw->fwd_msgs;
	st->v[EDM_A_FSTAT_FWD_FRAMES] = sw->fwd_frames;
	st->v[EDM_A_FSTAT_DROPS] = sw->drops;
	st->v[EDM_A_FSTAT_HOLDS] = sw->holds;
}

/* Lifetime */

int edm_fab_switch_create(struct edm_fab_node *n)
{
	struct edm_sched_cfg sc = {
		.nports = n->cfg.nports, .x = n->cfg.x, .chunk = n->cfg.chunk,
		.rate_mbps = n->cfg.rate_mbps, .policy = n->cfg.policy,
	};
	struct edm_fab_switch *sw;
	int err = -ENOMEM;

	if (n->cfg.chunk > EDM_FAB_CHUNK_MAX)
		return -ERANGE;
	sw = kzalloc(sizeof(*sw), GFP_KERNEL);
	if (!sw)
		return -ENOMEM;
	sw->sched = vzalloc(edm_sched_size(sc.nports, sc.x));
	sw->grants = kcalloc(sc.nports, sizeof(*sw->grants), GFP_KERNEL);
	if (!sw->sched || !sw->grants)
		goto err;
	err = edm_sched_init(sw->sched, &sc);
	if (err)
		goto err;
	sw->node = n;
	xa_init_flags(&sw->reqs, XA_FLAGS_ALLOC);	/* for edm_xa_take() */
	xa_init(&sw->overflow);
	hrtimer_init(&sw->release, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	sw->release.function = edm_sw_release;
	n->sw = sw;
	return 0;
err:
	kfree(sw->grants);
	vfree(sw->sched);
	kfree(sw);
	return err;
}

void edm_fab_switch_stop(struct edm_fab_node *n)
{
	struct edm_fab_switch *sw = to_sw(n);

	spin_lock_bh(&n->lock);
	sw->stopped = true;
	spin_unlock_bh(&n->lock);
	hrtimer_cancel(&sw->release);
}

void edm_fab_switch_free(struct edm_fab_node *n)
{
	struct edm_fab_switch *sw = to_sw(n);
	struct edm_sw_ovfq *q;
	struct edm_sw_req *r;
	unsigned long key;

	if (!sw)
		return;
	xa_for_each(&sw->reqs, key, r)
		kfree(r);
	xa_destroy(&sw->reqs);
	xa_for_each(&sw->overflow, key, q)
		edm_sw_ovfq_free(sw, key, q);
	xa_destroy(&sw->overflow);
	kfree(sw->grants);
	vfree(sw->sched);
	kfree(sw);
}
