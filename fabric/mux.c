// SPDX-License-Identifier: GPL-2.0
/*
 * The TX multiplexer of a PHY port (paper 3.2.3): memory blocks and the
 * blocks of ordinary Ethernet frames share one link at block granularity.
 *
 * Memory messages wait in a FIFO of encoded blocks, frames in an skb queue.
 * A memory message is never interrupted (that is what lets a receiver tell
 * /MD/ from /D/ by position); a frame may be, between any two of its blocks.
 * The policy picks what goes next: FAIR alternates one memory message and one
 * frame block, STRICT sends memory whenever there is some, NONE is the
 * baseline without preemption (memory waits for the end of the frame). With
 * no frame in progress memory always goes: it fills the inter-frame gap.
 *
 * Blocks put while the FIFO has no room wait in a spill list, whole runs
 * in order, and enter the FIFO ahead of anything newer as it drains; past
 * EDM_MUX_SPILL_BLOCKS they are dropped (tx_drops). A switch forwards
 * every chunk it granted here, and holds a backed-up port back from its
 * scheduler (edm_mux_backlog()), so the list only absorbs the chunks
 * already granted when it did: a link slower than its modeled rate (a
 * netdev under link-level retry) loses nothing.
 *
 * Called under the owning node's lock; no locking of its own.
 */
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/mm.h>

#include "fab.h"

#define EDM_MUX_MASK	(EDM_MUX_FIFO_BLOCKS - 1)

/* A run that found the FIFO full. */
struct edm_mux_spill {
	struct list_head node;
	u32 n;
	struct edm_pcs_block b[];
};

int edm_mux_init(struct edm_mux *m)
{
	BUILD_BUG_ON(EDM_MUX_FIFO_BLOCKS & EDM_MUX_MASK);
	m->mem = kvmalloc_array(EDM_MUX_FIFO_BLOCKS, sizeof(*m->mem), GFP_KERNEL);
	if (!m->mem)
		return -ENOMEM;
	skb_queue_head_init(&m->frames);
	INIT_LIST_HEAD(&m->spill);
	return 0;
}

void edm_mux_purge(struct edm_mux *m)
{
	struct edm_mux_spill *sp, *tmp;

	list_for_each_entry_safe(sp, tmp, &m->spill, node) {
		list_del(&sp->node);
		kfree(sp);
	}
	m->spill_blocks = 0;
	m->mem_head = m->mem_tail;
	m->in_msg = false;
	m->mem_wait = 0;
	skb_queue_purge(&m->frames);
	kfree_skb(m->frame);
	m->frame = NULL;
}

void edm_mux_uninit(struct edm_mux *m)
{
	edm_mux_purge(m);
	kvfree(m->mem);
	m->mem = NULL;
}

/* Room in the FIFO for a new message: none while runs wait in the spill list. */
u32 edm_mux_space(const struct edm_mux *m)
{
	if (m->spill_blocks)
		return 0;
	return EDM_MUX_FIFO_BLOCKS - (m->mem_tail - m->mem_head);
}

/* Memory blocks waiting to go, in the FIFO and in the spill list. */
u32 edm_mux_backlog(const struct edm_mux *m)
{
	return m->mem_tail - m->mem_head + m->spill_blocks;
}

bool edm_mux_pending(const struct edm_mux *m)
{
	return m->mem_head != m->mem_tail || m->spill_blocks || m->frame ||
	       !skb_queue_empty(&m->frames);
}

int edm_mux_put_msg(struct edm_fab_port *p, const struct edm_pcs_msg_hdr *hdr, const u8 *payload)
{
	struct edm_mux *m = &p->mux;
	u32 i, n;
	int err;

	err = edm_pcs_msg_check(hdr);
	if (err)
		return err;
	n = edm_pcs_msg_nblocks(hdr->len);
	if (edm_mux_space(m) < n) {
		p->stats.tx_drops++;
		return -ENOSPC;
	}
	for (i = 0; i < n; i++)
		edm_pcs_msg_block(hdr, payload, i, &m->mem[(m->mem_tail + i) & EDM_MUX_MASK]);
	m->mem_tail += n;
	return 0;
}

static void edm_mux_fifo_put(struct edm_mux *m, const struct edm_pcs_block *b, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		m->mem[(m->mem_tail + i) & EDM_MUX_MASK] = b[i];
	m->mem_tail += n;
}

/* Move waiting runs into the FIFO, oldest first, while they fit whole. */
static void edm_mux_unspill(struct edm_mux *m)
{
	struct edm_mux_spill *sp, *tmp;

	list_for_each_entry_safe(sp, tmp, &m->spill, node) {
		if (EDM_MUX_FIFO_BLOCKS - (m->mem_tail - m->mem_head) < sp->n)
			return;
		edm_mux_fifo_put(m, sp->b, sp->n);
		m->spill_blocks -= sp->n;
		list_del(&sp->node);
		kfree(sp);
	}
}

/*
 * Whole messages or single /N/ /G/ /MST/ blocks, as a switch forwards them:
 * into the FIFO, or behind it in the spill list.
 */
int edm_mux_put_blocks(struct edm_fab_port *p, const struct edm_pcs_block *b, u32 n)
{
	struct edm_mux *m = &p->mux;
	struct edm_mux_spill *sp;

	if (edm_mux_space(m) >= n) {
		edm_mux_fifo_put(m, b, n);
		return 0;
	}
	if (n > EDM_MUX_FIFO_BLOCKS || m->spill_blocks + n > EDM_MUX_SPILL_BLOCKS)
		goto drop;
	sp = kmalloc(struct_size(sp, b, n), GFP_ATOMIC);
	if (!sp)
		goto drop;
	sp->n = n;
	memcpy(sp->b, b, n * sizeof(*b));
	list_add_tail(&sp->node, &m->spill);
	m->spill_blocks += n;
	p->stats.tx_spilled += n;
	return 0;
drop:
	p->stats.tx_drops++;
	return -ENOSPC;
}

int edm_mux_put_ng(struct edm_fab_port *p, bool grant, const struct edm_pcs_ng *ng)
{
	struct edm_pcs_block b;
	int err;

	err = grant ? edm_pcs_grant_pack(&b, ng) : edm_pcs_notify_pack(&b, ng);
	if (err)
		return err;
	return edm_mux_put_blocks(p, &b, 1);
}

/* Takes the skb, a whole Ethernet frame without FCS. */
int edm_mux_put_frame(struct edm_fab_port *p, struct sk_buff *skb)
{
	struct edm_mux *m = &p->mux;

	if (skb_queue_len(&m->frames) >= EDM_FRAMES_QLEN || skb->len > EDM_FRAME_MAX ||
	    skb_linearize(skb)) {
		p->stats.tx_drops++;
		kfree_skb(skb);
		return -ENOBUFS;
	}
	__skb_queue_tail(&m->frames, skb);
	return 0;
}

static bool edm_mux_frame_ready(struct edm_mux *m)
{
	if (!m->frame) {
		m->frame = __skb_dequeue(&m->frames);
		if (!m->frame)
			return false;
		m->frame_blk = 0;
		m->frame_nblk = edm_pcs_frame_nblocks(m->frame->len);
	}
	return true;
}

static bool edm_mux_mem_next(struct edm_fab_port *p, bool have_frame)
{
	struct edm_mux *m = &p->mux;

	if (m->mem_head == m->mem_tail)
		return false;
	if (!have_frame)
		return true;
	switch (p->cfg.mux) {
	case EDM_FAB_MUX_STRICT:
		return true;
	case EDM_FAB_MUX_NONE:
		return false;	/* the frame in progress first */
	default:
		return m->mem_turn;
	}
}

/* Fill out with up to max blocks, in wire order; returns how many. */
u32 edm_mux_pull(struct edm_fab_port *p, struct edm_pcs_block *out, u32 max)
{
	struct edm_mux *m = &p->mux;
	struct edm_pcs_block *b;
	u32 k = 0;

	if (m->spill_blocks)
		edm_mux_unspill(m);
	while (k < max) {
		if (m->in_msg) {
			b = &m->mem[m->mem_head++ & EDM_MUX_MASK];
			out[k++] = *b;
			p->stats.tx_mem_blocks++;
			if (edm_pcs_classify(b) == EDM_PCS_K_MT)
				m->in_msg = false;
			continue;
		}
		if (edm_mux_mem_next(p, edm_mux_frame_ready(m))) {
			b = &m->mem[m->mem_head++ & EDM_MUX_MASK];
			out[k++] = *b;
			p->stats.tx_mem_blocks++;
			m->in_msg = edm_pcs_classify(b) == EDM_PCS_K_MS;
			if (m->frame && m->frame_blk)
				p->stats.preemptions++;
			if (m->mem_wait > p->stats.mem_wait_max)
				p->stats.mem_wait_max = m->mem_wait;
			m->mem_wait = 0;
			m->mem_turn = false;
			continue;
		}
		if (!m->frame)
			break;
		edm_pcs_frame_block(m->frame->data, m->frame->len, m->frame_blk++, &out[k++]);
		p->stats.tx_frame_blocks++;
		if (m->mem_head != m->mem_tail)
			m->mem_wait++;
		m->mem_turn = true;
		if (m->frame_blk == m->frame_nblk) {
			consume_skb(m->frame);
			m->frame = NULL;
		}
	}
	return k;
}
