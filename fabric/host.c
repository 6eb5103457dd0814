// SPDX-License-Identifier: GPL-2.0
/*
 * The EDM host stack (paper 3.2.1). A fabric host is a requester (the ops it
 * issues to memory nodes: fabric/requester.c) and, when it has a region, a
 * memory node that serves it (fabric/responder.c; the region's key and the
 * list of regions: fabric/region.c). This file holds what the two share: the
 * node kind's hooks (receive, poll, stats), the grant queue and the host's
 * lifetime.
 *
 * Messages (payloads little endian):
 *   /N/ {dest, id, size}       a WREQ of size bytes wants to go to dest
 *   WREQ {addr:48 | flags:16, key, data}  one granted chunk of a write
 *   RREQ {addr:48 | len:16, key}  read len bytes (len 0: the region size)
 *   RMWREQ {addr:48 | op:8, arg0:8, arg1:8, key}
 *   RRES {data}                one granted chunk of the answer
 *   RERR {code:1}              the request was refused (NACK): EDM_RERR_*
 *   WACK {end:48 | WHOLE, RANGE, KEY, GONE bits}  an acknowledged write
 *                              arrived whole, or not, or was refused
 * (fab.h has the layouts.)
 * Ids 0..127 are writes, 128..255 reads and RMWs: a /G/ a host receives is
 * for its own write or for a request it serves, and the id tells which.
 *
 * Locking: everything under node->lock; done() callbacks run in the poll
 * after the lock is dropped. The node's tick (timeouts) and submitters kick
 * the poll.
 */
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/xarray.h>

#include "fab.h"
#include "trace.h"

/* Grants: send a write's chunk, or a served request's answer */

static void edm_host_grants(struct edm_fab_host *h)
{
	struct edm_gq_ent *g;

	while (h->gq_head != h->gq_tail) {
		/* room, on the port it came on, for the largest chunk it may ask */
		g = &h->gq[h->gq_head % EDM_HOST_GQ];
		if (edm_mux_space(&h->node->port[g->port].mux) <
		    edm_pcs_msg_nblocks(min_t(u32, g->size + 8, EDM_PCS_MSG_MAX)))
			return;
		h->gq_head++;
		if (g->id < EDM_HOST_RD_ID0)
			edm_host_write_chunk(h, g);
		else
			edm_host_serve_chunk(h, g);
	}
}

/* Receive */

static void edm_host_rx_msg(struct edm_fab_host *h, const struct edm_pcs_msg_hdr *hdr,
			    const u8 *pl)
{
	if (hdr->dest != h->addr) {
		h->st[EDM_A_FSTAT_STRAY]++;
		return;
	}
	if (hdr->kind != EDM_PCS_RRES && hdr->kind != EDM_KIND_RERR &&
	    hdr->kind != EDM_KIND_WACK)
		trace_edm_fab_serve(h->node->name, hdr->src, hdr->dest, hdr->id, hdr->len);
	switch (hdr->kind) {
	case EDM_PCS_RREQ:
		edm_host_rx_rreq(h, hdr, pl);
		break;
	case EDM_PCS_RMWREQ:
		edm_host_rx_rmw(h, hdr, pl);
		break;
	case EDM_PCS_WREQ:
		edm_host_rx_wreq(h, hdr, pl);
		break;
	case EDM_PCS_RRES:
		edm_host_rx_rres(h, hdr, pl);
		break;
	case EDM_KIND_RERR:
		edm_host_rx_rerr(h, hdr, pl);
		break;
	case EDM_KIND_WACK:
		edm_host_rx_wack(h, hdr, pl);
		break;
	default:
		h->st[EDM_A_FSTAT_STRAY]++;
	}
}

static void edm_host_rx_grant(struct edm_fab_host *h, const struct edm_pcs_ng *ng)
{
	struct edm_gq_ent *g;

	h->st[EDM_A_FSTAT_GRANTS_RX]++;
	if (h->gq_tail - h->gq_head >= EDM_HOST_GQ) {
		h->st[EDM_A_FSTAT_STRAY]++;
		return;
	}
	g = &h->gq[h->gq_tail++ % EDM_HOST_GQ];
	g->dest = ng->dest;
	g->id = ng->id;
	g->port = h->rx_port->index;
	g->size = ng->size;
}

void edm_fab_host_rx(struct edm_fab_port *p, const struct edm_pcs_block *b, u32 n)
{
	struct edm_fab_host *h = to_host(p->node);
	struct edm_pcs_event ev;
	u32 i;

	lockdep_assert_held(&p->node->lock);
	edm_host_pick(h);	/* before anything is answered on a port that is gone */
	h->rx_port = p;
	for (i = 0; i < n; i++) {
		if (edm_pcs_dec_block(&p->dec, &b[i], &ev)) {
			p->stats.rx_bad++;
			continue;
		}
		switch (ev.type) {
		case EDM_PCS_EV_MSG:
			edm_host_rx_msg(h, &ev.hdr, p->dec.msg);
			break;
		case EDM_PCS_EV_GRANT:
			edm_host_rx_grant(h, &ev.ng);
			break;
		case EDM_PCS_EV_FRAME:
			edm_fab_netdev_rx(p->node, p->dec.frame, ev.len);
			break;
		case EDM_PCS_EV_NOTIFY:
			h->st[EDM_A_FSTAT_STRAY]++;
			break;
		default:
			break;
		}
	}
}

/* Returns when an op times out or a resting id frees (the tick polls then), or U64_MAX. */
u64 edm_fab_host_poll(struct edm_fab_node *n)
{
	struct edm_fab_host *h = to_host(n);
	bool rested = false;
	u64 wake, due;

	lockdep_assert_held(&n->lock);
	edm_host_pick(h);
	edm_host_grants(h);
	/* issue first: an op that can go now does, before its dispatch bound ends it */
	wake = edm_host_issue(h);
	due = edm_host_expire(h, edm_fab_now_ns(), &rested);
	/*
	 * Ids of ops that just timed out rest: the queue is looked at again to
	 * learn when they free. Without it nothing polled then, and the ops
	 * queued behind them waited for their own queued deadline, ten timeouts.
	 */
	if (rested)
		wake = min(wake, edm_host_issue(h));
	return min(wake, due);
}

u32 edm_fab_host_addr(const struct edm_fab_node *n)
{
	return to_host(n)->addr;
}

int edm_fab_host_minor(const struct edm_fab_node *n)
{
	return to_host(n)->minor;
}

void edm_fab_host_set_cdev(struct edm_fab_node *n, void *cdev, int minor)
{
	to_host(n)->cdev = cdev;
	to_host(n)->minor = minor;
}

void *edm_fab_host_cdev(const struct edm_fab_node *n)
{
	return to_host(n)->cdev;
}

void edm_fab_host_stats(struct edm_fab_node *n, struct edm_fab_node_stats *st)
{
	struct edm_fab_host *h = to_host(n);
	struct edm_fab_op *op;
	u64 q = 0, f = 0;

	lockdep_assert_held(&n->lock);
	memcpy(st->v, h->st, sizeof(st->v));
	list_for_each_entry(op, &h->queue, list)
		q++;
	list_for_each_entry(op, &h->inflight, list)
		f++;
	st->v[EDM_A_FSTAT_QUEUED] = q;
	st->v[EDM_A_FSTAT_INFLIGHT] = f;
}

/* Lifetime */

int edm_fab_host_create(struct edm_fab_node *n)
{
	struct edm_fab_host *h;

	h = kvzalloc(sizeof(*h), GFP_KERNEL);
	if (!h)
		return -ENOMEM;
	h->wbuf = kvmalloc(EDM_PCS_MSG_MAX, GFP_KERNEL);
	if (!h->wbuf)
		goto err;
	if (n->cfg.region_size) {
		h->region = vzalloc(n->cfg.region_size);
		if (!h->region)
			goto err;
		h->region_size = n->cfg.region_size;
		/* 0 is the key of an issuer that has none */
		h->region_key = get_random_u64() ?: 1;
		h->region_keyed = n->cfg.keyed;
	}
	h->node = n;
	h->rx_port = &n->port[0];
	h->addr = n->cfg.addr;
	h->minor = -1;
	INIT_LIST_HEAD(&h->queue);
	INIT_LIST_HEAD(&h->inflight);
	INIT_LIST_HEAD(&h->completed);
	/* ALLOC: for edm_xa_take() */
	xa_init_flags(&h->served, XA_FLAGS_ALLOC);
	xa_init_flags(&h->wruns, XA_FLAGS_ALLOC);
	INIT_LIST_HEAD(&h->regions);
	if (h->region)
		edm_fab_regions_add(h);
	n->host = h;
	return 0;
err:
	kvfree(h->wbuf);
	kvfree(h);
	return -ENOMEM;
}

/* Fail every op with ENODEV; the caller runs edm_fab_host_complete(). */
void edm_fab_host_stop(struct edm_fab_node *n)
{
	struct edm_fab_host *h = to_host(n);
	struct edm_fab_op *op, *tmp;

	spin_lock_bh(&n->lock);
	h->stopped = true;
	list_for_each_entry_safe(op, tmp, &h->queue, list)
		edm_op_finish(h, op, -ENODEV);
	list_for_each_entry_safe(op, tmp, &h->inflight, list)
		edm_op_finish(h, op, -ENODEV);
	spin_unlock_bh(&n->lock);
}

void edm_fab_host_free(struct edm_fab_node *n)
{
	struct edm_fab_host *h = to_host(n);
	struct edm_served *s;
	unsigned long key;
	u32 i;

	if (!h)
		return;
	edm_fab_regions_del(h);
	xa_for_each(&h->served, key, s)
		kfree(s);
	xa_destroy(&h->served);
	xa_destroy(&h->wruns);
	for (i = 0; i <= EDM_FAB_ADDR_MAX; i++)
		kfree(h->dst[i]);
	vfree(h->region);
	kvfree(h->wbuf);
	kvfree(h);
}
